//! The merge driver's logic, pure: three versions of a file of an owner's
//! folder (the common base, ours, theirs) in, the merged text and what is
//! left in conflict out. No I/O (`store::merge_file` reads and writes the
//! files; the `memdir merge-file` command is git's merge driver).
//!
//! What a file is decides how it merges ([`Kind`], from its name):
//!
//! * `MEMORY.md`, `USER.md` ([`Kind::Store`]): a three-way merge of the
//!   entries by id, an edit recognised by its similarity to the entry it
//!   replaced (`pairing`), both versions kept with `conflict=<base id>`
//!   where both sides edited one entry; the bytes outside the entries merge
//!   as text. See docs/GIT.md for every rule.
//! * the root's `LEARNINGS.md` and `learnings/proposals.md`
//!   ([`Kind::Learnings`]): merged as a store is, the entries' ids over the
//!   learnings' id scope.
//! * an owner's `PENDING.md` ([`Kind::Pending`]), the writes that wait for
//!   a person: merged as a store is, the entries' ids over the pending
//!   writes' id scope (a decision on one side, an edit of an entry's
//!   comment, is taken as a store's edit is).
//! * `archive.md` ([`Kind::Archive`]): the union of the archived records.
//! * `episodes.md` ([`Kind::Episodes`]): date sections by date, each day's
//!   lines interleaved by time.
//! * anything else ([`Kind::Text`]): git's three-way text merge.
//!
//! Entries are spliced, never re-rendered: every entry in the result is the
//! bytes of the side it was taken from.

mod archive;
mod episodes;
pub mod pairing;
mod store;
#[cfg(test)]
mod tests;
mod text;

use crate::markdown::BOM;
use crate::model::{LEARNING_ID_SCOPE, PENDING_ID_SCOPE, Scope};

#[cfg(any(test, feature = "internals"))]
pub use pairing::{EDIT_SIMILARITY, MAX_PAIRS, similarity};

/// What a file is, for a merge.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A curated store: `MEMORY.md` or `USER.md`.
    Store(Scope),
    /// The root's learnings: `LEARNINGS.md` (the approved) or
    /// `learnings/proposals.md` (the proposals); merged as a store.
    Learnings,
    /// An owner's `PENDING.md`, the writes that wait for a person; merged
    /// as a store.
    Pending,
    /// `archive.md`.
    Archive,
    /// `episodes.md`.
    Episodes,
    /// Any other file: a plain three-way text merge.
    Text,
}

impl Kind {
    /// The kind of a file by its name (the last component of `path`, `/` or
    /// `\` separated); `None` for a name memdir does not own.
    pub fn of_path(path: &str) -> Option<Kind> {
        let mut parts = path.rsplit(['/', '\\']);
        let name = parts.next().unwrap_or(path);
        // A part of an owner's `archive/` (`archive/2025.md`): an archive.
        let folder = parts.next();
        if folder == Some("archive") && is_archive_part(name) {
            return Some(Kind::Archive);
        }
        if folder == Some("learnings") && name == "proposals.md" {
            return Some(Kind::Learnings);
        }
        match name {
            "MEMORY.md" => Some(Kind::Store(Scope::Memory)),
            "USER.md" => Some(Kind::Store(Scope::User)),
            "archive.md" => Some(Kind::Archive),
            "episodes.md" => Some(Kind::Episodes),
            "LEARNINGS.md" => Some(Kind::Learnings),
            "PENDING.md" => Some(Kind::Pending),
            _ => None,
        }
    }

    /// The kind three versions of a file without a name look like: an
    /// archive when every entry carries an archive record's metadata, a
    /// journal when every list line sits under a `## YYYY-MM-DD` heading,
    /// a store (its ids over scope `memory`) when an entry carries memdir's
    /// metadata comment, else text.
    pub fn sniff(base: &str, ours: &str, theirs: &str) -> Kind {
        let all = [base, ours, theirs];
        if archive::looks_like(&all) {
            Kind::Archive
        } else if episodes::looks_like(&all) {
            Kind::Episodes
        } else if store::looks_like(&all) {
            Kind::Store(Scope::Memory)
        } else {
            Kind::Text
        }
    }
}

/// Whether `name` is a part of an owner's `archive/` folder: `YYYY.md`,
/// `undated.md`, or a later part `YYYY-N.md`.
fn is_archive_part(name: &str) -> bool {
    let Some(stem) = name.strip_suffix(".md") else {
        return false;
    };
    let key = stem.split_once('-').map_or(stem, |(k, n)| {
        if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) {
            k
        } else {
            ""
        }
    });
    key == "undated" || (key.len() == 4 && key.bytes().all(|b| b.is_ascii_digit()))
}

/// Something a merge left for a person.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Conflict {
    /// An entry edited differently on both sides: both versions are in the
    /// result, each with `conflict=<base>` in its metadata comment.
    Entry {
        /// The entry's id before the edits.
        base: String,
        /// Its id in ours' version.
        ours: String,
        /// Its id in theirs' version.
        theirs: String,
    },
    /// Lines between standard conflict markers (1-based, markers included).
    Text {
        /// The `<<<<<<<` line.
        first_line: usize,
        /// The `>>>>>>>` line.
        last_line: usize,
    },
}

impl Conflict {
    /// How a message names it: `mem_… edited on both sides` or `lines 3-9`.
    pub fn describe(&self) -> String {
        match self {
            Conflict::Entry { base, .. } => format!("{base} edited on both sides"),
            Conflict::Text {
                first_line,
                last_line,
            } => format!("lines {first_line}-{last_line}"),
        }
    }
}

/// The result of a merge.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Merged {
    /// The merged text.
    pub text: String,
    /// What is left for a person, in file order of each kind.
    pub conflicts: Vec<Conflict>,
}

impl Merged {
    /// Whether the merge is clean: no conflict markers were left. (An entry
    /// kept in two versions is recorded in the entries' metadata; the file
    /// stays a valid store.)
    pub fn is_clean(&self) -> bool {
        !self
            .conflicts
            .iter()
            .any(|c| matches!(c, Conflict::Text { .. }))
    }
}

/// Merges three versions of a file whose kind is read from their content
/// ([`Kind::sniff`]).
#[cfg(any(test, feature = "internals"))]
pub fn merge(base: &str, ours: &str, theirs: &str) -> Merged {
    merge_as(Kind::sniff(base, ours, theirs), base, ours, theirs)
}

/// Merges three versions of the file at `path` (its kind from its name,
/// else from the content).
#[cfg(any(test, feature = "internals"))]
pub fn merge_path(path: Option<&str>, base: &str, ours: &str, theirs: &str) -> Merged {
    let kind = path.and_then(Kind::of_path).unwrap_or_else(|| match path {
        Some(_) => Kind::Text,
        None => Kind::sniff(base, ours, theirs),
    });
    merge_as(kind, base, ours, theirs)
}

/// Merges three versions of a file of `kind`. When a side left the base as
/// it was (or both sides are the same), the result is the other side's
/// bytes as they are: a merge never reorders or re-spaces a file only one
/// side changed (an episodes.md whose dates a person put out of order, say).
pub fn merge_as(kind: Kind, base: &str, ours: &str, theirs: &str) -> Merged {
    let unchanged = |text: &str| Merged {
        text: text.to_owned(),
        conflicts: Vec::new(),
    };
    if theirs == base || theirs == ours {
        return unchanged(ours);
    }
    if ours == base {
        return unchanged(theirs);
    }
    match kind {
        Kind::Store(scope) => with_bom(base, ours, theirs, |b, o, t| {
            store::merge(store::Rules::Store(scope.name()), b, o, t)
        }),
        Kind::Learnings => with_bom(base, ours, theirs, |b, o, t| {
            store::merge(store::Rules::Store(LEARNING_ID_SCOPE), b, o, t)
        }),
        Kind::Pending => with_bom(base, ours, theirs, |b, o, t| {
            store::merge(store::Rules::Store(PENDING_ID_SCOPE), b, o, t)
        }),
        Kind::Archive => with_bom(base, ours, theirs, |b, o, t| {
            store::merge(store::Rules::Archive, b, o, t)
        }),
        Kind::Episodes => with_bom(base, ours, theirs, episodes::merge),
        Kind::Text => text_merge(base, ours, theirs),
    }
}

/// A plain three-way text merge.
pub(crate) fn text_merge(base: &str, ours: &str, theirs: &str) -> Merged {
    let m = text::merge(base, ours, theirs);
    let conflicts = text_conflicts(&m.text, &m.conflicts);
    Merged {
        text: m.text,
        conflicts,
    }
}

/// The conflicts of the regions `ranges` of `text`, by line.
fn text_conflicts(text: &str, ranges: &[std::ops::Range<usize>]) -> Vec<Conflict> {
    ranges
        .iter()
        .map(|r| {
            let first_line = line_of(text, r.start);
            let last_line = line_of(text, r.end.saturating_sub(1)).max(first_line);
            Conflict::Text {
                first_line,
                last_line,
            }
        })
        .collect()
}

/// The 1-based line that byte `at` of `text` is on.
fn line_of(text: &str, at: usize) -> usize {
    let upto = text.as_bytes().get(..at).unwrap_or(text.as_bytes());
    1 + memchr::memchr_iter(b'\n', upto).count()
}

/// Runs `merge` on the three texts without their byte-order marks and puts
/// ours' mark back (theirs' when ours has no text).
fn with_bom(
    base: &str,
    ours: &str,
    theirs: &str,
    merge: impl FnOnce(&str, &str, &str) -> Merged,
) -> Merged {
    let strip = |s: &'_ str| -> (bool, String) {
        match s.strip_prefix(BOM) {
            Some(rest) => (true, rest.to_owned()),
            None => (false, s.to_owned()),
        }
    };
    let (_, b) = strip(base);
    let (ob, o) = strip(ours);
    let (tb, t) = strip(theirs);
    let mut m = merge(&b, &o, &t);
    let bom = if ours.is_empty() { tb } else { ob };
    if bom {
        m.text.insert_str(0, BOM);
    }
    m
}
