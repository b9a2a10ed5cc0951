//! An [`Io`] that fails its Nth write step, for crash-consistency tests.

use std::fs::File;
use std::io;
use std::os::fd::{AsFd, OwnedFd};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};

use super::dir::{Dir, Stat};
use super::io::{Io, RealIo};

/// Fails the `fail_at`-th step that changes something on disk (reads, stats
/// and removals of temp files are not counted: they change nothing a crash
/// could leave behind).
#[derive(Debug)]
pub(crate) struct FaultyIo {
    pub(crate) fail_at: usize,
    pub(crate) count: AtomicUsize,
}

impl FaultyIo {
    pub(crate) fn new(fail_at: usize) -> FaultyIo {
        FaultyIo {
            fail_at,
            count: AtomicUsize::new(0),
        }
    }

    fn step(&self) -> io::Result<()> {
        if self.count.fetch_add(1, Ordering::SeqCst) + 1 == self.fail_at {
            Err(io::Error::other("injected failure"))
        } else {
            Ok(())
        }
    }
}

impl Io for FaultyIo {
    fn open_root(&self, path: &Path) -> io::Result<OwnedFd> {
        RealIo.open_root(path)
    }
    fn create_dir_all(&self, path: &Path) -> io::Result<()> {
        self.step()?;
        RealIo.create_dir_all(path)
    }
    fn open_dir(&self, dir: &Dir, name: &str) -> io::Result<OwnedFd> {
        RealIo.open_dir(dir, name)
    }
    fn mkdir(&self, dir: &Dir, name: &str) -> io::Result<()> {
        self.step()?;
        RealIo.mkdir(dir, name)
    }
    fn open_read(&self, dir: &Dir, name: &str) -> io::Result<File> {
        RealIo.open_read(dir, name)
    }
    fn stat(&self, dir: &Dir, name: &str) -> io::Result<Stat> {
        RealIo.stat(dir, name)
    }
    fn fstat(&self, fd: &dyn AsFd) -> io::Result<Stat> {
        RealIo.fstat(fd)
    }
    fn create_new(&self, dir: &Dir, name: &str, mode: Option<u32>) -> io::Result<File> {
        self.step()?;
        RealIo.create_new(dir, name, mode)
    }
    fn write_all(&self, file: &mut File, bytes: &[u8]) -> io::Result<()> {
        self.step()?;
        RealIo.write_all(file, bytes)
    }
    fn sync_file(&self, file: &File) -> io::Result<()> {
        self.step()?;
        RealIo.sync_file(file)
    }
    fn rename(&self, dir: &Dir, from: &str, to: &str) -> io::Result<()> {
        self.step()?;
        RealIo.rename(dir, from, to)
    }
    fn rename_noreplace(&self, dir: &Dir, from: &str, to: &str) -> io::Result<()> {
        self.step()?;
        RealIo.rename_noreplace(dir, from, to)
    }
    fn exchange(&self, dir: &Dir, a: &str, b: &str) -> io::Result<()> {
        self.step()?;
        RealIo.exchange(dir, a, b)
    }
    fn sync_dir(&self, dir: &Dir) -> io::Result<()> {
        self.step()?;
        RealIo.sync_dir(dir)
    }
    fn remove_file(&self, dir: &Dir, name: &str) -> io::Result<()> {
        RealIo.remove_file(dir, name)
    }
    fn remove_dir(&self, dir: &Dir, name: &str) -> io::Result<()> {
        RealIo.remove_dir(dir, name)
    }
    fn read_dir_names(&self, dir: &Dir) -> io::Result<Vec<String>> {
        RealIo.read_dir_names(dir)
    }
    fn open_lock(&self, dir: &Dir, name: &str) -> io::Result<File> {
        RealIo.open_lock(dir, name)
    }
}
