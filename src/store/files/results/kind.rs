//! What a result's content is: text or binary, decided on its bytes alone
//! (in one pass, in memory or chunk by chunk as it arrives), never on the
//! type its producer declared. Pure: no I/O.
//!
//! Text is valid UTF-8 without a NUL byte; anything else is binary. The
//! declared type does not decide because it cannot be trusted either way:
//! bytes that are text reach an agent as text whatever they are declared
//! (an answer carries text as a string), so text declared
//! `application/octet-stream` is still read and scanned as text; and bytes
//! that are not text declared `text/plain` are still bytes. Binary content
//! is not read as text: the scanner does not run on it (random bytes read as
//! text are matched by chance: a stray bidirectional control, a run of
//! letters that looks like a key), and no answer gives it to an agent as
//! text (JSON and MCP carry it as base64; see `api::render`).

/// Why content is not text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NotText {
    /// A byte sequence that is not UTF-8 (or a character cut at the end).
    InvalidUtf8,
    /// A NUL byte (valid UTF-8, but no text holds one).
    Nul,
}

impl NotText {
    /// The reason as an error states it: `invalid UTF-8`, `a NUL byte`.
    pub fn as_str(self) -> &'static str {
        match self {
            NotText::InvalidUtf8 => "invalid UTF-8",
            NotText::Nul => "a NUL byte",
        }
    }
}

/// What a result's content is, decided on its bytes alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ContentKind {
    /// Valid UTF-8 without a NUL byte: read as text, and scanned.
    Text,
    /// Anything else: bytes, not read as text and not scanned; an answer
    /// gives it as bytes or base64, never as text.
    Binary {
        /// Why it is not text: a byte that is not UTF-8 comes before a NUL
        /// byte in this order of precedence, wherever each is.
        reason: NotText,
        /// The offset of the first byte that is not text, for that reason.
        offset: u64,
    },
}

impl ContentKind {
    /// The kind of `content`: the first byte that is not UTF-8, else the
    /// first NUL byte, makes it binary. One pass over the bytes (UTF-8
    /// validation stops at the first invalid byte; the NUL search runs only
    /// over valid UTF-8).
    pub fn of(content: &[u8]) -> ContentKind {
        match std::str::from_utf8(content) {
            Err(e) => ContentKind::Binary {
                reason: NotText::InvalidUtf8,
                offset: e.valid_up_to() as u64,
            },
            Ok(_) => match memchr::memchr(0, content) {
                Some(at) => ContentKind::Binary {
                    reason: NotText::Nul,
                    offset: at as u64,
                },
                None => ContentKind::Text,
            },
        }
    }

    /// Whether the content is text.
    pub fn is_text(self) -> bool {
        self == ContentKind::Text
    }
}

/// [`ContentKind::of`] for content fed in chunks: the same answer for the
/// whole, holding at most the 3 bytes of a character a chunk ends inside.
#[derive(Debug, Default)]
pub(crate) struct KindCheck {
    /// Bytes fed so far.
    seen: usize,
    /// The start of a character the last chunk ended inside (at most 3
    /// bytes).
    pending: Vec<u8>,
    /// The first byte that is not UTF-8.
    invalid: Option<usize>,
    /// The first NUL byte.
    nul: Option<usize>,
}

impl KindCheck {
    /// Takes the next chunk.
    pub(crate) fn feed(&mut self, chunk: &[u8]) {
        let at = self.seen;
        self.seen += chunk.len();
        if self.invalid.is_some() {
            return;
        }
        if self.nul.is_none() {
            self.nul = memchr::memchr(0, chunk).map(|i| at + i);
        }
        // Only the bytes of a cut character are carried over: the chunk is
        // validated where it lies.
        let mut start = 0;
        if !self.pending.is_empty() {
            let need = char_len(self.pending[0]).saturating_sub(self.pending.len());
            let take = need.min(chunk.len());
            self.pending.extend_from_slice(&chunk[..take]);
            start = take;
            let from = at - (self.pending.len() - take);
            match std::str::from_utf8(&self.pending) {
                Ok(_) => self.pending.clear(),
                Err(e) if e.error_len().is_none() && take == chunk.len() => return,
                Err(_) => {
                    self.invalid = Some(from);
                    return;
                }
            }
        }
        if let Err(e) = std::str::from_utf8(&chunk[start..]) {
            let bad = at + start + e.valid_up_to();
            match e.error_len() {
                // A character cut by the chunk's end: wait for the rest.
                None => self.pending = chunk[start + e.valid_up_to()..].to_vec(),
                Some(_) => self.invalid = Some(bad),
            }
        }
    }

    /// The kind of everything fed.
    pub(crate) fn finish(self) -> ContentKind {
        let cut = (!self.pending.is_empty()).then(|| self.seen - self.pending.len());
        match (self.invalid.or(cut), self.nul) {
            (Some(at), _) => ContentKind::Binary {
                reason: NotText::InvalidUtf8,
                offset: at as u64,
            },
            (None, Some(at)) => ContentKind::Binary {
                reason: NotText::Nul,
                offset: at as u64,
            },
            (None, None) => ContentKind::Text,
        }
    }
}

/// The length of the UTF-8 character that `lead` starts (1 for a byte that
/// starts none: the validation then refuses it).
fn char_len(lead: u8) -> usize {
    match lead {
        0xc0..=0xdf => 2,
        0xe0..=0xef => 3,
        0xf0..=0xf7 => 4,
        _ => 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn binary(reason: NotText, offset: u64) -> ContentKind {
        ContentKind::Binary { reason, offset }
    }

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

    fn cases() -> Vec<(Vec<u8>, ContentKind)> {
        vec![
            (Vec::new(), ContentKind::Text),
            (b"plain text\n".to_vec(), ContentKind::Text),
            // Control characters other than NUL are text.
            (b"a\tb\r\n\x1b[0m\x7f".to_vec(), ContentKind::Text),
            ("é ✅ 𝄞".as_bytes().to_vec(), ContentKind::Text),
            (b"text\x00more".to_vec(), binary(NotText::Nul, 4)),
            (b"PNG\x89\xff\x00".to_vec(), binary(NotText::InvalidUtf8, 3)),
            // Invalid UTF-8 wins over an earlier NUL.
            (b"\x00ok\xff".to_vec(), binary(NotText::InvalidUtf8, 3)),
            // A character cut at the end, an overlong form, a surrogate.
            (b"ok\xe2\x9c".to_vec(), binary(NotText::InvalidUtf8, 2)),
            (b"\xc0\xaf".to_vec(), binary(NotText::InvalidUtf8, 0)),
            (b"ab\xed\xa0\x80".to_vec(), binary(NotText::InvalidUtf8, 2)),
            (random(4096, 7), binary(NotText::InvalidUtf8, 0)),
        ]
    }

    #[test]
    fn text_is_valid_utf8_without_a_nul_byte() {
        for (bytes, want) in cases() {
            assert_eq!(ContentKind::of(&bytes), want, "{bytes:?}");
            assert_eq!(ContentKind::of(&bytes).is_text(), want == ContentKind::Text);
        }
        // Random bytes are binary whatever the seed.
        for seed in 0..64 {
            assert!(
                !ContentKind::of(&random(1024, seed)).is_text(),
                "seed {seed}"
            );
        }
    }

    #[test]
    fn fed_in_chunks_the_kind_is_the_kind_of_the_whole() {
        let mut all = cases();
        // Characters of every length across every cut.
        all.push(("aé✅𝄞".repeat(20).into_bytes(), ContentKind::Text));
        let mut cut_late = "é✅𝄞".repeat(10).into_bytes();
        cut_late.extend_from_slice(b"\xf0\x9d\x84");
        all.push((cut_late.clone(), ContentKind::of(&cut_late)));
        for (bytes, want) in all {
            for size in [1, 2, 3, 5, 7, 64, 4096] {
                let mut check = KindCheck::default();
                bytes.chunks(size).for_each(|c| check.feed(c));
                assert_eq!(check.finish(), want, "{bytes:?} in chunks of {size}");
            }
        }
    }

    #[test]
    fn the_reasons_are_the_error_s_words() {
        assert_eq!(NotText::InvalidUtf8.as_str(), "invalid UTF-8");
        assert_eq!(NotText::Nul.as_str(), "a NUL byte");
    }
}
