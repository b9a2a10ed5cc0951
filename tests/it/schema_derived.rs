//! Derived, not written: every JSON Schema under `docs/schema/` and
//! `docs/schema/http/` is what `memdir::api::schema::documents()` derives
//! from the answers' types, `docs/schema/http/openapi.json` is what a real
//! `memdir serve` answers at `/openapi.json`, and `python/memdir/types.py`
//! is generated from the schemas ([`python_types`]). The test regenerates
//! them all and fails on any difference, naming each file that differs (or
//! that nothing generates); `MEMDIR_REGENERATE=1` rewrites them:
//!
//! ```text
//! MEMDIR_REGENERATE=1 cargo test -p memdir --test it -- schema_derived
//! ```

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::http::serve;
use crate::util::Sandbox;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// A JSON file as committed: pretty, two spaces, a final line feed.
fn pretty(v: &Value) -> String {
    serde_json::to_string_pretty(v).expect("JSON") + "\n"
}

/// Every derived file: its path under the repository and its text.
fn derived() -> Vec<(PathBuf, String)> {
    let docs = memdir::api::schema::documents();
    let dir = repo().join("docs/schema");
    let mut out: Vec<(PathBuf, String)> = docs
        .iter()
        .map(|(path, v)| (dir.join(path), pretty(v)))
        .collect();
    let s = Sandbox::new();
    let srv = serve(&s, &["--review-every", "0"]);
    let openapi = srv.get(None, "/openapi.json").json();
    out.push((dir.join("http/openapi.json"), pretty(&openapi)));
    out.push((repo().join("python/memdir/types.py"), python_types(&docs)));
    out
}

/// The JSON files of `docs/schema/` and `docs/schema/http/` (not the MCP
/// listings of `docs/schema/mcp/`, which tests/it/mcp_listing.rs derives).
fn committed_json() -> BTreeSet<PathBuf> {
    let dir = repo().join("docs/schema");
    let mut out = BTreeSet::new();
    for d in [dir.clone(), dir.join("http")] {
        for e in std::fs::read_dir(&d).expect("docs/schema").flatten() {
            let p = e.path();
            if p.extension().is_some_and(|x| x == "json") {
                out.insert(p);
            }
        }
    }
    out
}

#[test]
fn the_schemas_and_the_python_types_are_the_derived_ones() {
    let regenerate = std::env::var_os("MEMDIR_REGENERATE").is_some();
    let derived = derived();
    let root = repo();
    let name = |p: &Path| p.strip_prefix(&root).unwrap_or(p).display().to_string();
    let mut wrong = Vec::new();
    for (path, text) in &derived {
        if regenerate {
            std::fs::write(path, text).expect("write");
        }
        let committed = std::fs::read_to_string(path).unwrap_or_default();
        if &committed != text {
            wrong.push(format!("{} differs from what is derived", name(path)));
        }
    }
    let made: BTreeSet<&PathBuf> = derived.iter().map(|(p, _)| p).collect();
    for p in committed_json() {
        if !made.contains(&p) {
            wrong.push(format!("{} is derived from nothing", name(&p)));
        }
    }
    assert!(
        wrong.is_empty(),
        "{}\nregenerate with MEMDIR_REGENERATE=1 cargo test -p memdir --test it -- schema_derived",
        wrong.join("\n")
    );
}

/// The classes of `memdir.types`: the name, the schema file and the JSON
/// pointer of the object it mirrors (empty: the file's root), its doc.
const CLASSES: &[(&str, &str, &str, &str)] = &[
    (
        "Usage",
        "show.json",
        "/$defs/Usage",
        "A store's usage against its budget (``usage``).",
    ),
    (
        "Entry",
        "show.json",
        "/$defs/EntryView",
        "One entry of ``show`` (schema ``show.json``).",
    ),
    (
        "StoreView",
        "show.json",
        "/$defs/StoreView",
        "One store of ``show``.",
    ),
    ("ShowResult", "show.json", "", "``show`` (``show.json``)."),
    ("AddResult", "add.json", "", "``add`` (``add.json``)."),
    (
        "ReplaceResult",
        "replace.json",
        "",
        "``replace`` (``replace.json``).",
    ),
    (
        "RemoveResult",
        "remove.json",
        "",
        "``remove`` (``remove.json``).",
    ),
    (
        "Snapshot",
        "snapshot.json",
        "",
        "``snapshot`` (``snapshot.json``).",
    ),
    (
        "RunBegin",
        "run-begin.json",
        "",
        "``run begin`` (``run-begin.json``): the snapshot and the run.",
    ),
    (
        "DayLine",
        "day.json",
        "/$defs/DayLine",
        "A day line (``day.json``'s ``line``).",
    ),
    (
        "DayResult",
        "day.json",
        "",
        "``day``, ``run finish`` (``day.json``).",
    ),
    (
        "RecallResult",
        "recall.json",
        "",
        "``recall`` (``recall.json``).",
    ),
    (
        "ResultPut",
        "result-put.json",
        "",
        "``result put`` (``result-put.json``).",
    ),
    (
        "Result",
        "result.json",
        "",
        "``result get WF TASK`` (``result.json``).",
    ),
    (
        "ResultSteps",
        "result-steps.json",
        "",
        "``result get WF`` (``result-steps.json``).",
    ),
    (
        "SkillOutcome",
        "skill.json",
        "",
        "``skill learn`` / ``skill forget`` (``skill.json``).",
    ),
    (
        "Skills",
        "skills.json",
        "",
        "``skill list`` (``skills.json``).",
    ),
    (
        "SkillShow",
        "skill-show.json",
        "",
        "``skill show`` (``skill-show.json``).",
    ),
    (
        "RunsSearch",
        "runs-search.json",
        "",
        "``runs search`` (``runs-search.json``).",
    ),
    (
        "RunsShow",
        "runs-show.json",
        "",
        "``runs show`` (``runs-show.json``).",
    ),
    (
        "RunsList",
        "runs-list.json",
        "",
        "``runs list`` (``runs-list.json``).",
    ),
    ("ListResult", "list.json", "", "``list`` (``list.json``)."),
    (
        "Transition",
        "transition.json",
        "",
        "``archive``, ``unarchive``, ``resolve``, ``veto`` (``transition.json``).",
    ),
    ("Renewed", "renew.json", "", "``renew`` (``renew.json``)."),
    (
        "LearningOutcome",
        "learning.json",
        "",
        "``propose`` and a person's decisions (``learning.json``).",
    ),
    (
        "Learnings",
        "learnings.json",
        "",
        "``learnings`` (``learnings.json``).",
    ),
    (
        "PendingOp",
        "pending.json",
        "/$defs/PendingOp",
        "One operation of a waiting write (``pending.json``).",
    ),
    (
        "PendingWrite",
        "pending.json",
        "/$defs/PendingWrite",
        "A write that waits for a person (``pending.json``'s ``pending``).",
    ),
    (
        "PendingList",
        "pending.json",
        "",
        "``pending list`` (``pending.json``).",
    ),
    (
        "PendingShow",
        "pending-show.json",
        "",
        "``pending show`` (``pending-show.json``).",
    ),
    (
        "PendingDecision",
        "pending-decision.json",
        "",
        "``pending approve`` / ``pending reject`` (``pending-decision.json``).",
    ),
    (
        "ToolAnswer",
        "memory-tool.json",
        "",
        "``tool memory`` (the memory tool's result, ``memory-tool.json``).",
    ),
];

/// The class a `$defs` name is typed as (every file names a type's
/// definition alike: `#/$defs/Usage`).
fn class_of_def(def: &str) -> Option<&'static str> {
    CLASSES
        .iter()
        .find(|(_, _, pointer, _)| pointer.strip_prefix("/$defs/") == Some(def))
        .map(|(class, ..)| *class)
}

/// The Python type of `schema` (a property's, in `doc`).
fn py_type(schema: &Value, doc: &Value) -> String {
    if let Some(r) = schema["$ref"].as_str() {
        let def = r.trim_start_matches("#/$defs/");
        if let Some(class) = class_of_def(def) {
            return class.to_owned();
        }
        return py_type(&doc["$defs"][def], doc);
    }
    if let Some(alts) = schema["anyOf"].as_array().or(schema["oneOf"].as_array()) {
        let null = alts.iter().any(|a| a["type"] == "null");
        let rest: Vec<&Value> = alts.iter().filter(|a| a["type"] != "null").collect();
        let strings = rest
            .iter()
            .all(|a| a["const"].is_string() || a["type"] == "string");
        let t = match rest.as_slice() {
            [one] => py_type(one, doc),
            _ if strings => "str".to_owned(),
            _ => "Any".to_owned(),
        };
        return if null { format!("Optional[{t}]") } else { t };
    }
    if let Some(e) = schema["enum"].as_array() {
        let null = e.iter().any(Value::is_null);
        let t = if e.iter().all(|v| v.is_string() || v.is_null()) {
            "str"
        } else {
            "Any"
        };
        return if null {
            format!("Optional[{t}]")
        } else {
            t.to_owned()
        };
    }
    if let Some(c) = schema.get("const") {
        return match c {
            Value::String(_) => "str",
            Value::Number(n) if n.is_i64() || n.is_u64() => "int",
            _ => "Any",
        }
        .to_owned();
    }
    let types: Vec<&str> = match &schema["type"] {
        Value::String(t) => vec![t.as_str()],
        Value::Array(a) => a.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    let null = types.contains(&"null");
    let t = match types.iter().find(|t| **t != "null").copied() {
        Some("string") => "str".to_owned(),
        Some("integer") => "int".to_owned(),
        Some("number") => "float".to_owned(),
        Some("boolean") => "bool".to_owned(),
        Some("array") => format!("List[{}]", py_type(&schema["items"], doc)),
        Some("object") => match &schema["additionalProperties"] {
            Value::Object(_) if schema.get("properties").is_none() => {
                format!(
                    "Dict[str, {}]",
                    py_type(&schema["additionalProperties"], doc)
                )
            }
            _ => "Dict[str, Any]".to_owned(),
        },
        _ => "Any".to_owned(),
    };
    if null { format!("Optional[{t}]") } else { t }
}

/// `python/memdir/types.py`: a TypedDict per [`CLASSES`] row, its keys the
/// schema's properties, in order (a key not required is `NotRequired`).
fn python_types(docs: &[(String, Value)]) -> String {
    let mut out = String::from(
        r#""""Typed answers: TypedDicts mirroring the JSON Schemas of docs/schema/
(the command line's ``--json`` answers; the HTTP transport fills the same
keys where its route answers them). Keys may be added by later memdir
versions; none is renamed or changes type.

Generated from docs/schema/ by tests/it/schema_derived.rs; do not edit:
regenerate with ``MEMDIR_REGENERATE=1 cargo test -p memdir --test it --
schema_derived``."""

from __future__ import annotations

from typing import Any, Dict, List, Optional

from typing import TypedDict

try:  # Python 3.11+
    from typing import NotRequired
except ImportError:  # pragma: no cover - Python 3.10, no dependencies

    class _NotRequired:
        """``NotRequired[X]`` as ``X`` where typing lacks it (the keys are
        documented as optional all the same)."""

        def __class_getitem__(cls, item):
            return item

    NotRequired = _NotRequired  # type: ignore
"#,
    );
    for (class, file, pointer, doc_line) in CLASSES {
        let doc = &docs
            .iter()
            .find(|(p, _)| p == file)
            .unwrap_or_else(|| panic!("no schema {file}"))
            .1;
        let schema = doc
            .pointer(pointer)
            .unwrap_or_else(|| panic!("{file}: no {pointer}"));
        let required: Vec<&str> = schema["required"]
            .as_array()
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        out.push_str(&format!(
            "\n\nclass {class}(TypedDict):\n    \"\"\"{doc_line}\"\"\"\n\n"
        ));
        let props = schema["properties"]
            .as_object()
            .unwrap_or_else(|| panic!("{file}{pointer}: no properties"));
        for (key, p) in props {
            let t = py_type(p, doc);
            if required.contains(&key.as_str()) {
                out.push_str(&format!("    {key}: {t}\n"));
            } else {
                out.push_str(&format!("    {key}: NotRequired[{t}]\n"));
            }
        }
    }
    out.push_str(
        "\n\n__all__ = [name for name in dir() if name[0].isupper() and name not in (\"Any\", \"Dict\", \"List\", \"Optional\")]\n",
    );
    out
}

/// The generated module holds a class per row, with every key of its
/// schema: a key added to a type is a key of its class.
#[test]
fn every_class_has_its_schema_s_keys() {
    let docs = memdir::api::schema::documents();
    let py = python_types(&docs);
    for (class, file, pointer, _) in CLASSES {
        let doc = &docs.iter().find(|(p, _)| p == file).expect("file").1;
        let keys = doc
            .pointer(&format!("{pointer}/properties"))
            .and_then(Value::as_object)
            .expect("properties");
        let body = py
            .split(&format!("class {class}(TypedDict):"))
            .nth(1)
            .and_then(|b| b.split("\n\n\n").next())
            .unwrap_or_else(|| panic!("no class {class}"));
        let fields: BTreeSet<&str> = body
            .lines()
            .filter_map(|l| l.strip_prefix("    ")?.split_once(':'))
            .map(|(k, _)| k)
            .filter(|k| !k.contains(' ') && !k.starts_with('"'))
            .collect();
        let want: BTreeSet<&str> = keys.keys().map(String::as_str).collect();
        assert_eq!(fields, want, "{class} ({file})");
    }
}
