//! Result uploads streamed and capped (docs/API.md, "Bounds"): 40 parallel
//! 16 MiB `PUT`s keep `memdir serve` far under the memory that holding
//! them whole would take, past the cap of bytes in flight a `PUT` is `503
//! busy` with `Retry-After` and nothing of it is stored, a client that
//! retries stores them all, and `/healthz` answers throughout.
//!
//! Run with `-- --nocapture` for the figures of docs/RELIABILITY.md
//! ("Memory").

use std::time::{Duration, Instant};

use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::http::{client, make_key, reply, serve};
use crate::util::{self, Sandbox};

const O: &str = "agt_up";
const MIB: usize = 1024 * 1024;

/// A field of `/proc/PID/status`, in KiB (`VmHWM`, `VmRSS`).
fn status_kib(pid: u32, field: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix(field)?.strip_prefix(':'))
        .and_then(|v| v.trim().trim_end_matches(" kB").parse().ok())
        .unwrap_or_else(|| panic!("no {field} in {status}"))
}

/// The content of upload `i`: 16 MiB of text lines, each upload its own.
fn content(i: usize) -> Vec<u8> {
    let line = format!("upload {i:02}: a line of a scraped page, as a run stored it\n");
    line.as_bytes()
        .iter()
        .copied()
        .cycle()
        .take(16 * MIB)
        .collect()
}

/// `/healthz` answers 200 within 2 s.
#[track_caller]
fn healthy(base: &str) -> Duration {
    let start = Instant::now();
    let r = reply(
        ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(Duration::from_secs(2)))
            .build()
            .new_agent()
            .get(format!("{base}/healthz"))
            .call(),
    );
    assert_eq!(r.status, 200, "{r:?}");
    start.elapsed()
}

#[test]
fn forty_parallel_16_mib_puts_stay_bounded_and_all_land_with_retries() {
    let _alone = util::exclusive();
    let s = Sandbox::new();
    let key = make_key(&s, &["--owner", O]);
    let srv = serve(&s, &["--timeout", "120"]);
    let pid = srv.pid();
    let before = status_kib(pid, "VmRSS");
    let busy = std::sync::Mutex::new(Vec::new());
    let mut probes = Vec::new();
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..40)
            .map(|i| {
                let (key, busy) = (&key, &busy);
                let url = srv.url(&format!("/v1/workflows/results/wf-up/t{i:02}"));
                scope.spawn(move || {
                    let body = content(i);
                    let agent = client(120);
                    for _ in 0..600 {
                        let r = reply(
                            agent
                                .put(&url)
                                .header("Authorization", format!("Bearer {key}"))
                                .header("Content-Type", "text/plain")
                                // A 503 before the body is sent, not a
                                // connection closed under it.
                                .header("Expect", "100-continue")
                                .send(&body[..]),
                        );
                        if r.status != 503 {
                            return r;
                        }
                        busy.lock().unwrap().push(r);
                        // The pace the answer asks for.
                        std::thread::sleep(Duration::from_secs(1));
                    }
                    panic!("upload {i}: still busy after 600 tries");
                })
            })
            .collect();
        while workers.iter().any(|w| !w.is_finished()) {
            probes.push(healthy(&srv.base));
            std::thread::sleep(Duration::from_millis(200));
        }
        for (i, w) in workers.into_iter().enumerate() {
            let r = w.join().unwrap();
            assert_eq!(r.status, 201, "upload {i}: {r:?}");
        }
    });
    let peak = status_kib(pid, "VmHWM");
    let busy = busy.into_inner().unwrap();
    assert!(!busy.is_empty(), "640 MiB at once is past the 256 MiB cap");
    for r in &busy {
        assert_eq!(r.retry_after.as_deref(), Some("1"), "{r:?}");
        let v: Value = serde_json::from_str(&r.body).unwrap();
        assert_eq!(v["error"]["code"], "busy", "{r:?}");
    }
    // Holding the bodies whole (twice, as before) took 1.2 GB: the bound
    // is the chunks in flight, with generous slack.
    assert!(
        peak < 384 * 1024,
        "peak resident {peak} KiB (at the start {before} KiB)"
    );
    // Each stored as sent: the file is its header line, then the bytes.
    for i in [0, 17, 39] {
        let file = s.read(O, &format!("results/wf-up/t{i:02}.result"));
        let nl = file.iter().position(|b| *b == b'\n').unwrap();
        let header: Value = serde_json::from_slice(&file[..nl]).unwrap();
        let want = content(i);
        assert_eq!(
            header["sha256"],
            hex::encode(Sha256::digest(&want)).as_str(),
            "upload {i}"
        );
        assert!(file[nl + 1..] == want[..], "upload {i}: the bytes sent");
    }
    probes.sort();
    println!(
        "40 parallel 16 MiB PUTs, cap 256 MiB: peak resident {} MiB (at the start {} MiB); {} answers 503 busy; /healthz median {:?} over {} probes",
        peak / 1024,
        before / 1024,
        busy.len(),
        probes[probes.len() / 2],
        probes.len()
    );
}

#[test]
fn a_chunked_upload_past_the_cap_is_busy_and_stores_nothing() {
    let s = Sandbox::new();
    let key = make_key(&s, &["--owner", O]);
    let srv = serve(&s, &["--max-upload-bytes-in-flight", "1048576"]);
    let url = srv.url("/v1/workflows/results/wf-up/chunked");
    // No length declared: the cap is counted as the bytes arrive.
    let body = content(1);
    let r = reply(
        client(120)
            .put(&url)
            .header("Authorization", format!("Bearer {key}"))
            .header("Content-Type", "text/plain")
            .send(ureq::SendBody::from_reader(&mut &body[..2 * MIB])),
    );
    assert_eq!(r.status, 503, "{r:?}");
    assert_eq!(r.retry_after.as_deref(), Some("1"), "{r:?}");
    let gone = srv.get(Some(&key), "/v1/workflows/results/wf-up/chunked");
    assert_eq!(gone.status, 404, "{gone:?}");
    // Under the cap, chunked, it lands.
    let small = &body[..512 * 1024];
    let r = reply(
        client(120)
            .put(&url)
            .header("Authorization", format!("Bearer {key}"))
            .header("Content-Type", "text/plain")
            .send(ureq::SendBody::from_reader(&mut &small[..])),
    );
    assert_eq!(r.status, 201, "{r:?}");
    let v = srv
        .get(Some(&key), "/v1/workflows/results/wf-up/chunked")
        .json();
    assert_eq!(v["sha256"], hex::encode(Sha256::digest(small)).as_str());
    healthy(&srv.base);
}
