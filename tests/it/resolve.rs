//! `memdir resolve` and `POST /api/v1/memories/{id}/resolve`: what a merge
//! left of a fact, as `check` finds it, settled on the command line and
//! over HTTP by the same request the dashboard's decisions page sends —
//! through the real binary and a real server on loopback.

use serde_json::{Value, json};

use crate::http::{make_key, serve};
use crate::util::Sandbox;

const A: &str = "agt_r";
const P: &str = "ann";

/// Adds `text` to A's MEMORY.md as A; its id.
fn add(s: &Sandbox, text: &str) -> String {
    let v = s.json_ok(&["--owner", A, "add", text]);
    v["id"].as_str().expect("id").to_owned()
}

/// Appends `lines` to A's MEMORY.md by hand, as a merge leaves them.
fn append(s: &Sandbox, lines: &str) {
    let mut src = s.read_text(A, "MEMORY.md");
    src.push_str(lines);
    s.write(A, "MEMORY.md", src);
}

/// `check`'s findings for A of `kind`.
fn findings(s: &Sandbox, kind: &str) -> Vec<Value> {
    // `check` exits 1 when it finds an error: its answer is read either way.
    let v = s.run(&["--json", "check", A]).json();
    v["reports"][0]["findings"]
        .as_array()
        .unwrap_or_else(|| panic!("{v}"))
        .iter()
        .filter(|f| f["kind"] == kind)
        .cloned()
        .collect()
}

/// A `conflict=` pair in A's MEMORY.md (written as a merge leaves it):
/// the ids of its two entries.
fn conflict_pair(s: &Sandbox) -> (String, String) {
    let mut lines = String::new();
    for (text, run) in [
        ("The gateway times out after 30 seconds", "run-a"),
        ("The gateway times out after 60 seconds", "run-b"),
    ] {
        lines.push_str(&format!(
            "- {text} <!-- memdir created=2026-11-12T08:00:00Z run={run} agent={A} conflict=mem_000000000000 -->\n"
        ));
    }
    append(s, &lines);
    (
        memdir::api::types::entry_id("memory", "The gateway times out after 30 seconds"),
        memdir::api::types::entry_id("memory", "The gateway times out after 60 seconds"),
    )
}

#[test]
fn resolve_keeps_one_copy_of_a_duplicate_and_check_names_it() {
    let s = Sandbox::new();
    let tea = add(&s, "Prefers tea");
    add(&s, "Likes maps");
    append(&s, "- Prefers tea\n");
    let dup = findings(&s, "duplicate_entry");
    assert_eq!(dup.len(), 1, "{dup:?}");
    assert_eq!(dup[0]["id"], tea.as_str(), "{dup:?}");
    assert!(
        dup[0]["hint"]
            .as_str()
            .is_some_and(|h| h.contains("memdir resolve ID --keep one")),
        "{dup:?}"
    );
    let t = s.json_ok(&["--owner", A, "resolve", &tea, "--keep", "one"]);
    assert_eq!(t["message"], "kept one", "{t}");
    assert_eq!(t["status"], "active", "{t}");
    let file = s.read_text(A, "MEMORY.md");
    assert_eq!(file.matches("Prefers tea").count(), 1, "{file}");
    assert!(file.contains("Likes maps"), "{file}");
    assert!(findings(&s, "duplicate_entry").is_empty());
    // Nothing left to settle: refused, nothing written.
    let before = s.read(A, "MEMORY.md");
    s.json_fail(
        &["--owner", A, "resolve", &tea, "--keep", "one"],
        "memory_wrong_state",
        409,
    );
    assert_eq!(s.read(A, "MEMORY.md"), before);
}

#[test]
fn resolve_keeps_both_of_a_pair_a_merge_kept() {
    let s = Sandbox::new();
    add(&s, "Prefers tea");
    let (a, b) = conflict_pair(&s);
    assert_eq!(findings(&s, "merge_conflict_pair").len(), 2);
    let t = s.json_ok(&["--owner", A, "resolve", &b, "--keep", "both"]);
    assert_eq!(t["message"], "kept both", "{t}");
    let file = s.read_text(A, "MEMORY.md");
    assert!(!file.contains("conflict="), "{file}");
    assert!(file.contains("after 30 seconds") && file.contains("after 60 seconds"));
    assert!(findings(&s, "merge_conflict_pair").is_empty());
    // Either of the pair is in no pair now.
    s.json_fail(
        &["--owner", A, "resolve", &a, "--keep", "both"],
        "memory_wrong_state",
        409,
    );
    // A word that is not a way to keep is a usage error naming the three.
    let r = s.run(&["--owner", A, "resolve", &a, "--keep", "all"]);
    let usage = r.usage_error();
    assert!(
        usage.contains("both") && usage.contains("live") && usage.contains("one"),
        "{usage}"
    );
}

#[test]
fn keeping_a_vetoed_fact_live_is_a_person_s_right_on_the_command_line() {
    let s = Sandbox::new();
    let id = add(&s, "Prefers tea");
    s.json_ok(&[
        "--person", P, "--agent", A, "veto", &id, "--reason", "wrong",
    ]);
    // A merge brings it back live beside its veto's record.
    append(&s, "- Prefers tea\n");
    assert_eq!(findings(&s, "live_and_archived").len(), 1);
    let archive = s.read(A, "archive.md");
    let e = s.json_fail(
        &["--owner", A, "resolve", &id, "--keep", "live"],
        "memory_veto_human_only",
        403,
    );
    assert_eq!(e["id"], id.as_str(), "{e}");
    assert_eq!(s.read(A, "archive.md"), archive, "an agent changes nothing");
    let t = s.json_ok(&[
        "--person", P, "--agent", A, "resolve", &id, "--keep", "live",
    ]);
    assert_eq!(t["message"], "kept live", "{t}");
    assert!(!s.read_or_empty(A, "archive.md").contains("Prefers tea"));
    assert!(findings(&s, "live_and_archived").is_empty());
    let snap = s.run(&["--owner", A, "snapshot"]).ok().text();
    assert!(snap.contains("Prefers tea"), "{snap}");
}

#[test]
fn resolve_over_http_is_the_same_request() {
    let s = Sandbox::new();
    add(&s, "Prefers tea");
    let (a, _) = conflict_pair(&s);
    let key = make_key(&s, &["--owner", A]);
    let srv = serve(&s, &[]);
    let k = Some(key.as_str());
    let path = format!("/api/v1/memories/{a}/resolve");
    // `keep` is required and is one of three words, worded as MCP words it.
    let e = srv.post(k, &path, json!({})).error("invalid_request", 400);
    assert_eq!(e["message"], "keep is required for resolve", "{e}");
    let e = srv
        .post(k, &path, json!({"keep": "all"}))
        .error("invalid_request", 400);
    assert!(
        e["message"]
            .as_str()
            .is_some_and(|m| m.contains("keep must be one of: both, live, one")),
        "{e}"
    );
    assert_eq!(s.read_text(A, "MEMORY.md").matches("conflict=").count(), 2);
    let r = srv.post(k, &path, json!({"keep": "both"}));
    assert_eq!(r.status, 200, "{r:?}");
    let t = r.json();
    assert_eq!(t["id"], a.as_str(), "{t}");
    assert_eq!(t["message"], "kept both", "{t}");
    assert!(!s.read_text(A, "MEMORY.md").contains("conflict="));
    srv.post(k, &path, json!({"keep": "both"}))
        .error("memory_wrong_state", 409);
}
