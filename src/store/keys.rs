//! The keys of `memdir serve`: `Authorization: Bearer mdk_…`. A key is
//! printed once when it is made; only its SHA-256 is kept, with its
//! identity (an agent, or a person), in a keys file of the machine-local
//! configuration (`keys.yaml` in the configuration folder, or a file named
//! with `--keys`), never in a memory root, which a `git pull` can change.
//! The file is created with mode 0600; one that another user owns, or that
//! others can read or write, or a symlink, or one whose folder others can
//! write (they could put another file in its place), or that lies inside
//! the memory root, is refused, and grants nothing.

use std::path::{Path, PathBuf};

use chrono::{DateTime, Duration as Span, Utc};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::root::Store;
use crate::disk::{Dir, Kind, decode};
use crate::error::{Error, Result, Unconfirmed};
use crate::model::{Caller, validate_id};

/// The keys file's name in the configuration folder.
pub const KEYS_FILE: &str = "keys.yaml";
/// What every key starts with.
pub const KEY_PREFIX: &str = "mdk_";
/// The largest keys file memdir reads.
const KEYS_BYTES: u64 = 1 << 20;
/// How often a key's `last_used` is written at most.
const LAST_USED_EVERY: Span = Span::seconds(60);

/// Whom a key is for (in the keys file and the answers: `agent` or
/// `person`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum KeyKind {
    /// An agent: its requests act as that agent.
    Agent,
    /// A person: its requests act as that person.
    Person,
}

impl KeyKind {
    /// Its word: `agent` or `person`.
    pub const fn as_str(self) -> &'static str {
        match self {
            KeyKind::Agent => "agent",
            KeyKind::Person => "person",
        }
    }
}

impl std::fmt::Display for KeyKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One key as the keys file keeps it (never the key itself).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeyRecord {
    /// The key's id (`key_` + 8 hex), for `key list` and `key revoke`.
    pub id: String,
    /// A name given when it was made.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The key's first characters, to recognise it (`mdk_` + 4).
    pub prefix: String,
    /// The SHA-256 of the whole key, hex.
    pub sha256: String,
    /// `agent` or `person`.
    pub kind: KeyKind,
    /// The agent's or the person's id.
    pub subject: String,
    /// When it was made.
    pub created: DateTime<Utc>,
    /// When it was last accepted (to the minute).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_used: Option<DateTime<Utc>>,
    /// When it was revoked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revoked: Option<DateTime<Utc>>,
}

impl KeyRecord {
    /// The caller a request with this key acts as.
    pub fn caller(&self) -> Caller {
        match self.kind {
            KeyKind::Person => Caller::Person(self.subject.clone()),
            KeyKind::Agent => Caller::Agent(self.subject.clone()),
        }
    }
}

/// The keys file's contents.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct KeysDoc {
    #[serde(default)]
    keys: Vec<KeyRecord>,
}

/// Where the keys are: `explicit`, else `keys.yaml` in the store's
/// configuration folder.
pub fn keys_path(store: &Store, explicit: Option<&Path>) -> Result<PathBuf> {
    match explicit {
        Some(p) => Ok(p.to_owned()),
        None => store
            .config_dir()
            .map(|d| d.join(KEYS_FILE))
            .ok_or_else(|| Error::InvalidConfig {
                path: PathBuf::from(KEYS_FILE),
                message: "no configuration folder: set MEMDIR_CONFIG_DIR or pass --keys FILE"
                    .into(),
            }),
    }
}

fn refuse(path: &Path, message: impl Into<String>) -> Error {
    Error::InvalidConfig {
        path: path.to_owned(),
        message: message.into(),
    }
}

/// The folder and name of the keys file, checked to be outside the root.
fn locate(store: &Store, path: &Path, create: bool) -> Result<Option<(Dir, String)>> {
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .ok_or_else(|| refuse(path, "not a file name"))?
        .to_owned();
    let parent = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let disk = store.disk();
    let dir = match disk.open_root(parent)? {
        Some(d) => d,
        None if create => disk.ensure_root(parent)?,
        None => return Ok(None),
    };
    if crate::disk::is_within(parent, store.root()) {
        return Err(refuse(
            path,
            "a keys file inside the memory root grants nothing: keep it in the machine-local configuration folder",
        ));
    }
    let st = disk.stat_dir(&dir)?;
    let me = rustix::process::geteuid().as_raw();
    if st.uid != me && st.uid != 0 {
        return Err(refuse(
            path,
            format!(
                "the keys file's folder {} belongs to another user: keep the keys file in a folder of yours",
                parent.display()
            ),
        ));
    }
    if st.mode & 0o002 != 0 {
        return Err(refuse(
            path,
            format!(
                "the keys file's folder {} is writable by others (mode {:o}): chmod o-w it, or keep the keys file in a folder only you can write",
                parent.display(),
                st.mode
            ),
        ));
    }
    Ok(Some((dir, name)))
}

/// Reads the keys file (none: no keys), refusing one that is not this
/// user's alone.
fn read(store: &Store, dir: &Dir, name: &str, path: &Path) -> Result<KeysDoc> {
    let disk = store.disk();
    let Some(st) = disk.stat(dir, name)? else {
        return Ok(KeysDoc::default());
    };
    if st.kind != Kind::File {
        return Err(refuse(
            path,
            "the keys file is a symlink or not a plain file: put the file itself there (chmod 600)",
        ));
    }
    if st.uid != rustix::process::geteuid().as_raw() {
        return Err(refuse(path, "the keys file belongs to another user"));
    }
    if st.mode & 0o077 != 0 {
        return Err(refuse(
            path,
            format!(
                "the keys file is open to others (mode {:o}): chmod 600 it",
                st.mode
            ),
        ));
    }
    // Read and parsed again unless its stat is the settled one it had when
    // last read (a long-lived server's calls: docs/PERFORMANCE.md).
    let full = dir.join(name);
    if let Some(doc) = store
        .parsed()
        .keys(&full, &st)
        .and_then(|k| k.downcast_ref::<KeysDoc>().cloned())
    {
        return Ok(doc);
    }
    let Some(held) = disk.read(dir, name, KEYS_BYTES)? else {
        return Ok(KeysDoc::default());
    };
    let text = decode(&full, held.bytes)?;
    let doc = if text.trim().is_empty() {
        KeysDoc::default()
    } else {
        serde_yaml::from_str(&text).map_err(|e| refuse(path, e.to_string()))?
    };
    // Kept only for the stat the bytes were read with, and only if it is
    // still the file's kind, owner and mode checked above.
    if held.stat.kind == Kind::File && held.stat.uid == st.uid && held.stat.mode == st.mode {
        store
            .parsed()
            .put_keys(&full, &held.stat, std::sync::Arc::new(doc.clone()));
    }
    Ok(doc)
}

fn write(store: &Store, dir: &Dir, name: &str, doc: &KeysDoc, path: &Path) -> Result<()> {
    let text = serde_yaml::to_string(doc).map_err(|e| refuse(path, e.to_string()))?;
    let disk = store.disk();
    // Made 0600 first; a rewrite keeps the file's mode.
    if !disk.create_new(dir, name, text.as_bytes(), 0o600)? {
        disk.write_atomic(dir, name, text.as_bytes())?;
    }
    Ok(())
}

fn sha256_hex(s: &str) -> String {
    hex::encode(Sha256::digest(s.as_bytes()))
}

/// Checks that the keys file at `path` may be used: absent, or this
/// user's alone and outside the root (what `memdir serve` checks at
/// start-up). Returns the number of live keys.
pub fn check(store: &Store, path: &Path) -> Result<usize> {
    let Some((dir, name)) = locate(store, path, false)? else {
        return Ok(0);
    };
    Ok(read(store, &dir, &name, path)?
        .keys
        .iter()
        .filter(|k| k.revoked.is_none())
        .count())
}

/// Makes a key for `caller`: returns the key (shown once) and its record.
pub fn create(
    store: &Store,
    path: &Path,
    caller: &Caller,
    name: Option<&str>,
) -> Result<(String, KeyRecord)> {
    let kind = if caller.is_person() {
        KeyKind::Person
    } else {
        KeyKind::Agent
    };
    validate_id(kind.as_str(), caller.id())?;
    if let Caller::Person(p) = caller {
        store.allow_person(p)?;
    }
    let (dir, file) = locate(store, path, true)?.ok_or_else(|| refuse(path, "no folder"))?;
    let _lock = store.disk().lock(
        &dir,
        &format!(".{file}.lock"),
        std::time::Duration::from_secs(10),
    )?;
    let mut doc = read(store, &dir, &file, path)?;
    let mut raw = [0u8; 32];
    getrandom::fill(&mut raw).map_err(|e| refuse(path, format!("no randomness: {e}")))?;
    let key = format!("{KEY_PREFIX}{}", hex::encode(raw));
    let mut id_raw = [0u8; 4];
    getrandom::fill(&mut id_raw).map_err(|e| refuse(path, format!("no randomness: {e}")))?;
    let record = KeyRecord {
        id: format!("key_{}", hex::encode(id_raw)),
        name: name.map(str::to_owned),
        prefix: key.chars().take(KEY_PREFIX.len() + 4).collect(),
        sha256: sha256_hex(&key),
        kind,
        subject: caller.id().to_owned(),
        created: Utc::now(),
        last_used: None,
        revoked: None,
    };
    doc.keys.push(record.clone());
    write(store, &dir, &file, &doc, path)?;
    Ok((key, record))
}

/// Every key of the file, revoked ones too.
pub fn list(store: &Store, path: &Path) -> Result<Vec<KeyRecord>> {
    let Some((dir, name)) = locate(store, path, false)? else {
        return Ok(Vec::new());
    };
    Ok(read(store, &dir, &name, path)?.keys)
}

/// Revokes the key with this id or name (every live key of that name).
pub fn revoke(store: &Store, path: &Path, which: &str) -> Result<Vec<KeyRecord>> {
    let not_found = || Error::InvalidId {
        kind: "key",
        value: which.to_owned(),
        reason: "no live key has this id or name (see `memdir key list`)".into(),
    };
    let Some((dir, file)) = locate(store, path, false)? else {
        return Err(not_found());
    };
    let _lock = store.disk().lock(
        &dir,
        &format!(".{file}.lock"),
        std::time::Duration::from_secs(10),
    )?;
    let mut doc = read(store, &dir, &file, path)?;
    let now = Utc::now();
    let mut revoked = Vec::new();
    for k in doc.keys.iter_mut() {
        if k.revoked.is_none() && (k.id == which || k.name.as_deref() == Some(which)) {
            k.revoked = Some(now);
            revoked.push(k.clone());
        }
    }
    if revoked.is_empty() {
        return Err(not_found());
    }
    write(store, &dir, &file, &doc, path)?;
    Ok(revoked)
}

/// The live key `presented` is, read from the file now (a key revoked a
/// moment ago is refused): `None` for no such key or a revoked one. Notes
/// the use (at most once a minute per key, not durably).
pub fn verify(store: &Store, path: &Path, presented: &str) -> Result<Option<KeyRecord>> {
    if !presented.starts_with(KEY_PREFIX) {
        return Ok(None);
    }
    let Some((dir, name)) = locate(store, path, false)? else {
        return Ok(None);
    };
    let doc = read(store, &dir, &name, path)?;
    let digest = sha256_hex(presented);
    let now = Utc::now();
    let Some(record) = doc
        .keys
        .iter()
        .find(|k| k.revoked.is_none() && constant_eq(&k.sha256, &digest))
        .cloned()
    else {
        return Ok(None);
    };
    if record.last_used.is_none_or(|t| now - t >= LAST_USED_EVERY) {
        note_use(store, &dir, &name, path, &record.id, now);
    }
    Ok(Some(record))
}

/// Notes a key's use: under the keys file's lock (a `key create` or
/// `revoke` meanwhile is never undone), read again, not durably; skipped
/// when the lock is busy or anything fails (it is only a note).
fn note_use(store: &Store, dir: &Dir, name: &str, path: &Path, id: &str, now: DateTime<Utc>) {
    let Ok(_lock) = store.disk().lock(
        dir,
        &format!(".{name}.lock"),
        std::time::Duration::from_millis(20),
    ) else {
        return;
    };
    let Ok(mut doc) = read(store, dir, name, path) else {
        return;
    };
    let Some(k) = doc.keys.iter_mut().find(|k| k.id == id) else {
        return;
    };
    k.last_used = Some(now);
    if let Ok(text) = serde_yaml::to_string(&doc) {
        let _ = store
            .disk()
            .write_atomic_volatile(dir, name, text.as_bytes());
    }
}

/// The largest key file (`--key-file`) memdir reads.
const KEY_FILE_BYTES: u64 = 4096;

/// The person whose key the file `key_file` holds (the command line's
/// `--key-file`), checked against the account's own keys file
/// (`keys.yaml` in [`Store::account_config_dir`], never a keys file the
/// caller chose with an option or a variable): a live person's key, of
/// `person` when one is named, whom every `persons` binding allows.
/// Otherwise [`Error::PersonUnconfirmed`] ([`Unconfirmed::KeyRefused`];
/// [`Unconfirmed::AgentKey`] for an agent's key, which acts only on a
/// server).
/// The key file must be a plain file of this user's that no other user
/// can read or write: whoever can read it is that person.
pub fn person_key(store: &Store, key_file: &Path, person: Option<&str>) -> Result<String> {
    let refused = || Error::PersonUnconfirmed {
        person: person.unwrap_or_default().to_owned(),
        why: Unconfirmed::KeyRefused,
    };
    let key = read_key_file(store, key_file)?;
    let Some(keys) = store.account_config_dir().map(|d| d.join(KEYS_FILE)) else {
        return Err(refused());
    };
    match verify(store, &keys, &key)? {
        Some(r) if r.kind == KeyKind::Person && person.is_none_or(|p| p == r.subject) => {
            person_here(store, &r.subject)?;
            Ok(r.subject)
        }
        Some(r) if r.kind == KeyKind::Agent => Err(Error::PersonUnconfirmed {
            person: person.unwrap_or_default().to_owned(),
            why: Unconfirmed::AgentKey,
        }),
        _ => Err(refused()),
    }
}

/// The key a key file holds (its text, trimmed), refusing a file that is
/// not a plain file of this user's alone (`invalid_config`).
fn read_key_file(store: &Store, path: &Path) -> Result<String> {
    key_in_file(store.disk(), path)
}

/// The key an agent's (or a person's) key file holds for a server
/// (`memdir --url`, `memdir mcp --url`): read with no root, since the
/// process of an agent kept apart reaches none. The same checks as a
/// person's key file: a plain file (not a symlink) of this user's that no
/// other user can read or write, at most 4 KiB (`invalid_config`). The
/// server, not this process, decides whose key it is.
pub fn key_file_text(path: &Path) -> Result<String> {
    key_in_file(&crate::disk::Disk::default(), path)
}

/// [`read_key_file`] on `disk`.
fn key_in_file(disk: &crate::disk::Disk, path: &Path) -> Result<String> {
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .ok_or_else(|| refuse(path, "not a file name"))?;
    let parent = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let missing = || refuse(path, "no such key file");
    let dir = disk.open_root(parent)?.ok_or_else(missing)?;
    let st = disk.stat(&dir, name)?.ok_or_else(missing)?;
    if st.kind != Kind::File {
        return Err(refuse(
            path,
            "the key file is a symlink or not a plain file: name the file itself",
        ));
    }
    if st.uid != rustix::process::geteuid().as_raw() || st.mode & 0o077 != 0 {
        return Err(refuse(
            path,
            format!(
                "the key file is another user's or open to others (mode {:o}): whoever can read it acts with its key, so chmod 600 it",
                st.mode
            ),
        ));
    }
    let text = disk
        .read_text(&dir, name, KEY_FILE_BYTES)?
        .ok_or_else(missing)?;
    Ok(text.trim().to_owned())
}

/// The one-time login links' file, beside the keys file it serves.
pub const LINKS_FILE: &str = "login-links.yaml";
/// How long a login link is good for.
pub const LINK_LIFE: Span = Span::minutes(10);
/// The most login links waiting to be used at once, per keys file.
pub const MAX_LINKS: usize = 20;
/// The hex digits of a link's token (256 bits).
pub const LINK_TOKEN_HEX: usize = 64;

/// One outstanding login link as its file keeps it (never the token).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct LinkRecord {
    /// The SHA-256 of the token, hex.
    sha256: String,
    /// The person it logs in.
    person: String,
    /// When it was made.
    created: DateTime<Utc>,
    /// When it stops being good.
    expires: DateTime<Utc>,
}

/// The login links' file contents.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct LinksDoc {
    #[serde(default)]
    links: Vec<LinkRecord>,
}

/// A one-time login link just made: its token (shown once, never kept),
/// whom it logs in, and until when.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LoginLink {
    /// 256 random bits, hex: the last segment of the link's URL.
    pub token: String,
    /// The person it logs in.
    pub person: String,
    /// When it stops being good.
    pub expires: DateTime<Utc>,
}

/// The login links' file that goes with the keys file `keys`: in the same
/// folder, checked as the keys file is.
fn links_path(keys: &Path) -> PathBuf {
    keys.with_file_name(LINKS_FILE)
}

/// Reads the links' file (checked as the keys file is: this user's alone,
/// a plain file), the expired links left out, and whether any was.
fn read_links(
    store: &Store,
    dir: &Dir,
    name: &str,
    path: &Path,
    now: DateTime<Utc>,
) -> Result<(LinksDoc, bool)> {
    let disk = store.disk();
    let Some(st) = disk.stat(dir, name)? else {
        return Ok((LinksDoc::default(), false));
    };
    if st.kind != Kind::File {
        return Err(refuse(
            path,
            "the login links' file is a symlink or not a plain file",
        ));
    }
    if st.uid != rustix::process::geteuid().as_raw() || st.mode & 0o077 != 0 {
        return Err(refuse(
            path,
            format!(
                "the login links' file is another user's or open to others (mode {:o}): remove it",
                st.mode
            ),
        ));
    }
    let Some(text) = disk.read_text(dir, name, KEYS_BYTES)? else {
        return Ok((LinksDoc::default(), false));
    };
    let mut doc: LinksDoc = if text.trim().is_empty() {
        LinksDoc::default()
    } else {
        serde_yaml::from_str(&text).map_err(|e| refuse(path, e.to_string()))?
    };
    let before = doc.links.len();
    doc.links.retain(|l| now < l.expires);
    let swept = doc.links.len() != before;
    Ok((doc, swept))
}

fn write_links(store: &Store, dir: &Dir, name: &str, doc: &LinksDoc, path: &Path) -> Result<()> {
    let text = serde_yaml::to_string(doc).map_err(|e| refuse(path, e.to_string()))?;
    let disk = store.disk();
    if !disk.create_new(dir, name, text.as_bytes(), 0o600)? {
        disk.write_atomic(dir, name, text.as_bytes())?;
    }
    Ok(())
}

/// Whether `person` may act as a person here: a valid id the machine's
/// `persons` binding allows this operating-system user (the rule of the
/// command line's `--person`).
fn person_here(store: &Store, person: &str) -> Result<()> {
    validate_id("person", person)?;
    store.allow_person(person)
}

/// Makes a one-time login link for `caller` (a person) to the dashboard
/// of the server using the keys file `keys`: only its SHA-256 is kept, in
/// the links' file beside the keys file, good for [`LINK_LIFE`]; at most
/// [`MAX_LINKS`] wait at once (expired ones are swept first).
pub fn create_link(store: &Store, keys: &Path, caller: &Caller) -> Result<LoginLink> {
    let person = match caller {
        Caller::Person(p) => p,
        Caller::Agent(a) => return Err(Error::LoginLinkPersonOnly { agent: a.clone() }),
    };
    person_here(store, person)?;
    let path = links_path(keys);
    let (dir, file) = locate(store, &path, true)?.ok_or_else(|| refuse(&path, "no folder"))?;
    let _lock = store.disk().lock(
        &dir,
        &format!(".{file}.lock"),
        std::time::Duration::from_secs(10),
    )?;
    let now = Utc::now();
    let (mut doc, _) = read_links(store, &dir, &file, &path, now)?;
    if doc.links.len() >= MAX_LINKS {
        return Err(Error::LoginLinkLimit {
            outstanding: doc.links.len(),
            limit: MAX_LINKS,
        });
    }
    let mut raw = [0u8; 32];
    getrandom::fill(&mut raw).map_err(|e| refuse(&path, format!("no randomness: {e}")))?;
    let token = hex::encode(raw);
    let expires = now + LINK_LIFE;
    doc.links.push(LinkRecord {
        sha256: sha256_hex(&token),
        person: person.clone(),
        created: now,
        expires,
    });
    write_links(store, &dir, &file, &doc, &path)?;
    Ok(LoginLink {
        token,
        person: person.clone(),
        expires,
    })
}

/// Uses the login link `token` of the server using the keys file `keys`:
/// once. Its record is removed as it is read (under the file's lock), so a
/// second use finds nothing; an unknown, used or expired token (or one not
/// 64 hex digits) is [`Error::LoginLinkRefused`]. Returns the person, who
/// must still be allowed by the `persons` binding.
pub fn redeem_link(store: &Store, keys: &Path, token: &str) -> Result<String> {
    if token.len() != LINK_TOKEN_HEX || !token.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(Error::LoginLinkRefused);
    }
    let path = links_path(keys);
    let Some((dir, file)) = locate(store, &path, false)? else {
        return Err(Error::LoginLinkRefused);
    };
    let _lock = store.disk().lock(
        &dir,
        &format!(".{file}.lock"),
        std::time::Duration::from_secs(10),
    )?;
    let now = Utc::now();
    let (mut doc, swept) = read_links(store, &dir, &file, &path, now)?;
    let digest = sha256_hex(&token.to_ascii_lowercase());
    let found = doc
        .links
        .iter()
        .position(|l| constant_eq(&l.sha256, &digest));
    let Some(at) = found else {
        // Expired links are swept on the way (the file is written only
        // then: a wrong token writes nothing).
        if swept {
            write_links(store, &dir, &file, &doc, &path)?;
        }
        return Err(Error::LoginLinkRefused);
    };
    let link = doc.links.remove(at);
    write_links(store, &dir, &file, &doc, &path)?;
    person_here(store, &link.person)?;
    Ok(link.person)
}

/// Whom the login link `token` of the server using the keys file `keys`
/// logs in, and until when, without using it: its record stays, nothing
/// is written and no lock is taken (the page a link opens names the
/// person before the person confirms). An unknown, used or expired token
/// (or one not 64 hex digits) is [`Error::LoginLinkRefused`]; a person the
/// `persons` binding no longer allows is refused as the use would be.
pub fn peek_link(store: &Store, keys: &Path, token: &str) -> Result<(String, DateTime<Utc>)> {
    if token.len() != LINK_TOKEN_HEX || !token.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(Error::LoginLinkRefused);
    }
    let path = links_path(keys);
    let Some((dir, file)) = locate(store, &path, false)? else {
        return Err(Error::LoginLinkRefused);
    };
    let (doc, _) = read_links(store, &dir, &file, &path, Utc::now())?;
    let digest = sha256_hex(&token.to_ascii_lowercase());
    let link = doc
        .links
        .into_iter()
        .find(|l| constant_eq(&l.sha256, &digest))
        .ok_or(Error::LoginLinkRefused)?;
    person_here(store, &link.person)?;
    Ok((link.person, link.expires))
}

/// Compares two hex digests in time independent of where they differ.
fn constant_eq(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes()
            .zip(b.bytes())
            .fold(0u8, |acc, (x, y)| acc | (x ^ y))
            == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_made_kept_hashed_and_revoked() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path().join("root")).unwrap();
        let path = dir.path().join("config/keys.yaml");
        let (key, rec) = create(&store, &path, &Caller::Agent("agt_k".into()), Some("ci")).unwrap();
        assert!(key.starts_with("mdk_") && key.len() == 68, "{key}");
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(!text.contains(&key), "the key itself is never kept");
        assert!(text.contains(&rec.sha256));
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        let got = verify(&store, &path, &key).unwrap().unwrap();
        assert_eq!(got.caller(), Caller::Agent("agt_k".into()));
        assert_eq!(verify(&store, &path, "mdk_wrong").unwrap(), None);
        assert!(list(&store, &path).unwrap()[0].last_used.is_some());
        revoke(&store, &path, "ci").unwrap();
        assert_eq!(verify(&store, &path, &key).unwrap(), None);
        assert_eq!(
            revoke(&store, &path, "ci").unwrap_err().code().as_str(),
            "invalid_id"
        );
        // Open to others: refused.
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        assert_eq!(
            check(&store, &path).unwrap_err().code().as_str(),
            "invalid_config"
        );
    }

    #[test]
    fn a_login_link_is_kept_hashed_and_used_once() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path().join("root")).unwrap();
        let keys = dir.path().join("config/keys.yaml");
        let ann = Caller::Person("ann".into());
        let link = create_link(&store, &keys, &ann).unwrap();
        assert_eq!(link.token.len(), LINK_TOKEN_HEX);
        assert!(link.expires > Utc::now() + Span::minutes(9));
        let file = dir.path().join("config").join(LINKS_FILE);
        let text = std::fs::read_to_string(&file).unwrap();
        assert!(
            !text.contains(&link.token),
            "the token itself is never kept"
        );
        assert!(text.contains(&sha256_hex(&link.token)));
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&file).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        // Looked at, not used: it names its person, and stays.
        for _ in 0..2 {
            let (person, expires) = peek_link(&store, &keys, &link.token).unwrap();
            assert_eq!((person.as_str(), expires), ("ann", link.expires));
        }
        assert_eq!(std::fs::read_to_string(&file).unwrap(), text);
        assert_eq!(redeem_link(&store, &keys, &link.token).unwrap(), "ann");
        let used = peek_link(&store, &keys, &link.token).unwrap_err();
        assert_eq!(used.code().as_str(), "unauthorized");
        let again = redeem_link(&store, &keys, &link.token).unwrap_err();
        assert_eq!(again.code().as_str(), "unauthorized");
        for bad in ["", "zz", &"g".repeat(64), &"0".repeat(64)] {
            let e = redeem_link(&store, &keys, bad).unwrap_err();
            assert_eq!(e.code().as_str(), "unauthorized", "{bad:?}");
            let e = peek_link(&store, &keys, bad).unwrap_err();
            assert_eq!(e.code().as_str(), "unauthorized", "{bad:?}");
        }
        let agent = create_link(&store, &keys, &Caller::Agent("agt_a".into())).unwrap_err();
        assert_eq!(agent.code().as_str(), "person_only");
        let bad_id = create_link(&store, &keys, &Caller::Person("a b".into())).unwrap_err();
        assert_eq!(bad_id.code().as_str(), "invalid_id");
    }

    #[test]
    fn expired_links_are_refused_and_swept_and_outstanding_ones_bounded() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path().join("root")).unwrap();
        let keys = dir.path().join("config/keys.yaml");
        let ann = Caller::Person("ann".into());
        let old = create_link(&store, &keys, &ann).unwrap();
        let file = dir.path().join("config").join(LINKS_FILE);
        // Its expiry moved into the past, as ten minutes would.
        let mut doc: LinksDoc =
            serde_yaml::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
        doc.links[0].expires = Utc::now() - Span::seconds(1);
        std::fs::write(&file, serde_yaml::to_string(&doc).unwrap()).unwrap();
        let e = peek_link(&store, &keys, &old.token).unwrap_err();
        assert_eq!(e.code().as_str(), "unauthorized");
        let e = redeem_link(&store, &keys, &old.token).unwrap_err();
        assert_eq!(e.code().as_str(), "unauthorized");
        assert!(!std::fs::read_to_string(&file).unwrap().contains("sha256"));
        for _ in 0..MAX_LINKS {
            create_link(&store, &keys, &ann).unwrap();
        }
        let full = create_link(&store, &keys, &ann).unwrap_err();
        assert_eq!(full.code().as_str(), "too_many_attempts");
    }

    #[test]
    fn a_keys_file_inside_the_root_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("root")).unwrap();
        let store = Store::open(dir.path().join("root")).unwrap();
        let path = dir.path().join("root/keys.yaml");
        let e = create(&store, &path, &Caller::Agent("agt_k".into()), None).unwrap_err();
        assert_eq!(e.code().as_str(), "invalid_config");
        assert!(!path.exists());
    }
}
