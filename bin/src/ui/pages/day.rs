//! `GET /ui/agents/{agent}/day`: the agent's day log (episodes.md), newest
//! day first and each day's newest line first, the lines that mark a fact
//! for the review to lift (`fact: …`, as `memdir::api::types::marks_fact` reads
//! them) shown as such.

use std::sync::Arc;

use askama::Template;
use axum::extract::{Path, State};
use axum::http::HeaderMap;
use axum::response::Response;
use memdir::api::types::{FactKind, MAX_LIST_LIMIT};
use memdir::api::{Request, Response as Answer};

use super::{Chrome, logged_in};
use crate::ui::{Shown, Ui, blocking, encode, error_page, html};

/// One day of the log.
#[derive(Debug, Clone)]
pub struct Day {
    /// Its date.
    pub date: String,
    /// Its lines, newest first: (marked to be lifted, the line).
    pub lines: Vec<(bool, String)>,
}

/// The day log page.
#[derive(Template)]
#[template(path = "day.html")]
pub struct DayPage {
    /// The frame.
    pub chrome: Chrome,
    /// The agent.
    pub agent: String,
    /// The agent's path segment, encoded.
    pub seg: String,
    /// The days, newest first.
    pub days: Vec<Day>,
    /// Days in the log.
    pub total: usize,
}

/// `GET /ui/agents/{agent}/day`.
pub async fn show(
    State(ui): State<Arc<Ui>>,
    Path(agent): Path<String>,
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
        let r = crate::ui::ask(
            &store,
            &who,
            Request::List {
                kind: Some(FactKind::Day),
                status: None,
                all: true,
                limit: Some(MAX_LIST_LIMIT),
            },
        )
        .map_err(|e| Shown::of(&e))?;
        Ok(match r {
            Answer::Rows { rows, total, .. } => (rows, total),
            _ => (Vec::new(), 0),
        })
    })
    .await;
    let (rows, total) = match got {
        Ok(g) => g,
        Err(e) => return error_page(e, Some(l.session.person)),
    };
    let mut rows = rows;
    rows.sort_by_key(|r| std::cmp::Reverse(r.date));
    let days = rows
        .into_iter()
        .map(|r| Day {
            date: r.date.map_or_else(|| "-".to_owned(), |d| d.to_string()),
            lines: r
                .text
                .lines()
                .rev()
                .filter(|l| !l.trim().is_empty())
                .map(|l| (memdir::api::types::marks_fact(l), l.to_owned()))
                .collect(),
        })
        .collect();
    html(
        200,
        &DayPage {
            chrome: Chrome::of(format!("{agent}: day log — memdir"), &l.session),
            seg: encode(&agent),
            agent,
            days,
            total,
        },
    )
}
