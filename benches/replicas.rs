//! Replicas through a git remote (docs/SCALING.md): how long three
//! `memdir serve --sync` replicas take to converge, against their sync
//! period, and how soon one replica's clone holds another's writes.
//!
//! For each period (1, 2 and 4 s, or the seconds `MEMDIR_PERIODS` lists,
//! comma-separated) and each run (`MEMDIR_RUNS`, default 2): a fresh
//! cluster (a bare hub behind `git daemon` on loopback, three clones, a
//! server on each, two owners homed on each replica, one keys file); one
//! writer per owner on its home, a write every 150 ms for three periods;
//! then the time from the last acknowledged write until the three roots
//! are byte-identical, and that time over the period. Meanwhile a watcher
//! notes when each acknowledged write first appears in each other
//! replica's clone (what a person's cross-owner read there, or the
//! dashboard, shows). Pushes retried are the servers' own count
//! (`GET /v1/sync`). Not a timed test: it prints a table.
//!
//! `cargo bench -p memdir --bench replicas`

#[path = "../tests/it/replicas/cluster.rs"]
mod cluster;

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use cluster::{Cluster, word};

/// Each acknowledged write, by owner and text: its home and when.
type Acked = Mutex<HashMap<(String, String), (usize, Instant)>>;

/// The gap between two writes of one writer.
const GAP: Duration = Duration::from_millis(150);

/// What one run measured.
struct Figures {
    writes: usize,
    converged: Option<Duration>,
    /// Each write's delay until each other replica's clone held it.
    seen: Vec<Duration>,
    pushes_retried: u64,
    syncs: u64,
}

fn run(period: Duration) -> Figures {
    let c = Cluster::new(3, 2, period, &[]);
    for i in 0..3 {
        c.start(i);
    }
    let deadline = Instant::now() + Duration::from_secs(120);
    assert!(
        c.wait_status(deadline, |_, v| v["state"] == "ok"),
        "the first syncs"
    );
    let writing = 3 * period;
    // (owner, text) → (home, acknowledged at)
    let acked: Acked = Mutex::default();
    let seen: Mutex<Vec<Duration>> = Mutex::default();
    let done = std::sync::atomic::AtomicBool::new(false);
    std::thread::scope(|s| {
        let watcher = s.spawn(|| watch(&c, &acked, &seen, &done));
        let writers: Vec<_> = c
            .owners
            .iter()
            .enumerate()
            .map(|(n, (owner, home, _))| {
                let (c, acked) = (&c, &acked);
                s.spawn(move || {
                    let start = Instant::now();
                    let mut k = 0;
                    while start.elapsed() < writing {
                        let text = format!("{owner} keeps note {}", word(k * 11 + n));
                        let status = c.remember(owner, &text, deadline);
                        assert!(status == 201 || status == 200, "{status}");
                        acked
                            .lock()
                            .expect("acked")
                            .insert((owner.clone(), text), (*home, Instant::now()));
                        k += 1;
                        std::thread::sleep(GAP);
                    }
                })
            })
            .collect();
        for w in writers {
            w.join().expect("a writer");
        }
        let last = Instant::now();
        let converged = c.wait_converged(last, last + 20 * period + Duration::from_secs(30));
        done.store(true, std::sync::atomic::Ordering::SeqCst);
        watcher.join().expect("the watcher");
        let statuses: Vec<_> = (0..3).filter_map(|i| c.status(i)).collect();
        Figures {
            writes: acked.lock().expect("acked").len(),
            converged,
            seen: seen.lock().expect("seen").clone(),
            pushes_retried: statuses
                .iter()
                .filter_map(|v| v["pushes_retried"].as_u64())
                .sum(),
            syncs: statuses.iter().filter_map(|v| v["syncs"].as_u64()).sum(),
        }
    })
}

/// Notes, every 20 ms, which acknowledged writes each other replica's
/// clone holds now, until `done` and every write was seen everywhere.
fn watch(
    c: &Cluster,
    acked: &Acked,
    seen: &Mutex<Vec<Duration>>,
    done: &std::sync::atomic::AtomicBool,
) {
    let mut found: std::collections::HashSet<(String, String, usize)> = Default::default();
    loop {
        let pending: Vec<((String, String), (usize, Instant))> = acked
            .lock()
            .expect("acked")
            .iter()
            .map(|(k, v)| (k.clone(), *v))
            .collect();
        let mut left = 0;
        for i in 0..3 {
            let mut files: HashMap<String, String> = HashMap::new();
            for ((owner, text), (home, at)) in &pending {
                if *home == i || found.contains(&(owner.clone(), text.clone(), i)) {
                    continue;
                }
                let memory = files.entry(owner.clone()).or_insert_with(|| {
                    std::fs::read_to_string(c.nodes[i].root().join(owner).join("MEMORY.md"))
                        .unwrap_or_default()
                });
                if memory.contains(text.as_str()) {
                    found.insert((owner.clone(), text.clone(), i));
                    seen.lock().expect("seen").push(at.elapsed());
                } else {
                    left += 1;
                }
            }
        }
        if done.load(std::sync::atomic::Ordering::SeqCst) && left == 0 {
            return;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The `q` quantile of `xs` (sorted here).
fn quantile(xs: &mut [Duration], q: f64) -> Duration {
    xs.sort();
    if xs.is_empty() {
        return Duration::ZERO;
    }
    let i = ((xs.len() - 1) as f64 * q).round() as usize;
    xs[i]
}

fn main() {
    // `cargo bench` passes `--bench`; any filter is ignored.
    if !cluster::have_daemon() {
        eprintln!("replicas: no `git daemon` on this machine; nothing measured");
        return;
    }
    let periods: Vec<u64> = std::env::var("MEMDIR_PERIODS")
        .ok()
        .map(|v| v.split(',').filter_map(|p| p.trim().parse().ok()).collect())
        .unwrap_or_else(|| vec![1, 2, 4]);
    let runs: usize = std::env::var("MEMDIR_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2);
    println!(
        "period | run | writes | converged after the last write | ÷ period | \
         another clone holds a write: median / p95 / max (÷ period) | syncs | pushes retried"
    );
    for p in periods {
        let period = Duration::from_secs(p.max(1));
        for r in 1..=runs {
            let mut f = run(period);
            let ps = period.as_secs_f64();
            let conv = f.converged.map_or("none".to_owned(), |d| {
                format!("{:.2} s | {:.2}", d.as_secs_f64(), d.as_secs_f64() / ps)
            });
            let (med, p95, max) = (
                quantile(&mut f.seen, 0.5),
                quantile(&mut f.seen, 0.95),
                quantile(&mut f.seen, 1.0),
            );
            println!(
                "{p} s | {r} | {} | {conv} | {:.2} / {:.2} / {:.2} s ({:.2} / {:.2} / {:.2}) | {} | {}",
                f.writes,
                med.as_secs_f64(),
                p95.as_secs_f64(),
                max.as_secs_f64(),
                med.as_secs_f64() / ps,
                p95.as_secs_f64() / ps,
                max.as_secs_f64() / ps,
                f.syncs,
                f.pushes_retried
            );
        }
    }
}
