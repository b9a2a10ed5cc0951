//! The HTTP API's overhead over the library call it makes, in one run: a
//! real `memdir serve` (the built binary) on a loopback port, a keep-alive
//! client (one ureq agent: one connection reused), and the same operation
//! through the library.
//!
//! * remember: `POST /v1/memory/remember` of a new fact, against the
//!   library's `Store::open` + `Owner::add` of a new fact (the server opens
//!   the store afresh for every call, by design, so the floor does too).
//!   Each timed add is followed, outside the timing, by the removal of the
//!   fact through the library, so the store stays at its size.
//! * recall: `GET /v1/memory/recall?q=deploy`, against `Store::open` +
//!   `api::execute(Request::RecallEntries)` (what the route runs, without HTTP,
//!   the key check and JSON).
//! * `*_kept`: the library with one `Store` kept across calls (an embedded
//!   user's way, with its parse cache), for reference.
//! * healthz: `GET /healthz` (no key, no store): the loopback round trip
//!   and the framework alone, the floor under the routes' overhead.
//!
//! After criterion, a timed loop of 64 threads, each with its own
//! keep-alive connection, calls recall for a few seconds and prints the
//! requests per second; then the figures block (ratio for remember, added
//! µs for recall, medians of paired rounds).
//!
//! `cargo bench --bench http` (docs/PERFORMANCE.md).

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use criterion::Criterion;
use memdir::api::Who;
use memdir::api::types::{Caller, Scope, Store};
use memdir::api::{Request, Response};
use serde_json::{Value, json};

const BIN: &str = env!("CARGO_BIN_EXE_memdir");

/// The One API's recall through the library's one door: how many entries.
fn recall_entries(store: &Store) -> usize {
    let request = Request::RecallEntries {
        query: Some("deploy".into()),
        limit: None,
    };
    match &*memdir::api::execute(store, &who(), request).expect("recall") {
        Response::Entries(e) => e.len(),
        _ => 0,
    }
}
const OWNER: &str = "agt_bench";
const CLIENTS: usize = 64;
const LOAD_SECS: u64 = 3;

/// A running `memdir serve`, killed when dropped.
struct Server {
    child: Child,
    base: String,
    key: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start(root: &Path, conf: &Path) -> Server {
    let keys = conf.join("keys.yaml");
    let out = Command::new(BIN)
        .args(["--root"])
        .arg(root)
        .args(["--owner", OWNER, "--json", "key", "create", "--keys"])
        .arg(&keys)
        .output()
        .expect("key create");
    assert!(out.status.success(), "key create: {out:?}");
    let v: Value = serde_json::from_slice(&out.stdout).expect("key json");
    let key = v["key"].as_str().expect("a key").to_owned();
    let mut child = Command::new(BIN)
        .arg("--root")
        .arg(root)
        .args(["serve", "--listen", "127.0.0.1:0", "--keys"])
        .arg(&keys)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn memdir serve");
    let mut lines = BufReader::new(child.stderr.take().expect("stderr")).lines();
    let base = loop {
        let line = lines.next().expect("memdir serve ended").expect("a line");
        if let Some(rest) = line.split("listening on ").nth(1) {
            break rest
                .split_whitespace()
                .next()
                .expect("an address")
                .to_owned();
        }
    };
    std::thread::spawn(move || for _ in lines {});
    Server { child, base, key }
}

fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(30)))
        .build()
        .into()
}

fn who() -> Who {
    Who {
        caller: Caller::Agent(OWNER.into()),
        named: None,
        raw: false,
    }
}

/// The bench's calls, each one operation, timed by the caller.
struct Calls {
    root: std::path::PathBuf,
    srv: Server,
    http: ureq::Agent,
    kept: Store,
    n: AtomicU64,
}

impl Calls {
    fn text(&self) -> String {
        let n = self.n.fetch_add(1, Ordering::Relaxed);
        format!("Bench fact number {n}: the deploy window is Tuesday")
    }

    /// Removes the fact `text` through the library (untimed).
    fn forget(&self, text: &str) {
        self.kept
            .owner(OWNER)
            .expect("owner")
            .remove(Scope::Memory, text)
            .expect("remove");
    }

    fn remember_http(&self, text: &str) {
        let r = self
            .http
            .post(format!("{}/v1/memory/remember", self.srv.base))
            .header("Authorization", format!("Bearer {}", self.srv.key))
            .send_json(json!({"text": text, "scope": "memory"}))
            .expect("remember");
        assert_eq!(r.status().as_u16(), 201);
        let _ = r.into_body().read_to_string();
    }

    fn remember_lib(&self, text: &str) {
        let store = Store::open(&self.root).expect("open");
        store
            .owner(OWNER)
            .expect("owner")
            .add(Scope::Memory, text)
            .expect("add");
    }

    fn remember_kept(&self, text: &str) {
        self.kept
            .owner(OWNER)
            .expect("owner")
            .add(Scope::Memory, text)
            .expect("add");
    }

    fn recall_http(&self, http: &ureq::Agent) -> usize {
        let mut r = http
            .get(format!("{}/v1/memory/recall?q=deploy", self.srv.base))
            .header("Authorization", format!("Bearer {}", self.srv.key))
            .call()
            .expect("recall");
        assert_eq!(r.status().as_u16(), 200);
        r.body_mut().read_to_string().expect("body").len()
    }

    /// `GET /healthz`: no key, no store: the loopback round trip and the
    /// server's framework alone, the floor under every route.
    fn healthz_http(&self) -> usize {
        let mut r = self
            .http
            .get(format!("{}/healthz", self.srv.base))
            .call()
            .expect("healthz");
        assert_eq!(r.status().as_u16(), 200);
        r.body_mut().read_to_string().expect("body").len()
    }

    fn recall_lib(&self) -> usize {
        let store = Store::open(&self.root).expect("open");
        recall_entries(&store)
    }

    fn recall_kept(&self) -> usize {
        recall_entries(&self.kept)
    }
}

/// Times `iters` writes of `write`, each followed (untimed) by the fact's
/// removal.
fn timed_writes(c: &Calls, iters: u64, write: impl Fn(&Calls, &str)) -> Duration {
    let mut total = Duration::ZERO;
    for _ in 0..iters {
        let text = c.text();
        let t = Instant::now();
        write(c, &text);
        total += t.elapsed();
        c.forget(&text);
    }
    total
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Requests per second of recall with `CLIENTS` threads, each on its own
/// keep-alive connection, for `LOAD_SECS`.
fn load(c: &Arc<Calls>) -> (f64, u64) {
    let stop = Arc::new(AtomicBool::new(false));
    let done = Arc::new(AtomicU64::new(0));
    let start = Arc::new(std::sync::Barrier::new(CLIENTS + 1));
    let mut threads = Vec::new();
    for _ in 0..CLIENTS {
        let (c, stop, done, start) = (c.clone(), stop.clone(), done.clone(), start.clone());
        threads.push(std::thread::spawn(move || {
            let http = agent();
            c.recall_http(&http); // connect before the clock starts
            start.wait();
            while !stop.load(Ordering::Relaxed) {
                c.recall_http(&http);
                done.fetch_add(1, Ordering::Relaxed);
            }
        }));
    }
    start.wait();
    let t = Instant::now();
    std::thread::sleep(Duration::from_secs(LOAD_SECS));
    stop.store(true, Ordering::Relaxed);
    let n = done.load(Ordering::Relaxed);
    let secs = t.elapsed().as_secs_f64();
    for th in threads {
        th.join().expect("client");
    }
    (n as f64 / secs, n)
}

fn main() {
    let tmp = tempfile::tempdir().expect("tmp");
    let root = tmp.path().join("root");
    let conf = tmp.path().join("conf");
    std::fs::create_dir_all(&root).expect("root");
    let kept = Store::open(&root).expect("open");
    let owner = kept.owner(OWNER).expect("owner");
    for i in 0..20 {
        let text = if i % 4 == 0 {
            format!("Deploy note {i}: staging deploys need the VPN")
        } else {
            format!("Fact {i}: the weekly report goes out on Friday")
        };
        owner.add(Scope::Memory, &text).expect("seed");
    }
    let srv = start(&root, &conf);
    let calls = Arc::new(Calls {
        root: root.clone(),
        srv,
        http: agent(),
        kept,
        n: AtomicU64::new(0),
    });
    // Both sides answer the same entries.
    assert_eq!(calls.recall_lib(), calls.recall_kept());
    calls.recall_http(&calls.http);

    let mut crit = Criterion::default().configure_from_args();
    {
        let mut g = crit.benchmark_group("http");
        // A remember is an fsync or more: fewer, longer samples.
        g.sample_size(20);
        let c = &calls;
        g.bench_function("remember_http", |b| {
            b.iter_custom(|n| timed_writes(c, n, Calls::remember_http));
        });
        g.bench_function("remember_lib", |b| {
            b.iter_custom(|n| timed_writes(c, n, Calls::remember_lib));
        });
        g.bench_function("remember_lib_kept", |b| {
            b.iter_custom(|n| timed_writes(c, n, Calls::remember_kept));
        });
        g.bench_function("recall_http", |b| b.iter(|| c.recall_http(&c.http)));
        g.bench_function("recall_lib", |b| b.iter(|| c.recall_lib()));
        g.bench_function("recall_lib_kept", |b| b.iter(|| c.recall_kept()));
        g.bench_function("healthz_http", |b| b.iter(|| c.healthz_http()));
        g.finish();
    }
    crit.final_summary();

    // Paired rounds: one batch of each, back to back, so both sides of a
    // ratio see the same machine load.
    let rounds = 15;
    let per = 20u64;
    let (mut rem_http, mut rem_lib, mut rec_http, mut rec_lib) = (vec![], vec![], vec![], vec![]);
    let mut health = vec![];
    let us = |d: Duration, n: u64| d.as_secs_f64() * 1e6 / n as f64;
    for _ in 0..rounds {
        rem_http.push(us(timed_writes(&calls, per, Calls::remember_http), per));
        rem_lib.push(us(timed_writes(&calls, per, Calls::remember_lib), per));
        let t = Instant::now();
        for _ in 0..per {
            calls.recall_http(&calls.http);
        }
        rec_http.push(us(t.elapsed(), per));
        let t = Instant::now();
        for _ in 0..per {
            calls.recall_lib();
        }
        rec_lib.push(us(t.elapsed(), per));
        let t = Instant::now();
        for _ in 0..per {
            calls.healthz_http();
        }
        health.push(us(t.elapsed(), per));
    }
    let (rh, rl) = (median(&mut rem_http), median(&mut rem_lib));
    let (ch, cl) = (median(&mut rec_http), median(&mut rec_lib));
    let hz = median(&mut health);
    let (rps, n) = load(&calls);
    let mut r = String::new();
    r.push_str(&format!(
        "figures (medians of {rounds} paired rounds of {per} calls):\n"
    ));
    r.push_str(&format!(
        "  remember: http {rh:.0} µs, library {rl:.0} µs: {:.2}x (target <= 1.3x)\n",
        rh / rl
    ));
    r.push_str(&format!(
        "  recall:   http {ch:.0} µs, library {cl:.0} µs: +{:.0} µs (target <= 100 µs)\n",
        ch - cl
    ));
    r.push_str(&format!(
        "  healthz:  http {hz:.0} µs (the round trip alone: no key, no store)\n"
    ));
    r.push_str(&format!(
        "  recall at {CLIENTS} keep-alive connections: {rps:.0} requests/s ({n} in {LOAD_SECS} s)\n"
    ));
    print!("{r}");
}
