//! Copies of one entry (the same text, so the same id, in one store: a hand
//! edit or a merge makes them) kept as one, their metadata merged
//! ([`merge_copies`]).

use std::collections::BTreeMap;

use crate::model::Meta;
use crate::review::{Change, Fact};

/// The facts with each id once: a fact with copies keeps the first one,
/// with the copies' metadata merged, and the plan a `Dedupe` change for it.
pub(super) fn one_per_id(facts: &[Fact], changes: &mut Vec<Change>) -> Vec<Fact> {
    let mut copies: BTreeMap<&str, Vec<&Fact>> = BTreeMap::new();
    let mut firsts: Vec<&Fact> = Vec::new();
    for f in facts {
        let group = copies.entry(f.id.as_str()).or_default();
        if group.is_empty() {
            firsts.push(f);
        }
        group.push(f);
    }
    firsts
        .iter()
        .map(|f| {
            let group = &copies[f.id.as_str()];
            if group.len() < 2 {
                return (*f).clone();
            }
            let metas: Vec<&Meta> = group.iter().map(|c| &c.meta).collect();
            let kept = merge_copies(&metas);
            changes.push(Change::Dedupe {
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
        .collect()
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
