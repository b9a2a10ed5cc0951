//! `GET/POST /ui/login/link/{token}`: a one-time login link, made by
//! `memdir --person ID ui`. The `GET` only shows a page with a button (a
//! link previewer or a chat's unfurler fetching the URL uses nothing); its
//! `POST`, with the login form's token as `POST /ui/login` takes it,
//! redeems the link through `api::execute` (`RedeemLoginLink`): once,
//! within 10 minutes of its making. A used, expired or unknown link is
//! `401 unauthorized`, counted by the login attempt limiter like a wrong
//! key; the session it starts is a key login's.

use std::sync::Arc;

use askama::Template;
use axum::extract::{Path, Request, State};
use axum::http::{HeaderValue, header};
use axum::response::Response;
use memdir::api::{self, Request as Ask, Response as Answer, Who};
use memdir::{Error, ErrorCode};

use super::Chrome;
use super::login::{checked, start_session};
use crate::ui::session::token;
use crate::ui::{Shown, Ui, blocking, error_page, html};

/// The hex digits of a link's token.
const TOKEN_HEX: usize = 64;

/// The link's page: its button.
#[derive(Template)]
#[template(path = "login_link.html")]
pub struct LinkPage {
    /// The frame.
    pub chrome: Chrome,
    /// Where the button posts (this link), when the token is well formed.
    pub action: Option<String>,
    /// Why the last attempt failed.
    pub error: Option<Shown>,
}

/// A token of the right form: 64 hex digits (anything else is not shown
/// back, nor looked up).
fn well_formed(t: &str) -> bool {
    t.len() == TOKEN_HEX && t.bytes().all(|b| b.is_ascii_hexdigit())
}

/// The link's page for `token` with a fresh login-form token (its cookie
/// set), and `error`.
fn page(ui: &Ui, token_of_link: &str, error: Option<Shown>) -> Response {
    let Some(t) = token() else {
        return error_page(
            Shown::transport(ErrorCode::InternalError, "no random bytes from the OS"),
            None,
        );
    };
    let malformed = (!well_formed(token_of_link)).then(|| Shown::of(&Error::LoginLinkRefused));
    let error = error.or(malformed);
    let status = error.as_ref().map_or(200, |e| e.status);
    let mut r = html(
        status,
        &LinkPage {
            chrome: Chrome {
                title: "Log in with a link — memdir".to_owned(),
                person: None,
                csrf: t.clone(),
            },
            action: well_formed(token_of_link)
                .then(|| format!("/ui/login/link/{}", token_of_link.to_ascii_lowercase())),
            error,
        },
    );
    if let Ok(v) = HeaderValue::from_str(&ui.login_cookie(&t)) {
        r.headers_mut().append(header::SET_COOKIE, v);
    }
    r
}

/// `GET /ui/login/link/{token}`: the page with the button; nothing used.
pub async fn show(State(ui): State<Arc<Ui>>, Path(link): Path<String>) -> Response {
    page(&ui, &link, None)
}

/// `POST /ui/login/link/{token}`: the link used, a session out.
pub async fn redeem(State(ui): State<Arc<Ui>>, Path(link): Path<String>, req: Request) -> Response {
    let again = |ui: &Ui, e: Option<Shown>| page(ui, &link, e);
    if let Err(r) = checked(&ui, req, &again).await {
        return r;
    }
    let refused = || Shown::of(&Error::LoginLinkRefused);
    if !well_formed(&link) {
        return page(&ui, &link, Some(refused()));
    }
    let u = ui.clone();
    let t = link.clone();
    let got = blocking(move || {
        let store = u.open().map_err(|e| Shown::of(&e))?;
        let ask = Ask::RedeemLoginLink {
            token: t,
            keys: Some(u.settings.keys.clone()),
        };
        match api::execute(&store, &Who::anonymous(), ask) {
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
        Ok(None) => page(&ui, &link, Some(refused())),
        Err(e) => page(&ui, &link, Some(e)),
    }
}
