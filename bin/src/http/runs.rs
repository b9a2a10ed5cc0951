//! Runs over HTTP: begin one (its frozen snapshot; a client's session key
//! gives the open run of that session again) and finish it (its day-log
//! line), as `memdir run begin` and `run finish` do; a fact saved with the
//! run's id (`runId`) records the run.

use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::HeaderMap;
use axum::response::Response;
use memdir::api::{self, Request, Response as Answer, RunRef, render};
use serde::Deserialize;

use super::answer::{ok, parse};
use super::{App, Fail};

/// A run to begin.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub(super) struct BeginBody {
    /// The task key, such as `PIN-812`.
    task: Option<String>,
    /// The workflow whose results the run produces (default: the run id).
    workflow: Option<String>,
    /// The learned skills to inject into its snapshot.
    #[serde(default)]
    skills: Vec<String>,
    /// The client's session: while its run is open, beginning again
    /// answers with that run.
    session: Option<String>,
    /// The agent a person's key acts for (an agent's key names itself).
    #[serde(rename = "agentId", alias = "agent_id")]
    agent_id: Option<String>,
}

/// `POST /v1/runs`: 201 with the run and its frozen snapshot, or 200 with
/// the open run of the same session (`resumed`).
pub(super) async fn begin(
    State(app): State<App>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, Fail> {
    let b: BeginBody = parse("begin_run", &body)?;
    let (status, v) = app
        .call(headers, b.agent_id, move |store, who| {
            let r = api::execute(
                store,
                who,
                Request::BeginRun {
                    task: b.task,
                    skills: b.skills,
                    workflow: b.workflow,
                    session: b.session,
                },
            )?;
            let status = match &*r {
                Answer::RunBegun { resumed: true, .. } => 200,
                _ => 201,
            };
            Ok((status, render::json(&r)))
        })
        .await?;
    ok(status, v)
}

/// A run to finish.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub(super) struct FinishBody {
    /// The run's summary, its day-log line.
    text: Option<String>,
}

/// `POST /v1/runs/{runId}/finish`: 201 with the run's day-log line.
pub(super) async fn finish(
    State(app): State<App>,
    headers: HeaderMap,
    Path(run_id): Path<String>,
    body: Bytes,
) -> Result<Response, Fail> {
    let b: FinishBody = if body.is_empty() {
        FinishBody { text: None }
    } else {
        parse("finish_run", &body)?
    };
    let v = app
        .call(headers, None, move |store, who| {
            let r = api::execute(
                store,
                who,
                Request::FinishRun {
                    run: RunRef::Id(run_id),
                    text: b.text,
                },
            )?;
            Ok(render::json(&r))
        })
        .await?;
    ok(201, v)
}
