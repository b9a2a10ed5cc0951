//! Edits as byte splices: append, replace and remove entries.
//!
//! Pure: no I/O. Every edit changes only the bytes of the entry it concerns
//! (plus, for an append or a removal, the line ending and at most one blank
//! line around it, and in the rare files that need it the separator comment
//! `<!-- memdir -->`) and is checked by parsing the result again: the result
//! must hold exactly the entries it should, each with its text and at its
//! bytes (its metadata comment too), or the edit is refused as
//! [`Unplaceable`].

use std::borrow::Cow;
use std::ops::Range;

use super::parse::{
    Document, Entry, Marker, ends_with_eol, eol_len_at_end, line_end_with_eol, line_start, lines,
    trim_md_end,
};
use super::reparse::parse_after;
use crate::model::{Scope, entry_id};

/// Why an edit could not be placed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unplaceable(pub String);

/// Normalises text given for an entry: line endings (CRLF, or a lone CR) to
/// LF, line ends and the whole trimmed.
pub fn normalize_text(text: &str) -> String {
    lines(text)
        .map(str::trim_end)
        .collect::<Vec<_>>()
        .join("\n")
        .trim()
        .to_owned()
}

/// Renders an entry's text for the source: continuation lines indented to
/// `indent` columns, blank lines left empty, lines joined with `eol`.
fn render_body(text: &str, indent: usize, eol: &str) -> String {
    let pad = " ".repeat(indent);
    let mut out = String::with_capacity(text.len() + 8);
    for (i, line) in text.split('\n').enumerate() {
        if i > 0 {
            out.push_str(eol);
            if !line.is_empty() {
                out.push_str(&pad);
            }
        }
        out.push_str(line);
    }
    out
}

/// A whole new item: `lead` indentation, marker, one space, the body, and the
/// metadata comment if any.
fn render_item(lead: usize, marker: Marker, text: &str, meta: Option<&str>, eol: &str) -> String {
    let m = marker.render();
    let mut out = " ".repeat(lead);
    out.push_str(&m);
    out.push(' ');
    out.push_str(&render_body(text, lead + m.len() + 1, eol));
    if let Some(meta) = meta {
        out.push(' ');
        out.push_str(meta);
    }
    out
}

/// The comment line that closes an entry put at the top of a file whose first
/// lines would otherwise continue it (and whose end is open, so that the entry
/// cannot go at the end); [`remove`] takes it away with the entry. It also
/// stands in for a removed entry where the next item would otherwise nest in
/// the one before.
const SEPARATOR: &str = "<!-- memdir -->";

/// Appends an entry with `text` (already normalised) after the last entry, or
/// at the end of the file when there is none, in the file's bullet style and
/// line endings.
///
/// Where that would not read back as the old entries plus the new one, falls
/// back to the end of the file after a blank line, then to the top of the
/// body, then to the top closed by a separator comment (`<!-- memdir -->`);
/// and where the text would turn an item in the file's bullet into something
/// else (`* **` is a thematic break), to another bullet.
///
/// `id` is the new entry's id (the caller computed it); the result comes
/// with its parse (the one that checked it): the old entries keep their ids,
/// the new one has `id`.
pub(crate) fn append(
    src: &str,
    doc: &Document,
    (text, id): (&str, &str),
    meta: Option<&str>,
) -> Result<(String, Document), Unplaceable> {
    let marker = doc
        .entries
        .last()
        .map_or(Marker::Bullet('-'), |e| e.marker.next());
    let mut markers = vec![marker];
    if let Marker::Bullet(b) = marker {
        markers.extend(
            ['-', '*', '+']
                .into_iter()
                .filter(|&c| c != b)
                .map(Marker::Bullet),
        );
    }
    markers
        .into_iter()
        .find_map(|m| place(src, doc, m, (text, id), meta))
        .ok_or_else(|| {
            Unplaceable(
                "appended text would merge into the content before it (an unclosed code block or HTML block?)"
                    .into(),
            )
        })
}

/// Tries the places for a new entry with `marker`, in order.
fn place(
    src: &str,
    doc: &Document,
    marker: Marker,
    (text, id): (&str, &str),
    meta: Option<&str>,
) -> Option<(String, Document)> {
    let eol = doc.eol;
    // Puts `pre`, the item, `post` at `at`, and checks the result.
    let attempt = |at: usize, pre: &str, item: &str, post: &str| {
        let with = format!("{pre}{item}{post}");
        if joins_crlf(src, &(at..at), &with) {
            return None;
        }
        let out = splice(src, at..at, &with);
        let added = pre.len() + item.len() + post.len();
        let start = at + pre.len();
        let new = Want {
            id: Cow::Borrowed(id),
            text,
            item: start..start + item.len(),
            meta: meta.map(|m| start + item.len() - m.len()..start + item.len()),
        };
        let mut want = kept(doc, None, &(at..at), added);
        let first = doc.entries.first().is_some_and(|e| e.item.start >= at);
        want.insert(if first { 0 } else { want.len() }, new);
        parses_to((src, doc), at, &out, want).map(|d| (out, d))
    };

    if let Some(last) = doc.entries.last() {
        let line = &src[last.item.start..];
        let lead = line.len() - line.trim_start_matches(' ').len();
        let item = render_item(lead, marker, text, meta, eol);
        let line_end = line_end_with_eol(src, last.item.end);
        let found = if ends_with_eol(&src[..line_end]) {
            attempt(line_end, "", &item, eol)
        } else {
            attempt(src.len(), eol, &item, "")
        };
        if found.is_some() {
            return found;
        }
    }

    // At the end, after a blank line. A line ending after a lone CR would
    // join it into a CRLF.
    let end_eol = if eol == "\n" && src.ends_with('\r') {
        "\r"
    } else {
        eol
    };
    let item = render_item(0, marker, text, meta, end_eol);
    let body_start = doc.body_start(src);
    let body = &src[body_start..];
    let double = format!("{end_eol}{end_eol}");
    let (pre, post) = if body.is_empty() {
        if body_start == 0 || ends_with_eol(src) {
            ("", end_eol)
        } else {
            (end_eol, "")
        }
    } else if ends_with_eol(body) {
        if last_line_is_empty(body) {
            ("", double.as_str())
        } else {
            (end_eol, end_eol)
        }
    } else {
        (double.as_str(), "")
    };
    let found = attempt(src.len(), pre, &item, post);
    if found.is_some() || body.is_empty() {
        return found;
    }

    // At the top, then at the top closed by the separator comment, for a body
    // whose first lines are indented deep enough to join the entry.
    let item = render_item(0, marker, text, meta, eol);
    let closed = format!("{eol}{eol}{SEPARATOR}{eol}{eol}");
    [format!("{eol}{eol}"), closed]
        .iter()
        .find_map(|post| attempt(body_start, "", &item, post))
}

/// Replaces the text of `entry` with `text` (already normalised), keeping its
/// marker, indentation and metadata comment. Refused where the new text would
/// not read back as the entry's text, or would change another entry. Gives
/// the result with its parse (the one that checked it).
pub(crate) fn replace(
    scope: Scope,
    src: &str,
    doc: &Document,
    index: usize,
    text: &str,
) -> Result<(String, Document), Unplaceable> {
    let entry = entry_at(doc, index)?;
    let mut candidates = replacements(src, doc, entry, text);
    if text == entry.text {
        // The entry's own text: where writing it afresh would read differently
        // (a lazy line that would turn into a heading underline), the bytes
        // as they are.
        candidates.push(src[entry.body.clone()].to_owned());
    }
    let body = &entry.body;
    for with in candidates {
        if joins_crlf(src, body, &with) {
            continue;
        }
        let out = splice(src, body.clone(), &with);
        let mut want = kept(doc, None, body, with.len());
        // The entry itself: its item now ends where its new body does (or,
        // with a metadata comment, where the moved comment does).
        let shift = |at: usize| at + with.len() - body.len();
        want[index] = Want {
            id: Cow::Owned(entry_id(scope.name(), text)),
            text,
            item: entry.item.start..match &entry.meta {
                Some(_) => shift(entry.item.end),
                None => body.start + trim_md_end(&with).len(),
            },
            meta: entry.meta.as_ref().map(|m| shift(m.start)..shift(m.end)),
        };
        if let Some(d) = parses_to((src, doc), body.start, &out, want) {
            return Ok((out, d));
        }
    }
    Err(Unplaceable(
        "the new text would change the entries around it".into(),
    ))
}

/// The bytes that may stand for `text` in `entry`'s body, best first.
///
/// First the text with continuation lines at the entry's indentation. An
/// empty item (`-`, `- <!-- memdir … -->`) has its body on the marker's line
/// with at most a space before it; the text then needs a space after the
/// marker (and before the comment), and where content indented under a short
/// gap would join the item (`-`, a blank line, `  foo`), a gap of up to four
/// spaces gives the text a deeper indentation that leaves it out. Last, the
/// same with a blank line after the text, for an entry that did not end in a
/// paragraph and is followed at once by one (`- - x` then `foo`), which a new
/// paragraph would take in as a lazy continuation line.
fn replacements(src: &str, doc: &Document, entry: &Entry, text: &str) -> Vec<String> {
    let meta_gap = if entry.body.is_empty()
        && !text.is_empty()
        && entry
            .meta
            .as_ref()
            .is_some_and(|m| m.start == entry.body.end)
    {
        " "
    } else {
        ""
    };
    let line = &src[entry.item.start..entry.body.start];
    let mut out: Vec<String> =
        if entry.body.is_empty() && !text.is_empty() && !line.contains(['\n', '\r', '\t']) {
            let marker = line.trim_end_matches(' ');
            let have = line.len() - marker.len();
            (have.max(1)..=have.max(4))
                .map(|gap| {
                    format!(
                        "{}{}{meta_gap}",
                        " ".repeat(gap - have),
                        render_body(text, marker.len() + gap, doc.eol)
                    )
                })
                .collect()
        } else {
            vec![format!(
                "{}{meta_gap}",
                render_body(text, entry.indent, doc.eol)
            )]
        };
    let after = src[entry.item.end..].trim_start_matches([' ', '\t', '\u{b}', '\u{c}']);
    let followed_by_line = ["\r\n", "\n", "\r"]
        .iter()
        .find_map(|eol| after.strip_prefix(eol))
        .is_some_and(|rest| !rest.is_empty() && !rest.starts_with(['\r', '\n']));
    if entry.meta.is_none() && followed_by_line {
        let blank: Vec<String> = out.iter().map(|c| format!("{c}{}", doc.eol)).collect();
        out.extend(blank);
    }
    out
}

/// Replaces (or adds) the metadata comment of `entry`. Refused where the
/// comment would not read back as the entry's (after an open code block).
/// Gives the result with its parse (the one that checked it).
pub(crate) fn set_meta(
    src: &str,
    doc: &Document,
    index: usize,
    meta: &str,
) -> Result<(String, Document), Unplaceable> {
    let entry = entry_at(doc, index)?;
    let (cut, with) = match &entry.meta {
        Some(r) => (r.clone(), meta.to_owned()),
        None => (entry.item.end..entry.item.end, format!(" {meta}")),
    };
    let out = splice(src, cut.clone(), &with);
    let mut want = kept(doc, None, &cut, with.len());
    let end = cut.start + with.len();
    want[index].item.end = end;
    want[index].meta = Some(end - meta.len()..end);
    parses_to((src, doc), cut.start, &out, want)
        .map(|d| (out, d))
        .ok_or_else(|| {
            Unplaceable("the metadata comment would not read back as the entry's".into())
        })
}

/// Removes `entry`: its lines with their line ending, and one blank line where
/// the entry stood between two blank lines (or a blank line and the file's
/// start or end), so that appending and then removing an entry gives back the
/// original bytes. Where taking the lines away would change the other entries,
/// a blank line takes their place (a paragraph above and an item that may not
/// interrupt one below would join), else the separator comment
/// `<!-- memdir -->` (an item below would nest in the one above); where even
/// that would change them, the removal is refused.
/// Gives the result with its parse (the one that checked it).
pub(crate) fn remove(
    src: &str,
    doc: &Document,
    index: usize,
) -> Result<(String, Document), Unplaceable> {
    let (cut, lines) = removal_cut(src, doc, index)?;
    let out = splice(src, cut.clone(), "");
    if let Some(d) = parses_to((src, doc), cut.start, &out, kept(doc, Some(index), &cut, 0)) {
        return Ok((out, d));
    }
    // Taking the lines away can join what stood around the entry (a paragraph
    // above and an item that may not interrupt one below); a blank line in
    // their place keeps them apart.
    // Where the next item would then nest in the one before (`- a`, ` - b`,
    // `  - c`: without `b`, `c` is under `a`), the separator comment in their
    // place ends the list before it.
    let eol = &src[lines.end - eol_len_at_end(&src[..lines.end])..lines.end];
    for with in [eol.to_owned(), format!("{SEPARATOR}{eol}")] {
        let out = splice(src, lines.clone(), &with);
        let want = kept(doc, Some(index), &lines, with.len());
        if let Some(d) = parses_to((src, doc), lines.start, &out, want) {
            return Ok((out, d));
        }
    }
    Err(Unplaceable(
        "removing the entry would change the entries around it".into(),
    ))
}

/// What [`remove`] takes away first for entry `index`: the bytes cut (its
/// lines and the blank line that goes with them) and its lines alone.
fn removal_cut(
    src: &str,
    doc: &Document,
    index: usize,
) -> Result<(Range<usize>, Range<usize>), Unplaceable> {
    let entry = entry_at(doc, index)?;
    let body_start = doc.body_start(src);
    let mut cut_start = entry.item.start;
    let mut cut_end = line_end_with_eol(src, entry.item.end);
    let lines = cut_start..cut_end;
    let has_eol = ends_with_eol(&src[..cut_end]);

    let prev =
        (cut_start > body_start).then(|| line_start(src, cut_start - 1).max(body_start)..cut_start);
    let next = (cut_end < src.len()).then(|| cut_end..line_end_with_eol(src, cut_end));
    let blank = |r: &Range<usize>| is_empty_line(&src[r.clone()]);
    let prev_blank = prev.as_ref().is_some_and(blank);
    let next_blank = next.as_ref().is_some_and(blank);
    // The blank line after the entry goes where there is one (an append at
    // the top or after a blank line adds it), else the one before it.
    if next_blank && (prev_blank || prev.is_none()) {
        if let Some(n) = &next {
            cut_end = n.end;
        }
    } else if prev_blank
        && next.is_none()
        && let Some(p) = &prev
    {
        cut_start = p.start;
    }
    // The separator an append at the top put after the entry, with its blank
    // line.
    if prev.is_none() && next_blank {
        let sep = cut_end..line_end_with_eol(src, cut_end);
        let after = sep.end..line_end_with_eol(src, sep.end);
        let line = &src[sep.clone()];
        if line.len() > SEPARATOR.len()
            && line.starts_with(SEPARATOR)
            && is_empty_line(&line[SEPARATOR.len()..])
            && !after.is_empty()
            && blank(&after)
        {
            cut_end = after.end;
        }
    }
    if !has_eol && cut_start > 0 {
        cut_start -= eol_len_at_end(&src[..cut_start]);
    }
    Ok((cut_start..cut_end, lines))
}

/// Removes the entries `remove` and gives the entries of `metas` their new
/// metadata comments, all at once: each edit as [`remove`] and [`set_meta`]
/// make it first, checked by one parse of the result (every other entry
/// keeps its text and bytes). `None` where the edits touch each other or
/// the result does not read back so: the caller then makes them one by one
/// (with their fallbacks).
pub(crate) fn edit_many(
    src: &str,
    doc: &Document,
    remove: &[usize],
    metas: &[(usize, String)],
) -> Option<(String, Document)> {
    // (cut, replacement, the entry whose comment it is)
    let mut edits: Vec<(Range<usize>, Cow<'_, str>, Option<usize>)> = Vec::new();
    for &i in remove {
        let (cut, _) = removal_cut(src, doc, i).ok()?;
        edits.push((cut, Cow::Borrowed(""), None));
    }
    for (i, meta) in metas {
        let entry = doc.entries.get(*i)?;
        let (cut, with) = match &entry.meta {
            Some(r) => (r.clone(), Cow::Borrowed(meta.as_str())),
            None => (
                entry.item.end..entry.item.end,
                Cow::Owned(format!(" {meta}")),
            ),
        };
        edits.push((cut, with, Some(*i)));
    }
    edits.sort_by_key(|(r, _, _)| (r.start, r.end));
    if edits
        .windows(2)
        .any(|w| w[0].0.end > w[1].0.start || w[0].0 == w[1].0)
    {
        return None;
    }
    let mut out = String::with_capacity(src.len());
    let mut at = 0;
    for (r, with, _) in &edits {
        out.push_str(&src[at..r.start]);
        out.push_str(with);
        at = r.end;
    }
    out.push_str(&src[at..]);
    let from = edits.first().map_or(src.len(), |(r, _, _)| r.start);
    // Where a position of `src` lies in `out`: shifted by the edits before it.
    let shift = |p: usize| {
        let mut q = p as isize;
        for (r, with, _) in &edits {
            if r.end <= p && !(r.is_empty() && r.start == p) {
                q += with.len() as isize - r.len() as isize;
            }
        }
        q as usize
    };
    let mut want = Vec::with_capacity(doc.entries.len());
    for (i, e) in doc.entries.iter().enumerate() {
        if remove.contains(&i) {
            continue;
        }
        let own = edits.iter().find(|(_, _, of)| *of == Some(i));
        let (item, meta) = match own {
            Some((r, with, _)) => {
                let end = shift(r.start) + with.len();
                let m = metas.iter().find(|(j, _)| *j == i).map(|(_, m)| m.len())?;
                (shift(e.item.start)..end, Some(end - m..end))
            }
            None => (
                shift(e.item.start)..shift(e.item.end),
                e.meta.as_ref().map(|m| shift(m.start)..shift(m.end)),
            ),
        };
        want.push(Want {
            id: Cow::Borrowed(&e.id),
            text: &e.text,
            item,
            meta,
        });
    }
    parses_to((src, doc), from, &out, want).map(|d| (out, d))
}

/// Appends several entries after the last one at once, as [`append`] would
/// one by one when each goes right after the entry before it (its first
/// choice), checked by one parse of the result. `None` where there is no
/// entry yet or the result does not read back so: the caller then appends
/// them one by one (with [`append`]'s fallbacks).
pub(crate) fn append_many(
    src: &str,
    doc: &Document,
    items: &[(&str, &str, Option<&str>)],
) -> Option<(String, Document)> {
    let last = doc.entries.last()?;
    let eol = doc.eol;
    let line = &src[last.item.start..];
    let lead = line.len() - line.trim_start_matches(' ').len();
    let line_end = line_end_with_eol(src, last.item.end);
    let (at, pre, post) = if ends_with_eol(&src[..line_end]) {
        (line_end, "", eol)
    } else {
        (src.len(), eol, "")
    };
    let mut with = String::from(pre);
    let mut news = Vec::with_capacity(items.len());
    let mut marker = last.marker;
    for (k, &(text, id, meta)) in items.iter().enumerate() {
        marker = marker.next();
        let item = render_item(lead, marker, text, meta, eol);
        let start = at + with.len();
        news.push(Want {
            id: Cow::Borrowed(id),
            text,
            item: start..start + item.len(),
            meta: meta.map(|m| start + item.len() - m.len()..start + item.len()),
        });
        with.push_str(&item);
        with.push_str(if k + 1 < items.len() { eol } else { post });
    }
    if joins_crlf(src, &(at..at), &with) {
        return None;
    }
    let out = splice(src, at..at, &with);
    let mut want = kept(doc, None, &(at..at), with.len());
    want.extend(news);
    parses_to((src, doc), at, &out, want).map(|d| (out, d))
}

fn entry_at(doc: &Document, index: usize) -> Result<&Entry, Unplaceable> {
    doc.entries
        .get(index)
        .ok_or_else(|| Unplaceable(format!("no entry at index {index}")))
}

fn splice(src: &str, range: Range<usize>, with: &str) -> String {
    let mut out = String::with_capacity(src.len() - range.len() + with.len());
    out.push_str(&src[..range.start]);
    out.push_str(with);
    out.push_str(&src[range.end..]);
    out
}

/// Whether putting `with` in place of `range` would join a lone CR and an LF
/// into one CRLF line ending (in a file that mixes them).
fn joins_crlf(src: &str, range: &Range<usize>, with: &str) -> bool {
    let (head, tail) = (&src[..range.start], &src[range.end..]);
    let cr_before = if with.is_empty() {
        head.ends_with('\r')
    } else {
        with.ends_with('\r')
    };
    cr_before && tail.starts_with('\n') || head.ends_with('\r') && with.starts_with('\n')
}

fn is_empty_line(line: &str) -> bool {
    matches!(line, "" | "\n" | "\r\n" | "\r")
}

fn last_line_is_empty(body: &str) -> bool {
    let without = &body[..body.len() - eol_len_at_end(body)];
    without.is_empty() || ends_with_eol(without)
}

/// An entry an edit must leave: its text, its item's bytes and its metadata
/// comment's.
struct Want<'a> {
    id: Cow<'a, str>,
    text: &'a str,
    item: Range<usize>,
    meta: Option<Range<usize>>,
}

/// The entries of `doc` (all but `skip`) where they lie once `cut` has been
/// replaced by `added` bytes.
fn kept<'a>(
    doc: &'a Document,
    skip: Option<usize>,
    cut: &Range<usize>,
    added: usize,
) -> Vec<Want<'a>> {
    let start = |at: usize| {
        if at >= cut.end {
            at - cut.len() + added
        } else {
            at
        }
    };
    // An entry ending where bytes are inserted keeps its end.
    let end = |at: usize| {
        if at > cut.start && at >= cut.end {
            at - cut.len() + added
        } else {
            at
        }
    };
    doc.entries
        .iter()
        .enumerate()
        .filter(|&(i, _)| Some(i) != skip)
        .map(|(_, e)| Want {
            id: Cow::Borrowed(&e.id),
            text: &e.text,
            item: start(e.item.start)..end(e.item.end),
            meta: e.meta.as_ref().map(|m| start(m.start)..end(m.end)),
        })
        .collect()
}

/// `out`'s parse if it holds exactly the entries `want` (by text and
/// bytes), with their ids (the check parses without ids: an entry that reads
/// back with the same text has the same id). `out` is `src` (parsed as
/// `doc`) with bytes changed from `from` on; see [`parse_after`] for how
/// much of it is parsed.
fn parses_to(
    (src, doc): (&str, &Document),
    from: usize,
    out: &str,
    want: Vec<Want>,
) -> Option<Document> {
    let mut doc = parse_after(src, doc, from, out);
    let same = doc.entries.len() == want.len()
        && doc
            .entries
            .iter()
            .zip(&want)
            .all(|(e, w)| e.text == w.text && e.item == w.item && e.meta == w.meta);
    if !same {
        return None;
    }
    for (e, w) in doc.entries.iter_mut().zip(want) {
        // The entries kept from before the edit have their ids already.
        if e.id != *w.id {
            e.id = w.id.into_owned();
        }
    }
    Some(doc)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::markdown::parse;

    const M: Scope = Scope::Memory;

    fn add(src: &str, text: &str) -> String {
        let id = entry_id("memory", text);
        append(src, &parse(M, src), (text, &id), None).unwrap().0
    }

    #[test]
    fn many_edits_at_once_give_the_bytes_of_one_by_one() {
        let srcs = [
            "- a\n- b <!-- memdir created=2026-01-01T00:00:00Z -->\n- c\n- d\n",
            "# T\n\n- a\n\n- b\n\n- c <!-- memdir x=1 -->\n\n- d\n",
            "- a\r\n- b\r\n- c\r\n- d",
            "1. a\n2. b\n3. c\n4. d\n",
        ];
        for src in srcs {
            let doc = parse(M, src);
            let metas = vec![(2, "<!-- memdir review=r -->".to_owned())];
            let (many, many_doc) = edit_many(src, &doc, &[0, 3], &metas).unwrap();
            let (mut one, mut d) = set_meta(src, &doc, 2, &metas[0].1).unwrap();
            for i in [3, 0] {
                (one, d) = remove(&one, &d, i).unwrap();
            }
            assert_eq!(many, one, "{src:?}");
            assert_eq!(many_doc, d);
            let items = [
                ("new x", "mem_x", Some("<!-- memdir a=1 -->")),
                ("new\ny", "mem_y", None),
            ];
            let (all, all_doc) = append_many(&many, &many_doc, &items).unwrap();
            let (mut seq, mut sd) = (many.clone(), many_doc.clone());
            for (t, i, m) in items {
                (seq, sd) = append(&seq, &sd, (t, i), m).unwrap();
            }
            assert_eq!(all, seq, "{src:?}");
            assert_eq!(all_doc, sd);
        }
        // Edits that touch each other are left to the one-by-one path.
        let src = "- a\n- b\n";
        let doc = parse(M, src);
        assert!(edit_many(src, &doc, &[0], &[(0, "<!-- memdir -->".into())]).is_none());
    }

    fn rm_last(src: &str) -> String {
        let d = parse(M, src);
        remove(src, &d, d.entries.len() - 1).unwrap().0
    }

    fn rm(src: &str, d: &Document, i: usize) -> String {
        remove(src, d, i).unwrap().0
    }

    fn rep(src: &str, i: usize, text: &str) -> Result<String, Unplaceable> {
        replace(M, src, &parse(M, src), i, text).map(|(s, _)| s)
    }

    fn meta(src: &str, i: usize, m: &str) -> Result<String, Unplaceable> {
        set_meta(src, &parse(M, src), i, m).map(|(s, _)| s)
    }

    #[test]
    fn append_after_last_entry_in_file_style() {
        assert_eq!(add("* a\n\n# H\n", "b"), "* a\n* b\n\n# H\n");
        assert_eq!(add("- a\r\n", "b\nc"), "- a\r\n- b\r\n  c\r\n");
        assert_eq!(add("9. a\n", "b"), "9. a\n10. b\n");
        assert_eq!(add("- a", "b"), "- a\n- b");
        assert_eq!(add("  - a\n", "b"), "  - a\n  - b\n");
    }

    #[test]
    fn append_without_entries() {
        assert_eq!(add("", "x"), "- x\n");
        assert_eq!(add("# Notes\n", "x"), "# Notes\n\n- x\n");
        assert_eq!(add("# Notes\n\n", "x"), "# Notes\n\n- x\n\n");
        assert_eq!(add("# Notes", "x"), "# Notes\n\n- x");
        assert_eq!(
            add("---\nbudget: 900\n---\n", "x"),
            "---\nbudget: 900\n---\n- x\n"
        );
    }

    #[test]
    fn append_falls_back_to_the_top_when_the_end_is_open() {
        let src = "intro\n\n```\nunclosed fence\n";
        assert_eq!(add(src, "x"), "- x\n\nintro\n\n```\nunclosed fence\n");
        let d = parse(M, &add(src, "x"));
        assert_eq!(rm(&add(src, "x"), &d, 0), src);
    }

    #[test]
    fn add_then_remove_is_identity() {
        for src in [
            "",
            "- a\n",
            "- a",
            "# H\n",
            "# H",
            "# H\n\n",
            "- a\n\n- b\n\n",
            "---\nx: 1\n---\n",
            "---\nx: 1\n---",
            "\u{feff}- a\r\n",
            "text\n  ",
            "<div>\n",
        ] {
            assert_eq!(rm_last(&add(src, "new entry")), src, "{src:?}");
        }
    }

    #[test]
    fn remove_takes_one_blank_line_with_it() {
        let src = "- a\n\n- b\n\n- c\n";
        let d = parse(M, src);
        assert_eq!(rm(src, &d, 1), "- a\n\n- c\n");
        assert_eq!(rm(src, &d, 0), "- b\n\n- c\n");
        assert_eq!(rm(src, &d, 2), "- a\n\n- b\n");
        let src = "# H\n\n- only\n\n# I\n";
        assert_eq!(rm(src, &parse(M, src), 0), "# H\n\n# I\n");
    }

    #[test]
    fn replace_touches_only_the_body() {
        let src = "# H\r\n\r\n* old text <!-- memdir c=1 -->\r\n* keep\r\n";
        let out = rep(src, 0, "new\ntext").unwrap();
        assert_eq!(
            out,
            "# H\r\n\r\n* new\r\n  text <!-- memdir c=1 -->\r\n* keep\r\n"
        );
    }

    #[test]
    fn replace_refuses_text_that_would_split_the_entry() {
        let src = "- a\n- b\n";
        // A line that is itself a top-level item cannot be written as continuation.
        assert!(rep(src, 0, "x\n\n\n\ny").is_ok());
        let out = rep(src, 0, "x\n- y");
        assert_eq!(out.unwrap(), "- x\n  - y\n- b\n");
    }

    #[test]
    fn set_meta_adds_and_replaces() {
        let src = "- a\n- b <!-- memdir x -->\n";
        assert_eq!(
            meta(src, 0, "<!-- memdir y -->").unwrap(),
            "- a <!-- memdir y -->\n- b <!-- memdir x -->\n"
        );
        assert_eq!(
            meta(src, 1, "<!-- memdir z -->").unwrap(),
            "- a\n- b <!-- memdir z -->\n"
        );
    }

    #[test]
    fn normalize_text_trims() {
        assert_eq!(normalize_text("  a  \r\n b \n\n"), "a\n b");
        assert_eq!(normalize_text("a\rb\r\nc"), "a\nb\nc");
    }

    #[test]
    fn replace_fills_an_empty_item() {
        let src = "*\n";
        assert_eq!(rep(src, 0, "x").unwrap(), "* x\n");
        let src = "- <!-- memdir c=1 -->\n";
        assert_eq!(rep(src, 0, "x").unwrap(), "- x <!-- memdir c=1 -->\n");
        // One space would pull `  foo` into the item; two keep it out.
        let src = "-\n\n  foo\n";
        assert_eq!(rep(src, 0, "x").unwrap(), "-  x\n\n  foo\n");
    }

    #[test]
    fn replace_keeps_a_following_paragraph_out() {
        // The entry ended in a code block; a paragraph in its place would take
        // `Next` in as a lazy line, so a blank line follows the text.
        let src = "- ```\n  x\n  ```\nNext\n";
        let out = rep(src, 0, "y").unwrap();
        assert_eq!(out, "- y\n\nNext\n");
    }

    #[test]
    fn append_changes_bullet_where_the_text_would_be_a_rule() {
        assert_eq!(add("* a\n", "**"), "* a\n- **\n");
    }

    #[test]
    fn append_checks_where_the_entry_ends() {
        // After `a`, the indented comment would become the new entry's.
        let src = "-\t \u{3000}\n   <!-- memdir c=1 -->\n> q";
        let out = add(src, "x");
        assert_eq!(out, format!("{src}\n\n- x"));
        assert_eq!(rm_last(&out), src);
    }

    #[test]
    fn append_at_the_top_with_a_separator() {
        // The end is inside a fence and the top's indented line would join.
        let src = "    - \n```";
        let out = add(src, "x");
        assert_eq!(out, "- x\n\n<!-- memdir -->\n\n    - \n```");
        let d = parse(M, &out);
        assert_eq!(rm(&out, &d, 0), src);
    }

    #[test]
    fn append_in_mixed_line_endings_round_trips() {
        for src in [
            "\u{feff}\n",
            "---\nbudget: 300\n---\n\r\n",
            "\n \r",
            "a\r\n\nb\r",
        ] {
            assert_eq!(rm_last(&add(src, "x")), src, "{src:?}");
        }
    }

    #[test]
    fn remove_keeps_a_blank_line_where_the_next_item_would_join() {
        // `1.` (empty) cannot interrupt the paragraph `foo`.
        let src = "foo\n -     foo\n1.";
        let d = parse(M, src);
        assert_eq!(rm(src, &d, 0), "foo\n\n1.");
    }

    #[test]
    fn set_meta_refuses_an_open_code_block() {
        let src = "- a\n- ```\n  code";
        assert!(meta(src, 1, "<!-- memdir x -->").is_err());
    }

    /// The parse an edit hands back (its check's, with ids carried over) is
    /// the parse of what it wrote, for every CommonMark spec example with
    /// LF and CRLF line endings.
    #[test]
    fn edits_hand_back_the_parse_of_what_they_wrote() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/fixtures/commonmark/spec-examples.json"
        );
        let json: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        let examples = json["examples"].as_array().unwrap();
        let meta = "<!-- memdir updated=2026-11-30 -->";
        let mut checked = 0;
        for ex in examples {
            let md = ex["markdown"].as_str().unwrap();
            for src in [md.to_owned(), md.replace('\n', "\r\n")] {
                let doc = parse(Scope::User, &src);
                let probe = ("probe\ntwo", &*entry_id("user", "probe\ntwo"));
                let mut results = vec![append(&src, &doc, probe, Some(meta))];
                for i in 0..doc.entries.len() {
                    results.push(remove(&src, &doc, i));
                    results.push(replace(Scope::User, &src, &doc, i, "new text"));
                    results.push(set_meta(&src, &doc, i, meta));
                }
                for (out, got) in results.into_iter().flatten() {
                    assert_eq!(got, parse(Scope::User, &out), "{src:?} -> {out:?}");
                    checked += 1;
                }
            }
        }
        assert!(checked > 2_000, "{checked} edits checked");
    }
}
