//! Step 1: exact and near duplicates (`review::duplicates`) merged into a
//! survivor, the most recalled, then the newest, then the first by id.

use std::collections::{BTreeMap, BTreeSet};

use crate::model::{ArchiveKind, Scope};
use crate::recall::{jaccard, term_set};
use crate::review::duplicates::{folded, negations, numbers};
use crate::review::{Change, Fact, NEAR_DUPLICATE, Plan};

/// What duplicates compare, computed once per fact (not once per pair).
struct Key {
    folded: String,
    numbers: Vec<String>,
    negations: usize,
    terms: Vec<String>,
}

impl Key {
    fn of(f: &Fact) -> Key {
        Key {
            folded: folded(&f.text),
            numbers: numbers(&f.text),
            negations: negations(&f.text),
            terms: term_set(&f.text),
        }
    }
}

/// Archives each duplicate among the `live` facts as merged into its
/// survivor, and moves its recalls to the survivor.
pub(super) fn merge(live: &[&Fact], gone: &mut BTreeSet<String>, out: &mut Plan) {
    let mut order = live.to_vec();
    order.sort_by(|a, b| {
        b.recall_count
            .cmp(&a.recall_count)
            .then(b.created().cmp(&a.created()))
            .then(a.id.cmp(&b.id))
    });
    let keys: Vec<Key> = order.iter().map(|f| Key::of(f)).collect();
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
}
