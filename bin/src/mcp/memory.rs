//! The `memory` tool's actions, on a store opened for the call. Every write
//! (remember, save, day, archive, unarchive, veto) answers in one style: a
//! sentence naming what was done, the memory's id and the store's usage,
//! and when recall sees it.

use memdir::api::errors::Surface;
use memdir::api::types::{
    Error, LearningChange, Op, OpKind, Scope, Status, Store, TransitionChange,
};
use memdir::api::{self, Request, Response, RunRef, Who, guard::AgentText, guard::Guarded, render};
use rmcp::model::CallToolResult;

use super::args::{MemoryCall, Operation, Remember};
use super::{answer, in_run as inside, rendered, snapshot_text};

/// When recall sees a write: at once, or (under `mcp --run`, whose snapshot
/// stays frozen) in the next run.
fn seen(in_run: bool) -> &'static str {
    if in_run {
        "the next run will see it (this run's snapshot stays as it began)"
    } else {
        "recall will see it immediately"
    }
}

/// The store a scope names, in a sentence.
fn place(scope: Scope) -> &'static str {
    match scope {
        Scope::User => "your user profile (USER.md)",
        Scope::Memory => "your memory (MEMORY.md)",
    }
}

/// The one sentence a write answers with, and its notes; `None` for an
/// answer that is not a write's.
fn written(r: &Guarded<Response>, in_run: bool) -> Option<AgentText> {
    is_written(r).then(|| AgentText::from_guarded_with(r, in_run, sentence))
}

/// Whether `r` is a write's answer, which [`sentence`] words.
fn is_written(r: &Response) -> bool {
    matches!(
        r,
        Response::Written(_) | Response::Day(_) | Response::Transition(_) | Response::Learning(_)
    )
}

/// The sentence of a write's answer (from the guarded answer only).
fn sentence(r: &Response, in_run: bool) -> String {
    let seen = seen(in_run);
    let (mut text, warnings) = match r {
        Response::Written(w) => (saved(w, seen), &w.warnings),
        Response::Day(d) => (
            format!(
                "Saved to your day log of {} as {} ({} chars); {seen}.\n",
                d.date, d.id, d.chars
            ),
            &d.warnings,
        ),
        Response::Transition(t) => (moved(t, seen), &t.warnings),
        Response::Learning(o) => return proposed(o),
        _ => return String::new(),
    };
    for w in warnings {
        text.push_str(&format!("warning: {w}\n"));
    }
    text
}

/// The sentence of a save, a replace or a removal, with the facts it
/// archived.
fn saved(w: &memdir::api::types::WriteOutcome, seen: &str) -> String {
    let o = &w.outcome;
    let place = place(o.scope);
    let usage = &w.usage.text;
    if let Some(id) = &w.pending_id {
        return format!(
            "Kept for a person's review as pending {id}: nothing is written until a person \
             approves it; then the {} of {} in {place} is made as asked, and recall sees it \
             ({usage} now). Look it up with action pending, id {id}.\n",
            o.op, o.id
        );
    }
    let mut text = match o.op {
        OpKind::Add if o.message.created() => {
            format!("Saved to {place} as {} ({usage}); {seen}.\n", o.id)
        }
        OpKind::Add => {
            format!("Already stored in {place} as {} ({usage}); {seen}.\n", o.id)
        }
        OpKind::Replace => format!(
            "Replaced {} with {} in {place} ({usage}); {seen}.\n",
            o.old_id.as_deref().unwrap_or_default(),
            o.id
        ),
        OpKind::Remove => format!(
            "Removed {} from {place} ({usage}); recall no longer sees it.\n",
            o.id
        ),
    };
    for id in &w.archived {
        text.push_str(&format!("archived {id}\n"));
    }
    text
}

/// The sentence of an archive, an unarchive, a veto or a settling.
fn moved(t: &memdir::api::types::Transition, seen: &str) -> String {
    let verb = match t.message {
        TransitionChange::Vetoed => "Vetoed",
        TransitionChange::Unarchived => "Unarchived",
        TransitionChange::Superseded => "Superseded",
        TransitionChange::KeptBoth => "Kept both versions of",
        TransitionChange::KeptLive => "Kept live",
        TransitionChange::KeptOne => "Kept one copy of",
        TransitionChange::Archived => "Archived",
    };
    let after = match t.status {
        Status::Active => seen,
        Status::Archived => "recall no longer sees it",
    };
    format!("{verb} {} (now {}); {after}.\n", t.id, t.status)
}

/// The sentence a `propose` answers with: what became of the text, and
/// when agents see it.
fn proposed(o: &memdir::api::types::LearningOutcome) -> String {
    let id = &o.learning.id;
    match o.learning.status {
        memdir::api::types::LearningStatus::Approved => format!(
            "Already approved as {id} (LEARNINGS.md {}); every agent's next snapshot shows it.\n",
            o.usage.text
        ),
        _ if o.message == LearningChange::Proposed => {
            format!("Proposed as {id} (pending); no agent sees it until a person approves it.\n")
        }
        _ => format!(
            "Already proposed as {id} ({}); no agent sees it until a person approves it.\n",
            o.learning.status.name()
        ),
    }
}

/// The answer to a request: a write's sentence, else the rendering; an
/// error as a tool error.
fn executed(store: &Store, who: &Who, in_run: bool, request: Request) -> CallToolResult {
    match api::execute(store, who, request) {
        Ok(r) => match written(&r, in_run) {
            Some(text) => answer(text, false),
            None => answer(rendered(&r), false),
        },
        Err(e) => answer(render::error_text(&e, Surface::Mcp), true),
    }
}

/// Whether the owner has no entry and no approved learning (a recall then
/// answers "No memory recorded yet.").
fn nothing_recorded(store: &Store, who: &Who) -> bool {
    let no_learnings = matches!(
        api::execute(store, who, Request::Learnings).as_deref(),
        Ok(Response::Learnings(l)) if l.approved.is_empty()
    );
    let no_entries = matches!(
        api::execute(store, who, Request::CurrentEntries).as_deref(),
        Ok(Response::CurrentEntries(l)) if l.is_empty()
    );
    no_entries && no_learnings
}

/// One call of the `memory` tool; inside the server's run (`--run`,
/// `--session`), the facts it saves record the run.
pub fn memory_action(
    store: &Store,
    who: &Who,
    run: Option<&RunRef>,
    call: MemoryCall,
) -> CallToolResult {
    let in_run = run.is_some();
    let request = match call {
        MemoryCall::Recall => {
            // No entries of its own and no approved learning: nothing to
            // recall (an approved learning is in every agent's snapshot).
            let none = || AgentText::program("No memory recorded yet.");
            return match snapshot_text(store, who, run) {
                Ok(_) if run.is_none() && nothing_recorded(store, who) => answer(none(), false),
                Ok(t) if t.text().trim().is_empty() => answer(none(), false),
                Ok(t) => answer(t, false),
                Err(e) => answer(render::error_text(&e, Surface::Mcp), true),
            };
        }
        MemoryCall::Remember(r) => return remember(store, who, run, r),
        MemoryCall::SearchRuns { query, limit } => Request::SearchRuns {
            query,
            since: None,
            until: None,
            limit,
        },
        MemoryCall::GetRun { run_id } => Request::GetRun { run_id },
        MemoryCall::Save {
            content,
            expires,
            supersedes,
        } => inside(
            who,
            run,
            Request::Write {
                op: Op::Add {
                    text: content,
                    scope: Scope::Memory,
                    expires,
                    supersedes,
                },
            },
        ),
        MemoryCall::Day { content } => inside(
            who,
            run,
            Request::Day {
                line: content,
                task: None,
                run: None,
            },
        ),
        MemoryCall::List {
            kind,
            status,
            limit,
        } => Request::List {
            kind,
            all: status == Some(memdir::api::types::Status::Archived),
            status,
            limit,
        },
        MemoryCall::Archive { id, reason } => Request::Archive { id, reason },
        MemoryCall::Unarchive { id } => Request::Unarchive { id },
        MemoryCall::Resolve { id, keep } => Request::Resolve { id, keep },
        MemoryCall::Veto { id, reason } => Request::Veto { id, reason },
        MemoryCall::RecallFacts { query } => inside(
            who,
            run,
            Request::Recall {
                query,
                session: None,
                on_demand: true,
                preview: false,
            },
        ),
        MemoryCall::Propose { text } => Request::Propose { text },
        MemoryCall::Learnings => Request::Learnings,
        MemoryCall::Pending { id: Some(id) } => Request::PendingShow { id },
        MemoryCall::Pending { id: None } => Request::PendingList { all: false },
        MemoryCall::ApprovePending { id, text } => Request::PendingApprove { id, text },
        MemoryCall::RejectPending { id, reason } => Request::PendingReject { id, reason },
    };
    executed(store, who, in_run, request)
}

/// The `remember` action: the seed's add / replace / remove / read on one
/// store; a failed write answers with the error and the current entries
/// (once, as docs/API.md shows them). Under a run (`mcp --run`) the run's
/// snapshot stays frozen, so a write is for the next run.
fn remember(store: &Store, who: &Who, run: Option<&RunRef>, a: Remember) -> CallToolResult {
    let in_run = run.is_some();
    // A replace or remove that names no target looks in both stores.
    let target = a.target;
    let scope = target.unwrap_or(Scope::Memory);
    let op_kind = a.operation;
    let op = match (op_kind, a.content, a.old_text) {
        (Operation::Read, _, _) => {
            return match api::execute(store, who, Request::StoreView { scope }) {
                Ok(r) => answer(render::store_markdown(&r), false),
                Err(e) => answer(render::error_text(&e, Surface::Mcp), true),
            };
        }
        (Operation::Add, Some(c), _) => Op::add(scope, c),
        // `MemoryArgs::call` checked these.
        (Operation::Add | Operation::Replace, None, _) => {
            return answer(AgentText::program("content is required for remember"), true);
        }
        (Operation::Replace | Operation::Remove, _, None) => {
            return answer(
                AgentText::program("old_text is required for replace and remove"),
                true,
            );
        }
        (Operation::Replace, Some(c), Some(old)) => Op::Replace {
            old,
            new: c,
            scope: target,
        },
        (Operation::Remove, _, Some(old)) => Op::Remove { old, scope: target },
    };
    match api::execute(store, who, inside(who, run, Request::Write { op })) {
        Ok(r) => match written(&r, in_run) {
            Some(text) => answer(text, false),
            None => answer(rendered(&r), false),
        },
        Err(e) => {
            let mut text = render::error_head(&e, Surface::Mcp);
            if let Error::AmbiguousMatch { .. } = e {
                text.push(&AgentText::program(
                    "Name one entry: copy its id or a longer part of its text.\n",
                ));
            }
            // The current entries, through the door as every answer.
            if let Ok(list) = api::execute(store, who, Request::CurrentEntries) {
                let only = match op_kind {
                    Operation::Add => Some(scope),
                    _ => target,
                };
                text.push(&render::current_entries(&list, only));
            }
            answer(text, true)
        }
    }
}
