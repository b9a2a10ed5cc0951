//! Moving in from another tool: `import hermes DIR` reads a Hermes-style
//! memories folder (`MEMORY.md`, `USER.md`, entries separated by a line
//! holding only `§`) into the owner's stores, and `export --format hermes
//! DIR` writes the reverse.
//!
//! An import goes through the one write path of the curated stores
//! (`write::commit`, as `memdir add` and `batch`): every entry is checked
//! and scanned, the budget is checked on the whole file, and each file is
//! written once, under the owner's lock, all or none. With `partial`, what
//! does not fit (or is refused) is left out and listed, and the rest is
//! written. An entry whose text a store already holds is skipped and
//! listed, so importing twice changes nothing.

use std::path::Path;

use chrono::Utc;
use serde::Serialize;

use super::files::pending::PendingSource;
use super::files::stores;
use super::limits::{STORE_BYTES, STORE_EDIT_BYTES};
use super::owner::{At, Owner};
use super::write::{Written, plan, submit};
use crate::edit::{self, Op, Usage};
use crate::error::{Error, Result};
use crate::markdown::hermes;
use crate::markdown::splice::normalize_text;
use crate::model::{Scope, is_live};

/// How to import.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ImportOptions {
    /// Import what fits and list the rest (default: all or none per file).
    pub partial: bool,
    /// Plan and report; write nothing.
    pub dry_run: bool,
}

/// One entry an import took in.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct ImportedEntry {
    /// Its `mem_` id.
    #[schemars(pattern(r"^mem_[0-9a-f]{12}$"))]
    pub id: String,
    /// Its text.
    pub text: String,
}

/// One entry an import left out, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct LeftOut {
    /// Its place in the source file (1 for the first entry).
    #[schemars(range(min = 1))]
    pub index: usize,
    /// Its text.
    pub text: String,
    /// Why: an error code (`memory_threat_blocked`, `memory_over_budget`,
    /// …) for a refusal, `already_stored` or `duplicate` for a skip,
    /// `file_refused` for an entry held back with its file.
    #[schemars(pattern(r"^[a-z][a-z0-9_]*$"))]
    pub code: &'static str,
    /// The reason in words.
    pub reason: String,
}

/// What an import did with one file (serialised as `imported`, `partial`,
/// `refused` or `unchanged`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ImportStatus {
    /// Every new entry imported.
    Imported,
    /// Some entries imported, some refused.
    Partial,
    /// None imported (all or none: one was refused).
    Refused,
    /// Nothing new.
    Unchanged,
    /// The new entries wait for a person's review (`writes: review`):
    /// nothing written yet (`pending_id` names the write).
    Pending,
}

impl ImportStatus {
    /// Its wire word.
    pub const fn as_str(self) -> &'static str {
        match self {
            ImportStatus::Imported => "imported",
            ImportStatus::Partial => "partial",
            ImportStatus::Refused => "refused",
            ImportStatus::Unchanged => "unchanged",
            ImportStatus::Pending => "pending",
        }
    }
}

impl std::fmt::Display for ImportStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What an import did with one file of the folder.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct ImportedFile {
    /// `MEMORY.md` or `USER.md`.
    #[schemars(extend("enum" = ["MEMORY.md", "USER.md"]))]
    pub file: &'static str,
    /// The store it went into.
    pub scope: Scope,
    /// `imported` (every new entry), `partial` (some were refused),
    /// `refused` (none: all or none) or `unchanged` (nothing new).
    pub status: ImportStatus,
    /// How many entries the file holds.
    pub entries: usize,
    /// The entries written (with a dry run: that would be written).
    pub imported: Vec<ImportedEntry>,
    /// The entries already stored (or repeated in the file): not written.
    pub skipped: Vec<LeftOut>,
    /// The entries refused, and those held back with a refused file.
    pub refused: Vec<LeftOut>,
    /// The store's usage after the import (as it is, when nothing was
    /// written).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
    /// Facts archived to make room (`curation: auto`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub archived: Vec<String>,
    /// When the file's new entries wait for a person's review (`writes:
    /// review`; `status` is then `pending`): their write's id in the
    /// owner's PENDING.md.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(pattern(r"^pnd_[0-9a-f]{12}$"))]
    pub pending_id: Option<String>,
}

/// What `import hermes` did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct HermesImport {
    /// The folder read.
    pub dir: String,
    /// Nothing was written.
    pub dry_run: bool,
    /// What fits was imported and the rest listed.
    pub partial: bool,
    /// Each file found, USER.md first.
    pub files: Vec<ImportedFile>,
    /// Notes, such as a clamped budget or a commit that failed.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

/// One file `export --format hermes` wrote.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct ExportedFile {
    /// `MEMORY.md` or `USER.md`.
    #[schemars(extend("enum" = ["MEMORY.md", "USER.md"]))]
    pub file: &'static str,
    /// The store it came from.
    pub scope: Scope,
    /// How many entries it holds.
    pub entries: usize,
    /// Its size in bytes.
    pub bytes: usize,
    /// Whether it replaced a file that was there (`--force`).
    pub replaced: bool,
    /// The entries left out: `expired`, or `blocked` (the scanner flags
    /// them; they stay in memdir for a person to see).
    pub left_out: Vec<LeftOut>,
}

/// What `export --format hermes` did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct HermesExport {
    /// The folder written.
    pub dir: String,
    /// Nothing was written.
    pub dry_run: bool,
    /// Both files, USER.md first.
    pub files: Vec<ExportedFile>,
}

/// An entry of the source file, in order.
struct Source {
    index: usize,
    text: String,
}

/// Imports the Hermes-style folder `dir` into `owner`'s stores.
pub(crate) fn import(owner: &Owner, dir: &Path, opts: ImportOptions) -> Result<HermesImport> {
    let disk = owner.disk();
    let nothing = || Error::ImportNothing {
        path: dir.to_owned(),
    };
    let folder = disk.open_root(dir)?.ok_or_else(nothing)?;
    let mut texts = Vec::new();
    for scope in Scope::ALL {
        if let Some(t) = disk.read_text(&folder, scope.file_name(), STORE_BYTES)? {
            texts.push((scope, t));
        }
    }
    if texts.is_empty() {
        return Err(nothing());
    }
    let mut report = HermesImport {
        dir: dir.display().to_string(),
        dry_run: opts.dry_run,
        partial: opts.partial,
        files: Vec::new(),
        warnings: Vec::new(),
    };
    if opts.dry_run {
        // A dry run reads: it creates no folder and takes no lock.
        let view = owner.view()?;
        for (scope, text) in &texts {
            let (file, warnings) = import_file(view.at(), None, *scope, text, opts)?;
            report.files.push(file);
            report.warnings.extend(warnings);
        }
    } else {
        let locked = owner.lock()?;
        for (scope, text) in &texts {
            let (file, warnings) = import_file(locked.at(), Some(&locked), *scope, text, opts)?;
            report.files.push(file);
            report.warnings.extend(warnings);
        }
    }
    report.warnings.dedup();
    Ok(report)
}

/// Whether a refusal is of one entry (the rest of the file may go in with
/// `partial`) rather than of the store.
fn of_an_entry(e: &Error) -> bool {
    matches!(
        e,
        Error::OverBudget { .. }
            | Error::TextEmpty
            | Error::TextTooLong { .. }
            | Error::TextInvalid { .. }
            | Error::ThreatBlocked { .. }
            | Error::SecretInMemory { .. }
    )
}

fn left_out(s: &Source, code: &'static str, reason: String) -> LeftOut {
    LeftOut {
        index: s.index,
        text: s.text.clone(),
        code,
        reason,
    }
}

/// One file of the folder into the store `scope`: written through
/// `locked` (none: a dry run, planned on `at`).
fn import_file(
    at: At<'_>,
    locked: Option<&super::owner::Locked<'_>>,
    scope: Scope,
    text: &str,
    opts: ImportOptions,
) -> Result<(ImportedFile, Vec<String>)> {
    let all = hermes::split(text);
    let mut file = ImportedFile {
        file: scope.file_name(),
        scope,
        status: ImportStatus::Unchanged,
        entries: all.len(),
        imported: Vec::new(),
        skipped: Vec::new(),
        refused: Vec::new(),
        usage: None,
        archived: Vec::new(),
        pending_id: None,
    };
    let loaded = stores::load(at, scope, true, STORE_EDIT_BYTES)?;
    let stored: Vec<&str> = loaded.doc.entries.iter().map(|e| e.text.as_str()).collect();
    // Each entry checked alone first, so that every refusal is listed (the
    // write path stops at the first).
    let mut seen: Vec<String> = Vec::new();
    let mut todo: Vec<Source> = Vec::new();
    for (i, raw) in all.iter().enumerate() {
        let s = Source {
            index: i + 1,
            text: raw.clone(),
        };
        let norm = normalize_text(raw);
        if stored.contains(&norm.as_str()) {
            file.skipped.push(left_out(
                &s,
                "already_stored",
                format!("already stored in {}", scope.file_name()),
            ));
        } else if seen.contains(&norm) {
            file.skipped.push(left_out(
                &s,
                "duplicate",
                "the same text again earlier in the file".into(),
            ));
        } else if let Err(e) = edit::check_text(raw) {
            seen.push(norm);
            file.refused
                .push(left_out(&s, e.code().as_str(), e.to_string()));
        } else {
            seen.push(norm);
            todo.push(s);
        }
    }
    let mut warnings = Vec::new();
    if !file.refused.is_empty() && !opts.partial {
        hold_back(&mut file, &todo, "another entry of the file was refused");
        file.usage = Some(usage_now(at, scope)?);
        return Ok((file, warnings));
    }
    // The whole file through the write path; with `partial`, an entry it
    // refuses is left out and the rest planned again.
    loop {
        if todo.is_empty() {
            file.usage = Some(usage_now(at, scope)?);
            break;
        }
        let ops: Vec<Op> = todo
            .iter()
            .map(|s| Op::add(scope, s.text.clone()))
            .collect();
        let done: Result<Written> = match locked {
            Some(l) => submit(l, &ops, true, PendingSource::Import),
            None => plan(at, &ops, Vec::new(), true).map(|p| p.outcome(at)),
        };
        match done {
            Ok(w) => {
                file.imported = w
                    .results
                    .iter()
                    .map(|o| ImportedEntry {
                        id: o.id.clone(),
                        text: o.text.clone().unwrap_or_default(),
                    })
                    .collect();
                file.usage = w
                    .usage
                    .iter()
                    .find(|(s, _)| *s == scope)
                    .map(|(_, u)| u.clone());
                file.archived = w.archived;
                file.pending_id = w.pending;
                warnings = w.warnings;
                break;
            }
            Err(Error::Batch { index, source }) if of_an_entry(&source) => {
                let s = todo.remove(index.min(todo.len() - 1));
                file.refused
                    .push(left_out(&s, source.code().as_str(), source.to_string()));
                if !opts.partial {
                    hold_back(&mut file, &todo, "another entry of the file was refused");
                    file.usage = Some(usage_now(at, scope)?);
                    break;
                }
            }
            Err(Error::Batch { source, .. }) => return Err(*source),
            Err(e) => return Err(e),
        }
    }
    file.refused.sort_by_key(|l| l.index);
    file.status = match (file.imported.is_empty(), file.refused.is_empty()) {
        _ if file.pending_id.is_some() => ImportStatus::Pending,
        (false, true) => ImportStatus::Imported,
        (false, false) => ImportStatus::Partial,
        (true, false) => ImportStatus::Refused,
        (true, true) => ImportStatus::Unchanged,
    };
    Ok((file, warnings))
}

/// Lists the entries of `todo` as held back with their refused file.
fn hold_back(file: &mut ImportedFile, todo: &[Source], why: &str) {
    file.refused.extend(
        todo.iter()
            .map(|s| left_out(s, "file_refused", why.to_owned())),
    );
    file.refused.sort_by_key(|l| l.index);
    file.status = ImportStatus::Refused;
}

/// The usage of `scope` as the store is.
fn usage_now(at: At<'_>, scope: Scope) -> Result<Usage> {
    let l = stores::load(at, scope, true, STORE_EDIT_BYTES)?;
    let now = Utc::now();
    let cx = l.context(at, now);
    let budget = cx.budget(&l.doc)?;
    Ok(Usage::new(
        edit::used_live(&cx, &l.src, &l.doc),
        budget.limit,
    ))
}

/// Writes the owner's live entries to `dir` as `MEMORY.md` and `USER.md`
/// (created, with the folder, if missing); refuses to replace either file
/// unless `force`. Expired entries and those the scanner flags are left
/// out and listed.
pub(crate) fn export(
    owner: &Owner,
    dir: &Path,
    force: bool,
    dry_run: bool,
) -> Result<HermesExport> {
    let view = owner.view()?;
    let at = view.at();
    let disk = owner.disk();
    let now = Utc::now();
    let mut out = Vec::new();
    for scope in Scope::ALL {
        let l = stores::load(at, scope, true, STORE_EDIT_BYTES)?;
        let mut texts = Vec::new();
        let mut left = Vec::new();
        for (i, e) in l.doc.entries.iter().enumerate() {
            let s = Source {
                index: i + 1,
                text: e.text.clone(),
            };
            if !is_live(e.meta_comment(&l.src), now) {
                left.push(left_out(
                    &s,
                    "expired",
                    "expired: not in the snapshot".into(),
                ));
            } else if let Err(err) = edit::refuse_flagged(&e.text) {
                left.push(left_out(&s, "blocked", err.to_string()));
            } else {
                texts.push(e.text.as_str());
            }
        }
        let bytes = hermes::join(texts.iter().copied());
        out.push((scope, bytes, texts.len(), left));
    }
    let folder = match disk.open_root(dir)? {
        Some(f) => Some(f),
        None if dry_run => None,
        None => Some(disk.ensure_root(dir)?),
    };
    let mut files = Vec::new();
    for (scope, bytes, entries, left_out) in &out {
        let name = scope.file_name();
        let there = match &folder {
            Some(f) => disk.stat(f, name)?.is_some(),
            None => false,
        };
        if there && !force {
            return Err(Error::ExportExists {
                path: dir.join(name),
            });
        }
        files.push(ExportedFile {
            file: name,
            scope: *scope,
            entries: *entries,
            bytes: bytes.len(),
            replaced: there,
            left_out: left_out.clone(),
        });
    }
    if !dry_run && let Some(f) = &folder {
        for (scope, bytes, _, _) in &out {
            let name = scope.file_name();
            if force {
                disk.write_atomic(f, name, bytes.as_bytes())?;
            } else if !disk.create_new(f, name, bytes.as_bytes(), 0o644)? {
                return Err(Error::ExportExists {
                    path: dir.join(name),
                });
            }
        }
    }
    Ok(HermesExport {
        dir: dir.display().to_string(),
        dry_run,
        files,
    })
}
