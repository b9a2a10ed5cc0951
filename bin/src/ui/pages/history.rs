//! `GET /ui/agents/{agent}/history/{id}`: one entry's history from git
//! (the `Request` of `memdir log --id`: one git call a view, at most
//! [`HISTORY_COMMITS`] commits), each commit with what it did to the
//! entry. Without a git work tree the page says so, with the error's hint.

use std::sync::Arc;

use askama::Template;
use axum::extract::{Path, State};
use axum::http::HeaderMap;
use axum::response::Response;
use memdir::api::{Request, Response as Answer};

use super::{Chrome, logged_in};
use crate::ui::{Shown, Ui, blocking, encode, html};

/// The most commits a history page shows.
pub const HISTORY_COMMITS: usize = 50;

/// The history page.
#[derive(Template)]
#[template(path = "history.html")]
pub struct HistoryPage {
    /// The frame.
    pub chrome: Chrome,
    /// The agent.
    pub agent: String,
    /// The agent's path segment, encoded.
    pub seg: String,
    /// The entry's id.
    pub id: String,
    /// The commits, newest first.
    pub commits: Vec<Commit>,
    /// Why there is no history (no git work tree, a bad id).
    pub error: Option<Shown>,
}

/// One commit that changed the entry.
#[derive(Debug, Clone)]
pub struct Commit {
    /// Its id, short.
    pub commit: String,
    /// Its author.
    pub author: String,
    /// When.
    pub date: String,
    /// Its message's first line.
    pub message: String,
    /// What it did to the entry: (change, file, text).
    pub changes: Vec<(String, String, String)>,
}

/// `GET /ui/agents/{agent}/history/{id}`.
pub async fn show(
    State(ui): State<Arc<Ui>>,
    Path((agent, id)): Path<(String, String)>,
    headers: HeaderMap,
) -> Response {
    let l = match logged_in(&ui, &headers, false).await {
        Ok(l) => l,
        Err(r) => return r,
    };
    let u = ui.clone();
    let who = l.who(&agent);
    let entry = id.clone();
    let got = blocking(move || {
        let store = u.open().map_err(|e| Shown::of(&e))?;
        let request = Request::Log {
            id: Some(entry),
            since: None,
            limit: Some(HISTORY_COMMITS),
        };
        match crate::ui::ask(&store, &who, request) {
            Ok(Answer::Log(commits)) => Ok(commits),
            Ok(_) => Ok(Vec::new()),
            Err(e) => Err(Shown::of(&e)),
        }
    })
    .await;
    let (commits, error) = match got {
        Ok(c) => (c, None),
        Err(e) => (Vec::new(), Some(e)),
    };
    let commits = commits
        .into_iter()
        .map(|c| Commit {
            commit: c.commit.chars().take(12).collect(),
            author: c.author,
            date: c.date,
            message: c.message,
            changes: c
                .changes
                .into_iter()
                .filter(|ch| ch.id == id)
                .map(|ch| (ch.change.to_string(), ch.file.to_owned(), ch.text))
                .collect(),
        })
        .collect();
    html(
        error.as_ref().map_or(200, |e| e.status),
        &HistoryPage {
            chrome: Chrome::of(format!("{agent}: history of {id} — memdir"), &l.session),
            seg: encode(&agent),
            agent,
            id,
            commits,
            error,
        },
    )
}
