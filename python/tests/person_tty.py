"""A person at a terminal, for the tests: a person's command (``--person``)
is confirmed on the controlling terminal (docs/SECURITY.md, Persons), so
the tests run it with a pseudo-terminal whose person answers. The command
runs in a new session whose controlling terminal is a pseudo-terminal
this process holds, its standard streams left as they are (the caller's
pipes); every ``[y/N]`` question the terminal shows is answered; killed,
this process closes the terminal, which hangs the command up.

As a program (the Rust tests, the benches and the dashboard's
screenshots run it too)::

    python3 person_tty.py [--answer y] [--transcript FILE] COMMAND [ARG…]

exits with the command's status (128 + N for a signal) after writing what
the terminal showed to ``FILE``.
"""

from __future__ import annotations

import os
import pty
import select
import sys
import time
from pathlib import Path
from typing import List, Optional


def run(argv: List[str], answer: bytes = b"y", transcript: Optional[str] = None) -> int:
    """Runs ``argv`` at a terminal that answers ``answer`` to every
    ``[y/N]`` question; its exit status (128 + N for a signal). What the
    terminal showed is written to ``transcript`` when one is named."""
    master, slave = pty.openpty()
    name = os.ttyname(slave)
    pid = os.fork()
    if pid == 0:
        try:
            os.close(master)
            os.setsid()
            os.close(os.open(name, os.O_RDWR))
            os.close(slave)
            os.execvp(argv[0], argv)
        finally:
            os._exit(127)
    os.close(slave)
    out, asked, status = b"", 0, None
    while True:
        ready = select.select([master], [], [], 0.02)[0]
        data = b""
        if ready:
            try:
                data = os.read(master, 4096)
            except OSError:
                pass
            out += data
        while out.count(b"[y/N]") > asked:
            asked += 1
            try:
                os.write(master, answer + b"\n")
            except OSError:
                pass
        if status is not None and not data:
            break
        if status is None:
            done, st = os.waitpid(pid, os.WNOHANG)
            if done:
                status = st
        if ready and not data:
            time.sleep(0.01)
    os.close(master)
    if transcript is not None:
        with open(transcript, "wb") as f:
            f.write(out)
    code = os.waitstatus_to_exitcode(status)
    return code if code >= 0 else 128 - code


def wrapper(binary: str, folder: Path) -> str:
    """An executable that runs ``binary`` with its words at a terminal
    whose person answers yes: what ``Memory(binary=…)`` and the tests' own
    calls run a person's command with."""
    script = folder / "memdir-at-a-terminal"
    here = str(Path(__file__).resolve().parent)
    script.write_text(
        f"#!{sys.executable}\n"
        "import sys\n"
        f"sys.path.insert(0, {here!r})\n"
        "from person_tty import run\n"
        f"sys.exit(run([{binary!r}] + sys.argv[1:]))\n"
    )
    script.chmod(0o755)
    return str(script)


def main(args: List[str]) -> int:
    answer, transcript = b"y", None
    while len(args) >= 2 and args[0] in ("--answer", "--transcript"):
        if args[0] == "--answer":
            answer = args[1].encode()
        else:
            transcript = args[1]
        args = args[2:]
    return run(args, answer, transcript)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
