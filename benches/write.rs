//! Write benchmarks: memdir against the floor of a durable write, measured in
//! the same run with the two alternating, so disk noise hits both alike.
//!
//! * `write_library`: one durable `Owner::add` then `Owner::remove` on a
//!   MEMORY.md at 90% of its budget (1,980 of 2,200 chars), against two
//!   durable atomic writes (temp file in the same folder, `sync_all`, rename
//!   over the target, fsync the folder) of the two file states memdir wrote.
//! * `write_process`: one `memdir add` process (the real binary) against one
//!   `examples/floor_write` process, which takes the same fs2 lock, reads the
//!   file, appends the same entry line and does the same durable write.
//!
//! Every iteration runs both sides, in alternating order (memdir first on even
//! iterations, the floor first on odd ones), and records the pair; the two
//! criterion functions of a group differ only in which side of the pair they
//! hand to criterion. memdir stamps each entry with a metadata comment
//! (`created=…`), so the floor writes the bytes memdir wrote last: on
//! memdir-first iterations the very bytes of this iteration, on floor-first
//! ones those of the iteration before (same length, a different entry).
//!
//! After criterion, a few untimed-by-criterion probes say where memdir's time
//! goes (the same pairs on tmpfs, where a sync costs nothing; a parse; a scan;
//! the first scan of a process; a bare `memdir --version` process), and the
//! figures (medians, ratios) are printed in one block at the end.
//!
//! Run with `cargo bench --bench write` (the bench builds `examples/floor_write`
//! first).
//! `MEMDIR_BENCH_DIR` puts the scratch folders somewhere other than the
//! system temp folder (they must be on the disk to measure); `MEMDIR_BENCH_TMPFS`
//! names the tmpfs folder for the disk-free probe (default `/dev/shm`).

use std::cell::{Cell, RefCell};
use std::fs::{self, File, OpenOptions};
use std::hint::black_box;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use criterion::{Criterion, SamplingMode};
use memdir::api::types::{Owner, Scope, Store};
use memdir::internals::edit::used_chars;

/// Characters of MEMORY.md in use before each measured write: 90% of 2,200.
const FILL_CHARS: usize = 1_980;
const BUDGET: usize = 2_200;
/// memdir's own work per library operation (the tmpfs pair, less the
/// floor's, halved), in parses of the same file (issue 10). The library's
/// disk pair has no target of its own: a slow sync flatters it.
const OWN_WORK_TARGET: f64 = 1.5;
const OWNER: &str = "agt_bench";
/// Iterations of each untimed-by-criterion probe.
const PROBE_ITERS: usize = 200;
/// Rounds (a pair, five parses) of the own-work probe on tmpfs.
const OWN_WORK_ITERS: usize = 1_000;

/// What an agent keeps in MEMORY.md: the entries the file is filled with.
const NOTES: &[&str] = &[
    "The repo builds with `cargo build --workspace`; CI runs `cargo nextest run` and `cargo clippy -- -D warnings`",
    "Staging deploys go through `make deploy ENV=staging`; production needs a signed tag and two approvals",
    "The user's team calls the billing service \"ledger\"; its API lives in services/ledger/api.proto",
    "Postgres migrations are in db/migrations and must be reversible; never edit one that has shipped",
    "Flaky test: integration::sync::retries_on_timeout fails under load, rerun once before investigating",
    "Logs for the worker fleet are in Loki under {app=\"worker\"}; traces are in Tempo, 7-day retention",
    "Feature flags come from config/flags.yaml and are read at startup, so a flag change needs a restart",
    "The nightly export job writes to s3://acme-exports/nightly/ and alerts #data-oncall when it fails",
    "Release notes are drafted in docs/CHANGELOG.md under Unreleased; the release script moves them",
    "API rate limit is 600 requests per minute per token; the client backs off on 429 with jitter",
    "Frontend uses pnpm, not npm; run `pnpm install --frozen-lockfile` or the lockfile check fails in CI",
    "Secrets are in 1Password vault \"platform\"; never write them to .env files in the repo",
    "On-call handoff is Monday 10:00 UTC; the runbook index is docs/runbooks/README.md",
    "The search service reindexes every 6 hours; a manual reindex is `just reindex --full` and takes 40 min",
    "Code review convention: squash merges only, PR titles follow Conventional Commits",
    "Python tooling is managed with uv; the lint step is `uv run ruff check` followed by `uv run mypy src`",
    "The staging database is reset every Sunday night from an anonymised production snapshot",
    "Benchmarks run on the bench-01 runner only; numbers from laptops are not comparable",
    "Support tickets tagged \"ledger-sync\" usually trace back to clock skew on the partner's side",
    "Docs site is built with mdBook from docs/book; `mdbook serve docs/book` previews it on port 3000",
    "The mobile app pins API version 2024-06; breaking changes need a new dated version",
    "Error budget for the public API is 99.9% monthly; the SLO dashboard is in Grafana under \"API SLOs\"",
];

/// Padding for the last entry, cut to the length that brings the file to
/// exactly [`FILL_CHARS`].
const PADDING: &str = "Open question for the user: should the weekly report include archived projects, \
drafts older than ninety days and the per-team breakdown of incident counts, or only the summary table";

/// A new entry for iteration `i`: realistic, about 90 chars, never repeated.
fn entry_text(i: u64) -> String {
    match i % 4 {
        0 => format!(
            "Deploy note {i}: staging needs AWS_PROFILE=staging and `make release` from a clean tree"
        ),
        1 => format!(
            "Incident {i} follow-up: the queue consumer must ack only after the write is durable"
        ),
        2 => format!(
            "User preference {i}: summaries as short bullet lists, links to PRs rather than diffs"
        ),
        _ => format!(
            "Build tip {i}: clear target/ when the linker runs out of space on the CI runner"
        ),
    }
}

fn main() {
    // First, before anything else in this process scans text: the cost of the
    // first scan, which builds the scanner's pattern table (once per process).
    let t = Instant::now();
    black_box(memdir::internals::scan::scan(&entry_text(0)));
    let first_scan = t.elapsed();
    let load_before = loadavg();

    let mut c = Criterion::default()
        .sample_size(20)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(10))
        .without_plots()
        .configure_from_args();
    let library = library(&mut c);
    let bins_dir = scratch(None);
    let bins = Bins::copy_into(bins_dir.path());
    let process = process(&mut c, &bins);
    c.final_summary();
    let parts = if library.pairs.is_empty() && process.pairs.is_empty() {
        None
    } else {
        Some(parts(first_scan, &bins))
    };
    report(&library, &process, parts.as_ref(), (load_before, loadavg()));
}

/// The 1, 5 and 15 minute load averages, to judge how busy the machine was.
fn loadavg() -> String {
    fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "?".into())
}

/// A folder for scratch files in `parent` (default: the system temp folder),
/// removed at the end.
fn scratch(parent: Option<&Path>) -> tempfile::TempDir {
    let mut b = tempfile::Builder::new();
    b.prefix("memdir-bench-");
    let env = std::env::var_os("MEMDIR_BENCH_DIR").map(PathBuf::from);
    match parent.or(env.as_deref()) {
        Some(dir) => b.tempdir_in(dir),
        None => b.tempdir(),
    }
    .expect("create a scratch folder")
}

/// The floor: a durable atomic write of `bytes` over `target` (temp file in
/// the same folder, `sync_all`, rename over the target, fsync the folder).
fn atomic_write(target: &Path, bytes: &[u8]) {
    let dir = target.parent().expect("target has a folder");
    let tmp = dir.join(".MEMORY.md.floor-tmp");
    let mut f = OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&tmp)
        .expect("create temp");
    f.write_all(bytes).expect("write temp");
    f.sync_all().expect("fsync temp");
    drop(f);
    fs::rename(&tmp, target).expect("rename");
    File::open(dir)
        .and_then(|d| d.sync_all())
        .expect("fsync folder");
}

/// Fills the owner's MEMORY.md with [`NOTES`] and a padding entry to exactly
/// [`FILL_CHARS`] characters as [`used_chars`] counts them; returns its bytes.
fn fill(owner: &Owner) -> Vec<u8> {
    let mut texts: Vec<String> = Vec::new();
    for note in NOTES {
        let mut next = texts.clone();
        next.push((*note).to_owned());
        // Leave room for a padding entry of at least 20 chars.
        if used_chars(next.iter().map(String::as_str)) + 23 > FILL_CHARS {
            break;
        }
        texts = next;
    }
    let left = FILL_CHARS - used_chars(texts.iter().map(String::as_str)) - 3;
    assert!(left <= PADDING.len(), "PADDING is too short");
    let mut pad: String = PADDING.chars().take(left).collect();
    if pad.ends_with(' ') {
        pad.pop();
        pad.push('.');
    }
    texts.push(pad);
    for t in &texts {
        let out = owner.add(Scope::Memory, t).expect("fill MEMORY.md").outcome;
        assert_eq!(out.message.as_str(), "added", "{t}");
    }
    let view = owner.show(Scope::Memory).expect("show");
    let used = used_chars(view.entries.iter().map(|e| e.text.as_str()));
    assert_eq!(used, FILL_CHARS, "fill level");
    assert_eq!(view.budget.limit, BUDGET, "default budget");
    fs::read(owner.path(Scope::Memory)).expect("read MEMORY.md")
}

/// Paired measurements: (memdir, floor) per iteration.
struct Pairs {
    name: &'static str,
    what: String,
    memdir_label: &'static str,
    floor_label: &'static str,
    pairs: Vec<(Duration, Duration)>,
    /// Criterion samples cut short by [`FUNCTION_BUDGET`].
    cut: usize,
    note: String,
}

/// Wall-clock budget of one criterion function. Warm-up and measurement take
/// about 11 s, but criterion fixes each sample's iteration count from the
/// warm-up, so a disk that slows down mid-run (a busy shared machine) would
/// stretch a function without bound; past this budget a sample stops after the
/// iteration under way and its remaining iterations are extrapolated from the
/// ones it ran. The final figures use measured pairs only.
const FUNCTION_BUDGET: Duration = Duration::from_secs(25);

/// Runs one criterion group of two functions over the same paired `step`;
/// returns the pairs and how many samples the budget cut short.
fn bench_pairs(
    c: &mut Criterion,
    group: &str,
    names: [&str; 2],
    step: impl Fn() -> (Duration, Duration),
) -> (Vec<(Duration, Duration)>, usize) {
    let pairs = RefCell::new(Vec::new());
    let cut = Cell::new(0usize);
    let mut g = c.benchmark_group(group);
    g.sampling_mode(SamplingMode::Flat);
    for (side, name) in names.into_iter().enumerate() {
        let start: Cell<Option<Instant>> = Cell::new(None);
        g.bench_function(name, |b| {
            let start = start.get().unwrap_or_else(|| {
                let now = Instant::now();
                start.set(Some(now));
                now
            });
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                for done in 0..iters {
                    if done > 0 && start.elapsed() > FUNCTION_BUDGET {
                        cut.set(cut.get() + 1);
                        return total.mul_f64(iters as f64 / done as f64);
                    }
                    let pair = step();
                    pairs.borrow_mut().push(pair);
                    total += if side == 0 { pair.0 } else { pair.1 };
                }
                total
            })
        });
    }
    g.finish();
    (pairs.into_inner(), cut.get())
}

/// Sets up an owner at 90% and a floor folder in a scratch folder under
/// `parent`, and hands `body` the paired library step and the file's bytes.
fn with_library<R>(
    parent: Option<&Path>,
    body: impl FnOnce(&dyn Fn() -> (Duration, Duration), &[u8]) -> R,
) -> R {
    let dir = scratch(parent);
    let store = Store::open(dir.path()).expect("open store");
    let owner = store.owner(OWNER).expect("owner");
    let base = fill(&owner);
    let memory = owner.path(Scope::Memory);
    let floor_dir = dir.path().join("floor");
    fs::create_dir(&floor_dir).expect("floor folder");
    let floor_path = floor_dir.join("MEMORY.md");
    atomic_write(&floor_path, &base);

    let counter = Cell::new(0u64);
    // The two file states memdir wrote last: after the add, after the remove.
    let last = RefCell::new((Vec::new(), Vec::new()));
    let step = || {
        let i = counter.get();
        counter.set(i + 1);
        let text = entry_text(i);
        let memdir = || {
            let t = Instant::now();
            let out = owner.add(Scope::Memory, &text).expect("add").outcome;
            let t_add = t.elapsed();
            assert_eq!(out.message.as_str(), "added");
            let added = fs::read(&memory).expect("read");
            let t = Instant::now();
            black_box(owner.remove(Scope::Memory, &out.id).expect("remove"));
            let t_remove = t.elapsed();
            let removed = fs::read(&memory).expect("read");
            assert!(removed == base, "remove did not restore the 90% file");
            *last.borrow_mut() = (added, removed);
            t_add + t_remove
        };
        let floor = || {
            let (added, removed) = last.borrow().clone();
            let t = Instant::now();
            atomic_write(&floor_path, &added);
            atomic_write(&floor_path, &removed);
            t.elapsed()
        };
        if i.is_multiple_of(2) {
            let m = memdir();
            (m, floor())
        } else {
            let f = floor();
            (memdir(), f)
        }
    };
    for _ in 0..4 {
        step(); // warm caches and the folders; iteration 0 runs memdir first
    }
    body(&step, &base)
}

fn library(c: &mut Criterion) -> Pairs {
    let ((pairs, cut), bytes) = with_library(None, |step, base| {
        let pairs = bench_pairs(
            c,
            "write_library",
            ["memdir_add_then_remove", "floor_2x_atomic_write"],
            step,
        );
        (pairs, base.len())
    });
    Pairs {
        name: "library",
        what: format!(
            "Owner::add + Owner::remove, MEMORY.md at {FILL_CHARS}/{BUDGET} chars ({bytes} bytes)"
        ),
        memdir_label: "memdir add + remove",
        floor_label: "floor: 2 atomic writes",
        pairs,
        cut,
        note: String::new(),
    }
}

/// The release binaries: memdir (built by cargo for this bench) and the
/// `floor_write` example, which the bench builds itself (through the cargo
/// that runs it) so that `cargo bench` needs no step before it.
fn binaries() -> (PathBuf, PathBuf) {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let built = Command::new(cargo)
        .args(["build", "--release", "--example", "floor_write"])
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
        .stdout(Stdio::null())
        .status();
    assert!(
        built.is_ok_and(|s| s.success()),
        "building examples/floor_write failed"
    );
    let exe = std::env::current_exe().expect("current exe");
    // target/release/deps/write-<hash> -> target/release
    let release = exe
        .parent()
        .and_then(Path::parent)
        .expect("bench runs from target/<profile>/deps");
    let memdir = option_env!("CARGO_BIN_EXE_memdir")
        .map(PathBuf::from)
        .unwrap_or_else(|| release.join("memdir"));
    let floor = release.join("examples").join("floor_write");
    let build = "build it with `cargo build --release --bin memdir --example floor_write`";
    assert!(memdir.is_file(), "{} not found: {build}", memdir.display());
    assert!(floor.is_file(), "{} not found: {build}", floor.display());
    let modified = |p: &Path| fs::metadata(p).and_then(|m| m.modified()).ok();
    let source =
        Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/..")).join("examples/floor_write.rs");
    if let (Some(src), Some(bin)) = (modified(&source), modified(&floor)) {
        assert!(
            bin >= src,
            "{} is older than its source: {build}",
            floor.display()
        );
    }
    (memdir, floor)
}

/// Runs `cmd` to completion; its wall time from spawn to exit.
fn run(cmd: &mut Command) -> Duration {
    let t = Instant::now();
    let status = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .status()
        .expect("spawn");
    let elapsed = t.elapsed();
    assert!(status.success(), "{cmd:?} failed: {status}");
    elapsed
}

/// The line `memdir add` appended to `base` in `after`, without its line feed.
fn appended_line(base: &[u8], after: &[u8]) -> String {
    assert!(after.starts_with(base), "memdir add did not append");
    String::from_utf8(after[base.len()..].to_vec())
        .expect("utf-8")
        .trim_end_matches('\n')
        .to_owned()
}

/// Copies `bin` into `dir`, synced, so that a concurrent `cargo build` in the
/// shared target folder can neither replace nor remove it mid-run.
fn private_copy(bin: &Path, dir: &Path) -> PathBuf {
    let to = dir.join(bin.file_name().expect("file name"));
    fs::copy(bin, &to).expect("copy binary");
    File::open(&to)
        .and_then(|f| f.sync_all())
        .expect("sync binary");
    to
}

/// The two binaries the process pairs run, as private copies.
struct Bins {
    memdir: PathBuf,
    floor: PathBuf,
}

impl Bins {
    /// Finds the binaries and copies them into `dir`.
    fn copy_into(dir: &Path) -> Bins {
        let (memdir, floor) = binaries();
        Bins {
            memdir: private_copy(&memdir, dir),
            floor: private_copy(&floor, dir),
        }
    }
}

/// What a run of process pairs saw besides the times.
struct ProcessRun {
    /// Bytes of MEMORY.md at 90%.
    base_len: usize,
    /// Iterations run.
    runs: u64,
    /// Iterations after which both files were byte-identical.
    identical: usize,
}

/// Sets up an owner at 90% and a floor owner folder in a scratch folder under
/// `parent`, and hands `body` the paired process step.
fn with_process<R>(
    parent: Option<&Path>,
    bins: &Bins,
    body: impl FnOnce(&dyn Fn() -> (Duration, Duration)) -> R,
) -> (R, ProcessRun) {
    let dir = scratch(parent);
    let root = dir.path();
    let store = Store::open(root).expect("open store");
    let owner = store.owner(OWNER).expect("owner");
    let base = fill(&owner);
    let memory = owner.path(Scope::Memory);
    let floor_dir = root.join("floor_owner");
    fs::create_dir_all(floor_dir.join(".memdir")).expect("floor folder");
    File::create(floor_dir.join(".memdir/lock")).expect("floor lock file");
    let floor = floor_dir.join("MEMORY.md");

    let memdir_add = |text: &str| {
        run(Command::new(&bins.memdir)
            .arg("--root")
            .arg(root)
            .arg("--owner")
            .arg(OWNER)
            .arg("add")
            .arg(text))
    };
    // The line memdir appended last and its entry text: the floor appends the
    // same line with this iteration's text, so it writes as many bytes.
    let warm = "Warm-up note: the first process run pages the binaries in";
    atomic_write(&memory, &base);
    memdir_add(warm);
    let last = RefCell::new((
        warm.to_owned(),
        appended_line(&base, &fs::read(&memory).expect("read")),
    ));
    let identical = Cell::new(0usize);
    let counter = Cell::new(0u64);
    let step = || {
        let i = counter.get();
        counter.set(i + 1);
        // Untimed: both files back to the same 90% state, durably.
        atomic_write(&memory, &base);
        atomic_write(&floor, &base);
        let text = entry_text(i);
        let line = {
            let (prev_text, prev_line) = &*last.borrow();
            prev_line.replacen(prev_text.as_str(), &text, 1)
        };
        let floor_run = || run(Command::new(&bins.floor).arg(&floor_dir).arg(&line));
        let pair = if i.is_multiple_of(2) {
            let m = memdir_add(&text);
            (m, floor_run())
        } else {
            let f = floor_run();
            (memdir_add(&text), f)
        };
        let by_memdir = fs::read(&memory).expect("read");
        let by_floor = fs::read(&floor).expect("read");
        assert_eq!(
            by_memdir.len(),
            by_floor.len(),
            "floor_write wrote another length than memdir add"
        );
        identical.set(identical.get() + usize::from(by_memdir == by_floor));
        *last.borrow_mut() = (text.clone(), appended_line(&base, &by_memdir));
        pair
    };
    for _ in 0..4 {
        step(); // page the binaries in before measuring
    }
    let out = body(&step);
    let run = ProcessRun {
        base_len: base.len(),
        runs: counter.get(),
        identical: identical.get(),
    };
    (out, run)
}

fn process(c: &mut Criterion, bins: &Bins) -> Pairs {
    let ((pairs, cut), run) = with_process(None, bins, |step| {
        bench_pairs(
            c,
            "write_process",
            ["memdir_add_process", "floor_write_process"],
            step,
        )
    });
    Pairs {
        name: "process",
        what: format!(
            "one `memdir add` process vs one `floor_write` process, MEMORY.md at {FILL_CHARS}/{BUDGET} chars ({} bytes)",
            run.base_len
        ),
        memdir_label: "memdir add (process)",
        floor_label: "floor_write (process)",
        pairs,
        cut,
        note: format!(
            "  files byte-identical after both processes in {} of {} iterations \
             (the others: same length, another `created=` second)",
            run.identical, run.runs
        ),
    }
}

/// Where memdir's time goes, measured outside criterion.
struct Parts {
    /// The first `scan` of a process: builds the pattern table.
    first_scan: Duration,
    /// `memdir::api::types::parse` of the 90% file, median ns (timed between the tmpfs
    /// library pairs where there is a tmpfs).
    parse_ns: f64,
    /// `memdir::internals::scan` of one entry text, warm, median ns.
    scan_ns: f64,
    /// The library pairs on tmpfs: (memdir, floor) medians in ns.
    tmpfs: Option<(f64, f64)>,
    /// Own work per operation in parses, round by round (sorted).
    own_rounds: Option<Vec<f64>>,
    /// The process pairs on tmpfs: (memdir, floor) medians in ns.
    tmpfs_process: Option<(f64, f64)>,
    /// `memdir --version` process, median ns.
    startup_ns: f64,
}

/// The (memdir, floor) medians of `n` runs of a paired `step`.
fn pair_medians(n: usize, step: &dyn Fn() -> (Duration, Duration)) -> (f64, f64) {
    let pairs: Vec<_> = (0..n).map(|_| step()).collect();
    (
        quantile(&sorted(pairs.iter().map(|p| p.0.as_nanos() as f64)), 0.5),
        quantile(&sorted(pairs.iter().map(|p| p.1.as_nanos() as f64)), 0.5),
    )
}

fn median_ns(n: usize, mut f: impl FnMut() -> Duration) -> f64 {
    let v = sorted((0..n).map(|_| f().as_nanos() as f64));
    quantile(&v, 0.5)
}

fn parts(first_scan: Duration, bins: &Bins) -> Parts {
    let tmpfs_dir = std::env::var_os("MEMDIR_BENCH_TMPFS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/dev/shm"));
    let (tmpfs, tmpfs_process, tmpfs_parse) = if tmpfs_dir.is_dir() {
        // The parse the own work is weighed against is timed between the
        // pairs, so that both see the machine in the same state.
        let (lib, parse, per_op) = with_library(Some(&tmpfs_dir), |step, base| {
            let src = String::from_utf8(base.to_vec()).expect("utf-8");
            let mut pairs = Vec::with_capacity(OWN_WORK_ITERS);
            let mut parses = Vec::with_capacity(OWN_WORK_ITERS * 5);
            // Each round: one pair, then five parses; the round's own work
            // per operation in parses is weighed against its own parses.
            let mut rounds = Vec::with_capacity(OWN_WORK_ITERS);
            for _ in 0..OWN_WORK_ITERS {
                let pair = step();
                let mut five: Vec<f64> = (0..5)
                    .map(|_| {
                        let t = Instant::now();
                        black_box(memdir::internals::markdown::parse(
                            Scope::Memory,
                            black_box(&src),
                        ));
                        t.elapsed().as_nanos() as f64
                    })
                    .collect();
                five.sort_by(f64::total_cmp);
                let own = (pair.0.as_nanos() as f64 - pair.1.as_nanos() as f64) / 2.0;
                rounds.push(own / five[2]);
                parses.extend(five);
                pairs.push(pair);
            }
            let lib = (
                quantile(&sorted(pairs.iter().map(|p| p.0.as_nanos() as f64)), 0.5),
                quantile(&sorted(pairs.iter().map(|p| p.1.as_nanos() as f64)), 0.5),
            );
            (
                lib,
                quantile(&sorted(parses.into_iter()), 0.5),
                sorted(rounds.into_iter()),
            )
        });
        let (process, _) = with_process(Some(&tmpfs_dir), bins, |step| {
            pair_medians(PROBE_ITERS / 2, step)
        });
        (Some(lib), Some(process), Some((parse, per_op)))
    } else {
        (None, None, None)
    };
    let dir = scratch(None);
    let store = Store::open(dir.path()).expect("open store");
    let owner = store.owner(OWNER).expect("owner");
    let src = String::from_utf8(fill(&owner)).expect("utf-8");
    let own_rounds = tmpfs_parse.as_ref().map(|(_, r)| r.clone());
    let parse_ns = tmpfs_parse.map(|(p, _)| p).unwrap_or_else(|| {
        median_ns(PROBE_ITERS * 5, || {
            let t = Instant::now();
            black_box(memdir::internals::markdown::parse(
                Scope::Memory,
                black_box(&src),
            ));
            t.elapsed()
        })
    });
    let text = entry_text(1);
    let scan_ns = median_ns(PROBE_ITERS * 5, || {
        let t = Instant::now();
        black_box(memdir::internals::scan::scan(black_box(&text)));
        t.elapsed()
    });
    let startup_ns = median_ns(PROBE_ITERS / 2, || {
        run(Command::new(&bins.memdir).arg("--version"))
    });
    Parts {
        first_scan,
        parse_ns,
        scan_ns,
        tmpfs,
        own_rounds,
        tmpfs_process,
        startup_ns,
    }
}

/// The `q` quantile (0..=1) of sorted `v`, by nearest rank.
fn quantile(v: &[f64], q: f64) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    v[((v.len() - 1) as f64 * q).round() as usize]
}

fn sorted(v: impl Iterator<Item = f64>) -> Vec<f64> {
    let mut v: Vec<f64> = v.collect();
    v.sort_by(f64::total_cmp);
    v
}

fn ms(ns: f64) -> String {
    format!("{:.3} ms", ns / 1e6)
}

fn us(ns: f64) -> String {
    format!("{:.1} µs", ns / 1e3)
}

fn verdict(met: bool) -> &'static str {
    if met { "met" } else { "MISSED" }
}

/// Pairs per round for the round-to-round spread of the ratio.
const ROUND: usize = 50;

fn report(library: &Pairs, process: &Pairs, parts: Option<&Parts>, load: (String, String)) {
    let rule = "=".repeat(78);
    println!("\n{rule}\nmemdir write benchmark — final figures (all pairs of this run)\n{rule}");
    println!(
        "load average (1/5/15 min): {} before, {} after",
        load.0, load.1
    );
    for p in [library, process] {
        println!("\n[{}] {}", p.name, p.what);
        if p.pairs.is_empty() {
            println!("  not run (filtered out)");
            continue;
        }
        let memdir = sorted(p.pairs.iter().map(|(m, _)| m.as_nanos() as f64));
        let floor = sorted(p.pairs.iter().map(|(_, f)| f.as_nanos() as f64));
        let paired = sorted(
            p.pairs
                .iter()
                .map(|(m, f)| m.as_nanos() as f64 / f.as_nanos() as f64),
        );
        let rounds = sorted(p.pairs.chunks(ROUND).filter(|c| c.len() == ROUND).map(|c| {
            let m = sorted(c.iter().map(|(m, _)| m.as_nanos() as f64));
            let f = sorted(c.iter().map(|(_, f)| f.as_nanos() as f64));
            quantile(&m, 0.5) / quantile(&f, 0.5)
        }));
        let ratio = quantile(&memdir, 0.5) / quantile(&floor, 0.5);

        println!("  pairs (alternating order)   {}", p.pairs.len());
        for (label, v) in [(p.memdir_label, &memdir), (p.floor_label, &floor)] {
            println!(
                "  {label:<27} median {}   (p25 {}, p75 {}, p90 {})",
                ms(quantile(v, 0.5)),
                ms(quantile(v, 0.25)),
                ms(quantile(v, 0.75)),
                ms(quantile(v, 0.9))
            );
        }
        // No target: a process's start-up is measured and reported; per-call
        // speed is the long-lived servers' job (docs/PERFORMANCE.md).
        println!("  ratio of medians            {ratio:.2}x");
        println!(
            "  per-pair ratio              median {:.2}x   (p25 {:.2}x, p75 {:.2}x)",
            quantile(&paired, 0.5),
            quantile(&paired, 0.25),
            quantile(&paired, 0.75)
        );
        if !rounds.is_empty() {
            println!(
                "  ratio per round of {ROUND} pairs  median {:.2}x   (min {:.2}x, max {:.2}x, {} rounds)",
                quantile(&rounds, 0.5),
                rounds[0],
                rounds[rounds.len() - 1],
                rounds.len()
            );
        }
        if !p.note.is_empty() {
            println!("{}", p.note);
        }
        if p.cut > 0 {
            println!(
                "  {} criterion samples cut short by the {} s budget (the disk slowed down mid-run)",
                p.cut,
                FUNCTION_BUDGET.as_secs()
            );
        }
    }
    if let Some(parts) = parts {
        println!(
            "\n[where the time goes] medians; on tmpfs a sync costs ~nothing, so what is left is CPU and syscalls"
        );
        if let Some((m, f)) = parts.tmpfs {
            println!(
                "  library pair on tmpfs        memdir {}, floor {}: memdir's own work {} per add + remove",
                us(m),
                us(f),
                us(m - f)
            );
            let parses = (m - f) / 2.0 / parts.parse_ns;
            println!(
                "  memdir's own work per op     {parses:.2} parses of the file   target <= {OWN_WORK_TARGET:.2}: {}",
                verdict(parses <= OWN_WORK_TARGET)
            );
            if let Some(r) = &parts.own_rounds {
                println!(
                    "  the same, round by round     median {:.2} (p25 {:.2}, p75 {:.2}; {} rounds of a pair and five parses)",
                    quantile(r, 0.5),
                    quantile(r, 0.25),
                    quantile(r, 0.75),
                    r.len()
                );
            }
        }
        if let Some((m, f)) = parts.tmpfs_process {
            println!(
                "  process pair on tmpfs        memdir add {}, floor_write {}: {} more per process",
                ms(m),
                ms(f),
                ms(m - f)
            );
        }
        println!(
            "  `memdir --version` process   {}  (exec, loading, argument parsing; no store work)",
            ms(parts.startup_ns)
        );
        println!(
            "  first memdir::internals::scan           {}  (builds the scanner's pattern table, once per process)",
            ms(parts.first_scan.as_nanos() as f64)
        );
        println!(
            "  memdir::api::types::parse, 90% file      {}",
            us(parts.parse_ns)
        );
        println!(
            "  memdir::internals::scan, one entry      {}  (warm)",
            us(parts.scan_ns)
        );
    }
    println!("\n{rule}");
}
