//! `GET /ui/pending`, `GET /ui/agents/{agent}/pending` and `POST
//! /ui/pending`: the writes that wait for a person's review (`writes:
//! review`), for every agent or for one. Each write is shown as a diff
//! against the agent's store as it is now (the lines it would remove, the
//! lines it would add), with who asked for it and from which run. The
//! actions are the `Request`s `memdir pending` sends: approve (its one text
//! edited or not: the library checks the budget, the vetoes and the guard
//! again under the owner's lock), reject with a reason. Every text is shown
//! with its invisible and lookalike characters made visible
//! ([`crate::ui::visible`]).

use std::sync::Arc;

use askama::Template;
use axum::extract::{Path, RawQuery, Request as HttpRequest, State};
use axum::http::HeaderMap;
use axum::response::Response;
use memdir::api::types::{
    Caller, EntryView, ErrorCode, OpKind, PendingOp, PendingWrite, Store, SummarySort,
};
use memdir::api::{Request, Response as Answer, Who};

use super::{Chrome, LoggedIn, logged_in, posted_form, when};
use crate::ui::notices::Said;
use crate::ui::{Shown, Ui, blocking, encode, error_page, field, html, visible};

/// The page of every agent's writes: where its forms lead back to.
const PAGE: &str = "/ui/pending";

/// The most agents the page of every agent reads.
const MAX_AGENTS: usize = 500;

/// One line of a write's diff.
#[derive(Debug, Clone)]
pub struct Line {
    /// `add` or `del` (the line's class), `ctx` for a note.
    pub class: &'static str,
    /// The sign shown in front (`+`, `-`, or a space).
    pub sign: &'static str,
    /// The text, hidden characters made visible.
    pub shown: String,
}

/// One waiting write as the page shows it.
#[derive(Debug, Clone)]
pub struct Row {
    /// The agent whose write it is.
    pub agent: String,
    /// The agent's path segment, encoded.
    pub seg: String,
    /// Its id.
    pub id: String,
    /// Which write it is (`write`, `batch`, `memory_tool`, `import`, …).
    pub source: String,
    /// Who asked for it.
    pub by: String,
    /// The run it was asked in, and its task.
    pub run: String,
    /// When it was asked for.
    pub at: String,
    /// The diff against the store as it is now.
    pub diff: Vec<Line>,
    /// Its one text as it waits (the approve form's text), when it has
    /// exactly one text to write; else no edit is offered.
    pub text: Option<String>,
    /// Whether a shown text marks a hidden or lookalike character.
    pub marked: bool,
}

/// The pending page.
#[derive(Template)]
#[template(path = "pending.html")]
pub struct PendingPage {
    /// The frame.
    pub chrome: Chrome,
    /// The one agent shown, or none for every agent.
    pub agent: Option<String>,
    /// The agent's path segment, encoded (empty for every agent).
    pub seg: String,
    /// The writes that wait, oldest first per agent.
    pub rows: Vec<Row>,
    /// What the last action did.
    pub notice: Option<String>,
    /// What went wrong.
    pub error: Option<Shown>,
}

/// The person as the caller of a request on `agent`'s memory.
fn who(person: &str, agent: &str) -> Who {
    Who {
        caller: Caller::Person(person.to_owned()),
        named: Some(agent.to_owned()),
        raw: false,
    }
}

/// The entry of `entries` a replace or a removal names: an id, or the one
/// entry holding the substring.
fn named<'e>(entries: &'e [EntryView], target: &str) -> Option<&'e EntryView> {
    if let Some(e) = entries.iter().find(|e| e.id == target) {
        return Some(e);
    }
    let mut hits = entries.iter().filter(|e| e.text.contains(target));
    match (hits.next(), hits.next()) {
        (Some(e), None) => Some(e),
        _ => None,
    }
}

/// A line of the diff, hidden characters made visible (`marked` set when
/// one is).
fn line(class: &'static str, sign: &'static str, text: &str, marked: &mut bool) -> Line {
    let (shown, m) = visible(text);
    *marked |= m;
    Line { class, sign, shown }
}

/// The diff of `ops` against the store's `entries`.
fn diff(ops: &[PendingOp], entries: &[EntryView], marked: &mut bool) -> Vec<Line> {
    let mut out = Vec::new();
    for op in ops {
        let old = op.target.as_deref().map(|t| (t, named(entries, t)));
        match op.op {
            OpKind::Add => {
                if let Some(s) = &op.supersedes {
                    match entries.iter().find(|e| e.id == *s) {
                        Some(e) => out.push(line("del", "-", &e.text, marked)),
                        None => out.push(line("ctx", " ", &format!("(supersedes {s})"), marked)),
                    }
                }
                out.push(line("add", "+", &op.text, marked));
            }
            OpKind::Replace | OpKind::Remove => {
                match old {
                    Some((_, Some(e))) => out.push(line("del", "-", &e.text, marked)),
                    Some((t, None)) => out.push(line(
                        "ctx",
                        " ",
                        &format!("(the entry matching {t:?}: not found now)"),
                        marked,
                    )),
                    None => {}
                }
                if op.op == OpKind::Replace {
                    out.push(line("add", "+", &op.text, marked));
                }
            }
        }
    }
    out
}

/// One write as the page shows it.
fn row(agent: &str, w: &PendingWrite, entries: &[EntryView]) -> Row {
    let mut marked = false;
    let diff = diff(&w.operations, entries, &mut marked);
    let mut writers = w.operations.iter().filter(|o| o.op != OpKind::Remove);
    let text = match (writers.next(), writers.next()) {
        (Some(o), None) => Some(o.text.clone()),
        _ => None,
    };
    let run = match (&w.run, &w.task) {
        (Some(r), Some(t)) => format!("{r} ({})", visible(t).0),
        (Some(r), None) => r.clone(),
        _ => "-".to_owned(),
    };
    Row {
        agent: agent.to_owned(),
        seg: encode(agent),
        id: w.pending_id.clone(),
        source: w.source.as_str().to_owned(),
        by: w.by.clone().unwrap_or_else(|| "-".to_owned()),
        run,
        at: w.created.as_ref().map_or_else(|| "-".to_owned(), when),
        diff,
        text,
        marked,
    }
}

/// The rows of `agent`'s waiting writes.
fn rows_of(store: &Store, person: &str, agent: &str) -> Result<Vec<Row>, Shown> {
    let w = who(person, agent);
    let list = match crate::ui::ask(store, &w, Request::PendingList { all: false })
        .map_err(|e| Shown::of(&e))?
    {
        Answer::Pending(list) => list,
        _ => return Ok(Vec::new()),
    };
    if list.pending.is_empty() {
        return Ok(Vec::new());
    }
    let entries: Vec<EntryView> = match crate::ui::ask(store, &w, Request::Show { scope: None })
        .map_err(|e| Shown::of(&e))?
    {
        Answer::Show { stores, .. } => stores.into_iter().flat_map(|s| s.entries).collect(),
        _ => Vec::new(),
    };
    Ok(list
        .pending
        .iter()
        .map(|p| row(agent, p, &entries))
        .collect())
}

/// Every agent of the root (at most [`MAX_AGENTS`]).
fn agents(store: &Store, person: &str) -> Result<Vec<String>, Shown> {
    let w = Who {
        caller: Caller::Person(person.to_owned()),
        named: None,
        raw: false,
    };
    let r = crate::ui::ask(
        store,
        &w,
        Request::AgentSummaries {
            sort: SummarySort::default(),
            page: Some(1),
            limit: Some(MAX_AGENTS),
        },
    )
    .map_err(|e| Shown::of(&e))?;
    Ok(match r {
        Answer::AgentSummaries(s) => s.rows.into_iter().map(|a| a.id).collect(),
        _ => Vec::new(),
    })
}

/// The page, for `agent` or for every agent, with what was done or went
/// wrong.
async fn render(
    ui: &Arc<Ui>,
    l: &LoggedIn,
    agent: Option<String>,
    notice: Option<String>,
    error: Option<Shown>,
) -> Response {
    let u = ui.clone();
    let person = l.session.person.clone();
    let one = agent.clone();
    let got = blocking(move || {
        let store = u.open().map_err(|e| Shown::of(&e))?;
        match one {
            Some(a) => rows_of(&store, &person, &a),
            None => {
                let mut rows = Vec::new();
                for a in agents(&store, &person)? {
                    rows.extend(rows_of(&store, &person, &a)?);
                }
                Ok(rows)
            }
        }
    })
    .await;
    let rows = match got {
        Ok(rows) => rows,
        Err(e) => return error_page(e, Some(l.session.person.clone())),
    };
    let status = error.as_ref().map_or(200, |e| e.status);
    let title = match &agent {
        Some(a) => format!("{a}: waiting writes — memdir"),
        None => "Waiting writes — memdir".to_owned(),
    };
    html(
        status,
        &PendingPage {
            chrome: Chrome::of(title, &l.session),
            seg: agent.as_deref().map(encode).unwrap_or_default(),
            agent,
            rows,
            notice,
            error,
        },
    )
}

/// `GET /ui/pending`: every agent's waiting writes.
pub async fn show_all(
    State(ui): State<Arc<Ui>>,
    headers: HeaderMap,
    RawQuery(q): RawQuery,
) -> Response {
    match logged_in(&ui, &headers, false).await {
        Ok(l) => {
            let (notice, error) = Said::words(l.said(&ui, q.as_deref()));
            render(&ui, &l, None, notice, error).await
        }
        Err(r) => r,
    }
}

/// `GET /ui/agents/{agent}/pending`: one agent's waiting writes.
pub async fn show(
    State(ui): State<Arc<Ui>>,
    Path(agent): Path<String>,
    headers: HeaderMap,
    RawQuery(q): RawQuery,
) -> Response {
    match logged_in(&ui, &headers, false).await {
        Ok(l) => {
            let (notice, error) = Said::words(l.said(&ui, q.as_deref()));
            render(&ui, &l, Some(agent), notice, error).await
        }
        Err(r) => r,
    }
}

/// The value of a form field, or `None` when empty.
fn given<'f>(f: &'f [(String, String)], name: &str) -> Option<&'f str> {
    field(f, name).map(str::trim).filter(|v| !v.is_empty())
}

/// The request a form makes, and the agent it names.
fn request(f: &[(String, String)]) -> Result<(String, Request), Shown> {
    let missing = |name: &str| {
        Shown::transport(
            ErrorCode::InvalidRequest,
            format!("the form lacks its field {name:?}"),
        )
    };
    let agent = given(f, "agent")
        .ok_or_else(|| missing("agent"))?
        .to_owned();
    let id = given(f, "id").ok_or_else(|| missing("id"))?.to_owned();
    let request = match given(f, "action").ok_or_else(|| missing("action"))? {
        "approve" => {
            // The text unchanged (or left empty) approves the write as it
            // waits.
            let seen = field(f, "seen_text").unwrap_or("");
            let text = field(f, "text")
                .filter(|t| !t.trim().is_empty() && *t != seen)
                .map(str::to_owned);
            Request::PendingApprove { id, text }
        }
        "reject" => Request::PendingReject {
            id,
            reason: field(f, "reason").unwrap_or("").to_owned(),
        },
        other => {
            return Err(Shown::transport(
                ErrorCode::InvalidRequest,
                format!("no such action: {other:?}"),
            ));
        }
    };
    Ok((agent, request))
}

/// `POST /ui/pending`: approve (`text` edited or not) or reject (with a
/// `reason`) a waiting write (`action`, `agent`, `id`, `seen_text`, `text`,
/// `reason`, `back`, `csrf`); `303` to the page the form is on (`back` is
/// `agent`: the agent's page; else every agent's), which says what was done
/// or why not.
pub async fn post(State(ui): State<Arc<Ui>>, req: HttpRequest) -> Response {
    let (l, f) = match posted_form(&ui, req, PAGE).await {
        Ok(posted) => posted,
        Err(r) => return r,
    };
    let back = match (field(&f, "back"), given(&f, "agent")) {
        (Some("agent"), Some(a)) => format!("/ui/agents/{}/pending", encode(a)),
        _ => PAGE.to_owned(),
    };
    let u = ui.clone();
    let person = l.session.person.clone();
    let done = blocking(move || {
        let (agent, request) = request(&f)?;
        let store = u.open().map_err(|e| Shown::of(&e))?;
        let (_, words) = crate::ui::ask_said(&store, &who(&person, &agent), request)
            .map_err(|e| Shown::of(&e))?;
        Ok(words.trim().to_owned())
    })
    .await;
    let said = match done {
        Ok(words) => Said::done(words),
        Err(e) => Said::Refused(e),
    };
    l.redirect(&ui, &back, said)
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
    fn an_unedited_approval_sends_no_text_and_a_reject_its_reason() {
        let (agent, r) = request(&f(&[
            ("action", "approve"),
            ("agent", "agt_a"),
            ("id", "pnd_000000000001"),
            ("seen_text", "a b"),
            ("text", "a b"),
        ]))
        .unwrap();
        assert_eq!(agent, "agt_a");
        assert!(matches!(r, Request::PendingApprove { text: None, .. }));
        let (_, r) = request(&f(&[
            ("action", "approve"),
            ("agent", "agt_a"),
            ("id", "pnd_000000000001"),
            ("seen_text", "a b"),
            ("text", "a c"),
        ]))
        .unwrap();
        assert!(matches!(r, Request::PendingApprove { text: Some(t), .. } if t == "a c"));
        let (_, r) = request(&f(&[
            ("action", "reject"),
            ("agent", "agt_a"),
            ("id", "pnd_000000000001"),
            ("reason", "no"),
        ]))
        .unwrap();
        assert!(matches!(r, Request::PendingReject { reason, .. } if reason == "no"));
        assert!(request(&f(&[("action", "approve"), ("id", "pnd_1")])).is_err());
        assert!(request(&f(&[("action", "drop"), ("agent", "a"), ("id", "p")])).is_err());
    }
}
