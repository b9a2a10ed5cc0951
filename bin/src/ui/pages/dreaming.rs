//! `GET /ui/agents/{agent}/dreaming` and `POST …/dreaming`: the agent's
//! memory dreaming, its daily review. The routine's state (the words of
//! `memdir review status`), pause and resume (`ReviewPause`), a review run
//! now in the background (`Review`, as `http::reviews` runs one: no
//! request waits for it; the page refreshes itself with `<meta
//! http-equiv="refresh">` while it runs), what the last run from this page
//! did (its report and diff), and the Undo of the last review
//! (`UndoReview`). The api records the last review only, so the page shows
//! that one (older ones: `memdir review undo ID` with an id from the day
//! log's journal).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use askama::Template;
use axum::extract::{Path, Request as HttpRequest, State};
use axum::http::HeaderMap;
use axum::response::Response;
use memdir::ErrorCode;
use memdir::api::errors::Surface;
use memdir::api::{self, Request, Response as Answer, Who};

use super::{Chrome, LoggedIn, logged_in, posted_form, when};
use crate::ui::{Shown, Ui, blocking, encode, error_page, field, html};

/// The most agents whose last run from the page is kept.
const MAX_RUNS: usize = 256;

/// How a review started from the page stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Run {
    /// Running.
    Running,
    /// Done: the review's words (its report and diff).
    Done(String),
    /// Failed: the error.
    Failed(Shown),
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
    /// The last review: its id, when, its report, whether undone.
    pub last: Option<(String, String, String, bool)>,
    /// The last review run from this page.
    pub run: Option<Run>,
    /// What the last action did.
    pub notice: Option<String>,
    /// What went wrong.
    pub error: Option<Shown>,
}

fn words(answer: &Answer) -> String {
    let out = api::render::render_on(answer, false, Surface::Http).stdout;
    String::from_utf8_lossy(&out).trim_end().to_owned()
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
        let answer =
            api::execute(&store, &who, Request::ReviewStatus).map_err(|e| Shown::of(&e))?;
        match &answer {
            Answer::Routine(s) => Ok((words(&answer), s.clone())),
            _ => Err(Shown::transport(ErrorCode::InternalError, "no routine")),
        }
    })
    .await;
    let (status, routine) = match got {
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
            last: routine
                .last
                .map(|r| (r.id, when(&r.at), r.report, r.undone)),
            run: ui.reviews.get(agent),
            notice,
            error,
        },
    )
}

/// `GET /ui/agents/{agent}/dreaming`.
pub async fn show(
    State(ui): State<Arc<Ui>>,
    Path(agent): Path<String>,
    headers: HeaderMap,
) -> Response {
    match logged_in(&ui, &headers, false).await {
        Ok(l) => render(&ui, &l, &agent, None, None).await,
        Err(r) => r,
    }
}

/// Starts a review of the agent in the background.
async fn run_now(ui: &Arc<Ui>, who: Who, agent: &str) -> Result<String, Shown> {
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
                dry_run: false,
                due: false,
                reviewer: None,
            };
            api::execute(&store, &who, request)
                .map(|a| words(&a))
                .map_err(|e| Shown::of(&e))
        })
        .await;
        u.reviews.finish(
            &name,
            match done {
                Ok(w) => Run::Done(w),
                Err(e) => Run::Failed(e),
            },
        );
    });
    Ok("the review runs in the background; this page refreshes until it is done".to_owned())
}

/// `POST /ui/agents/{agent}/dreaming`: `action` `pause`, `resume`, `run`
/// or `undo-review` (with `id`), and `csrf`.
pub async fn post(
    State(ui): State<Arc<Ui>>,
    Path(agent): Path<String>,
    req: HttpRequest,
) -> Response {
    let (l, f) = match posted_form(&ui, req).await {
        Ok(posted) => posted,
        Err(r) => return r,
    };
    let who = l.who(&agent);
    let request = match field(&f, "action").unwrap_or("") {
        "pause" => Request::ReviewPause { paused: true },
        "resume" => Request::ReviewPause { paused: false },
        "undo-review" => Request::UndoReview {
            id: field(&f, "id").unwrap_or("").trim().to_owned(),
            partial: false,
        },
        "run" => {
            return match run_now(&ui, who, &agent).await {
                Ok(n) => render(&ui, &l, &agent, Some(n), None).await,
                Err(e) => render(&ui, &l, &agent, None, Some(e)).await,
            };
        }
        other => {
            let e = Shown::transport(
                ErrorCode::InvalidRequest,
                format!("no such action: {other:?}"),
            );
            return render(&ui, &l, &agent, None, Some(e)).await;
        }
    };
    let u = ui.clone();
    let done = blocking(move || {
        let store = u.open().map_err(|e| Shown::of(&e))?;
        api::execute(&store, &who, request)
            .map(|a| words(&a))
            .map_err(|e| Shown::of(&e))
    })
    .await;
    match done {
        Ok(w) => render(&ui, &l, &agent, Some(w), None).await,
        Err(e) => render(&ui, &l, &agent, None, Some(e)).await,
    }
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
        r.finish("agt_a", Run::Done("ok".into()));
        assert_eq!(r.get("agt_a"), Some(Run::Done("ok".into())));
        assert!(r.start("agt_a"));
    }
}
