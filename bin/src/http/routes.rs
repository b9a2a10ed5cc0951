//! The routes of `memdir serve` and their handlers: each turns its path,
//! query and body into an interface [`Request`] (or a call of
//! `api::servers`), runs it through [`App::call`] and shapes the answer as
//! the seed does.

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{MethodRouter, delete, get, patch, post, put};
use memdir::api::errors::Transport;
use memdir::api::servers::{self, ForgetKey};
use memdir::api::{self, Request, Response as Answer, render};
use memdir::{Error, Op, Scope};
use memdir::{FactKind, PutStatus, Status};
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use super::{App, Fail, json_response};

/// One route as the router serves it and `/openapi.json` documents it.
#[derive(Debug, Clone, Copy)]
pub struct Route {
    /// The HTTP method.
    pub method: &'static str,
    /// The path, with `{name}` segments.
    pub path: &'static str,
    /// What it does.
    pub summary: &'static str,
    /// Whether it needs a key.
    pub auth: bool,
    /// Its handler: the router serves the route with it, so a row cannot
    /// lack one.
    pub handler: fn() -> MethodRouter<App>,
}

const fn r(
    method: &'static str,
    path: &'static str,
    summary: &'static str,
    handler: fn() -> MethodRouter<App>,
) -> Route {
    Route {
        method,
        path,
        summary,
        auth: true,
        handler,
    }
}

/// `PUT` of a result: its body is streamed up to the owner's limit, not
/// held to the router's default limit.
fn results_put() -> MethodRouter<App> {
    put(put_result).layer(axum::extract::DefaultBodyLimit::disable())
}

/// Every route: the router is built from this table (see [`routes`]) and
/// the OpenAPI document is written from it, so neither can list a route
/// the other lacks.
pub const ROUTES: &[Route] = &[
    Route {
        auth: false,
        ..r("GET", "/healthz", "Liveness: {\"status\":\"ok\"}", || {
            get(healthz)
        })
    },
    Route {
        auth: false,
        ..r("GET", "/openapi.json", "This document", || get(openapi))
    },
    r(
        "GET",
        "/v1/snapshot",
        "The snapshot a run starting now gets: {text, sha256, bytes}",
        || get(snapshot),
    ),
    r(
        "GET",
        "/v1/memory/recall",
        "Entries of both stores, ranked and filtered by q; {entries, count}",
        || get(recall),
    ),
    r(
        "POST",
        "/v1/memory/remember",
        "Store {text, scope}: 201 added, 200 already stored",
        || post(remember),
    ),
    r(
        "POST",
        "/v1/memory/forget",
        "Remove the entry {id} or {text} names: {removed: 1}",
        || post(forget),
    ),
    r(
        "GET",
        "/v1/workflows/results/{workflowId}/{taskId}",
        "A task's result; 404 not_ready (a known workflow) or result_not_found",
        || get(get_result),
    ),
    r(
        "PUT",
        "/v1/workflows/results/{workflowId}/{taskId}",
        "Store the body as a task's result (Content-Type kept)",
        results_put,
    ),
    r(
        "GET",
        "/v1/agents/results/{workflowId}/{taskId}",
        "A task's result (same store as /v1/workflows/results)",
        || get(get_result),
    ),
    r(
        "PUT",
        "/v1/agents/results/{workflowId}/{taskId}",
        "Store a task's result (same store as /v1/workflows/results)",
        results_put,
    ),
    r(
        "POST",
        "/api/v1/memories",
        "Save a fact {text, expiresAt, supersedes, agentId}: 201",
        || post(save),
    ),
    r(
        "GET",
        "/api/v1/memories",
        "List memories: agentId, kind, status, limit",
        || get(list),
    ),
    r(
        "POST",
        "/api/v1/memories/day",
        "Append {line} to the caller's day log (agents only)",
        || post(day),
    ),
    r(
        "POST",
        "/api/v1/memories/recall",
        "Recall on demand {query, agentId}",
        || post(recall_facts),
    ),
    r(
        "PATCH",
        "/api/v1/memories/{id}",
        "A person edits a memory's {text}",
        || patch(edit),
    ),
    r(
        "POST",
        "/api/v1/memories/{id}/archive",
        "Archive with {reason}",
        || post(archive),
    ),
    r(
        "POST",
        "/api/v1/memories/{id}/unarchive",
        "Bring an archived memory back",
        || post(unarchive),
    ),
    r(
        "POST",
        "/api/v1/memories/{id}/veto",
        "A person's veto",
        || post(veto),
    ),
    r(
        "GET",
        "/v1/skills",
        "The learned skills: {skills: [{name, description}], count}",
        || get(skills),
    ),
    r(
        "POST",
        "/v1/skills",
        "Learn {name, content, description, replace}: 201 saved or replaced, 200 already stored, 409 skill_exists",
        || post(learn),
    ),
    r(
        "GET",
        "/v1/skills/{name}",
        "One skill: {name, description, body, text, path}; 404 skill_not_found",
        || get(skill),
    ),
    r(
        "DELETE",
        "/v1/skills/{name}",
        "Forget a skill: {name, message: forgot, path}; 404 skill_not_found",
        || delete(forget_skill),
    ),
];

/// Every route of [`ROUTES`], the methods of one path merged.
pub fn routes() -> Router<App> {
    let mut by_path: Vec<(&str, MethodRouter<App>)> = Vec::new();
    for route in ROUTES {
        let h = (route.handler)();
        match by_path.iter().position(|(p, _)| *p == route.path) {
            Some(i) => {
                let (p, old) = by_path.swap_remove(i);
                by_path.push((p, old.merge(h)));
            }
            None => by_path.push((route.path, h)),
        }
    }
    by_path
        .into_iter()
        .fold(Router::new(), |router, (path, h)| router.route(path, h))
}

/// `GET /openapi.json`: an OpenAPI 3.1 document of [`ROUTES`].
async fn openapi() -> Response {
    let mut paths = serde_json::Map::new();
    for route in ROUTES {
        let params: Vec<Value> = route
            .path
            .split('/')
            .filter_map(|seg| seg.strip_prefix('{').and_then(|s| s.strip_suffix('}')))
            .map(|name| json!({"name": name, "in": "path", "required": true, "schema": {"type": "string"}}))
            .collect();
        let mut op = json!({
            "summary": route.summary,
            "parameters": params,
            "responses": {
                "200": {"description": "the answer (201 where a route creates)"},
                "default": {
                    "description": "an error",
                    "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}
                }
            }
        });
        if !route.auth
            && let Some(o) = op.as_object_mut()
        {
            o.insert("security".into(), json!([]));
        }
        if let Some(entry) = paths
            .entry(route.path)
            .or_insert_with(|| json!({}))
            .as_object_mut()
        {
            entry.insert(route.method.to_lowercase(), op);
        }
    }
    json_response(
        200,
        &json!({
            "openapi": "3.1.0",
            "info": {"title": "memdir", "version": env!("CARGO_PKG_VERSION")},
            "paths": paths,
            "security": [{"bearer": []}],
            "components": {
                "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
                "schemas": {"Error": {
                    "type": "object",
                    "required": ["error"],
                    "properties": {"error": {
                        "type": "object",
                        "required": ["code", "status", "message"],
                        "properties": {
                            "code": {"type": "string"},
                            "status": {"type": "integer"},
                            "message": {"type": "string"}
                        }
                    }}
                }}
            }
        }),
    )
}

/// A JSON body (an empty body is `{}`); anything else is `invalid_request`.
fn parse<T: DeserializeOwned>(body: &Bytes) -> Result<T, Fail> {
    let bytes: &[u8] = if body.iter().all(u8::is_ascii_whitespace) {
        b"{}"
    } else {
        body
    };
    serde_json::from_slice(bytes).map_err(|e| {
        Fail::Transport(Transport::InvalidRequest {
            message: format!("the body is not the JSON this route takes: {e}"),
        })
    })
}

/// The One API's `format`: json (default), yaml, markdown or text.
fn formatted(status: u16, v: &Value, format: Option<&str>) -> Result<Response, Fail> {
    let (ctype, text) = match format.unwrap_or("json") {
        "json" => return Ok(json_response(status, v)),
        "yaml" => (
            "application/yaml",
            serde_yaml::to_string(v).map_err(|e| {
                Fail::Transport(Transport::Internal {
                    message: e.to_string(),
                })
            })?,
        ),
        "markdown" => ("text/markdown; charset=utf-8", as_markdown(v)),
        "text" => ("text/plain; charset=utf-8", as_plain(v)),
        other => {
            return Err(Fail::Transport(Transport::InvalidRequest {
                message: format!("format must be json, yaml, markdown or text, not {other:?}"),
            }));
        }
    };
    let mut r = (
        axum::http::StatusCode::from_u16(status).unwrap_or(axum::http::StatusCode::OK),
        text,
    )
        .into_response();
    if let Ok(v) = header::HeaderValue::from_str(ctype) {
        r.headers_mut().insert(header::CONTENT_TYPE, v);
    }
    Ok(r)
}

/// An answer as plain lines, without markdown: an entry a line as
/// `id  text` (its lines joined), other fields as `key: value`.
fn as_plain(v: &Value) -> String {
    let Some(entries) = v.get("entries").and_then(Value::as_array) else {
        return as_fields(v);
    };
    if entries.is_empty() {
        return "No memory recorded yet.\n".into();
    }
    let mut out = String::new();
    for e in entries {
        let text = e["text"].as_str().unwrap_or_default();
        let one: Vec<&str> = text.lines().map(str::trim).collect();
        out.push_str(&format!(
            "{}  {}\n",
            e["id"].as_str().unwrap_or_default(),
            one.join(" ")
        ));
    }
    out
}

/// An answer as markdown: entries as a list, other fields as `key: value`.
fn as_markdown(v: &Value) -> String {
    if let Some(entries) = v.get("entries").and_then(Value::as_array) {
        let mut out = String::new();
        for e in entries {
            out.push_str(&format!(
                "- {} ({} {})\n",
                e["text"].as_str().unwrap_or_default().replace('\n', "\n  "),
                e["scope"].as_str().unwrap_or_default(),
                e["id"].as_str().unwrap_or_default()
            ));
        }
        if entries.is_empty() {
            out.push_str("No memory recorded yet.\n");
        }
        return out;
    }
    as_fields(v)
}

/// An answer's fields as `key: value` lines.
fn as_fields(v: &Value) -> String {
    let mut out = String::new();
    if let Some(o) = v.as_object() {
        for (k, x) in o {
            match x {
                Value::String(s) if s.contains('\n') => out.push_str(&format!("{k}:\n{s}\n")),
                Value::String(s) => out.push_str(&format!("{k}: {s}\n")),
                other => out.push_str(&format!("{k}: {other}\n")),
            }
        }
    }
    out
}

/// A store's usage as numbers, beside the seed's `usage` string: every
/// surface carries `used` and `limit` as numbers (the command line's
/// `usage` object has them too).
fn budget(u: &memdir::Usage) -> Value {
    json!({"used": u.used, "limit": u.limit})
}

fn ok(status: u16, v: Value) -> Result<Response, Fail> {
    Ok(json_response(status, &v))
}

async fn healthz() -> Response {
    json_response(200, &json!({"status": "ok"}))
}

// ---- the One API ----

#[derive(Debug, Default, Deserialize)]
struct Common {
    format: Option<String>,
    #[serde(rename = "agentId", alias = "agent_id")]
    agent_id: Option<String>,
}

async fn snapshot(
    State(app): State<App>,
    headers: HeaderMap,
    Query(q): Query<Common>,
) -> Result<Response, Fail> {
    let v = app
        .call(headers, q.agent_id, |store, who| {
            match api::execute(store, who, Request::Snapshot)? {
                Answer::Snapshot(s) => {
                    Ok(json!({"text": s.text, "sha256": s.sha256, "bytes": s.bytes}))
                }
                other => Ok(render::json(&other)),
            }
        })
        .await?;
    formatted(200, &v, q.format.as_deref())
}

#[derive(Debug, Deserialize)]
struct RecallQuery {
    q: Option<String>,
    limit: Option<usize>,
    #[serde(flatten)]
    common: Common,
}

async fn recall(
    State(app): State<App>,
    headers: HeaderMap,
    Query(q): Query<RecallQuery>,
) -> Result<Response, Fail> {
    let (query, limit) = (q.q, q.limit);
    let v = app
        .call(headers, q.common.agent_id, move |store, who| {
            let entries = servers::recall_entries(store, who, query.as_deref(), limit)?;
            let count = entries.len();
            Ok(json!({ "entries": entries, "count": count }))
        })
        .await?;
    formatted(200, &v, q.common.format.as_deref())
}

#[derive(Debug, Deserialize)]
struct RememberBody {
    text: Option<String>,
    scope: Option<String>,
    #[serde(flatten)]
    common: Common,
}

/// Query parameters every One API route takes besides its body.
#[derive(Debug, Default, Deserialize)]
struct FormatQuery {
    format: Option<String>,
    #[serde(rename = "agentId", alias = "agent_id")]
    agent_id: Option<String>,
    overwrite: Option<bool>,
    allow_empty: Option<bool>,
}

async fn remember(
    State(app): State<App>,
    headers: HeaderMap,
    Query(fq): Query<FormatQuery>,
    body: Bytes,
) -> Result<Response, Fail> {
    let b: RememberBody = parse(&body)?;
    let format = b.common.format.or(fq.format);
    let scope = match b.scope.as_deref() {
        None => Scope::Memory,
        Some(s) => Scope::parse(s).ok_or_else(|| {
            Fail::Transport(Transport::InvalidRequest {
                message: format!("scope must be user or memory, not {s:?}"),
            })
        })?,
    };
    let text = b.text.ok_or(Error::Required {
        what: "text",
        action: "remember",
    })?;
    let (status, v) = app
        .call(
            headers,
            b.common.agent_id.or(fq.agent_id),
            move |store, who| match api::execute(
                store,
                who,
                Request::Write {
                    op: Op::add(scope, text),
                },
            )? {
                Answer::Written(w) => {
                    let o = &w.outcome;
                    let status = if o.message.created() { 201 } else { 200 };
                    Ok((
                        status,
                        json!({
                            "id": o.id, "scope": o.scope, "text": o.text,
                            "usage": w.usage.text, "budget": budget(&w.usage),
                            "message": o.message,
                        }),
                    ))
                }
                other => Ok((200, render::json(&other))),
            },
        )
        .await?;
    formatted(status, &v, format.as_deref())
}

#[derive(Debug, Deserialize)]
struct ForgetBody {
    id: Option<String>,
    text: Option<String>,
    #[serde(flatten)]
    common: Common,
}

async fn forget(
    State(app): State<App>,
    headers: HeaderMap,
    Query(fq): Query<FormatQuery>,
    body: Bytes,
) -> Result<Response, Fail> {
    let b: ForgetBody = parse(&body)?;
    let format = b.common.format.or(fq.format);
    let key = match (b.id, b.text) {
        (Some(id), _) => ForgetKey::Id(id),
        (None, Some(t)) => ForgetKey::Text(t),
        (None, None) => {
            return Err(Error::Required {
                what: "id or text",
                action: "forget",
            }
            .into());
        }
    };
    let v = app
        .call(
            headers,
            b.common.agent_id.or(fq.agent_id),
            move |store, who| {
                let w = servers::forget(store, who, &key)?;
                Ok(json!({
                    "removed": 1, "id": w.outcome.id, "scope": w.outcome.scope,
                    "usage": w.usage.text, "budget": budget(&w.usage),
                    "message": w.outcome.message,
                }))
            },
        )
        .await?;
    formatted(200, &v, format.as_deref())
}

async fn get_result(
    State(app): State<App>,
    headers: HeaderMap,
    Path((workflow_id, task_id)): Path<(String, String)>,
    Query(fq): Query<FormatQuery>,
) -> Result<Response, Fail> {
    let v = app
        .call(headers, fq.agent_id, move |store, who| {
            let r = api::execute(
                store,
                who,
                Request::GetResult {
                    workflow_id,
                    task_id,
                },
            )?;
            Ok(render::json(&r))
        })
        .await?;
    formatted(200, &v, fq.format.as_deref())
}

async fn put_result(
    State(app): State<App>,
    headers: HeaderMap,
    Path((workflow_id, task_id)): Path<(String, String)>,
    Query(fq): Query<FormatQuery>,
    body: Body,
) -> Result<Response, Fail> {
    let (wf, task) = (workflow_id.clone(), task_id.clone());
    let limit = app
        .call(headers.clone(), fq.agent_id.clone(), move |store, who| {
            Ok(api::result_limit(store, who, &wf, &task)?)
        })
        .await?;
    let declared = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if let Some(n) = declared.filter(|n| *n > limit) {
        return Err(Error::ResultTooLarge { bytes: n, limit }.into());
    }
    let cap = usize::try_from(limit.saturating_add(1)).unwrap_or(usize::MAX);
    let content = axum::body::to_bytes(body, cap).await.map_err(|_| {
        Fail::Memdir(Error::ResultTooLarge {
            bytes: declared.unwrap_or(limit.saturating_add(1)),
            limit,
        })
    })?;
    if content.len() as u64 > limit {
        return Err(Error::ResultTooLarge {
            bytes: content.len() as u64,
            limit,
        }
        .into());
    }
    let content_type = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("application/octet-stream")
        .to_owned();
    let overwrite = fq.overwrite.unwrap_or(false);
    let allow_empty = fq.allow_empty.unwrap_or(false);
    let (status, v) = app
        .call(headers, fq.agent_id, move |store, who| {
            let r = api::execute(
                store,
                who,
                Request::PutResult {
                    workflow_id,
                    task_id,
                    content: content.to_vec(),
                    content_type: Some(content_type),
                    overwrite,
                    allow_empty,
                    limit: Some(limit),
                },
            )?;
            let status = match &r {
                Answer::Put(p) if p.status == PutStatus::AlreadyStored => 200,
                _ => 201,
            };
            Ok((status, render::json(&r)))
        })
        .await?;
    formatted(status, &v, fq.format.as_deref())
}

// ---- learned skills (the seed's `/v1/skills`) ----

async fn skills(
    State(app): State<App>,
    headers: HeaderMap,
    Query(q): Query<Common>,
) -> Result<Response, Fail> {
    run_200(app, headers, q, Request::SkillList).await
}

/// Runs `request` for the caller (a person naming `q`'s agent) and answers
/// 200 with it, in `q`'s format.
async fn run_200(
    app: App,
    headers: HeaderMap,
    q: Common,
    request: Request,
) -> Result<Response, Fail> {
    let v = app
        .call(headers, q.agent_id, move |store, who| {
            Ok(render::json(&api::execute(store, who, request)?))
        })
        .await?;
    formatted(200, &v, q.format.as_deref())
}

#[derive(Debug, Deserialize)]
struct LearnBody {
    name: Option<String>,
    /// The skill's markdown (`source`, as the seed's tool calls it, too).
    #[serde(alias = "source")]
    content: Option<String>,
    description: Option<String>,
    #[serde(default)]
    replace: bool,
    #[serde(flatten)]
    common: Common,
}

async fn learn(
    State(app): State<App>,
    headers: HeaderMap,
    Query(fq): Query<FormatQuery>,
    body: Bytes,
) -> Result<Response, Fail> {
    let b: LearnBody = parse(&body)?;
    let format = b.common.format.or(fq.format);
    let name = b.name.ok_or(Error::Required {
        what: "name",
        action: "learn",
    })?;
    let source = b.content.ok_or(Error::Required {
        what: "content",
        action: "learn",
    })?;
    let (description, replace) = (b.description, b.replace);
    let (status, v) = app
        .call(
            headers,
            b.common.agent_id.or(fq.agent_id),
            move |store, who| {
                let r = api::execute(
                    store,
                    who,
                    Request::SkillLearn {
                        name,
                        source,
                        description,
                        replace,
                    },
                )?;
                let status = match &r {
                    Answer::Skill(o) if o.message == "already stored" => 200,
                    _ => 201,
                };
                Ok((status, render::json(&r)))
            },
        )
        .await?;
    formatted(status, &v, format.as_deref())
}

async fn skill(
    State(app): State<App>,
    headers: HeaderMap,
    Path(name): Path<String>,
    Query(q): Query<Common>,
) -> Result<Response, Fail> {
    run_200(app, headers, q, Request::SkillShow { name }).await
}

async fn forget_skill(
    State(app): State<App>,
    headers: HeaderMap,
    Path(name): Path<String>,
    Query(q): Query<Common>,
) -> Result<Response, Fail> {
    run_200(app, headers, q, Request::SkillForget { name }).await
}

// ---- facts (the second seed) ----

#[derive(Debug, Deserialize)]
struct SaveBody {
    text: Option<String>,
    #[serde(rename = "expiresAt", alias = "expires_at")]
    expires_at: Option<String>,
    supersedes: Option<String>,
    #[serde(rename = "agentId", alias = "agent_id")]
    agent_id: Option<String>,
}

/// A memory's row as `list` shows it, found by id.
fn row(store: &memdir::Store, who: &api::Who, id: &str) -> Result<Option<Value>, Error> {
    let filter = memdir::ListFilter {
        kind: None,
        status: None,
        all: true,
        limit: Some(memdir::MAX_LIST_LIMIT),
    };
    Ok(who
        .owner(store)?
        .list(&filter)?
        .into_iter()
        .find(|r| r.id == id)
        .and_then(|r| serde_json::to_value(r).ok()))
}

async fn save(State(app): State<App>, headers: HeaderMap, body: Bytes) -> Result<Response, Fail> {
    let b: SaveBody = parse(&body)?;
    let text = b.text.ok_or(Error::Required {
        what: "text",
        action: "save",
    })?;
    let (status, v) = app
        .call(headers, b.agent_id, move |store, who| {
            let op = Op::Add {
                text,
                scope: Scope::Memory,
                expires: b.expires_at,
                supersedes: b.supersedes,
            };
            match api::execute(store, who, Request::Write { op })? {
                Answer::Written(w) => {
                    let o = &w.outcome;
                    let mut v = row(store, who, &o.id)?.unwrap_or_else(|| json!({"id": o.id}));
                    if let Some(m) = v.as_object_mut() {
                        m.insert("object".into(), json!("memory"));
                        m.insert("usage".into(), json!(w.usage.text));
                        m.insert("budget".into(), budget(&w.usage));
                        m.insert("message".into(), json!(o.message));
                        m.insert("archived".into(), json!(w.archived));
                    }
                    Ok((if o.message.created() { 201 } else { 200 }, v))
                }
                other => Ok((200, render::json(&other))),
            }
        })
        .await?;
    ok(status, v)
}

#[derive(Debug, Deserialize)]
struct DayBody {
    line: Option<String>,
    #[serde(rename = "agentId", alias = "agent_id")]
    agent_id: Option<String>,
}

async fn day(State(app): State<App>, headers: HeaderMap, body: Bytes) -> Result<Response, Fail> {
    let b: DayBody = parse(&body)?;
    let v = app
        .call(headers, b.agent_id, move |store, who| {
            if let memdir::Caller::Person(p) = &who.caller {
                return Err(Error::DayAgentOnly { person: p.clone() }.into());
            }
            let line = b.line.ok_or(Error::Required {
                what: "line",
                action: "day",
            })?;
            let r = api::execute(
                store,
                who,
                Request::Day {
                    line,
                    task: None,
                    run: None,
                },
            )?;
            Ok(render::json(&r))
        })
        .await?;
    ok(201, v)
}

#[derive(Debug, Deserialize)]
struct ListQuery {
    #[serde(rename = "agentId", alias = "agent_id")]
    agent_id: Option<String>,
    kind: Option<String>,
    status: Option<String>,
    limit: Option<usize>,
}

async fn list(
    State(app): State<App>,
    headers: HeaderMap,
    Query(q): Query<ListQuery>,
) -> Result<Response, Fail> {
    let invalid = |m: String| Fail::Transport(Transport::InvalidRequest { message: m });
    let kind = match q.kind.as_deref() {
        None => None,
        Some("fact") => Some(FactKind::Fact),
        Some("day") => Some(FactKind::Day),
        Some(k) => return Err(invalid(format!("kind must be fact or day, not {k:?}"))),
    };
    let status = match q.status.as_deref() {
        None => None,
        Some("active") => Some(Status::Active),
        Some("archived") => Some(Status::Archived),
        Some(s) => {
            return Err(invalid(format!(
                "status must be active or archived, not {s:?}"
            )));
        }
    };
    let limit = q.limit;
    let v = app
        .call(headers, q.agent_id, move |store, who| {
            let r = api::execute(
                store,
                who,
                Request::List {
                    kind,
                    all: status == Some(Status::Archived),
                    status,
                    limit,
                },
            )?;
            Ok(render::json(&r))
        })
        .await?;
    ok(200, v)
}

#[derive(Debug, Deserialize)]
struct RecallBody {
    query: Option<String>,
    #[serde(rename = "agentId", alias = "agent_id")]
    agent_id: Option<String>,
}

async fn recall_facts(
    State(app): State<App>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, Fail> {
    let b: RecallBody = parse(&body)?;
    let v = app
        .call(headers, b.agent_id, move |store, who| {
            let r = api::execute(
                store,
                who,
                Request::Recall {
                    query: b.query,
                    session: None,
                    on_demand: true,
                    preview: false,
                },
            )?;
            Ok(render::json(&r))
        })
        .await?;
    ok(200, v)
}

#[derive(Debug, Deserialize)]
struct LifecycleBody {
    reason: Option<String>,
    text: Option<String>,
    #[serde(rename = "agentId", alias = "agent_id")]
    agent_id: Option<String>,
}

/// Archive, unarchive or veto `id`.
async fn transition(
    app: App,
    headers: HeaderMap,
    body: Bytes,
    make: fn(String, Option<String>) -> Result<Request, Error>,
    id: String,
) -> Result<Response, Fail> {
    let b: LifecycleBody = parse(&body)?;
    let request = make(id, b.reason)?;
    let v = app
        .call(headers, b.agent_id, move |store, who| {
            Ok(render::json(&api::execute(store, who, request)?))
        })
        .await?;
    ok(200, v)
}

async fn archive(
    State(app): State<App>,
    headers: HeaderMap,
    Path(id): Path<String>,
    body: Bytes,
) -> Result<Response, Fail> {
    transition(
        app,
        headers,
        body,
        |id, reason| match reason {
            Some(reason) => Ok(Request::Archive { id, reason }),
            None => Err(Error::Required {
                what: "reason",
                action: "archive",
            }),
        },
        id,
    )
    .await
}

async fn unarchive(
    State(app): State<App>,
    headers: HeaderMap,
    Path(id): Path<String>,
    body: Bytes,
) -> Result<Response, Fail> {
    transition(
        app,
        headers,
        body,
        |id, _| Ok(Request::Unarchive { id }),
        id,
    )
    .await
}

async fn veto(
    State(app): State<App>,
    headers: HeaderMap,
    Path(id): Path<String>,
    body: Bytes,
) -> Result<Response, Fail> {
    transition(
        app,
        headers,
        body,
        |id, reason| Ok(Request::Veto { id, reason }),
        id,
    )
    .await
}

/// A person edits a memory's text (the seed's "read, edit and veto").
async fn edit(
    State(app): State<App>,
    headers: HeaderMap,
    Path(id): Path<String>,
    body: Bytes,
) -> Result<Response, Fail> {
    let b: LifecycleBody = parse(&body)?;
    let text = b.text.ok_or(Error::Required {
        what: "text",
        action: "edit",
    })?;
    let v = app
        .call(headers, b.agent_id, move |store, who| {
            if !who.caller.is_person() {
                return Err(Transport::PersonOnly {
                    what: "edit a memory's text".into(),
                }
                .into());
            }
            let scope = servers::current_entries(store, who)?
                .into_iter()
                .find(|(_, e)| e.id == id)
                .map_or(Scope::Memory, |(s, _)| s);
            let op = Op::Replace {
                old: id,
                new: text,
                scope: Some(scope),
            };
            match api::execute(store, who, Request::Write { op })? {
                Answer::Written(w) => {
                    let o = &w.outcome;
                    let mut v = row(store, who, &o.id)?.unwrap_or_else(|| json!({"id": o.id}));
                    if let Some(m) = v.as_object_mut() {
                        m.insert("object".into(), json!("memory"));
                        m.insert("old_id".into(), json!(o.old_id));
                        m.insert("usage".into(), json!(w.usage.text));
                        m.insert("budget".into(), budget(&w.usage));
                        m.insert("message".into(), json!(o.message));
                    }
                    Ok(v)
                }
                other => Ok(render::json(&other)),
            }
        })
        .await?;
    ok(200, v)
}
