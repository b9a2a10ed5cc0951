//! The facts' routes (the second seed): save, the day log, list, recall,
//! archive, unarchive, veto and a person's edit.

use axum::body::Bytes;
use axum::extract::{Path, RawQuery, State};
use axum::http::HeaderMap;
use axum::response::Response;
use memdir::api::errors::Transport;
use memdir::api::types::{Error, FactKind, Keep, Op, Scope, Status};
use memdir::api::{self, Request, Response as Answer, render, wire};
use serde::Deserialize;
use serde_json::{Map, Value};

use super::answer::{checked_answer, in_run, ok, parse, query, saved_status};
use super::{App, Fail};

/// A fact to save in MEMORY.md.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub(super) struct SaveBody {
    /// The fact (required).
    text: Option<String>,
    /// When it expires: a date, a duration (`30d`) or `never`.
    #[serde(rename = "expiresAt", alias = "expires_at")]
    expires_at: Option<String>,
    /// The fact it replaces (archived as superseded).
    supersedes: Option<String>,
    /// The agent a person's key acts for (an agent's key names itself).
    #[serde(rename = "agentId", alias = "agent_id")]
    agent_id: Option<String>,
    /// The agent's begun, unfinished run the fact comes from.
    #[serde(rename = "runId", alias = "run_id")]
    run_id: Option<String>,
}

/// A memory's row as `list` shows it, found by id: through the door
/// (`api::execute`), guarded as every list; `{"id"}` alone when the list
/// does not show it.
pub(super) fn row(
    store: &memdir::api::types::Store,
    who: &api::Who,
    id: &str,
) -> Result<Map<String, Value>, Error> {
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
    let found = rows["rows"]
        .as_array()
        .and_then(|a| a.iter().find(|r| r["id"] == id))
        .and_then(Value::as_object)
        .cloned();
    Ok(found.unwrap_or_else(|| Map::from_iter([("id".to_owned(), Value::from(id))])))
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
                    let (waits, pending_id) = wire::waiting(w.pending_id.as_deref());
                    let mut row = row(store, who, &o.id)?;
                    // A fact that waits for a person's review has no row
                    // yet: its id, and the write's status.
                    if let Some(waits) = waits {
                        row.insert("status".into(), wire::value(&waits));
                    }
                    let v = checked_answer(&wire::MemorySaved {
                        row,
                        object: "memory",
                        usage: &w.usage.text,
                        budget: wire::UsageNumbers::of(&w.usage),
                        message: o.message,
                        archived: &w.archived,
                        pending_id,
                    });
                    let status = saved_status(o.message);
                    Ok((status, v))
                }
                _ => Ok((200, render::json(&r))),
            }
        })
        .await?;
    ok(status, v)
}

/// A line for the caller's day log.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub(super) struct DayBody {
    /// The line (required).
    line: Option<String>,
    /// The agent a person's key acts for (an agent's key names itself).
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

/// The query of the list of memories.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub(super) struct ListQuery {
    /// The agent whose memories a person's key lists (none: every agent's).
    #[serde(rename = "agentId", alias = "agent_id")]
    agent_id: Option<String>,
    /// Only facts or only day rows.
    kind: Option<FactKind>,
    /// Only active or only archived rows.
    status: Option<Status>,
    /// At most this many rows (default 100, at most 500).
    limit: Option<usize>,
    /// A person's key asking for flagged text as the files hold it.
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

/// A recall on demand.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub(super) struct RecallBody {
    /// What to recall (none: the newest facts).
    query: Option<String>,
    /// The agent a person's key acts for (an agent's key names itself).
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

/// An archive, unarchive, veto or a person's edit.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub(super) struct LifecycleBody {
    /// Why (an archive's is required).
    reason: Option<String>,
    /// The fact's new text (an edit's, required).
    text: Option<String>,
    /// The agent a person's key acts for (an agent's key names itself).
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

/// How to settle what a merge left of a fact.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub(super) struct ResolveBody {
    /// What to keep.
    keep: Keep,
    /// The agent a person's key acts for (an agent's key names itself).
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
                    Ok(checked_answer(&wire::MemoryEdited {
                        row: row(store, who, &o.id)?,
                        object: "memory",
                        old_id: o.old_id.as_deref().unwrap_or_default(),
                        usage: &w.usage.text,
                        budget: wire::UsageNumbers::of(&w.usage),
                        message: o.message,
                    }))
                }
                _ => Ok(render::json(&r)),
            }
        })
        .await?;
    ok(200, v)
}
