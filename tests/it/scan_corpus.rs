//! Corpus tests (see `fixtures/scan/README.md`).
//!
//! * The original corpus: every malicious sample is caught with its stated family, no benign
//!   sample is flagged.
//! * The evasion corpus, in its tuning and held-out parts: at least 95% of the attacks are
//!   caught with their stated family and at most 1% of the benign notes are flagged, on each
//!   part separately.
//!
//! `cargo test --test it scan_corpus -- --nocapture` prints the figures per part and per class.

use memdir::scan::{Family, pattern_list, scan};

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

#[test]
fn evasion_corpus_meets_the_targets_on_both_parts() {
    let mut misses = Vec::new();
    for (part, mal, ben) in [
        ("tuning", "evasion_malicious.json", "evasion_benign.json"),
        ("held-out", "heldout_malicious.json", "heldout_benign.json"),
    ] {
        let (m, b) = (attacks(mal), benign(ben));
        assert!(
            m.samples >= 50 && b.samples >= 100,
            "{part}: corpus too small"
        );
        println!("== {part} ==");
        for line in m.lines.iter().chain(&b.lines) {
            println!("{line}");
        }
        for (class, n, failed) in &m.classes {
            println!("  attacks {class:<20} {:>3}/{n:<3} blocked", n - failed);
        }
        for (class, n, failed) in &b.classes {
            println!("  benign  {class:<24} {failed:>2}/{n:<3} flagged");
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
        if recall < 95.0 {
            misses.push(format!("{part}: recall {recall:.1}% < 95%"));
        }
        if fp > 1.0 {
            misses.push(format!("{part}: false positives {fp:.1}% > 1%"));
        }
    }
    assert!(misses.is_empty(), "{}", misses.join("; "));
}
