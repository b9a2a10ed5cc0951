//! The HTTP contract, checked: every route of docs/API.md's route tables
//! answers (on a real `memdir serve`, through a real client) JSON that
//! validates against its schema in `docs/schema/http/` (draft 2020-12),
//! success and failure; a route with no schema fails here, and so does a
//! drifted answer.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::http::{Answer, Server, make_key, serve};
use crate::util::Sandbox;
use crate::util::{Collect, wrong};

fn schema_root() -> PathBuf {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/..")).join("docs/schema")
}

/// The schemas' `$id`s are `https://memdir.invalid/schema/…`: a `$ref`
/// between them (`../list.json`) is read from `docs/schema/`, nothing else.
struct Files;

impl jsonschema::Retrieve for Files {
    fn retrieve(
        &self,
        uri: &jsonschema::Uri<String>,
    ) -> Result<Value, Box<dyn std::error::Error + Send + Sync>> {
        let rel = uri
            .as_str()
            .strip_prefix("https://memdir.invalid/schema/")
            .ok_or_else(|| format!("not a memdir schema: {}", uri.as_str()))?;
        let rel = rel.split('#').next().unwrap_or(rel);
        Ok(serde_json::from_str(&std::fs::read_to_string(
            schema_root().join(rel),
        )?)?)
    }
}

/// The schema `http/<name>.json`, compiled as draft 2020-12.
pub(crate) fn validator(name: &str) -> jsonschema::Validator {
    let path = schema_root().join(format!("http/{name}.json"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    let schema: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    assert_eq!(
        schema["$schema"], "https://json-schema.org/draft/2020-12/schema",
        "{name}"
    );
    jsonschema::options()
        .with_draft(jsonschema::Draft::Draft202012)
        .with_retriever(Files)
        .build(&schema)
        .unwrap_or_else(|e| panic!("{path:?}: {e}"))
}

/// Validates the answer's JSON against `http/<name>.json` (status checked
/// first); records every violation. `/openapi.json` is its own format: it
/// is `http/openapi.json` itself (the document derived from the route
/// table, tests/it/schema_derived.rs), which is an OpenAPI 3.1 document.
#[track_caller]
fn check(name: &str, status: u16, a: &Answer) -> Value {
    if a.status != status || !a.ctype.starts_with("application/json") {
        wrong(format!("{name}: expected {status} JSON, got {a:?}"));
    }
    let v: Value = serde_json::from_str(&a.body).unwrap_or(Value::Null);
    if name == "openapi" {
        let path = schema_root().join("http/openapi.json");
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        let committed: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
        if v != committed || !v["openapi"].as_str().is_some_and(|o| o.starts_with("3.1.")) {
            wrong(format!("GET /openapi.json is not {}", path.display()));
        }
        return v;
    }
    let errors: Vec<String> = validator(name)
        .iter_errors(&v)
        .map(|e| format!("{}: {e}", e.instance_path()))
        .collect();
    if !errors.is_empty() {
        wrong(format!("{name}: {errors:?}\n  answer: {v}"));
    }
    v
}

/// A failure: the error envelope with `code`.
#[track_caller]
fn fails(code: &str, status: u16, a: &Answer) {
    let v = check("error", status, a);
    if v["error"]["code"] != code {
        wrong(format!("expected {code}: {v}"));
    }
}

/// Which schema answers each `METHOD /path` of the route table.
const SCHEMAS: &[(&str, &str)] = &[
    ("GET /healthz", "healthz"),
    ("GET /openapi.json", "openapi"),
    ("GET /v1/snapshot", "snapshot"),
    ("GET /v1/memory/recall", "recall"),
    ("POST /v1/memory/remember", "remember"),
    ("POST /v1/memory/forget", "forget"),
    ("POST /v1/memory/tool", "memory-tool"),
    ("GET /v1/workflows/results/{workflowId}/{taskId}", "result"),
    (
        "PUT /v1/workflows/results/{workflowId}/{taskId}",
        "result-put",
    ),
    ("GET /v1/agents/results/{workflowId}/{taskId}", "result"),
    ("PUT /v1/agents/results/{workflowId}/{taskId}", "result-put"),
    ("GET /v1/skills", "skills"),
    ("POST /v1/skills", "skill-save"),
    ("GET /v1/skills/{name}", "skill-show"),
    ("DELETE /v1/skills/{name}", "skill-forget"),
    ("POST /api/v1/memories", "memory"),
    ("POST /api/v1/memories/day", "day"),
    ("GET /api/v1/memories", "memories"),
    ("POST /api/v1/memories/recall", "memories-recall"),
    ("POST /api/v1/memories/{id}/archive", "transition"),
    ("POST /api/v1/memories/{id}/unarchive", "transition"),
    ("POST /api/v1/memories/{id}/resolve", "transition"),
    ("POST /api/v1/memories/{id}/veto", "transition"),
    ("PATCH /api/v1/memories/{id}", "memory-edit"),
    ("POST /api/v1/learnings", "learning"),
    ("GET /api/v1/learnings", "learnings"),
    ("POST /api/v1/learnings/{id}/approve", "learning"),
    ("POST /api/v1/learnings/{id}/reject", "learning"),
    ("POST /api/v1/learnings/{id}/retire", "learning"),
    ("GET /api/v1/pending", "pending"),
    ("GET /api/v1/pending/{id}", "pending-show"),
    ("POST /api/v1/pending/{id}/approve", "pending-decision"),
    ("POST /api/v1/pending/{id}/reject", "pending-decision"),
    ("POST /api/v1/reviews", "review-job"),
    ("GET /api/v1/reviews/jobs/{job}", "review-job"),
    ("GET /api/v1/reviews/history", "review-history"),
    ("POST /v1/runs", "run-begin"),
    ("POST /v1/runs/{runId}/finish", "day"),
    ("POST /v1/command", "command"),
    ("GET /v1/mcp/tools", "mcp-tools"),
    ("POST /v1/mcp/call", "mcp-call"),
    ("GET /v1/sync", "sync-status"),
];

#[test]
#[allow(
    clippy::too_many_lines,
    reason = "one scenario: every answer of the HTTP API in turn, each step's ids feeding the next"
)]
fn every_http_answer_validates_against_its_schema() {
    let _collect = Collect::start();
    let s = Sandbox::new();
    let k = make_key(&s, &["--owner", "agt_1"]);
    let p = make_key(&s, &["--person", "ann"]);
    let srv: Server = serve(&s, &["--review-every", "0"]);
    let key = k.as_str();
    let k = Some(key);
    let mut used = BTreeSet::new();
    let mut ok = |name: &'static str, status: u16, a: &Answer| {
        used.insert(name);
        check(name, status, a)
    };

    ok("healthz", 200, &srv.get(None, "/healthz"));
    ok("openapi", 200, &srv.get(None, "/openapi.json"));
    fails("unauthorized", 401, &srv.get(None, "/v1/snapshot"));
    ok("snapshot", 200, &srv.get(k, "/v1/snapshot"));
    // A server started without --sync: its syncing is off.
    let off = ok("sync-status", 200, &srv.get(k, "/v1/sync"));
    assert_eq!(off["state"], "off", "{off}");
    fails("unauthorized", 401, &srv.get(None, "/v1/sync"));

    // The One API's memory.
    let body = json!({"text": "Prefers weekly summaries", "scope": "user"});
    let added = ok(
        "remember",
        201,
        &srv.post(k, "/v1/memory/remember", body.clone()),
    );
    assert_eq!(added["message"], "added");
    ok("remember", 200, &srv.post(k, "/v1/memory/remember", body));
    fails(
        "invalid_request",
        400,
        &srv.post(k, "/v1/memory/remember", json!({"scope": "user"})),
    );
    ok("recall", 200, &srv.get(k, "/v1/memory/recall"));
    let ranked = ok("recall", 200, &srv.get(k, "/v1/memory/recall?q=weekly"));
    assert!(ranked["entries"][0]["score"].is_number(), "{ranked}");
    ok(
        "forget",
        200,
        &srv.post(k, "/v1/memory/forget", json!({"text": "weekly"})),
    );
    fails(
        "memory_not_found",
        404,
        &srv.post(k, "/v1/memory/forget", json!({"text": "weekly"})),
    );

    // Results, on both paths (one store: a workflow each).
    for (base, wf) in [
        ("/v1/workflows/results", "exec-1"),
        ("/v1/agents/results", "exec-3"),
    ] {
        let path = format!("{base}/{wf}/web");
        ok(
            "result-put",
            201,
            &srv.put(key, &path, "text/markdown", b"report"),
        );
        ok(
            "result-put",
            200,
            &srv.put(key, &path, "text/markdown", b"report"),
        );
        fails(
            "result_exists",
            409,
            &srv.put(key, &path, "text/markdown", b"other"),
        );
        ok("result", 200, &srv.get(k, &path));
        fails("not_ready", 404, &srv.get(k, &format!("{base}/{wf}/no")));
        fails("result_not_found", 404, &srv.get(k, &format!("{base}/x/y")));
    }
    let bin = "/v1/agents/results/exec-2/bin";
    ok(
        "result-put",
        201,
        &srv.put(key, bin, "application/octet-stream", &[0, 159, 1]),
    );
    let b = ok("result", 200, &srv.get(k, bin));
    assert!(
        b["content"].is_null() && b["content_base64"].is_string(),
        "{b}"
    );

    // Skills.
    let skill =
        json!({"name": "cnl", "content": "# CNL\nCheck the trace.", "description": "Debug"});
    ok("skill-save", 201, &srv.post(k, "/v1/skills", skill.clone()));
    ok("skill-save", 200, &srv.post(k, "/v1/skills", skill));
    fails(
        "skill_exists",
        409,
        &srv.post(k, "/v1/skills", json!({"name": "cnl", "content": "other"})),
    );
    ok("skills", 200, &srv.get(k, "/v1/skills"));
    ok("skill-show", 200, &srv.get(k, "/v1/skills/cnl"));
    ok(
        "skill-forget",
        200,
        &srv.any(key, "DELETE", "/v1/skills/cnl"),
    );
    fails("skill_not_found", 404, &srv.get(k, "/v1/skills/cnl"));

    // Claude's memory tool: a refusal is a tool result (200), a bad input
    // an error.
    let t = ok(
        "memory-tool",
        200,
        &srv.post(
            k,
            "/v1/memory/tool",
            json!({"command": "view", "path": "/memories"}),
        ),
    );
    if t["is_error"] != false {
        wrong(format!("the memory tool's view: {t}"));
    }
    let t = ok(
        "memory-tool",
        200,
        &srv.post(
            k,
            "/v1/memory/tool",
            json!({"command": "delete", "path": "/memories/MEMORY.md"}),
        ),
    );
    if t["is_error"] != true {
        wrong(format!("the memory tool's refusal: {t}"));
    }
    fails(
        "invalid_request",
        400,
        &srv.post(k, "/v1/memory/tool", json!({"command": "undo"})),
    );

    // Facts.
    let fact = json!({"text": "The staging deploy needs the VPN on", "expiresAt": "2999-12-31"});
    let row = ok(
        "memory",
        201,
        &srv.post(k, "/api/v1/memories", fact.clone()),
    );
    ok("memory", 200, &srv.post(k, "/api/v1/memories", fact));
    fails(
        "invalid_expiry",
        400,
        &srv.post(
            k,
            "/api/v1/memories",
            json!({"text": "x", "expiresAt": "soonish"}),
        ),
    );
    let id = row["id"].as_str().unwrap().to_owned();
    ok(
        "day",
        201,
        &srv.post(k, "/api/v1/memories/day", json!({"line": "did a thing"})),
    );
    let begun = ok(
        "run-begin",
        201,
        &srv.post(k, "/v1/runs", json!({"task": "T-1", "session": "s-1"})),
    );
    ok(
        "run-begin",
        200,
        &srv.post(k, "/v1/runs", json!({"session": "s-1"})),
    );
    let run_id = begun["run_id"].as_str().unwrap_or_default().to_owned();
    ok(
        "day",
        201,
        &srv.post(
            k,
            &format!("/v1/runs/{run_id}/finish"),
            json!({"text": "done"}),
        ),
    );
    fails(
        "run_finished",
        409,
        &srv.post(k, &format!("/v1/runs/{run_id}/finish"), json!({})),
    );
    ok("memories", 200, &srv.get(k, "/api/v1/memories"));
    ok(
        "memories",
        200,
        &srv.get(Some(&p), "/api/v1/memories?kind=fact"),
    );
    ok(
        "memories-recall",
        200,
        &srv.post(k, "/api/v1/memories/recall", json!({"query": "staging"})),
    );
    ok(
        "transition",
        200,
        &srv.post(
            k,
            &format!("/api/v1/memories/{id}/archive"),
            json!({"reason": "done"}),
        ),
    );
    fails(
        "memory_wrong_state",
        409,
        &srv.post(
            k,
            &format!("/api/v1/memories/{id}/archive"),
            json!({"reason": "again"}),
        ),
    );
    ok(
        "transition",
        200,
        &srv.post(k, &format!("/api/v1/memories/{id}/unarchive"), json!({})),
    );
    fails(
        "person_only",
        403,
        &srv.patch(key, &format!("/api/v1/memories/{id}"), json!({"text": "y"})),
    );
    let edited = ok(
        "memory-edit",
        200,
        &srv.patch(
            &p,
            &format!("/api/v1/memories/{id}"),
            json!({"text": "The staging deploy needs the VPN", "agentId": "agt_1"}),
        ),
    );
    assert_eq!(edited["old_id"], id.as_str());
    let new_id = edited["id"].as_str().unwrap();
    ok(
        "transition",
        200,
        &srv.post(
            Some(&p),
            &format!("/api/v1/memories/{new_id}/veto"),
            json!({"agentId": "agt_1", "reason": "no"}),
        ),
    );
    fails(
        "memory_veto_human_only",
        403,
        &srv.post(k, &format!("/api/v1/memories/{new_id}/veto"), json!({})),
    );

    // Learnings.
    let proposed = ok(
        "learning",
        201,
        &srv.post(
            k,
            "/api/v1/learnings",
            json!({"text": "Deploys need the VPN"}),
        ),
    );
    let lid = proposed["learning"]["id"]
        .as_str()
        .unwrap_or("?")
        .to_owned();
    ok(
        "learning",
        200,
        &srv.post(
            k,
            "/api/v1/learnings",
            json!({"text": "Deploys need the VPN"}),
        ),
    );
    ok("learnings", 200, &srv.get(k, "/api/v1/learnings"));
    fails(
        "person_only",
        403,
        &srv.post(k, &format!("/api/v1/learnings/{lid}/approve"), json!({})),
    );
    fails(
        "learning_changed",
        409,
        &srv.post(
            Some(&p),
            &format!("/api/v1/learnings/{lid}/approve"),
            json!({"seenText": "Deploys need no VPN"}),
        ),
    );
    ok(
        "learning",
        200,
        &srv.post(
            Some(&p),
            &format!("/api/v1/learnings/{lid}/approve"),
            json!({"seenText": "Deploys need the VPN"}),
        ),
    );
    ok(
        "learning",
        200,
        &srv.post(
            Some(&p),
            &format!("/api/v1/learnings/{lid}/retire"),
            json!({}),
        ),
    );
    let other = ok(
        "learning",
        201,
        &srv.post(k, "/api/v1/learnings", json!({"text": "Tabs are best"})),
    );
    let oid = other["learning"]["id"].as_str().unwrap_or("?").to_owned();
    ok(
        "learning",
        200,
        &srv.post(
            Some(&p),
            &format!("/api/v1/learnings/{oid}/reject"),
            json!({"reason": "taste"}),
        ),
    );
    fails(
        "learning_not_found",
        404,
        &srv.post(
            Some(&p),
            "/api/v1/learnings/mem_000000000000/reject",
            json!({"reason": "no"}),
        ),
    );

    // Writes that wait for a person (`writes: review`, the owner's file):
    // 202 on both families, then a person's decisions.
    s.write("agt_rev", "memdir.yaml", "writes: review\n");
    let rk = make_key(&s, &["--owner", "agt_rev"]);
    let rk = Some(rk.as_str());
    let waits = ok(
        "remember",
        202,
        &srv.post(
            rk,
            "/v1/memory/remember",
            json!({"text": "Invoices go out on the first"}),
        ),
    );
    let first = waits["pending_id"].as_str().unwrap_or("?").to_owned();
    // (The facts' 202 carries the id alone for its row: no row until a
    // person approves it.)
    let saved = srv.post(
        rk,
        "/api/v1/memories",
        json!({"text": "Standups are at nine"}),
    );
    if saved.status != 202 {
        wrong(format!("a pending save: {saved:?}"));
    }
    let saved = saved.json();
    let second = saved["pending_id"].as_str().unwrap_or("?").to_owned();
    ok("pending", 200, &srv.get(rk, "/api/v1/pending"));
    ok(
        "pending-show",
        200,
        &srv.get(rk, &format!("/api/v1/pending/{first}")),
    );
    fails(
        "pending_not_found",
        404,
        &srv.get(rk, "/api/v1/pending/pnd_000000000000"),
    );
    fails(
        "person_only",
        403,
        &srv.post(rk, &format!("/api/v1/pending/{first}/approve"), json!({})),
    );
    ok(
        "pending-decision",
        200,
        &srv.post(
            Some(&p),
            &format!("/api/v1/pending/{first}/approve"),
            json!({"agentId": "agt_rev"}),
        ),
    );
    ok(
        "pending-decision",
        200,
        &srv.post(
            Some(&p),
            &format!("/api/v1/pending/{second}/reject"),
            json!({"agentId": "agt_rev", "reason": "not a fact"}),
        ),
    );

    // A review in the background: started, then polled until it ends.
    let started = ok(
        "review-job",
        202,
        &srv.post(k, "/api/v1/reviews", json!({})),
    );
    let job = format!(
        "/api/v1/reviews/jobs/{}",
        started["job"].as_str().unwrap_or("?")
    );
    let since = std::time::Instant::now();
    loop {
        let v = ok("review-job", 200, &srv.get(k, &job));
        if v["status"] != "running" || since.elapsed() > std::time::Duration::from_secs(60) {
            if v["status"] != "done" {
                wrong(format!("the review job: {v}"));
            }
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    fails(
        "review_not_found",
        404,
        &srv.get(k, "/api/v1/reviews/jobs/job-0000000000000000"),
    );
    let history = ok(
        "review-history",
        200,
        &srv.get(k, "/api/v1/reviews/history?limit=5"),
    );
    if history["limit"] != 5 {
        wrong(format!("the review history: {history}"));
    }
    fails(
        "invalid_request",
        400,
        &srv.get(k, "/api/v1/reviews/history?limit=many"),
    );

    // What an agent kept apart calls (`--url`, `mcp --url`).
    let printed = ok(
        "command",
        200,
        &srv.post(
            k,
            "/v1/command",
            json!({"request": {"request": "snapshot"}, "json": true}),
        ),
    );
    if printed["exit"] != 0 {
        wrong(format!("the command: {printed}"));
    }
    let refused = ok(
        "command",
        200,
        &srv.post(
            k,
            "/v1/command",
            json!({"request": {"request": "approve", "id": "mem_000000000000"}}),
        ),
    );
    if refused["exit"] == 0 || !refused["stderr"].as_str().unwrap_or("").contains("person") {
        wrong(format!("an agent's approval: {refused}"));
    }
    ok("mcp-tools", 200, &srv.get(k, "/v1/mcp/tools"));
    ok(
        "mcp-call",
        200,
        &srv.post(
            k,
            "/v1/mcp/call",
            json!({"name": "memory", "arguments": {"action": "recall"}}),
        ),
    );
    ok(
        "mcp-call",
        200,
        &srv.post(k, "/v1/mcp/call", json!({"name": "approve"})),
    );

    // The transport's.
    fails("route_not_found", 404, &srv.get(k, "/v1/nothing"));
    fails(
        "method_not_allowed",
        405,
        &srv.any(key, "PATCH", "/v1/skills"),
    );

    used.insert("error");
    let all: BTreeSet<&str> = SCHEMAS.iter().map(|(_, n)| *n).chain(["error"]).collect();
    assert_eq!(used, all, "every schema validated an answer");
    let files: BTreeSet<String> = std::fs::read_dir(schema_root().join("http"))
        .unwrap()
        .map(|e| {
            e.unwrap()
                .file_name()
                .to_string_lossy()
                .replace(".json", "")
        })
        .collect();
    let all: BTreeSet<String> = all.into_iter().map(str::to_owned).collect();
    assert_eq!(files, all, "a schema file no route answers with");
}

/// `METHOD /path` of every row of docs/API.md's route tables (the query
/// dropped; `PUT` on the same paths as the row before it). The dashboard's
/// pages (rows `| page: \`GET /ui/…\``) are HTML, with no schema: they are
/// not read here.
fn documented_routes() -> BTreeSet<String> {
    let doc = std::fs::read_to_string(
        Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/..")).join("docs/API.md"),
    )
    .unwrap();
    let mut out = BTreeSet::new();
    let mut last: Vec<String> = Vec::new();
    for line in doc.lines() {
        let Some(cell) = line
            .strip_prefix("| `")
            .map(|l| l.split(" |").next().unwrap())
        else {
            continue;
        };
        let mut here = Vec::new();
        for code in cell.split('`').step_by(2) {
            let mut w = code.split_whitespace();
            if let (Some(m), Some(p)) = (w.next(), w.next())
                && ["GET", "POST", "PUT", "PATCH", "DELETE"].contains(&m)
                && p.starts_with('/')
            {
                here.push(format!("{m} {}", p.split('?').next().unwrap()));
            }
        }
        if cell.starts_with("PUT` on the same paths") {
            here = last.iter().map(|r| r.replacen("GET ", "PUT ", 1)).collect();
        }
        if !here.is_empty() {
            out.extend(here.iter().cloned());
            last = here;
        }
    }
    out
}

#[test]
fn every_documented_route_has_a_schema() {
    let routes = documented_routes();
    assert!(routes.len() >= 20, "{routes:?}");
    let mapped: BTreeSet<String> = SCHEMAS.iter().map(|(r, _)| (*r).to_owned()).collect();
    for r in &routes {
        assert!(mapped.contains(r), "route {r} of docs/API.md has no schema");
    }
    for (r, name) in SCHEMAS {
        assert!(routes.contains(*r), "{r}: not a route of docs/API.md");
        assert!(
            schema_root().join(format!("http/{name}.json")).is_file(),
            "{name}"
        );
    }
    // And the router's: every operation /openapi.json lists, with the
    // schema it names for its answer.
    let s = Sandbox::new();
    let srv = serve(&s, &["--review-every", "0"]);
    let doc = srv.get(None, "/openapi.json").json();
    for (path, ops) in doc["paths"].as_object().unwrap() {
        for (m, op) in ops.as_object().unwrap() {
            // The dashboard's pages are HTML (tests/it/ui.rs), not JSON.
            if op["x-dashboard"] == true {
                continue;
            }
            let r = format!("{} {path}", m.to_uppercase());
            assert!(mapped.contains(&r), "the router's {r} has no schema");
            let name = SCHEMAS.iter().find(|(route, _)| *route == r).unwrap().1;
            if name != "openapi" {
                assert_eq!(
                    op["x-answer"],
                    format!("docs/schema/http/{name}.json"),
                    "{r}: the router's answer is not the schema the test checks it with"
                );
            }
        }
    }
}

/// The schemas fail on drift: an unknown key, a missing key, a wrong type,
/// in an HTTP answer's own keys and in a key it shares with the CLI's.
#[test]
fn a_drifted_http_answer_fails_its_schema() {
    let s = Sandbox::new();
    let k = make_key(&s, &["--owner", "agt_1"]);
    let srv = serve(&s, &["--review-every", "0"]);
    let v = srv
        .post(
            Some(&k),
            "/v1/memory/remember",
            json!({"text": "A fact", "scope": "memory"}),
        )
        .json();
    let is = |name: &str, v: &Value| validator(name).is_valid(v);
    assert!(is("remember", &v), "{v}");
    let mut extra = v.clone();
    extra["run"] = json!("run-1");
    assert!(!is("remember", &extra), "an unknown key");
    let mut missing = v.clone();
    missing.as_object_mut().unwrap().remove("budget");
    assert!(!is("remember", &missing), "a missing key");
    let mut retyped = v.clone();
    retyped["budget"] = json!("1% — 10/2200 chars");
    assert!(!is("remember", &retyped), "budget as a string");
    let mut loose = v.clone();
    loose["budget"]["text"] = json!("x");
    assert!(!is("remember", &loose), "budget is {{used, limit}} only");

    let row = srv
        .post(
            Some(&k),
            "/api/v1/memories",
            json!({"text": "Another fact"}),
        )
        .json();
    assert!(is("memory", &row), "{row}");
    let mut retyped = row.clone();
    retyped["recall_count"] = json!("0");
    assert!(
        !is("memory", &retyped),
        "a row key retyped (by $ref to list.json)"
    );
    let mut missing = row.clone();
    missing.as_object_mut().unwrap().remove("usage");
    assert!(!is("memory", &missing), "usage missing");

    let e = srv.get(Some(&k), "/v1/skills/nothing").json();
    assert!(is("error", &e), "{e}");
    assert!(!is("error", &e["error"]), "not wrapped in error");
}
