//! Open folders and what a stat says about a file.

use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::path::{Path, PathBuf};

use rustix::fs::FileType;

/// A folder memdir opened: its descriptor, and the path it was opened at
/// (for messages only: every operation goes through the descriptor).
#[derive(Debug)]
pub(crate) struct Dir {
    fd: OwnedFd,
    path: PathBuf,
}

impl Dir {
    pub(crate) fn new(fd: OwnedFd, path: PathBuf) -> Dir {
        Dir { fd, path }
    }

    /// The path the folder was opened at.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// The path of `name` in this folder, for messages.
    pub(crate) fn join(&self, name: &str) -> PathBuf {
        self.path.join(name)
    }
}

impl AsFd for Dir {
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.fd.as_fd()
    }
}

/// What kind of file a name is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A regular file.
    File,
    /// A folder.
    Dir,
    /// A symbolic link.
    Symlink,
    /// Anything else: a FIFO, a socket, a device.
    Other,
}

/// A file's metadata, as `stat` gives it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Stat {
    /// What kind of file it is.
    pub(crate) kind: Kind,
    /// Its size in bytes.
    pub(crate) len: u64,
    /// Its permission bits.
    pub(crate) mode: u32,
    /// Its inode number.
    pub(crate) ino: u64,
    /// The device it is on.
    pub(crate) dev: u64,
    /// The user id of its owner.
    pub(crate) uid: u32,
    /// Last modification, seconds and nanoseconds.
    pub(crate) mtime: (i64, i64),
    /// Last status change, seconds and nanoseconds.
    pub(crate) ctime: (i64, i64),
}

impl Stat {
    /// Converts the system's `struct stat` (its field types vary by target).
    #[allow(clippy::unnecessary_cast, clippy::useless_conversion)]
    pub(crate) fn from_raw(st: &rustix::fs::Stat) -> Stat {
        let kind = match FileType::from_raw_mode(st.st_mode as _) {
            FileType::RegularFile => Kind::File,
            FileType::Directory => Kind::Dir,
            FileType::Symlink => Kind::Symlink,
            _ => Kind::Other,
        };
        Stat {
            kind,
            len: st.st_size as u64,
            mode: (st.st_mode as u32) & 0o7777,
            ino: st.st_ino as u64,
            dev: st.st_dev as u64,
            uid: st.st_uid as u32,
            mtime: (st.st_mtime as i64, st.st_mtime_nsec as i64),
            ctime: (st.st_ctime as i64, st.st_ctime_nsec as i64),
        }
    }

    /// Whether two stats name the same version of a file: same inode, size
    /// and modification time.
    pub(crate) fn same_version(&self, other: &Stat) -> bool {
        (self.ino, self.dev, self.len, self.mtime) == (other.ino, other.dev, other.len, other.mtime)
    }

    /// Whether the file changed less than `window` ago (a time in the future
    /// does not count as recent).
    pub(crate) fn changed_within(&self, window: std::time::Duration) -> bool {
        let Ok(secs) = u64::try_from(self.mtime.0) else {
            return false;
        };
        let nanos = u32::try_from(self.mtime.1).unwrap_or(0).min(999_999_999);
        let modified = std::time::UNIX_EPOCH + std::time::Duration::new(secs, nanos);
        std::time::SystemTime::now()
            .duration_since(modified)
            .is_ok_and(|age| age < window)
    }
}

/// What a folder looks like from outside: adding, renaming or removing an
/// entry changes its mtime and ctime.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct DirStamp {
    mtime: (i64, i64),
    ctime: (i64, i64),
    ino: u64,
}

impl DirStamp {
    /// The stamp in a folder's metadata.
    pub(crate) fn of(st: &Stat) -> DirStamp {
        DirStamp {
            mtime: st.mtime,
            ctime: st.ctime,
            ino: st.ino,
        }
    }
}
