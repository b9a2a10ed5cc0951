//! `GET /ui/agents/{agent}`: an agent's facts from both stores and the
//! archive, each with its state (live, expired, archived, vetoed), expiry,
//! recalls, who saved or last edited it and the run and task it came from;
//! filtered by store, kind, status and text (`?store=`, `?kind=`,
//! `?status=`, `?q=`); blocked and over-budget entries marked with the
//! reason, and a blocked entry's raw text shown on purpose
//! (`?reveal=ID`, escaped like everything). Each row carries the forms of
//! its actions (`ui::pages::actions`), each with the entry's id and the
//! SHA-256 of its store file as rendered.

use std::collections::HashMap;
use std::sync::Arc;

use askama::Template;
use axum::extract::{Path, RawQuery, State};
use axum::http::HeaderMap;
use axum::response::Response;
use memdir::api::types::{ArchiveKind, FactKind, FactRow, Omitted, Origin, Status, Store};
use memdir::api::{Request, Response as Answer, Who};

use super::{Chrome, LoggedIn, logged_in, when};
use crate::ui::notices::Said;
use crate::ui::{Shown, Ui, blocking, encode, error_page, field, fields, html};

/// The most rows a page shows (the list's own ceiling).
pub const MAX_ROWS: usize = memdir::api::types::MAX_LIST_LIMIT;

/// What the page is filtered by.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Filter {
    /// `memory` or `user` (none: both).
    pub store: String,
    /// `fact` (the default) or `day`.
    pub kind: String,
    /// `live`, `expired`, `archived`, `vetoed` (none: all).
    pub status: String,
    /// Text the entry holds (any case).
    pub q: String,
    /// The blocked entry whose raw text to show.
    pub reveal: String,
}

impl Filter {
    /// The filter a query string names (unknown values: none).
    pub fn of(q: &[(String, String)]) -> Filter {
        let pick = |name: &str, allowed: &[&str]| {
            field(q, name)
                .filter(|v| allowed.contains(v))
                .unwrap_or("")
                .to_owned()
        };
        Filter {
            store: pick("store", &["memory", "user"]),
            kind: pick("kind", &["fact", "day"]),
            status: pick("status", &["live", "expired", "archived", "vetoed"]),
            q: field(q, "q").unwrap_or("").chars().take(200).collect(),
            reveal: field(q, "reveal").unwrap_or("").chars().take(64).collect(),
        }
    }
}

/// One row as the page shows it.
#[derive(Debug, Clone)]
pub struct Fact {
    /// Its id.
    pub id: String,
    /// `memory`, `user` or `day`.
    pub scope: &'static str,
    /// `live`, `expired`, `archived` or `vetoed`.
    pub state: FactState,
    /// Its text (a blocked entry's placeholder unless revealed).
    pub text: String,
    /// Marks: (class, words), such as `blocked`.
    pub marks: Vec<(&'static str, String)>,
    /// Its expiry, shown in full (the cell's title).
    pub expires: String,
    /// Its expiry's day (or `never`), the cell's text.
    pub expires_day: String,
    /// How many recalls picked it.
    pub recalls: u64,
    /// The last recall, shown in full (the cell's title).
    pub last_recall: String,
    /// The last recall's day (or `never`), the cell's text.
    pub last_recall_day: String,
    /// Who saved or last edited it.
    pub by: String,
    /// The run and task it came from.
    pub origin: String,
    /// Why it was archived.
    pub reason: String,
    /// The store file its forms name: `memory`, `user` or `archive`.
    pub file: &'static str,
    /// That file's SHA-256 as rendered.
    pub hash: String,
    /// Blocked by the scanner (its raw text may be revealed).
    pub blocked: bool,
    /// Its raw text is shown.
    pub revealed: bool,
    /// A fact (actions apply), not a day row.
    pub fact: bool,
}

/// A message over the page: what an action did, and its Undo.
#[derive(Debug, Clone, Default)]
pub struct Notice {
    /// What was done, in the command line's words.
    pub text: String,
    /// The entry an Undo brings back (after an archive or a veto).
    pub undo: Option<String>,
}

/// The agent's page.
#[derive(Template)]
#[template(path = "agent.html")]
pub struct AgentPage {
    /// The frame.
    pub chrome: Chrome,
    /// The agent.
    pub agent: String,
    /// The agent's path segment, encoded.
    pub seg: String,
    /// The rows shown.
    pub facts: Vec<Fact>,
    /// Rows before the filter (at most [`MAX_ROWS`]).
    pub listed: usize,
    /// Rows the store holds.
    pub total: usize,
    /// The filter.
    pub filter: Filter,
    /// Each store file's hash as rendered.
    pub hashes: Hashes,
    /// Each store's usage.
    pub usage: Vec<(&'static str, String)>,
    /// What an action did.
    pub notice: Option<Notice>,
    /// An action's error.
    pub error: Option<Shown>,
}

/// The SHA-256 of each store file as rendered.
#[derive(Debug, Clone, Default)]
pub struct Hashes {
    /// MEMORY.md's.
    pub memory: String,
    /// USER.md's.
    pub user: String,
    /// archive.md's.
    pub archive: String,
}

impl Hashes {
    /// The hash of the file a form names.
    pub fn of(&self, file: &str) -> Option<&str> {
        match file {
            "memory" => Some(&self.memory),
            "user" => Some(&self.user),
            "archive" => Some(&self.archive),
            _ => None,
        }
    }
}

/// The hashes of `agent`'s store files now, for `who`.
pub fn hashes(store: &Store, who: &Who) -> Result<Hashes, Shown> {
    let h = who.file_hashes(store).map_err(|e| Shown::of(&e))?;
    Ok(Hashes {
        memory: h.memory,
        user: h.user,
        archive: h.archive,
    })
}

/// A time's day, as the fact table shows it (the full time is the
/// cell's title).
fn day(t: &chrono::DateTime<chrono::Utc>) -> String {
    t.format("%Y-%m-%d").to_string()
}

/// A fact's state as the page shows and filters it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FactState {
    /// Live and not expired.
    Live,
    /// Live, past its expiry.
    Expired,
    /// Archived (not vetoed).
    Archived,
    /// Vetoed by a person.
    Vetoed,
}

impl FactState {
    /// Its word on the page and in `?status=`.
    pub fn name(self) -> &'static str {
        match self {
            FactState::Live => "live",
            FactState::Expired => "expired",
            FactState::Archived => "archived",
            FactState::Vetoed => "vetoed",
        }
    }
}

impl std::fmt::Display for FactState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

fn state(r: &FactRow) -> FactState {
    match (r.status, r.archive_kind) {
        (Status::Archived, Some(ArchiveKind::Vetoed)) => FactState::Vetoed,
        (Status::Archived, _) => FactState::Archived,
        (_, _) if r.expired => FactState::Expired,
        _ => FactState::Live,
    }
}

fn by(r: &FactRow) -> String {
    match (&r.person, &r.saved_by_agent) {
        (Some(p), _) => format!("person {p}"),
        (None, Some(a)) => format!("agent {a}"),
        (None, None) => "-".to_owned(),
    }
}

fn fact(r: FactRow, omitted: &HashMap<String, Omitted>, hashes: &Hashes) -> Fact {
    let state = state(&r);
    let scope = r.scope.name();
    let file = match (state, r.scope) {
        (FactState::Archived | FactState::Vetoed, _) => "archive",
        (_, Origin::User) => "user",
        _ => "memory",
    };
    let mut marks = Vec::new();
    let why = omitted.get(&r.id).copied();
    match why {
        Some(Omitted::Blocked) => marks.push((
            "blocked",
            "blocked: the scanner flagged it; the snapshot shows a placeholder".to_owned(),
        )),
        Some(Omitted::OverBudget) => marks.push((
            "over_budget",
            "over budget: left out of the snapshot past the store's budget".to_owned(),
        )),
        Some(Omitted::Expired) | None => {}
    }
    if state == FactState::Expired {
        marks.push(("expired", "expired".to_owned()));
    }
    if let Some(k) = r.archive_kind
        && !matches!(k, ArchiveKind::Vetoed | ArchiveKind::Plain)
    {
        marks.push(("kind", k.name().to_owned()));
    }
    let origin = match (&r.run, &r.task) {
        (Some(run), Some(t)) => format!("run {run}, task {t}"),
        (Some(run), None) => format!("run {run}"),
        (None, Some(t)) => format!("task {t}"),
        (None, None) => "-".to_owned(),
    };
    Fact {
        scope,
        state,
        expires: match (&r.expires_at, state) {
            (Some(t), FactState::Expired) => format!("expired {}", when(t)),
            (Some(t), _) => when(t),
            (None, _) => "never".to_owned(),
        },
        expires_day: r
            .expires_at
            .as_ref()
            .map_or_else(|| "never".to_owned(), day),
        recalls: r.recall_count,
        last_recall: r
            .last_recalled_at
            .as_ref()
            .map_or_else(|| "never".to_owned(), when),
        last_recall_day: r
            .last_recalled_at
            .as_ref()
            .map_or_else(|| "never".to_owned(), day),
        by: by(&r),
        origin,
        reason: r.reason.clone().unwrap_or_default(),
        file,
        hash: hashes.of(file).unwrap_or_default().to_owned(),
        blocked: why == Some(Omitted::Blocked),
        revealed: false,
        fact: r.kind == FactKind::Fact,
        text: r.text,
        id: r.id,
        marks,
    }
}

/// Everything the page shows, read now.
pub struct Read {
    facts: Vec<Fact>,
    listed: usize,
    total: usize,
    hashes: Hashes,
    usage: Vec<(&'static str, String)>,
}

fn list(store: &Store, who: &Who, kind: FactKind) -> Result<(Vec<FactRow>, usize), Shown> {
    // A person's reveal (`who.raw`) is the one exit for raw text.
    let ask = if who.raw && who.caller.is_person() {
        crate::ui::ask_raw
    } else {
        crate::ui::ask
    };
    let r = ask(
        store,
        who,
        Request::List {
            kind: Some(kind),
            status: None,
            all: true,
            limit: Some(MAX_ROWS),
        },
    )
    .map_err(|e| Shown::of(&e))?;
    match r {
        Answer::Rows { rows, total, .. } => Ok((rows, total)),
        _ => Ok((Vec::new(), 0)),
    }
}

/// Reads the agent's rows, marks, hashes and usage, filtered.
pub fn read(store: &Store, who: &Who, f: &Filter) -> Result<Read, Shown> {
    let hashes = hashes(store, who)?;
    let kind = FactKind::parse(&f.kind).unwrap_or(FactKind::Fact);
    let (rows, total) = list(store, who, kind)?;
    let mut omitted = HashMap::new();
    let mut usage = Vec::new();
    if let Answer::Show { stores, .. } =
        crate::ui::ask(store, who, Request::Show { scope: None }).map_err(|e| Shown::of(&e))?
    {
        for v in &stores {
            usage.push((v.scope.name(), v.usage.text.clone()));
            for e in &v.entries {
                if let Some(o) = e.omitted {
                    omitted.insert(e.id.clone(), o);
                }
            }
        }
    }
    let listed = rows.len();
    let needle = f.q.to_lowercase();
    let mut facts: Vec<Fact> = rows
        .into_iter()
        .map(|r| fact(r, &omitted, &hashes))
        .filter(|x| f.store.is_empty() || x.scope == f.store)
        .filter(|x| f.status.is_empty() || x.state.name() == f.status)
        .filter(|x| needle.is_empty() || x.text.to_lowercase().contains(&needle))
        .collect();
    if !f.reveal.is_empty()
        && let Some(x) = facts.iter_mut().find(|x| x.id == f.reveal && x.blocked)
    {
        let raw = Who {
            raw: true,
            ..who.clone()
        };
        let (rows, _) = list(store, &raw, kind)?;
        if let Some(r) = rows.into_iter().find(|r| r.id == x.id) {
            x.text = r.text;
            x.revealed = true;
        }
    }
    Ok(Read {
        facts,
        listed,
        total,
        hashes,
        usage,
    })
}

/// The agent's page as the files are now, with what an action did or its
/// error, answered with `status`.
pub async fn render(
    ui: &Arc<Ui>,
    l: &LoggedIn,
    agent: &str,
    filter: Filter,
    notice: Option<Notice>,
    error: Option<Shown>,
) -> Response {
    let u = ui.clone();
    let who = l.who(agent);
    let f = filter.clone();
    let got = blocking(move || {
        let store = u.open().map_err(|e| Shown::of(&e))?;
        read(&store, &who, &f)
    })
    .await;
    let r = match got {
        Ok(r) => r,
        Err(e) => return error_page(e, Some(l.session.person.clone())),
    };
    let status = error.as_ref().map_or(200, |e| e.status);
    html(
        status,
        &AgentPage {
            chrome: Chrome::of(format!("{agent} — memdir"), &l.session),
            agent: agent.to_owned(),
            seg: encode(agent),
            facts: r.facts,
            listed: r.listed,
            total: r.total,
            filter,
            hashes: r.hashes,
            usage: r.usage,
            notice,
            error,
        },
    )
}

/// `GET /ui/agents/{agent}`: the page, with what this session's last
/// action did when the query names its notice (`?notice=`).
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
    let filter = Filter::of(&fields(q.as_deref().unwrap_or_default().as_bytes()));
    let (done, error) = Said::parts(l.said(&ui, q.as_deref()));
    let notice = done.map(|(text, undo)| Notice { text, undo });
    render(&ui, &l, &agent, filter, notice, error).await
}
