//! The guard's visitors of the store's answer types: each text field read
//! back from the files (an entry, a day line, a metadata value, a run
//! record's field, a result's header, a review's report, …) passes the
//! scanner; a flagged one is its `[BLOCKED: …]` placeholder naming where it
//! is. Ids, dates and counts stay, so the caller can still remove what was
//! blocked.
//!
//! Pure: no I/O.

use super::{all, lines, opt, text};
use crate::model::{Origin, Scope};
use crate::scan;
use crate::store::{
    FactRow, ResultMeta, ResultStep, RunHit, RunRecord, RunView, Skill, StoreView, TaskResult,
};

/// An entry's text as a store view shows it: its placeholder when flagged,
/// else the snapshot's escaping ([`crate::snapshot::display_text`]).
pub(super) fn entry_text(t: &mut String, scope: Scope, id: &str) {
    let findings = scan::scan(t);
    *t = if findings.is_empty() {
        crate::snapshot::display_text(t)
    } else {
        scan::blocked_placeholder(scope, id, &findings)
    };
}

pub(super) fn store(mut v: StoreView) -> StoreView {
    for e in &mut v.entries {
        let findings = scan::scan(&e.text);
        if !findings.is_empty() {
            e.text = scan::blocked_placeholder(v.scope, &e.id, &findings);
        }
        opt(&mut e.by, &format!("the by= of {}", e.id));
        opt(&mut e.created, &format!("the created= of {}", e.id));
        opt(&mut e.expires, &format!("the expires= of {}", e.id));
        all(&mut e.warnings, &format!("the warning of {}", e.id));
    }
    all(&mut v.warnings, &format!("the warning of {}", v.file));
    v
}

/// The One API's store view and recall entries.
pub(super) fn store_view(v: &mut crate::api::servers::StoreMarkdown) {
    for e in &mut v.entries {
        entry_text(&mut e.text, e.scope, &e.id);
    }
}

pub(super) fn entry_out(e: &mut crate::api::servers::EntryOut) {
    let findings = scan::scan(&e.text);
    if !findings.is_empty() {
        e.text = scan::blocked_placeholder(e.scope, &e.id, &findings);
    }
}

/// An entry a failed write lists.
pub(super) fn brief(b: &mut crate::error::EntryBrief) {
    text(&mut b.text, &format!("{} entry {}", b.file, b.id));
}

pub(super) fn row(mut r: FactRow) -> FactRow {
    let what = match r.scope {
        Origin::Day => format!("episodes.md {}", r.id),
        Origin::Memory => format!("MEMORY.md entry {}", r.id),
        Origin::User => format!("USER.md entry {}", r.id),
    };
    match r.scope {
        Origin::Day => lines(&mut r.text, &what),
        Origin::Memory | Origin::User => text(&mut r.text, &what),
    }
    let id = r.id.clone();
    opt(&mut r.reason, &format!("the archive reason of {id}"));
    text(&mut r.agent, &format!("the agent= of {id}"));
    opt(&mut r.run, &format!("the run= of {id}"));
    opt(&mut r.task, &format!("the task= of {id}"));
    opt(&mut r.saved_by_agent, &format!("the agent= of {id}"));
    opt(&mut r.person, &format!("the person= of {id}"));
    opt(&mut r.supersedes, &format!("the supersedes= of {id}"));
    opt(&mut r.superseded_by, &format!("the superseded_by= of {id}"));
    r
}

pub(super) fn hit(mut h: RunHit) -> RunHit {
    let what = match &h.time {
        Some(t) => format!("episodes.md line of {} {t}", h.date),
        None => format!("episodes.md line of {}", h.date),
    };
    text(&mut h.text, &what);
    opt(&mut h.time, &format!("the time of {what}"));
    opt(&mut h.task, &format!("the task of {what}"));
    opt(&mut h.run, &format!("the run of {what}"));
    opt(&mut h.workflow, &format!("the workflow of {what}"));
    h
}

pub(super) fn day_line(l: &mut crate::journal::DayLine, what: &str) {
    text(&mut l.text, what);
    lines(&mut l.raw, what);
    opt(&mut l.time, &format!("the time of {what}"));
    opt(&mut l.task, &format!("the task of {what}"));
    opt(&mut l.run, &format!("the run of {what}"));
    opt(&mut l.workflow, &format!("the workflow of {what}"));
}

/// A run record (`.memdir/runs/RUN.json`, a file anyone who writes the
/// folder could forge): every field that is text.
pub(super) fn record(r: &mut RunRecord) {
    let what = format!("the run record {}", r.run_id);
    text(&mut r.run_id, "the run id of a run record");
    text(&mut r.owner, &format!("the owner of {what}"));
    text(
        &mut r.snapshot_sha256,
        &format!("the snapshot_sha256 of {what}"),
    );
    opt(&mut r.task, &format!("the task of {what}"));
    all(&mut r.skills, &format!("the skill of {what}"));
    opt(&mut r.workflow_id, &format!("the workflow_id of {what}"));
    opt(&mut r.session, &format!("the session of {what}"));
    recalls(&mut r.recalls, &what);
}

fn recalls(list: &mut [crate::store::RunRecall], of: &str) {
    for (i, r) in list.iter_mut().enumerate() {
        let what = format!("recall {} of {of}", i + 1);
        lines(&mut r.block, &what);
        opt(&mut r.query, &format!("the query of {what}"));
    }
}

pub(super) fn run(mut v: RunView) -> RunView {
    v.journal = v.journal.into_iter().map(hit).collect();
    let run_id = v.run_id.clone();
    if let Some(snap) = &mut v.snapshot {
        lines(snap, &format!("the snapshot of run {run_id}"));
    }
    if let Some(r) = &mut v.record {
        record(r);
    }
    recalls(&mut v.recalls, &format!("run {run_id}"));
    v.steps.iter_mut().for_each(step);
    text(&mut v.run_id, "the run id");
    v
}

pub(super) fn skill(mut s: Skill) -> Skill {
    let what = format!("skills/{}/SKILL.md", s.name);
    text(&mut s.description, &format!("{what} description"));
    lines(&mut s.body, &what);
    lines(&mut s.text, &what);
    s
}

/// A learning's fields: its text, the reason, who proposed and decided.
pub(super) fn learning(l: &mut crate::store::Learning) {
    let file = match l.status {
        crate::store::LearningStatus::Approved => "LEARNINGS.md",
        crate::store::LearningStatus::Pending
        | crate::store::LearningStatus::Rejected
        | crate::store::LearningStatus::Retired => "learnings/proposals.md",
    };
    let id = l.id.clone();
    text(&mut l.text, &format!("{file} entry {id}"));
    opt(&mut l.reason, &format!("the reason of {id}"));
    opt(&mut l.proposed_by, &format!("the proposed_by of {id}"));
    opt(&mut l.decided_by, &format!("the decided_by of {id}"));
    opt(&mut l.proposal, &format!("the proposal of {id}"));
}

/// A result's header: its content type and the rest of its metadata line.
pub(super) fn meta(m: &mut ResultMeta) {
    let what = format!("result {}/{}", m.workflow_id, m.task_id);
    text(&mut m.content_type, &format!("the content type of {what}"));
    text(&mut m.created_at, &format!("the created_at of {what}"));
    text(&mut m.sha256, &format!("the sha256 of {what}"));
}

pub(super) fn step(st: &mut ResultStep) {
    let what = format!("step {}", st.task_id);
    text(&mut st.task_id, "the task id of a step");
    text(&mut st.content_type, &format!("the content type of {what}"));
    text(&mut st.created_at, &format!("the created_at of {what}"));
    text(&mut st.sha256, &format!("the sha256 of {what}"));
}

/// A SharedMemory result: text content with each flagged span replaced by
/// its placeholder (and `redacted`); JSON and other non-`text/` types
/// byte-exact, so a handoff between tasks never breaks, with the flagged
/// spans beside. Binary content (not text, whatever its type) is bytes,
/// unscanned: the renderers never give it as text. Its header's fields
/// pass the scanner.
pub(super) fn result(mut r: TaskResult) -> TaskResult {
    let what = format!("result {}/{}", r.workflow_id, r.task_id);
    let content_type = r.content_type.clone();
    text(&mut r.content_type, &format!("the content type of {what}"));
    text(&mut r.created_at, &format!("the created_at of {what}"));
    text(&mut r.sha256, &format!("the sha256 of {what}"));
    if !r.kind.is_text() || r.flagged.is_empty() || !is_text(&content_type) {
        return r;
    }
    let Ok(text) = std::str::from_utf8(&r.content) else {
        return r;
    };
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for span in &r.flagged {
        let (Ok(start), Ok(end)) = (usize::try_from(span.start), usize::try_from(span.end)) else {
            continue;
        };
        // The spans come from the store, within the content and in order;
        // one that is not is skipped rather than trusted.
        let (Some(before), Some(_)) = (text.get(at..start), text.get(start..end)) else {
            continue;
        };
        out.push_str(before);
        let ids: Vec<&str> = span.patterns.iter().map(String::as_str).collect();
        out.push_str(&scan::blocked_ids(
            &format!("result {}/{} line {}", r.workflow_id, r.task_id, span.line),
            &ids,
        ));
        at = end;
    }
    out.push_str(text.get(at..).unwrap_or_default());
    r.content = out.into_bytes();
    r.redacted = true;
    r
}

/// Whether a content type is text (`text/…`): its flagged lines are
/// replaced; JSON (`application/json`, `…+json`) and everything else is
/// returned byte-exact.
fn is_text(content_type: &str) -> bool {
    content_type
        .get(..5)
        .is_some_and(|t| t.eq_ignore_ascii_case("text/"))
}

pub(super) fn removed(r: &mut crate::store::ResultsRemoved) {
    all(
        &mut r.removed,
        &format!("a task removed of {}", r.workflow_id),
    );
    all(&mut r.warnings, "the warning");
}

pub(super) fn review(mut r: crate::store::ReviewReport) -> crate::store::ReviewReport {
    use crate::review::Change;
    for c in &mut r.plan.changes {
        match c {
            Change::Archive {
                id,
                scope,
                text: t,
                reason,
                into,
                ..
            } => {
                text(t, &format!("{} entry {id}", scope.file_name()));
                text(reason, &format!("the reason for {id}"));
                opt(into, &format!("the survivor of {id}"));
            }
            Change::Save {
                id,
                scope,
                text: t,
                reason,
                supersedes,
                ..
            } => {
                text(t, &format!("{} entry {id}", scope.file_name()));
                text(reason, &format!("the reason for {id}"));
                opt(supersedes, &format!("the supersedes of {id}"));
            }
            Change::Dedupe {
                id, scope, text: t, ..
            } => text(t, &format!("{} entry {id}", scope.file_name())),
            Change::Lift { id, text: t, .. } => text(t, &format!("MEMORY.md entry {id}")),
            Change::Renew { id, reason, .. } | Change::Settle { id, reason, .. } => {
                text(reason, &format!("the reason for {id}"));
            }
        }
    }
    all(&mut r.plan.unrecalled, "an unrecalled id");
    for u in &mut r.plan.unsettled {
        text(
            &mut u.why,
            &format!("why {} and {} are unsettled", u.ids[0], u.ids[1]),
        );
    }
    for sk in &mut r.plan.skipped {
        text(&mut sk.what, "what the review skipped");
        text(&mut sk.why, "why the review skipped it");
    }
    for (file, diff) in &mut r.diffs {
        lines(diff, &format!("the diff of {file}"));
    }
    all(&mut r.warnings, "the warning of the review");
    if let Some(rv) = &mut r.reviewer {
        opt(&mut rv.error, "the reviewer's error");
        for j in &mut rv.rejected {
            text(
                &mut j.proposal,
                &format!("the reviewer's proposal {}", j.index),
            );
            text(&mut j.why, &format!("why proposal {} was refused", j.index));
        }
    }
    r
}

pub(super) fn undone(u: &mut crate::store::UndoReport) {
    for v in &mut u.vetoed {
        text(&mut v.vetoed, &format!("the veto of {}", v.id));
        opt(&mut v.vetoed_on, &format!("the veto date of {}", v.id));
        text(&mut v.why, &format!("the veto reason of {}", v.id));
    }
    all(&mut u.warnings, "the warning of the undo");
}

/// The routine's state: the last review's report line, the setting.
pub(super) fn routine(r: &mut crate::store::RoutineStatus) {
    opt(&mut r.at, "the review: setting");
    if let Some(last) = &mut r.last {
        text(
            &mut last.report,
            &format!("the report of review {}", last.id),
        );
    }
}

/// One review of the history: its report line, and each change's text,
/// reason and diff.
pub(super) fn history(h: &mut crate::store::ReviewHistoryEntry) {
    text(&mut h.report, &format!("the report of review {}", h.id));
    for c in &mut h.changes {
        let what = format!("{} entry {}", c.file, c.id);
        match c.scope {
            Origin::Day => lines(&mut c.text, &what),
            Origin::Memory | Origin::User => text(&mut c.text, &what),
        }
        opt(&mut c.reason, &format!("the reason for {}", c.id));
        lines(&mut c.diff, &format!("the diff of {}", c.id));
    }
}

pub(super) fn commit(c: &mut crate::store::LogCommit) {
    let what = format!("commit {}", c.commit);
    text(&mut c.message, &format!("the message of {what}"));
    text(&mut c.author, &format!("the author of {what}"));
    text(&mut c.email, &format!("the email of {what}"));
    for ch in &mut c.changes {
        let what = format!("{} entry {}", ch.file, ch.id);
        text(&mut ch.text, &what);
    }
}

pub(super) fn imported(i: &mut crate::store::HermesImport) {
    for f in &mut i.files {
        for e in &mut f.imported {
            let what = format!("{} entry {}", f.file, e.id);
            text(&mut e.text, &what);
        }
        for l in f.skipped.iter_mut().chain(f.refused.iter_mut()) {
            let what = format!("{} entry {} of the import", f.file, l.index);
            text(&mut l.text, &what);
            text(&mut l.reason, &format!("why {what} was left out"));
        }
    }
    all(&mut i.warnings, "the warning of the import");
}

pub(super) fn exported(x: &mut crate::store::HermesExport) {
    for f in &mut x.files {
        for l in &mut f.left_out {
            let what = format!("{} entry {} left out", f.file, l.index);
            text(&mut l.text, &what);
            text(&mut l.reason, &format!("why {what}"));
        }
    }
}

/// What a sync brought in and sent out: each entry's text.
pub(super) fn sync(r: &mut crate::store::SyncReport) {
    for ch in r.incoming.iter_mut().chain(r.outgoing.iter_mut()) {
        for e in ch.added.iter_mut().chain(ch.removed.iter_mut()) {
            let what = format!("{} entry {} of {}", e.store.file_name(), e.id, ch.owner);
            text(&mut e.text, &what);
        }
    }
    opt(&mut r.remote, "the remote");
    text(&mut r.branch, "the branch");
}

/// `check`'s findings: a message may quote what a file holds.
pub(super) fn check(r: &mut crate::store::CheckReport) {
    for f in &mut r.findings {
        let at = f.line.map(|l| format!(" line {l}")).unwrap_or_default();
        let what = format!("the finding of {}{at}", f.file);
        text(&mut f.message, &what);
        text(&mut f.hint, &format!("the hint of {what}"));
        opt(&mut f.id, &format!("the id of {what}"));
    }
}

pub(super) fn merged(m: &mut crate::store::MergeFileOutcome) {
    lines(&mut m.merged.text, "the merged file");
}

pub(super) fn snapshot(mut s: crate::snapshot::Snapshot) -> crate::snapshot::Snapshot {
    // Built with placeholders already; a flagged line left (a skill's, a
    // learning's) is replaced too. The hash stays the frozen snapshot's.
    lines(&mut s.text, "the snapshot");
    s
}

pub(super) fn written(w: &mut crate::store::WriteOutcome) {
    outcome(&mut w.outcome);
    all(&mut w.warnings, "the warning of the write");
}

pub(super) fn outcome(o: &mut crate::edit::OpOutcome) {
    let what = format!("{} entry {}", o.scope.file_name(), o.id);
    opt(&mut o.text, &what);
}

pub(super) fn recall(mut r: crate::recall::Recall) -> crate::recall::Recall {
    // Built with placeholders already: what is left is checked again.
    for f in &mut r.facts {
        text(
            &mut f.text,
            &format!("{} entry {}", f.scope.file_name(), f.id),
        );
    }
    for l in &mut r.wiki {
        text(&mut l.text, &format!("LEARNINGS.md entry {}", l.id));
    }
    for d in &mut r.day_log {
        day_line(&mut d.line, &format!("episodes.md line of {}", d.date));
    }
    opt(&mut r.fallback, "the recall's fallback");
    opt(&mut r.model, "the recall's model");
    all(&mut r.conflicts, "a conflict of the recall");
    lines(&mut r.block, "the recall block");
    r
}

pub(super) fn memtool(a: &mut crate::memtool::Answer) {
    lines(&mut a.text, "the memory tool's answer");
}

/// A write that waits for a person's review: its operations' texts and
/// what they name, who asked, and a rejection's reason.
pub(super) fn pending_write(w: &mut crate::store::PendingWrite) {
    let id = w.pending_id.clone();
    for o in &mut w.operations {
        text(&mut o.text, &format!("PENDING.md entry {id}"));
        opt(&mut o.target, &format!("the target of {id}"));
        opt(&mut o.expires, &format!("the expiry of {id}"));
        opt(&mut o.supersedes, &format!("the supersedes of {id}"));
        opt(&mut o.archive, &format!("the archive reason of {id}"));
    }
    opt(&mut w.by, &format!("the by of {id}"));
    opt(&mut w.run, &format!("the run of {id}"));
    opt(&mut w.task, &format!("the task of {id}"));
    opt(&mut w.decided_by, &format!("the decided_by of {id}"));
    opt(&mut w.reason, &format!("the reason of {id}"));
}

/// A person's decision on a waiting write: the write, what it did, and
/// the warnings.
pub(super) fn pending_decision(d: &mut crate::store::PendingDecision) {
    pending_write(&mut d.pending);
    d.results.iter_mut().for_each(outcome);
    all(&mut d.warnings, "the warning");
}
