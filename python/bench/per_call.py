"""The per-call cost of the Python package against the bare command line.

    MEMDIR_BIN=target/release/memdir python python/bench/per_call.py [--rounds 7] [--calls 30]

For each operation (``show``, ``snapshot``, ``add``) it times, in
interleaved rounds so that a machine's drift touches every way alike:

* the floor: ``subprocess.run([memdir, --json, …])`` and ``json.loads``
  from Python, the least a Python program pays to ask the binary;
* ``Memory(root=…, owner=…)``: the package over the command line;
* ``Memory(url=…, key=…)``: the package over HTTP, to a ``memdir serve``
  started here on a loopback port (kept warm across the calls).

It prints each way's median per call and its ratio to the floor measured in
the same run. An ``add`` is undone after each timed call (untimed), so every
round adds to the same store.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from memdir import Memory  # noqa: E402

OWNER = "agt_bench"


def bare(binary: str, root: str, *args: str) -> dict:
    r = subprocess.run([binary, "--json", "--root", root, "--owner", OWNER, *args], capture_output=True)
    return json.loads(r.stdout)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(binary: str, root: str, keys: str) -> tuple:
    port = free_port()
    proc = subprocess.Popen(
        [binary, "--root", root, "serve", "--listen", f"127.0.0.1:{port}", "--keys", keys, "--review-every", "0"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        stdin=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    for _ in range(400):
        try:
            urllib.request.urlopen(url + "/healthz", timeout=1).close()
            return proc, url
        except OSError:
            time.sleep(0.05)
    proc.kill()
    raise SystemExit("memdir serve did not start")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--calls", type=int, default=30, help="calls per way and operation in each round")
    a = ap.parse_args()
    binary = os.environ.get("MEMDIR_BIN")
    if not binary:
        raise SystemExit("set MEMDIR_BIN to the memdir binary")
    with tempfile.TemporaryDirectory() as tmp:
        root = os.path.join(tmp, "memory")
        conf = os.path.join(tmp, "config")
        os.mkdir(conf, 0o700)
        os.environ["MEMDIR_CONFIG_DIR"] = conf
        subprocess.run([binary, "--root", root, "init"], check=True, capture_output=True)
        for i in range(20):
            bare(binary, root, "add", "--", f"A standing fact of the bench, number {i}")
        keys = os.path.join(conf, "keys.yaml")
        key = bare(binary, root, "key", "create", "--keys", keys)["key"]
        proc, url = start_server(binary, root, keys)
        try:
            cli = Memory(root=root, owner=OWNER, binary=binary)
            http = Memory(url=url, key=key)
            n = [0]

            def text() -> str:
                n[0] += 1
                return f"Bench fact {n[0]}"

            def undo(answer: dict) -> None:
                bare(binary, root, "remove", "--", answer["id"])

            ops = {
                "show": {
                    "floor": lambda: bare(binary, root, "show"),
                    "package, command line": lambda: cli.show(),
                    "package, HTTP": lambda: http.show(),
                },
                "snapshot": {
                    "floor": lambda: bare(binary, root, "snapshot"),
                    "package, command line": lambda: cli.snapshot(),
                    "package, HTTP": lambda: http.snapshot(),
                },
                "add": {
                    "floor": lambda: bare(binary, root, "add", "--to", "memory", "--", text()),
                    "package, command line": lambda: cli.add(text()),
                    "package, HTTP": lambda: http.add(text()),
                },
            }
            times = {op: {way: [] for way in ways} for op, ways in ops.items()}
            for _ in range(a.rounds):
                for op, ways in ops.items():
                    for way, fn in ways.items():
                        fn()  # warm
                        spent = 0.0
                        for _ in range(a.calls):
                            t0 = time.perf_counter()
                            answer = fn()
                            spent += time.perf_counter() - t0
                            if op == "add":
                                undo(answer)
                        times[op][way].append(spent / a.calls)
        finally:
            proc.terminate()
            proc.wait(10)
    print(f"per call, median of {a.rounds} interleaved rounds of {a.calls} calls (ratio to the floor of the same run)")
    print(f"{'operation':<10} {'way':<24} {'ms/call':>9} {'ratio':>7}")
    for op, ways in times.items():
        floor = statistics.median(ways["floor"])
        for way, ts in ways.items():
            m = statistics.median(ts)
            print(f"{op:<10} {way:<24} {m * 1000:>9.2f} {m / floor:>7.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
