//! One owner's share of the server: at most [`RUNNING_PER_OWNER`] calls of
//! one owner on the blocking pool at once and [`WAITING_PER_OWNER`] more
//! waiting their turn (on the runtime, holding no thread); past that the
//! call is `503 busy` with `Retry-After`. An owner whose lock another
//! process holds thus stalls its own calls only: the other owners' calls
//! keep the rest of the pool.
//!
//! A call's owner is the one it resolves to: the agent's own id for an
//! agent's key, the `agentId` named for a person's key; calls that name no
//! owner (a person's list of every owner) share one bucket of their own.
//! The map holds an owner only while a call of it is in flight, so it is
//! as bounded as the calls are.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use memdir::api::errors::Transport;
use memdir::api::types::Caller;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// Calls of one owner on the blocking pool at once, at most.
pub const RUNNING_PER_OWNER: usize = 32;
/// Calls of one owner waiting for their turn, at most.
pub const WAITING_PER_OWNER: usize = 64;
/// The `Retry-After` of a `busy` answer, in seconds.
pub const RETRY_AFTER_SECS: u64 = 1;

/// The owner a call's share is counted against: `None` for the calls that
/// name no owner (a person's key without `agentId`).
pub fn owner_of(caller: &Caller, named: Option<&str>) -> Option<String> {
    match caller {
        // An agent acts on its own memory only (naming another is refused
        // by the call itself, counted against the agent).
        Caller::Agent(a) => Some(a.clone()),
        Caller::Person(_) => named.map(str::to_owned),
    }
}

/// The shares of every owner with a call in flight.
#[derive(Debug)]
pub struct Limits {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    buckets: Mutex<HashMap<Option<String>, Bucket>>,
    running: usize,
    waiting: usize,
}

/// One owner's calls in flight.
#[derive(Debug)]
struct Bucket {
    /// The turns on the blocking pool.
    turns: Arc<Semaphore>,
    /// Calls running or waiting.
    calls: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits::new(RUNNING_PER_OWNER, WAITING_PER_OWNER)
    }
}

impl Limits {
    /// At most `running` calls of one owner at once and `waiting` more
    /// waiting.
    pub fn new(running: usize, waiting: usize) -> Limits {
        Limits {
            inner: Arc::new(Inner {
                buckets: Mutex::new(HashMap::new()),
                running: running.max(1),
                waiting,
            }),
        }
    }

    /// Counts a call of `owner` in: its place, which waits for its turn
    /// with [`Share::turn`]; `busy` when the owner has as many calls
    /// running and waiting as allowed.
    pub fn enter(&self, owner: Option<String>) -> Result<Share, Transport> {
        let mut buckets = self
            .inner
            .buckets
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let running = self.inner.running;
        let bucket = buckets.entry(owner.clone()).or_insert_with(|| Bucket {
            turns: Arc::new(Semaphore::new(running)),
            calls: 0,
        });
        if bucket.calls >= running + self.inner.waiting {
            return Err(Transport::Busy {
                what: format!(
                    "this owner has {running} calls running and {} waiting, as many as the server allows one owner",
                    self.inner.waiting
                ),
                retry_after_secs: RETRY_AFTER_SECS,
            });
        }
        bucket.calls += 1;
        Ok(Share {
            inner: self.inner.clone(),
            owner,
            turns: bucket.turns.clone(),
            permit: None,
        })
    }

    /// How many owners have a call in flight.
    #[cfg(test)]
    fn owners(&self) -> usize {
        self.inner
            .buckets
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .len()
    }
}

/// A call's place in its owner's share, until dropped: move it into the
/// blocking work, so the turn ends when the work does, not when a client
/// stops waiting.
#[derive(Debug)]
pub struct Share {
    inner: Arc<Inner>,
    owner: Option<String>,
    turns: Arc<Semaphore>,
    permit: Option<OwnedSemaphorePermit>,
}

impl Share {
    /// Waits (on the runtime, holding no thread) for one of the owner's
    /// turns.
    pub async fn turn(mut self) -> Share {
        if self.permit.is_none() {
            // The semaphore is never closed.
            self.permit = self.turns.clone().acquire_owned().await.ok();
        }
        self
    }
}

impl Share {
    /// Takes one of the owner's turns if one is free now and no call waits
    /// for one (the semaphore is fair: a free turn goes to a waiter first);
    /// whether this call has a turn.
    pub fn try_turn(&mut self) -> bool {
        if self.permit.is_none() {
            self.permit = self.turns.clone().try_acquire_owned().ok();
        }
        self.permit.is_some()
    }
}

impl Drop for Share {
    fn drop(&mut self) {
        // The turn first, so a bucket dropped below has none out.
        drop(self.permit.take());
        let mut buckets = self
            .inner
            .buckets
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if let Some(b) = buckets.get_mut(&self.owner) {
            b.calls = b.calls.saturating_sub(1);
            if b.calls == 0 {
                buckets.remove(&self.owner);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_owner_past_its_running_and_waiting_calls_is_busy_and_others_are_not() {
        let limits = Limits::new(2, 3);
        let a = || limits.enter(Some("agt_a".into()));
        let held: Vec<Share> = (0..5).map(|_| a().unwrap()).collect();
        assert!(matches!(
            a().unwrap_err(),
            Transport::Busy {
                retry_after_secs: RETRY_AFTER_SECS,
                ..
            }
        ));
        // Another owner, and the calls naming none, have their own share.
        let b = limits.enter(Some("agt_b".into())).unwrap();
        let none = limits.enter(None).unwrap();
        assert_eq!(limits.owners(), 3);
        drop(held);
        drop((b, none));
        // Idle owners leave the map.
        assert_eq!(limits.owners(), 0);
        assert!(a().is_ok());
    }

    /// A runtime on this thread, with time (for the tests' timeouts).
    fn runtime() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .unwrap()
    }

    #[test]
    fn at_most_the_running_calls_have_a_turn() {
        runtime().block_on(async {
            let limits = Limits::new(2, 8);
            let mut turns = Vec::new();
            for _ in 0..2 {
                turns.push(limits.enter(Some("agt_a".into())).unwrap().turn().await);
            }
            let third = limits.enter(Some("agt_a".into())).unwrap();
            let waiting = tokio::time::timeout(std::time::Duration::ZERO, third.turn());
            assert!(waiting.await.is_err(), "a third turn while two are out");
            drop(turns.pop());
            let third = limits.enter(Some("agt_a".into())).unwrap();
            assert!(third.turn().await.permit.is_some());
        });
    }

    #[test]
    fn a_free_turn_is_taken_at_once_but_never_ahead_of_a_waiting_call() {
        runtime().block_on(async {
            let limits = Limits::new(1, 8);
            let mut first = limits.enter(Some("agt_a".into())).unwrap();
            assert!(first.try_turn(), "the one turn is free");
            let mut second = limits.enter(Some("agt_a".into())).unwrap();
            assert!(!second.try_turn(), "the one turn is out");
            // A call waits for the turn; once it is given back, the waiting
            // call has it, not a later one trying.
            let waiter = limits.enter(Some("agt_a".into())).unwrap();
            let waiting = tokio::spawn(waiter.turn());
            tokio::task::yield_now().await;
            drop(first);
            assert!(!second.try_turn(), "the turn went to the waiting call");
            let waiter = waiting.await.unwrap();
            assert!(waiter.permit.is_some());
            drop(waiter);
            assert!(second.try_turn());
        });
    }

    #[test]
    fn a_call_counts_against_the_owner_it_resolves_to() {
        let agent = Caller::Agent("agt_a".into());
        let person = Caller::Person("ana".into());
        assert_eq!(owner_of(&agent, None).as_deref(), Some("agt_a"));
        assert_eq!(owner_of(&agent, Some("agt_b")).as_deref(), Some("agt_a"));
        assert_eq!(owner_of(&person, Some("agt_b")).as_deref(), Some("agt_b"));
        assert_eq!(owner_of(&person, None), None);
    }
}
