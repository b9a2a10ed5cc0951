//! `memdir sync`: git as the distributed engine. Commit what is pending in
//! the memory root, merge the remote's branch (through the entry-wise merge
//! driver), push, and retry when another machine pushed first; report the
//! entries that came in.
//!
//! While git rewrites the files, sync holds every owner's lock (the lock
//! memdir's writers take), so no write lands between git's checkout and the
//! next edit. Readers take no lock: a `show` or `snapshot` during a sync may
//! see a file git is rewriting as missing (empty) for that moment.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use super::files::stores;
use super::limits::STORE_BYTES;
use super::owner::{Locked, Owner};
use super::root::Store;
use crate::error::{Error, Result};
use crate::git::{Identity, MERGE_DRIVER, Repo, failed};
use crate::model::{Caller, Scope};

/// How often a push is tried after another machine pushed first.
const PUSH_TRIES: usize = 10;

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

/// What came in from the remote for one owner.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Incoming {
    /// The owner.
    pub owner: String,
    /// Entries present after the sync that were not before (`mem_` ids).
    pub added: Vec<String>,
    /// Entries present before the sync that are not after.
    pub removed: Vec<String>,
}

/// What a sync did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SyncReport {
    /// The remote synced with.
    pub remote: String,
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
    /// Per owner, what others added and removed.
    pub incoming: Vec<Incoming>,
}

/// The ids in the two stores of each owner of the root (read while the
/// sync holds the writers' locks).
fn entries(store: &Store) -> Result<BTreeMap<String, BTreeSet<String>>> {
    let mut out = BTreeMap::new();
    for id in store.owners()? {
        let owner = store.owner(&id)?;
        let view = owner.view()?;
        let mut ids = BTreeSet::new();
        for scope in Scope::ALL {
            let loaded = stores::load(view.at(), scope, true, STORE_BYTES)?;
            ids.extend(loaded.doc.entries.iter().map(|e| e.id.clone()));
        }
        out.insert(id, ids);
    }
    Ok(out)
}

/// The identity of commits a sync makes for `caller`.
pub(crate) fn identity(caller: Option<&Caller>, domain: &str) -> Identity {
    let name = match caller {
        Some(Caller::Agent(a)) => a.clone(),
        Some(Caller::Person(p)) => p.clone(),
        None => "memdir".to_owned(),
    };
    Identity {
        email: format!("{name}@{domain}"),
        name,
    }
}

/// Syncs the root's work tree with `remote` (default: the branch's
/// upstream remote, else `origin`).
pub(crate) fn sync(
    store: &Store,
    caller: Option<&Caller>,
    remote: Option<&str>,
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
    let who = identity(caller, &domain);
    let env = [
        ("GIT_AUTHOR_NAME", who.name.as_str()),
        ("GIT_AUTHOR_EMAIL", who.email.as_str()),
        ("GIT_COMMITTER_NAME", who.name.as_str()),
        ("GIT_COMMITTER_EMAIL", who.email.as_str()),
    ];
    let branch = repo
        .run(&["rev-parse", "--abbrev-ref", "HEAD"], &[])?
        .trim()
        .to_owned();
    let remote = match remote {
        Some(r) => r.to_owned(),
        None => repo
            .config_get(&format!("branch.{branch}.remote"))?
            .unwrap_or_else(|| "origin".to_owned()),
    };
    // Every owner's lock, in id order (as every sync takes them).
    let owners: Vec<Owner> = store
        .owners()?
        .iter()
        .map(|id| store.owner(id))
        .collect::<Result<_>>()?;
    let locked: Vec<Locked<'_>> = owners.iter().map(Owner::lock).collect::<Result<_>>()?;
    let committed = repo.commit(root, &["."], &format!("memdir: sync by {}", who.name), &who)?;
    let before = entries(store)?;
    let mut merged = false;
    let mut retries = 0;
    let remote_ref = format!("{remote}/{branch}");
    let pushed = loop {
        repo.run(&["fetch", "--quiet", &remote], &env)?;
        let known = repo
            .output(&["rev-parse", "--verify", "--quiet", &remote_ref], &[])?
            .status
            .success();
        if known {
            let behind = repo
                .run(
                    &["rev-list", "--count", &format!("HEAD..{remote_ref}")],
                    &[],
                )?
                .trim()
                != "0";
            if behind {
                // A clone does not copy `.git/config`: the driver named by
                // `.gitattributes` is registered for this merge if it is not.
                let driver = match repo.config_get("merge.memdir.driver")? {
                    Some(_) => "merge.memdir.name=memdir entry-wise merge".to_owned(),
                    None => format!("merge.memdir.driver={MERGE_DRIVER}"),
                };
                let args = [
                    "-c",
                    driver.as_str(),
                    "merge",
                    "--no-edit",
                    "--quiet",
                    remote_ref.as_str(),
                ];
                let out = repo.output(&args, &env)?;
                if !out.status.success() {
                    let said = match failed(&args, &out) {
                        Error::Git { message, .. } => message,
                        e => e.to_string(),
                    };
                    let _ = repo.output(&["merge", "--abort"], &[]);
                    return Err(Error::Git {
                        op: "merge".into(),
                        message: format!(
                            "{said}\nthe merge was aborted and nothing was pushed: merge \
                             {remote_ref} by hand (the merge driver leaves markers only where \
                             text outside entries conflicts)"
                        ),
                    });
                }
                merged = true;
            }
        }
        let args = [
            "push",
            "--quiet",
            "--set-upstream",
            remote.as_str(),
            &format!("HEAD:{branch}"),
        ];
        let out = repo.output(&args, &env)?;
        if out.status.success() {
            break true;
        }
        let said = String::from_utf8_lossy(&out.stderr);
        let raced = ["fetch first", "non-fast-forward", "rejected", "stale info"]
            .iter()
            .any(|s| said.contains(s));
        if !raced || retries + 1 >= PUSH_TRIES {
            return Err(failed(&args, &out));
        }
        retries += 1;
        std::thread::sleep(backoff(retries));
    };
    let after = entries(store)?;
    drop(locked);
    let incoming = after
        .iter()
        .map(|(owner, ids)| {
            let was = before.get(owner);
            Incoming {
                owner: owner.clone(),
                added: ids
                    .iter()
                    .filter(|i| !was.is_some_and(|w| w.contains(*i)))
                    .cloned()
                    .collect(),
                removed: was
                    .map(|w| w.difference(ids).cloned().collect())
                    .unwrap_or_default(),
            }
        })
        .filter(|i| !i.added.is_empty() || !i.removed.is_empty())
        .collect();
    Ok(SyncReport {
        remote,
        branch,
        committed,
        merged,
        pushed,
        retries,
        incoming,
    })
}
