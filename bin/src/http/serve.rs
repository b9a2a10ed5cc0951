//! The connections of `memdir serve`, bounded: each accepted connection is
//! served by hyper's HTTP/1.1 connection (no HTTP/2), watched for the time
//! it waits, and counted.
//!
//! A connection is in one of three phases: waiting for a request (since it
//! was accepted, or since its last request ended), reading a request's
//! headers (since the first byte after the wait), or busy (a request in
//! flight, which `--timeout` bounds). A request ends when its answer is
//! written and its body read to its end (or dropped), so the late bytes of
//! a body are never taken for the next request's first.
//!
//! An answer given before its request's body was read to its end (a
//! refusal, a route that takes no body) says `Connection: close`, and the
//! connection closes after it: hyper would close it anyway unless the rest
//! of the body had already arrived, and a client told the connection
//! stays open could send its next request into the close. Waiting longer than the idle time, or
//! reading headers longer than the header time, closes it. hyper's own
//! `header_read_timeout` is not used: it starts when hyper waits for a
//! request, so it would also count the idle time between two requests of a
//! kept-alive connection.
//!
//! At most `max_connections` are open at once: at the limit, the
//! connection that has waited longest without completing its headers (the
//! first phase or the second) is closed so the new one gets in; when every
//! one is busy, no connection is accepted (the listener's queue holds the
//! clients) until one ends or finishes its request.
//!
//! A stop (ctrl-c, SIGTERM) closes the listener, closes every waiting
//! connection and lets the busy ones finish their request; one whose
//! request's headers are arriving reads them (within the header time) and
//! finishes that request too.

use std::collections::HashMap;
use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::Router;
use axum::body::{Body, Bytes, HttpBody};
use hyper::body::Incoming;
use hyper_util::rt::TokioIo;
use hyper_util::service::TowerToHyperService;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Notify, watch};
use tokio::time::Instant;

/// The bounds on connections.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bounds {
    /// Open connections at most.
    pub max_connections: usize,
    /// How long a request's headers may take to arrive, from their first
    /// byte.
    pub header_timeout: Duration,
    /// How long a connection may wait for a request (after it was accepted
    /// or answered) before its first byte.
    pub idle_timeout: Duration,
}

/// Where a connection is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Waiting for a request, no byte of it read.
    Waiting,
    /// Reading a request's headers, the first byte read at this instant.
    Headers(Instant),
    /// This many requests in flight (their answers not yet written).
    Busy(u32),
}

/// What a connection's watch knows of it.
#[derive(Debug)]
struct State {
    phase: Phase,
    /// When it began to wait without a complete request (accepted, or its
    /// last answer written).
    waiting_since: Instant,
}

/// One open connection, shared by its task, its reader and its requests.
#[derive(Debug)]
struct Conn {
    state: Mutex<State>,
    /// Its phase changed: the watch computes its deadline again.
    changed: Notify,
    /// Closed by the accept loop to make room.
    evict: Notify,
}

impl Conn {
    fn new() -> Conn {
        Conn {
            state: Mutex::new(State {
                phase: Phase::Waiting,
                waiting_since: Instant::now(),
            }),
            changed: Notify::new(),
            evict: Notify::new(),
        }
    }

    fn state(&self) -> MutexGuard<'_, State> {
        // A panic while holding this lock leaves plain data behind.
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Bytes of a request arrived.
    fn read_some(&self) {
        let mut s = self.state();
        if s.phase == Phase::Waiting {
            s.phase = Phase::Headers(Instant::now());
            drop(s);
            self.changed.notify_one();
        }
    }

    /// A request's headers are complete: it is in flight.
    fn begin(&self) {
        let mut s = self.state();
        s.phase = match s.phase {
            Phase::Busy(n) => Phase::Busy(n.saturating_add(1)),
            _ => Phase::Busy(1),
        };
        drop(s);
        self.changed.notify_one();
    }

    /// A request's answer is written (or dropped).
    fn end(&self) {
        let mut s = self.state();
        s.phase = match s.phase {
            Phase::Busy(n) if n > 1 => Phase::Busy(n - 1),
            _ => {
                s.waiting_since = Instant::now();
                Phase::Waiting
            }
        };
        drop(s);
        self.changed.notify_one();
    }

    /// When it must be closed, if it stays as it is; `None` while busy.
    fn deadline(&self, b: &Bounds) -> Option<(Instant, &'static str)> {
        let s = self.state();
        match s.phase {
            Phase::Waiting => Some((s.waiting_since + b.idle_timeout, "idle")),
            Phase::Headers(t) => Some((t + b.header_timeout, "headers not complete")),
            Phase::Busy(_) => None,
        }
    }

    /// Whether a request's headers are arriving.
    fn reading_headers(&self) -> bool {
        matches!(self.state().phase, Phase::Headers(_))
    }

    /// Since when it has waited without a complete request; `None` while busy.
    fn waiting(&self) -> Option<Instant> {
        let s = self.state();
        (!matches!(s.phase, Phase::Busy(_))).then_some(s.waiting_since)
    }
}

/// The open connections.
#[derive(Debug, Default)]
struct Table {
    conns: Mutex<HashMap<u64, Arc<Conn>>>,
    /// A connection ended or finished a request: room may have been made.
    changed: Notify,
    next: AtomicU64,
}

impl Table {
    fn conns(&self) -> MutexGuard<'_, HashMap<u64, Arc<Conn>>> {
        self.conns.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Whether a new connection can be taken: under the limit, or one to
    /// close for it.
    fn has_room(&self, max: usize) -> bool {
        let conns = self.conns();
        conns.len() < max || conns.values().any(|c| c.waiting().is_some())
    }

    /// Makes room for one more at `max`: closes the connection that has
    /// waited longest without completing its headers.
    fn make_room(&self, max: usize) {
        let mut conns = self.conns();
        while conns.len() >= max {
            let oldest = conns
                .iter()
                .filter_map(|(id, c)| c.waiting().map(|t| (t, *id)))
                .min();
            let Some((_, id)) = oldest else { return };
            if let Some(c) = conns.remove(&id) {
                tracing::debug!(
                    "memdir serve: at the connection limit ({max}): closed the one waiting longest"
                );
                c.evict.notify_one();
            }
        }
    }

    fn add(&self) -> (u64, Arc<Conn>) {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        let c = Arc::new(Conn::new());
        self.conns().insert(id, c.clone());
        (id, c)
    }

    fn remove(&self, id: u64) {
        self.conns().remove(&id);
        self.changed.notify_one();
    }

    fn is_empty(&self) -> bool {
        self.conns().is_empty()
    }
}

/// A connection's socket, noting when a request's first bytes arrive.
struct Watched {
    io: TcpStream,
    conn: Arc<Conn>,
}

impl AsyncRead for Watched {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let me = self.get_mut();
        let before = buf.filled().len();
        let r = Pin::new(&mut me.io).poll_read(cx, buf);
        if matches!(r, Poll::Ready(Ok(()))) && buf.filled().len() > before {
            me.conn.read_some();
        }
        r
    }
}

impl AsyncWrite for Watched {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.get_mut().io).poll_write(cx, buf)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.get_mut().io).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.get_mut().io).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.get_mut().io).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }
}

/// A request in flight, shared by its answer's body and its own: ends when
/// the answer is written (or dropped) and its body read to its end (or
/// dropped), so a byte that arrives after that is the next request's.
struct InFlight(Arc<Conn>);

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.end();
    }
}

/// An answer's body that keeps its request in flight until it is dropped.
struct Tracked {
    body: Body,
    _request: Arc<InFlight>,
}

/// A request's body as the router reads it: it keeps its request in
/// flight until read to its end or dropped, and notes whether it was
/// dropped before its end (an answer that did not need all of it: a
/// refusal, a route that takes no body).
///
/// hyper reads on after such an answer only if the rest of the body has
/// already arrived; else it closes the connection once the answer is
/// written, an answer that did not say so (`Connection: close` absent), so
/// a client that sends its next request on it at once finds it closed.
/// The answer to a request whose body was left unread says
/// `Connection: close` instead ([`close_if_unread`]).
struct Read {
    body: Incoming,
    /// Until the body's end.
    request: Option<Arc<InFlight>>,
    /// Set when dropped before its end.
    unread: Arc<AtomicBool>,
}

impl HttpBody for Read {
    type Data = Bytes;
    type Error = hyper::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Bytes>, hyper::Error>>> {
        let me = self.get_mut();
        let r = Pin::new(&mut me.body).poll_frame(cx);
        if matches!(r, Poll::Ready(None)) {
            me.request = None;
        }
        r
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.body.size_hint()
    }
}

impl Drop for Read {
    fn drop(&mut self) {
        if self.request.is_some() && !self.body.is_end_stream() {
            self.unread.store(true, Ordering::Release);
        }
    }
}

/// Marks `resp` `Connection: close` when its request's body was dropped
/// before its end: hyper then closes the connection after the answer, and
/// the client, told so, sends its next request on another.
fn close_if_unread<B>(resp: &mut hyper::Response<B>, unread: &AtomicBool) {
    if unread.load(Ordering::Acquire) {
        resp.headers_mut().insert(
            hyper::header::CONNECTION,
            hyper::header::HeaderValue::from_static("close"),
        );
    }
}

impl HttpBody for Tracked {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Bytes>, axum::Error>>> {
        Pin::new(&mut self.get_mut().body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.body.size_hint()
    }
}

/// Serves `router` on `listener` within `bounds` until `stop` ends, then
/// lets the requests in flight finish.
pub async fn serve(
    listener: TcpListener,
    router: Router,
    bounds: Bounds,
    stop: impl Future<Output = ()>,
) {
    let table = Arc::new(Table::default());
    let (stopping, stopped) = watch::channel(false);
    let mut stop = std::pin::pin!(stop);
    'accept: loop {
        // Wait for room: under the limit, or a connection to close for it.
        loop {
            let changed = table.changed.notified();
            if table.has_room(bounds.max_connections) {
                break;
            }
            tokio::select! {
                () = changed => {}
                () = &mut stop => break 'accept,
            }
        }
        let stream = tokio::select! {
            r = listener.accept() => r,
            () = &mut stop => break 'accept,
        };
        let (stream, peer) = match stream {
            Ok(s) => s,
            Err(e) => {
                // Out of descriptors, or the peer gone before the accept:
                // make room, then take the next one a little later.
                tracing::warn!("memdir serve: cannot accept a connection: {e}");
                table.make_room(bounds.max_connections.saturating_sub(1).max(1));
                tokio::time::sleep(Duration::from_millis(10)).await;
                continue;
            }
        };
        table.make_room(bounds.max_connections);
        let (id, conn) = table.add();
        let table = table.clone();
        let router = router.clone();
        let stopped = stopped.clone();
        tokio::spawn(async move {
            connection(stream, peer, router, conn, bounds, stopped).await;
            table.remove(id);
        });
    }
    drop(listener);
    let _ = stopping.send(true);
    loop {
        let changed = table.changed.notified();
        if table.is_empty() {
            break;
        }
        changed.await;
    }
}

/// Serves one connection until it ends, is closed for its time or to make
/// room, or the server stops (then its request in flight finishes). Each
/// request carries the client's address (`ConnectInfo`: the dashboard
/// limits login attempts by it).
async fn connection(
    stream: TcpStream,
    peer: std::net::SocketAddr,
    router: Router,
    conn: Arc<Conn>,
    bounds: Bounds,
    mut stopped: watch::Receiver<bool>,
) {
    let svc = TowerToHyperService::new(router);
    let on_request = conn.clone();
    let service = hyper::service::service_fn(move |req: hyper::Request<Incoming>| {
        on_request.begin();
        let request = Arc::new(InFlight(on_request.clone()));
        let unread = Arc::new(AtomicBool::new(false));
        let mut req = req.map(|body| {
            Body::new(Read {
                body,
                request: Some(request.clone()),
                unread: unread.clone(),
            })
        });
        req.extensions_mut()
            .insert(axum::extract::ConnectInfo(peer));
        let answer = hyper::service::Service::call(&svc, req);
        async move {
            let mut resp = answer.await?;
            close_if_unread(&mut resp, &unread);
            Ok::<_, Infallible>(resp.map(|body| {
                Body::new(Tracked {
                    body,
                    _request: request,
                })
            }))
        }
    });
    let io = TokioIo::new(Watched {
        io: stream,
        conn: conn.clone(),
    });
    let mut http = hyper::server::conn::http1::Builder::new();
    http.keep_alive(true).header_read_timeout(None);
    let served = http.serve_connection(io, service);
    let mut served = std::pin::pin!(served);
    let mut stopping = *stopped.borrow();
    let mut shut = false;
    loop {
        // At a stop a connection whose request's headers are arriving
        // reads them first (the header time bounds it): that request is in
        // flight, and finishes.
        if stopping && !shut && !conn.reading_headers() {
            served.as_mut().graceful_shutdown();
            shut = true;
        }
        let changed = conn.changed.notified();
        let deadline = conn.deadline(&bounds);
        let until = deadline.map(|(t, _)| t);
        tokio::select! {
            // The connection first: bytes that arrived before a stop or a
            // deadline are read (a request begun) before either is seen.
            biased;
            r = served.as_mut() => {
                if let Err(e) = r {
                    tracing::debug!("memdir serve: a connection failed: {e}");
                }
                return;
            }
            () = conn.evict.notified() => return,
            () = changed => {}
            () = sleep_until(until) => {
                if let Some((_, why)) = conn.deadline(&bounds).filter(|(t, _)| *t <= Instant::now()) {
                    tracing::debug!("memdir serve: closed a connection ({why})");
                    return;
                }
            }
            _ = stopped.changed(), if !stopping => stopping = true,
        }
    }
}

/// Sleeps until `t`; forever without one.
async fn sleep_until(t: Option<Instant>) {
    match t {
        Some(t) => tokio::time::sleep_until(t).await,
        None => std::future::pending().await,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bounds() -> Bounds {
        Bounds {
            max_connections: 2,
            header_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(60),
        }
    }

    #[test]
    fn a_connection_is_timed_by_its_phase() {
        let b = bounds();
        let c = Conn::new();
        let (t, why) = c.deadline(&b).unwrap();
        assert_eq!(why, "idle");
        assert_eq!(t, c.state().waiting_since + b.idle_timeout);
        c.read_some();
        let (t, why) = c.deadline(&b).unwrap();
        assert_eq!(why, "headers not complete");
        assert!(t < c.state().waiting_since + b.idle_timeout);
        // More bytes of the same headers do not move the deadline.
        c.read_some();
        assert_eq!(c.deadline(&b).unwrap().0, t);
        c.begin();
        assert_eq!(c.deadline(&b), None);
        assert_eq!(c.waiting(), None);
        c.end();
        assert_eq!(c.deadline(&b).unwrap().1, "idle");
        assert!(c.waiting().is_some());
    }

    #[test]
    fn room_is_made_by_closing_the_longest_waiting_never_a_busy_one() {
        let t = Table::default();
        let (a, ca) = t.add();
        let (_, cb) = t.add();
        ca.begin();
        assert!(t.has_room(2), "b waits: it can be closed");
        cb.begin();
        assert!(!t.has_room(2), "both busy: no room");
        t.make_room(2);
        assert_eq!(t.conns().len(), 2);
        cb.end();
        t.make_room(2);
        let left: Vec<u64> = t.conns().keys().copied().collect();
        assert_eq!(
            left,
            vec![a],
            "the waiting one was closed, not the busy one"
        );
        // Of two waiting, the one waiting longer goes first.
        ca.end();
        let (c, _) = t.add();
        t.make_room(2);
        let left: Vec<u64> = t.conns().keys().copied().collect();
        assert_eq!(left, vec![c]);
    }
}
