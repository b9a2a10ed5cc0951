//! Looking runs up on demand: search the journal, and show one run (its
//! journal lines, the snapshot it began with, its SharedMemory steps). Never
//! injected into a snapshot.

use std::time::{Duration, Instant};

use chrono::NaiveDate;
use serde::Serialize;

use super::files::episodes;
use super::files::results::{self, ResultStep};
use super::files::runs::{self, RunRecall, RunRecord};
use super::owner::{At, Owner};
use crate::error::{Error, Result};
use crate::model::validate_id;
use crate::recall::{Bm25Scorer, Scorer};

/// Default rows a search returns.
pub const DEFAULT_SEARCH_LIMIT: usize = 20;

/// One journal line found by a search.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct RunHit {
    /// Its date.
    pub date: NaiveDate,
    /// `HH:MM` UTC, when the line has it.
    pub time: Option<String>,
    /// The task key.
    pub task: Option<String>,
    /// The run id.
    #[serde(rename = "run_id")]
    pub run: Option<String>,
    /// The workflow the run produced results for, when the line names one
    /// other than the run id.
    #[serde(rename = "workflow_id", skip_serializing_if = "Option::is_none")]
    pub workflow: Option<String>,
    /// The line's text.
    pub text: String,
    /// Lexical relevance in [0, 1] (absent in `runs show`).
    pub score: Option<f64>,
}

/// How to search.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SearchOptions {
    /// Only lines on or after this date.
    pub since: Option<NaiveDate>,
    /// Only lines on or before this date.
    pub until: Option<NaiveDate>,
    /// At most this many hits (default 20).
    pub limit: Option<usize>,
}

/// One run, as `runs show` answers.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct RunView {
    /// The run id.
    pub run_id: String,
    /// Its record, when it was begun through memdir.
    pub record: Option<RunRecord>,
    /// Its journal lines.
    pub journal: Vec<RunHit>,
    /// The snapshot it began with.
    pub snapshot: Option<String>,
    /// The recall blocks it was given, oldest first (kept in its record,
    /// bounded: docs/FORMAT.md).
    pub recalls: Vec<RunRecall>,
    /// Recalls it made past the bound, whose blocks were not kept.
    #[serde(skip_serializing_if = "is_zero")]
    #[schemars(range(min = 1))]
    pub recalls_left_out: u32,
    /// Its SharedMemory steps (results stored under the run's workflow id,
    /// by default the run id).
    pub steps: Vec<ResultStep>,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

fn journal_hits(at: At<'_>) -> Result<Vec<RunHit>> {
    let mut hits = Vec::new();
    for sec in episodes::journal(at)?.sections {
        for (_, l) in sec.lines {
            hits.push(RunHit {
                date: sec.date,
                time: l.time,
                task: l.task,
                run: l.run,
                workflow: l.workflow,
                text: l.text,
                score: None,
            });
        }
    }
    Ok(hits)
}

/// Ranks the journal's lines against `query` by lexical match (BM25, as
/// recall scores), best first, newest first among equals; lines with no
/// match are left out.
pub(crate) fn search_runs(
    owner: &Owner,
    query: &str,
    options: &SearchOptions,
) -> Result<Vec<RunHit>> {
    if query.trim().is_empty() {
        return Err(Error::Required {
            what: "query",
            action: "search_runs",
        });
    }
    let mut hits = journal_hits(owner.view()?.at())?;
    hits.retain(|h| {
        options.since.is_none_or(|d| h.date >= d) && options.until.is_none_or(|d| h.date <= d)
    });
    let docs: Vec<String> = hits
        .iter()
        .map(|h| format!("{} {}", h.task.as_deref().unwrap_or(""), h.text))
        .collect();
    let refs: Vec<&str> = docs.iter().map(String::as_str).collect();
    let deadline = Instant::now() + Duration::from_secs(5);
    let scores = Bm25Scorer::default()
        .score(query, &refs, deadline)
        .map_err(|e| Error::SearchFailed {
            reason: format!("{e:?}"),
        })?;
    for (h, s) in hits.iter_mut().zip(scores) {
        h.score = Some(s);
    }
    hits.retain(|h| h.score.is_some_and(|s| s > 0.0));
    hits.sort_by(|a, b| {
        b.score
            .partial_cmp(&a.score)
            .unwrap_or(std::cmp::Ordering::Equal)
            .then_with(|| b.date.cmp(&a.date))
            .then_with(|| b.time.cmp(&a.time))
    });
    hits.truncate(options.limit.unwrap_or(DEFAULT_SEARCH_LIMIT));
    Ok(hits)
}

/// One run: its record, journal lines, starting snapshot and steps.
/// `run_id` may be a unique prefix of a begun run's id.
pub(crate) fn get_run(owner: &Owner, run_id: &str) -> Result<RunView> {
    validate_id("run", run_id)?;
    let view = owner.view()?;
    let at = view.at();
    let resolved = match runs::resolve(at, run_id) {
        Ok(id) => id,
        // A run only the journal or the results know.
        Err(Error::RunNotFound { .. }) => run_id.to_owned(),
        Err(e) => return Err(e),
    };
    let run_id = resolved.as_str();
    let mut record = match runs::read_record(at, run_id) {
        Ok(r) => Some(r),
        Err(Error::RunNotFound { .. }) => None,
        Err(e) => return Err(e),
    };
    let journal: Vec<RunHit> = journal_hits(at)?
        .into_iter()
        .filter(|h| h.run.as_deref() == Some(run_id))
        .collect();
    let workflow = record.as_ref().map_or(run_id, RunRecord::workflow);
    let steps = match results::workflow_results(at, workflow) {
        Ok(w) => w.steps,
        Err(Error::NotReady { .. }) => Vec::new(),
        Err(e) => return Err(e),
    };
    if record.is_none() && journal.is_empty() && steps.is_empty() {
        return Err(Error::RunNotFound {
            run_id: run_id.to_owned(),
        });
    }
    let snapshot = match &record {
        Some(r) => runs::stored_snapshot(at, &r.snapshot_sha256)?,
        None => None,
    };
    // The recalls once, beside the record.
    let (recalls, recalls_left_out) = match &mut record {
        Some(r) => (
            std::mem::take(&mut r.recalls),
            std::mem::take(&mut r.recalls_left_out),
        ),
        None => (Vec::new(), 0),
    };
    Ok(RunView {
        run_id: run_id.to_owned(),
        record,
        journal,
        snapshot,
        recalls,
        recalls_left_out,
        steps,
    })
}

/// The runs begun through memdir, newest first; with `open`, only those
/// not finished.
pub(crate) fn list_runs(owner: &Owner, open: bool) -> Result<Vec<RunRecord>> {
    let mut out = runs::list_records(owner.view()?.at())?;
    out.retain(|r| !open || r.finished_at.is_none());
    // A list names runs; a run's recalls are shown with the run.
    for r in &mut out {
        r.recalls.clear();
        r.recalls_left_out = 0;
    }
    out.reverse();
    Ok(out)
}

#[cfg(test)]
mod tests {
    use crate::store::{RunOptions, SearchOptions, Store};

    #[test]
    fn search_ranks_and_show_gathers_a_run() {
        let d = tempfile::tempdir().unwrap();
        let s = Store::open(d.path()).unwrap();
        let o = s.owner("agt").unwrap();
        let run = o.begin_run(RunOptions::task("PIN-7")).unwrap();
        o.results()
            .put(run.id(), "web", b"page", "text/html", false)
            .unwrap();
        run.finish("competitor analysis of Acme pricing").unwrap();
        o.day("reviewed the flaky login test", None, None).unwrap();
        let hits = o
            .runs()
            .search("competitor analysis", &SearchOptions::default())
            .unwrap();
        assert_eq!(hits.len(), 1);
        assert_eq!(hits[0].run.as_deref(), Some(run.id()));
        assert_eq!(hits[0].task.as_deref(), Some("PIN-7"));
        let future = SearchOptions {
            since: chrono::Utc::now().date_naive().succ_opt(),
            ..SearchOptions::default()
        };
        assert!(o.runs().search("competitor", &future).unwrap().is_empty());
        assert_eq!(
            o.runs()
                .search(" ", &SearchOptions::default())
                .unwrap_err()
                .code()
                .as_str(),
            "invalid_request"
        );

        let v = o.runs().get(run.id()).unwrap();
        assert_eq!(v.journal.len(), 1);
        assert_eq!(v.steps.len(), 1);
        assert_eq!(v.snapshot.as_deref(), Some(run.snapshot().text.as_str()));
        assert_eq!(
            o.runs().get("run-nope").unwrap_err().code().as_str(),
            "run_not_found"
        );
    }
}
