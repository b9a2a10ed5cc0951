//! The JSON Schemas of every JSON answer, derived from the types that are
//! serialized (`api::wire`, and the library's types the answers carry) by
//! schemars, never written by hand: the files under `docs/schema/` (the
//! command line's `--json` answers and its failures), under
//! `docs/schema/http/` (`memdir serve`'s answers, which refer to the
//! command line's by `$ref` where they are the same object), and the
//! component schemas of `memdir serve`'s `/openapi.json`.
//!
//! [`documents`] gives every file, by its path under `docs/schema/`; a test
//! (`tests/it/schema_derived.rs`) regenerates the committed files and fails
//! on any difference, and `MEMDIR_REGENERATE=1` rewrites them. The schemas
//! describe what is serialized (schemars' serialize contract: a field left
//! out when empty is optional, an `Option` that is always written is
//! required and may be `null`), with two rules of their own: an answer's
//! object has exactly its type's keys (`additionalProperties: false`, or
//! `unevaluatedProperties: false` where another type's keys are flattened
//! into it), unless its type says otherwise; and a key that may be left
//! out is never `null` (every `Option` an answer leaves out when empty is
//! left out when `None`). Patterns, ranges and the
//! wire words of a field that is a string in Rust are the type's
//! `#[schemars(…)]` attributes, beside the field.

use schemars::generate::SchemaSettings;
use schemars::transform::Transform;
use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde_json::{Map, Value, json};

use super::wire;
use crate::memtool::Answer as ToolAnswer;
use crate::recall::Recall;
use crate::store::{
    DayOutcome, HermesExport, HermesImport, LearningOutcome, LearningsList, PendingDecision,
    PendingList, PendingWrite, Renewed, ResultsGc, ResultsRemoved, ReviewHistory, RunView, Setup,
    Skill, SkillOutcome, SyncReport, Transition, UndoReport, WorkflowResults,
};

/// The `$id` of `docs/schema/NAME`: `https://memdir.invalid/schema/NAME`
/// (a `$ref` between the files is resolved against it).
pub const ID_BASE: &str = "https://memdir.invalid/schema/";

/// The dialect every schema is written in.
pub const DRAFT: &str = "https://json-schema.org/draft/2020-12/schema";

/// A type's schema: the root of a file (with its `$defs`), or a reference
/// to its definition (for OpenAPI's components).
type Make = fn(&mut SchemaGenerator, bool) -> Schema;

/// [`Make`] for `T`.
fn of<T: JsonSchema>(g: &mut SchemaGenerator, root: bool) -> Schema {
    if root {
        g.root_schema_for::<T>()
    } else {
        g.subschema_for::<T>()
    }
}

/// One file of `docs/schema/`: the command line's answer `name`.
struct Cli {
    /// The file's name, without `.json`.
    name: &'static str,
    /// Its title.
    title: &'static str,
    /// Its description, when the type's own doc says less.
    description: Option<&'static str>,
    /// The answer's type.
    make: Make,
}

/// What a file of `docs/schema/http/` holds.
enum Http {
    /// The command line's answer of this name (by `$ref`).
    Same(&'static str),
    /// An answer of the server's own.
    Own(Make),
}

/// One file of `docs/schema/http/`.
struct Route {
    /// The file's name, without `.json`.
    name: &'static str,
    /// Its title: the routes that answer with it.
    title: &'static str,
    /// Its description.
    description: Option<&'static str>,
    /// The answer.
    body: Http,
}

/// Every command line answer, by its file's name.
const CLI: &[Cli] = &[
    cli("add", "add", of::<wire::Added<'static>>),
    cli("batch", "batch", of::<wire::Batched<'static>>),
    cli("check", "check", of::<wire::Checked<'static>>),
    cli("day", "day", of::<DayOutcome>),
    Cli {
        description: Some(
            "Every failure under --json: one object on standard output. `code` is stable; `status` is the HTTP status a server answers with; the other keys are the details of the code (docs/CLI.md, Failures).",
        ),
        ..cli("error", "any failure", of::<wire::Failure<'static>>)
    },
    Cli {
        description: Some(
            "The files written (USER.md first): entries joined by a line holding only `§`. `left_out` codes: expired, blocked.",
        ),
        ..cli("export", "export --format hermes", of::<HermesExport>)
    },
    Cli {
        description: Some(
            "What an import did, per file of the folder (USER.md first). Exit status 1 when any entry was refused (`refused` not empty), 0 otherwise. `skipped` codes: already_stored, duplicate; `refused` codes: the write path's error codes (memory_threat_blocked, secret_in_memory, memory_text_too_long, memory_over_budget, …) and file_refused for an entry held back with its file.",
        ),
        ..cli("import", "import hermes", of::<HermesImport>)
    },
    cli("key-create", "key create", of::<wire::KeyCreated<'static>>),
    cli("key-list", "key list", of::<wire::KeysListed<'static>>),
    cli("key-revoke", "key revoke", of::<wire::KeysRevoked<'static>>),
    cli(
        "learning",
        "propose, learnings approve|reject|retire",
        of::<LearningOutcome>,
    ),
    cli("learnings", "learnings list", of::<LearningsList>),
    cli("list", "list", of::<wire::Listed<'static>>),
    cli("log", "log", of::<wire::Logged<'static>>),
    Cli {
        description: Some(
            "One call of Claude's memory tool: the tool result's text and whether the command was refused (a refusal is an answer: exit 0).",
        ),
        ..cli("memory-tool", "tool memory", of::<ToolAnswer>)
    },
    cli("merge-file", "merge-file", of::<wire::MergedFile<'static>>),
    cli("pending", "pending list", of::<PendingList>),
    cli(
        "pending-decision",
        "pending approve, pending reject",
        of::<PendingDecision>,
    ),
    cli("pending-show", "pending show", of::<PendingWrite>),
    cli("recall", "recall", of::<Recall>),
    cli("remove", "remove", of::<wire::Removed<'static>>),
    cli("renew", "renew", of::<Renewed>),
    cli("replace", "replace", of::<wire::Replaced<'static>>),
    cli("result-put", "result put", of::<wire::Put<'static>>),
    cli("result-rm", "result rm", of::<ResultsRemoved>),
    cli("result-steps", "result get WF", of::<WorkflowResults>),
    cli(
        "result",
        "result get WF TASK",
        of::<wire::ResultAnswer<'static>>,
    ),
    cli("results-gc", "results gc", of::<ResultsGc>),
    cli(
        "review-apply",
        "review apply ID (the dry run's plan applied: the answer of a review)",
        of::<wire::Reviewed<'static>>,
    ),
    Cli {
        description: Some(
            "Every review the owner's journal records, newest first, each with what the files still record of its changes (review=ID, settled=ID) and a diff of each changed entry.",
        ),
        ..cli("review-history", "review history", of::<ReviewHistory>)
    },
    cli("review-undo", "review undo", of::<UndoReport>),
    cli("review", "review", of::<wire::Reviewed<'static>>),
    cli("run-begin", "run begin", of::<wire::RunBegun<'static>>),
    cli("runs-list", "runs list", of::<wire::RunsListed<'static>>),
    cli("runs-search", "runs search", of::<wire::RunHits<'static>>),
    cli("runs-show", "runs show", of::<RunView>),
    cli("setup", "init, git setup", of::<Setup>),
    cli("show", "show", of::<wire::Shown<'static>>),
    cli("skill-show", "skill show", of::<Skill>),
    cli("skill", "skill learn, skill forget", of::<SkillOutcome>),
    cli("skills", "skill list", of::<wire::SkillsListed<'static>>),
    cli("snapshot", "snapshot", of::<wire::SnapshotAnswer<'static>>),
    cli("sync", "sync", of::<SyncReport>),
    cli(
        "transition",
        "archive, unarchive, resolve, veto",
        of::<Transition>,
    ),
    cli("ui", "ui", of::<wire::LoginUrl<'static>>),
];

/// A [`Cli`] file whose title is `memdir --json: TITLE`.
const fn cli(name: &'static str, title: &'static str, make: Make) -> Cli {
    Cli {
        name,
        title,
        description: None,
        make,
    }
}

/// Every answer of `memdir serve`, by its file's name (the route table
/// of docs/API.md names the file of each route).
const HTTP: &[Route] = &[
    Route {
        name: "command",
        title: "POST /v1/command",
        description: Some(
            "What the command line prints for one command run on the server for the key's caller (memdir --url), a refusal included.",
        ),
        body: Http::Own(of::<wire::Printed>),
    },
    Route {
        name: "day",
        title: "POST /api/v1/memories/day, POST /v1/runs/{runId}/finish",
        description: Some("The same object as `memdir day --json`."),
        body: Http::Same("day"),
    },
    Route {
        name: "error",
        title: "any failure",
        description: Some(
            "Every failure, the framework's too: the same envelope as the command line's --json failures, status the HTTP status.",
        ),
        body: Http::Same("error"),
    },
    Route {
        name: "forget",
        title: "POST /v1/memory/forget",
        description: None,
        body: Http::Own(of::<wire::Forgotten<'static>>),
    },
    Route {
        name: "healthz",
        title: "GET /healthz",
        description: None,
        body: Http::Own(of::<wire::Health>),
    },
    Route {
        name: "learning",
        title: "POST /api/v1/learnings, /api/v1/learnings/{id}/approve, /reject, /retire",
        description: Some("The same object as `memdir propose --json`."),
        body: Http::Same("learning"),
    },
    Route {
        name: "learnings",
        title: "GET /api/v1/learnings",
        description: Some("The same object as `memdir learnings --json`."),
        body: Http::Same("learnings"),
    },
    Route {
        name: "mcp-call",
        title: "POST /v1/mcp/call",
        description: Some("One MCP tool call for the key's caller (memdir mcp --url)."),
        body: Http::Own(of::<wire::McpCalled>),
    },
    Route {
        name: "mcp-tools",
        title: "GET /v1/mcp/tools",
        description: Some("The MCP tools the key's role lists (memdir mcp --url)."),
        body: Http::Own(of::<wire::McpTools>),
    },
    Route {
        name: "memories-recall",
        title: "POST /api/v1/memories/recall",
        description: Some("The same object as `memdir recall --json`."),
        body: Http::Same("recall"),
    },
    Route {
        name: "memories",
        title: "GET /api/v1/memories",
        description: Some("The same object as `memdir list --json`."),
        body: Http::Same("list"),
    },
    Route {
        name: "memory-edit",
        title: "PATCH /api/v1/memories/{id}",
        description: None,
        body: Http::Own(of::<wire::MemoryEdited<'static>>),
    },
    Route {
        name: "memory-tool",
        title: "POST /v1/memory/tool",
        description: Some(
            "The same object as `memdir tool memory --json`: the tool result's text and is_error (200 whether the tool did the command or refused it).",
        ),
        body: Http::Same("memory-tool"),
    },
    Route {
        name: "memory",
        title: "POST /api/v1/memories",
        description: Some(
            "201 saved, 200 already stored, 202 pending (`status: pending` and `pending_id`: the fact waits for a person's review under `writes: review`).",
        ),
        body: Http::Own(of::<wire::MemorySaved<'static>>),
    },
    Route {
        name: "pending",
        title: "GET /api/v1/pending",
        description: Some("The same object as `memdir pending list --json`."),
        body: Http::Same("pending"),
    },
    Route {
        name: "pending-decision",
        title: "POST /api/v1/pending/{id}/approve, POST /api/v1/pending/{id}/reject",
        description: Some("The same object as `memdir pending approve --json`."),
        body: Http::Same("pending-decision"),
    },
    Route {
        name: "pending-show",
        title: "GET /api/v1/pending/{id}",
        description: Some("The same object as `memdir pending show --json`."),
        body: Http::Same("pending-show"),
    },
    Route {
        name: "recall",
        title: "GET /v1/memory/recall",
        description: None,
        body: Http::Own(of::<wire::Entries<'static>>),
    },
    Route {
        name: "remember",
        title: "POST /v1/memory/remember",
        description: Some(
            "201 saved, 200 already stored, 202 pending (`status: pending` and `pending_id`: the fact waits for a person's review under `writes: review`).",
        ),
        body: Http::Own(of::<wire::Remembered<'static>>),
    },
    Route {
        name: "result-put",
        title: "PUT /v1/workflows/results/{workflowId}/{taskId}, PUT /v1/agents/results/{workflowId}/{taskId}",
        description: Some(
            "201 stored or overwritten, 200 already stored: the same object as `memdir result put --json`.",
        ),
        body: Http::Same("result-put"),
    },
    Route {
        name: "result",
        title: "GET /v1/workflows/results/{workflowId}/{taskId}, GET /v1/agents/results/{workflowId}/{taskId}",
        description: Some("A task's result: the same object as `memdir result get --json`."),
        body: Http::Same("result"),
    },
    Route {
        name: "review-history",
        title: "GET /api/v1/reviews/history",
        description: Some(
            "Every review of the owner, newest first: the object of `memdir review history --json`.",
        ),
        body: Http::Same("review-history"),
    },
    Route {
        name: "review-job",
        title: "POST /api/v1/reviews (202) and GET /api/v1/reviews/jobs/{job}",
        description: None,
        body: Http::Own(of::<wire::ReviewJob<'static>>),
    },
    Route {
        name: "run-begin",
        title: "POST /v1/runs",
        description: Some(
            "The same object as `memdir run begin --json`: 201 for a run begun, 200 for a session's open run answered again (`resumed`).",
        ),
        body: Http::Same("run-begin"),
    },
    Route {
        name: "skill-forget",
        title: "DELETE /v1/skills/{name}",
        description: Some("The same object as `memdir skill forget --json`."),
        body: Http::Same("skill"),
    },
    Route {
        name: "skill-save",
        title: "POST /v1/skills",
        description: Some(
            "201 saved or replaced, 200 already stored: the same object as `memdir skill learn --json`.",
        ),
        body: Http::Same("skill"),
    },
    Route {
        name: "skill-show",
        title: "GET /v1/skills/{name}",
        description: Some("The same object as `memdir skill show --json`."),
        body: Http::Same("skill-show"),
    },
    Route {
        name: "skills",
        title: "GET /v1/skills",
        description: Some("The same object as `memdir skill list --json`."),
        body: Http::Same("skills"),
    },
    Route {
        name: "snapshot",
        title: "GET /v1/snapshot",
        description: None,
        body: Http::Own(of::<wire::SnapshotText<'static>>),
    },
    Route {
        name: "sync-status",
        title: "GET /v1/sync",
        description: Some(
            "How the server's syncing with its remote stands (memdir serve --sync; docs/SCALING.md).",
        ),
        body: Http::Own(of::<super::servers::replica::SyncStatus>),
    },
    Route {
        name: "transition",
        title: "POST /api/v1/memories/{id}/archive, /unarchive, /resolve, /veto",
        description: Some("The same object as `memdir archive --json` (unarchive, resolve, veto)."),
        body: Http::Same("transition"),
    },
];

/// The answers' rule (the module's): every object closed unless its type
/// says otherwise (with `close`), descriptions as plain sentences.
#[derive(Debug, Clone, Copy)]
struct Answers {
    /// Close the objects (an answer's; a request's are not: a route
    /// ignores a key it does not take), and take `null` out of the keys a
    /// type leaves out when empty.
    close: bool,
}

impl Transform for Answers {
    fn transform(&mut self, schema: &mut Schema) {
        if let Some(o) = schema.as_object_mut() {
            let mut v = Value::Object(std::mem::take(o));
            if self.close {
                close(&mut v, false);
            }
            describe(&mut v);
            if let Value::Object(m) = v {
                *o = m;
            }
        }
    }
}

/// Every description of `v` as [`plain`] words it.
fn describe(v: &mut Value) {
    match v {
        Value::Object(o) => {
            for (k, x) in o.iter_mut() {
                match x {
                    Value::String(d) if k == "description" => *d = plain(d),
                    _ => describe(x),
                }
            }
        }
        Value::Array(a) => a.iter_mut().for_each(describe),
        _ => {}
    }
}

/// Closes the objects of `v` (the module's rule); `open` leaves `v`'s own
/// keys open: an alternative of an object with keys of its own, which the
/// object closes with `unevaluatedProperties`.
fn close(v: &mut Value, open: bool) {
    let Value::Object(o) = v else {
        return;
    };
    let keys = o.contains_key("properties");
    let alternatives = ["oneOf", "anyOf", "allOf"]
        .iter()
        .any(|k| o.contains_key(*k));
    if keys
        && !open
        && !o.contains_key("additionalProperties")
        && !o.contains_key("unevaluatedProperties")
    {
        let key = if alternatives {
            "unevaluatedProperties"
        } else {
            "additionalProperties"
        };
        o.insert(key.into(), Value::Bool(false));
    }
    // A key left out when it has nothing is never `null` (a struct's: an
    // open object's keys are a map's, and say for themselves).
    let required: Vec<Value> = match o.get("required") {
        Some(Value::Array(r)) => r.clone(),
        _ => Vec::new(),
    };
    let map = o.get("additionalProperties") == Some(&Value::Bool(true));
    if !map && let Some(Value::Object(props)) = o.get_mut("properties") {
        for (name, p) in props.iter_mut() {
            if !required.iter().any(|r| r == name) {
                no_null(p);
            }
        }
    }
    for (k, sub) in o.iter_mut() {
        match k.as_str() {
            "properties" | "$defs" | "patternProperties" => {
                if let Value::Object(m) = sub {
                    m.values_mut().for_each(|s| close(s, false));
                }
            }
            "oneOf" | "anyOf" | "allOf" | "prefixItems" => {
                if let Value::Array(a) = sub {
                    let open = keys && k != "prefixItems";
                    a.iter_mut().for_each(|s| close(s, open));
                }
            }
            "items" | "additionalProperties" | "not" | "if" | "then" | "else" => close(sub, false),
            _ => {}
        }
    }
}

/// `v` without its `null`: out of a `type` list, or the `null`
/// alternative of an `anyOf`, the one alternative left taking its place
/// (a key left out when empty; a query parameter, which a query string
/// cannot make `null`).
pub fn no_null(v: &mut Value) {
    let Value::Object(o) = v else {
        return;
    };
    if let Some(Value::Array(types)) = o.get_mut("type") {
        types.retain(|t| t != "null");
        if let [one] = types.as_slice() {
            let one = one.clone();
            o.insert("type".into(), one);
        }
    }
    if let Some(Value::Array(alts)) = o.get_mut("anyOf") {
        alts.retain(|a| a != &json!({"type": "null"}));
        if let [Value::Object(one)] = alts.as_slice() {
            let one = one.clone();
            o.remove("anyOf");
            for (k, x) in one {
                o.entry(k).or_insert(x);
            }
        }
    }
}

/// A doc comment as a schema's description: lines joined, paragraphs
/// kept, rustdoc's links reduced to their text.
fn plain(doc: &str) -> String {
    let paragraphs: Vec<String> = doc
        .split("\n\n")
        .map(|p| p.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|p| !p.is_empty())
        .collect();
    let mut out = paragraphs.join("\n\n");
    // `[`x`](path)` and `[`x`]` are `x`.
    while let Some(start) = out.find("[`") {
        let Some(close) = out[start..].find("`]").map(|i| start + i) else {
            break;
        };
        let text = out[start + 1..close + 1].to_owned();
        let mut end = close + 2;
        if out[end..].starts_with('(')
            && let Some(paren) = out[end..].find(')')
        {
            end += paren + 1;
        }
        out.replace_range(start..end, &text);
    }
    out
}

/// The generator of the answers' schemas: draft 2020-12, what is
/// serialized, [`Answers`]' rule.
fn generator(definitions: &'static str) -> SchemaGenerator {
    SchemaSettings::draft2020_12()
        .for_serialize()
        .with(|s| {
            s.definitions_path = definitions.into();
            s.meta_schema = None;
        })
        .with_transform(Answers { close: true })
        .into_generator()
}

/// The generator of the schemas of what a server parses (a route's query
/// and body, for `/openapi.json`): draft 2020-12, schemars' deserialize
/// contract (a key that may be left out is optional), descriptions as the
/// answers', definitions among OpenAPI's components (`components`'); with
/// `inline`, every subschema in place (a query's parameters, each
/// described alone).
pub fn requests(inline: bool) -> SchemaGenerator {
    SchemaSettings::draft2020_12()
        .for_deserialize()
        .with(|s| {
            s.definitions_path = "/components/schemas".into();
            s.meta_schema = None;
            s.inline_subschemas = inline;
        })
        .with_transform(Answers { close: false })
        .into_generator()
}

/// A file: `$schema`, `$id`, `title` and `description` first, then the
/// schema, its `$defs` last.
fn file(path: &str, title: String, description: Option<&str>, schema: Schema) -> Value {
    let mut out = Map::new();
    out.insert("$schema".into(), json!(DRAFT));
    out.insert("$id".into(), json!(format!("{ID_BASE}{path}")));
    out.insert("title".into(), json!(title));
    let mut schema = match schema.to_value() {
        Value::Object(m) => m,
        other => Map::from_iter([("allOf".to_owned(), json!([other]))]),
    };
    schema.remove("title");
    let own = schema.remove("description");
    match (description, own) {
        (Some(d), _) => {
            out.insert("description".into(), json!(d));
        }
        (None, Some(d)) => {
            out.insert("description".into(), d);
        }
        (None, None) => {}
    }
    let defs = schema.remove("$defs");
    out.extend(schema);
    if let Some(d) = defs {
        out.insert("$defs".into(), d);
    }
    Value::Object(out)
}

/// Every schema file: its path under `docs/schema/` (`add.json`,
/// `http/remember.json`) and its JSON, in the order of the tables. The
/// HTTP API's `openapi.json` is not among them: `memdir serve` writes it
/// from its route table and [`components`].
pub fn documents() -> Vec<(String, Value)> {
    let mut out = Vec::new();
    for c in CLI {
        let path = format!("{}.json", c.name);
        let schema = (c.make)(&mut generator("/$defs"), true);
        let title = format!("memdir --json: {}", c.title);
        out.push((path.clone(), file(&path, title, c.description, schema)));
    }
    for r in HTTP {
        let path = format!("http/{}.json", r.name);
        let title = format!("memdir serve: {}", r.title);
        let v = match r.body {
            Http::Same(cli) => {
                let same = json_schema!({ "$ref": format!("../{cli}.json") });
                file(&path, title, r.description, same)
            }
            Http::Own(make) => file(
                &path,
                title,
                r.description,
                make(&mut generator("/$defs"), true),
            ),
        };
        out.push((path, v));
    }
    out
}

/// The answers of `memdir serve` as OpenAPI components: the schemas, by
/// name (each referring to the others as `#/components/schemas/NAME`), and
/// for each answer's file of `docs/schema/http/` (`remember`, `error`, …)
/// the reference to its schema.
pub fn components() -> (Map<String, Value>, Vec<(&'static str, Value)>) {
    let mut g = generator("/components/schemas");
    let cli = |name: &str| CLI.iter().find(|c| c.name == name).map(|c| c.make);
    let mut answers = Vec::new();
    for r in HTTP {
        let make = match r.body {
            Http::Same(name) => cli(name),
            Http::Own(make) => Some(make),
        };
        if let Some(make) = make {
            answers.push((r.name, make(&mut g, false).to_value()));
        }
    }
    (g.take_definitions(true), answers)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_object_is_closed_and_alternatives_of_keyed_objects_stay_open() {
        let mut v = json!({
            "type": "object",
            "properties": {"job": {"type": "string"}, "inner": {"type": "object", "properties": {}}},
            "oneOf": [{"type": "object", "properties": {"status": {"const": "running"}}}],
            "$defs": {"A": {"type": "object", "properties": {}, "additionalProperties": true}}
        });
        close(&mut v, false);
        assert_eq!(v["unevaluatedProperties"], false);
        assert!(v.get("additionalProperties").is_none());
        assert_eq!(v["properties"]["inner"]["additionalProperties"], false);
        assert!(v["oneOf"][0].get("additionalProperties").is_none());
        assert_eq!(v["$defs"]["A"]["additionalProperties"], true);
        let mut e = json!({"oneOf": [{"type": "object", "properties": {}}]});
        close(&mut e, false);
        assert_eq!(e["oneOf"][0]["additionalProperties"], false);
    }

    #[test]
    fn a_key_left_out_when_empty_is_never_null() {
        let mut v = json!({
            "type": "object",
            "properties": {
                "a": {"type": ["string", "null"]},
                "b": {"type": ["string", "null"]},
                "c": {"anyOf": [{"$ref": "#/$defs/C"}, {"type": "null"}], "description": "c"}
            },
            "required": ["a"]
        });
        close(&mut v, false);
        assert_eq!(v["properties"]["a"]["type"], json!(["string", "null"]));
        assert_eq!(v["properties"]["b"]["type"], "string");
        assert_eq!(
            v["properties"]["c"],
            json!({"$ref": "#/$defs/C", "description": "c"})
        );
    }

    #[test]
    fn a_doc_comment_is_a_plain_description() {
        assert_eq!(
            plain("The answer of [`Results::put`](super::Results::put),\nsee [`X`].\n\nMore."),
            "The answer of `Results::put`, see `X`.\n\nMore."
        );
    }

    #[test]
    fn every_file_has_its_id_and_dialect_and_every_reference_a_target() {
        let docs = documents();
        assert_eq!(docs.len(), CLI.len() + HTTP.len());
        for (path, v) in &docs {
            assert_eq!(v["$schema"], DRAFT, "{path}");
            assert_eq!(v["$id"], format!("{ID_BASE}{path}"), "{path}");
            let text = v.to_string();
            for r in text.split("\"$ref\":\"").skip(1) {
                let r = &r[..r.find('"').unwrap_or(0)];
                if let Some(def) = r.strip_prefix("#/$defs/") {
                    assert!(v["$defs"].get(def).is_some(), "{path}: {r}");
                } else {
                    let target = r.trim_start_matches("../");
                    assert!(
                        docs.iter().any(|(p, _)| p == target),
                        "{path}: {r} names no file"
                    );
                }
            }
        }
        let (schemas, answers) = components();
        assert_eq!(answers.len(), HTTP.len());
        for (name, r) in answers {
            let target = r["$ref"].as_str().unwrap_or_default();
            let def = target.trim_start_matches("#/components/schemas/");
            assert!(schemas.contains_key(def), "{name}: {target}");
        }
    }
}
