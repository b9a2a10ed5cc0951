//! episodes.md: the run journal and day log, one `## YYYY-MM-DD` section per
//! UTC date, one list line per entry.
//!
//! Pure: no I/O. Parsing uses pulldown-cmark's offset iterator; an append
//! splices one line into the right date's section and touches nothing else.

use std::ops::Range;
use std::path::PathBuf;
use std::sync::LazyLock;

use chrono::NaiveDate;
use pulldown_cmark::{Event, HeadingLevel, Options, Parser, Tag, TagEnd};
use regex::Regex;
use serde::Serialize;

use crate::error::{Error, Result};
use crate::markdown::{BOM, line_end_with_eol};
use crate::model::fold_whitespace;

/// Longest day line, in characters.
pub const MAX_DAY_LINE_CHARS: usize = 300;
/// Most characters one date's log holds.
pub const MAX_DAY_CHARS: usize = 8_000;

/// One line of a day's log.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct DayLine {
    /// `HH:MM` (UTC), when the line has the standard form.
    pub time: Option<String>,
    /// The task key, such as `PIN-812`.
    pub task: Option<String>,
    /// The line's text.
    pub text: String,
    /// The run that wrote it.
    #[serde(rename = "run_id")]
    pub run: Option<String>,
    /// The workflow whose results that run produced, when it is not the
    /// run id (`(run RUN, workflow WF)`).
    #[serde(rename = "workflow_id", skip_serializing_if = "Option::is_none")]
    pub workflow: Option<String>,
    /// The whole line as written (marker removed, whitespace folded).
    pub raw: String,
}

/// One date's section.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DaySection {
    /// The UTC date of its heading.
    pub date: NaiveDate,
    /// The heading's bytes.
    pub heading: Range<usize>,
    /// Where the section ends (the next heading of level 1 or 2, or the end).
    pub end: usize,
    /// Its list lines with their item ranges (line ending excluded).
    pub lines: Vec<(Range<usize>, DayLine)>,
}

impl DaySection {
    /// The day row's text: the raw lines joined by LF.
    pub fn text(&self) -> String {
        self.lines
            .iter()
            .map(|(_, l)| l.raw.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    }
}

/// A parsed episodes.md.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Journal {
    /// The date sections, in file order.
    pub sections: Vec<DaySection>,
    /// The file's line ending.
    pub eol: &'static str,
}

impl Journal {
    /// The section of `date`, if any.
    pub fn section(&self, date: NaiveDate) -> Option<&DaySection> {
        self.sections.iter().find(|s| s.date == date)
    }
}

static LINE: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(r"^(\d{2}:\d{2})(?: \[([A-Za-z0-9][A-Za-z0-9._-]{0,127})\])? (.*?)(?: \(run ([A-Za-z0-9][A-Za-z0-9._-]{0,127})(?:, workflow ([A-Za-z0-9][A-Za-z0-9._-]{0,127}))?\))?$").ok()
});

/// Reads one line's parts from its folded text.
pub fn parse_line(raw: &str) -> DayLine {
    let caps = LINE.as_ref().and_then(|re| re.captures(raw));
    match caps {
        Some(c) => DayLine {
            time: c.get(1).map(|m| m.as_str().to_owned()),
            task: c.get(2).map(|m| m.as_str().to_owned()),
            text: c.get(3).map_or("", |m| m.as_str()).to_owned(),
            run: c.get(4).map(|m| m.as_str().to_owned()),
            workflow: c.get(5).map(|m| m.as_str().to_owned()),
            raw: raw.to_owned(),
        },
        None => DayLine {
            time: None,
            task: None,
            text: raw.to_owned(),
            run: None,
            workflow: None,
            raw: raw.to_owned(),
        },
    }
}

/// Renders a line's content: `HH:MM [TASK] text (run RUN)`, the task and run
/// parts only when present.
pub fn render_line(time: &str, task: Option<&str>, text: &str, run: Option<&str>) -> String {
    render_run_line(time, task, text, run, None)
}

/// Renders a line's content as [`render_line`] does, naming the workflow
/// the run produced results for when it is not the run id: `HH:MM [TASK]
/// text (run RUN, workflow WF)`.
pub fn render_run_line(
    time: &str,
    task: Option<&str>,
    text: &str,
    run: Option<&str>,
    workflow: Option<&str>,
) -> String {
    let mut out = format!("{time} ");
    if let Some(t) = task {
        out.push_str(&format!("[{t}] "));
    }
    out.push_str(text);
    match (run, workflow) {
        (Some(r), Some(w)) if w != r => out.push_str(&format!(" (run {r}, workflow {w})")),
        (Some(r), _) => out.push_str(&format!(" (run {r})")),
        (None, _) => {}
    }
    out
}

/// Checks a day line's text: folded to one line, not empty, at most 300
/// characters, and clean of the scanner's threat and secret patterns
/// (`memory_threat_blocked`, `secret_in_memory`, as a fact's text).
pub fn check_line(text: &str) -> Result<String> {
    let text = fold_whitespace(text);
    if text.is_empty() {
        return Err(Error::TextEmpty);
    }
    let chars = text.chars().count();
    if chars > MAX_DAY_LINE_CHARS {
        return Err(Error::DayLineTooLong {
            chars,
            limit: MAX_DAY_LINE_CHARS,
        });
    }
    crate::edit::check_controls(&text)?;
    // A day line goes into a model's context (recall's day-log block, the
    // run journal): the scanner's refusal, as for a fact.
    crate::edit::refuse_flagged(&text)?;
    Ok(text)
}

/// Appends the line `content` to the log of `date` in `src`, refusing a log
/// that would pass 8,000 characters (its lines joined by LF, the new one
/// included), and a place where the line would not read back as the log's
/// last (`memory_unplaceable`: inside a code block left open). Gives the new
/// source and the characters the log holds.
pub fn append_line(src: &str, date: NaiveDate, content: &str) -> Result<(String, usize)> {
    let j = parse(src);
    // Joined by LF: one more for each line already there, even an empty one.
    let total = match j.section(date).filter(|s| !s.lines.is_empty()) {
        Some(s) => s.text().chars().count() + 1 + content.chars().count(),
        None => content.chars().count(),
    };
    if total > MAX_DAY_CHARS {
        return Err(Error::DayFull {
            date: date.to_string(),
            chars: total,
            limit: MAX_DAY_CHARS,
        });
    }
    let out = append(src, &j, date, content);
    // The day's lines must read back as they were and then the new one: not
    // so when the place falls inside a code block a person left open.
    let mut want: Vec<String> = j
        .section(date)
        .map(|s| s.lines.iter().map(|(_, l)| l.raw.clone()).collect())
        .unwrap_or_default();
    want.push(fold_whitespace(content));
    let got: Vec<String> = parse(&out)
        .section(date)
        .map(|s| s.lines.iter().map(|(_, l)| l.raw.clone()).collect())
        .unwrap_or_default();
    if got != want {
        return Err(Error::Unplaceable {
            path: PathBuf::from("episodes.md"),
            reason: format!(
                "the line for {date} would not read back as one (an unclosed code block?)"
            ),
        });
    }
    Ok((out, total))
}

/// Parses episodes.md.
pub fn parse(src: &str) -> Journal {
    let base = if src.starts_with(BOM) { BOM.len() } else { 0 };
    let eol = if src.contains("\r\n") { "\r\n" } else { "\n" };
    let mut headings: Vec<(HeadingLevel, Range<usize>, String)> = Vec::new();
    let mut items: Vec<Range<usize>> = Vec::new();
    let mut depth = 0usize;
    let mut heading: Option<(HeadingLevel, Range<usize>, String)> = None;
    let opts = Options::ENABLE_YAML_STYLE_METADATA_BLOCKS;
    for (ev, r) in Parser::new_ext(&src[base..], opts).into_offset_iter() {
        let r = r.start + base..r.end + base;
        match ev {
            Event::Start(Tag::Heading { level, .. }) if depth == 0 => {
                heading = Some((level, r, String::new()));
                depth += 1;
            }
            Event::End(TagEnd::Heading(_)) if depth == 1 => {
                depth -= 1;
                headings.extend(heading.take());
            }
            Event::Text(t) | Event::Code(t) => {
                if let Some((_, _, text)) = heading.as_mut() {
                    text.push_str(&t);
                }
            }
            Event::Start(Tag::Item) => {
                if depth == 1 {
                    items.push(r);
                }
                depth += 1;
            }
            Event::Start(_) => depth += 1,
            Event::End(_) => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    let mut sections = Vec::new();
    for (i, (level, range, text)) in headings.iter().enumerate() {
        let Ok(date) = NaiveDate::parse_from_str(text.trim(), "%Y-%m-%d") else {
            continue;
        };
        if *level != HeadingLevel::H2 {
            continue;
        }
        let end = headings[i + 1..]
            .iter()
            .find(|(l, _, _)| *l <= HeadingLevel::H2)
            .map_or(src.len(), |(_, r, _)| r.start);
        let lines = items
            .iter()
            .filter(|r| r.start >= range.end && r.start < end)
            .map(|r| {
                let item_end = r.start + src[r.start..r.end.min(end)].trim_end().len();
                let body = src[r.start..item_end].trim_start();
                let body = body.get(marker_len(body)..).unwrap_or("");
                let raw = fold_whitespace(body);
                (r.start..item_end, parse_line(&raw))
            })
            .collect();
        sections.push(DaySection {
            date,
            heading: range.clone(),
            end,
            lines,
        });
    }
    Journal { sections, eol }
}

fn marker_len(s: &str) -> usize {
    let b = s.as_bytes();
    match b.first() {
        Some(b'-' | b'*' | b'+') => 1,
        _ => {
            let d = b.iter().take_while(|c| c.is_ascii_digit()).count();
            if d > 0 && matches!(b.get(d), Some(b'.' | b')')) {
                d + 1
            } else {
                0
            }
        }
    }
}

/// Appends `line` (rendered content, one line) to `date`'s section, creating
/// the section in date order if needed. Returns the new source.
pub fn append(src: &str, journal: &Journal, date: NaiveDate, line: &str) -> String {
    let eol = journal.eol;
    let item = format!("- {line}{eol}");
    if let Some(sec) = journal.section(date) {
        // After the section's last list line, else after its last content.
        let after = match sec.lines.last() {
            Some((r, _)) => line_end_with_eol(src, r.end),
            None => {
                let content_end =
                    sec.heading.start + src[sec.heading.start..sec.end].trim_end().len();
                line_end_with_eol(src, content_end)
            }
        };
        let mut insert = String::new();
        if !src[..after].ends_with('\n') && after > 0 {
            insert.push_str(eol);
        }
        if sec.lines.is_empty() {
            insert.push_str(eol);
        }
        insert.push_str(&item);
        let out = splice(src, after, &insert);
        // A paragraph that followed the section's lines without belonging
        // to them (after an empty item, or one ending in a code block) would
        // run on into the new line: a blank line keeps it apart.
        let ran_on = parse(&out)
            .section(date)
            .and_then(|s| s.lines.last())
            .is_none_or(|(_, l)| l.raw != fold_whitespace(line));
        if ran_on {
            insert.push_str(eol);
            return splice(src, after, &insert);
        }
        return out;
    }
    let block = format!("## {date}{eol}{eol}{item}");
    if let Some(later) = journal.sections.iter().find(|s| s.date > date) {
        return splice(src, later.heading.start, &format!("{block}{eol}"));
    }
    let mut insert = String::new();
    if !src.is_empty() && !src.ends_with('\n') {
        insert.push_str(eol);
    }
    if !src.trim().is_empty() && !src.ends_with(&format!("{eol}{eol}")) {
        insert.push_str(eol);
    }
    insert.push_str(&block);
    splice(src, src.len(), &insert)
}

/// Removes `date`'s whole section (heading to the next heading of level 1 or
/// 2); `None` if there is none. Every other section must read back as it
/// was: when taking the bytes out would join what precedes to what follows
/// (a list item or paragraph before, a setext heading or lazy line after),
/// a blank line stays in their place; when even that would change another
/// day, `memory_unplaceable` and nothing changes.
pub fn remove_section(src: &str, journal: &Journal, date: NaiveDate) -> Option<Result<String>> {
    let i = journal.sections.iter().position(|s| s.date == date)?;
    let sec = &journal.sections[i];
    let days = |j: &Journal| -> Vec<(NaiveDate, Vec<String>)> {
        j.sections
            .iter()
            .map(|s| (s.date, s.lines.iter().map(|(_, l)| l.raw.clone()).collect()))
            .collect()
    };
    let mut want = days(journal);
    want.remove(i);
    let (before, after) = (&src[..sec.heading.start], &src[sec.end..]);
    for gap in ["", "\n"] {
        let out = format!("{before}{gap}{after}");
        if days(&parse(&out)) == want {
            return Some(Ok(out));
        }
    }
    Some(Err(Error::Unplaceable {
        path: PathBuf::from("episodes.md"),
        reason: format!("removing the log of {date} would change how another day's log reads"),
    }))
}

fn splice(src: &str, at: usize, with: &str) -> String {
    let mut out = String::with_capacity(src.len() + with.len());
    out.push_str(&src[..at]);
    out.push_str(with);
    out.push_str(&src[at..]);
    out
}

/// Where the sections of `since` and later begin in `src`, found from the
/// end: the start of the last `## YYYY-MM-DD` line (an ATX heading of level
/// 2 at the start of a line) whose date is before `since`. Only the bytes
/// after it are looked at, a line at a time from the end; `None` when no
/// such line is found (the whole file is then the answer). The offset is a
/// line start, so a UTF-8 boundary.
pub fn recent_start(src: &[u8], since: NaiveDate) -> Option<usize> {
    let mut end = src.len();
    while end > 0 {
        // The line that ends at `end` (its line ending excluded).
        let start = src[..end - 1]
            .iter()
            .rposition(|b| *b == b'\n')
            .map_or(0, |i| i + 1);
        if heading_date(&src[start..end]).is_some_and(|date| date < since) {
            return Some(start);
        }
        end = start;
    }
    None
}

/// The date of a line `## YYYY-MM-DD` (closing `#`s and spaces allowed).
fn heading_date(line: &[u8]) -> Option<NaiveDate> {
    let rest = line.strip_prefix(b"## ")?;
    let text = std::str::from_utf8(rest).ok()?;
    let text = text.trim_end().trim_end_matches('#').trim();
    NaiveDate::parse_from_str(text, "%Y-%m-%d").ok()
}

/// Whether `tail` (the bytes from [`recent_start`] on, parsed as `journal`)
/// begins with its first section's heading, dated before `since`, and
/// holds no code fence or HTML comment opener: then its sections of
/// `since` and later are the file's, as far as its sections are in date
/// order (see [`out_of_order`]). When not, the caller parses the whole
/// file.
pub fn tail_stands_alone(tail: &str, journal: &Journal, since: NaiveDate) -> bool {
    let Some(first) = journal.sections.first() else {
        return false;
    };
    let fenced = tail.lines().any(|l| opens_block(l.as_bytes()));
    first.heading.start == 0 && first.date < since && !fenced
}

/// The first section dated before a section above it, if any: memdir
/// appends sections in date order, and a recall reads the day log from the
/// end, so a section out of order (moved by hand or by a merge) is
/// reported (`memdir check`'s `day_log_out_of_order`).
/// Gives it with the newest date above it.
pub fn out_of_order(journal: &Journal) -> Option<(&DaySection, NaiveDate)> {
    let mut newest: Option<NaiveDate> = None;
    for s in &journal.sections {
        if let Some(n) = newest.filter(|n| s.date < *n) {
            return Some((s, n));
        }
        newest = Some(newest.map_or(s.date, |n| n.max(s.date)));
    }
    None
}

/// Whether `line` opens a block whose content Markdown does not read as
/// headings: a code fence or an HTML comment (up to three spaces of indent).
fn opens_block(line: &[u8]) -> bool {
    let indent = line.iter().take(4).take_while(|b| **b == b' ').count();
    if indent > 3 {
        return false;
    }
    let l = &line[indent..];
    l.starts_with(b"```") || l.starts_with(b"~~~") || l.starts_with(b"<!--")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(s: &str) -> NaiveDate {
        NaiveDate::parse_from_str(s, "%Y-%m-%d").unwrap()
    }

    /// The recent sections as the tail read finds them, or `None` when it
    /// falls back to the whole file.
    fn tail_dates(src: &str, since: &str) -> Option<Vec<(NaiveDate, String)>> {
        let since = d(since);
        let cut = recent_start(src.as_bytes(), since)?;
        let tail = &src[cut..];
        let j = parse(tail);
        tail_stands_alone(tail, &j, since).then(|| {
            j.sections
                .iter()
                .filter(|s| s.date >= since)
                .map(|s| (s.date, s.text()))
                .collect()
        })
    }

    #[test]
    fn the_tail_starts_at_the_last_section_before_yesterday() {
        let src = "# Journal\n\n## 2026-11-01\n\n- 08:00 old\n\n## 2026-11-29\n\n- 09:00 \
                   before\n\n## 2026-11-30\n\n- 10:00 yesterday\n\n## 2026-12-01 ##\n\n- 11:00 \
                   today\n- 12:00 later\n";
        let cut = recent_start(src.as_bytes(), d("2026-11-30")).unwrap();
        assert!(src[cut..].starts_with("## 2026-11-29\n"), "{}", &src[cut..]);
        let whole: Vec<(NaiveDate, String)> = parse(src)
            .sections
            .iter()
            .filter(|s| s.date >= d("2026-11-30"))
            .map(|s| (s.date, s.text()))
            .collect();
        assert_eq!(tail_dates(src, "2026-11-30"), Some(whole.clone()));
        assert_eq!(whole.len(), 2);
        assert_eq!(whole[1].1, "11:00 today\n12:00 later");
        // CRLF files cut the same way.
        let crlf = src.replace('\n', "\r\n");
        assert_eq!(tail_dates(&crlf, "2026-11-30"), Some(whole));
        // Garbage before the cut is never read: not even as UTF-8.
        let mut bytes = b"\xff\xfe not text\n## 2026-11-02\n- x\n".to_vec();
        bytes.extend_from_slice(src.as_bytes());
        let cut = recent_start(&bytes, d("2026-11-30")).unwrap();
        assert!(bytes[cut..].starts_with(b"## 2026-11-29"));
    }

    #[test]
    fn the_tail_falls_back_when_it_cannot_stand_for_the_file() {
        // No section before yesterday: the whole file.
        assert_eq!(recent_start(b"## 2026-11-30\n- a\n", d("2026-11-30")), None);
        assert_eq!(recent_start(b"", d("2026-11-30")), None);
        // Not a heading: indented, level 3, text after the date.
        for line in [
            "   ## 2026-11-01",
            "### 2026-11-01",
            "## 2026-11-01 notes",
            "##2026-11-01",
        ] {
            let src = format!("{line}\n- a\n## 2026-12-01\n- b\n");
            assert_eq!(
                recent_start(src.as_bytes(), d("2026-11-30")),
                None,
                "{line}"
            );
        }
        // Dates out of order after the cut: the tail holds them all.
        let unsorted =
            "## 2026-11-01\n- a\n## 2026-11-20\n- x\n## 2026-12-01\n- b\n## 2026-11-30\n- c\n";
        let cut = recent_start(unsorted.as_bytes(), d("2026-11-30")).unwrap();
        assert!(unsorted[cut..].starts_with("## 2026-11-20"));
        assert_eq!(tail_dates(unsorted, "2026-11-30").map(|v| v.len()), Some(2));
        // A recent section before the cut (out of order) is not seen from
        // the end: `out_of_order` names it for `memdir check`.
        let src = "## 2026-11-01\n- a\n## 2026-12-01\n- b\n## 2026-11-20\n- c\n";
        assert_eq!(tail_dates(src, "2026-11-30"), Some(vec![]));
        let j = parse(src);
        assert_eq!(
            out_of_order(&j).map(|(s, n)| (s.date, n)),
            Some((d("2026-11-20"), d("2026-12-01")))
        );
        assert!(out_of_order(&parse("## 2026-11-01\n## 2026-11-02\n")).is_none());
        // A code fence in the tail (one may have opened before the cut).
        let fenced = "## 2026-11-01\n```\n## 2026-11-02\n```\n## 2026-12-01\n- b\n";
        assert_eq!(tail_dates(fenced, "2026-11-30"), None);
        // A cut whose heading the parser does not take as the first section.
        let para = "## 2026-11-01\n- a\n";
        assert!(tail_stands_alone(para, &parse(para), d("2026-11-30")));
        assert!(!tail_stands_alone(para, &parse(para), d("2026-11-01")));
        assert!(!tail_stands_alone(
            "- a\n",
            &parse("- a\n"),
            d("2026-11-30")
        ));
    }

    #[test]
    fn removing_a_day_never_joins_its_neighbours() {
        // Found by the `journal` fuzz target: a list item before the day and
        // a setext heading after it would have become one list item.
        let src = "- 16:40 first\n## 2029-11-06\n2-11-29\n-\n- 09:00 kept\n";
        let j = parse(src);
        let kept = NaiveDate::from_ymd_opt(2, 11, 29).unwrap();
        assert!(j.section(kept).is_some(), "{j:?}");
        let out = remove_section(src, &j, d("2029-11-06")).unwrap().unwrap();
        assert_eq!(out, "- 16:40 first\n\n2-11-29\n-\n- 09:00 kept\n");
        let after = parse(&out);
        assert!(after.section(d("2029-11-06")).is_none());
        assert_eq!(
            after.section(kept).map(|s| s.text()),
            j.section(kept).map(|s| s.text())
        );
        // Where nothing joins, only the section's bytes go.
        let src = "## 2026-11-29\n\n- 09:00 a\n\n## 2026-11-30\n\n- 10:00 b\n";
        let out = remove_section(src, &parse(src), d("2026-11-29"))
            .unwrap()
            .unwrap();
        assert_eq!(out, "## 2026-11-30\n\n- 10:00 b\n");
        assert!(remove_section(src, &parse(src), d("2026-01-01")).is_none());
    }

    #[test]
    fn line_format_round_trips() {
        let l = render_line(
            "14:05",
            Some("PIN-812"),
            "fixed the deploy (finally)",
            Some("run-1"),
        );
        assert_eq!(l, "14:05 [PIN-812] fixed the deploy (finally) (run run-1)");
        let p = parse_line(&l);
        assert_eq!(p.time.as_deref(), Some("14:05"));
        assert_eq!(p.task.as_deref(), Some("PIN-812"));
        assert_eq!(p.text, "fixed the deploy (finally)");
        assert_eq!(p.run.as_deref(), Some("run-1"));
        assert_eq!(p.workflow, None);
        let l = render_run_line("14:05", None, "crawled", Some("run-1"), Some("wf-7"));
        assert_eq!(l, "14:05 crawled (run run-1, workflow wf-7)");
        let p = parse_line(&l);
        assert_eq!(p.run.as_deref(), Some("run-1"));
        assert_eq!(p.workflow.as_deref(), Some("wf-7"));
        assert_eq!(p.text, "crawled");
        assert_eq!(
            render_run_line("14:05", None, "x", Some("run-1"), Some("run-1")),
            "14:05 x (run run-1)"
        );
        let p = parse_line("a person's own note");
        assert_eq!((p.time, p.text.as_str()), (None, "a person's own note"));
    }

    #[test]
    fn appends_into_the_right_section_in_date_order() {
        let mut src = String::new();
        for (date, line) in [
            ("2026-11-28", "09:00 first"),
            ("2026-11-30", "10:00 third"),
            ("2026-11-29", "11:00 second"),
            ("2026-11-28", "12:00 first again"),
        ] {
            let j = parse(&src);
            src = append(&src, &j, d(date), line);
        }
        assert_eq!(
            src,
            "## 2026-11-28\n\n- 09:00 first\n- 12:00 first again\n\n\
             ## 2026-11-29\n\n- 11:00 second\n\n\
             ## 2026-11-30\n\n- 10:00 third\n"
        );
        let j = parse(&src);
        assert_eq!(j.sections.len(), 3);
        assert_eq!(
            j.section(d("2026-11-28")).unwrap().text(),
            "09:00 first\n12:00 first again"
        );
    }

    #[test]
    fn hand_edits_elsewhere_survive() {
        let src = "# Journal\r\n\r\nSome notes a person wrote.\r\n\r\n## 2026-11-29\r\n\r\n- 08:00 morning\r\n\r\nA paragraph under the day.\r\n\r\n### Details\r\n\r\nmore\r\n";
        let j = parse(src);
        let out = append(src, &j, d("2026-11-29"), "09:00 next");
        assert_eq!(
            out,
            src.replacen(
                "- 08:00 morning\r\n",
                "- 08:00 morning\r\n- 09:00 next\r\n",
                1
            )
        );
        let out = append(src, &j, d("2026-11-30"), "09:00 new day");
        assert!(out.starts_with(src));
        assert!(out.ends_with("more\r\n\r\n## 2026-11-30\r\n\r\n- 09:00 new day\r\n"));
    }

    #[test]
    fn empty_section_and_no_final_newline() {
        let src = "## 2026-11-29";
        let out = append(src, &parse(src), d("2026-11-29"), "09:00 x");
        assert_eq!(out, "## 2026-11-29\n\n- 09:00 x\n");
        let src = "intro";
        let out = append(src, &parse(src), d("2026-11-29"), "09:00 x");
        assert_eq!(out, "intro\n\n## 2026-11-29\n\n- 09:00 x\n");
    }

    /// Found by the `journal` fuzz target: after an empty item, a paragraph
    /// is not part of the list; a line appended right after the item took
    /// it in as its own continuation.
    #[test]
    fn an_appended_line_does_not_take_in_the_paragraph_after_the_list() {
        for eol in ["\n", "\r\n"] {
            let src = format!("## 2026-11-29{eol}{eol}- 08:00 morning{eol}-{eol}A paragraph.{eol}");
            let (out, _) = append_line(&src, d("2026-11-29"), "09:00 later").unwrap();
            assert_eq!(
                out,
                format!(
                    "## 2026-11-29{eol}{eol}- 08:00 morning{eol}-{eol}- 09:00 later{eol}{eol}A paragraph.{eol}"
                )
            );
            let lines: Vec<String> = parse(&out).sections[0]
                .lines
                .iter()
                .map(|(_, l)| l.raw.clone())
                .collect();
            assert_eq!(lines, ["08:00 morning", "", "09:00 later"]);
        }
    }

    /// Found by the `journal` fuzz target: a new day's section at the end of
    /// a file whose code block was left open would be code, not a day.
    #[test]
    fn a_line_that_would_land_in_an_open_code_block_is_refused() {
        let src = "# Journal\n\n```\nnotes\n";
        let e = append_line(src, d("2026-11-28"), "08:00 x").unwrap_err();
        assert_eq!(e.code().as_str(), "memory_unplaceable", "{e}");
        let src = "# Journal\n\n```\nnotes\n```\n";
        let (out, _) = append_line(src, d("2026-11-28"), "08:00 x").unwrap();
        assert!(
            out.ends_with("```\n\n## 2026-11-28\n\n- 08:00 x\n"),
            "{out:?}"
        );
    }

    /// Found by the `journal` fuzz target: a day holding one empty line
    /// counted as a day holding none (one character short).
    #[test]
    fn an_empty_line_counts_in_the_days_characters() {
        let src = "## 2026-11-30\n\n-\n";
        let (_, chars) = append_line(src, d("2026-11-30"), "09:00 x").unwrap();
        assert_eq!(chars, "\n09:00 x".chars().count());
    }
}
