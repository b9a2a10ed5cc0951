//! Runs at the door: the run a [`Request::InRun`] names, begun, resumed
//! and finished, and the snapshot a run began with.

use crate::error::{Error, Result};
use crate::model::{Caller, RunContext};
use crate::snapshot::Snapshot;
use crate::store::{Owner, RunOptions};

use super::{Request, Response, RunRef, Who};

/// The error for a request that cannot be made inside a run (or a run
/// named inside another).
pub(super) fn not_inside() -> Error {
    Error::Usage {
        message: "only a write, a batch, a recall, a snapshot or a day line is made inside a run"
            .into(),
    }
}

/// The run `named` holds for `within`: a write, batch, recall or day line
/// is made only inside an open run; the snapshot a run began with is there
/// to read once it has finished. `None` for a session with no open run
/// (the request is then made outside any run); a session that began no
/// run has no snapshot of its own.
pub(super) fn context_of(
    store: &crate::store::Store,
    who: &Who,
    named: &RunRef,
    within: &Request,
) -> Result<Option<RunContext>> {
    let inside = matches!(
        within,
        Request::Write { .. }
            | Request::Batch { .. }
            | Request::Recall { .. }
            | Request::Snapshot
            | Request::Day { .. }
    );
    if !inside {
        return Err(not_inside());
    }
    let snapshot = matches!(within, Request::Snapshot);
    let context = run_context(store, who, named, !snapshot)?;
    if snapshot
        && context.is_none()
        && let RunRef::Session(session) = named
    {
        return Err(Error::SessionRunNotFound {
            session: session.clone(),
        });
    }
    Ok(context)
}

/// The run a [`Request::InRun`] names, as the handle writing for it
/// carries it: a run of the owner, asked by its agent, begun and not
/// finished (`open`; a snapshot may be read of a finished run too: the
/// session's newest); `None` for a session with no such run.
fn run_context(
    store: &crate::store::Store,
    who: &Who,
    run: &RunRef,
    open: bool,
) -> Result<Option<RunContext>> {
    if let Caller::Person(_) = &who.caller {
        return Err(Error::Usage {
            message: "a run is its agent's: only the agent writes or recalls inside it".into(),
        });
    }
    let owner = who.owner(store)?;
    let runs = owner.runs();
    let record = match run {
        RunRef::Id(run_id) => runs.record(run_id)?,
        RunRef::Session(key) => {
            let found = if open {
                runs.open_of_session(key)?
            } else {
                runs.latest_of_session(key)?
            };
            match found {
                Some(r) => r,
                None => return Ok(None),
            }
        }
    };
    if let Some(done) = record.finished_at
        && open
    {
        return Err(Error::RunFinished {
            run_id: record.run_id,
            finished_at: crate::model::fmt_time(done),
        });
    }
    Ok(Some(RunContext {
        id: record.run_id,
        task: record.task,
    }))
}

/// The snapshot a run began with: its stored copy as `runs show` reads it
/// (checked against its name and scanned again; a copy that fails is a
/// `[BLOCKED: …]` placeholder, never its text); a copy gone from
/// `.memdir/` (derived files) gives the snapshot as of now.
pub(super) fn frozen_snapshot(owner: &Owner, run: &RunContext) -> Result<Snapshot> {
    let record = owner.runs().record(&run.id)?;
    match owner.runs().stored_snapshot(&record.snapshot_sha256)? {
        Some(text) => Ok(Snapshot::of_stored(text)),
        None => owner.snapshot(),
    }
}

/// Begins a run of `owner` (a session's open run is answered again).
pub(super) fn begin(
    owner: &Owner,
    task: Option<String>,
    skills: Vec<String>,
    workflow: Option<String>,
    session: Option<String>,
) -> Result<Response> {
    let mut opts = match task {
        Some(t) => RunOptions::task(t),
        None => RunOptions::default(),
    }
    .with_skills(skills);
    if let Some(w) = workflow {
        opts = opts.workflow(w);
    }
    if let Some(k) = session {
        opts = opts.session(k);
    }
    let run = owner.begin_run(opts)?;
    Ok(Response::RunBegun {
        record: run.record().clone(),
        snapshot: run.snapshot().clone(),
        resumed: run.resumed(),
    })
}

/// Finishes the run `named` with its closing day line (an agent's act).
pub(super) fn finish(
    owner: &Owner,
    who: &Who,
    named: RunRef,
    text: Option<String>,
) -> Result<Response> {
    if let Caller::Person(person) = &who.caller {
        return Err(Error::DayAgentOnly {
            person: person.clone(),
        });
    }
    let run_id = match named {
        RunRef::Id(id) => id,
        RunRef::Session(key) => match owner.runs().open_of_session(&key)? {
            Some(r) => r.run_id,
            None => return Err(Error::SessionRunNotFound { session: key }),
        },
    };
    let text = text.as_deref().unwrap_or("finished");
    Ok(Response::Day(owner.runs().finish(&run_id, text)?))
}
