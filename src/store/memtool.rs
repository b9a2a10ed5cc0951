//! Claude's memory tool on an owner's files: what the tool shows (the
//! stores as their views, episodes.md's lines, the root's approved
//! learnings, which skills there are) and a store's edit, written through
//! the one write path of the curated stores (scan, budget, ids, the lock,
//! the editor-safe write) as one batch: the model's new text compared with
//! the view it edits under the owner's lock (`memtool::plan`), entries a
//! whole-file `create` drops archived with the reason `memory tool`.

use chrono::Utc;

use super::files::archive::record_meta;
use super::files::episodes::EPISODES_FILE;
use super::files::pending::PendingSource;
use super::files::stores::{self, Loaded, live_entries};
use super::files::{episodes, learnings, skills};
use super::limits::{STORE_BYTES, STORE_EDIT_BYTES};
use super::owner::Owner;
use super::write::{commit, stage, waits};
use crate::edit::{Op, Usage};
use crate::error::{Error, Result};
use crate::markdown::Entry;
use crate::memtool::{self, Change, ViewEntry};
use crate::model::{ArchiveKind, Origin, Scope};
use crate::scan;

/// The reason an entry a whole-file `create` drops is archived with.
pub(crate) const ARCHIVE_REASON: &str = "memory tool";
/// The most skills the listing names.
const MAX_LISTED_SKILLS: usize = 200;

/// What the owner has that the tool shows, with each file's size.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Files {
    /// The stores' views, memory first.
    pub(crate) stores: Vec<(Scope, Vec<ViewEntry>)>,
    /// episodes.md's size in bytes, when it exists.
    pub(crate) episodes: Option<u64>,
    /// The approved learnings' lines, as the tool shows them.
    pub(crate) learnings: Vec<String>,
    /// The skills, by name, with the size of each SKILL.md.
    pub(crate) skills: Vec<(String, u64)>,
}

/// What a store's edit did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Edited {
    /// The plan written.
    pub(crate) plan: memtool::Plan,
    /// How many entries were archived (a whole-file `create`'s drops).
    pub(crate) archived: usize,
    /// The store's usage after it.
    pub(crate) usage: Option<Usage>,
    /// The store's view after it.
    pub(crate) view: Vec<ViewEntry>,
    /// When the edit waits for a person's review (`writes: review`): its
    /// id in the owner's PENDING.md (nothing written; `view` is the store
    /// as it is).
    pub(crate) pending: Option<String>,
}

/// The entries of a loaded store the tool shows (live ones, outside git
/// conflict regions), each with its line: flagged ones as their
/// placeholders.
fn entries_of(l: &Loaded) -> Vec<(&Entry, ViewEntry)> {
    let (live, _) = live_entries(l, Utc::now());
    live.into_iter()
        .map(|e| {
            let findings = scan::scan(&e.text);
            let view = if findings.is_empty() {
                ViewEntry {
                    id: e.id.clone(),
                    line: memtool::entry_line(&e.text),
                    blocked: false,
                }
            } else {
                ViewEntry {
                    id: e.id.clone(),
                    line: scan::blocked_placeholder(l.scope, &e.id, &findings),
                    blocked: true,
                }
            };
            (e, view)
        })
        .collect()
}

/// The view of one store.
pub(crate) fn store_view(owner: &Owner, scope: Scope) -> Result<Vec<ViewEntry>> {
    let view = owner.view()?;
    let l = stores::load(view.at(), scope, true, STORE_BYTES)?;
    Ok(entries_of(&l).into_iter().map(|(_, v)| v).collect())
}

/// What the owner has that the tool shows.
pub(crate) fn files(owner: &Owner) -> Result<Files> {
    let view = owner.view()?;
    let at = view.at();
    let mut out = Files::default();
    for scope in [Scope::Memory, Scope::User] {
        let l = stores::load(at, scope, true, STORE_BYTES)?;
        out.stores
            .push((scope, entries_of(&l).into_iter().map(|(_, v)| v).collect()));
    }
    if let Some(dir) = at.dir {
        out.episodes = at.disk().stat(dir, EPISODES_FILE)?.map(|s| s.len);
    }
    out.learnings = learning_lines(owner)?;
    if let Some(dir) = skills::dir(at)? {
        let disk = at.disk();
        for name in skills::names(at, &dir)?.into_iter().take(MAX_LISTED_SKILLS) {
            let Some(folder) = disk.open_dir(&dir, &name)? else {
                continue;
            };
            // A plain file only: anything else is no skill the tool shows.
            if let Some(st) = disk.stat(&folder, skills::SKILL_FILE)?
                && st.kind == crate::disk::Kind::File
            {
                out.skills.push((name, st.len));
            }
        }
    }
    Ok(out)
}

/// The lines of episodes.md, as its file holds them.
pub(crate) fn episode_lines(owner: &Owner) -> Result<Vec<String>> {
    let view = owner.view()?;
    let (_, text) = episodes::read(view.at())?;
    Ok(text.lines().map(str::to_owned).collect())
}

/// The root's approved learnings, one line each: flagged ones as their
/// placeholders.
pub(crate) fn learning_lines(owner: &Owner) -> Result<Vec<String>> {
    let store = owner.store();
    let Some(root) = store.disk().open_root(store.root())? else {
        return Ok(Vec::new());
    };
    Ok(learnings::approved(store.disk(), &root)?
        .into_iter()
        .map(|a| {
            let what = format!("{} entry {}", learnings::LEARNINGS_FILE, a.id);
            scan::blocked_text(&a.text, &what).unwrap_or_else(|| memtool::entry_line(&a.text))
        })
        .collect())
}

/// Edits the store `scope` (the tool's `path`) under the owner's lock:
/// `change` makes the new text from the view as it is now (so an edit made
/// by hand since the model's view is kept), the plan is checked
/// (`memtool::plan`) and written as one batch, the entries it drops
/// archived with the reason `memory tool` when `whole` (a `create`) and
/// removed otherwise. `Ok(Err(text))`: refused, with the text the model
/// reads (the plan's refusal, or memdir's reason for refusing the write,
/// naming the line of the new text).
pub(crate) fn edit(
    owner: &Owner,
    scope: Scope,
    path: &str,
    whole: bool,
    change: &dyn Fn(&[ViewEntry]) -> std::result::Result<String, String>,
) -> Result<std::result::Result<Edited, String>> {
    let locked = owner.lock()?;
    let at = locked.at();
    let l = stores::load(at, scope, true, STORE_EDIT_BYTES)?;
    let shown = entries_of(&l);
    let views: Vec<ViewEntry> = shown.iter().map(|(_, v)| v.clone()).collect();
    let new_text = match change(&views) {
        Ok(t) => t,
        Err(refusal) => return Ok(Err(refusal)),
    };
    let plan = match memtool::plan(path, &views, &new_text) {
        Ok(p) => p,
        Err(refusal) => return Ok(Err(refusal)),
    };
    let now = Utc::now();
    let mut ops = Vec::with_capacity(plan.changes.len());
    let mut lines = Vec::with_capacity(plan.changes.len());
    let mut records = Vec::new();
    for c in &plan.changes {
        match c {
            Change::Replace { entry, text, line } => {
                ops.push(Op::Replace {
                    old: views[*entry].id.clone(),
                    new: text.clone(),
                    scope: Some(scope),
                });
                lines.push(format!("line {line} of the new text"));
            }
            Change::Remove { entry } => {
                let (e, v) = &shown[*entry];
                ops.push(Op::Remove {
                    old: v.id.clone(),
                    scope: Some(scope),
                });
                lines.push(format!("line {} of the view", entry + 1));
                if whole {
                    let meta = record_meta(
                        e.metadata(&l.src),
                        Origin::from(scope),
                        ArchiveKind::Plain,
                        ARCHIVE_REASON.into(),
                        now,
                        owner.caller(),
                    );
                    records.push((e.text.clone(), meta));
                }
            }
            Change::Add { text, line } => {
                ops.push(Op::add(scope, text.clone()));
                lines.push(format!("line {line} of the new text"));
            }
        }
    }
    let archived = records.len();
    if ops.is_empty() {
        return Ok(Ok(Edited {
            plan,
            archived: 0,
            usage: None,
            view: views,
            pending: None,
        }));
    }
    // Under `writes: review`, an agent's edit that writes text waits for a
    // person: a drop of a whole-file `create` is kept as a removal that
    // archives, its record made when it is approved.
    let done = if waits(at, &ops)? {
        let archives: Vec<Option<String>> = ops
            .iter()
            .map(|op| (whole && matches!(op, Op::Remove { .. })).then(|| ARCHIVE_REASON.to_owned()))
            .collect();
        stage(&locked, &ops, &archives, true, PendingSource::MemoryTool)
    } else {
        commit(&locked, &ops, records, true)
    };
    let written = match done {
        Ok(w) => w,
        Err(e) if memtool::is_refusal(&e) => return Ok(Err(refusal(&e, &lines))),
        Err(e) => return Err(e),
    };
    let usage = written
        .usage
        .into_iter()
        .find(|(s, _)| *s == scope)
        .map(|(_, u)| u);
    let after = stores::load(at, scope, true, STORE_EDIT_BYTES)?;
    let view = entries_of(&after).into_iter().map(|(_, v)| v).collect();
    Ok(Ok(Edited {
        plan,
        archived: if written.pending.is_some() {
            0
        } else {
            archived
        },
        usage,
        view,
        pending: written.pending,
    }))
}

/// memdir's reason for refusing a write, for the model: the message of the
/// operation's error, naming its line (`lines[i]` for operation `i`).
fn refusal(e: &Error, lines: &[String]) -> String {
    match e {
        Error::Batch { index, source } => match lines.get(*index) {
            Some(l) => format!("{l}: {source}"),
            None => source.to_string(),
        },
        e => e.to_string(),
    }
}
