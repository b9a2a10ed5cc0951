//! The egress rule: every answer the interface gives passes the scanner on
//! its way out, so nothing the scanner flags reaches a model's context by
//! any channel. A flagged entry, day line, run line, skill line or diff line
//! is replaced by the `[BLOCKED: …]` placeholder naming where it is and
//! what it matched; ids, dates and counts stay, so the caller can still
//! remove what was blocked. Only a person asking for it on purpose
//! (`--raw`, `?raw=true`) gets an answer as it is ([`super::execute`]).
//!
//! The recall block and the snapshot are built with placeholders already;
//! the answers of a write echo text the write path scanned. What is left is
//! text read back from the files, which anyone who can write the memory
//! folder may have written: this module guards those answers.
//!
//! Pure: no I/O.

use crate::model::Origin;
use crate::scan;
use crate::store::{FactRow, RunHit, RunView, Skill, StoreView, TaskResult};

use super::Response;

/// `response` with every flagged text replaced by its placeholder.
pub(crate) fn guard(response: Response) -> Response {
    match response {
        Response::Show { owner, stores } => Response::Show {
            owner,
            stores: stores.into_iter().map(store).collect(),
        },
        Response::Rows { rows, total, limit } => Response::Rows {
            rows: rows.into_iter().map(row).collect(),
            total,
            limit,
        },
        Response::RunHits(hits) => Response::RunHits(hits.into_iter().map(hit).collect()),
        Response::Run(view) => Response::Run(run(view)),
        Response::SkillShown(s) => Response::SkillShown(skill(s)),
        Response::Skills(mut rows) => {
            for r in &mut rows {
                let what = format!("skills/{}/SKILL.md description", r.name);
                guard_text(&mut r.description, &what);
            }
            Response::Skills(rows)
        }
        Response::Learning(mut o) => {
            learning(&mut o.learning);
            Response::Learning(o)
        }
        Response::Learnings(mut l) => {
            l.approved.iter_mut().for_each(learning);
            l.proposals.iter_mut().for_each(learning);
            Response::Learnings(l)
        }
        Response::Log(mut commits) => {
            for c in &mut commits {
                let what = format!("the message of commit {}", c.commit);
                guard_text(&mut c.message, &what);
                for ch in &mut c.changes {
                    let what = format!("{} entry {}", ch.file, ch.id);
                    guard_text(&mut ch.text, &what);
                }
            }
            Response::Log(commits)
        }
        Response::Result(r) => Response::Result(result(r)),
        Response::Review(r) => Response::Review(review(r)),
        Response::ReviewDue(mut d) => {
            d.ran = d.ran.map(review);
            Response::ReviewDue(d)
        }
        Response::Imported(mut i) => {
            for f in &mut i.files {
                for e in &mut f.imported {
                    let what = format!("{} entry {}", f.file, e.id);
                    guard_text(&mut e.text, &what);
                }
                for l in f.skipped.iter_mut().chain(f.refused.iter_mut()) {
                    let what = format!("{} entry {} of the import", f.file, l.index);
                    guard_text(&mut l.text, &what);
                }
            }
            Response::Imported(i)
        }
        Response::Exported(mut x) => {
            for f in &mut x.files {
                for l in &mut f.left_out {
                    let what = format!("{} entry {} left out", f.file, l.index);
                    guard_text(&mut l.text, &what);
                }
            }
            Response::Exported(x)
        }
        other => other,
    }
}

/// Replaces `text` by its placeholder when the scanner flags it.
fn guard_text(text: &mut String, what: &str) {
    if let Some(p) = scan::blocked_text(text, what) {
        *text = p;
    }
}

fn learning(l: &mut crate::store::Learning) {
    let file = match l.status {
        crate::store::LearningStatus::Approved => "LEARNINGS.md",
        _ => "learnings/proposals.md",
    };
    let what = format!("{file} entry {}", l.id);
    guard_text(&mut l.text, &what);
    if let Some(r) = &mut l.reason {
        guard_text(r, &format!("the reason of {}", l.id));
    }
}

fn store(mut v: StoreView) -> StoreView {
    for e in &mut v.entries {
        let findings = scan::scan(&e.text);
        if !findings.is_empty() {
            e.text = scan::blocked_placeholder(v.scope, &e.id, &findings);
        }
    }
    v
}

fn row(mut r: FactRow) -> FactRow {
    let what = match r.scope {
        Origin::Day => format!("episodes.md {}", r.id),
        Origin::Memory => format!("MEMORY.md entry {}", r.id),
        Origin::User => format!("USER.md entry {}", r.id),
    };
    match r.scope {
        Origin::Day => {
            if let Some(p) = scan::blocked_lines(&r.text, &what) {
                r.text = p;
            }
        }
        _ => guard_text(&mut r.text, &what),
    }
    if let Some(reason) = &mut r.reason {
        guard_text(reason, &format!("the archive reason of {}", r.id));
    }
    r
}

fn hit(mut h: RunHit) -> RunHit {
    let what = match &h.time {
        Some(t) => format!("episodes.md line of {} {t}", h.date),
        None => format!("episodes.md line of {}", h.date),
    };
    guard_text(&mut h.text, &what);
    h
}

fn run(mut v: RunView) -> RunView {
    v.journal = v.journal.into_iter().map(hit).collect();
    if let Some(snap) = &mut v.snapshot
        && let Some(p) = scan::blocked_lines(snap, &format!("the snapshot of run {}", v.run_id))
    {
        *snap = p;
    }
    // A record's recalls are a file of `.memdir/` anyone who writes the
    // folder could forge: each passes the scanner again.
    let run_id = v.run_id.clone();
    for (i, r) in v.recalls.iter_mut().enumerate() {
        let what = format!("recall {} of run {run_id}", i + 1);
        if let Some(p) = scan::blocked_lines(&r.block, &what) {
            r.block = p;
        }
        if let Some(q) = &mut r.query {
            guard_text(q, &format!("the query of {what}"));
        }
    }
    v
}

fn skill(mut s: Skill) -> Skill {
    let what = format!("skills/{}/SKILL.md", s.name);
    guard_text(&mut s.description, &format!("{what} description"));
    if let Some(p) = scan::blocked_lines(&s.body, &what) {
        s.body = p;
    }
    if let Some(p) = scan::blocked_lines(&s.text, &what) {
        s.text = p;
    }
    s
}

/// A SharedMemory result: text content with each flagged span replaced by
/// its placeholder (and `redacted`); JSON and binary content byte-exact, so
/// a handoff between tasks never breaks, with the flagged spans beside.
fn result(mut r: TaskResult) -> TaskResult {
    if r.flagged.is_empty() || !is_text(&r.content_type) {
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

fn review(mut r: crate::store::ReviewReport) -> crate::store::ReviewReport {
    use crate::review::Change;
    for c in &mut r.plan.changes {
        match c {
            Change::Archive {
                id,
                scope,
                text,
                reason,
                ..
            } => {
                guard_text(text, &format!("{} entry {id}", scope.file_name()));
                guard_text(reason, &format!("the reason for {id}"));
            }
            Change::Save {
                id, scope, text, ..
            }
            | Change::Dedupe {
                id, scope, text, ..
            } => guard_text(text, &format!("{} entry {id}", scope.file_name())),
            Change::Lift { id, text, .. } => guard_text(text, &format!("MEMORY.md entry {id}")),
            Change::Renew { id, reason, .. } | Change::Settle { id, reason, .. } => {
                guard_text(reason, &format!("the reason for {id}"));
            }
        }
    }
    for (file, diff) in &mut r.diffs {
        if let Some(p) = scan::blocked_lines(diff, &format!("the diff of {file}")) {
            *diff = p;
        }
    }
    r
}
