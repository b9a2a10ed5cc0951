//! SharedMemory put and get at 100 and at 100,000 stored results of one
//! owner, in one run, with the ratios (100k / 100); the target is at most 1.2.
//!
//! Results are spread the way a real owner has them: 10 tasks per workflow
//! (10 workflows at 100 results, 10,000 at 100,000). Building 100,000 results
//! durably through the library would take minutes of fsyncs, so the fixture
//! files are written directly in the exact on-disk format (`docs/RESULTS.md`),
//! outside the timed part, and checked through the library (a sample read
//! back, no index rebuilt) before anything is measured. Each carries the
//! scanner's verdict as a put writes it (format 2: the flagged spans and the
//! HMAC under the machine's scan key, here a key made for the bench), so a
//! get believes it instead of scanning the content; the bench checks its
//! tag against one a real put wrote before it builds anything.
//!
//! * put: a new 1 KiB result, through [`memdir::Owner::put_result`] (durable:
//!   result file and workflow index each written, synced and renamed), filling
//!   fresh workflows 10 tasks at a time as a run does. The results a sample
//!   added are removed after it, outside the timing, so the owner stays at its
//!   size.
//! * get_recent: [`memdir::Owner::get_result`] of a result picked
//!   pseudo-randomly among the owner's 100 latest (the same working set at
//!   both sizes: what a run reading its branches does).
//! * get_any: the same, picked among all of the owner's results (at 100,000
//!   the reads touch 1,000 times more files, so CPU and kernel caches miss
//!   more; no step of a get depends on the number of results).
//! * fs_read_any (paired rounds only): the floor under get_any, a bare
//!   `std::fs::read` of the same randomly picked files without memdir, to
//!   separate the file system's own working-set cost from memdir's.
//!
//! Criterion measures each case; then paired rounds time one batch of each
//! case at both sizes back to back and print the final figures block.
//!
//! `cargo bench --bench results -- wake` measures instead how soon a
//! `wait_result` wakes after its result lands, as a ratio to the bare
//! inotify wake measured in the same run (see `Wake`).

use std::path::Path;
use std::time::{Duration, Instant};

use criterion::{BenchmarkId, Criterion};
use memdir::Store;
use serde::Serialize;
use sha2::{Digest, Sha256};

const OWNER: &str = "agt_bench";
const TASKS_PER_WORKFLOW: usize = 10;
const SIZES: [usize; 2] = [100, 100_000];

/// The first line of a `.result` file, in its on-disk field order.
#[derive(Serialize)]
struct Header<'a> {
    v: u32,
    workflow_id: &'a str,
    task_id: &'a str,
    content_type: &'a str,
    created_at: &'a str,
    sha256: &'a str,
    bytes: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    scan: Option<Verdict>,
}

/// The scanner's verdict a put keeps: no span flagged, and its tag.
#[derive(Serialize)]
struct Verdict {
    flagged: [u8; 0],
    tag: String,
}

/// The tag of a clean verdict on the content hashing to `sha256` at
/// (`workflow`, `task`): HMAC-SHA256 under the scan key over the parts
/// docs/SECURITY.md names, each followed by a NUL byte.
fn clean_tag(key: &[u8], workflow: &str, task: &str, sha256: &str) -> String {
    use hmac::{KeyInit, Mac};
    let mut mac = <hmac::Hmac<Sha256> as KeyInit>::new_from_slice(key).expect("any key length");
    for part in [
        "result-verdict",
        memdir::internals::scan::fingerprint(),
        workflow,
        task,
        sha256,
        "[]",
    ] {
        mac.update(part.as_bytes());
        mac.update(&[0]);
    }
    hex::encode(mac.finalize().into_bytes())
}

/// The bench's scan key, made by a real put (which also checks that
/// [`clean_tag`] is the tag memdir writes).
fn scan_key(root: &Path, store: &Store, config: &Path) -> Vec<u8> {
    let probe = "agt_probe";
    let body = content(0);
    store
        .owner(probe)
        .expect("owner")
        .results()
        .put("probe", "t", &body, "text/plain", false)
        .expect("probe put");
    let hexed = std::fs::read_to_string(config.join("scan-key")).expect("scan key");
    let key = hex::decode(hexed.trim()).expect("hex key");
    let file = std::fs::read(root.join(probe).join("results/probe/t.result")).expect("probe");
    let nl = file.iter().position(|&b| b == b'\n').expect("header");
    let header: serde_json::Value = serde_json::from_slice(&file[..nl]).expect("header json");
    let sha = hex::encode(Sha256::digest(&body));
    assert_eq!(
        header["scan"]["tag"].as_str(),
        Some(clean_tag(&key, "probe", "t", &sha).as_str()),
        "the bench's verdict tag is not the one a put writes"
    );
    std::fs::remove_dir_all(root.join(probe)).expect("remove the probe");
    key
}

#[derive(Serialize)]
struct Step<'a> {
    task_id: &'a str,
    content_type: &'a str,
    created_at: &'a str,
    sha256: &'a str,
    bytes: u64,
}

#[derive(Serialize)]
struct Index<'a> {
    version: u32,
    workflow_id: &'a str,
    results: Vec<Step<'a>>,
}

fn content(i: usize) -> Vec<u8> {
    let mut s = format!("result {i}: ");
    while s.len() < 1024 {
        s.push_str("the quick brown fox jumps over the lazy dog. ");
    }
    s.truncate(1024);
    s.into_bytes()
}

fn wf_id(w: usize) -> String {
    format!("wf-{w:06}")
}

fn task_id(t: usize) -> String {
    format!("task-{t:02}")
}

/// Writes `n` results (10 per workflow) in the on-disk format, plainly,
/// each with a clean verdict under `key`.
fn build_fixture(root: &Path, n: usize, key: &[u8]) -> std::io::Result<()> {
    let results = root.join(OWNER).join("results");
    let base = chrono::Utc::now() - chrono::Duration::days(1);
    for w in 0..n.div_ceil(TASKS_PER_WORKFLOW) {
        let wf = wf_id(w);
        let dir = results.join(&wf);
        std::fs::create_dir_all(&dir)?;
        let tasks: Vec<(String, String, String, Vec<u8>)> = (0..TASKS_PER_WORKFLOW)
            .filter(|t| w * TASKS_PER_WORKFLOW + t < n)
            .map(|t| {
                let i = w * TASKS_PER_WORKFLOW + t;
                let body = content(i);
                let at = (base + chrono::Duration::microseconds(i as i64))
                    .to_rfc3339_opts(chrono::SecondsFormat::Micros, true);
                let sha = hex::encode(Sha256::digest(&body));
                (task_id(t), at, sha, body)
            })
            .collect();
        for (task, at, sha, body) in &tasks {
            let header = Header {
                v: 2,
                workflow_id: &wf,
                task_id: task,
                content_type: "text/plain",
                created_at: at,
                sha256: sha,
                bytes: body.len() as u64,
                scan: Some(Verdict {
                    flagged: [],
                    tag: clean_tag(key, &wf, task, sha),
                }),
            };
            let mut file = serde_json::to_vec(&header).map_err(std::io::Error::other)?;
            file.push(b'\n');
            file.extend_from_slice(body);
            std::fs::write(dir.join(format!("{task}.result")), file)?;
        }
        let index = Index {
            version: 1,
            workflow_id: &wf,
            results: tasks
                .iter()
                .map(|(task, at, sha, body)| Step {
                    task_id: task,
                    content_type: "text/plain",
                    created_at: at,
                    sha256: sha,
                    bytes: body.len() as u64,
                })
                .collect(),
        };
        let mut bytes = serde_json::to_vec_pretty(&index).map_err(std::io::Error::other)?;
        bytes.push(b'\n');
        std::fs::write(dir.join("index.json"), bytes)?;
    }
    Ok(())
}

/// One owner's fixture of `n` results.
struct Fixture {
    n: usize,
    dir: tempfile::TempDir,
    store: Store,
    /// The next new result a put stores (task `next % 10` of workflow `new-{next / 10}`).
    next: usize,
    /// The state of the pseudo-random picks.
    rng: u64,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Op {
    Put,
    /// Get among the owner's 100 latest results (the same working set at every size).
    GetRecent,
    /// Get uniformly among all the owner's results.
    GetAny,
    /// The floor under `GetAny`: a bare `std::fs::read` of the same files
    /// (no memdir, no checks), to show what the file system alone costs.
    FsReadAny,
}

impl Op {
    const ALL: [Op; 4] = [Op::Put, Op::GetRecent, Op::GetAny, Op::FsReadAny];

    fn name(self) -> &'static str {
        match self {
            Op::Put => "put",
            Op::GetRecent => "get_recent",
            Op::GetAny => "get_any",
            Op::FsReadAny => "fs_read_any",
        }
    }
}

impl Fixture {
    fn new(n: usize) -> Fixture {
        let dir = tempfile::tempdir().expect("temp dir");
        let root = dir.path().join("root");
        let config = dir.path().join("config");
        let store = Store::open(&root)
            .expect("open store")
            .with_config_dir(&config);
        let key = scan_key(&root, &store, &config);
        let t = Instant::now();
        build_fixture(&root, n, &key).expect("build fixture");
        let built = t.elapsed();
        let store = Store::open(&root)
            .expect("open store")
            .with_config_dir(&config);
        let owner = store.owner(OWNER).expect("owner");
        // The fixture is in the exact format: read back, no index rebuilt.
        let workflows = n / TASKS_PER_WORKFLOW;
        for w in [0, workflows / 2, workflows - 1] {
            let listing = owner.results().workflow(&wf_id(w)).expect("listing");
            assert!(listing.warnings.is_empty(), "{:?}", listing.warnings);
            assert_eq!(listing.steps.len(), TASKS_PER_WORKFLOW);
            let got = owner.results().get(&wf_id(w), &task_id(3)).expect("get");
            assert_eq!(got.content, content(w * TASKS_PER_WORKFLOW + 3));
        }
        eprintln!("fixture: {n} results in {workflows} workflows, written in {built:.1?}");
        Fixture {
            n,
            dir,
            store,
            next: 0,
            rng: 0x9e37_79b9_7f4a_7c15,
        }
    }

    /// Times `iters` operations; what they need is prepared and cleaned up
    /// outside the timing.
    fn run(&mut self, op: Op, iters: u64) -> Duration {
        match op {
            Op::Put => self.puts(iters),
            Op::GetRecent => self.gets(iters, self.n.min(100)),
            Op::GetAny => self.gets(iters, self.n),
            Op::FsReadAny => self.reads(iters),
        }
    }

    fn puts(&mut self, iters: u64) -> Duration {
        let owner = self.store.owner(OWNER).expect("owner");
        let body = content(usize::MAX);
        let first = self.next / TASKS_PER_WORKFLOW;
        let start = Instant::now();
        for _ in 0..iters {
            let wf = format!("new-{:08}", self.next / TASKS_PER_WORKFLOW);
            let task = task_id(self.next % TASKS_PER_WORKFLOW);
            let out = owner
                .results()
                .put(&wf, &task, &body, "text/plain", false)
                .expect("put");
            std::hint::black_box(out);
            self.next += 1;
        }
        let elapsed = start.elapsed();
        // Untimed: drop what was added, so the owner stays at its size, and
        // start the next batch on a fresh workflow.
        let results = self.dir.path().join("root").join(OWNER).join("results");
        for w in first..=self.next / TASKS_PER_WORKFLOW {
            let _ = std::fs::remove_dir_all(results.join(format!("new-{w:08}")));
        }
        self.next = self.next.div_ceil(TASKS_PER_WORKFLOW) * TASKS_PER_WORKFLOW;
        elapsed
    }

    /// `iters` pseudo-random (workflow, task) picks among the `among` latest results.
    fn picks(&mut self, iters: u64, among: usize) -> Vec<(String, String)> {
        (0..iters)
            .map(|_| {
                self.rng = self
                    .rng
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                let i = self.n - among + (self.rng >> 33) as usize % among;
                (
                    wf_id(i / TASKS_PER_WORKFLOW),
                    task_id(i % TASKS_PER_WORKFLOW),
                )
            })
            .collect()
    }

    /// Plain reads of result files picked among all, by full path.
    fn reads(&mut self, iters: u64) -> Duration {
        let results = self.dir.path().join("root").join(OWNER).join("results");
        let paths: Vec<std::path::PathBuf> = self
            .picks(iters, self.n)
            .into_iter()
            .map(|(wf, task)| results.join(wf).join(format!("{task}.result")))
            .collect();
        let start = Instant::now();
        for p in &paths {
            std::hint::black_box(std::fs::read(p).expect("read"));
        }
        start.elapsed()
    }

    /// Gets among the `among` latest results of the fixture.
    fn gets(&mut self, iters: u64, among: usize) -> Duration {
        let picks = self.picks(iters, among);
        let owner = self.store.owner(OWNER).expect("owner");
        let start = Instant::now();
        for (wf, task) in &picks {
            std::hint::black_box(owner.results().get(wf, task).expect("get"));
        }
        start.elapsed()
    }
}

/// Paired rounds for the figures: each round times one batch of every
/// operation at both sizes back to back (order alternating), so both sizes
/// see the same disk and CPU weather; per-round ratios are then robust to
/// the drift of a shared machine.
const ROUNDS: usize = 15;
const PUT_BATCH: u64 = 30;
const GET_BATCH: u64 = 3_000;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    match v.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => v[n / 2],
        n => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}

fn show(secs: f64) -> String {
    if secs >= 1e-3 {
        format!("{:.2} ms", secs * 1e3)
    } else {
        format!("{:.2} µs", secs * 1e6)
    }
}

/// A `.result` file of `body` for (wf, task), in the on-disk format 1 (no
/// verdict: a wait scans the short content).
fn result_file(wf: &str, task: &str, body: &[u8]) -> Vec<u8> {
    let at = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Micros, true);
    let sha = hex::encode(Sha256::digest(body));
    let header = Header {
        v: 1,
        workflow_id: wf,
        task_id: task,
        content_type: "text/plain",
        created_at: &at,
        sha256: &sha,
        bytes: body.len() as u64,
        scan: None,
    };
    let mut file = serde_json::to_vec(&header).expect("header");
    file.push(b'\n');
    file.extend_from_slice(body);
    file
}

/// How long after spawning a waiter the rename comes: the waiter has set up
/// its watch and sleeps by then (it needs well under a millisecond).
const SETTLE: Duration = Duration::from_millis(20);

/// The wake figures: a result's file is renamed into its workflow's folder
/// (what a put's last step does) while another thread waits for it; the time
/// from the rename to the waiter holding the content.
///
/// * `wait_wake`: the waiter is [`memdir::Owner::wait_result`].
/// * `inotify_floor`: the waiter is the bare mechanism, no memdir: an
///   inotify watch on the folder for `IN_MOVED_TO`, `poll`, then a
///   `std::fs::read` of the file.
struct Wake {
    _dir: tempfile::TempDir,
    root: std::path::PathBuf,
    wf_dir: std::path::PathBuf,
    round: usize,
}

impl Wake {
    fn new() -> Wake {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path().join("root");
        let store = Store::open(&root).expect("store");
        let owner = store.owner(OWNER).expect("owner");
        owner
            .results()
            .put("wake", "first", b"a first step", "text/plain", false)
            .expect("put");
        let wf_dir = root.join(OWNER).join("results").join("wake");
        Wake {
            _dir: dir,
            root,
            wf_dir,
            round: 0,
        }
    }

    /// One wake, timed from the rename to the waiter's return.
    fn once(&mut self, memdir_waits: bool) -> Duration {
        self.round += 1;
        let task = format!("t{}", self.round);
        let body = content(self.round);
        let temp = self.wf_dir.join(format!(".{task}.tmp"));
        std::fs::write(&temp, result_file("wake", &task, &body)).expect("write");
        let target = self.wf_dir.join(format!("{task}.result"));
        let (root, dir, name) = (
            self.root.clone(),
            self.wf_dir.clone(),
            format!("{task}.result"),
        );
        let waiter = std::thread::spawn(move || -> Instant {
            if memdir_waits {
                let store = Store::open(&root).expect("store");
                let owner = store.owner(OWNER).expect("owner");
                let got = owner
                    .results()
                    .wait("wake", &task, Duration::from_secs(10))
                    .expect("woken");
                assert_eq!(got.content.len(), 1024);
            } else {
                use rustix::fs::inotify;
                let fd = inotify::init(inotify::CreateFlags::CLOEXEC).expect("inotify");
                inotify::add_watch(&fd, &dir, inotify::WatchFlags::MOVED_TO).expect("watch");
                let path = dir.join(&name);
                while !path.exists() {
                    let mut fds = [rustix::event::PollFd::new(
                        &fd,
                        rustix::event::PollFlags::IN,
                    )];
                    rustix::event::poll(&mut fds, None).expect("poll");
                    let mut buf = [0u8; 4096];
                    let _ = rustix::io::read(&fd, &mut buf);
                }
                assert!(std::fs::read(&path).expect("read").len() > 1024);
            }
            Instant::now()
        });
        std::thread::sleep(SETTLE);
        let t0 = Instant::now();
        std::fs::rename(&temp, &target).expect("rename");
        let woke = waiter.join().expect("waiter");
        woke.saturating_duration_since(t0)
    }
}

/// The wake figures only (`cargo bench --bench results -- wake`): criterion,
/// then paired rounds with the ratio to the floor.
fn wake_figures(c: &mut Criterion) {
    let mut w = Wake::new();
    let mut g = c.benchmark_group("wake");
    g.sample_size(10).measurement_time(Duration::from_secs(3));
    for (name, memdir_waits) in [("wait_wake", true), ("inotify_floor", false)] {
        g.bench_function(name, |b| {
            b.iter_custom(|iters| (0..iters).map(|_| w.once(memdir_waits)).sum())
        });
    }
    g.finish();
    const WAKE_ROUNDS: usize = 101;
    let (mut wake, mut floor, mut ratio) = (Vec::new(), Vec::new(), Vec::new());
    for round in 0..WAKE_ROUNDS {
        let (a, b) = if round % 2 == 0 {
            let a = w.once(true);
            (a, w.once(false))
        } else {
            let b = w.once(false);
            (w.once(true), b)
        };
        wake.push(a.as_secs_f64());
        floor.push(b.as_secs_f64());
        ratio.push(a.as_secs_f64() / b.as_secs_f64());
    }
    println!();
    println!("== wake after the rename: {WAKE_ROUNDS} paired rounds (medians) ==");
    println!(
        "wait_wake {}  inotify_floor {}  paired ratio {:.2}  (wait_wake max {})",
        show(median(wake.clone())),
        show(median(floor)),
        median(ratio),
        show(wake.iter().copied().fold(0.0, f64::max))
    );
}

/// Size of the large result of the verdict figures.
const LARGE_BYTES: usize = 4 * 1024 * 1024;

/// A large text result stored twice: by a put (its verdict kept and
/// believed by a get) and as a format-1 file without a verdict (scanned on
/// every get).
struct Large {
    _dir: tempfile::TempDir,
    store: Store,
    file: std::path::PathBuf,
}

impl Large {
    fn new() -> Large {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path().join("root");
        let store = Store::open(&root)
            .expect("store")
            .with_config_dir(dir.path().join("config"));
        let mut body = String::with_capacity(LARGE_BYTES);
        let mut i = 0;
        while body.len() < LARGE_BYTES {
            body.push_str(&format!(
                "step {i}: fetched the page, parsed 12 links, kept the summary\n"
            ));
            i += 1;
        }
        let owner = store.owner(OWNER).expect("owner");
        owner
            .results()
            .put("wf", "kept", body.as_bytes(), "text/plain", false)
            .expect("put");
        let wf = root.join(OWNER).join("results/wf");
        let file = wf.join("kept.result");
        let raw = std::fs::read(&file).expect("read");
        let nl = raw.iter().position(|&b| b == b'\n').expect("header");
        let mut header: serde_json::Value = serde_json::from_slice(&raw[..nl]).expect("json");
        header["v"] = 1.into();
        header["task_id"] = "plain".into();
        header.as_object_mut().expect("object").remove("scan");
        let mut plain = serde_json::to_vec(&header).expect("json");
        plain.extend_from_slice(&raw[nl..]);
        std::fs::write(wf.join("plain.result"), plain).expect("write");
        let l = Large {
            _dir: dir,
            store,
            file,
        };
        assert!(l.get("kept").is_empty() && l.get("plain").is_empty());
        l
    }

    /// A get of `task`, returning its flagged spans.
    fn get(&self, task: &str) -> Vec<memdir::api::types::FlaggedSpan> {
        let owner = self.store.owner(OWNER).expect("owner");
        owner.results().get("wf", task).expect("get").flagged
    }

    /// One operation: a get that believes the verdict, one that scans, or
    /// the floor (the file read and its content hashed, no memdir).
    fn once(&self, op: usize) -> Duration {
        let t = Instant::now();
        match op {
            0 => drop(std::hint::black_box(self.get("kept"))),
            1 => drop(std::hint::black_box(self.get("plain"))),
            _ => {
                let raw = std::fs::read(&self.file).expect("read");
                std::hint::black_box(Sha256::digest(&raw));
            }
        }
        t.elapsed()
    }
}

/// The verdict figures only (`cargo bench --bench results -- verdict`): a
/// get of a 4 MiB text result with its verdict kept, one scanning it, and
/// the floor, in paired rounds.
fn verdict_figures() {
    let l = Large::new();
    const ROUNDS: usize = 21;
    let names = ["get_kept_verdict", "get_rescanned", "read_and_hash_floor"];
    let mut per = vec![Vec::new(); 3];
    for round in 0..ROUNDS {
        for k in 0..3 {
            let op = if round % 2 == 0 { k } else { 2 - k };
            per[op].push(l.once(op).as_secs_f64());
        }
    }
    let floor = median(per[2].clone());
    println!();
    println!("== a 4 MiB text result: {ROUNDS} paired rounds (medians) ==");
    for (k, name) in names.iter().enumerate() {
        let m = median(per[k].clone());
        println!("{name:<20} {:>12}  {:.2}x floor", show(m), m / floor);
    }
}

fn main() {
    let mut c = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .configure_from_args();
    if std::env::args().skip(1).any(|a| a == "wake") {
        wake_figures(&mut c);
        c.final_summary();
        return;
    }
    if std::env::args().skip(1).any(|a| a == "verdict") {
        verdict_figures();
        return;
    }
    let started = Instant::now();
    let mut fixtures: Vec<Fixture> = SIZES.iter().map(|&n| Fixture::new(n)).collect();

    let mut g = c.benchmark_group("results");
    for f in &mut fixtures {
        for op in [Op::Put, Op::GetRecent, Op::GetAny] {
            let (samples, secs) = if op == Op::Put { (10, 4) } else { (20, 2) };
            g.sample_size(samples)
                .measurement_time(Duration::from_secs(secs));
            g.bench_function(BenchmarkId::new(op.name(), f.n), |b| {
                b.iter_custom(|iters| f.run(op, iters))
            });
        }
    }
    g.finish();
    c.final_summary();
    eprintln!("criterion done at {:.1?}", started.elapsed());

    let paired_start = Instant::now();
    // per[op][size]: seconds per operation, one value per round.
    let mut per = vec![vec![Vec::new(); SIZES.len()]; Op::ALL.len()];
    for round in 0..ROUNDS {
        for (k, op) in Op::ALL.into_iter().enumerate() {
            let batch = if op == Op::Put { PUT_BATCH } else { GET_BATCH };
            let order: Vec<usize> = if round % 2 == 0 {
                (0..SIZES.len()).collect()
            } else {
                (0..SIZES.len()).rev().collect()
            };
            for i in order {
                let t = fixtures[i].run(op, batch);
                per[k][i].push(t.as_secs_f64() / batch as f64);
            }
        }
    }

    eprintln!(
        "paired rounds took {:.1?} (total {:.1?})",
        paired_start.elapsed(),
        started.elapsed()
    );
    println!();
    println!("== SharedMemory figures: {ROUNDS} paired rounds (median per operation) ==");
    println!(
        "{:<11} {:>14} {:>14} {:>16} {:>16}",
        "operation", "100 results", "100k results", "ratio 100k/100", "paired ratio"
    );
    for (k, op) in Op::ALL.into_iter().enumerate() {
        let small = median(per[k][0].clone());
        let big = median(per[k][1].clone());
        let paired = median(
            per[k][0]
                .iter()
                .zip(&per[k][1])
                .map(|(a, b)| b / a)
                .collect(),
        );
        println!(
            "{:<11} {:>14} {:>14} {:>16.2} {:>16.2}",
            op.name(),
            show(small),
            show(big),
            big / small,
            paired
        );
    }
    println!("target: ratio <= 1.2 for put and get");
    println!("  put        = a new 1 KiB result, durable (10 tasks per workflow)");
    println!(
        "  get_recent = get among the owner's 100 latest results (same working set at both sizes)"
    );
    println!(
        "  get_any    = get uniformly among all the owner's results (100 vs 100,000 files touched)"
    );
    println!("  fs_read_any = the floor: a bare std::fs::read of the same files, no memdir");
    let over = |i: usize| {
        median(
            per[2][i]
                .iter()
                .zip(&per[3][i])
                .map(|(g, r)| g - r)
                .collect(),
        )
    };
    println!(
        "memdir's own cost above the floor (get_any - fs_read_any): {} at 100, {} at 100k (ratio {:.2})",
        show(over(0)),
        show(over(1)),
        over(1) / over(0)
    );
}
