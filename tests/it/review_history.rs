//! `memdir review history` and `GET /api/v1/reviews/history`: every review
//! the journal records, newest first, with what the files still record of
//! its changes (archived, lifted, resolved, …) and a diff of each; an
//! undone review listed undone, with no change left.

use serde_json::Value;

use crate::http::{make_key, serve};
use crate::review::{A, setup};
use crate::util::Sandbox;

/// The changes of `review` of kind `kind`.
fn of_kind<'a>(review: &'a Value, kind: &str) -> Vec<&'a Value> {
    review["changes"]
        .as_array()
        .expect("changes")
        .iter()
        .filter(|c| c["kind"] == kind)
        .collect()
}

#[test]
fn the_history_lists_each_review_with_its_changes_and_their_diffs() {
    let s = Sandbox::new();
    setup(&s);
    let none = s.json_ok(&["--owner", A, "review", "history"]);
    assert_eq!(none["reviews"].as_array().map(Vec::len), Some(0), "{none}");
    let id = s.json_ok(&["--owner", A, "review"])["review_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let h = s.json_ok(&["--owner", A, "review", "history"]);
    let r = &h["reviews"][0];
    assert_eq!(r["id"], id.as_str(), "{h}");
    assert_eq!(r["undone"], false);
    assert!(r["report"].as_str().unwrap().starts_with("review: "), "{r}");
    assert_eq!(
        r["changes_total"].as_u64(),
        Some(r["changes"].as_array().unwrap().len() as u64)
    );
    // Archived (its record's kind), lifted, and the kept side of the
    // settled conflict, each with its entry's diff.
    let archived = of_kind(r, "archived");
    let kinds: Vec<&str> = archived
        .iter()
        .filter_map(|c| c["archive_kind"].as_str())
        .collect();
    for k in ["merged", "expired", "conflict"] {
        assert!(kinds.contains(&k), "{k}: {r}");
    }
    let expired = archived
        .iter()
        .find(|c| c["archive_kind"] == "expired")
        .unwrap();
    assert_eq!(expired["file"], "archive.md");
    let diff = expired["diff"].as_str().unwrap();
    assert!(
        diff.starts_with("--- a/MEMORY.md\n+++ b/MEMORY.md\n"),
        "{diff}"
    );
    assert!(
        diff.contains("\n-- Old fact nobody recalls <!-- memdir"),
        "{diff}"
    );
    let lifted = of_kind(r, "lifted");
    assert_eq!(lifted.len(), 1, "{r}");
    let diff = lifted[0]["diff"].as_str().unwrap();
    assert!(
        diff.contains("\n+- The deploy needs a fresh kubeconfig <!-- memdir"),
        "{diff}"
    );
    assert!(!diff.contains("\n-"), "{diff}");
    let resolved = of_kind(r, "resolved");
    assert_eq!(resolved.len(), 1, "{r}");
    let diff = resolved[0]["diff"].as_str().unwrap();
    assert!(
        diff.contains(" conflict=mem_000000000000") && diff.contains(" resolved=mem_000000000000"),
        "{diff}"
    );
    // The text answer says the same.
    let text = s.run_as(A, &["review", "history"]).ok().text();
    assert!(text.starts_with(&format!("{id} at ")), "{text}");
    assert!(text.contains("  lifted mem_"), "{text}");
    assert!(text.contains("  archived (expired) mem_"), "{text}");
    assert!(text.contains("    -- Old fact nobody recalls"), "{text}");
    // Undone: listed undone, nothing of it left in the files.
    s.json_ok(&["--owner", A, "review", "undo", &id]);
    let h = s.json_ok(&["--owner", A, "review", "history", "--limit", "5"]);
    assert_eq!(h["limit"], 5);
    assert_eq!(h["reviews"][0]["id"], id.as_str());
    assert_eq!(h["reviews"][0]["undone"], true, "{h}");
    assert_eq!(h["reviews"][0]["changes"].as_array().map(Vec::len), Some(0));
    // A second review comes first; the limit bounds the list.
    let again = s.json_ok(&["--owner", A, "review"])["review_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let h = s.json_ok(&["--owner", A, "review", "history"]);
    let ids: Vec<&str> = h["reviews"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|r| r["id"].as_str())
        .collect();
    assert_eq!(ids.len(), 2, "{h}");
    assert!(ids.contains(&id.as_str()) && ids.contains(&again.as_str()));
    let one = s.json_ok(&["--owner", A, "review", "history", "--limit", "1"]);
    assert_eq!(one["reviews"].as_array().map(Vec::len), Some(1), "{one}");
    let most = s.json_ok(&["--owner", A, "review", "history", "--limit", "1000"]);
    assert_eq!(most["limit"], 100, "{most}");
}

#[test]
fn the_history_over_http_is_the_command_line_s() {
    let s = Sandbox::new();
    setup(&s);
    let id = s.json_ok(&["--owner", A, "review"])["review_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let agent = make_key(&s, &["--owner", A]);
    let person = make_key(&s, &["--person", "ann"]);
    let srv = serve(&s, &["--review-every", "0"]);
    let cli = s.json_ok(&["--owner", A, "review", "history"]);
    let v = srv
        .get(Some(agent.as_str()), "/api/v1/reviews/history")
        .json();
    assert_eq!(v, cli);
    assert_eq!(v["reviews"][0]["id"], id.as_str());
    // A person names the agent.
    let p = srv
        .get(
            Some(person.as_str()),
            &format!("/api/v1/reviews/history?agentId={A}&limit=1"),
        )
        .json();
    assert_eq!(p["reviews"][0]["id"], id.as_str(), "{p}");
    assert_eq!(p["limit"], 1);
    srv.get(Some(person.as_str()), "/api/v1/reviews/history")
        .error("memory_agent_required", 400);
    srv.get(Some(agent.as_str()), "/api/v1/reviews/history?limit=-1")
        .error("invalid_request", 400);
    srv.get(None, "/api/v1/reviews/history")
        .error("unauthorized", 401);
}
