//! The daily review ("Memory dreaming"), planned: what one review of an
//! owner changes, as a pure function of the owner's facts, yesterday's day
//! log, the runs' results on this machine and the clock ([`plan`]); and the
//! plan spliced into a store's text ([`apply_to_store`]).
//!
//! The feature's folder holds both sides: this module and its children but
//! one are pure, no I/O (docs/ARCHITECTURE.md, layer 8); `io` (layer 17)
//! reads the files, calls these, and writes through `disk`: the run, the
//! dry run and `review apply ID`, the reviewer command, the routine, the
//! history and undo. The pure part never names `io`.
//!
//! What a plan does, in order: exact and near duplicates merge into the
//! most recalled (then newest) of them; expired facts are renewed when
//! recalled in the last 30 days, else archived; facts marked in yesterday's
//! day log (`fact: …`) are lifted into MEMORY.md; two live facts a merge
//! left in conflict (`conflict=` in their metadata) are settled by their
//! runs' results when exactly one is supported; facts not recalled in 30
//! days are listed, and with `curation: auto` the oldest of them are
//! archived while a store is over its budget; a fact both live and archived
//! (after a git merge) is settled ([`settle_twin`]); a fact that is a vetoed
//! one in another form (`edit::fold`) is archived as merged into it, and no
//! lift or reviewer's text makes one live. A review never deletes: what
//! leaves a store is archived with a reason.

use std::collections::BTreeMap;

use chrono::{DateTime, Duration, NaiveDate, Utc};
use serde::Serialize;

use crate::edit::Vetoes;
use crate::model::{ArchiveKind, Meta, Scope};

mod apply;
mod duplicates;
pub(crate) mod io;
mod planner;
pub mod reviewer;
pub mod routine;
#[cfg(test)]
mod tests;

pub use apply::{apply_to_doc, apply_to_store};
pub use planner::{lift_ids, marks_fact, plan};
// What only the benches and the tests name (`memdir::internals`).
#[cfg(any(test, feature = "internals"))]
pub use apply::StoreEdit;
#[cfg(any(test, feature = "internals"))]
pub use duplicates::{duplicate_similarity, near_duplicate, near_duplicate_at};
#[cfg(any(test, feature = "internals"))]
pub use planner::{merge_copies, settle_twin};

/// The least similarity (Jaccard index of recall's term sets) at which two
/// facts of one store with the same numbers and the same negations are
/// near-duplicates. Chosen on the labelled pairs of
/// `fixtures/review/duplicates.json` (see docs/REVIEW.md).
pub const NEAR_DUPLICATE: f64 = 0.7;

/// How recently a fact must have been recalled to be renewed past its
/// expiry, and how long unrecalled before it is a candidate.
pub const RECALL_WINDOW_DAYS: i64 = 30;

/// The prefix of a day line that marks a fact to lift (`memdir day --fact`
/// writes it; case does not matter).
pub const FACT_PREFIX: &str = "fact:";

/// Expiry a renewal gives when the store's setting gives none, in days.
pub const DEFAULT_RENEW_DAYS: u32 = 90;

/// One live or expired fact of the owner's stores, as the planner sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct Fact {
    /// Its id.
    pub id: String,
    /// Its store.
    pub scope: Scope,
    /// Its text.
    pub text: String,
    /// Its metadata.
    pub meta: Meta,
    /// When it was first seen (for a fact without `created`).
    pub first_seen: Option<DateTime<Utc>>,
    /// Recalls on this machine.
    pub recall_count: u64,
    /// The last recall on this machine.
    pub last_recalled: Option<DateTime<Utc>>,
}

impl Fact {
    fn created(&self) -> Option<DateTime<Utc>> {
        self.meta.created.or(self.first_seen)
    }

    fn expired(&self, now: DateTime<Utc>) -> bool {
        self.meta.expires.is_some_and(|e| e <= now)
    }

    fn recalled_within(&self, now: DateTime<Utc>) -> bool {
        self.last_recalled
            .is_some_and(|t| now - t <= Duration::days(RECALL_WINDOW_DAYS))
    }
}

/// A line of yesterday's day log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DayLine {
    /// Its date.
    pub date: NaiveDate,
    /// Its text (time, task and run removed).
    pub text: String,
    /// The run that wrote it.
    pub run: Option<String>,
    /// The task key.
    pub task: Option<String>,
}

/// An archive record whose fact is also live (a merge of an archive on one
/// branch and a change on the other leaves this).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    /// The fact's id.
    pub id: String,
    /// The record's metadata (the fact's, with the archive fields).
    pub meta: Meta,
}

/// Which side of a fact both live and archived a review keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Kept {
    /// The archive record stands: the live copy leaves its store.
    Archived,
    /// The live fact stands: the archive record is marked settled.
    Live,
}

/// What a plan is made of.
#[derive(Clone, Copy)]
pub struct Input<'a> {
    /// The facts of both stores, in file order (MEMORY.md, USER.md).
    pub facts: &'a [Fact],
    /// Yesterday's day-log lines.
    pub yesterday: &'a [DayLine],
    /// The results on this machine of each run (by run id): their contents
    /// as text. A run missing here has no results on this machine.
    pub evidence: &'a BTreeMap<String, Vec<String>>,
    /// The expiry a renewal gives, per store, in days (`None` or 0: the
    /// default, [`DEFAULT_RENEW_DAYS`]).
    pub renew_days: &'a dyn Fn(Scope) -> Option<u32>,
    /// Archive records (of archive.md and `archive/*.md`); only those of a
    /// live fact's id matter.
    pub archived: &'a [Record],
    /// Every veto of the owner, by its fold: a fact, a lifted day line or a
    /// reviewer's text that is a vetoed fact in another form does not stay
    /// or come live.
    pub vetoes: &'a Vetoes,
    /// `curation: auto`: archive unrecalled facts, oldest first, while a
    /// store is over its budget.
    pub curation: bool,
    /// Each store's budget, in characters.
    pub budget: &'a dyn Fn(Scope) -> usize,
    /// The time of the review.
    pub now: DateTime<Utc>,
}

/// One change of a plan.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(tag = "change", rename_all = "snake_case")]
#[schemars(rename = "PlanChange")]
pub enum Change {
    /// Move a fact to archive.md.
    Archive {
        /// Its id.
        id: String,
        /// Its store.
        scope: Scope,
        /// Its text.
        text: String,
        /// `merged`, `expired` or `conflict` (a reviewer's: `reviewed`,
        /// `superseded`; `curation: auto`: `unrecalled`).
        kind: ArchiveKind,
        /// Why.
        reason: String,
        /// For a merge: the survivor; for a conflict: the fact kept; for a
        /// supersede: the new fact.
        #[serde(skip_serializing_if = "Option::is_none")]
        into: Option<String>,
    },
    /// Give an expired fact a new expiry.
    Renew {
        /// Its id.
        id: String,
        /// Its store.
        scope: Scope,
        /// The new expiry.
        expires: DateTime<Utc>,
        /// The expiry before (kept as `renewed_from`, so an undo puts it
        /// back).
        #[serde(skip_serializing_if = "Option::is_none")]
        previous: Option<DateTime<Utc>>,
        /// Why.
        reason: String,
    },
    /// Save a fact the reviewer proposed (alone, or replacing one).
    Save {
        /// The new fact's id.
        id: String,
        /// Its store.
        scope: Scope,
        /// Its text.
        text: String,
        /// Why (the reviewer's).
        reason: String,
        /// The fact it replaces (archived as superseded by the same plan).
        #[serde(skip_serializing_if = "Option::is_none")]
        supersedes: Option<String>,
    },
    /// Settle a fact both live and archived: keep one side.
    Settle {
        /// The fact's id (the same on both sides).
        id: String,
        /// Its store.
        scope: Scope,
        /// The side kept.
        kept: Kept,
        /// Why.
        reason: String,
    },
    /// Keep one of several copies of the same entry (same text, so the
    /// same id, in one store: a hand edit or a merge makes them): the
    /// first stays in place with the copies' metadata merged
    /// ([`merge_copies`]); each copy is archived (kind `merged`, marked
    /// settled), so that an undo puts every copy back as it was.
    Dedupe {
        /// The id the copies share.
        id: String,
        /// Their store.
        scope: Scope,
        /// Their text.
        text: String,
        /// How many copies the store holds.
        #[schemars(range(min = 2))]
        copies: usize,
        /// Why.
        reason: String,
        /// The kept copy's metadata (the copies' merged).
        #[serde(skip)]
        kept: Box<Meta>,
    },
    /// Save a fact marked in a day log.
    Lift {
        /// The new fact's id.
        id: String,
        /// Its text.
        text: String,
        /// The day it came from.
        date: NaiveDate,
        /// The run that wrote the line.
        #[serde(skip_serializing_if = "Option::is_none")]
        run: Option<String>,
        /// The task key.
        #[serde(skip_serializing_if = "Option::is_none")]
        task: Option<String>,
    },
}

impl Change {
    /// The id the change concerns.
    pub fn id(&self) -> &str {
        match self {
            Change::Archive { id, .. }
            | Change::Renew { id, .. }
            | Change::Lift { id, .. }
            | Change::Settle { id, .. }
            | Change::Dedupe { id, .. }
            | Change::Save { id, .. } => id,
        }
    }
}

/// A pair of facts in conflict left as it is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Unsettled {
    /// The two facts.
    pub ids: [String; 2],
    /// Why it is left.
    pub why: String,
}

/// Something the plan left out, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Skipped {
    /// What: a day line's text, or an id.
    pub what: String,
    /// Why (an error code or a sentence).
    pub why: String,
}

/// A review's plan.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Plan {
    /// The changes, in order: archives, renewals, lifts.
    pub changes: Vec<Change>,
    /// Live facts not recalled in 30 days (and older than that): candidates
    /// to re-read.
    pub unrecalled: Vec<String>,
    /// Conflict pairs left as they are.
    pub unsettled: Vec<Unsettled>,
    /// What was left out (a day line refused, a lift past the budget).
    pub skipped: Vec<Skipped>,
    /// Recall counts to add to survivors: (survivor, merged id).
    pub recalls_moved: Vec<(String, String)>,
}
