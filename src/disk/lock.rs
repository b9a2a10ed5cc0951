//! Exclusive locks on lock files, taken with fs2 and waited for up to a
//! bound. A [`Lock`] is a guard: held until dropped.

use std::fs::File;
use std::time::{Duration, Instant};

use super::dir::{Dir, Kind};
use super::io::Io;
use crate::error::{Error, Result};

/// An exclusive lock on a lock file; released on drop.
#[derive(Debug)]
pub(crate) struct Lock {
    file: File,
    /// Whether another holder made this one wait.
    pub(crate) contended: bool,
}

impl Drop for Lock {
    fn drop(&mut self) {
        let _ = fs2::FileExt::unlock(&self.file);
    }
}

/// Takes the exclusive lock on `name` in `dir` (created if missing), waiting
/// at most `timeout`; past it the answer is [`Error::Locked`]. A symlink or
/// anything but a regular file at the lock's name is refused
/// ([`Error::UnsafePath`]).
pub(super) fn acquire(io: &dyn Io, dir: &Dir, name: &str, timeout: Duration) -> Result<Lock> {
    let path = dir.join(name);
    let unsafe_path = || Error::UnsafePath { path: path.clone() };
    let file = io.open_lock(dir, name).map_err(|e| {
        if e.raw_os_error() == Some(rustix::io::Errno::LOOP.raw_os_error())
            || e.raw_os_error() == Some(rustix::io::Errno::NXIO.raw_os_error())
        {
            unsafe_path()
        } else {
            Error::io(&path, "open lock file")(e)
        }
    })?;
    let stat = io.fstat(&file).map_err(Error::io(&path, "stat"))?;
    if stat.kind != Kind::File {
        return Err(unsafe_path());
    }
    let start = Instant::now();
    let mut pause = Duration::from_micros(200);
    let mut contended = false;
    loop {
        match fs2::FileExt::try_lock_exclusive(&file) {
            Ok(()) => {
                return Ok(Lock { file, contended });
            }
            Err(e) if is_contended(&e) => {
                contended = true;
                let waited = start.elapsed();
                if waited >= timeout {
                    return Err(Error::Locked {
                        path,
                        waited_ms: waited.as_millis() as u64,
                    });
                }
                std::thread::sleep(pause.min(timeout - waited));
                pause = (pause * 2).min(Duration::from_millis(20));
            }
            Err(e) => return Err(Error::io(&path, "lock")(e)),
        }
    }
}

fn is_contended(e: &std::io::Error) -> bool {
    e.kind() == std::io::ErrorKind::WouldBlock
        || e.raw_os_error() == fs2::lock_contended_error().raw_os_error()
}
