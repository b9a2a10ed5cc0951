//! A stub of OpenAI's Responses API for Codex: `POST /v1/responses`,
//! streamed as server-sent events (`response.created`,
//! `response.in_progress`, `response.output_item.added` / `.done`,
//! `response.completed`).
//!
//! It checks every function's `parameters` as the API does (an object
//! schema without `oneOf`, `anyOf`, `allOf`, `enum` or `not` at its top
//! level, else 400 `invalid_request_error`), functions inside a
//! `namespace` tool too (Codex sends an MCP server's tools as the
//! namespace `mcp__SERVER`), and plays one scripted call: the first
//! request that lists the scripted function is answered with a
//! `function_call` of it, the request carrying its `function_call_output`
//! with a final message; any other request with a short message.

use std::sync::atomic::{AtomicBool, Ordering};

use axum::http::StatusCode;
use serde_json::{Value, json};

use super::stub::{Api, Reply, schema_refusal};

/// The `call_id` of the scripted function call.
pub(crate) const CALL_ID: &str = "call_memdir_scripted_01";

/// The text the stub answers once the call's output came back.
pub(crate) const FINAL_TEXT: &str = "Noted: you prefer answers in French.";

/// The text of any other answer.
pub(crate) const OTHER_TEXT: &str = "OK.";

/// The Responses API, scripted to call `name` in `namespace` with
/// `arguments` once.
pub(crate) struct Responses {
    namespace: String,
    name: String,
    arguments: Value,
    called: AtomicBool,
}

impl Responses {
    /// A stub that calls the function `name` of the namespace tool
    /// `namespace` with `arguments` in the first request listing it.
    pub fn new(namespace: &str, name: &str, arguments: Value) -> Responses {
        Responses {
            namespace: namespace.to_owned(),
            name: name.to_owned(),
            arguments,
            called: AtomicBool::new(false),
        }
    }
}

impl Api for Responses {
    fn answer(&self, path: &str, body: &Value) -> Reply {
        if path != "/v1/responses" {
            return error(
                StatusCode::NOT_FOUND,
                &format!("the stub has no {path}"),
                None,
            );
        }
        if let Some(refused) = refused_function(body) {
            return refused;
        }
        let call = output(body, CALL_ID).is_none()
            && function(body, &self.namespace, &self.name).is_some()
            && !self.called.swap(true, Ordering::SeqCst);
        let item = if call {
            json!({"type": "function_call", "id": "fc_memdir_01", "call_id": CALL_ID,
                   "namespace": self.namespace, "name": self.name,
                   "arguments": self.arguments.to_string(), "status": "completed"})
        } else {
            let text = if output(body, CALL_ID).is_some() {
                FINAL_TEXT
            } else {
                OTHER_TEXT
            };
            json!({"type": "message", "id": "msg_memdir_01", "role": "assistant",
                   "status": "completed",
                   "content": [{"type": "output_text", "text": text, "annotations": []}]})
        };
        let id = format!("resp_stub{:04}", usize::from(call));
        let started = json!({"id": id, "object": "response", "status": "in_progress",
                             "model": body["model"], "output": []});
        let mut done = started.clone();
        done["status"] = json!("completed");
        done["output"] = json!([item]);
        done["usage"] = json!({"input_tokens": 10, "output_tokens": 5, "total_tokens": 15,
                               "input_tokens_details": {"cached_tokens": 0},
                               "output_tokens_details": {"reasoning_tokens": 0}});
        Reply::sse(&[
            (
                "response.created",
                json!({"type": "response.created", "sequence_number": 0, "response": started}),
            ),
            (
                "response.in_progress",
                json!({"type": "response.in_progress", "sequence_number": 1, "response": started}),
            ),
            (
                "response.output_item.added",
                json!({"type": "response.output_item.added", "sequence_number": 2,
                       "output_index": 0, "item": item}),
            ),
            (
                "response.output_item.done",
                json!({"type": "response.output_item.done", "sequence_number": 3,
                       "output_index": 0, "item": item}),
            ),
            (
                "response.completed",
                json!({"type": "response.completed", "sequence_number": 4, "response": done}),
            ),
        ])
    }
}

/// An error as the API words it.
fn error(status: StatusCode, message: &str, param: Option<String>) -> Reply {
    Reply::json(
        status,
        &json!({"error": {"message": message, "type": "invalid_request_error",
                          "param": param, "code": "invalid_function_parameters"}}),
    )
}

/// The 400 for the first function whose parameters the API refuses, if
/// any.
fn refused_function(body: &Value) -> Option<Reply> {
    let tools = body["tools"].as_array()?;
    for (i, t) in tools.iter().enumerate() {
        let inner: Vec<(String, &Value)> = match t["type"].as_str() {
            Some("function") => vec![(format!("tools[{i}]"), t)],
            Some("namespace") => t["tools"]
                .as_array()
                .map(Vec::as_slice)
                .unwrap_or(&[])
                .iter()
                .enumerate()
                .map(|(j, f)| (format!("tools[{i}].tools[{j}]"), f))
                .collect(),
            _ => continue,
        };
        for (at, f) in inner {
            let Some(params) = f.get("parameters") else {
                continue;
            };
            if let Some(why) = schema_refusal(params, &["enum", "not"]) {
                return Some(error(
                    StatusCode::BAD_REQUEST,
                    &format!(
                        "Invalid schema for function '{}': {why}",
                        f["name"].as_str().unwrap_or_default()
                    ),
                    Some(format!("{at}.parameters")),
                ));
            }
        }
    }
    None
}

/// The function `name` of the namespace tool `namespace` in a request's
/// `tools`, if listed.
pub(crate) fn function<'a>(body: &'a Value, namespace: &str, name: &str) -> Option<&'a Value> {
    body["tools"]
        .as_array()?
        .iter()
        .filter(|t| t["type"] == "namespace" && t["name"] == namespace)
        .filter_map(|t| t["tools"].as_array())
        .flatten()
        .find(|f| f["name"] == name)
}

/// The `function_call_output` item answering `call_id` in a request's
/// input, if any.
pub(crate) fn output<'a>(body: &'a Value, call_id: &str) -> Option<&'a Value> {
    body["input"]
        .as_array()?
        .iter()
        .find(|i| i["type"] == "function_call_output" && i["call_id"] == call_id)
}
