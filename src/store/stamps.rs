//! What a cache keys an answer by: the stamp of each file the answer was
//! computed from (device, inode, size, modification and change times, to
//! the nanosecond), git's racy-clean rule on it ([`FileStamp::racy`]), the
//! files stated again by the paths they were read at; and a file's SHA-256
//! as it is now (the dashboard's forms' "changed since" check). Stated and
//! read through `disk`, below the root opened once.

use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use sha2::{Digest, Sha256};

use super::limits::STORE_EDIT_BYTES;
use super::owner::Owner;
use super::root::Store;
use crate::disk::{Dir, Seen, Stat};
use crate::error::{Error, Result};

/// A file's stamp as a cache keys it: a change of its bytes through memdir,
/// an editor or git changes its size, its modification time or its inode;
/// a change that keeps the size and puts the modification time back (`touch
/// -d`) still changes its change time, which no caller can set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct FileStamp {
    /// Its size in bytes.
    pub(crate) len: u64,
    /// Its modification time: seconds and nanoseconds.
    pub(crate) mtime: (i64, i64),
    /// Its inode number.
    pub(crate) ino: u64,
    /// Its status change time: seconds and nanoseconds.
    pub(crate) ctime: (i64, i64),
    /// The device it is on.
    pub(crate) dev: u64,
}

/// How far a file's times may lag the clock on a file system that keeps
/// them to the nanosecond: the kernel stamps a write with a clock that
/// moves once a tick (at most 10 ms), so a write just after a moment may
/// carry a time just before it. Ten ticks.
pub(crate) const FINE_GRANULARITY: Duration = Duration::from_millis(100);

/// The same on a file system that keeps whole seconds (both times with no
/// nanoseconds): FAT keeps two.
pub(crate) const COARSE_GRANULARITY: Duration = Duration::from_secs(2);

impl FileStamp {
    pub(crate) fn of(s: &Stat) -> FileStamp {
        FileStamp {
            len: s.len,
            mtime: s.mtime,
            ino: s.ino,
            ctime: s.ctime,
            dev: s.dev,
        }
    }

    /// The granularity of its file system's times, as far as the stamp
    /// tells: whole seconds when neither time has nanoseconds.
    pub(crate) fn granularity(&self) -> Duration {
        if self.mtime.1 == 0 && self.ctime.1 == 0 {
            COARSE_GRANULARITY
        } else {
            FINE_GRANULARITY
        }
    }

    /// Git's racy-clean rule: whether the file may still change without its
    /// stamp changing, having been read at `read_at` (the moment the read
    /// began, by the system clock). A change within one tick of the file
    /// system's clock after the version stamped keeps its size, times and
    /// inode, so a stamp whose modification or change time is not older
    /// than `read_at` by more than the granularity cannot tell the version
    /// read from a later one: what was computed from it is not kept.
    pub(crate) fn racy(&self, read_at: SystemTime) -> bool {
        let g = self.granularity();
        let Some(settled) = read_at.checked_sub(g) else {
            return true;
        };
        [self.mtime, self.ctime]
            .iter()
            .any(|t| time_of(*t).is_none_or(|t| t >= settled))
    }
}

/// A stamp's time as a clock reading; `None` before 1970 or out of range.
fn time_of((secs, nanos): (i64, i64)) -> Option<SystemTime> {
    let secs = u64::try_from(secs).ok()?;
    let nanos = u32::try_from(nanos).ok().filter(|n| *n < 1_000_000_000)?;
    UNIX_EPOCH.checked_add(Duration::new(secs, nanos))
}

/// A file or folder an answer was computed from, and its stamp then
/// (`None`: it was missing).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Dep {
    /// Its path, as the folder it was reached through names it (the
    /// root's path, then names).
    pub(crate) path: PathBuf,
    /// Its stamp when read.
    pub(crate) stamp: Option<FileStamp>,
}

/// What a recording disk saw ([`crate::disk::Recorder`]) as the files an
/// answer depends on, each path once; `None` when a file was seen in two
/// versions (it changed while the answer was computed: the answer is not
/// kept).
pub(crate) fn deps(seen: Vec<Seen>) -> Option<Vec<Dep>> {
    let mut out: Vec<Dep> = Vec::with_capacity(seen.len());
    let mut at: HashMap<PathBuf, usize> = HashMap::new();
    for (path, stat) in seen {
        let stamp = stat.as_ref().map(FileStamp::of);
        match at.get(&path) {
            Some(&i) if out[i].stamp != stamp => return None,
            Some(_) => {}
            None => {
                at.insert(path.clone(), out.len());
                out.push(Dep { path, stamp });
            }
        }
    }
    Some(out)
}

/// Whether none of `deps` may still change without its stamp changing,
/// having been read at `read_at` ([`FileStamp::racy`]): what was computed
/// from them may be kept.
pub(crate) fn settled(deps: &[Dep], read_at: SystemTime) -> bool {
    !deps
        .iter()
        .any(|d| d.stamp.is_some_and(|s| s.racy(read_at)))
}

/// The folders opened for one call, by path (`None`: missing), so each is
/// opened once however many names in it are stated.
type Opened = HashMap<PathBuf, Option<Dir>>;

/// The folder `path`: below the root (`rel`: its names under it), each
/// folder on the way opened from the root's, never through a symlink;
/// elsewhere (the machine-local configuration folder), opened as a root.
fn folder<'o>(store: &Store, opened: &'o mut Opened, path: &Path) -> Result<Option<&'o Dir>> {
    if !opened.contains_key(path) {
        let disk = store.disk();
        let dir = match below_root(store, path) {
            Some(names) if names.is_empty() => disk.open_root(store.root())?,
            Some(names) => {
                let (last, up) = names.split_last().map_or(("", &[][..]), |(l, u)| (*l, u));
                let parent: PathBuf = up.iter().fold(store.root().to_owned(), |p, n| p.join(n));
                match folder(store, opened, &parent)? {
                    Some(p) => disk.open_dir(p, last)?,
                    None => None,
                }
            }
            None => disk.open_root(path)?,
        };
        opened.insert(path.to_owned(), dir);
    }
    Ok(opened.get(path).and_then(Option::as_ref))
}

/// The names of `path` below the root, when it is the root or below it
/// (plain names only).
fn below_root<'p>(store: &Store, path: &'p Path) -> Option<Vec<&'p str>> {
    path.strip_prefix(store.root())
        .ok()?
        .components()
        .map(|c| match c {
            Component::Normal(n) => n.to_str(),
            _ => None,
        })
        .collect()
}

/// The stamp of `path` now: `Ok(None)` when it (or a folder on the way) is
/// missing. The root itself, a folder or a file.
fn stamp_in(store: &Store, opened: &mut Opened, path: &Path) -> Result<Option<FileStamp>> {
    if below_root(store, path).is_some_and(|n| n.is_empty()) {
        return Ok(match folder(store, opened, path)? {
            Some(root) => Some(FileStamp::of(&store.disk().stat_dir(root)?)),
            None => None,
        });
    }
    let (Some(parent), Some(name)) = (path.parent(), path.file_name().and_then(|n| n.to_str()))
    else {
        return Ok(None);
    };
    match folder(store, opened, parent)? {
        Some(p) => Ok(store.disk().stat(p, name)?.map(|s| FileStamp::of(&s))),
        None => Ok(None),
    }
}

/// Whether each of `deps` has the same stamp now as when it was read (a
/// file that cannot be stated now, a symlink in the way say, is changed);
/// each folder on the way opened once.
pub(crate) fn unchanged(store: &Store, deps: &[&[Dep]]) -> Vec<bool> {
    let mut opened = Opened::new();
    deps.iter()
        .map(|list| {
            list.iter()
                .all(|d| stamp_in(store, &mut opened, &d.path).is_ok_and(|now| now == d.stamp))
        })
        .collect()
}

/// The root folder's device and inode (`None`: no root): what tells one
/// root from another in a cache of a process that opens several.
pub(crate) fn root_id(store: &Store) -> Result<Option<(u64, u64)>> {
    match store.disk().open_root(store.root())? {
        Some(root) => {
            let st = store.disk().stat_dir(&root)?;
            Ok(Some((st.dev, st.ino)))
        }
        None => Ok(None),
    }
}

/// The most components a name of the owner's folder has.
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

    /// `path`'s stamp now, as a dependency.
    fn dep(store: &Store, path: PathBuf) -> Dep {
        let stamp = stamp_in(store, &mut Opened::new(), &path).unwrap();
        Dep { path, stamp }
    }

    #[test]
    fn a_stamp_changes_with_the_file_and_a_hash_with_its_bytes() {
        let tmp = tempfile::tempdir().unwrap();
        let store = Store::open(tmp.path()).unwrap();
        let owner = store.owner("agt_a").unwrap();
        let memory = tmp.path().join("agt_a/MEMORY.md");
        let missing = [dep(&store, memory.clone())];
        assert_eq!(missing[0].stamp, None);
        assert_eq!(unchanged(&store, &[&missing]), [true]);
        let empty = sha256(&owner, "MEMORY.md").unwrap();
        owner
            .write(crate::edit::Op::add(Scope::Memory, "Prefers tea"))
            .unwrap();
        assert_eq!(unchanged(&store, &[&missing]), [false]);
        let one = [dep(&store, memory.clone()), dep(&store, tmp.path().into())];
        assert!(one.iter().all(|d| d.stamp.is_some()));
        assert_eq!(unchanged(&store, &[&one]), [true]);
        let h1 = sha256(&owner, "MEMORY.md").unwrap();
        assert_ne!(h1, empty);
        owner
            .write(crate::edit::Op::add(Scope::Memory, "Likes maps"))
            .unwrap();
        assert_eq!(unchanged(&store, &[&one, &[]]), [false, true]);
        assert_ne!(sha256(&owner, "MEMORY.md").unwrap(), h1);
    }

    #[test]
    fn the_same_size_and_modification_time_put_back_is_still_a_change() {
        let tmp = tempfile::tempdir().unwrap();
        let store = Store::open(tmp.path()).unwrap();
        let path = tmp.path().join("MEMORY.md");
        std::fs::write(&path, "- aaaa bbbb\n").unwrap();
        let mtime = std::fs::metadata(&path).unwrap().modified().unwrap();
        let before = [dep(&store, path.clone())];
        std::thread::sleep(Duration::from_millis(20));
        std::fs::write(&path, "- aa\n- bbbb\n").unwrap();
        let f = std::fs::File::options().write(true).open(&path).unwrap();
        f.set_modified(mtime).unwrap();
        let after = dep(&store, path);
        let (a, b) = (before[0].stamp.unwrap(), after.stamp.unwrap());
        assert_eq!((a.len, a.mtime, a.ino), (b.len, b.mtime, b.ino));
        assert_ne!(a.ctime, b.ctime);
        assert_eq!(unchanged(&store, &[&before]), [false]);
    }

    #[test]
    fn a_stamp_not_older_than_its_read_by_the_granularity_is_racy() {
        let read_at = UNIX_EPOCH + Duration::from_secs(1_800_000_000);
        let at = |t: SystemTime, nanos_too: bool| {
            let d = t.duration_since(UNIX_EPOCH).unwrap();
            let n = if nanos_too {
                i64::from(d.subsec_nanos())
            } else {
                0
            };
            (i64::try_from(d.as_secs()).unwrap(), n)
        };
        let stamp = |m: SystemTime, c: SystemTime, fine: bool| FileStamp {
            len: 1,
            mtime: at(m, fine),
            ino: 1,
            ctime: at(c, fine),
            dev: 1,
        };
        let ms = Duration::from_millis;
        // Nanosecond times: one more tick than the granularity back is
        // settled; within it, or after the read, is not.
        let old = read_at - ms(150) - Duration::from_nanos(1);
        assert!(!stamp(old, old, true).racy(read_at));
        assert!(stamp(read_at - ms(50), old, true).racy(read_at));
        assert!(stamp(old, read_at - ms(50), true).racy(read_at));
        assert!(stamp(read_at + ms(5), old, true).racy(read_at));
        assert!(stamp(read_at - FINE_GRANULARITY, old, true).racy(read_at));
        // Whole seconds: two of them.
        let s = Duration::from_secs;
        assert_eq!(stamp(old, old, false).granularity(), COARSE_GRANULARITY);
        assert!(stamp(read_at - s(1), read_at - s(1), false).racy(read_at));
        assert!(!stamp(read_at - s(3), read_at - s(3), false).racy(read_at));
        // A time before 1970 or out of range tells nothing.
        let mut odd = stamp(old, old, true);
        odd.mtime = (-5, 1);
        assert!(odd.racy(read_at));
        odd.mtime = (1, 2_000_000_000);
        assert!(odd.racy(read_at));
    }

    #[test]
    fn a_file_seen_in_two_versions_is_no_dependency() {
        let tmp = tempfile::tempdir().unwrap();
        let store = Store::open(tmp.path()).unwrap();
        let write = |text: &str| {
            store
                .owner("agt_a")
                .unwrap()
                .write(crate::edit::Op::add(Scope::Memory, text))
                .unwrap();
        };
        write("Prefers tea");
        let (recording, recorder) = store.recording().unwrap();
        let owner = recording.owner("agt_a").unwrap();
        owner.show(Scope::Memory).unwrap();
        let deps = deps(recorder.seen().unwrap()).unwrap();
        let stamp = |name: &str| {
            deps.iter()
                .find(|d| d.path == tmp.path().join(name))
                .map(|d| d.stamp)
        };
        // The root's settings (read again on opening: missing), the store.
        assert_eq!(stamp("memdir.yaml"), Some(None), "{deps:?}");
        assert!(stamp("agt_a/MEMORY.md").flatten().is_some(), "{deps:?}");
        write("Likes maps");
        owner.show(Scope::Memory).unwrap();
        assert_eq!(super::deps(recorder.seen().unwrap()), None);
    }

    #[test]
    fn only_plain_names_are_hashed() {
        let tmp = tempfile::tempdir().unwrap();
        let store = Store::open(tmp.path()).unwrap();
        let owner = store.owner("agt_a").unwrap();
        assert!(sha256(&owner, "../keys.yaml").is_err());
        assert!(sha256(&owner, ".memdir/x").is_err());
        assert!(sha256(&owner, "").is_err());
    }
}
