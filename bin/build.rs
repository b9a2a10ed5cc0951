//! Chooses how the `memdir` binary is linked on Linux with glibc, where start-up is part of
//! every write (agents run one `memdir` process per operation; docs/PERFORMANCE.md, start-up).
//!
//! The binary is a position-independent executable (PIE), so ASLR randomises its own code and
//! data too: a fixed-address link (`-no-pie`) would start faster (the loader relocates fewer
//! pointers) but gives up ASLR, which memdir never trades for speed (docs/SECURITY.md, The
//! binary). The PIE is linked with packed relative relocations (`-z pack-relative-relocs`,
//! DT_RELR), which keep most of that start-up cost away, where the linker and C
//! library support them (GNU ld 2.38+, glibc 2.36+). Where a probe fails, the binary is linked
//! as cargo links it. (The library's build script, `build/main.rs`, links the unwinder in.)

#[path = "../build/link.rs"]
mod link;

use link::{links_with, native_linux_gnu};

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=../build/link.rs");
    if !native_linux_gnu() {
        return;
    }
    if links_with(&["-fPIE", "-pie", "-Wl,-z,pack-relative-relocs"]) {
        println!("cargo:rustc-link-arg-bins=-Wl,-z,pack-relative-relocs");
    }
}
