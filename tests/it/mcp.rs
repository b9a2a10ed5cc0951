//! `memdir mcp` through a real MCP client: rmcp's client over the standard
//! streams of a spawned `memdir mcp` process: initialize, list the tools
//! and resources, call every action, and check the files on disk.

use rmcp::model::{CallToolRequestParams, ReadResourceRequestParams, ResourceContents};
use rmcp::service::RunningService;
use rmcp::transport::TokioChildProcess;
use rmcp::{RoleClient, ServiceExt};
use serde_json::{Value, json};

use crate::util::{BIN, Sandbox, config_dir, person_at_terminal};

pub(crate) type Client = RunningService<RoleClient, ()>;

/// Starts `memdir --root ROOT ARGS mcp EXTRA` and initializes a client.
pub(crate) async fn start(s: &Sandbox, args: &[&str], extra: &[&str]) -> Client {
    let mut cmd = std::process::Command::new(BIN);
    cmd.env_remove("MEMDIR_ROOT")
        .env_remove("MEMDIR_OWNER")
        .env("MEMDIR_CONFIG_DIR", config_dir())
        .current_dir(s.dir.path())
        .arg("--root")
        .arg(&s.root)
        .args(args)
        .arg("mcp")
        .args(extra);
    // A person's server is confirmed at a terminal as it starts.
    let cmd = tokio::process::Command::from(person_at_terminal(cmd));
    let (transport, _stderr) = TokioChildProcess::builder(cmd)
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("spawn memdir mcp");
    ().serve(transport).await.expect("initialize")
}

/// Calls `tool` with `args`: its text, and whether it is a tool error.
pub(crate) async fn call(c: &Client, tool: &'static str, args: Value) -> (String, bool) {
    let Value::Object(map) = args else {
        panic!("arguments must be an object")
    };
    let r = c
        .call_tool(CallToolRequestParams::new(tool).with_arguments(map))
        .await
        .unwrap_or_else(|e| panic!("{tool}: {e}"));
    let text = r
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect::<Vec<_>>()
        .join("");
    (text, r.is_error.unwrap_or(false))
}

#[track_caller]
fn ok(r: (String, bool)) -> String {
    assert!(!r.1, "a tool error: {}", r.0);
    r.0
}

#[track_caller]
fn err(r: (String, bool)) -> String {
    assert!(r.1, "not a tool error: {}", r.0);
    r.0
}

/// Reads the resource `uri`: its text.
pub(crate) async fn read(c: &Client, uri: &str) -> String {
    let r = c
        .read_resource(ReadResourceRequestParams::new(uri))
        .await
        .unwrap_or_else(|e| panic!("{uri}: {e}"));
    match &r.contents[0] {
        ResourceContents::TextResourceContents { text, .. } => text.clone(),
        other => panic!("not text: {other:?}"),
    }
}

/// The server's four tools, each with a row in docs/API.md and annotations
/// true of it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_server_lists_four_tools_with_annotations_true_of_each() {
    let s = Sandbox::new();
    let c = start(&s, &["--owner", "agt_mcp"], &[]).await;
    let info = c.peer_info().expect("server info");
    assert_eq!(info.server_info.as_ref().unwrap().name, "memdir");

    // Four tools, with annotations true of each.
    let tools = c.list_all_tools().await.unwrap();
    let mut names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    names.sort();
    assert_eq!(names, ["get_result", "learn", "memory", "put_result"]);
    // docs/API.md has a row for every tool the server lists.
    let md = std::fs::read_to_string(concat!(
        concat!(env!("CARGO_MANIFEST_DIR"), "/.."),
        "/docs/API.md"
    ))
    .unwrap();
    for n in &names {
        assert!(
            md.contains(&format!("\n| `{n}` |")),
            "docs/API.md has no row for {n}"
        );
    }
    let ann = |n: &str| {
        tools
            .iter()
            .find(|t| t.name == n)
            .and_then(|t| t.annotations.clone())
            .expect("annotations")
    };
    assert_eq!(ann("get_result").read_only_hint, Some(true));
    assert_eq!(ann("get_result").idempotent_hint, Some(true));
    assert_eq!(ann("memory").read_only_hint, Some(false));
    assert_eq!(ann("memory").destructive_hint, Some(true));
    assert_eq!(ann("put_result").destructive_hint, Some(false));
    c.cancel().await.unwrap();
}

/// The `memory` tool's `remember`: recall on an empty store, then an add
/// visible at once, a replace that misses, a read and a removal.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn remember_adds_reads_replaces_and_removes_in_the_user_profile() {
    let s = Sandbox::new();
    let c = start(&s, &["--owner", "agt_mcp"], &[]).await;
    // recall on an empty store, then remember, visible at once.
    let r = ok(call(&c, "memory", json!({"action": "recall"})).await);
    assert_eq!(r, "No memory recorded yet.");
    let r = ok(call(
        &c,
        "memory",
        json!({"action": "remember", "target": "user", "operation": "add",
               "content": "Prefers weekly summaries, no emojis in reports"}),
    )
    .await);
    assert!(
        r.starts_with("Saved to your user profile (USER.md) as mem_"),
        "{r}"
    );
    assert!(r.contains("recall will see it immediately"), "{r}");
    assert!(
        s.read_plain("agt_mcp", "USER.md")
            .contains("- Prefers weekly summaries, no emojis")
    );
    let r = ok(call(&c, "memory", json!({"action": "recall"})).await);
    assert!(r.contains("Prefers weekly summaries"), "{r}");
    let again = ok(call(
        &c,
        "memory",
        json!({"action": "remember", "target": "user",
               "content": "Prefers weekly summaries, no emojis in reports"}),
    )
    .await);
    assert!(again.starts_with("Already stored"), "{again}");

    // A replace that misses answers with the error and the current entries.
    let e = err(call(
        &c,
        "memory",
        json!({"action": "remember", "target": "user", "operation": "replace",
               "old_text": "monthly", "content": "Prefers monthly summaries"}),
    )
    .await);
    assert!(e.contains("memory_not_found"), "{e}");
    assert!(e.contains("Current entries of USER.md:"), "{e}");
    assert!(
        e.contains("Prefers weekly summaries, no emojis in reports"),
        "{e}"
    );
    ok(call(
        &c,
        "memory",
        json!({"action": "remember", "target": "user", "operation": "replace",
               "old_text": "weekly", "content": "Prefers monthly summaries"}),
    )
    .await);
    assert!(
        s.read_plain("agt_mcp", "USER.md")
            .contains("- Prefers monthly summaries")
    );
    let listed = ok(call(
        &c,
        "memory",
        json!({"action": "remember", "target": "user", "operation": "read"}),
    )
    .await);
    assert!(
        listed.contains("## USER.md\n- Prefers monthly summaries"),
        "{listed}"
    );
    let e = err(call(
        &c,
        "memory",
        json!({"action": "remember", "operation": "add"}),
    )
    .await);
    assert_eq!(e, "content is required for remember");
    ok(call(
        &c,
        "memory",
        json!({"action": "remember", "target": "user", "operation": "remove",
               "old_text": "monthly"}),
    )
    .await);
    assert!(!s.read_plain("agt_mcp", "USER.md").contains("monthly"));
    c.cancel().await.unwrap();
}

/// The fact lifecycle (save, list, recall_facts, archive, unarchive, an
/// agent's veto refused), the day log and the run search.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_fact_lifecycle_day_log_and_run_search_over_mcp() {
    let s = Sandbox::new();
    let c = start(&s, &["--owner", "agt_mcp"], &[]).await;
    // The fact lifecycle.
    let saved = ok(call(
        &c,
        "memory",
        json!({"action": "save", "content": "The staging deploy needs the VPN on",
               "expires": "2099-12-31"}),
    )
    .await);
    let id = saved
        .split_whitespace()
        .find(|w| w.starts_with("mem_"))
        .expect("an id")
        .to_owned();
    assert!(
        s.read_plain("agt_mcp", "MEMORY.md")
            .contains("staging deploy needs the VPN")
    );
    let list = ok(call(&c, "memory", json!({"action": "list", "kind": "fact"})).await);
    assert!(list.contains(&id), "{list}");
    let facts = ok(call(
        &c,
        "memory",
        json!({"action": "recall_facts", "query": "staging VPN"}),
    )
    .await);
    assert!(facts.contains("staging deploy"), "{facts}");
    let e = err(call(&c, "memory", json!({"action": "archive", "id": id})).await);
    assert_eq!(e, "reason is required for archive");
    ok(call(
        &c,
        "memory",
        json!({"action": "archive", "id": id, "reason": "done"}),
    )
    .await);
    assert!(
        s.read_text("agt_mcp", "archive.md")
            .contains("staging deploy")
    );
    ok(call(&c, "memory", json!({"action": "unarchive", "id": id})).await);
    assert!(
        s.read_plain("agt_mcp", "MEMORY.md")
            .contains("staging deploy")
    );
    let e = err(call(&c, "memory", json!({"action": "veto", "id": id})).await);
    assert!(e.contains("memory_veto_human_only"), "{e}");
    ok(call(
        &c,
        "memory",
        json!({"action": "day", "content": "PIN-812: fixed the staging deploy"}),
    )
    .await);
    assert!(
        s.read_text("agt_mcp", "episodes.md")
            .contains("PIN-812: fixed the staging deploy")
    );
    let hits = ok(call(
        &c,
        "memory",
        json!({"action": "search_runs", "query": "staging deploy"}),
    )
    .await);
    assert!(hits.contains("PIN-812"), "{hits}");
    let e = err(call(&c, "memory", json!({"action": "search_runs"})).await);
    assert_eq!(e, "query is required for search_runs");
    let e = err(call(&c, "memory", json!({"action": "get_run"})).await);
    assert_eq!(e, "run_id is required for get_run");
    c.cancel().await.unwrap();
}

/// The namespace rule: another owner named by an agent is ignored, with
/// a warning.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn another_owner_named_by_an_agent_is_ignored_with_a_warning() {
    let s = Sandbox::new();
    let c = start(&s, &["--owner", "agt_mcp"], &[]).await;
    // The namespace rule: another owner is ignored, with a warning.
    let r = ok(call(
        &c,
        "memory",
        json!({"action": "save", "content": "Copied configs stay home", "memory_owner": "agt_other"}),
    )
    .await);
    assert!(r.starts_with("warning: owner \"agt_other\" ignored"), "{r}");
    assert!(
        s.read_plain("agt_mcp", "MEMORY.md")
            .contains("Copied configs stay home")
    );
    assert!(!s.owner_dir("agt_other").exists());
    let r = ok(call(&c, "memory", json!({"action": "list", "owner": "agt_mcp"})).await);
    assert!(!r.contains("warning"), "{r}");
    c.cancel().await.unwrap();
}

/// SharedMemory over MCP: a workflow nothing knows, one not ready, empty
/// content, a stored result, another owner's name ignored.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shared_memory_over_mcp_answers_unknown_not_ready_and_stored() {
    let s = Sandbox::new();
    let c = start(&s, &["--owner", "agt_mcp"], &[]).await;
    // SharedMemory. A workflow nothing knows is an error that says to check
    // the id; once a run names it, "not ready" is an answer.
    let e = err(call(
        &c,
        "get_result",
        json!({"execution_id": "exec-1", "task_id": "web"}),
    )
    .await);
    assert!(
        e.contains("result_not_found") && e.contains("check the workflow id"),
        "{e}"
    );
    let e = err(call(&c, "get_result", json!({"execution_id": "exec-1"})).await);
    assert!(e.contains("result_not_found"), "{e}");
    s.run_as("agt_mcp", &["run", "begin", "--workflow", "exec-1"])
        .ok();
    let r = ok(call(
        &c,
        "get_result",
        json!({"execution_id": "exec-1", "task_id": "web"}),
    )
    .await);
    assert_eq!(r, "not ready: still running, poll");
    let r = ok(call(&c, "get_result", json!({"execution_id": "exec-1"})).await);
    assert_eq!(r, "not ready: still running, poll");
    // Empty content is refused unless the call allows it.
    let e = err(call(
        &c,
        "put_result",
        json!({"workflow_id": "exec-1", "task_id": "empty", "content": ""}),
    )
    .await);
    assert!(e.contains("invalid_request") && e.contains("empty"), "{e}");
    let r = ok(call(
        &c,
        "put_result",
        json!({"workflow_id": "exec-1", "task_id": "empty", "content": "", "allow_empty": true}),
    )
    .await);
    assert!(r.starts_with("stored exec-1/empty (0 bytes"), "{r}");
    ok(call(
        &c,
        "put_result",
        json!({"workflow_id": "exec-1", "task_id": "web", "content": "three competitors",
               "content_type": "text/markdown"}),
    )
    .await);
    let r = ok(call(
        &c,
        "get_result",
        json!({"workflow_id": "exec-1", "task_id": "web"}),
    )
    .await);
    assert!(r.ends_with("\n\nthree competitors"), "{r}");
    assert!(r.contains("text/markdown"), "{r}");
    let steps = ok(call(&c, "get_result", json!({"execution_id": "exec-1"})).await);
    assert!(steps.contains("web"), "{steps}");
    let other = ok(call(
        &c,
        "get_result",
        json!({"execution_id": "exec-1", "task_id": "web", "agentId": "agt_other"}),
    )
    .await);
    assert!(
        other.starts_with("warning: owner \"agt_other\" ignored"),
        "{other}"
    );
    assert!(other.ends_with("three competitors"), "{other}");
    let e = err(call(
        &c,
        "put_result",
        json!({"workflow_id": "exec-1", "task_id": "web", "content": "other"}),
    )
    .await);
    assert!(e.contains("result_exists"), "{e}");
    assert!(s.owner_dir("agt_mcp").join("results/exec-1").is_dir());
    c.cancel().await.unwrap();
}

/// The resources: the snapshot and the stores, read fresh (a hand edit
/// between two calls is seen).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_resources_are_the_snapshot_and_the_stores_read_fresh() {
    let s = Sandbox::new();
    let c = start(&s, &["--owner", "agt_mcp"], &[]).await;
    ok(call(
        &c,
        "memory",
        json!({"action": "save", "content": "Copied configs stay home"}),
    )
    .await);
    // Resources: the snapshot and the stores, read fresh.
    let res = c.list_all_resources().await.unwrap();
    let uris: Vec<&str> = res.iter().map(|r| r.uri.as_str()).collect();
    assert_eq!(
        uris,
        [
            "memdir://agt_mcp/snapshot",
            "memdir://agt_mcp/USER.md",
            "memdir://agt_mcp/MEMORY.md"
        ]
    );
    let snap = read(&c, "memdir://agt_mcp/snapshot").await;
    assert!(snap.contains("Copied configs stay home"), "{snap}");
    let mem = read(&c, "memdir://agt_mcp/MEMORY.md").await;
    assert!(mem.starts_with("## MEMORY.md\n- "), "{mem}");
    assert!(
        c.read_resource(ReadResourceRequestParams::new(
            "memdir://agt_other/snapshot"
        ))
        .await
        .is_err()
    );
    // A hand edit between two calls is seen: nothing is cached.
    let path = s.path("agt_mcp", "MEMORY.md");
    let mut text = std::fs::read_to_string(&path).unwrap();
    text.push_str("\n- Added by hand\n");
    std::fs::write(&path, text).unwrap();
    let r = ok(call(&c, "memory", json!({"action": "recall"})).await);
    assert!(r.contains("Added by hand"), "{r}");
    c.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_server_serves_the_frozen_snapshot_and_a_person_names_the_agent() {
    let s = Sandbox::new();
    s.run_as("agt_run", &["add", "Before the run"]).ok();
    let begun = s.json_ok(&["--owner", "agt_run", "run", "begin"]);
    let run_id = begun["run_id"].as_str().unwrap().to_owned();
    s.run_as("agt_run", &["add", "During the run"]).ok();

    let c = start(&s, &["--owner", "agt_run"], &["--run", &run_id]).await;
    let r = ok(call(&c, "memory", json!({"action": "recall"})).await);
    assert!(r.contains("Before the run"), "{r}");
    assert!(!r.contains("During the run"), "{r}");
    let snap = read(&c, "memdir://agt_run/snapshot").await;
    assert_eq!(snap, begun["text"].as_str().unwrap());
    c.cancel().await.unwrap();

    let p = start(&s, &["--person", "ann"], &[]).await;
    let all = ok(call(&p, "memory", json!({"action": "list"})).await);
    assert!(all.contains("During the run"), "{all}");
    let e = err(call(
        &p,
        "memory",
        json!({"action": "save", "content": "Needs an agent"}),
    )
    .await);
    assert!(e.contains("memory_agent_required"), "{e}");
    ok(call(
        &p,
        "memory",
        json!({"action": "save", "content": "Set by a person", "agentId": "agt_run"}),
    )
    .await);
    assert!(
        s.read_plain("agt_run", "MEMORY.md")
            .contains("Set by a person")
    );
    let list = ok(call(
        &p,
        "memory",
        json!({"action": "list", "agentId": "agt_run"}),
    )
    .await);
    let id = list
        .lines()
        .find(|l| l.contains("mem_") && !l.starts_with(' '))
        .and_then(|l| l.split_whitespace().next())
        .unwrap()
        .to_owned();
    let v = ok(call(
        &p,
        "memory",
        json!({"action": "veto", "id": id, "agentId": "agt_run"}),
    )
    .await);
    assert!(v.contains("vetoed") || v.contains("archived"), "{v}");
    assert!(p.list_all_resources().await.unwrap().is_empty());
    p.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_learn_tool_learns_lists_shows_and_forgets_skills() {
    let s = Sandbox::new();
    let c = start(&s, &["--owner", "agt_learn"], &[]).await;
    let tools = c.list_all_tools().await.unwrap();
    let learn = tools
        .iter()
        .find(|t| t.name == "learn")
        .expect("a learn tool");
    let ann = learn.annotations.clone().expect("annotations");
    assert_eq!(ann.read_only_hint, Some(false));
    assert_eq!(ann.destructive_hint, Some(true));
    assert_eq!(ann.idempotent_hint, Some(false));
    let schema = serde_json::to_string(&learn.input_schema).unwrap();
    for word in ["forget", "list", "content", "replace", "description"] {
        assert!(schema.contains(word), "{word}: {schema}");
    }

    let none = ok(call(&c, "learn", json!({"action": "list"})).await);
    assert_eq!(none, "No learned skills yet.\n");
    // The seed's example: `source` and `name`, no action (learn is the default).
    let saved = ok(call(
        &c,
        "learn",
        json!({"user_request": "save what we learned about CNL debugging as a skill",
               "name": "cnl-debugging",
               "source": "# CNL debugging\nCheck the parser's trace first, then the grammar.\n",
               "description": "Debugging CNL parses"}),
    )
    .await);
    assert!(
        saved.starts_with("Saved skill cnl-debugging (skills/cnl-debugging/SKILL.md, "),
        "{saved}"
    );
    let file = s.read_text("agt_learn", "skills/cnl-debugging/SKILL.md");
    assert!(
        file.contains("Check the parser's trace first, then the grammar."),
        "{file}"
    );
    assert!(
        file.contains("description: \"Debugging CNL parses\""),
        "{file}"
    );
    let list = ok(call(&c, "learn", json!({"action": "list"})).await);
    assert_eq!(list, "- cnl-debugging — Debugging CNL parses\n");
    let shown = ok(call(
        &c,
        "learn",
        json!({"action": "show", "name": "cnl-debugging"}),
    )
    .await);
    assert_eq!(shown, file);
    let again = ok(call(
        &c,
        "learn",
        json!({"action": "learn", "name": "cnl-debugging",
               "content": "# CNL debugging\nCheck the parser's trace first, then the grammar.\n",
               "description": "Debugging CNL parses"}),
    )
    .await);
    assert!(
        again.starts_with("Skill cnl-debugging is already stored"),
        "{again}"
    );

    // A different skill under the same name: skill_exists, with the skills.
    let e = err(call(
        &c,
        "learn",
        json!({"name": "cnl-debugging", "content": "Something else"}),
    )
    .await);
    assert!(e.starts_with("error[skill_exists]"), "{e}");
    assert!(e.contains("replace: true"), "{e}");
    assert!(e.contains("Your skills:\n- cnl-debugging — "), "{e}");
    let replaced = ok(call(
        &c,
        "learn",
        json!({"name": "cnl-debugging", "content": "Something else", "replace": true}),
    )
    .await);
    assert!(
        replaced.starts_with("Replaced skill cnl-debugging"),
        "{replaced}"
    );
    assert!(
        s.read_text("agt_learn", "skills/cnl-debugging/SKILL.md")
            .contains("Something else")
    );

    // A secret in the body is refused and nothing is written.
    let e = err(call(
        &c,
        "learn",
        json!({"name": "aws", "content": "Use the key AKIAQ7X3LM9PZ2RT4VWY for deploys"}),
    )
    .await);
    assert!(e.starts_with("error[secret_in_memory]"), "{e}");
    assert!(!s.path("agt_learn", "skills/aws").exists());
    // Missing arguments name what is missing.
    let e = err(call(&c, "learn", json!({"action": "forget"})).await);
    assert_eq!(e, "forget needs name (the skill id from action: list).");
    let e = err(call(&c, "learn", json!({"name": "empty"})).await);
    assert!(e.contains("is required for learn"), "{e}");

    // Another owner named is ignored with a warning: the call uses our own.
    let warned = ok(call(
        &c,
        "learn",
        json!({"action": "list", "memory_owner": "agt_other"}),
    )
    .await);
    assert!(
        warned.starts_with("warning: owner \"agt_other\" ignored"),
        "{warned}"
    );
    assert!(warned.contains("- cnl-debugging"), "{warned}");

    let forgot = ok(call(
        &c,
        "learn",
        json!({"action": "forget", "name": "cnl-debugging"}),
    )
    .await);
    assert_eq!(forgot, "Forgot skill cnl-debugging.\n");
    assert!(
        !s.path("agt_learn", "skills/cnl-debugging/SKILL.md")
            .exists()
    );
    let e = err(call(
        &c,
        "learn",
        json!({"action": "forget", "name": "cnl-debugging"}),
    )
    .await);
    assert!(
        e.starts_with(
            "error[skill_not_found]: No skill named cnl-debugging. Use action: list to see yours."
        ),
        "{e}"
    );
    assert!(e.contains("Your skills:\nNo learned skills yet."), "{e}");
    c.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_past_expiry_is_refused_and_a_substring_is_found_in_either_store() {
    let s = Sandbox::new();
    let c = start(&s, &["--owner", "agt_mcp"], &[]).await;
    let today = chrono::Utc::now().format("%Y-%m-%d").to_string();
    // A past expiry: refused, naming today's UTC date; nothing saved.
    let e = err(call(
        &c,
        "memory",
        json!({"action": "save", "content": "Staging needs the VPN", "expires": "2020-01-01"}),
    )
    .await);
    assert!(e.starts_with("error[invalid_expiry]: "), "{e}");
    assert!(e.contains(&format!("today is {today}, UTC")), "{e}");
    assert!(!s.path("agt_mcp", "MEMORY.md").exists());
    // No target: the one entry matching, in whichever store holds it.
    ok(call(
        &c,
        "memory",
        json!({"action": "remember", "target": "user", "content": "Uses vim daily"}),
    )
    .await);
    ok(call(
        &c,
        "memory",
        json!({"action": "remember", "content": "Deploys on Fridays"}),
    )
    .await);
    let r = ok(call(
        &c,
        "memory",
        json!({"action": "remember", "operation": "replace", "old_text": "vim",
               "content": "Uses helix daily"}),
    )
    .await);
    assert!(r.contains("in your user profile (USER.md)"), "{r}");
    assert!(
        s.read_plain("agt_mcp", "USER.md")
            .contains("- Uses helix daily")
    );
    // Several across the stores: ambiguous, with their stores.
    let e = err(call(
        &c,
        "memory",
        json!({"action": "remember", "operation": "remove", "old_text": "s"}),
    )
    .await);
    assert!(e.starts_with("error[memory_ambiguous_match]: "), "{e}");
    assert!(
        e.contains(" in MEMORY.md (") && e.contains(" in USER.md ("),
        "{e}"
    );
    // A target limits the match.
    ok(call(
        &c,
        "memory",
        json!({"action": "remember", "target": "memory", "operation": "remove", "old_text": "s"}),
    )
    .await);
    assert!(!s.read_plain("agt_mcp", "MEMORY.md").contains("Fridays"));
    assert!(
        s.read_plain("agt_mcp", "USER.md")
            .contains("- Uses helix daily")
    );
    c.cancel().await.unwrap();
}

/// The backticked argument names of a table cell: those outside
/// parentheses (required to be arguments), and all of them.
fn cell_args(cell: &str) -> (Vec<String>, Vec<String>) {
    let (mut outside, mut all, mut depth) = (Vec::new(), Vec::new(), 0i32);
    for (i, part) in cell.split('`').enumerate() {
        if i % 2 == 0 {
            depth += part.matches('(').count() as i32 - part.matches(')').count() as i32;
        } else if part.chars().all(|c| c.is_ascii_lowercase() || c == '_') && !part.is_empty() {
            all.push(part.to_owned());
            if depth == 0 {
                outside.push(part.to_owned());
            }
        }
    }
    (outside, all)
}

/// The rows `| \`name\` | … |` of the table after `heading` in `md`: name
/// and cells.
fn table_after(md: &str, heading: &str) -> Vec<(String, Vec<String>)> {
    let at = md
        .find(heading)
        .unwrap_or_else(|| panic!("{heading:?} in docs/API.md"));
    md[at..]
        .lines()
        .skip_while(|l| !l.starts_with('|'))
        .take_while(|l| l.starts_with('|'))
        .filter_map(|l| {
            let cells: Vec<String> = l
                .trim_matches('|')
                .split(" | ")
                .map(|c| c.trim().to_owned())
                .collect();
            let name = cells
                .first()?
                .strip_prefix('`')?
                .strip_suffix('`')?
                .to_owned();
            Some((name, cells))
        })
        .collect()
}

/// Each tool's arguments (a person's server lists them all) are named in
/// its row of docs/API.md or its actions' table, each action's required
/// arguments are properties, and `action` allows exactly the table's rows.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_tool_s_schema_matches_its_table_in_api_md() {
    let s = Sandbox::new();
    let c = start(&s, &["--person", "ann"], &[]).await;
    let tools = c.list_all_tools().await.unwrap();
    let md =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/API.md")).unwrap();
    let rows = table_after(&md, "### Tools");
    // The arguments every tool takes to name an owner (docs/API.md, Identity).
    let identity = ["agentId", "memory_owner", "owner", "user_request"];
    for n in identity.iter().take(3) {
        assert!(md.contains(&format!("`{n}`")), "docs/API.md names {n}");
    }
    let mut wrong = Vec::new();
    for t in &tools {
        let name = t.name.as_ref();
        let schema = Value::Object((*t.input_schema).clone());
        assert_eq!(schema["type"], "object", "{name}: the root is an object");
        let props: Vec<String> = schema["properties"]
            .as_object()
            .into_iter()
            .flatten()
            .map(|(k, _)| k.clone())
            .collect();
        assert!(!props.is_empty(), "{name}: properties");
        let (_, cells) = rows
            .iter()
            .find(|(n, _)| n == name)
            .unwrap_or_else(|| panic!("no row for {name}"));
        let (mut required, mut documented) = cell_args(&cells[2]);
        if let Some(at) = md.find(&format!("`{name}`'s actions")) {
            let actions = table_after(&md[at..], "actions");
            let mut listed: Vec<String> = actions.iter().map(|(a, _)| a.clone()).collect();
            let mut values: Vec<String> = schema["properties"]["action"]["enum"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|v| v.as_str().map(str::to_owned))
                .collect();
            listed.sort();
            values.sort();
            if listed != values {
                wrong.push(format!(
                    "{name}: actions {values:?} in the schema, {listed:?} in docs/API.md"
                ));
            }
            for (_, cells) in &actions {
                let (req, all) = cell_args(&cells[1]);
                required.extend(req);
                documented.extend(all);
            }
        }
        for arg in &required {
            if !props.contains(arg) {
                wrong.push(format!(
                    "{name}: docs/API.md names {arg}, the schema has no such property"
                ));
            }
        }
        for p in &props {
            if !documented.contains(p) && !identity.contains(&p.as_str()) {
                wrong.push(format!(
                    "{name}: the schema's {p} is in no row of docs/API.md"
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    c.cancel().await.ok();
}

/// Under `mcp --run`, a remember says the next run sees it (this run's
/// recall stays frozen, and says so by staying the same); without a run,
/// that recall sees it now.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_remember_under_a_run_says_the_next_run_sees_it() {
    let s = Sandbox::new();
    s.run_as("agt_run", &["add", "Before the run"]).ok();
    let begun = s.json_ok(&["--owner", "agt_run", "run", "begin"]);
    let run_id = begun["run_id"].as_str().unwrap().to_owned();
    let c = start(&s, &["--owner", "agt_run"], &["--run", &run_id]).await;
    let r = ok(call(
        &c,
        "memory",
        json!({"action": "remember", "content": "Staging needs the VPN"}),
    )
    .await);
    assert!(r.contains("the next run will see it"), "{r}");
    assert!(!r.contains("immediately"), "{r}");
    let recall = ok(call(&c, "memory", json!({"action": "recall"})).await);
    assert!(!recall.contains("VPN"), "{recall}");
    c.cancel().await.unwrap();
    let c = start(&s, &["--owner", "agt_run"], &[]).await;
    let r = ok(call(
        &c,
        "memory",
        json!({"action": "remember", "content": "Deploys on Fridays"}),
    )
    .await);
    assert!(r.contains("recall will see it immediately"), "{r}");
    c.cancel().await.unwrap();
}

/// A refused write lists the store's current entries once, each id once,
/// in the form docs/API.md shows (`Current entries of FILE:` then
/// `- ID  TEXT` lines).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_write_lists_each_current_entry_once() {
    let s = Sandbox::new();
    let texts: Vec<String> = (0..16)
        .map(|i| format!("Fact number {i} about the deploy pipeline and its many stages"))
        .collect();
    for t in &texts {
        s.run_as("agt_b", &["add", "--to", "user", t]).ok();
    }
    let c = start(&s, &["--owner", "agt_b"], &[]).await;
    let e = err(call(
        &c,
        "memory",
        json!({"action": "remember", "target": "user", "content": "x".repeat(500)}),
    )
    .await);
    assert!(e.starts_with("error[memory_over_budget]: "), "{e}");
    assert_eq!(e.matches("Current entries of USER.md:").count(), 1, "{e}");
    let shown = s.json_ok(&["--owner", "agt_b", "show", "--in", "user"]);
    for entry in shown["stores"][0]["entries"].as_array().unwrap() {
        let id = entry["id"].as_str().unwrap();
        assert_eq!(e.matches(id).count(), 1, "{id} in {e}");
        assert!(e.contains(&format!("- {id}  ")), "{id} in {e}");
    }
    c.cancel().await.unwrap();
}

/// A hint names this surface's arguments: a substring found in the other
/// store says to pass `target`, never the command line's `--in`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hints_name_the_tools_own_arguments() {
    let s = Sandbox::new();
    s.run_as("agt_h", &["add", "--to", "user", "Uses vim daily"])
        .ok();
    let c = start(&s, &["--owner", "agt_h"], &[]).await;
    let e = err(call(
        &c,
        "memory",
        json!({"action": "remember", "target": "memory", "operation": "remove", "old_text": "vim"}),
    )
    .await);
    assert!(e.starts_with("error[memory_not_found]: "), "{e}");
    assert!(e.contains("pass target: \"user\""), "{e}");
    assert!(!e.contains("--"), "{e}");
    ok(call(
        &c,
        "learn",
        json!({"name": "deploy", "content": "# Deploy\nRun the checks first."}),
    )
    .await);
    let e = err(call(
        &c,
        "learn",
        json!({"name": "deploy", "content": "# Deploy\nSomething else entirely."}),
    )
    .await);
    assert!(e.contains("pass replace: true"), "{e}");
    assert!(!e.contains("--replace"), "{e}");
    let e = err(call(&c, "learn", json!({"action": "show", "name": "nope"})).await);
    assert!(e.contains("Use action: list to see yours."), "{e}");
    assert!(!e.contains("memdir skill list"), "{e}");
    c.cancel().await.unwrap();
}

/// A bad argument answers, as a tool error, in the seed's words: a missing
/// field is `FIELD is required for ACTION`, an unknown action or value
/// names the allowed ones.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bad_argument_answers_in_the_seed_s_words() {
    let s = Sandbox::new();
    let c = start(&s, &["--owner", "agt_args"], &[]).await;
    let memory_actions = "recall, remember, search_runs, get_run, save, day, list, archive, \
                          unarchive, resolve, veto, recall_facts, propose, learnings, pending, \
                          approve_pending, reject_pending";
    let cases: &[(&'static str, Value, String)] = &[
        (
            "memory",
            json!({"action": "remember"}),
            "content is required for remember".into(),
        ),
        (
            "memory",
            json!({"action": "search_runs"}),
            "query is required for search_runs".into(),
        ),
        (
            "memory",
            json!({"action": "search_runs", "query": " "}),
            "query is required for search_runs".into(),
        ),
        (
            "memory",
            json!({"action": "get_run"}),
            "run_id is required for get_run".into(),
        ),
        (
            "memory",
            json!({"action": "save"}),
            "content is required for save".into(),
        ),
        (
            "memory",
            json!({"action": "day"}),
            "content is required for day".into(),
        ),
        (
            "memory",
            json!({"action": "archive", "id": "mem_0123456789ab"}),
            "reason is required for archive".into(),
        ),
        (
            "memory",
            json!({"action": "unarchive"}),
            "id is required for unarchive".into(),
        ),
        (
            "memory",
            json!({"action": "veto"}),
            "id is required for veto".into(),
        ),
        ("memory", json!({}), "action is required for memory".into()),
        (
            "memory",
            json!({"action": "update"}),
            format!("action must be one of: {memory_actions}"),
        ),
        (
            "memory",
            json!({"action": "list", "kind": "note"}),
            "kind must be one of: fact, day".into(),
        ),
        (
            "memory",
            json!({"action": "list", "status": "gone"}),
            "status must be one of: active, archived".into(),
        ),
        (
            "memory",
            json!({"action": "remember", "target": "team", "content": "x"}),
            "target must be one of: memory, user".into(),
        ),
        (
            "memory",
            json!({"action": "remember", "operation": "edit"}),
            "operation must be one of: add, replace, remove, read".into(),
        ),
        (
            "get_result",
            json!({}),
            "workflow_id (or execution_id) is required for get_result".into(),
        ),
        (
            "put_result",
            json!({"task_id": "t", "content": "c"}),
            "workflow_id is required for put_result".into(),
        ),
        (
            "put_result",
            json!({"workflow_id": "w", "content": "c"}),
            "task_id is required for put_result".into(),
        ),
        (
            "learn",
            json!({"name": "x"}),
            "content is required for learn".into(),
        ),
        (
            "learn",
            json!({"content": "# X"}),
            "name is required for learn".into(),
        ),
        (
            "learn",
            json!({"action": "show"}),
            "name is required for show".into(),
        ),
        (
            "learn",
            json!({"action": "forget"}),
            "forget needs name (the skill id from action: list).".into(),
        ),
        (
            "learn",
            json!({"action": "delete"}),
            "action must be one of: learn, list, show, forget".into(),
        ),
    ];
    let mut wrong = Vec::new();
    for (tool, args, want) in cases {
        let (text, is_error) = call(&c, tool, args.clone()).await;
        if !is_error || text != *want {
            wrong.push(format!(
                "{tool} {args}: {text:?} (error {is_error}), not {want:?}"
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    c.cancel().await.unwrap();
}

/// Every write of the `memory` tool answers in one shape: one sentence
/// that starts with what was done, names the memory's id and ends with
/// when recall sees it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_memory_write_answers_in_one_shape() {
    let s = Sandbox::new();
    let c = start(&s, &["--owner", "agt_shape"], &[]).await;
    let id_in = |t: &str| {
        let at = t.find("mem_").expect("an id");
        t[at..at + 16].to_owned()
    };
    let saved = ok(call(
        &c,
        "memory",
        json!({"action": "save", "content": "The build runs on Linux"}),
    )
    .await);
    let fact = id_in(&saved);
    let mut answers = vec![("save", saved)];
    for (name, args) in [
        (
            "remember add",
            json!({"action": "remember", "target": "user", "content": "Prefers tea"}),
        ),
        (
            "remember add again",
            json!({"action": "remember", "target": "user", "content": "Prefers tea"}),
        ),
        (
            "remember replace",
            json!({"action": "remember", "operation": "replace", "old_text": "tea", "content": "Prefers green tea"}),
        ),
        (
            "remember remove",
            json!({"action": "remember", "operation": "remove", "old_text": "green tea"}),
        ),
        (
            "day",
            json!({"action": "day", "content": "Looked at the build"}),
        ),
        (
            "archive",
            json!({"action": "archive", "id": fact, "reason": "moved to CI"}),
        ),
        ("unarchive", json!({"action": "unarchive", "id": fact})),
    ] {
        answers.push((name, ok(call(&c, "memory", args).await)));
    }
    // A veto is a person's: asked on a person's server.
    let person = start(&s, &["--person", "pat", "--agent", "agt_shape"], &[]).await;
    let veto = json!({"action": "veto", "id": fact, "reason": "not true"});
    answers.push(("veto", ok(call(&person, "memory", veto).await)));
    person.cancel().await.unwrap();
    let verbs = [
        "Saved ",
        "Already stored ",
        "Replaced ",
        "Removed ",
        "Archived ",
        "Unarchived ",
        "Vetoed ",
    ];
    let mut wrong = Vec::new();
    for (name, a) in &answers {
        let first = a.lines().next().unwrap_or("");
        let shaped = verbs.iter().any(|v| first.starts_with(v))
            && first.contains("mem_")
            && first.ends_with('.')
            && (first.contains("; recall ") || first.contains("; the next run "))
            && a.lines()
                .skip(1)
                .all(|l| l.starts_with("warning: ") || l.starts_with("archived "));
        if !shaped {
            wrong.push(format!("{name}: {a:?}"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    c.cancel().await.unwrap();
}
