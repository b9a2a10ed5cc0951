//! The one wording of an argument a caller got wrong, on every surface
//! that takes named arguments (MCP's tools, HTTP's query strings and
//! bodies): serde's refusal turned into the seed's sentences.

use serde::de::DeserializeOwned;
use serde_json::Value;

/// `raw` (a tool's arguments, a request's body) as the typed arguments `T`
/// of `tool`; a refusal worded by [`worded`], naming the argument serde
/// refused.
pub fn from_value<T: DeserializeOwned>(tool: &str, raw: &Value) -> Result<T, String> {
    serde_path_to_error::deserialize(raw).map_err(|e| {
        let field = e.path().to_string();
        worded(tool, raw, &field, &e.into_inner().to_string())
    })
}

/// The one wording of an argument error: serde's message for `raw` turned
/// into the seed's sentences. `field` is the path of the argument serde
/// refused (`limit`, `ops[0].text`; `.` or empty when it is the whole
/// of `raw`). A missing field is `FIELD is required for ACTION` (the
/// tool's name when it has no actions); an unknown value names the allowed
/// ones (`action must be one of: save, list, …`); a value of the wrong
/// kind names its argument (`invalid limit for recall: …`).
pub fn worded(tool: &str, raw: &Value, field: &str, serde: &str) -> String {
    let action = raw
        .get("action")
        .and_then(Value::as_str)
        .unwrap_or(tool)
        .to_owned();
    let field = match field {
        "" | "." => None,
        f => Some(f),
    };
    let between =
        |s: &str| -> Vec<String> { s.split('`').skip(1).step_by(2).map(str::to_owned).collect() };
    if let Some(rest) = serde.strip_prefix("missing field ") {
        let missing = between(rest).into_iter().next().unwrap_or_default();
        if tool == "learn" && action == "forget" && missing == "name" {
            return "forget needs name (the skill id from action: list).".into();
        }
        return format!("{missing} is required for {action}");
    }
    if let Some(rest) = serde.strip_prefix("unknown variant ") {
        let mut names = between(rest);
        let given = if names.is_empty() {
            String::new()
        } else {
            names.remove(0)
        };
        // The argument whose value is the unknown one: the one serde
        // names, else the one holding that value (`action` first).
        let field = field.map(str::to_owned).unwrap_or_else(|| {
            raw.as_object()
                .and_then(|m| {
                    let mut keys: Vec<&String> = m.keys().collect();
                    keys.sort_by_key(|k| *k != "action");
                    keys.into_iter()
                        .find(|k| m[k.as_str()].as_str() == Some(given.as_str()))
                        .cloned()
                })
                .unwrap_or_else(|| "action".into())
        });
        return format!("{field} must be one of: {}", names.join(", "));
    }
    if field.is_none() && (serde.starts_with("invalid type: map") || !raw.is_object()) {
        return format!("the arguments of {tool} must be an object");
    }
    let s = serde.split(" at line ").next().unwrap_or(serde);
    match field {
        Some(f) => format!("invalid {f} for {action}: {s}"),
        None => format!("invalid arguments for {action}: {s}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// serde's refusals, as the JSON and the query-string parsers word them
    /// (with the path of the refused argument, when serde knows it).
    #[test]
    fn serde_s_refusals_become_the_seed_s_sentences() {
        let cases: &[(&str, Value, &str, &str, &str)] = &[
            (
                "memory",
                json!({"action": "remember"}),
                ".",
                "missing field `content`",
                "content is required for remember",
            ),
            (
                "list",
                json!({"kind": "update"}),
                "",
                "unknown variant `update`, expected `fact` or `day`",
                "kind must be one of: fact, day",
            ),
            (
                "memory",
                json!({"action": "update"}),
                "action",
                "unknown variant `update`, expected one of `recall`, `remember`",
                "action must be one of: recall, remember",
            ),
            (
                "list",
                json!({"limit": "x"}),
                "",
                "invalid digit found in string",
                "invalid arguments for list: invalid digit found in string",
            ),
            (
                "recall",
                json!({"limit": "x"}),
                "limit",
                "invalid digit found in string",
                "invalid limit for recall: invalid digit found in string",
            ),
            (
                "remember",
                json!([1]),
                ".",
                "invalid type: sequence, expected struct RememberBody",
                "the arguments of remember must be an object",
            ),
        ];
        for (tool, raw, field, serde, want) in cases {
            assert_eq!(worded(tool, raw, field, serde), *want, "{raw}");
        }
    }

    #[derive(Debug, serde::Deserialize)]
    #[allow(dead_code)]
    struct Remember {
        text: String,
        scope: Option<crate::Scope>,
        limit: Option<usize>,
    }

    /// The typed parse names the argument serde refused, and its values.
    #[test]
    fn a_typed_parse_names_the_refused_argument() {
        let cases = [
            (json!({"scope": "user"}), "text is required for remember"),
            (
                json!({"text": "a", "scope": "both"}),
                "scope must be one of: memory, user",
            ),
            (
                json!({"text": 5}),
                "invalid text for remember: invalid type: integer `5`, expected a string",
            ),
            (json!("a"), "the arguments of remember must be an object"),
        ];
        for (raw, want) in cases {
            let got = from_value::<Remember>("remember", &raw).map(|_| ());
            assert_eq!(got, Err(want.to_owned()), "{raw}");
        }
        assert!(from_value::<Remember>("remember", &json!({"text": "a", "limit": 3})).is_ok());
    }
}
