//! Durable writes relative to an open folder: a whole new file (temp file,
//! sync, rename, folder sync), and the editor-safe replacement of a file a
//! person may save at any moment.

use std::fs::File;
use std::hash::{BuildHasher, Hasher};
use std::io;
use std::sync::atomic::{AtomicU64, Ordering};

use super::dir::{Dir, Kind, Stat};
use super::io::Io;
use super::read::{read_once, stable_read};
use super::{Poison, TEMP_SUFFIX};
use crate::error::{Error, Result};

/// How many times an edit is redone on an editor's newer save before giving up.
const MAX_REDO: usize = 8;
/// Attempts at a fresh temp name before giving up.
const TEMP_ATTEMPTS: usize = 16;

/// Computes a file's new bytes from its current ones (`None`: no file);
/// `Ok(None)` means no change.
pub(crate) type Redo<'a> = Box<dyn FnMut(Option<&[u8]>) -> Result<Option<Vec<u8>>> + 'a>;

/// What a writer read before computing its change: the bytes, and the
/// descriptor they were read through with its stat (when there is one).
#[derive(Debug)]
pub(crate) struct Base {
    /// The bytes read.
    pub(crate) bytes: Vec<u8>,
    /// The descriptor they were read through and its stat: the new file takes
    /// its permission bits, and the swap recognises the base by them.
    pub(crate) held: Option<(File, Stat)>,
}

impl From<super::read::Held> for Base {
    /// A file held after a read: its bytes, descriptor and stat.
    fn from(h: super::read::Held) -> Base {
        Base {
            bytes: h.bytes,
            held: Some((h.file, h.stat)),
        }
    }
}

/// One file's change, for [`super::Disk::replace`].
pub(crate) struct Change<'a> {
    /// The folder of the file.
    pub(crate) dir: &'a Dir,
    /// The file's name in it.
    pub(crate) name: &'a str,
    /// What the writer read (`None`: no file).
    pub(crate) base: Option<Base>,
    /// The new bytes the writer computed on `base` (`None`: compute them with
    /// `redo`).
    pub(crate) planned: Option<Vec<u8>>,
    /// Computes the change again on an editor's newer save.
    pub(crate) redo: Redo<'a>,
}

static TEMP_COUNTER: AtomicU64 = AtomicU64::new(0);

/// A fresh temp file name for `target`: `.<target>.<16 hex digits>.memdir-tmp`.
fn temp_name(target: &str) -> String {
    let mut h = std::hash::RandomState::new().build_hasher();
    h.write_u64(TEMP_COUNTER.fetch_add(1, Ordering::Relaxed));
    h.write_u32(std::process::id());
    format!(".{target}.{:016x}{TEMP_SUFFIX}", h.finish())
}

/// Creates a new temp file for `target` in `dir` (a fresh name, see
/// [`temp_name`]) with the permission bits `mode` when given.
pub(super) fn create_temp(
    io: &dyn Io,
    dir: &Dir,
    target: &str,
    mode: Option<u32>,
) -> Result<(File, String)> {
    for _ in 0..TEMP_ATTEMPTS {
        let name = temp_name(target);
        match io.create_new(dir, &name, mode) {
            Ok(f) => return Ok((f, name)),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(Error::io(dir.path(), "create temp file")(e)),
        }
    }
    Err(Error::io(dir.path(), "create temp file")(io::Error::from(
        io::ErrorKind::AlreadyExists,
    )))
}

/// Writes `bytes` to a new temp file beside `target` in `dir`, with the
/// permission bits `mode` (default: those of `target` if it is a regular
/// file), synced. Removes it on failure; a failed sync poisons.
fn write_temp(
    io: &dyn Io,
    poison: &Poison,
    dir: &Dir,
    target: &str,
    bytes: &[u8],
    mode: Option<u32>,
    durable: bool,
) -> Result<String> {
    write_temp_with(io, poison, dir, target, mode, durable, &mut |file| {
        io.write_all(file, bytes)
    })
}

/// [`write_temp`] of what `fill` writes to the new file.
pub(super) fn write_temp_with(
    io: &dyn Io,
    poison: &Poison,
    dir: &Dir,
    target: &str,
    mode: Option<u32>,
    durable: bool,
    fill: &mut dyn FnMut(&mut File) -> io::Result<()>,
) -> Result<String> {
    let mode = mode.or_else(|| {
        io.stat(dir, target)
            .ok()
            .filter(|s| s.kind == Kind::File)
            .map(|s| s.mode)
    });
    let (mut file, tmp) = create_temp(io, dir, target, mode)?;
    if let Err(e) = fill(&mut file) {
        drop(file);
        let _ = io.remove_file(dir, &tmp);
        return Err(Error::io(dir.join(&tmp), "write")(e));
    }
    if durable && let Err(e) = io.sync_file(&file) {
        drop(file);
        poison.set(&dir.join(target));
        let _ = io.remove_file(dir, &tmp);
        return Err(Error::io(dir.join(&tmp), "fsync")(e));
    }
    Ok(tmp)
}

/// Syncs a folder; a failure poisons the store (see [`Poison`]).
pub(super) fn sync_dir(io: &dyn Io, poison: &Poison, dir: &Dir) -> Result<()> {
    io.sync_dir(dir).map_err(|e| {
        poison.set(dir.path());
        Error::io(dir.path(), "fsync folder")(e)
    })
}

/// Durably writes a whole new file (temp, sync, rename, folder sync). For
/// files only memdir writes.
pub(super) fn write_atomic(
    io: &dyn Io,
    poison: &Poison,
    dir: &Dir,
    name: &str,
    bytes: &[u8],
) -> Result<()> {
    poison.check()?;
    let tmp = write_temp(io, poison, dir, name, bytes, None, true)?;
    rename_into_place(io, poison, dir, &tmp, name)
}

/// Renames the synced temp file `tmp` to `name` in `dir`, then syncs the
/// folder; removes `tmp` when the rename fails.
pub(super) fn rename_into_place(
    io: &dyn Io,
    poison: &Poison,
    dir: &Dir,
    tmp: &str,
    name: &str,
) -> Result<()> {
    if let Err(e) = io.rename(dir, tmp, name) {
        let _ = io.remove_file(dir, tmp);
        return Err(Error::io(dir.join(name), "rename")(e));
    }
    sync_dir(io, poison, dir)
}

/// Replaces `name` in `dir` atomically (temp file, rename) but not
/// durably: no sync, so a crash may leave the older version. For derived
/// figures that must never be torn but may be lost (recall counts).
pub(super) fn write_atomic_volatile(
    io: &dyn Io,
    poison: &Poison,
    dir: &Dir,
    name: &str,
    bytes: &[u8],
) -> Result<()> {
    let tmp = write_temp(io, poison, dir, name, bytes, None, false)?;
    // Exchanged, not renamed over: ext4 (`auto_da_alloc`) starts writing a
    // file's data back when a rename replaces another file, which is the
    // cost of a durability this file does not need. The displaced version
    // is then unlinked; a crash in between (or a failed unlink: the new
    // version is in place either way) leaves a temp file for the sweep.
    let swapped = match io.exchange(dir, &tmp, name) {
        Ok(()) => {
            let _ = io.remove_file(dir, &tmp);
            Ok(())
        }
        // No file yet, or a file system without exchange: a plain rename.
        Err(e)
            if matches!(
                e.kind(),
                io::ErrorKind::NotFound | io::ErrorKind::Unsupported | io::ErrorKind::InvalidInput
            ) =>
        {
            io.rename(dir, &tmp, name).map_err(|e| (e, "rename"))
        }
        Err(e) => Err((e, "exchange")),
    };
    if let Err((e, what)) = swapped {
        let _ = io.remove_file(dir, &tmp);
        return Err(Error::io(dir.join(name), what)(e));
    }
    Ok(())
}

/// Creates `name` in `dir` durably with exactly `bytes` and the permission
/// bits `mode` (a temp file renamed into place only if the name is free).
/// `false` when the name exists already (it is left as it is).
pub(super) fn create_new(
    io: &dyn Io,
    poison: &Poison,
    dir: &Dir,
    name: &str,
    bytes: &[u8],
    mode: u32,
) -> Result<bool> {
    poison.check()?;
    let tmp = write_temp(io, poison, dir, name, bytes, Some(mode), true)?;
    match io.rename_noreplace(dir, &tmp, name) {
        Ok(()) => {
            sync_dir(io, poison, dir)?;
            Ok(true)
        }
        Err(e) => {
            let _ = io.remove_file(dir, &tmp);
            if e.kind() == io::ErrorKind::AlreadyExists {
                Ok(false)
            } else {
                Err(Error::io(dir.join(name), "rename")(e))
            }
        }
    }
}

/// Replaces a file with a change durably, without ever losing a save that
/// another program (an editor, which takes no lock) made meanwhile.
///
/// The first round writes the planned bytes (or `redo` of the base). On
/// Linux the new file is swapped in with `RENAME_EXCHANGE`; if what comes
/// out is not the base, an editor saved meanwhile: the change is redone on
/// the editor's version and swapped in again. Elsewhere the file is compared
/// right before a plain rename (a small window remains; see
/// docs/RELIABILITY.md).
///
/// Returns the bytes that are on disk at the end (`None`: unchanged).
pub(super) fn replace(io: &dyn Io, poison: &Poison, change: Change<'_>) -> Result<Option<Vec<u8>>> {
    poison.check()?;
    let Change {
        dir,
        name: target,
        base,
        planned,
        mut redo,
    } = change;
    // `expected`: what should be in place right before our swap (the base we
    // read, or what we put in place last round); `held`: the base's
    // descriptor, for the first round.
    let (mut expected, mut held) = match base {
        Some(b) => (Some(b.bytes), b.held),
        None => (None, None),
    };
    let mut next = match planned {
        Some(p) => Some(p),
        None => redo(expected.as_deref())?,
    };
    // An editor's displaced save, kept on disk until our redo of it is in place.
    let mut displaced: Option<String> = None;
    let result = (|| {
        for _ in 0..MAX_REDO {
            let Some(new) = next.take() else {
                return Ok(None);
            };
            let held = held.take();
            let mode = held.as_ref().map(|(_, s)| s.mode);
            let tmp = write_temp(io, poison, dir, target, &new, mode, true)?;
            if expected.is_none() {
                match io.rename_noreplace(dir, &tmp, target) {
                    Ok(()) => {
                        sync_dir(io, poison, dir)?;
                        return Ok(Some(new));
                    }
                    Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                        let _ = io.remove_file(dir, &tmp);
                        expected = stable_read(io, dir, target, u64::MAX)?.map(|h| h.bytes);
                        next = redo(expected.as_deref())?;
                        continue;
                    }
                    Err(e) => {
                        let _ = io.remove_file(dir, &tmp);
                        return Err(Error::io(dir.join(target), "rename")(e));
                    }
                }
            }
            match io.exchange(dir, &tmp, target) {
                Ok(()) => {
                    // `tmp` now holds what was in place a moment ago.
                    if let (Some(exp), Some((file, stat))) = (&expected, &held)
                        && displaced_is_base(io, dir, &tmp, file, stat, exp)
                    {
                        let _ = io.remove_file(dir, &tmp);
                        sync_dir(io, poison, dir)?;
                        return Ok(Some(new));
                    }
                    let out = match read_once(io, dir, &tmp, u64::MAX) {
                        Ok(Some(o)) => o,
                        other => {
                            let _ = io.exchange(dir, &tmp, target);
                            let _ = io.remove_file(dir, &tmp);
                            return Err(other.err().unwrap_or_else(|| {
                                Error::io(dir.join(&tmp), "read")(io::ErrorKind::NotFound.into())
                            }));
                        }
                    };
                    if Some(&out) == expected.as_ref() {
                        let _ = io.remove_file(dir, &tmp);
                        sync_dir(io, poison, dir)?;
                        return Ok(Some(new));
                    }
                    if let Some(old) = displaced.replace(tmp) {
                        let _ = io.remove_file(dir, &old);
                    }
                    // An editor saved `out` meanwhile: redo the change on it.
                    // If the change fails or has nothing to do, put the
                    // editor's version back.
                    match redo(Some(&out)) {
                        Ok(Some(again)) => {
                            next = Some(again);
                            expected = Some(new);
                        }
                        Ok(None) => {
                            write_back(io, poison, dir, target, &out, &new)?;
                            return Ok(None);
                        }
                        Err(e) => {
                            write_back(io, poison, dir, target, &out, &new)?;
                            return Err(e);
                        }
                    }
                }
                Err(e) if is_unsupported(&e) => {
                    let now = stable_read(io, dir, target, u64::MAX)?.map(|h| h.bytes);
                    if now != expected {
                        let _ = io.remove_file(dir, &tmp);
                        next = redo(now.as_deref())?;
                        expected = now;
                        continue;
                    }
                    if let Err(e) = io.rename(dir, &tmp, target) {
                        let _ = io.remove_file(dir, &tmp);
                        return Err(Error::io(dir.join(target), "rename")(e));
                    }
                    sync_dir(io, poison, dir)?;
                    return Ok(Some(new));
                }
                Err(e) => {
                    let _ = io.remove_file(dir, &tmp);
                    return Err(Error::io(dir.join(target), "exchange")(e));
                }
            }
        }
        Err(Error::io(dir.join(target), "replace")(io::Error::other(
            "the file kept changing under the edit; try again",
        )))
    })();
    if let Some(old) = displaced {
        let _ = io.remove_file(dir, &old);
    }
    result
}

/// Whether the file a swap put at `tmp` is the base, unchanged: the file read
/// through `file` (whose stat was `stat`), which still holds `expected`. Its
/// inode is compared (the base is held open, so its number cannot have gone
/// to another file) and its content read again through the held descriptor.
/// `false` means only "not shown": the caller then reads `tmp` itself.
pub(super) fn displaced_is_base(
    io: &dyn Io,
    dir: &Dir,
    tmp: &str,
    file: &File,
    stat: &Stat,
    expected: &[u8],
) -> bool {
    use std::os::unix::fs::FileExt;
    let Ok(out) = io.stat(dir, tmp) else {
        return false;
    };
    if out.kind != Kind::File || out.ino != stat.ino || out.dev != stat.dev {
        return false;
    }
    if out.len != expected.len() as u64 {
        return false;
    }
    let mut buf = vec![0; expected.len()];
    file.read_exact_at(&mut buf, 0).is_ok() && buf == expected
}

/// Puts an editor's `theirs` back in place of our `ours` (used when a change
/// redone on the editor's version fails).
fn write_back(
    io: &dyn Io,
    poison: &Poison,
    dir: &Dir,
    target: &str,
    theirs: &[u8],
    ours: &[u8],
) -> Result<()> {
    let change = Change {
        dir,
        name: target,
        base: Some(Base {
            bytes: ours.to_vec(),
            held: None,
        }),
        planned: None,
        redo: Box::new(|cur| {
            Ok(match cur {
                Some(c) if c == ours => Some(theirs.to_vec()),
                _ => None,
            })
        }),
    };
    replace(io, poison, change).map(|_| ())
}

fn is_unsupported(e: &io::Error) -> bool {
    e.kind() == io::ErrorKind::Unsupported
        || e.raw_os_error() == Some(rustix::io::Errno::INVAL.raw_os_error()) // fs without exchange
}
