//! Golden snapshots: fixture folders with their expected bytes and SHA-256,
//! rendered by separate processes of the real binary.

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::util::{command, run_at, run_cmd};

fn cases() -> Vec<PathBuf> {
    let dir = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/..")).join("fixtures/snapshots");
    let mut cases: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("expected.md").exists())
        .collect();
    cases.sort();
    cases
}

fn snapshot(root: &Path, json: bool) -> Vec<u8> {
    let mut cmd = command();
    cmd.args(["--owner", "o", "snapshot"])
        .arg("--root")
        .arg(root);
    if json {
        cmd.arg("--json");
    }
    let out = run_cmd(cmd);
    assert!(out.success(), "{}", out.stderr);
    out.stdout
}

#[test]
fn golden_snapshots_are_byte_identical_across_processes() {
    let cases = cases();
    assert!(cases.len() >= 4, "fixture cases missing");
    for case in cases {
        let root = case.join("root");
        let expected = std::fs::read(case.join("expected.md")).unwrap();
        let expected_sha = std::fs::read_to_string(case.join("expected.sha256")).unwrap();
        let first = snapshot(&root, false);
        let second = snapshot(&root, false);
        assert_eq!(first, second, "{}: two processes differ", case.display());
        assert_eq!(
            String::from_utf8_lossy(&first),
            String::from_utf8_lossy(&expected),
            "{}",
            case.display()
        );
        assert_eq!(
            hex::encode(Sha256::digest(&first)),
            expected_sha.trim(),
            "{}",
            case.display()
        );
        assert!(
            !first.contains(&b'\r'),
            "{}: CR in snapshot",
            case.display()
        );

        let v: serde_json::Value = serde_json::from_slice(&snapshot(&root, true)).unwrap();
        assert_eq!(v["text"].as_str().unwrap().as_bytes(), &expected[..]);
        assert_eq!(v["sha256"], expected_sha.trim());
        assert_eq!(v["bytes"], expected.len());
    }
}

#[test]
fn blocked_entries_are_reported_and_raw_text_is_shown_to_a_person_asking() {
    let root = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
        .join("fixtures/snapshots/blocked/root");
    let v: serde_json::Value = serde_json::from_slice(&snapshot(&root, true)).unwrap();
    let blocked: Vec<&str> = v["blocked"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b.as_str().unwrap())
        .collect();
    assert_eq!(blocked.len(), 3, "{blocked:?}");
    assert!(!v["text"].as_str().unwrap().contains("id_rsa"));
    let mut cmd = command();
    cmd.args(["--owner", "o", "show", "--in", "memory"])
        .arg("--root")
        .arg(&root);
    let out = run_cmd(cmd);
    assert!(!out.text().contains("~/.ssh/id_rsa"), "{}", out.text());
    assert!(out.text().contains("[BLOCKED: MEMORY.md entry mem_"));
    let mut cmd = command();
    cmd.args([
        "--person", "pat", "--agent", "o", "--raw", "show", "--in", "memory",
    ])
    .arg("--root")
    .arg(&root);
    let out = run_cmd(cmd);
    assert!(out.text().contains("~/.ssh/id_rsa"), "{}", out.text());
}

#[test]
fn over_budget_store_is_cut_and_marked() {
    let root = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
        .join("fixtures/snapshots/over_budget/root");
    let v: serde_json::Value = serde_json::from_slice(&snapshot(&root, true)).unwrap();
    assert_eq!(v["over_budget"][0]["omitted"], 6);
    let text = v["text"].as_str().unwrap();
    assert!(text.contains("Fact number 13") && !text.contains("Fact number 14"));
}

#[test]
fn a_write_during_a_run_changes_the_next_runs_snapshot_only() {
    let d = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| {
        let out = run_at(
            d.path(),
            &[&["--owner", "agt", "--json"][..], args].concat(),
        );
        assert!(out.success(), "{}", out.stderr);
        serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap()
    };
    run(&["add", "known before the run"]);
    let first = run(&["run", "begin"]);
    run(&["add", "learned during the run"]);
    let sha = first["sha256"].as_str().unwrap();
    let stored =
        std::fs::read_to_string(d.path().join(format!("agt/.memdir/snapshots/{sha}.md"))).unwrap();
    assert_eq!(stored, first["text"].as_str().unwrap());
    assert!(!stored.contains("learned during the run"));
    let record = std::fs::read_to_string(d.path().join(format!(
        "agt/.memdir/runs/{}.json",
        first["run_id"].as_str().unwrap()
    )))
    .unwrap();
    assert!(record.contains(sha));
    let second = run(&["run", "begin"]);
    assert!(
        second["text"]
            .as_str()
            .unwrap()
            .contains("learned during the run")
    );
    assert!(second["run_id"].as_str().unwrap() > first["run_id"].as_str().unwrap());
}
