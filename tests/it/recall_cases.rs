//! Recall quality over `fixtures/recall/cases.json`: every `must` fact scores at
//! least `KEEP_THRESHOLD`, every `must_not` fact scores below it.
//! Set `RECALL_DEBUG=1` to print every score.

use memdir::internals::recall::{Bm25Scorer, KEEP_THRESHOLD, Scorer};
use std::time::{Duration, Instant};

use crate::common::load;

#[test]
fn cases_are_well_formed() {
    let cases = load();
    assert!(cases.len() >= 32, "only {} cases", cases.len());
    let long = cases
        .iter()
        .filter(|c| c.query.chars().count() > 1500)
        .count();
    assert!(long >= 3, "only {long} queries over 1,500 chars");
    for case in &cases {
        assert!(
            (5..=15).contains(&case.facts.len()),
            "{}: {} facts",
            case.name,
            case.facts.len()
        );
        assert!(
            case.query.chars().count() <= 4000,
            "{}: query too long",
            case.name
        );
        for &i in case.must.iter().chain(&case.must_not) {
            assert!(
                i < case.facts.len(),
                "{}: index {i} out of range",
                case.name
            );
        }
        assert!(
            case.must.iter().all(|i| !case.must_not.contains(i)),
            "{}: overlap",
            case.name
        );
        assert!(
            case.facts.iter().all(|f| f.chars().count() <= 500),
            "{}: long fact",
            case.name
        );
    }
}

#[test]
fn recall_cases() {
    let cases = load();
    let debug = std::env::var_os("RECALL_DEBUG").is_some();
    let scorer = Bm25Scorer::default();
    let deadline = Instant::now() + Duration::from_secs(3600);
    let mut passed = 0;
    let mut failures = Vec::new();
    for case in &cases {
        let docs: Vec<&str> = case.facts.iter().map(String::as_str).collect();
        let scores = scorer
            .score(&case.query, &docs, deadline)
            .expect("scoring succeeds");
        assert_eq!(scores.len(), docs.len());
        let before = failures.len();
        for (i, (fact, &s)) in case.facts.iter().zip(&scores).enumerate() {
            assert!(
                (0.0..=1.0).contains(&s),
                "{}: score {s} out of [0, 1]",
                case.name
            );
            let (want, bad) = if case.must.contains(&i) {
                ("must", s < KEEP_THRESHOLD)
            } else if case.must_not.contains(&i) {
                ("must_not", s >= KEEP_THRESHOLD)
            } else {
                ("either", false)
            };
            if bad {
                failures.push(format!(
                    "FAIL {}: {want} fact {i} scored {s:.3}: {fact}",
                    case.name
                ));
            }
            if debug {
                println!("{:<32} {want:<8} {s:.3}  {fact}", case.name);
            }
        }
        if failures.len() == before {
            passed += 1;
        }
    }
    println!("recall cases: {passed}/{} passed", cases.len());
    for failure in &failures {
        println!("{failure}");
    }
    assert!(
        failures.is_empty(),
        "{} case(s) failed",
        cases.len() - passed
    );
}
