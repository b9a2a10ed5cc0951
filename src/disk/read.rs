//! Reading a file whole and stable: through one descriptor, the size stated
//! before the read (and checked against a limit), the same stat after it.

use std::fs::File;
use std::io::{self, Read};
use std::time::Duration;

use super::dir::{Dir, Kind, Stat};
use super::io::Io;
use crate::error::{Error, Result};

/// How long an emptied file counts as a save in progress.
const EMPTY_SETTLE: Duration = Duration::from_secs(2);
/// Attempts of a stable read (10 ms apart for an emptied file: past
/// [`EMPTY_SETTLE`]).
const READ_ATTEMPTS: usize = 250;

/// A file read whole: its bytes, its stat right after the read, and the
/// descriptor it was read through, still open (a writer hands both to the
/// editor-safe replace, which recognises the base by them).
#[derive(Debug)]
pub(crate) struct Held {
    /// Its bytes.
    pub(crate) bytes: Vec<u8>,
    /// Its metadata, stated right after the read.
    pub(crate) stat: Stat,
    /// The descriptor it was read through.
    pub(crate) file: File,
}

/// Opens `name` in `dir` as a regular file; `Ok(None)` if missing. A
/// symlink, a folder or any other kind of file is refused as
/// [`Error::UnsafePath`]; so is a file over `limit` bytes, as
/// [`Error::FileTooLarge`], before anything is read.
pub(super) fn open_plain(
    io: &dyn Io,
    dir: &Dir,
    name: &str,
    limit: u64,
) -> Result<Option<(File, Stat)>> {
    let path = || dir.join(name);
    let file = match io.open_read(dir, name) {
        Ok(f) => f,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => {
            // A symlink (`ELOOP`), a socket (`ENXIO`) or anything else that
            // is there but not a regular file is refused as such.
            return match io.stat(dir, name) {
                Ok(st) if st.kind != Kind::File => Err(Error::UnsafePath { path: path() }),
                _ => Err(Error::io(path(), "open")(e)),
            };
        }
    };
    let stat = io.fstat(&file).map_err(Error::io(path(), "stat"))?;
    if stat.kind != Kind::File {
        return Err(Error::UnsafePath { path: path() });
    }
    if stat.len > limit {
        return Err(Error::FileTooLarge {
            path: path(),
            size: stat.len,
            limit,
        });
    }
    Ok(Some((file, stat)))
}

/// Reads up to `len` bytes (a file's size as just stated): fewer if it ends
/// sooner. Never more, so a file that grows meanwhile reads short of its new
/// size and the caller's second look at its stat sees the change.
pub(super) fn read_sized(file: &mut File, len: u64) -> io::Result<Vec<u8>> {
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

/// Reads a regular file whole once (the size its descriptor states); `None`
/// if missing.
pub(super) fn read_once(io: &dyn Io, dir: &Dir, name: &str, limit: u64) -> Result<Option<Vec<u8>>> {
    match open_plain(io, dir, name, limit)? {
        Some((mut file, stat)) => read_sized(&mut file, stat.len)
            .map(Some)
            .map_err(Error::io(dir.join(name), "read")),
        None => Ok(None),
    }
}

/// Reads a file whose stat is the same before and after the read, retrying a
/// read that raced a writer or found a file emptied mid-save. `None` if
/// missing.
///
/// The read goes through one descriptor: a save that replaces the file
/// meanwhile (an editor's rename) leaves this read whole and consistent, of
/// the version it opened; a writer's swap then finds the newer save.
pub(super) fn stable_read(io: &dyn Io, dir: &Dir, name: &str, limit: u64) -> Result<Option<Held>> {
    let mut last = None;
    for attempt in 0..READ_ATTEMPTS {
        let Some((mut file, before)) = open_plain(io, dir, name, limit)? else {
            return Ok(None);
        };
        let bytes = read_sized(&mut file, before.len).map_err(Error::io(dir.join(name), "read"))?;
        let after = io.fstat(&file).map_err(Error::io(dir.join(name), "stat"))?;
        let same = after.same_version(&before) && bytes.len() as u64 == before.len;
        // An empty file may be a truncate-then-write in progress (an editor,
        // a shell's `>`): believe it only once it has stayed empty for
        // EMPTY_SETTLE after its last change.
        let settled_empty =
            !bytes.is_empty() || (attempt >= 4 && !before.changed_within(EMPTY_SETTLE));
        let held = Held {
            bytes,
            stat: after,
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
