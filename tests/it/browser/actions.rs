//! A person's actions in the browser, checked in the page, in what the
//! agent's next run sees and in the files on disk: veto and Undo, archive
//! with a reason and unarchive, and a form submitted after the store
//! changed under it.

use std::io::Write;

use super::run;
use super::site::{O, Site};

#[test]
fn a_veto_leaves_the_snapshot_and_the_file_and_undo_brings_it_back() {
    let site = Site::with(&["Prefers tea", "Likes maps"]);
    let id = site.id_of("Prefers tea");
    let s = &site.s;
    let site = &site;
    run(&site.server.base, |page| async move {
        page.log_in_as_person(&site.person).await;
        page.goto(&format!("/ui/agents/{O}")).await;
        page.row_in(&id, "live").await;
        page.open_action(&id, "veto").await;
        page.fill(&format!("#veto-{id}"), "wrong about tea").await;
        page.submit_action(&id, "veto").await;
        page.row_in(&id, "vetoed").await;
        assert!(page.has("form[data-action=undo]").await, "Undo is offered");
        // Gone from the next run and from MEMORY.md, kept in archive.md.
        assert!(!site.snapshot().contains("Prefers tea"));
        assert!(!s.read_text(O, "MEMORY.md").contains("Prefers tea"));
        let archive = s.read_text(O, "archive.md");
        assert!(archive.contains("Prefers tea"), "{archive}");
        // The snapshot page agrees (in a tab of its own: the page the veto
        // left, with its Undo, stays as it is).
        let shown = page
            .in_new_tab(&format!("/ui/agents/{O}/snapshot"), "pre#snapshot")
            .await;
        assert!(!shown.contains("Prefers tea"), "{shown}");
        assert!(shown.contains("Likes maps"), "{shown}");
        // Undo, from the page the veto left.
        page.click("form[data-action=undo] button[type=submit]")
            .await;
        page.row_in(&id, "live").await;
        assert!(site.snapshot().contains("Prefers tea"));
        assert!(s.read_text(O, "MEMORY.md").contains("Prefers tea"));
        page.goto(&format!("/ui/agents/{O}/snapshot")).await;
        assert!(page.text("pre#snapshot").await.contains("Prefers tea"));
    });
}

#[test]
fn archive_with_a_reason_then_unarchive() {
    let site = Site::with(&["Prefers tea"]);
    let id = site.id_of("Prefers tea");
    let s = &site.s;
    let site = &site;
    run(&site.server.base, |page| async move {
        page.log_in_as_person(&site.person).await;
        page.goto(&format!("/ui/agents/{O}")).await;
        page.open_action(&id, "archive").await;
        page.fill(&format!("#reason-{id}"), "stale since May").await;
        page.submit_action(&id, "archive").await;
        page.row_in(&id, "archived").await;
        let row = page.text(&format!("tr#fact-{id}")).await;
        assert!(row.contains("reason: stale since May"), "{row}");
        assert!(!site.snapshot().contains("Prefers tea"));
        assert!(s.read_text(O, "archive.md").contains("stale since May"));
        // The status filter, a GET form, shows it among the archived.
        page.goto(&format!("/ui/agents/{O}?status=archived")).await;
        page.row_in(&id, "archived").await;
        page.submit_action(&id, "unarchive").await;
        page.row_in(&id, "live").await;
        assert!(site.snapshot().contains("Prefers tea"));
        assert!(s.read_text(O, "MEMORY.md").contains("Prefers tea"));
    });
}

#[test]
fn a_form_submitted_after_the_file_changed_is_refused_and_shows_it_as_it_is() {
    let site = Site::with(&["Prefers tea"]);
    let id = site.id_of("Prefers tea");
    let s = &site.s;
    let site = &site;
    run(&site.server.base, |page| async move {
        page.log_in_as_person(&site.person).await;
        page.goto(&format!("/ui/agents/{O}")).await;
        page.open_action(&id, "veto").await;
        // Between the page and the click, someone edits MEMORY.md by hand.
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(s.path(O, "MEMORY.md"))
            .expect("open MEMORY.md");
        f.write_all(b"\n- Likes maps\n")
            .expect("append to MEMORY.md");
        drop(f);
        page.submit_action(&id, "veto").await;
        assert_eq!(page.alert_code().await, "store_changed");
        // Nothing was done, and the page shows the store as it is now.
        page.row_in(&id, "live").await;
        assert!(page.text("table.facts").await.contains("Likes maps"));
        assert!(site.snapshot().contains("Prefers tea"));
        assert!(!s.read_or_empty(O, "archive.md").contains("Prefers tea"));
        // The form as the page shows it now goes through.
        page.open_action(&id, "veto").await;
        page.submit_action(&id, "veto").await;
        page.row_in(&id, "vetoed").await;
        assert!(!site.snapshot().contains("Prefers tea"));
    });
}
