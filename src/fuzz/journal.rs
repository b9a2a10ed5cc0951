//! Target `journal`: episodes.md, its day lines and the edits of it.
//!
//! Input: a control byte (bits 0–1: the part; the rest: the parts of a
//! line), a byte picking the date, a line's text (a field), then the file
//! (at most 64 KiB).

use chrono::NaiveDate;

use super::{Input, change, expect_code, in_bounds, truncate};
use crate::journal::{
    Journal, MAX_DAY_CHARS, append_line, check_line, parse, parse_line, remove_section, render_line,
};
use crate::model::fold_whitespace;

/// Largest file the target parses.
const MAX_SOURCE_BYTES: usize = 64 * 1024;

/// Parses the file, checks the parse, then appends a line, removes a
/// date's section or round-trips a line.
pub fn journal(data: &[u8]) {
    let mut input = Input::new(data);
    let control = input.byte();
    let pick = input.byte();
    let line = input.field();
    let src = truncate(input.rest(), MAX_SOURCE_BYTES);
    let j = parse(&src);
    check_parse(&src, &j);
    match control & 3 {
        0 | 1 => append(&src, &j, control >> 2, date(pick), &line),
        2 => remove(&src, &j, pick),
        _ => round_trip(&line),
    }
}

/// One of eight dates around 2026-11-30, so that the fuzzer meets the
/// dates its files hold.
fn date(pick: u8) -> NaiveDate {
    let day = u32::from(pick % 8) + 25;
    let (m, d) = if day > 30 { (12, day - 30) } else { (11, day) };
    NaiveDate::from_ymd_opt(2026, m, d).unwrap_or_else(|| panic!("2026-{m}-{d}"))
}

/// The parse: deterministic; sections in file order, apart, each within the
/// file; their lines within them, in order, on character boundaries.
fn check_parse(src: &str, j: &Journal) {
    assert_eq!(&parse(src), j, "a second parse differs");
    let mut prev_end = 0;
    for s in &j.sections {
        let at = format!("section {}", s.date);
        assert!(in_bounds(src, &s.heading), "{at}: heading {:?}", s.heading);
        assert!(
            s.heading.start >= prev_end && s.heading.end <= s.end && s.end <= src.len(),
            "{at}: {:?}..{}",
            s.heading,
            s.end
        );
        prev_end = s.end;
        let mut line_end = s.heading.end;
        for (r, l) in &s.lines {
            assert!(in_bounds(src, r), "{at}: line {r:?}");
            assert!(r.start >= line_end && r.end <= s.end, "{at}: line {r:?}");
            line_end = r.end;
            assert_eq!(fold_whitespace(&l.raw), l.raw, "{at}: raw not folded");
            assert_eq!(&parse_line(&l.raw), l, "{at}: line parts");
        }
    }
}

/// The raw lines of each section, in file order, with their dates.
fn contents(j: &Journal) -> Vec<(NaiveDate, Vec<String>)> {
    j.sections
        .iter()
        .map(|s| (s.date, s.lines.iter().map(|(_, l)| l.raw.clone()).collect()))
        .collect()
}

/// Appends a line as `memdir day` does: the file changes by one insertion;
/// the date's section holds its old lines and then the new one; every other
/// section is as it was; a new section goes in date order.
fn append(src: &str, j: &Journal, parts: u8, date: NaiveDate, text: &str) {
    let text = match check_line(text) {
        Ok(t) => t,
        Err(e) => {
            return expect_code(
                "day line",
                e.code().as_str(),
                &[
                    "memory_text_empty",
                    "memory_day_line_too_long",
                    "memory_text_invalid",
                ],
            );
        }
    };
    let time = format!("{:02}:{:02}", parts % 24, (parts >> 1) % 60);
    let task = (parts & 0x10 != 0).then_some("PIN-812");
    let run = (parts & 0x20 != 0).then_some("run-20261130T120000.000000Z-1a2b3c4d");
    let content = render_line(&time, task, &text, run);
    let before = contents(j);
    let at = j.sections.iter().position(|s| s.date == date);
    let old_lines = at.map(|i| before[i].1.clone()).unwrap_or_default();
    // The day's lines joined by LF, the new one included.
    let mut joined = old_lines.clone();
    joined.push(content.clone());
    let total = joined.join("\n").chars().count();
    let (out, chars) = match append_line(src, date, &content) {
        Ok(r) => r,
        // A place inside a block a person left open (a code block, an HTML
        // block or comment): the line would not read back. Nothing is
        // written.
        Err(e) if e.code() == crate::ErrorCode::MemoryUnplaceable => return,
        Err(e) => {
            assert_eq!(e.code().as_str(), "memory_day_full", "{e}");
            assert!(total > MAX_DAY_CHARS, "refused at {total} characters");
            return;
        }
    };
    assert_eq!(chars, total, "characters of the day");
    assert!(total <= MAX_DAY_CHARS, "accepted at {total} characters");
    let c = change(src, &out);
    assert_eq!(c.start, c.old_end, "an append replaced bytes: {c:?}");
    let after = contents(&parse(&out));
    let mut want = before;
    match at {
        Some(i) => want[i].1 = joined,
        None => {
            let i = want
                .iter()
                .position(|(d, _)| *d > date)
                .unwrap_or(want.len());
            want.insert(i, (date, joined));
        }
    }
    assert_eq!(after, want, "after appending {content:?}: {out:?}");
}

/// Removes a date's section: exactly its bytes go, and every other section
/// is as it was.
fn remove(src: &str, j: &Journal, pick: u8) {
    let Some(first) = j.sections.get(usize::from(pick) % j.sections.len().max(1)) else {
        assert!(
            remove_section(src, j, date(pick)).is_none(),
            "removed from nothing"
        );
        return;
    };
    let date = first.date;
    let i = j
        .sections
        .iter()
        .position(|s| s.date == date)
        .unwrap_or_else(|| panic!("no section for {date}"));
    let sec = &j.sections[i];
    let Some(done) = remove_section(src, j, date) else {
        panic!("the section of {date} was not removed");
    };
    let out = match done {
        Ok(out) => out,
        Err(e) => {
            expect_code("remove_section", e.code().as_str(), &["memory_unplaceable"]);
            return;
        }
    };
    // Only the section's bytes go, a blank line staying in their place
    // where the neighbours would otherwise join.
    let (before, after) = (&src[..sec.heading.start], &src[sec.end..]);
    assert!(
        out == format!("{before}{after}") || out == format!("{before}\n{after}"),
        "removed other bytes"
    );
    let mut want = contents(j);
    want.remove(i);
    assert_eq!(
        contents(&parse(&out)),
        want,
        "after removing {date}: {out:?}"
    );
}

/// A line as memdir renders it reads back as the same line, with its time;
/// and its parts exactly, when its text cannot pass for a task key or a
/// run id.
fn round_trip(text: &str) {
    let raw = fold_whitespace(text);
    let p = parse_line(&raw);
    assert_eq!(p.raw, raw);
    match &p.time {
        Some(t) => assert_eq!(
            render_line(t, p.task.as_deref(), &p.text, p.run.as_deref()),
            raw,
            "parts of {raw:?}: {p:?}"
        ),
        None => assert_eq!(p.text, raw, "a line of another form"),
    }
    if raw.is_empty() {
        return;
    }
    for (task, run) in [
        (None, None),
        (Some("PIN-812"), None),
        (Some("PIN-812"), Some("run-1")),
        (None, Some("run-1")),
    ] {
        let line = render_line("09:05", task, &raw, run);
        let q = parse_line(&line);
        assert_eq!(q.time.as_deref(), Some("09:05"), "{line:?}");
        assert_eq!(q.raw, line);
        let plain = !raw.starts_with('[') && !raw.ends_with(')');
        if plain {
            assert_eq!(
                (q.task.as_deref(), q.text.as_str(), q.run.as_deref()),
                (task, raw.as_str(), run),
                "{line:?}"
            );
        }
    }
}
