//! The routine "Memory dreaming": its state as the owner's files record it
//! (memdir.yaml, the journal's review lines, and this machine's note of a
//! review that changed nothing), `review --due`, pause and resume.

use chrono::{DateTime, Utc};
use serde::Serialize;

use super::{ReviewOptions, ReviewReport};
use crate::error::{Error, Result};
use crate::model::{Scope, created_at};
use crate::review::routine::{self, Due, LastReview};
use crate::store::files::{archive, config, episodes, reviews, stores};
use crate::store::limits::STORE_BYTES;
use crate::store::owner::{At, Owner};
use crate::store::root::CONFIG_FILE;

/// The routine's state: its setting, whether a review is due, the last
/// review the journal records.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RoutineStatus {
    /// The time of day a review is due (UTC), when there is a routine.
    pub at: Option<String>,
    /// Whether the routine is paused.
    pub paused: bool,
    /// Whether a review is due now, and since or until when.
    pub due: Due,
    /// The next time a review is due (now or earlier when one is due).
    pub next_due: Option<DateTime<Utc>>,
    /// The last review the owner's journal records.
    pub last: Option<LastReview>,
}

/// What `review --due` did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DueOutcome {
    /// The review, when one was due.
    pub ran: Option<ReviewReport>,
    /// The routine as it stood before.
    pub status: RoutineStatus,
}

/// When the owner first saved a fact, as its files say: the earliest
/// `created` of the entries of MEMORY.md, USER.md and archive.md (`None`
/// when none says).
fn first_save(at: At<'_>) -> Result<Option<DateTime<Utc>>> {
    let mut first: Option<DateTime<Utc>> = None;
    let mut saw = |t: Option<DateTime<Utc>>| {
        if let Some(t) = t {
            first = Some(first.map_or(t, |f| f.min(t)));
        }
    };
    for scope in [Scope::Memory, Scope::User] {
        let l = stores::load(at, scope, false, STORE_BYTES)?;
        for e in &l.doc.entries {
            saw(e.meta_comment(&l.src).and_then(created_at));
        }
    }
    let (_, src) = archive::read(at)?;
    for r in archive::records(&src) {
        saw(r.meta.created);
    }
    Ok(first)
}

/// The routine's state as the owner's files (memdir.yaml, episodes.md)
/// record it: reads two files, parses neither store, takes no lock. An
/// owner never reviewed is due at the first scheduled time after its first
/// save: then its stores and archive.md are read too, for the time of its
/// first fact ([`first_save`]).
pub(crate) fn status_at(at: At<'_>, now: DateTime<Utc>) -> Result<RoutineStatus> {
    let (_, episodes) = episodes::read(at)?;
    let mut last = routine::last_review(&episodes);
    // A review that found nothing to change wrote no journal line; this
    // machine noted it.
    if let Some(id) = reviews::last_unchanged(at)?
        && let Some(t) = routine::review_time(&id)
        && last.as_ref().is_none_or(|l| t > l.at)
    {
        last = Some(LastReview {
            id,
            at: t,
            report: "review: no changes".into(),
            undone: false,
        });
    }
    let r = at.settings.review.as_ref();
    let first = if last.is_none() && r.is_some_and(|r| !r.paused()) {
        first_save(at)?
    } else {
        None
    };
    let due = routine::due(r, last.as_ref().map(|l| l.at), first, now).map_err(|message| {
        Error::InvalidConfig {
            path: at.owner.dir().join(CONFIG_FILE),
            message,
        }
    })?;
    let next_due = match &due {
        Due::Due { since } => Some(*since),
        Due::NotDue { next } => Some(*next),
        Due::NoRoutine | Due::Paused => None,
    };
    Ok(RoutineStatus {
        at: r.map(|r| r.at().to_owned()),
        paused: r.is_some_and(|r| r.paused()),
        due,
        next_due,
        last,
    })
}

/// The routine's state (`memdir review status`).
pub(crate) fn status(owner: &Owner, now: DateTime<Utc>) -> Result<RoutineStatus> {
    let view = owner.view()?;
    status_at(view.at(), now)
}

/// `memdir review --due`: a review when one is due, else nothing written
/// and no lock taken.
pub(crate) fn run_due(
    owner: &Owner,
    opts: &ReviewOptions,
    now: DateTime<Utc>,
) -> Result<DueOutcome> {
    let status = status(owner, now)?;
    if !matches!(status.due, Due::Due { .. }) {
        return Ok(DueOutcome { ran: None, status });
    }
    let opts = ReviewOptions {
        due: true,
        dry_run: false,
        ..opts.clone()
    };
    let ran = super::review(owner, &opts, now)?;
    Ok(DueOutcome { ran, status })
}

/// Pauses or resumes the routine: `paused:` edited in place in the owner's
/// memdir.yaml (the routine added when it has none).
pub(crate) fn set_paused(owner: &Owner, paused: bool, now: DateTime<Utc>) -> Result<RoutineStatus> {
    let locked = owner.lock()?;
    let (held, _) = config::read(locked.at())?;
    let change = config::edit(locked.dir(), held, move |src| {
        let next = routine::set_paused(src, paused);
        (next != src).then_some(next)
    });
    let name = change.name;
    owner.disk().replace_in_order(vec![change])?;
    let what = if paused { "pause" } else { "resume" };
    // A commit that fails leaves the setting written; status says it.
    let _ = locked.written(&[name], &format!("{what} the daily review"));
    drop(locked);
    status(owner, now)
}
