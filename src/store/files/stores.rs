//! MEMORY.md and USER.md: loading a store (its text, the descriptor it was
//! read through, and its parse, remembered by the store's parse cache), and
//! the context its edits run in.

use std::fs::File;
use std::path::PathBuf;
use std::sync::Arc;

use chrono::{DateTime, Utc};

use crate::disk::{Base, MAX_FILE_BYTES, Stat, decode};
use crate::edit::{Budget, EditContext};
use crate::error::Result;
use crate::markdown::{Document, parse, parse_without_ids};
use crate::model::Scope;
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
    }
}

/// Loads one store of the owner (empty when the folder or the file does not
/// exist), parsed with entry ids unless `ids` is false. A parse is taken
/// from the store's parse cache when it was made of the very same text.
pub(crate) fn load(at: At<'_>, scope: Scope, ids: bool) -> Result<Loaded> {
    let name = scope.file_name();
    let path = at.owner.path(scope);
    let read = match at.dir {
        Some(dir) => at.disk().read(dir, name, MAX_FILE_BYTES)?,
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
