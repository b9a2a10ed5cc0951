//! archive.md: archived memories, each a list item of its text with its
//! metadata and the archive fields (see docs/FORMAT.md).

use chrono::{DateTime, Utc};

use crate::disk::{Change, Dir, Held};
use crate::error::{Error, Result};
use crate::markdown::{parse_without_ids, splice};
use crate::model::{ArchiveKind, Caller, Meta, Origin};
use crate::store::limits::ARCHIVE_BYTES;
use crate::store::owner::At;

/// The archive's file name.
pub const ARCHIVE_FILE: &str = "archive.md";

const ARCHIVE_HEADER: &str =
    "# Archive\n\nArchived memories, with why. `memdir unarchive ID` brings one back.\n";

/// One archived memory.
#[derive(Debug, Clone)]
pub(crate) struct Archived {
    /// Its id (as it had when live).
    pub(crate) id: String,
    /// Its text (a day row's: its lines).
    pub(crate) text: String,
    /// Its metadata and archive fields.
    pub(crate) meta: Meta,
}

/// The metadata of a memory archived now: its own metadata `m` with the
/// archive fields (where it came from, when, what kind, why, by whom).
pub(crate) fn record_meta(
    mut m: Meta,
    origin: Origin,
    kind: ArchiveKind,
    reason: String,
    now: DateTime<Utc>,
    by: &Caller,
) -> Meta {
    m.scope = Some(origin);
    m.archived = Some(now);
    m.kind = Some(kind);
    m.reason = Some(reason);
    m.archived_by = Some(match by {
        Caller::Agent(a) => format!("agent:{a}"),
        Caller::Person(p) => format!("person:{p}"),
    });
    m
}

/// An archived memory's id: over its original scope and text, or its date
/// for a day row.
pub(crate) fn archived_id(meta: &Meta, text: &str) -> String {
    meta.archived_id(text)
}

/// archive.md as read: the file (to write it back) and its text (empty if
/// missing).
pub(crate) fn read(at: At<'_>) -> Result<(Option<Held>, String)> {
    super::read_text(at, ARCHIVE_FILE, ARCHIVE_BYTES)
}

/// The archived memories in `src` (archive.md's text), in file order.
pub(crate) fn records(src: &str) -> Vec<Archived> {
    parse_without_ids(src)
        .entries
        .iter()
        .map(|e| {
            let meta = e.metadata(src);
            Archived {
                id: archived_id(&meta, &e.text),
                text: e.text.clone(),
                meta,
            }
        })
        .collect()
}

/// The archived memory `id`, if it is archived.
pub(crate) fn find(at: At<'_>, id: &str) -> Result<Option<Archived>> {
    let (_, src) = read(at)?;
    Ok(records(&src).into_iter().find(|r| r.id == id))
}

/// `src` with `items` (text and metadata) appended; a memory archived again
/// replaces its older record.
fn with_appended(src: &str, items: &[(String, Meta)], dir: &Dir) -> Result<String> {
    let unplaceable = |e: splice::Unplaceable| Error::Unplaceable {
        path: dir.join(ARCHIVE_FILE),
        reason: e.0,
    };
    let mut cur = if src.trim().is_empty() {
        format!("{ARCHIVE_HEADER}\n")
    } else {
        src.to_owned()
    };
    for (text, meta) in items {
        let id = archived_id(meta, text);
        loop {
            let doc = parse_without_ids(&cur);
            let Some(i) = doc
                .entries
                .iter()
                .position(|e| archived_id(&e.metadata(&cur), &e.text) == id)
            else {
                break;
            };
            cur = splice::remove(&cur, &doc, i).map_err(unplaceable)?.0;
        }
        let doc = parse_without_ids(&cur);
        // The id an archived entry is known by comes from its metadata (its
        // parse carries none).
        cur = splice::append(&cur, &doc, (text, ""), Some(&meta.render()))
            .map_err(unplaceable)?
            .0;
    }
    Ok(cur)
}

/// The change that appends `items` to archive.md in `dir` (read as `held`).
pub(crate) fn append(dir: &Dir, held: Option<Held>, items: Vec<(String, Meta)>) -> Change<'_> {
    super::rewrite(dir, ARCHIVE_FILE, ARCHIVE_BYTES, held, move |src| {
        with_appended(src, &items, dir).map(Some)
    })
}

/// The change that takes the record of `id` out of archive.md in `dir` (no
/// change if there is none).
pub(crate) fn take_out(dir: &Dir, held: Option<Held>, id: String) -> Change<'_> {
    super::rewrite(dir, ARCHIVE_FILE, ARCHIVE_BYTES, held, move |src| {
        let doc = parse_without_ids(src);
        let Some(i) = doc
            .entries
            .iter()
            .position(|e| archived_id(&e.metadata(src), &e.text) == id)
        else {
            return Ok(None);
        };
        splice::remove(src, &doc, i)
            .map(|(out, _)| Some(out))
            .map_err(|e| Error::Unplaceable {
                path: dir.join(ARCHIVE_FILE),
                reason: e.0,
            })
    })
}
