//! The separated deployment (docs/SECURITY.md): the root and the
//! configuration belong to the user `memdir serve` runs as (root here, in
//! folders of mode 0700); the agent runs as another uid (65534, through
//! `setpriv`) and reaches memory only with its key, over `--url` on the
//! command line and through `memdir mcp --url`, a real MCP client driving
//! the proxy. It adds and recalls its own memory; every person's action is
//! refused, on both; it opens no file of the root or the configuration;
//! and no file of either changes from the refused attempts.

use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::transport::TokioChildProcess;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use crate::http::{make_key, serve};
use crate::util::{BIN, Run, Sandbox, config_dir, not_run, run_cmd};

/// The uid and gid the agent runs as.
const AGENT_UID: u32 = 65534;

/// Whether this process can run another as [`AGENT_UID`]: root, with
/// `setpriv`.
fn can_separate() -> Result<(), &'static str> {
    if !rustix::process::geteuid().is_root() {
        return Err("not root: the agent cannot be run as another uid");
    }
    let setpriv = Command::new("setpriv").arg("--version").output();
    if !setpriv.is_ok_and(|o| o.status.success()) {
        return Err("setpriv is not installed");
    }
    Ok(())
}

/// `program ARGS` as the agent: uid and gid 65534, no supplementary
/// groups, no `MEMDIR_*` variable, in its own home.
fn as_agent(home: &Path, program: &Path, args: &[&str]) -> Command {
    let mut c = Command::new("setpriv");
    c.args(["--reuid=65534", "--regid=65534", "--clear-groups", "--"])
        .arg(program)
        .args(args)
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .env("HOME", home)
        .current_dir(home);
    c
}

/// The agent's home: a folder of its own, with its key file (mode 0600,
/// its own) and the binary where it can run it.
struct Agent {
    home: tempfile::TempDir,
    bin: PathBuf,
    key_file: PathBuf,
    url: String,
}

impl Agent {
    fn new(key: &str, url: &str) -> Agent {
        let home = tempfile::tempdir().unwrap();
        std::os::unix::fs::chown(home.path(), Some(AGENT_UID), Some(AGENT_UID)).unwrap();
        let key_file = home.path().join("memdir.key");
        std::fs::write(&key_file, format!("{key}\n")).unwrap();
        std::fs::set_permissions(&key_file, std::fs::Permissions::from_mode(0o600)).unwrap();
        std::os::unix::fs::chown(&key_file, Some(AGENT_UID), Some(AGENT_UID)).unwrap();
        // The test binary's `memdir` where the agent can run it (a target
        // folder it cannot reach is copied).
        let mut bin = PathBuf::from(BIN);
        let runs = as_agent(home.path(), &bin, &["--version"]).output();
        if !runs.is_ok_and(|o| o.status.success()) {
            let copy = home.path().join("memdir");
            std::fs::copy(&bin, &copy).unwrap();
            std::fs::set_permissions(&copy, std::fs::Permissions::from_mode(0o755)).unwrap();
            bin = copy;
        }
        Agent {
            home,
            bin,
            key_file,
            url: url.to_owned(),
        }
    }

    /// `memdir --url URL --key-file FILE ARGS` as the agent.
    fn remote(&self, args: &[&str]) -> Run {
        let mut all = vec!["--url", &self.url, "--key-file"];
        let key = self.key_file.to_str().unwrap();
        all.push(key);
        all.extend(args);
        run_cmd(as_agent(self.home.path(), &self.bin, &all))
    }

    /// `program ARGS` as the agent: whether it succeeded.
    fn succeeds(&self, program: &Path, args: &[&str]) -> bool {
        as_agent(self.home.path(), program, args)
            .output()
            .is_ok_and(|o| o.status.success())
    }
}

/// Every file under `dirs`, by path, with its SHA-256 (a keys file's
/// `last_used` stamps left out: the server notes a key's use, refused
/// or not, and that is no change an attempt makes to memory or access).
fn hashes(dirs: &[&Path]) -> BTreeMap<PathBuf, String> {
    let mut out = BTreeMap::new();
    let mut stack: Vec<PathBuf> = dirs.iter().map(|d| d.to_path_buf()).collect();
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            let t = e.file_type().unwrap();
            if t.is_dir() {
                stack.push(p);
            } else if t.is_file() {
                let bytes = std::fs::read(&p).unwrap();
                let bytes = if p.file_name().is_some_and(|n| n == "keys.yaml") {
                    String::from_utf8_lossy(&bytes)
                        .lines()
                        .filter(|l| !l.trim_start().starts_with("last_used:"))
                        .collect::<Vec<_>>()
                        .join("\n")
                        .into_bytes()
                } else {
                    bytes
                };
                out.insert(p, hex::encode(Sha256::digest(&bytes)));
            }
        }
    }
    out
}

/// The error code of a refused `--json` command, checking it failed.
#[track_caller]
fn refused(r: &Run) -> String {
    assert!(!r.success(), "not refused: {r:?}");
    let v: Value = serde_json::from_str(r.text().trim()).unwrap_or_else(|e| panic!("{e}: {r:?}"));
    v["error"]["code"].as_str().unwrap_or_default().to_owned()
}

/// The agent kept apart adds and recalls its own memory through the
/// server and cannot act as a person, open the files, or change any.
#[test]
fn separated_an_agent_of_another_uid_reaches_only_its_own_memory_through_its_key() {
    if let Err(why) = can_separate() {
        not_run(why);
        return;
    }
    let s = Sandbox::new();
    for d in [s.dir.path(), config_dir()] {
        std::fs::set_permissions(d, std::fs::Permissions::from_mode(0o700)).unwrap();
    }
    let key = make_key(&s, &["--owner", "a"]);
    make_key(&s, &["--owner", "b"]);
    let server = serve(&s, &[]);
    let agent = Agent::new(&key, &server.base);

    // Its own memory, through the server.
    agent
        .remote(&["--json", "add", "the build uses cargo nextest"])
        .ok();
    let shown = agent.remote(&["show"]).ok().text();
    assert!(shown.contains("the build uses cargo nextest"), "{shown}");
    let recalled = agent
        .remote(&["--json", "recall", "--query", "cargo nextest"])
        .ok()
        .text();
    assert!(recalled.contains("cargo nextest"), "{recalled}");
    let fact = s.run(&["--owner", "a", "--json", "show"]).ok().json();
    let fact_id = fact.to_string();
    let fact_id = fact_id
        .split('"')
        .find(|w| w.starts_with("mem_"))
        .expect("a fact id")
        .to_owned();
    let proposed = agent
        .remote(&["--json", "propose", "every agent runs the linter first"])
        .ok()
        .json();
    let learning = proposed["learning"]["id"].as_str().unwrap().to_owned();
    // The key names the owner: another agent's memory is refused.
    let other = agent.remote(&["--json", "--owner", "b", "add", "posing as b"]);
    assert_eq!(refused(&other), "memory_not_own");

    // MCP through the proxy: the agent's tools, its own memory.
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let key_file = agent.key_file.to_str().unwrap().to_owned();
    let proxy_args = ["--url", &agent.url, "--key-file", &key_file, "mcp"];
    let (tools, local_tools) = rt.block_on(async {
        let cmd = as_agent(agent.home.path(), &agent.bin, &proxy_args);
        let (transport, _) = TokioChildProcess::builder(tokio::process::Command::from(cmd))
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let c = ().serve(transport).await.expect("initialize the proxy");
        let tools = c.list_all_tools().await.unwrap();
        let remembered = crate::mcp::call(
            &c,
            "memory",
            json!({"action": "remember", "content": "deploys go out on tuesdays"}),
        )
        .await;
        assert!(!remembered.1, "{remembered:?}");
        let recall = crate::mcp::call(&c, "memory", json!({"action": "recall"})).await;
        assert!(
            recall.0.contains("deploys go out on tuesdays"),
            "{recall:?}"
        );
        let _ = c.cancel().await;
        let local = crate::mcp::start(&s, &["--owner", "a"], &[]).await;
        let local_tools = local.list_all_tools().await.unwrap();
        let _ = local.cancel().await;
        (tools, local_tools)
    });
    let by_name = |tools: &[rmcp::model::Tool]| -> BTreeMap<String, Value> {
        tools
            .iter()
            .map(|t| (t.name.to_string(), serde_json::to_value(t).unwrap()))
            .collect()
    };
    assert_eq!(
        by_name(&tools),
        by_name(&local_tools),
        "the proxy lists the agent's tools"
    );

    // The recall above is counted behind (the server writes its counts at
    // most a second later): they are in before the files are compared.
    let stats = s.root.join("a/.memdir/stats.json");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while !stats.exists() {
        assert!(
            std::time::Instant::now() < deadline,
            "the recall's counts were never written"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    // Every person's action refused, and no file changed by the attempts.
    let dirs = [s.dir.path(), config_dir()];
    let before = hashes(&dirs);
    let cli_refusals: [&[&str]; 5] = [
        &["--json", "learnings", "approve", &learning],
        &["--json", "learnings", "reject", &learning, "--reason", "no"],
        &["--json", "learnings", "retire", &learning],
        &["--json", "veto", &fact_id, "--reason", "no"],
        &["--json", "ui"],
    ];
    for args in cli_refusals {
        let r = agent.remote(args);
        let code = refused(&r);
        assert!(
            ["person_only", "memory_veto_human_only"].contains(&code.as_str()),
            "{args:?}: {r:?}"
        );
    }
    // Raw text and keys are not sent at all.
    assert_eq!(
        refused(&agent.remote(&["--json", "--raw", "show"])),
        "usage"
    );
    assert_eq!(
        refused(&agent.remote(&["--json", "key", "create"])),
        "usage"
    );
    rt.block_on(async {
        let cmd = as_agent(agent.home.path(), &agent.bin, &proxy_args);
        let (transport, _) = TokioChildProcess::builder(tokio::process::Command::from(cmd))
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let c = ().serve(transport).await.expect("initialize the proxy");
        let veto = json!({"action": "veto", "id": fact_id, "reason": "no"});
        let (text, error) = crate::mcp::call(&c, "memory", veto).await;
        assert!(error, "veto: {text}");
        let unknown = c.call_tool(CallToolRequestParams::new("approve")).await;
        assert!(unknown.is_err(), "{unknown:?}");
        let _ = c.cancel().await;
    });
    files_out_of_reach(&agent, &s, &learning);
    let memory = s.root.join("a/MEMORY.md");
    let after = hashes(&dirs);
    assert_eq!(before, after, "a refused attempt changed a file");
    // What the agent did do is there, in its own memory only.
    let mem = std::fs::read_to_string(&memory).unwrap();
    assert!(
        mem.contains("cargo nextest") && mem.contains("tuesdays"),
        "{mem}"
    );
    assert!(!s.root.join("b/MEMORY.md").exists());
    assert!(!s.root.join("LEARNINGS.md").exists());
}

/// An agent's key file without `--url` is no person's word; `--url`
/// without a key file is refused before anything is sent; a key file
/// others may read is refused before it is sent.
#[test]
fn separated_key_files_name_their_role() {
    let s = Sandbox::new();
    let key = make_key(&s, &["--owner", "a"]);
    let file = s.dir.path().join("agent.key");
    std::fs::write(&file, &key).unwrap();
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).unwrap();
    let file = file.to_str().unwrap();
    let e = s
        .run(&[
            "--json",
            "--key-file",
            file,
            "learnings",
            "approve",
            "lrn_0",
        ])
        .json_error("person_unconfirmed");
    assert_eq!(e["why"], "key_refused", "{e}");
    let r = s.run(&["--json", "--url", "http://127.0.0.1:9", "show"]);
    assert_eq!(refused(&r), "usage");
    std::fs::set_permissions(file, std::fs::Permissions::from_mode(0o644)).unwrap();
    let r = s.run(&[
        "--json",
        "--url",
        "http://127.0.0.1:9",
        "--key-file",
        file,
        "show",
    ]);
    assert_eq!(refused(&r), "invalid_config");
}

/// The root and the configuration, out of the agent's reach: it cannot
/// read a memory file, list the configuration, run memdir on the root,
/// make a key, or act as a person with its own key file.
fn files_out_of_reach(agent: &Agent, s: &Sandbox, learning: &str) {
    let key_file = agent.key_file.to_str().unwrap();
    let memory = s.root.join("a/MEMORY.md");
    assert!(memory.exists());
    let cat = Path::new("/bin/cat");
    assert!(!agent.succeeds(cat, &[memory.to_str().unwrap()]));
    assert!(!agent.succeeds(Path::new("/bin/ls"), &[config_dir().to_str().unwrap()]));
    let root = s.root.to_str().unwrap();
    assert!(!agent.succeeds(&agent.bin, &["--root", root, "--owner", "a", "show"]));
    let keys = crate::http::keys_file(s);
    let keys = keys.to_str().unwrap();
    assert!(!agent.succeeds(
        &agent.bin,
        &["--owner", "a", "key", "create", "--keys", keys]
    ));
    assert!(!agent.succeeds(
        &agent.bin,
        &[
            "--root",
            root,
            "--person",
            "ann",
            "--key-file",
            key_file,
            "learnings",
            "approve",
            learning
        ],
    ));
}
