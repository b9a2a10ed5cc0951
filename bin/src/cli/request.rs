//! What a command asks for: the commands answered without an owner, and the
//! interface [`Request`] of every other one.

use std::path::PathBuf;

use memdir::api::{self, Request, Who};
use memdir::{Caller, Error, Op, Store};

use super::Global;
use super::input::{read_content, read_stdin};
use super::tree::*;

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
            let ops = Op::parse_list(&read_stdin()?)?;
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
