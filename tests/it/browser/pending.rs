//! The pending page in the browser: under `writes: review` an agent's
//! saves wait; a person sees them on the page of every agent and on the
//! agent's own, each as a diff against the store with who asked for it;
//! approves one (reworded), rejects one with a reason, and the store and
//! PENDING.md change accordingly.

use super::run;
use super::site::{O, Site};

/// The `pending_id` of an agent's `add` that waited.
fn waits(site: &Site, text: &str) -> String {
    let v = site.s.json_ok(&["--owner", O, "add", text]);
    assert_eq!(v["status"], "pending", "{v}");
    v["pending_id"].as_str().expect("a pending id").to_owned()
}

#[test]
fn a_person_approves_one_write_edited_and_rejects_another_with_a_reason() {
    let site = Site::with(&["Prefers tea"]);
    std::fs::write(site.s.root.join("memdir.yaml"), "writes: review\n").unwrap();
    let keep = waits(&site, "Deploys go out on Tuesday");
    let drop = waits(&site, "Tabs are better than spaces");
    let old = site.id_of("Prefers tea");
    let v = site
        .s
        .json_ok(&["--owner", O, "replace", &old, "Prefers green tea"]);
    let swap = v["pending_id"].as_str().expect("a pending id").to_owned();
    let s = &site.s;
    let site = &site;
    run(&site.server.base, |page| async move {
        page.log_in_as_person(&site.person).await;
        // Every agent's page lists the three, the replace as a diff.
        page.click("nav a[href=\"/ui/pending\"]").await;
        for id in [&keep, &drop, &swap] {
            page.find(&format!("tr#pending-{id}[data-agent={O}]")).await;
        }
        let diff = page.text(&format!("tr#pending-{swap} pre.diff")).await;
        assert!(diff.contains("- Prefers tea"), "{diff}");
        assert!(diff.contains("+ Prefers green tea"), "{diff}");
        let by = page.text(&format!("tr#pending-{keep}")).await;
        assert!(by.contains(&format!("agent:{O}")), "{by}");
        // The agent's own page: approve one, reworded.
        page.goto(&format!("/ui/agents/{O}/pending")).await;
        let area = format!("tr#pending-{keep} textarea[name=text]");
        page.fill(&area, "Deploys go out on Tuesdays").await;
        page.click(&format!(
            "tr#pending-{keep} form[data-action=approve] button[type=submit]"
        ))
        .await;
        page.gone(&format!("tr#pending-{keep}")).await;
        page.find("div.notice").await;
        assert_eq!(page.path().await, format!("/ui/agents/{O}/pending"));
        let mem = s.read_text(O, "MEMORY.md");
        assert!(mem.contains("- Deploys go out on Tuesdays <!--"), "{mem}");
        assert!(site.snapshot().contains("Deploys go out on Tuesdays"));
        // Reject one with a reason.
        page.click(&format!(
            "tr#pending-{drop} details:has(form[data-action=reject]) > summary"
        ))
        .await;
        page.fill(
            &format!("tr#pending-{drop} input[name=reason]"),
            "a matter of taste",
        )
        .await;
        page.click(&format!(
            "tr#pending-{drop} form[data-action=reject] button[type=submit]"
        ))
        .await;
        page.gone(&format!("tr#pending-{drop}")).await;
        assert!(!s.read_text(O, "MEMORY.md").contains("Tabs"));
        let pending = s.read_text(O, "PENDING.md");
        assert!(pending.contains("status=rejected"), "{pending}");
        let shown = s.json_ok(&["--owner", O, "pending", "show", &drop]);
        assert_eq!(shown["status"], "rejected", "{shown}");
        assert_eq!(shown["reason"], "a matter of taste", "{shown}");
        assert_eq!(shown["decided_by"], "person:ann", "{shown}");
        // The replace still waits; the store still holds the old text.
        page.find(&format!("tr#pending-{swap}")).await;
        assert!(s.read_text(O, "MEMORY.md").contains("- Prefers tea <!--"));
    });
    // The rejected text is refused to the agent from then on.
    site.s
        .run(&["--json", "--owner", O, "add", "Tabs are better than spaces"])
        .json_error("memory_pending_rejected");
}
