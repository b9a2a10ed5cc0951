//! episodes.md on disk: appending day lines under the owner's lock, day rows,
//! finishing runs, and looking runs up.

use chrono::{DateTime, NaiveDate, Utc};
use serde::Serialize;

use crate::caller::Caller;
use crate::error::{Error, Result};
use crate::fs;
use crate::id::{entry_id, fold_whitespace, validate_id};
use crate::journal::{self, DayLine, Journal, MAX_DAY_CHARS, MAX_DAY_LINE_CHARS};
use crate::runs::Run;
use crate::store::Owner;

/// The journal's file name.
pub const EPISODES_FILE: &str = "episodes.md";
/// Largest episodes.md memdir edits (it grows by day; it is never injected).
pub const MAX_EPISODES_BYTES: u64 = 64 * 1024 * 1024;

/// One date's log, as `list --kind day` shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DayRow {
    /// `mem_` id over scope `day` and the date.
    pub id: String,
    /// Always `day`.
    pub kind: &'static str,
    /// The UTC date.
    pub date: NaiveDate,
    /// The day's lines joined by LF.
    pub text: String,
    /// The lines, parsed.
    pub lines: Vec<DayLine>,
}

/// What an append to the day log did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DayOutcome {
    /// The day row's id.
    pub id: String,
    /// The date appended to.
    pub date: NaiveDate,
    /// The line written.
    pub line: DayLine,
    /// Characters the day's log holds now.
    pub chars: usize,
    /// Always `appended`.
    pub message: &'static str,
}

/// The id of a date's day row.
pub fn day_id(date: NaiveDate) -> String {
    entry_id("day", &date.format("%Y-%m-%d").to_string())
}

fn row(sec: &journal::DaySection) -> DayRow {
    DayRow {
        id: day_id(sec.date),
        kind: "day",
        date: sec.date,
        text: sec.text(),
        lines: sec.lines.iter().map(|(_, l)| l.clone()).collect(),
    }
}

impl<'s> Owner<'s> {
    fn read_journal(&self) -> Result<(Option<Vec<u8>>, String)> {
        let path = self.dir().join(EPISODES_FILE);
        if !fs::plain_dir_exists(self.io(), self.dir())? {
            return Ok((None, String::new()));
        }
        let raw = fs::stable_read(self.io(), &path)?;
        let src = match &raw {
            Some(b) => fs::decode_limited(&path, b.clone(), MAX_EPISODES_BYTES)?,
            None => String::new(),
        };
        Ok((raw, src))
    }

    /// Appends one line to today's (UTC) day log. Only the owner (an agent)
    /// keeps a day log.
    pub fn day(&self, text: &str, task: Option<&str>, run: Option<&str>) -> Result<DayOutcome> {
        self.day_at(text, task, run, Utc::now())
    }

    /// [`Owner::day`] at a given time (the line's date and `HH:MM`).
    pub fn day_at(
        &self,
        text: &str,
        task: Option<&str>,
        run: Option<&str>,
        now: DateTime<Utc>,
    ) -> Result<DayOutcome> {
        match &self.caller {
            Caller::Person(p) => return Err(Error::DayAgentOnly { person: p.clone() }),
            Caller::Agent(a) if a != self.id() => {
                return Err(Error::NotOwn {
                    agent: a.clone(),
                    named: self.id().to_owned(),
                });
            }
            Caller::Agent(_) => {}
        }
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
        if let Some(t) = task {
            validate_id("task", t)?;
        }
        if let Some(r) = run {
            validate_id("run", r)?;
        }
        let date = now.date_naive();
        let content = journal::render_line(&now.format("%H:%M").to_string(), task, &text, run);
        let (_lock, _) = self.lock_for_write()?;
        let (raw, _) = self.read_journal()?;
        let path = self.dir().join(EPISODES_FILE);
        let mut total = 0;
        fs::replace_file(self.io(), &self.store.poison, &path, raw, |cur| {
            let src = match cur {
                Some(b) => fs::decode_limited(&path, b.to_vec(), MAX_EPISODES_BYTES)?,
                None => String::new(),
            };
            let j = journal::parse(&src);
            let before = j.section(date).map(|s| s.text()).unwrap_or_default();
            total = if before.is_empty() {
                content.chars().count()
            } else {
                before.chars().count() + 1 + content.chars().count()
            };
            if total > MAX_DAY_CHARS {
                return Err(Error::DayFull {
                    date: date.to_string(),
                    chars: total,
                    limit: MAX_DAY_CHARS,
                });
            }
            Ok(Some(journal::append(&src, &j, date, &content).into_bytes()))
        })?;
        Ok(DayOutcome {
            id: day_id(date),
            date,
            line: journal::parse_line(&content),
            chars: total,
            message: "appended",
        })
    }

    /// Every date's day log in episodes.md, newest first.
    pub fn day_rows(&self) -> Result<Vec<DayRow>> {
        let (_, src) = self.read_journal()?;
        let mut rows: Vec<DayRow> = journal::parse(&src).sections.iter().map(row).collect();
        rows.sort_by_key(|r| std::cmp::Reverse(r.date));
        Ok(rows)
    }

    /// The parsed journal (for lookups).
    pub(crate) fn journal(&self) -> Result<Journal> {
        Ok(journal::parse(&self.read_journal()?.1))
    }

    /// Finishes a run begun earlier (by id): appends its line to the day log
    /// with the run's task key and id, and records the finish in the run record.
    pub fn finish_run(&self, run_id: &str, summary: &str) -> Result<DayOutcome> {
        let mut record = self.run_record(run_id)?;
        let out = self.day(summary, record.task.as_deref(), Some(run_id))?;
        record.finished_at = Some(Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Micros, true));
        self.write_run_record(&record)?;
        Ok(out)
    }
}

impl Run<'_> {
    /// Finishes the run: appends its summary line (time, task key, text, run
    /// id) to today's day log.
    pub fn finish(&self, summary: &str) -> Result<DayOutcome> {
        self.memory().finish_run(self.id(), summary)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runs::RunOptions;
    use crate::store::Store;

    fn at(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
    }

    #[test]
    fn day_lines_limits_and_rows() {
        let d = tempfile::tempdir().unwrap();
        let s = Store::open(d.path()).unwrap();
        let o = s.owner("agt").unwrap();
        let out = o
            .day_at(
                "fixed   the deploy",
                Some("PIN-812"),
                None,
                at("2026-11-29T14:05:09Z"),
            )
            .unwrap();
        assert_eq!(
            out.id,
            day_id(NaiveDate::from_ymd_opt(2026, 11, 29).unwrap())
        );
        o.day_at("next day", None, None, at("2026-11-30T00:01:00Z"))
            .unwrap();
        let text = std::fs::read_to_string(d.path().join("agt/episodes.md")).unwrap();
        assert_eq!(
            text,
            "## 2026-11-29\n\n- 14:05 [PIN-812] fixed the deploy\n\n## 2026-11-30\n\n- 00:01 next day\n"
        );
        let rows = o.day_rows().unwrap();
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[0].text, "00:01 next day");

        let p = s
            .owner_as(&Caller::Person("dana".into()), Some("agt"))
            .unwrap();
        assert_eq!(
            p.day("x", None, None).unwrap_err().code(),
            "memory_day_agent_only"
        );
        let long = "x".repeat(301);
        assert_eq!(
            o.day(&long, None, None).unwrap_err().code(),
            "memory_day_line_too_long"
        );
        let line = "y".repeat(290);
        let t = at("2026-12-01T10:00:00Z");
        let mut n = 0;
        let err = loop {
            match o.day_at(&line, None, None, t) {
                Ok(_) => n += 1,
                Err(e) => break e,
            }
        };
        assert_eq!(err.code(), "memory_day_full");
        // 296 characters a line plus LF between: 26 lines fit in 8,000.
        assert_eq!(n, 26);
    }

    #[test]
    fn finishing_a_run_appends_its_line() {
        let d = tempfile::tempdir().unwrap();
        let s = Store::open(d.path()).unwrap();
        let o = s.owner("agt").unwrap();
        let run = o.begin_run(RunOptions::task("PIN-9")).unwrap();
        let out = run.finish("shipped it").unwrap();
        assert_eq!(out.line.task.as_deref(), Some("PIN-9"));
        assert_eq!(out.line.run.as_deref(), Some(run.id()));
        assert!(o.run_record(run.id()).unwrap().finished_at.is_some());
    }
}
