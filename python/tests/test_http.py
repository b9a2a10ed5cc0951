"""``Memory`` over HTTP: every method against a real ``memdir serve`` on a
loopback port, with keys made by ``memdir key create``; what the server has
no route for raises ``UnsupportedOperation`` before anything is sent."""

from __future__ import annotations

from pathlib import Path

import pytest

import memdir
from memdir import Memory
from conftest import OWNER
import schemas

HTTP_SCHEMAS = schemas.SCHEMAS / "http"


def test_the_stores_over_http(server, root: Path):
    mem = server.memory()
    a = mem.add("The staging deploy needs the VPN on")
    assert a["message"] == "added" and a["id"].startswith("mem_") and a["scope"] == "memory"
    assert set(a["usage"]) == {"used", "limit", "text"} and a["usage"]["limit"] == 2200
    assert "The staging deploy needs the VPN on" in (root / OWNER / "MEMORY.md").read_text()
    u = mem.add("Prefers weekly summaries", to="user")
    assert u["scope"] == "user" and "Prefers weekly summaries" in (root / OWNER / "USER.md").read_text()
    e = mem.add("Expires soon", expires="2099-12-31")
    assert e["scope"] == "memory"

    shown = mem.show()
    texts = {s["scope"]: sorted(x["text"] for x in s["entries"]) for s in shown["stores"]}
    assert texts == {"user": ["Prefers weekly summaries"], "memory": ["Expires soon", "The staging deploy needs the VPN on"]}

    gone = mem.remove("weekly", scope="user")
    assert gone["id"] == u["id"] and gone["removed"] == 1
    assert "weekly" not in (root / OWNER / "USER.md").read_text()
    gone2 = mem.remove(e["id"])
    assert gone2["id"] == e["id"]
    with pytest.raises(memdir.MemoryNotFound):
        mem.remove("nothing holds this")

    with pytest.raises(memdir.UnsupportedOperation):
        mem.replace("VPN", "The VPN and a key")


def test_a_persons_key_edits_and_vetoes(server, root: Path):
    agent = server.memory()
    fact = agent.add("The office opens at 9")
    ann = server.person_memory("ann", OWNER)
    r = ann.replace("opens at 9", "The office opens at 8")
    assert r["old_id"] == fact["id"] and r["text"] == "The office opens at 8"
    assert "opens at 8" in (root / OWNER / "MEMORY.md").read_text()
    v = ann.veto(r["id"], reason="closed now")
    assert v["status"] == "archived"
    schemas.check(v, "transition.json", base=HTTP_SCHEMAS)
    nobody = server.person_memory("ann", "agt_typo")
    with pytest.raises(memdir.OwnerNotFound) as e:
        nobody.add("x")
    assert e.value.status == 404
    assert not (root / "agt_typo").exists()


def test_snapshot_day_recall_and_list(server, root: Path):
    mem = server.memory()
    mem.add("Uses pnpm, not npm")
    snap = mem.snapshot()
    schemas.check({k: snap[k] for k in ("text", "sha256", "bytes")}, "snapshot.json", base=HTTP_SCHEMAS)
    assert "- Uses pnpm, not npm" in snap["text"]
    day = mem.day("Checked the build")
    assert day["message"] == "appended"
    assert "Checked the build" in (root / OWNER / "episodes.md").read_text()
    rec = mem.recall("pnpm or npm")
    assert "pnpm" in rec["block"]
    rows = mem.list(kind="fact")
    assert any(r["text"] == "Uses pnpm, not npm" for r in rows["rows"])
    fact = rows["rows"][0]
    arch = mem.archive(fact["id"], "moved to yarn")
    assert arch["status"] == "archived"
    back = mem.unarchive(fact["id"])
    assert back["status"] == "active"
    with pytest.raises(memdir.InvalidRequest) as e:
        mem.list(kind="note")
    assert "kind must be one of" in e.value.message


def test_results_over_http(server, memory: Memory):
    mem = server.memory()
    run = memory.run_begin()  # a workflow the server knows
    wf = run["workflow_id"]
    put = mem.result_put(wf, "research", "# Findings\n", content_type="text/markdown")
    assert put["bytes"] == len("# Findings\n")
    got = mem.result_get(wf, "research")
    schemas.check(got, "result.json", base=HTTP_SCHEMAS)
    assert got["content"] == "# Findings\n"
    blob = bytes(range(256))
    mem.result_put(wf, "blob", blob)
    assert Memory.result_bytes(mem.result_get(wf, "blob")) == blob
    with pytest.raises(memdir.ResultExists):
        mem.result_put(wf, "research", "other")
    mem.result_put(wf, "research", "other", overwrite=True)
    assert mem.result_get(wf, "research")["content"] == "other"
    with pytest.raises(memdir.NotReady):
        mem.result_get(wf, "later")
    with pytest.raises(memdir.ResultNotFound):
        mem.result_get("wf-nobody-knows", "t")
    with pytest.raises(memdir.InvalidRequest):
        mem.result_put(wf, "empty", b"")
    mem.result_put(wf, "empty", b"", allow_empty=True)
    with pytest.raises(memdir.UnsupportedOperation):
        mem.result_get(wf)


def test_skills_and_learnings_over_http(server, root: Path):
    mem = server.memory()
    out = mem.skill_learn("deploy", "# Deploy\nVPN first.\n", description="How to deploy")
    assert out["message"] == "saved" and (root / OWNER / "skills" / "deploy" / "SKILL.md").is_file()
    assert mem.skill_list()["skills"][0]["name"] == "deploy"
    assert "VPN first." in mem.skill_show("deploy")["body"]
    assert mem.skill_forget("deploy")["message"] == "forgot"
    with pytest.raises(memdir.SkillNotFound):
        mem.skill_show("deploy")
    p = mem.propose("The CI runners have 2 cores")
    assert p["message"] == "proposed"
    with pytest.raises(memdir.PersonOnly):
        mem.learning_approve(p["learning"]["id"])
    ann = Memory(url=server.url, key=server.key("--person", "ann"))
    assert ann.learning_approve(p["learning"]["id"])["message"] == "approved"
    assert [x["text"] for x in mem.learnings()["approved"]] == ["The CI runners have 2 cores"]


def test_writes_over_http_record_their_run(server, root: Path, memdir_bin: str):
    """``add(run=…)`` and ``day(run=…)`` send ``runId``: the fact's metadata
    records the run (begun on the command line: HTTP has no run route)."""
    from conftest import run_memdir

    run_id = Memory(root=root, owner=OWNER, binary=memdir_bin).run_begin()["run_id"]
    mem = server.memory()
    mem.add("Saved over HTTP inside a run", run=run_id)
    mem.add("A user fact inside a run", to="user", run=run_id)
    mem.add("Expiring inside a run", expires="2099-12-31", run=run_id)
    day = mem.day("Worked on the deploy over HTTP", run=run_id)
    assert day["line"]["run_id"] == run_id
    for name, text in (("MEMORY.md", "Saved over HTTP inside a run"), ("USER.md", "A user fact inside a run"), ("MEMORY.md", "Expiring inside a run")):
        line = [l for l in (root / OWNER / name).read_text().splitlines() if text in l]
        assert len(line) == 1 and f" run={run_id} " in line[0], line
    rows = run_memdir(memdir_bin, "--root", str(root), "--owner", OWNER, "list", "--kind", "fact")["rows"]
    assert sorted(r["text"] for r in rows if r["run_id"] == run_id) == [
        "A user fact inside a run", "Expiring inside a run", "Saved over HTTP inside a run"
    ]
    with pytest.raises(memdir.MemdirError) as e:
        mem.add("Not a run of this agent", run="run-20990101T000000.000000Z-00000000")
    assert e.value.code == "run_not_found"


def test_a_run_over_http_is_begun_resumed_by_session_and_finished(server, root):
    mem = server.memory()
    mem.add("Prefers tea", to="user")
    run = mem.run_begin(task="PIN-3", session="s-1")
    assert run["resumed"] is False and "Prefers tea" in run["text"]
    again = mem.run_begin(session="s-1")
    assert again["resumed"] is True and again["run_id"] == run["run_id"]
    mem.add("Likes green tea", to="user", run=run["run_id"])
    line = next(l for l in (root / "agt_test" / "USER.md").read_text().splitlines() if "green" in l)
    assert f"run={run['run_id']}" in line and "task=PIN-3" in line
    done = mem.run_finish(run["run_id"], "shipped")
    assert done["line"]["text"] == "shipped"
    with pytest.raises(memdir.MemdirError) as e:
        mem.run_finish(run["run_id"])
    assert e.value.code == "run_finished"


def test_what_http_has_no_route_for(server):
    mem = server.memory()
    for call in (
        lambda: mem.runs_search("x"),
        lambda: mem.runs_show("run-x"),
        lambda: mem.runs_list(),
        lambda: mem.renew("mem_0123456789ab"),
        lambda: mem.batch([]),
        lambda: mem.recall("x", preview=True),
        lambda: mem.day("x", task="T-1"),
    ):
        with pytest.raises(memdir.UnsupportedOperation) as e:
            call()
        assert isinstance(e.value, NotImplementedError) and "HTTP" in e.value.message


def test_keys_are_checked(server):
    bad = Memory(url=server.url, key="mdk_" + "0" * 64)
    with pytest.raises(memdir.Unauthorized) as e:
        bad.snapshot()
    assert e.value.status == 401
    none = Memory(url=server.url, key=None)
    with pytest.raises(memdir.Unauthorized):
        none.snapshot()


def test_an_unreachable_server_is_a_transport_error():
    from conftest import free_port

    mem = Memory(url=f"http://127.0.0.1:{free_port()}", key="mdk_x", timeout=2)
    with pytest.raises(memdir.TransportError) as e:
        mem.snapshot()
    assert e.value.code == "connection_failed"


def test_the_answer_bound(server):
    mem = server.memory()
    mem.add("x" * 400)
    tiny = Memory(url=server.url, key=mem.transport.key, max_output=32)
    with pytest.raises(memdir.TransportError) as e:
        tiny.snapshot()
    assert e.value.code == "answer_too_large"


def test_urls_are_checked():
    for bad in ("ftp://host", "127.0.0.1:7077", "http://host/?q=1"):
        with pytest.raises(ValueError):
            Memory(url=bad, key="k")


def test_memory_tool_over_http(tool_server, root: Path):
    mem = tool_server.memory()
    mem.add("The staging deploy needs the VPN on")
    text, is_error = mem.memory_tool({"command": "view", "path": "/memories/MEMORY.md"})
    assert is_error is False and "The staging deploy needs the VPN on" in text
    text, is_error = mem.memory_tool(
        {"command": "str_replace", "path": "/memories/MEMORY.md", "old_str": "VPN on", "new_str": "VPN and a key"}
    )
    assert is_error is False
    assert "VPN and a key" in (root / OWNER / "MEMORY.md").read_text()
    text, is_error = mem.memory_tool({"command": "view", "path": "/memories/../etc/passwd"})
    assert is_error is True
    ann = tool_server.person_memory("ann", OWNER)
    text, is_error = ann.memory_tool({"command": "view", "path": "/memories/MEMORY.md"})
    assert is_error is False and "VPN and a key" in text
    with pytest.raises(memdir.InvalidRequest):
        mem.memory_tool({"command": "explode"})


def test_http_answers_match_their_schemas(server, memory: Memory):
    """Each answer the HTTP transport returns: a route's own answer is
    valid against docs/schema/http/, and the answers the package shapes like
    the command line's (add, remove, replace) against docs/schema/."""
    mem = server.memory()
    schemas.check(mem.add("The staging deploy needs the VPN on"), "add.json")
    schemas.check(mem.add("Expires later", expires="2099-01-01"), "add.json")
    schemas.check(mem.add("Prefers weekly summaries", to="user"), "add.json")
    schemas.check(mem.remove("Expires later"), "remove.json")
    ann = server.person_memory("ann", OWNER)
    schemas.check(ann.replace("weekly", "Prefers monthly summaries"), "replace.json")
    schemas.check(mem.day("Checked the build"), "day.json", base=HTTP_SCHEMAS)
    schemas.check(mem.recall("staging deploy"), "memories-recall.json", base=HTTP_SCHEMAS)
    schemas.check(mem.list(), "memories.json", base=HTTP_SCHEMAS)
    wf = memory.run_begin()["workflow_id"]
    schemas.check(mem.result_put(wf, "t", "x"), "result-put.json", base=HTTP_SCHEMAS)
    schemas.check(mem.skill_learn("deploy", "# Deploy\nVPN first.\n"), "skill-save.json", base=HTTP_SCHEMAS)
    schemas.check(mem.skill_list(), "skills.json", base=HTTP_SCHEMAS)
    schemas.check(mem.skill_show("deploy"), "skill-show.json", base=HTTP_SCHEMAS)
    schemas.check(mem.skill_forget("deploy"), "skill-forget.json", base=HTTP_SCHEMAS)
    schemas.check(mem.propose("The CI runners have 2 cores"), "learning.json", base=HTTP_SCHEMAS)
    schemas.check(mem.learnings(), "learnings.json", base=HTTP_SCHEMAS)


def test_ids_are_one_path_segment(server, root: Path):
    mem = server.memory()
    mem.add("A first fact")
    for wf in ("..", "../agt_other", "a/b", "%2e%2e"):
        with pytest.raises(memdir.MemdirError) as e:
            mem.result_put(wf, "t", "x")
        assert e.value.code in ("invalid_id", "route_not_found"), (wf, e.value)
    assert not (root / "agt_other").exists()


def test_a_write_under_review_waits_on_the_command_line_and_over_http(server, root: Path, memdir_bin: str):
    """Under ``writes: review`` an agent's save answers ``status: pending``
    and its ``pending_id`` on both transports and both HTTP families; the
    agent looks its writes up but approves nothing; a person decides."""
    (root / "memdir.yaml").write_text("writes: review\n")
    local = Memory(root=root, owner=OWNER, binary=memdir_bin)
    a = local.add("Deploys go out on Tuesdays")
    assert a["status"] == "pending" and a["pending_id"].startswith("pnd_"), a
    assert local.pending(a["pending_id"])["pending_id"] == a["pending_id"]
    mem = server.memory()
    b = mem.add("Invoices are sent on the first")
    assert b["status"] == "pending" and b["pending_id"].startswith("pnd_"), b
    c = mem.add("Backups expire after a year", expires="2099-12-31")
    assert c["status"] == "pending" and c["pending_id"].startswith("pnd_"), c
    assert mem.pending()["waiting"] == 3
    assert not (root / OWNER / "MEMORY.md").exists() or "Invoices" not in (root / OWNER / "MEMORY.md").read_text()
    with pytest.raises(memdir.PersonOnly):
        mem.pending_approve(b["pending_id"])
    ann = server.person_memory("ann", OWNER)
    assert ann.pending_approve(b["pending_id"])["status"] == "approved"
    assert ann.pending_reject(c["pending_id"], "not a fact")["status"] == "rejected"
    with pytest.raises(memdir.MemoryPendingRejected):
        mem.add("Backups expire after a year")
    assert "Invoices are sent on the first" in (root / OWNER / "MEMORY.md").read_text()
    # Claude's memory tool says the edit waits, and names its id.
    for m in (local, mem):
        text, is_error = m.memory_tool({"command": "create", "path": "/memories/USER.md", "file_text": "- Prefers short answers\n"})
        assert not is_error and "waits for a person's review (pending pnd_" in text, text
    assert not (root / OWNER / "USER.md").exists() or "short answers" not in (root / OWNER / "USER.md").read_text()
