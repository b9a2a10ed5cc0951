//! Recall quality through the whole store path, not only the scorer: for each
//! case of `fixtures/recall/cases.json`, a fresh owner stores the case's facts
//! in MEMORY.md through the library API, then `Owner::recall` (store read,
//! expiry filter, threshold, limits) must pick every `must` fact and no
//! `must_not` fact; and the same with the reference model of semantic
//! recall (`MEMDIR_MODEL_DIR`, its vectors computed by a first recall), the
//! calibration's hard rule (docs/RECALL.md). Set `RECALL_DEBUG=1` to print
//! every recall.

use std::collections::BTreeMap;
use std::time::Duration;

use memdir::api::types::{Op, RecallOptions, Scope, Store};

use crate::common::{Case, load};

/// What storing and recalling one case gave.
struct Outcome {
    /// Fact index → its id, for the facts the store accepted.
    ids: BTreeMap<usize, String>,
    /// Fact index → the code the store refused it with.
    refused: BTreeMap<usize, String>,
    /// The recalled ids, best first.
    recalled: Vec<String>,
    /// Whether recall scored (no fallback to the newest facts).
    fallback: Option<String>,
}

/// A fresh root whose MEMORY.md budget fits every case (most cases fit the
/// default, the long ones would not).
fn roomy_store() -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().expect("temp folder");
    std::fs::write(
        dir.path().join("memdir.yaml"),
        "budgets:\n  memory: 20000\n",
    )
    .expect("memdir.yaml");
    let store = Store::open(dir.path()).expect("open store");
    (dir, store)
}

fn run_case(case: &Case, model: Option<&std::path::Path>) -> Outcome {
    let (dir, store) = roomy_store();
    let store = match model {
        Some(m) => store
            .with_config_dir(dir.path().join(".config"))
            .with_recall_model(m),
        None => store,
    };
    let owner = store.owner("agt").expect("owner");
    let mut ids = BTreeMap::new();
    let mut refused = BTreeMap::new();
    for (i, fact) in case.facts.iter().enumerate() {
        match owner.add(Scope::Memory, fact) {
            Ok(w) => {
                let out = w.outcome;
                assert!(
                    matches!(
                        out.message,
                        memdir::Change::Added | memdir::Change::AlreadyStored
                    ),
                    "{}: fact {i}: {}",
                    case.name,
                    out.message
                );
                ids.insert(i, out.id);
            }
            Err(e)
                if matches!(
                    e.code().as_str(),
                    "secret_in_memory" | "memory_threat_blocked"
                ) =>
            {
                refused.insert(i, e.code().as_str().to_owned());
            }
            Err(e) => panic!("{}: fact {i} not stored: {e}", case.name),
        }
    }
    // Every accepted fact is live in MEMORY.md.
    let view = owner.show(Scope::Memory).expect("show");
    for id in ids.values() {
        assert!(
            view.entries.iter().any(|e| &e.id == id),
            "{}: {id} not in MEMORY.md",
            case.name
        );
    }
    if model.is_some() {
        // The first recall computes the vectors after its answer.
        owner
            .recall(
                &RecallOptions::query(case.query.clone())
                    .preview()
                    .timeout(Duration::from_secs(60)),
            )
            .expect("recall");
        Store::settle();
    }
    // The cases measure ranking, not time: a loaded machine (the whole
    // suite on two cores) gets all the time it needs; the time limit's
    // fallbacks have their own tests.
    let r = owner
        .recall(&RecallOptions::query(case.query.clone()).timeout(Duration::from_secs(60)))
        .unwrap_or_else(|e| panic!("{}: recall failed: {e}", case.name));
    assert!(
        !r.skipped,
        "{}: a recall without a session is never skipped",
        case.name
    );
    Outcome {
        ids,
        refused,
        recalled: r.facts.iter().map(|f| f.id.clone()).collect(),
        fallback: r.fallback,
    }
}

#[test]
fn store_recall_cases() {
    check_cases(None);
}

#[test]
fn store_recall_cases_with_the_reference_model() {
    let Some(model) = crate::common::model_dir() else {
        return;
    };
    check_cases(Some(&model));
}

fn check_cases(model: Option<&std::path::Path>) {
    let cases = load();
    assert!(!cases.is_empty());
    let debug = std::env::var_os("RECALL_DEBUG").is_some();
    let mut passed = 0;
    let mut failures = Vec::new();
    let mut skipped = Vec::new();
    for case in &cases {
        let out = run_case(case, model);
        let before = failures.len();
        if let Some(f) = &out.fallback {
            failures.push(format!("FAIL {}: recall fell back: {f}", case.name));
        }
        for (i, code) in &out.refused {
            skipped.push(format!(
                "{}: fact {i} refused by the store ({code}): {}",
                case.name, case.facts[*i]
            ));
        }
        for &i in &case.must {
            let Some(id) = out.ids.get(&i) else { continue };
            if !out.recalled.contains(id) {
                failures.push(format!(
                    "FAIL {}: must fact {i} ({id}) not recalled: {}",
                    case.name, case.facts[i]
                ));
            }
        }
        for &i in &case.must_not {
            let Some(id) = out.ids.get(&i) else { continue };
            if out.recalled.contains(id) {
                failures.push(format!(
                    "FAIL {}: must_not fact {i} ({id}) recalled: {}",
                    case.name, case.facts[i]
                ));
            }
        }
        if debug {
            println!("{}: recalled {:?}", case.name, out.recalled);
        }
        if failures.len() == before {
            passed += 1;
        }
    }
    println!("store recall cases: {passed}/{} passed", cases.len());
    for s in &skipped {
        println!("skipped {s}");
    }
    for f in &failures {
        println!("{f}");
    }
    assert!(
        failures.is_empty(),
        "{} case(s) failed:\n{}",
        cases.len() - passed,
        failures.join("\n")
    );
}

/// The same path drops what the store must drop: an expired fact is never
/// recalled however well it matches, and an archived one neither.
#[test]
fn store_recall_skips_expired_and_archived_facts() {
    let cases = load();
    let case = cases
        .iter()
        .find(|c| !c.must.is_empty())
        .expect("a case with a must fact");
    let (_dir, store) = roomy_store();
    let owner = store.owner("agt").expect("owner");
    let mut ids = Vec::new();
    for (i, fact) in case.facts.iter().enumerate() {
        if i == case.must[0] {
            // Written after the others, by hand: a save refuses a past expiry.
            ids.push(memdir::api::types::entry_id("memory", fact));
            continue;
        }
        let out = owner
            .write(Op::Add {
                text: fact.clone(),
                scope: Scope::Memory,
                expires: None,
                supersedes: None,
            })
            .expect("stored")
            .outcome;
        ids.push(out.id);
    }
    let path = _dir.path().join("agt/MEMORY.md");
    let mut src = std::fs::read_to_string(&path).expect("MEMORY.md");
    src.push_str(&format!(
        "- {} <!-- memdir created=1999-12-01T00:00:00Z expires=2000-01-01T23:59:59Z agent=agt -->\n",
        case.facts[case.must[0]]
    ));
    std::fs::write(&path, src).expect("write MEMORY.md");
    let q = RecallOptions::query(case.query.clone());
    let r = owner.recall(&q).expect("recall");
    let got: Vec<&str> = r.facts.iter().map(|f| f.id.as_str()).collect();
    assert!(!got.contains(&ids[case.must[0]].as_str()), "{got:?}");
    if let Some(&other) = case.must.get(1) {
        assert!(got.contains(&ids[other].as_str()), "{got:?}");
        owner.archive(&ids[other], "test").expect("archive");
        let r = owner.recall(&q).expect("recall");
        assert!(!r.facts.iter().any(|f| f.id == ids[other]), "{r:?}");
    }
}
