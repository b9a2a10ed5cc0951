//! `GET /ui/learnings` and `POST /ui/learnings`: the root's learnings for
//! a person to review. Pending proposals first (who proposed each, its
//! text), then the approved learnings, then those decided otherwise. The
//! actions are the `Request`s `memdir learnings` sends: approve (with the
//! text edited or not; the form carries the proposal's text as rendered,
//! `seen_text`, so a proposal changed since is refused `409
//! learning_changed`), reject with a reason, retire. Every text is shown
//! with its invisible and lookalike characters made visible
//! ([`crate::ui::visible`]).

use std::sync::Arc;

use askama::Template;
use axum::extract::{RawQuery, Request as HttpRequest, State};
use axum::http::HeaderMap;
use axum::response::Response;
use memdir::api::types::{Caller, ErrorCode, Learning, LearningStatus};
use memdir::api::{Request, Response as Answer, Who};

use super::{Chrome, LoggedIn, logged_in, posted_form, when};
use crate::ui::notices::Said;
use crate::ui::{Shown, Ui, blocking, error_page, field, html, visible};

/// The page's path: where its forms lead back to.
const PAGE: &str = "/ui/learnings";

/// One learning as the page shows it.
#[derive(Debug, Clone)]
pub struct Row {
    /// Its id.
    pub id: String,
    /// Its text, hidden characters made visible.
    pub shown: String,
    /// Its text as stored (the approve form's `seen_text`, escaped).
    pub raw: String,
    /// Whether `shown` marks a hidden or lookalike character.
    pub marked: bool,
    /// Who proposed it.
    pub by: String,
    /// When it was proposed (or approved).
    pub at: String,
    /// Where it stands.
    pub status: &'static str,
    /// Who decided, when, and why (empty when undecided).
    pub decided: String,
}

impl Row {
    fn of(l: &Learning) -> Row {
        let (shown, marked) = visible(&l.text);
        let mut decided = String::new();
        if let Some(by) = &l.decided_by {
            decided.push_str(by);
        }
        if let Some(t) = &l.decided_at {
            decided.push_str(&format!(" at {}", when(t)));
        }
        if let Some(r) = &l.reason {
            decided.push_str(&format!(": {}", visible(r).0));
        }
        Row {
            id: l.id.clone(),
            shown,
            raw: l.text.clone(),
            marked,
            by: l.proposed_by.clone().unwrap_or_else(|| "-".to_owned()),
            at: l.created.as_ref().map_or_else(|| "-".to_owned(), when),
            status: l.status.name(),
            decided: decided.trim().to_owned(),
        }
    }
}

/// The learnings page.
#[derive(Template)]
#[template(path = "learnings.html")]
pub struct LearningsPage {
    /// The frame.
    pub chrome: Chrome,
    /// The proposals waiting for a person.
    pub pending: Vec<Row>,
    /// The approved learnings.
    pub approved: Vec<Row>,
    /// The proposals rejected and the learnings retired.
    pub closed: Vec<Row>,
    /// LEARNINGS.md's usage against its budget.
    pub usage: String,
    /// What the last action did.
    pub notice: Option<String>,
    /// What went wrong.
    pub error: Option<Shown>,
}

/// The person as the caller of a request on the root's learnings.
fn who(l: &LoggedIn) -> Who {
    Who {
        caller: Caller::Person(l.session.person.clone()),
        named: None,
        raw: false,
    }
}

/// The value of a form field, or `None` when empty.
fn given<'f>(f: &'f [(String, String)], name: &str) -> Option<&'f str> {
    field(f, name).map(str::trim).filter(|v| !v.is_empty())
}

/// The request a form makes.
fn request(f: &[(String, String)]) -> Result<Request, Shown> {
    let missing = |name: &str| {
        Shown::transport(
            ErrorCode::InvalidRequest,
            format!("the form lacks its field {name:?}"),
        )
    };
    let id = given(f, "id").ok_or_else(|| missing("id"))?.to_owned();
    Ok(match given(f, "action").ok_or_else(|| missing("action"))? {
        "approve" => {
            let seen = field(f, "seen_text").ok_or_else(|| missing("seen_text"))?;
            // The text unchanged (or left empty) approves the proposal as
            // it stands.
            let text = field(f, "text")
                .filter(|t| !t.trim().is_empty() && *t != seen)
                .map(str::to_owned);
            Request::Approve {
                id,
                text,
                seen_text: Some(seen.to_owned()),
            }
        }
        "reject" => Request::Reject {
            id,
            reason: field(f, "reason").unwrap_or("").to_owned(),
        },
        "retire" => Request::Retire {
            id,
            reason: given(f, "reason").map(str::to_owned),
        },
        other => {
            return Err(Shown::transport(
                ErrorCode::InvalidRequest,
                format!("no such action: {other:?}"),
            ));
        }
    })
}

/// The page as the learnings are now, with what was done or went wrong.
async fn render(
    ui: &Arc<Ui>,
    l: &LoggedIn,
    notice: Option<String>,
    error: Option<Shown>,
) -> Response {
    let u = ui.clone();
    let w = who(l);
    let got = blocking(move || {
        let store = u.open().map_err(|e| Shown::of(&e))?;
        match crate::ui::ask(&store, &w, Request::Learnings).map_err(|e| Shown::of(&e))? {
            Answer::Learnings(list) => Ok(list),
            _ => Err(Shown::transport(ErrorCode::InternalError, "no learnings")),
        }
    })
    .await;
    let list = match got {
        Ok(list) => list,
        Err(e) => return error_page(e, Some(l.session.person.clone())),
    };
    let pending = list
        .proposals
        .iter()
        .filter(|p| p.status == LearningStatus::Pending)
        .map(Row::of)
        .collect();
    let closed = list
        .proposals
        .iter()
        .filter(|p| p.status != LearningStatus::Pending)
        .map(Row::of)
        .collect();
    let status = error.as_ref().map_or(200, |e| e.status);
    html(
        status,
        &LearningsPage {
            chrome: Chrome::of("Learnings — memdir", &l.session),
            pending,
            approved: list.approved.iter().map(Row::of).collect(),
            closed,
            usage: list.usage.text,
            notice,
            error,
        },
    )
}

/// `GET /ui/learnings`: the page, with what this session's last action
/// did when the query names its notice (`?notice=`).
pub async fn show(
    State(ui): State<Arc<Ui>>,
    headers: HeaderMap,
    RawQuery(q): RawQuery,
) -> Response {
    match logged_in(&ui, &headers, false).await {
        Ok(l) => {
            let (notice, error) = Said::words(l.said(&ui, q.as_deref()));
            render(&ui, &l, notice, error).await
        }
        Err(r) => r,
    }
}

/// `POST /ui/learnings`: approve, reject or retire (`action`, `id`,
/// `seen_text`, `text`, `reason`, `csrf`); `303` to the page, which says
/// what was done or why not.
pub async fn post(State(ui): State<Arc<Ui>>, req: HttpRequest) -> Response {
    let (l, f) = match posted_form(&ui, req, PAGE).await {
        Ok(posted) => posted,
        Err(r) => return r,
    };
    let u = ui.clone();
    let w = who(&l);
    let done = blocking(move || {
        let request = request(&f)?;
        let store = u.open().map_err(|e| Shown::of(&e))?;
        let (_, words) = crate::ui::ask_said(&store, &w, request).map_err(|e| Shown::of(&e))?;
        Ok(words.trim().to_owned())
    })
    .await;
    let said = match done {
        Ok(words) => Said::done(words),
        Err(e) => Said::Refused(e),
    };
    l.redirect(&ui, PAGE, said)
}

#[cfg(test)]
mod tests {
    use super::request;
    use memdir::api::Request;

    fn f(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    #[test]
    fn an_unedited_approval_sends_no_text_and_always_the_seen_text() {
        let r = request(&f(&[
            ("action", "approve"),
            ("id", "mem_1"),
            ("seen_text", "a b"),
            ("text", "a b"),
        ]))
        .unwrap();
        assert!(matches!(r, Request::Approve { text: None, seen_text: Some(s), .. } if s == "a b"));
        let r = request(&f(&[
            ("action", "approve"),
            ("id", "mem_1"),
            ("seen_text", "a b"),
            ("text", "a c"),
        ]))
        .unwrap();
        assert!(matches!(r, Request::Approve { text: Some(t), .. } if t == "a c"));
        assert!(request(&f(&[("action", "approve"), ("id", "mem_1")])).is_err());
        assert!(request(&f(&[("action", "drop"), ("id", "mem_1")])).is_err());
    }
}
