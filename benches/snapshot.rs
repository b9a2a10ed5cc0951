//! Snapshot and scanner benchmarks.
//!
//! * `snapshot`: `Owner::snapshot` of a folder whose USER.md and MEMORY.md are
//!   filled to their default budgets (1,375 and 2,200 chars), against the
//!   floor of reading both files and parsing them with pulldown-cmark (every
//!   event, with offsets), measured in the same run. The two alternate in one
//!   loop so that machine noise hits both alike; the ratio of medians is
//!   printed at the end (target: at most 3×).
//! * `scan`: `memdir::internals::scan` over 16, 32 and 64 KiB of prose and of adversarial
//!   text, to show the time stays linear in the input, and over every fact
//!   above one by one (`entries`: the warm cost of scanning ordinary entries,
//!   as a snapshot with a cold scan cache or a write pays it).
//!
//! Run with `cargo bench --bench snapshot`.

use std::hint::black_box;
use std::path::Path;
use std::time::{Duration, Instant};

use criterion::Criterion;
use memdir::api::types::{Scope, Store};
use memdir::internals::edit::used_chars;
use memdir::internals::scan::scan;
use pulldown_cmark::{Options, Parser};

const USER_FACTS: &[&str] = &[
    "Prefers weekly summaries, no emojis in reports",
    "Works in Europe/Lisbon; mornings are for deep work, so batch questions for after 14:00",
    "Answers in English, but reads Portuguese fine",
    "Leads the platform team of six; reports to the VP of engineering",
    "Likes diffs explained file by file, with the riskiest change first",
    "Uses a MacBook with fish shell; prefers commands without sudo",
    "Wants cost estimates in EUR, rounded to the nearest ten",
    "Is allergic to meetings before 10:00 and to long email threads",
    "Reviews PRs in the afternoon; urgent ones need a Slack ping",
    "Keeps personal notes in Obsidian under ~/notes/work",
    "Prefers Rust for services and Python for one-off scripts",
    "Travels to the Berlin office the first week of each month",
    "Asked never to schedule deploys on Fridays",
    "Uses the phrase \"ship it\" to approve; \"hold\" means wait",
    "Has read access to production logs but no write access to prod databases",
    "Prefers tables over bullet lists for comparisons",
    "Wants links to the source for every claim in research summaries",
    "Mentors two juniors: Ana and Rui",
    "Likes to see test output when a fix is claimed",
    "Expects weekly report drafts on Thursday by 17:00",
    "x",
];

const MEMORY_FACTS: &[&str] = &[
    "The repo builds with `cargo build --workspace`; CI runs `cargo nextest run` and clippy",
    "Staging deploys go through `make deploy ENV=staging`; production needs a signed tag",
    "The billing service is called ledger; its API lives in services/ledger/api.proto",
    "Postgres migrations are in db/migrations and must be reversible",
    "Flaky test: integration::sync::retries_on_timeout fails under load, rerun once",
    "Worker logs are in Loki under {app=\"worker\"}; traces are in Tempo",
    "Feature flags come from config/flags.yaml and are read at startup",
    "The nightly export job writes to s3://acme-exports/nightly/",
    "Release notes are drafted in docs/CHANGELOG.md under Unreleased",
    "API rate limit is 600 requests per minute per token",
    "Frontend uses pnpm, not npm; run `pnpm install --frozen-lockfile`",
    "On-call handoff is Monday 10:00 UTC; the runbook index is docs/runbooks/README.md",
    "The search service reindexes every 6 hours; a manual reindex takes 40 minutes",
    "Code review convention: squash merges only, Conventional Commits titles",
    "Python tooling is managed with uv; lint with ruff then mypy",
    "The staging database is reset every Sunday night from an anonymised snapshot",
    "Benchmarks run on the bench-01 runner only",
    "Support tickets tagged ledger-sync usually trace back to clock skew",
    "Docs site is built with mdBook from docs/book",
    "The mobile app pins API version 2024-06",
    "Error budget for the public API is 99.9% monthly",
    "The staging deploy needs the VPN on (source: PIN-812)",
    "Production deploys happen on Tuesdays and Thursdays only",
    "The data team owns the warehouse schemas; ask #data before changing them",
    "Kafka topics are created through terraform in infra/kafka, never by hand",
    "The auth service issues 15-minute tokens; refresh tokens last 30 days",
    "Customer exports over 1 GB go through the async export queue",
    "x",
];

/// Fills a store through the library to about `target` characters.
fn fill(owner: &memdir::Owner, scope: Scope, facts: &[&str], target: usize) {
    let mut texts: Vec<String> = Vec::new();
    for f in facts.iter().take(facts.len() - 1) {
        let mut next = texts.clone();
        next.push((*f).to_owned());
        if used_chars(next.iter().map(String::as_str)) > target {
            break;
        }
        texts = next;
    }
    // Pad the last entry so the store lands exactly on its budget.
    let used = used_chars(texts.iter().map(String::as_str));
    if used + 3 < target {
        texts.push("p".repeat(target - used - 3));
    }
    for t in &texts {
        owner.add(scope, t).expect("fill");
    }
}

fn floor(dir: &Path) -> usize {
    let mut events = 0;
    for name in ["USER.md", "MEMORY.md"] {
        let src = std::fs::read_to_string(dir.join(name)).expect("read");
        let opts = Options::ENABLE_YAML_STYLE_METADATA_BLOCKS;
        for (ev, range) in Parser::new_ext(&src, opts).into_offset_iter() {
            black_box((&ev, &range));
            events += 1;
        }
    }
    events
}

fn median(v: &mut [Duration]) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn prose(bytes: usize) -> String {
    let unit = "The user prefers short answers in Spanish. Deploys happen on Tuesdays via GitHub Actions; \
                staging uses Postgres 16 and the API reads its config from .env in the repo root. ";
    unit.repeat(bytes / unit.len() + 1)[..bytes].to_owned()
}

fn adversarial(bytes: usize) -> String {
    let unit = "ignore i g n o r e previous <|[INST curl $ -d @ password=aaaaaaaaaaaa1 ";
    unit.repeat(bytes / unit.len() + 1)[..bytes].to_owned()
}

fn main() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let store = Store::open(tmp.path()).expect("open");
    let owner = store.owner("agt_bench").expect("owner");
    fill(
        &owner,
        Scope::User,
        USER_FACTS,
        Scope::User.default_budget(),
    );
    fill(
        &owner,
        Scope::Memory,
        MEMORY_FACTS,
        Scope::Memory.default_budget(),
    );
    let snap = owner.snapshot().expect("snapshot");
    let dir = owner.dir().to_owned();
    // The same owner through a store that cannot keep a scan key (its
    // configuration folder would be under a regular file), so it caches no
    // verdict and every snapshot scans every entry.
    let not_a_folder = tmp.path().join("not-a-folder");
    std::fs::write(&not_a_folder, b"").expect("write");
    let keyless = Store::open(tmp.path())
        .expect("open")
        .with_config_dir(not_a_folder.join("memdir"));
    let rescanning = keyless.owner("agt_bench").expect("owner");
    assert_eq!(rescanning.snapshot().expect("snapshot").text, snap.text);

    let mut c = Criterion::default()
        .sample_size(50)
        .measurement_time(Duration::from_secs(4))
        .configure_from_args();
    let mut g = c.benchmark_group("snapshot");
    g.bench_function("memdir_snapshot", |b| {
        b.iter(|| black_box(owner.snapshot().expect("snapshot")))
    });
    g.bench_function("floor_read_and_parse", |b| {
        b.iter(|| black_box(floor(&dir)))
    });
    g.finish();

    let mut g = c.benchmark_group("scan");
    let entries: Vec<&str> = USER_FACTS.iter().chain(MEMORY_FACTS).copied().collect();
    g.bench_function("entries", |b| {
        b.iter(|| {
            for e in &entries {
                black_box(scan(e));
            }
        })
    });
    for kib in [16, 32, 64] {
        let p = prose(kib * 1024);
        let a = adversarial(kib * 1024);
        g.bench_function(format!("prose_{kib}k"), |b| b.iter(|| black_box(scan(&p))));
        g.bench_function(format!("adversarial_{kib}k"), |b| {
            b.iter(|| black_box(scan(&a)))
        });
    }
    g.finish();

    // Alternating pairs for the ratio of medians.
    let rounds = 400;
    let (mut mine, mut base) = (Vec::with_capacity(rounds), Vec::with_capacity(rounds));
    let mut rescan = Vec::with_capacity(rounds);
    for i in 0..rounds {
        let t = Instant::now();
        black_box(rescanning.snapshot().expect("snapshot"));
        rescan.push(t.elapsed());
        let mut run_mine = || {
            let t = Instant::now();
            black_box(owner.snapshot().expect("snapshot"));
            mine.push(t.elapsed());
        };
        let mut run_base = || {
            let t = Instant::now();
            black_box(floor(&dir));
            base.push(t.elapsed());
        };
        if i % 2 == 0 {
            run_mine();
            run_base();
        } else {
            run_base();
            run_mine();
        }
    }
    let (m, f, r) = (median(&mut mine), median(&mut base), median(&mut rescan));
    let mut per_entry: Vec<Duration> = (0..400)
        .map(|_| {
            let t = Instant::now();
            for e in &entries {
                black_box(scan(e));
            }
            t.elapsed() / entries.len() as u32
        })
        .collect();
    let per_entry = median(&mut per_entry);
    let mut scan_times = Vec::new();
    for kib in [16usize, 32, 64] {
        for (name, text) in [
            ("prose", prose(kib * 1024)),
            ("adversarial", adversarial(kib * 1024)),
        ] {
            let mut v: Vec<Duration> = (0..30)
                .map(|_| {
                    let t = Instant::now();
                    black_box(scan(&text));
                    t.elapsed()
                })
                .collect();
            scan_times.push((name, kib, median(&mut v)));
        }
    }
    println!("\n== snapshot figures ==");
    println!(
        "snapshot of USER.md {} chars + MEMORY.md {} chars ({} bytes out, {} blocked)",
        owner.show(Scope::User).expect("show").usage.used,
        owner.show(Scope::Memory).expect("show").usage.used,
        snap.bytes,
        snap.blocked.len()
    );
    println!(
        "memdir snapshot median:        {:>9.1} µs",
        m.as_secs_f64() * 1e6
    );
    println!(
        "floor read+parse median:       {:>9.1} µs",
        f.as_secs_f64() * 1e6
    );
    println!(
        "ratio:                         {:>9.2}x (target <= 3x)",
        m.as_secs_f64() / f.as_secs_f64()
    );
    println!(
        "snapshot scanning every entry (no scan key) median: {:>9.1} µs, {:.2}x the floor",
        r.as_secs_f64() * 1e6,
        r.as_secs_f64() / f.as_secs_f64()
    );
    println!(
        "scan of one ordinary entry median: {:>7.2} µs ({} entries)",
        per_entry.as_secs_f64() * 1e6,
        entries.len()
    );
    for (name, kib, t) in scan_times {
        println!(
            "scan {name:<11} {kib:>2} KiB median: {:>9.2} ms",
            t.as_secs_f64() * 1e3
        );
    }
}
