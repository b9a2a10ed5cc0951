//! SharedMemory through the real `memdir` binary on temp folders: put/get,
//! not ready (exit 3), step listings, index rebuilds, id and owner isolation,
//! immutability, the size limit (default and from `memdir.yaml`), damaged
//! result files, the workflow lock's timeout, concurrent puts from several
//! processes, and `wait` woken by another process's put.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use crate::util::{self, BIN, Run, Sandbox, tree};

const A: &str = "agt_a";

/// The results tests' shorthands on the shared sandbox.
trait Results {
    /// `result put WF TASK` by `owner`, with `content` on stdin.
    fn put(&self, owner: &str, wf: &str, task: &str, content: &[u8]) -> Run;
    /// `<root>/<owner>/results/<wf>`.
    fn wf_dir(&self, owner: &str, wf: &str) -> PathBuf;
}

impl Results for Sandbox {
    fn put(&self, owner: &str, wf: &str, task: &str, content: &[u8]) -> Run {
        self.run_as_stdin(owner, &["result", "put", wf, task], content)
    }

    fn wf_dir(&self, owner: &str, wf: &str) -> PathBuf {
        self.root.join(owner).join("results").join(wf)
    }
}

fn sha256(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

fn task_ids(steps: &Value) -> Vec<String> {
    steps
        .as_array()
        .expect("steps")
        .iter()
        .map(|s| s["task_id"].as_str().expect("task_id").to_owned())
        .collect()
}

#[test]
fn put_then_get_gives_the_exact_bytes_and_metadata() {
    let s = Sandbox::new();
    let text = "Found 3 flaky tests:\n- a\n- b\n\n";
    let r = s
        .run_as_stdin(
            A,
            &["result", "put", "wf-1", "scan", "--json"],
            text.as_bytes(),
        )
        .ok();
    let put = r.json();
    assert_eq!(put["message"], "stored");
    assert_eq!(put["status"], "stored");
    assert_eq!(put["content_type"], "text/plain");
    assert_eq!(put["bytes"], text.len());
    assert_eq!(put["sha256"], sha256(text.as_bytes()));

    // Raw bytes back, nothing added.
    let got = s.run_as(A, &["result", "get", "wf-1", "scan"]).ok();
    assert_eq!(got.stdout, text.as_bytes());
    assert_eq!(got.stderr, "");

    let j = s
        .run_as(A, &["result", "get", "wf-1", "scan", "--json"])
        .ok()
        .json();
    assert_eq!(j["content"], text);
    assert_eq!(j["workflow_id"], "wf-1");
    assert_eq!(j["task_id"], "scan");
    assert_eq!(j["content_type"], "text/plain");
    assert_eq!(j["bytes"], text.len());
    assert_eq!(j["sha256"], put["sha256"]);
    assert_eq!(j["created_at"], put["created_at"]);
    assert!(j.get("content_base64").is_none());
    let created = j["created_at"].as_str().expect("created_at");
    assert!(
        chrono::DateTime::parse_from_rfc3339(created).is_ok() && created.ends_with('Z'),
        "{created}"
    );
    assert_eq!(
        created.len(),
        "2025-01-01T00:00:00.000000Z".len(),
        "{created}"
    );

    // Binary content from a file, with a type: raw bytes, and base64 in JSON.
    let bin: Vec<u8> = (0..=255u8).rev().chain([0, 0xff, b'\n']).collect();
    let f = s.dir.path().join("blob.bin");
    std::fs::write(&f, &bin).expect("write blob");
    let f = f.to_str().expect("utf-8 path");
    let r = s
        .run_as(
            A,
            &[
                "result",
                "put",
                "wf-1",
                "blob",
                "--type",
                "application/octet-stream",
                "--file",
                f,
            ],
        )
        .ok();
    assert!(
        r.text()
            .starts_with("stored wf-1/blob (259 bytes, application/octet-stream, sha256 "),
        "{}",
        r.text()
    );
    assert_eq!(
        s.run_as(A, &["result", "get", "wf-1", "blob"]).ok().stdout,
        bin
    );
    let j = s
        .run_as(A, &["result", "get", "wf-1", "blob", "--json"])
        .ok()
        .json();
    assert_eq!(j["content"], Value::Null);
    assert_eq!(j["content_type"], "application/octet-stream");
    let b64 = j["content_base64"].as_str().expect("content_base64");
    assert_eq!(b64.len(), 348);
    assert!(b64.starts_with("//79/Pv6"), "{b64}");

    // The file on disk: one metadata line, then the content.
    let raw = std::fs::read(s.wf_dir(A, "wf-1").join("scan.result")).expect("result file");
    let nl = raw.iter().position(|&b| b == b'\n').expect("metadata line");
    let header: Value = serde_json::from_slice(&raw[..nl]).expect("header JSON");
    assert_eq!(header["v"], 2);
    assert_eq!(header["sha256"], put["sha256"]);
    // The scanner's verdict, vouched for by the machine's key.
    assert_eq!(header["scan"]["flagged"], serde_json::json!([]));
    assert_eq!(header["scan"]["tag"].as_str().map(str::len), Some(64));
    assert_eq!(&raw[nl + 1..], text.as_bytes());
}

#[test]
fn not_ready_before_the_put_exits_3() {
    let s = Sandbox::new();
    s.run_as(A, &["result", "get", "wf-1", "t1"])
        .text_error("owner_not_found");
    // A workflow memdir does not know is not "not ready": no run began
    // with its id or names it, nothing is stored under it.
    s.run_as(A, &["add", "A exists"]).ok();
    let r = s.run_as(A, &["result", "get", "wf-1", "t1"]);
    r.text_error("result_not_found");
    let e = s
        .run_as(A, &["result", "get", "wf-1", "--json"])
        .json_error("result_not_found");
    assert_eq!(
        (e["status"].as_u64(), &e["workflow_id"]),
        (Some(404), &json!("wf-1"))
    );
    // A run that produces its results makes it known.
    s.run_as(A, &["run", "begin", "--workflow", "wf-1"]).ok();
    let r = s.run_as(A, &["result", "get", "wf-1", "t1"]);
    r.text_error_exit("not_ready", 3);
    assert!(
        r.stderr.contains("still running or a beat behind; poll"),
        "{}",
        r.stderr
    );
    let e = s
        .run_as(A, &["result", "get", "wf-1", "t1", "--json"])
        .json_error_exit("not_ready", 3);
    assert_eq!(e["workflow_id"], "wf-1");
    assert_eq!(e["task_id"], "t1");
    assert_eq!(e["status"], 404);
    // A workflow with no results is not ready either.
    let e = s
        .run_as(A, &["result", "get", "wf-1", "--json"])
        .json_error_exit("not_ready", 3);
    assert_eq!(e["task_id"], Value::Null);
    // A read creates nothing.
    assert!(!s.path(A, "results").exists());
    s.put(A, "wf-1", "t0", b"other").ok();
    s.run_as(A, &["result", "get", "wf-1", "t1"])
        .text_error_exit("not_ready", 3);
    s.put(A, "wf-1", "t1", b"done").ok();
    assert_eq!(
        s.run_as(A, &["result", "get", "wf-1", "t1"]).ok().stdout,
        b"done"
    );
}

#[test]
fn a_workflow_lists_its_steps() {
    let s = Sandbox::new();
    s.run_as_stdin(
        A,
        &["result", "put", "wf", "fetch", "--type", "application/json"],
        b"{\"n\":1}",
    )
    .ok();
    s.put(A, "wf", "summarise", b"short").ok();
    s.put(A, "wf", "branch-2", b"fan-out branch").ok();
    s.put(A, "other", "x", b"not listed").ok();
    let j = s.run_as(A, &["result", "get", "wf", "--json"]).ok().json();
    assert_eq!(j["workflow_id"], "wf");
    assert_eq!(task_ids(&j["steps"]), ["fetch", "summarise", "branch-2"]);
    assert_eq!(j["steps"][0]["content_type"], "application/json");
    assert_eq!(j["steps"][0]["bytes"], 7);
    assert_eq!(j["steps"][2]["sha256"], sha256(b"fan-out branch"));
    assert_eq!(j["warnings"], serde_json::json!([]));
    let times: Vec<&str> = j["steps"]
        .as_array()
        .expect("steps")
        .iter()
        .map(|s| s["created_at"].as_str().expect("time"))
        .collect();
    let sorted = {
        let mut t = times.clone();
        t.sort_unstable();
        t
    };
    assert_eq!(times, sorted);
    // One branch opened from the listing, without re-running anything.
    assert_eq!(
        s.run_as(A, &["result", "get", "wf", "branch-2"])
            .ok()
            .stdout,
        b"fan-out branch"
    );
    let t = s.run_as(A, &["result", "get", "wf"]).ok();
    let lines: Vec<&str> = t
        .stdout
        .split(|&b| b == b'\n')
        .map(|l| std::str::from_utf8(l).expect("utf-8"))
        .collect();
    assert_eq!(lines[0], "wf: 3 result(s), 26 bytes");
    assert!(
        lines[1].starts_with("  fetch  application/json  7 bytes  "),
        "{}",
        lines[1]
    );
    assert_eq!(t.stderr, "");
    // The index on disk says the same.
    let idx: Value = serde_json::from_slice(
        &std::fs::read(s.wf_dir(A, "wf").join("index.json")).expect("index"),
    )
    .expect("index JSON");
    assert_eq!(idx["version"], 1);
    assert_eq!(idx["workflow_id"], "wf");
    assert_eq!(idx["results"], j["steps"]);
}

#[test]
fn the_index_is_rebuilt_after_deleting_or_corrupting_it() {
    let s = Sandbox::new();
    for t in ["t3", "t1", "t2"] {
        s.put(A, "wf", t, t.as_bytes()).ok();
    }
    let want = s.run_as(A, &["result", "get", "wf", "--json"]).ok().json()["steps"].clone();
    let idx = s.wf_dir(A, "wf").join("index.json");
    let damages: [(&str, Option<&str>); 4] = [
        ("deleted", None),
        ("corrupted", Some("{\"version\":1,\"results\":[tru")),
        (
            "unknown version",
            Some("{\"version\":2,\"workflow_id\":\"wf\",\"results\":[]}"),
        ),
        (
            "a result missing",
            Some("{\"version\":1,\"workflow_id\":\"wf\",\"results\":[]}"),
        ),
    ];
    for (what, bytes) in damages {
        match bytes {
            None => std::fs::remove_file(&idx).expect("delete index"),
            Some(b) => std::fs::write(&idx, b).expect("damage index"),
        }
        let r = s.run_as(A, &["result", "get", "wf", "--json"]).ok();
        let j = r.json();
        assert_eq!(j["steps"], want, "{what}");
        assert_eq!(
            j["warnings"].as_array().expect("warnings").len(),
            1,
            "{what}: {j}"
        );
        assert!(
            r.stderr.starts_with("warning: ") && r.stderr.contains("rebuilt"),
            "{what}: {}",
            r.stderr
        );
        // Repaired on disk: the next listing is quiet and the same.
        let again = s.run_as(A, &["result", "get", "wf"]).ok();
        assert_eq!(again.stderr, "", "{what}");
        let j = s.run_as(A, &["result", "get", "wf", "--json"]).ok().json();
        assert_eq!(j["steps"], want, "{what}");
    }
    // A result whose put died before the index update is picked up.
    s.put(A, "wf", "t4", b"t4").ok();
    let idx_before = std::fs::read(&idx).expect("index");
    std::fs::remove_file(s.wf_dir(A, "wf").join("t4.result")).expect("remove");
    let r = s.run_as(A, &["result", "get", "wf", "--json"]).ok();
    assert_eq!(r.json()["steps"], want);
    assert!(r.stderr.contains("out of step"), "{}", r.stderr);
    assert_ne!(std::fs::read(&idx).expect("index"), idx_before);
}

#[test]
fn path_traversal_ids_are_refused_and_nothing_is_created() {
    let s = Sandbox::new();
    std::fs::create_dir_all(&s.root).expect("root");
    let before = tree(s.dir.path());
    for bad in ["..", "a/b", "/etc", "../x", ".hidden", "a\\b", ""] {
        for args in [
            vec!["result", "put", bad, "t"],
            vec!["result", "put", "wf", bad],
            vec!["result", "get", bad],
            vec!["result", "get", bad, "t"],
            vec!["result", "get", "wf", bad],
            vec!["result", "wait", bad, "t", "--timeout", "0.1"],
            vec!["result", "wait", "wf", bad, "--timeout", "0.1"],
        ] {
            let mut with_json = args.clone();
            with_json.push("--json");
            let e = s
                .run_as_stdin(A, &with_json, b"payload")
                .json_error_exit("invalid_id", 1);
            assert_eq!(e["value"], bad, "{args:?}");
            s.run_as_stdin(A, &args, b"payload")
                .text_error_exit("invalid_id", 1);
        }
    }
    // Owner ids are checked the same way.
    s.run_as_stdin("..", &["result", "put", "wf", "t"], b"x")
        .text_error_exit("invalid_id", 1);
    assert_eq!(tree(s.dir.path()), before);
}

#[test]
fn owners_cannot_reach_each_others_results() {
    let s = Sandbox::new();
    s.put("agt_a", "wf", "t", b"secret of a").ok();
    s.run_as("agt_b", &["result", "get", "wf", "t"])
        .text_error("owner_not_found");
    s.run_as("agt_b", &["add", "agt_b exists"]).ok();
    // B knows no workflow "wf": A's is not B's.
    s.run_as("agt_b", &["result", "get", "wf", "t"])
        .text_error("result_not_found");
    s.run_as("agt_b", &["result", "get", "wf"])
        .text_error("result_not_found");
    // A wait that ends with "wf" still unknown says so, rather than "poll".
    s.run_as("agt_b", &["result", "wait", "wf", "t", "--timeout", "0.2"])
        .text_error_exit("result_not_found", 1);
    // B's own result under the same ids is B's alone.
    s.put("agt_b", "wf", "t", b"b's own").ok();
    assert_eq!(
        s.run_as("agt_a", &["result", "get", "wf", "t"]).ok().stdout,
        b"secret of a"
    );
    assert_eq!(
        s.run_as("agt_b", &["result", "get", "wf", "t"]).ok().stdout,
        b"b's own"
    );
    // Ids cannot climb into another owner's folder.
    s.run_as("agt_b", &["result", "get", "..", "t"])
        .text_error_exit("invalid_id", 1);
    s.run_as("agt_b", &["result", "get", "../../agt_a/results/wf", "t"])
        .text_error_exit("invalid_id", 1);
}

#[cfg(unix)]
#[test]
fn a_symlinked_results_folder_is_refused() {
    let s = Sandbox::new();
    s.put("agt_a", "wf", "t", b"a's").ok();
    std::fs::create_dir_all(s.root.join("agt_b")).expect("b");
    std::os::unix::fs::symlink(s.root.join("agt_a/results"), s.root.join("agt_b/results"))
        .expect("symlink");
    s.run_as("agt_b", &["result", "get", "wf", "t"])
        .text_error_exit("unsafe_path", 1);
    s.put("agt_b", "wf", "t", b"b's")
        .text_error_exit("unsafe_path", 1);
    assert_eq!(
        s.run_as("agt_a", &["result", "get", "wf", "t"]).ok().stdout,
        b"a's"
    );
}

#[test]
fn results_are_immutable_unless_overwritten() {
    let s = Sandbox::new();
    let first = s
        .run_as_stdin(A, &["result", "put", "wf", "t", "--json"], b"v1")
        .ok()
        .json();
    let again = s
        .run_as_stdin(A, &["result", "put", "wf", "t", "--json"], b"v1")
        .ok()
        .json();
    assert_eq!(again["message"], "already stored");
    assert_eq!(again["created_at"], first["created_at"]);
    let t = s.put(A, "wf", "t", b"v1").ok();
    assert!(t.text().starts_with("already stored wf/t "), "{}", t.text());

    let e = s
        .run_as_stdin(A, &["result", "put", "wf", "t", "--json"], b"v2")
        .json_error_exit("result_exists", 1);
    assert_eq!(e["workflow_id"], "wf");
    assert_eq!(e["task_id"], "t");
    assert_eq!(e["status"], 409);
    s.put(A, "wf", "t", b"v2")
        .text_error_exit("result_exists", 1);
    assert_eq!(
        s.run_as(A, &["result", "get", "wf", "t"]).ok().stdout,
        b"v1"
    );

    let over = s
        .run_as_stdin(
            A,
            &["result", "put", "wf", "t", "--overwrite", "--json"],
            b"v2",
        )
        .ok()
        .json();
    assert_eq!(over["message"], "overwritten");
    assert_eq!(over["sha256"], sha256(b"v2"));
    assert_eq!(
        s.run_as(A, &["result", "get", "wf", "t"]).ok().stdout,
        b"v2"
    );
    let steps = s.run_as(A, &["result", "get", "wf", "--json"]).ok().json()["steps"].clone();
    assert_eq!(steps.as_array().expect("steps").len(), 1);
    assert_eq!(steps[0]["sha256"], sha256(b"v2"));
    // Overwriting with the same content is still a no-op.
    let same = s
        .run_as_stdin(
            A,
            &["result", "put", "wf", "t", "--overwrite", "--json"],
            b"v2",
        )
        .ok()
        .json();
    assert_eq!(same["message"], "already stored");
}

#[test]
fn a_result_over_16_mib_is_refused() {
    let s = Sandbox::new();
    let limit = 16 * 1024 * 1024;
    let big = vec![b'x'; limit + 1];
    let e = s
        .run_as_stdin(A, &["result", "put", "wf", "big", "--json"], &big)
        .json_error_exit("result_too_large", 1);
    assert_eq!(e["bytes"], limit + 1);
    assert_eq!(e["limit"], limit);
    assert_eq!(e["status"], 413);
    assert!(!s.wf_dir(A, "wf").join("big.result").exists());
    // Exactly the limit is fine.
    let f = s.dir.path().join("max");
    std::fs::write(&f, &big[..limit]).expect("write");
    s.run_as(
        A,
        &[
            "result",
            "put",
            "wf",
            "big",
            "--file",
            f.to_str().expect("path"),
        ],
    )
    .ok();
    let j = s.run_as(A, &["result", "get", "wf", "--json"]).ok().json();
    assert_eq!(j["steps"][0]["bytes"], limit);
}

#[test]
fn memdir_yaml_sets_the_result_limit() {
    let s = Sandbox::new();
    std::fs::create_dir_all(&s.root).expect("root");
    std::fs::write(s.root.join("memdir.yaml"), "max_result_bytes: 1000\n").expect("yaml");
    let over = vec![b'x'; 1001];
    let e = s
        .run_as_stdin(A, &["result", "put", "wf", "big", "--json"], &over)
        .json_error_exit("result_too_large", 1);
    assert_eq!(e["bytes"], 1001);
    assert_eq!(e["limit"], 1000);
    assert_eq!(e["status"], 413);
    // From a file too, and nothing is written.
    let f = s.dir.path().join("over");
    std::fs::write(&f, &over).expect("write");
    s.run_as(
        A,
        &[
            "result",
            "put",
            "wf",
            "big",
            "--file",
            f.to_str().expect("path"),
        ],
    )
    .text_error_exit("result_too_large", 1);
    assert!(!s.wf_dir(A, "wf").join("big.result").exists());
    // Exactly the limit is fine.
    s.put(A, "wf", "big", &over[..1000]).ok();
    // The owner's memdir.yaml wins over the root's.
    std::fs::write(
        s.root.join(A).join("memdir.yaml"),
        "max_result_bytes: 2000\n",
    )
    .expect("owner yaml");
    s.put(A, "wf", "bigger", &over).ok();
    assert_eq!(
        s.run_as(A, &["result", "get", "wf", "bigger"]).ok().stdout,
        over
    );
}

#[test]
fn a_damaged_result_file_is_result_corrupt() {
    let s = Sandbox::new();
    s.put(A, "wf", "t", b"hello").ok();
    let p = s.wf_dir(A, "wf").join("t.result");
    let mut raw = std::fs::read(&p).expect("read");
    *raw.last_mut().expect("content") ^= 1;
    std::fs::write(&p, &raw).expect("damage");
    let e = s
        .run_as(A, &["result", "get", "wf", "t", "--json"])
        .json_error_exit("result_corrupt", 1);
    assert_eq!(e["status"], 500);
    assert_eq!(e["path"], p.to_str().expect("UTF-8"));
    assert!(
        e["message"].as_str().expect("message").contains("SHA-256"),
        "{e}"
    );
    s.run_as(A, &["result", "wait", "wf", "t"])
        .text_error_exit("result_corrupt", 1);
    s.put(A, "wf", "t", b"again")
        .text_error_exit("result_corrupt", 1);
    // Never repaired: only an overwrite replaces it.
    assert_eq!(std::fs::read(&p).expect("read"), raw);
    s.run_as_stdin(A, &["result", "put", "wf", "t", "--overwrite"], b"again")
        .ok();
    assert_eq!(
        s.run_as(A, &["result", "get", "wf", "t"]).ok().stdout,
        b"again"
    );
}

#[cfg(unix)]
#[test]
fn lock_timeout_ms_applies_to_the_workflow_lock() {
    let _alone = util::exclusive();
    use fs2::FileExt;
    let s = Sandbox::new();
    s.put(A, "wf", "t", b"x").ok();
    let path = s.root.join(A).join(".memdir/locks/wf.lock");
    let lock = std::fs::File::open(&path).expect("lock file");
    lock.lock_exclusive().expect("lock");
    let t = Instant::now();
    let e = s
        .run_as_stdin(
            A,
            &[
                "--lock-timeout-ms",
                "200",
                "result",
                "put",
                "wf",
                "u",
                "--json",
            ],
            b"y",
        )
        .json_error_exit("locked", 1);
    let took = t.elapsed();
    assert_eq!(e["path"], path.to_str().expect("UTF-8"));
    assert!(
        took >= Duration::from_millis(200) && took < Duration::from_secs(5),
        "{took:?}"
    );
    FileExt::unlock(&lock).expect("unlock");
    s.run_as_stdin(
        A,
        &["--lock-timeout-ms", "200", "result", "put", "wf", "u"],
        b"y",
    )
    .ok();
}

#[test]
fn concurrent_puts_from_processes_lose_nothing() {
    const PROCS: usize = 6;
    const PUTS: usize = 20;
    let s = Sandbox::new();
    let root = s.root.to_str().expect("root").to_owned();
    // Each worker is a shell loop running the real binary PUTS times.
    let workers: Vec<Child> = (0..PROCS)
        .map(|p| {
            let script = format!(
                "i=0; while [ $i -lt {PUTS} ]; do printf 'p{p} i%s' $i | \"$0\" --root \"$1\" --owner {A} result put wf p{p}-t$i || exit 1; i=$((i+1)); done"
            );
            Command::new("sh")
                .arg("-c")
                .arg(script)
                .arg(BIN)
                .arg(&root)
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .expect("spawn worker")
        })
        .collect();
    for w in workers {
        let out = w.wait_with_output().expect("worker");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let j = s.run_as(A, &["result", "get", "wf", "--json"]).ok().json();
    assert_eq!(j["warnings"], serde_json::json!([]), "{j}");
    let listed: BTreeSet<String> = task_ids(&j["steps"]).into_iter().collect();
    let want: BTreeSet<String> = (0..PROCS)
        .flat_map(|p| (0..PUTS).map(move |i| format!("p{p}-t{i}")))
        .collect();
    assert_eq!(listed, want);
    // The index equals the files on disk.
    let on_disk: BTreeSet<String> = std::fs::read_dir(s.wf_dir(A, "wf"))
        .expect("read_dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .filter_map(|n| n.strip_suffix(".result").map(str::to_owned))
        .collect();
    assert_eq!(on_disk, want);
    let idx: Value = serde_json::from_slice(
        &std::fs::read(s.wf_dir(A, "wf").join("index.json")).expect("index"),
    )
    .expect("JSON");
    assert_eq!(idx["results"], j["steps"]);
    for step in j["steps"].as_array().expect("steps") {
        let t = step["task_id"].as_str().expect("id");
        let (p, i) = t.split_once("-t").expect("p-t");
        let want = format!("{p} i{i}");
        assert_eq!(step["sha256"], sha256(want.as_bytes()), "{t}");
    }
    assert_eq!(
        s.run_as(A, &["result", "get", "wf", "p3-t17"]).ok().stdout,
        b"p3 i17"
    );
}

/// The CPU time a live process has spent so far (user + system), from
/// `/proc/PID/stat`.
fn cpu_time(pid: u32) -> Duration {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).expect("stat");
    // The fields after the command name, which is in parentheses.
    let rest = &stat[stat.rfind(')').expect("comm") + 2..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    // utime and stime are fields 14 and 15 of the whole line.
    let ticks: u64 = f[11].parse::<u64>().expect("utime") + f[12].parse::<u64>().expect("stime");
    let out = Command::new("getconf")
        .arg("CLK_TCK")
        .output()
        .expect("getconf");
    let per_s: u64 = String::from_utf8_lossy(&out.stdout)
        .trim()
        .parse()
        .expect("CLK_TCK");
    Duration::from_millis(ticks * 1000 / per_s)
}

/// A child process killed and reaped when the test ends, even by a panic.
struct Reap(Option<Child>);

impl Reap {
    fn id(&self) -> u32 {
        self.0.as_ref().expect("the child").id()
    }

    /// The child, no longer killed at the end.
    fn take(&mut self) -> Child {
        self.0.take().expect("the child")
    }
}

impl Drop for Reap {
    fn drop(&mut self) {
        if let Some(mut c) = self.0.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

/// Waits until `result get WF TASK` of `owner` answers `not_ready` (for a
/// workflow only a running wait makes known: the wait has begun).
fn until_known(s: &Sandbox, owner: &str, wf: &str) {
    let until = Instant::now() + Duration::from_secs(30);
    loop {
        let r = s.run_as(owner, &["result", "get", wf, "t"]);
        if r.code == 3 {
            return;
        }
        assert_eq!(r.code, 1, "{r:?}");
        assert!(Instant::now() < until, "the wait never registered: {r:?}");
    }
}

#[test]
fn a_wait_costs_next_to_nothing_and_wakes_promptly_when_another_process_puts() {
    let _alone = util::exclusive();
    let s = Sandbox::new();
    // A read (a wait too) needs the owner to exist; nothing knows "wf" but
    // the wait.
    s.run_as(A, &["add", "agt_a exists"]).ok();
    let waiter = s
        .owner_cmd(
            A,
            &["result", "wait", "wf", "slow", "--timeout", "30", "--json"],
        )
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn waiter");
    let mut waiter = Reap(Some(waiter));
    until_known(&s, A, "wf");
    // Two seconds of waiting: next to no CPU (it burned about 1 s of CPU in
    // 2 s when it was woken by its own reads). The sleep is the interval
    // measured, not a synchronisation.
    let since = Instant::now();
    std::thread::sleep(Duration::from_secs(2));
    let cpu = cpu_time(waiter.id());
    assert!(
        cpu < Duration::from_millis(100),
        "the waiter spent {cpu:?} of CPU in {:?}",
        since.elapsed()
    );
    // Creates no folder of results while it waits.
    assert!(!s.owner_dir(A).join("results").exists());
    s.put(A, "wf", "slow", b"finally").ok();
    let put_done = Instant::now();
    let out = waiter.take().wait_with_output().expect("waiter");
    let woke = put_done.elapsed();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let j: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(j["content"], "finally");
    assert!(woke < Duration::from_secs(1), "woke {woke:?} after the put");

    // Already there: at once, raw.
    let t = Instant::now();
    assert_eq!(
        s.run_as(A, &["result", "wait", "wf", "slow"]).ok().stdout,
        b"finally"
    );
    assert!(t.elapsed() < Duration::from_secs(2));
}

#[test]
fn a_running_wait_makes_its_workflow_known_until_it_is_killed() {
    let s = Sandbox::new();
    s.run_as(A, &["add", "agt_a exists"]).ok();
    s.run_as(A, &["result", "get", "wf", "t"])
        .text_error_exit("result_not_found", 1);
    let mut waiter = Reap(Some(
        s.owner_cmd(A, &["result", "wait", "wf", "later", "--timeout", "60"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn waiter"),
    ));
    until_known(&s, A, "wf");
    let e = s
        .run_as(A, &["--json", "result", "get", "wf"])
        .json_error_exit("not_ready", 3);
    assert_eq!(e["workflow_id"], "wf");
    // Another workflow stays unknown; the wait created no folder of it.
    s.run_as(A, &["result", "get", "wf2", "t"])
        .text_error_exit("result_not_found", 1);
    assert!(!s.owner_dir(A).join("results").exists());
    // A kill -9 leaves no registration behind: the kernel drops the lock.
    let mut child = waiter.take();
    child.kill().expect("kill");
    child.wait().expect("reap");
    let e = s
        .run_as(A, &["--json", "result", "get", "wf", "t"])
        .json_error_exit("result_not_found", 1);
    assert!(
        e["message"]
            .as_str()
            .unwrap_or_default()
            .contains("check the workflow id"),
        "{e}"
    );
}

#[test]
fn empty_content_is_refused_unless_allowed() {
    let s = Sandbox::new();
    let before = tree(s.dir.path());
    let e = s
        .run_as_stdin(A, &["--json", "result", "put", "wf", "t"], b"")
        .json_error_exit("invalid_request", 1);
    assert_eq!(
        (e["status"].clone(), e["bytes"].clone()),
        (json!(400), json!(0))
    );
    let m = s.put(A, "wf", "t", b"").text_error("invalid_request");
    assert!(m.contains("empty") && m.contains("--allow-empty"), "{m}");
    assert_eq!(tree(s.dir.path()), before, "a refused put wrote something");
    let put = s
        .run_as_stdin(
            A,
            &["--json", "result", "put", "wf", "t", "--allow-empty"],
            b"",
        )
        .ok()
        .json();
    assert_eq!(
        (put["status"].clone(), put["bytes"].clone()),
        (json!("stored"), json!(0))
    );
    assert_eq!(s.run_as(A, &["result", "get", "wf", "t"]).ok().stdout, b"");
    // A producer whose empty output was refused can still put its real one
    // (a stored empty result would make it result_exists).
    s.put(A, "wf", "t2", b"").text_error("invalid_request");
    s.put(A, "wf", "t2", b"the real result").ok();
}

#[test]
fn content_that_is_not_text_needs_its_type() {
    let s = Sandbox::new();
    for (bytes, reason, offset) in [
        (&b"PNG\x89\xff\x00"[..], "invalid UTF-8", 3),
        (&b"text\x00more"[..], "a NUL byte", 4),
    ] {
        let f = s.dir.path().join("blob.bin");
        std::fs::write(&f, bytes).expect("write");
        let file = f.to_str().expect("utf-8 path");
        let e = s
            .run_as(A, &["--json", "result", "put", "wf", "b", "--file", file])
            .json_error_exit("invalid_request", 1);
        assert_eq!(
            (e["reason"].clone(), e["offset"].clone()),
            (json!(reason), json!(offset))
        );
        let m = e["message"].as_str().unwrap_or_default();
        assert!(m.contains("--type"), "{m}");
        assert!(!s.wf_dir(A, "wf").join("b.result").exists());
    }
    let f = s.dir.path().join("blob.bin");
    let file = f.to_str().expect("utf-8 path");
    let put = s
        .run_as(
            A,
            &[
                "--json",
                "result",
                "put",
                "wf",
                "b",
                "--file",
                file,
                "--type",
                "application/octet-stream",
            ],
        )
        .ok()
        .json();
    assert_eq!(put["content_type"], "application/octet-stream");
    let got = s
        .run_as(A, &["--json", "result", "get", "wf", "b"])
        .ok()
        .json();
    assert_eq!(got["sha256"], sha256(b"text\x00more"));
    assert_eq!(got["content_type"], "application/octet-stream");
    // Text, even with control characters other than NUL, is text/plain.
    let put = s.put(A, "wf", "tab", b"a\tb\r\n\x1b[0m").ok();
    assert!(put.text().contains("text/plain"), "{put:?}");
}

#[test]
fn wait_times_out_with_not_ready() {
    let _alone = util::exclusive();
    let s = Sandbox::new();
    s.run_as(A, &["run", "begin", "--workflow", "wf"]).ok();
    let t = Instant::now();
    let e = s
        .run_as(
            A,
            &[
                "result",
                "wait",
                "wf",
                "never",
                "--timeout",
                "0.3",
                "--json",
            ],
        )
        .json_error_exit("not_ready", 3);
    let took = t.elapsed();
    assert_eq!(e["task_id"], "never");
    assert!(e["waited_ms"].as_u64().is_some(), "{e}");
    // The timeout message names the workflow, the task and the wait.
    let m = e["message"].as_str().unwrap_or_default();
    assert!(
        m.contains("\"wf\"") && m.contains("\"never\"") && m.contains("after waiting 0.300 s"),
        "{m}"
    );
    assert!(took >= Duration::from_millis(300), "{took:?}");
    assert!(took < Duration::from_secs(5), "{took:?}");
    s.run_as(A, &["result", "wait", "wf", "never", "--timeout", "0"])
        .text_error_exit("not_ready", 3);
    assert_eq!(
        s.run_as(A, &["result", "wait", "wf", "never", "--timeout", "-1"])
            .code,
        2
    );
    let r = s.run_as(A, &["result", "wait", "wf", "never", "--timeout", "soon"]);
    assert_eq!(r.code, 2, "{r:?}");
}
