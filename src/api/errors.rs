//! The one registry of error codes: for every [`Error`], its stable code
//! (the domain's), the HTTP status a server answers with, and the structured
//! details a JSON answer carries. The command line, and any server, present
//! errors through [`ErrorBody`] only, so they cannot drift.

use serde::Serialize;
use serde_json::{Map, Value, json};

use crate::error::{Error, ErrorCode};

/// An error as every interface presents it: `{"code", "status", "message",
/// …details}`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ErrorBody {
    /// The stable code (serialised as its snake_case word).
    pub code: ErrorCode,
    /// The HTTP status a server answers with.
    pub status: u16,
    /// The message, for people.
    pub message: String,
    /// Structured details (entries, usage, candidates, path, …).
    #[serde(flatten)]
    pub details: Map<String, Value>,
}

impl ErrorBody {
    /// The body of `e`.
    pub fn of(e: &Error) -> ErrorBody {
        let details = match details(e) {
            Value::Object(m) => m,
            _ => Map::new(),
        };
        ErrorBody {
            code: e.code(),
            status: e.code().status(),
            message: e.to_string(),
            details,
        }
    }
}

/// A failure of a server's transport rather than of an operation: no or a
/// wrong key, a route or method the server does not have, a body over its
/// limit or not the JSON a route takes, a request past its time. Servers
/// answer these through [`ErrorBody`] too, so every failure has the same
/// shape.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Transport {
    /// No key, an unknown key or a revoked one (the same answer for all).
    Unauthorized,
    /// No route at this path.
    RouteNotFound {
        /// The path asked for.
        path: String,
    },
    /// The path exists, not with this method.
    MethodNotAllowed {
        /// The method used.
        method: String,
        /// The path asked for.
        path: String,
    },
    /// The body is over the route's limit.
    BodyTooLarge {
        /// The limit in bytes.
        limit: u64,
    },
    /// The body or query is not what the route takes.
    InvalidRequest {
        /// What is wrong.
        message: String,
    },
    /// A route only a person's key may use (editing a memory's text).
    PersonOnly {
        /// What was asked.
        what: String,
    },
    /// The request took longer than the server allows.
    Timeout {
        /// The limit in seconds.
        secs: u64,
    },
    /// The server failed (a task panicked, a worker was lost).
    Internal {
        /// What failed.
        message: String,
    },
}

impl Transport {
    /// Its stable code.
    pub fn code(&self) -> ErrorCode {
        match self {
            Transport::Unauthorized => ErrorCode::Unauthorized,
            Transport::RouteNotFound { .. } => ErrorCode::RouteNotFound,
            Transport::MethodNotAllowed { .. } => ErrorCode::MethodNotAllowed,
            Transport::BodyTooLarge { .. } => ErrorCode::RequestTooLarge,
            Transport::InvalidRequest { .. } => ErrorCode::InvalidRequest,
            Transport::PersonOnly { .. } => ErrorCode::PersonOnly,
            Transport::Timeout { .. } => ErrorCode::RequestTimeout,
            Transport::Internal { .. } => ErrorCode::InternalError,
        }
    }

    /// The HTTP status.
    pub fn status(&self) -> u16 {
        self.code().status()
    }

    /// The body every interface answers with.
    pub fn body(&self) -> ErrorBody {
        let (message, details) = match self {
            Transport::Unauthorized => (
                "a valid key is required: Authorization: Bearer KEY".to_owned(),
                json!({}),
            ),
            Transport::RouteNotFound { path } => {
                (format!("no route {path}"), json!({ "path": path }))
            }
            Transport::MethodNotAllowed { method, path } => (
                format!("{path} does not take {method}"),
                json!({ "method": method, "path": path }),
            ),
            Transport::BodyTooLarge { limit } => (
                format!("the request body is over the {limit}-byte limit of this route"),
                json!({ "limit": limit }),
            ),
            Transport::InvalidRequest { message } => (message.clone(), json!({})),
            Transport::PersonOnly { what } => (
                format!(
                    "only a person's key may {what}; an agent archives the fact and saves the right one"
                ),
                json!({}),
            ),
            Transport::Timeout { secs } => (
                format!("the request took longer than {secs} s"),
                json!({ "limit_secs": secs }),
            ),
            Transport::Internal { message } => (message.clone(), json!({})),
        };
        ErrorBody {
            code: self.code(),
            status: self.status(),
            message,
            details: match details {
                Value::Object(m) => m,
                _ => Map::new(),
            },
        }
    }
}

/// `{"error": body}`: the one shape of every error answer.
pub fn envelope(body: &ErrorBody) -> Value {
    json!({ "error": body })
}

/// The HTTP status a server maps an error to (its code's).
pub fn status(e: &Error) -> u16 {
    e.code().status()
}

/// Structured details for a JSON error answer (entries, usage, candidates,
/// path).
pub fn details(e: &Error) -> Value {
    match e {
        Error::InvalidId {
            kind,
            value,
            reason,
        } => json!({"kind": kind, "value": value, "reason": reason}),
        Error::UnsafePath { path }
        | Error::Poisoned { path }
        | Error::InvalidUtf8 { path, .. }
        | Error::FileTooLarge { path, .. }
        | Error::Io { path, .. }
        | Error::Locked { path, .. }
        | Error::InvalidConfig { path, .. }
        | Error::FormatTooNew { path, .. }
        | Error::NotInGit { path }
        | Error::Malformed { path, .. }
        | Error::ResultCorrupt { path, .. }
        | Error::Unplaceable { path, .. }
        | Error::ImportNothing { path }
        | Error::ExportExists { path } => json!({"path": path}),
        Error::NotFound {
            file,
            entries,
            elsewhere,
            ..
        } => json!({"file": file, "entries": entries, "found_in": elsewhere}),
        Error::AmbiguousMatch {
            file, candidates, ..
        } => json!({"file": file, "candidates": candidates}),
        Error::OverBudget {
            file,
            would_use,
            limit,
            used,
            entries,
        } => json!({
            "file": file,
            "usage": crate::edit::Usage::new(*used, *limit),
            "used": used, "limit": limit, "would_use": would_use,
            "entries": entries,
        }),
        Error::Batch { index, source } => {
            // Operations are numbered from 1, as import numbers entries.
            let number = index + 1;
            let mut d = details(source);
            if let Some(obj) = d.as_object_mut() {
                obj.insert("index".into(), json!(number));
                d
            } else {
                json!({"index": number})
            }
        }
        Error::ThreatBlocked { patterns } | Error::SecretInMemory { patterns } => {
            json!({"patterns": patterns.split(", ").collect::<Vec<_>>()})
        }
        Error::RunNotFound { run_id } => json!({"run_id": run_id}),
        Error::NotReady {
            workflow_id,
            task_id,
            waited_ms,
        } => json!({"workflow_id": workflow_id, "task_id": task_id, "waited_ms": waited_ms}),
        Error::ResultNotFound {
            workflow_id,
            task_id,
        } => json!({"workflow_id": workflow_id, "task_id": task_id}),
        Error::OwnerNotFound {
            owner,
            root,
            root_exists,
            owners,
            more,
        } => {
            json!({"owner": owner, "root": root, "root_exists": root_exists, "owners": owners, "more_owners": more})
        }
        Error::RootNotFound { path } => json!({"path": path}),
        Error::RunFinished {
            run_id,
            finished_at,
        } => json!({"run_id": run_id, "finished_at": finished_at}),
        Error::RunAmbiguous { prefix, candidates } => {
            json!({"prefix": prefix, "candidates": candidates})
        }
        Error::ResultExists {
            workflow_id,
            task_id,
        } => json!({"workflow_id": workflow_id, "task_id": task_id}),
        Error::ResultTooLarge { bytes, limit } => json!({"bytes": bytes, "limit": limit}),
        Error::ResultEmpty {
            workflow_id,
            task_id,
        } => json!({"workflow_id": workflow_id, "task_id": task_id, "bytes": 0}),
        Error::ResultNotText {
            workflow_id,
            task_id,
            reason,
            offset,
        } => {
            json!({"workflow_id": workflow_id, "task_id": task_id, "reason": reason, "offset": offset})
        }
        Error::DayLineTooLong { chars, limit } => json!({"chars": chars, "limit": limit}),
        Error::DayFull { date, chars, limit } => {
            json!({"date": date, "chars": chars, "limit": limit})
        }
        Error::DayAgentOnly { person } => json!({"person": person}),
        Error::DayAppendOnly { id } => json!({"id": id}),
        Error::NotOwn { agent, named } => json!({"agent": agent, "named": named}),
        Error::AgentRequired { person } => json!({"person": person}),
        Error::PersonNotAllowed { person, uid } => json!({"person": person, "uid": uid}),
        Error::BadReason { chars, limit } | Error::QueryTooLong { chars, limit } => {
            json!({"chars": chars, "limit": limit})
        }
        Error::WrongState { id, state } => json!({"id": id, "state": state}),
        Error::AgentMismatch { id, owner } => json!({"id": id, "owner": owner}),
        Error::SupersedeArchived { id }
        | Error::VetoHumanOnly { id }
        | Error::SelfSupersede { id } => json!({"id": id}),
        Error::Superseded { id, by } => json!({"id": id, "superseded_by": by}),
        Error::DayExists { date } => json!({"date": date}),
        Error::InvalidExpiry { value, today } => match today {
            Some(today) => json!({"value": value, "today": today}),
            None => json!({"value": value}),
        },
        Error::Conflicted { file, lines } => json!({"file": file, "lines": lines}),
        Error::TextInvalid { found } => json!({"found": found}),
        Error::Git { op, .. } => json!({"op": op}),
        Error::InvalidContentType { value, limit } => json!({"value": value, "limit": limit}),
        Error::Required { what, action } => json!({"what": what, "action": action}),
        Error::SkillNotFound { name } | Error::SkillExists { name } => json!({"name": name}),
        Error::ReviewNotFound { id } => json!({"review": id}),
        Error::ReviewChanged { id, entries } => json!({"review": id, "entries": entries}),
        Error::ReviewPlanNotFound { id } => json!({"review": id}),
        Error::ReviewPlanChanged { id, changed } => json!({"review": id, "changed": changed}),
        Error::SkillTooLarge {
            what,
            size,
            limit,
            unit,
        } => json!({"what": what, "size": size, "limit": limit, "unit": unit}),
        Error::TextEmpty
        | Error::Usage { .. }
        | Error::TextTooLong { .. }
        | Error::InvalidBatch { .. }
        | Error::SearchFailed { .. }
        | Error::Encode { .. } => json!({}),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transport_failures_have_codes_statuses_and_the_envelope() {
        let b = Transport::BodyTooLarge { limit: 64 }.body();
        assert_eq!((b.code, b.status), (ErrorCode::RequestTooLarge, 413));
        let v = envelope(&b);
        assert_eq!(v["error"]["code"], "request_too_large");
        assert_eq!(v["error"]["limit"], 64);
        assert_eq!(Transport::Unauthorized.status(), 401);
        let e = envelope(&ErrorBody::of(&Error::TextEmpty));
        assert_eq!(e["error"]["status"], 400);
    }

    #[test]
    fn a_batch_error_answers_with_its_operation_and_index() {
        let e = Error::Batch {
            index: 2,
            source: Box::new(Error::OverBudget {
                file: "MEMORY.md",
                would_use: 900,
                limit: 500,
                used: 400,
                entries: Vec::new(),
            }),
        };
        let b = ErrorBody::of(&e);
        assert_eq!((b.code, b.status), (ErrorCode::MemoryOverBudget, 409));
        // The third operation (index 2) is numbered 3, from 1.
        assert_eq!(b.details["index"], 3);
        assert_eq!(b.details["usage"]["text"], "80% — 400/500 chars");
        assert_eq!(b.details["usage"]["used"], 400);
        let v = serde_json::to_value(&b).unwrap();
        assert_eq!(v["code"], "memory_over_budget");
        assert_eq!(v["would_use"], 900);
    }
}
