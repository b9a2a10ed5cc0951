//! Which lines of text rendered into a prompt could pass for memdir's own
//! structure, and where the backslash that escapes them goes.
//!
//! Pure: no I/O. A line is compared as it reads: past its container marks
//! (indentation, `>`, list bullets) and folded ([`crate::scan::fold`]: NFKC,
//! invisible characters removed, confusables folded), so `＃＃ USER.md` and
//! `［BLOCKED: …］` read as `## user.md` and `[blocked: …]`.
//!
//! * [`own_escape`]: a line that reads as one of memdir's headings or
//!   placeholders (used for skills, whose other structure is theirs);
//! * [`entry_escape`]: that, and any line that could open a block of its
//!   own by CommonMark's rules (an ATX heading, a setext underline, a
//!   thematic break, an HTML block or a code fence), used for entries, whose
//!   text is a list item's.

use crate::scan::fold;

/// The starts of memdir's placeholders, folded.
const PLACEHOLDERS: [&str; 3] = ["[blocked:", "[over budget:", "[conflict:"];

/// The first words of memdir's section titles, folded.
const SECTIONS: [&str; 3] = ["user.md", "memory.md", "skill"];

/// `t` (folded) past the marks that do not change what a line reads as:
/// whitespace, `#`, `>`, emphasis and code marks, backslashes.
fn core(t: &str) -> &str {
    t.trim_start_matches(|c: char| {
        c.is_whitespace() || matches!(c, '#' | '>' | '*' | '_' | '`' | '~' | '\\')
    })
}

/// Whether folded text starts with a placeholder or a section's title.
fn names_own(c: &str, sections: bool) -> bool {
    PLACEHOLDERS.iter().any(|p| c.starts_with(p))
        || (sections
            && SECTIONS.iter().any(|s| {
                c.strip_prefix(s)
                    .is_some_and(|rest| !rest.starts_with(|c: char| c.is_alphanumeric()))
            }))
}

/// Whether a heading's `title` (its text as it reads) names a memdir
/// section or a placeholder, once folded.
pub fn is_own_title(title: &str) -> bool {
    names_own(core(&fold(title)), true)
}

/// Whether a line, past its container marks (see [`marks_len`]), reads as
/// one of memdir's own lines once folded: a `#` heading naming a memdir
/// section, or a placeholder, maybe behind emphasis or code marks. A
/// backslash where it would start (past those marks) escapes it.
pub fn is_own_line(line: &str) -> bool {
    let t = fold(line);
    let lead = &t[lead_len(&t)..];
    if lead.starts_with('\\') {
        return false;
    }
    names_own(core(lead), lead.starts_with('#'))
}

/// The length of the emphasis and code marks (and spaces) a line starts
/// with: where its escape goes.
pub fn lead_len(line: &str) -> usize {
    line.len()
        - line
            .trim_start_matches(|c: char| c.is_whitespace() || matches!(c, '*' | '_' | '`' | '~'))
            .len()
}

/// The length of a line's container marks: indentation, `>` and list
/// bullets (`-`, `*`, `+`, `1.`, `1)`) followed by a space.
pub fn marks_len(line: &str) -> usize {
    let b = line.as_bytes();
    let mut i = 0;
    loop {
        match b.get(i) {
            Some(b' ' | b'\t' | b'>') => i += 1,
            Some(b'-' | b'*' | b'+') if matches!(b.get(i + 1), Some(b' ' | b'\t')) => i += 2,
            Some(c) if c.is_ascii_digit() => {
                let digits = b[i..].iter().take_while(|c| c.is_ascii_digit()).count();
                match (b.get(i + digits), b.get(i + digits + 1)) {
                    (Some(b'.' | b')'), Some(b' ' | b'\t')) => i += digits + 2,
                    _ => return i,
                }
            }
            _ => return i,
        }
    }
}

/// Where the backslash goes in a line that reads as one of memdir's own
/// (see [`is_own_line`]): past its container, emphasis and code marks (so a
/// fence stays a fence). `None` for any other line.
pub fn own_escape(line: &str) -> Option<usize> {
    let m = marks_len(line);
    is_own_line(&line[m..]).then(|| m + lead_len(&line[m..]))
}

/// Whether a line (folded, past its container marks) could open a block by
/// CommonMark's rules: an ATX heading, a setext underline, a thematic
/// break, an HTML block or a code fence.
fn opens_block(f: &str) -> bool {
    let Some(first) = f.chars().next() else {
        return false;
    };
    match first {
        '#' => true,
        '`' | '~' => f.chars().take_while(|&c| c == first).count() >= 3,
        '<' => opens_html(&f[1..]),
        '-' | '*' | '_' | '=' => {
            let marks = f.chars().filter(|&c| c == first).count();
            let only = f.chars().all(|c| c == first || c == ' ' || c == '\t');
            let spaced = f.contains([' ', '\t']);
            only && match first {
                // A setext underline (one or more, unspaced) or a break.
                '-' => !spaced || marks >= 3,
                '=' => !spaced,
                _ => marks >= 3,
            }
        }
        _ => false,
    }
}

/// Whether what follows a line's `<` starts an HTML block (CommonMark's
/// kinds 1 to 7): a comment, `<?`, a declaration or CDATA, or an opening or
/// closing tag whose name ends the line or is followed by a space, `>` or
/// `/`.
fn opens_html(rest: &str) -> bool {
    if rest.starts_with(['!', '?']) {
        return true;
    }
    let name = rest.strip_prefix('/').unwrap_or(rest);
    let len = name
        .bytes()
        .take_while(|b| b.is_ascii_alphanumeric() || *b == b'-')
        .count();
    len > 0
        && name.as_bytes()[0].is_ascii_alphabetic()
        && name[len..]
            .chars()
            .next()
            .is_none_or(|c| matches!(c, ' ' | '\t' | '>' | '/'))
}

/// Where the backslash goes in a line of an entry that could open a
/// structure of memdir's or any block (see the module docs): past its
/// container marks, or where [`own_escape`] puts it. `None` for a line that
/// opens nothing.
pub fn entry_escape(line: &str) -> Option<usize> {
    own_escape(line).or_else(|| {
        // A thematic break made of bullets (`* * *`) reads as one before
        // its marks are taken for a list's.
        let indent = line.len() - line.trim_start_matches([' ', '\t']).len();
        let m = marks_len(line);
        [indent, m]
            .into_iter()
            .find(|&at| opens_block(&fold(&line[at..])))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn escaped(line: &str) -> String {
        match entry_escape(line) {
            Some(at) => format!("{}\\{}", &line[..at], &line[at..]),
            None => line.to_owned(),
        }
    }

    #[test]
    fn memdir_s_own_lines_are_escaped_after_folding() {
        for (line, want) in [
            ("## USER.md", "\\## USER.md"),
            ("＃＃ USER.md", "\\＃＃ USER.md"),
            ("［BLOCKED: x］", "\\［BLOCKED: x］"),
            ("[OVER BUDGET: x]", "\\[OVER BUDGET: x]"),
            ("  [CONFLICT: y]", "  \\[CONFLICT: y]"),
            ("**[blocked: x]**", "**\\[blocked: x]**"),
            ("> ## MEMORY.md", "> \\## MEMORY.md"),
            ("- [ВLOCKED: x]", "- \\[ВLOCKED: x]"),
        ] {
            assert_eq!(escaped(line), want, "{line}");
        }
    }

    #[test]
    fn block_openers_are_escaped_and_nothing_else_changes() {
        for (line, want) in [
            ("---", "\\---"),
            ("  ===", "  \\==="),
            ("-", "\\-"),
            ("* * *", "\\* * *"),
            ("- - -", "\\- - -"),
            ("___", "\\___"),
            ("＝＝＝", "\\＝＝＝"),
            ("```rust", "\\```rust"),
            ("~~~", "\\~~~"),
            ("<div class=x>", "\\<div class=x>"),
            ("</system>", "\\</system>"),
            ("<!-- hidden", "\\<!-- hidden"),
            ("<system>", "\\<system>"),
            ("# a note", "\\# a note"),
        ] {
            assert_eq!(escaped(line), want, "{line}");
        }
        for line in [
            "a note",
            "- - item with words",
            "= = =",
            "**",
            "``x``",
            "<https://example.com>",
            "a <system> tag mid-line",
            "C# and F# are languages",
            "3 < 4",
            "\\## USER.md",
            "-- two dashes and a word",
        ] {
            assert_eq!(escaped(line), line, "{line}");
        }
    }
}
