//! The agent's page in the browser as a person works through it: a reload
//! after a form posts nothing again (the form answered with a redirect),
//! and ten facts fit the first screen of a 1280 × 900 window, each row
//! with one line of actions.

use super::run;
use super::site::{O, Site};

#[test]
fn a_reload_after_a_form_posts_nothing_again() {
    let site = Site::with(&["Prefers tea", "Likes maps"]);
    let id = site.id_of("Prefers tea");
    let site = &site;
    run(&site.server.base, |page| async move {
        page.log_in_as_person(&site.person).await;
        page.goto(&format!("/ui/agents/{O}")).await;
        page.open_action(&id, "veto").await;
        page.fill(&format!("#veto-{id}"), "wrong about tea").await;
        page.submit_action(&id, "veto").await;
        page.row_in(&id, "vetoed").await;
        let archive = site.s.read_text(O, "archive.md");
        // The person reloads the page the form led to.
        super::bounded("reload the page", page.client().refresh()).await;
        page.row_in(&id, "vetoed").await;
        let alert = page.has("div.error[role=alert]").await;
        // Whatever the reload sent is in the server's log before this
        // page's line: one post in all, the form's, answered with a
        // redirect; the reload asked for the page.
        page.goto("/healthz").await;
        let log = site.server.lines_until("GET /healthz ");
        let posts: Vec<&String> = log
            .iter()
            .filter(|l| l.starts_with(&format!("POST /ui/agents/{O}/actions ")))
            .collect();
        assert_eq!(posts.len(), 1, "the reload posted again: {log:#?}");
        assert!(posts[0].contains(" 303 "), "{log:#?}");
        let shown = log
            .iter()
            .filter(|l| l.starts_with(&format!("GET /ui/agents/{O} 200 ")))
            .count();
        assert!(
            shown >= 3,
            "the page, its redirect and the reload: {log:#?}"
        );
        assert!(!alert, "the reloaded page shows an error");
        assert_eq!(site.s.read_text(O, "archive.md"), archive);
    });
}

#[test]
fn ten_facts_fit_the_first_screen_each_with_one_line_of_actions() {
    let texts: Vec<String> = (1..=10)
        .map(|i| format!("The build server number {i} runs the nightly jobs"))
        .collect();
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let site = Site::with(&refs);
    let site = &site;
    run(&site.server.base, |page| async move {
        super::bounded("size the window", page.client().set_window_size(1280, 900)).await;
        page.log_in_as_person(&site.person).await;
        page.goto(&format!("/ui/agents/{O}")).await;
        page.find("table.facts").await;
        // Each row's box, the window's height, and the middle of each
        // control a person sees in the row's actions (the folded forms
        // closed: their fields and buttons not shown).
        let v = page
            .eval(
                "const rows = [...document.querySelectorAll('table.facts tbody tr')];
                 return {
                   height: window.innerHeight,
                   rows: rows.map(r => {
                     const b = r.getBoundingClientRect();
                     const seen = [...r.querySelectorAll('td.actions summary, td.actions button')]
                       .filter(e => e.checkVisibility())
                       .map(e => { const c = e.getBoundingClientRect(); return (c.top + c.bottom) / 2; });
                     return {id: r.id, top: b.top, bottom: b.bottom, controls: seen};
                   })
                 };",
            )
            .await;
        let height = v["height"].as_f64().expect("the window's height");
        let rows = v["rows"].as_array().expect("the rows");
        assert_eq!(rows.len(), 10, "{v}");
        for r in rows {
            let bottom = r["bottom"].as_f64().expect("a row's bottom");
            assert!(
                bottom <= height,
                "{} ends at {bottom} px, past the first screen ({height} px): {v}",
                r["id"]
            );
            let middles: Vec<f64> = r["controls"]
                .as_array()
                .expect("the controls")
                .iter()
                .filter_map(|t| t.as_f64())
                .collect();
            assert_eq!(middles.len(), 5, "{}: {middles:?}", r["id"]);
            let (lo, hi) = middles
                .iter()
                .fold((f64::MAX, f64::MIN), |(lo, hi), t| (lo.min(*t), hi.max(*t)));
            assert!(
                hi - lo <= 4.0,
                "{}: the actions take more than one line: {middles:?}",
                r["id"]
            );
        }
        // The folded forms keep their labels: open one, its field is named.
        let id = site.id_of(&texts[0]);
        page.open_action(&id, "archive").await;
        let label = page.text(&format!("label[for=reason-{id}]")).await;
        assert_eq!(label, "Reason");
        assert!(
            page.has(&format!("tr#fact-{id} input#reason-{id}")).await,
            "the label's field is in the row"
        );
    });
}
