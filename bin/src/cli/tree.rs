//! The command tree (clap): every command and its arguments, and the
//! parsers of their values.

use std::path::PathBuf;

use chrono::NaiveDate;
use clap::Subcommand;
use memdir::Scope;
use memdir::{FactKind, Status};

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
        /// Serve this begun run's frozen snapshot (recall, the snapshot resource).
        #[arg(long, value_name = "RUN_ID")]
        run: Option<String>,
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
        /// The dashboard's address, as a browser reaches it.
        #[arg(long, value_name = "BASE", default_value = "http://127.0.0.1:7077")]
        url: String,
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
        #[arg(long, default_value = "memory", value_parser = parse_scope, value_name = "memory|user")]
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
        #[arg(long, value_name = "both|live|one")]
        keep: KeepArg,
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
        #[arg(long = "in", value_parser = parse_scope, value_name = "memory|user")]
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
        #[arg(long = "in", value_parser = parse_scope, value_name = "memory|user")]
        scope: Option<Scope>,
    },
    /// List the entries with their ids, and usage.
    #[command(display_order = 15)]
    Show {
        /// Only this store (default: both).
        #[arg(long = "in", value_parser = parse_scope, value_name = "memory|user")]
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
        #[arg(long, value_parser = parse_kind)]
        kind: Option<FactKind>,
        /// Only this status (`active` or `archived`).
        #[arg(long, value_parser = parse_status, conflicts_with = "all")]
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
    Snapshot,
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
}

/// `memdir learnings list|approve|reject|retire`: the root's learnings, decided by persons.
#[derive(Debug, Subcommand)]
#[command(defer = true)]
pub enum LearningsCommand {
    /// The approved learnings and the proposals (an agent sees its own only).
    List,
    /// Approve a proposal into LEARNINGS.md (a person).
    Approve {
        /// The proposal's id.
        id: String,
        /// The learning's text, in place of the proposal's.
        #[arg(long, value_name = "TEXT")]
        text: Option<String>,
        /// The proposal's text as you read it: refused (learning_changed)
        /// when it changed since.
        #[arg(long, value_name = "TEXT")]
        seen_text: Option<String>,
    },
    /// Reject a proposal with a reason (a person); its text is never
    /// proposed again.
    Reject {
        /// The proposal's id.
        id: String,
        /// Why (required, at most 500 characters).
        #[arg(long)]
        reason: String,
    },
    /// Retire an approved learning (a person): it leaves every snapshot.
    Retire {
        /// The learning's id.
        id: String,
        /// Why.
        #[arg(long)]
        reason: Option<String>,
    },
}

/// `memdir key create|list|revoke`: the keys of `memdir serve`.
#[derive(Debug, Subcommand)]
#[command(defer = true)]
pub enum KeyCommand {
    /// Make a key for --owner AGENT or --person ID and print it (only now).
    Create {
        /// A name to recognise it by.
        #[arg(long)]
        name: Option<String>,
    },
    /// List the keys: ids, names, prefixes, identities, created, last used (never the key).
    List,
    /// Revoke a key by its id or name.
    Revoke {
        /// The key's id (`key_…`) or name.
        key: String,
    },
}

/// `memdir review apply|undo|pause|resume|status|history`: apply a dry run's plan, undo a review; pause, resume or show the daily routine; list every review.
#[derive(Debug, Subcommand)]
#[command(defer = true)]
pub enum ReviewCommand {
    /// Apply exactly the plan `review --dry-run` showed as ID, if nothing it was planned on changed since.
    Apply {
        /// The dry run's review id (`review-…`).
        id: String,
    },
    /// Bring back what review ID archived and take out what it lifted, from the files alone.
    Undo {
        /// The review id (`review-…`).
        id: String,
        /// When entries changed since, undo the rest (default: change nothing).
        #[arg(long)]
        partial: bool,
    },
    /// Pause the routine (`paused: true` in the owner's memdir.yaml).
    Pause,
    /// Resume the routine (adds it when there is none).
    Resume,
    /// The routine: last run, next due, last report.
    Status,
    /// Every review the journal records, newest first, with what the files still record of its changes and a diff of each.
    History {
        /// At most this many reviews (default 20, at most 100).
        #[arg(long)]
        limit: Option<usize>,
    },
}

/// `memdir import hermes`: move in from another tool's memory files.
#[derive(Debug, Subcommand)]
#[command(defer = true)]
pub enum ImportCommand {
    /// A Hermes-style memories folder: MEMORY.md and USER.md whose entries are
    /// separated by a line holding only `§`. Each entry is checked and scanned
    /// as `add` does; each file goes in whole or not at all (see --partial);
    /// entries already stored are skipped, so importing twice changes nothing.
    Hermes {
        /// The folder holding MEMORY.md and/or USER.md.
        dir: PathBuf,
        /// Import what fits and list the rest (default: a file with any
        /// refused entry, or past the budget, is not imported at all).
        #[arg(long)]
        partial: bool,
        /// Say what would be imported and refused; write nothing.
        #[arg(long)]
        dry_run: bool,
    },
}

/// `memdir resolve --keep`: how a merge's leftover is settled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum KeepArg {
    /// Both versions of a `conflict=` pair (their marks dropped).
    Both,
    /// The live fact (its archive records removed).
    Live,
    /// The first copy of an exact duplicate.
    One,
}

/// The formats `memdir export` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ExportFormat {
    /// MEMORY.md and USER.md, entries separated by a line holding only `§`.
    Hermes,
}

/// `memdir skill learn|list|show|forget`: learned skills, private to the owner.
#[derive(Debug, Subcommand)]
#[command(defer = true)]
pub enum SkillCommand {
    /// Save a skill as skills/NAME/SKILL.md (from --from FILE, or `-` for
    /// standard input); scanned like memory, at most 64 KiB of body.
    #[command(group(clap::ArgGroup::new("source").required(true).args(["from", "stdin"])))]
    Learn {
        /// The skill's name (an id: [A-Za-z0-9._-], starting with a letter or digit).
        name: String,
        /// `-`: read the skill from standard input.
        #[arg(value_name = "-", value_parser = parse_dash)]
        stdin: Option<String>,
        /// Read the skill from this file.
        #[arg(long, value_name = "FILE")]
        from: Option<PathBuf>,
        /// One line on what the skill is for (default: the source's front
        /// matter's, else its first line).
        #[arg(long, value_name = "TEXT")]
        description: Option<String>,
        /// Replace a skill of the same name.
        #[arg(long)]
        replace: bool,
    },
    /// List the owner's skills: `- NAME — description`.
    List,
    /// Print a skill's SKILL.md.
    Show {
        /// The skill's name.
        name: String,
    },
    /// Forget (delete) a skill.
    Forget {
        /// The skill's name.
        name: String,
    },
}

fn parse_dash(s: &str) -> Result<String, String> {
    if s == "-" {
        Ok(s.to_owned())
    } else {
        Err(format!(
            "expected `-` (standard input) or --from FILE, got {s:?}"
        ))
    }
}

/// `memdir results gc`: remove old run data.
#[derive(Debug, Subcommand)]
#[command(defer = true)]
pub enum ResultsCommand {
    /// Remove every workflow whose newest result is more than DAYS days old
    /// (each under its workflow's lock; the owner's results only).
    Gc {
        /// The age in days.
        #[arg(long, value_name = "DAYS")]
        older_than: u32,
    },
}

/// `memdir run begin|finish`: a run's frozen snapshot, then its day-log line.
#[derive(Debug, Subcommand)]
#[command(defer = true)]
pub enum RunCommand {
    /// Begin a run: print its id and its frozen snapshot.
    Begin {
        /// The task key the run works on, such as PIN-812.
        #[arg(long)]
        task: Option<String>,
        /// Learned skills to add to the run's snapshot, after the memory
        /// (repeat the option, or list several names after it).
        #[arg(long = "skill", value_name = "NAME", num_args = 1..)]
        skills: Vec<String>,
        /// The workflow whose results the run produces (`result put WORKFLOW …`;
        /// default: the run id). Kept in the run record and its journal line.
        #[arg(long, value_name = "ID")]
        workflow: Option<String>,
    },
    /// Finish a run: append its summary line to today's day log (once).
    Finish {
        /// The run id `run begin` printed, or a unique prefix of it.
        run: String,
        /// One line on what the run did (default: `finished`; a line the
        /// scanner flags is refused and the run stays open).
        #[arg(allow_hyphen_values = true)]
        text: Option<String>,
    },
}

/// `memdir runs search|show|list`: the run journal, queried on demand.
#[derive(Debug, Subcommand)]
#[command(defer = true)]
pub enum RunsCommand {
    /// Rank the journal's lines against QUERY.
    Search {
        /// What to look for.
        #[arg(allow_hyphen_values = true)]
        query: String,
        /// Only lines on or after this date (YYYY-MM-DD).
        #[arg(long, value_name = "YYYY-MM-DD", value_parser = parse_date)]
        since: Option<NaiveDate>,
        /// Only lines on or before this date (YYYY-MM-DD).
        #[arg(long, value_name = "YYYY-MM-DD", value_parser = parse_date)]
        until: Option<NaiveDate>,
        /// At most this many lines (default 20).
        #[arg(long)]
        limit: Option<usize>,
    },
    /// One run: its journal lines, the snapshot it began with, its steps.
    Show {
        /// The run id, or a unique prefix of a begun run's id.
        run: String,
    },
    /// The runs begun through memdir, newest first.
    List {
        /// Only runs not finished yet.
        #[arg(long)]
        open: bool,
    },
}

/// `memdir result put|get|rm|wait`: SharedMemory task results.
///
/// `get` with a task and `wait` print the content raw (byte for byte) on
/// standard output; with `--json` they print one object whose `content` is
/// the content as a string when it is UTF-8, else `null` with the bytes in
/// `content_base64` (standard alphabet, padded). Warnings (such as a rebuilt
/// index) go to standard error. `put` reads at most the owner's
/// `max_result_bytes` + 1 bytes into memory: past the limit it answers
/// `result_too_large` with the content's full size.
#[derive(Debug, Subcommand)]
#[command(defer = true)]
pub enum ResultCommand {
    /// Store a task's result (from --file, else standard input), up to
    /// `max_result_bytes` from memdir.yaml (default 16 MiB).
    Put {
        /// The workflow (run) id.
        workflow: String,
        /// The task id.
        task: String,
        /// The content's MIME type (default text/plain, for content that is
        /// text: other content needs its type).
        #[arg(long = "type", value_name = "MIME")]
        content_type: Option<String>,
        /// Read the content from this file instead of standard input.
        #[arg(long, value_name = "F")]
        file: Option<PathBuf>,
        /// Replace a different result stored under the same ids.
        #[arg(long)]
        overwrite: bool,
        /// Store empty content (else refused: an empty input is more often a
        /// producer that failed).
        #[arg(long)]
        allow_empty: bool,
    },
    /// Print a task's result, or without TASK the workflow's steps.
    Get {
        /// The workflow (run) id.
        workflow: String,
        /// The task id (omit to list the workflow's steps).
        task: Option<String>,
    },
    /// Remove a task's result, or without TASK every result of the workflow
    /// (under the workflow's lock; the owner's results only).
    Rm {
        /// The workflow (run) id.
        workflow: String,
        /// The task id (omit to remove the whole workflow).
        task: Option<String>,
    },
    /// Wait until a task's result is stored, then print it (exit 3 on timeout).
    Wait {
        /// The workflow (run) id.
        workflow: String,
        /// The task id.
        task: String,
        /// How long to wait, in seconds.
        #[arg(long, value_name = "S", default_value_t = 30.0, value_parser = parse_seconds)]
        timeout: f64,
    },
}

fn parse_date(s: &str) -> Result<NaiveDate, String> {
    NaiveDate::parse_from_str(s, "%Y-%m-%d")
        .map_err(|_| format!("expected a date YYYY-MM-DD, got {s:?}"))
}

fn parse_scope(s: &str) -> Result<Scope, String> {
    Scope::parse(s).ok_or_else(|| format!("expected `memory` or `user`, got {s:?}"))
}

fn parse_kind(s: &str) -> Result<FactKind, String> {
    match s {
        "fact" => Ok(FactKind::Fact),
        "day" => Ok(FactKind::Day),
        _ => Err(format!("expected `fact` or `day`, got {s:?}")),
    }
}

fn parse_status(s: &str) -> Result<Status, String> {
    match s {
        "active" => Ok(Status::Active),
        "archived" => Ok(Status::Archived),
        _ => Err(format!("expected `active` or `archived`, got {s:?}")),
    }
}

fn parse_seconds(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if v.is_finite() && (0.0..=86_400.0).contains(&v) => Ok(v),
        _ => Err(format!(
            "expected a number of seconds from 0 to 86400, got {s:?}"
        )),
    }
}

/// `memdir git …`.
#[derive(Debug, Subcommand)]
#[command(defer = true)]
pub enum GitCommand {
    /// Write .gitattributes and .gitignore, register the merge driver, record the format (idempotent).
    Setup {
        /// Also install a pre-commit hook that runs `memdir check`.
        #[arg(long)]
        hook: bool,
    },
}
