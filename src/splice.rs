//! Edits as byte splices: append, replace and remove entries.
//!
//! Pure: no I/O. Every edit changes only the bytes of the entry it concerns
//! (plus, for an append or a removal, the line ending and at most one blank
//! line around it) and is checked by parsing the result again.

use crate::parse::{Document, Entry, Marker, line_end_with_eol, line_start, parse};

/// Why an edit could not be placed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unplaceable(pub String);

/// Normalises text given for an entry: CRLF to LF, line ends and the whole trimmed.
pub fn normalize_text(text: &str) -> String {
    text.split('\n')
        .map(|l| l.trim_end())
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

/// Appends an entry with `text` (already normalised) after the last entry, or
/// at the end of the file when there is none, in the file's bullet style and
/// line endings. Falls back to a blank-line separator, then to the top of the
/// body, where a plain append would merge into a preceding construct.
pub fn append(
    scope: &str,
    src: &str,
    doc: &Document,
    text: &str,
    meta: Option<&str>,
) -> Result<String, Unplaceable> {
    let eol = doc.eol;
    let new_id = crate::id::entry_id(scope, text);
    let mut want: Vec<&str> = doc.entries.iter().map(|e| e.id.as_str()).collect();
    want.push(&new_id);

    if let Some(last) = doc.entries.last() {
        let lead =
            src[last.item.start..].len() - src[last.item.start..].trim_start_matches(' ').len();
        let item = render_item(lead, last.marker.next(), text, meta, eol);
        let line_end = line_end_with_eol(src, last.item.end);
        let out = if src[..line_end].ends_with('\n') {
            splice(src, line_end..line_end, &format!("{item}{eol}"))
        } else {
            splice(src, src.len()..src.len(), &format!("{eol}{item}"))
        };
        if ids_are(scope, &out, &want) {
            return Ok(out);
        }
    }

    let item = render_item(0, first_marker(doc), text, meta, eol);
    let body_start = doc.body_start(src);
    let body = &src[body_start..];
    let tail = if body.is_empty() {
        if body_start == 0 || src.ends_with('\n') {
            format!("{item}{eol}")
        } else {
            format!("{eol}{item}")
        }
    } else if body.ends_with('\n') {
        if last_line_is_empty(body) {
            format!("{item}{eol}{eol}")
        } else {
            format!("{eol}{item}{eol}")
        }
    } else {
        format!("{eol}{eol}{item}")
    };
    let out = format!("{src}{tail}");
    if ids_are(scope, &out, &want) {
        return Ok(out);
    }

    if !body.is_empty() {
        let out = splice(src, body_start..body_start, &format!("{item}{eol}{eol}"));
        let mut want_top = vec![new_id.as_str()];
        want_top.extend(doc.entries.iter().map(|e| e.id.as_str()));
        if ids_are(scope, &out, &want_top) {
            return Ok(out);
        }
    }
    Err(Unplaceable(
        "appended text would merge into the content before it (an unclosed code block or HTML block?)".into(),
    ))
}

/// The marker for a file's first entry: the style of the last entry, else `-`.
fn first_marker(doc: &Document) -> Marker {
    doc.entries
        .last()
        .map_or(Marker::Bullet('-'), |e| e.marker.next())
}

/// Replaces the text of `entry` with `text` (already normalised), keeping its
/// marker, indentation and metadata comment.
pub fn replace(
    scope: &str,
    src: &str,
    doc: &Document,
    index: usize,
    text: &str,
) -> Result<String, Unplaceable> {
    let entry = entry_at(doc, index)?;
    let out = splice(
        src,
        entry.body.clone(),
        &render_body(text, entry.indent, doc.eol),
    );
    let new_id = crate::id::entry_id(scope, text);
    let want: Vec<&str> = doc
        .entries
        .iter()
        .enumerate()
        .map(|(i, e)| {
            if i == index {
                new_id.as_str()
            } else {
                e.id.as_str()
            }
        })
        .collect();
    if ids_are(scope, &out, &want) {
        Ok(out)
    } else {
        Err(Unplaceable(
            "the new text would change the entries around it".into(),
        ))
    }
}

/// Replaces (or adds) the metadata comment of `entry`.
pub fn set_meta(
    src: &str,
    doc: &Document,
    index: usize,
    meta: &str,
) -> Result<String, Unplaceable> {
    let entry = entry_at(doc, index)?;
    Ok(match &entry.meta {
        Some(r) => splice(src, r.clone(), meta),
        None => splice(src, entry.item.end..entry.item.end, &format!(" {meta}")),
    })
}

/// Removes `entry`: its lines with their line ending, and one blank line where
/// the entry stood between two blank lines (or a blank line and the file's
/// start or end), so that appending and then removing an entry gives back the
/// original bytes.
pub fn remove(src: &str, doc: &Document, index: usize) -> Result<String, Unplaceable> {
    let entry = entry_at(doc, index)?;
    let body_start = doc.body_start(src);
    let mut cut_start = entry.item.start;
    let mut cut_end = line_end_with_eol(src, entry.item.end);
    let has_eol = src[..cut_end].ends_with('\n');

    let prev = (cut_start > body_start).then(|| line_start(src, cut_start - 1)..cut_start);
    let next = (cut_end < src.len()).then(|| cut_end..line_end_with_eol(src, cut_end));
    let blank = |r: &std::ops::Range<usize>| is_empty_line(&src[r.clone()]);
    let prev_blank = prev.as_ref().is_some_and(blank);
    let next_blank = next.as_ref().is_some_and(blank);
    if prev_blank && (next_blank || next.is_none()) {
        if let Some(p) = &prev {
            cut_start = p.start;
        }
    } else if prev.is_none()
        && next_blank
        && let Some(n) = &next
    {
        cut_end = n.end;
    }
    if !has_eol && cut_start > 0 && src[..cut_start].ends_with('\n') {
        cut_start -= if src[..cut_start].ends_with("\r\n") {
            2
        } else {
            1
        };
    }
    Ok(splice(src, cut_start..cut_end, ""))
}

fn entry_at(doc: &Document, index: usize) -> Result<&Entry, Unplaceable> {
    doc.entries
        .get(index)
        .ok_or_else(|| Unplaceable(format!("no entry at index {index}")))
}

fn splice(src: &str, range: std::ops::Range<usize>, with: &str) -> String {
    let mut out = String::with_capacity(src.len() - range.len() + with.len());
    out.push_str(&src[..range.start]);
    out.push_str(with);
    out.push_str(&src[range.end..]);
    out
}

fn is_empty_line(line: &str) -> bool {
    line.is_empty() || line == "\n" || line == "\r\n"
}

fn last_line_is_empty(body: &str) -> bool {
    let without = body.strip_suffix('\n').unwrap_or(body);
    let without = without.strip_suffix('\r').unwrap_or(without);
    without.is_empty() || without.ends_with('\n')
}

fn ids_are(scope: &str, src: &str, want: &[&str]) -> bool {
    let doc = parse(scope, src);
    doc.entries.len() == want.len() && doc.entries.iter().zip(want).all(|(e, w)| e.id == *w)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn add(src: &str, text: &str) -> String {
        append("memory", src, &parse("memory", src), text, None).unwrap()
    }

    fn rm_last(src: &str) -> String {
        let d = parse("memory", src);
        remove(src, &d, d.entries.len() - 1).unwrap()
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
        let d = parse("memory", &add(src, "x"));
        assert_eq!(remove(&add(src, "x"), &d, 0).unwrap(), src);
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
        let d = parse("memory", src);
        assert_eq!(remove(src, &d, 1).unwrap(), "- a\n\n- c\n");
        assert_eq!(remove(src, &d, 0).unwrap(), "- b\n\n- c\n");
        assert_eq!(remove(src, &d, 2).unwrap(), "- a\n\n- b\n");
        let src = "# H\n\n- only\n\n# I\n";
        assert_eq!(
            remove(src, &parse("memory", src), 0).unwrap(),
            "# H\n\n# I\n"
        );
    }

    #[test]
    fn replace_touches_only_the_body() {
        let src = "# H\r\n\r\n* old text <!-- memdir c=1 -->\r\n* keep\r\n";
        let d = parse("memory", src);
        let out = replace("memory", src, &d, 0, "new\ntext").unwrap();
        assert_eq!(
            out,
            "# H\r\n\r\n* new\r\n  text <!-- memdir c=1 -->\r\n* keep\r\n"
        );
    }

    #[test]
    fn replace_refuses_text_that_would_split_the_entry() {
        let src = "- a\n- b\n";
        let d = parse("memory", src);
        // A line that is itself a top-level item cannot be written as continuation.
        assert!(replace("memory", src, &d, 0, "x\n\n\n\ny").is_ok());
        let out = replace("memory", src, &d, 0, "x\n- y");
        assert_eq!(out.unwrap(), "- x\n  - y\n- b\n");
    }

    #[test]
    fn set_meta_adds_and_replaces() {
        let src = "- a\n- b <!-- memdir x -->\n";
        let d = parse("memory", src);
        assert_eq!(
            set_meta(src, &d, 0, "<!-- memdir y -->").unwrap(),
            "- a <!-- memdir y -->\n- b <!-- memdir x -->\n"
        );
        assert_eq!(
            set_meta(src, &d, 1, "<!-- memdir z -->").unwrap(),
            "- a\n- b <!-- memdir z -->\n"
        );
    }

    #[test]
    fn normalize_text_trims() {
        assert_eq!(normalize_text("  a  \r\n b \n\n"), "a\n b");
    }
}
