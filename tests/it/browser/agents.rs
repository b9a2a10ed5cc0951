//! The agents page in the browser: one agent whose store is over its size
//! limit, and one whose settings cannot be read (their error quoting
//! markup), show the error in their own rows; the page lists everyone, the
//! other agents with their figures as usual, by id and sorted by a column.

use super::run;
use super::site::{O, Site};

#[test]
fn an_agent_whose_file_is_too_large_shows_the_error_in_its_row_only() {
    let site = Site::with(&["Prefers tea"]);
    let s = &site.s;
    s.run_as("agt_big", &["add", "A fact"]).ok();
    s.run_as("agt_cfg", &["add", "Another fact"]).ok();
    let big = format!("- A fact\n- {}\n", "y".repeat(1_100_000));
    s.write("agt_big", "MEMORY.md", big);
    s.write(
        "agt_cfg",
        "memdir.yaml",
        "budgets:\n  memory: \"<b>bold</b>\"\n",
    );
    let site = &site;
    run(&site.server.base, |page| async move {
        page.log_in_as_person(&site.person).await;
        for sorted in [false, true] {
            if sorted {
                page.goto("/ui/?sort=live").await;
                let current = page.text("table.agents th span[aria-current]").await;
                assert!(current.starts_with("Live"), "{current}");
            }
            assert!(!page.has("div.error[role=alert]").await, "sorted: {sorted}");
            assert_eq!(page.all("table.agents tbody tr").await.len(), 3);
            assert_eq!(
                page.attr("tr#agent-agt_big", "data-error").await.as_deref(),
                Some("file_too_large")
            );
            let cell = page.text("tr#agent-agt_big td.row-error").await;
            assert!(cell.starts_with("file_too_large (422): "), "{cell}");
            assert!(cell.contains("over the 1048576-byte limit"), "{cell}");
            // The message's markup is text, never elements.
            let cfg = page.text("tr#agent-agt_cfg td.row-error").await;
            assert!(cfg.starts_with("invalid_config (422): "), "{cfg}");
            assert!(cfg.contains("\"<b>bold</b>\""), "{cfg}");
            assert!(!page.has("tr#agent-agt_cfg b").await);
            // The other agent as usual.
            let mine = format!("tr#agent-{O}");
            assert_eq!(page.attr(&mine, "data-error").await, None);
            let live = page.text(&format!("{mine} td[data-label='Live']")).await;
            assert_eq!(live, "1");
            assert!(!page.has(&format!("{mine} td.row-error")).await);
        }
    });
}
