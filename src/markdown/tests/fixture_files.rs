//! Hand-written store files (`fixtures/files/NAME.md`), each with the entries
//! it holds, one edit and the exact bytes the edit must give
//! (`NAME.expect.json`).
//!
//! The files are kept byte for byte (`fixtures/files/.gitattributes` turns off
//! git's line-ending conversion), so CRLF and BOM files stay what they are.

use std::fs;
use std::ops::Range;
use std::path::{Path, PathBuf};

use super::shim::{Document, append, normalize_text, parse, remove, replace};
use serde::Deserialize;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Expect {
    scope: String,
    entries: Vec<ExpectEntry>,
    edit: Edit,
    result: String,
}

#[derive(Deserialize, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
struct ExpectEntry {
    id: String,
    text: String,
}

#[derive(Deserialize)]
#[serde(tag = "op", rename_all = "lowercase", deny_unknown_fields)]
enum Edit {
    Replace { index: usize, text: String },
    Remove { index: usize },
    Add { text: String },
}

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/files")
}

/// The fixture names: every `NAME.md` (with its `NAME.expect.json`).
fn names() -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir())
        .expect("read fixtures/files")
        .map(|e| {
            e.expect("dir entry")
                .file_name()
                .into_string()
                .expect("utf-8 name")
        })
        .filter_map(|n| n.strip_suffix(".md").map(str::to_owned))
        .collect();
    names.sort();
    names
}

/// Whether `short` is `long` without one run of bytes that holds `keep` and,
/// around it, only line endings.
fn is_one_cut(long: &str, short: &str, keep: &Range<usize>) -> bool {
    let Some(len) = long.len().checked_sub(short.len()) else {
        return false;
    };
    let eols = |s: &[u8]| s.iter().all(|&b| b == b'\n' || b == b'\r');
    (0..=keep.start)
        .rev()
        .take_while(|&a| eols(&long.as_bytes()[a..keep.start]))
        .any(|a| {
            let b = a + len;
            b >= keep.end
                && b <= long.len()
                && long.is_char_boundary(b)
                && eols(&long.as_bytes()[keep.end..b])
                && long[..a].len() + long[b..].len() == short.len()
                && short.starts_with(&long[..a])
                && short.ends_with(&long[b..])
        })
}

/// Checks that `out` differs from `src` only where `edit` may change it.
fn check_locality(name: &str, src: &str, doc: &Document, out: &str, edit: &Edit, scope: &str) {
    match edit {
        Edit::Replace { index, .. } => {
            let item = &doc.entries[*index].item;
            assert_eq!(
                out[..item.start],
                src[..item.start],
                "{name}: bytes before the entry changed"
            );
            assert!(
                out.ends_with(&src[item.end..]),
                "{name}: bytes after the entry changed"
            );
        }
        Edit::Remove { index } => {
            // One run of bytes went: the entry's, and line endings only.
            let item = &doc.entries[*index].item;
            assert!(
                is_one_cut(src, out, item),
                "{name}: the removal took more than the entry's lines"
            );
        }
        Edit::Add { text } => {
            // One run of bytes came: the new entry's, and line endings only.
            let after = parse(scope, out);
            let new = after
                .entries
                .iter()
                .find(|e| e.text == *text)
                .unwrap_or_else(|| panic!("{name}: no new entry"));
            assert!(
                is_one_cut(out, src, &new.item),
                "{name}: the append added more than the entry's lines"
            );
        }
    }
}

fn run(name: &str) {
    let src = fs::read_to_string(dir().join(format!("{name}.md"))).expect("read the fixture");
    let json =
        fs::read_to_string(dir().join(format!("{name}.expect.json"))).expect("read expect.json");
    let expect: Expect = serde_json::from_str(&json).expect("parse expect.json");
    let scope = expect.scope.as_str();
    assert!(
        scope == "memory" || scope == "user",
        "{name}: scope {scope}"
    );

    let doc = parse(scope, &src);
    let got: Vec<ExpectEntry> = doc
        .entries
        .iter()
        .map(|e| ExpectEntry {
            id: e.id.clone(),
            text: e.text.clone(),
        })
        .collect();
    assert_eq!(got, expect.entries, "{name}: entries");
    assert_eq!(doc.bom, src.starts_with('\u{feff}'), "{name}: bom");
    let crlf = src.contains("\r\n");
    assert_eq!(doc.eol, if crlf { "\r\n" } else { "\n" }, "{name}: eol");

    let out = match &expect.edit {
        Edit::Replace { index, text } => {
            assert_eq!(
                normalize_text(text),
                *text,
                "{name}: edit text not normalised"
            );
            replace(scope, &src, &doc, *index, text)
        }
        Edit::Remove { index } => remove(&src, &doc, *index),
        Edit::Add { text } => {
            assert_eq!(
                normalize_text(text),
                *text,
                "{name}: edit text not normalised"
            );
            append(scope, &src, &doc, text, None)
        }
    }
    .unwrap_or_else(|e| panic!("{name}: the edit was refused: {e:?}"));
    assert_eq!(out, expect.result, "{name}: result");
    check_locality(name, &src, &doc, &out, &expect.edit, scope);

    // The result reads back as the entries the edit should leave.
    let mut want: Vec<String> = doc.entries.iter().map(|e| e.text.clone()).collect();
    match &expect.edit {
        Edit::Replace { index, text } => want[*index] = text.clone(),
        Edit::Remove { index } => {
            want.remove(*index);
        }
        Edit::Add { text } => {
            let at = parse(scope, &out)
                .entries
                .iter()
                .position(|e| e.text == *text)
                .expect("the new entry");
            want.insert(at, text.clone());
        }
    }
    let after: Vec<String> = parse(scope, &out)
        .entries
        .iter()
        .map(|e| e.text.clone())
        .collect();
    assert_eq!(after, want, "{name}: entries after the edit");
}

#[test]
fn fixture_files() {
    let names = names();
    assert!(names.len() >= 10, "at least ten fixtures, found {names:?}");
    for name in &names {
        assert!(
            dir().join(format!("{name}.expect.json")).exists(),
            "{name}.md has no {name}.expect.json"
        );
        run(name);
    }
    println!("fixture files: {} checked", names.len());
}

/// The fixtures cover what people write: check the files really have it.
#[test]
fn fixtures_cover_the_cases() {
    let all: Vec<(String, String)> = names()
        .into_iter()
        .map(|n| {
            let src = fs::read_to_string(dir().join(format!("{n}.md"))).expect("read");
            (n, src)
        })
        .collect();
    let has = |what: &str, f: &dyn Fn(&str) -> bool| {
        assert!(all.iter().any(|(_, s)| f(s)), "no fixture has {what}");
    };
    has("CRLF line endings", &|s| s.contains("\r\n"));
    has("a BOM", &|s| s.starts_with('\u{feff}'));
    has("`*` bullets", &|s| {
        s.contains("\n* ") || s.starts_with("* ")
    });
    has("`+` bullets", &|s| s.contains("\n+ "));
    has("`1.` lists", &|s| s.contains("1. "));
    has("`1)` lists", &|s| s.contains("1) "));
    has("front matter with a budget", &|s| {
        s.trim_start_matches('\u{feff}').starts_with("---") && s.contains("budget:")
    });
    has("a fenced code block", &|s| s.contains("```"));
    has("an indented code block", &|s| s.contains("\n    - "));
    has("a nested list", &|s| s.contains("\n  - "));
    has("non-ASCII text", &|s| {
        !s.trim_start_matches('\u{feff}').is_ascii()
    });
    has("an HTML comment", &|s| {
        s.match_indices("<!--")
            .any(|(i, _)| !s[i..].starts_with("<!-- memdir"))
    });
    has("a metadata comment", &|s| s.contains("<!-- memdir"));
    has("no final newline", &|s| !s.ends_with('\n'));
    has("headings between entries", &|s| s.contains("\n## "));
}
