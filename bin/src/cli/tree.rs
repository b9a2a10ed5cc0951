//! The command tree (clap): the top-level commands and their arguments;
//! the groups' subcommands (`run`, `runs`, `result`, `skill`, `review`, …)
//! are in `groups`.

use std::path::PathBuf;

use chrono::NaiveDate;
use clap::Subcommand;
use memdir::api::types::{FactKind, Keep, Scope, Status};

/// What `memdir batch --help` ends with.
const BATCH_FORMAT: &str = r#"Standard input: a JSON array of operations, applied in order, all or none:
  [{"op": "add", "text": "Deploys need the VPN", "in": "memory", "expires": "30d"},
   {"op": "replace", "old": "mem_0123456789ab", "new": "Deploys need the VPN and a key"},
   {"op": "remove", "old": "Staging resets", "in": "user"}]
"in" is "memory" or "user" ("to", "target" and "scope" are its aliases; an
add's default is "memory"); "old" is an id or a substring of exactly one
entry, looked for in both stores when no "in" names one; "expires" and
"supersedes" as for `add`. A failure names its operation, numbered from 1.
Example: echo '[{"op":"add","text":"Likes tea"}]' | memdir batch"#;

/// Every command.
#[derive(Debug, Subcommand)]
#[command(defer = true)]
pub enum Command {
    /// Create the memory root and a .gitignore listing `.memdir/` and `results/`.
    #[command(display_order = 6)]
    Init,
    /// Git: setup readies an existing root for git (merge driver, attributes, ignores).
    #[command(subcommand)]
    #[command(display_order = 7)]
    Git(GitCommand),
    /// Git: commit what is pending, merge the remote's branch (entry by entry), push; retry if another pushed first.
    #[command(display_order = 8)]
    Sync {
        /// The remote (default: the branch's upstream, else origin).
        #[arg(long)]
        remote: Option<String>,
    },
    /// Watch the root: check each memory file someone other than memdir changes, as it changes (ctrl-c stops).
    #[command(display_order = 10)]
    Watch,
    /// Git's merge driver (`memdir merge-file %O %A %B %P`): merges BASE, OURS and THEIRS entry by entry into OURS; exits 1 when conflict markers are left.
    #[command(display_order = 11)]
    MergeFile {
        /// The common ancestor's version (git's %O).
        base: PathBuf,
        /// Our version, replaced by the result (git's %A).
        ours: PathBuf,
        /// Their version (git's %B).
        theirs: PathBuf,
        /// The file's path in the repository (git's %P): decides how it merges.
        path: Option<String>,
    },
    /// Lint owners' files before a commit: errors exit 1 (warnings too with --strict).
    #[command(display_order = 12)]
    Check {
        /// The owners to check (default: --owner, else every owner of the root).
        owners: Vec<String>,
        /// Fail on warnings too.
        #[arg(long)]
        strict: bool,
    },
    /// Print a completion script for SHELL on standard output (for example
    /// `memdir completions bash > ~/.local/share/bash-completion/completions/memdir`).
    #[command(display_order = 22)]
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
    /// Print the manual page (roff) on standard output (`memdir man | man -l -`).
    #[command(display_order = 23)]
    Man,
    /// Serve MCP on standard input/output for an agent (--owner AGENT, or --person ID [--agent AGENT]).
    #[cfg(feature = "servers")]
    #[command(display_order = 30)]
    Mcp {
        /// Act inside this begun run: its frozen snapshot is `recall` and the
        /// snapshot resource, and each fact saved records the run.
        #[arg(long, value_name = "RUN_ID", conflicts_with = "session")]
        run: Option<String>,
        /// Act inside the open run of this client session (`run begin
        /// --session KEY`), looked up at each call; with none open, outside
        /// any run.
        #[arg(long, value_name = "KEY", env = "MEMDIR_SESSION")]
        session: Option<String>,
        /// Log to standard error at this level (error, warn, info, debug,
        /// trace); default: nothing but failures.
        #[arg(long, value_name = "LEVEL", env = "MEMDIR_LOG")]
        log: Option<tracing_subscriber::filter::LevelFilter>,
    },
    /// Serve the HTTP API (the One API under /v1/, facts under /api/v1/memories) until ctrl-c or SIGTERM.
    #[cfg(feature = "servers")]
    #[command(display_order = 31)]
    Serve {
        /// The address to listen on.
        #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:7077")]
        listen: std::net::SocketAddr,
        /// The keys file (default: keys.yaml in the configuration folder).
        #[arg(long, value_name = "FILE")]
        keys: Option<PathBuf>,
        /// How long one request may take, in seconds.
        #[arg(long, value_name = "S", default_value_t = 30)]
        timeout: u64,
        /// Every this many seconds, run the review of each owner one is due
        /// for (`review --due`, the routine "Memory dreaming"); 0: never.
        #[arg(long, value_name = "S", default_value_t = 300)]
        review_every: u64,
        /// Open connections at most (capped at the descriptor limit less
        /// 64); at the limit the one that has waited longest without
        /// completing its headers is closed for a new one.
        #[arg(long, value_name = "N", default_value_t = 512, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
        max_connections: u32,
        /// How long a request's headers may take, from their first byte, in
        /// seconds.
        #[arg(long, value_name = "S", default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..=3600))]
        header_timeout: u64,
        /// How long a connection may wait for a request (kept alive after
        /// an answer, or just opened), in seconds.
        #[arg(long, value_name = "S", default_value_t = 60, value_parser = clap::value_parser!(u64).range(1..=86_400))]
        idle_timeout: u64,
        /// The most bytes of result uploads (`PUT`) in flight at once,
        /// server-wide; past it a `PUT` is answered 503 `busy` with
        /// `Retry-After` (default 256 MiB).
        #[arg(long, value_name = "BYTES", default_value_t = 256 * 1024 * 1024)]
        max_upload_bytes_in_flight: u64,
        /// Another name the dashboard answers to (its `Host`: `NAME` or
        /// `NAME:PORT`), beside the listen address; any other `Host` gets 421.
        #[arg(long, value_name = "HOST")]
        public_host: Option<String>,
        /// The server sits behind TLS (a reverse proxy): the dashboard's
        /// cookie is `Secure` with the `__Host-` prefix, its origin
        /// `https://`, and a login from another machine is allowed.
        #[arg(long)]
        behind_tls: bool,
        /// How long a dashboard session lives without a request, in seconds
        /// (5 to 86400; a session ends 12 hours after its login whatever
        /// this says).
        #[arg(long, value_name = "S", default_value_t = 1800, value_parser = clap::value_parser!(u64).range(5..=86_400))]
        ui_idle: u64,
        /// Sync the root's clone with this git remote (its name, as `git
        /// remote` lists it): commit what the writes changed, merge through
        /// the merge driver, push (never forced), on a timer and soon after
        /// writes; a failed sync is retried with a backoff, a merge that
        /// needs a person stops syncing (GET /v1/sync says so).
        #[arg(long, value_name = "REMOTE")]
        sync: Option<String>,
        /// The sync period, in seconds (1 to 86400).
        #[arg(long, value_name = "S", default_value_t = 30, requires = "sync", value_parser = clap::value_parser!(u64).range(1..=86_400))]
        sync_every: u64,
        /// This server is the replica NAME of the root's `replicas:`
        /// (memdir.yaml): it answers only for the owners homed on it, and
        /// `421 misdirected`, naming the home, for the others.
        #[arg(long, value_name = "NAME", requires = "sync")]
        replica: Option<String>,
    },
    /// The keys of `memdir serve`: create (shown once), list, revoke.
    #[command(display_order = 32)]
    Key {
        /// What to do with keys.
        #[command(subcommand)]
        command: KeyCommand,
        /// The keys file (default: keys.yaml in the configuration folder).
        #[arg(long, value_name = "FILE", global = true)]
        keys: Option<PathBuf>,
    },
    /// Print a one-time login link to the dashboard for --person ID (good for 10 minutes, once).
    #[command(display_order = 33)]
    Ui {
        /// The keys file of the server (default: keys.yaml in the
        /// configuration folder); the links are kept beside it.
        #[arg(long, value_name = "FILE")]
        keys: Option<PathBuf>,
    },
    /// The commands that ask something of an owner's memory.
    #[command(flatten)]
    Ask(Ask),
}

/// The commands that ask something of an owner's memory: each is one
/// interface request (see `request::request`).
#[derive(Debug, Subcommand)]
#[command(defer = true)]
pub enum Ask {
    /// Append an entry.
    #[command(visible_aliases = ["save", "remember"])]
    #[command(display_order = 0)]
    Add {
        /// The entry's text (it may begin with `-`).
        #[arg(allow_hyphen_values = true)]
        text: String,
        /// The store to write.
        #[arg(long, default_value = "memory", value_enum, value_name = "memory|user")]
        to: Scope,
        /// When the fact expires: a date YYYY-MM-DD (end of that UTC day), an
        /// RFC 3339 time, a number of days such as 30d, or `never`. Default: a
        /// MEMORY.md fact expires after 90 days, a USER.md one never
        /// (`expiry_days` in memdir.yaml). An expired fact leaves the snapshot.
        #[arg(long, value_name = "DATE|30d|never")]
        expires: Option<String>,
        /// Archive this live fact as superseded by the new one.
        #[arg(long, value_name = "MEM_ID")]
        supersedes: Option<String>,
        /// Save it inside this begun, unfinished run (the id `run begin`
        /// printed): the fact's metadata records the run and its task.
        #[arg(long, value_name = "RUN_ID")]
        run: Option<String>,
    },
    /// Archive a memory with a reason.
    #[command(display_order = 1)]
    Archive {
        /// The memory's id.
        id: String,
        /// Why (required, at most 500 characters).
        #[arg(long)]
        reason: String,
    },
    /// Bring an archived memory back.
    #[command(display_order = 2)]
    Unarchive {
        /// The memory's id.
        id: String,
    },
    /// Change a live fact's expiry (an expired fact still in its store
    /// comes back into the snapshot).
    #[command(display_order = 3)]
    Renew {
        /// The fact's `mem_` id (in whichever store holds it).
        id: String,
        /// The new expiry: a date YYYY-MM-DD (end of that UTC day), an RFC
        /// 3339 time, a number of days such as 30d, or `never`. Default: the
        /// store's default expiry from now (MEMORY.md: 90 days; USER.md:
        /// never; `expiry_days` in memdir.yaml).
        #[arg(long, value_name = "DATE|30d|never")]
        expires: Option<String>,
    },
    /// Settle what a merge left of a fact (what `memdir check` finds):
    /// keep both versions of a `conflict=` pair, keep live a fact also
    /// archived (a vetoed one: a person only), or keep one copy of a
    /// duplicate.
    #[command(display_order = 4)]
    Resolve {
        /// The fact's id.
        id: String,
        /// Which: `both`, `live` or `one`.
        #[arg(long, value_enum, value_name = "both|live|one")]
        keep: Keep,
    },
    /// Veto a memory (a person only): archive it as vetoed.
    #[command(display_order = 4)]
    Veto {
        /// The memory's id.
        id: String,
        /// Why.
        #[arg(long)]
        reason: Option<String>,
    },
    /// Show what a recall would pick, with each fact's score (after the
    /// block, never in it); counts as a recall unless --preview.
    #[command(display_order = 5)]
    Recall {
        /// The task or message to score against (default: list the newest facts).
        #[arg(long)]
        query: Option<String>,
        /// The session; one that recalled in the last 24 hours is skipped.
        #[arg(long)]
        session: Option<String>,
        /// Count the recall but neither skip nor start the session's skip.
        #[arg(long)]
        on_demand: bool,
        /// Show what a run would get, counting nothing (no recall counts, no
        /// session started).
        #[arg(long)]
        preview: bool,
        /// Recall inside this begun, unfinished run (the id `run begin`
        /// printed): the block given is kept in the run's record (not a
        /// preview's).
        #[arg(long, value_name = "RUN_ID")]
        run: Option<String>,
    },
    /// Git: which entries each commit added, removed, archived or brought back.
    #[command(display_order = 9)]
    Log {
        /// Only commits that changed this entry.
        #[arg(long, value_name = "MEM_ID")]
        id: Option<String>,
        /// Only commits on or after this date (YYYY-MM-DD).
        #[arg(long, value_name = "YYYY-MM-DD", value_parser = parse_date)]
        since: Option<NaiveDate>,
        /// At most this many commits (default 50).
        #[arg(long)]
        limit: Option<usize>,
    },
    /// Replace the entry OLD (an id or a unique substring) with NEW.
    #[command(display_order = 13)]
    Replace {
        /// A `mem_` id (found in whichever store holds it) or a substring of
        /// exactly one entry; substrings match case-sensitively.
        #[arg(allow_hyphen_values = true)]
        old: String,
        /// The new text (it may begin with `-`).
        #[arg(allow_hyphen_values = true)]
        new: String,
        /// The store to look in (default: either; a substring must then
        /// match exactly one entry of the two).
        #[arg(long = "in", value_enum, value_name = "memory|user")]
        scope: Option<Scope>,
    },
    /// Remove the entry OLD (an id or a unique substring).
    #[command(visible_alias = "forget")]
    #[command(display_order = 14)]
    Remove {
        /// A `mem_` id (found in whichever store holds it) or a substring of
        /// exactly one entry; substrings match case-sensitively.
        #[arg(allow_hyphen_values = true)]
        old: String,
        /// The store to look in (default: either; a substring must then
        /// match exactly one entry of the two).
        #[arg(long = "in", value_enum, value_name = "memory|user")]
        scope: Option<Scope>,
    },
    /// List the entries with their ids, and usage.
    #[command(display_order = 15)]
    Show {
        /// Only this store (default: both).
        #[arg(long = "in", value_enum, value_name = "memory|user")]
        scope: Option<Scope>,
    },
    /// Apply a JSON list of add/replace/remove operations from standard input, all or none.
    #[command(after_help = BATCH_FORMAT)]
    #[command(display_order = 16)]
    Batch,
    /// Append one line to today's day log in episodes.md (agents only).
    #[command(display_order = 17)]
    Day {
        /// The line (it may begin with `-`).
        #[arg(allow_hyphen_values = true)]
        line: String,
        /// The task key, such as PIN-812.
        #[arg(long)]
        task: Option<String>,
        /// The run the line belongs to.
        #[arg(long)]
        run: Option<String>,
        /// Mark the line as a fact for the daily review to lift into
        /// MEMORY.md (written as `fact: LINE`).
        #[arg(long)]
        fact: bool,
    },
    /// List memories, newest first, with recall counts.
    #[command(display_order = 18)]
    List {
        /// Only this kind.
        #[arg(long, value_enum)]
        kind: Option<FactKind>,
        /// Only this status (`active` or `archived`).
        #[arg(long, value_enum, conflicts_with = "all")]
        status: Option<Status>,
        /// Include archived rows (both statuses).
        #[arg(long)]
        all: bool,
        /// At most this many rows (default 100, at most 500).
        #[arg(long)]
        limit: Option<usize>,
    },
    /// Render the snapshot of USER.md and MEMORY.md a run would start with.
    #[command(display_order = 19)]
    Snapshot {
        /// The snapshot this run began with (finished or not) instead.
        #[arg(long, value_name = "RUN_ID", conflicts_with = "session")]
        run: Option<String>,
        /// The snapshot the newest run of this client session (`run begin
        /// --session`) began with.
        #[arg(long, value_name = "KEY")]
        session: Option<String>,
    },
    /// SharedMemory: task results stored under (workflow, task).
    #[command(display_order = 20)]
    Result {
        /// What to do with results.
        #[command(subcommand)]
        command: ResultCommand,
    },
    /// SharedMemory housekeeping: remove old workflows' results.
    #[command(display_order = 21)]
    Results {
        /// What to do.
        #[command(subcommand)]
        command: ResultsCommand,
    },
    /// Look runs up in the journal (never injected).
    #[command(display_order = 24)]
    Runs {
        /// How to look.
        #[command(subcommand)]
        command: RunsCommand,
    },
    /// Runs: begin one (take and store its snapshot).
    #[command(display_order = 25)]
    Run {
        /// Begin or finish.
        #[command(subcommand)]
        command: RunCommand,
    },
    /// The daily review ("Memory dreaming"): merge duplicates, renew or archive expired facts, lift yesterday's `fact:` day lines, settle conflicts by run results.
    #[command(display_order = 26)]
    Review {
        /// Undo a review.
        #[command(subcommand)]
        command: Option<ReviewCommand>,
        /// Print the plan (each change, its reason, a diff of each file); change nothing.
        #[arg(long)]
        dry_run: bool,
        /// Review only when the routine says one is due (cheap when none is: for cron and timers).
        #[arg(long)]
        due: bool,
        /// The reviewer command, run with `sh -c` (default: `reviewer` in the machine-local config.yaml).
        #[arg(long, value_name = "CMD")]
        reviewer: Option<String>,
    },
    /// Move in from another tool: read its memory files into the owner's stores.
    #[command(display_order = 27)]
    Import {
        /// Where from.
        #[command(subcommand)]
        command: ImportCommand,
    },
    /// Write the owner's live entries in another tool's format (--format hermes DIR).
    #[command(display_order = 28)]
    Export {
        /// The format to write.
        #[arg(long, value_enum)]
        format: ExportFormat,
        /// The folder to write MEMORY.md and USER.md in (created if missing).
        dir: PathBuf,
        /// Replace MEMORY.md or USER.md when the folder holds them (default: refuse, export_exists).
        #[arg(long)]
        force: bool,
        /// Say what would be written; write nothing.
        #[arg(long)]
        dry_run: bool,
    },
    /// Learned skills, private to the owner: learn, list, show, forget.
    #[command(display_order = 29)]
    Skill {
        /// What to do with skills.
        #[command(subcommand)]
        command: SkillCommand,
    },
    /// A model's tool on the owner's memory: `tool memory` is Claude's memory tool (JSON on standard input).
    #[command(subcommand, display_order = 29)]
    Tool(super::tool::ToolCommand),
    /// Propose a learning, a fact every agent needs (an agent): it waits in
    /// learnings/proposals.md until a person approves it into LEARNINGS.md.
    #[command(display_order = 29)]
    Propose {
        /// The learning's text (at most 500 characters; scanned like a fact).
        text: String,
    },
    /// The root's learnings: list them (default), or, as a person
    /// (--person P), approve, reject or retire one.
    #[command(display_order = 29)]
    Learnings {
        /// What to do (default: list).
        #[command(subcommand)]
        command: Option<LearningsCommand>,
    },
    /// The owner's writes that wait for a person's review (`writes:
    /// review`): list them (default), show one, or, as a person (--person P
    /// --agent A), approve or reject one.
    #[command(display_order = 29)]
    Pending {
        /// What to do (default: list).
        #[command(subcommand)]
        command: Option<PendingCommand>,
    },
}

pub use super::groups::*;
use super::values::*;
