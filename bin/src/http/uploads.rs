//! Uploads (a result's `PUT`) streamed, never held whole: the body is fed
//! frame by frame through a channel of a few chunks to the blocking put,
//! which reads it as an [`std::io::Read`] into a spool on disk; and the
//! bytes of uploads in flight, server-wide, capped: a `PUT` whose declared
//! length (or, for a chunked body, whose bytes so far) would take the total
//! past the cap is answered `503 busy` with `Retry-After`. The reservation
//! is a guard: it is given back when the request ends however it ends (an
//! answer, an error, a dropped connection, the time bound).

use std::io::{self, Read};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use axum::body::{Body, Bytes, HttpBody};
use memdir::api::errors::Transport;
use tokio::sync::mpsc;

use super::Fail;

/// Chunks of one upload between the connection and the put, at most.
const CHUNKS_IN_FLIGHT: usize = 4;

/// The bytes of uploads in flight, server-wide, and their cap. Clones
/// share the count.
#[derive(Debug, Clone)]
pub struct Uploads {
    cap: u64,
    used: Arc<AtomicU64>,
}

impl Uploads {
    /// No upload in flight yet, at most `cap` bytes of them at once.
    pub fn new(cap: u64) -> Uploads {
        Uploads {
            cap,
            used: Arc::default(),
        }
    }

    /// Reserves `bytes` of the cap for one upload: `busy` when they would
    /// take the total past it.
    pub(super) fn reserve(&self, bytes: u64) -> Result<Reservation, Transport> {
        let mut r = Reservation {
            uploads: self.clone(),
            held: 0,
        };
        r.grow(bytes)?;
        Ok(r)
    }
}

/// One upload's share of the cap, given back when dropped.
#[derive(Debug)]
pub(super) struct Reservation {
    uploads: Uploads,
    held: u64,
}

impl Reservation {
    /// Takes `bytes` more of the cap: `busy` (and nothing more taken) when
    /// they would take the total past it.
    pub(super) fn grow(&mut self, bytes: u64) -> Result<(), Transport> {
        let cap = self.uploads.cap;
        self.uploads
            .used
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |used| {
                used.checked_add(bytes).filter(|t| *t <= cap)
            })
            .map_err(|used| Transport::Busy {
                what: format!(
                    "{used} bytes of uploads in flight, {bytes} more would pass the {cap}-byte cap"
                ),
                retry_after_secs: super::limits::RETRY_AFTER_SECS,
            })?;
        self.held += bytes;
        Ok(())
    }
}

impl Drop for Reservation {
    fn drop(&mut self) {
        self.uploads.used.fetch_sub(self.held, Ordering::SeqCst);
    }
}

/// A piece of the body on its way to the put.
#[derive(Debug)]
pub(super) enum Piece {
    /// Bytes of the body.
    Data(Bytes),
    /// The body's end.
    End,
    /// The body failed (or the upload was refused midway).
    Failed(String),
}

/// A channel for one upload's body: at most a few chunks in it.
pub(super) fn channel() -> (mpsc::Sender<Piece>, BodyReader) {
    let (tx, rx) = mpsc::channel(CHUNKS_IN_FLIGHT);
    (
        tx,
        BodyReader {
            rx,
            cur: Bytes::new(),
            ended: false,
        },
    )
}

/// The body as the blocking put reads it. A channel closed before the
/// body's end (the request dropped) is an error, never a short content.
#[derive(Debug)]
pub(super) struct BodyReader {
    rx: mpsc::Receiver<Piece>,
    cur: Bytes,
    ended: bool,
}

impl Read for BodyReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        while self.cur.is_empty() {
            if self.ended {
                return Ok(0);
            }
            match self.rx.blocking_recv() {
                Some(Piece::Data(b)) => self.cur = b,
                Some(Piece::End) => self.ended = true,
                Some(Piece::Failed(m)) => return Err(io::Error::other(m)),
                None => return Err(io::Error::other("the upload ended before its body did")),
            }
        }
        let n = buf.len().min(self.cur.len());
        buf[..n].copy_from_slice(&self.cur.split_to(n));
        Ok(n)
    }
}

/// Feeds `body` into `tx` frame by frame, each frame's bytes taken from
/// the cap first when the body declared no length (`chunked`). Ends when
/// the body does, or when the put stops reading (it refused or failed:
/// its answer says why). A failed body or a busy cap is told to the put
/// and answered.
pub(super) async fn pump(
    mut body: Body,
    tx: mpsc::Sender<Piece>,
    held: &mut Reservation,
    chunked: bool,
) -> Result<(), Fail> {
    loop {
        let frame = std::future::poll_fn(|cx| std::pin::Pin::new(&mut body).poll_frame(cx)).await;
        let data = match frame {
            None => {
                let _ = tx.send(Piece::End).await;
                return Ok(());
            }
            Some(Err(e)) => {
                let message = format!("the request body failed: {e}");
                let _ = tx.send(Piece::Failed(message.clone())).await;
                return Err(Transport::InvalidRequest { message }.into());
            }
            Some(Ok(frame)) => match frame.into_data() {
                Ok(data) => data,
                // Trailers carry no content.
                Err(_) => continue,
            },
        };
        if chunked && let Err(e) = held.grow(data.len() as u64) {
            let _ = tx.send(Piece::Failed(e.body().message)).await;
            return Err(e.into());
        }
        if tx.send(Piece::Data(data)).await.is_err() {
            // The put stopped reading: its answer is the answer.
            return Ok(());
        }
    }
}
