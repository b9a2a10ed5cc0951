//! What `memdir mcp` lists and prints, on the wire: every tool's input
//! schema in the portable subset (one checker, [`unportable`], for an
//! agent's server and a person's), an agent's listing within its size and
//! its role, the listings as committed under docs/schema/mcp/, and nothing
//! on standard error unless a log level is asked for. Also the run a
//! server's calls are made in (`--run`, `--session`), which the facts it
//! saves record.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Stdio};

use serde_json::{Value, json};

use crate::util::{Sandbox, command, person_at_terminal};

/// The keywords a node of a portable schema may use.
const PORTABLE: [&str; 9] = [
    "type",
    "description",
    "properties",
    "required",
    "items",
    "enum",
    "minimum",
    "maximum",
    "default",
];

/// At most this many characters of tool definitions on an agent's server
/// (the compact JSON of `tools/list`'s `tools`).
const AGENT_LISTING_CHARS: usize = 8_000;

/// What in `schema` (a tool's `inputSchema`) is outside the portable
/// subset: the path and the reason, one line each; empty when portable.
pub(crate) fn unportable(schema: &Value) -> Vec<String> {
    let mut out = Vec::new();
    if schema["type"] != "object" {
        out.push("/: the root is not an object".into());
    }
    node(schema, "", &mut out);
    out
}

/// Checks one node (and those under it) of a schema.
fn node(v: &Value, path: &str, out: &mut Vec<String>) {
    let Some(map) = v.as_object() else {
        out.push(format!("{path}: not a schema object"));
        return;
    };
    for (k, val) in map {
        let at = format!("{path}/{k}");
        if !PORTABLE.contains(&k.as_str()) {
            out.push(format!("{at}: keyword outside the portable subset"));
            continue;
        }
        match k.as_str() {
            "type" if !val.is_string() => out.push(format!("{at}: not one string")),
            "type" if val == "null" => out.push(format!("{at}: null")),
            "enum" => {
                if !val
                    .as_array()
                    .is_some_and(|a| a.iter().all(Value::is_string))
                {
                    out.push(format!("{at}: not a list of strings"));
                }
                if map.get("type").and_then(Value::as_str) != Some("string") {
                    out.push(format!("{at}: an enum whose type is not string"));
                }
            }
            "required" => {
                let props = map.get("properties").and_then(Value::as_object);
                for r in val.as_array().into_iter().flatten() {
                    if !r
                        .as_str()
                        .is_some_and(|r| props.is_some_and(|p| p.contains_key(r)))
                    {
                        out.push(format!("{at}: {r} is not a property"));
                    }
                }
            }
            "properties" => match val.as_object() {
                Some(props) => {
                    for (name, p) in props {
                        node(p, &format!("{at}/{name}"), out);
                    }
                }
                None => out.push(format!("{at}: not an object")),
            },
            "items" => node(val, &at, out),
            "description" if !val.is_string() => out.push(format!("{at}: not a string")),
            "minimum" | "maximum" if !val.is_number() => out.push(format!("{at}: not a number")),
            _ => {}
        }
    }
    if !map.contains_key("type") {
        out.push(format!("{path}: no type"));
    }
}

/// A `memdir mcp` process spoken to line by line, as a client speaks.
pub(crate) struct Wire {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
    next: u64,
}

impl Wire {
    /// Starts `memdir --root ROOT ARGS mcp EXTRA` with `env` and
    /// initializes the session.
    pub(crate) fn start(root: &Path, args: &[&str], extra: &[&str], env: &[(&str, &str)]) -> Wire {
        let mut c = command();
        c.arg("--root")
            .arg(root)
            .args(args)
            .arg("mcp")
            .args(extra)
            .env_remove("MEMDIR_LOG")
            .env_remove("MEMDIR_SESSION")
            .envs(env.iter().copied());
        // A person's server is confirmed at a terminal as it starts.
        let mut c = person_at_terminal(c);
        c.stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = c.spawn().expect("spawn memdir mcp");
        let stdin = child.stdin.take();
        let stdout = BufReader::new(child.stdout.take().expect("stdout"));
        let mut w = Wire {
            child,
            stdin,
            stdout,
            next: 0,
        };
        w.request(
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "wire", "version": "1"}}),
        );
        w.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        w
    }

    fn send(&mut self, msg: &Value) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        writeln!(stdin, "{msg}").expect("write a line");
        stdin.flush().expect("flush");
    }

    /// Sends a request and waits for its answer's `result`.
    pub(crate) fn request(&mut self, method: &str, params: Value) -> Value {
        self.next += 1;
        let id = self.next;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let mut line = String::new();
            let n = self.stdout.read_line(&mut line).expect("read a line");
            assert!(
                n > 0,
                "the server closed its output before answering {method}"
            );
            let v: Value = serde_json::from_str(&line).expect("a JSON line");
            if v["id"] == json!(id) {
                assert!(v.get("error").is_none(), "{method}: {v}");
                return v["result"].clone();
            }
        }
    }

    /// `tools/list`'s `tools`, as the wire carries them.
    pub(crate) fn tools(&mut self) -> Value {
        self.request("tools/list", json!({}))["tools"].clone()
    }

    /// Calls a tool: its text and whether it is a tool error.
    pub(crate) fn call(&mut self, tool: &str, args: Value) -> (String, bool) {
        let r = self.request("tools/call", json!({"name": tool, "arguments": args}));
        let text = r["content"][0]["text"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        (text, r["isError"].as_bool().unwrap_or(false))
    }

    /// Closes standard input and waits for the server to end: its
    /// standard error.
    pub(crate) fn finish(mut self) -> String {
        drop(self.stdin.take());
        let mut err = String::new();
        if let Some(mut e) = self.child.stderr.take() {
            e.read_to_string(&mut err).expect("read stderr");
        }
        let status = self.child.wait().expect("wait");
        assert!(status.success(), "memdir mcp exited {status}: {err}");
        err
    }
}

/// The properties and `action` values of every tool of a listing.
fn names(tools: &Value) -> (Vec<String>, Vec<String>) {
    let (mut props, mut actions) = (Vec::new(), Vec::new());
    for t in tools.as_array().into_iter().flatten() {
        let p = &t["inputSchema"]["properties"];
        props.extend(p.as_object().into_iter().flatten().map(|(k, _)| k.clone()));
        if t["name"] == "memory" {
            actions.extend(
                p["action"]["enum"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|v| v.as_str().map(str::to_owned)),
            );
        }
    }
    (props, actions)
}

#[test]
fn every_tool_schema_is_portable_and_an_agent_s_listing_fits_its_role() {
    let s = Sandbox::new();
    let mut agent = Wire::start(&s.root, &["--owner", "agt_wire"], &[], &[]);
    let mut person = Wire::start(&s.root, &["--person", "ann"], &[], &[]);
    let (a, p) = (agent.tools(), person.tools());
    for (who, tools) in [("agent", &a), ("person", &p)] {
        let mut names: Vec<&str> = tools
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|t| t["name"].as_str())
            .collect();
        names.sort();
        assert_eq!(
            names,
            ["get_result", "learn", "memory", "put_result"],
            "{who}"
        );
        for t in tools.as_array().unwrap() {
            let bad = unportable(&t["inputSchema"]);
            assert!(bad.is_empty(), "{who} {}: {}", t["name"], bad.join("\n"));
        }
    }
    let size = serde_json::to_string(&a).unwrap().chars().count();
    assert!(
        size <= AGENT_LISTING_CHARS,
        "an agent's listing is {size} characters, over {AGENT_LISTING_CHARS}"
    );
    // An agent is shown only what it may do; a person more.
    let (agent_props, agent_actions) = names(&a);
    let (person_props, person_actions) = names(&p);
    assert!(
        !agent_actions.contains(&"veto".to_owned()),
        "{agent_actions:?}"
    );
    assert!(
        person_actions.contains(&"veto".to_owned()),
        "{person_actions:?}"
    );
    assert!(!agent_props.contains(&"agentId".to_owned()));
    assert!(person_props.contains(&"agentId".to_owned()));
    let listing = serde_json::to_string(&a).unwrap();
    assert!(
        !listing.contains("veto"),
        "an agent's listing speaks of veto"
    );
    // What a model needs to decide: the entry limit, the default store and
    // the other one's name.
    let memory = a
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "memory")
        .unwrap();
    let text = memory.to_string();
    assert!(text.contains("500 characters"), "{text}");
    assert_eq!(
        memory["inputSchema"]["properties"]["target"]["enum"],
        json!(["memory", "user"])
    );
    assert!(text.contains("memory (the default)"), "{text}");
    assert_eq!(memory["inputSchema"]["required"], json!(["action"]));
    agent.finish();
    person.finish();
}

/// The checker fails on each construct a client may refuse.
#[test]
fn the_checker_refuses_what_clients_refuse() {
    let cases = [
        json!({"type": "object", "oneOf": [{"type": "object"}]}),
        json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/A"}}}),
        json!({"type": "object", "properties": {"a": {"type": ["string", "null"]}}}),
        json!({"type": "object", "properties": {"a": {"type": "string", "const": "x"}}}),
        json!({"type": "object", "properties": {"a": {"type": "string", "format": "date"}}}),
        json!({"type": "object", "properties": {"a": {"anyOf": [{"type": "string"}]}}}),
        json!({"type": "object", "required": ["b"], "properties": {}}),
        json!({"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object"}),
        json!({"type": "string"}),
    ];
    for c in cases {
        assert!(!unportable(&c).is_empty(), "{c} passed");
    }
    assert!(unportable(&json!({"type": "object", "properties": {"a": {"type": "string", "enum": ["x"]}}, "required": ["a"]})).is_empty());
}

/// Each listing is the one committed under docs/schema/mcp/ (regenerated
/// with `MEMDIR_REGENERATE=1`), so a change to a tool shows in review.
#[test]
fn the_listings_are_the_committed_ones() {
    let s = Sandbox::new();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/schema/mcp");
    for (file, args) in [
        ("agent-tools.json", ["--owner", "agt_wire"]),
        ("person-tools.json", ["--person", "ann"]),
    ] {
        let mut w = Wire::start(&s.root, &args, &[], &[]);
        let tools = w.tools();
        w.finish();
        let text = serde_json::to_string_pretty(&tools).unwrap() + "\n";
        let path = dir.join(file);
        if std::env::var_os("MEMDIR_REGENERATE").is_some() {
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(&path, &text).unwrap();
        }
        let committed = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            committed == text,
            "{} differs from the server's listing; regenerate with MEMDIR_REGENERATE=1 cargo test mcp_listing",
            path.display()
        );
    }
}

/// A client shows a server's standard error as errors: `memdir mcp` prints
/// nothing there for a session that goes well, and logs when asked.
#[test]
fn mcp_is_quiet_on_standard_error_unless_a_level_is_asked_for() {
    let s = Sandbox::new();
    let run = |extra: &[&str], env: &[(&str, &str)]| {
        let mut w = Wire::start(&s.root, &["--owner", "agt_quiet"], extra, env);
        w.tools();
        let (text, error) = w.call(
            "memory",
            json!({"action": "remember", "target": "user", "content": "Prefers tea"}),
        );
        assert!(!error, "{text}");
        w.call("memory", json!({"action": "recall"}));
        w.finish()
    };
    assert_eq!(run(&[], &[]), "");
    assert!(!run(&["--log", "info"], &[]).is_empty());
    assert!(!run(&[], &[("MEMDIR_LOG", "info")]).is_empty());
}

/// The `run=` of the fact whose text is `text` in a store's bytes.
fn run_of(store: &str, text: &str) -> Option<String> {
    let line = store.lines().find(|l| l.contains(text))?;
    let meta = line.split("<!--").nth(1)?;
    meta.split_whitespace()
        .find_map(|kv| kv.strip_prefix("run="))
        .map(|r| r.trim_end_matches("-->").to_owned())
}

/// A session's run: begun once however often `run begin --session` is
/// asked; a server started with `--session` (or `MEMDIR_SESSION`) saves
/// facts inside it and recalls its frozen snapshot; finished by session.
#[test]
fn a_session_s_run_is_begun_once_recorded_by_mcp_writes_and_finished() {
    let s = Sandbox::new();
    s.run_as("agt_s", &["add", "Prefers tea", "--to", "user"])
        .ok();
    let begin = |key: &str| {
        s.run_as("agt_s", &["--json", "run", "begin", "--session", key])
            .ok()
            .json()
    };
    let first = begin("sess-1");
    assert_eq!(first["resumed"], false);
    let again = begin("sess-1");
    assert_eq!(again["resumed"], true);
    assert_eq!(again["run_id"], first["run_id"]);
    assert_eq!(again["text"], first["text"]);
    let run_id = first["run_id"].as_str().unwrap().to_owned();
    let other = begin("sess-2");
    assert_ne!(other["run_id"], first["run_id"]);

    for (extra, env, fact) in [
        (&["--session", "sess-1"][..], &[][..], "Likes green tea"),
        (
            &[][..],
            &[("MEMDIR_SESSION", "sess-1")][..],
            "Reads at night",
        ),
    ] {
        let mut w = Wire::start(&s.root, &["--owner", "agt_s"], extra, env);
        let (text, error) = w.call(
            "memory",
            json!({"action": "remember", "target": "user", "content": fact}),
        );
        assert!(!error, "{text}");
        // The run's frozen snapshot, not today's.
        let (recalled, _) = w.call("memory", json!({"action": "recall"}));
        assert!(
            recalled.contains("Prefers tea") && !recalled.contains(fact),
            "{recalled}"
        );
        w.finish();
        let user = s.read_text("agt_s", "USER.md");
        assert_eq!(
            run_of(&user, fact).as_deref(),
            Some(run_id.as_str()),
            "{user}"
        );
    }

    let finished = s.run_as(
        "agt_s",
        &[
            "--json",
            "run",
            "finish",
            "--session",
            "sess-1",
            "done here",
        ],
    );
    assert!(finished.success(), "{finished:?}");
    let episodes = s.read_text("agt_s", "episodes.md");
    assert!(
        episodes.contains("done here") && episodes.contains(&run_id),
        "{episodes}"
    );
    // Its frozen snapshot is still there to read (a resumed session's).
    let frozen = s
        .run_as("agt_s", &["snapshot", "--session", "sess-1"])
        .ok()
        .text();
    assert_eq!(frozen, first["text"].as_str().unwrap());
    let by_id = s
        .run_as("agt_s", &["snapshot", "--run", &run_id])
        .ok()
        .text();
    assert_eq!(by_id, frozen);
    s.run_as("agt_s", &["--json", "snapshot", "--session", "sess-none"])
        .json_error("run_not_found");
    // Finished: the session has no open run; a write is made outside any.
    s.run_as("agt_s", &["--json", "run", "finish", "--session", "sess-1"])
        .json_error("run_not_found");
    let mut w = Wire::start(
        &s.root,
        &["--owner", "agt_s"],
        &["--session", "sess-1"],
        &[],
    );
    let (text, error) = w.call("memory", json!({"action": "save", "content": "Uses vim"}));
    assert!(!error, "{text}");
    w.finish();
    assert_eq!(run_of(&s.read_text("agt_s", "MEMORY.md"), "Uses vim"), None);
}

/// `mcp --run RUN` saves facts inside the run, as `add --run` does.
#[test]
fn a_run_server_s_writes_record_the_run() {
    let s = Sandbox::new();
    let begun = s
        .run_as("agt_r", &["--json", "run", "begin", "--task", "PIN-7"])
        .ok()
        .json();
    let run_id = begun["run_id"].as_str().unwrap();
    let mut w = Wire::start(&s.root, &["--owner", "agt_r"], &["--run", run_id], &[]);
    for args in [
        json!({"action": "remember", "content": "Deploys go through CI"}),
        json!({"action": "save", "content": "Staging needs the VPN"}),
    ] {
        let (text, error) = w.call("memory", args);
        assert!(!error, "{text}");
    }
    w.finish();
    let memory = s.read_text("agt_r", "MEMORY.md");
    for fact in ["Deploys go through CI", "Staging needs the VPN"] {
        assert_eq!(run_of(&memory, fact).as_deref(), Some(run_id), "{memory}");
    }
    assert!(memory.contains("task=PIN-7"), "{memory}");
}
