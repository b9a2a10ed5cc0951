//! `GET /ui/`: every agent of the root, 50 a page (`?page=`), sortable
//! (`?sort=`), each with its fact counts, its stores' usage (a `<meter>`),
//! its last run, today's day log, its review routine and `check`'s
//! findings — from the cache of `ui::stats`.

use std::sync::Arc;

use askama::Template;
use axum::extract::{RawQuery, State};
use axum::http::HeaderMap;
use axum::response::Response;

use super::{Chrome, logged_in, when};
use crate::ui::notices::Said;
use crate::ui::stats::{AgentRow, Counted, Sort};
use crate::ui::{Shown, Ui, blocking, encode, error_page, field, fields, html};

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
    /// The agent's stats.
    pub a: AgentRow,
    /// The link to its page.
    pub href: String,
    /// The last run, shown.
    pub last_run: String,
    /// The next review, shown.
    pub review: String,
}

fn row(a: AgentRow) -> Row {
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
    let sort = Sort::parse(field(&q, "sort"));
    let asked = field(&q, "page")
        .and_then(|p| p.parse::<usize>().ok())
        .unwrap_or(1)
        .max(1);
    let u = ui.clone();
    let person = l.session.person.clone();
    let got = blocking(move || {
        let store = u.open().map_err(|e| Shown::of(&e))?;
        let mut owners = store.owners().map_err(|e| Shown::of(&e))?;
        owners.sort();
        let total = owners.len();
        let pages = total.div_ceil(PAGE_ROWS).max(1);
        let page = asked.min(pages);
        let mut counted = Counted::default();
        let at = (page - 1) * PAGE_ROWS;
        // Sorted by a column, every agent's value of it, and this page's
        // rows whole.
        let rows = u
            .stats
            .page(
                &store,
                &person,
                &owners,
                (sort, at, PAGE_ROWS),
                &mut counted,
            )
            .map_err(|e| Shown::of(&e))?;
        Ok((rows, total, page, pages))
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
