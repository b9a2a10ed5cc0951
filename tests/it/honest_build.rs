//! The build is honest: the library's build script changes nothing in how
//! the programs that link memdir are linked, the binary keeps ASLR over its
//! own code, and nothing is leaked to save the time of freeing it.

use std::path::Path;

fn repo() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
}

fn read(rel: &str) -> String {
    std::fs::read_to_string(repo().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// Every `cargo:` directive a build script's source prints that changes a
/// link (a library, a search path or an argument passed to the linker).
fn link_directives(src: &str) -> Vec<&str> {
    src.lines()
        .filter(|l| {
            [
                "rustc-link-lib",
                "rustc-link-arg",
                "rustc-link-search",
                "rustc-flags",
                "-no-pie",
            ]
            .iter()
            .any(|d| l.contains(d))
        })
        .map(str::trim)
        .collect()
}

#[test]
fn the_library_s_build_script_does_not_touch_the_link_of_its_users() {
    let mut found = Vec::new();
    for e in std::fs::read_dir(repo().join("build")).expect("build/") {
        let p = e.expect("entry").path();
        let text = std::fs::read_to_string(&p).expect("utf-8");
        found.extend(
            link_directives(&text)
                .into_iter()
                .map(|l| format!("{}: {l}", p.display())),
        );
    }
    assert!(found.is_empty(), "{found:#?}");
    assert_eq!(
        link_directives("println!(\"cargo:rustc-link-lib=static:-bundle=gcc_eh\");").len(),
        1,
        "the check sees a link directive"
    );
}

#[test]
fn the_binary_is_a_pie() {
    let build = read("bin/build.rs");
    assert!(
        !build.contains("\"-no-pie\"") && !build.contains("-Wl,-no-pie"),
        "bin/build.rs"
    );
    // The ELF header of the built binary: a PIE is of type ET_DYN (3), a
    // fixed-address executable ET_EXEC (2).
    let bin = std::fs::read(crate::util::BIN).expect("the memdir binary");
    assert_eq!(&bin[..4], b"\x7fELF");
    assert_eq!(
        u16::from_le_bytes([bin[16], bin[17]]),
        3,
        "e_type of {}",
        crate::util::BIN
    );
}

/// The binary's build script links no library of its own, a static
/// unwinder above all (`libgcc_eh.a`: a fix to the system's unwinder would
/// reach memdir only with a rebuild); its one link argument is the PIE's
/// packed relocations.
#[test]
fn the_binary_links_the_system_s_shared_unwinder() {
    let build = read("bin/build.rs");
    let links: Vec<&str> = link_directives(&build)
        .into_iter()
        .filter(|l| l.contains("cargo:"))
        .collect();
    assert!(
        !links.is_empty() && links.iter().all(|l| l.contains("pack-relative-relocs")),
        "bin/build.rs: {links:#?}"
    );
}

#[test]
fn the_binary_leaks_nothing_on_purpose() {
    let mut found = Vec::new();
    let mut stack = vec![repo().join("bin/src"), repo().join("src")];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).expect("readable").flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                let text = std::fs::read_to_string(&p).expect("utf-8");
                for (i, l) in text.lines().enumerate() {
                    if ["ManuallyDrop", "mem::forget", "Box::leak", ".leak()"]
                        .iter()
                        .any(|w| l.contains(w))
                    {
                        found.push(format!("{}:{}: {}", p.display(), i + 1, l.trim()));
                    }
                }
            }
        }
    }
    assert!(found.is_empty(), "{found:#?}");
}
