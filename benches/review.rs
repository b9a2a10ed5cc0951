//! The daily review's benchmarks.
//!
//! * `review`: `Owner::review` as a dry run (load, plan, diffs; no write) of
//!   an owner with 300 facts, 8,000 characters of yesterday's day log and
//!   100 SharedMemory results (the evidence of 10 conflict pairs), against
//!   the floor of reading those files and parsing them once (MEMORY.md with
//!   pulldown-cmark, every event; episodes.md with `journal::parse`; each
//!   result file read), measured in the same run, alternating. Target ≤ 10×.
//! * `due`: `Owner::review_due` when none is due, against `Owner::show` of
//!   MEMORY.md (target: as cheap).
//!
//! Run with `cargo bench --bench review`.

use std::hint::black_box;
use std::path::Path;
use std::time::{Duration, Instant};

use chrono::Utc;
use criterion::Criterion;
use memdir::api::types::ReviewOptions;
use memdir::api::types::{Scope, Store};
use pulldown_cmark::{Options, Parser};

const WORDS: &[&str] = &[
    "deploy",
    "staging",
    "cache",
    "runner",
    "ledger",
    "billing",
    "search",
    "export",
    "kafka",
    "postgres",
    "migration",
    "token",
    "gateway",
    "budget",
    "metrics",
    "traces",
    "alerts",
    "frontend",
    "mobile",
    "release",
    "branch",
    "review",
    "schema",
    "warehouse",
    "queue",
];

/// A fact of about 60 characters, distinct for each `i`.
fn fact(i: usize) -> String {
    let w = |k: usize| WORDS[(i * 7 + k * 11 + i / 25) % WORDS.len()];
    format!(
        "The {} {} uses {} {} v{} on host{}",
        w(0),
        w(1),
        w(2),
        w(3),
        i % 97,
        i
    )
}

fn floor(dir: &Path) -> usize {
    let mut n = 0;
    let src = std::fs::read_to_string(dir.join("MEMORY.md")).expect("read");
    for (ev, range) in
        Parser::new_ext(&src, Options::ENABLE_YAML_STYLE_METADATA_BLOCKS).into_offset_iter()
    {
        black_box((&ev, &range));
        n += 1;
    }
    let ep = std::fs::read_to_string(dir.join("episodes.md")).expect("read");
    n += memdir::internals::journal::parse(&ep).sections.len();
    let results = dir.join("results").join("run-bench");
    for e in std::fs::read_dir(&results).expect("results") {
        let p = e.expect("entry").path();
        n += std::fs::read(&p).expect("read").len();
    }
    n
}

fn median(v: &mut [Duration]) -> Duration {
    v.sort();
    v[v.len() / 2]
}

/// Writes the owner's folder `dir`: its settings, 300 facts in MEMORY.md
/// (10 conflict pairs among them), 8,000 characters of yesterday's day log
/// (one line in ten a `fact:`) and today's review line, so that none is
/// due. The size of MEMORY.md and the day log's characters.
fn owner_folder(dir: &Path, now: chrono::DateTime<Utc>) -> (usize, usize) {
    std::fs::create_dir_all(dir).expect("mkdir");
    std::fs::write(
        dir.join("memdir.yaml"),
        "budgets:\n  memory: 20000\nreview: {at: \"04:00\", paused: false}\n",
    )
    .expect("write");
    let mut memory = String::new();
    for i in 0..300 {
        let conflict = if i < 20 {
            format!(" run=run-bench conflict=mem_{:012x}", i / 2)
        } else {
            String::new()
        };
        memory.push_str(&format!(
            "- {} <!-- memdir created=2026-01-01T00:00:00Z expires=2099-01-01T00:00:00Z{conflict} -->\n",
            fact(i)
        ));
    }
    std::fs::write(dir.join("MEMORY.md"), &memory).expect("write");
    let yesterday = (now - chrono::Duration::days(1)).date_naive();
    let mut ep = format!("## {yesterday}\n\n");
    let mut chars = 0;
    let mut i = 0;
    while chars < 8_000 {
        let line = if i % 10 == 0 {
            format!(
                "fact: The {} job now runs at {:02}:00",
                WORDS[i % WORDS.len()],
                i % 24
            )
        } else {
            format!(
                "worked on {} and {} for task {i}",
                WORDS[i % WORDS.len()],
                WORDS[(i + 3) % WORDS.len()]
            )
        };
        chars += line.chars().count();
        ep.push_str(&format!("- 10:{:02} {line} (run run-bench)\n", i % 60));
        i += 1;
    }
    // Today's review line, so that none is due.
    ep.push_str(&format!(
        "\n## {}\n\n- {} review: 0 merged (run review-{}-0123abcd)\n",
        now.date_naive(),
        now.format("%H:%M"),
        now.format("%Y%m%dT%H%M%SZ")
    ));
    std::fs::write(dir.join("episodes.md"), &ep).expect("write");
    (memory.len(), chars)
}

/// Puts 100 results of the run `run-bench` (the conflicts' evidence).
fn put_results(owner: &memdir::Owner) {
    for t in 0..100 {
        let body = format!(
            "result {t}: the {} reads {} on host{t}",
            WORDS[t % WORDS.len()],
            fact(t)
        );
        owner
            .results()
            .put(
                "run-bench",
                &format!("t{t}"),
                body.as_bytes(),
                "text/plain",
                false,
            )
            .expect("put");
    }
}

fn main() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let root = tmp.path();
    let dir = root.join("agt_bench");
    let now = Utc::now();
    let (memory_len, chars) = owner_folder(&dir, now);
    let store = Store::open(root).expect("open");
    let owner = store.owner("agt_bench").expect("owner");
    put_results(&owner);
    let dry = ReviewOptions {
        dry_run: true,
        ..ReviewOptions::default()
    };
    let report = owner.reviews().run(&dry).expect("review");
    assert!(!report.plan.changes.is_empty());
    let due = owner.reviews().due(&ReviewOptions::default()).expect("due");
    assert!(due.ran.is_none(), "none is due");

    let mut c = Criterion::default()
        .sample_size(30)
        .measurement_time(Duration::from_secs(4))
        .configure_from_args();
    let mut g = c.benchmark_group("review");
    g.bench_function("review_dry_run", |b| {
        b.iter(|| black_box(owner.reviews().run(&dry).expect("review")))
    });
    g.bench_function("floor_read_and_parse", |b| {
        b.iter(|| black_box(floor(&dir)))
    });
    g.bench_function("review_due_not_due", |b| {
        b.iter(|| black_box(owner.reviews().due(&ReviewOptions::default()).expect("due")))
    });
    g.bench_function("show", |b| {
        b.iter(|| black_box(owner.show(Scope::Memory).expect("show")))
    });
    g.finish();

    let (mut rv, mut fl, mut du, mut sh) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for i in 0..200 {
        let mut steps: [(&mut Vec<Duration>, &dyn Fn()); 4] = [
            (&mut rv, &|| {
                black_box(owner.reviews().run(&dry).expect("review"));
            }),
            (&mut fl, &|| {
                black_box(floor(&dir));
            }),
            (&mut du, &|| {
                black_box(owner.reviews().due(&ReviewOptions::default()).expect("due"));
            }),
            (&mut sh, &|| {
                black_box(owner.show(Scope::Memory).expect("show"));
            }),
        ];
        if i % 2 == 1 {
            steps.reverse();
        }
        for (v, f) in steps.iter_mut() {
            let t = Instant::now();
            f();
            v.push(t.elapsed());
        }
    }
    let (r, f, d, s) = (
        median(&mut rv),
        median(&mut fl),
        median(&mut du),
        median(&mut sh),
    );
    println!("\n== review figures ==");
    println!(
        "owner: 300 facts ({memory_len} bytes), day log {chars} chars, 100 results; plan: {} changes, {} left",
        report.plan.changes.len(),
        report.plan.unsettled.len()
    );
    println!(
        "review --dry-run median:     {:>9.1} µs",
        r.as_secs_f64() * 1e6
    );
    println!(
        "floor read+parse median:     {:>9.1} µs",
        f.as_secs_f64() * 1e6
    );
    println!(
        "ratio:                       {:>9.2}× (target ≤ 10×)",
        r.as_secs_f64() / f.as_secs_f64()
    );
    println!(
        "review --due (not due):      {:>9.1} µs",
        d.as_secs_f64() * 1e6
    );
    println!(
        "show MEMORY.md:              {:>9.1} µs",
        s.as_secs_f64() * 1e6
    );
    println!(
        "ratio:                       {:>9.2}×",
        d.as_secs_f64() / s.as_secs_f64()
    );
}
