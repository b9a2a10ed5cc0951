//! Replicas through a git remote (docs/SCALING.md): `memdir serve --sync`
//! on three clones of one root, a real git server on loopback (`git
//! daemon`), writers on each replica for the owners homed there, one
//! replica killed with SIGKILL mid-way and restarted, the remote made
//! unreachable while one fact is edited differently on two replicas; and a
//! merge that stops for a person, and a `memdir sync` by hand beside the
//! server's.

mod cluster;

use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde_json::json;

use crate::util::{have_git, not_run};
use cluster::{Cluster, word};

/// The sync period of the test's replicas.
const EVERY: Duration = Duration::from_secs(2);
/// Writes of each writer.
const WRITES: usize = 10;
/// What the machine's scheduling adds to a sync's own time (git's
/// processes on a loaded 2-core machine), on top of the periods and the
/// backoff a convergence is allowed.
const SLACK: Duration = Duration::from_secs(2);

/// The fact edited differently on two replicas, and its two edits.
const FACT: &str = "The deploy window opens at nine on Tuesdays";
const ON_HOME: &str = "The deploy window opens at ten on Tuesdays";
const ON_CLONE: &str = "The deploy window opens at eleven on Tuesdays";

/// Whether this machine can run the cluster; says so where it cannot.
fn can_run() -> bool {
    if !have_git() {
        return false;
    }
    if !cluster::have_daemon() {
        not_run("no `git daemon` on this machine");
        return false;
    }
    true
}

/// One writer: `WRITES` facts of `owner` on its home, each read back at
/// once on the home (an agent reads its own writes); the texts
/// acknowledged.
fn writer(c: &Cluster, owner: &str, acked: &AtomicUsize, deadline: Instant) -> Vec<String> {
    let mut mine = Vec::new();
    for k in 0..WRITES {
        let text = format!("{owner} keeps note {}", word(k * 7 + owner.len()));
        let status = c.remember(owner, &text, deadline);
        assert!(
            status == 201 || status == 200,
            "{owner}: {status} for {text}"
        );
        mine.push(text);
        acked.fetch_add(1, Ordering::SeqCst);
        let seen = c.recall(owner, deadline);
        for t in &mine {
            assert!(
                seen.contains(t),
                "{owner} does not read its own write {t:?}: {seen:?}"
            );
        }
        std::thread::sleep(Duration::from_millis(60));
    }
    mine
}

#[test]
#[allow(
    clippy::too_many_lines,
    reason = "one scenario: the cluster's writes, the kill, the convergence, then the partition's edits and their convergence"
)]
fn three_replicas_converge_through_a_git_server_after_a_kill_and_a_partition() {
    if !can_run() {
        return;
    }
    let _alone = crate::util::exclusive();
    let started = Instant::now();
    let r0_owner = "agt_r0_0";
    let seed: &[&[&str]] = &[&["--owner", r0_owner, "add", FACT]];
    let c = Cluster::new(3, 2, EVERY, seed);
    for i in 0..3 {
        c.start(i);
    }
    let deadline = started + Duration::from_secs(80);
    assert!(
        c.wait_status(deadline, |_, v| v["state"] == "ok"),
        "the first syncs: {:?}",
        (0..3).map(|i| c.status(i)).collect::<Vec<_>>()
    );
    let schema = crate::schema_http::validator("sync-status");
    let v = c.status(0).expect("a status");
    assert!(schema.is_valid(&v), "{v}");

    // Each owner has one home: another replica answers 421, naming it.
    let (home, key) = c.owner(r0_owner);
    assert_eq!(home, 0);
    let (status, v) = c
        .call(
            1,
            key,
            "POST",
            "/v1/memory/remember",
            Some(json!({"text": "Sent astray"})),
        )
        .expect("an answer");
    assert_eq!(status, 421, "{v}");
    assert_eq!(v["error"]["code"], "misdirected", "{v}");
    assert_eq!(v["error"]["home"]["name"], "r0", "{v}");
    assert_eq!(v["error"]["home"]["url"], c.nodes[0].url(), "{v}");
    assert_eq!(v["error"]["replica"], "r1", "{v}");

    // Writers on every replica for the owners homed there; replica 2 is
    // killed with SIGKILL half-way and started again.
    let acked = AtomicUsize::new(0);
    let total = c.owners.len() * WRITES;
    let written: Vec<(String, Vec<String>)> = std::thread::scope(|s| {
        let writers: Vec<_> = c
            .owners
            .iter()
            .map(|(o, _, _)| {
                let (c, acked) = (&c, &acked);
                s.spawn(move || (o.clone(), writer(c, o, acked, deadline)))
            })
            .collect();
        while acked.load(Ordering::SeqCst) < total / 2 {
            assert!(Instant::now() < deadline, "the writers stalled");
            std::thread::sleep(Duration::from_millis(10));
        }
        c.kill(2);
        c.start(2);
        writers
            .into_iter()
            .map(|w| w.join().expect("a writer"))
            .collect()
    });

    // Converged byte for byte within three periods and any backoff.
    let stopped = Instant::now();
    let allowed = 3 * EVERY + c.backoff_left() + SLACK;
    let took = c.wait_converged(stopped, stopped + allowed);
    assert!(
        took.is_some(),
        "not converged within {allowed:?}: {:#?}",
        (0..3).map(|i| c.status(i)).collect::<Vec<_>>()
    );
    // No acknowledged write is lost: each once in its owner's store, on
    // every replica.
    for i in 0..3 {
        for (owner, texts) in &written {
            let file = c.nodes[i].root().join(owner).join("MEMORY.md");
            let memory = std::fs::read_to_string(&file).unwrap_or_default();
            for t in texts {
                assert_eq!(
                    memory.matches(t.as_str()).count(),
                    1,
                    "{t} on r{i}:\n{memory}"
                );
            }
        }
    }
    eprintln!(
        "{} writes on 3 replicas (one killed and restarted): converged {:.1} s after the \
         last, period {} s; {} pushes retried",
        acked.load(Ordering::SeqCst),
        took.unwrap_or_default().as_secs_f64(),
        EVERY.as_secs(),
        c.pushes_retried()
    );

    partition(c, deadline);
}

/// The remote unreachable: the fact edited on its home through the API and
/// on another clone by hand; writes go on, syncs fail and back off; once
/// the remote is back, the replicas converge with both versions kept as a
/// marked pair.
fn partition(c: Cluster, deadline: Instant) {
    let owner = "agt_r0_0";
    let (_, key) = c.owner(owner);
    let key = key.to_owned();
    c.stop_daemon();
    let (status, v) = c
        .call(
            0,
            &key,
            "POST",
            "/v1/mcp/call",
            Some(json!({"name": "memory", "arguments": {
                "action": "remember", "operation": "replace",
                "old_text": FACT, "content": ON_HOME,
            }})),
        )
        .expect("an answer");
    assert_eq!(status, 200, "{v}");
    assert!(v["result"]["isError"] != true, "{v}");
    c.memdir(1, &["--owner", owner, "replace", FACT, ON_CLONE])
        .expect("the edit on another clone");
    // The syncs fail and back off; the status and the log say so.
    assert!(
        c.wait_status(deadline, |i, v| i == 2
            || (v["state"] == "retrying" && v["error"]["code"] == "git_failed")),
        "{:?}",
        (0..3).map(|i| c.status(i)).collect::<Vec<_>>()
    );
    assert!(
        c.nodes[0]
            .log
            .lock()
            .unwrap()
            .iter()
            .any(|l| l.contains("failed (git_failed), retrying in")),
        "{:#?}",
        c.nodes[0].log.lock().unwrap()
    );
    c.start_daemon();
    let back = Instant::now();
    let allowed = 3 * EVERY + c.backoff_left() + SLACK;
    let took = c.wait_converged(back, back + allowed);
    assert!(
        took.is_some(),
        "not converged within {allowed:?} of the remote's return: {:#?}",
        (0..3).map(|i| c.status(i)).collect::<Vec<_>>()
    );
    for i in 0..3 {
        let memory = std::fs::read_to_string(c.nodes[i].root().join(owner).join("MEMORY.md"))
            .unwrap_or_default();
        for t in [ON_HOME, ON_CLONE] {
            let line = memory
                .lines()
                .find(|l| l.contains(t))
                .unwrap_or_else(|| panic!("{t} lost on r{i}:\n{memory}"));
            assert!(line.contains("conflict=mem_"), "{line}");
        }
        assert!(!memory.contains(FACT), "{memory}");
    }
    let v = c.status(0).expect("a status");
    assert_eq!(v["state"], "ok", "{v}");
    eprintln!(
        "the remote back: converged {:.1} s later with the marked pair",
        took.unwrap_or_default().as_secs_f64()
    );
}

/// A heading both sides put where the other put another: text outside
/// entries that conflicts.
const HEADING_HERE: &str = "# Deploys, as the server's clone words it";
const HEADING_THERE: &str = "# Deploys, as a laptop words it";

#[test]
fn a_merge_that_needs_a_person_stops_syncing_until_one_merged() {
    if !can_run() {
        return;
    }
    let owner = "agt_r0_0";
    let seed: &[&[&str]] = &[&["--owner", owner, "add", FACT]];
    let c = Cluster::new(1, 1, Duration::from_secs(1), seed);
    let deadline = Instant::now() + Duration::from_secs(60);
    let file = |root: &Path| root.join(owner).join("MEMORY.md");
    let with_heading = |root: &Path, heading: &str| {
        let text = std::fs::read_to_string(file(root)).expect("MEMORY.md");
        std::fs::write(file(root), format!("{heading}\n\n{text}")).expect("MEMORY.md");
    };
    // A laptop's clone pushes its heading; the server's clone has another,
    // not yet committed.
    let laptop = c.clone_hub("laptop");
    with_heading(&laptop.join("mem"), HEADING_THERE);
    c.git(&laptop, &["commit", "--quiet", "-am", "a heading"]);
    c.git(&laptop, &["push", "--quiet"]);
    let theirs = c.git(&laptop, &["rev-parse", "HEAD"]).trim().to_owned();
    let here = c.nodes[0].root();
    with_heading(&here, HEADING_HERE);
    c.start(0);
    // The first sync stops: said on the status route and in the log.
    assert!(
        c.wait_status(deadline, |_, v| v["state"] == "stopped"),
        "{:?}",
        c.status(0)
    );
    let v = c.status(0).expect("a status");
    let schema = crate::schema_http::validator("sync-status");
    assert!(schema.is_valid(&v), "{v}");
    assert_eq!(v["error"]["code"], "sync_conflict", "{v}");
    assert_eq!(v["error"]["commit"], theirs.as_str(), "{v}");
    assert_eq!(v["next_in_ms"], serde_json::Value::Null, "{v}");
    let logged = |needle: &str| {
        c.nodes[0]
            .log
            .lock()
            .unwrap()
            .iter()
            .any(|l| l.contains(needle))
    };
    assert!(
        logged("stopped (sync_conflict)"),
        "{:#?}",
        c.nodes[0].log.lock().unwrap()
    );
    // No marker was left, and writes go on.
    let memory = std::fs::read_to_string(file(&here)).expect("MEMORY.md");
    assert!(
        !memory.contains("<<<<<<<") && memory.contains(HEADING_HERE),
        "{memory}"
    );
    let (_, key) = c.owner(owner);
    let body = json!({"text": "Prefers the deploy notes short", "scope": "user"});
    let (status, v) = c
        .call(0, key, "POST", "/v1/memory/remember", Some(body))
        .expect("an answer");
    assert_eq!(status, 201, "{v}");
    // A person merges by hand; the server sees it and syncs again.
    let clone = &c.nodes[0].clone;
    assert!(c.git_try(clone, &["merge", "origin/main"]).is_err());
    let merged = std::fs::read_to_string(file(&here)).expect("MEMORY.md");
    assert!(merged.contains("<<<<<<<"), "{merged}");
    let start = merged.find("<<<<<<<").expect("markers");
    let end = merged.find(">>>>>>>").expect("markers");
    let end = end + merged[end..].find('\n').expect("a line") + 1;
    let resolved = format!("{}# Deploys\n{}", &merged[..start], &merged[end..]);
    std::fs::write(file(&here), &resolved).expect("MEMORY.md");
    c.git(clone, &["commit", "--quiet", "-am", "the headings merged"]);
    assert!(
        c.wait_status(deadline, |_, v| v["state"] == "ok"),
        "{:?}",
        c.status(0)
    );
    assert!(logged("merged by hand: syncing again"));
    // The hub holds the merge and the write made while syncing waited.
    let laptop_pull = |path: &str| {
        c.git(&laptop, &["pull", "--quiet", "--no-rebase"]);
        std::fs::read_to_string(laptop.join("mem").join(owner).join(path)).unwrap_or_default()
    };
    assert!(laptop_pull("USER.md").contains("Prefers the deploy notes short"));
    assert_eq!(laptop_pull("MEMORY.md"), resolved);
}

#[test]
fn a_sync_by_hand_and_the_server_s_never_run_at_once() {
    if !can_run() {
        return;
    }
    let c = Cluster::new(1, 1, Duration::from_secs(1), &[]);
    c.start(0);
    let deadline = Instant::now() + Duration::from_secs(60);
    assert!(c.wait_status(deadline, |_, v| v["state"] == "ok"));
    // Someone holds the clone's sync lock (as a sync does).
    let lock = c.nodes[0].root().join(".memdir/sync.lock");
    let mut holder = Command::new("flock")
        .arg("-x")
        .arg(&lock)
        .args(["-c", "echo held; cat"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("flock");
    let mut said = String::new();
    std::io::BufRead::read_line(
        &mut std::io::BufReader::new(holder.stdout.take().expect("stdout")),
        &mut said,
    )
    .expect("a line");
    assert_eq!(said.trim(), "held");
    // A sync by hand waits for it, and gives up at its lock timeout.
    let err = c
        .memdir(0, &["--lock-timeout-ms", "300", "sync"])
        .unwrap_err();
    assert!(
        err.contains("error[locked]") && err.contains("sync.lock"),
        "{err}"
    );
    // The server's sync puts itself off, a write or not.
    let owner = c.owners[0].0.clone();
    assert_eq!(c.remember(&owner, "Staging needs the VPN", deadline), 201);
    let logged = || {
        c.nodes[0]
            .log
            .lock()
            .unwrap()
            .iter()
            .any(|l| l.contains("put off: another sync of this clone runs"))
    };
    while !logged() {
        assert!(
            Instant::now() < deadline,
            "{:#?}",
            c.nodes[0].log.lock().unwrap()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    // Let go: the server's sync takes the write to the hub, and a sync by
    // hand goes through beside it.
    drop(holder.stdin.take());
    let _ = holder.wait();
    let hub = c.dir.path().join("hub.git");
    let pushed = || {
        c.git_try(&hub, &["show", &format!("main:mem/{owner}/MEMORY.md")])
            .is_ok_and(|t| t.contains("Staging needs the VPN"))
    };
    while !pushed() {
        assert!(Instant::now() < deadline, "{:?}", c.status(0));
        std::thread::sleep(Duration::from_millis(50));
    }
    c.memdir(0, &["sync"]).expect("a sync by hand");
}
