//! The interface's one request/response model: every operation memdir
//! offers as a [`Request`], and what it answers as a [`Response`]; every
//! surface (the command line, MCP, HTTP) builds the one and shows the other.

use chrono::NaiveDate;
use serde::{Deserialize, Serialize};

use crate::edit::Op;
use crate::model::Scope;
use crate::recall::Recall;
use crate::snapshot::Snapshot;
use crate::store::{
    BatchOutcome, DayOutcome, FactKind, FactRow, PutOutcome, RunHit, RunView, Skill, SkillOutcome,
    SkillRow, Status, StoreView, TaskResult, Transition, WorkflowResults, WriteOutcome,
};

/// A run a request names.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RunRef {
    /// The run id `run begin` answered (or a unique prefix of it).
    Id(String),
    /// The newest run begun for this client session (`run begin
    /// --session`) and not finished.
    Session(String),
}

/// Every operation memdir offers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "request", rename_all = "snake_case")]
pub enum Request {
    /// One write: a save (`add`), a replace or a removal.
    Write {
        /// The operation.
        op: Op,
    },
    /// Several writes, all or none.
    Batch {
        /// The operations, in order.
        ops: Vec<Op>,
    },
    /// The entries of one store, or of both.
    Show {
        /// Only this store.
        scope: Option<Scope>,
    },
    /// The snapshot a run would start with.
    Snapshot,
    /// Begin a run.
    BeginRun {
        /// The task key.
        task: Option<String>,
        /// Learned skills to add to the run's snapshot.
        #[serde(default)]
        skills: Vec<String>,
        /// The workflow whose results the run produces (default: the run
        /// id).
        #[serde(default)]
        workflow: Option<String>,
        /// The client's session the run is for: while a run of it is
        /// open, that run is answered again (`resumed`), no new one begun.
        #[serde(default)]
        session: Option<String>,
    },
    /// The runs begun through memdir, newest first.
    ListRuns {
        /// Only runs not finished.
        #[serde(default)]
        open: bool,
    },
    /// Finish a run: its summary line in the day log.
    FinishRun {
        /// The run: its id, or the open run of a session.
        run: RunRef,
        /// One line on what the run did (none: the line says `finished`).
        #[serde(default)]
        text: Option<String>,
    },
    /// Append a line to today's day log.
    Day {
        /// The line.
        line: String,
        /// The task key.
        task: Option<String>,
        /// The run the line belongs to.
        run: Option<String>,
    },
    /// The owner's entry history from git.
    Log {
        /// Only commits that changed this entry.
        id: Option<String>,
        /// Only commits on or after this date.
        since: Option<NaiveDate>,
        /// At most this many commits.
        limit: Option<usize>,
    },
    /// Search the run journal.
    SearchRuns {
        /// What to look for.
        query: String,
        /// Only lines on or after this date.
        since: Option<NaiveDate>,
        /// Only lines on or before this date.
        until: Option<NaiveDate>,
        /// At most this many hits.
        limit: Option<usize>,
    },
    /// A write, a batch or a recall made inside a run the owner (an
    /// agent) began and has not finished: a fact it saves records the run
    /// (`run=` and `task=` in its metadata), and a recall's block is kept
    /// in the run's record (docs/FORMAT.md), as for a run begun through
    /// the library.
    ///
    /// Named by a session ([`RunRef::Session`]) with no run of it open,
    /// the request is made outside any run. Inside a run, a snapshot is
    /// the run's frozen one and a day line is the run's.
    InRun {
        /// The run: the id `run begin` answered, or a session's open run.
        run: RunRef,
        /// The request made inside it: `write`, `batch`, `recall`,
        /// `snapshot` or `day`.
        within: Box<Request>,
    },
    /// One run: journal lines, snapshot, steps.
    GetRun {
        /// The run id.
        run_id: String,
    },
    /// Store a task result.
    PutResult {
        /// The workflow id.
        workflow_id: String,
        /// The task id.
        task_id: String,
        /// The content.
        content: Vec<u8>,
        /// Its MIME type (`None`: `text/plain`, for content that is text).
        content_type: Option<String>,
        /// Replace a different result stored under the same ids.
        overwrite: bool,
        /// Store empty content (else refused).
        allow_empty: bool,
        /// The size limit the content was read under (`None`: the owner's
        /// `max_result_bytes`).
        limit: Option<u64>,
    },
    /// A task's result.
    GetResult {
        /// The workflow id.
        workflow_id: String,
        /// The task id.
        task_id: String,
    },
    /// A workflow's steps.
    WorkflowResults {
        /// The workflow id.
        workflow_id: String,
    },
    /// Wait for a task's result.
    WaitResult {
        /// The workflow id.
        workflow_id: String,
        /// The task id.
        task_id: String,
        /// How long to wait, in seconds.
        timeout_secs: f64,
    },
    /// Archive a memory with a reason.
    Archive {
        /// The memory's id.
        id: String,
        /// Why.
        reason: String,
    },
    /// Set a live fact's expiry.
    Renew {
        /// The fact's id.
        id: String,
        /// The new expiry (as `add --expires` takes it); default: the
        /// store's default expiry from now.
        #[serde(default)]
        expires: Option<String>,
    },
    /// Remove a task's result, or every result of a workflow.
    RemoveResults {
        /// The workflow id.
        workflow_id: String,
        /// The task id (none: the whole workflow).
        #[serde(default)]
        task_id: Option<String>,
    },
    /// Remove the workflows whose newest result is older than some days.
    GcResults {
        /// The age in days.
        older_than_days: u32,
    },
    /// Bring an archived memory back.
    Unarchive {
        /// The memory's id.
        id: String,
    },
    /// A person's settling of what a merge left of a fact (what `check`
    /// finds): keep both versions of a `conflict=` pair, the live side of a
    /// fact live and archived, or one copy of an exact duplicate (the
    /// dashboard's decisions page sends it).
    Resolve {
        /// The fact's id.
        id: String,
        /// How (`both`, `live`, `one`).
        keep: crate::store::Keep,
    },
    /// A decision taken on a page rendered from one of the owner's files
    /// (the dashboard's forms): done only when the file is still as it was
    /// rendered, checked under the owner's lock and applied under the same
    /// lock, whole or not at all; else `store_changed` and nothing done.
    Decide {
        /// The file the page was rendered from.
        file: crate::store::StoreFile,
        /// Its SHA-256 (hex) as rendered.
        sha256: String,
        /// What was decided.
        decision: crate::store::Decision,
    },
    /// A person's veto.
    Veto {
        /// The memory's id.
        id: String,
        /// Why.
        reason: Option<String>,
    },
    /// List memories, newest first.
    List {
        /// Only facts or only day rows.
        kind: Option<FactKind>,
        /// Only active or only archived rows.
        status: Option<Status>,
        /// Include archived rows.
        all: bool,
        /// At most this many rows.
        limit: Option<usize>,
    },
    /// Review the owner's memory (the daily review).
    Review {
        /// Plan and show the plan; change nothing.
        #[serde(default)]
        dry_run: bool,
        /// Only when the routine says a review is due.
        #[serde(default)]
        due: bool,
        /// The reviewer command (`--reviewer`): never read from a request's
        /// JSON (a client must not choose a program this machine runs); the
        /// command line sets it, else the machine-local configuration.
        #[serde(skip)]
        reviewer: Option<String>,
    },
    /// The routine's state: its setting, whether a review is due, the last
    /// review.
    ReviewStatus,
    /// Every review the owner's journal records, newest first, with what
    /// the files still record of its changes and a diff of each.
    ReviewHistory {
        /// At most this many reviews (default 20, at most 100).
        #[serde(default)]
        limit: Option<usize>,
    },
    /// Pause (`true`) or resume the routine.
    ReviewPause {
        /// Pause or resume.
        paused: bool,
    },
    /// Apply the plan a dry run showed (`review apply ID`).
    ApplyReview {
        /// The dry run's review id.
        id: String,
    },
    /// Undo a review.
    UndoReview {
        /// The review id.
        id: String,
        /// Undo what is unchanged when some entries changed since.
        #[serde(default)]
        partial: bool,
    },
    /// Save a learned skill.
    SkillLearn {
        /// Its name.
        name: String,
        /// Its markdown (a front matter of its own is read, then dropped).
        source: String,
        /// Its description.
        description: Option<String>,
        /// Replace a skill of the same name.
        #[serde(default)]
        replace: bool,
    },
    /// The owner's learned skills.
    SkillList,
    /// Propose a learning (every agent would see it once a person approves).
    Propose {
        /// Its text.
        text: String,
    },
    /// The learnings the caller may see.
    Learnings,
    /// A person approves a proposed learning.
    Approve {
        /// The proposal's id.
        id: String,
        /// The learning's text, when the person edits it.
        #[serde(default)]
        text: Option<String>,
        /// The proposal's text as the person read it (refused when it
        /// changed since).
        #[serde(default)]
        seen_text: Option<String>,
    },
    /// A person rejects a proposed learning.
    Reject {
        /// The proposal's id.
        id: String,
        /// Why.
        reason: String,
    },
    /// A person retires an approved learning.
    Retire {
        /// The learning's id.
        id: String,
        /// Why.
        #[serde(default)]
        reason: Option<String>,
    },
    /// One learned skill.
    SkillShow {
        /// Its name.
        name: String,
    },
    /// Forget a learned skill.
    SkillForget {
        /// Its name.
        name: String,
    },
    /// Import a Hermes-style memories folder (`import hermes DIR`).
    ImportHermes {
        /// The folder holding MEMORY.md and/or USER.md.
        dir: std::path::PathBuf,
        /// Import what fits and list the rest (default: all or none per
        /// file).
        #[serde(default)]
        partial: bool,
        /// Plan and report; write nothing.
        #[serde(default)]
        dry_run: bool,
    },
    /// Write the owner's live entries as a Hermes-style memories folder
    /// (`export --format hermes DIR`).
    ExportHermes {
        /// The folder to write MEMORY.md and USER.md in.
        dir: std::path::PathBuf,
        /// Replace files that are there.
        #[serde(default)]
        force: bool,
        /// Report what would be written; write nothing.
        #[serde(default)]
        dry_run: bool,
    },
    /// What a recall would pick, counted as a recall.
    Recall {
        /// The task or message to score against.
        query: Option<String>,
        /// The session.
        session: Option<String>,
        /// An on-demand recall.
        on_demand: bool,
        /// A preview: count nothing.
        #[serde(default)]
        preview: bool,
    },
    /// One call of Claude's memory tool (`memory_20250818`) on the owner's
    /// memory: the tool-use input as the model gave it (`command` and its
    /// fields); answered with the tool result ([`Response::MemoryTool`]),
    /// a refusal included.
    MemoryTool {
        /// The tool-use input: a JSON object, at most 64 KiB.
        input: serde_json::Value,
        /// Whether the tool may write the owner's skills (default: they
        /// are read-only through it).
        #[serde(default)]
        skills_writable: bool,
    },
    /// The owner's writes that wait for a person's review (`writes:
    /// review`), oldest first: an agent's own, every one for a person.
    PendingList {
        /// The rejected ones too.
        #[serde(default)]
        all: bool,
    },
    /// One write that waits for a person's review (or was rejected).
    PendingShow {
        /// Its id (`pnd_…`).
        id: String,
    },
    /// A person approves a write that waits for review: it is written as
    /// the agent's direct write would have been, checked again now.
    PendingApprove {
        /// Its id (`pnd_…`).
        id: String,
        /// The text to write in place of the write's one text, when the
        /// person edits it.
        #[serde(default)]
        text: Option<String>,
    },
    /// A person rejects a write that waits for review: nothing is written,
    /// and its text is refused to the agent from then on.
    PendingReject {
        /// Its id (`pnd_…`).
        id: String,
        /// Why.
        reason: String,
    },
    /// Lints owners' files (`memdir check`): no owner is needed.
    Check {
        /// The owners (none: every owner of the root).
        #[serde(default)]
        owners: Vec<String>,
        /// Whether warnings fail the check too.
        #[serde(default)]
        strict: bool,
    },
    /// Syncs the root's git work tree (`memdir sync`); the caller, when
    /// known, names the commits.
    Sync {
        /// The remote (default: the work tree's).
        #[serde(default)]
        remote: Option<String>,
    },
    /// One store as a reader sees it (an MCP resource, `remember`'s read):
    /// its entries, each guarded and escaped as the snapshot escapes.
    StoreView {
        /// The store.
        scope: Scope,
    },
    /// The entries of both stores for the One API's recall (not counted as
    /// a recall): with a query, the ones it finds evidence for, best first.
    RecallEntries {
        /// The query.
        #[serde(default)]
        query: Option<String>,
        /// At most this many (default 20, at most 500).
        #[serde(default)]
        limit: Option<usize>,
    },
    /// The current entries of both stores, as a failed write lists them.
    CurrentEntries,
    /// The One API's `forget`: the one entry an id or a text names.
    Forget {
        /// The id or the text.
        key: super::servers::ForgetKey,
    },
    /// A one-time login link to the dashboard for the calling person
    /// (`memdir --person ID ui`): only its token's SHA-256 is kept, beside
    /// the keys file, for 10 minutes.
    LoginLink {
        /// The keys file of the server it logs in to (default: keys.yaml in
        /// the configuration folder); the links' file is beside it.
        #[serde(default)]
        keys: Option<std::path::PathBuf>,
    },
    /// Uses a one-time login link (the dashboard's `POST
    /// /ui/login/link/{token}`): once; the link names the person, so the
    /// caller is not consulted ([`crate::api::Who::anonymous`]).
    RedeemLoginLink {
        /// The link's token (64 hex digits).
        token: String,
        /// The keys file of the server (as for [`Request::LoginLink`]).
        #[serde(default)]
        keys: Option<std::path::PathBuf>,
    },
    /// Every agent of the root summed up for a person, a page at a time
    /// (the dashboard's agents page): fact counts, usage, the last run,
    /// today's day log, the review routine, `check`'s findings. A person's
    /// request (`person_only` for an agent); answered from a cache in the
    /// library checked against every file each row was read from
    /// (`api::summaries`).
    AgentSummaries {
        /// The order (default: by id).
        #[serde(default)]
        sort: super::summaries::SummarySort,
        /// The page, from 1 (default 1; past the end: the last).
        #[serde(default)]
        page: Option<usize>,
        /// Rows a page (default 50, at most 500).
        #[serde(default)]
        limit: Option<usize>,
    },
    /// Whom a one-time login link logs in, without using it (the page
    /// `GET /ui/login/link/{token}` names the person before the person
    /// confirms); like [`Request::RedeemLoginLink`], the caller is not
    /// consulted.
    ShowLoginLink {
        /// The link's token (64 hex digits).
        token: String,
        /// The keys file of the server (as for [`Request::LoginLink`]).
        #[serde(default)]
        keys: Option<std::path::PathBuf>,
    },
}

/// What an operation answers.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Response {
    /// What `check` found, per owner.
    Check {
        /// One report per owner checked.
        reports: Vec<crate::store::CheckReport>,
        /// Whether warnings fail the check too.
        strict: bool,
    },
    /// What a sync did.
    Sync(crate::store::SyncReport),
    /// What git's merge driver did to a file.
    Merged(crate::store::MergeFileOutcome),
    /// An owner's entry history.
    Log(Vec<crate::store::LogCommit>),
    /// The root is ready (`init`, `git setup`).
    Init(crate::store::Setup),
    /// A write's outcome.
    Written(WriteOutcome),
    /// A batch's outcome.
    Batch(BatchOutcome),
    /// The stores shown.
    Show {
        /// The owner.
        owner: String,
        /// Each store asked for.
        stores: Vec<StoreView>,
    },
    /// A snapshot.
    Snapshot(Snapshot),
    /// A run begun: its record and frozen snapshot.
    RunBegun {
        /// The run's record.
        record: crate::store::RunRecord,
        /// The snapshot it began with.
        snapshot: Snapshot,
        /// A run of the same session begun earlier and still open, answered
        /// again (no new run begun).
        resumed: bool,
    },
    /// A day-log line appended.
    Day(DayOutcome),
    /// Journal lines found.
    RunHits(Vec<RunHit>),
    /// One run.
    Run(RunView),
    /// Runs begun through memdir.
    Runs(Vec<crate::store::RunRecord>),
    /// A result stored.
    Put(PutOutcome),
    /// A task's result.
    Result(TaskResult),
    /// A workflow's steps.
    Steps(WorkflowResults),
    /// A lifecycle transition.
    Transition(Transition),
    /// A fact's expiry changed.
    Renewed(crate::store::Renewed),
    /// A workflow's results removed.
    ResultsRemoved(crate::store::ResultsRemoved),
    /// Old workflows' results removed.
    ResultsGc(crate::store::ResultsGc),
    /// Memories listed, newest first.
    Rows {
        /// The rows, at most the limit.
        rows: Vec<FactRow>,
        /// How many rows matched before the limit cut them.
        total: usize,
        /// The limit.
        limit: usize,
    },
    /// A recall.
    Recall(Recall),
    /// A review, planned or applied.
    Review(crate::store::ReviewReport),
    /// A review undone.
    Undone(crate::store::UndoReport),
    /// `review --due`: the review if one was due, and the routine.
    ReviewDue(crate::store::DueOutcome),
    /// The routine's state.
    Routine(crate::store::RoutineStatus),
    /// Every review, newest first, with its changes.
    ReviewHistory(crate::store::ReviewHistory),
    /// A skill learned or forgotten.
    Skill(SkillOutcome),
    /// The owner's skills.
    Skills(Vec<SkillRow>),
    /// One skill.
    SkillShown(Skill),
    /// A learning proposed, approved, rejected or retired.
    Learning(crate::store::LearningOutcome),
    /// The learnings a caller may see.
    Learnings(crate::store::LearningsList),
    /// The writes that wait for a person's review.
    Pending(crate::store::PendingList),
    /// One write that waits for a person's review.
    PendingShown(crate::store::PendingWrite),
    /// A person's decision on a write that waited.
    PendingDecided(crate::store::PendingDecision),
    /// What `import hermes` did.
    Imported(crate::store::HermesImport),
    /// What `export --format hermes` did.
    Exported(crate::store::HermesExport),
    /// A memory tool call's result: its text and whether it is an error.
    MemoryTool(crate::memtool::Answer),
    /// One store as a reader sees it ([`Request::StoreView`]).
    StoreView(super::servers::StoreMarkdown),
    /// The One API's recall entries ([`Request::RecallEntries`]).
    Entries(Vec<super::servers::EntryOut>),
    /// The current entries ([`Request::CurrentEntries`]).
    CurrentEntries(Vec<(Scope, crate::error::EntryBrief)>),
    /// A one-time login link made (its token shown here only).
    LoginLink(crate::store::keys::LoginLink),
    /// A one-time login link used: the person it logs in.
    LoginRedeemed {
        /// The person.
        person: String,
    },
    /// A page of every agent's summary ([`Request::AgentSummaries`]).
    AgentSummaries(super::summaries::AgentSummaries),
    /// A one-time login link looked at, not used: whom it logs in, and
    /// until when.
    LoginLinkShown {
        /// The person it logs in.
        person: String,
        /// When it stops being good.
        expires: chrono::DateTime<chrono::Utc>,
    },
}
