//! Answers as people and programs read them: text, or one line of JSON.
//!
//! Each [`Response`] renders to the bytes for standard output and the
//! warnings for standard error ([`Rendered`]); each error to the text of
//! standard error or the JSON object of standard output.

use base64::Engine as _;
use serde_json::{Map, Value, json};

use super::Response;
use super::errors::{ErrorBody, Surface};
use crate::edit::OpKind;
use crate::error::Error;
use crate::journal::MAX_DAY_CHARS;
use crate::model::time::micros;
use crate::snapshot::Snapshot;
use crate::store::{
    DayOutcome, FactRow, PutOutcome, ResultMeta, Status, TaskResult, Transition, WorkflowResults,
};

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

/// `check`'s answer: one line per finding (or one JSON object), and exit 1
/// when an error, or with `strict` a warning, was found.
fn check(reports: &[crate::store::CheckReport], strict: bool, json: bool) -> Rendered {
    use crate::store::Severity;
    let errors: usize = reports.iter().map(|r| r.count(Severity::Error)).sum();
    let warnings: usize = reports.iter().map(|r| r.count(Severity::Warning)).sum();
    let out = if json {
        line(&json!({
            "reports": reports,
            "errors": errors,
            "warnings": warnings,
            "strict": strict,
        }))
    } else {
        let mut out = String::new();
        for f in reports.iter().flat_map(|r| &r.findings) {
            let severity = match f.severity {
                Severity::Error => "error",
                Severity::Warning => "warning",
            };
            let at = f.line.map(|l| format!(":{l}")).unwrap_or_default();
            let id = f.id.as_ref().map(|i| format!(" {i}")).unwrap_or_default();
            out.push_str(&format!(
                "{severity}[{}] {}{at}{id}: {}\n  hint: {}\n",
                f.kind, f.file, f.message, f.hint
            ));
        }
        let plural = |n: usize, what: &str| format!("{n} {what}{}", if n == 1 { "" } else { "s" });
        out.push_str(&format!(
            "{}, {} in {}\n",
            plural(errors, "error"),
            plural(warnings, "warning"),
            plural(reports.len(), "owner")
        ));
        out
    };
    let mut r = Rendered::text(out);
    if errors > 0 || (strict && warnings > 0) {
        r.exit = 1;
    }
    r
}

/// `merge-file`'s answer: what was merged and what is left; exit 1 when
/// conflict markers are left in the file (git then reports a conflict).
fn merged(m: &crate::store::MergeFileOutcome, json: bool) -> Rendered {
    use crate::merge::{Conflict, Kind};
    let kind = match m.kind {
        Kind::Store(scope) => scope.file_name(),
        Kind::Archive => "archive.md",
        Kind::Episodes => "episodes.md",
        Kind::Text => "text",
    };
    let (entries, text): (Vec<&Conflict>, Vec<&Conflict>) = m
        .merged
        .conflicts
        .iter()
        .partition(|c| matches!(c, Conflict::Entry { .. }));
    let out = if json {
        let conflicts: Vec<Value> = m
            .merged
            .conflicts
            .iter()
            .map(|c| match c {
                Conflict::Entry { base, ours, theirs } => {
                    json!({"kind": "entry", "base": base, "ours": ours, "theirs": theirs})
                }
                Conflict::Text {
                    first_line,
                    last_line,
                } => json!({"kind": "text", "first_line": first_line, "last_line": last_line}),
            })
            .collect();
        line(&json!({
            "file": m.ours.display().to_string(),
            "merged_as": kind,
            "clean": m.merged.is_clean(),
            "conflicts": conflicts,
        }))
    } else {
        let mut out = format!(
            "merged {} as {kind}: {}\n",
            m.ours.display(),
            if m.merged.is_clean() {
                "clean"
            } else {
                "conflict markers left"
            }
        );
        for c in entries.iter().chain(&text) {
            out.push_str(&format!("  {}\n", c.describe()));
        }
        if !entries.is_empty() {
            out.push_str(
                "  both versions are kept with conflict=<id>; `memdir check` lists them\n",
            );
        }
        out
    };
    let mut r = Rendered::text(out);
    if !m.merged.is_clean() {
        r.exit = 1;
    }
    r
}

/// `sync`'s answer as text: what it did, then per owner the entries that
/// came in and went out, each with its text cut to a line.
fn synced(r: &crate::store::SyncReport) -> String {
    let mut out = match &r.remote {
        Some(remote) => format!(
            "synced with {remote}/{}: {}{}{}\n",
            r.branch,
            if r.committed { "committed, " } else { "" },
            if r.merged { "merged, " } else { "" },
            if r.pushed {
                "pushed"
            } else {
                "nothing to push"
            },
        ),
        None => format!(
            "{} on {}; no remote to sync with (add one: `git remote add origin URL`)\n",
            if r.committed {
                "committed"
            } else {
                "nothing to commit"
            },
            r.branch
        ),
    };
    if r.retries > 0 {
        out.push_str(&format!("  the push was retried {} times\n", r.retries));
    }
    for (way, list) in [("came in", &r.incoming), ("went out", &r.outgoing)] {
        for c in list {
            out.push_str(&format!(
                "  {way} for {}: {} added, {} removed\n",
                c.owner,
                c.added.len(),
                c.removed.len()
            ));
            for (sign, entries) in [('+', &c.added), ('-', &c.removed)] {
                for e in entries {
                    out.push_str(&format!(
                        "    {sign} {} ({})  {}\n",
                        e.id,
                        e.store.file_name(),
                        e.text
                    ));
                }
            }
        }
    }
    if r.cut {
        out.push_str("  (more changed than listed: `memdir log` shows each commit)\n");
    }
    out
}

/// A change `watch` saw, with what `check` finds in the file now.
pub fn watch_event(
    c: &crate::store::WatchedChange,
    findings: &[crate::store::Finding],
    json: bool,
) -> String {
    let now = chrono::Utc::now();
    if json {
        let at = crate::model::fmt_time(now);
        return line(&json!({
            "at": at,
            "owner": c.owner,
            "file": c.file,
            "removed": c.removed,
            "findings": findings,
        }));
    }
    let what = if c.removed { "removed" } else { "changed" };
    let at = utc(&now);
    let mut out = format!(
        "{at} {}/{} {what} (not by memdir): {}\n",
        c.owner,
        c.file,
        match findings.len() {
            0 => "clean".to_owned(),
            1 => "1 finding".to_owned(),
            n => format!("{n} findings"),
        }
    );
    for f in findings {
        let severity = match f.severity {
            crate::store::Severity::Error => "error",
            crate::store::Severity::Warning => "warning",
        };
        let line_no = f.line.map(|l| format!(":{l}")).unwrap_or_default();
        let id = f.id.as_ref().map(|i| format!(" {i}")).unwrap_or_default();
        out.push_str(&format!(
            "  {severity}[{}] {}{line_no}{id}: {}\n    hint: {}\n",
            f.kind, f.file, f.message, f.hint
        ));
    }
    out
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

/// A result's metadata as the fields of a JSON object.
fn meta_fields(meta: &ResultMeta) -> Map<String, Value> {
    match serde_json::to_value(meta) {
        Ok(Value::Object(m)) => m,
        _ => Map::new(),
    }
}

fn put(out: &PutOutcome, json: bool) -> String {
    let r = &out.result;
    if json {
        let mut o = meta_fields(r);
        o.insert("message".into(), json!(out.status.message()));
        o.insert("status".into(), json!(out.status));
        o.insert("warnings".into(), json!(out.warnings));
        line(&o)
    } else {
        format!(
            "{} {}/{} ({} bytes, {}, sha256 {})\n",
            out.status.message(),
            r.workflow_id,
            r.task_id,
            r.bytes,
            r.content_type,
            r.sha256
        )
    }
}

fn steps(w: &WorkflowResults, json: bool) -> String {
    if json {
        return line(&json!({
            "workflow_id": w.workflow_id,
            "steps": w.steps,
            "warnings": w.warnings,
        }));
    }
    let total: u64 = w.steps.iter().map(|s| s.bytes).sum();
    let mut out = format!(
        "{}: {} result(s), {total} bytes\n",
        w.workflow_id,
        w.steps.len()
    );
    for s in &w.steps {
        out.push_str(&format!(
            "  {}  {}  {} bytes  {}  sha256 {}\n",
            s.task_id,
            s.content_type,
            s.bytes,
            utc_text(&s.created_at),
            s.sha256
        ));
    }
    out
}

/// A result: its raw bytes, or the JSON object (`content` when UTF-8, else
/// `null` with the bytes in `content_base64`, standard alphabet, padded).
fn result(r: &TaskResult, json: bool) -> Rendered {
    if !json {
        return Rendered {
            stdout: r.content.clone(),
            warnings: Vec::new(),
            exit: 0,
        };
    }
    let (content, b64) = match std::str::from_utf8(&r.content) {
        Ok(s) => (json!(s), None),
        Err(_) => (Value::Null, Some(base64(&r.content))),
    };
    let mut o = meta_fields(&r.meta());
    o.insert("content".into(), content);
    if let Some(b) = b64 {
        o.insert("content_base64".into(), json!(b));
    }
    Rendered::text(line(&o))
}

/// Standard base64: RFC 4648 alphabet (`+`, `/`), padded with `=`.
pub fn base64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// An error as one line of JSON: `{"error":{"code","status","message",…}}`.
pub fn error_json(e: &Error) -> String {
    line(&json!({ "error": ErrorBody::of(e, Surface::Cli) }))
}

/// One entry's text on one line, shortened.
fn one_line(text: &str) -> String {
    let one: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if one.chars().count() <= 70 {
        one
    } else {
        format!("{}...", one.chars().take(67).collect::<String>())
    }
}

/// `import hermes`: per file, what went in, what was skipped and what was
/// refused with its reason.
fn imported_text(i: &crate::store::HermesImport) -> String {
    let verb = if i.dry_run {
        "would import"
    } else {
        "imported"
    };
    let mut out = String::new();
    if i.dry_run {
        out.push_str("dry run: nothing written\n");
    }
    for f in &i.files {
        let usage = f
            .usage
            .as_ref()
            .map(|u| format!(" ({})", u.text))
            .unwrap_or_default();
        let what = match f.status {
            "refused" => format!("refused, nothing {verb}"),
            "unchanged" => "nothing new".to_owned(),
            _ => format!("{verb} {} of {} entries", f.imported.len(), f.entries),
        };
        out.push_str(&format!("{}: {what}{usage}\n", f.file));
        for e in &f.imported {
            out.push_str(&format!("  + {}  {}\n", e.id, one_line(&e.text)));
        }
        for s in &f.skipped {
            out.push_str(&format!(
                "  = #{} {} ({})\n",
                s.index,
                one_line(&s.text),
                s.reason
            ));
        }
        for r in &f.refused {
            out.push_str(&format!(
                "  ! #{} {} [{}] {}\n",
                r.index,
                one_line(&r.text),
                r.code,
                r.reason
            ));
        }
        for a in &f.archived {
            out.push_str(&format!("  archived {a} to make room\n"));
        }
    }
    out
}

/// `export --format hermes`: per file, how many entries and what was left
/// out.
fn exported_text(x: &crate::store::HermesExport) -> String {
    let verb = if x.dry_run { "would write" } else { "wrote" };
    let mut out = String::new();
    for f in &x.files {
        out.push_str(&format!(
            "{verb} {}/{}: {} entries, {} bytes{}\n",
            x.dir,
            f.file,
            f.entries,
            f.bytes,
            if f.replaced { " (replaced)" } else { "" }
        ));
        for l in &f.left_out {
            out.push_str(&format!(
                "  left out #{} {} ({}: {})\n",
                l.index,
                one_line(&l.text),
                l.code,
                l.reason
            ));
        }
    }
    out
}

/// An error's first line, `error[code]: message`, without the entries a
/// refused write lists after it (a surface that lists them in a form of its
/// own starts from this).
pub fn error_head(e: &Error, surface: Surface) -> String {
    format!(
        "error[{}]: {}\n",
        e.code(),
        super::errors::message(e, surface)
    )
}

/// An error as text: `error[code]: message`, then the current entries where
/// the error lists them (so the caller can retry with an exact id).
pub fn error_text(e: &Error, surface: Surface) -> String {
    let mut msg = error_head(e, surface);
    if let Error::OverBudget { entries, .. } | Error::NotFound { entries, .. } = e {
        // The entries of both stores (nothing was named) under their file.
        let both = entries.iter().any(|b| b.file != entries[0].file);
        for (i, b) in entries.iter().enumerate() {
            if both && (i == 0 || entries[i - 1].file != b.file) {
                msg.push_str(&format!("  {}:\n", b.file));
            }
            let mark = if b.expired {
                "  [expired: removing it frees nothing]"
            } else {
                ""
            };
            msg.push_str(&format!(
                "  {}  {}{mark}\n",
                b.id,
                b.text.replace('\n', "\n                    ")
            ));
        }
    }
    msg
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
