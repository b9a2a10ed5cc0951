//! The store's side of `memdir watch`: the changes made to owners' memory
//! files, each known as memdir's own or someone else's. Changes memdir made
//! itself are known by the content hash its writers record while a watcher
//! runs (its marker `.memdir/watch` in each owner's folder; see
//! `Locked::written`). What to do with a change (check it, refresh caches)
//! is the interface layer's (`api::watch`).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::time::Duration;

use sha2::{Digest, Sha256};

use super::files::MEMORY_FILES;
use super::limits::STORE_EDIT_BYTES;
use super::owner::{Owner, WATCH_MARKER, WRITTEN_BYTES, WRITTEN_FILE};
use super::root::{CONFIG_FILE, DERIVED_DIR, Store};
use crate::disk::TreeWatch;
use crate::error::Result;

/// One change to an owner's watched file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    /// The owner.
    pub owner: String,
    /// The file (`MEMORY.md`, …, `memdir.yaml`).
    pub file: String,
    /// Whether it holds what memdir last wrote to it (a write of memdir's
    /// own, not a person's or a merge's).
    pub own: bool,
    /// Whether the file is gone.
    pub removed: bool,
}

/// A watch on a memory root; owners' markers are removed when it is
/// dropped.
pub struct Watching {
    store: Store,
    tree: TreeWatch,
    marked: BTreeSet<String>,
}

/// Whether `name` is a file the watcher checks.
fn watched(name: &str) -> bool {
    MEMORY_FILES.contains(&name) || name == CONFIG_FILE
}

/// Puts the watcher's marker in the owner's `.memdir/` (creating it);
/// whether this call put it there.
fn mark(owner: &Owner) -> bool {
    let Ok(folders) = owner.folders() else {
        return false;
    };
    let pid = std::process::id().to_string();
    owner
        .disk()
        .create_new(&folders.derived, WATCH_MARKER, pid.as_bytes(), 0o644)
        .unwrap_or(false)
}

/// Removes the marker this watcher put.
fn unmark(owner: &Owner) {
    let disk = owner.disk();
    if let Ok(view) = owner.view()
        && let Some(dir) = view.at().dir
        && let Ok(Some(derived)) = disk.open_dir(dir, DERIVED_DIR)
    {
        let _ = disk.remove_file(&derived, WATCH_MARKER);
    }
}

/// Whether the file `name` of the owner's folder holds what memdir last
/// wrote to it (its hash is in `.memdir/written.json`), and whether it is
/// gone.
fn state(owner: &Owner, name: &str) -> (bool, bool) {
    let disk = owner.disk();
    let Ok(view) = owner.view() else {
        return (false, false);
    };
    let Some(dir) = view.at().dir else {
        return (false, true);
    };
    let bytes = match disk.read_bytes(dir, name, STORE_EDIT_BYTES) {
        Ok(Some(b)) => b,
        Ok(None) => return (false, true),
        Err(_) => return (false, false),
    };
    let written: BTreeMap<String, String> = disk
        .open_dir(dir, DERIVED_DIR)
        .ok()
        .flatten()
        .and_then(|d| {
            disk.read_bytes(&d, WRITTEN_FILE, WRITTEN_BYTES)
                .ok()
                .flatten()
        })
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_default();
    let own = written
        .get(name)
        .is_some_and(|h| *h == hex::encode(Sha256::digest(&bytes)));
    (own, false)
}

impl Watching {
    /// Starts watching the root and marks every owner's folder.
    pub(crate) fn start(store: &Store) -> Result<Watching> {
        let root = store.root();
        store.disk().ensure_root(root)?;
        let tree = TreeWatch::start(root)?;
        let mut marked = BTreeSet::new();
        for id in store.owners()? {
            if mark(&store.owner(&id)?) {
                marked.insert(id);
            }
        }
        Ok(Watching {
            store: store.clone(),
            tree,
            marked,
        })
    }

    /// The changes to watched files within `timeout` (debounced); empty
    /// when none came; `None` when the watch ended.
    pub fn changes(&mut self, timeout: Duration) -> Option<Vec<Change>> {
        let paths = self.tree.changed(timeout)?;
        let root = self.store.root().to_owned();
        let touched: BTreeSet<(String, String)> =
            paths.iter().filter_map(|p| owner_file(&root, p)).collect();
        let mut out = Vec::new();
        for (id, file) in touched {
            let Ok(owner) = self.store.owner(&id) else {
                continue;
            };
            if !self.marked.contains(&id) && mark(&owner) {
                self.marked.insert(id.clone());
            }
            let (own, removed) = state(&owner, &file);
            out.push(Change {
                owner: id,
                file,
                own,
                removed,
            });
        }
        Some(out)
    }
}

impl Drop for Watching {
    fn drop(&mut self) {
        for id in &self.marked {
            if let Ok(owner) = self.store.owner(id) {
                unmark(&owner);
            }
        }
    }
}

/// `(owner, file)` when `path` is a watched file of an owner's folder.
fn owner_file(root: &Path, path: &Path) -> Option<(String, String)> {
    let rel = path.strip_prefix(root).ok().or_else(|| {
        // The watcher may report paths through the root's absolute form.
        let abs = std::path::absolute(root).ok()?;
        path.strip_prefix(abs).ok()
    })?;
    let mut parts = rel.components();
    let owner = parts.next()?.as_os_str().to_str()?.to_owned();
    let name = parts.next()?.as_os_str().to_str()?.to_owned();
    (parts.next().is_none() && watched(&name)).then_some((owner, name))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_an_owners_memory_files_and_settings_are_watched() {
        let root = Path::new("/m");
        let of = |p: &str| owner_file(root, Path::new(p));
        assert_eq!(
            of("/m/agt_a/MEMORY.md"),
            Some(("agt_a".into(), "MEMORY.md".into()))
        );
        assert_eq!(
            of("/m/agt_a/memdir.yaml"),
            Some(("agt_a".into(), "memdir.yaml".into()))
        );
        assert_eq!(of("/m/agt_a/.memdir/stats.json"), None);
        assert_eq!(of("/m/agt_a/.MEMORY.md.1.memdir-tmp"), None);
        assert_eq!(of("/m/MEMORY.md"), None);
        assert_eq!(of("/m/agt_a/results/wf/t.result"), None);
    }
}
