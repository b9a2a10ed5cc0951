#!/bin/sh
# memdir's Claude Code plugin: the MCP server and the session hooks, one
# command each:
#   mcp     memdir's MCP server for this session (`memdir mcp`; the session's
#           writes go into its run)
#   begin   SessionStart (startup, clear): begin the session's run and print
#           its frozen snapshot, which Claude Code gives the session as context
#   again   SessionStart (resume, compact): print the same snapshot again;
#           no new run
#   finish  SessionEnd: finish the session's run
#
# The memory root, the owner and the memdir command come from the plugin's
# options (CLAUDE_PLUGIN_OPTION_* in a hook; the MCP entry passes them as
# MEMDIR_PLUGIN_*), else from MEMDIR_ROOT, MEMDIR_OWNER and memdir on PATH.
# The session is Claude Code's CLAUDE_CODE_SESSION_ID, which it exports to
# both its hooks and its MCP servers.
set -u

root="${CLAUDE_PLUGIN_OPTION_ROOT:-${MEMDIR_PLUGIN_ROOT:-}}"
owner="${CLAUDE_PLUGIN_OPTION_OWNER:-${MEMDIR_PLUGIN_OWNER:-}}"
memdir="${CLAUDE_PLUGIN_OPTION_MEMDIR:-${MEMDIR_PLUGIN_BIN:-}}"
[ -n "$root" ] && export MEMDIR_ROOT="$root"
[ -n "$owner" ] && export MEMDIR_OWNER="$owner"
[ -n "$memdir" ] || memdir=memdir
session="${CLAUDE_CODE_SESSION_ID:-}"

fail() {
  echo "memdir plugin: $*" >&2
  exit 1
}

case "$session" in
  "" | *[!A-Za-z0-9._-]*) fail "no usable CLAUDE_CODE_SESSION_ID (\"$session\")" ;;
esac
[ -n "${MEMDIR_OWNER:-}" ] || fail "no owner: set the plugin's owner option or MEMDIR_OWNER"

# Prints the context Claude Code gives the session: a line on what it is,
# then the snapshot ($1: which snapshot, $2: its text).
context() {
  printf '%s\n\n%s\n' \
    "memdir memory of $MEMDIR_OWNER, $1. Use the memdir tool \`memory\` to recall it fresh or to remember what the user asks you to keep." \
    "$2"
}

begin() {
  # `run begin` prints the run's id, then its frozen snapshot.
  out="$("$memdir" run begin --session "$session")" || exit 1
  context "frozen when this session began" "$(printf '%s\n' "$out" | sed 1d)"
}

case "${1:-}" in
  mcp)
    export MEMDIR_SESSION="$session"
    exec "$memdir" mcp
    ;;
  begin)
    begin
    ;;
  again)
    # The snapshot the session's newest run began with, finished or not
    # (SessionEnd finishes it; a resumed session reads it again). A session
    # memdir never saw (the plugin came later) begins its run now.
    if out="$("$memdir" snapshot --session "$session" 2>/dev/null)"; then
      context "the same snapshot this session began with" "$out"
    else
      begin
    fi
    ;;
  finish)
    # A session whose run is finished already (a resumed one) has none open:
    # memdir's run_not_found, nothing to do.
    out="$("$memdir" --json run finish --session "$session")" && exit 0
    case "$out" in
      *'"code":"run_not_found"'*) exit 0 ;;
    esac
    printf '%s\n' "$out" >&2
    exit 1
    ;;
  *)
    fail "usage: memdir.sh mcp|begin|again|finish"
    ;;
esac
