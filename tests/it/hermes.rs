//! Moving in from another tool: `memdir import hermes DIR` and `memdir
//! export --format hermes DIR` through the binary, on the Hermes-style
//! folder in `fixtures/hermes/` (USER.md: a duplicate and an entry the
//! scanner refuses; MEMORY.md: clean, with a multi-line entry) and on
//! folders made here.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::util::{Sandbox, strip_meta};

const O: &str = "agt_hermes";

fn fixture() -> PathBuf {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/..")).join("fixtures/hermes")
}

/// `memdir --json --owner O import hermes DIR EXTRA`: exit status and answer.
fn import(s: &Sandbox, owner: &str, dir: &Path, extra: &[&str]) -> (i32, Value) {
    let mut args = vec!["--json", "import", "hermes", dir.to_str().unwrap()];
    args.extend(extra);
    let r = s.run_as(owner, &args);
    (r.code, r.json())
}

fn file<'a>(v: &'a Value, name: &str) -> &'a Value {
    v["files"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["file"] == name)
        .unwrap_or_else(|| panic!("no {name} in {v}"))
}

fn texts(list: &Value) -> Vec<String> {
    list.as_array()
        .unwrap()
        .iter()
        .map(|e| e["text"].as_str().unwrap().to_owned())
        .collect()
}

fn codes(list: &Value) -> Vec<(u64, String)> {
    list.as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["index"].as_u64().unwrap(),
                e["code"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

/// The texts of a store as `show` lists them.
fn stored(s: &Sandbox, owner: &str, store: &str) -> Vec<String> {
    let v = s.json_ok(&["--owner", owner, "show"]);
    crate::util::store_entries(&v, store)
        .into_iter()
        .map(|(_, t)| t)
        .collect()
}

#[test]
fn import_takes_a_clean_file_whole_and_refuses_a_file_with_a_threat() {
    let s = Sandbox::new();
    let (code, v) = import(&s, O, &fixture(), &[]);
    assert_eq!(code, 1, "something was refused: {v}");
    assert_eq!(v["dry_run"], false);

    let mem = file(&v, "MEMORY.md");
    assert_eq!(mem["status"], "imported");
    assert_eq!(mem["entries"], 3);
    let want = [
        "The staging deploy needs the VPN",
        "Release notes live in docs/CHANGELOG.md",
        "Build with `make ci`:\nit runs the linters first, then the tests",
    ];
    assert_eq!(texts(&mem["imported"]), want);
    assert_eq!(stored(&s, O, "memory"), want);
    assert!(
        strip_meta(&s.read_text(O, "MEMORY.md"))
            .contains("- Build with `make ci`:\n  it runs the linters first, then the tests")
    );

    // USER.md: the threat refused, the rest held back with the file, the
    // repeated entry skipped; nothing written.
    let user = file(&v, "USER.md");
    assert_eq!(user["status"], "refused");
    assert_eq!(user["entries"], 5);
    assert_eq!(texts(&user["imported"]), Vec::<String>::new());
    assert_eq!(
        codes(&user["refused"]),
        [
            (1, "file_refused".to_owned()),
            (2, "file_refused".to_owned()),
            (3, "file_refused".to_owned()),
            (5, "memory_threat_blocked".to_owned())
        ]
    );
    assert_eq!(codes(&user["skipped"]), [(4, "duplicate".to_owned())]);
    assert!(!s.path(O, "USER.md").exists());

    // The text answer lists the refusal with its reason.
    let t = s.run_as(O, &["import", "hermes", fixture().to_str().unwrap()]);
    assert_eq!(t.code, 1, "{t:?}");
    let out = t.text();
    assert!(out.contains("USER.md: refused, nothing imported"), "{out}");
    assert!(
        out.contains("! #5 [BLOCKED: USER.md entry 5 of the import matched ignore_instructions")
            && out.contains("[memory_threat_blocked]")
            && !out.contains("Ignore all previous"),
        "{out}"
    );
    assert!(out.contains("MEMORY.md: nothing new"), "{out}");
}

#[test]
fn importing_twice_changes_nothing() {
    let s = Sandbox::new();
    let (code, first) = import(&s, O, &fixture(), &["--partial"]);
    assert_eq!(code, 1, "{first}");
    let before_mem = s.read(O, "MEMORY.md");
    let before_user = s.read(O, "USER.md");
    let (code, again) = import(&s, O, &fixture(), &["--partial"]);
    assert_eq!(code, 1, "the threat is still refused: {again}");
    for name in ["MEMORY.md", "USER.md"] {
        let f = file(&again, name);
        assert_eq!(f["imported"], Value::Array(vec![]), "{name}: {again}");
    }
    let mem = file(&again, "MEMORY.md");
    assert_eq!(mem["status"], "unchanged");
    assert_eq!(
        codes(&mem["skipped"]),
        [
            (1, "already_stored".to_owned()),
            (2, "already_stored".to_owned()),
            (3, "already_stored".to_owned())
        ]
    );
    assert_eq!(s.read(O, "MEMORY.md"), before_mem);
    assert_eq!(s.read(O, "USER.md"), before_user);
}

#[test]
fn partial_imports_what_fits_and_lists_the_rest() {
    let s = Sandbox::new();
    let (code, v) = import(&s, O, &fixture(), &["--partial"]);
    assert_eq!(code, 1, "{v}");
    let user = file(&v, "USER.md");
    assert_eq!(user["status"], "partial");
    let want = [
        "The user's name is Dana; she works in UTC+1",
        "Prefers short answers, bullet points over prose",
        "Reviews pull requests in the morning,\nand wants a summary of open ones first",
    ];
    assert_eq!(texts(&user["imported"]), want);
    assert_eq!(stored(&s, O, "user"), want);
    assert_eq!(
        codes(&user["refused"]),
        [(5, "memory_threat_blocked".to_owned())]
    );
    assert!(!s.read_text(O, "USER.md").contains("Ignore all previous"));

    // Past the budget: all or none refuses the file at the entry that
    // passes it; --partial takes the entries that fit, in order.
    let big = tempfile::tempdir().unwrap();
    let entries: Vec<String> = (0..6)
        .map(|i| format!("Fact {i}: {}", "lorem ipsum dolor ".repeat(24).trim_end()))
        .collect();
    std::fs::write(big.path().join("MEMORY.md"), entries.join("\n§\n")).unwrap();
    let (code, v) = import(&s, "agt_big", big.path(), &[]);
    assert_eq!(code, 1, "{v}");
    let mem = file(&v, "MEMORY.md");
    assert_eq!(mem["status"], "refused");
    let refused = codes(&mem["refused"]);
    assert!(
        refused.contains(&(5, "memory_over_budget".to_owned())),
        "{v}"
    );
    assert_eq!(refused.len(), 6, "{v}");
    assert!(!s.path("agt_big", "MEMORY.md").exists());
    let (code, v) = import(&s, "agt_big", big.path(), &["--partial"]);
    assert_eq!(code, 1, "{v}");
    let mem = file(&v, "MEMORY.md");
    assert_eq!(mem["status"], "partial");
    assert_eq!(texts(&mem["imported"]), entries[..4]);
    assert_eq!(
        codes(&mem["refused"]),
        [
            (5, "memory_over_budget".to_owned()),
            (6, "memory_over_budget".to_owned())
        ]
    );
    assert_eq!(stored(&s, "agt_big", "memory"), entries[..4]);
}

#[test]
fn a_dry_run_writes_nothing() {
    let s = Sandbox::new();
    let (code, v) = import(&s, O, &fixture(), &["--partial", "--dry-run"]);
    assert_eq!(code, 1, "{v}");
    assert_eq!(v["dry_run"], true);
    assert_eq!(texts(&file(&v, "MEMORY.md")["imported"]).len(), 3);
    assert_eq!(texts(&file(&v, "USER.md")["imported"]).len(), 3);
    assert!(
        !s.owner_dir(O).exists(),
        "a dry run creates no folder: {:?}",
        crate::util::tree(&s.root)
    );
    let t = s.run_as(
        O,
        &["import", "hermes", fixture().to_str().unwrap(), "--dry-run"],
    );
    assert!(t.text().starts_with("dry run: nothing written\n"), "{t:?}");
    assert!(
        t.text().contains("MEMORY.md: would import 3 of 3 entries"),
        "{t:?}"
    );
    assert!(!s.owner_dir(O).exists());

    // An export's dry run writes no folder either.
    s.run_as(O, &["add", "Deploys need the VPN"]).ok();
    let out = s.dir.path().join("out");
    let v = s.json_ok(&[
        "--owner",
        O,
        "export",
        "--format",
        "hermes",
        out.to_str().unwrap(),
        "--dry-run",
    ]);
    assert_eq!(v["dry_run"], true);
    assert_eq!(file(&v, "MEMORY.md")["entries"], 1);
    assert!(!out.exists());
}

#[test]
fn export_then_import_into_a_fresh_owner_round_trips_the_texts() {
    let s = Sandbox::new();
    let (_, _) = import(&s, O, &fixture(), &["--partial"]);
    s.run_as(O, &["add", "--to", "user", "Works late on Thursdays"])
        .ok();
    s.add_expired(O, "MEMORY.md", "An old note");
    let out = s.dir.path().join("hermes-out");
    let v = s.json_ok(&[
        "--owner",
        O,
        "export",
        "--format",
        "hermes",
        out.to_str().unwrap(),
    ]);
    let mem = file(&v, "MEMORY.md");
    assert_eq!(mem["entries"], 3);
    assert_eq!(codes(&mem["left_out"]), [(4, "expired".to_owned())]);
    let text = std::fs::read_to_string(out.join("MEMORY.md")).unwrap();
    assert_eq!(
        text,
        "The staging deploy needs the VPN\n§\nRelease notes live in docs/CHANGELOG.md\n§\nBuild with `make ci`:\nit runs the linters first, then the tests\n"
    );

    let (code, v) = import(&s, "agt_fresh", &out, &[]);
    assert_eq!(code, 0, "{v}");
    for store in ["memory", "user"] {
        let mut want = stored(&s, O, store);
        if store == "memory" {
            want.retain(|t| t != "An old note");
        }
        assert_eq!(stored(&s, "agt_fresh", store), want, "{store}");
    }

    // The files are there now: a second export refuses, --force replaces.
    let e = s.json_fail(
        &[
            "--owner",
            O,
            "export",
            "--format",
            "hermes",
            out.to_str().unwrap(),
        ],
        "export_exists",
        409,
    );
    assert!(e["path"].as_str().unwrap().ends_with("USER.md"), "{e}");
    std::fs::write(out.join("MEMORY.md"), "something else\n").unwrap();
    let v = s.json_ok(&[
        "--owner",
        O,
        "export",
        "--format",
        "hermes",
        out.to_str().unwrap(),
        "--force",
    ]);
    assert_eq!(file(&v, "MEMORY.md")["replaced"], true);
    assert_eq!(
        std::fs::read_to_string(out.join("MEMORY.md")).unwrap(),
        text
    );
}

#[test]
fn a_folder_without_memory_files_is_refused() {
    let s = Sandbox::new();
    let empty = tempfile::tempdir().unwrap();
    s.json_fail(
        &[
            "--owner",
            O,
            "import",
            "hermes",
            empty.path().to_str().unwrap(),
        ],
        "import_nothing",
        404,
    );
    s.json_fail(
        &["--owner", O, "import", "hermes", "/nonexistent/hermes"],
        "import_nothing",
        404,
    );
    // A symlinked MEMORY.md is not followed.
    let dir = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(fixture().join("MEMORY.md"), dir.path().join("MEMORY.md")).unwrap();
    let r = s.run_as(
        O,
        &["--json", "import", "hermes", dir.path().to_str().unwrap()],
    );
    assert_ne!(r.code, 0, "{r:?}");
    assert_eq!(r.json()["error"]["code"], "unsafe_path", "{r:?}");
}
