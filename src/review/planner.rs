//! The review's plan ([`plan`]), and what it keeps of copies of one fact
//! ([`merge_copies`]) and of a fact both live and archived ([`settle_twin`]).

use std::collections::{BTreeMap, BTreeSet};

use chrono::Duration;

use crate::edit::{Veto, Vetoes, check_text, used_chars};
use crate::model::{ArchiveKind, Meta, Scope, entry_id};
use crate::recall::{jaccard, term_set};

use super::duplicates::{folded, negations, numbers};
use super::*;

/// The text a day line marks to be lifted (`fact: …`), checked as a save's
/// text is: `None` for a line without the mark, the line's text and the
/// refusal's code when the text is refused.
fn lift_text(line: &str) -> Option<std::result::Result<String, (String, String)>> {
    let t = line.trim_start();
    let rest = t
        .get(..FACT_PREFIX.len())
        .filter(|p| p.eq_ignore_ascii_case(FACT_PREFIX))
        .map(|_| &t[FACT_PREFIX.len()..])?;
    Some(check_text(rest).map_err(|e| (rest.trim().to_owned(), e.code().as_str().to_owned())))
}

/// The ids the day lines of `lines` would lift (whether or not the plan
/// lifts them): the archive records a plan needs for them are theirs.
pub fn lift_ids(lines: &[DayLine]) -> BTreeSet<String> {
    lines
        .iter()
        .filter_map(|l| lift_text(&l.text)?.ok())
        .map(|t| entry_id(Scope::Memory.name(), &t))
        .collect()
}

/// Why an archive record keeps its fact from coming back: a veto (a
/// person's word is final) or a supersession; `None` for any other.
fn refused_return(meta: &Meta) -> Option<String> {
    match meta.kind? {
        ArchiveKind::Vetoed => Some(match meta.archived {
            Some(t) => format!("vetoed on {}", t.date_naive()),
            None => "vetoed".to_owned(),
        }),
        ArchiveKind::Superseded => Some(match &meta.superseded_by {
            Some(by) => format!("superseded by {by}"),
            None => "superseded".to_owned(),
        }),
        _ => None,
    }
}

/// A vetoed fact in another form (a case, a period, a look-alike letter:
/// `edit::fold`) among `facts`: the veto stands, and each goes into the
/// vetoed fact as a merge would (archived `merged` into its id, so no
/// duplicate merge keeps one live), unless a person saved it after the
/// veto. A fact with the vetoed id itself is step 0's (both live and
/// archived).
fn vetoed_forms(
    facts: &[&Fact],
    vetoes: &Vetoes,
    gone: &mut BTreeSet<String>,
    changes: &mut Vec<Change>,
) {
    if vetoes.is_empty() {
        return;
    }
    for f in facts {
        let Some(v) = vetoes.first(&f.text) else {
            continue;
        };
        if gone.contains(&f.id) || v.id == f.id || saved_by_a_person_after(f, v) {
            continue;
        }
        gone.insert(f.id.clone());
        changes.push(Change::Archive {
            id: f.id.clone(),
            scope: f.scope,
            text: f.text.clone(),
            kind: ArchiveKind::Merged,
            reason: format!(
                "the same fact as {}, {}; a person's veto stands",
                v.id,
                v.why()
            ),
            into: Some(v.id.clone()),
        });
    }
}

/// Whether a person saved or edited `f` after the veto `v` (their word
/// stands: only facts written before the veto or by an agent go).
fn saved_by_a_person_after(f: &Fact, v: &Veto) -> bool {
    let when = f.meta.updated.or(f.meta.created);
    f.meta.person.is_some() && v.at.is_some_and(|a| when.is_some_and(|t| t > a))
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
    // 0b. Vetoed facts in another form.
    vetoed_forms(&facts, input.vetoes, &mut gone, &mut out.changes);
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
        let Some(checked) = lift_text(&line.text) else {
            continue;
        };
        let text = match checked {
            Ok(t) => t,
            Err((rest, why)) => {
                out.skipped.push(Skipped { what: rest, why });
                continue;
            }
        };
        // A person's veto is final, in whatever form the line gives the
        // fact.
        if let Some(v) = input.vetoes.first(&text) {
            out.skipped.push(Skipped {
                what: text,
                why: v.why(),
            });
            continue;
        }
        if !present.insert(folded(&text)) {
            out.skipped.push(Skipped {
                what: text,
                why: "already stored".into(),
            });
            continue;
        }
        // A person's veto is final, and a superseded fact cannot come back:
        // a day line does not bring either back.
        let id = entry_id(Scope::Memory.name(), &text);
        if let Some(why) = input
            .archived
            .iter()
            .find(|r| r.id == id)
            .and_then(|r| refused_return(&r.meta))
        {
            out.skipped.push(Skipped { what: text, why });
            continue;
        }
        out.changes.push(Change::Lift {
            id,
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
