//! What the long-running surfaces (`memdir mcp`, `memdir serve`) ask of
//! memdir beyond the command line's requests: the namespace rule for an
//! owner named in a call, the One API's structured recall and its `forget`
//! by id or text across both stores, and the current entries a failed write
//! answers with; and [`Kept`], the store `memdir serve` keeps between its
//! calls (every call still reads the files it answers from).

pub mod replica;

use std::borrow::Cow;
use std::time::{Duration, Instant};

use serde::Serialize;

use super::Who;
use crate::edit::Op;
use crate::error::{EntryBrief, Error, Result};
use crate::model::{Caller, Scope};
use crate::recall::{Bm25Scorer, KeptBm25, Scorer};
use crate::store::{DueOutcome, ReviewOptions, Store, WriteOutcome};

/// How a server opens the store (server plumbing, no answer to anyone):
/// afresh for every call (so that
/// `memdir.yaml`, `config.yaml` and the files are read as they are now, not
/// as they were when the server started).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Opener {
    /// The memory root.
    pub root: std::path::PathBuf,
    /// The machine-local configuration folder, when given.
    pub config_dir: Option<std::path::PathBuf>,
    /// How long writers wait for an owner's lock, when given.
    pub lock_timeout: Option<Duration>,
    /// The recall model's folder, when given (`--recall-model`): loaded
    /// once per process, shared by every store opened.
    pub recall_model: Option<std::path::PathBuf>,
    /// The replica the server is (`memdir serve --replica`), when given:
    /// it answers only for the owners homed on it (docs/SCALING.md).
    pub replica: Option<String>,
}

impl Opener {
    /// The store as it is now.
    pub fn open(&self) -> Result<Store> {
        let mut store = Store::open(&self.root)?;
        if let Some(dir) = &self.config_dir {
            store = store.with_config_dir(dir);
        }
        if let Some(t) = self.lock_timeout {
            store = store.with_lock_timeout(t);
        }
        if let Some(p) = &self.recall_model {
            store = store.with_recall_model(p);
        }
        if let Some(r) = &self.replica {
            store = store.with_replica(r);
        }
        Ok(store)
    }
}

/// The store a server keeps between its calls: opened once, then
/// [`Store::reopen`]ed for each call (what it remembers is kept only where
/// the files still back it), with recall figures written behind
/// ([`Store::with_stats_behind`]): call [`Kept::write_behind`] every second or
/// so and at a clean stop.
#[derive(Debug)]
pub struct Kept {
    opener: Opener,
    store: std::sync::Mutex<Option<Store>>,
}

impl Kept {
    /// Nothing kept yet: the first call opens the store.
    pub fn new(opener: Opener) -> Kept {
        Kept {
            opener,
            store: std::sync::Mutex::new(None),
        }
    }

    fn kept(&self) -> std::sync::MutexGuard<'_, Option<Store>> {
        self.store
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The store as the root's files are now, for one call.
    pub fn open(&self) -> Result<Store> {
        let last = self.kept().clone();
        let store = match last {
            Some(s) => s.reopen()?,
            None => self.opener.open()?.with_stats_behind().with_group_commit(),
        };
        *self.kept() = Some(store.clone());
        Ok(store)
    }

    /// The writes answered in groups and the groups written so far.
    pub fn group_counts(&self) -> (u64, u64) {
        let last = self.kept().clone();
        last.and_then(|s| s.group_counts()).unwrap_or((0, 0))
    }

    /// Writes the recall figures kept behind.
    pub fn write_behind(&self) -> Result<()> {
        let last = self.kept().clone();
        last.map_or(Ok(()), |s| s.write_stats_behind())
    }
}

/// One pass of the review routine ("Memory dreaming") over every owner
/// under the root, as `memdir serve` makes it every few minutes: each
/// owner's `review --due` (a review only where the owner's files say one is
/// due, with the machine-local reviewer if one is configured; reading two
/// files and taking no lock where none is). Each owner's outcome apart, so
/// one owner's failure stops no other's review.
///
/// On a replica (`--replica`), only the owners homed on it are reviewed.
///
/// Not an answer to an agent, so not a [`Request`](super::Request): the
/// server's own timer calls it and writes only its log (owner ids and
/// error codes), never an outcome's text to a caller.
pub fn review_due_owners(opener: &Opener) -> Result<Vec<(String, Result<DueOutcome>)>> {
    let store = opener.open()?;
    let opts = ReviewOptions {
        dry_run: false,
        due: true,
        reviewer: None,
    };
    Ok(store
        .owners()?
        .into_iter()
        // A replica reviews only the owners homed on it.
        .filter(|id| store.require_home(id).is_ok())
        .map(|id| {
            let done = store.owner(&id).and_then(|o| {
                let done = o.reviews().due(&opts)?;
                // A review that ran computes the vectors semantic recall
                // lacks (best effort).
                #[cfg(feature = "embed")]
                if done.ran.is_some() {
                    let _ = o.embed_missing();
                }
                Ok(done)
            });
            (id, done)
        })
        .collect())
}

/// One store as a reader sees it (an MCP resource, `remember`'s read):
/// its entries, expired ones included, in file order. The guard makes each
/// flagged entry its `[BLOCKED: …]` placeholder and escapes the others as
/// the snapshot does; `render` writes it as a markdown list.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StoreMarkdown {
    /// The store.
    pub scope: Scope,
    /// Its entries.
    pub entries: Vec<EntryOut>,
}

/// The store view [`Request::StoreView`](super::Request::StoreView)
/// answers.
pub(crate) fn store_view(store: &Store, who: &Who, scope: Scope) -> Result<StoreMarkdown> {
    let owner = who.owner(store)?;
    let entries = owner
        .show(scope)?
        .entries
        .into_iter()
        .map(|e| EntryOut {
            id: e.id,
            scope,
            text: e.text,
            score: None,
        })
        .collect();
    Ok(StoreMarkdown { scope, entries })
}

/// The default number of entries the One API's recall answers.
pub const DEFAULT_RECALL_LIMIT: usize = 20;
/// The most entries the One API's recall answers.
pub const MAX_RECALL_LIMIT: usize = 500;

/// The seed's namespace rule for an owner named in a call (`memory_owner`,
/// `owner`, `agentId`) to a server whose identity is `server`:
///
/// * an agent's server honours a name only when it is the agent itself;
///   any other name is ignored, with a warning, and the call acts on the
///   agent's own memory (a copied configuration never reaches another
///   owner's memory);
/// * a person's server takes the name as the agent to act on (the person
///   may act on any agent; `None` keeps the server's own default).
pub fn resolve_named(server: &Who, named: Option<&str>) -> (Who, Option<String>) {
    let named = named.map(str::trim).filter(|n| !n.is_empty());
    match (&server.caller, named) {
        (_, None) => (server.clone(), None),
        (Caller::Agent(me), Some(n)) if n == me => (server.clone(), None),
        (Caller::Agent(me), Some(n)) => (
            server.clone(),
            Some(format!(
                "owner {n:?} ignored: this server acts only on {me}'s own memory"
            )),
        ),
        (Caller::Person(_), Some(n)) => (
            Who {
                caller: server.caller.clone(),
                named: Some(n.to_owned()),
                raw: server.raw,
            },
            None,
        ),
    }
}

/// One entry as the One API's recall answers it.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct EntryOut {
    /// Its `mem_` id.
    #[schemars(pattern(r"^mem_[0-9a-f]{12}$"))]
    pub id: String,
    /// Its store (`memory`, `user`).
    pub scope: Scope,
    /// Its text; for an entry the scanner flags, its `[BLOCKED: …]`
    /// placeholder (the raw text stays in the file for a person to see).
    pub text: String,
    /// The relevance score against the query, when there was one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub score: Option<f64>,
}

/// The entries of both stores, USER.md first, for the One API's
/// `GET /v1/memory/recall`: with a query, only the entries the recall
/// scorer finds any evidence for, best first; at most `limit` (default
/// [`DEFAULT_RECALL_LIMIT`], at most [`MAX_RECALL_LIMIT`]). It does not count
/// as a recall. Flagged entries answer with their placeholder.
pub(crate) fn recall_entries(
    store: &Store,
    who: &Who,
    query: Option<&str>,
    limit: Option<usize>,
) -> Result<Vec<EntryOut>> {
    let owner = who.owner(store)?;
    let limit = limit
        .unwrap_or(DEFAULT_RECALL_LIMIT)
        .clamp(1, MAX_RECALL_LIMIT);
    // The entries as kept between calls while their files are as they were;
    // only those answered are copied.
    let kept = owner.kept_entry_texts()?;
    let shown: Vec<Cow<'_, str>> = kept
        .iter()
        .map(|e| {
            if e.flagged.is_empty() {
                Cow::Borrowed(e.text.as_str())
            } else {
                Cow::Owned(format!(
                    "[BLOCKED: {} entry {} matched {}; remove or edit it]",
                    e.scope.file_name(),
                    e.id,
                    e.flagged.join(", ")
                ))
            }
        })
        .collect();
    let query = query.map(str::trim).filter(|q| !q.is_empty());
    let order: Vec<(usize, Option<f64>)> = match query {
        None => (0..shown.len()).map(|i| (i, None)).collect(),
        Some(q) => ranked(store, q, &shown)?,
    };
    Ok(order
        .into_iter()
        .take(limit)
        .map(|(i, score)| EntryOut {
            id: kept[i].id.clone(),
            scope: kept[i].scope,
            text: shown[i].clone().into_owned(),
            score,
        })
        .collect())
}

/// The places in `texts` of those the recall scorer finds any evidence
/// for in `q`, best first, with their scores (a tie keeps file order); when
/// scoring fails, of those that contain `q`.
fn ranked(store: &Store, q: &str, texts: &[Cow<'_, str>]) -> Result<Vec<(usize, Option<f64>)>> {
    if q.chars().count() > crate::recall::MAX_QUERY_CHARS {
        return Err(Error::QueryTooLong {
            chars: q.chars().count(),
            limit: crate::recall::MAX_QUERY_CHARS,
        });
    }
    let docs: Vec<&str> = texts.iter().map(AsRef::as_ref).collect();
    let deadline = Instant::now() + Duration::from_secs(2);
    let scorer = KeptBm25 {
        scorer: &Bm25Scorer::default(),
        kept: store.recall_terms(),
    };
    Ok(match scorer.score(q, &docs, deadline) {
        Ok(scores) => {
            let mut order: Vec<(usize, Option<f64>)> = scores
                .into_iter()
                .enumerate()
                .filter(|(_, s)| *s > 0.0)
                .map(|(i, s)| (i, Some(s)))
                .collect();
            order.sort_by(|a, b| b.1.unwrap_or(0.0).total_cmp(&a.1.unwrap_or(0.0)));
            order
        }
        // Scoring failed: the entries that contain the query.
        Err(_) => {
            let q = q.to_lowercase();
            docs.iter()
                .enumerate()
                .filter(|(_, t)| t.to_lowercase().contains(&q))
                .map(|(i, _)| (i, None))
                .collect()
        }
    })
}

/// What `forget` names: an entry's id, or a text that must match exactly
/// one entry of the two stores.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ForgetKey {
    /// A `mem_` id.
    Id(String),
    /// A substring of exactly one entry's text.
    Text(String),
}

/// Removes the one entry `key` names, in whichever store holds it (the One
/// API's `POST /v1/memory/forget`): `memory_not_found` when none does,
/// `memory_ambiguous_match` (with the candidates) when a text matches
/// several entries, in one store or both: the write path decides, under
/// the owner's lock, as `memdir remove` without `--in` does.
pub(crate) fn forget(store: &Store, who: &Who, key: &ForgetKey) -> Result<WriteOutcome> {
    let owner = who.owner(store)?;
    let (ForgetKey::Id(query) | ForgetKey::Text(query)) = key;
    if matches!(key, ForgetKey::Text(_)) && query.trim().is_empty() {
        return Err(Error::Required {
            what: "id or text",
            action: "forget",
        });
    }
    // The write path's own search (one rule and one answer on every surface).
    owner.write(Op::Remove {
        old: query.clone(),
        scope: None,
    })
}

/// The current entries of both stores, as a failed write answers with them
/// so that a replace or remove can be retried with an exact text or id.
pub(crate) fn current_entries(store: &Store, who: &Who) -> Result<Vec<(Scope, EntryBrief)>> {
    let owner = who.owner(store)?;
    let mut out = Vec::new();
    for scope in Scope::ALL {
        for e in owner.show(scope)?.entries {
            out.push((
                scope,
                EntryBrief {
                    expired: e.expired,
                    id: e.id,
                    text: e.text,
                    file: scope.file_name(),
                },
            ));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn agent(id: &str) -> Who {
        Who {
            caller: Caller::Agent(id.into()),
            named: None,
            raw: false,
        }
    }

    #[test]
    fn an_agent_server_honours_only_its_own_name() {
        let me = agent("agt_a");
        assert_eq!(resolve_named(&me, Some("agt_a")), (me.clone(), None));
        assert_eq!(resolve_named(&me, None), (me.clone(), None));
        let (who, warning) = resolve_named(&me, Some("agt_b"));
        assert_eq!(who, me);
        assert!(warning.unwrap().contains("\"agt_b\" ignored"));
        let person = Who {
            caller: Caller::Person("alice".into()),
            named: None,
            raw: false,
        };
        let (who, warning) = resolve_named(&person, Some("agt_b"));
        assert_eq!(who.named.as_deref(), Some("agt_b"));
        assert_eq!(warning, None);
    }

    #[test]
    fn forget_by_text_spans_both_stores() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        let me = agent("agt_f");
        let owner = me.owner(&store).unwrap();
        owner.add(Scope::User, "Prefers weekly summaries").unwrap();
        owner
            .add(Scope::Memory, "Weekly report goes out Friday")
            .unwrap();
        owner.add(Scope::Memory, "Staging needs the VPN").unwrap();
        let e = forget(&store, &me, &ForgetKey::Text("ee".into())).unwrap_err();
        assert_eq!(e.code().as_str(), "memory_ambiguous_match");
        let e = forget(&store, &me, &ForgetKey::Text("nothing".into())).unwrap_err();
        assert_eq!(e.code().as_str(), "memory_not_found");
        let w = forget(&store, &me, &ForgetKey::Text("weekly summ".into())).unwrap();
        assert_eq!(w.outcome.scope, Scope::User);
        let id = owner.show(Scope::Memory).unwrap().entries[1].id.clone();
        let w = forget(&store, &me, &ForgetKey::Id(id.clone())).unwrap();
        assert_eq!(w.outcome.id, id);
        assert_eq!(owner.show(Scope::Memory).unwrap().entries.len(), 1);
    }

    #[test]
    fn recall_entries_ranks_filters_and_limits() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        let me = agent("agt_r");
        let owner = me.owner(&store).unwrap();
        owner.add(Scope::User, "Prefers weekly summaries").unwrap();
        owner.add(Scope::Memory, "Staging needs the VPN").unwrap();
        owner.add(Scope::Memory, "Deploys run on Fridays").unwrap();
        assert_eq!(recall_entries(&store, &me, None, None).unwrap().len(), 3);
        assert_eq!(recall_entries(&store, &me, None, Some(2)).unwrap().len(), 2);
        let hits = recall_entries(&store, &me, Some("weekly"), None).unwrap();
        assert_eq!(hits.len(), 1, "{hits:?}");
        assert_eq!(hits[0].text, "Prefers weekly summaries");
        assert_eq!(hits[0].scope, Scope::User);
        let hits = recall_entries(&store, &me, Some("staging VPN"), None).unwrap();
        assert_eq!(hits[0].text, "Staging needs the VPN");
    }
}
