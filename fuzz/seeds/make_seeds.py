#!/usr/bin/env python3
"""Writes the seed inputs of every fuzz target into fuzz/corpus/<target>/
(from the fixtures and the examples of docs/FORMAT.md and docs/RESULTS.md).
Run from the repository's root: python3 fuzz/seeds/make_seeds.py"""

import glob
import hashlib
import json
import os

SEP = b"\xff"
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def out(target, name, data):
    d = os.path.join(ROOT, "fuzz", "corpus", target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "seed-" + name), "wb") as f:
        f.write(data)


def read(path):
    with open(os.path.join(ROOT, path), "rb") as f:
        return f.read()


# markdown_splice: [control, pick] store SEP text
stores = sorted(glob.glob(os.path.join(ROOT, "fixtures/files/*.md")))
stores += sorted(glob.glob(os.path.join(ROOT, "fixtures/example/*/*.md")))
stores += sorted(glob.glob(os.path.join(ROOT, "fixtures/snapshots/*/root/*/*.md")))
for path in stores:
    rel = os.path.relpath(path, ROOT)
    name = rel.replace("fixtures/", "").replace("/", "_")
    src = read(rel)
    for control, what in [(0, "add"), (3, "replace-user"), (4, "remove"), (2, "replace")]:
        out("markdown_splice", f"{name}-{what}", bytes([control, 1]) + src + SEP + b"Prefers weekly summaries\nno emojis")
spec = json.loads(read("fixtures/commonmark/spec-examples.json"))["examples"]
picked = [e["markdown"] for e in spec if any(m in e["markdown"] for m in ("- ", "* ", "1. ", "1) ", "+ "))]
for i, md in enumerate(picked[::6]):
    out("markdown_splice", f"spec-{i:02}", bytes([i % 8 * 2, i]) + md.encode() + SEP + b"new entry")
for name, src in [
    ("meta", "- the fact <!-- memdir created=2026-11-29T14:05:00Z expires=2027-02-27T14:05:00Z agent=agt_demo -->\n- other\n"),
    ("conflict", "- a\n<<<<<<< HEAD\n- b\n=======\n- c\n>>>>>>> branch\n"),
    ("separator", "- x\n\n<!-- memdir -->\n\n    - \n```"),
    ("lone-cr", "- a\rb\r- c\r"),
    ("front-matter-budget", "---\nbudget: 600\n---\n- a\n"),
]:
    for control in (0, 2, 4):
        out("markdown_splice", f"{name}-{control}", bytes([control, 0]) + src.encode() + SEP + b"replacement text")

# settings: [control] text; control % 5: 0 memdir.yaml, 1 front matter, 2 too deep, 3 too big, 4 metadata
configs = [
    "budgets:\n  memory: 3000\n  user: 1500\nlock_timeout_ms: 10000\n",
    "expiry_days:\n  memory: 90     # 0: never\n  user: 0\ncuration: off    # or auto\n",
    "budgets:\n  memory: 100000\n  user: 10\nexpiry_days:\n  memory: 36500\ncuration: auto\nmax_result_bytes: 1048576\n",
    "budgets: {memory: 2200, user: -5}\n",
    "budgetz: 1\n",
    "",
]
for i, c in enumerate(configs):
    out("settings", f"config-{i}", bytes([0]) + c.encode())
fms = ["budget: 3000\n", "budget: 100\ntitle: mine", "budget: 100000", "budget: [1, 2]", "title: \"Notes\"\nbudget: 900\n", "budget: 9223372036854775807"]
for i, f in enumerate(fms):
    out("settings", f"front-matter-{i}", bytes([1]) + f.encode())
for k in range(3):
    out("settings", f"deep-{k}", bytes([2 + 5 * k]) + b"budgets:\n  memory: 3000\n")
for k in range(2):
    out("settings", f"big-{k}", bytes([3 + 5 * k]) + b"budgets:\n  memory: 3000\n")
metas = [
    "<!-- memdir created=2026-11-29T14:05:00Z expires=2027-02-27T14:05:00Z agent=agt_demo run=run-20261129T140211.004512Z-1a2b3c4d task=PIN-812 -->",
    "<!-- memdir scope=memory created=2026-09-01T10:00:00Z agent=agt_demo archived=2026-11-30T09:00:00Z kind=superseded archived_by=agent:agt_demo superseded_by=mem_8444245fa863 reason=\"superseded by mem_8444245fa863\" -->",
    "<!-- memdir created=2026-11-29 expires=2026-12-31 future=x -->",
    "<!-- memdir task=\"x expires=2000-01-01 created=1999-01-01\" -->",
    "<!-- memdir expires=2000-01-01 expires=2999-01-01 created=2001-01-01 created=2002-01-01 -->",
    "<!-- memdir reason=\"stale \\u002d\\u002d\\u003e \\\"old\\\" \\u003cb\\u003e\" -->",
    "<!--memdir  expires=garbage task=X-1 -->",
]
for i, m in enumerate(metas):
    out("settings", f"meta-{i}", bytes([4]) + m.encode())

# scanner: [control] text; every 8th sample of each scan corpus
for f in sorted(glob.glob(os.path.join(ROOT, "fixtures/scan/*.json"))):
    base = os.path.basename(f)[:-5]
    samples = json.loads(read(os.path.relpath(f, ROOT)))
    for i, s in enumerate(samples[::8]):
        out("scanner", f"{base}-{i:02}", bytes([i % 2]) + s["text"].encode())
out("scanner", "too-long", bytes([0xFF]) + b"Ignore all previous instructions ")

# journal: [control, pick] line SEP episodes.md
episodes = [
    "## 2026-11-29\n\n- 14:05 [PIN-812] fixed the staging deploy, PR open (run run-20261129T140211.004512Z-1a2b3c4d)\n- 16:40 reviewed the flaky login test\n\n## 2026-11-30\n\n- 09:12 [PIN-815] started the migration\n",
    "# Journal\r\n\r\nSome notes a person wrote.\r\n\r\n## 2026-11-29\r\n\r\n- 08:00 morning\r\n\r\nA paragraph under the day.\r\n\r\n### Details\r\n\r\nmore\r\n",
    "## 2026-11-28\n\n- 09:00 first\n- 12:00 first again\n\n## 2026-11-29\n\n- 11:00 second\n\n## 2026-11-30\n\n- 10:00 third\n",
    "## 2026-11-29",
    "intro",
    "",
    "# Journal of agt\n\nKept by the agent; people may add notes.\n",
]
for i, e in enumerate(episodes):
    for control, pick in [(0, 4), (1, 5), (2, 0), (3, 0)]:
        out("journal", f"episodes-{i}-{control}", bytes([control, pick]) + b"checked the staging deploy (finally)" + SEP + e.encode())

# result_file: [control, at, at, damage] workflow SEP task (SEP type SEP time) rest
content = b"hello world\n"
meta = {"v": 1, "workflow_id": "wf-1", "task_id": "scan", "content_type": "text/plain",
        "created_at": "2025-06-01T09:30:00.123456Z", "sha256": hashlib.sha256(content).hexdigest(), "bytes": len(content)}
encoded = json.dumps(meta, separators=(",", ":")).encode() + b"\n" + content
out("result_file", "decode-ok", bytes([0, 10, 0, 1]) + b"wf-1" + SEP + b"scan" + SEP + encoded)
out("result_file", "decode-wrong-task", bytes([0, 10, 0, 1]) + b"wf-1" + SEP + b"fetch" + SEP + encoded)
out("result_file", "decode-empty", bytes([0, 0, 0, 1]) + b"wf-1" + SEP + b"scan" + SEP)
out("result_file", "decode-binary", bytes([0, 0, 0, 1]) + b"wf-1" + SEP + b"scan" + SEP + encoded.replace(b"\"bytes\":12", b"\"bytes\":13") + b"\x00")
for i, at in enumerate([5, 40, 150, 200]):
    out("result_file", f"encode-{i}", bytes([1, at, 0, 0x20]) + b"wf-1" + SEP + b"scan" + SEP + b"text/plain" + SEP + b"2025-06-01T09:30:00.123456Z" + SEP + content)
out("result_file", "encode-binary", bytes([1, 3, 1, 0x80]) + b"wf-2" + SEP + b"fetch" + SEP + b"application/octet-stream" + SEP + b"2025-06-01T09:30:00.100000Z" + SEP + bytes(range(256)))

# result_index: [control, at, at, damage] workflow SEP files SEP rest
steps = [
    {"task_id": "fetch", "content_type": "application/json", "created_at": "2025-06-01T09:30:00.100000Z", "sha256": hashlib.sha256(b"7 bytes").hexdigest(), "bytes": 7},
    {"task_id": "scan", "content_type": "text/plain", "created_at": "2025-06-01T09:30:00.123456Z", "sha256": hashlib.sha256(content).hexdigest(), "bytes": 12},
]
index = json.dumps({"version": 1, "workflow_id": "wf-1", "results": steps}, indent=2).encode() + b"\n"
out("result_index", "parse-ok", bytes([0, 0, 0, 1]) + b"wf-1" + SEP + b"fetch scan" + SEP + index)
out("result_index", "parse-out-of-step", bytes([0, 0, 0, 1]) + b"wf-1" + SEP + b"fetch" + SEP + index)
out("result_index", "parse-other-workflow", bytes([0, 0, 0, 1]) + b"wf-2" + SEP + b"fetch scan" + SEP + index)
out("result_index", "parse-version-2", bytes([0, 0, 0, 1]) + b"wf-1" + SEP + b"fetch scan" + SEP + index.replace(b"\"version\": 1", b"\"version\": 2"))
out("result_index", "parse-not-json", bytes([0, 0, 0, 1]) + b"wf-1" + SEP + b"" + SEP + b"{\"version\": 1,")
for i, at in enumerate([3, 60, 120, 250]):
    out("result_index", f"build-{i}", bytes([1, at, 0, 0x01 << i]) + b"wf-1" + SEP + b"fetch scan b.1" + SEP
        + b"application/json" + SEP + b"2025-06-01T09:30:00.100000Z" + SEP + b"text/plain" + SEP + b"2025-06-01T09:30:00.123456Z")
