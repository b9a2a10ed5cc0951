//! Fuzz targets: one function per target, each taking arbitrary bytes and
//! panicking when a property of the module it exercises fails (not only
//! when the module panics by itself).
//!
//! Compiled for tests and with the `internals` feature only
//! (`memdir::internals::fuzz`). The cargo-fuzz
//! crate under `fuzz/` calls these functions from its targets
//! (`cargo +nightly fuzz run <target>`); the unit tests of this module run
//! every input of the checked-in corpora (`fuzz/corpus/<target>/`) and the
//! fixed crash reproducers (`fuzz/regressions/<target>/`) through them on
//! the stable toolchain, as part of `cargo test`.
//!
//! Inputs are decoded by [`Input`]: a few control bytes, then fields
//! separated by the byte `0xFF` (which never occurs in UTF-8), taken as text
//! lossily. docs/RELIABILITY.md ("Fuzzing") lists each target's properties.

mod journal;
mod markdown;
mod merge;
mod results;
mod scanner;
mod settings;
#[cfg(test)]
mod tests;

pub use journal::journal;
pub use markdown::markdown_splice;
pub use merge::merge;
pub use results::{result_file, result_index};
pub use scanner::scanner;
pub use settings::settings;

use std::ops::Range;

use chrono::{DateTime, TimeZone, Utc};

/// A target: a function of arbitrary bytes that panics when a property
/// fails.
pub type Target = fn(&[u8]);

/// The names of the targets, as `fuzz/fuzz_targets/<name>.rs` and the
/// corpus folders name them, with their functions.
pub const TARGETS: [(&str, Target); 7] = [
    ("markdown_splice", markdown_splice),
    ("settings", settings),
    ("scanner", scanner),
    ("journal", journal),
    ("result_file", result_file),
    ("result_index", result_index),
    ("merge", merge),
];

/// The byte that parts an input's fields: never part of UTF-8 text.
pub const FIELD_SEPARATOR: u8 = 0xFF;

/// A fuzz input, read front to back: control bytes, then fields.
#[derive(Debug, Clone)]
pub struct Input<'a> {
    data: &'a [u8],
}

impl<'a> Input<'a> {
    /// The input `data`.
    pub fn new(data: &'a [u8]) -> Input<'a> {
        Input { data }
    }

    /// The next byte; 0 once the input is used up.
    pub fn byte(&mut self) -> u8 {
        match self.data.split_first() {
            Some((b, rest)) => {
                self.data = rest;
                *b
            }
            None => 0,
        }
    }

    /// The next two bytes as a little-endian number.
    pub fn u16(&mut self) -> u16 {
        u16::from_le_bytes([self.byte(), self.byte()])
    }

    /// The bytes up to the next [`FIELD_SEPARATOR`] (or the end), which is
    /// skipped.
    pub fn field_bytes(&mut self) -> &'a [u8] {
        match self.data.iter().position(|&b| b == FIELD_SEPARATOR) {
            Some(i) => {
                let (field, rest) = self.data.split_at(i);
                self.data = &rest[1..];
                field
            }
            None => std::mem::take(&mut self.data),
        }
    }

    /// The next field as text (invalid UTF-8 replaced by U+FFFD).
    pub fn field(&mut self) -> String {
        String::from_utf8_lossy(self.field_bytes()).into_owned()
    }

    /// Everything left, as bytes.
    pub fn rest_bytes(&mut self) -> &'a [u8] {
        std::mem::take(&mut self.data)
    }

    /// Everything left, as text (invalid UTF-8 replaced by U+FFFD).
    pub fn rest(&mut self) -> String {
        String::from_utf8_lossy(self.rest_bytes()).into_owned()
    }
}

/// The time the targets edit at: 2026-11-30T12:00:00Z.
pub(crate) fn now() -> DateTime<Utc> {
    match Utc.with_ymd_and_hms(2026, 11, 30, 12, 0, 0) {
        chrono::LocalResult::Single(t) => t,
        _ => panic!("2026-11-30T12:00:00Z is a time"),
    }
}

/// `s` cut to at most `max` bytes, at a character boundary.
pub(crate) fn truncate(mut s: String, max: usize) -> String {
    if s.len() > max {
        let mut at = max;
        while !s.is_char_boundary(at) {
            at -= 1;
        }
        s.truncate(at);
    }
    s
}

/// Whether `r` is a range of `s` that starts and ends on character
/// boundaries.
pub(crate) fn in_bounds(s: &str, r: &Range<usize>) -> bool {
    r.start <= r.end && r.end <= s.len() && s.is_char_boundary(r.start) && s.is_char_boundary(r.end)
}

/// Where `after` differs from `before`: the bytes `before[start..old_end]`
/// were replaced by `after[start..new_end]`, everything around them being
/// identical (the longest common prefix, then the longest common suffix of
/// the rest).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Change {
    /// First byte that differs.
    pub(crate) start: usize,
    /// End of the replaced bytes in `before`.
    pub(crate) old_end: usize,
    /// End of the new bytes in `after`.
    pub(crate) new_end: usize,
}

/// The one region in which `after` differs from `before`.
pub(crate) fn change(before: &str, after: &str) -> Change {
    let (a, b) = (before.as_bytes(), after.as_bytes());
    let start = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let room = a.len().min(b.len()) - start;
    let suffix = a
        .iter()
        .rev()
        .zip(b.iter().rev())
        .take(room)
        .take_while(|(x, y)| x == y)
        .count();
    Change {
        start,
        old_end: a.len() - suffix,
        new_end: b.len() - suffix,
    }
}

/// The start of the line holding byte `at` (CRLF, LF and a lone CR end
/// lines), found the simple way: an oracle for the markdown modules' own.
pub(crate) fn line_start(s: &str, at: usize) -> usize {
    let b = s.as_bytes();
    let mut i = at.min(b.len());
    while i > 0 {
        let prev = b[i - 1];
        if prev == b'\n' || (prev == b'\r' && b.get(i) != Some(&b'\n')) {
            break;
        }
        i -= 1;
    }
    i
}

/// The end of the line holding byte `at`, past its line ending.
pub(crate) fn next_line(s: &str, at: usize) -> usize {
    let b = s.as_bytes();
    let mut i = at.min(b.len());
    while i < b.len() {
        match b[i] {
            b'\n' => return i + 1,
            b'\r' if b.get(i + 1) == Some(&b'\n') => return i + 2,
            b'\r' => return i + 1,
            _ => i += 1,
        }
    }
    i
}

/// Panics with `what` unless `code` is one of `allowed`.
pub(crate) fn expect_code(what: &str, code: &str, allowed: &[&str]) {
    assert!(
        allowed.contains(&code),
        "{what}: unexpected error code {code} (expected one of {allowed:?})"
    );
}
