//! Answers as people and programs read them: text, or one line of JSON.
//!
//! Each [`Response`] renders to the bytes for standard output and the
//! warnings for standard error ([`Rendered`]); each error to the text of
//! standard error or the JSON object of standard output.

use serde_json::{Map, Value, json};

mod errors;
mod git;
mod hermes;
mod results;

pub use errors::{error_head, error_json, error_text};
pub use git::watch_event;
use git::{check, merged, synced};
use hermes::{exported_text, imported_text};
pub use results::base64;
use results::{put, result, steps};

use super::Response;
use super::errors::Surface;
use crate::edit::OpKind;
use crate::journal::MAX_DAY_CHARS;
use crate::model::time::micros;
use crate::snapshot::Snapshot;
use crate::store::{DayOutcome, FactRow, Status, Transition};

/// What to print.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Rendered {
    /// Standard output.
    pub stdout: Vec<u8>,
    /// Warnings for standard error (one `warning: …` line each).
    pub warnings: Vec<String>,
    /// The exit status of an answer that reports failure without being an
    /// error (`check` with findings that fail it); 0 otherwise.
    pub exit: u8,
}

impl Rendered {
    fn text(s: String) -> Rendered {
        Rendered {
            stdout: s.into_bytes(),
            warnings: Vec::new(),
            exit: 0,
        }
    }

    fn with_warnings(mut self, warnings: &[String]) -> Rendered {
        self.warnings = warnings.to_vec();
        self
    }
}

/// A time as printed for people: UTC, to the second, saying so.
fn utc(t: &chrono::DateTime<chrono::Utc>) -> String {
    t.format("%Y-%m-%d %H:%M:%S UTC").to_string()
}

/// An RFC 3339 time (as the JSON carries it) printed for people: UTC, to
/// the second; unchanged if it does not parse.
fn utc_text(t: &str) -> String {
    chrono::DateTime::parse_from_rfc3339(t)
        .map_or_else(|_| t.to_owned(), |t| utc(&t.with_timezone(&chrono::Utc)))
}

/// One line of JSON.
fn line(v: &impl serde::Serialize) -> String {
    match serde_json::to_string(v) {
        Ok(s) => format!("{s}\n"),
        Err(e) => format!("{}\n", json!({"error": e.to_string()})),
    }
}

/// Renders an answer as the command line prints it: text, or one line of
/// JSON with `json`.
pub fn render(response: &Response, json: bool) -> Rendered {
    render_on(response, json, Surface::Cli)
}

/// Renders an answer for a caller on `surface` (its text names that
/// surface's arguments, such as the limit of a list that was cut).
pub fn render_on(response: &Response, json: bool, surface: Surface) -> Rendered {
    let text = |s: String| Rendered::text(s);
    match response {
        Response::Check { reports, strict } => check(reports, *strict, json),
        Response::Merged(m) => merged(m, json),
        Response::Sync(r) => text(if json { line(r) } else { synced(r) }),
        Response::Log(commits) => text(if json {
            line(&json!({ "commits": commits, "count": commits.len() }))
        } else {
            let mut out = String::new();
            for c in commits {
                out.push_str(&format!(
                    "{} {} {} <{}>: {}\n",
                    c.commit.get(..12).unwrap_or(&c.commit),
                    c.date,
                    c.author,
                    c.email,
                    c.message
                ));
                for e in &c.changes {
                    let sign = match e.change {
                        "added" | "unarchived" => '+',
                        _ => '-',
                    };
                    out.push_str(&format!(
                        "  {sign} {} {} {} {}\n",
                        e.change,
                        e.file,
                        e.id,
                        e.text.replace('\n', " ")
                    ));
                }
            }
            if commits.is_empty() {
                out.push_str("no commits touched these memory files\n");
            }
            out
        }),
        Response::Init(setup) => text(if json {
            line(setup)
        } else {
            let mut out = format!("memory root {} ready", setup.root.display());
            match &setup.work_tree {
                Some(top) => out.push_str(&format!(" (in the git work tree {})\n", top.display())),
                None => out.push_str(" (not in a git work tree)\n"),
            }
            if setup.changes.is_empty() {
                out.push_str("nothing to change\n");
            }
            for c in &setup.changes {
                out.push_str(&format!("  {c}\n"));
            }
            out
        }),
        Response::Written(w) => text(written(w, json)).with_warnings(&w.warnings),
        Response::Batch(b) => text(if json {
            let usage: serde_json::Map<String, Value> = b
                .usage
                .iter()
                .map(|(s, u)| (s.name().to_owned(), json!(u)))
                .collect();
            line(&json!({"results": b.results, "usage": usage, "warnings": b.warnings}))
        } else {
            let mut s = String::new();
            for (i, r) in b.results.iter().enumerate() {
                // A sentence per operation: "added mem_… to MEMORY.md".
                let (what, prep) = match r.op {
                    OpKind::Remove => ("removed", "from"),
                    OpKind::Replace => ("replaced", "in"),
                    OpKind::Add => (r.message.as_str(), "to"),
                };
                let old = match &r.old_id {
                    Some(o) if r.op == OpKind::Replace => format!("{o} with "),
                    _ => String::new(),
                };
                // Numbered from 1, as failures and import answers number them.
                s.push_str(&format!(
                    "{}: {what} {old}{} {prep} {}\n",
                    i + 1,
                    r.id,
                    r.scope.file_name()
                ));
            }
            for (scope, u) in &b.usage {
                s.push_str(&format!("{} {}\n", scope.file_name(), u.text));
            }
            s
        })
        .with_warnings(&b.warnings),
        Response::Show { owner, stores } => text(if json {
            line(&json!({ "owner": owner, "stores": stores }))
        } else {
            let mut out = String::new();
            for v in stores {
                out.push_str(&format!("{} {}\n", v.file, v.usage.text));
                for w in &v.warnings {
                    out.push_str(&format!("  warning: {w}\n"));
                }
                if v.entries.is_empty() {
                    out.push_str("  (no entries)\n");
                }
                for e in &v.entries {
                    let marks = match e.omitted {
                        Some("expired") => "  [expired: not in the snapshot, frees nothing]",
                        Some("blocked") => "  [blocked: the snapshot shows a placeholder]",
                        Some("over_budget") => "  [over budget: left out of the snapshot]",
                        _ => "",
                    };
                    out.push_str(&format!(
                        "  {}  {}{marks}\n",
                        e.id,
                        e.text.replace('\n', "\n                    ")
                    ));
                    for w in &e.warnings {
                        out.push_str(&format!("    warning: {w}\n"));
                    }
                }
            }
            out
        }),
        Response::Snapshot(snap) => text(if json {
            line(&snapshot_json(snap))
        } else {
            snap.text.clone()
        }),
        Response::RunBegun { record, snapshot } => text(if json {
            let mut v = snapshot_json(snapshot);
            if let Some(o) = v.as_object_mut() {
                o.insert("run_id".into(), json!(record.run_id));
                o.insert("workflow_id".into(), json!(record.workflow()));
                o.insert("started_at".into(), json!(micros(&record.started_at)));
                if !record.skills.is_empty() {
                    o.insert("skills".into(), json!(record.skills));
                }
            }
            line(&v)
        } else {
            format!("{}\n{}", record.run_id, snapshot.text)
        }),
        Response::Day(d) => text(day(d, json)).with_warnings(&d.warnings),
        Response::RunHits(hits) => text(if json {
            line(&json!({ "hits": hits, "count": hits.len() }))
        } else {
            let mut out = String::new();
            for h in hits {
                out.push_str(&format!(
                    "{} {} {}{}{}  [{:.2}]\n",
                    h.date,
                    h.time.as_deref().unwrap_or("--:--"),
                    h.task
                        .as_deref()
                        .map(|t| format!("[{t}] "))
                        .unwrap_or_default(),
                    h.text,
                    h.run
                        .as_deref()
                        .map(|r| format!(" (run {r})"))
                        .unwrap_or_default(),
                    h.score.unwrap_or(0.0)
                ));
            }
            if hits.is_empty() {
                out.push_str("(no matching runs)\n");
            }
            out
        }),
        Response::Run(v) => text(if json {
            line(v)
        } else {
            let mut out = format!("run {}\n", v.run_id);
            if let Some(r) = &v.record {
                out.push_str(&format!("started {}", utc(&r.started_at)));
                if let Some(f) = &r.finished_at {
                    out.push_str(&format!(", finished {}", utc(f)));
                }
                if let Some(t) = &r.task {
                    out.push_str(&format!(", task {t}"));
                }
                out.push('\n');
            }
            for h in &v.journal {
                out.push_str(&format!(
                    "journal: {} {} {}\n",
                    h.date,
                    h.time.as_deref().unwrap_or("--:--"),
                    h.text
                ));
            }
            for s in &v.steps {
                out.push_str(&format!(
                    "step {}: {} ({} bytes, {})\n",
                    s.task_id,
                    s.content_type,
                    s.bytes,
                    utc_text(&s.created_at)
                ));
            }
            if let Some(snap) = &v.snapshot {
                out.push_str("snapshot it began with:\n");
                out.push_str(snap);
            }
            out
        }),
        Response::Runs(runs) => text(if json {
            line(&json!({ "runs": runs, "count": runs.len() }))
        } else {
            let mut out = String::new();
            for r in runs {
                out.push_str(&format!("{}  started {}", r.run_id, utc(&r.started_at)));
                match &r.finished_at {
                    Some(f) => out.push_str(&format!(", finished {}", utc(f))),
                    None => out.push_str(", open"),
                }
                if let Some(t) = &r.task {
                    out.push_str(&format!(", task {t}"));
                }
                if r.workflow() != r.run_id {
                    out.push_str(&format!(", workflow {}", r.workflow()));
                }
                out.push('\n');
            }
            if runs.is_empty() {
                out.push_str("(no runs)\n");
            }
            out
        }),
        Response::Put(p) => text(put(p, json)).with_warnings(&p.warnings),
        Response::Result(r) => result(r, json),
        Response::Steps(w) => text(steps(w, json)).with_warnings(&w.warnings),
        Response::Transition(t) => text(transition(t, json)).with_warnings(&t.warnings),
        Response::Renewed(r) => text(if json {
            line(r)
        } else {
            let until = r
                .expires
                .as_deref()
                .and_then(|e| chrono::DateTime::parse_from_rfc3339(e).ok())
                .map_or("never expires".to_owned(), |t| {
                    format!("expires {}", utc(&t.with_timezone(&chrono::Utc)))
                });
            format!("renewed {} in {}: {until}\n", r.id, r.scope.file_name())
        })
        .with_warnings(&r.warnings),
        Response::ResultsRemoved(r) => {
            text(if json { line(r) } else { results_removed(r) }).with_warnings(&r.warnings)
        }
        Response::ResultsGc(g) => text(if json {
            line(g)
        } else {
            let mut out = format!(
                "removed {} workflow(s) with no result newer than {} days ({} bytes); kept {}\n",
                g.workflows.len(),
                g.older_than_days,
                g.bytes,
                g.kept
            );
            for r in &g.workflows {
                out.push_str(&format!("  {}", results_removed(r)));
            }
            out
        })
        .with_warnings(&g.warnings),
        Response::Rows { rows, total, limit } => text(list(rows, *total, *limit, json, surface)),
        Response::Review(r) => text(review(r, json)).with_warnings(&r.warnings),
        Response::ReviewDue(d) => match &d.ran {
            Some(r) => text(review(r, json)).with_warnings(&r.warnings),
            None if json => text(line(&json!({"ran": false, "status": d.status}))),
            None => text(format!("no review due\n{}", routine(&d.status))),
        },
        Response::Routine(s) => text(if json { line(s) } else { routine(s) }),
        Response::Undone(u) => text(if json {
            line(u)
        } else {
            let mut out = format!(
                "undid review {}: {} brought back, {} lifted taken out\n",
                u.review_id,
                u.restored.len(),
                u.removed.len()
            );
            for i in &u.restored {
                out.push_str(&format!("  + {i}\n"));
            }
            for i in &u.removed {
                out.push_str(&format!("  - {i}\n"));
            }
            for i in &u.left {
                out.push_str(&format!("  left: {i}\n"));
            }
            out
        })
        .with_warnings(&u.warnings),
        Response::Skill(o) => text(if json {
            line(o)
        } else if o.message == "forgot" {
            format!("Forgot skill {}.\n", o.name)
        } else {
            format!(
                "{} skill {} in {} ({} bytes)\n",
                o.message,
                o.name,
                o.path,
                o.bytes.unwrap_or(0)
            )
        })
        .with_warnings(&o.warnings),
        Response::Skills(rows) => text(if json {
            line(&json!({ "skills": rows, "count": rows.len() }))
        } else if rows.is_empty() {
            "No learned skills yet.\n".into()
        } else {
            rows.iter()
                .map(|r| {
                    if r.description.is_empty() {
                        format!("- {}\n", r.name)
                    } else {
                        format!("- {} — {}\n", r.name, r.description)
                    }
                })
                .collect()
        }),
        Response::SkillShown(skill) => text(if json {
            line(skill)
        } else {
            skill.text.clone()
        }),
        Response::Imported(i) => {
            let mut r =
                text(if json { line(i) } else { imported_text(i) }).with_warnings(&i.warnings);
            // Something refused: the answer says what; the status says so.
            r.exit = u8::from(i.files.iter().any(|f| !f.refused.is_empty()));
            r
        }
        Response::Exported(x) => text(if json { line(x) } else { exported_text(x) }),
        Response::Recall(r) => text(if json {
            line(r)
        } else if r.skipped {
            "(skipped: this session already recalled in the last 24 hours)\n".into()
        } else {
            let mut out = String::new();
            if let Some(f) = &r.fallback {
                out.push_str(&format!("note: {f}\n"));
            }
            out.push_str(&r.block);
            // The scores, after the block: a run receives the block alone.
            if !r.facts.is_empty() {
                out.push_str("\nscores (not part of the block):\n");
            }
            for f in &r.facts {
                let score = f
                    .score
                    .map_or("newest, not scored".to_owned(), |s| format!("{s:.3}"));
                out.push_str(&format!("  {}  {score}\n", f.id));
            }
            if !r.counted {
                out.push_str("(preview: not counted as a recall)\n");
            }
            out
        }),
    }
}

/// The routine's state, one fact a line.
fn routine(s: &crate::store::RoutineStatus) -> String {
    use crate::model::fmt_time;
    use crate::review::routine::Due;
    let mut out = match &s.at {
        None => {
            "routine: none (an agent's first save creates it; `memdir review resume` adds it)\n"
                .to_owned()
        }
        Some(at) if s.paused => format!("routine: daily at {at} UTC, paused\n"),
        Some(at) => format!("routine: daily at {at} UTC\n"),
    };
    match &s.last {
        Some(l) => out.push_str(&format!(
            "last run: {} ({}){}\nlast report: {}\n",
            fmt_time(l.at),
            l.id,
            if l.undone { ", undone" } else { "" },
            l.report
        )),
        None => out.push_str("last run: never\n"),
    }
    out.push_str(&match &s.due {
        Due::Due { since } => format!("next due: now (due since {})\n", fmt_time(*since)),
        Due::NotDue { next } => format!("next due: {}\n", fmt_time(*next)),
        Due::Paused => "next due: never while paused\n".to_owned(),
        Due::NoRoutine => "next due: never (no routine)\n".to_owned(),
    });
    out
}

/// A review's plan: each change with its reason, what is left and listed,
/// and (dry run) a diff of each file.
fn review(r: &crate::store::ReviewReport, json: bool) -> String {
    use crate::review::Change;
    if json {
        let diffs: Map<String, Value> =
            r.diffs.iter().map(|(f, d)| (f.clone(), json!(d))).collect();
        return line(&json!({
            "review_id": r.review_id,
            "applied": r.applied,
            "changes": r.plan.changes,
            "unrecalled": r.plan.unrecalled,
            "unsettled": r.plan.unsettled,
            "skipped": r.plan.skipped,
            "diffs": diffs,
            "warnings": r.warnings,
            "reviewer": r.reviewer,
        }));
    }
    let mut out = if r.plan.changes.is_empty() {
        format!("review {}: no changes (nothing written)\n", r.review_id)
    } else if r.applied {
        format!("review {}\n", r.review_id)
    } else {
        format!("review {} (dry run: nothing changed)\n", r.review_id)
    };
    for c in &r.plan.changes {
        out.push_str(&match c {
            Change::Archive {
                id, kind, reason, ..
            } => format!("  archive {id} ({}): {reason}\n", kind.name()),
            Change::Renew {
                id,
                reason,
                expires,
                ..
            } => format!("  renew {id} until {}: {reason}\n", utc(expires)),
            Change::Lift { id, text, date, .. } => {
                format!("  lift {id} from {date}: {text}\n")
            }
            Change::Settle {
                id, kept, reason, ..
            } => format!(
                "  settle {id} (keep the {} one): {reason}\n",
                match kept {
                    crate::review::Kept::Live => "live",
                    crate::review::Kept::Archived => "archived",
                }
            ),
            Change::Save {
                id, text, reason, ..
            } => format!("  save {id} (reviewer): {text} ({reason})\n"),
            Change::Dedupe {
                id, copies, reason, ..
            } => format!("  keep one of {copies} copies of {id}: {reason}\n"),
        });
    }
    for u in &r.plan.unsettled {
        out.push_str(&format!(
            "  conflict left: {} and {}: {}\n",
            u.ids[0], u.ids[1], u.why
        ));
    }
    for s in &r.plan.skipped {
        out.push_str(&format!("  skipped: {} ({})\n", s.what, s.why));
    }
    if !r.plan.unrecalled.is_empty() {
        out.push_str(&format!(
            "  not recalled in 30 days: {}\n",
            r.plan.unrecalled.join(", ")
        ));
    }
    if let Some(rv) = &r.reviewer {
        match &rv.error {
            Some(e) => out.push_str(&format!("  reviewer failed: {e}\n")),
            None => out.push_str(&format!(
                "  reviewer: {} proposals applied, {} not\n",
                rv.accepted,
                rv.rejected.len()
            )),
        }
        for x in &rv.rejected {
            out.push_str(&format!(
                "  rejected #{}: {} ({})\n",
                x.index, x.proposal, x.why
            ));
        }
    }
    for (_, d) in &r.diffs {
        out.push_str(d);
    }
    if !r.plan.changes.is_empty() {
        out.push_str(&if r.applied {
            format!("undo it: memdir review undo {}\n", r.review_id)
        } else {
            format!("apply it: memdir review apply {}\n", r.review_id)
        });
    }
    out
}

fn written(w: &crate::store::WriteOutcome, json: bool) -> String {
    let o = &w.outcome;
    let file = o.scope.file_name();
    match (o.op, json) {
        (OpKind::Add, true) => line(&json!({
            "id": o.id, "scope": o.scope, "text": o.text, "usage": w.usage,
            "message": o.message, "archived": w.archived, "warnings": w.warnings,
        })),
        (OpKind::Add, false) => {
            let mut out = format!("{} {} in {file} ({})\n", o.message, o.id, w.usage.text);
            for id in &w.archived {
                out.push_str(&format!("archived {id}\n"));
            }
            out
        }
        (OpKind::Replace, true) => line(&json!({
            "id": o.id, "old_id": o.old_id, "scope": o.scope, "text": o.text,
            "usage": w.usage, "message": o.message, "warnings": w.warnings,
        })),
        (OpKind::Replace, false) => format!(
            "{} {} -> {} in {file} ({})\n",
            o.message,
            o.old_id.as_deref().unwrap_or_default(),
            o.id,
            w.usage.text
        ),
        (_, true) => line(&json!({
            "removed": 1, "id": o.id, "scope": o.scope, "usage": w.usage,
            "message": o.message, "warnings": w.warnings,
        })),
        (_, false) => format!("removed {} from {file} ({})\n", o.id, w.usage.text),
    }
}

fn snapshot_json(s: &Snapshot) -> Value {
    let blocked: Vec<&str> = s.blocked.iter().map(|b| b.id.as_str()).collect();
    let mut v = json!({"text": s.text, "sha256": s.sha256, "bytes": s.bytes, "blocked": blocked, "over_budget": s.over_budget});
    if !s.blocked_skills.is_empty()
        && let Some(o) = v.as_object_mut()
    {
        o.insert("blocked_skills".into(), json!(s.blocked_skills));
    }
    v
}

fn day(o: &DayOutcome, json: bool) -> String {
    if json {
        line(o)
    } else {
        format!(
            "appended to {} ({}): {} ({}/{MAX_DAY_CHARS} chars)\n",
            o.date, o.id, o.line.raw, o.chars
        )
    }
}

/// A workflow's results removed, as one line of text.
fn results_removed(r: &crate::store::ResultsRemoved) -> String {
    format!(
        "removed {} result(s) of workflow {} ({} bytes): {}; {} left\n",
        r.removed.len(),
        r.workflow_id,
        r.bytes,
        r.removed.join(", "),
        r.left
    )
}

fn transition(t: &Transition, json: bool) -> String {
    if json {
        line(t)
    } else {
        match t.status {
            "active" => format!("{} {}: it is active again\n", t.message, t.id),
            _ => format!("{} {}: it is out of the snapshot\n", t.message, t.id),
        }
    }
}

fn list(rows: &[FactRow], total: usize, limit: usize, json: bool, surface: Surface) -> String {
    let truncated = total > rows.len();
    if json {
        return line(&json!({
            "rows": rows, "count": rows.len(), "total": total, "truncated": truncated,
            "limit": limit,
        }));
    }
    let mut out = String::new();
    for r in rows {
        let state = match (r.status, r.expired) {
            (Status::Archived, _) => format!(
                "archived ({})",
                r.archive_kind.map_or("plain", |k| k.name())
            ),
            (_, true) => "active, expired".to_owned(),
            (s, false) => s.name().to_owned(),
        };
        let when = match r.date {
            Some(d) => d.to_string(),
            None => utc(&r.created_at),
        };
        let what = match r.kind {
            crate::store::FactKind::Day => "day".to_owned(),
            crate::store::FactKind::Fact => format!("fact {}", r.scope.name()),
        };
        let by = match (&r.person, &r.saved_by_agent) {
            (Some(p), _) => format!("  by person {p}"),
            (None, Some(a)) => format!("  by agent {a}"),
            (None, None) => String::new(),
        };
        out.push_str(&format!(
            "{}  {what}  {when}  {state}{by}  recalled {}×\n",
            r.id, r.recall_count
        ));
        for l in r.text.lines() {
            out.push_str(&format!("    {l}\n"));
        }
        if let Some(reason) = &r.reason {
            out.push_str(&format!("    reason: {reason}\n"));
        }
    }
    if rows.is_empty() {
        out.push_str("(nothing)\n");
    }
    if truncated {
        out.push_str(&format!(
            "{} of {total} (use {}, at most {})\n",
            rows.len(),
            match surface {
                Surface::Cli => "--limit",
                Surface::Mcp => "limit",
                Surface::Http => "?limit=N",
            },
            crate::store::MAX_LIST_LIMIT
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::base64;

    /// The engine is the one the docs promise: standard alphabet, padded
    /// (not URL-safe, not unpadded).
    #[test]
    fn base64_matches_rfc4648_vectors() {
        for (plain, enc) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(base64(plain.as_bytes()), enc);
        }
        assert_eq!(base64(&[0xff, 0xfe, 0x00]), "//4A");
        assert_eq!(base64(&[0xfb, 0xff]), "+/8=");
    }
}
