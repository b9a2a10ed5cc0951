//! The reviewer's two documents (version 1, docs/REVIEW.md): what memdir
//! sends on the reviewer's standard input ([`Document`]), what it reads back
//! ([`Output`]), and the proposals checked and merged into a plan
//! ([`merge`]): ids must name the owner's facts, texts pass the checks of a
//! save; what fails is reported, not applied.
//!
//! Pure: the store runs the program and passes its output. Here the
//! documents; in `merge`, the proposals checked and merged into a plan.

use std::collections::BTreeMap;

use chrono::{DateTime, NaiveDate, Utc};
use serde::{Deserialize, Serialize};

use super::duplicates::{negations, numbers};
use super::{Change, DayLine, Fact, Plan};
use crate::model::Scope;
use crate::recall::{jaccard, term_set};
use crate::scan;

mod merge;

pub use merge::merge;

/// The version of both documents.
pub const VERSION: u32 = 1;
/// At most this many candidate pairs go to the reviewer.
pub const MAX_PAIRS: usize = 200;
/// The least similarity of two facts of one store that are not duplicates
/// (a number, a negation or more words differ) for them to be sent as a
/// candidate pair.
pub const PAIR_SIMILARITY: f64 = 0.5;
/// The longest reason a proposal may give, in characters (as `archive`).
pub const MAX_REASON_CHARS: usize = 500;
/// The most days a renewal may give.
pub const MAX_RENEW_DAYS: u32 = 3_650;

/// One fact as the reviewer sees it.
#[derive(Debug, Clone, Serialize)]
pub struct DocFact {
    /// Its id.
    pub id: String,
    /// `memory` or `user`.
    pub store: Scope,
    /// Its text.
    pub text: String,
    /// When it was saved (or first seen).
    pub created: Option<DateTime<Utc>>,
    /// When it was last changed.
    pub updated: Option<DateTime<Utc>>,
    /// When it expires.
    pub expires: Option<DateTime<Utc>>,
    /// Whether it is past its expiry.
    pub expired: bool,
    /// Recalls on this machine.
    pub recall_count: u64,
    /// The last recall on this machine.
    pub last_recalled: Option<DateTime<Utc>>,
    /// Who saved it and where from.
    pub provenance: Provenance,
}

/// Where a fact came from.
#[derive(Debug, Clone, Serialize)]
pub struct Provenance {
    /// The agent that saved it.
    pub agent: Option<String>,
    /// The person that saved or edited it.
    pub person: Option<String>,
    /// The run that saved it.
    pub run: Option<String>,
    /// The task.
    pub task: Option<String>,
    /// The day a review lifted it from.
    pub lifted: Option<NaiveDate>,
    /// The id both versions of a merge conflict carry.
    pub conflict: Option<String>,
}

/// A day line as the reviewer sees it.
#[derive(Debug, Clone, Serialize)]
pub struct DocLine {
    /// Its text.
    pub text: String,
    /// The run that wrote it.
    pub run: Option<String>,
    /// The task.
    pub task: Option<String>,
}

/// Yesterday's day log.
#[derive(Debug, Clone, Serialize)]
pub struct DocDay {
    /// Its date.
    pub date: NaiveDate,
    /// Its lines, in order.
    pub lines: Vec<DocLine>,
}

/// Two facts that may be in conflict, with their runs' results.
#[derive(Debug, Clone, Serialize)]
pub struct DocPair {
    /// The two ids.
    pub ids: [String; 2],
    /// `conflict` (a merge left them) or `similar` (alike, not duplicates).
    pub why: &'static str,
    /// The similarity of their recall terms.
    pub similarity: f64,
    /// Each run's results on this machine, by run id (missing: none here).
    pub results: BTreeMap<String, Vec<String>>,
}

/// What memdir sends the reviewer (version 1).
#[derive(Debug, Clone, Serialize)]
pub struct Document {
    /// [`VERSION`].
    pub version: u32,
    /// The owner reviewed.
    pub owner: String,
    /// The time of the review.
    pub now: DateTime<Utc>,
    /// The owner's facts, both stores, expired ones included.
    pub facts: Vec<DocFact>,
    /// Yesterday's day log.
    pub yesterday: DocDay,
    /// Live facts not recalled in 30 days.
    pub unrecalled: Vec<String>,
    /// Candidate pairs.
    pub pairs: Vec<DocPair>,
    /// What the review does already (its deterministic plan).
    pub planned: Vec<Change>,
}

/// One proposal of the reviewer.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(tag = "action", rename_all = "snake_case", deny_unknown_fields)]
pub enum Proposal {
    /// Save a new fact.
    Save {
        /// Its text.
        text: String,
        /// `memory` (default) or `user`.
        #[serde(default)]
        store: Option<Scope>,
        /// Why.
        #[serde(default)]
        reason: Option<String>,
    },
    /// Archive a fact.
    Archive {
        /// The fact.
        id: String,
        /// Why (required).
        reason: String,
    },
    /// Replace a fact with a new text (the old one archived as superseded).
    Supersede {
        /// The fact replaced.
        id: String,
        /// The new text.
        text: String,
        /// Why.
        #[serde(default)]
        reason: Option<String>,
    },
    /// Give a fact a new expiry.
    Renew {
        /// The fact.
        id: String,
        /// Days from now (default: the store's expiry).
        #[serde(default)]
        days: Option<u32>,
        /// Why.
        #[serde(default)]
        reason: Option<String>,
    },
}

/// What the reviewer prints (version 1).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Output {
    /// [`VERSION`].
    pub version: u32,
    /// Its proposals, applied in order.
    #[serde(default)]
    pub proposals: Vec<serde_json::Value>,
}

/// A proposal not applied, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Rejected {
    /// Its index in the reviewer's list.
    pub index: usize,
    /// The proposal as given (JSON).
    pub proposal: String,
    /// Why it was not applied.
    pub why: String,
}

/// The candidate pairs: conflict pairs a merge left, then live facts of one
/// store alike (similarity ≥ [`PAIR_SIMILARITY`]) but not duplicates;
/// at most [`MAX_PAIRS`].
pub fn candidate_pairs(
    facts: &[Fact],
    now: DateTime<Utc>,
) -> Vec<([String; 2], &'static str, f64)> {
    let live: Vec<&Fact> = facts.iter().filter(|f| !f.expired(now)).collect();
    let terms: Vec<Vec<String>> = live.iter().map(|f| term_set(&f.text)).collect();
    let mut out = Vec::new();
    let mut groups: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (i, f) in live.iter().enumerate() {
        if let Some(c) = &f.meta.conflict {
            groups.entry(c).or_default().push(i);
        }
    }
    for g in groups.values() {
        if let [a, b] = g.as_slice() {
            let sim = jaccard(&terms[*a], &terms[*b]);
            out.push(([live[*a].id.clone(), live[*b].id.clone()], "conflict", sim));
        }
    }
    for i in 0..live.len() {
        for j in i + 1..live.len() {
            if out.len() >= MAX_PAIRS {
                return out;
            }
            let (a, b) = (live[i], live[j]);
            if a.scope != b.scope || a.id == b.id {
                continue;
            }
            let sim = jaccard(&terms[i], &terms[j]);
            let duplicate = sim >= super::NEAR_DUPLICATE
                && numbers(&a.text) == numbers(&b.text)
                && negations(&a.text) == negations(&b.text);
            if sim >= PAIR_SIMILARITY && !duplicate {
                out.push(([a.id.clone(), b.id.clone()], "similar", sim));
            }
        }
    }
    out
}

/// The reviewer's input. The reviewer may be a model, so every text the
/// document carries passes the scanner: a flagged fact, day line or line of
/// a run's result is its `[BLOCKED: …]` placeholder (a fact keeps its id).
pub fn document(
    owner: &str,
    facts: &[Fact],
    yesterday: (NaiveDate, &[DayLine]),
    plan: &Plan,
    pairs: Vec<([String; 2], &'static str, f64)>,
    results: &BTreeMap<String, Vec<String>>,
    now: DateTime<Utc>,
) -> Document {
    let by_id: BTreeMap<&str, &Fact> = facts.iter().map(|f| (f.id.as_str(), f)).collect();
    Document {
        version: VERSION,
        owner: owner.to_owned(),
        now,
        facts: facts
            .iter()
            .map(|f| DocFact {
                id: f.id.clone(),
                store: f.scope,
                text: scan::blocked_text(
                    &f.text,
                    &format!("{} entry {}", f.scope.file_name(), f.id),
                )
                .unwrap_or_else(|| f.text.clone()),
                created: f.created(),
                updated: f.meta.updated,
                expires: f.meta.expires,
                expired: f.expired(now),
                recall_count: f.recall_count,
                last_recalled: f.last_recalled,
                provenance: Provenance {
                    agent: value(&f.meta.agent, "agent=", &f.id),
                    person: value(&f.meta.person, "person=", &f.id),
                    run: value(&f.meta.run, "run=", &f.id),
                    task: value(&f.meta.task, "task=", &f.id),
                    lifted: f.meta.lifted,
                    conflict: value(&f.meta.conflict, "conflict=", &f.id),
                },
            })
            .collect(),
        yesterday: DocDay {
            date: yesterday.0,
            lines: yesterday
                .1
                .iter()
                .map(|l| DocLine {
                    text: scan::blocked_text(
                        &l.text,
                        &format!("episodes.md line of {}", yesterday.0),
                    )
                    .unwrap_or_else(|| l.text.clone()),
                    run: value(&l.run, "run", "a day line"),
                    task: value(&l.task, "task", "a day line"),
                })
                .collect(),
        },
        unrecalled: plan.unrecalled.clone(),
        pairs: pairs
            .into_iter()
            .map(|(ids, why, similarity)| {
                let results = ids
                    .iter()
                    .filter_map(|id| by_id.get(id.as_str())?.meta.run.clone())
                    .filter_map(|run| {
                        let texts = results.get(&run)?.iter().map(|t| {
                            let what = format!("a result of run {run}");
                            scan::blocked_lines(t, &what).unwrap_or_else(|| t.clone())
                        });
                        Some((run.clone(), texts.collect()))
                    })
                    .collect();
                DocPair {
                    ids,
                    why,
                    similarity: (similarity * 1000.0).round() / 1000.0,
                    results,
                }
            })
            .collect(),
        planned: plan.changes.iter().map(planned).collect(),
    }
}

/// A metadata value as the document carries it: its placeholder when the
/// scanner flags it (`key` of `of` naming where it is).
fn value(v: &Option<String>, key: &str, of: &str) -> Option<String> {
    v.as_ref()
        .map(|t| scan::blocked_text(t, &format!("the {key} of {of}")).unwrap_or_else(|| t.clone()))
}

/// A change of the plan as the document carries it: its texts and
/// reasons through the scanner (a fact's text was read from its file).
fn planned(c: &Change) -> Change {
    let guard =
        |t: &str, what: String| scan::blocked_text(t, &what).unwrap_or_else(|| t.to_owned());
    let mut c = c.clone();
    match &mut c {
        Change::Archive {
            id,
            scope,
            text,
            reason,
            into,
            ..
        } => {
            *text = guard(text, format!("{} entry {id}", scope.file_name()));
            *reason = guard(reason, format!("the reason for {id}"));
            *into = value(into, "survivor", id);
        }
        Change::Save {
            id,
            scope,
            text,
            reason,
            supersedes,
            ..
        } => {
            *text = guard(text, format!("{} entry {id}", scope.file_name()));
            *reason = guard(reason, format!("the reason for {id}"));
            *supersedes = value(supersedes, "supersedes", id);
        }
        Change::Dedupe {
            id, scope, text, ..
        } => *text = guard(text, format!("{} entry {id}", scope.file_name())),
        Change::Lift { id, text, .. } => *text = guard(text, format!("MEMORY.md entry {id}")),
        Change::Renew { id, reason, .. } | Change::Settle { id, reason, .. } => {
            *reason = guard(reason, format!("the reason for {id}"));
        }
    }
    c
}

/// Parses the reviewer's standard output: one JSON object of version
/// [`VERSION`]; an error message otherwise.
pub fn parse_output(bytes: &[u8]) -> Result<Output, String> {
    let out: Output = serde_json::from_slice(bytes)
        .map_err(|e| format!("the reviewer's output is not a version {VERSION} document: {e}"))?;
    if out.version != VERSION {
        return Err(format!(
            "the reviewer's output is version {}; this memdir reads version {VERSION}",
            out.version
        ));
    }
    Ok(out)
}
