//! Tests of the disk layer on real files in temp folders, and through
//! [`FaultyIo`] for every failing step.

use std::path::Path;
use std::sync::Arc;

use super::faulty::FaultyIo;
use super::write::displaced_is_base;
use super::*;

fn temps(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.ends_with(TEMP_SUFFIX))
        .collect()
}

fn open(disk: &Disk, path: &Path) -> Dir {
    disk.open_root(path).unwrap().unwrap()
}

fn change<'a>(dir: &'a Dir, name: &'a str, base: Option<&[u8]>, to: &'static [u8]) -> Change<'a> {
    Change {
        dir,
        name,
        base: base.map(|b| Base {
            bytes: b.to_vec(),
            held: None,
        }),
        planned: None,
        redo: Box::new(move |_| Ok(Some(to.to_vec()))),
    }
}

#[test]
fn replace_creates_and_replaces() {
    let d = tempfile::tempdir().unwrap();
    let disk = Disk::default();
    let dir = open(&disk, d.path());
    disk.replace(change(&dir, "MEMORY.md", None, b"one"))
        .unwrap();
    assert_eq!(std::fs::read(d.path().join("MEMORY.md")).unwrap(), b"one");
    disk.replace(change(&dir, "MEMORY.md", Some(b"one"), b"two"))
        .unwrap();
    assert_eq!(std::fs::read(d.path().join("MEMORY.md")).unwrap(), b"two");
    assert!(temps(d.path()).is_empty());
}

#[test]
fn replace_keeps_permission_bits() {
    use std::os::unix::fs::PermissionsExt;
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("USER.md");
    std::fs::write(&p, "x").unwrap();
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o640)).unwrap();
    let disk = Disk::default();
    let dir = open(&disk, d.path());
    disk.replace(change(&dir, "USER.md", Some(b"x"), b"y"))
        .unwrap();
    assert_eq!(
        std::fs::metadata(&p).unwrap().permissions().mode() & 0o777,
        0o640
    );
}

#[test]
fn an_editor_save_between_read_and_swap_is_kept() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("MEMORY.md");
    std::fs::write(&p, "- a\n").unwrap();
    let disk = Disk::default();
    let dir = open(&disk, d.path());
    let mut calls = 0;
    let out = disk
        .replace(Change {
            dir: &dir,
            name: "MEMORY.md",
            base: Some(Base {
                bytes: b"- a\n".to_vec(),
                held: None,
            }),
            planned: None,
            redo: Box::new(|cur| {
                calls += 1;
                if calls == 1 {
                    // The editor saves right after our read.
                    std::fs::write(&p, "- a\n- editor\n").unwrap();
                }
                let mut v = cur.unwrap_or_default().to_vec();
                v.extend_from_slice(b"- agent\n");
                Ok(Some(v))
            }),
        })
        .unwrap();
    if cfg!(target_os = "linux") {
        assert_eq!(calls, 2);
    }
    assert_eq!(out.unwrap(), b"- a\n- editor\n- agent\n");
    assert_eq!(std::fs::read(&p).unwrap(), b"- a\n- editor\n- agent\n");
    assert!(temps(d.path()).is_empty());
}

#[test]
fn the_held_base_is_known_by_inode_and_bytes() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("MEMORY.md");
    std::fs::write(&p, "- a\n").unwrap();
    let disk = Disk::default();
    let dir = open(&disk, d.path());
    let h = disk.read(&dir, "MEMORY.md", u64::MAX).unwrap().unwrap();
    let is_base = |name: &str| displaced_is_base(&RealIo, &dir, name, &h.file, &h.stat, b"- a\n");
    assert!(is_base("MEMORY.md"));
    std::fs::write(&p, "- b\n").unwrap(); // in place, same length
    assert!(!is_base("MEMORY.md"));
    std::fs::write(d.path().join("x"), "- a\n").unwrap();
    std::fs::rename(d.path().join("x"), &p).unwrap(); // same bytes, another file
    assert!(!is_base("MEMORY.md"));
    std::os::unix::fs::symlink(&p, d.path().join("link")).unwrap();
    assert!(!is_base("link"));
}

/// A planned write hands over the descriptor its base was read through: an
/// unchanged base is recognised by it, and an editor's save between the read
/// and the swap (in place with the same length, or by rename) is not taken
/// for the base.
#[test]
fn a_held_base_is_recognised_and_an_editors_save_is_not() {
    #[derive(Clone, Copy, Debug)]
    enum Editor {
        None,
        InPlace,
        Rename,
    }
    for editor in [Editor::None, Editor::InPlace, Editor::Rename] {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("MEMORY.md");
        std::fs::write(&p, "- a\n").unwrap();
        let disk = Disk::default();
        let dir = open(&disk, d.path());
        let held = disk.read(&dir, "MEMORY.md", u64::MAX).unwrap().unwrap();
        assert_eq!(held.bytes, b"- a\n");
        match editor {
            Editor::None => {}
            Editor::InPlace => std::fs::write(&p, "- b\n").unwrap(),
            Editor::Rename => {
                std::fs::write(d.path().join("x"), "- a\n").unwrap();
                std::fs::rename(d.path().join("x"), &p).unwrap();
            }
        }
        let mut redone = 0;
        let out = disk
            .replace(Change {
                dir: &dir,
                name: "MEMORY.md",
                base: Some(Base {
                    bytes: held.bytes,
                    held: Some((held.file, held.stat)),
                }),
                planned: Some(b"- a\n- agent\n".to_vec()),
                redo: Box::new(|cur| {
                    redone += 1;
                    let mut v = cur.unwrap_or_default().to_vec();
                    v.extend_from_slice(b"- agent\n");
                    Ok(Some(v))
                }),
            })
            .unwrap();
        let want: &[u8] = match editor {
            Editor::InPlace => b"- b\n- agent\n",
            _ => b"- a\n- agent\n",
        };
        assert_eq!(out.as_deref(), Some(want), "{editor:?}");
        assert_eq!(std::fs::read(&p).unwrap(), want, "{editor:?}");
        // Only an editor's different bytes make the edit run again; a rename
        // of the same bytes is read back and found equal.
        let runs = usize::from(matches!(editor, Editor::InPlace));
        if cfg!(target_os = "linux") {
            assert_eq!(redone, runs, "{editor:?}");
        }
        assert!(temps(d.path()).is_empty(), "{editor:?}");
    }
}

#[test]
fn every_failing_step_leaves_the_old_file_and_no_temp() {
    for fail_at in 1..=6 {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("MEMORY.md");
        std::fs::write(&p, "old").unwrap();
        let disk = Disk::new(Arc::new(FaultyIo::new(fail_at)));
        let dir = open(&disk, d.path());
        let r = disk.replace(change(&dir, "MEMORY.md", Some(b"old"), b"new"));
        let content = std::fs::read(&p).unwrap();
        match r {
            Ok(_) => assert_eq!(content, b"new", "step {fail_at}"),
            Err(e) => {
                // Before the swap the old file stays; a failed folder sync comes after it.
                let op = match &e {
                    Error::Io { op, .. } => *op,
                    _ => "",
                };
                if op == "fsync folder" {
                    assert_eq!(content, b"new");
                } else {
                    assert_eq!(content, b"old", "step {fail_at}: {e}");
                }
                if op.starts_with("fsync") {
                    assert_eq!(disk.check().unwrap_err().code().as_str(), "store_poisoned");
                }
            }
        }
        assert!(temps(d.path()).is_empty(), "step {fail_at}");
    }
}

#[test]
fn volatile_writes_replace_whole_and_leave_no_temp() {
    let d = tempfile::tempdir().unwrap();
    let disk = Disk::default();
    let dir = open(&disk, d.path());
    disk.write_atomic_volatile(&dir, "stats.json", b"{}")
        .unwrap();
    disk.write_atomic_volatile(&dir, "stats.json", b"{\"a\":1}")
        .unwrap();
    assert_eq!(
        std::fs::read(d.path().join("stats.json")).unwrap(),
        b"{\"a\":1}"
    );
    assert!(temps(d.path()).is_empty());
    // Whichever step fails, the file holds the old or the new bytes, whole.
    for fail_at in 1..=6 {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("stats.json");
        std::fs::write(&p, "old").unwrap();
        let disk = Disk::new(Arc::new(FaultyIo::new(fail_at)));
        let dir = open(&disk, d.path());
        let r = disk.write_atomic_volatile(&dir, "stats.json", b"new");
        let content = std::fs::read(&p).unwrap();
        match r {
            Ok(()) => assert_eq!(content, b"new", "step {fail_at}"),
            Err(_) => assert_eq!(content, b"old", "step {fail_at}"),
        }
        // Only a failed unlink of the displaced version may leave a temp
        // (for the sweep), and it holds the old bytes.
        for t in temps(d.path()) {
            assert_eq!(
                std::fs::read(d.path().join(&t)).unwrap(),
                b"old",
                "step {fail_at}"
            );
        }
    }
}

#[test]
fn a_poisoned_handle_refuses_to_write() {
    let d = tempfile::tempdir().unwrap();
    // Fail the file sync (create, write, sync = 3rd step).
    let disk = Disk::new(Arc::new(FaultyIo::new(3)));
    let dir = open(&disk, d.path());
    let err = disk.write_atomic(&dir, "x", b"x").unwrap_err();
    assert!(err.to_string().contains("fsync"), "{err}");
    assert!(!d.path().join("x").exists());
    let err = disk.write_atomic(&dir, "x", b"x").unwrap_err();
    assert_eq!(err.code().as_str(), "store_poisoned");
}

#[test]
fn sweep_removes_leftover_temps_only() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join(".MEMORY.md.abc.memdir-tmp"), "x").unwrap();
    std::fs::write(d.path().join("MEMORY.md"), "x").unwrap();
    let disk = Disk::default();
    disk.sweep_temps(&open(&disk, d.path()));
    assert!(temps(d.path()).is_empty());
    assert!(d.path().join("MEMORY.md").exists());
}

#[test]
fn reads_refuse_bad_files_before_reading_them() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("bad.md"), [b'a', 0xff]).unwrap();
    std::fs::write(d.path().join("big.md"), vec![b'a'; 1001]).unwrap();
    let disk = Disk::default();
    let dir = open(&disk, d.path());
    assert_eq!(
        disk.read_text(&dir, "bad.md", 1000)
            .unwrap_err()
            .code()
            .as_str(),
        "invalid_utf8"
    );
    let err = disk.read_text(&dir, "big.md", 1000).unwrap_err();
    assert_eq!(err.code().as_str(), "file_too_large");
    assert!(err.to_string().contains("1001 bytes"), "{err}");
    let p = Path::new("m.md");
    let big = vec![b'a'; MAX_FILE_BYTES as usize + 1];
    assert_eq!(
        decode_limited(p, big, MAX_FILE_BYTES)
            .unwrap_err()
            .code()
            .as_str(),
        "file_too_large"
    );
}

#[test]
fn symlinks_and_special_files_are_unsafe() {
    let d = tempfile::tempdir().unwrap();
    let real = d.path().join("real.md");
    std::fs::write(&real, "x").unwrap();
    std::os::unix::fs::symlink(&real, d.path().join("MEMORY.md")).unwrap();
    std::fs::create_dir(d.path().join("folder.md")).unwrap();
    std::os::unix::fs::symlink(d.path(), d.path().join("linked")).unwrap();
    let disk = Disk::default();
    let dir = open(&disk, d.path());
    for name in ["MEMORY.md", "folder.md"] {
        assert_eq!(
            disk.read(&dir, name, u64::MAX).unwrap_err().code().as_str(),
            "unsafe_path",
            "{name}"
        );
    }
    assert_eq!(
        disk.open_dir(&dir, "linked").unwrap_err().code().as_str(),
        "unsafe_path"
    );
    assert_eq!(
        disk.open_dir(&dir, "real.md").unwrap_err().code().as_str(),
        "unsafe_path"
    );
    assert_eq!(
        disk.ensure_dir(&dir, "linked").unwrap_err().code().as_str(),
        "unsafe_path"
    );
    assert!(disk.open_dir(&dir, "missing").unwrap().is_none());
}

#[test]
fn a_lock_is_a_guard_that_times_out_with_the_path() {
    let d = tempfile::tempdir().unwrap();
    let disk = Disk::default();
    let dir = open(&disk, d.path());
    let held = disk.lock(&dir, "lock", Duration::from_secs(1)).unwrap();
    assert!(d.path().join("lock").is_file());
    let err = disk
        .lock(&dir, "lock", Duration::from_millis(50))
        .unwrap_err();
    assert_eq!(err.code().as_str(), "locked");
    let shown = d.path().join("lock").display().to_string();
    assert!(err.to_string().contains(&shown), "{err}");
    drop(held);
    assert!(disk.lock(&dir, "lock", Duration::from_millis(50)).is_ok());
    std::fs::create_dir(d.path().join("dirlock")).unwrap();
    assert!(
        disk.lock(&dir, "dirlock", Duration::from_millis(50))
            .is_err()
    );
}

#[test]
fn new_folders_are_synced_into_their_parent() {
    let d = tempfile::tempdir().unwrap();
    // Step 1 creates the folder, step 2 syncs its parent.
    let disk = Disk::new(Arc::new(FaultyIo::new(2)));
    let dir = open(&disk, d.path());
    match disk.ensure_dir(&dir, "o") {
        Err(Error::Io { path, op, .. }) => {
            assert_eq!((path.as_path(), op), (d.path(), "fsync folder"))
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(disk.check().unwrap_err().code().as_str(), "store_poisoned");
}

/// Callers of one process waiting for a lock get it in the order they came,
/// and one that gives up leaves no waiter behind.
#[test]
fn waiters_of_one_process_take_the_lock_in_turn() {
    use std::sync::Mutex;
    let d = tempfile::tempdir().unwrap();
    let disk = Disk::default();
    let dir = Arc::new(open(&disk, d.path()));
    let held = disk.lock(&dir, "lock", Duration::from_secs(1)).unwrap();
    let order = Arc::new(Mutex::new(Vec::new()));
    let mut threads = Vec::new();
    for i in 0..4 {
        let (disk, dir, order) = (disk.clone(), Arc::clone(&dir), Arc::clone(&order));
        threads.push(std::thread::spawn(move || {
            let l = disk.lock(&dir, "lock", Duration::from_secs(10)).unwrap();
            order.lock().unwrap().push(i);
            std::thread::sleep(Duration::from_millis(5));
            drop(l);
        }));
        // Each comes after the one before.
        std::thread::sleep(Duration::from_millis(30));
    }
    // One more that gives up while the lock is held.
    let quitter = disk
        .lock(&dir, "lock", Duration::from_millis(20))
        .unwrap_err();
    assert_eq!(quitter.code().as_str(), "locked");
    drop(held);
    for t in threads {
        t.join().unwrap();
    }
    assert_eq!(*order.lock().unwrap(), [0, 1, 2, 3]);
    // Nobody is left holding or queued.
    let t = std::time::Instant::now();
    drop(disk.lock(&dir, "lock", Duration::from_secs(1)).unwrap());
    assert!(t.elapsed() < Duration::from_millis(100));
}

/// A waiter in another process (here: another open file description, as a
/// process has) wakes promptly when the holder releases, without polling.
#[test]
fn a_waiter_wakes_when_the_holder_lets_go() {
    let d = tempfile::tempdir().unwrap();
    let holder = std::fs::File::create(d.path().join("lock")).unwrap();
    fs2::FileExt::lock_exclusive(&holder).unwrap();
    let released = Arc::new(std::sync::Mutex::new(None));
    let r = Arc::clone(&released);
    let t = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(300));
        let _ = fs2::FileExt::unlock(&holder);
        *r.lock().unwrap() = Some(std::time::Instant::now());
        drop(holder);
    });
    // Another Disk: its own queue, as another process would have.
    let disk = Disk::default();
    let dir = open(&disk, d.path());
    let l = disk.lock(&dir, "lock", Duration::from_secs(5)).unwrap();
    let got = std::time::Instant::now();
    t.join().unwrap();
    assert!(l.contended);
    let after = got.duration_since(released.lock().unwrap().unwrap());
    assert!(
        after < Duration::from_millis(60),
        "woke {after:?} after the release"
    );
}

#[test]
fn a_tail_read_stops_at_the_cut_and_reads_whole_lines_only() {
    let d = tempfile::tempdir().unwrap();
    let disk = Disk::default();
    let dir = open(&disk, d.path());
    // 40,000 lines of 10 bytes (400 KB: several pieces from the end), a
    // marker line near the start and one near the end.
    let mut text = Vec::new();
    for i in 0..40_000 {
        if i == 100 || i == 39_000 {
            text.extend_from_slice(b"CUT here!\n");
        } else {
            text.extend_from_slice(format!("line {i:04}\n").as_bytes());
        }
    }
    std::fs::write(d.path().join("f"), &text).unwrap();
    let seen = std::cell::RefCell::new(Vec::new());
    let cut = |lines: &[u8]| {
        // Every run given starts at a line start and ends at one.
        seen.borrow_mut().push(lines.len());
        assert!(lines.is_empty() || lines.ends_with(b"\n"));
        lines
            .split_inclusive(|b| *b == b'\n')
            .scan(0, |at, l| {
                let start = *at;
                *at += l.len();
                Some((start, l))
            })
            .filter(|(_, l)| l.starts_with(b"CUT"))
            .map(|(start, _)| start)
            .last()
    };
    let marker =
        |t: &[u8], from: usize| from + t[from..].windows(3).position(|w| w == b"CUT").unwrap();
    let (early_at, late_at) = (marker(&text, 0), marker(&text, 2000));
    let tail = disk.read_tail(&dir, "f", 1 << 20, &cut).unwrap().unwrap();
    let at = tail.cut.unwrap();
    assert!(tail.bytes[at..] == text[late_at..]);
    // The last marker is in the first piece: nothing before it was read.
    assert_eq!(tail.bytes.len(), 64 * 1024);
    assert!(tail.bytes[..] == text[text.len() - 64 * 1024..]);
    // Each line was given to `cut` once: the runs add up to what was read,
    // less its first, partial line.
    let given: usize = seen.borrow().iter().sum();
    assert!(
        given <= tail.bytes.len() && given + 10 >= tail.bytes.len(),
        "{given}"
    );
    // The cut searched for from the end, piece after piece: the early
    // marker is found when the late one is not there.
    let early = |lines: &[u8]| cut(lines).filter(|_| !lines.is_empty());
    let mut text2 = text.clone();
    text2[late_at..late_at + 3].copy_from_slice(b"cut");
    std::fs::write(d.path().join("g"), &text2).unwrap();
    let tail = disk.read_tail(&dir, "g", 1 << 20, &early).unwrap().unwrap();
    let at = tail.cut.unwrap();
    assert!(tail.bytes[at..] == text2[early_at..]);
    // No cut: the whole file, read to its start.
    let none = disk
        .read_tail(&dir, "f", 1 << 20, &|_| None)
        .unwrap()
        .unwrap();
    assert_eq!(none.cut, None);
    assert!(none.bytes == text);
    // Missing: None; over the limit: refused before reading.
    assert!(
        disk.read_tail(&dir, "missing", 1 << 20, &cut)
            .unwrap()
            .is_none()
    );
    assert!(matches!(
        disk.read_tail(&dir, "f", 1000, &cut),
        Err(crate::Error::FileTooLarge { .. })
    ));
}
