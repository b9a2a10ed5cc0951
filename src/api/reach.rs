//! Which requests a server runs for a caller that reaches it over the
//! network (`POST /v1/command`, `mcp --url`), decided on the request's type
//! with one arm per variant, so that a new request cannot be served over the
//! boundary without someone deciding that it may (docs/SECURITY.md, the
//! separated deployment).

use super::Request;

/// Whether a server runs a request for a remote caller.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Reach {
    /// Served: it reads and writes the memory root the server keeps, for
    /// the caller its key names.
    Served,
    /// Served with the server's own keys file: a login link is always made
    /// from the keys the server holds, never from a path the caller gives.
    ServerKeys,
    /// Refused: it names files of the server's machine (an import or export
    /// folder, a git remote, a login link's file), which a caller of the
    /// server must not choose. The text names the operation.
    NamesServerFiles(&'static str),
}

/// Whether a server runs `request` for a remote caller (a run's wrapper is
/// judged by what it wraps).
pub fn reach(request: &Request) -> Reach {
    match request {
        Request::InRun { within, .. } => reach(within),
        Request::ImportHermes { .. } => Reach::NamesServerFiles("import"),
        Request::ExportHermes { .. } => Reach::NamesServerFiles("export"),
        Request::Sync { .. } => Reach::NamesServerFiles("sync"),
        Request::RedeemLoginLink { .. } | Request::ShowLoginLink { .. } => {
            Reach::NamesServerFiles("a login link's use")
        }
        Request::LoginLink { .. } => Reach::ServerKeys,
        Request::Write { .. }
        | Request::Batch { .. }
        | Request::Show { .. }
        | Request::Snapshot
        | Request::BeginRun { .. }
        | Request::FinishRun { .. }
        | Request::Day { .. }
        | Request::Log { .. }
        | Request::SearchRuns { .. }
        | Request::GetRun { .. }
        | Request::ListRuns { .. }
        | Request::PutResult { .. }
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
        | Request::SkillLearn { .. }
        | Request::SkillList
        | Request::SkillShow { .. }
        | Request::SkillForget { .. }
        | Request::MemoryTool { .. }
        | Request::StoreView { .. }
        | Request::RecallEntries { .. }
        | Request::CurrentEntries
        | Request::Forget { .. }
        | Request::Recall { .. }
        | Request::PendingList { .. }
        | Request::PendingShow { .. }
        | Request::PendingApprove { .. }
        | Request::PendingReject { .. }
        | Request::List { .. }
        | Request::Check { .. }
        | Request::AgentSummaries { .. }
        | Request::Propose { .. }
        | Request::Learnings
        | Request::Approve { .. }
        | Request::Reject { .. }
        | Request::Retire { .. } => Reach::Served,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_server_files_are_refused_inside_a_run_too() {
        let sync = Request::Sync { remote: None };
        assert_eq!(reach(&sync), Reach::NamesServerFiles("sync"));
        let wrapped = Request::InRun {
            run: super::super::RunRef::Id("r".into()),
            within: Box::new(sync),
        };
        assert_eq!(reach(&wrapped), Reach::NamesServerFiles("sync"));
        assert_eq!(reach(&Request::Snapshot), Reach::Served);
    }
}
