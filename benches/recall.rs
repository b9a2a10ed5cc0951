//! Recall benchmark: `Owner::recall` over 300 facts (150 in MEMORY.md, 150 in
//! USER.md: 300 facts pass one store's largest budget) with a 4,000-character
//! query, against parsing the same stores once (`memdir::api::types::parse`) in the same
//! run, alternating the two. A recall also counts itself: it takes the
//! stats' own lock and replaces `.memdir/stats.json` atomically (not
//! durably: the counts are derived data), so the figure is
//! reported both whole and with the scoring alone (`Bm25Scorer` on the same
//! texts).
//!
//! Run with `cargo bench --bench recall`.

use std::time::Duration;

use memdir::api::types::{RecallOptions, Scope, Store};
use memdir::internals::markdown::parse;

#[path = "common/recall_timing.rs"]
mod recall_timing;

const SUBJECTS: &[&str] = &[
    "staging deploy",
    "billing ledger",
    "postgres migration",
    "kafka topic",
    "auth token",
    "search reindex",
    "nightly export",
    "feature flag",
    "release notes",
    "rate limit",
    "frontend build",
    "on-call handoff",
    "mobile API version",
    "warehouse schema",
    "error budget",
    "docs site",
    "python lint",
    "benchmark runner",
    "support tickets",
    "worker logs",
];
const DETAILS: &[&str] = &[
    "needs the VPN on",
    "is owned by the platform team",
    "must be reviewed by two people",
    "runs every six hours",
    "is configured in infra/terraform",
    "alerts #ops-oncall when it fails",
    "changed in the last release",
    "has a runbook in docs/runbooks",
    "is flaky under load",
    "was migrated from the old cluster",
    "uses the shared service account",
    "is documented in the wiki",
];

fn facts() -> Vec<String> {
    (0..300)
        .map(|i| {
            format!(
                "Fact {i}: the {} {} (ticket PIN-{}), checked {} times",
                SUBJECTS[i % SUBJECTS.len()],
                DETAILS[(i / SUBJECTS.len()) % DETAILS.len()],
                100 + i,
                i % 7
            )
        })
        .collect()
}

fn query() -> String {
    let mut q = String::from(
        "Task PIN-145: the staging deploy fails since the last release. Investigate the auth token refresh, \
         check whether the kafka topic for billing ledger events was migrated from the old cluster, and write \
         release notes. ",
    );
    let filler = "Context from the ticket: users report intermittent 502 errors after login; the incident \
                  channel suspects the gateway configuration and the rollout of the new session cookies. ";
    while q.chars().count() + filler.len() <= 4_000 {
        q.push_str(filler);
    }
    q
}

fn main() {
    let tmp = tempfile::tempdir().expect("tempdir");
    // 300 facts of ~80 chars pass one store's largest budget: half go to each.
    let config = "budgets:\n  memory: 20000\n  user: 20000\n";
    std::fs::write(tmp.path().join("memdir.yaml"), config).expect("config");
    let store = Store::open(tmp.path()).expect("open");
    let owner = store.owner("agt_bench").expect("owner");
    let ops: Vec<memdir::Op> = facts()
        .into_iter()
        .enumerate()
        .map(|(i, text)| memdir::Op::Add {
            text,
            scope: if i % 2 == 0 {
                Scope::Memory
            } else {
                Scope::User
            },
            expires: None,
            supersedes: None,
        })
        .collect();
    owner.batch(&ops).expect("fill");
    let q = query();
    assert!(q.chars().count() <= 4_000);
    let src = std::fs::read_to_string(owner.path(Scope::Memory)).expect("read");
    let user_src = std::fs::read_to_string(owner.path(Scope::User)).expect("read");
    let texts: Vec<String> = parse(Scope::Memory, &src)
        .entries
        .into_iter()
        .chain(parse(Scope::User, &user_src).entries)
        .map(|e| e.text)
        .collect();
    assert_eq!(texts.len(), 300);
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let opts = RecallOptions::query(q.clone());
    let picked = owner.recall(&opts).expect("recall").facts.len();
    let m = recall_timing::time(
        "recall",
        "memdir_recall_300_facts_4000_chars",
        &owner,
        &opts,
        &recall_timing::lexical(&q, &refs),
        (&src, &user_src),
    );
    let (r, s, p) = (m.recall, m.scoring, m.parse);
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    println!("\n== recall figures ==");
    println!(
        "300 facts, {} bytes in MEMORY.md + USER.md, query {} chars, {picked} facts picked",
        src.len() + user_src.len(),
        q.chars().count()
    );
    println!(
        "recall (whole: lock, read, score, atomic stats write):  {:>8.2} ms",
        ms(r)
    );
    println!(
        "scoring only:                                           {:>8.2} ms",
        ms(s)
    );
    println!(
        "parse both stores once (floor):                         {:>8.2} ms",
        ms(p)
    );
    println!(
        "ratio recall / parse:  {:>6.1}x",
        r.as_secs_f64() / p.as_secs_f64()
    );
    println!(
        "ratio scoring / parse: {:>6.1}x",
        s.as_secs_f64() / p.as_secs_f64()
    );
}
