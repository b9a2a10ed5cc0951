"""memdir as a Hermes memory provider (hermes-agent's ``MemoryProvider``).

Turn it on with ``memory.provider: memdir`` in Hermes's ``config.yaml``
after ``python -m memdir.hermes install`` (the plugin folder under
``$HERMES_HOME/plugins/memdir``). What each hook does is in
docs/INTEGRATIONS.md; in short:

* ``initialize``: the owner is named by the configured mapping (the Hermes
  ``user_id`` or agent identity → a memdir owner, else the default owner);
  the run begins (``run begin``, declaring the owner's learned skills within
  a budget) and its frozen snapshot is kept for the whole session.
  ``agent_context="subagent"`` is a read-only delegate: every write is
  refused without calling memdir.
* ``system_prompt_block``: the run's frozen snapshot without the entries
  Hermes's own MEMORY/USER block already shows (each fact once in the
  prompt); the same bytes all session.
* ``prefetch``: the recall block for the turn; nothing when the recall
  matched nothing.
* ``on_memory_write``: Hermes's built-in memory writes mirrored through
  memdir's write path, recording the session's run; a refusal is logged and
  kept for the status (its text only as a SHA-256), never raised.
* tools ``search_runs``, ``get_run``, ``get_result``, ``put_result``,
  ``learn``, ``propose`` with the MCP server's argument names.
* ``on_session_end``: ``run finish`` with a one-line summary (the text Hermes
  passes, else ``session ended``; never a message of the conversation).
* ``on_delegation``: the child's result stored as a result of the run.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import threading
import time
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Tuple

from .. import Memory
from .._transport import CliTransport, binary, check_version, find_binary
from ..errors import MemdirError
from ._config import CONFIG_FILE, MAX_HERMES_FILE, _hermes_home, _parse_owners, load_config, save_config
from ._mcp import McpChild, McpError
from ._snapshot import filter_snapshot
from ._tools import TOOL_SCHEMAS, _mcp_arguments, _str_arg, _ToolArgError

try:  # inside Hermes
    from agent.memory_provider import MemoryProvider as _Base
except Exception:  # pragma: no cover - imported outside Hermes (the installer)
    _Base = object  # type: ignore[misc,assignment]

logger = logging.getLogger("memdir.hermes")

__all__ = ["MemdirMemoryProvider", "load_config", "save_config", "CONFIG_FILE", "PROVIDER_NAME"]

#: The provider's name (``memory.provider: memdir``).
PROVIDER_NAME = "memdir"
#: Where divergences and refusals are kept, in ``$HERMES_HOME``.
STATE_DIR = "memdir"
DIVERGENCES_FILE = "divergences.jsonl"
MAX_DIVERGENCE_BYTES = 256 * 1024
#: A day line's most characters (memdir's ``memory_day_line_too_long``).
MAX_SUMMARY_CHARS = 300
#: The codes of a day line refused for its text (the run then finishes with
#: the neutral line).
_REFUSED_LINE = ("memory_threat_blocked", "secret_in_memory", "memory_text_invalid", "memory_day_line_too_long")
#: The day line of a session Hermes passes no summary for: neutral, never a
#: message of the conversation (episodes.md is committed to git).
NEUTRAL_SUMMARY = "session ended"
#: Day lines that say only that a session or a run ended (memdir's own
#: default is ``finished``): left out of the turn's recall block.
_NEUTRAL_DAY_LINES = (NEUTRAL_SUMMARY, "finished")
#: The recall block's day-log heading (memdir's).
DAY_HEADING = "Day log (today and yesterday, newest first):"
#: The learned skills a session's run declares (their text in its frozen
#: block): at most this many, their bodies at most this many characters in
#: all; the others are named in the block.
MAX_DECLARED_SKILLS = 12
SKILLS_BUDGET_CHARS = 24_000
#: The most skills named (not declared) in the block.
MAX_NAMED_SKILLS = 50
#: A recall query's most characters (memdir's ``memory_query_too_long``).
MAX_QUERY_CHARS = 4000
#: Seconds one memdir call may take inside the agent loop.
CALL_TIMEOUT = 20.0
ENTRY_DELIMITER = "\n§\n"

_ID_CHARS = re.compile(r"[^A-Za-z0-9._-]+")
#: A quoted string in an error's message (memdir quotes the text it was
#: given, and entries' previews, as Rust debug strings: "…").
_QUOTED = re.compile(r'"(?:[^"\\]|\\.)*"')
#: A Python repr, as an earlier version's own messages quoted Hermes's text.
_REPR = re.compile(r"'(?:[^'\\]|\\.)*'")
#: Texts shorter than this are not searched for in a message (they are
#: quoted there, if at all, and the quotes are scrubbed).
_MIN_SCRUBBED = 6


def _one_line(text: str, limit: int) -> str:
    return " ".join(text.split())[:limit]


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", errors="surrogatepass")).hexdigest()


def _scrub(message: str, texts: Tuple[str, ...]) -> str:
    """An error's message without the texts it may quote: each of ``texts``
    (the refused text, Hermes's old text) and every quoted string become
    ``…``. What is kept is memdir's own wording (the code's sentence, sizes,
    ids, pattern names)."""
    out = str(message)
    for t in sorted({t for x in texts if x for t in (x, x.strip()) if len(t) >= _MIN_SCRUBBED}, key=len, reverse=True):
        out = out.replace(t, "…")
    return _QUOTED.sub('"…"', out)[:500]


def _without_texts(entry: Mapping[str, Any]) -> Dict[str, Any]:
    """A divergence line as kept: an earlier version's ``content`` (the text
    itself) replaced by its SHA-256, its message scrubbed of quoted text."""
    out = dict(entry)
    content = out.pop("content", None)
    if isinstance(content, str) and content and "sha256" not in out:
        out["sha256"] = _sha256(content)
        out["migrated"] = True  # the hash of the text as that line kept it (300 characters at most)
    if isinstance(out.get("message"), str):
        message = _scrub(out["message"], (content if isinstance(content, str) else "",))
        out["message"] = _REPR.sub("'…'", message) if content is not None else message
    return out


def _safe_id(value: str, fallback: str) -> str:
    """An id memdir takes ([A-Za-z0-9._-], starting with a letter or digit,
    at most 128 characters) made from ``value``; never a path."""
    cleaned = _ID_CHARS.sub("-", value or "").strip("-._")[:100]
    return cleaned if cleaned and cleaned[0].isalnum() else fallback


def _turn_block(answer: Mapping[str, Any]) -> str:
    """The recall block as the turn gets it: nothing when the recall matched
    nothing (no fact, no learning, no conflict: no ``(no memories match)``
    block, and no block of day-log lines alone); else memdir's block without
    the day lines that say only that a session ended, and without the
    day-log heading when no line is left under it."""
    if not (answer.get("facts") or answer.get("wiki") or answer.get("conflicts")):
        return ""
    block = str(answer.get("block") or "")
    neutral = set()
    for d in answer.get("day_log") or []:
        line = d.get("line") if isinstance(d, Mapping) else None
        if isinstance(line, Mapping) and str(line.get("text") or "").strip() in _NEUTRAL_DAY_LINES:
            neutral.add(f"{d.get('date')} {line.get('raw')}")
    lines = block.split("\n")
    if DAY_HEADING not in lines:
        return block
    at = lines.index(DAY_HEADING)
    day = [l for l in lines[at + 1 :] if l not in neutral]
    if not any(day):
        return "\n".join(lines[:at] + day)
    return "\n".join(lines[: at + 1] + day)


class MemdirMemoryProvider(_Base):  # type: ignore[misc,valid-type]
    """memdir as Hermes's external memory provider (``name = "memdir"``)."""

    TOOL_NAMES = ("search_runs", "get_run", "get_result", "put_result", "learn", "propose")

    def __init__(self, config: Optional[Mapping[str, Any]] = None) -> None:
        self._explicit = dict(config) if config is not None else None
        self._lock = threading.RLock()
        self._mcp: Optional[McpChild] = None
        self._unavailable_reason: Optional[str] = None
        self._reset_state()
        self._hermes_home: Optional[str] = None

    def _reset_state(self) -> None:
        self.memory: Optional[Memory] = None
        self._owner: Optional[str] = None
        self._context = "primary"
        self._read_only = False
        self._session_id = ""
        self._run: Optional[Dict[str, Any]] = None
        self._workflow: Optional[str] = None
        self._block: Optional[str] = None
        self._finished = False
        self._declared: List[str] = []
        self._inactive_reason: Optional[str] = "not initialized"
        self._delegations = 0
        self._mirrored = 0
        self._divergences = 0

    # -- identity and settings ------------------------------------------------

    @property
    def name(self) -> str:  # type: ignore[override]
        return PROVIDER_NAME

    def settings(self) -> Dict[str, Any]:
        """The settings in force: the ones given, else the saved ones, else
        the environment (``MEMDIR_URL``/``MEMDIR_KEY`` or
        ``MEMDIR_ROOT``/``MEMDIR_OWNER``, as ``Memory()`` reads them)."""
        if self._explicit is not None:
            cfg = dict(self._explicit)
        else:
            cfg = load_config(self._hermes_home)
        env = os.environ
        if not cfg.get("url") and not cfg.get("root"):
            if env.get("MEMDIR_URL"):
                cfg["url"] = env["MEMDIR_URL"]
            elif env.get("MEMDIR_ROOT"):
                cfg["root"] = env["MEMDIR_ROOT"]
        if not cfg.get("owner") and env.get("MEMDIR_OWNER"):
            cfg["owner"] = env["MEMDIR_OWNER"]
        if not cfg.get("key") and env.get("MEMDIR_KEY"):
            cfg["key"] = env["MEMDIR_KEY"]
        if not cfg.get("binary") and env.get("MEMDIR_BIN"):
            cfg["binary"] = env["MEMDIR_BIN"]
        cfg["owners"] = _parse_owners(cfg.get("owners"))
        return cfg

    def is_available(self) -> bool:
        """Configured and reachable without a call: a server URL, or a root
        and a memdir binary of this package's version (``binary`` or
        ``MEMDIR_BIN``, else the one installed with the package, else
        ``memdir`` on ``PATH``: ``memdir.binary()``). When it is not, why
        not is in :meth:`unavailable_reason`, in :meth:`status` and in the
        log: the provider never falls back in silence."""
        self._unavailable_reason = self._why_unavailable()
        if self._unavailable_reason is not None:
            logger.warning("memdir: provider unavailable: %s", self._unavailable_reason)
        return self._unavailable_reason is None

    def _why_unavailable(self) -> Optional[str]:
        cfg = self.settings()
        if cfg.get("url"):
            return None
        if not cfg.get("root"):
            return "no memdir root or server: set root (MEMDIR_ROOT) or url (MEMDIR_URL)"
        try:
            path = find_binary(cfg.get("binary"))
            if not os.access(path, os.X_OK):
                return f"the memdir binary {path} is not an executable file"
            check_version(path)
        except MemdirError as e:
            return f"{e.code}: {e.message}"
        return None

    def unavailable_reason(self) -> Optional[str]:
        """Why the last :meth:`is_available` answered no (``None`` when it
        answered yes or was not asked)."""
        return self._unavailable_reason

    def resolve_owner(self, cfg: Mapping[str, Any], **kwargs: Any) -> Optional[str]:
        """The memdir owner of this Hermes session: the mapping's entry for
        ``user:<user_id>``, else for the agent identity (profile name), else
        the default owner."""
        owners = cfg.get("owners") or {}
        user_id = kwargs.get("user_id")
        identity = kwargs.get("agent_identity")
        if user_id and f"user:{user_id}" in owners:
            return owners[f"user:{user_id}"]
        if identity and identity in owners:
            return owners[identity]
        return cfg.get("owner") or None

    def get_config_schema(self) -> List[Dict[str, Any]]:
        return [
            {"key": "root", "description": "The memdir root on this machine (or leave empty and set url)", "env_var": "MEMDIR_ROOT"},
            {"key": "url", "description": "A memdir server's URL instead of a root (memdir serve)", "env_var": "MEMDIR_URL"},
            {"key": "key", "description": "The server's key (mdk_…), for url", "secret": True, "env_var": "MEMDIR_KEY"},
            {"key": "owner", "description": "The memdir owner (agent id) Hermes uses by default", "env_var": "MEMDIR_OWNER", "default": "agt_hermes"},
            {
                "key": "owners",
                "description": "Owner per Hermes identity: profile=agt_x or user:ID=agt_y, comma separated (optional)",
            },
        ]

    def save_config(self, values: Dict[str, Any], hermes_home: str) -> None:
        save_config(values, hermes_home)

    def get_status_config(self, provider_config: Any = None) -> Dict[str, Any]:
        """What ``hermes memory status`` shows: the settings (never the key)
        and the writes memdir refused."""
        cfg = self.settings()
        out: Dict[str, Any] = {}
        for k in ("root", "url", "owner"):
            if cfg.get(k):
                out[k] = cfg[k]
        if cfg.get("owners"):
            out["owners"] = ", ".join(f"{k}={v}" for k, v in sorted(cfg["owners"].items()))
        out["key"] = "set" if cfg.get("key") else "not set"
        recent = self.divergences(limit=5)
        out["refused_writes"] = self._count_divergences()
        for i, d in enumerate(recent, 1):
            what = " ".join(str(d[k]) for k in ("action", "target", "id") if d.get(k))
            text = f" (text sha256 {str(d['sha256'])[:12]}…, {d['chars']} chars)" if d.get("sha256") and d.get("chars") else ""
            out[f"refused_{i}"] = f"{d.get('at', '')} {what}: {d.get('code', '')} {d.get('message', '')}{text}"[:300]
        return out

    def backup_paths(self) -> List[str]:
        cfg = self.settings()
        root = cfg.get("root")
        return [str(Path(root).expanduser())] if root and not cfg.get("url") else []

    # -- the session ----------------------------------------------------------

    def initialize(self, session_id: str, **kwargs: Any) -> None:
        with self._lock:
            self._close_mcp()
            self._reset_state()
            self._hermes_home = kwargs.get("hermes_home") or self._hermes_home
            self._forget_kept_texts()
            self._session_id = session_id or ""
            context = str(kwargs.get("agent_context") or "primary")
            if kwargs.get("platform") == "cron" and context == "primary":
                context = "cron"
            self._context = context
            self._read_only = context == "subagent"
            cfg = self.settings()
            owner = self.resolve_owner(cfg, **kwargs)
            try:
                if cfg.get("url"):
                    self.memory = Memory(url=cfg["url"], key=cfg.get("key"), agent=owner, timeout=CALL_TIMEOUT)
                else:
                    if not owner:
                        raise MemdirError("usage", "no memdir owner: set owner (or MEMDIR_OWNER) or an owners mapping")
                    # The binary found and checked now (memdir.binary()), so a
                    # missing one or one of another version makes the
                    # provider inactive saying which, never a fallback.
                    found = binary(cfg.get("binary"))
                    self.memory = Memory(root=cfg.get("root"), owner=owner, binary=found, timeout=CALL_TIMEOUT)
            except (MemdirError, ValueError) as e:
                self._inactive_reason = str(e)
                logger.warning("memdir: provider inactive: %s", e)
                return
            self._owner = owner
            self._inactive_reason = None
            self._begin()

    def _begin(self) -> None:
        """Takes the session's snapshot once: ``run begin`` for a session
        that writes (its frozen snapshot, declaring the owner's learned
        skills, so a skill learned in one session is in the next one's
        block; over the command line or HTTP alike), ``snapshot`` for a
        read-only one; then the prompt block, kept for the session."""
        if self.memory is None or self._block is not None:
            return
        known = self._hermes_known()
        text = ""
        skills = self._skills()
        others = skills
        try:
            if self._read_only or self._context == "flush":
                text = self.memory.snapshot()["text"]
            else:
                declared, others = self._pick_skills(skills)
                try:
                    run = self.memory.run_begin(skills=declared)
                except MemdirError as e:
                    if e.code != "skill_not_found" or not declared:
                        raise
                    # Forgotten since the listing: begin without skills.
                    declared, others = [], skills
                    run = self.memory.run_begin()
                self._run = dict(run)
                self._declared = declared
                self._workflow = run.get("workflow_id") or run.get("run_id")
                text = run["text"]
        except MemdirError as e:
            self._record("begin", "", "", e)
            self._block = ""
            return
        if self._workflow is None:
            self._workflow = _safe_id(f"hermes-{self._session_id}", "hermes-session")
        filtered, _ = filter_snapshot(text, known)
        self._block = self._frame(filtered, others)

    def _skills(self) -> List[Dict[str, str]]:
        """The owner's learned skills (name, description), or none if they
        cannot be listed."""
        assert self.memory is not None
        try:
            listed = self.memory.skill_list().get("skills") or []
        except MemdirError as e:
            logger.info("memdir: cannot list the skills: %s", e.code)
            return []
        return [
            {"name": str(s["name"]), "description": str(s.get("description") or "")}
            for s in listed
            if isinstance(s, Mapping) and isinstance(s.get("name"), str) and s["name"]
        ]

    def _pick_skills(self, skills: List[Dict[str, str]]) -> Tuple[List[str], List[Dict[str, str]]]:
        """The skills the run declares (in the listing's order, at most
        ``MAX_DECLARED_SKILLS``, their bodies within ``SKILLS_BUDGET_CHARS``)
        and the others, which the block names."""
        assert self.memory is not None
        declared: List[str] = []
        others: List[Dict[str, str]] = []
        used = 0
        shown = 0
        for s in skills:
            if len(declared) >= MAX_DECLARED_SKILLS or used >= SKILLS_BUDGET_CHARS or shown >= 2 * MAX_DECLARED_SKILLS:
                others.append(s)
                continue
            shown += 1
            try:
                size = len(str(self.memory.skill_show(s["name"]).get("body") or ""))
            except MemdirError:
                others.append(s)
                continue
            if used + size > SKILLS_BUDGET_CHARS:
                others.append(s)
                continue
            used += size
            declared.append(s["name"])
        return declared, others

    def _frame(self, snapshot: str, others: List[Dict[str, str]]) -> str:
        who = self._owner or "this agent"
        mode = " (read-only: this session cannot write)" if self._read_only else ""
        head = (
            f"# memdir memory of {who}{mode}\n"
            "What memdir holds beyond the MEMORY/USER block above, frozen at the session's start. "
            "Tools: search_runs and get_run (past runs), get_result and put_result (task results), "
            "learn (skills: a skill learned is in this block from the next session on), "
            "propose (a learning every agent should know)."
        )
        parts = [head]
        body = snapshot.strip("\n")
        if body:
            parts.append(body)
        if others:
            lines = ["Learned skills not shown here (learn with action show and the name reads one):"]
            for s in others[:MAX_NAMED_SKILLS]:
                desc = _one_line(s.get("description") or "", 200)
                lines.append(f"- {s['name']} — {desc}" if desc else f"- {s['name']}")
            if len(others) > MAX_NAMED_SKILLS:
                lines.append(f"- and {len(others) - MAX_NAMED_SKILLS} more (learn with action list)")
            parts.append("\n".join(lines))
        return "\n\n".join(parts)

    def _hermes_config(self) -> Dict[str, Any]:
        try:
            from hermes_cli.config import load_config as _load

            mem = _load().get("memory", {})
            return mem if isinstance(mem, dict) else {}
        except Exception:
            return {}

    def _hermes_known(self) -> "set[str]":
        """The entry texts Hermes's own prompt block shows (its MEMORY.md
        and USER.md, where enabled), read as Hermes reads them."""
        mem_cfg = self._hermes_config()
        known: "set[str]" = set()
        files = []
        if mem_cfg.get("memory_enabled", True):
            files.append("MEMORY.md")
        if mem_cfg.get("user_profile_enabled", True):
            files.append("USER.md")
        for name in files:
            known.update(self._hermes_entries(name))
        return known

    def _hermes_entries(self, name: str) -> List[str]:
        path = _hermes_home(self._hermes_home) / "memories" / name
        try:
            if path.is_symlink() or not path.is_file():
                return []
            with open(path, "rb") as f:
                raw = f.read(MAX_HERMES_FILE + 1)
        except OSError:
            return []
        if len(raw) > MAX_HERMES_FILE:
            return []
        text = raw.decode("utf-8", errors="replace")
        return [e.strip() for e in text.split(ENTRY_DELIMITER) if e.strip()]

    def system_prompt_block(self) -> str:
        with self._lock:
            if self.memory is None:
                return ""
            if self._block is None:
                self._begin()
            return self._block or ""

    def prefetch(self, query: str, *, session_id: str = "") -> str:
        mem = self.memory
        if mem is None or not query or not query.strip():
            return ""
        q = query.strip()[:MAX_QUERY_CHARS]
        try:
            if self._read_only:
                answer = mem.recall(q, preview=True) if not mem.over_http else mem.recall(q)
            elif self._run is not None and not self._finished:
                answer = mem.recall(q, run=self._run["run_id"])
            else:
                answer = mem.recall(q)
        except MemdirError as e:
            logger.info("memdir: recall failed: %s", e)
            return ""
        if answer.get("skipped"):
            return ""
        return _turn_block(answer)

    def queue_prefetch(self, query: str, *, session_id: str = "") -> None:
        """Nothing: ``prefetch`` is one short call."""

    def sync_turn(self, user_content: str, assistant_content: str, *, session_id: str = "", messages: Any = None) -> None:
        """Nothing: memdir never infers a memory from a turn; only explicit
        writes (the memory tool mirrored, the tools) reach it."""

    def on_turn_start(self, turn_number: int, message: str, **kwargs: Any) -> None:
        """Nothing."""

    # -- writes ---------------------------------------------------------------

    def _state_dir(self) -> Path:
        return _hermes_home(self._hermes_home) / STATE_DIR

    def _record(
        self,
        action: str,
        target: str,
        content: str,
        error: Any,
        *,
        code: Optional[str] = None,
        entry_id: Optional[str] = None,
        old: str = "",
        **extra: Any,
    ) -> None:
        """Logs a write memdir refused (or one not made) and keeps it for the
        status; never raises. The text itself is never kept or logged (it
        may be a secret or an injection): its SHA-256 and length are, with
        the memdir id it concerns (if any) and the error's code; the
        error's message without any text it quotes."""
        code = getattr(error, "code", None) or code or "refused"
        message = _scrub(getattr(error, "message", None) or str(error), (content or "", old or ""))
        entry: Dict[str, Any] = {
            "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "owner": self._owner,
            "session": self._session_id,
            "action": action,
            "target": target,
        }
        if entry_id:
            entry["id"] = entry_id
        entry["code"] = code
        entry["message"] = message
        if content:
            entry["sha256"] = _sha256(content)
            entry["chars"] = len(content)
        if old:
            entry["old_sha256"] = _sha256(old)
        entry.update(extra)
        self._divergences += 1
        logger.warning("memdir: %s %s%s not applied: %s: %s", action, target, f" {entry_id}" if entry_id else "", code, message)
        try:
            d = self._state_dir()
            d.mkdir(parents=True, exist_ok=True)
            path = d / DIVERGENCES_FILE
            line = (json.dumps(entry, ensure_ascii=False) + "\n").encode("utf-8")
            with self._lock:
                if path.is_symlink():
                    return
                if path.exists() and path.stat().st_size + len(line) > MAX_DIVERGENCE_BYTES:
                    self._rewrite_divergences(keep=100)
                fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
                with os.fdopen(fd, "ab") as f:
                    f.write(line)
        except OSError as e:
            logger.debug("memdir: cannot keep the divergence: %s", e)

    def _rewrite_divergences(self, keep: Optional[int] = None) -> None:
        """Rewrites the divergences file (its newest ``keep`` lines, or all),
        each line without the text an earlier version kept in it."""
        d = self._state_dir()
        path = d / DIVERGENCES_FILE
        if path.is_symlink() or not path.is_file():
            return
        with open(path, "rb") as f:
            data = f.read(MAX_DIVERGENCE_BYTES * 2)
        raw = data.splitlines()
        if keep is not None:
            raw = raw[-keep:]
        out = []
        for r in raw:
            try:
                obj = json.loads(r)
            except ValueError:
                continue
            if isinstance(obj, dict):
                out.append((json.dumps(_without_texts(obj), ensure_ascii=False) + "\n").encode("utf-8"))
        tmp = d / f".{DIVERGENCES_FILE}.{os.getpid()}.tmp"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "wb") as f:
            f.write(b"".join(out))
        os.replace(tmp, path)

    def _forget_kept_texts(self) -> None:
        """An earlier version kept each refused text in the divergences
        file; the file is rewritten without them once, when a session
        begins."""
        path = self._state_dir() / DIVERGENCES_FILE
        try:
            with self._lock:
                if path.is_symlink() or not path.is_file():
                    return
                with open(path, "rb") as f:
                    if b'"content"' not in f.read(MAX_DIVERGENCE_BYTES * 2):
                        return
                self._rewrite_divergences()
        except OSError as e:
            logger.debug("memdir: cannot rewrite the divergences: %s", e)

    def divergences(self, limit: int = 20) -> List[Dict[str, Any]]:
        """The newest writes memdir refused or that were not made, newest
        last (kept in ``$HERMES_HOME/memdir/divergences.jsonl``)."""
        path = self._state_dir() / DIVERGENCES_FILE
        try:
            if path.is_symlink() or not path.is_file():
                return []
            with open(path, "rb") as f:
                data = f.read(MAX_DIVERGENCE_BYTES * 2)
        except OSError:
            return []
        out = []
        for raw in data.splitlines()[-max(0, int(limit)) :]:
            try:
                obj = json.loads(raw)
                if isinstance(obj, dict):
                    out.append(_without_texts(obj))
            except ValueError:
                continue
        return out

    def _count_divergences(self) -> int:
        path = self._state_dir() / DIVERGENCES_FILE
        try:
            with open(path, "rb") as f:
                return f.read(MAX_DIVERGENCE_BYTES * 2).count(b"\n")
        except OSError:
            return 0

    def status(self) -> Dict[str, Any]:
        """The session as the provider sees it."""
        return {
            "active": self.memory is not None,
            "inactive_reason": self._inactive_reason,
            "unavailable_reason": self._unavailable_reason,
            "owner": self._owner,
            "context": self._context,
            "read_only": self._read_only,
            "transport": None if self.memory is None else ("http" if self.memory.over_http else "cli"),
            "run_id": None if self._run is None else self._run.get("run_id"),
            "workflow_id": self._workflow,
            "skills": list(self._declared),
            "finished": self._finished,
            "mirrored_writes": self._mirrored,
            "refused_writes": self._divergences,
            "recent_refusals": self.divergences(limit=5),
        }

    def _candidates(self, target: str, needle: str) -> List[Dict[str, Any]]:
        assert self.memory is not None
        shown = self.memory.show(scope=target)
        out = []
        for store in shown.get("stores", []):
            for e in store.get("entries", []):
                if needle in str(e.get("text", "")):
                    out.append(e)
        return out

    def _pick(self, target: str, needle: str) -> Tuple[Optional[str], str]:
        """The id of the memdir entry Hermes's replace or remove of
        ``needle`` named: the one entry holding it, or of several the one
        Hermes's file no longer holds. Returns (id, why not)."""
        cands = self._candidates(target, needle)
        if len(cands) == 1:
            return str(cands[0]["id"]), ""
        if not cands:
            return None, "memory_not_found"
        still = set(self._hermes_entries("USER.md" if target == "user" else "MEMORY.md"))
        gone = [c for c in cands if str(c.get("text", "")).strip() not in still]
        if len(gone) == 1:
            return str(gone[0]["id"]), ""
        return None, "memory_ambiguous_match"

    def on_memory_write(self, action: str, target: str, content: str, metadata: Optional[Dict[str, Any]] = None) -> None:
        """Mirrors a write of Hermes's built-in memory tool (add, replace or
        remove on ``memory`` or ``user``) through memdir's write path. A
        refusal is recorded (see :meth:`divergences`), never raised."""
        try:
            meta = dict(metadata or {})
        except (TypeError, ValueError):
            meta = {}
        try:
            self._mirror(action, target, content or "", meta)
        except Exception as e:  # never into the agent loop
            self._record(str(action), str(target), str(content or ""), e, code="mirror_failed", old=str(meta.get("old_text") or ""))

    def _mirror(self, action: str, target: str, content: str, metadata: Dict[str, Any]) -> None:
        if action not in ("add", "replace", "remove") or target not in ("memory", "user"):
            return
        mem = self.memory
        if mem is None:
            self._record(action, target, content, self._inactive_reason or "provider inactive", code="inactive")
            return
        if self._read_only:
            self._record(action, target, content, "a delegate's memory is read-only; nothing was written", code="read_only")
            return
        old = str(metadata.get("old_text") or "").strip()
        mem_id: Optional[str] = None
        try:
            if action == "add":
                a = mem.add(content.strip(), to=target, run=self._write_run())
                self._mirrored += 1
                logger.info("memdir: mirrored add to %s as %s", target, a.get("id"))
                return
            if action == "replace":
                mem_id, why = self._pick(target, old) if old else (None, "memory_not_found")
                if mem_id is None and why == "memory_not_found":
                    a = mem.add(content.strip(), to=target, run=self._write_run())
                    self._mirrored += 1
                    self._record(
                        action, target, content,
                        "no memdir entry held Hermes's old text; the new text was added",
                        code="replaced_missing", entry_id=a.get("id"), old=old,
                    )
                    return
                if mem_id is None:
                    self._record(action, target, content, "several memdir entries hold Hermes's old text", code=why, old=old)
                    return
                try:
                    mem.replace(mem_id, content.strip(), scope=target)
                except MemdirError as e:
                    if e.code not in ("unsupported_operation", "person_only"):
                        raise
                    mem.remove(mem_id)
                    mem.add(content.strip(), to=target, run=self._write_run())
                self._mirrored += 1
                return
            needle = old or content.strip()
            mem_id, why = self._pick(target, needle) if needle else (None, "memory_not_found")
            if mem_id is None:
                self._record(action, target, content, "no single memdir entry holds Hermes's old text", code=why, old=old)
                return
            mem.remove(mem_id, scope=target)
            self._mirrored += 1
        except MemdirError as e:
            self._record(action, target, content, e, entry_id=mem_id, old=old)

    def _write_run(self) -> Optional[str]:
        """The run a write of this session records (``add --run``, or
        ``runId`` over HTTP): the session's begun, unfinished run; none
        before a run or after it finished."""
        if self._run is None or self._finished or self.memory is None:
            return None
        return str(self._run["run_id"])

    # -- tools ----------------------------------------------------------------

    def get_tool_schemas(self) -> List[Dict[str, Any]]:
        return list(TOOL_SCHEMAS)

    def handle_tool_call(self, tool_name: str, args: Dict[str, Any], **kwargs: Any) -> str:
        try:
            return json.dumps(self._tool(tool_name, dict(args or {})), ensure_ascii=False)
        except MemdirError as e:
            out: Dict[str, Any] = {"error": f"error[{e.code}]: {e.message}", "code": e.code}
            if e.hint is not None:
                out["hint"] = e.hint
            return json.dumps(out, ensure_ascii=False)
        except _ToolArgError as e:
            return json.dumps({"error": str(e)}, ensure_ascii=False)

    def _tool(self, name: str, args: Dict[str, Any]) -> Dict[str, Any]:
        mem = self.memory
        if name not in self.TOOL_NAMES:
            raise _ToolArgError(f"unknown tool {name!r}: one of {', '.join(self.TOOL_NAMES)}")
        if mem is None:
            raise _ToolArgError(f"memdir is not active: {self._inactive_reason}")
        writes = name in ("put_result", "propose") or (name == "learn" and (args.get("action") or "learn") in ("learn", "forget"))
        if writes and self._read_only:
            raise _ToolArgError(f"{name}: this delegate's memory is read-only; nothing was written")
        if isinstance(mem.transport, CliTransport):
            tool, arguments = _mcp_arguments(name, args)
            try:
                text, is_error = self._mcp_child(mem.transport).call_tool(tool, arguments)
            except McpError as e:
                raise _ToolArgError(f"memdir's MCP server failed: {e}") from None
            return {"error": text} if is_error else {"result": text}
        if name == "search_runs":
            query = _str_arg(args, "query", name)
            limit = args.get("limit")
            return {"result": mem.runs_search(query, limit=int(limit) if limit is not None else None)}
        if name == "get_run":
            return {"result": mem.runs_show(_str_arg(args, "run_id", name))}
        if name == "get_result":
            wf = args.get("workflow_id") or args.get("execution_id")
            if not isinstance(wf, str) or not wf:
                raise _ToolArgError("workflow_id is required for get_result")
            task = args.get("task_id")
            try:
                return {"result": mem.result_get(wf, task if isinstance(task, str) and task else None)}
            except MemdirError as e:
                if e.code == "not_ready":
                    return {"result": "not ready: still running, poll"}
                raise
        if name == "put_result":
            wf = _str_arg(args, "workflow_id", name)
            task = _str_arg(args, "task_id", name)
            content = args.get("content")
            if not isinstance(content, str):
                raise _ToolArgError("content is required for put_result")
            return {
                "result": mem.result_put(
                    wf, task, content, content_type=args.get("content_type") or None, allow_empty=bool(args.get("allow_empty"))
                )
            }
        if name == "propose":
            return {"result": mem.propose(_str_arg(args, "text", name))}
        action = args.get("action", "learn") or "learn"
        if action == "list":
            return {"result": mem.skill_list()}
        if action == "show":
            return {"result": mem.skill_show(_str_arg(args, "name", "show"))}
        if action == "forget":
            skill = args.get("name")
            if not isinstance(skill, str) or not skill:
                raise _ToolArgError("forget needs name (the skill id from action: list).")
            return {"result": mem.skill_forget(skill)}
        if action != "learn":
            raise _ToolArgError("action must be one of: learn, list, show, forget")
        skill = _str_arg(args, "name", "learn")
        content = args.get("content", args.get("source"))
        if not isinstance(content, str) or not content:
            raise _ToolArgError("content is required for learn")
        return {
            "result": mem.skill_learn(
                skill, content, description=args.get("description") or None, replace=bool(args.get("replace"))
            )
        }

    # -- the session's end and its children -----------------------------------

    def on_session_end(self, messages: List[Dict[str, Any]], **kwargs: Any) -> None:
        """Finishes the run with a one-line summary for the day log: the text
        Hermes passes (``summary``), else the neutral ``session ended`` —
        never a message of the conversation (episodes.md is committed to
        git). A refusal is recorded, never raised."""
        try:
            self._end(kwargs.get("summary"))
        except Exception as e:
            self._record("session_end", "", "", e, code="session_end_failed")

    @staticmethod
    def _summary(given: Any) -> str:
        if isinstance(given, str) and given.strip():
            return _one_line(given, MAX_SUMMARY_CHARS)
        return NEUTRAL_SUMMARY

    def _end(self, given: Any) -> None:
        with self._lock:
            mem = self.memory
            if mem is None or self._read_only or self._context == "flush" or self._finished:
                return
            summary = self._summary(given)
            self._finished = True
            # The tools' server served this run: a later call starts one
            # without it.
            self._close_mcp()
            if self._run is None:
                return
            try:
                mem.run_finish(self._run["run_id"], summary)
            except MemdirError as e:
                self._record("session_end", "day", summary, e)
                if summary != NEUTRAL_SUMMARY and e.code in _REFUSED_LINE:
                    try:
                        mem.run_finish(self._run["run_id"], NEUTRAL_SUMMARY)
                    except MemdirError as e2:
                        self._record("session_end", "day", "", e2)

    def on_session_switch(self, new_session_id: str, *, parent_session_id: str = "", reset: bool = False, **kwargs: Any) -> None:
        """A new conversation (``reset``) begins a new run at its first use;
        a continuation (compression, resume) keeps the run and its block."""
        with self._lock:
            if reset and self.memory is not None:
                self._session_id = new_session_id or self._session_id
                self._close_mcp()  # it served the previous run
                self._run = None
                self._declared = []
                self._workflow = None
                self._block = None
                self._finished = False
                self._begin()
            elif new_session_id:
                self._session_id = new_session_id

    def on_pre_compress(self, messages: List[Dict[str, Any]]) -> str:
        """Nothing is lost: every write reached memdir when it was made (no
        queue). Returns the line that keeps the run findable in the
        compression summary."""
        if self.memory is None:
            return ""
        if self._run is not None:
            return f"memdir keeps this session's run {self._run['run_id']} (get_run with that run_id); its saved facts and results are durable."
        return ""

    def on_delegation(self, task: str, result: str, *, child_session_id: str = "", **kwargs: Any) -> None:
        """Stores the child's result as a SharedMemory result of this run
        (workflow: the run's, task: ``delegate-<child session>``)."""
        try:
            self._delegate(task, result, child_session_id)
        except Exception as e:
            self._record("delegation", "result", result or "", e, code="delegation_failed")

    def _delegate(self, task: str, result: str, child: str) -> None:
        mem = self.memory
        if mem is None:
            return
        if self._read_only:
            self._record("delegation", "result", result or "", "a delegate's memory is read-only; nothing was written", code="read_only")
            return
        if not result:
            self._record("delegation", "result", "", "the child returned no result; nothing stored", code="empty_result")
            return
        with self._lock:
            if self._workflow is None:
                self._begin()
            self._delegations += 1
            n = self._delegations
        base = _safe_id(f"delegate-{child}", f"delegate-{n}") if child else f"delegate-{n}"
        wf = self._workflow or _safe_id(f"hermes-{self._session_id}", "hermes-session")
        task_id = base
        for attempt in range(1, 5):
            try:
                mem.result_put(wf, task_id, result, content_type="text/markdown")
                return
            except MemdirError as e:
                if e.code != "result_exists":
                    self._record("delegation", "result", result, e, workflow_id=wf, task_id=task_id)
                    return
                task_id = f"{base}-{attempt + 1}"
        self._record("delegation", "result", result, "results of that child already stored", code="result_exists")

    def _mcp_child(self, transport: CliTransport) -> McpChild:
        """The session's ``memdir mcp``, started for the session's run
        (``--run RUN``: its writes record the run, its recall is the run's
        frozen snapshot) while the run is open."""
        with self._lock:
            if self._mcp is None:
                argv = [transport.binary] + [a for a in transport.global_args() if a != "--json"] + ["mcp"]
                run = self._write_run()
                if run is not None:
                    argv += ["--run", run]
                self._mcp = McpChild(argv, timeout=CALL_TIMEOUT)
            return self._mcp

    def _close_mcp(self) -> None:
        child, self._mcp = self._mcp, None
        if child is not None:
            child.close()

    def shutdown(self) -> None:
        """Ends the session's ``memdir mcp`` process (the tools' server), so
        no process is left behind; every other call was one process that
        has ended."""
        with self._lock:
            self._close_mcp()
            self.memory = None
            self._inactive_reason = "shut down"
