//! `GET/POST /ui/login/link/{token}`: a one-time login link, made by
//! `memdir --person ID ui`. The `GET` shows a page naming the person the
//! link logs in (`ShowLoginLink`: looked up, not used) with a button; a
//! link previewer or a chat's unfurler fetching the URL uses nothing. Its
//! `POST`, with the login form's token as `POST /ui/login` takes it,
//! redeems the link through `api::execute` (`RedeemLoginLink`): once,
//! within 10 minutes of its making. A used, expired or unknown link is
//! `401 unauthorized` (its page names nobody and offers no button), its
//! `POST` counted by the login attempt limiter like a wrong key; the
//! session it starts is a key login's. Every `POST` answers `303`: logged
//! in, to the agents; refused, to the link's page, which says why.

use std::sync::Arc;

use askama::Template;
use axum::extract::{Path, Request, State};
use axum::http::{HeaderValue, header};
use axum::response::Response;
use memdir::api::types::{Error, ErrorCode};
use memdir::api::{Request as Ask, Response as Answer, Who};

use super::Chrome;
use super::login::{checked, retry_after, said, start_session};
use crate::ui::notices::{Said, redirect_anonymous};
use crate::ui::session::token;
use crate::ui::{Shown, Ui, blocking, error_page, html};

/// The hex digits of a link's token.
const TOKEN_HEX: usize = 64;

/// The link's page: whom it logs in, and its button.
#[derive(Template)]
#[template(path = "login_link.html")]
pub struct LinkPage {
    /// The frame.
    pub chrome: Chrome,
    /// Where the button posts (this link), when the link is good.
    pub action: Option<String>,
    /// The person the link logs in, when it is good.
    pub person: Option<String>,
    /// Why the link is refused, or why the last attempt was.
    pub error: Option<Shown>,
}

/// A token of the right form: 64 hex digits (anything else is not shown
/// back, nor looked up).
fn well_formed(t: &str) -> bool {
    t.len() == TOKEN_HEX && t.bytes().all(|b| b.is_ascii_hexdigit())
}

/// The page of a link (`path`: where its button posts) whose person is
/// `person` (`None`: refused), with a fresh login-form token (its cookie
/// set) and `error` (with its status).
fn page(ui: &Ui, path: Option<String>, person: Option<String>, error: Option<Shown>) -> Response {
    let Some(t) = token() else {
        return error_page(
            Shown::transport(ErrorCode::InternalError, "no random bytes from the OS"),
            None,
        );
    };
    let error = match (&person, error) {
        (_, Some(e)) => Some(e),
        (None, None) => Some(Shown::of(&Error::LoginLinkRefused)),
        (Some(_), None) => None,
    };
    let status = error.as_ref().map_or(200, |e| e.status);
    let mut r = html(
        status,
        &LinkPage {
            chrome: Chrome {
                title: "Log in with a link — memdir".to_owned(),
                person: None,
                csrf: t.clone(),
            },
            action: person.is_some().then_some(path).flatten(),
            person,
            error,
        },
    );
    if let Ok(v) = HeaderValue::from_str(&ui.login_cookie(&t)) {
        r.headers_mut().append(header::SET_COOKIE, v);
    }
    retry_after(&mut r);
    r
}

/// The link's page's path, when its token is well formed.
fn path_of(link: &str) -> Option<String> {
    well_formed(link).then(|| format!("/ui/login/link/{}", link.to_ascii_lowercase()))
}

/// `GET /ui/login/link/{token}`: the page naming the person the link logs
/// in, with the button; nothing used.
pub async fn show(State(ui): State<Arc<Ui>>, Path(link): Path<String>, req: Request) -> Response {
    let error = said(&ui, req.headers(), req.uri().query());
    let Some(path) = path_of(&link) else {
        return page(&ui, None, None, error);
    };
    let u = ui.clone();
    let looked = blocking(move || {
        let store = u.open().map_err(|e| Shown::of(&e))?;
        let ask = Ask::ShowLoginLink {
            token: link,
            keys: Some(u.settings.keys.clone()),
        };
        match crate::ui::ask(&store, &Who::anonymous(), ask) {
            Ok(Answer::LoginLinkShown { person, .. }) => Ok(Some(person)),
            Ok(_) | Err(Error::LoginLinkRefused) => Ok(None),
            Err(e) => {
                // Said to the log, not to a visitor not logged in.
                tracing::warn!("memdir serve: a login link was not looked up: {e}");
                Ok(None)
            }
        }
    })
    .await;
    match looked {
        Ok(person) => page(&ui, Some(path), person, error),
        Err(e) => page(&ui, None, None, error.or(Some(e))),
    }
}

/// `POST /ui/login/link/{token}`: the link used, a session out (`303` to
/// the agents); refused, `303` to the link's page, which says why.
pub async fn redeem(State(ui): State<Arc<Ui>>, Path(link): Path<String>, req: Request) -> Response {
    let back = path_of(&link).unwrap_or_else(|| "/ui/login".to_owned());
    if let Err(r) = checked(&ui, req, &back).await {
        return r;
    }
    let refused = |ui: &Ui, e: Shown| redirect_anonymous(ui, &back, Said::Refused(e));
    if !well_formed(&link) {
        return refused(&ui, Shown::of(&Error::LoginLinkRefused));
    }
    let u = ui.clone();
    let got = blocking(move || {
        let store = u.open().map_err(|e| Shown::of(&e))?;
        let ask = Ask::RedeemLoginLink {
            token: link,
            keys: Some(u.settings.keys.clone()),
        };
        match crate::ui::ask(&store, &Who::anonymous(), ask) {
            Ok(Answer::LoginRedeemed { person }) => Ok(Some(person)),
            Ok(_) | Err(Error::LoginLinkRefused) => Ok(None),
            Err(e) => {
                // Said to the log, not to a visitor not logged in (the
                // keys' folder, a uid).
                tracing::warn!("memdir serve: a login link was refused: {e}");
                Ok(None)
            }
        }
    })
    .await;
    match got {
        Ok(Some(person)) => start_session(&ui, &person, None, "a one-time link"),
        Ok(None) => refused(&ui, Shown::of(&Error::LoginLinkRefused)),
        Err(e) => refused(&ui, e),
    }
}
