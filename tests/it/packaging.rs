//! How memdir is published: the crates (`cargo install memdir` gives the
//! command; the library is `memdir-core`), and the MCP registry's
//! `server.json`, checked against the registry's schema committed beside it
//! (`docs/mcp-registry/`). `cargo publish --workspace --dry-run` itself,
//! which builds both packages from their packaged sources, runs in
//! `.ci/run`.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::Value;

use crate::util::Sandbox;

fn top() -> PathBuf {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/..")).to_path_buf()
}

fn cargo() -> Command {
    let mut cmd = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    cmd.current_dir(top());
    cmd
}

fn read_json(rel: &str) -> Value {
    let text = std::fs::read_to_string(top().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// `server.json` is valid under the registry's schema, names the PyPI
/// package and the version of the crates, and the schema refuses what it
/// should (so a validator that accepts anything would fail here).
#[test]
fn server_json_is_valid_under_the_registry_schema() {
    let schema = read_json("docs/mcp-registry/server.schema.json");
    assert_eq!(
        schema["$id"],
        "https://static.modelcontextprotocol.io/schemas/2025-09-29/server.schema.json"
    );
    let validator = jsonschema::draft7::new(&schema).expect("the registry's schema compiles");
    let server = read_json("server.json");
    let errors: Vec<String> = validator
        .iter_errors(&server)
        .map(|e| format!("{}: {e}", e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "server.json: {errors:#?}");
    assert_eq!(server["$schema"], schema["$id"]);
    assert_eq!(server["version"], env!("CARGO_PKG_VERSION"));
    let package = &server["packages"][0];
    assert_eq!(package["registryType"], "pypi");
    assert_eq!(package["identifier"], "memdir");
    assert_eq!(package["version"], env!("CARGO_PKG_VERSION"));

    let mut bad = server.clone();
    bad["description"] = Value::from("x".repeat(101));
    assert!(
        !validator.is_valid(&bad),
        "a description past 100 characters"
    );
    let mut bad = server.clone();
    bad["packages"][0]["version"] = Value::from("latest");
    assert!(!validator.is_valid(&bad), "a package version of latest");
    let mut bad = server;
    bad["name"] = Value::from("no-namespace");
    assert!(!validator.is_valid(&bad), "a name without a namespace");
}

/// The invocation `server.json` describes works as a registry client runs
/// it: the package's command with its arguments and the environment
/// variables it names (the root and the owner), speaking MCP on standard
/// input and output.
#[test]
fn server_json_describes_a_working_mcp_invocation() {
    let server = read_json("server.json");
    let package = &server["packages"][0];
    assert_eq!(package["transport"]["type"], "stdio");
    let args: Vec<String> = package["packageArguments"]
        .as_array()
        .expect("packageArguments")
        .iter()
        .map(|a| a["value"].as_str().expect("a fixed value").to_owned())
        .collect();
    let vars: Vec<&str> = package["environmentVariables"]
        .as_array()
        .expect("environmentVariables")
        .iter()
        .map(|v| v["name"].as_str().expect("name"))
        .collect();
    assert_eq!(vars, ["MEMDIR_ROOT", "MEMDIR_OWNER"]);

    let s = Sandbox::new();
    let mut child = s
        .bare()
        .args(&args)
        .env("MEMDIR_ROOT", &s.root)
        .env("MEMDIR_OWNER", "agt_registry")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("memdir mcp");
    let mut stdin = child.stdin.take().expect("stdin");
    let mut lines = BufReader::new(child.stdout.take().expect("stdout")).lines();
    let mut send = |v: Value| writeln!(&mut stdin, "{v}").expect("write");
    send(
        serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "registry-client", "version": "0"}}}),
    );
    let init: Value =
        serde_json::from_str(&lines.next().expect("an answer").expect("line")).expect("json");
    assert_eq!(init["result"]["serverInfo"]["name"], "memdir", "{init}");
    send(serde_json::json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    send(serde_json::json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}));
    let tools: Value =
        serde_json::from_str(&lines.next().expect("an answer").expect("line")).expect("json");
    let names: Vec<&str> = tools["result"]["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert!(names.contains(&"memory"), "{names:?}");
    // Standard input closed: the server stops.
    drop(stdin);
    let _ = child.wait();
}

/// The crates as they are published: the `memdir` package is the command
/// and takes the library `memdir-core` by version; each names its licence,
/// description, repository, readme, keywords and categories; and what a
/// user downloads holds the sources, not the tests, fixtures, benches or
/// docs.
#[test]
fn the_crates_are_ready_to_publish() {
    let out = cargo()
        .args([
            "metadata",
            "--no-deps",
            "--offline",
            "--format-version",
            "1",
        ])
        .output()
        .expect("cargo metadata");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let meta: Value = serde_json::from_slice(&out.stdout).expect("metadata");
    let packages = meta["packages"].as_array().expect("packages");
    let named = |name: &str| {
        packages
            .iter()
            .find(|p| p["name"] == name)
            .unwrap_or_else(|| panic!("no package {name}"))
    };
    let (command, library) = (named("memdir"), named("memdir-core"));
    assert!(
        command["targets"]
            .as_array()
            .expect("targets")
            .iter()
            .any(|t| t["name"] == "memdir" && t["kind"][0] == "bin"),
        "the memdir package has the memdir binary"
    );
    assert_eq!(command["version"], library["version"], "one version");
    let dep = command["dependencies"]
        .as_array()
        .expect("dependencies")
        .iter()
        .find(|d| d["name"] == "memdir-core" && d["kind"].is_null())
        .expect("memdir depends on memdir-core");
    assert_eq!(
        dep["req"],
        format!("^{}", library["version"].as_str().expect("v"))
    );
    for p in [command, library] {
        for field in ["license", "description", "repository", "readme"] {
            assert!(p[field].is_string(), "{}: {field}", p["name"]);
        }
        for field in ["keywords", "categories"] {
            let n = p[field].as_array().map_or(0, Vec::len);
            assert!((1..=5).contains(&n), "{}: {field}", p["name"]);
        }
        assert!(p["publish"].is_null(), "{} may be published", p["name"]);
    }

    for package in ["memdir", "memdir-core"] {
        let out = cargo()
            .args([
                "package",
                "--list",
                "--allow-dirty",
                "--offline",
                "-p",
                package,
            ])
            .output()
            .expect("cargo package --list");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let files = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(
            files.lines().any(|f| f == "Cargo.toml"),
            "{package}: {files}"
        );
        assert!(
            files.lines().any(|f| f.starts_with("src/")),
            "{package}: {files}"
        );
        for kept_out in [
            "tests/",
            "fixtures/",
            "benches/",
            "docs/",
            "python/",
            "examples/",
        ] {
            assert!(
                !files.lines().any(|f| f.starts_with(kept_out)),
                "{package} ships {kept_out}: {files}"
            );
        }
    }
}
