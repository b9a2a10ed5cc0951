//! Generates the scanner's table of ASCII lookalikes (see `lookalikes.rs`), and links the
//! unwinder into every program that links memdir on Linux with glibc, where start-up is part of
//! every write (agents run one `memdir` process per operation; docs/PERFORMANCE.md, start-up).
//! The unwinder is linked in from `libgcc_eh.a` instead of loaded from `libgcc_s.so`
//! (`MEMDIR_SHARED_UNWINDER=1` keeps the shared one). How the `memdir` binary itself is linked
//! (fixed address or PIE) is the binary crate's build script's business (`bin/build.rs`). Where
//! a probe fails, the library is linked as cargo links it.

mod link;
mod lookalikes;

use link::{links_with, native_linux_gnu};

fn main() {
    println!("cargo:rerun-if-changed=build");
    let out = std::env::var("OUT_DIR").unwrap_or_else(|_| ".".into());
    let table = std::path::Path::new(&out).join("lookalikes.rs");
    if let Err(e) = std::fs::write(&table, lookalikes::source()) {
        panic!("cannot write {}: {e}", table.display());
    }
    if !native_linux_gnu() {
        return;
    }
    // The unwinder linked in (libgcc_eh.a) rather than loaded (libgcc_s.so): one shared object
    // less to map and relocate at every start, and libgcc_s's constructor runs the `cpuid`
    // instruction several times, which traps to the hypervisor on a virtual machine
    // (docs/PERFORMANCE.md). Passed to the library, so every program that links memdir gets it
    // (the benches' floor does not link memdir). `MEMDIR_SHARED_UNWINDER=1` keeps libgcc_s.
    println!("cargo:rerun-if-env-changed=MEMDIR_SHARED_UNWINDER");
    let shared = std::env::var_os("MEMDIR_SHARED_UNWINDER").is_some_and(|v| v != "0");
    if !shared && links_with(&["-l:libgcc_eh.a"]) {
        println!("cargo:rustc-link-lib=static:-bundle=gcc_eh");
    }
}
