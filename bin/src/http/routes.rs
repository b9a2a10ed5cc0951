//! The route table of `memdir serve`: every route with its method, path,
//! summary and handler, its query, body and answer, the router built from
//! it and `/openapi.json` written from it. The handlers are by family
//! beside it (`one_api`, `skills`, `facts`, `learnings`); each turns its
//! path, query and body into an interface `Request` (or a call of
//! `api::servers`), runs it through `App::call` and shapes the answer as
//! the seed does (`answer`).
//!
//! `/openapi.json` ([`openapi::document`]) is derived: each route's query and body
//! from the types its handler parses them into, its answer from the
//! library's (`memdir::api::schema::components`, the schemas of
//! docs/schema/http/). The document is committed as
//! docs/schema/http/openapi.json, and a test holds the served one to it.

use axum::Router;
use axum::response::Response;
use axum::routing::{MethodRouter, delete, get, patch, post, put};
use schemars::{JsonSchema, Schema, SchemaGenerator};

use super::answer::{Common, FormatQuery};
use super::facts::{
    DayBody, LifecycleBody, ListQuery, RecallBody, ResolveBody, SaveBody, archive, day, edit, list,
    recall_facts, resolve, save, unarchive, veto,
};
use super::learnings::{self, DecisionBody, ProposeBody};
use super::one_api::{
    ForgetBody, RecallQuery, RememberBody, ToolQuery, forget, get_result, memory_tool, put_result,
    recall, remember, snapshot,
};
use super::pending::{self, PendingDecisionBody, PendingQuery};
use super::remote::{self, CallBody, CommandBody};
use super::reviews::{self, HistoryQuery, StartBody};
use super::runs::{self, BeginBody, FinishBody};
use super::skills::{LearnBody, forget_skill, learn, skill, skills};
use super::{App, json_response};

use crate::ui;
use crate::ui::pages::{
    actions, agent, agents, day, decisions, dreaming, history, learnings as learnings_page, login,
    login_link, pending as pending_page, results as results_page, runs as runs_page,
    skills as skills_page, snapshot,
};

mod openapi;

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
    /// Its query parameters: the type its handler parses the query
    /// string into.
    pub query: Option<TypeSchema>,
    /// Its body.
    pub body: Option<Body>,
    /// Its JSON answer.
    pub answer: Option<Answer>,
}

/// A type's schema, as `/openapi.json` refers to it.
pub type TypeSchema = fn(&mut SchemaGenerator) -> Schema;

/// [`TypeSchema`] of `T`: a reference to its definition.
fn schema_of<T: JsonSchema>(g: &mut SchemaGenerator) -> Schema {
    g.subschema_for::<T>()
}

/// [`TypeSchema`] of `T`: its schema itself (a query's, whose fields are
/// parameters).
fn root_of<T: JsonSchema>(g: &mut SchemaGenerator) -> Schema {
    g.root_schema_for::<T>()
}

/// What a route takes in its body.
#[derive(Debug, Clone, Copy)]
pub enum Body {
    /// A JSON object: the type its handler parses it into (an empty body
    /// is `{}`).
    Json(TypeSchema),
    /// Claude's memory tool's input: one tool-use input, which the tool
    /// reads itself.
    ToolInput,
    /// Bytes of any type, kept with their `Content-Type`.
    Bytes,
}

/// A route's JSON answer: its schema's file of docs/schema/http/ (without
/// `.json`) and the statuses of a success, the usual first.
#[derive(Debug, Clone, Copy)]
pub struct Answer {
    /// The file: `remember` for docs/schema/http/remember.json.
    pub schema: &'static str,
    /// The statuses it comes with.
    pub statuses: &'static [u16],
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
        query: None,
        body: None,
        answer: None,
    }
}

impl Route {
    /// The route, with its query parsed into `T`.
    const fn query<T: JsonSchema>(self) -> Route {
        Route {
            query: Some(root_of::<T>),
            ..self
        }
    }

    /// The route, with its body parsed into `T`.
    const fn takes<T: JsonSchema>(self) -> Route {
        Route {
            body: Some(Body::Json(schema_of::<T>)),
            ..self
        }
    }

    /// The route, with a body of another kind.
    const fn body(self, body: Body) -> Route {
        Route {
            body: Some(body),
            ..self
        }
    }

    /// The route, answering with the schema of docs/schema/http/SCHEMA.json
    /// and `statuses`.
    const fn answers(self, schema: &'static str, statuses: &'static [u16]) -> Route {
        Route {
            answer: Some(Answer { schema, statuses }),
            ..self
        }
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
        .answers("healthz", &[200])
    },
    Route {
        auth: false,
        ..r("GET", "/openapi.json", "This document", || get(openapi::openapi))
    },
    r(
        "GET",
        "/v1/snapshot",
        "The snapshot a run starting now gets: {text, sha256, bytes}",
        || get(snapshot),
    )
    .query::<Common>()
    .answers("snapshot", &[200]),
    r(
        "GET",
        "/v1/memory/recall",
        "Entries of both stores, ranked and filtered by q; {entries, count}",
        || get(recall),
    )
    .query::<RecallQuery>()
    .answers("recall", &[200]),
    r(
        "POST",
        "/v1/memory/remember",
        "Store {text, scope, runId}: 201 added, 200 already stored, 202 pending a person's review",
        || post(remember),
    )
    .query::<FormatQuery>()
    .takes::<RememberBody>()
    .answers("remember", &[201, 200, 202]),
    r(
        "POST",
        "/v1/memory/forget",
        "Remove the entry {id} or {text} names: {removed: 1}",
        || post(forget),
    )
    .query::<FormatQuery>()
    .takes::<ForgetBody>()
    .answers("forget", &[200]),
    r(
        "POST",
        "/v1/memory/tool",
        "Claude's memory tool: the body is one tool-use input {command, path, …, agentId} (?skills_writable=true lets it write skills); 200 {text, is_error}",
        || post(memory_tool),
    )
    .query::<ToolQuery>()
    .body(Body::ToolInput)
    .answers("memory-tool", &[200, 202]),
    r(
        "POST",
        "/v1/runs",
        "Begin a run {task, workflow, skills, session, agentId}: 201 {run_id, text, sha256, …, resumed: false}; 200 the open run of the same session (resumed: true)",
        || post(runs::begin),
    )
    .takes::<BeginBody>()
    .answers("run-begin", &[201, 200]),
    r(
        "POST",
        "/v1/runs/{runId}/finish",
        "Finish a run {text}: 201 its day-log line (agents only)",
        || post(runs::finish),
    )
    .takes::<FinishBody>()
    .answers("day", &[201]),
    r(
        "GET",
        "/v1/workflows/results/{workflowId}/{taskId}",
        "A task's result; 404 not_ready (a known workflow) or result_not_found",
        || get(get_result),
    )
    .query::<FormatQuery>()
    .answers("result", &[200]),
    r(
        "PUT",
        "/v1/workflows/results/{workflowId}/{taskId}",
        "Store the body as a task's result (Content-Type kept)",
        results_put,
    )
    .query::<FormatQuery>()
    .body(Body::Bytes)
    .answers("result-put", &[201, 200]),
    r(
        "GET",
        "/v1/agents/results/{workflowId}/{taskId}",
        "A task's result (same store as /v1/workflows/results)",
        || get(get_result),
    )
    .query::<FormatQuery>()
    .answers("result", &[200]),
    r(
        "PUT",
        "/v1/agents/results/{workflowId}/{taskId}",
        "Store a task's result (same store as /v1/workflows/results)",
        results_put,
    )
    .query::<FormatQuery>()
    .body(Body::Bytes)
    .answers("result-put", &[201, 200]),
    r(
        "POST",
        "/api/v1/memories",
        "Save a fact {text, expiresAt, supersedes, agentId, runId}: 201, 202 pending a person's review",
        || post(save),
    )
    .takes::<SaveBody>()
    .answers("memory", &[201, 200, 202]),
    r(
        "GET",
        "/api/v1/memories",
        "List memories: agentId, kind, status, limit",
        || get(list),
    )
    .query::<ListQuery>()
    .answers("memories", &[200]),
    r(
        "POST",
        "/api/v1/memories/day",
        "Append {line} to the caller's day log (agents only)",
        || post(day),
    )
    .takes::<DayBody>()
    .answers("day", &[201]),
    r(
        "POST",
        "/api/v1/memories/recall",
        "Recall on demand {query, agentId}",
        || post(recall_facts),
    )
    .takes::<RecallBody>()
    .answers("memories-recall", &[200]),
    r(
        "PATCH",
        "/api/v1/memories/{id}",
        "A person edits a memory's {text}",
        || patch(edit),
    )
    .takes::<LifecycleBody>()
    .answers("memory-edit", &[200]),
    r(
        "POST",
        "/api/v1/memories/{id}/archive",
        "Archive with {reason}",
        || post(archive),
    )
    .takes::<LifecycleBody>()
    .answers("transition", &[200]),
    r(
        "POST",
        "/api/v1/memories/{id}/unarchive",
        "Bring an archived memory back",
        || post(unarchive),
    )
    .takes::<LifecycleBody>()
    .answers("transition", &[200]),
    r(
        "POST",
        "/api/v1/memories/{id}/resolve",
        "Settle what a merge left of a fact {keep: both, live, one}",
        || post(resolve),
    )
    .takes::<ResolveBody>()
    .answers("transition", &[200]),
    r(
        "POST",
        "/api/v1/memories/{id}/veto",
        "A person's veto",
        || post(veto),
    )
    .takes::<LifecycleBody>()
    .answers("transition", &[200]),
    r(
        "POST",
        "/api/v1/learnings",
        "Propose a learning {text}: 201 proposed, 200 already pending or approved",
        || post(learnings::propose),
    )
    .takes::<ProposeBody>()
    .answers("learning", &[201, 200]),
    r(
        "GET",
        "/api/v1/learnings",
        "The approved learnings and the proposals the caller may see",
        || get(learnings::list),
    )
    .answers("learnings", &[200]),
    r(
        "POST",
        "/api/v1/learnings/{id}/approve",
        "A person approves a proposal {text, seenText}: 409 learning_changed",
        || post(learnings::approve),
    )
    .takes::<DecisionBody>()
    .answers("learning", &[200]),
    r(
        "POST",
        "/api/v1/learnings/{id}/reject",
        "A person rejects a proposal {reason}",
        || post(learnings::reject),
    )
    .takes::<DecisionBody>()
    .answers("learning", &[200]),
    r(
        "POST",
        "/api/v1/learnings/{id}/retire",
        "A person retires an approved learning {reason}",
        || post(learnings::retire),
    )
    .takes::<DecisionBody>()
    .answers("learning", &[200]),
    r(
        "GET",
        "/api/v1/pending",
        "The owner's writes that wait for a person's review: agentId, all",
        || get(pending::list),
    )
    .query::<PendingQuery>()
    .answers("pending", &[200]),
    r(
        "GET",
        "/api/v1/pending/{id}",
        "One write that waits for a person's review: agentId",
        || get(pending::show),
    )
    .query::<PendingQuery>()
    .answers("pending-show", &[200]),
    r(
        "POST",
        "/api/v1/pending/{id}/approve",
        "A person approves a waiting write {agentId, text}: written as the agent's direct write",
        || post(pending::approve),
    )
    .takes::<PendingDecisionBody>()
    .answers("pending-decision", &[200]),
    r(
        "POST",
        "/api/v1/pending/{id}/reject",
        "A person rejects a waiting write {agentId, reason}",
        || post(pending::reject),
    )
    .takes::<PendingDecisionBody>()
    .answers("pending-decision", &[200]),
    r(
        "POST",
        "/api/v1/reviews",
        "Start the owner's review {agentId, dryRun} in the background: 202 {job, status: running}",
        || post(reviews::start),
    )
    .takes::<StartBody>()
    .answers("review-job", &[202]),
    r(
        "GET",
        "/api/v1/reviews/history",
        "Every review of the owner, newest first (?agentId=, ?limit=): {reviews: [{id, at, report, undone, changes, changes_total}], limit}",
        || get(reviews::history),
    )
    .query::<HistoryQuery>()
    .answers("review-history", &[200]),
    r(
        "GET",
        "/api/v1/reviews/jobs/{job}",
        "A background review: {job, status: running | done (review) | failed (error)}",
        || get(reviews::job),
    )
    .answers("review-job", &[200]),
    r(
        "GET",
        "/v1/skills",
        "The learned skills: {skills: [{name, description}], count}",
        || get(skills),
    )
    .query::<Common>()
    .answers("skills", &[200]),
    r(
        "POST",
        "/v1/skills",
        "Learn {name, content, description, replace}: 201 saved or replaced, 200 already stored, 409 skill_exists",
        || post(learn),
    )
    .query::<FormatQuery>()
    .takes::<LearnBody>()
    .answers("skill-save", &[201, 200]),
    r(
        "GET",
        "/v1/skills/{name}",
        "One skill: {name, description, body, text, path}; 404 skill_not_found",
        || get(skill),
    )
    .query::<Common>()
    .answers("skill-show", &[200]),
    r(
        "DELETE",
        "/v1/skills/{name}",
        "Forget a skill: {name, message: forgot, path}; 404 skill_not_found",
        || delete(forget_skill),
    )
    .query::<Common>()
    .answers("skill-forget", &[200]),
    r(
        "POST",
        "/v1/command",
        "One command of the command line for the key's caller (memdir --url) {request, agentId, json}: 200 {stdout, stderr, exit}, a refusal too",
        || post(remote::command),
    )
    .takes::<CommandBody>()
    .answers("command", &[200]),
    r(
        "GET",
        "/v1/mcp/tools",
        "The MCP tools the key's role lists (memdir mcp --url): {tools}",
        || get(remote::mcp_tools),
    )
    .answers("mcp-tools", &[200]),
    r(
        "POST",
        "/v1/mcp/call",
        "One MCP tool call for the key's caller (memdir mcp --url) {name, arguments}: {result} or {error}",
        || post(remote::mcp_call),
    )
    .takes::<CallBody>()
    .answers("mcp-call", &[200]),
    r(
        "GET",
        "/v1/sync",
        "How the server's syncing with its remote stands (--sync): {state, remote, every_secs, replica, replicas, syncs, failed, pushes_retried, last_synced, error, …}",
        || get(super::replica::status),
    )
    .answers("sync-status", &[200]),
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
        "/ui/pending",
        "Every agent's writes that wait for a person (writes: review), each a diff against the store with who asked and from which run",
        || get(pending_page::show_all),
    ),
    page(
        "GET",
        "/ui/agents/{agent}/pending",
        "One agent's writes that wait for a person, each a diff against the store",
        || get(pending_page::show),
    ),
    page(
        "POST",
        "/ui/pending",
        "Approve (text edited or not) or reject with a reason a waiting write {action, agent, id, seen_text, text, reason, back, csrf}: 303 to the page, which says what was done or why not",
        || post(pending_page::post),
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

/// `GET /healthz`: liveness, answered without a key.
async fn healthz() -> Response {
    json_response(
        200,
        &memdir::api::wire::value(&memdir::api::wire::Health { status: "ok" }),
    )
}

#[cfg(test)]
mod tests {
    use super::openapi::document;
    use super::*;

    /// Every route of the API (not a dashboard's page, not this document)
    /// names its answer's schema, one of docs/schema/http/.
    #[test]
    fn every_api_route_names_its_answer() {
        let (_, answers) = memdir::api::schema::components();
        for route in ROUTES {
            if route.dashboard || route.path == "/openapi.json" {
                continue;
            }
            let a = route
                .answer
                .unwrap_or_else(|| panic!("{} {} names no answer", route.method, route.path));
            assert!(
                answers.iter().any(|(name, _)| *name == a.schema),
                "{} {}: no schema {}",
                route.method,
                route.path,
                a.schema
            );
            assert!(!a.statuses.is_empty());
        }
    }

    /// A body's schema never has an answer's name with another form (the
    /// document keeps the answer's).
    #[test]
    fn body_schemas_do_not_shadow_the_answers() {
        let (schemas, _) = memdir::api::schema::components();
        let mut bodies = memdir::api::schema::requests(false);
        for route in ROUTES {
            if let Some(Body::Json(t)) = route.body {
                t(&mut bodies);
            }
        }
        for (name, schema) in bodies.take_definitions(true) {
            if let Some(answer) = schemas.get(&name) {
                assert_eq!(answer, &schema, "{name}: a body's and an answer's differ");
            }
        }
    }

    /// Every reference of the document names one of its schemas.
    #[test]
    fn every_reference_of_the_document_resolves() {
        let doc = document();
        let schemas = &doc["components"]["schemas"];
        let text = doc.to_string();
        for r in text.split("\"$ref\":\"").skip(1) {
            let r = &r[..r.find('"').unwrap_or(0)];
            let name = r.trim_start_matches("#/components/schemas/");
            assert!(schemas.get(name).is_some(), "{r}");
        }
    }
}
