//! `GET /ui/decisions` and `POST /ui/decisions`: what waits for a person.
//! The pending learnings first (a count and a link to their page), then
//! `memdir check`'s findings per agent (the api's `check`, as the command
//! runs it), each with its file and line, message and hint, and a
//! one-click resolution where the api has one: a pair a merge kept
//! (`conflict=`): keep this one, the others of the pair removed
//! (`Write { Remove }`); a fact live and archived: archive it again
//! (`Archive`). Keeping both of a pair needs its `conflict=` marks
//! dropped, which no request does: the page says so. An exact duplicate
//! shares its id with its copy, so no request removes one copy only: the
//! daily review keeps one.

use std::sync::Arc;

use askama::Template;
use axum::extract::{Request as HttpRequest, State};
use axum::http::HeaderMap;
use axum::response::Response;
use memdir::api::errors::Surface;
use memdir::api::{self, Request, Response as Answer, Who};
use memdir::{Caller, CheckReport, ErrorCode, LearningStatus, Op};

use super::{Chrome, LoggedIn, logged_in, posted_form};
use crate::ui::{Shown, Ui, blocking, encode, error_page, field, html, visible};

/// One finding as the page shows it.
#[derive(Debug, Clone)]
pub struct Item {
    /// `error` or `warning`.
    pub severity: String,
    /// Its stable kind (`merge_conflict_pair`, …).
    pub kind: &'static str,
    /// `FILE:LINE` (or the file).
    pub at: String,
    /// The entry's id, when it is about one.
    pub id: String,
    /// What is wrong.
    pub message: String,
    /// What to do.
    pub hint: String,
    /// For a pair's entry: the others of its pair, comma-separated (a
    /// `keep` form removes them).
    pub others: String,
}

/// One agent's findings.
#[derive(Debug, Clone)]
pub struct Agent {
    /// The agent.
    pub agent: String,
    /// Its path segment, encoded.
    pub seg: String,
    /// Its findings.
    pub items: Vec<Item>,
}

/// The decisions page.
#[derive(Template)]
#[template(path = "decisions.html")]
pub struct DecisionsPage {
    /// The frame.
    pub chrome: Chrome,
    /// Pending learnings.
    pub pending: usize,
    /// The agents with findings.
    pub agents: Vec<Agent>,
    /// Findings in all.
    pub total: usize,
    /// What the last action did.
    pub notice: Option<String>,
    /// What went wrong.
    pub error: Option<Shown>,
}

/// The page's rows of one report: a pair's entries (the same file and
/// message: the same entry the merge kept twice) each name the others.
pub fn items(report: &CheckReport) -> Vec<Item> {
    let f = &report.findings;
    f.iter()
        .map(|x| {
            let others = if x.kind == "merge_conflict_pair" {
                f.iter()
                    .filter(|y| {
                        y.kind == x.kind
                            && y.file == x.file
                            && y.message == x.message
                            && y.id != x.id
                    })
                    .filter_map(|y| y.id.clone())
                    .collect::<Vec<_>>()
                    .join(",")
            } else {
                String::new()
            };
            Item {
                severity: format!("{:?}", x.severity).to_lowercase(),
                kind: x.kind,
                at: x
                    .line
                    .map_or_else(|| x.file.clone(), |l| format!("{}:{l}", x.file)),
                id: x.id.clone().unwrap_or_default(),
                message: visible(&x.message).0,
                hint: x.hint.clone(),
                others,
            }
        })
        .collect()
}

/// The requests a form makes, in order.
fn requests(f: &[(String, String)]) -> Result<Vec<Request>, Shown> {
    let missing = |name: &str| {
        Shown::transport(
            ErrorCode::InvalidRequest,
            format!("the form lacks its field {name:?}"),
        )
    };
    let given = |name: &str| field(f, name).map(str::trim).filter(|v| !v.is_empty());
    match given("action").ok_or_else(|| missing("action"))? {
        "keep" => {
            let others: Vec<Request> = given("others")
                .ok_or_else(|| missing("others"))?
                .split(',')
                .map(str::trim)
                .filter(|o| !o.is_empty())
                .take(16)
                .map(|o| Request::Write {
                    op: Op::Remove {
                        old: o.to_owned(),
                        scope: None,
                    },
                })
                .collect();
            if others.is_empty() {
                return Err(missing("others"));
            }
            Ok(others)
        }
        "archive" => Ok(vec![Request::Archive {
            id: given("id").ok_or_else(|| missing("id"))?.to_owned(),
            reason: field(f, "reason").unwrap_or("").to_owned(),
        }]),
        other => Err(Shown::transport(
            ErrorCode::InvalidRequest,
            format!("no such action: {other:?}"),
        )),
    }
}

/// The page as the root is now.
async fn render(
    ui: &Arc<Ui>,
    l: &LoggedIn,
    notice: Option<String>,
    error: Option<Shown>,
) -> Response {
    let u = ui.clone();
    let person = Caller::Person(l.session.person.clone());
    let got = blocking(move || {
        let store = u.open().map_err(|e| Shown::of(&e))?;
        let who = Who {
            caller: person,
            named: None,
            raw: false,
        };
        let pending = match api::execute(&store, &who, Request::Learnings) {
            Ok(Answer::Learnings(list)) => list
                .proposals
                .iter()
                .filter(|p| p.status == LearningStatus::Pending)
                .count(),
            _ => 0,
        };
        let reports = match api::check(&store, &[], false).map_err(|e| Shown::of(&e))? {
            Answer::Check { reports, .. } => reports,
            _ => Vec::new(),
        };
        Ok((pending, reports))
    })
    .await;
    let (pending, reports) = match got {
        Ok(g) => g,
        Err(e) => return error_page(e, Some(l.session.person.clone())),
    };
    let agents: Vec<Agent> = reports
        .iter()
        .filter(|r| !r.findings.is_empty())
        .map(|r| Agent {
            agent: r.owner.clone(),
            seg: encode(&r.owner),
            items: items(r),
        })
        .collect();
    let total = agents.iter().map(|a| a.items.len()).sum();
    html(
        error.as_ref().map_or(200, |e| e.status),
        &DecisionsPage {
            chrome: Chrome::of("Decisions waiting — memdir", &l.session),
            pending,
            agents,
            total,
            notice,
            error,
        },
    )
}

/// `GET /ui/decisions`.
pub async fn show(State(ui): State<Arc<Ui>>, headers: HeaderMap) -> Response {
    match logged_in(&ui, &headers, false).await {
        Ok(l) => render(&ui, &l, None, None).await,
        Err(r) => r,
    }
}

/// `POST /ui/decisions`: a resolution (`action`: `keep` with `agent`,
/// `id` and `others`; `archive` with `agent`, `id` and `reason`; `csrf`).
pub async fn post(State(ui): State<Arc<Ui>>, req: HttpRequest) -> Response {
    let (l, f) = match posted_form(&ui, req).await {
        Ok(posted) => posted,
        Err(r) => return r,
    };
    let u = ui.clone();
    let agent = field(&f, "agent").unwrap_or("").to_owned();
    let who = l.who(&agent);
    let done = blocking(move || {
        let requests = requests(&f)?;
        let store = u.open().map_err(|e| Shown::of(&e))?;
        let mut words = Vec::new();
        for r in requests {
            let answer = api::execute(&store, &who, r).map_err(|e| Shown::of(&e))?;
            let out = api::render::render_on(&answer, false, Surface::Http).stdout;
            words.push(String::from_utf8_lossy(&out).trim().to_owned());
        }
        Ok(words.join(" "))
    })
    .await;
    match done {
        Ok(words) => render(&ui, &l, Some(words), None).await,
        Err(e) => render(&ui, &l, None, Some(e)).await,
    }
}

#[cfg(test)]
mod tests {
    use super::requests;
    use memdir::Op;
    use memdir::api::Request;

    fn f(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    #[test]
    fn keeping_one_of_a_pair_removes_the_others() {
        let r = requests(&f(&[
            ("action", "keep"),
            ("id", "mem_a"),
            ("others", "mem_b, mem_c"),
        ]))
        .unwrap();
        let removed: Vec<String> = r
            .into_iter()
            .filter_map(|r| match r {
                Request::Write {
                    op: Op::Remove { old, .. },
                } => Some(old),
                _ => None,
            })
            .collect();
        assert_eq!(removed, ["mem_b", "mem_c"]);
        assert!(requests(&f(&[("action", "keep"), ("others", "")])).is_err());
        assert!(requests(&f(&[("action", "remove"), ("id", "mem_a")])).is_err());
    }
}
