//! Writes that wait for a person (`writes: review`) over the real binary:
//! an agent's `add` answers `pending` with its id and exit 0, and nothing
//! enters MEMORY.md (nor the snapshot); both HTTP families answer 202 with
//! `status: pending` and `pending_id`; an agent cannot approve or reject
//! (`person_only`); a person approves and the entry appears; a rejected
//! text is refused on re-add, in another case too; `memdir merge-file`
//! merges PENDING.md entry by entry.

use serde_json::{Value, json};

use crate::http::{make_key, serve};
use crate::util::{Sandbox, command, run_cmd};

const O: &str = "agt_rev";

/// A sandbox whose root's `memdir.yaml` says `writes: review`.
fn review_root() -> Sandbox {
    let s = Sandbox::new();
    std::fs::write(s.root.join("memdir.yaml"), "writes: review\n").unwrap();
    s
}

/// The `pending_id` of a JSON answer.
fn pending_id(v: &Value) -> String {
    v["pending_id"]
        .as_str()
        .unwrap_or_else(|| panic!("no pending_id: {v}"))
        .to_owned()
}

#[test]
fn an_agents_add_under_review_waits_and_a_person_approves_it() {
    let s = review_root();
    // The text answer: a clear line, exit 0.
    let r = s.run_as(O, &["add", "Deploys go out on Tuesdays"]).ok();
    let out = r.text();
    assert!(out.starts_with("pending pnd_"), "{out}");
    assert!(out.contains("waits for a person's review"), "{out}");
    // Nothing in MEMORY.md, nothing in the snapshot; PENDING.md holds it.
    assert!(s.read_or_empty(O, "MEMORY.md").is_empty());
    let snap = s.run_as(O, &["snapshot"]).ok().text();
    assert!(!snap.contains("Tuesdays"), "{snap}");
    let pending = s.read_text(O, "PENDING.md");
    assert!(pending.contains("- Deploys go out on Tuesdays <!-- memdir id=pnd_"));
    assert!(pending.contains("status=pending"), "{pending}");
    // The JSON answer carries the status and the id; the same write asked
    // again keeps its id (nothing added twice).
    let v = s.json_ok(&["--owner", O, "add", "Deploys go out on Tuesdays"]);
    assert_eq!(v["status"], "pending", "{v}");
    assert_eq!(v["message"], "pending", "{v}");
    let id = pending_id(&v);
    assert!(out.contains(&id), "{out} {id}");
    // The agent looks it up.
    let shown = s.json_ok(&["--owner", O, "pending", "show", &id]);
    assert_eq!(shown["operations"][0]["text"], "Deploys go out on Tuesdays");
    let list = s.json_ok(&["--owner", O, "pending", "list"]);
    assert_eq!(list["waiting"], 1, "{list}");
    // An agent decides nothing.
    s.run(&["--json", "--owner", O, "pending", "approve", &id])
        .json_error("person_only");
    s.run(&[
        "--json", "--owner", O, "pending", "reject", &id, "--reason", "no",
    ])
    .json_error("person_only");
    // A person's approval writes it as the agent's own save.
    let d = s.json_ok(&["--person", "ann", "--agent", O, "pending", "approve", &id]);
    assert_eq!(d["status"], "approved", "{d}");
    assert_eq!(d["results"][0]["message"], "added", "{d}");
    let mem = s.read_text(O, "MEMORY.md");
    assert!(
        mem.contains("- Deploys go out on Tuesdays <!-- memdir"),
        "{mem}"
    );
    assert!(mem.contains("agent=agt_rev"), "{mem}");
    assert!(s.run_as(O, &["snapshot"]).ok().text().contains("Tuesdays"));
    assert!(!s.read_text(O, "PENDING.md").contains("Tuesdays"));
    // The decision is journalled.
    let journal = s.read_text(O, "episodes.md");
    assert!(
        journal.contains(&format!("pending {id} approved by person:ann")),
        "{journal}"
    );
    // Approved once: gone.
    s.run(&[
        "--json", "--person", "ann", "--agent", O, "pending", "approve", &id,
    ])
    .json_error("pending_not_found");
}

#[test]
fn a_rejected_text_is_refused_on_re_add_and_a_persons_write_goes_through() {
    let s = review_root();
    let id = pending_id(&s.json_ok(&["--owner", O, "add", "Tabs are better than spaces"]));
    let d = s.json_ok(&[
        "--person",
        "ann",
        "--agent",
        O,
        "pending",
        "reject",
        &id,
        "--reason",
        "a matter of taste",
    ]);
    assert_eq!(d["status"], "rejected", "{d}");
    assert!(s.read_or_empty(O, "MEMORY.md").is_empty());
    // Refused as a vetoed text is: another case and a trailing period too.
    for text in [
        "Tabs are better than spaces",
        "tabs are better than spaces.",
    ] {
        let e = s
            .run(&["--json", "--owner", O, "add", text])
            .json_error("memory_pending_rejected");
        assert_eq!(e["status"], 403, "{e}");
        assert_eq!(e["pending_id"], id.as_str(), "{e}");
    }
    // A rejected write is no longer decided on.
    s.run(&[
        "--json", "--person", "ann", "--agent", O, "pending", "approve", &id,
    ])
    .json_error("memory_wrong_state");
    // A person's own write goes in directly.
    let v = s.json_ok(&[
        "--person",
        "ann",
        "--agent",
        O,
        "add",
        "The office closes at six",
    ]);
    assert_eq!(v["message"], "added", "{v}");
    assert!(v.get("pending_id").is_none(), "{v}");
    // Removals do not wait.
    let mem_id = v["id"].as_str().unwrap().to_owned();
    let r = s.json_ok(&["--owner", O, "remove", &mem_id]);
    assert_eq!(r["message"], "removed", "{r}");
}

#[test]
fn an_owner_tightens_the_roots_policy_and_never_loosens_it() {
    // The root says nothing; the owner's memdir.yaml says review.
    let s = Sandbox::new();
    s.write(O, "memdir.yaml", "writes: review\n");
    let v = s.json_ok(&["--owner", O, "add", "Standups are at nine"]);
    assert_eq!(v["status"], "pending", "{v}");
    // The root says review; the owner's `direct` does not loosen it.
    let s = review_root();
    s.write(O, "memdir.yaml", "writes: direct\n");
    let v = s.json_ok(&["--owner", O, "add", "Standups are at nine"]);
    assert_eq!(v["status"], "pending", "{v}");
}

#[test]
fn both_http_families_answer_202_with_the_pending_id() {
    let s = review_root();
    let a = make_key(&s, &["--owner", O]);
    let p = make_key(&s, &["--person", "ann"]);
    let srv = serve(&s, &["--review-every", "0"]);
    let (a, p) = (Some(a.as_str()), Some(p.as_str()));

    let r = srv.post(
        a,
        "/v1/memory/remember",
        json!({"text": "The VPN is needed for deploys"}),
    );
    assert_eq!(r.status, 202, "{r:?}");
    let v = r.json();
    assert_eq!(v["status"], "pending", "{v}");
    assert_eq!(v["message"], "pending", "{v}");
    let first = pending_id(&v);

    let r = srv.post(
        a,
        "/api/v1/memories",
        json!({"text": "Invoices are sent on the first"}),
    );
    assert_eq!(r.status, 202, "{r:?}");
    let second = pending_id(&r.json());
    assert!(s.read_or_empty(O, "MEMORY.md").is_empty());

    // The agent looks its writes up; only a person decides.
    let list = srv.get(a, "/api/v1/pending").json();
    assert_eq!(list["waiting"], 2, "{list}");
    let one = srv.get(a, &format!("/api/v1/pending/{first}"));
    assert_eq!(one.status, 200, "{one:?}");
    srv.post(a, &format!("/api/v1/pending/{first}/approve"), json!({}))
        .error("person_only", 403);
    srv.post(a, &format!("/api/v1/pending/{first}/reject"), json!({}))
        .error("person_only", 403);
    let ok = srv.post(
        p,
        &format!("/api/v1/pending/{first}/approve"),
        json!({"agentId": O}),
    );
    assert_eq!(ok.status, 200, "{ok:?}");
    assert_eq!(ok.json()["status"], "approved");
    assert!(
        s.read_text(O, "MEMORY.md")
            .contains("The VPN is needed for deploys")
    );
    let no = srv.post(
        p,
        &format!("/api/v1/pending/{second}/reject"),
        json!({"agentId": O, "reason": "not a fact"}),
    );
    assert_eq!(no.status, 200, "{no:?}");
    let again = srv.post(
        a,
        "/v1/memory/remember",
        json!({"text": "Invoices are sent on the first"}),
    );
    again.error("memory_pending_rejected", 403);
}

#[test]
fn the_pending_cap_answers_memory_pending_full() {
    let s = review_root();
    for i in 0..50 {
        s.run_as(O, &["add", &format!("Waiting fact number {i}")])
            .ok();
    }
    let e = s
        .run(&["--json", "--owner", O, "add", "One fact too many"])
        .json_error("memory_pending_full");
    assert_eq!(e["status"], 409, "{e}");
    assert_eq!(e["limit"], 50, "{e}");
}

#[test]
fn merge_file_merges_pending_md_entry_by_entry() {
    let s = Sandbox::new();
    let d = s.dir.path();
    let entry = |text: &str, id: &str| {
        format!(
            "- {text} <!-- memdir id={id} scope=memory op=add source=write status=pending -->\n"
        )
    };
    let head = "# Pending\n\n";
    let base = format!("{head}{}", entry("one", "pnd_000000000001"));
    let ours = format!("{base}{}", entry("two", "pnd_000000000002"));
    let theirs = format!("{base}{}", entry("three", "pnd_000000000003"));
    for (n, t) in [("base", &base), ("ours", &ours), ("theirs", &theirs)] {
        std::fs::write(d.join(n), t).unwrap();
    }
    let mut c = command();
    c.args([
        "--json",
        "merge-file",
        d.join("base").to_str().unwrap(),
        d.join("ours").to_str().unwrap(),
        d.join("theirs").to_str().unwrap(),
        "agt_x/PENDING.md",
    ]);
    let v = run_cmd(c).ok().json();
    assert_eq!(v["merged_as"], "PENDING.md", "{v}");
    assert_eq!(v["clean"], true, "{v}");
    let merged = std::fs::read_to_string(d.join("ours")).unwrap();
    for t in ["- one ", "- two ", "- three "] {
        assert!(merged.contains(t), "{t}: {merged}");
    }
}
