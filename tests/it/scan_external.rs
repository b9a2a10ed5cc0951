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
//! `cargo test -p memdir --test it scan_external -- --nocapture` prints the table of
//! `docs/SECURITY.md` ("The guard on material it was not tuned on"): per source, the attacks
//! blocked and the benign notes flagged, with 95% Wilson intervals. The rebuild-only tuning
//! sources under `local/` are printed when present and never asserted.

use std::collections::BTreeSet;

use memdir::internals::scan::{Family, Finding, pattern_list, scan, semantic};

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
    attacks_judged(samples, None, verbose)
}

/// The rules' findings on a sample, with the semantic layer's verdict on its
/// vector when there is one.
fn judged(s: &Sample, vectors: Option<&[Vec<f32>]>, i: usize) -> Vec<Finding> {
    let vector = vectors.map(|v| v[i].as_slice());
    semantic::judge(scan(&s.text), vector)
}

/// [`attacks`], judged with the vectors (rules and model) when given.
fn attacks_judged(samples: &[Sample], vectors: Option<&[Vec<f32>]>, verbose: bool) -> Counts {
    let mut c = Counts::default();
    for (i, s) in samples.iter().enumerate() {
        let found = judged(s, vectors, i);
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
    benign_judged(samples, None, verbose)
}

/// [`benign`], judged with the vectors (rules and model) when given.
fn benign_judged(samples: &[Sample], vectors: Option<&[Vec<f32>]>, verbose: bool) -> Counts {
    let mut c = Counts::default();
    for (i, s) in samples.iter().enumerate() {
        let found = judged(s, vectors, i);
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

// ---------------------------------------------------------------------------
// The semantic layer (`scan::semantic`): the rules and a classifier over the
// reference model's vectors, trained on the tuning sources only.

/// Per attack source, rules and model: the least number of its attacks
/// blocked (what the committed classifier did when it was trained).
const SEMANTIC_ATTACK_FLOORS: &[(&str, usize)] = &[
    ("jailbreak_llms", 330),
    ("bipia", 75),
    ("promptinject", 16),
    ("garak", 119),
    ("llm_guard", 35),
];

/// Per benign source, rules and model: the greatest number of its notes
/// flagged (what the committed classifier did when it was trained).
const SEMANTIC_BENIGN_CEILINGS: &[(&str, usize)] = &[
    ("bipia_email", 17),
    ("tldr", 10),
    ("llm_guard_docs", 14),
    ("llm_guard_commits", 2),
    ("runbooks", 0),
    ("garak_commits", 0),
    ("llm_guard", 3),
];

/// The corpus files, in the order [`Embedded::vectors`] keeps them.
const FILES: [&str; 4] = [
    "tuning_attacks.json",
    "tuning_benign.json",
    "heldout_attacks.json",
    "heldout_benign.json",
];

/// The reference model's fingerprint and the vectors of every sample of
/// [`FILES`], embedded once per test binary.
struct Embedded {
    model: String,
    vectors: Vec<Vec<Vec<f32>>>,
}

static EMBEDDED: std::sync::LazyLock<Option<Embedded>> = std::sync::LazyLock::new(|| {
    use memdir::internals::recall::embed::{Model, ModelFiles};
    let dir = crate::common::model_dir()?;
    let read = |name: &str| std::fs::read(dir.join(name)).expect("the model's files");
    let (config, weights, tokenizer) = (
        read("config.json"),
        read("model.safetensors"),
        read("tokenizer.json"),
    );
    let pooling = std::fs::read(dir.join("1_Pooling/config.json")).ok();
    let model = Model::load(ModelFiles {
        config: &config,
        weights: &weights,
        tokenizer: &tokenizer,
        pooling: pooling.as_deref(),
    })
    .expect("the model loads");
    let started = std::time::Instant::now();
    let vectors = FILES
        .iter()
        .map(|f| {
            let samples = must_load(f);
            let texts: Vec<&str> = samples.iter().map(|s| s.text.as_str()).collect();
            model.embed(&texts, 2, None).expect("embed")
        })
        .collect();
    let embedding = started.elapsed();
    let started = std::time::Instant::now();
    let mut n = 0;
    for f in FILES {
        for s in must_load(f) {
            std::hint::black_box(scan(&s.text));
            n += 1;
        }
    }
    let rules = started.elapsed();
    println!(
        "{n} texts: the rules in {rules:?}, the model's vectors in {embedding:?} (x{:.0})",
        embedding.as_secs_f64() / rules.as_secs_f64().max(1e-9)
    );
    Some(Embedded {
        model: model.fingerprint().to_owned(),
        vectors,
    })
});

/// The SHA-256 of the tuning files, each followed by a NUL byte.
fn training_data_sha256() -> String {
    use sha2::{Digest, Sha256};
    let mut h = Sha256::new();
    for f in &FILES[..2] {
        h.update(std::fs::read(format!("{DIR}/{f}")).expect("tuning file"));
        h.update([0u8]);
    }
    hex::encode(h.finalize())
}

/// The generated `src/scan/semantic/classifier.rs`.
fn render_classifier(t: &semantic::Trained, data: &str, model: &str) -> String {
    let mut out = String::from(
        "//! Generated by `MEMDIR_REGENERATE=1 cargo test -p memdir --test it --\n\
         //! semantic_classifier` (tests/it/scan_external.rs) from the tuning sources of\n\
         //! fixtures/scan/external/ and the reference model; do not edit.\n",
    );
    out.push_str(&format!(
        "//!\n//! Out of fold on the tuning data: {}/{} attacks and {}/{} benign samples at or\n\
         //! above the threshold.\n\n",
        t.attacks_flagged.0, t.attacks_flagged.1, t.benign_flagged.0, t.benign_flagged.1
    ));
    out.push_str(&format!(
        "pub(super) const DATA_SHA256: &str =\n    \"{data}\";\n"
    ));
    out.push_str(&format!(
        "pub(super) const MODEL_FINGERPRINT: &str =\n    \"{model}\";\n"
    ));
    out.push_str(&format!("pub(super) const BIAS: f32 = {:?};\n", t.bias));
    out.push_str(&format!(
        "pub(super) const THRESHOLD: f32 = {:?};\n",
        t.threshold
    ));
    out.push_str(&format!(
        "#[rustfmt::skip]\npub(super) const WEIGHTS: [f32; {}] = [\n",
        t.weights.len()
    ));
    for chunk in t.weights.chunks(6) {
        let line: Vec<String> = chunk.iter().map(|w| format!("{w:?}")).collect();
        out.push_str(&format!("    {},\n", line.join(", ")));
    }
    out.push_str("];\n");
    out
}

/// The committed classifier is derived: trained on the tuning files it
/// names by hash (checked without the model too), and with the model what
/// the trainer makes of them now (`MEMDIR_REGENERATE=1` writes it).
#[test]
fn semantic_classifier_is_derived_from_the_tuning_sources() {
    let data = training_data_sha256();
    let regenerate = std::env::var("MEMDIR_REGENERATE").as_deref() == Ok("1");
    if !regenerate {
        assert_eq!(
            semantic::TRAINING_DATA_SHA256,
            data,
            "the tuning files changed: MEMDIR_REGENERATE=1 retrains the classifier"
        );
    }
    let Some(e) = EMBEDDED.as_ref() else {
        return;
    };
    let xs: Vec<Vec<f32>> = e.vectors[0].iter().chain(&e.vectors[1]).cloned().collect();
    let ys: Vec<bool> = (0..xs.len()).map(|i| i < e.vectors[0].len()).collect();
    let started = std::time::Instant::now();
    let t = semantic::train(&xs, &ys);
    println!(
        "trained in {:?}: threshold {}, out of fold {:?} attacks, {:?} benign",
        started.elapsed(),
        t.threshold,
        t.attacks_flagged,
        t.benign_flagged
    );
    if regenerate {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../src/scan/semantic/classifier.rs"
        );
        std::fs::write(path, render_classifier(&t, &data, &e.model)).expect("write");
        return;
    }
    assert_eq!(
        semantic::MODEL_FINGERPRINT,
        e.model,
        "trained on another model"
    );
    // The same arithmetic on the same vectors; a processor's other SIMD
    // path may move the vectors' last bits, so the weights are compared
    // within a tolerance.
    let close = |a: f32, b: f32| (a - b).abs() <= 1e-3 * (1.0 + a.abs().max(b.abs()));
    assert!(
        close(t.bias, semantic::BIAS),
        "bias {} vs {}",
        t.bias,
        semantic::BIAS
    );
    assert!(
        close(t.threshold, semantic::THRESHOLD),
        "threshold {} vs {}",
        t.threshold,
        semantic::THRESHOLD
    );
    assert_eq!(t.weights.len(), semantic::WEIGHTS.len());
    for (i, (a, b)) in t.weights.iter().zip(semantic::WEIGHTS).enumerate() {
        assert!(close(*a, *b), "weight {i}: {a} vs {b}");
    }
}

/// With the model: per source, the attacks the rules and the semantic layer
/// block together and the benign notes they flag, held-out and tuning, as
/// in [`external_corpus_per_source_floors`], and the floors they keep.
#[test]
fn external_corpus_with_the_model_per_source_floors() {
    let Some(e) = EMBEDDED.as_ref() else {
        return;
    };
    assert!(
        semantic::fits(&e.model, semantic::WEIGHTS.len()),
        "the committed classifier does not fit the reference model"
    );
    let parts = [("held-out", 2, 3), ("tuning", 0, 1)];
    let mut lines = vec![
        format!("semantic threshold {} (logit)", semantic::THRESHOLD),
        "| part | measure | source | count | share | 95% Wilson |".to_owned(),
        "| --- | --- | --- | --- | --- | --- |".to_owned(),
    ];
    let mut misses = Vec::new();
    for (part, a, b) in parts {
        let (att_s, ben_s) = (must_load(FILES[a]), must_load(FILES[b]));
        let att = attacks_judged(&att_s, Some(&e.vectors[a]), false);
        let ben = benign_judged(&ben_s, Some(&e.vectors[b]), true);
        lines.extend(table(&format!("{part}, rules + model"), &att, &ben));
        for (source, floor) in SEMANTIC_ATTACK_FLOORS {
            if let Some((k, n)) = att.get(source)
                && k < *floor
            {
                misses.push(format!("{source}: {k}/{n} attacks blocked, floor {floor}"));
            }
        }
        for (source, ceiling) in SEMANTIC_BENIGN_CEILINGS {
            if let Some((k, n)) = ben.get(source)
                && k > *ceiling
            {
                misses.push(format!(
                    "{source}: {k}/{n} benign flagged, ceiling {ceiling}"
                ));
            }
        }
    }
    for line in &lines {
        println!("{line}");
    }
    assert!(misses.is_empty(), "{}", misses.join("; "));
}

/// The shortest one-line tuning attack the rules pass and the committed
/// classifier flags.
fn semantic_only(e: &Embedded) -> String {
    let samples = must_load(FILES[0]);
    samples
        .iter()
        .zip(&e.vectors[0])
        .filter(|(s, v)| !s.text.contains('\n') && scan(&s.text).is_empty() && semantic::flags(v))
        .min_by_key(|(s, _)| s.text.len())
        .map(|(s, _)| s.text.clone())
        .expect("a tuning attack only the classifier flags")
}

/// Through the binary: with the layer on, a save of a text the classifier
/// flags (and the rules pass) is refused at write time, as the snapshot
/// would block it, naming `semantic_injection`, and nothing is written; a
/// plain note is saved; with the layer off (the model alone, or nothing),
/// the same text is saved, the rules' verdict.
#[test]
fn a_write_with_the_model_refuses_what_the_classifier_flags() {
    let (Some(model), Some(e)) = (crate::common::model_dir(), EMBEDDED.as_ref()) else {
        return;
    };
    let m = model.to_str().expect("utf-8 path");
    let attack = semantic_only(e);
    let s = crate::util::Sandbox::new();
    let config = s.dir.path().join("semantic-config");
    std::fs::create_dir_all(&config).expect("config folder");
    std::fs::write(config.join("config.yaml"), "scan:\n  semantic: true\n").expect("config.yaml");
    let on = config.to_str().expect("utf-8 path");
    let judged = ["--config-dir", on, "--recall-model", m, "--json"];
    s.run_as(
        "agt",
        &[&judged[..], &["add", "The staging deploy needs the VPN on"]].concat(),
    )
    .ok();
    let before = s.read_or_empty("agt", "MEMORY.md");
    let refused = s
        .run_as("agt", &[&judged[..], &["add", &attack]].concat())
        .json_error("memory_threat_blocked");
    assert!(
        refused["message"]
            .as_str()
            .is_some_and(|m| m.contains("semantic_injection")),
        "{refused}"
    );
    assert_eq!(
        s.read_or_empty("agt", "MEMORY.md"),
        before,
        "nothing written"
    );
    // A replace's new text is judged too.
    s.run_as(
        "agt",
        &[&judged[..], &["replace", "staging deploy", &attack]].concat(),
    )
    .json_error("memory_threat_blocked");
    assert_eq!(
        s.read_or_empty("agt", "MEMORY.md"),
        before,
        "nothing written"
    );
    // Off: the rules alone pass it.
    s.run_as("agt", &["--recall-model", m, "add", &attack]).ok();
    let start: String = attack.chars().take(20).collect();
    assert!(s.read_or_empty("agt", "MEMORY.md").contains(&start));
}

/// Plain notes for a store of the size a snapshot scans.
fn notes(n: usize) -> Vec<String> {
    (0..n)
        .map(|i| {
            format!("Note {i}: the staging deploy of service {i} needs the VPN on; ask Dana first")
        })
        .collect()
}

/// Through the binary: a snapshot with the model blocks what the classifier
/// flags and the rules pass, naming `semantic_injection`; a verdict the
/// rules alone cached is not taken for one of the model's, nor the reverse.
/// Prints what a cold snapshot (no cached verdict) costs with and without
/// the model.
#[test]
fn a_snapshot_with_the_model_blocks_what_the_classifier_flags() {
    let (Some(model), Some(e)) = (crate::common::model_dir(), EMBEDDED.as_ref()) else {
        return;
    };
    let m = model.to_str().expect("utf-8 path");
    let s = crate::util::Sandbox::new();
    s.run_as("agt", &["add", "The staging deploy needs the VPN on"])
        .ok();
    s.run_as("agt", &["add", &semantic_only(e)]).ok();
    let rules = s.run_as("agt", &["snapshot"]).ok().text();
    assert!(!rules.contains("[BLOCKED"), "{rules}");
    // The model alone does not turn the layer on: `scan: { semantic: true }`
    // in the machine-local configuration does.
    let off = s
        .run_as("agt", &["--recall-model", m, "snapshot"])
        .ok()
        .text();
    assert!(!off.contains("[BLOCKED"), "{off}");
    let config = s.dir.path().join("semantic-config");
    std::fs::create_dir_all(&config).expect("config folder");
    std::fs::write(config.join("config.yaml"), "scan:\n  semantic: true\n").expect("config.yaml");
    let on = config.to_str().expect("utf-8 path");
    let judged = s
        .run_as(
            "agt",
            &["--config-dir", on, "--recall-model", m, "snapshot"],
        )
        .ok()
        .text();
    assert!(judged.contains("matched semantic_injection"), "{judged}");
    assert!(
        judged.contains("The staging deploy needs the VPN on"),
        "{judged}"
    );
    let again = s
        .run_as(
            "agt",
            &["--config-dir", on, "--recall-model", m, "snapshot"],
        )
        .ok()
        .text();
    assert!(again.contains("matched semantic_injection"), "{again}");
    let rules_again = s.run_as("agt", &["snapshot"]).ok().text();
    assert!(!rules_again.contains("[BLOCKED"), "{rules_again}");

    // A cold snapshot of 16 notes, each way (the cache removed first).
    let t = crate::util::Sandbox::new();
    for note in notes(16) {
        t.run_as("agt", &["add", &note]).ok();
    }
    let cache = t.owner_dir("agt").join(".memdir/scan-cache.json");
    let cold = |extra: &[&str]| {
        let mut best = std::time::Duration::MAX;
        for _ in 0..3 {
            let _ = std::fs::remove_file(&cache);
            let mut args = extra.to_vec();
            args.push("snapshot");
            let started = std::time::Instant::now();
            t.run_as("agt", &args).ok();
            best = best.min(started.elapsed());
        }
        best
    };
    let config = t.dir.path().join("semantic-config");
    std::fs::create_dir_all(&config).expect("config folder");
    std::fs::write(config.join("config.yaml"), "scan:\n  semantic: true\n").expect("config.yaml");
    let on = config.to_str().expect("utf-8 path");
    let (without, with) = (cold(&[]), cold(&["--config-dir", on, "--recall-model", m]));
    println!(
        "a cold snapshot of 16 notes: {without:?} with the rules alone, {with:?} with the model \
         (x{:.1})",
        with.as_secs_f64() / without.as_secs_f64().max(1e-9)
    );
}
