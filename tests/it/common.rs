//! The recall cases of `fixtures/recall/cases.json`, shared by the
//! `recall_cases` (scorer) and `recall_store` (whole store path) tests.

use serde::Deserialize;

/// One case: facts, a query, and which facts must and must not be recalled.
#[derive(Deserialize)]
pub struct Case {
    pub name: String,
    pub facts: Vec<String>,
    pub query: String,
    pub must: Vec<usize>,
    pub must_not: Vec<usize>,
}

/// Every case of the fixture.
pub fn load() -> Vec<Case> {
    let path = concat!(
        concat!(env!("CARGO_MANIFEST_DIR"), "/.."),
        "/fixtures/recall/cases.json"
    );
    let text = std::fs::read_to_string(path).expect("cases.json is readable");
    serde_json::from_str(&text).expect("cases.json parses")
}
