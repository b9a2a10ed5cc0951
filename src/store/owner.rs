//! An owner's memory as a handle, and its folder opened for one operation:
//! [`View`] to read, [`Folders`] to write derived files, [`Locked`] (the
//! owner's lock, held as a guard) to edit. Readers take a [`At`], which
//! either gives.
//!
//! Each operation opens the root and the owner's folder once and works
//! relative to those handles; every function that needs the owner's lock
//! takes a [`Locked`], so the compiler checks that it is held.

use std::path::PathBuf;
use std::time::Duration;

use super::root::{CONFIG_FILE, DEFAULT_LOCK_TIMEOUT, DERIVED_DIR, Store, read_settings_cached};
use crate::disk::{Dir, Disk, Lock};
use crate::git::Identity;

use std::collections::BTreeMap;

use sha2::{Digest, Sha256};

/// The marker `memdir watch` keeps in each owner's `.memdir/` while it runs.
pub(crate) const WATCH_MARKER: &str = "watch";
/// The content hashes of the files memdir last wrote, kept while watched.
pub(crate) const WRITTEN_FILE: &str = "written.json";
/// Largest `written.json` read.
pub(crate) const WRITTEN_BYTES: u64 = 64 * 1024;
/// Largest file hashed for `written.json` (the largest store an edit reads).
const WRITTEN_READ_BYTES: u64 = super::limits::STORE_EDIT_BYTES;
use crate::error::{Error, Result};
use crate::model::{
    Caller, FORMAT, RunContext, Scope, Settings, WritePolicy, validate_id, validate_new_id,
};

/// Refuses a name about to be created in `parent` (or found missing there)
/// that differs only by case from an existing sibling (see
/// [`validate_new_id`]): memory folders travel through git to
/// case-insensitive file systems.
pub(crate) fn no_case_twin(
    disk: &Disk,
    parent: &Dir,
    kind: &'static str,
    id: &str,
    suffix: &str,
) -> Result<()> {
    let names = disk.list(parent)?;
    validate_new_id(kind, id, suffix, names.iter().map(String::as_str))
}

/// How old a temp file in a folder written without a common lock must be
/// to count as a killed writer's leftover.
pub(crate) const STALE_TEMP_AGE: Duration = Duration::from_secs(60);

/// One owner's memory, as one caller acts on it. Cheap to clone; holds no
/// file open between operations.
#[derive(Debug, Clone)]
pub struct Owner {
    store: Store,
    id: String,
    caller: Caller,
    /// The run writing through this handle, if any.
    run: Option<RunContext>,
}

impl Store {
    /// An agent's own memory: the owner `id`, acting as the agent `id`. The
    /// id is checked before any path is built.
    pub fn owner(&self, id: &str) -> Result<Owner> {
        self.owner_as(&Caller::Agent(id.to_owned()), None)
    }

    /// The memory `caller` may act on. An agent acts only on its own memory:
    /// naming another owner is `memory_not_own`, never silently honoured. A
    /// person may act on any owner the root holds but must name it
    /// (`memory_agent_required`); an owner the root does not hold is
    /// `owner_not_found` (only an agent's own first write creates its
    /// folder).
    pub fn owner_as(&self, caller: &Caller, named: Option<&str>) -> Result<Owner> {
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
        if let Caller::Person(p) = caller {
            self.allow_person(p)?;
            // A person never creates an agent: a name the root does not
            // hold is a typo (`owner_not_found`), on a read and a write.
            self.require_owner(id, Some(caller))?;
        }
        Ok(Owner {
            store: self.clone(),
            id: id.to_owned(),
            caller: caller.clone(),
            run: None,
        })
    }
}

impl Owner {
    /// The owner's id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// Who acts through this handle.
    pub fn caller(&self) -> &Caller {
        &self.caller
    }

    /// The owner's folder.
    pub fn dir(&self) -> PathBuf {
        self.store.root().join(&self.id)
    }

    /// The path of one of the owner's stores.
    pub fn path(&self, scope: Scope) -> PathBuf {
        self.dir().join(scope.file_name())
    }

    /// The store this owner is under.
    pub(crate) fn store(&self) -> &Store {
        &self.store
    }

    /// The disk layer.
    pub(crate) fn disk(&self) -> &Disk {
        self.store.disk()
    }

    /// The run writing through this handle, if any.
    pub(crate) fn run(&self) -> Option<&RunContext> {
        self.run.as_ref()
    }

    /// This handle on `store` (the same root opened again, a recording
    /// copy say): the same owner, caller and run.
    pub(crate) fn on(&self, store: Store) -> Owner {
        Owner {
            store,
            ..self.clone()
        }
    }

    /// This handle, writing for the run `run`.
    pub(crate) fn in_run(&self, run: RunContext) -> Owner {
        Owner {
            run: Some(run),
            ..self.clone()
        }
    }

    /// Opens the owner's folder to read: its handle (`None` while it does not
    /// exist) and its settings. Creates nothing.
    pub(crate) fn view(&self) -> Result<View<'_>> {
        let disk = self.disk();
        let dir = match disk.open_root(self.store.root())? {
            Some(root) => {
                let dir = disk.open_dir(&root, &self.id)?;
                if dir.is_none() {
                    no_case_twin(disk, &root, "owner", &self.id, "")?;
                }
                dir
            }
            None => None,
        };
        let settings = self.settings_in(dir.as_ref())?;
        Ok(View {
            owner: self,
            dir,
            settings,
        })
    }

    /// The owner's settings: the root's `memdir.yaml` overlaid with the
    /// owner's (in `dir`, when the folder exists).
    fn settings_in(&self, dir: Option<&Dir>) -> Result<Settings> {
        let root = self.store.settings().clone();
        Ok(match dir {
            Some(dir) => root.overlay(&read_settings_cached(
                self.disk(),
                dir,
                self.store.parsed(),
            )?),
            None => root,
        })
    }

    /// Opens the owner's folder and its `.memdir/` to write derived files,
    /// creating them (and the root) first if missing, durably. Takes no lock.
    pub(crate) fn folders(&self) -> Result<Folders> {
        let disk = self.disk();
        disk.check()?;
        self.store.settings_ok()?;
        let root = disk.ensure_root(self.store.root())?;
        let (dir, created) = match disk.open_dir(&root, &self.id)? {
            Some(dir) => (dir, false),
            None => {
                no_case_twin(disk, &root, "owner", &self.id, "")?;
                disk.ensure_dir(&root, &self.id)?
            }
        };
        let (derived, _) = disk.ensure_dir(&dir, DERIVED_DIR)?;
        Ok(Folders {
            dir,
            derived,
            created,
        })
    }

    /// Opens the owner's folder and its `.memdir/` to write derived files
    /// (caches, counts) on a read: `None` when the owner has no folder, so a
    /// read never creates the root or the owner's folder (only its
    /// `.memdir/`, inside an existing one). Takes no lock.
    pub(crate) fn existing_folders(&self) -> Result<Option<Folders>> {
        let disk = self.disk();
        disk.check()?;
        let Some(root) = disk.open_root(self.store.root())? else {
            return Ok(None);
        };
        let Some(dir) = disk.open_dir(&root, &self.id)? else {
            return Ok(None);
        };
        let (derived, _) = disk.ensure_dir(&dir, DERIVED_DIR)?;
        Ok(Some(Folders {
            dir,
            derived,
            created: false,
        }))
    }

    /// Refuses to write to a folder in a newer format than this memdir
    /// knows (`format:` in `memdir.yaml`), rather than misread it, or under
    /// a root whose `memdir.yaml` is refused (a machine-only key such as
    /// `persons`): writes fail closed, reads go on with the defaults.
    pub(crate) fn writable(&self, settings: &Settings) -> Result<()> {
        self.store.settings_ok()?;
        let found = settings.format_version();
        if found > FORMAT {
            return Err(Error::FormatTooNew {
                path: self.store.root().join(CONFIG_FILE),
                found,
                supported: FORMAT,
            });
        }
        Ok(())
    }

    /// The write policy of this owner's writes under `settings` (the
    /// root's `memdir.yaml` overlaid with the owner's): the tighter of
    /// theirs and the machine-local configuration's. A machine-local
    /// configuration that cannot be read is an error (the policy fails
    /// closed).
    pub(crate) fn write_policy(&self, settings: &Settings) -> Result<WritePolicy> {
        let machine = self.store.machine_config()?.writes;
        Ok(WritePolicy::tightest([Some(settings.writes()), machine]))
    }

    /// How long to wait for one of the owner's locks: the store's
    /// `--lock-timeout-ms` override, else `lock_timeout_ms` from the
    /// settings, else [`DEFAULT_LOCK_TIMEOUT`].
    /// The wait ends at the call's deadline, if it has one and that is
    /// sooner.
    pub(crate) fn lock_timeout(&self, settings: &Settings) -> Duration {
        let wait = self.store.lock_timeout().unwrap_or_else(|| {
            settings
                .lock_timeout_ms
                .map_or(DEFAULT_LOCK_TIMEOUT, Duration::from_millis)
        });
        match self.store.deadline() {
            Some(d) => wait.min(d.left()),
            None => wait,
        }
    }

    /// The check of the call's deadline a write makes with its lock `taken`
    /// (the lock's own answer), before writing anything: a wait the
    /// deadline cut, or a deadline passed (or the call abandoned) by now, is
    /// [`Error::DeadlinePassed`]; otherwise the write goes on and finishes.
    /// Without a deadline, the lock's answer as it is.
    pub(crate) fn begin_write<L>(&self, taken: Result<L>) -> Result<L> {
        let Some(deadline) = self.store.deadline() else {
            return taken;
        };
        match taken {
            Err(Error::Locked { .. }) if deadline.passed() => Err(Error::DeadlinePassed),
            Err(e) => Err(e),
            Ok(lock) => {
                deadline.commit()?;
                Ok(lock)
            }
        }
    }

    /// Takes the owner's lock, creating the folders it needs; reads the
    /// owner's settings once for both the wait and what follows; and removes
    /// the temp files a killed writer left in the owner's folder.
    ///
    /// Such files are created only under this lock, so none can have appeared
    /// while the owner's folder stays as this `Store`'s previous write left
    /// it (same mtime, ctime and inode, noted when that write released the
    /// lock): the sweep, which lists the folder, runs on the first write and
    /// after any change to the folder by someone else (a writer of another
    /// process, a killed one, a person).
    ///
    /// With a deadline ([`Store::with_deadline`]), the wait ends at it and
    /// the deadline is checked once the lock is held, before the sweep or
    /// anything else is written ([`Owner::begin_write`]).
    pub(crate) fn lock(&self) -> Result<Locked<'_>> {
        if self.store.deadline().is_some_and(|d| d.passed()) {
            return Err(Error::DeadlinePassed);
        }
        let folders = self.folders()?;
        let disk = self.disk();
        let checked = if folders.created {
            None
        } else {
            disk.stamp(&folders.dir)
        };
        let settings = self.settings_in(Some(&folders.dir))?;
        self.writable(&settings)?;
        let lock =
            self.begin_write(disk.lock(&folders.derived, "lock", self.lock_timeout(&settings)))?;
        // Taken at once, the lock had no holder since the folder was checked
        // a moment ago, unless one that held it then made a temp file after
        // the check and died before the lock was tried, microseconds later:
        // that stamp stands. (Such a file then waits for a later change to
        // the folder, or the next process.)
        let now = match checked {
            Some(stamp) if !lock.contended => Some(stamp),
            _ => disk.stamp(&folders.dir),
        };
        if now.is_none() || now != self.store.swept(&self.id) {
            disk.sweep_temps(&folders.dir);
            // `.memdir/` holds files written without this lock (the scan
            // cache): only stale temp files there.
            disk.sweep_stale_temps(&folders.derived, STALE_TEMP_AGE);
        }
        Ok(Locked {
            owner: self,
            dir: folders.dir,
            derived: folders.derived,
            settings,
            _lock: lock,
        })
    }
}

/// The owner's folder opened to read.
pub(crate) struct View<'o> {
    owner: &'o Owner,
    /// The folder's handle; `None` while it does not exist.
    dir: Option<Dir>,
    /// The owner's settings (overlaid on the root's).
    settings: Settings,
}

impl View<'_> {
    /// What readers take.
    pub(crate) fn at(&self) -> At<'_> {
        At {
            owner: self.owner,
            dir: self.dir.as_ref(),
            settings: &self.settings,
        }
    }
}

/// The owner's folder and its `.memdir/`, opened (and created) to write.
pub(crate) struct Folders {
    /// The owner's folder.
    pub(crate) dir: Dir,
    /// Its `.memdir/`.
    pub(crate) derived: Dir,
    /// Whether the owner's folder was created just now.
    created: bool,
}

/// The owner's lock, held: the guard every function that edits the owner's
/// files takes, with the folder opened under it. On release it notes how
/// the write left the owner's folder.
pub(crate) struct Locked<'o> {
    owner: &'o Owner,
    dir: Dir,
    /// Its `.memdir/`, as opened for the lock.
    derived: Dir,
    settings: Settings,
    _lock: Lock,
}

impl Locked<'_> {
    /// What follows a write that changed the files `names` of the owner's
    /// folder (`what`: `add mem_…`, for messages): while `memdir watch` runs
    /// (its marker `.memdir/watch` exists), the files' content hashes go to
    /// `.memdir/written.json`, so the watcher knows memdir's own writes; and
    /// with `git.autocommit` on, the files are committed as the caller with
    /// the message `memdir: WHAT by CALLER`. The write stands either way: a
    /// commit that fails (not in a work tree, a hook refused it) is a warning.
    pub(crate) fn written(&self, names: &[&str], what: &str) -> Option<String> {
        if names.is_empty() {
            return None;
        }
        self.note_written(names);
        if !self.settings.autocommit() {
            return None;
        }
        let dir = self.owner.dir();
        let name = match self.owner.caller() {
            Caller::Agent(a) => a,
            Caller::Person(p) => p,
        };
        let domain = self
            .settings
            .git
            .email_domain
            .as_deref()
            .unwrap_or("memdir.invalid");
        let who = Identity {
            name: name.clone(),
            email: format!("{name}@{domain}"),
        };
        let message = format!("memdir: {what} by {name}");
        match crate::git::commit(&dir, names, &message, &who) {
            Ok(_) => None,
            Err(Error::NotInGit { .. }) => Some(format!(
                "git.autocommit is on but {} is not in a git work tree: not committed",
                dir.display()
            )),
            Err(e) => Some(format!("written, not committed: {e}")),
        }
    }

    /// Records the SHA-256 of the files `names` as memdir last wrote them,
    /// in `.memdir/written.json`, while a watcher's marker is there. Derived
    /// and best effort: a failure only makes the watcher check a write of
    /// memdir's own.
    fn note_written(&self, names: &[&str]) {
        let disk = self.owner.disk();
        let derived = &self.derived;
        if !matches!(disk.stat(derived, WATCH_MARKER), Ok(Some(_))) {
            return;
        }
        let mut hashes: BTreeMap<String, String> = disk
            .read_bytes(derived, WRITTEN_FILE, WRITTEN_BYTES)
            .ok()
            .flatten()
            .and_then(|b| serde_json::from_slice(&b).ok())
            .unwrap_or_default();
        // The watcher watches the owner's own files (a part of `archive/`
        // is not one: its name is not a single component).
        for name in names.iter().filter(|n| !n.contains('/')) {
            if let Ok(Some(bytes)) = disk.read_bytes(&self.dir, name, WRITTEN_READ_BYTES) {
                hashes.insert((*name).to_owned(), hex::encode(Sha256::digest(&bytes)));
            }
        }
        if let Ok(json) = serde_json::to_vec(&hashes) {
            let _ = disk.write_atomic_volatile(derived, WRITTEN_FILE, &json);
        }
    }

    /// What readers take.
    pub(crate) fn at(&self) -> At<'_> {
        At {
            owner: self.owner,
            dir: Some(&self.dir),
            settings: &self.settings,
        }
    }

    /// The owner.
    pub(crate) fn owner(&self) -> &Owner {
        self.owner
    }

    /// The owner's folder.
    pub(crate) fn dir(&self) -> &Dir {
        &self.dir
    }

    /// The owner's settings.
    pub(crate) fn settings(&self) -> &Settings {
        &self.settings
    }
}

impl Drop for Locked<'_> {
    fn drop(&mut self) {
        // Still under the lock: `_lock` is released after this body.
        if let Some(stamp) = self.owner.disk().stamp(&self.dir) {
            self.owner.store().note_swept(self.owner.id(), stamp);
        }
    }
}

/// The owner's folder as a reader needs it, from a [`View`] or a [`Locked`].
#[derive(Clone, Copy)]
pub(crate) struct At<'a> {
    /// The owner.
    pub(crate) owner: &'a Owner,
    /// The folder's handle; `None` while it does not exist.
    pub(crate) dir: Option<&'a Dir>,
    /// The owner's settings.
    pub(crate) settings: &'a Settings,
}

impl At<'_> {
    /// The disk layer.
    pub(crate) fn disk(&self) -> &Disk {
        self.owner.disk()
    }
}
