"""Which binary the package runs (``memdir.binary()``): an explicit
``binary=``, else ``$MEMDIR_BIN``, else the one installed with the package
(the wheel's scripts folder), else ``memdir`` on ``PATH``; a binary of
another version than the package's is refused naming both versions and the
path; no binary at all is an error naming every place searched, in the
client and in the Hermes provider's availability and status alike. The
version the package reports is its installed metadata's."""

from __future__ import annotations

import importlib.metadata
import subprocess
from pathlib import Path

import pytest

import memdir
from memdir import Memory, _transport
from conftest import OWNER


def fake_binary(folder: Path, version: str) -> str:
    """An executable ``memdir`` that says ``memdir VERSION``."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "memdir"
    path.write_text(f"#!/bin/sh\necho 'memdir {version}'\n")
    path.chmod(0o755)
    return str(path)


@pytest.fixture
def nowhere(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """No binary anywhere: no ``$MEMDIR_BIN``, an empty scripts folder and
    an empty ``PATH``."""
    scripts = tmp_path / "scripts"
    scripts.mkdir()
    empty = tmp_path / "empty-path"
    empty.mkdir()
    monkeypatch.delenv("MEMDIR_BIN", raising=False)
    monkeypatch.setattr(_transport, "_scripts_folders", lambda: [str(scripts)])
    monkeypatch.setenv("PATH", str(empty))
    return tmp_path


def test_the_version_is_the_installed_metadata_and_the_binarys(memdir_bin: str):
    assert memdir.__version__ == importlib.metadata.version("memdir")
    out = subprocess.run([memdir_bin, "--version"], capture_output=True, text=True, timeout=30)
    assert out.stdout.split() == ["memdir", memdir.__version__]


def test_an_explicit_binary_then_memdir_bin_then_the_scripts_folder_then_path(
    nowhere: Path, monkeypatch: pytest.MonkeyPatch, memdir_bin: str
):
    version = memdir.__version__
    scripts_bin = fake_binary(nowhere / "scripts", version)
    on_path = fake_binary(nowhere / "empty-path", version)
    given = fake_binary(nowhere / "given", version)
    env_bin = fake_binary(nowhere / "env", version)
    # The installed one wins over PATH.
    assert memdir.binary() == scripts_bin
    # $MEMDIR_BIN over the installed one; binary= over both.
    monkeypatch.setenv("MEMDIR_BIN", env_bin)
    assert memdir.binary() == env_bin
    assert memdir.binary(given) == given
    # Without the installed one, PATH.
    monkeypatch.delenv("MEMDIR_BIN")
    Path(scripts_bin).unlink()
    assert memdir.binary() == on_path


def test_the_scripts_folders_are_the_running_interpreters():
    import sys
    import sysconfig

    folders = _transport._scripts_folders()
    assert sysconfig.get_path("scripts") in folders
    assert str(Path(sys.executable).parent) in folders


def test_no_binary_at_all_names_every_place_searched(nowhere: Path, root: Path):
    with pytest.raises(memdir.TransportError) as e:
        memdir.binary()
    assert e.value.code == "binary_not_found"
    searched = e.value.details["searched"]
    assert str(nowhere / "scripts" / "memdir") in searched
    assert any(s.startswith("PATH (") and str(nowhere / "empty-path") in s for s in searched)
    assert "$MEMDIR_BIN (not given)" in searched
    for place in searched:
        assert place in e.value.message
    with pytest.raises(memdir.TransportError) as e:
        Memory(root=root, owner=OWNER)
    assert e.value.code == "binary_not_found" and str(nowhere / "scripts" / "memdir") in e.value.message


def test_a_binary_of_another_version_is_refused_naming_both(tmp_path: Path, root: Path):
    other = fake_binary(tmp_path / "old", "0.0.1")
    with pytest.raises(memdir.TransportError) as e:
        memdir.binary(other)
    assert e.value.code == "binary_version_mismatch"
    for word in (other, "0.0.1", memdir.__version__):
        assert word in e.value.message
    assert e.value.details == {"path": other, "binary_version": "0.0.1", "package_version": memdir.__version__}
    # A client made with it refuses at its first call.
    mem = Memory(root=root, owner=OWNER, binary=other)
    with pytest.raises(memdir.TransportError) as e:
        mem.show()
    assert e.value.code == "binary_version_mismatch" and other in e.value.message


def test_the_hermes_provider_says_why_it_is_unavailable(nowhere: Path, root: Path, monkeypatch: pytest.MonkeyPatch):
    pytest.importorskip("agent.memory_provider", reason="hermes-agent is not installed")
    from memdir.hermes import MemdirMemoryProvider

    p = MemdirMemoryProvider({"root": str(root), "owner": OWNER})
    assert p.is_available() is False
    reason = p.unavailable_reason() or ""
    assert reason.startswith("binary_not_found: no memdir binary found") and str(nowhere / "scripts" / "memdir") in reason
    assert p.status()["unavailable_reason"] == reason
    # Initialized all the same, it is inactive saying the same, not a fallback.
    p.initialize("sess-none", platform="cli", agent_context="primary", hermes_home=str(nowhere / "hermes"))
    status = p.status()
    assert status["active"] is False and "no memdir binary found" in status["inactive_reason"]

    other = fake_binary(nowhere / "old", "0.0.1")
    monkeypatch.setenv("MEMDIR_BIN", other)
    assert p.is_available() is False
    reason = p.unavailable_reason() or ""
    assert reason.startswith("binary_version_mismatch") and other in reason and "0.0.1" in reason
    p.initialize("sess-old", platform="cli", agent_context="primary", hermes_home=str(nowhere / "hermes"))
    assert p.status()["active"] is False and "binary_version_mismatch" in p.status()["inactive_reason"]

    monkeypatch.setenv("MEMDIR_BIN", fake_binary(nowhere / "good", memdir.__version__))
    assert p.is_available() is True and p.unavailable_reason() is None
