//! Tests of the store through the library: the first write, hand edits,
//! the temp-file sweep, ids, symlinks, batches, damaged files, budgets from
//! settings, and failing I/O at every step.

use std::path::Path;
use std::sync::Arc;

use super::*;
use crate::disk::faulty::FaultyIo;
use crate::error::Error;
use crate::markdown::parse;

fn texts(path: &Path) -> Vec<String> {
    let src = std::fs::read_to_string(path).unwrap();
    parse(Scope::Memory, &src)
        .entries
        .into_iter()
        .map(|e| e.text)
        .collect()
}

fn store() -> (tempfile::TempDir, Store) {
    let d = tempfile::tempdir().unwrap();
    let s = Store::open(d.path()).unwrap();
    (d, s)
}

#[test]
fn first_write_creates_folders_and_file() {
    let (d, s) = store();
    let o = s.owner("agt_1").unwrap();
    let w = o.add(Scope::User, "Prefers weekly summaries").unwrap();
    let (out, usage) = (w.outcome, w.usage);
    assert_eq!(out.message.as_str(), "added");
    assert_eq!(usage.text, "1% — 26/1375 chars");
    // The fact carries its metadata: saved now by agent agt_1; USER.md facts do not expire.
    let file = std::fs::read_to_string(d.path().join("agt_1/USER.md")).unwrap();
    assert!(
        file.starts_with("- Prefers weekly summaries <!-- memdir created="),
        "{file}"
    );
    assert!(
        file.ends_with(" agent=agt_1 -->\n") && !file.contains("expires="),
        "{file}"
    );
    assert!(d.path().join("agt_1/.memdir/lock").exists());
    let again = o
        .add(Scope::User, "Prefers  weekly summaries")
        .unwrap()
        .outcome;
    assert_eq!(again.message.as_str(), "already stored");
    assert_eq!(again.id, out.id);
}

#[test]
fn a_hand_edit_between_writes_of_one_store_is_read_afresh() {
    let (d, s) = store();
    let o = s.owner("o").unwrap();
    o.add(Scope::Memory, "first fact").unwrap();
    o.add(Scope::Memory, "second fact").unwrap();
    // A person rewrites an entry in their editor; the store's remembered
    // parse is of the old bytes and must not answer for the new ones.
    let path = d.path().join("o/MEMORY.md");
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, text.replace("first fact", "first fact, corrected")).unwrap();
    let corrected = crate::model::entry_id("memory", "first fact, corrected");
    let view = o.show(Scope::Memory).unwrap();
    assert_eq!(view.entries[0].id, corrected);
    let out = o.remove(Scope::Memory, &corrected).unwrap().outcome;
    assert_eq!(out.message.as_str(), "removed");
    let left = std::fs::read_to_string(&path).unwrap();
    assert!(
        !left.contains("first fact") && left.contains("second fact"),
        "{left}"
    );
}

#[test]
fn leftover_temp_files_are_swept_by_the_next_write() {
    let (d, s) = store();
    let o = s.owner("o").unwrap();
    let leftover = |name: &str| d.path().join("o").join(name);
    std::fs::create_dir_all(d.path().join("o")).unwrap();
    std::fs::write(leftover(".USER.md.x1.memdir-tmp"), "killed").unwrap();
    // The first write of a Store sweeps.
    o.add(Scope::Memory, "a").unwrap();
    assert!(!leftover(".USER.md.x1.memdir-tmp").exists());
    // A writer killed after that (here: a file put there by hand) changed
    // the folder, so the next write of the same Store sweeps again.
    std::fs::write(leftover(".MEMORY.md.x2.memdir-tmp"), "killed").unwrap();
    o.add(Scope::Memory, "b").unwrap();
    assert!(!leftover(".MEMORY.md.x2.memdir-tmp").exists());
    // Only memdir's temp names go.
    std::fs::write(leftover(".MEMORY.md.swp"), "editor").unwrap();
    s.owner("o").unwrap().remove(Scope::Memory, "b").unwrap();
    assert!(leftover(".MEMORY.md.swp").exists());
    assert_eq!(texts(&leftover("MEMORY.md")), ["a"]);
}

#[test]
fn owner_ids_are_checked_before_paths() {
    let (_d, s) = store();
    for bad in ["..", "a/b", "", "/etc"] {
        assert_eq!(s.owner(bad).unwrap_err().code().as_str(), "invalid_id");
    }
}

#[cfg(unix)]
#[test]
fn symlinked_owner_folder_or_file_is_refused() {
    let (d, s) = store();
    let elsewhere = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(elsewhere.path(), d.path().join("evil")).unwrap();
    let err = s
        .owner("evil")
        .unwrap()
        .add(Scope::Memory, "x")
        .unwrap_err();
    assert_eq!(err.code().as_str(), "unsafe_path");
    std::fs::create_dir(d.path().join("a")).unwrap();
    std::fs::write(elsewhere.path().join("t.md"), "- secret\n").unwrap();
    std::os::unix::fs::symlink(elsewhere.path().join("t.md"), d.path().join("a/MEMORY.md"))
        .unwrap();
    let o = s.owner("a").unwrap();
    assert_eq!(
        o.add(Scope::Memory, "x").unwrap_err().code().as_str(),
        "unsafe_path"
    );
    assert_eq!(
        o.show(Scope::Memory).unwrap_err().code().as_str(),
        "unsafe_path"
    );
    assert_eq!(
        std::fs::read_to_string(elsewhere.path().join("t.md")).unwrap(),
        "- secret\n"
    );
}

#[test]
fn batch_is_all_or_nothing_across_stores() {
    let (d, s) = store();
    let o = s.owner("o").unwrap();
    o.add(Scope::Memory, "keep").unwrap();
    let ops = vec![
        Op::Add {
            text: "u1".into(),
            scope: Scope::User,
            expires: None,
            supersedes: None,
        },
        Op::Remove {
            old: "missing".into(),
            scope: Some(Scope::Memory),
        },
    ];
    let err = o.batch(&ops).unwrap_err();
    assert_eq!(err.code().as_str(), "memory_not_found");
    assert!(matches!(err, Error::Batch { index: 1, .. }), "{err:?}");
    assert!(!d.path().join("o/USER.md").exists());
    let ops = vec![
        Op::Add {
            text: "u1".into(),
            scope: Scope::User,
            expires: None,
            supersedes: None,
        },
        Op::Replace {
            old: "keep".into(),
            new: "kept".into(),
            scope: Some(Scope::Memory),
        },
    ];
    let out = o.batch(&ops).unwrap();
    assert_eq!(out.results.len(), 2);
    assert_eq!(out.results[0].message.as_str(), "added");
    assert_eq!(out.results[1].message.as_str(), "replaced");
    assert_eq!(texts(&d.path().join("o/MEMORY.md")), ["kept"]);
    let file = std::fs::read_to_string(d.path().join("o/MEMORY.md")).unwrap();
    assert!(
        file.contains(" updated=") && file.contains(" expires="),
        "{file}"
    );
}

#[test]
fn invalid_utf8_files_are_never_rewritten_and_huge_ones_never_grown() {
    let (d, s) = store();
    std::fs::create_dir(d.path().join("o")).unwrap();
    let p = d.path().join("o/MEMORY.md");
    std::fs::write(&p, b"- ok\n- \xff\n").unwrap();
    let o = s.owner("o").unwrap();
    assert_eq!(
        o.add(Scope::Memory, "x").unwrap_err().code().as_str(),
        "invalid_utf8"
    );
    assert_eq!(std::fs::read(&p).unwrap(), b"- ok\n- \xff\n");
    // Prose (which no budget counts) past 1 MiB, and one entry.
    let big = format!("{}\n\n- small entry\n", "a".repeat(1024 * 1024));
    std::fs::write(&p, &big).unwrap();
    assert_eq!(
        o.add(Scope::Memory, "x").unwrap_err().code().as_str(),
        "file_too_large"
    );
    assert_eq!(std::fs::read_to_string(&p).unwrap(), big);
    assert_eq!(
        o.show(Scope::Memory).unwrap_err().code().as_str(),
        "file_too_large"
    );
    // A write that shrinks it is how it gets curated back.
    o.remove(Scope::Memory, "small entry").unwrap();
    assert_eq!(
        std::fs::read_to_string(&p).unwrap(),
        format!("{}\n", "a".repeat(1024 * 1024))
    );
}

#[test]
fn config_and_front_matter_budgets_with_clamp_warning() {
    let (d, _) = store();
    std::fs::write(d.path().join("memdir.yaml"), "budgets:\n  memory: 100\n").unwrap();
    let s = Store::open(d.path()).unwrap();
    let o = s.owner("o").unwrap();
    let v = o.show(Scope::Memory).unwrap();
    assert_eq!(v.budget.limit, 500);
    assert_eq!(v.warnings.len(), 1);
    std::fs::create_dir(d.path().join("o")).unwrap();
    std::fs::write(
        d.path().join("o/MEMORY.md"),
        "---\nbudget: 9000\n---\n- a\n",
    )
    .unwrap();
    assert_eq!(o.show(Scope::Memory).unwrap().budget.limit, 9000);
}

/// An owner's `memdir.yaml` remembered by its stat (read once it had
/// settled) is read again after a change in place that keeps its size.
#[test]
fn an_owner_settings_change_in_place_is_seen_by_the_same_store() {
    use std::io::Write;
    let (d, s) = store();
    let o = s.owner("o").unwrap();
    o.add(Scope::Memory, "a fact").unwrap();
    let yaml = d.path().join("o/memdir.yaml");
    std::fs::write(&yaml, "budgets:\n  memory: 3000\n").unwrap();
    assert_eq!(o.show(Scope::Memory).unwrap().budget.limit, 3000);
    // Read again once settled: from then on its stat stands for it.
    std::thread::sleep(std::time::Duration::from_millis(2_100));
    assert_eq!(o.show(Scope::Memory).unwrap().budget.limit, 3000);
    assert_eq!(o.show(Scope::Memory).unwrap().budget.limit, 3000);
    let mut f = std::fs::OpenOptions::new().write(true).open(&yaml).unwrap();
    f.write_all(b"budgets:\n  memory: 4000\n").unwrap();
    drop(f);
    assert_eq!(o.show(Scope::Memory).unwrap().budget.limit, 4000);
}

#[test]
fn a_new_owner_folder_is_synced_into_the_root() {
    // Step 1 creates the owner's folder, step 2 syncs the root.
    let (d, s) = store();
    let s = s.with_io(Arc::new(FaultyIo::new(2)));
    let o = s.owner("o").unwrap();
    match o.add(Scope::Memory, "first") {
        Err(Error::Io { path, op, .. }) => {
            assert_eq!((path.as_path(), op), (d.path(), "fsync folder"));
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(
        o.add(Scope::Memory, "again").unwrap_err().code().as_str(),
        "store_poisoned"
    );
}

#[test]
fn failed_io_leaves_the_file_and_poisons_after_fsync() {
    for fail_at in 1..=5 {
        let (d, s) = store();
        s.owner("o").unwrap().add(Scope::Memory, "old").unwrap();
        let s = s.with_io(Arc::new(FaultyIo::new(fail_at)));
        let o = s.owner("o").unwrap();
        let r = o.add(Scope::Memory, "new");
        let content = texts(&d.path().join("o/MEMORY.md"));
        match r {
            Ok(_) => assert_eq!(content, ["old", "new"]),
            Err(e) => {
                assert!(
                    content == ["old"] || e.to_string().contains("fsync folder"),
                    "{fail_at}: {e}"
                );
                if e.to_string().contains("fsync") {
                    assert_eq!(
                        o.add(Scope::Memory, "more").unwrap_err().code().as_str(),
                        "store_poisoned"
                    );
                }
            }
        }
    }
}

/// archive.md past the rotation size: 800 records (about 400 bytes each)
/// archived in 2024.
fn big_archive() -> String {
    let mut a = String::from("# Archive\n\n");
    for i in 0..800 {
        a.push_str(&format!(
            "- Old fact {i} <!-- memdir scope=memory archived=2024-03-01T00:00:00Z kind=plain archived_by=agent:o reason=\"{}\" -->\n",
            "no longer needed ".repeat(20)
        ));
    }
    a
}

#[test]
fn a_rotation_cut_short_at_any_step_loses_no_archived_record() {
    let mut rotated_at_least_once = false;
    for fail_at in 1..=12 {
        let (d, s) = store();
        let o = s.owner("o").unwrap();
        let w = o.add(Scope::Memory, "Archive me").unwrap();
        let id = w.outcome.id.clone();
        std::fs::write(d.path().join("o/archive.md"), big_archive()).unwrap();
        let faulty = s.with_io(Arc::new(FaultyIo::new(fail_at)));
        let r = faulty.owner("o").unwrap().archive(&id, "done");
        // Read back with real I/O.
        let fresh = Store::open(d.path()).unwrap();
        let rows = fresh
            .owner("o")
            .unwrap()
            .list_counted(&ListFilter {
                status: Some(Status::Archived),
                limit: Some(500),
                ..ListFilter::default()
            })
            .unwrap()
            .1;
        let live = texts(&d.path().join("o/MEMORY.md")).contains(&"Archive me".to_owned());
        // Every old record is somewhere, each read once; the fact is live,
        // archived, or (between the two writes) both, never neither.
        match &r {
            Ok(_) => assert!(!live && rows == 801, "{fail_at}: {rows}"),
            Err(_) => assert!(
                rows == 800 + usize::from(!live) || (live && rows == 801),
                "{fail_at}: {rows} {live}"
            ),
        }
        assert!(live || rows == 801, "{fail_at}");
        if d.path().join("o/archive/2024.md").exists() {
            rotated_at_least_once = true;
            let part = std::fs::read_to_string(d.path().join("o/archive/2024.md")).unwrap();
            let main = std::fs::read_to_string(d.path().join("o/archive.md")).unwrap();
            // A record in both (the part written, archive.md not yet) is
            // still counted once above.
            let in_part = part.matches("\n- Old fact").count();
            let in_main = main.matches("\n- Old fact").count();
            assert!(in_part + in_main >= 800, "{fail_at}: {in_part} + {in_main}");
        }
    }
    assert!(rotated_at_least_once);
}

/// A vetoed fact that came back live (a merge, a hand edit) is kept live,
/// its veto's record dropped, by a person only: an agent is refused as an
/// unarchive of it would be, and nothing changes.
#[test]
fn keeping_a_vetoed_fact_live_is_a_person_s_right() {
    let (d, s) = store();
    let agent = s.owner("agt_1").unwrap();
    let id = agent
        .add(Scope::Memory, "The staging host is db-9")
        .unwrap()
        .outcome
        .id;
    let path = d.path().join("agt_1/MEMORY.md");
    let line = std::fs::read_to_string(&path).unwrap();
    let person = s
        .owner_as(&Caller::Person("ann".into()), Some("agt_1"))
        .unwrap();
    person.veto(&id, Some("wrong host")).unwrap();
    std::fs::write(&path, &line).unwrap();
    let archive = d.path().join("agt_1/archive.md");
    let before = std::fs::read_to_string(&archive).unwrap();
    match agent.resolve(&id, Keep::Live) {
        Err(Error::VetoHumanOnly { id: refused, .. }) => assert_eq!(refused, id),
        other => panic!("{other:?}"),
    }
    assert_eq!(std::fs::read_to_string(&archive).unwrap(), before);
    person.resolve(&id, Keep::Live).unwrap();
    assert!(!std::fs::read_to_string(&archive).unwrap().contains(&id));
    assert_eq!(std::fs::read_to_string(&path).unwrap(), line);
}
