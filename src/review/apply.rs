//! A plan spliced into a store's text ([`apply_to_store`], [`apply_to_doc`]).

use std::collections::{BTreeMap, BTreeSet};

use chrono::{DateTime, Duration, Utc};

use crate::edit::used_chars;
use crate::markdown::{Document, parse, splice};
use crate::model::{ArchiveKind, Meta, Scope};

use super::{Change, Kept, Plan, Skipped};

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
    // 1. What leaves the store and which metadata changes, spliced together.
    let out = removals(src, doc, scope, plan, review, now)?;
    let (cur, doc) = removed(src, doc, &out.remove, &out.metas)?;
    // 2. What is added, within the budget.
    let adds = additions(plan, scope, review, agent, now, save_days);
    let mut skipped = Vec::new();
    let fitting = within_budget(&doc, &adds, limit, &mut skipped);
    let cur = appended(cur, doc, &fitting, &mut skipped);
    Ok(StoreEdit {
        src: (cur != src).then_some(cur),
        skipped,
    })
}

/// What a plan takes out of a store and which metadata it changes.
struct Removals {
    /// The entries taken out, sorted.
    remove: Vec<usize>,
    /// The new metadata of the entries changed, rendered.
    metas: Vec<(usize, String)>,
}

/// The entries of store `scope` (`doc`, the parse of `src`) that `plan`
/// takes out (archived, the copies of one kept as one, a live copy whose
/// archive record stands), sorted, and the new metadata of those it changes
/// (a renewal, the kept side of a settled conflict, the copy kept),
/// rendered: only where it differs from the entry's.
fn removals(
    src: &str,
    doc: &Document,
    scope: Scope,
    plan: &Plan,
    review: &str,
    now: DateTime<Utc>,
) -> Result<Removals, String> {
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
    let metas = metas.into_iter().map(|(i, m)| (i, m.render())).collect();
    Ok(Removals { remove, metas })
}

/// `src` (parsed as `doc`) with the entries `remove` taken out and the
/// metadata `metas` set: spliced together and checked by one parse, or one
/// by one where that fails (metadata first, indexes stand; then removals
/// from the last).
fn removed(
    src: &str,
    doc: &Document,
    remove: &[usize],
    metas: &[(usize, String)],
) -> Result<(String, Document), String> {
    let unplaceable = |e: splice::Unplaceable| e.0;
    if remove.is_empty() && metas.is_empty() {
        return Ok((src.to_owned(), doc.clone()));
    }
    if let Some(done) = splice::edit_many(src, doc, remove, metas) {
        return Ok(done);
    }
    let (mut cur, mut d) = (src.to_owned(), doc.clone());
    for (i, m) in metas {
        (cur, d) = splice::set_meta(&cur, &d, *i, m).map_err(unplaceable)?;
    }
    for i in remove.iter().rev() {
        (cur, d) = splice::remove(&cur, &d, *i).map_err(unplaceable)?;
    }
    Ok((cur, d))
}

/// The facts `plan` adds to store `scope` (lifted into MEMORY.md, saved on
/// the reviewer's proposal), in its order: (text, id, metadata).
fn additions<'p>(
    plan: &'p Plan,
    scope: Scope,
    review: &str,
    agent: Option<&str>,
    now: DateTime<Utc>,
    save_days: Option<u32>,
) -> Vec<(&'p String, &'p String, Meta)> {
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
    let mut adds = Vec::new();
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
    adds
}

/// The additions `adds` that fit the store (`doc`) within `limit`
/// characters (or within what it uses now), counted as the budget counts,
/// without placing them: (text, id, rendered metadata); an id the store or
/// an earlier addition holds is left out, one past the budget `skipped`.
fn within_budget<'a>(
    doc: &Document,
    adds: &'a [(&String, &String, Meta)],
    limit: usize,
    skipped: &mut Vec<Skipped>,
) -> Vec<(&'a str, &'a str, String)> {
    // (The budget rule adds up: an entry more adds its own count and the
    // line feed before it.)
    let mut used = used_chars(doc.entries.iter().map(|e| e.text.as_str()));
    let mut count = doc.entries.len();
    let mut ids: BTreeSet<&str> = doc.entries.iter().map(|e| e.id.as_str()).collect();
    let mut fitting = Vec::new();
    for (text, id, meta) in adds {
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
    fitting
}

/// `cur` (parsed as `doc`) with the `fitting` additions appended: all at
/// once, or one by one where that fails, each one that cannot be placed
/// `skipped`.
fn appended(
    mut cur: String,
    mut doc: Document,
    fitting: &[(&str, &str, String)],
    skipped: &mut Vec<Skipped>,
) -> String {
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
    cur
}
