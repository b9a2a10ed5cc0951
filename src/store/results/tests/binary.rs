//! Binary content through the library: stored and read back byte for byte,
//! never read as text (no verdict, whatever its type or a stored verdict
//! says); text is scanned whatever its declared type.

use super::{INJECTION, split_file, store, write_file};
use crate::store::files::results::file::sha256_hex;
use crate::store::files::results::verdict;
use crate::store::files::results::{ContentKind, NotText};
use crate::store::results::{PutOptions, PutStatus};

/// Seeded pseudo-random bytes (SplitMix64).
fn random(n: usize, mut seed: u64) -> Vec<u8> {
    let mut out = Vec::with_capacity(n + 8);
    while out.len() < n {
        seed = seed.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = seed;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        out.extend_from_slice(&(z ^ (z >> 31)).to_le_bytes());
    }
    out.truncate(n);
    out
}

fn typed(content_type: &str) -> PutOptions {
    PutOptions {
        content_type: Some(content_type.to_owned()),
        ..PutOptions::default()
    }
}

#[test]
fn random_bytes_are_stored_as_given_with_no_verdict() {
    let (d, s) = store();
    let o = s.owner("o").unwrap();
    // Read as text, these bytes show an invisible character and three
    // password assignments (a secret: a warning of the put).
    let bytes = random(1024 * 1024, 1);
    for (task, streamed) in [("mem", false), ("spool", true)] {
        let put = if streamed {
            let mut reader: &[u8] = &bytes;
            o.results().put_from(
                "wf",
                task,
                &mut reader,
                "test",
                &typed("application/octet-stream"),
            )
        } else {
            o.results()
                .put_with("wf", task, &bytes, &typed("application/octet-stream"))
        }
        .unwrap();
        assert_eq!(put.status, PutStatus::Stored);
        assert!(put.warnings.is_empty(), "{task}: {:?}", put.warnings);
        let (header, stored) = split_file(&d.path().join(format!("o/results/wf/{task}.result")));
        assert_eq!(stored, bytes);
        assert_eq!(header["scan"]["flagged"], serde_json::json!([]), "{task}");
        let got = o.results().get("wf", task).unwrap();
        assert_eq!(got.content, bytes);
        assert_eq!(got.sha256, sha256_hex(&bytes));
        assert!(got.flagged.is_empty(), "{task}: {:?}", got.flagged);
        assert_eq!(
            got.kind,
            ContentKind::Binary {
                reason: NotText::InvalidUtf8,
                offset: 0
            }
        );
    }
}

#[test]
fn a_stored_verdict_on_binary_content_is_not_read() {
    let (d, s) = store();
    let o = s.owner("o").unwrap();
    let bytes = random(4096, 1);
    o.results()
        .put("wf", "t", &bytes, "application/octet-stream", false)
        .unwrap();
    // A verdict this machine vouches for, naming a span (as the scanner
    // made on such bytes before it stopped reading them as text).
    let path = d.path().join("o/results/wf/t.result");
    let (mut header, stored) = split_file(&path);
    let span = verdict::FlaggedSpan {
        start: 0,
        end: 10,
        line: 1,
        patterns: vec!["bidi".into()],
    };
    let key = s.scan_key().unwrap();
    let sealed = verdict::seal(&key, "wf", "t", &sha256_hex(&bytes), vec![span]);
    header["scan"] = serde_json::to_value(&sealed).unwrap();
    write_file(&path, &header, &stored);
    assert!(o.results().get("wf", "t").unwrap().flagged.is_empty());
}

#[test]
fn text_declared_binary_is_still_scanned() {
    let (_d, s) = store();
    let o = s.owner("o").unwrap();
    let text = format!("scraped page\n{INJECTION}\n");
    for (task, content_type) in [("octet", "application/octet-stream"), ("png", "image/png")] {
        o.results()
            .put_with("wf", task, text.as_bytes(), &typed(content_type))
            .unwrap();
        let got = o.results().get("wf", task).unwrap();
        assert_eq!(got.kind, ContentKind::Text);
        assert_eq!(got.flagged.len(), 1, "{task}: {:?}", got.flagged);
        assert_eq!(got.flagged[0].patterns, ["ignore_instructions"]);
    }
    // Streamed (past a chunk), the same.
    let long = format!("{}{INJECTION}\n", "a plain line\n".repeat(10_000));
    let mut reader = long.as_bytes();
    o.results()
        .put_from(
            "wf",
            "long",
            &mut reader,
            "test",
            &typed("application/octet-stream"),
        )
        .unwrap();
    assert_eq!(o.results().get("wf", "long").unwrap().flagged.len(), 1);
}

#[test]
fn bytes_that_are_not_text_declared_text_are_binary() {
    let (_d, s) = store();
    let o = s.owner("o").unwrap();
    // UTF-8 with a NUL byte: binary, not scanned, whatever its type.
    let content = format!("{INJECTION}\0").into_bytes();
    o.results()
        .put("wf", "t", &content, "text/plain", false)
        .unwrap();
    let got = o.results().get("wf", "t").unwrap();
    assert_eq!(
        got.kind,
        ContentKind::Binary {
            reason: NotText::Nul,
            offset: INJECTION.len() as u64
        }
    );
    assert!(got.flagged.is_empty());
    assert_eq!(got.content, content);
}
