//! Recall quality on LoCoMo (Maharana et al., "Evaluating Very Long-Term
//! Conversational Memory of LLM Agents", ACL 2024), as docs/RECALL.md
//! defines it and `served.py` (beside the conversations) computes it.
//!
//! Per conversation: every `session_N_observation` fact (whitespace folded,
//! at most 500 characters, de-duplicated per store, oldest first; speaker
//! A's in MEMORY.md, B's in USER.md, front matter `budget: 20000`, a store's
//! facts up to 19,500 characters) is written as a fact of one agent, and
//! every question of categories 1–4 is asked as `Owner::recall` with
//! `RecallOptions::query(q).preview()` (counting nothing). A question is
//! **served** when the block holds a fact whose dialog id is in its
//! evidence. Also reported: R@5 and R@10 over the block's facts in order,
//! mean facts and tokens, per category and overall, per conversation and
//! for dev (26, 30), held-out (41, 42, 43) and all; the plain BM25 baseline
//! (`rank_bm25.BM25Okapi`: k1 1.5, b 0.75, epsilon 0.25 over `[a-z0-9]+` of
//! the lower-cased text) in the same run; the curve of served against
//! block size (memdir's ranking cut at k = 5…20 facts); and the latency of
//! one recall over 300 facts of one conversation against parsing the stores.
//!
//! The conversations are evaluation data without a licence: they are read
//! from `MEMDIR_LOCOMO` (a folder holding `26.json`, `30.json`, …), never
//! copied into the repository. Without it the bench says so and exits 0.
//! `MEMDIR_LOCOMO_IDS=26,30` picks conversations; `MEMDIR_LOCOMO_LATENCY=0`
//! skips the latency part.
//!
//! With `MEMDIR_MODEL_DIR` naming a sentence-transformers folder (the
//! reference all-MiniLM-L6-v2), the owner recalls with that model
//! (`Store::with_recall_model`): its facts' vectors computed by a first
//! recall after its answer (`Store::settle` waits for them), then every
//! question scored by the fused scorer; the figures are semantic recall's,
//! and the latency adds embedding 300 facts once and the fused scoring
//! (the query's vector included). `MEMDIR_LOCOMO_CALIBRATE=1` also
//! searches the fusion's parameters (`recall::fuse::Fusion`) on the dev
//! conversations and prints the best that keep the mean block within 400
//! tokens.
//!
//! Run with `MEMDIR_LOCOMO=/work/shared/locomo cargo bench --bench recall_quality`
//! (the quality figures are deterministic: `--profile dev` gives the same).

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use chrono::Utc;
use memdir::api::types::{RecallOptions, Scope, Store, entry_id};
use memdir::internals::recall::embed::{Model, ModelFiles};
use memdir::internals::recall::fuse::{Fused, Fusion, Vectors, cosine};
use memdir::internals::recall::{Bm25Scorer, CharEstimator, Scorer, TokenEstimator};
use serde_json::Value;

#[path = "common/recall_timing.rs"]
mod recall_timing;

/// The conversations tuned on; the others are held out.
const DEV: &[&str] = &["26", "30"];
/// All five, in order.
const ALL: &[&str] = &["26", "30", "41", "42", "43"];
/// A store's facts, in characters (each fact plus one), as served.py writes them.
const STORE_CHARS: usize = 19_500;
/// The curve's block sizes.
const CURVE: std::ops::RangeInclusive<usize> = 5..=20;
/// LoCoMo's categories 1–4 (5, adversarial, is left out).
const CATEGORIES: [&str; 4] = ["multi-hop", "temporal", "open-domain", "single-hop"];

/// One stored fact.
struct Fact {
    id: String,
    scope: Scope,
    text: String,
    dialogs: HashSet<String>,
}

/// One question of categories 1–4.
struct Question {
    text: String,
    category: usize,
    evidence: HashSet<String>,
}

/// One conversation as stored.
struct Conversation {
    name: String,
    facts: Vec<Fact>,
    skipped: usize,
    questions: Vec<Question>,
}

/// `;`/`,`-separated dialog ids, trimmed (served.py's `re.split(r"[;,]", str(x))`).
fn split_ids(s: &str, out: &mut HashSet<String>) {
    out.extend(
        s.split([';', ','])
            .map(str::trim)
            .filter(|x| !x.is_empty())
            .map(str::to_owned),
    );
}

fn as_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn load(dir: &Path, name: &str) -> Conversation {
    let path = dir.join(format!("{name}.json"));
    let raw = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let d: Value = serde_json::from_str(&raw).expect("conversation JSON");
    let a = d["speaker_a"].as_str().expect("speaker_a").to_owned();
    let obj = d.as_object().expect("an object");
    let mut sessions: Vec<(u64, &Value)> = obj
        .iter()
        .filter(|(k, _)| k.ends_with("_observation"))
        .map(|(k, v)| {
            let n = k.split('_').nth(1).and_then(|n| n.parse().ok());
            (n.expect("session number"), v)
        })
        .collect();
    sessions.sort_by_key(|s| s.0);
    let mut by_scope: [Vec<(String, HashSet<String>)>; 2] = [Vec::new(), Vec::new()];
    for (_, obs) in sessions {
        for (speaker, items) in obs.as_object().expect("speakers") {
            let k = usize::from(*speaker != a); // 0: MEMORY.md, 1: USER.md
            for item in items.as_array().expect("facts") {
                let text = as_text(&item[0]);
                let folded: String = text
                    .split_whitespace()
                    .collect::<Vec<_>>()
                    .join(" ")
                    .chars()
                    .take(500)
                    .collect();
                let mut dialogs = HashSet::new();
                match &item[1] {
                    Value::Array(xs) => dialogs.extend(xs.iter().map(as_text)),
                    other => split_ids(&as_text(other), &mut dialogs),
                }
                by_scope[k].push((folded, dialogs));
            }
        }
    }
    let mut facts: Vec<Fact> = Vec::new();
    let mut skipped = 0;
    for (k, scope) in [Scope::Memory, Scope::User].into_iter().enumerate() {
        let (mut used, mut seen) = (0, HashSet::new());
        for (text, dialogs) in std::mem::take(&mut by_scope[k]) {
            if seen.contains(&text) {
                continue;
            }
            let chars = text.chars().count();
            if used + chars + 1 > STORE_CHARS {
                skipped += 1;
                continue;
            }
            used += chars + 1;
            seen.insert(text.clone());
            let id = entry_id(scope.name(), &text);
            match facts.iter_mut().find(|f| f.id == id) {
                Some(f) => f.dialogs.extend(dialogs),
                None => facts.push(Fact {
                    id,
                    scope,
                    text,
                    dialogs,
                }),
            }
        }
    }
    let mut questions = Vec::new();
    for q in d["qa"].as_array().expect("qa") {
        let category = q["category"].as_u64().unwrap_or(0) as usize;
        let evidence = q["evidence"].as_array().cloned().unwrap_or_default();
        if category == 5 || evidence.is_empty() {
            continue;
        }
        let mut ev = HashSet::new();
        for e in &evidence {
            split_ids(&as_text(e), &mut ev);
        }
        questions.push(Question {
            text: as_text(&q["question"]).chars().take(4000).collect(),
            category,
            evidence: ev,
        });
    }
    Conversation {
        name: name.to_owned(),
        facts,
        skipped,
        questions,
    }
}

/// The reference model, when `MEMDIR_MODEL_DIR` names its folder.
struct Semantic {
    dir: PathBuf,
    model: Model,
}

impl Semantic {
    fn load(dir: &Path) -> Semantic {
        let read = |name: &str| {
            std::fs::read(dir.join(name)).unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        };
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
        Semantic {
            dir: dir.to_owned(),
            model,
        }
    }

    fn embed(&self, texts: &[&str], threads: usize) -> Vec<Vec<f32>> {
        self.model.embed(texts, threads, None).expect("embed")
    }
}

/// Vectors by text, for the fused scorer outside a recall.
struct ByText<'a>(HashMap<&'a str, &'a [f32]>);

impl Vectors for ByText<'_> {
    fn vector(&self, text: &str) -> Option<&[f32]> {
        self.0.get(text).copied()
    }
}

/// One dev question's scores, for the calibration: each fact's lexical
/// score and cosine, and whether it is evidence.
struct Sample {
    lexical: Vec<f64>,
    cosine: Vec<Option<f32>>,
    hit: Vec<bool>,
}

/// Writes the facts' stores as served.py does and opens the owner (with
/// the recall model, when one is given; its own configuration folder, for
/// the scan key that vouches for cached vectors).
fn build(root: &Path, facts: &[&Fact], model: Option<&Path>) -> memdir::Owner {
    let mut store = Store::open(root)
        .expect("open")
        .with_config_dir(root.with_extension("config"));
    if let Some(dir) = model {
        store = store.with_recall_model(dir);
    }
    store.init().expect("init");
    let owner = store.owner("agt_locomo").expect("owner");
    std::fs::create_dir_all(root.join("agt_locomo")).expect("owner folder");
    for scope in [Scope::Memory, Scope::User] {
        let mut out = String::from("---\nbudget: 20000\n---\n");
        for f in facts.iter().filter(|f| f.scope == scope) {
            out.push_str(&format!("- {}\n", f.text));
        }
        std::fs::write(owner.path(scope), out).expect("write store");
    }
    owner
}

/// rank_bm25's `BM25Okapi` (k1 1.5, b 0.75, epsilon 0.25) over `[a-z0-9]+`.
struct Okapi {
    docs: Vec<HashMap<String, f64>>,
    lens: Vec<f64>,
    avgdl: f64,
    idf: HashMap<String, f64>,
}

fn okapi_tokens(s: &str) -> Vec<String> {
    let lower = s.to_lowercase();
    lower
        .split(|c: char| !(c.is_ascii_lowercase() || c.is_ascii_digit()))
        .filter(|w| !w.is_empty())
        .map(str::to_owned)
        .collect()
}

impl Okapi {
    const K1: f64 = 1.5;
    const B: f64 = 0.75;
    const EPSILON: f64 = 0.25;

    fn new(texts: &[&str]) -> Okapi {
        let mut docs = Vec::new();
        let mut lens = Vec::new();
        let mut df: BTreeMap<String, f64> = BTreeMap::new();
        for t in texts {
            let toks = okapi_tokens(t);
            lens.push(toks.len() as f64);
            let mut tf: HashMap<String, f64> = HashMap::new();
            for w in toks {
                *tf.entry(w).or_default() += 1.0;
            }
            for w in tf.keys() {
                *df.entry(w.clone()).or_default() += 1.0;
            }
            docs.push(tf);
        }
        let n = texts.len() as f64;
        let avgdl = lens.iter().sum::<f64>() / n;
        let mut idf = HashMap::new();
        let mut sum = 0.0;
        let mut negative = Vec::new();
        for (w, f) in &df {
            let v = (n - f + 0.5).ln() - (f + 0.5).ln();
            sum += v;
            if v < 0.0 {
                negative.push(w.clone());
            }
            idf.insert(w.clone(), v);
        }
        let eps = Self::EPSILON * sum / df.len().max(1) as f64;
        for w in negative {
            idf.insert(w, eps);
        }
        Okapi {
            docs,
            lens,
            avgdl,
            idf,
        }
    }

    fn scores(&self, query: &str) -> Vec<f64> {
        let mut s = vec![0.0; self.docs.len()];
        for q in okapi_tokens(query) {
            let idf = self.idf.get(&q).copied().unwrap_or(0.0);
            for (i, (doc, len)) in self.docs.iter().zip(&self.lens).enumerate() {
                let f = doc.get(&q).copied().unwrap_or(0.0);
                let norm = Self::K1 * (1.0 - Self::B + Self::B * len / self.avgdl);
                s[i] += idf * (f * (Self::K1 + 1.0) / (f + norm));
            }
        }
        s
    }
}

/// Indices of `scores`, best first; ties in `tie` order.
fn ranking(scores: &[f64], tie: impl Fn(usize, usize) -> std::cmp::Ordering) -> Vec<usize> {
    let mut idx: Vec<usize> = (0..scores.len()).collect();
    idx.sort_by(|&a, &b| {
        scores[b]
            .partial_cmp(&scores[a])
            .unwrap_or(std::cmp::Ordering::Equal)
            .then_with(|| tie(a, b))
    });
    idx
}

/// Counts over questions.
#[derive(Default, Clone)]
struct Tally {
    questions: usize,
    reachable: usize,
    served: usize,
    r5: usize,
    r10: usize,
    facts: usize,
    tokens: usize,
    bm25_r5: usize,
    bm25_r10: usize,
    bm25_same: usize,
    curve: [(usize, usize); 16],
}

impl Tally {
    fn add(&mut self, o: &Tally) {
        self.questions += o.questions;
        self.reachable += o.reachable;
        self.served += o.served;
        self.r5 += o.r5;
        self.r10 += o.r10;
        self.facts += o.facts;
        self.tokens += o.tokens;
        self.bm25_r5 += o.bm25_r5;
        self.bm25_r10 += o.bm25_r10;
        self.bm25_same += o.bm25_same;
        for (a, b) in self.curve.iter_mut().zip(&o.curve) {
            a.0 += b.0;
            a.1 += b.1;
        }
    }

    fn pct(&self, n: usize) -> f64 {
        100.0 * n as f64 / self.questions.max(1) as f64
    }

    fn mean(&self, n: usize) -> f64 {
        n as f64 / self.questions.max(1) as f64
    }

    fn line(&self, label: &str) -> String {
        format!(
            "{label:<14} q {:>4}  ceiling {:>5.1}%  served {:>5.1}%  R@5 {:>5.1}%  R@10 {:>5.1}%  facts {:>5.1}  tokens {:>4.0}  | BM25 R@5 {:>5.1}%  R@10 {:>5.1}%  served@same {:>5.1}%",
            self.questions,
            self.pct(self.reachable),
            self.pct(self.served),
            self.pct(self.r5),
            self.pct(self.r10),
            self.mean(self.facts),
            self.mean(self.tokens),
            self.pct(self.bm25_r5),
            self.pct(self.bm25_r10),
            self.pct(self.bm25_same),
        )
    }
}

/// The figures of one conversation: overall and per category (index 0–3).
struct Figures {
    all: Tally,
    by_category: [Tally; 4],
    mismatched: usize,
}

fn measure(c: &Conversation, semantic: Option<&Semantic>, samples: &mut Vec<Sample>) -> Figures {
    let tmp = tempfile::tempdir().expect("tempdir");
    let refs: Vec<&Fact> = c.facts.iter().collect();
    let root = tmp.path().join("root");
    let owner = build(&root, &refs, semantic.map(|s| s.dir.as_path()));
    let fact_vectors = semantic.map(|s| {
        // The first recall computes the facts' vectors after its answer.
        let first = owner
            .recall(&RecallOptions::query("warm up").preview())
            .expect("recall");
        assert!(
            first
                .fallback
                .as_deref()
                .is_some_and(|f| f.contains("no embedding yet")),
            "a cold recall scores lexically: {:?}",
            first.fallback
        );
        Store::settle();
        let warm = owner
            .recall(&RecallOptions::query("warm up").preview())
            .expect("recall");
        assert!(
            warm.lexical.is_empty() && warm.fallback.is_none(),
            "warm: {:?}",
            warm.fallback
        );
        let texts: Vec<&str> = c.facts.iter().map(|f| f.text.as_str()).collect();
        s.embed(&texts, 2)
    });
    let by_id: HashMap<&str, &Fact> = c.facts.iter().map(|f| (f.id.as_str(), f)).collect();
    let texts: Vec<&str> = c.facts.iter().map(|f| f.text.as_str()).collect();
    let okapi = Okapi::new(&texts);
    let today = Utc::now().date_naive();
    let line_tokens: Vec<usize> = c
        .facts
        .iter()
        .map(|f| CharEstimator.tokens(&format!("{} ({today}) {}", f.id, f.text)))
        .collect();
    let far = || Instant::now() + Duration::from_secs(60);
    let mut by_category: [Tally; 4] = Default::default();
    let mut mismatched = 0;
    for q in &c.questions {
        let hit = |f: &Fact| !f.dialogs.is_disjoint(&q.evidence);
        let r = owner
            .recall(&RecallOptions::query(q.text.clone()).preview())
            .expect("recall");
        let picks: Vec<&str> = r.facts.iter().map(|f| f.id.as_str()).collect();
        let hits: Vec<usize> = picks
            .iter()
            .enumerate()
            .filter(|(_, p)| by_id.get(*p).is_some_and(|f| hit(f)))
            .map(|(i, _)| i)
            .collect();
        let mut t = Tally {
            questions: 1,
            reachable: usize::from(c.facts.iter().any(hit)),
            served: usize::from(!hits.is_empty()),
            r5: usize::from(hits.iter().any(|&i| i < 5)),
            r10: usize::from(hits.iter().any(|&i| i < 10)),
            facts: picks.len(),
            tokens: r.tokens,
            ..Tally::default()
        };
        // memdir's whole ranking (the recall's order: score, then id), cut at k.
        let lexical = Bm25Scorer::default()
            .score(&q.text, &texts, far())
            .expect("score");
        let scores = match (semantic, &fact_vectors) {
            (Some(s), Some(vs)) => {
                let query = s.embed(&[q.text.as_str()], 2).remove(0);
                let cos: Vec<Option<f32>> = vs.iter().map(|v| Some(cosine(&query, v))).collect();
                if DEV.contains(&c.name.as_str()) {
                    samples.push(Sample {
                        lexical: lexical.clone(),
                        cosine: cos.clone(),
                        hit: c.facts.iter().map(hit).collect(),
                    });
                }
                Fusion::default().fuse(&lexical, &cos, &texts)
            }
            _ => lexical,
        };
        let ours = ranking(&scores, |a, b| c.facts[a].id.cmp(&c.facts[b].id));
        if ours
            .iter()
            .take(picks.len())
            .map(|&i| c.facts[i].id.as_str())
            .ne(picks.iter().copied())
        {
            mismatched += 1;
        }
        for (slot, k) in t.curve.iter_mut().zip(CURVE) {
            slot.0 = usize::from(ours.iter().take(k).any(|&i| hit(&c.facts[i])));
            slot.1 = ours.iter().take(k).map(|&i| line_tokens[i]).sum();
        }
        // The plain BM25 baseline, ties in store order (as a stable sort).
        let bm = ranking(&okapi.scores(&q.text), |a, b| a.cmp(&b));
        let served_at = |k: usize| usize::from(bm.iter().take(k).any(|&i| hit(&c.facts[i])));
        t.bm25_r5 = served_at(5);
        t.bm25_r10 = served_at(10);
        t.bm25_same = served_at(picks.len());
        by_category[q.category.clamp(1, 4) - 1].add(&t);
    }
    let mut all = Tally::default();
    for t in &by_category {
        all.add(t);
    }
    Figures {
        all,
        by_category,
        mismatched,
    }
}

fn print_group(label: &str, figures: &[(&str, &Figures)], names: &[&str]) {
    let (present, chosen): (Vec<&str>, Vec<&Figures>) = figures
        .iter()
        .filter(|(n, _)| names.contains(n))
        .map(|(n, f)| (*n, *f))
        .unzip();
    if chosen.is_empty() {
        return;
    }
    let mut all = Tally::default();
    let mut cats: [Tally; 4] = Default::default();
    for f in &chosen {
        all.add(&f.all);
        for (a, b) in cats.iter_mut().zip(&f.by_category) {
            a.add(b);
        }
    }
    println!("-- {label} ({}) --", present.join(", "));
    println!("{}", all.line("overall"));
    for (name, t) in CATEGORIES.iter().zip(&cats) {
        println!("{}", t.line(name));
    }
    let curve: Vec<String> = CURVE
        .zip(&all.curve)
        .map(|(k, &(s, tok))| format!("{k}:{:.1}%/{:.0}t", all.pct(s), all.mean(tok)))
        .collect();
    println!("curve (k: served/mean tokens) {}", curve.join(" "));
}

fn latency(c: &Conversation, semantic: Option<&Semantic>) {
    let tmp = tempfile::tempdir().expect("tempdir");
    let facts: Vec<&Fact> = c.facts.iter().take(300).collect();
    let root = tmp.path().join("root");
    let owner = build(&root, &facts, semantic.map(|s| s.dir.as_path()));
    let q = &c.questions[0].text;
    let opts = RecallOptions::query(q.clone()).preview();
    let src = std::fs::read_to_string(owner.path(Scope::Memory)).expect("read");
    let user_src = std::fs::read_to_string(owner.path(Scope::User)).expect("read");
    let texts: Vec<&str> = facts.iter().map(|f| f.text.as_str()).collect();
    let m = match semantic {
        None => recall_timing::time(
            "recall_quality",
            "locomo_recall_300_facts",
            &owner,
            &opts,
            &recall_timing::lexical(q, &texts),
            (&src, &user_src),
        ),
        Some(s) => {
            // Embedding the 300 facts once, on 2 threads (three times, the
            // median), then the cache warmed through a recall.
            let mut once: Vec<Duration> = (0..3)
                .map(|_| {
                    let t = Instant::now();
                    std::hint::black_box(s.embed(&texts, 2));
                    t.elapsed()
                })
                .collect();
            once.sort();
            println!(
                "embedding {} facts once (2 threads): {:.3} s (median of 3)",
                texts.len(),
                once[1].as_secs_f64()
            );
            owner.recall(&opts).expect("recall");
            Store::settle();
            let vectors = s.embed(&texts, 2);
            let by_text = ByText(
                texts
                    .iter()
                    .copied()
                    .zip(vectors.iter().map(Vec::as_slice))
                    .collect(),
            );
            let lexical = Bm25Scorer::default();
            let score = || {
                let query = s.embed(&[q.as_str()], 2).remove(0);
                let fused = Fused {
                    lexical: &lexical,
                    fusion: Fusion::default(),
                    query: &query,
                    vectors: &by_text,
                };
                std::hint::black_box(
                    fused
                        .score(q, &texts, Instant::now() + Duration::from_secs(5))
                        .ok(),
                );
            };
            recall_timing::time(
                "recall_quality",
                "locomo_semantic_recall_300_facts",
                &owner,
                &opts,
                &score,
                (&src, &user_src),
            )
        }
    };
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    let (r, s, p) = (ms(m.recall), ms(m.scoring), ms(m.parse));
    println!(
        "latency: conversation {}, {} facts, query {:?} (medians of {}):",
        c.name,
        facts.len(),
        q,
        recall_timing::ROUNDS
    );
    println!(
        "  recall (whole, a preview{}): {r:.3} ms; scoring only{}: {s:.3} ms; parse both stores (floor): {p:.3} ms",
        if semantic.is_some() {
            ", semantic, warm vectors"
        } else {
            ""
        },
        if semantic.is_some() {
            " (the query's vector and the fused score)"
        } else {
            ""
        },
    );
    println!(
        "  ratio recall / parse {:.1}x, scoring / parse {:.1}x",
        r / p,
        s / p
    );
}

fn main() {
    let Some(dir) = std::env::var_os("MEMDIR_LOCOMO") else {
        println!(
            "recall_quality: MEMDIR_LOCOMO is not set (a folder holding the LoCoMo conversations 26, 30, 41, 42, 43 as JSON); nothing measured"
        );
        return;
    };
    let dir = Path::new(&dir);
    let ids: Vec<String> = match std::env::var("MEMDIR_LOCOMO_IDS") {
        Ok(s) => s.split(',').map(|x| x.trim().to_owned()).collect(),
        Err(_) => ALL.iter().map(|s| (*s).to_owned()).collect(),
    };
    let convs: Vec<Conversation> = ids.iter().map(|n| load(dir, n)).collect();
    let semantic = std::env::var_os("MEMDIR_MODEL_DIR").map(|d| Semantic::load(Path::new(&d)));
    let started = Instant::now();
    let mut samples = Vec::new();
    let figures: Vec<(&str, Figures)> = convs
        .iter()
        .map(|c| (c.name.as_str(), measure(c, semantic.as_ref(), &mut samples)))
        .collect();
    println!(
        "\n== recall quality (LoCoMo, {}) ==",
        match &semantic {
            Some(s) => format!("semantic: {}", s.dir.display()),
            None => "lexical".to_owned(),
        }
    );
    for (c, (_, f)) in convs.iter().zip(&figures) {
        println!(
            "{}",
            f.all.line(&format!("{} ({}f)", c.name, c.facts.len()))
        );
        if c.skipped > 0 || f.mismatched > 0 {
            println!(
                "   skipped by the budget {}, blocks not the ranking's head {}",
                c.skipped, f.mismatched
            );
        }
    }
    let refs: Vec<(&str, &Figures)> = figures.iter().map(|(n, f)| (*n, f)).collect();
    let held: Vec<&str> = ALL.iter().copied().filter(|n| !DEV.contains(n)).collect();
    print_group("dev", &refs, DEV);
    print_group("held-out", &refs, &held);
    print_group("all", &refs, ALL);
    println!(
        "(quality measured in {:.1} s)",
        started.elapsed().as_secs_f64()
    );
    if std::env::var("MEMDIR_LOCOMO_CALIBRATE").as_deref() == Ok("1")
        && let Some(s) = &semantic
        && !samples.is_empty()
    {
        calibrate(&samples, &convs, &cases(s));
    }
    if std::env::var("MEMDIR_LOCOMO_LATENCY").as_deref() != Ok("0")
        && let Some(c) = convs.iter().max_by_key(|c| c.facts.len())
    {
        latency(c, semantic.as_ref());
    }
}

/// One of the project's recall cases (`fixtures/recall/cases.json`),
/// scored: its facts' texts, each fact's lexical score and cosine, and the
/// facts it must and must not keep.
struct Case {
    facts: Vec<String>,
    sample: Sample,
    must: Vec<usize>,
    must_not: Vec<usize>,
}

/// The recall cases, scored with the model.
fn cases(s: &Semantic) -> Vec<Case> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/recall/cases.json");
    let all: Vec<Value> =
        serde_json::from_str(&std::fs::read_to_string(path).expect("cases.json")).expect("cases");
    let far = Instant::now() + Duration::from_secs(600);
    all.iter()
        .map(|c| {
            let facts: Vec<String> = c["facts"]
                .as_array()
                .expect("facts")
                .iter()
                .map(as_text)
                .collect();
            let texts: Vec<&str> = facts.iter().map(String::as_str).collect();
            let query = as_text(&c["query"]);
            let lexical = Bm25Scorer::default()
                .score(&query, &texts, far)
                .expect("score");
            let q = s.embed(&[query.as_str()], 2).remove(0);
            let cosine = s
                .embed(&texts, 2)
                .iter()
                .map(|v| Some(cosine(&q, v)))
                .collect();
            let idx = |k: &str| -> Vec<usize> {
                c[k].as_array()
                    .expect("indexes")
                    .iter()
                    .filter_map(Value::as_u64)
                    .map(|i| i as usize)
                    .collect()
            };
            Case {
                sample: Sample {
                    lexical,
                    cosine,
                    hit: Vec::new(),
                },
                must: idx("must"),
                must_not: idx("must_not"),
                facts,
            }
        })
        .collect()
}

/// The fusion's parameters searched on the dev questions: served and the
/// mean block (memdir's line estimate) of each, and how many checks of the
/// project's recall cases fail (a `must` fact below 0.5, a `must_not` fact
/// at 0.5 or more); the best ten within 400 tokens and no failed check
/// printed, and the default's.
fn calibrate(samples: &[Sample], convs: &[Conversation], cases: &[Case]) {
    let today = Utc::now().date_naive();
    // Each dev fact's text and line tokens, in the samples' order.
    let dev: Vec<&Conversation> = convs
        .iter()
        .filter(|c| DEV.contains(&c.name.as_str()))
        .collect();
    let per_question: Vec<(Vec<&str>, Vec<usize>)> = dev
        .iter()
        .flat_map(|c| {
            let texts: Vec<&str> = c.facts.iter().map(|f| f.text.as_str()).collect();
            let tokens: Vec<usize> = c
                .facts
                .iter()
                .map(|f| CharEstimator.tokens(&format!("{} ({today}) {}", f.id, f.text)))
                .collect();
            std::iter::repeat_n((texts, tokens), c.questions.len())
        })
        .collect();
    assert_eq!(per_question.len(), samples.len());
    let eval = |f: &Fusion| {
        let (mut served, mut tokens) = (0usize, 0usize);
        for (s, (texts, line_tokens)) in samples.iter().zip(&per_question) {
            let scores = f.fuse(&s.lexical, &s.cosine, texts);
            let kept = (0..scores.len()).filter(|&i| scores[i] >= 0.5);
            let (mut any, mut t) = (false, 0);
            for i in kept {
                any |= s.hit[i];
                t += line_tokens[i];
            }
            served += usize::from(any);
            tokens += t;
        }
        let n = samples.len().max(1) as f64;
        let mut failed = 0;
        for c in cases {
            let texts: Vec<&str> = c.facts.iter().map(String::as_str).collect();
            let scores = f.fuse(&c.sample.lexical, &c.sample.cosine, &texts);
            failed += c.must.iter().filter(|&&i| scores[i] < 0.5).count();
            failed += c.must_not.iter().filter(|&&i| scores[i] >= 0.5).count();
        }
        (100.0 * served as f64 / n, tokens as f64 / n, failed)
    };
    let mut results = Vec::new();
    for semantic in [0.4, 0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.9, 1.0] {
        for margin in [0.05, 0.1, 0.125, 0.15, 0.175, 0.2, 0.225, 0.25, 0.3, 0.4] {
            for floor in [0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5] {
                for tokens in [200.0, 300.0, 350.0, 450.0, 600.0, 800.0] {
                    let f = Fusion {
                        semantic,
                        margin,
                        floor,
                        tokens,
                        ..Fusion::default()
                    };
                    let (served, mean, failed) = eval(&f);
                    results.push((served, mean, failed, f));
                }
            }
        }
    }
    results.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.total_cmp(&b.1)));
    println!(
        "-- calibration on dev ({} questions) and the {} recall cases --",
        samples.len(),
        cases.len()
    );
    for (served, mean, failed, f) in results.iter().filter(|r| r.1 <= 400.0 && r.2 == 0).take(10) {
        println!(
            "served {served:>5.1}%  tokens {mean:>4.0}  failed {failed}  semantic {} margin {} floor {} tokens {}",
            f.semantic, f.margin, f.floor, f.tokens
        );
    }
    println!("(allowing failed checks:)");
    for (served, mean, failed, f) in results.iter().filter(|r| r.1 <= 400.0).take(5) {
        println!(
            "served {served:>5.1}%  tokens {mean:>4.0}  failed {failed}  semantic {} margin {} floor {} tokens {}",
            f.semantic, f.margin, f.floor, f.tokens
        );
    }
    // The default's failed checks, case by case.
    for (n, c) in cases.iter().enumerate() {
        let texts: Vec<&str> = c.facts.iter().map(String::as_str).collect();
        let scores = Fusion::default().fuse(&c.sample.lexical, &c.sample.cosine, &texts);
        for (&i, must) in c
            .must
            .iter()
            .map(|i| (i, true))
            .chain(c.must_not.iter().map(|i| (i, false)))
        {
            if (scores[i] >= 0.5) != must {
                println!(
                    "  case {n} fact {i} ({}): score {:.2}, lexical {:.2}, cosine {:.2}; best cosine {:.2}",
                    if must { "must" } else { "must not" },
                    scores[i],
                    c.sample.lexical[i],
                    c.sample.cosine[i].unwrap_or(0.0),
                    c.sample
                        .cosine
                        .iter()
                        .flatten()
                        .fold(-1.0f32, |a, &b| a.max(b)),
                );
            }
        }
    }
    let (served, mean, failed) = eval(&Fusion::default());
    println!(
        "default: served {served:.1}%  tokens {mean:.0}  failed {failed}  {:?}",
        Fusion::default()
    );
}
