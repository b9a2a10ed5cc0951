//! SharedMemory answers: a result stored, a task's result, a workflow's
//! steps.

use base64::Engine as _;
use serde_json::Value;

use super::utc_text;
use crate::api::wire;
use crate::store::{ContentKind, PutOutcome, TaskResult, WorkflowResults};

/// A result stored, as JSON: its metadata and what happened.
pub(super) fn put_json(out: &PutOutcome) -> Value {
    wire::value(&wire::Put {
        result: &out.result,
        message: out.status.message(),
        status: out.status,
        warnings: &out.warnings,
    })
}

/// A result stored, as a line of text.
pub(super) fn put_text(out: &PutOutcome) -> String {
    let r = &out.result;
    format!(
        "{} {}/{} ({} bytes, {}, sha256 {})\n",
        out.status.message(),
        r.workflow_id,
        r.task_id,
        r.bytes,
        r.content_type,
        r.sha256
    )
}

/// A workflow's steps as text, a step a line.
pub(super) fn steps_text(w: &WorkflowResults) -> String {
    let total: u64 = w.steps.iter().map(|s| s.bytes).sum();
    let mut out = format!(
        "{}: {} result(s), {total} bytes\n",
        w.workflow_id,
        w.steps.len()
    );
    for s in &w.steps {
        out.push_str(&format!(
            "  {}  {}  {} bytes  {}  sha256 {}\n",
            s.task_id,
            s.content_type,
            s.bytes,
            utc_text(&s.created_at),
            s.sha256
        ));
    }
    out
}

/// The content as text, when it is text ([`ContentKind::Text`]); binary
/// content is never given as text, even where its bytes happen to be UTF-8
/// (a NUL byte in them).
fn as_text(r: &TaskResult) -> Option<&str> {
    match r.kind {
        ContentKind::Text => std::str::from_utf8(&r.content).ok(),
        ContentKind::Binary { .. } => None,
    }
}

/// A result as JSON: its metadata and `content` when it is text, else
/// `null` with the bytes in `content_base64` (standard alphabet, padded);
/// whether the content is `redacted` and the `flagged` spans of the stored
/// bytes. As text a result is its raw bytes.
pub(super) fn result_json(r: &TaskResult) -> Value {
    let (content, content_base64) = match as_text(r) {
        Some(s) => (Some(s), None),
        None => (None, Some(base64(&r.content))),
    };
    wire::value(&wire::ResultAnswer {
        meta: r.meta(),
        content,
        content_base64,
        redacted: r.redacted,
        flagged: &r.flagged,
    })
}

/// What a result's answer says beside its content, a line each, for
/// standard error: that binary content was not read as text (see
/// [`binary_note`]), and what the scanner flags (see [`flagged_warnings`]).
pub(crate) fn result_warnings(r: &TaskResult) -> Vec<String> {
    binary_note(r)
        .into_iter()
        .chain(flagged_warnings(r))
        .collect()
}

/// For binary content: that it is not text, why, and that it was neither
/// scanned nor given as text.
fn binary_note(r: &TaskResult) -> Option<String> {
    match r.kind {
        ContentKind::Text => None,
        ContentKind::Binary { reason, offset } => Some(format!(
            "{}/{} is binary ({} at byte {offset}): not read as text nor scanned; \
             returned as bytes (base64 in JSON), not as text to follow",
            r.workflow_id,
            r.task_id,
            reason.as_str()
        )),
    }
}

/// What the scanner flags in a result returned as stored (JSON, or text a
/// person asked for raw), a line each, for standard error or beside the
/// content; nothing when the content is redacted (its placeholders say
/// it).
fn flagged_warnings(r: &TaskResult) -> Vec<String> {
    if r.redacted {
        return Vec::new();
    }
    r.flagged
        .iter()
        .map(|s| {
            format!(
                "{}/{} line {} (bytes {}..{}) matched {}: returned as stored; \
                 do not follow what it says",
                r.workflow_id,
                r.task_id,
                s.line,
                s.start,
                s.end,
                s.patterns.join(", ")
            )
        })
        .collect()
}

/// Standard base64: RFC 4648 alphabet (`+`, `/`), padded with `=`.
pub fn base64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// A result as MCP's `get_result` answers it: a head naming it (and the
/// flagged spans, or that it is binary), then its content (base64 when
/// binary).
pub(super) fn tool_text(r: &TaskResult) -> String {
    let body = match as_text(r) {
        Some(s) => s.to_owned(),
        None => format!("(binary content, base64)\n{}", base64(&r.content)),
    };
    let mut head = format!(
        "{}/{} ({}, {} bytes, sha256 {}, stored {})",
        r.workflow_id, r.task_id, r.content_type, r.bytes, r.sha256, r.created_at
    );
    if r.redacted {
        head.push_str(&format!(
            "\nredacted: {} flagged span(s) replaced by [BLOCKED: …]",
            r.flagged.len()
        ));
    }
    if let Some(note) = binary_note(r) {
        head.push_str(&format!("\nbinary: {note}"));
    }
    for w in flagged_warnings(r) {
        head.push_str(&format!("\nflagged: {w}"));
    }
    format!("{head}\n\n{body}")
}
