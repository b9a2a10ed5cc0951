//! The parse of an edited store from its first changed entry on: what
//! checks an edit (`splice`) without parsing the whole file again, held to
//! the whole parse by the property test
//! `parsing_from_an_entry_on_is_parsing_the_whole` and the fuzz target
//! `markdown_splice`. Pure: no I/O.

use std::ops::Range;

use super::conflict::may_have_markers;
use super::parse::{Document, Entry, ends_with_eol, line_end_with_eol, parse_without_ids};

/// Whether `s` holds a line that pulldown-cmark may take for the start of a
/// metadata block (`---` and nothing but whitespace after it): whether one
/// is depends on a closing line anywhere after it, so a change far below can
/// turn it into one (or back).
fn may_open_metadata(s: &str) -> bool {
    static DASHES: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
        std::sync::LazyLock::new(|| memchr::memmem::Finder::new(b"---"));
    let b = s.as_bytes();
    DASHES.find_iter(b).any(|i| {
        b.get(i.wrapping_sub(1)) != Some(&b'-')
            && b[i + 3..]
                .iter()
                .take_while(|&&c| c != b'\n' && c != b'\r')
                .all(u8::is_ascii_whitespace)
    })
}

/// The parse (without ids) of `out`: `src`, parsed as `doc`, with bytes
/// changed from `from` on.
///
/// Block structure is read line by line, and where a line starts a
/// top-level list item, the lines before it are closed for good: nothing
/// after can change them, and the item and what follows parse as they would
/// at the top of a document of their own (the list's tightness and start
/// number differ, which no entry reads; a link definition before it can
/// change which brackets are links, never where an item or an HTML comment
/// is). So where the edit begins after the first line of an entry, only
/// `out` from that entry on is parsed, and the entries before it are
/// `doc`'s. pulldown-cmark's block parser looks ahead once: `---` opens a
/// metadata block only where a closing line follows, however far below.
/// The whole of `out` is parsed where a line before the entry may open
/// one, where no entry's first line ends before `from` (front matter and a
/// byte-order mark lie before the first entry), and where either text holds
/// conflict markers. The property test
/// `parsing_from_an_entry_on_is_parsing_the_whole` and the fuzz target
/// `markdown_splice` hold this to the whole parse.
pub(crate) fn parse_after(src: &str, doc: &Document, from: usize, out: &str) -> Document {
    let body_start = doc.body_start(src);
    let resume = doc.entries.iter().rposition(|e| {
        let first_line = line_end_with_eol(src, e.item.start);
        e.item.start > body_start && first_line <= from && ends_with_eol(&src[..first_line])
    });
    let whole = || parse_without_ids(out);
    let Some(k) = resume else {
        return whole();
    };
    let s = doc.entries[k].item.start;
    if !doc.conflicts.is_empty() || may_have_markers(out) || may_open_metadata(&src[body_start..s])
    {
        return whole();
    }
    if let Some(d) = parse_window(src, doc, k, from, out) {
        return d;
    }
    let Some(tail) = out.get(s..) else {
        return whole();
    };
    let tail = parse_without_ids(tail);
    if tail.bom || tail.front_matter.is_some() || !tail.conflicts.is_empty() {
        return whole();
    }
    let shift = |r: Range<usize>| r.start + s..r.end + s;
    let mut entries = Vec::with_capacity(k + tail.entries.len());
    entries.extend_from_slice(&doc.entries[..k]);
    entries.extend(tail.entries.into_iter().map(|e| Entry {
        item: shift(e.item),
        body: shift(e.body),
        meta: e.meta.map(shift),
        ..e
    }));
    Document {
        bom: doc.bom,
        front_matter: doc.front_matter.clone(),
        entries,
        eol: doc.eol,
        conflicts: Vec::new(),
    }
}

/// [`parse_after`] from entry `k` on, when the edit ends before a later
/// entry of `doc` whose bytes from its start on `out` keeps: only `out`
/// from entry `k` to the end of that entry's first line is parsed, and the
/// entries from it on are `doc`'s, moved by what the edit added or took.
///
/// The same claim as `parse_after`'s, at a second line: block structure is
/// read line by line, so where the window's parse (which ends with that
/// entry's first line) has a top-level item start there, the whole `out`
/// has one there too, the entries before it are the window's, and what
/// follows parses as it did in `src`, where it was the same top-level
/// item. Looking ahead is what could make the window lie: a line that could
/// underline a setext heading (`-`, `=` and blanks only) is not taken as
/// that first line, and a window that may open a metadata block is not
/// used. `None` where any of this fails: the whole tail is parsed then.
fn parse_window(src: &str, doc: &Document, k: usize, from: usize, out: &str) -> Option<Document> {
    let s = doc.entries[k].item.start;
    let (a, b) = (src.as_bytes().get(from..)?, out.as_bytes().get(from..)?);
    // The bytes both end with, after `from`: src's from `src_same` on are
    // out's from `out_same` on.
    let same = a
        .iter()
        .rev()
        .zip(b.iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let (src_same, out_same) = (src.len() - same, out.len() - same);
    let to_out = |at: usize| at - src_same + out_same;
    let m = doc
        .entries
        .iter()
        .position(|e| e.item.start >= src_same && e.item.start > s)?;
    let start = doc.entries[m].item.start;
    let first_end = line_end_with_eol(src, start);
    let underline = src[start..first_end]
        .bytes()
        .all(|c| matches!(c, b'-' | b'=' | b' ' | b'\t' | b'\r' | b'\n'));
    if underline || !ends_with_eol(&src[..first_end]) {
        return None;
    }
    let window = out.get(s..to_out(first_end))?;
    if may_open_metadata(window) {
        return None;
    }
    let w = parse_without_ids(window);
    if w.bom || w.front_matter.is_some() || !w.conflicts.is_empty() {
        return None;
    }
    let (last, before) = w.entries.split_last()?;
    if last.item.start + s != to_out(start) {
        return None;
    }
    let in_window = |r: Range<usize>| r.start + s..r.end + s;
    let moved = |r: Range<usize>| to_out(r.start)..to_out(r.end);
    let mut entries = Vec::with_capacity(k + before.len() + doc.entries.len() - m);
    entries.extend_from_slice(&doc.entries[..k]);
    entries.extend(before.iter().map(|e| Entry {
        item: in_window(e.item.clone()),
        body: in_window(e.body.clone()),
        meta: e.meta.clone().map(in_window),
        ..e.clone()
    }));
    entries.extend(doc.entries[m..].iter().map(|e| Entry {
        item: moved(e.item.clone()),
        body: moved(e.body.clone()),
        meta: e.meta.clone().map(moved),
        ..e.clone()
    }));
    Some(Document {
        bom: doc.bom,
        front_matter: doc.front_matter.clone(),
        entries,
        eol: doc.eol,
        conflicts: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `src` with the bytes `cut` replaced by `with`: the edit, the parse
    /// from its entry on, and the whole parse.
    fn edit(src: &str, cut: Range<usize>, with: &str) -> (Option<Document>, Document, Document) {
        let doc = parse_without_ids(src);
        let out = format!("{}{with}{}", &src[..cut.start], &src[cut.end..]);
        let k = doc
            .entries
            .iter()
            .rposition(|e| line_end_with_eol(src, e.item.start) <= cut.start)
            .unwrap();
        let window = parse_window(src, &doc, k, cut.start, &out);
        (
            window,
            parse_after(src, &doc, cut.start, &out),
            parse_without_ids(&out),
        )
    }

    fn store(n: usize) -> String {
        (0..n)
            .map(|i| format!("- fact {i} <!-- memdir n={i} -->\n"))
            .collect()
    }

    #[test]
    fn an_edit_near_the_top_parses_only_to_the_next_entry_kept_whole() {
        let src = store(50);
        // Entry 2 removed (the cut from the end of entry 1's line).
        let at = src.find("- fact 2").unwrap();
        let end = src.find("- fact 3").unwrap();
        let (window, fast, whole) = edit(&src, at..end, "");
        assert_eq!(window.as_ref(), Some(&whole));
        assert_eq!(fast, whole);
        // A fact's text changed in place, longer.
        let at = src.find("fact 7").unwrap() + 5;
        let (window, fast, whole) = edit(&src, at..at + 1, "seventy");
        assert_eq!(window.as_ref(), Some(&whole));
        assert_eq!(fast, whole);
    }

    #[test]
    fn where_what_follows_could_change_the_window_the_whole_tail_is_parsed() {
        let src = store(6);
        let at = src.find("fact 2").unwrap() + 7;
        // A fence opened inside an item closes with it: the window holds.
        let (window, fast, whole) = edit(&src, at..at, "\n  ```\n");
        assert_eq!(window.as_ref(), Some(&whole));
        assert_eq!(fast, whole);
        // One opened at the top swallows every entry after it: no item
        // starts where the next kept entry was.
        let (window, fast, whole) = edit(&src, at..at, "\n```\n");
        assert_eq!(window, None);
        assert_eq!(fast, whole);
        // A line that may open a metadata block in the window.
        let (window, fast, whole) = edit(&src, at..at, "\n\n---\n");
        assert_eq!(window, None);
        assert_eq!(fast, whole);
        // The next kept entry's first line could underline a heading.
        let src = "- a\n- b\n  more\n-\n  c\n- d\n";
        let at = src.find("more").unwrap();
        let (window, fast, whole) = edit(src, at..at + 1, "x");
        assert_eq!(window, None);
        assert_eq!(fast, whole);
    }
}
