//! Step 0: a fact both live and archived (a git merge of an archive on one
//! branch and a change on the other leaves it) keeps one side
//! ([`settle_twin`]).

use std::collections::BTreeSet;

use crate::model::{ArchiveKind, Meta};
use crate::review::{Change, Fact, Kept, Record};

/// Settles each of `facts` that an archive record of `archived` also
/// holds: the side kept, and the fact `gone` when the archive stands.
pub(super) fn settle(
    facts: &[&Fact],
    archived: &[Record],
    gone: &mut BTreeSet<String>,
    changes: &mut Vec<Change>,
) {
    for f in facts {
        let Some(r) = archived.iter().find(|r| r.id == f.id) else {
            continue;
        };
        let (kept, reason) = settle_twin(f, &r.meta);
        if kept == Kept::Archived {
            gone.insert(f.id.clone());
        }
        changes.push(Change::Settle {
            id: f.id.clone(),
            scope: f.scope,
            kept,
            reason,
        });
    }
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
