//! The reviewer's two documents (version 1, docs/REVIEW.md): what memdir
//! sends on the reviewer's standard input ([`Document`]), what it reads back
//! ([`Output`]), and the proposals checked and merged into a plan
//! ([`merge`]): ids must name the owner's facts, texts pass the checks of a
//! save; what fails is reported, not applied.
//!
//! Pure: the store runs the program and passes its output.

use std::collections::{BTreeMap, BTreeSet};

use chrono::{DateTime, Duration, NaiveDate, Utc};
use serde::{Deserialize, Serialize};

use super::duplicates::{folded, negations, numbers};
use super::{Change, DayLine, Fact, Plan};
use crate::edit::{Vetoes, check_text};
use crate::model::{ArchiveKind, Scope, entry_id, fold_whitespace};
use crate::recall::{jaccard, term_set};
use crate::scan;

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

/// Checks each proposal against the owner's facts and the plan so far and
/// adds the valid ones to `plan` (after its own changes); returns the rest
/// with why. `renew_days` gives a store's expiry. A new text that is a
/// vetoed fact in any form (`vetoes`, by `edit::fold`) is rejected: a
/// person's veto stands.
pub fn merge(
    plan: &mut Plan,
    facts: &[Fact],
    proposals: &[serde_json::Value],
    renew_days: &dyn Fn(Scope) -> Option<u32>,
    vetoes: &Vetoes,
    now: DateTime<Utc>,
) -> Vec<Rejected> {
    let mut rejected = Vec::new();
    let mut touched: BTreeSet<String> = plan.changes.iter().map(|c| c.id().to_owned()).collect();
    let mut present: BTreeSet<String> = facts
        .iter()
        .filter(|f| !f.expired(now) && !touched.contains(&f.id))
        .map(|f| folded(&f.text))
        .collect();
    let find = |id: &str| facts.iter().find(|f| f.id == id);
    for (index, raw) in proposals.iter().enumerate() {
        let mut reject = |why: String| {
            rejected.push(Rejected {
                index,
                proposal: raw.to_string(),
                why,
            })
        };
        let p: Proposal = match serde_json::from_value(raw.clone()) {
            Ok(p) => p,
            Err(e) => {
                reject(format!("not a proposal: {e}"));
                continue;
            }
        };
        let reason_ok = |r: &Option<String>| -> Result<String, String> {
            let r = fold_whitespace(r.as_deref().unwrap_or(""));
            let n = r.chars().count();
            if n > MAX_REASON_CHARS {
                return Err(format!("reason of {n} characters, over {MAX_REASON_CHARS}"));
            }
            if r.chars().any(char::is_control) {
                return Err("reason holds control characters".into());
            }
            Ok(r)
        };
        let target = |id: &str, touched: &BTreeSet<String>| -> Result<Fact, String> {
            let f = find(id).ok_or_else(|| format!("{id} is not a fact of this owner"))?;
            if touched.contains(id) {
                return Err(format!("{id} is changed by this review already"));
            }
            Ok(f.clone())
        };
        let new_text = |text: &str, present: &BTreeSet<String>| -> Result<String, String> {
            let t = check_text(text).map_err(|e| format!("{}: {e}", e.code()))?;
            if let Some(v) = vetoes.first(&t) {
                return Err(format!(
                    "the same fact as {}, {}; a person's veto stands",
                    v.id,
                    v.why()
                ));
            }
            if present.contains(&folded(&t)) {
                return Err("already stored".into());
            }
            Ok(t)
        };
        match p {
            Proposal::Save {
                text,
                store,
                reason,
            } => {
                let (t, r) = match (new_text(&text, &present), reason_ok(&reason)) {
                    (Ok(t), Ok(r)) => (t, r),
                    (Err(e), _) | (_, Err(e)) => {
                        reject(e);
                        continue;
                    }
                };
                let scope = store.unwrap_or(Scope::Memory);
                let id = entry_id(scope.name(), &t);
                present.insert(folded(&t));
                touched.insert(id.clone());
                plan.changes.push(Change::Save {
                    id,
                    scope,
                    text: t,
                    reason: if r.is_empty() {
                        "proposed by the reviewer".into()
                    } else {
                        r
                    },
                    supersedes: None,
                });
            }
            Proposal::Archive { id, reason } => {
                let r = match reason_ok(&Some(reason)) {
                    Ok(r) if !r.is_empty() => r,
                    Ok(_) => {
                        reject("an archive needs a reason".into());
                        continue;
                    }
                    Err(e) => {
                        reject(e);
                        continue;
                    }
                };
                let f = match target(&id, &touched) {
                    Ok(f) => f,
                    Err(e) => {
                        reject(e);
                        continue;
                    }
                };
                touched.insert(f.id.clone());
                present.remove(&folded(&f.text));
                plan.changes.push(Change::Archive {
                    id: f.id.clone(),
                    scope: f.scope,
                    text: f.text.clone(),
                    kind: ArchiveKind::Reviewed,
                    reason: r,
                    into: None,
                });
            }
            Proposal::Supersede { id, text, reason } => {
                let f = match target(&id, &touched) {
                    Ok(f) => f,
                    Err(e) => {
                        reject(e);
                        continue;
                    }
                };
                let (t, r) = match (new_text(&text, &present), reason_ok(&reason)) {
                    (Ok(t), Ok(r)) => (t, r),
                    (Err(e), _) | (_, Err(e)) => {
                        reject(e);
                        continue;
                    }
                };
                let new_id = entry_id(f.scope.name(), &t);
                touched.insert(f.id.clone());
                touched.insert(new_id.clone());
                present.remove(&folded(&f.text));
                present.insert(folded(&t));
                let why = if r.is_empty() {
                    format!("superseded by {new_id} (the reviewer)")
                } else {
                    format!("superseded by {new_id}: {r}")
                };
                plan.changes.push(Change::Archive {
                    id: f.id.clone(),
                    scope: f.scope,
                    text: f.text.clone(),
                    kind: ArchiveKind::Superseded,
                    reason: why.clone(),
                    into: Some(new_id.clone()),
                });
                plan.changes.push(Change::Save {
                    id: new_id,
                    scope: f.scope,
                    text: t,
                    reason: why,
                    supersedes: Some(f.id.clone()),
                });
            }
            Proposal::Renew { id, days, reason } => {
                // A renewal overrides the plan's archiving of the fact as
                // expired (this machine had not seen it recalled).
                let expired_here = plan.changes.iter().position(|c| {
                    matches!(c, Change::Archive { id: x, kind: ArchiveKind::Expired, .. } if *x == id)
                });
                let mut free = touched.clone();
                if expired_here.is_some() {
                    free.remove(&id);
                }
                let f = match target(&id, &free) {
                    Ok(f) => f,
                    Err(e) => {
                        reject(e);
                        continue;
                    }
                };
                if f.meta.expires.is_none() {
                    reject(format!("{id} has no expiry to renew"));
                    continue;
                }
                let days = days
                    .or_else(|| renew_days(f.scope).filter(|d| *d > 0))
                    .unwrap_or(super::DEFAULT_RENEW_DAYS);
                if days == 0 || days > MAX_RENEW_DAYS {
                    reject(format!("days must be 1 to {MAX_RENEW_DAYS}"));
                    continue;
                }
                let r = match reason_ok(&reason) {
                    Ok(r) => r,
                    Err(e) => {
                        reject(e);
                        continue;
                    }
                };
                if let Some(i) = expired_here {
                    plan.changes.remove(i);
                    plan.unrecalled.retain(|u| *u != f.id);
                }
                touched.insert(f.id.clone());
                plan.changes.push(Change::Renew {
                    id: f.id.clone(),
                    scope: f.scope,
                    expires: now + Duration::days(i64::from(days)),
                    previous: f.meta.expires,
                    reason: if r.is_empty() {
                        "renewed by the reviewer".into()
                    } else {
                        r
                    },
                });
            }
        }
    }
    rejected
}
