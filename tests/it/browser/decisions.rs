//! Decisions in the browser: a pair a merge kept settled from the
//! decisions page (keep one, and keep both) with the file on disk checked;
//! a learning approved on the learnings page seen in another agent's
//! snapshot page; and a session idle past `--ui-idle` sent to the login
//! page by the next click.

use std::time::Duration;

use super::run;
use super::site::{O, Site};
use crate::http::{make_key, serve};
use crate::util::Sandbox;

/// Two pairs a merge kept in O's MEMORY.md (written as the merge driver
/// leaves them).
fn two_pairs(site: &Site) {
    let path = site.s.root.join(O).join("MEMORY.md");
    let mut src = std::fs::read_to_string(&path).unwrap();
    for (text, base) in [
        ("The gateway times out after 30 seconds", "mem_00000000000a"),
        ("The gateway times out after 60 seconds", "mem_00000000000a"),
        ("Builds run on the large runner", "mem_00000000000b"),
        ("Builds run on the small runner", "mem_00000000000b"),
    ] {
        src.push_str(&format!(
            "- {text} <!-- memdir created=2026-11-12T08:00:00Z agent={O} conflict={base} -->\n"
        ));
    }
    std::fs::write(&path, src).unwrap();
}

#[test]
fn a_pair_is_settled_from_the_decisions_page_keep_one_and_keep_both() {
    let site = Site::with(&["Prefers tea"]);
    two_pairs(&site);
    let keep = site.id_of("The gateway times out after 60 seconds");
    let both = site.id_of("Builds run on the large runner");
    let s = &site.s;
    let site = &site;
    run(&site.server.base, |page| async move {
        page.log_in_as_person(&site.person).await;
        page.click("nav a[href=\"/ui/decisions\"]").await;
        page.find(&format!("tr.finding[data-id={keep}]")).await;
        // Keep one: opened first, then confirmed.
        let summary =
            format!("tr.finding[data-id={keep}] details:has(form[data-action=keep]) > summary");
        page.click(&summary).await;
        page.click(&format!(
            "tr.finding[data-id={keep}] form[data-action=keep] button[type=submit]"
        ))
        .await;
        page.find("div.notice").await;
        let file = s.read_text(O, "MEMORY.md");
        assert!(file.contains("after 60 seconds"), "{file}");
        assert!(!file.contains("after 30 seconds"), "{file}");
        assert!(!page.has(&format!("tr.finding[data-id={keep}]")).await);
        // Keep both: one click, both stay, the marks are gone.
        page.click(&format!(
            "tr.finding[data-id={both}] form[data-action=both] button[type=submit]"
        ))
        .await;
        // The page still shows the first decision's notice until the
        // second one's page replaces it: wait for the pair's row to go.
        page.gone(&format!("tr.finding[data-id={both}]")).await;
        page.find("div.notice").await;
        let file = s.read_text(O, "MEMORY.md");
        assert!(
            file.contains("large runner") && file.contains("small runner"),
            "{file}"
        );
        assert!(!file.contains("conflict="), "{file}");
        assert!(!page.has("tr.finding[data-kind=merge_conflict_pair]").await);
        let snap = site.snapshot();
        assert!(
            snap.contains("large runner") && snap.contains("small runner"),
            "{snap}"
        );
    });
}

#[test]
fn a_learning_approved_on_its_page_is_in_another_agent_s_snapshot_page() {
    let site = Site::with(&["Prefers tea"]);
    let other = "agt_other";
    site.s.run_as(other, &["add", "Writes in Rust"]).ok();
    let text = "Deploys need the VPN";
    let v = site.s.json_ok(&["--owner", O, "propose", text]);
    let id = v["learning"]["id"].as_str().expect("an id").to_owned();
    let site = &site;
    run(&site.server.base, |page| async move {
        page.log_in_as_person(&site.person).await;
        page.goto(&format!("/ui/agents/{other}/snapshot")).await;
        assert!(!page.text("pre#snapshot").await.contains(text));
        page.goto("/ui/learnings").await;
        page.find(&format!("tr#learning-{id}[data-state=pending]"))
            .await;
        page.click(&format!(
            "tr#learning-{id} form[data-action=approve] button[type=submit]"
        ))
        .await;
        page.find(&format!("tr#learning-{id}[data-state=approved]"))
            .await;
        // Every agent's next run sees it, not only the proposer's.
        page.goto(&format!("/ui/agents/{other}/snapshot")).await;
        let shown = page.text("pre#snapshot").await;
        assert!(shown.contains(text), "{shown}");
        assert!(shown.contains("LEARNINGS.md"), "{shown}");
    });
}

#[test]
fn a_click_after_the_idle_time_lands_on_the_login_page() {
    let s = Sandbox::new();
    s.run_as(O, &["add", "Prefers tea"]).ok();
    let person = make_key(&s, &["--person", "ann"]);
    let server = serve(&s, &["--review-every", "0", "--ui-idle", "5"]);
    let person = &person;
    run(&server.base, |page| async move {
        page.log_in_as_person(person).await;
        page.find(&format!("tr#agent-{O}")).await;
        tokio::time::sleep(Duration::from_secs(7)).await;
        page.click(&format!("tr#agent-{O} a")).await;
        page.find("#login").await;
        assert_eq!(page.path().await, "/ui/login");
        assert!(!page.has("table.facts").await);
    });
}
