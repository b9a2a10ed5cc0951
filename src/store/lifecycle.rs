//! Transitions of a fact's life: archive with a reason, veto by a person,
//! unarchive, and a person's settling of what a merge left (`resolve`:
//! keep both of a pair, the live side, one copy). (A save that supersedes, and curation, are part of every write:
//! see `write`.) All run under the owner's lock and keep each file's other
//! bytes; a memory moves into archive.md before it leaves its file, and back
//! into its file before it leaves archive.md.

use std::collections::BTreeSet;

use chrono::Utc;
use serde::Serialize;

use super::files::archive::{self, Archived, record_meta};
use super::files::episodes;
use super::files::locate::{self, Found};
use super::files::stores;
use super::limits::STORE_EDIT_BYTES;
use super::owner::{Locked, Owner};
use super::write::{commit, fits};
use crate::disk::{Change, decode_limited};
use crate::edit::{self, Op};
use crate::error::{Error, Result};
use crate::markdown::parse;
use crate::model::{ArchiveKind, Caller, Meta, Origin, Scope, Status, fold_whitespace};

/// Longest archive reason, in characters.
pub const MAX_REASON_CHARS: usize = 500;

/// What archiving, vetoing or unarchiving did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Transition {
    /// The memory's id.
    pub id: String,
    /// The state it is in now: `archived` or `active`.
    pub status: Status,
    /// The kind of archive, when archived.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kind: Option<ArchiveKind>,
    /// What was done: `archived`, `vetoed`, `superseded`, `unarchived`,
    /// `kept both`, `kept live` or `kept one`.
    pub message: TransitionChange,
    /// Notes, such as a commit that failed (`git.autocommit`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

/// What a transition did (serialised as the words the answers have always
/// carried: `archived`, `kept both`, …).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, schemars::JsonSchema)]
pub enum TransitionChange {
    /// Archived with a reason (or by a review).
    #[serde(rename = "archived")]
    Archived,
    /// Vetoed by a person.
    #[serde(rename = "vetoed")]
    Vetoed,
    /// Replaced by a newer fact.
    #[serde(rename = "superseded")]
    Superseded,
    /// Brought back from the archive.
    #[serde(rename = "unarchived")]
    Unarchived,
    /// Both versions of a merge's pair kept ([`Keep::Both`]).
    #[serde(rename = "kept both")]
    KeptBoth,
    /// A fact live and archived kept live ([`Keep::Live`]).
    #[serde(rename = "kept live")]
    KeptLive,
    /// One copy of a duplicate kept ([`Keep::One`]).
    #[serde(rename = "kept one")]
    KeptOne,
}

impl TransitionChange {
    /// Its wire word.
    pub const fn as_str(self) -> &'static str {
        match self {
            TransitionChange::Archived => "archived",
            TransitionChange::Vetoed => "vetoed",
            TransitionChange::Superseded => "superseded",
            TransitionChange::Unarchived => "unarchived",
            TransitionChange::KeptBoth => "kept both",
            TransitionChange::KeptLive => "kept live",
            TransitionChange::KeptOne => "kept one",
        }
    }

    /// Whether a person settled what a merge left (`Owner::resolve`,
    /// [`Keep`]): the fact stays in the snapshot.
    pub const fn settled(self) -> bool {
        matches!(
            self,
            TransitionChange::KeptBoth | TransitionChange::KeptLive | TransitionChange::KeptOne
        )
    }
}

impl std::fmt::Display for TransitionChange {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

fn check_reason(reason: &str) -> Result<String> {
    let r = fold_whitespace(reason);
    let chars = r.chars().count();
    if r.is_empty() || chars > MAX_REASON_CHARS {
        return Err(Error::BadReason {
            chars,
            limit: MAX_REASON_CHARS,
        });
    }
    Ok(r)
}

/// Archives a live memory with a reason (required, at most 500 characters).
pub(crate) fn archive(owner: &Owner, id: &str, reason: &str) -> Result<Transition> {
    let reason = check_reason(reason)?;
    archive_locked(&owner.lock()?, id, reason, ArchiveKind::Plain)
}

/// [`archive`] under the owner's lock, held.
pub(crate) fn archive_plain_locked(
    locked: &Locked<'_>,
    id: &str,
    reason: &str,
) -> Result<Transition> {
    archive_locked(locked, id, check_reason(reason)?, ArchiveKind::Plain)
}

/// A person's veto: archives the memory as `vetoed`; only a person can bring
/// it back.
pub(crate) fn veto(owner: &Owner, id: &str, reason: Option<&str>) -> Result<Transition> {
    veto_locked(&owner.lock()?, id, reason)
}

/// [`veto`] under the owner's lock, held.
pub(crate) fn veto_locked(
    locked: &Locked<'_>,
    id: &str,
    reason: Option<&str>,
) -> Result<Transition> {
    let Caller::Person(p) = locked.owner().caller() else {
        return Err(Error::VetoHumanOnly {
            id: id.to_owned(),
            vetoed_on: None,
        });
    };
    let reason = check_reason(reason.unwrap_or(&format!("vetoed by {p}")))?;
    archive_locked(locked, id, reason, ArchiveKind::Vetoed)
}

fn archive_locked(
    locked: &Locked<'_>,
    id: &str,
    reason: String,
    kind: ArchiveKind,
) -> Result<Transition> {
    let at = locked.at();
    let now = Utc::now();
    let caller = at.owner.caller();
    let mut warnings = Vec::new();
    match locate::locate(at, id)? {
        Found::Live(scope, i) => {
            let l = stores::load(at, scope, true, STORE_EDIT_BYTES)?;
            let e = &l.doc.entries[i];
            let meta = record_meta(
                e.metadata(&l.src),
                Origin::from(scope),
                kind,
                reason,
                now,
                caller,
            );
            let remove = Op::Remove {
                old: id.to_owned(),
                scope: Some(scope),
            };
            warnings = commit(locked, &[remove], vec![(e.text.clone(), meta)], false)?.warnings;
        }
        Found::Day(date) => {
            let text = episodes::day_rows(at)?
                .into_iter()
                .find(|r| r.date == date)
                .map(|r| r.text)
                .unwrap_or_default();
            let meta = Meta {
                date: Some(date),
                ..record_meta(Meta::default(), Origin::Day, kind, reason, now, caller)
            };
            let (change, parts) = archive::append_rotating(locked, vec![(text, meta)], None)?;
            let (episodes_held, _) = episodes::read(at)?;
            locked.owner().disk().replace_in_order(vec![
                change,
                episodes::remove_day(locked.dir(), episodes_held, date),
            ])?;
            let mut names = vec![archive::ARCHIVE_FILE, episodes::EPISODES_FILE];
            names.extend(parts.iter().map(String::as_str));
            warnings.extend(locked.written(&names, &format!("{} {id}", kind.name())));
        }
        Found::Archived => {
            return Err(Error::WrongState {
                id: id.to_owned(),
                state: "already archived",
            });
        }
        Found::Nowhere => return Err(locate::unknown(at, id, false)?),
    }
    Ok(Transition {
        id: id.to_owned(),
        status: Status::Archived,
        kind: Some(kind),
        message: match kind {
            ArchiveKind::Plain => TransitionChange::Archived,
            ArchiveKind::Vetoed => TransitionChange::Vetoed,
            ArchiveKind::Superseded => TransitionChange::Superseded,
            ArchiveKind::Merged
            | ArchiveKind::Expired
            | ArchiveKind::Conflict
            | ArchiveKind::Reviewed
            | ArchiveKind::Unrecalled => TransitionChange::Archived,
        },
        warnings,
    })
}

/// Brings an archived memory back. A superseded memory never comes back;
/// only a person brings back a vetoed one, or one that is a vetoed fact in
/// another form (`edit::fold`: that lifts the veto); a day row whose date
/// has a live log stays archived.
pub(crate) fn unarchive(owner: &Owner, id: &str) -> Result<Transition> {
    unarchive_locked(&owner.lock()?, id)
}

/// [`unarchive`] under the owner's lock, held.
pub(crate) fn unarchive_locked(locked: &Locked<'_>, id: &str) -> Result<Transition> {
    let owner = locked.owner();
    let at = locked.at();
    // The archive first (archive.md and its parts in `archive/`): an
    // archived day row shares its id with a live log of the same date.
    let mut archives = archive::read_all(at)?;
    let record = match archives.records().into_iter().find(|r| r.id == id) {
        Some(r) => r,
        None => match locate::locate(at, id)? {
            Found::Nowhere => return Err(locate::unknown(at, id, false)?),
            _ => {
                return Err(Error::WrongState {
                    id: id.to_owned(),
                    state: "not archived",
                });
            }
        },
    };
    let Archived { text, meta: m, .. } = record;
    match m.kind {
        Some(ArchiveKind::Superseded) => {
            return Err(Error::Superseded {
                id: id.to_owned(),
                by: m.superseded_by.clone().unwrap_or_default(),
            });
        }
        Some(ArchiveKind::Vetoed) if !owner.caller().is_person() => {
            return Err(Error::VetoHumanOnly {
                id: id.to_owned(),
                vetoed_on: m.archived.map(|t| t.date_naive().to_string()),
            });
        }
        _ => {}
    }
    // The same fact as a vetoed one, in another form (`edit::fold`): only a
    // person brings it back, and that lifts the veto, as a save does.
    let mut ids = BTreeSet::from([id.to_owned()]);
    if m.scope != Some(Origin::Day) {
        for v in archives.vetoes().matching(&text) {
            if !owner.caller().is_person() {
                return Err(v.refusal());
            }
            ids.insert(v.id.clone());
        }
    }
    let dir = locked.dir();
    let mut changes: Vec<Change<'_>> = Vec::new();
    if m.scope == Some(Origin::Day) {
        let date = m.date.ok_or_else(|| Error::Malformed {
            path: dir.join(archive::ARCHIVE_FILE),
            message: format!("{id}: archived day row without a date"),
        })?;
        let (held, src) = episodes::read(at)?;
        if crate::journal::parse(&src).section(date).is_some() {
            return Err(Error::DayExists {
                date: date.to_string(),
            });
        }
        changes.push(episodes::restore_day(dir, held, date, text));
    } else {
        let scope = m.scope.and_then(Origin::store).unwrap_or(Scope::Memory);
        let mut live = m.clone();
        for f in [
            &mut live.archived_by,
            &mut live.reason,
            &mut live.superseded_by,
        ] {
            *f = None;
        }
        live.scope = None;
        live.archived = None;
        live.kind = None;
        live.date = None;
        live.updated = Some(Utc::now());
        if let Caller::Person(p) = owner.caller() {
            live.person = Some(p.clone());
        }
        let meta = live.render();
        let mut l = stores::load(at, scope, true, STORE_EDIT_BYTES)?;
        let now = Utc::now();
        let cx = stores::context(at, scope, &l.path, now);
        if let Some(planned) = edit::restore(&l.src, &l.doc, &text, &meta, &cx)? {
            fits(&l.path, l.src.len(), &planned.src)?;
            let base = l.base();
            let path = l.path.clone();
            changes.push(Change {
                dir,
                name: scope.file_name(),
                base,
                planned: Some(planned.src.into_bytes()),
                redo: Box::new(move |cur| {
                    let src = match cur {
                        Some(b) => decode_limited(&path, b.to_vec(), STORE_EDIT_BYTES)?,
                        None => String::new(),
                    };
                    let cx = stores::context(at, scope, &path, now);
                    let Some(a) = edit::restore(&src, &parse(scope, &src), &text, &meta, &cx)?
                    else {
                        return Ok(None);
                    };
                    fits(&path, src.len(), &a.src)?;
                    Ok(Some(a.src.into_bytes()))
                }),
            });
        }
    }
    let mut names: Vec<String> = changes.iter().map(|c| c.name.to_owned()).collect();
    // Out of every archive file that holds it (a rotation cut short leaves
    // a record in two), with the vetoes it lifts.
    for (rel, change) in archives.without_records(dir, ids, false) {
        names.push(rel);
        changes.push(change);
    }
    locked.owner().disk().replace_in_order(changes)?;
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    Ok(Transition {
        id: id.to_owned(),
        status: Status::Active,
        kind: None,
        message: TransitionChange::Unarchived,
        warnings: locked
            .written(&names, &format!("unarchive {id}"))
            .into_iter()
            .collect(),
    })
}

/// How a person settles what a merge left that `check` finds.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize, schemars::JsonSchema,
)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
#[serde(rename_all = "snake_case")]
pub enum Keep {
    /// A pair a merge kept (`conflict=`): keep both versions, the
    /// `conflict=` marks of the entry and of the others of its pair
    /// dropped.
    #[cfg_attr(
        feature = "cli",
        value(help = "Both versions of a `conflict=` pair (their marks dropped)")
    )]
    Both,
    /// A fact live and archived: the live fact stands, its archive records
    /// removed.
    #[cfg_attr(
        feature = "cli",
        value(help = "The live fact (its archive records removed)")
    )]
    Live,
    /// An entry twice in its store (an exact duplicate): the first copy
    /// stays, the others are removed.
    #[cfg_attr(feature = "cli", value(help = "The first copy of an exact duplicate"))]
    One,
}

impl Keep {
    /// What keeping so did (its words in the answers: `kept both`,
    /// `kept live`, `kept one`).
    pub fn done(self) -> TransitionChange {
        match self {
            Keep::Both => TransitionChange::KeptBoth,
            Keep::Live => TransitionChange::KeptLive,
            Keep::One => TransitionChange::KeptOne,
        }
    }
}

/// The refusal of a resolution of `id`, in `state`.
fn wrong(id: &str, state: &'static str) -> Error {
    Error::WrongState {
        id: id.to_owned(),
        state,
    }
}

/// `src` (a store of `scope`) with the entry `id` settled as `keep` says
/// (`Both` or `One`): `None` when it is in no such state. Pure.
fn settled_text(
    src: &str,
    scope: Scope,
    id: &str,
    (keep, only): (Keep, bool),
    now: chrono::DateTime<Utc>,
    person: Option<&str>,
) -> std::result::Result<Option<String>, String> {
    use crate::markdown::splice;
    let doc = parse(scope, src);
    let at: Vec<usize> = doc
        .entries
        .iter()
        .enumerate()
        .filter(|(_, e)| e.id == id)
        .map(|(i, _)| i)
        .collect();
    let Some(&first) = at.first() else {
        return Ok(None);
    };
    match keep {
        Keep::Both => {
            let Some(pair) = doc.entries[first].metadata(src).conflict else {
                return Ok(None);
            };
            let in_pair = |e: &crate::markdown::Entry| {
                e.metadata(src).conflict.as_deref() == Some(pair.as_str())
            };
            // Kept alone, the pair's other versions go in the same edit.
            let drop: Vec<usize> = (0..doc.entries.len())
                .filter(|&i| only && in_pair(&doc.entries[i]) && doc.entries[i].id != id)
                .collect();
            let metas: Vec<(usize, String)> = doc
                .entries
                .iter()
                .enumerate()
                .filter(|(i, e)| in_pair(e) && !drop.contains(i))
                .map(|(i, e)| {
                    let mut m = e.metadata(src);
                    m.conflict = None;
                    m.updated = Some(now);
                    if let Some(p) = person {
                        m.person = Some(p.to_owned());
                    }
                    (i, m.render())
                })
                .collect();
            if let Some((out, _)) = splice::edit_many(src, &doc, &drop, &metas) {
                return Ok(Some(out));
            }
            // One edit at a time: the comments first (no index moves), then
            // the removals from the last (the earlier indices stay).
            let (mut cur, mut d) = (src.to_owned(), doc.clone());
            for (i, m) in &metas {
                (cur, d) = splice::set_meta(&cur, &d, *i, m).map_err(|e| e.0)?;
            }
            for i in drop.iter().rev() {
                (cur, d) = splice::remove(&cur, &d, *i).map_err(|e| e.0)?;
            }
            Ok(Some(cur))
        }
        Keep::One | Keep::Live => {
            if at.len() < 2 {
                return Ok(None);
            }
            let (mut cur, mut d) = (src.to_owned(), doc.clone());
            for i in at[1..].iter().rev() {
                (cur, d) = splice::remove(&cur, &d, *i).map_err(|e| e.0)?;
            }
            Ok(Some(cur))
        }
    }
}

/// Settles `id` as `keep` says (see [`Keep`]), under the owner's lock,
/// each file's other bytes kept; a fact in no such state is refused
/// (`wrong_state`), and nothing changes.
pub(crate) fn resolve(owner: &Owner, id: &str, keep: Keep) -> Result<Transition> {
    resolve_locked(&owner.lock()?, id, keep, false)
}

/// [`resolve`] under the owner's lock, held. With `only` (and
/// [`Keep::Both`]), `id` is the one version of its conflict pair kept: the
/// pair's other entries are removed in the same write, and `id`'s mark
/// goes.
pub(crate) fn resolve_locked(
    locked: &Locked<'_>,
    id: &str,
    keep: Keep,
    only: bool,
) -> Result<Transition> {
    let owner = locked.owner();
    let at = locked.at();
    let scope = match locate::locate(at, id)? {
        Found::Live(scope, _) => scope,
        Found::Day(_) => return Err(wrong(id, "a day log")),
        Found::Archived => return Err(wrong(id, "archived only")),
        Found::Nowhere => return Err(locate::unknown(at, id, false)?),
    };
    let dir = locked.dir();
    let mut names: Vec<String> = Vec::new();
    if keep == Keep::Live {
        let mut archives = archive::read_all(at)?;
        let records: Vec<_> = archives
            .records()
            .into_iter()
            .filter(|r| r.id == id)
            .collect();
        if records.is_empty() {
            return Err(wrong(id, "live and not archived"));
        }
        // Dropping a veto's record is bringing a vetoed fact back: a
        // person's right, as `unarchive` holds it.
        if let Some(v) = records
            .iter()
            .find(|r| r.meta.kind == Some(ArchiveKind::Vetoed))
            && !owner.caller().is_person()
        {
            return Err(Error::VetoHumanOnly {
                id: id.to_owned(),
                vetoed_on: v.meta.archived.map(|t| t.date_naive().to_string()),
            });
        }
        let ids = BTreeSet::from([id.to_owned()]);
        let mut changes: Vec<Change<'_>> = Vec::new();
        for (rel, change) in archives.without_records(dir, ids, false) {
            names.push(rel);
            changes.push(change);
        }
        locked.owner().disk().replace_in_order(changes)?;
    } else {
        let mut l = stores::load(at, scope, true, STORE_EDIT_BYTES)?;
        if let Some(e) = edit::conflicted(scope.file_name(), &l.doc.conflicts) {
            return Err(e);
        }
        let now = Utc::now();
        let person = match owner.caller() {
            Caller::Person(p) => Some(p.clone()),
            Caller::Agent(_) => None,
        };
        let path = l.path.clone();
        let unplaceable = |path: &std::path::Path| {
            let path = path.to_owned();
            move |reason| Error::Unplaceable { path, reason }
        };
        let planned = settled_text(&l.src, scope, id, (keep, only), now, person.as_deref())
            .map_err(unplaceable(&path))?
            .ok_or_else(|| {
                wrong(
                    id,
                    match keep {
                        Keep::Both => "in no conflict pair",
                        Keep::One | Keep::Live => "in its store once",
                    },
                )
            })?;
        let base = l.base();
        let wanted = id.to_owned();
        names.push(scope.file_name().to_owned());
        let change = Change {
            dir,
            name: scope.file_name(),
            base,
            planned: Some(planned.into_bytes()),
            // An editor saved meanwhile: settle its text, if the entry is
            // still to settle.
            redo: Box::new(move |cur| {
                let src = match cur {
                    Some(b) => decode_limited(&path, b.to_vec(), STORE_EDIT_BYTES)?,
                    None => return Err(wrong(&wanted, "no longer in its store")),
                };
                settled_text(&src, scope, &wanted, (keep, only), now, person.as_deref())
                    .map_err(unplaceable(&path))?
                    .map(|o| Some(o.into_bytes()))
                    .ok_or_else(|| wrong(&wanted, "already settled"))
            }),
        };
        locked.owner().disk().replace_in_order(vec![change])?;
    }
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    Ok(Transition {
        id: id.to_owned(),
        status: Status::Active,
        kind: None,
        message: keep.done(),
        warnings: locked
            .written(&names, &format!("{} {id}", keep.done()))
            .into_iter()
            .collect(),
    })
}

/// What renewing a fact did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Renewed {
    /// The fact's id.
    pub id: String,
    /// The store that holds it.
    pub scope: Scope,
    /// Its expiry now (RFC 3339 UTC), or `None`: it never expires.
    pub expires: Option<String>,
    /// Its expiry before (`None`: it had none).
    pub previous: Option<String>,
    /// `renewed`.
    #[schemars(extend("const" = "renewed"))]
    pub message: &'static str,
    /// Notes, such as a commit that failed (`git.autocommit`).
    pub warnings: Vec<String>,
}

/// The fact was removed by hand while it was being renewed.
fn gone(scope: Scope, id: &str) -> Error {
    Error::NotFound {
        file: scope.file_name(),
        query: id.to_owned(),
        elsewhere: None,
        entries: Vec::new(),
    }
}

/// The fact's metadata comment with `expires` set (and `updated` now).
fn renewed_meta(
    src: &str,
    doc: &crate::markdown::Document,
    i: usize,
    expires: Option<chrono::DateTime<Utc>>,
    now: chrono::DateTime<Utc>,
) -> String {
    let mut m = doc.entries[i].metadata(src);
    m.expires = expires;
    m.updated = Some(now);
    m.render()
}

/// Sets a live fact's expiry: `expires` as `add --expires` takes it (a
/// date, an RFC 3339 time, a number of days such as `30d`, or `never`),
/// default the store's default expiry from now. An expired fact (still in
/// its store) comes back into the snapshot; an archived one is refused
/// (unarchive it first). Under the owner's lock; only the fact's metadata
/// comment changes, and an editor's save meanwhile is kept.
pub(crate) fn renew(owner: &Owner, id: &str, expires: Option<&str>) -> Result<Renewed> {
    renew_locked(&owner.lock()?, id, expires)
}

/// [`renew`] under the owner's lock, held.
pub(crate) fn renew_locked(
    locked: &Locked<'_>,
    id: &str,
    expires: Option<&str>,
) -> Result<Renewed> {
    use crate::markdown::splice;
    let at = locked.at();
    let now = Utc::now();
    let (scope, i) = match locate::locate(at, id)? {
        Found::Live(scope, i) => (scope, i),
        Found::Day(_) => {
            return Err(Error::WrongState {
                id: id.to_owned(),
                state: "a day log, which has no expiry",
            });
        }
        Found::Archived => {
            return Err(Error::WrongState {
                id: id.to_owned(),
                state: "archived (unarchive it first)",
            });
        }
        Found::Nowhere => return Err(locate::unknown(at, id, false)?),
    };
    let mut l = stores::load(at, scope, true, STORE_EDIT_BYTES)?;
    let ctx = l.context(at, now);
    let new = ctx.expiry(expires)?;
    let previous = l.doc.entries[i].metadata(&l.src).expires;
    let meta = renewed_meta(&l.src, &l.doc, i, new, now);
    let planned = splice::set_meta(&l.src, &l.doc, i, &meta)
        .map_err(|e| ctx.unplaceable(e.0))?
        .0;
    let base = l.base();
    let path = l.path.clone();
    let wanted = id.to_owned();
    let dir = locked.dir();
    let change = crate::disk::Change {
        dir,
        name: scope.file_name(),
        base,
        planned: Some(planned.into_bytes()),
        // An editor saved meanwhile: set the expiry on its text, if the
        // fact is still there.
        redo: Box::new(move |cur| {
            let src = match cur {
                Some(b) => decode_limited(&path, b.to_vec(), STORE_EDIT_BYTES)?,
                None => return Err(gone(scope, &wanted)),
            };
            let doc = parse(scope, &src);
            let Some(i) = doc.entries.iter().position(|e| e.id == wanted) else {
                return Err(gone(scope, &wanted));
            };
            let meta = renewed_meta(&src, &doc, i, new, now);
            let out = splice::set_meta(&src, &doc, i, &meta).map_err(|e| Error::Unplaceable {
                path: path.clone(),
                reason: e.0,
            })?;
            Ok(Some(out.0.into_bytes()))
        }),
    };
    locked.owner().disk().replace_in_order(vec![change])?;
    let warnings = locked
        .written(&[scope.file_name()], &format!("renew {id}"))
        .into_iter()
        .collect();
    Ok(Renewed {
        id: id.to_owned(),
        scope,
        expires: new.map(crate::model::fmt_time),
        previous: previous.map(crate::model::fmt_time),
        message: "renewed",
        warnings,
    })
}
