//! The Claude Code plugin (`integrations/claude-code/`) in the real Claude
//! Code: installed as docs/INTEGRATIONS.md says (the repository's
//! `integrations/` folder as a local marketplace, `claude plugin install`
//! with the root and owner as options), then a session, its resume and its
//! compaction against the Messages API stub; and the plugin's script alone
//! with its settings from the environment.

use std::path::Path;

use serde_json::Value;

use super::anthropic::{self, Messages};
use super::claude_code::{claude_command, home_and_work, log_problems, messages, result_problems};
use super::stub::Stub;
use crate::util::{BIN, Sandbox, config_dir, strip_meta};

/// The name Claude Code gives the model for the plugin's `memory` tool.
const TOOL: &str = "mcp__plugin_memdir_memdir__memory";

/// The session's id (Claude Code's `--session-id`): every test has a HOME
/// of its own.
const SESSION: &str = "5d0c7a3e-2b41-4f8e-9c6d-1a7e3b9f0c42";

/// A fact the owner's snapshot holds before the session begins.
const TEA: &str = "Takes green tea with breakfast";

/// The first line of the context the plugin gives a session it begins, and
/// of the one it gives again on resume or compaction.
const BEGUN: &str = "frozen when this session began";
const AGAIN: &str = "the same snapshot this session began with";

/// Runs the install commands of docs/INTEGRATIONS.md's plugin section
/// (`claude plugin …`), with the repository's `integrations/` folder and
/// the sandbox's root put in; returns the owner they name.
async fn install(claude: &Path, home: &Path, work: &Path, stub: &Stub, s: &Sandbox) -> String {
    let block = super::doc_block("docs/INTEGRATIONS.md", "### The Claude Code plugin", "sh");
    let integrations = super::repo().join("integrations");
    let mut owner = None;
    let commands: Vec<&str> = block.lines().filter(|l| l.starts_with("claude ")).collect();
    assert!(commands.len() >= 2, "no install commands in:\n{block}");
    for line in commands {
        let mut cmd = claude_command(claude, home, work, stub);
        for word in line.split_whitespace().skip(1) {
            let word = match word {
                "/path/to/memdir/integrations" => integrations.to_string_lossy().into_owned(),
                "root=~/memory" => format!("root={}", s.root.display()),
                w => {
                    if let Some(o) = w.strip_prefix("owner=") {
                        owner = Some(o.to_owned());
                    }
                    w.to_owned()
                }
            };
            cmd.arg(word);
        }
        let out = super::run(cmd, line).await;
        assert_eq!(out.code, Some(0), "{line}:\n{}\n{}", out.stdout, out.stderr);
    }
    owner.expect("the documented install names an owner")
}

/// Every string in a request body (message texts, system blocks, …).
fn strings(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::String(s) => out.push(s.clone()),
        Value::Array(a) => a.iter().for_each(|x| strings(x, out)),
        Value::Object(o) => o.values().for_each(|x| strings(x, out)),
        _ => {}
    }
}

/// Whether a string of `body` holds every one of `parts`.
fn holds(body: &Value, parts: &[&str]) -> bool {
    let mut all = Vec::new();
    strings(body, &mut all);
    all.iter().any(|s| parts.iter().all(|p| s.contains(p)))
}

/// The owner's runs, as `runs list --json` lists them.
fn runs(s: &Sandbox, owner: &str) -> Vec<Value> {
    let v = s.run_as(owner, &["--json", "runs", "list"]).ok().json();
    v["runs"].as_array().cloned().unwrap_or_default()
}

/// Problems of one `claude -p` run: its exit and its log (memdir's MCP
/// server connected, nothing logged as an error for memdir or a hook, the
/// `SessionStart` hook of `source` and the `SessionEnd` hook run and
/// finished with status 0).
fn run_problems(out: &super::Finished, log: &Path, source: &str) -> Vec<String> {
    let log = std::fs::read_to_string(log).unwrap_or_default();
    let mut problems = log_problems(&log, "plugin:memdir:memdir");
    if out.code != Some(0) {
        problems.push(format!("claude exited with {:?}", out.code));
    }
    problems.extend(
        log.lines()
            .filter(|l| {
                let l = l.to_lowercase();
                // memdir's own lines are log_problems'.
                l.contains("[error]") && l.contains("hook") && !l.contains("memdir")
            })
            .map(|l| format!("Claude Code's log: {l}")),
    );
    let ran = format!("Hooks: SessionStart:{source} [");
    let ok = log
        .lines()
        .any(|l| l.contains(&ran) && l.contains("memdir@memdir") && l.contains("status 0"));
    if !ok {
        problems.push(format!(
            "the plugin's SessionStart:{source} hook did not finish with status 0"
        ));
    }
    let ended = log.lines().any(|l| {
        l.contains("SessionEnd:")
            && l.contains("memdir.sh")
            && l.contains("completed with status 0")
    });
    if !ended {
        problems.push("the plugin's SessionEnd hook did not complete with status 0".into());
    }
    problems
}

/// The plugin makes a Claude Code session a memdir run: the session starts
/// with the owner's frozen snapshot, the model's `remember` goes through
/// the plugin's MCP server into the session's run, the session's end
/// finishes the run; a resume gives the same snapshot again and a
/// compaction runs the same hook, neither beginning a run.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_claude_code_plugin_makes_a_session_a_memdir_run() {
    const TEST: &str = "clients::plugin::the_claude_code_plugin_makes_a_session_a_memdir_run";
    let Some(claude) = super::claude(TEST) else {
        return;
    };
    let s = Sandbox::new();
    let (home, work) = home_and_work(&s);
    let stub = Stub::start(Messages::new(TOOL, super::remember())).await;
    let owner = install(&claude, &home, &work, &stub, &s).await;
    s.run_as(&owner, &["add", TEA, "--to", "user"]).ok();
    let listed = super::memdir_tools(&s, &owner).await;
    // memdir is found on PATH, as the documented install leaves it.
    let bin_dir = Path::new(BIN).parent().expect("the binary's folder");
    let path = format!("{}:/usr/local/bin:/usr/bin:/bin", bin_dir.display());
    let session = |args: &[&str], log: &Path| {
        let mut cmd = claude_command(&claude, &home, &work, &stub);
        cmd.env("PATH", &path)
            .arg("-p")
            .args(args)
            .args(["--allowedTools", TOOL, "--debug-file"])
            .arg(log);
        cmd
    };

    // The session: begun as a run, the fact remembered into it, finished.
    let log = s.dir.path().join("session.log");
    let cmd = session(
        &[
            "Remember that I prefer answers in French.",
            "--session-id",
            SESSION,
        ],
        &log,
    );
    let out = super::run(cmd, "Claude Code with the plugin").await;
    let mut problems = run_problems(&out, &log, "startup");
    let bodies = messages(&stub);
    match bodies.first() {
        Some(first) if holds(first, &[BEGUN, TEA]) => {}
        _ => problems.push("the first request to the model lacks the session's snapshot".into()),
    }
    if !out.stdout.contains(anthropic::FINAL_TEXT) {
        problems.push("claude did not print the model's final text".into());
    }
    problems.extend(result_problems(&bodies));
    problems.extend(super::claude_code::tool_problems(
        &bodies,
        "mcp__plugin_memdir_memdir__",
        &listed,
    ));
    let begun = runs(&s, &owner);
    let run_id = begun
        .first()
        .and_then(|r| r["run_id"].as_str())
        .unwrap_or_default()
        .to_owned();
    if begun.len() != 1 || begun[0]["finished_at"].is_null() || begun[0]["session"] != SESSION {
        problems.push(format!(
            "not one finished run of the session after it: {begun:?}"
        ));
    }
    let user = s.read_or_empty(&owner, "USER.md");
    let line = user
        .lines()
        .find(|l| l.contains(super::FACT))
        .unwrap_or_default();
    if run_id.is_empty() || !line.contains(&format!("run={run_id}")) {
        problems.push(format!(
            "the remembered fact is not in the session's run: {user:?}"
        ));
    }

    // Its resume: the same frozen snapshot (without the fact saved since),
    // no new run.
    let before = stub.requests_to("/v1/messages").len();
    let log = s.dir.path().join("resume.log");
    let out = super::run(
        session(&["--resume", SESSION, "What do you know about me?"], &log),
        "Claude Code resumed",
    )
    .await;
    problems.extend(run_problems(&out, &log, "resume"));
    let resumed = messages(&stub);
    match resumed.get(before) {
        Some(first) if holds(first, &[AGAIN, TEA]) && !holds(first, &[AGAIN, super::FACT]) => {}
        _ => problems
            .push("the resumed session's first request lacks the same frozen snapshot".into()),
    }

    // Its compaction: the same hook, no new run.
    let log = s.dir.path().join("compact.log");
    let out = super::run(
        session(&["--resume", SESSION, "/compact"], &log),
        "Claude Code compacting",
    )
    .await;
    problems.extend(run_problems(&out, &log, "compact"));
    let after = runs(&s, &owner);
    if after.len() != 1 {
        problems.push(format!("a resume or compaction began a run: {after:?}"));
    }
    super::assert_none(
        &problems,
        &format!(
            "the stub saw:\n{}\nlast stderr: {}",
            stub.summary(),
            out.stderr
        ),
    );
}

/// The plugin's script with no options: the root and owner from
/// `MEMDIR_ROOT` and `MEMDIR_OWNER`, memdir on `PATH`; `begin` begins the
/// session's run and prints its snapshot, `again` prints the same one and
/// begins none, `finish` finishes it.
#[test]
fn the_plugin_script_takes_its_settings_from_the_environment() {
    let s = Sandbox::new();
    s.run_as("agt_env", &["add", TEA, "--to", "user"]).ok();
    let script = super::repo().join("integrations/claude-code/scripts/memdir.sh");
    let bin_dir = Path::new(BIN).parent().expect("the binary's folder");
    let hook = |what: &str| {
        let mut c = std::process::Command::new("sh");
        c.env_clear()
            .env("PATH", format!("{}:/usr/bin:/bin", bin_dir.display()))
            .env("MEMDIR_ROOT", &s.root)
            .env("MEMDIR_OWNER", "agt_env")
            .env("MEMDIR_CONFIG_DIR", config_dir())
            .env("CLAUDE_CODE_SESSION_ID", SESSION)
            .arg(&script)
            .arg(what);
        crate::util::run_cmd(c).ok()
    };
    let begun = hook("begin").text();
    assert!(
        begun.starts_with("memdir memory of agt_env, frozen when this session began."),
        "{begun}"
    );
    assert!(begun.contains(&format!("- {TEA}")), "{begun}");
    s.run_as("agt_env", &["add", "Works from Lisbon", "--to", "user"])
        .ok();
    let again = hook("again").text();
    assert!(
        again.contains(AGAIN) && again.contains(&format!("- {TEA}")),
        "{again}"
    );
    assert!(
        !again.contains("Lisbon"),
        "not the frozen snapshot: {again}"
    );
    let listed = runs(&s, "agt_env");
    assert_eq!(listed.len(), 1, "{listed:?}");
    assert!(listed[0]["finished_at"].is_null(), "{listed:?}");
    hook("finish");
    let listed = runs(&s, "agt_env");
    assert!(!listed[0]["finished_at"].is_null(), "{listed:?}");
    assert_eq!(listed[0]["session"], SESSION, "{listed:?}");
    // Resumed after its end: the same snapshot, still no new run.
    let resumed = hook("again").text();
    assert!(
        resumed.contains(AGAIN) && !resumed.contains("Lisbon"),
        "{resumed}"
    );
    assert_eq!(runs(&s, "agt_env").len(), 1);
    // The end of a resumed session: its run is finished already, nothing to
    // do, no error.
    let again = hook("finish");
    assert_eq!((again.text(), again.stderr), (String::new(), String::new()));
    let plain = strip_meta(&s.read_text("agt_env", "USER.md"));
    assert!(plain.contains("Works from Lisbon"), "{plain}");
}
