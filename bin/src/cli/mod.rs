//! The `memdir` command tree: global options, every command and its
//! arguments, and how a command becomes an interface [`Request`]. Reading
//! standard input (a batch, a result's content) happens here too: it is the
//! command line's transport.

use std::io::Read;
use std::path::{Path, PathBuf};

use chrono::NaiveDate;
use clap::{Args, Parser, Subcommand};
use memdir::api::{self, Request, Who};
use memdir::{Caller, Error, Op, Scope, Store};
use memdir::{FactKind, Status};

/// The heading of the options every command takes.
const GLOBAL: &str = "Global options";

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

/// What `memdir --help` ends with.
const CONCEPTS: &str = "\
Concepts:
  root     the folder holding every owner's memory (--root, $MEMDIR_ROOT)
  owner    whose memory a command uses: an agent's id (--owner, $MEMDIR_OWNER)
  agent    an AI agent; it reads and writes only its own memory
  person   a human of the workspace (--person), acting on an agent's memory (--agent)
  store    memory (MEMORY.md: facts, expire after 90 days by default) or
           user (USER.md: about the person, never expire)
  entry    one fact, a `- ` item with a `mem_` id
  run      one piece of an agent's work: begins with a frozen snapshot
  workflow the id a run's results are stored under (default: the run id)
  task     one result of a workflow (`result put WORKFLOW TASK`)

Output: text for people, or with --json one JSON object (docs/CLI.md, docs/schema/).
Colours: only in clap's help and errors, only on a terminal, never with NO_COLOR.";

/// memdir: markdown memory for AI agents, kept per owner in plain files.
#[derive(Debug, Parser)]
#[command(name = "memdir", version, about, propagate_version = true, after_help = CONCEPTS)]
pub struct Cli {
    /// Options every command takes.
    #[command(flatten)]
    pub global: Global,
    /// The command.
    #[command(subcommand)]
    pub command: Command,
}

/// Parses the command line `args` (the program's name first).
///
/// The global options are global to one command only: the one this
/// command line names. clap copies a global option into every command of
/// the tree when it builds the tree (seven options into some fifty
/// commands: most of what a short-lived `memdir` process allocated, and a
/// fifth of its page faults), and a command line uses one command (or none:
/// `--version`, `--help`). Where the command cannot be told from the words
/// before it (`help`, an unknown word, an option clap must reject), the
/// whole tree takes them, as clap makes it.
pub fn parse(args: Vec<std::ffi::OsString>) -> Result<Cli, clap::Error> {
    use clap::{CommandFactory, FromArgMatches};
    let mut command = Cli::command();
    let globals: Vec<clap::Arg> = command
        .get_arguments()
        .filter(|a| a.is_global_set())
        .cloned()
        .collect();
    let name = match named_command(&command, &globals, &args) {
        Named::Command(name) => Some(name),
        Named::None => None,
        Named::Unknown => return parse_whole(command, args),
    };
    for a in &globals {
        command = command.mut_arg(a.get_id().clone(), |a| a.global(false));
    }
    if let Some(name) = &name {
        command = command.mut_subcommand(name, |sub| sub.args(globals));
    }
    // The tree is never dropped: freeing its hundreds of allocations would
    // cost a one-shot process more than parsing.
    let mut command = std::mem::ManuallyDrop::new(command);
    let matches = command.try_get_matches_from_mut(args)?;
    let mut cli = Cli::from_arg_matches(&matches)?;
    if let Some((_, sub)) = matches.subcommand() {
        // The values given after the command (clap has gathered those of
        // its own subcommands into it) win over those before it.
        let after = Global::from_arg_matches(sub)?;
        let g = &mut cli.global;
        g.root = after.root.or(g.root.take());
        g.owner = after.owner.or(g.owner.take());
        g.json |= after.json;
        g.lock_timeout_ms = after.lock_timeout_ms.or(g.lock_timeout_ms);
        g.person = after.person.or(g.person.take());
        g.agent = after.agent.or(g.agent.take());
        g.config_dir = after.config_dir.or(g.config_dir.take());
    }
    Ok(cli)
}

/// [`parse`] with the global options in the whole tree, as clap makes it.
pub fn parse_whole(
    command: clap::Command,
    args: Vec<std::ffi::OsString>,
) -> Result<Cli, clap::Error> {
    use clap::FromArgMatches;
    let mut command = std::mem::ManuallyDrop::new(command);
    let matches = command.try_get_matches_from_mut(args)?;
    Cli::from_arg_matches(&matches)
}

/// What the words before the first one that is not a global option say.
enum Named {
    /// A command (an alias resolved to its name).
    Command(String),
    /// No command: the words are global options, help or the version.
    None,
    /// Something [`parse`] leaves to the whole tree.
    Unknown,
}

/// The command `args` names, where the words before it are the `globals`
/// (long options, `--name VALUE` or `--name=VALUE` for one that takes a
/// value), help or the version only.
fn named_command(
    command: &clap::Command,
    globals: &[clap::Arg],
    args: &[std::ffi::OsString],
) -> Named {
    let mut words = args.iter().skip(1);
    while let Some(w) = words.next() {
        let Some(w) = w.to_str() else {
            return Named::Unknown;
        };
        if matches!(w, "--help" | "-h" | "--version" | "-V") {
            continue;
        }
        if let Some(option) = w.strip_prefix("--") {
            let (name, inline) = match option.split_once('=') {
                Some((name, _)) => (name, true),
                None => (option, false),
            };
            let Some(arg) = globals.iter().find(|a| a.get_long() == Some(name)) else {
                return Named::Unknown;
            };
            if arg.get_action().takes_values() && !inline && words.next().is_none() {
                return Named::Unknown;
            }
            continue;
        }
        if w.starts_with('-') {
            return Named::Unknown;
        }
        return match command.find_subcommand(w) {
            Some(c) => Named::Command(c.get_name().to_owned()),
            None => Named::Unknown,
        };
    }
    Named::None
}

/// Options every command takes.
#[derive(Debug, Args)]
pub struct Global {
    /// The memory root (one folder per owner) [default: $MEMDIR_ROOT, else
    /// ./memory].
    #[arg(long, global = true, value_name = "DIR", help_heading = GLOBAL)]
    pub root: Option<PathBuf>,
    /// The owner whose memory to use [default: $MEMDIR_OWNER].
    #[arg(long, global = true, value_name = "ID", help_heading = GLOBAL)]
    pub owner: Option<String>,
    /// Print JSON instead of text (failures too: {"error":{…}} on standard
    /// output).
    #[arg(long, global = true, help_heading = GLOBAL)]
    pub json: bool,
    /// How long to wait for the owner's lock, in milliseconds [default:
    /// `lock_timeout_ms` in memdir.yaml, else 10000].
    #[arg(long, global = true, value_name = "MS", help_heading = GLOBAL)]
    pub lock_timeout_ms: Option<u64>,
    /// Act as this person of the workspace (default: the owner itself, an agent).
    #[arg(long, global = true, value_name = "ID", help_heading = GLOBAL)]
    pub person: Option<String>,
    /// The agent whose memory a person acts on (an agent may only name itself).
    #[arg(long, global = true, value_name = "ID", help_heading = GLOBAL)]
    pub agent: Option<String>,
    /// The machine-local configuration folder (default: $MEMDIR_CONFIG_DIR,
    /// else $XDG_CONFIG_HOME/memdir, else ~/.config/memdir).
    #[arg(long, global = true, value_name = "DIR", help_heading = GLOBAL)]
    pub config_dir: Option<PathBuf>,
}

impl Global {
    /// Fills what the options leave out from `MEMDIR_ROOT` and
    /// `MEMDIR_OWNER` (an empty owner is refused as an invalid id later).
    /// Read here, not by the parser, so that a usage line never shows them
    /// as given.
    pub fn fill_from_env(&mut self) {
        let var = |name: &str| std::env::var_os(name);
        if self.root.is_none() {
            self.root =
                Some(var("MEMDIR_ROOT").map_or_else(|| PathBuf::from("./memory"), PathBuf::from));
        }
        if self.owner.is_none() {
            self.owner = var("MEMDIR_OWNER").and_then(|v| v.into_string().ok());
        }
    }

    /// The memory root.
    pub fn root(&self) -> &Path {
        self.root.as_deref().unwrap_or(Path::new("./memory"))
    }
}

/// Every command.
#[derive(Debug, Subcommand)]
#[command(defer = true)]
pub enum Command {
    /// Append an entry.
    #[command(visible_aliases = ["save", "remember"])]
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
    },
    /// Archive a memory with a reason.
    Archive {
        /// The memory's id.
        id: String,
        /// Why (required, at most 500 characters).
        #[arg(long)]
        reason: String,
    },
    /// Bring an archived memory back.
    Unarchive {
        /// The memory's id.
        id: String,
    },
    /// Change a live fact's expiry (an expired fact still in its store
    /// comes back into the snapshot).
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
    /// Veto a memory (a person only): archive it as vetoed.
    Veto {
        /// The memory's id.
        id: String,
        /// Why.
        #[arg(long)]
        reason: Option<String>,
    },
    /// Show what a recall would pick, with each fact's score (after the
    /// block, never in it); counts as a recall unless --preview.
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
    },
    /// Create the memory root and a .gitignore listing `.memdir/` and `results/`.
    Init,
    /// Git: setup readies an existing root for git (merge driver, attributes, ignores).
    #[command(subcommand)]
    Git(GitCommand),
    /// Git: commit what is pending, merge the remote's branch (entry by entry), push; retry if another pushed first.
    Sync {
        /// The remote (default: the branch's upstream, else origin).
        #[arg(long)]
        remote: Option<String>,
    },
    /// Git: which entries each commit added, removed, archived or brought back.
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
    /// Watch the root: check each memory file someone other than memdir changes, as it changes (ctrl-c stops).
    Watch,
    /// Git's merge driver (`memdir merge-file %O %A %B %P`): merges BASE, OURS and THEIRS entry by entry into OURS; exits 1 when conflict markers are left.
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
    Check {
        /// The owners to check (default: --owner, else every owner of the root).
        owners: Vec<String>,
        /// Fail on warnings too.
        #[arg(long)]
        strict: bool,
    },
    /// Replace the entry OLD (an id or a unique substring) with NEW.
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
    Show {
        /// Only this store (default: both).
        #[arg(long = "in", value_parser = parse_scope, value_name = "memory|user")]
        scope: Option<Scope>,
    },
    /// Apply a JSON list of add/replace/remove operations from standard input, all or none.
    #[command(after_help = BATCH_FORMAT)]
    Batch,
    /// Append one line to today's day log in episodes.md (agents only).
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
    Snapshot,
    /// SharedMemory: task results stored under (workflow, task).
    Result {
        /// What to do with results.
        #[command(subcommand)]
        command: ResultCommand,
    },
    /// SharedMemory housekeeping: remove old workflows' results.
    Results {
        /// What to do.
        #[command(subcommand)]
        command: ResultsCommand,
    },
    /// Print a completion script for SHELL on standard output (for example
    /// `memdir completions bash > ~/.local/share/bash-completion/completions/memdir`).
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
    /// Print the manual page (roff) on standard output (`memdir man | man -l -`).
    Man,
    /// Look runs up in the journal (never injected).
    Runs {
        /// How to look.
        #[command(subcommand)]
        command: RunsCommand,
    },
    /// Runs: begin one (take and store its snapshot).
    Run {
        /// Begin or finish.
        #[command(subcommand)]
        command: RunCommand,
    },
    /// The daily review ("Memory dreaming"): merge duplicates, renew or archive expired facts, lift yesterday's `fact:` day lines, settle conflicts by run results.
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
    Import {
        /// Where from.
        #[command(subcommand)]
        command: ImportCommand,
    },
    /// Write the owner's live entries in another tool's format (--format hermes DIR).
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
    Skill {
        /// What to do with skills.
        #[command(subcommand)]
        command: SkillCommand,
    },
    /// Serve MCP on standard input/output for an agent (--owner AGENT, or --person ID [--agent AGENT]).
    #[cfg(feature = "servers")]
    Mcp {
        /// Serve this begun run's frozen snapshot (recall, the snapshot resource).
        #[arg(long, value_name = "RUN_ID")]
        run: Option<String>,
    },
    /// Serve the HTTP API (the One API under /v1/, facts under /api/v1/memories) until ctrl-c or SIGTERM.
    #[cfg(feature = "servers")]
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
    },
    /// The keys of `memdir serve`: create (shown once), list, revoke.
    Key {
        /// What to do with keys.
        #[command(subcommand)]
        command: KeyCommand,
        /// The keys file (default: keys.yaml in the configuration folder).
        #[arg(long, value_name = "FILE", global = true)]
        keys: Option<PathBuf>,
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

/// `memdir review apply|undo|pause|resume|status`: apply a dry run's plan, undo a review; pause, resume or show the daily routine.
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
        /// One line on what the run did.
        #[arg(allow_hyphen_values = true)]
        text: String,
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

/// Who the global options name. An agent is `--owner` (or `--agent` alone:
/// the agent itself); it may name only itself (`--owner A --agent B` is
/// `memory_not_own`). A person (`--person`) names the owner with `--agent`
/// or `--owner`; naming two different ones is a usage error. `Ok(None)` when
/// an agent's command names no owner.
pub fn who(g: &Global) -> Result<Option<Who>, String> {
    Ok(match &g.person {
        Some(p) => {
            if let (Some(o), Some(a)) = (&g.owner, &g.agent)
                && o != a
            {
                return Err(format!(
                    "--owner {o} and --agent {a} name two owners; a person names one (--agent)"
                ));
            }
            Some(Who {
                caller: Caller::Person(p.clone()),
                named: g.agent.clone().or_else(|| g.owner.clone()),
            })
        }
        None => match (&g.owner, &g.agent) {
            (Some(me), named) => Some(Who {
                caller: Caller::Agent(me.clone()),
                named: named.clone(),
            }),
            (None, Some(me)) => Some(Who {
                caller: Caller::Agent(me.clone()),
                named: None,
            }),
            (None, None) => None,
        },
    })
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

/// What a command asks for.
pub enum Action {
    /// `init`: needs no owner.
    Init,
    /// `check`: the owners to check (none: all) and whether warnings fail.
    Check(Vec<String>, bool),
    /// `git setup`: with the hook or not.
    GitSetup(bool),
    /// `sync`: as whom (if the options name anyone), with which remote.
    Sync(Option<Caller>, Option<String>),
    /// `watch`.
    Watch,
    /// Everything else: a request of an owner's memory, by `who`.
    Request(Who, Request),
}

/// What a command asks for, reading standard input (or a file) where the
/// command takes content from it. `None` when it needs an owner and the
/// options name none.
pub fn action(
    store: &Store,
    g: &Global,
    who: Option<Who>,
    command: Command,
) -> Result<Option<Action>, Error> {
    match command {
        Command::Init => return Ok(Some(Action::Init)),
        Command::Git(GitCommand::Setup { hook }) => return Ok(Some(Action::GitSetup(hook))),
        Command::Sync { remote } => {
            return Ok(Some(Action::Sync(who.map(|w| w.caller), remote)));
        }
        Command::Watch => return Ok(Some(Action::Watch)),
        Command::Check { owners, strict } => {
            let owners = match (owners.is_empty(), &g.owner) {
                (true, Some(me)) => vec![me.clone()],
                _ => owners,
            };
            return Ok(Some(Action::Check(owners, strict)));
        }
        _ => {}
    }
    let Some(who) = who else { return Ok(None) };
    let request = request(store, &who, command)?;
    Ok(Some(Action::Request(who, request)))
}

/// The request a command makes.
fn request(store: &Store, who: &Who, command: Command) -> Result<Request, Error> {
    Ok(match command {
        Command::Init
        | Command::Check { .. }
        | Command::Git(_)
        | Command::Sync { .. }
        | Command::MergeFile { .. }
        | Command::Key { .. }
        | Command::Completions { .. }
        | Command::Man
        | Command::Watch => {
            unreachable!(
                "init, check, git, sync and watch are no requests (see `action`); main runs merge-file, key, completions and man"
            )
        }
        #[cfg(feature = "servers")]
        Command::Mcp { .. } | Command::Serve { .. } => {
            unreachable!("main runs the servers")
        }
        Command::Log { id, since, limit } => Request::Log { id, since, limit },
        Command::Add {
            text,
            to,
            expires,
            supersedes,
        } => Request::Write {
            op: Op::Add {
                text,
                scope: to,
                expires,
                supersedes,
            },
        },
        Command::Replace { old, new, scope } => Request::Write {
            op: Op::Replace { old, new, scope },
        },
        Command::Remove { old, scope } => Request::Write {
            op: Op::Remove { old, scope },
        },
        Command::Archive { id, reason } => Request::Archive { id, reason },
        Command::Unarchive { id } => Request::Unarchive { id },
        Command::Renew { id, expires } => Request::Renew { id, expires },
        Command::Results {
            command: ResultsCommand::Gc { older_than },
        } => Request::GcResults {
            older_than_days: older_than,
        },
        Command::Veto { id, reason } => Request::Veto { id, reason },
        Command::Recall {
            query,
            session,
            on_demand,
            preview,
        } => Request::Recall {
            query,
            session,
            on_demand,
            preview,
        },
        Command::Show { scope } => Request::Show { scope },
        Command::Batch => {
            let mut input = String::new();
            std::io::stdin()
                .read_to_string(&mut input)
                .map_err(|source| Error::Io {
                    path: PathBuf::from("<stdin>"),
                    op: "read",
                    source,
                })?;
            let ops = Op::parse_list(&input)?;
            Request::Batch { ops }
        }
        Command::Day {
            line,
            task,
            run,
            fact,
        } => Request::Day {
            line: if fact { format!("fact: {line}") } else { line },
            task,
            run,
        },
        Command::Review {
            command: None,
            dry_run,
            due,
            reviewer,
        } => Request::Review {
            dry_run,
            due,
            reviewer,
        },
        Command::Review {
            command: Some(ReviewCommand::Pause),
            ..
        } => Request::ReviewPause { paused: true },
        Command::Review {
            command: Some(ReviewCommand::Resume),
            ..
        } => Request::ReviewPause { paused: false },
        Command::Review {
            command: Some(ReviewCommand::Status),
            ..
        } => Request::ReviewStatus,
        Command::Review {
            command: Some(ReviewCommand::Apply { id }),
            ..
        } => Request::ApplyReview { id },
        Command::Review {
            command: Some(ReviewCommand::Undo { id, partial }),
            ..
        } => Request::UndoReview { id, partial },
        Command::List {
            kind,
            status,
            all,
            limit,
        } => Request::List {
            kind,
            status,
            all,
            limit,
        },
        Command::Snapshot => Request::Snapshot,
        Command::Run {
            command:
                RunCommand::Begin {
                    task,
                    skills,
                    workflow,
                },
        } => Request::BeginRun {
            task,
            skills,
            workflow,
        },
        Command::Import {
            command:
                ImportCommand::Hermes {
                    dir,
                    partial,
                    dry_run,
                },
        } => Request::ImportHermes {
            dir,
            partial,
            dry_run,
        },
        Command::Export {
            format: ExportFormat::Hermes,
            dir,
            force,
            dry_run,
        } => Request::ExportHermes {
            dir,
            force,
            dry_run,
        },
        Command::Skill { command } => match command {
            SkillCommand::Learn {
                name,
                from,
                description,
                replace,
                ..
            } => {
                // Read at most one byte past what a skill's file may hold.
                let limit = memdir::limits::SKILL_FILE_BYTES;
                let bytes = read_content(from.as_deref(), limit).map_err(|e| match e {
                    Error::ResultTooLarge { bytes, limit } => Error::SkillTooLarge {
                        what: "source",
                        size: bytes,
                        limit,
                        unit: "bytes",
                    },
                    e => e,
                })?;
                let path = from.unwrap_or_else(|| PathBuf::from("<stdin>"));
                let source = String::from_utf8(bytes).map_err(|e| Error::InvalidUtf8 {
                    path,
                    offset: e.utf8_error().valid_up_to(),
                })?;
                Request::SkillLearn {
                    name,
                    source,
                    description,
                    replace,
                }
            }
            SkillCommand::List => Request::SkillList,
            SkillCommand::Show { name } => Request::SkillShow { name },
            SkillCommand::Forget { name } => Request::SkillForget { name },
        },
        Command::Run {
            command: RunCommand::Finish { run, text },
        } => Request::FinishRun { run_id: run, text },
        Command::Runs {
            command:
                RunsCommand::Search {
                    query,
                    since,
                    until,
                    limit,
                },
        } => Request::SearchRuns {
            query,
            since,
            until,
            limit,
        },
        Command::Runs {
            command: RunsCommand::Show { run },
        } => Request::GetRun { run_id: run },
        Command::Runs {
            command: RunsCommand::List { open },
        } => Request::ListRuns { open },
        Command::Result { command } => match command {
            ResultCommand::Put {
                workflow,
                task,
                content_type,
                file,
                overwrite,
                allow_empty,
            } => {
                // Refuse bad ids before reading (possibly waiting on) the
                // content; read the limit once, so the read and the put
                // refuse at the same size.
                let limit = api::result_limit(store, who, &workflow, &task)?;
                let content = read_content(file.as_deref(), limit)?;
                Request::PutResult {
                    workflow_id: workflow,
                    task_id: task,
                    content,
                    content_type,
                    overwrite,
                    allow_empty,
                    limit: Some(limit),
                }
            }
            ResultCommand::Get {
                workflow,
                task: Some(task),
            } => Request::GetResult {
                workflow_id: workflow,
                task_id: task,
            },
            ResultCommand::Get {
                workflow,
                task: None,
            } => Request::WorkflowResults {
                workflow_id: workflow,
            },
            ResultCommand::Rm { workflow, task } => Request::RemoveResults {
                workflow_id: workflow,
                task_id: task,
            },
            ResultCommand::Wait {
                workflow,
                task,
                timeout,
            } => Request::WaitResult {
                workflow_id: workflow,
                task_id: task,
                timeout_secs: timeout,
            },
        },
    })
}

/// Reads a result's content, refusing (with its exact size) more than
/// `limit` bytes without holding more than `limit` + 1 in memory.
fn read_content(file: Option<&Path>, limit: u64) -> Result<Vec<u8>, Error> {
    let (mut reader, name): (Box<dyn Read>, PathBuf) = match file {
        Some(p) => (
            Box::new(std::fs::File::open(p).map_err(|source| Error::Io {
                path: p.to_owned(),
                op: "open",
                source,
            })?),
            p.to_owned(),
        ),
        None => (Box::new(std::io::stdin().lock()), PathBuf::from("<stdin>")),
    };
    let io_err = |source| Error::Io {
        path: name.clone(),
        op: "read",
        source,
    };
    let mut content = Vec::new();
    (&mut reader)
        .take(limit.saturating_add(1))
        .read_to_end(&mut content)
        .map_err(io_err)?;
    if content.len() as u64 > limit {
        let rest = std::io::copy(&mut reader, &mut std::io::sink()).map_err(io_err)?;
        return Err(Error::ResultTooLarge {
            bytes: content.len() as u64 + rest,
            limit,
        });
    }
    Ok(content)
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    fn args(line: &str) -> Vec<std::ffi::OsString> {
        std::iter::once("memdir")
            .chain(line.split(' ').filter(|w| !w.is_empty()))
            .map(Into::into)
            .collect()
    }

    /// What a parse gives, as text: the command line's meaning, or clap's
    /// error (kind and message).
    fn meaning(parsed: Result<Cli, clap::Error>) -> String {
        match parsed {
            Ok(cli) => format!("{cli:?}"),
            Err(e) => format!("{:?}: {}", e.kind(), e.render()),
        }
    }

    /// The global options scoped to the named command mean what clap's
    /// whole-tree propagation makes of the same command line: values, which
    /// of two wins, errors and help.
    #[test]
    fn narrowed_globals_parse_as_the_whole_tree() {
        let lines = [
            "add x",
            "--json add x",
            "add x --json",
            "--root /r --owner a add x --owner b",
            "--owner a add --owner=b x",
            "--owner=a --json save x --to user --expires 30d",
            "remember -x --lock-timeout-ms 5",
            "--lock-timeout-ms 7 add x --lock-timeout-ms 9",
            "--person ann --agent agt_x archive mem_0123456789ab --reason old",
            "result put wf t --json --config-dir /c",
            "--json result put wf t --owner o",
            "result --json put wf t",
            "git setup --json",
            "--json git --root /r setup",
            "run begin --owner a",
            "runs search deploy --json",
            "review status --json",
            "skill list --json",
            "key list --json",
            "add",
            "add x --nope",
            "--json add",
            "nope",
            "--owner",
            "--owner a",
            "",
            "--json",
            "add --help",
            "result put --help",
            "--help",
            "-h",
            "--version",
            "-V",
            "add -V",
            "help add",
            "help",
            "show --json --owner a --owner b",
            "--json=x add y",
            "--owner= add x",
            "--root",
            "--lock-timeout-ms nope add x",
            "--config-dir=/c --agent a show",
        ];
        for line in lines {
            let fast = meaning(parse(args(line)));
            let whole = meaning(parse_whole(Cli::command(), args(line)));
            assert_eq!(fast, whole, "memdir {line}");
        }
    }

    /// Where the command is named, only it takes the global options.
    #[test]
    fn only_the_named_command_takes_the_global_options() {
        let command = Cli::command();
        let globals: Vec<clap::Arg> = command
            .get_arguments()
            .filter(|a| a.is_global_set())
            .cloned()
            .collect();
        assert_eq!(globals.len(), 7);
        assert!(matches!(
            named_command(&command, &globals, &args("--owner a --json save x")),
            Named::Command(n) if n == "add"
        ));
        assert!(matches!(
            named_command(&command, &globals, &args("--json --version")),
            Named::None
        ));
        assert!(matches!(
            named_command(&command, &globals, &args("help add")),
            Named::Unknown
        ));
        assert!(matches!(
            named_command(&command, &globals, &args("--nope add x")),
            Named::Unknown
        ));
    }
}
