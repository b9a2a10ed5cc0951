"""The two ways to reach memdir: its binary (one process per call, JSON on
standard output) and its HTTP server. Both bound what they read and how long
they wait, and both turn memdir's error object into its exception."""

from __future__ import annotations

import ipaddress
import json
import os
import selectors
import shutil
import subprocess
import sys
import sysconfig
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

from .errors import MemdirError, TransportError, error_from

#: What one call may print, by default: a 64 MiB result (memdir's ceiling)
#: as base64 inside JSON, with room to spare.
DEFAULT_MAX_OUTPUT = 192 * 1024 * 1024
#: What one call may write to standard error before the rest is dropped.
MAX_STDERR = 64 * 1024
#: Seconds one call may take, by default.
DEFAULT_TIMEOUT = 60.0


def _read_bounded(stream, limit: int, out: List[bytes], over: Optional[threading.Event] = None, proc=None) -> None:
    """Reads ``stream`` to its end into ``out``, keeping at most ``limit``
    bytes. With ``over`` (and ``proc``), going past ``limit`` sets ``over``
    and kills ``proc`` instead (a runaway answer is never held whole); without
    it, the rest is read and dropped (standard error's excess)."""
    kept = 0
    try:
        while True:
            chunk = stream.read(65536)
            if not chunk:
                break
            if kept + len(chunk) > limit and over is not None:
                over.set()
                try:
                    proc.kill()
                except OSError:
                    pass
                break
            piece = chunk[: max(limit - kept, 0)]
            if piece:
                out.append(piece)
                kept += len(piece)
    except (OSError, ValueError):
        pass
    finally:
        try:
            stream.close()
        except OSError:
            pass


def _write_all(stream, data: bytes) -> None:
    try:
        stream.write(data)
    except (BrokenPipeError, OSError, ValueError):
        pass
    finally:
        try:
            stream.close()
        except (BrokenPipeError, OSError, ValueError):
            pass


#: The binary's file name in a scripts folder.
BINARY_NAME = "memdir"


def _scripts_folders() -> List[str]:
    """The scripts folders of the running interpreter's environment, where a
    wheel's ``memdir`` lands: the file the installed distribution's RECORD
    names first, then ``sysconfig``'s scripts folder (of the default scheme
    and of the user scheme, ``pip install --user``), then the folder of
    ``sys.executable`` (a venv's ``bin/``)."""
    folders: List[str] = []

    def add(folder: Optional[str]) -> None:
        if folder and folder not in folders:
            folders.append(folder)

    try:
        from importlib.metadata import PackageNotFoundError, distribution

        try:
            dist = distribution("memdir")
            for f in dist.files or []:
                if f.name == BINARY_NAME and f.parent.name in ("bin", "scripts", "Scripts"):
                    add(os.path.dirname(os.path.normpath(str(dist.locate_file(f)))))
        except PackageNotFoundError:
            pass
    except ImportError:  # pragma: no cover - Python 3.8+ has it
        pass
    add(sysconfig.get_path("scripts"))
    try:
        add(sysconfig.get_path("scripts", f"{os.name}_user"))
    except KeyError:  # pragma: no cover - a platform without a user scheme
        pass
    if sys.executable:
        add(os.path.dirname(sys.executable))
    return folders


def _executable(path: str) -> bool:
    return os.path.isfile(path) and os.access(path, os.X_OK)


def find_binary(binary: Optional[str] = None) -> str:
    """The memdir binary, first found of:

    1. ``binary`` (``Memory(binary=…)``): a path, or a name looked up on
       ``PATH``; an explicit choice always wins;
    2. ``$MEMDIR_BIN``, likewise;
    3. the binary installed with this package (the wheel's ``memdir`` in its
       environment's scripts folder, see :func:`_scripts_folders`);
    4. ``memdir`` on ``PATH`` (a binary the user brought, with
       ``pip install ./python``).

    Raises ``binary_not_found`` naming every place searched."""
    searched: List[str] = []
    for given, what in ((binary, "binary="), (os.environ.get("MEMDIR_BIN") or None, "$MEMDIR_BIN")):
        if not given:
            searched.append(f"{what} (not given)")
            continue
        if os.sep in given or (os.altsep and os.altsep in given):
            # A path is taken as given: a missing one fails at the call,
            # saying so.
            return given
        found = shutil.which(given)
        if not found:
            raise TransportError(
                "binary_not_found",
                f"the memdir binary {given!r} ({what}) is not on PATH; install memdir, or set "
                "MEMDIR_BIN or Memory(binary=...) to its path",
                details={"searched": [f"{what} {given!r} on PATH"]},
            )
        return found
    for folder in _scripts_folders():
        candidate = os.path.join(folder, BINARY_NAME)
        searched.append(candidate)
        if _executable(candidate):
            return candidate
    found = shutil.which(BINARY_NAME)
    searched.append(f"PATH ({os.environ.get('PATH', '')})")
    if found:
        return found
    raise TransportError(
        "binary_not_found",
        "no memdir binary found; searched: " + "; ".join(searched) + ". Install the memdir wheel "
        "(pip install memdir-*.whl), or put memdir on PATH, or set MEMDIR_BIN or Memory(binary=...) to its path",
        details={"searched": searched},
    )


def binary(binary: Optional[str] = None) -> str:
    """The path of the memdir binary this package runs (``binary``, else
    ``$MEMDIR_BIN``, else the one installed with the package, else ``memdir``
    on ``PATH``: :func:`find_binary`), checked to be this package's version.
    Raises ``binary_not_found`` (with the places searched) or
    ``binary_version_mismatch``."""
    path = find_binary(binary)
    check_version(path)
    return path


#: Versions already read, by (path, modification time, size).
_VERSIONS: Dict[Tuple[str, int, int], str] = {}
_VERSIONS_LOCK = threading.Lock()


def binary_version(path: str) -> str:
    """What ``path --version`` says (``memdir X.Y.Z``), as ``X.Y.Z``; read
    once per file."""
    try:
        st = os.stat(path)
    except OSError as e:
        raise TransportError("binary_not_found", f"cannot run the memdir binary {path!r}: {e.strerror}") from None
    key = (os.path.realpath(path), st.st_mtime_ns, st.st_size)
    with _VERSIONS_LOCK:
        if key in _VERSIONS:
            return _VERSIONS[key]
    try:
        r = subprocess.run([path, "--version"], capture_output=True, timeout=30, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise TransportError("binary_not_found", f"cannot run the memdir binary {path!r}: {e}") from None
    words = r.stdout.decode("utf-8", errors="replace").split()
    if r.returncode != 0 or len(words) != 2 or words[0] != "memdir":
        raise TransportError(
            "bad_answer",
            f"{path} --version exited {r.returncode} without 'memdir VERSION': {r.stdout[:200]!r}",
            details={"path": path},
        )
    with _VERSIONS_LOCK:
        _VERSIONS[key] = words[1]
    return words[1]


def check_version(path: str) -> None:
    """Refuses a binary of another version than this package's
    (``binary_version_mismatch``, naming both and the path): the package's
    arguments and answers are the ones of its own version. A package run
    from a source tree that is not installed (version ``0+unknown``) checks
    nothing."""
    from . import __version__

    if __version__ == "0+unknown":
        return
    found = binary_version(path)
    if found != __version__:
        raise TransportError(
            "binary_version_mismatch",
            f"the memdir binary {path} is version {found}, but this memdir Python package is version "
            f"{__version__}; install the matching wheel, or point MEMDIR_BIN or Memory(binary=...) at a "
            f"memdir {__version__}",
            details={"path": path, "binary_version": found, "package_version": __version__},
        )


class CliTransport:
    """Runs ``memdir --json [global options] COMMAND…`` once per call."""

    name = "the command line"

    def __init__(
        self,
        *,
        binary: Optional[str] = None,
        root: Optional[str] = None,
        owner: Optional[str] = None,
        person: Optional[str] = None,
        agent: Optional[str] = None,
        key_file: Optional[str] = None,
        config_dir: Optional[str] = None,
        lock_timeout_ms: Optional[int] = None,
        timeout: float = DEFAULT_TIMEOUT,
        max_output: int = DEFAULT_MAX_OUTPUT,
        env: Optional[Mapping[str, str]] = None,
    ) -> None:
        self.binary = find_binary(binary)
        self._version_checked = False
        self.key_file = key_file
        self.root = root
        self.owner = owner
        self.person = person
        self.agent = agent
        self.config_dir = config_dir
        self.lock_timeout_ms = lock_timeout_ms
        self.timeout = float(timeout)
        self.max_output = int(max_output)
        self.env = dict(env) if env is not None else None

    def global_args(self) -> List[str]:
        """The global options of every call (values as given, never
        interpreted by a shell)."""
        args = ["--json"]
        if self.root is not None:
            args += ["--root", os.fspath(self.root)]
        if self.person is not None:
            args += ["--person", self.person]
            if self.agent is not None:
                args += ["--agent", self.agent]
        elif self.owner is not None:
            args += ["--owner", self.owner]
        if self.key_file is not None:
            # A person's word without a terminal (docs/SECURITY.md, Persons).
            args += ["--key-file", os.fspath(self.key_file)]
        if self.config_dir is not None:
            args += ["--config-dir", os.fspath(self.config_dir)]
        if self.lock_timeout_ms is not None:
            args += ["--lock-timeout-ms", str(int(self.lock_timeout_ms))]
        return args

    def run(
        self,
        command: Sequence[str],
        *,
        stdin: Optional[bytes] = None,
        timeout: Optional[float] = None,
    ) -> Tuple[int, bytes, bytes]:
        """Runs one command; returns its exit status, standard output and
        (the first 64 KiB of) standard error."""
        if not self._version_checked and _executable(self.binary):
            check_version(self.binary)
            self._version_checked = True
        argv = [self.binary] + self.global_args() + list(command)
        limit = timeout if timeout is not None else self.timeout
        try:
            proc = subprocess.Popen(
                argv,
                stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env=self.env,
                close_fds=True,
            )
        except FileNotFoundError as e:
            raise TransportError(
                "binary_not_found",
                f"cannot run the memdir binary {self.binary!r}: {e.strerror}; set MEMDIR_BIN "
                "or Memory(binary=...) to its path",
            ) from None
        except OSError as e:
            raise TransportError("binary_not_found", f"cannot run {self.binary!r}: {e}") from None
        if os.name == "posix":
            rc, out, err, over = self._collect_posix(proc, stdin, limit, command)
        else:  # pragma: no cover - no selectable pipes
            rc, out, err, over = self._collect_threads(proc, stdin, limit, command)
        if over:
            raise TransportError(
                "answer_too_large",
                f"memdir {' '.join(command[:2])} printed more than {self.max_output} bytes; "
                "the answer was dropped",
                details={"limit": self.max_output},
            )
        return rc, out, err

    def _timed_out(self, proc: subprocess.Popen, command: Sequence[str], limit: float) -> TransportError:
        proc.kill()
        proc.wait()
        return TransportError(
            "timeout",
            f"memdir {' '.join(command[:2])} took longer than {limit:g} s and was stopped",
            details={"timeout_secs": limit},
        )

    def _collect_posix(self, proc: subprocess.Popen, stdin: Optional[bytes], limit: float, command: Sequence[str]):
        """Feeds standard input and reads both outputs in this thread (no
        thread per call), bounded in size and time."""
        deadline = time.monotonic() + limit
        out: List[bytes] = []
        err: List[bytes] = []
        got = kept_err = 0
        over = False
        sel = selectors.DefaultSelector()
        assert proc.stdout is not None and proc.stderr is not None
        sel.register(proc.stdout, selectors.EVENT_READ)
        sel.register(proc.stderr, selectors.EVENT_READ)
        view = memoryview(stdin) if stdin is not None else None
        sent = 0
        if proc.stdin is not None:
            if view is not None and len(view):
                os.set_blocking(proc.stdin.fileno(), False)
                sel.register(proc.stdin, selectors.EVENT_WRITE)
            else:
                proc.stdin.close()
        try:
            while sel.get_map():
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise self._timed_out(proc, command, limit)
                for key, _ in sel.select(remaining):
                    f = key.fileobj
                    if f is proc.stdin:
                        assert view is not None
                        try:
                            sent += os.write(proc.stdin.fileno(), view[sent : sent + 65536])
                        except BlockingIOError:
                            continue
                        except (BrokenPipeError, OSError):
                            sent = len(view)
                        if sent >= len(view):
                            sel.unregister(f)
                            try:
                                proc.stdin.close()
                            except OSError:
                                pass
                        continue
                    chunk = os.read(f.fileno(), 65536)  # type: ignore[union-attr]
                    if not chunk:
                        sel.unregister(f)
                        f.close()  # type: ignore[union-attr]
                        continue
                    if f is proc.stdout:
                        got += len(chunk)
                        if got > self.max_output:
                            over = True
                            proc.kill()
                            sel.unregister(f)
                            f.close()  # type: ignore[union-attr]
                            continue
                        out.append(chunk)
                    elif kept_err < MAX_STDERR:
                        err.append(chunk[: MAX_STDERR - kept_err])
                        kept_err += len(err[-1])
            remaining = max(0.0, deadline - time.monotonic())
            try:
                rc = proc.wait(timeout=remaining if not over else 10)
            except subprocess.TimeoutExpired:
                raise self._timed_out(proc, command, limit) from None
        finally:
            sel.close()
            for f in (proc.stdin, proc.stdout, proc.stderr):
                if f is not None:
                    try:
                        f.close()
                    except OSError:
                        pass
        return rc, b"".join(out), b"".join(err), over

    def _collect_threads(self, proc: subprocess.Popen, stdin: Optional[bytes], limit: float, command: Sequence[str]):
        out: List[bytes] = []
        err: List[bytes] = []
        over = threading.Event()
        threads = [
            threading.Thread(target=_read_bounded, args=(proc.stdout, self.max_output, out, over, proc), daemon=True),
            threading.Thread(target=_read_bounded, args=(proc.stderr, MAX_STDERR, err), daemon=True),
        ]
        if proc.stdin is not None:
            threads.append(threading.Thread(target=_write_all, args=(proc.stdin, stdin or b""), daemon=True))
        for t in threads:
            t.start()
        try:
            rc = proc.wait(timeout=limit)
        except subprocess.TimeoutExpired:
            for t in threads:
                t.join(1.0)
            raise self._timed_out(proc, command, limit) from None
        for t in threads:
            t.join()
        return rc, b"".join(out), b"".join(err), over.is_set()

    def call(
        self,
        command: Sequence[str],
        *,
        stdin: Optional[bytes] = None,
        timeout: Optional[float] = None,
    ) -> Dict[str, Any]:
        """Runs one command and returns its JSON answer, or raises the error
        it answered with."""
        rc, out, err = self.run(command, stdin=stdin, timeout=timeout)
        text = out.decode("utf-8", errors="replace").strip()
        answer: Any = None
        if text:
            try:
                answer = json.loads(text)
            except ValueError:
                answer = None
        if isinstance(answer, dict) and isinstance(answer.get("error"), dict) and rc != 0:
            raise error_from(answer)
        if rc != 0 or not isinstance(answer, dict):
            tail = err.decode("utf-8", errors="replace").strip()[-500:]
            raise TransportError(
                "bad_answer",
                f"memdir {' '.join(command[:2])} exited {rc} without a JSON answer"
                + (f": {tail}" if tail else ""),
                details={"exit_status": rc},
            )
        return answer


_LOOPBACK_NAMES = {"localhost", "localhost.localdomain", "ip6-localhost"}


def _is_loopback(host: str) -> bool:
    if host.lower() in _LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """Refuses redirects: a key is never sent on to another address."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):  # noqa: D401
        return None


class HttpTransport:
    """Calls ``memdir serve``'s routes with ``Authorization: Bearer KEY``."""

    name = "HTTP"

    def __init__(
        self,
        url: str,
        key: Optional[str],
        *,
        agent: Optional[str] = None,
        timeout: float = DEFAULT_TIMEOUT,
        max_output: int = DEFAULT_MAX_OUTPUT,
    ) -> None:
        parsed = urllib.parse.urlsplit(url)
        if parsed.scheme not in ("http", "https") or not parsed.hostname:
            raise ValueError(f"a memdir server URL is http:// or https:// and a host, not {url!r}")
        if parsed.query or parsed.fragment:
            raise ValueError(f"a memdir server URL has no query or fragment: {url!r}")
        self.url = url.rstrip("/")
        self.key = key
        self.agent = agent
        self.timeout = float(timeout)
        self.max_output = int(max_output)
        handlers: List[Any] = [_NoRedirect()]
        if _is_loopback(parsed.hostname):
            handlers.append(urllib.request.ProxyHandler({}))
        self._opener = urllib.request.build_opener(*handlers)

    def request(
        self,
        method: str,
        path: str,
        *,
        query: Optional[Mapping[str, Any]] = None,
        body: Optional[Mapping[str, Any]] = None,
        data: Optional[bytes] = None,
        content_type: Optional[str] = None,
        timeout: Optional[float] = None,
        with_agent: bool = True,
    ) -> Tuple[int, Dict[str, Any]]:
        """Sends one request; returns its status and JSON answer, or raises
        the error it answered with. ``path`` is built by the caller from
        quoted parts only."""
        q: Dict[str, str] = {}
        for k, v in (query or {}).items():
            if v is None:
                continue
            q[k] = ("true" if v else "false") if isinstance(v, bool) else str(v)
        payload: Optional[bytes] = data
        headers = {"Accept": "application/json"}
        if body is not None:
            obj = dict(body)
            if with_agent and self.agent is not None and "agentId" not in obj:
                obj["agentId"] = self.agent
            payload = json.dumps(obj).encode("utf-8")
            headers["Content-Type"] = "application/json"
        elif with_agent and self.agent is not None and "agentId" not in q:
            q["agentId"] = self.agent
        if data is not None:
            headers["Content-Type"] = content_type or "application/octet-stream"
        if self.key:
            headers["Authorization"] = f"Bearer {self.key}"
        url = self.url + path
        if q:
            url += "?" + urllib.parse.urlencode(q)
        req = urllib.request.Request(url, data=payload, method=method, headers=headers)
        limit = timeout if timeout is not None else self.timeout
        try:
            resp = self._opener.open(req, timeout=limit)
            status = resp.status
        except urllib.error.HTTPError as e:
            resp = e
            status = e.code
        except (urllib.error.URLError, OSError) as e:
            reason = getattr(e, "reason", e)
            if isinstance(reason, TimeoutError) or "timed out" in str(reason):
                raise TransportError(
                    "timeout", f"{method} {path} took longer than {limit:g} s", {"timeout_secs": limit}
                ) from None
            raise TransportError(
                "connection_failed", f"cannot reach the memdir server at {self.url}: {reason}"
            ) from None
        try:
            raw = resp.read(self.max_output + 1)
        except (OSError, ValueError) as e:
            raise TransportError("connection_failed", f"{method} {path}: reading the answer failed: {e}") from None
        finally:
            try:
                resp.close()
            except OSError:
                pass
        if len(raw) > self.max_output:
            raise TransportError(
                "answer_too_large",
                f"{method} {path} answered more than {self.max_output} bytes; the answer was dropped",
                {"limit": self.max_output},
            )
        try:
            answer = json.loads(raw.decode("utf-8")) if raw else {}
        except ValueError:
            answer = None
        if status >= 400:
            if isinstance(answer, dict) and isinstance(answer.get("error"), dict):
                raise error_from(answer, status=status)
            raise TransportError(
                "bad_answer", f"{method} {path} answered {status} without memdir's error JSON", {"status": status}
            )
        if not isinstance(answer, dict):
            raise TransportError("bad_answer", f"{method} {path} answered {status} without a JSON object")
        return status, answer


def quote(part: Union[str, int]) -> str:
    """One path segment, percent-encoded (``/`` too, and the dots of a
    ``.`` or ``..`` segment, which a client or proxy could resolve)."""
    text = str(part)
    if text and set(text) == {"."}:
        return "%2E" * len(text)
    return urllib.parse.quote(text, safe="")


__all__ = ["CliTransport", "HttpTransport", "MemdirError", "binary", "binary_version", "check_version", "find_binary", "quote"]
