"""One ``memdir mcp`` process for a Hermes session: the provider's tools are
the MCP server's tools, so their arguments, answers and error sentences are
the server's own, not a copy of them. Started at the first tool call, ended
by :meth:`McpChild.close` (the provider's ``shutdown``), and killed if the
object is dropped or the interpreter exits; every read is bounded in size
and time."""

from __future__ import annotations

import json
import queue
import subprocess
import threading
import weakref
from typing import Any, Dict, List, Optional, Tuple

#: The longest line read from the server (a 64 MiB result escaped in JSON
#: fits).
MAX_LINE = 192 * 1024 * 1024
#: Seconds the server may take to start and answer ``initialize``.
START_TIMEOUT = 20.0
PROTOCOL = "2025-03-26"


class McpError(Exception):
    """The server could not be started, stopped answering, or answered
    something that is not JSON-RPC."""


def _kill(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        try:
            proc.kill()
        except OSError:
            pass
    try:
        proc.wait(5)
    except (subprocess.TimeoutExpired, OSError):
        pass


class McpChild:
    """A running ``memdir [global options] mcp``."""

    def __init__(self, argv: List[str], *, timeout: float = 20.0) -> None:
        self.argv = list(argv)
        self.timeout = float(timeout)
        self._lock = threading.Lock()
        self._proc: Optional[subprocess.Popen] = None
        self._lines: "queue.Queue[Optional[bytes]]" = queue.Queue()
        self._err: List[bytes] = []
        self._next_id = 0
        self._finalizer: Optional[weakref.finalize] = None

    @property
    def pid(self) -> Optional[int]:
        return None if self._proc is None else self._proc.pid

    def _start(self) -> None:
        try:
            proc = subprocess.Popen(
                self.argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                close_fds=True,
            )
        except OSError as e:
            raise McpError(f"cannot start memdir mcp: {e}") from None
        self._proc = proc
        self._lines = queue.Queue()
        self._err = []
        self._finalizer = weakref.finalize(self, _kill, proc)
        threading.Thread(target=self._read_out, args=(proc, self._lines), daemon=True).start()
        threading.Thread(target=self._read_err, args=(proc, self._err), daemon=True).start()
        try:
            answer = self._request(
                "initialize",
                {"protocolVersion": PROTOCOL, "capabilities": {}, "clientInfo": {"name": "memdir-hermes", "version": "1"}},
                timeout=START_TIMEOUT,
            )
            if "result" not in answer:
                raise McpError(f"memdir mcp refused initialize: {str(answer)[:300]}")
            self._send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        except McpError:
            self._stop()
            raise

    @staticmethod
    def _read_out(proc: subprocess.Popen, lines: "queue.Queue[Optional[bytes]]") -> None:
        out = proc.stdout
        assert out is not None
        try:
            while True:
                line = out.readline(MAX_LINE)
                if not line:
                    break
                if not line.endswith(b"\n"):
                    # Past the bound: drop the rest of the line.
                    while True:
                        more = out.readline(1024 * 1024)
                        if not more or more.endswith(b"\n"):
                            break
                    lines.put(b'{"jsonrpc":"2.0","id":null,"error":{"code":-1,"message":"answer too large"}}')
                    continue
                lines.put(line)
        except (OSError, ValueError):
            pass
        finally:
            lines.put(None)

    @staticmethod
    def _read_err(proc: subprocess.Popen, err: List[bytes]) -> None:
        kept = 0
        stream = proc.stderr
        assert stream is not None
        try:
            while True:
                chunk = stream.read(4096)
                if not chunk:
                    break
                if kept < 16384:
                    err.append(chunk[: 16384 - kept])
                    kept += len(err[-1])
        except (OSError, ValueError):
            pass

    def _send(self, obj: Dict[str, Any]) -> None:
        assert self._proc is not None and self._proc.stdin is not None
        try:
            self._proc.stdin.write((json.dumps(obj, ensure_ascii=False) + "\n").encode("utf-8"))
            self._proc.stdin.flush()
        except (OSError, ValueError) as e:
            raise McpError(f"memdir mcp is gone: {e}; {self._stderr()}") from None

    def _stderr(self) -> str:
        return b"".join(self._err).decode("utf-8", errors="replace").strip()[-400:]

    def _request(self, method: str, params: Dict[str, Any], *, timeout: float) -> Dict[str, Any]:
        self._next_id += 1
        rid = self._next_id
        self._send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        while True:
            try:
                line = self._lines.get(timeout=timeout)
            except queue.Empty:
                self._stop()
                raise McpError(f"memdir mcp did not answer {method} within {timeout:g} s") from None
            if line is None:
                self._stop()
                raise McpError(f"memdir mcp exited: {self._stderr()}")
            try:
                obj = json.loads(line)
            except ValueError:
                continue
            if isinstance(obj, dict) and obj.get("id") in (rid, None) and ("result" in obj or "error" in obj):
                return obj

    def call_tool(self, name: str, arguments: Dict[str, Any]) -> Tuple[str, bool]:
        """Calls one tool; returns its text and whether it is a tool error.
        Starts the server at the first call (and again if it died)."""
        with self._lock:
            if self._proc is None or self._proc.poll() is not None:
                self._start()
            answer = self._request("tools/call", {"name": name, "arguments": arguments}, timeout=self.timeout)
        if "error" in answer:
            err = answer["error"] if isinstance(answer["error"], dict) else {}
            return str(err.get("message", "the MCP call failed")), True
        result = answer.get("result") or {}
        texts = [c.get("text", "") for c in result.get("content", []) if isinstance(c, dict) and c.get("type") == "text"]
        return "\n".join(texts), bool(result.get("isError"))

    def _stop(self) -> None:
        proc, self._proc = self._proc, None
        if proc is None:
            return
        try:
            if proc.stdin is not None:
                proc.stdin.close()
        except OSError:
            pass
        try:
            proc.wait(3)
        except subprocess.TimeoutExpired:
            pass
        _kill(proc)
        if self._finalizer is not None:
            self._finalizer.detach()
            self._finalizer = None

    def close(self) -> None:
        """Ends the server (its standard input closed, then killed if it has
        not exited within 3 s)."""
        with self._lock:
            self._stop()
