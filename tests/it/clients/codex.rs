//! memdir's MCP server in the real Codex (`codex exec`), configured with
//! the `[mcp_servers.memdir]` block docs/INTEGRATIONS.md shows, against
//! the Responses API stub.

use serde_json::Value;

use super::openai::{self, CALL_ID, Responses};
use super::stub::Stub;
use crate::util::{BIN, Sandbox, config_dir};

/// The namespace Codex sends an MCP server's tools in: `mcp__` and the
/// server's name in config.toml.
const NAMESPACE: &str = "mcp__memdir";

/// docs/INTEGRATIONS.md's Codex block with this build's binary for
/// `memdir` and the sandbox's root for the documented one; and the owner
/// it names.
fn documented_block(s: &Sandbox) -> (String, String) {
    let block = super::doc_block("docs/INTEGRATIONS.md", "## Codex", "toml");
    for needed in [
        "[mcp_servers.memdir]",
        "command = \"memdir\"",
        "\"~/memory\"",
    ] {
        assert!(
            block.contains(needed),
            "the Codex block lacks {needed}:\n{block}"
        );
    }
    let owner = block
        .split("\"--owner\", \"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .expect("the documented args name an owner")
        .to_owned();
    let block = block
        .replace("command = \"memdir\"", &format!("command = {:?}", BIN))
        .replace("\"~/memory\"", &format!("{:?}", s.root.to_string_lossy()));
    (block, owner)
}

/// The first request's function parameters of each of `listed` (in the
/// namespace `mcp__memdir`) compared with memdir's own schemas.
fn tool_problems(bodies: &[Value], listed: &[(String, Value)]) -> Vec<String> {
    let Some(first) = bodies
        .iter()
        .find(|b| openai::function(b, NAMESPACE, "memory").is_some())
    else {
        return vec![format!("no request to the model lists {NAMESPACE}.memory")];
    };
    let mut problems = Vec::new();
    for (name, schema) in listed {
        let sent = format!("{NAMESPACE}.{name}");
        match openai::function(first, NAMESPACE, name) {
            None => problems.push(format!("{sent} did not reach the model")),
            Some(f) => problems.extend(super::schema_differences(&sent, schema, &f["parameters"])),
        }
    }
    problems
}

/// Codex sends memdir's tools to the model exactly as memdir lists them
/// (a 400 from the stub, as from the provider, for a schema it refuses),
/// logs no error for memdir, and the model's `remember` of a user fact
/// lands in the owner's USER.md and comes back as the call's output.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn codex_gets_memdirs_tools_intact_and_remembers_a_user_fact() {
    const TEST: &str = "clients::codex::codex_gets_memdirs_tools_intact_and_remembers_a_user_fact";
    let Some(codex) = super::codex(TEST) else {
        return;
    };
    let s = Sandbox::new();
    let home = s.dir.path().join("codex-home");
    let work = s.dir.path().join("work");
    for d in [&home, &work] {
        std::fs::create_dir_all(d).expect("create a folder");
    }
    let (block, owner) = documented_block(&s);
    let listed = super::memdir_tools(&s, &owner).await;
    let stub = Stub::start(Responses::new(NAMESPACE, "memory", super::remember())).await;
    // The provider is the stub; the model a name Codex has no metadata for,
    // so it sends MCP tools up front rather than behind its tool search;
    // nothing else on the network (no update check, analytics or plugin
    // sync). Then the documented block, as written.
    let config = format!(
        "model = \"memdir-stub\"\nmodel_provider = \"memdir_stub\"\n\
         check_for_update_on_startup = false\n\n\
         [model_providers.memdir_stub]\nname = \"memdir's test stub\"\n\
         base_url = \"{}/v1\"\nwire_api = \"responses\"\nenv_key = \"MEMDIR_STUB_API_KEY\"\n\n\
         [analytics]\nenabled = false\n\n[features]\nplugins = false\n\n{block}",
        stub.base
    );
    std::fs::write(home.join("config.toml"), config).expect("write config.toml");

    let mut cmd = tokio::process::Command::new(&codex);
    cmd.env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", &home)
        .env("CODEX_HOME", &home)
        .env("MEMDIR_STUB_API_KEY", "sk-memdir-test")
        .env("MEMDIR_CONFIG_DIR", config_dir())
        .current_dir(&work)
        .args([
            "exec",
            "--skip-git-repo-check",
            "Remember that I prefer answers in French.",
        ]);
    let out = super::run(cmd, "Codex").await;

    let bodies: Vec<Value> = stub
        .requests_to("/v1/responses")
        .into_iter()
        .map(|r| r.body)
        .collect();
    let mut problems = Vec::new();
    if out.code != Some(0) {
        problems.push(format!("codex exited with {:?}", out.code));
    }
    if !out.stdout.contains(openai::FINAL_TEXT) {
        problems.push("codex did not print the model's final text".into());
    }
    problems.extend(
        stub.requests()
            .iter()
            .filter(|r| r.status != 200)
            .map(|r| format!("the stub answered {} to {}", r.status, r.path)),
    );
    match bodies.iter().find_map(|b| openai::output(b, CALL_ID)) {
        None => problems.push("no request carries the scripted call's output".into()),
        Some(o) => {
            let text = super::content_text(&o["output"]);
            if !text.contains("Saved to your user profile (USER.md)") || text.contains("error[") {
                problems.push(format!(
                    "the call's output is not memdir's saved answer: {text:?}"
                ));
            }
        }
    }
    problems.extend(
        out.stderr
            .lines()
            .filter(|l| l.contains("ERROR") && l.to_lowercase().contains("memdir"))
            .map(|l| format!("Codex logged: {l}")),
    );
    let user = s.read_or_empty(&owner, "USER.md");
    if !crate::util::strip_meta(&user).contains(&format!("- {}", super::FACT)) {
        problems.push(format!("{owner}/USER.md does not hold the fact: {user:?}"));
    }
    problems.extend(tool_problems(&bodies, &listed));
    super::assert_none(
        &problems,
        &format!(
            "the stub saw:\n{}\nstdout: {}\nstderr: {}",
            stub.summary(),
            out.stdout,
            out.stderr
        ),
    );
}
