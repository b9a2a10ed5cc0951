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
pub mod pending;
pub mod results;
pub mod runs;
pub mod skills;
pub mod snapshot;

use std::sync::Arc;

use axum::http::HeaderMap;
use axum::response::Response;
use memdir::api::Who;
use memdir::api::types::{Caller, ErrorCode};

use super::notices::{self, Said, redirect_anonymous};
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
/// in with a one-time link. Without one, the answer to give instead: to
/// the login page, a `POST`'s with the notice of why (its form is not
/// used).
pub async fn logged_in(
    ui: &Arc<Ui>,
    headers: &HeaderMap,
    post: bool,
) -> Result<LoggedIn, Response> {
    let refuse = |e: Option<Shown>| {
        if post {
            let e = e.unwrap_or_else(|| {
                Shown::transport(
                    ErrorCode::Unauthorized,
                    "not logged in (or the session ended): log in again; nothing was done",
                )
            });
            redirect_anonymous(ui, "/ui/login", Said::Refused(e))
        } else {
            match e {
                Some(e) => error_page(e, None),
                None => see_other("/ui/login"),
            }
        }
    };
    let Some(id) = cookie(headers, ui.cookie_name()).map(str::to_owned) else {
        return Err(refuse(None));
    };
    let Some(session) = ui.sessions.touch(&id) else {
        return Err(refuse(None));
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
            Err(refuse(None))
        }
        Err(e) => Err(refuse(Some(e))),
    }
}

impl LoggedIn {
    /// What the form this session posted said, when the query names its
    /// notice (`?notice=ID`): taken, so the page shows it once.
    pub fn said(&self, ui: &Ui, query: Option<&str>) -> Option<Said> {
        let id = notices::named(query)?;
        ui.notices.take(&self.id, &id)
    }

    /// The answer to this session's form: `303` to `to` (a page of ours)
    /// with what it said.
    pub fn redirect(&self, ui: &Ui, to: &str, said: Said) -> Response {
        notices::redirect(ui, &self.id, to, said)
    }
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

/// A `POST`'s form and its logged-in session: what every form handler of
/// a session starts with. The form must carry the session's CSRF token
/// (`csrf`) and be at most [`login::FORM_BYTES`]; else the answer is a
/// `303` to `back` (the page the form is on, a path of ours) with the
/// refusal (`403 csrf_refused`, `413 request_too_large`), nothing of the
/// form used. Without a session, a `303` to the login page.
pub async fn posted_form(
    ui: &Arc<Ui>,
    req: axum::extract::Request,
    back: &str,
) -> Result<(LoggedIn, Vec<(String, String)>), Response> {
    let headers = req.headers().clone();
    let l = logged_in(ui, &headers, true).await?;
    let body = match form_body(req.into_body()).await {
        Ok(b) => b,
        Err(e) => return Err(l.redirect(ui, back, Said::Refused(e))),
    };
    let f = super::fields(&body);
    let token = super::field(&f, "csrf").unwrap_or("");
    if !super::session::same(token, &l.session.csrf) {
        let e = Shown::transport(
            ErrorCode::CsrfRefused,
            "refused: the form did not carry this session's token (reload the page and try again); nothing was done",
        );
        return Err(l.redirect(ui, back, Said::Refused(e)));
    }
    Ok((l, f))
}

/// A time as the pages show it: UTC, to the minute.
pub fn when(t: &chrono::DateTime<chrono::Utc>) -> String {
    t.format("%Y-%m-%d %H:%M UTC").to_string()
}
