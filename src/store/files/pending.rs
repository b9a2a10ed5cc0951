//! `PENDING.md`: an owner's writes that wait for a person (`writes:
//! review`). Each operation of a waiting write is an entry in the stores'
//! form (a top-level list item, its metadata comment after the text): the
//! text it would write (for a removal, what names the entry), and in the
//! comment its id (`id=pnd_…`), the write it belongs to when the write has
//! more operations (`batch=`, the first one's id), the operation (`op=`),
//! its store (`scope=`), what a replace or a removal names (`target=`), the
//! expiry asked for (`expiry=`), the fact it supersedes, who asked and in
//! which run (`agent=`, `run=`, `task=`), when (`created=`), where it came
//! from (`source=`) and where it stands (`status=pending` or `rejected`,
//! with `decided_by=`, `decided_at=` and the `reason=` of a rejection). An
//! approved write leaves the file (the journal, episodes.md, records it);
//! a rejected one stays, so that its text is refused as a vetoed one is.
//! See docs/FORMAT.md ("Pending writes").
//!
//! The transforms here are pure (text in, text out, through
//! `markdown::splice`, so a person's other lines stay as they are); the
//! read goes through `disk`, relative to the owner's open folder. git
//! merges the file entry by entry (`merge::Kind::Pending`).

use std::path::Path;

use chrono::{DateTime, Utc};
use serde::Serialize;

use crate::disk::{Change, Dir, Held};
use crate::edit::{Op, fold};
use crate::error::{Error, Result};
use crate::markdown::splice::normalize_text;
use crate::markdown::{parse_without_ids, splice};
use crate::model::{
    Meta, Origin, PENDING_ID_SCOPE, Scope, entry_id, fmt_time, is_pending_id, parse_time,
    pending_id,
};
use crate::store::limits::PENDING_BYTES;
use crate::store::owner::At;

/// The file of the writes that wait, in the owner's folder.
pub const PENDING_FILE: &str = "PENDING.md";
/// Most writes one agent may have waiting for a person.
pub const MAX_PENDING_WRITES: usize = 50;
/// The heading a new PENDING.md starts with.
const HEADING: &str = "# Pending\n\nWrites that wait for a person's review \
(`memdir --person ID pending list`). memdir keeps this file.\n\n";

/// Where a write that waited for review stands (serialised `pending`,
/// `approved`, `rejected`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum PendingStatus {
    /// Waits for a person.
    Pending,
    /// A person approved it: written as a direct write would have been
    /// (it leaves PENDING.md).
    Approved,
    /// A person rejected it: nothing written, and its text is refused as
    /// a vetoed one is.
    Rejected,
}

impl PendingStatus {
    /// Its word in the metadata comment and the answers.
    pub const fn as_str(self) -> &'static str {
        match self {
            PendingStatus::Pending => "pending",
            PendingStatus::Approved => "approved",
            PendingStatus::Rejected => "rejected",
        }
    }

    fn parse(s: &str) -> Option<PendingStatus> {
        match s {
            "pending" => Some(PendingStatus::Pending),
            "approved" => Some(PendingStatus::Approved),
            "rejected" => Some(PendingStatus::Rejected),
            _ => None,
        }
    }
}

impl std::fmt::Display for PendingStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Which write of an agent's waits (serialised `write`, `batch`, `import`,
/// `memory_tool`, `review`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum PendingSource {
    /// One write: `add`, `replace`, a server's save or edit.
    Write,
    /// A batch, all or none.
    Batch,
    /// `import hermes`: one file's facts.
    Import,
    /// Claude's memory tool: one edit of a store.
    MemoryTool,
    /// The daily review's lift of a day line marked `fact:`.
    Review,
}

impl PendingSource {
    /// Its word in the metadata comment and the answers.
    pub const fn as_str(self) -> &'static str {
        match self {
            PendingSource::Write => "write",
            PendingSource::Batch => "batch",
            PendingSource::Import => "import",
            PendingSource::MemoryTool => "memory_tool",
            PendingSource::Review => "review",
        }
    }

    fn parse(s: &str) -> Option<PendingSource> {
        match s {
            "write" => Some(PendingSource::Write),
            "batch" => Some(PendingSource::Batch),
            "import" => Some(PendingSource::Import),
            "memory_tool" => Some(PendingSource::MemoryTool),
            "review" => Some(PendingSource::Review),
            _ => None,
        }
    }
}

/// One operation of a waiting write, as PENDING.md holds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Part {
    /// Its index among the file's entries.
    pub(crate) index: usize,
    /// Its own id (`id=`).
    pub(crate) id: String,
    /// The id of the write it belongs to (`batch=`, else its own).
    pub(crate) group: String,
    /// The operation it stands for.
    pub(crate) op: Op,
    /// For a removal: the archive reason its entry is archived with when
    /// the write is approved (`archive=`; none: removed).
    pub(crate) archive: Option<String>,
    /// Its metadata comment, as read.
    pub(crate) meta: Meta,
    /// Where it stands.
    pub(crate) status: PendingStatus,
    /// Which write it came from.
    pub(crate) source: PendingSource,
}

impl Part {
    /// A value of the comment's other keys.
    pub(crate) fn other(&self, key: &str) -> Option<&str> {
        other(&self.meta, key)
    }

    /// When a person decided on it (`decided_at=`).
    pub(crate) fn decided_at(&self) -> Option<DateTime<Utc>> {
        self.other("decided_at").and_then(parse_time)
    }

    /// The text this operation would make live (an add's, a replace's new
    /// text); none for a removal.
    pub(crate) fn new_text(&self) -> Option<&str> {
        match &self.op {
            Op::Add { text, .. } => Some(text),
            Op::Replace { new, .. } => Some(new),
            Op::Remove { .. } => None,
        }
    }
}

fn other<'m>(meta: &'m Meta, key: &str) -> Option<&'m str> {
    meta.other
        .iter()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.as_str())
}

/// Sets `key` among the comment's other keys (replacing an earlier value).
pub(crate) fn set_other(meta: &mut Meta, key: &str, value: &str) {
    meta.other.retain(|(k, _)| k != key);
    meta.other.push((key.to_owned(), value.to_owned()));
}

/// The operation an entry of `text` with `meta` stands for; `None` when its
/// comment names no operation memdir knows (a person's note, say).
fn op_of(text: &str, meta: &Meta) -> Option<Op> {
    let scope = meta.scope.and_then(Origin::store);
    let target = other(meta, "target").map_or_else(|| text.to_owned(), str::to_owned);
    Some(match other(meta, "op")? {
        "add" => Op::Add {
            text: text.to_owned(),
            scope: scope.unwrap_or(Scope::Memory),
            expires: other(meta, "expiry").map(str::to_owned),
            supersedes: meta.supersedes.clone(),
        },
        "replace" => Op::Replace {
            old: target,
            new: text.to_owned(),
            scope,
        },
        "remove" => Op::Remove { old: target, scope },
        _ => return None,
    })
}

/// The file's parse's entries as parts (entries that stand for no
/// operation are left out), in file order.
pub(crate) fn parts(src: &str) -> Vec<Part> {
    let doc = parse_without_ids(src);
    doc.entries
        .iter()
        .enumerate()
        .filter(|(_, e)| !doc.conflicts.iter().any(|c| c.overlaps(&e.item)))
        .filter_map(|(index, e)| {
            let meta = e.metadata(src);
            let op = op_of(&e.text, &meta)?;
            let id = match &meta.id {
                Some(id) if is_pending_id(id) => id.clone(),
                _ => pending_id(&e.text),
            };
            let group = other(&meta, "batch")
                .filter(|b| is_pending_id(b))
                .map_or_else(|| id.clone(), str::to_owned);
            let status = other(&meta, "status")
                .and_then(PendingStatus::parse)
                .unwrap_or(PendingStatus::Pending);
            let source = other(&meta, "source")
                .and_then(PendingSource::parse)
                .unwrap_or(PendingSource::Write);
            let archive = other(&meta, "archive").map(str::to_owned);
            Some(Part {
                index,
                id,
                group,
                op,
                archive,
                meta,
                status,
                source,
            })
        })
        .collect()
}

/// One operation to put in PENDING.md: the operation, and for a removal
/// the reason its entry is archived with once approved.
#[derive(Debug, Clone)]
pub(crate) struct Staging<'o> {
    /// The operation.
    pub(crate) op: &'o Op,
    /// A removal's archive reason, if it archives.
    pub(crate) archive: Option<String>,
}

/// Who asks for a waiting write, and from where: what every entry of it
/// records.
#[derive(Debug, Clone)]
pub(crate) struct Asker {
    /// The agent.
    pub(crate) agent: String,
    /// The run it writes in, if any: its id and task.
    pub(crate) run: Option<(String, Option<String>)>,
    /// Which write it is.
    pub(crate) source: PendingSource,
    /// When.
    pub(crate) now: DateTime<Utc>,
}

/// The id a new waiting write of `ops` gets: over the agent, the time and
/// the operations, so that two writes never share one.
pub(crate) fn new_id(asker: &Asker, ops: &[Staging<'_>]) -> String {
    let mut seed = format!(
        "{}\n{}",
        asker.agent,
        asker.now.timestamp_nanos_opt().unwrap_or_default()
    );
    for s in ops {
        seed.push('\n');
        seed.push_str(&serde_json::to_string(s.op).unwrap_or_default());
    }
    pending_id(&seed)
}

/// The entry text and metadata of operation `n` (from 0) of the waiting
/// write `group`.
fn entry(group: &str, n: usize, s: &Staging<'_>, asker: &Asker) -> (String, Meta) {
    let (text, op, scope, target) = match s.op {
        Op::Add { text, scope, .. } => (text.as_str(), "add", Some(*scope), None),
        Op::Replace { old, new, scope } => (new.as_str(), "replace", *scope, Some(old.as_str())),
        Op::Remove { old, scope } => (old.as_str(), "remove", *scope, Some(old.as_str())),
    };
    let text = normalize_text(text);
    let id = match n {
        0 => group.to_owned(),
        _ => pending_id(&format!("{group}\n{n}")),
    };
    let mut meta = Meta {
        id: Some(id),
        scope: scope.map(Origin::from),
        created: Some(asker.now),
        agent: Some(asker.agent.clone()),
        ..Meta::default()
    };
    if let Some((run, task)) = &asker.run {
        meta.run = Some(run.clone());
        meta.task = task.clone();
    }
    if let Op::Add {
        expires,
        supersedes,
        ..
    } = s.op
    {
        meta.supersedes = supersedes.clone();
        if let Some(e) = expires {
            set_other(&mut meta, "expiry", e);
        }
    }
    set_other(&mut meta, "op", op);
    if let Some(t) = target.filter(|t| *t != text) {
        set_other(&mut meta, "target", t);
    }
    if n > 0 {
        set_other(&mut meta, "batch", group);
    }
    if let Some(reason) = &s.archive {
        set_other(&mut meta, "archive", reason);
    }
    set_other(&mut meta, "source", asker.source.as_str());
    set_other(&mut meta, "status", PendingStatus::Pending.as_str());
    (text, meta)
}

fn unplaceable(path: &Path) -> impl Fn(splice::Unplaceable) -> Error + '_ {
    move |u| Error::Unplaceable {
        path: path.to_owned(),
        reason: u.0,
    }
}

/// `src` with the waiting write `group` of `ops` appended (a new file
/// starts with its heading).
pub(crate) fn append(
    src: &str,
    path: &Path,
    group: &str,
    ops: &[Staging<'_>],
    asker: &Asker,
) -> Result<String> {
    let mut out = match src.trim().is_empty() {
        true => HEADING.to_owned(),
        false => src.to_owned(),
    };
    for (n, s) in ops.iter().enumerate() {
        let (text, meta) = entry(group, n, s, asker);
        let doc = parse_without_ids(&out);
        let id = entry_id(PENDING_ID_SCOPE, &text);
        out = splice::append(&out, &doc, (&text, &id), Some(&meta.render()))
            .map(|(next, _)| next)
            .map_err(unplaceable(path))?;
    }
    Ok(out)
}

/// `src` without the entries of the waiting write `group` (`None`: it has
/// none), taken out last first so that each index still holds.
pub(crate) fn remove(src: &str, path: &Path, group: &str) -> Result<Option<String>> {
    let mut indexes: Vec<usize> = parts(src)
        .into_iter()
        .filter(|p| p.group == group)
        .map(|p| p.index)
        .collect();
    if indexes.is_empty() {
        return Ok(None);
    }
    indexes.sort_unstable();
    let mut out = src.to_owned();
    for i in indexes.into_iter().rev() {
        let doc = parse_without_ids(&out);
        out = splice::remove(&out, &doc, i)
            .map(|(next, _)| next)
            .map_err(unplaceable(path))?;
    }
    Ok(Some(out))
}

/// `src` with the entries of the waiting write `group` marked rejected by
/// `person` at `now` for `reason` (`None`: it has none).
pub(crate) fn reject(
    src: &str,
    path: &Path,
    group: &str,
    person: &str,
    reason: &str,
    now: DateTime<Utc>,
) -> Result<Option<String>> {
    let mine: Vec<Part> = parts(src)
        .into_iter()
        .filter(|p| p.group == group)
        .collect();
    if mine.is_empty() {
        return Ok(None);
    }
    let mut out = src.to_owned();
    for p in mine {
        let mut meta = p.meta.clone();
        meta.id = Some(p.id.clone());
        meta.reason = Some(reason.to_owned());
        set_other(&mut meta, "status", PendingStatus::Rejected.as_str());
        set_other(&mut meta, "decided_by", &format!("person:{person}"));
        set_other(&mut meta, "decided_at", &fmt_time(now));
        let doc = parse_without_ids(&out);
        out = splice::set_meta(&out, &doc, p.index, &meta.render())
            .map(|(next, _)| next)
            .map_err(unplaceable(path))?;
    }
    Ok(Some(out))
}

/// PENDING.md as read: the file (to write it back) and its text (empty
/// when it or the folder is missing).
pub(crate) fn read(at: At<'_>) -> Result<(Option<Held>, String)> {
    super::read_text(at, PENDING_FILE, PENDING_BYTES)
}

/// The change that rewrites PENDING.md in `dir` (read as `held`) with
/// `edit`.
pub(crate) fn rewrite<'a>(
    dir: &'a Dir,
    held: Option<Held>,
    edit: impl FnMut(&str) -> Result<Option<String>> + 'a,
) -> Change<'a> {
    super::rewrite(dir, PENDING_FILE, PENDING_BYTES, held, edit)
}

/// A text a person rejected in review, as the write path refuses it: the
/// rejected write's id and when, looked up by the veto's [`fold`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Rejections {
    by_fold: std::collections::BTreeMap<String, (String, Option<DateTime<Utc>>)>,
}

impl Rejections {
    /// The rejected texts of the parts of `src`.
    pub(crate) fn of(src: &str) -> Rejections {
        let mut out = Rejections::default();
        if !src.contains("rejected") {
            return out;
        }
        for p in parts(src) {
            if p.status != PendingStatus::Rejected {
                continue;
            }
            if let Some(t) = p.new_text() {
                let decided = p.decided_at();
                out.by_fold
                    .entry(fold(t))
                    .or_insert((p.group.clone(), decided));
            }
        }
        out
    }

    /// The refusal an agent's save of `text` gets, when a person rejected
    /// a text that is it (whose fold is its fold).
    pub(crate) fn refusal(&self, text: &str) -> Option<Error> {
        if self.by_fold.is_empty() {
            return None;
        }
        self.by_fold
            .get(&fold(text))
            .map(|(id, at)| Error::PendingRejected {
                id: id.clone(),
                rejected_on: at.map(|t| t.date_naive().to_string()),
            })
    }
}

#[cfg(test)]
mod tests;
