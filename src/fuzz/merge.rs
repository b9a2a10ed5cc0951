//! Target `merge`: the git merge driver's logic on three versions of a file.
//!
//! Input: a control byte (bits 0–1: the kind of file — store, archive,
//! journal, text; bit 2 on a store: the root's learnings instead), then base, ours and theirs as three fields (each at most
//! 16 KiB).
//!
//! Properties: the merge answers; it is clean exactly when it reports no
//! text conflict and then holds no conflict-marker line it did not take
//! from an input; a file merged with itself is itself; when one side left
//! the base as it was, a text merge gives the other side; and for a store,
//! an entry both sides kept unchanged from the base is in the result, and
//! the result never holds an id twice that neither side held twice (for
//! learnings too, their ids over the learning scope).

use std::collections::BTreeMap;

use super::{Input, truncate};
use crate::markdown::parse_over;
use crate::merge::{Conflict, Kind, merge_as};
use crate::model::{LEARNING_ID_SCOPE, Scope};

/// Largest version the target merges.
const MAX_SIDE_BYTES: usize = 16 * 1024;

/// Merges the three versions and checks the properties.
pub fn merge(data: &[u8]) {
    let mut input = Input::new(data);
    let control = input.byte();
    let kind = match control & 3 {
        0 if control & 4 != 0 => Kind::Learnings,
        0 => Kind::Store(Scope::Memory),
        1 => Kind::Archive,
        2 => Kind::Episodes,
        _ => Kind::Text,
    };
    let base = truncate(input.field(), MAX_SIDE_BYTES);
    let ours = truncate(input.field(), MAX_SIDE_BYTES);
    let theirs = truncate(input.field(), MAX_SIDE_BYTES);
    let m = merge_as(kind, &base, &ours, &theirs);
    let text_conflicts = m
        .conflicts
        .iter()
        .any(|c| matches!(c, Conflict::Text { .. }));
    assert_eq!(m.is_clean(), !text_conflicts);
    if m.is_clean() {
        let markers = |s: &str| s.lines().filter(|l| l.starts_with("<<<<<<< ")).count();
        assert!(
            markers(&m.text) <= markers(&base) + markers(&ours) + markers(&theirs),
            "a clean merge added conflict markers: {:?}",
            m.text
        );
    }
    assert_eq!(merge_as(kind, &ours, &ours, &ours).text, ours, "{kind:?}");
    if kind == Kind::Text {
        assert_eq!(merge_as(kind, &base, &base, &theirs).text, theirs);
        assert_eq!(merge_as(kind, &base, &ours, &base).text, ours);
    }
    let id_scope = match kind {
        Kind::Store(scope) => Some(scope.name()),
        Kind::Learnings => Some(LEARNING_ID_SCOPE),
        Kind::Pending => Some(crate::model::PENDING_ID_SCOPE),
        _ => None,
    };
    if let Some(id_scope) = id_scope {
        let ids = |s: &str| {
            let mut n: BTreeMap<String, usize> = BTreeMap::new();
            for e in parse_over(id_scope, s).entries {
                *n.entry(e.id).or_default() += 1;
            }
            n
        };
        let (b, o, t, r) = (ids(&base), ids(&ours), ids(&theirs), ids(&m.text));
        if m.is_clean() {
            for id in b.keys() {
                if o.contains_key(id) && t.contains_key(id) {
                    assert!(r.contains_key(id), "{id} kept by both sides is gone");
                }
            }
            for (id, n) in &r {
                let most = o.get(id).max(t.get(id)).copied().unwrap_or(0);
                assert!(*n <= most.max(1), "{id} is {n} times in the result");
            }
        }
    }
}
