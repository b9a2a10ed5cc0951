//! The narrow I/O seam: every primitive operation memdir performs on files,
//! relative to an open folder ([`Dir`]). The real implementation makes
//! `*at` system calls (`openat`, `mkdirat`, `renameat2`, `unlinkat`) on the
//! folder's descriptor and never follows a symlink below the root; tests swap
//! in one that fails any step on purpose (`FaultyIo`).

use std::fs::File;
use std::io::{self, Write};
use std::os::fd::{AsFd, OwnedFd};
use std::path::Path;

use rustix::fs::{AtFlags, Mode, OFlags};

use super::dir::{Dir, Stat};

/// The primitive operations memdir performs on files.
///
/// Names are single path components of the folder they are relative to;
/// the disk layer builds them, never from user input that was not validated.
pub(crate) trait Io: Send + Sync + std::fmt::Debug {
    /// Opens the folder at `path` (the root: a path the caller chose, so a
    /// symlink there is followed).
    fn open_root(&self, path: &Path) -> io::Result<OwnedFd>;
    /// Creates `path` and its missing parents (the root only).
    fn create_dir_all(&self, path: &Path) -> io::Result<()>;
    /// Opens `name` in `dir` as a folder, never following a symlink.
    fn open_dir(&self, dir: &Dir, name: &str) -> io::Result<OwnedFd>;
    /// Creates the folder `name` in `dir`.
    fn mkdir(&self, dir: &Dir, name: &str) -> io::Result<()>;
    /// Opens `name` in `dir` for reading, without following a symlink (that
    /// fails with `ELOOP`) and without blocking on a FIFO.
    fn open_read(&self, dir: &Dir, name: &str) -> io::Result<File>;
    /// States `name` in `dir` without following a symlink.
    fn stat(&self, dir: &Dir, name: &str) -> io::Result<Stat>;
    /// States an open file or folder.
    fn fstat(&self, fd: &dyn AsFd) -> io::Result<Stat>;
    /// Creates the new file `name` in `dir` (fails if it exists), open for
    /// reading and writing, mode 0666
    /// before the umask, then exactly `mode` when given.
    fn create_new(&self, dir: &Dir, name: &str, mode: Option<u32>) -> io::Result<File>;
    /// Writes all of `bytes`.
    fn write_all(&self, file: &mut File, bytes: &[u8]) -> io::Result<()>;
    /// Syncs a file's content and metadata.
    fn sync_file(&self, file: &File) -> io::Result<()>;
    /// Renames `from` to `to` in `dir`, replacing `to`.
    fn rename(&self, dir: &Dir, from: &str, to: &str) -> io::Result<()>;
    /// Renames `from` to `to` in `dir` only if `to` does not exist.
    fn rename_noreplace(&self, dir: &Dir, from: &str, to: &str) -> io::Result<()>;
    /// Atomically swaps `a` and `b` in `dir` (`renameat2(RENAME_EXCHANGE)`).
    fn exchange(&self, dir: &Dir, a: &str, b: &str) -> io::Result<()>;
    /// Syncs a folder (its entries).
    fn sync_dir(&self, dir: &Dir) -> io::Result<()>;
    /// Removes the file `name` from `dir`.
    fn remove_file(&self, dir: &Dir, name: &str) -> io::Result<()>;
    /// Removes the empty folder `name` from `dir`.
    fn remove_dir(&self, dir: &Dir, name: &str) -> io::Result<()>;
    /// The names in `dir` (valid UTF-8 names only).
    fn read_dir_names(&self, dir: &Dir) -> io::Result<Vec<String>>;
    /// Opens (creating if missing) the lock file `name` in `dir` for writing,
    /// without following a symlink and without blocking on a FIFO.
    fn open_lock(&self, dir: &Dir, name: &str) -> io::Result<File>;
}

/// The real file system.
#[derive(Debug, Default)]
pub(crate) struct RealIo;

/// Flags every open of a name under the root carries.
fn no_follow() -> OFlags {
    OFlags::NOFOLLOW | OFlags::CLOEXEC
}

impl Io for RealIo {
    fn open_root(&self, path: &Path) -> io::Result<OwnedFd> {
        rustix::fs::open(
            path,
            OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
            Mode::empty(),
        )
        .map_err(io::Error::from)
    }
    fn create_dir_all(&self, path: &Path) -> io::Result<()> {
        std::fs::create_dir_all(path)
    }
    fn open_dir(&self, dir: &Dir, name: &str) -> io::Result<OwnedFd> {
        rustix::fs::openat(
            dir,
            name,
            OFlags::RDONLY | OFlags::DIRECTORY | no_follow(),
            Mode::empty(),
        )
        .map_err(io::Error::from)
    }
    fn mkdir(&self, dir: &Dir, name: &str) -> io::Result<()> {
        rustix::fs::mkdirat(dir, name, Mode::from_raw_mode(0o777)).map_err(io::Error::from)
    }
    fn open_read(&self, dir: &Dir, name: &str) -> io::Result<File> {
        let fd = rustix::fs::openat(
            dir,
            name,
            OFlags::RDONLY | OFlags::NONBLOCK | no_follow(),
            Mode::empty(),
        )?;
        Ok(File::from(fd))
    }
    fn stat(&self, dir: &Dir, name: &str) -> io::Result<Stat> {
        let st = rustix::fs::statat(dir, name, AtFlags::SYMLINK_NOFOLLOW)?;
        Ok(Stat::from_raw(&st))
    }
    fn fstat(&self, fd: &dyn AsFd) -> io::Result<Stat> {
        let st = rustix::fs::fstat(fd.as_fd())?;
        Ok(Stat::from_raw(&st))
    }
    fn create_new(&self, dir: &Dir, name: &str, mode: Option<u32>) -> io::Result<File> {
        let fd = rustix::fs::openat(
            dir,
            name,
            OFlags::RDWR | OFlags::CREATE | OFlags::EXCL | no_follow(),
            Mode::from_raw_mode(0o666),
        )?;
        let file = File::from(fd);
        if let Some(mode) = mode
            && let Err(e) = rustix::fs::fchmod(&file, Mode::from_raw_mode(mode & 0o7777))
        {
            drop(file);
            let _ = rustix::fs::unlinkat(dir, name, AtFlags::empty());
            return Err(e.into());
        }
        Ok(file)
    }
    fn write_all(&self, file: &mut File, bytes: &[u8]) -> io::Result<()> {
        file.write_all(bytes)
    }
    fn sync_file(&self, file: &File) -> io::Result<()> {
        file.sync_all()
    }
    fn rename(&self, dir: &Dir, from: &str, to: &str) -> io::Result<()> {
        rustix::fs::renameat(dir, from, dir, to).map_err(io::Error::from)
    }
    #[cfg(any(target_os = "linux", target_os = "android", target_vendor = "apple"))]
    fn rename_noreplace(&self, dir: &Dir, from: &str, to: &str) -> io::Result<()> {
        use rustix::fs::RenameFlags;
        rustix::fs::renameat_with(dir, from, dir, to, RenameFlags::NOREPLACE)
            .map_err(io::Error::from)
    }
    #[cfg(not(any(target_os = "linux", target_os = "android", target_vendor = "apple")))]
    fn rename_noreplace(&self, dir: &Dir, from: &str, to: &str) -> io::Result<()> {
        // Elsewhere a hard link fails if `to` exists, then the temp name goes.
        rustix::fs::linkat(dir, from, dir, to, AtFlags::empty())?;
        rustix::fs::unlinkat(dir, from, AtFlags::empty()).map_err(io::Error::from)
    }
    #[cfg(any(target_os = "linux", target_os = "android", target_vendor = "apple"))]
    fn exchange(&self, dir: &Dir, a: &str, b: &str) -> io::Result<()> {
        use rustix::fs::RenameFlags;
        rustix::fs::renameat_with(dir, a, dir, b, RenameFlags::EXCHANGE).map_err(io::Error::from)
    }
    #[cfg(not(any(target_os = "linux", target_os = "android", target_vendor = "apple")))]
    fn exchange(&self, _dir: &Dir, _a: &str, _b: &str) -> io::Result<()> {
        Err(io::Error::from(io::ErrorKind::Unsupported))
    }
    fn sync_dir(&self, dir: &Dir) -> io::Result<()> {
        rustix::fs::fsync(dir).map_err(io::Error::from)
    }
    fn remove_file(&self, dir: &Dir, name: &str) -> io::Result<()> {
        rustix::fs::unlinkat(dir, name, AtFlags::empty()).map_err(io::Error::from)
    }
    fn remove_dir(&self, dir: &Dir, name: &str) -> io::Result<()> {
        rustix::fs::unlinkat(dir, name, AtFlags::REMOVEDIR).map_err(io::Error::from)
    }
    fn read_dir_names(&self, dir: &Dir) -> io::Result<Vec<String>> {
        let mut names = Vec::new();
        for entry in rustix::fs::Dir::read_from(dir)? {
            let entry = entry?;
            if let Ok(n) = entry.file_name().to_str()
                && n != "."
                && n != ".."
            {
                names.push(n.to_owned());
            }
        }
        Ok(names)
    }
    fn open_lock(&self, dir: &Dir, name: &str) -> io::Result<File> {
        let fd = rustix::fs::openat(
            dir,
            name,
            OFlags::WRONLY | OFlags::CREATE | OFlags::NONBLOCK | no_follow(),
            Mode::from_raw_mode(0o666),
        )?;
        Ok(File::from(fd))
    }
}
