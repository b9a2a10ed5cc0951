"""Typed answers: TypedDicts mirroring the JSON Schemas of docs/schema/
(the command line's ``--json`` answers; the HTTP transport fills the same
keys where its route answers them). Keys may be added by later memdir
versions; none is renamed or changes type.

Generated from docs/schema/ by tests/it/schema_derived.rs; do not edit:
regenerate with ``MEMDIR_REGENERATE=1 cargo test -p memdir --test it --
schema_derived``."""

from __future__ import annotations

from typing import Any, Dict, List, Optional

from typing import TypedDict

try:  # Python 3.11+
    from typing import NotRequired
except ImportError:  # pragma: no cover - Python 3.10, no dependencies

    class _NotRequired:
        """``NotRequired[X]`` as ``X`` where typing lacks it (the keys are
        documented as optional all the same)."""

        def __class_getitem__(cls, item):
            return item

    NotRequired = _NotRequired  # type: ignore


class Usage(TypedDict):
    """A store's usage against its budget (``usage``)."""

    used: int
    limit: int
    text: str


class Entry(TypedDict):
    """One entry of ``show`` (schema ``show.json``)."""

    id: str
    text: str
    created: Optional[str]
    expires: Optional[str]
    expired: bool
    by: Optional[str]
    warnings: List[str]
    omitted: Optional[str]


class StoreView(TypedDict):
    """One store of ``show``."""

    scope: str
    file: str
    entries: List[Entry]
    usage: Usage
    budget: Dict[str, Any]
    warnings: List[str]


class ShowResult(TypedDict):
    """``show`` (``show.json``)."""

    owner: str
    stores: List[StoreView]


class AddResult(TypedDict):
    """``add`` (``add.json``)."""

    id: str
    scope: str
    text: str
    usage: Usage
    message: str
    archived: List[str]
    warnings: List[str]
    status: NotRequired[str]
    pending_id: NotRequired[str]


class ReplaceResult(TypedDict):
    """``replace`` (``replace.json``)."""

    id: str
    old_id: str
    scope: str
    text: str
    usage: Usage
    message: str
    warnings: List[str]
    status: NotRequired[str]
    pending_id: NotRequired[str]


class RemoveResult(TypedDict):
    """``remove`` (``remove.json``)."""

    removed: int
    id: str
    scope: str
    usage: Usage
    message: str
    warnings: List[str]


class Snapshot(TypedDict):
    """``snapshot`` (``snapshot.json``)."""

    text: str
    sha256: str
    bytes: int
    blocked: List[str]
    over_budget: List[Dict[str, Any]]
    blocked_skills: NotRequired[List[Dict[str, Any]]]


class RunBegin(TypedDict):
    """``run begin`` (``run-begin.json``): the snapshot and the run."""

    text: str
    sha256: str
    bytes: int
    blocked: List[str]
    over_budget: List[Dict[str, Any]]
    blocked_skills: NotRequired[List[Dict[str, Any]]]
    run_id: str
    resumed: bool
    session: NotRequired[str]
    workflow_id: str
    started_at: str
    skills: NotRequired[List[str]]


class DayLine(TypedDict):
    """A day line (``day.json``'s ``line``)."""

    time: Optional[str]
    task: Optional[str]
    text: str
    run_id: Optional[str]
    workflow_id: NotRequired[str]
    raw: str


class DayResult(TypedDict):
    """``day``, ``run finish`` (``day.json``)."""

    id: str
    date: str
    line: DayLine
    chars: int
    message: str
    warnings: NotRequired[List[str]]


class RecallResult(TypedDict):
    """``recall`` (``recall.json``)."""

    skipped: bool
    fallback: Optional[str]
    lexical: NotRequired[List[str]]
    wiki: NotRequired[List[Dict[str, Any]]]
    facts: List[Dict[str, Any]]
    day_log: List[Dict[str, Any]]
    tokens: int
    conflicts: NotRequired[List[str]]
    block: str
    counted: bool
    model: NotRequired[str]


class ResultPut(TypedDict):
    """``result put`` (``result-put.json``)."""

    workflow_id: str
    task_id: str
    content_type: str
    created_at: str
    sha256: str
    bytes: int
    message: str
    status: str
    warnings: List[str]


class Result(TypedDict):
    """``result get WF TASK`` (``result.json``)."""

    workflow_id: str
    task_id: str
    content_type: str
    created_at: str
    sha256: str
    bytes: int
    content: Optional[str]
    content_base64: NotRequired[str]
    redacted: bool
    flagged: List[Dict[str, Any]]


class ResultSteps(TypedDict):
    """``result get WF`` (``result-steps.json``)."""

    workflow_id: str
    steps: List[Dict[str, Any]]
    warnings: List[str]


class SkillOutcome(TypedDict):
    """``skill learn`` / ``skill forget`` (``skill.json``)."""

    name: str
    message: str
    path: str
    description: NotRequired[str]
    bytes: NotRequired[int]
    warnings: NotRequired[List[str]]


class Skills(TypedDict):
    """``skill list`` (``skills.json``)."""

    skills: List[Dict[str, Any]]
    count: int


class SkillShow(TypedDict):
    """``skill show`` (``skill-show.json``)."""

    name: str
    description: str
    body: str
    text: str
    path: str


class RunsSearch(TypedDict):
    """``runs search`` (``runs-search.json``)."""

    hits: List[Dict[str, Any]]
    count: int


class RunsShow(TypedDict):
    """``runs show`` (``runs-show.json``)."""

    run_id: str
    record: Optional[Dict[str, Any]]
    journal: List[Dict[str, Any]]
    snapshot: Optional[str]
    recalls: List[Dict[str, Any]]
    recalls_left_out: NotRequired[int]
    steps: List[Dict[str, Any]]


class RunsList(TypedDict):
    """``runs list`` (``runs-list.json``)."""

    runs: List[Dict[str, Any]]
    count: int


class ListResult(TypedDict):
    """``list`` (``list.json``)."""

    rows: List[Dict[str, Any]]
    count: int
    total: int
    truncated: bool
    limit: int


class Transition(TypedDict):
    """``archive``, ``unarchive``, ``resolve``, ``veto`` (``transition.json``)."""

    id: str
    status: str
    kind: NotRequired[str]
    message: str
    warnings: NotRequired[List[str]]


class Renewed(TypedDict):
    """``renew`` (``renew.json``)."""

    id: str
    scope: str
    expires: Optional[str]
    previous: Optional[str]
    message: str
    warnings: List[str]


class LearningOutcome(TypedDict):
    """``propose`` and a person's decisions (``learning.json``)."""

    message: str
    learning: Dict[str, Any]
    usage: Usage


class Learnings(TypedDict):
    """``learnings`` (``learnings.json``)."""

    approved: List[Dict[str, Any]]
    proposals: List[Dict[str, Any]]
    usage: Usage


class PendingOp(TypedDict):
    """One operation of a waiting write (``pending.json``)."""

    op: str
    scope: NotRequired[str]
    text: str
    target: NotRequired[str]
    expires: NotRequired[str]
    supersedes: NotRequired[str]
    archive: NotRequired[str]


class PendingWrite(TypedDict):
    """A write that waits for a person (``pending.json``'s ``pending``)."""

    pending_id: str
    status: str
    source: str
    by: NotRequired[str]
    run: NotRequired[str]
    task: NotRequired[str]
    created: NotRequired[str]
    operations: List[PendingOp]
    decided_by: NotRequired[str]
    decided_at: NotRequired[str]
    reason: NotRequired[str]


class PendingList(TypedDict):
    """``pending list`` (``pending.json``)."""

    owner: str
    pending: List[PendingWrite]
    waiting: int
    limit: int


class PendingShow(TypedDict):
    """``pending show`` (``pending-show.json``)."""

    pending_id: str
    status: str
    source: str
    by: NotRequired[str]
    run: NotRequired[str]
    task: NotRequired[str]
    created: NotRequired[str]
    operations: List[PendingOp]
    decided_by: NotRequired[str]
    decided_at: NotRequired[str]
    reason: NotRequired[str]


class PendingDecision(TypedDict):
    """``pending approve`` / ``pending reject`` (``pending-decision.json``)."""

    status: str
    pending: PendingWrite
    results: List[Dict[str, Any]]
    archived: List[str]
    warnings: List[str]


class ToolAnswer(TypedDict):
    """``tool memory`` (the memory tool's result, ``memory-tool.json``)."""

    text: str
    is_error: bool
    pending_id: NotRequired[str]


__all__ = [name for name in dir() if name[0].isupper() and name not in ("Any", "Dict", "List", "Optional")]
