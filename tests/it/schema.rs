//! The JSON contract, checked: every command's `--json` answer (and the
//! error answer) validates against its JSON Schema in `docs/schema/`
//! (draft 2020-12). Each command runs once to succeed and once to fail; the
//! schemas are strict (required keys, types, no unknown keys where the shape
//! is fixed), so a renamed or retyped key fails here.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;

use serde_json::{Value, json};

use crate::util::{BIN, Run, Sandbox, command, run_cmd};

const O: &str = "agt_1";

fn schema_dir() -> PathBuf {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/..")).join("docs/schema")
}

/// The schema `name` (`docs/schema/<name>.json`), compiled as draft 2020-12.
fn validator(name: &str) -> jsonschema::Validator {
    let path = schema_dir().join(format!("{name}.json"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    let schema: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    assert_eq!(
        schema["$schema"], "https://json-schema.org/draft/2020-12/schema",
        "{name}"
    );
    jsonschema::draft202012::new(&schema).unwrap_or_else(|e| panic!("{path:?}: {e}"))
}

/// The schemas used, and the answers each validated; every violation is
/// recorded for the test's [`crate::util::Collect`] guard, which fails once at the
/// test's end naming them all (so one drifted answer does not hide the
/// rest).
#[derive(Default)]
struct Checked(Mutex<BTreeMap<String, usize>>);

impl Checked {
    /// Records that `what` went wrong, at the caller's line.
    #[track_caller]
    fn wrong(&self, what: String) {
        crate::util::wrong(what);
    }

    /// Validates `v` against schema `name`; records every violation.
    #[track_caller]
    fn value(&self, name: &str, v: &Value) {
        let errors: Vec<String> = validator(name)
            .iter_errors(v)
            .map(|e| format!("{}: {e}", e.instance_path()))
            .collect();
        if !errors.is_empty() {
            self.wrong(format!("{name}: {errors:?}\n  answer: {v}"));
        }
        *self
            .0
            .lock()
            .expect("lock")
            .entry(name.to_owned())
            .or_default() += 1;
    }

    /// A successful `--json` answer, validated against `name`.
    #[track_caller]
    fn ok(&self, name: &str, r: Run) -> Value {
        let r = r.ok();
        let v = r.json();
        self.value(name, &v);
        v
    }

    /// A failed `--json` answer (any code), validated against `error`.
    #[track_caller]
    fn fails(&self, r: Run, code: &str) {
        let v = r.json();
        if r.code == 0 || v["error"]["code"] != code {
            self.wrong(format!("expected {code}, got exit {}: {v}", r.code));
        }
        self.value("error", &v);
    }
}

fn have_git() -> bool {
    crate::util::have_git()
}

fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git")
        .current_dir(dir)
        .args(args)
        .env("GIT_AUTHOR_NAME", "Tess")
        .env("GIT_AUTHOR_EMAIL", "tess@example.com")
        .env("GIT_COMMITTER_NAME", "Tess")
        .env("GIT_COMMITTER_EMAIL", "tess@example.com")
        .output()
        .expect("run git");
    assert!(out.status.success(), "git {args:?}: {out:?}");
}

/// `memdir --json ARGS` in `cwd` with `--root mem`, as a person of the
/// test's identity would run it in a work tree.
fn in_tree(cwd: &Path, args: &[&str]) -> Run {
    let mut c = command();
    c.current_dir(cwd)
        .env("HOME", cwd.join(".no-home"))
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .args(["--root", "mem", "--json"])
        .args(args);
    run_cmd(c)
}

#[test]
#[allow(
    clippy::too_many_lines,
    reason = "one scenario: every answer of the command line in turn, each step's ids feeding the next"
)]
fn every_json_answer_validates_against_its_schema() {
    let _collect = crate::util::Collect::start();
    let c = Checked::default();
    let s = Sandbox::new();
    let me = |args: &[&str]| s.run(&[&["--json", "--owner", O][..], args].concat());
    let me_in = |args: &[&str], stdin: &str| {
        s.run_stdin(&[&["--json", "--owner", O][..], args].concat(), stdin)
    };

    // Writes.
    let added = c.ok("add", me(&["add", "Deploys need the VPN"]));
    let id = added["id"].as_str().expect("id").to_owned();
    c.ok(
        "add",
        me(&["add", "--to", "user", "Works in UTC", "--expires", "never"]),
    );
    c.fails(me(&["add", "x", "--expires", "soonish"]), "invalid_expiry");
    c.ok(
        "replace",
        me(&["replace", "Deploys need", "Deploys need the VPN and a key"]),
    );
    c.fails(me(&["replace", "no such entry", "y"]), "memory_not_found");
    c.ok("remove", me(&["remove", "Works in UTC", "--in", "user"]));
    c.fails(me(&["remove", "no such entry"]), "memory_not_found");
    c.ok(
        "batch",
        me_in(
            &["batch"],
            r#"[{"op":"add","text":"Staging resets on Sundays"},{"op":"add","text":"Old note","expires":"2999-01-01"}]"#,
        ),
    );
    c.fails(me_in(&["batch"], "not json"), "invalid_request");
    let v = c.ok("show", me(&["show"]));
    let fact = crate::util::store_entries(&v, "memory")
        .into_iter()
        .find(|(_, t)| t == "Old note")
        .expect("the old note")
        .0;
    c.fails(me(&["show", "--in", "both"]), "usage");
    c.ok("renew", me(&["renew", &fact, "--expires", "30d"]));
    c.ok("renew", me(&["renew", &fact, "--expires", "never"]));
    c.fails(me(&["renew", "mem_000000000000"]), "memory_not_found");

    // Reads.
    c.ok("snapshot", me(&["snapshot"]));
    c.fails(
        s.run(&["--json", "--owner", "agt_none", "snapshot"]),
        "owner_not_found",
    );
    c.ok("list", me(&["list", "--all"]));
    c.fails(me(&["list", "--limit", "x"]), "usage");
    c.ok("recall", me(&["recall", "--query", "deploys"]));
    c.fails(
        s.run(&["--json", "--owner", "agt_none", "recall"]),
        "owner_not_found",
    );

    // The lifecycle.
    // (`id` was replaced: a new id; the old one is nowhere.)
    c.fails(
        me(&["archive", &id, "--reason", "again"]),
        "memory_not_found",
    );
    let staging = crate::util::store_entries(&v, "memory")
        .into_iter()
        .find(|(_, t)| t.contains("Staging"))
        .expect("staging")
        .0;
    c.ok(
        "transition",
        me(&["archive", &staging, "--reason", "moved"]),
    );
    c.ok("transition", me(&["unarchive", &staging]));
    c.fails(me(&["unarchive", &staging]), "memory_wrong_state");
    // A duplicate a merge left, settled.
    let memory = s.read_text(O, "MEMORY.md");
    let line = memory
        .lines()
        .find(|l| l.contains("Staging"))
        .expect("the staging line")
        .to_owned();
    s.write(O, "MEMORY.md", format!("{memory}{line}\n"));
    c.ok("transition", me(&["resolve", &staging, "--keep", "one"]));
    c.fails(
        me(&["resolve", &staging, "--keep", "one"]),
        "memory_wrong_state",
    );
    c.ok(
        "transition",
        s.run(&["--json", "--person", "dana", "--agent", O, "veto", &staging]),
    );
    c.fails(me(&["veto", &fact]), "memory_veto_human_only");

    // Runs and the day log.
    let begun = c.ok(
        "run-begin",
        me(&["run", "begin", "--task", "PIN-1", "--workflow", "wf-1"]),
    );
    let run = begun["run_id"].as_str().expect("run_id").to_owned();
    c.fails(me(&["run", "begin", "--workflow", "bad id"]), "invalid_id");
    c.ok("day", me(&["day", "searched the docs", "--run", &run]));
    c.fails(me(&["day", ""]), "memory_text_empty");
    c.ok("day", me(&["run", "finish", &run, "crawled the docs"]));
    c.fails(me(&["run", "finish", &run, "again"]), "run_finished");
    c.ok("runs-search", me(&["runs", "search", "docs"]));
    c.fails(
        me(&["runs", "search", "docs", "--since", "yesterday"]),
        "usage",
    );
    c.ok("runs-list", me(&["runs", "list"]));
    c.fails(
        s.run(&["--json", "--owner", "agt_none", "runs", "list"]),
        "owner_not_found",
    );

    // Results.
    c.ok(
        "result-put",
        me_in(&["result", "put", "wf-1", "page"], "42 pages"),
    );
    c.ok(
        "result-put",
        me_in(
            &[
                "result",
                "put",
                "wf-1",
                "bin",
                "--type",
                "application/octet-stream",
                "--file",
                "/dev/null",
                "--allow-empty",
            ],
            "",
        ),
    );
    c.fails(
        me_in(&["result", "put", "wf-1", "page"], "43 pages"),
        "result_exists",
    );
    c.ok("runs-show", me(&["runs", "show", &run]));
    c.fails(me(&["runs", "show", "run-none"]), "run_not_found");
    c.ok("result", me(&["result", "get", "wf-1", "page"]));
    c.fails(me(&["result", "get", "wf-1", "nothing"]), "not_ready");
    c.ok("result-steps", me(&["result", "get", "wf-1"]));
    c.fails(me(&["result", "get", "wf-unknown"]), "result_not_found");
    c.ok(
        "result",
        me(&["result", "wait", "wf-1", "page", "--timeout", "0"]),
    );
    c.fails(
        me(&["result", "wait", "wf-1", "later", "--timeout", "0"]),
        "not_ready",
    );
    c.ok("result-rm", me(&["result", "rm", "wf-1", "bin"]));
    c.fails(me(&["result", "rm", "wf-1", "bin"]), "result_not_found");
    c.ok("results-gc", me(&["results", "gc", "--older-than", "0"]));
    c.fails(me(&["results", "gc", "--older-than", "-1"]), "usage");

    // Review and skills.
    s.add_expired(O, "MEMORY.md", "A stale fact");
    let review = c.ok("review", me(&["review"]));
    let review_id = review["review_id"].as_str().expect("review_id").to_owned();
    c.ok("review", me(&["review", "--dry-run"]));
    c.ok("review-undo", me(&["review", "undo", &review_id]));
    c.fails(me(&["review", "undo", "review-none"]), "review_not_found");
    let dry = c.ok("review", me(&["review", "--dry-run"]));
    let dry_id = dry["review_id"].as_str().expect("review_id").to_owned();
    c.ok("review-apply", me(&["review", "apply", &dry_id]));
    c.fails(me(&["review", "apply", &dry_id]), "review_changed");
    c.fails(me(&["review", "apply", "review-none"]), "review_not_found");
    let history = c.ok("review-history", me(&["review", "history"]));
    let mut ids: Vec<&str> = history["reviews"]
        .as_array()
        .expect("reviews")
        .iter()
        .filter_map(|r| r["id"].as_str())
        .collect();
    ids.sort_unstable();
    let mut want = [dry_id.as_str(), review_id.as_str()];
    want.sort_unstable();
    assert_eq!(ids, want, "{history}");
    c.fails(me(&["review", "history", "--limit", "x"]), "usage");
    c.ok(
        "skill",
        me_in(
            &["skill", "learn", "deploy", "-"],
            "# Deploy\n\nRun the script.\n",
        ),
    );
    c.fails(
        me_in(&["skill", "learn", "deploy", "-"], "# Other\n"),
        "skill_exists",
    );
    c.ok("skills", me(&["skill", "list"]));
    c.ok("skill-show", me(&["skill", "show", "deploy"]));
    c.fails(me(&["skill", "show", "nothing"]), "skill_not_found");
    c.ok("skill", me(&["skill", "forget", "deploy"]));
    c.fails(me(&["skill", "forget", "deploy"]), "skill_not_found");
    // Claude's memory tool: a refusal is a tool result (exit 0), a bad
    // input an error.
    c.ok(
        "memory-tool",
        me_in(
            &["tool", "memory"],
            r#"{"command":"view","path":"/memories"}"#,
        ),
    );
    let refused = c.ok(
        "memory-tool",
        me_in(
            &["tool", "memory"],
            r#"{"command":"view","path":"/memories/x.md"}"#,
        ),
    );
    if refused["is_error"] != true {
        c.wrong(format!("the memory tool's refusal: {refused}"));
    }
    c.fails(me_in(&["tool", "memory"], "[1]"), "invalid_request");

    // Learnings.
    let l = c.ok("learning", me(&["propose", "Deploys need the VPN"]));
    let lid = l["learning"]["id"].as_str().expect("id").to_owned();
    c.fails(me(&["propose", ""]), "memory_text_empty");
    c.ok("learnings", me(&["learnings"]));
    let person =
        |args: &[&str]| s.run(&[&["--json", "--person", "alice", "learnings"][..], args].concat());
    c.ok("learning", person(&["approve", &lid]));
    c.ok("learnings", person(&["list"]));
    c.ok("learning", person(&["retire", &lid]));
    c.fails(person(&["retire", &lid]), "learning_closed");
    c.fails(
        person(&["reject", "mem_000000000000", "--reason", "no"]),
        "learning_not_found",
    );

    // Writes that wait for a person (`writes: review`, the owner's file).
    let rev = "agt_rev";
    s.write(rev, "memdir.yaml", "writes: review\n");
    let as_rev = |args: &[&str]| s.run(&[&["--json", "--owner", rev][..], args].concat());
    let waiting = c.ok("add", as_rev(&["add", "Invoices go out on the first"]));
    let pid = waiting["pending_id"]
        .as_str()
        .expect("pending_id")
        .to_owned();
    c.ok(
        "batch",
        s.run_stdin(
            &["--json", "--owner", rev, "batch"],
            r#"[{"op":"add","text":"Standups are at nine"}]"#,
        ),
    );
    c.ok("pending", as_rev(&["pending", "list"]));
    c.ok("pending-show", as_rev(&["pending", "show", &pid]));
    c.fails(
        as_rev(&["pending", "show", "pnd_000000000000"]),
        "pending_not_found",
    );
    c.fails(as_rev(&["pending", "approve", &pid]), "person_only");
    let decide = |args: &[&str]| {
        s.run(
            &[
                &["--json", "--person", "alice", "--agent", rev, "pending"][..],
                args,
            ]
            .concat(),
        )
    };
    c.ok("pending-decision", decide(&["approve", &pid]));
    let other = c.ok("add", as_rev(&["add", "Tabs are better"]));
    let other = other["pending_id"].as_str().expect("pending_id").to_owned();
    c.ok(
        "pending-decision",
        decide(&["reject", &other, "--reason", "taste"]),
    );
    c.fails(
        as_rev(&["add", "Tabs are better"]),
        "memory_pending_rejected",
    );

    // Checks and the merge driver.
    c.ok("check", s.run(&["--json", "check"]));
    c.fails(s.run(&["--json", "check", "bad id"]), "invalid_id");
    let base = s.dir.path().join("base.md");
    std::fs::write(&base, "- one\n").expect("write");
    let ours = s.dir.path().join("ours.md");
    std::fs::write(&ours, "- one\n- two\n").expect("write");
    let theirs = s.dir.path().join("theirs.md");
    std::fs::write(&theirs, "- one\n- three\n").expect("write");
    let p = |p: &Path| p.display().to_string();
    c.ok(
        "merge-file",
        s.run(&[
            "--json",
            "merge-file",
            &p(&base),
            &p(&ours),
            &p(&theirs),
            "agt_1/MEMORY.md",
        ]),
    );
    c.fails(
        s.run(&[
            "--json",
            "merge-file",
            &p(&base),
            "/nonexistent/ours",
            &p(&theirs),
        ]),
        "io_error",
    );

    // init, git setup, log and sync, in a work tree with a remote.
    let rootless = Sandbox::rootless();
    c.ok(
        "setup",
        crate::util::run_at(&rootless.root, &["--json", "init"]),
    );
    c.fails(
        crate::util::run_at(&rootless.root, &["--json", "--owner", O, "log"]),
        "owner_not_found",
    );
    if have_git() {
        let d = tempfile::tempdir().expect("tmp");
        let hub = d.path().join("hub.git");
        let top = d.path().join("team");
        std::fs::create_dir_all(&top).expect("mkdir");
        git(
            d.path(),
            &[
                "init",
                "--quiet",
                "--bare",
                "--initial-branch=main",
                "hub.git",
            ],
        );
        git(&top, &["init", "--quiet", "--initial-branch=main"]);
        git(&top, &["commit", "--quiet", "--allow-empty", "-m", "start"]);
        git(
            &top,
            &["remote", "add", "origin", &hub.display().to_string()],
        );
        git(&top, &["push", "--quiet", "-u", "origin", "main"]);
        c.ok("setup", in_tree(&top, &["init"]));
        c.ok("setup", in_tree(&top, &["git", "setup"]));
        in_tree(&top, &["--owner", O, "add", "A fact"]).ok();
        git(&top, &["add", "-A"]);
        git(&top, &["commit", "--quiet", "-m", "a fact"]);
        c.ok("log", in_tree(&top, &["--owner", O, "log"]));
        c.fails(
            in_tree(&top, &["--owner", O, "log", "--since", "soon"]),
            "usage",
        );
        in_tree(&top, &["--owner", O, "add", "Another fact"]).ok();
        c.ok("sync", in_tree(&top, &["--owner", O, "sync"]));
        c.fails(
            in_tree(&top, &["--owner", O, "sync", "--remote", "nowhere"]),
            "git_failed",
        );
    }

    // Moving in from another tool.
    let hermes = tempfile::tempdir().expect("tmp");
    std::fs::write(
        hermes.path().join("MEMORY.md"),
        "Hermes fact one\n§\nHermes fact two\n",
    )
    .expect("write");
    let hdir = hermes.path().to_str().expect("utf-8");
    c.ok("import", me(&["import", "hermes", hdir, "--dry-run"]));
    c.ok("import", me(&["import", "hermes", hdir]));
    let fixture = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/..")).join("fixtures/hermes");
    let refused = me(&["import", "hermes", fixture.to_str().expect("utf-8")]);
    assert_eq!(refused.code, 1, "{refused:?}");
    c.value("import", &refused.json());
    c.fails(me(&["import", "hermes", "/nonexistent"]), "import_nothing");
    let out = s.dir.path().join("hermes-out");
    let out = out.to_str().expect("utf-8");
    c.ok("export", me(&["export", "--format", "hermes", out]));
    c.fails(me(&["export", "--format", "hermes", out]), "export_exists");

    // The keys of `memdir serve`, in a configuration folder of the test's.
    let cfg = tempfile::tempdir().expect("tmp");
    let keys = |args: &[&str]| {
        let mut c = command();
        c.args(["--root"])
            .arg(&s.root)
            .arg("--config-dir")
            .arg(cfg.path())
            .arg("--json")
            .args(args);
        run_cmd(c)
    };
    c.ok(
        "key-create",
        keys(&["--owner", O, "key", "create", "--name", "laptop"]),
    );
    c.ok("key-list", keys(&["key", "list"]));
    c.ok("key-revoke", keys(&["key", "revoke", "laptop"]));
    c.fails(keys(&["key", "revoke", "laptop"]), "invalid_id");
    // A one-time login link to the dashboard: a person's only.
    c.ok("ui", keys(&["--person", "ann", "ui"]));
    c.fails(keys(&["--owner", O, "ui"]), "person_only");

    // Every schema file is used, and every command of `--help` has one.
    let used: BTreeSet<String> = c.0.lock().expect("lock").keys().cloned().collect();
    let files: BTreeSet<String> = std::fs::read_dir(schema_dir())
        .expect("docs/schema")
        .filter_map(|e| {
            let name = e.ok()?.file_name().to_string_lossy().into_owned();
            name.strip_suffix(".json").map(str::to_owned)
        })
        .collect();
    let want = if have_git() {
        files.clone()
    } else {
        files
            .iter()
            .filter(|f| !["log", "sync"].contains(&f.as_str()))
            .cloned()
            .collect()
    };
    assert_eq!(used, want, "schemas used vs docs/schema");
    // Commands whose answer is not one JSON object: `watch` prints one
    // line per change while it runs; `completions` and `man` print text;
    // `mcp` and `serve` are servers (their answers: tests/it/mcp.rs and
    // tests/it/http.rs, docs/API.md).
    let no_json = ["watch", "completions", "man", "help", "mcp", "serve"];
    let covered = [
        "add",
        "archive",
        "unarchive",
        "resolve",
        "renew",
        "veto",
        "recall",
        "init",
        "git",
        "sync",
        "log",
        "merge-file",
        "check",
        "replace",
        "remove",
        "show",
        "batch",
        "day",
        "list",
        "snapshot",
        "result",
        "results",
        "runs",
        "run",
        "review",
        "skill",
        "tool",
        "propose",
        "learnings",
        "pending",
        "key",
        "ui",
        "import",
        "export",
    ];
    let help = String::from_utf8(
        Command::new(BIN)
            .arg("--help")
            .output()
            .expect("help")
            .stdout,
    )
    .expect("utf-8");
    let commands: Vec<&str> = help
        .split("Commands:")
        .nth(1)
        .expect("a Commands section")
        .lines()
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    for cmd in &commands {
        assert!(
            covered.contains(cmd) || no_json.contains(cmd),
            "command {cmd} has no schema check"
        );
    }
    assert!(commands.len() >= covered.len(), "{commands:?}");
}

/// The schemas fail on drift: an unknown key, a missing key, a wrong type.
#[test]
fn a_drifted_answer_fails_its_schema() {
    let s = Sandbox::new();
    let v = s.json_ok(&["--owner", O, "add", "A fact"]);
    let ok = |v: &Value| validator("add").is_valid(v);
    assert!(ok(&v), "{v}");
    let mut extra = v.clone();
    extra["run"] = json!("run-1");
    assert!(!ok(&extra), "an unknown key");
    let mut missing = v.clone();
    missing.as_object_mut().expect("object").remove("usage");
    assert!(!ok(&missing), "a missing key");
    let mut retyped = v.clone();
    retyped["usage"] = json!("1% — 10/2200 chars");
    assert!(!ok(&retyped), "usage as a string");
    let e = s.run(&["--json", "--owner", O, "remove", "nothing"]).json();
    assert!(validator("error").is_valid(&e), "{e}");
    let mut flat = e["error"].clone();
    flat["error"] = json!(true);
    assert!(!validator("error").is_valid(&flat), "not wrapped in error");
}
