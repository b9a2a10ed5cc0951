//! Settings a `git pull` can change are bounded: every numeric key of
//! `memdir.yaml` is clamped into its range with a warning (docs/FORMAT.md,
//! Ranges), and `results_quota_bytes` refuses a put past the owner's quota
//! on every surface.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::http::{make_key, serve};
use crate::util::{self, Sandbox};

const O: &str = "agt_bounds";

/// The findings of `check --json` of `kind`.
fn findings(s: &Sandbox, kind: &str) -> Vec<Value> {
    let v = s.run(&["--owner", O, "check", "--json"]).json();
    v["reports"][0]["findings"]
        .as_array()
        .unwrap_or_else(|| panic!("findings: {v}"))
        .iter()
        .filter(|f| f["kind"] == kind)
        .cloned()
        .collect()
}

#[test]
fn a_pulled_lock_timeout_of_u64_max_is_clamped_to_a_minute_with_a_warning() {
    let s = Sandbox::new();
    s.run(&["--owner", O, "add", "A fact before the pull"]).ok();
    std::fs::write(
        s.root.join("memdir.yaml"),
        "lock_timeout_ms: 18446744073709551615\nmax_result_bytes: 1099511627776\n",
    )
    .expect("write memdir.yaml");
    // check names both keys, the value asked and the value used.
    let clamped = findings(&s, "setting_clamped");
    assert_eq!(clamped.len(), 2, "{clamped:?}");
    assert_eq!(clamped[0]["file"], "memdir.yaml");
    assert_eq!(clamped[0]["severity"], "warning");
    assert_eq!(
        clamped[0]["message"],
        "`lock_timeout_ms` 18446744073709551615 is outside 0-60000: 60000 is used"
    );
    assert_eq!(
        clamped[1]["message"],
        "`max_result_bytes` 1099511627776 is outside 1-67108864: 67108864 is used"
    );
    // show carries them as the first store's warnings…
    let show = s.json_ok(&["--owner", O, "show"]);
    let w = show["stores"][0]["warnings"].to_string();
    assert!(w.contains("setting_clamped: `lock_timeout_ms`"), "{w}");
    // …and a write's answer as its warnings, naming the file.
    let add = s.json_ok(&["--owner", O, "add", "A fact after the pull"]);
    let root_yaml = s.root.join("memdir.yaml");
    assert!(
        add["warnings"]
            .as_array()
            .expect("warnings")
            .contains(&json!(format!(
                "{}: `lock_timeout_ms` 18446744073709551615 clamped to 60000 (allowed 0-60000)",
                root_yaml.display()
            ))),
        "{add}"
    );
    // The result limit used is the ceiling: one byte over 64 MiB is refused.
    let over = vec![b'x'; (64 << 20) + 1];
    let e = s
        .run_as_stdin(O, &["--json", "result", "put", "wf", "t"], &over)
        .json_error("result_too_large");
    assert_eq!(e["limit"], 64u64 << 20, "{e}");
}

#[cfg(unix)]
#[test]
fn a_pulled_lock_timeout_under_the_cap_is_the_wait() {
    let _alone = util::exclusive();
    use fs2::FileExt;
    let s = Sandbox::new();
    s.run(&["--owner", O, "add", "before"]).ok();
    s.write(O, "memdir.yaml", "lock_timeout_ms: 300\n");
    assert!(findings(&s, "setting_clamped").is_empty());
    let lock = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(s.path(O, ".memdir/lock"))
        .expect("open lock");
    lock.lock_exclusive().expect("lock");
    let t = Instant::now();
    s.run(&["--owner", O, "add", "x"]).text_error("locked");
    let took = t.elapsed();
    assert!(took >= Duration::from_millis(300), "{took:?}");
    assert!(took < Duration::from_secs(60), "{took:?}");
    FileExt::unlock(&lock).expect("unlock");
}

#[test]
fn a_put_past_the_results_quota_is_refused_over_the_cli() {
    let s = Sandbox::new();
    s.write(O, "memdir.yaml", "results_quota_bytes: 10\n");
    s.run_as_stdin(O, &["result", "put", "wf1", "a"], b"123456")
        .ok();
    // 6 stored in another workflow + 5 is past 10.
    let e = s
        .run_as_stdin(O, &["--json", "result", "put", "wf2", "b"], b"12345")
        .json_error_exit("results_quota_exceeded", 1);
    assert_eq!(
        (e["status"].clone(), e["bytes"].clone(), e["quota"].clone()),
        (json!(413), json!(11), json!(10)),
        "{e}"
    );
    assert!(!s.owner_dir(O).join("results/wf2/b.result").exists());
    // 6 + 4 fits; an overwrite counts the new content, not the old.
    s.run_as_stdin(O, &["result", "put", "wf2", "b"], b"1234")
        .ok();
    s.run_as_stdin(O, &["result", "put", "wf1", "a", "--overwrite"], b"12")
        .ok();
    s.run_as_stdin(O, &["result", "put", "wf1", "c"], b"1234")
        .ok();
    // A deleted index is rebuilt from the files: the count holds.
    std::fs::remove_file(s.owner_dir(O).join("results/wf2/index.json")).expect("rm index");
    s.run_as_stdin(O, &["--json", "result", "put", "wf3", "d"], b"1")
        .json_error_exit("results_quota_exceeded", 1);
    // The same content again stores nothing and is no refusal.
    s.run_as_stdin(O, &["result", "put", "wf2", "b"], b"1234")
        .ok();
}

#[test]
fn a_put_past_the_results_quota_is_refused_over_http() {
    let s = Sandbox::new();
    let key = make_key(&s, &["--owner", O]);
    s.write(O, "memdir.yaml", "results_quota_bytes: 8\n");
    let srv = serve(&s, &[]);
    let put = |path: &str, body: &[u8]| srv.put(&key, path, "text/plain", body);
    let first = put("/v1/workflows/results/wf/a", b"12345");
    assert_eq!(first.status, 201, "{first:?}");
    let refused = put("/v1/workflows/results/wf/b", b"1234");
    assert_eq!(refused.status, 413, "{refused:?}");
    let e = refused.json()["error"].clone();
    assert_eq!(
        (e["code"].clone(), e["bytes"].clone(), e["quota"].clone()),
        (json!("results_quota_exceeded"), json!(9), json!(8)),
        "{e}"
    );
    let fits = put("/v1/workflows/results/wf/b", b"123");
    assert_eq!(fits.status, 201, "{fits:?}");
}
