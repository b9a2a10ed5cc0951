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
//! Run with `MEMDIR_LOCOMO=/work/shared/locomo cargo bench --bench recall_quality`
//! (the quality figures are deterministic: `--profile dev` gives the same).

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::Path;
use std::time::{Duration, Instant};

use chrono::Utc;
use memdir::recall::{Bm25Scorer, CharEstimator, Scorer, TokenEstimator};
use memdir::{RecallOptions, Scope, Store, entry_id};
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

/// Writes the facts' stores as served.py does and opens the owner.
fn build(root: &Path, facts: &[&Fact]) -> memdir::Owner {
    let store = Store::open(root).expect("open");
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

fn measure(c: &Conversation) -> Figures {
    let tmp = tempfile::tempdir().expect("tempdir");
    let refs: Vec<&Fact> = c.facts.iter().collect();
    let owner = build(tmp.path(), &refs);
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
        let scores = Bm25Scorer::default()
            .score(&q.text, &texts, far())
            .expect("score");
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

fn latency(c: &Conversation) {
    let tmp = tempfile::tempdir().expect("tempdir");
    let facts: Vec<&Fact> = c.facts.iter().take(300).collect();
    let owner = build(tmp.path(), &facts);
    let q = &c.questions[0].text;
    let opts = RecallOptions::query(q.clone()).preview();
    let src = std::fs::read_to_string(owner.path(Scope::Memory)).expect("read");
    let user_src = std::fs::read_to_string(owner.path(Scope::User)).expect("read");
    let texts: Vec<&str> = facts.iter().map(|f| f.text.as_str()).collect();
    let m = recall_timing::time(
        "recall_quality",
        "locomo_recall_300_facts",
        &owner,
        &opts,
        q,
        &texts,
        (&src, &user_src),
    );
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
        "  recall (whole, a preview): {r:.3} ms; scoring only: {s:.3} ms; parse both stores (floor): {p:.3} ms"
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
    let started = Instant::now();
    let figures: Vec<(&str, Figures)> = convs
        .iter()
        .map(|c| (c.name.as_str(), measure(c)))
        .collect();
    println!("\n== recall quality (LoCoMo) ==");
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
    if std::env::var("MEMDIR_LOCOMO_LATENCY").as_deref() != Ok("0")
        && let Some(c) = convs.iter().max_by_key(|c| c.facts.len())
    {
        latency(c);
    }
}
