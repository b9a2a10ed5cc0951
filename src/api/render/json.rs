//! Answers as programs read them: each [`Response`]'s JSON form, built
//! once as a value ([`json`]) that HTTP serves, MCP reads and the command
//! line prints as one line ([`json_line`]). `serde_json` keeps an object's
//! keys in the order they were put in (its `preserve_order` feature), so a
//! library type keeps its field order and a built answer the order it is
//! written in, on every surface.

use serde::Serialize;
use serde_json::{Map, Value, json};

use super::git::{check_json, merged_json};
use super::line;
use super::results::{put_json, result_json, steps_json};
use crate::api::Response;
use crate::api::guard::{AgentJson, Guarded, PersonAnswer, PersonJson};
use crate::edit::OpKind;
use crate::model::time::micros;
use crate::snapshot::Snapshot;
use crate::store::{FactRow, WriteOutcome};

/// One of the library's types as a value; a type that cannot be one says
/// so (as `line` does), never null.
fn typed<T: Serialize>(t: &T) -> Value {
    serde_json::to_value(t).unwrap_or_else(|e| json!({ "error": e.to_string() }))
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
        Response::Log(commits) => json!({ "commits": commits, "count": commits.len() }),
        Response::Init(setup) => typed(setup),
        Response::Written(w) => written(w),
        Response::Batch(b) => {
            let usage: Map<String, Value> = b
                .usage
                .iter()
                .map(|(s, u)| (s.name().to_owned(), json!(u)))
                .collect();
            json!({"results": b.results, "usage": usage, "warnings": b.warnings})
        }
        Response::Show { owner, stores } => json!({ "owner": owner, "stores": stores }),
        Response::Snapshot(snap) => snapshot(snap),
        Response::RunBegun {
            record,
            snapshot: snap,
            resumed,
        } => {
            let mut v = snapshot(snap);
            if let Some(o) = v.as_object_mut() {
                o.insert("run_id".into(), json!(record.run_id));
                o.insert("resumed".into(), json!(resumed));
                if let Some(k) = &record.session {
                    o.insert("session".into(), json!(k));
                }
                o.insert("workflow_id".into(), json!(record.workflow()));
                o.insert("started_at".into(), json!(micros(&record.started_at)));
                if !record.skills.is_empty() {
                    o.insert("skills".into(), json!(record.skills));
                }
            }
            v
        }
        Response::Day(d) => typed(d),
        Response::RunHits(hits) => json!({ "hits": hits, "count": hits.len() }),
        Response::Run(v) => typed(v),
        Response::Runs(runs) => json!({ "runs": runs, "count": runs.len() }),
        Response::Put(p) => put_json(p),
        Response::Result(r) => result_json(r),
        Response::Steps(w) => steps_json(w),
        Response::Transition(t) => typed(t),
        Response::Renewed(r) => typed(r),
        Response::ResultsRemoved(r) => typed(r),
        Response::ResultsGc(g) => typed(g),
        Response::Rows { rows, total, limit } => list(rows, *total, *limit),
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
        Response::Skills(rows) => json!({ "skills": rows, "count": rows.len() }),
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
        Response::Entries(entries) => json!({ "entries": entries, "count": entries.len() }),
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
    let diffs: Map<String, Value> = r.diffs.iter().map(|(f, d)| (f.clone(), json!(d))).collect();
    json!({
        "review_id": r.review_id,
        "applied": r.applied,
        "changes": r.plan.changes,
        "unrecalled": r.plan.unrecalled,
        "unsettled": r.plan.unsettled,
        "skipped": r.plan.skipped,
        "diffs": diffs,
        "warnings": r.warnings,
        "reviewer": r.reviewer,
    })
}

/// A write: what was added, replaced or removed, and the store's usage.
fn written(w: &WriteOutcome) -> Value {
    let o = &w.outcome;
    match o.op {
        OpKind::Add => json!({
            "id": o.id, "scope": o.scope, "text": o.text, "usage": w.usage,
            "message": o.message, "archived": w.archived, "warnings": w.warnings,
        }),
        OpKind::Replace => json!({
            "id": o.id, "old_id": o.old_id, "scope": o.scope, "text": o.text,
            "usage": w.usage, "message": o.message, "warnings": w.warnings,
        }),
        OpKind::Remove => json!({
            "removed": 1, "id": o.id, "scope": o.scope, "usage": w.usage,
            "message": o.message, "warnings": w.warnings,
        }),
    }
}

/// A snapshot: its text, hash and size, and what it left out.
fn snapshot(s: &Snapshot) -> Value {
    let blocked: Vec<&str> = s.blocked.iter().map(|b| b.id.as_str()).collect();
    let mut v = json!({"text": s.text, "sha256": s.sha256, "bytes": s.bytes, "blocked": blocked, "over_budget": s.over_budget});
    if !s.blocked_skills.is_empty()
        && let Some(o) = v.as_object_mut()
    {
        o.insert("blocked_skills".into(), json!(s.blocked_skills));
    }
    v
}

/// The rows of a list, and whether the limit cut it.
fn list(rows: &[FactRow], total: usize, limit: usize) -> Value {
    json!({
        "rows": rows, "count": rows.len(), "total": total, "truncated": total > rows.len(),
        "limit": limit,
    })
}
