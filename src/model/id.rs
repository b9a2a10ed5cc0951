//! Ids: validation of owner, workflow, task and run ids, entry ids, and the
//! id of a date's day row.

use chrono::NaiveDate;
use sha2::{Digest, Sha256};

use crate::error::{Error, Result};

/// Longest owner, workflow, task or run id.
pub const MAX_ID_LEN: usize = 128;

/// The form every id takes, as an error says it.
const ID_FORM: &str = "use 1-128 characters of [A-Za-z0-9._-], starting with a letter or digit";

/// Names Windows reserves for devices, with or without an extension (`CON`,
/// `nul.txt`): a folder or file of that name cannot exist there.
const RESERVED: [&str; 22] = [
    "CON", "PRN", "AUX", "NUL", "COM1", "COM2", "COM3", "COM4", "COM5", "COM6", "COM7", "COM8",
    "COM9", "LPT1", "LPT2", "LPT3", "LPT4", "LPT5", "LPT6", "LPT7", "LPT8", "LPT9",
];

/// The names memdir keeps, or will keep, at a memory root beside the
/// owners' folders: an owner (or agent) id equal to one of them, compared
/// case-insensitively, is `invalid_id`, so that no owner's folder ever
/// takes the place of the root's own files. (An id starting with a dot is
/// refused by the id's form already.)
pub const RESERVED_ROOT_NAMES: [&str; 11] = [
    "memdir.yaml",
    ".memdir",
    "results",
    ".gitattributes",
    ".gitignore",
    "learnings",
    "LEARNINGS.md",
    "skills",
    "persons",
    "keys.yaml",
    "README.md",
];

/// Whether `name` is one of [`RESERVED_ROOT_NAMES`] (case-insensitively).
pub fn is_reserved_root_name(name: &str) -> bool {
    RESERVED_ROOT_NAMES
        .iter()
        .any(|r| r.eq_ignore_ascii_case(name))
}

/// Checks that `value` is a safe and portable id: 1–128 characters of
/// `[A-Za-z0-9._-]`, starting with a letter or digit, not ending in a dot,
/// and not a name Windows reserves for a device (`CON`, `NUL`, `COM1`,
/// `LPT1`, …, also with an extension). `kind` names it in the error; an
/// `owner` or `agent` id is also not one of the root's own names
/// ([`RESERVED_ROOT_NAMES`]).
///
/// Such an id can never be `.`, `..`, absolute, or contain a separator, so it
/// is safe as a single path component; and memory folders travel through
/// git, so an id must name the same file on every system. (That it does not
/// differ only by case from an existing sibling is checked where the sibling
/// is known: see `validate_new_id`.)
pub fn validate_id(kind: &'static str, value: &str) -> Result<()> {
    let invalid = |reason: &str| {
        Err(Error::InvalidId {
            kind,
            value: value.to_owned(),
            reason: reason.to_owned(),
        })
    };
    let ok = !value.is_empty()
        && value.len() <= MAX_ID_LEN
        && value.as_bytes()[0].is_ascii_alphanumeric()
        && value
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'));
    if !ok {
        return invalid(ID_FORM);
    }
    if value.ends_with('.') {
        return invalid("an id cannot end in a dot (Windows drops it from file names)");
    }
    let stem = value.split('.').next().unwrap_or(value);
    if RESERVED.iter().any(|r| r.eq_ignore_ascii_case(stem)) {
        return invalid(
            "CON, PRN, AUX, NUL, COM1-9 and LPT1-9 (with or without an extension) are device names on Windows; choose another id",
        );
    }
    if matches!(kind, "owner" | "agent") && is_reserved_root_name(value) {
        return invalid(&format!(
            "{value:?} is a name memdir keeps at the memory root ({}; compared ignoring case); choose another id",
            RESERVED_ROOT_NAMES.join(", ")
        ));
    }
    Ok(())
}

/// Checks a new id against the names already beside it (`siblings`: the
/// folder's entries, each compared after removing `suffix`): an id that
/// differs from one of them only by case is refused, since the two would
/// be one file on a case-insensitive file system (macOS, Windows) that a
/// clone of the memory folder may live on.
pub fn validate_new_id<'a>(
    kind: &'static str,
    value: &str,
    suffix: &str,
    siblings: impl IntoIterator<Item = &'a str>,
) -> Result<()> {
    validate_id(kind, value)?;
    for name in siblings {
        let Some(other) = name.strip_suffix(suffix) else {
            continue;
        };
        if other != value && other.eq_ignore_ascii_case(value) {
            return Err(Error::InvalidId {
                kind,
                value: value.to_owned(),
                reason: format!(
                    "{other:?} exists beside it and differs only by case; on a case-insensitive file system both are one; use {other:?}"
                ),
            });
        }
    }
    Ok(())
}

/// Folds `text` for id computation: outer whitespace trimmed, inner runs of
/// whitespace folded to one space.
pub fn fold_whitespace(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for word in text.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

/// What a learning's id is computed over, beside its folded text (the
/// root's `LEARNINGS.md` and `learnings/proposals.md`; a store's entries
/// are over their scope's name).
pub const LEARNING_ID_SCOPE: &str = "learning";

/// What the entries of an owner's `PENDING.md` (the writes that wait for a
/// person) are paired by in a merge, beside their folded text.
pub const PENDING_ID_SCOPE: &str = "pending";

/// A pending write's id: `pnd_` plus the first 12 hex digits of the
/// SHA-256 [`entry_id`] takes over [`PENDING_ID_SCOPE`] and `seed`.
pub fn pending_id(seed: &str) -> String {
    let id = entry_id(PENDING_ID_SCOPE, seed);
    format!("pnd_{}", id.get(4..).unwrap_or_default())
}

/// Whether `s` looks like a pending write's id (`pnd_` and 12 lowercase
/// hex digits).
pub fn is_pending_id(s: &str) -> bool {
    s.len() == 16
        && s.starts_with("pnd_")
        && s[4..]
            .bytes()
            .all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// The id of an entry: `mem_` plus the first 12 hex digits of
/// SHA-256(`scope` + `"\n"` + folded text).
pub fn entry_id(scope: &str, text: &str) -> String {
    let mut h = Sha256::new();
    h.update(scope.as_bytes());
    h.update(b"\n");
    // Most texts are folded already (one line, single spaces): hashed as they
    // are, in one call. This runs per entry on every parse that needs ids.
    if is_folded(text) {
        h.update(text.as_bytes());
    } else {
        h.update(fold_whitespace(text).as_bytes());
    }
    let digest = h.finalize();
    let mut out = *b"mem_000000000000";
    // Six bytes give exactly twelve hex digits; the slice lengths match.
    let _ = hex::encode_to_slice(&digest[..6], &mut out[4..]);
    String::from_utf8_lossy(&out).into_owned()
}

/// The id of a date's day row: an entry id over scope `day` and the date.
pub fn day_id(date: NaiveDate) -> String {
    entry_id("day", &date.format("%Y-%m-%d").to_string())
}

/// Whether [`fold_whitespace`] would give `text` back unchanged: no
/// whitespace but single spaces between words.
fn is_folded(text: &str) -> bool {
    let mut after_space = true; // a leading space is not folded
    for c in text.chars() {
        if c == ' ' {
            if after_space {
                return false;
            }
            after_space = true;
        } else if c.is_whitespace() {
            return false;
        } else {
            after_space = false;
        }
    }
    !after_space || text.is_empty()
}

/// Whether `s` looks like an entry id (`mem_` and 12 lowercase hex digits).
pub fn is_entry_id(s: &str) -> bool {
    s.len() == 16
        && s.starts_with("mem_")
        && s[4..]
            .bytes()
            .all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn owner_ids_are_not_the_roots_own_names() {
        for name in RESERVED_ROOT_NAMES.iter().filter(|n| !n.starts_with('.')) {
            let upper = name.to_uppercase();
            for v in [*name, upper.as_str()] {
                for kind in ["owner", "agent"] {
                    let e = validate_id(kind, v).unwrap_err();
                    assert_eq!(e.code().as_str(), "invalid_id", "{kind} {v}");
                    assert!(e.to_string().contains("memory root"), "{e}");
                }
            }
            // Elsewhere (a workflow, a task) the name is an id like any.
            assert!(validate_id("workflow", name).is_ok(), "{name}");
        }
        assert!(validate_id("owner", ".memdir").is_err());
        assert!(validate_id("owner", "results2").is_ok());
    }

    #[test]
    fn ids_accept_and_refuse() {
        for ok in ["a", "agt_1", "user.name-2", "9", &"x".repeat(128)] {
            assert!(validate_id("owner", ok).is_ok(), "{ok}");
        }
        for bad in [
            "",
            ".",
            "..",
            "-a",
            "_a",
            ".hidden",
            "a/b",
            "a\\b",
            "/abs",
            "a\0b",
            "a b",
            "é",
            &"x".repeat(129),
            "CON",
            "nul",
            "Com1",
            "lpt9.txt",
            "aux.tar.gz",
            "trailing.",
            "a..",
        ] {
            let err = validate_id("owner", bad).unwrap_err();
            assert_eq!(err.code().as_str(), "invalid_id", "{bad:?}");
        }
        // Reserved only as the whole stem.
        for ok in [
            "console", "nullable", "com10", "lpt", "CONfig", "my.con", "a.b",
        ] {
            assert!(validate_id("owner", ok).is_ok(), "{ok}");
        }
    }

    #[test]
    fn a_case_only_twin_of_a_sibling_is_refused() {
        let names = ["agt_a", "Results", "t1.result", "other.json"];
        assert!(validate_new_id("owner", "agt_b", "", names).is_ok());
        assert!(validate_new_id("owner", "agt_a", "", names).is_ok()); // itself
        let e = validate_new_id("owner", "AGT_A", "", names).unwrap_err();
        assert_eq!(e.code().as_str(), "invalid_id");
        assert!(e.to_string().contains("\"agt_a\""), "{e}");
        assert!(validate_new_id("task", "T1", ".result", names).is_err());
        assert!(validate_new_id("task", "OTHER", ".result", names).is_ok());
    }

    #[test]
    fn entry_ids_fold_whitespace_and_depend_on_scope() {
        let a = entry_id("memory", "Prefers weekly summaries");
        assert_eq!(a, entry_id("memory", "  Prefers\n  weekly\tsummaries \n"));
        assert_ne!(a, entry_id("user", "Prefers weekly summaries"));
        assert!(is_entry_id(&a));
        // A fixed value, so the id rule cannot drift unnoticed (see docs/FORMAT.md).
        let mut h = Sha256::new();
        h.update(b"memory\nPrefers weekly summaries");
        assert_eq!(a, format!("mem_{}", &hex::encode(h.finalize())[..12]));
    }

    #[test]
    fn the_folded_fast_path_agrees_with_folding() {
        for t in [
            "",
            " ",
            "a",
            "a b",
            "a  b",
            " a",
            "a ",
            "a\tb",
            "a\nb",
            "a\u{a0}b",
            "caf\u{e9} au lait",
            "x\u{3000}y",
        ] {
            assert_eq!(is_folded(t), fold_whitespace(t) == t, "{t:?}");
        }
    }

    #[test]
    fn is_entry_id_is_strict() {
        assert!(is_entry_id("mem_0123456789ab"));
        assert!(!is_entry_id("mem_0123456789AB"));
        assert!(!is_entry_id("mem_0123456789a"));
        assert!(!is_entry_id("xyz_0123456789ab"));
    }
}
