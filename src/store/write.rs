//! The write path of the curated stores: a list of operations, planned in
//! memory under the owner's lock and written once.
//!
//! Every fact is saved here, alone or in a batch, so saves behave alike: a
//! save with `supersedes` archives the fact it replaces, and with
//! `curation: auto` an add past the budget first archives the least recently
//! recalled, oldest facts of its store. The plan is made and checked whole
//! (each store's edit applied once, its budget computed once), then written:
//! archive.md first, then each store that changed, so that a crash between
//! the two leaves a memory in both files rather than in neither. A store is
//! written with the bytes planned; its edit runs again only on an editor's
//! newer save met by the swap.

use std::borrow::Cow;
use std::collections::BTreeSet;
use std::sync::Arc;

use chrono::{DateTime, Utc};

use super::files::archive::{self, record_meta};
use super::files::config;
use super::files::locate::{self, Found};
use super::files::pending::{self, Rejections};
use super::files::stores::{self, Loaded};
use super::limits::STORE_BYTES;
use super::limits::STORE_EDIT_BYTES;
use super::owner::{At, Locked};
use crate::disk::{Change, decode_limited};
use crate::edit::{self, Applied, OpFailed, OpOutcome, Revival, Usage};
use crate::error::{Error, Result};
use crate::markdown::splice::normalize_text;
use crate::model::{ArchiveKind, Caller, Curation, Meta, Origin, Scope, entry_id};
use crate::review::routine;

mod curate;
pub(crate) mod group;
mod semantic;
mod stage;
pub(crate) use stage::{stage, submit, waits};

/// What a write did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Written {
    /// Each operation's outcome, in the order given.
    pub(crate) results: Vec<OpOutcome>,
    /// Usage of each store written, after the write.
    pub(crate) usage: Vec<(Scope, Usage)>,
    /// Notes such as a clamped budget.
    pub(crate) warnings: Vec<String>,
    /// Facts archived on the way: superseded, or picked by curation.
    pub(crate) archived: Vec<String>,
    /// The id of the write in PENDING.md when it waits for a person
    /// (`writes: review`): then nothing else was written.
    pub(crate) pending: Option<String>,
}

/// One operation of a store's plan: the operation, the index of the
/// caller's operation it serves, and whether the caller asked for it (or the
/// write added it: a superseded fact's or a curated fact's removal).
struct Item<'o> {
    op: Cow<'o, edit::Op>,
    origin: usize,
    asked: bool,
}

/// One store's part of a write.
struct Plan<'o> {
    scope: Scope,
    items: Vec<Item<'o>>,
    loaded: Loaded,
    applied: Option<Applied>,
}

/// Writes `ops` (and, first, the archive `records`) under the lock. With
/// `batch`, a failure names the failing operation's index
/// ([`Error::Batch`]).
pub(crate) fn commit(
    locked: &Locked<'_>,
    ops: &[edit::Op],
    records: Vec<(String, Meta)>,
    batch: bool,
) -> Result<Written> {
    let p = plan(locked.at(), ops, records, batch)?;
    write(
        locked,
        p.plans,
        Archiving {
            records: p.records,
            lifted: p.lifted,
        },
        p.now,
        batch,
        ops.len(),
        p.archived,
    )
}

/// What a write does to the archive: records it appends, and the ids of
/// memories it brings back, whose records it takes out.
struct Archiving {
    records: Vec<(String, Meta)>,
    lifted: BTreeSet<String>,
}

/// What [`plan`] made: each store's checked edit, the archive records and
/// the facts archived on the way; nothing written yet.
pub(crate) struct Planned<'o> {
    plans: Vec<Plan<'o>>,
    records: Vec<(String, Meta)>,
    lifted: BTreeSet<String>,
    archived: Vec<String>,
    now: DateTime<Utc>,
    asked: usize,
}

impl Planned<'_> {
    /// What [`commit`] would answer for this plan, without writing it (a
    /// dry run): each operation's outcome, each store's usage after it.
    pub(crate) fn outcome(&self, at: At<'_>) -> Written {
        let mut results: Vec<Option<OpOutcome>> = vec![None; self.asked];
        let mut usage = Vec::new();
        let mut warnings = at.settings.warnings();
        for plan in &self.plans {
            let Some(applied) = &plan.applied else {
                continue;
            };
            warnings.extend(applied.budget.warning(plan.scope.file_name()));
            usage.push((plan.scope, applied.usage.clone()));
            for (it, outcome) in plan.items.iter().zip(&applied.outcomes) {
                if it.asked
                    && let Some(slot) = results.get_mut(it.origin)
                {
                    *slot = Some(outcome.clone());
                }
            }
        }
        Written {
            results: results.into_iter().flatten().collect(),
            usage,
            warnings,
            archived: self.archived.clone(),
            pending: None,
        }
    }
}

/// Plans `ops` (and, first, the archive `records`) as [`commit`] does,
/// checked whole (under the owner's lock, or on a reader's view for a dry
/// run), and writes nothing.
pub(crate) fn plan<'o>(
    at: At<'_>,
    ops: &'o [edit::Op],
    mut records: Vec<(String, Meta)>,
    batch: bool,
) -> Result<Planned<'o>> {
    let now = Utc::now();
    let wrap = |index: usize, e: Error| {
        if batch {
            Error::Batch {
                index,
                source: Box::new(e),
            }
        } else {
            e
        }
    };
    let mut archived = Vec::new();
    let mut items: Vec<(Scope, Item<'_>)> = Vec::with_capacity(ops.len());
    // Each store is read once: the lookups of ids and the plan share it.
    let mut loads: Vec<Loaded> = Vec::with_capacity(Scope::ALL.len());
    for (i, op) in ops.iter().enumerate() {
        let (scope, op) = in_its_store(at, op, &items, &mut loads).map_err(|e| wrap(i, e))?;
        items.push((
            scope,
            Item {
                op: op.clone(),
                origin: i,
                asked: true,
            },
        ));
        if let edit::Op::Add {
            text,
            scope,
            supersedes: Some(old),
            ..
        } = &*op
        {
            let new_id = entry_id(scope.name(), &normalize_text(text));
            let (s, record) = superseded(at, old, &new_id, now).map_err(|e| wrap(i, e))?;
            records.push(record);
            archived.push(old.clone());
            items.push((
                s,
                Item {
                    op: Cow::Owned(edit::Op::Remove {
                        old: old.clone(),
                        scope: Some(s),
                    }),
                    origin: i,
                    asked: false,
                },
            ));
        }
    }
    let lifted = revivals(at, &items).map_err(|(i, e)| wrap(i, e))?;
    // Plan each store, checked whole.
    let mut plans: Vec<Plan<'_>> = Vec::new();
    for scope in Scope::ALL {
        let (mine, rest): (Vec<_>, Vec<_>) = items.into_iter().partition(|(s, _)| *s == scope);
        items = rest;
        let mine: Vec<Item<'_>> = mine.into_iter().map(|(_, it)| it).collect();
        if mine.is_empty() {
            continue;
        }
        let mut plan = Plan {
            scope,
            items: mine,
            loaded: match loads.iter().position(|l| l.scope == scope) {
                Some(i) => loads.swap_remove(i),
                None => stores::load(at, scope, true, STORE_EDIT_BYTES)?,
            },
            applied: None,
        };
        // Under `curation: auto`, a plan that adds may be refused first
        // for its budget only to be curated: that refusal is not detailed
        // (see `plan_apply`) unless curation cannot make room.
        let curating = at.settings.curation == Some(Curation::Auto)
            && plan
                .items
                .iter()
                .any(|it| matches!(*it.op, edit::Op::Add { .. }));
        let applied = match plan_apply(&plan, at, now, !curating) {
            Ok(a) => a,
            // A store grown past what memdir writes can only shrink: that
            // comes before its budget.
            Err(f)
                if plan.loaded.src.len() as u64 > STORE_BYTES
                    && matches!(f.error, Error::OverBudget { .. }) =>
            {
                return Err(Error::FileTooLarge {
                    path: plan.loaded.path.clone(),
                    size: plan.loaded.src.len() as u64,
                    limit: STORE_BYTES,
                });
            }
            Err(f) => {
                let Some(over) = curate::excess(&f.error).filter(|_| curating) else {
                    let origin = plan.items.get(f.index).map_or(0, |it| it.origin);
                    return Err(wrap(origin, found_elsewhere(at, scope, f.error)?));
                };
                let archiving = (&mut records, &mut archived);
                match curate::curate(&mut plan, at, now, over, archiving)? {
                    Some(a) => a,
                    None => {
                        // The refusal in full: which operation, the entries.
                        let f = plan_apply(&plan, at, now, true).err().unwrap_or(f);
                        let origin = plan.items.get(f.index).map_or(0, |it| it.origin);
                        return Err(wrap(origin, f.error));
                    }
                }
            }
        };
        fits(&plan.loaded.path, plan.loaded.src.len(), &applied.src)?;
        plan.applied = Some(applied);
        plans.push(plan);
    }
    // The semantic layer last: the rules, the budget and what each
    // operation names are cheaper, and refuse first.
    semantic::refuse(at, ops).map_err(|(i, e)| wrap(i, e))?;
    Ok(Planned {
        plans,
        records,
        lifted,
        archived,
        now,
        asked: ops.len(),
    })
}

/// The ids of the memories the operations `items` bring back by writing a
/// text archive.md holds as vetoed or superseded (`edit::revival`: a
/// person's save lifts a veto, a save that supersedes brings a superseded
/// text back); refused, with the index of the operation, when the caller
/// may not (an agent's save of a vetoed text, a save of a superseded one
/// that supersedes nothing). A vetoed fact is met in any form whose
/// [`edit::fold`] is its own (another case, a trailing period, a
/// look-alike letter, in either store): an agent's save of it is refused,
/// a person's lifts the veto. Every write that adds an entry comes here:
/// `add`, `batch`, `import hermes`, the memory tool, the servers' saves.
fn revivals(
    at: At<'_>,
    items: &[(Scope, Item<'_>)],
) -> std::result::Result<BTreeSet<String>, (usize, Error)> {
    let writes: Vec<(usize, String, bool, &str)> = items
        .iter()
        .filter(|(_, it)| it.asked)
        .filter_map(|(s, it)| match &*it.op {
            edit::Op::Add {
                text,
                scope,
                supersedes,
                ..
            } => Some((
                it.origin,
                entry_id(scope.name(), &normalize_text(text)),
                supersedes.is_some(),
                text.as_str(),
            )),
            edit::Op::Replace { new, .. } => Some((
                it.origin,
                entry_id(s.name(), &normalize_text(new)),
                false,
                new.as_str(),
            )),
            edit::Op::Remove { .. } => None,
        })
        .collect();
    let ids: BTreeSet<String> = writes.iter().map(|(_, id, _, _)| id.clone()).collect();
    let first = writes.first().map_or(0, |(i, ..)| *i);
    let standing = archive::standing(at, &ids).map_err(|e| (first, e))?;
    let caller = at.owner.caller();
    // A text a person rejected in review is refused to an agent as a
    // vetoed one is.
    let rejected = match caller.is_person() || writes.is_empty() {
        true => Rejections::default(),
        false => Rejections::of(&pending::read(at).map_err(|e| (first, e))?.1),
    };
    let mut lifted = BTreeSet::new();
    for (i, id, supersedes, text) in writes {
        if let Some(e) = rejected.refusal(text).filter(|_| !caller.is_person()) {
            return Err((i, e));
        }
        if let Some(r) = standing.records.iter().find(|r| r.id == id)
            && edit::revival(&id, &r.meta, caller, supersedes).map_err(|e| (i, e))?
                == Revival::Lifts
        {
            lifted.insert(id);
        }
        for v in standing.vetoes.matching(text) {
            if !caller.is_person() {
                return Err((i, v.refusal()));
            }
            lifted.insert(v.id.clone());
        }
    }
    Ok(lifted)
}

/// Both stores, as answers name them when an operation named neither.
const BOTH: &str = "MEMORY.md, USER.md";

/// The index in `loads` of store `s`, loaded if it is not there yet.
fn load_into(at: At<'_>, s: Scope, loads: &mut Vec<Loaded>) -> Result<usize> {
    if let Some(i) = loads.iter().position(|l| l.scope == s) {
        return Ok(i);
    }
    loads.push(stores::load(at, s, true, STORE_EDIT_BYTES)?);
    Ok(loads.len() - 1)
}

/// The store `op` acts on, and `op` aimed at it. An add acts on its own
/// store. An id names its entry in whichever store holds it, whatever
/// store the operation names. A substring is looked for in the store
/// named; when none is named, in both: the one entry it matches acts
/// (`memory_ambiguous_match` with the matches of both stores when it
/// matches several, `memory_not_found` with both stores' entries when it
/// matches none, unless an operation `before` it in the batch writes a
/// matching text in one store only). The stores it reads are kept in
/// `loads`.
fn in_its_store<'o>(
    at: At<'_>,
    op: &'o edit::Op,
    before: &[(Scope, Item<'_>)],
    loads: &mut Vec<Loaded>,
) -> Result<(Scope, Cow<'o, edit::Op>)> {
    let (old, named) = match op {
        edit::Op::Replace { old, scope, .. } | edit::Op::Remove { old, scope } => (old, *scope),
        edit::Op::Add { scope, .. } => return Ok((*scope, Cow::Borrowed(op))),
    };
    let aimed = |s: Scope| -> (Scope, Cow<'o, edit::Op>) {
        if named == Some(s) {
            return (s, Cow::Borrowed(op));
        }
        let mut moved = op.clone();
        if let edit::Op::Replace { scope, .. } | edit::Op::Remove { scope, .. } = &mut moved {
            *scope = Some(s);
        }
        (s, Cow::Owned(moved))
    };
    let first = named.unwrap_or(Scope::Memory);
    let order = [first, other(first)];
    if crate::model::is_entry_id(old) {
        for s in order {
            let i = load_into(at, s, loads)?;
            if loads[i].doc.entries.iter().any(|e| e.id == *old) {
                return Ok(aimed(s));
            }
        }
        return Ok(aimed(first));
    }
    if let Some(s) = named {
        return Ok(aimed(s));
    }
    let mut holders: Vec<Scope> = Vec::new();
    let mut candidates = Vec::new();
    let mut entries = Vec::new();
    for s in order {
        let i = load_into(at, s, loads)?;
        match edit::find(&loads[i].doc, s, old) {
            Ok(k) => {
                holders.push(s);
                candidates.push(edit::candidate(&loads[i].doc, s, k));
            }
            Err(Error::AmbiguousMatch { candidates: c, .. }) => {
                holders.extend([s, s]);
                candidates.extend(c);
            }
            Err(Error::NotFound { entries: e, .. }) => entries.extend(e),
            Err(e) => return Err(e),
        }
    }
    match holders.as_slice() {
        [s] => Ok(aimed(*s)),
        [] => {
            // A text an earlier operation of the batch writes.
            let mut writers: Vec<Scope> = before
                .iter()
                .filter(|(_, it)| match &*it.op {
                    edit::Op::Add { text, .. } => normalize_text(text).contains(old.as_str()),
                    edit::Op::Replace { new, .. } => normalize_text(new).contains(old.as_str()),
                    edit::Op::Remove { .. } => false,
                })
                .map(|(s, _)| *s)
                .collect();
            writers.sort();
            writers.dedup();
            match writers.as_slice() {
                [s] => Ok(aimed(*s)),
                _ => Err(Error::NotFound {
                    file: BOTH,
                    query: old.clone(),
                    elsewhere: None,
                    entries,
                }),
            }
        }
        _ => Err(Error::AmbiguousMatch {
            file: BOTH,
            query: old.clone(),
            candidates,
        }),
    }
}

/// The store that is not `s`.
fn other(s: Scope) -> Scope {
    match s {
        Scope::Memory => Scope::User,
        Scope::User => Scope::Memory,
    }
}

/// A substring that matches no entry of `scope` but exactly one of the
/// other store: `memory_not_found` says where (`found in USER.md; pass --in
/// user`).
fn found_elsewhere(at: At<'_>, scope: Scope, e: Error) -> Result<Error> {
    let Error::NotFound {
        file,
        query,
        entries,
        elsewhere: None,
    } = e
    else {
        return Ok(e);
    };
    let mut elsewhere = None;
    if !crate::model::is_entry_id(&query) && !query.trim().is_empty() {
        for other in Scope::ALL.into_iter().filter(|s| *s != scope) {
            let l = stores::load(at, other, true, STORE_EDIT_BYTES)?;
            if edit::find(&l.doc, other, &query).is_ok() {
                elsewhere = Some(other.file_name());
            }
        }
    }
    Ok(Error::NotFound {
        file,
        query,
        entries,
        elsewhere,
    })
}

/// Applies a store's plan to its loaded text; `detail`: whether a budget
/// refusal is detailed (`EditContext::detail`).
fn plan_apply(
    plan: &Plan<'_>,
    at: At<'_>,
    now: DateTime<Utc>,
    detail: bool,
) -> std::result::Result<Applied, OpFailed> {
    #[cfg(test)]
    tests::APPLIES.with(|n| n.set(n.get() + 1));
    let refs: Vec<&edit::Op> = plan.items.iter().map(|it| &*it.op).collect();
    let mut cx = plan.loaded.context(at, now);
    cx.detail = detail;
    edit::apply(&plan.loaded.src, &plan.loaded.doc, &refs, &cx)
}

/// Refuses to write a store (`path`, `before` bytes now) as `after` past
/// what memdir reads ([`STORE_BYTES`]), unless the write shrinks it: memdir
/// never writes a file it would refuse to read, and a store grown past the
/// limit by hand can still be curated back.
pub(crate) fn fits(path: &std::path::Path, before: usize, after: &str) -> Result<()> {
    let size = after.len() as u64;
    if size > STORE_BYTES && after.len() >= before {
        return Err(Error::FileTooLarge {
            path: path.to_owned(),
            size,
            limit: STORE_BYTES,
        });
    }
    Ok(())
}

/// The store of the live fact `old` that a new fact `new_id` supersedes,
/// and its archive record; refused for a day row, an archived fact, an
/// unknown id or another agent's.
fn superseded(
    at: At<'_>,
    old: &str,
    new_id: &str,
    now: DateTime<Utc>,
) -> Result<(Scope, (String, Meta))> {
    if old == new_id {
        return Err(Error::SelfSupersede { id: old.to_owned() });
    }
    match locate::locate(at, old)? {
        Found::Live(s, i) => {
            let l = stores::load(at, s, true, STORE_EDIT_BYTES)?;
            let e = &l.doc.entries[i];
            let mut meta = record_meta(
                e.metadata(&l.src),
                Origin::from(s),
                ArchiveKind::Superseded,
                format!("superseded by {new_id}"),
                now,
                at.owner.caller(),
            );
            meta.superseded_by = Some(new_id.to_owned());
            Ok((s, (e.text.clone(), meta)))
        }
        Found::Day(_) => Err(Error::DayAppendOnly { id: old.to_owned() }),
        Found::Archived => Err(Error::SupersedeArchived { id: old.to_owned() }),
        Found::Nowhere => Err(locate::unknown(at, old, true)?),
    }
}

/// Writes a checked plan: archive.md first (when anything is archived),
/// then each store that changed.
fn write(
    locked: &Locked<'_>,
    mut plans: Vec<Plan<'_>>,
    archiving: Archiving,
    now: DateTime<Utc>,
    batch: bool,
    asked: usize,
    archived: Vec<String>,
) -> Result<Written> {
    let at = locked.at();
    // An editor's save met by a swap makes a store's edit run again; its
    // outcome replaces the plan's.
    // An agent's first save (one that creates a store) creates the daily
    // review's routine in the owner's memdir.yaml, unless it has one.
    let first_save = plans
        .iter()
        .any(|p| !p.loaded.exists && p.applied.as_ref().is_some_and(|a| a.changed(&p.loaded.src)));
    let mut redone: Vec<Option<Applied>> = plans.iter().map(|_| None).collect();
    let Archiving { records, lifted } = archiving;
    // A memory brought back leaves the parts of `archive/` too (a rotation
    // cut short leaves a record in two files).
    let mut archives = match lifted.is_empty() {
        true => None,
        false => Some(archive::read_all(at)?),
    };
    let mut archive_changes: Vec<Change<'_>> = Vec::new();
    let mut parts = Vec::new();
    if let Some(archives) = archives.as_mut() {
        for (rel, change) in archives.without_records(locked.dir(), lifted.clone(), true) {
            parts.push(rel);
            archive_changes.push(change);
        }
    }
    // Records appended go in before the stores change, so that a crash
    // leaves a memory in both files rather than in neither; a lift alone
    // goes after them, as an unarchive's does (a crash leaves the veto
    // standing).
    let lift_only = records.is_empty();
    if !records.is_empty() || !lifted.is_empty() {
        let (change, rotated) = archive::append_lifting(locked, records, lifted.clone(), None)?;
        archive_changes.push(change);
        parts.extend(rotated);
    }
    let mut changes: Vec<Change<'_>> = Vec::new();
    if !lift_only {
        changes.append(&mut archive_changes);
    }
    for (plan, slot) in plans.iter_mut().zip(redone.iter_mut()) {
        let Some(applied) = &plan.applied else {
            continue;
        };
        if !applied.changed(&plan.loaded.src) {
            continue;
        }
        let planned = applied.src.clone().into_bytes();
        let base = plan.loaded.base();
        let plan = &*plan;
        let cx = plan.loaded.context(at, now);
        let refs: Vec<&edit::Op> = plan.items.iter().map(|it| &*it.op).collect();
        let origins: Vec<usize> = plan.items.iter().map(|it| it.origin).collect();
        let path = &plan.loaded.path;
        changes.push(Change {
            dir: locked.dir(),
            name: plan.scope.file_name(),
            base,
            planned: Some(planned),
            redo: Box::new(move |cur| {
                let src = match cur {
                    Some(b) => decode_limited(path, b.to_vec(), STORE_EDIT_BYTES)?,
                    None => String::new(),
                };
                let a = edit::apply_to(&src, &refs, &cx).map_err(|f| {
                    let origin = origins.get(f.index).copied().unwrap_or(0);
                    if batch {
                        Error::Batch {
                            index: origin,
                            source: Box::new(f.error),
                        }
                    } else {
                        f.error
                    }
                })?;
                fits(path, src.len(), &a.src)?;
                let out = a.changed(&src).then(|| a.src.clone().into_bytes());
                *slot = Some(a);
                Ok(out)
            }),
        });
    }
    changes.extend(archive_changes);
    if first_save && matches!(locked.owner().caller(), Caller::Agent(_)) {
        let (held, text) = config::read(at)?;
        if routine::add_routine(&text, false).is_some() {
            changes.push(config::edit(locked.dir(), held, |src| {
                routine::add_routine(src, false)
            }));
        }
    }
    // The parts of `archive/` are named by their path in the owner's folder
    // (`parts`).
    let mut written: Vec<String> = changes
        .iter()
        .filter(|c| !archive::is_part_name(c.name))
        .map(|c| c.name.to_owned())
        .collect();
    locked.owner().disk().replace_in_order(changes)?;
    written.extend(parts);
    let mut results: Vec<Option<OpOutcome>> = vec![None; asked];
    let mut usage = Vec::new();
    let mut warnings = locked.settings().warnings();
    for (plan, again) in plans.into_iter().zip(redone) {
        let Some(applied) = again.or(plan.applied) else {
            continue;
        };
        if applied.changed(&plan.loaded.src) {
            at.owner.store().parsed().put(
                &plan.loaded.path,
                applied.src,
                Arc::new(applied.doc),
                true,
            );
        }
        warnings.extend(applied.budget.warning(plan.scope.file_name()));
        usage.push((plan.scope, applied.usage));
        for (it, outcome) in plan.items.iter().zip(applied.outcomes) {
            if it.asked
                && let Some(slot) = results.get_mut(it.origin)
            {
                *slot = Some(outcome);
            }
        }
    }
    let results: Vec<OpOutcome> = results.into_iter().flatten().collect();
    let what = match results.as_slice() {
        [one] => format!("{} {}", one.op, one.id),
        many => format!("batch of {} operations", many.len()),
    };
    let names: Vec<&str> = written.iter().map(String::as_str).collect();
    warnings.extend(locked.written(&names, &what));
    Ok(Written {
        results,
        usage,
        warnings,
        archived,
        pending: None,
    })
}

#[cfg(test)]
mod tests;
