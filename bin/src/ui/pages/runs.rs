//! `GET /ui/agents/{agent}/runs`: the agent's runs, newest first, 50 a
//! page (`?page=`); and `GET /ui/agents/{agent}/runs/{run}`: which
//! memories went into a run and which it wrote: the snapshot it began
//! with (its hash and text), the recall blocks it was given, the facts
//! whose metadata names it (`run=`, live and archived) and its day lines.
//! All through `api::execute` (`ListRuns`, `GetRun`, `List`), every text
//! shown as text.

use std::sync::Arc;

use askama::Template;
use axum::extract::{Path, RawQuery, State};
use axum::http::HeaderMap;
use axum::response::Response;
use memdir::api::types::{FactKind, FactRow, MAX_LIST_LIMIT, RunRecord, RunView};
use memdir::api::{Request, Response as Answer};

use super::{Chrome, logged_in, when};
use crate::ui::{Shown, Ui, blocking, encode, error_page, field, fields, html};

/// Runs a page.
pub const PAGE_RUNS: usize = 50;

/// The runs page.
#[derive(Template)]
#[template(path = "runs.html")]
pub struct RunsPage {
    /// The frame.
    pub chrome: Chrome,
    /// The agent.
    pub agent: String,
    /// The agent's path segment, encoded.
    pub seg: String,
    /// This page's runs.
    pub runs: Vec<RunRow>,
    /// Runs in all.
    pub total: usize,
    /// This page (from 1).
    pub page: usize,
    /// Pages in all.
    pub pages: usize,
}

/// One run of the list.
#[derive(Debug, Clone)]
pub struct RunRow {
    /// The run id.
    pub id: String,
    /// The link to its page.
    pub href: String,
    /// When it began.
    pub started: String,
    /// When it finished, or `open`.
    pub finished: String,
    /// Its task key, or `-`.
    pub task: String,
    /// The workflow its results go to.
    pub workflow: String,
}

fn run_row(seg: &str, r: &RunRecord) -> RunRow {
    RunRow {
        href: format!("/ui/agents/{seg}/runs/{}", encode(&r.run_id)),
        started: when(&r.started_at),
        finished: r
            .finished_at
            .as_ref()
            .map_or_else(|| "open".to_owned(), when),
        task: r.task.clone().unwrap_or_else(|| "-".to_owned()),
        workflow: r.workflow().to_owned(),
        id: r.run_id.clone(),
    }
}

/// The page numbered `page` (from 1, clamped) of `total` rows, and the
/// number of pages.
pub fn page_of(page: usize, total: usize) -> (usize, usize) {
    let pages = total.div_ceil(PAGE_RUNS).max(1);
    (page.clamp(1, pages), pages)
}

/// `GET /ui/agents/{agent}/runs`.
pub async fn list(
    State(ui): State<Arc<Ui>>,
    Path(agent): Path<String>,
    headers: HeaderMap,
    RawQuery(q): RawQuery,
) -> Response {
    let l = match logged_in(&ui, &headers, false).await {
        Ok(l) => l,
        Err(r) => return r,
    };
    let asked = field(&fields(q.unwrap_or_default().as_bytes()), "page")
        .and_then(|p| p.parse::<usize>().ok())
        .unwrap_or(1);
    let u = ui.clone();
    let who = l.who(&agent);
    let got = blocking(move || {
        let store = u.open().map_err(|e| Shown::of(&e))?;
        match crate::ui::ask(&store, &who, Request::ListRuns { open: false }) {
            Ok(Answer::Runs(runs)) => Ok(runs),
            Ok(_) => Ok(Vec::new()),
            Err(e) => Err(Shown::of(&e)),
        }
    })
    .await;
    let runs = match got {
        Ok(r) => r,
        Err(e) => return error_page(e, Some(l.session.person)),
    };
    let seg = encode(&agent);
    let total = runs.len();
    let (page, pages) = page_of(asked, total);
    let rows = runs
        .iter()
        .skip((page - 1) * PAGE_RUNS)
        .take(PAGE_RUNS)
        .map(|r| run_row(&seg, r))
        .collect();
    html(
        200,
        &RunsPage {
            chrome: Chrome::of(format!("{agent}: runs — memdir"), &l.session),
            seg,
            agent,
            runs: rows,
            total,
            page,
            pages,
        },
    )
}

/// One run's page.
#[derive(Template)]
#[template(path = "run.html")]
pub struct RunPage {
    /// The frame.
    pub chrome: Chrome,
    /// The agent.
    pub agent: String,
    /// The agent's path segment, encoded.
    pub seg: String,
    /// The run, as its list shows it (`None`: a run only its day lines or
    /// results know).
    pub row: Option<RunRow>,
    /// The run id.
    pub run_id: String,
    /// The skills it declared.
    pub skills: Vec<String>,
    /// The SHA-256 of the snapshot it began with.
    pub sha256: String,
    /// That snapshot's text (or the placeholder that stands for it).
    pub snapshot: Option<String>,
    /// The recalls it was given: (when, query, block, cut).
    pub recalls: Vec<(String, String, String, bool)>,
    /// Recalls past the record's bound, not kept.
    pub recalls_left_out: u32,
    /// The facts it wrote (their metadata names it).
    pub wrote: Vec<Wrote>,
    /// Its day lines: (date, time, text).
    pub journal: Vec<(String, String, String)>,
    /// Its results' steps: (task, type, bytes).
    pub steps: Vec<(String, String, u64)>,
    /// The link to its workflow's results.
    pub results_href: String,
}

/// A fact a run wrote.
#[derive(Debug, Clone)]
pub struct Wrote {
    /// Its id.
    pub id: String,
    /// Its store, or `archive`.
    pub scope: String,
    /// `active` or `archived`.
    pub status: String,
    /// Its text.
    pub text: String,
}

/// The facts among `rows` whose metadata names `run_id`.
pub fn written_by(rows: &[FactRow], run_id: &str) -> Vec<Wrote> {
    rows.iter()
        .filter(|r| r.run.as_deref() == Some(run_id))
        .map(|r| Wrote {
            id: r.id.clone(),
            scope: r.scope.name().to_owned(),
            status: r.status.name().to_owned(),
            text: r.text.clone(),
        })
        .collect()
}

/// `GET /ui/agents/{agent}/runs/{run}`.
pub async fn show(
    State(ui): State<Arc<Ui>>,
    Path((agent, run)): Path<(String, String)>,
    headers: HeaderMap,
) -> Response {
    let l = match logged_in(&ui, &headers, false).await {
        Ok(l) => l,
        Err(r) => return r,
    };
    let u = ui.clone();
    let who = l.who(&agent);
    let got = blocking(move || {
        let store = u.open().map_err(|e| Shown::of(&e))?;
        let view = match crate::ui::ask(&store, &who, Request::GetRun { run_id: run }) {
            Ok(Answer::Run(v)) => v,
            Ok(_) => {
                return Err(Shown::transport(
                    memdir::api::types::ErrorCode::InternalError,
                    "no run in the answer",
                ));
            }
            Err(e) => return Err(Shown::of(&e)),
        };
        // The facts of both stores and the archive (the newest 500).
        let rows = match crate::ui::ask(
            &store,
            &who,
            Request::List {
                kind: Some(FactKind::Fact),
                status: None,
                all: true,
                limit: Some(MAX_LIST_LIMIT),
            },
        ) {
            Ok(Answer::Rows { rows, .. }) => rows,
            Ok(_) => Vec::new(),
            Err(e) => return Err(Shown::of(&e)),
        };
        Ok((view, rows))
    })
    .await;
    let (view, rows) = match got {
        Ok(g) => g,
        Err(e) => return error_page(e, Some(l.session.person)),
    };
    let seg = encode(&agent);
    html(200, &run_page(&l, agent, seg, view, &rows))
}

fn run_page(
    l: &super::LoggedIn,
    agent: String,
    seg: String,
    v: RunView,
    rows: &[FactRow],
) -> RunPage {
    let workflow = v
        .record
        .as_ref()
        .map_or(v.run_id.as_str(), RunRecord::workflow)
        .to_owned();
    RunPage {
        chrome: Chrome::of(format!("{agent}: run {} — memdir", v.run_id), &l.session),
        row: v.record.as_ref().map(|r| run_row(&seg, r)),
        skills: v
            .record
            .as_ref()
            .map(|r| r.skills.clone())
            .unwrap_or_default(),
        sha256: v
            .record
            .as_ref()
            .map(|r| r.snapshot_sha256.clone())
            .unwrap_or_default(),
        snapshot: v.snapshot,
        recalls: v
            .recalls
            .into_iter()
            .map(|r| {
                (
                    when(&r.at),
                    r.query.unwrap_or_default(),
                    r.block,
                    r.truncated,
                )
            })
            .collect(),
        recalls_left_out: v.recalls_left_out,
        wrote: written_by(rows, &v.run_id),
        journal: v
            .journal
            .into_iter()
            .map(|h| {
                (
                    h.date.to_string(),
                    h.time.unwrap_or_else(|| "--:--".to_owned()),
                    h.text,
                )
            })
            .collect(),
        steps: v
            .steps
            .into_iter()
            .map(|s| (s.task_id, s.content_type, s.bytes))
            .collect(),
        results_href: format!("/ui/agents/{seg}/results?workflow={}", encode(&workflow)),
        run_id: v.run_id,
        seg,
        agent,
    }
}

#[cfg(test)]
mod tests {
    use super::page_of;

    #[test]
    fn pages_are_clamped() {
        assert_eq!(page_of(1, 0), (1, 1));
        assert_eq!(page_of(0, 120), (1, 3));
        assert_eq!(page_of(9, 120), (3, 3));
        assert_eq!(page_of(2, 50), (1, 1));
    }
}
