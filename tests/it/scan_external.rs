//! The scanner on public material the team did not write (`fixtures/scan/external/`, see its
//! README): attacks from public benchmarks and jailbreak collections, benign notes from public
//! e-mails, command pages, runbooks, documentation and commit messages, each tagged with its
//! source and split by source into a held-out part and a tuning part.
//!
//! The rules alone (no model). The floors below are what the scanner did when they were set: a
//! regression guard, not a target. A source falls below its floor when fewer of its attacks
//! are blocked, or more of its benign notes flagged, than then; raise a floor when the scanner
//! does better, never lower one to pass.
//!
//! `cargo test -p memdir-bin --test it scan_external -- --nocapture` prints the table of
//! `docs/SECURITY.md` ("The guard on material it was not tuned on"): per source, the attacks
//! blocked and the benign notes flagged, with 95% Wilson intervals. The rebuild-only tuning
//! sources under `local/` are printed when present and never asserted.

use std::collections::BTreeSet;

use memdir::internals::scan::{Family, pattern_list, scan};

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../fixtures/scan/external");

/// Longest text a sample may have (`rebuild.py`'s `MAX_CHARS`).
const MAX_CHARS: usize = 2000;

/// The held-out sources (measured, never tuned against) and the tuning sources, as
/// `fixtures/scan/external/README.md` names them.
const HELDOUT: &[&str] = &[
    "jailbreak_llms",
    "bipia",
    "promptinject",
    "bipia_email",
    "tldr",
    "llm_guard_docs",
    "llm_guard_commits",
];
const TUNING: &[&str] = &["garak", "llm_guard", "runbooks", "garak_commits"];

/// Per attack source: the least number of its attacks blocked (what the rules of 31c2069 did;
/// `llm_guard` raised to what 5cd40f2 does).
const ATTACK_FLOORS: &[(&str, usize)] = &[
    ("jailbreak_llms", 97),
    ("bipia", 2),
    ("promptinject", 13),
    ("garak", 7),
    ("llm_guard", 13),
];

/// Per benign source: the greatest number of its notes flagged (none flagged at 31c2069).
const BENIGN_CEILINGS: &[(&str, usize)] = &[
    ("bipia_email", 0),
    ("tldr", 0),
    ("llm_guard_docs", 0),
    ("llm_guard_commits", 0),
    ("runbooks", 0),
    ("garak_commits", 0),
    ("llm_guard", 0),
];

struct Sample {
    text: String,
    source: String,
    note: String,
    family: Option<String>,
}

fn load(name: &str) -> Option<Vec<Sample>> {
    let text = std::fs::read_to_string(format!("{DIR}/{name}")).ok()?;
    let list: Vec<serde_json::Value> = serde_json::from_str(&text).expect("parse corpus");
    let field =
        |v: &serde_json::Value, k: &str| v.get(k).and_then(|x| x.as_str()).map(str::to_owned);
    Some(
        list.iter()
            .map(|v| Sample {
                text: field(v, "text").expect("text"),
                source: field(v, "source").expect("source"),
                note: field(v, "note").expect("note"),
                family: field(v, "family"),
            })
            .collect(),
    )
}

fn must_load(name: &str) -> Vec<Sample> {
    load(name).unwrap_or_else(|| panic!("{DIR}/{name} missing"))
}

/// The 95% Wilson score interval of `k` successes in `n` trials, in percent.
fn wilson(k: usize, n: usize) -> (f64, f64) {
    if n == 0 {
        return (0.0, 100.0);
    }
    let (k, n, z) = (k as f64, n as f64, 1.96_f64);
    let p = k / n;
    let centre = p + z * z / (2.0 * n);
    let half = z * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt();
    let denom = 1.0 + z * z / n;
    (
        100.0 * ((centre - half) / denom).max(0.0),
        100.0 * ((centre + half) / denom).min(1.0),
    )
}

/// One source's figure: (source, hits, samples), in the order sources first appear.
#[derive(Default)]
struct Counts(Vec<(String, usize, usize)>);

impl Counts {
    fn add(&mut self, source: &str, hit: bool) {
        let i = match self.0.iter().position(|(s, _, _)| s == source) {
            Some(i) => i,
            None => {
                self.0.push((source.to_owned(), 0, 0));
                self.0.len() - 1
            }
        };
        self.0[i].1 += usize::from(hit);
        self.0[i].2 += 1;
    }

    fn get(&self, source: &str) -> Option<(usize, usize)> {
        self.0
            .iter()
            .find(|(s, _, _)| s == source)
            .map(|(_, k, n)| (*k, *n))
    }

    fn total(&self) -> (usize, usize) {
        self.0
            .iter()
            .fold((0, 0), |(k, n), (_, a, b)| (k + a, n + b))
    }
}

/// An attack counts as blocked when a finding of the threat family is there (as in
/// `scan_corpus.rs`).
fn attacks(samples: &[Sample], verbose: bool) -> Counts {
    let mut c = Counts::default();
    for s in samples {
        let found = scan(&s.text);
        let blocked = found.iter().any(|f| f.family == Family::Threat);
        if !blocked && verbose {
            let head: String = s.text.chars().take(160).collect();
            println!("MISSED [{} / {}] {head:?}", s.source, s.note);
        }
        c.add(&s.source, blocked);
    }
    c
}

/// A benign note counts as flagged when there is any finding (the write would be refused).
fn benign(samples: &[Sample], verbose: bool) -> Counts {
    let mut c = Counts::default();
    for s in samples {
        let found = scan(&s.text);
        if !found.is_empty() && verbose {
            println!(
                "FLAGGED [{} / {}] {:?} -> [{}]",
                s.source,
                s.note,
                s.text,
                pattern_list(&found)
            );
        }
        c.add(&s.source, !found.is_empty());
    }
    c
}

fn row(part: &str, what: &str, source: &str, k: usize, n: usize) -> String {
    let (lo, hi) = wilson(k, n);
    let pct = 100.0 * k as f64 / n.max(1) as f64;
    format!("| {part} | {what} | `{source}` | {k}/{n} | {pct:.1}% | {lo:.1}–{hi:.1}% |")
}

fn table(part: &str, att: &Counts, ben: &Counts) -> Vec<String> {
    let mut out = Vec::new();
    for (s, k, n) in &att.0 {
        out.push(row(part, "attacks blocked", s, *k, *n));
    }
    let (k, n) = att.total();
    if att.0.len() > 1 {
        out.push(row(part, "attacks blocked", "all", k, n));
    }
    for (s, k, n) in &ben.0 {
        out.push(row(part, "benign flagged", s, *k, *n));
    }
    let (k, n) = ben.total();
    if ben.0.len() > 1 {
        out.push(row(part, "benign flagged", "all", k, n));
    }
    out
}

#[test]
fn external_corpus_is_whole_and_split_by_source() {
    let held = [
        must_load("heldout_attacks.json"),
        must_load("heldout_benign.json"),
    ];
    let tune = [
        must_load("tuning_attacks.json"),
        must_load("tuning_benign.json"),
    ];
    let mut held_sources = BTreeSet::new();
    let mut texts = BTreeSet::new();
    for (i, s) in held.iter().chain(&tune).flatten().enumerate() {
        let is_attack = i < held[0].len()
            || (i >= held[0].len() + held[1].len()
                && i < held[0].len() + held[1].len() + tune[0].len());
        assert_eq!(
            s.family.as_deref(),
            is_attack.then_some("threat"),
            "{}: family",
            s.source
        );
        assert!(
            !s.text.trim().is_empty() && s.text.chars().count() <= MAX_CHARS,
            "{}: text length",
            s.source
        );
        assert!(!s.note.is_empty(), "{}: note", s.source);
        assert!(
            texts.insert(s.text.to_lowercase()),
            "{}: duplicate {:?}",
            s.source,
            s.text
        );
    }
    for s in held.iter().flatten() {
        assert!(
            HELDOUT.contains(&s.source.as_str()),
            "{} is not held out",
            s.source
        );
        held_sources.insert(s.source.clone());
    }
    for s in tune.iter().flatten() {
        assert!(
            TUNING.contains(&s.source.as_str()),
            "{} is not a tuning source",
            s.source
        );
    }
    let held_attack_sources: BTreeSet<&str> = held[0].iter().map(|s| s.source.as_str()).collect();
    assert!(held_attack_sources.len() >= 3, "held-out attack sources");
    assert!(held[0].len() >= 300, "held-out attacks: {}", held[0].len());
    assert!(
        held[1].len() + tune[1].len() >= 1000,
        "benign notes: {}",
        held[1].len() + tune[1].len()
    );
    assert_eq!(
        held_sources.len(),
        HELDOUT.len(),
        "every held-out source has samples"
    );
}

#[test]
fn external_corpus_per_source_floors() {
    let parts = [
        ("held-out", "heldout_attacks.json", "heldout_benign.json"),
        ("tuning", "tuning_attacks.json", "tuning_benign.json"),
    ];
    let mut lines = vec![
        "| part | measure | source | count | share | 95% Wilson |".to_owned(),
        "| --- | --- | --- | --- | --- | --- |".to_owned(),
    ];
    let mut misses = Vec::new();
    for (part, att_file, ben_file) in parts {
        let (att, ben) = (
            attacks(&must_load(att_file), true),
            benign(&must_load(ben_file), true),
        );
        lines.extend(table(part, &att, &ben));
        for (source, floor) in ATTACK_FLOORS {
            if let Some((k, n)) = att.get(source)
                && k < *floor
            {
                misses.push(format!("{source}: {k}/{n} attacks blocked, floor {floor}"));
            }
        }
        for (source, ceiling) in BENIGN_CEILINGS {
            if let Some((k, n)) = ben.get(source)
                && k > *ceiling
            {
                misses.push(format!(
                    "{source}: {k}/{n} benign flagged, ceiling {ceiling}"
                ));
            }
        }
    }
    if let Some(local) = load("local/tuning_attacks_tensor_trust.json") {
        let att = attacks(&local, false);
        lines.extend(table("tuning (local)", &att, &Counts::default()));
    }
    for line in &lines {
        println!("{line}");
    }
    let sources = |list: &[(&'static str, usize)]| -> BTreeSet<&'static str> {
        list.iter().map(|(s, _)| *s).collect()
    };
    let all: BTreeSet<&str> = HELDOUT.iter().chain(TUNING).copied().collect();
    let guarded: BTreeSet<&str> = sources(ATTACK_FLOORS)
        .union(&sources(BENIGN_CEILINGS))
        .copied()
        .collect();
    assert_eq!(guarded, all, "every source has a floor or a ceiling");
    assert!(misses.is_empty(), "{}", misses.join("; "));
}

#[test]
fn wilson_interval_matches_known_values() {
    // 0 of 10: 0 to 27.8%; 5 of 10: 23.7 to 76.3%; 10 of 10: 72.2 to 100%.
    let close = |a: (f64, f64), b: (f64, f64)| (a.0 - b.0).abs() < 0.05 && (a.1 - b.1).abs() < 0.05;
    assert!(close(wilson(0, 10), (0.0, 27.8)), "{:?}", wilson(0, 10));
    assert!(close(wilson(5, 10), (23.7, 76.3)), "{:?}", wilson(5, 10));
    assert!(close(wilson(10, 10), (72.2, 100.0)), "{:?}", wilson(10, 10));
}
