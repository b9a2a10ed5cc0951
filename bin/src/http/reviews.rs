//! The daily review over HTTP, in the background: `POST /api/v1/reviews`
//! starts an owner's review (its reviewer command may take minutes) and
//! answers `202` with a job to poll at once, `GET /api/v1/reviews/jobs/{job}`
//! answers how it stands. No request waits for a review, and no review
//! runs inside a request's deadline: the job waits for one of its owner's
//! turns ([`super::limits`]) and runs on the blocking pool.
//!
//! Jobs are kept in memory only, the last [`MAX_JOBS`]; a job is answered
//! to the caller that started it only.

use std::collections::VecDeque;
use std::hash::{BuildHasher, Hasher};
use std::sync::{Mutex, PoisonError};

use axum::body::Bytes;
use axum::extract::{Path, RawQuery, State};
use axum::http::HeaderMap;
use axum::response::Response;
use memdir::api::errors::{Transport, envelope};
use memdir::api::types::{Caller, Error};
use memdir::api::{self, Request, render, wire};
use serde::Deserialize;
use serde_json::Value;

use super::answer::{checked_answer, ok, parse, query};
use super::{App, Fail, blocking, limits};

/// The most jobs kept; past it the oldest finished one is forgotten.
pub const MAX_JOBS: usize = 256;

/// The background reviews: the last [`MAX_JOBS`] jobs.
#[derive(Debug, Default)]
pub struct Jobs {
    jobs: Mutex<VecDeque<Job>>,
}

#[derive(Debug)]
struct Job {
    id: String,
    /// Who started it: the one caller it is answered to.
    caller: Caller,
    state: JobState,
}

/// How a job stands.
#[derive(Debug, Clone)]
enum JobState {
    Running,
    /// The review's answer.
    Done(Value),
    /// The error's body.
    Failed(Value),
}

impl Jobs {
    /// Adds a running job of `caller`: its id; `busy` when every job kept
    /// is still running.
    fn start(&self, caller: Caller) -> Result<String, Transport> {
        let mut jobs = self.jobs.lock().unwrap_or_else(PoisonError::into_inner);
        if jobs.len() >= MAX_JOBS {
            match jobs
                .iter()
                .position(|j| !matches!(j.state, JobState::Running))
            {
                Some(i) => {
                    jobs.remove(i);
                }
                None => {
                    return Err(Transport::Busy {
                        what: format!("{MAX_JOBS} background reviews are running"),
                        retry_after_secs: limits::RETRY_AFTER_SECS,
                    });
                }
            }
        }
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_usize(jobs.len());
        let id = format!("job-{:016x}", h.finish());
        jobs.push_back(Job {
            id: id.clone(),
            caller,
            state: JobState::Running,
        });
        Ok(id)
    }

    fn finish(&self, id: &str, state: JobState) {
        let mut jobs = self.jobs.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(j) = jobs.iter_mut().find(|j| j.id == id) {
            j.state = state;
        }
    }

    /// How the job `id` of `caller` stands.
    fn get(&self, id: &str, caller: &Caller) -> Option<JobState> {
        let jobs = self.jobs.lock().unwrap_or_else(PoisonError::into_inner);
        jobs.iter()
            .find(|j| j.id == id && &j.caller == caller)
            .map(|j| j.state.clone())
    }
}

/// A review to start.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub(super) struct StartBody {
    /// The agent a person's key acts for (an agent's key names itself).
    #[serde(rename = "agentId", alias = "agent_id")]
    agent_id: Option<String>,
    /// Plan and show the plan; change nothing.
    #[serde(default, rename = "dryRun", alias = "dry_run")]
    dry_run: bool,
}

/// `POST /api/v1/reviews`: starts the owner's review in the background;
/// `202 {job, status: "running"}`.
pub(super) async fn start(
    State(app): State<App>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, Fail> {
    let b: StartBody = parse("review", &body)?;
    let (store, who) = app.caller(headers, b.agent_id, None).await?;
    // Who may review which owner is answered now, not by the job.
    let (store, who) = blocking(move || {
        who.owner(&store)?;
        Ok((store, who))
    })
    .await?;
    let share = app
        .limits
        .enter(limits::owner_of(&who.caller, who.named.as_deref()))?;
    let id = app.jobs.start(who.caller.clone())?;
    let (jobs, job) = (app.jobs.clone(), id.clone());
    let dry_run = b.dry_run;
    tokio::spawn(async move {
        let share = share.turn().await;
        let done = blocking(move || {
            let _share = share;
            let request = Request::Review {
                dry_run,
                due: false,
                reviewer: None,
            };
            Ok(api::execute(&store, &who, request)?)
        })
        .await;
        let state = match done {
            Ok(answer) => JobState::Done(render::json(&answer).into_value()),
            Err(e) => JobState::Failed(envelope(&e.body())["error"].clone()),
        };
        jobs.finish(&job, state);
    });
    ok(
        202,
        checked_answer(&wire::ReviewJob {
            job: &id,
            state: wire::JobState::Running,
        }),
    )
}

/// `GET /api/v1/reviews/jobs/{job}`: `{job, status}`, `running`, `done`
/// with the review's answer (`review`) or `failed` with the error
/// (`error`); a job this caller did not start is `review_not_found`.
pub(super) async fn job(
    State(app): State<App>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Result<Response, Fail> {
    let (_, who) = app.caller(headers, None, None).await?;
    let state = app
        .jobs
        .get(&id, &who.caller)
        .ok_or_else(|| Fail::Memdir(Error::ReviewNotFound { id: id.clone() }))?;
    // The review's answer was guarded when the job finished; the whole
    // passes the scanner again on its way out.
    let state = match &state {
        JobState::Running => wire::JobState::Running,
        JobState::Done(review) => wire::JobState::Done { review },
        JobState::Failed(error) => wire::JobState::Failed { error },
    };
    ok(200, checked_answer(&wire::ReviewJob { job: &id, state }))
}

/// The query of the reviews' history.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub(super) struct HistoryQuery {
    /// The agent a person's key acts for (an agent's key names itself).
    #[serde(rename = "agentId", alias = "agent_id")]
    agent_id: Option<String>,
    /// At most this many reviews (default 20, at most 100).
    limit: Option<usize>,
}

/// `GET /api/v1/reviews/history?agentId=&limit=`: every review the owner's
/// journal records, newest first, each with what the files still record of
/// its changes and a diff of each (`ReviewHistory`).
pub(super) async fn history(
    State(app): State<App>,
    headers: HeaderMap,
    RawQuery(raw): RawQuery,
) -> Result<Response, Fail> {
    let q: HistoryQuery = query("review history", raw.as_deref())?;
    let limit = q.limit;
    let v = app
        .call_as(headers, q.agent_id, None, move |store, who| {
            let r = api::execute(store, who, Request::ReviewHistory { limit })?;
            Ok(render::json(&r))
        })
        .await?;
    ok(200, v)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn jobs_are_kept_to_the_last_ones_and_answered_to_their_caller() {
        let jobs = Jobs::default();
        let a = Caller::Agent("agt_a".into());
        let first = jobs.start(a.clone()).unwrap();
        assert!(jobs.get(&first, &Caller::Agent("agt_b".into())).is_none());
        assert!(matches!(jobs.get(&first, &a), Some(JobState::Running)));
        jobs.finish(&first, JobState::Done(json!({})));
        for _ in 1..MAX_JOBS {
            jobs.start(a.clone()).unwrap();
        }
        // Full: the finished one makes room; then every kept job runs.
        jobs.start(a.clone()).unwrap();
        assert!(jobs.get(&first, &a).is_none());
        assert!(matches!(jobs.start(a), Err(Transport::Busy { .. })));
    }
}
