//! `GET /ui/agents/{agent}/results`: the agent's SharedMemory results.
//! Without a query: the workflows of its newest runs (at most
//! [`MAX_WORKFLOWS`]) and their steps (`WorkflowResults`); with
//! `?workflow=`, that workflow's steps; with `?workflow=&task=`, that
//! step's content (`GetResult`), as text. The content passed the egress
//! rule in `api::execute` as every answer does (a text result's flagged
//! lines are their placeholders); content that is not text, or that the
//! scanner flagged and that rule keeps byte-exact (JSON), is not shown.

use std::sync::Arc;

use askama::Template;
use axum::extract::{Path, RawQuery, State};
use axum::http::HeaderMap;
use axum::response::Response;
use memdir::api::types::{ContentKind, Error, Store, TaskResult};
use memdir::api::{Request, Response as Answer, Who};

use super::{Chrome, logged_in};
use crate::ui::{Shown, Ui, blocking, encode, error_page, field, fields, html};

/// The most workflows the page lists (of the newest runs).
pub const MAX_WORKFLOWS: usize = 20;

/// The most bytes of a result's content the page shows.
pub const SHOWN_BYTES: usize = 64 * 1024;

/// The results page.
#[derive(Template)]
#[template(path = "results.html")]
pub struct ResultsPage {
    /// The frame.
    pub chrome: Chrome,
    /// The agent.
    pub agent: String,
    /// The agent's path segment, encoded.
    pub seg: String,
    /// The workflows and their steps.
    pub workflows: Vec<Workflow>,
    /// The step shown, when one is asked for.
    pub content: Option<Content>,
    /// Why a workflow or a step could not be shown.
    pub error: Option<Shown>,
}

/// A workflow and its steps.
#[derive(Debug, Clone)]
pub struct Workflow {
    /// Its id.
    pub id: String,
    /// Its id, encoded for a link.
    pub seg: String,
    /// Its steps: (task, its id encoded, type, bytes, created).
    pub steps: Vec<(String, String, String, u64, String)>,
    /// Nothing is stored under it yet.
    pub empty: bool,
}

/// One result's content, as the page shows it.
#[derive(Debug, Clone)]
pub struct Content {
    /// The workflow.
    pub workflow: String,
    /// The task.
    pub task: String,
    /// Its content type.
    pub content_type: String,
    /// Its size in bytes.
    pub bytes: u64,
    /// The text shown (`None`: not shown, see `note`).
    pub text: Option<String>,
    /// Why the content is not shown, or what was done to it.
    pub note: String,
}

/// What the page shows of `r` (after the egress rule).
pub fn content(r: TaskResult) -> Content {
    let text_type = r
        .content_type
        .get(..5)
        .is_some_and(|t| t.eq_ignore_ascii_case("text/"));
    let text = match r.kind {
        ContentKind::Text => std::str::from_utf8(&r.content).ok(),
        // Bytes that are UTF-8 but hold a NUL are still not text.
        ContentKind::Binary { .. } => None,
    };
    let (text, note) = match text {
        None => (None, "not text: not shown".to_owned()),
        Some(_) if !text_type && !r.flagged.is_empty() => (
            None,
            format!(
                "the scanner flagged {} spans of this {} result, which is kept byte-exact: not shown",
                r.flagged.len(),
                r.content_type
            ),
        ),
        Some(t) => {
            let mut cut = t.len().min(SHOWN_BYTES);
            while !t.is_char_boundary(cut) {
                cut -= 1;
            }
            let mut note = String::new();
            if r.redacted {
                note.push_str("flagged lines shown as placeholders. ");
            }
            if cut < t.len() {
                note.push_str(&format!("the first {cut} bytes shown."));
            }
            (Some(t[..cut].to_owned()), note)
        }
    };
    Content {
        workflow: r.workflow_id,
        task: r.task_id,
        content_type: r.content_type,
        bytes: r.bytes,
        text,
        note,
    }
}

/// The steps of `workflow`, or none stored yet.
fn workflow(store: &Store, who: &Who, id: String) -> Result<Workflow, Shown> {
    let r = crate::ui::ask(
        store,
        who,
        Request::WorkflowResults {
            workflow_id: id.clone(),
        },
    );
    let steps = match r {
        Ok(Answer::Steps(w)) => w.steps,
        Ok(_) => Vec::new(),
        Err(Error::NotReady { .. } | Error::ResultNotFound { .. }) => Vec::new(),
        Err(e) => return Err(Shown::of(&e)),
    };
    Ok(Workflow {
        seg: encode(&id),
        empty: steps.is_empty(),
        steps: steps
            .into_iter()
            .map(|s| {
                let t = encode(&s.task_id);
                (s.task_id, t, s.content_type, s.bytes, s.created_at)
            })
            .collect(),
        id,
    })
}

/// `GET /ui/agents/{agent}/results`.
pub async fn show(
    State(ui): State<Arc<Ui>>,
    Path(agent): Path<String>,
    headers: HeaderMap,
    RawQuery(q): RawQuery,
) -> Response {
    let l = match logged_in(&ui, &headers, false).await {
        Ok(l) => l,
        Err(r) => return r,
    };
    let f = fields(q.unwrap_or_default().as_bytes());
    let asked = field(&f, "workflow")
        .map(str::trim)
        .filter(|w| !w.is_empty())
        .map(str::to_owned);
    let task = field(&f, "task")
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .map(str::to_owned);
    let u = ui.clone();
    let who = l.who(&agent);
    let got = blocking(move || {
        let store = u.open().map_err(|e| Shown::of(&e))?;
        let Some(wf) = asked else {
            // The workflows of the newest runs, each once.
            let runs = match crate::ui::ask(&store, &who, Request::ListRuns { open: false }) {
                Ok(Answer::Runs(r)) => r,
                Ok(_) => Vec::new(),
                Err(e) => return Err(Shown::of(&e)),
            };
            let mut ids: Vec<String> = Vec::new();
            for r in &runs {
                if ids.len() == MAX_WORKFLOWS {
                    break;
                }
                if !ids.iter().any(|i| i == r.workflow()) {
                    ids.push(r.workflow().to_owned());
                }
            }
            let flows = ids
                .into_iter()
                .map(|id| workflow(&store, &who, id))
                .collect::<Result<Vec<_>, _>>()?;
            return Ok((flows, None, None));
        };
        let (flows, error) = match workflow(&store, &who, wf.clone()) {
            Ok(w) => (vec![w], None),
            Err(e) => (Vec::new(), Some(e)),
        };
        let Some(task_id) = task else {
            return Ok((flows, None, error));
        };
        let r = crate::ui::ask(
            &store,
            &who,
            Request::GetResult {
                workflow_id: wf,
                task_id,
            },
        );
        Ok(match r {
            Ok(Answer::Result(r)) => (flows, Some(content(r)), error),
            Ok(_) => (flows, None, error),
            Err(e) => (flows, None, Some(Shown::of(&e))),
        })
    })
    .await;
    let (workflows, content, error) = match got {
        Ok(g) => g,
        Err(e) => return error_page(e, Some(l.session.person)),
    };
    html(
        error.as_ref().map_or(200, |e| e.status),
        &ResultsPage {
            chrome: Chrome::of(format!("{agent}: results — memdir"), &l.session),
            seg: encode(&agent),
            agent,
            workflows,
            content,
            error,
        },
    )
}

#[cfg(test)]
mod tests {
    use memdir::api::types::{ContentKind, FlaggedSpan, TaskResult};

    use super::{SHOWN_BYTES, content};

    fn result(content_type: &str, bytes: &[u8], flagged: bool) -> TaskResult {
        TaskResult {
            content: bytes.to_vec(),
            content_type: content_type.to_owned(),
            workflow_id: "wf".into(),
            task_id: "t".into(),
            created_at: String::new(),
            sha256: String::new(),
            bytes: bytes.len() as u64,
            kind: ContentKind::of(bytes),
            flagged: if flagged {
                vec![FlaggedSpan {
                    start: 0,
                    end: 1,
                    line: 1,
                    patterns: vec!["ignore_instructions".into()],
                }]
            } else {
                Vec::new()
            },
            redacted: false,
        }
    }

    #[test]
    fn only_text_the_egress_rule_passed_is_shown_and_bounded() {
        let c = content(result("text/plain", b"<b>hi</b>", false));
        assert_eq!(c.text.as_deref(), Some("<b>hi</b>"));
        assert!(
            content(result("application/octet-stream", &[0xff, 0], false))
                .text
                .is_none()
        );
        // UTF-8 with a NUL byte is binary, whatever its type.
        assert!(
            content(result("text/plain", b"text\0more", false))
                .text
                .is_none()
        );
        // JSON the scanner flagged is kept byte-exact by the rule: not shown.
        let c = content(result("application/json", b"{\"a\":1}", true));
        assert!(c.text.is_none());
        assert!(c.note.contains("flagged"), "{}", c.note);
        assert!(
            content(result("application/json", b"{}", false))
                .text
                .is_some()
        );
        let long = "é".repeat(SHOWN_BYTES);
        let c = content(result("text/plain", long.as_bytes(), false));
        let t = c.text.unwrap();
        assert!(t.len() <= SHOWN_BYTES && long.starts_with(&t));
        assert!(c.note.contains("bytes shown"), "{}", c.note);
    }
}
