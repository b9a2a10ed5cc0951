//! Answers as people read them: each [`Response`] as text (a result's
//! bytes as they are).

use super::git::{check_text, log_text, merged_text, synced};
use super::hermes::{exported_text, imported_text};
use super::results::{put_text, steps_text};
use super::review::{history, review, routine, undone};
use super::runs::{day, run, run_hits, runs};
use super::utc;
use crate::api::Response;
use crate::api::errors::Surface;
use crate::edit::OpKind;
use crate::store::{FactRow, Omitted, SkillChange, Status, Transition};

/// An answer as text for a caller on `surface` (its text names that
/// surface's arguments, such as the limit of a list that was cut): each
/// answer to the function of its feature.
pub(super) fn text(response: &Response, surface: Surface) -> Vec<u8> {
    // Exhaustive: a new answer compiles only once it is routed here.
    let text = match response {
        Response::Result(r) => return r.content.clone(),
        Response::Check { .. }
        | Response::Merged { .. }
        | Response::Sync { .. }
        | Response::Log { .. }
        | Response::Init { .. } => git_text(response),
        Response::Day { .. }
        | Response::RunHits { .. }
        | Response::Run { .. }
        | Response::Runs { .. }
        | Response::RunBegun { .. } => runs_text(response),
        Response::Review { .. }
        | Response::ReviewDue { .. }
        | Response::Routine { .. }
        | Response::ReviewHistory { .. }
        | Response::Undone { .. } => review_text(response),
        Response::Written { .. }
        | Response::Batch { .. }
        | Response::Show { .. }
        | Response::Snapshot { .. }
        | Response::Put { .. }
        | Response::Steps { .. }
        | Response::Transition { .. }
        | Response::Renewed { .. }
        | Response::ResultsRemoved { .. }
        | Response::ResultsGc { .. }
        | Response::Rows { .. }
        | Response::Recall { .. } => memory_text(response, surface),
        Response::Skill { .. }
        | Response::Skills { .. }
        | Response::SkillShown { .. }
        | Response::Learning { .. }
        | Response::Learnings { .. }
        | Response::Pending { .. }
        | Response::PendingShown { .. }
        | Response::PendingDecided { .. }
        | Response::Imported { .. }
        | Response::Exported { .. }
        | Response::LoginLink { .. }
        | Response::LoginRedeemed { .. }
        | Response::LoginLinkShown { .. }
        | Response::AgentSummaries { .. }
        | Response::MemoryTool { .. }
        | Response::StoreView { .. }
        | Response::Entries { .. }
        | Response::CurrentEntries { .. } => shared_text(response),
    };
    text.into_bytes()
}

/// The root's git commands and setup as text.
fn git_text(response: &Response) -> String {
    match response {
        Response::Check { reports, .. } => check_text(reports),
        Response::Merged(m) => merged_text(m),
        Response::Sync(r) => synced(r),
        Response::Log(commits) => log_text(commits),
        Response::Init(setup) => init(setup),
        _ => String::new(),
    }
}

/// The day log and runs as text.
fn runs_text(response: &Response) -> String {
    match response {
        Response::Day(d) => day(d),
        Response::RunHits(hits) => run_hits(hits),
        Response::Run(v) => run(v),
        Response::Runs(list) => runs(list),
        Response::RunBegun {
            record, snapshot, ..
        } => format!("{}\n{}", record.run_id, snapshot.text),
        _ => String::new(),
    }
}

/// The daily review as text.
fn review_text(response: &Response) -> String {
    match response {
        Response::Review(r) => review(r),
        Response::ReviewDue(d) => match &d.ran {
            Some(r) => review(r),
            None => format!("no review due\n{}", routine(&d.status)),
        },
        Response::Routine(s) => routine(s),
        Response::ReviewHistory(h) => history(h),
        Response::Undone(u) => undone(u),
        _ => String::new(),
    }
}

/// An owner's stores, their facts' lifecycle, results and recall as text.
fn memory_text(response: &Response, surface: Surface) -> String {
    match response {
        Response::Written(w) => written(w),
        Response::Batch(b) => batch(b),
        Response::Show { stores, .. } => show(stores),
        Response::Snapshot(snap) => snap.text.clone(),
        Response::Put(p) => put_text(p),
        Response::Steps(w) => steps_text(w),
        Response::Transition(t) => transition(t),
        Response::Renewed(r) => renewed(r),
        Response::ResultsRemoved(r) => results_removed(r),
        Response::ResultsGc(g) => results_gc(g),
        Response::Rows { rows, total, .. } => list(rows, *total, surface),
        Response::Recall(r) => recall(r),
        _ => String::new(),
    }
}

/// Skills, learnings, Hermes folders, logins, the memory tool and the
/// servers' views as text.
fn shared_text(response: &Response) -> String {
    match response {
        Response::Skill(o) => skill(o),
        Response::Skills(rows) => skills(rows),
        Response::SkillShown(skill) => skill.text.clone(),
        Response::Learning(o) => format!(
            "{} learning {}: {}\n  LEARNINGS.md: {}\n",
            o.message,
            o.learning.id,
            crate::edit::one_line(&o.learning.text, 200),
            o.usage.text
        ),
        Response::Learnings(l) => learnings_text(l),
        Response::Pending(l) => super::pending::list(l),
        Response::PendingShown(w) => super::pending::write(w),
        Response::PendingDecided(d) => super::pending::decided(d),
        Response::Imported(i) => imported_text(i),
        Response::Exported(x) => exported_text(x),
        Response::LoginLink(l) => format!(
            "{}\n(a one-time login link for person {}, good until {}; kept as its SHA-256 only)\n",
            l.token,
            l.person,
            l.expires.format("%Y-%m-%d %H:%M:%S UTC")
        ),
        Response::LoginRedeemed { person } => format!("logged in as person {person}\n"),
        Response::LoginLinkShown { person, expires } => format!(
            "a login link for person {person}, good until {}\n",
            expires.format("%Y-%m-%d %H:%M:%S UTC")
        ),
        Response::AgentSummaries(page) => crate::api::summaries::summaries_text(page),
        Response::MemoryTool(a) => format!("{}\n", a.text.trim_end_matches('\n')),
        Response::StoreView(v) => store_markdown(v),
        Response::Entries(entries) => entries_text(entries),
        Response::CurrentEntries(list) => current_entries(list, None),
        _ => String::new(),
    }
}

/// `init`: the root made ready, and what changed.
fn init(setup: &crate::store::Setup) -> String {
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
}

/// A batch: a sentence per operation ("added mem_… to MEMORY.md"), then
/// each store's usage; a batch that waits for a person's review says so
/// first.
fn batch(b: &crate::store::BatchOutcome) -> String {
    let mut s = String::new();
    if let Some(id) = &b.pending_id {
        s.push_str(&super::pending::waits(id, b.results.len()));
    }
    for (i, r) in b.results.iter().enumerate() {
        let (what, prep) = match r.op {
            _ if r.message.pending() => (r.op.as_str(), "in"),
            OpKind::Remove => ("removed", "from"),
            OpKind::Replace => ("replaced", "in"),
            OpKind::Add => (r.message.as_str(), "to"),
        };
        let what = match r.message.pending() {
            true => format!("pending {what}"),
            false => what.to_owned(),
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
}

/// `show`: each store's entries with their ids, marks and warnings.
fn show(stores: &[crate::store::StoreView]) -> String {
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
                Some(Omitted::Expired) => "  [expired: not in the snapshot, frees nothing]",
                Some(Omitted::Blocked) => "  [blocked: the snapshot shows a placeholder]",
                Some(Omitted::OverBudget) => "  [over budget: left out of the snapshot]",
                None => "",
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
}

/// A fact renewed: its store and its expiry now.
fn renewed(r: &crate::store::Renewed) -> String {
    let until = r
        .expires
        .as_deref()
        .and_then(|e| chrono::DateTime::parse_from_rfc3339(e).ok())
        .map_or("never expires".to_owned(), |t| {
            format!("expires {}", utc(&t.with_timezone(&chrono::Utc)))
        });
    format!("renewed {} in {}: {until}\n", r.id, r.scope.file_name())
}

/// The workflows a results' collection removed.
fn results_gc(g: &crate::store::ResultsGc) -> String {
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
}

/// A skill learned or forgotten.
fn skill(o: &crate::store::SkillOutcome) -> String {
    match o.message {
        SkillChange::Forgot => format!("Forgot skill {}.\n", o.name),
        SkillChange::Saved | SkillChange::Replaced | SkillChange::AlreadyStored => format!(
            "{} skill {} in {} ({} bytes)\n",
            o.message,
            o.name,
            o.path,
            o.bytes.unwrap_or(0)
        ),
    }
}

/// The owner's skills, one a line with its description.
fn skills(rows: &[crate::store::SkillRow]) -> String {
    if rows.is_empty() {
        return "No learned skills yet.\n".into();
    }
    rows.iter()
        .map(|r| {
            if r.description.is_empty() {
                format!("- {}\n", r.name)
            } else {
                format!("- {} — {}\n", r.name, r.description)
            }
        })
        .collect()
}

/// A recall's block, then each fact's score (after the block: a run
/// receives the block alone).
fn recall(r: &crate::recall::Recall) -> String {
    if r.skipped {
        return "(skipped: this session already recalled in the last 24 hours)\n".into();
    }
    let mut out = String::new();
    if let Some(f) = &r.fallback {
        out.push_str(&format!("note: {f}\n"));
    }
    out.push_str(&r.block);
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
}

/// Entries with their ids, one a line.
fn entries_text(entries: &[crate::api::servers::EntryOut]) -> String {
    let mut out = String::new();
    for e in entries {
        out.push_str(&format!("{}  {}\n", e.id, e.text.replace('\n', " ")));
    }
    if entries.is_empty() {
        out.push_str("No memory recorded yet.\n");
    }
    out
}

/// A write as a sentence: what was added, replaced or removed, and the
/// store's usage.
fn written(w: &crate::store::WriteOutcome) -> String {
    let o = &w.outcome;
    let file = o.scope.file_name();
    if let Some(id) = &w.pending_id {
        return format!(
            "{}  {} {} in {file} once approved ({} now)\n",
            super::pending::waits(id, 1),
            o.op,
            o.id,
            w.usage.text
        );
    }
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

/// A memory archived, brought back, vetoed or settled.
fn transition(t: &Transition) -> String {
    match t.status {
        Status::Active if t.message.settled() => {
            format!(
                "{} {}: settled, it stays in the snapshot\n",
                t.message, t.id
            )
        }
        Status::Active => format!("{} {}: it is active again\n", t.message, t.id),
        Status::Archived => format!("{} {}: it is out of the snapshot\n", t.message, t.id),
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
