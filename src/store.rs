//! The store: an owner's folder, read and edited under the owner's lock with
//! durable, editor-safe writes. Ties the pure modules to the fs layer.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use serde::Serialize;

use crate::budget::{Budget, Usage};
use crate::caller::Caller;
use crate::edit::{self, Op, OpOutcome};
use crate::env::StoreEnv;
use crate::error::{Error, Result};
use crate::fs::{self, Io, Poison, RealIo};
use crate::id::validate_id;
use crate::lock::{self, OwnerLock};
use crate::parse::{Document, parse};
use crate::parse_cache::ParseCache;
use crate::scope::Scope;
use crate::settings::{FileSettings, Settings, resolve_budget};

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
/// when someone else changed it since. Clones share both.
#[derive(Debug, Clone)]
pub struct Store {
    root: PathBuf,
    settings: Settings,
    lock_timeout: Option<Duration>,
    io: Arc<dyn Io>,
    pub(crate) poison: Arc<Poison>,
    /// The latest parses of the stores this value read or wrote.
    parsed: Arc<ParseCache>,
    /// Owner folders as this value's last write to each left them (see
    /// [`Owner::lock_for_write`]).
    swept: Arc<Mutex<HashMap<PathBuf, fs::DirStamp>>>,
}

/// An entry as `show` lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EntryView {
    /// Its `mem_` id.
    pub id: String,
    /// Its text.
    pub text: String,
}

/// One store of an owner, as `show` answers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct StoreView {
    /// Which store.
    pub scope: Scope,
    /// Its file name.
    pub file: &'static str,
    /// The entries in file order.
    pub entries: Vec<EntryView>,
    /// Characters used against the budget.
    pub usage: Usage,
    /// The budget and where it came from.
    pub budget: Budget,
    /// Notes such as a clamped budget.
    pub warnings: Vec<String>,
}

/// What a batch (or a single write) did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BatchOutcome {
    /// Each operation's outcome, in order.
    pub results: Vec<OpOutcome>,
    /// Usage of each store the batch wrote, after it.
    pub usage: Vec<(Scope, Usage)>,
    /// Notes such as a clamped budget.
    pub warnings: Vec<String>,
}

impl Store {
    /// Opens the memory root `root` (created on the first write) and reads its
    /// `memdir.yaml` if there is one.
    pub fn open(root: impl Into<PathBuf>) -> Result<Store> {
        let root = root.into();
        let io: Arc<dyn Io> = Arc::new(RealIo);
        let settings = read_settings(io.as_ref(), &root.join(CONFIG_FILE))?;
        Ok(Store {
            root,
            settings,
            lock_timeout: None,
            io,
            poison: Arc::default(),
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

    /// An agent's own memory: the owner `id`, acting as the agent `id`. The
    /// id is checked before any path is built.
    pub fn owner(&self, id: &str) -> Result<Owner<'_>> {
        self.owner_as(&Caller::Agent(id.to_owned()), None)
    }

    /// The memory `caller` may act on. An agent acts only on its own memory:
    /// naming another owner is `memory_not_own`, never silently honoured. A
    /// person may act on any owner but must name it (`memory_agent_required`).
    pub fn owner_as(&self, caller: &Caller, named: Option<&str>) -> Result<Owner<'_>> {
        let id = match (caller, named) {
            (Caller::Agent(a), None) => a.as_str(),
            (Caller::Agent(a), Some(n)) if n == a => a.as_str(),
            (Caller::Agent(a), Some(n)) => {
                return Err(Error::NotOwn {
                    agent: a.clone(),
                    named: n.to_owned(),
                });
            }
            (Caller::Person(_), Some(n)) => n,
            (Caller::Person(p), None) => return Err(Error::AgentRequired { person: p.clone() }),
        };
        validate_id("owner", id)?;
        validate_id(
            if caller.is_person() {
                "person"
            } else {
                "agent"
            },
            caller.id(),
        )?;
        Ok(Owner {
            store: self,
            id: id.to_owned(),
            dir: self.root.join(id),
            caller: caller.clone(),
            run: None,
        })
    }

    /// Creates the memory root and a `.gitignore` in it listing `.memdir/`
    /// (the derived files). Returns whether the line was added.
    pub fn init(&self) -> Result<bool> {
        self.poison.check()?;
        fs::create_dir_durably(self.io.as_ref(), &self.poison, &self.root)?;
        let path = self.root.join(".gitignore");
        let current = match fs::stable_read(self.io.as_ref(), &path)? {
            Some(b) => fs::decode(&path, b)?,
            None => String::new(),
        };
        if current
            .lines()
            .any(|l| l.trim() == ".memdir/" || l.trim() == ".memdir")
        {
            return Ok(false);
        }
        let mut next = current.clone();
        if !next.is_empty() && !next.ends_with('\n') {
            next.push('\n');
        }
        next.push_str(
            "# memdir: derived files (locks, stats, stored snapshots); safe to delete\n.memdir/\n",
        );
        fs::replace_file(
            self.io.as_ref(),
            &self.poison,
            &path,
            (!current.is_empty()).then(|| current.into_bytes()),
            |_| Ok(Some(next.clone().into_bytes())),
        )?;
        Ok(true)
    }

    /// The owner ids under the root (folders with a valid id), sorted.
    pub fn owners(&self) -> Result<Vec<String>> {
        let names = match self.io.read_dir_names(&self.root) {
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
            Err(e) => return Err(Error::io(&self.root, "list folder")(e)),
        };
        let mut out: Vec<String> = names
            .into_iter()
            .filter(|n| validate_id("owner", n).is_ok())
            .filter(|n| fs::plain_dir_exists(self.io.as_ref(), &self.root.join(n)).unwrap_or(false))
            .collect();
        out.sort();
        Ok(out)
    }

    #[cfg(test)]
    pub(crate) fn with_io(mut self, io: Arc<dyn Io>) -> Store {
        self.io = io;
        self
    }
}

fn read_settings(io: &dyn Io, path: &Path) -> Result<Settings> {
    match fs::stable_read(io, path)? {
        Some(bytes) => Settings::from_yaml(&fs::decode(path, bytes)?, path),
        None => Ok(Settings::default()),
    }
}

/// One owner's memory folder.
#[derive(Debug, Clone)]
pub struct Owner<'s> {
    pub(crate) store: &'s Store,
    id: String,
    dir: PathBuf,
    pub(crate) caller: Caller,
    /// The run writing through this handle, if any: `(run id, task key)`.
    pub(crate) run: Option<(String, Option<String>)>,
}

/// The owner's lock held for a write (see [`Owner::lock_for_write`]): on
/// release it notes how the write left the owner's folder.
pub(crate) struct WriteLock<'a, 's> {
    owner: &'a Owner<'s>,
    _lock: OwnerLock,
}

impl Drop for WriteLock<'_, '_> {
    fn drop(&mut self) {
        // Still under the lock: `_lock` is released after this body.
        let o = self.owner;
        if let Some(stamp) = fs::dir_stamp(o.io(), &o.dir) {
            o.store
                .swept
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .insert(o.dir.clone(), stamp);
        }
    }
}

/// A store's file as read: its text and parse.
pub(crate) struct Loaded {
    pub(crate) path: PathBuf,
    /// Whether the file exists (`src` is then its bytes, else empty).
    pub(crate) exists: bool,
    /// The descriptor the file was read through and its metadata (see
    /// [`fs::Plan`]).
    pub(crate) held: Option<(std::fs::File, std::fs::Metadata)>,
    pub(crate) src: String,
    pub(crate) doc: Arc<Document>,
}

impl<'s> Owner<'s> {
    /// The owner's id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// Who acts through this handle.
    pub fn caller(&self) -> &Caller {
        &self.caller
    }

    /// The owner's folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The path of one of the owner's stores.
    pub fn path(&self, scope: Scope) -> PathBuf {
        self.dir.join(scope.file_name())
    }

    pub(crate) fn io(&self) -> &dyn Io {
        self.store.io.as_ref()
    }

    /// The owner's settings: the root's `memdir.yaml` overlaid with the owner's.
    pub(crate) fn settings(&self) -> Result<Settings> {
        if !fs::plain_dir_exists(self.io(), &self.dir)? {
            return Ok(self.store.settings.clone());
        }
        self.settings_in_folder()
    }

    /// [`Owner::settings`] once the owner's folder is known to be a plain one.
    fn settings_in_folder(&self) -> Result<Settings> {
        let own = read_settings(self.io(), &self.dir.join(CONFIG_FILE))?;
        Ok(self.store.settings.clone().overlay(&own))
    }

    pub(crate) fn budget(
        &self,
        scope: Scope,
        settings: &Settings,
        doc: &Document,
        path: &Path,
    ) -> Result<Budget> {
        let file = match &doc.front_matter {
            Some(fm) => FileSettings::from_yaml(&fm.yaml, path)?,
            None => FileSettings::default(),
        };
        Ok(resolve_budget(scope, &self.store.settings, settings, &file))
    }

    pub(crate) fn load(&self, scope: Scope) -> Result<Loaded> {
        self.load_with(scope, true)
    }

    /// [`Owner::load`], parsing without entry ids when `ids` is false.
    pub(crate) fn load_with(&self, scope: Scope, ids: bool) -> Result<Loaded> {
        let folder = fs::plain_dir_exists(self.io(), &self.dir)?;
        self.load_from(scope, ids, folder)
    }

    /// [`Owner::load`] for a caller holding the owner's lock (which made sure
    /// the owner's folder is a plain one).
    pub(crate) fn load_locked(&self, scope: Scope) -> Result<Loaded> {
        self.load_from(scope, true, true)
    }

    fn load_from(&self, scope: Scope, ids: bool, folder: bool) -> Result<Loaded> {
        let path = self.path(scope);
        let read = if folder {
            fs::stable_read_held(self.io(), &path)?
        } else {
            None
        };
        let (src, exists, held) = match read {
            Some(r) => (fs::decode(&path, r.bytes)?, true, Some((r.file, r.meta))),
            None => (String::new(), false, None),
        };
        let cache = &self.store.parsed;
        let doc = match cache.get(&path, &src, ids) {
            Some(doc) => doc,
            None => {
                let doc = Arc::new(if ids {
                    parse(scope.name(), &src)
                } else {
                    crate::parse::parse_without_ids(&src)
                });
                cache.put(&path, &src, Arc::clone(&doc), ids);
                doc
            }
        };
        Ok(Loaded {
            path,
            exists,
            held,
            src,
            doc,
        })
    }

    /// The entries of one store with their ids, and its usage.
    pub fn show(&self, scope: Scope) -> Result<StoreView> {
        let settings = self.settings()?;
        let l = self.load(scope)?;
        let budget = self.budget(scope, &settings, &l.doc, &l.path)?;
        let env = StoreEnv {
            owner: self,
            scope,
            settings: &settings,
            path: &l.path,
            now: chrono::Utc::now(),
        };
        let used = edit::used_live(&env, &l.src, &l.doc);
        Ok(StoreView {
            scope,
            file: scope.file_name(),
            entries: l
                .doc
                .entries
                .iter()
                .map(|e| EntryView {
                    id: e.id.clone(),
                    text: e.text.clone(),
                })
                .collect(),
            usage: Usage::new(used, budget.limit),
            warnings: budget.warning(scope.file_name()).into_iter().collect(),
            budget,
        })
    }

    /// Appends an entry (`already stored` when its id is present).
    pub fn add(&self, scope: Scope, text: &str) -> Result<(OpOutcome, Usage)> {
        self.single(Op::Add {
            text: text.to_owned(),
            scope,
            expires: None,
            supersedes: None,
        })
    }

    /// Replaces the text of the entry `old` names (an id or a unique substring).
    pub fn replace(&self, scope: Scope, old: &str, new: &str) -> Result<(OpOutcome, Usage)> {
        self.single(Op::Replace {
            old: old.to_owned(),
            new: new.to_owned(),
            scope,
        })
    }

    /// Removes the entry `old` names (an id or a unique substring).
    pub fn remove(&self, scope: Scope, old: &str) -> Result<(OpOutcome, Usage)> {
        self.single(Op::Remove {
            old: old.to_owned(),
            scope,
        })
    }

    /// Appends an entry with an expiry (see [`Op::Add`]).
    pub fn add_expiring(
        &self,
        scope: Scope,
        text: &str,
        expires: Option<&str>,
    ) -> Result<(OpOutcome, Usage)> {
        self.single(Op::Add {
            text: text.to_owned(),
            scope,
            expires: expires.map(str::to_owned),
            supersedes: None,
        })
    }

    fn single(&self, op: Op) -> Result<(OpOutcome, Usage)> {
        let scope = op.scope();
        let out = self.apply(std::slice::from_ref(&op), false)?;
        let usage = out
            .usage
            .into_iter()
            .find(|(s, _)| *s == scope)
            .map(|(_, u)| u)
            .unwrap_or_else(|| Usage::new(0, scope.default_budget()));
        let outcome = out
            .results
            .into_iter()
            .next()
            .ok_or_else(|| Error::InvalidRequest("no outcome".into()))?;
        Ok((outcome, usage))
    }

    /// Applies all of `ops` or none of them; budgets are checked on the final
    /// state of each store.
    pub fn batch(&self, ops: &[Op]) -> Result<BatchOutcome> {
        self.apply(ops, true)
    }

    /// Takes the owner's exclusive lock, creating the folders it needs.
    pub fn lock(&self) -> Result<OwnerLock> {
        self.store.poison.check()?;
        let derived = self.ensure_dirs()?;
        lock::acquire(&derived.join("lock"), self.lock_timeout()?)
    }

    /// Takes the owner's lock for a write to its folder, reading its settings
    /// once for both the wait and the write, and removes the temp files a
    /// killed writer left there.
    ///
    /// Such files are created only under this lock, so none can have appeared
    /// while the owner's folder stays as this `Store`'s previous write left
    /// it (same mtime, ctime and inode, noted when that write released the
    /// lock): the sweep, which lists the folder, runs on the first write and
    /// after any change to the folder by someone else (a writer of another
    /// process, a killed one, a person).
    pub(crate) fn lock_for_write(&self) -> Result<(WriteLock<'_, 's>, Settings)> {
        self.store.poison.check()?;
        let (derived, checked) = self.ensure_dirs_stamped()?;
        let settings = self.settings_in_folder()?;
        let lock = lock::acquire(&derived.join("lock"), self.lock_timeout_in(&settings))?;
        // Taken at once, the lock had no holder since the folder was checked
        // a moment ago, unless one that held it then made a temp file after
        // the check and died before the lock was tried, microseconds later:
        // that stamp stands. (Such a file then waits for a later change to
        // the folder, or the next process.)
        let now = match checked {
            Some(stamp) if !lock.contended => Some(stamp),
            _ => fs::dir_stamp(self.io(), &self.dir),
        };
        let left = self
            .store
            .swept
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&self.dir)
            .copied();
        if now.is_none() || now != left {
            fs::sweep_temps(self.io(), &self.dir);
        }
        Ok((
            WriteLock {
                owner: self,
                _lock: lock,
            },
            settings,
        ))
    }

    /// How long to wait for one of the owner's locks: the store's
    /// `--lock-timeout-ms` override, else `lock_timeout_ms` from the
    /// settings, else [`DEFAULT_LOCK_TIMEOUT`].
    pub(crate) fn lock_timeout(&self) -> Result<Duration> {
        Ok(match self.store.lock_timeout {
            Some(t) => t,
            None => self.lock_timeout_in(&self.settings()?),
        })
    }

    /// [`Owner::lock_timeout`] with the owner's settings in hand.
    fn lock_timeout_in(&self, settings: &Settings) -> Duration {
        self.store.lock_timeout.unwrap_or_else(|| {
            settings
                .lock_timeout_ms
                .map_or(DEFAULT_LOCK_TIMEOUT, Duration::from_millis)
        })
    }

    /// Creates the root, the owner's folder and `.memdir/`, refusing symlinks.
    pub(crate) fn ensure_dirs(&self) -> Result<PathBuf> {
        self.ensure_dirs_stamped().map(|(derived, _)| derived)
    }

    /// [`Owner::ensure_dirs`], also giving the owner's folder's stamp as
    /// checked (`None` if it had to be created).
    fn ensure_dirs_stamped(&self) -> Result<(PathBuf, Option<fs::DirStamp>)> {
        let stamp = self.ensure_plain_dir(&self.dir)?;
        let derived = self.dir.join(DERIVED_DIR);
        self.ensure_plain_dir(&derived)?;
        Ok((derived, stamp))
    }

    /// Creates `dir` (and its missing parents) if missing, durably, refusing
    /// a symlink or anything but a folder there. Gives the stamp of a folder
    /// that was there already.
    pub(crate) fn ensure_plain_dir(&self, dir: &Path) -> Result<Option<fs::DirStamp>> {
        let io = self.io();
        match fs::plain_dir_meta(io, dir)? {
            Some(m) => Ok(Some(fs::DirStamp::of(&m))),
            None => {
                fs::create_dir_durably(io, &self.store.poison, dir)?;
                fs::plain_dir_exists(io, dir)?;
                Ok(None)
            }
        }
    }

    fn apply(&self, ops: &[Op], batch: bool) -> Result<BatchOutcome> {
        let (_lock, settings) = self.lock_for_write()?;
        self.apply_locked_with(ops, batch, &settings)
    }

    /// [`Owner::apply`] for a caller that holds the owner's lock.
    pub(crate) fn apply_locked(&self, ops: &[Op], batch: bool) -> Result<BatchOutcome> {
        self.apply_locked_with(ops, batch, &self.settings()?)
    }

    /// [`Owner::apply_locked`] with the owner's settings in hand.
    pub(crate) fn apply_locked_with(
        &self,
        ops: &[Op],
        batch: bool,
        settings: &Settings,
    ) -> Result<BatchOutcome> {
        let wrap = |index: usize, e: Error| {
            if batch {
                Error::Batch {
                    index,
                    source: Box::new(e),
                }
            } else {
                e
            }
        };
        let mut results: Vec<Option<OpOutcome>> = vec![None; ops.len()];
        let mut usage = Vec::new();
        let mut warnings = Vec::new();
        // Validate every store first, write only when all of them pass.
        let mut planned = Vec::new();
        for scope in Scope::ALL {
            let idx: Vec<usize> = (0..ops.len())
                .filter(|&i| ops[i].scope() == scope)
                .collect();
            if idx.is_empty() {
                continue;
            }
            let l = self.load_locked(scope)?;
            let mine: Vec<&Op> = idx.iter().map(|&i| &ops[i]).collect();
            let applied = self
                .apply_parsed_scope(scope, settings, &l.path, &l.src, &l.doc, &mine)
                .map_err(|(k, e)| wrap(idx[k.min(idx.len() - 1)], e))?;
            planned.push((scope, idx, mine, l, applied));
        }
        for (scope, idx, mine, mut l, applied) in planned {
            let mut final_src = applied.src;
            let mut final_outs = applied.outcomes;
            let mut doc = Arc::new(applied.doc);
            let mut used = applied.used;
            if final_src != l.src {
                // The first round writes the planned bytes; the edit is redone
                // only on an editor's newer save.
                let written = fs::replace_file_planned(
                    self.io(),
                    &self.store.poison,
                    &l.path,
                    l.exists.then(|| l.src.as_bytes().to_vec()),
                    Some(fs::Plan {
                        bytes: final_src.as_bytes().to_vec(),
                        base: l.held.take(),
                    }),
                    |cur| {
                        let cur_src = match cur {
                            Some(b) => fs::decode(&l.path, b.to_vec())?,
                            None => String::new(),
                        };
                        let (s, o) = self
                            .apply_scope(scope, settings, &l.path, &cur_src, &mine)
                            .map_err(|(k, e)| wrap(idx[k.min(idx.len() - 1)], e))?;
                        final_outs = o;
                        Ok((s != cur_src).then(|| s.into_bytes()))
                    },
                )?;
                if let Some(bytes) = written
                    && bytes != final_src.as_bytes()
                {
                    final_src = String::from_utf8(bytes).unwrap_or_default();
                    doc = Arc::new(parse(scope.name(), &final_src));
                    used = None;
                }
                self.store
                    .parsed
                    .put(&l.path, &final_src, Arc::clone(&doc), true);
            }
            let budget = self.budget(scope, settings, &doc, &l.path)?;
            warnings.extend(budget.warning(scope.file_name()));
            let used = match used {
                Some(u) => u,
                None => edit::used_live(
                    &StoreEnv {
                        owner: self,
                        scope,
                        settings,
                        path: &l.path,
                        now: chrono::Utc::now(),
                    },
                    &final_src,
                    &doc,
                ),
            };
            usage.push((scope, Usage::new(used, budget.limit)));
            for (k, o) in final_outs.into_iter().enumerate() {
                if let Some(slot) = idx.get(k).and_then(|&i| results.get_mut(i)) {
                    *slot = Some(o);
                }
            }
        }
        Ok(BatchOutcome {
            results: results.into_iter().flatten().collect(),
            usage,
            warnings,
        })
    }

    /// Applies one store's operations; on error, says which of them failed.
    pub(crate) fn apply_scope(
        &self,
        scope: Scope,
        settings: &Settings,
        path: &Path,
        src: &str,
        ops: &[&Op],
    ) -> std::result::Result<(String, Vec<OpOutcome>), (usize, Error)> {
        self.apply_parsed_scope(scope, settings, path, src, &parse(scope.name(), src), ops)
            .map(|a| (a.src, a.outcomes))
    }

    /// [`Owner::apply_scope`] on a source already parsed; also returns the
    /// final state's parse.
    pub(crate) fn apply_parsed_scope(
        &self,
        scope: Scope,
        settings: &Settings,
        path: &Path,
        src: &str,
        original: &Document,
        ops: &[&Op],
    ) -> std::result::Result<edit::Applied, (usize, Error)> {
        let env = StoreEnv {
            owner: self,
            scope,
            settings,
            path,
            now: chrono::Utc::now(),
        };
        match edit::apply_parsed(scope, src, original, ops, &env) {
            Ok(r) => Ok(r),
            Err(e) => {
                // Find the failing op by applying prefixes (only on failure).
                let failing = (1..=ops.len())
                    .find(|&n| edit::apply(scope, src, &ops[..n], &env).is_err())
                    .map_or(ops.len().saturating_sub(1), |n| n - 1);
                Err((failing, e))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fs::faulty::FaultyIo;

    fn texts(path: &Path) -> Vec<String> {
        let src = std::fs::read_to_string(path).unwrap();
        parse("memory", &src)
            .entries
            .into_iter()
            .map(|e| e.text)
            .collect()
    }

    fn store() -> (tempfile::TempDir, Store) {
        let d = tempfile::tempdir().unwrap();
        let s = Store::open(d.path()).unwrap();
        (d, s)
    }

    #[test]
    fn first_write_creates_folders_and_file() {
        let (d, s) = store();
        let o = s.owner("agt_1").unwrap();
        let (out, usage) = o.add(Scope::User, "Prefers weekly summaries").unwrap();
        assert_eq!(out.message, "added");
        assert_eq!(usage.text, "1% — 26/1375 chars");
        // The fact carries its metadata: saved now by agent agt_1; USER.md facts do not expire.
        let file = std::fs::read_to_string(d.path().join("agt_1/USER.md")).unwrap();
        assert!(
            file.starts_with("- Prefers weekly summaries <!-- memdir created="),
            "{file}"
        );
        assert!(
            file.ends_with(" agent=agt_1 -->\n") && !file.contains("expires="),
            "{file}"
        );
        assert!(d.path().join("agt_1/.memdir/lock").exists());
        let (again, _) = o.add(Scope::User, "Prefers  weekly summaries").unwrap();
        assert_eq!(again.message, "already stored");
        assert_eq!(again.id, out.id);
    }

    #[test]
    fn a_hand_edit_between_writes_of_one_store_is_read_afresh() {
        let (d, s) = store();
        let o = s.owner("o").unwrap();
        o.add(Scope::Memory, "first fact").unwrap();
        o.add(Scope::Memory, "second fact").unwrap();
        // A person rewrites an entry in their editor; the store's remembered
        // parse is of the old bytes and must not answer for the new ones.
        let path = d.path().join("o/MEMORY.md");
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::write(&path, text.replace("first fact", "first fact, corrected")).unwrap();
        let corrected = crate::id::entry_id("memory", "first fact, corrected");
        let view = o.show(Scope::Memory).unwrap();
        assert_eq!(view.entries[0].id, corrected);
        let (out, _) = o.remove(Scope::Memory, &corrected).unwrap();
        assert_eq!(out.message, "removed");
        let left = std::fs::read_to_string(&path).unwrap();
        assert!(
            !left.contains("first fact") && left.contains("second fact"),
            "{left}"
        );
    }

    #[test]
    fn leftover_temp_files_are_swept_by_the_next_write() {
        let (d, s) = store();
        let o = s.owner("o").unwrap();
        let leftover = |name: &str| d.path().join("o").join(name);
        std::fs::create_dir_all(d.path().join("o")).unwrap();
        std::fs::write(leftover(".USER.md.x1.memdir-tmp"), "killed").unwrap();
        // The first write of a Store sweeps.
        o.add(Scope::Memory, "a").unwrap();
        assert!(!leftover(".USER.md.x1.memdir-tmp").exists());
        // A writer killed after that (here: a file put there by hand) changed
        // the folder, so the next write of the same Store sweeps again.
        std::fs::write(leftover(".MEMORY.md.x2.memdir-tmp"), "killed").unwrap();
        o.add(Scope::Memory, "b").unwrap();
        assert!(!leftover(".MEMORY.md.x2.memdir-tmp").exists());
        // Only memdir's temp names go.
        std::fs::write(leftover(".MEMORY.md.swp"), "editor").unwrap();
        s.owner("o").unwrap().remove(Scope::Memory, "b").unwrap();
        assert!(leftover(".MEMORY.md.swp").exists());
        assert_eq!(texts(&leftover("MEMORY.md")), ["a"]);
    }

    #[test]
    fn owner_ids_are_checked_before_paths() {
        let (_d, s) = store();
        for bad in ["..", "a/b", "", "/etc"] {
            assert_eq!(s.owner(bad).unwrap_err().code(), "invalid_id");
        }
    }

    #[cfg(unix)]
    #[test]
    fn symlinked_owner_folder_or_file_is_refused() {
        let (d, s) = store();
        let elsewhere = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(elsewhere.path(), d.path().join("evil")).unwrap();
        let err = s
            .owner("evil")
            .unwrap()
            .add(Scope::Memory, "x")
            .unwrap_err();
        assert_eq!(err.code(), "unsafe_path");
        std::fs::create_dir(d.path().join("a")).unwrap();
        std::fs::write(elsewhere.path().join("t.md"), "- secret\n").unwrap();
        std::os::unix::fs::symlink(elsewhere.path().join("t.md"), d.path().join("a/MEMORY.md"))
            .unwrap();
        let o = s.owner("a").unwrap();
        assert_eq!(o.add(Scope::Memory, "x").unwrap_err().code(), "unsafe_path");
        assert_eq!(o.show(Scope::Memory).unwrap_err().code(), "unsafe_path");
        assert_eq!(
            std::fs::read_to_string(elsewhere.path().join("t.md")).unwrap(),
            "- secret\n"
        );
    }

    #[test]
    fn batch_is_all_or_nothing_across_stores() {
        let (d, s) = store();
        let o = s.owner("o").unwrap();
        o.add(Scope::Memory, "keep").unwrap();
        let ops = vec![
            Op::Add {
                text: "u1".into(),
                scope: Scope::User,
                expires: None,
                supersedes: None,
            },
            Op::Remove {
                old: "missing".into(),
                scope: Scope::Memory,
            },
        ];
        let err = o.batch(&ops).unwrap_err();
        assert_eq!(err.code(), "memory_not_found");
        assert!(matches!(err, Error::Batch { index: 1, .. }), "{err:?}");
        assert!(!d.path().join("o/USER.md").exists());
        let ops = vec![
            Op::Add {
                text: "u1".into(),
                scope: Scope::User,
                expires: None,
                supersedes: None,
            },
            Op::Replace {
                old: "keep".into(),
                new: "kept".into(),
                scope: Scope::Memory,
            },
        ];
        let out = o.batch(&ops).unwrap();
        assert_eq!(out.results.len(), 2);
        assert_eq!(out.results[0].message, "added");
        assert_eq!(out.results[1].message, "replaced");
        assert_eq!(texts(&d.path().join("o/MEMORY.md")), ["kept"]);
        let file = std::fs::read_to_string(d.path().join("o/MEMORY.md")).unwrap();
        assert!(
            file.contains(" updated=") && file.contains(" expires="),
            "{file}"
        );
    }

    #[test]
    fn invalid_utf8_and_huge_files_are_never_rewritten() {
        let (d, s) = store();
        std::fs::create_dir(d.path().join("o")).unwrap();
        let p = d.path().join("o/MEMORY.md");
        std::fs::write(&p, b"- ok\n- \xff\n").unwrap();
        let o = s.owner("o").unwrap();
        assert_eq!(
            o.add(Scope::Memory, "x").unwrap_err().code(),
            "invalid_utf8"
        );
        assert_eq!(std::fs::read(&p).unwrap(), b"- ok\n- \xff\n");
        let big = format!("- {}\n", "a".repeat(1024 * 1024));
        std::fs::write(&p, &big).unwrap();
        assert_eq!(
            o.remove(Scope::Memory, "aaa").unwrap_err().code(),
            "file_too_large"
        );
        assert_eq!(std::fs::read_to_string(&p).unwrap(), big);
    }

    #[test]
    fn config_and_front_matter_budgets_with_clamp_warning() {
        let (d, _) = store();
        std::fs::write(d.path().join("memdir.yaml"), "budgets:\n  memory: 100\n").unwrap();
        let s = Store::open(d.path()).unwrap();
        let o = s.owner("o").unwrap();
        let v = o.show(Scope::Memory).unwrap();
        assert_eq!(v.budget.limit, 500);
        assert_eq!(v.warnings.len(), 1);
        std::fs::create_dir(d.path().join("o")).unwrap();
        std::fs::write(
            d.path().join("o/MEMORY.md"),
            "---\nbudget: 9000\n---\n- a\n",
        )
        .unwrap();
        assert_eq!(o.show(Scope::Memory).unwrap().budget.limit, 9000);
    }

    #[test]
    fn a_new_owner_folder_is_synced_into_the_root() {
        // Step 1 creates the owner's folder, step 2 syncs the root.
        let (d, s) = store();
        let s = s.with_io(Arc::new(FaultyIo::new(2)));
        let o = s.owner("o").unwrap();
        match o.add(Scope::Memory, "first") {
            Err(Error::Io { path, op, .. }) => {
                assert_eq!((path.as_path(), op), (d.path(), "fsync folder"));
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(
            o.add(Scope::Memory, "again").unwrap_err().code(),
            "store_poisoned"
        );
    }

    #[test]
    fn failed_io_leaves_the_file_and_poisons_after_fsync() {
        for fail_at in 1..=5 {
            let (d, s) = store();
            s.owner("o").unwrap().add(Scope::Memory, "old").unwrap();
            let s = s.with_io(Arc::new(FaultyIo::new(fail_at)));
            let o = s.owner("o").unwrap();
            let r = o.add(Scope::Memory, "new");
            let content = texts(&d.path().join("o/MEMORY.md"));
            match r {
                Ok(_) => assert_eq!(content, ["old", "new"]),
                Err(e) => {
                    assert!(
                        content == ["old"] || e.to_string().contains("fsync folder"),
                        "{fail_at}: {e}"
                    );
                    if e.to_string().contains("fsync") {
                        assert_eq!(
                            o.add(Scope::Memory, "more").unwrap_err().code(),
                            "store_poisoned"
                        );
                    }
                }
            }
        }
    }
}
