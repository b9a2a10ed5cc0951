//! The semantic layer's cost beside the rules (docs/SECURITY.md, the
//! semantic layer): judging a batch of 32 public notes (the first of the
//! external corpus's held-out benign notes) with the rules alone — the
//! baseline — and with the rules and the model's vectors scored by the
//! committed classifier, in the same run; the ratio of medians is printed
//! at the end. Loading the model (once per process) is timed apart.
//!
//! The model is the one `MEMDIR_MODEL_DIR` names (all-MiniLM-L6-v2, as the
//! tests take it); without it the rules alone are measured and the run says
//! so.
//!
//! Run with `MEMDIR_MODEL_DIR=DIR cargo bench --bench semantic`.

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use criterion::Criterion;
use memdir::internals::recall::embed::{Model, ModelFiles};
use memdir::internals::scan::{scan, semantic};

/// Notes per batch: a snapshot's two stores hold about this many entries.
const BATCH: usize = 32;

fn notes() -> Vec<String> {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/scan/external/heldout_benign.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    let samples: Vec<serde_json::Value> = serde_json::from_str(&text).expect("the corpus");
    samples
        .iter()
        .filter_map(|s| s["text"].as_str().map(str::to_owned))
        .take(BATCH)
        .collect()
}

fn load(dir: &Path) -> Model {
    let read = |name: &str| std::fs::read(dir.join(name)).expect("the model's files");
    let (config, weights, tokenizer) = (
        read("config.json"),
        read("model.safetensors"),
        read("tokenizer.json"),
    );
    let pooling = std::fs::read(dir.join("1_Pooling/config.json")).ok();
    Model::load(ModelFiles {
        config: &config,
        weights: &weights,
        tokenizer: &tokenizer,
        pooling: pooling.as_deref(),
    })
    .expect("the model loads")
}

fn median(mut xs: Vec<Duration>) -> Duration {
    xs.sort();
    xs[xs.len() / 2]
}

fn main() {
    let notes = notes();
    let texts: Vec<&str> = notes.iter().map(String::as_str).collect();
    let model_dir = std::env::var_os("MEMDIR_MODEL_DIR").map(PathBuf::from);
    let model = model_dir.as_deref().map(|dir| {
        let started = Instant::now();
        let model = load(dir);
        println!(
            "loading the model: {:.0} ms",
            started.elapsed().as_secs_f64() * 1e3
        );
        assert!(
            semantic::fits(model.fingerprint(), semantic::WEIGHTS.len()),
            "the committed classifier was not trained on this model"
        );
        model
    });
    let rules = |texts: &[&str]| texts.iter().map(|t| scan(t)).collect::<Vec<_>>();
    let both = |model: &Model, texts: &[&str]| {
        let vectors = model.embed(texts, 2, None).expect("embed");
        rules(texts)
            .into_iter()
            .zip(&vectors)
            .map(|(f, v)| semantic::judge(f, Some(v)))
            .collect::<Vec<_>>()
    };

    let mut c = Criterion::default()
        .sample_size(10)
        .measurement_time(Duration::from_secs(10))
        .configure_from_args();
    let mut g = c.benchmark_group("semantic");
    g.bench_function("rules_32_notes", |b| b.iter(|| black_box(rules(&texts))));
    if let Some(model) = &model {
        g.bench_function("rules_and_model_32_notes", |b| {
            b.iter(|| black_box(both(model, &texts)))
        });
    }
    g.finish();

    // The ratio, from one loop that alternates the two so noise hits both.
    let Some(model) = &model else {
        println!("MEMDIR_MODEL_DIR is not set: the rules alone were measured");
        return;
    };
    let (mut base, mut with) = (Vec::new(), Vec::new());
    for _ in 0..7 {
        let t = Instant::now();
        black_box(rules(&texts));
        base.push(t.elapsed());
        let t = Instant::now();
        black_box(both(model, &texts));
        with.push(t.elapsed());
    }
    let (base, with) = (median(base), median(with));
    println!(
        "{BATCH} notes: rules {:.2} ms, rules and model {:.1} ms: {:.0}x the rules ({:.1} ms a note)",
        base.as_secs_f64() * 1e3,
        with.as_secs_f64() * 1e3,
        with.as_secs_f64() / base.as_secs_f64(),
        with.as_secs_f64() * 1e3 / BATCH as f64
    );
}
