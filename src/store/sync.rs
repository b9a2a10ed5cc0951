//! `memdir sync`: git as the distributed engine. Commit what is pending in
//! the memory root, merge the remote's branch (through the entry-wise merge
//! driver), push, and retry when another machine pushed first; report the
//! entries that came in and went out, with their texts cut to a line. A
//! first sync works from any start: a fresh clone of an empty remote (it
//! commits and pushes), a fresh `git init` with a remote that has commits
//! (it merges the unrelated histories), a work tree with no remote (it
//! commits). Commits are authored by the caller and committed by the
//! clone's own git identity where it has one.
//!
//! One sync of a clone at a time: a sync holds the root's sync lock
//! (`.memdir/sync.lock`) from start to end, so a `memdir sync` by hand and
//! `memdir serve --sync`'s own syncs never run at once on one clone; the
//! second waits for the first (the server's does not wait: it tries again
//! later).
//!
//! While git commits and rewrites the files (the commit, the merge), sync
//! holds every owner's lock (the lock memdir's writers take), so no write
//! lands between git's checkout and the next edit; while it talks to the
//! remote (fetch, push: each bounded in time) it holds none, so writes go
//! on. Readers take no lock: a `show` or `snapshot` during a merge may see a
//! file git is rewriting as missing (empty) for that moment.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use serde::Serialize;

use super::limits::STORE_BYTES;
use super::owner::{Locked, Owner};
use super::root::{DERIVED_DIR, Store};
use crate::disk::Lock;
use crate::edit::one_line;
use crate::error::{Error, ReplicaError, Result};
use crate::git::{Identity, MERGE_DRIVER, Repo, commit_env, derived_excludes, failed, prefix};
use crate::markdown::{Entry, parse};
use crate::model::{Caller, Scope, validate_id};

/// How often a push is tried after another machine pushed first.
const PUSH_TRIES: usize = 10;

/// The root's sync lock, in its `.memdir/`.
const SYNC_LOCK: &str = "sync.lock";

/// How long a sync waits for another sync of the same clone to end, unless
/// the store's lock timeout says otherwise (a server's sync holds the lock
/// through fetches and pushes, each bounded by [`NETWORK_TIMEOUT`]).
pub const SYNC_LOCK_WAIT: Duration = Duration::from_secs(120);

/// The longest one fetch or push may take before it is stopped (an
/// unreachable remote that does not refuse the connection).
pub const NETWORK_TIMEOUT: Duration = Duration::from_secs(60);

/// The pause before push try `n + 1` (from 1): doubling from 25 ms up to
/// 800 ms, plus up to as much again at random, so machines that raced once
/// do not race again in step.
fn backoff(n: usize) -> std::time::Duration {
    let base = 25u64 << n.min(5);
    let mut raw = [0u8; 2];
    let jitter = match getrandom::fill(&mut raw) {
        Ok(()) => u64::from(u16::from_le_bytes(raw)) % base,
        Err(_) => base / 2,
    };
    std::time::Duration::from_millis(base + jitter)
}

/// How many characters of an entry's text a sync's report shows (its
/// first line, cut with an ellipsis).
pub const SHOWN_CHARS: usize = 80;

/// How many store files a sync's report reads in each direction; past
/// that, the report says it was cut (`git log` shows the rest).
const REPORTED_FILES: usize = 256;

/// One entry that came in or went out.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct SyncedEntry {
    /// The entry's id.
    #[schemars(pattern(r"^mem_[0-9a-f]{12}$"))]
    pub id: String,
    /// Its store.
    pub store: Scope,
    /// Its text as the file holds it, cut to one line of at most
    /// 80 characters (an ellipsis marks a cut), control
    /// characters escaped.
    #[schemars(length(max = 80))]
    pub text: String,
}

/// The entries of one owner that a sync brought in, or sent out.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct SyncChanges {
    /// The owner.
    pub owner: String,
    /// Entries present after that were not before, in file order.
    pub added: Vec<SyncedEntry>,
    /// Entries present before that are not after.
    pub removed: Vec<SyncedEntry>,
}

/// What a sync did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct SyncReport {
    /// The remote synced with; `None` when the work tree has none (the
    /// sync then only committed).
    pub remote: Option<String>,
    /// The branch.
    pub branch: String,
    /// Whether pending changes were committed first.
    pub committed: bool,
    /// Whether the remote's branch was merged in (it existed and had commits
    /// this clone lacked).
    pub merged: bool,
    /// Whether the push went through.
    pub pushed: bool,
    /// Pushes refused because another machine pushed first, then retried.
    pub retries: usize,
    /// Per owner, what came in from the remote: the entries the merge added
    /// and removed.
    pub incoming: Vec<SyncChanges>,
    /// Per owner, what went out with the push: the entries this clone's
    /// commits added to and removed from the remote's branch.
    pub outgoing: Vec<SyncChanges>,
    /// Whether `incoming` or `outgoing` stops short (more than 256 store
    /// files changed in one direction).
    pub cut: bool,
}

/// `(owner, store)` when `rel` (a path below the root) is an owner's
/// MEMORY.md or USER.md.
fn store_file(rel: &str) -> Option<(&str, Scope)> {
    let (owner, name) = rel.split_once('/')?;
    validate_id("owner", owner).ok()?;
    Scope::ALL
        .into_iter()
        .find(|s| s.file_name() == name)
        .map(|s| (owner, s))
}

/// The entries of a store file at `rev` (none when it is missing, too
/// large, or `rev` is `None`).
fn entries_at(repo: &Repo, rev: Option<&str>, path: &str, scope: Scope) -> Result<Vec<Entry>> {
    let Some(rev) = rev else {
        return Ok(Vec::new());
    };
    Ok(match repo.file_at(rev, path)? {
        Some(b) if b.len() as u64 <= STORE_BYTES => {
            parse(scope, &String::from_utf8_lossy(&b)).entries
        }
        _ => Vec::new(),
    })
}

/// The entries each owner's stores gained and lost from the commit `from`
/// (`None`: nothing, a branch without commits) to the commit `to`, for the
/// root at `prefix` of the work tree; and whether the list was cut.
fn changes(
    repo: &Repo,
    from: Option<&str>,
    to: &str,
    prefix: &str,
) -> Result<(Vec<SyncChanges>, bool)> {
    let mut by_owner: BTreeMap<String, SyncChanges> = BTreeMap::new();
    let paths = repo.changed(from, to, prefix)?;
    let files: Vec<(&str, &str, Scope)> = paths
        .iter()
        .filter_map(|p| {
            let rel = p.strip_prefix(prefix)?;
            store_file(rel).map(|(owner, scope)| (p.as_str(), owner, scope))
        })
        .collect();
    let cut = files.len() > REPORTED_FILES;
    for (path, owner, scope) in files.into_iter().take(REPORTED_FILES) {
        let before = entries_at(repo, from, path, scope)?;
        let after = entries_at(repo, Some(to), path, scope)?;
        let was: BTreeSet<&str> = before.iter().map(|e| e.id.as_str()).collect();
        let now: BTreeSet<&str> = after.iter().map(|e| e.id.as_str()).collect();
        let shown = |e: &Entry| SyncedEntry {
            id: e.id.clone(),
            store: scope,
            text: one_line(&e.text, SHOWN_CHARS),
        };
        let c = by_owner
            .entry(owner.to_owned())
            .or_insert_with(|| SyncChanges {
                owner: owner.to_owned(),
                added: Vec::new(),
                removed: Vec::new(),
            });
        c.added.extend(
            after
                .iter()
                .filter(|e| !was.contains(e.id.as_str()))
                .map(shown),
        );
        c.removed.extend(
            before
                .iter()
                .filter(|e| !now.contains(e.id.as_str()))
                .map(shown),
        );
    }
    let list = by_owner
        .into_values()
        .filter(|c| !c.added.is_empty() || !c.removed.is_empty())
        .collect();
    Ok((list, cut))
}

/// The identity of commits a sync makes for `caller`; with none, the
/// replica's (`replica`) or memdir's.
fn identity(caller: Option<&Caller>, replica: Option<&str>, domain: &str) -> Identity {
    let name = match caller {
        Some(Caller::Agent(a)) => a.clone(),
        Some(Caller::Person(p)) => p.clone(),
        None => replica.unwrap_or("memdir").to_owned(),
    };
    Identity {
        email: format!("{name}@{domain}"),
        name,
    }
}

/// Syncs the root's work tree with `remote` (default: the branch's
/// upstream remote, else `origin`), waiting at most `wait` for another sync
/// of this clone to end (past it: `locked`).
pub(crate) fn sync(
    store: &Store,
    caller: Option<&Caller>,
    remote: Option<&str>,
    wait: Duration,
) -> Result<SyncReport> {
    let root = store.root();
    let repo = Repo::find(root).ok_or_else(|| Error::NotInGit {
        path: root.to_owned(),
    })?;
    let domain = store
        .settings()
        .git
        .email_domain
        .clone()
        .unwrap_or_else(|| "memdir.invalid".to_owned());
    let who = identity(caller, store.replica(), &domain);
    let branch = repo.branch()?.ok_or_else(|| Error::Git {
        op: "sync".into(),
        message: "HEAD is detached: check out the branch to sync (`git switch BRANCH`)".into(),
    })?;
    let remote = match remote {
        Some(r) => Some(r.to_owned()),
        None => match repo.config_get(&format!("branch.{branch}.remote"))? {
            Some(r) => Some(r),
            // A work tree without any remote: the sync only commits.
            None if repo.remotes()?.is_empty() => None,
            None => Some("origin".to_owned()),
        },
    };
    let prefix = prefix(root)?;
    let _one_at_a_time = lock_sync(store, wait)?;
    let pending = Pending::new(store, &repo, &who);
    let committed = pending.commit()?;
    let mut report = SyncReport {
        remote: remote.clone(),
        branch: branch.clone(),
        committed,
        merged: false,
        pushed: false,
        retries: 0,
        incoming: Vec::new(),
        outgoing: Vec::new(),
        cut: false,
    };
    let Some(remote) = remote else {
        return Ok(report);
    };
    // The merge commit's author is the caller, its committer the clone's.
    let env = commit_env(root, &who);
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let local = repo.commit_of("HEAD")?;
    let remote_ref = format!("{remote}/{branch}");
    let theirs = loop {
        let fetch = ["fetch", "--quiet", remote.as_str()];
        let out = repo.output_within(&fetch, &[], NETWORK_TIMEOUT)?;
        if !out.status.success() {
            return Err(failed(&fetch, &out));
        }
        let theirs = repo.commit_of(&remote_ref)?;
        if let Some(t) = &theirs {
            // What was written since the first commit goes in before the
            // merge, under the owners' locks, as the merge does.
            let merged = pending.locked(|| {
                report.committed |= pending.commit_locked()?;
                merge_behind(&repo, t, &remote_ref, &env)
            })?;
            report.merged |= merged;
        }
        if repo.commit_of("HEAD")?.is_none() {
            // No commit on either side: nothing to push yet.
            break theirs;
        }
        let args = [
            "push",
            "--quiet",
            "--set-upstream",
            remote.as_str(),
            &format!("HEAD:{branch}"),
        ];
        let out = repo.output_within(&args, &[], NETWORK_TIMEOUT)?;
        if out.status.success() {
            report.pushed = true;
            break theirs;
        }
        let said = String::from_utf8_lossy(&out.stderr);
        let raced = ["fetch first", "non-fast-forward", "rejected", "stale info"]
            .iter()
            .any(|s| said.contains(s));
        if !raced || report.retries + 1 >= PUSH_TRIES {
            return Err(failed(&args, &out));
        }
        report.retries += 1;
        std::thread::sleep(backoff(report.retries));
    };
    if let Some(head) = repo.commit_of("HEAD")? {
        if report.merged {
            let (incoming, cut) = changes(&repo, local.as_deref(), &head, &prefix)?;
            report.incoming = incoming;
            report.cut |= cut;
        }
        if report.pushed {
            let (outgoing, cut) = changes(&repo, theirs.as_deref(), &head, &prefix)?;
            report.outgoing = outgoing;
            report.cut |= cut;
        }
    }
    Ok(report)
}

/// Takes the root's sync lock, waiting at most `wait`.
fn lock_sync(store: &Store, wait: Duration) -> Result<Lock> {
    let disk = store.disk();
    store.require_root()?;
    let root = disk.ensure_root(store.root())?;
    let (derived, _) = disk.ensure_dir(&root, DERIVED_DIR)?;
    disk.lock(&derived, SYNC_LOCK, wait)
}

/// What is pending in the root, committed under every owner's lock.
struct Pending<'a> {
    store: &'a Store,
    repo: &'a Repo,
    who: &'a Identity,
    /// The root but its derived files, whatever `.gitignore` says.
    names: Vec<&'static str>,
}

impl<'a> Pending<'a> {
    fn new(store: &'a Store, repo: &'a Repo, who: &'a Identity) -> Pending<'a> {
        let mut names = vec!["."];
        names.extend(derived_excludes(
            store.settings().git.commit_results.unwrap_or(false),
        ));
        Pending {
            store,
            repo,
            who,
            names,
        }
    }

    /// Runs `f` holding every owner's lock, taken in id order (as every
    /// sync takes them).
    fn locked<T>(&self, f: impl FnOnce() -> Result<T>) -> Result<T> {
        let owners: Vec<Owner> = self
            .store
            .owners()?
            .iter()
            .map(|id| self.store.owner(id))
            .collect::<Result<_>>()?;
        let _locked: Vec<Locked<'_>> = owners.iter().map(Owner::lock).collect::<Result<_>>()?;
        f()
    }

    /// Commits what is pending, under every owner's lock; whether anything
    /// was.
    fn commit(&self) -> Result<bool> {
        self.locked(|| self.commit_locked())
    }

    /// Commits what is pending, the owners' locks held by the caller.
    fn commit_locked(&self) -> Result<bool> {
        let message = format!("memdir: sync by {}", self.who.name);
        self.repo
            .commit(self.store.root(), &self.names, &message, self.who)
    }
}

/// Whether the commit `commit` is in the root's HEAD: a merge stopped on it
/// was made since (by hand, or by a sync).
pub(crate) fn merged_in(store: &Store, commit: &str) -> Result<bool> {
    let root = store.root();
    let repo = Repo::find(root).ok_or_else(|| Error::NotInGit {
        path: root.to_owned(),
    })?;
    let args = ["merge-base", "--is-ancestor", commit, "HEAD"];
    let out = repo.output(&args, &[])?;
    match out.status.code() {
        Some(0) => Ok(true),
        Some(1) => Ok(false),
        _ => Err(failed(&args, &out)),
    }
}

/// Merges the remote's commit `theirs` (`remote_ref`) into HEAD when HEAD
/// is behind it, with memdir's merge driver (`env`: the merge commit's
/// author); whether it merged. A failed merge is aborted and said.
fn merge_behind(repo: &Repo, theirs: &str, remote_ref: &str, env: &[(&str, &str)]) -> Result<bool> {
    let behind = match repo.commit_of("HEAD")? {
        // A branch with no commit yet takes the remote's.
        None => true,
        Some(_) => {
            repo.run(&["rev-list", "--count", &format!("HEAD..{theirs}")], &[])?
                .trim()
                != "0"
        }
    };
    if !behind {
        return Ok(false);
    }
    // A clone does not copy `.git/config`: the driver named by
    // `.gitattributes` is registered for this merge if it is not.
    let driver = match repo.config_get("merge.memdir.driver")? {
        Some(_) => "merge.memdir.name=memdir entry-wise merge".to_owned(),
        None => format!("merge.memdir.driver={MERGE_DRIVER}"),
    };
    // A first sync of a fresh `git init` with a remote that has
    // commits: the two histories share no commit yet.
    let args = [
        "-c",
        driver.as_str(),
        "merge",
        "--no-edit",
        "--quiet",
        "--allow-unrelated-histories",
        remote_ref,
    ];
    let out = repo.output(&args, env)?;
    if !out.status.success() {
        let said = match failed(&args, &out) {
            Error::Git { message, .. } => message,
            e => e.to_string(),
        };
        let _ = repo.output(&["merge", "--abort"], &[]);
        // Retrying cannot fix it: a person merges by hand.
        return Err(ReplicaError::SyncConflict {
            remote_ref: remote_ref.to_owned(),
            commit: theirs.to_owned(),
            message: said,
        }
        .into());
    }
    Ok(true)
}
