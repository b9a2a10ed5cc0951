"""``Memory``: an owner's memdir, over the binary (``Memory(root, owner)``) or
a server (``Memory(url, key)``).

Every write goes through memdir itself (the binary or the server): the
scanner, the budget, the ids, the owner's lock and the durable write are
memdir's, never this package's. Answers are the command line's ``--json``
objects (docs/CLI.md), typed in :mod:`memdir.types`; failures raise the
exception of their code (:mod:`memdir.errors`).
"""

from __future__ import annotations

import base64
import json
import os
import re
from typing import Any, Dict, Iterable, List, Mapping, Optional, Tuple, Union, cast

from . import types as t
from ._transport import DEFAULT_MAX_OUTPUT, DEFAULT_TIMEOUT, CliTransport, HttpTransport, quote
from .errors import MemdirError, UnsupportedOperation, error_class

__all__ = ["Memory"]

#: The most a memory-tool input may be (memdir refuses more, too).
MAX_TOOL_INPUT = 64 * 1024

_SCOPES = ("memory", "user")
_ID = re.compile(r"^mem_[0-9a-f]{6,64}$")


def _scope(value: Optional[str], arg: str) -> Optional[str]:
    if value is None:
        return None
    if value not in _SCOPES:
        raise error_class("usage")(
            "usage", f"{arg} must be `memory` or `user`, got {value!r}", hint={"argument": arg, "text": f"pass {arg}='memory' or {arg}='user'"}
        )
    return value


def _usage_from(budget: Any, usage: Any) -> Dict[str, Any]:
    """The command line's usage object from an HTTP answer's ``budget``
    (``{used, limit}``) and ``usage`` string."""
    if isinstance(usage, Mapping):
        return dict(usage)
    out: Dict[str, Any] = {}
    if isinstance(budget, Mapping):
        out["used"] = budget.get("used")
        out["limit"] = budget.get("limit")
    out["text"] = usage if isinstance(usage, str) else ""
    return out


def _waiting(answer: Mapping[str, Any]) -> Dict[str, Any]:
    """A write's ``status`` (``pending``) and ``pending_id`` from an HTTP
    answer, when it waits for a person's review (``writes: review``)."""
    pending_id = answer.get("pending_id")
    if not pending_id:
        return {}
    return {"status": answer.get("status", "pending"), "pending_id": pending_id}


def _text(value: Union[str, bytes]) -> bytes:
    return value.encode("utf-8") if isinstance(value, str) else bytes(value)


class Memory:
    """One owner's memory.

    ``Memory(root=PATH, owner=ID)``: an agent's memory through the ``memdir``
    binary (``binary=``, else ``$MEMDIR_BIN``, else the one installed with
    this package, else ``memdir`` on ``PATH``: ``memdir.binary()``).
    ``Memory(root=PATH, person=ID, agent=ID)``: a person acting on an agent's
    memory, each call confirmed by the person at the controlling terminal,
    or, for automation, ``key_file=FILE`` naming a file (mode 0600) that
    holds the person's key of the account's own keys file
    (docs/SECURITY.md, Persons). ``Memory(url=URL, key=KEY[, agent=ID])``: through ``memdir
    serve`` (``agent`` names the agent when the key is a person's). Without
    arguments it reads ``MEMDIR_URL``/``MEMDIR_KEY`` when ``MEMDIR_URL`` is set,
    else ``MEMDIR_ROOT``/``MEMDIR_OWNER``, as the command line does.
    """

    def __init__(
        self,
        root: Optional[Union[str, "os.PathLike[str]"]] = None,
        owner: Optional[str] = None,
        *,
        person: Optional[str] = None,
        agent: Optional[str] = None,
        url: Optional[str] = None,
        key: Optional[str] = None,
        binary: Optional[str] = None,
        key_file: Optional[Union[str, "os.PathLike[str]"]] = None,
        config_dir: Optional[Union[str, "os.PathLike[str]"]] = None,
        lock_timeout_ms: Optional[int] = None,
        timeout: float = DEFAULT_TIMEOUT,
        max_output: int = DEFAULT_MAX_OUTPUT,
        env: Optional[Mapping[str, str]] = None,
    ) -> None:
        environ = os.environ if env is None else env
        if url is None and root is None and owner is None and person is None:
            url = environ.get("MEMDIR_URL") or None
        if url is not None:
            if root is not None or person is not None or key_file is not None:
                raise ValueError("Memory takes root (the command line) or url (a server), not both")
            if owner is not None:
                if agent is not None and agent != owner:
                    raise ValueError("over HTTP, name the agent once: agent= (owner= is the same)")
                agent = owner
            if key is None:
                key = environ.get("MEMDIR_KEY") or None
            self.transport: Union[CliTransport, HttpTransport] = HttpTransport(
                url, key, agent=agent, timeout=timeout, max_output=max_output
            )
            self.owner = agent
            self.person = None
        else:
            if key is not None:
                raise ValueError("a key is for a server: pass url= with it")
            if root is None:
                root = environ.get("MEMDIR_ROOT") or None
            if owner is None and person is None:
                owner = environ.get("MEMDIR_OWNER") or None
            if person is not None and owner is not None:
                raise ValueError("Memory takes owner= (an agent) or person= with agent=, not both")
            self.transport = CliTransport(
                binary=binary,
                root=os.fspath(root) if root is not None else None,
                owner=owner,
                person=person,
                agent=agent,
                key_file=os.fspath(key_file) if key_file is not None else None,
                config_dir=os.fspath(config_dir) if config_dir is not None else None,
                lock_timeout_ms=lock_timeout_ms,
                timeout=timeout,
                max_output=max_output,
                env=env,
            )
            self.owner = owner if person is None else agent
            self.person = person
        self.root = self.transport.root if isinstance(self.transport, CliTransport) else None
        self.url = self.transport.url if isinstance(self.transport, HttpTransport) else None

    def __repr__(self) -> str:
        where = f"url={self.url!r}" if self.url else f"root={self.root!r}"
        who = f"person={self.person!r}, agent={self.owner!r}" if self.person else f"owner={self.owner!r}"
        return f"Memory({where}, {who})"

    # -- plumbing -------------------------------------------------------------

    @property
    def over_http(self) -> bool:
        """Whether calls go to a server."""
        return isinstance(self.transport, HttpTransport)

    def _cli(self, *command: str, stdin: Optional[bytes] = None, timeout: Optional[float] = None) -> Dict[str, Any]:
        if not isinstance(self.transport, CliTransport):  # pragma: no cover - guarded by callers
            raise UnsupportedOperation(command[0], self.transport.name)
        return self.transport.call(list(command), stdin=stdin, timeout=timeout)

    def _http(self, method: str, path: str, **kw: Any) -> Dict[str, Any]:
        assert isinstance(self.transport, HttpTransport)
        return self.transport.request(method, path, **kw)[1]

    def _no_http(self, operation: str, instead: str = "") -> None:
        if self.over_http:
            raise UnsupportedOperation(operation, "HTTP", instead or "use Memory(root=..., owner=...) on the machine that holds the root")

    # -- the stores -----------------------------------------------------------

    def add(
        self,
        text: str,
        *,
        to: str = "memory",
        expires: Optional[str] = None,
        supersedes: Optional[str] = None,
        run: Optional[str] = None,
    ) -> t.AddResult:
        """Appends an entry to MEMORY.md (``to="memory"``) or USER.md
        (``to="user"``); ``expires`` a date, an RFC 3339 time, ``30d`` or
        ``never``; ``supersedes`` a live fact's id the new one archives."""
        _scope(to, "to")
        if not self.over_http:
            args = ["add", "--to", to]
            if expires is not None:
                args += ["--expires", expires]
            if supersedes is not None:
                args += ["--supersedes", supersedes]
            if run is not None:
                args += ["--run", run]
            return cast(t.AddResult, self._cli(*args, "--", text))
        if expires is not None or supersedes is not None:
            if to != "memory":
                raise UnsupportedOperation("add(to='user', expires/supersedes)", "HTTP", "the server sets them on MEMORY.md facts only")
            body: Dict[str, Any] = {"text": text}
            if expires is not None:
                body["expiresAt"] = expires
            if supersedes is not None:
                body["supersedes"] = supersedes
            if run is not None:
                body["runId"] = run
            a = self._http("POST", "/api/v1/memories", body=body)
            return cast(
                t.AddResult,
                {
                    "id": a.get("id"),
                    "scope": a.get("scope", "memory"),
                    "text": a.get("text", text),
                    "usage": _usage_from(a.get("budget"), a.get("usage")),
                    "message": a.get("message"),
                    "archived": list(a.get("archived") or []),
                    "warnings": list(a.get("warnings") or []),
                    **_waiting(a),
                },
            )
        remember: Dict[str, Any] = {"text": text, "scope": to}
        if run is not None:
            remember["runId"] = run
        a = self._http("POST", "/v1/memory/remember", body=remember)
        return cast(
            t.AddResult,
            {
                "id": a.get("id"),
                "scope": a.get("scope", to),
                "text": a.get("text", text),
                "usage": _usage_from(a.get("budget"), a.get("usage")),
                "message": a.get("message"),
                "archived": list(a.get("archived") or []),
                "warnings": list(a.get("warnings") or []),
                **_waiting(a),
            },
        )

    def _entries_http(self) -> List[Dict[str, Any]]:
        a = self._http("GET", "/v1/memory/recall", query={"limit": 500})
        return [e for e in a.get("entries") or [] if isinstance(e, dict)]

    def _find_http(self, old: str, scope: Optional[str]) -> str:
        """The id of the one entry ``old`` names (an id, or a substring of
        exactly one entry of ``scope``, or of both stores)."""
        entries = self._entries_http()
        if _ID.match(old):
            for e in entries:
                if e.get("id") == old and (scope is None or e.get("scope") == scope):
                    return old
            hits = []
        else:
            hits = [e for e in entries if old in str(e.get("text", "")) and (scope is None or e.get("scope") == scope)]
            if len(hits) == 1:
                return str(hits[0]["id"])
        file = {"memory": "MEMORY.md", "user": "USER.md", None: "MEMORY.md, USER.md"}[scope]
        listed = [
            {"id": e.get("id"), "text": e.get("text"), "file": "USER.md" if e.get("scope") == "user" else "MEMORY.md", "expired": False}
            for e in (hits or entries)
            if scope is None or e.get("scope") == scope
        ]
        if len(hits) > 1:
            raise error_class("memory_ambiguous_match")(
                "memory_ambiguous_match",
                f"{len(hits)} entries in {file} match {old!r}",
                details={"file": file, "candidates": listed},
            )
        raise error_class("memory_not_found")(
            "memory_not_found", f"no entry in {file} matches {old!r}", details={"file": file, "entries": listed}
        )

    def replace(self, old: str, new: str, *, scope: Optional[str] = None) -> t.ReplaceResult:
        """Replaces the entry ``old`` names (a ``mem_`` id, or a substring of
        exactly one entry; of ``scope``'s store, else of both) with ``new``,
        keeping its metadata."""
        _scope(scope, "scope")
        if not self.over_http:
            args = ["replace"]
            if scope is not None:
                args += ["--in", scope]
            return cast(t.ReplaceResult, self._cli(*args, "--", old, new))
        if self.owner is None:
            raise UnsupportedOperation(
                "replace", "HTTP with an agent's key", "the server edits a fact for a person's key only (PATCH /api/v1/memories/{id}); remove and add instead"
            )
        mem_id = self._find_http(old, scope)
        a = self._http("PATCH", f"/api/v1/memories/{quote(mem_id)}", body={"text": new})
        return cast(
            t.ReplaceResult,
            {
                "id": a.get("id"),
                "old_id": a.get("old_id", mem_id),
                "scope": a.get("scope"),
                "text": a.get("text", new),
                "usage": _usage_from(a.get("budget"), a.get("usage")),
                "message": a.get("message"),
                "warnings": list(a.get("warnings") or []),
            },
        )

    def remove(self, old: str, *, scope: Optional[str] = None) -> t.RemoveResult:
        """Removes the entry ``old`` names (a ``mem_`` id, or a substring of
        exactly one entry; of ``scope``'s store, else of both)."""
        _scope(scope, "scope")
        if not self.over_http:
            args = ["remove"]
            if scope is not None:
                args += ["--in", scope]
            return cast(t.RemoveResult, self._cli(*args, "--", old))
        body = {"id": self._find_http(old, scope)} if scope is not None else ({"id": old} if _ID.match(old) else {"text": old})
        a = self._http("POST", "/v1/memory/forget", body=body)
        return cast(
            t.RemoveResult,
            {
                "removed": a.get("removed", 1),
                "id": a.get("id"),
                "scope": a.get("scope"),
                "usage": _usage_from(a.get("budget"), a.get("usage")),
                "message": a.get("message"),
                "warnings": list(a.get("warnings") or []),
            },
        )

    def batch(self, operations: Iterable[Mapping[str, Any]]) -> Dict[str, Any]:
        """Applies add/replace/remove operations all or none (``memdir
        batch``; docs/CLI.md)."""
        self._no_http("batch")
        ops = [dict(op) for op in operations]
        return self._cli("batch", stdin=json.dumps(ops).encode("utf-8"))

    def show(self, *, scope: Optional[str] = None) -> t.ShowResult:
        """The entries with their ids, metadata and usage. Over HTTP each
        entry has its ``id`` and ``text`` only (``GET /v1/memory/recall``)."""
        _scope(scope, "scope")
        if not self.over_http:
            args = ["show"]
            if scope is not None:
                args += ["--in", scope]
            return cast(t.ShowResult, self._cli(*args))
        entries = self._entries_http()
        stores = []
        for s in ("user", "memory") if scope is None else (scope,):
            stores.append(
                {
                    "scope": s,
                    "file": "USER.md" if s == "user" else "MEMORY.md",
                    "entries": [{"id": e.get("id"), "text": e.get("text")} for e in entries if e.get("scope") == s],
                }
            )
        return cast(t.ShowResult, {"owner": self.owner, "stores": stores})

    def snapshot(self) -> t.Snapshot:
        """The snapshot a run starting now would get."""
        if not self.over_http:
            return cast(t.Snapshot, self._cli("snapshot"))
        a = self._http("GET", "/v1/snapshot")
        a.setdefault("blocked", [])
        a.setdefault("over_budget", [])
        return cast(t.Snapshot, a)

    def renew(self, id: str, *, expires: Optional[str] = None) -> t.Renewed:
        """Changes a live fact's expiry (default: the store's default from now)."""
        self._no_http("renew")
        args = ["renew"]
        if expires is not None:
            args += ["--expires", expires]
        return cast(t.Renewed, self._cli(*args, "--", id))

    # -- runs and the day log -------------------------------------------------

    def run_begin(
        self,
        task: Optional[str] = None,
        workflow: Optional[str] = None,
        *,
        skills: Iterable[str] = (),
        session: Optional[str] = None,
    ) -> t.RunBegin:
        """Begins a run: its id and its frozen snapshot (with the named
        skills after the stores). With ``session`` (a client's session key),
        an open run of that session is answered again (``resumed``) instead
        of beginning another."""
        skills = list(skills)
        if self.over_http:
            body: Dict[str, Any] = {"skills": skills}
            if task is not None:
                body["task"] = task
            if workflow is not None:
                body["workflow"] = workflow
            if session is not None:
                body["session"] = session
            return cast(t.RunBegin, self._http("POST", "/v1/runs", body=body))
        args = ["run", "begin"]
        if task is not None:
            args += ["--task", task]
        if workflow is not None:
            args += ["--workflow", workflow]
        if session is not None:
            args += ["--session", session]
        for s in skills:
            args += ["--skill", s]
        return cast(t.RunBegin, self._cli(*args))

    def run_finish(self, run_id: str, summary: Optional[str] = None) -> t.DayResult:
        """Finishes a run: its summary line goes into today's day log (once)."""
        if self.over_http:
            body: Dict[str, Any] = {} if summary is None else {"text": summary}
            path = "/v1/runs/" + quote(run_id) + "/finish"
            return cast(t.DayResult, self._http("POST", path, body=body))
        args = ["run", "finish", "--", run_id]
        if summary is not None:
            args.append(summary)
        return cast(t.DayResult, self._cli(*args))

    def day(
        self, text: str, *, task: Optional[str] = None, run: Optional[str] = None, fact: bool = False
    ) -> t.DayResult:
        """Appends one line to today's day log (agents only)."""
        if not self.over_http:
            args = ["day"]
            if task is not None:
                args += ["--task", task]
            if run is not None:
                args += ["--run", run]
            if fact:
                args.append("--fact")
            return cast(t.DayResult, self._cli(*args, "--", text))
        if task is not None or fact:
            self._no_http("day(task/fact)", "the server's day route takes the line and its run only")
        body: Dict[str, Any] = {"line": text}
        if run is not None:
            body["runId"] = run
        return cast(t.DayResult, self._http("POST", "/api/v1/memories/day", body=body, with_agent=False))

    def runs_search(
        self, query: str, *, since: Optional[str] = None, until: Optional[str] = None, limit: Optional[int] = None
    ) -> t.RunsSearch:
        """The run journal's lines ranked against ``query``."""
        self._no_http("runs_search")
        args = ["runs", "search"]
        if since is not None:
            args += ["--since", since]
        if until is not None:
            args += ["--until", until]
        if limit is not None:
            args += ["--limit", str(int(limit))]
        return cast(t.RunsSearch, self._cli(*args, "--", query))

    def runs_show(self, run_id: str) -> t.RunsShow:
        """One run: its record, journal lines, starting snapshot and steps."""
        self._no_http("runs_show")
        return cast(t.RunsShow, self._cli("runs", "show", "--", run_id))

    def runs_list(self, *, open: bool = False) -> t.RunsList:
        """The runs begun through memdir, newest first."""
        self._no_http("runs_list")
        return cast(t.RunsList, self._cli("runs", "list", *(["--open"] if open else [])))

    def recall(
        self,
        query: Optional[str] = None,
        *,
        session: Optional[str] = None,
        on_demand: bool = False,
        preview: bool = False,
        run: Optional[str] = None,
    ) -> t.RecallResult:
        """What a recall picks for ``query``, scored, and its block."""
        if not self.over_http:
            args = ["recall"]
            if query is not None:
                args += ["--query", query]
            if session is not None:
                args += ["--session", session]
            if on_demand:
                args.append("--on-demand")
            if preview:
                args.append("--preview")
            if run is not None:
                args += ["--run", run]
            return cast(t.RecallResult, self._cli(*args))
        if session is not None or on_demand or preview or run is not None:
            self._no_http("recall(session/on_demand/preview/run)", "the server's recall takes the query only")
        body: Dict[str, Any] = {}
        if query is not None:
            body["query"] = query
        return cast(t.RecallResult, self._http("POST", "/api/v1/memories/recall", body=body))

    # -- results (SharedMemory) -----------------------------------------------

    def result_put(
        self,
        workflow: str,
        task: str,
        content: Union[str, bytes],
        *,
        content_type: Optional[str] = None,
        overwrite: bool = False,
        allow_empty: bool = False,
    ) -> t.ResultPut:
        """Stores a task's result under (workflow, task)."""
        data = _text(content)
        if not self.over_http:
            args = ["result", "put"]
            if content_type is not None:
                args += ["--type", content_type]
            if overwrite:
                args.append("--overwrite")
            if allow_empty:
                args.append("--allow-empty")
            return cast(t.ResultPut, self._cli(*args, "--", workflow, task, stdin=data))
        ctype = content_type or ("text/plain" if isinstance(content, str) else "application/octet-stream")
        return cast(
            t.ResultPut,
            self._http(
                "PUT",
                f"/v1/workflows/results/{quote(workflow)}/{quote(task)}",
                data=data,
                content_type=ctype,
                query={"overwrite": True if overwrite else None, "allow_empty": True if allow_empty else None},
            ),
        )

    def result_get(self, workflow: str, task: Optional[str] = None) -> Union[t.Result, t.ResultSteps]:
        """A task's result (``content`` a string when UTF-8, else ``None``
        with ``content_base64``), or without ``task`` the workflow's steps.
        A result not stored yet raises ``NotReady``."""
        if not self.over_http:
            args = ["result", "get", "--", workflow]
            if task is not None:
                args.append(task)
            return cast(Union[t.Result, t.ResultSteps], self._cli(*args))
        if task is None:
            self._no_http("result_get(workflow) without a task", "name the task")
        return cast(t.Result, self._http("GET", f"/v1/workflows/results/{quote(workflow)}/{quote(task)}"))

    @staticmethod
    def result_bytes(result: Mapping[str, Any]) -> bytes:
        """A result's content as bytes, text or not."""
        if result.get("content") is not None:
            return str(result["content"]).encode("utf-8")
        return base64.b64decode(result.get("content_base64") or b"")

    # -- skills ---------------------------------------------------------------

    def skill_learn(
        self, name: str, content: str, *, description: Optional[str] = None, replace: bool = False
    ) -> t.SkillOutcome:
        """Saves ``content`` as the skill ``name`` (skills/NAME/SKILL.md)."""
        if not self.over_http:
            args = ["skill", "learn"]
            if description is not None:
                args += ["--description", description]
            if replace:
                args.append("--replace")
            return cast(t.SkillOutcome, self._cli(*args, "--", name, "-", stdin=_text(content)))
        body: Dict[str, Any] = {"name": name, "content": content}
        if description is not None:
            body["description"] = description
        if replace:
            body["replace"] = True
        a = self._http("POST", "/v1/skills", body=body)
        return cast(t.SkillOutcome, a)

    #: The MCP server's name for :meth:`skill_learn`.
    learn = skill_learn

    def skill_list(self) -> t.Skills:
        """The owner's skills, ``{skills: [{name, description}], count}``."""
        if not self.over_http:
            return cast(t.Skills, self._cli("skill", "list"))
        return cast(t.Skills, self._http("GET", "/v1/skills"))

    def skill_show(self, name: str) -> t.SkillShow:
        """One skill: its description, body and SKILL.md text."""
        if not self.over_http:
            return cast(t.SkillShow, self._cli("skill", "show", "--", name))
        return cast(t.SkillShow, self._http("GET", f"/v1/skills/{quote(name)}"))

    def skill_forget(self, name: str) -> t.SkillOutcome:
        """Forgets (deletes) the skill ``name``."""
        if not self.over_http:
            return cast(t.SkillOutcome, self._cli("skill", "forget", "--", name))
        return cast(t.SkillOutcome, self._http("DELETE", f"/v1/skills/{quote(name)}"))

    # -- learnings ------------------------------------------------------------

    def propose(self, text: str) -> t.LearningOutcome:
        """Proposes a learning, a fact every agent needs: it waits for a
        person's approval."""
        if not self.over_http:
            return cast(t.LearningOutcome, self._cli("propose", "--", text))
        return cast(t.LearningOutcome, self._http("POST", "/api/v1/learnings", body={"text": text}))

    def learnings(self) -> t.Learnings:
        """The approved learnings and the proposals the caller may see."""
        if not self.over_http:
            return cast(t.Learnings, self._cli("learnings", "list"))
        return cast(t.Learnings, self._http("GET", "/api/v1/learnings"))

    def learning_approve(
        self, id: str, *, text: Optional[str] = None, seen_text: Optional[str] = None
    ) -> t.LearningOutcome:
        """A person approves a proposal into LEARNINGS.md."""
        if not self.over_http:
            args = ["learnings", "approve"]
            if text is not None:
                args += ["--text", text]
            if seen_text is not None:
                args += ["--seen-text", seen_text]
            return cast(t.LearningOutcome, self._cli(*args, "--", id))
        body: Dict[str, Any] = {}
        if text is not None:
            body["text"] = text
        if seen_text is not None:
            body["seenText"] = seen_text
        return cast(t.LearningOutcome, self._http("POST", f"/api/v1/learnings/{quote(id)}/approve", body=body, with_agent=False))

    def learning_reject(self, id: str, reason: str) -> t.LearningOutcome:
        """A person rejects a proposal (its text is never proposed again)."""
        if not self.over_http:
            return cast(t.LearningOutcome, self._cli("learnings", "reject", "--reason", reason, "--", id))
        return cast(
            t.LearningOutcome, self._http("POST", f"/api/v1/learnings/{quote(id)}/reject", body={"reason": reason}, with_agent=False)
        )

    def learning_retire(self, id: str, reason: Optional[str] = None) -> t.LearningOutcome:
        """A person retires an approved learning."""
        if not self.over_http:
            args = ["learnings", "retire"]
            if reason is not None:
                args += ["--reason", reason]
            return cast(t.LearningOutcome, self._cli(*args, "--", id))
        body = {"reason": reason} if reason is not None else {}
        return cast(t.LearningOutcome, self._http("POST", f"/api/v1/learnings/{quote(id)}/retire", body=body, with_agent=False))

    # -- writes that wait for a person (writes: review) -----------------------

    def pending(self, id: Optional[str] = None, *, all: bool = False) -> Union[t.PendingList, t.PendingShow]:
        """The owner's writes that wait for a person's review (``writes:
        review``), oldest first (``all``: the rejected ones too); with
        ``id``, that one write (``pnd_…``)."""
        if not self.over_http:
            if id is not None:
                return cast(t.PendingShow, self._cli("pending", "show", "--", id))
            return cast(t.PendingList, self._cli("pending", "list", *(["--all"] if all else [])))
        if id is not None:
            return cast(t.PendingShow, self._http("GET", f"/api/v1/pending/{quote(id)}"))
        return cast(t.PendingList, self._http("GET", "/api/v1/pending", query={"all": "true" if all else None}))

    def pending_approve(self, id: str, *, text: Optional[str] = None) -> t.PendingDecision:
        """A person approves a waiting write (``text``: in place of its
        one text); its budget, vetoes and scan are checked again."""
        if not self.over_http:
            args = ["pending", "approve"]
            if text is not None:
                args += ["--text", text]
            return cast(t.PendingDecision, self._cli(*args, "--", id))
        body: Dict[str, Any] = {} if text is None else {"text": text}
        return cast(t.PendingDecision, self._http("POST", f"/api/v1/pending/{quote(id)}/approve", body=body))

    def pending_reject(self, id: str, reason: str) -> t.PendingDecision:
        """A person rejects a waiting write; its text is refused to the
        agent from then on."""
        if not self.over_http:
            return cast(t.PendingDecision, self._cli("pending", "reject", "--reason", reason, "--", id))
        return cast(t.PendingDecision, self._http("POST", f"/api/v1/pending/{quote(id)}/reject", body={"reason": reason}))

    # -- facts: list and transitions ------------------------------------------

    def list(
        self,
        *,
        kind: Optional[str] = None,
        status: Optional[str] = None,
        all: bool = False,
        limit: Optional[int] = None,
    ) -> t.ListResult:
        """Memories newest first with recall counts (a person's key without
        an agent: every agent's)."""
        if not self.over_http:
            args = ["list"]
            if kind is not None:
                args += ["--kind", kind]
            if status is not None:
                args += ["--status", status]
            if all:
                args.append("--all")
            if limit is not None:
                args += ["--limit", str(int(limit))]
            return cast(t.ListResult, self._cli(*args))
        if all:
            self._no_http("list(all=True)", "ask status='active' and status='archived' in turn")
        a = self._http("GET", "/api/v1/memories", query={"kind": kind, "status": status, "limit": limit})
        return cast(t.ListResult, a)

    def archive(self, id: str, reason: str) -> t.Transition:
        """Archives a memory with a reason."""
        if not self.over_http:
            return cast(t.Transition, self._cli("archive", "--reason", reason, "--", id))
        return cast(t.Transition, self._http("POST", f"/api/v1/memories/{quote(id)}/archive", body={"reason": reason}))

    def unarchive(self, id: str) -> t.Transition:
        """Brings an archived memory back."""
        if not self.over_http:
            return cast(t.Transition, self._cli("unarchive", "--", id))
        return cast(t.Transition, self._http("POST", f"/api/v1/memories/{quote(id)}/unarchive", body={}))

    def veto(self, id: str, reason: Optional[str] = None) -> t.Transition:
        """A person's veto: archives the memory as vetoed."""
        if not self.over_http:
            args = ["veto"]
            if reason is not None:
                args += ["--reason", reason]
            return cast(t.Transition, self._cli(*args, "--", id))
        body = {"reason": reason} if reason is not None else {}
        return cast(t.Transition, self._http("POST", f"/api/v1/memories/{quote(id)}/veto", body=body))

    def resolve(self, id: str, keep: str) -> t.Transition:
        """Settles what a merge left of a fact: ``keep`` both, live or one."""
        if not self.over_http:
            return cast(t.Transition, self._cli("resolve", "--keep", keep, "--", id))
        return cast(t.Transition, self._http("POST", f"/api/v1/memories/{quote(id)}/resolve", body={"keep": keep}))

    # -- Claude's memory tool -------------------------------------------------

    def memory_tool(self, tool_input: Mapping[str, Any], *, skills_writable: bool = False) -> Tuple[str, bool]:
        """Runs one command of Claude's memory tool (``memory_20250818``:
        ``{"command": "view", "path": "/memories"}``, …) on this owner's
        memory; returns the tool result's text and whether it is an error.
        A refusal (a path that is not there, a write past the budget, …) is
        an answer with ``is_error`` true; input memdir cannot read raises
        (``InvalidRequest``)."""
        if not isinstance(tool_input, Mapping):
            raise error_class("invalid_request")(
                "invalid_request", f"the memory tool's input is a JSON object, not {type(tool_input).__name__}"
            )
        obj = dict(tool_input)
        payload = json.dumps(obj, ensure_ascii=False).encode("utf-8")
        if len(payload) > MAX_TOOL_INPUT:
            raise error_class("invalid_request")(
                "invalid_request",
                f"the memory tool's input is {len(payload)} bytes; at most {MAX_TOOL_INPUT} are read",
                details={"bytes": len(payload), "limit": MAX_TOOL_INPUT},
            )
        if not self.over_http:
            args = ["tool", "memory"]
            if skills_writable:
                args.append("--skills-writable")
            a = self._cli(*args, stdin=payload)
        else:
            a = self._http(
                "POST",
                "/v1/memory/tool",
                body=obj,
                query={"skills_writable": True} if skills_writable else None,
            )
        text, is_error = a.get("text"), a.get("is_error")
        if not isinstance(text, str) or not isinstance(is_error, bool):
            raise MemdirError("internal_error", f"the memory tool answered without text and is_error: {str(a)[:200]}")
        return text, is_error
