//! What `tools/list` shows: each tool's definition for the caller's role,
//! its input schema derived from the tool's flat argument type (`args`) by
//! one transform, [`portable`].
//!
//! The transform keeps only the subset of JSON Schema every client and
//! model API takes (the Anthropic Messages API answers 400 to a tool whose
//! schema has `oneOf`/`anyOf`/`allOf` at its top; several clients resolve
//! no `$ref`; Gemini's function declarations take a subset of OpenAPI's):
//! an object whose nodes use only `type` (one string), `description`,
//! `properties`, `required`, `items`, `enum` (of strings), `minimum`,
//! `maximum` and `default`. Step by step, on the schema schemars derives
//! (draft 2020-12, every subschema inlined):
//!
//! 1. a node marked `"x-for": "person"` is left out of an agent's listing
//!    (a property, or a value of an enum: `veto`, `agentId`); one marked
//!    `"x-for": "none"` is accepted by the parser but listed to no one
//!    (`memory_owner`, `owner`);
//! 2. a `oneOf`/`anyOf` of constants (an enum whose values are documented)
//!    becomes `{"type": "string", "enum": [...]}`; when the node's
//!    description ends with a colon, each value's documentation is appended
//!    to it as `value: doc`;
//! 3. a `oneOf`/`anyOf` left with one alternative is that alternative;
//! 4. a `type` list loses `null`;
//! 5. every other keyword (`$schema`, `title`, `format`, `const`,
//!    `additionalProperties`, `x-…`) is dropped, a property left out is
//!    dropped from `required`, and a description is one line.

use std::borrow::Cow;
use std::sync::Arc;

use rmcp::model::{JsonObject, Tool, ToolAnnotations};
use rmcp::schemars::{JsonSchema, generate::SchemaSettings};
use serde_json::{Map, Value};

use super::args::{GetResultArgs, LearnArgs, MemoryArgs, PutResultArgs};

/// Who a listing is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// An agent: its own memory, no person's action.
    Agent,
    /// A person: any agent's memory, named per call.
    Person,
}

/// The keywords a node of a portable schema may use.
pub const PORTABLE_KEYWORDS: [&str; 9] = [
    "type",
    "description",
    "properties",
    "required",
    "items",
    "enum",
    "minimum",
    "maximum",
    "default",
];

/// Whether a node marked with `x-for` is listed for `role`.
fn listed(node: &Value, role: Role) -> bool {
    match node.get("x-for").and_then(Value::as_str) {
        Some("person") => role == Role::Person,
        Some(_) => false,
        None => true,
    }
}

/// The constants of a `oneOf`/`anyOf` whose alternatives are all string
/// constants, with their documentation, for `role`.
fn constants(alternatives: &[Value], role: Role) -> Option<Vec<(String, Option<String>)>> {
    let mut out = Vec::new();
    for a in alternatives {
        let c = a
            .get("const")
            .or_else(|| a.get("enum").and_then(|e| e.get(0)))?;
        let c = c.as_str()?;
        if listed(a, role) {
            let doc = a.get("description").and_then(Value::as_str);
            out.push((c.to_owned(), doc.map(str::to_owned)));
        }
    }
    Some(out)
}

/// `node` reduced to the portable subset for `role` (the module's steps).
pub fn reduce(node: &Value, role: Role) -> Value {
    let Value::Object(map) = node else {
        return node.clone();
    };
    let mut map = map.clone();
    for key in ["oneOf", "anyOf"] {
        let Some(Value::Array(alts)) = map.remove(key) else {
            continue;
        };
        if let Some(consts) = constants(&alts, role) {
            let mut doc: String = map
                .get("description")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned();
            // A description ending in a colon asks for the values' own.
            if doc.ends_with(':') {
                let documented: Vec<String> = consts
                    .iter()
                    .filter_map(|(c, d)| d.as_ref().map(|d| format!("{c}: {d}")))
                    .collect();
                doc.push(' ');
                doc.push_str(&documented.join("; "));
                doc.push('.');
            }
            if !doc.is_empty() {
                map.insert("description".into(), Value::String(doc));
            }
            map.insert("type".into(), Value::String("string".into()));
            let values = consts.into_iter().map(|(c, _)| Value::String(c)).collect();
            map.insert("enum".into(), Value::Array(values));
        } else {
            let kept: Vec<&Value> = alts
                .iter()
                .filter(|a| a.get("type").and_then(Value::as_str) != Some("null"))
                .collect();
            if let [one] = kept.as_slice() {
                // The node's own description (a field's) leads the one its
                // type gives.
                let mut one = (*one).clone();
                if let (Some(d), Value::Object(o)) = (map.get("description").cloned(), &mut one) {
                    o.insert("description".into(), d);
                }
                if let Value::Object(inner) = reduce(&one, role) {
                    map.extend(inner);
                }
            }
        }
    }
    if let Some(Value::Array(types)) = map.get("type") {
        let kept: Vec<Value> = types
            .iter()
            .filter(|t| t.as_str() != Some("null"))
            .cloned()
            .collect();
        if let [one] = kept.as_slice() {
            map.insert("type".into(), one.clone());
        }
    }
    if map.get("enum").is_some_and(|e| e.is_array()) && !map.contains_key("type") {
        map.insert("type".into(), Value::String("string".into()));
    }
    let mut out = Map::new();
    for (k, v) in map {
        if !PORTABLE_KEYWORDS.contains(&k.as_str()) || v.is_null() {
            continue;
        }
        let v = match (k.as_str(), v) {
            ("properties", v) => properties(&v, role),
            ("items", v) => reduce(&v, role),
            // A doc comment's line breaks are not the model's.
            ("description", Value::String(d)) => {
                Value::String(d.split_whitespace().collect::<Vec<_>>().join(" "))
            }
            (_, v) => v,
        };
        out.insert(k, v);
    }
    if let Some(Value::Object(props)) = out.get("properties") {
        let kept: Vec<Value> = out
            .get("required")
            .and_then(Value::as_array)
            .map(|r| {
                r.iter()
                    .filter(|n| n.as_str().is_some_and(|n| props.contains_key(n)))
                    .cloned()
                    .collect()
            })
            .unwrap_or_default();
        if kept.is_empty() {
            out.remove("required");
        } else {
            out.insert("required".into(), Value::Array(kept));
        }
    }
    Value::Object(out)
}

/// A `properties` object reduced, the properties not listed for `role` left
/// out.
fn properties(props: &Value, role: Role) -> Value {
    let Value::Object(props) = props else {
        return Value::Object(Map::new());
    };
    Value::Object(
        props
            .iter()
            .filter(|(_, v)| listed(v, role))
            .map(|(k, v)| (k.clone(), reduce(v, role)))
            .collect(),
    )
}

/// The portable input schema of a tool taking `T`, for `role`: an object
/// at its root (see the module's steps).
pub fn portable<T: JsonSchema>(role: Role) -> JsonObject {
    let generator = SchemaSettings::draft2020_12()
        .with(|s| {
            s.inline_subschemas = true;
            s.meta_schema = None;
        })
        .into_generator();
    let schema = generator.into_root_schema_for::<T>();
    let mut reduced = match reduce(schema.as_value(), role) {
        Value::Object(m) => m,
        _ => Map::new(),
    };
    reduced.insert("type".into(), Value::String("object".into()));
    reduced.remove("description");
    reduced
}

/// [`portable`] for an agent, as the tool router's attributes take it (the
/// server then sets each tool's definition for its role: [`tools`]).
pub fn schema<T: JsonSchema>() -> Arc<JsonObject> {
    Arc::new(portable::<T>(Role::Agent))
}

/// The memory tool's description for `role`.
fn memory_description(role: Role) -> &'static str {
    match role {
        Role::Agent => {
            "Your long-term memory, kept across sessions: USER.md (facts about the user) and MEMORY.md (your own notes), shown at the start of every run, and a journal of past runs searched on demand. Call recall to read it. Call remember whenever the user says to remember something: target user for facts about the user, memory (the default) for your notes. An entry is one fact of at most 500 characters, never an instruction to future agents. Each store has a character budget: past it, replace or remove stale entries. A failed write lists the current entries: copy old_text verbatim from them and retry."
        }
        Role::Person => {
            "An agent's long-term memory, as a person of the workspace: name the agent with agentId (list without it lists every agent's facts). USER.md (facts about the user) and MEMORY.md (the agent's notes), shown at the start of its runs, and its journal of past runs. remember writes MEMORY.md unless target is user; an entry is one fact of at most 500 characters. Only a person vetoes. A failed write lists the current entries."
        }
    }
}

/// The learn tool's description for `role`.
fn learn_description(role: Role) -> &'static str {
    match role {
        Role::Agent => {
            "Learned skills, private to you: reusable procedures a later run can inject (run begin --skill NAME). Use learn to distill what a session worked out (\"save this as a skill\"). Skills are scanned like memory: instructions aimed at future agents and secrets are refused. A failed call lists your skills."
        }
        Role::Person => {
            "An agent's learned skills (agentId names it): reusable procedures its runs can inject. Skills are scanned like memory. A failed call lists the skills."
        }
    }
}

/// One tool's definition.
fn tool(
    name: &'static str,
    description: &'static str,
    schema: JsonObject,
    annotations: ToolAnnotations,
) -> Tool {
    let mut t = Tool::new(
        Cow::Borrowed(name),
        Cow::Borrowed(description),
        Arc::new(schema),
    );
    t.annotations = Some(annotations);
    t
}

/// Annotations: read-only, destructive, idempotent (never open world).
fn hints(title: &str, read_only: bool, destructive: bool, idempotent: bool) -> ToolAnnotations {
    ToolAnnotations::with_title(title)
        .read_only(read_only)
        .destructive(destructive)
        .idempotent(idempotent)
        .open_world(false)
}

/// The tools listed to `role`, in the order `tools/list` shows them.
pub fn tools(role: Role) -> Vec<Tool> {
    vec![
        tool(
            "memory",
            memory_description(role),
            portable::<MemoryArgs>(role),
            hints("memdir memory", false, true, false),
        ),
        tool(
            "get_result",
            "Fetch what a run produced (SharedMemory): with task_id, that task's result; without, the run's steps. \"not ready: still running, poll\" is an answer, not an error: call again later.",
            portable::<GetResultArgs>(role),
            hints("memdir get_result", true, false, true),
        ),
        tool(
            "put_result",
            "Store a task's result (SharedMemory) under (workflow_id, task_id). Results are immutable: the same content again is \"already stored\"; other content under the same ids is refused.",
            portable::<PutResultArgs>(role),
            hints("memdir put_result", false, false, true),
        ),
        tool(
            "learn",
            learn_description(role),
            portable::<LearnArgs>(role),
            hints("memdir learn", false, true, false),
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn documented_constants_become_an_enum_and_person_only_values_leave_an_agent_s() {
        let node = json!({
            "description": "What to do:",
            "oneOf": [
                {"type": "string", "const": "recall", "description": "read"},
                {"type": "string", "const": "veto", "description": "veto", "x-for": "person"}
            ]
        });
        assert_eq!(
            reduce(&node, Role::Agent),
            json!({"type": "string", "enum": ["recall"], "description": "What to do: recall: read."})
        );
        let person = reduce(&node, Role::Person);
        assert_eq!(person["enum"], json!(["recall", "veto"]));
    }

    #[test]
    fn a_null_alternative_and_unportable_keywords_go() {
        let node = json!({
            "type": "object",
            "additionalProperties": false,
            "properties": {
                "limit": {"type": ["integer", "null"], "format": "uint32", "minimum": 1},
                "agentId": {"type": "string", "x-for": "person"},
                "owner": {"type": "string", "x-for": "none"}
            },
            "required": ["limit", "agentId"]
        });
        assert_eq!(
            reduce(&node, Role::Agent),
            json!({
                "type": "object",
                "properties": {"limit": {"type": "integer", "minimum": 1}},
                "required": ["limit"]
            })
        );
    }
}
