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
