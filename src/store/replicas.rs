//! Replicas (docs/SCALING.md): which owners the replica a store serves as
//! ([`Store::with_replica`]) homes, by the root's `replicas:` list. A store
//! that serves as no replica homes every owner.

use super::root::{CONFIG_FILE, Store};
use crate::error::{Error, ReplicaError, Result};
use crate::model::Replica;
use crate::model::replicas::{home, named};

/// The replica the store serves as and the root's list, which names it;
/// `None` when it serves as none. A replica whose list cannot be read (a
/// refused `memdir.yaml`) or does not name it is `invalid_config`: it homes
/// no one, failing closed rather than serve an owner another replica may
/// be serving too.
fn this_replica(store: &Store) -> Result<Option<(&str, &[Replica])>> {
    let Some(me) = store.replica() else {
        return Ok(None);
    };
    store.settings_ok()?;
    let list = store.settings().replicas.as_deref().unwrap_or_default();
    if named(list, me).is_none() {
        return Err(Error::InvalidConfig {
            path: store.root().join(CONFIG_FILE),
            message: format!(
                "this server is replica {me:?} (--replica), which `replicas` does not name"
            ),
        });
    }
    Ok(Some((me, list)))
}

/// Refuses a request for `owner` on a replica that is not its home
/// (`misdirected`, naming the home and its URL).
pub(crate) fn require_home(store: &Store, owner: &str) -> Result<()> {
    let Some((me, list)) = this_replica(store)? else {
        return Ok(());
    };
    match home(list, owner) {
        Some(h) if h.name != me => Err(ReplicaError::Misdirected {
            owner: owner.to_owned(),
            here: me.to_owned(),
            home: h.name.clone(),
            url: h.url.clone(),
        }
        .into()),
        _ => Ok(()),
    }
}

/// What a server that syncs with `remote` checks as it starts: the root is
/// in a git work tree that has that remote, and the replica the store
/// serves as is one the root's `replicas:` names, or the store serves as
/// none and the root names no replicas (a server outside the list would
/// answer for every owner, beside their homes).
pub(crate) fn check_start(store: &Store, remote: &str) -> Result<()> {
    let root = store.root();
    let repo = crate::git::Repo::find(root).ok_or_else(|| Error::NotInGit {
        path: root.to_owned(),
    })?;
    if !repo.remotes()?.iter().any(|r| r == remote) {
        return Err(Error::Usage {
            message: format!(
                "--sync {remote}: the clone at {} has no remote of that name \
                 (`git remote -v` lists them)",
                repo.top().display()
            ),
        });
    }
    if this_replica(store)?.is_some() {
        return Ok(());
    }
    store.settings_ok()?;
    let list = store.settings().replicas.as_deref().unwrap_or_default();
    if list.is_empty() {
        return Ok(());
    }
    Err(Error::Usage {
        message: format!(
            "the root's {CONFIG_FILE} names replicas ({}): start with --replica NAME",
            list.iter()
                .map(|r| r.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    })
}
