//! The route table of `memdir serve`: every route with its method, path,
//! summary and handler, the router built from it and `/openapi.json`
//! written from it. The handlers are by family beside it (`one_api`,
//! `skills`, `facts`, `learnings`); each turns its path, query and body into an
//! interface `Request` (or a call of `api::servers`), runs it through
//! `App::call` and shapes the answer as the seed does (`answer`).

use axum::Router;
use axum::response::Response;
use axum::routing::{MethodRouter, delete, get, patch, post, put};
use serde_json::{Value, json};

use super::facts::{archive, day, edit, list, recall_facts, resolve, save, unarchive, veto};
use super::learnings;
use super::one_api::{forget, get_result, memory_tool, put_result, recall, remember, snapshot};
use super::reviews;
use super::runs;
use super::skills::{forget_skill, learn, skill, skills};
use super::{App, json_response};
use crate::ui;
use crate::ui::pages::{
    actions, agent, agents, day, decisions, dreaming, history, learnings as learnings_page, login,
    login_link, results as results_page, runs as runs_page, skills as skills_page, snapshot,
};

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
    /// A page of the dashboard (`crate::ui`): HTML for a browser, behind a
    /// session cookie rather than a key (`x-dashboard` in `/openapi.json`).
    pub dashboard: bool,
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
        dashboard: false,
        handler,
    }
}

/// A page of the dashboard: no key (a session), HTML.
const fn page(
    method: &'static str,
    path: &'static str,
    summary: &'static str,
    handler: fn() -> MethodRouter<App>,
) -> Route {
    Route {
        auth: false,
        dashboard: true,
        ..r(method, path, summary, handler)
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
        "Store {text, scope, runId}: 201 added, 200 already stored",
        || post(remember),
    ),
    r(
        "POST",
        "/v1/memory/forget",
        "Remove the entry {id} or {text} names: {removed: 1}",
        || post(forget),
    ),
    r(
        "POST",
        "/v1/memory/tool",
        "Claude's memory tool: the body is one tool-use input {command, path, …, agentId} (?skills_writable=true lets it write skills); 200 {text, is_error}",
        || post(memory_tool),
    ),
    r(
        "POST",
        "/v1/runs",
        "Begin a run {task, workflow, skills, session, agentId}: 201 {run_id, text, sha256, …, resumed: false}; 200 the open run of the same session (resumed: true)",
        || post(runs::begin),
    ),
    r(
        "POST",
        "/v1/runs/{runId}/finish",
        "Finish a run {text}: 201 its day-log line (agents only)",
        || post(runs::finish),
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
        "Save a fact {text, expiresAt, supersedes, agentId, runId}: 201",
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
        "/api/v1/memories/{id}/resolve",
        "Settle what a merge left of a fact {keep: both, live, one}",
        || post(resolve),
    ),
    r(
        "POST",
        "/api/v1/memories/{id}/veto",
        "A person's veto",
        || post(veto),
    ),
    r(
        "POST",
        "/api/v1/learnings",
        "Propose a learning {text}: 201 proposed, 200 already pending or approved",
        || post(learnings::propose),
    ),
    r(
        "GET",
        "/api/v1/learnings",
        "The approved learnings and the proposals the caller may see",
        || get(learnings::list),
    ),
    r(
        "POST",
        "/api/v1/learnings/{id}/approve",
        "A person approves a proposal {text, seenText}: 409 learning_changed",
        || post(learnings::approve),
    ),
    r(
        "POST",
        "/api/v1/learnings/{id}/reject",
        "A person rejects a proposal {reason}",
        || post(learnings::reject),
    ),
    r(
        "POST",
        "/api/v1/learnings/{id}/retire",
        "A person retires an approved learning {reason}",
        || post(learnings::retire),
    ),
    r(
        "POST",
        "/api/v1/reviews",
        "Start the owner's review {agentId, dryRun} in the background: 202 {job, status: running}",
        || post(reviews::start),
    ),
    r(
        "GET",
        "/api/v1/reviews/history",
        "Every review of the owner, newest first (?agentId=, ?limit=): {reviews: [{id, at, report, undone, changes, changes_total}], limit}",
        || get(reviews::history),
    ),
    r(
        "GET",
        "/api/v1/reviews/jobs/{job}",
        "A background review: {job, status: running | done (review) | failed (error)}",
        || get(reviews::job),
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
    page("GET", "/", "To the dashboard: 303 to /ui/", || {
        get(ui::root)
    }),
    page("GET", "/ui/login", "The dashboard's login form", || {
        get(login::show)
    }),
    page(
        "POST",
        "/ui/login",
        "Log in with a person's key {key, csrf}: 303 to /ui/ with the session cookie; refused (401, 403 an agent's key, 429), 303 to /ui/login, which says why",
        || post(login::submit),
    ),
    page(
        "GET",
        "/ui/login/link/{token}",
        "A one-time login link's page: the person it logs in and a button, nothing used (memdir --person ID ui); 401 when used, expired or unknown",
        || get(login_link::show),
    ),
    page(
        "POST",
        "/ui/login/link/{token}",
        "Use a one-time login link {csrf}: 303 to /ui/ with the session cookie; refused (401 used, expired or unknown, 429), 303 to the link's page, which says why",
        || post(login_link::redeem),
    ),
    page(
        "POST",
        "/ui/logout",
        "End the session {csrf}: 303 to /ui/login",
        || post(login::logout),
    ),
    page(
        "GET",
        "/ui/static/ui.css",
        "The dashboard's stylesheet",
        || get(ui::stylesheet),
    ),
    page(
        "GET",
        "/ui/",
        "Every agent: counts, usage, last run, day log, review, findings (?page=, ?sort=)",
        || get(agents::show),
    ),
    page(
        "GET",
        "/ui/agents/{agent}",
        "An agent's facts and their actions (?store=, ?kind=, ?status=, ?q=, ?reveal=)",
        || get(agent::show),
    ),
    page(
        "POST",
        "/ui/agents/{agent}/actions",
        "An action on the agent's memory {action, id, store, hash, csrf, …}: 303 to the agent's page, which says what was done or why not (409 store_changed)",
        || post(actions::post),
    ),
    page(
        "GET",
        "/ui/agents/{agent}/snapshot",
        "The snapshot the next run would freeze, and a recall preview (?q=)",
        || get(snapshot::show),
    ),
    page(
        "GET",
        "/ui/agents/{agent}/day",
        "The agent's day log, newest first",
        || get(day::show),
    ),
    page(
        "GET",
        "/ui/learnings",
        "The learnings to review: pending proposals, approved, rejected and retired",
        || get(learnings_page::show),
    ),
    page(
        "POST",
        "/ui/learnings",
        "Approve, reject or retire a learning {action, id, seen_text, text, reason, csrf}: 303 to the page, which says what was done or why not (409 learning_changed)",
        || post(learnings_page::post),
    ),
    page(
        "GET",
        "/ui/decisions",
        "What waits for a person: pending learnings, then check's findings per agent with their resolutions",
        || get(decisions::show),
    ),
    page(
        "POST",
        "/ui/decisions",
        "Resolve a finding {action (keep, both, live, one, archive), agent, id, others, reason, store, hash, csrf}: 303 to the page, which says what was done or why not",
        || post(decisions::post),
    ),
    page(
        "GET",
        "/ui/agents/{agent}/dreaming",
        "The agent's daily review: the routine, every past review with its changes and diffs, a review or dry run from the page",
        || get(dreaming::show),
    ),
    page(
        "POST",
        "/ui/agents/{agent}/dreaming",
        "Pause, resume, run a review or a dry run in the background, apply a dry run as previewed, or undo a review whole or partly {action, id, partial, csrf}: 303 to the page, which says what was done or why not",
        || post(dreaming::post),
    ),
    page(
        "GET",
        "/ui/agents/{agent}/runs",
        "The agent's runs, newest first, 50 a page (?page=)",
        || get(runs_page::list),
    ),
    page(
        "GET",
        "/ui/agents/{agent}/runs/{run}",
        "One run: the snapshot it began with, the recall blocks it was given, the facts it wrote, its day lines and results",
        || get(runs_page::show),
    ),
    page(
        "GET",
        "/ui/agents/{agent}/history/{id}",
        "One entry's history from git (the commits that changed it), or why there is none",
        || get(history::show),
    ),
    page(
        "GET",
        "/ui/agents/{agent}/skills",
        "The agent's learned skills, each with a forget",
        || get(skills_page::list),
    ),
    page(
        "GET",
        "/ui/agents/{agent}/skills/{name}",
        "One skill's SKILL.md body, as text",
        || get(skills_page::show),
    ),
    page(
        "POST",
        "/ui/agents/{agent}/skills",
        "Forget a skill {action: forget, name, confirm: yes, csrf}: 303 to the page, which says what was done or why not",
        || post(skills_page::post),
    ),
    page(
        "GET",
        "/ui/agents/{agent}/results",
        "The workflows of the agent's runs and their steps, a step's content as text (?workflow=, ?task=)",
        || get(results_page::show),
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
        if route.dashboard
            && let Some(o) = op.as_object_mut()
        {
            o.insert("x-dashboard".into(), json!(true));
            o.insert("tags".into(), json!(["dashboard"]));
            let answer = if route.method == "POST" {
                json!({"303": {"description": "a form's answer: to a page of the dashboard, which says what was done or why not"}})
            } else {
                json!({"200": {"description": "an HTML page (303 to the login page without a session)"}})
            };
            o.insert("responses".into(), answer);
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

/// `GET /healthz`: liveness, answered without a key.
async fn healthz() -> Response {
    json_response(200, &json!({"status": "ok"}))
}
