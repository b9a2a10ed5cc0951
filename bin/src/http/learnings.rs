//! The learnings' routes (`/api/v1/learnings`): an agent (or a person)
//! proposes a learning and lists what it may see; a person approves,
//! rejects or retires one. The rules (who decides, the limits, the checks)
//! are the library's (`store::learnings`): an agent's key on a decision is
//! `403 person_only`, as on every other surface.

use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::HeaderMap;
use axum::response::Response;
use memdir::api::types::Error;
use memdir::api::{self, Request, Response as Answer, render};
use serde::Deserialize;

use super::answer::{ok, parse};
use super::decide::{decide, rejection_reason};
use super::{App, Fail};

/// A learning proposed.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub(super) struct ProposeBody {
    /// The learning: a fact every agent needs (required).
    text: Option<String>,
}

/// `POST /api/v1/learnings`: `201` proposed, `200` already pending or
/// already approved.
pub(super) async fn propose(
    State(app): State<App>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, Fail> {
    let b: ProposeBody = parse("propose", &body)?;
    let text = b.text.ok_or(Error::Required {
        what: "text",
        action: "propose",
    })?;
    let (status, v) = app
        .call(headers, None, move |store, who| {
            let r = api::execute(store, who, Request::Propose { text })?;
            let created = matches!(&*r, Answer::Learning(o) if o.created);
            Ok((if created { 201 } else { 200 }, render::json(&r)))
        })
        .await?;
    ok(status, v)
}

/// `GET /api/v1/learnings`: the approved learnings and the proposals the
/// caller may see (an agent: its own; a person: every one).
pub(super) async fn list(State(app): State<App>, headers: HeaderMap) -> Result<Response, Fail> {
    let v = app
        .call(headers, None, move |store, who| {
            Ok(render::json(&api::execute(store, who, Request::Learnings)?))
        })
        .await?;
    ok(200, v)
}

/// A person's decision on a learning.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub(super) struct DecisionBody {
    /// An approval's edited text (none: the proposal's).
    text: Option<String>,
    /// The proposal's text as the person saw it: an approval of a text
    /// changed since is `learning_changed`.
    #[serde(rename = "seenText", alias = "seen_text")]
    seen_text: Option<String>,
    /// Why (a rejection's, a retirement's).
    reason: Option<String>,
}

/// A learning is every agent's: a decision names none.
fn no_agent(_: &DecisionBody) -> Option<String> {
    None
}

/// `POST /api/v1/learnings/{id}/approve`: `text` in place of the
/// proposal's, `seenText` the proposal as the person read it.
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
        no_agent,
        move |b: DecisionBody, _| {
            Ok(Request::Approve {
                id,
                text: b.text,
                seen_text: b.seen_text,
            })
        },
    )
    .await
}

/// `POST /api/v1/learnings/{id}/reject`: `reason` required.
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
        no_agent,
        move |b: DecisionBody, caller| {
            Ok(Request::Reject {
                id,
                reason: rejection_reason(b.reason, caller)?,
            })
        },
    )
    .await
}

/// `POST /api/v1/learnings/{id}/retire`: `reason` optional.
pub(super) async fn retire(
    State(app): State<App>,
    headers: HeaderMap,
    Path(id): Path<String>,
    body: Bytes,
) -> Result<Response, Fail> {
    decide(
        app,
        headers,
        "retire",
        &body,
        no_agent,
        move |b: DecisionBody, _| {
            Ok(Request::Retire {
                id,
                reason: b.reason,
            })
        },
    )
    .await
}
