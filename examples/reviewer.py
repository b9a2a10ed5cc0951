#!/usr/bin/env python3
"""An example reviewer for `memdir review` (docs/REVIEW.md, documents version 1).

memdir runs it with `sh -c`, writes the review's document on its standard
input and reads proposals from its standard output. A real reviewer would ask
a model; this one applies three plain rules so that its output can be checked:

1. A pair of similar facts (pairs[].why == "similar") where the results of
   exactly one fact's run mention every word that fact has and the other has
   not: the other is archived, the evidence named in the reason.
2. A day line of yesterday starting with "remember:" is saved as a fact.
3. An expired fact recalled at least 3 times is renewed for 30 days.

Usage in the machine-local config.yaml:  reviewer: "python3 /path/to/reviewer.py"
"""
import json
import re
import sys


def words(text):
    return set(re.findall(r"[a-z0-9]+", text.lower()))


def main():
    doc = json.load(sys.stdin)
    if doc.get("version") != 1:
        print(f"unsupported document version {doc.get('version')}", file=sys.stderr)
        return 1
    facts = {f["id"]: f for f in doc["facts"]}
    proposals = []
    for pair in doc["pairs"]:
        if pair["why"] != "similar":
            continue
        a, b = (facts[i] for i in pair["ids"])
        supported = []
        for this, other in ((a, b), (b, a)):
            run = this["provenance"].get("run")
            found = set()
            for text in pair["results"].get(run, []) if run else []:
                found |= words(text)
            own = words(this["text"]) - words(other["text"])
            if own and own <= found:
                supported.append((this, other, run))
        if len(supported) == 1:
            keep, drop, run = supported[0]
            proposals.append({
                "action": "archive",
                "id": drop["id"],
                "reason": f"contradicted by the results of run {run}, which support {keep['id']}",
            })
    for line in doc["yesterday"]["lines"]:
        if line["text"].lower().startswith("remember:"):
            proposals.append({"action": "save", "text": line["text"][len("remember:"):].strip(),
                              "reason": f"noted on {doc['yesterday']['date']}"})
    for f in doc["facts"]:
        if f["expired"] and f["recall_count"] >= 3:
            proposals.append({"action": "renew", "id": f["id"], "days": 30,
                              "reason": "still recalled"})
    json.dump({"version": 1, "proposals": proposals}, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
