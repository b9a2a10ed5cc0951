//! What a server that syncs (`memdir serve --sync REMOTE [--replica NAME]`,
//! docs/SCALING.md) asks of memdir beyond requests: the check as it starts,
//! its own syncs, whether a merge it stopped on was made since; and the
//! state of its syncing ([`Syncing`]: what each sync's outcome makes of it,
//! how long to wait before the next, what `GET /v1/sync` answers). No
//! answer to an agent is made here but the status, which names no owner.

use std::time::Duration;

use chrono::{DateTime, Utc};
use serde::Serialize;

use super::Opener;
use crate::error::{Error, ErrorCode, ReplicaError, Result};
use crate::store::SyncReport;

/// The longest wait after failed syncs in a row.
pub const MAX_BACKOFF: Duration = Duration::from_secs(300);
/// The first wait after a failed sync, doubled with each failure in a row.
pub const FIRST_BACKOFF: Duration = Duration::from_secs(1);
/// The longest text of git's kept in the status.
const MESSAGE_CHARS: usize = 2_000;

/// What `memdir serve --sync` checks as it starts (see
/// [`Store::check_replica`](crate::store::Store::check_replica)).
pub fn check_start(opener: &Opener, remote: &str) -> Result<()> {
    opener.open()?.check_replica(remote)
}

/// One sync of the server's root with `remote`, committed as the replica
/// (or `memdir`); `locked` at once when another sync of the clone (a
/// `memdir sync` by hand) is running.
pub fn sync(opener: &Opener, remote: &str) -> Result<SyncReport> {
    opener
        .open()?
        .sync_within(None, Some(remote), Duration::ZERO)
}

/// Whether the commit a sync stopped on has been merged since (by a
/// person, or by a `memdir sync` by hand).
pub fn merged(opener: &Opener, commit: &str) -> Result<bool> {
    opener.open()?.has_merged(commit)
}

/// How a server's syncing stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SyncState {
    /// The server does not sync (started without `--sync`).
    Off,
    /// No sync has ended yet.
    Starting,
    /// The last sync went through.
    Ok,
    /// The last sync failed (the remote unreachable, a push refused): the
    /// next one comes after a backoff.
    Retrying,
    /// A merge stopped on a conflict retrying cannot fix: syncing waits
    /// for a person to merge by hand (docs/SCALING.md).
    Stopped,
}

/// A replica's name and where its clients reach it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct ReplicaAddress {
    /// Its name.
    pub name: String,
    /// Its URL.
    pub url: String,
}

/// The last failed sync.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct SyncFailure {
    /// Its code: `git_failed` (the remote unreachable, a push refused),
    /// `sync_conflict` (a merge a person makes), `not_in_git`, …
    pub code: ErrorCode,
    /// What failed, git's words with any password in a URL hidden.
    pub message: String,
    /// When.
    pub at: DateTime<Utc>,
    /// The remote commit that did not merge (`sync_conflict`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub commit: Option<String>,
}

/// What `GET /v1/sync` answers: how the server's syncing stands.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct SyncStatus {
    /// How it stands.
    pub state: SyncState,
    /// The remote (`--sync`).
    pub remote: Option<String>,
    /// The sync period in seconds (`--sync-every`).
    pub every_secs: Option<u64>,
    /// This server's replica (`--replica`).
    pub replica: Option<String>,
    /// The root's replicas, as its `memdir.yaml` names them now.
    pub replicas: Vec<ReplicaAddress>,
    /// Syncs that went through since the server started.
    pub syncs: u64,
    /// Syncs that failed since the server started.
    pub failed: u64,
    /// Failed syncs since the last that went through.
    pub failures_in_a_row: u64,
    /// Pushes refused because another clone pushed first, then retried.
    pub pushes_retried: u64,
    /// When the last sync that went through ended.
    pub last_synced: Option<DateTime<Utc>>,
    /// The last failure, while the state is `retrying` or `stopped`.
    pub error: Option<SyncFailure>,
    /// How long until the next sync is tried, in milliseconds (`None`:
    /// off, or waiting for a person).
    pub next_in_ms: Option<u64>,
}

/// What comes after a sync.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Next {
    /// The next sync, after this long at most (a write may bring it
    /// sooner, but never during a backoff).
    After(Duration),
    /// Another sync of the clone was running: try again after this long.
    Again(Duration),
    /// Nothing until a person merged the commit the sync stopped on.
    Person,
}

/// The state of a server's syncing: what each sync's outcome makes of it.
/// Pure: the server's timer runs the syncs and waits.
#[derive(Debug, Clone)]
pub struct Syncing {
    remote: String,
    every: Duration,
    replica: Option<String>,
    state: SyncState,
    syncs: u64,
    failed: u64,
    in_a_row: u32,
    pushes_retried: u64,
    last_synced: Option<DateTime<Utc>>,
    error: Option<SyncFailure>,
    next_at: Option<std::time::Instant>,
}

impl Syncing {
    /// The syncing of a server started with `--sync remote --sync-every
    /// every [--replica replica]`, before its first sync.
    pub fn new(remote: &str, every: Duration, replica: Option<&str>) -> Syncing {
        Syncing {
            remote: remote.to_owned(),
            every,
            replica: replica.map(str::to_owned),
            state: SyncState::Starting,
            syncs: 0,
            failed: 0,
            in_a_row: 0,
            pushes_retried: 0,
            last_synced: None,
            error: None,
            next_at: None,
        }
    }

    /// How long writes must be quiet before the sync they bring: a quarter
    /// of the period, between 100 ms and 2 s.
    pub fn quiet(&self) -> Duration {
        (self.every / 4).clamp(Duration::from_millis(100), Duration::from_secs(2))
    }

    /// The period.
    pub fn every(&self) -> Duration {
        self.every
    }

    /// Failed syncs since the last that went through.
    pub fn failures_in_a_row(&self) -> u64 {
        u64::from(self.in_a_row)
    }

    /// The remote commit the sync stopped on, while it waits for a person.
    pub fn stopped_on(&self) -> Option<&str> {
        match self.state {
            SyncState::Stopped => self.error.as_ref().and_then(|e| e.commit.as_deref()),
            _ => None,
        }
    }

    /// What `outcome` (a sync's) makes of the state, and what comes next.
    pub fn record(&mut self, outcome: &Result<SyncReport>) -> Next {
        let next = match outcome {
            Ok(report) => {
                self.syncs += 1;
                self.in_a_row = 0;
                self.pushes_retried += report.retries as u64;
                self.last_synced = Some(Utc::now());
                self.error = None;
                self.state = SyncState::Ok;
                Next::After(self.every)
            }
            // Another sync of this clone (by hand) holds the lock: it does
            // the work; no failure.
            Err(e) if e.code() == ErrorCode::Locked => {
                Next::Again(self.quiet().max(Duration::from_secs(1)))
            }
            Err(e) => {
                self.failed += 1;
                self.in_a_row = self.in_a_row.saturating_add(1);
                let commit = match e {
                    Error::Replica(ReplicaError::SyncConflict { commit, .. }) => {
                        Some(commit.clone())
                    }
                    _ => None,
                };
                self.state = if commit.is_some() {
                    SyncState::Stopped
                } else {
                    SyncState::Retrying
                };
                self.error = Some(SyncFailure {
                    code: e.code(),
                    message: redact(&e.to_string()),
                    at: Utc::now(),
                    commit,
                });
                match self.state {
                    SyncState::Stopped => Next::Person,
                    _ => Next::After(backoff(self.in_a_row)),
                }
            }
        };
        self.next_at = match next {
            Next::After(d) | Next::Again(d) => Some(std::time::Instant::now() + d),
            Next::Person => None,
        };
        next
    }

    /// The merge a sync stopped on was made: syncing goes on.
    pub fn resume(&mut self) {
        if self.state == SyncState::Stopped {
            self.state = SyncState::Retrying;
            self.next_at = Some(std::time::Instant::now());
        }
    }

    /// What `GET /v1/sync` answers, with the root's replicas as they are
    /// now (`replicas`).
    pub fn status(&self, replicas: Vec<ReplicaAddress>) -> SyncStatus {
        SyncStatus {
            state: self.state,
            remote: Some(self.remote.clone()),
            every_secs: Some(self.every.as_secs()),
            replica: self.replica.clone(),
            replicas,
            syncs: self.syncs,
            failed: self.failed,
            failures_in_a_row: u64::from(self.in_a_row),
            pushes_retried: self.pushes_retried,
            last_synced: self.last_synced,
            error: self.error.clone(),
            next_in_ms: self.next_at.map(|t| {
                let left = t.saturating_duration_since(std::time::Instant::now());
                u64::try_from(left.as_millis()).unwrap_or(u64::MAX)
            }),
        }
    }
}

/// What `GET /v1/sync` answers on a server that does not sync.
pub fn status_off(replicas: Vec<ReplicaAddress>) -> SyncStatus {
    SyncStatus {
        state: SyncState::Off,
        remote: None,
        every_secs: None,
        replica: None,
        replicas,
        syncs: 0,
        failed: 0,
        failures_in_a_row: 0,
        pushes_retried: 0,
        last_synced: None,
        error: None,
        next_in_ms: None,
    }
}

/// The root's replicas as its `memdir.yaml` names them now (none when it
/// cannot be read): names and URLs, no owner.
pub fn addresses(opener: &Opener) -> Vec<ReplicaAddress> {
    opener.open().map_or_else(
        |_| Vec::new(),
        |store| {
            store
                .replicas()
                .iter()
                .map(|r| ReplicaAddress {
                    name: r.name.clone(),
                    url: r.url.clone(),
                })
                .collect()
        },
    )
}

/// The wait after `n` failed syncs in a row (from 1): 1 s doubling, at
/// most [`MAX_BACKOFF`], plus up to a quarter more at random so replicas
/// that failed together do not retry in step.
pub fn backoff(n: u32) -> Duration {
    let base = FIRST_BACKOFF
        .saturating_mul(1u32 << n.saturating_sub(1).min(16))
        .min(MAX_BACKOFF);
    let mut raw = [0u8; 2];
    let spread = match getrandom::fill(&mut raw) {
        Ok(()) => f64::from(u16::from_le_bytes(raw)) / f64::from(u16::MAX),
        Err(_) => 0.5,
    };
    base + base.mul_f64(spread / 4.0)
}

/// `message` cut to [`MESSAGE_CHARS`], with the user information of every
/// URL in it (`https://user:token@host`) hidden: git may name the remote
/// as it was given.
fn redact(message: &str) -> String {
    let mut out = String::with_capacity(message.len());
    for word in message.split_inclusive(char::is_whitespace) {
        match (word.find("://"), word.find('@')) {
            (Some(s), Some(at)) if at > s + 3 => {
                out.push_str(&word[..s + 3]);
                out.push('…');
                out.push_str(&word[at..]);
            }
            _ => out.push_str(word),
        }
    }
    out.chars().take(MESSAGE_CHARS).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report(retries: usize) -> SyncReport {
        SyncReport {
            remote: Some("origin".into()),
            branch: "main".into(),
            committed: false,
            merged: false,
            pushed: true,
            retries,
            incoming: Vec::new(),
            outgoing: Vec::new(),
            cut: false,
        }
    }

    #[test]
    fn failures_back_off_a_conflict_waits_for_a_person_and_success_resets() {
        let mut s = Syncing::new("origin", Duration::from_secs(2), Some("east"));
        assert_eq!(s.status(Vec::new()).state, SyncState::Starting);
        let down: Result<SyncReport> = Err(Error::Git {
            op: "fetch".into(),
            message: "fatal: unable to access 'https://ann:s3cret@example.org/m.git/'".into(),
        });
        let Next::After(first) = s.record(&down) else {
            panic!("a backoff")
        };
        let Next::After(second) = s.record(&down) else {
            panic!("a backoff")
        };
        assert!(first >= Duration::from_secs(1) && first <= Duration::from_millis(1250));
        assert!(second >= Duration::from_secs(2) && second <= Duration::from_millis(2500));
        let st = s.status(Vec::new());
        assert_eq!(
            (st.state, st.failures_in_a_row, st.failed),
            (SyncState::Retrying, 2, 2)
        );
        let e = st.error.unwrap();
        assert_eq!(e.code, ErrorCode::GitFailed);
        assert!(!e.message.contains("s3cret"), "{}", e.message);
        assert!(e.message.contains("https://…@example.org"), "{}", e.message);
        assert!(backoff(40) <= MAX_BACKOFF + MAX_BACKOFF / 4);
        // Another sync by hand: no failure.
        let held: Result<SyncReport> = Err(Error::Locked {
            path: "sync.lock".into(),
            waited_ms: 0,
        });
        assert!(matches!(s.record(&held), Next::Again(_)));
        assert_eq!(s.status(Vec::new()).failed, 2);
        assert_eq!(
            s.record(&Ok(report(3))),
            Next::After(Duration::from_secs(2))
        );
        let st = s.status(Vec::new());
        assert_eq!(
            (st.state, st.failures_in_a_row, st.pushes_retried),
            (SyncState::Ok, 0, 3)
        );
        assert!(st.error.is_none() && st.last_synced.is_some());
        let conflict: Result<SyncReport> = Err(ReplicaError::SyncConflict {
            remote_ref: "origin/main".into(),
            commit: "abc123".into(),
            message: "CONFLICT (content)".into(),
        }
        .into());
        assert_eq!(s.record(&conflict), Next::Person);
        assert_eq!(s.stopped_on(), Some("abc123"));
        let st = s.status(Vec::new());
        assert_eq!(st.state, SyncState::Stopped);
        assert_eq!(st.next_in_ms, None);
        assert_eq!(st.error.unwrap().code, ErrorCode::SyncConflict);
        s.resume();
        assert_eq!(s.stopped_on(), None);
        assert_eq!(s.status(Vec::new()).state, SyncState::Retrying);
    }

    #[test]
    fn writes_wait_a_quarter_period_of_quiet_within_bounds() {
        let q = |secs| Syncing::new("o", Duration::from_secs(secs), None).quiet();
        assert_eq!(q(2), Duration::from_millis(500));
        assert_eq!(q(1), Duration::from_millis(250));
        assert_eq!(q(60), Duration::from_secs(2));
        let tiny = Syncing::new("o", Duration::from_millis(200), None).quiet();
        assert_eq!(tiny, Duration::from_millis(100));
    }
}
