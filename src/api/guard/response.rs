//! The guard over [`Response`]: one `match` over every variant, with no
//! wildcard arm (`clippy::wildcard_enum_match_arm` is denied on it), so a
//! new variant does not build until its file-derived text is guarded.
//!
//! Pure: no I/O.

use super::store as s;
use super::{Guarded, all, guarded, lines, opt, text};
use crate::api::Response;
use crate::store::{
    BatchOutcome, DayOutcome, DueOutcome, LearningsList, PutOutcome, Renewed, ResultsGc,
    WorkflowResults,
};

/// `response` with every file-derived text guarded: a flagged text is its
/// `[BLOCKED: …]` placeholder. One arm a variant, each as short as the
/// visitor it calls (`with`, `each`: a visitor that guards in place).
#[deny(clippy::wildcard_enum_match_arm)]
pub(crate) fn guard(response: Response) -> Guarded<Response> {
    guarded(match response {
        Response::Check { reports, strict } => Response::Check {
            reports: each(reports, s::check),
            strict,
        },
        Response::Sync(r) => Response::Sync(with(r, s::sync)),
        Response::Merged(m) => Response::Merged(with(m, s::merged)),
        Response::Log(commits) => Response::Log(each(commits, s::commit)),
        Response::Init(setup) => Response::Init(with(setup, |x| {
            all(&mut x.changes, "the change of the setup");
        })),
        Response::Written(w) => Response::Written(with(w, s::written)),
        Response::Batch(b) => Response::Batch(with(b, batch)),
        Response::Show { owner, stores } => Response::Show {
            owner,
            stores: stores.into_iter().map(s::store).collect(),
        },
        Response::Snapshot(snap) => Response::Snapshot(s::snapshot(snap)),
        Response::RunBegun {
            record,
            snapshot,
            resumed,
        } => Response::RunBegun {
            record: with(record, s::record),
            snapshot: s::snapshot(snapshot),
            resumed,
        },
        Response::Day(d) => Response::Day(with(d, day)),
        Response::RunHits(hits) => Response::RunHits(hits.into_iter().map(s::hit).collect()),
        Response::Run(view) => Response::Run(s::run(view)),
        Response::Runs(records) => Response::Runs(each(records, s::record)),
        Response::Put(p) => Response::Put(with(p, put)),
        Response::Result(r) => Response::Result(s::result(r)),
        Response::Steps(w) => Response::Steps(with(w, steps)),
        Response::Transition(mut t) => {
            all(&mut t.warnings, "the warning");
            Response::Transition(t)
        }
        Response::Renewed(r) => Response::Renewed(with(r, renewed)),
        Response::ResultsRemoved(r) => Response::ResultsRemoved(with(r, s::removed)),
        Response::ResultsGc(g) => Response::ResultsGc(with(g, gc)),
        Response::Rows { rows, total, limit } => Response::Rows {
            rows: rows.into_iter().map(s::row).collect(),
            total,
            limit,
        },
        Response::Recall(r) => Response::Recall(s::recall(r)),
        Response::Review(r) => Response::Review(s::review(r)),
        Response::Undone(u) => Response::Undone(with(u, s::undone)),
        Response::ReviewDue(d) => Response::ReviewDue(with(d, review_due)),
        Response::Routine(r) => Response::Routine(with(r, s::routine)),
        Response::ReviewHistory(h) => Response::ReviewHistory(with(h, |h| {
            h.reviews.iter_mut().for_each(s::history);
        })),
        Response::Skill(mut o) => {
            opt(
                &mut o.description,
                &format!("skills/{}/SKILL.md description", o.name),
            );
            all(&mut o.warnings, "the warning");
            Response::Skill(o)
        }
        Response::Skills(mut rows) => {
            for r in &mut rows {
                let what = format!("skills/{}/SKILL.md description", r.name);
                text(&mut r.description, &what);
            }
            Response::Skills(rows)
        }
        Response::SkillShown(sk) => Response::SkillShown(s::skill(sk)),
        Response::Learning(o) => Response::Learning(with(o, |o| s::learning(&mut o.learning))),
        Response::Learnings(l) => Response::Learnings(with(l, learnings)),
        Response::Pending(l) => Response::Pending(with(l, |l| {
            l.pending.iter_mut().for_each(s::pending_write);
        })),
        Response::PendingShown(w) => Response::PendingShown(with(w, s::pending_write)),
        Response::PendingDecided(d) => Response::PendingDecided(with(d, s::pending_decision)),
        Response::Imported(i) => Response::Imported(with(i, s::imported)),
        Response::Exported(x) => Response::Exported(with(x, s::exported)),
        Response::MemoryTool(a) => Response::MemoryTool(with(a, s::memtool)),
        Response::StoreView(v) => Response::StoreView(with(v, s::store_view)),
        Response::Entries(list) => Response::Entries(each(list, s::entry_out)),
        Response::CurrentEntries(list) => {
            Response::CurrentEntries(each(list, |(_, b)| s::brief(b)))
        }
        // A login link's token and person are the machine's configuration's,
        // not a memory folder's; the person's id is checked as an id.
        Response::LoginLink(l) => Response::LoginLink(l),
        Response::LoginRedeemed { mut person } => {
            text(&mut person, "the person");
            Response::LoginRedeemed { person }
        }
        Response::LoginLinkShown {
            mut person,
            expires,
        } => {
            text(&mut person, "the person");
            Response::LoginLinkShown { person, expires }
        }
        // Ids are owner ids (checked as ids) and the figures counts; an
        // error's message may quote a file (a setting's value).
        Response::AgentSummaries(mut page) => {
            for r in &mut page.rows {
                if let Some(f) = &mut r.failed {
                    lines(&mut f.message, &format!("the error of agent {}", r.id));
                    opt(&mut f.hint, &format!("the hint of agent {}", r.id));
                }
            }
            Response::AgentSummaries(page)
        }
    })
}

/// `v` after `guard` guarded it in place.
fn with<T>(mut v: T, guard: impl FnOnce(&mut T)) -> T {
    guard(&mut v);
    v
}

/// Each of `list` after `guard` guarded it in place.
fn each<T>(mut list: Vec<T>, guard: impl FnMut(&mut T)) -> Vec<T> {
    list.iter_mut().for_each(guard);
    list
}

/// A batch's outcomes and warnings.
fn batch(b: &mut BatchOutcome) {
    b.results.iter_mut().for_each(s::outcome);
    all(&mut b.warnings, "the warning");
}

/// A day line written, and the warnings.
fn day(d: &mut DayOutcome) {
    s::day_line(&mut d.line, &format!("episodes.md {}", d.id));
    all(&mut d.warnings, "the warning");
}

/// A result's header put, and the warnings.
fn put(p: &mut PutOutcome) {
    s::meta(&mut p.result);
    all(&mut p.warnings, "the warning");
}

/// A workflow's steps, and the warnings.
fn steps(w: &mut WorkflowResults) {
    w.steps.iter_mut().for_each(s::step);
    all(&mut w.warnings, "the warning");
}

/// A renewal's expiries, and the warnings.
fn renewed(r: &mut Renewed) {
    opt(&mut r.expires, "the expiry");
    opt(&mut r.previous, "the previous expiry");
    all(&mut r.warnings, "the warning");
}

/// The workflows a collection removed, and the warnings.
fn gc(g: &mut ResultsGc) {
    g.workflows.iter_mut().for_each(s::removed);
    all(&mut g.warnings, "the warning");
}

/// A due review's report, if it ran, and the routine's state.
fn review_due(d: &mut DueOutcome) {
    d.ran = d.ran.take().map(s::review);
    s::routine(&mut d.status);
}

/// The approved learnings and the proposals.
fn learnings(l: &mut LearningsList) {
    l.approved.iter_mut().for_each(s::learning);
    l.proposals.iter_mut().for_each(s::learning);
}
