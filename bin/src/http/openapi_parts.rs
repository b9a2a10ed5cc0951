//! The pieces of `/openapi.json` a route's row is written with: a
//! success's words, a JSON body's content, a typed query's parameters
//! (`routes::document` puts them together).

use serde_json::{Map, Value, json};

use schemars::{Schema, SchemaGenerator};

/// What a success's status says in `/openapi.json`.
pub(super) fn status_words(status: u16) -> &'static str {
    match status {
        201 => "the answer: made",
        202 => "the answer: started in the background",
        _ => "the answer",
    }
}

/// `content` of `application/json` with `schema`.
pub(super) fn json_content(schema: Value) -> Value {
    json!({"application/json": {"schema": schema}})
}

/// The query parameters of a route whose query its handler parses into
/// the type of `query` (its fields, each a parameter).
pub(super) fn query_parameters(query: fn(&mut SchemaGenerator) -> Schema) -> Vec<Value> {
    let mut g = memdir::api::schema::requests(true);
    let schema = query(&mut g).to_value();
    let required: Vec<&str> = schema["required"]
        .as_array()
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut out = Vec::new();
    for (name, p) in schema["properties"].as_object().into_iter().flatten() {
        let mut p = p.clone();
        memdir::api::schema::no_null(&mut p);
        let description = p.as_object_mut().and_then(|o| o.remove("description"));
        let mut param = Map::new();
        param.insert("name".into(), json!(name));
        param.insert("in".into(), json!("query"));
        param.insert("required".into(), json!(required.contains(&name.as_str())));
        if let Some(d) = description {
            param.insert("description".into(), d);
        }
        param.insert("schema".into(), p);
        out.push(Value::Object(param));
    }
    out
}
