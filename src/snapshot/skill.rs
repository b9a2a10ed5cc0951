//! A declared skill's body as the snapshot shows it: its headings read as
//! the skill's, one level or more below memdir's own, and nothing in it can
//! pass for memdir's structure.
//!
//! Pure: no I/O. The body is parsed as CommonMark (pulldown-cmark, the same
//! parser the stores use) and only the bytes concerned are changed:
//!
//! * an ATX heading moves [`OWN_LEVEL`] levels down (`# Steps` →
//!   `### Steps`, clamped at 6); a setext heading (`Steps` over `===`)
//!   becomes the ATX heading of its level moved down, on one line, so no
//!   setext underline is left;
//! * a heading whose folded text ([`crate::scan::fold`]) names one of
//!   memdir's sections (`USER.md`, `MEMORY.md`, `Skill …`) or starts like a
//!   placeholder (`[BLOCKED:`, `[OVER BUDGET:`, `[CONFLICT:`) keeps its
//!   level and gets a backslash, so it is plain text;
//! * any other line that folds to such a heading or placeholder
//!   (`＃＃ USER.md`, `［BLOCKED: …］`, one inside a code block) gets a
//!   backslash before it too;
//! * a code fence or an HTML block the body leaves open is closed at its
//!   end, so it cannot swallow the sections that follow.

use std::ops::Range;

use pulldown_cmark::{CodeBlockKind, Event, Options, Parser, Tag, TagEnd};

use super::lines::{is_own_title, own_escape};
use crate::edit::escape_controls;

/// The level of memdir's deepest heading in a snapshot (`## USER.md …`,
/// `## Skill …`): a skill's headings go below it.
pub const OWN_LEVEL: usize = 2;

/// `level` moved below memdir's own headings, clamped at 6.
fn moved(level: usize) -> usize {
    (level + OWN_LEVEL).min(6)
}

/// The end of the line holding byte `at` (the index of its LF, or the end).
fn line_end(text: &str, at: usize) -> usize {
    text[at..].find('\n').map_or(text.len(), |i| at + i)
}

/// What closes an HTML block of the kinds that blank lines do not end
/// (CommonMark's kinds 1 to 5), from its first line.
fn html_terminator(first: &str) -> Option<&'static str> {
    let t = first.trim_start().to_ascii_lowercase();
    if t.starts_with("<!--") {
        return Some("-->");
    }
    if t.starts_with("<![cdata[") {
        return Some("]]>");
    }
    if t.starts_with("<?") {
        return Some("?>");
    }
    if t.starts_with("<!") && t[2..].starts_with(|c: char| c.is_ascii_alphabetic()) {
        return Some(">");
    }
    for tag in ["pre", "script", "style", "textarea"] {
        if let Some(rest) = t.strip_prefix('<').and_then(|r| r.strip_prefix(tag))
            && (rest.is_empty() || rest.starts_with([' ', '\t', '>']))
        {
            return Some(match tag {
                "pre" => "</pre>",
                "script" => "</script>",
                "style" => "</style>",
                _ => "</textarea>",
            });
        }
    }
    None
}

/// The line that would close a fenced code block opened by `block`'s
/// first line.
fn fence_closer(block: &str) -> Option<String> {
    let opener = block.split('\n').next()?.trim_start();
    let c = opener.chars().next()?;
    let n = opener.chars().take_while(|&x| x == c).count();
    Some(c.to_string().repeat(n))
}

/// Whether `text` ends with its last block closed: a heading put after it
/// (after a blank line) is a heading.
fn ends_closed(text: &str) -> bool {
    let probe = format!("{text}\n\n# end");
    let at = text.len() + 2;
    Parser::new_ext(&probe, Options::empty())
        .into_offset_iter()
        .any(|(e, r)| matches!(e, Event::Start(Tag::Heading { .. })) && r.start == at)
}

/// A skill's body as the snapshot shows it (see the module docs). Control
/// characters are shown escaped first, as an entry's are.
pub fn render_body(body: &str) -> String {
    let text = escape_controls(body);
    let text = text.as_ref();
    // (range replaced, replacement), in source order, not overlapping.
    let mut edits: Vec<(Range<usize>, String)> = Vec::new();
    let mut headings: Vec<Range<usize>> = Vec::new();
    // What the parser read as text, code or HTML (a line outside is, for
    // example, a link reference definition).
    let mut content: Vec<Range<usize>> = Vec::new();
    let mut close: Option<String> = None;
    let mut depth = 0usize;
    // The heading being read: its range, level and text as it reads.
    let mut open: Option<(Range<usize>, usize, String)> = None;
    for (event, r) in Parser::new_ext(text, Options::empty()).into_offset_iter() {
        if matches!(event, Event::Start(_)) && depth == 0 && open.is_none() {
            // Only the last top-level block can be left open.
            close = None;
        }
        match event {
            Event::Start(Tag::BlockQuote(_) | Tag::List(_) | Tag::Item) => depth += 1,
            Event::End(TagEnd::BlockQuote(_) | TagEnd::List(_) | TagEnd::Item) => {
                depth = depth.saturating_sub(1);
            }
            Event::Start(Tag::Heading { level, .. }) => {
                open = Some((r, level as usize, String::new()));
            }
            Event::Text(t) | Event::Code(t) | Event::InlineHtml(t) | Event::Html(t) => {
                if let Some((_, _, title)) = open.as_mut() {
                    title.push_str(&t);
                }
                content.push(r);
            }
            Event::SoftBreak | Event::HardBreak => {
                if let Some((_, _, title)) = open.as_mut() {
                    title.push(' ');
                }
            }
            Event::End(TagEnd::Heading(_)) => {
                if let Some((r, level, title)) = open.take() {
                    edits.push(heading(text, r.clone(), level, &title));
                    headings.push(r);
                }
            }
            Event::Start(Tag::CodeBlock(kind)) => {
                if depth == 0 && matches!(kind, CodeBlockKind::Fenced(_)) {
                    close = fence_closer(&text[r.clone()]);
                }
                content.push(r);
            }
            Event::Start(Tag::HtmlBlock) => {
                if depth == 0 {
                    let block = text[r.clone()].trim_end_matches('\n');
                    let first = block.split('\n').next().unwrap_or("");
                    close = html_terminator(first).map(str::to_owned);
                }
                content.push(r);
            }
            _ => {}
        }
    }
    // Lines outside headings that read as memdir's own get a backslash past
    // their container, emphasis and code marks (so a fence stays a fence).
    let mut start = 0;
    // Whether the lines since the last blank one may now be a paragraph's
    // that was not one (an escaped link reference definition).
    let mut para = false;
    for line in text.split('\n') {
        let end = start + line.len();
        let in_heading = headings.iter().any(|h| h.start <= end && start < h.end);
        let quoted = line.trim_start_matches([' ', '\t', '>']).trim();
        let own = (!in_heading).then(|| own_escape(line)).flatten();
        if quoted.is_empty() {
            para = false;
        } else if let Some(at) = own {
            let at = start + at;
            edits.push((at..at, "\\".to_owned()));
            // Escaped, a line the parser did not read as text (a link
            // reference definition) is a paragraph's.
            para |= !content.iter().any(|c| c.start < end && start < c.end);
        } else if para && is_underline(quoted) {
            // An underline would make a setext heading of that paragraph.
            let at = start + (line.len() - line.trim_start_matches([' ', '\t', '>']).len());
            edits.push((at..at, "\\".to_owned()));
        }
        start = end + 1;
    }
    edits.sort_by_key(|(r, _)| (r.start, r.end));
    let mut out = String::with_capacity(text.len() + 16);
    let mut at = 0;
    for (r, with) in edits {
        if r.start < at {
            continue;
        }
        out.push_str(&text[at..r.start]);
        out.push_str(&with);
        at = r.end;
    }
    out.push_str(&text[at..]);
    if let Some(c) = close.filter(|_| !ends_closed(&out)) {
        out.push('\n');
        out.push_str(&c);
    }
    out
}

/// Whether a line (trimmed) could underline a setext heading.
fn is_underline(l: &str) -> bool {
    let l = l.trim();
    !l.is_empty() && (l.chars().all(|c| c == '=') || l.chars().all(|c| c == '-'))
}

/// `"\n"` when a line follows the one ending at `end` and is not blank,
/// else `""`: what an escaped heading (a paragraph line then) needs after
/// it, so the lines after it cannot make a setext heading of it.
fn gap(text: &str, end: usize) -> &'static str {
    let next = text.get(end + 1..line_end(text, (end + 1).min(text.len())));
    let blank = next.is_none_or(|l| l.trim_start_matches([' ', '\t', '>']).trim().is_empty());
    if blank { "" } else { "\n" }
}

/// The edit of one heading of `text` at `r` (its range as the parser gives
/// it) of `level`, reading as `title`.
fn heading(text: &str, r: Range<usize>, level: usize, title: &str) -> (Range<usize>, String) {
    let src = &text[r.clone()];
    let indent = src.len() - src.trim_start_matches([' ', '\t']).len();
    let start = r.start + indent;
    // Its text as it reads, or as its source reads (`&#85;` is `U`).
    let own = |source: &str| is_own_title(title) || is_own_title(source);
    // A setext heading spans two lines or more (its content may start
    // with `#` too: `###>` over `===`).
    if !src.trim_end_matches('\n').contains('\n') {
        let hashes = src[indent..].bytes().take_while(|&b| b == b'#').count();
        let end = line_end(text, start);
        if !own(&text[start + hashes..end]) {
            return (start..start + hashes, "#".repeat(moved(hashes)));
        }
        // Escaped, the heading is a paragraph line: a blank line keeps a
        // `===` or `---` line after it from making it a setext heading.
        return (
            start..end,
            format!("\\{}{}", &text[start..end], gap(text, end)),
        );
    }
    // Setext: content lines, then the underline (the last line of `r`),
    // made one ATX line.
    let body = text[start..r.end].trim_end_matches('\n');
    let underline = body.rfind('\n').unwrap_or(body.len());
    let words: Vec<&str> = body[..underline]
        .split('\n')
        .map(|l| l.trim_start_matches([' ', '\t', '>']).trim())
        .filter(|l| !l.is_empty())
        .collect();
    let words = words.join(" ");
    let end = start + body.len();
    if own(&words) {
        let gap = gap(text, end);
        return (start..end, format!("\\{} {words}{gap}", "#".repeat(level)));
    }
    (start..end, format!("{} {words}", "#".repeat(moved(level))))
}

#[cfg(test)]
mod tests;
