//! A tiny HTTP listener on loopback for the browser tests: it records every
//! connection it is sent (the first line of each request) and answers each
//! with one fixed HTML page. A page of another origin (a forged form) and
//! a trap that must never be reached (a planted image's address) are both
//! one of these.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

/// A listener on `127.0.0.1:<port the OS picked>`, stopped on drop.
pub(crate) struct Listener {
    /// `http://127.0.0.1:PORT`.
    pub(crate) base: String,
    hits: Arc<Mutex<Vec<String>>>,
    stop: Arc<AtomicBool>,
}

impl Drop for Listener {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
    }
}

/// Reads one request's head (bounded: 16 KiB, 5 s) and answers `page`.
fn answer(mut conn: TcpStream, page: &str) -> String {
    let _ = conn.set_nonblocking(false);
    let _ = conn.set_read_timeout(Some(Duration::from_secs(5)));
    let mut head = Vec::new();
    let mut buf = [0u8; 1024];
    while head.len() < 16 * 1024 && !head.windows(4).any(|w| w == b"\r\n\r\n") {
        match conn.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => head.extend_from_slice(&buf[..n]),
        }
    }
    let reply = format!(
        "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{page}",
        page.len()
    );
    let _ = conn.write_all(reply.as_bytes());
    String::from_utf8_lossy(&head)
        .lines()
        .next()
        .unwrap_or("(no request line)")
        .to_owned()
}

impl Listener {
    /// Starts a listener that answers every request with `page`.
    pub(crate) fn start(page: &str) -> Listener {
        let socket = TcpListener::bind("127.0.0.1:0").expect("bind a loopback port");
        socket
            .set_nonblocking(true)
            .expect("a non-blocking listener");
        let base = format!("http://{}", socket.local_addr().expect("its address"));
        let hits = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let (h, st, page) = (hits.clone(), stop.clone(), page.to_owned());
        std::thread::spawn(move || {
            while !st.load(Ordering::SeqCst) {
                match socket.accept() {
                    Ok((conn, _)) => {
                        let line = answer(conn, &page);
                        h.lock().unwrap_or_else(PoisonError::into_inner).push(line);
                    }
                    Err(_) => std::thread::sleep(Duration::from_millis(20)),
                }
            }
        });
        Listener { base, hits, stop }
    }

    /// The first line of every request received so far.
    pub(crate) fn hits(&self) -> Vec<String> {
        self.hits
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}
