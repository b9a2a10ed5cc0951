//! Waiting for a result: a `notify` watcher on the workflow's folder (inotify
//! on Linux), looking again after every event, and a polling fallback where
//! no watch can be set up.

use std::path::Path;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use super::get;

/// A look at the result while waiting: a workflow nobody began yet may be
/// begun meanwhile, so "unknown" is pending too.
fn look(owner: &Owner, workflow_id: &str, task_id: &str) -> Option<Result<TaskResult>> {
    match get(owner, workflow_id, task_id) {
        Err(Error::NotReady { .. } | Error::ResultNotFound { .. }) => None,
        other => Some(other),
    }
}

/// `not_ready` after a wait that began `timeout` before `deadline`.
fn timed_out(workflow_id: &str, task_id: &str, waited: Duration) -> Error {
    match not_ready(workflow_id, Some(task_id)) {
        Error::NotReady {
            workflow_id,
            task_id,
            ..
        } => Error::NotReady {
            workflow_id,
            task_id,
            waited_ms: Some(u64::try_from(waited.as_millis()).unwrap_or(u64::MAX)),
        },
        e => e,
    }
}
use crate::error::{Error, Result};
use crate::store::files::results::{TaskResult, not_ready};
use crate::store::owner::Owner;

/// How often [`polling`] looks again where it cannot watch the folder.
const POLL_INTERVAL: Duration = Duration::from_millis(200);

/// Waits on notifications from a watcher of `dir`; polls if none can be set up.
pub(super) fn watching(
    owner: &Owner,
    dir: &Path,
    workflow_id: &str,
    task_id: &str,
    deadline: Instant,
    waited: Duration,
) -> Result<TaskResult> {
    use notify::Watcher;
    let (tx, rx) = mpsc::channel::<notify::Result<notify::Event>>();
    let mut watcher = match notify::recommended_watcher(tx) {
        Ok(w) => w,
        Err(_) => return polling(owner, workflow_id, task_id, deadline, waited),
    };
    if watcher
        .watch(dir, notify::RecursiveMode::NonRecursive)
        .is_err()
    {
        return polling(owner, workflow_id, task_id, deadline, waited);
    }
    loop {
        // Once right after the watch is set up (a put may have landed
        // before it), then after every event.
        if let Some(answer) = look(owner, workflow_id, task_id) {
            return answer;
        }
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(timed_out(workflow_id, task_id, waited));
        }
        match rx.recv_timeout(left) {
            Ok(_) => {}
            Err(mpsc::RecvTimeoutError::Timeout) => {
                // One last look: the answer at the deadline.
                return look(owner, workflow_id, task_id)
                    .unwrap_or_else(|| Err(timed_out(workflow_id, task_id, waited)));
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                return polling(owner, workflow_id, task_id, deadline, waited);
            }
        }
    }
}

/// Looks for the result every [`POLL_INTERVAL`] until `deadline`.
fn polling(
    owner: &Owner,
    workflow_id: &str,
    task_id: &str,
    deadline: Instant,
    waited: Duration,
) -> Result<TaskResult> {
    loop {
        if let Some(answer) = look(owner, workflow_id, task_id) {
            return answer;
        }
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(timed_out(workflow_id, task_id, waited));
        }
        std::thread::sleep(left.min(POLL_INTERVAL));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Store;
    use std::time::Duration;

    fn store() -> (tempfile::TempDir, Store) {
        let d = tempfile::tempdir().unwrap();
        let s = Store::open(d.path()).unwrap();
        (d, s)
    }

    #[test]
    fn wait_returns_at_once_when_stored_and_not_ready_after_timeout() {
        let (_d, s) = store();
        let o = s.owner("o").unwrap();
        let t = Instant::now();
        let e = o
            .wait_result("wf", "t", Duration::from_millis(150))
            .unwrap_err();
        assert_eq!(e.code().as_str(), "not_ready");
        assert!(t.elapsed() >= Duration::from_millis(150));
        assert!(t.elapsed() < Duration::from_secs(3));
        o.put_result("wf", "t", b"x", "text/plain", false).unwrap();
        assert_eq!(
            o.wait_result("wf", "t", Duration::ZERO).unwrap().content,
            b"x"
        );
    }

    #[test]
    fn wait_is_woken_by_a_put_from_another_thread() {
        let (d, s) = store();
        let root = d.path().to_owned();
        let putter = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(300));
            let s = Store::open(&root).unwrap();
            s.owner("o")
                .unwrap()
                .put_result("wf", "t", b"late", "text/plain", false)
                .unwrap();
            Instant::now()
        });
        let o = s.owner("o").unwrap();
        let got = o.wait_result("wf", "t", Duration::from_secs(20)).unwrap();
        let woke = Instant::now();
        let put_done = putter.join().unwrap();
        assert_eq!(got.content, b"late");
        assert!(woke.saturating_duration_since(put_done) < Duration::from_secs(2));
    }

    #[test]
    fn polling_fallback_finds_the_result() {
        let (d, s) = store();
        let root = d.path().to_owned();
        let putter = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(100));
            let s = Store::open(&root).unwrap();
            s.owner("o")
                .unwrap()
                .put_result("wf", "t", b"polled", "text/plain", false)
                .unwrap();
        });
        let o = s.owner("o").unwrap();
        let deadline = Instant::now() + Duration::from_secs(10);
        let got = polling(&o, "wf", "t", deadline, Duration::ZERO).unwrap();
        putter.join().unwrap();
        assert_eq!(got.content, b"polled");
        let e = polling(&o, "wf", "missing", Instant::now(), Duration::ZERO).unwrap_err();
        assert_eq!(e.code().as_str(), "not_ready");
    }
}
