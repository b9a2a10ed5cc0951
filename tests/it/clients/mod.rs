//! memdir driven by the agent clients people really run: Claude Code and
//! Codex, the versions `tests/clients/package-lock.json` pins (installed
//! with `npm ci` in `tests/clients`, or in the folder `MEMDIR_CLIENTS_DIR`
//! names), each run non-interactively against a loopback stub of its model
//! API ([`anthropic`], [`openai`]) that checks the tools as the provider
//! does, plays one scripted tool call and records every request.
//!
//! Each client is configured from the block of docs/INTEGRATIONS.md that
//! tells people how (this build's binary and the test's root put in), so
//! the documentation is what is tested. Without a client a test prints
//! `NOT RUN <test>: …` and returns, unless `MEMDIR_REQUIRE_CLIENTS=1` (as
//! `.ci/run` sets) makes a missing client a failure.

mod anthropic;
mod claude_code;
mod codex;
mod openai;
mod plugin;
mod stub;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::util::Sandbox;

/// The longest one run of a client may take.
const LIMIT: Duration = Duration::from_secs(240);

/// The fact the scripted model asks memdir to remember.
pub(crate) const FACT: &str = "Prefers answers in French";

/// The scripted call's arguments: remember [`FACT`] about the user.
pub(crate) fn remember() -> Value {
    json!({"action": "remember", "target": "user", "content": FACT})
}

/// The repository's top folder.
pub(crate) fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The folder the pinned clients are installed in (`node_modules` inside).
fn clients_dir() -> PathBuf {
    match std::env::var_os("MEMDIR_CLIENTS_DIR") {
        Some(d) if !d.is_empty() => PathBuf::from(d),
        _ => repo().join("tests").join("clients"),
    }
}

/// The client at `node_modules/REL` (`what` names it), or `None` after
/// printing, by the test's name, that `test` did not run and why; under
/// `MEMDIR_REQUIRE_CLIENTS=1` a missing client fails the test.
fn client(test: &str, what: &str, rel: &str) -> Option<PathBuf> {
    let path = clients_dir().join("node_modules").join(rel);
    if path.is_file() {
        return Some(path);
    }
    let why = format!(
        "no {what} at {}; run npm ci in tests/clients",
        path.display()
    );
    assert!(
        std::env::var("MEMDIR_REQUIRE_CLIENTS").as_deref() != Ok("1"),
        "{test}: MEMDIR_REQUIRE_CLIENTS=1 but {why}"
    );
    crate::util::not_run(&why);
    None
}

/// Claude Code's native binary, or `None` (see [`client`]).
pub(crate) fn claude(test: &str) -> Option<PathBuf> {
    client(
        test,
        "Claude Code",
        "@anthropic-ai/claude-code/bin/claude.exe",
    )
}

/// Codex's command (the npm package's launcher, which runs its vendored
/// binary), or `None` (see [`client`]).
pub(crate) fn codex(test: &str) -> Option<PathBuf> {
    client(test, "Codex", ".bin/codex")
}

/// What one run of a client did.
pub(crate) struct Finished {
    /// The exit status (`None` when killed by a signal).
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

/// Runs `cmd` (standard input empty) in a process group of its own, at
/// most [`LIMIT`]: past it the group is killed and the test fails. Prints
/// how long `what` took. Whatever the client left running in its group is
/// ended afterwards.
pub(crate) async fn run(mut cmd: tokio::process::Command, what: &str) -> Finished {
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .kill_on_drop(true);
    let started = Instant::now();
    let child = cmd
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {what}: {e}"));
    let group = child
        .id()
        .and_then(|id| rustix::process::Pid::from_raw(id as i32));
    let end_group = || {
        if let Some(pid) = group {
            let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
        }
    };
    let out = tokio::time::timeout(LIMIT, child.wait_with_output()).await;
    end_group();
    let out = match out {
        Ok(out) => out.unwrap_or_else(|e| panic!("waiting for {what}: {e}")),
        Err(_) => panic!("{what} did not finish within {LIMIT:?}"),
    };
    eprintln!("{what} ran in {:.1} s", started.elapsed().as_secs_f64());
    Finished {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// The first fenced block of language `lang` after the line `heading` of
/// the repository's `file`, as written.
#[track_caller]
pub(crate) fn doc_block(file: &str, heading: &str, lang: &str) -> String {
    let text =
        std::fs::read_to_string(repo().join(file)).unwrap_or_else(|e| panic!("read {file}: {e}"));
    let mut lines = text.lines().skip_while(|l| l.trim_end() != heading).skip(1);
    let fence = format!("```{lang}");
    assert!(
        lines.by_ref().any(|l| l.trim_end() == fence),
        "{file} has no {fence} block after {heading:?}"
    );
    let block: Vec<&str> = lines.take_while(|l| !l.starts_with("```")).collect();
    block.join("\n") + "\n"
}

/// memdir's own tools as its MCP server lists them to a client (the
/// official Rust SDK's client, as `tests/it/mcp.rs` uses it): each name and
/// input schema.
pub(crate) async fn memdir_tools(s: &Sandbox, owner: &str) -> Vec<(String, Value)> {
    let c = crate::mcp::start(s, &["--owner", owner], &[]).await;
    let tools = c.list_all_tools().await.expect("tools/list");
    c.cancel().await.expect("end the MCP client");
    assert!(!tools.is_empty(), "memdir lists no tools");
    tools
        .into_iter()
        .map(|t| (t.name.to_string(), Value::Object((*t.input_schema).clone())))
        .collect()
}

/// What a schema says that a model relies on, one line each: every
/// property (nested ones by their path), its type, its allowed values
/// (`enum` and `const`), each `required` list, and the same inside
/// `items` and the branches of `oneOf` / `anyOf` / `allOf`. Descriptions
/// and `$schema` are left out.
pub(crate) fn schema_facts(schema: &Value) -> BTreeSet<String> {
    fn join(at: &str, name: &str) -> String {
        if at.is_empty() {
            name.to_owned()
        } else {
            format!("{at}.{name}")
        }
    }
    fn walk(v: &Value, at: &str, out: &mut BTreeSet<String>) {
        let here = if at.is_empty() { "(top)" } else { at };
        if let Some(t) = v.get("type") {
            out.insert(format!("{here}: type {t}"));
        }
        for e in v["enum"].as_array().into_iter().flatten() {
            out.insert(format!("{here}: value {e}"));
        }
        if let Some(c) = v.get("const") {
            out.insert(format!("{here}: value {c}"));
        }
        if let Some(r) = v["required"].as_array() {
            let mut r: Vec<String> = r.iter().map(Value::to_string).collect();
            r.sort();
            out.insert(format!("{here}: required [{}]", r.join(", ")));
        }
        for (name, p) in v["properties"].as_object().into_iter().flatten() {
            let path = join(at, name);
            out.insert(format!("{path}: property"));
            walk(p, &path, out);
        }
        if let Some(items) = v.get("items") {
            walk(items, &join(at, "[]"), out);
        }
        for key in ["oneOf", "anyOf", "allOf"] {
            for (i, branch) in v[key].as_array().into_iter().flatten().enumerate() {
                walk(branch, &join(at, &format!("{key}[{i}]")), out);
            }
        }
    }
    let mut out = BTreeSet::new();
    walk(schema, "", &mut out);
    out
}

/// How the schema `tool` reached the model (`sent`) differs from memdir's
/// own (`listed`): what was lost and what was added, one line each, the
/// first [`SHOWN`] of them and a count of the rest.
pub(crate) fn schema_differences(tool: &str, listed: &Value, sent: &Value) -> Vec<String> {
    const SHOWN: usize = 12;
    let (a, b) = (schema_facts(listed), schema_facts(sent));
    let lost = a.difference(&b).map(|f| format!("{tool}: lost {f}"));
    let added = b.difference(&a).map(|f| format!("{tool}: added {f}"));
    let mut all: Vec<String> = lost.chain(added).collect();
    if all.len() > SHOWN {
        let more = all.len() - SHOWN;
        all.truncate(SHOWN);
        all.push(format!("{tool}: … and {more} more differences"));
    }
    all
}

/// Fails with every problem found, and `context` (what the stub saw, the
/// client's output), when there is any.
#[track_caller]
pub(crate) fn assert_none(problems: &[String], context: &str) {
    assert!(
        problems.is_empty(),
        "{} problem(s):\n{}\n\n{context}",
        problems.len(),
        problems.join("\n")
    );
}

/// The text of a tool result's content: a string, or the `text` of each
/// of its blocks.
pub(crate) fn content_text(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .filter_map(|b| b["text"].as_str())
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}
