//! Hostile folders and ids through the real binary: nothing is read or
//! written outside the root whatever is planted in it (a symlink swapped in
//! for the owner's folder mid-write, symlinks under `.memdir/`), special
//! files where a file is expected are refused before any I/O (a FIFO at the
//! lock never hangs a writer), ids travel to every file system, and a day
//! line names only a run its owner began.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::util::{Sandbox, tree};

const O: &str = "agt_o";

/// Every file under `dir`, recursively (symlinks not followed).
fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_owned()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            match e.file_type() {
                Ok(t) if t.is_dir() => stack.push(p),
                _ => out.push(p),
            }
        }
    }
    out.sort();
    out
}

#[test]
fn ids_that_would_not_travel_are_refused() {
    let s = Sandbox::new();
    for bad in ["CON", "nul", "Com1", "lpt3.log", "agt.", "aux.tar.gz"] {
        s.run(&["--owner", bad, "--json", "add", "x"])
            .json_error("invalid_id");
    }
    assert!(tree(&s.root).is_empty(), "nothing was created");
    s.run_as(O, &["add", "first fact"]).ok();
    // A case-only twin of an existing owner: on a case-insensitive file
    // system the two would be one folder.
    let twin = "AGT_O";
    let e = s
        .run(&["--owner", twin, "--json", "add", "x"])
        .json_error("invalid_id");
    assert!(e["reason"].as_str().unwrap().contains("agt_o"), "{e}");
    s.run(&["--owner", twin, "--json", "show"])
        .json_error("invalid_id");
    assert!(!s.owner_dir(twin).exists());
    // Workflows and tasks, likewise.
    s.run_as_stdin(O, &["result", "put", "Build", "fetch"], "a")
        .ok();
    s.run_as_stdin(O, &["--json", "result", "put", "build", "x"], "b")
        .json_error("invalid_id");
    s.run_as_stdin(O, &["--json", "result", "put", "Build", "FETCH"], "c")
        .json_error("invalid_id");
    s.run_as_stdin(O, &["--json", "result", "put", "wf", "nul"], "d")
        .json_error("invalid_id");
    let mut names: Vec<String> = std::fs::read_dir(s.path(O, "results/Build"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert_eq!(names, ["fetch.result", "index.json"]);
    assert!(!s.path(O, "results/build").exists());
}

#[test]
fn a_day_line_names_only_a_run_its_owner_began() {
    let s = Sandbox::new();
    let begun = s.json_ok(&["--owner", O, "run", "begin"]);
    let run = begun["run_id"].as_str().unwrap().to_owned();
    s.run_as(O, &["day", "with the run", "--run", &run]).ok();
    let e = s
        .run(&[
            "--owner",
            O,
            "--json",
            "day",
            "x",
            "--run",
            "run-20261130T000000.000000Z-deadbeef",
        ])
        .json_error("run_not_found");
    assert_eq!(e["status"], 404);
    // Another owner cannot write lines of this owner's run, nor finish it.
    s.run_as("agt_b", &["add", "agt_b exists"]).ok();
    s.run(&["--owner", "agt_b", "--json", "day", "x", "--run", &run])
        .json_error("run_not_found");
    s.run(&["--owner", "agt_b", "--json", "run", "finish", &run, "x"])
        .json_error("run_not_found");
    s.run_as(O, &["run", "finish", &run, "done"]).ok();
    let journal = s.read_text(O, "episodes.md");
    assert_eq!(journal.matches(&run).count(), 2, "{journal}");
    assert!(!s.path("agt_b", "episodes.md").exists());
}

/// An attacker swaps the owner's folder for a symlink to a folder outside
/// the root, and back, as fast as it can, while `memdir add` processes run
/// one after the other. A write either lands in the real folder (which memdir
/// opened once and writes through, wherever it is renamed) or is refused;
/// nothing is ever written outside, and every acknowledged add is in a
/// MEMORY.md under the root.
#[test]
fn a_symlink_swapped_in_for_the_owner_folder_never_redirects_a_write() {
    let _alone = crate::util::exclusive();
    let s = Sandbox::new();
    let outside = tempfile::tempdir().unwrap();
    s.run_as(O, &["add", "seed"]).ok();
    let dir = s.owner_dir(O);
    let link = s.root.join("agt_o.link");
    let stop = Arc::new(AtomicBool::new(false));
    let swaps = {
        let (stop, dir, link, root, target) = (
            Arc::clone(&stop),
            dir.clone(),
            link.clone(),
            s.root.clone(),
            outside.path().to_owned(),
        );
        std::thread::spawn(move || {
            let mut n = 0u64;
            let mut i = 0u64;
            while !stop.load(Ordering::Relaxed) {
                i += 1;
                // Folder out (to a name of its own), symlink in.
                let away = root.join(format!("agt_o.away{i}"));
                if std::fs::rename(&dir, &away).is_ok() {
                    let _ = std::fs::remove_file(&link);
                    if std::os::unix::fs::symlink(&target, &link).is_ok()
                        && std::fs::rename(&link, &dir).is_ok()
                    {
                        n += 1;
                    }
                    std::thread::sleep(Duration::from_micros(500));
                    // Symlink out, folder back (unless memdir made a new one
                    // meanwhile: then both stay).
                    if std::fs::symlink_metadata(&dir).is_ok_and(|m| m.file_type().is_symlink()) {
                        let _ = std::fs::remove_file(&dir);
                    }
                    let _ = std::fs::rename(&away, &dir);
                }
                std::thread::sleep(Duration::from_micros(500));
            }
            n
        })
    };
    let mut acknowledged = Vec::new();
    let mut refused = 0;
    for i in 0..60 {
        let text = format!("fact number {i}");
        let r = s.run(&["--owner", O, "--json", "add", &text]);
        if r.success() {
            acknowledged.push(r.json()["id"].as_str().unwrap().to_owned());
        } else {
            refused += 1;
        }
    }
    stop.store(true, Ordering::Relaxed);
    let swapped = swaps.join().unwrap();
    assert!(swapped > 10, "the attacker swapped {swapped} times");
    let leaked = files_under(outside.path());
    assert!(leaked.is_empty(), "written outside the root: {leaked:?}");
    // Every acknowledged add is in a MEMORY.md under the root.
    let mut stored = String::new();
    for f in files_under(&s.root) {
        if f.file_name().is_some_and(|n| n == "MEMORY.md") {
            stored.push_str(&std::fs::read_to_string(&f).unwrap());
        }
    }
    let expected: Vec<String> = (0..60)
        .map(|i| format!("fact number {i}"))
        .filter(|t| acknowledged.contains(&memdir::api::types::entry_id("memory", t)))
        .collect();
    assert_eq!(expected.len(), acknowledged.len());
    for t in &expected {
        assert!(
            stored.contains(&format!("- {t} ")),
            "{t} acknowledged, not stored"
        );
    }
    eprintln!(
        "symlink swap: {swapped} swaps, {} adds acknowledged, {refused} refused",
        acknowledged.len()
    );
}

#[test]
fn symlinks_under_memdir_are_refused() {
    let s = Sandbox::new();
    let outside = tempfile::tempdir().unwrap();
    s.run_as(O, &["add", "a fact"]).ok();
    let derived = s.path(O, ".memdir");
    for name in ["snapshots", "runs"] {
        let p = derived.join(name);
        let _ = std::fs::remove_dir_all(&p);
        std::os::unix::fs::symlink(outside.path(), &p).unwrap();
        s.run(&["--owner", O, "--json", "run", "begin"])
            .json_error("unsafe_path");
        std::fs::remove_file(&p).unwrap();
    }
    assert!(files_under(outside.path()).is_empty());
    // Another owner's planted link to this owner's stored snapshots.
    let begun = s.json_ok(&["--owner", O, "run", "begin"]);
    let sha = begun["sha256"].as_str().unwrap().to_owned();
    let b = "agt_b";
    s.run_as(b, &["add", "b's fact"]).ok();
    std::fs::create_dir_all(s.path(b, ".memdir/runs")).unwrap();
    std::os::unix::fs::symlink(derived.join("snapshots"), s.path(b, ".memdir/snapshots")).unwrap();
    let run = "run-20261130T000000.000000Z-0badc0de";
    std::fs::write(
        s.path(b, &format!(".memdir/runs/{run}.json")),
        format!(
            r#"{{"run_id":"{run}","owner":"{b}","started_at":"2026-11-30T00:00:00.000000Z","snapshot_sha256":"{sha}"}}"#
        ),
    )
    .unwrap();
    let r = s.run(&["--owner", b, "--json", "runs", "show", run]);
    r.json_error("unsafe_path");
    assert!(!r.text().contains("a fact"), "{r:?}");
}

#[test]
fn special_files_where_a_file_is_expected_are_refused_at_once() {
    let s = Sandbox::new();
    s.run_as(O, &["add", "a fact"]).ok();
    // A FIFO at the lock: opening it would block forever.
    let lock = s.path(O, ".memdir/lock");
    std::fs::remove_file(&lock).unwrap();
    assert!(
        std::process::Command::new("mkfifo")
            .arg(&lock)
            .status()
            .unwrap()
            .success()
    );
    let t = Instant::now();
    s.run(&["--owner", O, "--json", "add", "b"])
        .json_error("unsafe_path");
    assert!(t.elapsed() < Duration::from_secs(5), "{:?}", t.elapsed());
    std::fs::remove_file(&lock).unwrap();
    // A FIFO, a folder and a socket where a store is expected.
    let mem = s.path(O, "MEMORY.md");
    std::fs::remove_file(&mem).unwrap();
    assert!(
        std::process::Command::new("mkfifo")
            .arg(&mem)
            .status()
            .unwrap()
            .success()
    );
    let t = Instant::now();
    s.run(&["--owner", O, "--json", "show"])
        .json_error("unsafe_path");
    s.run(&["--owner", O, "--json", "add", "c"])
        .json_error("unsafe_path");
    assert!(t.elapsed() < Duration::from_secs(5), "{:?}", t.elapsed());
    std::fs::remove_file(&mem).unwrap();
    std::fs::create_dir(&mem).unwrap();
    s.run(&["--owner", O, "--json", "snapshot"])
        .json_error("unsafe_path");
    std::fs::remove_dir(&mem).unwrap();
    let _sock = std::os::unix::net::UnixListener::bind(&mem).unwrap();
    s.run(&["--owner", O, "--json", "snapshot"])
        .json_error("unsafe_path");
}

/// The machine-local configuration binds persons to operating-system users;
/// a file inside the memory root never does.
#[test]
fn persons_are_bound_to_operating_system_users() {
    use std::os::unix::fs::MetadataExt;
    let s = Sandbox::new();
    s.run_as(O, &["add", "a fact"]).ok();
    let me = std::fs::metadata(s.dir.path()).unwrap().uid();
    let config = s.dir.path().join("machine");
    std::fs::create_dir(&config).unwrap();
    let as_person = |person: &str| {
        s.run(&[
            "--config-dir",
            config.to_str().unwrap(),
            "--person",
            person,
            "--agent",
            O,
            "--json",
            "veto",
            &memdir::api::types::entry_id("memory", "a fact"),
        ])
    };
    std::fs::write(
        config.join("config.yaml"),
        format!("persons:\n  ann: [{me}]\n  bob: [{}]\n", me + 1),
    )
    .unwrap();
    let e = as_person("bob").json_error("person_not_allowed");
    assert_eq!(e["status"], 403);
    assert_eq!(e["uid"], me);
    as_person("carol").json_error("person_not_allowed");
    assert!(
        s.read_text(O, "MEMORY.md").contains("a fact"),
        "nothing vetoed"
    );
    as_person("ann").ok();
    assert!(!s.read_text(O, "MEMORY.md").contains("a fact"));
    // The same binding in the root's memdir.yaml grants nothing: it is not
    // a setting a memory folder may hold.
    std::fs::write(s.root.join("memdir.yaml"), "persons:\n  bob: [0]\n").unwrap();
    s.run(&[
        "--person",
        "bob",
        "--agent",
        O,
        "--json",
        "add",
        "Bob was here",
    ])
    .json_error("invalid_config");
    assert!(!s.read_text(O, "MEMORY.md").contains("Bob was here"));
}
