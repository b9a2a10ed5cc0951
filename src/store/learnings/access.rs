//! The two files of the learnings as one operation reads and writes them:
//! the caller checked against the machine's `persons` binding, both files
//! read (to read, or under the root's learnings lock to write), and each
//! replaced editor-safely (a person's save made meanwhile is edited again,
//! never overwritten).

use crate::disk::{Base, Change, Dir, Disk, Lock, decode_limited};
use crate::edit::{Usage, used_chars};
use crate::error::{Error, Result};
use crate::model::{Caller, validate_id};
use crate::store::files::learnings::{
    self as files, Item, LEARNINGS_FILE, LEARNINGS_LOCK, PROPOSALS_FILE,
};
use crate::store::limits::STORE_EDIT_BYTES;
use crate::store::root::{DEFAULT_LOCK_TIMEOUT, DERIVED_DIR, Store};

/// Who acts, checked: an agent by a valid id, a person allowed by the
/// machine's `persons` binding.
pub(super) fn check_caller(store: &Store, caller: &Caller) -> Result<()> {
    match caller {
        Caller::Agent(a) => validate_id("agent", a),
        Caller::Person(p) => {
            validate_id("person", p)?;
            store.allow_person(p)
        }
    }
}

/// LEARNINGS.md's budget.
pub(super) fn budget(store: &Store) -> usize {
    files::budget(store.settings())
}

/// The two files as one operation read them.
pub(super) struct Files {
    pub(super) root: Dir,
    pub(super) proposals_dir: Option<Dir>,
    pub(super) proposals: Option<crate::disk::Held>,
    pub(super) learnings: Option<crate::disk::Held>,
    pub(super) proposals_text: String,
    pub(super) learnings_text: String,
}

impl Files {
    pub(super) fn read(disk: &Disk, root: Dir) -> Result<Files> {
        let proposals_dir = files::proposals_dir(disk, &root)?;
        let proposals = match &proposals_dir {
            Some(d) => files::read(disk, d, PROPOSALS_FILE)?,
            None => None,
        };
        let learnings = files::read(disk, &root, LEARNINGS_FILE)?;
        let proposals_text = match &proposals_dir {
            Some(d) => files::text_of(d, PROPOSALS_FILE, proposals.as_ref())?,
            None => String::new(),
        };
        let learnings_text = files::text_of(&root, LEARNINGS_FILE, learnings.as_ref())?;
        Ok(Files {
            root,
            proposals_dir,
            proposals,
            learnings,
            proposals_text,
            learnings_text,
        })
    }

    pub(super) fn proposals(&self) -> Vec<Item> {
        files::items(&self.proposals_text, false).1
    }

    pub(super) fn learnings(&self) -> Vec<Item> {
        files::items(&self.learnings_text, true).1
    }

    pub(super) fn usage(&self, store: &Store) -> Usage {
        let items = self.learnings();
        Usage::new(
            used_chars(items.iter().map(|i| i.text.as_str())),
            budget(store),
        )
    }
}

/// Opens the root to read (`root_not_found` without one).
pub(super) fn open(store: &Store) -> Result<Files> {
    let disk = store.disk();
    let Some(root) = disk.open_root(store.root())? else {
        store.require_root()?;
        return Err(Error::RootNotFound {
            path: store.root().to_owned(),
        });
    };
    Files::read(disk, root)
}

/// Takes the root's learnings lock and reads both files under it.
pub(super) fn lock(store: &Store) -> Result<(Lock, Files)> {
    let disk = store.disk();
    disk.check()?;
    store.settings_ok()?;
    store.require_root()?;
    let root = disk.ensure_root(store.root())?;
    let (derived, _) = disk.ensure_dir(&root, DERIVED_DIR)?;
    let wait = store.lock_timeout().unwrap_or_else(|| {
        store
            .settings()
            .lock_timeout_ms
            .map_or(DEFAULT_LOCK_TIMEOUT, std::time::Duration::from_millis)
    });
    let wait = match store.deadline() {
        Some(d) => wait.min(d.left()),
        None => wait,
    };
    let lock = disk.lock(&derived, LEARNINGS_LOCK, wait)?;
    if let Some(d) = store.deadline() {
        d.commit()?;
    }
    let files = Files::read(disk, root)?;
    if let Some(d) = &files.proposals_dir {
        disk.sweep_temps(d);
    }
    Ok((lock, files))
}

/// A pure change of one file's text (`None`: no change), redone on an
/// editor's newer save.
pub(super) type Edit<'a> = Box<dyn Fn(&str) -> Result<Option<String>> + 'a>;

/// Replaces `name` in `dir` with `edit` applied to what was read (`held`),
/// editor-safely.
pub(super) fn replace(
    disk: &Disk,
    dir: &Dir,
    name: &str,
    held: Option<crate::disk::Held>,
    text: &str,
    edit: Edit<'_>,
) -> Result<()> {
    let Some(planned) = edit(text)? else {
        return Ok(());
    };
    let path = dir.join(name);
    disk.replace(Change {
        dir,
        name,
        base: held.map(Base::from),
        planned: Some(planned.into_bytes()),
        redo: Box::new(move |cur| {
            let src = match cur {
                Some(b) => decode_limited(&path, b.to_vec(), STORE_EDIT_BYTES)?,
                None => String::new(),
            };
            Ok(edit(&src)?.map(String::into_bytes))
        }),
    })?;
    Ok(())
}

/// The heading a new file opens with.
pub(super) fn heading(name: &str, text: &str) -> String {
    if !text.is_empty() {
        return text.to_owned();
    }
    match name {
        LEARNINGS_FILE => "# Learnings\n\n".to_owned(),
        _ => "# Proposed learnings\n\n".to_owned(),
    }
}
