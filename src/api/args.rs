//! The one wording of an argument a caller got wrong, on every surface
//! that takes named arguments (MCP's tools, HTTP's query strings and
//! bodies): serde's refusal turned into the seed's sentences.

use serde_json::Value;

/// The one wording of an argument error: serde's message for `raw` turned
/// into the seed's sentences. A missing field is `FIELD is required for
/// ACTION` (the tool's name when it has no actions); an unknown value
/// names the allowed ones (`action must be one of: save, list, …`).
pub fn worded(tool: &str, raw: &Value, serde: &str) -> String {
    let action = raw
        .get("action")
        .and_then(Value::as_str)
        .unwrap_or(tool)
        .to_owned();
    let between =
        |s: &str| -> Vec<String> { s.split('`').skip(1).step_by(2).map(str::to_owned).collect() };
    if let Some(rest) = serde.strip_prefix("missing field ") {
        let field = between(rest).into_iter().next().unwrap_or_default();
        if tool == "learn" && action == "forget" && field == "name" {
            return "forget needs name (the skill id from action: list).".into();
        }
        return format!("{field} is required for {action}");
    }
    if let Some(rest) = serde.strip_prefix("unknown variant ") {
        let mut names = between(rest);
        let given = if names.is_empty() {
            String::new()
        } else {
            names.remove(0)
        };
        // The argument whose value is the unknown one (`action` first).
        let field = raw
            .as_object()
            .and_then(|m| {
                let mut keys: Vec<&String> = m.keys().collect();
                keys.sort_by_key(|k| *k != "action");
                keys.into_iter()
                    .find(|k| m[k.as_str()].as_str() == Some(given.as_str()))
                    .cloned()
            })
            .unwrap_or_else(|| "action".into());
        return format!("{field} must be one of: {}", names.join(", "));
    }
    if serde.starts_with("invalid type: map") || !raw.is_object() {
        return format!("the arguments of {tool} must be an object");
    }
    let s = serde.split(" at line ").next().unwrap_or(serde);
    format!("invalid arguments for {action}: {s}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// serde's refusals, as the JSON and the query-string parsers word them.
    #[test]
    fn serde_s_refusals_become_the_seed_s_sentences() {
        let cases: &[(&str, Value, &str, &str)] = &[
            (
                "memory",
                json!({"action": "remember"}),
                "missing field `content`",
                "content is required for remember",
            ),
            (
                "list",
                json!({"kind": "update"}),
                "unknown variant `update`, expected `fact` or `day`",
                "kind must be one of: fact, day",
            ),
            (
                "memory",
                json!({"action": "update"}),
                "unknown variant `update`, expected one of `recall`, `remember`",
                "action must be one of: recall, remember",
            ),
            (
                "list",
                json!({"limit": "x"}),
                "invalid digit found in string",
                "invalid arguments for list: invalid digit found in string",
            ),
        ];
        for (tool, raw, serde, want) in cases {
            assert_eq!(worded(tool, raw, serde), *want, "{raw}");
        }
    }
}
