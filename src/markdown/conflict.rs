//! Git conflict markers left in a file: regions from a `<<<<<<< ` line to
//! its `>>>>>>> ` line, outside code blocks. A file that holds one is not
//! written by memdir, and the snapshot and recall show a placeholder instead
//! of what the region holds.

use std::ops::Range;

use std::sync::LazyLock;

use memchr::memmem;
use pulldown_cmark::{Event, Options, Parser, Tag};

/// A region of a file between git conflict markers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Conflict {
    /// Its first line, 1-based (the `<<<<<<<` line, or a stray `>>>>>>>`).
    pub first_line: usize,
    /// Its last line, 1-based (the `>>>>>>>` line, or the file's last).
    pub last_line: usize,
    /// Its bytes, line endings included.
    pub bytes: Range<usize>,
}

impl Conflict {
    /// `lines 3-9` (or `line 3`), as messages name a region.
    pub fn lines(&self) -> String {
        if self.first_line == self.last_line {
            format!("line {}", self.first_line)
        } else {
            format!("lines {}-{}", self.first_line, self.last_line)
        }
    }

    /// Whether the region overlaps `bytes`.
    pub fn overlaps(&self, bytes: &Range<usize>) -> bool {
        self.bytes.start < bytes.end.max(bytes.start + 1) && bytes.start < self.bytes.end
    }
}

/// Whether `src` may hold a marker at all (the cheap test before a search).
pub(crate) fn may_have_markers(src: &str) -> bool {
    // Built once: every parse and every edit's check asks.
    static OPEN: LazyLock<memmem::Finder<'static>> =
        LazyLock::new(|| memmem::Finder::new(b"<<<<<<<"));
    static CLOSE: LazyLock<memmem::Finder<'static>> =
        LazyLock::new(|| memmem::Finder::new(b">>>>>>>"));
    OPEN.find(src.as_bytes()).is_some() || CLOSE.find(src.as_bytes()).is_some()
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Marker {
    Open,
    Close,
}

/// The marker a line (without its ending) is, if any: seven `<` or `>`
/// then the end of the line or a space or tab (git writes the branch name
/// after a space).
fn marker(line: &str) -> Option<Marker> {
    let kind = if line.starts_with("<<<<<<<") {
        Marker::Open
    } else if line.starts_with(">>>>>>>") {
        Marker::Close
    } else {
        return None;
    };
    match line.as_bytes().get(7) {
        None | Some(b' ' | b'\t') => Some(kind),
        _ => None,
    }
}

/// The conflict regions of `src` whose markers lie outside the byte ranges
/// `code` (its code blocks).
pub(crate) fn find(src: &str, code: &[Range<usize>]) -> Vec<Conflict> {
    let mut out = Vec::new();
    let mut open: Option<(usize, usize)> = None; // (line, byte) of an opener
    let mut at = 0;
    let mut last_line = 0;
    for (n, raw) in src.split_inclusive('\n').enumerate() {
        let line_no = n + 1;
        last_line = line_no;
        let start = at;
        at += raw.len();
        let line = raw.trim_end_matches(['\n', '\r']);
        let Some(m) = marker(line) else { continue };
        if code.iter().any(|c| c.contains(&start)) {
            continue;
        }
        match (m, open) {
            (Marker::Open, None) => open = Some((line_no, start)),
            (Marker::Open, Some(_)) => {}
            (Marker::Close, Some((first, from))) => {
                out.push(Conflict {
                    first_line: first,
                    last_line: line_no,
                    bytes: from..at,
                });
                open = None;
            }
            (Marker::Close, None) => out.push(Conflict {
                first_line: line_no,
                last_line: line_no,
                bytes: start..at,
            }),
        }
    }
    if let Some((first, from)) = open {
        out.push(Conflict {
            first_line: first,
            last_line: last_line.max(first),
            bytes: from..src.len(),
        });
    }
    out
}

/// The conflict regions of a markdown file (its code blocks excluded).
pub fn conflicts(src: &str) -> Vec<Conflict> {
    if !may_have_markers(src) {
        return Vec::new();
    }
    let code: Vec<Range<usize>> = Parser::new_ext(src, Options::ENABLE_YAML_STYLE_METADATA_BLOCKS)
        .into_offset_iter()
        .filter_map(|(e, r)| matches!(e, Event::Start(Tag::CodeBlock(_))).then_some(r))
        .collect();
    find(src, &code)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regions_between_markers_outside_code() {
        let src = "- a\n<<<<<<< HEAD\n- b\n=======\n- c\n>>>>>>> other\n- d\n";
        let c = conflicts(src);
        assert_eq!(c.len(), 1);
        assert_eq!((c[0].first_line, c[0].last_line), (2, 6));
        assert_eq!(
            &src[c[0].bytes.clone()],
            "<<<<<<< HEAD\n- b\n=======\n- c\n>>>>>>> other\n"
        );
        assert_eq!(c[0].lines(), "lines 2-6");
        // Inside a fenced code block they are text.
        let fenced = "```\n<<<<<<< HEAD\nx\n>>>>>>> other\n```\n";
        assert!(conflicts(fenced).is_empty());
        // Not a marker: eight of them, or something glued on.
        assert!(conflicts("<<<<<<<< x\n>>>>>>>x\n").is_empty());
        // A stray closer is a region of one line; an opener without its
        // closer runs to the end.
        let src = ">>>>>>> theirs\n- a\n<<<<<<<\n- b";
        let c = conflicts(src);
        assert_eq!(c.len(), 2);
        assert_eq!(c[0].lines(), "line 1");
        assert_eq!((c[1].first_line, c[1].last_line), (3, 4));
        assert_eq!(c[1].bytes, 19..src.len());
        assert!(conflicts("- plain\n- file\n").is_empty());
    }

    #[test]
    fn crlf_lines_are_markers_too() {
        let src = "<<<<<<< a\r\n- x\r\n=======\r\n>>>>>>> b\r\n";
        assert_eq!(conflicts(src)[0].lines(), "lines 1-4");
    }
}
