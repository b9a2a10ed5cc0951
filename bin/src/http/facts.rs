//! The facts' routes (the second seed): save, the day log, list, recall,
//! archive, unarchive, veto and a person's edit.

use axum::body::Bytes;
use axum::extract::{Path, RawQuery, State};
use axum::http::HeaderMap;
use axum::response::Response;
use memdir::api::errors::Transport;
use memdir::api::types::{Error, Keep, Op, Scope};
use memdir::api::types::{FactKind, Status};
use memdir::api::{self, Request, Response as Answer, render};
use serde::Deserialize;
use serde_json::{Value, json};

use super::answer::{budget, checked, in_run, ok, parse, query};
use super::{App, Fail};

#[derive(Debug, Deserialize)]
struct SaveBody {
    text: Option<String>,
    #[serde(rename = "expiresAt", alias = "expires_at")]
    expires_at: Option<String>,
    supersedes: Option<String>,
    #[serde(rename = "agentId", alias = "agent_id")]
    agent_id: Option<String>,
    /// The agent's begun, unfinished run the fact comes from.
    #[serde(rename = "runId", alias = "run_id")]
    run_id: Option<String>,
}

/// A memory's row as `list` shows it, found by id: through the door
/// (`api::execute`), guarded as every list.
pub(super) fn row(
    store: &memdir::api::types::Store,
    who: &api::Who,
    id: &str,
) -> Result<Option<Value>, Error> {
    let rows = api::execute(
        store,
        who,
        Request::List {
            kind: None,
            status: None,
            all: true,
            limit: Some(memdir::api::types::MAX_LIST_LIMIT),
        },
    )?;
    let rows = render::json(&rows).into_value();
    Ok(rows["rows"]
        .as_array()
        .and_then(|a| a.iter().find(|r| r["id"] == id).cloned()))
}

pub(super) async fn save(
    State(app): State<App>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, Fail> {
    let b: SaveBody = parse("save", &body)?;
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
            let r = api::execute(store, who, in_run(b.run_id, Request::Write { op }))?;
            match &*r {
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
                    Ok((if o.message.created() { 201 } else { 200 }, checked(v)))
                }
                _ => Ok((200, render::json(&r))),
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
    /// The agent's begun, unfinished run the line belongs to.
    #[serde(rename = "runId", alias = "run_id")]
    run_id: Option<String>,
}

pub(super) async fn day(
    State(app): State<App>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, Fail> {
    let b: DayBody = parse("day", &body)?;
    let v = app
        .call(headers, b.agent_id, move |store, who| {
            if let memdir::api::types::Caller::Person(p) = &who.caller {
                return Err(Error::DayAgentOnly { person: p.clone() }.into());
            }
            let line = b.line.ok_or(Error::Required {
                what: "line",
                action: "day",
            })?;
            let r = api::execute(
                store,
                who,
                in_run(
                    b.run_id,
                    Request::Day {
                        line,
                        task: None,
                        run: None,
                    },
                ),
            )?;
            Ok(render::json(&r))
        })
        .await?;
    ok(201, v)
}

#[derive(Debug, Deserialize)]
pub(super) struct ListQuery {
    #[serde(rename = "agentId", alias = "agent_id")]
    agent_id: Option<String>,
    kind: Option<FactKind>,
    status: Option<Status>,
    limit: Option<usize>,
    raw: Option<bool>,
}

pub(super) async fn list(
    State(app): State<App>,
    headers: HeaderMap,
    RawQuery(raw): RawQuery,
) -> Result<Response, Fail> {
    let q: ListQuery = query("list", raw.as_deref())?;
    let (kind, status) = (q.kind, q.status);
    let limit = q.limit;
    let v = app
        .call_as(headers, q.agent_id, q.raw, move |store, who| {
            // A person's `?raw=true` is the one exit for raw text.
            Ok(api::json_answer(
                store,
                who,
                Request::List {
                    kind,
                    all: status == Some(Status::Archived),
                    status,
                    limit,
                },
            )?)
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

pub(super) async fn recall_facts(
    State(app): State<App>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, Fail> {
    let b: RecallBody = parse("recall", &body)?;
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
pub(super) async fn transition(
    app: App,
    headers: HeaderMap,
    body: Bytes,
    action: &str,
    make: fn(String, Option<String>) -> Result<Request, Error>,
    id: String,
) -> Result<Response, Fail> {
    let b: LifecycleBody = parse(action, &body)?;
    let request = make(id, b.reason)?;
    let v = app
        .call(headers, b.agent_id, move |store, who| {
            Ok(render::json(&api::execute(store, who, request)?))
        })
        .await?;
    ok(200, v)
}

pub(super) async fn archive(
    State(app): State<App>,
    headers: HeaderMap,
    Path(id): Path<String>,
    body: Bytes,
) -> Result<Response, Fail> {
    transition(
        app,
        headers,
        body,
        "archive",
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

pub(super) async fn unarchive(
    State(app): State<App>,
    headers: HeaderMap,
    Path(id): Path<String>,
    body: Bytes,
) -> Result<Response, Fail> {
    transition(
        app,
        headers,
        body,
        "unarchive",
        |id, _| Ok(Request::Unarchive { id }),
        id,
    )
    .await
}

#[derive(Debug, Deserialize)]
struct ResolveBody {
    keep: Keep,
    #[serde(rename = "agentId", alias = "agent_id")]
    agent_id: Option<String>,
}

/// Settle what a merge left of `id` (`{keep: both|live|one}`).
pub(super) async fn resolve(
    State(app): State<App>,
    headers: HeaderMap,
    Path(id): Path<String>,
    body: Bytes,
) -> Result<Response, Fail> {
    let b: ResolveBody = parse("resolve", &body)?;
    let request = Request::Resolve { id, keep: b.keep };
    let v = app
        .call(headers, b.agent_id, move |store, who| {
            Ok(render::json(&api::execute(store, who, request)?))
        })
        .await?;
    ok(200, v)
}

pub(super) async fn veto(
    State(app): State<App>,
    headers: HeaderMap,
    Path(id): Path<String>,
    body: Bytes,
) -> Result<Response, Fail> {
    transition(
        app,
        headers,
        body,
        "veto",
        |id, reason| Ok(Request::Veto { id, reason }),
        id,
    )
    .await
}

/// A person edits a memory's text (the seed's "read, edit and veto").
pub(super) async fn edit(
    State(app): State<App>,
    headers: HeaderMap,
    Path(id): Path<String>,
    body: Bytes,
) -> Result<Response, Fail> {
    let b: LifecycleBody = parse("edit", &body)?;
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
            let scope = match &*api::execute(store, who, Request::CurrentEntries)? {
                Answer::CurrentEntries(list) => list
                    .iter()
                    .find(|(_, e)| e.id == id)
                    .map_or(Scope::Memory, |(s, _)| *s),
                _ => Scope::Memory,
            };
            let op = Op::Replace {
                old: id,
                new: text,
                scope: Some(scope),
            };
            let r = api::execute(store, who, Request::Write { op })?;
            match &*r {
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
                    Ok(checked(v))
                }
                _ => Ok(render::json(&r)),
            }
        })
        .await?;
    ok(200, v)
}
