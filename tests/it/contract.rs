//! The command line's promises to people and agents (issue 12): it never
//! reaches the wrong memory silently, and `--json` keeps one contract (every
//! failure an `{"error":…}` object on stdout, the same names everywhere).

use serde_json::{Value, json};

use crate::util::{Sandbox, tree};
use memdir::entry_id;

const O: &str = "agt_1";

// ------------------------------------------------- never the wrong memory

#[test]
fn a_read_of_an_owner_the_root_does_not_hold_is_owner_not_found() {
    let s = Sandbox::new();
    s.run_as("agt_alpha", &["add", "a fact"]).ok();
    s.run_as("agt_beta", &["add", "b fact"]).ok();
    let reads: [&[&str]; 10] = [
        &["show"],
        &["list"],
        &["recall"],
        &["snapshot"],
        &["runs", "search", "x"],
        &["runs", "show", "run-1"],
        &["runs", "list"],
        &["result", "get", "wf", "t"],
        &["result", "get", "wf"],
        &["result", "wait", "wf", "t", "--timeout", "0"],
    ];
    for args in reads {
        // A typo of an owner: an error naming the root and its owners.
        let e = s
            .run(&[&["--owner", "agt_alpah", "--json"][..], args].concat())
            .json_error("owner_not_found");
        assert_eq!(e["status"], 404, "{args:?}");
        assert_eq!(e["owner"], "agt_alpah");
        assert_eq!(e["owners"], json!(["agt_alpha", "agt_beta"]), "{args:?}");
        assert_eq!(e["root"], s.root.display().to_string());
        let text = s
            .run(&[&["--owner", "agt_alpah"][..], args].concat())
            .text_error("owner_not_found");
        assert!(text.contains("agt_alpha, agt_beta"), "{text}");
    }
    assert!(!s.owner_dir("agt_alpah").exists(), "a read created nothing");
}

#[test]
fn owner_not_found_names_at_most_20_owners() {
    let s = Sandbox::new();
    for i in 0..23 {
        std::fs::create_dir(s.owner_dir(&format!("agt_{i:02}"))).expect("owner");
    }
    let e = s
        .run(&["--owner", "agt_zz", "--json", "show"])
        .json_error("owner_not_found");
    assert_eq!(e["owners"].as_array().map(Vec::len), Some(20));
    assert_eq!(e["more_owners"], 3);
    assert!(
        e["message"]
            .as_str()
            .is_some_and(|m| m.contains("and 3 more")),
        "{e}"
    );
}

#[test]
fn a_write_creates_an_owner_only_under_an_existing_root() {
    let s = Sandbox::rootless();
    let deep = s.dir.path().join("nonexistent/deep/x");
    let e = crate::util::run_at(&deep, &["--owner", O, "--json", "add", "x"])
        .json_error("root_not_found");
    assert_eq!(e["status"], 404);
    assert!(!s.dir.path().join("nonexistent").exists());
    // `init` makes the root (the whole path); then a write makes the owner.
    crate::util::run_at(&deep, &["init"]).ok();
    crate::util::run_at(&deep, &["--owner", O, "add", "x"]).ok();
    assert!(deep.join(O).join("MEMORY.md").is_file());
}

#[test]
fn a_person_names_one_owner_and_an_agent_alone_is_itself() {
    let s = Sandbox::new();
    s.run_as("agt_a", &["add", "a's fact"]).ok();
    s.run_as("agt_b", &["add", "b's fact"]).ok();
    // A person naming two different owners: a usage error, never one of
    // them silently.
    let r = s.run(&[
        "--person", "dana", "--owner", "agt_a", "--agent", "agt_b", "show",
    ]);
    let msg = r.usage_error();
    assert!(msg.contains("--owner agt_a and --agent agt_b"), "{msg}");
    s.run(&[
        "--person", "dana", "--owner", "agt_a", "--agent", "agt_b", "--json", "show",
    ])
    .json_usage_error();
    // The same owner twice is fine.
    s.run(&[
        "--person", "dana", "--owner", "agt_a", "--agent", "agt_a", "show",
    ])
    .ok();
    // An agent naming another agent stays memory_not_own.
    s.run(&["--owner", "agt_a", "--agent", "agt_b", "--json", "show"])
        .json_error("memory_not_own");
    // `--agent` alone is the agent itself.
    let v = s.json_ok(&["--agent", "agt_b", "show", "--in", "memory"]);
    assert_eq!(v["owner"], "agt_b");
    assert_eq!(v["stores"][0]["entries"][0]["text"], "b's fact");
}

#[test]
fn an_id_finds_its_entry_in_whichever_store_holds_it() {
    let s = Sandbox::new();
    s.run_as(O, &["add", "--to", "user", "Works in UTC"]).ok();
    s.run_as(O, &["add", "Deploys on Fridays"]).ok();
    let id = entry_id("user", "Works in UTC");
    // No --in: the default store is MEMORY.md, the id lives in USER.md.
    let r = s.run_as(O, &["remove", &id]).ok();
    assert_eq!(
        r.text(),
        format!("removed {id} from USER.md (0% — 0/1375 chars)\n")
    );
    assert_eq!(s.read_plain(O, "USER.md"), "");
    s.run_as(O, &["add", "--to", "user", "Likes green tea"])
        .ok();
    let id = entry_id("user", "Likes green tea");
    let v = s
        .run_as(O, &["--json", "replace", &id, "Likes black tea"])
        .ok()
        .json();
    assert_eq!(v["scope"], "user");
    assert_eq!(s.read_plain(O, "USER.md"), "- Likes black tea\n");
}

#[test]
fn a_substring_found_in_the_other_store_says_where() {
    let s = Sandbox::new();
    s.run_as(O, &["add", "--to", "user", "Likes black tea"])
        .ok();
    s.run_as(O, &["add", "Deploys on Fridays"]).ok();
    let e = s
        .run_as(O, &["--json", "remove", "black tea"])
        .json_error("memory_not_found");
    assert_eq!(e["found_in"], "USER.md");
    assert!(
        e["message"]
            .as_str()
            .is_some_and(|m| m.ends_with("found in USER.md; pass --in user")),
        "{e}"
    );
    // Matching is case-sensitive, and --help says so.
    let e = s
        .run_as(O, &["--json", "remove", "deploys", "--in", "memory"])
        .json_error("memory_not_found");
    assert_eq!(e["found_in"], Value::Null);
    let help = s.run(&["remove", "--help"]).ok().text();
    assert!(help.contains("case-sensitive"), "{help}");
    s.run_as(O, &["remove", "black tea", "--in", "user"]).ok();
}

#[test]
fn a_run_names_its_workflow_and_results_of_unknown_workflows_are_not_found() {
    let s = Sandbox::new();
    s.run_as(O, &["add", "exists"]).ok();
    // Unknown workflow: result_not_found (exit 1), not not_ready (exit 3).
    let e = s
        .run_as(O, &["--json", "result", "get", "crawl-7", "page"])
        .json_error("result_not_found");
    assert_eq!(e["workflow_id"], "crawl-7");
    let v = s
        .run_as(O, &["--json", "run", "begin", "--workflow", "crawl-7"])
        .ok()
        .json();
    let run = v["run_id"].as_str().expect("run_id").to_owned();
    assert_eq!(v["workflow_id"], "crawl-7");
    let record = s.read_text(O, &format!(".memdir/runs/{run}.json"));
    assert!(record.contains("\"workflow_id\": \"crawl-7\""), "{record}");
    // Known now: not ready yet.
    s.run_as(O, &["result", "get", "crawl-7", "page"])
        .text_error_exit("not_ready", 3);
    s.run_as(
        O,
        &["result", "put", "crawl-7", "page", "--file", "/dev/null"],
    )
    .ok();
    // The run's journal line names the workflow; runs show finds its steps.
    s.run_as(O, &["run", "finish", &run, "crawled"]).ok();
    let journal = s.read_text(O, "episodes.md");
    assert!(
        journal.contains(&format!("crawled (run {run}, workflow crawl-7)")),
        "{journal}"
    );
    let v = s.run_as(O, &["--json", "runs", "show", &run]).ok().json();
    assert_eq!(v["steps"][0]["task_id"], "page");
    assert_eq!(v["journal"][0]["workflow_id"], "crawl-7");
    assert_eq!(v["journal"][0]["run_id"], run);
}

#[test]
fn finishing_a_finished_run_is_run_finished_and_prefixes_name_runs() {
    let s = Sandbox::new();
    let a = s.run_as(O, &["--json", "run", "begin"]).ok().json()["run_id"]
        .as_str()
        .expect("id")
        .to_owned();
    let b = s.run_as(O, &["--json", "run", "begin"]).ok().json()["run_id"]
        .as_str()
        .expect("id")
        .to_owned();
    // Both begin with `run-2…`: ambiguous.
    let e = s
        .run_as(O, &["--json", "runs", "show", "run-"])
        .json_error("run_ambiguous");
    assert_eq!(e["candidates"].as_array().map(Vec::len), Some(2));
    // Open runs, newest first.
    let v = s
        .run_as(O, &["--json", "runs", "list", "--open"])
        .ok()
        .json();
    assert_eq!(v["count"], 2);
    assert_eq!(v["runs"][0]["run_id"], b);
    // A unique prefix finishes the run.
    let prefix = &a[..a.len() - 3];
    assert!(!b.starts_with(prefix), "the ids differ before their last 3");
    s.run_as(O, &["run", "finish", prefix, "done"]).ok();
    let e = s
        .run_as(O, &["--json", "run", "finish", &a, "again"])
        .json_error("run_finished");
    assert_eq!(e["run_id"], a);
    let journal = s.read_text(O, "episodes.md");
    assert_eq!(journal.matches(&a).count(), 1, "{journal}");
    let v = s
        .run_as(O, &["--json", "runs", "list", "--open"])
        .ok()
        .json();
    assert_eq!(v["runs"].as_array().map(Vec::len), Some(1));
    let text = s.run_as(O, &["runs", "list"]).ok().text();
    assert!(text.contains(&format!("{a}  started ")), "{text}");
    assert!(text.contains(" UTC, finished "), "{text}");
    assert!(text.contains(&format!("{b}  started ")) && text.contains(", open"));
}

// ---------------------------------------------------------- one contract

#[test]
fn every_failure_under_json_is_an_error_object_on_stdout() {
    let s = Sandbox::new();
    // clap's own errors: unknown flag, missing argument, bad value.
    for args in [
        &["--json", "--owner", O, "--bogus", "show"][..],
        &["--json", "--owner", O, "add"],
        &["--json", "--owner", O, "show", "--in", "both"],
        &[
            "--json", "--owner", O, "list", "--all", "--status", "active",
        ],
        // No owner.
        &["--json", "show"],
    ] {
        let msg = s.run(args).json_usage_error();
        assert!(!msg.is_empty(), "{args:?}");
    }
    // Without --json, the text on stderr as before.
    s.run(&["--owner", O, "--bogus", "show"]).usage_error();
    s.run(&["--owner", O, "list", "--all", "--status", "active"])
        .usage_error();
    // Help is not an error.
    let r = s.run(&["--json", "--help"]).ok();
    assert!(r.text().contains("Usage"), "{}", r.text());
}

#[test]
fn text_that_begins_with_a_dash_is_text() {
    let s = Sandbox::new();
    let v = s
        .run_as(O, &["--json", "add", "- already a bullet"])
        .ok()
        .json();
    assert_eq!(v["text"], "- already a bullet");
    s.run_as(O, &["replace", "- already", "-1 is a number"])
        .ok();
    let v = s
        .run_as(O, &["--json", "show", "--in", "memory"])
        .ok()
        .json();
    assert_eq!(v["stores"][0]["entries"][0]["text"], "-1 is a number");
    s.run_as(O, &["day", "-- a dashed line"]).ok();
    s.run_as(O, &["remove", "-1"]).ok();
}

#[test]
fn usage_is_one_object_and_a_run_id_one_key() {
    let s = Sandbox::new();
    let want_usage = |u: &Value| {
        assert!(u["used"].is_u64() && u["limit"].is_u64(), "{u}");
        assert!(
            u["text"].as_str().is_some_and(|t| t.ends_with(" chars")),
            "{u}"
        );
    };
    let v = s.run_as(O, &["--json", "add", "one"]).ok().json();
    want_usage(&v["usage"]);
    let v = s
        .run_as(O, &["--json", "replace", "one", "two"])
        .ok()
        .json();
    want_usage(&v["usage"]);
    let v = s
        .run_as_stdin(O, &["--json", "batch"], r#"[{"op":"add","text":"three"}]"#)
        .ok()
        .json();
    want_usage(&v["usage"]["memory"]);
    let v = s.run_as(O, &["--json", "remove", "two"]).ok().json();
    want_usage(&v["usage"]);
    let v = s.run_as(O, &["--json", "show"]).ok().json();
    want_usage(&v["stores"][0]["usage"]);
    // One key for a run id: run_id (begin, day lines, journal hits, rows).
    let run = s.run_as(O, &["--json", "run", "begin"]).ok().json()["run_id"]
        .as_str()
        .expect("run_id")
        .to_owned();
    let v = s
        .run_as(O, &["--json", "day", "searched the docs", "--run", &run])
        .ok()
        .json();
    assert_eq!(v["line"]["run_id"], run);
    assert!(v["line"].get("run").is_none(), "{v}");
    let v = s
        .run_as(O, &["--json", "runs", "search", "docs"])
        .ok()
        .json();
    assert_eq!(v["hits"][0]["run_id"], run);
    assert!(v["hits"][0].get("run").is_none(), "{v}");
    let v = s
        .run_as(O, &["--json", "list", "--kind", "fact"])
        .ok()
        .json();
    assert!(v["rows"][0].get("run_id").is_some(), "{v}");
    assert!(v["rows"][0].get("run").is_none(), "{v}");
}

#[test]
fn list_says_when_it_cuts_and_names_who_saved() {
    let s = Sandbox::new();
    let ops: Vec<String> = (0..5)
        .map(|i| format!(r#"{{"op":"add","text":"fact {i}"}}"#))
        .collect();
    s.run_as_stdin(O, &["batch"], format!("[{}]", ops.join(",")))
        .ok();
    let v = s.run_as(O, &["--json", "list", "--limit", "2"]).ok().json();
    assert_eq!(
        (v["count"].as_u64(), v["total"].as_u64()),
        (Some(2), Some(5))
    );
    assert_eq!(v["truncated"], true);
    // Saved in the same second: file order, not id order.
    assert_eq!(v["rows"][0]["text"], "fact 0");
    assert_eq!(v["rows"][1]["text"], "fact 1");
    let v = s.run_as(O, &["--json", "list"]).ok().json();
    assert_eq!(
        (v["total"].as_u64(), v["truncated"].as_bool()),
        (Some(5), Some(false))
    );
    let text = s.run_as(O, &["list", "--limit", "2"]).ok().text();
    assert!(text.contains("2 of 5 (use --limit"), "{text}");
    assert!(text.contains(&format!("by agent {O}")), "{text}");
    assert!(text.contains(" UTC  active"), "{text}");
    // A day row reads `day`, not `day day`.
    s.run_as(O, &["day", "a line"]).ok();
    let text = s.run_as(O, &["list", "--kind", "day"]).ok().text();
    assert!(
        text.contains("  day  ") && !text.contains("day day"),
        "{text}"
    );
}

#[test]
fn show_json_entries_carry_their_metadata_and_expired_ones_are_marked() {
    let s = Sandbox::new();
    s.run_as(O, &["add", "lasts", "--expires", "2999-01-01"])
        .ok();
    s.run_as(O, &["add", "gone", "--expires", "2000-01-01"])
        .ok();
    let v = s
        .run_as(O, &["--json", "show", "--in", "memory"])
        .ok()
        .json();
    let entries = v["stores"][0]["entries"].as_array().expect("entries");
    assert_eq!(entries[0]["expires"], "2999-01-01T23:59:59Z");
    assert_eq!(entries[0]["expired"], false);
    assert_eq!(entries[0]["by"], format!("agent:{O}"));
    assert!(
        entries[0]["created"]
            .as_str()
            .is_some_and(|c| c.ends_with('Z'))
    );
    assert_eq!(entries[0]["warnings"], json!([]));
    assert_eq!(entries[1]["expired"], true);
    let text = s.run_as(O, &["show", "--in", "memory"]).ok().text();
    let gone = text.lines().find(|l| l.contains("gone")).expect("gone");
    assert!(gone.contains("[expired"), "{text}");
    let lasts = text.lines().find(|l| l.contains("lasts")).expect("lasts");
    assert!(!lasts.contains("[expired"), "{text}");
    assert!(tree(&s.root).iter().any(|p| p.ends_with("MEMORY.md")));
}

// ------------------------------------------------------- say what it does

#[test]
fn expires_takes_never_and_days_and_help_says_the_default() {
    let s = Sandbox::new();
    s.run_as(O, &["add", "kept forever", "--expires", "never"])
        .ok();
    s.run_as(O, &["add", "a month", "--expires", "30d"]).ok();
    s.run_as(O, &["add", "the default"]).ok();
    let v = s
        .run_as(O, &["--json", "show", "--in", "memory"])
        .ok()
        .json();
    let e = &v["stores"][0]["entries"];
    assert_eq!(e[0]["expires"], Value::Null, "{v}");
    let days = |x: &Value| {
        let t =
            chrono::DateTime::parse_from_rfc3339(x.as_str().expect("expires")).expect("RFC 3339");
        (t.with_timezone(&chrono::Utc) - chrono::Utc::now()).num_days()
    };
    assert!((29..=30).contains(&days(&e[1]["expires"])), "{v}");
    assert!((89..=90).contains(&days(&e[2]["expires"])), "{v}");
    let err = s
        .run_as(O, &["add", "x", "--expires", "soonish"])
        .text_error("invalid_request");
    assert!(err.contains("30d") && err.contains("never"), "{err}");
    let help = s.run(&["add", "--help"]).ok().text();
    assert!(help.contains("90 days") && help.contains("never"), "{help}");
    assert!(help.contains("--to <memory|user>"), "{help}");
    let help = s.run(&["remove", "--help"]).ok().text();
    assert!(help.contains("--in <memory|user>"), "{help}");
}

#[test]
fn messages_name_flags_as_flags() {
    let s = Sandbox::new();
    s.run_as_stdin(O, &["result", "put", "wf", "t"], "one").ok();
    let e = s
        .run_as_stdin(O, &["result", "put", "wf", "t"], "two")
        .text_error("result_exists");
    assert!(e.contains("pass --overwrite"), "{e}");
}
