//! `GET/POST /ui/login` and `POST /ui/logout`. The login form carries a
//! token of its own (the same random value in a cookie and in the form,
//! since there is no session yet); a person's key logs in, an agent's is
//! refused (`403 person_only`), a wrong one is `401 unauthorized`, and an
//! address past 10 attempts a minute gets `429 too_many_attempts`. Over
//! plain HTTP only a loopback client may log in, unless the server was
//! told it sits behind TLS.

use std::net::SocketAddr;
use std::sync::Arc;

use askama::Template;
use axum::extract::{ConnectInfo, Request, State};
use axum::http::{HeaderValue, header};
use axum::response::Response;
use memdir::{Caller, ErrorCode};

use super::{Chrome, logged_in, posted};
use crate::ui::session::{ATTEMPT_WINDOW, same, token};
use crate::ui::{Shown, Ui, blocking, cookie, error_page, field, fields, html, see_other};

/// The largest form body read.
pub const FORM_BYTES: usize = 64 * 1024;

/// The login page.
#[derive(Template)]
#[template(path = "login.html")]
pub struct LoginPage {
    /// The frame.
    pub chrome: Chrome,
    /// Why the last attempt failed.
    pub error: Option<Shown>,
}

impl Ui {
    pub(super) fn login_cookie_name(&self) -> &'static str {
        if self.settings.behind_tls {
            "__Host-memdir_login"
        } else {
            "memdir_login"
        }
    }

    pub(super) fn login_cookie(&self, value: &str) -> String {
        let age = if value.is_empty() { 0 } else { 900 };
        if self.settings.behind_tls {
            format!(
                "{}={value}; HttpOnly; SameSite=Strict; Secure; Path=/; Max-Age={age}",
                self.login_cookie_name()
            )
        } else {
            format!(
                "{}={value}; HttpOnly; SameSite=Strict; Path=/ui/login; Max-Age={age}",
                self.login_cookie_name()
            )
        }
    }
}

/// The login form with a fresh token (its cookie set), and `error`.
fn form(ui: &Ui, error: Option<Shown>) -> Response {
    let Some(t) = token() else {
        return error_page(
            Shown::transport(ErrorCode::InternalError, "no random bytes from the OS"),
            None,
        );
    };
    let status = error.as_ref().map_or(200, |e| e.status);
    let mut r = html(
        status,
        &LoginPage {
            chrome: Chrome {
                title: "Log in — memdir".to_owned(),
                person: None,
                csrf: t.clone(),
            },
            error,
        },
    );
    if let Ok(v) = HeaderValue::from_str(&ui.login_cookie(&t)) {
        r.headers_mut().append(header::SET_COOKIE, v);
    }
    r
}

/// `GET /ui/login`: the form (or, logged in already, the agents).
pub async fn show(State(ui): State<Arc<Ui>>, req: Request) -> Response {
    if logged_in(&ui, req.headers(), false).await.is_ok() {
        return see_other("/ui/");
    }
    form(&ui, None)
}

/// The client's address (as the server accepted it).
fn peer(req: &Request) -> Option<SocketAddr> {
    req.extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .map(|c| c.0)
}

/// What every login `POST` (a key's, a link's) checks before its
/// credential is looked at: the attempt limiter (each `POST` counts), plain
/// HTTP from another machine, the size of the form and the login form's
/// token. The form's fields, or the answer to give instead: `again` draws
/// the page once more (a fresh token) with the refusal.
pub(super) async fn checked(
    ui: &Arc<Ui>,
    req: Request,
    again: &(dyn Fn(&Ui, Option<Shown>) -> Response + Sync),
) -> Result<Vec<(String, String)>, Response> {
    let Some(peer) = peer(&req) else {
        return Err(error_page(
            Shown::transport(ErrorCode::InternalError, "the client's address is unknown"),
            None,
        ));
    };
    if !ui.attempts.allow(peer.ip()) {
        let mut r = again(
            ui,
            Some(Shown::transport(
                ErrorCode::TooManyAttempts,
                "too many login attempts from this address: wait a minute",
            )),
        );
        r.headers_mut().insert(
            header::RETRY_AFTER,
            HeaderValue::from(ATTEMPT_WINDOW.as_secs()),
        );
        return Err(r);
    }
    if !peer.ip().is_loopback() && !ui.settings.behind_tls {
        return Err(again(
            ui,
            Some(Shown::transport(
                ErrorCode::InvalidRequest,
                "login over plain HTTP is for this machine only: put TLS in front and start `memdir serve --behind-tls`",
            )),
        ));
    }
    let expected = cookie(req.headers(), ui.login_cookie_name()).map(str::to_owned);
    let Ok(body) = axum::body::to_bytes(req.into_body(), FORM_BYTES).await else {
        return Err(again(
            ui,
            Some(Shown::transport(
                ErrorCode::RequestTooLarge,
                "the form is too large",
            )),
        ));
    };
    let f = fields(&body);
    let sent = field(&f, "csrf").unwrap_or("");
    if !expected.is_some_and(|e| !e.is_empty() && same(&e, sent)) {
        return Err(again(
            ui,
            Some(Shown::transport(
                ErrorCode::CsrfRefused,
                "refused: the login form's token is missing or old (the form was reloaded below: try again)",
            )),
        ));
    }
    Ok(f)
}

/// A session for `person` (logged in with `key`, or with a link): `303`
/// to the agents with its cookie, the login form's cookie removed.
pub(super) fn start_session(ui: &Ui, person: &str, key: Option<&str>, how: &str) -> Response {
    let Some((id, _)) = ui.sessions.create(person, key) else {
        return error_page(
            Shown::transport(ErrorCode::InternalError, "no session could be made"),
            None,
        );
    };
    tracing::info!("memdir serve: {person} logged in to the dashboard ({how})");
    let mut r = see_other("/ui/");
    for c in [ui.session_cookie(&id), ui.login_cookie("")] {
        if let Ok(v) = HeaderValue::from_str(&c) {
            r.headers_mut().append(header::SET_COOKIE, v);
        }
    }
    r
}

/// `POST /ui/login`: a person's key in, a session out.
pub async fn submit(State(ui): State<Arc<Ui>>, req: Request) -> Response {
    let f = match checked(&ui, req, &form).await {
        Ok(f) => f,
        Err(r) => return r,
    };
    let key = field(&f, "key").unwrap_or("").trim().to_owned();
    let u = ui.clone();
    let k = key.clone();
    let found = blocking(move || {
        let store = u.open().map_err(|e| Shown::of(&e))?;
        match memdir::api::keys::verify(&store, &u.settings.keys, &k) {
            Ok(r) => Ok(r.map(|r| r.caller())),
            Err(e) => {
                tracing::warn!(
                    "memdir serve: no key is accepted while the keys file is refused: {e}"
                );
                Ok(None)
            }
        }
    })
    .await;
    let person = match found {
        Ok(Some(Caller::Person(p))) => p,
        Ok(Some(Caller::Agent(_))) => {
            return form(
                &ui,
                Some(Shown::transport(
                    ErrorCode::PersonOnly,
                    "that is an agent's key: the dashboard is for persons (make one with `memdir --person ID key create`)",
                )),
            );
        }
        Ok(None) => {
            return form(
                &ui,
                Some(Shown::transport(
                    ErrorCode::Unauthorized,
                    "no such key (or it was revoked)",
                )),
            );
        }
        Err(e) => return form(&ui, Some(e)),
    };
    start_session(&ui, &person, Some(&key), "a key")
}

/// `POST /ui/logout`: the session ends here and now.
pub async fn logout(State(ui): State<Arc<Ui>>, req: Request) -> Response {
    let headers = req.headers().clone();
    let body = match super::form_body(req.into_body()).await {
        Ok(b) => b,
        Err(e) => return error_page(e, None),
    };
    let l = match posted(&ui, &headers, &fields(&body)).await {
        Ok(l) => l,
        Err(r) => return r,
    };
    ui.sessions.end(&l.id);
    let mut r = see_other("/ui/login");
    if let Ok(v) = HeaderValue::from_str(&ui.session_cookie("")) {
        r.headers_mut().append(header::SET_COOKIE, v);
    }
    r
}
