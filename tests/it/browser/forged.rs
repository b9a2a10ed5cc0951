//! Forged posts, from the browser: a form without its CSRF token or with a
//! wrong one, and a form of another origin (a page on another loopback
//! port, which the browser sends the session cookie from: same site, other
//! origin) carrying the right token. All are refused (403) and nothing is
//! done.

use super::listener::Listener;
use super::run;
use super::site::{O, Site};

/// Escapes `s` for an HTML attribute of the forged page.
fn attr(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('"', "&quot;")
        .replace('<', "&lt;")
}

#[test]
fn posts_without_the_token_or_from_another_origin_are_refused() {
    let site = Site::with(&["Prefers tea"]);
    let id = site.id_of("Prefers tea");
    let site = &site;
    run(&site.server.base, |page| async move {
        page.log_in_as_person(&site.person).await;
        let facts = format!("/ui/agents/{O}");
        let veto = format!("tr#fact-{id} form[data-action=veto]");
        let refused = |why: &'static str| {
            let page = page.clone();
            async move {
                assert_eq!(page.alert_code().await, "csrf_refused", "{why}");
                let alert = page.text("div.error[role=alert]").await;
                assert!(alert.contains("(403)"), "{why}: {alert}");
            }
        };
        // The veto form without its token, then with a wrong one.
        for (why, script) in [
            ("no token", "el.remove()"),
            ("a wrong token", "el.value = '0'.repeat(64)"),
        ] {
            page.goto(&facts).await;
            page.open_action(&id, "veto").await;
            page.eval(&format!(
                "const el = document.querySelector(\"{veto} input[name=csrf]\"); {script}; return true"
            ))
            .await;
            page.submit_action(&id, "veto").await;
            refused(why).await;
        }
        assert!(site.snapshot().contains("Prefers tea"));
        // The same form, token and all, on a page of another origin.
        page.goto(&facts).await;
        let field = |name: &str| {
            let page = page.clone();
            let css = format!("{veto} input[name={name}]");
            async move { page.attr(&css, "value").await.unwrap_or_default() }
        };
        let (csrf, store, hash) = (
            field("csrf").await,
            field("store").await,
            field("hash").await,
        );
        let forged = format!(
            "<!DOCTYPE html><title>another site</title>\
             <form id=\"forged\" method=\"post\" action=\"{}/ui/agents/{O}/actions\">\
             <input type=\"hidden\" name=\"csrf\" value=\"{}\">\
             <input type=\"hidden\" name=\"action\" value=\"veto\">\
             <input type=\"hidden\" name=\"id\" value=\"{}\">\
             <input type=\"hidden\" name=\"store\" value=\"{}\">\
             <input type=\"hidden\" name=\"hash\" value=\"{}\">\
             <button type=\"submit\">Win a prize</button></form>",
            site.server.base,
            attr(&csrf),
            attr(&id),
            attr(&store),
            attr(&hash),
        );
        let other = Listener::start(&forged);
        page.goto(&format!("{}/prize", other.base)).await;
        page.click("#forged button[type=submit]").await;
        refused("another origin").await;
        let hits = other.hits();
        assert!(
            hits.iter().any(|h| h.starts_with("GET /prize ")),
            "{hits:?}"
        );
        // Nothing was vetoed: the fact is live on the page and on disk.
        page.goto(&facts).await;
        page.row_in(&id, "live").await;
        assert!(site.snapshot().contains("Prefers tea"));
        assert!(
            !site
                .s
                .read_or_empty(O, "archive.md")
                .contains("Prefers tea")
        );
    });
}
