//! The harness itself: the browser reads what the real server answers, and
//! a failing test leaves its screenshot and HTML behind.

use super::{run, tools, try_run};
use crate::http::serve;
use crate::util::Sandbox;

#[test]
fn the_browser_reads_what_the_server_answers() {
    let s = Sandbox::new();
    let server = serve(&s, &[]);
    let said = server.get(None, "/healthz").json();
    run(&server.base, |page| async move {
        page.goto("/healthz").await;
        let shown: serde_json::Value =
            serde_json::from_str(&page.text("body").await).expect("the page shows JSON");
        assert_eq!(shown, said);
        assert_eq!(shown["status"], "ok");
        assert_eq!(page.path().await, "/healthz");
        // The same document the server serves at /openapi.json, read in
        // the page by the browser's own JSON parser.
        page.goto("/openapi.json").await;
        let paths = page
            .eval("return Object.keys(JSON.parse(document.body.innerText).paths)")
            .await;
        let paths = paths.as_array().expect("a list of paths");
        assert!(paths.iter().any(|p| p == "/healthz"), "{paths:?}");
    });
}

#[test]
fn a_failing_test_leaves_a_screenshot_and_the_page() {
    if tools().is_none() {
        return;
    }
    let s = Sandbox::new();
    let server = serve(&s, &[]);
    let failed = try_run(&server.base, |page| async move {
        page.goto("/healthz").await;
        let text = page.text("body").await;
        assert_eq!(text, "not what the server says", "forced to fail");
    });
    let f = failed.expect_err("the forced check failed");
    let why = f
        .panic
        .downcast_ref::<String>()
        .cloned()
        .unwrap_or_default();
    assert!(why.contains("forced to fail"), "{why}");
    let png = std::fs::read(&f.png).expect("the screenshot was saved");
    assert!(
        png.starts_with(b"\x89PNG\r\n\x1a\n"),
        "not a PNG: {:?}",
        &png[..png.len().min(8)]
    );
    let html = std::fs::read_to_string(&f.html).expect("the page was saved");
    assert!(html.contains("\"status\""), "{html}");
    // The folder is kept for a real failure; this one was on purpose.
    let dir = f.png.parent().expect("the test's folder").to_owned();
    assert!(
        dir.join("profile").is_dir(),
        "the browser's profile is in the test's folder"
    );
    std::fs::remove_dir_all(dir).expect("remove the kept folder");
}
