//! A person's word is final, through the real `memdir` binary: a vetoed text
//! saved again by an agent is refused (`memory_veto_human_only`, naming the
//! veto's date) on every path that adds an entry (`add`, `batch`, `import
//! hermes`, HTTP, MCP), a person's save lifts the veto, a superseded text
//! comes back only superseding; and an id does not tell an agent whether
//! another owner holds it.

use serde_json::{Value, json};

use crate::http::{make_key, serve};
use crate::mcp::{call, start};
use crate::util::Sandbox;

const A: &str = "agt_a";
const B: &str = "agt_b";
const P: &str = "alice";

const TEXT: &str = "The user wants daily status emails";

/// Adds `text` to `owner`'s MEMORY.md as that agent; its id.
fn add(s: &Sandbox, owner: &str, text: &str) -> String {
    let v = s.json_ok(&["--owner", owner, "add", text]);
    v["id"].as_str().expect("id").to_owned()
}

/// The person vetoes agent A's fact `id`; the veto's UTC date.
fn veto(s: &Sandbox, id: &str) -> String {
    let t = s.json_ok(&[
        "--person",
        P,
        "--agent",
        A,
        "veto",
        id,
        "--reason",
        "I never asked for that",
    ]);
    assert_eq!(t["kind"], "vetoed", "{t}");
    let archive = s.read_or_empty(A, "archive.md");
    let line = archive
        .lines()
        .find(|l| l.contains(TEXT))
        .expect("the vetoed record");
    assert!(line.contains("kind=vetoed"), "{line}");
    let at = line.split("archived=").nth(1).expect("an archive time");
    at[..10].to_owned()
}

/// A's snapshot text.
fn snapshot(s: &Sandbox) -> String {
    s.run_as(A, &["snapshot"]).ok().text()
}

/// A vetoed fact, with the files as the veto left them: its id, the veto's
/// date, A's MEMORY.md and archive.md.
fn vetoed(s: &Sandbox) -> (String, String, String, String) {
    let id = add(s, A, TEXT);
    add(s, A, "Deploys need the VPN");
    let date = veto(s, &id);
    assert!(!snapshot(s).contains(TEXT));
    (
        id,
        date,
        s.read_or_empty(A, "MEMORY.md"),
        s.read_or_empty(A, "archive.md"),
    )
}

/// The files of A are as the veto left them, and the snapshot leaves the
/// text out.
#[track_caller]
fn unchanged(s: &Sandbox, memory: &str, archive: &str) {
    assert_eq!(s.read_or_empty(A, "MEMORY.md"), memory);
    assert_eq!(s.read_or_empty(A, "archive.md"), archive);
    assert!(!snapshot(s).contains(TEXT));
}

#[test]
fn an_agent_cannot_save_a_vetoed_text_again_and_a_person_lifts_the_veto() {
    let s = Sandbox::new();
    let (id, date, memory, archive) = vetoed(&s);

    // The agent saves the same text again: refused, naming the date.
    let e = s.json_fail(&["--owner", A, "add", TEXT], "memory_veto_human_only", 403);
    assert_eq!(e["id"], id.as_str(), "{e}");
    assert_eq!(e["vetoed_on"], date.as_str(), "{e}");
    let message = e["message"].as_str().unwrap_or_default();
    assert!(message.contains(&date), "{message}");
    unchanged(&s, &memory, &archive);
    // In USER.md too, and whatever it supersedes: the id is another one
    // (scope and text), so USER.md takes it; superseding does not lift a
    // veto for an agent.
    let other = add(&s, A, "Status emails go out weekly");
    let e = s.json_fail(
        &["--owner", A, "add", TEXT, "--supersedes", &other],
        "memory_veto_human_only",
        403,
    );
    assert_eq!(e["id"], id.as_str(), "{e}");
    let memory = s.read_or_empty(A, "MEMORY.md");
    unchanged(&s, &memory, &archive);

    // A person saves it again: live, and the veto's record leaves
    // archive.md as an unarchive takes a record out.
    let v = s.json_ok(&["--person", P, "--agent", A, "add", TEXT]);
    assert_eq!(v["id"], id.as_str(), "{v}");
    let memory = s.read_or_empty(A, "MEMORY.md");
    let line = memory.lines().find(|l| l.contains(TEXT)).expect("live");
    assert!(line.contains(&format!("person={P}")), "{line}");
    let archive = s.read_or_empty(A, "archive.md");
    assert!(!archive.contains(TEXT), "{archive}");
    assert!(snapshot(&s).contains(TEXT));
    let rows = s.json_ok(&["--owner", A, "list", "--all"]);
    let rows: Vec<&Value> = rows["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .filter(|r| r["id"] == id.as_str())
        .collect();
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert_eq!(rows[0]["status"], "active");

    // The veto lifted, the agent may archive and save it as any fact.
    s.json_ok(&["--owner", A, "archive", &id, "--reason", "done"]);
    s.json_ok(&["--owner", A, "add", TEXT]);
}

#[test]
fn a_superseded_text_comes_back_only_superseding_the_newer_one() {
    let s = Sandbox::new();
    let old = add(&s, A, "Production deploys happen on Fridays");
    let v = s.json_ok(&[
        "--owner",
        A,
        "add",
        "Production deploys happen on Tuesdays",
        "--supersedes",
        &old,
    ]);
    let newer = v["id"].as_str().expect("id").to_owned();
    let memory = s.read_or_empty(A, "MEMORY.md");
    let archive = s.read_or_empty(A, "archive.md");

    let e = s.json_fail(
        &["--owner", A, "add", "Production deploys happen on Fridays"],
        "memory_superseded",
        409,
    );
    assert_eq!(e["id"], old.as_str(), "{e}");
    assert_eq!(e["superseded_by"], newer.as_str(), "{e}");
    assert!(
        e["message"].as_str().unwrap_or_default().contains(&newer),
        "{e}"
    );
    assert_eq!(s.read_or_empty(A, "MEMORY.md"), memory);
    assert_eq!(s.read_or_empty(A, "archive.md"), archive);
    // A person too.
    s.json_fail(
        &[
            "--person",
            P,
            "--agent",
            A,
            "add",
            "Production deploys happen on Fridays",
        ],
        "memory_superseded",
        409,
    );

    // True again: it supersedes the newer one and comes back.
    let v = s.json_ok(&[
        "--owner",
        A,
        "add",
        "Production deploys happen on Fridays",
        "--supersedes",
        &newer,
    ]);
    assert_eq!(v["id"], old.as_str(), "{v}");
    assert_eq!(v["archived"], json!([newer]));
    let memory = s.read_or_empty(A, "MEMORY.md");
    assert!(memory.contains("Fridays") && !memory.contains("Tuesdays"));
    // The old record left the archive; the newer one is in it, superseded.
    let archive = s.read_or_empty(A, "archive.md");
    assert!(!archive.contains("Fridays"), "{archive}");
    let line = archive
        .lines()
        .find(|l| l.contains("Tuesdays"))
        .expect("newer");
    assert!(line.contains(&format!("superseded_by={old}")), "{line}");
    let rows = s.json_ok(&["--owner", A, "list", "--all"]);
    let with_old = rows["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .filter(|r| r["id"] == old.as_str())
        .count();
    assert_eq!(with_old, 1, "{rows}");
}

#[test]
fn batch_and_import_refuse_a_vetoed_text_too() {
    let s = Sandbox::new();
    let (id, date, memory, archive) = vetoed(&s);

    let ops = json!([
        {"op": "add", "text": "A fact of its own"},
        {"op": "add", "text": TEXT},
    ])
    .to_string();
    let r = s.run_stdin(&["--owner", A, "--json", "batch"], &ops);
    let e = r.json_error("memory_veto_human_only");
    assert_eq!(e["index"], 2, "{e}");
    assert_eq!(e["status"], 403, "{e}");
    assert!(
        e["message"].as_str().unwrap_or_default().contains(&date),
        "{e}"
    );
    unchanged(&s, &memory, &archive);
    // A replace that writes the vetoed text.
    let ops = json!([{"op": "replace", "old": "Deploys need the VPN", "new": TEXT}]).to_string();
    s.run_stdin(&["--owner", A, "--json", "batch"], &ops)
        .json_error("memory_veto_human_only");
    unchanged(&s, &memory, &archive);

    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(
        dir.path().join("MEMORY.md"),
        format!("Imported first\n§\n{TEXT}\n"),
    )
    .expect("write");
    let path = dir.path().to_str().expect("utf-8");
    let e = s.json_fail(
        &["--owner", A, "import", "hermes", path],
        "memory_veto_human_only",
        403,
    );
    assert!(e.to_string().contains(&id), "{e}");
    unchanged(&s, &memory, &archive);
    // The dry run says so too.
    s.json_fail(
        &["--owner", A, "import", "hermes", path, "--dry-run"],
        "memory_veto_human_only",
        403,
    );
}

#[test]
fn the_review_does_not_lift_a_vetoed_text_from_the_day_log() {
    let s = Sandbox::new();
    let (_id, date, memory, archive) = vetoed(&s);
    let yesterday = (chrono::Utc::now() - chrono::Duration::days(1)).date_naive();
    s.write(
        A,
        "episodes.md",
        format!("## {yesterday}\n\n- 10:00 fact: {TEXT}\n"),
    );
    let v = s.json_ok(&["--owner", A, "review"]);
    let skipped = v.to_string();
    assert!(skipped.contains(&format!("vetoed on {date}")), "{v}");
    unchanged(&s, &memory, &archive);
}

#[test]
fn http_and_mcp_refuse_a_vetoed_text_for_an_agent() {
    let s = Sandbox::new();
    let (_, date, memory, archive) = vetoed(&s);
    let a = make_key(&s, &["--owner", A]);
    let srv = serve(&s, &[]);
    let r = srv.post(Some(&a), "/api/v1/memories", json!({"text": TEXT}));
    assert_eq!(r.status, 403, "{r:?}");
    let v = r.json();
    assert_eq!(v["error"]["code"], "memory_veto_human_only", "{v}");
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap_or_default()
            .contains(&date),
        "{v}"
    );
    let r = srv.post(
        Some(&a),
        "/v1/memory/remember",
        json!({"text": TEXT, "scope": "memory"}),
    );
    assert_eq!(r.status, 403, "{r:?}");
    assert!(r.body.contains("memory_veto_human_only"), "{r:?}");
    unchanged(&s, &memory, &archive);

    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let (text, is_error) = rt.block_on(async {
        let c = start(&s, &["--owner", A], &[]).await;
        call(
            &c,
            "memory",
            json!({"action": "remember", "target": "memory", "operation": "add", "content": TEXT}),
        )
        .await
    });
    assert!(is_error, "{text}");
    assert!(text.contains(&date), "{text}");
    assert!(text.starts_with("error[memory_veto_human_only]"), "{text}");
    unchanged(&s, &memory, &archive);
}

/// The error object of a failed `--json` command: the whole answer, as
/// printed.
fn cli_body(s: &Sandbox, args: &[&str]) -> String {
    let r = s.run(args);
    assert!(!r.success(), "{r:?}");
    r.json().to_string()
}

#[test]
fn an_id_does_not_tell_an_agent_whether_another_owner_holds_it() {
    let s = Sandbox::new();
    let theirs = add(&s, A, "A's own fact about releases");
    add(&s, B, "B's own fact about deploys");
    let made_up = "mem_0123456789ab";
    // A made-up id and A's id, asked by agent B: the same answer.
    let answers = |id: &str| -> Vec<String> {
        [
            vec!["--owner", B, "--json", "archive", id, "--reason", "x"],
            vec!["--owner", B, "--json", "unarchive", id],
            vec!["--owner", B, "--json", "renew", id],
            vec!["--owner", B, "--json", "veto", id],
            vec![
                "--owner",
                B,
                "--json",
                "add",
                "B's fact",
                "--supersedes",
                id,
            ],
            vec!["--owner", B, "--json", "replace", id, "B's text"],
            vec!["--owner", B, "--json", "remove", id],
        ]
        .iter()
        .map(|args| cli_body(&s, args).replace(id, "ID"))
        .collect()
    };
    let (held, none) = (answers(&theirs), answers(made_up));
    assert_eq!(held, none);
    assert!(held[4].contains("memory_not_found"), "{}", held[4]);
    assert!(!held.iter().any(|b| b.contains(A)), "{held:?}");
    // A person naming two agents is told.
    let e = s.json_fail(
        &[
            "--person",
            P,
            "--agent",
            B,
            "add",
            "B's fact",
            "--supersedes",
            &theirs,
        ],
        "memory_agent_mismatch",
        400,
    );
    assert_eq!(e["owner"], A);

    // Over HTTP with B's key: the same bodies byte for byte.
    let b = make_key(&s, &["--owner", B]);
    let srv = serve(&s, &[]);
    let m = "/api/v1/memories";
    let bodies = |id: &str| -> Vec<(u16, String)> {
        [
            srv.post(
                Some(&b),
                &format!("{m}/{id}/archive"),
                json!({"reason": "x"}),
            ),
            srv.post(Some(&b), &format!("{m}/{id}/unarchive"), json!({})),
            srv.post(Some(&b), &format!("{m}/{id}/veto"), json!({})),
            srv.post(Some(&b), m, json!({"text": "B's fact", "supersedes": id})),
        ]
        .into_iter()
        .map(|r| (r.status, r.body.replace(id, "ID")))
        .collect()
    };
    let (held, none) = (bodies(&theirs), bodies(made_up));
    assert_eq!(held, none);
    assert_eq!(held[3].0, 404, "{held:?}");
    assert!(held[3].1.contains("memory_not_found"), "{held:?}");
}

/// The vetoed text in other forms an agent might save it in: a trailing
/// period, lower case, a full-width first letter, a Cyrillic `а` for the
/// Latin `a`.
const NEAR: [&str; 4] = [
    "The user wants daily status emails.",
    "the user wants daily status emails",
    "\u{FF34}he user wants daily status emails",
    "The user w\u{0430}nts daily status emails",
];

/// An agent's refused save on the command line: `memory_veto_human_only`
/// naming the vetoed fact and the veto's date.
#[track_caller]
fn refused(s: &Sandbox, args: &[&str], id: &str, date: &str) {
    let e = s.json_fail(args, "memory_veto_human_only", 403);
    assert_eq!(e["id"], id, "{args:?}: {e}");
    assert_eq!(e["vetoed_on"], date, "{args:?}: {e}");
    let message = e["message"].as_str().unwrap_or_default();
    assert!(message.contains(date), "{message}");
}

#[test]
fn an_agent_s_near_copy_of_a_vetoed_text_is_refused_on_the_command_line() {
    let s = Sandbox::new();
    let id = add(&s, A, TEXT);
    add(&s, A, "Deploys need the VPN");
    // A near copy the agent saved and archived before the veto.
    let early = add(&s, A, NEAR[1]);
    s.json_ok(&["--owner", A, "archive", &early, "--reason", "twice"]);
    let date = veto(&s, &id);
    let memory = s.read_or_empty(A, "MEMORY.md");
    let archive = s.read_or_empty(A, "archive.md");
    let other = add(&s, A, "Status emails go out weekly");
    let memory_now = s.read_or_empty(A, "MEMORY.md");
    for text in NEAR {
        refused(&s, &["--owner", A, "add", text], &id, &date);
        // In USER.md too: the veto is of the fact, whatever the store.
        refused(&s, &["--owner", A, "add", text, "--to", "user"], &id, &date);
        // Superseding does not lift it.
        refused(
            &s,
            &["--owner", A, "add", text, "--supersedes", &other],
            &id,
            &date,
        );
        // A replace that writes it.
        refused(&s, &["--owner", A, "replace", &other, text], &id, &date);
    }
    // Nor does bringing back the near copy archived before the veto.
    refused(&s, &["--owner", A, "unarchive", &early], &id, &date);
    unchanged(&s, &memory_now, &archive);
    assert!(memory_now.starts_with(memory.trim_end()), "{memory_now}");
    assert!(
        !snapshot(&s).to_lowercase().contains("daily status"),
        "{}",
        snapshot(&s)
    );
}

#[test]
fn batch_import_and_the_memory_tool_refuse_a_near_copy_too() {
    let s = Sandbox::new();
    let (id, date, memory, archive) = vetoed(&s);
    for text in NEAR {
        let ops = json!([
            {"op": "add", "text": "A fact of its own"},
            {"op": "add", "text": text},
        ])
        .to_string();
        let e = s
            .run_stdin(&["--owner", A, "--json", "batch"], &ops)
            .json_error("memory_veto_human_only");
        assert_eq!(e["index"], 2, "{e}");
        assert!(e.to_string().contains(&id), "{e}");
        let ops =
            json!([{"op": "replace", "old": "Deploys need the VPN", "new": text}]).to_string();
        s.run_stdin(&["--owner", A, "--json", "batch"], &ops)
            .json_error("memory_veto_human_only");
        unchanged(&s, &memory, &archive);

        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::write(
            dir.path().join("MEMORY.md"),
            format!("Imported first\n§\n{text}\n"),
        )
        .expect("write");
        let path = dir.path().to_str().expect("utf-8");
        let e = s.json_fail(
            &["--owner", A, "import", "hermes", path],
            "memory_veto_human_only",
            403,
        );
        assert!(e.to_string().contains(&id), "{e}");
        unchanged(&s, &memory, &archive);
    }

    // Claude's memory tool: each command that writes a text.
    let tool = |input: Value| -> (String, bool) {
        let r = s.run_stdin(
            &["--owner", A, "--json", "tool", "memory"],
            input.to_string(),
        );
        assert_eq!(r.code, 0, "{input}: {r:?}");
        let v = r.json();
        (
            v["text"].as_str().unwrap_or_default().to_owned(),
            v["is_error"] == true,
        )
    };
    let path = "/memories/MEMORY.md";
    for text in NEAR {
        for input in [
            json!({"command": "create", "path": path,
                   "file_text": format!("Deploys need the VPN\n{text}\n")}),
            json!({"command": "insert", "path": path, "insert_line": 0, "insert_text": text}),
            json!({"command": "str_replace", "path": path,
                   "old_str": "Deploys need the VPN", "new_str": text}),
        ] {
            let (answer, is_error) = tool(input.clone());
            assert!(is_error, "{input}: {answer}");
            assert!(
                answer.contains("only a person can veto") && answer.contains(&date),
                "{input}: {answer}"
            );
            unchanged(&s, &memory, &archive);
        }
    }
    // And over HTTP.
    let a = make_key(&s, &["--owner", A]);
    let srv = serve(&s, &[]);
    let r = srv.post(
        Some(&a),
        "/v1/memory/tool",
        json!({"command": "insert", "path": path, "insert_line": 0, "insert_text": NEAR[3]}),
    );
    assert_eq!(r.status, 200, "{r:?}");
    let v = r.json();
    assert_eq!(v["is_error"], true, "{v}");
    assert!(
        v["text"]
            .as_str()
            .unwrap_or_default()
            .contains("only a person can veto"),
        "{v}"
    );
    unchanged(&s, &memory, &archive);
}

#[test]
fn http_and_mcp_refuse_a_near_copy_for_an_agent() {
    let s = Sandbox::new();
    let (id, date, memory, archive) = vetoed(&s);
    let other = add(&s, A, "Status emails go out weekly");
    let memory_now = s.read_or_empty(A, "MEMORY.md");
    assert_ne!(memory_now, memory);
    let a = make_key(&s, &["--owner", A]);
    let srv = serve(&s, &[]);
    for text in NEAR {
        for (path, body) in [
            ("/api/v1/memories", json!({"text": text})),
            (
                "/api/v1/memories",
                json!({"text": text, "supersedes": other}),
            ),
            (
                "/v1/memory/remember",
                json!({"text": text, "scope": "memory"}),
            ),
            (
                "/v1/memory/remember",
                json!({"text": text, "scope": "user"}),
            ),
        ] {
            let r = srv.post(Some(&a), path, body.clone());
            assert_eq!(r.status, 403, "{path} {body}: {r:?}");
            let v = r.json();
            assert_eq!(v["error"]["code"], "memory_veto_human_only", "{v}");
            assert!(v.to_string().contains(&id), "{v}");
            assert!(v.to_string().contains(&date), "{v}");
        }
    }
    unchanged(&s, &memory_now, &archive);

    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let answers = rt.block_on(async {
        let c = start(&s, &["--owner", A], &[]).await;
        let mut out = Vec::new();
        for text in NEAR {
            for args in [
                json!({"action": "remember", "target": "memory", "operation": "add", "content": text}),
                json!({"action": "remember", "target": "user", "operation": "add", "content": text}),
                json!({"action": "remember", "target": "memory", "operation": "replace",
                       "old_text": "Status emails go out weekly", "content": text}),
                json!({"action": "save", "content": text}),
                json!({"action": "save", "content": text, "supersedes": other}),
            ] {
                out.push((args.clone(), call(&c, "memory", args).await));
            }
        }
        out
    });
    for (args, (text, is_error)) in answers {
        assert!(is_error, "{args}: {text}");
        assert!(
            text.starts_with("error[memory_veto_human_only]"),
            "{args}: {text}"
        );
        assert!(text.contains(&date), "{args}: {text}");
    }
    unchanged(&s, &memory_now, &archive);
}

#[test]
fn a_person_may_save_a_near_copy_and_that_lifts_the_veto() {
    let s = Sandbox::new();
    let (id, _, _, _) = vetoed(&s);
    let v = s.json_ok(&["--person", P, "--agent", A, "add", NEAR[0]]);
    let saved = v["id"].as_str().expect("id").to_owned();
    assert_ne!(saved, id);
    let memory = s.read_or_empty(A, "MEMORY.md");
    let line = memory.lines().find(|l| l.contains(NEAR[0])).expect("live");
    assert!(line.contains(&format!("person={P}")), "{line}");
    // The person's word replaces the veto: its record leaves archive.md.
    let archive = s.read_or_empty(A, "archive.md");
    assert!(!archive.contains("kind=vetoed"), "{archive}");
    assert!(snapshot(&s).contains(NEAR[0]));
    // The veto lifted, the agent saves the fact in another form as any.
    let v = s.json_ok(&["--owner", A, "add", NEAR[1]]);
    assert!(
        v["message"]
            .as_str()
            .unwrap_or_default()
            .starts_with("added"),
        "{v}"
    );
    assert!(live(&s, NEAR[1]));
}

#[test]
fn the_review_lifts_no_near_copy_and_merges_none_into_a_vetoed_fact() {
    let s = Sandbox::new();
    let (id, date, memory, archive) = vetoed(&s);
    // Near copies in yesterday's day log: none is lifted.
    let yesterday = (chrono::Utc::now() - chrono::Duration::days(1)).date_naive();
    let lines: String = NEAR
        .iter()
        .map(|t| format!("- 10:00 fact: {t}\n"))
        .collect();
    s.write(A, "episodes.md", format!("## {yesterday}\n\n{lines}"));
    let v = s.json_ok(&["--owner", A, "review"]);
    let skipped: Vec<&Value> = v["skipped"]
        .as_array()
        .expect("skipped")
        .iter()
        .filter(|k| k["why"] == format!("vetoed on {date}").as_str())
        .collect();
    assert_eq!(skipped.len(), NEAR.len(), "{v}");
    unchanged(&s, &memory, &archive);

    // Near copies live beside the veto (a git merge, a hand edit): the next
    // review merges them into the vetoed fact, none kept live.
    s.write(
        A,
        "MEMORY.md",
        format!(
            "{memory}- {} <!-- memdir created=2026-01-01T00:00:00Z agent={A} -->\n- {} <!-- memdir created=2026-01-02T00:00:00Z agent={A} -->\n",
            NEAR[0], NEAR[1]
        ),
    );
    let v = s.json_ok(&["--owner", A, "review"]);
    let merged: Vec<&Value> = v["changes"]
        .as_array()
        .expect("changes")
        .iter()
        .filter(|c| c["change"] == "archive" && c["kind"] == "merged")
        .collect();
    assert_eq!(merged.len(), 2, "{v}");
    for c in &merged {
        assert_eq!(c["into"], id.as_str(), "{c}");
        let reason = c["reason"].as_str().unwrap_or_default();
        assert!(reason.contains(&format!("vetoed on {date}")), "{reason}");
    }
    assert_eq!(s.read_or_empty(A, "MEMORY.md"), memory);
    let snap = snapshot(&s);
    assert!(!snap.to_lowercase().contains("daily status"), "{snap}");
    // The veto's record is as it was.
    let archive_now = s.read_or_empty(A, "archive.md");
    assert!(archive_now.starts_with(archive.trim_end()), "{archive_now}");
}

/// Whether A's MEMORY.md holds a live entry of `text` (as its line shows it).
fn live(s: &Sandbox, text: &str) -> bool {
    s.read_or_empty(A, "MEMORY.md")
        .lines()
        .any(|l| l.starts_with(&format!("- {text} <!--")))
}

#[test]
fn review_undo_leaves_a_fact_vetoed_in_the_review_archived_and_says_so() {
    let s = Sandbox::new();
    let (id, date, memory, _) = vetoed(&s);
    // A merge brings the vetoed fact back live beside its veto's record.
    s.write(A, "MEMORY.md", format!("{memory}- {TEXT}\n"));
    let v = s.json_ok(&["--owner", A, "review"]);
    let review = v["review_id"].as_str().expect("review id").to_owned();
    assert!(
        v["changes"].to_string().contains("a person's veto stands"),
        "{v}"
    );
    assert!(!live(&s, TEXT));

    let u = s.json_ok(&["--owner", A, "review", "undo", &review]);
    assert!(!live(&s, TEXT), "{}", s.read_or_empty(A, "MEMORY.md"));
    assert!(!snapshot(&s).contains(TEXT));
    assert_eq!(u["restored"], json!([]), "{u}");
    assert_eq!(u["vetoed"][0]["id"], id.as_str(), "{u}");
    assert_eq!(u["vetoed"][0]["vetoed"], id.as_str(), "{u}");
    assert_eq!(u["vetoed"][0]["vetoed_on"], date.as_str(), "{u}");
    assert!(
        u["vetoed"][0]["why"]
            .as_str()
            .unwrap_or_default()
            .contains("a person vetoed it"),
        "{u}"
    );
    // Archived with its veto; the review's mark taken off.
    let archive = s.read_or_empty(A, "archive.md");
    let line = archive
        .lines()
        .find(|l| l.contains(TEXT))
        .expect("the veto");
    assert!(
        line.contains("kind=vetoed") && !line.contains("settled="),
        "{line}"
    );
}

#[test]
fn review_undo_does_not_bring_back_a_copy_of_a_fact_vetoed_after_the_review() {
    let s = Sandbox::new();
    add(&s, A, TEXT);
    add(&s, A, NEAR[1]);
    add(&s, A, "Deploys need the VPN");
    // The review merges the two copies into one of them.
    let v = s.json_ok(&["--owner", A, "review"]);
    let review = v["review_id"].as_str().expect("review id").to_owned();
    let merged = v["changes"]
        .as_array()
        .expect("changes")
        .iter()
        .find(|c| c["kind"] == "merged")
        .cloned()
        .expect("a merge");
    let (gone, kept) = (
        merged["id"].as_str().expect("id").to_owned(),
        merged["into"].as_str().expect("into").to_owned(),
    );
    // Then a person vetoes the fact the review kept.
    s.json_ok(&["--person", P, "--agent", A, "veto", &kept]);
    let archive = s.read_or_empty(A, "archive.md");

    let r = s.run_as(A, &["review", "undo", &review]).ok();
    let text = r.text();
    assert!(
        text.contains(&format!(
            "not brought back: {gone} (the same fact as {kept}"
        )),
        "{text}"
    );
    assert!(
        !live(&s, TEXT) && !live(&s, NEAR[1]),
        "{}",
        s.read_or_empty(A, "MEMORY.md")
    );
    assert!(live(&s, "Deploys need the VPN"));
    assert!(!snapshot(&s).to_lowercase().contains("daily status"));
    // Both records stay: the veto, and the copy the review archived.
    assert_eq!(s.read_or_empty(A, "archive.md"), archive);
}
