//! MEMORY.md and USER.md: loading a store (its text, the descriptor it was
//! read through, and its parse, remembered by the store's parse cache), and
//! the context its edits run in.

use std::fs::File;
use std::path::PathBuf;
use std::sync::Arc;

use chrono::{DateTime, Utc};

use crate::disk::{Base, Stat, decode};
use crate::edit::{Budget, EditContext};
use crate::error::Result;
use crate::markdown::Entry;
use crate::markdown::{Document, parse, parse_without_ids};
use crate::model::Scope;
use crate::model::is_live;
use crate::snapshot::ConflictMark;
use crate::store::owner::At;

/// A store's file as read: its text and parse.
pub(crate) struct Loaded {
    /// Which store.
    pub(crate) scope: Scope,
    /// The file's path, for messages.
    pub(crate) path: PathBuf,
    /// Whether the file exists (`src` is then its text, else empty).
    pub(crate) exists: bool,
    /// The descriptor the file was read through and its stat.
    pub(crate) held: Option<(File, Stat)>,
    /// Its text.
    pub(crate) src: String,
    /// Its parse (entry ids empty when loaded without them).
    pub(crate) doc: Arc<Document>,
}

impl Loaded {
    /// What a writer read, for the disk layer's replace: the text and the
    /// descriptor (taken: the first write uses it).
    pub(crate) fn base(&mut self) -> Option<Base> {
        self.exists.then(|| Base {
            bytes: self.src.as_bytes().to_vec(),
            held: self.held.take(),
        })
    }

    /// The context of an edit of this store at `now` in the folder `at`.
    pub(crate) fn context<'a>(&'a self, at: At<'a>, now: DateTime<Utc>) -> EditContext<'a> {
        context(at, self.scope, &self.path, now)
    }

    /// The store's budget in its current state.
    pub(crate) fn budget(&self, at: At<'_>) -> Result<Budget> {
        self.context(at, Utc::now()).budget(&self.doc)
    }
}

/// The entries of a loaded store that can reach a prompt at `now`: live,
/// and outside every region between git conflict markers; and those regions,
/// each placed before the first entry that follows it.
pub(crate) fn live_entries(l: &Loaded, now: DateTime<Utc>) -> (Vec<&Entry>, Vec<ConflictMark>) {
    entries_where(l, |e| is_live(e.meta_comment(&l.src), now))
}

/// The entries of a loaded store outside every region between git conflict
/// markers for which `keep` holds; and those regions, each placed before
/// the first entry kept that follows it.
pub(crate) fn entries_where(
    l: &Loaded,
    keep: impl Fn(&Entry) -> bool,
) -> (Vec<&Entry>, Vec<ConflictMark>) {
    let mut entries = Vec::with_capacity(l.doc.entries.len());
    let mut marks: Vec<ConflictMark> = Vec::new();
    let mut placed = vec![false; l.doc.conflicts.len()];
    for e in &l.doc.entries {
        for (k, c) in l.doc.conflicts.iter().enumerate() {
            if !placed[k] && c.bytes.start < e.item.end {
                placed[k] = true;
                marks.push(ConflictMark {
                    before: entries.len(),
                    lines: c.lines(),
                });
            }
        }
        if l.doc.conflicts.iter().any(|c| c.overlaps(&e.item)) {
            continue;
        }
        if keep(e) {
            entries.push(e);
        }
    }
    for (k, c) in l.doc.conflicts.iter().enumerate() {
        if !placed[k] {
            marks.push(ConflictMark {
                before: entries.len(),
                lines: c.lines(),
            });
        }
    }
    (entries, marks)
}

/// The context of an edit of `scope` (file `path`) in the folder `at`.
pub(crate) fn context<'a>(
    at: At<'a>,
    scope: Scope,
    path: &'a std::path::Path,
    now: DateTime<Utc>,
) -> EditContext<'a> {
    EditContext {
        scope,
        caller: at.owner.caller(),
        run: at.owner.run(),
        now,
        root: at.owner.store().settings(),
        settings: at.settings,
        path,
        detail: true,
    }
}

/// Loads one store of the owner (empty when the folder or the file does not
/// exist), parsed with entry ids unless `ids` is false, refusing a file
/// over `limit` bytes ([`crate::store::limits::STORE_BYTES`] to read,
/// [`crate::store::limits::STORE_EDIT_BYTES`] to edit). A parse is taken
/// from the store's parse cache when it was made of the very same text.
pub(crate) fn load(at: At<'_>, scope: Scope, ids: bool, limit: u64) -> Result<Loaded> {
    let name = scope.file_name();
    let path = at.owner.path(scope);
    let read = match at.dir {
        Some(dir) => at.disk().read(dir, name, limit)?,
        None => None,
    };
    let (src, exists, held) = match read {
        Some(h) => (decode(&path, h.bytes)?, true, Some((h.file, h.stat))),
        None => (String::new(), false, None),
    };
    let cache = at.owner.store().parsed();
    let doc = match cache.get(&path, &src, ids) {
        Some(doc) => doc,
        None => {
            let doc = Arc::new(if ids {
                parse(scope, &src)
            } else {
                parse_without_ids(&src)
            });
            cache.put(&path, &src, Arc::clone(&doc), ids);
            doc
        }
    };
    Ok(Loaded {
        scope,
        path,
        exists,
        held,
        src,
        doc,
    })
}
