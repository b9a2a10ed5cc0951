//! memdir's MCP server in the real Claude Code (`claude -p`), configured
//! as docs/INTEGRATIONS.md shows it, against the Messages API stub.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::anthropic::{self, Messages, TOOL_USE_ID};
use super::stub::Stub;
use crate::util::{BIN, Sandbox, config_dir};

/// The name Claude Code gives the model for memdir's `memory` tool.
const MEMORY: &str = "mcp__memdir__memory";

/// Claude Code with a temporary HOME, run in `work`, its model API the
/// stub, and nothing else on the network: no updater, no telemetry, no
/// error reports, no nonessential traffic. MCP tools are sent to the model
/// up front (`ENABLE_TOOL_SEARCH=false`), not behind a tool-search step.
pub(crate) fn claude_command(
    claude: &Path,
    home: &Path,
    work: &Path,
    stub: &Stub,
) -> tokio::process::Command {
    let mut c = tokio::process::Command::new(claude);
    c.env_clear()
        .env("PATH", "/usr/local/bin:/usr/bin:/bin")
        .env("HOME", home)
        .env("ANTHROPIC_BASE_URL", &stub.base)
        .env("ANTHROPIC_API_KEY", "sk-ant-memdir-test")
        .env("DISABLE_AUTOUPDATER", "1")
        .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
        .env("DISABLE_TELEMETRY", "1")
        .env("DISABLE_ERROR_REPORTING", "1")
        .env("ENABLE_TOOL_SEARCH", "false")
        .env("MEMDIR_CONFIG_DIR", config_dir())
        .current_dir(work);
    c
}

/// A temporary HOME and working folder inside the sandbox.
pub(crate) fn home_and_work(s: &Sandbox) -> (PathBuf, PathBuf) {
    let home = s.dir.path().join("home");
    let work = s.dir.path().join("work");
    for d in [&home, &work] {
        std::fs::create_dir_all(d).expect("create a folder");
    }
    (home, work)
}

/// docs/INTEGRATIONS.md's Claude Code configuration (the `mcpServers`
/// JSON) with this build's binary for `memdir` and the sandbox's root for
/// the documented one, written to a file for `--mcp-config`; and the owner
/// it names.
fn documented_config(s: &Sandbox) -> (PathBuf, String) {
    let block = super::doc_block("docs/INTEGRATIONS.md", "### memdir's MCP server", "json");
    let mut config: Value = serde_json::from_str(&block)
        .unwrap_or_else(|e| panic!("the documented configuration is not JSON ({e}):\n{block}"));
    let server = &mut config["mcpServers"]["memdir"];
    assert_eq!(server["command"], "memdir", "{block}");
    server["command"] = BIN.into();
    let args = server["args"].as_array_mut().expect("args");
    let root = args
        .iter()
        .position(|a| a == "--root")
        .expect("the documented args name a root");
    args[root + 1] = s.root.to_string_lossy().into_owned().into();
    let owner = args
        .iter()
        .position(|a| a == "--owner")
        .and_then(|i| args[i + 1].as_str())
        .expect("the documented args name an owner")
        .to_owned();
    let path = s.dir.path().join("mcp.json");
    std::fs::write(&path, config.to_string()).expect("write the configuration");
    (path, owner)
}

/// Problems in Claude Code's debug log for memdir: a schema it rewrote
/// ("Normalized input schema") or dropped ("Skipping tool"), an `[ERROR]`
/// line that names memdir; and a log that never shows memdir connected.
pub(crate) fn log_problems(log: &str, server: &str) -> Vec<String> {
    let mut problems: Vec<String> = log
        .lines()
        .filter(|l| {
            l.contains("Normalized input schema")
                || l.contains("Skipping tool")
                || (l.contains("[ERROR]") && l.to_lowercase().contains("memdir"))
        })
        .map(|l| format!("Claude Code's log: {l}"))
        .collect();
    let connected = format!("MCP server \"{server}\": Successfully connected");
    if !log.contains(&connected) {
        problems.push(format!("Claude Code's log never says {connected:?}"));
    }
    problems
}

/// The requests to the Messages API.
pub(crate) fn messages(stub: &Stub) -> Vec<Value> {
    stub.requests_to("/v1/messages")
        .into_iter()
        .map(|r| r.body)
        .collect()
}

/// Problems with how memdir's tools reached the model: the first request
/// that lists them must carry each of `listed` (named `PREFIX<name>`) with
/// every property, type, allowed value and required list memdir gave.
pub(crate) fn tool_problems(
    bodies: &[Value],
    prefix: &str,
    listed: &[(String, Value)],
) -> Vec<String> {
    let memory = format!("{prefix}memory");
    let Some(first) = bodies
        .iter()
        .find(|b| anthropic::tool(b, &memory).is_some())
    else {
        return vec![format!("no request to the model lists {memory}")];
    };
    let mut problems = Vec::new();
    for (name, schema) in listed {
        let sent = format!("{prefix}{name}");
        match anthropic::tool(first, &sent) {
            None => problems.push(format!("{sent} did not reach the model")),
            Some(t) => {
                problems.extend(super::schema_differences(&sent, schema, &t["input_schema"]))
            }
        }
    }
    problems
}

/// Problems with the scripted call's result: the request that carries it
/// must hold a `tool_result` that is not an error and says the fact was
/// saved in the user profile.
pub(crate) fn result_problems(bodies: &[Value]) -> Vec<String> {
    let Some(result) = bodies
        .iter()
        .find_map(|b| anthropic::tool_result(b, TOOL_USE_ID))
    else {
        return vec!["no request carries the tool_result of the scripted call".into()];
    };
    let mut problems = Vec::new();
    if result["is_error"] == true {
        problems.push(format!("the tool_result is an error: {result}"));
    }
    let text = super::content_text(&result["content"]);
    if !text.starts_with("Saved to your user profile (USER.md)") {
        problems.push(format!("the tool_result does not say it saved: {text:?}"));
    }
    problems
}

/// Claude Code lists memdir's tools to the model exactly as memdir lists
/// them (no schema rewritten or skipped, nothing logged as an error), and
/// the model's `remember` of a user fact lands in the owner's USER.md and
/// comes back as a tool result that is not an error.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn claude_code_gets_memdirs_tools_intact_and_remembers_a_user_fact() {
    const TEST: &str =
        "clients::claude_code::claude_code_gets_memdirs_tools_intact_and_remembers_a_user_fact";
    let Some(claude) = super::claude(TEST) else {
        return;
    };
    let s = Sandbox::new();
    let (home, work) = home_and_work(&s);
    let (config, owner) = documented_config(&s);
    let listed = super::memdir_tools(&s, &owner).await;
    let stub = Stub::start(Messages::new(MEMORY, super::remember())).await;
    let log = s.dir.path().join("claude-debug.log");

    let mut cmd = claude_command(&claude, &home, &work, &stub);
    cmd.args(["-p", "Remember that I prefer answers in French."])
        .arg("--mcp-config")
        .arg(&config)
        .args(["--strict-mcp-config", "--allowedTools", MEMORY])
        .arg("--debug-file")
        .arg(&log);
    let out = super::run(cmd, "Claude Code").await;

    let log = std::fs::read_to_string(&log).unwrap_or_default();
    let bodies = messages(&stub);
    let mut problems = Vec::new();
    if out.code != Some(0) {
        problems.push(format!("claude exited with {:?}", out.code));
    }
    if !out.stdout.contains(anthropic::FINAL_TEXT) {
        problems.push("claude did not print the model's final text".into());
    }
    problems.extend(log_problems(&log, "memdir"));
    problems.extend(result_problems(&bodies));
    let user = s.read_or_empty(&owner, "USER.md");
    if !crate::util::strip_meta(&user).contains(&format!("- {}", super::FACT)) {
        problems.push(format!("{owner}/USER.md does not hold the fact: {user:?}"));
    }
    problems.extend(tool_problems(&bodies, "mcp__memdir__", &listed));
    let memdir_lines: Vec<&str> = log.lines().filter(|l| l.contains("memdir")).collect();
    super::assert_none(
        &problems,
        &format!(
            "the stub saw:\n{}\nstdout: {}\nstderr: {}\nClaude Code's log, memdir's lines:\n{}",
            stub.summary(),
            out.stdout,
            out.stderr,
            memdir_lines.join("\n")
        ),
    );
}
