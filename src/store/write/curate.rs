//! `curation: auto` on the write path: a plan whose adds would take its
//! store past the budget first archives the least recently recalled, oldest
//! facts of that store, as few as make room.

use std::borrow::Cow;

use chrono::{DateTime, Utc};

use super::{Item, Plan, plan_apply};
use crate::edit::{self, Applied, OpFailed, used_chars};
use crate::error::{Error, Result};
use crate::markdown::splice::normalize_text;
use crate::model::{ArchiveKind, Meta, Origin, is_live};
use crate::store::files::archive::record_meta;
use crate::store::files::stats;
use crate::store::owner::At;

/// How far a plan's store is over what it may use: the refusal's
/// `would_use` less the most it may use (its budget, or what it uses now
/// when that is more: an over-budget store may still shrink).
pub(super) fn excess(refusal: &Error) -> Option<usize> {
    match refusal {
        Error::OverBudget {
            would_use,
            limit,
            used,
            ..
        } => Some(would_use.saturating_sub(*limit.max(used))),
        _ => None,
    }
}

/// A live fact curation may archive.
struct Candidate {
    last_recalled: Option<DateTime<Utc>>,
    created: DateTime<Utc>,
    id: String,
    text: String,
    meta: Meta,
}

/// Archives facts of the plan's store (least recently recalled first, then
/// oldest) until its operations fit the budget: their removals go first in
/// the plan and their records into `records`. `None` if even archiving every
/// candidate does not make room; the plan's operations are then as they
/// were.
///
/// `over` is how many characters the plan was over ([`excess`]). Taking a
/// fact away frees at most its own rendering and the line feed before it
/// (`used_chars`), so fewer candidates than the first whose such sum
/// reaches `over` cannot make room: they are put in the plan at once, and
/// the plan applied from there one more candidate at a time. The facts
/// archived are the same as trying one candidate more each time from none;
/// a group of saves that each need a fact archived applies its plan about
/// once, not once per save.
pub(super) fn curate(
    plan: &mut Plan<'_>,
    at: At<'_>,
    now: DateTime<Utc>,
    over: usize,
    (records, archived): (&mut Vec<(String, Meta)>, &mut Vec<String>),
) -> Result<Option<Applied>> {
    let cands = candidates(plan, at, now);
    let mut freed = 0;
    let first = cands
        .iter()
        .take_while(|c| {
            let short = freed < over;
            freed += used_chars([c.text.as_str()]) + 1;
            short
        })
        .count()
        .max(1);
    let origin = plan.items.first().map_or(0, |it| it.origin);
    let mut picked = Vec::new();
    for c in cands {
        plan.items.insert(
            0,
            Item {
                op: Cow::Owned(edit::Op::Remove {
                    old: c.id.clone(),
                    scope: Some(plan.scope),
                }),
                origin,
                asked: false,
            },
        );
        picked.push(c);
        if picked.len() < first {
            continue;
        }
        match plan_apply(plan, at, now, false) {
            Ok(a) => {
                for c in picked {
                    let meta = record_meta(
                        c.meta,
                        Origin::from(plan.scope),
                        ArchiveKind::Plain,
                        "curated: over budget".into(),
                        now,
                        at.owner.caller(),
                    );
                    records.push((c.text, meta));
                    archived.push(c.id);
                }
                return Ok(Some(a));
            }
            Err(OpFailed {
                error: Error::OverBudget { .. },
                ..
            }) => continue,
            Err(f) => return Err(f.error),
        }
    }
    plan.items.drain(..picked.len());
    Ok(None)
}

/// The live facts of the plan's store that it neither adds again nor
/// removes, least recently recalled first, then oldest (then by id).
fn candidates(plan: &Plan<'_>, at: At<'_>, now: DateTime<Utc>) -> Vec<Candidate> {
    let stats = stats::load(at);
    let l = &plan.loaded;
    let new_texts: Vec<String> = plan
        .items
        .iter()
        .filter_map(|it| match &*it.op {
            edit::Op::Add { text, .. } => Some(normalize_text(text)),
            _ => None,
        })
        .collect();
    let removed: Vec<&str> = plan
        .items
        .iter()
        .filter_map(|it| match &*it.op {
            edit::Op::Remove { old, .. } => Some(old.as_str()),
            _ => None,
        })
        .collect();
    let mut cands: Vec<Candidate> = l
        .doc
        .entries
        .iter()
        .filter(|e| is_live(e.meta_comment(&l.src), now) && !new_texts.contains(&e.text))
        .filter(|e| !removed.contains(&e.id.as_str()))
        .map(|e| {
            let meta = e.metadata(&l.src);
            let st = stats.facts.get(&e.id).cloned().unwrap_or_default();
            Candidate {
                last_recalled: st.last_recalled_at,
                created: meta.created.or(st.first_seen).unwrap_or(now),
                id: e.id.clone(),
                text: e.text.clone(),
                meta,
            }
        })
        .collect();
    cands.sort_by(|a, b| {
        a.last_recalled
            .cmp(&b.last_recalled)
            .then(a.created.cmp(&b.created))
            .then(a.id.cmp(&b.id))
    });
    cands
}
