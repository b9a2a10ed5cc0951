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
    // Claude's memory tool over HTTP: 202 with the id, the file unchanged.
    let r = srv.post(
        a,
        "/v1/memory/tool",
        json!({"command": "create", "path": "/memories/USER.md",
               "file_text": "- Prefers short answers\n"}),
    );
    assert_eq!(r.status, 202, "{r:?}");
    let v = r.json();
    assert_eq!(v["is_error"], false, "{v}");
    let third = pending_id(&v);
    assert!(s.read_or_empty(O, "USER.md").is_empty());
    assert!(s.read_or_empty(O, "MEMORY.md").is_empty());

    // The agent looks its writes up; only a person decides.
    let list = srv.get(a, "/api/v1/pending").json();
    assert_eq!(list["waiting"], 3, "{list}");
    assert!(list.to_string().contains(&third), "{list}");
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

/// The first `pnd_` id in `text`.
fn id_in(text: &str) -> String {
    let at = text
        .find("pnd_")
        .unwrap_or_else(|| panic!("no pending id: {text}"));
    text[at..at + 16].to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_says_pending_with_the_id_and_an_agent_has_no_approval() {
    use crate::mcp::{call, start};
    let s = review_root();
    let c = start(&s, &["--owner", O], &[]).await;
    // The agent's listing offers no decision.
    let tools = c.list_all_tools().await.unwrap();
    let memory = tools.iter().find(|t| t.name == "memory").expect("memory");
    let actions = &memory.input_schema["properties"]["action"];
    let listed = serde_json::to_string(actions).unwrap();
    assert!(listed.contains("\"pending\""), "{listed}");
    assert!(!listed.contains("approve_pending"), "{listed}");
    assert!(!listed.contains("reject_pending"), "{listed}");
    let (r, e) = call(
        &c,
        "memory",
        json!({"action": "remember", "target": "memory", "operation": "add",
               "content": "Deploys go out on Tuesdays"}),
    )
    .await;
    assert!(!e, "{r}");
    assert!(r.contains("pending pnd_"), "{r}");
    assert!(r.contains("person"), "{r}");
    let id = id_in(&r);
    assert!(s.read_or_empty(O, "MEMORY.md").is_empty());
    // The agent looks it up.
    let (r, e) = call(&c, "memory", json!({"action": "pending"})).await;
    assert!(!e && r.contains(&id), "{r}");
    let (r, e) = call(&c, "memory", json!({"action": "pending", "id": id})).await;
    assert!(!e && r.contains("Deploys go out on Tuesdays"), "{r}");
    // Sent anyway, a decision is refused to an agent.
    for args in [
        json!({"action": "approve_pending", "id": id}),
        json!({"action": "reject_pending", "id": id, "reason": "no"}),
    ] {
        let (r, e) = call(&c, "memory", args).await;
        assert!(e, "{r}");
    }
    assert!(s.read_or_empty(O, "MEMORY.md").is_empty());
    let list = s.json_ok(&["--owner", O, "pending", "list"]);
    assert_eq!(list["waiting"], 1, "{list}");
    c.cancel().await.unwrap();
}

#[test]
fn the_memory_tool_s_edit_waits_with_its_pending_id() {
    let s = review_root();
    let input = json!({"command": "create", "path": "/memories/MEMORY.md",
                       "file_text": "- Deploys go out on Tuesdays\n"});
    let r = s.run_stdin(
        &["--json", "--owner", O, "tool", "memory"],
        input.to_string().as_bytes(),
    );
    let v = r.ok().json();
    assert_eq!(v["is_error"], false, "{v}");
    let id = v["pending_id"]
        .as_str()
        .unwrap_or_else(|| panic!("no pending_id: {v}"))
        .to_owned();
    assert!(v["text"].as_str().unwrap().contains(&id), "{v}");
    assert!(s.read_or_empty(O, "MEMORY.md").is_empty());
    let shown = s.json_ok(&["--owner", O, "pending", "show", &id]);
    assert_eq!(shown["source"], "memory_tool", "{shown}");
}

#[test]
fn recall_leaves_a_waiting_write_out_and_archives_and_day_lines_go_through() {
    let s = Sandbox::new();
    let v = s.json_ok(&["--owner", O, "add", "The build server is called hopper"]);
    let mem_id = v["id"].as_str().expect("an id").to_owned();
    std::fs::write(s.root.join("memdir.yaml"), "writes: review\n").unwrap();
    let p = s.json_ok(&["--owner", O, "add", "The build server hopper has 64 cores"]);
    assert_eq!(p["status"], "pending", "{p}");
    // Neither recall nor the snapshot sees the waiting write.
    let r = s
        .run_as(O, &["recall", "--query", "build server hopper cores"])
        .ok()
        .text();
    assert!(r.contains("called hopper"), "{r}");
    assert!(!r.contains("64 cores"), "{r}");
    assert!(!s.run_as(O, &["snapshot"]).ok().text().contains("64 cores"));
    // A day line and an archive go through at once.
    let d = s.json_ok(&["--owner", O, "day", "Looked at the build server"]);
    assert!(d.get("pending_id").is_none(), "{d}");
    assert!(
        s.read_text(O, "episodes.md")
            .contains("Looked at the build server")
    );
    let a = s.json_ok(&["--owner", O, "archive", &mem_id, "--reason", "renamed"]);
    assert!(a.get("pending_id").is_none(), "{a}");
    assert!(!s.read_text(O, "MEMORY.md").contains("called hopper"));
    assert!(s.read_text(O, "archive.md").contains("called hopper"));
}

#[test]
fn a_persons_decision_is_asked_at_the_terminal_naming_the_write_and_its_text() {
    let s = review_root();
    let id = pending_id(&s.json_ok(&["--owner", O, "add", "Deploys go out on Tuesdays"]));
    let shown = s.dir.path().join("terminal.txt");
    let approve = s.cmd(&[
        "--json", "--person", "ann", "--agent", O, "pending", "approve", &id,
    ]);
    let r = crate::util::run_cmd_as_is(crate::util::at_terminal(&approve, "n", &shown), b"");
    let e = r.json_error("person_unconfirmed");
    assert_eq!(e["why"], "declined", "{e}");
    let t = String::from_utf8_lossy(&std::fs::read(&shown).unwrap()).into_owned();
    for part in [
        id.as_str(),
        "asked by agent:agt_rev",
        "add: Deploys go out on Tuesdays",
    ] {
        assert!(t.contains(part), "{part:?} not in {t}");
    }
    assert!(
        s.read_or_empty(O, "MEMORY.md").is_empty(),
        "nothing approved"
    );
    assert_eq!(s.json_ok(&["--owner", O, "pending", "list"])["waiting"], 1);
}
