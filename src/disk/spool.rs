//! A spool: a file that takes content in chunks as it arrives (an upload),
//! so that no caller holds the whole in memory, and the durable write of a
//! file made of a head and a spool's content copied in bounded chunks.
//!
//! The spool is created under a temp name and unlinked at once: only its
//! descriptor keeps it, so however the writer ends (an error, a dropped
//! connection, `kill -9`) the kernel frees it and nothing is left to sweep
//! but, from a crash in the microseconds between the two steps, an empty
//! temp file that the folder's sweep of stale temp files removes.

use std::fs::File;
use std::io;
use std::os::unix::fs::FileExt;
use std::path::PathBuf;

use super::Disk;
use super::dir::Dir;
use super::write::{rename_into_place, write_temp_with};
use crate::error::{Error, Result};

/// The largest piece copied or read back at once, in bytes.
pub(crate) const COPY_BYTES: usize = 256 * 1024;

/// Content taken in chunks into an unlinked temp file (see the module).
#[derive(Debug)]
pub(crate) struct Spool {
    file: File,
    len: u64,
    /// Where it was made, for messages.
    path: PathBuf,
    disk: Disk,
}

impl Disk {
    /// A new, empty spool in `dir` (see [`Spool`]).
    pub(crate) fn spool(&self, dir: &Dir) -> Result<Spool> {
        self.check()?;
        let (file, name) = super::write::create_temp(self.io.as_ref(), dir, "spool", None)?;
        // Only the descriptor keeps it from now on. A sweep that took the
        // name first did the same.
        let _ = self.io.remove_file(dir, &name);
        Ok(Spool {
            file,
            len: 0,
            path: dir.join(&name),
            disk: self.clone(),
        })
    }

    /// Durably writes `name` in `dir` as `head` followed by the spool's
    /// content, copied in pieces of at most [`COPY_BYTES`] (temp file,
    /// sync, rename, folder sync; the temp file is removed on failure and a
    /// failed sync poisons, as [`Disk::write_atomic`]).
    pub(crate) fn write_atomic_spooled(
        &self,
        dir: &Dir,
        name: &str,
        head: &[u8],
        body: &Spool,
    ) -> Result<()> {
        self.poison.check()?;
        let io = self.io.as_ref();
        let tmp = write_temp_with(io, &self.poison, dir, name, None, true, &mut |file| {
            io.write_all(file, head)?;
            let mut buf = vec![0; COPY_BYTES];
            let mut at = 0;
            while at < body.len {
                let n = body.read_at(at, &mut buf)?;
                if n == 0 {
                    return Err(io::Error::new(
                        io::ErrorKind::UnexpectedEof,
                        "the spool ended early",
                    ));
                }
                io.write_all(file, &buf[..n])?;
                at += n as u64;
            }
            Ok(())
        })?;
        rename_into_place(io, &self.poison, dir, &tmp, name)
    }
}

impl Spool {
    /// Appends `bytes` to the spool.
    pub(crate) fn append(&mut self, bytes: &[u8]) -> Result<()> {
        self.disk
            .io
            .write_all(&mut self.file, bytes)
            .map_err(Error::io(&self.path, "write"))?;
        self.len += bytes.len() as u64;
        Ok(())
    }

    /// How many bytes it holds.
    pub(crate) fn len(&self) -> u64 {
        self.len
    }

    /// Reads into `buf` from `offset` (within what was appended): how many
    /// bytes were read, 0 at the end.
    pub(crate) fn read_at(&self, offset: u64, buf: &mut [u8]) -> io::Result<usize> {
        let room = self.len.saturating_sub(offset);
        let want = buf.len().min(usize::try_from(room).unwrap_or(usize::MAX));
        loop {
            match self.file.read_at(&mut buf[..want], offset) {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                other => return other,
            }
        }
    }

    /// Reads exactly `buf.len()` bytes from `offset`, naming the spool in
    /// the error.
    pub(crate) fn read_exact_at(&self, offset: u64, buf: &mut [u8]) -> Result<()> {
        let mut done = 0;
        while done < buf.len() {
            let n = self
                .read_at(offset + done as u64, &mut buf[done..])
                .map_err(Error::io(&self.path, "read"))?;
            if n == 0 {
                return Err(Error::io(&self.path, "read")(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    "the spool ended early",
                )));
            }
            done += n;
        }
        Ok(())
    }
}
