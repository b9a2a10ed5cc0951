//! `GET /ui/agents/{agent}/snapshot`: exactly what `run begin` would
//! freeze now (the `Request` of `memdir snapshot`: placeholders and the
//! over-budget cut included), in a `<pre>`; with `?q=`, the recall block a
//! run given that task would get, as a preview (counted as no recall).

use std::sync::Arc;

use askama::Template;
use axum::extract::{Path, RawQuery, State};
use axum::http::HeaderMap;
use axum::response::Response;
use memdir::api::{Request, Response as Answer};

use super::{Chrome, logged_in};
use crate::ui::{Shown, Ui, blocking, encode, error_page, field, fields, html};

/// The longest query taken (the recall's own limit is 4,000 characters).
const MAX_QUERY_CHARS: usize = 4_000;

/// The snapshot page.
#[derive(Template)]
#[template(path = "snapshot.html")]
pub struct SnapshotPage {
    /// The frame.
    pub chrome: Chrome,
    /// The agent.
    pub agent: String,
    /// The agent's path segment, encoded.
    pub seg: String,
    /// The snapshot's text.
    pub text: String,
    /// Its SHA-256.
    pub sha256: String,
    /// Its size in bytes.
    pub bytes: usize,
    /// Entries shown as placeholders.
    pub blocked: usize,
    /// Stores cut at their budget: (store, entries left out).
    pub over_budget: Vec<(String, usize)>,
    /// The query typed.
    pub q: String,
    /// The recall block for it.
    pub recall: Option<String>,
    /// How many facts it picked.
    pub picked: usize,
    /// A recall's error.
    pub error: Option<Shown>,
}

/// `GET /ui/agents/{agent}/snapshot`.
pub async fn show(
    State(ui): State<Arc<Ui>>,
    Path(agent): Path<String>,
    headers: HeaderMap,
    RawQuery(q): RawQuery,
) -> Response {
    let l = match logged_in(&ui, &headers, false).await {
        Ok(l) => l,
        Err(r) => return r,
    };
    let q: String = field(&fields(q.unwrap_or_default().as_bytes()), "q")
        .unwrap_or("")
        .chars()
        .take(MAX_QUERY_CHARS)
        .collect();
    let u = ui.clone();
    let who = l.who(&agent);
    let query = q.clone();
    let got = blocking(move || {
        let store = u.open().map_err(|e| Shown::of(&e))?;
        let snap =
            match crate::ui::ask(&store, &who, Request::Snapshot).map_err(|e| Shown::of(&e))? {
                Answer::Snapshot(s) => s,
                _ => {
                    return Err(Shown::transport(
                        memdir::api::types::ErrorCode::InternalError,
                        "no snapshot",
                    ));
                }
            };
        let recall = if query.trim().is_empty() {
            Ok(None)
        } else {
            crate::ui::ask(
                &store,
                &who,
                Request::Recall {
                    query: Some(query),
                    session: None,
                    on_demand: true,
                    preview: true,
                },
            )
            .map(|r| match r {
                Answer::Recall(r) => Some((r.block, r.facts.len())),
                _ => None,
            })
            .map_err(|e| Shown::of(&e))
        };
        Ok((snap, recall))
    })
    .await;
    let (snap, recall) = match got {
        Ok(g) => g,
        Err(e) => return error_page(e, Some(l.session.person)),
    };
    let (recall, picked, error) = match recall {
        Ok(Some((block, n))) => (Some(block), n, None),
        Ok(None) => (None, 0, None),
        Err(e) => (None, 0, Some(e)),
    };
    html(
        error.as_ref().map_or(200, |e| e.status),
        &SnapshotPage {
            chrome: Chrome::of(format!("{agent}: next run's snapshot — memdir"), &l.session),
            seg: encode(&agent),
            agent,
            blocked: snap.blocked.len(),
            over_budget: snap
                .over_budget
                .iter()
                .map(|o| (o.scope.name().to_owned(), o.omitted))
                .collect(),
            text: snap.text,
            sha256: snap.sha256,
            bytes: snap.bytes,
            q,
            recall,
            picked,
            error,
        },
    )
}
