//! What a command of an owner's memory asks for: the interface [`Request`]
//! each [`Ask`] command makes, reading standard input (or a file) where the
//! command takes content from it.

use std::path::PathBuf;

use memdir::api::types::{Error, Op, PutOptions, Store};
use memdir::api::{self, Request, Response, RunRef};

use super::globals::Identity;
use super::input::{put_streamed, read_content, read_stdin};
use super::tree::*;

/// An answer the command line prints: guarded (every caller), or a
/// person's raw read (`--raw`).
pub enum Answer {
    /// Through [`api::execute`].
    Guarded(api::guard::Guarded<Response>),
    /// Through [`api::raw`]: only a person's `--raw`.
    Person(api::guard::PersonAnswer),
}

/// The answer to `command` for `identity` (a person's once the person's
/// word is given: [`Identity::resolve`]): a result's put streamed from its
/// content (standard input or `--file`, never held whole in memory), every
/// other command as the [`Request`] it makes, checked first
/// ([`api::preflight`]) and executed (a person's `--raw` through
/// [`api::raw`], the one exit for raw text). A person is asked after the
/// request is made (standard input read), before anything is checked or
/// done.
pub fn answer(store: &Store, identity: Identity, command: Ask) -> Result<Answer, Error> {
    let no_owner = || Error::Usage {
        message: "no owner: pass --owner ID or set MEMDIR_OWNER".into(),
    };
    if let Ask::Result {
        command:
            ResultCommand::Put {
                workflow,
                task,
                content_type,
                file,
                overwrite,
                allow_empty,
            },
    } = command
    {
        let who = identity.resolve(store, None)?.ok_or_else(no_owner)?;
        // Refuse bad ids (and a missing root) before reading, possibly
        // waiting on, the content; read the limit once, so the read and
        // the put refuse at the same size.
        let limit = api::result_limit(store, &who, &workflow, &task)?;
        store.require_root()?;
        let options = PutOptions {
            content_type,
            overwrite,
            allow_empty,
            limit: Some(limit),
        };
        return put_streamed(store, &who, (&workflow, &task), &options, file.as_deref())
            .map(Answer::Guarded);
    }
    let request = request(command)?;
    let who = identity
        .resolve(store, Some(&request))?
        .ok_or_else(no_owner)?;
    api::preflight(store, &who, &request)?;
    if who.raw && who.caller.is_person() {
        return api::raw(store, &who, request).map(Answer::Person);
    }
    api::execute(store, &who, request).map(Answer::Guarded)
}

/// The request `command` makes, for a server to run (`--url`): every
/// command of an owner's memory but a result's put, whose content is
/// streamed to the server's `PUT` route instead.
pub fn remote_request(command: Ask) -> Result<Request, Error> {
    if let Ask::Result {
        command: ResultCommand::Put { .. },
    } = command
    {
        return Err(Error::Usage {
            message: "result put is not sent with --url: PUT the content to the server's /v1/workflows/results/WORKFLOW/TASK with the key".into(),
        });
    }
    request(command)
}

/// `request`, made inside `run` when one is named (`--run`).
fn in_run(run: Option<String>, request: Request) -> Request {
    match run {
        Some(run_id) => Request::InRun {
            run: RunRef::Id(run_id),
            within: Box::new(request),
        },
        None => request,
    }
}

/// The request `command` makes of `who`'s memory (a result's put is not
/// one: see [`answer`]): one arm a command, a group's subcommands in the
/// group's function below.
fn request(command: Ask) -> Result<Request, Error> {
    Ok(match command {
        Ask::Log { id, since, limit } => Request::Log { id, since, limit },
        Ask::Add {
            text,
            to,
            expires,
            supersedes,
            run,
        } => in_run(
            run,
            Request::Write {
                op: Op::Add {
                    text,
                    scope: to,
                    expires,
                    supersedes,
                },
            },
        ),
        Ask::Replace { old, new, scope } => Request::Write {
            op: Op::Replace { old, new, scope },
        },
        Ask::Remove { old, scope } => Request::Write {
            op: Op::Remove { old, scope },
        },
        Ask::Archive { id, reason } => Request::Archive { id, reason },
        Ask::Unarchive { id } => Request::Unarchive { id },
        Ask::Resolve { id, keep } => Request::Resolve { id, keep },
        Ask::Renew { id, expires } => Request::Renew { id, expires },
        Ask::Results {
            command: ResultsCommand::Gc { older_than },
        } => Request::GcResults {
            older_than_days: older_than,
        },
        Ask::Veto { id, reason } => Request::Veto { id, reason },
        Ask::Recall {
            query,
            session,
            on_demand,
            preview,
            run,
        } => in_run(
            run,
            Request::Recall {
                query,
                session,
                on_demand,
                preview,
            },
        ),
        Ask::Show { scope } => Request::Show { scope },
        Ask::Batch => {
            let ops = Op::parse_list(&read_stdin()?)?;
            Request::Batch { ops }
        }
        Ask::Day {
            line,
            task,
            run,
            fact,
        } => Request::Day {
            line: if fact { format!("fact: {line}") } else { line },
            task,
            run,
        },
        Ask::Review {
            command,
            dry_run,
            due,
            reviewer,
        } => review(command, dry_run, due, reviewer),
        Ask::List {
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
        Ask::Snapshot { run, session } => match (run, session) {
            (Some(id), _) => Request::InRun {
                run: RunRef::Id(id),
                within: Box::new(Request::Snapshot),
            },
            (None, Some(key)) => Request::InRun {
                run: RunRef::Session(key),
                within: Box::new(Request::Snapshot),
            },
            (None, None) => Request::Snapshot,
        },
        Ask::Run { command } => run(command)?,
        Ask::Runs { command } => runs(command),
        Ask::Import {
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
        Ask::Export {
            format: ExportFormat::Hermes,
            dir,
            force,
            dry_run,
        } => Request::ExportHermes {
            dir,
            force,
            dry_run,
        },
        Ask::Tool(command) => super::tool::request(command)?,
        Ask::Propose { text } => Request::Propose { text },
        Ask::Learnings { command } => learnings(command),
        Ask::Pending { command } => pending(command),
        Ask::Skill { command } => skill(command)?,
        Ask::Result { command } => result(command)?,
    })
}

/// `memdir review [apply|undo|pause|resume|status|history]`.
fn review(
    command: Option<ReviewCommand>,
    dry_run: bool,
    due: bool,
    reviewer: Option<String>,
) -> Request {
    match command {
        None => Request::Review {
            dry_run,
            due,
            reviewer,
        },
        Some(ReviewCommand::Pause) => Request::ReviewPause { paused: true },
        Some(ReviewCommand::Resume) => Request::ReviewPause { paused: false },
        Some(ReviewCommand::Status) => Request::ReviewStatus,
        Some(ReviewCommand::History { limit }) => Request::ReviewHistory { limit },
        Some(ReviewCommand::Apply { id }) => Request::ApplyReview { id },
        Some(ReviewCommand::Undo { id, partial }) => Request::UndoReview { id, partial },
    }
}

/// `memdir run begin|finish`.
fn run(command: RunCommand) -> Result<Request, Error> {
    Ok(match command {
        RunCommand::Begin {
            task,
            skills,
            workflow,
            session,
        } => Request::BeginRun {
            task,
            skills,
            workflow,
            session,
        },
        RunCommand::Finish { run, text, session } => finish(run, text, session)?,
    })
}

/// `memdir runs search|show|list`.
fn runs(command: RunsCommand) -> Request {
    match command {
        RunsCommand::Search {
            query,
            since,
            until,
            limit,
        } => Request::SearchRuns {
            query,
            since,
            until,
            limit,
        },
        RunsCommand::Show { run } => Request::GetRun { run_id: run },
        RunsCommand::List { open } => Request::ListRuns { open },
    }
}

/// `memdir learnings [list|approve|reject|retire]`.
fn learnings(command: Option<LearningsCommand>) -> Request {
    match command {
        None | Some(LearningsCommand::List) => Request::Learnings,
        Some(LearningsCommand::Approve {
            id,
            text,
            seen_text,
        }) => Request::Approve {
            id,
            text,
            seen_text,
        },
        Some(LearningsCommand::Reject { id, reason }) => Request::Reject { id, reason },
        Some(LearningsCommand::Retire { id, reason }) => Request::Retire { id, reason },
    }
}

/// `memdir pending [list|show|approve|reject]`.
fn pending(command: Option<PendingCommand>) -> Request {
    match command {
        None => Request::PendingList { all: false },
        Some(PendingCommand::List { all }) => Request::PendingList { all },
        Some(PendingCommand::Show { id }) => Request::PendingShow { id },
        Some(PendingCommand::Approve { id, text }) => Request::PendingApprove { id, text },
        Some(PendingCommand::Reject { id, reason }) => Request::PendingReject { id, reason },
    }
}

/// `memdir skill learn|list|show|forget`: a skill's source read from its
/// file or standard input.
fn skill(command: SkillCommand) -> Result<Request, Error> {
    Ok(match command {
        SkillCommand::Learn {
            name,
            from,
            description,
            replace,
            ..
        } => {
            // Read at most one byte past what a skill's file may hold.
            let limit = memdir::api::types::limits::SKILL_FILE_BYTES;
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
    })
}

/// `memdir result get|rm|wait` (a put is streamed: see [`answer`]).
fn result(command: ResultCommand) -> Result<Request, Error> {
    Ok(match command {
        ResultCommand::Put { .. } => {
            return Err(Error::Usage {
                message: "a result's put is streamed: see `answer`".into(),
            });
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
    })
}

/// `run finish`: `RUN [TEXT]`, or `--session KEY [TEXT]` (whose one
/// argument is the text).
fn finish(
    run: Option<String>,
    text: Option<String>,
    session: Option<String>,
) -> Result<Request, Error> {
    match (session, run, text) {
        (Some(_), Some(_), Some(_)) => Err(Error::Usage {
            message: "run finish --session KEY takes one TEXT, no run id".into(),
        }),
        (Some(key), first, second) => Ok(Request::FinishRun {
            run: RunRef::Session(key),
            text: first.or(second),
        }),
        (None, Some(id), text) => Ok(Request::FinishRun {
            run: RunRef::Id(id),
            text,
        }),
        (None, None, _) => Err(Error::Usage {
            message: "run finish needs the run id, or --session KEY".into(),
        }),
    }
}
