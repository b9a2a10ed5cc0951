//! Transitions of a fact's life: save with `supersedes`, archive with a
//! reason, veto by a person, unarchive, and curation of an over-budget add.
//! All of them run under the owner's lock and keep each file's other bytes.

use std::path::PathBuf;

use chrono::{DateTime, Utc};
use serde::Serialize;

use crate::caller::Caller;
use crate::edit::{Op, OpOutcome, check_text};
use crate::env::{StoreEnv, is_live};
use crate::episodes::{EPISODES_FILE, MAX_EPISODES_BYTES};
use crate::error::{Error, Result};
use crate::facts::{ARCHIVE_FILE, Found, archive_entry_id, archived_id};
use crate::fs;
use crate::id::entry_id;
use crate::journal;
use crate::meta::{ArchiveKind, Meta};
use crate::parse::parse;
use crate::scope::Scope;
use crate::splice;
use crate::store::Owner;

/// A curation candidate: last recalled, created, id, text, metadata.
type Candidate = (Option<DateTime<Utc>>, DateTime<Utc>, String, String, Meta);

/// Longest archive reason, in characters.
pub const MAX_REASON_CHARS: usize = 500;

const ARCHIVE_HEADER: &str =
    "# Archive\n\nArchived memories, with why. `memdir unarchive ID` brings one back.\n";

/// What archiving, vetoing or unarchiving did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Transition {
    /// The memory's id.
    pub id: String,
    /// The state it is in now: `archived` or `active`.
    pub status: &'static str,
    /// The kind of archive, when archived.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kind: Option<ArchiveKind>,
    /// `archived`, `vetoed`, `superseded` or `unarchived`.
    pub message: &'static str,
}

/// What a save did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SaveOutcome {
    /// The new fact.
    #[serde(flatten)]
    pub outcome: OpOutcome,
    /// The store's usage after it.
    pub usage: String,
    /// Facts archived to make room (`curation: auto`) or superseded.
    pub archived: Vec<String>,
}

fn check_reason(reason: &str) -> Result<String> {
    let r = crate::id::fold_whitespace(reason);
    let chars = r.chars().count();
    if r.is_empty() || chars > MAX_REASON_CHARS {
        return Err(Error::BadReason {
            chars,
            limit: MAX_REASON_CHARS,
        });
    }
    Ok(r)
}

impl Owner<'_> {
    fn by(&self) -> String {
        match &self.caller {
            Caller::Agent(a) => format!("agent:{a}"),
            Caller::Person(p) => format!("person:{p}"),
        }
    }

    /// Rewrites one of the owner's files with `f` (editor-safe, durable).
    fn rewrite(
        &self,
        name: &str,
        limit: u64,
        mut f: impl FnMut(&str) -> Result<Option<String>>,
    ) -> Result<()> {
        let path: PathBuf = self.dir().join(name);
        let raw = fs::stable_read(self.io(), &path)?;
        fs::replace_file(self.io(), &self.store.poison, &path, raw, |cur| {
            let src = match cur {
                Some(b) => fs::decode_limited(&path, b.to_vec(), limit)?,
                None => String::new(),
            };
            Ok(f(&src)?.map(String::into_bytes))
        })?;
        Ok(())
    }

    /// Appends archived memories (text and metadata) to archive.md.
    fn append_archive(&self, items: &[(String, Meta)]) -> Result<()> {
        let path = self.dir().join(ARCHIVE_FILE);
        self.rewrite(ARCHIVE_FILE, fs::MAX_FILE_BYTES, |src| {
            let mut cur = if src.trim().is_empty() {
                format!("{ARCHIVE_HEADER}\n")
            } else {
                src.to_owned()
            };
            for (text, meta) in items {
                // A memory archived again replaces its older archive record.
                let id = archived_id(meta, text);
                loop {
                    let doc = parse("archive", &cur);
                    let Some(i) = doc
                        .entries
                        .iter()
                        .position(|e| archive_entry_id(&cur, e) == id.as_str())
                    else {
                        break;
                    };
                    cur = splice::remove(&cur, &doc, i).map_err(|e| Error::InvalidRequest(e.0))?;
                }
                let doc = parse("archive", &cur);
                cur = splice::append("archive", &cur, &doc, text, Some(&meta.render())).map_err(
                    |e| Error::Unplaceable {
                        path: path.clone(),
                        reason: e.0,
                    },
                )?;
            }
            Ok(Some(cur))
        })
    }

    /// The archive metadata for a live entry's metadata.
    fn archive_meta(
        &self,
        mut m: Meta,
        scope: &str,
        kind: ArchiveKind,
        reason: String,
        now: DateTime<Utc>,
    ) -> Meta {
        m.scope = Some(scope.to_owned());
        m.archived = Some(now);
        m.kind = Some(kind);
        m.reason = Some(reason);
        m.archived_by = Some(self.by());
        m
    }

    /// Archives a live memory with a reason (required, at most 500 characters).
    pub fn archive(&self, id: &str, reason: &str) -> Result<Transition> {
        let reason = check_reason(reason)?;
        let _lock = self.lock()?;
        self.archive_locked(id, reason, ArchiveKind::Plain)
    }

    /// A person's veto: archives the memory as `vetoed`; only a person can
    /// bring it back.
    pub fn veto(&self, id: &str, reason: Option<&str>) -> Result<Transition> {
        let Caller::Person(p) = &self.caller else {
            return Err(Error::VetoHumanOnly { id: id.to_owned() });
        };
        let reason = check_reason(reason.unwrap_or(&format!("vetoed by {p}")))?;
        let _lock = self.lock()?;
        self.archive_locked(id, reason, ArchiveKind::Vetoed)
    }

    fn archive_locked(&self, id: &str, reason: String, kind: ArchiveKind) -> Result<Transition> {
        let now = Utc::now();
        match self.locate(id)? {
            Found::Live(scope, i) => {
                let l = self.load(scope)?;
                let e = &l.doc.entries[i];
                let m = Meta::of(e, &l.src);
                let meta = self.archive_meta(m, scope.name(), kind, reason, now);
                self.append_archive(&[(e.text.clone(), meta)])?;
                self.apply_locked(
                    &[Op::Remove {
                        old: id.to_owned(),
                        scope,
                    }],
                    false,
                )?;
            }
            Found::Day(date) => {
                let text = self
                    .day_rows()?
                    .into_iter()
                    .find(|r| r.date == date)
                    .map(|r| r.text)
                    .unwrap_or_default();
                let meta = Meta {
                    date: Some(date),
                    ..self.archive_meta(Meta::default(), "day", kind, reason, now)
                };
                self.append_archive(&[(text, meta)])?;
                self.rewrite(EPISODES_FILE, MAX_EPISODES_BYTES, |src| {
                    Ok(journal::remove_section(src, &journal::parse(src), date))
                })?;
            }
            Found::Archived => {
                return Err(Error::WrongState {
                    id: id.to_owned(),
                    state: "already archived",
                });
            }
            Found::Nowhere => return Err(self.unknown(id, false)?),
        }
        Ok(Transition {
            id: id.to_owned(),
            status: "archived",
            kind: Some(kind),
            message: match kind {
                ArchiveKind::Plain => "archived",
                ArchiveKind::Vetoed => "vetoed",
                ArchiveKind::Superseded => "superseded",
            },
        })
    }

    /// Brings an archived memory back. A superseded memory never comes back;
    /// only a person brings back a vetoed one; a day row whose date has a live
    /// log stays archived.
    pub fn unarchive(&self, id: &str) -> Result<Transition> {
        let _lock = self.lock()?;
        // The archive first: an archived day row shares its id with a live log
        // of the same date.
        let m = match self.locate_archived(id)? {
            Some(m) => m,
            None => match self.locate(id)? {
                Found::Nowhere => return Err(self.unknown(id, false)?),
                _ => {
                    return Err(Error::WrongState {
                        id: id.to_owned(),
                        state: "not archived",
                    });
                }
            },
        };
        match m.kind {
            Some(ArchiveKind::Superseded) => {
                return Err(Error::Superseded {
                    id: id.to_owned(),
                    by: m.superseded_by.clone().unwrap_or_default(),
                });
            }
            Some(ArchiveKind::Vetoed) if !self.caller.is_person() => {
                return Err(Error::VetoHumanOnly { id: id.to_owned() });
            }
            _ => {}
        }
        let (_, asrc) = self.archive_src()?;
        let adoc = parse("archive", &asrc);
        let text = adoc
            .entries
            .iter()
            .find(|e| archive_entry_id(&asrc, e) == id)
            .map(|e| e.text.clone())
            .unwrap_or_default();
        if m.scope.as_deref() == Some("day") {
            let date = m.date.ok_or_else(|| {
                Error::InvalidRequest(format!("{id}: archived day row without a date"))
            })?;
            if self.journal()?.section(date).is_some() {
                return Err(Error::DayExists {
                    date: date.to_string(),
                });
            }
            self.rewrite(EPISODES_FILE, MAX_EPISODES_BYTES, |src| {
                let mut cur = src.to_owned();
                for line in text.split('\n').filter(|l| !l.trim().is_empty()) {
                    cur = journal::append(&cur, &journal::parse(&cur), date, line);
                }
                Ok(Some(cur))
            })?;
        } else {
            let scope = m
                .scope
                .as_deref()
                .and_then(Scope::parse)
                .unwrap_or(Scope::Memory);
            let mut live = m.clone();
            for f in [
                &mut live.archived_by,
                &mut live.reason,
                &mut live.superseded_by,
                &mut live.scope,
            ] {
                *f = None;
            }
            live.archived = None;
            live.kind = None;
            live.date = None;
            live.updated = Some(Utc::now());
            if let Caller::Person(p) = &self.caller {
                live.person = Some(p.clone());
            }
            self.restore(scope, &text, &live)?;
        }
        self.rewrite(ARCHIVE_FILE, fs::MAX_FILE_BYTES, |src| {
            let doc = parse("archive", src);
            let Some(i) = doc
                .entries
                .iter()
                .position(|e| archive_entry_id(src, e) == id)
            else {
                return Ok(None);
            };
            splice::remove(src, &doc, i)
                .map(Some)
                .map_err(|e| Error::InvalidRequest(e.0))
        })?;
        Ok(Transition {
            id: id.to_owned(),
            status: "active",
            kind: None,
            message: "unarchived",
        })
    }

    /// Puts an archived fact back into its store with its metadata, under the budget.
    fn restore(&self, scope: Scope, text: &str, meta: &Meta) -> Result<()> {
        let settings = self.settings()?;
        let path = self.path(scope);
        let now = Utc::now();
        self.rewrite(scope.file_name(), fs::MAX_FILE_BYTES, |src| {
            let doc = parse(scope.name(), src);
            if doc
                .entries
                .iter()
                .any(|e| e.id == entry_id(scope.name(), text))
            {
                return Ok(None);
            }
            let out = splice::append(scope.name(), src, &doc, text, Some(&meta.render())).map_err(
                |e| Error::Unplaceable {
                    path: path.clone(),
                    reason: e.0,
                },
            )?;
            let env = StoreEnv {
                owner: self,
                scope,
                settings: &settings,
                path: &path,
                now,
            };
            let after_doc = parse(scope.name(), &out);
            let (before, after) = (
                crate::edit::used_live(&env, src, &doc),
                crate::edit::used_live(&env, &out, &after_doc),
            );
            let limit = self.budget(scope, &settings, &after_doc, &path)?.limit;
            if after > limit && after > before {
                return Err(Error::OverBudget {
                    file: scope.file_name(),
                    would_use: after,
                    limit,
                    used: before,
                    entries: crate::edit::briefs(&doc, scope),
                });
            }
            Ok(Some(out))
        })
    }

    /// Saves a fact: like [`Owner::add`], with an expiry and optionally
    /// superseding a live fact of the same owner (archived as `superseded`).
    /// With `curation: auto`, an add past the budget first archives the least
    /// recently recalled, oldest facts (reason `curated: over budget`).
    pub fn save(
        &self,
        scope: Scope,
        text: &str,
        expires: Option<&str>,
        supersedes: Option<&str>,
    ) -> Result<SaveOutcome> {
        let text = check_text(text)?;
        let (_lock, settings) = self.lock_for_write()?;
        let now = Utc::now();
        let new_id = entry_id(scope.name(), &text);
        let mut ops = vec![Op::Add {
            text: text.clone(),
            scope,
            expires: expires.map(str::to_owned),
            supersedes: supersedes.map(str::to_owned),
        }];
        let mut archived = Vec::new();
        let mut to_archive: Vec<(String, Meta)> = Vec::new();
        if let Some(old) = supersedes {
            if old == new_id {
                return Err(Error::InvalidRequest(format!(
                    "{old} cannot supersede itself: the new text is the same fact"
                )));
            }
            match self.locate(old)? {
                Found::Live(s, i) => {
                    let l = self.load(s)?;
                    let e = &l.doc.entries[i];
                    let m = Meta::of(e, &l.src);
                    let mut meta = self.archive_meta(
                        m,
                        s.name(),
                        ArchiveKind::Superseded,
                        format!("superseded by {new_id}"),
                        now,
                    );
                    meta.superseded_by = Some(new_id.clone());
                    to_archive.push((e.text.clone(), meta));
                    ops.push(Op::Remove {
                        old: old.to_owned(),
                        scope: s,
                    });
                    archived.push(old.to_owned());
                }
                Found::Day(_) => return Err(Error::DayAppendOnly { id: old.to_owned() }),
                Found::Archived => return Err(Error::SupersedeArchived { id: old.to_owned() }),
                Found::Nowhere => return Err(self.unknown(old, true)?),
            }
        }
        // A plain save is one locked apply (which validates before writing).
        // Planning first is needed only when something must be archived
        // before the write: a superseded fact, or facts curation picks.
        let curating = settings.curation == Some(crate::settings::Curation::Auto);
        if to_archive.is_empty() && !curating {
            let applied = self.apply_locked_with(&ops, false, &settings)?;
            return self.finish_save(applied, scope, archived);
        }
        let l = self.load(scope)?;
        let mine: Vec<&Op> = ops.iter().filter(|o| o.scope() == scope).collect();
        if let Err((_, e)) = self.apply_scope(scope, &settings, &l.path, &l.src, &mine) {
            if !(curating && matches!(e, Error::OverBudget { .. })) {
                return Err(e);
            }
            let victims = self.curation_victims(scope, &l, &text, &ops, &settings, now)?;
            if victims.is_empty() {
                return Err(e);
            }
            for (id, vtext, m) in victims {
                let reason = "curated: over budget".into();
                let meta = self.archive_meta(m, scope.name(), ArchiveKind::Plain, reason, now);
                to_archive.push((vtext, meta));
                ops.insert(
                    0,
                    Op::Remove {
                        old: id.clone(),
                        scope,
                    },
                );
                archived.push(id);
            }
        }
        if !to_archive.is_empty() {
            self.append_archive(&to_archive)?;
        }
        let applied = self.apply_locked_with(&ops, false, &settings)?;
        self.finish_save(applied, scope, archived)
    }

    /// A save's answer from the outcome of its locked apply.
    fn finish_save(
        &self,
        out: crate::store::BatchOutcome,
        scope: Scope,
        archived: Vec<String>,
    ) -> Result<SaveOutcome> {
        let outcome = out
            .results
            .iter()
            .find(|o| o.op == "add")
            .cloned()
            .ok_or_else(|| Error::InvalidRequest("no outcome".into()))?;
        let usage = out
            .usage
            .iter()
            .find(|(s, _)| *s == scope)
            .map(|(_, u)| u.text.clone())
            .unwrap_or_default();
        Ok(SaveOutcome {
            outcome,
            usage,
            archived,
        })
    }

    /// The facts curation archives so that `ops` fit: least recently recalled
    /// first, then oldest.
    fn curation_victims(
        &self,
        scope: Scope,
        l: &crate::store::Loaded,
        text: &str,
        ops: &[Op],
        settings: &crate::settings::Settings,
        now: DateTime<Utc>,
    ) -> Result<Vec<(String, String, Meta)>> {
        let stats = self.load_stats();
        let mut cands: Vec<Candidate> = l
            .doc
            .entries
            .iter()
            .filter(|e| is_live(e.meta.clone().map(|r| &l.src[r]), now) && e.text != text)
            .filter(|e| {
                !ops.iter()
                    .any(|o| matches!(o, Op::Remove { old, .. } if *old == e.id))
            })
            .map(|e| {
                let m = Meta::of(e, &l.src);
                let st = stats.facts.get(&e.id).cloned().unwrap_or_default();
                let created = m.created.or(st.first_seen).unwrap_or(now);
                (
                    st.last_recalled_at,
                    created,
                    e.id.clone(),
                    e.text.clone(),
                    m,
                )
            })
            .collect();
        cands.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2)));
        let mut picked = Vec::new();
        let mut trial: Vec<Op> = ops.to_vec();
        for (_, _, id, vtext, m) in cands {
            trial.insert(
                0,
                Op::Remove {
                    old: id.clone(),
                    scope,
                },
            );
            picked.push((id, vtext, m));
            let mine: Vec<&Op> = trial.iter().filter(|o| o.scope() == scope).collect();
            match self.apply_scope(scope, settings, &l.path, &l.src, &mine) {
                Ok(_) => return Ok(picked),
                Err((_, Error::OverBudget { .. })) => continue,
                Err((_, e)) => return Err(e),
            }
        }
        Ok(Vec::new())
    }
}
