"""``Memory`` over the command line: every method against the real binary,
each answer checked against its schema in docs/schema and against the
files it wrote."""

from __future__ import annotations

import typing
from pathlib import Path

import pytest

import memdir
from memdir import Memory, types
from conftest import OWNER
import schemas

# Each typed answer and the schema it mirrors.
TYPED = {
    types.AddResult: "add.json",
    types.ReplaceResult: "replace.json",
    types.RemoveResult: "remove.json",
    types.ShowResult: "show.json",
    types.Snapshot: "snapshot.json",
    types.RunBegin: "run-begin.json",
    types.DayResult: "day.json",
    types.RecallResult: "recall.json",
    types.ResultPut: "result-put.json",
    types.Result: "result.json",
    types.ResultSteps: "result-steps.json",
    types.SkillOutcome: "skill.json",
    types.Skills: "skills.json",
    types.SkillShow: "skill-show.json",
    types.RunsSearch: "runs-search.json",
    types.RunsShow: "runs-show.json",
    types.RunsList: "runs-list.json",
    types.ListResult: "list.json",
    types.Transition: "transition.json",
    types.Renewed: "renew.json",
    types.LearningOutcome: "learning.json",
    types.Learnings: "learnings.json",
    types.PendingList: "pending.json",
    types.PendingShow: "pending-show.json",
    types.PendingDecision: "pending-decision.json",
}


@pytest.mark.parametrize("typed,schema", sorted(TYPED.items(), key=lambda kv: kv[1]), ids=lambda x: getattr(x, "__name__", x))
def test_each_typed_answer_mirrors_its_schema(typed, schema):
    props, required = schemas.keys(schema)
    hints = typing.get_type_hints(typed)
    assert set(hints) <= props, f"{typed.__name__} has keys {set(hints) - props} that {schema} does not"
    assert required <= set(hints), f"{typed.__name__} lacks {schema}'s required keys {required - set(hints)}"
    optional = set(getattr(typed, "__optional_keys__", set()))
    assert not (optional & required), f"{typed.__name__} makes required keys optional: {optional & required}"


def test_the_memory_tool_answer_mirrors_its_schema(root: Path, tool_bin: str):
    """``ToolAnswer`` is ``memdir tool memory --json``'s answer (and its schema
    once docs/schema has one)."""
    mem = Memory(root=root, owner=OWNER, binary=tool_bin)
    mem.add("A fact")
    answer = mem.transport.call(["tool", "memory"], stdin=b'{"command":"view","path":"/memories"}')
    hints = set(typing.get_type_hints(types.ToolAnswer))
    # `pending_id` only when the edit waits for a person (writes: review).
    assert set(answer) == {"text", "is_error"} and set(answer) <= hints
    if (schemas.SCHEMAS / "memory-tool.json").is_file():
        schemas.check(answer, "memory-tool.json")
        props, required = schemas.keys("memory-tool.json")
        assert hints == props and required == set(answer)


def test_memory_without_arguments_reads_the_environment(root: Path, memdir_bin: str, monkeypatch):
    monkeypatch.setenv("MEMDIR_ROOT", str(root))
    monkeypatch.setenv("MEMDIR_OWNER", "agt_env")
    monkeypatch.setenv("MEMDIR_BIN", memdir_bin)
    mem = Memory()
    assert not mem.over_http and mem.owner == "agt_env" and mem.root == str(root)
    added = mem.add("Set from the environment")
    assert (root / "agt_env" / "MEMORY.md").read_text().count("Set from the environment") == 1
    assert [e["id"] for e in mem.show(scope="memory")["stores"][0]["entries"]] == [added["id"]]
    monkeypatch.setenv("MEMDIR_URL", "http://127.0.0.1:9")
    monkeypatch.delenv("MEMDIR_ROOT")
    monkeypatch.delenv("MEMDIR_OWNER")
    monkeypatch.setenv("MEMDIR_KEY", "mdk_" + "0" * 64)
    over = Memory()
    assert over.over_http and over.transport.key == "mdk_" + "0" * 64


def test_add_replace_remove_and_show(memory: Memory, root: Path):
    a = memory.add("The staging deploy needs the VPN on", expires="30d")
    schemas.check(a, "add.json")
    assert a["message"] == "added" and a["scope"] == "memory" and a["id"].startswith("mem_")
    again = memory.add("The staging deploy needs the VPN on")
    assert again["message"] == "already stored" and again["id"] == a["id"]
    u = memory.add("Prefers weekly summaries", to="user")
    assert u["scope"] == "user"
    assert "The staging deploy needs the VPN on" in (root / OWNER / "MEMORY.md").read_text()

    r = memory.replace("VPN on", "The staging deploy needs the VPN and a key")
    schemas.check(r, "replace.json")
    assert r["old_id"] == a["id"] and r["id"] != a["id"]
    text = (root / OWNER / "MEMORY.md").read_text()
    assert "VPN and a key" in text and "needs the VPN on" not in text

    shown = memory.show()
    schemas.check(shown, "show.json")
    by_scope = {s["scope"]: [e["text"] for e in s["entries"]] for s in shown["stores"]}
    assert by_scope == {"user": ["Prefers weekly summaries"], "memory": ["The staging deploy needs the VPN and a key"]}
    only_user = memory.show(scope="user")
    assert [s["scope"] for s in only_user["stores"]] == ["user"]

    gone = memory.remove("weekly", scope="user")
    schemas.check(gone, "remove.json")
    assert gone["removed"] == 1 and gone["id"] == u["id"]
    assert "weekly" not in (root / OWNER / "USER.md").read_text()


def test_text_that_looks_like_an_option_is_text(memory: Memory, root: Path):
    a = memory.add("--to user")
    assert a["scope"] == "memory" and a["text"] == "--to user"
    memory.replace("--to user", "-x is a flag of tar")
    memory.remove("-x is")
    assert memory.show(scope="memory")["stores"][0]["entries"] == []


def test_supersedes_and_the_transitions(memory: Memory, root: Path):
    old = memory.add("The office opens at 9")
    new = memory.add("The office opens at 8", supersedes=old["id"])
    assert new["archived"] == [old["id"]]
    ren = memory.renew(new["id"], expires="never")
    schemas.check(ren, "renew.json")
    assert ren["expires"] is None
    arch = memory.archive(new["id"], "moved offices")
    schemas.check(arch, "transition.json")
    assert arch["status"] == "archived"
    back = memory.unarchive(new["id"])
    assert back["status"] == "active"
    rows = memory.list(all=True)
    schemas.check(rows, "list.json")
    assert {r["id"] for r in rows["rows"]} >= {old["id"], new["id"]}
    archived = memory.list(status="archived")
    assert [r["id"] for r in archived["rows"]] == [old["id"]]


def test_a_person_vetoes(root: Path, person_bin: str, memory: Memory):
    fact = memory.add("The deploy key is in the wiki")
    person = Memory(root=root, person="ann", agent=OWNER, binary=person_bin)
    v = person.veto(fact["id"], reason="wrong")
    schemas.check(v, "transition.json")
    assert v["status"] == "archived"
    with pytest.raises(memdir.MemoryVetoHumanOnly):
        memory.veto(fact["id"])
    with pytest.raises(memdir.OwnerNotFound):
        Memory(root=root, person="ann", agent="agt_typo", binary=person_bin).add("x")


def test_batch_is_all_or_none(memory: Memory):
    out = memory.batch([{"op": "add", "text": "One"}, {"op": "add", "text": "Two", "in": "user"}])
    assert [r["message"] for r in out["results"]] == ["added", "added"]
    with pytest.raises(memdir.MemoryNotFound) as e:
        memory.batch([{"op": "add", "text": "Three"}, {"op": "remove", "old": "not there"}])
    assert e.value.details.get("index") == 2
    texts = [e["text"] for s in memory.show()["stores"] for e in s["entries"]]
    assert "Three" not in texts


def test_snapshot_run_day_and_runs(memory: Memory, root: Path):
    memory.add("Uses pnpm, not npm")
    snap = memory.snapshot()
    schemas.check(snap, "snapshot.json")
    assert "- Uses pnpm, not npm" in snap["text"]
    run = memory.run_begin(task="PIN-812")
    schemas.check(run, "run-begin.json")
    assert run["text"] == snap["text"] and run["sha256"] == snap["sha256"]
    memory.add("Written mid-run")
    assert memory.snapshot()["sha256"] != run["sha256"]
    day = memory.day("Looked at the flaky test", task="PIN-812")
    schemas.check(day, "day.json")
    fin = memory.run_finish(run["run_id"], "Fixed the flaky test in CI")
    schemas.check(fin, "day.json")
    assert fin["line"]["run_id"] == run["run_id"]
    with pytest.raises(memdir.RunFinished):
        memory.run_finish(run["run_id"], "again")
    assert "Fixed the flaky test in CI" in (root / OWNER / "episodes.md").read_text()
    hits = memory.runs_search("flaky test")
    schemas.check(hits, "runs-search.json")
    assert hits["count"] >= 1 and any(h["run_id"] == run["run_id"] for h in hits["hits"])
    shown = memory.runs_show(run["run_id"])
    schemas.check(shown, "runs-show.json")
    assert shown["snapshot"] == run["text"]
    runs = memory.runs_list()
    schemas.check(runs, "runs-list.json")
    assert [r["run_id"] for r in runs["runs"]] == [run["run_id"]]


def test_recall(memory: Memory):
    memory.add("The staging deploy needs the VPN on")
    memory.add("Lunch is at noon")
    rec = memory.recall("how do I deploy to staging", preview=True)
    schemas.check(rec, "recall.json")
    assert rec["counted"] is False
    assert "VPN" in rec["block"]
    run = memory.run_begin()
    counted = memory.recall("staging deploy", run=run["run_id"])
    assert counted["counted"] is True
    assert memory.runs_show(run["run_id"])["recalls"][0]["block"] == counted["block"]


def test_results(memory: Memory):
    run = memory.run_begin()
    wf = run["workflow_id"]
    put = memory.result_put(wf, "research", "# Findings\nIt works.\n", content_type="text/markdown")
    schemas.check(put, "result-put.json")
    assert put["bytes"] == len("# Findings\nIt works.\n")
    again = memory.result_put(wf, "research", "# Findings\nIt works.\n", content_type="text/markdown")
    assert again["message"] != put["message"] or again["status"] != put["status"]
    with pytest.raises(memdir.ResultExists):
        memory.result_put(wf, "research", "different")
    got = memory.result_get(wf, "research")
    schemas.check(got, "result.json")
    assert got["content"] == "# Findings\nIt works.\n"
    blob = bytes(range(256))
    memory.result_put(wf, "blob", blob, content_type="application/octet-stream")
    b = memory.result_get(wf, "blob")
    assert b["content"] is None and Memory.result_bytes(b) == blob
    steps = memory.result_get(wf)
    schemas.check(steps, "result-steps.json")
    assert {s["task_id"] for s in steps["steps"]} >= {"research", "blob"}
    with pytest.raises(memdir.InvalidRequest):
        memory.result_put(wf, "empty", "")
    memory.result_put(wf, "empty", "", allow_empty=True)


def test_skills(memory: Memory, root: Path):
    out = memory.skill_learn("deploy-checklist", "# Deploy\n1. VPN on\n2. Run the smoke test\n", description="How to deploy")
    schemas.check(out, "skill.json")
    assert (root / OWNER / "skills" / "deploy-checklist" / "SKILL.md").is_file()
    ls = memory.skill_list()
    schemas.check(ls, "skills.json")
    assert ls["count"] == 1 and ls["skills"][0]["name"] == "deploy-checklist"
    sh = memory.skill_show("deploy-checklist")
    schemas.check(sh, "skill-show.json")
    assert "Run the smoke test" in sh["body"] and sh["description"] == "How to deploy"
    run = memory.run_begin(skills=["deploy-checklist"])
    assert "## Skill deploy-checklist" in run["text"]
    fg = memory.skill_forget("deploy-checklist")
    schemas.check(fg, "skill.json")
    with pytest.raises(memdir.SkillNotFound):
        memory.skill_show("deploy-checklist")
    assert memory.learn == memory.skill_learn


def test_learnings(root: Path, person_bin: str, memory: Memory):
    memory.add("A first fact makes the owner's folder")
    p = memory.propose("The CI runners have 2 cores")
    schemas.check(p, "learning.json")
    assert p["message"] == "proposed"
    listed = memory.learnings()
    schemas.check(listed, "learnings.json")
    assert [x["text"] for x in listed["proposals"]] == ["The CI runners have 2 cores"]
    with pytest.raises(memdir.PersonOnly):
        memory.learning_approve(p["learning"]["id"])
    ann = Memory(root=root, person="ann", binary=person_bin)
    ok = ann.learning_approve(p["learning"]["id"])
    schemas.check(ok, "learning.json")
    assert ok["message"] == "approved"
    assert "The CI runners have 2 cores" in memory.snapshot()["text"]
    ret = ann.learning_retire(p["learning"]["id"], reason="more cores now")
    assert ret["message"] == "retired"
    q = memory.propose("Builds take 3 minutes")
    rej = ann.learning_reject(q["learning"]["id"], "not a fact")
    assert rej["message"] == "rejected"
    with pytest.raises(memdir.LearningClosed):
        memory.propose("Builds take 3 minutes")


def test_the_answer_bound_and_the_timeout(root: Path, memdir_bin: str, memory: Memory):
    memory.add("A fact long enough to print " + "x" * 300)
    tiny = Memory(root=root, owner=OWNER, binary=memdir_bin, max_output=64)
    with pytest.raises(memdir.TransportError) as e:
        tiny.show()
    assert e.value.code == "answer_too_large"
    slow = Memory(root=root, owner=OWNER, binary=memdir_bin, timeout=0.5)
    run = slow.run_begin()
    with pytest.raises(memdir.TransportError) as e:
        slow.transport.call(["result", "wait", run["workflow_id"], "never", "--timeout", "30"])
    assert e.value.code == "timeout"


def test_a_refused_argument_is_a_usage_error(memory: Memory):
    with pytest.raises(memdir.Usage):
        memory.add("x", to="team")
    with pytest.raises(memdir.Usage):
        memory.transport.call(["list", "--kind", "note"])


def test_memory_tool_over_the_command_line(root: Path, tool_bin: str):
    mem = Memory(root=root, owner=OWNER, binary=tool_bin)
    mem.add("The staging deploy needs the VPN on")
    text, is_error = mem.memory_tool({"command": "view", "path": "/memories"})
    assert is_error is False and "MEMORY.md" in text and "USER.md" in text
    text, is_error = mem.memory_tool({"command": "view", "path": "/memories/MEMORY.md"})
    assert is_error is False and "The staging deploy needs the VPN on" in text
    text, is_error = mem.memory_tool(
        {"command": "str_replace", "path": "/memories/MEMORY.md", "old_str": "VPN on", "new_str": "VPN and a key"}
    )
    assert is_error is False
    assert "VPN and a key" in (root / OWNER / "MEMORY.md").read_text()
    text, is_error = mem.memory_tool({"command": "create", "path": "/memories/notes.md", "file_text": "x"})
    assert is_error is True and "MEMORY.md" in text
    text, is_error = mem.memory_tool({"command": "delete", "path": "/memories/MEMORY.md"})
    assert is_error is True
    with pytest.raises(memdir.InvalidRequest):
        mem.memory_tool({"command": "explode", "path": "/memories"})
    with pytest.raises(memdir.InvalidRequest):
        mem.memory_tool({"command": "create", "path": "/memories/MEMORY.md", "file_text": "x" * (70 * 1024)})


def test_memory_tool_skills_are_read_only_unless_asked(root: Path, tool_bin: str):
    mem = Memory(root=root, owner=OWNER, binary=tool_bin)
    mem.skill_learn("deploy", "# Deploy\nVPN first.\n")
    path = "/memories/skills/deploy/SKILL.md"
    text, is_error = mem.memory_tool({"command": "str_replace", "path": path, "old_str": "VPN first.", "new_str": "Key first."})
    assert is_error is True
    assert "VPN first." in mem.skill_show("deploy")["body"]
    text, is_error = mem.memory_tool(
        {"command": "str_replace", "path": path, "old_str": "VPN first.", "new_str": "Key first."}, skills_writable=True
    )
    assert is_error is False, text
    assert "Key first." in mem.skill_show("deploy")["body"]
