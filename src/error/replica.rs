//! The failures of replicas (docs/SCALING.md): a request for an owner
//! homed on another replica, and a sync that stopped because the merge
//! needs a person.

/// A replica's refusal, or a sync's stop that waits for a person.
#[non_exhaustive]
#[derive(Debug, thiserror::Error)]
pub enum ReplicaError {
    /// The owner is homed on another replica (`replicas:` in the root's
    /// `memdir.yaml`): its requests go there.
    #[error("{owner} is homed on replica {home} ({url}), not on {here}: send its requests there")]
    Misdirected {
        /// The owner the request is for.
        owner: String,
        /// The replica that answered.
        here: String,
        /// The owner's home replica.
        home: String,
        /// The home replica's URL, as the replicas list gives it.
        url: String,
    },
    /// The remote's branch does not merge: a text conflict outside entries
    /// (or another failure of the merge), which retrying cannot fix. The
    /// merge was aborted and nothing was pushed.
    #[error(
        "the merge of {remote_ref} ({commit}) stopped and was aborted; nothing was pushed: \
         merge it by hand (the merge driver leaves markers only where text outside entries \
         conflicts), commit, then sync again\n{message}"
    )]
    SyncConflict {
        /// The remote's branch (`origin/main`).
        remote_ref: String,
        /// The remote commit that did not merge.
        commit: String,
        /// What git said.
        message: String,
    },
}
