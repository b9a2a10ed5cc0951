//! The answers' forms: a JSON body, or with `format=` text, markdown or
//! `key: value` fields; the body parsed with the project's errors.

use axum::body::Bytes;
use axum::extract::{FromRequestParts, MatchedPath};
use axum::http::header;
use axum::http::request::Parts;
use axum::response::{IntoResponse, Response};
use memdir::api::errors::Transport;
use memdir::api::types::Change;
use memdir::api::{Request, RunRef};
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::{Fail, json_response};
use memdir::api::{self, guard::JsonAnswer};

/// A route's typed query `T` (`Args(q): Args<Common>`), parsed from the
/// query string by [`query`].
pub(super) struct Args<T>(pub(super) T);

impl<T: DeserializeOwned, S: Send + Sync> FromRequestParts<S> for Args<T> {
    type Rejection = Fail;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Fail> {
        // The action a message names: the route's last segment that is not
        // a parameter (`recall` for /v1/memory/recall).
        let route = parts
            .extensions
            .get::<MatchedPath>()
            .map(MatchedPath::as_str)
            .unwrap_or_else(|| parts.uri.path());
        let action = route
            .rsplit('/')
            .find(|s| !s.is_empty() && !s.starts_with('{'))
            .unwrap_or(route)
            .to_owned();
        query(&action, parts.uri.query()).map(Args)
    }
}

/// The query string `raw` as the typed query `T` of `action`; a refused
/// value is `invalid_request` worded as every surface words it (`kind must
/// be one of: fact, day`, `invalid limit for recall: …`).
pub(super) fn query<T: DeserializeOwned>(action: &str, raw: Option<&str>) -> Result<T, Fail> {
    let raw = raw.unwrap_or_default();
    let pairs = form_urlencoded::parse(raw.as_bytes());
    serde_path_to_error::deserialize(serde_urlencoded::Deserializer::new(pairs)).map_err(|e| {
        let given: serde_json::Map<String, Value> = form_urlencoded::parse(raw.as_bytes())
            .map(|(k, v)| (k.into_owned(), Value::String(v.into_owned())))
            .collect();
        let field = e.path().to_string();
        Fail::Transport(Transport::InvalidRequest {
            message: memdir::api::args::worded(
                action,
                &Value::Object(given),
                &field,
                &e.into_inner().to_string(),
            ),
        })
    })
}

/// The JSON body of `action` as its typed arguments `T` (an empty body is
/// `{}`); a body that is not JSON, or not these arguments, is
/// `invalid_request`, worded as every surface words it.
pub(super) fn parse<T: DeserializeOwned>(action: &str, body: &Bytes) -> Result<T, Fail> {
    let bytes: &[u8] = if body.iter().all(u8::is_ascii_whitespace) {
        b"{}"
    } else {
        body
    };
    let fail = |message| Fail::Transport(Transport::InvalidRequest { message });
    let raw: Value = serde_json::from_slice(bytes)
        .map_err(|e| fail(format!("the body of {action} is not JSON: {e}")))?;
    if !raw.is_object() {
        return Err(fail(format!("the body of {action} must be a JSON object")));
    }
    memdir::api::args::from_value(action, &raw).map_err(fail)
}

/// The forms an answer can take (`format=`).
#[derive(Debug, Clone, Copy, Default, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub(super) enum Format {
    /// JSON, the default.
    #[default]
    Json,
    /// YAML.
    Yaml,
    /// Markdown.
    Markdown,
    /// Plain lines, without markdown markup.
    Text,
}

/// The One API's `format`: json (default), yaml, markdown or text.
///
/// One of the two sinks of an answer's body ([`ok`] the other): it takes
/// only [`JsonAnswer`], guarded JSON ([`api::guard::AgentJson`]) or a person's raw
/// read.
pub(super) fn formatted(
    status: u16,
    v: impl Into<JsonAnswer>,
    format: Option<Format>,
) -> Result<Response, Fail> {
    let v = v.into();
    let v = v.value();
    let (ctype, text) = match format.unwrap_or_default() {
        Format::Json => return Ok(json_response(status, v)),
        Format::Yaml => (
            "application/yaml",
            serde_yaml::to_string(v).map_err(|e| {
                Fail::Transport(Transport::Internal {
                    message: e.to_string(),
                })
            })?,
        ),
        Format::Markdown => ("text/markdown; charset=utf-8", as_markdown(v)),
        Format::Text => ("text/plain; charset=utf-8", as_plain(v)),
    };
    let mut r = (
        axum::http::StatusCode::from_u16(status).unwrap_or(axum::http::StatusCode::OK),
        text,
    )
        .into_response();
    if let Ok(v) = header::HeaderValue::from_str(ctype) {
        r.headers_mut().insert(header::CONTENT_TYPE, v);
    }
    Ok(r)
}

/// An answer as plain lines, without markdown: an entry a line as
/// `id  text` (its lines joined), other fields as `key: value`.
pub(super) fn as_plain(v: &Value) -> String {
    let Some(entries) = v.get("entries").and_then(Value::as_array) else {
        return as_fields(v);
    };
    if entries.is_empty() {
        return "No memory recorded yet.\n".into();
    }
    let mut out = String::new();
    for e in entries {
        let text = e["text"].as_str().unwrap_or_default();
        let one: Vec<&str> = text.lines().map(str::trim).collect();
        out.push_str(&format!(
            "{}  {}\n",
            e["id"].as_str().unwrap_or_default(),
            one.join(" ")
        ));
    }
    out
}

/// An answer as markdown: entries as a list, other fields as `key: value`.
pub(super) fn as_markdown(v: &Value) -> String {
    if let Some(entries) = v.get("entries").and_then(Value::as_array) {
        let mut out = String::new();
        for e in entries {
            out.push_str(&format!(
                "- {} ({} {})\n",
                e["text"].as_str().unwrap_or_default().replace('\n', "\n  "),
                e["scope"].as_str().unwrap_or_default(),
                e["id"].as_str().unwrap_or_default()
            ));
        }
        if entries.is_empty() {
            out.push_str("No memory recorded yet.\n");
        }
        return out;
    }
    as_fields(v)
}

/// An answer's fields as `key: value` lines.
pub(super) fn as_fields(v: &Value) -> String {
    let mut out = String::new();
    if let Some(o) = v.as_object() {
        for (k, x) in o {
            match x {
                Value::String(s) if s.contains('\n') => out.push_str(&format!("{k}:\n{s}\n")),
                Value::String(s) => out.push_str(&format!("{k}: {s}\n")),
                other => out.push_str(&format!("{k}: {other}\n")),
            }
        }
    }
    out
}

/// The program's own JSON around guarded parts, through the scanner: every
/// string of it passes ([`api::guard::AgentJson::checked`]).
pub(super) fn checked(v: Value) -> api::guard::AgentJson {
    api::guard::AgentJson::checked(v, "the answer")
}

/// The status of a save's answer, by what it did: 201 for a new entry,
/// 202 for a write that waits for a person, 200 otherwise. Every variant
/// named, so a new one is decided here, not defaulted.
pub(super) fn saved_status(change: Change) -> u16 {
    match change {
        Change::Added => 201,
        Change::Pending => 202,
        Change::AlreadyStored
        | Change::Replaced
        | Change::Unchanged
        | Change::Merged
        | Change::Removed => 200,
    }
}

/// An answer of the server's own (`api::wire`), through the scanner as
/// [`checked`].
pub(super) fn checked_answer(answer: &impl serde::Serialize) -> api::guard::AgentJson {
    checked(api::wire::value(answer))
}

/// An answer's JSON body: only [`JsonAnswer`] (guarded JSON, or a
/// person's raw read).
pub(super) fn ok(status: u16, v: impl Into<JsonAnswer>) -> Result<Response, Fail> {
    Ok(json_response(status, v.into().value()))
}

/// The query every One API route takes: `format`, and `agentId` (the
/// agent a person acts for).
#[derive(Debug, Default, Deserialize, schemars::JsonSchema)]
pub(super) struct Common {
    /// The answer's form: json (the default), yaml, markdown or text.
    pub(super) format: Option<Format>,
    /// The agent a person's key acts for (an agent's key names itself).
    #[serde(rename = "agentId", alias = "agent_id")]
    pub(super) agent_id: Option<String>,
    /// A person's key asking for flagged text as the files hold it.
    pub(super) raw: Option<bool>,
}

/// Query parameters every One API route takes besides its body.
#[derive(Debug, Default, Deserialize, schemars::JsonSchema)]
pub(super) struct FormatQuery {
    /// The answer's form: json (the default), yaml, markdown or text.
    pub(super) format: Option<Format>,
    /// The agent a person's key acts for (an agent's key names itself).
    #[serde(rename = "agentId", alias = "agent_id")]
    pub(super) agent_id: Option<String>,
    /// A result's `PUT`: replace a different result stored under the same
    /// ids.
    pub(super) overwrite: Option<bool>,
    /// A result's `PUT`: store an empty body.
    pub(super) allow_empty: Option<bool>,
    /// A person's key asking for flagged text as the files hold it.
    pub(super) raw: Option<bool>,
}

/// `request` made inside the run a body names (`runId`): a fact saved
/// records it (`run=` and `task=` in its metadata), as the command line's
/// `add --run` does.
pub(super) fn in_run(run: Option<String>, request: Request) -> Request {
    match run {
        Some(id) => Request::InRun {
            run: RunRef::Id(id),
            within: Box::new(request),
        },
        None => request,
    }
}
