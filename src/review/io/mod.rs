//! The daily review's I/O side: the review of an owner (`memdir review`)
//! run on its files, through `disk` (the feature's layer 17, beside the
//! store's features; its pure part, the plan, is the parent module
//! `crate::review`, layer 8, which never names this one). One concern a
//! module:
//!
//! ```text
//! prepare   the owner's files gathered (with the hash of each), the plan
//!           made by `crate::review` (pure), the reviewer's proposals
//!           merged, each store's new text: ONE path for the dry run, the
//!           real run and `review apply ID`
//! apply     a prepared review written under the owner's lock: archive
//!           first, then each store, then the journal line
//! reviewer  the reviewer command, run before the lock
//! routine   the routine "Memory dreaming": status, `--due`, pause/resume
//! history   every review the journal records, with what the files still
//!           record of its changes, and a diff of each
//! undo      what a review did taken back, from the files alone
//! diff      the dry run's unified diffs (imara-diff)
//! ```
//!
//! A dry run keeps its plan under `.memdir/reviews/` (derived, with the
//! hash of every file it was planned on, `store::files::reviews`); `review
//! apply ID` prepares the review again from the files, with the dry run's
//! id, time and reviewer answer, and writes it only when the files and the
//! plan are the ones the dry run showed.

use chrono::{DateTime, SubsecRound, Utc};
use serde::Serialize;

use crate::error::{Error, Result};
use crate::review::Plan;
use crate::review::routine::Due;
use crate::store::files::archive;
use crate::store::files::reviews::{self, PLAN_FILE_VERSION, PlanFile, StoredReviewer};
use crate::store::owner::Owner;

mod apply;
mod diff;
mod history;
mod prepare;
mod reviewer;
mod routine;
mod undo;

pub(crate) use history::history;
pub use history::{ChangeKind, ReviewChange, ReviewHistory, ReviewHistoryEntry};
pub use prepare::ReviewerRun;
pub use routine::{DueOutcome, RoutineStatus};
pub(crate) use routine::{run_due, set_paused, status};
pub(crate) use undo::undo;
pub use undo::{StillVetoed, UndoReport};

use prepare::{Asked, prepare, records, settled};
use reviewer::{ask_reviewer, reviewer_command};

/// What a review did, or would do.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ReviewReport {
    /// The review's id (`review-…`), also in every entry it touched.
    pub review_id: String,
    /// Whether anything was written (false for `--dry-run`, and for a
    /// review that found nothing to change).
    pub applied: bool,
    /// The plan.
    pub plan: Plan,
    /// Per file changed: a unified diff of it.
    pub diffs: Vec<(String, String)>,
    /// Notes, such as a commit that failed.
    pub warnings: Vec<String>,
    /// The reviewer's part, when one is configured.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reviewer: Option<ReviewerRun>,
}

/// How a review runs.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReviewOptions {
    /// Plan only; change nothing.
    pub dry_run: bool,
    /// Run only when the routine says a review is due (checked again under
    /// the lock).
    pub due: bool,
    /// The reviewer command (run with `sh -c`); `None`: the machine-local
    /// configuration's `reviewer`, if any.
    pub reviewer: Option<String>,
}

/// Reviews the owner: plans, and unless `dry_run` applies the plan.
pub(crate) fn run(owner: &Owner, opts: &ReviewOptions, now: DateTime<Utc>) -> Result<ReviewReport> {
    let opts = ReviewOptions {
        due: false,
        ..opts.clone()
    };
    review(owner, &opts, now)?.ok_or_else(|| Error::ReviewNotFound {
        id: "(none was due)".into(),
    })
}

/// Plans and (unless a dry run) applies a review; `None` when
/// `opts.due` and, under the lock, none is due.
fn review(owner: &Owner, opts: &ReviewOptions, now: DateTime<Utc>) -> Result<Option<ReviewReport>> {
    // The reviewer runs before the lock (it may take minutes); its
    // proposals are checked against the files as they are under the lock.
    let asked: Option<Asked> = match reviewer_command(owner, opts)? {
        Some((command, timeout)) => {
            let view = owner.view()?;
            let answer = ask_reviewer(view.at(), &command, timeout, now)?;
            Some((command, answer))
        }
        None => None,
    };
    let stored = asked.as_ref().map(|(command, answer)| StoredReviewer {
        command: command.clone(),
        proposals: answer.as_ref().ok().cloned(),
        error: answer.as_ref().err().cloned(),
    });
    if opts.dry_run {
        return dry_run(owner, asked.as_ref(), stored, now).map(Some);
    }
    let locked = owner.lock()?;
    // Another process may have run the due review while this one waited.
    if opts.due && !matches!(routine::status_at(locked.at(), now)?.due, Due::Due { .. }) {
        return Ok(None);
    }
    let prepared = prepare(locked.at(), asked.as_ref(), now, None)?;
    apply::write(&locked, prepared, stored, now).map(Some)
}

/// The dry run: the review prepared from the files as they are (no lock),
/// each file's diff, and the plan kept for `review apply ID`.
fn dry_run(
    owner: &Owner,
    asked: Option<&Asked>,
    stored: Option<StoredReviewer>,
    now: DateTime<Utc>,
) -> Result<ReviewReport> {
    let view = owner.view()?;
    let at = view.at();
    let p = prepare(at, asked, now, None)?;
    let mut diffs = Vec::new();
    let recs = records(&p.plan, &p.facts, &p.id, now, owner.caller());
    let settle = settled(&p.plan, &p.id);
    if !recs.is_empty() || settle.is_some() {
        let src = &p.archive_src;
        let cur =
            archive::next_text(src, &recs, &Default::default(), &settle).map_err(|reason| {
                Error::Unplaceable {
                    path: owner.dir().join(archive::ARCHIVE_FILE),
                    reason,
                }
            })?;
        diffs.push((
            archive::ARCHIVE_FILE.to_owned(),
            diff::unified_diff(archive::ARCHIVE_FILE, src, &cur),
        ));
    }
    for (l, new) in &p.stores {
        if let Some(new) = new {
            let name = l.scope.file_name();
            diffs.push((name.to_owned(), diff::unified_diff(name, &l.src, new)));
        }
    }
    let mut warnings = Vec::new();
    if !p.plan.changes.is_empty() {
        let file = PlanFile {
            version: PLAN_FILE_VERSION,
            id: p.id.clone(),
            owner: owner.id().to_owned(),
            now,
            applied: false,
            planned_on: p.fingerprint.clone(),
            reviewer: stored,
            plan: serde_json::to_value(&p.plan).map_err(|source| Error::Encode {
                what: "review plan",
                source,
            })?,
        };
        if let Err(e) = reviews::write(at, &file) {
            warnings.push(format!(
                "the plan was not kept, so `memdir review apply {}` cannot apply it: {e}",
                p.id
            ));
        }
    }
    Ok(ReviewReport {
        review_id: p.id,
        applied: false,
        plan: p.plan,
        diffs,
        warnings,
        reviewer: p.reviewer,
    })
}

/// `memdir review apply ID`: the dry run `id`'s plan applied, exactly, if
/// nothing it was planned on changed since; else nothing changes and the
/// error names what changed (`review_changed`). The review is prepared
/// again from the files under the lock, with the dry run's id, time and
/// reviewer answer (the reviewer is not run again; its proposals are
/// checked again), so the plan file decides nothing a fresh review would
/// not: a forged one can only fail to match.
pub(crate) fn apply_planned(owner: &Owner, id: &str) -> Result<ReviewReport> {
    crate::model::validate_id("review", id)?;
    let locked = owner.lock()?;
    let at = locked.at();
    let file =
        reviews::read(at, id)?.ok_or_else(|| Error::ReviewPlanNotFound { id: id.to_owned() })?;
    let changed = |what: Vec<String>| Error::ReviewPlanChanged {
        id: id.to_owned(),
        changed: what,
    };
    if file.applied {
        return Err(changed(vec![format!("{id} was applied already")]));
    }
    // The time the plan was made for: the id's, and never in the future.
    let now = Utc::now();
    if crate::review::routine::review_time(id) != Some(file.now.trunc_subsecs(0)) || file.now > now
    {
        return Err(Error::ReviewPlanNotFound { id: id.to_owned() });
    }
    let asked: Option<Asked> = file.reviewer.as_ref().map(|r| {
        (
            r.command.clone(),
            match &r.proposals {
                Some(p) => Ok(p.clone()),
                None => Err(r.error.clone().unwrap_or_default()),
            },
        )
    });
    let prepared = prepare(at, asked.as_ref(), file.now, Some(id))?;
    let what = prepare::changed_since(&file.planned_on, &prepared.fingerprint);
    if !what.is_empty() {
        return Err(changed(what));
    }
    if serde_json::to_value(&prepared.plan).ok().as_ref() != Some(&file.plan) {
        return Err(changed(vec![
            "the plan made again differs from the dry run's (recall counts, run results or settings changed)".into(),
        ]));
    }
    apply::write(&locked, prepared, file.reviewer, now)
}
