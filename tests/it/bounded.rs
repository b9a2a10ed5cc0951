//! Bounded work on hostile files, through the real binary: a file's size is
//! checked before it is read (a sparse 4 GB MEMORY.md is refused at once),
//! memdir never writes a store it would refuse to read but still lets an
//! oversized one be curated back, YAML is bounded before it is parsed, and
//! a killed writer's temp files under `.memdir/` are swept.

use std::time::{Duration, Instant, SystemTime};

use crate::util::Sandbox;

const O: &str = "agt_b";
const MIB: usize = 1024 * 1024;

#[test]
fn a_huge_sparse_store_is_refused_before_it_is_read() {
    let s = Sandbox::new();
    s.run_as(O, &["add", "x"]).ok();
    let f = std::fs::OpenOptions::new()
        .write(true)
        .open(s.path(O, "MEMORY.md"))
        .unwrap();
    f.set_len(4 << 30).unwrap(); // 4 GiB, sparse
    for args in [&["show"][..], &["snapshot"], &["recall"], &["add", "y"]] {
        let t = Instant::now();
        let e = s
            .run(&[&["--owner", O, "--json"][..], args].concat())
            .json_error("file_too_large");
        assert_eq!(e["path"], s.path(O, "MEMORY.md").to_str().unwrap());
        assert!(
            t.elapsed() < Duration::from_secs(2),
            "{args:?}: {:?}",
            t.elapsed()
        );
    }
}

#[test]
fn memdir_never_writes_a_store_it_would_refuse_to_read() {
    let s = Sandbox::new();
    s.run_as(O, &["add", "first"]).ok();
    // Prose (not entries, so no budget counts it) brings the file just under
    // 1 MiB.
    let head = s.read_text(O, "MEMORY.md");
    let prose = format!(
        "\n{}\n",
        "lorem ipsum ".repeat((MIB - head.len() - 100) / 12)
    );
    let file = format!("{head}{prose}");
    assert!(file.len() < MIB && file.len() > MIB - 200);
    s.write(O, "MEMORY.md", &file);
    s.run_as(O, &["show"]).ok();
    let e = s
        .run(&["--owner", O, "--json", "add", &"z".repeat(300)])
        .json_error("file_too_large");
    assert_eq!(e["status"], 422);
    assert_eq!(s.read_text(O, "MEMORY.md"), file, "unchanged");
    // Grown past the limit by hand: reads refuse it, but an agent can
    // curate its way back.
    let grown = format!("{file}{}\n- second\n- third\n", "more prose ".repeat(2000));
    s.write(O, "MEMORY.md", &grown);
    s.run(&["--owner", O, "--json", "show"])
        .json_error("file_too_large");
    s.run(&["--owner", O, "--json", "add", "fourth"])
        .json_error("file_too_large");
    s.run_as(O, &["remove", "second"]).ok();
    s.run_as(
        O,
        &[
            "archive",
            &memdir::api::types::entry_id("memory", "third"),
            "--reason",
            "curating",
        ],
    )
    .ok();
    let now = s.read_text(O, "MEMORY.md");
    assert!(now.len() < grown.len());
    assert!(!now.contains("- second") && !now.contains("- third"));
    assert!(s.read_text(O, "archive.md").contains("- third"));
}

#[test]
fn deeply_nested_yaml_is_refused_at_once() {
    let s = Sandbox::new();
    s.run_as(O, &["add", "x"]).ok();
    let mem = s.read_text(O, "MEMORY.md");
    // 100 KB of nested sequence in the front matter.
    let nested = format!(
        "---\nx: {}{}\n---\n",
        "[".repeat(50_000),
        "]".repeat(50_000)
    );
    s.write(O, "MEMORY.md", format!("{nested}{mem}"));
    for args in [&["show"][..], &["snapshot"], &["add", "y"]] {
        let t = Instant::now();
        s.run(&[&["--owner", O, "--json"][..], args].concat())
            .json_error("invalid_config");
        assert!(
            t.elapsed() < Duration::from_secs(2),
            "{args:?}: {:?}",
            t.elapsed()
        );
    }
    // And in memdir.yaml, compact sequences nested deep but small.
    s.write(O, "MEMORY.md", &mem);
    std::fs::write(
        s.root.join("memdir.yaml"),
        format!("budgets:\n  memory: {}3000\n", "- ".repeat(200)),
    )
    .unwrap();
    let t = Instant::now();
    s.run(&["--owner", O, "--json", "add", "y"])
        .json_error("invalid_config");
    assert!(t.elapsed() < Duration::from_secs(2));
}

#[test]
fn stale_temp_files_under_memdir_are_swept() {
    let s = Sandbox::new();
    let run = s.json_ok(&["--owner", O, "run", "begin"]);
    assert!(run["run_id"].is_string());
    let old = SystemTime::now() - Duration::from_secs(3600);
    let mut leftovers = Vec::new();
    for dir in [".memdir", ".memdir/runs", ".memdir/snapshots"] {
        let stale = s.write(
            O,
            &format!("{dir}/.x.json.0011223344556677.memdir-tmp"),
            "killed",
        );
        std::fs::File::options()
            .write(true)
            .open(&stale)
            .unwrap()
            .set_modified(old)
            .unwrap();
        let fresh = s.write(
            O,
            &format!("{dir}/.y.json.8899aabbccddeeff.memdir-tmp"),
            "in flight",
        );
        leftovers.push((stale, fresh));
    }
    // A write takes the owner's lock (sweeping the owner's folder and
    // `.memdir/`); a run begin writes in runs/ and snapshots/.
    s.run_as(O, &["add", "a fact"]).ok();
    s.run_as(O, &["run", "begin"]).ok();
    for (stale, fresh) in leftovers {
        assert!(!stale.exists(), "{} left", stale.display());
        assert!(fresh.exists(), "{} (in flight) removed", fresh.display());
    }
}
