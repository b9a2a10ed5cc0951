//! The checked-in corpora and crash reproducers, run through the targets on
//! the stable toolchain; and the decoding of inputs.

use std::path::{Path, PathBuf};

use super::{FIELD_SEPARATOR, Input, TARGETS, change};

/// The files of `dir`, sorted; none when it does not exist.
fn files(dir: &Path) -> Vec<PathBuf> {
    let Ok(read) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<PathBuf> = read
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .collect();
    out.sort();
    out
}

/// Every input of `fuzz/corpus/<target>/` and `fuzz/regressions/<target>/`
/// goes through its target without a property failing. Each corpus holds
/// seeds, so a corpus that is not found fails the test.
#[test]
fn corpora_and_regressions_pass_their_targets() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz");
    let mut total = 0;
    for (name, target) in TARGETS {
        let corpus = files(&root.join("corpus").join(name));
        assert!(
            corpus.len() >= 5,
            "fuzz/corpus/{name}: {} inputs",
            corpus.len()
        );
        let regressions = files(&root.join("regressions").join(name));
        for path in corpus.iter().chain(&regressions) {
            let data = std::fs::read(path).unwrap();
            if let Err(e) = std::panic::catch_unwind(|| target(&data)) {
                let why = e
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default();
                panic!("{name}: {} fails: {why}", path.display());
            }
            total += 1;
        }
    }
    assert!(total >= 30, "{total} inputs");
}

/// Every target directory of the cargo-fuzz crate calls the function of
/// its name, and every target has one.
#[test]
fn each_target_has_its_fuzz_target_file() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/fuzz_targets");
    let names: Vec<String> = files(&dir)
        .iter()
        .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
        .collect();
    let want: Vec<&str> = TARGETS.iter().map(|(n, _)| *n).collect();
    let mut sorted = want.clone();
    sorted.sort_unstable();
    assert_eq!(names, sorted);
    for name in want {
        let text = std::fs::read_to_string(dir.join(format!("{name}.rs"))).unwrap();
        assert!(
            text.contains(&format!("memdir::internals::fuzz::{name}(data)")),
            "fuzz_targets/{name}.rs does not call memdir::internals::fuzz::{name}"
        );
    }
}

#[test]
fn inputs_are_read_field_by_field() {
    let data = [7, 1, 2, b'a', FIELD_SEPARATOR, 0xC3, FIELD_SEPARATOR, b'z'];
    let mut input = Input::new(&data);
    assert_eq!(input.byte(), 7);
    assert_eq!(input.u16(), 0x0201);
    assert_eq!(input.field(), "a");
    // A lone lead byte is not UTF-8: replaced.
    assert_eq!(input.field(), "\u{fffd}");
    assert_eq!(input.rest(), "z");
    assert_eq!(input.byte(), 0);
    assert_eq!(input.field(), "");
}

#[test]
fn change_finds_the_one_region_that_differs() {
    let c = change("abcdef", "abXYef");
    assert_eq!((c.start, c.old_end, c.new_end), (2, 4, 4));
    let c = change("aaa", "aaaa");
    assert_eq!((c.start, c.old_end, c.new_end), (3, 3, 4));
    let c = change("same", "same");
    assert_eq!((c.start, c.old_end, c.new_end), (4, 4, 4));
}

/// The properties are checked: an edit that changed bytes outside its
/// entry, or a parse with a range out of bounds, would fail the target.
/// (Shown on the helpers the targets use, since the library's own edits
/// keep the properties.)
#[test]
fn the_region_oracle_sees_bytes_outside_an_entry() {
    let src = "- a\n- b\n- c\n";
    // An edit of `b` that also touched `c`.
    let out = "- a\n- B\n- C\n";
    let c = change(src, out);
    assert!(c.old_end > 7, "{c:?}");
    assert_eq!(super::line_start("x\r\ny", 3), 3);
    assert_eq!(super::line_start("x\ry", 2), 2);
    assert_eq!(super::next_line("x\r\ny", 0), 3);
    assert!(!super::in_bounds("é", &(0..1)));
}
