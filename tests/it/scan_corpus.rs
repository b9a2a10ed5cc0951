//! Corpus test: every malicious sample is caught with its stated family, no benign sample is.

use memdir::scan::{Family, pattern_list, scan};

fn load(name: &str) -> Vec<serde_json::Value> {
    let path = format!("{}/fixtures/scan/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).expect("read corpus");
    serde_json::from_str(&text).expect("parse corpus")
}

fn field<'a>(v: &'a serde_json::Value, key: &str) -> &'a str {
    v.get(key).and_then(|x| x.as_str()).unwrap_or("")
}

#[test]
fn corpus_recall_and_false_positives() {
    let (malicious, benign) = (load("malicious.json"), load("benign.json"));
    assert!(malicious.len() >= 70 && benign.len() >= 70);
    let mut failures = Vec::new();
    let mut blocked = 0;
    for s in &malicious {
        let want = match field(s, "family") {
            "secret" => Family::Secret,
            _ => Family::Threat,
        };
        let found = scan(field(s, "text"));
        if found.iter().any(|f| f.family == want) {
            blocked += 1;
        } else {
            failures.push(format!(
                "MISSED [{}] {:?} -> [{}]",
                field(s, "note"),
                field(s, "text"),
                pattern_list(&found)
            ));
        }
    }
    let mut false_positives = 0;
    for s in &benign {
        let found = scan(field(s, "text"));
        if !found.is_empty() {
            false_positives += 1;
            failures.push(format!(
                "FALSE POSITIVE [{}] {:?} -> [{}]",
                field(s, "note"),
                field(s, "text"),
                pattern_list(&found)
            ));
        }
    }
    for f in &failures {
        println!("{f}");
    }
    println!(
        "recall: {blocked}/{} blocked, false positives: {false_positives}/{}",
        malicious.len(),
        benign.len()
    );
    assert!(failures.is_empty(), "{} corpus failures", failures.len());
}
