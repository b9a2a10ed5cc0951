//! The dashboard's pages, one module each, and what they share: who is
//! logged in (the session, its key checked again now), the frame every
//! page is drawn in (title, person, the logout form), and the person's
//! `Who` for `api::execute`.

pub mod actions;
pub mod agent;
pub mod agents;
pub mod day;
pub mod decisions;
pub mod dreaming;
pub mod history;
pub mod learnings;
pub mod login;
pub mod login_link;
pub mod results;
pub mod runs;
pub mod skills;
pub mod snapshot;

use std::sync::Arc;

use axum::http::HeaderMap;
use axum::response::Response;
use memdir::api::Who;
use memdir::{Caller, ErrorCode};

use super::session::Session;
use super::{Shown, Ui, blocking, cookie, error_page, see_other};

/// What every page's frame shows: its title, who is logged in and the
/// token of the logout form.
#[derive(Debug, Clone, Default)]
pub struct Chrome {
    /// The page's title.
    pub title: String,
    /// The person logged in.
    pub person: Option<String>,
    /// The session's CSRF token.
    pub csrf: String,
}

impl Chrome {
    /// The frame of a page of `session`.
    pub fn of(title: impl Into<String>, s: &Session) -> Chrome {
        Chrome {
            title: title.into(),
            person: Some(s.person.clone()),
            csrf: s.csrf.clone(),
        }
    }
}

/// A logged-in request: its session (and the session's id).
#[derive(Debug, Clone)]
pub struct LoggedIn {
    /// The session's id (the cookie's value).
    pub id: String,
    /// The session.
    pub session: Session,
}

impl LoggedIn {
    /// The person as the caller of a request on `agent`'s memory.
    pub fn who(&self, agent: &str) -> Who {
        Who {
            caller: Caller::Person(self.session.person.clone()),
            named: Some(agent.to_owned()),
            raw: false,
        }
    }
}

impl Ui {
    /// The session cookie's name: with `--behind-tls`, `__Host-` prefixed
    /// (the browser then holds it to `Secure`, `Path=/` and this host).
    pub fn cookie_name(&self) -> &'static str {
        if self.settings.behind_tls {
            "__Host-memdir_session"
        } else {
            "memdir_session"
        }
    }

    /// The `Set-Cookie` value of a session cookie holding `value` (empty
    /// and expired: the cookie removed).
    pub fn session_cookie(&self, value: &str) -> String {
        let gone = if value.is_empty() { "; Max-Age=0" } else { "" };
        if self.settings.behind_tls {
            format!(
                "{}={value}; HttpOnly; SameSite=Strict; Secure; Path=/{gone}",
                self.cookie_name()
            )
        } else {
            format!(
                "{}={value}; HttpOnly; SameSite=Strict; Path=/ui{gone}",
                self.cookie_name()
            )
        }
    }
}

/// The person logged in on this request: a live session whose key is
/// still a person's live key in the keys file (read now), or one logged
/// in with a one-time link. Without one, the
/// answer to give instead: to the login page (a `GET`), or `401` (a
/// `POST`, whose form would be lost).
pub async fn logged_in(
    ui: &Arc<Ui>,
    headers: &HeaderMap,
    post: bool,
) -> Result<LoggedIn, Response> {
    let refuse = || {
        if post {
            error_page(
                Shown::transport(
                    ErrorCode::Unauthorized,
                    "not logged in (or the session ended): log in again",
                ),
                None,
            )
        } else {
            see_other("/ui/login")
        }
    };
    let Some(id) = cookie(headers, ui.cookie_name()).map(str::to_owned) else {
        return Err(refuse());
    };
    let Some(session) = ui.sessions.touch(&id) else {
        return Err(refuse());
    };
    // Logged in with a one-time link: no key to check again (the link was
    // used up at the login; the session's own limits end it).
    let Some(key) = session.key.clone() else {
        return Ok(LoggedIn { id, session });
    };
    let u = ui.clone();
    let person = session.person.clone();
    let still = blocking(move || {
        let store = u.open().map_err(|e| Shown::of(&e))?;
        Ok(matches!(
            memdir::api::keys::verify(&store, &u.settings.keys, &key),
            Ok(Some(rec)) if rec.caller() == Caller::Person(person)
        ))
    })
    .await;
    match still {
        Ok(true) => Ok(LoggedIn { id, session }),
        Ok(false) => {
            if let Some(k) = &session.key {
                ui.sessions.end_key(k);
            }
            Err(refuse())
        }
        Err(e) => Err(error_page(e, None)),
    }
}

/// A `POST` of a logged-in session: its form must carry the session's
/// CSRF token (`csrf`), else `403 csrf_refused`.
pub async fn posted(
    ui: &Arc<Ui>,
    headers: &HeaderMap,
    fields: &[(String, String)],
) -> Result<LoggedIn, Response> {
    let l = logged_in(ui, headers, true).await?;
    let token = super::field(fields, "csrf").unwrap_or("");
    if !super::session::same(token, &l.session.csrf) {
        return Err(error_page(
            Shown::transport(
                ErrorCode::CsrfRefused,
                "refused: the form did not carry this session's token (reload the page and try again)",
            ),
            Some(l.session.person),
        ));
    }
    Ok(l)
}

/// A `POST`'s body, read up to [`login::FORM_BYTES`]: past it (or cut
/// off), `413 request_too_large` and nothing of the form is used.
pub async fn form_body(body: axum::body::Body) -> Result<axum::body::Bytes, Shown> {
    axum::body::to_bytes(body, login::FORM_BYTES)
        .await
        .map_err(|_| {
            Shown::transport(
                ErrorCode::RequestTooLarge,
                format!(
                    "the form is over the {}-byte limit of the dashboard's forms: nothing was done",
                    login::FORM_BYTES
                ),
            )
        })
}

/// A `POST`'s form (read up to [`login::FORM_BYTES`], else `413
/// request_too_large`) and its logged-in session, checked as [`posted`]
/// checks it: what every action handler starts with.
pub async fn posted_form(
    ui: &Arc<Ui>,
    req: axum::extract::Request,
) -> Result<(LoggedIn, Vec<(String, String)>), Response> {
    let headers = req.headers().clone();
    let body = form_body(req.into_body())
        .await
        .map_err(|e| error_page(e, None))?;
    let f = super::fields(&body);
    let l = posted(ui, &headers, &f).await?;
    Ok((l, f))
}

/// A time as the pages show it: UTC, to the minute.
pub fn when(t: &chrono::DateTime<chrono::Utc>) -> String {
    t.format("%Y-%m-%d %H:%M UTC").to_string()
}
