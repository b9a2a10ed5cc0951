//! Step 0b: a vetoed fact in another form goes into the vetoed fact, as a
//! merge would.

use std::collections::BTreeSet;

use crate::edit::{Veto, Vetoes};
use crate::model::ArchiveKind;
use crate::review::{Change, Fact};

/// A vetoed fact in another form (a case, a period, a look-alike letter:
/// `edit::fold`) among `facts`: the veto stands, and each goes into the
/// vetoed fact as a merge would (archived `merged` into its id, so no
/// duplicate merge keeps one live), unless a person saved it after the
/// veto. A fact with the vetoed id itself is step 0's (both live and
/// archived).
pub(super) fn vetoed_forms(
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
