//! Answers as programs read them: each [`Response`]'s JSON form, built in
//! one place ([`build`]) for both the value HTTP serves ([`json`]) and the
//! line the command line prints ([`json_line`]).
//!
//! An answer that is one of the library's types serializes in its own
//! field order on the command line (as it always has); `serde_json`'s
//! [`Value`] orders an object's keys, so [`json`] of it is the same object
//! with its keys sorted.

use serde::Serialize;
use serde_json::{Map, Value, json};

use super::git::{check_json, merged_json};
use super::line;
use super::results::{put_json, result_json, steps_json};
use crate::api::Response;
use crate::edit::OpKind;
use crate::model::time::micros;
use crate::snapshot::Snapshot;
use crate::store::{FactRow, WriteOutcome};

/// Where an answer's JSON form goes: a [`Value`], or the line printed.
pub(super) trait Form {
    /// What it makes.
    type Out;
    /// An answer built as a value.
    fn value(self, v: Value) -> Self::Out;
    /// An answer that is one of the library's types, serialized as it is.
    fn typed<T: Serialize>(self, t: &T) -> Self::Out;
}

/// The form HTTP serves: a [`Value`].
struct AsValue;

impl Form for AsValue {
    type Out = Value;
    fn value(self, v: Value) -> Value {
        v
    }
    fn typed<T: Serialize>(self, t: &T) -> Value {
        // A type that cannot be a value says so (as `line` does), never null.
        serde_json::to_value(t).unwrap_or_else(|e| json!({ "error": e.to_string() }))
    }
}

/// The form the command line prints: one line of JSON.
struct AsLine;

impl Form for AsLine {
    type Out = String;
    fn value(self, v: Value) -> String {
        line(&v)
    }
    fn typed<T: Serialize>(self, t: &T) -> String {
        line(t)
    }
}

/// An answer as a JSON value: the object `--json` prints (keys sorted).
pub fn json(response: &Response) -> Value {
    build(response, AsValue)
}

/// An answer as the one line of JSON `--json` prints.
pub(super) fn json_line(response: &Response) -> String {
    build(response, AsLine)
}

/// Every answer's JSON form, into `f`.
fn build<F: Form>(response: &Response, f: F) -> F::Out {
    match response {
        Response::Check { reports, strict } => f.value(check_json(reports, *strict)),
        Response::Merged(m) => f.value(merged_json(m)),
        Response::Sync(r) => f.typed(r),
        Response::Log(commits) => f.value(json!({ "commits": commits, "count": commits.len() })),
        Response::Init(setup) => f.typed(setup),
        Response::Written(w) => f.value(written(w)),
        Response::Batch(b) => {
            let usage: Map<String, Value> = b
                .usage
                .iter()
                .map(|(s, u)| (s.name().to_owned(), json!(u)))
                .collect();
            f.value(json!({"results": b.results, "usage": usage, "warnings": b.warnings}))
        }
        Response::Show { owner, stores } => f.value(json!({ "owner": owner, "stores": stores })),
        Response::Snapshot(snap) => f.value(snapshot(snap)),
        Response::RunBegun {
            record,
            snapshot: snap,
        } => {
            let mut v = snapshot(snap);
            if let Some(o) = v.as_object_mut() {
                o.insert("run_id".into(), json!(record.run_id));
                o.insert("workflow_id".into(), json!(record.workflow()));
                o.insert("started_at".into(), json!(micros(&record.started_at)));
                if !record.skills.is_empty() {
                    o.insert("skills".into(), json!(record.skills));
                }
            }
            f.value(v)
        }
        Response::Day(d) => f.typed(d),
        Response::RunHits(hits) => f.value(json!({ "hits": hits, "count": hits.len() })),
        Response::Run(v) => f.typed(v),
        Response::Runs(runs) => f.value(json!({ "runs": runs, "count": runs.len() })),
        Response::Put(p) => f.value(put_json(p)),
        Response::Result(r) => f.value(result_json(r)),
        Response::Steps(w) => f.value(steps_json(w)),
        Response::Transition(t) => f.typed(t),
        Response::Renewed(r) => f.typed(r),
        Response::ResultsRemoved(r) => f.typed(r),
        Response::ResultsGc(g) => f.typed(g),
        Response::Rows { rows, total, limit } => f.value(list(rows, *total, *limit)),
        Response::Review(r) => f.value(review(r)),
        Response::ReviewDue(d) => match &d.ran {
            Some(r) => f.value(review(r)),
            None => f.value(json!({"ran": false, "status": d.status})),
        },
        Response::Routine(s) => f.typed(s),
        Response::Undone(u) => f.typed(u),
        Response::Skill(o) => f.typed(o),
        Response::Skills(rows) => f.value(json!({ "skills": rows, "count": rows.len() })),
        Response::SkillShown(skill) => f.typed(skill),
        Response::Imported(i) => f.typed(i),
        Response::Exported(x) => f.typed(x),
        Response::Recall(r) => f.typed(r),
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
