//! `memdir check`: a lint of an owner's files that a person or a git hook
//! runs before committing. Errors are what must not be committed (a file
//! memdir cannot read, conflict markers, an entry twice, a threat or a
//! secret, a metadata comment memdir cannot read); warnings are states a
//! merge produces legitimately and a person or the daily review settles.
//! `show` reports the findings of the store it shows as warnings.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use chrono::{DateTime, Utc};
use serde::Serialize;

mod kind;
pub(super) mod learnings;

pub use kind::FindingKind;

use super::files::{archive, episodes, skills, stores};
use super::limits::STORE_BYTES;
use super::owner::{At, Owner};
use super::root::{CONFIG_FILE, DERIVED_DIR};
use crate::edit;
use crate::error::{Error, Result};
use crate::git::{InProgress, Repo, prefix, tracked};
use crate::markdown::{Conflict, Document};
use crate::model::{Meta, Scope, bad_values, is_live};
use crate::scan::{self, Family};

/// How much a finding matters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Must not be committed: `check` exits 1.
    Error,
    /// To settle: `check` exits 0 (1 with `--strict`).
    Warning,
}

/// One finding of [`Owner::check`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Finding {
    /// How much it matters.
    pub severity: Severity,
    /// What kind of finding, a stable snake_case code (`conflict_markers`,
    /// `duplicate_entry`, `threat`, `secret`, `malformed_metadata`,
    /// `unreadable`, `format_unsupported`, `merge_conflict_pair`,
    /// `live_and_archived`, `over_budget`, `expired`,
    /// `unknown_metadata_key`, `unknown_setting`, `setting_clamped`,
    /// `day_log_out_of_order`, `control_characters`,
    /// `tracked_derived`).
    pub kind: FindingKind,
    /// The file, relative to the memory root (`agt_a/MEMORY.md`).
    pub file: String,
    /// The line (from 1), when the finding has one.
    pub line: Option<usize>,
    /// The entry's id, when the finding is about an entry.
    pub id: Option<String>,
    /// What is wrong.
    pub message: String,
    /// What to do about it.
    pub hint: String,
}

/// The findings for one owner, errors first, then by file and line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct CheckReport {
    /// The owner.
    pub owner: String,
    /// The findings.
    pub findings: Vec<Finding>,
}

impl CheckReport {
    /// How many findings have `severity`.
    pub fn count(&self, severity: Severity) -> usize {
        self.findings
            .iter()
            .filter(|f| f.severity == severity)
            .count()
    }
}

/// Collects findings for one owner's files.
struct Lint<'a> {
    owner: &'a str,
    /// The memory root, to ask git where conflict markers came from.
    root: &'a Path,
    /// What git says of the root, asked at the first conflict marker.
    git: Option<Option<GitState>>,
    findings: Vec<Finding>,
}

/// What git says of a work tree whose files hold conflict markers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct GitState {
    /// A merge, rebase or cherry-pick stopped on conflicts, or nothing.
    in_progress: InProgress,
    /// Whether git merges the stores with memdir's driver.
    driver: bool,
}

/// What git says of `root`; `None` outside a work tree (or when git
/// cannot tell).
fn git_state(root: &Path, owner: &str) -> Option<GitState> {
    let repo = Repo::find(root)?;
    let pre = prefix(root).ok()?;
    let store = format!("{pre}{owner}/{}", Scope::Memory.file_name());
    Some(GitState {
        in_progress: repo.in_progress().ok()?,
        driver: repo.driver_in_use(&store).ok()?,
    })
}

/// What to do about conflict markers, given what git says: the sequence
/// that recovers from a merge made without memdir's driver (abort it, set
/// the driver up, pull again), else how to resolve them by hand.
fn conflict_hint(git: Option<GitState>) -> String {
    const BY_HAND: &str = "keep the entries of both sides and delete the marker lines \
                           (`<<<<<<<`, `=======`, `>>>>>>>`)";
    let Some(git) = git else {
        return format!("resolve the conflict by hand: {BY_HAND}");
    };
    let abort = match git.in_progress {
        InProgress::Merge => Some("git merge --abort"),
        InProgress::Rebase => Some("git rebase --abort"),
        InProgress::CherryPick => Some("git cherry-pick --abort"),
        InProgress::Nothing => None,
    };
    match (abort, git.driver) {
        (Some(abort), false) => format!(
            "git merged without memdir's merge driver: run `{abort}`, then `memdir git setup` \
             (it registers the driver, which merges entry by entry), then pull again \
             (`git pull` or `memdir sync`)"
        ),
        (Some(abort), true) => format!(
            "the merge driver left them where text outside entries conflicts: {BY_HAND}, then \
             `git add` the file and go on (`git commit`); or run `{abort}`"
        ),
        (None, false) => format!(
            "a merge without memdir's merge driver was committed with them: if it is the last \
             commit and not pushed, run `git reset --merge HEAD^1`, then `memdir git setup` (it \
             registers the driver, which merges entry by entry), then pull again (`git pull` or \
             `memdir sync`); otherwise {BY_HAND}"
        ),
        (None, true) => format!("resolve the conflict by hand: {BY_HAND}"),
    }
}

impl Lint<'_> {
    fn push(
        &mut self,
        severity: Severity,
        kind: FindingKind,
        (file, line, id): (&str, Option<usize>, Option<&str>),
        message: String,
        hint: &str,
    ) {
        self.findings.push(Finding {
            severity,
            kind,
            // The root's own files (LEARNINGS.md) are named as they are.
            file: if self.owner.is_empty() {
                file.to_owned()
            } else {
                format!("{}/{file}", self.owner)
            },
            line,
            id: id.map(str::to_owned),
            message,
            hint: hint.to_owned(),
        });
    }

    /// A file that could not be read at all.
    fn unreadable(&mut self, file: &str, e: &Error) {
        let kind = if e.code() == crate::error::ErrorCode::FormatUnsupported {
            FindingKind::FormatUnsupported
        } else {
            FindingKind::Unreadable
        };
        self.push(
            Severity::Error,
            kind,
            (file, None, None),
            format!("{} ({})", e, e.code()),
            "fix or restore the file by hand (git shows what changed); memdir leaves it as it is",
        );
    }

    fn conflicts(&mut self, file: &str, conflicts: &[Conflict]) {
        if conflicts.is_empty() {
            return;
        }
        let (root, owner) = (self.root, self.owner);
        let git = *self.git.get_or_insert_with(|| git_state(root, owner));
        let hint = conflict_hint(git);
        for c in conflicts {
            self.push(
                Severity::Error,
                FindingKind::ConflictMarkers,
                (file, Some(c.first_line), None),
                format!("git conflict markers, {}", c.lines()),
                &hint,
            );
        }
    }
}

/// The line (from 1) of byte `offset` of `src` (1 past its end).
fn line_of(src: &str, offset: usize) -> usize {
    Lines::new(src).of(offset)
}

/// A text's line breaks, found once, so that numbering the lines of every
/// entry of a store costs a search each, not a scan from the start.
struct Lines {
    len: usize,
    breaks: Vec<usize>,
}

impl Lines {
    fn new(src: &str) -> Lines {
        Lines {
            len: src.len(),
            breaks: memchr::memchr_iter(b'\n', src.as_bytes()).collect(),
        }
    }

    /// The line (from 1) of byte `offset` (1 past the end, as
    /// [`line_of`]).
    fn of(&self, offset: usize) -> usize {
        if offset > self.len {
            return 1;
        }
        self.breaks.partition_point(|&b| b < offset) + 1
    }
}

/// The scanner's verdict on `text` as a finding, if it flags it.
fn scanned(lint: &mut Lint<'_>, file: &str, line: usize, id: &str, text: &str) {
    let findings = scan::scan(text);
    if findings.is_empty() {
        return;
    }
    let secret = findings.iter().any(|f| f.family == Family::Secret);
    let skill = file.starts_with("skills/");
    let (kind, hint) = if secret && skill {
        (
            FindingKind::Secret,
            "edit the skill (`memdir skill learn NAME --replace`) or forget it (`memdir skill \
             forget NAME`) before committing, and rotate the secret if it was ever committed or \
             shared",
        )
    } else if skill {
        (
            FindingKind::Threat,
            "edit the skill (`memdir skill learn NAME --replace`) or forget it; a run's snapshot \
             shows it blocked meanwhile",
        )
    } else if secret {
        (
            FindingKind::Secret,
            "remove the entry (`memdir remove ID`) before committing, and rotate the secret if \
             it was ever committed or shared",
        )
    } else {
        (
            FindingKind::Threat,
            "remove or rewrite the entry (`memdir remove ID`); the snapshot shows it blocked \
             meanwhile",
        )
    };
    lint.push(
        Severity::Error,
        kind,
        (file, Some(line), Some(id)),
        format!("matches the scanner: {}", scan::pattern_list(&findings)),
        hint,
    );
}

/// The findings of one loaded store (its text `src` and parse `doc`): all
/// but the budget and the archive, which need the folder.
fn store_findings(
    lint: &mut Lint<'_>,
    scope: Scope,
    src: &str,
    doc: &Document,
    seen: &mut BTreeMap<String, &'static str>,
    now: DateTime<Utc>,
) {
    let file = scope.file_name();
    lint.conflicts(file, &doc.conflicts);
    let lines = Lines::new(src);
    for e in &doc.entries {
        if doc.conflicts.iter().any(|c| c.overlaps(&e.item)) {
            continue;
        }
        let line = lines.of(e.item.start);
        let id = e.id.as_str();
        if let Some(first) = seen.insert(e.id.clone(), file) {
            lint.push(
                Severity::Error,
                FindingKind::DuplicateEntry,
                (file, Some(line), Some(id)),
                format!("the same entry again (first in {first})"),
                "`memdir resolve ID --keep one` keeps the first copy (`memdir review` does it too, \
                 undoable with `memdir review undo ID`)",
            );
        }
        scanned(lint, file, line, id, &e.text);
        if e.text.contains("<!--") && !e.text[e.text.find("<!--").unwrap_or(0)..].contains("-->") {
            lint.push(
                Severity::Error,
                FindingKind::MalformedMetadata,
                (file, Some(line), Some(id)),
                "an HTML comment that is never closed (`<!--` without `-->`)".into(),
                "close the comment with `-->` or delete it",
            );
        }
        if e.text
            .chars()
            .any(|c| c.is_control() && c != '\t' && c != '\n')
        {
            lint.push(
                Severity::Warning,
                FindingKind::ControlCharacters,
                (file, Some(line), Some(id)),
                "control characters in the text (the snapshot shows them escaped)".into(),
                "rewrite the entry without them (`memdir replace ID TEXT`)",
            );
        }
        let Some(comment) = e.meta_comment(src) else {
            continue;
        };
        for bad in bad_values(comment) {
            lint.push(
                Severity::Error,
                FindingKind::MalformedMetadata,
                (file, Some(line), Some(id)),
                format!(
                    "`{}={}` cannot be read, so it is ignored",
                    bad.key, bad.value
                ),
                if bad.key == "expires" {
                    "write the expiry as YYYY-MM-DD or an RFC 3339 time; unread, the fact never \
                     expires"
                } else {
                    "write the value as docs/FORMAT.md (Metadata) describes, or delete the key"
                },
            );
        }
        let meta = Meta::parse(comment);
        if let Some(value) = &meta.conflict {
            lint.push(
                Severity::Warning,
                FindingKind::MergeConflictPair,
                (file, Some(line), Some(id)),
                format!(
                    "one of two versions a merge kept of the entry {value}, edited on both sides"
                ),
                "keep one version and remove the other (`memdir remove ID`), or keep both \
                 (`memdir resolve ID --keep both`); the daily review settles it otherwise",
            );
        }
        for (key, _) in &meta.other {
            lint.push(
                Severity::Warning,
                FindingKind::UnknownMetadataKey,
                (file, Some(line), Some(id)),
                format!("unknown metadata key `{key}` (kept as written)"),
                "nothing, if a newer memdir wrote it; else delete it",
            );
        }
        if !is_live(Some(comment), now) {
            lint.push(
                Severity::Warning,
                FindingKind::Expired,
                (file, Some(line), Some(id)),
                "expired, still listed (never in a snapshot or recall)".into(),
                "remove it (`memdir remove ID`) or give it a new expiry",
            );
        }
    }
}

/// Checks one owner's files (see the module doc). Findings are errors
/// first, then by file and line.
pub(crate) fn check(owner: &Owner, now: DateTime<Utc>, git: bool) -> Result<CheckReport> {
    let mut lint = Lint {
        owner: owner.id(),
        root: owner.store().root(),
        git: None,
        findings: Vec::new(),
    };
    let view = match owner.view() {
        Ok(v) => Some(v),
        Err(e) => {
            lint.unreadable(CONFIG_FILE, &e);
            None
        }
    };
    if let Some(view) = &view {
        let at = view.at();
        settings_findings(&mut lint, owner, at);
        let mut seen = BTreeMap::new();
        let mut live: BTreeMap<String, (&'static str, usize)> = BTreeMap::new();
        for scope in Scope::ALL {
            match stores::load(at, scope, true, STORE_BYTES) {
                Ok(l) => {
                    store_findings(&mut lint, scope, &l.src, &l.doc, &mut seen, now);
                    let lines = Lines::new(&l.src);
                    for e in &l.doc.entries {
                        if is_live(e.meta_comment(&l.src), now) {
                            live.insert(e.id.clone(), (scope.file_name(), lines.of(e.item.start)));
                        }
                    }
                    budget_finding(&mut lint, at, &l, now);
                }
                Err(e) => lint.unreadable(scope.file_name(), &e),
            }
        }
        archive_findings(&mut lint, at, &live);
        episodes_findings(&mut lint, at);
        skills_findings(&mut lint, at);
    }
    if git {
        tracked_findings(&mut lint, owner);
    }
    lint.findings
        .sort_by(|a, b| (a.severity, &a.file, a.line).cmp(&(b.severity, &b.file, b.line)));
    Ok(CheckReport {
        owner: owner.id().to_owned(),
        findings: lint.findings,
    })
}

/// The owner's derived files git tracks: its `.memdir/` (and its
/// `results/`, unless `git.commit_results`), which came into the index by
/// a `git add -f` or a `.gitignore` without memdir's lines. `sync` never
/// commits changes to them, and a stored snapshot from git is never used
/// unverified, but a tracked one keeps travelling to every clone: an
/// error, with the command that stops tracking it. Outside a git work
/// tree, nothing.
fn tracked_findings(lint: &mut Lint<'_>, owner: &Owner) {
    let dirs = derived_dirs(owner);
    let id = lint.owner;
    let specs: Vec<String> = dirs
        .iter()
        .map(|(d, _)| format!(":(literal){id}/{d}"))
        .collect();
    let specs: Vec<&str> = specs.iter().map(String::as_str).collect();
    let Ok(Some(files)) = tracked(lint.root, &specs) else {
        return;
    };
    tracked_in(lint, &dirs, &files);
}

/// The derived folders of an owner git must not track, and why.
fn derived_dirs(owner: &Owner) -> Vec<(&'static str, &'static str)> {
    let mut dirs = vec![(
        DERIVED_DIR,
        "derived files (stored snapshots, run records, caches) are per machine and are never \
         taken from git as they are",
    )];
    if !owner.store().settings().git.commit_results.unwrap_or(false) {
        dirs.push((
            "results",
            "SharedMemory results are run data, scoped to their owner (set `git: { \
             commit_results: true }` in the root's memdir.yaml to commit them)",
        ));
    }
    dirs
}

/// The findings of the files git tracks (`files`, relative to the root)
/// under the owner's derived folders `dirs`.
fn tracked_in(lint: &mut Lint<'_>, dirs: &[(&'static str, &'static str)], files: &[String]) {
    let id = lint.owner;
    for (dir, why) in dirs {
        let under = format!("{id}/{dir}/");
        let n = files.iter().filter(|f| f.starts_with(&under)).count();
        if n == 0 {
            continue;
        }
        lint.push(
            Severity::Error,
            FindingKind::TrackedDerived,
            (dir, None, None),
            format!(
                "git tracks {n} file{} under {id}/{dir}/: {why}; `memdir sync` never commits \
                 changes to them",
                if n == 1 { "" } else { "s" }
            ),
            &format!(
                "run `git rm -r --cached {id}/{dir}` in the memory root (the files stay on disk) \
                 and commit; `memdir git setup` lists {dir}/ in .gitignore"
            ),
        );
    }
}

/// [`check`] of several owners of one root, git asked once which of their
/// derived files it tracks (one `git ls-files` for them all, not a process
/// per owner).
pub(crate) fn check_all(owners: &[Owner], now: DateTime<Utc>) -> Result<Vec<CheckReport>> {
    let mut reports = owners
        .iter()
        .map(|o| check(o, now, false))
        .collect::<Result<Vec<_>>>()?;
    for (report, tracked) in reports.iter_mut().zip(tracked_all(owners)) {
        if tracked.is_empty() {
            continue;
        }
        report.findings.extend(tracked);
        report
            .findings
            .sort_by(|a, b| (a.severity, &a.file, a.line).cmp(&(b.severity, &b.file, b.line)));
    }
    Ok(reports)
}

/// The findings of the derived files git tracks, of each of several owners
/// of one root (in their order): one `git ls-files` for them all. None
/// outside a git work tree, or when git cannot answer.
pub(crate) fn tracked_all(owners: &[Owner]) -> Vec<Vec<Finding>> {
    let none = || owners.iter().map(|_| Vec::new()).collect();
    let Some(first) = owners.first() else {
        return Vec::new();
    };
    let root = first.store().root();
    let dirs = derived_dirs(first);
    // Every owner is a folder at the top of the root: `*` matches one
    // path segment.
    let specs: Vec<String> = dirs
        .iter()
        .map(|(d, _)| format!(":(glob)*/{d}/**"))
        .collect();
    let specs: Vec<&str> = specs.iter().map(String::as_str).collect();
    let Ok(Some(files)) = tracked(root, &specs) else {
        return none();
    };
    if files.is_empty() {
        return none();
    }
    owners
        .iter()
        .map(|owner| {
            let mut lint = Lint {
                owner: owner.id(),
                root,
                git: None,
                findings: Vec::new(),
            };
            tracked_in(&mut lint, &dirs, &files);
            lint.findings
        })
        .collect()
}

/// Unknown settings keys, numeric settings clamped into their range, and a
/// format newer than this memdir knows.
fn settings_findings(lint: &mut Lint<'_>, owner: &Owner, at: At<'_>) {
    let root = owner.store().root();
    for (path, key) in at.settings.unknown_keys() {
        lint.findings.push(Finding {
            severity: Severity::Warning,
            kind: FindingKind::UnknownSetting,
            file: path
                .strip_prefix(root)
                .unwrap_or(path)
                .display()
                .to_string(),
            line: None,
            id: None,
            message: format!("unknown setting `{key}` (ignored)"),
            hint: "nothing, if a newer memdir wrote it; else delete the key".into(),
        });
    }
    for c in at.settings.clamped() {
        lint.findings.push(Finding {
            severity: Severity::Warning,
            kind: FindingKind::SettingClamped,
            file: c
                .path
                .strip_prefix(root)
                .unwrap_or(&c.path)
                .display()
                .to_string(),
            line: None,
            id: None,
            message: format!(
                "`{}` {} is outside {}-{}: {} is used",
                c.key, c.asked, c.range.0, c.range.1, c.used
            ),
            hint: "set a value within the range (docs/FORMAT.md, Ranges)".into(),
        });
    }
    if let Err(e) = owner.store().settings_ok() {
        lint.findings.push(Finding {
            severity: Severity::Error,
            kind: FindingKind::InvalidConfig,
            file: CONFIG_FILE.to_owned(),
            line: None,
            id: None,
            message: e.to_string(),
            hint: "fix or delete the setting (writes are refused until then)".into(),
        });
    } else if let Err(e) = owner.writable(at.settings) {
        lint.findings.push(Finding {
            severity: Severity::Error,
            kind: FindingKind::FormatUnsupported,
            file: CONFIG_FILE.to_owned(),
            line: None,
            id: None,
            message: e.to_string(),
            hint: "upgrade memdir".into(),
        });
    }
}

/// A store over its budget (a merge can leave one).
fn budget_finding(lint: &mut Lint<'_>, at: At<'_>, l: &stores::Loaded, now: DateTime<Utc>) {
    let cx = l.context(at, now);
    let Ok(budget) = cx.budget(&l.doc) else {
        return;
    };
    let used = edit::used_live(&cx, &l.src, &l.doc);
    if used > budget.limit {
        lint.push(
            Severity::Warning,
            FindingKind::OverBudget,
            (l.scope.file_name(), None, None),
            format!(
                "{used} of {} characters: over the budget (the snapshot cuts it, marked)",
                budget.limit
            ),
            "remove or archive entries until it fits (`memdir show` lists them)",
        );
    }
}

/// archive.md and the parts of `archive/`: readable, no conflict markers;
/// no fact both archived and live (but one a review settled: its record
/// carries `settled=`).
fn archive_findings(
    lint: &mut Lint<'_>,
    at: At<'_>,
    live: &BTreeMap<String, (&'static str, usize)>,
) {
    let archives = match archive::read_all(at) {
        Ok(a) => a,
        Err(e) => return lint.unreadable(archive::ARCHIVE_FILE, &e),
    };
    let mut reported = BTreeSet::new();
    for f in &archives.files {
        let file = f.rel();
        lint.conflicts(&file, &crate::markdown::conflicts(&f.src));
        for r in archive::records(&f.src) {
            if r.meta.settled.is_some() {
                continue;
            }
            if let Some((store, line)) = live.get(&r.id)
                && reported.insert(r.id.clone())
            {
                lint.push(
                    Severity::Warning,
                    FindingKind::LiveAndArchived,
                    (store, Some(*line), Some(&r.id)),
                    format!(
                        "live here and archived in {file} (a merge of an archive on one side and \
                         an edit on the other leaves this)"
                    ),
                    "archive it again (`memdir archive ID --reason …`) or keep it live (`memdir \
                     resolve ID --keep live`); the daily review settles it otherwise",
                );
            }
        }
    }
}

/// episodes.md: readable, no conflict markers, its sections in date
/// order, no day line the scanner flags.
fn episodes_findings(lint: &mut Lint<'_>, at: At<'_>) {
    let file = episodes::EPISODES_FILE;
    let src = match episodes::read(at) {
        Ok((_, src)) => src,
        Err(e) => return lint.unreadable(file, &e),
    };
    lint.conflicts(file, &crate::markdown::conflicts(&src));
    let journal = crate::journal::parse(&src);
    if let Some((sec, newer)) = crate::journal::out_of_order(&journal) {
        lint.push(
            Severity::Warning,
            FindingKind::DayLogOutOfOrder,
            (file, Some(line_of(&src, sec.heading.start)), Some(&crate::model::day_id(sec.date))),
            format!(
                "the section of {} comes after the newer one of {newer}: a recall reads the day log from the end and stops before a section out of date order",
                sec.date
            ),
            "move the section to its place in date order (memdir appends new days at the end)",
        );
    }
    let lines = Lines::new(&src);
    for sec in journal.sections {
        for (range, l) in &sec.lines {
            scanned(
                lint,
                file,
                lines.of(range.start),
                &crate::model::day_id(sec.date),
                &l.text,
            );
        }
    }
}

/// skills/: each SKILL.md readable, and neither its description nor its
/// body flagged by the scanner (a secret in a skill must not reach a
/// commit either).
fn skills_findings(lint: &mut Lint<'_>, at: At<'_>) {
    let dir = match skills::dir(at) {
        Ok(Some(d)) => d,
        Ok(None) => return,
        Err(e) => return lint.unreadable(skills::SKILLS_DIR, &e),
    };
    let names = match skills::names(at, &dir) {
        Ok(n) => n,
        Err(e) => return lint.unreadable(skills::SKILLS_DIR, &e),
    };
    for name in names {
        let file = skills::rel_path(&name);
        match skills::read_in(at, &dir, &name) {
            Ok(Some(f)) => {
                let body_line = line_of(&f.text, f.text.len() - f.body.len());
                scanned(lint, &file, 1, &name, &f.description);
                scanned(lint, &file, body_line, &name, &f.body);
            }
            Ok(None) => {}
            Err(e) => lint.unreadable(&file, &e),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_conflict_hint_gives_the_sequence_that_recovers() {
        let state = |in_progress, driver| {
            Some(GitState {
                in_progress,
                driver,
            })
        };
        let merging = conflict_hint(state(InProgress::Merge, false));
        let abort = merging.find("`git merge --abort`").expect("abort");
        let setup = merging.find("`memdir git setup`").expect("setup");
        let pull = merging.find("pull again").expect("pull");
        assert!(abort < setup && setup < pull, "{merging}");
        assert!(conflict_hint(state(InProgress::Rebase, false)).contains("`git rebase --abort`"));
        let committed = conflict_hint(state(InProgress::Nothing, false));
        assert!(
            committed.contains("`git reset --merge HEAD^1`"),
            "{committed}"
        );
        assert!(committed.contains("`memdir git setup`"), "{committed}");
        // With the driver in use, or outside git, setting it up again
        // changes nothing: the markers are resolved by hand.
        for h in [
            conflict_hint(state(InProgress::Merge, true)),
            conflict_hint(state(InProgress::Nothing, true)),
            conflict_hint(None),
        ] {
            assert!(!h.contains("git setup"), "{h}");
            assert!(h.contains("delete the marker lines"), "{h}");
        }
    }

    #[test]
    fn lines_count_from_one() {
        let src = "a\nb\nc";
        assert_eq!(line_of(src, 0), 1);
        assert_eq!(line_of(src, 2), 2);
        assert_eq!(line_of(src, 4), 3);
        assert_eq!(line_of(src, 99), 1);
    }
}
