//! A person's word that an agent cannot claim (issue 41; docs/SECURITY.md,
//! Persons). On the command line a person's command acts only once the
//! person confirms it on the controlling terminal, or names a person's key
//! file that the account's own keys file knows. An agent-like process —
//! the same user, the person's environment inherited, a redirected
//! configuration folder, no controlling terminal (`setsid`) — can do none
//! of a person's actions and changes no file; a person at a
//! pseudo-terminal the test drives ([`at_terminal`]) confirms with `y`,
//! and `n` refuses. The account's own configuration folder is found from
//! the user database, never the environment, so the tests of its binding
//! and its keys run in a private mount namespace (`unshare`) whose
//! `/etc/passwd` names a temp folder as the home.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::util::{BIN, Run, Sandbox, at_terminal, not_run, run_cmd_as_is};

const A: &str = "agt_a";
const P: &str = "ann";
const FACT: &str = "Deploys need the VPN";
const VETOED: &str = "Staging resets every night";
const ARCHIVED: &str = "The old build server is bart";
const LEARNING: &str = "Run the linter before every push";
const APPROVED: &str = "Releases go out on Tuesdays";

/// Whether util-linux's `setsid` runs here; where not, says so by the
/// test's name.
fn have_setsid() -> bool {
    let ok = Command::new("setsid")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        not_run("no `setsid` program (util-linux) on this machine");
    }
    ok
}

/// `memdir --root ROOT ARGS` as an agent's tool shell runs it: the same
/// user, this process's environment (the person's) with the configuration
/// folder redirected to `config`, in a session of its own with no
/// controlling terminal (`setsid --wait`).
fn agent_like(s: &Sandbox, config: &Path, args: &[&str], stdin: &[u8]) -> Run {
    let mut c = Command::new("setsid");
    c.arg("--wait")
        .arg(BIN)
        .arg("--root")
        .arg(&s.root)
        .args(args)
        .current_dir(s.dir.path())
        .env("MEMDIR_CONFIG_DIR", config)
        .env_remove("MEMDIR_ROOT")
        .env_remove("MEMDIR_OWNER");
    run_cmd_as_is(c, stdin)
}

/// Every file under `dir` with its bytes (folders as empty entries).
fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    crate::util::tree(dir)
        .into_iter()
        .map(|rel| {
            let bytes = std::fs::read(dir.join(&rel)).unwrap_or_default();
            (rel, bytes)
        })
        .collect()
}

/// The `id` of a JSON answer's learning.
fn learning_id(v: &Value) -> String {
    v["learning"]["id"]
        .as_str()
        .expect("a learning id")
        .to_owned()
}

/// A root where agent `A` holds a live fact, a vetoed one and an archived
/// one, and a pending and an approved learning: the ids of the live, the
/// vetoed and the archived fact, the pending and the approved learning.
fn workspace(s: &Sandbox) -> [String; 5] {
    let fact = s.json_ok(&["--owner", A, "add", FACT])["id"]
        .as_str()
        .expect("id")
        .to_owned();
    let vetoed = s.json_ok(&["--owner", A, "add", VETOED])["id"]
        .as_str()
        .expect("id")
        .to_owned();
    let archived = s.json_ok(&["--owner", A, "add", ARCHIVED])["id"]
        .as_str()
        .expect("id")
        .to_owned();
    s.json_ok(&["--owner", A, "archive", &archived, "--reason", "moved"]);
    // The person's own setup, at a terminal (the harness answers yes).
    s.json_ok(&["--person", P, "--agent", A, "veto", &vetoed]);
    let pending = learning_id(&s.json_ok(&["--owner", A, "propose", LEARNING]));
    let approved = learning_id(&s.json_ok(&["--owner", A, "propose", APPROVED]));
    s.json_ok(&["--person", P, "learnings", "approve", &approved]);
    [fact, vetoed, archived, pending, approved]
}

/// Every person's action of the command line, as an agent would try it:
/// the words and what goes to standard input.
fn person_actions<'a>(ids: &'a [String; 5], key_file: &'a str) -> Vec<(Vec<&'a str>, &'a [u8])> {
    let [fact, vetoed, archived, pending, approved] = ids.each_ref().map(String::as_str);
    let pa = |rest: &[&'a str]| -> Vec<&'a str> {
        [&["--json", "--person", P, "--agent", A][..], rest].concat()
    };
    let p = |rest: &[&'a str]| -> Vec<&'a str> { [&["--json", "--person", P][..], rest].concat() };
    let none: &[u8] = b"";
    vec![
        (p(&["learnings", "approve", pending]), none),
        (
            p(&["learnings", "approve", pending, "--text", "Edited"]),
            none,
        ),
        (p(&["learnings", "reject", pending, "--reason", "no"]), none),
        (p(&["learnings", "retire", approved]), none),
        (p(&["learnings"]), none),
        (pa(&["veto", fact]), none),
        (pa(&["--raw", "show"]), none),
        (pa(&["show"]), none),
        (p(&["list"]), none),
        (pa(&["list", "--all"]), none),
        (pa(&["add", VETOED]), none),
        (pa(&["unarchive", vetoed]), none),
        (pa(&["unarchive", archived]), none),
        (pa(&["resolve", vetoed, "--keep", "live"]), none),
        (pa(&["archive", fact, "--reason", "x"]), none),
        (pa(&["renew", fact]), none),
        (
            pa(&["replace", fact, "Deploys need the VPN and a key"]),
            none,
        ),
        (pa(&["remove", fact]), none),
        (pa(&["recall"]), none),
        (pa(&["snapshot"]), none),
        (pa(&["runs", "list"]), none),
        (pa(&["review"]), none),
        (pa(&["review", "pause"]), none),
        (pa(&["skill", "list"]), none),
        (
            pa(&["batch"]),
            &br#"[{"op":"add","text":"Batched by a person"}]"#[..],
        ),
        (
            pa(&["tool", "memory"]),
            &br#"{"command":"view","path":"/memories"}"#[..],
        ),
        (pa(&["result", "put", "wf", "task"]), &b"content"[..]),
        (p(&["key", "create"]), none),
        (p(&["ui"]), none),
        (p(&["check"]), none),
        (p(&["sync"]), none),
        (p(&["mcp"]), none),
        // The key file only this test could have made, of a key the
        // redirected folder's keys file holds: not the account's.
        (
            [
                &["--json", "--key-file", key_file][..],
                &["learnings", "approve", pending],
            ]
            .concat(),
            none,
        ),
        (
            [
                &["--json", "--person", P, "--key-file", key_file][..],
                &["--agent", A, "veto", fact],
            ]
            .concat(),
            none,
        ),
    ]
}

/// A process of the same user with no controlling terminal — an agent's
/// tool shell, the person's environment inherited, its configuration
/// folder redirected to an empty one — is refused every person's action,
/// before anything is read or written: no file of the root or of either
/// configuration folder changes. A key file whose key only a redirected
/// configuration folder knows is refused too.
#[test]
fn an_agent_without_a_terminal_can_do_no_persons_action() {
    if !have_setsid() {
        return;
    }
    let s = Sandbox::new();
    let ids = workspace(&s);
    let empty = s.dir.path().join("empty-config");
    std::fs::create_dir(&empty).unwrap();
    // A person's key forged in a folder the agent chose, as a process
    // that opened a terminal of its own could make one: the key file
    // names it.
    let forged = s.dir.path().join("forged-config");
    let made = s.run(&[
        "--config-dir",
        forged.to_str().unwrap(),
        "--person",
        P,
        "--json",
        "key",
        "create",
    ]);
    let key = made.ok().json()["key"].as_str().expect("a key").to_owned();
    let key_file = s.dir.path().join("forged.key");
    std::fs::write(&key_file, &key).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&key_file, std::fs::Permissions::from_mode(0o600)).unwrap();
    let before = files(s.dir.path());
    let key_file = key_file.to_str().unwrap().to_owned();
    let actions = person_actions(&ids, &key_file);
    assert!(actions.len() >= 30);
    let mut wrong = Vec::new();
    for (args, stdin) in &actions {
        // The agent's own environment names the empty folder, and, for the
        // forged key, the folder that knows it.
        let config = if args.contains(&"--key-file") {
            &forged
        } else {
            &empty
        };
        let r = agent_like(&s, config, args, stdin);
        let answer: Value = serde_json::from_slice(&r.stdout).unwrap_or(Value::Null);
        let e = answer["error"].clone();
        let why = if args.contains(&"--key-file") {
            "key_refused"
        } else {
            "no_terminal"
        };
        if r.code != 1 || e["code"] != "person_unconfirmed" || e["why"] != why {
            wrong.push(format!("{args:?}: {r:?}"));
            continue;
        }
        assert_eq!(e["status"], 403, "{args:?}: {e}");
        assert_eq!(e["hint"]["argument"], "--key-file", "{args:?}: {e}");
        let hint = e["hint"]["text"].as_str().unwrap_or_default();
        assert!(
            hint.contains("memdir serve") && hint.contains("another Unix user"),
            "{hint}"
        );
    }
    assert!(wrong.is_empty(), "not refused:\n{}", wrong.join("\n"));
    assert_eq!(files(s.dir.path()), before, "a file changed");
    // Without --json: the text error, exit 1, nothing on standard output.
    let r = agent_like(
        &s,
        &empty,
        &["--person", P, "learnings", "approve", &ids[3]],
        b"",
    );
    let err = r.text_error("person_unconfirmed");
    assert!(err.contains("no controlling terminal"), "{err}");
    assert!(err.contains("--key-file"), "{err}");
    // The agent itself, with its own identity, still works there.
    let mine = agent_like(&s, &empty, &["--json", "--owner", A, "show"], b"");
    mine.ok();
}

/// The words a transcript holds, the terminal's line ends made plain.
fn transcript(path: &Path) -> String {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .replace("\r\n", "\n")
}

/// `memdir --root ROOT ARGS` at a terminal whose person answers `answer`;
/// the run and what the terminal showed.
fn at_tty(s: &Sandbox, args: &[&str], answer: &str) -> (Run, String) {
    let shown = s.dir.path().join("terminal.txt");
    let _ = std::fs::remove_file(&shown);
    let r = run_cmd_as_is(at_terminal(&s.cmd(args), answer, &shown), b"");
    (r, transcript(&shown))
}

/// A person at a terminal is shown the action — the person, the agent,
/// the command line, the learning's or the fact's text and who proposed
/// it — and asked; `n` refuses (nothing changes), `y` does it. The
/// question is on the terminal, never on standard output, and is asked
/// again for every command: no answer is kept.
#[test]
fn a_person_at_a_terminal_confirms_with_y_and_n_refuses() {
    let s = Sandbox::new();
    let pending = learning_id(&s.json_ok(&["--owner", A, "propose", LEARNING]));
    let approve = [
        "--json",
        "--person",
        P,
        "learnings",
        "approve",
        pending.as_str(),
    ];
    let (r, shown) = at_tty(&s, &approve, "n");
    let e = r.json_error("person_unconfirmed");
    assert_eq!(e["why"], "declined", "{e}");
    assert!(e.get("hint").is_none(), "{e}");
    for part in [
        "as person:  ann",
        "learnings approve",
        LEARNING,
        "pending, proposed by agent:agt_a",
        "Act as person ann? [y/N] n",
    ] {
        assert!(shown.contains(part), "{part:?} not in {shown}");
    }
    assert!(!s.root.join("LEARNINGS.md").exists(), "nothing approved");
    let (r, shown) = at_tty(&s, &approve, "y");
    assert_eq!(r.ok().json()["message"], "approved");
    assert!(shown.contains(LEARNING), "{shown}");
    let learnings = std::fs::read_to_string(s.root.join("LEARNINGS.md")).unwrap();
    assert!(learnings.contains(LEARNING), "{learnings}");

    // A fact, as the files hold it: a terminal escape written by hand is
    // shown as an escape, so it cannot rewrite the question.
    let id = s.json_ok(&["--owner", A, "add", FACT])["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let hand = "Deploys need the \u{1b}[2KVPN";
    let saved = s.read_text(A, "MEMORY.md");
    let memory = format!("{saved}- {hand}\n");
    s.write(A, "MEMORY.md", &memory);
    let hand_id = memdir::api::types::entry_id("memory", hand);
    let veto = |id: &str, answer: &str| {
        at_tty(
            &s,
            &["--json", "--person", P, "--agent", A, "veto", id],
            answer,
        )
    };
    let (r, shown) = veto(&hand_id, "no");
    r.json_error("person_unconfirmed");
    assert_eq!(s.read_text(A, "MEMORY.md"), memory, "nothing vetoed");
    let want = [
        "on agent:   agt_a".to_owned(),
        format!("fact:       {hand_id} (memory store, active): Deploys need the \\u{{1B}}[2KVPN"),
    ];
    for part in &want {
        assert!(shown.contains(part.as_str()), "{part:?} not in {shown}");
    }
    assert!(!shown.contains('\u{1b}'), "{shown:?}");
    s.write(A, "MEMORY.md", &saved);
    let (r, shown) = veto(&id, "y");
    r.ok();
    assert!(
        shown.contains(&format!("(memory store, active): {FACT}")),
        "{shown}"
    );
    assert!(!s.read_plain(A, "MEMORY.md").contains(FACT));
    let archive = s.read_text(A, "archive.md");
    assert!(
        archive.contains(FACT) && archive.contains("vetoed"),
        "{archive}"
    );

    // Every command asks again; the answer goes to the terminal, the
    // answer's JSON alone to standard output.
    for _ in 0..2 {
        let (r, shown) = at_tty(&s, &["--json", "--person", P, "--agent", A, "show"], "y");
        r.ok().json();
        assert_eq!(shown.matches("[y/N]").count(), 1, "{shown}");
    }
    // An agent's command asks nothing.
    let (r, shown) = at_tty(&s, &["--json", "--owner", A, "show"], "n");
    r.ok();
    assert!(shown.is_empty(), "{shown}");
}

/// `unshare --mount --map-root-user`, with `passwd` mounted over
/// `/etc/passwd`, running `cmd`: a process whose user (uid 0 in its own
/// user namespace) the user database gives the home `passwd` names.
fn in_namespace(cmd: &Command, passwd: &Path) -> Command {
    let mut c = Command::new("unshare");
    c.args(["--mount", "--map-root-user", "sh", "-c"])
        .arg(r#"mount --bind "$0" /etc/passwd && exec "$@""#)
        .arg(passwd)
        .arg(cmd.get_program())
        .args(cmd.get_args());
    for (k, v) in cmd.get_envs() {
        match v {
            Some(v) => c.env(k, v),
            None => c.env_remove(k),
        };
    }
    if let Some(dir) = cmd.get_current_dir() {
        c.current_dir(dir);
    }
    c
}

/// A home for uid 0 in a private namespace: the `passwd` file naming it,
/// and the account's configuration folder under it; `None` (said by the
/// test's name) where such a namespace cannot be made here.
fn account(s: &Sandbox) -> Option<(PathBuf, PathBuf)> {
    let home = s.dir.path().join("home");
    let config = home.join(".config/memdir");
    std::fs::create_dir_all(&config).unwrap();
    let passwd = s.dir.path().join("passwd");
    std::fs::write(
        &passwd,
        format!("root:x:0:0:root:{}:/bin/sh\n", home.display()),
    )
    .unwrap();
    let mut probe = Command::new("sh");
    probe.args(["-c", "grep -q \"$0\" /etc/passwd"]).arg(&home);
    let ok = in_namespace(&probe, &passwd)
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        not_run("no private mount namespace (`unshare --mount --map-root-user`) here");
        return None;
    }
    Some((passwd, config))
}

/// The account's own `persons` binding (its configuration folder under the
/// home the user database names) holds whatever folder the caller points
/// `MEMDIR_CONFIG_DIR` or `--config-dir` at: a redirect adds a binding,
/// never takes one away.
#[test]
fn the_accounts_binding_holds_where_the_configuration_folder_is_redirected() {
    let s = Sandbox::new();
    let Some((passwd, config)) = account(&s) else {
        return;
    };
    let pending = learning_id(&s.json_ok(&["--owner", A, "propose", LEARNING]));
    let empty = s.dir.path().join("empty-config");
    std::fs::create_dir(&empty).unwrap();
    let approve = |extra: &[&str]| {
        let mut c = s.cmd(&[&["--json", "--person", P][..], extra].concat());
        c.args(["learnings", "approve", pending.as_str()])
            .env("MEMDIR_CONFIG_DIR", &empty);
        let shown = s.dir.path().join("terminal.txt");
        run_cmd_as_is(at_terminal(&in_namespace(&c, &passwd), "y", &shown), b"")
    };
    // The account binds ann to another user: refused, redirected or not.
    std::fs::write(config.join("config.yaml"), "persons:\n  ann: [4242]\n").unwrap();
    let e = approve(&[]).json_error("person_not_allowed");
    assert_eq!(e["uid"], 0, "{e}");
    approve(&["--config-dir", empty.to_str().unwrap()]).json_error("person_not_allowed");
    assert!(!s.root.join("LEARNINGS.md").exists());
    // A binding of the folder chosen adds to it.
    std::fs::write(config.join("config.yaml"), "persons:\n  ann: [0]\n").unwrap();
    std::fs::write(empty.join("config.yaml"), "persons:\n  bob: [0]\n").unwrap();
    approve(&[]).json_error("person_not_allowed");
    std::fs::write(empty.join("config.yaml"), "persons:\n  ann: [0, 7]\n").unwrap();
    assert_eq!(approve(&[]).ok().json()["message"], "approved");
    // An account configuration that cannot be read refuses every person.
    std::fs::write(config.join("config.yaml"), "persons: [\n").unwrap();
    approve(&[]).json_error("invalid_config");
}

/// Automation acts as a person by naming a key file (`--key-file`) that
/// holds a live person's key of the account's own keys file, with no
/// terminal; a key only a redirected folder's keys file holds, an agent's
/// key, another person's, a revoked one, or a key file others may read is
/// refused.
#[test]
fn a_key_file_of_the_accounts_keys_file_acts_without_a_terminal() {
    if !have_setsid() {
        return;
    }
    let s = Sandbox::new();
    let Some((passwd, config)) = account(&s) else {
        return;
    };
    let empty = s.dir.path().join("empty-config");
    std::fs::create_dir(&empty).unwrap();
    // ann makes her key at a terminal, in the account's keys file.
    let shown = s.dir.path().join("terminal.txt");
    let make = |who: &[&str], folder: &Path| -> String {
        let mut c = s.cmd(&[who, &["--json", "key", "create"][..]].concat());
        c.env("MEMDIR_CONFIG_DIR", folder);
        let r = run_cmd_as_is(at_terminal(&in_namespace(&c, &passwd), "y", &shown), b"");
        r.ok().json()["key"].as_str().expect("a key").to_owned()
    };
    let write_key = |name: &str, key: &str| -> String {
        let p = s.dir.path().join(name);
        std::fs::write(&p, key).unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o600)).unwrap();
        p.to_str().unwrap().to_owned()
    };
    let ann = write_key("ann.key", &make(&["--person", P], &config));
    let agent = write_key("agent.key", &make(&["--owner", A], &config));
    let forged = write_key("forged.key", &make(&["--person", P], &empty));
    let no_tty = |args: &[&str]| {
        let mut c = Command::new("setsid");
        c.arg("--wait")
            .arg(BIN)
            .arg("--root")
            .arg(&s.root)
            .args(args)
            .current_dir(s.dir.path())
            .env("MEMDIR_CONFIG_DIR", &empty);
        run_cmd_as_is(in_namespace(&c, &passwd), b"")
    };
    let p1 = learning_id(&s.json_ok(&["--owner", A, "propose", LEARNING]));
    let p2 = learning_id(&s.json_ok(&["--owner", A, "propose", APPROVED]));
    let refused = |args: &[&str], why: &str| {
        let e = no_tty(args).json_error("person_unconfirmed");
        assert_eq!(e["why"], why, "{args:?}: {e}");
    };
    refused(
        &[
            "--json",
            "--person",
            P,
            "--key-file",
            &forged,
            "learnings",
            "approve",
            &p1,
        ],
        "key_refused",
    );
    refused(
        &["--json", "--key-file", &agent, "learnings", "approve", &p1],
        "agent_key",
    );
    refused(
        &[
            "--json",
            "--person",
            "bob",
            "--key-file",
            &ann,
            "learnings",
            "approve",
            &p1,
        ],
        "key_refused",
    );
    assert!(!s.root.join("LEARNINGS.md").exists());
    // ann's key file: her word, without a terminal (and without --person:
    // the key names her).
    let v = no_tty(&[
        "--json",
        "--person",
        P,
        "--key-file",
        &ann,
        "learnings",
        "approve",
        &p1,
    ]);
    assert_eq!(v.ok().json()["learning"]["decided_by"], "person:ann");
    let v = no_tty(&[
        "--json",
        "--key-file",
        &ann,
        "learnings",
        "reject",
        &p2,
        "--reason",
        "no",
    ]);
    assert_eq!(v.ok().json()["learning"]["decided_by"], "person:ann");
    // Whoever can read a key file is its person: one open to others is
    // refused.
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&ann, std::fs::Permissions::from_mode(0o644)).unwrap();
    no_tty(&["--json", "--key-file", &ann, "learnings"]).json_error("invalid_config");
    std::fs::set_permissions(&ann, std::fs::Permissions::from_mode(0o600)).unwrap();
    // Revoked in the account's keys file: refused.
    let keys = config.join("keys.yaml");
    let keys = keys.to_str().unwrap();
    let listed = s.json_ok(&["key", "list", "--keys", keys]);
    let id = listed["keys"][0]["id"].as_str().unwrap().to_owned();
    s.json_ok(&["key", "revoke", &id, "--keys", keys]);
    refused(&["--json", "--key-file", &ann, "learnings"], "key_refused");
}

/// The command line makes a person's caller in one place, the
/// confirmation (`cli/confirm.rs`): no other module of the command line
/// can act as a person without the person's word.
#[test]
fn the_command_line_makes_a_persons_caller_only_once_confirmed() {
    let bin = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/src"));
    let mut found = Vec::new();
    let mut sources = vec![bin.join("main.rs")];
    for e in std::fs::read_dir(bin.join("cli")).unwrap().flatten() {
        sources.push(e.path());
    }
    for p in sources {
        let text = std::fs::read_to_string(&p).unwrap();
        if text.contains("Caller::Person(") {
            found.push(p.file_name().unwrap().to_string_lossy().into_owned());
        }
    }
    assert_eq!(found, ["confirm.rs"]);
}
