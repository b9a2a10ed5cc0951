//! Corpus tests (see `fixtures/scan/README.md`).
//!
//! * The original corpus: every malicious sample is caught with its stated family, no benign
//!   sample is flagged.
//! * The evasion corpus and the v2 corpus, each in its tuning and held-out parts: at least 97%
//!   of the attacks are caught with their stated family and at most 1% of the benign notes are
//!   flagged, on each part separately and in each class of a part.
//!
//! `cargo test --test it scan_corpus -- --nocapture` prints the figures per part and per class.

use memdir::internals::scan::{Family, pattern_list, scan};

fn load(name: &str) -> Vec<serde_json::Value> {
    let path = format!(
        "{}/fixtures/scan/{name}",
        concat!(env!("CARGO_MANIFEST_DIR"), "/..")
    );
    let text = std::fs::read_to_string(&path).expect("read corpus");
    serde_json::from_str(&text).expect("parse corpus")
}

fn field<'a>(v: &'a serde_json::Value, key: &str) -> &'a str {
    v.get(key).and_then(|x| x.as_str()).unwrap_or("")
}

/// What one corpus part yields: per class (the `note`), the samples and the failures.
#[derive(Default)]
struct Tally {
    /// (class, samples, failures), in the order classes first appear.
    classes: Vec<(String, usize, usize)>,
    samples: usize,
    failed: usize,
    lines: Vec<String>,
}

impl Tally {
    fn add(&mut self, class: &str, failed: bool) {
        let i = match self.classes.iter().position(|(c, _, _)| c == class) {
            Some(i) => i,
            None => {
                self.classes.push((class.to_owned(), 0, 0));
                self.classes.len() - 1
            }
        };
        self.classes[i].1 += 1;
        self.samples += 1;
        if failed {
            self.classes[i].2 += 1;
            self.failed += 1;
        }
    }
}

/// Scans every attack of `name`: an attack counts as blocked when a finding of its family is
/// there.
fn attacks(name: &str) -> Tally {
    let mut t = Tally::default();
    for s in &load(name) {
        let want = match field(s, "family") {
            "secret" => Family::Secret,
            _ => Family::Threat,
        };
        let found = scan(field(s, "text"));
        let missed = !found.iter().any(|f| f.family == want);
        if missed {
            t.lines.push(format!(
                "MISSED [{}] {:?} -> [{}]",
                field(s, "note"),
                field(s, "text"),
                pattern_list(&found)
            ));
        }
        t.add(field(s, "note"), missed);
    }
    t
}

/// Scans every benign note of `name`: any finding is a false positive.
fn benign(name: &str) -> Tally {
    let mut t = Tally::default();
    for s in &load(name) {
        let found = scan(field(s, "text"));
        if !found.is_empty() {
            t.lines.push(format!(
                "FALSE POSITIVE [{}] {:?} -> [{}]",
                field(s, "note"),
                field(s, "text"),
                pattern_list(&found)
            ));
        }
        t.add(field(s, "note"), !found.is_empty());
    }
    t
}

fn pct(n: usize, of: usize) -> f64 {
    100.0 * n as f64 / of.max(1) as f64
}

#[test]
fn corpus_recall_and_false_positives() {
    let (m, b) = (attacks("malicious.json"), benign("benign.json"));
    assert!(m.samples >= 70 && b.samples >= 70);
    for line in m.lines.iter().chain(&b.lines) {
        println!("{line}");
    }
    println!(
        "recall: {}/{} blocked, false positives: {}/{}",
        m.samples - m.failed,
        m.samples,
        b.failed,
        b.samples
    );
    assert_eq!(m.failed + b.failed, 0, "original corpus failures");
}

/// Least share of attacks blocked and greatest share of benign notes flagged, on every part
/// and in every class of a part.
const RECALL_TARGET: f64 = 97.0;
const FALSE_POSITIVE_TARGET: f64 = 1.0;

/// The parts measured against the targets: (name, attacks, benign notes, least attacks, least
/// benign notes).
const PARTS: &[(&str, &str, &str, usize, usize)] = &[
    (
        "evasion tuning",
        "evasion_malicious.json",
        "evasion_benign.json",
        50,
        100,
    ),
    (
        "evasion held-out",
        "heldout_malicious.json",
        "heldout_benign.json",
        50,
        100,
    ),
    ("v2 tuning", "v2_malicious.json", "v2_benign.json", 48, 78),
    (
        "v2 held-out",
        "v2_heldout_malicious.json",
        "v2_heldout_benign.json",
        24,
        39,
    ),
];

/// Measures one part: prints its failures and its per-class table, and returns the targets it
/// misses (overall and per class).
fn measure(part: &str, mal: &str, ben: &str, least: (usize, usize)) -> Vec<String> {
    let (m, b) = (attacks(mal), benign(ben));
    assert!(
        m.samples >= least.0 && b.samples >= least.1,
        "{part}: corpus too small"
    );
    let mut misses = Vec::new();
    println!("== {part} ==");
    for line in m.lines.iter().chain(&b.lines) {
        println!("{line}");
    }
    for (class, n, failed) in &m.classes {
        let recall = pct(n - failed, *n);
        println!(
            "  attacks {class:<20} {:>3}/{n:<3} blocked ({recall:.1}%)",
            n - failed
        );
        if recall < RECALL_TARGET {
            misses.push(format!("{part}: attacks {class} {recall:.1}%"));
        }
    }
    for (class, n, failed) in &b.classes {
        let fp = pct(*failed, *n);
        println!("  benign  {class:<24} {failed:>2}/{n:<3} flagged ({fp:.1}%)");
        if fp > FALSE_POSITIVE_TARGET {
            misses.push(format!("{part}: benign {class} {fp:.1}% flagged"));
        }
    }
    let (recall, fp) = (
        pct(m.samples - m.failed, m.samples),
        pct(b.failed, b.samples),
    );
    println!(
        "{part}: recall {}/{} blocked ({recall:.1}%), false positives {}/{} ({fp:.1}%)",
        m.samples - m.failed,
        m.samples,
        b.failed,
        b.samples
    );
    if recall < RECALL_TARGET {
        misses.push(format!("{part}: recall {recall:.1}% < {RECALL_TARGET}%"));
    }
    if fp > FALSE_POSITIVE_TARGET {
        misses.push(format!(
            "{part}: false positives {fp:.1}% > {FALSE_POSITIVE_TARGET}%"
        ));
    }
    misses
}

#[test]
fn every_part_meets_the_targets_overall_and_per_class() {
    let mut misses = Vec::new();
    for (part, mal, ben, least_m, least_b) in PARTS {
        misses.extend(measure(part, mal, ben, (*least_m, *least_b)));
    }
    assert!(misses.is_empty(), "{}", misses.join("; "));
}
