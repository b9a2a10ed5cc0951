//! Hostile text in the browser: entries, day lines, a recall query, a
//! skill's body and a result's content, and an agent id holding script tags, event handlers, `javascript:` links,
//! images pointing at a listener of the test, and template syntax. On every
//! page no script ran (`window.__pwned` stays undefined, no dialog is
//! open), the document holds no script, image or `javascript:` link, the
//! listener saw no connection, and the text shows literally.

use super::listener::Listener;
use super::site::{O, Site};
use super::{Page, run};

const SCRIPT: &str = "<script>window.__pwned='script';alert('script')</script>";
const IMG: &str = "<img src=x onerror=\"window.__pwned='img';alert('img')\">";
const MD_LINK: &str = "[open me](javascript:window.__pwned='link')";
const A_LINK: &str = "<a href=\"javascript:window.__pwned='a'\">open</a>";
const TEMPLATE: &str = "{{7*7}} and {% raw %}{{ chrome.csrf }}{% endraw %} ${7*7}";

/// Checks the page now: nothing ran, nothing active is in the document,
/// and each of `literal` is in its text as written.
async fn inert(page: &Page, what: &str, literal: &[&str]) {
    assert!(!page.dialog_open().await, "{what}: a dialog is open");
    let found = page
        .eval(
            "return [typeof window.__pwned, document.scripts.length, \
             document.images.length, \
             document.querySelectorAll('a[href^=\"javascript:\" i], [onerror], [onload]').length]",
        )
        .await;
    assert_eq!(found, serde_json::json!(["undefined", 0, 0, 0]), "{what}");
    // The document as the browser holds it: the markup is text in it.
    let html = page.html().await;
    for tag in ["<script", "<img", "<a href=\"javascript"] {
        assert!(!html.contains(tag), "{what}: {tag} in {html}");
    }
    let text = page.text("body").await;
    for l in literal {
        assert!(
            text.contains(l),
            "{what}: {l:?} not shown as text in {text}"
        );
    }
}

#[test]
fn hostile_text_shows_literally_and_nothing_runs_or_loads() {
    let trap = Listener::start("<!DOCTYPE html><title>trap</title>");
    let md_img = format!("![logo]({}/markdown.png)", trap.base);
    let raw_img = format!("<img src=\"{}/raw.png\">", trap.base);
    let site = Site::with(&[]);
    let entries = [
        format!("Says {SCRIPT} often"),
        format!("Wrote {IMG} once"),
        format!("Links {MD_LINK} and {A_LINK}"),
        format!("Shows {md_img} and {raw_img}"),
        format!("Templates {TEMPLATE}"),
    ];
    let memory: String = entries.iter().map(|e| format!("- {e}\n")).collect();
    site.s.write(O, "MEMORY.md", memory);
    for line in [
        format!("fact: {SCRIPT} and {IMG}"),
        format!("note: {md_img} {A_LINK} {TEMPLATE}"),
    ] {
        site.s.run_as(O, &["day", &line]).ok();
    }
    // A folder whose name is markup, beside the agent.
    let odd = "<img src=x onerror=\"window.__pwned='agent'\">";
    std::fs::create_dir(site.s.root.join(odd)).expect("a folder named with markup");
    site.s.write(odd, "MEMORY.md", "- hello\n");
    // A skill and a result holding the same.
    let skill = format!(
        "---\nname: odd\ndescription: Odd {SCRIPT}\n---\nStep {SCRIPT}\nThen {IMG}\nSee {md_img} and {raw_img}\n"
    );
    site.s.write(O, "skills/odd/SKILL.md", &skill);
    let result = format!("Page {SCRIPT}\n{IMG}\n{md_img}\n{raw_img}\n{A_LINK}\n");
    for (task, ctype) in [("plain", "text/plain"), ("html", "text/html")] {
        site.s
            .run_as_stdin(O, &["result", "put", "wf", task, "--type", ctype], &result)
            .ok();
    }
    let site = &site;
    run(&site.server.base, |page| async move {
        page.log_in_as_person(&site.person).await;
        inert(&page, "the agents page", &[O]).await;
        page.goto(&format!("/ui/agents/{O}/skills")).await;
        page.find("tr[data-skill=odd]").await;
        inert(&page, "the skills page", &[SCRIPT]).await;
        page.goto(&format!("/ui/agents/{O}/skills/odd")).await;
        page.find("pre#skill-body").await;
        inert(&page, "a skill's body", &[SCRIPT, IMG, &md_img, &raw_img]).await;
        for task in ["plain", "html"] {
            page.goto(&format!("/ui/agents/{O}/results?workflow=wf&task={task}"))
                .await;
            page.find("pre#result-content").await;
            inert(
                &page,
                &format!("the {task} result"),
                &[SCRIPT, IMG, &md_img, &raw_img, A_LINK],
            )
            .await;
        }
        page.goto(&format!("/ui/agents/{O}")).await;
        page.find("table.facts").await;
        inert(
            &page,
            "the facts page",
            &[SCRIPT, IMG, MD_LINK, A_LINK, &md_img, &raw_img, TEMPLATE],
        )
        .await;
        page.goto(&format!("/ui/agents/{O}/snapshot")).await;
        inert(&page, "the snapshot page", &[SCRIPT, IMG, A_LINK, TEMPLATE]).await;
        // A recall preview for a query that is itself markup.
        page.fill("#q", &format!("often {SCRIPT}")).await;
        page.click("form.filters button[type=submit]").await;
        page.find("pre#recall").await;
        inert(&page, "the recall preview", &[SCRIPT]).await;
        page.goto(&format!("/ui/agents/{O}/day")).await;
        page.find("li[data-lift=true]").await;
        inert(
            &page,
            "the day log",
            &[SCRIPT, IMG, &md_img, A_LINK, TEMPLATE],
        )
        .await;
        // An agent id that is markup, in the address: refused, shown inert.
        for id in [odd, SCRIPT] {
            let path = format!("/ui/agents/{}", urlencode(id));
            page.goto(&path).await;
            page.find("div.error[role=alert]").await;
            inert(&page, "an agent id of markup", &[]).await;
        }
        assert_eq!(
            trap.hits(),
            Vec::<String>::new(),
            "the planted images were fetched"
        );
    });
}

/// `s` percent-encoded for a path segment.
fn urlencode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}
