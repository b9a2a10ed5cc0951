//! Watching a folder tree for changes (notify: inotify on Linux). Editors
//! save by replacing files, so a tree is watched through its folders, and a
//! change is reported by the path it touched, whatever the kind of event.

use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::Duration;

use notify::{EventKind, RecommendedWatcher, RecursiveMode, Watcher};

use crate::error::{Error, Result};

/// A watch on a folder tree; it stops when dropped.
pub(crate) struct TreeWatch {
    _watcher: RecommendedWatcher,
    events: Receiver<notify::Result<notify::Event>>,
}

impl TreeWatch {
    /// Starts watching `root` and every folder below it.
    pub(crate) fn start(root: &Path) -> Result<TreeWatch> {
        let (tx, events) = channel();
        let fail = |e: notify::Error| Error::Io {
            path: root.to_owned(),
            op: "watch",
            source: std::io::Error::other(e.to_string()),
        };
        let mut watcher = notify::recommended_watcher(tx).map_err(fail)?;
        watcher
            .watch(root, RecursiveMode::Recursive)
            .map_err(fail)?;
        Ok(TreeWatch {
            _watcher: watcher,
            events,
        })
    }

    /// The paths changed (created, written, renamed, removed) within
    /// `timeout`, once the first change came; empty when none came. `None`
    /// when the watch ended.
    pub(crate) fn changed(&self, timeout: Duration) -> Option<Vec<PathBuf>> {
        let mut out = Vec::new();
        match self.events.recv_timeout(timeout) {
            Ok(ev) => push(&mut out, ev),
            Err(RecvTimeoutError::Timeout) => return Some(out),
            Err(RecvTimeoutError::Disconnected) => return None,
        }
        // Debounce: an editor's save and memdir's swap are several events.
        while let Ok(ev) = self.events.recv_timeout(Duration::from_millis(150)) {
            push(&mut out, ev);
        }
        out.sort();
        out.dedup();
        Some(out)
    }
}

fn push(out: &mut Vec<PathBuf>, ev: notify::Result<notify::Event>) {
    if let Ok(ev) = ev
        && !matches!(ev.kind, EventKind::Access(_))
    {
        out.extend(ev.paths);
    }
}

/// A watch on one folder at a time for names that appear in it (created, or
/// renamed into it) and for its own removal: inotify on Linux, nothing
/// elsewhere. Opening, listing or reading the folder or its files makes no
/// event, so a waiter that looks in the folder after every event is never
/// woken by its own looks; it sleeps in the kernel until a name appears.
pub(crate) struct FolderWatch {
    fd: std::os::fd::OwnedFd,
    /// The folder watched, by (device, inode), and its watch descriptor.
    armed: Option<((u64, u64), i32)>,
}

impl FolderWatch {
    /// A watch with no folder yet; `None` where none can be set up.
    #[cfg(any(target_os = "linux", target_os = "android"))]
    pub(crate) fn new() -> Option<FolderWatch> {
        use rustix::fs::inotify;
        let fd =
            inotify::init(inotify::CreateFlags::CLOEXEC | inotify::CreateFlags::NONBLOCK).ok()?;
        Some(FolderWatch { fd, armed: None })
    }

    /// A watch with no folder yet; `None` where none can be set up.
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    pub(crate) fn new() -> Option<FolderWatch> {
        None
    }

    /// Watches `dir` instead of the folder watched so far, unless it is the
    /// same folder. `Some(true)`: a new folder is watched now (what appeared
    /// before the watch was set up is not reported: look once more);
    /// `Some(false)`: the same folder; `None`: it cannot be watched.
    #[cfg(any(target_os = "linux", target_os = "android"))]
    pub(crate) fn follow(&mut self, dir: &super::Dir) -> Option<bool> {
        use rustix::fs::inotify::{self, WatchFlags};
        use std::os::fd::{AsFd, AsRawFd};
        let st = super::Stat::from_raw(&rustix::fs::fstat(dir.as_fd()).ok()?);
        let key = (st.dev, st.ino);
        if self.armed.is_some_and(|(k, _)| k == key) {
            return Some(false);
        }
        if let Some((_, wd)) = self.armed.take() {
            // Gone already when the folder was removed: nothing to undo.
            let _ = inotify::remove_watch(&self.fd, wd);
        }
        let flags = WatchFlags::CREATE
            | WatchFlags::MOVED_TO
            | WatchFlags::DELETE_SELF
            | WatchFlags::MOVE_SELF
            | WatchFlags::ONLYDIR;
        // The open descriptor names the folder even if its path changed.
        let by_fd = format!("/proc/self/fd/{}", dir.as_fd().as_raw_fd());
        let wd = inotify::add_watch(&self.fd, by_fd, flags)
            .or_else(|_| inotify::add_watch(&self.fd, dir.path(), flags))
            .ok()?;
        self.armed = Some((key, wd));
        Some(true)
    }

    /// Watches `dir`: never possible here.
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    pub(crate) fn follow(&mut self, _dir: &super::Dir) -> Option<bool> {
        None
    }

    /// Sleeps in the kernel until something happens in the folder watched
    /// or `most` passes, then drains the events.
    pub(crate) fn wait(&self, most: Duration) {
        use rustix::event::{PollFd, PollFlags, Timespec, poll};
        let t = Timespec {
            tv_sec: most.as_secs().min(i64::MAX as u64) as _,
            tv_nsec: most.subsec_nanos() as _,
        };
        let mut fds = [PollFd::new(&self.fd, PollFlags::IN)];
        let _ = poll(&mut fds, Some(&t));
        let mut buf = [0u8; 4096];
        while matches!(rustix::io::read(&self.fd, &mut buf), Ok(n) if n > 0) {}
    }
}
