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
//! days are listed. A review never deletes: what leaves a store is
//! archived with a reason.

use std::collections::{BTreeMap, BTreeSet};

use chrono::{DateTime, Duration, NaiveDate, Utc};
use serde::Serialize;

use crate::edit::{check_text, used_chars};
use crate::markdown::{parse, splice};
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
    // Each id once (a fact written twice by hand is one fact here).
    let mut seen = BTreeSet::new();
    let facts: Vec<&Fact> = input
        .facts
        .iter()
        .filter(|f| seen.insert(f.id.clone()))
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
    for (i, keep) in order.iter().enumerate() {
        if gone.contains(&keep.id) {
            continue;
        }
        let k = &keys[i];
        for (j, other) in order.iter().enumerate().skip(i + 1) {
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
        match settle(a, b, input.evidence) {
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
    for f in facts.iter().filter(|f| f.expired(now)) {
        let when = f.meta.expires.map(|e| e.date_naive().to_string());
        if f.recalled_within(now) {
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
                    why: e.code().to_owned(),
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
    out
}

/// Which of two facts in conflict the runs' results support: `(kept,
/// archived, the evidence as a sentence)`, or why neither is settled. A
/// fact is supported when its run's results hold every term it has and the
/// other has not (and it has such a term).
fn settle<'f>(
    a: &'f Fact,
    b: &'f Fact,
    evidence: &BTreeMap<String, Vec<String>>,
) -> Result<(&'f Fact, &'f Fact, String), String> {
    let (ta, tb) = (term_set(&a.text), term_set(&b.text));
    let supported = |f: &Fact, own: &[String], other: &[String]| -> Option<bool> {
        let run = f.meta.run.as_ref()?;
        let results = evidence.get(run)?;
        let found: BTreeSet<String> = results.iter().flat_map(|r| term_set(r)).collect();
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
/// facts removed (the fact a settled conflict keeps loses its `conflict=`),
/// renewed ones given their new `expires`, `renewed_from` (the old expiry)
/// and `review=ID`, lifted and saved ones appended with `created`,
/// `expires` (`save_days`, the store's expiry), `agent`, `review=ID` and,
/// for a lift, the line's `run` and `task` and `lifted=DATE` (a save that
/// replaces a fact: `supersedes`). A lift or save that would take the store
/// past `limit` characters (and past what it uses now) is left out, as a
/// save would be refused. Byte ranges are spliced; nothing else changes.
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
    let mut cur = src.to_owned();
    // Each splice gives the new text's parse: the store is parsed once.
    let mut doc = parse(scope, src);
    let mut skipped = Vec::new();
    let unplaceable = |e: splice::Unplaceable| e.0;
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
    for c in &plan.changes {
        match c {
            Change::Archive {
                id,
                scope: s,
                kind,
                into,
                ..
            } if *s == scope => {
                if let Some(i) = doc.entries.iter().position(|e| &e.id == id) {
                    (cur, doc) = splice::remove(&cur, &doc, i).map_err(unplaceable)?;
                    if doc.entries.iter().any(|e| &e.id == id) {
                        return Err(format!("{id} is in the store more than once"));
                    }
                }
                // The kept side of a settled conflict is no longer in one.
                if *kind == ArchiveKind::Conflict
                    && let Some(keep) = into
                    && let Some(i) = doc.entries.iter().position(|e| &e.id == keep)
                {
                    let mut m = doc.entries[i].metadata(&cur);
                    if m.conflict.take().is_some() {
                        (cur, doc) =
                            splice::set_meta(&cur, &doc, i, &m.render()).map_err(unplaceable)?;
                    }
                }
            }
            Change::Renew {
                id,
                scope: s,
                expires,
                ..
            } if *s == scope => {
                if let Some(i) = doc.entries.iter().position(|e| &e.id == id) {
                    let mut m = doc.entries[i].metadata(&cur);
                    m.renewed_from = m.expires.or(m.renewed_from);
                    m.expires = Some(*expires);
                    m.updated = Some(now);
                    m.review = Some(review.to_owned());
                    (cur, doc) =
                        splice::set_meta(&cur, &doc, i, &m.render()).map_err(unplaceable)?;
                }
            }
            Change::Lift {
                id,
                text,
                date,
                run,
                task,
            } if scope == Scope::Memory => {
                let meta = Meta {
                    run: run.clone(),
                    task: task.clone(),
                    lifted: Some(*date),
                    ..saved()
                };
                append_checked(&mut cur, &mut doc, (text, id), &meta, limit, &mut skipped);
            }
            Change::Save {
                id,
                scope: s,
                text,
                supersedes,
                ..
            } if *s == scope => {
                let meta = Meta {
                    supersedes: supersedes.clone(),
                    ..saved()
                };
                append_checked(&mut cur, &mut doc, (text, id), &meta, limit, &mut skipped);
            }
            _ => {}
        }
    }
    Ok(StoreEdit {
        src: (cur != src).then_some(cur),
        skipped,
    })
}

/// Appends `(text, id)` with `meta` to `cur` unless the id is there; left
/// out (in `skipped`) when it cannot be placed or would take the store past
/// `limit` characters and past what it uses now.
fn append_checked(
    cur: &mut String,
    doc: &mut crate::markdown::Document,
    (text, id): (&String, &String),
    meta: &Meta,
    limit: usize,
    skipped: &mut Vec<Skipped>,
) {
    if doc.entries.iter().any(|e| &e.id == id) {
        return;
    }
    let before = used_chars(doc.entries.iter().map(|e| e.text.as_str()));
    let Ok((next, next_doc)) = splice::append(cur, doc, (text, id), Some(&meta.render())) else {
        skipped.push(Skipped {
            what: text.clone(),
            why: "memory_unplaceable".into(),
        });
        return;
    };
    let after = used_chars(next_doc.entries.iter().map(|e| e.text.as_str()));
    if after > limit && after > before {
        skipped.push(Skipped {
            what: text.clone(),
            why: "memory_over_budget".into(),
        });
        return;
    }
    *cur = next;
    *doc = next_doc;
}
