//! Semantic recall through the real binary, with the reference model
//! (all-MiniLM-L6-v2) that `MEMDIR_MODEL_DIR` names: `--recall-model` on
//! the command line, `recall: { model: … }` in the machine-local
//! config.yaml, `memdir serve --recall-model` over HTTP; the facts' vectors
//! computed after the first answer and cached, a broken model reported in
//! `fallback`. Skipped without `MEMDIR_MODEL_DIR`, unless
//! `MEMDIR_REQUIRE_MODEL=1` (CI), which makes a missing model a failure.

use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::common::model_dir;
use crate::http::{make_key, serve};
use crate::util::Sandbox;

/// A fact no word of [`QUERY`] is in, and four others.
const FACTS: [&str; 5] = [
    "Caroline attended an LGBTQ support group on 7 May 2023",
    "Melanie painted a sunrise over the lake last year",
    "The staging deploy needs the VPN on",
    "Prefers tabs over spaces in Go code",
    "Invoices go out on the first of each month",
];
const QUERY: &str = "Which meeting for queer people did she join?";

fn filled(s: &Sandbox, config: &Path) {
    for f in FACTS {
        s.run(&[
            "--config-dir",
            config.to_str().unwrap(),
            "--owner",
            "agt",
            "add",
            f,
        ])
        .ok();
    }
}

fn recall(s: &Sandbox, extra: &[&str]) -> Value {
    recall_of(s, extra, QUERY)
}

fn recall_of(s: &Sandbox, extra: &[&str], query: &str) -> Value {
    let mut args = vec!["--owner", "agt"];
    args.extend_from_slice(extra);
    args.extend(["--json", "recall", "--preview", "--query", query]);
    s.run(&args).ok().json()
}

fn texts(r: &Value) -> Vec<String> {
    r["facts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["text"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn the_model_finds_what_no_word_shares_after_its_vectors_are_cached() {
    let Some(model) = model_dir() else { return };
    let s = Sandbox::new();
    let config = s.dir.path().join("config");
    filled(&s, &config);
    let cfg = config.to_str().unwrap();
    let lexical = recall(&s, &["--config-dir", cfg]);
    assert!(texts(&lexical).is_empty(), "no word is shared: {lexical}");
    assert!(lexical.get("fallback").is_none_or(Value::is_null));
    // The first recall with the model: no vector yet, scored lexically; its
    // process writes the vectors after the answer.
    let m = model.to_str().unwrap();
    let cold = recall(&s, &["--config-dir", cfg, "--recall-model", m]);
    assert!(
        cold["fallback"]
            .as_str()
            .unwrap()
            .contains("5 of 5 facts have no embedding yet"),
        "{cold}"
    );
    let cache = s.path("agt", ".memdir/embeddings.json");
    let file: Value = serde_json::from_slice(&std::fs::read(&cache).unwrap()).unwrap();
    assert_eq!(file["vectors"].as_object().unwrap().len(), 5);
    let warm = recall(&s, &["--config-dir", cfg, "--recall-model", m]);
    assert_eq!(texts(&warm), vec![FACTS[0].to_owned()], "{warm}");
    assert!(warm["facts"][0]["score"].as_f64().unwrap() >= 0.5);
    assert!(warm.get("fallback").is_none_or(Value::is_null), "{warm}");
    assert!(warm.get("lexical").is_none(), "{warm}");
    // The same model named by the machine-local config.yaml (a relative
    // path is the configuration folder's).
    std::fs::create_dir_all(&config).unwrap();
    let link = config.join("minilm");
    std::os::unix::fs::symlink(&model, &link).unwrap();
    std::fs::write(config.join("config.yaml"), "recall:\n  model: minilm\n").unwrap();
    let configured = recall(&s, &["--config-dir", cfg]);
    assert_eq!(
        texts(&configured),
        vec![FACTS[0].to_owned()],
        "{configured}"
    );
    // A deleted cache is rebuilt: derived data.
    std::fs::remove_file(&cache).unwrap();
    let again = recall(&s, &["--config-dir", cfg]);
    assert!(
        again["fallback"]
            .as_str()
            .unwrap()
            .contains("no embedding yet")
    );
    assert!(cache.exists());
}

#[test]
fn a_broken_model_is_reported_and_recall_scores_lexically() {
    let Some(model) = model_dir() else { return };
    let s = Sandbox::new();
    let config = s.dir.path().join("config");
    filled(&s, &config);
    let broken = s.dir.path().join("broken");
    std::fs::create_dir_all(&broken).unwrap();
    for f in ["config.json", "tokenizer.json"] {
        std::fs::copy(model.join(f), broken.join(f)).unwrap();
    }
    std::fs::write(broken.join("model.safetensors"), b"not weights").unwrap();
    let r = recall_of(
        &s,
        &[
            "--config-dir",
            config.to_str().unwrap(),
            "--recall-model",
            broken.to_str().unwrap(),
        ],
        "the staging deploy",
    );
    let why = r["fallback"].as_str().unwrap();
    assert!(
        why.starts_with("semantic scoring failed") && why.contains("model.safetensors"),
        "{r}"
    );
    assert_eq!(texts(&r), vec![FACTS[2].to_owned()], "lexically: {r}");
    assert_eq!(r["lexical"], json!([r["facts"][0]["id"]]));
}

#[test]
fn serve_loads_the_model_once_and_recalls_semantically() {
    let Some(model) = model_dir() else { return };
    let s = Sandbox::new();
    let config = s.dir.path().join("config");
    filled(&s, &config);
    let key = make_key(&s, &["--person", "ann"]);
    let srv = serve(
        &s,
        &[
            "--config-dir",
            config.to_str().unwrap(),
            "--recall-model",
            model.to_str().unwrap(),
        ],
    );
    let ask = || {
        let r = srv.post(
            Some(&key),
            "/api/v1/memories/recall",
            json!({"query": QUERY, "agentId": "agt"}),
        );
        assert_eq!(r.status, 200, "{r:?}");
        r.json()
    };
    let cold = ask();
    assert!(
        cold["fallback"]
            .as_str()
            .unwrap()
            .contains("no embedding yet")
    );
    // The server computes the vectors after that answer.
    let cache = s.path("agt", ".memdir/embeddings.json");
    let until = Instant::now() + Duration::from_secs(60);
    while !cache.exists() && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(50));
    }
    let warm = ask();
    assert_eq!(texts(&warm), vec![FACTS[0].to_owned()], "{warm}");
}
