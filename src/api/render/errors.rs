//! Errors as the command line and the MCP tools show them: the JSON object,
//! or `error[code]: message` and the entries a refused write lists. Each is
//! [`AgentText`]: the message and the entries pass the guard
//! (`api::guard::error`).

use super::line;
use crate::api::errors::{ErrorBody, Surface, message};
use crate::api::guard::AgentText;
use crate::api::guard::error::{guarded_entries, guarded_message, text_of};
use crate::api::wire::Failure;
use crate::error::Error;

/// An error as one line of JSON: `{"error":{"code","status","message",…}}`.
pub fn error_json(e: &Error) -> AgentText {
    text_of(line(&Failure {
        error: &ErrorBody::of(e, Surface::Cli),
    }))
}

/// An error's first line, `error[code]: message`, without the entries a
/// refused write lists after it (a surface that lists them in a form of its
/// own starts from this).
pub fn error_head(e: &Error, surface: Surface) -> AgentText {
    text_of(head(e, surface))
}

fn head(e: &Error, surface: Surface) -> String {
    format!(
        "error[{}]: {}\n",
        e.code(),
        guarded_message(e, message(e, surface))
    )
}

/// An error as text: `error[code]: message`, then the current entries where
/// the error lists them (so the caller can retry with an exact id).
pub fn error_text(e: &Error, surface: Surface) -> AgentText {
    let mut msg = head(e, surface);
    if let Error::OverBudget { entries, .. } | Error::NotFound { entries, .. } = e {
        let entries = guarded_entries(entries);
        // The entries of both stores (nothing was named) under their file.
        let both = entries.iter().any(|b| b.file != entries[0].file);
        for (i, b) in entries.iter().enumerate() {
            if both && (i == 0 || entries[i - 1].file != b.file) {
                msg.push_str(&format!("  {}:\n", b.file));
            }
            let mark = if b.expired {
                "  [expired: removing it frees nothing]"
            } else {
                ""
            };
            msg.push_str(&format!(
                "  {}  {}{mark}\n",
                b.id,
                b.text.replace('\n', "\n                    ")
            ));
        }
    }
    text_of(msg)
}
