//! Every example of the CommonMark spec (0.31.2) as a store file: parsing
//! finds exactly the top-level list items, and append, remove and replace
//! splice only the bytes they concern.
//!
//! The examples are in `fixtures/commonmark/spec-examples.json` (CC-BY-SA 4.0,
//! John MacFarlane; see `fixtures/commonmark/ATTRIBUTION.md`).

use super::oracle::top_level_items;

use std::panic::{AssertUnwindSafe, catch_unwind};

use super::shim::{Document, append, parse, remove, replace};

const SCOPE: &str = "memory";
const PROBE: &str = "memdir corpus probe entry";
const REPLACED: &str = "replaced text";
const REPLACED_LINES: &str = "replaced text\non two lines\n\n- and a list";

#[derive(serde::Deserialize)]
struct Corpus {
    examples: Vec<Example>,
}

#[derive(serde::Deserialize)]
struct Example {
    example: u32,
    section: String,
    markdown: String,
}

fn corpus() -> Corpus {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fixtures/commonmark/spec-examples.json"
    );
    let json = std::fs::read_to_string(path).expect("read the corpus");
    serde_json::from_str(&json).expect("parse the corpus")
}

#[derive(Default)]
struct Tally {
    with_entries: usize,
    after_last: usize,
    end: usize,
    top: usize,
    top_separated: usize,
    top_examples: Vec<String>,
    removed: usize,
    removed_separated: Vec<String>,
    failures: Vec<String>,
}

/// Checks the shape of a parsed document against the source and the
/// independently found items.
fn check_parse(src: &str, doc: &Document) -> Result<(), String> {
    let items = top_level_items(src);
    if doc.entries.len() != items.len() {
        return Err(format!(
            "parse found {} entries, pulldown-cmark has {} top-level items {items:?}; entries {:?}",
            doc.entries.len(),
            items.len(),
            doc.entries
        ));
    }
    let mut prev_end = 0;
    for (i, (e, it)) in doc.entries.iter().zip(&items).enumerate() {
        let ranges = [Some(&e.item), Some(&e.body), e.meta.as_ref()];
        for r in ranges.into_iter().flatten() {
            if r.start > r.end || r.end > src.len() {
                return Err(format!("entry {i}: range {r:?} out of bounds"));
            }
            if !src.is_char_boundary(r.start) || !src.is_char_boundary(r.end) {
                return Err(format!("entry {i}: range {r:?} not on char boundaries"));
            }
            if r.start < e.item.start || r.end > e.item.end {
                return Err(format!("entry {i}: range {r:?} outside item {:?}", e.item));
            }
        }
        if e.item.start < prev_end {
            return Err(format!(
                "entry {i}: item {:?} overlaps the previous",
                e.item
            ));
        }
        if e.body.end > e.meta.as_ref().map_or(e.item.end, |m| m.start) {
            return Err(format!("entry {i}: body {:?} runs into its meta", e.body));
        }
        // The entry's item is pulldown-cmark's item, from its line's start.
        let line_start = src[..it.start].rfind('\n').map_or(0, |p| p + 1);
        let line_start = if line_start == 0 && src.starts_with('\u{feff}') {
            3
        } else {
            line_start
        };
        if e.item.start != line_start || e.item.end > it.end {
            return Err(format!(
                "entry {i}: item {:?} is not pulldown-cmark's item {it:?}",
                e.item
            ));
        }
        if super::shim::normalize_text(&e.text) != e.text {
            return Err(format!("entry {i}: text {:?} is not normalised", e.text));
        }
        prev_end = e.item.end;
    }
    Ok(())
}

/// Whether the entry an append put at the top is closed by the separator
/// comment.
fn separated(out: &str, doc: &Document) -> bool {
    out[doc.entries[0].item.end..]
        .trim_start_matches(['\r', '\n'])
        .starts_with("<!-- memdir -->")
}

fn ids(doc: &Document) -> Vec<&str> {
    doc.entries.iter().map(|e| e.id.as_str()).collect()
}

fn check_example(src: &str, tally: &mut Tally) -> Result<(), String> {
    let doc = parse(SCOPE, src);
    check_parse(src, &doc)?;

    // (b) append leaves the old entries and adds the new one.
    let out = append(SCOPE, src, &doc, PROBE, None).map_err(|e| format!("append: {e:?}"))?;
    let new_doc = parse(SCOPE, &out);
    check_parse(&out, &new_doc).map_err(|e| format!("after append: {e}\n{out:?}"))?;
    let probe_id = super::shim::entry_id(SCOPE, PROBE);
    let old_ids = ids(&doc);
    let got = ids(&new_doc);
    let at = got.iter().position(|id| *id == probe_id);
    let mut want_end = old_ids.clone();
    want_end.push(&probe_id);
    let mut want_top = vec![probe_id.as_str()];
    want_top.extend(&old_ids);
    let new_index = if got == want_end {
        let last = new_doc.entries.len() - 1;
        let after_last = last > 0 && {
            let between =
                &out[new_doc.entries[last - 1].item.end..new_doc.entries[last].item.start];
            between == doc.eol
        };
        if after_last {
            tally.after_last += 1;
        } else if out.starts_with(src) {
            tally.end += 1;
        } else if last == 0 && new_doc.entries[0].item.start == doc.body_start(src) {
            tally.top += 1;
            tally.top_separated += usize::from(separated(&out, &new_doc));
        } else {
            return Err(format!("append placed the entry oddly: {out:?}"));
        }
        last
    } else if got == want_top && new_doc.entries[0].item.start == doc.body_start(src) {
        tally.top += 1;
        tally.top_separated += usize::from(separated(&out, &new_doc));
        0
    } else {
        return Err(format!(
            "append gave ids {got:?} (probe at {at:?}), wanted {old_ids:?} + {probe_id}\n{out:?}"
        ));
    };
    // The old entries keep their bytes.
    let old = new_doc
        .entries
        .iter()
        .enumerate()
        .filter(|&(i, _)| i != new_index);
    for ((_, after), before) in old.zip(&doc.entries) {
        if out[after.item.clone()] != src[before.item.clone()] {
            return Err(format!("append changed entry {:?}: {out:?}", before.text));
        }
    }
    if new_doc.entries[new_index].text != PROBE || !out.contains(PROBE) {
        return Err(format!(
            "appended entry reads {:?}",
            new_doc.entries[new_index].text
        ));
    }

    // (c) removing it gives back the original bytes.
    let back = remove(&out, &new_doc, new_index).map_err(|e| format!("remove: {e:?}"))?;
    if back != src {
        return Err(format!(
            "append then remove gave {back:?}\nappended: {out:?}"
        ));
    }

    // (e) removing any entry leaves the others, byte for byte.
    for i in 0..doc.entries.len() {
        let out = remove(src, &doc, i).map_err(|e| format!("remove of entry {i}: {e:?}"))?;
        let after = parse(SCOPE, &out);
        let others = doc.entries.iter().enumerate().filter(|&(j, _)| j != i);
        if after.entries.len() + 1 != doc.entries.len()
            || others
                .zip(&after.entries)
                .any(|((_, a), b)| src[a.item.clone()] != out[b.item.clone()] || a.id != b.id)
        {
            return Err(format!("remove of entry {i} changed the others: {out:?}"));
        }
        tally.removed += 1;
        if out.matches("<!-- memdir -->").count() > src.matches("<!-- memdir -->").count() {
            tally.removed_separated.push(format!("{i}"));
        }
    }

    // (d) replacing the first entry's text touches only its body.
    if !doc.entries.is_empty() {
        tally.with_entries += 1;
        check_replace(src, &doc, 0, REPLACED)?;
        check_replace(src, &doc, 0, REPLACED_LINES)?;
        check_replace(src, &doc, doc.entries.len() - 1, REPLACED_LINES)?;
    }
    Ok(())
}

/// Replaces entry `index`'s text and checks that only its body changed.
fn check_replace(src: &str, doc: &Document, index: usize, text: &str) -> Result<(), String> {
    let e = &doc.entries[index];
    let out = replace(SCOPE, src, doc, index, text).map_err(|e| format!("replace: {e:?}"))?;
    let (pre, post) = (&src[..e.body.start], &src[e.body.end..]);
    if !out.starts_with(pre) || !out.ends_with(post) || out.len() < pre.len() + post.len() {
        return Err(format!(
            "replace of entry {index} changed bytes outside its body {:?}: {out:?}",
            e.body
        ));
    }
    // What went in: the text in the file's line endings and the entry's
    // indentation, with a space to part it from the marker or the metadata
    // comment where an empty body had none.
    let inserted = &out[pre.len()..out.len() - post.len()];
    let render = |indent: usize| {
        let pad = " ".repeat(indent);
        let lines: Vec<String> = text
            .split('\n')
            .enumerate()
            .map(|(i, l)| {
                if i == 0 || l.is_empty() {
                    l.to_owned()
                } else {
                    format!("{pad}{l}")
                }
            })
            .collect();
        lines.join(doc.eol)
    };
    let ok = if e.body.is_empty() {
        // An empty item: a gap of 1 to 4 spaces after the marker.
        let gap = inserted.len() - inserted.trim_start_matches(' ').len();
        let col = e.body.start - e.item.start + gap;
        inserted.trim_matches(' ') == render(col)
    } else {
        inserted == render(e.indent)
    };
    if !ok {
        return Err(format!(
            "replace of entry {index} wrote {inserted:?}: {out:?}"
        ));
    }
    let rdoc = parse(SCOPE, &out);
    check_parse(&out, &rdoc).map_err(|e| format!("after replace: {e}\n{out:?}"))?;
    let mut want: Vec<&str> = doc.entries.iter().map(|e| e.text.as_str()).collect();
    want[index] = text;
    let got: Vec<&str> = rdoc.entries.iter().map(|e| e.text.as_str()).collect();
    let mut want_ids = ids(doc);
    let new_id = super::shim::entry_id(SCOPE, text);
    want_ids[index] = &new_id;
    if got != want || ids(&rdoc) != want_ids {
        return Err(format!(
            "replace of entry {index} left entries {got:?}, wanted {want:?}: {out:?}"
        ));
    }
    // Every other entry keeps its bytes.
    for (i, (a, b)) in doc.entries.iter().zip(&rdoc.entries).enumerate() {
        if i != index && src[a.item.clone()] != out[b.item.clone()] {
            return Err(format!(
                "replace of entry {index} changed entry {i}: {out:?}"
            ));
        }
    }
    Ok(())
}

#[test]
fn commonmark_spec_examples() {
    let corpus = corpus();
    assert_eq!(corpus.examples.len(), 652, "the corpus has 652 examples");
    let mut tally = Tally::default();
    for ex in &corpus.examples {
        let result = catch_unwind(AssertUnwindSafe(|| {
            let mut t = Tally::default();
            let r = check_example(&ex.markdown, &mut t);
            (r, t)
        }));
        let failure = match result {
            Ok((Ok(()), t)) => {
                tally.with_entries += t.with_entries;
                tally.after_last += t.after_last;
                tally.end += t.end;
                tally.top += t.top;
                tally.top_separated += t.top_separated;
                tally.removed += t.removed;
                for i in t.removed_separated {
                    tally
                        .removed_separated
                        .push(format!("{} (entry {i})", ex.example));
                }
                if t.top > 0 {
                    tally.top_examples.push(ex.example.to_string());
                }
                None
            }
            Ok((Err(e), _)) => Some(e),
            Err(_) => Some("panicked".to_owned()),
        };
        if let Some(e) = failure {
            tally.failures.push(format!(
                "example {} ({}): {e}\nmarkdown: {:?}",
                ex.example, ex.section, ex.markdown
            ));
        }
    }
    println!(
        "commonmark corpus: {} examples, {} with entries, append strategies: after-last {} / end {} / top {} ({} with the separator), {} failures",
        corpus.examples.len(),
        tally.with_entries,
        tally.after_last,
        tally.end,
        tally.top,
        tally.top_separated,
        tally.failures.len()
    );
    println!(
        "  appended at the top: examples {}; {} entries removed one by one, {} with the separator: examples {}",
        tally.top_examples.join(", "),
        tally.removed,
        tally.removed_separated.len(),
        tally.removed_separated.join(", ")
    );
    assert!(
        tally.failures.is_empty(),
        "{} failures:\n\n{}",
        tally.failures.len(),
        tally.failures.join("\n\n")
    );
}

/// The same checks on every example with CRLF line endings, with a BOM, and
/// without its final newline.
#[test]
fn commonmark_spec_examples_variants() {
    let corpus = corpus();
    let mut failures = Vec::new();
    for ex in &corpus.examples {
        let md = &ex.markdown;
        let variants = [
            ("crlf", md.replace('\n', "\r\n")),
            ("bom", format!("\u{feff}{md}")),
            (
                "no final newline",
                md.strip_suffix('\n').unwrap_or(md).to_owned(),
            ),
        ];
        for (name, src) in variants {
            let result = catch_unwind(AssertUnwindSafe(|| {
                check_example(&src, &mut Tally::default())
            }));
            let failure = match result {
                Ok(Ok(())) => None,
                Ok(Err(e)) => Some(e),
                Err(_) => Some("panicked".to_owned()),
            };
            if let Some(e) = failure {
                failures.push(format!(
                    "example {} ({}, {name}): {e}\nmarkdown: {src:?}",
                    ex.example, ex.section
                ));
            }
        }
    }
    println!(
        "commonmark corpus variants: {} sources, {} failures",
        corpus.examples.len() * 3,
        failures.len()
    );
    assert!(
        failures.is_empty(),
        "{} failures:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}
