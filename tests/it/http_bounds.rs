//! `memdir serve`'s connections bounded, and its keys file checked, against
//! the real binary over loopback with plain `std::net::TcpStream`s: an idle
//! or kept-alive connection is closed after `--idle-timeout`, a half-sent
//! header after `--header-timeout`; clients that trickle their headers byte
//! by byte, more of them than `--max-connections` or than the descriptors
//! allow, do not keep `/healthz` from answering within 2 s; a keys file
//! the server refuses answers the `401` of any wrong key (its path and mode
//! only in the server's log), and one already bad stops the start.
//!
//! Run with `-- --nocapture` for the figures of docs/RELIABILITY.md
//! ("Connections").

use std::io::{BufRead, BufReader, ErrorKind, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use crate::http::{make_key, serve};
use crate::util::Sandbox;

/// The address of a server's base URL (`http://127.0.0.1:PORT`).
fn addr_of(base: &str) -> SocketAddr {
    base.trim_start_matches("http://").parse().unwrap()
}

/// How a read of a connection the server should close ended.
#[derive(Debug, PartialEq)]
enum Closed {
    /// The server closed it (end of file or reset) after this long, having
    /// sent these bytes.
    By(Duration, Vec<u8>),
    /// Still open when the test stopped waiting.
    Open(Vec<u8>),
}

/// Reads `c` until the server closes it, waiting `within` at most.
fn until_closed(c: &mut TcpStream, within: Duration) -> Closed {
    let start = Instant::now();
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        let Some(left) = within.checked_sub(start.elapsed()).filter(|d| !d.is_zero()) else {
            return Closed::Open(got);
        };
        c.set_read_timeout(Some(left)).unwrap();
        match c.read(&mut buf) {
            Ok(0) => return Closed::By(start.elapsed(), got),
            Ok(n) => got.extend_from_slice(&buf[..n]),
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {
                return Closed::Open(got);
            }
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(_) => return Closed::By(start.elapsed(), got),
        }
    }
}

/// One `GET /healthz` on a new connection (closed after the answer): its
/// status line and how long it took, or why it failed within `within`.
fn probe(addr: SocketAddr, within: Duration) -> Result<(String, Duration), String> {
    let start = Instant::now();
    let mut c = TcpStream::connect_timeout(&addr, within).map_err(|e| format!("connect: {e}"))?;
    c.set_write_timeout(Some(within)).unwrap();
    c.write_all(b"GET /healthz HTTP/1.1\r\nHost: memdir\r\nConnection: close\r\n\r\n")
        .map_err(|e| format!("write: {e}"))?;
    let left = within.saturating_sub(start.elapsed());
    match until_closed(&mut c, left.max(Duration::from_millis(1))) {
        Closed::By(_, got) if !got.is_empty() => {
            let text = String::from_utf8_lossy(&got);
            let line = text.lines().next().unwrap_or_default().to_owned();
            Ok((line, start.elapsed()))
        }
        other => Err(format!("no answer in {within:?}: {other:?}")),
    }
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

/// `n` probes of `/healthz`, each of which must answer 200 within 2 s:
/// their times.
#[track_caller]
fn probes(addr: SocketAddr, n: usize) -> Vec<Duration> {
    (0..n)
        .map(|i| {
            let (line, took) = probe(addr, Duration::from_secs(2))
                .unwrap_or_else(|e| panic!("probe {i} of /healthz: {e}"));
            assert!(line.starts_with("HTTP/1.1 200"), "probe {i}: {line}");
            took
        })
        .collect()
}

/// `n` connections that send a request's headers one byte every 50 ms and
/// never finish them; one the server closes is opened again. Stops when
/// the flag is set.
struct Tricklers {
    stop: Arc<AtomicBool>,
    /// How many connections were opened again so far.
    reopened: Arc<AtomicUsize>,
    thread: Option<std::thread::JoinHandle<usize>>,
}

impl Tricklers {
    fn start(addr: SocketAddr, n: usize) -> Tricklers {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let reopened = Arc::new(AtomicUsize::new(0));
        let count = reopened.clone();
        let (opened, ready) = std::sync::mpsc::channel();
        let thread = std::thread::spawn(move || {
            let open = || {
                let c = TcpStream::connect_timeout(&addr, Duration::from_secs(1)).ok()?;
                c.set_nonblocking(true).ok()?;
                Some(c)
            };
            let mut conns: Vec<Option<TcpStream>> = (0..n).map(|_| open()).collect();
            let _ = opened.send(());
            let header = b"GET /healthz HTTP/1.1\r\nHost: memdir\r\nX-Slow: ";
            let mut sent = vec![0usize; n];
            while !flag.load(Ordering::Relaxed) {
                for (c, at) in conns.iter_mut().zip(sent.iter_mut()) {
                    let byte = header.get(*at).copied().unwrap_or(b'a');
                    let alive = c.as_mut().is_some_and(|s| match s.write(&[byte]) {
                        Ok(_) => true,
                        Err(e) => e.kind() == ErrorKind::WouldBlock,
                    });
                    if alive {
                        *at += 1;
                    } else {
                        *c = open();
                        *at = 0;
                        count.fetch_add(1, Ordering::Relaxed);
                    }
                }
                // The pace of the attack, not a wait for the server.
                std::thread::sleep(Duration::from_millis(50));
            }
            count.load(Ordering::Relaxed)
        });
        ready.recv().unwrap();
        Tricklers {
            stop,
            reopened,
            thread: Some(thread),
        }
    }

    /// How many connections were opened again so far.
    fn reopened(&self) -> usize {
        self.reopened.load(Ordering::Relaxed)
    }

    /// Stops them: how many connections were opened again.
    fn stop(mut self) -> usize {
        self.stop.store(true, Ordering::Relaxed);
        self.thread.take().unwrap().join().unwrap()
    }
}

impl Drop for Tricklers {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

#[test]
fn an_idle_or_kept_alive_connection_is_closed_after_the_idle_time() {
    let s = Sandbox::new();
    let srv = serve(&s, &["--idle-timeout", "1", "--header-timeout", "30"]);
    let addr = addr_of(&srv.base);
    let mut times = Vec::new();
    for _ in 0..3 {
        // Opened, nothing sent.
        let mut idle = TcpStream::connect(addr).unwrap();
        match until_closed(&mut idle, Duration::from_secs(10)) {
            Closed::By(t, got) => {
                assert!(got.is_empty(), "nothing asked, nothing answered");
                times.push(t);
            }
            open => panic!("an idle connection still open after 10 s: {open:?}"),
        }
    }
    // Kept alive after an answer.
    let mut kept = TcpStream::connect(addr).unwrap();
    kept.write_all(b"GET /healthz HTTP/1.1\r\nHost: memdir\r\n\r\n")
        .unwrap();
    match until_closed(&mut kept, Duration::from_secs(10)) {
        Closed::By(_, got) => {
            let text = String::from_utf8_lossy(&got);
            assert!(text.starts_with("HTTP/1.1 200"), "{text}");
        }
        open => panic!("a kept-alive connection still open after 10 s: {open:?}"),
    }
    // The server still answers.
    probes(addr, 1);
    println!(
        "idle connection closed after (median of 3, --idle-timeout 1): {:?}",
        median(times)
    );
}

#[test]
fn a_half_sent_header_is_closed_after_the_header_time() {
    let s = Sandbox::new();
    let srv = serve(&s, &["--header-timeout", "1", "--idle-timeout", "60"]);
    let addr = addr_of(&srv.base);
    let mut times = Vec::new();
    for _ in 0..3 {
        let mut half = TcpStream::connect(addr).unwrap();
        half.write_all(b"GET /healthz HTTP/1.1\r\nHost: memdir\r\nX-Half: ")
            .unwrap();
        match until_closed(&mut half, Duration::from_secs(10)) {
            Closed::By(t, got) => {
                assert!(got.is_empty(), "no answer to half a request: {got:?}");
                times.push(t);
            }
            open => panic!("a half-sent header still open after 10 s: {open:?}"),
        }
    }
    probes(addr, 1);
    println!(
        "half-sent header closed after (median of 3, --header-timeout 1): {:?}",
        median(times)
    );
}

#[test]
fn tricklers_past_the_connection_limit_do_not_keep_healthz_from_answering() {
    let s = Sandbox::new();
    let srv = serve(&s, &["--max-connections", "20"]);
    let addr = addr_of(&srv.base);
    let alone = probes(addr, 5);
    let slow = Tricklers::start(addr, 40);
    // Probes while the tricklers find their connections closed and open
    // them again (their writes tell them, at their pace), 10 s at most.
    let start = Instant::now();
    let mut beside = Vec::new();
    while beside.len() < 5 || (slow.reopened() < 20 && start.elapsed() < Duration::from_secs(10)) {
        beside.extend(probes(addr, 1));
        std::thread::sleep(Duration::from_millis(100));
    }
    let reopened = slow.stop();
    assert!(
        reopened >= 20,
        "the server closed {reopened} tricklers to make room"
    );
    println!(
        "/healthz median, 5 probes: alone {:?}; beside 40 tricklers at --max-connections 20: {:?}",
        median(alone),
        median(beside)
    );
}

/// A server started by `sh` with the descriptor limit `ulimit -n` sets
/// (soft and hard): every line it logged before it listened, and its
/// address.
struct Limited {
    child: Child,
    addr: SocketAddr,
    early: Vec<String>,
}

impl Drop for Limited {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn serve_limited(s: &Sandbox, key_file: &std::path::Path, ulimit: &str) -> Limited {
    let mut cmd = std::process::Command::new("sh");
    cmd.arg("-c")
        .arg(format!("ulimit {ulimit} && exec \"$0\" \"$@\""))
        .arg(crate::util::BIN)
        .arg("--root")
        .arg(&s.root)
        .args(["serve", "--listen", "127.0.0.1:0", "--keys"])
        .arg(key_file)
        .env_remove("MEMDIR_ROOT")
        .env_remove("MEMDIR_OWNER")
        .env("MEMDIR_CONFIG_DIR", crate::util::config_dir())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("spawn sh");
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let mut early = Vec::new();
    let addr = loop {
        let line = lines
            .next()
            .unwrap_or_else(|| panic!("memdir serve ended: {:?} {early:?}", child.wait()))
            .unwrap();
        if let Some(rest) = line.split("listening on ").nth(1) {
            break addr_of(rest.split_whitespace().next().unwrap());
        }
        early.push(line);
    };
    std::thread::spawn(move || for _ in lines.map_while(Result::ok) {});
    Limited { child, addr, early }
}

#[test]
fn tricklers_past_the_descriptors_do_not_keep_healthz_from_answering() {
    let s = Sandbox::new();
    let keys = s.dir.path().join("conf/keys.yaml");
    // 200 descriptors, soft and hard: the default 512 connections are
    // capped at 200 less 64.
    let srv = serve_limited(&s, &keys, "-n 200");
    assert!(
        srv.early
            .iter()
            .any(|l| l.contains("--max-connections 512") && l.contains("at most 136 connections")),
        "{:?}",
        srv.early
    );
    let slow = Tricklers::start(srv.addr, 250);
    let beside = probes(srv.addr, 5);
    slow.stop();
    println!(
        "/healthz median, 5 probes beside 250 tricklers, 200 descriptors: {:?}",
        median(beside)
    );
    drop(srv);
    // A soft limit under the hard one is raised to it at the start.
    let srv = serve_limited(&s, &keys, "-Sn 300");
    assert!(
        srv.early
            .iter()
            .any(|l| l.contains("descriptor limit raised from 300 to ")),
        "{:?}",
        srv.early
    );
}

fn keys_path(s: &Sandbox) -> PathBuf {
    s.dir.path().join("conf/keys.yaml")
}

#[test]
fn a_refused_keys_file_answers_401_and_the_reason_is_logged() {
    use std::os::unix::fs::PermissionsExt;
    let s = Sandbox::new();
    let key = make_key(&s, &["--owner", "agt_k"]);
    let keys = keys_path(&s);
    let folder = keys.parent().unwrap().to_owned();
    let srv = serve(&s, &[]);
    assert_eq!(srv.get(Some(&key), "/v1/memory/recall").status, 200);
    let wrong = srv.get(Some("mdk_00"), "/v1/memory/recall");
    assert_eq!(wrong.status, 401);
    let mode = |p: &std::path::Path, m: u32| {
        std::fs::set_permissions(p, std::fs::Permissions::from_mode(m)).unwrap()
    };
    let copy = s.dir.path().join("real-keys.yaml");
    /// What is wrong, how to make it so, how to mend it, and the words of
    /// the log's reason.
    type Case<'a> = (&'a str, Box<dyn Fn() + 'a>, Box<dyn Fn() + 'a>, &'a str);
    let cases: Vec<Case> = vec![
        (
            "readable by others",
            Box::new(|| mode(&keys, 0o644)),
            Box::new(|| mode(&keys, 0o600)),
            "mode 644",
        ),
        (
            "a symlink",
            Box::new(|| {
                std::fs::rename(&keys, &copy).unwrap();
                std::os::unix::fs::symlink(&copy, &keys).unwrap();
            }),
            Box::new(|| std::fs::rename(&copy, &keys).unwrap()),
            "symlink",
        ),
        (
            "its folder writable by others",
            Box::new(|| mode(&folder, 0o777)),
            Box::new(|| mode(&folder, 0o700)),
            "writable by others",
        ),
    ];
    for (what, spoil, mend, reason) in &cases {
        spoil();
        for k in [key.as_str(), "mdk_00"] {
            let a = srv.get(Some(k), "/v1/memory/recall");
            assert_eq!(a.status, 401, "{what}: {a:?}");
            assert_eq!(a.body, wrong.body, "{what}: the answer of any wrong key");
            assert!(!a.body.contains("conf"), "{what}: no path: {a:?}");
        }
        let line = srv.wait_line(reason);
        assert!(
            line.contains(keys.to_str().unwrap()) && line.contains("keys file"),
            "{what}: the log names the file and why: {line}"
        );
        // Already bad at the start: refused, naming the file and the fix.
        let r = s.run(&[
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--keys",
            keys.to_str().unwrap(),
        ]);
        assert_eq!(r.code, 2, "{what}: {r:?}");
        assert!(
            r.stderr.contains(keys.to_str().unwrap()) && r.stderr.contains(reason),
            "{what}: {r:?}"
        );
        mend();
        assert_eq!(
            srv.get(Some(&key), "/v1/memory/recall").status,
            200,
            "{what}: mended"
        );
    }
}

/// The head of an HTTP answer on `c` and its body (by its
/// `Content-Length`), read whole within 10 s: the head's lines, lowercased.
fn read_answer(c: &mut TcpStream) -> Vec<String> {
    c.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    let head_end = loop {
        if let Some(at) = got.windows(4).position(|w| w == b"\r\n\r\n") {
            break at;
        }
        let n = c.read(&mut buf).expect("an answer");
        assert!(n > 0, "closed before an answer: {got:?}");
        got.extend_from_slice(&buf[..n]);
    };
    let head: Vec<String> = String::from_utf8_lossy(&got[..head_end])
        .lines()
        .map(str::to_ascii_lowercase)
        .collect();
    let length: usize = head
        .iter()
        .find_map(|l| l.strip_prefix("content-length:"))
        .map_or(0, |v| v.trim().parse().unwrap());
    while got.len() < head_end + 4 + length {
        let n = c.read(&mut buf).expect("the answer's body");
        assert!(n > 0, "closed inside an answer: {got:?}");
        got.extend_from_slice(&buf[..n]);
    }
    head
}

/// A request answered before its body arrived (a route that takes none, a
/// refusal) leaves no client with a connection closed under its next
/// request: the answer says `Connection: close` (and the connection
/// closes), or the connection reads on and answers the next request. The
/// body here is sent only once the answer is read, so hyper cannot have
/// it when it answers; before the fix the answer said nothing and the
/// server closed the connection, and the next request, sent at once as a
/// pooling client sends it, found it closed ("Peer disconnected").
#[test]
fn an_answer_before_the_body_arrived_never_leaves_the_connection_to_close_under_the_next_request() {
    let s = Sandbox::new();
    let srv = serve(&s, &[]);
    let addr = addr_of(&srv.base);
    let next = b"GET /healthz HTTP/1.1\r\nHost: memdir\r\n\r\n";
    for (method, path) in [
        ("POST", "/healthz"),
        ("POST", "/ui/logout"),
        ("PUT", "/v1/skills"),
    ] {
        let mut c = TcpStream::connect(addr).unwrap();
        c.set_nodelay(true).unwrap();
        write!(
            c,
            "{method} {path} HTTP/1.1\r\nHost: memdir\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n"
        )
        .unwrap();
        let head = read_answer(&mut c);
        let close = head.iter().any(|l| l == "connection: close");
        // The body, then the next request at once.
        let sent = c.write_all(b"{}").and_then(|()| c.write_all(next));
        if close {
            // Told so: the connection closes, and a new one is answered.
            assert!(
                matches!(
                    until_closed(&mut c, Duration::from_secs(10)),
                    Closed::By(..)
                ),
                "{method} {path}: {head:?}"
            );
            probes(addr, 1);
        } else {
            sent.unwrap_or_else(|e| panic!("{method} {path} said keep-alive ({head:?}): {e}"));
            let again = read_answer(&mut c);
            assert_eq!(again[0], "http/1.1 200 ok", "{method} {path}: {head:?}");
        }
    }
}
