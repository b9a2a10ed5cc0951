//! The lint of the root's `LEARNINGS.md`: its findings as a store's.

use std::collections::BTreeSet;

use super::super::files::learnings::{self as files, LEARNINGS_FILE};
use super::super::limits::STORE_BYTES;
use super::super::root::Store;
use super::{Finding, FindingKind, Lines, Lint, Severity, scanned};
use crate::error::Result;

/// The findings of the root's `LEARNINGS.md` (none without one), as a
/// store's: conflict markers, a learning twice, a threat or a secret, a
/// metadata comment memdir cannot read, control characters, a pair a merge
/// kept (`conflict=`), and the file over its budget. Their `file` is
/// `LEARNINGS.md`, their id the learning's.
pub(crate) fn findings(store: &Store) -> Result<Vec<Finding>> {
    let disk = store.disk();
    let mut lint = Lint {
        owner: "",
        root: store.root(),
        git: Some(None),
        findings: Vec::new(),
    };
    let Some(root) = disk.open_root(store.root())? else {
        return Ok(Vec::new());
    };
    let src = match disk.read_text(&root, LEARNINGS_FILE, STORE_BYTES) {
        Ok(Some(src)) => src,
        Ok(None) => return Ok(Vec::new()),
        Err(e) => {
            lint.unreadable(LEARNINGS_FILE, &e);
            return Ok(lint.findings);
        }
    };
    let (doc, items) = files::items(&src, true);
    let file = LEARNINGS_FILE;
    lint.conflicts(file, &doc.conflicts);
    let mut seen = BTreeSet::new();
    let mut live = Vec::new();
    let lines = Lines::new(&src);
    for item in &items {
        let e = &doc.entries[item.index];
        if doc.conflicts.iter().any(|c| c.overlaps(&e.item)) {
            continue;
        }
        let line = lines.of(e.item.start);
        let id = item.id.as_str();
        live.push(item.text.as_str());
        if !seen.insert(id) {
            lint.push(
                Severity::Error,
                FindingKind::DuplicateEntry,
                (file, Some(line), Some(id)),
                "the same learning again".into(),
                "delete one copy by hand (every agent's snapshot shows it twice meanwhile)",
            );
        }
        scanned(&mut lint, file, line, id, &item.text);
        let text = &item.text;
        if text.contains("<!--") && !text[text.find("<!--").unwrap_or(0)..].contains("-->") {
            lint.push(
                Severity::Error,
                FindingKind::MalformedMetadata,
                (file, Some(line), Some(id)),
                "an HTML comment that is never closed (`<!--` without `-->`)".into(),
                "close the comment with `-->` or delete it",
            );
        }
        if item
            .text
            .chars()
            .any(|c| c.is_control() && c != '\t' && c != '\n')
        {
            lint.push(
                Severity::Warning,
                FindingKind::ControlCharacters,
                (file, Some(line), Some(id)),
                "control characters in the text (the snapshot shows them escaped)".into(),
                "rewrite the learning without them",
            );
        }
        if let Some(value) = &item.meta.conflict {
            lint.push(
                Severity::Warning,
                FindingKind::MergeConflictPair,
                (file, Some(line), Some(id)),
                format!(
                    "one of two versions a merge kept of the learning {value}, edited on both sides"
                ),
                "keep one version (`memdir --person P learnings retire ID` the other) or delete the \
                 `conflict=` marks by hand to keep both",
            );
        }
    }
    let used = crate::edit::used_chars(live);
    let limit = files::budget(store.settings());
    if used > limit {
        lint.push(
            Severity::Warning,
            FindingKind::OverBudget,
            (file, None, None),
            format!("{used} of {limit} characters: over the budget (the snapshot cuts it, marked)"),
            "retire learnings until it fits (`memdir --person P learnings`)",
        );
    }
    lint.findings.sort_by_key(|f| (f.severity, f.line));
    Ok(lint.findings)
}
