//! `memdir serve` runs the review routine itself: a spawned server on a
//! loopback port reviews the owners one is due for, once, and leaves paused
//! and not-due owners alone.

use std::io::{BufRead, BufReader};
use std::process::Stdio;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use crate::util::Sandbox;

const DUE: &str = "agt_due";
const PAUSED: &str = "agt_paused";
const MEMORY: &str = "- The staging deploy needs the VPN on <!-- memdir created=2026-01-01T00:00:00Z -->\n\
- Staging deploys need the VPN on <!-- memdir created=2026-02-01T00:00:00Z -->\n";

#[test]
fn serve_runs_due_reviews_once_and_leaves_paused_owners() {
    let s = Sandbox::new();
    s.write(
        DUE,
        "memdir.yaml",
        "review: {at: \"04:00\", paused: false}\n",
    );
    s.write(DUE, "MEMORY.md", MEMORY);
    s.write(
        PAUSED,
        "memdir.yaml",
        "review: {at: \"04:00\", paused: true}\n",
    );
    s.write(PAUSED, "MEMORY.md", MEMORY);
    let keys = s.dir.path().join("conf/keys.yaml");
    let mut cmd = s.cmd(&["serve", "--listen", "127.0.0.1:0", "--review-every", "1"]);
    cmd.arg("--keys").arg(&keys);
    cmd.stderr(Stdio::piped()).stdout(Stdio::null());
    let mut child = cmd.spawn().expect("spawn memdir serve");
    let (tx, rx) = mpsc::channel::<String>();
    let err = child.stderr.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(err).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    // The first pass runs at start; wait for it and two more passes (each
    // pass says when it is done).
    let mut seen = Vec::new();
    let passes = |seen: &[String]| seen.iter().filter(|l| l.contains("review pass:")).count();
    let start = Instant::now();
    while passes(&seen) < 3 && start.elapsed() < Duration::from_secs(60) {
        if let Ok(line) = rx.recv_timeout(Duration::from_millis(200)) {
            seen.push(line);
        }
    }
    assert!(passes(&seen) >= 3, "{seen:#?}");
    let _ = child.kill();
    let _ = child.wait();
    while let Ok(line) = rx.try_recv() {
        seen.push(line);
    }
    let reviewed: Vec<&String> = seen
        .iter()
        .filter(|l| l.starts_with("memdir serve: reviewed "))
        .collect();
    assert_eq!(reviewed.len(), 1, "{seen:#?}");
    assert!(
        reviewed[0].starts_with(&format!("memdir serve: reviewed {DUE}: review-")),
        "{seen:#?}"
    );
    // The review is in the owner's files: the duplicate archived, the
    // journal line that makes the next pass see it done.
    let archive = s.read_text(DUE, "archive.md");
    assert!(archive.contains("kind=merged"), "{archive}");
    assert_eq!(s.read_text(DUE, "MEMORY.md").lines().count(), 1);
    let id = reviewed[0]
        .split(": ")
        .nth(2)
        .unwrap()
        .split(' ')
        .next()
        .unwrap();
    assert!(s.read_text(DUE, "episodes.md").contains(id));
    let v = s.json_ok(&["--owner", DUE, "review", "status"]);
    assert_eq!(v["last"]["id"], id, "{v}");
    // The paused owner is as it was.
    assert_eq!(s.read_text(PAUSED, "MEMORY.md"), MEMORY);
    assert!(!s.path(PAUSED, "archive.md").exists());
    assert!(!s.path(PAUSED, "episodes.md").exists());
}

#[test]
fn serve_review_every_zero_runs_none() {
    let s = Sandbox::new();
    s.write(
        DUE,
        "memdir.yaml",
        "review: {at: \"04:00\", paused: false}\n",
    );
    s.write(DUE, "MEMORY.md", MEMORY);
    let keys = s.dir.path().join("conf/keys.yaml");
    let mut cmd = s.cmd(&["serve", "--listen", "127.0.0.1:0", "--review-every", "0"]);
    cmd.arg("--keys").arg(&keys);
    cmd.stderr(Stdio::piped()).stdout(Stdio::null());
    let mut child = cmd.spawn().expect("spawn memdir serve");
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    // The server says the routine is off before it listens, and after a
    // graceful stop it has said nothing of a review pass.
    let mut before = Vec::new();
    for line in lines.by_ref().map_while(Result::ok) {
        let listening = line.contains("listening on");
        before.push(line);
        if listening {
            break;
        }
    }
    assert!(
        before.iter().any(|l| l.contains("due reviews off")),
        "{before:#?}"
    );
    let pid = rustix::process::Pid::from_raw(child.id() as i32).expect("a pid");
    rustix::process::kill_process(pid, rustix::process::Signal::TERM).expect("SIGTERM");
    let after: Vec<String> = lines.map_while(Result::ok).collect();
    let _ = child.wait();
    assert!(after.iter().any(|l| l.contains("stopped")), "{after:#?}");
    assert!(
        !after
            .iter()
            .chain(&before)
            .any(|l| l.contains("review") && !l.contains("due reviews off")),
        "{before:#?} {after:#?}"
    );
    assert_eq!(s.read_text(DUE, "MEMORY.md"), MEMORY);
    assert!(!s.path(DUE, "episodes.md").exists());
}

const NEW: &str = "agt_new";
const OLD: &str = "agt_old";

/// The lines of a `memdir serve` started on `s` with `--review-every 1`,
/// up to its second review pass (each pass says when it is done).
fn two_passes(s: &Sandbox) -> Vec<String> {
    let keys = s.dir.path().join("conf/keys.yaml");
    let mut cmd = s.cmd(&["serve", "--listen", "127.0.0.1:0", "--review-every", "1"]);
    cmd.arg("--keys").arg(&keys);
    cmd.stderr(Stdio::piped()).stdout(Stdio::null());
    let mut child = cmd.spawn().expect("spawn memdir serve");
    let (tx, rx) = mpsc::channel::<String>();
    let err = child.stderr.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(err).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    let mut seen = Vec::new();
    let passes = |seen: &[String]| seen.iter().filter(|l| l.contains("review pass:")).count();
    while passes(&seen) < 2 {
        match rx.recv_timeout(Duration::from_secs(60)) {
            Ok(line) => seen.push(line),
            Err(e) => panic!("no second review pass: {e}; {seen:#?}"),
        }
    }
    let _ = child.kill();
    let _ = child.wait();
    seen
}

#[test]
fn serve_reviews_a_new_owner_first_at_the_scheduled_time_after_its_first_save() {
    let s = Sandbox::new();
    // The routine's time half a day from now: the first scheduled time
    // after a save made now is hours away, whenever the test runs.
    let now = chrono::Utc::now();
    let at = (now + chrono::Duration::hours(12))
        .format("%H:%M")
        .to_string();
    let routine = format!("review: {{at: \"{at}\", paused: false}}\n");
    // A new agent's first saves, just now: the same fact in both stores,
    // which a review would merge.
    s.write(NEW, "memdir.yaml", &routine);
    s.run_as(NEW, &["add", "Prefers tea"]).ok();
    s.run_as(NEW, &["add", "--to", "user", "Prefers tea"]).ok();
    // An owner whose first save is older than a period, never reviewed.
    s.write(OLD, "memdir.yaml", &routine);
    s.write(OLD, "MEMORY.md", MEMORY);
    let (memory, user) = (s.read_text(NEW, "MEMORY.md"), s.read_text(NEW, "USER.md"));
    // The routine says so: the new owner is due at the scheduled time
    // after its first save, the old one now.
    let v = s.json_ok(&["--owner", NEW, "review", "status"]);
    assert_eq!(v["due"]["state"], "not_due", "{v}");
    let next: chrono::DateTime<chrono::Utc> = v["next_due"]
        .as_str()
        .and_then(|t| t.parse().ok())
        .unwrap_or_else(|| panic!("no next_due: {v}"));
    assert_eq!(next.format("%H:%M").to_string(), at, "{v}");
    let ahead = next - now;
    assert!(
        ahead > chrono::Duration::hours(11) && ahead <= chrono::Duration::hours(13),
        "{v}"
    );
    let v = s.json_ok(&["--owner", OLD, "review", "status"]);
    assert_eq!(v["due"]["state"], "due", "{v}");
    // `memdir serve` reviews the old owner at start, the new one not at
    // all (in its first pass or the next).
    let seen = two_passes(&s);
    let reviewed: Vec<&String> = seen
        .iter()
        .filter(|l| l.starts_with("memdir serve: reviewed "))
        .collect();
    assert_eq!(reviewed.len(), 1, "{seen:#?}");
    assert!(
        reviewed[0].starts_with(&format!("memdir serve: reviewed {OLD}: review-")),
        "{seen:#?}"
    );
    let first = seen
        .iter()
        .find(|l| l.contains("review pass:"))
        .expect("a pass");
    assert!(
        first.ends_with("review pass: 2 owners, 1 reviewed"),
        "{seen:#?}"
    );
    assert!(s.read_text(OLD, "archive.md").contains("kind=merged"));
    assert_eq!(s.read_text(NEW, "MEMORY.md"), memory);
    assert_eq!(s.read_text(NEW, "USER.md"), user);
    assert!(!s.path(NEW, "archive.md").exists());
    assert!(!s.path(NEW, "episodes.md").exists());
}
