//! Target `markdown_splice`: parsing a store and editing it through the
//! path every write takes (`edit::apply`, which splices).
//!
//! Input: a control byte (bit 0: the store; bits 1–2: the edit), a byte
//! picking an entry, the store's source (a field, at most 64 KiB), then the
//! text of an add or replace.

use std::path::Path;

use super::{Input, change, expect_code, in_bounds, line_start, next_line, now, truncate};
use crate::edit::{
    self, Applied, Change, EditContext, MAX_BUDGET, MIN_BUDGET, Op, check_text, used_live,
};
use crate::markdown::splice::normalize_text;
use crate::markdown::{BOM, Document, META_PREFIX, parse, parse_without_ids};
use crate::model::{Caller, Meta, Scope, Settings, entry_id};

/// Largest source the target parses.
const MAX_SOURCE_BYTES: usize = 64 * 1024;

/// The agent the target writes as.
const AGENT: &str = "agt_fuzz";

/// Codes an edit may be refused with whatever it is: a conflicted file,
/// an unreadable front matter, an edit with no place, a budget.
const ANY_EDIT: [&str; 4] = [
    "memory_conflicted",
    "invalid_config",
    "memory_unplaceable",
    "memory_over_budget",
];

/// Parses the source, checks the parse, applies one edit through
/// `edit::apply` and checks what it wrote: only the entry's bytes changed,
/// and the result parses to the entries expected.
pub fn markdown_splice(data: &[u8]) {
    let mut input = Input::new(data);
    let control = input.byte();
    let pick = usize::from(input.byte());
    let src = truncate(input.field(), MAX_SOURCE_BYTES);
    let text = input.rest();
    let scope = if control & 1 == 0 {
        Scope::Memory
    } else {
        Scope::User
    };
    let doc = parse(scope, &src);
    check_parse(scope, &src, &doc);

    let mut root = Settings::default();
    root.budgets.memory = Some(MAX_BUDGET as i64);
    root.budgets.user = Some(MAX_BUDGET as i64);
    let owner = Settings::default();
    let caller = Caller::Agent(AGENT.to_owned());
    let cx = EditContext {
        scope,
        caller: &caller,
        run: None,
        now: now(),
        root: &root,
        settings: &owner,
        path: Path::new(scope.file_name()),
        detail: true,
    };
    let n = doc.entries.len();
    match (control >> 1) & 3 {
        1 if n > 0 => replace(&cx, &src, &doc, pick % n, &text),
        2 if n > 0 => remove(&cx, &src, &doc, pick % n),
        _ => add(&cx, &src, &doc, &text),
    }
}

/// The parse's own properties: deterministic, ranges in bounds and on
/// character boundaries, entries in order and apart, each id the hash of
/// its text, the metadata comment closing its item.
fn check_parse(scope: Scope, src: &str, doc: &Document) {
    assert_eq!(&parse(scope, src), doc, "a second parse differs");
    let plain = parse_without_ids(src);
    assert_eq!(plain.entries.len(), doc.entries.len(), "parse without ids");
    for (a, b) in plain.entries.iter().zip(&doc.entries) {
        assert!(
            a.id.is_empty() && a.text == b.text && a.item == b.item && a.meta == b.meta,
            "parse without ids differs: {a:?} vs {b:?}"
        );
    }
    assert_eq!(doc.bom, src.starts_with(BOM), "bom");
    assert!(matches!(doc.eol, "\n" | "\r\n" | "\r"), "eol {:?}", doc.eol);
    let base = if doc.bom { BOM.len() } else { 0 };
    let body_start = doc.body_start(src);
    assert!(in_bounds(src, &(body_start..src.len())), "body start");
    if let Some(fm) = &doc.front_matter {
        assert!(in_bounds(src, &fm.range), "front matter {:?}", fm.range);
        assert_eq!(fm.range.start, base, "front matter not at the top");
        assert!(
            body_start >= fm.range.end,
            "body starts inside the front matter"
        );
    }
    let mut prev_end: Option<usize> = None;
    for (i, e) in doc.entries.iter().enumerate() {
        let at = format!("entry {i} {e:?}");
        assert!(in_bounds(src, &e.item), "{at}: item out of bounds");
        assert!(in_bounds(src, &e.body), "{at}: body out of bounds");
        assert!(
            e.item.start <= e.body.start && e.body.end <= e.item.end,
            "{at}: body outside the item"
        );
        assert!(e.item.start >= body_start, "{at}: before the body");
        if let Some(p) = prev_end {
            assert!(e.item.start > p, "{at}: overlaps or touches the one before");
        }
        prev_end = Some(e.item.end);
        let ls = line_start(src, e.item.start);
        assert!(
            ls == e.item.start || (ls == 0 && e.item.start == base),
            "{at}: the item does not start its line"
        );
        if let Some(m) = &e.meta {
            assert!(in_bounds(src, m), "{at}: meta out of bounds");
            assert!(m.start >= e.body.end && m.end == e.item.end, "{at}: meta");
            assert!(
                src[m.clone()].starts_with(META_PREFIX) && src[m.clone()].ends_with("-->"),
                "{at}: meta is not a metadata comment"
            );
        }
        assert_eq!(e.id, entry_id(scope.name(), &e.text), "{at}: id");
        assert_eq!(normalize_text(&e.text), e.text, "{at}: text not normal");
    }
    for c in &doc.conflicts {
        assert!(in_bounds(src, &c.bytes), "conflict {c:?} out of bounds");
        assert!(
            c.first_line >= 1 && c.first_line <= c.last_line,
            "conflict {c:?}"
        );
    }
}

/// How `edit::apply` must refuse any edit of `doc`, before looking at the
/// operation: a conflicted file, or a front matter it cannot read.
fn refused_before_ops(cx: &EditContext<'_>, doc: &Document) -> Option<&'static str> {
    if !doc.conflicts.is_empty() {
        return Some("memory_conflicted");
    }
    cx.budget(doc).err().map(|e| e.code().as_str())
}

/// Runs `op` through `edit::apply` and checks what holds for every edit:
/// the parse handed back is that of the new source, the usage is counted
/// by the budget rule, and the budget rule held.
fn run(
    cx: &EditContext<'_>,
    src: &str,
    doc: &Document,
    op: &Op,
    allowed: &[&str],
) -> Option<Applied> {
    let before_ops = refused_before_ops(cx, doc);
    let applied = match edit::apply(src, doc, &[op], cx) {
        Ok(a) => a,
        Err(failed) => {
            let code = failed.error.code().as_str();
            assert_eq!(failed.index, 0, "one operation, failed at {}", failed.index);
            if let Some(want) = before_ops {
                assert_eq!(
                    code, want,
                    "refused with {code}, not {want}: {}",
                    failed.error
                );
            }
            if !allowed.contains(&code) {
                expect_code("edit", code, &ANY_EDIT);
            }
            return None;
        }
    };
    assert!(before_ops.is_none(), "applied despite {before_ops:?}");
    assert_eq!(
        applied.doc,
        parse(cx.scope, &applied.src),
        "the parse handed back is not that of the source written"
    );
    let limit = applied.budget.limit;
    assert!((MIN_BUDGET..=MAX_BUDGET).contains(&limit), "budget {limit}");
    let after = used_live(cx, &applied.src, &applied.doc);
    assert_eq!(applied.usage.used, after, "usage");
    if applied.src != src {
        let before = used_live(cx, src, doc);
        assert!(
            after <= limit || after <= before,
            "written over the budget: {after}/{limit}, {before} before"
        );
    }
    Some(applied)
}

/// Codes the text of an add or replace may be refused with.
const TEXT_CODES: [&str; 5] = [
    "memory_text_empty",
    "memory_text_too_long",
    "memory_text_invalid",
    "memory_threat_blocked",
    "secret_in_memory",
];

/// Checks the text as `apply` will; when it is refused, so must the edit
/// be, with the same code (unless the file itself is refused first).
fn checked_text(
    cx: &EditContext<'_>,
    src: &str,
    doc: &Document,
    op: &Op,
    text: &str,
) -> Option<String> {
    match check_text(text) {
        Ok(t) => Some(t),
        Err(e) => {
            let got = edit::apply(src, doc, &[op], cx);
            let Err(failed) = got else {
                panic!("text refused by check_text ({e}) but the edit applied");
            };
            let want = refused_before_ops(cx, doc).unwrap_or(e.code().as_str());
            assert_eq!(failed.error.code().as_str(), want, "{}", failed.error);
            None
        }
    }
}

/// Add: the text lands once, as a pure insertion, at the top or the end;
/// the other entries keep their bytes; removing it gives back the source.
fn add(cx: &EditContext<'_>, src: &str, doc: &Document, text: &str) {
    let op = Op::add(cx.scope, text);
    let Some(text) = checked_text(cx, src, doc, &op, text) else {
        return;
    };
    let Some(applied) = run(cx, src, doc, &op, &TEXT_CODES) else {
        return;
    };
    let out = &applied.src;
    let id = entry_id(cx.scope.name(), &text);
    let outcome = single(&applied);
    assert_eq!(outcome.id, id, "outcome id");
    if doc.entries.iter().any(|e| e.id == id) {
        assert_eq!(outcome.message.as_str(), "already stored");
        assert_eq!(out, src, "an add of a stored text changed the file");
        return;
    }
    assert_eq!(outcome.message.as_str(), "added");
    let c = change(src, out);
    assert_eq!(c.start, c.old_end, "an add replaced bytes: {c:?}");
    let new = &applied.doc;
    let at = new
        .entries
        .iter()
        .position(|e| e.id == id)
        .unwrap_or_else(|| panic!("the added entry is missing from {out:?}"));
    assert!(at == 0 || at == doc.entries.len(), "added at {at}");
    let mut others = new.entries.clone();
    let added = others.remove(at);
    assert_eq!(added.text, text, "added text");
    same_entries(src, doc, None, out, &others);
    let meta = added.metadata(out);
    let expires = cx.expiry(None).unwrap_or_else(|e| panic!("expiry: {e}"));
    let want = Meta {
        created: Some(cx.now),
        expires,
        agent: Some(AGENT.to_owned()),
        ..Meta::default()
    };
    assert_eq!(meta, want, "the added entry's metadata");

    // Add then remove gives back the original bytes.
    let rm = Op::Remove {
        old: id,
        scope: Some(cx.scope),
    };
    let back = edit::apply(out, new, &[&rm], cx)
        .unwrap_or_else(|f| panic!("removing the added entry: {}", f.error));
    assert_eq!(back.src, src, "add then remove: {out:?}");
}

/// Replace: only the entry's bytes change (its text, and its metadata
/// comment stamped `updated`); the others keep theirs.
fn replace(cx: &EditContext<'_>, src: &str, doc: &Document, pick: usize, text: &str) {
    let old = doc.entries[pick].id.clone();
    // `apply` finds an id's first entry.
    let i = doc.entries.iter().position(|e| e.id == old).unwrap_or(pick);
    let e = &doc.entries[i];
    let op = Op::Replace {
        old: old.clone(),
        new: text.to_owned(),
        scope: Some(cx.scope),
    };
    let Some(text) = checked_text(cx, src, doc, &op, text) else {
        return;
    };
    let Some(applied) = run(cx, src, doc, &op, &TEXT_CODES) else {
        return;
    };
    let out = &applied.src;
    let outcome = single(&applied);
    let id = entry_id(cx.scope.name(), &text);
    assert_eq!(outcome.old_id.as_deref(), Some(old.as_str()), "old id");
    assert_eq!(outcome.id, id, "new id");
    match outcome.message {
        Change::Unchanged => {
            assert_eq!(e.text, text, "unchanged, but the text differs");
            assert_eq!(out, src, "unchanged, but the file changed");
        }
        Change::Merged => {
            assert!(
                doc.entries.iter().any(|x| x.id == id),
                "merged into an entry that is not there"
            );
            removed(src, doc, i, out, &applied.doc);
        }
        Change::Replaced => {
            assert!(
                keeps_around(src, out, e.body.start, e.item.end),
                "replace changed bytes outside entry {i} ({:?}): {out:?}",
                e.item
            );
            let new = &applied.doc;
            assert_eq!(
                new.entries.len(),
                doc.entries.len(),
                "entries after replace"
            );
            assert_eq!(new.entries[i].text, text, "replaced text");
            let mut others = new.entries.clone();
            others.remove(i);
            same_entries(src, doc, Some(i), out, &others);
            let mut want = e.metadata(src);
            want.updated = Some(cx.now);
            assert_eq!(new.entries[i].metadata(out), want, "metadata after replace");
        }
        m => panic!("replace answered {m:?}"),
    }
}

/// Remove: the entry goes with at most the lines around it that the format
/// allows; the others keep their bytes.
fn remove(cx: &EditContext<'_>, src: &str, doc: &Document, pick: usize) {
    let old = doc.entries[pick].id.clone();
    let i = doc.entries.iter().position(|e| e.id == old).unwrap_or(pick);
    let op = Op::Remove {
        old,
        scope: Some(cx.scope),
    };
    let Some(applied) = run(cx, src, doc, &op, &[]) else {
        return;
    };
    assert_eq!(single(&applied).message.as_str(), "removed");
    removed(src, doc, i, &applied.src, &applied.doc);
}

/// Checks that `out` (parsed as `new`) is `src` without entry `i`: its
/// lines went, with at most the blank line before it, or the blank line,
/// separator comment and blank line after it; nothing else changed.
fn removed(src: &str, doc: &Document, i: usize, out: &str, new: &Document) {
    let e = &doc.entries[i];
    let first = line_start(src, e.item.start);
    let mut lo = if first == 0 {
        0
    } else {
        line_start(src, first - 1)
    };
    let mut hi = next_line(src, e.item.end);
    // An entry on the file's last line, without a line ending: the line
    // ending before the lines that go, goes too.
    if hi == src.len() && !src.ends_with(['\n', '\r']) {
        lo -= if src[..lo].ends_with("\r\n") {
            2
        } else {
            usize::from(src[..lo].ends_with(['\n', '\r']))
        };
    }
    for _ in 0..3 {
        hi = next_line(src, hi);
    }
    assert!(
        keeps_around(src, out, lo, hi),
        "removing entry {i} ({:?}) changed bytes outside {lo}..{hi}: {out:?}",
        e.item
    );
    assert_eq!(
        new.entries.len() + 1,
        doc.entries.len(),
        "entries after remove"
    );
    same_entries(src, doc, Some(i), out, &new.entries);
}

/// Whether `out` is `src` with only the bytes `start..end` replaced: it
/// starts with the bytes before them and ends with the bytes after them.
/// (Not the smallest region that differs, which is ambiguous: new bytes
/// that start like the old ones after them make it shift.)
fn keeps_around(src: &str, out: &str, start: usize, end: usize) -> bool {
    start <= end
        && start + (src.len() - end) <= out.len()
        && out.as_bytes().starts_with(&src.as_bytes()[..start])
        && out.as_bytes().ends_with(&src.as_bytes()[end..])
}

/// The entries of `doc` but `skip` are `kept` in order, with the same ids,
/// texts and item bytes.
fn same_entries(
    src: &str,
    doc: &Document,
    skip: Option<usize>,
    out: &str,
    kept: &[crate::markdown::Entry],
) {
    let old: Vec<_> = doc
        .entries
        .iter()
        .enumerate()
        .filter(|&(j, _)| Some(j) != skip)
        .map(|(_, e)| e)
        .collect();
    assert_eq!(old.len(), kept.len(), "entries kept");
    for (a, b) in old.iter().zip(kept) {
        assert_eq!(a.id, b.id, "an entry kept changed its id");
        assert_eq!(
            &src[a.item.clone()],
            &out[b.item.clone()],
            "an entry kept changed its bytes"
        );
    }
}

/// The outcome of the one operation applied.
fn single(applied: &Applied) -> &edit::OpOutcome {
    match applied.outcomes.as_slice() {
        [o] => o,
        other => panic!("{} outcomes for one operation", other.len()),
    }
}
