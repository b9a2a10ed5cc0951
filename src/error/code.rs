//! The stable codes of every failure memdir answers with, as one enum: each
//! code's wire word (snake_case), the HTTP status a server answers with and
//! the exit status of the command line. Adapters decide on the code, never on
//! its word. [`Error::code`] maps every error to its code.

use serde::Serialize;

use super::{Error, ReplicaError};

/// Declares [`ErrorCode`] from one table: variant, wire word, HTTP status.
macro_rules! codes {
    ($( $(#[$doc:meta])* $variant:ident = $word:literal, $status:literal; )+) => {
        /// The stable code of a failure: of an [`Error`](super::Error)
        /// ([`Error::code`](Error::code)) or of a server's transport
        /// (no key, no route, a body too large, …).
        ///
        /// Serialised (and shown) as its snake_case word, which never
        /// changes; [`status`](ErrorCode::status) and
        /// [`exit`](ErrorCode::exit) give what a server and the command line
        /// answer with.
        #[non_exhaustive]
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum ErrorCode {
            $( $(#[$doc])* $variant, )+
        }

        impl ErrorCode {
            /// Every code, in the registry's order.
            pub const ALL: &'static [ErrorCode] = &[$(ErrorCode::$variant),+];

            /// The code's wire word, such as `memory_not_found`.
            pub const fn as_str(self) -> &'static str {
                match self {
                    $(ErrorCode::$variant => $word,)+
                }
            }

            /// The HTTP status a server answers this code with.
            pub const fn status(self) -> u16 {
                match self {
                    $(ErrorCode::$variant => $status,)+
                }
            }
        }
    };
}

codes! {
    /// An id not of the allowed form.
    InvalidId = "invalid_id", 400;
    /// A symlink or special file inside the memory folder.
    UnsafePath = "unsafe_path", 403;
    /// A markdown file that is not UTF-8.
    InvalidUtf8 = "invalid_utf8", 422;
    /// A file larger than memdir edits.
    FileTooLarge = "file_too_large", 422;
    /// An I/O operation failed.
    IoError = "io_error", 500;
    /// An earlier write failed; the handle refuses further writes.
    StorePoisoned = "store_poisoned", 500;
    /// The owner's lock was not had in time.
    Locked = "locked", 409;
    /// A configuration file or front matter could not be read.
    InvalidConfig = "invalid_config", 422;
    /// Empty entry text.
    MemoryTextEmpty = "memory_text_empty", 400;
    /// Entry text over the character limit.
    MemoryTextTooLong = "memory_text_too_long", 400;
    /// No entry matches.
    MemoryNotFound = "memory_not_found", 404;
    /// More than one entry matches.
    MemoryAmbiguousMatch = "memory_ambiguous_match", 409;
    /// A write past the store's budget.
    MemoryOverBudget = "memory_over_budget", 409;
    /// An entry that cannot be placed without changing other content.
    MemoryUnplaceable = "memory_unplaceable", 422;
    /// A request that is not what the operation takes (also a server's
    /// body or query).
    InvalidRequest = "invalid_request", 400;
    /// An expiry that cannot be read, or that has passed.
    InvalidExpiry = "invalid_expiry", 400;
    /// A search of the journal failed.
    SearchFailed = "search_failed", 500;
    /// A file with unresolved git conflict markers.
    MemoryConflicted = "memory_conflicted", 409;
    /// Entry text with control characters.
    MemoryTextInvalid = "memory_text_invalid", 400;
    /// A file memdir cannot make sense of.
    FileMalformed = "file_malformed", 422;
    /// A folder in a newer format.
    FormatUnsupported = "format_unsupported", 409;
    /// A git command failed.
    GitFailed = "git_failed", 500;
    /// Not inside a git work tree.
    NotInGit = "not_in_git", 409;
    /// One of memdir's own records could not be encoded.
    EncodeFailed = "encode_failed", 500;
    /// No run with that id.
    RunNotFound = "run_not_found", 404;
    /// A result not there yet: an answer, not a failure.
    NotReady = "not_ready", 404;
    /// A workflow or result nothing knows.
    ResultNotFound = "result_not_found", 404;
    /// An owner the root does not hold.
    OwnerNotFound = "owner_not_found", 404;
    /// No memory root there.
    RootNotFound = "root_not_found", 404;
    /// The run has finished already.
    RunFinished = "run_finished", 409;
    /// The command line is wrong.
    Usage = "usage", 400;
    /// A run-id prefix of several runs.
    RunAmbiguous = "run_ambiguous", 409;
    /// An agent named another owner.
    MemoryNotOwn = "memory_not_own", 403;
    /// An archive reason missing or too long.
    MemoryReasonInvalid = "memory_reason_invalid", 400;
    /// Archived already, or not archived.
    MemoryWrongState = "memory_wrong_state", 409;
    /// `supersedes` names another agent's memory.
    MemoryAgentMismatch = "memory_agent_mismatch", 400;
    /// The memory to supersede is archived.
    MemorySupersedeArchived = "memory_supersede_archived", 409;
    /// A superseded memory cannot come back.
    MemorySuperseded = "memory_superseded", 409;
    /// Only a person vetoes.
    MemoryVetoHumanOnly = "memory_veto_human_only", 403;
    /// That date's day log is live already.
    MemoryDayExists = "memory_day_exists", 409;
    /// A recall query over the limit.
    MemoryQueryTooLong = "memory_query_too_long", 400;
    /// A person did not name the agent.
    MemoryAgentRequired = "memory_agent_required", 400;
    /// This user may not act as this person.
    PersonNotAllowed = "person_not_allowed", 403;
    /// A person's command on the command line that the person did not
    /// confirm at the terminal (or by a key file).
    PersonUnconfirmed = "person_unconfirmed", 403;
    /// A day line over the limit.
    MemoryDayLineTooLong = "memory_day_line_too_long", 400;
    /// A day log that is full.
    MemoryDayFull = "memory_day_full", 409;
    /// Only an agent keeps a day log.
    MemoryDayAgentOnly = "memory_day_agent_only", 403;
    /// Day rows are append-only.
    MemoryDayAppendOnly = "memory_day_append_only", 400;
    /// A different result is stored under these ids.
    ResultExists = "result_exists", 409;
    /// A result over the size limit.
    ResultTooLarge = "result_too_large", 413;
    /// A put past the owner's results quota.
    ResultsQuotaExceeded = "results_quota_exceeded", 413;
    /// A stored result file is damaged.
    ResultCorrupt = "result_corrupt", 500;
    /// Text that looks like a prompt injection.
    MemoryThreatBlocked = "memory_threat_blocked", 400;
    /// Text that looks like a secret.
    SecretInMemory = "secret_in_memory", 400;
    /// No learned skill of that name.
    SkillNotFound = "skill_not_found", 404;
    /// Nothing to import.
    ImportNothing = "import_nothing", 404;
    /// An export would overwrite a file.
    ExportExists = "export_exists", 409;
    /// A skill of that name exists.
    SkillExists = "skill_exists", 409;
    /// A skill too large.
    SkillTooLarge = "skill_too_large", 413;
    /// No review of that id.
    ReviewNotFound = "review_not_found", 404;
    /// Entries of the review changed since it ran.
    ReviewChanged = "review_changed", 409;
    /// No learning or proposal of that id.
    LearningNotFound = "learning_not_found", 404;
    /// Too many learnings wait for a person.
    LearningLimit = "learning_limit", 409;
    /// A learning's state refuses the action (a rejected or retired text
    /// proposed again).
    LearningClosed = "learning_closed", 409;
    /// A proposal's text changed since the person read it.
    LearningChanged = "learning_changed", 409;
    /// Too many of an agent's writes wait for a person's review.
    MemoryPendingFull = "memory_pending_full", 409;
    /// No write waiting for review has that id.
    PendingNotFound = "pending_not_found", 404;
    /// An agent saved a text a person rejected in review.
    MemoryPendingRejected = "memory_pending_rejected", 403;
    /// A server's call without a valid key.
    Unauthorized = "unauthorized", 401;
    /// A server has no route at this path.
    RouteNotFound = "route_not_found", 404;
    /// The path exists, not with this method.
    MethodNotAllowed = "method_not_allowed", 405;
    /// A request body over the route's limit.
    RequestTooLarge = "request_too_large", 413;
    /// A route only a person's key may use.
    PersonOnly = "person_only", 403;
    /// The server is at a limit of what it takes at once; retry later.
    Busy = "busy", 503;
    /// A request past the server's time.
    RequestTimeout = "request_timeout", 408;
    /// The server failed.
    InternalError = "internal_error", 500;
    /// A dashboard form not posted from the dashboard's own origin, or
    /// without its session's CSRF token.
    CsrfRefused = "csrf_refused", 403;
    /// A request whose `Host` is not the server's (DNS rebinding).
    MisdirectedRequest = "misdirected_request", 421;
    /// A request for an owner homed on another replica: the answer names
    /// the home replica and its URL.
    Misdirected = "misdirected", 421;
    /// A sync whose merge stopped (a text conflict outside entries): the
    /// merge was aborted, nothing was pushed, a person merges by hand.
    SyncConflict = "sync_conflict", 409;
    /// Too many login attempts from one client address (or one-time
    /// login links waiting to be used); retry later.
    TooManyAttempts = "too_many_attempts", 429;
    /// The store a dashboard form was rendered from changed since: nothing
    /// was done.
    StoreChanged = "store_changed", 409;
}

impl Error {
    /// The stable snake_case code of this error.
    pub fn code(&self) -> ErrorCode {
        match self {
            Error::InvalidId { .. } => ErrorCode::InvalidId,
            Error::UnsafePath { .. } => ErrorCode::UnsafePath,
            Error::InvalidUtf8 { .. } => ErrorCode::InvalidUtf8,
            Error::FileTooLarge { .. } => ErrorCode::FileTooLarge,
            Error::Io { .. } => ErrorCode::IoError,
            Error::Poisoned { .. } => ErrorCode::StorePoisoned,
            Error::Locked { .. } => ErrorCode::Locked,
            Error::DeadlinePassed => ErrorCode::RequestTimeout,
            Error::StoreChanged { .. } => ErrorCode::StoreChanged,
            Error::InvalidConfig { .. } => ErrorCode::InvalidConfig,
            Error::TextEmpty => ErrorCode::MemoryTextEmpty,
            Error::TextTooLong { .. } => ErrorCode::MemoryTextTooLong,
            Error::NotFound { .. } => ErrorCode::MemoryNotFound,
            Error::AmbiguousMatch { .. } => ErrorCode::MemoryAmbiguousMatch,
            Error::OverBudget { .. } => ErrorCode::MemoryOverBudget,
            Error::Unplaceable { .. } => ErrorCode::MemoryUnplaceable,
            Error::Batch { source, .. } => source.code(),
            Error::InvalidExpiry { .. } => ErrorCode::InvalidExpiry,
            Error::InvalidContentType { .. }
            | Error::Required { .. }
            | Error::SelfSupersede { .. }
            | Error::InvalidBatch { .. }
            | Error::InvalidToolInput { .. } => ErrorCode::InvalidRequest,
            Error::SearchFailed { .. } => ErrorCode::SearchFailed,
            Error::Conflicted { .. } => ErrorCode::MemoryConflicted,
            Error::TextInvalid { .. } => ErrorCode::MemoryTextInvalid,
            Error::Malformed { .. } => ErrorCode::FileMalformed,
            Error::FormatTooNew { .. } => ErrorCode::FormatUnsupported,
            Error::Git { .. } => ErrorCode::GitFailed,
            Error::Replica(ReplicaError::Misdirected { .. }) => ErrorCode::Misdirected,
            Error::Replica(ReplicaError::SyncConflict { .. }) => ErrorCode::SyncConflict,
            Error::NotInGit { .. } => ErrorCode::NotInGit,
            Error::Encode { .. } => ErrorCode::EncodeFailed,
            Error::RunNotFound { .. } | Error::SessionRunNotFound { .. } => ErrorCode::RunNotFound,
            Error::NotReady { .. } => ErrorCode::NotReady,
            Error::ResultNotFound { .. } => ErrorCode::ResultNotFound,
            Error::OwnerNotFound { .. } => ErrorCode::OwnerNotFound,
            Error::RootNotFound { .. } => ErrorCode::RootNotFound,
            Error::RunFinished { .. } => ErrorCode::RunFinished,
            Error::Usage { .. } => ErrorCode::Usage,
            Error::RunAmbiguous { .. } => ErrorCode::RunAmbiguous,
            Error::NotOwn { .. } => ErrorCode::MemoryNotOwn,
            Error::BadReason { .. } => ErrorCode::MemoryReasonInvalid,
            Error::WrongState { .. } => ErrorCode::MemoryWrongState,
            Error::AgentMismatch { .. } => ErrorCode::MemoryAgentMismatch,
            Error::SupersedeArchived { .. } => ErrorCode::MemorySupersedeArchived,
            Error::Superseded { .. } => ErrorCode::MemorySuperseded,
            Error::VetoHumanOnly { .. } => ErrorCode::MemoryVetoHumanOnly,
            Error::DayExists { .. } => ErrorCode::MemoryDayExists,
            Error::QueryTooLong { .. } => ErrorCode::MemoryQueryTooLong,
            Error::AgentRequired { .. } => ErrorCode::MemoryAgentRequired,
            Error::PersonNotAllowed { .. } => ErrorCode::PersonNotAllowed,
            Error::PersonUnconfirmed { .. } => ErrorCode::PersonUnconfirmed,
            Error::DayLineTooLong { .. } => ErrorCode::MemoryDayLineTooLong,
            Error::DayFull { .. } => ErrorCode::MemoryDayFull,
            Error::DayAgentOnly { .. } => ErrorCode::MemoryDayAgentOnly,
            Error::DayAppendOnly { .. } => ErrorCode::MemoryDayAppendOnly,
            Error::ResultExists { .. } => ErrorCode::ResultExists,
            Error::ResultTooLarge { .. } => ErrorCode::ResultTooLarge,
            Error::ResultsQuotaExceeded { .. } => ErrorCode::ResultsQuotaExceeded,
            Error::ResultEmpty { .. } | Error::ResultNotText { .. } => ErrorCode::InvalidRequest,
            Error::ResultCorrupt { .. } => ErrorCode::ResultCorrupt,
            Error::ThreatBlocked { .. } => ErrorCode::MemoryThreatBlocked,
            Error::SecretInMemory { .. } => ErrorCode::SecretInMemory,
            Error::SkillNotFound { .. } => ErrorCode::SkillNotFound,
            Error::ImportNothing { .. } => ErrorCode::ImportNothing,
            Error::ExportExists { .. } => ErrorCode::ExportExists,
            Error::SkillExists { .. } => ErrorCode::SkillExists,
            Error::SkillTooLarge { .. } => ErrorCode::SkillTooLarge,
            Error::LearningPersonOnly { .. } => ErrorCode::PersonOnly,
            Error::LoginLinkPersonOnly { .. } => ErrorCode::PersonOnly,
            Error::SummariesPersonOnly { .. } => ErrorCode::PersonOnly,
            Error::LoginLinkLimit { .. } => ErrorCode::TooManyAttempts,
            Error::LoginLinkRefused => ErrorCode::Unauthorized,
            Error::LearningLimit { .. } => ErrorCode::LearningLimit,
            Error::LearningNotFound { .. } => ErrorCode::LearningNotFound,
            Error::LearningClosed { .. } => ErrorCode::LearningClosed,
            Error::LearningChanged { .. } => ErrorCode::LearningChanged,
            Error::PendingFull { .. } => ErrorCode::MemoryPendingFull,
            Error::PendingNotFound { .. } => ErrorCode::PendingNotFound,
            Error::PendingRejected { .. } => ErrorCode::MemoryPendingRejected,
            Error::PendingPersonOnly { .. } => ErrorCode::PersonOnly,
            Error::PendingClosed { .. } => ErrorCode::MemoryWrongState,
            Error::ReviewNotFound { .. } | Error::ReviewPlanNotFound { .. } => {
                ErrorCode::ReviewNotFound
            }
            Error::ReviewChanged { .. } | Error::ReviewPlanChanged { .. } => {
                ErrorCode::ReviewChanged
            }
        }
    }
}

impl ErrorCode {
    /// The command line's exit status for this code: 2 for a wrong command
    /// line, 3 for "not ready" (an answer scripts poll on), 1 otherwise.
    pub const fn exit(self) -> u8 {
        match self {
            ErrorCode::Usage => 2,
            ErrorCode::NotReady => 3,
            _ => 1,
        }
    }
}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for ErrorCode {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// Its schema: one of the registry's words.
impl schemars::JsonSchema for ErrorCode {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "ErrorCode".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let words: Vec<&str> = ErrorCode::ALL.iter().map(|c| c.as_str()).collect();
        schemars::json_schema!({
            "description": "The failure's stable code, its snake_case word (docs/CLI.md, Failures).",
            "type": "string",
            "enum": words,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_has_one_distinct_word_of_snake_case() {
        let mut seen = std::collections::BTreeSet::new();
        for c in ErrorCode::ALL {
            let w = c.as_str();
            assert!(seen.insert(w), "{w} twice");
            assert!(
                w.bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_'),
                "{w}"
            );
            assert!((400..600).contains(&c.status()), "{w}");
        }
        assert_eq!(
            serde_json::to_value(ErrorCode::NotReady).unwrap(),
            serde_json::json!("not_ready")
        );
        assert_eq!(ErrorCode::NotReady.exit(), 3);
        assert_eq!(ErrorCode::Usage.exit(), 2);
        assert_eq!(ErrorCode::MemoryNotFound.exit(), 1);
    }
}
