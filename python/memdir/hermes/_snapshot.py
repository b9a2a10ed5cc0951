"""The prompt block's one edit of the run's snapshot: leaving out the
entries Hermes's own MEMORY/USER block already shows, so each fact is once
in the assembled prompt. The snapshot's text format is docs/FORMAT.md's,
"Snapshots"."""

from __future__ import annotations

from typing import List, Tuple

_ESCAPED = ("#", "[BLOCKED:", "[OVER BUDGET:", "[CONFLICT:")


def _unrender(lines: List[str]) -> str:
    """An entry's text from its snapshot lines (``- first``, ``  more``), the
    backslash memdir puts before a marker-like line taken off."""
    out = []
    for i, line in enumerate(lines):
        body = line[2:] if i == 0 else (line[2:] if line.startswith("  ") else line)
        stripped = body.lstrip(" ")
        pad = body[: len(body) - len(stripped)]
        if stripped.startswith("\\") and stripped[1:].startswith(_ESCAPED):
            body = pad + stripped[1:]
        out.append(body)
    return "\n".join(out)


def filter_snapshot(text: str, known: "set[str]") -> Tuple[str, int]:
    """The snapshot ``text`` without the USER.md and MEMORY.md entries whose
    text is in ``known`` (what Hermes's own block shows); returns the text and
    how many entries were left out. Other sections (learnings, skills) are
    kept whole."""
    if not known:
        return text, 0
    lines = text.split("\n")
    out: List[str] = []
    dropped = 0
    in_store = False
    kept_in_section = 0
    item: List[str] = []
    section_dropped = 0

    def flush_item() -> None:
        nonlocal item, dropped, kept_in_section, section_dropped
        if not item:
            return
        if _unrender(item).strip() in known:
            dropped += 1
            section_dropped += 1
        else:
            out.extend(item)
            kept_in_section += 1
        item = []

    def end_section() -> None:
        nonlocal section_dropped, kept_in_section
        flush_item()
        if in_store and section_dropped and not kept_in_section:
            # Keep the section readable: it is not empty, its entries are
            # in Hermes's block.
            while out and out[-1] == "":
                out.pop()
            out.append("(its entries are in the memory block above)")
            out.append("")
        section_dropped = 0
        kept_in_section = 0

    for line in lines:
        if line.startswith("## "):
            end_section()
            in_store = line.startswith("## USER.md") or line.startswith("## MEMORY.md")
            out.append(line)
            continue
        if in_store:
            if line.startswith("- "):
                flush_item()
                item = [line]
                continue
            if item and line.startswith("  "):
                item.append(line)
                continue
            flush_item()
            if line:
                kept_in_section += 1
        out.append(line)
    end_section()
    result = "\n".join(out)
    if text.endswith("\n") and not result.endswith("\n"):
        result += "\n"
    return result, dropped
