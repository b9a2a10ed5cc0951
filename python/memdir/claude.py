"""Claude's memory tool (``memory_20250818``) backed by memdir.

The model's commands (``view``, ``create``, ``str_replace``, ``insert``,
``delete``, ``rename`` on paths under ``/memories``) run on one owner's
memdir folder: ``/memories/MEMORY.md`` and ``/memories/USER.md`` are the
owner's stores, edited entry by entry through memdir's write path (the
scanner, the budget, ids, the owner's lock), ``episodes.md`` and
``LEARNINGS.md`` are read-only, and ``skills/NAME/SKILL.md`` is read-only
unless the application passes ``skills_writable=True``.

Every command is executed by memdir itself (``memdir tool memory`` or
``POST /v1/memory/tool``, through :meth:`memdir.Memory.memory_tool`); this
module only hands the model's command over and turns memdir's answer into
the tool result the SDK's runner sends back: the text as it is, and a
refusal as a :class:`~anthropic.lib.tools.ToolError` carrying that text, so
the result has ``is_error: true``.

::

    import anthropic
    from memdir import Memory
    from memdir.claude import MemdirMemoryTool

    client = anthropic.Anthropic()
    runner = client.beta.messages.tool_runner(
        model="claude-sonnet-4-5", max_tokens=2048,
        tools=[MemdirMemoryTool(Memory(root="~/memory", owner="agt_claude"))],
        messages=[{"role": "user", "content": "Remember that I prefer tea."}],
        betas=["context-management-2025-06-27"],
    )
    print(runner.until_done().content[-1].text)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping

try:
    import anyio.to_thread
    from anthropic.lib.tools import (
        BetaAbstractMemoryTool,
        BetaAsyncAbstractMemoryTool,
        ToolError,
    )
except ImportError as err:  # pragma: no cover - depends on the environment
    raise ImportError(
        "memdir.claude needs the anthropic package (pip install anthropic); "
        "the rest of memdir does not"
    ) from err

from .errors import MemdirError

if TYPE_CHECKING:
    from anthropic.lib.tools import BetaFunctionToolResultType
    from anthropic.types.beta import (
        BetaCacheControlEphemeralParam,
        BetaMemoryTool20250818Command,
        BetaMemoryTool20250818CreateCommand,
        BetaMemoryTool20250818DeleteCommand,
        BetaMemoryTool20250818InsertCommand,
        BetaMemoryTool20250818RenameCommand,
        BetaMemoryTool20250818StrReplaceCommand,
        BetaMemoryTool20250818ViewCommand,
    )

    from .client import Memory

__all__ = ["MemdirMemoryTool", "MemdirAsyncMemoryTool"]

#: The six commands of ``memory_20250818``.
COMMANDS = ("view", "create", "str_replace", "insert", "delete", "rename")

#: The error code memdir answers a malformed tool input with (a command it
#: does not know, a field missing or of the wrong type, an input too large):
#: the model's own mistake, so it goes back to the model as a tool error.
_MODEL_ERROR_CODE = "invalid_request"

_CLEAR_REFUSED = (
    "memdir does not clear an owner's memory at once: an agent removes its "
    "entries one by one (Memory.remove, or the memory tool's edits, which "
    "archive what they drop), and a person archives or vetoes them "
    "(Memory.archive, Memory.veto); the archive keeps why each one went."
)


def _tool_input(command: Any) -> dict[str, Any]:
    """The command as the model gave it: its fields under memory_20250818's
    names, only those the model set (so nothing is invented, e.g. a
    ``view_range: null`` the model never sent)."""
    if isinstance(command, Mapping):
        return dict(command)
    dump = getattr(command, "model_dump", None)
    if dump is None:
        raise ToolError(
            "The memory tool's input must be a JSON object with a `command` "
            f"field (one of {', '.join(COMMANDS)})."
        )
    # warnings=False: a field of the wrong type (``insert_line: "first"``)
    # is passed on as the model gave it, for memdir to refuse by name.
    return dump(exclude_unset=True, warnings=False)


def _answer(text: str, is_error: bool) -> str:
    """memdir's answer as the runner wants it: the text, or a ToolError of
    the text (the runner sends its content as is, with ``is_error: true``)."""
    if is_error:
        raise ToolError(text)
    return text


def _model_error(err: MemdirError) -> ToolError:
    """A malformed tool input, told to the model in memdir's words."""
    text = str(getattr(err, "message", "") or err)
    hint = getattr(err, "hint", None)
    hint_text = hint.get("text") if isinstance(hint, Mapping) else hint
    if hint_text and str(hint_text) not in text:
        text = f"{text} ({hint_text})"
    return ToolError(text)


def _checked(memory: Memory, tool: str) -> Memory:
    """``memory``, once it is seen to be a :class:`memdir.Memory` (what the
    tool's commands are sent to)."""
    if not callable(getattr(memory, "memory_tool", None)):
        raise TypeError(f"{tool}(memory): memory must be a memdir.Memory")
    return memory


def _run(memory: Memory, tool_input: dict[str, Any], skills_writable: bool) -> str:
    try:
        text, is_error = memory.memory_tool(tool_input, skills_writable=skills_writable)
    except MemdirError as err:
        if getattr(err, "code", None) == _MODEL_ERROR_CODE:
            raise _model_error(err) from err
        # Anything else is the application's (the binary, the root, the
        # owner, the server, a lock held too long): raised as it is, so the
        # runner logs it, and a direct caller sees the MemdirError.
        raise
    return _answer(text, is_error)


class MemdirMemoryTool(BetaAbstractMemoryTool):
    """Claude's memory tool on a memdir owner's folder.

    ``memory`` is a :class:`memdir.Memory` (over the command line or over
    HTTP); ``skills_writable`` lets the model create, edit, delete and
    rename ``/memories/skills/NAME/SKILL.md`` (off by default: a skill is
    injected into every later run that names it). Pass it in ``tools=[…]``
    of ``client.beta.messages.tool_runner(...)``.
    """

    def __init__(
        self,
        memory: Memory,
        *,
        skills_writable: bool = False,
        cache_control: BetaCacheControlEphemeralParam | None = None,
    ) -> None:
        super().__init__(cache_control=cache_control)
        self.memory = _checked(memory, type(self).__name__)
        self.skills_writable = bool(skills_writable)

    def _send(self, command: Any) -> str:
        return _run(self.memory, _tool_input(command), self.skills_writable)

    def call(self, input: object) -> BetaFunctionToolResultType:
        if not isinstance(input, Mapping):
            return self._send(input)  # refused in the model's terms
        return super().call(input)

    def execute(self, command: BetaMemoryTool20250818Command) -> BetaFunctionToolResultType:
        # A command outside the six is memdir's to refuse (in its words),
        # not a NotImplementedError the runner would show as a Python repr.
        if getattr(command, "command", None) not in COMMANDS:
            return self._send(command)
        return super().execute(command)

    def view(self, command: BetaMemoryTool20250818ViewCommand) -> str:
        return self._send(command)

    def create(self, command: BetaMemoryTool20250818CreateCommand) -> str:
        return self._send(command)

    def str_replace(self, command: BetaMemoryTool20250818StrReplaceCommand) -> str:
        return self._send(command)

    def insert(self, command: BetaMemoryTool20250818InsertCommand) -> str:
        return self._send(command)

    def delete(self, command: BetaMemoryTool20250818DeleteCommand) -> str:
        return self._send(command)

    def rename(self, command: BetaMemoryTool20250818RenameCommand) -> str:
        return self._send(command)

    def clear_all_memory(self) -> str:
        """Refused: see the message (no command of the model calls this)."""
        raise NotImplementedError(_CLEAR_REFUSED)


class MemdirAsyncMemoryTool(BetaAsyncAbstractMemoryTool):
    """The async twin of :class:`MemdirMemoryTool`, for ``AsyncAnthropic``:
    each command runs the blocking call in a worker thread."""

    def __init__(
        self,
        memory: Memory,
        *,
        skills_writable: bool = False,
        cache_control: BetaCacheControlEphemeralParam | None = None,
    ) -> None:
        super().__init__(cache_control=cache_control)
        self.memory = _checked(memory, type(self).__name__)
        self.skills_writable = bool(skills_writable)

    async def _send(self, command: Any) -> str:
        tool_input = _tool_input(command)
        return await anyio.to_thread.run_sync(_run, self.memory, tool_input, self.skills_writable)

    async def call(self, input: object) -> BetaFunctionToolResultType:
        if not isinstance(input, Mapping):
            return await self._send(input)
        return await super().call(input)

    async def execute(self, command: BetaMemoryTool20250818Command) -> BetaFunctionToolResultType:
        if getattr(command, "command", None) not in COMMANDS:
            return await self._send(command)
        return await super().execute(command)

    async def view(self, command: BetaMemoryTool20250818ViewCommand) -> str:
        return await self._send(command)

    async def create(self, command: BetaMemoryTool20250818CreateCommand) -> str:
        return await self._send(command)

    async def str_replace(self, command: BetaMemoryTool20250818StrReplaceCommand) -> str:
        return await self._send(command)

    async def insert(self, command: BetaMemoryTool20250818InsertCommand) -> str:
        return await self._send(command)

    async def delete(self, command: BetaMemoryTool20250818DeleteCommand) -> str:
        return await self._send(command)

    async def rename(self, command: BetaMemoryTool20250818RenameCommand) -> str:
        return await self._send(command)

    async def clear_all_memory(self) -> str:
        """Refused, as :meth:`MemdirMemoryTool.clear_all_memory`."""
        raise NotImplementedError(_CLEAR_REFUSED)
