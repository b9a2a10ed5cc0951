//! The command line's rule before a request runs ([`preflight`]): a typo
//! of an owner never looks like an empty memory, and a write that may be
//! an owner's first creates it only under an existing root.

use super::{Request, RunRef, Who};
use crate::edit::Op;
use crate::error::Result;
use crate::model::{Caller, validate_id};
use crate::store::Store;

/// What a request does to the owner's folder, for [`preflight`].
fn creates_owner(request: &Request) -> Option<bool> {
    Some(match request {
        // Writes that may be an owner's first: they create its folder.
        Request::Write {
            op: Op::Add { .. }, ..
        }
        | Request::Batch { .. }
        | Request::BeginRun { .. }
        | Request::Day { .. }
        | Request::PutResult { .. }
        | Request::SkillLearn { .. }
        | Request::ImportHermes { .. }
        | Request::MemoryTool { .. } => true,
        // Everything else needs the owner's folder to be there.
        Request::Write { .. }
        | Request::Show { .. }
        | Request::Snapshot
        | Request::FinishRun { .. }
        | Request::Log { .. }
        | Request::SearchRuns { .. }
        | Request::GetRun { .. }
        | Request::ListRuns { .. }
        | Request::GetResult { .. }
        | Request::WorkflowResults { .. }
        | Request::WaitResult { .. }
        | Request::Archive { .. }
        | Request::Unarchive { .. }
        | Request::Resolve { .. }
        | Request::Decide { .. }
        | Request::Renew { .. }
        | Request::RemoveResults { .. }
        | Request::GcResults { .. }
        | Request::Veto { .. }
        | Request::Review { .. }
        | Request::UndoReview { .. }
        | Request::ApplyReview { .. }
        | Request::ReviewStatus
        | Request::ReviewHistory { .. }
        | Request::ReviewPause { .. }
        | Request::SkillList
        | Request::SkillShow { .. }
        | Request::SkillForget { .. }
        | Request::ExportHermes { .. }
        | Request::StoreView { .. }
        | Request::RecallEntries { .. }
        | Request::CurrentEntries
        | Request::Forget { .. }
        | Request::Recall { .. }
        | Request::PendingList { .. }
        | Request::PendingShow { .. }
        | Request::PendingApprove { .. }
        | Request::PendingReject { .. } => false,
        Request::InRun { within, .. } => return creates_owner(within).map(|_| false),
        Request::List { .. }
        | Request::Check { .. }
        | Request::Sync { .. }
        | Request::LoginLink { .. }
        | Request::RedeemLoginLink { .. }
        | Request::ShowLoginLink { .. }
        | Request::AgentSummaries { .. }
        | Request::Propose { .. }
        | Request::Learnings
        | Request::Approve { .. }
        | Request::Reject { .. }
        | Request::Retire { .. } => return None,
    })
}

/// The command line's rule before a request runs, so that a typo never
/// looks like an empty memory: a request of an existing owner's memory
/// (every read, and the edits of what is there) refuses an owner the root
/// does not hold (`owner_not_found`, naming the root, and its owners to
/// a person: an agent is told nothing of the others); a
/// write that may be an owner's first creates it only under an existing
/// root (`root_not_found`; `memdir init` creates one). A person's `list`
/// of every owner needs neither. (A server keeps the seeds' answers
/// instead, such as "No memory recorded yet." for a new agent.)
pub fn preflight(store: &Store, who: &Who, request: &Request) -> Result<()> {
    // The learnings are the root's: no owner needed, only the root.
    if is_learnings(request) {
        return store.require_root();
    }
    // A login link is the machine's configuration's, not the root's.
    if matches!(
        request,
        Request::LoginLink { .. }
            | Request::RedeemLoginLink { .. }
            | Request::ShowLoginLink { .. }
            | Request::AgentSummaries { .. }
            | Request::Check { .. }
            | Request::Sync { .. }
    ) {
        return Ok(());
    }
    let id = match (&who.caller, &who.named) {
        (_, Some(n)) => n.as_str(),
        (Caller::Agent(a), None) => a.as_str(),
        // `owner_as` refuses (or `list` lists every owner).
        (Caller::Person(_), None) => return Ok(()),
    };
    // Refusals of the caller (another agent's memory, a bad id) come first,
    // and bad ids of the request.
    who.owner(store)?;
    match request {
        Request::GetResult {
            workflow_id,
            task_id,
        }
        | Request::WaitResult {
            workflow_id,
            task_id,
            ..
        } => {
            validate_id("workflow", workflow_id)?;
            validate_id("task", task_id)?;
        }
        Request::WorkflowResults { workflow_id } => validate_id("workflow", workflow_id)?,
        Request::RemoveResults {
            workflow_id,
            task_id,
        } => {
            validate_id("workflow", workflow_id)?;
            if let Some(t) = task_id {
                validate_id("task", t)?;
            }
        }
        Request::GetRun { run_id } => validate_id("run", run_id)?,
        Request::FinishRun { run, .. } | Request::InRun { run, .. } => match run {
            RunRef::Id(id) => validate_id("run", id)?,
            RunRef::Session(key) => validate_id("session", key)?,
        },
        _ => {}
    }
    match creates_owner(request) {
        Some(true) => store.require_root(),
        Some(false) | None => store.require_owner(id, Some(&who.caller)),
    }
}

/// Whether `request` acts on the root's learnings (no owner).
fn is_learnings(request: &Request) -> bool {
    matches!(
        request,
        Request::Propose { .. }
            | Request::Learnings
            | Request::Approve { .. }
            | Request::Reject { .. }
            | Request::Retire { .. }
    )
}
