//! A prepared review written, under the owner's lock, each file in one
//! durable write: the parts of `archive/`, archive.md, MEMORY.md, USER.md,
//! then the journal line in episodes.md; then this machine's recall counts
//! and the plan file. A plan with no change writes nothing but the note
//! that it ran (`.memdir/reviews/unchanged`).

use std::cell::Cell;
use std::collections::BTreeSet;
use std::rc::Rc;

use chrono::{DateTime, Utc};

use super::ReviewReport;
use super::prepare::{Prepared, records, settled};
use crate::disk::{Change as DiskChange, Dir, decode_limited};
use crate::edit::Op;
use crate::error::{Error, Result};
use crate::model::{ArchiveKind, Caller, Scope};
use crate::review::{self, Change, Plan};
use crate::store::files::pending::PendingSource;
use crate::store::files::reviews::{self, PLAN_FILE_VERSION, PlanFile, StoredReviewer};
use crate::store::files::{archive, episodes, stats, stores};
use crate::store::limits::STORE_EDIT_BYTES;
use crate::store::owner::Locked;
use crate::store::write::stage;

/// Writes `prepared` under `locked`; `stored`, the reviewer's answer as
/// kept in the plan file; `logged`, the time of the journal line (the
/// plan's own time for a review made now, the time of the apply for a dry
/// run's plan applied later).
pub(super) fn write(
    locked: &Locked<'_>,
    prepared: Prepared,
    stored: Option<StoredReviewer>,
    logged: DateTime<Utc>,
) -> Result<ReviewReport> {
    let owner = locked.owner();
    let at = locked.at();
    let Prepared {
        id,
        now,
        plan,
        facts,
        reviewer,
        stores,
        fingerprint,
        held,
        ..
    } = prepared;
    let waiting = hold(locked, held);
    if plan.changes.is_empty() {
        // Nothing to change: no journal line; this machine notes that the
        // review ran (so `--due` does not run it again today).
        let mut warnings = waiting;
        if let Err(e) = reviews::note_unchanged(at, &id) {
            warnings.push(format!("the review's run not noted: {e}"));
        }
        return Ok(ReviewReport {
            review_id: id,
            applied: false,
            plan,
            diffs: Vec::new(),
            warnings,
            reviewer,
        });
    }
    let dir = locked.dir();
    let recs = records(&plan, &facts, &id, now, owner.caller());
    let settle = settled(&plan, &id);
    let mut archives = match &settle {
        Some(_) => Some(archive::read_all(at)?),
        None => None,
    };
    let mut changes: Vec<DiskChange<'_>> = Vec::new();
    let mut parts = Vec::new();
    // Records of facts settled as both live and archived are marked
    // (`settled=`): in the parts of `archive/` first, then archive.md.
    if let (Some(archives), Some((ids, rid))) = (archives.as_mut(), settle.clone()) {
        for (rel, change) in settled_in_parts(archives, dir, ids, rid) {
            parts.push(rel);
            changes.push(change);
        }
    }
    if !recs.is_empty() || settle.is_some() {
        let (change, rotated) = archive::append_rotating(locked, recs, settle)?;
        changes.push(change);
        parts.extend(rotated);
    }
    for (l, new) in stores {
        if let Some(new) = new {
            changes.push(store_change(locked, l, new, &plan, &id, now)?);
        }
    }
    let proposed = reviewer.as_ref().map_or(0, |r| r.accepted);
    let line = crate::journal::render_line(
        &logged.format("%H:%M").to_string(),
        None,
        &summary(&plan, proposed),
        Some(&id),
    );
    let (held, _) = episodes::read(at)?;
    changes.push(episodes::append_line(
        dir,
        held,
        logged.date_naive(),
        line,
        Rc::new(Cell::new(0)),
    ));
    let mut names: Vec<String> = changes
        .iter()
        .filter(|c| std::ptr::eq(c.dir, dir))
        .map(|c| c.name.to_owned())
        .collect();
    owner.disk().replace_in_order(changes)?;
    names.extend(parts);
    let mut warnings: Vec<String> = waiting;
    warnings.extend(move_recalls(locked, &plan));
    // The plan, kept beside the run records (derived), marked applied.
    let file = PlanFile {
        version: PLAN_FILE_VERSION,
        id: id.clone(),
        owner: owner.id().to_owned(),
        now,
        applied: true,
        planned_on: fingerprint,
        reviewer: stored,
        plan: serde_json::to_value(&plan).unwrap_or_default(),
    };
    if let Err(e) = reviews::write(at, &file) {
        warnings.push(format!("review record not written: {e}"));
    }
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    warnings.extend(locked.written(&names, &format!("review {id}")));
    Ok(ReviewReport {
        review_id: id,
        applied: true,
        plan,
        diffs: Vec::new(),
        warnings,
        reviewer,
    })
}

/// The changes that mark the records of `ids` settled by review `rid`
/// (`settled=`) in the parts of `archive/` that hold one, each with its
/// path (archive.md's are marked as the review's records are appended).
fn settled_in_parts<'a>(
    archives: &'a mut archive::Archives,
    dir: &'a Dir,
    ids: BTreeSet<String>,
    rid: String,
) -> Vec<(String, DiskChange<'a>)> {
    let holds = ids.clone();
    archives.changes(
        dir,
        move |f| {
            f.part.is_some()
                && archive::records(&f.src)
                    .iter()
                    .any(|r| holds.contains(&r.id))
        },
        move |src| {
            archive::with_meta(src, &ids, |m| m.settled = Some(rid.clone())).map_err(|reason| {
                Error::Unplaceable {
                    path: dir.join(archive::ARCHIVE_DIR),
                    reason,
                }
            })
        },
    )
}

/// The change that writes store `l`'s `new` text; should an editor have
/// saved it meanwhile, `plan` is applied again to the editor's text.
fn store_change<'a>(
    locked: &'a Locked<'_>,
    mut l: stores::Loaded,
    new: String,
    plan: &Plan,
    id: &str,
    now: DateTime<Utc>,
) -> Result<DiskChange<'a>> {
    let at = locked.at();
    let base = l.base();
    let (plan, id) = (plan.clone(), id.to_owned());
    let limit = l.budget(at)?.limit;
    let days = at.settings.expiry_days.days(l.scope);
    let agent = match locked.owner().caller() {
        Caller::Agent(a) => Some(a.clone()),
        Caller::Person(_) => None,
    };
    let (scope, path) = (l.scope, l.path.clone());
    Ok(DiskChange {
        dir: locked.dir(),
        name: scope.file_name(),
        base,
        planned: Some(new.into_bytes()),
        redo: Box::new(move |cur| {
            let src = match cur {
                Some(b) => decode_limited(&path, b.to_vec(), STORE_EDIT_BYTES)?,
                None => String::new(),
            };
            let out =
                review::apply_to_store(&src, scope, &plan, &id, agent.as_deref(), now, days, limit)
                    .map_err(|reason| Error::Unplaceable {
                        path: path.clone(),
                        reason,
                    })?;
            Ok(out.src.map(String::into_bytes))
        }),
    })
}

/// Keeps each lift `held` back from the plan in PENDING.md, to wait for a
/// person as the agent's own save would (`writes: review`): a line each,
/// for the report's warnings.
fn hold(locked: &Locked<'_>, held: Vec<String>) -> Vec<String> {
    held.into_iter()
        .map(|text| {
            let op = [Op::add(Scope::Memory, text)];
            match stage(locked, &op, &[], false, PendingSource::Review) {
                Ok(w) => match w.pending {
                    Some(p) => format!(
                        "a fact lifted from the day log waits for a person's review (pending {p})"
                    ),
                    None => "a fact lifted from the day log is stored already".to_owned(),
                },
                Err(e) => format!("a fact lifted from the day log not kept for review: {e}"),
            }
        })
        .collect()
}

/// The journal line's words for `plan` (`proposed`: the reviewer's
/// proposals it took).
fn summary(plan: &Plan, proposed: usize) -> String {
    let count = |k: ArchiveKind| {
        plan.changes
            .iter()
            .filter(|c| matches!(c, Change::Archive { kind, .. } if *kind == k))
            .count()
    };
    let changes = |is: fn(&Change) -> bool| plan.changes.iter().filter(|c| is(c)).count();
    let lifted = changes(|c| matches!(c, Change::Lift { .. }));
    let renewed = changes(|c| matches!(c, Change::Renew { .. }));
    let deduped = changes(|c| matches!(c, Change::Dedupe { .. }));
    let twins = changes(|c| matches!(c, Change::Settle { .. }));
    format!(
        "review: {} merged, {} expired, {renewed} renewed, {lifted} lifted, {} conflicts settled, {} left, {} unrecalled, {proposed} proposed, {} curated, {twins} live and archived settled",
        count(ArchiveKind::Merged) + deduped,
        count(ArchiveKind::Expired),
        count(ArchiveKind::Conflict),
        plan.unsettled.len(),
        plan.unrecalled.len(),
        count(ArchiveKind::Unrecalled)
    )
}

/// Recall counts added up on the survivors (this machine's counts): a
/// warning when they could not be saved.
fn move_recalls(locked: &Locked<'_>, plan: &Plan) -> Option<String> {
    if plan.recalls_moved.is_empty() {
        return None;
    }
    let lock = stats::lock(locked.owner(), locked.settings()).ok()?;
    let mut st = lock.load();
    for (keep, gone) in &plan.recalls_moved {
        let moved = st.facts.get(gone).map_or(0, |s| s.recall_count);
        st.facts.entry(keep.clone()).or_default().recall_count += moved;
    }
    lock.save(&mut st)
        .err()
        .map(|e| format!("recall counts not moved: {e}"))
}
