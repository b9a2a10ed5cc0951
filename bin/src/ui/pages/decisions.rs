//! `GET /ui/decisions` and `POST /ui/decisions`: what waits for a person.
//! The pending learnings first (a count and a link to their page), then
//! `memdir check`'s findings per agent (the api's `check`, as the command
//! runs it), each with its file and line, message and hint, and a
//! one-click resolution where the api has one: of a pair a merge kept
//! (`conflict=`), keep this one (the others of the pair removed,
//! `Write { Remove }`, then its own mark dropped, `Resolve { both }`) or
//! keep both (`Resolve { both }`: their
//! `conflict=` marks dropped); a fact live and archived, keep the live one
//! (`Resolve { live }`: its archive records removed) or archive it again
//! (`Archive`); an exact duplicate, keep one copy (`Resolve { one }`).
//! Every form carries the SHA-256 of the file it edits as rendered: when
//! the file changed since, nothing is done (`409 store_changed`) and the
//! page shows the findings as they are now. The root's `LEARNINGS.md`
//! findings follow in a section of their own, with their file and line.

use std::sync::Arc;

use askama::Template;
use axum::extract::{RawQuery, Request as HttpRequest, State};
use axum::http::HeaderMap;
use axum::response::Response;
use memdir::api::types::{
    Caller, CheckReport, Decision, ErrorCode, Finding, FindingKind, Keep, LEARNINGS_FILE,
    LearningStatus, StoreFile,
};
use memdir::api::{Request, Response as Answer, Who};

use super::agent::{Hashes, hashes};
use super::{Chrome, LoggedIn, logged_in, posted_form};
use crate::ui::notices::Said;
use crate::ui::{Shown, Ui, blocking, encode, error_page, field, html, visible};

/// The page's path: where its forms lead back to.
const PAGE: &str = "/ui/decisions";

/// One finding as the page shows it.
#[derive(Debug, Clone)]
pub struct Item {
    /// `error` or `warning`.
    pub severity: String,
    /// Its stable kind (`merge_conflict_pair`, …).
    pub kind: FindingKind,
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
    /// The store file it is in, as the forms name it (`memory`, `user`),
    /// when it is one.
    pub store: String,
    /// That file's SHA-256 as rendered.
    pub hash: String,
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
    /// Its archive.md's SHA-256 as rendered (what `keep live` edits).
    pub hash_archive: String,
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
    /// The findings of the root's LEARNINGS.md.
    pub learnings: Vec<Item>,
    /// Findings in all.
    pub total: usize,
    /// What the last action did.
    pub notice: Option<String>,
    /// What went wrong.
    pub error: Option<Shown>,
}

/// The page's row of one finding of `owner` (`""`: the root's).
fn item(owner: &str, x: &Finding, all: &[&Finding], hashes: Option<&Hashes>) -> Item {
    let others = if x.kind == FindingKind::MergeConflictPair {
        all.iter()
            .filter(|y| {
                y.kind == x.kind && y.file == x.file && y.message == x.message && y.id != x.id
            })
            .filter_map(|y| y.id.clone())
            .collect::<Vec<_>>()
            .join(",")
    } else {
        String::new()
    };
    let name = x
        .file
        .strip_prefix(owner)
        .and_then(|f| f.strip_prefix('/'))
        .unwrap_or("");
    let (store, hash) = match (name, hashes) {
        ("MEMORY.md", Some(h)) => ("memory", h.memory.clone()),
        ("USER.md", Some(h)) => ("user", h.user.clone()),
        _ => ("", String::new()),
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
        store: store.to_owned(),
        hash,
    }
}

/// The page's rows of one report, the root's `LEARNINGS.md` findings left
/// out: a pair's entries (the same file and message: the same entry the
/// merge kept twice) each name the others.
pub fn items(report: &CheckReport, hashes: Option<&Hashes>) -> Vec<Item> {
    let own: Vec<&Finding> = report
        .findings
        .iter()
        .filter(|f| f.file != LEARNINGS_FILE)
        .collect();
    own.iter()
        .map(|x| item(&report.owner, x, &own, hashes))
        .collect()
}

/// The rows of the root's `LEARNINGS.md` findings among `reports`.
pub fn learnings_items(reports: &[CheckReport]) -> Vec<Item> {
    let all: Vec<&Finding> = reports
        .iter()
        .flat_map(|r| &r.findings)
        .filter(|f| f.file == LEARNINGS_FILE)
        .collect();
    all.iter().map(|x| item("", x, &all, None)).collect()
}

fn missing(name: &str) -> Shown {
    Shown::transport(
        ErrorCode::InvalidRequest,
        format!("the form lacks its field {name:?}"),
    )
}

/// The decision a form makes.
fn decision(f: &[(String, String)]) -> Result<Decision, Shown> {
    let given = |name: &str| field(f, name).map(str::trim).filter(|v| !v.is_empty());
    let id = || given("id").map(str::to_owned).ok_or_else(|| missing("id"));
    let resolve =
        |keep: Keep| -> Result<Decision, Shown> { Ok(Decision::Resolve { id: id()?, keep }) };
    match given("action").ok_or_else(|| missing("action"))? {
        // The pair's other versions are the library's to find: the form's
        // list of them is what the page showed, not what is removed.
        "keep" => Ok(Decision::KeepOnly { id: id()? }),
        "both" => resolve(Keep::Both),
        "live" => resolve(Keep::Live),
        "one" => resolve(Keep::One),
        "archive" => Ok(Decision::Archive {
            id: id()?,
            reason: field(f, "reason").unwrap_or("").to_owned(),
        }),
        other => Err(Shown::transport(
            ErrorCode::InvalidRequest,
            format!("no such action: {other:?}"),
        )),
    }
}

/// The one request a form makes: its decision, done only when the file it
/// was rendered from (`store`, its `hash` as rendered) is unchanged, which
/// the library checks under the owner's lock.
fn request(f: &[(String, String)]) -> Result<Request, Shown> {
    let given = |name: &str| field(f, name).map(str::trim).filter(|v| !v.is_empty());
    let decision = decision(f)?;
    let file = given("store")
        .and_then(StoreFile::parse)
        .ok_or_else(|| missing("store"))?;
    let sha256 = given("hash").ok_or_else(|| missing("hash"))?.to_owned();
    Ok(Request::Decide {
        file,
        sha256,
        decision,
    })
}

/// What the page shows, read now.
struct Read {
    pending: usize,
    reports: Vec<CheckReport>,
    hashes: Vec<Option<Hashes>>,
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
        let who = |named: Option<&str>| Who {
            caller: person.clone(),
            named: named.map(str::to_owned),
            raw: false,
        };
        let pending = match crate::ui::ask(&store, &who(None), Request::Learnings) {
            Ok(Answer::Learnings(list)) => list
                .proposals
                .iter()
                .filter(|p| p.status == LearningStatus::Pending)
                .count(),
            _ => 0,
        };
        let reports = match crate::ui::ask(
            &store,
            &Who::anonymous(),
            Request::Check {
                owners: Vec::new(),
                strict: false,
            },
        )
        .map_err(|e| Shown::of(&e))?
        {
            Answer::Check { reports, .. } => reports,
            _ => Vec::new(),
        };
        let hashes = reports
            .iter()
            .map(|r| {
                (!r.findings.is_empty())
                    .then(|| hashes(&store, &who(Some(&r.owner))).ok())
                    .flatten()
            })
            .collect();
        Ok(Read {
            pending,
            reports,
            hashes,
        })
    })
    .await;
    let read = match got {
        Ok(g) => g,
        Err(e) => return error_page(e, Some(l.session.person.clone())),
    };
    let agents: Vec<Agent> = read
        .reports
        .iter()
        .zip(&read.hashes)
        .map(|(r, h)| Agent {
            agent: r.owner.clone(),
            seg: encode(&r.owner),
            items: items(r, h.as_ref()),
            hash_archive: h.as_ref().map(|h| h.archive.clone()).unwrap_or_default(),
        })
        .filter(|a| !a.items.is_empty())
        .collect();
    let learnings = learnings_items(&read.reports);
    let total = agents.iter().map(|a| a.items.len()).sum::<usize>() + learnings.len();
    html(
        error.as_ref().map_or(200, |e| e.status),
        &DecisionsPage {
            chrome: Chrome::of("Decisions waiting — memdir", &l.session),
            pending: read.pending,
            agents,
            learnings,
            total,
            notice,
            error,
        },
    )
}

/// `GET /ui/decisions`: the page, with what this session's last
/// resolution did when the query names its notice (`?notice=`).
pub async fn show(
    State(ui): State<Arc<Ui>>,
    headers: HeaderMap,
    RawQuery(q): RawQuery,
) -> Response {
    match logged_in(&ui, &headers, false).await {
        Ok(l) => {
            let (notice, error) = Said::words(l.said(&ui, q.as_deref()));
            render(&ui, &l, notice, error).await
        }
        Err(r) => r,
    }
}

/// `POST /ui/decisions`: a resolution (`action`: `keep` with `others`,
/// `both`, `live`, `one`, or `archive` with `reason`; each with `agent`,
/// `id`, `store` and `hash`, the file the form edits and its SHA-256 as
/// rendered; `csrf`); `303` to the page, which says what was done or why
/// not.
pub async fn post(State(ui): State<Arc<Ui>>, req: HttpRequest) -> Response {
    let (l, f) = match posted_form(&ui, req, PAGE).await {
        Ok(posted) => posted,
        Err(r) => return r,
    };
    let u = ui.clone();
    let agent = field(&f, "agent").unwrap_or("").to_owned();
    let who = l.who(&agent);
    let done = blocking(move || {
        let request = request(&f)?;
        let store = u.open().map_err(|e| Shown::of(&e))?;
        let (_, said) = crate::ui::ask_said(&store, &who, request).map_err(|e| Shown::of(&e))?;
        Ok(said.trim().to_owned())
    })
    .await;
    let said = match done {
        Ok(words) => Said::done(words),
        Err(e) => Said::Refused(e),
    };
    l.redirect(&ui, PAGE, said)
}

#[cfg(test)]
mod tests {
    use super::{decision, request};
    use memdir::api::Request;
    use memdir::api::types::{Decision, Keep, StoreFile};

    fn f(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    #[test]
    fn keeping_one_of_a_pair_is_one_decision_on_its_file() {
        let r = request(&f(&[
            ("action", "keep"),
            ("id", "mem_a"),
            ("others", "mem_b, mem_c"),
            ("store", "memory"),
            ("hash", "ab"),
        ]))
        .unwrap();
        assert_eq!(
            r,
            Request::Decide {
                file: StoreFile::Memory,
                sha256: "ab".into(),
                decision: Decision::KeepOnly { id: "mem_a".into() }
            }
        );
        let no_hash = f(&[("action", "keep"), ("id", "mem_a"), ("store", "memory")]);
        assert!(request(&no_hash).is_err());
        assert!(decision(&f(&[("action", "keep"), ("others", "mem_b")])).is_err());
        assert!(decision(&f(&[("action", "remove"), ("id", "mem_a")])).is_err());
    }

    #[test]
    fn each_resolution_is_one_decision_of_its_id() {
        for (action, keep) in [
            ("both", Keep::Both),
            ("live", Keep::Live),
            ("one", Keep::One),
        ] {
            let r = decision(&f(&[("action", action), ("id", "mem_a")])).unwrap();
            assert_eq!(
                r,
                Decision::Resolve {
                    id: "mem_a".into(),
                    keep
                }
            );
            assert!(decision(&f(&[("action", action)])).is_err());
        }
    }
}
