"""The provider's tools: their schemas (the MCP server's argument names) and
the MCP call each one is."""

from __future__ import annotations

from typing import Any, Dict, List, Mapping, Optional, Tuple


class _ToolArgError(Exception):
    """A tool argument that is missing or wrong (worded as the MCP server
    words it)."""


def _str_arg(args: Mapping[str, Any], key: str, tool: str) -> str:
    v = args.get(key)
    if not isinstance(v, str) or not v:
        raise _ToolArgError(f"{key} is required for {tool}")
    return v


#: Each Hermes tool: the MCP tool it is, and the argument names it passes on.
_MCP_TOOLS: Dict[str, Tuple[str, Optional[str], Tuple[str, ...]]] = {
    "search_runs": ("memory", "search_runs", ("query", "limit")),
    "get_run": ("memory", "get_run", ("run_id",)),
    "propose": ("memory", "propose", ("text",)),
    "get_result": ("get_result", None, ("workflow_id", "execution_id", "task_id")),
    "put_result": ("put_result", None, ("workflow_id", "task_id", "content", "content_type", "allow_empty")),
    "learn": ("learn", None, ("action", "name", "content", "source", "description", "replace")),
}


def _mcp_arguments(name: str, args: Mapping[str, Any]) -> Tuple[str, Dict[str, Any]]:
    """The MCP tool and arguments of a Hermes tool call (the identity is the
    server's, never an argument's)."""
    tool, action, names = _MCP_TOOLS[name]
    out: Dict[str, Any] = {k: args[k] for k in names if k in args and args[k] is not None}
    if action is not None:
        out["action"] = action
    return tool, out


def _schema(name: str, description: str, properties: Dict[str, Any], required: List[str]) -> Dict[str, Any]:
    return {
        "name": name,
        "description": description,
        "parameters": {"type": "object", "properties": properties, "required": required},
    }


TOOL_SCHEMAS: List[Dict[str, Any]] = [
    _schema(
        "search_runs",
        "Search memdir's run journal (what past runs did, day lines) for a query; best matches first.",
        {
            "query": {"type": "string", "description": "What to look for."},
            "limit": {"type": "integer", "description": "At most this many lines (default 20)."},
        },
        ["query"],
    ),
    _schema(
        "get_run",
        "One past run: its record, journal lines, steps and the snapshot it started with.",
        {"run_id": {"type": "string", "description": "The run id."}},
        ["run_id"],
    ),
    _schema(
        "get_result",
        "A task's stored result (SharedMemory), or without task_id the workflow's steps. 'not ready: still running, poll' when a known workflow has not stored it yet.",
        {
            "workflow_id": {"type": "string", "description": "The workflow (run) id."},
            "execution_id": {"type": "string", "description": "Same as workflow_id."},
            "task_id": {"type": "string", "description": "One step of the workflow."},
        },
        [],
    ),
    _schema(
        "put_result",
        "Store a task's result under (workflow_id, task_id) for later steps or runs; the same content again is 'already stored'.",
        {
            "workflow_id": {"type": "string", "description": "The workflow (run) id."},
            "task_id": {"type": "string", "description": "The task id."},
            "content": {"type": "string", "description": "The content (text)."},
            "content_type": {"type": "string", "description": "Its MIME type (default text/plain)."},
            "allow_empty": {"type": "boolean", "description": "Store an empty content (else refused)."},
        },
        ["workflow_id", "task_id", "content"],
    ),
    _schema(
        "learn",
        "Learned skills, private to this agent: learn (save content as the skill name; this agent's later sessions start with it in their memdir block), list, show, forget.",
        {
            "action": {"type": "string", "enum": ["learn", "list", "show", "forget"], "description": "Default learn."},
            "name": {"type": "string", "description": "The skill's name, an id such as cnl-debugging."},
            "content": {"type": "string", "description": "The skill's markdown (also accepted as source)."},
            "source": {"type": "string", "description": "Same as content."},
            "description": {"type": "string", "description": "One line on what the skill is for."},
            "replace": {"type": "boolean", "description": "Replace a different skill of the same name."},
        },
        [],
    ),
    _schema(
        "propose",
        "Propose a learning: a fact every agent needs. It waits for a person's approval and changes no prompt until then.",
        {"text": {"type": "string", "description": "The learning's text (a fact, not an instruction)."}},
        ["text"],
    ),
]
