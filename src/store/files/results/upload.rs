//! A result's content as it arrives in chunks (an upload, standard input):
//! taken into a spool (`disk::Spool`) through a bounded buffer, hashed
//! (SHA-256), counted against the limit and its kind found on the way, so
//! no step holds the whole content in memory; and read back for the scanner
//! through a window of bounded size.

use std::io::{ErrorKind, Read};

use sha2::{Digest, Sha256};

use super::kind::{ContentKind, KindCheck};
use super::verdict::Source;
use crate::disk::{COPY_BYTES, Dir, Disk, Spool};
use crate::error::{Error, Result};

/// The largest chunk taken from the reader at once, in bytes.
pub(crate) const CHUNK_BYTES: usize = 64 * 1024;

/// Content received into a spool.
#[derive(Debug)]
pub(crate) struct Received {
    /// The content.
    pub(crate) spool: Spool,
    /// Its SHA-256, lowercase hex.
    pub(crate) sha256: String,
    /// Its length in bytes.
    pub(crate) bytes: u64,
    /// Whether it is text (see [`ContentKind`]).
    pub(crate) kind: ContentKind,
}

/// Reads the content, `head` (the bytes already read) then `reader` to its
/// end, into a new spool in `dir`, at most `limit` bytes: more is
/// [`Error::ResultTooLarge`] as soon as a chunk passes the limit (its
/// `bytes` what was read so far; the caller may count the rest), and the
/// spool is gone. A failed read is an I/O error naming `name`.
pub(crate) fn receive(
    disk: &Disk,
    dir: &Dir,
    (head, reader): (&[u8], &mut dyn Read),
    limit: u64,
    name: &str,
) -> Result<Received> {
    let mut spool = disk.spool(dir)?;
    let mut hash = Sha256::new();
    let mut kind = KindCheck::default();
    let mut buf = vec![0; CHUNK_BYTES];
    let mut head = Some(head);
    loop {
        let chunk = match head.take() {
            Some(h) => h,
            None => match reader.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => &buf[..n],
                Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                Err(e) => return Err(Error::io(name, "read")(e)),
            },
        };
        let n = chunk.len();
        if spool.len() + n as u64 > limit {
            return Err(Error::ResultTooLarge {
                bytes: spool.len() + n as u64,
                limit,
            });
        }
        hash.update(chunk);
        kind.feed(chunk);
        spool.append(chunk)?;
    }
    Ok(Received {
        sha256: hex::encode(hash.finalize()),
        bytes: spool.len(),
        kind: kind.finish(),
        spool,
    })
}

/// A spool read back for the scanner through a window of at most
/// [`COPY_BYTES`] (or the larger range asked for).
#[derive(Debug)]
pub(crate) struct SpoolSource<'a> {
    spool: &'a Spool,
    base: usize,
    buf: Vec<u8>,
}

impl<'a> SpoolSource<'a> {
    /// The scanner's view of `spool`.
    pub(crate) fn new(spool: &'a Spool) -> SpoolSource<'a> {
        SpoolSource {
            spool,
            base: 0,
            buf: Vec::new(),
        }
    }
}

impl Source for SpoolSource<'_> {
    type Error = Error;
    fn len(&self) -> usize {
        usize::try_from(self.spool.len()).unwrap_or(usize::MAX)
    }
    fn bytes(&mut self, start: usize, end: usize) -> Result<&[u8]> {
        if start < self.base || end > self.base + self.buf.len() {
            let to = end.max(start.saturating_add(COPY_BYTES)).min(self.len());
            self.buf.resize(to - start, 0);
            self.spool.read_exact_at(start as u64, &mut self.buf)?;
            self.base = start;
        }
        Ok(&self.buf[start - self.base..end - self.base])
    }
}
