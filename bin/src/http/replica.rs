//! `memdir serve --sync REMOTE`: the server syncs its clone with the
//! remote itself (docs/SCALING.md). A sync runs at start, then once a
//! period (`--sync-every`) and soon after writes: a write answered starts a
//! short wait for quiet (a quarter of the period, 100 ms to 2 s), and the
//! sync follows it, within a period of the first write at most. Each sync
//! runs on the blocking pool, one at a time, and takes the clone's sync
//! lock without waiting: while a `memdir sync` by hand runs, the server's
//! tries again a second later. A failed sync (the remote unreachable, a
//! push refused) is tried again after a backoff (1 s doubling to 5 min),
//! writes or not; a merge that stops (`sync_conflict`) stops syncing until
//! a person has merged the remote's commit by hand, which the server looks
//! for once a period. What each outcome makes of the state is
//! `api::servers::replica::Syncing`'s; `GET /v1/sync` answers it.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::Response;
use memdir::api::servers::Opener;
use memdir::api::servers::replica::{self, Next, Syncing};
use memdir::api::types::SyncReport;
use tokio::sync::Notify;
use tokio::time::Instant;

use super::{App, Fail, blocking, json_response};

/// What `--sync` and `--sync-every` asked for.
#[derive(Debug, Clone)]
pub struct SyncConfig {
    /// The remote's name.
    pub remote: String,
    /// The period.
    pub every: Duration,
}

/// The server's syncing: its state, and the writes that wait for a sync.
#[derive(Debug)]
pub struct Syncer {
    opener: Opener,
    /// `None` without `--sync`.
    state: Option<Mutex<Syncing>>,
    remote: Option<String>,
    /// A write was answered since the last sync began.
    written: Notify,
}

impl Syncer {
    /// The syncing of a server opened with `opener` and started with
    /// `cfg` (`None`: it does not sync).
    pub fn new(opener: &Opener, cfg: Option<&SyncConfig>) -> Syncer {
        Syncer {
            opener: opener.clone(),
            state: cfg
                .map(|c| Mutex::new(Syncing::new(&c.remote, c.every, opener.replica.as_deref()))),
            remote: cfg.map(|c| c.remote.clone()),
            written: Notify::new(),
        }
    }

    /// A write was answered: a sync follows soon.
    pub fn written(&self) {
        if self.state.is_some() {
            self.written.notify_one();
        }
    }

    /// Runs `f` on the state (there is one: the loop runs only with it).
    fn with<T>(&self, f: impl FnOnce(&mut Syncing) -> T) -> Option<T> {
        self.state
            .as_ref()
            .map(|m| f(&mut m.lock().unwrap_or_else(PoisonError::into_inner)))
    }
}

/// The server's syncs, until the server stops (the task is dropped with
/// the runtime; a sync under way finishes on the blocking pool).
pub async fn run(s: Arc<Syncer>) {
    let (Some(remote), Some((every, quiet))) =
        (s.remote.clone(), s.with(|st| (st.every(), st.quiet())))
    else {
        return;
    };
    let mut next = Next::After(Duration::ZERO);
    loop {
        match next {
            Next::Person => {
                tokio::time::sleep(every).await;
                if !person_merged(&s).await {
                    continue;
                }
            }
            Next::Again(wait) => tokio::time::sleep(wait).await,
            Next::After(wait) if failing(&s) => tokio::time::sleep(wait).await,
            Next::After(wait) => until_due(&s, wait, every, quiet).await,
        }
        let (opener, r) = (s.opener.clone(), remote.clone());
        let outcome = blocking(move || Ok(replica::sync(&opener, &r))).await;
        let outcome = match outcome {
            Ok(o) => o,
            Err(_) => continue,
        };
        let failures = s.with(|st| st.failures_in_a_row()).unwrap_or(0);
        next = s.with(|st| st.record(&outcome)).unwrap_or(Next::Person);
        log(&remote, &outcome, next, failures);
    }
}

/// Whether the last sync failed (its next is a backoff, which writes do
/// not shorten).
fn failing(s: &Syncer) -> bool {
    s.with(|st| st.failures_in_a_row() > 0).unwrap_or(false)
}

/// Waits until the period `wait` ends, or until writes have been quiet for
/// `quiet` (within `every` of the first of them).
async fn until_due(s: &Syncer, wait: Duration, every: Duration, quiet: Duration) {
    let due = Instant::now() + wait;
    tokio::select! {
        () = tokio::time::sleep_until(due) => return,
        () = s.written.notified() => {}
    }
    let latest = (Instant::now() + every).min(due);
    loop {
        let quiet_at = (Instant::now() + quiet).min(latest);
        tokio::select! {
            () = tokio::time::sleep_until(quiet_at) => return,
            () = s.written.notified() => {}
        }
    }
}

/// Whether a person merged the commit the sync stopped on (then syncing
/// goes on, said in the log).
async fn person_merged(s: &Arc<Syncer>) -> bool {
    let Some(commit) = s.with(|st| st.stopped_on().map(str::to_owned)).flatten() else {
        return true;
    };
    let (opener, c) = (s.opener.clone(), commit.clone());
    match blocking(move || Ok(replica::merged(&opener, &c))).await {
        Ok(Ok(true)) => {
            s.with(Syncing::resume);
            tracing::info!("memdir serve: {commit} was merged by hand: syncing again");
            true
        }
        Ok(Ok(false)) => false,
        Ok(Err(e)) => {
            tracing::warn!("memdir serve: cannot tell whether {commit} was merged: {e}");
            false
        }
        Err(_) => false,
    }
}

/// One line of the log for a sync's outcome: what a sync did when it did
/// anything, each failure with its code and what comes next.
fn log(
    remote: &str,
    outcome: &Result<SyncReport, memdir::api::types::Error>,
    next: Next,
    failures: u64,
) {
    match (outcome, next) {
        (Ok(r), _) => {
            let count = |list: &[memdir::api::types::SyncChanges]| -> usize {
                list.iter().map(|c| c.added.len() + c.removed.len()).sum()
            };
            let (came, went) = (count(&r.incoming), count(&r.outgoing));
            if failures > 0 {
                tracing::info!(
                    "memdir serve: sync with {remote} works again after {failures} failed"
                );
            }
            if r.committed || r.merged || r.retries > 0 || came + went > 0 {
                tracing::info!(
                    "memdir serve: synced with {remote}: committed {}, merged {}, pushed {}; {came} entries came in, {went} went out, {} pushes retried",
                    r.committed,
                    r.merged,
                    r.pushed,
                    r.retries
                );
            } else {
                tracing::debug!("memdir serve: synced with {remote}: nothing new");
            }
        }
        (Err(e), Next::Person) => tracing::error!(
            "memdir serve: sync with {remote} stopped ({}): writes go on here, syncing waits for a person to merge by hand (GET /v1/sync): {e}",
            e.code()
        ),
        (Err(e), Next::Again(_)) => {
            tracing::info!(
                "memdir serve: sync with {remote} put off: another sync of this clone runs ({e})"
            );
        }
        (Err(e), Next::After(wait)) => tracing::warn!(
            "memdir serve: sync with {remote} failed ({}), retrying in {:.1} s: {e}",
            e.code(),
            wait.as_secs_f64()
        ),
    }
}

/// `GET /v1/sync`: how the server's syncing stands, for any key.
pub async fn status(State(app): State<App>, headers: HeaderMap) -> Result<Response, Fail> {
    let (_store, _who) = app.caller(headers, None, None).await?;
    let sync = app.sync.clone();
    let status = blocking(move || {
        let replicas = replica::addresses(&sync.opener);
        Ok(sync
            .with(|st| st.status(replicas.clone()))
            .unwrap_or_else(|| replica::status_off(replicas)))
    })
    .await?;
    Ok(json_response(200, &memdir::api::wire::value(&status)))
}
