//! The table of non-ASCII characters that imitate an ASCII letter or digit, generated from the
//! Unicode TR39 confusable skeleton (`unicode-security`) at build time.
//!
//! The scanner folds such characters before matching (`src/scan/views.rs`). Computing the
//! skeleton at run time would link `unicode-security`'s table of about 6,700 `(char, &[char])`
//! pairs: 160 KB of pointers that the loader relocates, page by page, at every start of every
//! `memdir` process, for a fold that only text with non-ASCII letters needs. The generated table
//! holds plain integers, so it sits in read-only data, needs no relocation, and is only paged
//! in when a scan looks a character up.

use std::fmt::Write as _;

use unicode_security::skeleton;

/// Whether `c` may imitate an ASCII letter or digit: any non-ASCII character outside the CJK,
/// kana, Yi and Hangul blocks and the planes above the second, which have no Latin
/// lookalikes.
fn may_imitate_ascii(c: char) -> bool {
    !c.is_ascii()
        && !matches!(c, '\u{2E80}'..='\u{A4CF}' | '\u{AC00}'..='\u{D7FF}' | '\u{F900}'..='\u{FAFF}' | '\u{20000}'..)
}

fn skeleton_of(c: char) -> String {
    skeleton(c.encode_utf8(&mut [0; 4])).collect()
}

/// The ASCII letter or digit that `c` imitates, if any: the one whose skeleton equals the
/// skeleton of `c`, of the same case where several share it (`І` → `I`, `ӏ` → `l`, `і` → `i`,
/// `α` → `a`, `ο` → `o`).
fn ascii_lookalike(c: char, ascii: &[(String, char)]) -> Option<char> {
    let sk = skeleton_of(c);
    if !sk.is_ascii() {
        return None;
    }
    let candidates = || ascii.iter().filter(|(s, _)| *s == sk).map(|&(_, a)| a);
    let same_case = if c.is_uppercase() {
        candidates().find(char::is_ascii_uppercase)
    } else if c.is_lowercase() {
        candidates().find(char::is_ascii_lowercase)
    } else {
        None
    };
    same_case.or_else(|| candidates().next())
}

/// Rust source for two parallel arrays sorted by code point: `LOOKALIKE_CHARS` (the
/// characters) and `LOOKALIKE_ASCII` (the ASCII byte each imitates).
pub fn source() -> String {
    let ascii: Vec<(String, char)> = ('0'..='9')
        .chain('A'..='Z')
        .chain('a'..='z')
        .map(|a| (skeleton_of(a), a))
        .collect();
    let pairs: Vec<(u32, u8)> = (0x80..=0x1F_FFFFu32)
        .filter_map(char::from_u32)
        .filter(|&c| may_imitate_ascii(c))
        .filter_map(|c| ascii_lookalike(c, &ascii).map(|a| (c as u32, a as u8)))
        .collect();
    let mut out = String::new();
    let _ = writeln!(
        out,
        "/// Non-ASCII characters that imitate an ASCII letter or digit (TR39 skeleton), sorted."
    );
    let _ = write!(
        out,
        "pub(super) const LOOKALIKE_CHARS: [u32; {}] = [",
        pairs.len()
    );
    for (c, _) in &pairs {
        let _ = write!(out, "{c},");
    }
    let _ = writeln!(out, "];");
    let _ = writeln!(
        out,
        "/// The ASCII letter or digit each of `LOOKALIKE_CHARS` imitates."
    );
    let _ = write!(
        out,
        "pub(super) const LOOKALIKE_ASCII: [u8; {}] = [",
        pairs.len()
    );
    for (_, a) in &pairs {
        let _ = write!(out, "{a},");
    }
    let _ = writeln!(out, "];");
    out
}
