//! Memory dreaming in the browser: a past review listed with its changes
//! and their diffs, undone from the page (opened, confirmed), the fact back
//! on the agent's page, in the next run's snapshot and on disk.

use super::run;
use super::site::{O, Site};

#[test]
fn a_review_undone_from_the_dreaming_page_brings_the_fact_back() {
    let site = Site::with(&["Prefers tea"]);
    let s = &site.s;
    let id = s.add_expired(O, "MEMORY.md", "The old staging host is db-1");
    let review = s.json_ok(&["--owner", O, "review"]);
    let rid = review["review_id"].as_str().expect("review_id").to_owned();
    assert!(!s.read_text(O, "MEMORY.md").contains("db-1"));
    let site = &site;
    run(&site.server.base, |page| async move {
        page.log_in_as_person(&site.person).await;
        page.goto(&format!("/ui/agents/{O}/dreaming")).await;
        let item = format!("li.review[data-id='{rid}']");
        let change = format!("{item} li.change[data-kind=archived][data-id='{id}']");
        let shown = page.text(&change).await;
        assert!(shown.contains("The old staging host is db-1"), "{shown}");
        assert!(shown.contains("expired"), "{shown}");
        // The diff, opened: the entry as it left MEMORY.md, as text.
        page.click(&format!("{change} details > summary")).await;
        let diff = page.text(&format!("{change} pre.diff")).await;
        assert!(diff.contains("--- a/MEMORY.md"), "{diff}");
        assert!(
            diff.contains("-- The old staging host is db-1 <!-- memdir"),
            "{diff}"
        );
        // Undo: opened first, then confirmed.
        page.click(&format!(
            "{item} details:has(form[data-action=undo-review]) > summary"
        ))
        .await;
        page.click(&format!(
            "{item} form[data-action=undo-review] button[type=submit]"
        ))
        .await;
        page.find(&format!("li.review[data-id='{rid}'][data-undone=true]"))
            .await;
        let notice = page.text("div.notice").await;
        assert!(notice.contains("undid review"), "{notice}");
        // Back on disk, out of the archive, and on the agent's page.
        assert!(
            s.read_text(O, "MEMORY.md")
                .contains("The old staging host is db-1")
        );
        assert!(!s.read_text(O, "archive.md").contains("db-1"));
        page.goto(&format!("/ui/agents/{O}")).await;
        page.row_in(&id, "expired").await;
        let row = page.text(&format!("tr#fact-{id}")).await;
        assert!(row.contains("The old staging host is db-1"), "{row}");
    });
}
