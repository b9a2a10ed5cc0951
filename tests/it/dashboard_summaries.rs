//! The dashboard's agents page on `api` alone (issue 40): its rows are one
//! `Request::AgentSummaries` the library answers, and the library keeps
//! their cache, keyed so it cannot serve stale data. Checked on the source
//! (the dashboard states no file and keeps no cache of its own) and on
//! behaviour: a store changed by hand to the same size, its modification
//! time put back, is seen at once — in-process and through the page.

use std::path::{Path, PathBuf};
use std::time::Duration;

use memdir::api::types::{AgentSummaries, SummarySort};
use memdir::api::types::{Caller, Store};
use memdir::api::{Request, Response, Who};

use crate::http::{make_key, serve};
use crate::ui::Browser;
use crate::util::Sandbox;

/// The dashboard's source folder.
fn ui_dir() -> PathBuf {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/src/ui")).to_owned()
}

/// Every `.rs` file under `dir`, with its text.
fn sources(dir: &Path) -> Vec<(PathBuf, String)> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).expect("read the folder") {
        let p = e.expect("an entry").path();
        if p.is_dir() {
            out.extend(sources(&p));
        } else if p.extension().is_some_and(|x| x == "rs") {
            let text = std::fs::read_to_string(&p).expect("read a source");
            out.push((p, text));
        }
    }
    out
}

#[test]
fn the_agents_page_states_no_file_and_keeps_no_cache_of_its_own() {
    let all = sources(&ui_dir());
    assert!(!all.is_empty());
    let mut wrong = Vec::new();
    for (p, text) in &all {
        let name = p.strip_prefix(ui_dir()).unwrap_or(p).display().to_string();
        // Stamps are the library's: no dashboard module states a file.
        for needle in [
            ".stamps(",
            "FileStamp",
            "std::thread::scope",
            "available_parallelism",
        ] {
            if text.contains(needle) {
                wrong.push(format!("{name}: {needle}"));
            }
        }
    }
    // The agents page's rows: no module of their own, one request.
    let stats = ui_dir().join("stats.rs");
    if let Ok(text) = std::fs::read_to_string(&stats) {
        for needle in ["stamps(", "file_sha256(", "Mutex", "HashMap"] {
            if text.contains(needle) {
                wrong.push(format!("stats.rs: {needle}"));
            }
        }
    }
    let agents = std::fs::read_to_string(ui_dir().join("pages/agents.rs")).expect("agents.rs");
    if !agents.contains("Request::AgentSummaries") {
        wrong.push("pages/agents.rs: no Request::AgentSummaries".into());
    }
    for needle in ["file_sha256(", "stamps("] {
        if agents.contains(needle) {
            wrong.push(format!("pages/agents.rs: {needle}"));
        }
    }
    // The dashboard's state holds no rows.
    let ui = std::fs::read_to_string(ui_dir().join("mod.rs")).expect("mod.rs");
    let state = ui
        .split("pub struct Ui {")
        .nth(1)
        .and_then(|s| s.split("\n}").next())
        .expect("the Ui struct");
    for needle in ["stats", "Cache", "Mutex<HashMap"] {
        if state.contains(needle) {
            wrong.push(format!("mod.rs: Ui holds {needle}"));
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
}

/// Past the file system's timestamp granularity (and the library's racy
/// margin), so what was just written may be kept.
fn settle() {
    std::thread::sleep(Duration::from_millis(400));
}

/// `MEMORY.md` rewritten by hand to `text` (the same size as before), its
/// modification time put back: only its change time tells.
fn rewrite_keeping_size_and_mtime(path: &Path, text: &str) {
    let before = std::fs::metadata(path).expect("stat");
    assert_eq!(before.len(), text.len() as u64, "the same size");
    let mtime = before.modified().expect("mtime");
    std::thread::sleep(Duration::from_millis(20));
    std::fs::write(path, text).expect("rewrite");
    let f = std::fs::File::options()
        .write(true)
        .open(path)
        .expect("open");
    f.set_modified(mtime).expect("put the mtime back");
    drop(f);
    let after = std::fs::metadata(path).expect("stat");
    assert_eq!(
        (after.len(), after.modified().expect("mtime")),
        (before.len(), mtime)
    );
}

const ONE: &str = "- aaaa bbbb\n";
const TWO: &str = "- aa\n- bbbb\n";

fn summaries(store: &Store) -> AgentSummaries {
    let who = Who {
        caller: Caller::Person("ann".into()),
        named: None,
        raw: false,
    };
    let request = Request::AgentSummaries {
        sort: SummarySort::Live,
        page: None,
        limit: None,
    };
    match memdir::api::execute(store, &who, request)
        .expect("the summaries")
        .into_inner()
    {
        Response::AgentSummaries(s) => s,
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_store_changed_to_the_same_size_and_mtime_is_seen_at_once_in_process() {
    let s = Sandbox::new();
    let path = s.write("agt_a", "MEMORY.md", ONE);
    settle();
    let store = Store::open(&s.root)
        .expect("open")
        .with_config_dir(crate::util::config_dir());
    let first = summaries(&store);
    assert_eq!((first.total, first.rows[0].live), (1, 1), "{first:?}");
    // Asked again (from the cache), the same.
    assert_eq!(summaries(&store), first);
    rewrite_keeping_size_and_mtime(&path, TWO);
    let now = summaries(&store);
    assert_eq!(now.rows[0].live, 2, "{now:?}");
    // A store opened afresh (as every page opens one) shares the cache
    // and sees the same.
    let again = Store::open(&s.root)
        .expect("open")
        .with_config_dir(crate::util::config_dir());
    settle();
    assert_eq!(summaries(&again).rows[0].live, 2);
    rewrite_keeping_size_and_mtime(&path, ONE);
    assert_eq!(summaries(&again).rows[0].live, 1);
}

/// The `Live` cell of `agent`'s row on the agents page.
fn live(page: &str, agent: &str) -> String {
    let at = page
        .find(&format!("<tr id=\"agent-{agent}\""))
        .unwrap_or_else(|| panic!("no row of {agent}: {page}"));
    let row = &page[at..];
    let cell = "data-label=\"Live\">";
    let from = row.find(cell).expect("a Live cell") + cell.len();
    row[from..].split('<').next().unwrap_or_default().to_owned()
}

#[test]
fn a_store_changed_to_the_same_size_and_mtime_is_seen_at_once_on_the_page() {
    let s = Sandbox::new();
    let path = s.write("agt_a", "MEMORY.md", ONE);
    s.write("agt_b", "MEMORY.md", "- one\n");
    settle();
    let person = make_key(&s, &["--person", "ann"]);
    let srv = serve(&s, &["--review-every", "0"]);
    let mut b = Browser::logged_in(&srv, &person);
    for path in ["/ui/", "/ui/?sort=live", "/ui/"] {
        let page = b.get(path);
        assert_eq!(page.status, 200, "{}", page.body);
        assert_eq!(live(&page.body, "agt_a"), "1", "{path}");
    }
    rewrite_keeping_size_and_mtime(&path, TWO);
    for path in ["/ui/?sort=live", "/ui/"] {
        let page = b.get(path);
        assert_eq!(live(&page.body, "agt_a"), "2", "{path}: {}", page.body);
        assert_eq!(live(&page.body, "agt_b"), "1", "{path}");
    }
}
