//! The layering of `docs/ARCHITECTURE.md`, checked on the source: every
//! module of the library (`src/`) and of the binary (`bin/src/`) is in the
//! table, every `crate::`, `super::`, `self::` and (in the binary)
//! `memdir::` path in code that is not test code, and every path through a
//! child module a file declares (`mod io;` then `io::…` or `self::io`),
//! names a module of a lower layer or of the module's own entry, and the
//! imports between modules have no cycle; a module whose row does no I/O of
//! its own (`none`, `none of its own`, `through \`disk\``) opens no file,
//! socket or process itself. That the binary uses the library's public API only is Cargo's to
//! enforce: it is a crate of its own (`bin/Cargo.toml`), and the test holds
//! it to that.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use regex::Regex;

/// One row entry of the layer table: a module path, its layer, and the
/// row's I/O column.
#[derive(Debug, Clone)]
struct Entry {
    module: String,
    layer: usize,
    io: String,
}

impl Entry {
    /// Whether the row does no I/O of its own: its modules open no file,
    /// socket or process themselves (a feature's goes through `disk`).
    fn no_io_of_its_own(&self) -> bool {
        ["none", "none of its own", "through `disk`"].contains(&self.io.as_str())
    }
}

/// The entries of the table in ARCHITECTURE.md (`| N | \`a\`, \`b\` | … |
/// I/O |`).
fn layers(doc: &str) -> Vec<Entry> {
    let row = Regex::new(r"^\|\s*(\d+)\s*\|([^|]*)\|").expect("regex");
    let name = Regex::new(r"`([a-z_:]+)`").expect("regex");
    let mut out = Vec::new();
    for line in doc.lines() {
        if let Some(c) = row.captures(line) {
            let layer: usize = c[1].parse().expect("a layer number");
            // The last column (the description's `\|` come before it).
            let io = line
                .trim_end()
                .trim_end_matches('|')
                .rsplit_once('|')
                .map_or("", |(_, io)| io.trim());
            for m in name.captures_iter(&c[2]) {
                out.push(Entry {
                    module: m[1].to_owned(),
                    layer,
                    io: io.to_owned(),
                });
            }
        }
    }
    out
}

/// The entry a module belongs to: the longest entry that is the module or
/// one of its ancestors.
fn entry_of<'a>(module: &str, entries: &'a [Entry]) -> Option<&'a Entry> {
    entries
        .iter()
        .filter(|e| module == e.module || module.starts_with(&format!("{}::", e.module)))
        .max_by_key(|e| e.module.len())
}

/// The module path of a file under `src/` (`store/files/mod.rs` →
/// `store::files`); `None` for the crate root.
fn module_of(rel: &Path) -> Option<String> {
    let s = rel.to_string_lossy().replace('\\', "/");
    let s = s.strip_suffix(".rs")?;
    if s == "lib" {
        return None;
    }
    let s = s.strip_suffix("/mod").unwrap_or(s);
    Some(s.replace('/', "::"))
}

/// Whether a file holds only test code.
fn is_test_file(rel: &Path) -> bool {
    rel.components().any(|c| c.as_os_str() == "tests")
        || rel.file_name().is_some_and(|n| n == "tests.rs")
}

/// The code of a source file that is not tests nor comments.
fn code(src: &str) -> String {
    let cut = src.find("#[cfg(test)]\nmod tests {").unwrap_or(src.len());
    src[..cut]
        .lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The child modules a file declares (`mod io;`, `pub(crate) mod io;`).
fn children(code: &str) -> BTreeSet<String> {
    let decl = Regex::new(r"(?m)^\s*(?:pub(?:\([a-z ]+\))?\s+)?mod\s+([a-z_][a-z0-9_]*)\s*;")
        .expect("regex");
    decl.captures_iter(code).map(|c| c[1].to_owned()).collect()
}

/// The module paths a file's code refers to, resolved against its module:
/// `crate::`, `super::` and (in the binary) `memdir::` paths, and the paths
/// through a child module it declares (`self::io::…` or `io::…`).
fn references(module: &str, code: &str, binary: bool) -> BTreeSet<String> {
    let path = Regex::new(
        r"\b(?:(crate|memdir)::|((?:super::)+))([a-z_][a-z0-9_]*(?:::[a-z_][a-z0-9_]*)*)",
    )
    .expect("regex");
    let own = children(code);
    let child = Regex::new(r"(?:^|[^:\w])(?:self::([a-z_][a-z0-9_]*)\b|([a-z_][a-z0-9_]*)::)")
        .expect("regex");
    let mut out: BTreeSet<String> = child
        .captures_iter(code)
        .filter_map(|c| c.get(1).or(c.get(2)))
        .filter(|name| own.contains(name.as_str()))
        .map(|name| format!("{module}::{}", name.as_str()))
        .collect();
    for c in path.captures_iter(code) {
        let tail = c[3].to_owned();
        let resolved = if let Some(root) = c.get(1) {
            // `memdir::` names the library only from the binary (in the
            // binary, `crate::` is the binary: `crate::cli`).
            if root.as_str() == "memdir" && !binary {
                continue;
            }
            tail
        } else {
            let ups = c[2].matches("super").count();
            let mut parts: Vec<&str> = module.split("::").collect();
            for _ in 0..ups {
                parts.pop();
            }
            let mut base = parts.join("::");
            if !base.is_empty() {
                base.push_str("::");
            }
            base + &tail
        };
        out.insert(resolved);
    }
    out
}

/// A violation of the layering, or `None`: `from` (a module) refers to `to`.
fn violation(
    from: &str,
    to: &str,
    entries: &[Entry],
    modules: &BTreeSet<String>,
) -> Option<String> {
    // Paths that name no module of the crate (a root re-export in the
    // binary, a type of the module itself) are not imports of a layer.
    let target = longest_module(to, modules)?;
    let a = entry_of(from, entries)?;
    let b = entry_of(&target, entries)?;
    if a.module == b.module || b.layer < a.layer {
        return None;
    }
    Some(format!(
        "{from} (layer {}, `{}`) refers to {to} (layer {}, `{}`)",
        a.layer, a.module, b.layer, b.module
    ))
}

/// The longest module of the crate that `path` is or is inside.
fn longest_module(path: &str, modules: &BTreeSet<String>) -> Option<String> {
    let parts: Vec<&str> = path.split("::").collect();
    (1..=parts.len())
        .rev()
        .map(|n| parts[..n].join("::"))
        .find(|p| modules.contains(p))
}

/// Every source file of `src/`, relative to it.
fn sources(src: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![src.to_owned()];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).expect("read src") {
            let p = e.expect("entry").path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p.strip_prefix(src).expect("under src").to_owned());
            }
        }
    }
    out.sort();
    out
}

/// A cycle in `graph`, if there is one.
fn cycle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        n: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        state: &mut BTreeMap<String, u8>,
        path: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        match state.get(n) {
            Some(2) => return None,
            Some(1) => {
                let at = path.iter().position(|p| p == n).unwrap_or(0);
                let mut c = path[at..].to_vec();
                c.push(n.to_owned());
                return Some(c);
            }
            _ => {}
        }
        state.insert(n.to_owned(), 1);
        path.push(n.to_owned());
        for m in graph.get(n).into_iter().flatten() {
            if let Some(c) = visit(m, graph, state, path) {
                return Some(c);
            }
        }
        path.pop();
        state.insert(n.to_owned(), 2);
        None
    }
    let mut state = BTreeMap::new();
    for n in graph.keys() {
        if let Some(c) = visit(n, graph, &mut state, &mut Vec::new()) {
            return Some(c);
        }
    }
    None
}

/// Checks `files` (module path, code) against the table in `doc`: the
/// violations found, empty when the layering holds.
fn check(doc: &str, files: &[(String, String, bool)]) -> Vec<String> {
    check_counting(doc, files).0
}

/// [`check`], also giving the number of imports between modules it saw.
fn check_counting(doc: &str, files: &[(String, String, bool)]) -> (Vec<String>, usize) {
    let entries = layers(doc);
    let modules: BTreeSet<String> = files.iter().map(|(m, _, _)| m.clone()).collect();
    let mut problems = Vec::new();
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (module, code, binary) in files {
        if entry_of(module, &entries).is_none() {
            problems.push(format!("{module} is in no layer of the table"));
            continue;
        }
        for to in references(module, code, *binary) {
            if let Some(v) = violation(module, &to, &entries, &modules) {
                problems.push(v);
            }
            if let Some(target) = longest_module(&to, &modules)
                && &target != module
                && !target.starts_with(&format!("{module}::"))
            {
                graph.entry(module.clone()).or_default().insert(target);
            }
        }
    }
    if let Some(c) = cycle(&graph) {
        problems.push(format!("import cycle: {}", c.join(" -> ")));
    }
    let edges = graph.values().map(BTreeSet::len).sum();
    (problems, edges)
}

/// What opens a file, a socket or a process directly (a held file's type,
/// `std::fs::File`, is no I/O).
const DIRECT_IO: &str = r"\bfs::(?:read|write|create_dir|remove|rename|copy|metadata|symlink_metadata|read_dir|read_to_string|hard_link|set_permissions|canonicalize)|\bFile::(?:open|create)\b|\bOpenOptions\b|\bCommand::new\b|\bprocess::Command\b|\bstd::net::|\bTcp(?:Stream|Listener)\b";

/// The modules of `files` whose row does no I/O of its own
/// ([`Entry::no_io_of_its_own`]) and whose code does I/O directly, each
/// with what it does; `test_only` modules (declared under `#[cfg(test)]`)
/// are test code and may.
fn direct_io(
    doc: &str,
    files: &[(String, String, bool)],
    test_only: &BTreeSet<String>,
) -> Vec<String> {
    let entries = layers(doc);
    let io = Regex::new(DIRECT_IO).expect("regex");
    let mut out = Vec::new();
    for (module, code, _) in files {
        if test_only.contains(module) {
            continue;
        }
        let Some(e) = entry_of(module, &entries) else {
            continue;
        };
        if let Some(m) = io.find(code)
            && e.no_io_of_its_own()
        {
            out.push(format!(
                "{module} (`{}`, I/O: {}) does I/O itself: {}",
                e.module,
                e.io,
                m.as_str()
            ));
        }
    }
    out
}

/// The modules a file declares under `#[cfg(test)]` (`mod NAME;` on the
/// next line): test code in a file of its own.
fn test_modules(module: Option<&str>, src: &str) -> Vec<String> {
    let decl = Regex::new(
        r"(?m)^\s*#\[cfg\(test\)\]\s*\n\s*(?:pub(?:\([a-z ]+\))?\s+)?mod\s+([a-z_][a-z0-9_]*)\s*;",
    )
    .expect("regex");
    decl.captures_iter(src)
        .map(|c| match module {
            Some(m) => format!("{m}::{}", &c[1]),
            None => c[1].to_owned(),
        })
        .collect()
}

#[test]
fn the_source_keeps_the_layers_of_architecture_md() {
    let root = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."));
    let doc = std::fs::read_to_string(root.join("docs/ARCHITECTURE.md")).expect("the doc");
    assert!(
        layers(&doc).len() >= 20,
        "the table is read: {:?}",
        layers(&doc)
    );
    // The library's modules (`src/`), then the binary's (`bin/src/`: `main`,
    // `cli`, `mcp`, `http`), whose `memdir::` paths name the library.
    let mut files = Vec::new();
    let mut test_only = BTreeSet::new();
    for (dir, binary) in [(root.join("src"), false), (root.join("bin/src"), true)] {
        for rel in sources(&dir) {
            if is_test_file(&rel) {
                continue;
            }
            let text = std::fs::read_to_string(dir.join(&rel)).expect("source");
            let module = module_of(&rel);
            test_only.extend(test_modules(module.as_deref(), &text));
            let Some(module) = module else {
                continue;
            };
            files.push((module, code(&text), binary));
        }
    }
    assert!(
        files.iter().any(|(m, _, b)| *b && m == "cli"),
        "the binary's modules are read"
    );
    assert!(files.len() > 40, "{} source files", files.len());
    let (problems, edges) = check_counting(&doc, &files);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    // The imports were seen (a broken pattern would see none and pass).
    assert!(edges > 150, "{edges} imports between modules");
    let io = direct_io(&doc, &files, &test_only);
    assert!(io.is_empty(), "{}", io.join("\n"));
    // The I/O column was read: the pure layers and the disk layer both.
    let entries = layers(&doc);
    for (module, pure) in [("review", true), ("review::io", true), ("disk", false)] {
        let e = entry_of(module, &entries).expect("in the table");
        assert_eq!(e.no_io_of_its_own(), pure, "{module}: {}", e.io);
    }
}

/// The binary is a crate of its own that takes the library as a dependency,
/// so the compiler holds it to the library's public API: no source of the
/// binary pulls in a library file by path, and the library has no binary.
#[test]
fn the_binary_is_a_crate_of_its_own_on_the_library() {
    let root = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."));
    let manifest = std::fs::read_to_string(root.join("bin/Cargo.toml")).expect("bin/Cargo.toml");
    let dep = Regex::new(
        r#"(?m)^memdir-core = \{ path = "\.\.", version = "[0-9.]+", features = \["cli"\] \}$"#,
    )
    .expect("regex");
    assert!(
        dep.is_match(&manifest),
        "bin/Cargo.toml takes the library by path"
    );
    assert!(manifest.contains("name = \"memdir\"\npath = \"src/main.rs\""));
    assert!(!root.join("src/main.rs").exists() && !root.join("src/bin").exists());
    let top = std::fs::read_to_string(root.join("Cargo.toml")).expect("Cargo.toml");
    assert!(!top.contains("[[bin]]"), "the library crate has no binary");
    for rel in sources(&root.join("bin/src")) {
        let text = std::fs::read_to_string(root.join("bin/src").join(&rel)).expect("source");
        assert!(
            !text.contains("#[path"),
            "{} includes a file by path",
            rel.display()
        );
    }
}

/// The library's API is what `src/lib.rs` names: the store, the disk
/// layer, git and the reviewer program are private modules, reached through
/// the explicit `pub use` of their types at the top of the crate (and
/// `api`), so no adapter can reach a feature's insides; `store` names its
/// modules privately too.
#[test]
fn the_library_s_stateful_layers_are_private_modules() {
    let root = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."));
    let lib = std::fs::read_to_string(root.join("src/lib.rs")).expect("src/lib.rs");
    for private in [
        "store", "disk", "git", "program", "error", "edit", "journal", "markdown", "memtool",
        "merge", "model", "recall", "review", "scan", "snapshot",
    ] {
        assert!(
            lib.contains(&format!("\nmod {private};\n")),
            "src/lib.rs declares `mod {private};` (private)"
        );
    }
    let store = std::fs::read_to_string(root.join("src/store/mod.rs")).expect("store");
    let public = Regex::new(r"(?m)^pub(\(crate\))? mod (\w+);").expect("regex");
    let open: Vec<&str> = public
        .captures_iter(&store)
        .filter(|c| c.get(1).is_none())
        .filter_map(|c| c.get(2).map(|m| m.as_str()))
        .filter(|m| !["keys", "limits"].contains(m))
        .collect();
    assert!(open.is_empty(), "store's public modules: {open:?}");
    // The binary names no path below the library's top and `api`.
    for rel in sources(&root.join("bin/src")) {
        let text = std::fs::read_to_string(root.join("bin/src").join(&rel)).expect("source");
        assert!(
            !text.contains("memdir::store"),
            "{} reaches into memdir's store",
            rel.display()
        );
    }
}

/// Where the binary reaches past `api` into the library: a `memdir::` path
/// (outside a string) to anything but `memdir::api`, or a call of the
/// store's own hashing and stamping (`file_sha256`, `stamps`), which are
/// the library's business behind a request.
fn past_api(code: &str) -> Vec<String> {
    let path = Regex::new(r#"(^|[^"\w:])memdir::(\w+)"#).expect("regex");
    let mut out: Vec<String> = path
        .captures_iter(code)
        .filter_map(|c| c.get(2))
        .map(|m| m.as_str())
        .filter(|m| *m != "api")
        .map(|m| format!("memdir::{m}"))
        .collect();
    for call in [".file_sha256(", ".stamps("] {
        if code.contains(call) {
            out.push(call.to_owned());
        }
    }
    out
}

/// The binary imports the library's `api` (and the model and error types it
/// re-exports, in `api::types`) and nothing else of the library.
#[test]
fn the_binary_imports_the_library_s_api_alone() {
    let root = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."));
    let mut found = Vec::new();
    for rel in sources(&root.join("bin/src")) {
        let text = std::fs::read_to_string(root.join("bin/src").join(&rel)).expect("source");
        for p in past_api(&code(&text)) {
            found.push(format!("{}: {p}", rel.display()));
        }
    }
    assert!(
        found.is_empty(),
        "the binary past `api`:\n{}",
        found.join("\n")
    );
    assert_eq!(
        past_api(
            "use memdir::api::types::Store;\nlet x = memdir::Store::open(p);\nowner.file_sha256(\"MEMORY.md\")"
        ),
        ["memdir::Store", ".file_sha256("]
    );
    assert!(past_api("tracing::info!(target: \"memdir::request\")").is_empty());
}

/// The names a file declares or re-exports at its top level as public
/// (`pub use a::{B, C as D}` counts B and D; `pub mod`, `pub fn`, `pub
/// struct`, …, one each), leaving out an item behind
/// `#[cfg(feature = "internals")]` (the doc-hidden inner layers).
fn public_names(src: &str) -> Vec<String> {
    let code = code(src);
    let item = Regex::new(
        r"^pub (?:mod|fn|struct|enum|trait|const|static|type|union) ([A-Za-z_][A-Za-z0-9_]*)",
    )
    .expect("regex");
    let mut names = Vec::new();
    let mut lines = code.lines().peekable();
    let mut hidden = false;
    while let Some(line) = lines.next() {
        if line.starts_with("#[cfg(feature = \"internals\")]") {
            hidden = true;
            continue;
        }
        if line.starts_with("#[") {
            continue;
        }
        let skip = std::mem::take(&mut hidden);
        if let Some(rest) = line.strip_prefix("pub use ") {
            let mut stmt = rest.to_owned();
            while !stmt.contains(';') {
                match lines.next() {
                    Some(l) => stmt.push_str(l),
                    None => break,
                }
            }
            if skip {
                continue;
            }
            let stmt = stmt.split(';').next().unwrap_or("");
            let leaves = match (stmt.find('{'), stmt.rfind('}')) {
                (Some(a), Some(b)) => stmt[a + 1..b].to_owned(),
                _ => stmt.to_owned(),
            };
            for leaf in leaves.split(',').map(str::trim).filter(|l| !l.is_empty()) {
                let name = leaf.rsplit(" as ").next().unwrap_or(leaf);
                let name = name.rsplit("::").next().unwrap_or(name);
                names.push(name.trim().to_owned());
            }
        } else if let Some(c) = item.captures(line)
            && !skip
        {
            names.push(c[1].to_owned());
        }
    }
    names
}

/// The library's public face, the names at the crate root and in `api`,
/// is at most 40; the layers below (`store`, `edit`, `scan`, …) are
/// private to the crate, reached by the benches, the fuzz targets and the
/// tests through the doc-hidden `internals` behind a feature of that name.
#[test]
fn the_library_s_public_face_is_at_most_forty_names() {
    let root = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."));
    let lib = std::fs::read_to_string(root.join("src/lib.rs")).expect("src/lib.rs");
    let api = std::fs::read_to_string(root.join("src/api/mod.rs")).expect("src/api/mod.rs");
    let (top, inner) = (public_names(&lib), public_names(&api));
    let face = top.len() + inner.len();
    assert!(
        face <= 40,
        "{face} public names: the root's {top:?} and api's {inner:?}"
    );
    assert!(top.contains(&"api".to_owned()) && top.contains(&"Store".to_owned()));
    let layer = Regex::new(r"(?m)^pub mod (\w+)").expect("regex");
    let lib_code = code(&lib);
    let public: Vec<&str> = layer
        .captures_iter(&lib_code)
        .filter_map(|c| c.get(1))
        .map(|m| m.as_str())
        .filter(|m| *m != "api" && *m != "internals")
        .collect();
    assert!(public.is_empty(), "public layers: {public:?}");
    // The count, on a planted file.
    let planted = "pub mod api;\nmod store;\npub use store::{A, B as C,\n    D};\n#[cfg(feature = \"internals\")]\n#[doc(hidden)]\npub mod internals {}\npub fn f() {}\n";
    assert_eq!(public_names(planted), ["api", "A", "C", "D", "f"]);
}

/// The checker finds what it is there to find: an upward import, an import
/// between two features, a module missing from the table, and a cycle.
#[test]
fn the_checker_catches_what_it_should() {
    let doc = "| 1 | `low` | x |\n| 2 | `mid::a`, `mid::b` | x |\n| 3 | `top` | x |\n";
    let files = |list: &[(&str, &str)]| -> Vec<(String, String, bool)> {
        list.iter()
            .map(|(m, c)| (m.to_string(), c.to_string(), false))
            .collect()
    };
    let ok = files(&[
        ("low", ""),
        ("mid::a", "use crate::low::X;"),
        ("mid::b", "use crate::low;"),
        ("top", "use crate::mid::a::Y; use crate::mid::b;"),
    ]);
    assert_eq!(check(doc, &ok), Vec::<String>::new());
    let upward = files(&[("low", "use crate::top::Z;"), ("top", "")]);
    let found = check(doc, &upward);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].starts_with("low (layer 1"), "{found:?}");
    let sideways = files(&[("mid::a", "use super::b::Thing;"), ("mid::b", "")]);
    assert!(check(doc, &sideways)[0].contains("mid::a (layer 2"));
    let missing = files(&[("elsewhere", "")]);
    assert!(check(doc, &missing)[0].contains("in no layer"));
    let cyclic = files(&[
        ("mid::a::x", "use super::y;"),
        ("mid::a::y", "use super::x;"),
    ]);
    assert!(
        check(doc, &cyclic)
            .iter()
            .any(|p| p.starts_with("import cycle"))
    );
    // A parent of a lower layer using its child of a higher one through the
    // child's own name (a feature's pure part and its I/O side).
    let doc = "| 1 | `low` | x | none |\n| 2 | `low::io` | x | through `disk` |\n| 3 | `disk` | x | files |\n";
    let through_child = files(&[
        ("low", "pub(crate) mod io;\npub use io::Report;"),
        ("low::io", ""),
    ]);
    assert!(check(doc, &through_child)[0].starts_with("low (layer 1"));
    let through_self = files(&[("low", "mod io;\nuse self::io;"), ("low::io", "")]);
    assert!(check(doc, &through_self)[0].starts_with("low (layer 1"));
    let declared_only = files(&[("low", "mod io;\nuse std::io::Read;"), ("low::io", "")]);
    assert_eq!(check(doc, &declared_only), Vec::<String>::new());
    // A module whose row does no I/O of its own opening a file itself.
    let reads = files(&[
        ("low", "fn f() { std::fs::read_to_string(p); }"),
        (
            "low::io",
            "fn g(f: std::fs::File) { Command::new(\"sh\"); }",
        ),
        ("disk", "fn h() { std::fs::read(p); }"),
    ]);
    let found = direct_io(doc, &reads, &BTreeSet::new());
    assert_eq!(found.len(), 2, "{found:?}");
    assert!(found[0].starts_with("low (") && found[1].starts_with("low::io ("));
    let test_support: BTreeSet<String> = ["low".to_owned()].into();
    assert_eq!(direct_io(doc, &reads, &test_support).len(), 1);
    assert_eq!(
        test_modules(Some("a"), "#[cfg(test)]\npub(crate) mod t;\nmod u;\n"),
        vec!["a::t".to_owned()]
    );
}

/// The most lines a source file holds before its tests.
const MAX_LINES: usize = 800;

/// The lines of a source file before its tests: every line (blank and
/// comment lines too) before the first `#[cfg(test)]` that opens an inline
/// module (`#[cfg(test)]` then `mod NAME {`). A `#[cfg(test)] mod tests;`
/// declaration of a file of its own does not end the count.
fn lines_before_tests(src: &str) -> usize {
    let lines: Vec<&str> = src.lines().collect();
    lines
        .iter()
        .enumerate()
        .position(|(i, l)| {
            l.trim() == "#[cfg(test)]"
                && lines.get(i + 1).is_some_and(|next| {
                    let next = next.trim();
                    (next.starts_with("mod ") || next.starts_with("pub mod "))
                        && next.ends_with('{')
                })
        })
        .unwrap_or(lines.len())
}

/// Files past ~800 lines are two concerns (docs/ARCHITECTURE.md, "Files of
/// one concern"): no `.rs` file of the library (`src/`) or of the binary
/// (`bin/src/`) holds more than [`MAX_LINES`] lines before its tests, as
/// [`lines_before_tests`] counts them (every line, blank and comment lines
/// too).
#[test]
fn no_source_file_is_past_800_lines_before_its_tests() {
    let root = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."));
    let mut over = Vec::new();
    let mut seen = 0;
    for dir in ["src", "bin/src"] {
        for rel in sources(&root.join(dir)) {
            let path = format!("{dir}/{}", rel.display());
            let text = std::fs::read_to_string(root.join(&path)).expect("source");
            seen += 1;
            let n = lines_before_tests(&text);
            if n > MAX_LINES {
                over.push(format!(
                    "{path}: {n} lines before its tests (at most {MAX_LINES})"
                ));
            }
        }
    }
    assert!(seen > 40, "{seen} source files read");
    assert!(over.is_empty(), "{}", over.join("\n"));
}

/// The count stops at an inline test module only, not at the declaration
/// of a test file nor at a test-only item.
#[test]
fn the_file_size_count_stops_at_the_inline_tests() {
    assert_eq!(lines_before_tests("a\n\n// c\nb\n"), 4);
    assert_eq!(lines_before_tests("a\n#[cfg(test)]\nmod tests {\n}\n"), 1);
    assert_eq!(lines_before_tests("a\n#[cfg(test)]\nmod tests;\nb\n"), 4);
    assert_eq!(
        lines_before_tests("a\n#[cfg(test)]\nfn helper() {}\nb\n#[cfg(test)]\nmod t {\n"),
        4
    );
}

/// The one door (docs/SECURITY.md, "The one door"): the renderers of
/// `api::render` give an adapter only `AgentText`/`AgentJson` (and a
/// person's raw read its own types), never a raw `String` of an answer;
/// the adapters that answer agents (`cli`, `mcp`, `http`, `main`) never
/// unwrap a guarded answer (`Guarded::into_inner` is the dashboard's, for
/// persons), and reach `api::raw` only from the command line's `--raw`.
#[test]
fn adapters_write_to_agents_only_through_the_guard() {
    let root = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."));
    let mut wrong = Vec::new();
    let render = root.join("src/api/render");
    let returns_string = Regex::new(r"pub fn (\w+)\([^)]*\)\s*->\s*String").expect("regex");
    for rel in sources(&render) {
        let text = std::fs::read_to_string(render.join(&rel)).expect("source");
        for c in returns_string.captures_iter(&code(&text)) {
            // A pure encoder of bytes the caller holds, no answer's text.
            if &c[1] != "base64" {
                wrong.push(format!(
                    "src/api/render/{}: {} returns a String",
                    rel.display(),
                    &c[1]
                ));
            }
        }
    }
    let bin = root.join("bin/src");
    for rel in sources(&bin) {
        let path = rel.display().to_string();
        if path.starts_with("ui/") || is_test_file(&rel) {
            continue;
        }
        let text = code(&std::fs::read_to_string(bin.join(&rel)).expect("source"));
        if text.contains("Guarded::into_inner") || text.contains("api::PersonText::") {
            wrong.push(format!("bin/src/{path} unwraps a guarded answer"));
        }
        if text.contains("api::raw(") && path != "cli/request.rs" {
            wrong.push(format!("bin/src/{path} reaches api::raw"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// The names of the fields and variables that carry an outcome, a state or
/// a kind: a comparison of one with a string literal decides on a wire word
/// that an enum carries instead (docs/ARCHITECTURE.md, "Outcomes are
/// enums").
const OUTCOME_NAMES: &str = "message|status|kind|state|code|change|omitted|outcome";

/// `src` as the checks read it: comments taken out, every string and
/// character literal emptied (`"a{b"` → `""`, `'{'` → `''`), line breaks
/// kept (so braces and words inside literals count for nothing and line
/// numbers stay).
fn blanked(src: &str) -> String {
    let c: Vec<char> = src.chars().collect();
    let mut out = String::with_capacity(src.len());
    let mut i = 0;
    let ident = |ch: char| ch.is_alphanumeric() || ch == '_';
    while i < c.len() {
        let ch = c[i];
        let prev = if i > 0 { c[i - 1] } else { ' ' };
        if ch == '/' && c.get(i + 1) == Some(&'/') {
            while i < c.len() && c[i] != '\n' {
                i += 1;
            }
        } else if ch == '/' && c.get(i + 1) == Some(&'*') {
            i += 2;
            while i < c.len() && !(c[i] == '*' && c.get(i + 1) == Some(&'/')) {
                if c[i] == '\n' {
                    out.push('\n');
                }
                i += 1;
            }
            i += 2;
        } else if ch == 'r'
            && !ident(prev)
            && matches!(c.get(i + 1), Some('#' | '"'))
            && c[i + 1..].iter().find(|&&x| x != '#') == Some(&'"')
        {
            // A raw string: r"…", r#"…"#.
            let hashes = c[i + 1..].iter().take_while(|&&x| x == '#').count();
            i += 2 + hashes;
            out.push_str("\"\"");
            while i < c.len() {
                if c[i] == '"'
                    && c[i + 1..]
                        .iter()
                        .take(hashes)
                        .filter(|&&x| x == '#')
                        .count()
                        == hashes
                {
                    i += 1 + hashes;
                    break;
                }
                if c[i] == '\n' {
                    out.push('\n');
                }
                i += 1;
            }
        } else if ch == '"' {
            out.push_str("\"\"");
            i += 1;
            while i < c.len() && c[i] != '"' {
                if c[i] == '\\' {
                    i += 1;
                }
                if c.get(i) == Some(&'\n') {
                    out.push('\n');
                }
                i += 1;
            }
            i += 1;
        } else if ch == '\'' && c.get(i + 1) == Some(&'\\') {
            // '\n', '\'', '\u{7f}'.
            out.push_str("''");
            i += 2;
            while i < c.len() && c[i] != '\'' {
                i += 1;
            }
            i += 1;
        } else if ch == '\'' && c.get(i + 2) == Some(&'\'') {
            out.push_str("''");
            i += 3;
        } else {
            out.push(ch);
            i += 1;
        }
    }
    out
}

/// The lines of `src` (a source file) before its tests, blanked.
fn outcome_code(src: &str) -> String {
    let lines: Vec<&str> = src.lines().collect();
    blanked(&lines[..lines_before_tests(src)].join("\n"))
}

/// The comparisons of an outcome's word with a string literal in `code`
/// ([`outcome_code`]): `x.status == "…"`, `"…" != x.message`,
/// `x.message.starts_with("…")`, `matches!(x.kind, Some("…"))`,
/// `if let Some("…") = x.omitted`, and a `match` on one (`match
/// t.message { "…" => … }`, `match (state, scope) { ("…", _) => … }`), as
/// `(line, the line)` from 1.
fn outcome_comparisons(code: &str) -> Vec<(usize, String)> {
    let w = OUTCOME_NAMES;
    let tail = r"(?:\(\))?(?:\.(?:as_str|as_deref|as_ref|name|to_string)\(\))*";
    let direct = Regex::new(&format!(
        r#"\b(?:{w})\b{tail}\s*(?:==|!=)\s*&?(?:Some\()?""|""\s*(?:==|!=)\s*&?[\w.]*\b(?:{w})\b|\b(?:{w})\b{tail}\.(?:starts_with|ends_with|contains|strip_prefix|strip_suffix|eq_ignore_ascii_case)\(\s*""|matches!\(\s*[^,]*\b(?:{w})\b[^,]*,\s*[(\w]*""|\bif\s+let\s+[^=]*""[^=]*=\s*[\w.&*]*\b(?:{w})\b"#
    ))
    .expect("regex");
    let scrutinee =
        Regex::new(&format!(r"\bmatch\s+([^{{;]*\b(?:{w})\b[^{{;]*)\{{")).expect("regex");
    let line_of = |at: usize| code[..at].matches('\n').count();
    let mut hits = std::collections::BTreeSet::new();
    for m in direct.find_iter(code) {
        hits.insert(line_of(m.start()));
    }
    let b = code.as_bytes();
    for c in scrutinee.captures_iter(code) {
        let open = c.get(0).expect("match").end() - 1;
        // The arms at the block's own depth: the pattern before each `=>`.
        let (mut braces, mut parens, mut from) = (0usize, 0usize, open + 1);
        let mut i = open;
        while i < b.len() {
            match b[i] {
                b'{' => braces += 1,
                b'}' => {
                    braces -= 1;
                    if braces == 0 {
                        break;
                    }
                    if braces == 1 {
                        from = i + 1;
                    }
                }
                b'(' | b'[' => parens += 1,
                b')' | b']' => parens = parens.saturating_sub(1),
                b',' if braces == 1 && parens == 0 => from = i + 1,
                b'=' if braces == 1 && parens == 0 && b.get(i + 1) == Some(&b'>') => {
                    if code[from..i].contains("\"\"") {
                        hits.insert(line_of(
                            from + code[from..i].len() - code[from..i].trim_start().len(),
                        ));
                    }
                    from = i + 2;
                }
                _ => {}
            }
            i += 1;
        }
    }
    let lines: Vec<&str> = code.lines().collect();
    hits.into_iter()
        .map(|n| (n + 1, lines.get(n).map_or("", |l| l.trim()).to_owned()))
        .collect()
}

/// The comparisons with a string literal that are parsing, not a decision
/// on an outcome: a file's words read into the program's own types. Each
/// is `(file, the start of its line)`, and each must still match a line.
const PARSING: &[(&str, &str, &str)] = &[
    (
        "src/recall/embed/config.rs",
        "&& kind != \"bert\"",
        "a recall model's config.json: its `model_type` read",
    ),
    (
        "src/recall/embed/config.rs",
        "&& kind != \"absolute\"",
        "a recall model's config.json: its `position_embedding_type` read",
    ),
    (
        "src/model/id.rs",
        "if matches!(kind, \"owner\" | \"agent\")",
        "an id's kind, as the caller of `validate_id` names it in its refusal",
    ),
];

/// Every comparison of an outcome's word with a string literal
/// ([`outcome_comparisons`]) in the code of `dir` (not its tests), as
/// `(file, line number, the line)`.
fn outcome_comparisons_in(root: &Path, dir: &str) -> Vec<(String, usize, String)> {
    let mut out = Vec::new();
    for rel in sources(&root.join(dir)) {
        if is_test_file(&rel) {
            continue;
        }
        let path = format!("{dir}/{}", rel.display());
        let text = std::fs::read_to_string(root.join(&path)).expect("source");
        let lines: Vec<&str> = text.lines().collect();
        for (n, _) in outcome_comparisons(&outcome_code(&text)) {
            let line = lines.get(n - 1).map_or("", |l| l.trim()).to_owned();
            out.push((path.clone(), n, line));
        }
    }
    out
}

/// Outcomes, transitions, states and kinds are enums whose `Serialize` and
/// `Display` carry their wire words (`memdir::Change`, `TransitionChange`,
/// `SkillChange`, `LearningChange`, `Status`, `FindingKind`, …): no
/// adapter, renderer or feature decides anything by comparing such a word
/// with a string literal (`t.status == "archived"`, `match o.message {
/// "forgot" => … }`, `t.message.starts_with("kept ")`), which a new word or
/// a changed one would silently break. Parsing a file's own words into
/// those types is listed in [`PARSING`].
#[test]
fn no_code_decides_on_an_outcome_s_words() {
    let root = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."));
    let mut found = outcome_comparisons_in(root, "bin/src");
    found.extend(outcome_comparisons_in(root, "src"));
    let mut used = vec![false; PARSING.len()];
    let wrong: Vec<String> = found
        .into_iter()
        .filter(|(file, _, line)| {
            match PARSING
                .iter()
                .position(|(f, start, _)| f == file && line.starts_with(start))
            {
                Some(i) => {
                    used[i] = true;
                    false
                }
                None => true,
            }
        })
        .map(|(file, n, line)| format!("{file}:{n}: {line}"))
        .collect();
    assert!(
        wrong.is_empty(),
        "compare the enum, not its word:\n{}",
        wrong.join("\n")
    );
    let stale: Vec<_> = PARSING
        .iter()
        .zip(&used)
        .filter(|(_, u)| !**u)
        .map(|((f, l, _), _)| format!("{f}: {l}"))
        .collect();
    assert!(
        stale.is_empty(),
        "PARSING rows that match no line: {stale:?}"
    );
}

/// The outcome checker finds each form of the comparison, and leaves alone
/// what is not one: a word compared as an enum, an argument parsed, a
/// literal or a comment that holds such text, a test module.
#[test]
fn the_outcome_checker_catches_what_it_should() {
    let found = |code: &str| outcome_comparisons(&outcome_code(code));
    let planted = [
        "let undo = t.status == \"archived\";",
        "if o.message != \"forgot\" {}",
        "let x = \"active\" == t.status;",
        "if t.message.starts_with(\"kept \") {}",
        "if x.kind.as_str() == \"day\" {}",
        "if f.kind() == \"day\" {}",
        "let b = state == \"expired\";",
        "let b = x.state == Some(\"expired\");",
        "let a = matches!(&*r, Response::Skill(o) if o.message == \"replaced\");",
        "let b = matches!(e.omitted, Some(\"expired\"));",
        "if let Some(\"blocked\") = e.omitted {}",
        "let v = match t.message {\n    \"vetoed\" => 1,\n    _ => 2,\n};",
        "let v = match o.message.as_str() {\n    \"saved\" | \"replaced\" => 1,\n    _ => 2,\n};",
        "let f = match (state, scope) {\n    (\"archived\" | \"vetoed\", _) => 1,\n    _ => 2,\n};",
        "let s = match e.omitted {\n    Some(\"expired\") => \"{\",\n    _ => \"\",\n};",
        "let e = match (&r.expires_at, state) {\n    (Some(t), \"expired\") => 1,\n    _ => 2,\n};",
        "let x = match t.status {\n    Status::Active if t.message.ends_with(\"one\") => {\n        1\n    }\n    _ => 2,\n};",
    ];
    for code in planted {
        assert_eq!(found(code).len(), 1, "not caught: {code}");
    }
    // The line found is the arm's, in a match.
    let m = "fn f() {\n    match t.message {\n        Moved::A => 0,\n        \"kept\" => 1,\n        _ => 2,\n    }\n}\n";
    assert_eq!(found(m), vec![(4, "\"\" => 1,".to_owned())]);
    let clean = [
        "let undo = t.status == Status::Archived;",
        "let json = args.iter().any(|a| a == \"--json\");",
        "if path == \"/\" || path.starts_with(\"/ui/\") {}",
        "let v = match t.message {\n    TransitionChange::Vetoed => \"Vetoed\",\n    _ => \"Archived\",\n};",
        "let v = match name {\n    \"MEMORY.md\" => 1,\n    _ => 2,\n};",
        "let s = \"t.status == \\\"archived\\\"\";",
        "let r = r#\"o.message == \"forgot\"\"#;",
        "// if t.status == \"archived\" {}",
        "let c = '\"'; let d = t.status == Status::Active;",
        "let v = match t.status {\n    Status::Active => format!(\"{} {{\", t.message),\n    Status::Archived => String::new(),\n};",
        "fn f() {}\n#[cfg(test)]\nmod tests {\n    fn g() { assert!(t.status == \"archived\"); }\n}\n",
    ];
    for code in clean {
        assert_eq!(found(code), Vec::new(), "flagged: {code}");
    }
}

/// The library's types whose words the command line, MCP and HTTP take,
/// each with the variants a mirror of it in the binary would have.
const ONE_DECLARATION: &[(&str, &[&str])] = &[
    ("Scope", &["Memory", "User"]),
    ("FactKind", &["Fact", "Day"]),
    ("Status", &["Active", "Archived"]),
    ("Keep", &["Both", "Live", "One"]),
];

/// Every `enum` of `code` ([`outcome_code`]) with its variants.
fn enums(code: &str) -> Vec<(String, Vec<String>)> {
    let head = Regex::new(r"\benum\s+(\w+)[^{;]*\{").expect("regex");
    let variant = Regex::new(r"^\s*([A-Z]\w*)\b").expect("regex");
    let attribute = Regex::new(r"(?s)#\[.*?\]").expect("regex");
    let mut out = Vec::new();
    for c in head.captures_iter(code) {
        let open = c.get(0).expect("match").end();
        let (mut depth, mut at, mut variants) = (1usize, open, Vec::new());
        let mut start = open;
        for (i, b) in code[open..].bytes().enumerate() {
            let i = open + i;
            match b {
                b'{' | b'(' | b'[' => depth += 1,
                b'}' | b')' | b']' => {
                    depth -= 1;
                    if depth == 0 {
                        at = i;
                        break;
                    }
                }
                b',' if depth == 1 => {
                    variants.push(code[start..i].to_owned());
                    start = i + 1;
                }
                _ => {}
            }
        }
        variants.push(code[start..at.max(start)].to_owned());
        let names = variants
            .iter()
            .filter_map(|v| {
                // Past the attributes and doc lines: the variant's name.
                let v = attribute.replace_all(v, "");
                variant.captures(&v).map(|m| m[1].to_owned())
            })
            .collect();
        out.push((c[1].to_owned(), names));
    }
    out
}

/// What in `code` (a file of the binary, [`outcome_code`]) declares again
/// one of the library's [`ONE_DECLARATION`] types: an enum with its
/// variants, a `From` between such a mirror and the library's type, or a
/// hand parser of its words (`"memory" => Scope::Memory`, a function that
/// answers one parsed).
fn mirrors(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (name, variants) in enums(code) {
        for (of, theirs) in ONE_DECLARATION {
            if theirs.iter().all(|v| variants.contains(&(*v).to_owned())) {
                out.push(format!("enum {name} mirrors memdir::{of}"));
            }
        }
    }
    let types = ONE_DECLARATION
        .iter()
        .map(|(t, _)| *t)
        .collect::<Vec<_>>()
        .join("|");
    let from = Regex::new(&format!(
        r"impl\s+From<[^>]*\b(?:{types})\b[^>]*>\s+for|impl\s+From<[^>]*>\s+for\s+(?:memdir::)?(?:{types})\b"
    ))
    .expect("regex");
    let parser = Regex::new(&format!(
        r#"->\s*(?:Result|Option)<\s*(?:memdir::)?(?:{types})\b|""\s*=>\s*(?:Some\(|Ok\()?(?:memdir::)?(?:{types})::"#
    ))
    .expect("regex");
    for m in from.find_iter(code).chain(parser.find_iter(code)) {
        out.push(m.as_str().to_owned());
    }
    out
}

/// One declaration per concept: `Scope`, `FactKind`, `Status` and `Keep`
/// are the library's, and the command line (`clap::ValueEnum`, derived in
/// the library under its `cli` feature), MCP and HTTP (serde and schemars)
/// take them as they are; the binary declares no mirror of one, converts
/// none with `From`, and parses none by hand.
#[test]
fn the_binary_takes_the_library_s_words_as_they_are() {
    let root = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."));
    let mut wrong = Vec::new();
    for rel in sources(&root.join("bin/src")) {
        if is_test_file(&rel) {
            continue;
        }
        let text = std::fs::read_to_string(root.join("bin/src").join(&rel)).expect("source");
        for m in mirrors(&outcome_code(&text)) {
            wrong.push(format!("bin/src/{}: {m}", rel.display()));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    // The library derives the command line's parser on each.
    let mut lib = String::new();
    for rel in sources(&root.join("src")) {
        lib.push_str(&std::fs::read_to_string(root.join("src").join(&rel)).expect("source"));
    }
    for (name, _) in ONE_DECLARATION {
        let derived = Regex::new(&format!(
            r#"#\[cfg_attr\(feature = "cli", derive\(clap::ValueEnum\)\)\]\n(?:#\[[^\n]*\n)*pub enum {name} \{{"#
        ))
        .expect("regex");
        assert_eq!(
            derived.find_iter(&lib).count(),
            1,
            "memdir::{name} is declared once and derives clap::ValueEnum under `cli`"
        );
    }
}

/// The mirror checker finds an enum of the same variants, a `From` and a
/// hand parser, and leaves the binary's own enums alone.
#[test]
fn the_mirror_checker_catches_what_it_should() {
    let found = |code: &str| mirrors(&outcome_code(code));
    let planted = [
        "pub enum KeepArg {\n    /// Both.\n    Both,\n    #[value(name = \"live\")]\n    Live,\n    One,\n}",
        "enum S { Active, Archived }",
        "pub(crate) enum Kind { Fact, Day, Other(String) }",
        "enum Store { Memory = 1, User = 2 }",
        "impl From<KeepArg> for memdir::Keep { fn from(k: KeepArg) -> Self { todo!() } }",
        "impl From<Scope> for Place { fn from(s: Scope) -> Self { todo!() } }",
        "fn parse_status(s: &str) -> Result<Status, String> { todo!() }",
        "fn pick(s: &str) -> Option<memdir::Scope> { None }",
        "let k = match s {\n    \"day\" => FactKind::Day,\n    _ => FactKind::Fact,\n};",
    ];
    for code in planted {
        assert!(!found(code).is_empty(), "not caught: {code}");
    }
    let clean = [
        "pub enum Operation { Add, Replace, Remove, Read }",
        "enum Format { Text, Json }",
        "enum Phase { Live, Draining }",
        "let s = Scope::parse(word).unwrap_or(Scope::Memory);",
        "fn scope(s: Scope) -> &'static str { s.name() }",
        "// enum Mirror { Active, Archived }",
        "let k = FactKind::parse(&f.kind).unwrap_or(FactKind::Fact);",
    ];
    for code in clean {
        assert_eq!(found(code), Vec::<String>::new(), "flagged: {code}");
    }
}
