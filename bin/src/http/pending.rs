//! The routes of the writes that wait for a person (`/api/v1/pending`,
//! `writes: review`): an agent (or a person, naming the agent) lists its
//! waiting writes and looks one up; a person approves or rejects one. The
//! rules (who decides, the checks made again on approval) are the
//! library's (`store::pending`): an agent's key on a decision is `403
//! person_only`, as on every other surface.

use axum::body::Bytes;
use axum::extract::{Path, RawQuery, State};
use axum::http::HeaderMap;
use axum::response::Response;
use memdir::api::{self, Request, render};
use serde::Deserialize;

use super::answer::{ok, query};
use super::decide::{decide, rejection_reason};
use super::{App, Fail};

/// The query of the pending writes' list.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub(super) struct PendingQuery {
    /// The agent a person's key acts for (an agent's key names itself).
    #[serde(rename = "agentId", alias = "agent_id")]
    agent_id: Option<String>,
    /// The rejected writes too.
    all: Option<bool>,
}

/// `GET /api/v1/pending?agentId=&all=`: the owner's writes that wait for a
/// person's review, oldest first.
pub(super) async fn list(
    State(app): State<App>,
    headers: HeaderMap,
    RawQuery(raw): RawQuery,
) -> Result<Response, Fail> {
    let q: PendingQuery = query("pending", raw.as_deref())?;
    let all = q.all.unwrap_or(false);
    let v = app
        .call(headers, q.agent_id, move |store, who| {
            let r = api::execute(store, who, Request::PendingList { all })?;
            Ok(render::json(&r))
        })
        .await?;
    ok(200, v)
}

/// `GET /api/v1/pending/{id}?agentId=`: one waiting (or rejected) write.
pub(super) async fn show(
    State(app): State<App>,
    headers: HeaderMap,
    Path(id): Path<String>,
    RawQuery(raw): RawQuery,
) -> Result<Response, Fail> {
    let q: PendingQuery = query("pending", raw.as_deref())?;
    let v = app
        .call(headers, q.agent_id, move |store, who| {
            let r = api::execute(store, who, Request::PendingShow { id })?;
            Ok(render::json(&r))
        })
        .await?;
    ok(200, v)
}

/// A person's decision on a waiting write.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub(super) struct PendingDecisionBody {
    /// The agent whose write it is (required with a person's key).
    #[serde(rename = "agentId", alias = "agent_id")]
    agent_id: Option<String>,
    /// An approval's text in place of the write's one text (none: as it
    /// waits).
    text: Option<String>,
    /// Why (a rejection's, required).
    reason: Option<String>,
}

/// The agent a decision's body names.
fn agent(b: &PendingDecisionBody) -> Option<String> {
    b.agent_id.clone()
}

/// `POST /api/v1/pending/{id}/approve {agentId, text}`.
pub(super) async fn approve(
    State(app): State<App>,
    headers: HeaderMap,
    Path(id): Path<String>,
    body: Bytes,
) -> Result<Response, Fail> {
    decide(
        app,
        headers,
        "approve",
        &body,
        agent,
        move |b: PendingDecisionBody, _| Ok(Request::PendingApprove { id, text: b.text }),
    )
    .await
}

/// `POST /api/v1/pending/{id}/reject {agentId, reason}`: `reason` required.
pub(super) async fn reject(
    State(app): State<App>,
    headers: HeaderMap,
    Path(id): Path<String>,
    body: Bytes,
) -> Result<Response, Fail> {
    decide(
        app,
        headers,
        "reject",
        &body,
        agent,
        move |b: PendingDecisionBody, caller| {
            Ok(Request::PendingReject {
                id,
                reason: rejection_reason(b.reason, caller)?,
            })
        },
    )
    .await
}
