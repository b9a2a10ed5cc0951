//! Answers as programs read them: each [`Response`]'s JSON form, built
//! once as a value ([`json`]) that HTTP serves, MCP reads and the command
//! line prints as one line ([`json_line`]). `serde_json` keeps an object's
//! keys in the order they were put in (its `preserve_order` feature), so a
//! library type keeps its field order on every surface. An answer made of
//! more than one of the library's types is one of `api::wire`'s, so that
//! its schema is derived from what is serialized (`api::schema`).

use serde::Serialize;
use serde_json::{Value, json};

use super::git::{check_json, merged_json};
use super::line;
use super::results::{put_json, result_json};
use crate::api::Response;
use crate::api::guard::{AgentJson, Guarded, PersonAnswer, PersonJson};
use crate::api::wire;
use crate::edit::OpKind;
use crate::model::time::micros;
use crate::store::WriteOutcome;

/// One of the library's types as a value; a type that cannot be one says
/// so (as `line` does), never null.
fn typed<T: Serialize>(t: &T) -> Value {
    wire::value(t)
}

/// An answer as the one line of JSON `--json` prints: [`json`]'s value.
pub(super) fn json_line(response: &Response) -> String {
    line(&value(response))
}

/// An answer as a JSON value: what HTTP serves, MCP reads and `--json`
/// prints (as one line). An answer that is one of the library's types is
/// that type serialized, in its own field order.
pub fn json(response: &Guarded<Response>) -> AgentJson {
    AgentJson::from_guarded(response, value)
}

/// A person's raw read as a JSON value ([`crate::api::raw`]).
pub fn person_json(answer: &PersonAnswer) -> PersonJson {
    PersonJson::made(value(answer))
}

/// An answer's JSON value (for [`json`] and [`person_json`] only).
pub(super) fn value(response: &Response) -> Value {
    match response {
        Response::Check { reports, strict } => check_json(reports, *strict),
        Response::Merged(m) => merged_json(m),
        Response::Sync(r) => typed(r),
        Response::Log(commits) => typed(&wire::Logged {
            commits,
            count: commits.len(),
        }),
        Response::Init(setup) => typed(setup),
        Response::Written(w) => written(w),
        Response::Batch(b) => {
            let (status, pending_id) = wire::waiting(b.pending_id.as_deref());
            typed(&wire::Batched {
                results: &b.results,
                usage: wire::ScopedUsage(&b.usage),
                warnings: &b.warnings,
                status,
                pending_id,
            })
        }
        Response::Show { owner, stores } => typed(&wire::Shown { owner, stores }),
        Response::Snapshot(snap) => typed(&wire::SnapshotAnswer::of(snap)),
        Response::RunBegun {
            record,
            snapshot: snap,
            resumed,
        } => typed(&wire::RunBegun {
            snapshot: wire::SnapshotAnswer::of(snap),
            run_id: &record.run_id,
            resumed: *resumed,
            session: record.session.as_deref(),
            workflow_id: record.workflow(),
            started_at: micros(&record.started_at),
            skills: &record.skills,
        }),
        Response::Day(d) => typed(d),
        Response::RunHits(hits) => typed(&wire::RunHits {
            hits,
            count: hits.len(),
        }),
        Response::Run(v) => typed(v),
        Response::Runs(runs) => typed(&wire::RunsListed {
            runs,
            count: runs.len(),
        }),
        Response::Put(p) => put_json(p),
        Response::Result(r) => result_json(r),
        Response::Steps(w) => typed(w),
        Response::Transition(t) => typed(t),
        Response::Renewed(r) => typed(r),
        Response::ResultsRemoved(r) => typed(r),
        Response::ResultsGc(g) => typed(g),
        Response::Rows { rows, total, limit } => typed(&wire::Listed {
            rows,
            count: rows.len(),
            total: *total,
            truncated: *total > rows.len(),
            limit: *limit,
        }),
        Response::Review(r) => review(r),
        Response::ReviewDue(d) => match &d.ran {
            Some(r) => review(r),
            None => json!({"ran": false, "status": d.status}),
        },
        Response::Routine(s) => typed(s),
        Response::ReviewHistory(h) => typed(h),
        Response::Undone(u) => typed(u),
        Response::Skill(o) => typed(o),
        Response::Learning(o) => typed(o),
        Response::Learnings(l) => typed(l),
        Response::Pending(l) => typed(l),
        Response::PendingShown(w) => typed(w),
        Response::PendingDecided(d) => typed(d),
        Response::Skills(rows) => typed(&wire::SkillsListed {
            skills: rows,
            count: rows.len(),
        }),
        Response::SkillShown(skill) => typed(skill),
        Response::Imported(i) => typed(i),
        Response::Exported(x) => typed(x),
        Response::Recall(r) => typed(r),
        Response::LoginLink(l) => typed(l),
        Response::LoginRedeemed { person } => json!({ "person": person }),
        Response::LoginLinkShown { person, expires } => {
            json!({ "person": person, "expires": expires })
        }
        Response::AgentSummaries(page) => typed(page),
        Response::MemoryTool(a) => typed(a),
        Response::StoreView(v) => typed(v),
        Response::Entries(entries) => typed(&wire::Entries {
            entries,
            count: entries.len(),
        }),
        Response::CurrentEntries(list) => {
            let entries: Vec<Value> = list
                .iter()
                .map(|(s, b)| json!({"scope": s, "id": b.id, "text": b.text, "expired": b.expired}))
                .collect();
            json!({ "entries": entries })
        }
    }
}

/// A review's plan: each change, what is left and listed, the diffs.
fn review(r: &crate::store::ReviewReport) -> Value {
    typed(&wire::Reviewed {
        review_id: &r.review_id,
        applied: r.applied,
        changes: &r.plan.changes,
        unrecalled: &r.plan.unrecalled,
        unsettled: &r.plan.unsettled,
        skipped: &r.plan.skipped,
        diffs: wire::Diffs(&r.diffs),
        warnings: &r.warnings,
        reviewer: r.reviewer.as_ref(),
    })
}

/// A write: what was added, replaced or removed, and the store's usage.
/// An add and a replace always carry the entry's text, a replace the id
/// it had.
fn written(w: &WriteOutcome) -> Value {
    let o = &w.outcome;
    let text = o.text.as_deref().unwrap_or_default();
    let (status, pending_id) = wire::waiting(w.pending_id.as_deref());
    match o.op {
        OpKind::Add => typed(&wire::Added {
            id: &o.id,
            scope: o.scope,
            text,
            usage: &w.usage,
            message: o.message,
            archived: &w.archived,
            warnings: &w.warnings,
            status,
            pending_id,
        }),
        OpKind::Replace => typed(&wire::Replaced {
            id: &o.id,
            old_id: o.old_id.as_deref().unwrap_or_default(),
            scope: o.scope,
            text,
            usage: &w.usage,
            message: o.message,
            warnings: &w.warnings,
            status,
            pending_id,
        }),
        OpKind::Remove => typed(&wire::Removed {
            removed: 1,
            id: &o.id,
            scope: o.scope,
            usage: &w.usage,
            message: o.message,
            warnings: &w.warnings,
        }),
    }
}
