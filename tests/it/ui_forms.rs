//! The dashboard's forms answer with a redirect (POST-redirect-GET): every
//! `POST` route of the dashboard, taken from the route table as
//! `/openapi.json` writes it, answers `303 See Other` to a page of ours,
//! and what the form has to say shows once, on that page, to the session
//! that posted it, never text taken from the query. And the page a
//! one-time login link opens names the person it logs in.

use crate::http::Server;
use crate::ui::{Browser, O, Page, input, login_link, setup};

/// Every `POST` route of the dashboard (`x-dashboard` in `/openapi.json`,
/// which the server writes from its route table).
fn dashboard_posts(srv: &Server) -> Vec<String> {
    let doc = srv.get(None, "/openapi.json").json();
    let paths = doc["paths"].as_object().expect("the document's paths");
    paths
        .iter()
        .filter(|(_, ops)| ops["post"]["x-dashboard"] == true)
        .map(|(path, _)| path.clone())
        .collect()
}

/// `path` with its `{…}` segments filled: the agent [`O`], the link
/// `token`.
fn filled(path: &str, token: &str) -> String {
    let p = path.replace("{agent}", O).replace("{token}", token);
    assert!(
        !p.contains('{'),
        "{path}: a path parameter this test does not fill yet"
    );
    p
}

/// The `Location` of a `303` answer to the form posted to `path`, which
/// must be a page of ours (a path under `/ui/`, no other host).
#[track_caller]
fn redirected(r: &Page, path: &str) -> String {
    assert_eq!(r.status, 303, "{path} answered {r:?}");
    let to = r
        .header("location")
        .unwrap_or_else(|| panic!("{path}: a 303 without a Location: {r:?}"));
    assert!(
        to.starts_with("/ui/") && !to.contains("://") && !to.contains('\\'),
        "{path}: {to} is not a page of ours"
    );
    to.to_owned()
}

#[test]
fn every_dashboard_form_answers_303_to_a_page_of_ours_that_says_what_happened() {
    let (s, srv, person, _) = setup(&["Prefers tea"]);
    let posts = dashboard_posts(&srv);
    for known in [
        "/ui/login",
        "/ui/login/link/{token}",
        "/ui/logout",
        "/ui/agents/{agent}/actions",
        "/ui/learnings",
        "/ui/decisions",
        "/ui/pending",
        "/ui/agents/{agent}/dreaming",
        "/ui/agents/{agent}/skills",
    ] {
        assert!(posts.iter().any(|p| p == known), "{known}: {posts:?}");
    }
    let memory = s.read_text(O, "MEMORY.md");
    let link = login_link(&s, &srv);
    let token = link.rsplit('/').next().unwrap().to_owned();
    let mut b = Browser::logged_in(&srv, &person);
    let mut c = Browser::logged_in(&srv, &person);
    for path in &posts {
        let at = filled(path, &token);
        // Logged in, a form without this session's token: refused, and
        // the refusal said on the page the redirect leads to.
        let r = b.post(&at, &[("action", "veto"), ("id", "mem_000000000000")]);
        let to = redirected(&r, path);
        let shown = b.get(&to);
        assert_eq!(
            (shown.status, shown.alert().as_deref()),
            (403, Some("csrf_refused")),
            "{path} → {to}: {}",
            shown.body
        );
        // Said once: the same page again says nothing more.
        let again = b.get(&to);
        assert_eq!(again.alert(), None, "{path} → {to}: {}", again.body);
        // Nobody logged in: sent to a page of ours, which says why.
        let mut anon = Browser::new(&srv);
        let r = anon.post(&at, &[("action", "veto")]);
        let to = redirected(&r, path);
        let shown = anon.get(&to);
        let said = shown.alert();
        assert!(
            matches!(said.as_deref(), Some("unauthorized" | "csrf_refused")),
            "{path} → {to}: {}",
            shown.body
        );
        // Another session naming the same notice sees none of it.
        let r = b.post(&at, &[("action", "veto")]);
        let to = redirected(&r, path);
        let other = c.get(&to);
        assert_eq!(other.alert(), None, "{path} → {to}: {}", other.body);
    }
    // Nothing was done: the refused logout ended no session, the refused
    // actions changed no file.
    assert_eq!(b.get("/ui/").status, 200);
    assert_eq!(s.read_text(O, "MEMORY.md"), memory);
    assert!(
        Browser::new(&srv)
            .get(&link)
            .body
            .contains("id=\"login-link\""),
        "the link is still good"
    );
}

#[test]
fn a_notice_is_shown_from_the_session_never_from_the_query() {
    let (s, srv, person, _) = setup(&["Prefers tea"]);
    let id = crate::ui::id_of(&s, "Prefers tea");
    let mut b = Browser::logged_in(&srv, &person);
    let page = b.get(&format!("/ui/agents/{O}"));
    let row = page.row(&id).unwrap();
    let (csrf, store, hash) = (
        input(&page.body, "csrf"),
        input(row, "store"),
        input(row, "hash"),
    );
    let r = b.post(
        &format!("/ui/agents/{O}/actions"),
        &[
            ("csrf", &csrf),
            ("action", "archive"),
            ("id", &id),
            ("store", &store),
            ("hash", &hash),
            ("reason", "stale since May"),
        ],
    );
    let to = redirected(&r, "/ui/agents/{agent}/actions");
    assert!(to.starts_with(&format!("/ui/agents/{O}?notice=")), "{to}");
    let done = b.get(&to);
    assert_eq!(done.status, 200, "{}", done.body);
    assert!(
        done.body.contains("class=\"notice\"") && done.body.contains(&id),
        "{}",
        done.body
    );
    assert!(
        done.row(&id).unwrap().contains("data-state=\"archived\""),
        "{}",
        done.body
    );
    // Shown once: the same address again shows the page without it.
    let again = b.get(&to);
    assert!(!again.body.contains("class=\"notice\""), "{}", again.body);
    // A notice named in the query that this session was not given shows
    // nothing, and nothing of the query is shown back.
    for forged in [
        "?notice=0000000000000000",
        "?notice=%3Cb%3Eforged%3C%2Fb%3E",
        "?notice=archived+mem_1",
    ] {
        let p = b.get(&format!("/ui/agents/{O}{forged}"));
        assert_eq!(p.status, 200, "{forged}: {}", p.body);
        assert!(!p.body.contains("class=\"notice\""), "{forged}: {}", p.body);
        assert!(!p.body.contains("forged"), "{forged}: {}", p.body);
    }
}

#[test]
fn the_login_link_s_page_names_the_person_it_logs_in() {
    let (s, srv, _, _) = setup(&["Prefers tea"]);
    let path = login_link(&s, &srv);
    let mut b = Browser::new(&srv);
    let page = b.get(&path);
    assert_eq!(page.status, 200, "{page:?}");
    let at = page
        .body
        .find("id=\"link-person\"")
        .unwrap_or_else(|| panic!("no person named: {}", page.body));
    let named = &page.body[at..];
    let named = &named[named.find('>').unwrap() + 1..named.find("</").unwrap()];
    assert_eq!(named, "ann", "{}", page.body);
    // Looking did not use it: the button still logs in, as ann.
    let csrf = input(&page.body, "csrf");
    let r = b.post(&path, &[("csrf", &csrf)]);
    assert_eq!(redirected(&r, &path), "/ui/");
    assert!(
        b.get("/ui/")
            .body
            .contains("<span class=\"who\">ann</span>")
    );
    // Used: the page names nobody and says the link is refused.
    let used = Browser::new(&srv).get(&path);
    assert_eq!(
        (used.status, used.alert().as_deref()),
        (401, Some("unauthorized")),
        "{}",
        used.body
    );
    assert!(!used.body.contains("link-person"), "{}", used.body);
    assert!(!used.body.contains("id=\"login-link\""), "{}", used.body);
}
