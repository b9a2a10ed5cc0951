//! The memory root: one folder per owner, the root's settings, and what a
//! [`Store`] value remembers between operations.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use super::parse_cache::ParseCache;
use crate::disk::{Base, Change, Dir, DirStamp, Disk, Kind, MAX_FILE_BYTES};
use crate::error::Result;
use crate::model::{Settings, validate_id};

/// The folder-wide settings file at the root (and in an owner's folder).
pub const CONFIG_FILE: &str = "memdir.yaml";
/// The owner's folder of derived files (lock, caches): safe to delete.
pub const DERIVED_DIR: &str = ".memdir";
/// Default wait for the owner's lock.
pub const DEFAULT_LOCK_TIMEOUT: Duration = Duration::from_secs(10);

/// A memory root: one folder per owner.
///
/// Keep one `Store` for the life of a process: it remembers the parse of the
/// files it read or wrote last (used again only for byte-identical text, so a
/// hand edit is always read afresh), and how its last write left each
/// owner's folder, so that it lists the folder for leftover temp files only
/// when someone else changed it since. Clones share both, and are cheap.
#[derive(Debug, Clone)]
pub struct Store {
    root: PathBuf,
    settings: Arc<Settings>,
    lock_timeout: Option<Duration>,
    disk: Disk,
    /// The latest parses of the stores this value read or wrote.
    parsed: Arc<ParseCache>,
    /// Owner folders as this value's last write to each left them (see
    /// `Locked`).
    swept: Arc<Mutex<HashMap<String, DirStamp>>>,
}

impl Store {
    /// Opens the memory root `root` (created on the first write) and reads its
    /// `memdir.yaml` if there is one.
    pub fn open(root: impl Into<PathBuf>) -> Result<Store> {
        Store::open_on(root.into(), Disk::default())
    }

    fn open_on(root: PathBuf, disk: Disk) -> Result<Store> {
        let settings = match disk.open_root(&root)? {
            Some(dir) => read_settings(&disk, &dir)?,
            None => Settings::default(),
        };
        Ok(Store {
            root,
            settings: Arc::new(settings),
            lock_timeout: None,
            disk,
            parsed: Arc::default(),
            swept: Arc::default(),
        })
    }

    /// Sets how long writers wait for an owner's lock (default 10 s, or
    /// `lock_timeout_ms` in `memdir.yaml`).
    pub fn with_lock_timeout(mut self, timeout: Duration) -> Store {
        self.lock_timeout = Some(timeout);
        self
    }

    /// The memory root.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The owner ids under the root (folders with a valid id), sorted.
    pub fn owners(&self) -> Result<Vec<String>> {
        let Some(root) = self.disk.open_root(&self.root)? else {
            return Ok(Vec::new());
        };
        let mut out: Vec<String> = self
            .disk
            .list(&root)?
            .into_iter()
            .filter(|n| validate_id("owner", n).is_ok())
            .filter(|n| matches!(self.disk.stat(&root, n), Ok(Some(s)) if s.kind == Kind::Dir))
            .collect();
        out.sort();
        Ok(out)
    }

    /// Creates the memory root and a `.gitignore` in it listing `.memdir/`
    /// (the derived files). Returns whether the line was added.
    pub fn init(&self) -> Result<bool> {
        let root = self.disk.ensure_root(&self.root)?;
        let held = self.disk.read(&root, ".gitignore", MAX_FILE_BYTES)?;
        let current = match &held {
            Some(h) => crate::disk::decode(&root.join(".gitignore"), h.bytes.clone())?,
            None => String::new(),
        };
        if current
            .lines()
            .any(|l| l.trim() == ".memdir/" || l.trim() == ".memdir")
        {
            return Ok(false);
        }
        let mut next = current;
        if !next.is_empty() && !next.ends_with('\n') {
            next.push('\n');
        }
        next.push_str(
            "# memdir: derived files (locks, stats, stored snapshots); safe to delete\n.memdir/\n",
        );
        self.disk.replace(Change {
            dir: &root,
            name: ".gitignore",
            base: held.map(|h| Base {
                bytes: h.bytes,
                held: Some((h.file, h.stat)),
            }),
            planned: None,
            redo: Box::new(move |_| Ok(Some(next.clone().into_bytes()))),
        })?;
        Ok(true)
    }

    /// The root's settings.
    pub(crate) fn settings(&self) -> &Settings {
        &self.settings
    }

    /// The disk layer.
    pub(crate) fn disk(&self) -> &Disk {
        &self.disk
    }

    /// The remembered parses.
    pub(crate) fn parsed(&self) -> &ParseCache {
        &self.parsed
    }

    /// The store's `--lock-timeout-ms` override, if any.
    pub(crate) fn lock_timeout(&self) -> Option<Duration> {
        self.lock_timeout
    }

    /// How this value's last write left `owner`'s folder.
    pub(crate) fn swept(&self, owner: &str) -> Option<DirStamp> {
        self.swept
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(owner)
            .copied()
    }

    /// Notes how a write left `owner`'s folder.
    pub(crate) fn note_swept(&self, owner: &str, stamp: DirStamp) {
        self.swept
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(owner.to_owned(), stamp);
    }

    /// A store over another I/O layer (tests fail chosen steps with it).
    #[cfg(test)]
    pub(crate) fn with_io(self, io: Arc<dyn crate::disk::Io>) -> Store {
        Store {
            disk: Disk::new(io),
            ..self
        }
    }
}

/// Reads the `memdir.yaml` of a folder (the root's or an owner's); missing is
/// the defaults.
pub(crate) fn read_settings(disk: &Disk, dir: &Dir) -> Result<Settings> {
    match disk.read_text(dir, CONFIG_FILE, MAX_FILE_BYTES)? {
        Some(text) => Settings::from_yaml(&text, &dir.join(CONFIG_FILE)),
        None => Ok(Settings::default()),
    }
}
