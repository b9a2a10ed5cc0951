//! The file-system layer: a narrow I/O trait, stable reads, and durable,
//! editor-safe replacement of a file.
//!
//! All writes go through [`Io`], so tests can make any step fail on purpose
//! (see `FaultyIo` in the tests).

use std::fs::{File, Metadata, Permissions};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, SystemTime};

use crate::error::{Error, Result};

/// Largest markdown file memdir reads for editing.
pub const MAX_FILE_BYTES: u64 = 1024 * 1024;

/// Suffix of every temp file memdir writes; leftovers are swept under the lock.
pub const TEMP_SUFFIX: &str = ".memdir-tmp";

/// The primitive operations memdir performs on files.
pub(crate) trait Io: Send + Sync + std::fmt::Debug {
    /// Opens a file for reading without following a symlink at `path` (that
    /// fails with `ELOOP`) and without blocking on a FIFO.
    fn open_read(&self, path: &Path) -> io::Result<File>;
    fn symlink_metadata(&self, path: &Path) -> io::Result<Metadata>;
    fn create_dir_all(&self, path: &Path) -> io::Result<()>;
    /// Creates a new temp file in `dir` (mode 0666 before umask, or `perm`).
    fn create_temp(
        &self,
        dir: &Path,
        prefix: &str,
        perm: Option<Permissions>,
    ) -> io::Result<(File, PathBuf)>;
    fn write_all(&self, file: &mut File, bytes: &[u8]) -> io::Result<()>;
    fn sync_file(&self, file: &File) -> io::Result<()>;
    fn rename(&self, from: &Path, to: &Path) -> io::Result<()>;
    /// Renames `from` to `to` only if `to` does not exist.
    fn rename_noreplace(&self, from: &Path, to: &Path) -> io::Result<()>;
    /// Atomically swaps `a` and `b` (Linux `renameat2(RENAME_EXCHANGE)`).
    fn exchange(&self, a: &Path, b: &Path) -> io::Result<()>;
    fn sync_dir(&self, dir: &Path) -> io::Result<()>;
    fn remove_file(&self, path: &Path) -> io::Result<()>;
    fn read_dir_names(&self, dir: &Path) -> io::Result<Vec<String>>;
}

/// The real file system.
#[derive(Debug, Default)]
pub(crate) struct RealIo;

impl Io for RealIo {
    fn open_read(&self, path: &Path) -> io::Result<File> {
        let mut options = std::fs::OpenOptions::new();
        options.read(true);
        #[cfg(unix)]
        {
            use rustix::fs::OFlags;
            use std::os::unix::fs::OpenOptionsExt;
            options.custom_flags((OFlags::NOFOLLOW | OFlags::NONBLOCK).bits() as i32);
        }
        options.open(path)
    }
    fn symlink_metadata(&self, path: &Path) -> io::Result<Metadata> {
        std::fs::symlink_metadata(path)
    }
    fn create_dir_all(&self, path: &Path) -> io::Result<()> {
        std::fs::create_dir_all(path)
    }
    fn create_temp(
        &self,
        dir: &Path,
        prefix: &str,
        perm: Option<Permissions>,
    ) -> io::Result<(File, PathBuf)> {
        let mut b = tempfile::Builder::new();
        b.prefix(prefix).suffix(TEMP_SUFFIX);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            b.permissions(Permissions::from_mode(0o666));
        }
        let (file, path) = b.tempfile_in(dir)?.keep().map_err(|e| e.error)?;
        if let Some(perm) = perm
            && let Err(e) = file.set_permissions(perm)
        {
            let _ = std::fs::remove_file(&path);
            return Err(e);
        }
        Ok((file, path))
    }
    fn write_all(&self, file: &mut File, bytes: &[u8]) -> io::Result<()> {
        file.write_all(bytes)
    }
    fn sync_file(&self, file: &File) -> io::Result<()> {
        file.sync_all()
    }
    fn rename(&self, from: &Path, to: &Path) -> io::Result<()> {
        std::fs::rename(from, to)
    }
    #[cfg(target_os = "linux")]
    fn rename_noreplace(&self, from: &Path, to: &Path) -> io::Result<()> {
        use rustix::fs::{CWD, RenameFlags, renameat_with};
        renameat_with(CWD, from, CWD, to, RenameFlags::NOREPLACE).map_err(io::Error::from)
    }
    #[cfg(not(target_os = "linux"))]
    fn rename_noreplace(&self, from: &Path, to: &Path) -> io::Result<()> {
        // Elsewhere a hard link fails if `to` exists, then the temp name goes.
        std::fs::hard_link(from, to)?;
        std::fs::remove_file(from)
    }
    #[cfg(target_os = "linux")]
    fn exchange(&self, a: &Path, b: &Path) -> io::Result<()> {
        use rustix::fs::{CWD, RenameFlags, renameat_with};
        renameat_with(CWD, a, CWD, b, RenameFlags::EXCHANGE).map_err(io::Error::from)
    }
    #[cfg(not(target_os = "linux"))]
    fn exchange(&self, _a: &Path, _b: &Path) -> io::Result<()> {
        Err(io::Error::from(io::ErrorKind::Unsupported))
    }
    fn sync_dir(&self, dir: &Path) -> io::Result<()> {
        #[cfg(unix)]
        {
            File::open(dir)?.sync_all()
        }
        #[cfg(not(unix))]
        {
            let _ = dir;
            Ok(())
        }
    }
    fn remove_file(&self, path: &Path) -> io::Result<()> {
        std::fs::remove_file(path)
    }
    fn read_dir_names(&self, dir: &Path) -> io::Result<Vec<String>> {
        let mut names = Vec::new();
        for e in std::fs::read_dir(dir)? {
            if let Some(n) = e?.file_name().to_str() {
                names.push(n.to_owned());
            }
        }
        Ok(names)
    }
}

/// Remembers the first failed sync; after it, no more writes (fjall's rule:
/// a failed fsync leaves the page cache in an unknown state).
#[derive(Debug, Default)]
pub(crate) struct Poison(Mutex<Option<PathBuf>>);

impl Poison {
    pub(crate) fn check(&self) -> Result<()> {
        match self.0.lock() {
            Ok(g) => match g.as_ref() {
                Some(path) => Err(Error::Poisoned { path: path.clone() }),
                None => Ok(()),
            },
            Err(_) => Err(Error::Poisoned {
                path: PathBuf::new(),
            }),
        }
    }
    fn set(&self, path: &Path) {
        if let Ok(mut g) = self.0.lock() {
            g.get_or_insert_with(|| path.to_owned());
        }
    }
}

/// What identifies a file's version for a stable read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Stamp {
    len: u64,
    modified: Option<SystemTime>,
    #[cfg(unix)]
    ino: u64,
}

fn stamp(m: &Metadata) -> Stamp {
    Stamp {
        len: m.len(),
        modified: m.modified().ok(),
        #[cfg(unix)]
        ino: std::os::unix::fs::MetadataExt::ino(m),
    }
}

/// What a folder looks like from outside: adding, renaming or removing an
/// entry changes its mtime and ctime.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct DirStamp {
    modified: Option<SystemTime>,
    #[cfg(unix)]
    changed: (i64, i64),
    #[cfg(unix)]
    ino: u64,
}

impl DirStamp {
    /// The stamp in a folder's metadata.
    pub(crate) fn of(m: &Metadata) -> DirStamp {
        #[cfg(unix)]
        use std::os::unix::fs::MetadataExt;
        DirStamp {
            modified: m.modified().ok(),
            #[cfg(unix)]
            changed: (m.ctime(), m.ctime_nsec()),
            #[cfg(unix)]
            ino: m.ino(),
        }
    }
}

/// The stamp of folder `dir` (`None` if it cannot be stated).
pub(crate) fn dir_stamp(io: &dyn Io, dir: &Path) -> Option<DirStamp> {
    io.symlink_metadata(dir).ok().map(|m| DirStamp::of(&m))
}

/// Refuses a path that is a symlink or not a regular file; `Ok(None)` if missing.
pub(crate) fn plain_file_meta(io: &dyn Io, path: &Path) -> Result<Option<Metadata>> {
    match io.symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() || !m.is_file() => Err(Error::UnsafePath {
            path: path.to_owned(),
        }),
        Ok(m) => Ok(Some(m)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(Error::io(path, "stat")(e)),
    }
}

/// Refuses a folder that is a symlink or not a folder; `Ok(false)` if missing.
pub(crate) fn plain_dir_exists(io: &dyn Io, path: &Path) -> Result<bool> {
    Ok(plain_dir_meta(io, path)?.is_some())
}

/// [`plain_dir_exists`], giving the folder's metadata.
pub(crate) fn plain_dir_meta(io: &dyn Io, path: &Path) -> Result<Option<Metadata>> {
    match io.symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() || !m.is_dir() => Err(Error::UnsafePath {
            path: path.to_owned(),
        }),
        Ok(m) => Ok(Some(m)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(Error::io(path, "stat")(e)),
    }
}

/// How long an emptied file counts as a save in progress.
const EMPTY_SETTLE: Duration = Duration::from_secs(2);
/// Attempts of a stable read (10 ms apart for an emptied file: past
/// [`EMPTY_SETTLE`]).
const READ_ATTEMPTS: usize = 250;

fn recently_changed(m: &Metadata) -> bool {
    m.modified()
        .ok()
        .and_then(|t| SystemTime::now().duration_since(t).ok())
        .is_some_and(|age| age < EMPTY_SETTLE)
}

/// Opens a regular file for reading; `Ok(None)` if missing. A symlink, a
/// folder or any other kind of file is refused as [`Error::UnsafePath`].
fn open_plain(io: &dyn Io, path: &Path) -> Result<Option<(File, Metadata)>> {
    let unsafe_path = || Error::UnsafePath {
        path: path.to_owned(),
    };
    let file = match io.open_read(path) {
        Ok(f) => f,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) if e.raw_os_error() == Some(rustix::io::Errno::LOOP.raw_os_error()) => {
            return Err(unsafe_path());
        }
        Err(e) => return Err(Error::io(path, "open")(e)),
    };
    let meta = file.metadata().map_err(Error::io(path, "stat"))?;
    if !meta.is_file() {
        return Err(unsafe_path());
    }
    Ok(Some((file, meta)))
}

/// Reads up to `len` bytes (a file's size as just stated): fewer if it ends
/// sooner. Never more, so a file that grows meanwhile reads short of its new
/// size and the caller's second look at its stamp sees the change.
fn read_sized(file: &mut File, len: u64) -> io::Result<Vec<u8>> {
    let len = usize::try_from(len).map_err(io::Error::other)?;
    let mut buf = vec![0; len];
    let mut n = 0;
    while n < len {
        match file.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    buf.truncate(n);
    Ok(buf)
}

/// Reads a regular file whole (the size its descriptor states); `None` if
/// missing.
fn read_plain(io: &dyn Io, path: &Path) -> Result<Option<Vec<u8>>> {
    match open_plain(io, path)? {
        Some((mut file, meta)) => read_sized(&mut file, meta.len())
            .map(Some)
            .map_err(Error::io(path, "read")),
        None => Ok(None),
    }
}

/// Reads a file whose stat is the same before and after the read, retrying a
/// read that raced a writer or found a file emptied mid-save. `None` if missing.
///
/// The read goes through one descriptor: a save that replaces the file
/// meanwhile (an editor's rename) leaves this read whole and consistent, of
/// the version it opened; a writer's swap then finds the newer save (see
/// [`replace_file`]).
pub(crate) fn stable_read(io: &dyn Io, path: &Path) -> Result<Option<Vec<u8>>> {
    Ok(stable_read_held(io, path)?.map(|r| r.bytes))
}

/// A file read by [`stable_read_held`].
#[derive(Debug)]
pub(crate) struct Held {
    /// Its bytes.
    pub(crate) bytes: Vec<u8>,
    /// Its metadata, stated right after the read.
    pub(crate) meta: Metadata,
    /// The descriptor it was read through, still open.
    pub(crate) file: File,
}

/// [`stable_read`], also giving the file's metadata and the open descriptor
/// it was read through (a writer hands both to [`replace_file_planned`]).
pub(crate) fn stable_read_held(io: &dyn Io, path: &Path) -> Result<Option<Held>> {
    let mut last = None;
    for attempt in 0..READ_ATTEMPTS {
        let Some((mut file, before)) = open_plain(io, path)? else {
            return Ok(None);
        };
        let bytes = read_sized(&mut file, before.len()).map_err(Error::io(path, "read"))?;
        let after = file.metadata().map_err(Error::io(path, "stat"))?;
        let same = stamp(&after) == stamp(&before) && bytes.len() as u64 == before.len();
        // An empty file may be a truncate-then-write in progress (an editor,
        // a shell's `>`): believe it only once it has stayed empty for
        // EMPTY_SETTLE after its last change.
        let settled_empty = !bytes.is_empty() || (attempt >= 4 && !recently_changed(&before));
        let held = Held {
            bytes,
            meta: after,
            file,
        };
        if same && settled_empty {
            return Ok(Some(held));
        }
        last = Some(held);
        std::thread::sleep(Duration::from_millis(if same { 10 } else { 2 }));
    }
    Ok(last)
}

/// Decodes a markdown file, refusing invalid UTF-8 and oversized files.
pub(crate) fn decode(path: &Path, bytes: Vec<u8>) -> Result<String> {
    decode_limited(path, bytes, MAX_FILE_BYTES)
}

/// [`decode`] with another size limit.
pub(crate) fn decode_limited(path: &Path, bytes: Vec<u8>, limit: u64) -> Result<String> {
    if bytes.len() as u64 > limit {
        return Err(Error::FileTooLarge {
            path: path.to_owned(),
            size: bytes.len() as u64,
            limit,
        });
    }
    String::from_utf8(bytes).map_err(|e| Error::InvalidUtf8 {
        path: path.to_owned(),
        offset: e.utf8_error().valid_up_to(),
    })
}

/// Creates `dir` and whichever of its parents are missing, then syncs the
/// parent of each folder it created, top down, so that the new folders
/// survive a crash as a written file inside them does (a failed sync poisons
/// the store).
pub(crate) fn create_dir_durably(io: &dyn Io, poison: &Poison, dir: &Path) -> Result<()> {
    let mut missing = Vec::new();
    let mut at = Some(dir);
    while let Some(d) = at.filter(|d| !d.as_os_str().is_empty()) {
        if io.symlink_metadata(d).is_ok() {
            break;
        }
        missing.push(d);
        at = d.parent();
    }
    io.create_dir_all(dir)
        .map_err(Error::io(dir, "create folder"))?;
    for d in missing.iter().rev() {
        sync_dir(io, poison, parent(d))?;
    }
    Ok(())
}

/// Removes temp files a killed writer left in `dir`. Call under the lock that
/// guards the folder's writers.
pub(crate) fn sweep_temps(io: &dyn Io, dir: &Path) {
    if let Ok(names) = io.read_dir_names(dir) {
        for n in names
            .iter()
            .filter(|n| n.starts_with('.') && n.ends_with(TEMP_SUFFIX))
        {
            let _ = io.remove_file(&dir.join(n));
        }
    }
}

/// Writes `bytes` to a new temp file beside `target` with the target's
/// permission bits, synced. Removes it on failure.
fn write_temp(
    io: &dyn Io,
    poison: &Poison,
    target: &Path,
    bytes: &[u8],
    known: Option<Permissions>,
) -> Result<PathBuf> {
    let dir = parent(target);
    let name = target
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("file");
    let perm = known.or_else(|| {
        io.symlink_metadata(target)
            .ok()
            .filter(|m| m.is_file())
            .map(|m| m.permissions())
    });
    let (mut file, tmp) = io
        .create_temp(dir, &format!(".{name}."), perm)
        .map_err(Error::io(dir, "create temp file"))?;
    if let Err(e) = io.write_all(&mut file, bytes) {
        drop(file);
        let _ = io.remove_file(&tmp);
        return Err(Error::io(&tmp, "write")(e));
    }
    if let Err(e) = io.sync_file(&file) {
        drop(file);
        poison.set(target);
        let _ = io.remove_file(&tmp);
        return Err(Error::io(&tmp, "fsync")(e));
    }
    Ok(tmp)
}

fn parent(path: &Path) -> &Path {
    path.parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
}

/// Syncs a folder; a failure poisons the store (see [`Poison`]).
pub(crate) fn sync_dir(io: &dyn Io, poison: &Poison, dir: &Path) -> Result<()> {
    io.sync_dir(dir).map_err(|e| {
        poison.set(dir);
        Error::io(dir, "fsync folder")(e)
    })
}

/// Durably writes a whole new file (temp, sync, rename, folder sync). Used for
/// files only memdir writes.
#[allow(dead_code)] // used by the snapshot store
pub(crate) fn write_atomic(
    io: &dyn Io,
    poison: &Poison,
    target: &Path,
    bytes: &[u8],
) -> Result<()> {
    poison.check()?;
    let tmp = write_temp(io, poison, target, bytes, None)?;
    if let Err(e) = io.rename(&tmp, target) {
        let _ = io.remove_file(&tmp);
        return Err(Error::io(target, "rename")(e));
    }
    sync_dir(io, poison, parent(target))
}

/// How many times an edit is redone on an editor's newer save before giving up.
const MAX_REDO: usize = 8;

/// Replaces `target` with `edit(current)` durably, without ever losing a save
/// that another program (an editor, which takes no lock) made meanwhile.
///
/// `base` is the content the caller read (under its lock); `edit` maps a
/// content (`None`: no file) to the new bytes, or `None` for no change. On
/// Linux the new file is swapped in with `RENAME_EXCHANGE`; if what comes out
/// is not `base`, an editor saved meanwhile: the edit is redone on the editor's
/// version and swapped in again. Elsewhere the file is compared right before
/// a plain rename (a small window remains; see docs/RELIABILITY.md).
///
/// Returns the bytes that are on disk at the end (`None`: unchanged).
pub(crate) fn replace_file<F>(
    io: &dyn Io,
    poison: &Poison,
    target: &Path,
    base: Option<Vec<u8>>,
    edit: F,
) -> Result<Option<Vec<u8>>>
where
    F: FnMut(Option<&[u8]>) -> Result<Option<Vec<u8>>>,
{
    replace_file_planned(io, poison, target, base, None, edit)
}

/// An edit the caller already computed on the base it read.
#[derive(Debug)]
pub(crate) struct Plan {
    /// The new bytes.
    pub(crate) bytes: Vec<u8>,
    /// The descriptor the base was read through and its metadata, when the
    /// target existed: the new file takes its permission bits, and the swap
    /// recognises the base by them (see [`displaced_is_base`]).
    pub(crate) base: Option<(File, Metadata)>,
}

/// [`replace_file`] whose first round writes `planned`, the edit the caller
/// already computed on `base` (`None`: compute it with `edit`); `edit` runs
/// only on an editor's newer version.
pub(crate) fn replace_file_planned<F>(
    io: &dyn Io,
    poison: &Poison,
    target: &Path,
    base: Option<Vec<u8>>,
    planned: Option<Plan>,
    mut edit: F,
) -> Result<Option<Vec<u8>>>
where
    F: FnMut(Option<&[u8]>) -> Result<Option<Vec<u8>>>,
{
    poison.check()?;
    let dir = parent(target);
    // The base as read, for the first round.
    let mut held = None;
    let mut next = match planned {
        Some(plan) => {
            held = plan.base;
            Some(plan.bytes)
        }
        None => edit(base.as_deref())?,
    };
    // `expected`: what should be in place right before our swap (the base we
    // read, or what we put in place last round).
    let mut expected = base;
    // An editor's displaced save, kept on disk until our redo of it is in place.
    let mut displaced: Option<PathBuf> = None;
    let result = (|| {
        for _ in 0..MAX_REDO {
            let Some(new) = next.take() else {
                return Ok(None);
            };
            let held = held.take();
            let perm = held.as_ref().map(|(_, m)| m.permissions());
            let tmp = write_temp(io, poison, target, &new, perm)?;
            if expected.is_none() {
                match io.rename_noreplace(&tmp, target) {
                    Ok(()) => {
                        sync_dir(io, poison, dir)?;
                        return Ok(Some(new));
                    }
                    Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                        let _ = io.remove_file(&tmp);
                        expected = stable_read(io, target)?;
                        next = edit(expected.as_deref())?;
                        continue;
                    }
                    Err(e) => {
                        let _ = io.remove_file(&tmp);
                        return Err(Error::io(target, "rename")(e));
                    }
                }
            }
            match io.exchange(&tmp, target) {
                Ok(()) => {
                    // `tmp` now holds what was in place a moment ago.
                    if let (Some(exp), Some((file, meta))) = (&expected, &held)
                        && displaced_is_base(io, &tmp, file, meta, exp)
                    {
                        let _ = io.remove_file(&tmp);
                        sync_dir(io, poison, dir)?;
                        return Ok(Some(new));
                    }
                    let out = match read_plain(io, &tmp) {
                        Ok(Some(o)) => o,
                        other => {
                            let _ = io.exchange(&tmp, target);
                            let _ = io.remove_file(&tmp);
                            return Err(other.err().unwrap_or_else(|| {
                                Error::io(&tmp, "read")(io::ErrorKind::NotFound.into())
                            }));
                        }
                    };
                    if Some(&out) == expected.as_ref() {
                        let _ = io.remove_file(&tmp);
                        sync_dir(io, poison, dir)?;
                        return Ok(Some(new));
                    }
                    if let Some(old) = displaced.replace(tmp) {
                        let _ = io.remove_file(&old);
                    }
                    // An editor saved `out` meanwhile: redo the edit on it. If the
                    // edit fails or has nothing to do, put the editor's version back.
                    match edit(Some(&out)) {
                        Ok(Some(redo)) => {
                            next = Some(redo);
                            expected = Some(new);
                        }
                        Ok(None) => {
                            write_back(io, poison, target, &out, &new)?;
                            return Ok(None);
                        }
                        Err(e) => {
                            write_back(io, poison, target, &out, &new)?;
                            return Err(e);
                        }
                    }
                }
                Err(e) if is_unsupported(&e) => {
                    let now = stable_read(io, target)?;
                    if now != expected {
                        let _ = io.remove_file(&tmp);
                        next = edit(now.as_deref())?;
                        expected = now;
                        continue;
                    }
                    if let Err(e) = io.rename(&tmp, target) {
                        let _ = io.remove_file(&tmp);
                        return Err(Error::io(target, "rename")(e));
                    }
                    sync_dir(io, poison, dir)?;
                    return Ok(Some(new));
                }
                Err(e) => {
                    let _ = io.remove_file(&tmp);
                    return Err(Error::io(target, "exchange")(e));
                }
            }
        }
        Err(Error::io(target, "replace")(io::Error::other(
            "the file kept changing under the edit; try again",
        )))
    })();
    if let Some(old) = displaced {
        let _ = io.remove_file(&old);
    }
    result
}

/// Whether the file a swap put at `tmp` is the base, unchanged: the file read
/// through `file` (whose metadata was `meta`), which still holds `expected`.
/// Its inode is compared (the base is held open, so its number cannot have
/// gone to another file) and its content read again through the held
/// descriptor. `false` means only "not shown": the caller then reads `tmp`
/// itself.
fn displaced_is_base(
    io: &dyn Io,
    tmp: &Path,
    file: &File,
    meta: &Metadata,
    expected: &[u8],
) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::{FileExt, MetadataExt};
        let Ok(out) = io.symlink_metadata(tmp) else {
            return false;
        };
        if !out.is_file() || out.ino() != meta.ino() || out.dev() != meta.dev() {
            return false;
        }
        if out.len() != expected.len() as u64 {
            return false;
        }
        let mut buf = vec![0; expected.len()];
        file.read_exact_at(&mut buf, 0).is_ok() && buf == expected
    }
    #[cfg(not(unix))]
    {
        let _ = (io, tmp, file, meta, expected);
        false
    }
}

/// Puts an editor's `theirs` back in place of our `ours` (used when an edit
/// redone on the editor's version fails).
fn write_back(
    io: &dyn Io,
    poison: &Poison,
    target: &Path,
    theirs: &[u8],
    ours: &[u8],
) -> Result<()> {
    replace_file(io, poison, target, Some(ours.to_vec()), |cur| {
        Ok(match cur {
            Some(c) if c == ours => Some(theirs.to_vec()),
            _ => None,
        })
    })
    .map(|_| ())
}

fn is_unsupported(e: &io::Error) -> bool {
    e.kind() == io::ErrorKind::Unsupported || e.raw_os_error() == Some(22) // EINVAL: fs without exchange
}

#[cfg(test)]
pub(crate) mod faulty {
    //! An [`Io`] that fails its Nth operation, for crash-consistency tests.
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

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

    // Reads are not counted: they change nothing on disk.
    impl Io for FaultyIo {
        fn open_read(&self, path: &Path) -> io::Result<File> {
            RealIo.open_read(path)
        }
        fn symlink_metadata(&self, path: &Path) -> io::Result<Metadata> {
            RealIo.symlink_metadata(path)
        }
        fn create_dir_all(&self, path: &Path) -> io::Result<()> {
            self.step()?;
            RealIo.create_dir_all(path)
        }
        fn create_temp(
            &self,
            dir: &Path,
            prefix: &str,
            perm: Option<Permissions>,
        ) -> io::Result<(File, PathBuf)> {
            self.step()?;
            RealIo.create_temp(dir, prefix, perm)
        }
        fn write_all(&self, file: &mut File, bytes: &[u8]) -> io::Result<()> {
            self.step()?;
            RealIo.write_all(file, bytes)
        }
        fn sync_file(&self, file: &File) -> io::Result<()> {
            self.step()?;
            RealIo.sync_file(file)
        }
        fn rename(&self, from: &Path, to: &Path) -> io::Result<()> {
            self.step()?;
            RealIo.rename(from, to)
        }
        fn rename_noreplace(&self, from: &Path, to: &Path) -> io::Result<()> {
            self.step()?;
            RealIo.rename_noreplace(from, to)
        }
        fn exchange(&self, a: &Path, b: &Path) -> io::Result<()> {
            self.step()?;
            RealIo.exchange(a, b)
        }
        fn sync_dir(&self, dir: &Path) -> io::Result<()> {
            self.step()?;
            RealIo.sync_dir(dir)
        }
        fn remove_file(&self, path: &Path) -> io::Result<()> {
            RealIo.remove_file(path)
        }
        fn read_dir_names(&self, dir: &Path) -> io::Result<Vec<String>> {
            RealIo.read_dir_names(dir)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::faulty::FaultyIo;
    use super::*;

    fn temps(dir: &Path) -> Vec<String> {
        RealIo
            .read_dir_names(dir)
            .unwrap()
            .into_iter()
            .filter(|n| n.ends_with(TEMP_SUFFIX))
            .collect()
    }

    fn set(bytes: &'static [u8]) -> impl FnMut(Option<&[u8]>) -> Result<Option<Vec<u8>>> {
        move |_| Ok(Some(bytes.to_vec()))
    }

    #[test]
    fn replace_creates_and_replaces() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("MEMORY.md");
        let poison = Poison::default();
        replace_file(&RealIo, &poison, &p, None, set(b"one")).unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"one");
        replace_file(&RealIo, &poison, &p, Some(b"one".to_vec()), set(b"two")).unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"two");
        assert!(temps(d.path()).is_empty());
    }

    #[cfg(unix)]
    #[test]
    fn replace_keeps_permission_bits() {
        use std::os::unix::fs::PermissionsExt;
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("USER.md");
        std::fs::write(&p, "x").unwrap();
        std::fs::set_permissions(&p, Permissions::from_mode(0o640)).unwrap();
        replace_file(
            &RealIo,
            &Poison::default(),
            &p,
            Some(b"x".to_vec()),
            set(b"y"),
        )
        .unwrap();
        assert_eq!(
            std::fs::metadata(&p).unwrap().permissions().mode() & 0o777,
            0o640
        );
    }

    #[test]
    fn an_editor_save_between_read_and_swap_is_kept() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("MEMORY.md");
        std::fs::write(&p, "- a\n").unwrap();
        let mut calls = 0;
        let out = replace_file(
            &RealIo,
            &Poison::default(),
            &p,
            Some(b"- a\n".to_vec()),
            |cur| {
                calls += 1;
                if calls == 1 {
                    // The editor saves right after our read.
                    std::fs::write(&p, "- a\n- editor\n").unwrap();
                }
                let mut v = cur.unwrap_or_default().to_vec();
                v.extend_from_slice(b"- agent\n");
                Ok(Some(v))
            },
        )
        .unwrap();
        if cfg!(target_os = "linux") {
            assert_eq!(calls, 2);
        }
        assert_eq!(out.unwrap(), b"- a\n- editor\n- agent\n");
        assert_eq!(std::fs::read(&p).unwrap(), b"- a\n- editor\n- agent\n");
        assert!(temps(d.path()).is_empty());
    }

    #[cfg(unix)]
    #[test]
    fn the_held_base_is_known_by_inode_and_bytes() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("MEMORY.md");
        std::fs::write(&p, "- a\n").unwrap();
        let h = stable_read_held(&RealIo, &p).unwrap().unwrap();
        let is_base = |path: &Path| displaced_is_base(&RealIo, path, &h.file, &h.meta, b"- a\n");
        assert!(is_base(&p));
        std::fs::write(&p, "- b\n").unwrap(); // in place, same length
        assert!(!is_base(&p));
        std::fs::write(d.path().join("x"), "- a\n").unwrap();
        std::fs::rename(d.path().join("x"), &p).unwrap(); // same bytes, another file
        assert!(!is_base(&p));
        let link = d.path().join("link");
        std::os::unix::fs::symlink(&p, &link).unwrap();
        assert!(!is_base(&link));
    }

    /// A planned write hands over the descriptor its base was read through:
    /// an unchanged base is recognised by it, and an editor's save between
    /// the read and the swap (in place with the same length, or by rename)
    /// is not taken for the base.
    #[test]
    fn a_held_base_is_recognised_and_an_editors_save_is_not() {
        #[derive(Clone, Copy, Debug)]
        enum Editor {
            None,
            InPlace,
            Rename,
        }
        for editor in [Editor::None, Editor::InPlace, Editor::Rename] {
            let d = tempfile::tempdir().unwrap();
            let p = d.path().join("MEMORY.md");
            std::fs::write(&p, "- a\n").unwrap();
            let held = stable_read_held(&RealIo, &p).unwrap().unwrap();
            assert_eq!(held.bytes, b"- a\n");
            match editor {
                Editor::None => {}
                Editor::InPlace => std::fs::write(&p, "- b\n").unwrap(),
                Editor::Rename => {
                    std::fs::write(d.path().join("x"), "- a\n").unwrap();
                    std::fs::rename(d.path().join("x"), &p).unwrap();
                }
            }
            let mut redone = 0;
            let plan = Plan {
                bytes: b"- a\n- agent\n".to_vec(),
                base: Some((held.file, held.meta)),
            };
            let out = replace_file_planned(
                &RealIo,
                &Poison::default(),
                &p,
                Some(held.bytes),
                Some(plan),
                |cur| {
                    redone += 1;
                    let mut v = cur.unwrap_or_default().to_vec();
                    v.extend_from_slice(b"- agent\n");
                    Ok(Some(v))
                },
            )
            .unwrap();
            let want: &[u8] = match editor {
                Editor::InPlace => b"- b\n- agent\n",
                _ => b"- a\n- agent\n",
            };
            assert_eq!(out.as_deref(), Some(want), "{editor:?}");
            assert_eq!(std::fs::read(&p).unwrap(), want, "{editor:?}");
            // Only an editor's different bytes make the edit run again; a
            // rename of the same bytes is read back and found equal.
            let runs = usize::from(matches!(editor, Editor::InPlace));
            if cfg!(target_os = "linux") {
                assert_eq!(redone, runs, "{editor:?}");
            }
            assert!(temps(d.path()).is_empty(), "{editor:?}");
        }
    }

    #[test]
    fn every_failing_step_leaves_the_old_file_and_no_temp() {
        for fail_at in 1..=6 {
            let d = tempfile::tempdir().unwrap();
            let p = d.path().join("MEMORY.md");
            std::fs::write(&p, "old").unwrap();
            let io = FaultyIo::new(fail_at);
            let poison = Poison::default();
            let r = replace_file(&io, &poison, &p, Some(b"old".to_vec()), set(b"new"));
            let content = std::fs::read(&p).unwrap();
            match r {
                Ok(_) => assert_eq!(content, b"new", "step {fail_at}"),
                Err(e) => {
                    // Before the swap the old file stays; a failed folder sync comes after it.
                    let op = match &e {
                        Error::Io { op, .. } => *op,
                        _ => "",
                    };
                    if op == "fsync folder" {
                        assert_eq!(content, b"new");
                    } else {
                        assert_eq!(content, b"old", "step {fail_at}: {e}");
                    }
                    if op.starts_with("fsync") {
                        assert_eq!(poison.check().unwrap_err().code(), "store_poisoned");
                    }
                }
            }
            assert!(temps(d.path()).is_empty(), "step {fail_at}");
        }
    }

    #[test]
    fn a_poisoned_handle_refuses_to_write() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("x");
        let poison = Poison::default();
        // Fail the file sync (create, write, sync = 3rd step).
        let err = write_atomic(&FaultyIo::new(3), &poison, &p, b"x").unwrap_err();
        assert!(err.to_string().contains("fsync"), "{err}");
        assert!(!p.exists());
        let err = write_atomic(&RealIo, &poison, &p, b"x").unwrap_err();
        assert_eq!(err.code(), "store_poisoned");
    }

    #[test]
    fn sweep_removes_leftover_temps_only() {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join(".MEMORY.md.abc.memdir-tmp"), "x").unwrap();
        std::fs::write(d.path().join("MEMORY.md"), "x").unwrap();
        sweep_temps(&RealIo, d.path());
        assert!(temps(d.path()).is_empty());
        assert!(d.path().join("MEMORY.md").exists());
    }

    #[test]
    fn decode_refuses_bad_files() {
        let p = Path::new("m.md");
        assert_eq!(
            decode(p, vec![b'a', 0xff]).unwrap_err().code(),
            "invalid_utf8"
        );
        let big = vec![b'a'; MAX_FILE_BYTES as usize + 1];
        assert_eq!(decode(p, big).unwrap_err().code(), "file_too_large");
    }

    #[cfg(unix)]
    #[test]
    fn symlinks_are_unsafe() {
        let d = tempfile::tempdir().unwrap();
        let real = d.path().join("real.md");
        std::fs::write(&real, "x").unwrap();
        let link = d.path().join("MEMORY.md");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        assert_eq!(
            stable_read(&RealIo, &link).unwrap_err().code(),
            "unsafe_path"
        );
    }
}
