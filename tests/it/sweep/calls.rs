//! The calls that make a [`Request`] on each surface an agent uses.
//! [`calls`] matches `Request` without a wildcard, so a new variant does
//! not compile until it says what each surface does with it; the test
//! `every_variant_has_an_example` fails until `examples` holds one of it.

use memdir::api::servers::ForgetKey;
use memdir::api::types::{FactKind, Keep, Status};
use memdir::api::types::{Op, Scope};
use memdir::api::{Request, RunRef};
use serde_json::{Value, json};

use super::plant::{AGENT, Planted};

/// A body of an HTTP call.
pub enum Body {
    None,
    Json(Value),
    Bytes(&'static str, Vec<u8>),
}

/// One call on one surface.
pub enum Call {
    /// `memdir --root R --owner AGENT ARGS` (once as text, once with
    /// `--json`), with standard input.
    Cli(Vec<String>, Vec<u8>),
    /// A tool of `memdir --owner AGENT mcp`.
    Mcp(&'static str, Value),
    /// A resource of the MCP server.
    Resource(String),
    /// A route of `memdir serve`, with the agent's key.
    Http(&'static str, String, Body),
    /// `POST /api/v1/reviews` with the body, then its job polled until done.
    HttpJob(Value),
    /// A method call on the Python package's `Memory` (`m`), once through
    /// the command line and once over HTTP: a Python expression.
    Python(String),
}

fn cli(args: &[&str]) -> Call {
    Call::Cli(args.iter().map(|a| (*a).to_owned()).collect(), Vec::new())
}

fn cli_in(args: &[&str], stdin: impl Into<Vec<u8>>) -> Call {
    Call::Cli(args.iter().map(|a| (*a).to_owned()).collect(), stdin.into())
}

fn mcp(action: &str, mut args: Value) -> Call {
    args["action"] = json!(action);
    Call::Mcp("memory", args)
}

fn http(method: &'static str, path: impl Into<String>, body: Option<Value>) -> Call {
    Call::Http(method, path.into(), body.map_or(Body::None, Body::Json))
}

fn py(expr: impl Into<String>) -> Call {
    Call::Python(expr.into())
}

/// A Python string literal.
fn pys(s: &str) -> String {
    serde_json::to_string(s).expect("json")
}

/// The calls that make `r` on each surface an agent uses; a surface that
/// does not offer the variant makes none.
#[allow(
    clippy::too_many_lines,
    reason = "a table: one arm a Request variant, the calls each surface makes of it"
)]
pub fn calls(r: &Request, p: &Planted) -> Vec<Call> {
    let _ = p;
    match r {
        Request::Write { op } => match op {
            Op::Add { text, scope, .. } => {
                let to = scope_name(*scope);
                vec![
                    cli(&["add", "--to", to, text]),
                    mcp(
                        "remember",
                        json!({"operation": "add", "target": to, "content": text}),
                    ),
                    mcp("save", json!({"content": text})),
                    http(
                        "POST",
                        "/v1/memory/remember",
                        Some(json!({"text": text, "scope": to})),
                    ),
                    http("POST", "/api/v1/memories", Some(json!({"text": text}))),
                    py(format!("m.add({}, to={})", pys(text), pys(to))),
                ]
            }
            Op::Replace { old, new, scope } => {
                let mut args = vec!["replace".to_owned(), old.clone(), new.clone()];
                if let Some(s) = scope {
                    args.extend(["--in".into(), scope_name(*s).into()]);
                }
                let mut m = json!({"operation": "replace", "old_text": old, "content": new});
                if let Some(s) = scope {
                    m["target"] = json!(scope_name(*s));
                }
                vec![
                    Call::Cli(args, Vec::new()),
                    mcp("remember", m),
                    // A person's route: the agent's key is refused.
                    http(
                        "PATCH",
                        format!("/api/v1/memories/{}", old.replace(' ', "%20")),
                        Some(json!({"text": new})),
                    ),
                    py(format!("m.replace({}, {})", pys(old), pys(new))),
                ]
            }
            Op::Remove { old, scope } => {
                let mut m = json!({"operation": "remove", "old_text": old});
                if let Some(s) = scope {
                    m["target"] = json!(scope_name(*s));
                }
                vec![
                    cli(&["remove", old]),
                    mcp("remember", m),
                    http("POST", "/v1/memory/forget", Some(json!({"text": old}))),
                    py(format!("m.remove({})", pys(old))),
                ]
            }
        },
        Request::Batch { ops } => {
            let json = serde_json::to_string(ops).expect("ops");
            vec![
                cli_in(&["batch"], json.clone()),
                py(format!("m.batch(__import__('json').loads({}))", pys(&json))),
            ]
        }
        Request::Show { scope } => match scope {
            None => vec![
                cli(&["show"]),
                mcp("remember", json!({"operation": "read", "target": "memory"})),
                Call::Resource(format!("memdir://{AGENT}/MEMORY.md")),
                http("GET", "/v1/memory/recall", None),
                http("GET", "/v1/memory/recall?q=instructions&format=text", None),
                py("m.show()"),
            ],
            Some(s) => vec![
                cli(&["show", "--in", scope_name(*s)]),
                mcp(
                    "remember",
                    json!({"operation": "read", "target": scope_name(*s)}),
                ),
                Call::Resource(format!("memdir://{AGENT}/{}", s.file_name())),
                http("GET", "/v1/memory/recall?format=markdown", None),
                py(format!("m.show(scope={})", pys(scope_name(*s)))),
            ],
        },
        // The root's lint, as the agent names itself (no other owner).
        Request::Check { .. } => vec![cli(&["check"])],
        // The planted change comes in once: `plant::build` runs `memdir
        // sync` and the sweep checks what it said (`p.sync`).
        Request::Sync { .. } => Vec::new(),
        Request::StoreView { scope } => vec![
            Call::Resource(format!("memdir://{AGENT}/{}", scope.file_name())),
            mcp(
                "remember",
                json!({"operation": "read", "target": scope_name(*scope)}),
            ),
        ],
        Request::RecallEntries { query, .. } => {
            let q = query.clone().unwrap_or_default();
            vec![
                http("GET", format!("/v1/memory/recall?q={q}"), None),
                http("GET", format!("/v1/memory/recall?q={q}&format=text"), None),
            ]
        }
        // What a refused write lists: a remove that matches nothing.
        Request::CurrentEntries => vec![mcp(
            "remember",
            json!({"operation": "remove", "old_text": "no entry holds this"}),
        )],
        Request::Forget { key } => {
            let body = match key {
                ForgetKey::Id(id) => json!({"id": id}),
                ForgetKey::Text(t) => json!({"text": t}),
            };
            vec![http("POST", "/v1/memory/forget", Some(body))]
        }
        Request::Snapshot => vec![
            cli(&["snapshot"]),
            mcp("recall", json!({})),
            Call::Resource(format!("memdir://{AGENT}/snapshot")),
            http("GET", "/v1/snapshot", None),
            py("m.snapshot()"),
        ],
        Request::BeginRun {
            task,
            skills,
            workflow,
            session,
        } => {
            let mut args = vec!["run".to_owned(), "begin".to_owned()];
            let mut body = json!({});
            if let Some(t) = task {
                args.extend(["--task".into(), t.clone()]);
                body["task"] = json!(t);
            }
            for s in skills {
                args.extend(["--skill".into(), s.clone()]);
            }
            if !skills.is_empty() {
                body["skills"] = json!(skills);
            }
            if let Some(w) = workflow {
                args.extend(["--workflow".into(), w.clone()]);
                body["workflow"] = json!(w);
            }
            if let Some(s) = session {
                args.extend(["--session".into(), s.clone()]);
                body["session"] = json!(s);
            }
            vec![
                Call::Cli(args, Vec::new()),
                http("POST", "/v1/runs", Some(body)),
                py(format!(
                    "m.run_begin({}, skills={}, session={})",
                    opt(task),
                    serde_json::to_string(skills).unwrap(),
                    opt(session)
                )),
            ]
        }
        Request::ListRuns { open } => {
            let mut args = vec!["runs", "list"];
            if *open {
                args.push("--open");
            }
            vec![
                cli(&args),
                py(format!("m.runs_list(open={})", pybool(*open))),
            ]
        }
        Request::FinishRun { run, text } => {
            let mut args = vec!["run".to_owned(), "finish".to_owned()];
            match run {
                RunRef::Id(id) => args.push(id.clone()),
                RunRef::Session(s) => args.extend(["--session".into(), s.clone()]),
            }
            if let Some(t) = text {
                args.push(t.clone());
            }
            let mut out = vec![Call::Cli(args, Vec::new())];
            if let RunRef::Id(id) = run {
                out.push(http(
                    "POST",
                    format!("/v1/runs/{id}/finish"),
                    Some(json!({})),
                ));
                out.push(py(format!("m.run_finish({})", pys(id))));
            }
            out
        }
        Request::Day { line, task, run } => {
            let mut args = vec!["day".to_owned()];
            if let Some(t) = task {
                args.extend(["--task".into(), t.clone()]);
            }
            if let Some(r) = run {
                args.extend(["--run".into(), r.clone()]);
            }
            args.push(line.clone());
            vec![
                Call::Cli(args, Vec::new()),
                mcp("day", json!({"content": line})),
                http("POST", "/api/v1/memories/day", Some(json!({"line": line}))),
                py(format!("m.day({}, task={})", pys(line), opt(task))),
            ]
        }
        Request::Log { id, limit, .. } => {
            let mut args = vec!["log".to_owned()];
            if let Some(i) = id {
                args.extend(["--id".into(), i.clone()]);
            }
            if let Some(l) = limit {
                args.extend(["--limit".into(), l.to_string()]);
            }
            vec![Call::Cli(args, Vec::new())]
        }
        Request::SearchRuns { query, .. } => vec![
            cli(&["runs", "search", query]),
            mcp("search_runs", json!({"query": query})),
            py(format!("m.runs_search({})", pys(query))),
        ],
        Request::InRun { run, within } => {
            let RunRef::Id(id) = run else {
                return Vec::new();
            };
            match &**within {
                Request::Recall { query, .. } => {
                    let q = query.clone().unwrap_or_default();
                    vec![
                        cli(&["recall", "--run", id, "--query", &q]),
                        py(format!("m.recall({}, run={})", pys(&q), pys(id))),
                    ]
                }
                Request::Write {
                    op: Op::Add { text, .. },
                } => vec![
                    cli(&["add", "--run", id, text]),
                    http(
                        "POST",
                        "/v1/memory/remember",
                        Some(json!({"text": text, "runId": id})),
                    ),
                    http(
                        "POST",
                        "/api/v1/memories",
                        Some(json!({"text": text, "runId": id})),
                    ),
                    py(format!("m.add({}, run={})", pys(text), pys(id))),
                ],
                Request::Day { line, .. } => vec![cli(&["day", "--run", id, line])],
                // The frozen snapshot of a run: `mcp --run` (a server of its
                // own) serves it; the one server of the sweep is outside runs.
                _ => Vec::new(),
            }
        }
        Request::GetRun { run_id } => vec![
            cli(&["runs", "show", run_id]),
            mcp("get_run", json!({"run_id": run_id})),
            py(format!("m.runs_show({})", pys(run_id))),
        ],
        Request::PutResult {
            workflow_id,
            task_id,
            content,
            ..
        } => {
            let text = String::from_utf8_lossy(content).into_owned();
            vec![
                cli_in(&["result", "put", workflow_id, task_id], content.clone()),
                Call::Mcp(
                    "put_result",
                    json!({"workflow_id": workflow_id, "task_id": task_id, "content": text}),
                ),
                Call::Http(
                    "PUT",
                    format!("/v1/workflows/results/{workflow_id}/{task_id}"),
                    Body::Bytes("text/plain", content.clone()),
                ),
                Call::Http(
                    "PUT",
                    format!("/v1/agents/results/{workflow_id}/{task_id}"),
                    Body::Bytes("text/plain", content.clone()),
                ),
                py(format!(
                    "m.result_put({}, {}, {})",
                    pys(workflow_id),
                    pys(task_id),
                    pys(&text)
                )),
            ]
        }
        Request::GetResult {
            workflow_id,
            task_id,
        } => vec![
            cli(&["result", "get", workflow_id, task_id]),
            Call::Mcp(
                "get_result",
                json!({"workflow_id": workflow_id, "task_id": task_id}),
            ),
            http(
                "GET",
                format!("/v1/workflows/results/{workflow_id}/{task_id}"),
                None,
            ),
            http(
                "GET",
                format!("/v1/agents/results/{workflow_id}/{task_id}"),
                None,
            ),
            py(format!(
                "m.result_get({}, {})",
                pys(workflow_id),
                pys(task_id)
            )),
        ],
        Request::WorkflowResults { workflow_id } => vec![
            cli(&["result", "get", workflow_id]),
            Call::Mcp("get_result", json!({"workflow_id": workflow_id})),
            py(format!("m.result_get({})", pys(workflow_id))),
        ],
        Request::WaitResult {
            workflow_id,
            task_id,
            timeout_secs,
        } => vec![cli(&[
            "result",
            "wait",
            workflow_id,
            task_id,
            "--timeout",
            &timeout_secs.to_string(),
        ])],
        Request::Archive { id, reason } => vec![
            cli(&["archive", id, "--reason", reason]),
            mcp("archive", json!({"id": id, "reason": reason})),
            http(
                "POST",
                format!("/api/v1/memories/{id}/archive"),
                Some(json!({"reason": reason})),
            ),
            py(format!("m.archive({}, {})", pys(id), pys(reason))),
        ],
        Request::Renew { id, expires } => {
            let mut args = vec!["renew".to_owned(), id.clone()];
            if let Some(e) = expires {
                args.extend(["--expires".into(), e.clone()]);
            }
            vec![
                Call::Cli(args, Vec::new()),
                py(format!("m.renew({}, expires={})", pys(id), opt(expires))),
            ]
        }
        Request::RemoveResults {
            workflow_id,
            task_id,
        } => {
            let mut args = vec!["result", "rm", workflow_id.as_str()];
            if let Some(t) = task_id {
                args.push(t);
            }
            vec![cli(&args)]
        }
        Request::GcResults { older_than_days } => vec![cli(&[
            "results",
            "gc",
            "--older-than",
            &older_than_days.to_string(),
        ])],
        Request::Unarchive { id } => vec![
            cli(&["unarchive", id]),
            mcp("unarchive", json!({"id": id})),
            http(
                "POST",
                format!("/api/v1/memories/{id}/unarchive"),
                Some(json!({})),
            ),
            py(format!("m.unarchive({})", pys(id))),
        ],
        Request::Resolve { id, keep } => {
            let k = match keep {
                Keep::Both => "both",
                Keep::Live => "live",
                Keep::One => "one",
            };
            vec![
                cli(&["resolve", id, "--keep", k]),
                mcp("resolve", json!({"id": id, "keep": k})),
                http(
                    "POST",
                    format!("/api/v1/memories/{id}/resolve"),
                    Some(json!({"keep": k})),
                ),
                py(format!("m.resolve({}, {})", pys(id), pys(k))),
            ]
        }
        // The dashboard's forms only: no agent surface sends it.
        Request::Decide { .. } => Vec::new(),
        Request::Veto { id, .. } => vec![
            cli(&["veto", id]),
            // Not listed on an agent's server: called anyway.
            mcp("veto", json!({"id": id})),
            http(
                "POST",
                format!("/api/v1/memories/{id}/veto"),
                Some(json!({"agentId": AGENT})),
            ),
            py(format!("m.veto({})", pys(id))),
        ],
        Request::List {
            kind,
            status,
            all,
            limit,
        } => {
            let mut args = vec!["list".to_owned()];
            let mut m = json!({});
            let mut q = Vec::new();
            let mut pyargs = Vec::new();
            if let Some(k) = kind {
                let k = match k {
                    FactKind::Fact => "fact",
                    FactKind::Day => "day",
                };
                args.extend(["--kind".into(), k.into()]);
                m["kind"] = json!(k);
                q.push(format!("kind={k}"));
                pyargs.push(format!("kind={}", pys(k)));
            }
            if let Some(s) = status {
                let s = match s {
                    Status::Active => "active",
                    Status::Archived => "archived",
                };
                args.extend(["--status".into(), s.into()]);
                m["status"] = json!(s);
                q.push(format!("status={s}"));
                pyargs.push(format!("status={}", pys(s)));
            }
            if *all {
                args.push("--all".into());
                pyargs.push("all=True".into());
            }
            if let Some(l) = limit {
                args.extend(["--limit".into(), l.to_string()]);
            }
            vec![
                Call::Cli(args, Vec::new()),
                mcp("list", m),
                http("GET", format!("/api/v1/memories?{}", q.join("&")), None),
                py(format!("m.list({})", pyargs.join(", "))),
            ]
        }
        Request::Review { dry_run, due, .. } => {
            let mut args = vec!["review"];
            if *dry_run {
                args.push("--dry-run");
            }
            if *due {
                args.push("--due");
            }
            let mut out = vec![cli(&args)];
            if !*due {
                out.push(Call::HttpJob(json!({"dryRun": dry_run})));
            }
            out
        }
        Request::ReviewStatus => vec![cli(&["review", "status"])],
        Request::ReviewHistory { .. } => vec![
            cli(&["review", "history"]),
            http("GET", "/api/v1/reviews/history", None),
        ],
        Request::ReviewPause { paused } => {
            vec![cli(&["review", if *paused { "pause" } else { "resume" }])]
        }
        Request::ApplyReview { id } => vec![cli(&["review", "apply", id])],
        Request::UndoReview { id, .. } => vec![cli(&["review", "undo", id])],
        Request::SkillLearn { name, source, .. } => vec![
            cli_in(&["skill", "learn", name, "-"], source.clone()),
            Call::Mcp(
                "learn",
                json!({"action": "learn", "name": name, "content": source}),
            ),
            http(
                "POST",
                "/v1/skills",
                Some(json!({"name": name, "content": source})),
            ),
            py(format!("m.skill_learn({}, {})", pys(name), pys(source))),
        ],
        Request::SkillList => vec![
            cli(&["skill", "list"]),
            Call::Mcp("learn", json!({"action": "list"})),
            http("GET", "/v1/skills", None),
            py("m.skill_list()"),
        ],
        Request::SkillShow { name } => vec![
            cli(&["skill", "show", name]),
            Call::Mcp("learn", json!({"action": "show", "name": name})),
            http("GET", format!("/v1/skills/{name}"), None),
            py(format!("m.skill_show({})", pys(name))),
        ],
        Request::SkillForget { name } => vec![
            cli(&["skill", "forget", name]),
            Call::Mcp("learn", json!({"action": "forget", "name": name})),
            http("DELETE", format!("/v1/skills/{name}"), None),
            py(format!("m.skill_forget({})", pys(name))),
        ],
        Request::Propose { text } => vec![
            cli(&["propose", text]),
            mcp("propose", json!({"text": text})),
            http("POST", "/api/v1/learnings", Some(json!({"text": text}))),
            py(format!("m.propose({})", pys(text))),
        ],
        Request::Learnings => vec![
            cli(&["learnings"]),
            mcp("learnings", json!({})),
            http("GET", "/api/v1/learnings", None),
            py("m.learnings()"),
        ],
        Request::PendingList { all } => {
            let (args, path) = match all {
                true => (vec!["pending", "list", "--all"], "/api/v1/pending?all=true"),
                false => (vec!["pending", "list"], "/api/v1/pending"),
            };
            vec![
                cli(&args),
                mcp("pending", json!({})),
                http("GET", path, None),
            ]
        }
        Request::PendingShow { id } => vec![
            cli(&["pending", "show", id]),
            mcp("pending", json!({"id": id})),
            http("GET", format!("/api/v1/pending/{id}"), None),
        ],
        Request::PendingApprove { id, .. } => vec![
            cli(&["pending", "approve", id]),
            mcp("approve_pending", json!({"id": id})),
            http(
                "POST",
                format!("/api/v1/pending/{id}/approve"),
                Some(json!({})),
            ),
        ],
        Request::PendingReject { id, reason } => vec![
            cli(&["pending", "reject", id, "--reason", reason]),
            mcp("reject_pending", json!({"id": id, "reason": reason})),
            http(
                "POST",
                format!("/api/v1/pending/{id}/reject"),
                Some(json!({"reason": reason})),
            ),
        ],
        Request::Approve { id, .. } => vec![
            cli(&["learnings", "approve", id]),
            http(
                "POST",
                format!("/api/v1/learnings/{id}/approve"),
                Some(json!({})),
            ),
            py(format!("m.learning_approve({})", pys(id))),
        ],
        Request::Reject { id, reason } => vec![
            cli(&["learnings", "reject", id, "--reason", reason]),
            http(
                "POST",
                format!("/api/v1/learnings/{id}/reject"),
                Some(json!({"reason": reason})),
            ),
            py(format!("m.learning_reject({}, {})", pys(id), pys(reason))),
        ],
        Request::Retire { id, .. } => vec![
            cli(&["learnings", "retire", id]),
            http(
                "POST",
                format!("/api/v1/learnings/{id}/retire"),
                Some(json!({})),
            ),
            py(format!("m.learning_retire({})", pys(id))),
        ],
        Request::ImportHermes {
            dir,
            partial,
            dry_run,
        } => {
            let mut args = vec![
                "import".to_owned(),
                "hermes".to_owned(),
                dir.display().to_string(),
            ];
            if *partial {
                args.push("--partial".into());
            }
            if *dry_run {
                args.push("--dry-run".into());
            }
            vec![Call::Cli(args, Vec::new())]
        }
        Request::ExportHermes { dir, dry_run, .. } => {
            let mut args = vec![
                "export".to_owned(),
                "--format".to_owned(),
                "hermes".to_owned(),
                dir.display().to_string(),
            ];
            if *dry_run {
                args.push("--dry-run".into());
            }
            vec![Call::Cli(args, Vec::new())]
        }
        Request::Recall {
            query,
            on_demand,
            preview,
            ..
        } => {
            let mut args = vec!["recall".to_owned()];
            if let Some(q) = query {
                args.extend(["--query".into(), q.clone()]);
            }
            if *on_demand {
                args.push("--on-demand".into());
            }
            if *preview {
                args.push("--preview".into());
            }
            vec![
                Call::Cli(args, Vec::new()),
                mcp(
                    "recall_facts",
                    query.as_ref().map_or(json!({}), |q| json!({"query": q})),
                ),
                http(
                    "POST",
                    "/api/v1/memories/recall",
                    Some(query.as_ref().map_or(json!({}), |q| json!({"query": q}))),
                ),
                py(format!(
                    "m.recall({}, on_demand={}, preview={})",
                    opt(query),
                    pybool(*on_demand),
                    pybool(*preview)
                )),
            ]
        }
        Request::MemoryTool {
            input,
            skills_writable,
        } => {
            let mut args = vec!["tool", "memory"];
            if *skills_writable {
                args.push("--skills-writable");
            }
            vec![
                cli_in(&args, input.to_string()),
                http("POST", "/v1/memory/tool", Some(input.clone())),
                py(format!(
                    "m.memory_tool(__import__('json').loads({}))",
                    pys(&input.to_string())
                )),
            ]
        }
        Request::LoginLink { keys } => {
            let mut args = vec!["ui".to_owned()];
            if let Some(k) = keys {
                args.extend(["--keys".into(), k.display().to_string()]);
            }
            vec![Call::Cli(args, Vec::new())]
        }
        // The dashboard's link pages: no key needed, an agent can fetch
        // them.
        Request::RedeemLoginLink { token, .. } => vec![http(
            "POST",
            format!("/ui/login/link/{token}"),
            Some(json!({})),
        )],
        Request::ShowLoginLink { token, .. } => {
            vec![http("GET", format!("/ui/login/link/{token}"), None)]
        }
        // The dashboard's agents page, a person's: no surface an agent uses
        // makes it (the library refuses an agent: `sweep_api`).
        Request::AgentSummaries { .. } => Vec::new(),
    }
}

fn scope_name(s: Scope) -> &'static str {
    match s {
        Scope::Memory => "memory",
        Scope::User => "user",
    }
}

fn opt(v: &Option<String>) -> String {
    v.as_deref().map_or("None".to_owned(), pys)
}

fn pybool(b: bool) -> &'static str {
    if b { "True" } else { "False" }
}
