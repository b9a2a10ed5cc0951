//! `GET /ui/agents/{agent}/dreaming` and `POST …/dreaming`: the agent's
//! memory dreaming, its daily review. The routine's state (the words of
//! `memdir review status`), pause and resume (`ReviewPause`), a review or a
//! dry run started now in the background (`Review`, as `http::reviews`
//! runs one: no request waits for it; the page refreshes itself with
//! `<meta http-equiv="refresh">` while it runs), what the last run from
//! this page did (its report and diff; a dry run's plan with "Apply as
//! previewed", `ApplyReview`, refused with `review_changed` when the files
//! changed since), and every past review (`ReviewHistory`: its changes and
//! the diff of each) with its Undo, whole or partial (`UndoReview`), behind
//! a confirmation step (the form inside a closed `<details>`).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use askama::Template;
use axum::extract::{Path, RawQuery, Request as HttpRequest, State};
use axum::http::HeaderMap;
use axum::response::Response;
use memdir::api::types::ErrorCode;
use memdir::api::types::ReviewHistory;
use memdir::api::{Request, Response as Answer, Who};

use super::{Chrome, LoggedIn, logged_in, posted_form, when};
use crate::ui::notices::Said;
use crate::ui::{Shown, Ui, blocking, encode, error_page, field, html};

/// The most agents whose last run from the page is kept.
const MAX_RUNS: usize = 256;

/// The most past reviews the page lists.
const SHOWN_REVIEWS: usize = 100;

/// How a review started from the page stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Run {
    /// Running.
    Running,
    /// Done: the review's words (its report and diff), and for a dry run
    /// whose plan changes something, its id (to apply as previewed).
    Done(String, Option<String>),
    /// Failed: the error.
    Failed(Shown),
}

/// One change of a past review, as the page shows it.
#[derive(Debug, Clone)]
pub struct Changed {
    /// What the review did (`archived`, `lifted`, …).
    pub kind: &'static str,
    /// The archive record's kind, when archived (`merged`, `expired`, …).
    pub why: String,
    /// The entry's id.
    pub id: String,
    /// The file that holds it now.
    pub file: String,
    /// Its text.
    pub text: String,
    /// The entry's diff.
    pub diff: String,
    /// Whether the diff was cut.
    pub cut: bool,
}

/// One past review, as the page shows it.
#[derive(Debug, Clone)]
pub struct Past {
    /// Its id.
    pub id: String,
    /// When it ran.
    pub at: String,
    /// Its journal line.
    pub report: String,
    /// Whether it was undone.
    pub undone: bool,
    /// What the files still record of its changes.
    pub changes: Vec<Changed>,
    /// How many more changes the files record than are listed.
    pub more: usize,
}

fn past(h: ReviewHistory) -> Vec<Past> {
    h.reviews
        .into_iter()
        .map(|r| Past {
            more: r.changes_total.saturating_sub(r.changes.len()),
            changes: r
                .changes
                .into_iter()
                .map(|c| Changed {
                    kind: c.kind.name(),
                    why: c
                        .archive_kind
                        .map(|k| k.name().to_owned())
                        .unwrap_or_default(),
                    id: c.id,
                    file: c.file,
                    text: c.text,
                    diff: c.diff,
                    cut: c.diff_cut,
                })
                .collect(),
            at: when(&r.at),
            id: r.id,
            report: r.report,
            undone: r.undone,
        })
        .collect()
}

/// The reviews started from the page, the last one per agent, in memory.
#[derive(Debug, Default)]
pub struct Runs(Mutex<HashMap<String, Run>>);

impl Runs {
    fn get(&self, agent: &str) -> Option<Run> {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(agent)
            .cloned()
    }

    /// Starts one for `agent`: false when one runs already.
    fn start(&self, agent: &str) -> bool {
        let mut m = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        if m.get(agent) == Some(&Run::Running) {
            return false;
        }
        if m.len() >= MAX_RUNS {
            m.retain(|_, r| *r == Run::Running);
        }
        m.insert(agent.to_owned(), Run::Running);
        true
    }

    fn finish(&self, agent: &str, run: Run) {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(agent.to_owned(), run);
    }
}

/// The dreaming page.
#[derive(Template)]
#[template(path = "dreaming.html")]
pub struct DreamingPage {
    /// The frame.
    pub chrome: Chrome,
    /// The agent.
    pub agent: String,
    /// Its path segment, encoded.
    pub seg: String,
    /// The routine's state, in `memdir review status`'s words.
    pub status: String,
    /// Whether the routine is paused.
    pub paused: bool,
    /// Every past review, newest first.
    pub reviews: Vec<Past>,
    /// The last review run from this page.
    pub run: Option<Run>,
    /// What the last action did.
    pub notice: Option<String>,
    /// What went wrong.
    pub error: Option<Shown>,
}

/// The page as the agent's routine is now.
async fn render(
    ui: &Arc<Ui>,
    l: &LoggedIn,
    agent: &str,
    notice: Option<String>,
    error: Option<Shown>,
) -> Response {
    let u = ui.clone();
    let who = l.who(agent);
    let got = blocking(move || {
        let store = u.open().map_err(|e| Shown::of(&e))?;
        let (answer, said) =
            crate::ui::ask_said(&store, &who, Request::ReviewStatus).map_err(|e| Shown::of(&e))?;
        let history = crate::ui::ask(
            &store,
            &who,
            Request::ReviewHistory {
                limit: Some(SHOWN_REVIEWS),
            },
        )
        .map_err(|e| Shown::of(&e))?;
        match (&answer, history) {
            (Answer::Routine(s), Answer::ReviewHistory(h)) => Ok((said, s.clone(), past(h))),
            _ => Err(Shown::transport(ErrorCode::InternalError, "no routine")),
        }
    })
    .await;
    let (status, routine, reviews) = match got {
        Ok(g) => g,
        Err(e) => return error_page(e, Some(l.session.person.clone())),
    };
    html(
        error.as_ref().map_or(200, |e| e.status),
        &DreamingPage {
            chrome: Chrome::of(format!("{agent}: dreaming — memdir"), &l.session),
            seg: encode(agent),
            agent: agent.to_owned(),
            status,
            paused: routine.paused,
            reviews,
            run: ui.reviews.get(agent),
            notice,
            error,
        },
    )
}

/// `GET /ui/agents/{agent}/dreaming`: the page, with what this session's
/// last action did when the query names its notice (`?notice=`).
pub async fn show(
    State(ui): State<Arc<Ui>>,
    Path(agent): Path<String>,
    headers: HeaderMap,
    RawQuery(q): RawQuery,
) -> Response {
    match logged_in(&ui, &headers, false).await {
        Ok(l) => {
            let (notice, error) = Said::words(l.said(&ui, q.as_deref()));
            render(&ui, &l, &agent, notice, error).await
        }
        Err(r) => r,
    }
}

/// Starts a review (or a dry run) of the agent in the background.
async fn run_now(ui: &Arc<Ui>, who: Who, agent: &str, dry_run: bool) -> Result<String, Shown> {
    // Who may review the agent is answered now, not by the run.
    let u = ui.clone();
    let w = who.clone();
    blocking(move || {
        let store = u.open().map_err(|e| Shown::of(&e))?;
        w.owner(&store).map(|_| ()).map_err(|e| Shown::of(&e))
    })
    .await?;
    if !ui.reviews.start(agent) {
        return Ok("a review of this agent is running already".to_owned());
    }
    let (u, name) = (ui.clone(), agent.to_owned());
    tokio::spawn(async move {
        let u2 = u.clone();
        let done = blocking(move || {
            let store = u2.open().map_err(|e| Shown::of(&e))?;
            let request = Request::Review {
                dry_run,
                due: false,
                reviewer: None,
            };
            crate::ui::ask_said(&store, &who, request)
                .map(|(a, said)| {
                    let plan = match &a {
                        Answer::Review(r) if dry_run && !r.plan.changes.is_empty() => {
                            Some(r.review_id.clone())
                        }
                        _ => None,
                    };
                    (said, plan)
                })
                .map_err(|e| Shown::of(&e))
        })
        .await;
        u.reviews.finish(
            &name,
            match done {
                Ok((w, plan)) => Run::Done(w, plan),
                Err(e) => Run::Failed(e),
            },
        );
    });
    Ok(if dry_run {
        "the dry run runs in the background; this page refreshes until its plan is shown"
    } else {
        "the review runs in the background; this page refreshes until it is done"
    }
    .to_owned())
}

/// `POST /ui/agents/{agent}/dreaming`: `action` `pause`, `resume`, `run`,
/// `dry-run`, `apply` (with the dry run's `id`) or `undo-review` (with
/// `id`, and `partial` to undo what is unchanged), and `csrf`; `303` to the
/// page, which says what was done or why not.
pub async fn post(
    State(ui): State<Arc<Ui>>,
    Path(agent): Path<String>,
    req: HttpRequest,
) -> Response {
    let back = format!("/ui/agents/{}/dreaming", encode(&agent));
    let (l, f) = match posted_form(&ui, req, &back).await {
        Ok(posted) => posted,
        Err(r) => return r,
    };
    let said = match act(&ui, &l, &agent, &f).await {
        Ok(w) => Said::done(w),
        Err(e) => Said::Refused(e),
    };
    l.redirect(&ui, &back, said)
}

/// Does what the form asks: its words, or why nothing was done.
async fn act(
    ui: &Arc<Ui>,
    l: &LoggedIn,
    agent: &str,
    f: &[(String, String)],
) -> Result<String, Shown> {
    let who = l.who(agent);
    let request = match field(f, "action").unwrap_or("") {
        "pause" => Request::ReviewPause { paused: true },
        "resume" => Request::ReviewPause { paused: false },
        "undo-review" => Request::UndoReview {
            id: field(f, "id").unwrap_or("").trim().to_owned(),
            partial: field(f, "partial") == Some("yes"),
        },
        "apply" => Request::ApplyReview {
            id: field(f, "id").unwrap_or("").trim().to_owned(),
        },
        "run" | "dry-run" => {
            let dry = field(f, "action") == Some("dry-run");
            return run_now(ui, who, agent, dry).await;
        }
        other => {
            return Err(Shown::transport(
                ErrorCode::InvalidRequest,
                format!("no such action: {other:?}"),
            ));
        }
    };
    let applying = matches!(request, Request::ApplyReview { .. });
    let u = ui.clone();
    let w = blocking(move || {
        let store = u.open().map_err(|e| Shown::of(&e))?;
        crate::ui::ask_said(&store, &who, request)
            .map(|(_, said)| said)
            .map_err(|e| Shown::of(&e))
    })
    .await?;
    if applying {
        // Applied: the plan shown is no longer one to apply.
        ui.reviews.finish(agent, Run::Done(w.clone(), None));
    }
    Ok(w)
}

#[cfg(test)]
mod tests {
    use super::{Run, Runs};

    #[test]
    fn one_run_per_agent_at_a_time() {
        let r = Runs::default();
        assert!(r.start("agt_a"));
        assert!(!r.start("agt_a"));
        assert!(r.start("agt_b"));
        r.finish("agt_a", Run::Done("ok".into(), None));
        assert_eq!(r.get("agt_a"), Some(Run::Done("ok".into(), None)));
        assert!(r.start("agt_a"));
    }
}
