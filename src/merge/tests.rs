//! The merge's cases: the spec-like fixtures of `fixtures/merge/cases/`,
//! the calibration of the edit-similarity threshold on the labelled pairs of
//! `fixtures/merge/pairs.json`, a property test over random edits on two
//! branches, and hostile input.

use std::collections::BTreeMap;
use std::path::Path;

use proptest::prelude::*;

use super::*;
use crate::model::entry_id;

/// One case file: its settings and sections.
struct Case {
    name: String,
    path: String,
    conflicts: usize,
    sections: BTreeMap<String, String>,
}

fn read_case(file: &Path) -> Case {
    let src = std::fs::read_to_string(file).unwrap();
    let mut case = Case {
        name: file.file_name().unwrap().to_string_lossy().into_owned(),
        path: "MEMORY.md".into(),
        conflicts: 0,
        sections: BTreeMap::new(),
    };
    let mut current: Option<(String, bool, String)> = None;
    let done = |c: Option<(String, bool, String)>, case: &mut Case| {
        if let Some((name, no_eol, mut text)) = c {
            if no_eol {
                let t = text.trim_end_matches(['\n', '\r']).len();
                text.truncate(t);
            }
            case.sections.insert(name, text);
        }
    };
    for line in src.split_inclusive('\n') {
        if let Some(head) = line.strip_prefix("==> ") {
            done(current.take(), &mut case);
            let head = head.trim();
            let (name, no_eol) = match head.strip_suffix(" -eol") {
                Some(n) => (n, true),
                None => (head, false),
            };
            current = Some((name.to_owned(), no_eol, String::new()));
        } else if let Some((_, _, text)) = current.as_mut() {
            text.push_str(line);
        } else if let Some(p) = line.strip_prefix("path: ") {
            case.path = p.trim().to_owned();
        } else if let Some(n) = line.strip_prefix("conflicts: ") {
            case.conflicts = n.trim().parse().unwrap();
        }
    }
    done(current.take(), &mut case);
    case
}

#[test]
fn the_cases_of_fixtures_merge_cases() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/merge/cases");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "md") && !p.ends_with("README.md"))
        .collect();
    files.sort();
    let mut failures = Vec::new();
    for f in &files {
        let c = read_case(f);
        let get = |k: &str| {
            c.sections
                .get(k)
                .unwrap_or_else(|| panic!("{}: no {k} section", c.name))
                .as_str()
        };
        let m = merge_path(Some(&c.path), get("base"), get("ours"), get("theirs"));
        if m.text != get("expected") || m.conflicts.len() != c.conflicts {
            failures.push(format!(
                "{}: conflicts {:?} (want {})\n--- got\n{}--- want\n{}",
                c.name,
                m.conflicts,
                c.conflicts,
                m.text,
                get("expected")
            ));
        }
        // Clean means no markers; markers mean a text conflict.
        assert_eq!(m.is_clean(), !m.text.contains("<<<<<<< "), "{}", c.name);
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(files.len() >= 15, "{} cases", files.len());
}

/// Pairs of texts.
type Pairs = Vec<(String, String)>;

/// The labelled pairs of `fixtures/merge/pairs.json`: edits, look-alikes.
fn labelled_pairs() -> (Pairs, Pairs) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/merge/pairs.json");
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let pairs = |k: &str| -> Pairs {
        v[k].as_array()
            .unwrap()
            .iter()
            .map(|p| {
                (
                    p[0].as_str().unwrap().to_owned(),
                    p[1].as_str().unwrap().to_owned(),
                )
            })
            .collect()
    };
    (pairs("edits"), pairs("lookalikes"))
}

/// Precision and recall of pairing at threshold `t`: an edit pair is found
/// when its similarity reaches `t`; a look-alike pair that reaches it is a
/// false pairing.
fn precision_recall(edits: &[f64], lookalikes: &[f64], t: f64) -> (f64, f64) {
    let tp = edits.iter().filter(|&&s| s >= t).count() as f64;
    let fp = lookalikes.iter().filter(|&&s| s >= t).count() as f64;
    let precision = if tp + fp == 0.0 { 1.0 } else { tp / (tp + fp) };
    (precision, tp / edits.len() as f64)
}

/// The threshold's calibration: the table of docs/GIT.md
/// (`cargo test --lib calibration -- --nocapture` prints it), and the
/// figures at the chosen threshold.
#[test]
fn calibration_of_the_edit_similarity_threshold() {
    let (edits, lookalikes) = labelled_pairs();
    assert!(edits.len() >= 60 && lookalikes.len() >= 60);
    let es: Vec<f64> = edits.iter().map(|(a, b)| similarity(a, b)).collect();
    let ls: Vec<f64> = lookalikes.iter().map(|(a, b)| similarity(a, b)).collect();
    println!("{} edit pairs, {} look-alike pairs", es.len(), ls.len());
    println!("| threshold | precision | recall | F1 |");
    let mut best = (0.0, 0.0);
    for step in 1..=19 {
        let t = f64::from(step) * 0.05;
        let (p, r) = precision_recall(&es, &ls, t);
        let f1 = if p + r == 0.0 {
            0.0
        } else {
            2.0 * p * r / (p + r)
        };
        println!("| {t:.2} | {p:.3} | {r:.3} | {f1:.3} |");
        if f1 > best.1 + 1e-9 {
            best = (t, f1);
        }
    }
    println!("best F1 {:.3} at {:.2}", best.1, best.0);
    let (p, r) = precision_recall(&es, &ls, EDIT_SIMILARITY);
    println!("chosen {EDIT_SIMILARITY}: precision {p:.3}, recall {r:.3}");
    // The figures docs/GIT.md states: 63 of 68 edits paired, 4 of 75
    // look-alikes paired by mistake.
    assert_eq!(es.iter().filter(|&&s| s >= EDIT_SIMILARITY).count(), 63);
    assert_eq!(ls.iter().filter(|&&s| s >= EDIT_SIMILARITY).count(), 4);
    assert!(p > 0.93 && r > 0.92, "precision {p}, recall {r}");
    for ((a, b), s) in edits.iter().zip(&es).filter(|(_, s)| **s < EDIT_SIMILARITY) {
        println!("missed edit {s:.2}: {a:?} -> {b:?}");
    }
    for ((a, b), s) in lookalikes
        .iter()
        .zip(&ls)
        .filter(|(_, s)| **s >= EDIT_SIMILARITY)
    {
        println!("false pair {s:.2}: {a:?} ~ {b:?}");
    }
}

#[test]
fn kinds_by_name_and_by_content() {
    assert_eq!(Kind::of_path("MEMORY.md"), Some(Kind::Store(Scope::Memory)));
    assert_eq!(
        Kind::of_path("memory/agt_a/USER.md"),
        Some(Kind::Store(Scope::User))
    );
    assert_eq!(Kind::of_path("a\\archive.md"), Some(Kind::Archive));
    assert_eq!(Kind::of_path("episodes.md"), Some(Kind::Episodes));
    assert_eq!(Kind::of_path("notes.md"), None);
    assert_eq!(Kind::of_path("mem/LEARNINGS.md"), Some(Kind::Learnings));
    assert_eq!(
        Kind::of_path("mem/learnings/proposals.md"),
        Some(Kind::Learnings)
    );
    assert_eq!(Kind::of_path("agt_a/proposals.md"), None);
    let store = "- Prefers tea <!-- memdir created=2026-11-29T09:00:00Z -->\n";
    let archive = "- Old <!-- memdir scope=memory archived=2026-11-29T09:00:00Z kind=plain -->\n";
    let journal = "## 2026-11-29\n\n- 09:00 started\n";
    assert_eq!(Kind::sniff("", store, ""), Kind::Store(Scope::Memory));
    assert_eq!(Kind::sniff(archive, archive, ""), Kind::Archive);
    assert_eq!(Kind::sniff("", journal, journal), Kind::Episodes);
    assert_eq!(Kind::sniff("a\n", "b\n", "- plain list\n"), Kind::Text);
    // A named file that is none of memdir's merges as text.
    let m = merge_path(Some("notes.md"), "", store, store);
    assert_eq!(m.text, store);
}

#[test]
fn a_conflict_names_the_base_id_and_is_not_marked_twice() {
    let base_text = "Prefers weekly summaries, no emojis";
    assert_eq!(entry_id("user", base_text), "mem_a38c1aa19099");
    // Merging the merged file with itself changes nothing.
    let m = merge_path(
        Some("USER.md"),
        &format!("- {base_text}\n"),
        "- Prefers monthly summaries, no emojis\n",
        "- Prefers weekly summaries, no emojis, in French\n",
    );
    assert_eq!(m.conflicts.len(), 1);
    assert!(m.is_clean());
    let again = merge_path(Some("USER.md"), &m.text, &m.text, &m.text);
    assert_eq!(again.text, m.text);
    assert!(again.conflicts.is_empty());
    // Both marked versions read back with `conflict` in their metadata.
    let d = crate::markdown::parse(Scope::User, &m.text);
    assert_eq!(d.entries.len(), 2);
    for e in &d.entries {
        assert_eq!(
            e.metadata(&m.text).conflict.as_deref(),
            Some("mem_a38c1aa19099")
        );
    }
}

#[test]
fn the_learnings_merge_as_a_store_with_their_own_ids() {
    let base = "# Learnings\n\n- Deploys need the VPN <!-- memdir person=ann -->\n";
    let ours = format!("{base}- Releases are tagged on main <!-- memdir person=ann -->\n");
    let theirs = format!("{base}- Invoices go out monthly <!-- memdir person=bob -->\n");
    let m = merge_path(Some("mem/LEARNINGS.md"), base, &ours, &theirs);
    assert!(m.is_clean() && m.conflicts.is_empty(), "{m:?}");
    assert_eq!(
        m.text,
        format!("{ours}- Invoices go out monthly <!-- memdir person=bob -->\n")
    );
    // Edited differently on both sides: both kept, marked with the
    // learning's own id (over the learnings' scope, not a store's).
    let text = "Deploys need the VPN";
    let id = entry_id(crate::model::LEARNING_ID_SCOPE, text);
    assert_ne!(id, entry_id("memory", text));
    let m = merge_path(
        Some("LEARNINGS.md"),
        base,
        "# Learnings\n\n- Deploys need the VPN and a hardware key\n",
        "# Learnings\n\n- Deploys need the VPN from the office\n",
    );
    assert!(m.is_clean(), "{m:?}");
    assert_eq!(
        m.text.matches(&format!("conflict={id}")).count(),
        2,
        "{}",
        m.text
    );
}

/// Text made of the pieces markdown, memdir's comments and git's markers
/// are made of, in any order.
fn hostile_text() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just("- ".to_owned()),
        Just("* ".to_owned()),
        Just("1. ".to_owned()),
        Just("  ".to_owned()),
        Just("\t".to_owned()),
        Just("\n".to_owned()),
        Just("\r\n".to_owned()),
        Just("\r".to_owned()),
        Just("## 2026-11-29\n".to_owned()),
        Just("# Archive\n".to_owned()),
        Just("---\n".to_owned()),
        Just("```\n".to_owned()),
        Just("<!-- memdir created=2026-11-29T09:00:00Z -->".to_owned()),
        Just(
            "<!-- memdir scope=memory archived=2026-11-29T09:00:00Z conflict=mem_0 -->".to_owned()
        ),
        Just("<<<<<<< ours\n".to_owned()),
        Just("=======\n".to_owned()),
        Just(">>>>>>> theirs\n".to_owned()),
        Just("09:15 ".to_owned()),
        Just("\u{feff}".to_owned()),
        Just("> ".to_owned()),
        "[a-zé \u{3000}]{0,12}",
    ];
    proptest::collection::vec(piece, 0..40).prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    /// Any text, as any kind of file: the merge answers, never panics, and
    /// merging a file with itself gives it back.
    #[test]
    fn hostile_input_never_panics(b in hostile_text(), o in hostile_text(), t in hostile_text()) {
        for kind in [Kind::Store(Scope::Memory), Kind::Archive, Kind::Episodes, Kind::Text] {
            let m = merge_as(kind, &b, &o, &t);
            prop_assert_eq!(m.is_clean(), !m.conflicts.iter().any(|c| matches!(c, Conflict::Text { .. })));
            let same = merge_as(kind, &o, &o, &o);
            prop_assert_eq!(&same.text, &o, "{:?}", kind);
        }
        let _ = merge(&b, &o, &t);
    }
}

/// Found by the property test: ours mixes line endings and ends without
/// one, so the assembled text's last line ending is not ours' first; the
/// merge answered by panicking on a slice of the wrong length.
#[test]
fn a_side_mixing_line_endings_that_ends_without_one_merges() {
    let b = "- ";
    let o = "\r\n09:15 \n- \u{feff}\r<!-- memdir created=2026-11-29T09:00:00Z -->";
    let t = "## 2026-11-29\n";
    for kind in [
        Kind::Store(Scope::Memory),
        Kind::Archive,
        Kind::Episodes,
        Kind::Text,
    ] {
        let m = merge_as(kind, b, o, t);
        assert!(!m.text.is_empty() || m.is_clean(), "{kind:?}");
        assert_eq!(merge_as(kind, o, o, o).text, o, "{kind:?}");
    }
}

/// Found by the `merge` fuzz target: the plain-text last resort of a store
/// merge can be clean and still read back as entries no side had as often.
/// Then the whole file is left in conflict instead.
#[test]
fn a_last_resort_text_merge_that_reads_back_as_other_entries_is_a_conflict() {
    let rules = store::Rules::Store(Scope::Memory.name());
    let base = "intro\n";
    let ours = "- dup\n\nintro\n";
    let theirs = "intro\n\n- dup\n";
    // As plain text the two insertions merge cleanly, into two entries.
    assert!(text_merge(base, ours, theirs).is_clean());
    let m = store::last_resort(rules, base, ours, theirs);
    assert!(!m.is_clean());
    assert_eq!(
        m.text,
        "<<<<<<< ours\n- dup\n\nintro\n=======\nintro\n\n- dup\n>>>>>>> theirs\n"
    );
    assert_eq!(
        m.conflicts,
        vec![Conflict::Text {
            first_line: 1,
            last_line: 9
        }]
    );
    // A clean text merge that reads back as the sides' entries stands.
    let (base, ours, theirs) = ("- a\n\nnote\n", "- a\n\nnote, ours\n", "- a\n- b\n\nnote\n");
    let m = store::last_resort(rules, base, ours, theirs);
    assert!(m.is_clean(), "{m:?}");
    assert_eq!(m.text, "- a\n- b\n\nnote, ours\n");
}
