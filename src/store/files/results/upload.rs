//! A result's content as it arrives in chunks (an upload, standard input):
//! taken into a spool (`disk::Spool`) through a bounded buffer, hashed
//! (SHA-256), counted against the limit and checked for text on the way, so
//! no step holds the whole content in memory; and read back for the scanner
//! through a window of bounded size.

use std::io::{ErrorKind, Read};

use sha2::{Digest, Sha256};

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
    /// The first byte that is not text, and why (see [`TextCheck`]).
    pub(crate) not_text: Option<(&'static str, usize)>,
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
    let mut text = TextCheck::default();
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
        text.feed(chunk);
        spool.append(chunk)?;
    }
    Ok(Received {
        sha256: hex::encode(hash.finalize()),
        bytes: spool.len(),
        not_text: text.finish(),
        spool,
    })
}

/// Whether content fed in chunks is text (valid UTF-8 without a NUL byte),
/// with the answer of the in-memory check for the whole: the first byte
/// that is not UTF-8, else the first NUL byte.
#[derive(Debug, Default)]
pub(crate) struct TextCheck {
    /// Bytes fed so far.
    seen: usize,
    /// The start of a character the last chunk ended inside (at most 3
    /// bytes).
    pending: Vec<u8>,
    /// The first byte that is not UTF-8.
    invalid: Option<usize>,
    /// The first NUL byte.
    nul: Option<usize>,
}

impl TextCheck {
    /// Takes the next chunk.
    pub(crate) fn feed(&mut self, chunk: &[u8]) {
        let at = self.seen;
        self.seen += chunk.len();
        if self.invalid.is_some() {
            return;
        }
        if self.nul.is_none() {
            self.nul = chunk.iter().position(|b| *b == 0).map(|i| at + i);
        }
        let start = at - self.pending.len();
        let mut data = std::mem::take(&mut self.pending);
        data.extend_from_slice(chunk);
        if let Err(e) = std::str::from_utf8(&data) {
            match e.error_len() {
                // A character cut by the chunk's end: wait for the rest.
                None => self.pending = data[e.valid_up_to()..].to_vec(),
                Some(_) => self.invalid = Some(start + e.valid_up_to()),
            }
        }
    }

    /// The first byte that is not text, and why: `invalid UTF-8` or `a NUL
    /// byte`; `None` for text.
    pub(crate) fn finish(self) -> Option<(&'static str, usize)> {
        let cut = (!self.pending.is_empty()).then(|| self.seen - self.pending.len());
        match self.invalid.or(cut) {
            Some(at) => Some(("invalid UTF-8", at)),
            None => self.nul.map(|at| ("a NUL byte", at)),
        }
    }
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
