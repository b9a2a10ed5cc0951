//! `GET/POST /ui/login` and `POST /ui/logout`. The login form carries a
//! token of its own (the same random value in a cookie and in the form,
//! since there is no session yet); a person's key logs in, an agent's is
//! refused (`403 person_only`), a wrong one is `401 unauthorized`, and an
//! address past 10 attempts a minute gets `429 too_many_attempts`. Over
//! plain HTTP only a loopback client may log in, unless the server was
//! told it sits behind TLS. Every `POST` answers `303`: logged in, to the
//! agents; refused, to the login page, which says why (`ui::notices`).

use std::net::SocketAddr;
use std::sync::Arc;

use askama::Template;
use axum::extract::{ConnectInfo, Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::Response;
use memdir::api::types::{Caller, ErrorCode};

use super::{Chrome, logged_in, posted_form};
use crate::ui::notices::{self, Said, redirect_anonymous};
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
    /// The login form's cookie's name (`__Host-` prefixed behind TLS).
    pub fn login_cookie_name(&self) -> &'static str {
        if self.settings.behind_tls {
            "__Host-memdir_login"
        } else {
            "memdir_login"
        }
    }

    /// The `Set-Cookie` value of the login form's cookie holding `value`
    /// (empty: the cookie removed).
    pub fn login_cookie(&self, value: &str) -> String {
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

/// The login form with a fresh token (its cookie set), and `error` (with
/// its status; a `429`'s with `Retry-After`).
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
    retry_after(&mut r);
    r
}

/// A page refusing a login for too many attempts (`429`) says when to try
/// again.
pub(super) fn retry_after(r: &mut Response) {
    if r.status() == StatusCode::TOO_MANY_REQUESTS {
        r.headers_mut().insert(
            header::RETRY_AFTER,
            HeaderValue::from(ATTEMPT_WINDOW.as_secs()),
        );
    }
}

/// What a login page's form said, when the query names its notice
/// (`?notice=`) and the login form's cookie is the one it was kept for:
/// taken, so the page shows it once.
pub(super) fn said(ui: &Ui, headers: &HeaderMap, query: Option<&str>) -> Option<Shown> {
    let holder = cookie(headers, ui.login_cookie_name())?;
    let id = notices::named(query)?;
    match ui.notices.take(holder, &id)? {
        Said::Refused(e) => Some(e),
        Said::Done { .. } => None,
    }
}

/// `GET /ui/login`: the form, with why the last attempt was refused when
/// the query names it; logged in already (and nothing to say), the agents.
pub async fn show(State(ui): State<Arc<Ui>>, req: Request) -> Response {
    let error = said(&ui, req.headers(), req.uri().query());
    if error.is_none() && logged_in(&ui, req.headers(), false).await.is_ok() {
        return see_other("/ui/");
    }
    form(&ui, error)
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
/// token. The form's fields, or the answer to give instead: a `303` to
/// `back` (the login page the form is on), which shows the refusal.
pub(super) async fn checked(
    ui: &Arc<Ui>,
    req: Request,
    back: &str,
) -> Result<Vec<(String, String)>, Response> {
    let refuse = |code: ErrorCode, message: &str| {
        redirect_anonymous(ui, back, Said::Refused(Shown::transport(code, message)))
    };
    let Some(peer) = peer(&req) else {
        return Err(refuse(
            ErrorCode::InternalError,
            "the client's address is unknown",
        ));
    };
    if !ui.attempts.allow(peer.ip()) {
        return Err(refuse(
            ErrorCode::TooManyAttempts,
            "too many login attempts from this address: wait a minute",
        ));
    }
    if !peer.ip().is_loopback() && !ui.settings.behind_tls {
        return Err(refuse(
            ErrorCode::InvalidRequest,
            "login over plain HTTP is for this machine only: put TLS in front and start `memdir serve --behind-tls`",
        ));
    }
    let expected = cookie(req.headers(), ui.login_cookie_name()).map(str::to_owned);
    let Ok(body) = axum::body::to_bytes(req.into_body(), FORM_BYTES).await else {
        return Err(refuse(ErrorCode::RequestTooLarge, "the form is too large"));
    };
    let f = fields(&body);
    let sent = field(&f, "csrf").unwrap_or("");
    if !expected.is_some_and(|e| !e.is_empty() && same(&e, sent)) {
        return Err(refuse(
            ErrorCode::CsrfRefused,
            "refused: the login form's token is missing or old (the form is drawn again: try again)",
        ));
    }
    Ok(f)
}

/// A session for `person` (logged in with `key`, or with a link): `303`
/// to the agents with its cookie, the login form's cookie removed.
pub(super) fn start_session(ui: &Ui, person: &str, key: Option<&str>, how: &str) -> Response {
    let Some((id, _)) = ui.sessions.create(person, key) else {
        let e = Shown::transport(ErrorCode::InternalError, "no session could be made");
        return redirect_anonymous(ui, "/ui/login", Said::Refused(e));
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

/// `POST /ui/login`: a person's key in, a session out (`303` to the
/// agents); refused, `303` to the login page, which says why.
pub async fn submit(State(ui): State<Arc<Ui>>, req: Request) -> Response {
    let f = match checked(&ui, req, "/ui/login").await {
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
    let refused = match found {
        Ok(Some(Caller::Person(person))) => {
            return start_session(&ui, &person, Some(&key), "a key");
        }
        Ok(Some(Caller::Agent(_))) => Shown::transport(
            ErrorCode::PersonOnly,
            "that is an agent's key: the dashboard is for persons (make one with `memdir --person ID key create`)",
        ),
        Ok(None) => Shown::transport(ErrorCode::Unauthorized, "no such key (or it was revoked)"),
        Err(e) => e,
    };
    redirect_anonymous(&ui, "/ui/login", Said::Refused(refused))
}

/// `POST /ui/logout`: the session ends here and now (`303` to the login
/// page); a form refused (its token, its size), `303` to the agents,
/// which say why, the session kept.
pub async fn logout(State(ui): State<Arc<Ui>>, req: Request) -> Response {
    let l = match posted_form(&ui, req, "/ui/").await {
        Ok((l, _)) => l,
        Err(r) => return r,
    };
    ui.sessions.end(&l.id);
    let mut r = see_other("/ui/login");
    if let Ok(v) = HeaderValue::from_str(&ui.session_cookie("")) {
        r.headers_mut().append(header::SET_COOKIE, v);
    }
    r
}
