//! The disk layer: the only code that touches files.
//!
//! Everything below the memory root is reached relative to an open folder
//! ([`Dir`]): a folder is opened once (`O_DIRECTORY`, never following a
//! symlink below the root) and files are read, written, renamed and removed
//! through its descriptor with `*at` calls, so a folder swapped for a symlink
//! after it was opened cannot redirect a write. A [`Disk`] owns the I/O seam
//! ([`Io`], which tests replace to fail any step) and the poison flag that
//! stops writes after a failed sync.
//!
//! What it offers: stable reads ([`Disk::read`]), durable whole-file writes
//! ([`Disk::write_atomic`]), the editor-safe replace ([`Disk::replace`]) and
//! several of them in a stated order ([`Disk::replace_in_order`]), durable
//! folder creation ([`Disk::ensure_dir`]), locks as guard values
//! ([`Disk::lock`]), the sweep of leftover temp files, and spools: content
//! taken in chunks into an unlinked temp file ([`Disk::spool`]), written
//! out durably behind a head ([`Disk::write_atomic_spooled`]); and a disk
//! that notes what was read through it ([`Disk::recording`]), for a cache
//! keyed by those files; and the recall model a Python environment
//! installed beside the binary, extracted once into the cache folder
//! ([`model_zip`]).

mod dir;
#[cfg(test)]
pub(crate) mod faulty;
mod io;
mod lock;
#[cfg(feature = "embed")]
pub(crate) mod model_zip;
mod read;
mod record;
mod spool;
#[cfg(test)]
mod tests;
mod watch;
mod write;

use std::io::ErrorKind;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

pub(crate) use dir::{Dir, DirStamp, Kind, Stat};
pub(crate) use io::{Io, RealIo};
pub(crate) use lock::Lock;
pub(crate) use read::{Held, Tail};
pub(crate) use record::{Recorder, Seen};
pub(crate) use spool::{COPY_BYTES, Spool};
pub(crate) use watch::{FolderWatch, TreeWatch};
pub(crate) use write::{Base, Change};

use crate::error::{Error, Result};

/// Largest markdown file memdir reads for editing.
pub const MAX_FILE_BYTES: u64 = 1024 * 1024;

/// Suffix of every temp file memdir writes; leftovers are swept under the lock.
pub const TEMP_SUFFIX: &str = ".memdir-tmp";

/// Remembers the first failed sync; after it, no more writes (fjall's rule:
/// a failed fsync leaves the page cache in an unknown state).
#[derive(Debug, Default)]
pub(crate) struct Poison(Mutex<Option<PathBuf>>);

impl Poison {
    /// Refuses with [`Error::Poisoned`] once a sync has failed.
    pub(crate) fn check(&self) -> Result<()> {
        match self.0.lock() {
            Ok(g) => match g.as_ref() {
                Some(path) => Err(Error::Poisoned { path: path.clone() }),
                None => Ok(()),
            },
            Err(_) => Err(Error::Poisoned {
                path: PathBuf::new(),
            }),
        }
    }

    fn set(&self, path: &Path) {
        if let Ok(mut g) = self.0.lock() {
            g.get_or_insert_with(|| path.to_owned());
        }
    }
}

/// The file system as memdir uses it: the I/O seam and the poison flag.
/// Clones share both.
#[derive(Debug, Clone)]
pub(crate) struct Disk {
    io: Arc<dyn Io>,
    poison: Arc<Poison>,
    /// The in-process queues of lock waiters.
    gates: Arc<lock::Gates>,
}

impl Default for Disk {
    fn default() -> Disk {
        Disk::new(Arc::new(RealIo))
    }
}

impl Disk {
    /// A disk over `io`, not poisoned.
    pub(crate) fn new(io: Arc<dyn Io>) -> Disk {
        Disk {
            io,
            poison: Arc::default(),
            gates: Arc::default(),
        }
    }

    /// Refuses with [`Error::Poisoned`] once a sync has failed.
    pub(crate) fn check(&self) -> Result<()> {
        self.poison.check()
    }

    /// This disk noting what is read through it ([`Recorder`]): the same
    /// poison flag and lock queues, and the recorder to ask what was read.
    pub(crate) fn recording(&self) -> (Disk, Arc<Recorder>) {
        let recorder = Arc::new(Recorder::new(self.io.clone()));
        let disk = Disk {
            io: recorder.clone(),
            poison: self.poison.clone(),
            gates: self.gates.clone(),
        };
        (disk, recorder)
    }

    /// Opens the root folder at `path`; `None` if it does not exist.
    pub(crate) fn open_root(&self, path: &Path) -> Result<Option<Dir>> {
        match self.io.open_root(path) {
            Ok(fd) => Ok(Some(Dir::new(fd, path.to_owned()))),
            Err(e) if e.kind() == ErrorKind::NotFound => Ok(None),
            Err(e) if e.raw_os_error() == Some(rustix::io::Errno::NOTDIR.raw_os_error()) => {
                Err(Error::UnsafePath {
                    path: path.to_owned(),
                })
            }
            Err(e) => Err(Error::io(path, "open folder")(e)),
        }
    }

    /// Opens the root folder at `path`, creating it and its missing parents
    /// first; each folder created is synced into its parent, top down, so
    /// that it survives a crash as a file written inside it does (a failed
    /// sync poisons).
    pub(crate) fn ensure_root(&self, path: &Path) -> Result<Dir> {
        self.check()?;
        if let Some(dir) = self.open_root(path)? {
            return Ok(dir);
        }
        let mut missing = Vec::new();
        let mut at = Some(path);
        while let Some(d) = at.filter(|d| !d.as_os_str().is_empty()) {
            if std::fs::symlink_metadata(d).is_ok() {
                break;
            }
            missing.push(d);
            at = d.parent();
        }
        self.io
            .create_dir_all(path)
            .map_err(Error::io(path, "create folder"))?;
        for d in missing.iter().rev() {
            let parent = d
                .parent()
                .filter(|p| !p.as_os_str().is_empty())
                .unwrap_or(Path::new("."));
            if let Some(p) = self.open_root(parent)? {
                write::sync_dir(self.io.as_ref(), &self.poison, &p)?;
            }
        }
        self.open_root(path)?.ok_or_else(|| {
            Error::io(path, "open folder")(std::io::Error::from(ErrorKind::NotFound))
        })
    }

    /// Opens `name` in `parent` as a folder; `None` if missing. A symlink or
    /// anything but a folder there is [`Error::UnsafePath`].
    pub(crate) fn open_dir(&self, parent: &Dir, name: &str) -> Result<Option<Dir>> {
        let path = parent.join(name);
        match self.io.open_dir(parent, name) {
            Ok(fd) => Ok(Some(Dir::new(fd, path))),
            Err(e) if e.kind() == ErrorKind::NotFound => Ok(None),
            Err(e)
                if [rustix::io::Errno::LOOP, rustix::io::Errno::NOTDIR]
                    .iter()
                    .any(|n| e.raw_os_error() == Some(n.raw_os_error())) =>
            {
                Err(Error::UnsafePath { path })
            }
            Err(e) => Err(Error::io(path, "open folder")(e)),
        }
    }

    /// Opens the folder `name` in `parent`, creating it first if missing
    /// (then syncing `parent`, so the new folder is durable; a failed sync
    /// poisons). Refuses a symlink or anything but a folder there. Also says
    /// whether it was created.
    pub(crate) fn ensure_dir(&self, parent: &Dir, name: &str) -> Result<(Dir, bool)> {
        if let Some(dir) = self.open_dir(parent, name)? {
            return Ok((dir, false));
        }
        self.check()?;
        let created = match self.io.mkdir(parent, name) {
            Ok(()) => true,
            Err(e) if e.kind() == ErrorKind::AlreadyExists => false,
            Err(e) => return Err(Error::io(parent.join(name), "create folder")(e)),
        };
        if created {
            write::sync_dir(self.io.as_ref(), &self.poison, parent)?;
        }
        let dir = self.open_dir(parent, name)?.ok_or_else(|| {
            Error::io(parent.join(name), "open folder")(std::io::Error::from(ErrorKind::NotFound))
        })?;
        Ok((dir, created))
    }

    /// States `name` in `dir` without following a symlink; `None` if missing.
    pub(crate) fn stat(&self, dir: &Dir, name: &str) -> Result<Option<Stat>> {
        match self.io.stat(dir, name) {
            Ok(s) => Ok(Some(s)),
            Err(e) if e.kind() == ErrorKind::NotFound => Ok(None),
            Err(e) => Err(Error::io(dir.join(name), "stat")(e)),
        }
    }

    /// States an open folder itself (its mode and owner).
    pub(crate) fn stat_dir(&self, dir: &Dir) -> Result<Stat> {
        self.io
            .fstat(dir)
            .map_err(Error::io(dir.path(), "stat folder"))
    }

    /// The stamp of an open folder (`None` if it cannot be stated).
    pub(crate) fn stamp(&self, dir: &Dir) -> Option<DirStamp> {
        self.io.fstat(dir).ok().map(|s| DirStamp::of(&s))
    }

    /// The names in `dir`.
    pub(crate) fn list(&self, dir: &Dir) -> Result<Vec<String>> {
        self.io
            .read_dir_names(dir)
            .map_err(Error::io(dir.path(), "list folder"))
    }

    /// Reads `name` in `dir` whole and stable (see [`Held`]); `None` if
    /// missing. Refuses a symlink or special file ([`Error::UnsafePath`])
    /// and, before reading, a file over `limit` bytes
    /// ([`Error::FileTooLarge`]).
    pub(crate) fn read(&self, dir: &Dir, name: &str, limit: u64) -> Result<Option<Held>> {
        read::stable_read(self.io.as_ref(), dir, name, limit)
    }

    /// The end of a regular file, read a piece at a time from its end until
    /// `cut` finds where the caller's part begins (see
    /// `read::stable_read_tail`); `None` if missing.
    pub(crate) fn read_tail(
        &self,
        dir: &Dir,
        name: &str,
        limit: u64,
        cut: &dyn Fn(&[u8]) -> Option<usize>,
    ) -> Result<Option<Tail>> {
        read::stable_read_tail(self.io.as_ref(), dir, name, limit, cut)
    }

    /// [`Disk::read`], the bytes only.
    pub(crate) fn read_bytes(&self, dir: &Dir, name: &str, limit: u64) -> Result<Option<Vec<u8>>> {
        Ok(self.read(dir, name, limit)?.map(|h| h.bytes))
    }

    /// [`Disk::read`] of a text file: refuses invalid UTF-8
    /// ([`Error::InvalidUtf8`]).
    pub(crate) fn read_text(&self, dir: &Dir, name: &str, limit: u64) -> Result<Option<String>> {
        match self.read_bytes(dir, name, limit)? {
            Some(b) => decode(&dir.join(name), b).map(Some),
            None => Ok(None),
        }
    }

    /// Removes `name` from `dir` (a symlink itself, never its target);
    /// whether it was there.
    pub(crate) fn remove_file(&self, dir: &Dir, name: &str) -> Result<bool> {
        match self.io.remove_file(dir, name) {
            Ok(()) => Ok(true),
            Err(e) if e.kind() == ErrorKind::NotFound => Ok(false),
            Err(e) => Err(Error::io(dir.join(name), "remove")(e)),
        }
    }

    /// Removes the file `name` from `dir` durably (the folder is synced
    /// after); whether it was there.
    pub(crate) fn remove_file_durably(&self, dir: &Dir, name: &str) -> Result<bool> {
        self.check()?;
        let was = self.remove_file(dir, name)?;
        if was {
            write::sync_dir(self.io.as_ref(), &self.poison, dir)?;
        }
        Ok(was)
    }

    /// Removes the folder `name` from `parent` if it is empty (then syncs
    /// `parent`); `false`, and nothing removed, when it is missing or holds
    /// anything. Never follows a symlink, never removes what is inside.
    pub(crate) fn remove_empty_dir(&self, parent: &Dir, name: &str) -> Result<bool> {
        self.check()?;
        match self.io.remove_dir(parent, name) {
            Ok(()) => {
                write::sync_dir(self.io.as_ref(), &self.poison, parent)?;
                Ok(true)
            }
            Err(e)
                if e.kind() == ErrorKind::NotFound
                    || e.kind() == ErrorKind::DirectoryNotEmpty
                    || e.raw_os_error() == Some(rustix::io::Errno::NOTEMPTY.raw_os_error())
                    || e.raw_os_error() == Some(rustix::io::Errno::EXIST.raw_os_error()) =>
            {
                Ok(false)
            }
            Err(e) => Err(Error::io(parent.join(name), "remove folder")(e)),
        }
    }

    /// Moves whatever is at `name` in `dir` (a folder planted where memdir
    /// keeps a file) to `<name>.set-aside-<n>`, never over anything, then
    /// syncs `dir`; the new name, or `None` when nothing is at `name`. What
    /// was there stays, under the new name, for a person to look at.
    pub(crate) fn set_aside(&self, dir: &Dir, name: &str) -> Result<Option<String>> {
        self.check()?;
        let stamp = chrono::Utc::now().timestamp_micros();
        for n in 0..16 {
            let to = format!("{name}.set-aside-{stamp}-{n}");
            match self.io.rename_noreplace(dir, name, &to) {
                Ok(()) => {
                    write::sync_dir(self.io.as_ref(), &self.poison, dir)?;
                    return Ok(Some(to));
                }
                Err(e) if e.kind() == ErrorKind::NotFound => return Ok(None),
                Err(e) if e.kind() == ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(Error::io(dir.join(name), "set aside")(e)),
            }
        }
        Err(Error::io(dir.join(name), "set aside")(
            std::io::Error::from(ErrorKind::AlreadyExists),
        ))
    }

    /// Durably writes a whole new file (temp, sync, rename, folder sync).
    /// For files only memdir writes.
    pub(crate) fn write_atomic(&self, dir: &Dir, name: &str, bytes: &[u8]) -> Result<()> {
        write::write_atomic(self.io.as_ref(), &self.poison, dir, name, bytes)
    }

    /// Replaces `name` in `dir` atomically but not durably (no sync): for
    /// derived figures that must never be torn but may be lost.
    pub(crate) fn write_atomic_volatile(&self, dir: &Dir, name: &str, bytes: &[u8]) -> Result<()> {
        write::write_atomic_volatile(self.io.as_ref(), &self.poison, dir, name, bytes)
    }

    /// Creates `name` in `dir` durably with `bytes` and the permission bits
    /// `mode`, unless the name exists: then `false`, and it is left as it is.
    pub(crate) fn create_new(
        &self,
        dir: &Dir,
        name: &str,
        bytes: &[u8],
        mode: u32,
    ) -> Result<bool> {
        write::create_new(self.io.as_ref(), &self.poison, dir, name, bytes, mode)
    }

    /// Replaces a file durably without losing an editor's save made
    /// meanwhile (see [`Change`]). Returns the bytes on disk at the end
    /// (`None`: unchanged).
    pub(crate) fn replace(&self, change: Change<'_>) -> Result<Option<Vec<u8>>> {
        write::replace(self.io.as_ref(), &self.poison, change)
    }

    /// Replaces several files, each durably, in the order given, stopping at
    /// the first failure. The order is the caller's promise for a crash
    /// between two of them (archive.md before the store a memory leaves, so
    /// that a crash leaves it in both rather than in neither).
    pub(crate) fn replace_in_order(
        &self,
        changes: Vec<Change<'_>>,
    ) -> Result<Vec<Option<Vec<u8>>>> {
        changes.into_iter().map(|c| self.replace(c)).collect()
    }

    /// Takes the exclusive lock on `name` in `dir`, waiting at most `timeout`.
    pub(crate) fn lock(&self, dir: &Dir, name: &str, timeout: Duration) -> Result<Lock> {
        lock::acquire(self.io.as_ref(), &self.gates, dir, name, timeout)
    }

    /// Takes a shared lock on `name` in `dir` (created if missing), trying
    /// until `deadline`: a mark of a process at work that [`Disk::is_held`]
    /// sees and that the kernel drops when the process exits, however it
    /// exits. `None` when it could not be taken in time.
    pub(crate) fn share(
        &self,
        dir: &Dir,
        name: &str,
        deadline: std::time::Instant,
    ) -> Result<Option<Lock>> {
        lock::share(self.io.as_ref(), dir, name, deadline)
    }

    /// Whether a process holds a lock on `name` in `dir` (one non-blocking
    /// attempt; creates nothing).
    pub(crate) fn is_held(&self, dir: &Dir, name: &str) -> Result<bool> {
        lock::is_held(self.io.as_ref(), dir, name)
    }

    /// Removes the temp files a killed writer left in `dir`. Call under the
    /// lock that guards the folder's writers.
    pub(crate) fn sweep_temps(&self, dir: &Dir) {
        self.sweep(dir, None);
    }

    /// Removes the temp files in `dir` last changed more than `age` ago: for
    /// folders whose writers take no common lock (a temp file that old is no
    /// write in progress: memdir's writes take milliseconds).
    pub(crate) fn sweep_stale_temps(&self, dir: &Dir, age: Duration) {
        self.sweep(dir, Some(age));
    }

    fn sweep(&self, dir: &Dir, age: Option<Duration>) {
        if let Ok(names) = self.io.read_dir_names(dir) {
            for n in names
                .iter()
                .filter(|n| n.starts_with('.') && n.ends_with(TEMP_SUFFIX))
            {
                let stale = match age {
                    None => true,
                    Some(age) => self
                        .io
                        .stat(dir, n)
                        .is_ok_and(|st| st.kind == Kind::File && !st.changed_within(age)),
                };
                if stale {
                    let _ = self.io.remove_file(dir, n);
                }
            }
        }
    }
}

/// Decodes a text file's bytes, refusing invalid UTF-8 (naming `path`).
pub(crate) fn decode(path: &Path, bytes: Vec<u8>) -> Result<String> {
    String::from_utf8(bytes).map_err(|e| Error::InvalidUtf8 {
        path: path.to_owned(),
        offset: e.utf8_error().valid_up_to(),
    })
}

/// [`decode`], first refusing more than `limit` bytes
/// ([`Error::FileTooLarge`]): for bytes that did not come from
/// [`Disk::read`], such as an editor's save met by a swap.
pub(crate) fn decode_limited(path: &Path, bytes: Vec<u8>, limit: u64) -> Result<String> {
    if bytes.len() as u64 > limit {
        return Err(Error::FileTooLarge {
            path: path.to_owned(),
            size: bytes.len() as u64,
            limit,
        });
    }
    decode(path, bytes)
}

/// Whether the folder `path` is `root` or lies inside it, symlinks resolved
/// (a path that cannot be resolved counts as inside: refused, not trusted).
/// For files that must stay out of a memory root, which a `git pull` can
/// change: the keys of `memdir serve`.
pub(crate) fn is_within(path: &Path, root: &Path) -> bool {
    let Ok(p) = std::fs::canonicalize(path) else {
        return true;
    };
    match std::fs::canonicalize(root) {
        Ok(r) => p.starts_with(r),
        // No root yet: compare the path as given, made absolute.
        Err(_) => std::path::absolute(root).is_ok_and(|r| p.starts_with(r)),
    }
}
