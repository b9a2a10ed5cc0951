//! A stub of Anthropic's Messages API for Claude Code: `POST /v1/messages`
//! (streamed as server-sent events when the request says `stream: true`,
//! else one JSON message) and `POST /v1/messages/count_tokens`.
//!
//! It checks the tools as the API does (an `input_schema` that is not an
//! object schema, or has `oneOf` / `anyOf` / `allOf` at its top level, is
//! answered 400 `invalid_request_error`) and plays one scripted tool call:
//! the first request that lists the scripted tool is answered with a
//! `tool_use` of it, the request carrying its `tool_result` with a final
//! text; any other request with a short text.

use std::sync::atomic::{AtomicBool, Ordering};

use axum::http::StatusCode;
use serde_json::{Value, json};

use super::stub::{Api, Reply, schema_refusal};

/// The id of the scripted `tool_use` block.
pub(crate) const TOOL_USE_ID: &str = "toolu_01MemdirScriptedCall";

/// The text the stub answers once the tool's result came back.
pub(crate) const FINAL_TEXT: &str = "Noted: you prefer answers in French.";

/// The text of any other answer (a side request, a turn without the tool).
pub(crate) const OTHER_TEXT: &str = "OK.";

/// The Messages API, scripted to call `tool` with `input` once.
pub(crate) struct Messages {
    tool: String,
    input: Value,
    called: AtomicBool,
}

impl Messages {
    /// A stub that calls `tool` (the name the client gives the model, such
    /// as `mcp__memdir__memory`) with `input` in the first request listing
    /// it.
    pub fn new(tool: &str, input: Value) -> Messages {
        Messages {
            tool: tool.to_owned(),
            input,
            called: AtomicBool::new(false),
        }
    }
}

impl Api for Messages {
    fn answer(&self, path: &str, body: &Value) -> Reply {
        match path {
            "/v1/messages" => self.message(body),
            "/v1/messages/count_tokens" => Reply::json(
                StatusCode::OK,
                &json!({"input_tokens": body.to_string().len() / 4 + 1}),
            ),
            _ => error(
                StatusCode::NOT_FOUND,
                "not_found_error",
                &format!("the stub has no {path}"),
            ),
        }
    }
}

/// An error as the API words it.
fn error(status: StatusCode, kind: &str, message: &str) -> Reply {
    Reply::json(
        status,
        &json!({"type": "error", "error": {"type": kind, "message": message}}),
    )
}

/// The `tool_result` block answering `tool_use_id` in a request's
/// messages, if any.
pub(crate) fn tool_result<'a>(body: &'a Value, tool_use_id: &str) -> Option<&'a Value> {
    body["messages"]
        .as_array()?
        .iter()
        .filter_map(|m| m["content"].as_array())
        .flatten()
        .find(|b| b["type"] == "tool_result" && b["tool_use_id"] == tool_use_id)
}

/// The tool named `name` in a request's `tools`, if listed.
pub(crate) fn tool<'a>(body: &'a Value, name: &str) -> Option<&'a Value> {
    body["tools"].as_array()?.iter().find(|t| t["name"] == name)
}

impl Messages {
    fn message(&self, body: &Value) -> Reply {
        let tools = body["tools"].as_array().map(Vec::as_slice).unwrap_or(&[]);
        for (i, t) in tools.iter().enumerate() {
            if let Some(schema) = t.get("input_schema")
                && let Some(why) = schema_refusal(schema, &[])
            {
                return error(
                    StatusCode::BAD_REQUEST,
                    "invalid_request_error",
                    &format!("tools.{i}.custom.input_schema: input_schema {why}"),
                );
            }
        }
        let call = tool_result(body, TOOL_USE_ID).is_none()
            && tool(body, &self.tool).is_some()
            && !self.called.swap(true, Ordering::SeqCst);
        let (block, delta, stop) = if call {
            (
                json!({"type": "tool_use", "id": TOOL_USE_ID, "name": self.tool, "input": {}}),
                json!({"type": "input_json_delta", "partial_json": self.input.to_string()}),
                "tool_use",
            )
        } else {
            let text = if tool_result(body, TOOL_USE_ID).is_some() {
                FINAL_TEXT
            } else {
                OTHER_TEXT
            };
            (
                json!({"type": "text", "text": ""}),
                json!({"type": "text_delta", "text": text}),
                "end_turn",
            )
        };
        let id = format!("msg_stub{:04}", usize::from(call));
        let model = body["model"].clone();
        if body["stream"] != true {
            let mut whole = block.clone();
            if call {
                whole["input"] = self.input.clone();
            } else {
                whole["text"] = delta["text"].clone();
            }
            return Reply::json(
                StatusCode::OK,
                &json!({"id": id, "type": "message", "role": "assistant", "model": model,
                        "content": [whole], "stop_reason": stop, "stop_sequence": null,
                        "usage": {"input_tokens": 10, "output_tokens": 5}}),
            );
        }
        Reply::sse(&[
            (
                "message_start",
                json!({"type": "message_start", "message": {
                    "id": id, "type": "message", "role": "assistant", "model": model,
                    "content": [], "stop_reason": null, "stop_sequence": null,
                    "usage": {"input_tokens": 10, "output_tokens": 1}}}),
            ),
            (
                "content_block_start",
                json!({"type": "content_block_start", "index": 0, "content_block": block}),
            ),
            ("ping", json!({"type": "ping"})),
            (
                "content_block_delta",
                json!({"type": "content_block_delta", "index": 0, "delta": delta}),
            ),
            (
                "content_block_stop",
                json!({"type": "content_block_stop", "index": 0}),
            ),
            (
                "message_delta",
                json!({"type": "message_delta",
                       "delta": {"stop_reason": stop, "stop_sequence": null},
                       "usage": {"output_tokens": 5}}),
            ),
            ("message_stop", json!({"type": "message_stop"})),
        ])
    }
}
