//! The fact lifecycle through the real `memdir` binary on real files in temp
//! folders: every transition of the state table (docs/FORMAT.md, "States and
//! transitions"), every lifecycle error code with its HTTP status and exit
//! status, expiry, hand edits, recall counts and sessions, `list`, opt-in
//! curation and `init`.

use std::collections::BTreeSet;
use std::time::Duration;

use chrono::{DateTime, Utc};
use memdir::api::types::entry_id;
use memdir::internals::model::day_id;
use serde_json::Value;

use crate::util::Sandbox;

const A: &str = "agt_a";
const B: &str = "agt_b";
const P: &str = "alice";

/// The lifecycle tests' shorthands on the shared sandbox: an agent acting on
/// its own memory, with `--json` answers that must succeed.
trait Agent {
    /// `--owner OWNER --json ARGS…`; its JSON answer.
    fn agent(&self, owner: &str, args: &[&str]) -> Value;
    /// `list --json ARGS…` of an agent's own memory: the rows.
    fn rows(&self, owner: &str, args: &[&str]) -> Vec<Value>;
    /// Adds a fact to the agent's MEMORY.md; its id.
    fn add(&self, owner: &str, text: &str) -> String;
    /// The answer of `recall --json ARGS…` (see [`recalled`] for its ids).
    fn recall(&self, owner: &str, args: &[&str]) -> Value;
}

impl Agent for Sandbox {
    #[track_caller]
    fn agent(&self, owner: &str, args: &[&str]) -> Value {
        let mut all = vec!["--owner", owner];
        all.extend_from_slice(args);
        self.json_ok(&all)
    }

    #[track_caller]
    fn rows(&self, owner: &str, args: &[&str]) -> Vec<Value> {
        let mut all = vec!["list"];
        all.extend_from_slice(args);
        let v = self.agent(owner, &all);
        let rows = v["rows"].as_array().expect("rows").clone();
        assert_eq!(v["count"], rows.len(), "{v}");
        rows
    }

    #[track_caller]
    fn add(&self, owner: &str, text: &str) -> String {
        let v = self.agent(owner, &["add", text]);
        assert_eq!(v["message"], "added", "{v}");
        let id = v["id"].as_str().expect("id").to_owned();
        assert_eq!(id, mem(text));
        id
    }

    #[track_caller]
    fn recall(&self, owner: &str, args: &[&str]) -> Value {
        let mut all = vec!["recall"];
        all.extend_from_slice(args);
        self.agent(owner, &all)
    }
}

fn mem(text: &str) -> String {
    entry_id("memory", text)
}

fn ids(rows: &[Value]) -> Vec<String> {
    rows.iter()
        .map(|r| r["id"].as_str().expect("id").to_owned())
        .collect()
}

fn recalled(r: &Value) -> Vec<String> {
    r["facts"]
        .as_array()
        .expect("facts")
        .iter()
        .map(|f| f["id"].as_str().expect("id").to_owned())
        .collect()
}

#[track_caller]
fn row<'a>(rows: &'a [Value], id: &str) -> &'a Value {
    rows.iter()
        .find(|r| r["id"] == id)
        .unwrap_or_else(|| panic!("no row {id} in {rows:?}"))
}

#[track_caller]
fn time(v: &Value) -> DateTime<Utc> {
    let s = v.as_str().unwrap_or_else(|| panic!("not a time: {v}"));
    DateTime::parse_from_rfc3339(s)
        .unwrap_or_else(|e| panic!("{s}: {e}"))
        .with_timezone(&Utc)
}

/// The line of `file` that holds `text`, if any.
fn line_with<'a>(file: &'a str, text: &str) -> Option<&'a str> {
    file.lines().find(|l| l.contains(text))
}

/// Whole-second timestamps: waits for the clock's next second, so the
/// next `list` is a second later than what came before (the interval a
/// test of a time that must not move is about): the event, not a fixed
/// pause.
fn next_second() {
    let now = Utc::now().timestamp();
    while Utc::now().timestamp() == now {
        std::thread::sleep(Duration::from_millis(5));
    }
}

// ------------------------------------------------------------ transitions

#[test]
fn save_then_archive_with_reason_then_unarchive() {
    let r = Sandbox::new();
    let keep = r.add(A, "Prefers tabs over spaces in Go code");
    let id = r.add(A, "Production deploys happen on Fridays");
    let before = r.rows(A, &[]);
    assert_eq!(before.len(), 2);
    let live = row(&before, &id).clone();
    assert_eq!(live["status"], "active");
    assert_eq!(live["kind"], "fact");
    assert_eq!(live["saved_by_agent"], A);
    let original = line_with(&r.read_or_empty(A, "MEMORY.md"), "Fridays")
        .expect("saved line")
        .to_owned();
    assert!(original.contains(&format!(" agent={A}")), "{original}");

    let t = r.agent(
        A,
        &["archive", &id, "--reason", "we moved deploys to Tuesdays"],
    );
    assert_eq!(t["id"], id.as_str());
    assert_eq!(t["status"], "archived");
    assert_eq!(t["kind"], "plain");
    assert_eq!(t["message"], "archived");

    // Out of MEMORY.md, into archive.md with kind=plain and the reason.
    let memory = r.read_or_empty(A, "MEMORY.md");
    assert!(!memory.contains("Fridays"), "{memory}");
    assert!(memory.contains("Prefers tabs"), "{memory}");
    let archive = r.read_or_empty(A, "archive.md");
    let line = line_with(&archive, "Production deploys happen on Fridays").expect("archived");
    assert!(line.starts_with("- Production deploys happen on Fridays <!-- memdir "));
    for want in [
        "scope=memory",
        "kind=plain",
        &format!("archived_by=agent:{A}"),
        &format!("agent={A}"),
        "reason=\"we moved deploys to Tuesdays\"",
        " archived=",
        " created=",
    ] {
        assert!(line.contains(want), "{want} in {line}");
    }

    // list hides it; --all and --status archived show it with the reason.
    assert_eq!(ids(&r.rows(A, &[])), [keep.as_str()]);
    let all = r.rows(A, &["--all"]);
    assert_eq!(all.len(), 2);
    let a = row(&all, &id);
    assert_eq!(a["status"], "archived");
    assert_eq!(a["archive_kind"], "plain");
    assert_eq!(a["reason"], "we moved deploys to Tuesdays");
    assert_eq!(a["created_at"], live["created_at"]);
    assert!(a["archived_at"].is_string(), "{a}");
    let archived = r.rows(A, &["--status", "archived"]);
    assert_eq!(ids(&archived), [id.as_str()]);
    assert_eq!(archived[0]["reason"], "we moved deploys to Tuesdays");
    assert_eq!(ids(&r.rows(A, &["--status", "active"])), [keep.as_str()]);

    // Not recalled, not in the snapshot while archived.
    let rec = r.recall(A, &["--query", "production deploys fridays"]);
    assert!(!recalled(&rec).contains(&id), "{rec}");
    let snap = r.run(&["--owner", A, "snapshot"]);
    assert_eq!(snap.code, 0, "{snap:?}");
    assert!(!snap.text().contains("Fridays"), "{}", snap.text());

    // Unarchive: back in MEMORY.md with its metadata, out of archive.md.
    let t = r.agent(A, &["unarchive", &id]);
    assert_eq!(t["id"], id.as_str());
    assert_eq!(t["status"], "active");
    assert_eq!(t["message"], "unarchived");
    assert!(t.get("kind").is_none(), "{t}");
    let memory = r.read_or_empty(A, "MEMORY.md");
    let back = line_with(&memory, "Production deploys happen on Fridays").expect("back");
    for key in ["created=", "expires=", "agent="] {
        let token = |l: &str| {
            l.split_whitespace()
                .find(|t| t.starts_with(key))
                .map(str::to_owned)
        };
        assert_eq!(token(back), token(&original), "{key}: {back} vs {original}");
        assert!(token(back).is_some(), "{key} in {back}");
    }
    assert!(back.contains(" updated="), "{back}");
    for gone in ["kind=", "archived=", "reason=", "scope=", "archived_by="] {
        assert!(!back.contains(gone), "{gone} in {back}");
    }
    assert!(!r.read_or_empty(A, "archive.md").contains("Fridays"));
    let rows = r.rows(A, &["--all"]);
    assert_eq!(rows.len(), 2);
    let b = row(&rows, &id);
    assert_eq!(b["status"], "active");
    assert_eq!(b["created_at"], live["created_at"]);
    assert_eq!(b["expires_at"], live["expires_at"]);
    assert_eq!(b["reason"], Value::Null);
    let rec = r.recall(A, &["--query", "production deploys fridays"]);
    assert!(recalled(&rec).contains(&id), "{rec}");
}

#[test]
fn archive_twice_is_a_wrong_state_and_unarchive_of_a_live_fact_too() {
    let r = Sandbox::new();
    let id = r.add(A, "The VPN profile is called corp-staging");
    r.json_fail(&["--owner", A, "unarchive", &id], "memory_wrong_state", 409);
    r.agent(A, &["archive", &id, "--reason", "stale"]);
    let archive = r.read_or_empty(A, "archive.md");
    r.json_fail(
        &["--owner", A, "archive", &id, "--reason", "again"],
        "memory_wrong_state",
        409,
    );
    assert_eq!(r.read_or_empty(A, "archive.md"), archive);
}

#[test]
fn veto_by_a_person_and_only_a_person_brings_it_back() {
    let r = Sandbox::new();
    let id = r.add(A, "The user wants daily status emails");
    let pa = ["--person", P, "--agent", A];

    // An agent cannot veto.
    r.json_fail(&["--owner", A, "veto", &id], "memory_veto_human_only", 403);
    assert!(r.read_or_empty(A, "MEMORY.md").contains("daily status"));

    let mut args = pa.to_vec();
    args.extend(["veto", &id, "--reason", "I never asked for that"]);
    let t = r.json_ok(&args);
    assert_eq!(t["status"], "archived");
    assert_eq!(t["kind"], "vetoed");
    assert_eq!(t["message"], "vetoed");
    assert!(!r.read_or_empty(A, "MEMORY.md").contains("daily status"));
    let archive = r.read_or_empty(A, "archive.md");
    let line = line_with(&archive, "daily status").expect("vetoed");
    assert!(line.contains("kind=vetoed"), "{line}");
    assert!(line.contains(&format!("archived_by=person:{P}")), "{line}");
    assert!(line.contains("reason=\"I never asked for that\""), "{line}");
    let rows = r.rows(A, &["--status", "archived"]);
    assert_eq!(rows[0]["archive_kind"], "vetoed");
    assert_eq!(rows[0]["reason"], "I never asked for that");

    // The agent cannot bring it back; nothing moves.
    r.json_fail(
        &["--owner", A, "unarchive", &id],
        "memory_veto_human_only",
        403,
    );
    assert_eq!(r.read_or_empty(A, "archive.md"), archive);
    assert!(!r.read_or_empty(A, "MEMORY.md").contains("daily status"));

    // A person can.
    let mut args = pa.to_vec();
    args.extend(["unarchive", &id]);
    let t = r.json_ok(&args);
    assert_eq!(t["status"], "active");
    let memory = r.read_or_empty(A, "MEMORY.md");
    let line = line_with(&memory, "The user wants daily status emails").expect("back");
    assert!(line.contains(&format!("person={P}")), "{line}");
    assert!(line.contains(&format!("agent={A}")), "{line}");
    assert!(!r.read_or_empty(A, "archive.md").contains("daily status"));
    let rows = r.rows(A, &[]);
    assert_eq!(row(&rows, &id)["status"], "active");
    assert_eq!(row(&rows, &id)["person"], P);
}

#[test]
fn veto_without_a_reason_names_the_person() {
    let r = Sandbox::new();
    let id = r.add(A, "The user likes emoji in commit messages");
    let t = r.json_ok(&["--person", P, "--agent", A, "veto", &id]);
    assert_eq!(t["kind"], "vetoed");
    let rows = r.rows(A, &["--status", "archived"]);
    assert_eq!(rows[0]["reason"], format!("vetoed by {P}"));
}

#[test]
fn supersede_archives_the_old_fact_for_good() {
    let r = Sandbox::new();
    let old = r.add(A, "Production deploys happen on Fridays");
    let v = r.agent(
        A,
        &[
            "add",
            "Production deploys happen on Tuesdays",
            "--supersedes",
            &old,
        ],
    );
    let new = v["id"].as_str().expect("id").to_owned();
    assert_eq!(new, mem("Production deploys happen on Tuesdays"));
    assert_eq!(v["archived"], serde_json::json!([old]));

    let memory = r.read_or_empty(A, "MEMORY.md");
    assert!(!memory.contains("Fridays"), "{memory}");
    let line = line_with(&memory, "Tuesdays").expect("new");
    assert!(line.contains(&format!("supersedes={old}")), "{line}");
    let archive = r.read_or_empty(A, "archive.md");
    let line = line_with(&archive, "Fridays").expect("old");
    assert!(line.contains("kind=superseded"), "{line}");
    assert!(line.contains(&format!("superseded_by={new}")), "{line}");

    let rows = r.rows(A, &["--all"]);
    assert_eq!(rows.len(), 2);
    let o = row(&rows, &old);
    assert_eq!(o["status"], "archived");
    assert_eq!(o["archive_kind"], "superseded");
    assert_eq!(o["superseded_by"], new.as_str());
    let n = row(&rows, &new);
    assert_eq!(n["status"], "active");
    assert_eq!(n["supersedes"], old.as_str());

    // Never comes back; cannot be superseded again.
    let e = r.json_fail(&["--owner", A, "unarchive", &old], "memory_superseded", 409);
    assert_eq!(e["superseded_by"], new.as_str());
    r.json_fail(
        &[
            "--owner",
            A,
            "add",
            "Deploys happen daily",
            "--supersedes",
            &old,
        ],
        "memory_supersede_archived",
        409,
    );
    assert_eq!(r.read_or_empty(A, "archive.md"), archive);
    assert!(!r.read_or_empty(A, "MEMORY.md").contains("daily"));
    assert!(!r.read_or_empty(A, "MEMORY.md").contains("Fridays"));
}

#[test]
fn day_row_lifecycle() {
    let r = Sandbox::new();
    let d = r.agent(A, &["day", "fixed the staging deploy", "--task", "PIN-812"]);
    r.agent(A, &["day", "reviewed the flaky login test"]);
    let rows = r.rows(A, &["--kind", "day"]);
    assert_eq!(rows.len(), 1, "{rows:?}");
    let day = rows[0].clone();
    let id = day["id"].as_str().expect("id").to_owned();
    assert_eq!(day["id"], d["id"]);
    assert_eq!(day["kind"], "day");
    assert_eq!(day["status"], "active");
    let date = day["date"].as_str().expect("date").to_owned();
    assert_eq!(id, day_id(date.parse().expect("date")));
    let text = day["text"].as_str().expect("text").to_owned();
    assert!(
        text.contains("[PIN-812] fixed the staging deploy"),
        "{text}"
    );
    assert!(text.contains("reviewed the flaky login test"), "{text}");
    let episodes = r.read_or_empty(A, "episodes.md");

    // Archive it: out of episodes.md, into archive.md as scope=day.
    let t = r.agent(A, &["archive", &id, "--reason", "noise"]);
    assert_eq!(t["status"], "archived");
    assert!(!r.read_or_empty(A, "episodes.md").contains("flaky"));
    let archive = r.read_or_empty(A, "archive.md");
    assert!(archive.contains("scope=day"), "{archive}");
    assert!(archive.contains(&format!("date={date}")), "{archive}");
    assert!(archive.contains("fixed the staging deploy"), "{archive}");
    assert!(r.rows(A, &["--kind", "day"]).is_empty());
    let rows = r.rows(A, &["--kind", "day", "--all"]);
    assert_eq!(ids(&rows), [id.as_str()]);
    assert_eq!(rows[0]["status"], "archived");
    assert_eq!(rows[0]["kind"], "day");
    assert_eq!(rows[0]["date"], date.as_str());
    assert_eq!(rows[0]["reason"], "noise");
    assert_eq!(rows[0]["text"], text.as_str());
    let rec = r.recall(A, &[]);
    assert_eq!(rec["day_log"], serde_json::json!([]), "{rec}");

    // Unarchive: the day's lines are back, the row is active.
    let t = r.agent(A, &["unarchive", &id]);
    assert_eq!(t["status"], "active");
    assert_eq!(r.read_or_empty(A, "episodes.md"), episodes);
    assert!(!r.read_or_empty(A, "archive.md").contains("flaky"));
    let rows = r.rows(A, &["--kind", "day", "--all"]);
    assert_eq!(ids(&rows), [id.as_str()]);
    assert_eq!(rows[0]["status"], "active");
    assert_eq!(rows[0]["text"], text.as_str());
    let rec = r.recall(A, &[]);
    assert_eq!(rec["day_log"].as_array().map(Vec::len), Some(2), "{rec}");
}

// ------------------------------------------------------------ errors

#[test]
fn text_and_secret_refusals() {
    let r = Sandbox::new();
    let long = "x".repeat(501);
    let e = r.json_fail(&["--owner", A, "add", &long], "memory_text_too_long", 400);
    assert!(e["message"].as_str().unwrap_or("").contains("501"), "{e}");
    r.json_fail(
        &[
            "--owner",
            A,
            "add",
            "The deploy key is AKIAQ7X3LM9PZ2RT4VWY for the bucket",
        ],
        "secret_in_memory",
        400,
    );
    assert_eq!(r.read_or_empty(A, "MEMORY.md"), "");
    // 500 characters is fine.
    r.add(A, &"y".repeat(500));
}

#[test]
fn caller_rules() {
    let r = Sandbox::new();
    let id = r.add(A, "The user works from Lisbon");
    r.add(B, "Builds run on the arm64 fleet");
    let memory_a = r.read_or_empty(A, "MEMORY.md");

    // A person must name the agent, except for list.
    r.json_fail(
        &["--person", P, "add", "something"],
        "memory_agent_required",
        400,
    );
    r.json_fail(
        &["--person", P, "archive", &id, "--reason", "x"],
        "memory_agent_required",
        400,
    );
    // An agent may only name itself.
    r.json_fail(
        &["--owner", A, "--agent", B, "add", "mine now"],
        "memory_not_own",
        403,
    );
    r.json_fail(
        &["--owner", B, "--agent", A, "archive", &id, "--reason", "x"],
        "memory_not_own",
        403,
    );
    r.json_fail(&["--owner", B, "--agent", A, "list"], "memory_not_own", 403);
    assert_eq!(r.read_or_empty(A, "MEMORY.md"), memory_a);
    assert!(!r.read_or_empty(B, "MEMORY.md").contains("mine now"));
    // Naming itself is fine.
    let rows = r.rows(A, &["--agent", A]);
    assert_eq!(ids(&rows), [id.as_str()]);

    // Only an agent keeps a day log.
    r.json_fail(
        &["--person", P, "--agent", A, "day", "a person's line"],
        "memory_day_agent_only",
        403,
    );
    assert_eq!(r.read_or_empty(A, "episodes.md"), "");
}

#[test]
fn supersede_refusals() {
    let r = Sandbox::new();
    r.add(A, "Mine: releases are tagged on main");
    let theirs = r.add(B, "Theirs: releases are tagged on release branches");
    let memory_a = r.read_or_empty(A, "MEMORY.md");

    // Another agent's memory, named by a person.
    let e = r.json_fail(
        &[
            "--person",
            P,
            "--agent",
            A,
            "add",
            "Releases are tagged by CI",
            "--supersedes",
            &theirs,
        ],
        "memory_agent_mismatch",
        400,
    );
    assert_eq!(e["owner"], B);
    assert_eq!(r.read_or_empty(A, "MEMORY.md"), memory_a);
    assert!(r.read_or_empty(B, "MEMORY.md").contains("Theirs"));
    assert_eq!(r.read_or_empty(B, "archive.md"), "");
    // By the agent itself: unknown, as any id it does not hold.
    r.json_fail(
        &[
            "--owner",
            A,
            "add",
            "Releases are tagged by CI",
            "--supersedes",
            &theirs,
        ],
        "memory_not_found",
        404,
    );
    assert_eq!(r.read_or_empty(A, "MEMORY.md"), memory_a);

    // Unknown ids.
    r.json_fail(
        &[
            "--owner",
            A,
            "add",
            "Releases are tagged by CI",
            "--supersedes",
            "mem_000000000000",
        ],
        "memory_not_found",
        404,
    );
    r.json_fail(
        &["--owner", A, "archive", "mem_000000000000", "--reason", "x"],
        "memory_not_found",
        404,
    );
    r.json_fail(
        &["--owner", A, "unarchive", "mem_000000000000"],
        "memory_not_found",
        404,
    );
    r.json_fail(
        &["--person", P, "--agent", A, "veto", "mem_000000000000"],
        "memory_not_found",
        404,
    );
    // Another owner's id is unknown to archive.
    r.json_fail(
        &["--owner", A, "archive", &theirs, "--reason", "x"],
        "memory_not_found",
        404,
    );
    assert_eq!(r.read_or_empty(A, "MEMORY.md"), memory_a);

    // A day row is append-only.
    let d = r.agent(A, &["day", "started the migration"]);
    let rows = r.rows(A, &["--kind", "day"]);
    let day = rows[0]["id"].as_str().expect("id").to_owned();
    assert_eq!(d["id"], day.as_str());
    let episodes = r.read_or_empty(A, "episodes.md");
    r.json_fail(
        &[
            "--owner",
            A,
            "add",
            "The migration started",
            "--supersedes",
            &day,
        ],
        "memory_day_append_only",
        400,
    );
    assert_eq!(r.read_or_empty(A, "episodes.md"), episodes);
    assert_eq!(r.read_or_empty(A, "MEMORY.md"), memory_a);
}

#[test]
fn archive_reason_is_required_and_bounded() {
    let r = Sandbox::new();
    let id = r.add(A, "The user prefers short answers");
    let memory = r.read_or_empty(A, "MEMORY.md");
    let long = "r".repeat(501);
    let e = r.json_fail(
        &["--owner", A, "archive", &id, "--reason", &long],
        "memory_reason_invalid",
        400,
    );
    assert_eq!(e["chars"], 501);
    assert_eq!(e["limit"], 500);
    r.json_fail(
        &["--owner", A, "archive", &id, "--reason", "   "],
        "memory_reason_invalid",
        400,
    );
    assert_eq!(r.read_or_empty(A, "MEMORY.md"), memory);
    assert_eq!(r.read_or_empty(A, "archive.md"), "");
    // Without --reason at all it is a usage error (exit 2).
    let out = r.run(&["--owner", A, "archive", &id]);
    assert_eq!(out.code, 2, "{out:?}");
    // 500 characters is fine.
    let ok = "r".repeat(500);
    r.agent(A, &["archive", &id, "--reason", &ok]);
    assert_eq!(
        r.rows(A, &["--status", "archived"])[0]["reason"],
        ok.as_str()
    );
}

#[test]
fn day_log_fills_up() {
    let r = Sandbox::new();
    let mut appended = 0;
    let mut failed = None;
    for i in 0..30 {
        // 290 characters.
        let line = format!("{i:03} {}", "d".repeat(286));
        let before = r.read_or_empty(A, "episodes.md");
        let out = r.run(&["--owner", A, "--json", "day", &line]);
        if out.code == 0 {
            appended += 1;
            continue;
        }
        let e = r.json_fail(&["--owner", A, "day", &line], "memory_day_full", 409);
        assert_eq!(e["limit"], 8000);
        assert!(e["chars"].as_u64().is_some_and(|c| c > 8000), "{e}");
        assert_eq!(
            r.read_or_empty(A, "episodes.md"),
            before,
            "a refused line is not written"
        );
        failed = Some(i);
        break;
    }
    if r.rows(A, &["--kind", "day"]).len() > 1 {
        crate::util::not_run("crossed midnight while appending");
        return;
    }
    // "HH:MM " + 290 characters per line, joined by LF: 26 lines fit in 8,000.
    assert_eq!(appended, 26);
    assert_eq!(failed, Some(26));
}

/// docs/FORMAT.md: an archived day row comes back "only if its date has no
/// live log (`memory_day_exists`)". Found: `unarchive` locates the id among
/// the live day rows first (a live row and the archived one share the id of
/// their date), so it answers `memory_wrong_state` ("not archived") and the
/// `memory_day_exists` branch is never reached.
#[test]
fn day_row_unarchive_while_the_date_is_live_again() {
    let r = Sandbox::new();
    r.agent(A, &["day", "first run of the day"]);
    let id = r.rows(A, &["--kind", "day"])[0]["id"]
        .as_str()
        .expect("id")
        .to_owned();
    r.agent(A, &["archive", &id, "--reason", "wrong"]);
    r.agent(A, &["day", "second run of the day"]);
    // Today is live again (or, just past midnight, another date is live and
    // today is free: then unarchive succeeds and the test says so).
    let live = r.rows(A, &["--kind", "day"]);
    assert_eq!(live.len(), 1);
    if live[0]["id"] != id.as_str() {
        crate::util::not_run("crossed midnight between two day lines");
        return;
    }
    let archive = r.read_or_empty(A, "archive.md");
    let episodes = r.read_or_empty(A, "episodes.md");
    let e = r.json_fail(&["--owner", A, "unarchive", &id], "memory_day_exists", 409);
    assert_eq!(e["date"], live[0]["date"]);
    assert_eq!(r.read_or_empty(A, "archive.md"), archive);
    assert_eq!(r.read_or_empty(A, "episodes.md"), episodes);
    assert!(!episodes.contains("first run"));
}

#[test]
fn query_too_long() {
    let r = Sandbox::new();
    r.add(A, "The user prefers short answers");
    let q = "q".repeat(4001);
    let e = r.json_fail(
        &["--owner", A, "recall", "--query", &q],
        "memory_query_too_long",
        400,
    );
    assert_eq!(e["chars"], 4001);
    assert_eq!(e["limit"], 4000);
    // Nothing was counted.
    assert_eq!(r.rows(A, &[])[0]["recall_count"], 0);
    let q = "q".repeat(4000);
    r.recall(A, &["--query", &q]);
}

// ------------------------------------------------------------ expiry

#[test]
fn expired_facts_stay_listed_but_leave_recall_and_snapshot() {
    let r = Sandbox::new();
    let old = r.add_expired(
        A,
        "MEMORY.md",
        "Nightly backups run at 03:00 UTC on db-primary",
    );
    let live = r.add(A, "Weekly backups are verified on db-replica");
    let rows = r.rows(A, &[]);
    assert_eq!(rows.len(), 2);
    let o = row(&rows, &old);
    assert_eq!(o["expired"], true);
    assert_eq!(o["status"], "active");
    assert_eq!(o["expires_at"], "2000-01-01T23:59:59Z");
    assert_eq!(row(&rows, &live)["expired"], false);

    // Still in the file and in show.
    assert!(r.read_or_empty(A, "MEMORY.md").contains("Nightly backups"));
    let show = r.agent(A, &["show", "--in", "memory"]);
    assert!(show.to_string().contains("Nightly backups"), "{show}");

    // Not in the snapshot, not counted in its usage.
    let snap = r.run(&["--owner", A, "snapshot"]);
    assert_eq!(snap.code, 0, "{snap:?}");
    assert!(!snap.text().contains("Nightly"), "{}", snap.text());
    assert!(snap.text().contains("Weekly backups"), "{}", snap.text());
    let used = "- Weekly backups are verified on db-replica"
        .chars()
        .count();
    assert!(
        snap.text().contains(&format!("{used}/2200 chars")),
        "{}",
        snap.text()
    );

    // Not recalled, scored or listed as newest.
    let rec = r.recall(A, &["--query", "nightly backups db-primary"]);
    assert!(!recalled(&rec).contains(&old), "{rec}");
    let rec = r.recall(A, &["--query", "backups"]);
    assert_eq!(recalled(&rec), [live.as_str()], "{rec}");
    let rec = r.recall(A, &[]);
    assert_eq!(recalled(&rec), [live.as_str()], "{rec}");
    assert_eq!(row(&r.rows(A, &[]), &old)["recall_count"], 0);
}

#[test]
fn default_expiry_is_ninety_days_for_memory_and_never_for_user() {
    let r = Sandbox::new();
    let before = Utc::now();
    let m = r.add(A, "The release train leaves on Wednesdays");
    let u = r.agent(A, &["add", "--to", "user", "The user is called Sam"]);
    let u = u["id"].as_str().expect("id").to_owned();
    assert_eq!(u, entry_id("user", "The user is called Sam"));
    let after = Utc::now();
    let rows = r.rows(A, &[]);
    let exp = time(&row(&rows, &m)["expires_at"]);
    let lo = before + chrono::Duration::days(90) - chrono::Duration::seconds(60);
    let hi = after + chrono::Duration::days(90) + chrono::Duration::seconds(60);
    assert!(lo <= exp && exp <= hi, "{exp} not ~now+90d");
    let created = time(&row(&rows, &m)["created_at"]);
    assert_eq!(exp - created, chrono::Duration::days(90));
    assert_eq!(row(&rows, &u)["expires_at"], Value::Null);
    assert_eq!(row(&rows, &u)["scope"], "user");
    assert!(!r.read_or_empty(A, "USER.md").contains("expires="));
    assert!(r.read_or_empty(A, "MEMORY.md").contains("expires="));
}

#[test]
fn root_settings_change_the_default_expiry() {
    let r = Sandbox::new();
    std::fs::create_dir_all(&r.root).expect("root");
    std::fs::write(r.root.join("memdir.yaml"), "expiry_days:\n  memory: 10\n").expect("yaml");
    let m = r.add(A, "The release train leaves on Wednesdays");
    let rows = r.rows(A, &[]);
    let exp = time(&row(&rows, &m)["expires_at"]);
    let created = time(&row(&rows, &m)["created_at"]);
    assert_eq!(exp - created, chrono::Duration::days(10));
    let now = Utc::now();
    assert!(
        (exp - (now + chrono::Duration::days(10)))
            .num_seconds()
            .abs()
            < 60
    );
    // An explicit --expires wins.
    let v = r.agent(
        A,
        &[
            "add",
            "Freeze starts 2031-12-15",
            "--expires",
            "2031-12-31T12:00:00Z",
        ],
    );
    let rows = r.rows(A, &[]);
    assert_eq!(
        row(&rows, v["id"].as_str().expect("id"))["expires_at"],
        "2031-12-31T12:00:00Z"
    );
    // And an unreadable one is refused.
    r.json_fail(
        &["--owner", A, "add", "whenever", "--expires", "next week"],
        "invalid_expiry",
        400,
    );
}

// ------------------------------------------------------------ hand edits

#[test]
fn a_person_edits_memory_md_in_an_editor() {
    let r = Sandbox::new();
    let vpn = r.add(A, "The staging deploy needs the VPN on");
    let backups = r.add(A, "Nightly backups run at 03:00 UTC on db-primary");
    let tabs = r.add(A, "Prefers tabs over spaces in Go code");
    let before = r.rows(A, &[]);
    // Both are recalled before the edit.
    let rec = r.recall(A, &["--query", "nightly backups db-primary"]);
    assert!(recalled(&rec).contains(&backups), "{rec}");

    // The person rewrites the file: new text for one fact, a past expiry for another.
    let src = r.read_or_empty(A, "MEMORY.md");
    let edited: Vec<String> = src
        .lines()
        .map(|l| {
            if l.contains("Nightly backups") {
                l.split(' ')
                    .map(|t| {
                        if t.starts_with("expires=") {
                            "expires=2001-02-03"
                        } else {
                            t
                        }
                    })
                    .collect::<Vec<_>>()
                    .join(" ")
            } else {
                l.replace(
                    "The staging deploy needs the VPN on",
                    "The staging deploy needs the corporate VPN and a hardware token",
                )
            }
        })
        .collect();
    let edited = edited.join("\n") + "\n";
    assert_ne!(edited, src);
    assert!(edited.contains("expires=2001-02-03"), "{edited}");
    r.write(A, "MEMORY.md", &edited);

    let new_vpn = mem("The staging deploy needs the corporate VPN and a hardware token");
    let rows = r.rows(A, &[]);
    assert_eq!(rows.len(), 3);
    assert!(!ids(&rows).contains(&vpn));
    let n = row(&rows, &new_vpn);
    let o = row(&before, &vpn);
    assert_eq!(
        n["text"],
        "The staging deploy needs the corporate VPN and a hardware token"
    );
    assert_eq!(n["created_at"], o["created_at"]);
    assert_eq!(n["expires_at"], o["expires_at"]);
    assert_eq!(n["saved_by_agent"], A);
    assert_eq!(n["expired"], false);
    let b = row(&rows, &backups);
    assert_eq!(b["expired"], true);
    assert_eq!(b["expires_at"], "2001-02-03T23:59:59Z");
    assert_eq!(b["created_at"], row(&before, &backups)["created_at"]);
    assert_eq!(row(&rows, &tabs)["expired"], false);

    // Recall follows the file.
    let rec = r.recall(A, &["--query", "staging deploy hardware token"]);
    assert!(recalled(&rec).contains(&new_vpn), "{rec}");
    assert!(!recalled(&rec).contains(&vpn), "{rec}");
    let rec = r.recall(A, &["--query", "nightly backups db-primary"]);
    assert!(!recalled(&rec).contains(&backups), "{rec}");
    let snap = r.run(&["--owner", A, "snapshot"]);
    assert!(snap.text().contains("hardware token"), "{}", snap.text());
    assert!(!snap.text().contains("Nightly"), "{}", snap.text());
}

// ------------------------------------------------------------ recall counts

#[test]
fn recall_counts_sessions_and_stats_reset() {
    let r = Sandbox::new();
    let vpn = r.add(A, "The staging deploy needs the VPN on (PIN-812)");
    let tabs = r.add(A, "Prefers tabs over spaces in Go code");
    let q = "Fix the staging deploy for PIN-812";

    let first = r.recall(A, &["--query", q]);
    assert_eq!(first["skipped"], false);
    assert_eq!(recalled(&first), [vpn.as_str()], "{first}");
    r.recall(A, &["--query", q]);
    let rows = r.rows(A, &[]);
    assert_eq!(row(&rows, &vpn)["recall_count"], 2);
    let last = time(&row(&rows, &vpn)["last_recalled_at"]);
    assert!((Utc::now() - last).num_seconds().abs() < 60, "{last}");
    assert_eq!(row(&rows, &tabs)["recall_count"], 0);
    assert_eq!(row(&rows, &tabs)["last_recalled_at"], Value::Null);

    // A session's start-of-run recall happens once.
    let s1 = r.recall(A, &["--query", q, "--session", "S1"]);
    assert_eq!(s1["skipped"], false);
    assert_eq!(recalled(&s1), [vpn.as_str()]);
    let s2 = r.recall(A, &["--query", q, "--session", "S1"]);
    assert_eq!(s2["skipped"], true, "{s2}");
    assert_eq!(s2["facts"], serde_json::json!([]));
    assert_eq!(s2["block"], "");
    assert_eq!(row(&r.rows(A, &[]), &vpn)["recall_count"], 3);
    // On demand: not skipped, counted, and the session stays skipped.
    let od = r.recall(A, &["--query", q, "--session", "S1", "--on-demand"]);
    assert_eq!(od["skipped"], false, "{od}");
    assert_eq!(recalled(&od), [vpn.as_str()]);
    assert_eq!(row(&r.rows(A, &[]), &vpn)["recall_count"], 4);
    let s3 = r.recall(A, &["--query", q, "--session", "S1"]);
    assert_eq!(s3["skipped"], true, "{s3}");
    assert_eq!(row(&r.rows(A, &[]), &vpn)["recall_count"], 4);
    // Another session is not skipped.
    let other = r.recall(A, &["--query", q, "--session", "S2"]);
    assert_eq!(other["skipped"], false);
    assert_eq!(row(&r.rows(A, &[]), &vpn)["recall_count"], 5);
    // An on-demand recall of a new session does not start its skip.
    r.recall(A, &["--query", q, "--session", "S3", "--on-demand"]);
    let s3 = r.recall(A, &["--query", q, "--session", "S3"]);
    assert_eq!(s3["skipped"], false, "{s3}");

    // Text output says it was skipped.
    let out = r.run(&["--owner", A, "recall", "--query", q, "--session", "S1"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.text().contains("skipped"), "{}", out.text());

    // Deleting stats.json resets counts (and sessions) without breaking anything.
    let stats = r.path(A, ".memdir/stats.json");
    assert!(stats.is_file());
    std::fs::remove_file(&stats).expect("remove stats");
    let rows = r.rows(A, &[]);
    assert_eq!(rows.len(), 2);
    for row in &rows {
        assert_eq!(row["recall_count"], 0, "{row}");
        assert_eq!(row["last_recalled_at"], Value::Null, "{row}");
    }
    let again = r.recall(A, &["--query", q, "--session", "S1"]);
    assert_eq!(again["skipped"], false);
    assert_eq!(recalled(&again), [vpn.as_str()]);
    assert_eq!(row(&r.rows(A, &[]), &vpn)["recall_count"], 1);
    // A garbage stats.json counts as zeros too.
    std::fs::write(&stats, "{not json").expect("write");
    assert_eq!(row(&r.rows(A, &[]), &vpn)["recall_count"], 0);
    r.recall(A, &["--query", q]);
    assert_eq!(row(&r.rows(A, &[]), &vpn)["recall_count"], 1);
}

// ------------------------------------------------------------ list

#[test]
fn list_is_newest_first_with_limits_and_kinds() {
    let r = Sandbox::new();
    // Saved a minute apart (by hand: timestamps are whole seconds).
    let a = r.add_created(A, "MEMORY.md", "First: the user lives in Porto", 180);
    let b = r.add_created(A, "MEMORY.md", "Second: the user cycles to work", 120);
    let c = r.add(A, "Third: the user drinks green tea");
    assert_eq!(ids(&r.rows(A, &[])), [c.clone(), b.clone(), a.clone()]);
    assert_eq!(ids(&r.rows(A, &["--limit", "2"])), [c.clone(), b.clone()]);
    assert_eq!(ids(&r.rows(A, &["--limit", "9999"])).len(), 3);

    // Day rows: only with --kind day (or no --kind).
    let d = r.agent(A, &["day", "tidied the notes"]);
    let day = d["id"].as_str().expect("id").to_owned();
    let days = r.rows(A, &["--kind", "day"]);
    assert_eq!(ids(&days), [day.as_str()]);
    assert_eq!(days[0]["kind"], "day");
    let facts = r.rows(A, &["--kind", "fact"]);
    assert_eq!(ids(&facts), [c.clone(), b.clone(), a.clone()]);
    assert!(facts.iter().all(|f| f["kind"] == "fact"));
    assert_eq!(r.rows(A, &[]).len(), 4);

    // Text output: one line per row, newest first.
    let out = r.run(&["--owner", A, "list", "--kind", "fact"]);
    assert_eq!(out.code, 0, "{out:?}");
    let pos = |id: &str| out.text().find(id).unwrap_or(usize::MAX);
    assert!(pos(&c) < pos(&b) && pos(&b) < pos(&a), "{}", out.text());
}

#[test]
fn list_limit_is_clamped_to_500() {
    let r = Sandbox::new();
    let body: String = (0..600)
        .map(|i| format!("- hand fact number {i}\n"))
        .collect();
    r.write(A, "MEMORY.md", &body);
    assert_eq!(r.rows(A, &[]).len(), 100);
    assert_eq!(r.rows(A, &["--limit", "9999"]).len(), 500);
    assert_eq!(r.rows(A, &["--limit", "500"]).len(), 500);
    assert_eq!(r.rows(A, &["--limit", "499"]).len(), 499);
    let all = r.json_ok(&["--person", P, "list", "--limit", "9999"]);
    assert_eq!(all["count"], 500);
}

#[test]
fn a_person_lists_every_owner() {
    let r = Sandbox::new();
    let a = r.add_created(A, "MEMORY.md", "Agent A: the user prefers Rust", 60);
    let b = r.add(B, "Agent B: the user prefers Go");
    let v = r.json_ok(&["--person", P, "list"]);
    let rows = v["rows"].as_array().expect("rows");
    assert_eq!(v["count"], 2);
    assert_eq!(ids(rows), [b.clone(), a.clone()]);
    assert_eq!(row(rows, &a)["agent"], A);
    assert_eq!(row(rows, &b)["agent"], B);
    // Naming one owner lists only it.
    let v = r.json_ok(&["--person", P, "--agent", A, "list"]);
    assert_eq!(ids(v["rows"].as_array().expect("rows")), [a.as_str()]);
    // An agent sees only its own.
    assert_eq!(ids(&r.rows(B, &[])), [b.as_str()]);
    // --limit applies across owners.
    let v = r.json_ok(&["--person", P, "list", "--limit", "1"]);
    assert_eq!(ids(v["rows"].as_array().expect("rows")), [b.as_str()]);
}

// ------------------------------------------------------------ curation

const CURATED: [&str; 6] = [
    "Kangaroo cluster: the analytics warehouse export lands in bucket gs://kangaroo-exports by 04:00 UTC daily.",
    "Falcon service: the mobile push gateway retries failed notifications three times with ten seconds of backoff.",
    "Walrus repo: frontend builds use pnpm workspaces and the lockfile must be committed along with package.json.",
    "Otter team: the on-call handoff happens every Monday at 10:00 in the ops-handoff channel with a summary.",
    "Heron pipeline: the data quality checks page the data team when more than two percent of rows fail.",
    "Badger hosts: the build cache on the CI runners is pruned every Sunday night to keep disk usage low.",
];

/// What the first `n` facts of [`CURATED`] use by the budget rule.
fn block(n: usize) -> usize {
    CURATED[..n]
        .iter()
        .map(|t| t.chars().count() + 2)
        .sum::<usize>()
        + n
        - 1
}

/// MEMORY.md with front matter `budget: 500` and the first four facts, made by
/// hand with increasing creation times.
fn curated_memory() -> String {
    let mut s = String::from("---\nbudget: 500\ntitle: notes\n---\n\n");
    for (i, t) in CURATED[..4].iter().enumerate() {
        s.push_str(&format!(
            "- {t} <!-- memdir created=2020-01-0{}T00:00:00Z agent={A} -->\n",
            i + 1
        ));
    }
    s
}

#[test]
fn curation_archives_the_least_recently_recalled_first() {
    let r = Sandbox::new();
    r.write(A, "memdir.yaml", "curation: auto\n");
    r.write(A, "MEMORY.md", curated_memory());
    let id: Vec<String> = CURATED.iter().map(|t| mem(t)).collect();
    assert_eq!(r.rows(A, &[]).len(), 4);
    // The budget rule ("- " + text, joined by LF): four facts fit in 500.
    let show = r.agent(A, &["show", "--in", "memory"]);
    assert_eq!(show["stores"][0]["usage"]["used"], block(4), "{show}");
    assert_eq!(show["stores"][0]["usage"]["limit"], 500, "{show}");

    // Recall the oldest fact, so that it is not the least recently recalled.
    let rec = r.recall(A, &["--query", "kangaroo exports"]);
    assert_eq!(recalled(&rec), [id[0].as_str()], "{rec}");

    let v = r.agent(A, &["add", CURATED[4]]);
    assert_eq!(v["message"], "added");
    assert_eq!(v["archived"], serde_json::json!([id[1]]), "{v}");
    let out = r.run(&["--owner", A, "add", CURATED[5]]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(
        out.text().contains(&format!("archived {}", id[2])),
        "{}",
        out.text()
    );

    let memory = r.read_or_empty(A, "MEMORY.md");
    let archive = r.read_or_empty(A, "archive.md");
    assert!(
        memory.starts_with("---\nbudget: 500\ntitle: notes\n---\n"),
        "{memory}"
    );
    for (i, t) in CURATED.iter().enumerate() {
        let live = memory.contains(t);
        let gone = archive.contains(t);
        assert!(live != gone, "{t}: live {live}, archived {gone}");
        assert_eq!(gone, i == 1 || i == 2, "{t}");
    }
    for t in &CURATED[1..3] {
        let line = line_with(&archive, t).expect("archived");
        assert!(line.contains("reason=\"curated: over budget\""), "{line}");
        assert!(line.contains("kind=plain"), "{line}");
        assert!(line.contains("created=2020-01-0"), "{line}");
    }
    let archived = r.rows(A, &["--status", "archived"]);
    assert_eq!(
        ids(&archived).into_iter().collect::<BTreeSet<_>>(),
        [id[1].clone(), id[2].clone()].into_iter().collect()
    );
    assert!(
        archived
            .iter()
            .all(|a| a["reason"] == "curated: over budget")
    );
    let live = r.rows(A, &[]);
    assert_eq!(
        ids(&live).into_iter().collect::<BTreeSet<_>>(),
        [&id[0], &id[3], &id[4], &id[5]]
            .into_iter()
            .cloned()
            .collect()
    );
    let show = r.agent(A, &["show", "--in", "memory"]);
    let used = show["stores"][0]["usage"]["used"].as_u64().unwrap_or(0);
    assert!(used > 0 && used <= 500, "{show}");
    // Curated facts come back like any archived one.
    r.agent(A, &["archive", &id[3], "--reason", "make room"]);
    r.agent(A, &["unarchive", &id[1]]);
    assert!(r.read_or_empty(A, "MEMORY.md").contains(CURATED[1]));
}

#[test]
fn without_curation_an_over_budget_add_is_refused() {
    let r = Sandbox::new();
    r.write(A, "MEMORY.md", curated_memory());
    let before = r.read_or_empty(A, "MEMORY.md");
    let e = r.json_fail(
        &["--owner", A, "add", CURATED[4]],
        "memory_over_budget",
        409,
    );
    assert_eq!(e["limit"], 500);
    assert_eq!(e["used"], block(4));
    assert_eq!(e["would_use"], block(5));
    assert_eq!(e["entries"].as_array().map(Vec::len), Some(4), "{e}");
    assert_eq!(r.read_or_empty(A, "MEMORY.md"), before);
    assert!(!r.path(A, "archive.md").exists());
    // curation: off says the same.
    r.write(A, "memdir.yaml", "curation: off\n");
    r.json_fail(
        &["--owner", A, "add", CURATED[4]],
        "memory_over_budget",
        409,
    );
    assert_eq!(r.read_or_empty(A, "MEMORY.md"), before);
}

// ------------------------------------------------------------ init

#[test]
fn init_creates_the_root_and_gitignore_once() {
    let r = Sandbox::rootless();
    assert!(!r.root.exists());
    let v = r.json_ok(&["init"]);
    assert_eq!(v["gitignore"], true);
    assert!(r.root.is_dir());
    let gi = std::fs::read_to_string(r.root.join(".gitignore")).expect("gitignore");
    assert_eq!(
        gi.lines().filter(|l| l.trim() == ".memdir/").count(),
        1,
        "{gi}"
    );
    let v = r.json_ok(&["init"]);
    assert_eq!(v["gitignore"], false);
    let again = std::fs::read_to_string(r.root.join(".gitignore")).expect("gitignore");
    assert_eq!(again, gi);
    // A person's own .gitignore keeps its lines.
    let other = Sandbox::new();
    std::fs::create_dir_all(&other.root).expect("root");
    std::fs::write(other.root.join(".gitignore"), "*.swp").expect("write");
    let out = other.run(&["init"]);
    assert_eq!(out.code, 0, "{out:?}");
    let gi = std::fs::read_to_string(other.root.join(".gitignore")).expect("gitignore");
    assert!(gi.starts_with("*.swp\n"), "{gi}");
    assert_eq!(
        gi.lines().filter(|l| l.trim() == ".memdir/").count(),
        1,
        "{gi}"
    );
    other.run(&["init"]);
    assert_eq!(
        std::fs::read_to_string(other.root.join(".gitignore")).expect("gitignore"),
        gi
    );
}

#[test]
fn user_facts_archive_and_come_back_to_user_md() {
    let r = Sandbox::new();
    let v = r.agent(A, &["add", "--to", "user", "The user is called Sam"]);
    let id = v["id"].as_str().expect("id").to_owned();
    assert_eq!(id, entry_id("user", "The user is called Sam"));
    // A person archives it; the reason may hold anything, even `-->`.
    let reason = "wrong --> \"Sam\" is <the cat>";
    let t = r.json_ok(&[
        "--person", P, "--agent", A, "archive", &id, "--reason", reason,
    ]);
    assert_eq!(t["kind"], "plain");
    assert!(!r.read_or_empty(A, "USER.md").contains("Sam"));
    let archive = r.read_or_empty(A, "archive.md");
    let line = line_with(&archive, "The user is called Sam").expect("archived");
    assert!(line.contains("scope=user"), "{line}");
    assert!(line.contains(&format!("archived_by=person:{P}")), "{line}");
    assert_eq!(line.matches("-->").count(), 1, "{line}");
    let rows = r.rows(A, &["--status", "archived"]);
    assert_eq!(ids(&rows), [id.as_str()]);
    assert_eq!(rows[0]["scope"], "user");
    assert_eq!(rows[0]["reason"], reason);
    r.agent(A, &["unarchive", &id]);
    assert!(
        r.read_or_empty(A, "USER.md")
            .contains("- The user is called Sam <!-- memdir")
    );
    assert!(!r.read_or_empty(A, "MEMORY.md").contains("Sam"));
    let rows = r.rows(A, &[]);
    assert_eq!(row(&rows, &id)["scope"], "user");
    assert_eq!(row(&rows, &id)["expires_at"], Value::Null);
}

#[test]
fn an_expiry_date_means_the_end_of_that_utc_day() {
    let r = Sandbox::new();
    let tomorrow = (Utc::now() + chrono::Duration::days(1)).date_naive();
    let d = tomorrow.to_string();
    let v = r.agent(
        A,
        &["add", "Code freeze until tomorrow night", "--expires", &d],
    );
    let rows = r.rows(A, &[]);
    let f = row(&rows, v["id"].as_str().expect("id"));
    assert_eq!(f["expires_at"], format!("{d}T23:59:59Z"));
    assert_eq!(f["expired"], false);
    let rec = r.recall(A, &["--query", "code freeze"]);
    assert_eq!(recalled(&rec).len(), 1, "{rec}");
}

#[test]
fn a_session_skip_lasts_24_hours() {
    let r = Sandbox::new();
    let id = r.add(A, "The staging deploy needs the VPN on (PIN-812)");
    let q = "Fix the staging deploy for PIN-812";
    r.recall(A, &["--query", q, "--session", "S1"]);
    let stats = r.path(A, ".memdir/stats.json");
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&stats).expect("stats"))
        .expect("stats.json is JSON");
    assert!(v["sessions"]["S1"].is_string(), "{v}");
    assert_eq!(v["facts"][&id]["recall_count"], 1, "{v}");
    // The session's last start-of-run recall 23 hours ago: still skipped.
    let set = |hours: i64| {
        let mut v = v.clone();
        let t = Utc::now() - chrono::Duration::hours(hours);
        v["sessions"]["S1"] = Value::String(t.to_rfc3339());
        std::fs::write(&stats, v.to_string()).expect("write stats");
    };
    set(23);
    assert_eq!(
        r.recall(A, &["--query", q, "--session", "S1"])["skipped"],
        true
    );
    // 25 hours ago: it recalls again.
    set(25);
    let again = r.recall(A, &["--query", q, "--session", "S1"]);
    assert_eq!(again["skipped"], false, "{again}");
    assert_eq!(recalled(&again), [id.as_str()]);
    assert_eq!(row(&r.rows(A, &[]), &id)["recall_count"], 2);
}

/// Superseding a fact with its own text (or a re-wrapped copy, same id) must
/// not lose it: either refuse or leave it live. Found: the add answers
/// "already stored", then the supersede removes the fact from MEMORY.md and
/// archives it as superseded by itself, which can never be unarchived.
#[test]
fn superseding_a_fact_with_itself_does_not_lose_it() {
    let r = Sandbox::new();
    let id = r.add(A, "Production deploys happen on Fridays");
    let out = r.run(&[
        "--owner",
        A,
        "--json",
        "add",
        "Production  deploys happen on Fridays",
        "--supersedes",
        &id,
    ]);
    let rows = r.rows(A, &[]);
    assert_eq!(
        ids(&rows),
        [id.as_str()],
        "the fact left MEMORY.md: {out:?}\nMEMORY.md: {:?}\narchive.md: {:?}",
        r.read_or_empty(A, "MEMORY.md"),
        r.read_or_empty(A, "archive.md")
    );
    assert!(r.read_or_empty(A, "MEMORY.md").contains("Fridays"));
    assert!(!r.read_or_empty(A, "archive.md").contains("Fridays"));
}

/// docs/FORMAT.md: a fact written by hand "is a valid fact: its created time
/// is when the store first saw it (kept in .memdir/stats.json)". Found: `list`
/// neither reads a recorded time nor records one, so the created time it shows
/// is the time of each `list` until a recall records one.
#[test]
fn a_hand_written_fact_keeps_the_time_the_store_first_saw_it() {
    let r = Sandbox::new();
    r.write(A, "MEMORY.md", "- Written by hand, without metadata\n");
    let id = mem("Written by hand, without metadata");
    let first = r.rows(A, &[]);
    assert_eq!(ids(&first), [id.as_str()]);
    assert_eq!(first[0]["saved_by_agent"], Value::Null);
    assert_eq!(first[0]["expires_at"], Value::Null);
    next_second();
    let second = r.rows(A, &[]);
    assert_eq!(
        second[0]["created_at"], first[0]["created_at"],
        "the created time of a hand-written fact moves with every list"
    );
}
