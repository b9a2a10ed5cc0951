//! Learned skills (the seed's `/v1/skills`).

use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::HeaderMap;
use axum::response::Response;
use memdir::api::types::{Error, SkillChange};
use memdir::api::{self, Request, Response as Answer, render};
use serde::Deserialize;

use super::answer::{Args, Common, FormatQuery, formatted, parse};
use super::{App, Fail};

pub(super) async fn skills(
    State(app): State<App>,
    headers: HeaderMap,
    Args(q): Args<Common>,
) -> Result<Response, Fail> {
    run_200(app, headers, q, Request::SkillList).await
}

/// Runs `request` for the caller (a person naming `q`'s agent) and answers
/// 200 with it, in `q`'s format.
pub(super) async fn run_200(
    app: App,
    headers: HeaderMap,
    q: Common,
    request: Request,
) -> Result<Response, Fail> {
    let v = app
        .call_as(headers, q.agent_id, q.raw, move |store, who| {
            // A person's `?raw=true` is the one exit for raw text.
            Ok(api::json_answer(store, who, request)?)
        })
        .await?;
    formatted(200, v, q.format)
}

/// A skill to learn.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub(super) struct LearnBody {
    /// Its name (required).
    name: Option<String>,
    /// The skill's markdown (`source`, as the seed's tool calls it, too).
    #[serde(alias = "source")]
    content: Option<String>,
    /// Its description (default: its front matter's).
    description: Option<String>,
    /// Replace a skill of that name.
    #[serde(default)]
    replace: bool,
    #[serde(flatten)]
    common: Common,
}

pub(super) async fn learn(
    State(app): State<App>,
    headers: HeaderMap,
    Args(fq): Args<FormatQuery>,
    body: Bytes,
) -> Result<Response, Fail> {
    let b: LearnBody = parse("learn", &body)?;
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
                let status = match &*r {
                    Answer::Skill(o) if o.message == SkillChange::AlreadyStored => 200,
                    _ => 201,
                };
                Ok((status, render::json(&r)))
            },
        )
        .await?;
    formatted(status, v, format)
}

pub(super) async fn skill(
    State(app): State<App>,
    headers: HeaderMap,
    Path(name): Path<String>,
    Args(q): Args<Common>,
) -> Result<Response, Fail> {
    run_200(app, headers, q, Request::SkillShow { name }).await
}

pub(super) async fn forget_skill(
    State(app): State<App>,
    headers: HeaderMap,
    Path(name): Path<String>,
    Args(q): Args<Common>,
) -> Result<Response, Fail> {
    run_200(app, headers, q, Request::SkillForget { name }).await
}
