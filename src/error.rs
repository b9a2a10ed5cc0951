//! The one error type of memdir, with a stable code per variant.

use std::path::PathBuf;

mod code;
mod details;
mod hint;
mod replica;
mod words;

pub use code::ErrorCode;
pub use details::{EntryBrief, OtherOwners, Unconfirmed};
pub use hint::Hint;
pub use replica::ReplicaError;
pub use words::quoted;
use words::{
    brief_list, expired_hint, expiry_message, not_ready_message, owners_hint, unconfirmed_message,
};

/// What memdir's operations return.
pub type Result<T> = std::result::Result<T, Error>;

/// Everything that can go wrong in memdir.
///
/// Each variant has a stable snake_case [`code`](Error::code) and keeps the
/// path, owner or id it concerns.
#[non_exhaustive]
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// An owner, workflow, task, run or skill id is not of the allowed
    /// form, or would not travel to another machine (a reserved device name
    /// on Windows, a trailing dot, a case-only twin of an existing sibling).
    #[error("invalid {kind} id {}: {reason}", quoted(value))]
    InvalidId {
        /// What the id names (`owner`, `workflow`, …).
        kind: &'static str,
        /// The refused value.
        value: String,
        /// Why, and what to use instead.
        reason: String,
    },
    /// A path inside the memory folder is a symlink (or otherwise not a plain file or folder).
    #[error("{}: refusing to follow a symlink or special file inside the memory folder", path.display())]
    UnsafePath {
        /// The offending path.
        path: PathBuf,
    },
    /// A markdown file is not valid UTF-8; it is never rewritten.
    #[error("{}: not valid UTF-8 (byte {offset}); fix the file by hand, memdir will not rewrite it", path.display())]
    InvalidUtf8 {
        /// The file.
        path: PathBuf,
        /// Byte offset of the first invalid sequence.
        offset: usize,
    },
    /// A markdown file is larger than memdir edits.
    #[error("{}: {size} bytes, over the {limit}-byte limit; memdir will not rewrite it", path.display())]
    FileTooLarge {
        /// The file.
        path: PathBuf,
        /// Its size in bytes.
        size: u64,
        /// The limit in bytes.
        limit: u64,
    },
    /// An I/O operation failed.
    #[error("{}: {op} failed: {source}", path.display())]
    Io {
        /// The path the operation concerned.
        path: PathBuf,
        /// What was being done (`read`, `rename`, `fsync`, …).
        op: &'static str,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// A durable write failed earlier; this store handle refuses further writes.
    #[error("{}: an earlier write failed to reach the disk; reopen the store before writing again", path.display())]
    Poisoned {
        /// The file whose write failed.
        path: PathBuf,
    },
    /// The owner's lock could not be taken in time.
    #[error("{}: still locked by another writer after {waited_ms} ms", path.display())]
    Locked {
        /// The lock file.
        path: PathBuf,
        /// How long we waited.
        waited_ms: u64,
    },
    /// The call's deadline passed before its write began (waiting for a
    /// lock, or queued): nothing was written.
    #[error("the call's deadline passed before its write began: nothing was written")]
    DeadlinePassed,
    /// A configuration file or front matter could not be read.
    #[error("{}: {message}", path.display())]
    InvalidConfig {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// Empty entry text.
    #[error("the text is empty")]
    TextEmpty,
    /// Entry text over the character limit.
    #[error(
        "the text is {chars} characters, over the {limit}-character limit; shorten it or split it into two entries"
    )]
    TextTooLong {
        /// Its length in characters.
        chars: usize,
        /// The limit.
        limit: usize,
    },
    /// No entry matches.
    #[error("no entry in {file} matches {query:?}{}", elsewhere.map(|f| format!("; found in {f}")).unwrap_or_default())]
    NotFound {
        /// The file searched (`MEMORY.md, USER.md` when the caller named
        /// no store and both were).
        file: &'static str,
        /// The id or substring asked for.
        query: String,
        /// The other store, when the substring matches exactly one entry
        /// there.
        elsewhere: Option<&'static str>,
        /// The current entries, so the caller can retry with an exact id.
        entries: Vec<EntryBrief>,
    },
    /// More than one entry matches a substring.
    #[error("{query:?} matches {} entries in {file}; use an id: {}", candidates.len(), brief_list(candidates))]
    AmbiguousMatch {
        /// The file searched (`MEMORY.md, USER.md` when both were).
        file: &'static str,
        /// The substring asked for.
        query: String,
        /// The matching entries (id, file and a short preview).
        candidates: Vec<EntryBrief>,
    },
    /// A write would pass the file's character budget.
    #[error("{file} would use {would_use} of {limit} characters; replace or remove entries first ({} stored){}", entries.len(), expired_hint(entries))]
    OverBudget {
        /// The file.
        file: &'static str,
        /// Characters the file would use after the write.
        would_use: usize,
        /// The budget.
        limit: usize,
        /// Characters used now.
        used: usize,
        /// The current entries.
        entries: Vec<EntryBrief>,
    },
    /// The new text cannot be placed as an entry without changing the file's other content.
    #[error("{}: cannot place the entry without changing the file's other content: {reason}", path.display())]
    Unplaceable {
        /// The file.
        path: PathBuf,
        /// Why.
        reason: String,
    },
    /// A batch could not be read or one of its operations failed; nothing was applied.
    #[error("batch operation {}: {source}", index + 1)]
    Batch {
        /// Zero-based index of the failing operation (answers number the
        /// operations from 1).
        index: usize,
        /// Why it failed.
        #[source]
        source: Box<Error>,
    },
    /// No run with that id.
    #[error("no run {run_id:?}")]
    RunNotFound {
        /// The run id asked for.
        run_id: String,
    },
    /// No run of that client session to use: none open (`run finish
    /// --session`), or none ever begun (`snapshot --session`).
    #[error(
        "no run of session {session:?} (open, to write in or finish); `run begin --session` begins one"
    )]
    SessionRunNotFound {
        /// The session asked for.
        session: String,
    },
    /// A write was refused because the text looks like a prompt injection.
    #[error(
        "refused: the text matches threat patterns {patterns}; store facts, not instructions to future agents"
    )]
    ThreatBlocked {
        /// The matched pattern ids, comma-separated.
        patterns: String,
    },
    /// A write was refused because the text looks like a secret.
    #[error("refused: the text looks like a secret ({patterns}); store it as a secret instead")]
    SecretInMemory {
        /// The matched pattern ids, comma-separated.
        patterns: String,
    },
    /// A SharedMemory result is not there yet: an answer, not a failure.
    #[error("{}", not_ready_message(workflow_id, task_id.as_deref(), *waited_ms))]
    NotReady {
        /// The workflow id.
        workflow_id: String,
        /// The task id, when one was asked for.
        task_id: Option<String>,
        /// How long a wait waited, in milliseconds (`None`: no wait).
        waited_ms: Option<u64>,
    },
    /// A workflow memdir does not know: no run began with its id or names
    /// it, no result is stored under it and no `wait` for it is running.
    #[error(
        "no workflow {workflow_id:?}: no run began with that id or names it, no result is stored under it and no one waits for it; check the workflow id"
    )]
    ResultNotFound {
        /// The workflow id.
        workflow_id: String,
        /// The task id, when one was asked for.
        task_id: Option<String>,
    },
    /// The owner named does not exist under the root (the command line's
    /// reads; only writes create an owner).
    #[error("no owner {owner:?} under {}{}", root.display(), owners_hint(*root_exists, others))]
    OwnerNotFound {
        /// The owner named.
        owner: String,
        /// The memory root.
        root: PathBuf,
        /// Whether the root exists.
        root_exists: bool,
        /// What the answer says of the other owners the root holds: named
        /// to a person, withheld from an agent.
        others: OtherOwners,
    },
    /// The memory root does not exist: a write creates an owner only under
    /// an existing root (`memdir init` creates one).
    #[error("{}: no memory root there; create it with `memdir --root {} init`", path.display(), path.display())]
    RootNotFound {
        /// The root.
        path: PathBuf,
    },
    /// The command line is wrong (the command line's usage errors, exit 2).
    #[error("{message}")]
    Usage {
        /// What is wrong, and the usage.
        message: String,
    },
    /// The run has finished already.
    #[error("run {run_id} finished at {finished_at}; begin a new run")]
    RunFinished {
        /// The run id.
        run_id: String,
        /// When it finished (RFC 3339 UTC).
        finished_at: String,
    },
    /// A run-id prefix that starts more than one run id.
    #[error("{prefix:?} starts {} run ids; give more of it: {}", candidates.len(), candidates.join(", "))]
    RunAmbiguous {
        /// The prefix given.
        prefix: String,
        /// The run ids it starts.
        candidates: Vec<String>,
    },
    /// A different result is already stored under these ids.
    #[error("a different result is already stored for {workflow_id}/{task_id}")]
    ResultExists {
        /// The workflow id.
        workflow_id: String,
        /// The task id.
        task_id: String,
    },
    /// A put of empty content that did not ask for an empty result.
    #[error("refused: the content for {workflow_id}/{task_id} is empty (0 bytes), nothing stored")]
    ResultEmpty {
        /// The workflow id.
        workflow_id: String,
        /// The task id.
        task_id: String,
    },
    /// A put without a content type of content that is not text (not
    /// UTF-8, or holding a NUL byte), which the default `text/plain` would
    /// mislabel.
    #[error(
        "refused: the content for {workflow_id}/{task_id} is not text ({reason} at byte {offset}), so text/plain would mislabel it"
    )]
    ResultNotText {
        /// The workflow id.
        workflow_id: String,
        /// The task id.
        task_id: String,
        /// What is not text: `invalid UTF-8` or `a NUL byte`.
        reason: &'static str,
        /// The offset of the first byte that is not text.
        offset: usize,
    },
    /// A result is larger than the configured limit.
    #[error("the result is {bytes} bytes, over the {limit}-byte limit")]
    ResultTooLarge {
        /// Its size.
        bytes: u64,
        /// The limit.
        limit: u64,
    },
    /// A put would take the owner's stored results past its
    /// `results_quota_bytes`.
    #[error("the owner's results would take {bytes} bytes, over its {quota}-byte quota")]
    ResultsQuotaExceeded {
        /// The bytes the owner's results would take with this one.
        bytes: u64,
        /// The quota (`results_quota_bytes`).
        quota: u64,
    },
    /// A stored result file is damaged (metadata line, ids, length or
    /// SHA-256 do not match); it is never repaired.
    #[error("{}: {message}", path.display())]
    ResultCorrupt {
        /// The result file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// A day line over the character limit.
    #[error("the day line is {chars} characters, over the {limit}-character limit")]
    DayLineTooLong {
        /// Its length.
        chars: usize,
        /// The limit.
        limit: usize,
    },
    /// A date's day log is full.
    #[error(
        "the day log of {date} holds {chars} of {limit} characters; save what matters as a fact instead"
    )]
    DayFull {
        /// The date.
        date: String,
        /// Characters it would hold.
        chars: usize,
        /// The limit.
        limit: usize,
    },
    /// The file a decision was taken on changed since it was read: nothing
    /// was done.
    #[error("{file} changed since it was read: nothing was done")]
    StoreChanged {
        /// The file's name (`MEMORY.md`, `USER.md`, `archive.md`).
        file: String,
    },
    /// A person tried to keep a day log.
    #[error("only an agent keeps a day log (caller is person {person:?})")]
    DayAgentOnly {
        /// The person.
        person: String,
    },
    /// A day row cannot be superseded or rewritten.
    #[error("{id} is a day row; day logs are append-only, append a new line instead")]
    DayAppendOnly {
        /// The day row's id.
        id: String,
    },
    /// An agent named another owner: it acts only on its own memory.
    #[error("agent {agent:?} cannot act on {named:?}'s memory; act on your own memories")]
    NotOwn {
        /// The calling agent.
        agent: String,
        /// The owner it named.
        named: String,
    },
    /// The machine-local configuration binds persons to operating-system
    /// users, and this user may not act as this person.
    #[error(
        "this operating-system user (uid {uid}) may not act as person {person:?} (the persons binding of the machine-local configuration); ask whoever keeps it"
    )]
    PersonNotAllowed {
        /// The person named.
        person: String,
        /// The calling user's id.
        uid: u32,
    },
    /// A person's command on the command line that the person did not
    /// confirm: no controlling terminal to ask on, a "no" there, or a key
    /// file the account's keys file does not know as this person's.
    #[error("{}", unconfirmed_message(person, *why))]
    PersonUnconfirmed {
        /// The person named (empty when only a key file named one).
        person: String,
        /// Why it was not confirmed.
        why: Unconfirmed,
    },
    /// A person did not name the agent whose memory to act on.
    #[error("person {person:?} must name the agent")]
    AgentRequired {
        /// The person.
        person: String,
    },
    /// An archive reason is missing or too long.
    #[error("an archive reason is required, at most {limit} characters (got {chars})")]
    BadReason {
        /// Its length.
        chars: usize,
        /// The limit.
        limit: usize,
    },
    /// The fact is archived already (or is not archived, for unarchive).
    #[error("{id} is {state}")]
    WrongState {
        /// The fact's id.
        id: String,
        /// `already archived` or `not archived`.
        state: &'static str,
    },
    /// `supersedes` names another agent's memory.
    #[error("{id} belongs to agent {owner:?}; supersede one of the same agent's memories")]
    AgentMismatch {
        /// The id named.
        id: String,
        /// Its owner.
        owner: String,
    },
    /// The memory to supersede is archived.
    #[error("{id} is archived; supersede a live memory")]
    SupersedeArchived {
        /// The id named.
        id: String,
    },
    /// A superseded memory cannot come back.
    #[error("{id} was superseded by {by}; edit the newer memory")]
    Superseded {
        /// The id named.
        id: String,
        /// The id that replaced it.
        by: String,
    },
    /// Only a person can veto, or bring back a vetoed memory (by unarchiving
    /// it or by saving its text again).
    #[error("only a person can veto {id} or bring it back{}; ask a person", vetoed_on.as_ref().map(|d| format!(" (a person vetoed it on {d})")).unwrap_or_default())]
    VetoHumanOnly {
        /// The id named.
        id: String,
        /// The UTC date of the veto (archive.md's record), when it is vetoed.
        vetoed_on: Option<String>,
    },
    /// That date's day log is already live.
    #[error("the day log of {date} is already live; archive the live one first")]
    DayExists {
        /// The date.
        date: String,
    },
    /// A recall query over the limit.
    #[error("the query is {chars} characters, over the {limit}-character limit")]
    QueryTooLong {
        /// Its length.
        chars: usize,
        /// The limit.
        limit: usize,
    },
    /// A file holds unresolved git conflict markers: memdir does not write it.
    #[error(
        "{file} holds unresolved git conflict markers ({lines}); resolve them by hand, then write again"
    )]
    Conflicted {
        /// The file.
        file: &'static str,
        /// The regions' lines, such as `lines 3-9`.
        lines: String,
    },
    /// Entry text holds control characters (terminal escapes and the like).
    #[error("the text holds control characters ({found}); write plain text")]
    TextInvalid {
        /// What was found, such as `U+001B at character 4`.
        found: String,
    },
    /// An expiry that is neither a date nor an RFC 3339 time, or one that
    /// has passed already (a fact saved expired would never show).
    #[error("{}", expiry_message(value, today.as_deref()))]
    InvalidExpiry {
        /// The refused value.
        value: String,
        /// Today's UTC date (`YYYY-MM-DD`) when the value is in the past;
        /// `None` when it cannot be read.
        today: Option<String>,
    },
    /// A content type that is empty, too long or not printable ASCII.
    #[error(
        "invalid content type {value:?}: use 1-{limit} printable ASCII characters, such as text/plain"
    )]
    InvalidContentType {
        /// The refused value.
        value: String,
        /// The longest accepted, in bytes.
        limit: usize,
    },
    /// A required argument is missing or empty.
    #[error("{what} is required for {action}")]
    Required {
        /// What is missing (`query`, `content`, …).
        what: &'static str,
        /// The action that needs it (`search_runs`, …).
        action: &'static str,
    },
    /// A fact named as superseded by itself.
    #[error("{id} cannot supersede itself: the new text is the same fact")]
    SelfSupersede {
        /// The fact's id.
        id: String,
    },
    /// A batch that is not a JSON list of operations.
    #[error("batch must be a JSON list of operations: {source}")]
    InvalidBatch {
        /// Why it does not parse.
        #[source]
        source: serde_json::Error,
    },
    /// The input of a memory tool call (Claude's `memory_20250818`) that
    /// is not one of its commands: not a JSON object, an unknown
    /// `command`, a field missing or of the wrong type, or over 64 KiB.
    #[error("invalid memory tool input: {message}")]
    InvalidToolInput {
        /// The field concerned, as the tool names it (`command`, `path`,
        /// `insert_line`, …), when one is.
        field: Option<&'static str>,
        /// What is wrong, naming the field.
        message: String,
    },
    /// A search of the journal could not score its lines.
    #[error("search failed: {reason}")]
    SearchFailed {
        /// Why.
        reason: String,
    },
    /// The folder is in a newer format than this memdir knows: it refuses to
    /// write rather than misread.
    #[error(
        "{}: the memory folder is format {found}; this memdir knows format {supported} \
         and will not write to it (upgrade memdir)",
        path.display()
    )]
    FormatTooNew {
        /// The `memdir.yaml` that says so.
        path: PathBuf,
        /// The folder's format.
        found: u64,
        /// The newest format this memdir knows.
        supported: u64,
    },
    /// A git command failed (sync, log, autocommit).
    #[error("git {op}: {message}")]
    Git {
        /// What memdir asked git to do.
        op: String,
        /// What git said.
        message: String,
    },
    /// A replica's refusal, or its sync's stop (docs/SCALING.md).
    #[error(transparent)]
    Replica(#[from] ReplicaError),
    /// The command needs a git work tree and the folder is not in one.
    #[error("{}: not inside a git work tree", path.display())]
    NotInGit {
        /// The folder.
        path: PathBuf,
    },
    /// A file memdir reads holds something it cannot make sense of; it is
    /// left as it is.
    #[error("{}: {message}", path.display())]
    Malformed {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// `import hermes`: the folder holds neither MEMORY.md nor USER.md (or
    /// is not there).
    #[error("{}: no MEMORY.md or USER.md to import", path.display())]
    ImportNothing {
        /// The folder named.
        path: PathBuf,
    },
    /// `export --format hermes`: a file of the folder exists; it is replaced
    /// only with `--force`.
    #[error("{} exists", path.display())]
    ExportExists {
        /// The file.
        path: PathBuf,
    },
    /// No learned skill of the owner has this name.
    #[error("No skill named {name}.")]
    SkillNotFound {
        /// The name asked for.
        name: String,
    },
    /// A learned skill of this name exists; saving over it needs `--replace`.
    #[error("a skill named {name} exists")]
    SkillExists {
        /// The name.
        name: String,
    },
    /// A skill's body (or description) is larger than a skill may hold.
    #[error("the skill's {what} is {size} {unit}, over the {limit}-{unit} limit")]
    SkillTooLarge {
        /// `body` or `description`.
        what: &'static str,
        /// Its size.
        size: u64,
        /// The limit.
        limit: u64,
        /// `bytes` or `characters`.
        unit: &'static str,
    },
    /// No entry of the owner's files carries this review's id.
    #[error("no entry carries review {id}; `memdir review status` names the last review")]
    ReviewNotFound {
        /// The review id.
        id: String,
    },
    /// Entries a review touched changed since; undo changes nothing unless
    /// `--partial`.
    #[error("entries of review {id} changed since it ran: {}; nothing undone", entries.join(", "))]
    ReviewChanged {
        /// The review id.
        id: String,
        /// The entries that changed, each with what changed.
        entries: Vec<String>,
    },
    /// `review apply ID`: this machine keeps no dry run's plan of that id
    /// (plans are derived, under `.memdir/reviews/`).
    #[error(
        "no dry run of review {id} is kept on this machine; `memdir review --dry-run` plans one (its id is the one to apply)"
    )]
    ReviewPlanNotFound {
        /// The review id.
        id: String,
    },
    /// `review apply ID`: what the dry run was planned on changed since (or
    /// it was applied already); nothing is applied.
    #[error("review {id} cannot be applied as previewed: {}; nothing applied", changed.join("; "))]
    ReviewPlanChanged {
        /// The review id.
        id: String,
        /// What changed: each file, with the entries added, removed or
        /// edited.
        changed: Vec<String>,
    },
    /// Only a person approves, rejects or retires a learning.
    #[error("only a person can {action} a learning ({id}); ask a person")]
    LearningPersonOnly {
        /// `approve`, `reject` or `retire`.
        action: &'static str,
        /// The proposal's or learning's id.
        id: String,
    },
    /// Only a person logs in to the dashboard: an agent asked for a
    /// one-time login link.
    #[error(
        "only a person logs in to the dashboard: agent {agent} asked for a login link (ask with --person ID)"
    )]
    LoginLinkPersonOnly {
        /// The agent that asked.
        agent: String,
    },
    /// Only a person is shown every agent's summary (the dashboard's agents
    /// page): an agent asked.
    #[error(
        "only a person is shown every agent's summary: agent {agent} asked (an agent reads its own memory)"
    )]
    SummariesPersonOnly {
        /// The agent that asked.
        agent: String,
    },
    /// Too many one-time login links of this keys file wait to be used.
    #[error(
        "{outstanding} login links already wait to be used (at most {limit}); use one, or wait until they expire"
    )]
    LoginLinkLimit {
        /// How many are outstanding.
        outstanding: usize,
        /// The limit.
        limit: usize,
    },
    /// A one-time login link that is not (or no longer) good: used once
    /// already, expired, or never made.
    #[error("this login link is not valid (used already, expired, or never made)")]
    LoginLinkRefused,
    /// Too many learnings wait for a person: the agent's own pending
    /// proposals, or the root's.
    #[error(
        "{pending} learnings already wait for a person ({of}; at most {limit}); wait until a person decides on them"
    )]
    LearningLimit {
        /// `this agent's` or `the root's`.
        of: &'static str,
        /// How many wait.
        pending: usize,
        /// The limit.
        limit: usize,
    },
    /// No proposal or approved learning of that id.
    #[error("no learning or proposal {id}")]
    LearningNotFound {
        /// The id asked for.
        id: String,
    },
    /// The proposal or learning is not in the state the action needs (a
    /// rejected or retired text proposed again, an approved one rejected).
    #[error("learning {id} is {state}{}", reason.as_ref().map(|r| format!(" ({r})")).unwrap_or_default())]
    LearningClosed {
        /// Its id.
        id: String,
        /// `rejected`, `retired`, `pending` or `approved`.
        state: &'static str,
        /// The person's reason, when one was given.
        reason: Option<String>,
    },
    /// The proposal's text changed since the person read it.
    #[error(
        "proposal {id} changed since you read it; read it again and decide on its text as it is now"
    )]
    LearningChanged {
        /// The proposal's id.
        id: String,
    },
    /// Too many of an agent's writes wait for a person (`writes: review`).
    #[error(
        "{pending} writes of agent {agent} already wait for a person's review (at most {limit}); wait until a person decides on them"
    )]
    PendingFull {
        /// The agent.
        agent: String,
        /// How many of its writes wait.
        pending: usize,
        /// The limit.
        limit: usize,
    },
    /// No write waiting for review has that id.
    #[error("no pending write {}", quoted(id))]
    PendingNotFound {
        /// The id asked for.
        id: String,
    },
    /// An agent saved a text a person rejected when it waited for review:
    /// refused as a vetoed text is (compared by the veto's fold).
    #[error("a person rejected this text{} (pending write {id}); only a person can save it; ask a person", rejected_on.as_ref().map(|d| format!(" on {d}")).unwrap_or_default())]
    PendingRejected {
        /// The rejected pending write's id.
        id: String,
        /// The UTC date of the rejection, when recorded.
        rejected_on: Option<String>,
    },
    /// Only a person approves or rejects a write waiting for review.
    #[error("only a person can {action} a pending write ({id}); ask a person")]
    PendingPersonOnly {
        /// `approve` or `reject`.
        action: &'static str,
        /// The pending write's id.
        id: String,
    },
    /// A pending write decided already (rejected): it is no longer
    /// approved or rejected.
    #[error("pending write {id} was {state} already")]
    PendingClosed {
        /// Its id.
        id: String,
        /// `rejected`.
        state: &'static str,
    },
    /// One of memdir's own records could not be encoded (an internal fault,
    /// not the caller's).
    #[error("could not encode {what}: {source}")]
    Encode {
        /// What was being encoded.
        what: &'static str,
        /// Why.
        #[source]
        source: serde_json::Error,
    },
}

impl Error {
    pub(crate) fn io(
        path: impl Into<PathBuf>,
        op: &'static str,
    ) -> impl FnOnce(std::io::Error) -> Error {
        let path = path.into();
        move |source| Error::Io { path, op, source }
    }
}
