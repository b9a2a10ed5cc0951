//! Target `scanner`: the threat and secret scanner and its placeholder.
//!
//! Input: a control byte, then the text. A control byte of 0xFF makes the
//! text longer than the scanner's limit (repeated), to check the limit.

use super::Input;
use crate::model::{Scope, entry_id, is_entry_id};
use crate::scan::{self, Family, Finding, MAX_SCAN_CHARS, scan_with};

/// Scans the text and checks the verdict: deterministic, the same with the
/// keyword prefilters off, each pattern once, threats before secrets;
/// over the limit, `text_too_long` alone; the placeholder built from the
/// verdict holds nothing of the text.
pub fn scanner(data: &[u8]) {
    let mut input = Input::new(data);
    let control = input.byte();
    let text = input.rest();
    if control == 0xFF {
        return too_long(&text);
    }
    let findings = scan::scan(&text);
    assert_eq!(scan::scan(&text), findings, "a second scan differs");
    let unfiltered = scan_with(&text, false);
    assert_eq!(
        unfiltered, findings,
        "the keyword prefilters changed the verdict"
    );
    let chars = text.chars().count();
    let too_long = findings.iter().any(|f| f.pattern == "text_too_long");
    assert_eq!(too_long, chars > MAX_SCAN_CHARS, "{chars} characters");
    check_findings(&findings);
    let scope = if control & 1 == 0 {
        Scope::Memory
    } else {
        Scope::User
    };
    if !findings.is_empty() {
        check_placeholder(scope, &entry_id(scope.name(), &text), &findings);
    }
}

/// Text over the limit: one finding, `text_too_long`, never a partial scan.
fn too_long(text: &str) {
    let unit = if text.is_empty() { "a" } else { text };
    let n = unit.chars().count();
    let long = unit.repeat(MAX_SCAN_CHARS / n + 1);
    assert!(long.chars().count() > MAX_SCAN_CHARS);
    let want = vec![Finding {
        pattern: "text_too_long",
        family: Family::Threat,
    }];
    assert_eq!(scan::scan(&long), want, "over the limit");
    assert_eq!(scan_with(&long, false), want, "over the limit, unfiltered");
}

/// Each pattern at most once, every threat before every secret, each
/// finding as the table names it.
fn check_findings(findings: &[Finding]) {
    for (i, f) in findings.iter().enumerate() {
        assert!(
            !findings[..i].iter().any(|g| g.pattern == f.pattern),
            "{} found twice",
            f.pattern
        );
        assert_eq!(scan::finding(f.pattern).as_ref(), Some(f), "{f:?}");
    }
    let first_secret = findings
        .iter()
        .position(|f| f.family == Family::Secret)
        .unwrap_or(findings.len());
    assert!(
        findings[first_secret..]
            .iter()
            .all(|f| f.family == Family::Secret),
        "a threat after a secret: {findings:?}"
    );
}

/// The placeholder is exactly `[BLOCKED: <file> entry <id> matched <ids>;
/// remove or edit it]` with pattern ids of the table: built from the
/// verdict, so it holds nothing of the text.
fn check_placeholder(scope: Scope, id: &str, findings: &[Finding]) {
    let p = scan::blocked_placeholder(scope, id, findings);
    let rest = p
        .strip_prefix("[BLOCKED: ")
        .and_then(|r| r.strip_prefix(scope.file_name()))
        .and_then(|r| r.strip_prefix(" entry "))
        .and_then(|r| r.strip_suffix("; remove or edit it]"))
        .unwrap_or_else(|| panic!("placeholder {p:?}"));
    let Some((got_id, ids)) = rest.split_once(" matched ") else {
        panic!("placeholder {p:?}")
    };
    assert!(
        is_entry_id(got_id) && got_id == id,
        "placeholder id in {p:?}"
    );
    let ids: Vec<&str> = ids.split(", ").collect();
    let want: Vec<&str> = findings.iter().map(|f| f.pattern).collect();
    assert_eq!(ids, want, "placeholder ids in {p:?}");
    for i in ids {
        assert!(
            scan::finding(i).is_some()
                && i.bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_'),
            "{i:?} is not a pattern id"
        );
    }
}
