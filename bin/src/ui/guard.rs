//! What stands before every dashboard page: the `Host` must be the
//! server's own (its listen address, or `--public-host`: DNS rebinding
//! gets a `421`), a state-changing request must come from the server's own
//! origin (`Origin`, else `Referer`: scheme, host and port, since
//! `SameSite` alone ignores ports) and carry its session's CSRF token
//! (checked by the page, which knows the session), and every answer
//! carries the security headers: a CSP with no script at all, no
//! sniffing, no referrer to another origin, no caching. (`same-origin`,
//! not `no-referrer`: under `no-referrer` a browser sends `Origin: null`
//! with every form it posts, and the origin check would refuse them all.)

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, header};
use axum::middleware::Next;
use axum::response::Response;
use memdir::api::types::ErrorCode;

use super::{Shown, Ui, error_page};

/// The dashboard's Content-Security-Policy: nothing but our stylesheet,
/// our images and forms posted to ourselves; no script, no frame.
pub const CSP: &str = "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/// Whether `path` is the dashboard's (`/` and `/ui…`).
pub fn is_dashboard(path: &str) -> bool {
    path == "/" || path == "/ui" || path.starts_with("/ui/")
}

/// The security headers, on every dashboard answer.
pub fn secure(headers: &mut HeaderMap) {
    for (name, value) in [
        (header::CONTENT_SECURITY_POLICY, CSP),
        (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        (header::REFERRER_POLICY, "same-origin"),
        (header::CACHE_CONTROL, "no-store"),
        (header::X_FRAME_OPTIONS, "DENY"),
    ] {
        headers.insert(name, HeaderValue::from_static(value));
    }
}

impl Ui {
    /// The `Host` values this server answers to.
    pub fn hosts(&self) -> Vec<String> {
        let s = &self.settings;
        let port = s.listen.port();
        let mut out = vec![s.listen.to_string()];
        if s.listen.ip().is_loopback() {
            out.push(format!("localhost:{port}"));
        }
        if let Some(h) = &s.public_host {
            out.push(h.clone());
            if !h.contains(':') {
                out.push(format!("{h}:{port}"));
            }
        }
        out
    }

    /// The request's `Host`, when it is one of ours.
    pub fn own_host<'h>(&self, headers: &'h HeaderMap) -> Option<&'h str> {
        let host = headers.get(header::HOST)?.to_str().ok()?;
        self.hosts()
            .iter()
            .any(|h| h.eq_ignore_ascii_case(host))
            .then_some(host)
    }

    /// This server's origin as the browser names it, for `host`.
    pub fn origin(&self, host: &str) -> String {
        let scheme = if self.settings.behind_tls {
            "https"
        } else {
            "http"
        };
        format!("{scheme}://{}", host.to_ascii_lowercase())
    }

    /// Whether a state-changing request comes from our own origin: its
    /// `Origin` is ours, or without one its `Referer` is a page of ours.
    pub fn same_origin(&self, headers: &HeaderMap) -> bool {
        let Some(host) = self.own_host(headers) else {
            return false;
        };
        let own = self.origin(host);
        if let Some(o) = headers.get(header::ORIGIN) {
            return o.to_str().is_ok_and(|o| o.eq_ignore_ascii_case(&own));
        }
        headers
            .get(header::REFERER)
            .and_then(|r| r.to_str().ok())
            .is_some_and(|r| {
                r.len() > own.len()
                    && r[..own.len()].eq_ignore_ascii_case(&own)
                    && r[own.len()..].starts_with('/')
            })
    }
}

/// The middleware of every request: a dashboard path gets the `Host` and
/// `Origin` checks and the security headers; any other passes untouched.
pub async fn layer(State(ui): State<Arc<Ui>>, req: Request, next: Next) -> Response {
    if !is_dashboard(req.uri().path()) {
        return next.run(req).await;
    }
    let mut resp = if ui.own_host(req.headers()).is_none() {
        error_page(
            Shown::transport(
                ErrorCode::MisdirectedRequest,
                "this server does not answer to that Host (use the address it listens on, or start it with --public-host)",
            ),
            None,
        )
    } else if req.method() == Method::POST && !ui.same_origin(req.headers()) {
        error_page(
            Shown::transport(
                ErrorCode::CsrfRefused,
                "refused: the form was not posted from this dashboard's own origin",
            ),
            None,
        )
    } else {
        next.run(req).await
    };
    secure(resp.headers_mut());
    resp
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ui::Settings;
    use memdir::api::servers::Opener;

    fn ui(tls: bool, public: Option<&str>) -> Arc<Ui> {
        Ui::new(Settings {
            opener: Opener {
                root: "/nonexistent".into(),
                config_dir: None,
                lock_timeout: None,
                recall_model: None,
                replica: None,
            },
            keys: "/nonexistent/keys.yaml".into(),
            listen: "127.0.0.1:7077".parse().unwrap(),
            public_host: public.map(str::to_owned),
            behind_tls: tls,
            idle: crate::ui::session::IDLE,
        })
    }

    fn headers(pairs: &[(header::HeaderName, &'static str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.insert(k.clone(), HeaderValue::from_static(v));
        }
        h
    }

    #[test]
    fn only_our_host_and_origin_pass() {
        let u = ui(false, None);
        let ok = headers(&[
            (header::HOST, "127.0.0.1:7077"),
            (header::ORIGIN, "http://127.0.0.1:7077"),
        ]);
        assert!(u.same_origin(&ok));
        let port = headers(&[
            (header::HOST, "127.0.0.1:7077"),
            (header::ORIGIN, "http://127.0.0.1:3000"),
        ]);
        assert!(!u.same_origin(&port));
        let evil = headers(&[(header::HOST, "evil.example:7077")]);
        assert!(u.own_host(&evil).is_none());
        let referer = headers(&[
            (header::HOST, "localhost:7077"),
            (header::REFERER, "http://localhost:7077/ui/"),
        ]);
        assert!(u.same_origin(&referer));
        let prefix = headers(&[
            (header::HOST, "localhost:7077"),
            (header::REFERER, "http://localhost:70778/ui/"),
        ]);
        assert!(!u.same_origin(&prefix));
        let none = headers(&[(header::HOST, "127.0.0.1:7077")]);
        assert!(!u.same_origin(&none));
    }

    #[test]
    fn behind_tls_the_origin_is_https_and_the_public_host_counts() {
        let u = ui(true, Some("mem.example.org"));
        let h = headers(&[
            (header::HOST, "mem.example.org"),
            (header::ORIGIN, "https://mem.example.org"),
        ]);
        assert!(u.same_origin(&h));
        let plain = headers(&[
            (header::HOST, "mem.example.org"),
            (header::ORIGIN, "http://mem.example.org"),
        ]);
        assert!(!u.same_origin(&plain));
    }

    #[test]
    fn the_dashboard_s_paths() {
        assert!(is_dashboard("/") && is_dashboard("/ui/") && is_dashboard("/ui/agents/x"));
        assert!(!is_dashboard("/uix") && !is_dashboard("/v1/snapshot"));
    }
}
