//! The root's learnings: facts every agent needs, proposed by agents and
//! approved by persons. `learnings/proposals.md` holds the proposals that
//! wait (`status=pending`) and those a person turned down (`rejected`) or
//! took back after approving them (`retired`); `LEARNINGS.md`, at the root,
//! holds the approved ones. Both are markdown entries in the stores' form
//! (a top-level list item, its metadata comment after the text). See
//! docs/FORMAT.md ("Learnings").
//!
//! The transforms here are pure (text in, text out, through
//! `markdown::splice`, so a person's other lines stay as they are); the
//! reads go through `disk`, relative to the root's open folder.

use std::path::Path;

use chrono::{DateTime, Utc};

use crate::disk::{Dir, Disk, Held};
use crate::error::{Error, Result};
use crate::markdown::{Document, parse_without_ids, splice};
use crate::model::{Meta, entry_id, parse_time};
use crate::store::limits::STORE_EDIT_BYTES;

/// The approved learnings, at the memory root.
pub const LEARNINGS_FILE: &str = "LEARNINGS.md";
/// The folder of the proposals, at the memory root.
pub const LEARNINGS_DIR: &str = "learnings";
/// The proposals, in [`LEARNINGS_DIR`].
pub const PROPOSALS_FILE: &str = "proposals.md";
/// The lock every write of the learnings takes, in the root's `.memdir/`.
pub(crate) const LEARNINGS_LOCK: &str = "learnings.lock";
/// LEARNINGS.md's budget when `budgets.learnings` sets none.
pub const DEFAULT_LEARNINGS_BUDGET: usize = 2_200;
/// What a learning's id is computed over, beside its folded text (the
/// merge driver pairs the entries of both files by it too).
const ID_SCOPE: &str = crate::model::LEARNING_ID_SCOPE;

/// Where a learning stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum LearningStatus {
    /// Waits for a person.
    Pending,
    /// In LEARNINGS.md: every agent's snapshot shows it.
    Approved,
    /// A person turned it down.
    Rejected,
    /// A person took it back after approving it.
    Retired,
}

impl LearningStatus {
    /// Its word in the metadata comment and the answers.
    pub fn name(self) -> &'static str {
        match self {
            LearningStatus::Pending => "pending",
            LearningStatus::Approved => "approved",
            LearningStatus::Rejected => "rejected",
            LearningStatus::Retired => "retired",
        }
    }

    fn parse(s: &str) -> Option<LearningStatus> {
        match s {
            "pending" => Some(LearningStatus::Pending),
            "approved" => Some(LearningStatus::Approved),
            "rejected" => Some(LearningStatus::Rejected),
            "retired" => Some(LearningStatus::Retired),
            _ => None,
        }
    }
}

/// The id of a learning's text: `mem_` and 12 hex digits, as a fact's.
pub(crate) fn learning_id(text: &str) -> String {
    entry_id(ID_SCOPE, text)
}

/// One entry of either file, as read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Item {
    /// Its index among the file's entries.
    pub(crate) index: usize,
    /// Its id: `id=` of its comment (a proposal keeps the id it was
    /// proposed with, even when a person edits its text), else over its text.
    pub(crate) id: String,
    /// Its text.
    pub(crate) text: String,
    /// Its metadata.
    pub(crate) meta: Meta,
    /// Its status (`approved` in LEARNINGS.md; a proposal without a
    /// readable one waits).
    pub(crate) status: LearningStatus,
}

impl Item {
    /// A value of the comment this version keeps among the other keys.
    pub(crate) fn other(&self, key: &str) -> Option<&str> {
        self.meta
            .other
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// When a person decided on it (`decided_at=`).
    pub(crate) fn decided_at(&self) -> Option<DateTime<Utc>> {
        self.other("decided_at").and_then(parse_time)
    }
}

/// A file's parse and its entries as items; `approved` for LEARNINGS.md.
pub(crate) fn items(src: &str, approved: bool) -> (Document, Vec<Item>) {
    let doc = parse_without_ids(src);
    let items = doc
        .entries
        .iter()
        .enumerate()
        .map(|(index, e)| {
            let meta = e.metadata(src);
            let status = if approved {
                LearningStatus::Approved
            } else {
                meta.other
                    .iter()
                    .find(|(k, _)| k == "status")
                    .and_then(|(_, v)| LearningStatus::parse(v))
                    .unwrap_or(LearningStatus::Pending)
            };
            let id = match &meta.id {
                Some(id) if !approved && crate::model::is_entry_id(id) => id.clone(),
                _ => learning_id(&e.text),
            };
            Item {
                index,
                id,
                text: e.text.clone(),
                meta,
                status,
            }
        })
        .collect();
    (doc, items)
}

/// Sets `key` among the comment's other keys (replacing an earlier value).
pub(crate) fn set_other(meta: &mut Meta, key: &str, value: &str) {
    meta.other.retain(|(k, _)| k != key);
    meta.other.push((key.to_owned(), value.to_owned()));
}

fn unplaceable(path: &Path) -> impl FnOnce(splice::Unplaceable) -> Error + '_ {
    move |u| Error::Unplaceable {
        path: path.to_owned(),
        reason: u.0,
    }
}

/// `src` with a new entry of `text` and `meta` at its end.
pub(crate) fn append(src: &str, path: &Path, text: &str, meta: &Meta) -> Result<String> {
    let doc = parse_without_ids(src);
    let id = learning_id(text);
    splice::append(src, &doc, (text, &id), Some(&meta.render()))
        .map(|(out, _)| out)
        .map_err(unplaceable(path))
}

/// `src` without the entry of id `id` (`None`: no such entry).
pub(crate) fn remove(src: &str, path: &Path, id: &str, approved: bool) -> Result<Option<String>> {
    let (doc, items) = items(src, approved);
    let Some(item) = items.iter().find(|i| i.id == id) else {
        return Ok(None);
    };
    splice::remove(src, &doc, item.index)
        .map(|(out, _)| Some(out))
        .map_err(unplaceable(path))
}

/// `src` with the comment of the proposal `id` set to `meta` (`None`: no
/// such proposal).
pub(crate) fn set_meta(src: &str, path: &Path, id: &str, meta: &Meta) -> Result<Option<String>> {
    let (doc, items) = items(src, false);
    let Some(item) = items.iter().find(|i| i.id == id) else {
        return Ok(None);
    };
    splice::set_meta(src, &doc, item.index, &meta.render())
        .map(|(out, _)| Some(out))
        .map_err(unplaceable(path))
}

/// LEARNINGS.md's budget: `budgets.learnings` of the root's settings,
/// clamped to 500–20,000 like a store's, else the default.
pub(crate) fn budget(settings: &crate::model::Settings) -> usize {
    match settings.budgets.learnings {
        Some(b) => crate::edit::Budget::clamp(b, crate::edit::BudgetSource::RootConfig).limit,
        None => DEFAULT_LEARNINGS_BUDGET,
    }
}

/// The proposals folder, when it exists.
pub(crate) fn proposals_dir(disk: &Disk, root: &Dir) -> Result<Option<Dir>> {
    disk.open_dir(root, LEARNINGS_DIR)
}

/// Reads one of the two files (held, for an editor-safe replace).
pub(crate) fn read(disk: &Disk, dir: &Dir, name: &str) -> Result<Option<Held>> {
    disk.read(dir, name, STORE_EDIT_BYTES)
}

/// Decodes what [`read`] gave ("" when there is no file).
pub(crate) fn text_of(dir: &Dir, name: &str, held: Option<&Held>) -> Result<String> {
    match held {
        Some(h) => crate::disk::decode(&dir.join(name), h.bytes.clone()),
        None => Ok(String::new()),
    }
}

/// An approved learning as the snapshot and recall read it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Approved {
    /// Its id.
    pub(crate) id: String,
    /// Its text.
    pub(crate) text: String,
    /// When it was approved (`created=` of its comment), if recorded.
    pub(crate) created: Option<DateTime<Utc>>,
}

/// The approved learnings of the root at `root` (none without a
/// LEARNINGS.md), as the snapshot and recall read them, in file order,
/// entries between git conflict markers left out.
pub(crate) fn approved(disk: &Disk, root: &Dir) -> Result<Vec<Approved>> {
    let Some(text) = disk.read_text(root, LEARNINGS_FILE, STORE_EDIT_BYTES)? else {
        return Ok(Vec::new());
    };
    let (doc, items) = items(&text, true);
    Ok(items
        .into_iter()
        .filter(|i| {
            let e = &doc.entries[i.index];
            !doc.conflicts.iter().any(|c| c.overlaps(&e.item))
        })
        .map(|i| Approved {
            id: i.id,
            text: i.text,
            created: i.meta.created,
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn meta(status: &str) -> Meta {
        let mut m = Meta {
            agent: Some("agt_a".into()),
            ..Meta::default()
        };
        set_other(&mut m, "status", status);
        m
    }

    #[test]
    fn an_appended_proposal_reads_back_with_its_status_and_id() {
        let p = Path::new("proposals.md");
        let mut m = meta("pending");
        m.id = Some(learning_id("Deploys need the VPN"));
        let out = append("", p, "Deploys need the VPN", &m).unwrap();
        let (_, items) = items(&out, false);
        assert_eq!(items.len(), 1);
        assert_eq!(items[0].status, LearningStatus::Pending);
        assert_eq!(items[0].id, learning_id("Deploys need the VPN"));
        assert_eq!(items[0].meta.agent.as_deref(), Some("agt_a"));
    }

    #[test]
    fn a_proposal_keeps_its_id_when_its_text_is_edited() {
        let id = learning_id("one");
        let src = format!("- two <!-- memdir id={id} status=pending -->\n");
        let (_, items) = items(&src, false);
        assert_eq!(items[0].id, id);
        assert_eq!(items[0].text, "two");
    }

    #[test]
    fn set_meta_and_remove_touch_only_their_entry() {
        let p = Path::new("proposals.md");
        let a = append("# Proposals\n\n", p, "first", &meta("pending")).unwrap();
        let b = append(&a, p, "second", &meta("pending")).unwrap();
        let mut m = meta("rejected");
        m.reason = Some("not true".into());
        let c = set_meta(&b, p, &learning_id("first"), &m).unwrap().unwrap();
        let (_, items_c) = items(&c, false);
        assert_eq!(items_c[0].status, LearningStatus::Rejected);
        assert_eq!(items_c[1].status, LearningStatus::Pending);
        let d = remove(&c, p, &learning_id("second"), false)
            .unwrap()
            .unwrap();
        assert!(d.starts_with("# Proposals\n"));
        assert_eq!(items(&d, false).1.len(), 1);
        assert!(remove(&d, p, "mem_000000000000", false).unwrap().is_none());
    }

    #[test]
    fn learnings_are_approved_whatever_their_comment_says() {
        let src = "- Use UTC <!-- memdir status=rejected -->\n";
        assert_eq!(items(src, true).1[0].status, LearningStatus::Approved);
    }
}
