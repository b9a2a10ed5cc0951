//! The parts of an agent's row, each what one read of the agent's files
//! gives: computed on the store handed in (a recording one, whose reads
//! the cache keys the part by), as the caller, and until when each holds.

use chrono::{DateTime, Utc};

use super::StoreUse;
use crate::error::Result;
use crate::model::{Caller, Scope};
use crate::store::{FactKind, LEARNINGS_FILE, ListFilter, Status, Store};

/// Which part of a row.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) enum Kind {
    /// The stores: live and expired facts, usage, `check`'s findings of the
    /// files.
    Stores,
    /// The archived facts.
    Archived,
    /// The last run.
    Runs,
    /// Today's day log.
    Day,
    /// The review routine.
    Routine,
}

impl Kind {
    /// Every part, in the order a row is made of them (the first that
    /// fails is the error a failed row shows).
    pub(super) const ALL: [Kind; 5] = [
        Kind::Stores,
        Kind::Archived,
        Kind::Runs,
        Kind::Day,
        Kind::Routine,
    ];

    /// Its place in [`Kind::ALL`].
    pub(super) fn index(self) -> usize {
        match self {
            Kind::Stores => 0,
            Kind::Archived => 1,
            Kind::Runs => 2,
            Kind::Day => 3,
            Kind::Routine => 4,
        }
    }
}

/// What one part says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Part {
    /// [`Kind::Stores`].
    Stores {
        /// Live facts of both stores.
        live: usize,
        /// Expired facts still in them.
        expired: usize,
        /// MEMORY.md's usage.
        memory: StoreUse,
        /// USER.md's usage.
        user: StoreUse,
        /// `check`'s findings of the files (not what git tracks).
        findings: usize,
    },
    /// [`Kind::Archived`]: how many.
    Archived(usize),
    /// [`Kind::Runs`]: when the last run began.
    Runs(Option<DateTime<Utc>>),
    /// [`Kind::Day`]: today's day log, in characters.
    Day(usize),
    /// [`Kind::Routine`].
    Routine {
        /// The agent has a routine.
        routine: bool,
        /// It is paused.
        paused: bool,
        /// When the next review is due.
        next_due: Option<DateTime<Utc>>,
    },
}

/// The part `kind` of agent `id`'s row, read as `caller` on `store` at
/// `now`, and the first time ahead at which it stops holding (a fact's
/// expiry, the next review); the day it was read on is the cache's to
/// keep.
pub(super) fn compute(
    store: &Store,
    caller: &Caller,
    id: &str,
    kind: Kind,
    now: DateTime<Utc>,
) -> Result<(Part, Option<DateTime<Utc>>)> {
    let owner = store.owner_as(caller, Some(id))?;
    let ahead = |t: Option<DateTime<Utc>>| t.filter(|t| *t > now);
    Ok(match kind {
        Kind::Stores => {
            let (mut live, mut expired) = (0, 0);
            let (mut memory, mut user) = (StoreUse::none(), StoreUse::none());
            let mut until: Option<DateTime<Utc>> = None;
            for scope in Scope::ALL {
                let v = owner.show(scope)?;
                match scope {
                    Scope::User => user = StoreUse::of(&v.usage),
                    Scope::Memory => memory = StoreUse::of(&v.usage),
                }
                for e in &v.entries {
                    if e.expired {
                        expired += 1;
                        continue;
                    }
                    live += 1;
                    let t = e
                        .expires
                        .as_deref()
                        .and_then(|t| DateTime::parse_from_rfc3339(t).ok())
                        .map(|t| t.with_timezone(&Utc));
                    if let Some(t) = ahead(t) {
                        until = Some(until.map_or(t, |u| u.min(t)));
                    }
                }
            }
            // The root's LEARNINGS.md is no agent's: the decisions page
            // shows its findings.
            let findings = owner
                .check_files()?
                .findings
                .iter()
                .filter(|f| f.file != LEARNINGS_FILE)
                .count();
            let part = Part::Stores {
                live,
                expired,
                memory,
                user,
                findings,
            };
            (part, until)
        }
        Kind::Archived => {
            let filter = ListFilter {
                kind: Some(FactKind::Fact),
                status: Some(Status::Archived),
                all: true,
                limit: Some(1),
            };
            (Part::Archived(owner.list_counted(&filter)?.1), None)
        }
        Kind::Runs => {
            let last = owner.runs().list(false)?.iter().map(|r| r.started_at).max();
            (Part::Runs(last), None)
        }
        Kind::Day => {
            let filter = ListFilter {
                kind: Some(FactKind::Day),
                status: None,
                all: false,
                limit: Some(1),
            };
            let today = now.date_naive();
            let chars = owner
                .list_counted(&filter)?
                .0
                .iter()
                .filter(|r| r.date == Some(today))
                .map(|r| r.text.chars().count())
                .sum();
            (Part::Day(chars), None)
        }
        Kind::Routine => {
            let r = owner.reviews().status()?;
            let part = Part::Routine {
                routine: r.at.is_some(),
                paused: r.paused,
                next_due: r.next_due,
            };
            (part, ahead(r.next_due))
        }
    })
}
