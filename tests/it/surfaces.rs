//! The three surfaces asked the same things: one table of requests, each as
//! the command line (`memdir … --json`), as an MCP tool call and as an HTTP
//! route, run against the same fresh store state on three sandboxes (one
//! per surface, reseeded byte for byte before every case). The answers are
//! normalised and compared: for writes the entry id, the budget numbers and
//! the files written; for reads the ids in order; for errors the code and
//! the message with the hint's wording taken off. Every mismatch is
//! collected and the test fails once, listing them all; a drift known and
//! left to the adapters' owners is in [`KNOWN_DRIFTS`], which fails when the
//! drift is gone.
//!
//! Also here: README.md's quick start and install examples, run as written
//! on a sandbox.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use crate::http::{Server, make_key, serve};
use crate::mcp;
use crate::util::{self, Sandbox};

/// The agent every case acts as (or, for a person, acts on).
const AGENT: &str = "agt_s";
/// The person of the person cases.
const PERSON: &str = "ann";

/// Cases whose answers differ between the surfaces today, each with what
/// differs; the lead fixes them in the adapters. A case listed here whose
/// answers agree fails the test, so the list is kept true.
const KNOWN_DRIFTS: &[(&str, &str)] = &[];

// ---------------------------------------------------------------------------
// The seed: the same bytes on every sandbox before every case.

/// A fact line with fixed metadata, so that every sandbox holds the same
/// bytes and the list order (newest first) is fixed.
fn fact(text: &str, day: u32) -> String {
    format!(
        "- {text} <!-- memdir created=2026-11-{day:02}T08:00:00Z expires=2099-12-31T23:59:59Z agent={AGENT} -->\n"
    )
}

fn user_fact(text: &str, day: u32) -> String {
    format!("- {text} <!-- memdir created=2026-11-{day:02}T08:00:00Z agent={AGENT} -->\n")
}

/// A long user fact (the user store starts near its budget of 1,375).
fn long(n: usize) -> String {
    let mut t = format!("Background note {} about the user:", util::word("q", n));
    while t.len() < 420 {
        t.push(' ');
        t.push_str(&util::word("w", t.len() + n * 1000));
    }
    t
}

fn memory_md() -> String {
    [
        fact("Staging needs the VPN on", 1),
        fact("Staging deploys run on fridays", 2),
        fact("The build cache lives in /srv/cache", 3),
    ]
    .concat()
}

fn user_md() -> String {
    [
        user_fact("Prefers weekly summaries", 4),
        user_fact(&long(1), 5),
        user_fact(&long(2), 6),
        user_fact(&long(3), 7),
    ]
    .concat()
}

/// Puts the seed in place: the agent's folder as the seed has it and
/// nothing else (what an earlier case wrote is gone).
fn reseed(s: &Sandbox) {
    let dir = s.owner_dir(AGENT);
    if dir.exists() {
        std::fs::remove_dir_all(&dir).expect("remove the agent's folder");
    }
    s.write(AGENT, "MEMORY.md", memory_md());
    s.write(AGENT, "USER.md", user_md());
}

fn id(scope: &str, text: &str) -> String {
    memdir::api::types::entry_id(scope, text)
}

// ---------------------------------------------------------------------------
// The table.

/// Who asks.
#[derive(Clone, Copy, PartialEq)]
enum Who {
    /// The agent, on its own memory.
    Agent,
    /// The person, naming the agent where the request does.
    Person,
}

/// What a case compares.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Kind {
    /// The id, the budget numbers and the files.
    Write,
    /// The ids, in order.
    Ids,
    /// The snapshot's text.
    Text,
    /// The error code and message.
    Error(&'static str),
}

/// One request on one surface, or why the surface has none.
enum Ask {
    Cli(Vec<String>),
    Mcp(&'static str, Value),
    McpResource(String),
    Http(&'static str, String, Option<Value>),
    Lacks(&'static str),
}

struct Case {
    name: &'static str,
    who: Who,
    kind: Kind,
    /// Command-line arguments run on every sandbox before the case.
    setup: Vec<Vec<String>>,
    cli: Ask,
    mcp: Ask,
    http: Ask,
}

fn cli(args: &[&str]) -> Ask {
    Ask::Cli(args.iter().map(|a| (*a).to_owned()).collect())
}

fn args(a: &[&str]) -> Vec<String> {
    a.iter().map(|a| (*a).to_owned()).collect()
}

fn http(method: &'static str, path: &str, body: Option<Value>) -> Ask {
    Ask::Http(method, path.to_owned(), body)
}

#[allow(
    clippy::too_many_lines,
    reason = "a table: one case a request, with its call on each surface"
)]
fn cases() -> Vec<Case> {
    let vpn = id("memory", "Staging needs the VPN on");
    let cache = id("memory", "The build cache lives in /srv/cache");
    let gone = "mem_000000000000".to_owned();
    let over_500 = format!("A long fact: {}", long(4)).repeat(2);
    let too_big = format!("Works best with {}", long(9))
        .chars()
        .take(200)
        .collect::<String>();
    let c = |name, who, kind, cli, mcp, http| Case {
        name,
        who,
        kind,
        setup: Vec::new(),
        cli,
        mcp,
        http,
    };
    let mut v = vec![
        // Writes.
        c(
            "save a fact with an expiry",
            Who::Agent,
            Kind::Write,
            cli(&["add", "Rotate the keys monthly", "--expires", "2099-06-30"]),
            Ask::Mcp(
                "memory",
                json!({"action": "save", "content": "Rotate the keys monthly", "expires": "2099-06-30"}),
            ),
            http(
                "POST",
                "/api/v1/memories",
                Some(json!({"text": "Rotate the keys monthly", "expiresAt": "2099-06-30"})),
            ),
        ),
        c(
            "remember in memory (default expiry)",
            Who::Agent,
            Kind::Write,
            cli(&["add", "Prod deploys need two approvals"]),
            Ask::Mcp(
                "memory",
                json!({"action": "remember", "content": "Prod deploys need two approvals"}),
            ),
            http(
                "POST",
                "/v1/memory/remember",
                Some(json!({"text": "Prod deploys need two approvals"})),
            ),
        ),
        c(
            "remember in user",
            Who::Agent,
            Kind::Write,
            cli(&["add", "--to", "user", "Works in UTC"]),
            Ask::Mcp(
                "memory",
                json!({"action": "remember", "target": "user", "content": "Works in UTC"}),
            ),
            http(
                "POST",
                "/v1/memory/remember",
                Some(json!({"text": "Works in UTC", "scope": "user"})),
            ),
        ),
        c(
            "remember what is stored already",
            Who::Agent,
            Kind::Write,
            cli(&["add", "Staging needs the VPN on"]),
            Ask::Mcp(
                "memory",
                json!({"action": "remember", "content": "Staging needs the VPN on"}),
            ),
            http(
                "POST",
                "/v1/memory/remember",
                Some(json!({"text": "Staging needs the VPN on"})),
            ),
        ),
        c(
            "replace by substring",
            Who::Agent,
            Kind::Write,
            cli(&["replace", "weekly", "Prefers monthly summaries"]),
            Ask::Mcp(
                "memory",
                json!({"action": "remember", "operation": "replace", "old_text": "weekly",
                       "content": "Prefers monthly summaries"}),
            ),
            Ask::Lacks("no agent replace over HTTP: PATCH /api/v1/memories/{id} is a person's"),
        ),
        c(
            "remove by substring",
            Who::Agent,
            Kind::Write,
            cli(&["remove", "build cache"]),
            Ask::Mcp(
                "memory",
                json!({"action": "remember", "operation": "remove", "old_text": "build cache"}),
            ),
            http(
                "POST",
                "/v1/memory/forget",
                Some(json!({"text": "build cache"})),
            ),
        ),
        c(
            "remove by id",
            Who::Agent,
            Kind::Write,
            cli(&["remove", &cache]),
            Ask::Mcp(
                "memory",
                json!({"action": "remember", "operation": "remove", "old_text": cache}),
            ),
            http("POST", "/v1/memory/forget", Some(json!({"id": cache}))),
        ),
        c(
            "archive",
            Who::Agent,
            Kind::Write,
            cli(&["archive", &vpn, "--reason", "moved to the wiki"]),
            Ask::Mcp(
                "memory",
                json!({"action": "archive", "id": vpn, "reason": "moved to the wiki"}),
            ),
            http(
                "POST",
                &format!("/api/v1/memories/{vpn}/archive"),
                Some(json!({"reason": "moved to the wiki"})),
            ),
        ),
        Case {
            setup: vec![args(&[
                "--owner", AGENT, "archive", &vpn, "--reason", "old",
            ])],
            ..c(
                "unarchive",
                Who::Agent,
                Kind::Write,
                cli(&["unarchive", &vpn]),
                Ask::Mcp("memory", json!({"action": "unarchive", "id": vpn})),
                http(
                    "POST",
                    &format!("/api/v1/memories/{vpn}/unarchive"),
                    Some(json!({})),
                ),
            )
        },
        c(
            "veto (a person)",
            Who::Person,
            Kind::Write,
            cli(&["veto", &vpn, "--reason", "wrong"]),
            Ask::Mcp(
                "memory",
                json!({"action": "veto", "id": vpn, "reason": "wrong", "agentId": AGENT}),
            ),
            http(
                "POST",
                &format!("/api/v1/memories/{vpn}/veto"),
                Some(json!({"reason": "wrong", "agentId": AGENT})),
            ),
        ),
        c(
            "renew",
            Who::Agent,
            Kind::Write,
            cli(&["renew", &vpn, "--expires", "2099-01-31"]),
            Ask::Lacks("MCP's memory tool has no renew action"),
            Ask::Lacks("HTTP has no renew route"),
        ),
        // Reads.
        c(
            "list the facts",
            Who::Agent,
            Kind::Ids,
            cli(&["list", "--limit", "50"]),
            Ask::Mcp("memory", json!({"action": "list", "limit": 50})),
            http("GET", "/api/v1/memories?limit=50", None),
        ),
        c(
            "show one store",
            Who::Agent,
            Kind::Ids,
            cli(&["show", "--in", "memory"]),
            Ask::Mcp(
                "memory",
                json!({"action": "remember", "operation": "read", "target": "memory"}),
            ),
            Ask::Lacks(
                "HTTP lists both stores only (GET /v1/memory/recall: case `show both stores`)",
            ),
        ),
        c(
            "show both stores",
            Who::Agent,
            Kind::Ids,
            cli(&["show"]),
            Ask::Lacks("MCP's read lists one store (case `show one store`)"),
            http("GET", "/v1/memory/recall", None),
        ),
        c(
            "recall for a query",
            Who::Agent,
            Kind::Ids,
            cli(&["recall", "--query", "staging VPN"]),
            Ask::Mcp(
                "memory",
                json!({"action": "recall_facts", "query": "staging VPN"}),
            ),
            http(
                "POST",
                "/api/v1/memories/recall",
                Some(json!({"query": "staging VPN"})),
            ),
        ),
        c(
            "snapshot",
            Who::Agent,
            Kind::Text,
            cli(&["snapshot"]),
            Ask::McpResource(format!("memdir://{AGENT}/snapshot")),
            http("GET", "/v1/snapshot", None),
        ),
        // Errors.
        c(
            "add past the budget",
            Who::Agent,
            Kind::Error("memory_over_budget"),
            cli(&["add", "--to", "user", &too_big]),
            Ask::Mcp(
                "memory",
                json!({"action": "remember", "target": "user", "content": too_big}),
            ),
            http(
                "POST",
                "/v1/memory/remember",
                Some(json!({"text": too_big, "scope": "user"})),
            ),
        ),
        c(
            "remove: no entry matches",
            Who::Agent,
            Kind::Error("memory_not_found"),
            cli(&["remove", "nothing like it"]),
            Ask::Mcp(
                "memory",
                json!({"action": "remember", "operation": "remove", "old_text": "nothing like it"}),
            ),
            http(
                "POST",
                "/v1/memory/forget",
                Some(json!({"text": "nothing like it"})),
            ),
        ),
        c(
            "remove: ambiguous match",
            Who::Agent,
            Kind::Error("memory_ambiguous_match"),
            cli(&["remove", "Staging"]),
            Ask::Mcp(
                "memory",
                json!({"action": "remember", "operation": "remove", "old_text": "Staging"}),
            ),
            http(
                "POST",
                "/v1/memory/forget",
                Some(json!({"text": "Staging"})),
            ),
        ),
        c(
            "save with an expiry in the past",
            Who::Agent,
            Kind::Error("invalid_expiry"),
            cli(&["add", "Old news", "--expires", "2000-01-01"]),
            Ask::Mcp(
                "memory",
                json!({"action": "save", "content": "Old news", "expires": "2000-01-01"}),
            ),
            http(
                "POST",
                "/api/v1/memories",
                Some(json!({"text": "Old news", "expiresAt": "2000-01-01"})),
            ),
        ),
        c(
            "a person names no agent",
            Who::Person,
            Kind::Error("memory_agent_required"),
            cli(&["add", "Likes tea"]),
            Ask::Mcp("memory", json!({"action": "save", "content": "Likes tea"})),
            http(
                "POST",
                "/api/v1/memories",
                Some(json!({"text": "Likes tea"})),
            ),
        ),
        c(
            "archive an unknown id",
            Who::Agent,
            Kind::Error("memory_not_found"),
            cli(&["archive", &gone, "--reason", "x"]),
            Ask::Mcp(
                "memory",
                json!({"action": "archive", "id": gone, "reason": "x"}),
            ),
            http(
                "POST",
                &format!("/api/v1/memories/{gone}/archive"),
                Some(json!({"reason": "x"})),
            ),
        ),
        c(
            "an agent vetoes",
            Who::Agent,
            Kind::Error("memory_veto_human_only"),
            cli(&["veto", &vpn]),
            Ask::Mcp("memory", json!({"action": "veto", "id": vpn})),
            http(
                "POST",
                &format!("/api/v1/memories/{vpn}/veto"),
                Some(json!({})),
            ),
        ),
        c(
            "unarchive an active fact",
            Who::Agent,
            Kind::Error("memory_wrong_state"),
            cli(&["unarchive", &vpn]),
            Ask::Mcp("memory", json!({"action": "unarchive", "id": vpn})),
            http(
                "POST",
                &format!("/api/v1/memories/{vpn}/unarchive"),
                Some(json!({})),
            ),
        ),
        c(
            "resolve a fact in no pair",
            Who::Agent,
            Kind::Error("memory_wrong_state"),
            cli(&["resolve", &vpn, "--keep", "both"]),
            Ask::Mcp(
                "memory",
                json!({"action": "resolve", "id": vpn, "keep": "both"}),
            ),
            http(
                "POST",
                &format!("/api/v1/memories/{vpn}/resolve"),
                Some(json!({"keep": "both"})),
            ),
        ),
        c(
            "resolve keeping live a fact never archived",
            Who::Person,
            Kind::Error("memory_wrong_state"),
            cli(&["resolve", &vpn, "--keep", "live"]),
            Ask::Mcp(
                "memory",
                json!({"action": "resolve", "id": vpn, "keep": "live", "agentId": AGENT}),
            ),
            http(
                "POST",
                &format!("/api/v1/memories/{vpn}/resolve"),
                Some(json!({"keep": "live", "agentId": AGENT})),
            ),
        ),
        c(
            "a result of a workflow nothing knows",
            Who::Agent,
            Kind::Error("result_not_found"),
            cli(&["result", "get", "wf-nobody", "t1"]),
            Ask::Mcp(
                "get_result",
                json!({"workflow_id": "wf-nobody", "task_id": "t1"}),
            ),
            http("GET", "/v1/workflows/results/wf-nobody/t1", None),
        ),
        c(
            "replace in the other store",
            Who::Agent,
            Kind::Error("memory_not_found"),
            cli(&[
                "replace",
                "--in",
                "user",
                "VPN",
                "Staging needs the VPN off",
            ]),
            Ask::Mcp(
                "memory",
                json!({"action": "remember", "operation": "replace", "target": "user",
                       "old_text": "VPN", "content": "Staging needs the VPN off"}),
            ),
            Ask::Lacks("no agent replace over HTTP: PATCH /api/v1/memories/{id} is a person's"),
        ),
        c(
            "a fact over 500 characters",
            Who::Agent,
            Kind::Error("memory_text_too_long"),
            cli(&["add", &over_500]),
            Ask::Mcp("memory", json!({"action": "save", "content": over_500})),
            http("POST", "/api/v1/memories", Some(json!({"text": over_500}))),
        ),
        c(
            "a person writes the day log",
            Who::Person,
            Kind::Error("memory_day_agent_only"),
            cli(&["day", "Looked at the logs"]),
            Ask::Mcp(
                "memory",
                json!({"action": "day", "content": "Looked at the logs", "agentId": AGENT}),
            ),
            http(
                "POST",
                "/api/v1/memories/day",
                Some(json!({"line": "Looked at the logs", "agentId": AGENT})),
            ),
        ),
        c(
            "an unknown skill",
            Who::Agent,
            Kind::Error("skill_not_found"),
            cli(&["skill", "show", "no-such-skill"]),
            Ask::Mcp("learn", json!({"action": "show", "name": "no-such-skill"})),
            http("GET", "/v1/skills/no-such-skill", None),
        ),
    ];
    // A person's command line names the agent with --agent (the case of a
    // missing agent leaves it out).
    for case in &mut v {
        if case.who == Who::Person
            && case.kind != Kind::Error("memory_agent_required")
            && let Ask::Cli(a) = &mut case.cli
        {
            a.splice(0..0, args(&["--agent", AGENT]));
        }
    }
    v
}

// ---------------------------------------------------------------------------
// The normalised answer.

#[derive(Debug, PartialEq, Clone, Default)]
struct Outcome {
    /// The error code, or None for a success.
    code: Option<String>,
    /// The error message without the hint's words.
    message: Option<String>,
    /// The ids of the current entries a failed write answers with, sorted
    /// (the surfaces list the stores in different orders); compared where
    /// both answers list them (MCP lists them under an ambiguous match too,
    /// the JSON answers give the candidates only).
    listed: Option<Vec<String>>,
    /// The entry id a write answers with.
    id: Option<String>,
    /// `(used, limit)` a write answers with.
    budget: Option<(u64, u64)>,
    /// The ids a read answers with, in order.
    ids: Option<Vec<String>>,
    /// The snapshot's text.
    text: Option<String>,
    /// The agent's files after the case (this run's times replaced),
    /// `.memdir/` left out.
    files: BTreeMap<String, String>,
}

static MEM_ID: std::sync::LazyLock<regex::Regex> =
    std::sync::LazyLock::new(|| regex::Regex::new(r"mem_[0-9a-f]{12}").expect("regex"));
static CHARS: std::sync::LazyLock<regex::Regex> =
    std::sync::LazyLock::new(|| regex::Regex::new(r"(\d+)/(\d+) chars").expect("regex"));
static TIME: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
    regex::Regex::new(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z").expect("regex")
});
/// A hint at the end of a message, in any surface's words.
static HINT: std::sync::LazyLock<regex::Regex> =
    std::sync::LazyLock::new(|| regex::Regex::new(r"[;:,]? pass \S.*$").expect("regex"));

/// `message` without its hint: the hint's text where the answer carries
/// it as data, and a trailing `; pass …` in any surface's words.
fn strip_hint(message: &str, hint: Option<&str>) -> String {
    let mut m = message.trim_end().to_owned();
    if let Some(h) = hint.filter(|h| !h.is_empty())
        && let Some(head) = m.strip_suffix(h)
    {
        m = head.trim_end_matches([' ', ';', ':', ',', '.']).to_owned();
    }
    for h in MCP_HINTS {
        if let Some(head) = m.strip_suffix(h) {
            m = head.trim_end_matches([' ', ';', ':', ',', '.']).to_owned();
        }
    }
    HINT.replace(&m, "").into_owned()
}

/// The MCP surface's hints that are not `pass …` (its text carries no hint
/// as data; src/api/errors.rs words them).
const MCP_HINTS: &[&str] = &[
    "Use action: list to see yours.",
    "a result is immutable: store this one under another task_id",
    "name another folder",
];

/// The id a write names: the new one of a replace (the last on the line).
fn last_id(line: &str) -> Option<String> {
    MEM_ID.find_iter(line).last().map(|m| m.as_str().to_owned())
}

/// A JSON error object (the command line's and HTTP's) as an outcome.
fn json_error(e: &Value) -> Outcome {
    Outcome {
        code: e["code"].as_str().map(str::to_owned),
        message: e["message"]
            .as_str()
            .map(|m| strip_hint(m, e["hint"]["text"].as_str())),
        listed: ["entries"].iter().find_map(|k| {
            let mut ids: Vec<String> = e[*k]
                .as_array()?
                .iter()
                .filter_map(|r| r["id"].as_str().map(str::to_owned))
                .collect();
            ids.sort();
            // No entries to list: as MCP, which then lists none.
            (!ids.is_empty()).then_some(ids)
        }),
        ..Outcome::default()
    }
}

/// The ids of a `--json` read answer of the command line or HTTP.
fn json_ids(v: &Value) -> Option<Vec<String>> {
    let ids = |rows: &Value| {
        rows.as_array().map(|a| {
            a.iter()
                .filter_map(|r| r["id"].as_str().map(str::to_owned))
                .collect::<Vec<_>>()
        })
    };
    if let Some(stores) = v["stores"].as_array() {
        return Some(
            stores
                .iter()
                .flat_map(|s| ids(&s["entries"]).unwrap_or_default())
                .collect(),
        );
    }
    ids(&v["rows"])
        .or_else(|| ids(&v["entries"]))
        .or_else(|| ids(&v["facts"]))
}

fn json_outcome(kind: Kind, v: &Value) -> Outcome {
    if v.get("error").is_some() {
        return json_error(&v["error"]);
    }
    let budget = ["usage", "budget"]
        .iter()
        .find_map(|k| Some((v[*k]["used"].as_u64()?, v[*k]["limit"].as_u64()?)));
    match kind {
        Kind::Ids => Outcome {
            ids: json_ids(v),
            ..Outcome::default()
        },
        Kind::Text => Outcome {
            text: v["text"].as_str().map(str::to_owned),
            ..Outcome::default()
        },
        _ => Outcome {
            id: v["id"].as_str().map(str::to_owned),
            budget,
            ..Outcome::default()
        },
    }
}

fn mcp_outcome(kind: Kind, text: &str, is_error: bool) -> Outcome {
    let first = text.lines().next().unwrap_or_default();
    if is_error {
        let (code, message) = first
            .strip_prefix("error[")
            .and_then(|r| r.split_once("]: "))
            .map_or((None, first.to_owned()), |(c, m)| {
                (Some(c.to_owned()), m.to_owned())
            });
        return Outcome {
            code: code.or(Some(String::from("(no code in the text)"))),
            message: Some(strip_hint(&message, None)),
            listed: text.contains("\nCurrent entries of ").then(|| {
                let mut ids = mcp_ids(text);
                ids.sort();
                ids
            }),
            ..Outcome::default()
        };
    }
    match kind {
        Kind::Ids => Outcome {
            ids: Some(mcp_ids(text)),
            ..Outcome::default()
        },
        Kind::Text => Outcome {
            text: Some(text.to_owned()),
            ..Outcome::default()
        },
        _ => Outcome {
            id: last_id(first),
            budget: CHARS
                .captures(first)
                .map(|c| (c[1].parse().expect("used"), c[2].parse().expect("limit"))),
            ..Outcome::default()
        },
    }
}

/// The ids an MCP read answer names, in order, each once: the first id on
/// each line that names one (a wrapped text line names none; a recall names
/// its facts again with their scores); a store's `read`, which lists texts
/// under `## USER.md` / `## MEMORY.md`, gives them as the ids of those texts.
fn mcp_ids(text: &str) -> Vec<String> {
    let mut ids: Vec<String> = Vec::new();
    let mut scope = None;
    for line in text.lines() {
        if line.starts_with("## USER.md") {
            scope = Some("user");
        } else if line.starts_with("## MEMORY.md") {
            scope = Some("memory");
        }
        let found = match (MEM_ID.find(line), scope, line.strip_prefix("- ")) {
            (Some(m), _, _) => m.as_str().to_owned(),
            (None, Some(scope), Some(t)) => id(scope, t),
            _ => continue,
        };
        if !ids.contains(&found) {
            ids.push(found);
        }
    }
    ids
}

/// `text` with the times of this run replaced: a time within ten minutes
/// of now is `<now>`, one within ten minutes of 90 days from now (the
/// default expiry) is `<now+90d>`; every other time (the seed's, a given
/// expiry) stays as it is, so that a differing expiry is seen.
fn times_of_now(text: &str) -> String {
    let now = chrono::Utc::now();
    let near = |t: chrono::DateTime<chrono::Utc>, to: chrono::DateTime<chrono::Utc>| {
        (t - to).num_seconds().abs() < 600
    };
    TIME.replace_all(
        text,
        |c: &regex::Captures<'_>| match chrono::DateTime::parse_from_rfc3339(&c[0])
            .map(|t| t.to_utc())
        {
            Ok(t) if near(t, now) => "<now>".to_owned(),
            Ok(t) if near(t, now + chrono::Duration::days(90)) => "<now+90d>".to_owned(),
            _ => c[0].to_owned(),
        },
    )
    .into_owned()
}

/// The agent's files (not `.memdir/`), the times of this run replaced
/// ([`times_of_now`]).
fn files(s: &Sandbox) -> BTreeMap<String, String> {
    let dir = s.owner_dir(AGENT);
    util::tree(&dir)
        .into_iter()
        .filter(|p| !p.ends_with('/') && !p.starts_with(".memdir"))
        .map(|p| {
            let bytes = std::fs::read(dir.join(&p)).expect("read a file");
            let text = String::from_utf8_lossy(&bytes);
            (p, times_of_now(&text))
        })
        .collect()
}

// ---------------------------------------------------------------------------
// The surfaces: an MCP client (copied from mcp.rs) and an HTTP server
// (a smaller copy of http.rs's harness).

/// `method path` with `body`, as `key`, on the server: the answer's JSON.
fn ask_http(srv: &Server, key: &str, method: &str, path: &str, body: Option<&Value>) -> Value {
    match method {
        "GET" => srv.get(Some(key), path).json(),
        "POST" => srv
            .post(Some(key), path, body.cloned().unwrap_or(json!({})))
            .json(),
        m => panic!("no method {m} in the table"),
    }
}

// ---------------------------------------------------------------------------
// The test.

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[allow(
    clippy::too_many_lines,
    reason = "one scenario over the servers it starts: each case of `cases` on every surface"
)]
async fn the_same_request_gets_the_same_answer_on_every_surface() {
    let on_cli = Sandbox::new();
    let on_mcp = Sandbox::new();
    let on_http = Sandbox::new();
    for s in [&on_cli, &on_mcp, &on_http] {
        reseed(s);
    }
    let mcp_agent = mcp::start(&on_mcp, &["--owner", AGENT], &[]).await;
    let mcp_person = mcp::start(&on_mcp, &["--person", PERSON], &[]).await;
    let agent_key = make_key(&on_http, &["--owner", AGENT]);
    let person_key = make_key(&on_http, &["--person", PERSON]);
    let srv = serve(&on_http, &["--review-every", "0"]);

    let mut mismatches = Vec::new();
    let mut drifts_seen = Vec::new();
    let mut compared = 0;
    for case in cases() {
        for s in [&on_cli, &on_mcp, &on_http] {
            reseed(s);
            for a in &case.setup {
                s.run(&a.iter().map(String::as_str).collect::<Vec<_>>())
                    .ok();
            }
        }
        let mut answers: Vec<(&str, Outcome)> = Vec::new();
        for (surface, ask, s) in [
            ("cli", &case.cli, &on_cli),
            ("mcp", &case.mcp, &on_mcp),
            ("http", &case.http, &on_http),
        ] {
            let mut out = match ask {
                Ask::Lacks(_) => continue,
                Ask::Cli(a) => {
                    let who = match case.who {
                        Who::Agent => ["--owner", AGENT],
                        Who::Person => ["--person", PERSON],
                    };
                    let mut full: Vec<&str> = who.to_vec();
                    full.push("--json");
                    full.extend(a.iter().map(String::as_str));
                    let run = s.run(&full);
                    json_outcome(case.kind, &run.json())
                }
                Ask::Mcp(tool, a) => {
                    let c = match case.who {
                        Who::Agent => &mcp_agent,
                        Who::Person => &mcp_person,
                    };
                    let (text, is_error) = mcp::call(c, tool, a.clone()).await;
                    mcp_outcome(case.kind, &text, is_error)
                }
                Ask::McpResource(uri) => {
                    let text = mcp::read(&mcp_agent, uri).await;
                    mcp_outcome(case.kind, &text, false)
                }
                Ask::Http(method, path, body) => {
                    let key = match case.who {
                        Who::Agent => &agent_key,
                        Who::Person => &person_key,
                    };
                    json_outcome(case.kind, &ask_http(&srv, key, method, path, body.as_ref()))
                }
            };
            if case.kind == Kind::Write {
                out.files = files(s);
            }
            answers.push((surface, out));
        }
        let mut diffs = Vec::new();
        // Each answer is what its case expects.
        for (surface, out) in &answers {
            let expected = match case.kind {
                Kind::Error(code) => Some(code.to_owned()),
                _ => None,
            };
            if out.code != expected {
                diffs.push(format!(
                    "{surface}: code {:?}, expected {expected:?}: {out:?}",
                    out.code
                ));
            }
            let missing = match case.kind {
                Kind::Write => out.id.is_none(),
                Kind::Ids => out.ids.as_ref().is_none_or(Vec::is_empty),
                Kind::Text => out.text.is_none(),
                Kind::Error(_) => out.message.is_none(),
            };
            if out.code == expected && missing {
                diffs.push(format!("{surface}: nothing to compare in {out:?}"));
            }
        }
        // And the same as the first surface's.
        if let Some(((first, base), rest)) = answers.split_first() {
            for (surface, out) in rest {
                for (field, a, b) in [
                    (
                        "code",
                        format!("{:?}", base.code),
                        format!("{:?}", out.code),
                    ),
                    (
                        "message",
                        format!("{:?}", base.message),
                        format!("{:?}", out.message),
                    ),
                    (
                        "listed entries",
                        format!("{:?}", base.listed),
                        format!("{:?}", out.listed),
                    ),
                    ("id", format!("{:?}", base.id), format!("{:?}", out.id)),
                    (
                        "budget",
                        format!("{:?}", base.budget),
                        format!("{:?}", out.budget),
                    ),
                    ("ids", format!("{:?}", base.ids), format!("{:?}", out.ids)),
                    (
                        "text",
                        format!("{:?}", base.text),
                        format!("{:?}", out.text),
                    ),
                    (
                        "files",
                        format!("{:?}", base.files),
                        format!("{:?}", out.files),
                    ),
                ] {
                    let one_lists = field == "listed entries"
                        && (base.listed.is_none() || out.listed.is_none());
                    if a != b && !one_lists {
                        diffs.push(format!("{field}: {first} {a}\n      {surface} {b}"));
                    }
                }
            }
        }
        compared += 1;
        let known = KNOWN_DRIFTS.iter().find(|(n, _)| *n == case.name);
        match (known, diffs.is_empty()) {
            (None, true) => {}
            (None, false) => mismatches.push(format!("case `{}`:\n    {}", case.name, diffs.join("\n    "))),
            (Some(_), false) => drifts_seen.push(case.name),
            (Some((_, what)), true) => mismatches.push(format!(
                "case `{}` is listed in KNOWN_DRIFTS ({what}) but the surfaces agree now: take it off the list",
                case.name
            )),
        }
    }
    for (name, _) in KNOWN_DRIFTS {
        assert!(
            cases().iter().any(|c| c.name == *name),
            "KNOWN_DRIFTS names no case of the table: {name}"
        );
    }
    assert!(compared >= 20, "the table ran {compared} cases");
    assert!(
        mismatches.is_empty(),
        "{} of {compared} cases differ between the surfaces:\n{}",
        mismatches.len(),
        mismatches.join("\n")
    );
    assert_eq!(drifts_seen.len(), KNOWN_DRIFTS.len(), "{drifts_seen:?}");
}

/// Every case names the three surfaces, and a surface that lacks the
/// operation says why.
#[test]
fn every_case_says_what_each_surface_does() {
    for case in cases() {
        for ask in [&case.cli, &case.mcp, &case.http] {
            if let Ask::Lacks(why) = ask {
                assert!(!why.is_empty(), "{}", case.name);
            }
        }
        assert!(
            !matches!(case.cli, Ask::Lacks(_)),
            "the command line offers every operation: {}",
            case.name
        );
    }
}

// ---------------------------------------------------------------------------
// README.md's examples, run as written.
