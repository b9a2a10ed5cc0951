//! The recall cases of `fixtures/recall/cases.json`, shared by the
//! `recall_cases` (scorer) and `recall_store` (whole store path) tests, and
//! the reference model of semantic recall those and `semantic` use.

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

/// The reference model's folder (all-MiniLM-L6-v2) that `MEMDIR_MODEL_DIR`
/// names, or `None` to skip a test; under `MEMDIR_REQUIRE_MODEL=1` (CI) a
/// missing model fails the test instead.
pub fn model_dir() -> Option<std::path::PathBuf> {
    match std::env::var_os("MEMDIR_MODEL_DIR") {
        Some(d) => Some(std::path::PathBuf::from(d)),
        None => {
            assert!(
                std::env::var("MEMDIR_REQUIRE_MODEL").as_deref() != Ok("1"),
                "MEMDIR_REQUIRE_MODEL=1 but MEMDIR_MODEL_DIR is not set"
            );
            crate::util::not_run("MEMDIR_MODEL_DIR is not set (the reference model's folder)");
            None
        }
    }
}
