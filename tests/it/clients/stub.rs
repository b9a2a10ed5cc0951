//! The loopback server both model-API stubs run on: axum on `127.0.0.1`
//! at a port the OS picks, every request recorded (path, body and the
//! status it was answered with) for the assertions, the provider's
//! check of a tool's input schema, and a stop when the [`Stub`] is
//! dropped.

use std::sync::{Arc, Mutex, PoisonError};

use axum::Router;
use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, State};
use axum::http::{StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use serde_json::Value;

/// One request the stub received.
#[derive(Clone, Debug)]
pub(crate) struct Recorded {
    /// The path and query (`/v1/messages?beta=true`).
    pub path: String,
    /// The body as JSON (`Value::Null` when it was not JSON).
    pub body: Value,
    /// The status the stub answered with.
    pub status: u16,
}

/// What a stub answers a request with: a status, a content type and a
/// body.
pub(crate) struct Reply {
    pub status: StatusCode,
    pub content_type: &'static str,
    pub body: String,
}

impl Reply {
    /// A JSON answer.
    pub fn json(status: StatusCode, body: &Value) -> Reply {
        Reply {
            status,
            content_type: "application/json",
            body: body.to_string(),
        }
    }

    /// A server-sent event stream of `(event, data)` pairs, whole.
    pub fn sse(events: &[(&str, Value)]) -> Reply {
        let body = events
            .iter()
            .map(|(event, data)| format!("event: {event}\ndata: {data}\n\n"))
            .collect();
        Reply {
            status: StatusCode::OK,
            content_type: "text/event-stream",
            body,
        }
    }
}

/// The API a stub plays: how it answers one request (a path and its JSON
/// body).
pub(crate) trait Api: Send + Sync + 'static {
    fn answer(&self, path: &str, body: &Value) -> Reply;
}

struct Shared {
    api: Box<dyn Api>,
    requests: Mutex<Vec<Recorded>>,
}

/// A running stub: its base URL and what it received.
pub(crate) struct Stub {
    /// `http://127.0.0.1:PORT`.
    pub base: String,
    shared: Arc<Shared>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
}

impl Drop for Stub {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}

impl Stub {
    /// Serves `api` on a loopback port the OS picks, on the current tokio
    /// runtime.
    pub async fn start(api: impl Api) -> Stub {
        let shared = Arc::new(Shared {
            api: Box::new(api),
            requests: Mutex::new(Vec::new()),
        });
        let app = Router::new()
            .fallback(handle)
            .layer(DefaultBodyLimit::max(64 << 20))
            .with_state(shared.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind a loopback port");
        let base = format!("http://{}", listener.local_addr().expect("local address"));
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        tokio::spawn(async move {
            axum::serve(listener, app)
                .with_graceful_shutdown(async {
                    let _ = stopped.await;
                })
                .await
                .expect("the stub serves");
        });
        Stub {
            base,
            shared,
            stop: Some(stop),
        }
    }

    /// Every request received so far, in order.
    pub fn requests(&self) -> Vec<Recorded> {
        self.shared
            .requests
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// The requests to `path` (the query left out), in order.
    pub fn requests_to(&self, path: &str) -> Vec<Recorded> {
        self.requests()
            .into_iter()
            .filter(|r| r.path.split('?').next() == Some(path))
            .collect()
    }

    /// One line per request (path, status, model, tool count), for a
    /// failing test's message.
    pub fn summary(&self) -> String {
        self.requests()
            .iter()
            .map(|r| {
                format!(
                    "{} -> {} (model {}, {} tools)",
                    r.path,
                    r.status,
                    r.body["model"],
                    r.body["tools"].as_array().map_or(0, Vec::len)
                )
            })
            .collect::<Vec<_>>()
            .join("\n")
    }
}

async fn handle(State(shared): State<Arc<Shared>>, uri: Uri, body: Bytes) -> Response {
    let path = uri
        .path_and_query()
        .map_or_else(|| uri.path().to_owned(), |p| p.as_str().to_owned());
    let json: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let reply = if json.is_null() && !body.is_empty() {
        // A compressed or otherwise unreadable body: say so rather than
        // guess.
        Reply::json(
            StatusCode::BAD_REQUEST,
            &serde_json::json!({"error": {"type": "invalid_request_error",
                "message": "the stub reads only a plain JSON body"}}),
        )
    } else {
        shared.api.answer(uri.path(), &json)
    };
    shared
        .requests
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .push(Recorded {
            path,
            body: json,
            status: reply.status.as_u16(),
        });
    (
        reply.status,
        [
            (header::CONTENT_TYPE, reply.content_type),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        reply.body,
    )
        .into_response()
}

/// Why the provider would refuse `schema` as a tool's input schema, as the
/// Messages API and the Responses API check it: not an object schema
/// (`type: "object"`), or a combinator at its top level. `extra` names the
/// further top-level keywords a provider refuses (the Responses API: `enum`
/// and `not`).
pub(crate) fn schema_refusal(schema: &Value, extra: &[&str]) -> Option<String> {
    if schema.get("type").and_then(Value::as_str) != Some("object") {
        return Some(format!(
            "schema must be a JSON Schema of 'type: \"object\"', got 'type: {}'",
            schema.get("type").unwrap_or(&Value::Null)
        ));
    }
    let refused: Vec<&str> = ["oneOf", "anyOf", "allOf"]
        .iter()
        .chain(extra)
        .copied()
        .filter(|k| schema.get(k).is_some())
        .collect();
    (!refused.is_empty()).then(|| {
        format!(
            "does not support oneOf, allOf, or anyOf at the top level (found {})",
            refused.join(", ")
        )
    })
}
