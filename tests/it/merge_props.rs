//! The merge driver's properties over random edit sequences on two branches
//! from a common base (the library's `merge`, pure), and the same random
//! cases through git's built-in union driver (`git merge-file --union`) for
//! comparison; docs/GIT.md reports both (`cargo test --test it merge_props
//! -- --nocapture` prints the table).

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use memdir::internals::merge::{self, Kind};
use memdir::internals::model::Scope;
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::TestRunner;

use crate::util::word;

/// What one side did to one entry of the base.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fate {
    Kept,
    Removed,
    /// Edited: one of its words replaced by this new word (by number).
    Edited(usize),
}

/// A random case: a base of `n` entries, each side's fate for each, and
/// how many entries each side added (plus how many both added alike).
#[derive(Debug, Clone)]
struct Case {
    n: usize,
    ours: Vec<Fate>,
    theirs: Vec<Fate>,
    ours_adds: usize,
    theirs_adds: usize,
    both_adds: usize,
}

/// Entry `i`'s four words; an edit replaces the word at `i % 4`.
fn words(i: usize) -> Vec<String> {
    (0..4).map(|k| word("zo", i * 4 + k)).collect()
}

fn base_text(i: usize) -> String {
    words(i).join(" ")
}

fn edited_text(i: usize, new: usize) -> String {
    let mut w = words(i);
    w[i % 4] = word("zo", 100_000 + new);
    w.join(" ")
}

fn added_text(side: &str, k: usize) -> String {
    let first = if side == "ours" { 50_000 } else { 70_000 };
    (0..4)
        .map(|j| word("zo", first + k * 4 + j))
        .collect::<Vec<_>>()
        .join(" ")
}

fn both_added_text(k: usize) -> String {
    (0..4)
        .map(|j| word("zo", 90_000 + k * 4 + j))
        .collect::<Vec<_>>()
        .join(" ")
}

fn file(lines: &[String]) -> String {
    let mut s = String::from("# Memory\n\n");
    for l in lines {
        s.push_str("- ");
        s.push_str(l);
        s.push('\n');
    }
    s
}

impl Case {
    fn side(&self, fates: &[Fate], side: &str, adds: usize) -> String {
        let mut lines = Vec::new();
        for (i, f) in fates.iter().enumerate() {
            match f {
                Fate::Kept => lines.push(base_text(i)),
                Fate::Removed => {}
                Fate::Edited(w) => lines.push(edited_text(i, *w)),
            }
        }
        lines.extend((0..adds).map(|k| added_text(side, k)));
        lines.extend((0..self.both_adds).map(both_added_text));
        file(&lines)
    }

    fn base(&self) -> String {
        file(&(0..self.n).map(base_text).collect::<Vec<_>>())
    }

    /// The entries a correct merge holds, each once, and those it must not.
    fn expected(&self) -> (Vec<String>, Vec<String>) {
        let (mut live, mut gone) = (Vec::new(), Vec::new());
        for i in 0..self.n {
            match (self.ours[i], self.theirs[i]) {
                (Fate::Kept, Fate::Kept) => live.push(base_text(i)),
                (Fate::Edited(a), Fate::Edited(b)) => {
                    gone.push(base_text(i));
                    live.push(edited_text(i, a));
                    if a != b {
                        live.push(edited_text(i, b));
                    }
                }
                (Fate::Edited(a), _) | (_, Fate::Edited(a)) => {
                    gone.push(base_text(i));
                    live.push(edited_text(i, a));
                }
                _ => gone.push(base_text(i)),
            }
        }
        live.extend((0..self.ours_adds).map(|k| added_text("ours", k)));
        live.extend((0..self.theirs_adds).map(|k| added_text("theirs", k)));
        live.extend((0..self.both_adds).map(both_added_text));
        (live, gone)
    }
}

fn fate() -> impl Strategy<Value = Fate> {
    prop_oneof![
        4 => Just(Fate::Kept),
        1 => Just(Fate::Removed),
        1 => (0usize..3).prop_map(Fate::Edited),
    ]
}

fn case() -> impl Strategy<Value = Case> {
    (0usize..12).prop_flat_map(|n| {
        (
            proptest::collection::vec(fate(), n),
            proptest::collection::vec(fate(), n),
            0usize..4,
            0usize..4,
            0usize..2,
        )
            .prop_map(move |(ours, theirs, oa, ta, ba)| Case {
                n,
                ours,
                theirs,
                ours_adds: oa,
                theirs_adds: ta,
                both_adds: ba,
            })
    })
}

/// The entries' texts of a merged file (its metadata comments left out),
/// and whether it holds conflict markers.
fn entries(text: &str) -> (Vec<String>, bool) {
    let markers = text
        .lines()
        .any(|l| l.starts_with("<<<<<<<") || l.starts_with(">>>>>>>"));
    let list = text
        .lines()
        .filter_map(|l| l.strip_prefix("- "))
        .map(|l| match l.find(" <!-- memdir") {
            Some(at) => l[..at].to_owned(),
            None => l.to_owned(),
        })
        .collect();
    (list, markers)
}

/// How a merge's result compares with what a correct merge holds.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
struct Tally {
    cases: usize,
    clean: usize,
    lost: usize,
    duplicated: usize,
    resurrected: usize,
}

impl Tally {
    fn add(&mut self, c: &Case, merged: &str) {
        let (have, markers) = entries(merged);
        let (live, gone) = c.expected();
        let mut count: BTreeMap<&str, usize> = BTreeMap::new();
        for h in &have {
            *count.entry(h).or_default() += 1;
        }
        self.cases += 1;
        self.clean += usize::from(!markers);
        self.lost += live
            .iter()
            .filter(|l| !count.contains_key(l.as_str()))
            .count();
        self.duplicated += count.values().filter(|&&n| n > 1).count();
        self.resurrected += gone
            .iter()
            .filter(|g| count.contains_key(g.as_str()))
            .count();
    }
}

fn memdir_merge(c: &Case, ours_first: bool) -> String {
    let (o, t) = (
        c.side(&c.ours, "ours", c.ours_adds),
        c.side(&c.theirs, "theirs", c.theirs_adds),
    );
    let (a, b) = if ours_first { (o, t) } else { (t, o) };
    merge::merge_as(Kind::Store(Scope::Memory), &c.base(), &a, &b).text
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    /// Every entry either side added or edited is there once, every entry
    /// one side removed and the other left alone is gone, nothing is
    /// twice, no conflict markers, and swapping the sides changes only
    /// the order.
    #[test]
    fn the_entry_merge_keeps_adds_and_edits_and_drops_removals(c in case()) {
        let merged = memdir_merge(&c, true);
        let mut t = Tally::default();
        t.add(&c, &merged);
        prop_assert_eq!(t, Tally { cases: 1, clean: 1, ..Tally::default() }, "{}", merged);
        let (mut a, _) = entries(&merged);
        let (mut b, _) = entries(&memdir_merge(&c, false));
        a.sort();
        b.sort();
        prop_assert_eq!(a, b);
    }
}

/// git's union driver on one case (`git merge-file --union -p`).
fn union_merge(dir: &Path, c: &Case) -> String {
    let w = |name: &str, text: &str| {
        let p = dir.join(name);
        std::fs::write(&p, text).expect("write");
        p
    };
    let o = w("ours", &c.side(&c.ours, "ours", c.ours_adds));
    let b = w("base", &c.base());
    let t = w("theirs", &c.side(&c.theirs, "theirs", c.theirs_adds));
    let out = Command::new("git")
        .arg("merge-file")
        .arg("--union")
        .arg("-p")
        .args([&o, &b, &t])
        .output()
        .expect("git merge-file");
    String::from_utf8(out.stdout).expect("utf-8")
}

#[test]
fn against_gits_union_driver_on_the_same_random_cases() {
    if !crate::util::have_git() {
        return;
    }
    let d = tempfile::tempdir().expect("tmp");
    let mut runner = TestRunner::deterministic();
    let strategy = case();
    let (mut ours, mut union) = (Tally::default(), Tally::default());
    for _ in 0..300 {
        let c = strategy.new_tree(&mut runner).expect("a case").current();
        ours.add(&c, &memdir_merge(&c, true));
        union.add(&c, &union_merge(d.path(), &c));
    }
    println!("| driver | cases | clean | entries lost | entries twice | removals undone |");
    println!("|---|---|---|---|---|---|");
    for (name, t) in [("memdir", ours), ("git union", union)] {
        println!(
            "| {name} | {} | {} | {} | {} | {} |",
            t.cases, t.clean, t.lost, t.duplicated, t.resurrected
        );
    }
    assert_eq!(ours.cases, ours.clean);
    assert_eq!((ours.lost, ours.duplicated, ours.resurrected), (0, 0, 0));
    // The comparison means something only if union gets some wrong.
    assert!(union.resurrected + union.duplicated > 0, "{union:?}");
}
