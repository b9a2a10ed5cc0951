//! The `memdir` command tree: global options, every command and its
//! arguments, and how a command becomes an interface [`Request`]. Reading
//! standard input (a batch, a result's content) happens here too: it is the
//! command line's transport.

use std::io::Read;
use std::path::{Path, PathBuf};

use chrono::NaiveDate;
use clap::{Args, Parser, Subcommand};
use memdir::api::{self, Request, Who};
use memdir::store::{FactKind, Status};
use memdir::{Caller, Error, Op, Scope, Store};

/// memdir: markdown memory for AI agents, kept per owner in plain files.
#[derive(Debug, Parser)]
#[command(name = "memdir", version, about, propagate_version = true)]
pub struct Cli {
    /// Options every command takes.
    #[command(flatten)]
    pub global: Global,
    /// The command.
    #[command(subcommand)]
    pub command: Command,
}

/// Options every command takes.
#[derive(Debug, Args)]
pub struct Global {
    /// The memory root (one folder per owner).
    #[arg(long, global = true, env = "MEMDIR_ROOT", default_value = "./memory")]
    pub root: PathBuf,
    /// The owner whose memory to use.
    #[arg(long, global = true, env = "MEMDIR_OWNER")]
    pub owner: Option<String>,
    /// Print JSON instead of text.
    #[arg(long, global = true)]
    pub json: bool,
    /// How long to wait for the owner's lock, in milliseconds.
    #[arg(long, global = true, value_name = "MS")]
    pub lock_timeout_ms: Option<u64>,
    /// Act as this person of the workspace (default: the owner itself, an agent).
    #[arg(long, global = true, value_name = "ID")]
    pub person: Option<String>,
    /// The agent whose memory a person acts on (an agent may only name itself).
    #[arg(long, global = true, value_name = "ID")]
    pub agent: Option<String>,
    /// The machine-local configuration folder (default: $MEMDIR_CONFIG_DIR,
    /// else $XDG_CONFIG_HOME/memdir, else ~/.config/memdir).
    #[arg(long, global = true, value_name = "DIR")]
    pub config_dir: Option<PathBuf>,
}

/// Every command.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Append an entry.
    #[command(visible_aliases = ["save", "remember"])]
    Add {
        /// The entry's text.
        text: String,
        /// The store to write.
        #[arg(long, default_value = "memory", value_parser = parse_scope)]
        to: Scope,
        /// Expiry: a date YYYY-MM-DD (end of that UTC day) or an RFC 3339 time.
        #[arg(long)]
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
    /// Veto a memory (a person only): archive it as vetoed.
    Veto {
        /// The memory's id.
        id: String,
        /// Why.
        #[arg(long)]
        reason: Option<String>,
    },
    /// Show what a recall would pick, with scores; counts as a recall.
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
    },
    /// Create the memory root and a .gitignore listing `.memdir/`.
    Init,
    /// Git: ready an existing root for git (merge driver, attributes, ignores).
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
        #[arg(long)]
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
        /// A `mem_` id or a substring of exactly one entry.
        old: String,
        /// The new text.
        new: String,
        /// The store to edit.
        #[arg(long = "in", default_value = "memory", value_parser = parse_scope)]
        scope: Scope,
    },
    /// Remove the entry OLD (an id or a unique substring).
    #[command(visible_alias = "forget")]
    Remove {
        /// A `mem_` id or a substring of exactly one entry.
        old: String,
        /// The store to edit.
        #[arg(long = "in", default_value = "memory", value_parser = parse_scope)]
        scope: Scope,
    },
    /// List the entries with their ids, and usage.
    Show {
        /// Only this store (default: both).
        #[arg(long = "in", value_parser = parse_scope)]
        scope: Option<Scope>,
    },
    /// Apply a JSON list of add/replace/remove operations from standard input, all or none.
    Batch,
    /// Append one line to today's day log in episodes.md (agents only).
    Day {
        /// The line.
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
        /// Only this status.
        #[arg(long, value_parser = parse_status)]
        status: Option<Status>,
        /// Include archived rows.
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
    /// Learned skills, private to the owner: learn, list, show, forget.
    Skill {
        /// What to do with skills.
        #[command(subcommand)]
        command: SkillCommand,
    },
}

/// `memdir review undo|pause|resume|status`.
#[derive(Debug, Subcommand)]
pub enum ReviewCommand {
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

/// `memdir skill learn|list|show|forget`.
#[derive(Debug, Subcommand)]
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

/// `memdir run begin|finish`.
#[derive(Debug, Subcommand)]
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
    },
    /// Finish a run: append its summary line to today's day log.
    Finish {
        /// The run id `run begin` printed.
        run: String,
        /// One line on what the run did.
        text: String,
    },
}

/// `memdir runs search|show`: the run journal, queried on demand.
#[derive(Debug, Subcommand)]
pub enum RunsCommand {
    /// Rank the journal's lines against QUERY.
    Search {
        /// What to look for.
        query: String,
        /// Only lines on or after this date (YYYY-MM-DD).
        #[arg(long)]
        since: Option<NaiveDate>,
        /// Only lines on or before this date (YYYY-MM-DD).
        #[arg(long)]
        until: Option<NaiveDate>,
        /// At most this many lines (default 20).
        #[arg(long)]
        limit: Option<usize>,
    },
    /// One run: its journal lines, the snapshot it began with, its steps.
    Show {
        /// The run id.
        run: String,
    },
}

/// `memdir result put|get|wait`: SharedMemory task results.
///
/// `get` with a task and `wait` print the content raw (byte for byte) on
/// standard output; with `--json` they print one object whose `content` is
/// the content as a string when it is UTF-8, else `null` with the bytes in
/// `content_base64` (standard alphabet, padded). Warnings (such as a rebuilt
/// index) go to standard error. `put` reads at most the owner's
/// `max_result_bytes` + 1 bytes into memory: past the limit it answers
/// `result_too_large` with the content's full size.
#[derive(Debug, Subcommand)]
pub enum ResultCommand {
    /// Store a task's result (from --file, else standard input), up to
    /// `max_result_bytes` from memdir.yaml (default 16 MiB).
    Put {
        /// The workflow (run) id.
        workflow: String,
        /// The task id.
        task: String,
        /// The content's MIME type.
        #[arg(long = "type", value_name = "MIME", default_value = "text/plain")]
        content_type: String,
        /// Read the content from this file instead of standard input.
        #[arg(long, value_name = "F")]
        file: Option<PathBuf>,
        /// Replace a different result stored under the same ids.
        #[arg(long)]
        overwrite: bool,
    },
    /// Print a task's result, or without TASK the workflow's steps.
    Get {
        /// The workflow (run) id.
        workflow: String,
        /// The task id (omit to list the workflow's steps).
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

/// Who the global options name: an agent is the owner (`--owner`); a person
/// names the owner (`--agent`, or `--owner`). `None` when an agent's command
/// names no owner.
fn who(g: &Global) -> Option<Who> {
    match &g.person {
        Some(p) => Some(Who {
            caller: Caller::Person(p.clone()),
            named: g.agent.clone().or_else(|| g.owner.clone()),
        }),
        None => g.owner.as_ref().map(|me| Who {
            caller: Caller::Agent(me.clone()),
            named: g.agent.clone(),
        }),
    }
}

/// `memdir git …`.
#[derive(Debug, Subcommand)]
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
pub fn action(store: &Store, g: &Global, command: Command) -> Result<Option<Action>, Error> {
    match command {
        Command::Init => return Ok(Some(Action::Init)),
        Command::Git(GitCommand::Setup { hook }) => return Ok(Some(Action::GitSetup(hook))),
        Command::Sync { remote } => {
            return Ok(Some(Action::Sync(who(g).map(|w| w.caller), remote)));
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
    let Some(who) = who(g) else { return Ok(None) };
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
        | Command::Watch => {
            unreachable!(
                "init, check, git, sync and watch are no requests (see `action`); main runs merge-file"
            )
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
        Command::Veto { id, reason } => Request::Veto { id, reason },
        Command::Recall {
            query,
            session,
            on_demand,
        } => Request::Recall {
            query,
            session,
            on_demand,
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
            let ops: Vec<Op> =
                serde_json::from_str(&input).map_err(|source| Error::InvalidBatch { source })?;
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
            command: RunCommand::Begin { task, skills },
        } => Request::BeginRun { task, skills },
        Command::Skill { command } => match command {
            SkillCommand::Learn {
                name,
                from,
                description,
                replace,
                ..
            } => {
                // Read at most one byte past what a skill's file may hold.
                let limit = memdir::store::limits::SKILL_FILE_BYTES;
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
        Command::Result { command } => match command {
            ResultCommand::Put {
                workflow,
                task,
                content_type,
                file,
                overwrite,
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
