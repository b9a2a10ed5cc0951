//! Threat regexes for instructions written in other languages: Spanish, French, German,
//! Portuguese, Italian, Russian, Chinese, Japanese, Dutch and Polish. Each language has the
//! same four intents as the English patterns they join, one module an intent: ignore the
//! previous instructions (`ignore`, for `ignore_instructions`), you are now / from now on you
//! are (`new`, for `new_instructions`), do not tell the user (`hide`, for `hide_from_user`) and
//! send the key to a destination (`exfil`, for `exfiltration`); here what they share.
//!
//! These regexes run in Unicode mode (`(?i)` folds Cyrillic and accented capitals) on the
//! threat views; their keywords are lower-case and checked against the view's Unicode
//! lower-casing. They use no `\b` and no `\p{…}` classes: a Unicode word boundary makes the lazy
//! DFA give up on non-Latin text, and large classes repeated by a bound make large automata.
//! Word starts are spelt out (`(?:^|[\s"'(…])`), words are runs of `[^\s.,;:!?]`, and every
//! filler is bounded.

use super::Re;

const fn ure(src: &'static str, keys: &'static [&'static [&'static str]]) -> Re {
    Re {
        src,
        keys,
        unicode: true,
    }
}

/// The start of a word.
macro_rules! ws {
    () => {
        r#"(?:^|[\s"'(\[¿¡«,;:—–-])"#
    };
}
/// Up to `$n` whole words and the space after each.
macro_rules! words {
    ($n:literal) => {
        concat!(r"(?:[^\s.,;:!?]{1,24}\s+){0,", $n, "}?")
    };
}
/// The end of a word.
macro_rules! we {
    () => {
        r"(?:$|[\s.,;:!?)»])"
    };
}

/// A destination for a leaked key: a URL, an e-mail address or host name, a webhook or paste
/// site.
macro_rules! dest {
    () => {
        r"(?:https?://|[a-z0-9._%+-]+@[a-z0-9-]+\.|[a-z0-9-]+\.(?:com|net|org|io|xyz|ru|cn|de|fr|it|es|br|jp|tk|top|site|app|dev|me|co|sh)(?:$|[/\s:,.])|webhook|pastebin|ngrok)"
    };
}

const DEST: &[&str] = &[
    "http", "@", ".com", ".net", ".org", ".io", ".xyz", ".ru", ".cn", ".de", ".fr", ".it", ".es",
    ".br", ".jp", ".tk", ".top", ".site", ".app", ".dev", ".me", ".co", ".sh", "webhook",
    "pastebin", "ngrok",
];

mod exfil;
mod hide;
mod ignore;
mod new;

pub(super) use exfil::EXFIL;
pub(super) use hide::HIDE;
pub(super) use ignore::IGNORE;
pub(super) use new::NEW;
