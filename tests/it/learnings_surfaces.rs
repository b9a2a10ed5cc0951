//! Learnings on the servers and in recall: `/api/v1/learnings` on a real
//! `memdir serve` (ureq), the `memory` tool's `propose` and `learnings`
//! over a real `memdir mcp` (rmcp's client), approved learnings as wiki
//! matches before `--- MEMORY ---` in `memdir recall --query`, an approval
//! past LEARNINGS.md's budget, and `learnings` never listed as an owner.
//! On every surface an agent sees the approved learnings and its own
//! proposals, never another agent's pending text.

use serde_json::{Value, json};

use crate::http::{make_key, serve};
use crate::mcp::{call, start};
use crate::util::Sandbox;

const MINE: &str = "Release notes go to the changelog channel";
const THEIRS: &str = "The billing service runs in eu-west-1";

/// The texts of a list's `field` (`approved` or `proposals`).
fn texts(v: &Value, field: &str) -> Vec<String> {
    v[field]
        .as_array()
        .unwrap_or_else(|| panic!("{field}: {v}"))
        .iter()
        .map(|l| l["text"].as_str().unwrap_or_default().to_owned())
        .collect()
}

#[test]
fn http_agents_propose_persons_decide_and_no_agent_sees_anothers_pending_text() {
    let s = Sandbox::new();
    let a = make_key(&s, &["--owner", "agt_a"]);
    let b = make_key(&s, &["--owner", "agt_b"]);
    let p = make_key(&s, &["--person", "ann"]);
    let srv = serve(&s, &["--review-every", "0"]);
    let (a, b, p) = (Some(a.as_str()), Some(b.as_str()), Some(p.as_str()));

    let r = srv.post(a, "/api/v1/learnings", json!({"text": MINE}));
    assert_eq!(r.status, 201, "{r:?}");
    let id = r.json()["learning"]["id"].as_str().unwrap().to_owned();
    assert_eq!(r.json()["learning"]["status"], "pending");
    let again = srv.post(a, "/api/v1/learnings", json!({"text": MINE}));
    assert_eq!(again.status, 200, "{again:?}");
    assert_eq!(again.json()["message"], "already pending");
    assert_eq!(
        srv.post(b, "/api/v1/learnings", json!({"text": THEIRS}))
            .status,
        201
    );
    srv.post(a, "/api/v1/learnings", json!({}))
        .error("invalid_request", 400);

    // Each agent sees its own proposal only; the person sees both.
    let la = srv.get(a, "/api/v1/learnings").json();
    assert_eq!(texts(&la, "proposals"), [MINE], "{la}");
    let lb = srv.get(b, "/api/v1/learnings").json();
    assert_eq!(texts(&lb, "proposals"), [THEIRS], "{lb}");
    assert!(!srv.get(b, "/api/v1/learnings").body.contains(MINE));
    let lp = srv.get(p, "/api/v1/learnings").json();
    assert_eq!(texts(&lp, "proposals").len(), 2, "{lp}");

    // Only a person decides, with the refusal the other person-only
    // routes give.
    let approve = format!("/api/v1/learnings/{id}/approve");
    srv.post(a, &approve, json!({})).error("person_only", 403);
    srv.post(
        b,
        &format!("/api/v1/learnings/{id}/reject"),
        json!({"reason": "no"}),
    )
    .error("person_only", 403);
    // The caller is checked before the body: an agent that leaves the
    // reason out is refused for being an agent, not for the reason.
    let refused = srv.post(b, &format!("/api/v1/learnings/{id}/reject"), json!({}));
    refused.error("person_only", 403);
    assert!(!refused.body.contains("reason"), "{refused:?}");
    srv.post(p, &format!("/api/v1/learnings/{id}/reject"), json!({}))
        .error("invalid_request", 400);
    srv.post(p, &approve, json!({"seenText": "Release notes go nowhere"}))
        .error("learning_changed", 409);
    let ok = srv.post(p, &approve, json!({"seenText": MINE}));
    assert_eq!(ok.status, 200, "{ok:?}");
    assert_eq!(ok.json()["learning"]["decided_by"], "person:ann");
    let file = std::fs::read_to_string(s.root.join("LEARNINGS.md")).unwrap();
    assert!(file.contains(&format!("- {MINE} <!-- memdir")), "{file}");

    // Approved: every agent sees it, in the list and in its snapshot;
    // the other agent's proposal still waits, unseen by agt_b's peer.
    let lb = srv.get(b, "/api/v1/learnings").json();
    assert_eq!(texts(&lb, "approved"), [MINE], "{lb}");
    let snap = srv.get(b, "/v1/snapshot").json();
    assert!(snap["text"].as_str().unwrap().contains(MINE), "{snap}");
    assert!(!srv.get(a, "/api/v1/learnings").body.contains(THEIRS));

    // Retired: gone from the list and the snapshot.
    srv.post(a, &format!("/api/v1/learnings/{id}/retire"), json!({}))
        .error("person_only", 403);
    let r = srv.post(
        p,
        &format!("/api/v1/learnings/{id}/retire"),
        json!({"reason": "moved"}),
    );
    assert_eq!(r.json()["message"], "retired", "{r:?}");
    assert!(texts(&srv.get(b, "/api/v1/learnings").json(), "approved").is_empty());
    srv.post(a, "/api/v1/learnings", json!({"text": MINE}))
        .error("learning_closed", 409);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_propose_and_learnings_show_an_agent_its_own_proposals_only() {
    let s = Sandbox::new();
    let a = start(&s, &["--owner", "agt_a"], &[]).await;
    let b = start(&s, &["--owner", "agt_b"], &[]).await;
    let (text, err) = call(&a, "memory", json!({"action": "propose", "text": MINE})).await;
    assert!(!err, "{text}");
    assert!(
        text.starts_with("Proposed as mem_") && text.contains("until a person approves it"),
        "{text}"
    );
    let (text, err) = call(&a, "memory", json!({"action": "propose", "text": MINE})).await;
    assert!(
        !err && text.starts_with("Already proposed as mem_"),
        "{text}"
    );
    let (text, err) = call(&a, "memory", json!({"action": "propose"})).await;
    assert!(
        err && text.starts_with("text is required for propose"),
        "{text}"
    );
    let file = std::fs::read_to_string(s.root.join("learnings/proposals.md")).unwrap();
    assert!(
        file.contains(MINE) && file.contains("agent=agt_a"),
        "{file}"
    );

    let (mine, err) = call(&a, "memory", json!({"action": "learnings"})).await;
    assert!(
        !err && mine.contains(MINE) && mine.contains("[pending]"),
        "{mine}"
    );
    let (theirs, err) = call(&b, "memory", json!({"action": "learnings"})).await;
    assert!(!err, "{theirs}");
    assert!(
        !theirs.contains(MINE),
        "another agent's pending text: {theirs}"
    );
    assert!(theirs.contains("(none approved yet)"), "{theirs}");

    // Approved by a person on the command line: agt_b sees it now.
    let id = mine
        .split_whitespace()
        .find(|w| w.starts_with("mem_"))
        .unwrap()
        .to_owned();
    s.json_ok(&["--person", "ann", "learnings", "approve", &id]);
    let (theirs, _) = call(&b, "memory", json!({"action": "learnings"})).await;
    assert!(theirs.contains(MINE), "{theirs}");
    let (snap, _) = call(&b, "memory", json!({"action": "recall"})).await;
    assert!(snap.contains(MINE), "{snap}");
    a.cancel().await.ok();
    b.cancel().await.ok();
}

#[test]
fn recall_shows_a_matching_learning_as_a_wiki_match_before_the_memory_block() {
    let s = Sandbox::new();
    s.run_as("agt_b", &["add", "The staging deploy needs the VPN on"])
        .ok();
    s.run_as("agt_b", &["add", "Prefers short answers"]).ok();
    let p = s.json_ok(&[
        "--owner",
        "agt_a",
        "propose",
        "Production deploys need a change ticket in the tracker",
    ]);
    let id = p["learning"]["id"].as_str().unwrap().to_owned();
    let query = "open a change ticket for the production deploy";
    let before = s.json_ok(&["--owner", "agt_b", "recall", "--preview", "--query", query]);
    assert!(
        before.get("wiki").is_none(),
        "pending is no match: {before}"
    );
    s.json_ok(&["--person", "ann", "learnings", "approve", &id]);

    let r = s.json_ok(&["--owner", "agt_b", "recall", "--preview", "--query", query]);
    assert_eq!(r["wiki"][0]["id"], id.as_str(), "{r}");
    let block = r["block"].as_str().unwrap();
    let wiki = block.find("--- WIKI ---\n").expect("the wiki heading");
    let memory = block.find("--- MEMORY ---\n").expect("the memory heading");
    assert!(wiki == 0 && wiki < memory, "{block}");
    assert!(
        block[wiki..memory].contains(&format!("{id} (")),
        "the match before the memory block: {block}"
    );
    assert!(!block[memory..].contains("change ticket"), "{block}");
    // The text form prints the same block.
    let text = s
        .run_as("agt_b", &["recall", "--preview", "--query", query])
        .ok()
        .text();
    assert!(
        text.contains("--- WIKI ---\n") && text.contains(&id),
        "{text}"
    );
    // A query nothing in the wiki matches: the memory block as before.
    let r = s.json_ok(&[
        "--owner",
        "agt_b",
        "recall",
        "--preview",
        "--query",
        "staging VPN",
    ]);
    assert!(
        r["block"].as_str().unwrap().starts_with("--- MEMORY ---\n"),
        "{r}"
    );
}

#[test]
fn an_approval_past_the_learnings_budget_is_refused_with_the_current_entries() {
    let s = Sandbox::new();
    std::fs::write(s.root.join("memdir.yaml"), "budgets:\n  learnings: 500\n").unwrap();
    let mut approved = Vec::new();
    let mut refused = None;
    for i in 0..6 {
        let text = format!("Learning number {i}: {}", "the deploy checklist ".repeat(6));
        let p = s.json_ok(&["--owner", "agt_a", "propose", &text]);
        let id = p["learning"]["id"].as_str().unwrap().to_owned();
        let r = s.run(&["--person", "ann", "--json", "learnings", "approve", &id]);
        if r.code == 0 {
            approved.push(id);
        } else {
            refused = Some((id, r.json()));
            break;
        }
    }
    let (id, e) = refused.expect("an approval past 500 characters is refused");
    assert!(!approved.is_empty());
    assert_eq!(e["error"]["code"], "memory_over_budget", "{e}");
    assert_eq!(e["error"]["file"], "LEARNINGS.md", "{e}");
    assert_eq!(e["error"]["limit"], 500, "{e}");
    let listed: Vec<&str> = e["error"]["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["id"].as_str().unwrap())
        .collect();
    assert_eq!(listed, approved, "{e}");
    // Nothing was half-done: the proposal still waits.
    let l = s.json_ok(&["--person", "ann", "learnings"]);
    assert!(
        l["proposals"]
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p["id"] == id.as_str() && p["status"] == "pending"),
        "{l}"
    );
}

#[test]
fn the_learnings_folder_is_never_listed_as_an_owner() {
    let s = Sandbox::new();
    s.run_as("agt_a", &["add", "A keeps a fact"]).ok();
    let p = s.json_ok(&["--owner", "agt_a", "propose", MINE]);
    let id = p["learning"]["id"].as_str().unwrap().to_owned();
    s.json_ok(&["--person", "ann", "learnings", "approve", &id]);
    assert!(s.root.join("learnings").is_dir() && s.root.join("LEARNINGS.md").is_file());
    let e = s.json_fail(
        &["--person", "ann", "--agent", "agt_typo", "show"],
        "owner_not_found",
        404,
    );
    let owners: Vec<&str> = e["owners"]
        .as_array()
        .unwrap_or_else(|| panic!("{e}"))
        .iter()
        .map(|o| o.as_str().unwrap())
        .collect();
    assert_eq!(owners, ["agt_a"], "{e}");
    // A person's list of every owner's memories holds no `learnings` rows.
    let rows = s.json_ok(&["--person", "ann", "list"]);
    assert!(
        rows["rows"]
            .as_array()
            .unwrap()
            .iter()
            .all(|r| r["agent"] == "agt_a"),
        "{rows}"
    );
}
