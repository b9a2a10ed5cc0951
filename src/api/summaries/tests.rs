use std::time::Duration;

use super::*;
use crate::error::ErrorCode;
use crate::model::Scope;

/// A root in a temp folder, its machine-local configuration beside it.
fn root() -> (tempfile::TempDir, Store) {
    let tmp = tempfile::tempdir().unwrap();
    let store = Store::open(tmp.path().join("root"))
        .unwrap()
        .with_config_dir(tmp.path().join("config"));
    (tmp, store)
}

fn ann() -> Who {
    Who {
        caller: Caller::Person("ann".into()),
        named: None,
        raw: false,
    }
}

/// Past the file system's granularity: what was just written may be kept.
fn settle() {
    std::thread::sleep(crate::store::stamps::FINE_GRANULARITY + Duration::from_millis(50));
}

/// The page sorted by `sort`, from `page`, `limit` rows, and what was
/// computed and cached for it.
fn ask(store: &Store, sort: SummarySort, page: usize, limit: usize) -> (AgentSummaries, Counted) {
    let mut n = Counted::default();
    let s = summaries(store, &ann(), (sort, Some(page), Some(limit)), &mut n).unwrap();
    (s, n)
}

fn add(store: &Store, id: &str, scope: Scope, text: &str) {
    store
        .owner(id)
        .unwrap()
        .write(crate::edit::Op::add(scope, text))
        .unwrap();
}

#[test]
fn a_row_is_read_once_until_a_file_changes() {
    let (tmp, store) = root();
    add(&store, "agt_a", Scope::Memory, "Prefers tea");
    settle();
    let (first, n) = ask(&store, SummarySort::Id, 1, 50);
    assert_eq!(first.rows[0].live, 1);
    assert_eq!((n.computed, n.cached), (5, 0));
    let (again, n) = ask(&store, SummarySort::Id, 1, 50);
    assert_eq!((again.clone(), n.computed, n.cached), (first, 0, 5));
    // A folder written by hand (no `.memdir/` yet): its row is kept too.
    let b = tmp.path().join("root/agt_b");
    std::fs::create_dir(&b).unwrap();
    std::fs::write(b.join("MEMORY.md"), "- one\n").unwrap();
    settle();
    let (_, n) = ask(&store, SummarySort::Id, 1, 50);
    assert_eq!((n.computed, n.cached), (5, 5));
    settle();
    let (two, n) = ask(&store, SummarySort::Id, 1, 50);
    assert_eq!((n.computed, n.cached), (0, 10));
    assert_eq!(two.rows[1].live, 1);
    // A write: the parts it touched are read again, the others kept.
    add(&store, "agt_a", Scope::User, "Lives in Oslo");
    let (three, n) = ask(&store, SummarySort::Id, 1, 50);
    assert_eq!(three.rows[0].live, 2);
    assert!(three.rows[0].user.used > 0 && three.rows[0].memory.percent <= 100);
    assert!(n.computed >= 1 && n.cached >= 5, "{n:?}");
}

#[test]
fn a_part_read_within_the_granularity_of_a_change_is_not_kept() {
    let (_tmp, store) = root();
    add(&store, "agt_a", Scope::Memory, "Prefers tea");
    // Read at once: MEMORY.md changed less than a tick of the file
    // system's clock ago, so a change now could keep its stamp.
    let (_, n) = ask(&store, SummarySort::Id, 1, 50);
    assert_eq!(n.computed, 5);
    let (_, n) = ask(&store, SummarySort::Id, 1, 50);
    assert!(n.computed >= 1, "{n:?}");
    settle();
    let (_, _) = ask(&store, SummarySort::Id, 1, 50);
    let (_, n) = ask(&store, SummarySort::Id, 1, 50);
    assert_eq!((n.computed, n.cached), (0, 5));
}

#[test]
fn a_sorted_page_reads_each_agent_s_column_and_only_its_rows_whole() {
    let (_tmp, store) = root();
    let mut agents = Vec::new();
    for i in 0..7 {
        let id = format!("agt_{i}");
        // agt_3 holds the most facts, then agt_6, then the others.
        let n = match i {
            3 => 5,
            6 => 3,
            _ => 1,
        };
        for k in 0..n {
            add(&store, &id, Scope::Memory, &format!("Fact {k} of {id}"));
        }
        agents.push(id);
    }
    settle();
    let (page, n) = ask(&store, SummarySort::Live, 1, 2);
    let ids: Vec<&str> = page.rows.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(ids, ["agt_3", "agt_6"]);
    assert_eq!((page.total, page.pages), (7, 4));
    // Every agent's stores, then the two rows' other parts.
    assert_eq!((n.computed, n.cached), (7 + 2 * 4, 2));
    // The second page: ties by id, the stores from the cache.
    let (next, n) = ask(&store, SummarySort::Live, 2, 2);
    let ids: Vec<&str> = next.rows.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(ids, ["agt_0", "agt_1"]);
    assert_eq!((n.computed, n.cached), (2 * 4, 7 + 2));
    // Usage comes from the same part as the counts: nothing read but
    // agt_3's other parts (already read).
    let (_, n) = ask(&store, SummarySort::Usage, 1, 1);
    assert_eq!(n.computed, 0);
    // Past the end: the last page.
    let (last, _) = ask(&store, SummarySort::Live, 9, 2);
    assert_eq!((last.page, last.rows.len()), (4, 1));
    let (by_id, _) = ask(&store, SummarySort::Id, 2, 5);
    assert_eq!(by_id.rows.len(), 2);
    assert_eq!(by_id.rows[0].id, "agt_5");
}

#[test]
fn only_a_person_the_machine_allows_is_answered() {
    let (tmp, store) = root();
    add(&store, "agt_a", Scope::Memory, "Prefers tea");
    let agent = Who {
        caller: Caller::Agent("agt_a".into()),
        named: None,
        raw: false,
    };
    let e = answer(&store, &agent, SummarySort::Id, None, None).unwrap_err();
    assert_eq!(e.code(), ErrorCode::PersonOnly);
    let e = answer(&store, &Who::anonymous(), SummarySort::Id, None, None).unwrap_err();
    assert_eq!(e.code(), ErrorCode::InvalidId);
    std::fs::create_dir_all(tmp.path().join("config")).unwrap();
    std::fs::write(
        tmp.path().join("config/config.yaml"),
        "persons:\n  bob: [0]\n",
    )
    .unwrap();
    let store = Store::open(tmp.path().join("root"))
        .unwrap()
        .with_config_dir(tmp.path().join("config"));
    let e = answer(&store, &ann(), SummarySort::Id, None, None).unwrap_err();
    assert_eq!(e.code(), ErrorCode::PersonNotAllowed);
}

#[test]
fn an_agent_whose_files_cannot_be_read_fails_its_row_only_and_is_not_kept() {
    let (tmp, store) = root();
    add(&store, "agt_a", Scope::Memory, "Prefers tea");
    add(&store, "agt_big", Scope::Memory, "A fact");
    let big = format!("- A fact\n- {}\n", "y".repeat(1_100_000));
    std::fs::write(tmp.path().join("root/agt_big/MEMORY.md"), big).unwrap();
    settle();
    for sort in [SummarySort::Id, SummarySort::Live, SummarySort::Findings] {
        let (page, _) = ask(&store, sort, 1, 50);
        assert_eq!(page.rows.len(), 2);
        let row = page.rows.iter().find(|r| r.id == "agt_big").unwrap();
        let f = row.failed.as_ref().unwrap();
        assert_eq!((f.code, f.status), (ErrorCode::FileTooLarge, 422));
        assert!(f.message.contains("over the 1048576-byte limit"), "{f:?}");
        assert_eq!(row.live, 0);
        let ok = page.rows.iter().find(|r| r.id == "agt_a").unwrap();
        assert!(ok.failed.is_none() && ok.live == 1);
    }
    let (_, n) = ask(&store, SummarySort::Id, 1, 50);
    // Only agt_big's failed parts are read again: its stores, and its
    // routine (which reads them for the time of its first fact).
    assert_eq!((n.computed, n.cached), (2, 8));
}

#[test]
fn sorts_are_named() {
    assert_eq!(SummarySort::parse("usage"), Some(SummarySort::Usage));
    assert_eq!(SummarySort::parse("<x>"), None);
    for s in SummarySort::ALL {
        assert_eq!(SummarySort::parse(s.word()), Some(s));
        assert_eq!(serde_json::to_value(s).unwrap(), s.word());
    }
}

#[test]
fn what_git_tracks_is_asked_afresh_each_time() {
    let (tmp, store) = root();
    add(&store, "agt_a", Scope::Memory, "Prefers tea");
    settle();
    let (first, _) = ask(&store, SummarySort::Findings, 1, 50);
    let root = tmp.path().join("root");
    let git = |args: &[&str]| {
        let out = std::process::Command::new("git")
            .arg("-C")
            .arg(&root)
            .args(args)
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
    };
    git(&["init", "-q"]);
    std::fs::write(root.join("agt_a/.memdir/planted"), "x").unwrap();
    git(&["add", "-f", "agt_a/.memdir/planted"]);
    // The stores' part is as it was (kept); git's answer is new.
    let (now, n) = ask(&store, SummarySort::Findings, 1, 50);
    assert_eq!(now.rows[0].findings, first.rows[0].findings + 1, "{now:?}");
    assert!(n.cached >= 1, "{n:?}");
    let (by_id, _) = ask(&store, SummarySort::Id, 1, 50);
    assert_eq!(by_id.rows[0].findings, now.rows[0].findings);
}
