//! An [`Io`] that notes what a computation read: each file opened to read
//! (its stat as opened, or that it was missing), each name stated, each
//! folder listed (its own stat: adding, renaming or removing a name in it
//! changes it) and each folder looked for and missing. What it notes is
//! what a cache of the computation's answer is keyed by
//! (`api::summaries`): every step still goes to the inner [`Io`].

use std::fs::File;
use std::io::{self, ErrorKind};
use std::os::fd::{AsFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use super::dir::{Dir, Stat};
use super::io::Io;

/// A file or folder a computation depended on: its path (as the folder it
/// was reached through names it), and its stat then (`None`: missing).
pub(crate) type Seen = (PathBuf, Option<Stat>);

/// The [`Io`] of a recording [`super::Disk`]: the inner one's, noting what
/// was read.
#[derive(Debug)]
pub(crate) struct Recorder {
    inner: Arc<dyn Io>,
    seen: Mutex<Vec<Seen>>,
}

impl Recorder {
    /// A recorder over `inner`, having seen nothing.
    pub(crate) fn new(inner: Arc<dyn Io>) -> Recorder {
        Recorder {
            inner,
            seen: Mutex::new(Vec::new()),
        }
    }

    /// What was read so far, in order (a path may come more than once, each
    /// time with its stat then). `None` if the list was lost to a panic
    /// while noting (then nothing read can be trusted as noted).
    pub(crate) fn seen(&self) -> Option<Vec<Seen>> {
        self.seen.lock().ok().map(|s| s.clone())
    }

    fn note(&self, path: PathBuf, stat: Option<Stat>) {
        if let Ok(mut s) = self.seen.lock() {
            s.push((path, stat));
        }
    }

    /// Notes `name` in `dir` missing when `r` says so.
    fn missing<T>(&self, dir: &Dir, name: &str, r: &io::Result<T>) {
        if matches!(r, Err(e) if e.kind() == ErrorKind::NotFound) {
            self.note(dir.join(name), None);
        }
    }
}

impl Io for Recorder {
    fn open_root(&self, path: &Path) -> io::Result<OwnedFd> {
        self.inner.open_root(path)
    }
    fn create_dir_all(&self, path: &Path) -> io::Result<()> {
        self.inner.create_dir_all(path)
    }
    fn open_dir(&self, dir: &Dir, name: &str) -> io::Result<OwnedFd> {
        let r = self.inner.open_dir(dir, name);
        self.missing(dir, name, &r);
        r
    }
    fn mkdir(&self, dir: &Dir, name: &str) -> io::Result<()> {
        self.inner.mkdir(dir, name)
    }
    fn open_read(&self, dir: &Dir, name: &str) -> io::Result<File> {
        let r = self.inner.open_read(dir, name);
        match &r {
            Ok(f) => {
                // A file that cannot be stated is noted as missing: it then
                // never matches what a second look finds.
                let st = self.inner.fstat(f).ok();
                self.note(dir.join(name), st);
            }
            Err(_) => self.missing(dir, name, &r),
        }
        r
    }
    fn stat(&self, dir: &Dir, name: &str) -> io::Result<Stat> {
        let r = self.inner.stat(dir, name);
        match &r {
            Ok(st) => self.note(dir.join(name), Some(*st)),
            Err(_) => self.missing(dir, name, &r),
        }
        r
    }
    fn fstat(&self, fd: &dyn AsFd) -> io::Result<Stat> {
        self.inner.fstat(fd)
    }
    fn create_new(&self, dir: &Dir, name: &str, mode: Option<u32>) -> io::Result<File> {
        self.inner.create_new(dir, name, mode)
    }
    fn write_all(&self, file: &mut File, bytes: &[u8]) -> io::Result<()> {
        self.inner.write_all(file, bytes)
    }
    fn sync_file(&self, file: &File) -> io::Result<()> {
        self.inner.sync_file(file)
    }
    fn rename(&self, dir: &Dir, from: &str, to: &str) -> io::Result<()> {
        self.inner.rename(dir, from, to)
    }
    fn rename_noreplace(&self, dir: &Dir, from: &str, to: &str) -> io::Result<()> {
        self.inner.rename_noreplace(dir, from, to)
    }
    fn exchange(&self, dir: &Dir, a: &str, b: &str) -> io::Result<()> {
        self.inner.exchange(dir, a, b)
    }
    fn sync_dir(&self, dir: &Dir) -> io::Result<()> {
        self.inner.sync_dir(dir)
    }
    fn remove_file(&self, dir: &Dir, name: &str) -> io::Result<()> {
        self.inner.remove_file(dir, name)
    }
    fn remove_dir(&self, dir: &Dir, name: &str) -> io::Result<()> {
        self.inner.remove_dir(dir, name)
    }
    fn read_dir_names(&self, dir: &Dir) -> io::Result<Vec<String>> {
        // The folder's stat before its names: a name added meanwhile
        // changes it after, so the next look sees a change.
        let st = self.inner.fstat(dir).ok();
        self.note(dir.path().to_owned(), st);
        self.inner.read_dir_names(dir)
    }
    fn open_lock(&self, dir: &Dir, name: &str) -> io::Result<File> {
        self.inner.open_lock(dir, name)
    }
}
