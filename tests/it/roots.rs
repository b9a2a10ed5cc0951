//! Nothing created by a read or a typo: a person naming an agent the root
//! does not hold (`owner_not_found` on every surface, nothing written), an
//! agent's own reads before its first write (the seeds' empty answers,
//! nothing written) and its first write (its folder), the root's own names
//! refused as owner ids, `~/` in `--root`, the servers refusing a missing
//! root, and a refused setting in the root's `memdir.yaml` that stops writes
//! but not reads. The real binary, a real server, real files.

use std::io::{BufRead, BufReader};
use std::process::Stdio;

use serde_json::{Value, json};

use crate::http::{make_key, serve};
use crate::mcp::{call, start};
use crate::util::{Sandbox, run_cmd, tree};

/// The error object of an HTTP answer, checked: `code` and `status`.
#[track_caller]
fn http_error(a: &crate::http::Answer, code: &str, status: u16) -> Value {
    assert_eq!(a.status, status, "{a:?}");
    let v = a.json();
    assert_eq!(v["error"]["code"], code, "{a:?}");
    v["error"].clone()
}

#[test]
fn a_persons_reads_and_writes_of_a_missing_agent_are_owner_not_found_and_create_nothing() {
    let s = Sandbox::new();
    s.run_as("agt_real", &["add", "Staging needs the VPN"]).ok();
    let person = make_key(&s, &["--person", "alice"]);
    // No review pass: it writes agt_real's derived files meanwhile.
    let srv = serve(&s, &["--review-every", "0"]);
    let before = tree(&s.root);
    for path in [
        "/v1/memory/recall?agentId=agt_nobody",
        "/api/v1/memories?agentId=agt_nobody",
        "/v1/snapshot?agentId=agt_nobody",
        "/v1/workflows/results/wf1/t1?agentId=agt_nobody",
    ] {
        let e = http_error(&srv.get(Some(&person), path), "owner_not_found", 404);
        assert_eq!(e["owner"], "agt_nobody", "{path}: {e}");
    }
    // A typo in a write's `agentId` is no new agent.
    let a = srv.post(
        Some(&person),
        "/api/v1/memories",
        json!({"text": "Deploys run on Fridays", "agentId": "agt_nobody"}),
    );
    http_error(&a, "owner_not_found", 404);
    let a = srv.post(
        Some(&person),
        "/v1/memory/remember",
        json!({"text": "Deploys run on Fridays", "agentId": "agt_nobody"}),
    );
    http_error(&a, "owner_not_found", 404);
    assert_eq!(tree(&s.root), before, "a read or a typo wrote something");
    // The agent that is there still answers.
    let a = srv.get(Some(&person), "/api/v1/memories?agentId=agt_real");
    assert_eq!(a.status, 200, "{a:?}");
    // And the command line lists no new owner.
    let rows = s.json_ok(&["--person", "alice", "list"]);
    assert!(!rows.to_string().contains("agt_nobody"), "{rows}");
    // The command line's person write is refused the same way.
    let e = s.json_fail(
        &[
            "--person",
            "alice",
            "--agent",
            "agt_nobody",
            "add",
            "A fact",
        ],
        "owner_not_found",
        404,
    );
    assert_eq!(e["owner"], "agt_nobody");
    // Nothing of agt_nobody anywhere (agt_real's list may refresh its own
    // derived files).
    assert!(
        tree(&s.root).iter().all(|p| !p.starts_with("agt_nobody")),
        "{:?}",
        tree(&s.root)
    );
}

#[test]
fn an_agents_own_first_write_creates_its_folder_and_its_reads_before_create_nothing() {
    let s = Sandbox::new();
    let agent = make_key(&s, &["--owner", "agt_new"]);
    let srv = serve(&s, &[]);
    for path in ["/v1/memory/recall", "/api/v1/memories", "/v1/snapshot"] {
        let a = srv.get(Some(&agent), path);
        assert_eq!(a.status, 200, "{path}: {a:?}");
    }
    let a = srv.post(
        Some(&agent),
        "/api/v1/memories/recall",
        json!({"query": "staging"}),
    );
    assert_eq!(a.status, 200, "{a:?}");
    assert_eq!(tree(&s.root), Vec::<String>::new(), "a read wrote");
    let a = srv.post(
        Some(&agent),
        "/api/v1/memories",
        json!({"text": "Staging needs the VPN"}),
    );
    assert_eq!(a.status, 201, "{a:?}");
    assert!(s.path("agt_new", "MEMORY.md").is_file());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agents_mcp_recall_before_its_first_write_is_the_seeds_empty_answer() {
    let s = Sandbox::new();
    let c = start(&s, &["--owner", "agt_mcp"], &[]).await;
    let (text, is_error) = call(&c, "memory", json!({"action": "recall"})).await;
    assert!(!is_error, "{text}");
    assert_eq!(text.trim(), "No memory recorded yet.");
    let (text, is_error) = call(&c, "memory", json!({"action": "list"})).await;
    assert!(!is_error, "{text}");
    c.cancel().await.expect("stop the client");
    assert_eq!(tree(&s.root), Vec::<String>::new(), "a read wrote");
}

#[test]
fn a_wait_on_a_new_workflow_creates_no_folder() {
    let s = Sandbox::new();
    s.run_as("agt_w", &["add", "Staging needs the VPN"]).ok();
    s.run_as(
        "agt_w",
        &["--json", "result", "wait", "wf9", "t1", "--timeout", "0.2"],
    )
    .json_error("result_not_found");
    assert!(!s.path("agt_w", "results").exists(), "{:?}", tree(&s.root));
    // For an owner without a folder, the wait is refused first.
    let before = tree(&s.root);
    s.run_as(
        "agt_none",
        &["--json", "result", "wait", "wf9", "t1", "--timeout", "0.2"],
    )
    .json_error("owner_not_found");
    assert_eq!(tree(&s.root), before);
}

#[test]
fn owner_ids_that_are_the_roots_own_names_are_invalid_and_create_nothing() {
    let s = Sandbox::new();
    s.run(&["init"]).ok();
    let before = tree(&s.root);
    let reserved = memdir::internals::model::RESERVED_ROOT_NAMES;
    let mut names: Vec<String> = Vec::new();
    for n in reserved {
        names.push(n.to_owned());
        names.push(n.to_uppercase());
    }
    names.push(".x".into());
    for name in &names {
        let e = s.json_fail(
            &["--owner", name, "add", "Staging needs the VPN"],
            "invalid_id",
            400,
        );
        assert_eq!(e["value"], name.as_str(), "{e}");
    }
    // A person naming one as the agent: refused the same way.
    s.json_fail(
        &["--person", "alice", "--agent", "Memdir.yaml", "show"],
        "invalid_id",
        400,
    );
    assert_eq!(tree(&s.root), before, "a reserved id wrote");
    // Every other owner still works.
    s.run_as("agt_ok", &["add", "Staging needs the VPN"]).ok();
}

#[test]
fn a_root_starting_with_tilde_is_under_home_and_tilde_user_is_refused() {
    let s = Sandbox::rootless();
    let home = s.dir.path().join("home");
    std::fs::create_dir(&home).unwrap();
    let run = |args: &[&str]| {
        let mut c = s.bare();
        c.env("HOME", &home).args(args);
        run_cmd(c)
    };
    run(&["--root", "~/mem", "init"]).ok();
    run(&[
        "--root",
        "~/mem",
        "--owner",
        "agt_t",
        "add",
        "Staging needs the VPN",
    ])
    .ok();
    assert!(home.join("mem/agt_t/MEMORY.md").is_file());
    assert!(!s.dir.path().join("~").exists(), "a folder named ~");
    let err = run(&["--root", "~bob/mem", "init"]).usage_error();
    assert!(err.contains("~user"), "{err}");
    assert!(!s.dir.path().join("~bob").exists());
}

#[test]
fn the_servers_refuse_a_missing_root_and_name_the_root_they_start_on() {
    let s = Sandbox::rootless();
    let keys = s.dir.path().join("keys.yaml");
    let k = keys.to_str().unwrap();
    let missing = s.root.to_str().unwrap();
    let e = s
        .run(&["serve", "--listen", "127.0.0.1:0", "--keys", k])
        .text_error("root_not_found");
    assert!(
        e.contains(missing) && e.contains("memdir --root") && e.contains("init"),
        "{e}"
    );
    let e = s
        .run(&["--owner", "agt_m", "mcp"])
        .text_error("root_not_found");
    assert!(e.contains(missing) && e.contains("init"), "{e}");
    // `~/memory` as an MCP client passes it (no shell): $HOME's, never
    // a folder named `~` under the working folder.
    let home = s.dir.path().join("home");
    std::fs::create_dir(&home).unwrap();
    let mut c = s.bare();
    c.env("HOME", &home)
        .args(["--root", "~/memory", "--owner", "agt_m", "mcp"]);
    let e = run_cmd(c).text_error("root_not_found");
    assert!(e.contains(home.join("memory").to_str().unwrap()), "{e}");
    assert!(!s.dir.path().join("~").exists());
    assert!(!s.root.exists());
    // On a root that exists, each says which, first (`mcp` when asked for
    // its log: by default it is silent on standard error).
    std::fs::create_dir(home.join("memory")).unwrap();
    let mut c = s.bare();
    c.env("HOME", &home)
        .args([
            "--root", "~/memory", "--owner", "agt_m", "mcp", "--log", "info",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    let mut child = c.spawn().expect("spawn memdir mcp");
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let first = lines.next().expect("a line").unwrap();
    assert_eq!(
        first,
        format!("memdir mcp: root {}", home.join("memory").display())
    );
    let _ = child.kill();
    let _ = child.wait();
    std::fs::create_dir(&s.root).unwrap();
    let mut c = s.cmd(&["serve", "--listen", "127.0.0.1:0", "--keys", k]);
    c.stdout(Stdio::null()).stderr(Stdio::piped());
    let mut child = c.spawn().expect("spawn memdir serve");
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let first = lines.next().expect("a line").unwrap();
    let _ = child.kill();
    let _ = child.wait();
    assert_eq!(first, format!("memdir serve: root {missing}"));
}

#[test]
fn a_machine_only_key_in_the_roots_settings_stops_writes_not_reads() {
    let s = Sandbox::new();
    s.run_as("agt_s", &["add", "Staging needs the VPN"]).ok();
    std::fs::write(s.root.join("memdir.yaml"), "persons:\n  - mallory\n").unwrap();
    let e = s.json_fail(
        &["--owner", "agt_s", "add", "Deploys run on Fridays"],
        "invalid_config",
        422,
    );
    assert!(e["message"].as_str().unwrap().contains("`persons`"), "{e}");
    let show = s.json_ok(&["--owner", "agt_s", "show"]);
    assert!(show.to_string().contains("Staging needs the VPN"), "{show}");
    assert!(show.to_string().contains("`persons`"), "{show}");
    let rows = s.json_ok(&["--owner", "agt_s", "list"]);
    assert!(rows.to_string().contains("Staging needs the VPN"), "{rows}");
    s.json_ok(&["--owner", "agt_s", "recall", "--query", "staging"]);
    let check = s.run(&["--json", "check"]);
    assert_eq!(check.code, 1, "{check:?}");
    assert!(check.text().contains("`persons`"), "{check:?}");
}

/// The other owners' names are a person's to read, never an agent's: on
/// MCP and HTTP an agent whose folder does not exist yet gets the seeds'
/// answers (or an error about what it named), none naming another owner
/// the root holds; a person naming an agent the root does not hold gets
/// `owner_not_found` with the root's owners, on MCP and HTTP alike.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_a_persons_owner_not_found_names_the_roots_owners() {
    let s = Sandbox::new();
    s.run_as("agt_alpha", &["add", "Staging needs the VPN"])
        .ok();
    s.run_as("agt_beta", &["add", "Deploys run on Fridays"])
        .ok();
    let told = |text: &str| text.contains("agt_alpha") || text.contains("agt_beta");
    // MCP: an agent's server of an owner the root does not hold.
    let c = start(&s, &["--owner", "agt_alpah"], &[]).await;
    let calls = [
        ("memory", json!({"action": "recall"})),
        ("memory", json!({"action": "list"})),
        ("memory", json!({"action": "get_run", "run_id": "run-1"})),
        ("get_result", json!({"workflow_id": "wf", "task_id": "t"})),
        ("learn", json!({"action": "show", "name": "nothing"})),
    ];
    for (tool, args) in calls {
        let (text, _) = call(&c, tool, args.clone()).await;
        assert!(!told(&text), "{tool} {args}: {text}");
        assert!(!text.contains("owner_not_found"), "{tool} {args}: {text}");
    }
    c.cancel().await.expect("stop the client");
    assert!(!s.owner_dir("agt_alpah").exists(), "a read created nothing");
    // MCP: a person's server naming an agent the root does not hold.
    let c = start(&s, &["--person", "ann"], &[]).await;
    let (text, is_error) = call(
        &c,
        "memory",
        json!({"action": "list", "agentId": "agt_betta"}),
    )
    .await;
    assert!(is_error, "{text}");
    assert!(text.starts_with("error[owner_not_found]"), "{text}");
    assert!(text.contains("agt_alpha, agt_beta"), "{text}");
    c.cancel().await.expect("stop the client");
    // HTTP: an agent's key of an owner the root does not hold, and a
    // person's key naming it.
    let agent = make_key(&s, &["--owner", "agt_alpah"]);
    let person = make_key(&s, &["--person", "ann"]);
    let srv = serve(&s, &["--review-every", "0"]);
    for path in [
        "/v1/memory/recall",
        "/api/v1/memories",
        "/v1/snapshot",
        "/v1/workflows/results/wf/t",
        "/v1/skills/nothing",
        "/api/v1/reviews/history",
    ] {
        let a = srv.get(Some(&agent), path);
        assert!(!told(&a.body), "{path}: {a:?}");
        assert!(!a.body.contains("owner_not_found"), "{path}: {a:?}");
        let e = http_error(
            &srv.get(Some(&person), &format!("{path}?agentId=agt_betta")),
            "owner_not_found",
            404,
        );
        assert_eq!(e["owners"], json!(["agt_alpha", "agt_beta"]), "{path}: {e}");
    }
}
