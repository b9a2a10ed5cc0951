//! The sweep of issue 39: a root where every file and every field an
//! answer reads holds a marker injection (plant.rs), then every `Request`
//! variant (examples.rs) on every surface an agent uses — the library's
//! `api::execute` as an agent, the command line as the agent (text and
//! `--json`), the MCP server's tools and resources, both HTTP families,
//! Claude's memory tool (command line, HTTP, Python) and the Python
//! package (through the command line and over HTTP): no answer — standard
//! output, standard error, a JSON body, a tool's text, a resource, an
//! error's message — holds the marker raw. A flagged text may show as its
//! `[BLOCKED: …]` placeholder (which names ids and files, never the text).
//!
//! Every leak is collected; the test fails once, listing each as
//! `surface / request / where: the planted tags that showed`.

mod calls;
mod examples;
mod plant;

use std::collections::{BTreeMap, BTreeSet};

use memdir::api::errors::Surface;
use memdir::api::{Request, Who, render};
use rmcp::model::{CallToolRequestParams, ReadResourceRequestParams, ResourceContents};
use serde_json::{Value, json};

use crate::http::{make_key, serve};
use crate::util::{BIN, config_dir};
use calls::{Body, Call, calls};
use examples::examples;
use plant::{AGENT, MARK, Planted, mark};

/// What the sweep found.
#[derive(Default)]
struct Sweep {
    /// Per `surface / request` that leaks: where the marker showed, and
    /// the tags of the planted texts that showed.
    leaks: BTreeMap<String, (BTreeSet<String>, BTreeSet<String>)>,
    /// Answers that say a call of the sweep itself is wrong (a 5xx, a
    /// Python TypeError): printed, so the sweep can be trusted.
    notes: Vec<String>,
    /// How many answers were checked.
    checked: usize,
}

impl Sweep {
    /// Records a leak when `text` holds the marker: the tags after it.
    fn check(&mut self, surface: &str, request: &str, place: &str, text: &str) {
        self.checked += 1;
        let tags: BTreeSet<String> = text
            .match_indices(MARK)
            .map(|(i, _)| {
                text[i + MARK.len()..]
                    .chars()
                    .take_while(char::is_ascii_alphanumeric)
                    .collect()
            })
            .collect();
        if !tags.is_empty() {
            let e = self
                .leaks
                .entry(format!("{surface} / {request}"))
                .or_default();
            e.0.insert(place.to_owned());
            e.1.extend(tags);
        }
    }

    /// Each leak as a line: `surface / request / where: tags`.
    fn lines(&self) -> Vec<String> {
        self.leaks
            .iter()
            .map(|(k, (places, tags))| {
                let places: Vec<&str> = places.iter().map(String::as_str).collect();
                let tags: Vec<&str> = tags.iter().map(String::as_str).collect();
                format!("{k} / {}: {}", places.join(", "), tags.join(", "))
            })
            .collect()
    }
}

/// A short name of a request: its variant and its arguments.
fn label(r: &Request) -> String {
    let mut v = serde_json::to_value(r).expect("a request serializes");
    let name = v["request"].as_str().unwrap_or("?").to_owned();
    if let Some(o) = v.as_object_mut() {
        o.remove("request");
        for bytes in ["content"] {
            if let Some(c) = o.get(bytes).and_then(Value::as_array) {
                let b: Vec<u8> = c
                    .iter()
                    .filter_map(|n| n.as_u64().and_then(|n| u8::try_from(n).ok()))
                    .collect();
                o.insert(
                    bytes.into(),
                    json!(String::from_utf8_lossy(&b).into_owned()),
                );
            }
        }
    }
    let mut args = v.to_string();
    if args.chars().count() > 90 {
        args = args.chars().take(87).collect::<String>() + "...";
    }
    if args == "{}" {
        name
    } else {
        format!("{name} {args}")
    }
}

/// The variants of `Request`, as serde names them (its error for an unknown
/// tag lists them all).
fn variant_names() -> BTreeSet<String> {
    let e = serde_json::from_value::<Request>(json!({"request": "__none__"}))
        .expect_err("no such variant");
    let msg = e.to_string();
    let list = msg.split("expected one of ").nth(1).expect("a list");
    list.split(", ")
        .map(|n| {
            n.trim_matches(|c: char| c == '`' || c.is_whitespace())
                .to_owned()
        })
        .filter(|n| !n.is_empty())
        .collect()
}

/// The variant names of the examples (the run's inner request too).
fn example_names(ex: &[Request]) -> BTreeSet<String> {
    ex.iter()
        .map(|r| {
            serde_json::to_value(r).expect("json")["request"]
                .as_str()
                .expect("tag")
                .to_owned()
        })
        .collect()
}

/// The library's interface in-process, as the agent: each answer rendered
/// for each surface (text and JSON), each error's text, JSON and message.
fn sweep_api(p: &Planted, ex: &[Request], out: &mut Sweep) {
    let store = memdir::Store::open(&p.s.root).expect("open the store");
    let who = Who {
        caller: memdir::Caller::Agent(AGENT.into()),
        named: None,
        raw: false,
    };
    for r in ex {
        let name = label(r);
        match memdir::api::execute(&store, &who, r.clone()) {
            Ok(resp) => {
                out.check(
                    "api",
                    &name,
                    "json",
                    &render::json(&resp).value().to_string(),
                );
                // The surfaces differ in a hint's words only: one place
                // per form, whichever surface showed it.
                for surface in Surface::ALL {
                    for json in [false, true] {
                        let shown = render::render_on(&resp, json, surface);
                        let form = if json { "json" } else { "text" };
                        out.check(
                            "api",
                            &name,
                            &format!("render {form}"),
                            &shown.stdout.text(),
                        );
                        out.check("api", &name, "warnings", &shown.warnings.text());
                    }
                }
            }
            Err(e) => {
                out.check("api", &name, "error_json", &render::error_json(&e).text());
                for surface in Surface::ALL {
                    out.check(
                        "api",
                        &name,
                        "error_text",
                        &render::error_text(&e, surface).text(),
                    );
                }
                out.check("api", &name, "Display", &e.to_string());
            }
        }
    }
}

/// The command line as the agent, every call as text and as `--json`.
fn sweep_cli(p: &Planted, ex: &[Request], out: &mut Sweep) {
    for r in ex {
        let name = label(r);
        for call in calls(r, p) {
            let Call::Cli(args, stdin) = call else {
                continue;
            };
            let surface = if args.first().is_some_and(|a| a == "tool") {
                "memory tool (cli)"
            } else {
                "cli"
            };
            for json in [false, true] {
                let mut argv: Vec<&str> = Vec::new();
                if json {
                    argv.push("--json");
                }
                argv.extend(args.iter().map(String::as_str));
                let run = p.s.run_as_stdin(AGENT, &argv, &stdin);
                let form = if json { "--json" } else { "text" };
                out.check(surface, &name, &format!("{form} stdout"), &run.text());
                out.check(surface, &name, &format!("{form} stderr"), &run.stderr);
            }
        }
    }
    // `memdir sync`, no request of the interface: what it said of the
    // change it pulled.
    out.check("cli", "sync", "text stdout", &p.sync.text());
    out.check("cli", "sync", "text stderr", &p.sync.stderr);
}

/// One MCP tool call: its text (an error's message when the call itself
/// failed), and whether it is an error.
async fn mcp_call(c: &crate::mcp::Client, tool: &'static str, args: &Value) -> String {
    let Value::Object(map) = args.clone() else {
        panic!("arguments must be an object")
    };
    match c
        .call_tool(CallToolRequestParams::new(tool).with_arguments(map))
        .await
    {
        Ok(r) => r
            .content
            .iter()
            .filter_map(|c| c.as_text().map(|t| t.text.clone()))
            .collect::<Vec<_>>()
            .join(""),
        Err(e) => format!("protocol error: {e}"),
    }
}

/// One MCP resource read: its text, or the error's message.
async fn mcp_read(c: &crate::mcp::Client, uri: &str) -> String {
    match c.read_resource(ReadResourceRequestParams::new(uri)).await {
        Ok(r) => r
            .contents
            .iter()
            .map(|c| match c {
                ResourceContents::TextResourceContents { text, .. } => text.clone(),
                other => format!("{other:?}"),
            })
            .collect::<Vec<_>>()
            .join("\n"),
        Err(e) => format!("protocol error: {e}"),
    }
}

/// `memdir --owner AGENT mcp`: the tools and the resources.
fn sweep_mcp(p: &Planted, ex: &[Request], out: &mut Sweep) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime");
    rt.block_on(async {
        let client = crate::mcp::start(&p.s, &["--owner", AGENT], &[]).await;
        for r in ex {
            let name = label(r);
            for call in calls(r, p) {
                match call {
                    Call::Mcp(tool, args) => {
                        let text = mcp_call(&client, tool, &args).await;
                        let what = args["action"].as_str().unwrap_or(tool);
                        out.check("mcp", &name, &format!("tool {tool} {what}"), &text);
                    }
                    Call::Resource(uri) => {
                        let text = mcp_read(&client, &uri).await;
                        out.check("mcp", &name, &format!("resource {uri}"), &text);
                    }
                    _ => {}
                }
            }
        }
        let _ = client.cancel().await;
    });
}

/// `memdir serve` with the agent's key: both families, the memory tool's
/// route, the dashboard's link pages. Leaves the server running for the
/// Python package's HTTP transport: its URL and the key.
fn sweep_http(p: &Planted, ex: &[Request], out: &mut Sweep) -> (crate::http::Server, String) {
    let key = make_key(&p.s, &["--owner", AGENT]);
    let srv = serve(&p.s, &["--review-every", "0"]);
    for r in ex {
        let name = label(r);
        for call in calls(r, p) {
            let (place, answer) = match call {
                Call::Http(method, path, body) => {
                    let a = match (method, body) {
                        ("GET", _) if path.starts_with("/ui/") => srv.get(None, &path),
                        ("GET", _) => srv.get(Some(&key), &path),
                        ("POST", Body::Json(b)) if path.starts_with("/ui/") => {
                            srv.post(None, &path, b)
                        }
                        ("POST", Body::Json(b)) => srv.post(Some(&key), &path, b),
                        ("PATCH", Body::Json(b)) => srv.patch(&key, &path, b),
                        ("PUT", Body::Bytes(ctype, b)) => srv.put(&key, &path, ctype, &b),
                        (m, _) => srv.any(&key, m, &path),
                    };
                    (format!("{method} {path}"), a)
                }
                Call::HttpJob(body) => {
                    let started = srv.post(Some(&key), "/api/v1/reviews", body);
                    out.check("http", &name, "POST /api/v1/reviews", &started.body);
                    let v: Value = serde_json::from_str(&started.body).unwrap_or(Value::Null);
                    let Some(job) = v["job"].as_str().map(str::to_owned) else {
                        out.notes
                            .push(format!("http / {name}: no job: {}", started.body));
                        continue;
                    };
                    // Poll the job (each poll a request: no sleep) until it
                    // is done or failed.
                    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
                    let path = format!("/api/v1/reviews/jobs/{job}");
                    let done = loop {
                        let a = srv.get(Some(&key), &path);
                        let v: Value = serde_json::from_str(&a.body).unwrap_or(Value::Null);
                        if v["status"] != "running" || std::time::Instant::now() > deadline {
                            break a;
                        }
                    };
                    (format!("GET {path}"), done)
                }
                _ => continue,
            };
            let surface = if place.contains("/v1/memory/tool") {
                "memory tool (http)"
            } else if place.contains(" /api/v1/") {
                "http /api/v1"
            } else if place.contains(" /ui/") {
                "http /ui"
            } else {
                "http /v1"
            };
            if answer.status >= 500 {
                out.notes
                    .push(format!("{surface} / {name} / {place}: {}", answer.status));
            }
            out.check(surface, &name, &format!("{place} body"), &answer.body);
        }
    }
    (srv, key)
}

/// The venv's interpreter (`MEMDIR_PYTHON`), or `None` to skip the Python
/// surface (a failure under `MEMDIR_REQUIRE_PYTHON=1`).
fn python() -> Option<String> {
    match std::env::var("MEMDIR_PYTHON") {
        Ok(p) if !p.is_empty() => Some(p),
        _ => {
            assert!(
                std::env::var("MEMDIR_REQUIRE_PYTHON").as_deref() != Ok("1"),
                "MEMDIR_REQUIRE_PYTHON=1 but MEMDIR_PYTHON is not set"
            );
            crate::util::not_run("the Python package's half: set MEMDIR_PYTHON to a python");
            None
        }
    }
}

/// The script the Python surface runs: each call's expression on a
/// `Memory` through the command line, then over HTTP; one JSON list of
/// `[transport, index, outcome, text]` on standard output.
const PY: &str = r#"
import json, sys
sys.path.insert(0, sys.argv[2])
from memdir import Memory
args = json.loads(sys.argv[1])
out = []
for transport in ("cli", "http"):
    if transport == "cli":
        m = Memory(root=args["root"], owner=args["owner"], binary=args["bin"], config_dir=args["config"])
    else:
        m = Memory(url=args["url"], key=args["key"])
    for j, expr in enumerate(args["calls"]):
        try:
            r = eval(expr)
            out.append([transport, j, "answer", repr(r)])
        except Exception as e:
            out.append([transport, j, type(e).__name__, str(e) + " " + repr(vars(e) if hasattr(e, "__dict__") else e)])
print(json.dumps(out))
"#;

/// The Python package: every call through the command line and over
/// HTTP (the server of the HTTP sweep).
fn sweep_python(
    p: &Planted,
    ex: &[Request],
    srv: &crate::http::Server,
    key: &str,
    out: &mut Sweep,
) {
    let Some(python) = python() else { return };
    let mut list = Vec::new();
    for (i, r) in ex.iter().enumerate() {
        for call in calls(r, p) {
            if let Call::Python(expr) = call {
                list.push((i, expr));
            }
        }
    }
    let args = json!({
        "root": p.s.root, "owner": AGENT, "bin": BIN, "config": config_dir(),
        "url": srv.base, "key": key,
        "calls": list.iter().map(|(_, e)| e).collect::<Vec<_>>(),
    });
    let source = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../python");
    let o = std::process::Command::new(&python)
        .arg("-c")
        .arg(PY)
        .arg(args.to_string())
        .arg(&source)
        .env("MEMDIR_BIN", BIN)
        .current_dir(p.s.dir.path())
        .output()
        .unwrap_or_else(|e| panic!("cannot run {python}: {e}"));
    let stdout = String::from_utf8_lossy(&o.stdout);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(
        o.status.success(),
        "the Python sweep failed:\n{stdout}\n{stderr}"
    );
    out.check("python", "(the whole run)", "stderr", &stderr);
    let answers: Vec<(String, usize, String, String)> =
        serde_json::from_str(stdout.trim()).expect("the Python sweep's JSON");
    for (transport, j, outcome, text) in &answers {
        let (i, expr) = &list[*j];
        let surface = if expr.starts_with("m.memory_tool") {
            format!("memory tool (python {transport})")
        } else {
            format!("python {transport}")
        };
        if matches!(
            outcome.as_str(),
            "TypeError" | "AttributeError" | "NameError"
        ) {
            out.notes
                .push(format!("{surface} / {expr}: {outcome}: {text}"));
        }
        out.check(
            &surface,
            &label(&ex[*i]),
            &format!("{expr} -> {outcome}"),
            text,
        );
    }
}

/// `examples` holds every variant of `Request` (`calls` matches them all
/// without a wildcard: a new variant does not compile until it has its
/// calls, and fails here until it has an example).
#[test]
fn every_variant_has_an_example() {
    if !plant::have_git() {
        return;
    }
    let all = variant_names();
    assert!(all.len() > 40, "variants read from serde: {all:?}");
    let p = plant::build();
    let have = example_names(&examples(&p));
    let missing: Vec<&String> = all.difference(&have).collect();
    assert!(
        missing.is_empty(),
        "variants without an example: {missing:?}"
    );
}

/// No answer of any surface holds a planted marker raw.
#[test]
fn no_answer_on_any_surface_holds_a_planted_marker_raw() {
    if !plant::have_git() {
        return;
    }
    assert!(
        !memdir::internals::scan::scan(&mark("Probe")).is_empty(),
        "the marker injection must be a text the scanner flags"
    );
    let p = plant::build();
    let ex = examples(&p);
    let mut out = Sweep::default();
    sweep_api(&p, &ex, &mut out);
    sweep_cli(&p, &ex, &mut out);
    sweep_mcp(&p, &ex, &mut out);
    let (srv, key) = sweep_http(&p, &ex, &mut out);
    sweep_python(&p, &ex, &srv, &key, &mut out);
    drop(srv);
    for n in &out.notes {
        eprintln!("sweep note: {n}");
    }
    eprintln!(
        "sweep: {} answers checked, {} leak(s)",
        out.checked,
        out.leaks.len()
    );
    assert!(
        out.leaks.is_empty(),
        "{} answer(s) hold a planted marker raw (surface / request / where: planted tags):\n{}",
        out.leaks.len(),
        out.lines().join("\n")
    );
}
