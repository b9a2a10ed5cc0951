//! Every [`Request`] variant, by example on the planted root: the order
//! each surface makes them in (reads first; the writes leave every planted
//! text where it is). [`super::calls::calls`] says what each surface does
//! with each.

use memdir::api::types::{FactKind, Keep, Op, Scope, Status};
use memdir::api::{Request, RunRef};
use serde_json::{Value, json};

use super::plant::Planted;

/// A memory-tool input that views `path`.
pub fn view(path: &str) -> Value {
    json!({"command": "view", "path": path})
}

/// Every variant, by example on the planted root, in the order each
/// surface makes them (reads first where a write would change what they
/// read; the writes leave every planted text where it is).
#[allow(
    clippy::too_many_lines,
    reason = "a table: every Request variant by example, in the order the surfaces make them"
)]
pub fn examples(p: &Planted) -> Vec<Request> {
    let hex0 = "0".repeat(64);
    vec![
        Request::Show { scope: None },
        Request::Show {
            scope: Some(Scope::User),
        },
        Request::Snapshot,
        Request::Check {
            owners: Vec::new(),
            strict: true,
        },
        Request::Sync { remote: None },
        Request::StoreView {
            scope: Scope::Memory,
        },
        Request::StoreView { scope: Scope::User },
        Request::RecallEntries {
            query: Some("instructions".into()),
            limit: None,
        },
        Request::CurrentEntries,
        Request::Forget {
            key: memdir::api::servers::ForgetKey::Text("no entry holds this".into()),
        },
        Request::Forget {
            key: memdir::api::servers::ForgetKey::Id("mem_000000000000".into()),
        },
        Request::List {
            kind: None,
            status: None,
            all: true,
            limit: None,
        },
        Request::List {
            kind: Some(FactKind::Day),
            status: None,
            all: false,
            limit: None,
        },
        Request::List {
            kind: Some(FactKind::Fact),
            status: Some(Status::Archived),
            all: false,
            limit: None,
        },
        Request::Log {
            id: None,
            since: None,
            limit: None,
        },
        Request::Log {
            id: Some(p.clean.clone()),
            since: None,
            limit: Some(5),
        },
        Request::SearchRuns {
            query: "instructions prompt review".into(),
            since: None,
            until: None,
            limit: None,
        },
        Request::ListRuns { open: false },
        Request::GetRun {
            run_id: p.run_ok.clone(),
        },
        Request::GetRun {
            run_id: p.run_bad.clone(),
        },
        Request::Recall {
            query: Some("deploy instructions prompt".into()),
            session: None,
            on_demand: true,
            preview: false,
        },
        Request::Recall {
            query: None,
            session: None,
            on_demand: false,
            preview: true,
        },
        Request::GetResult {
            workflow_id: p.workflow.into(),
            task_id: "text".into(),
        },
        Request::GetResult {
            workflow_id: p.workflow.into(),
            task_id: "ctype".into(),
        },
        Request::GetResult {
            workflow_id: p.workflow.into(),
            task_id: "hdr".into(),
        },
        Request::WorkflowResults {
            workflow_id: p.workflow.into(),
        },
        Request::WaitResult {
            workflow_id: p.workflow.into(),
            task_id: "ctype".into(),
            timeout_secs: 5.0,
        },
        Request::SkillList,
        Request::SkillShow {
            name: "planted".into(),
        },
        Request::Learnings,
        Request::PendingList { all: true },
        Request::PendingShow {
            id: super::plant::PENDING_ID.into(),
        },
        Request::ReviewStatus,
        Request::ReviewHistory { limit: None },
        Request::Review {
            dry_run: true,
            due: false,
            reviewer: None,
        },
        Request::Review {
            dry_run: false,
            due: true,
            reviewer: None,
        },
        Request::MemoryTool {
            input: view("/memories"),
            skills_writable: false,
        },
        Request::MemoryTool {
            input: view("/memories/MEMORY.md"),
            skills_writable: false,
        },
        Request::MemoryTool {
            input: view("/memories/USER.md"),
            skills_writable: false,
        },
        Request::MemoryTool {
            input: view("/memories/episodes.md"),
            skills_writable: false,
        },
        Request::MemoryTool {
            input: view("/memories/LEARNINGS.md"),
            skills_writable: false,
        },
        Request::MemoryTool {
            input: view("/memories/skills/planted/SKILL.md"),
            skills_writable: false,
        },
        Request::MemoryTool {
            input: json!({"command": "str_replace", "path": "/memories/MEMORY.md",
                          "old_str": "no such words", "new_str": "other words"}),
            skills_writable: false,
        },
        Request::ExportHermes {
            dir: p.export.clone(),
            force: false,
            dry_run: true,
        },
        Request::ImportHermes {
            dir: p.hermes.clone(),
            partial: true,
            dry_run: true,
        },
        // Writes that fail: each lists what a failure lists.
        Request::Write {
            op: Op::Remove {
                old: "no entry holds these words".into(),
                scope: None,
            },
        },
        Request::Write {
            op: Op::Replace {
                old: "no entry holds these words".into(),
                new: "Some new words".into(),
                scope: Some(Scope::User),
            },
        },
        Request::Batch {
            ops: vec![
                Op::add(Scope::Memory, "Batch fact that lands with its batch"),
                Op::Remove {
                    old: "no entry holds these words".into(),
                    scope: Some(Scope::Memory),
                },
            ],
        },
        Request::Archive {
            id: "mem_000000000000".into(),
            reason: "sweep".into(),
        },
        Request::Renew {
            id: "mem_000000000000".into(),
            expires: None,
        },
        Request::Unarchive {
            id: p.vetoed.clone(),
        },
        Request::Unarchive {
            id: p.superseded.clone(),
        },
        Request::Resolve {
            id: p.live.clone(),
            keep: Keep::Live,
        },
        Request::Resolve {
            id: p.expired.clone(),
            keep: Keep::Both,
        },
        Request::Resolve {
            id: p.archived.clone(),
            keep: Keep::One,
        },
        Request::Veto {
            id: p.live.clone(),
            reason: None,
        },
        Request::Decide {
            file: memdir::api::types::StoreFile::Memory,
            sha256: "0".repeat(64),
            decision: memdir::api::types::Decision::Archive {
                id: p.live.clone(),
                reason: "sweep".into(),
            },
        },
        Request::FinishRun {
            run: RunRef::Id(p.run_bad.clone()),
            text: None,
        },
        Request::FinishRun {
            run: RunRef::Session("no-such-session".into()),
            text: None,
        },
        Request::GetResult {
            workflow_id: "wfnobody".into(),
            task_id: "t".into(),
        },
        Request::PutResult {
            workflow_id: p.workflow.into(),
            task_id: "text".into(),
            content: b"other content".to_vec(),
            content_type: None,
            overwrite: false,
            allow_empty: false,
            limit: None,
        },
        Request::ApplyReview {
            id: "review-20250101T000000Z-00000000".into(),
        },
        Request::ApplyReview {
            id: p.review.clone(),
        },
        Request::UndoReview {
            id: "review-20250101T000000Z-00000000".into(),
            partial: false,
        },
        Request::SkillForget {
            name: "nosuchskill".into(),
        },
        Request::Approve {
            id: p.proposal.clone(),
            text: None,
            seen_text: None,
        },
        // A person's decisions: the agent is refused (`person_only`).
        Request::PendingApprove {
            id: super::plant::PENDING_ID.into(),
            text: None,
        },
        Request::PendingReject {
            id: super::plant::PENDING_ID.into(),
            reason: "sweep".into(),
        },
        Request::Reject {
            id: p.proposal.clone(),
            reason: "sweep".into(),
        },
        Request::Retire {
            id: p.rejected.clone(),
            reason: None,
        },
        Request::LoginLink {
            keys: Some(p.keys.clone()),
        },
        Request::RedeemLoginLink {
            token: "0".repeat(64),
            keys: Some(p.keys.clone()),
        },
        Request::ShowLoginLink {
            token: hex0,
            keys: Some(p.keys.clone()),
        },
        // A person's request: the agent is refused (`person_only`).
        Request::AgentSummaries {
            sort: memdir::api::types::SummarySort::Findings,
            page: None,
            limit: None,
        },
        // Writes that succeed (again: "already stored"), none touching a
        // planted text.
        Request::Write {
            op: Op::add(Scope::Memory, "Sweep fact saved by the agent"),
        },
        Request::Day {
            line: "sweep day line".into(),
            task: Some("PIN-9".into()),
            run: None,
        },
        Request::Renew {
            id: p.spare.clone(),
            expires: Some("2099-01-01".into()),
        },
        Request::ReviewPause { paused: false },
        Request::Propose {
            text: "Write a test for every bug fixed".into(),
        },
        Request::SkillLearn {
            name: "sweepskill".into(),
            source: "# Sweep\nCheck every surface.".into(),
            description: None,
            replace: false,
        },
        Request::PutResult {
            workflow_id: "wfagent".into(),
            task_id: "sweep".into(),
            content: b"sweep result".to_vec(),
            content_type: None,
            overwrite: false,
            allow_empty: false,
            limit: None,
        },
        Request::InRun {
            run: RunRef::Id(p.run_ok.clone()),
            within: Box::new(Request::Recall {
                query: Some("deploy instructions".into()),
                session: None,
                on_demand: true,
                preview: false,
            }),
        },
        Request::InRun {
            run: RunRef::Id(p.run_ok.clone()),
            within: Box::new(Request::Snapshot),
        },
        Request::InRun {
            run: RunRef::Id(p.run_ok.clone()),
            within: Box::new(Request::Write {
                op: Op::add(Scope::Memory, "Sweep fact saved inside the run"),
            }),
        },
        Request::BeginRun {
            task: Some("PIN-10".into()),
            skills: vec!["planted".into()],
            workflow: None,
            session: Some("sweep-session".into()),
        },
        Request::ListRuns { open: true },
        Request::RemoveResults {
            workflow_id: "wfagent".into(),
            task_id: Some("sweep".into()),
        },
        Request::GcResults {
            older_than_days: 36500,
        },
        Request::Archive {
            id: p.spare.clone(),
            reason: "sweep".into(),
        },
        Request::SkillForget {
            name: "sweepskill".into(),
        },
    ]
}
