//! Running a program the machine's user named (the daily review's
//! reviewer): `sh -c COMMAND` in its own process group, one document on
//! standard input, standard output read up to a limit, the whole group
//! killed at a deadline or past the limit. The only code besides `git` that
//! runs a program.

use std::io::{Read, Write};
use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// How much of standard error is kept for the report.
const STDERR_KEPT: u64 = 2_048;

/// Runs `sh -c command` with `input` on its standard input and returns its
/// standard output; an error (as a sentence) when it cannot start, runs
/// past `timeout`, prints more than `limit` bytes, or exits with a failure
/// (with the start of its standard error).
pub fn run_shell(
    command: &str,
    input: &[u8],
    timeout: Duration,
    limit: u64,
) -> Result<Vec<u8>, String> {
    let mut child = Command::new("/bin/sh")
        .arg("-c")
        .arg(command)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn()
        .map_err(|e| format!("could not start `{command}`: {e}"))?;
    let group = rustix::process::Pid::from_child(&child);
    let kill = || {
        let _ = rustix::process::kill_process_group(group, rustix::process::Signal::KILL);
    };
    let (tx, rx) = mpsc::channel::<()>();
    let mut stdin = child.stdin.take();
    let input = input.to_vec();
    let writer = std::thread::spawn(move || {
        if let Some(s) = stdin.as_mut() {
            // A reviewer that does not read all of it is its own business.
            let _ = s.write_all(&input);
        }
    });
    let stdout = child.stdout.take();
    let out_tx = tx.clone();
    let over = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let over_r = over.clone();
    let reader = std::thread::spawn(move || {
        let mut buf = Vec::new();
        if let Some(s) = stdout {
            let _ = s.take(limit + 1).read_to_end(&mut buf);
        }
        if buf.len() as u64 > limit {
            over_r.store(true, std::sync::atomic::Ordering::SeqCst);
        }
        let _ = out_tx.send(());
        buf
    });
    let stderr = child.stderr.take();
    let err_reader = std::thread::spawn(move || {
        let mut buf = Vec::new();
        if let Some(mut s) = stderr {
            let _ = (&mut s).take(STDERR_KEPT).read_to_end(&mut buf);
            let _ = std::io::copy(&mut s, &mut std::io::sink());
        }
        String::from_utf8_lossy(&buf).trim().to_owned()
    });
    drop(tx);
    let deadline = Instant::now() + timeout;
    let mut failure = None;
    let status = loop {
        match child.try_wait() {
            Ok(Some(st)) => break Some(st),
            Ok(None) => {}
            Err(e) => {
                failure = Some(format!("could not wait for `{command}`: {e}"));
                kill();
                break None;
            }
        }
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            failure = Some(format!(
                "`{command}` ran past its timeout of {} s and was stopped",
                timeout.as_secs_f64()
            ));
            kill();
            break None;
        }
        if over.load(std::sync::atomic::Ordering::SeqCst) {
            failure = Some(format!("`{command}` printed more than {limit} bytes"));
            kill();
            break None;
        }
        // Woken early when standard output closes or passes the limit.
        let _ = rx.recv_timeout(left.min(Duration::from_millis(20)));
    };
    // Grandchildren left holding the pipes die with the group.
    kill();
    let _ = child.wait();
    let _ = writer.join();
    let out = reader.join().unwrap_or_default();
    let err = err_reader.join().unwrap_or_default();
    if let Some(f) = failure {
        return Err(f);
    }
    if out.len() as u64 > limit {
        return Err(format!("`{command}` printed more than {limit} bytes"));
    }
    match status {
        Some(st) if st.success() => Ok(out),
        Some(st) => Err(format!(
            "`{command}` failed ({st}){}",
            if err.is_empty() {
                String::new()
            } else {
                format!(": {err}")
            }
        )),
        None => Err(format!("`{command}` did not finish")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_timeout_limit_and_failure() {
        let t = Duration::from_secs(5);
        assert_eq!(run_shell("cat", b"hello", t, 100).unwrap(), b"hello");
        let e = run_shell("echo oops >&2; exit 3", b"", t, 100).unwrap_err();
        assert!(e.contains("oops") && e.contains("failed"), "{e}");
        let start = Instant::now();
        let e = run_shell("sleep 30", b"", Duration::from_millis(200), 100).unwrap_err();
        assert!(e.contains("timeout"), "{e}");
        assert!(start.elapsed() < Duration::from_secs(5));
        // A grandchild holding the pipe does not outlive the deadline.
        let start = Instant::now();
        let e = run_shell("sleep 30 & sleep 30", b"", Duration::from_millis(200), 100).unwrap_err();
        assert!(e.contains("timeout"), "{e}");
        assert!(start.elapsed() < Duration::from_secs(5));
        let e = run_shell("yes", b"", t, 1_000).unwrap_err();
        assert!(e.contains("more than 1000 bytes"), "{e}");
        assert!(run_shell("/nonexistent/x", b"", t, 100).is_err());
    }
}
