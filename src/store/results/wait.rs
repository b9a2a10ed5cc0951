//! Waiting for a result: a watch on the nearest existing folder on the way
//! to it (the workflow's, else `results/`, else the owner's, else the root),
//! which wakes only when a name appears there or the folder goes, looking
//! again after each wake and following the folders down as they are made;
//! a polling fallback where no watch can be set up.
//!
//! Nothing the waiter does wakes it: looking opens and reads files, which
//! the watch does not report (the `notify` watcher this replaced reported
//! every open and read of the folder, so each look caused the next: a busy
//! loop of about a thousand looks a second).

use std::time::{Duration, Instant};

use super::get;
use crate::disk::FolderWatch;
use crate::error::{Error, Result};
use crate::store::files::results::{TaskResult, nearest_dir, not_ready};
use crate::store::owner::Owner;

/// How often [`polling`] looks again where it cannot watch a folder.
const POLL_INTERVAL: Duration = Duration::from_millis(200);

/// A look at the result while waiting: a workflow nobody began yet may be
/// begun meanwhile, so "unknown" is pending too.
fn look(owner: &Owner, workflow_id: &str, task_id: &str) -> Option<Result<TaskResult>> {
    match get(owner, workflow_id, task_id) {
        Err(Error::NotReady { .. } | Error::ResultNotFound { .. }) => None,
        other => Some(other),
    }
}

/// `not_ready` after a wait of `waited`.
pub(super) fn timed_out(workflow_id: &str, task_id: &str, waited: Duration) -> Error {
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

/// Waits until `deadline` for the result (or an error reading it), asleep
/// between looks; `None` at the deadline. Polls where no folder can be
/// watched.
pub(super) fn watching(
    owner: &Owner,
    workflow_id: &str,
    task_id: &str,
    deadline: Instant,
) -> Option<Result<TaskResult>> {
    let Some(mut watch) = FolderWatch::new() else {
        return polling(owner, workflow_id, task_id, deadline);
    };
    loop {
        if let Some(answer) = look(owner, workflow_id, task_id) {
            return Some(answer);
        }
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return None;
        }
        let dir = match nearest_dir(owner, workflow_id) {
            Ok(Some(dir)) => dir,
            Ok(None) => return polling(owner, workflow_id, task_id, deadline),
            Err(e) => return Some(Err(e)),
        };
        match watch.follow(&dir) {
            None => return polling(owner, workflow_id, task_id, deadline),
            // A folder watched from now on: what appeared in it before the
            // watch was set up is found by looking once more.
            Some(true) => continue,
            Some(false) => watch.wait(left),
        }
    }
}

/// Looks for the result every [`POLL_INTERVAL`] until `deadline`; `None` at
/// the deadline.
fn polling(
    owner: &Owner,
    workflow_id: &str,
    task_id: &str,
    deadline: Instant,
) -> Option<Result<TaskResult>> {
    loop {
        if let Some(answer) = look(owner, workflow_id, task_id) {
            return Some(answer);
        }
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return None;
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
        o.begin_run(crate::store::RunOptions::default().workflow("wf"))
            .unwrap();
        let t = Instant::now();
        let e = o
            .results()
            .wait("wf", "t", Duration::from_millis(150))
            .unwrap_err();
        assert_eq!(e.code().as_str(), "not_ready");
        assert!(t.elapsed() >= Duration::from_millis(150));
        assert!(t.elapsed() < Duration::from_secs(3));
        o.results()
            .put("wf", "t", b"x", "text/plain", false)
            .unwrap();
        assert_eq!(
            o.results().wait("wf", "t", Duration::ZERO).unwrap().content,
            b"x"
        );
    }

    #[test]
    fn a_wait_creates_no_folder_and_ends_unknown_for_a_workflow_nothing_knows() {
        let (d, s) = store();
        let o = s.owner("o").unwrap();
        // No owner folder: the wait creates none.
        let e = o
            .results()
            .wait("wf", "t", Duration::from_millis(50))
            .unwrap_err();
        assert_eq!(e.code().as_str(), "result_not_found");
        assert!(!d.path().join("o").exists());
        // An owner folder without results: neither results/ nor the
        // workflow's folder is made.
        o.begin_run(crate::store::RunOptions::default()).unwrap();
        let e = o
            .results()
            .wait("wf", "t", Duration::from_millis(50))
            .unwrap_err();
        assert_eq!(e.code().as_str(), "result_not_found");
        assert!(!d.path().join("o/results").exists());
    }

    #[test]
    fn a_running_wait_makes_its_workflow_known() {
        let (d, s) = store();
        let o = s.owner("o").unwrap();
        o.begin_run(crate::store::RunOptions::default()).unwrap();
        assert_eq!(
            o.results().get("wf", "t").unwrap_err().code().as_str(),
            "result_not_found"
        );
        let root = d.path().to_owned();
        let (tx, rx) = std::sync::mpsc::channel();
        let waiter = std::thread::spawn(move || {
            let s = Store::open(&root).unwrap();
            let o = s.owner("o").unwrap();
            let answer = o.results().wait("wf", "t", Duration::from_secs(30));
            tx.send(()).unwrap();
            answer
        });
        // The event: the waiter's mark, seen by a get as a known workflow.
        let until = Instant::now() + Duration::from_secs(20);
        while o.results().get("wf", "t").unwrap_err().code().as_str() != "not_ready" {
            assert!(Instant::now() < until, "the wait never made wf known");
            std::thread::yield_now();
        }
        assert_eq!(
            o.results().get("wf", "other").unwrap_err().code().as_str(),
            "not_ready"
        );
        assert_eq!(
            o.results().get("wf2", "t").unwrap_err().code().as_str(),
            "result_not_found"
        );
        o.results()
            .put("wf", "t", b"done", "text/plain", false)
            .unwrap();
        rx.recv().unwrap();
        assert_eq!(waiter.join().unwrap().unwrap().content, b"done");
    }

    #[test]
    fn wait_is_woken_by_a_put_from_another_thread() {
        let (d, s) = store();
        // An owner with a folder, where a wait leaves its mark.
        s.owner("o")
            .unwrap()
            .add(crate::Scope::Memory, "Staging needs the VPN")
            .unwrap();
        let root = d.path().to_owned();
        let putter = std::thread::spawn(move || {
            let s = Store::open(&root).unwrap();
            let o = s.owner("o").unwrap();
            // The event: the waiter is registered (a get sees the workflow
            // known), not a length of time.
            let until = Instant::now() + Duration::from_secs(20);
            while o.results().get("wf", "t").unwrap_err().code() != crate::ErrorCode::NotReady {
                assert!(Instant::now() < until, "the wait never registered");
                std::thread::yield_now();
            }
            o.results()
                .put("wf", "t", b"late", "text/plain", false)
                .unwrap();
            Instant::now()
        });
        let o = s.owner("o").unwrap();
        let got = o
            .results()
            .wait("wf", "t", Duration::from_secs(20))
            .unwrap();
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
                .results()
                .put("wf", "t", b"polled", "text/plain", false)
                .unwrap();
        });
        let o = s.owner("o").unwrap();
        let deadline = Instant::now() + Duration::from_secs(10);
        let got = polling(&o, "wf", "t", deadline).unwrap().unwrap();
        putter.join().unwrap();
        assert_eq!(got.content, b"polled");
        assert!(polling(&o, "wf", "missing", Instant::now()).is_none());
    }
}
