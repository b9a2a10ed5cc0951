"""Fixtures: the real memdir binary, a temporary root, and a real ``memdir
serve`` on a loopback port with keys made by ``memdir key create``.

``MEMDIR_BIN`` names the binary (required: the tests are skipped, saying
so, without it). The memory tool's tests need a binary with ``tool
memory``: ``MEMDIR_BIN`` when it has it, else ``MEMDIR_TOOL_BIN``, else the
checkout's ``target/debug/memdir``.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Dict, Iterator, List, Optional

import pytest

from memdir import Memory

REPO = Path(__file__).resolve().parents[2]
OWNER = "agt_test"


def _has_tool(binary: str) -> bool:
    try:
        r = subprocess.run([binary, "tool", "memory", "--help"], capture_output=True, timeout=20)
    except OSError:
        return False
    return r.returncode == 0


@pytest.fixture(scope="session")
def memdir_bin() -> str:
    binary = os.environ.get("MEMDIR_BIN")
    if not binary:
        pytest.skip("MEMDIR_BIN is not set: point it at a memdir binary to run the Python package's tests")
    if not os.access(binary, os.X_OK):
        pytest.skip(f"MEMDIR_BIN={binary} is not an executable file")
    return binary


@pytest.fixture(scope="session")
def person_bin(memdir_bin: str, tmp_path_factory: pytest.TempPathFactory) -> str:
    """``memdir_bin`` at a terminal whose person answers yes: what a
    person's ``Memory(root=…, person=…)`` runs (docs/SECURITY.md, Persons)."""
    from person_tty import wrapper

    return wrapper(memdir_bin, tmp_path_factory.mktemp("person"))


@pytest.fixture(scope="session")
def tool_bin(memdir_bin: str) -> str:
    """A binary that has ``memdir tool memory``."""
    for candidate in (memdir_bin, os.environ.get("MEMDIR_TOOL_BIN"), str(REPO / "target" / "debug" / "memdir")):
        if candidate and os.access(candidate, os.X_OK) and _has_tool(candidate):
            return candidate
    pytest.skip("no memdir binary with `tool memory` (MEMDIR_BIN, MEMDIR_TOOL_BIN or target/debug/memdir)")


@pytest.fixture(autouse=True)
def _isolated_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test its own machine-local configuration and no memdir settings
    inherited from the shell."""
    config = tmp_path / "memdir-config"
    config.mkdir(mode=0o700)
    monkeypatch.setenv("MEMDIR_CONFIG_DIR", str(config))
    for name in ("MEMDIR_ROOT", "MEMDIR_OWNER", "MEMDIR_URL", "MEMDIR_KEY"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def config_dir(tmp_path: Path) -> Path:
    return tmp_path / "memdir-config"


def run_memdir(binary: str, *args: str, stdin: Optional[bytes] = None, check: bool = True) -> Dict:
    """The binary's ``--json`` answer (the floor the package is measured
    against, and the way tests set things up behind the package's back). A
    person's command runs at a terminal whose person answers yes
    (``person_tty``): a person's word is given there (docs/SECURITY.md,
    Persons)."""
    argv = [binary, "--json", *args]
    if "--person" in args:
        argv = [sys.executable, str(Path(__file__).resolve().parent / "person_tty.py"), *argv]
    r = subprocess.run(argv, input=stdin, capture_output=True, timeout=60)
    out = json.loads(r.stdout.decode() or "{}")
    if check and r.returncode != 0:
        raise AssertionError(f"memdir {' '.join(args)} exited {r.returncode}: {r.stdout!r} {r.stderr!r}")
    return out


@pytest.fixture
def root(tmp_path: Path, memdir_bin: str) -> Path:
    r = tmp_path / "memory"
    run_memdir(memdir_bin, "--root", str(r), "init")
    return r


@pytest.fixture
def memory(root: Path, memdir_bin: str) -> Memory:
    return Memory(root=root, owner=OWNER, binary=memdir_bin)


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """A running ``memdir serve`` and the keys made for it."""

    def __init__(self, binary: str, root: Path, keys: Path, proc: subprocess.Popen, url: str) -> None:
        self.binary = binary
        self.root = root
        self.keys = keys
        self.proc = proc
        self.url = url

    def key(self, *identity: str) -> str:
        """A new key for ``--owner AGENT`` or ``--person ID``."""
        a = run_memdir(self.binary, "--root", str(self.root), *identity, "key", "create", "--keys", str(self.keys))
        return a["key"]

    def memory(self, owner: str = OWNER) -> Memory:
        """An agent's Memory over HTTP."""
        return Memory(url=self.url, key=self.key("--owner", owner))

    def person_memory(self, person: str, agent: str) -> Memory:
        return Memory(url=self.url, key=self.key("--person", person), agent=agent)


def start_server(binary: str, root: Path, keys: Path, log: Path) -> Server:
    last = None
    for _ in range(5):
        port = free_port()
        err = open(log, "wb")
        proc = subprocess.Popen(
            [binary, "--root", str(root), "serve", "--listen", f"127.0.0.1:{port}", "--keys", str(keys), "--review-every", "0"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=err,
        )
        err.close()
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                break
            try:
                with urllib.request.urlopen(url + "/healthz", timeout=1) as r:
                    if r.status == 200:
                        return Server(binary, root, keys, proc, url)
            except OSError:
                time.sleep(0.05)
        last = log.read_text(errors="replace")
        stop(proc)
    raise AssertionError(f"memdir serve did not start: {last}")


def stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)


@pytest.fixture
def server_factory(tmp_path: Path) -> Iterator:
    started: List[Server] = []

    def make(binary: str, root: Path) -> Server:
        keys_dir = tmp_path / f"keys-{len(started)}"
        keys_dir.mkdir(mode=0o700)
        s = start_server(binary, root, keys_dir / "keys.yaml", tmp_path / f"serve-{len(started)}.log")
        started.append(s)
        return s

    yield make
    for s in started:
        stop(s.proc)
        assert s.proc.poll() is not None


@pytest.fixture
def server(server_factory, memdir_bin: str, root: Path) -> Server:
    return server_factory(memdir_bin, root)


@pytest.fixture
def tool_server(server_factory, tool_bin: str, root: Path) -> Server:
    return server_factory(tool_bin, root)
