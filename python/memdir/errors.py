"""memdir's failures as exceptions: one class per stable error code.

Every failure memdir answers with (the command line's ``--json`` error
object, an HTTP error body) is ``{"error": {"code", "status", "message",
"hint"?, …details}}``. :func:`error_from` turns that object into the class of
its code (a subclass of :class:`MemdirError`); a code this version does not
know becomes a plain :class:`MemdirError`, so a newer memdir never breaks an
older client.

The codes and their HTTP statuses are memdir's registry (docs/API.md,
"Errors", and docs/CLI.md); ``tests/test_errors.py`` holds :data:`CODES` to
those tables and to the library's registry so the two cannot drift.
"""

from __future__ import annotations

from typing import Any, Dict, Mapping, Optional, Type

__all__ = [
    "CODES",
    "MemdirError",
    "UnsupportedOperation",
    "TransportError",
    "error_class",
    "error_from",
]


class MemdirError(Exception):
    """A failure memdir answered with.

    ``code`` is memdir's stable code (``memory_over_budget``, …), ``message``
    its sentence, ``hint`` the argument that gets past it
    (``{"argument", "value"?, "text"}``) or ``None``, ``details`` the other
    keys of the error object (``entries``, ``usage``, …), ``status`` the HTTP
    status a server answers the code with.
    """

    #: The code this class stands for (``None`` for the base class).
    code_name: Optional[str] = None

    def __init__(
        self,
        code: str,
        message: str,
        hint: Optional[Mapping[str, Any]] = None,
        details: Optional[Mapping[str, Any]] = None,
        status: Optional[int] = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.hint = dict(hint) if isinstance(hint, Mapping) else None
        self.details: Dict[str, Any] = dict(details or {})
        self.status = status if status is not None else CODES.get(code)

    @property
    def hint_text(self) -> Optional[str]:
        """The hint's sentence, or ``None``."""
        if self.hint and isinstance(self.hint.get("text"), str):
            return self.hint["text"]
        return None

    def __str__(self) -> str:
        return f"{self.code}: {self.message}"

    def __repr__(self) -> str:
        return f"{type(self).__name__}(code={self.code!r}, message={self.message!r})"

    def to_dict(self) -> Dict[str, Any]:
        """The error object as memdir answers it."""
        out: Dict[str, Any] = {"code": self.code, "message": self.message}
        if self.status is not None:
            out["status"] = self.status
        if self.hint is not None:
            out["hint"] = self.hint
        out.update(self.details)
        return out


class UnsupportedOperation(MemdirError, NotImplementedError):
    """An operation the chosen transport does not offer (for example
    ``runs_search`` over HTTP, which has no route for it). Not a code memdir
    answers with: the client raises it before sending anything."""

    def __init__(self, operation: str, transport: str, instead: str = "") -> None:
        message = f"{operation} is not available over {transport}"
        if instead:
            message += f"; {instead}"
        super().__init__("unsupported_operation", message, status=None)
        self.operation = operation
        self.transport = transport


class TransportError(MemdirError):
    """The binary or the server could not be reached, timed out, or answered
    something that is not memdir's JSON (the binary missing, a killed
    process, an answer past its size bound). ``code`` is one of
    ``binary_not_found`` (``details["searched"]``: the places looked in),
    ``binary_version_mismatch`` (a binary of another version than the
    package's: ``details`` has ``path``, ``binary_version`` and
    ``package_version``), ``timeout``, ``answer_too_large``,
    ``bad_answer``, ``connection_failed``; none is a memdir code."""

    def __init__(self, code: str, message: str, details: Optional[Mapping[str, Any]] = None):
        super().__init__(code, message, details=details, status=None)


#: Every code memdir answers with, and the HTTP status a server answers it
#: with (the command line's ``--json`` errors carry the same status).
CODES: Dict[str, int] = {
    "invalid_id": 400,
    "unsafe_path": 403,
    "invalid_utf8": 422,
    "file_too_large": 422,
    "io_error": 500,
    "store_poisoned": 500,
    "locked": 409,
    "invalid_config": 422,
    "memory_text_empty": 400,
    "memory_text_too_long": 400,
    "memory_not_found": 404,
    "memory_ambiguous_match": 409,
    "memory_over_budget": 409,
    "memory_unplaceable": 422,
    "invalid_request": 400,
    "invalid_expiry": 400,
    "search_failed": 500,
    "memory_conflicted": 409,
    "memory_text_invalid": 400,
    "file_malformed": 422,
    "format_unsupported": 409,
    "git_failed": 500,
    "not_in_git": 409,
    "encode_failed": 500,
    "run_not_found": 404,
    "not_ready": 404,
    "result_not_found": 404,
    "owner_not_found": 404,
    "root_not_found": 404,
    "run_finished": 409,
    "usage": 400,
    "run_ambiguous": 409,
    "memory_not_own": 403,
    "memory_reason_invalid": 400,
    "memory_wrong_state": 409,
    "memory_agent_mismatch": 400,
    "memory_supersede_archived": 409,
    "memory_superseded": 409,
    "memory_veto_human_only": 403,
    "memory_day_exists": 409,
    "memory_query_too_long": 400,
    "memory_agent_required": 400,
    "person_not_allowed": 403,
    "person_unconfirmed": 403,
    "memory_day_line_too_long": 400,
    "memory_day_full": 409,
    "memory_day_agent_only": 403,
    "memory_day_append_only": 400,
    "result_exists": 409,
    "result_too_large": 413,
    "results_quota_exceeded": 413,
    "result_corrupt": 500,
    "memory_threat_blocked": 400,
    "secret_in_memory": 400,
    "skill_not_found": 404,
    "import_nothing": 404,
    "export_exists": 409,
    "skill_exists": 409,
    "skill_too_large": 413,
    "review_not_found": 404,
    "review_changed": 409,
    "learning_not_found": 404,
    "learning_limit": 409,
    "learning_closed": 409,
    "learning_changed": 409,
    "memory_pending_full": 409,
    "pending_not_found": 404,
    "memory_pending_rejected": 403,
    "unauthorized": 401,
    "route_not_found": 404,
    "method_not_allowed": 405,
    "request_too_large": 413,
    "person_only": 403,
    "busy": 503,
    "request_timeout": 408,
    "internal_error": 500,
    "csrf_refused": 403,
    "misdirected_request": 421,
    "misdirected": 421,
    "sync_conflict": 409,
    "too_many_attempts": 429,
    "store_changed": 409,
}


def _class_name(code: str) -> str:
    """``memory_over_budget`` → ``MemoryOverBudget``."""
    return "".join(part.capitalize() for part in code.split("_"))


_CLASSES: Dict[str, Type[MemdirError]] = {}


def _make(code: str) -> Type[MemdirError]:
    name = _class_name(code)
    doc = f"memdir's ``{code}`` (HTTP {CODES[code]})."
    cls = type(name, (MemdirError,), {"__doc__": doc, "code_name": code, "__module__": __name__})
    return cls


for _code in CODES:
    _cls = _make(_code)
    _CLASSES[_code] = _cls
    globals()[_cls.__name__] = _cls
    __all__.append(_cls.__name__)
del _code, _cls


def error_class(code: str) -> Type[MemdirError]:
    """The class of ``code`` (``MemdirError`` for a code this version does
    not know)."""
    return _CLASSES.get(code, MemdirError)


def error_from(obj: Any, *, status: Optional[int] = None) -> MemdirError:
    """The exception for memdir's error object: the whole answer
    (``{"error": {…}}``) or its inner object. Anything else is an
    ``internal_error`` naming what came."""
    if isinstance(obj, Mapping) and isinstance(obj.get("error"), Mapping):
        obj = obj["error"]
    if not isinstance(obj, Mapping) or not isinstance(obj.get("code"), str):
        return error_class("internal_error")(
            "internal_error", f"not a memdir error object: {str(obj)[:200]}", status=status
        )
    code = obj["code"]
    message = obj.get("message") if isinstance(obj.get("message"), str) else code
    hint = obj.get("hint") if isinstance(obj.get("hint"), Mapping) else None
    got_status = obj.get("status") if isinstance(obj.get("status"), int) else status
    details = {k: v for k, v in obj.items() if k not in ("code", "message", "hint", "status")}
    cls = error_class(code)
    return cls(code, message, hint=hint, details=details, status=got_status)
