"""memdir's error codes as exception classes, held to the documented codes
and to the library's registry so the lists cannot drift."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import memdir
from memdir import Memory, errors
from memdir.errors import CODES, MemdirError, error_class, error_from

REPO = Path(__file__).resolve().parents[2]


def _first_column_codes(text: str) -> set:
    """The code of each table row whose first cell starts with a backticked
    snake_case word (``| `memory_not_found` | 404 | …``)."""
    out = set()
    for line in text.splitlines():
        m = re.match(r"^\|\s*`([a-z][a-z0-9_]*)`", line)
        if m:
            out.add(m.group(1))
    return out


def _section(text: str, start: str, end: str = None) -> str:
    i = text.index(start)
    j = text.index(end, i + len(start)) if end else len(text)
    return text[i:j]


def documented_codes() -> dict:
    """Each documented code and its HTTP status where a table gives one."""
    api = (REPO / "docs" / "API.md").read_text(encoding="utf-8")
    cli = (REPO / "docs" / "CLI.md").read_text(encoding="utf-8")
    errors_section = _section(api, "### Errors")
    statuses = {}
    for line in errors_section.splitlines():
        m = re.match(r"^\|\s*`([a-z][a-z0-9_]*)`\s*\|\s*(\d{3})\s*\|", line)
        if m:
            statuses[m.group(1)] = int(m.group(2))
    codes = set(statuses)
    details = _section(cli, "| code | details |", "## Learnings")
    for line in details.splitlines():
        m = re.match(r"^\|\s*`([a-z][a-z0-9_]*)`(?:\s*\((\d{3})\))?", line)
        if m:
            codes.add(m.group(1))
            if m.group(2):
                statuses.setdefault(m.group(1), int(m.group(2)))
    learnings = _section(cli, "## Learnings", "## The dashboard")
    for m in re.finditer(r"`([a-z][a-z0-9_]*)` \((\d{3})\)", learnings):
        codes.add(m.group(1))
        statuses.setdefault(m.group(1), int(m.group(2)))
    m = re.search(r"Codes: (.*?)\.\s*$", learnings, re.S | re.M)
    if m:
        codes.update(re.findall(r"`([a-z][a-z0-9_]*)`", m.group(1)))
    return {c: statuses.get(c) for c in codes}


def registry_codes() -> dict:
    """The library's registry (src/error/code.rs): code → HTTP status."""
    path = REPO / "src" / "error" / "code.rs"
    if not path.is_file():
        pytest.skip("the Rust sources are not beside the package")
    text = path.read_text(encoding="utf-8")
    return {m.group(1): int(m.group(2)) for m in re.finditer(r'^\s*[A-Z]\w* = "([a-z][a-z0-9_]*)", (\d{3});', text, re.M)}


def test_the_python_codes_are_the_documented_codes():
    documented = documented_codes()
    assert len(documented) > 60, "the docs' error tables were not found"
    assert set(CODES) == set(documented), (
        f"documented but not in memdir.errors: {sorted(set(documented) - set(CODES))}; "
        f"in memdir.errors but not documented: {sorted(set(CODES) - set(documented))}"
    )
    for code, status in documented.items():
        if status is not None:
            assert CODES[code] == status, f"{code}: docs say {status}, memdir.errors {CODES[code]}"


def test_the_python_codes_are_the_registrys_codes():
    registry = registry_codes()
    assert len(registry) > 60
    assert CODES == registry


def test_every_code_has_its_class():
    for code, status in CODES.items():
        cls = error_class(code)
        assert cls is not MemdirError and issubclass(cls, MemdirError)
        assert cls.code_name == code
        name = "".join(p.capitalize() for p in code.split("_"))
        assert cls.__name__ == name
        assert getattr(errors, name) is cls and getattr(memdir, name) is cls
        e = error_from({"error": {"code": code, "status": status, "message": "m"}})
        assert type(e) is cls and e.code == code and e.status == status
    assert memdir.MemoryOverBudget.code_name == "memory_over_budget"
    assert memdir.NotReady.code_name == "not_ready"


def test_an_error_object_becomes_its_class_with_hint_and_details():
    e = error_from(
        {
            "error": {
                "code": "skill_exists",
                "status": 409,
                "message": "a different skill named x is stored; pass --replace",
                "hint": {"argument": "--replace", "text": "pass --replace"},
                "name": "x",
            }
        }
    )
    assert isinstance(e, memdir.SkillExists) and isinstance(e, MemdirError)
    assert e.hint == {"argument": "--replace", "text": "pass --replace"}
    assert e.hint_text == "pass --replace"
    assert e.details == {"name": "x"}
    assert e.to_dict()["hint"]["argument"] == "--replace"


def test_an_unknown_code_is_a_plain_memdir_error():
    e = error_from({"error": {"code": "from_a_newer_memdir", "status": 418, "message": "new"}})
    assert type(e) is MemdirError and e.code == "from_a_newer_memdir" and e.status == 418
    bad = error_from(["not", "an", "error"])
    assert type(bad) is error_class("internal_error")


# -- the real binary's failures, through the package --------------------------


def test_the_binarys_failures_raise_their_classes(memory: Memory, memdir_bin: str):
    with pytest.raises(memdir.OwnerNotFound) as e:
        memory.remove("before the owner's first write")
    assert e.value.details["owner"] == "agt_test"
    memory.add("A first fact")
    with pytest.raises(memdir.MemoryNotFound) as e:
        memory.remove("nothing holds this")
    assert e.value.code == "memory_not_found" and e.value.status == 404
    assert "entries" in e.value.details
    with pytest.raises(memdir.MemoryTextTooLong):
        memory.add("x" * 501)
    with pytest.raises(memdir.MemoryTextEmpty):
        memory.add("")
    with pytest.raises(memdir.RunNotFound):
        memory.runs_show("run-20200101T000000.000000Z-00000000")
    with pytest.raises(memdir.InvalidId) as e:
        memory.result_put("../etc", "t", "x")
    assert e.value.details.get("kind")


def test_over_budget_carries_the_usage_and_entries(memory: Memory):
    memory.add("a" * 450, to="user")
    memory.add("b" * 450, to="user")
    memory.add("c" * 450, to="user")
    with pytest.raises(memdir.MemoryOverBudget) as e:
        memory.add("d" * 450, to="user")
    err = e.value
    assert err.details["usage"]["limit"] == 1375
    assert [x["text"][:1] for x in err.details["entries"]] == ["a", "b", "c"]
    assert err.details["would_use"] > err.details["limit"]


def test_a_hint_names_the_command_lines_flag(memory: Memory):
    memory.skill_learn("deploy", "# Deploy\nCheck the VPN.\n")
    with pytest.raises(memdir.SkillExists) as e:
        memory.skill_learn("deploy", "# Deploy\nSomething else.\n")
    assert e.value.hint is not None and e.value.hint["argument"] == "--replace"


def test_a_hint_names_the_http_field(server):
    mem = server.memory()
    mem.skill_learn("deploy", "# Deploy\nCheck the VPN.\n")
    with pytest.raises(memdir.SkillExists) as e:
        mem.skill_learn("deploy", "# Deploy\nSomething else.\n")
    assert e.value.status == 409
    assert e.value.hint is not None and "replace" in e.value.hint["argument"]
    assert "--" not in e.value.hint["argument"]


def test_not_ready_and_result_not_found(memory: Memory):
    run = memory.run_begin()
    with pytest.raises(memdir.NotReady) as e:
        memory.result_get(run["workflow_id"], "later")
    assert e.value.details["workflow_id"] == run["workflow_id"]
    with pytest.raises(memdir.ResultNotFound):
        memory.result_get("wf-nobody-knows", "t")


def test_a_missing_binary_is_a_transport_error(root):
    mem = Memory(root=root, owner="agt_x", binary="/nonexistent/memdir")
    with pytest.raises(memdir.TransportError) as e:
        mem.show()
    assert e.value.code == "binary_not_found"
    with pytest.raises(memdir.TransportError) as e:
        Memory(root=root, owner="agt_x", binary="no-such-memdir-binary-on-path")
    assert e.value.code == "binary_not_found" and "MEMDIR_BIN" in e.value.message
