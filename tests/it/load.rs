//! Load with real processes: 32 writers of one owner, each running 40
//! `memdir` processes whose operations cannot legitimately fail (adds of
//! unique texts, then replaces, archives and removes of its own earlier
//! entries by id), beside 4 readers running `snapshot` and `recall`, all with
//! the default lock timeout. Nothing may fail and nothing may be lost.
//!
//! Run with `cargo test --test it load -- --nocapture` to see the latencies
//! (docs/RELIABILITY.md records them).

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::util::{Sandbox, run_cmd, store_entries};

const WRITERS: usize = 32;
const OPS: usize = 40;
const READERS: usize = 4;
const OWNER: &str = "team";

/// What one process did: its kind, how long it took, whether it succeeded.
type Sample = (&'static str, Duration, bool, String);

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let i = ((sorted.len() - 1) as f64 * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

#[test]
fn writers_and_readers_under_load_lose_nothing_and_fail_nothing() {
    let _alone = crate::util::exclusive();
    let s = Arc::new(Sandbox::new());
    s.write(
        OWNER,
        "MEMORY.md",
        "---\nbudget: 20000\n---\n# Team notes\n\n",
    );
    let samples: Arc<Mutex<Vec<Sample>>> = Arc::default();
    let done = Arc::new(AtomicBool::new(false));
    let timed = |s: &Sandbox, kind: &'static str, args: &[&str]| -> (Sample, serde_json::Value) {
        let t = Instant::now();
        let r = run_cmd(s.cmd(&[&["--owner", OWNER, "--json"][..], args].concat()));
        let took = t.elapsed();
        let ok = r.success();
        let v = if ok {
            serde_json::from_slice(&r.stdout).unwrap_or_default()
        } else {
            serde_json::Value::Null
        };
        (
            (
                kind,
                took,
                ok,
                format!("{args:?}: {}{}", r.text(), r.stderr),
            ),
            v,
        )
    };
    let readers: Vec<_> = (0..READERS)
        .map(|k| {
            let (s, samples, done) = (Arc::clone(&s), Arc::clone(&samples), Arc::clone(&done));
            std::thread::spawn(move || {
                let mut n = 0;
                while !done.load(Ordering::Relaxed) {
                    let (sample, _) = if (k + n) % 2 == 0 {
                        timed(&s, "snapshot", &["snapshot"])
                    } else {
                        timed(
                            &s,
                            "recall",
                            &["recall", "--query", "fact about the deploy"],
                        )
                    };
                    samples.lock().unwrap().push(sample);
                    n += 1;
                }
            })
        })
        .collect();
    let writers: Vec<_> = (0..WRITERS)
        .map(|w| {
            let (s, samples) = (Arc::clone(&s), Arc::clone(&samples));
            std::thread::spawn(move || {
                // (id, text) of this writer's live entries, oldest first.
                let mut alive: Vec<(String, String)> = Vec::new();
                let mut archived: Vec<String> = Vec::new();
                let mut added = 0;
                for i in 0..OPS {
                    let step = if i < 10 || alive.is_empty() { 3 } else { i % 4 };
                    let (sample, v) = match step {
                        0 => {
                            let (old, text) = alive.remove(0);
                            let new = format!("{text} r");
                            let out = timed(&s, "replace", &["replace", &old, &new]);
                            alive.push((out.1["id"].as_str().unwrap_or("").to_owned(), new));
                            out
                        }
                        1 => {
                            let (old, text) = alive.remove(0);
                            archived.push(text);
                            timed(&s, "archive", &["archive", &old, "--reason", "load test"])
                        }
                        2 => {
                            let (old, _) = alive.remove(0);
                            timed(&s, "remove", &["remove", &old])
                        }
                        _ => {
                            let text = format!("w{w} fact {added}");
                            added += 1;
                            let out = timed(&s, "add", &["add", &text]);
                            alive.push((out.1["id"].as_str().unwrap_or("").to_owned(), text));
                            out
                        }
                    };
                    let _ = v;
                    samples.lock().unwrap().push(sample);
                }
                (alive, archived)
            })
        })
        .collect();
    let mut expect_alive = BTreeSet::new();
    let mut expect_archived = BTreeSet::new();
    for w in writers {
        let (alive, archived) = w.join().unwrap();
        expect_alive.extend(alive.into_iter().map(|(_, t)| t));
        expect_archived.extend(archived);
    }
    done.store(true, Ordering::Relaxed);
    for r in readers {
        r.join().unwrap();
    }
    let samples = samples.lock().unwrap();
    let failed: Vec<&String> = samples.iter().filter(|s| !s.2).map(|s| &s.3).collect();
    assert!(
        failed.is_empty(),
        "{} failed, e.g. {:?}",
        failed.len(),
        &failed[..failed.len().min(3)]
    );
    // Nothing lost, nothing doubled.
    let show = s.json_ok(&["--owner", OWNER, "show", "--in", "memory"]);
    let entries: Vec<String> = store_entries(&show, "memory")
        .into_iter()
        .map(|(_, t)| t)
        .collect();
    let stored: BTreeSet<String> = entries.iter().cloned().collect();
    assert_eq!(stored.len(), entries.len(), "an entry appears twice");
    assert_eq!(stored, expect_alive);
    let archive = s.read_text(OWNER, "archive.md");
    for t in &expect_archived {
        assert!(
            archive.contains(&format!("- {t} ")),
            "{t} was archived, not in archive.md"
        );
    }
    // The figures.
    let mut report = String::new();
    for kind in ["add", "replace", "archive", "remove", "snapshot", "recall"] {
        let mut d: Vec<Duration> = samples
            .iter()
            .filter(|s| s.0 == kind)
            .map(|s| s.1)
            .collect();
        d.sort();
        let (p50, p99) = (percentile(&d, 0.5), percentile(&d, 0.99));
        report.push_str(&format!(
            "  {kind:<8} n={:<5} p50 {:>7.1} ms  p99 {:>7.1} ms  max {:>7.1} ms  p99/p50 {:.1}x\n",
            d.len(),
            p50.as_secs_f64() * 1e3,
            p99.as_secs_f64() * 1e3,
            d.last().copied().unwrap_or_default().as_secs_f64() * 1e3,
            p99.as_secs_f64() / p50.as_secs_f64().max(1e-9),
        ));
    }
    eprintln!(
        "load: {WRITERS} writers x {OPS} ops + {READERS} readers, {} processes, 0 failed, {} entries live, {} archived\n{report}",
        samples.len(),
        stored.len(),
        expect_archived.len()
    );
}
