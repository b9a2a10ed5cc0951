//! The owner's exclusive lock: a separate lock file under `.memdir/`, taken
//! with fs2 and waited for up to a bound.

use std::fs::{File, OpenOptions};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::error::{Error, Result};

/// Held while an owner's files are read, edited and replaced; released on drop.
#[derive(Debug)]
pub struct OwnerLock {
    file: File,
    path: PathBuf,
    /// Whether another holder made this one wait.
    pub(crate) contended: bool,
}

impl OwnerLock {
    /// The lock file.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for OwnerLock {
    fn drop(&mut self) {
        let _ = fs2::FileExt::unlock(&self.file);
    }
}

/// Takes the exclusive lock on `path` (created if missing), waiting at most
/// `timeout`; past it the answer is [`Error::Locked`].
pub(crate) fn acquire(path: &Path, timeout: Duration) -> Result<OwnerLock> {
    let mut options = OpenOptions::new();
    options.create(true).truncate(false).write(true);
    // Never follow a symlink planted at the lock's path (it could point
    // outside the root): opening one fails with ELOOP.
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(rustix::fs::OFlags::NOFOLLOW.bits() as i32);
    }
    let file = options.open(path).map_err(|e| {
        if e.raw_os_error() == Some(rustix::io::Errno::LOOP.raw_os_error()) {
            Error::UnsafePath {
                path: path.to_owned(),
            }
        } else {
            Error::io(path, "open lock file")(e)
        }
    })?;
    let start = Instant::now();
    let mut pause = Duration::from_micros(200);
    let mut contended = false;
    loop {
        match fs2::FileExt::try_lock_exclusive(&file) {
            Ok(()) => {
                return Ok(OwnerLock {
                    file,
                    path: path.to_owned(),
                    contended,
                });
            }
            Err(e) if is_contended(&e) => {
                contended = true;
                let waited = start.elapsed();
                if waited >= timeout {
                    return Err(Error::Locked {
                        path: path.to_owned(),
                        waited_ms: waited.as_millis() as u64,
                    });
                }
                std::thread::sleep(pause.min(timeout - waited));
                pause = (pause * 2).min(Duration::from_millis(20));
            }
            Err(e) => return Err(Error::io(path, "lock")(e)),
        }
    }
}

fn is_contended(e: &std::io::Error) -> bool {
    e.kind() == std::io::ErrorKind::WouldBlock
        || e.raw_os_error() == fs2::lock_contended_error().raw_os_error()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn second_lock_times_out_with_the_path() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("lock");
        let held = acquire(&p, Duration::from_secs(1)).unwrap();
        let err = acquire(&p, Duration::from_millis(50)).unwrap_err();
        assert_eq!(err.code(), "locked");
        assert!(err.to_string().contains("lock"), "{err}");
        drop(held);
        assert!(acquire(&p, Duration::from_millis(50)).is_ok());
    }
}
