//! The daily review ("Memory dreaming"), planned: what one review of an
//! owner changes, as a pure function of the owner's facts, yesterday's day
//! log, the runs' results on this machine and the clock ([`plan`]); and the
//! plan spliced into a store's text ([`apply_to_store`]).
//!
//! Pure: no I/O. The store reads the files, calls these, and writes.
//!
//! What a plan does, in order: exact and near duplicates merge into the
//! most recalled (then newest) of them; expired facts are renewed when
//! recalled in the last 30 days, else archived; facts marked in yesterday's
//! day log (`fact: …`) are lifted into MEMORY.md; two live facts a merge
//! left in conflict (`conflict=` in their metadata) are settled by their
//! runs' results when exactly one is supported; facts not recalled in 30
//! days are listed, and with `curation: auto` the oldest of them are
//! archived while a store is over its budget; a fact both live and archived
//! (after a git merge) is settled ([`settle_twin`]). A review never
//! deletes: what leaves a store is archived with a reason.

use std::collections::{BTreeMap, BTreeSet};

use chrono::{DateTime, Duration, NaiveDate, Utc};
use serde::Serialize;

use crate::edit::{check_text, used_chars};
use crate::markdown::{Document, parse, splice};
use crate::model::{ArchiveKind, Meta, Scope, entry_id, fold_whitespace};
use crate::recall::{jaccard, term_set};

pub mod reviewer;
pub mod routine;
#[cfg(test)]
mod tests;

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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
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
    /// `curation: auto`: archive unrecalled facts, oldest first, while a
    /// store is over its budget.
    pub curation: bool,
    /// Each store's budget, in characters.
    pub budget: &'a dyn Fn(Scope) -> usize,
    /// The time of the review.
    pub now: DateTime<Utc>,
}

/// One change of a plan.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "change", rename_all = "snake_case")]
pub enum Change {
    /// Move a fact to archive.md.
    Archive {
        /// Its id.
        id: String,
        /// Its store.
        scope: Scope,
        /// Its text.
        text: String,
        /// `merged`, `expired` or `conflict`.
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
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Unsettled {
    /// The two facts.
    pub ids: [String; 2],
    /// Why it is left.
    pub why: String,
}

/// Something the plan left out, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
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

/// The numbers a text holds (runs of digits, with `.` `,` inside), sorted.
fn numbers(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    for c in text.chars().chain(std::iter::once(' ')) {
        if c.is_ascii_digit() || (!cur.is_empty() && (c == '.' || c == ',')) {
            cur.push(c);
        } else if !cur.is_empty() {
            out.push(cur.trim_end_matches(['.', ',']).to_owned());
            cur.clear();
        }
    }
    out.sort();
    out
}

/// How many negations a text holds (`not`, `no`, `never`, `n't`, `without`,
/// `nobody`, `nothing`, `none`, `neither`, `nor`).
fn negations(text: &str) -> usize {
    let lower = text.to_lowercase();
    lower
        .split(|c: char| !c.is_alphanumeric() && c != '\'' && c != '’')
        .filter(|w| {
            matches!(
                *w,
                "not"
                    | "no"
                    | "never"
                    | "without"
                    | "nobody"
                    | "nothing"
                    | "none"
                    | "neither"
                    | "nor"
                    | "cannot"
            ) || w.ends_with("n't")
                || w.ends_with("n’t")
        })
        .count()
}

/// A text as duplicates compare it: folded whitespace, lowercased.
fn folded(text: &str) -> String {
    fold_whitespace(text).to_lowercase()
}

/// Whether two texts are near-duplicates: the same numbers, as many
/// negations, and a similarity of at least [`NEAR_DUPLICATE`].
pub fn near_duplicate(a: &str, b: &str) -> bool {
    near_duplicate_at(a, b, NEAR_DUPLICATE)
}

/// [`near_duplicate`] at threshold `t` (for the calibration).
pub fn near_duplicate_at(a: &str, b: &str, t: f64) -> bool {
    numbers(a) == numbers(b)
        && negations(a) == negations(b)
        && jaccard(&term_set(a), &term_set(b)) >= t
}

/// The similarity [`near_duplicate`] weighs (0 when the numbers or the
/// negations differ).
pub fn duplicate_similarity(a: &str, b: &str) -> f64 {
    if numbers(a) != numbers(b) || negations(a) != negations(b) {
        return 0.0;
    }
    jaccard(&term_set(a), &term_set(b))
}

/// The review's plan (see the module docs).
pub fn plan(input: &Input<'_>) -> Plan {
    let now = input.now;
    let mut out = Plan::default();
    let mut gone: BTreeSet<String> = BTreeSet::new();
    // Each id once: copies of one entry (a hand edit or a merge makes them)
    // are kept as one, with their metadata merged.
    let mut copies: BTreeMap<&str, Vec<&Fact>> = BTreeMap::new();
    let mut firsts: Vec<&Fact> = Vec::new();
    for f in input.facts {
        let group = copies.entry(f.id.as_str()).or_default();
        if group.is_empty() {
            firsts.push(f);
        }
        group.push(f);
    }
    let owned: Vec<Fact> = firsts
        .iter()
        .map(|f| {
            let group = &copies[f.id.as_str()];
            if group.len() < 2 {
                return (*f).clone();
            }
            let metas: Vec<&Meta> = group.iter().map(|c| &c.meta).collect();
            let kept = merge_copies(&metas);
            out.changes.push(Change::Dedupe {
                id: f.id.clone(),
                scope: f.scope,
                text: f.text.clone(),
                copies: group.len(),
                reason: format!(
                    "{} copies of the same entry; one kept (the earliest created, a person's edit kept)",
                    group.len()
                ),
                kept: Box::new(kept.clone()),
            });
            Fact {
                meta: kept,
                ..(*f).clone()
            }
        })
        .collect();
    let facts: Vec<&Fact> = owned.iter().collect();
    // 0. Facts both live and archived (after a merge): one side is kept.
    for f in &facts {
        let Some(r) = input.archived.iter().find(|r| r.id == f.id) else {
            continue;
        };
        let (kept, reason) = settle_twin(f, &r.meta);
        if kept == Kept::Archived {
            gone.insert(f.id.clone());
        }
        out.changes.push(Change::Settle {
            id: f.id.clone(),
            scope: f.scope,
            kept,
            reason,
        });
    }
    let facts: Vec<&Fact> = facts
        .into_iter()
        .filter(|f| !gone.contains(&f.id))
        .collect();
    let live: Vec<&Fact> = facts.iter().copied().filter(|f| !f.expired(now)).collect();

    // 1. Duplicates: survivors first (most recalled, then newest, then id).
    let mut order = live.clone();
    order.sort_by(|a, b| {
        b.recall_count
            .cmp(&a.recall_count)
            .then(b.created().cmp(&a.created()))
            .then(a.id.cmp(&b.id))
    });
    // What duplicates compare, computed once per fact (not once per pair).
    struct Key {
        folded: String,
        numbers: Vec<String>,
        negations: usize,
        terms: Vec<String>,
    }
    let keys: Vec<Key> = order
        .iter()
        .map(|f| Key {
            folded: folded(&f.text),
            numbers: numbers(&f.text),
            negations: negations(&f.text),
            terms: term_set(&f.text),
        })
        .collect();
    // Blocking: only facts with the same folded text (exact) or of the same
    // store with the same numbers and negations (near) can be duplicates,
    // so each fact is compared with those only, not with every other.
    let mut by_text: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    let mut by_shape: BTreeMap<(Scope, &[String], usize), Vec<usize>> = BTreeMap::new();
    for (j, (f, k)) in order.iter().zip(&keys).enumerate() {
        by_text.entry(k.folded.as_str()).or_default().push(j);
        by_shape
            .entry((f.scope, k.numbers.as_slice(), k.negations))
            .or_default()
            .push(j);
    }
    for (i, keep) in order.iter().enumerate() {
        if gone.contains(&keep.id) {
            continue;
        }
        let k = &keys[i];
        let mut near: Vec<usize> = by_text[k.folded.as_str()]
            .iter()
            .chain(&by_shape[&(keep.scope, k.numbers.as_slice(), k.negations)])
            .copied()
            .filter(|&j| j > i)
            .collect();
        near.sort_unstable();
        near.dedup();
        for j in near {
            let other = order[j];
            if gone.contains(&other.id) || other.meta.conflict.is_some() {
                continue;
            }
            let o = &keys[j];
            let exact = k.folded == o.folded;
            let near = !exact
                && keep.scope == other.scope
                && k.numbers == o.numbers
                && k.negations == o.negations
                && jaccard(&k.terms, &o.terms) >= NEAR_DUPLICATE;
            if exact || near {
                gone.insert(other.id.clone());
                out.recalls_moved.push((keep.id.clone(), other.id.clone()));
                out.changes.push(Change::Archive {
                    id: other.id.clone(),
                    scope: other.scope,
                    text: other.text.clone(),
                    kind: ArchiveKind::Merged,
                    reason: format!(
                        "{} duplicate of {}",
                        if exact { "an exact" } else { "a near" },
                        keep.id
                    ),
                    into: Some(keep.id.clone()),
                });
            }
        }
    }

    // 2. Conflicts a merge left: settled by the runs' results.
    let mut groups: BTreeMap<&str, Vec<&Fact>> = BTreeMap::new();
    for f in &live {
        if let Some(c) = &f.meta.conflict {
            groups.entry(c.as_str()).or_default().push(f);
        }
    }
    // Each run's results as a term set, once per run (not once per fact).
    let mut found: BTreeMap<&str, BTreeSet<String>> = BTreeMap::new();
    for f in groups.values().flatten() {
        if let Some(run) = f.meta.run.as_deref()
            && !found.contains_key(run)
            && let Some(results) = input.evidence.get(run)
        {
            found.insert(run, results.iter().flat_map(|r| term_set(r)).collect());
        }
    }
    for group in groups.values() {
        let [a, b] = group.as_slice() else {
            if group.len() > 2 {
                out.unsettled.push(Unsettled {
                    ids: [group[0].id.clone(), group[1].id.clone()],
                    why: format!("{} versions in conflict; settle by hand", group.len()),
                });
            }
            continue;
        };
        match settle(a, b, &found) {
            Ok((keep, lose, evidence)) => {
                gone.insert(lose.id.clone());
                out.changes.push(Change::Archive {
                    id: lose.id.clone(),
                    scope: lose.scope,
                    text: lose.text.clone(),
                    kind: ArchiveKind::Conflict,
                    reason: format!("in conflict with {}; {evidence}", keep.id),
                    into: Some(keep.id.clone()),
                });
            }
            Err(why) => out.unsettled.push(Unsettled {
                ids: [a.id.clone(), b.id.clone()],
                why,
            }),
        }
    }

    // 3. Expired facts: renewed when recalled lately, else archived.
    let mut renewed = BTreeSet::new();
    for f in facts.iter().filter(|f| f.expired(now)) {
        let when = f.meta.expires.map(|e| e.date_naive().to_string());
        if f.recalled_within(now) {
            renewed.insert(f.id.clone());
            let days = (input.renew_days)(f.scope)
                .filter(|d| *d > 0)
                .unwrap_or(DEFAULT_RENEW_DAYS);
            out.changes.push(Change::Renew {
                id: f.id.clone(),
                scope: f.scope,
                expires: now + Duration::days(i64::from(days)),
                previous: f.meta.expires,
                reason: format!(
                    "expired {}, recalled in the last {RECALL_WINDOW_DAYS} days",
                    when.unwrap_or_default()
                ),
            });
        } else {
            gone.insert(f.id.clone());
            out.changes.push(Change::Archive {
                id: f.id.clone(),
                scope: f.scope,
                text: f.text.clone(),
                kind: ArchiveKind::Expired,
                reason: format!(
                    "expired {}, not recalled in the last {RECALL_WINDOW_DAYS} days",
                    when.unwrap_or_default()
                ),
                into: None,
            });
        }
    }

    // 4. Facts marked in yesterday's day log.
    let mut present: BTreeSet<String> = live
        .iter()
        .filter(|f| !gone.contains(&f.id))
        .map(|f| folded(&f.text))
        .collect();
    for line in input.yesterday {
        let t = line.text.trim_start();
        let Some(rest) = t
            .get(..FACT_PREFIX.len())
            .filter(|p| p.eq_ignore_ascii_case(FACT_PREFIX))
            .map(|_| &t[FACT_PREFIX.len()..])
        else {
            continue;
        };
        let text = match check_text(rest) {
            Ok(t) => t,
            Err(e) => {
                out.skipped.push(Skipped {
                    what: rest.trim().to_owned(),
                    why: e.code().as_str().to_owned(),
                });
                continue;
            }
        };
        if !present.insert(folded(&text)) {
            out.skipped.push(Skipped {
                what: text,
                why: "already stored".into(),
            });
            continue;
        }
        out.changes.push(Change::Lift {
            id: entry_id(Scope::Memory.name(), &text),
            text,
            date: line.date,
            run: line.run.clone(),
            task: line.task.clone(),
        });
    }

    // 5. Not recalled in 30 days (and not new): candidates to re-read.
    out.unrecalled = live
        .iter()
        .filter(|f| !gone.contains(&f.id))
        .filter(|f| !f.recalled_within(now))
        .filter(|f| {
            f.created()
                .is_some_and(|c| now - c > Duration::days(RECALL_WINDOW_DAYS))
        })
        .map(|f| f.id.clone())
        .collect();

    // 6. `curation: auto`: while a store would be over its budget after the
    // plan (lifted facts included), its unrecalled facts are archived,
    // oldest first, before anything is lifted.
    if input.curation {
        let mut curated = Vec::new();
        for scope in Scope::ALL {
            let limit = (input.budget)(scope);
            let mut held: Vec<(&str, &str)> = facts
                .iter()
                .filter(|f| f.scope == scope && !gone.contains(&f.id))
                .filter(|f| !f.expired(now) || renewed.contains(&f.id))
                .map(|f| (f.id.as_str(), f.text.as_str()))
                .collect();
            for c in &out.changes {
                if let Change::Lift { id, text, .. } = c
                    && scope == Scope::Memory
                {
                    held.push((id, text));
                }
            }
            let used = |held: &[(&str, &str)]| used_chars(held.iter().map(|(_, t)| *t));
            let mut now_used = used(&held);
            if now_used <= limit {
                continue;
            }
            let mut cands: Vec<&Fact> = live
                .iter()
                .copied()
                .filter(|f| f.scope == scope && out.unrecalled.contains(&f.id))
                .collect();
            cands.sort_by(|a, b| a.created().cmp(&b.created()).then(a.id.cmp(&b.id)));
            for f in cands {
                if now_used <= limit {
                    break;
                }
                let before = now_used;
                held.retain(|(id, _)| *id != f.id);
                now_used = used(&held);
                gone.insert(f.id.clone());
                curated.push(Change::Archive {
                    id: f.id.clone(),
                    scope,
                    text: f.text.clone(),
                    kind: ArchiveKind::Unrecalled,
                    reason: format!(
                        "curated: {} over its budget ({before}/{limit} chars), not recalled in the last {RECALL_WINDOW_DAYS} days",
                        scope.file_name()
                    ),
                    into: None,
                });
            }
        }
        out.unrecalled.retain(|id| !gone.contains(id));
        let at = out
            .changes
            .iter()
            .position(|c| matches!(c, Change::Lift { .. }))
            .unwrap_or(out.changes.len());
        out.changes.splice(at..at, curated);
    }
    out
}

/// The metadata one copy keeps of several copies of an entry (`metas`, in
/// file order): the first copy's, with the earliest `created`, the latest
/// `updated` and `expires` (of those that have one), and a person's edit
/// mark (`person`, of the latest-updated copy a person edited) kept. Recall
/// counts are kept per id on each machine, so the copies share theirs.
pub fn merge_copies(metas: &[&Meta]) -> Meta {
    let mut out = metas.first().map(|m| (*m).clone()).unwrap_or_default();
    out.created = metas.iter().filter_map(|m| m.created).min();
    out.updated = metas.iter().filter_map(|m| m.updated).max();
    out.expires = metas.iter().filter_map(|m| m.expires).max();
    if let Some(p) = metas
        .iter()
        .filter(|m| m.person.is_some())
        .max_by_key(|m| m.updated)
    {
        out.person = p.person.clone();
    }
    for m in metas {
        out.agent = out.agent.take().or_else(|| m.agent.clone());
        out.run = out.run.take().or_else(|| m.run.clone());
        out.task = out.task.take().or_else(|| m.task.clone());
    }
    out
}

/// Which side of a fact both live and archived (the same id in a store and
/// in an archive, as a git merge of an archive on one branch and a change
/// on the other leaves it) a review keeps, and why. The archive is a
/// decision that was taken: it stands, unless the live fact changed after
/// it (`updated` or `created` later than `archived`). A person's veto and a
/// supersede stand whatever the live side did: only a person brings back a
/// vetoed fact, and a superseded one never comes back.
pub fn settle_twin(live: &Fact, record: &Meta) -> (Kept, String) {
    let when = record
        .archived
        .map(|t| t.date_naive().to_string())
        .unwrap_or_else(|| "at an unrecorded time".into());
    match record.kind {
        Some(ArchiveKind::Vetoed) => {
            return (
                Kept::Archived,
                format!("live and archived: vetoed {when}; a person's veto stands"),
            );
        }
        Some(ArchiveKind::Superseded) => {
            return (
                Kept::Archived,
                format!(
                    "live and archived: superseded by {} {when}; a superseded fact never comes back",
                    record.superseded_by.as_deref().unwrap_or("another fact")
                ),
            );
        }
        _ => {}
    }
    let changed = live.meta.updated.max(live.meta.created);
    match record.archived {
        Some(a) if changed.is_some_and(|c| c > a) => (
            Kept::Live,
            format!(
                "live and archived: changed after it was archived {when}; the live fact stands"
            ),
        ),
        _ => (
            Kept::Archived,
            format!("live and archived: archived {when} and not changed since; the archive stands"),
        ),
    }
}

/// Which of two facts in conflict the runs' results support: `(kept,
/// archived, the evidence as a sentence)`, or why neither is settled. A
/// fact is supported when its run's results hold every term it has and the
/// other has not (and it has such a term).
fn settle<'f>(
    a: &'f Fact,
    b: &'f Fact,
    evidence: &BTreeMap<&str, BTreeSet<String>>,
) -> Result<(&'f Fact, &'f Fact, String), String> {
    let (ta, tb) = (term_set(&a.text), term_set(&b.text));
    let supported = |f: &Fact, own: &[String], other: &[String]| -> Option<bool> {
        let run = f.meta.run.as_deref()?;
        let found = evidence.get(run)?;
        let distinct: Vec<&String> = own.iter().filter(|t| !other.contains(t)).collect();
        Some(!distinct.is_empty() && distinct.iter().all(|t| found.contains(*t)))
    };
    match (supported(a, &ta, &tb), supported(b, &tb, &ta)) {
        (Some(true), Some(false) | None) => Ok((a, b, evidence_note(a))),
        (Some(false) | None, Some(true)) => Ok((b, a, evidence_note(b))),
        (Some(true), Some(true)) => Err("both are supported by their runs' results".into()),
        (None, None) => Err("the runs' results are not on this machine".into()),
        _ => Err("neither is supported by its run's results".into()),
    }
}

fn evidence_note(f: &Fact) -> String {
    format!(
        "the results of run {} support {}",
        f.meta.run.as_deref().unwrap_or(""),
        f.id
    )
}

/// What applying a plan to one store gave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoreEdit {
    /// The new text (`None`: unchanged).
    pub src: Option<String>,
    /// Lifts left out: past the budget, or unplaceable.
    pub skipped: Vec<Skipped>,
}

/// Applies `plan`'s changes of store `scope` to its text `src`: archived
/// facts removed (the fact a settled conflict keeps loses its `conflict=`,
/// kept as `resolved=` with `review=ID`), a live copy whose archive record
/// stands removed, renewed ones given their new `expires`, `renewed_from`
/// (the old expiry) and `review=ID`, lifted and saved ones appended with
/// `created`, `expires` (`save_days`, the store's expiry), `agent`,
/// `review=ID` and, for a lift, the line's `run` and `task` and
/// `lifted=DATE` (a save that replaces a fact: `supersedes`). A lift or save
/// that would take the store past `limit` characters (and past what it uses
/// now) is left out, as a save would be refused. Byte ranges are spliced;
/// nothing else changes. The removals and metadata changes are spliced
/// together and checked by one parse, then the additions (one by one, each
/// checked, only where that fails).
#[allow(clippy::too_many_arguments)]
pub fn apply_to_store(
    src: &str,
    scope: Scope,
    plan: &Plan,
    review: &str,
    agent: Option<&str>,
    now: DateTime<Utc>,
    save_days: Option<u32>,
    limit: usize,
) -> Result<StoreEdit, String> {
    let doc = parse(scope, src);
    apply_to_doc(src, &doc, scope, plan, review, agent, now, save_days, limit)
}

/// [`apply_to_store`] on a store already parsed (`doc`, with ids, the parse
/// of `src`).
#[allow(clippy::too_many_arguments)]
pub fn apply_to_doc(
    src: &str,
    doc: &Document,
    scope: Scope,
    plan: &Plan,
    review: &str,
    agent: Option<&str>,
    now: DateTime<Utc>,
    save_days: Option<u32>,
    limit: usize,
) -> Result<StoreEdit, String> {
    let unplaceable = |e: splice::Unplaceable| e.0;
    // 1. What leaves the store and which metadata changes.
    let mut remove: Vec<usize> = Vec::new();
    let mut metas: BTreeMap<usize, Meta> = BTreeMap::new();
    // Copies the plan keeps as one: the first stands for them all.
    let deduped: BTreeSet<&str> = plan
        .changes
        .iter()
        .filter_map(|c| match c {
            Change::Dedupe { id, scope: s, .. } if *s == scope => Some(id.as_str()),
            _ => None,
        })
        .collect();
    let position = |id: &str| -> Result<Option<usize>, String> {
        let mut at = doc.entries.iter().enumerate().filter(|(_, e)| e.id == id);
        let first = at.next().map(|(i, _)| i);
        if at.next().is_some() && !deduped.contains(id) {
            return Err(format!("{id} is in the store more than once"));
        }
        Ok(first)
    };
    for c in &plan.changes {
        match c {
            Change::Dedupe {
                id, scope: s, kept, ..
            } if *s == scope => {
                let mut at = doc.entries.iter().enumerate().filter(|(_, e)| &e.id == id);
                if let Some((first, _)) = at.next() {
                    let mut m = (**kept).clone();
                    m.review = Some(review.to_owned());
                    metas.insert(first, m);
                }
                remove.extend(at.map(|(i, _)| i));
            }
            Change::Archive {
                id,
                scope: s,
                kind,
                into,
                ..
            } if *s == scope => {
                if let Some(i) = position(id)? {
                    remove.push(i);
                }
                // The kept side of a settled conflict is no longer in one.
                if *kind == ArchiveKind::Conflict
                    && let Some(keep) = into
                    && let Some(i) = position(keep)?
                {
                    let m = metas
                        .entry(i)
                        .or_insert_with(|| doc.entries[i].metadata(src));
                    if let Some(c) = m.conflict.take() {
                        m.resolved = Some(c);
                        m.review = Some(review.to_owned());
                    }
                }
            }
            Change::Settle {
                id,
                scope: s,
                kept: Kept::Archived,
                ..
            } if *s == scope => {
                if let Some(i) = position(id)? {
                    remove.push(i);
                }
            }
            Change::Renew {
                id,
                scope: s,
                expires,
                ..
            } if *s == scope => {
                if let Some(i) = position(id)? {
                    let m = metas
                        .entry(i)
                        .or_insert_with(|| doc.entries[i].metadata(src));
                    m.renewed_from = m.expires.or(m.renewed_from);
                    m.expires = Some(*expires);
                    m.updated = Some(now);
                    m.review = Some(review.to_owned());
                }
            }
            _ => {}
        }
    }
    remove.sort_unstable();
    remove.dedup();
    metas.retain(|i, m| !remove.contains(i) && doc.entries[*i].metadata(src) != *m);
    let metas: Vec<(usize, String)> = metas.into_iter().map(|(i, m)| (i, m.render())).collect();
    let (mut cur, mut doc) = if remove.is_empty() && metas.is_empty() {
        (src.to_owned(), doc.clone())
    } else if let Some(done) = splice::edit_many(src, doc, &remove, &metas) {
        done
    } else {
        // One by one, each with its fallbacks: metadata first (indexes
        // stand), then removals from the last.
        let (mut cur, mut d) = (src.to_owned(), doc.clone());
        for (i, m) in &metas {
            (cur, d) = splice::set_meta(&cur, &d, *i, m).map_err(unplaceable)?;
        }
        for i in remove.iter().rev() {
            (cur, d) = splice::remove(&cur, &d, *i).map_err(unplaceable)?;
        }
        (cur, d)
    };

    // 2. What is added, within the budget.
    let mut skipped = Vec::new();
    // What every fact the review saves carries.
    let saved = || Meta {
        created: Some(now),
        expires: save_days
            .filter(|d| *d > 0)
            .map(|d| now + Duration::days(i64::from(d))),
        agent: agent.map(str::to_owned),
        review: Some(review.to_owned()),
        ..Meta::default()
    };
    let mut adds: Vec<(&String, &String, Meta)> = Vec::new();
    for c in &plan.changes {
        match c {
            Change::Lift {
                id,
                text,
                date,
                run,
                task,
            } if scope == Scope::Memory => adds.push((
                text,
                id,
                Meta {
                    run: run.clone(),
                    task: task.clone(),
                    lifted: Some(*date),
                    ..saved()
                },
            )),
            Change::Save {
                id,
                scope: s,
                text,
                supersedes,
                ..
            } if *s == scope => adds.push((
                text,
                id,
                Meta {
                    supersedes: supersedes.clone(),
                    ..saved()
                },
            )),
            _ => {}
        }
    }
    // Which fit: counted as the budget counts, without placing them.
    // (The budget rule adds up: an entry more adds its own count and the
    // line feed before it.)
    let mut used = used_chars(doc.entries.iter().map(|e| e.text.as_str()));
    let mut count = doc.entries.len();
    let mut ids: BTreeSet<&str> = doc.entries.iter().map(|e| e.id.as_str()).collect();
    let mut fitting = Vec::new();
    for (text, id, meta) in &adds {
        if !ids.insert(id.as_str()) {
            continue;
        }
        let before = used;
        let after = used + usize::from(count > 0) + used_chars([text.as_str()]);
        if after > limit && after > before {
            skipped.push(Skipped {
                what: (*text).clone(),
                why: "memory_over_budget".into(),
            });
            continue;
        }
        used = after;
        count += 1;
        fitting.push((text.as_str(), id.as_str(), meta.render()));
    }
    let items: Vec<(&str, &str, Option<&str>)> = fitting
        .iter()
        .map(|(t, i, m)| (*t, *i, Some(m.as_str())))
        .collect();
    match splice::append_many(&cur, &doc, &items) {
        Some((next, _)) if !items.is_empty() => cur = next,
        _ => {
            for (text, id, meta) in &items {
                match splice::append(&cur, &doc, (text, id), *meta) {
                    Ok((next, next_doc)) => {
                        cur = next;
                        doc = next_doc;
                    }
                    Err(_) => skipped.push(Skipped {
                        what: (*text).to_owned(),
                        why: "memory_unplaceable".into(),
                    }),
                }
            }
        }
    }
    Ok(StoreEdit {
        src: (cur != src).then_some(cur),
        skipped,
    })
}
