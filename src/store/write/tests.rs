use std::cell::Cell;

use crate::edit::{Op, used_chars};
use crate::error::Error;
use crate::model::Scope;
use crate::store::root::Store;

thread_local! {
    /// How many times this thread applied a store's plan.
    pub(super) static APPLIES: Cell<usize> = const { Cell::new(0) };
}

fn applies() -> usize {
    APPLIES.with(Cell::get)
}

/// A root whose memory budget is `budget` characters, under
/// `curation: auto`.
fn curated_root(budget: usize) -> (tempfile::TempDir, Store) {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(
        d.path().join("memdir.yaml"),
        format!("budgets:\n  memory: {budget}\ncuration: auto\n"),
    )
    .unwrap();
    let store = Store::open(d.path()).unwrap();
    (d, store)
}

/// A root with a 1,000-character memory budget under `curation: auto`,
/// its store filled with `n` facts, and their texts.
fn full(n: usize) -> (tempfile::TempDir, Store, Vec<String>) {
    let (d, store) = curated_root(1000);
    let texts: Vec<String> = (0..n)
        .map(|i| format!("Fact {i:02}: the staging runbook says step {i} is done"))
        .collect();
    let ops: Vec<Op> = texts.iter().map(|t| Op::add(Scope::Memory, t)).collect();
    store.owner("agt").unwrap().batch(&ops).unwrap();
    (d, store, texts)
}

/// A batch of saves into a full store archives as few facts as make room,
/// and applies its plan a bounded number of times, not once more for each
/// fact archived (and again one by one to name the operation over budget).
#[test]
fn curation_makes_room_for_a_group_in_a_few_applies() {
    let (_d, store, texts) = full(19);
    let owner = store.owner("agt").unwrap();
    let before = owner.show(Scope::Memory).unwrap();
    assert!(before.usage.used > 900, "{:?}", before.usage);
    let news: Vec<String> = (0..12)
        .map(|i| format!("New {i:02}: the build cache lives on the second disk"))
        .collect();
    let ops: Vec<Op> = news.iter().map(|t| Op::add(Scope::Memory, t)).collect();
    let start = applies();
    let out = owner.batch(&ops).unwrap();
    let applied = applies() - start;
    assert!(applied <= 3, "the plan was applied {applied} times");
    let usage = &out.usage[0].1;
    assert!(usage.used <= usage.limit, "{usage:?}");
    assert!(out.archived.len() >= 10, "{:?}", out.archived);
    // As few as make room: keeping the last one archived would not fit.
    let after = owner.show(Scope::Memory).unwrap();
    let kept: Vec<&str> = after.entries.iter().map(|e| e.text.as_str()).collect();
    let last = texts
        .iter()
        .find(|t| {
            !kept.contains(&t.as_str()) && {
                let id = crate::model::entry_id("memory", t);
                out.archived.last() == Some(&id)
            }
        })
        .unwrap();
    assert!(usage.used + used_chars([last.as_str()]) + 1 > usage.limit);
    for t in &news {
        assert!(kept.contains(&t.as_str()), "{t}");
    }
}

/// Where archiving every fact cannot make room, the refusal is the one
/// without curation: it names the operation over the budget and lists the
/// store's entries.
#[test]
fn a_save_curation_cannot_fit_is_refused_in_full() {
    let (_d, store, _texts) = full(10);
    let owner = store.owner("agt").unwrap();
    let long = |i: usize| format!("Long note {i}: {}", "the cache is warm ".repeat(22));
    let ops: Vec<Op> = (0..3).map(|i| Op::add(Scope::Memory, long(i))).collect();
    let e = owner.batch(&ops).unwrap_err();
    let Error::Batch { index, source } = e else {
        panic!("{e:?}")
    };
    assert_eq!(index, 1);
    let Error::OverBudget { entries, .. } = *source else {
        panic!("{source:?}")
    };
    assert_eq!(entries.len(), 10);
    assert_eq!(owner.show(Scope::Memory).unwrap().entries.len(), 10);
}

/// Over stores of facts of many lengths (some of several lines) and groups
/// of many sizes, curation archives exactly as many facts as trying one
/// more each time would: the store fits, and keeping the last fact
/// archived would not.
#[test]
fn curation_archives_as_few_as_one_by_one_would() {
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = |n: u64| {
        seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
        (seed >> 33) % n
    };
    let words = ["deploy", "cache", "runbook", "staging", "invoice", "backup"];
    let text = |i: usize, tag: &str, next: &mut dyn FnMut(u64) -> u64| {
        let n = 3 + next(40) as usize;
        let body: Vec<&str> = (0..n).map(|_| words[next(6) as usize]).collect();
        let sep = if next(5) == 0 { "\n" } else { " " };
        format!("{tag} {i}:{sep}{}", body.join(" "))
    };
    let mut archiving = 0;
    for round in 0..12 {
        let (_d, store) = curated_root(4000);
        let owner = store.owner("agt").unwrap();
        // Filled one fact at a time, curation making room as it goes.
        for i in 0..60 {
            owner
                .add(Scope::Memory, &text(i, "Old", &mut next))
                .unwrap();
        }
        let news: Vec<String> = (0..1 + next(8) as usize)
            .map(|i| text(i, &format!("New{round}"), &mut next))
            .collect();
        let before = owner.show(Scope::Memory).unwrap();
        let ops: Vec<Op> = news.iter().map(|t| Op::add(Scope::Memory, t)).collect();
        let out = owner.batch(&ops).unwrap();
        let usage = &out.usage[0].1;
        assert!(usage.used <= usage.limit, "round {round}: {usage:?}");
        let Some(last) = out.archived.last() else {
            continue;
        };
        archiving += 1;
        let last = before.entries.iter().find(|e| &e.id == last).unwrap();
        assert!(
            usage.used + used_chars([last.text.as_str()]) + 1 > usage.limit,
            "round {round}: {} archived, one fewer would fit ({usage:?})",
            out.archived.len()
        );
    }
    assert!(archiving >= 10, "{archiving} of 12 rounds archived");
}
