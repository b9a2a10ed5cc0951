//! The day log: appending a line to today's log in episodes.md under the
//! owner's lock, and finishing a run (its summary line, and the finish time
//! in its record).

use std::cell::Cell;
use std::rc::Rc;

use chrono::{DateTime, NaiveDate, Utc};
use serde::Serialize;

use super::files::{episodes, runs};
use super::owner::Owner;
use crate::error::{Error, Result};
use crate::journal::{self, DayLine};
use crate::model::{Caller, day_id, validate_id};

/// What an append to the day log did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
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
    #[schemars(extend("const" = "appended"))]
    pub message: &'static str,
    /// Notes, such as a commit that failed (`git.autocommit`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

/// Appends one line to the day log of `now`'s UTC date, stamped `HH:MM`.
/// Only the owner (an agent) keeps a day log.
pub(crate) fn day(
    owner: &Owner,
    text: &str,
    task: Option<&str>,
    run: Option<&str>,
    now: DateTime<Utc>,
) -> Result<DayOutcome> {
    // A line names only a run this owner began (its record exists); a
    // unique prefix of its id names it too.
    let run = match run {
        Some(r) => Some(runs::resolve(owner.view()?.at(), r)?),
        None => None,
    };
    append(owner, text, task, run.as_deref(), None, now)
}

/// Appends one line to the day log of `now`'s UTC date, naming `run` (an
/// existing run's id) and the `workflow` it produced results for.
fn append(
    owner: &Owner,
    text: &str,
    task: Option<&str>,
    run: Option<&str>,
    workflow: Option<&str>,
    now: DateTime<Utc>,
) -> Result<DayOutcome> {
    match owner.caller() {
        Caller::Person(p) => return Err(Error::DayAgentOnly { person: p.clone() }),
        Caller::Agent(a) if a != owner.id() => {
            return Err(Error::NotOwn {
                agent: a.clone(),
                named: owner.id().to_owned(),
            });
        }
        Caller::Agent(_) => {}
    }
    let text = journal::check_line(text)?;
    if let Some(t) = task {
        validate_id("task", t)?;
    }
    let date = now.date_naive();
    let content =
        journal::render_run_line(&now.format("%H:%M").to_string(), task, &text, run, workflow);
    let locked = owner.lock()?;
    let (held, _) = episodes::read(locked.at())?;
    let chars = Rc::new(Cell::new(0));
    owner.disk().replace(episodes::append_line(
        locked.dir(),
        held,
        date,
        content.clone(),
        Rc::clone(&chars),
    ))?;
    let id = day_id(date);
    let warnings = locked
        .written(&[episodes::EPISODES_FILE], &format!("day {id}"))
        .into_iter()
        .collect();
    Ok(DayOutcome {
        id,
        date,
        line: journal::parse_line(&content),
        chars: chars.get(),
        message: "appended",
        warnings,
    })
}

/// Finishes a run begun earlier (by id): appends its line to the day log
/// with the run's task key and id, and records the finish in the run record.
/// `run_id` may be a unique prefix of the run's id; a finished run is
/// `run_finished`.
pub(crate) fn finish_run(owner: &Owner, run_id: &str, summary: &str) -> Result<DayOutcome> {
    let mut record = {
        let view = owner.view()?;
        let id = runs::resolve(view.at(), run_id)?;
        runs::read_record(view.at(), &id)?
    };
    if let Some(done) = record.finished_at {
        return Err(Error::RunFinished {
            run_id: record.run_id,
            finished_at: crate::model::fmt_time(done),
        });
    }
    let out = append(
        owner,
        summary,
        record.task.as_deref(),
        Some(&record.run_id),
        Some(record.workflow()),
        Utc::now(),
    )?;
    record.finished_at = Some(Utc::now());
    let folders = owner.folders()?;
    runs::write_record(owner, &folders.derived, &record)?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Caller, day_id};
    use crate::store::{RunOptions, Store};

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
            p.day("x", None, None).unwrap_err().code().as_str(),
            "memory_day_agent_only"
        );
        let long = "x".repeat(301);
        assert_eq!(
            o.day(&long, None, None).unwrap_err().code().as_str(),
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
        assert_eq!(err.code().as_str(), "memory_day_full");
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
        assert!(o.runs().record(run.id()).unwrap().finished_at.is_some());
        assert_eq!(
            run.finish("again").unwrap_err().code().as_str(),
            "run_finished"
        );
        let wf = o
            .begin_run(RunOptions::default().workflow("crawl-7"))
            .unwrap();
        let out = o
            .runs()
            .finish(&wf.id()[..wf.id().len() - 2], "crawled")
            .unwrap();
        assert_eq!(out.line.workflow.as_deref(), Some("crawl-7"));
        assert_eq!(out.line.run.as_deref(), Some(wf.id()));
    }
}
