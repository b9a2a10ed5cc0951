//! The One API's routes (the first seed): the snapshot, recall, remember,
//! forget, and the SharedMemory results.

use axum::body::{Body, Bytes};
use axum::extract::{Path, State};
use axum::http::{HeaderMap, header};
use axum::response::{IntoResponse, Response};
use memdir::api::errors::Transport;
use memdir::api::servers::ForgetKey;
use memdir::api::types::{Error, Op, PutOptions, PutStatus, Scope};
use memdir::api::{self, Request, Response as Answer, render, wire};
use serde::Deserialize;

use super::answer::{
    Args, Common, FormatQuery, checked_answer, formatted, in_run, parse, saved_status,
};
use super::{App, Fail, blocking, uploads};

pub(super) async fn snapshot(
    State(app): State<App>,
    headers: HeaderMap,
    Args(q): Args<Common>,
) -> Result<Response, Fail> {
    let v = app
        .call(headers, q.agent_id, |store, who| {
            let r = api::execute(store, who, Request::Snapshot)?;
            Ok(api::guard::AgentJson::from_guarded(&r, |r| match r {
                Answer::Snapshot(s) => wire::value(&wire::SnapshotText {
                    text: &s.text,
                    sha256: &s.sha256,
                    bytes: s.bytes,
                }),
                _ => serde_json::Value::Null,
            }))
        })
        .await?;
    formatted(200, v, q.format)
}

/// The query of the One API's recall.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub(super) struct RecallQuery {
    /// Rank the entries against this query, and keep those it matches.
    q: Option<String>,
    /// At most this many entries.
    limit: Option<usize>,
    #[serde(flatten)]
    common: Common,
}

pub(super) async fn recall(
    State(app): State<App>,
    headers: HeaderMap,
    Args(q): Args<RecallQuery>,
) -> Result<Response, Fail> {
    let (query, limit) = (q.q, q.limit);
    let v = app
        .call(headers, q.common.agent_id, move |store, who| {
            let r = api::execute(store, who, Request::RecallEntries { query, limit })?;
            Ok(render::json(&r))
        })
        .await?;
    formatted(200, v, q.common.format)
}

/// What `remember` stores.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub(super) struct RememberBody {
    /// The fact (required).
    text: Option<String>,
    /// The store: `memory` (the default) or `user`.
    scope: Option<Scope>,
    /// The agent's begun, unfinished run the fact comes from.
    #[serde(rename = "runId", alias = "run_id")]
    run_id: Option<String>,
    #[serde(flatten)]
    common: Common,
}

pub(super) async fn remember(
    State(app): State<App>,
    headers: HeaderMap,
    Args(fq): Args<FormatQuery>,
    body: Bytes,
) -> Result<Response, Fail> {
    let b: RememberBody = parse("remember", &body)?;
    let format = b.common.format.or(fq.format);
    let scope = b.scope.unwrap_or(Scope::Memory);
    let text = b.text.ok_or(Error::Required {
        what: "text",
        action: "remember",
    })?;
    let (status, v) = app
        .call(
            headers,
            b.common.agent_id.or(fq.agent_id),
            move |store, who| {
                let r = api::execute(
                    store,
                    who,
                    in_run(
                        b.run_id,
                        Request::Write {
                            op: Op::add(scope, text),
                        },
                    ),
                )?;
                match &*r {
                    Answer::Written(w) => {
                        let o = &w.outcome;
                        let status = saved_status(o.message);
                        let (waits, pending_id) = wire::waiting(w.pending_id.as_deref());
                        Ok((
                            status,
                            checked_answer(&wire::Remembered {
                                id: &o.id,
                                scope: o.scope,
                                text: o.text.as_deref().unwrap_or_default(),
                                usage: &w.usage.text,
                                budget: wire::UsageNumbers::of(&w.usage),
                                message: o.message,
                                status: waits,
                                pending_id,
                            }),
                        ))
                    }
                    _ => Ok((200, render::json(&r))),
                }
            },
        )
        .await?;
    formatted(status, v, format)
}

/// What `forget` removes: the entry `id` names, or the one `text` finds.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub(super) struct ForgetBody {
    /// The entry's id.
    id: Option<String>,
    /// A substring of the entry's text (when no id is given).
    text: Option<String>,
    #[serde(flatten)]
    common: Common,
}

pub(super) async fn forget(
    State(app): State<App>,
    headers: HeaderMap,
    Args(fq): Args<FormatQuery>,
    body: Bytes,
) -> Result<Response, Fail> {
    let b: ForgetBody = parse("forget", &body)?;
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
                let r = api::execute(store, who, Request::Forget { key })?;
                Ok(api::guard::AgentJson::from_guarded(&r, |r| match r {
                    Answer::Written(w) => wire::value(&wire::Forgotten {
                        removed: 1,
                        id: &w.outcome.id,
                        scope: w.outcome.scope,
                        usage: &w.usage.text,
                        budget: wire::UsageNumbers::of(&w.usage),
                        message: w.outcome.message,
                    }),
                    _ => serde_json::Value::Null,
                }))
            },
        )
        .await?;
    formatted(200, v, format)
}

pub(super) async fn get_result(
    State(app): State<App>,
    headers: HeaderMap,
    Path((workflow_id, task_id)): Path<(String, String)>,
    Args(fq): Args<FormatQuery>,
) -> Result<Response, Fail> {
    let v = app
        .call_as(headers, fq.agent_id, fq.raw, move |store, who| {
            // A person's `?raw=true` is the one exit for raw text.
            Ok(api::json_answer(
                store,
                who,
                Request::GetResult {
                    workflow_id,
                    task_id,
                },
            )?)
        })
        .await?;
    formatted(200, v, fq.format)
}

/// A result's `PUT`: the body streamed into the put (see `uploads`), its
/// bytes counted against the server's cap of uploads in flight.
pub(super) async fn put_result(
    State(app): State<App>,
    headers: HeaderMap,
    Path((workflow_id, task_id)): Path<(String, String)>,
    Args(fq): Args<FormatQuery>,
    body: Body,
) -> Response {
    match put_streamed(app, headers, (workflow_id, task_id), fq, body).await {
        Ok(r) => r,
        Err(fail) => fail.into_response(),
    }
}

async fn put_streamed(
    app: App,
    headers: HeaderMap,
    (workflow_id, task_id): (String, String),
    fq: FormatQuery,
    body: Body,
) -> Result<Response, Fail> {
    let (wf, task) = (workflow_id.clone(), task_id.clone());
    // The key and the limit at once, outside the owner's share: a refusal
    // (401, 413, 503) is answered before the body is asked for, so a
    // client that sent `Expect: 100-continue` never sends it.
    let (store, who) = app
        .caller(headers.clone(), fq.agent_id.clone(), None)
        .await?;
    let limit = blocking(move || Ok(api::result_limit(&store, &who, &wf, &task)?)).await?;
    let declared = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if let Some(n) = declared.filter(|n| *n > limit) {
        return Err(Error::ResultTooLarge { bytes: n, limit }.into());
    }
    // Given back when this request ends, however it ends.
    let mut held = app.cfg.uploads.reserve(declared.unwrap_or(0))?;
    let content_type = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("application/octet-stream")
        .to_owned();
    let options = PutOptions {
        content_type: Some(content_type),
        overwrite: fq.overwrite.unwrap_or(false),
        allow_empty: fq.allow_empty.unwrap_or(false),
        limit: Some(limit),
    };
    let (tx, mut reader) = uploads::channel();
    let put = app.call(headers, fq.agent_id, move |store, who| {
        let ids = (workflow_id.as_str(), task_id.as_str());
        let r = api::put_result_from(store, who, ids, &options, &mut reader, "the request body")?;
        let status = match &*r {
            Answer::Put(p) if p.status == PutStatus::AlreadyStored => 200,
            _ => 201,
        };
        Ok((status, render::json(&r)))
    });
    let pump = uploads::pump(body, tx, &mut held, declared.is_none());
    let (pumped, put) = tokio::join!(pump, put);
    let (status, v) = match (put, pumped) {
        (Ok(answer), _) => answer,
        // The body's failure (or the cap) is why the put failed.
        (Err(_), Err(fail)) => return Err(fail),
        (Err(fail), Ok(())) => return Err(fail),
    };
    drop(held);
    formatted(status, v, fq.format)
}

/// The query of the memory tool's route.
#[derive(Debug, Default, Deserialize, schemars::JsonSchema)]
pub(super) struct ToolQuery {
    /// Let the tool write the owner's skills.
    skills_writable: Option<bool>,
    /// The agent a person's key acts for (an agent's key names itself).
    #[serde(rename = "agentId", alias = "agent_id")]
    agent_id: Option<String>,
}

/// Claude's memory tool: the body is the tool-use input (`command` and its
/// fields), plus `agentId` with a person's key; the answer is the tool
/// result, 200 `{text, is_error}` whether the tool did the command or
/// refused it.
pub(super) async fn memory_tool(
    State(app): State<App>,
    headers: HeaderMap,
    Args(q): Args<ToolQuery>,
    body: Bytes,
) -> Result<Response, Fail> {
    let fail = |message| Fail::Transport(Transport::InvalidRequest { message });
    let mut input: serde_json::Value = serde_json::from_slice(&body)
        .map_err(|e| fail(format!("the body of memory/tool is not JSON: {e}")))?;
    let mut agent = q.agent_id;
    if let Some(o) = input.as_object_mut() {
        for k in ["agentId", "agent_id"] {
            match o.remove(k) {
                None | Some(serde_json::Value::Null) => {}
                Some(serde_json::Value::String(s)) => agent = Some(s),
                Some(_) => return Err(fail(format!("{k} must be a string (the agent's id)"))),
            }
        }
    }
    let skills_writable = q.skills_writable.unwrap_or(false);
    let (status, v) = app
        .call(headers, agent, move |store, who| {
            let r = api::execute(
                store,
                who,
                Request::MemoryTool {
                    input,
                    skills_writable,
                },
            )?;
            // An edit kept for a person's review answers 202.
            let waits = matches!(&*r, Answer::MemoryTool(a) if a.pending_id.is_some());
            Ok((if waits { 202 } else { 200 }, render::json(&r)))
        })
        .await?;
    super::answer::ok(status, v)
}
