//! Logging in and out in the browser: a person's key opens the dashboard,
//! an agent's key and a wrong key are refused with the reason shown,
//! logging out ends the session, and a one-time login link logs in once.

use super::run;
use super::site::{O, Site};

#[test]
fn a_person_logs_in_and_out() {
    let site = Site::with(&["Prefers tea"]);
    let site = &site;
    run(&site.server.base, |page| async move {
        // Without a session the dashboard sends to the login form.
        page.goto("/ui/").await;
        page.find("#login").await;
        assert_eq!(page.path().await, "/ui/login");
        page.log_in_as_person(&site.person).await;
        page.find(&format!("tr#agent-{O}")).await;
        assert_eq!(page.text("header .who").await, "ann");
        let cookie = page
            .client()
            .get_named_cookie("memdir_session")
            .await
            .expect("the session cookie");
        assert_eq!(cookie.http_only(), Some(true));
        assert_eq!(cookie.path(), Some("/ui"));
        // The agent's link leads to its facts.
        page.click(&format!("tr#agent-{O} a")).await;
        page.find("table.facts").await;
        assert_eq!(page.path().await, format!("/ui/agents/{O}"));
        assert!(page.text("table.facts").await.contains("Prefers tea"));
        // Log out: the login form, and the dashboard is closed again.
        page.click("#logout button[type=submit]").await;
        page.find("#login").await;
        assert_eq!(page.path().await, "/ui/login");
        page.goto(&format!("/ui/agents/{O}")).await;
        page.find("#login").await;
        assert!(!page.has("table.facts").await);
    });
}

#[test]
fn an_agent_s_key_and_a_wrong_key_are_refused_at_login() {
    let site = Site::with(&["Prefers tea"]);
    let site = &site;
    run(&site.server.base, |page| async move {
        page.login(&site.agent).await;
        assert_eq!(page.alert_code().await, "person_only");
        assert_eq!(page.path().await, "/ui/login");
        assert!(page.has("#login").await, "the form is offered again");
        page.login("mdk_0000000000000000000000000000000000000000000000000000000000000000")
            .await;
        assert_eq!(page.alert_code().await, "unauthorized");
        // Neither left a session: the dashboard still asks for a key.
        let cookies = page.client().get_all_cookies().await.expect("cookies");
        assert!(
            cookies.iter().all(|c| c.name() != "memdir_session"),
            "{cookies:?}"
        );
        page.goto("/ui/").await;
        page.find("#login").await;
        assert!(!page.has("table.agents").await);
    });
}

#[test]
fn a_person_logs_in_by_a_one_time_link() {
    let site = Site::with(&["Prefers tea"]);
    let link = site.login_link();
    let link = &link;
    run(&site.server.base, |page| async move {
        // Opening the link shows its button and logs nobody in.
        page.goto(link).await;
        page.find("#login-link").await;
        // It names the person it logs in, before the button is pressed.
        assert_eq!(page.text("#link-person").await, "ann");
        let cookies = page.client().get_all_cookies().await.expect("cookies");
        assert!(
            cookies.iter().all(|c| c.name() != "memdir_session"),
            "{cookies:?}"
        );
        // The button does.
        page.click("#login-link button[type=submit]").await;
        page.find(&format!("tr#agent-{O}")).await;
        assert_eq!(page.path().await, "/ui/");
        assert_eq!(page.text("header .who").await, "ann");
        // Logged out, the same link is used up: its page says so, names
        // nobody and offers no button.
        page.click("#logout button[type=submit]").await;
        page.find("#login").await;
        page.goto(link).await;
        assert_eq!(page.alert_code().await, "unauthorized");
        assert!(!page.has("#login-link").await);
        assert!(!page.has("#link-person").await);
        page.goto("/ui/").await;
        page.find("#login").await;
        assert!(!page.has("table.agents").await);
    });
}
