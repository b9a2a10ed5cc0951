//! What a reader outside the store keys a cache by: each file's stamp
//! (size, modification time, inode), and a file's SHA-256 as it is now —
//! the dashboard's agents page and its forms' "changed since" check.
//! Stated and read through `disk`, relative to the root opened once.

use sha2::{Digest, Sha256};

use super::limits::STORE_EDIT_BYTES;
use super::owner::Owner;
use super::root::Store;
use crate::disk::{Dir, Stat};
use crate::error::{Error, Result};

/// A file's stamp as a cache keys it: a change of its bytes through memdir,
/// an editor or git changes its size, its modification time or its inode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FileStamp {
    /// Its size in bytes.
    pub len: u64,
    /// Its modification time: seconds and nanoseconds.
    pub mtime: (i64, i64),
    /// Its inode number.
    pub ino: u64,
    /// Its status change time: seconds and nanoseconds.
    pub ctime: (i64, i64),
}

impl FileStamp {
    fn of(s: &Stat) -> FileStamp {
        FileStamp {
            len: s.len,
            mtime: s.mtime,
            ino: s.ino,
            ctime: s.ctime,
        }
    }
}

/// The most components a stamped path has (`OWNER/.memdir/runs`).
const MAX_DEPTH: usize = 3;

/// The components of a path relative to the root: each a plain name.
fn components(rel: &str) -> Result<Vec<&str>> {
    let parts: Vec<&str> = rel.split('/').collect();
    if parts.len() > MAX_DEPTH
        || parts
            .iter()
            .any(|p| p.is_empty() || *p == "." || *p == ".." || p.contains('\0'))
    {
        return Err(Error::Usage {
            message: format!("not a path in the root to stamp: {rel:?}"),
        });
    }
    Ok(parts)
}

/// The stamp of `rel` under the open root (`None` when it or a folder on
/// the way is missing). A folder's stamp is its own (its mtime changes as
/// names are added, renamed or removed in it).
fn stamp_in(store: &Store, root: &Dir, rel: &str) -> Result<Option<FileStamp>> {
    let disk = store.disk();
    let parts = components(rel)?;
    let Some((last, folders)) = parts.split_last() else {
        return Ok(None);
    };
    let mut here: Option<Dir> = None;
    for name in folders {
        let parent = here.as_ref().unwrap_or(root);
        match disk.open_dir(parent, name)? {
            Some(d) => here = Some(d),
            None => return Ok(None),
        }
    }
    let parent = here.as_ref().unwrap_or(root);
    Ok(disk.stat(parent, last)?.map(|s| FileStamp::of(&s)))
}

/// The stamps of `rels`, paths relative to the root (`memdir.yaml`,
/// `OWNER/MEMORY.md`, `OWNER/.memdir/runs`), in order; `None` for each
/// missing one, and for all when the root is missing.
pub(crate) fn stamps(store: &Store, rels: &[&str]) -> Result<Vec<Option<FileStamp>>> {
    let Some(root) = store.disk().open_root(store.root())? else {
        return Ok(vec![None; rels.len()]);
    };
    rels.iter().map(|rel| stamp_in(store, &root, rel)).collect()
}

/// The SHA-256 (hex) of the file `name` of the owner's folder as it is now:
/// of no bytes when it (or the folder) is missing.
pub(crate) fn sha256(owner: &Owner, name: &str) -> Result<String> {
    components(name)?;
    if name.contains('/') {
        return Err(Error::Usage {
            message: format!("not a file of the owner's folder: {name:?}"),
        });
    }
    let view = owner.view()?;
    let bytes = match view.at().dir {
        Some(dir) => owner
            .disk()
            .read_bytes(dir, name, STORE_EDIT_BYTES)?
            .unwrap_or_default(),
        None => Vec::new(),
    };
    Ok(hex::encode(Sha256::digest(&bytes)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Scope;

    #[test]
    fn a_stamp_changes_with_the_file_and_a_hash_with_its_bytes() {
        let tmp = tempfile::tempdir().unwrap();
        let store = Store::open(tmp.path()).unwrap();
        let owner = store.owner("agt_a").unwrap();
        let rels = ["agt_a/MEMORY.md", "memdir.yaml", "agt_a"];
        assert_eq!(stamps(&store, &rels).unwrap(), vec![None, None, None]);
        let empty = sha256(&owner, "MEMORY.md").unwrap();
        owner
            .write(crate::edit::Op::add(Scope::Memory, "Prefers tea"))
            .unwrap();
        let one = stamps(&store, &rels).unwrap();
        assert!(one[0].is_some() && one[1].is_none() && one[2].is_some());
        let h1 = sha256(&owner, "MEMORY.md").unwrap();
        assert_ne!(h1, empty);
        owner
            .write(crate::edit::Op::add(Scope::Memory, "Likes maps"))
            .unwrap();
        let two = stamps(&store, &rels).unwrap();
        assert_ne!(one[0], two[0]);
        assert_ne!(sha256(&owner, "MEMORY.md").unwrap(), h1);
    }

    #[test]
    fn only_plain_names_are_stamped() {
        let tmp = tempfile::tempdir().unwrap();
        let store = Store::open(tmp.path()).unwrap();
        for bad in ["../x", "a//b", "/etc", "a/./b", "a/b/c/d", ""] {
            assert!(stamps(&store, &[bad]).is_err(), "{bad}");
        }
        let owner = store.owner("agt_a").unwrap();
        assert!(sha256(&owner, "../keys.yaml").is_err());
        assert!(sha256(&owner, ".memdir/x").is_err());
    }
}
