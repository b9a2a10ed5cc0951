//! Group commit: concurrent writes of one owner in one process, written
//! together.
//!
//! A long-lived process that serves many callers (`memdir serve`) turns it
//! on with [`Store::with_group_commit`](crate::store::Store::with_group_commit).
//! Each write joins its owner's queue. The first to find no leader leads:
//! it takes the owner's lock once, plans every queued operation as one
//! batch (an operation that fails is answered with its own error, taken out,
//! and the rest planned again, so each operation gets the answer it would
//! get written alone after the ones before it), writes each changed file
//! once with one round of fsyncs, lets go of the lock, and answers them all.
//! Then it hands the lead to the next write waiting, if any. So an answer is
//! given only once its operation is durable, as alone; a crash before that
//! answers nobody.
//!
//! A write that would wait for a person (`writes: review`), and every write
//! of a group whose plan failed as a whole (the lock not taken, a refused
//! setting, a read failing), is done alone by its own caller, as without
//! group commit: its error is its own.

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};

use super::{Written, commit, waits};
use crate::edit::Op;
use crate::error::{Error, Result};
use crate::model::Caller;
use crate::store::owner::Owner;
use crate::store::root::Store;

/// Operations in one group at most.
const MAX_GROUP: usize = 256;

/// What wakes a waiting write.
enum Wake {
    /// Its answer.
    Done(Result<Written>),
    /// Do it alone (see the module's text).
    Alone,
    /// Lead the next group.
    Lead,
}

/// One write in its owner's queue.
struct Slot {
    owner: Owner,
    op: Op,
    wake: Mutex<Option<Wake>>,
    woken: Condvar,
}

impl Slot {
    fn set(&self, w: Wake) {
        *self.wake.lock().unwrap_or_else(PoisonError::into_inner) = Some(w);
        self.woken.notify_one();
    }

    fn wait(&self) -> Wake {
        let mut g = self.wake.lock().unwrap_or_else(PoisonError::into_inner);
        loop {
            if let Some(w) = g.take() {
                return w;
            }
            g = self.woken.wait(g).unwrap_or_else(PoisonError::into_inner);
        }
    }
}

/// Writes that share a group: one owner, one caller, one run.
type Key = (String, Caller, Option<String>);

/// One queue's state.
#[derive(Default)]
struct Lane {
    queue: VecDeque<Arc<Slot>>,
    leading: bool,
}

/// The queues of every owner with writes in flight, and what they did.
#[derive(Default)]
pub(crate) struct Groups {
    lanes: Mutex<HashMap<Key, Lane>>,
    writes: AtomicU64,
    groups: AtomicU64,
}

impl std::fmt::Debug for Groups {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Groups")
            .field("writes", &self.writes.load(Ordering::Relaxed))
            .field("groups", &self.groups.load(Ordering::Relaxed))
            .finish_non_exhaustive()
    }
}

impl Groups {
    fn lanes(&self) -> MutexGuard<'_, HashMap<Key, Lane>> {
        self.lanes.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Writes answered in groups, and the groups written.
    pub(crate) fn counts(&self) -> (u64, u64) {
        (
            self.writes.load(Ordering::Relaxed),
            self.groups.load(Ordering::Relaxed),
        )
    }

    /// Writes `op` for `owner` in a group; `alone` does it alone.
    pub(crate) fn write(
        &self,
        owner: &Owner,
        op: Op,
        alone: impl FnOnce(&Owner, Op) -> Result<Written>,
    ) -> Result<Written> {
        let key: Key = (
            owner.id().to_owned(),
            owner.caller().clone(),
            owner.run().map(|r| r.id.clone()),
        );
        let slot = Arc::new(Slot {
            owner: owner.clone(),
            op,
            wake: Mutex::new(None),
            woken: Condvar::new(),
        });
        let lead = {
            let mut lanes = self.lanes();
            let lane = lanes.entry(key.clone()).or_default();
            lane.queue.push_back(Arc::clone(&slot));
            !std::mem::replace(&mut lane.leading, true)
        };
        if !lead {
            match slot.wait() {
                Wake::Done(r) => return r,
                Wake::Alone => return alone(owner, slot.op.clone()),
                Wake::Lead => {}
            }
        }
        let group: Vec<Arc<Slot>> = {
            let mut lanes = self.lanes();
            let lane = lanes.entry(key.clone()).or_default();
            let n = lane.queue.len().min(MAX_GROUP);
            lane.queue.drain(..n).collect()
        };
        let mine = self.run(owner, &group, &slot);
        {
            let mut lanes = self.lanes();
            if let Some(lane) = lanes.get_mut(&key) {
                match lane.queue.front() {
                    Some(next) => next.set(Wake::Lead),
                    None => {
                        lanes.remove(&key);
                    }
                }
            }
        }
        match mine {
            Some(r) => r,
            None => alone(owner, slot.op.clone()),
        }
    }

    /// Writes `group` (which holds `mine`) under one lock: answers every
    /// other write, and gives `mine`'s answer (`None`: do it alone).
    fn run(
        &self,
        leader: &Owner,
        group: &[Arc<Slot>],
        mine: &Arc<Slot>,
    ) -> Option<Result<Written>> {
        let mut answers: Vec<Option<Wake>> = group.iter().map(|_| None).collect();
        let written = self.commit_group(leader, group, &mut answers);
        let mut own = None;
        for (slot, answer) in group.iter().zip(answers) {
            let wake = answer.unwrap_or(Wake::Alone);
            if Arc::ptr_eq(slot, mine) {
                own = match wake {
                    Wake::Done(r) => Some(r),
                    _ => None,
                };
            } else {
                slot.set(wake);
            }
        }
        if written > 0 {
            self.groups.fetch_add(1, Ordering::Relaxed);
            self.writes.fetch_add(written, Ordering::Relaxed);
        }
        own
    }

    /// Plans and writes the group's operations; fills `answers` (a write
    /// left `None` is done alone) and gives how many were written.
    fn commit_group(
        &self,
        leader: &Owner,
        group: &[Arc<Slot>],
        answers: &mut [Option<Wake>],
    ) -> u64 {
        let Ok(locked) = leader.lock() else {
            return 0;
        };
        // Each write's own deadline, checked as its write would check it
        // once the lock is held; a write that waits for a person goes alone.
        let mut live: Vec<usize> = Vec::new();
        for (i, slot) in group.iter().enumerate() {
            if let Some(d) = slot.owner.store().deadline()
                && let Err(e) = d.commit()
            {
                answers[i] = Some(Wake::Done(Err(e)));
                continue;
            }
            if let Ok(false) = waits(locked.at(), std::slice::from_ref(&slot.op)) {
                live.push(i);
            }
        }
        loop {
            if live.is_empty() {
                return 0;
            }
            let ops: Vec<Op> = live.iter().map(|&i| group[i].op.clone()).collect();
            match commit(&locked, &ops, Vec::new(), true) {
                Ok(written) => {
                    for (k, &i) in live.iter().enumerate() {
                        answers[i] = Some(Wake::Done(Ok(one_of(&written, k))));
                    }
                    return live.len() as u64;
                }
                Err(Error::Batch { index, source }) if index < live.len() => {
                    let i = live.remove(index);
                    answers[i] = Some(Wake::Done(Err(*source)));
                }
                // The group failed as a whole: each write goes alone.
                Err(_) => return 0,
            }
        }
    }
}

/// What the `k`th operation of a group's write did, as a write of it
/// alone says (its outcome; the stores' usage, the warnings and the facts
/// archived by the whole group).
fn one_of(w: &Written, k: usize) -> Written {
    Written {
        results: w.results.get(k).cloned().into_iter().collect(),
        usage: w.usage.clone(),
        warnings: w.warnings.clone(),
        archived: w.archived.clone(),
        pending: None,
    }
}

/// The group commit queues of `store`, when it has them.
pub(crate) fn groups(store: &Store) -> Option<&Groups> {
    store.groups_any()?.downcast_ref()
}

#[cfg(test)]
mod tests {
    use std::sync::Barrier;

    use super::*;
    use crate::model::Scope;

    /// Many threads writing one owner at once through one store: every
    /// save is answered as alone and kept once; a failing operation gets its
    /// own error and fails no other; the writes shared groups.
    #[test]
    fn concurrent_writes_share_groups_and_each_gets_its_own_answer() {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("memdir.yaml"), "budgets:\n  memory: 20000\n").unwrap();
        let store = Store::open(d.path()).unwrap().with_group_commit();
        let owner = store.owner("agt").unwrap();
        owner.add(Scope::Memory, "The first note").unwrap();
        const THREADS: usize = 16;
        const EACH: usize = 8;
        let start = Arc::new(Barrier::new(THREADS));
        let handles: Vec<_> = (0..THREADS)
            .map(|t| {
                let (owner, start) = (owner.clone(), Arc::clone(&start));
                std::thread::spawn(move || {
                    start.wait();
                    (0..EACH)
                        .map(|n| {
                            if t == 0 && n == 3 {
                                // Names nothing: refused, alone.
                                let e = owner
                                    .write(Op::Remove {
                                        old: "mem_000000000000".into(),
                                        scope: Some(Scope::Memory),
                                    })
                                    .unwrap_err();
                                assert_eq!(e.code().as_str(), "memory_not_found", "{e}");
                                None
                            } else {
                                let text = format!("Note {t}-{n} of the group test");
                                let w = owner.add(Scope::Memory, &text).unwrap();
                                assert!(w.outcome.message.created(), "{w:?}");
                                Some(text)
                            }
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        let saved: Vec<String> = handles
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .flatten()
            .collect();
        assert_eq!(saved.len(), THREADS * EACH - 1);
        let file = std::fs::read_to_string(d.path().join("agt/MEMORY.md")).unwrap();
        for text in &saved {
            assert_eq!(file.matches(text.as_str()).count(), 1, "{text}");
        }
        let (writes, groups) = store.group_counts().unwrap();
        assert_eq!(writes, saved.len() as u64 + 1, "the first note too");
        assert!(groups < writes, "{writes} writes in {groups} groups");
    }

    /// Without group commit, no counts.
    #[test]
    fn group_commit_is_off_by_default() {
        let d = tempfile::tempdir().unwrap();
        assert!(Store::open(d.path()).unwrap().group_counts().is_none());
    }
}
