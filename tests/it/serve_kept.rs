//! `memdir serve` under load keeps what it parsed between calls and writes
//! in groups: concurrent writes of one owner answered in fewer groups than
//! writes; no acknowledged write lost to SIGKILL in the middle of a group;
//! recall counts written behind but never lost on a clean stop; and what it
//! keeps never makes an answer stale (a hand edit of a store, of
//! `memdir.yaml` and of the keys file are seen by the next call).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use serde_json::json;

use crate::http::{make_key, serve};
use crate::util::Sandbox;

const OWNER: &str = "agt_group";

/// A store that stays full: 20,000 characters under `curation: auto`, so a
/// save also archives (as the benchmark's workload).
fn full_store(s: &Sandbox) -> String {
    s.write(
        OWNER,
        "memdir.yaml",
        "budgets:\n  memory: 20000\ncuration: auto\n",
    );
    make_key(s, &["--owner", OWNER])
}

/// The `(writes, groups)` the server's log line at a clean stop reports.
fn group_counts(line: &str) -> (u64, u64) {
    let words: Vec<&str> = line.split_whitespace().collect();
    let at = |w: &str| {
        words
            .iter()
            .position(|x| *x == w)
            .and_then(|i| words.get(i.checked_sub(1)?))
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("no count before {w:?} in {line:?}"))
    };
    (at("writes"), at("groups"))
}

/// Every text saved is in MEMORY.md or archive.md (curation archives the
/// oldest), exactly once in all.
fn assert_kept(s: &Sandbox, acked: &[String]) {
    let memory = s.read_plain(OWNER, "MEMORY.md");
    // Nothing archived yet when the store never filled.
    let archive = crate::util::strip_meta(&s.read_or_empty(OWNER, "archive.md"));
    for text in acked {
        let n = memory.matches(text.as_str()).count() + archive.matches(text.as_str()).count();
        assert_eq!(n, 1, "{text:?} acknowledged, found {n} times");
    }
}

#[test]
fn concurrent_writes_of_one_owner_are_written_in_groups_and_none_is_lost() {
    let _x = crate::util::exclusive();
    let s = Sandbox::new();
    let key = full_store(&s);
    let srv = Arc::new(serve(&s, &[]));
    let clients: Vec<_> = (0..32)
        .map(|c| {
            let (srv, key) = (srv.clone(), key.clone());
            std::thread::spawn(move || {
                (0..20)
                    .map(|n| {
                        let text = format!("Grouped fact {c}-{n}: the runbook names step {n}");
                        let r = srv.post(Some(&key), "/v1/memory/remember", json!({"text": text}));
                        assert_eq!(r.status, 201, "{r:?}");
                        text
                    })
                    .collect::<Vec<_>>()
            })
        })
        .collect();
    let acked: Vec<String> = clients
        .into_iter()
        .flat_map(|h| h.join().expect("client"))
        .collect();
    rustix::process::kill_process(
        rustix::process::Pid::from_raw(srv.pid() as i32).expect("a pid"),
        rustix::process::Signal::TERM,
    )
    .expect("SIGTERM");
    let (writes, groups) = group_counts(&srv.wait_line("writes answered in"));
    assert_eq!(
        writes,
        acked.len() as u64,
        "every save went through a group"
    );
    assert!(
        groups < writes,
        "{writes} concurrent writes in {groups} groups: none shared a group"
    );
    assert_kept(&s, &acked);
}

#[test]
fn sigkill_in_the_middle_of_groups_loses_no_acknowledged_write() {
    let _x = crate::util::exclusive();
    let s = Sandbox::new();
    let key = full_store(&s);
    let srv = Arc::new(serve(&s, &[]));
    let acked = Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
    let killed = Arc::new(AtomicBool::new(false));
    let clients: Vec<_> = (0..32)
        .map(|c| {
            let (srv, key, acked, killed) =
                (srv.clone(), key.clone(), acked.clone(), killed.clone());
            std::thread::spawn(move || {
                let agent: ureq::Agent = ureq::Agent::config_builder()
                    .http_status_as_error(false)
                    .timeout_global(Some(std::time::Duration::from_secs(30)))
                    .build()
                    .into();
                let mut n = 0;
                while !killed.load(Ordering::SeqCst) {
                    let text = format!("Killed fact {c}-{n}: the cache warms in {n} minutes");
                    n += 1;
                    let r = agent
                        .post(srv.url("/v1/memory/remember"))
                        .header("Authorization", format!("Bearer {key}"))
                        .send_json(json!({"text": text}));
                    // Only a 201 is an acknowledgement; a connection the
                    // kill cut acknowledged nothing.
                    if let Ok(r) = r
                        && r.status().as_u16() == 201
                    {
                        acked.lock().unwrap().push(text);
                    }
                }
            })
        })
        .collect();
    // Killed once writes are flowing: after 200 acknowledgements.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while acked.lock().unwrap().len() < 200 {
        assert!(
            std::time::Instant::now() < deadline,
            "no writes acknowledged"
        );
        std::thread::yield_now();
    }
    rustix::process::kill_process(
        rustix::process::Pid::from_raw(srv.pid() as i32).expect("a pid"),
        rustix::process::Signal::KILL,
    )
    .expect("SIGKILL");
    killed.store(true, Ordering::SeqCst);
    for h in clients {
        h.join().expect("client");
    }
    let acked = acked.lock().unwrap().clone();
    assert!(acked.len() >= 200);
    assert_kept(&s, &acked);
    // The store is whole: `check` finds no error.
    let check = s.run(&["--owner", OWNER, "--json", "check"]);
    assert!(check.success(), "{check:?}");
}

#[test]
fn recall_counts_are_written_behind_and_kept_by_a_clean_stop() {
    let _x = crate::util::exclusive();
    let s = Sandbox::new();
    let key = make_key(&s, &["--owner", OWNER]);
    s.run(&["--owner", OWNER, "add", "The staging deploy needs the VPN"])
        .ok();
    let srv = serve(&s, &[]);
    for _ in 0..25 {
        let r = srv.post(
            Some(&key),
            "/api/v1/memories/recall",
            json!({"query": "staging deploy"}),
        );
        assert_eq!(r.status, 200, "{r:?}");
    }
    rustix::process::kill_process(
        rustix::process::Pid::from_raw(srv.pid() as i32).expect("a pid"),
        rustix::process::Signal::TERM,
    )
    .expect("SIGTERM");
    srv.wait_line("memdir serve: stopped");
    let rows = s.run(&["--owner", OWNER, "--json", "list"]).ok().json();
    let rows = rows["rows"].as_array().cloned().unwrap_or_default();
    let counted: Vec<u64> = rows
        .iter()
        .filter_map(|r| r["recall_count"].as_u64())
        .collect();
    assert_eq!(counted, vec![25], "{rows:?}");
}

#[test]
fn what_the_server_keeps_never_makes_an_answer_stale() {
    let _x = crate::util::exclusive();
    let s = Sandbox::new();
    let key = make_key(&s, &["--owner", OWNER]);
    s.run(&["--owner", OWNER, "add", "The staging deploy needs the VPN"])
        .ok();
    let srv = serve(&s, &[]);
    let recall = |q: &str| {
        let r = srv.get(Some(&key), &format!("/v1/memory/recall?q={q}"));
        assert_eq!(r.status, 200, "{r:?}");
        r.body
    };
    assert!(recall("staging").contains("needs the VPN"));
    // A person's hand edit of the same length, at once: the next call reads it.
    let memory = s.read_plain(OWNER, "MEMORY.md");
    s.write(
        OWNER,
        "MEMORY.md",
        memory.replace("needs the VPN", "needs the LAN"),
    );
    let after = recall("staging");
    assert!(
        after.contains("needs the LAN") && !after.contains("needs the VPN"),
        "{after}"
    );
    // memdir.yaml: a budget lowered by hand counts for the next write.
    s.write(OWNER, "memdir.yaml", "budgets:\n  memory: 500\n");
    let long = "x".repeat(480);
    let r = srv.post(
        Some(&key),
        "/v1/memory/remember",
        json!({"text": format!("Long note {long}")}),
    );
    assert_eq!(r.status, 409, "{r:?}");
    // The keys file: the key revoked by a command is refused at once.
    s.run(&[
        "key",
        "revoke",
        "--keys",
        crate::http::keys_file(&s).to_str().unwrap(),
        &key_id(&s),
    ])
    .ok();
    let r = srv.get(Some(&key), "/v1/memory/recall?q=staging");
    assert_eq!(r.status, 401, "{r:?}");
}

/// The id of the one key in the sandbox's keys file.
fn key_id(s: &Sandbox) -> String {
    let text = std::fs::read_to_string(crate::http::keys_file(s)).expect("keys file");
    text.lines()
        .find_map(|l| {
            l.trim()
                .strip_prefix("- id: ")
                .or(l.trim().strip_prefix("id: "))
        })
        .expect("a key id")
        .trim()
        .to_owned()
}
