//! The shared steps of the store's features, one module per file of an
//! owner's folder: what each file holds, how it is read, and the changes
//! that write it. Features use these; they never reach into each other.
//!
//! ```text
//! MEMORY.md, USER.md   stores      load (with the parse cache), edit context
//! archive.md           archive     records, appending and taking them out
//! memdir.yaml          config      the routine's `review:` line, edited in place
//! episodes.md          episodes    the journal, day rows, day-line appends
//! .memdir/stats.json   stats       recall counts, first-seen times, sessions
//! .memdir/scan-cache   scan_cache  scanner verdicts for snapshots
//! .memdir/embeddings.json  embeddings  cached fact vectors; the recall model's folder
//! .memdir/runs, snapshots  runs    run records and stored snapshots
//! results/             results     SharedMemory result files and indexes
//! .memdir/reviews      reviews     review plans (dry run, applied), the last unchanged review
//! skills/<NAME>/SKILL.md  skills   learned skills
//! learnings/, LEARNINGS.md  learnings  the root's proposed and approved learnings
//! PENDING.md           pending     writes that wait for a person (`writes: review`)
//! (all of the above)   locate      where an id lives
//! ```

pub(crate) mod archive;
pub(crate) mod config;
#[cfg(feature = "embed")]
pub(crate) mod embeddings;
pub(crate) mod episodes;
pub(crate) mod learnings;
pub(crate) mod locate;
pub(crate) mod pending;
pub(crate) mod results;
pub(crate) mod reviews;
pub(crate) mod runs;
pub(crate) mod scan_cache;
pub(crate) mod skills;
pub(crate) mod stats;
pub(crate) mod stores;

/// The memory files of an owner's folder that people edit and git merges
/// (`memdir merge-file` merges each, `watch` checks each).
pub const MEMORY_FILES: [&str; 5] = [
    "MEMORY.md",
    "USER.md",
    "archive.md",
    "episodes.md",
    "PENDING.md",
];

use crate::disk::{Base, Change, Dir, Held, decode, decode_limited};
use crate::edit::conflicted;
use crate::error::Result;
use crate::markdown::conflicts;
use crate::store::owner::At;

/// A text file of the owner's folder as read: the file (to write it back)
/// and its text (empty when it or the folder is missing).
pub(crate) fn read_text(at: At<'_>, name: &str, limit: u64) -> Result<(Option<Held>, String)> {
    let Some(dir) = at.dir else {
        return Ok((None, String::new()));
    };
    let held = at.disk().read(dir, name, limit)?;
    let src = match &held {
        Some(h) => decode(&dir.join(name), h.bytes.clone())?,
        None => String::new(),
    };
    Ok((held, src))
}

/// A change of the text file `name` in `dir` (read as `held`, `None` if it
/// did not exist) that `edit` computes from its current text (`None`: no
/// change); the text is refused past `limit` bytes, when not UTF-8, and when
/// it holds git conflict markers (`memory_conflicted`).
pub(crate) fn rewrite<'a>(
    dir: &'a Dir,
    name: &'static str,
    limit: u64,
    held: Option<Held>,
    edit: impl FnMut(&str) -> Result<Option<String>> + 'a,
) -> Change<'a> {
    rewrite_as(dir, name, name, limit, held, edit)
}

/// [`rewrite`] of a file whose name is not fixed (a part of `archive/`),
/// its conflicts reported as in `label`.
pub(crate) fn rewrite_as<'a>(
    dir: &'a Dir,
    name: &'a str,
    label: &'static str,
    limit: u64,
    held: Option<Held>,
    mut edit: impl FnMut(&str) -> Result<Option<String>> + 'a,
) -> Change<'a> {
    let path = dir.join(name);
    Change {
        dir,
        name,
        base: held.map(Base::from),
        planned: None,
        redo: Box::new(move |cur| {
            let src = match cur {
                Some(b) => decode_limited(&path, b.to_vec(), limit)?,
                None => String::new(),
            };
            if let Some(e) = conflicted(label, &conflicts(&src)) {
                return Err(e);
            }
            Ok(edit(&src)?.map(String::into_bytes))
        }),
    }
}
