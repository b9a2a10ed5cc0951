//! Reading a file whole and stable: through one descriptor, the size stated
//! before the read (and checked against a limit), the same stat after it.

use std::fs::File;
use std::io::{self, Read};
use std::os::unix::fs::FileExt;
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

/// The end of a file, as [`stable_read_tail`] read it.
#[derive(Debug)]
pub(crate) struct Tail {
    /// The bytes read: from some line start to the end of the file, or the
    /// whole file.
    pub(crate) bytes: Vec<u8>,
    /// Where the caller's part begins in `bytes` (the offset its `cut`
    /// gave); `None` when the start of the file was reached without one
    /// (`bytes` is then the whole file).
    pub(crate) cut: Option<usize>,
}

/// The first piece read from the end, in bytes; each further piece is as
/// large as what was read so far.
const TAIL_PIECE: u64 = 64 * 1024;

/// Reads a regular file from its end, a piece at a time (each as large as
/// what was read so far, at least [`TAIL_PIECE`]), until `cut` finds where
/// the caller's part begins among the whole lines read, or the start of the
/// file; stable as [`stable_read`] is (the same stat before and after, else
/// read again). `cut` is given each newly completed run of whole lines once
/// (beginning at a line start, ending where the lines it saw before begin),
/// so the search costs what the part read costs; `None` if missing. The
/// file's size is checked against `limit` first, as every read's.
pub(super) fn stable_read_tail(
    io: &dyn Io,
    dir: &Dir,
    name: &str,
    limit: u64,
    cut: &dyn Fn(&[u8]) -> Option<usize>,
) -> Result<Option<Tail>> {
    let path = || dir.join(name);
    let mut last = None;
    for _ in 0..READ_ATTEMPTS {
        let Some((file, before)) = open_plain(io, dir, name, limit)? else {
            return Ok(None);
        };
        let mut bytes: Vec<u8> = Vec::new();
        let mut start = before.len;
        // Where, in `bytes`, the lines already given to `cut` begin.
        let mut searched = 0usize;
        let mut complete = true;
        let found = loop {
            let want = TAIL_PIECE.max(bytes.len() as u64).min(start);
            let from = start - want;
            let mut piece = vec![
                0;
                usize::try_from(want)
                    .map_err(|e| Error::io(path(), "read")(io::Error::other(e)))?
            ];
            let n = read_at_full(&file, &mut piece, from).map_err(Error::io(path(), "read"))?;
            if n < piece.len() {
                complete = false;
                break None;
            }
            let added = piece.len();
            piece.extend_from_slice(&bytes);
            bytes = piece;
            start = from;
            searched += added;
            // The first line of what was read may begin before it, unless
            // the file starts there.
            let first = if start == 0 {
                0
            } else {
                match bytes[..searched].iter().position(|b| *b == b'\n') {
                    Some(i) => i + 1,
                    None => continue,
                }
            };
            if let Some(c) = cut(&bytes[first..searched]) {
                break Some(first + c);
            }
            searched = first;
            if start == 0 {
                break None;
            }
        };
        let after = io.fstat(&file).map_err(Error::io(path(), "stat"))?;
        let tail = Tail { bytes, cut: found };
        if complete && after.same_version(&before) {
            return Ok(Some(tail));
        }
        last = Some(tail);
        std::thread::sleep(Duration::from_millis(2));
    }
    Ok(last)
}

/// Reads `buf.len()` bytes at `offset`, fewer only at the end of the file.
fn read_at_full(file: &File, buf: &mut [u8], offset: u64) -> io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match file.read_at(&mut buf[n..], offset + n as u64) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}
