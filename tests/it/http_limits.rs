//! `memdir serve` bounded in time and by one owner's share (docs/API.md,
//! "Time and one owner's share"): a write the deadline cut before it began
//! is never applied later; one owner whose lock another process holds
//! stalls its own calls only (the rest answer as usual, the excess `503
//! busy` with `Retry-After`); a review started over HTTP runs in the
//! background and is polled. Loopback only; every count bounded; the
//! outcomes asserted, with 2 s as the ceiling of a probe, never a tight
//! latency.

use std::sync::mpsc;
use std::time::{Duration, Instant};

use fs2::FileExt;
use serde_json::{Value, json};

use crate::http::{Reply, Server, client, make_key, reply, serve};
use crate::util::{self, Sandbox};

const A: &str = "agt_a";
const B: &str = "agt_b";

fn post(agent: &ureq::Agent, url: &str, key: &str, body: Value) -> Reply {
    reply(
        agent
            .post(url)
            .header("Authorization", format!("Bearer {key}"))
            .send_json(body),
    )
}

fn get(agent: &ureq::Agent, url: &str, key: &str) -> Reply {
    reply(
        agent
            .get(url)
            .header("Authorization", format!("Bearer {key}"))
            .call(),
    )
}

/// Holds `owner`'s lock (`.memdir/lock`) from this process, as another
/// writer would, until dropped.
fn hold_lock(s: &Sandbox, owner: &str) -> std::fs::File {
    let path = s.root.join(owner).join(".memdir/lock");
    let f = std::fs::File::open(&path).expect("the owner's lock file");
    f.lock_exclusive().expect("lock");
    f
}

/// `n` day-line writes of `key`, each from its own thread and connection:
/// their answers on the channel, in the order they come.
fn day_writes(srv: &Server, key: &str, n: usize, tag: &str) -> mpsc::Receiver<Reply> {
    let (tx, rx) = mpsc::channel();
    let url = srv.url("/api/v1/memories/day");
    for i in 0..n {
        let (tx, url, key) = (tx.clone(), url.clone(), key.to_owned());
        let line = format!("{tag} line {i}");
        std::thread::spawn(move || {
            let _ = tx.send(post(&client(60), &url, &key, json!({ "line": line })));
        });
    }
    rx
}

/// A write the deadline cut while it waited for the owner's lock is
/// abandoned, never applied when the lock frees: every write answered 408,
/// and once the lock is released and a later write is in, episodes.md
/// holds none of them.
#[test]
fn a_write_answered_408_is_never_applied() {
    let _alone = util::exclusive();
    const N: usize = 12;
    let s = Sandbox::new();
    let key = make_key(&s, &["--owner", A]);
    let srv = serve(&s, &["--timeout", "1"]);
    let agent = client(60);
    let day = srv.url("/api/v1/memories/day");
    assert_eq!(
        post(&agent, &day, &key, json!({"line": "seed"})).status,
        201
    );
    let lock = hold_lock(&s, A);
    let answers = day_writes(&srv, &key, N, "stalled");
    for _ in 0..N {
        let r = answers
            .recv_timeout(Duration::from_secs(30))
            .expect("an answer");
        assert_eq!(r.status, 408, "{r:?}");
        assert_eq!(r.json()["error"]["code"], "request_timeout", "{r:?}");
    }
    drop(lock);
    // A write after the release: once it is in, whatever was still waiting
    // for the lock has had it.
    let after = post(&agent, &day, &key, json!({"line": "after the release"}));
    assert_eq!(after.status, 201, "{after:?}");
    let episodes = s.read_text(A, "episodes.md");
    assert!(episodes.contains("after the release"), "{episodes}");
    assert!(!episodes.contains("stalled line"), "{episodes}");
}

/// With agt_a's lock held by another process and as many agt_a writes in
/// flight as its share runs and queues, agt_b's snapshot, recall and write
/// answer as usual within 2 s each; agt_a's excess calls are `503 busy`
/// with a `Retry-After`.
#[test]
fn one_stalled_owner_stalls_only_its_own_calls() {
    let _alone = util::exclusive();
    // 32 running and 64 waiting at most (docs/API.md): the rest are busy.
    const N: usize = 120;
    const EXCESS: usize = N - 32 - 64;
    let s = Sandbox::new();
    let ka = make_key(&s, &["--owner", A]);
    let kb = make_key(&s, &["--owner", B]);
    let srv = serve(&s, &["--timeout", "5"]);
    let agent = client(60);
    let day = srv.url("/api/v1/memories/day");
    assert_eq!(post(&agent, &day, &ka, json!({"line": "seed"})).status, 201);
    let remember = srv.url("/v1/memory/remember");
    let b0 = post(&agent, &remember, &kb, json!({"text": "Prefers tea"}));
    assert_eq!(b0.status, 201, "{b0:?}");
    let lock = hold_lock(&s, A);
    let answers = day_writes(&srv, &ka, N, "stalled");
    // The excess answers at once; the others are then in flight.
    let mut seen = Vec::new();
    let start = Instant::now();
    while seen.iter().filter(|r: &&Reply| r.status == 503).count() < EXCESS
        && seen.len() < N
        && let Some(left) = Duration::from_secs(20).checked_sub(start.elapsed())
        && let Ok(r) = answers.recv_timeout(left)
    {
        seen.push(r);
    }
    let busy: Vec<&Reply> = seen.iter().filter(|r| r.status == 503).collect();
    // agt_b's calls while agt_a is stalled.
    let probes = [
        ("GET", "/v1/snapshot", None, 200),
        ("GET", "/v1/memory/recall?q=tea", None, 200),
        (
            "POST",
            "/v1/memory/remember",
            Some(json!({"text": "Prefers green tea"})),
            201,
        ),
    ];
    let (mut slow, mut times) = (Vec::new(), Vec::new());
    for (method, path, body, want) in probes {
        let t = Instant::now();
        let r = match body {
            Some(b) => post(&agent, &srv.url(path), &kb, b),
            None => get(&agent, &srv.url(path), &kb),
        };
        let took = t.elapsed();
        times.push(format!("{method} {path} {took:?}"));
        if r.status != want || took > Duration::from_secs(2) {
            slow.push(format!(
                "{method} {path}: {} in {took:?}: {}",
                r.status, r.body
            ));
        }
    }
    drop(lock);
    assert!(
        slow.is_empty(),
        "agt_b's calls while agt_a stalled: {slow:#?}"
    );
    println!(
        "agt_b's calls while agt_a's lock is held and {N} of its writes are in flight: {times:?}"
    );
    assert_eq!(busy.len(), EXCESS, "{seen:#?}");
    for r in busy {
        assert_eq!(r.json()["error"]["code"], "busy", "{r:?}");
        assert_eq!(r.retry_after.as_deref(), Some("1"), "{r:?}");
    }
    // Every agt_a call answers (a write that had the lock in time, one the
    // deadline cut, or busy), none lost.
    for _ in seen.len()..N {
        let r = answers
            .recv_timeout(Duration::from_secs(30))
            .expect("an answer");
        assert!(matches!(r.status, 201 | 408 | 503), "{r:?}");
    }
}

const SIMILAR: &str = "- The build cache lives on the staging disk <!-- memdir created=2026-01-01T00:00:00Z -->\n\
- The build cache lives on the scratch disk <!-- memdir created=2026-01-02T00:00:00Z -->\n";

/// A review started over HTTP whose reviewer takes 3 s answers 202 with a
/// job at once (within 2 s), and polling the job reaches `done` with the
/// review's answer, after the reviewer ran.
#[test]
fn a_review_over_http_runs_in_the_background_and_is_polled() {
    let s = Sandbox::new();
    s.write(A, "MEMORY.md", SIMILAR);
    let cfg = tempfile::tempdir().unwrap();
    std::fs::write(
        cfg.path().join("config.yaml"),
        "reviewer: \"sleep 3; echo '{\\\"version\\\":1,\\\"proposals\\\":[]}'\"\nreviewer_timeout_secs: 30\n",
    )
    .unwrap();
    let key = make_key(&s, &["--owner", A]);
    let other = make_key(&s, &["--owner", B]);
    let srv = serve(
        &s,
        &[
            "--timeout",
            "2",
            "--config-dir",
            cfg.path().to_str().unwrap(),
        ],
    );
    let agent = client(60);
    let start = Instant::now();
    let r = post(&agent, &srv.url("/api/v1/reviews"), &key, json!({}));
    let took = start.elapsed();
    assert_eq!(r.status, 202, "{r:?}");
    assert!(took < Duration::from_secs(2), "{took:?}");
    let v = r.json();
    assert_eq!(v["status"], "running", "{v}");
    let job = v["job"].as_str().expect("a job id").to_owned();
    let url = srv.url(&format!("/api/v1/reviews/jobs/{job}"));
    // Another caller cannot see it.
    let theirs = get(&agent, &url, &other);
    assert_eq!(theirs.status, 404, "{theirs:?}");
    assert_eq!(theirs.json()["error"]["code"], "review_not_found");
    let done = loop {
        let p = get(&agent, &url, &key);
        assert_eq!(p.status, 200, "{p:?}");
        let v = p.json();
        match v["status"].as_str() {
            Some("running") if start.elapsed() < Duration::from_secs(60) => {
                std::thread::sleep(Duration::from_millis(100));
            }
            _ => break v,
        }
    };
    assert_eq!(done["status"], "done", "{done}");
    assert!(
        start.elapsed() >= Duration::from_secs(3),
        "done before the reviewer ended"
    );
    assert!(
        done["review"]["review_id"]
            .as_str()
            .is_some_and(|id| id.starts_with("review-")),
        "{done}"
    );
}
