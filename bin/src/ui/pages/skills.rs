//! The agent's learned skills: `GET /ui/agents/{agent}/skills` (the list,
//! `SkillList`), `GET /ui/agents/{agent}/skills/{name}` (one skill's
//! SKILL.md as text, `SkillShow`), and `POST /ui/agents/{agent}/skills`
//! (`action=forget`, `name`, `confirm`, `csrf`: `SkillForget`, only with
//! its confirmation checked). Each through `api::execute` with the
//! logged-in person as the caller; an error shown in the page.

use std::sync::Arc;

use askama::Template;
use axum::extract::{Path, RawQuery, Request as HttpRequest, State};
use axum::http::HeaderMap;
use axum::response::Response;
use memdir::api::types::ErrorCode;
use memdir::api::{Request, Response as Answer, Who};

use super::{Chrome, LoggedIn, logged_in, posted_form};
use crate::ui::notices::Said;
use crate::ui::{Shown, Ui, blocking, encode, error_page, field, html};

/// The skills page.
#[derive(Template)]
#[template(path = "skills.html")]
pub struct SkillsPage {
    /// The frame.
    pub chrome: Chrome,
    /// The agent.
    pub agent: String,
    /// The agent's path segment, encoded.
    pub seg: String,
    /// The skills: (name, its path segment, description).
    pub skills: Vec<(String, String, String)>,
    /// What an action did.
    pub notice: Option<String>,
    /// An action's error.
    pub error: Option<Shown>,
}

/// One skill's page.
#[derive(Template)]
#[template(path = "skill.html")]
pub struct SkillPage {
    /// The frame.
    pub chrome: Chrome,
    /// The agent.
    pub agent: String,
    /// The agent's path segment, encoded.
    pub seg: String,
    /// Its name.
    pub name: String,
    /// Its description.
    pub description: String,
    /// Its file, relative to the agent's folder.
    pub path: String,
    /// Its body (after the front matter), as text.
    pub body: String,
}

async fn skill_list(ui: &Arc<Ui>, who: Who) -> Result<Vec<memdir::api::types::SkillRow>, Shown> {
    let u = ui.clone();
    blocking(move || {
        let store = u.open().map_err(|e| Shown::of(&e))?;
        match crate::ui::ask(&store, &who, Request::SkillList) {
            Ok(Answer::Skills(rows)) => Ok(rows),
            Ok(_) => Ok(Vec::new()),
            Err(e) => Err(Shown::of(&e)),
        }
    })
    .await
}

/// The skills page of `agent`, with what an action did or its error.
async fn render(
    ui: &Arc<Ui>,
    l: &LoggedIn,
    agent: &str,
    notice: Option<String>,
    error: Option<Shown>,
) -> Response {
    let rows = match skill_list(ui, l.who(agent)).await {
        Ok(r) => r,
        Err(e) => return error_page(e, Some(l.session.person.clone())),
    };
    html(
        error.as_ref().map_or(200, |e| e.status),
        &SkillsPage {
            chrome: Chrome::of(format!("{agent}: skills — memdir"), &l.session),
            seg: encode(agent),
            agent: agent.to_owned(),
            skills: rows
                .into_iter()
                .map(|r| {
                    let seg = encode(&r.name);
                    (r.name, seg, r.description)
                })
                .collect(),
            notice,
            error,
        },
    )
}

/// `GET /ui/agents/{agent}/skills`: the list, with what this session's
/// last forget did when the query names its notice (`?notice=`).
pub async fn list(
    State(ui): State<Arc<Ui>>,
    Path(agent): Path<String>,
    headers: HeaderMap,
    RawQuery(q): RawQuery,
) -> Response {
    match logged_in(&ui, &headers, false).await {
        Ok(l) => {
            let (notice, error) = Said::words(l.said(&ui, q.as_deref()));
            render(&ui, &l, &agent, notice, error).await
        }
        Err(r) => r,
    }
}

/// `GET /ui/agents/{agent}/skills/{name}`.
pub async fn show(
    State(ui): State<Arc<Ui>>,
    Path((agent, name)): Path<(String, String)>,
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
        match crate::ui::ask(&store, &who, Request::SkillShow { name }) {
            Ok(Answer::SkillShown(s)) => Ok(s),
            Ok(_) => Err(Shown::transport(
                ErrorCode::InternalError,
                "no skill in the answer",
            )),
            Err(e) => Err(Shown::of(&e)),
        }
    })
    .await;
    let s = match got {
        Ok(s) => s,
        Err(e) => return error_page(e, Some(l.session.person)),
    };
    html(
        200,
        &SkillPage {
            chrome: Chrome::of(format!("{agent}: skill {} — memdir", s.name), &l.session),
            seg: encode(&agent),
            agent,
            name: s.name,
            description: s.description,
            path: s.path,
            body: s.body,
        },
    )
}

/// `POST /ui/agents/{agent}/skills`: `action=forget` with `name`, and
/// `confirm` (the box checked), `csrf`; `303` to the list, which says
/// what was done or why not.
pub async fn post(
    State(ui): State<Arc<Ui>>,
    Path(agent): Path<String>,
    req: HttpRequest,
) -> Response {
    let back = format!("/ui/agents/{}/skills", encode(&agent));
    let (l, f) = match posted_form(&ui, req, &back).await {
        Ok(posted) => posted,
        Err(r) => return r,
    };
    let said = match forget(&ui, &l, &agent, &f).await {
        Ok(w) => Said::done(w),
        Err(e) => Said::Refused(e),
    };
    l.redirect(&ui, &back, said)
}

/// Forgets the skill the form names, when its box is checked.
async fn forget(
    ui: &Arc<Ui>,
    l: &LoggedIn,
    agent: &str,
    f: &[(String, String)],
) -> Result<String, Shown> {
    let refused = |message: String| Shown::transport(ErrorCode::InvalidRequest, message);
    let name = field(f, "name").unwrap_or("").trim().to_owned();
    match field(f, "action").unwrap_or("") {
        "forget" if field(f, "confirm") != Some("yes") => {
            return Err(refused(format!(
                "not forgotten: check the box to confirm forgetting the skill {name:?}"
            )));
        }
        "forget" => {}
        other => return Err(refused(format!("no such action: {other:?}"))),
    }
    let u = ui.clone();
    let who = l.who(agent);
    blocking(move || {
        let store = u.open().map_err(|e| Shown::of(&e))?;
        match crate::ui::ask(&store, &who, Request::SkillForget { name }) {
            Ok(Answer::Skill(o)) => Ok(format!("{} the skill {} ({})", o.message, o.name, o.path)),
            Ok(_) => Ok("done".to_owned()),
            Err(e) => Err(Shown::of(&e)),
        }
    })
    .await
}
