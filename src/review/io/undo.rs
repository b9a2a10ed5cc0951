//! `memdir review undo ID`: what review ID did taken back, from the files
//! alone (`review=ID` in the metadata of the entries and records it
//! touched), all or nothing unless `--partial`; then a journal line `review
//! undo: …` naming the review, so that `review status` shows it undone.

use std::cell::Cell;
use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;

use chrono::{DateTime, Utc};
use serde::Serialize;

use crate::disk::{Change as DiskChange, Dir};
use crate::edit::{self, Vetoes};
use crate::error::{Error, Result};
use crate::markdown::{parse, splice};
use crate::model::{ArchiveKind, Meta, Origin, Scope};
use crate::review::routine;
use crate::store::files::{archive, episodes, stores};
use crate::store::limits::STORE_EDIT_BYTES;
use crate::store::owner::Owner;

/// What an undo did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct UndoReport {
    /// The review undone.
    pub review_id: String,
    /// Facts brought back from archive.md.
    pub restored: Vec<String>,
    /// Facts the review added (lifted, or saved on the reviewer's
    /// proposal) taken out.
    pub removed: Vec<String>,
    /// Renewed facts given their old expiry back.
    pub renewals_undone: Vec<String>,
    /// Entries left as they are because they changed since (with
    /// `--partial`).
    pub left: Vec<String>,
    /// Facts left archived because a person vetoed them (or the same fact
    /// in another form: `edit::fold`), in or after the review: an undo
    /// never brings a vetoed fact back.
    pub vetoed: Vec<StillVetoed>,
    /// Notes.
    pub warnings: Vec<String>,
}

/// A fact an undo left archived because a person vetoed it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct StillVetoed {
    /// The fact left archived.
    pub id: String,
    /// The vetoed fact: `id` itself, or the fact it is in another form.
    pub vetoed: String,
    /// The veto's UTC date (`YYYY-MM-DD`), when its record has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(pattern(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$"))]
    pub vetoed_on: Option<String>,
    /// Why it was not brought back, as a sentence.
    pub why: String,
}

impl StillVetoed {
    /// `id` (of text `text`, archived as `meta`) when it is vetoed or the
    /// same fact as a veto of `vetoes`; `None` when it may come back.
    fn of(id: &str, text: &str, meta: &Meta, vetoes: &Vetoes) -> Option<StillVetoed> {
        let (vetoed, at) = if meta.kind == Some(ArchiveKind::Vetoed) {
            (id.to_owned(), meta.archived)
        } else {
            let v = vetoes.first(text)?;
            (v.id.clone(), v.at)
        };
        let vetoed_on = at.map(|t| t.date_naive().to_string());
        let when = vetoed_on
            .as_ref()
            .map(|d| format!(" on {d}"))
            .unwrap_or_default();
        let why = if vetoed == id {
            format!("a person vetoed it{when}; a person's veto stands")
        } else {
            format!(
                "the same fact as {vetoed}, which a person vetoed{when}; a person's veto stands"
            )
        };
        Some(StillVetoed {
            id: id.to_owned(),
            vetoed,
            vetoed_on,
            why,
        })
    }
}

/// Undoes review `id`: archived facts (merged, expired, conflict,
/// unrecalled, …) back into their stores from archive.md or the part of
/// `archive/` that holds them, lifted facts out of MEMORY.md, renewals
/// back to their old expiry, the kept side of a settled conflict back in
/// conflict, and facts settled as both live and archived back to both; all
/// or nothing unless `partial` when entries changed since. A fact a person
/// vetoed (in or after the review, in any form: `edit::fold`) stays
/// archived with its veto, and the answer names it ([`StillVetoed`]).
pub(crate) fn undo(owner: &Owner, id: &str, partial: bool) -> Result<UndoReport> {
    crate::model::validate_id("review", id)?;
    let locked = owner.lock()?;
    let at = locked.at();
    let now = Utc::now();
    let mut archives = archive::read_all(at)?;
    let records = Records::of(&archives, id);
    let mut loaded = Vec::new();
    for scope in Scope::ALL {
        loaded.push(stores::load(at, scope, true, STORE_EDIT_BYTES)?);
    }
    let mut found = InStores::of(&loaded, &records.copies, id);
    let back = Back::of(records, &mut found, &archives.vetoes());
    if back.is_nothing(&found) {
        return Err(Error::ReviewNotFound { id: id.to_owned() });
    }
    if !found.left.is_empty() && !partial {
        return Err(Error::ReviewChanged {
            id: id.to_owned(),
            entries: found.left,
        });
    }
    let dir = locked.dir();
    let mut changes: Vec<DiskChange<'_>> = Vec::new();
    for mut l in loaded {
        let cur = back.store_text(&l, &found, now)?;
        if cur != l.src {
            let scope = l.scope;
            changes.push(DiskChange {
                dir,
                name: scope.file_name(),
                base: l.base(),
                planned: Some(cur.into_bytes()),
                // The owner's lock is held: a changed file is an editor's
                // save; refuse rather than guess.
                redo: Box::new(move |_| {
                    Err(Error::Locked {
                        path: std::path::PathBuf::from(scope.file_name()),
                        waited_ms: 0,
                    })
                }),
            });
        }
    }
    let mut names: Vec<String> = changes.iter().map(|c| c.name.to_owned()).collect();
    // Then the archive: restored records out of every file that holds one,
    // settled ones unmarked.
    let brought = back.copies_brought(&found);
    for (rel, change) in back.archive_changes(&mut archives, dir, &brought, id) {
        names.push(rel);
        changes.push(change);
    }
    let mut restored: Vec<String> = back.restore.iter().map(|r| r.id.clone()).collect();
    restored.extend(back.twins.iter().map(|r| r.id.clone()));
    restored.extend(brought);
    // The journal says the review was undone (`review status` reads it).
    let summary = format!(
        "review undo: {} brought back, {} taken out, {} renewals undone, {} left",
        restored.len(),
        found.lifted.len(),
        found.renewed.len(),
        found.left.len()
    );
    let line =
        crate::journal::render_line(&now.format("%H:%M").to_string(), None, &summary, Some(id));
    let (held, _) = episodes::read(at)?;
    changes.push(episodes::append_line(
        dir,
        held,
        now.date_naive(),
        line,
        Rc::new(Cell::new(0)),
    ));
    names.push(episodes::EPISODES_FILE.to_owned());
    owner.disk().replace_in_order(changes)?;
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    Ok(UndoReport {
        review_id: id.to_owned(),
        restored,
        removed: found.lifted.into_iter().map(|(_, i)| i).collect(),
        renewals_undone: found.renewed.into_iter().map(|(_, i, _)| i).collect(),
        left: found.left,
        vetoed: back.vetoed,
        warnings: locked
            .written(&names, &format!("undo review {id}"))
            .into_iter()
            .collect(),
    })
}

/// What a review left in the archive, found by its marks.
struct Records {
    /// Copies of one entry the review kept as one: each copy's record.
    copies: Vec<archive::Archived>,
    /// The facts it archived (merged, expired, conflict, …).
    archived: Vec<archive::Archived>,
    /// Records of facts it settled as both live and archived.
    settled: Vec<archive::Archived>,
}

impl Records {
    /// The records of review `id` in `archives`.
    fn of(archives: &archive::Archives, id: &str) -> Records {
        let all = archives.records();
        let is_copy = |r: &archive::Archived| {
            r.meta.review.as_deref() == Some(id)
                && r.meta.settled.as_deref() == Some(id)
                && r.meta.kind == Some(ArchiveKind::Merged)
        };
        // (Each copy has a record of the same id: read from the file, not
        // deduplicated by id; from the first file that holds those of an id,
        // as a crash may leave a record in two files.)
        let mut copies: Vec<archive::Archived> = Vec::new();
        for f in &archives.files {
            let here: Vec<archive::Archived> = archive::records(&f.src)
                .into_iter()
                .filter(|r| is_copy(r) && !copies.iter().any(|c| c.id == r.id))
                .collect();
            copies.extend(here);
        }
        let archived: Vec<archive::Archived> = all
            .iter()
            .filter(|r| !is_copy(r))
            .filter(|r| r.meta.review.as_deref() == Some(id))
            .filter(|r| {
                matches!(
                    r.meta.kind,
                    Some(
                        ArchiveKind::Merged
                            | ArchiveKind::Expired
                            | ArchiveKind::Conflict
                            | ArchiveKind::Reviewed
                            | ArchiveKind::Superseded
                            | ArchiveKind::Unrecalled
                    )
                )
            })
            .cloned()
            .collect();
        let settled: Vec<archive::Archived> = all
            .into_iter()
            .filter(|r| !is_copy(r))
            .filter(|r| r.meta.settled.as_deref() == Some(id))
            .collect();
        Records {
            copies,
            archived,
            settled,
        }
    }
}

/// What a review left in the stores, found by its marks.
#[derive(Default)]
struct InStores {
    /// What it added (lifted, or saved on the reviewer's proposal).
    lifted: Vec<(Scope, String)>,
    /// What it renewed, with the expiry before.
    renewed: Vec<(Scope, String, DateTime<Utc>)>,
    /// The kept side of a conflict it settled, with the conflict.
    resolved: Vec<(Scope, String, String)>,
    /// Entries left as they are, and why.
    left: Vec<String>,
    /// Every live id.
    live_ids: Vec<String>,
    /// The copy kept of each copied entry: whether it is still as the
    /// review left it.
    kept: BTreeMap<String, bool>,
}

impl InStores {
    /// What review `id` left in the stores `loaded`, the ids of `copies`
    /// (kept as one) among them.
    fn of(loaded: &[stores::Loaded], copies: &[archive::Archived], id: &str) -> InStores {
        let mut out = InStores::default();
        let ran = routine::review_time(id);
        let edited_after = |m: &Meta| m.updated.is_some_and(|u| ran.is_some_and(|r| u > r));
        let copied: BTreeSet<&str> = copies.iter().map(|r| r.id.as_str()).collect();
        for l in loaded {
            for e in &l.doc.entries {
                out.live_ids.push(e.id.clone());
                let m = e.metadata(&l.src);
                if copied.contains(e.id.as_str()) && !out.kept.contains_key(&e.id) {
                    let as_left = m.review.as_deref() == Some(id) && !edited_after(&m);
                    if !as_left {
                        out.left.push(format!("{} (edited after the review)", e.id));
                    }
                    out.kept.insert(e.id.clone(), as_left);
                    continue;
                }
                if m.review.as_deref() != Some(id) {
                    continue;
                }
                let edited = format!("{} (edited after the review)", e.id);
                if let Some(old) = m.renewed_from {
                    // Renewed: the renewal set `updated` to the review's time.
                    if edited_after(&m) {
                        out.left.push(edited);
                    } else {
                        out.renewed.push((l.scope, e.id.clone(), old));
                    }
                } else if let Some(c) = m.resolved.clone() {
                    // The kept side of a conflict the review settled.
                    if edited_after(&m) {
                        out.left.push(edited);
                    } else {
                        out.resolved.push((l.scope, e.id.clone(), c));
                    }
                } else if m.lifted.is_some() || (m.created.is_some() && m.created == ran) {
                    // Added by the review: lifted, or saved on the reviewer's
                    // proposal (created at the review's time).
                    if m.updated.is_some() {
                        out.left.push(edited);
                    } else {
                        out.lifted.push((l.scope, e.id.clone()));
                    }
                }
            }
        }
        out
    }
}

/// What an undo brings back from the archive, and what a veto keeps there.
struct Back {
    /// Archived facts restored to their stores.
    restore: Vec<archive::Archived>,
    /// Settled facts whose live copy left, back beside their record.
    twins: Vec<archive::Archived>,
    /// Copies of one entry kept as one (brought back unless vetoed or
    /// edited: [`InStores::kept`]).
    copies: Vec<archive::Archived>,
    /// Records whose `settled` mark the undo takes off.
    settled: Vec<archive::Archived>,
    /// Facts left archived because a person vetoed them.
    vetoed: Vec<StillVetoed>,
}

impl Back {
    /// What comes back of `records`, given what the stores hold now
    /// (`found`; a vetoed copy is marked not to come back in its `kept`).
    fn of(records: Records, found: &mut InStores, vetoes: &Vetoes) -> Back {
        let mut vetoed: Vec<StillVetoed> = Vec::new();
        let mut restore = Vec::new();
        for r in records.archived {
            if found.live_ids.contains(&r.id) {
                found.left.push(format!("{} (live again already)", r.id));
            } else if let Some(v) = StillVetoed::of(&r.id, &r.text, &r.meta, vetoes) {
                vetoed.push(v);
            } else {
                restore.push(r);
            }
        }
        // A settled fact whose live copy left comes back beside its record,
        // unless a person vetoed it.
        let mut twins: Vec<archive::Archived> = Vec::new();
        for r in records
            .settled
            .iter()
            .filter(|r| !found.live_ids.contains(&r.id))
        {
            match StillVetoed::of(&r.id, &r.text, &r.meta, vetoes) {
                Some(v) => vetoed.push(v),
                None => twins.push(r.clone()),
            }
        }
        // Copies of a vetoed fact stay archived.
        for r in &records.copies {
            if let Some(v) = StillVetoed::of(&r.id, &r.text, &r.meta, vetoes)
                && found.kept.insert(r.id.clone(), false) != Some(false)
            {
                vetoed.push(v);
            }
        }
        Back {
            restore,
            twins,
            copies: records.copies,
            settled: records.settled,
            vetoed,
        }
    }

    /// Whether the review left nothing to take back (no such review).
    fn is_nothing(&self, found: &InStores) -> bool {
        self.restore.is_empty()
            && self.vetoed.is_empty()
            && self.copies.is_empty()
            && found.lifted.is_empty()
            && found.renewed.is_empty()
            && found.resolved.is_empty()
            && self.settled.is_empty()
            && found.left.is_empty()
    }

    /// The ids of the copies brought back (every copy's record of them).
    fn copies_brought(&self, found: &InStores) -> Vec<String> {
        self.copies
            .iter()
            .filter(|r| found.kept.get(&r.id) != Some(&false))
            .map(|r| r.id.clone())
            .collect()
    }

    /// The store `l`'s text with the review taken back: what it added
    /// first, then what it archived, the copies, the renewals and the
    /// settled conflicts.
    fn store_text(
        &self,
        l: &stores::Loaded,
        found: &InStores,
        now: DateTime<Utc>,
    ) -> Result<String> {
        let scope = l.scope;
        let unplaceable = |e: splice::Unplaceable| Error::Unplaceable {
            path: l.path.clone(),
            reason: e.0,
        };
        let mut cur = l.src.clone();
        for (_, lid) in found.lifted.iter().filter(|(s, _)| *s == scope) {
            let doc = parse(scope, &cur);
            if let Some(i) = doc.entries.iter().position(|e| &e.id == lid) {
                cur = splice::remove(&cur, &doc, i).map_err(unplaceable)?.0;
            }
        }
        cur = self.restored(scope, cur, now, &unplaceable)?;
        cur = self.copies_back(scope, cur, found, &unplaceable)?;
        for (_, rid, old) in found.renewed.iter().filter(|(s, _, _)| *s == scope) {
            cur = set_meta_of(scope, cur, rid, &unplaceable, |m| {
                m.expires = Some(*old);
                m.renewed_from = None;
                m.review = None;
                m.updated = Some(now);
            })?;
        }
        for (_, rid, conflict) in found.resolved.iter().filter(|(s, _, _)| *s == scope) {
            cur = set_meta_of(scope, cur, rid, &unplaceable, |m| {
                m.conflict = Some(conflict.clone());
                m.resolved = None;
                m.review = None;
            })?;
        }
        Ok(cur)
    }

    /// `cur` with the restored facts and the twins of `scope` appended,
    /// back as they were before the review, even past the budget (the
    /// review may have archived them because the store was over).
    fn restored(
        &self,
        scope: Scope,
        mut cur: String,
        now: DateTime<Utc>,
        unplaceable: &dyn Fn(splice::Unplaceable) -> Error,
    ) -> Result<String> {
        for r in self
            .restore
            .iter()
            .chain(&self.twins)
            .filter(|r| store_of(r) == scope)
        {
            let mut m = live_meta(&r.meta);
            m.updated = Some(now);
            let doc = parse(scope, &cur);
            if let Some(e) = edit::conflicted(scope.file_name(), &doc.conflicts) {
                return Err(e);
            }
            let rid = crate::model::entry_id(scope.name(), &r.text);
            if !doc.entries.iter().any(|e| e.id == rid) {
                cur = splice::append(&cur, &doc, (&r.text, &rid), Some(&m.render()))
                    .map_err(unplaceable)?
                    .0;
            }
        }
        Ok(cur)
    }

    /// `cur` with the copies of `scope` kept as one back: the kept copy
    /// gets the first copy's metadata back, the others come back after it,
    /// as they were.
    fn copies_back(
        &self,
        scope: Scope,
        mut cur: String,
        found: &InStores,
        unplaceable: &dyn Fn(splice::Unplaceable) -> Error,
    ) -> Result<String> {
        let mut by_id: BTreeMap<&str, Vec<&archive::Archived>> = BTreeMap::new();
        for r in self.copies.iter().filter(|r| store_of(r) == scope) {
            by_id.entry(r.id.as_str()).or_default().push(r);
        }
        for (cid, group) in by_id {
            if found.kept.get(cid) == Some(&false) {
                continue;
            }
            let doc = parse(scope, &cur);
            if let Some(e) = edit::conflicted(scope.file_name(), &doc.conflicts) {
                return Err(e);
            }
            let mut rest = group.as_slice();
            if let Some(i) = doc.entries.iter().position(|e| e.id == cid)
                && let Some((first, others)) = group.split_first()
            {
                cur = splice::set_meta(&cur, &doc, i, &live_meta(&first.meta).render())
                    .map_err(unplaceable)?
                    .0;
                rest = others;
            }
            for r in rest {
                let doc = parse(scope, &cur);
                cur = splice::append(
                    &cur,
                    &doc,
                    (&r.text, cid),
                    Some(&live_meta(&r.meta).render()),
                )
                .map_err(unplaceable)?
                .0;
            }
        }
        Ok(cur)
    }

    /// The archive's changes: the records brought back (restored, and the
    /// copies `brought`) out of every file that holds one, the settled
    /// ones' `settled=ID` taken off; each with its file's path.
    fn archive_changes<'a>(
        &self,
        archives: &'a mut archive::Archives,
        dir: &'a Dir,
        brought: &[String],
        id: &str,
    ) -> Vec<(String, DiskChange<'a>)> {
        let mut out: BTreeSet<String> = self.restore.iter().map(|r| r.id.clone()).collect();
        out.extend(brought.iter().cloned());
        let unmark: BTreeSet<String> = self.settled.iter().map(|r| r.id.clone()).collect();
        let touched = |f: &archive::ArchiveFile| {
            archive::records(&f.src).iter().any(|r| {
                (out.contains(&r.id) && r.meta.review.is_some())
                    || (unmark.contains(&r.id) && r.meta.settled.is_some())
            })
        };
        let (out2, unmark2, review) = (out.clone(), unmark.clone(), id.to_owned());
        archives.changes(dir, touched, move |src| {
            let unplaceable = |reason| Error::Unplaceable {
                path: std::path::PathBuf::from(archive::ARCHIVE_FILE),
                reason,
            };
            let mut cur = src.to_owned();
            if let Some(next) = archive::without(&cur, &out2).map_err(unplaceable)? {
                cur = next;
            }
            if let Some(next) = archive::with_meta(&cur, &unmark2, |m| {
                if m.settled.as_deref() == Some(review.as_str()) {
                    m.settled = None;
                }
            })
            .map_err(unplaceable)?
            {
                cur = next;
            }
            Ok((cur != src).then_some(cur))
        })
    }
}

/// The store an archive record's fact lives in.
fn store_of(r: &archive::Archived) -> Scope {
    r.meta
        .scope
        .and_then(Origin::store)
        .unwrap_or(Scope::Memory)
}

/// `cur` with the metadata of entry `id` of `scope` changed by `change`
/// (unchanged when no entry has the id).
fn set_meta_of(
    scope: Scope,
    cur: String,
    id: &str,
    unplaceable: &dyn Fn(splice::Unplaceable) -> Error,
    change: impl FnOnce(&mut Meta),
) -> Result<String> {
    let doc = parse(scope, &cur);
    let Some(i) = doc.entries.iter().position(|e| e.id == id) else {
        return Ok(cur);
    };
    let mut m = doc.entries[i].metadata(&cur);
    change(&mut m);
    Ok(splice::set_meta(&cur, &doc, i, &m.render())
        .map_err(unplaceable)?
        .0)
}

/// A record's metadata as the live fact's: the archive fields and the
/// review's marks taken off.
pub(super) fn live_meta(record: &Meta) -> Meta {
    let mut m = record.clone();
    m.archived_by = None;
    m.reason = None;
    m.superseded_by = None;
    m.scope = None;
    m.archived = None;
    m.kind = None;
    m.date = None;
    m.review = None;
    m.settled = None;
    m
}
