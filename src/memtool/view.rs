//! What the tool shows: a store as the file the model reads (one line per
//! entry), any text with the SDK's line numbers, a window of it
//! (`view_range`), the listing of `/memories`, and the SDK's edits of a
//! text (`str_replace`, `insert`) with its answer strings.

use std::ops::Range;

use crate::edit::escape_controls;
use crate::scan;

/// The width of a line number (the SDK's: the digits of 999999).
const LINE_NUMBER_WIDTH: usize = 6;
/// The most lines a view shows at once (`view_range` shows the rest).
pub const MAX_VIEW_LINES: usize = 2_000;
/// The most characters a view shows at once: below the scanner's limit, so
/// the lines shown are scanned together too.
pub const MAX_VIEW_CHARS: usize = 60_000;
/// The most lines an `old_str` found more than once is listed at.
const MAX_LISTED_LINES: usize = 20;

/// One entry of a store as the tool shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ViewEntry {
    /// Its `mem_` id.
    pub id: String,
    /// Its line in the view: the text on one line, or the scanner's
    /// placeholder.
    pub line: String,
    /// Whether the line is the placeholder of a flagged entry.
    pub blocked: bool,
}

/// An entry's text as one line of the view: control characters escaped
/// (as every answer shows them), its lines joined by a space.
pub fn entry_line(text: &str) -> String {
    escape_controls(text)
        .split('\n')
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// The lines of `range` (as the tool's `view_range` names them: from 1,
/// `-1` for the end) of a text of `len` lines; refused with the text the
/// model reads when the range is not within the file.
fn window(len: usize, range: Option<(i64, i64)>) -> Result<Range<usize>, String> {
    let Some((first, last)) = range else {
        return Ok(0..len);
    };
    let bad = |why: String| format!("Invalid `view_range` parameter: [{first}, {last}]. {why}");
    if first < 1 || (len > 0 && first as u64 > len as u64) || (len == 0 && first > 1) {
        return Err(bad(format!(
            "Its first element `{first}` should be within the range of lines of the file: [1, {}].",
            len.max(1)
        )));
    }
    let start = usize::try_from(first - 1).unwrap_or(0).min(len);
    let end = if last == -1 {
        len
    } else if last < first {
        return Err(bad(format!(
            "Its second element `{last}` should be larger or equal than its first `{first}` (or -1 for the end)."
        )));
    } else {
        usize::try_from(last).unwrap_or(usize::MAX).min(len)
    };
    Ok(start..end)
}

/// `lines` with the SDK's line numbers (`view_range` as the tool gives
/// it), after the SDK's header: `Here's the content of PATH with line
/// numbers:`. At most [`MAX_VIEW_LINES`] lines and [`MAX_VIEW_CHARS`]
/// characters are shown; a last line says which `view_range` shows the
/// rest. `guard` stands in for a shown line when the scanner flags it (see
/// [`guard_lines`]); a store's lines come already guarded.
pub fn numbered(
    path: &str,
    lines: &[String],
    range: Option<(i64, i64)>,
    guard: Option<&str>,
) -> Result<String, String> {
    let w = window(lines.len(), range)?;
    let mut shown: Vec<String> = Vec::new();
    let mut chars = 0;
    let mut next = w.start;
    for line in &lines[w.clone()] {
        let n = line.chars().count();
        if shown.len() >= MAX_VIEW_LINES || (chars + n > MAX_VIEW_CHARS && !shown.is_empty()) {
            break;
        }
        chars += n + 1;
        shown.push(line.chars().take(MAX_VIEW_CHARS).collect());
        next += 1;
    }
    if let Some(what) = guard {
        guard_lines(what, w.start + 1, &mut shown);
    }
    let mut out = format!("Here's the content of {path} with line numbers:\n");
    let body: Vec<String> = shown
        .iter()
        .enumerate()
        .map(|(i, l)| number(w.start + i + 1, l))
        .collect();
    out.push_str(&body.join("\n"));
    if next < w.end {
        out.push_str(&format!(
            "\n[lines {}-{} of {} not shown: view_range [{}, {}] shows them]",
            next + 1,
            w.end,
            lines.len(),
            next + 1,
            if w.end == lines.len() {
                -1
            } else {
                i64::try_from(w.end).unwrap_or(-1)
            }
        ));
    }
    Ok(out)
}

/// One line with its number, as the SDK shows it.
fn number(n: usize, line: &str) -> String {
    format!("{n:>LINE_NUMBER_WIDTH$}\t{line}")
}

/// Replaces each line of `lines` (numbered from `first` in the file `what`)
/// that the scanner flags by its placeholder; when no line alone is
/// flagged but the lines together are (an attack spread over lines), every
/// line is one placeholder and the rest are left empty.
pub fn guard_lines(what: &str, first: usize, lines: &mut [String]) {
    let mut any = false;
    for (i, line) in lines.iter_mut().enumerate() {
        if let Some(p) = scan::blocked_text(line, &format!("{what} line {}", first + i)) {
            *line = p;
            any = true;
        }
    }
    if any || lines.is_empty() {
        return;
    }
    if let Some(p) = scan::blocked_text(&lines.join("\n"), what) {
        for (i, line) in lines.iter_mut().enumerate() {
            *line = if i == 0 { p.clone() } else { String::new() };
        }
    }
}

/// The lines around `at` (0-based) of `lines`, numbered: the snippet the
/// SDK answers a `str_replace` with.
pub fn snippet(lines: &[String], at: usize) -> String {
    let start = at.saturating_sub(2).min(lines.len());
    let end = (at + 3).min(lines.len());
    lines[start..end]
        .iter()
        .enumerate()
        .map(|(i, l)| number(start + i + 1, l))
        .collect::<Vec<_>>()
        .join("\n")
}

/// A size as the SDK's listing shows it (`0B`, `512B`, `1.5K`, `2M`).
pub fn file_size(bytes: u64) -> String {
    if bytes == 0 {
        return "0B".into();
    }
    let units = ["B", "K", "M", "G"];
    let i = ((63 - bytes.leading_zeros()) / 10).min(3) as usize;
    let size = bytes as f64 / 1024f64.powi(i as i32);
    if size.fract() == 0.0 {
        format!("{}{}", size as u64, units[i])
    } else {
        format!("{size:.1}{}", units[i])
    }
}

/// One file of the listing of `/memories`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listed {
    /// Its path, as the tool names it.
    pub path: String,
    /// The size of what `view` shows of it, in bytes.
    pub bytes: u64,
    /// Whether the tool only reads it.
    pub read_only: bool,
}

/// The listing of `/memories`: its files, each with its size (the SDK's
/// `SIZE<TAB>PATH` lines), read-only ones marked, and a note on what the
/// files are.
pub fn listing(files: &[Listed]) -> String {
    let total: u64 = files.iter().map(|f| f.bytes).sum();
    let mut out =
        String::from("Here're the files and directories in /memories, excluding hidden items:\n");
    out.push_str(&format!("{}\t{}", file_size(total), super::ROOT));
    for f in files {
        out.push_str(&format!("\n{}\t{}", file_size(f.bytes), f.path));
        if f.read_only {
            out.push_str(" (read-only)");
        }
    }
    out.push_str(
        "\n\nMEMORY.md holds your notes, USER.md what you know of the user: one entry a line, \
         kept within a budget. Add facts as new lines of these two files; memdir keeps no other files.",
    );
    out
}

/// The text `text` (the file `path` as the model sees it) with the one
/// occurrence of `old` replaced by `new`, and the 0-based line it starts
/// on; refused with the SDK's texts when `old` occurs never or more than
/// once.
pub fn str_replace(
    path: &str,
    text: &str,
    old: &str,
    new: &str,
) -> Result<(String, usize), String> {
    let shown = super::quoted(old);
    if old.is_empty() {
        return Err(format!(
            "No replacement was performed, old_str `` did not appear verbatim in {path}. Give the text to replace."
        ));
    }
    let at: Vec<usize> = text.match_indices(old).map(|(i, _)| i).collect();
    match at.as_slice() {
        [] => Err(format!(
            "No replacement was performed, old_str `{shown}` did not appear verbatim in {path}."
        )),
        [one] => {
            let line = text[..*one].matches('\n').count();
            let mut out = String::with_capacity(text.len() + new.len());
            out.push_str(&text[..*one]);
            out.push_str(new);
            out.push_str(&text[one + old.len()..]);
            Ok((out, line))
        }
        many => {
            let lines: Vec<String> = many
                .iter()
                .take(MAX_LISTED_LINES)
                .map(|i| (text[..*i].matches('\n').count() + 1).to_string())
                .collect();
            let more = if many.len() > MAX_LISTED_LINES {
                format!(" and {} more", many.len() - MAX_LISTED_LINES)
            } else {
                String::new()
            };
            Err(format!(
                "No replacement was performed. Multiple occurrences of old_str `{shown}` in lines: {}{more}. Please ensure it is unique",
                lines.join(", ")
            ))
        }
    }
}

/// `lines` with `text` inserted after line `at` (0: at the top), as the
/// SDK inserts; refused with its text when `at` is not within [0, lines].
pub fn insert(lines: &[String], at: i64, text: &str) -> Result<String, String> {
    let Some(i) = usize::try_from(at).ok().filter(|i| *i <= lines.len()) else {
        return Err(format!(
            "Invalid `insert_line` parameter: {at}. It should be within the range [0, {}].",
            lines.len()
        ));
    };
    let mut out: Vec<&str> = lines.iter().map(String::as_str).collect();
    out.insert(i, text.trim_end_matches('\n'));
    Ok(out.join("\n"))
}
