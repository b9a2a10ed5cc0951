//! The `memdir` command line: every command on the public library API.

use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;

mod cli;

use clap::{Args, Parser, Subcommand};
use memdir::{
    Caller, DayOutcome, Error, ListFilter, Op, RecallOptions, RunOptions, Scope, Snapshot, Store,
};
use serde_json::{Value, json};

/// memdir: markdown memory for AI agents, kept per owner in plain files.
#[derive(Debug, Parser)]
#[command(name = "memdir", version, about, propagate_version = true)]
struct Cli {
    #[command(flatten)]
    global: Global,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Args)]
struct Global {
    /// The memory root (one folder per owner).
    #[arg(long, global = true, env = "MEMDIR_ROOT", default_value = "./memory")]
    root: PathBuf,
    /// The owner whose memory to use.
    #[arg(long, global = true, env = "MEMDIR_OWNER")]
    owner: Option<String>,
    /// Print JSON instead of text.
    #[arg(long, global = true)]
    json: bool,
    /// How long to wait for the owner's lock, in milliseconds.
    #[arg(long, global = true, value_name = "MS")]
    lock_timeout_ms: Option<u64>,
    /// Act as this person of the workspace (default: the owner itself, an agent).
    #[arg(long, global = true, value_name = "ID")]
    person: Option<String>,
    /// The agent whose memory a person acts on (an agent may only name itself).
    #[arg(long, global = true, value_name = "ID")]
    agent: Option<String>,
}

#[derive(Debug, Subcommand)]
enum Command {
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
    },
    /// List memories, newest first, with recall counts.
    List {
        /// Only this kind.
        #[arg(long, value_parser = ["fact", "day"])]
        kind: Option<String>,
        /// Only this status.
        #[arg(long, value_parser = ["active", "archived"])]
        status: Option<String>,
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
        #[command(subcommand)]
        command: cli::results::ResultCommand,
    },
    /// Look runs up in the journal (never injected).
    Runs {
        #[command(subcommand)]
        command: cli::runs::RunsCommand,
    },
    /// Runs: begin one (take and store its snapshot).
    Run {
        #[command(subcommand)]
        command: RunCommand,
    },
}

#[derive(Debug, Subcommand)]
enum RunCommand {
    /// Begin a run: print its id and its frozen snapshot.
    Begin {
        /// The task key the run works on, such as PIN-812.
        #[arg(long)]
        task: Option<String>,
    },
    /// Finish a run: append its summary line to today's day log.
    Finish {
        /// The run id `run begin` printed.
        run: String,
        /// One line on what the run did.
        text: String,
    },
}

fn parse_scope(s: &str) -> Result<Scope, String> {
    Scope::parse(s).ok_or_else(|| format!("expected `memory` or `user`, got {s:?}"))
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let json = cli.global.json;
    match run(cli) {
        Ok(out) => {
            print_out(&out);
            ExitCode::SUCCESS
        }
        Err(Failure::Usage(msg)) => {
            eprintln!("error: {msg}");
            ExitCode::from(2)
        }
        Err(Failure::Memdir(e)) => {
            report(&e, json);
            // "Not ready" is an answer, not a refusal: scripts poll on 3.
            ExitCode::from(if e.code() == "not_ready" { 3 } else { 1 })
        }
    }
}

enum Failure {
    Usage(String),
    Memdir(Error),
}

impl From<Error> for Failure {
    fn from(e: Error) -> Failure {
        Failure::Memdir(e)
    }
}

fn print_out(text: &str) {
    let mut out = std::io::stdout().lock();
    // A closed pipe (`memdir show | head`) is not an error.
    let _ = out.write_all(text.as_bytes()).and_then(|()| out.flush());
}

fn report(e: &Error, json: bool) {
    if json {
        let mut obj =
            json!({"code": e.code(), "status": e.http_status(), "message": e.to_string()});
        if let (Some(o), Value::Object(d)) = (obj.as_object_mut(), e.details()) {
            o.extend(d);
        }
        print_out(&format!("{}\n", json!({ "error": obj })));
    } else {
        let mut msg = format!("error[{}]: {e}\n", e.code());
        if let Error::OverBudget { entries, .. } | Error::NotFound { entries, .. } = e {
            for b in entries {
                msg.push_str(&format!(
                    "  {}  {}\n",
                    b.id,
                    b.text.replace('\n', "\n                    ")
                ));
            }
        }
        let _ = std::io::stderr().write_all(msg.as_bytes());
    }
}

use cli::to_json;

fn snapshot_json(s: &Snapshot) -> Value {
    let blocked: Vec<&str> = s.blocked.iter().map(|b| b.id.as_str()).collect();
    json!({"text": s.text, "sha256": s.sha256, "bytes": s.bytes, "blocked": blocked, "over_budget": s.over_budget})
}

fn day_out(o: &DayOutcome, json: bool) -> String {
    if json {
        to_json(o)
    } else {
        format!(
            "appended to {} ({}): {} ({}/{} chars)\n",
            o.date,
            o.id,
            o.line.raw,
            o.chars,
            memdir::MAX_DAY_CHARS
        )
    }
}

fn run(cli: Cli) -> Result<String, Failure> {
    let g = cli.global;
    let mut store = Store::open(&g.root)?;
    if let Some(ms) = g.lock_timeout_ms {
        store = store.with_lock_timeout(std::time::Duration::from_millis(ms));
    }
    let json = g.json;
    if let Command::Init = cli.command {
        return Ok(cli::facts::init(&store, json)?);
    }
    // An agent is the owner (--owner); a person names the owner (--agent, or --owner).
    let (caller, named) = match g.person {
        Some(p) => (Caller::Person(p), g.agent.or(g.owner)),
        None => {
            let me = g.owner.ok_or_else(|| {
                Failure::Usage("no owner: pass --owner ID or set MEMDIR_OWNER".into())
            })?;
            (Caller::Agent(me), g.agent)
        }
    };
    if let Command::List {
        kind,
        status,
        all,
        limit,
    } = &cli.command
    {
        let filter = ListFilter {
            kind: kind.clone(),
            status: status.clone(),
            all: *all,
            limit: *limit,
        };
        return Ok(cli::facts::list(
            &store,
            &caller,
            named.as_deref(),
            &filter,
            json,
        )?);
    }
    let owner = store.owner_as(&caller, named.as_deref())?;
    Ok(match cli.command {
        Command::Init | Command::List { .. } => String::new(),
        Command::Add {
            text,
            to,
            expires,
            supersedes,
        } => {
            let s = owner.save(to, &text, expires.as_deref(), supersedes.as_deref())?;
            let o = &s.outcome;
            if json {
                to_json(
                    &json!({"id": o.id, "scope": o.scope, "text": o.text, "usage": s.usage, "message": o.message, "archived": s.archived}),
                )
            } else {
                let mut out = format!(
                    "{} {} in {} ({})\n",
                    o.message,
                    o.id,
                    to.file_name(),
                    s.usage
                );
                for id in &s.archived {
                    out.push_str(&format!("archived {id}\n"));
                }
                out
            }
        }
        Command::Archive { id, reason } => {
            cli::facts::transition(&owner.archive(&id, &reason)?, json)
        }
        Command::Unarchive { id } => cli::facts::transition(&owner.unarchive(&id)?, json),
        Command::Veto { id, reason } => {
            cli::facts::transition(&owner.veto(&id, reason.as_deref())?, json)
        }
        Command::Recall {
            query,
            session,
            on_demand,
        } => {
            let mut opts = RecallOptions::default();
            opts.query = query;
            if let Some(s) = session {
                opts = opts.session(s);
            }
            if on_demand {
                opts = opts.on_demand();
            }
            cli::facts::recall(&owner, &opts, json)?
        }
        Command::Replace { old, new, scope } => {
            let (o, usage) = owner.replace(scope, &old, &new)?;
            if json {
                to_json(
                    &json!({"id": o.id, "old_id": o.old_id, "scope": o.scope, "text": o.text, "usage": usage.text, "message": o.message}),
                )
            } else {
                let old_id = o.old_id.unwrap_or_default();
                format!(
                    "{} {old_id} -> {} in {} ({})\n",
                    o.message,
                    o.id,
                    scope.file_name(),
                    usage.text
                )
            }
        }
        Command::Remove { old, scope } => {
            let (o, usage) = owner.remove(scope, &old)?;
            if json {
                to_json(
                    &json!({"removed": 1, "id": o.id, "scope": o.scope, "usage": usage.text, "message": o.message}),
                )
            } else {
                format!(
                    "removed {} from {} ({})\n",
                    o.id,
                    scope.file_name(),
                    usage.text
                )
            }
        }
        Command::Show { scope } => {
            let scopes = scope.map_or(Scope::ALL.to_vec(), |s| vec![s]);
            let views = scopes
                .iter()
                .map(|s| owner.show(*s))
                .collect::<Result<Vec<_>, _>>()?;
            if json {
                to_json(&json!({ "owner": owner.id(), "stores": views }))
            } else {
                let mut out = String::new();
                for v in &views {
                    out.push_str(&format!("{} {}\n", v.file, v.usage.text));
                    for w in &v.warnings {
                        out.push_str(&format!("  warning: {w}\n"));
                    }
                    if v.entries.is_empty() {
                        out.push_str("  (no entries)\n");
                    }
                    for e in &v.entries {
                        out.push_str(&format!(
                            "  {}  {}\n",
                            e.id,
                            e.text.replace('\n', "\n                    ")
                        ));
                    }
                }
                out
            }
        }
        Command::Result { command } => cli::results::run(&owner, command, json)?,
        Command::Runs { command } => cli::runs::run(&owner, command, json)?,
        Command::Day { line, task, run } => {
            day_out(&owner.day(&line, task.as_deref(), run.as_deref())?, json)
        }
        Command::Run {
            command: RunCommand::Finish { run, text },
        } => {
            if let Caller::Person(person) = &caller {
                return Err(Error::DayAgentOnly {
                    person: person.clone(),
                }
                .into());
            }
            day_out(&owner.finish_run(&run, &text)?, json)
        }
        Command::Snapshot => {
            let snap = owner.snapshot()?;
            if json {
                to_json(&snapshot_json(&snap))
            } else {
                snap.text
            }
        }
        Command::Run {
            command: RunCommand::Begin { task },
        } => {
            let mut opts = RunOptions::default();
            if let Some(t) = task {
                opts = RunOptions::task(t);
            }
            let run = owner.begin_run(opts)?;
            if json {
                let mut v = snapshot_json(run.snapshot());
                if let Some(o) = v.as_object_mut() {
                    o.insert("run_id".into(), json!(run.id()));
                    o.insert("started_at".into(), json!(run.record().started_at));
                }
                to_json(&v)
            } else {
                format!("{}\n{}", run.id(), run.snapshot().text)
            }
        }
        Command::Batch => {
            let mut input = String::new();
            std::io::stdin()
                .read_to_string(&mut input)
                .map_err(|e| Error::InvalidRequest(format!("reading standard input: {e}")))?;
            let ops: Vec<Op> = serde_json::from_str(&input).map_err(|e| {
                Error::InvalidRequest(format!("batch must be a JSON list of operations: {e}"))
            })?;
            let out = owner.batch(&ops)?;
            if json {
                let usage: serde_json::Map<String, Value> = out
                    .usage
                    .iter()
                    .map(|(s, u)| (s.name().to_owned(), json!(u.text)))
                    .collect();
                to_json(&json!({"results": out.results, "usage": usage, "warnings": out.warnings}))
            } else {
                let mut s = String::new();
                for (i, r) in out.results.iter().enumerate() {
                    s.push_str(&format!(
                        "{i}: {} {} {} in {}\n",
                        r.op,
                        r.message,
                        r.id,
                        r.scope.file_name()
                    ));
                }
                for (scope, u) in &out.usage {
                    s.push_str(&format!("{} {}\n", scope.file_name(), u.text));
                }
                s
            }
        }
    })
}
