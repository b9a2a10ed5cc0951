//! Day log benchmark: a recall of an owner whose episodes.md holds 60 MiB
//! of history against the same recall with 60 KiB of history (the
//! baseline), in the same run, alternating the two. Recall needs today's
//! and yesterday's day log only and reads episodes.md from its end, so the
//! ratio stays near 1; parsing the whole 60 MiB file once
//! (`memdir::internals::journal::parse`, what a recall did before) is shown beside.
//!
//! Run with `cargo bench --bench daylog`.

use std::hint::black_box;
use std::time::{Duration, Instant};

use chrono::{Duration as Days, Utc};
use criterion::Criterion;
use memdir::api::types::{Owner, RecallOptions, Store};

/// Sorted history of about `bytes` bytes ending two days ago, then
/// yesterday's and today's sections.
fn journal(bytes: usize) -> String {
    let line = format!(
        "- 09:00 [PIN-7] an old line of the run journal {}\n",
        "o".repeat(160)
    );
    let today = Utc::now().date_naive();
    let mut sections = Vec::new();
    let (mut day, mut size) = (today - Days::days(2), 0);
    while size < bytes {
        let sec = format!("## {day}\n\n{line}{line}\n");
        size += sec.len();
        sections.push(sec);
        day -= Days::days(1);
    }
    let mut out = String::from("# Journal\n\n");
    for sec in sections.iter().rev() {
        out.push_str(sec);
    }
    let yesterday = today - Days::days(1);
    out.push_str(&format!(
        "## {yesterday}\n\n- 17:00 [PIN-1] shipped the importer\n\n## {today}\n\n- 08:00 reviewed the queue\n"
    ));
    out
}

fn owner_with(tmp: &std::path::Path, history: usize) -> (Store, String) {
    let store = Store::open(tmp).expect("open");
    let owner = store.owner("agt_bench").expect("owner");
    owner
        .add(memdir::Scope::Memory, "The importer reads the queue")
        .expect("add");
    let text = journal(history);
    std::fs::write(tmp.join("agt_bench/episodes.md"), &text).expect("journal");
    (store, text)
}

fn recall(owner: &Owner, opts: &RecallOptions) -> usize {
    let r = owner.recall(opts).expect("recall");
    r.day_log.len()
}

fn median(v: &mut [Duration]) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() {
    let (big_dir, small_dir) = (
        tempfile::tempdir().expect("tempdir"),
        tempfile::tempdir().expect("tempdir"),
    );
    let (big, big_text) = owner_with(big_dir.path(), 60 << 20);
    let (small, _) = owner_with(small_dir.path(), 60 << 10);
    let (big, small) = (
        big.owner("agt_bench").expect("owner"),
        small.owner("agt_bench").expect("owner"),
    );
    let opts = RecallOptions::query("importer queue".to_owned());
    assert_eq!(recall(&big, &opts), recall(&small, &opts));
    assert!(recall(&big, &opts) >= 2, "today's and yesterday's lines");

    let mut c = Criterion::default()
        .sample_size(20)
        .measurement_time(Duration::from_secs(5))
        .configure_from_args();
    let mut g = c.benchmark_group("daylog");
    g.bench_function("recall_60_mib_history", |b| {
        b.iter(|| black_box(recall(&big, &opts)))
    });
    g.bench_function("baseline_recall_60_kib_history", |b| {
        b.iter(|| black_box(recall(&small, &opts)))
    });
    g.finish();

    let rounds = 40;
    let (mut b, mut s) = (Vec::new(), Vec::new());
    for _ in 0..rounds {
        let t = Instant::now();
        black_box(recall(&big, &opts));
        b.push(t.elapsed());
        let t = Instant::now();
        black_box(recall(&small, &opts));
        s.push(t.elapsed());
    }
    let t = Instant::now();
    let parsed = memdir::internals::journal::parse(&big_text).sections.len();
    let whole = t.elapsed();
    let (b, s) = (median(&mut b), median(&mut s));
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    println!("\n== day log figures ==");
    println!("recall, 60 MiB of history:           {:>9.2} ms", ms(b));
    println!("recall, 60 KiB of history (baseline): {:>9.2} ms", ms(s));
    println!(
        "ratio 60 MiB / 60 KiB:                 {:>6.2}x",
        b.as_secs_f64() / s.as_secs_f64()
    );
    println!(
        "parsing the whole 60 MiB once ({parsed} sections): {:>9.2} ms",
        ms(whole)
    );
}
