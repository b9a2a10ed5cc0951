//! The one registry of error codes: for every [`Error`], its stable code
//! (the domain's), the HTTP status a server answers with, and the structured
//! details a JSON answer carries. The command line, and any server, present
//! errors through [`ErrorBody`] only, so they cannot drift.

use serde::Serialize;
use serde_json::{Map, Value, json};

use crate::error::{Error, ErrorCode, Hint, OtherOwners, ReplicaError};

/// The surface a caller reaches memdir through: a hint is worded in its
/// terms (its own argument names), never another's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Surface {
    /// The command line: flags such as `--in user`.
    Cli,
    /// The MCP tools: arguments such as `target: "user"`.
    Mcp,
    /// The HTTP API: JSON fields and query parameters such as
    /// `"scope": "user"` or `?overwrite=true`.
    Http,
}

impl Surface {
    /// Every surface.
    pub const ALL: [Surface; 3] = [Surface::Cli, Surface::Mcp, Surface::Http];
}

/// The argument a hint names on `surface`, if that surface has one for it.
pub fn hint_argument(h: Hint, surface: Surface) -> Option<&'static str> {
    use Surface::{Cli, Http, Mcp};
    Some(match (h, surface) {
        (Hint::Store(_), Cli) => "--in",
        (Hint::Store(_), Mcp) => "target",
        (Hint::Store(_), Http) => "scope",
        (Hint::Overwrite, Cli) => "--overwrite",
        (Hint::Overwrite, Http) => "overwrite",
        (Hint::ReplaceSkill, Cli) => "--replace",
        (Hint::ReplaceSkill, Mcp | Http) => "replace",
        (Hint::Agent, Cli) => "--agent",
        (Hint::Agent, Mcp | Http) => "agentId",
        (Hint::Force, Cli) => "--force",
        (Hint::AllowEmpty, Cli) => "--allow-empty",
        (Hint::AllowEmpty, Mcp | Http) => "allow_empty",
        (Hint::ContentType, Cli) => "--type",
        (Hint::ContentType, Mcp) => "content_type",
        (Hint::ContentType, Http) => "Content-Type",
        (Hint::Partial, Cli) => "--partial",
        (Hint::Partial, Mcp | Http) => "partial",
        (Hint::DryRunAgain, Cli) => "--dry-run",
        (Hint::DryRunAgain, Http) => "dryRun",
        (Hint::KeyFile, Cli) => "--key-file",
        (Hint::Overwrite | Hint::Force | Hint::DryRunAgain, _)
        | (Hint::ListSkills | Hint::KeyFile, _) => {
            return None;
        }
    })
}

/// A hint in the words of `surface`.
pub fn hint_words(h: Hint, surface: Surface) -> String {
    use Surface::{Cli, Http, Mcp};
    match (h, surface) {
        (Hint::Store(v), Cli) => format!("pass --in {v}"),
        (Hint::Store(v), Mcp) => format!("pass target: \"{v}\""),
        (Hint::Store(v), Http) => format!("pass \"scope\": \"{v}\""),
        (Hint::Overwrite, Cli) => "pass --overwrite to replace it".into(),
        (Hint::Overwrite, Mcp) => {
            "a result is immutable: store this one under another task_id".into()
        }
        (Hint::Overwrite, Http) => "pass ?overwrite=true to replace it".into(),
        (Hint::ReplaceSkill, Cli) => "pass --replace to overwrite it".into(),
        (Hint::ReplaceSkill, Mcp) => {
            "pass replace: true to overwrite it, or pick another name".into()
        }
        (Hint::ReplaceSkill, Http) => "send \"replace\": true to overwrite it".into(),
        (Hint::ListSkills, Cli) => "Use `memdir skill list` to see yours.".into(),
        (Hint::ListSkills, Mcp) => "Use action: list to see yours.".into(),
        (Hint::ListSkills, Http) => "GET /v1/skills lists yours.".into(),
        (Hint::Agent, Cli) => "pass --agent ID".into(),
        (Hint::Agent, Mcp | Http) => "pass agentId".into(),
        (Hint::Force, Cli) => "pass --force to overwrite it, or name another folder".into(),
        (Hint::Force, Mcp | Http) => "name another folder".into(),
        (Hint::AllowEmpty, Cli) => "pass --allow-empty to store an empty result".into(),
        (Hint::AllowEmpty, Mcp) => "pass allow_empty: true to store an empty result".into(),
        (Hint::AllowEmpty, Http) => "pass ?allow_empty=true to store an empty result".into(),
        (Hint::ContentType, Cli) => "pass --type MIME (such as application/octet-stream)".into(),
        (Hint::ContentType, Mcp) => "pass content_type (such as application/octet-stream)".into(),
        (Hint::ContentType, Http) => {
            "send a Content-Type header (such as application/octet-stream)".into()
        }
        (Hint::Partial, Cli) => "pass --partial to undo what is unchanged".into(),
        (Hint::Partial, Mcp | Http) => {
            "send partial (true, or the dashboard's Partial box ticked) to undo what is unchanged"
                .into()
        }
        (Hint::DryRunAgain, Cli) => {
            "run `memdir review --dry-run` again and apply the id it shows".into()
        }
        (Hint::DryRunAgain, Mcp | Http) => {
            "start a dry run again (dryRun: true, or the dashboard's Dry run) and apply the id it shows"
                .into()
        }
        (Hint::KeyFile, Cli) => "automation that acts as a person passes --key-file FILE holding \
             the person's key (made with `memdir --person ID key create` at a terminal, in the \
             account's keys file); to keep agents from a person's word, run `memdir serve` as \
             another Unix user, owning the root and the configuration, and give agents agents' \
             keys (docs/SECURITY.md, Persons)"
            .into(),
        (Hint::KeyFile, Mcp | Http) => "a person confirms at a terminal or with a person's key; \
             to keep agents from a person's word, run the server as another operating-system \
             user, owning the root and the configuration, and give agents agents' keys \
             (docs/SECURITY.md, Persons)"
            .into(),
    }
}

/// An error's message for a caller on `surface`: the message, then its
/// hint (if any) in that surface's words.
pub fn message(e: &Error, surface: Surface) -> String {
    let m = e.to_string();
    match e.hint() {
        Some(h) => {
            let sep = if m.ends_with('.') { " " } else { "; " };
            format!("{m}{sep}{}", hint_words(h, surface))
        }
        None => m,
    }
}

/// A hint as an error answer carries it: the argument (in the surface's
/// terms) and the value to give it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct HintBody {
    /// The argument to pass or change, as this surface names it (none where
    /// the surface has no argument for it).
    pub argument: Option<&'static str>,
    /// The value to give it, where the hint names one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<&'static str>,
    /// The hint in words.
    #[schemars(length(min = 1))]
    pub text: String,
}

/// An error as every interface presents it: `{"code", "status", "message",
/// "hint"?, …details}`.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct ErrorBody {
    /// The stable code (serialised as its snake_case word).
    pub code: ErrorCode,
    /// The HTTP status a server answers with.
    #[schemars(range(min = 400, max = 599))]
    pub status: u16,
    /// The message, for people (with the hint in the surface's words).
    #[schemars(length(min = 1))]
    pub message: String,
    /// What the caller can change, as data.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "HintBody")]
    pub hint: Option<HintBody>,
    /// Structured details (entries, usage, candidates, path, …).
    #[serde(flatten)]
    #[schemars(with = "ErrorDetails")]
    pub details: Map<String, Value>,
}

/// The keys an error's details may carry ([`details`] builds them per
/// code, each code its own; a key has the same type whatever the code):
/// the schema of [`ErrorBody::details`], never built itself. Every key is
/// optional, and a code may carry others.
#[derive(Debug, Clone, PartialEq, schemars::JsonSchema)]
#[schemars(transform = any_of_the_keys)]
pub struct ErrorDetails {
    /// The owner named.
    pub owner: String,
    /// The root's other owners (to a person only), at most 20.
    #[schemars(length(max = 20))]
    pub owners: Vec<String>,
    /// How many owners `owners` leaves out.
    pub more_owners: usize,
    /// The memory root.
    pub root: String,
    /// Whether the root exists.
    pub root_exists: bool,
    /// The path concerned.
    pub path: String,
    /// The store file concerned.
    pub file: String,
    /// The other store, where an entry not found in one is.
    pub found_in: Option<String>,
    /// The current entries of the store (a refused write lists them).
    pub entries: Vec<crate::error::EntryBrief>,
    /// What an ambiguous match or prefix could mean.
    pub candidates: Vec<Value>,
    /// What changed since a review's dry run.
    pub changed: Vec<String>,
    /// A batch's failing operation, counted from 1.
    #[schemars(range(min = 1))]
    pub index: usize,
    /// Today's UTC date (an expiry that has passed).
    #[schemars(pattern(r"^\d{4}-\d{2}-\d{2}$"))]
    pub today: String,
    /// The date of a person's veto.
    #[schemars(pattern(r"^\d{4}-\d{2}-\d{2}$"))]
    pub vetoed_on: String,
    /// The store's usage.
    pub usage: crate::edit::Usage,
    /// Characters used.
    pub used: usize,
    /// A limit passed.
    pub limit: u64,
    /// Characters the write would have used.
    pub would_use: usize,
    /// The workflow concerned.
    pub workflow_id: String,
    /// The task concerned.
    pub task_id: Option<String>,
    /// How long the caller waited, in milliseconds.
    pub waited_ms: Option<u64>,
    /// The run concerned.
    pub run_id: String,
    /// When that run finished.
    pub finished_at: String,
    /// A run id's prefix.
    pub prefix: String,
    /// The kind of id refused.
    pub kind: String,
    /// The value refused.
    pub value: String,
    /// Why.
    pub reason: String,
    /// The id concerned.
    pub id: String,
}

/// [`ErrorDetails`]' schema as a map's: every key optional, others
/// allowed.
fn any_of_the_keys(schema: &mut schemars::Schema) {
    schema.remove("required");
    schema.insert("additionalProperties".into(), Value::Bool(true));
}

impl ErrorBody {
    /// The body of `e` for a caller on `surface`.
    pub fn of(e: &Error, surface: Surface) -> ErrorBody {
        // Every error body passes the guard: a message or a detail that
        // quotes a file's text shows it guarded (`api::guard::error`).
        let mut details = details(e);
        crate::api::guard::error::guard_value(&mut details, "the error's detail");
        let details = match details {
            Value::Object(m) => m,
            _ => Map::new(),
        };
        ErrorBody {
            code: e.code(),
            status: e.code().status(),
            message: crate::api::guard::error::guarded_message(e, message(e, surface)),
            hint: e.hint().map(|h| HintBody {
                argument: hint_argument(h, surface),
                value: match h {
                    Hint::Store(v) => Some(v),
                    _ => None,
                },
                text: hint_words(h, surface),
            }),
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
    /// The server is at a bound of what it takes at once (one owner's
    /// calls running and queued, the bytes of uploads in flight): nothing
    /// was done; retry after `retry_after_secs`.
    Busy {
        /// What is at its bound.
        what: String,
        /// When to retry, in seconds (also the `Retry-After` header).
        retry_after_secs: u64,
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
            Transport::Busy { .. } => ErrorCode::Busy,
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
            Transport::Busy {
                what,
                retry_after_secs,
            } => (
                format!("the server is busy: {what}; retry after {retry_after_secs} s"),
                json!({ "retry_after_secs": retry_after_secs }),
            ),
            Transport::Internal { message } => (message.clone(), json!({})),
        };
        ErrorBody {
            code: self.code(),
            status: self.status(),
            message,
            hint: None,
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
/// path): one arm a variant, or a family's arms handed to the family's
/// table below (each lists the same variants).
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
        | Error::RootNotFound { path }
        | Error::ExportExists { path } => json!({"path": path}),
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
        Error::NotFound { .. }
        | Error::AmbiguousMatch { .. }
        | Error::OverBudget { .. }
        | Error::ThreatBlocked { .. }
        | Error::SecretInMemory { .. }
        | Error::Conflicted { .. }
        | Error::TextInvalid { .. } => entries(e),
        Error::RunNotFound { .. }
        | Error::SessionRunNotFound { .. }
        | Error::RunFinished { .. }
        | Error::RunAmbiguous { .. }
        | Error::NotReady { .. }
        | Error::ResultNotFound { .. }
        | Error::ResultExists { .. }
        | Error::ResultTooLarge { .. }
        | Error::ResultsQuotaExceeded { .. }
        | Error::ResultEmpty { .. }
        | Error::ResultNotText { .. }
        | Error::InvalidContentType { .. } => runs_and_results(e),
        Error::DayLineTooLong { .. }
        | Error::DayFull { .. }
        | Error::DayAgentOnly { .. }
        | Error::DayAppendOnly { .. }
        | Error::DayExists { .. } => day_log(e),
        Error::OwnerNotFound { .. }
        | Error::NotOwn { .. }
        | Error::AgentRequired { .. }
        | Error::PersonNotAllowed { .. }
        | Error::PersonUnconfirmed { .. }
        | Error::LoginLinkPersonOnly { .. }
        | Error::SummariesPersonOnly { .. }
        | Error::LoginLinkLimit { .. }
        | Error::LoginLinkRefused => callers(e),
        Error::BadReason { chars, limit } | Error::QueryTooLong { chars, limit } => {
            json!({"chars": chars, "limit": limit})
        }
        Error::WrongState { .. }
        | Error::AgentMismatch { .. }
        | Error::SupersedeArchived { .. }
        | Error::SelfSupersede { .. }
        | Error::VetoHumanOnly { .. }
        | Error::Superseded { .. }
        | Error::InvalidExpiry { .. } => lifecycle(e),
        Error::Git { op, .. } => json!({"op": op}),
        Error::Replica(r) => replica(r),
        Error::Required { what, action } => json!({"what": what, "action": action}),
        Error::InvalidToolInput { field, .. } => json!({"field": field}),
        Error::SkillNotFound { .. }
        | Error::SkillExists { .. }
        | Error::SkillTooLarge { .. }
        | Error::LearningPersonOnly { .. }
        | Error::LearningLimit { .. }
        | Error::LearningNotFound { .. }
        | Error::LearningChanged { .. }
        | Error::LearningClosed { .. }
        | Error::PendingFull { .. }
        | Error::PendingNotFound { .. }
        | Error::PendingRejected { .. }
        | Error::PendingPersonOnly { .. }
        | Error::PendingClosed { .. } => skills_and_learnings(e),
        Error::ReviewNotFound { id } | Error::ReviewPlanNotFound { id } => json!({"review": id}),
        Error::ReviewChanged { id, entries } => json!({"review": id, "entries": entries}),
        Error::ReviewPlanChanged { id, changed } => json!({"review": id, "changed": changed}),
        Error::TextEmpty
        | Error::Usage { .. }
        | Error::TextTooLong { .. }
        | Error::InvalidBatch { .. }
        | Error::SearchFailed { .. }
        | Error::Encode { .. }
        | Error::DeadlinePassed => json!({}),
        Error::StoreChanged { file } => json!({"file": file}),
    }
}

/// [`details`] of an error about a store's entries (the variants
/// [`details`] hands it; any other has none).
fn entries(e: &Error) -> Value {
    match e {
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
        Error::ThreatBlocked { patterns } | Error::SecretInMemory { patterns } => {
            json!({"patterns": patterns.split(", ").collect::<Vec<_>>()})
        }
        Error::Conflicted { file, lines } => json!({"file": file, "lines": lines}),
        Error::TextInvalid { found } => json!({"found": found}),
        _ => json!({}),
    }
}

/// [`details`] of an error about runs and SharedMemory results (the
/// variants [`details`] hands it; any other has none).
fn runs_and_results(e: &Error) -> Value {
    match e {
        Error::RunNotFound { run_id } => json!({"run_id": run_id}),
        Error::SessionRunNotFound { session } => json!({"session": session}),
        Error::RunFinished {
            run_id,
            finished_at,
        } => json!({"run_id": run_id, "finished_at": finished_at}),
        Error::RunAmbiguous { prefix, candidates } => {
            json!({"prefix": prefix, "candidates": candidates})
        }
        Error::NotReady {
            workflow_id,
            task_id,
            waited_ms,
        } => json!({"workflow_id": workflow_id, "task_id": task_id, "waited_ms": waited_ms}),
        Error::ResultNotFound {
            workflow_id,
            task_id,
        } => json!({"workflow_id": workflow_id, "task_id": task_id}),
        Error::ResultExists {
            workflow_id,
            task_id,
        } => json!({"workflow_id": workflow_id, "task_id": task_id}),
        Error::ResultTooLarge { bytes, limit } => json!({"bytes": bytes, "limit": limit}),
        Error::ResultsQuotaExceeded { bytes, quota } => json!({"bytes": bytes, "quota": quota}),
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
        Error::InvalidContentType { value, limit } => json!({"value": value, "limit": limit}),
        _ => json!({}),
    }
}

/// [`details`] of an error about the day log (the variants [`details`]
/// hands it; any other has none).
fn day_log(e: &Error) -> Value {
    match e {
        Error::DayLineTooLong { chars, limit } => json!({"chars": chars, "limit": limit}),
        Error::DayFull { date, chars, limit } => {
            json!({"date": date, "chars": chars, "limit": limit})
        }
        Error::DayAgentOnly { person } => json!({"person": person}),
        Error::DayAppendOnly { id } => json!({"id": id}),
        Error::DayExists { date } => json!({"date": date}),
        _ => json!({}),
    }
}

/// [`details`] of an error about who asks (an owner, an agent, a person,
/// a login link; the variants [`details`] hands it; any other has none).
fn callers(e: &Error) -> Value {
    match e {
        Error::OwnerNotFound {
            owner,
            root,
            root_exists,
            others,
        } => match others {
            OtherOwners::Named { owners, more } => {
                json!({"owner": owner, "root": root, "root_exists": root_exists, "owners": owners, "more_owners": more})
            }
            // An agent is told nothing of the other owners.
            OtherOwners::Withheld => {
                json!({"owner": owner, "root": root, "root_exists": root_exists})
            }
        },
        Error::NotOwn { agent, named } => json!({"agent": agent, "named": named}),
        Error::AgentRequired { person } => json!({"person": person}),
        Error::PersonNotAllowed { person, uid } => json!({"person": person, "uid": uid}),
        Error::PersonUnconfirmed { person, why } => json!({"person": person, "why": why}),
        Error::LoginLinkPersonOnly { agent } | Error::SummariesPersonOnly { agent } => {
            json!({"agent": agent})
        }
        Error::LoginLinkLimit { outstanding, limit } => {
            json!({"outstanding": outstanding, "limit": limit})
        }
        _ => json!({}),
    }
}

/// [`details`] of a replica's refusal or its sync's stop: the home
/// replica's name and URL of a `misdirected`, the commit that did not merge
/// of a `sync_conflict`.
fn replica(e: &ReplicaError) -> Value {
    match e {
        ReplicaError::Misdirected {
            owner,
            here,
            home,
            url,
        } => json!({"owner": owner, "replica": here, "home": {"name": home, "url": url}}),
        ReplicaError::SyncConflict {
            remote_ref, commit, ..
        } => json!({"remote_ref": remote_ref, "commit": commit}),
    }
}

/// [`details`] of an error about a fact's lifecycle (archive, supersede,
/// veto, expiry; the variants [`details`] hands it; any other has none).
fn lifecycle(e: &Error) -> Value {
    match e {
        Error::WrongState { id, state } => json!({"id": id, "state": state}),
        Error::AgentMismatch { id, owner } => json!({"id": id, "owner": owner}),
        Error::SupersedeArchived { id } | Error::SelfSupersede { id } => json!({"id": id}),
        Error::VetoHumanOnly { id, vetoed_on } => match vetoed_on {
            Some(d) => json!({"id": id, "vetoed_on": d}),
            None => json!({"id": id}),
        },
        Error::Superseded { id, by } => json!({"id": id, "superseded_by": by}),
        Error::InvalidExpiry { value, today } => match today {
            Some(today) => json!({"value": value, "today": today}),
            None => json!({"value": value}),
        },
        _ => json!({}),
    }
}

/// [`details`] of an error about skills, learnings and writes waiting for
/// review (the variants
/// [`details`] hands it; any other has none).
fn skills_and_learnings(e: &Error) -> Value {
    match e {
        Error::SkillNotFound { name } | Error::SkillExists { name } => json!({"name": name}),
        Error::SkillTooLarge {
            what,
            size,
            limit,
            unit,
        } => json!({"what": what, "size": size, "limit": limit, "unit": unit}),
        Error::LearningPersonOnly { action, id } => json!({"action": action, "id": id}),
        Error::LearningLimit { of, pending, limit } => {
            json!({"of": of, "pending": pending, "limit": limit})
        }
        Error::LearningNotFound { id } | Error::LearningChanged { id } => json!({"id": id}),
        Error::LearningClosed { id, state, reason } => match reason {
            Some(r) => json!({"id": id, "state": state, "reason": r}),
            None => json!({"id": id, "state": state}),
        },
        Error::PendingFull {
            agent,
            pending,
            limit,
        } => json!({"agent": agent, "pending": pending, "limit": limit}),
        Error::PendingNotFound { id } => json!({"pending_id": id}),
        Error::PendingRejected { id, rejected_on } => {
            json!({"pending_id": id, "rejected_on": rejected_on})
        }
        Error::PendingPersonOnly { action, id } => json!({"action": action, "pending_id": id}),
        Error::PendingClosed { id, state } => json!({"pending_id": id, "state": state}),
        _ => json!({}),
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
        let e = envelope(&ErrorBody::of(&Error::TextEmpty, Surface::Http));
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
        let b = ErrorBody::of(&e, Surface::Http);
        assert_eq!((b.code, b.status), (ErrorCode::MemoryOverBudget, 409));
        // The third operation (index 2) is numbered 3, from 1.
        assert_eq!(b.details["index"], 3);
        assert_eq!(b.details["usage"]["text"], "80% — 400/500 chars");
        assert_eq!(b.details["usage"]["used"], 400);
        let v = serde_json::to_value(&b).unwrap();
        assert_eq!(v["code"], "memory_over_budget");
        assert_eq!(v["would_use"], 900);
    }

    /// Every hint on every surface is worded in that surface's terms: no
    /// command-line flag on MCP or HTTP, no MCP `action:` or HTTP query
    /// elsewhere, and the argument it names is one the surface has.
    #[test]
    fn every_hint_is_worded_in_its_surfaces_terms() {
        let hints = [
            Hint::Store("user"),
            Hint::Overwrite,
            Hint::ReplaceSkill,
            Hint::ListSkills,
            Hint::Agent,
            Hint::Force,
            Hint::AllowEmpty,
            Hint::ContentType,
            Hint::KeyFile,
        ];
        for h in hints {
            for s in Surface::ALL {
                let w = hint_words(h, s);
                let cli_flag = w.contains("--") || w.contains("`memdir ");
                let http_words = w.contains("?") || w.contains("GET /") || w.contains("header");
                match s {
                    Surface::Cli => assert!(!http_words && !w.contains("action:"), "{h:?}: {w}"),
                    Surface::Mcp => assert!(!cli_flag && !http_words, "{h:?} on MCP: {w}"),
                    Surface::Http => {
                        assert!(!cli_flag && !w.contains("action:"), "{h:?} on HTTP: {w}")
                    }
                }
                if let Some(a) = hint_argument(h, s) {
                    assert_eq!(a.starts_with("--"), s == Surface::Cli, "{h:?} {s:?}: {a}");
                    assert!(w.contains(a), "{h:?} {s:?}: {w} names {a}");
                }
            }
        }
        // Through an error: the message carries the surface's words.
        let e = Error::SkillExists {
            name: "deploy".into(),
        };
        assert!(message(&e, Surface::Cli).ends_with("; pass --replace to overwrite it"));
        assert!(message(&e, Surface::Mcp).contains("replace: true"));
        let b = ErrorBody::of(&e, Surface::Http);
        assert_eq!(b.hint.as_ref().and_then(|h| h.argument), Some("replace"));
        assert!(!b.message.contains("--"), "{}", b.message);
    }
}
