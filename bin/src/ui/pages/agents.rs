//! `GET /ui/`: every agent of the root, 50 a page (`?page=`), sortable
//! (`?sort=`), each with its fact counts, its stores' usage (a `<meter>`),
//! its last run, today's day log, its review routine and `check`'s
//! findings — one `AgentSummaries` request, which the library answers
//! (and caches).

use std::sync::Arc;

use askama::Template;
use axum::extract::{RawQuery, State};
use axum::http::HeaderMap;
use axum::response::Response;

use memdir::api::types::Caller;
use memdir::api::types::{AgentSummary, SummarySort};
use memdir::api::{Request, Response as Answer, Who};

use super::{Chrome, logged_in, when};
use crate::ui::notices::Said;
use crate::ui::{Shown, Ui, ask, blocking, encode, error_page, field, fields, html};

/// Rows a page.
pub const PAGE_ROWS: usize = 50;

/// The agents page.
#[derive(Template)]
#[template(path = "agents.html")]
pub struct AgentsPage {
    /// The frame.
    pub chrome: Chrome,
    /// This page's rows.
    pub rows: Vec<Row>,
    /// Agents in the root.
    pub total: usize,
    /// This page (from 1).
    pub page: usize,
    /// Pages in all.
    pub pages: usize,
    /// The sort's query word.
    pub sort: &'static str,
    /// The sortable columns.
    pub columns: Vec<Column>,
    /// Why this session's last form (a logout) did nothing.
    pub error: Option<Shown>,
}

/// A sortable column's heading.
#[derive(Debug, Clone)]
pub struct Column {
    /// Its sort's query word.
    pub word: &'static str,
    /// Its heading.
    pub head: &'static str,
    /// The page is sorted by it.
    pub current: bool,
}

/// One row as the page shows it.
#[derive(Debug, Clone)]
pub struct Row {
    /// The agent's summary.
    pub a: AgentSummary,
    /// The link to its page.
    pub href: String,
    /// The last run, shown.
    pub last_run: String,
    /// The next review, shown.
    pub review: String,
}

fn row(a: AgentSummary) -> Row {
    let review = if !a.routine {
        "no routine".to_owned()
    } else if a.paused {
        "paused".to_owned()
    } else {
        a.next_due
            .as_ref()
            .map_or_else(|| "-".to_owned(), |t| format!("next {}", when(t)))
    };
    Row {
        href: format!("/ui/agents/{}", encode(&a.id)),
        last_run: a.last_run.as_ref().map_or_else(|| "never".to_owned(), when),
        review,
        a,
    }
}

/// `GET /ui/`.
pub async fn show(
    State(ui): State<Arc<Ui>>,
    headers: HeaderMap,
    RawQuery(q): RawQuery,
) -> Response {
    let l = match logged_in(&ui, &headers, false).await {
        Ok(l) => l,
        Err(r) => return r,
    };
    let (_, error) = Said::words(l.said(&ui, q.as_deref()));
    let q = fields(q.unwrap_or_default().as_bytes());
    let sort = field(&q, "sort")
        .and_then(SummarySort::parse)
        .unwrap_or_default();
    let asked = field(&q, "page")
        .and_then(|p| p.parse::<usize>().ok())
        .unwrap_or(1)
        .max(1);
    let u = ui.clone();
    let who = Who {
        caller: Caller::Person(l.session.person.clone()),
        named: None,
        raw: false,
    };
    let got = blocking(move || {
        let store = u.open().map_err(|e| Shown::of(&e))?;
        let request = Request::AgentSummaries {
            sort,
            page: Some(asked),
            limit: Some(PAGE_ROWS),
        };
        match ask(&store, &who, request).map_err(|e| Shown::of(&e))? {
            Answer::AgentSummaries(s) => Ok((s.rows, s.total, s.page, s.pages)),
            _ => Err(Shown::transport(
                memdir::api::types::ErrorCode::InternalError,
                "the summaries were not answered",
            )),
        }
    })
    .await;
    let (rows, total, page, pages) = match got {
        Ok(g) => g,
        Err(e) => return error_page(e, Some(l.session.person)),
    };
    html(
        error.as_ref().map_or(200, |e| e.status),
        &AgentsPage {
            chrome: Chrome::of("Agents — memdir", &l.session),
            rows: rows.into_iter().map(row).collect(),
            total,
            page,
            pages,
            sort: sort.word(),
            columns: [
                ("id", "Agent"),
                ("live", "Live"),
                ("expired", "Expired"),
                ("archived", "Archived"),
                ("usage", "Usage"),
                ("run", "Last run"),
                ("day", "Today's day log"),
                ("findings", "Findings"),
            ]
            .into_iter()
            .map(|(word, head)| Column {
                word,
                head,
                current: word == sort.word(),
            })
            .collect(),
            error,
        },
    )
}
