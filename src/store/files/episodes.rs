//! episodes.md: the run journal and day log, read, and the changes that
//! append a day line and take out or put back a date's log.

use std::cell::Cell;
use std::rc::Rc;

use chrono::NaiveDate;
use serde::Serialize;

use crate::disk::{Change, Dir, Held, decode};
use crate::error::Result;
use crate::journal::{self, DayLine, Journal};
use crate::model::{FactKind, day_id};
use crate::store::limits::EPISODES_BYTES;
use crate::store::owner::At;

/// The journal's file name.
pub const EPISODES_FILE: &str = "episodes.md";

/// One date's log, as `list --kind day` shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DayRow {
    /// `mem_` id over scope `day` and the date.
    pub id: String,
    /// Always `day`.
    pub kind: FactKind,
    /// The UTC date.
    pub date: NaiveDate,
    /// The day's lines joined by LF.
    pub text: String,
    /// The lines, parsed.
    pub lines: Vec<DayLine>,
}

fn row(sec: &journal::DaySection) -> DayRow {
    DayRow {
        id: day_id(sec.date),
        kind: FactKind::Day,
        date: sec.date,
        text: sec.text(),
        lines: sec.lines.iter().map(|(_, l)| l.clone()).collect(),
    }
}

/// episodes.md as read: the file (to write it back) and its text (empty if
/// missing).
pub(crate) fn read(at: At<'_>) -> Result<(Option<Held>, String)> {
    super::read_text(at, EPISODES_FILE, EPISODES_BYTES)
}

/// The parsed journal.
pub(crate) fn journal(at: At<'_>) -> Result<Journal> {
    Ok(journal::parse(&read(at)?.1))
}

/// Every date's day log, newest first.
pub(crate) fn day_rows(at: At<'_>) -> Result<Vec<DayRow>> {
    let mut rows: Vec<DayRow> = journal(at)?.sections.iter().map(row).collect();
    rows.sort_by_key(|r| std::cmp::Reverse(r.date));
    Ok(rows)
}

/// The day logs of `since` and later, newest first, as [`day_rows`] gives
/// them, without reading or parsing the whole file: episodes.md is read
/// from its end a piece at a time until the last section dated before
/// `since` ([`journal::recent_start`]), and only the text from there is
/// decoded and parsed. The sections are in date order as memdir writes
/// them; one a person or a merge put out of order before that cut is not
/// seen here (`memdir check` reports it: `day_log_out_of_order`). A tail
/// that cannot stand for the file's end (a code fence in it:
/// [`journal::tail_stands_alone`]) and a file with no section before
/// `since` are parsed whole.
pub(crate) fn recent_day_rows(at: At<'_>, since: NaiveDate) -> Result<Vec<DayRow>> {
    let Some(dir) = at.dir else {
        return Ok(Vec::new());
    };
    let disk = at.disk();
    let cut = |lines: &[u8]| journal::recent_start(lines, since);
    let Some(tail) = disk.read_tail(dir, EPISODES_FILE, EPISODES_BYTES, &cut)? else {
        return Ok(Vec::new());
    };
    let path = dir.join(EPISODES_FILE);
    let sections = match tail.cut {
        // The start of the file was reached: the bytes are the whole file.
        None => journal::parse(&decode(&path, tail.bytes)?).sections,
        Some(c) => {
            let part = String::from_utf8(tail.bytes[c..].to_vec()).ok();
            let alone = part.map(|text| {
                let j = journal::parse(&text);
                (journal::tail_stands_alone(&text, &j, since), j)
            });
            match alone {
                Some((true, j)) => j.sections,
                _ => match disk.read_bytes(dir, EPISODES_FILE, EPISODES_BYTES)? {
                    Some(bytes) => journal::parse(&decode(&path, bytes)?).sections,
                    None => Vec::new(),
                },
            }
        }
    };
    let mut rows: Vec<DayRow> = sections
        .iter()
        .filter(|s| s.date >= since)
        .map(row)
        .collect();
    rows.sort_by_key(|r| std::cmp::Reverse(r.date));
    Ok(rows)
}

/// The change that appends the line `content` to the log of `date`; `chars`
/// receives the characters the log holds after it.
pub(crate) fn append_line(
    dir: &Dir,
    held: Option<Held>,
    date: NaiveDate,
    content: String,
    chars: Rc<Cell<usize>>,
) -> Change<'_> {
    super::rewrite(dir, EPISODES_FILE, EPISODES_BYTES, held, move |src| {
        let (out, total) = journal::append_line(src, date, &content)?;
        chars.set(total);
        Ok(Some(out))
    })
}

/// The change that takes the log of `date` out of episodes.md.
pub(crate) fn remove_day(dir: &Dir, held: Option<Held>, date: NaiveDate) -> Change<'_> {
    super::rewrite(dir, EPISODES_FILE, EPISODES_BYTES, held, move |src| {
        journal::remove_section(src, &journal::parse(src), date).transpose()
    })
}

/// The change that puts the lines of `text` back as the log of `date`.
pub(crate) fn restore_day(
    dir: &Dir,
    held: Option<Held>,
    date: NaiveDate,
    text: String,
) -> Change<'_> {
    super::rewrite(dir, EPISODES_FILE, EPISODES_BYTES, held, move |src| {
        let mut cur = src.to_owned();
        for line in text.split('\n').filter(|l| !l.trim().is_empty()) {
            cur = journal::append(&cur, &journal::parse(&cur), date, line);
        }
        Ok(Some(cur))
    })
}
