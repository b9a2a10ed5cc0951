//! Parsing a curated store (MEMORY.md, USER.md) into entries with byte ranges.
//!
//! Pure: no I/O. Structure comes from pulldown-cmark's offset iterator; the
//! text of each entry is cut from the source bytes, never re-rendered.

use std::ops::Range;

use pulldown_cmark::{Event, MetadataBlockKind, Options, Parser, Tag, TagEnd};

use super::conflict::{self, Conflict};
use crate::model::{Meta, Scope, entry_id};

/// The byte-order mark a file may start with.
pub const BOM: &str = "\u{feff}";

/// The prefix of the metadata comment that may close an entry.
pub const META_PREFIX: &str = "<!-- memdir";

/// The list marker of an entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Marker {
    /// `-`, `*` or `+`.
    Bullet(char),
    /// A number and its delimiter (`.` or `)`).
    Ordered(u64, char),
}

impl Entry {
    /// The entry's metadata comment in `src` (the source it was parsed from).
    pub fn meta_comment<'a>(&self, src: &'a str) -> Option<&'a str> {
        self.meta.clone().and_then(|r| src.get(r))
    }

    /// The entry's metadata, read from its comment in `src` (empty when it
    /// has none).
    pub fn metadata(&self, src: &str) -> Meta {
        self.meta_comment(src).map(Meta::parse).unwrap_or_default()
    }
}

impl Marker {
    /// The marker as written, e.g. `-` or `3.`.
    pub fn render(self) -> String {
        match self {
            Marker::Bullet(c) => c.to_string(),
            Marker::Ordered(n, d) => format!("{n}{d}"),
        }
    }

    /// The marker a new entry after this one takes.
    pub fn next(self) -> Marker {
        match self {
            Marker::Bullet(c) => Marker::Bullet(c),
            Marker::Ordered(n, d) => Marker::Ordered(n.saturating_add(1), d),
        }
    }
}

/// One entry: a top-level list item.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// `mem_` id over the scope and the folded text.
    pub id: String,
    /// The item's content, marker and continuation indentation removed, trimmed,
    /// without the metadata comment, line endings normalised to LF.
    pub text: String,
    /// The item's bytes: from the start of its first line to the end of its last
    /// non-blank content (line ending excluded).
    pub item: Range<usize>,
    /// The text's bytes in the source: from the first content byte after the marker
    /// to the end of the text (before the metadata comment).
    pub body: Range<usize>,
    /// The item's marker.
    pub marker: Marker,
    /// Column at which continuation lines of the content start.
    pub indent: usize,
    /// The metadata comment's bytes, when the entry has one.
    pub meta: Option<Range<usize>>,
}

/// YAML front matter at the top of a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FrontMatter {
    /// The whole block, fences included.
    pub range: Range<usize>,
    /// The YAML between the fences.
    pub yaml: String,
}

/// A parsed curated store.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Document {
    /// Whether the file starts with a byte-order mark.
    pub bom: bool,
    /// Front matter, when present.
    pub front_matter: Option<FrontMatter>,
    /// The entries, in file order.
    pub entries: Vec<Entry>,
    /// The file's line ending: that of its first line (`\n`, `\r\n`, or a lone
    /// `\r`, which CommonMark also counts as one), else `\n`.
    pub eol: &'static str,
    /// Regions between git conflict markers (outside code blocks).
    pub conflicts: Vec<Conflict>,
}

impl Document {
    /// Where the markdown body starts: after the BOM and the front matter.
    pub fn body_start(&self, src: &str) -> usize {
        let base = if self.bom { BOM.len() } else { 0 };
        match &self.front_matter {
            Some(fm) => line_end_with_eol(src, fm.range.end),
            None => base,
        }
    }
}

/// Parses `src` as a store of the given scope (its entry ids are over it).
pub fn parse(scope: Scope, src: &str) -> Document {
    parse_with(Some(scope.name()), src)
}

/// [`parse`] with the entry ids over `id_scope`: a store's scope name, or
/// what another file of entries computes its ids over (the learnings'
/// [`crate::model::LEARNING_ID_SCOPE`]).
pub fn parse_over(id_scope: &str, src: &str) -> Document {
    parse_with(Some(id_scope), src)
}

/// [`parse`] without computing entry ids (each `id` is empty): for readers
/// that need ids only for a few entries, such as the snapshot.
pub fn parse_without_ids(src: &str) -> Document {
    parse_with(None, src)
}

fn parse_with(scope: Option<&str>, src: &str) -> Document {
    let doc = parse_plain(scope, src);
    if doc.conflicts.is_empty() {
        return doc;
    }
    // Git conflict markers: their lines would join the entries around them
    // (a marker line is a lazy continuation of the item before it), so the
    // entries are read from the text with each region blanked out (the same
    // bytes, as spaces: every range still holds for `src`).
    let mut masked = src.as_bytes().to_vec();
    for c in &doc.conflicts {
        for b in &mut masked[c.bytes.clone()] {
            if *b != b'\n' && *b != b'\r' {
                *b = b' ';
            }
        }
    }
    let Ok(masked) = String::from_utf8(masked) else {
        return doc;
    };
    let mut out = parse_plain(scope, &masked);
    // Texts are cut from `src`, where they are the same bytes.
    out.conflicts = doc.conflicts;
    out
}

/// One parse of `src`: entries, front matter, line ending, and the conflict
/// regions (outside code blocks).
fn parse_plain(scope: Option<&str>, src: &str) -> Document {
    let bom = src.starts_with(BOM);
    let base = if bom { BOM.len() } else { 0 };
    let body = &src[base..];
    let eol = match find_eol(src) {
        Some(i) if src[i..].starts_with("\r\n") => "\r\n",
        Some(i) if src[i..].starts_with('\r') => "\r",
        _ => "\n",
    };
    let mut opts = Options::empty();
    opts.insert(Options::ENABLE_YAML_STYLE_METADATA_BLOCKS);

    let mut front_matter = None;
    let mut entries = Vec::new();
    let mut depth = 0usize;
    let mut in_fm: Option<(Range<usize>, String)> = None;
    let mut item: Option<(Range<usize>, Option<Range<usize>>)> = None;
    // Code blocks, only where a conflict marker may be (their lines are text).
    let markers = conflict::may_have_markers(src);
    let mut code = Vec::new();

    for (event, r) in Parser::new_ext(body, opts).into_offset_iter() {
        let r = r.start + base..r.end + base;
        if markers && matches!(event, Event::Start(Tag::CodeBlock(_))) {
            code.push(r.clone());
        }
        match event {
            // Front matter only at the top: pulldown-cmark also takes a `---`
            // block further down for one.
            Event::Start(Tag::MetadataBlock(MetadataBlockKind::YamlStyle))
                if depth == 0 && r.start == base =>
            {
                in_fm = Some((r, String::new()));
                depth += 1;
            }
            Event::End(TagEnd::MetadataBlock(_)) if in_fm.is_some() => {
                depth -= 1;
                if let Some((range, yaml)) = in_fm.take() {
                    front_matter = Some(FrontMatter { range, yaml });
                }
            }
            Event::Text(t) if in_fm.is_some() => {
                if let Some((_, yaml)) = in_fm.as_mut() {
                    yaml.push_str(&t);
                }
            }
            Event::Start(Tag::Item) => {
                if depth == 1 {
                    item = Some((r, None));
                }
                depth += 1;
            }
            Event::End(TagEnd::Item) => {
                depth -= 1;
                if depth == 1
                    && let Some((range, meta)) = item.take()
                    && let Some(e) = entry(scope, src, base, range, meta)
                {
                    entries.push(e);
                }
            }
            Event::Start(_) => depth += 1,
            Event::End(_) => depth = depth.saturating_sub(1),
            Event::Html(h) | Event::InlineHtml(h) if h.trim_start().starts_with(META_PREFIX) => {
                if let Some((_, meta)) = item.as_mut() {
                    let t = trim_end_at(src, r.start, r.end);
                    let seg = &src[r.start..t];
                    let s = t - seg.trim_start_matches(MD_WHITESPACE).len();
                    if src[s..t].starts_with(META_PREFIX) && src[s..t].ends_with("-->") {
                        *meta = Some(s..t);
                    }
                }
            }
            _ => {}
        }
    }
    Document {
        bom,
        front_matter,
        entries,
        eol,
        conflicts: if markers {
            conflict::find(src, &code)
        } else {
            Vec::new()
        },
    }
}

/// Builds an entry from an item's event range.
fn entry(
    scope: Option<&str>,
    src: &str,
    base: usize,
    range: Range<usize>,
    meta: Option<Range<usize>>,
) -> Option<Entry> {
    let start = line_start(src, range.start).max(base);
    let end = trim_end_at(src, start, range.end);
    // The marker: after up to three spaces of indentation.
    let line = &src[start..end];
    let lead = line.len() - line.trim_start_matches(' ').len();
    let rest = &line[lead..];
    let (marker, mlen) = read_marker(rest)?;
    let after = start + lead + mlen;
    // Content column: marker end plus 1–4 columns of whitespace; 5 or more, or
    // a blank first line, means one.
    let first_line_end = find_eol(&src[after..end]).map_or(end, |i| after + i);
    let gap = &src[after..first_line_end];
    let gap_cols = columns(gap, lead + mlen);
    let ws = gap.len() - gap.trim_start_matches([' ', '\t']).len();
    let spaces = columns(&gap[..ws], lead + mlen);
    let indent = if ws == gap.len() || spaces > 4 || gap_cols == 0 {
        lead + mlen + 1
    } else {
        lead + mlen + spaces
    };
    let body_start = if ws == gap.len() {
        src[first_line_end..end]
            .char_indices()
            .find(|&(_, c)| !c.is_whitespace())
            .map_or(end, |(i, _)| first_line_end + i)
    } else if indent == lead + mlen + 1 && ws > 1 && gap.starts_with(' ') {
        // Five columns or more: the content is indented code. The body starts
        // after the one space that parts it from the marker, so that new text
        // written there is text.
        after + 1
    } else {
        after + ws
    };
    // The metadata comment counts only where it closes the item.
    let meta = meta.filter(|m| m.end == end);
    let body_end = match &meta {
        Some(m) => trim_end_at(src, body_start.min(m.start), m.start),
        None => end,
    };
    let body_start = body_start.min(body_end);
    let text = dedent(&src[body_start..body_end], indent);
    Some(Entry {
        id: scope.map(|s| entry_id(s, &text)).unwrap_or_default(),
        text,
        item: start..end,
        body: body_start..body_end,
        marker,
        indent,
        meta,
    })
}

/// Reads a list marker at the start of `s`; returns it and its byte length.
pub(crate) fn read_marker(s: &str) -> Option<(Marker, usize)> {
    let b = s.as_bytes();
    match b.first()? {
        c @ (b'-' | b'*' | b'+') => Some((Marker::Bullet(*c as char), 1)),
        _ => {
            let digits = b.iter().take_while(|c| c.is_ascii_digit()).count();
            if digits == 0 || digits > 9 {
                return None;
            }
            let delim = *b.get(digits)?;
            if delim != b'.' && delim != b')' {
                return None;
            }
            let n = s[..digits].parse().ok()?;
            Some((Marker::Ordered(n, delim as char), digits + 1))
        }
    }
}

/// Removes up to `indent` columns of leading whitespace from every line after
/// the first, joins with LF and trims the whole.
fn dedent(s: &str, indent: usize) -> String {
    if find_eol(s).is_none() {
        return s.trim().to_owned();
    }
    let mut out = String::with_capacity(s.len());
    for (i, line) in lines(s).enumerate() {
        if i > 0 {
            out.push('\n');
            let mut col = 0;
            let mut cut = 0;
            for (j, c) in line.char_indices() {
                if col >= indent || !(c == ' ' || c == '\t') {
                    break;
                }
                col = if c == '\t' {
                    col + 4 - col % 4
                } else {
                    col + 1
                };
                cut = j + 1;
            }
            // A tab that reaches past the indentation leaves its remaining
            // columns as spaces, as CommonMark reads it.
            let rest = line[cut..].trim_end();
            if !rest.is_empty() {
                out.extend(std::iter::repeat_n(' ', col.saturating_sub(indent)));
            }
            out.push_str(rest);
        } else {
            out.push_str(line.trim_end());
        }
    }
    out.trim().to_owned()
}

/// Columns taken by whitespace `s` starting at column `from` (tabs to multiples of 4).
fn columns(s: &str, from: usize) -> usize {
    let mut col = from;
    for c in s.chars() {
        match c {
            '\t' => col += 4 - col % 4,
            ' ' => col += 1,
            _ => break,
        }
    }
    col - from
}

/// Where the first line ending (`\n` or `\r`) of `s` starts.
pub(crate) fn find_eol(s: &str) -> Option<usize> {
    memchr::memchr2(b'\n', b'\r', s.as_bytes())
}

/// The lines of `s` without their endings (`\n`, `\r\n` or a lone `\r`).
pub(crate) fn lines(s: &str) -> impl Iterator<Item = &str> {
    s.split('\n')
        .flat_map(|l| l.strip_suffix('\r').unwrap_or(l).split('\r'))
}

/// The start of the line holding byte `at` (a line ending belongs to the line
/// it ends).
pub(crate) fn line_start(src: &str, at: usize) -> usize {
    let b = src.as_bytes();
    let mut i = at.min(b.len());
    while i > 0 {
        match b[i - 1] {
            b'\n' => break,
            b'\r' if b.get(i) != Some(&b'\n') => break,
            _ => i -= 1,
        }
    }
    i
}

/// The end of the line holding byte `at`, past its line ending.
pub(crate) fn line_end_with_eol(src: &str, at: usize) -> usize {
    match find_eol(&src[at..]) {
        Some(i) if src[at + i..].starts_with("\r\n") => at + i + 2,
        Some(i) => at + i + 1,
        None => src.len(),
    }
}

/// Whether `s` ends with a line ending.
pub(crate) fn ends_with_eol(s: &str) -> bool {
    s.ends_with(['\n', '\r'])
}

/// The length of the line ending `s` ends with (0 when none).
pub(crate) fn eol_len_at_end(s: &str) -> usize {
    if s.ends_with("\r\n") {
        2
    } else {
        usize::from(ends_with_eol(s))
    }
}

/// Whitespace as CommonMark counts it. Other Unicode whitespace (a no-break
/// or an ideographic space) is content to the markdown, so it stays in an
/// entry's range even where the entry's text trims it.
const MD_WHITESPACE: [char; 6] = [' ', '\t', '\n', '\r', '\u{b}', '\u{c}'];

/// `end` moved back over trailing whitespace, not before `floor`.
fn trim_end_at(src: &str, floor: usize, end: usize) -> usize {
    floor + trim_md_end(&src[floor..end]).len()
}

/// `s` without trailing whitespace (as CommonMark counts it).
pub(crate) fn trim_md_end(s: &str) -> &str {
    s.trim_end_matches(MD_WHITESPACE)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(doc: &Document) -> Vec<&str> {
        doc.entries.iter().map(|e| e.text.as_str()).collect()
    }

    #[test]
    fn bullets_with_ranges() {
        let src = "- a\n- b\n";
        let d = parse(Scope::Memory, src);
        assert_eq!(texts(&d), ["a", "b"]);
        assert_eq!(d.entries[0].item, 0..3);
        assert_eq!(d.entries[0].body, 2..3);
        assert_eq!(d.entries[1].item, 4..7);
        assert_eq!(d.entries[1].marker, Marker::Bullet('-'));
        assert_eq!(d.eol, "\n");
    }

    #[test]
    fn headings_paragraphs_and_code_are_not_entries() {
        let src = "# Notes\n\nSome prose.\n\n```\n- not an entry\n```\n\n* one\n* two\n\n<!-- a comment -->\n";
        let d = parse(Scope::Memory, src);
        assert_eq!(texts(&d), ["one", "two"]);
        assert_eq!(d.entries[0].item, 46..51);
        assert_eq!(d.entries[0].marker, Marker::Bullet('*'));
    }

    #[test]
    fn multi_line_ordered_items_are_dedented() {
        let src = "1. first line\n   second line\n2. y";
        let d = parse(Scope::Memory, src);
        assert_eq!(texts(&d), ["first line\nsecond line", "y"]);
        assert_eq!(d.entries[0].item, 0..28);
        assert_eq!(d.entries[0].indent, 3);
        assert_eq!(d.entries[1].item, 29..33);
        assert_eq!(d.entries[1].marker, Marker::Ordered(2, '.'));
    }

    #[test]
    fn nested_lists_belong_to_their_entry() {
        let src = "- parent\n  - child\n- sibling\n";
        let d = parse(Scope::Memory, src);
        assert_eq!(texts(&d), ["parent\n- child", "sibling"]);
        assert_eq!(d.entries[0].item, 0..18);
    }

    #[test]
    fn crlf_bom_and_front_matter() {
        let src = "\u{feff}---\r\nbudget: 3000\r\n---\r\n- a\r\n- b\r\n";
        let d = parse(Scope::User, src);
        assert!(d.bom);
        assert_eq!(d.eol, "\r\n");
        let fm = d.front_matter.as_ref().unwrap();
        assert_eq!(fm.range, 3..25);
        assert!(fm.yaml.contains("budget: 3000"));
        assert_eq!(d.body_start(src), 27);
        assert_eq!(texts(&d), ["a", "b"]);
        assert_eq!(d.entries[0].item, 27..30);
    }

    #[test]
    fn bom_without_front_matter() {
        let src = "\u{feff}- a\n";
        let d = parse(Scope::Memory, src);
        assert_eq!(texts(&d), ["a"]);
        assert_eq!(d.entries[0].item, 3..6);
    }

    #[test]
    fn metadata_comment_is_split_off() {
        let src = "- the fact <!-- memdir created=2026-11-29 -->\n";
        let d = parse(Scope::Memory, src);
        let e = &d.entries[0];
        assert_eq!(e.text, "the fact");
        assert_eq!(e.body, 2..10);
        assert_eq!(e.meta, Some(11..45));
        // A comment in the middle is text.
        let d = parse(Scope::Memory, "- a <!-- memdir x --> b\n");
        assert_eq!(d.entries[0].text, "a <!-- memdir x --> b");
        assert_eq!(d.entries[0].meta, None);
    }

    #[test]
    fn lists_in_blockquotes_are_not_entries() {
        let d = parse(Scope::Memory, "> - quoted\n\n- real\n");
        assert_eq!(texts(&d), ["real"]);
    }

    #[test]
    fn empty_item_and_wide_gap() {
        let d = parse(Scope::Memory, "-\n  later\n-      code\n");
        assert_eq!(texts(&d), ["later", "code"]);
        assert_eq!(d.entries[0].indent, 2);
        assert_eq!(d.entries[1].indent, 2);
    }

    #[test]
    fn unicode_whitespace_before_a_body_does_not_panic() {
        // Was a panic: the search for the body stepped into a multi-byte space.
        let d = parse(Scope::Memory, "-\n  \u{3000}x\n");
        assert_eq!(texts(&d), ["x"]);
        assert_eq!(d.entries[0].item, 0..8);
        // Such spaces are content to CommonMark: they stay in the item.
        let d = parse(Scope::Memory, "- a\u{3000}\n");
        assert_eq!(d.entries[0].item, 0..6);
        assert_eq!(d.entries[0].text, "a");
    }

    #[test]
    fn lone_cr_ends_a_line() {
        let d = parse(Scope::Memory, "\r1.");
        assert_eq!(d.entries.len(), 1);
        assert_eq!(d.entries[0].item, 1..3);
        let d = parse(Scope::Memory, "- a\rb\r- c\r");
        assert_eq!(texts(&d), ["a\nb", "c"]);
        assert_eq!(d.eol, "\r");
    }

    #[test]
    fn a_tab_keeps_the_columns_it_reaches_past_the_indent() {
        // `\t` at column 0 reaches column 4; the content starts at 2.
        let d = parse(Scope::Memory, "- - \n\tfoo\n");
        assert_eq!(texts(&d), ["-\n  foo"]);
    }

    #[test]
    fn front_matter_only_at_the_top() {
        let d = parse(Scope::Memory, "- \n---\n- \n---");
        assert_eq!(d.front_matter, None);
        assert_eq!(d.body_start("- \n---\n- \n---"), 0);
    }

    #[test]
    fn metadata_comment_range_starts_at_the_comment() {
        let src = "- <b>\n   <!-- memdir created=2026-11-29 -->";
        let d = parse(Scope::Memory, src);
        assert_eq!(d.entries[0].meta, Some(9..43));
        assert_eq!(d.entries[0].text, "<b>");
    }

    #[test]
    fn indented_code_body_starts_after_one_space() {
        let d = parse(Scope::Memory, "-      code\n");
        assert_eq!(d.entries[0].body, 2..11);
        assert_eq!(d.entries[0].text, "code");
        // After a tab the body stays at the code.
        let d = parse(Scope::Memory, "-\t\tcode\n");
        assert_eq!(d.entries[0].body, 3..7);
    }

    #[test]
    fn ids_follow_text() {
        let d = parse(Scope::Memory, "- Prefers  weekly\n  summaries\n");
        assert_eq!(
            d.entries[0].id,
            entry_id("memory", "Prefers weekly summaries")
        );
    }
}
