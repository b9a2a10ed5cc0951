//! Real processes on one owner's files: concurrent `memdir add` processes,
//! an editor that saves the file (temp file and rename) without taking
//! memdir's lock, a shell appending with `>>`, and a shell rewriting the file
//! in place with `>`.
//!
//! Run with `cargo test --test it multiprocess -- --nocapture` to see the figures
//! (docs/RELIABILITY.md records them).

use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::MutexGuard;
use std::time::{Duration, Instant};

use crate::util::{self, Sandbox, run_cmd, store_entries, temp_files};

/// Concurrent writer processes at any moment.
const WORKERS: usize = 8;
/// Entries each writer adds, one `memdir add` process each.
const PER_WORKER: usize = 100;
/// Saves the editor makes.
const EDITOR_SAVES: usize = 50;
/// The editor's time between reading the file and renaming its save over it.
const EDITOR_THINK: Duration = Duration::from_millis(5);
const OWNER: &str = "team";
/// 800 entries of `- wN-eNN` are ~7,900 characters: over the 2,200 default,
/// so the front matter raises the budget.
const HEADER: &str = "---\nbudget: 20000\n---\n# Team notes\n\n";

const EDITOR_FILE_ENV: &str = "MEMDIR_TEST_EDITOR_FILE";
const EDITOR_DONE_ENV: &str = "MEMDIR_TEST_EDITOR_DONE";

/// The multi-process tests run one at a time so their timings mean
/// something, and never beside a test that asserts on wall-clock bounds.
fn serial() -> MutexGuard<'static, ()> {
    util::exclusive()
}

fn agent_text(worker: usize, i: usize) -> String {
    format!("w{worker}-e{i}")
}

/// What the writer processes did.
struct AgentRun {
    elapsed: Duration,
    /// Per `memdir add`: its wall time.
    latencies: Vec<Duration>,
    /// `added`, `already stored`, … and how often.
    messages: BTreeMap<String, usize>,
    /// Runs that did not exit 0, with their output.
    failures: Vec<String>,
}

impl AgentRun {
    fn latency(&self, q: f64) -> Duration {
        let mut l = self.latencies.clone();
        l.sort_unstable();
        l[((l.len() - 1) as f64 * q).round() as usize]
    }

    fn summary(&self) -> String {
        let n = self.latencies.len();
        format!(
            "{n} adds by {WORKERS} concurrent writers in {:.2} s ({:.0} adds/s); per add p50 {} ms, p99 {} ms, max {} ms; failed {}",
            self.elapsed.as_secs_f64(),
            n as f64 / self.elapsed.as_secs_f64(),
            self.latency(0.5).as_millis(),
            self.latency(0.99).as_millis(),
            self.latency(1.0).as_millis(),
            self.failures.len()
        )
    }
}

/// `WORKERS` threads, each running `PER_WORKER` `memdir add` processes in a row.
fn run_agents(s: &Sandbox) -> AgentRun {
    let start = Instant::now();
    type Outcome = (Duration, Result<String, String>);
    let per_worker: Vec<Vec<Outcome>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..WORKERS)
            .map(|w| {
                scope.spawn(move || {
                    (0..PER_WORKER)
                        .map(|i| {
                            let text = agent_text(w, i);
                            let t = Instant::now();
                            let out = s
                                .cmd(&[
                                    "--owner",
                                    OWNER,
                                    "--json",
                                    "--lock-timeout-ms",
                                    "30000",
                                    "add",
                                    &text,
                                ])
                                .stdin(Stdio::null())
                                .output()
                                .expect("spawn memdir");
                            let took = t.elapsed();
                            let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
                            let res = if out.status.success() {
                                serde_json::from_str::<serde_json::Value>(&stdout)
                                    .ok()
                                    .and_then(|v| v["message"].as_str().map(str::to_owned))
                                    .ok_or_else(|| format!("{text}: bad answer {stdout:?}"))
                            } else {
                                Err(format!(
                                    "{text}: exit {:?}: {stdout}{}",
                                    out.status.code(),
                                    String::from_utf8_lossy(&out.stderr)
                                ))
                            };
                            (took, res)
                        })
                        .collect()
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("writer thread"))
            .collect()
    });
    let elapsed = start.elapsed();
    let mut run = AgentRun {
        elapsed,
        latencies: Vec::new(),
        messages: BTreeMap::new(),
        failures: Vec::new(),
    };
    for (took, res) in per_worker.into_iter().flatten() {
        run.latencies.push(took);
        match res {
            Ok(m) => *run.messages.entry(m).or_default() += 1,
            Err(e) => run.failures.push(e),
        }
    }
    run
}

/// How often each text occurs among the entries.
fn counts(entries: &[(String, String)]) -> BTreeMap<String, usize> {
    let mut c = BTreeMap::new();
    for (_, t) in entries {
        *c.entry(t.clone()).or_default() += 1;
    }
    c
}

fn show_memory(s: &Sandbox) -> Vec<(String, String)> {
    let r = run_cmd(s.cmd(&["--owner", OWNER, "--json", "show"])).ok();
    store_entries(&r.json(), "memory")
}

#[test]
fn concurrent_writer_processes_lose_nothing() {
    let _serial = serial();
    let s = Sandbox::new();
    s.write(OWNER, "MEMORY.md", HEADER);

    let run = run_agents(&s);
    println!("[multiprocess] writers only: {}", run.summary());
    assert!(
        run.failures.is_empty(),
        "{} failed, first: {}",
        run.failures.len(),
        run.failures[0]
    );
    assert_eq!(
        run.messages,
        BTreeMap::from([("added".to_owned(), WORKERS * PER_WORKER)])
    );

    let entries = show_memory(&s);
    let c = counts(&entries);
    let mut missing = Vec::new();
    for w in 0..WORKERS {
        for i in 0..PER_WORKER {
            match c.get(&agent_text(w, i)) {
                Some(1) => {}
                Some(n) => panic!("{} present {n} times", agent_text(w, i)),
                None => missing.push(agent_text(w, i)),
            }
        }
    }
    assert!(missing.is_empty(), "missing: {missing:?}");
    assert_eq!(entries.len(), WORKERS * PER_WORKER, "extra entries");
    let text = util::strip_meta(&s.read_text(OWNER, "MEMORY.md"));
    assert!(text.starts_with(HEADER), "front matter and heading kept");
    let body: Vec<&str> = text[HEADER.len()..]
        .lines()
        .filter(|l| !l.is_empty())
        .collect();
    assert_eq!(body.len(), WORKERS * PER_WORKER);
    assert!(body.iter().all(|l| l.starts_with("- w")), "{body:?}");
    // Each writer's own entries are in the order it added them.
    for w in 0..WORKERS {
        let prefix = format!("- w{w}-e");
        let mine: Vec<usize> = body
            .iter()
            .filter_map(|l| l.strip_prefix(&prefix)?.parse().ok())
            .collect();
        assert_eq!(mine, (0..PER_WORKER).collect::<Vec<_>>(), "writer {w}");
    }
    assert_eq!(temp_files(&s.owner_dir(OWNER)), Vec::<String>::new());
}

#[test]
fn an_editor_saving_without_the_lock_keeps_every_line() {
    let _serial = serial();
    let s = Sandbox::new();
    let file = s.write(OWNER, "MEMORY.md", HEADER);
    let done = s.dir.path().join("writers-done");

    // The editor: this test binary again, running `editor_process` only (its
    // name in the one integration binary carries the module).
    let editor = Command::new(std::env::current_exe().expect("test binary"))
        .args([
            "multiprocess::editor_process",
            "--exact",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(EDITOR_FILE_ENV, &file)
        .env(EDITOR_DONE_ENV, &done)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn the editor");
    let run = run_agents(&s);
    std::fs::write(&done, "").expect("signal the editor");
    let out = editor.wait_with_output().expect("wait for the editor");
    let editor_log = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "editor failed: {editor_log}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let editor_line = editor_log
        .lines()
        .find_map(|l| l.find("[editor]").map(|i| &l[i..]))
        .unwrap_or("[editor] (no report)")
        .to_owned();

    let entries = show_memory(&s);
    let c = counts(&entries);
    // Every one of the editor's saves is there, once.
    for n in 0..EDITOR_SAVES {
        assert_eq!(
            c.get(&format!("editor line {n}")),
            Some(&1),
            "editor line {n}"
        );
    }
    let mut present = 0;
    for w in 0..WORKERS {
        for i in 0..PER_WORKER {
            match c.get(&agent_text(w, i)) {
                Some(1) => present += 1,
                Some(n) => panic!("{} present {n} times", agent_text(w, i)),
                None => {}
            }
        }
    }
    assert_eq!(
        entries.len(),
        present + EDITOR_SAVES,
        "entries that are neither the writers' nor the editor's: {entries:?}"
    );
    let missing = WORKERS * PER_WORKER - present;
    println!("[multiprocess] writers with an editor: {}", run.summary());
    println!("{editor_line}");
    println!(
        "[multiprocess] with an editor: {EDITOR_SAVES}/{EDITOR_SAVES} editor lines kept; {missing} of {} writer entries missing (overwritten by an editor save made from an older read), {:.2} per editor save",
        WORKERS * PER_WORKER,
        missing as f64 / EDITOR_SAVES as f64
    );
    assert!(
        run.failures.is_empty(),
        "{} failed, first: {}",
        run.failures.len(),
        run.failures[0]
    );
    assert_eq!(
        run.messages,
        BTreeMap::from([("added".to_owned(), WORKERS * PER_WORKER)])
    );
    assert!(s.read_text(OWNER, "MEMORY.md").starts_with(HEADER));
    assert_eq!(temp_files(&s.owner_dir(OWNER)), Vec::<String>::new());
}

/// BUG: a writer that rewrites MEMORY.md in place (truncate, then write, as a
/// shell's `cmd > MEMORY.md` does) and takes longer than ~40 ms between the
/// two is wiped out by a concurrent `memdir add`: memdir's read retries the
/// empty file only a few times (`stable_read`: 5 looks, 10 ms apart), then
/// believes it, writes a file holding only the new entry and swaps it in;
/// the writer's bytes then go to the displaced inode, which memdir deletes.
/// Every entry the file held and the writer's save are lost.
#[cfg(unix)]
#[test]
fn an_in_place_rewrite_in_progress_is_not_wiped() {
    let _serial = serial();
    let s = Sandbox::new();
    let base: String = (0..30).map(|i| format!("- base entry {i}\n")).collect();
    let file = s.write(OWNER, "MEMORY.md", &base);
    let full = s.dir.path().join("full.md");
    std::fs::write(&full, format!("{base}- rewritten by a script\n")).expect("write");
    // The shell truncates MEMORY.md at once and writes 300 ms later.
    let mut writer = Command::new("sh")
        .arg("-c")
        .arg(r#"{ sleep 0.3; cat "$1"; } > "$2""#)
        .arg("sh")
        .arg(&full)
        .arg(&file)
        .spawn()
        .expect("spawn sh");
    let t = Instant::now();
    while std::fs::metadata(&file).map(|m| m.len()).unwrap_or(1) != 0 {
        assert!(t.elapsed() < Duration::from_secs(5), "sh never truncated");
        std::thread::sleep(Duration::from_millis(1));
    }
    let r = run_cmd(s.cmd(&["--owner", OWNER, "add", "agent entry"]));
    assert!(writer.wait().expect("wait sh").success());
    let text = util::strip_meta(&s.read_text(OWNER, "MEMORY.md"));
    let kept = (0..30)
        .filter(|i| text.contains(&format!("- base entry {i}\n")))
        .count();
    assert!(
        kept == 30 && text.contains("- rewritten by a script\n"),
        "{kept}/30 base entries kept, the script's save {}; memdir said {r:?}; file now:\n{text}",
        if text.contains("rewritten by a script") {
            "kept"
        } else {
            "lost"
        }
    );
}

/// A shell appending lines with `echo … >> MEMORY.md` (no lock, no rename)
/// while memdir writes: every memdir entry must survive; an appended line can
/// only be lost if it lands in the displaced file after memdir compared it
/// (a window of microseconds). Prints how many were lost.
#[cfg(unix)]
#[test]
fn a_shell_appending_without_the_lock() {
    const APPENDS: usize = 50;
    const APPEND_WORKERS: usize = 4;
    const APPEND_PER_WORKER: usize = 25;
    let _serial = serial();
    let s = Sandbox::new();
    let file = s.write(OWNER, "MEMORY.md", "- first\n");
    let mut appender = Command::new("sh")
        .arg("-c")
        .arg(
            r#"i=0; while [ $i -lt "$2" ]; do echo "- appended line $i" >> "$1"; i=$((i+1)); sleep 0.02; done"#,
        )
        .arg("sh")
        .arg(&file)
        .arg(APPENDS.to_string())
        .spawn()
        .expect("spawn sh");
    let start = Instant::now();
    let failures: Vec<String> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..APPEND_WORKERS)
            .map(|w| {
                let s = &s;
                scope.spawn(move || {
                    (0..APPEND_PER_WORKER)
                        .filter_map(|i| {
                            let r = run_cmd(s.cmd(&[
                                "--owner",
                                OWNER,
                                "--lock-timeout-ms",
                                "30000",
                                "add",
                                &agent_text(w, i),
                            ]));
                            (r.code != 0).then(|| format!("{r:?}"))
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("writer"))
            .collect()
    });
    assert!(appender.wait().expect("wait sh").success());
    let elapsed = start.elapsed();
    assert!(failures.is_empty(), "{failures:?}");
    let c = counts(&show_memory(&s));
    for w in 0..APPEND_WORKERS {
        for i in 0..APPEND_PER_WORKER {
            assert_eq!(c.get(&agent_text(w, i)), Some(&1), "{}", agent_text(w, i));
        }
    }
    assert_eq!(c.get("first"), Some(&1));
    let lost = (0..APPENDS)
        .filter(|i| !c.contains_key(&format!("appended line {i}")))
        .count();
    assert!(c.values().all(|&n| n == 1), "duplicates: {c:?}");
    println!(
        "[multiprocess] shell appender: {} memdir adds by {APPEND_WORKERS} writers in {:.2} s; {lost} of {APPENDS} `echo >>` lines lost",
        APPEND_WORKERS * APPEND_PER_WORKER,
        elapsed.as_secs_f64()
    );
}

/// The editor's process. Does nothing in a normal test run; the editor test
/// re-runs this binary with the variables set.
#[test]
fn editor_process() {
    let (Some(file), Some(done)) = (
        std::env::var_os(EDITOR_FILE_ENV),
        std::env::var_os(EDITOR_DONE_ENV),
    ) else {
        return;
    };
    run_editor(Path::new(&file), Path::new(&done));
}

/// Saves `EDITOR_SAVES` times like an editor: read the file, add a line of its
/// own, write a temp file beside it and rename it over, without the lock.
/// Saves are spread over the writers' progress (save n once about
/// n/(EDITOR_SAVES+1) of their entries are in), or made at once when they are done.
fn run_editor(file: &Path, done: &Path) {
    let dir = file.parent().expect("folder");
    let tmp = dir.join("MEMORY.md.editor-tmp");
    let total = WORKERS * PER_WORKER;
    let start = Instant::now();
    let deadline = start + Duration::from_secs(600);
    let mut waited_for_progress = 0;
    for n in 0..EDITOR_SAVES {
        let due = (n + 1) * total / (EDITOR_SAVES + 1);
        loop {
            if done.exists() || Instant::now() > deadline {
                break;
            }
            let text = std::fs::read_to_string(file).unwrap_or_default();
            if text.lines().filter(|l| l.starts_with("- w")).count() >= due {
                waited_for_progress += 1;
                break;
            }
            std::thread::sleep(Duration::from_millis(2));
        }
        let mut text = std::fs::read_to_string(file).expect("editor read");
        std::thread::sleep(EDITOR_THINK);
        if !text.is_empty() && !text.ends_with('\n') {
            text.push('\n');
        }
        text.push_str(&format!("- editor line {n}\n"));
        let mut f = std::fs::File::create(&tmp).expect("editor temp");
        f.write_all(text.as_bytes()).expect("editor write");
        drop(f);
        std::fs::rename(&tmp, file).expect("editor rename");
    }
    println!(
        "[editor] {EDITOR_SAVES} saves in {:.2} s ({} during the writers' run), {} ms between read and rename",
        start.elapsed().as_secs_f64(),
        waited_for_progress,
        EDITOR_THINK.as_millis()
    );
}
