//! Generates the scanner's table of ASCII lookalikes (see `lookalikes.rs`).
//!
//! That is all: the library's build script does not change how the programs
//! that link memdir are linked. How the `memdir` binary itself is linked is
//! the binary crate's build script's business (`bin/build.rs`).

mod lookalikes;

fn main() {
    println!("cargo:rerun-if-changed=build");
    let out = std::env::var("OUT_DIR").unwrap_or_else(|_| ".".into());
    let table = std::path::Path::new(&out).join("lookalikes.rs");
    if let Err(e) = std::fs::write(&table, lookalikes::source()) {
        panic!("cannot write {}: {e}", table.display());
    }
}
