//! The checks an edit makes: entry text (not empty, not too long, clean of
//! threat and secret patterns), and finding the one entry a query names.

use crate::error::{EntryBrief, Error, Result};
use crate::markdown::splice::normalize_text;
use crate::markdown::{Document, Entry};
use crate::model::{Scope, fold_whitespace, is_entry_id};
use crate::scan::{self, Family};

/// Longest entry text, in characters.
pub const MAX_TEXT_CHARS: usize = 500;

/// Checks and normalises entry text: not empty, at most 500 characters, and
/// clean of threat and secret patterns.
pub(crate) fn check_text(text: &str) -> Result<String> {
    let text = normalize_text(text);
    if text.is_empty() {
        return Err(Error::TextEmpty);
    }
    let chars = text.chars().count();
    if chars > MAX_TEXT_CHARS {
        return Err(Error::TextTooLong {
            chars,
            limit: MAX_TEXT_CHARS,
        });
    }
    check_controls(&text)?;
    refuse_flagged(&text)?;
    Ok(text)
}

/// Whether `c` is a control character text may not carry: C0 but tab and
/// line feed, DEL, and C1 (which covers terminal escape sequences, all of
/// which start with ESC or CSI).
pub(crate) fn is_forbidden_control(c: char) -> bool {
    (c < ' ' && c != '\t' && c != '\n') || ('\u{7f}'..='\u{9f}').contains(&c)
}

/// `text` with every control character a write would refuse shown as an
/// escape (`\u{1B}`): how text a person wrote by hand reaches a prompt.
pub fn escape_controls(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.chars().any(is_forbidden_control) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if is_forbidden_control(c) {
            out.push_str(&format!("\\u{{{:X}}}", u32::from(c)));
        } else {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}

/// `text`'s first line as a one-line preview: control characters escaped
/// (as [`escape_controls`] shows them), at most `max` characters, ending
/// in an ellipsis (`…`) where anything was left out (the rest of the line,
/// or lines after it).
pub fn one_line(text: &str, max: usize) -> String {
    let first = text.split('\n').next().unwrap_or("");
    let more = first.len() < text.len();
    let shown = escape_controls(first);
    let n = shown.chars().count();
    if n <= max && !more {
        return shown.into_owned();
    }
    let kept: String = shown.chars().take(n.min(max.saturating_sub(1))).collect();
    format!("{}…", kept.trim_end())
}

/// Refuses text with control characters ([`Error::TextInvalid`], naming the
/// first few).
pub(crate) fn check_controls(text: &str) -> Result<()> {
    let found: Vec<String> = text
        .chars()
        .enumerate()
        .filter(|(_, c)| is_forbidden_control(*c))
        .take(3)
        .map(|(i, c)| format!("U+{:04X} at character {}", u32::from(c), i + 1))
        .collect();
    if found.is_empty() {
        Ok(())
    } else {
        Err(Error::TextInvalid {
            found: found.join(", "),
        })
    }
}

/// An entry's text as an answer may echo it: `text`, or the `[BLOCKED: …]`
/// placeholder when the scanner flags the entry.
fn safe_text(scope: Scope, e: &Entry, text: String) -> String {
    let findings = scan::scan(&e.text);
    if findings.is_empty() {
        text
    } else {
        scan::blocked_placeholder(scope, &e.id, &findings)
    }
}

/// The entries as an error answer lists them (flagged entries as placeholders).
pub(crate) fn briefs(doc: &Document, scope: Scope) -> Vec<EntryBrief> {
    doc.entries
        .iter()
        .map(|e| EntryBrief {
            id: e.id.clone(),
            text: safe_text(scope, e, e.text.clone()),
            file: scope.file_name(),
            expired: false,
        })
        .collect()
}

fn preview(text: &str) -> String {
    let one_line = fold_whitespace(text);
    if one_line.chars().count() <= 60 {
        one_line
    } else {
        let cut: String = one_line.chars().take(57).collect();
        format!("{cut}...")
    }
}

/// Finds the one entry `query` names: an exact `mem_` id, else a substring of
/// exactly one entry's text (entries with the same id count once).
pub(crate) fn find(doc: &Document, scope: Scope, query: &str) -> Result<usize> {
    let not_found = || Error::NotFound {
        file: scope.file_name(),
        query: query.to_owned(),
        elsewhere: None,
        entries: briefs(doc, scope),
    };
    if is_entry_id(query) {
        return doc
            .entries
            .iter()
            .position(|e| e.id == query)
            .ok_or_else(not_found);
    }
    if query.trim().is_empty() {
        return Err(not_found());
    }
    let hits: Vec<(usize, &Entry)> = doc
        .entries
        .iter()
        .enumerate()
        .filter(|(_, e)| e.text.contains(query))
        .collect();
    match hits.as_slice() {
        [] => Err(not_found()),
        [(i, first), rest @ ..] if rest.iter().all(|(_, e)| e.id == first.id) => Ok(*i),
        _ => {
            let mut candidates: Vec<EntryBrief> = Vec::new();
            for (i, e) in hits {
                if !candidates.iter().any(|c| c.id == e.id) {
                    candidates.push(candidate(doc, scope, i));
                }
            }
            Err(Error::AmbiguousMatch {
                file: scope.file_name(),
                query: query.to_owned(),
                candidates,
            })
        }
    }
}

/// Entry `i` of `doc` as a list of matches shows it: its id, store and a
/// short preview (a placeholder when the scanner flags it).
pub(crate) fn candidate(doc: &Document, scope: Scope, i: usize) -> EntryBrief {
    let e = &doc.entries[i];
    EntryBrief {
        id: e.id.clone(),
        text: safe_text(scope, e, preview(&e.text)),
        file: scope.file_name(),
        expired: false,
    }
}

/// Refuses text the scanner flags: a threat (`memory_threat_blocked`)
/// before a secret (`secret_in_memory`), each naming its patterns.
pub(crate) fn refuse_flagged(text: &str) -> Result<()> {
    let findings = scan::scan(text);
    let of = |family| {
        let f: Vec<_> = findings
            .iter()
            .filter(|f| f.family == family)
            .cloned()
            .collect();
        (!f.is_empty()).then(|| scan::pattern_list(&f))
    };
    if let Some(patterns) = of(Family::Threat) {
        return Err(Error::ThreatBlocked { patterns });
    }
    if let Some(patterns) = of(Family::Secret) {
        return Err(Error::SecretInMemory { patterns });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_line_keeps_a_short_line_and_cuts_the_rest_with_an_ellipsis() {
        assert_eq!(one_line("Deploys need the VPN", 80), "Deploys need the VPN");
        assert_eq!(one_line("first line\nsecond line", 80), "first line…");
        let long = "word ".repeat(30);
        let cut = one_line(&long, 80);
        assert_eq!(cut.chars().count(), 80, "{cut}");
        assert!(cut.ends_with("word…"), "{cut}");
        // Exactly the bound: kept whole.
        let exact = "é".repeat(80);
        assert_eq!(one_line(&exact, 80), exact);
        assert_eq!(
            one_line(&"é".repeat(81), 80),
            format!("{}…", "é".repeat(79))
        );
    }

    #[test]
    fn one_line_escapes_control_characters() {
        assert_eq!(
            one_line("red \u{1b}[31malert\u{7}", 80),
            "red \\u{1B}[31malert\\u{7}"
        );
        assert!(
            !one_line("a\rb\u{9b}c", 80)
                .chars()
                .any(is_forbidden_control)
        );
    }
}
