//! A person's word on the command line (docs/SECURITY.md, Persons): the
//! question a person answers on the controlling terminal before a command
//! acts as that person — the person, the agent, the command line, and each
//! fact and learning the command names with its text as the files hold it
//! — and the key file automation names instead (`--key-file`, checked
//! against the account's own keys file). The terminal itself is the
//! command line's (`cli::confirm`): this module reads the files the
//! question shows and words it; it answers no agent.

use std::path::Path;

use super::{Request, Who};
use crate::edit::Op;
use crate::error::Result;
use crate::model::{Caller, is_entry_id, validate_id};
use crate::store::{Owner, Store};

/// The most characters of one text the question shows.
const SHOWN_CHARS: usize = 600;
/// The most operations of a batch the question lists.
const SHOWN_OPS: usize = 20;

/// The words a person answers to confirm ("y" or "yes", any case).
pub const YES: [&str; 2] = ["y", "yes"];

/// What a person is asked before a command acts as that person. Its text
/// ends with `[y/N] `, the question's one answer prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Question {
    text: String,
}

impl Question {
    /// The question as the terminal shows it (every control, format and
    /// bidi character of a file's text shown as an escape, so no text can
    /// move the cursor or reorder what the person reads).
    pub fn text(&self) -> &str {
        &self.text
    }
}

/// Whether `answer` (a line read from the terminal) says yes.
pub fn is_yes(answer: &str) -> bool {
    let a = answer.trim();
    YES.iter().any(|y| a.eq_ignore_ascii_case(y))
}

/// The person whose key the file `key_file` holds (`--key-file`): a live
/// person's key of the account's own keys file (never one the caller
/// chose), of `person` when one is named, allowed by every `persons`
/// binding; otherwise `person_unconfirmed` (`key_refused`). A key file
/// another user may read or write is refused (`invalid_config`).
pub fn key_file(store: &Store, key_file: &Path, person: Option<&str>) -> Result<String> {
    crate::store::keys::person_key(store, key_file, person)
}

/// The question for `who` (a person) about to send `request` (none for
/// the commands that are no request: `key create`, `mcp`), as `command`
/// (the command line's words) asks. The person is checked first: a valid
/// id every `persons` binding allows (else `invalid_id`,
/// `person_not_allowed`), so that no one is asked to act as a person the
/// machine refuses. What the request names is looked up in the named
/// agent's memory and the root's learnings; what cannot be read there is
/// shown as not found, and the command, once confirmed, answers with its
/// own error. Reads only.
pub fn question(
    store: &Store,
    who: &Who,
    request: Option<&Request>,
    command: &str,
) -> Result<Question> {
    let person = who.caller.id();
    validate_id("person", person)?;
    store.allow_person(person)?;
    let mut lines = vec![
        "memdir asks whoever is at this terminal: is this a person's word?".to_owned(),
        format!("  as person:  {}", shown(person)),
    ];
    let owner = match &who.named {
        Some(agent) => {
            lines.push(format!("  on agent:   {}", shown(agent)));
            who.owner(store).ok()
        }
        None => None,
    };
    lines.push(format!("  command:    {}", shown(command)));
    if let Some(request) = request {
        let mut named = Vec::new();
        names(request, &mut named);
        for n in named.iter().take(SHOWN_OPS * 2) {
            lines.push(describe(store, owner.as_ref(), &who.caller, n));
        }
        if named.len() > SHOWN_OPS * 2 {
            lines.push(format!("  … and {} more", named.len() - SHOWN_OPS * 2));
        }
    }
    lines.push(format!("Act as person {}? [y/N] ", shown(person)));
    Ok(Question {
        text: lines.join("\n"),
    })
}

/// What a request names that the question shows.
enum Named<'a> {
    /// A fact, by id.
    Fact(&'a str),
    /// A learning or a proposal, by id.
    Learning(&'a str),
    /// A learning approved with edited text.
    Edited(&'a str),
    /// A text a write saves.
    Save(&'a str),
    /// An entry a replace or a removal names by a substring.
    Matching(&'a str),
    /// A write's new text.
    NewText(&'a str),
    /// A write that waits for a person's review, by id.
    Pending(&'a str),
}

/// Each fact, learning and text `request` names, in order.
fn names<'a>(request: &'a Request, out: &mut Vec<Named<'a>>) {
    match request {
        Request::Archive { id, .. }
        | Request::Unarchive { id }
        | Request::Resolve { id, .. }
        | Request::Renew { id, .. }
        | Request::Veto { id, .. } => out.push(Named::Fact(id)),
        Request::Write { op } => op_names(op, out),
        Request::Batch { ops } => ops.iter().take(SHOWN_OPS).for_each(|op| op_names(op, out)),
        Request::InRun { within, .. } => names(within, out),
        Request::Approve { id, text, .. } => {
            out.push(Named::Learning(id));
            if let Some(t) = text {
                out.push(Named::Edited(t));
            }
        }
        Request::Reject { id, .. } | Request::Retire { id, .. } => out.push(Named::Learning(id)),
        Request::PendingApprove { id, text } => {
            out.push(Named::Pending(id));
            if let Some(t) = text {
                out.push(Named::Edited(t));
            }
        }
        Request::PendingReject { id, .. } => out.push(Named::Pending(id)),
        _ => {}
    }
}

/// What one write operation names.
fn op_names<'a>(op: &'a Op, out: &mut Vec<Named<'a>>) {
    let old = |old: &'a str| {
        if is_entry_id(old) {
            Named::Fact(old)
        } else {
            Named::Matching(old)
        }
    };
    match op {
        Op::Add {
            text, supersedes, ..
        } => {
            out.push(Named::Save(text));
            if let Some(id) = supersedes {
                out.push(Named::Fact(id));
            }
        }
        Op::Replace { old: o, new, .. } => {
            out.push(old(o));
            out.push(Named::NewText(new));
        }
        Op::Remove { old: o, .. } => out.push(old(o)),
    }
}

/// One line of the question: what `n` is, with its text as the files hold
/// it (a fact of `owner`'s memory, a learning of the root).
fn describe(store: &Store, owner: Option<&Owner>, caller: &Caller, n: &Named<'_>) -> String {
    match n {
        Named::Fact(id) => match owner.and_then(|o| o.find_fact(id).ok().flatten()) {
            Some((origin, status, text)) => format!(
                "  fact:       {} ({} store, {status}): {}",
                shown(id),
                origin.name(),
                shown(&text)
            ),
            None => format!("  fact:       {} (not found)", shown(id)),
        },
        Named::Learning(id) => {
            let list = store.learnings(caller).ok();
            let found = list
                .iter()
                .flat_map(|l| l.approved.iter().chain(&l.proposals))
                .find(|l| l.id == *id);
            match found {
                Some(l) => format!(
                    "  learning:   {} ({}{}): {}",
                    shown(id),
                    l.status.name(),
                    l.proposed_by
                        .as_deref()
                        .map(|by| format!(", proposed by {}", shown(by)))
                        .unwrap_or_default(),
                    shown(&l.text)
                ),
                None => format!("  learning:   {} (not found)", shown(id)),
            }
        }
        Named::Pending(id) => match owner.and_then(|o| o.pending_write(id).ok()) {
            Some(w) => {
                let mut line = format!(
                    "  waiting:    {} ({}, asked by {})",
                    shown(id),
                    w.status.as_str(),
                    shown(w.by.as_deref().unwrap_or("-"))
                );
                for op in w.operations.iter().take(SHOWN_OPS) {
                    line.push_str(&format!("\n    {}: {}", op.op.as_str(), shown(&op.text)));
                }
                line
            }
            None => format!("  waiting:    {} (not found)", shown(id)),
        },
        Named::Edited(t) => format!("  approved as: {}", shown(t)),
        Named::Save(t) => format!("  saves:      {}", shown(t)),
        Named::Matching(t) => format!("  the entry matching: {}", shown(t)),
        Named::NewText(t) => format!("  new text:   {}", shown(t)),
    }
}

/// `text` as the terminal shows it: at most [`SHOWN_CHARS`] characters,
/// every control, format or bidi character (which could move the cursor,
/// clear the line or reorder what the person reads) as an escape
/// (`\u{1B}`), a line feed too, so the question keeps its lines.
fn shown(text: &str) -> String {
    let mut out = String::new();
    for (i, c) in text.chars().enumerate() {
        if i == SHOWN_CHARS {
            out.push('…');
            break;
        }
        if c.is_control() || is_format(c) {
            out.push_str(&format!("\\u{{{:X}}}", u32::from(c)));
        } else {
            out.push(c);
        }
    }
    out
}

/// Whether `c` is a format character a terminal may act on unseen: soft
/// hyphen, the zero-width and direction marks, the bidi embeddings,
/// overrides and isolates, the line and paragraph separators, the
/// invisible operators, the byte order mark and the interlinear
/// annotation marks.
fn is_format(c: char) -> bool {
    matches!(
        c,
        '\u{AD}'
            | '\u{61C}'
            | '\u{180E}'
            | '\u{200B}'..='\u{200F}'
            | '\u{2028}'..='\u{202E}'
            | '\u{2060}'..='\u{206F}'
            | '\u{FEFF}'
            | '\u{FFF9}'..='\u{FFFB}'
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_question_shows_no_character_a_terminal_acts_on() {
        assert_eq!(shown("plain"), "plain");
        assert_eq!(shown("a\u{1b}[2Kb"), "a\\u{1B}[2Kb");
        assert_eq!(shown("x\ny"), "x\\u{A}y");
        assert_eq!(shown("\u{202E}evil"), "\\u{202E}evil");
        assert_eq!(shown("\u{9b}31m"), "\\u{9B}31m");
        let long = "a".repeat(SHOWN_CHARS + 5);
        assert_eq!(shown(&long).chars().count(), SHOWN_CHARS + 1);
    }

    #[test]
    fn only_yes_confirms() {
        for yes in ["y", "Y", "yes", " YES\n", "y\r\n"] {
            assert!(is_yes(yes), "{yes:?}");
        }
        for no in ["", "n", "no", "yy", "ye", "sure", "y y", "\u{1b}y"] {
            assert!(!is_yes(no), "{no:?}");
        }
    }
}
