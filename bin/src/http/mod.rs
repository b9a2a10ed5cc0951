//! `memdir serve`: the HTTP API (axum on tokio) over the interface layer.
//! The One API of the first seed under `/v1/` (recall, remember, forget,
//! SharedMemory results, the snapshot, learned skills) and the facts of the second seed
//! under `/api/v1/memories`, every answer JSON (or YAML, markdown or text
//! where the One API takes `format`), every failure `{"error":{"code",
//! "status","message",…}}` with the registry's status, the framework's
//! 404/405/413 included.
//!
//! Every call names its key (`Authorization: Bearer mdk_…`), checked
//! against the keys file as it is now; the server keeps one store between
//! calls and opens it again for each (`Kept`: what it remembers is used only
//! while the files' settled stats or bytes still back it, so no answer is
//! stale), with recall counts written behind and concurrent writes of one
//! owner committed in groups; file work runs on the blocking pool, so no
//! owner's lock is held across an await.

mod answer;
mod decide;
mod facts;
mod learnings;
pub mod limits;
mod one_api;
mod pending;
mod remote;
mod replica;
mod reviews;
mod routes;
mod runs;
mod serve;
mod skills;
mod uploads;

pub use uploads::Uploads;

pub use replica::SyncConfig;
pub use serve::Bounds;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::Request;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use memdir::api::Who;
use memdir::api::errors::{ErrorBody, Surface, Transport, envelope};
use memdir::api::servers::{Kept, Opener};
use memdir::api::types::{Caller, Deadline, Error, ErrorCode, Store};
use serde_json::Value;

/// The largest body of every route but a result's `PUT`.
pub const SMALL_BODY: usize = 64 * 1024;
/// Blocking threads at most (file work of calls in flight).
const BLOCKING_THREADS: usize = 256;

/// What the server was started with.
#[derive(Debug, Clone)]
pub struct Config {
    /// How to open the store for each call.
    pub opener: Opener,
    /// The address to listen on.
    pub listen: SocketAddr,
    /// The keys file.
    pub keys: PathBuf,
    /// How long one request may take.
    pub timeout: Duration,
    /// How often to run the reviews that are due (the routine), if at all.
    pub review_every: Option<Duration>,
    /// The bounds on connections: how many, how long idle, how long to send
    /// headers.
    pub bounds: Bounds,
    /// The bytes of uploads in flight, server-wide, and their cap.
    pub uploads: Uploads,
    /// Another `Host` the dashboard answers to (`--public-host`).
    pub public_host: Option<String>,
    /// The server sits behind TLS (`--behind-tls`).
    pub behind_tls: bool,
    /// How long a dashboard session lives without a request (`--ui-idle`).
    pub ui_idle: Duration,
    /// The remote to sync with and how often (`--sync`, `--sync-every`).
    pub sync: Option<SyncConfig>,
}

/// How a call failed: an operation's error, or the transport's.
#[derive(Debug)]
pub enum Fail {
    /// memdir refused or failed.
    Memdir(Error),
    /// The request itself is wrong (key, body, route).
    Transport(Transport),
}

impl From<Error> for Fail {
    fn from(e: Error) -> Fail {
        Fail::Memdir(e)
    }
}

impl From<Transport> for Fail {
    fn from(t: Transport) -> Fail {
        Fail::Transport(t)
    }
}

impl Fail {
    fn body(&self) -> ErrorBody {
        match self {
            Fail::Memdir(e) => ErrorBody::of(e, Surface::Http),
            Fail::Transport(t) => t.body(),
        }
    }
}

/// A JSON answer with a status.
fn json_response(status: u16, v: &Value) -> Response {
    // Written straight into bytes (`Display` goes through the formatter a
    // piece at a time); a value always serializes.
    let mut bytes = serde_json::to_vec(v).unwrap_or_default();
    bytes.push(b'\n');
    let mut r = Response::new(Body::from(bytes));
    *r.status_mut() = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    r
}

impl IntoResponse for Fail {
    fn into_response(self) -> Response {
        let b = self.body();
        let mut r = json_response(b.status, &envelope(&b));
        if let Fail::Transport(Transport::Busy {
            retry_after_secs, ..
        }) = self
        {
            r.headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(retry_after_secs));
        }
        r
    }
}

/// The shared state of the handlers: the configuration, each owner's
/// share of the blocking pool, the background reviews and the dashboard.
#[derive(Debug, Clone)]
pub struct App {
    cfg: Arc<Config>,
    /// The store kept between calls (checked against the files each call).
    kept: Arc<Kept>,
    limits: Arc<limits::Limits>,
    jobs: Arc<reviews::Jobs>,
    ui: Arc<crate::ui::Ui>,
    sync: Arc<replica::Syncer>,
}

impl App {
    /// The state of a server started with `cfg`, listening on `listen`.
    pub fn new(cfg: Config, listen: SocketAddr) -> App {
        let ui = crate::ui::Ui::new(crate::ui::Settings {
            opener: cfg.opener.clone(),
            keys: cfg.keys.clone(),
            listen,
            public_host: cfg.public_host.clone(),
            behind_tls: cfg.behind_tls,
            idle: cfg.ui_idle,
        });
        let sync = Arc::new(replica::Syncer::new(&cfg.opener, cfg.sync.as_ref()));
        App {
            kept: Arc::new(Kept::new(cfg.opener.clone())),
            cfg: Arc::new(cfg),
            limits: Arc::default(),
            jobs: Arc::default(),
            ui,
            sync,
        }
    }
}

/// The dashboard's handlers take its state from the server's.
impl axum::extract::FromRef<App> for Arc<crate::ui::Ui> {
    fn from_ref(app: &App) -> Arc<crate::ui::Ui> {
        app.ui.clone()
    }
}

tokio::task_local! {
    /// The deadline of the request this task serves ([`bounded`] sets it).
    static DEADLINE: Deadline;
}

/// Runs `f` on the blocking pool; a lost worker is `internal_error`.
async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, Fail> + Send + 'static,
) -> Result<T, Fail> {
    tokio::task::spawn_blocking(f).await.map_err(|e| {
        Fail::Transport(Transport::Internal {
            message: format!("worker failed: {e}"),
        })
    })?
}

/// A call after its key was checked: done (it had a turn at once), or
/// waiting for a turn of its owner.
enum Step<T, F> {
    Done(Result<T, Fail>),
    Wait(Box<(Store, Who, limits::Share, F)>),
}

/// The caller a request's key names, checked against the keys file now.
/// A keys file that is refused (opened to others, a symlink, in a folder
/// others can write) or cannot be read grants nothing: the caller gets the
/// `401` of any wrong key, never the file's path or mode, and the reason
/// goes to the server's log.
fn authenticate(store: &Store, cfg: &Config, headers: &HeaderMap) -> Result<Caller, Fail> {
    let key = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .map(str::trim)
        .ok_or(Transport::Unauthorized)?;
    match memdir::api::keys::verify(store, &cfg.keys, key) {
        Ok(Some(rec)) => Ok(rec.caller()),
        Ok(None) => Err(Transport::Unauthorized.into()),
        Err(e) => {
            tracing::warn!("memdir serve: no key is accepted while the keys file is refused: {e}");
            Err(Transport::Unauthorized.into())
        }
    }
}

impl App {
    /// Runs `f` for the caller of `headers` (with the agent it names) on a
    /// store opened for this call, on the blocking pool.
    async fn call<T: Send + 'static>(
        &self,
        headers: HeaderMap,
        agent: Option<String>,
        f: impl FnOnce(&Store, &Who) -> Result<T, Fail> + Send + 'static,
    ) -> Result<T, Fail> {
        self.call_as(headers, agent, None, f).await
    }

    /// [`App::call`] with the query's `raw`: a person's key asking for the
    /// text as the files hold it (an agent's key asking is refused).
    ///
    /// The key is checked first, on the blocking pool; the call then takes
    /// a turn of the owner it resolves to ([`limits`]: `busy` past the
    /// owner's share). With a turn free it runs at once on the same thread
    /// (one hand-off to the pool a call); otherwise it waits for one
    /// without holding a thread and runs on the pool again. It runs on a
    /// store that carries the request's deadline: its write is abandoned if
    /// the deadline passes before it begins (`408 request_timeout`), and
    /// finishes otherwise.
    async fn call_as<T: Send + 'static>(
        &self,
        headers: HeaderMap,
        agent: Option<String>,
        raw: Option<bool>,
        f: impl FnOnce(&Store, &Who) -> Result<T, Fail> + Send + 'static,
    ) -> Result<T, Fail> {
        let deadline = DEADLINE.try_with(Deadline::clone).ok();
        let (cfg, kept, limits) = (self.cfg.clone(), self.kept.clone(), self.limits.clone());
        let first = blocking(move || {
            let store = kept.open()?;
            let who = Who {
                caller: authenticate(&store, &cfg, &headers)?,
                named: agent.filter(|a| !a.is_empty()),
                raw: raw.unwrap_or(false),
            };
            let mut share = limits.enter(limits::owner_of(&who.caller, who.named.as_deref()))?;
            let store = match deadline {
                Some(deadline) => store.with_deadline(deadline),
                None => store,
            };
            if share.try_turn() {
                // The turn ends with the work, even if no one waits for it.
                let _share = share;
                return Ok(Step::Done(f(&store, &who)));
            }
            Ok(Step::Wait(Box::new((store, who, share, f))))
        })
        .await?;
        let done = match first {
            Step::Done(done) => done,
            Step::Wait(waiting) => {
                let (store, who, share, f) = *waiting;
                let share = share.turn().await;
                blocking(move || {
                    let _share = share;
                    f(&store, &who)
                })
                .await
            }
        };
        let secs = self.cfg.timeout.as_secs();
        done.map_err(|e| match e {
            // The deadline cut the write: the answer the time bound gives.
            Fail::Memdir(e) if e.code() == ErrorCode::RequestTimeout => {
                Fail::Transport(Transport::Timeout { secs })
            }
            e => e,
        })
    }

    /// The store opened for this call and who asks: the caller of
    /// `headers`' key (checked now) with the agent it names.
    async fn caller(
        &self,
        headers: HeaderMap,
        agent: Option<String>,
        raw: Option<bool>,
    ) -> Result<(Store, Who), Fail> {
        let cfg = self.cfg.clone();
        let kept = self.kept.clone();
        blocking(move || {
            let store = kept.open()?;
            let caller = authenticate(&store, &cfg, &headers)?;
            let who = Who {
                caller,
                named: agent.filter(|a| !a.is_empty()),
                raw: raw.unwrap_or(false),
            };
            Ok((store, who))
        })
        .await
    }
}

/// Every request through [`bounded`], then one line of the request log:
/// method, path (never the query string, which may carry a key), status
/// and the server's time in milliseconds.
async fn guard(
    axum::extract::State(app): axum::extract::State<App>,
    req: Request,
    next: Next,
) -> Response {
    let start = std::time::Instant::now();
    let method = req.method().to_string();
    let path = req.uri().path().to_owned();
    let sync = app.sync.clone();
    let resp = bounded(app, req, next, &method, &path).await;
    // A write answered: the server's sync follows soon (`--sync`).
    if !matches!(method.as_str(), "GET" | "HEAD" | "OPTIONS") && resp.status().as_u16() < 400 {
        sync.written();
    }
    tracing::info!(
        target: "memdir::request",
        "{method} {path} {} {:.1} ms",
        resp.status().as_u16(),
        start.elapsed().as_secs_f64() * 1000.0
    );
    resp
}

/// Turns any answer of the framework that is an error but not JSON (its
/// 404, 405, 413, 400, 415) into the one error shape; and bounds the time
/// of every request.
///
/// The time bound is the request's [`Deadline`], which its calls' writes
/// check too: at the deadline a request none of whose writes began is
/// abandoned (`408 request_timeout`; no write of it begins after), while a
/// request whose write passed its check finishes and answers its real
/// status (docs/API.md).
async fn bounded(app: App, req: Request, next: Next, method: &str, path: &str) -> Response {
    let timeout = app.cfg.timeout;
    let deadline = Deadline::at(std::time::Instant::now() + timeout);
    let mut run = std::pin::pin!(DEADLINE.scope(deadline.clone(), next.run(req)));
    let at = tokio::time::Instant::from_std(deadline.instant());
    let resp = match tokio::time::timeout_at(at, &mut run).await {
        Ok(r) => r,
        Err(_) if deadline.abandon() => {
            return Fail::Transport(Transport::Timeout {
                secs: timeout.as_secs(),
            })
            .into_response();
        }
        // A write under way: it finishes, and answers what it did.
        Err(_) => run.await,
    };
    let status = resp.status();
    // The dashboard's pages answer their errors as pages.
    let is_json_or_page = resp.headers().get(header::CONTENT_TYPE).is_some_and(|v| {
        v.as_bytes().starts_with(b"application/json") || v.as_bytes().starts_with(b"text/html")
    });
    if !(status.is_client_error() || status.is_server_error()) || is_json_or_page {
        return resp;
    }
    let t = match status.as_u16() {
        404 => Transport::RouteNotFound {
            path: path.to_owned(),
        },
        405 => Transport::MethodNotAllowed {
            method: method.to_owned(),
            path: path.to_owned(),
        },
        413 => Transport::BodyTooLarge {
            limit: SMALL_BODY as u64,
        },
        s if s < 500 => {
            let bytes = axum::body::to_bytes(resp.into_body(), 4096)
                .await
                .unwrap_or_default();
            Transport::InvalidRequest {
                message: String::from_utf8_lossy(&bytes).into_owned(),
            }
        }
        _ => Transport::Internal {
            message: format!("status {status}"),
        },
    };
    Fail::Transport(t).into_response()
}

/// The router with every route, the body limits, the time bound and the
/// error shape.
pub fn router(app: App) -> Router {
    routes::routes()
        .fallback(|req: Request| async move {
            Fail::Transport(Transport::RouteNotFound {
                path: req.uri().path().to_owned(),
            })
        })
        .layer(axum::extract::DefaultBodyLimit::max(SMALL_BODY))
        .layer(axum::middleware::from_fn_with_state(
            app.ui.clone(),
            crate::ui::guard::layer,
        ))
        .layer(axum::middleware::from_fn_with_state(app.clone(), guard))
        .with_state(app)
}

/// Ctrl-c or SIGTERM, registered when this is called (before the server
/// says it listens, so a signal sent as soon as that line is read stops it
/// gracefully rather than killing it): the future ends at the first one.
fn stop_signal() -> impl std::future::Future<Output = ()> {
    #[cfg(unix)]
    let (int, term) = {
        use tokio::signal::unix::{SignalKind, signal};
        (
            signal(SignalKind::interrupt()).ok(),
            signal(SignalKind::terminate()).ok(),
        )
    };
    async move {
        #[cfg(unix)]
        {
            let wait = |s: Option<tokio::signal::unix::Signal>| async move {
                match s {
                    Some(mut s) => {
                        s.recv().await;
                    }
                    None => std::future::pending::<()>().await,
                }
            };
            tokio::select! {
                () = wait(int) => {},
                () = wait(term) => {},
            }
        }
        #[cfg(not(unix))]
        let _ = tokio::signal::ctrl_c().await;
        tracing::info!("memdir serve: stopping; finishing the requests in flight");
    }
}

/// The review routine of every owner, one pass at start and one every
/// `every` after the previous pass ended: each pass on the blocking pool,
/// so no request waits for it; what each review did, or why it failed, on
/// standard error. A stop lets a review under way finish (its writes are
/// durable either way).
async fn reviews(opener: memdir::api::servers::Opener, every: Duration) {
    let mut tick = tokio::time::interval(every);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        let o = opener.clone();
        let pass = tokio::task::spawn_blocking(move || memdir::api::servers::review_due_owners(&o));
        match pass.await {
            Ok(Ok(owners)) => {
                let (all, mut reviewed) = (owners.len(), 0);
                for (owner, done) in owners {
                    match done {
                        Ok(d) => {
                            if let Some(r) = d.ran {
                                reviewed += 1;
                                tracing::info!(
                                    "memdir serve: reviewed {owner}: {} ({} changes)",
                                    r.review_id,
                                    r.plan.changes.len()
                                );
                            }
                        }
                        Err(e) => tracing::warn!("memdir serve: the review of {owner} failed: {e}"),
                    }
                }
                tracing::info!("memdir serve: review pass: {all} owners, {reviewed} reviewed");
            }
            Ok(Err(e)) => tracing::warn!("memdir serve: cannot list the owners to review: {e}"),
            Err(e) => tracing::warn!("memdir serve: the review pass failed: {e}"),
        }
    }
}

/// Writes the recall figures kept behind every [`STATS_BEHIND_EVERY`], on
/// the blocking pool (a recall also writes them when they are due).
async fn stats_behind(kept: Arc<Kept>) {
    let mut tick = tokio::time::interval(STATS_BEHIND_EVERY);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        let k = kept.clone();
        if let Ok(Err(e)) = tokio::task::spawn_blocking(move || k.write_behind()).await {
            tracing::warn!("memdir serve: recall counts not written yet: {e}");
        }
    }
}

/// How often the recall figures kept behind are written.
const STATS_BEHIND_EVERY: Duration = Duration::from_secs(1);

/// Descriptors kept for what is not a connection: the listener, the
/// standard streams, the files of the calls in flight.
const SPARE_DESCRIPTORS: u64 = 64;

/// Raises the soft limit on open descriptors to the hard one, and gives
/// `max` capped at that limit less [`SPARE_DESCRIPTORS`] (at least one),
/// each saying so in the log.
fn connections_within_descriptors(max: usize) -> usize {
    use rustix::process::{Resource, Rlimit, getrlimit, setrlimit};
    let limit = getrlimit(Resource::Nofile);
    let mut soft = limit.current;
    if limit.current != limit.maximum {
        match setrlimit(
            Resource::Nofile,
            Rlimit {
                current: limit.maximum,
                ..limit
            },
        ) {
            Ok(()) => {
                soft = limit.maximum;
                let shown = |l: Option<u64>| l.map_or("unlimited".to_owned(), |n| n.to_string());
                tracing::info!(
                    "memdir serve: descriptor limit raised from {} to {}",
                    shown(limit.current),
                    shown(limit.maximum)
                );
            }
            Err(e) => tracing::info!(
                "memdir serve: descriptor limit kept at {:?} (cannot raise it: {e})",
                limit.current
            ),
        }
    }
    let Some(soft) = soft else { return max };
    let room = usize::try_from(soft.saturating_sub(SPARE_DESCRIPTORS).max(1)).unwrap_or(usize::MAX);
    if max > room {
        tracing::info!(
            "memdir serve: --max-connections {max} is over the descriptor limit {soft} less {SPARE_DESCRIPTORS}: at most {room} connections"
        );
        return room;
    }
    max
}

/// Serves until ctrl-c or SIGTERM, then finishes the requests in flight.
pub fn run(cfg: Config) -> Result<(), String> {
    let store = cfg.opener.open().map_err(|e| e.to_string())?;
    let live = memdir::api::keys::check(&store, &cfg.keys).map_err(|e| e.to_string())?;
    if live == 0 && !cfg.listen.ip().is_loopback() {
        return Err(format!(
            "refusing to listen on {} without any key: make one with `memdir key create`, and put TLS (a reverse proxy) in front of anything beyond loopback",
            cfg.listen
        ));
    }
    if live == 0 {
        tracing::info!(
            "memdir serve: no keys in {}: every call but /healthz answers 401 (make one with `memdir key create`)",
            cfg.keys.display()
        );
    }
    let mut cfg = cfg;
    cfg.bounds.max_connections = connections_within_descriptors(cfg.bounds.max_connections);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .max_blocking_threads(BLOCKING_THREADS)
        .build()
        .map_err(|e| format!("cannot start the runtime: {e}"))?;
    rt.block_on(async move {
        let listener = tokio::net::TcpListener::bind(cfg.listen)
            .await
            .map_err(|e| format!("cannot listen on {}: {e}", cfg.listen))?;
        let addr = listener
            .local_addr()
            .map_err(|e| format!("no local address: {e}"))?;
        let stop = stop_signal();
        match cfg.review_every {
            Some(every) => tracing::info!(
                "memdir serve: due reviews every {} s, the first pass now",
                every.as_secs()
            ),
            None => tracing::info!("memdir serve: due reviews off (--review-every 0)"),
        }
        tracing::info!(
            "memdir serve: listening on http://{addr} (root {})",
            cfg.opener.root.display()
        );
        tracing::info!("memdir serve: the dashboard for persons at http://{addr}/ui/");
        match &cfg.sync {
            Some(c) => tracing::info!(
                "memdir serve: syncing with {} every {} s{}",
                c.remote,
                c.every.as_secs(),
                cfg.opener
                    .replica
                    .as_ref()
                    .map_or(String::new(), |r| format!(" as replica {r}"))
            ),
            None => tracing::info!("memdir serve: sync off (no --sync)"),
        }
        if let Some(every) = cfg.review_every {
            tokio::spawn(reviews(cfg.opener.clone(), every));
        }
        let bounds = cfg.bounds;
        let app = App::new(cfg, addr);
        let kept = app.kept.clone();
        let writer = tokio::spawn(stats_behind(kept.clone()));
        tokio::spawn(replica::run(app.sync.clone()));
        serve::serve(listener, router(app), bounds, stop).await;
        writer.abort();
        let (writes, groups) = kept.group_counts();
        tracing::info!("memdir serve: {writes} writes answered in {groups} groups");
        let last = tokio::task::spawn_blocking(move || kept.write_behind()).await;
        if let Ok(Err(e)) = last {
            tracing::warn!("memdir serve: the last recall counts were not written: {e}");
        }
        tracing::info!("memdir serve: stopped");
        Ok(())
    })
}
