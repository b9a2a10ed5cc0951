//! The dashboard: server-rendered pages under `/ui/` for persons, served
//! by `memdir serve` beside its API, a fourth adapter over `memdir::api`.
//! Every page opens the store afresh and asks `api::execute` what it
//! shows; every action is the `Request` the command line and HTTP send,
//! with the logged-in person as the caller.
//!
//! The pieces: `session` (logins, kept in memory), `guard` (the `Host`,
//! `Origin` and CSRF checks and the security headers), `notices` (what a
//! form said, kept for the page its redirect leads to), and one module per
//! page under `pages` (the agents page's rows are one `AgentSummaries`
//! request: the library keeps their cache). Templates are `bin/templates/*.html` (askama: checked when the
//! binary is compiled, every value escaped), the stylesheet
//! `bin/static/ui.css`. No script is served.

pub mod guard;
pub mod notices;
pub mod pages;
pub mod session;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use askama::Template;
use axum::body::Body;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::Response;
use memdir::api::errors::{ErrorBody, Surface};
use memdir::api::servers::Opener;
use memdir::api::types::{Error, ErrorCode, Store};

/// The stylesheet, served at `/ui/static/ui.css`.
pub const CSS: &str = include_str!("../../static/ui.css");

/// How the dashboard was started: what `memdir serve` was told.
#[derive(Debug, Clone)]
pub struct Settings {
    /// How to open the store for each page.
    pub opener: Opener,
    /// The keys file, read on every request.
    pub keys: PathBuf,
    /// The address the server listens on (its `Host` is accepted).
    pub listen: SocketAddr,
    /// Another `Host` (`name` or `name:port`) the server answers to.
    pub public_host: Option<String>,
    /// The server sits behind TLS: the cookie is `Secure` with the
    /// `__Host-` prefix, origins are `https://`.
    pub behind_tls: bool,
    /// How long a session lives without a request (`--ui-idle`).
    pub idle: std::time::Duration,
}

/// The dashboard's state: its settings, the sessions, the login attempts,
/// the reviews it started and the forms' notices.
#[derive(Debug)]
pub struct Ui {
    /// What it was started with.
    pub settings: Settings,
    /// The sessions, in memory only.
    pub sessions: session::Sessions,
    /// Login attempts per client address.
    pub attempts: session::Attempts,
    /// The reviews started from the dreaming page.
    pub reviews: pages::dreaming::Runs,
    /// What the forms said, waiting for the pages their redirects lead to.
    pub notices: notices::Notices,
}

impl Ui {
    /// The dashboard of a server started with `settings`.
    pub fn new(settings: Settings) -> Arc<Ui> {
        Arc::new(Ui {
            sessions: session::Sessions::new(settings.idle),
            settings,
            attempts: session::Attempts::default(),
            reviews: pages::dreaming::Runs::default(),
            notices: notices::Notices::default(),
        })
    }

    /// The store as it is now.
    pub fn open(&self) -> Result<Store, Error> {
        self.settings.opener.open()
    }
}

/// What a page shows of an error: its code, its message (with the hint in
/// the HTTP API's words: the form's fields are named as its JSON fields)
/// and the hint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shown {
    /// The stable code.
    pub code: String,
    /// The message.
    pub message: String,
    /// The hint, when there is one.
    pub hint: Option<String>,
    /// The HTTP status.
    pub status: u16,
}

impl Shown {
    /// An error of the api, as a page shows it.
    pub fn of(e: &Error) -> Shown {
        let b = ErrorBody::of(e, Surface::Http);
        Shown {
            code: b.code.as_str().to_owned(),
            message: b.message,
            hint: b.hint.map(|h| h.text),
            status: b.status,
        }
    }

    /// A refusal of the dashboard itself (a transport's code).
    pub fn transport(code: ErrorCode, message: impl Into<String>) -> Shown {
        Shown {
            code: code.as_str().to_owned(),
            message: message.into(),
            hint: None,
            status: code.status(),
        }
    }
}

/// A page: the rendered template with `status` (a template that cannot
/// render is a 500 with a plain message, never half a page).
pub fn html(status: u16, page: &impl Template) -> Response {
    match page.render() {
        Ok(body) => with_type(status, body, "text/html; charset=utf-8"),
        Err(e) => {
            tracing::warn!("memdir serve: a dashboard page did not render: {e}");
            with_type(
                500,
                "internal error: the page did not render\n".to_owned(),
                "text/plain; charset=utf-8",
            )
        }
    }
}

/// A body with its type and status.
pub fn with_type(status: u16, body: String, ctype: &'static str) -> Response {
    let mut r = Response::new(Body::from(body));
    *r.status_mut() = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    r.headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static(ctype));
    r
}

/// A `303 See Other` to `to` (a path of ours).
pub fn see_other(to: &str) -> Response {
    let mut r = with_type(303, String::new(), "text/html; charset=utf-8");
    if let Ok(v) = HeaderValue::from_str(to) {
        r.headers_mut().insert(header::LOCATION, v);
    }
    r
}

/// The error page: the code, the message and the hint.
#[derive(Template)]
#[template(path = "error.html")]
pub struct ErrorPage {
    /// The frame (no logout form: an error page carries no token).
    pub chrome: pages::Chrome,
    /// What went wrong.
    pub error: Shown,
    /// A link onward (a path of ours) and its words.
    pub onward: Option<(String, String)>,
}

/// An error page with the error's status.
pub fn error_page(error: Shown, person: Option<String>) -> Response {
    let status = error.status;
    html(
        status,
        &ErrorPage {
            chrome: pages::Chrome {
                title: format!("{} — memdir", error.code),
                person,
                csrf: String::new(),
            },
            error,
            onward: Some(("/ui/".to_owned(), "the agents".to_owned())),
        },
    )
}

/// Runs `f` on the blocking pool (file work never holds a runtime
/// thread); a lost worker is an internal error.
pub async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, Shown> + Send + 'static,
) -> Result<T, Shown> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| Shown::transport(ErrorCode::InternalError, format!("worker failed: {e}")))?
}

/// The value of the cookie `name` in `headers`.
pub fn cookie<'h>(headers: &'h HeaderMap, name: &str) -> Option<&'h str> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|kv| kv.trim().split_once('='))
        .find(|(k, _)| *k == name)
        .map(|(_, v)| v.trim())
}

/// `request` through the one door ([`memdir::api::execute`]): the guarded
/// answer, owned, for a page that shows it to a person (askama escapes it).
pub fn ask(
    store: &memdir::api::types::Store,
    who: &memdir::api::Who,
    request: memdir::api::Request,
) -> Result<memdir::api::Response, memdir::api::types::Error> {
    memdir::api::execute(store, who, request).map(memdir::api::guard::Guarded::into_inner)
}

/// A person's explicit raw read ([`memdir::api::raw`], the one exit for
/// raw text): the agent page's reveal of a blocked entry.
pub fn ask_raw(
    store: &memdir::api::types::Store,
    who: &memdir::api::Who,
    request: memdir::api::Request,
) -> Result<memdir::api::Response, memdir::api::types::Error> {
    memdir::api::raw(store, who, request).map(memdir::api::guard::PersonAnswer::into_inner)
}

/// [`ask`], with the words the answer's text form says (what a page's
/// notice quotes), rendered from the guarded answer.
pub fn ask_said(
    store: &memdir::api::types::Store,
    who: &memdir::api::Who,
    request: memdir::api::Request,
) -> Result<(memdir::api::Response, String), memdir::api::types::Error> {
    let answer = memdir::api::execute(store, who, request)?;
    let out = memdir::api::render::render_on(&answer, false, memdir::api::errors::Surface::Http);
    let words = out.stdout.text().trim_end().to_owned();
    Ok((answer.into_inner(), words))
}

/// A query string or form body parsed leniently: an unknown or repeated
/// field is ignored, a malformed one dropped (a page shows what it can).
pub fn fields(raw: &[u8]) -> Vec<(String, String)> {
    form_urlencoded::parse(raw)
        .take(64)
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect()
}

/// The first value of `name` among `fields`.
pub fn field<'f>(fields: &'f [(String, String)], name: &str) -> Option<&'f str> {
    fields
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.as_str())
}

/// A path segment or query value percent-encoded for a link.
pub fn encode(s: &str) -> String {
    form_urlencoded::byte_serialize(s.as_bytes()).collect()
}

/// `text` with every character a reviewer could not see or could mistake
/// made visible: an invisible or format character (zero-width, a
/// bidirectional control, a tag character) replaced by `⟨U+XXXX⟩`, a
/// letter imitating an ASCII one kept and followed by `⟨U+XXXX≈a⟩`; and
/// whether anything was marked. Pure: the page escapes the result.
pub fn visible(text: &str) -> (String, bool) {
    let mut out = String::with_capacity(text.len());
    let mut marked = false;
    for c in text.chars() {
        if memdir::api::types::is_invisible(c) {
            out.push_str(&format!("⟨U+{:04X}⟩", u32::from(c)));
            marked = true;
        } else if let Some(a) = memdir::api::types::ascii_lookalike(c) {
            out.push(c);
            out.push_str(&format!("⟨U+{:04X}≈{a}⟩", u32::from(c)));
            marked = true;
        } else {
            out.push(c);
        }
    }
    (out, marked)
}

/// `/ui/static/ui.css`: the stylesheet (public: the login page needs it).
pub async fn stylesheet() -> Response {
    let mut r = with_type(200, CSS.to_owned(), "text/css; charset=utf-8");
    r.headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    r
}

/// `/`: to the dashboard.
pub async fn root() -> Response {
    see_other("/ui/")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cookies_and_fields_are_read_leniently() {
        let mut h = HeaderMap::new();
        h.insert(
            header::COOKIE,
            HeaderValue::from_static("a=1; memdir_session=xyz ; b=2"),
        );
        assert_eq!(cookie(&h, "memdir_session"), Some("xyz"));
        assert_eq!(cookie(&h, "c"), None);
        let f = fields(b"id=mem_1&text=a+%3Cb%3E&id=mem_2&%ZZ");
        assert_eq!(field(&f, "id"), Some("mem_1"));
        assert_eq!(field(&f, "text"), Some("a <b>"));
        assert_eq!(encode("a b/<"), "a+b%2F%3C");
    }

    #[test]
    fn hidden_and_lookalike_characters_are_made_visible() {
        assert_eq!(
            visible("plain text, café"),
            ("plain text, café".to_owned(), false)
        );
        assert_eq!(
            visible("invoice_\u{202E}txt.exe"),
            ("invoice_⟨U+202E⟩txt.exe".to_owned(), true)
        );
        assert_eq!(visible("a\u{200B}b\u{FEFF}").0, "a⟨U+200B⟩b⟨U+FEFF⟩");
        // A tag character (invisible ASCII smuggled in tags).
        assert_eq!(visible("x\u{E0041}").0, "x⟨U+E0041⟩");
        // Cyrillic а in "pаypal": kept, and named.
        assert_eq!(visible("p\u{0430}ypal").0, "p\u{0430}⟨U+0430≈a⟩ypal");
        assert_eq!(visible("\u{2066}x\u{2069}").0, "⟨U+2066⟩x⟨U+2069⟩");
    }
}
