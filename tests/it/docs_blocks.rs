//! README.md's and docs/INTEGRATIONS.md's code blocks, held to what they
//! say. Every `sh` block runs, in the page's order, in one fresh workspace
//! per page (a temporary `HOME`, a working folder holding copies of
//! `fixtures/`, `python/` and `integrations/`), with this build's binary as
//! `memdir` on `PATH`, `cargo run --` mapped to it, `cargo install` a no-op
//! (the binary is there already) and `cargo test` skipped (it is this run),
//! `pip` and `python` a virtual environment of their own, `claude` the
//! pinned Claude Code, and no model API reachable but a closed loopback
//! port. A `python` block runs too, after the page's `sh` blocks, unless a
//! test of its own runs it. A configuration block (JSON, TOML, YAML) is
//! parsed and named with the test that uses it; README's MCP entry is used
//! here, on the root its `sh` block created. Every other block is listed in
//! [`OTHERS`] with the reason it is not run, and a block that is none of
//! these fails the test, as does a row of [`OTHERS`] that matches no block.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::{Value, json};

use crate::util::{BIN, config_dir};

/// The pages whose blocks are held.
const PAGES: [&str; 2] = ["README.md", "docs/INTEGRATIONS.md"];

/// What becomes of a block that is not a `sh` block.
#[derive(Debug, Clone, Copy)]
enum Fate {
    /// Parsed here, and used by this test (a `file::function` of
    /// `tests/it/` or `python/tests/`, which must exist).
    Used(&'static str),
    /// Runs here (a `python` block).
    Runs,
    /// Not run, and why.
    NotRun(&'static str),
}

/// Every block that is not a `sh` block: its page, the start of its first
/// line, and what becomes of it.
const OTHERS: &[(&str, &str, Fate)] = &[
    (
        "README.md",
        "{",
        Fate::Used(
            "docs_blocks::the_sh_blocks_run_as_written_and_the_configurations_work (the server as configured, on the root README's block made)",
        ),
    ),
    ("README.md", "from memdir import Memory", Fate::Runs),
    (
        "README.md",
        "pip install memdir-0.1.0-*.whl",
        Fate::NotRun(
            "installs the release wheel, which this test run does not build; wheel::the_wheel_installs_and_runs_without_a_toolchain installs the one CI builds and runs these commands",
        ),
    ),
    (
        "README.md",
        "memdir --root ~/memory serve",
        Fate::NotRun(
            "a person's commands, confirmed at a terminal this test has not; persons::a_person_at_a_terminal_confirms_with_y_and_n_refuses, veto::, learnings:: and pending:: run each",
        ),
    ),
    (
        "docs/INTEGRATIONS.md",
        "$ python3 -m pip install maturin",
        Fate::NotRun(
            "a release build of the wheel (minutes): .ci/run builds it once, and wheel::the_wheel_installs_and_runs_as_a_user_would_without_cargo installs it and runs these commands",
        ),
    ),
    // Before the row of "{", which would match it too.
    (
        "docs/INTEGRATIONS.md",
        "{\"mcpServers\": {\"memdir\": {",
        Fate::Used("wheel::the_wheel_installs_and_runs_as_a_user_would_without_cargo"),
    ),
    (
        "docs/INTEGRATIONS.md",
        "{",
        Fate::Used(
            "clients::claude_code::claude_code_gets_memdirs_tools_intact_and_remembers_a_user_fact",
        ),
    ),
    (
        "docs/INTEGRATIONS.md",
        "from memdir import Memory, MemoryOverBudget",
        Fate::Runs,
    ),
    (
        "docs/INTEGRATIONS.md",
        "import anthropic",
        Fate::Used("test_claude.py::test_the_documented_example_gives_claude_memdir_memory"),
    ),
    (
        "docs/INTEGRATIONS.md",
        "memory:",
        Fate::Used(
            "docs_blocks::the_sh_blocks_run_as_written_and_the_configurations_work (Hermes's provider name, the plugin folder it installs)",
        ),
    ),
    (
        "docs/INTEGRATIONS.md",
        "[mcp_servers.memdir]",
        Fate::Used("clients::codex::codex_gets_memdirs_tools_intact_and_remembers_a_user_fact"),
    ),
    (
        "docs/INTEGRATIONS.md",
        "## Memory",
        Fate::NotRun(
            "an AGENTS.md paragraph for a model to read; the tool calls it names are the ones the Codex test scripts",
        ),
    ),
];

/// One fenced code block of a page.
#[derive(Debug, Clone)]
struct Block {
    page: &'static str,
    line: usize,
    lang: String,
    text: String,
}

impl Block {
    fn first(&self) -> &str {
        self.text.lines().next().unwrap_or_default()
    }

    fn fate(&self) -> Option<Fate> {
        OTHERS
            .iter()
            .find(|(page, start, _)| *page == self.page && self.first().starts_with(start))
            .map(|(_, _, f)| *f)
    }
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The fenced blocks of `page`, in order.
fn blocks(page: &'static str) -> Vec<Block> {
    let text = std::fs::read_to_string(repo().join(page)).unwrap_or_else(|e| panic!("{page}: {e}"));
    let mut out = Vec::new();
    let mut open: Option<(usize, String, String)> = None;
    for (i, line) in text.lines().enumerate() {
        match (&mut open, line.strip_prefix("```")) {
            (None, Some(lang)) => open = Some((i + 1, lang.trim().to_owned(), String::new())),
            (Some(_), Some("")) => {
                let Some((line, lang, text)) = open.take() else {
                    continue;
                };
                out.push(Block {
                    page,
                    line,
                    lang,
                    text,
                });
            }
            (Some((_, _, body)), _) => {
                body.push_str(line);
                body.push('\n');
            }
            (None, None) => {}
        }
    }
    assert!(open.is_none(), "{page}: a block is never closed");
    out
}

/// Whether a test named `name` (`file::function`, `function` alone, or a
/// module path ending in `::`) is in `tests/it/` or `python/tests/`.
fn test_exists(name: &str) -> bool {
    let name = name.split(' ').next().unwrap_or(name);
    let function = name.rsplit("::").next().unwrap_or(name);
    let mut sources = Vec::new();
    for dir in [
        "tests/it",
        "tests/it/clients",
        "tests/it/browser",
        "python/tests",
    ] {
        for e in std::fs::read_dir(repo().join(dir))
            .into_iter()
            .flatten()
            .flatten()
        {
            let p = e.path();
            if p.extension().is_some_and(|x| x == "rs" || x == "py") {
                sources.push(std::fs::read_to_string(&p).unwrap_or_default());
            }
        }
    }
    if function.is_empty() {
        // A module: its file is there.
        let module = name.trim_end_matches("::");
        return repo().join(format!("tests/it/{module}.rs")).is_file();
    }
    sources
        .iter()
        .any(|s| s.contains(&format!("fn {function}(")) || s.contains(&format!("def {function}(")))
}

#[test]
fn every_block_is_run_parsed_or_says_why_not() {
    let mut wrong = Vec::new();
    let mut matched = vec![false; OTHERS.len()];
    for page in PAGES {
        for b in blocks(page) {
            let at = format!("{}:{} ({:?}, {:?})", b.page, b.line, b.lang, b.first());
            if b.lang == "sh" {
                continue;
            }
            let Some(i) = OTHERS
                .iter()
                .position(|(p, start, _)| *p == b.page && b.first().starts_with(start))
            else {
                wrong.push(format!(
                    "{at}: neither run nor listed in OTHERS with its reason"
                ));
                continue;
            };
            matched[i] = true;
            match (b.lang.as_str(), OTHERS[i].2) {
                ("json", _) => {
                    if let Err(e) = serde_json::from_str::<Value>(&b.text) {
                        wrong.push(format!("{at}: not JSON: {e}"));
                    }
                }
                ("yaml", _) => {
                    if let Err(e) = serde_yaml::from_str::<serde_yaml::Value>(&b.text) {
                        wrong.push(format!("{at}: not YAML: {e}"));
                    }
                }
                ("toml", _) => {
                    // Codex reads it: its test does (a TOML parser is not a
                    // dependency of ours); every line is a table, a key =
                    // value or a comment.
                    for l in b.text.lines().map(str::trim) {
                        let ok = l.is_empty()
                            || l.starts_with('#')
                            || (l.starts_with('[') && l.ends_with(']'))
                            || l.split_once(" = ").is_some();
                        if !ok {
                            wrong.push(format!("{at}: not a TOML line: {l}"));
                        }
                    }
                }
                _ => {}
            }
            let config = matches!(b.lang.as_str(), "json" | "yaml" | "toml");
            match OTHERS[i].2 {
                Fate::Used(test) if !test_exists(test) => {
                    wrong.push(format!("{at}: used by {test}, which is no test"));
                }
                Fate::Used(_) => {}
                Fate::Runs if b.lang != "python" => {
                    wrong.push(format!("{at}: only python blocks run besides sh"));
                }
                Fate::Runs => {}
                Fate::NotRun(_) if config => {
                    wrong.push(format!(
                        "{at}: a configuration block must be used by a test"
                    ));
                }
                Fate::NotRun(why) => eprintln!("not run: {at}: {why}"),
            }
        }
    }
    for (i, m) in matched.iter().enumerate() {
        if !m {
            wrong.push(format!("OTHERS row {:?} matches no block", OTHERS[i]));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// A `sh` block as it runs: the page's placeholders for a checkout made
/// the workspace's own.
fn as_run(text: &str, work: &Path) -> String {
    text.replace("/path/to/memdir", &work.to_string_lossy())
}

/// What a block needs that this machine may lack.
fn needs(text: &str) -> Vec<&'static str> {
    let mut out = Vec::new();
    if text.contains("pip ") || text.contains("python ") || text.contains("python3 ") {
        out.push("python");
    }
    if text.lines().any(|l| l.trim_start().starts_with("claude ")) {
        out.push("claude");
    }
    out
}

/// A page's workspace: `HOME`, a working folder with copies of the
/// checkout's folders the pages name, a folder of commands for `PATH`.
struct Workspace {
    _dir: tempfile::TempDir,
    home: PathBuf,
    work: PathBuf,
    path: String,
    python: Option<PathBuf>,
}

/// The venv interpreter the Python tests use, if any.
fn python_base() -> Option<PathBuf> {
    match std::env::var_os("MEMDIR_PYTHON") {
        Some(p) if !p.is_empty() => Some(PathBuf::from(p)),
        _ => None,
    }
}

/// The pinned Claude Code, if installed.
fn claude_bin() -> Option<PathBuf> {
    let dir = match std::env::var_os("MEMDIR_CLIENTS_DIR") {
        Some(d) if !d.is_empty() => PathBuf::from(d),
        _ => repo().join("tests/clients"),
    };
    let p = dir.join("node_modules/@anthropic-ai/claude-code/bin/claude.exe");
    p.is_file().then_some(p)
}

fn sh(script: &str, cwd: &Path) {
    let out = Command::new("sh")
        .args(["-c", script])
        .current_dir(cwd)
        .output()
        .expect("sh");
    assert!(
        out.status.success(),
        "{script}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

impl Workspace {
    fn new() -> Workspace {
        let dir = tempfile::tempdir().expect("a workspace");
        let home = dir.path().join("home");
        let work = dir.path().join("work");
        let bin = dir.path().join("bin");
        for d in [&home, &work, &bin] {
            std::fs::create_dir_all(d).expect("a folder");
        }
        for folder in ["fixtures", "python", "integrations"] {
            let from = repo().join(folder);
            sh(
                &format!(
                    "cp -R '{}' '{}'",
                    from.display(),
                    work.join(folder).display()
                ),
                dir.path(),
            );
        }
        std::os::unix::fs::symlink(BIN, bin.join("memdir")).expect("memdir on PATH");
        std::fs::write(
            bin.join("cargo"),
            "#!/bin/sh\n\
             # cargo as the pages use it: `run --` is the built binary, `install` \n\
             # has nothing to do (the binary is on PATH), `test` is this run.\n\
             case \"$1\" in\n\
             run) shift; [ \"$1\" = -- ] && shift; exec memdir \"$@\" ;;\n\
             install) exit 0 ;;\n\
             test) echo 'cargo test: this run'; exit 0 ;;\n\
             *) echo \"cargo $1: not a command the pages use\" >&2; exit 1 ;;\n\
             esac\n",
        )
        .expect("cargo");
        sh(
            &format!("chmod +x '{}'", bin.join("cargo").display()),
            dir.path(),
        );
        if let Some(claude) = claude_bin() {
            std::os::unix::fs::symlink(claude, bin.join("claude")).expect("claude on PATH");
        }
        let python = python_base().map(|base| {
            // A venv of its own (what the pages install goes there), which
            // also sees the test venv's packages (hermes-agent, anthropic)
            // after its own.
            let venv = dir.path().join("venv");
            let out = Command::new(&base)
                .args(["-m", "venv"])
                .arg(&venv)
                .output()
                .expect("a venv");
            assert!(out.status.success(), "venv: {out:?}");
            let purelib = |python: &Path| {
                let out = Command::new(python)
                    .args([
                        "-c",
                        "import sysconfig; print(sysconfig.get_paths()['purelib'])",
                    ])
                    .output()
                    .expect("purelib");
                PathBuf::from(String::from_utf8_lossy(&out.stdout).trim())
            };
            let outer = purelib(&base);
            let inner = purelib(&venv.join("bin/python"));
            std::fs::write(
                inner.join("_memdir_test_packages.pth"),
                format!("{}\n", outer.display()),
            )
            .expect("a .pth");
            venv.join("bin")
        });
        let mut path = bin.display().to_string();
        if let Some(p) = &python {
            path = format!("{}:{path}", p.display());
        }
        path.push_str(":/usr/local/bin:/usr/bin:/bin");
        Workspace {
            _dir: dir,
            home,
            work,
            path,
            python,
        }
    }

    fn command(&self, program: &str) -> Command {
        let mut c = Command::new(program);
        c.env_clear()
            .current_dir(&self.work)
            .env("HOME", &self.home)
            .env("PATH", &self.path)
            .env("MEMDIR_CONFIG_DIR", config_dir())
            .env("HERMES_HOME", self.home.join(".hermes"))
            .env("PIP_DISABLE_PIP_VERSION_CHECK", "1")
            // No model API but a closed port: nothing leaves the machine.
            .env("ANTHROPIC_BASE_URL", "http://127.0.0.1:9")
            .env("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
            .env("DISABLE_AUTOUPDATER", "1")
            .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
            .env("DISABLE_TELEMETRY", "1");
        c
    }

    /// Runs a block: its output, or the failure.
    fn run(&self, b: &Block, program: &str) -> String {
        let script = as_run(&b.text, &self.work);
        let mut c = self.command(program);
        if program == "sh" {
            c.args(["-e", "-u", "-c", &script]);
        } else {
            c.args(["-c", &script]);
        }
        let out = c.output().expect("run a block");
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(
            out.status.success(),
            "{}:{} ({}) failed\n{script}\nstdout: {stdout}\nstderr: {}",
            b.page,
            b.line,
            b.lang,
            String::from_utf8_lossy(&out.stderr)
        );
        stdout
    }
}

/// Says a page's block did not run (and fails under the variable that
/// makes its tool a requirement).
fn not_run(b: &Block, need: &str) {
    let (var, why) = match need {
        "python" => (
            "MEMDIR_REQUIRE_PYTHON",
            "no MEMDIR_PYTHON (python/setup-venv.sh)",
        ),
        _ => (
            "MEMDIR_REQUIRE_CLIENTS",
            "no Claude Code (npm ci in tests/clients)",
        ),
    };
    assert!(
        std::env::var(var).as_deref() != Ok("1"),
        "{var}=1 but {why}: {}:{} cannot run",
        b.page,
        b.line
    );
    crate::util::not_run(&format!(
        "{}:{} and the page's later blocks: {why}",
        b.page, b.line
    ));
}

/// An MCP server as README's entry configures it: initialized, its tools
/// listed.
fn serve_as_configured(ws: &Workspace, entry: &Value) -> Vec<String> {
    assert_eq!(entry["command"], "memdir", "{entry}");
    let args: Vec<String> = entry["args"]
        .as_array()
        .expect("args")
        .iter()
        .map(|a| a.as_str().expect("a string").to_owned())
        .collect();
    let mut c = ws.command(BIN);
    c.args(&args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = c.spawn().expect("memdir mcp");
    let mut input = child.stdin.take().expect("stdin");
    use std::io::{BufRead, Write};
    for m in [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "docs", "version": "1"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
    ] {
        writeln!(input, "{m}").expect("write");
    }
    input.flush().expect("flush");
    let mut lines = std::io::BufReader::new(child.stdout.take().expect("stdout")).lines();
    let tools = loop {
        let Some(line) = lines.next() else {
            panic!(
                "memdir mcp ended before listing its tools: {:?}",
                child.wait()
            );
        };
        let line = line.expect("a line");
        let v: Value = serde_json::from_str(&line).expect("JSON");
        if v["id"] == 2 {
            break v["result"]["tools"].clone();
        }
    };
    drop(input);
    let out = child.wait_with_output().expect("wait");
    assert!(out.status.success() && out.stderr.is_empty(), "{out:?}");
    tools
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|t| t["name"].as_str().map(str::to_owned))
        .collect()
}

#[test]
fn the_sh_blocks_run_as_written_and_the_configurations_work() {
    for page in PAGES {
        let ws = Workspace::new();
        let mut blocked = false;
        let mut ran = 0;
        let all = blocks(page);
        for b in all.iter().filter(|b| b.lang == "sh") {
            if let Some(missing) = needs(&b.text).into_iter().find(|n| match *n {
                "python" => ws.python.is_none(),
                _ => claude_bin().is_none(),
            }) {
                not_run(b, missing);
                blocked = true;
                break;
            }
            let out = ws.run(b, "sh");
            ran += 1;
            if b.first().starts_with("cargo run --") {
                assert!(
                    out.contains("MEMORY.md"),
                    "the quick start's snapshot: {out}"
                );
            }
        }
        if blocked {
            continue;
        }
        assert!(ran > 0, "{page}: no sh block ran");
        for b in all.iter().filter(|b| b.lang == "python") {
            if matches!(b.fate(), Some(Fate::Runs)) {
                ws.run(b, "python");
            }
        }
        match page {
            "README.md" => {
                // The MCP entry, on the root README's block created.
                let b = all
                    .iter()
                    .find(|b| b.lang == "json" && b.text.contains("mcpServers"))
                    .expect("README's MCP entry");
                let v: Value = serde_json::from_str(&b.text).expect("JSON");
                let tools = serve_as_configured(&ws, &v["mcpServers"]["memdir"]);
                assert!(tools.contains(&"memory".to_owned()), "{tools:?}");
                let readme = std::fs::read_to_string(repo().join("README.md")).expect("README");
                let at = readme.find("\"mcpServers\"").expect("the entry");
                let before = &readme[..at];
                assert!(
                    before.rfind("memdir --root ~/memory init").is_some(),
                    "README creates the entry's root before the entry"
                );
                // The contributors' quick start: two commands.
                let quick = all
                    .iter()
                    .find(|b| b.lang == "sh" && b.text.contains("cargo test"))
                    .expect("the quick start");
                assert_eq!(quick.text.lines().count(), 2, "{}", quick.text);
                // The install block's save, and the git block's commit of
                // its save.
                let user = std::fs::read_to_string(ws.home.join("memory/agt_claude/USER.md"))
                    .unwrap_or_default();
                assert!(user.contains("Prefers weekly summaries"), "{user}");
                let log = Command::new("git")
                    .args(["log", "--format=%s", "--name-only"])
                    .current_dir(ws.home.join("team-memory"))
                    .output()
                    .expect("git log");
                let log = String::from_utf8_lossy(&log.stdout);
                assert!(log.contains("agt_claude/MEMORY.md"), "{log}");
            }
            _ => {
                // Hermes's configuration names the provider the install put
                // into HERMES_HOME's plugins.
                let b = all
                    .iter()
                    .find(|b| b.lang == "yaml")
                    .expect("the Hermes configuration");
                let v: serde_yaml::Value = serde_yaml::from_str(&b.text).expect("YAML");
                let name = v["memory"]["provider"].as_str().expect("memory.provider");
                let plugin = ws.home.join(".hermes/plugins").join(name);
                assert!(
                    plugin.join("__init__.py").is_file() || plugin.join("plugin.yaml").is_file(),
                    "the installed provider folder {}",
                    plugin.display()
                );
            }
        }
    }
}
