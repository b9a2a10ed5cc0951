//! Answers as people read them: each [`Response`] as text (a result's
//! bytes as they are).

use super::git::{check_text, merged_text, synced};
use super::hermes::{exported_text, imported_text};
use super::results::{put_text, steps_text};
use super::{utc, utc_text};
use crate::api::Response;
use crate::api::errors::Surface;
use crate::edit::OpKind;
use crate::journal::MAX_DAY_CHARS;
use crate::store::{DayOutcome, FactRow, Status, Transition};

/// An answer as text for a caller on `surface` (its text names that
/// surface's arguments, such as the limit of a list that was cut).
pub(super) fn text(response: &Response, surface: Surface) -> Vec<u8> {
    let text = |s: String| s.into_bytes();
    match response {
        Response::Check { reports, .. } => text(check_text(reports)),
        Response::Merged(m) => text(merged_text(m)),
        Response::Sync(r) => text(synced(r)),
        Response::Log(commits) => text({
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
        Response::Init(setup) => text({
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
        Response::Written(w) => text(written(w)),
        Response::Batch(b) => text({
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
        }),
        Response::Show { stores, .. } => text({
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
        Response::Snapshot(snap) => text(snap.text.clone()),
        Response::RunBegun {
            record, snapshot, ..
        } => text(format!("{}\n{}", record.run_id, snapshot.text)),
        Response::Day(d) => text(day(d)),
        Response::RunHits(hits) => text({
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
        Response::Run(v) => text({
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
            for (i, r) in v.recalls.iter().enumerate() {
                let query = r.query.as_deref().unwrap_or("(no query)");
                let cut = if r.truncated { ", cut" } else { "" };
                out.push_str(&format!(
                    "recall {} at {}: {query}{cut}\n{}\n",
                    i + 1,
                    utc(&r.at),
                    r.block
                ));
            }
            if v.recalls_left_out > 0 {
                out.push_str(&format!(
                    "recalls not kept (past the bound): {}\n",
                    v.recalls_left_out
                ));
            }
            if let Some(snap) = &v.snapshot {
                out.push_str("snapshot it began with:\n");
                out.push_str(snap);
            }
            out
        }),
        Response::Runs(runs) => text({
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
        Response::Put(p) => text(put_text(p)),
        Response::Result(r) => r.content.clone(),
        Response::Steps(w) => text(steps_text(w)),
        Response::Transition(t) => text(transition(t)),
        Response::Renewed(r) => text({
            let until = r
                .expires
                .as_deref()
                .and_then(|e| chrono::DateTime::parse_from_rfc3339(e).ok())
                .map_or("never expires".to_owned(), |t| {
                    format!("expires {}", utc(&t.with_timezone(&chrono::Utc)))
                });
            format!("renewed {} in {}: {until}\n", r.id, r.scope.file_name())
        }),
        Response::ResultsRemoved(r) => text(results_removed(r)),
        Response::ResultsGc(g) => text({
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
        }),
        Response::Rows { rows, total, .. } => text(list(rows, *total, surface)),
        Response::Review(r) => text(review(r)),
        Response::ReviewDue(d) => match &d.ran {
            Some(r) => text(review(r)),
            None => text(format!("no review due\n{}", routine(&d.status))),
        },
        Response::Routine(s) => text(routine(s)),
        Response::ReviewHistory(h) => text(history(h)),
        Response::Undone(u) => text({
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
            for v in &u.vetoed {
                out.push_str(&format!("  not brought back: {} ({})\n", v.id, v.why));
            }
            out
        }),
        Response::Skill(o) => text(if o.message == "forgot" {
            format!("Forgot skill {}.\n", o.name)
        } else {
            format!(
                "{} skill {} in {} ({} bytes)\n",
                o.message,
                o.name,
                o.path,
                o.bytes.unwrap_or(0)
            )
        }),
        Response::Skills(rows) => text(if rows.is_empty() {
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
        Response::SkillShown(skill) => text(skill.text.clone()),
        Response::Learning(o) => text(format!(
            "{} learning {}: {}\n  LEARNINGS.md: {}\n",
            o.message,
            o.learning.id,
            crate::edit::one_line(&o.learning.text, 200),
            o.usage.text
        )),
        Response::Learnings(l) => text(learnings_text(l)),
        Response::Imported(i) => text(imported_text(i)),
        Response::Exported(x) => text(exported_text(x)),
        Response::Recall(r) => text(if r.skipped {
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
        Response::LoginLink(l) => text(format!(
            "{}\n(a one-time login link for person {}, good until {}; kept as its SHA-256 only)\n",
            l.token,
            l.person,
            l.expires.format("%Y-%m-%d %H:%M:%S UTC")
        )),
        Response::LoginRedeemed { person } => text(format!("logged in as person {person}\n")),
        Response::LoginLinkShown { person, expires } => text(format!(
            "a login link for person {person}, good until {}\n",
            expires.format("%Y-%m-%d %H:%M:%S UTC")
        )),
        Response::AgentSummaries(page) => text(crate::api::summaries::summaries_text(page)),
        Response::MemoryTool(a) => text(format!("{}\n", a.text.trim_end_matches('\n'))),
        Response::StoreView(v) => text(store_markdown(v)),
        Response::Entries(entries) => text({
            let mut out = String::new();
            for e in entries {
                out.push_str(&format!("{}  {}\n", e.id, e.text.replace('\n', " ")));
            }
            if entries.is_empty() {
                out.push_str("No memory recorded yet.\n");
            }
            out
        }),
        Response::CurrentEntries(list) => text(current_entries(list, None)),
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

/// Every review, newest first: its line, then each change the files still
/// record with its diff.
fn history(h: &crate::store::ReviewHistory) -> String {
    use crate::model::fmt_time;
    if h.reviews.is_empty() {
        return "no review yet\n".to_owned();
    }
    let mut out = String::new();
    for r in &h.reviews {
        out.push_str(&format!(
            "{} at {}{}: {}\n",
            r.id,
            fmt_time(r.at),
            if r.undone { " (undone)" } else { "" },
            r.report
        ));
        for c in &r.changes {
            let kind = c.kind.name();
            let why = c
                .archive_kind
                .map_or(String::new(), |k| format!(" ({})", k.name()));
            out.push_str(&format!("  {kind}{why} {} in {}\n", c.id, c.file));
            for l in c.diff.lines() {
                out.push_str(&format!("    {l}\n"));
            }
            if c.diff_cut {
                out.push_str("    (diff cut)\n");
            }
        }
        if r.changes_total > r.changes.len() {
            out.push_str(&format!(
                "  … and {} more\n",
                r.changes_total - r.changes.len()
            ));
        }
    }
    out
}

/// A review's plan: each change with its reason, what is left and listed,
/// and (dry run) a diff of each file.
fn review(r: &crate::store::ReviewReport) -> String {
    use crate::review::Change;
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

/// A write as a sentence: what was added, replaced or removed, and the
/// store's usage.
fn written(w: &crate::store::WriteOutcome) -> String {
    let o = &w.outcome;
    let file = o.scope.file_name();
    match o.op {
        OpKind::Add => {
            let mut out = format!("{} {} in {file} ({})\n", o.message, o.id, w.usage.text);
            for id in &w.archived {
                out.push_str(&format!("archived {id}\n"));
            }
            out
        }
        OpKind::Replace => format!(
            "{} {} -> {} in {file} ({})\n",
            o.message,
            o.old_id.as_deref().unwrap_or_default(),
            o.id,
            w.usage.text
        ),
        OpKind::Remove => format!("removed {} from {file} ({})\n", o.id, w.usage.text),
    }
}

/// A line appended to the day log, and how full the day is.
fn day(o: &DayOutcome) -> String {
    format!(
        "appended to {} ({}): {} ({}/{MAX_DAY_CHARS} chars)\n",
        o.date, o.id, o.line.raw, o.chars
    )
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

/// A memory archived, brought back or vetoed.
fn transition(t: &Transition) -> String {
    match t.status {
        "active" if t.message.starts_with("kept ") => {
            format!(
                "{} {}: settled, it stays in the snapshot\n",
                t.message, t.id
            )
        }
        "active" => format!("{} {}: it is active again\n", t.message, t.id),
        _ => format!("{} {}: it is out of the snapshot\n", t.message, t.id),
    }
}

/// The rows of a list, and how to see more where the limit cut it.
fn list(rows: &[FactRow], total: usize, surface: Surface) -> String {
    let truncated = total > rows.len();
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

/// `memdir learnings`: the approved learnings, then the proposals.
fn learnings_text(l: &crate::store::LearningsList) -> String {
    let mut out = format!("LEARNINGS.md ({}):\n", l.usage.text);
    if l.approved.is_empty() {
        out.push_str("  (none approved yet)\n");
    }
    for a in &l.approved {
        out.push_str(&format!(
            "  {} {}\n",
            a.id,
            crate::edit::one_line(&a.text, 200)
        ));
    }
    if !l.proposals.is_empty() {
        out.push_str("Proposals:\n");
    }
    for p in &l.proposals {
        let by = p.proposed_by.as_deref().unwrap_or("unknown");
        let reason = p
            .reason
            .as_ref()
            .map(|r| format!(" ({})", crate::edit::one_line(r, 120)))
            .unwrap_or_default();
        out.push_str(&format!(
            "  {} [{}] by {by}{reason}: {}\n",
            p.id,
            p.status.name(),
            crate::edit::one_line(&p.text, 200)
        ));
    }
    out
}

/// A store as a reader sees it: its entries as a markdown list under the
/// store's heading (the MCP resources, `remember`'s read).
pub(crate) fn store_markdown(v: &crate::api::servers::StoreMarkdown) -> String {
    let mut out = format!("## {}\n", v.scope.file_name());
    for e in &v.entries {
        out.push_str(&format!("- {}\n", e.text.replace('\n', "\n  ")));
    }
    if v.entries.is_empty() {
        out.push_str("(no entries)\n");
    }
    out
}

/// The current entries a failed write lists, of one store or both.
pub(crate) fn current_entries(
    list: &[(crate::model::Scope, crate::error::EntryBrief)],
    only: Option<crate::model::Scope>,
) -> String {
    let mut out = String::new();
    for scope in crate::model::Scope::ALL {
        if only.is_some_and(|o| o != scope) {
            continue;
        }
        out.push_str(&format!("Current entries of {}:\n", scope.file_name()));
        let mut any = false;
        for (_, e) in list.iter().filter(|(s, _)| *s == scope) {
            any = true;
            out.push_str(&format!("- {}  {}\n", e.id, e.text.replace('\n', " ")));
        }
        if !any {
            out.push_str("(no entries)\n");
        }
    }
    out
}
