//! Exclusive locks on lock files, taken with fs2 and waited for up to a
//! bound. A [`Lock`] is a guard: held until dropped.
//!
//! Waiting is prompt and leaves nothing behind:
//!
//! * **Within one process**, the callers waiting for one lock file queue in
//!   memory, first come first served ([`Gates`]); only the one at the head
//!   waits for the file lock, the others sleep on a condition variable.
//! * **Across processes**, the head waits in the kernel: on Linux it watches
//!   the lock file with inotify for `IN_CLOSE_WRITE` (every holder opened the
//!   file for writing, and a holder's release or death closes it) and tries
//!   again on each event; elsewhere, or if the watch cannot be set up, it
//!   polls with a back-off of at most 2 ms. Each attempt is a non-blocking
//!   `flock`, so a caller that gives up at its timeout leaves no waiter that
//!   would take the lock after it. Linux wakes waiters in no set order, so
//!   across processes fairness is best effort.

use std::collections::{HashMap, VecDeque};
use std::fs::File;
use std::os::fd::{AsFd, OwnedFd};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::{Duration, Instant};

use super::dir::{Dir, Kind};
use super::io::Io;
use crate::error::{Error, Result};

/// An exclusive lock on a lock file; released on drop.
#[derive(Debug)]
pub(crate) struct Lock {
    file: Option<File>,
    /// This process's place at the head of the lock's queue.
    turn: Option<Turn>,
    /// Whether another holder made this one wait.
    pub(crate) contended: bool,
}

impl Drop for Lock {
    fn drop(&mut self) {
        // The file lock first, then the queue: the next caller of this
        // process finds the file free.
        if let Some(f) = self.file.take() {
            let _ = fs2::FileExt::unlock(&f);
        }
        self.turn.take();
    }
}

/// The in-process queues of callers waiting for a lock file, by file
/// (device and inode).
#[derive(Debug, Default)]
pub(crate) struct Gates {
    queues: Mutex<HashMap<(u64, u64), Arc<Gate>>>,
}

/// One lock file's queue.
#[derive(Debug, Default)]
struct Gate {
    /// Ticket numbers, in arrival order; the head holds (or is taking) the
    /// file lock.
    queue: Mutex<VecDeque<u64>>,
    moved: Condvar,
}

static TICKETS: AtomicU64 = AtomicU64::new(0);

/// A caller's place in a gate's queue; leaving it (on drop) lets the next
/// one go.
#[derive(Debug)]
struct Turn {
    gate: Arc<Gate>,
    ticket: u64,
}

impl Drop for Turn {
    fn drop(&mut self) {
        let mut q = self
            .gate
            .queue
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        q.retain(|t| *t != self.ticket);
        // Every waiter is in the queue before it waits, and one that comes
        // after this finds itself at the head: with the queue empty, no one
        // is waiting, and a notification would only cost a system call.
        let waiting = !q.is_empty();
        drop(q);
        if waiting {
            self.gate.moved.notify_all();
        }
    }
}

impl Gates {
    /// Queues for the file `key`, waiting until this caller is at the head
    /// or `deadline` passes (`None`: it did, and the caller left the queue).
    fn wait_turn(&self, key: (u64, u64), deadline: Instant) -> Option<(Turn, bool)> {
        let gate = {
            let mut g = self.queues.lock().unwrap_or_else(PoisonError::into_inner);
            Arc::clone(g.entry(key).or_default())
        };
        let ticket = TICKETS.fetch_add(1, Ordering::Relaxed);
        let mut q = gate.queue.lock().unwrap_or_else(PoisonError::into_inner);
        q.push_back(ticket);
        let mut waited = false;
        while q.front() != Some(&ticket) {
            waited = true;
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                q.retain(|t| *t != ticket);
                let waiting = !q.is_empty();
                drop(q);
                if waiting {
                    gate.moved.notify_all();
                }
                return None;
            }
            q = gate
                .moved
                .wait_timeout(q, left)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
        drop(q);
        Some((Turn { gate, ticket }, waited))
    }
}

/// Takes the exclusive lock on `name` in `dir` (created if missing), waiting
/// at most `timeout`; past it the answer is [`Error::Locked`]. A symlink or
/// anything but a regular file at the lock's name is refused
/// ([`Error::UnsafePath`]).
pub(super) fn acquire(
    io: &dyn Io,
    gates: &Gates,
    dir: &Dir,
    name: &str,
    timeout: Duration,
) -> Result<Lock> {
    let start = Instant::now();
    let deadline = start + timeout;
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
    let locked = |waited: Duration| Error::Locked {
        path: path.clone(),
        waited_ms: waited.as_millis() as u64,
    };
    let Some((turn, queued)) = gates.wait_turn((stat.dev, stat.ino), deadline) else {
        return Err(locked(start.elapsed()));
    };
    if try_lock(&file).map_err(Error::io(&path, "lock"))? {
        return Ok(Lock {
            file: Some(file),
            turn: Some(turn),
            contended: queued,
        });
    }
    // Held by another process: wait for it in the kernel.
    let watch = Watch::new(&file);
    let mut pause = Duration::from_micros(100);
    loop {
        if try_lock(&file).map_err(Error::io(&path, "lock"))? {
            return Ok(Lock {
                file: Some(file),
                turn: Some(turn),
                contended: true,
            });
        }
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(locked(start.elapsed()));
        }
        match &watch {
            // A missed event costs at most 50 ms.
            Some(w) => w.wait(left.min(Duration::from_millis(50))),
            None => {
                std::thread::sleep(pause.min(left));
                pause = (pause * 2).min(Duration::from_millis(2));
            }
        }
    }
}

/// Takes a shared lock on `name` in `dir` (created if missing), trying
/// until `deadline`: a mark that others test with [`is_held`] and that the
/// kernel drops when the holder exits, however it exits. `None` when an
/// exclusive holder kept it past the deadline (a tester holds it for one
/// system call). A symlink or anything but a regular file at the name is
/// refused ([`Error::UnsafePath`]).
pub(super) fn share(io: &dyn Io, dir: &Dir, name: &str, deadline: Instant) -> Result<Option<Lock>> {
    let path = dir.join(name);
    let file = io.open_lock(dir, name).map_err(|e| {
        if e.raw_os_error() == Some(rustix::io::Errno::LOOP.raw_os_error())
            || e.raw_os_error() == Some(rustix::io::Errno::NXIO.raw_os_error())
        {
            Error::UnsafePath { path: path.clone() }
        } else {
            Error::io(&path, "open lock file")(e)
        }
    })?;
    if io.fstat(&file).map_err(Error::io(&path, "stat"))?.kind != Kind::File {
        return Err(Error::UnsafePath { path });
    }
    loop {
        match fs2::FileExt::try_lock_shared(&file) {
            Ok(()) => {
                return Ok(Some(Lock {
                    file: Some(file),
                    turn: None,
                    contended: false,
                }));
            }
            Err(e) if is_contended(&e) => {}
            Err(e) => return Err(Error::io(&path, "lock")(e)),
        }
        if Instant::now() >= deadline {
            return Ok(None);
        }
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// Whether someone holds a lock on `name` in `dir`: one non-blocking
/// exclusive attempt, released at once. A missing name, or one that is not
/// a regular file (never followed), is held by no one. Creates nothing.
pub(super) fn is_held(io: &dyn Io, dir: &Dir, name: &str) -> Result<bool> {
    let path = dir.join(name);
    let file = match io.open_read(dir, name) {
        Ok(f) => f,
        Err(e)
            if e.kind() == std::io::ErrorKind::NotFound
                || e.raw_os_error() == Some(rustix::io::Errno::LOOP.raw_os_error()) =>
        {
            return Ok(false);
        }
        Err(e) => return Err(Error::io(&path, "open lock file")(e)),
    };
    if io.fstat(&file).map_err(Error::io(&path, "stat"))?.kind != Kind::File {
        return Ok(false);
    }
    let free = try_lock(&file).map_err(Error::io(&path, "lock"))?;
    if free {
        let _ = fs2::FileExt::unlock(&file);
    }
    Ok(!free)
}

/// One non-blocking attempt: `Ok(false)` when another holder has it.
fn try_lock(file: &File) -> std::io::Result<bool> {
    match fs2::FileExt::try_lock_exclusive(file) {
        Ok(()) => Ok(true),
        Err(e) if is_contended(&e) => Ok(false),
        Err(e) => Err(e),
    }
}

fn is_contended(e: &std::io::Error) -> bool {
    e.kind() == std::io::ErrorKind::WouldBlock
        || e.raw_os_error() == fs2::lock_contended_error().raw_os_error()
}

/// An inotify watch for `IN_CLOSE_WRITE` on an open lock file (Linux).
struct Watch {
    fd: OwnedFd,
}

impl Watch {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    fn new(file: &File) -> Option<Watch> {
        use rustix::fs::inotify;
        use std::os::fd::AsRawFd;
        let fd =
            inotify::init(inotify::CreateFlags::CLOEXEC | inotify::CreateFlags::NONBLOCK).ok()?;
        // The open descriptor names the file even if its name changed.
        let target = format!("/proc/self/fd/{}", file.as_fd().as_raw_fd());
        inotify::add_watch(&fd, target, inotify::WatchFlags::CLOSE_WRITE).ok()?;
        Some(Watch { fd })
    }

    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    fn new(_file: &File) -> Option<Watch> {
        None
    }

    /// Sleeps in the kernel until a holder closes the file or `most` passes;
    /// then drains the events.
    fn wait(&self, most: Duration) {
        use rustix::event::{PollFd, PollFlags, Timespec, poll};
        let t = Timespec {
            tv_sec: most.as_secs() as _,
            tv_nsec: most.subsec_nanos() as _,
        };
        let mut fds = [PollFd::new(&self.fd, PollFlags::IN)];
        let _ = poll(&mut fds, Some(&t));
        let mut buf = [0u8; 1024];
        while matches!(rustix::io::read(&self.fd, &mut buf), Ok(n) if n > 0) {}
    }
}
