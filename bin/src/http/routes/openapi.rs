//! `/openapi.json`, written from the route table ([`super::ROUTES`]):
//! each route's path and query parameters, body and answers, the schemas
//! of docs/schema/http/ under `components`.

use axum::response::Response;
use serde_json::{Map, Value, json};

use super::super::json_response;
use super::{Body, ROUTES, TypeSchema};

/// `GET /openapi.json`: [`document`], made once.
pub(super) async fn openapi() -> Response {
    static DOCUMENT: std::sync::OnceLock<Value> = std::sync::OnceLock::new();
    json_response(200, DOCUMENT.get_or_init(document))
}

/// What a success's status says in `/openapi.json`.
fn status_words(status: u16) -> &'static str {
    match status {
        201 => "the answer: made",
        202 => "the answer: accepted (started in the background, or kept for a person's review)",
        _ => "the answer",
    }
}

/// `content` of `application/json` with `schema`.
fn json_content(schema: Value) -> Value {
    json!({"application/json": {"schema": schema}})
}

/// The query parameters of a route whose query its handler parses into
/// the type of `query` (its fields, each a parameter).
fn query_parameters(query: TypeSchema) -> Vec<Value> {
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

/// An OpenAPI 3.1 document of [`ROUTES`]: each route's path parameters,
/// query parameters and body, its answers (`x-answer` names the answer's
/// file under docs/schema/) and its errors, the schemas under
/// `components`. What `GET /openapi.json` answers, and
/// docs/schema/http/openapi.json.
pub fn document() -> Value {
    let (mut schemas, answers) = memdir::api::schema::components();
    let answer = |file: &str| {
        answers
            .iter()
            .find(|(name, _)| *name == file)
            .map(|(_, r)| r.clone())
            .unwrap_or(Value::Bool(true))
    };
    let error = json!({
        "description": "an error: {\"error\": {code, status, message, …}} (docs/schema/http/error.json)",
        "content": json_content(answer("error")),
    });
    let mut bodies = memdir::api::schema::requests(false);
    let mut paths = Map::new();
    for route in ROUTES {
        let mut params: Vec<Value> = route
            .path
            .split('/')
            .filter_map(|seg| seg.strip_prefix('{').and_then(|s| s.strip_suffix('}')))
            .map(|name| json!({"name": name, "in": "path", "required": true, "schema": {"type": "string"}}))
            .collect();
        if let Some(q) = route.query {
            params.extend(query_parameters(q));
        }
        let mut op = Map::new();
        op.insert("summary".into(), json!(route.summary));
        op.insert("parameters".into(), json!(params));
        match route.body {
            Some(Body::Json(t)) => {
                let schema = t(&mut bodies).to_value();
                op.insert(
                    "requestBody".into(),
                    json!({"required": false, "content": json_content(schema)}),
                );
            }
            Some(Body::ToolInput) => {
                let schema = json!({
                    "type": "object",
                    "description": "One input of Claude's memory tool (memory_20250818): command, path and the command's fields; agentId with a person's key.",
                    "required": ["command"],
                });
                op.insert(
                    "requestBody".into(),
                    json!({"required": true, "content": json_content(schema)}),
                );
            }
            Some(Body::Bytes) => {
                op.insert(
                    "requestBody".into(),
                    json!({"required": true, "content": {"*/*": {"schema": {"type": "string", "contentMediaType": "application/octet-stream"}}}}),
                );
            }
            None => {}
        }
        let mut responses = Map::new();
        match route.answer {
            Some(a) => {
                for status in a.statuses {
                    responses.insert(
                        status.to_string(),
                        json!({"description": status_words(*status), "content": json_content(answer(a.schema))}),
                    );
                }
                op.insert(
                    "x-answer".into(),
                    json!(format!("docs/schema/http/{}.json", a.schema)),
                );
            }
            None => {
                responses.insert(
                    "200".into(),
                    json!({"description": "this document (docs/schema/http/openapi.json)", "content": json_content(json!({"type": "object"}))}),
                );
            }
        }
        responses.insert("default".into(), error.clone());
        op.insert("responses".into(), Value::Object(responses));
        if !route.auth {
            op.insert("security".into(), json!([]));
        }
        if route.dashboard {
            op.remove("x-answer");
            op.insert("x-dashboard".into(), json!(true));
            op.insert("tags".into(), json!(["dashboard"]));
            let answer = if route.method == "POST" {
                json!({"303": {"description": "a form's answer: to a page of the dashboard, which says what was done or why not"}})
            } else {
                json!({"200": {"description": "an HTML page (303 to the login page without a session)"}})
            };
            op.insert("responses".into(), answer);
        }
        if let Some(entry) = paths
            .entry(route.path)
            .or_insert_with(|| json!({}))
            .as_object_mut()
        {
            entry.insert(route.method.to_lowercase(), Value::Object(op));
        }
    }
    // A body's schema that has the name of an answer's and another form
    // is a mistake (`body_schemas_do_not_shadow_the_answers`).
    for (name, schema) in bodies.take_definitions(true) {
        schemas.entry(name).or_insert(schema);
    }
    json!({
        "openapi": "3.1.0",
        "info": {"title": "memdir", "version": env!("CARGO_PKG_VERSION")},
        "paths": paths,
        "security": [{"bearer": []}],
        "components": {
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
            "schemas": schemas,
        }
    })
}
