//! Errors on their way to a caller: a message may quote what a file holds
//! (a root `memdir.yaml` setting, a run record's field, a result's header,
//! an entry a refused write lists), so every rendering of an error passes
//! here. The message names the file, the line and the key; a value it
//! shows that the scanner flags is its `[BLOCKED: …]` placeholder. Codes
//! and the program's own words are unchanged.
//!
//! Pure: no I/O.

use serde_json::Value;

use super::{AgentText, lines, text};
use crate::error::{EntryBrief, Error};

/// An error's message (as `api::errors::message` words it for a surface),
/// guarded.
pub(crate) fn guarded_message(e: &Error, mut message: String) -> String {
    lines(&mut message, &format!("the message of error {}", e.code()));
    message
}

/// The entries a refused write lists, guarded.
pub(crate) fn guarded_entries(entries: &[EntryBrief]) -> Vec<EntryBrief> {
    entries
        .iter()
        .map(|b| {
            let mut b = b.clone();
            text(&mut b.text, &format!("{} entry {}", b.file, b.id));
            b
        })
        .collect()
}

/// Every string of a JSON value passes the scanner: an error's details,
/// the program's own JSON.
pub(crate) fn guard_value(v: &mut Value, what: &str) {
    match v {
        Value::String(s) => lines(s, what),
        Value::Array(a) => a.iter_mut().for_each(|x| guard_value(x, what)),
        Value::Object(o) => {
            for (k, x) in o.iter_mut() {
                guard_value(x, &format!("{what} {k}"));
            }
        }
        Value::Null | Value::Bool(_) | Value::Number(_) => {}
    }
}

/// Text an error renders to: made from its guarded parts.
pub(crate) fn text_of(s: String) -> AgentText {
    AgentText::made(s.into_bytes())
}
