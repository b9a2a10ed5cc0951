//! A person's decision taken on a page rendered from one of the owner's
//! files ([`Owner::decide`]): done only when the file's bytes are still the
//! ones the page was rendered from. The file's hash is checked under the
//! owner's lock, and the decision's change is made under that same lock,
//! as one write: nobody can change the file between the check and the
//! change, and a decision is done whole or not at all.

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::curated::{WriteOutcome, single};
use super::lifecycle::{self, Keep, Renewed, Transition};
use super::limits::STORE_EDIT_BYTES;
use super::owner::{Locked, Owner};
use super::write::commit;
use crate::edit::Op;
use crate::error::{Error, Result};
use crate::model::Scope;

/// One of the owner's files a page is rendered from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StoreFile {
    /// `MEMORY.md`.
    Memory,
    /// `USER.md`.
    User,
    /// `archive.md`.
    Archive,
}

impl StoreFile {
    /// The file's name in the owner's folder.
    pub fn name(self) -> &'static str {
        match self {
            StoreFile::Memory => Scope::Memory.file_name(),
            StoreFile::User => Scope::User.file_name(),
            StoreFile::Archive => super::files::archive::ARCHIVE_FILE,
        }
    }

    /// The file a form's `store` field names (`memory`, `user`, `archive`).
    pub fn parse(word: &str) -> Option<StoreFile> {
        match word {
            "memory" => Some(StoreFile::Memory),
            "user" => Some(StoreFile::User),
            "archive" => Some(StoreFile::Archive),
            _ => None,
        }
    }
}

/// The SHA-256 (hex) of each file a page renders forms from, as read: what
/// each form carries back with its [`Decision`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FileHashes {
    /// `MEMORY.md`'s.
    pub memory: String,
    /// `USER.md`'s.
    pub user: String,
    /// `archive.md`'s.
    pub archive: String,
}

/// [`Owner::file_hashes`].
pub(crate) fn file_hashes(owner: &Owner) -> Result<FileHashes> {
    let h = |f: StoreFile| super::stamps::sha256(owner, f.name());
    Ok(FileHashes {
        memory: h(StoreFile::Memory)?,
        user: h(StoreFile::User)?,
        archive: h(StoreFile::Archive)?,
    })
}

/// What a person decided, each as its request of its own does it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "action", rename_all = "snake_case")]
pub enum Decision {
    /// Save or change an entry ([`Owner::write`]).
    Write {
        /// The operation.
        op: Op,
    },
    /// Archive a memory ([`Owner::archive`]).
    Archive {
        /// The memory's id.
        id: String,
        /// Why.
        reason: String,
    },
    /// Veto a memory ([`Owner::veto`]).
    Veto {
        /// The memory's id.
        id: String,
        /// Why.
        reason: Option<String>,
    },
    /// Bring an archived memory back ([`Owner::unarchive`]).
    Unarchive {
        /// The memory's id.
        id: String,
    },
    /// Set a live fact's expiry ([`Owner::renew`]).
    Renew {
        /// The fact's id.
        id: String,
        /// The new expiry; the store's default from now when `None`.
        expires: Option<String>,
    },
    /// Settle what a merge left of a fact ([`Owner::resolve`]).
    Resolve {
        /// The fact's id.
        id: String,
        /// How.
        keep: Keep,
    },
    /// Keep one version of a `conflict=` pair: the pair's other versions
    /// are removed and this one's mark goes, in one write.
    KeepOnly {
        /// The version kept.
        id: String,
    },
}

/// What a decision did: the answer of its request of its own.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Decided {
    /// A write's outcome.
    Written(WriteOutcome),
    /// A memory's change of state.
    Transition(Transition),
    /// A fact's new expiry.
    Renewed(Renewed),
}

/// [`Owner::decide`].
pub(crate) fn decide(
    owner: &Owner,
    file: StoreFile,
    sha256: &str,
    decision: Decision,
) -> Result<Decided> {
    let locked = owner.lock()?;
    let now = hash_locked(&locked, file)?;
    if !same_hash(&now, sha256) {
        return Err(Error::StoreChanged {
            file: file.name().to_owned(),
        });
    }
    Ok(match decision {
        Decision::Write { op } => {
            let scope = op.scope().unwrap_or(Scope::Memory);
            let written = commit(&locked, std::slice::from_ref(&op), Vec::new(), false)?;
            let scope = written.results.first().map_or(scope, |o| o.scope);
            Decided::Written(single(written, scope))
        }
        Decision::Archive { id, reason } => {
            Decided::Transition(lifecycle::archive_plain_locked(&locked, &id, &reason)?)
        }
        Decision::Veto { id, reason } => {
            Decided::Transition(lifecycle::veto_locked(&locked, &id, reason.as_deref())?)
        }
        Decision::Unarchive { id } => {
            Decided::Transition(lifecycle::unarchive_locked(&locked, &id)?)
        }
        Decision::Renew { id, expires } => {
            Decided::Renewed(lifecycle::renew_locked(&locked, &id, expires.as_deref())?)
        }
        Decision::Resolve { id, keep } => {
            Decided::Transition(lifecycle::resolve_locked(&locked, &id, keep, false)?)
        }
        Decision::KeepOnly { id } => {
            Decided::Transition(lifecycle::resolve_locked(&locked, &id, Keep::Both, true)?)
        }
    })
}

/// The SHA-256 (hex) of `file` as it is under the lock: of no bytes when it
/// is missing.
fn hash_locked(locked: &Locked<'_>, file: StoreFile) -> Result<String> {
    let bytes = locked
        .owner()
        .disk()
        .read_bytes(locked.dir(), file.name(), STORE_EDIT_BYTES)?
        .unwrap_or_default();
    Ok(hex::encode(Sha256::digest(&bytes)))
}

/// Whether two hashes (hex) are the same, compared in constant time: the
/// one a form carries comes from whoever posted it.
fn same_hash(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes()
            .zip(b.bytes())
            .fold(0u8, |acc, (x, y)| acc | (x ^ y))
            == 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Caller;
    use crate::store::Store;

    #[test]
    fn a_decision_on_a_changed_file_does_nothing() {
        let tmp = tempfile::tempdir().unwrap();
        let store = Store::open(tmp.path()).unwrap();
        let agent = store.owner("agt_a").unwrap();
        let id = agent
            .add(Scope::Memory, "Staging needs the VPN")
            .unwrap()
            .outcome
            .id;
        let me = store
            .owner_as(&Caller::Person("ana".into()), Some("agt_a"))
            .unwrap();
        let rendered = me.file_hashes().unwrap().memory;
        agent.add(Scope::Memory, "Deploys on Tuesdays").unwrap();
        let before = std::fs::read(tmp.path().join("agt_a/MEMORY.md")).unwrap();
        let e = me
            .decide(
                StoreFile::Memory,
                &rendered,
                Decision::Archive {
                    id: id.clone(),
                    reason: "done".into(),
                },
            )
            .unwrap_err();
        assert_eq!(e.code(), crate::ErrorCode::StoreChanged);
        assert_eq!(
            std::fs::read(tmp.path().join("agt_a/MEMORY.md")).unwrap(),
            before
        );
        let now = me.file_sha256("MEMORY.md").unwrap();
        let done = me
            .decide(
                StoreFile::Memory,
                &now,
                Decision::Archive {
                    id,
                    reason: "done".into(),
                },
            )
            .unwrap();
        assert!(matches!(done, Decided::Transition(_)));
    }

    #[test]
    fn hashes_compare_whole() {
        assert!(same_hash("ab", "ab"));
        assert!(!same_hash("ab", "ac"));
        assert!(!same_hash("ab", "abc"));
    }
}
