//! The guard over [`Response`]: one `match` over every variant, with no
//! wildcard arm (`clippy::wildcard_enum_match_arm` is denied on it), so a
//! new variant does not build until its file-derived text is guarded.
//!
//! Pure: no I/O.

use super::store as s;
use super::{Guarded, all, guarded, lines, opt, text};
use crate::api::Response;

/// `response` with every file-derived text guarded: a flagged text is its
/// `[BLOCKED: …]` placeholder.
#[deny(clippy::wildcard_enum_match_arm)]
pub(crate) fn guard(response: Response) -> Guarded<Response> {
    guarded(match response {
        Response::Check {
            mut reports,
            strict,
        } => {
            reports.iter_mut().for_each(s::check);
            Response::Check { reports, strict }
        }
        Response::Sync(mut r) => {
            s::sync(&mut r);
            Response::Sync(r)
        }
        Response::Merged(mut m) => {
            s::merged(&mut m);
            Response::Merged(m)
        }
        Response::Log(mut commits) => {
            commits.iter_mut().for_each(s::commit);
            Response::Log(commits)
        }
        Response::Init(mut setup) => {
            all(&mut setup.changes, "the change of the setup");
            Response::Init(setup)
        }
        Response::Written(mut w) => {
            s::written(&mut w);
            Response::Written(w)
        }
        Response::Batch(mut b) => {
            b.results.iter_mut().for_each(s::outcome);
            all(&mut b.warnings, "the warning");
            Response::Batch(b)
        }
        Response::Show { owner, stores } => Response::Show {
            owner,
            stores: stores.into_iter().map(s::store).collect(),
        },
        Response::Snapshot(snap) => Response::Snapshot(s::snapshot(snap)),
        Response::RunBegun {
            mut record,
            snapshot,
            resumed,
        } => {
            s::record(&mut record);
            Response::RunBegun {
                record,
                snapshot: s::snapshot(snapshot),
                resumed,
            }
        }
        Response::Day(mut d) => {
            s::day_line(&mut d.line, &format!("episodes.md {}", d.id));
            all(&mut d.warnings, "the warning");
            Response::Day(d)
        }
        Response::RunHits(hits) => Response::RunHits(hits.into_iter().map(s::hit).collect()),
        Response::Run(view) => Response::Run(s::run(view)),
        Response::Runs(mut records) => {
            records.iter_mut().for_each(s::record);
            Response::Runs(records)
        }
        Response::Put(mut p) => {
            s::meta(&mut p.result);
            all(&mut p.warnings, "the warning");
            Response::Put(p)
        }
        Response::Result(r) => Response::Result(s::result(r)),
        Response::Steps(mut w) => {
            w.steps.iter_mut().for_each(s::step);
            all(&mut w.warnings, "the warning");
            Response::Steps(w)
        }
        Response::Transition(mut t) => {
            all(&mut t.warnings, "the warning");
            Response::Transition(t)
        }
        Response::Renewed(mut r) => {
            opt(&mut r.expires, "the expiry");
            opt(&mut r.previous, "the previous expiry");
            all(&mut r.warnings, "the warning");
            Response::Renewed(r)
        }
        Response::ResultsRemoved(mut r) => {
            s::removed(&mut r);
            Response::ResultsRemoved(r)
        }
        Response::ResultsGc(mut g) => {
            g.workflows.iter_mut().for_each(s::removed);
            all(&mut g.warnings, "the warning");
            Response::ResultsGc(g)
        }
        Response::Rows { rows, total, limit } => Response::Rows {
            rows: rows.into_iter().map(s::row).collect(),
            total,
            limit,
        },
        Response::Recall(r) => Response::Recall(s::recall(r)),
        Response::Review(r) => Response::Review(s::review(r)),
        Response::Undone(mut u) => {
            s::undone(&mut u);
            Response::Undone(u)
        }
        Response::ReviewDue(mut d) => {
            d.ran = d.ran.map(s::review);
            s::routine(&mut d.status);
            Response::ReviewDue(d)
        }
        Response::Routine(mut r) => {
            s::routine(&mut r);
            Response::Routine(r)
        }
        Response::ReviewHistory(mut h) => {
            h.reviews.iter_mut().for_each(s::history);
            Response::ReviewHistory(h)
        }
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
        Response::Learning(mut o) => {
            s::learning(&mut o.learning);
            Response::Learning(o)
        }
        Response::Learnings(mut l) => {
            l.approved.iter_mut().for_each(s::learning);
            l.proposals.iter_mut().for_each(s::learning);
            Response::Learnings(l)
        }
        Response::Imported(mut i) => {
            s::imported(&mut i);
            Response::Imported(i)
        }
        Response::Exported(mut x) => {
            s::exported(&mut x);
            Response::Exported(x)
        }
        Response::MemoryTool(mut a) => {
            s::memtool(&mut a);
            Response::MemoryTool(a)
        }
        Response::StoreView(mut v) => {
            s::store_view(&mut v);
            Response::StoreView(v)
        }
        Response::Entries(mut list) => {
            list.iter_mut().for_each(s::entry_out);
            Response::Entries(list)
        }
        Response::CurrentEntries(mut list) => {
            for (_, b) in &mut list {
                s::brief(b);
            }
            Response::CurrentEntries(list)
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
