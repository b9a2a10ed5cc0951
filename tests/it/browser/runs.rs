//! A run's page and the skills page in the browser: a run made through
//! the command line (begun, a recall inside it, a fact saved inside it,
//! finished) shows the recall block it was given and the fact it wrote;
//! a skill is forgotten only once its confirmation is checked.

use super::run;
use super::site::{O, Site};

#[test]
fn a_run_page_shows_the_recall_block_it_was_given_and_what_it_wrote() {
    let site = Site::with(&["The staging deploy needs the VPN on"]);
    let s = &site.s;
    let begun = s.run_as(O, &["--json", "run", "begin"]).ok().json();
    let run_id = begun["run_id"].as_str().expect("run_id").to_owned();
    s.run_as(
        O,
        &[
            "recall",
            "--run",
            &run_id,
            "--query",
            "fix the staging deploy",
        ],
    )
    .ok();
    s.run_as(O, &["add", "--run", &run_id, "Staging needs a ticket too"])
        .ok();
    s.run_as(O, &["run", "finish", &run_id, "fixed staging"])
        .ok();
    let site = &site;
    let run_id = &run_id;
    run(&site.server.base, |page| async move {
        page.log_in_as_person(&site.person).await;
        page.goto(&format!("/ui/agents/{O}")).await;
        page.click("header nav a[href$='/runs']").await;
        page.find("table#runs").await;
        page.click(&format!("tr[data-run='{run_id}'] a")).await;
        let block = page.text("section#recall-1 pre.recall").await;
        assert!(block.contains("--- MEMORY ---"), "{block}");
        assert!(
            block.contains("The staging deploy needs the VPN on"),
            "{block}"
        );
        assert!(!page.has("section#recall-2").await);
        let wrote = page.text("ul#wrote").await;
        assert!(wrote.contains("Staging needs a ticket too"), "{wrote}");
        let snapshot = page.text("pre#snapshot").await;
        assert!(
            snapshot.contains("The staging deploy needs the VPN on"),
            "{snapshot}"
        );
        assert!(
            !snapshot.contains("Staging needs a ticket too"),
            "{snapshot}"
        );
        assert!(page.text("ul#journal").await.contains("fixed staging"));
    });
}

#[test]
fn a_skill_is_forgotten_only_with_its_confirmation() {
    let site = Site::with(&["Prefers tea"]);
    site.s
        .run_as_stdin(
            O,
            &[
                "skill",
                "learn",
                "deploy",
                "-",
                "--description",
                "Deploying",
            ],
            "# Deploy\n\n1. Check the VPN.\n",
        )
        .ok();
    let s = &site.s;
    let site = &site;
    run(&site.server.base, |page| async move {
        page.log_in_as_person(&site.person).await;
        page.goto(&format!("/ui/agents/{O}/skills")).await;
        page.click("tr[data-skill=deploy] a").await;
        assert!(page.text("pre#skill-body").await.contains("Check the VPN."));
        page.goto(&format!("/ui/agents/{O}/skills")).await;
        let form = "tr[data-skill=deploy] form[data-action=forget]";
        page.click("tr[data-skill=deploy] details > summary").await;
        // The box unchecked: the browser holds the form back.
        page.click(&format!("{form} button[type=submit]")).await;
        assert!(page.has("tr[data-skill=deploy]").await);
        assert!(s.path(O, "skills/deploy").exists());
        page.click(&format!("{form} input[name=confirm]")).await;
        page.click(&format!("{form} button[type=submit]")).await;
        let notice = page.text("div.notice").await;
        assert!(notice.contains("forgot the skill deploy"), "{notice}");
        assert!(!page.has("tr[data-skill=deploy]").await);
        assert!(!s.path(O, "skills/deploy").exists());
    });
}
