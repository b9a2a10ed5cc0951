//! Chooses how the `memdir` binary is linked on Linux with glibc, where start-up is part of
//! every command (docs/PERFORMANCE.md, start-up). These choices are the binary's alone: the
//! library's build script (`build/main.rs`) changes nothing in how programs that link memdir
//! are linked.
//!
//! - The binary is a position-independent executable (PIE), so ASLR randomises its own code
//!   and data too: a fixed-address link (`-no-pie`) would start faster (the loader relocates
//!   fewer pointers) but gives up ASLR, which memdir never trades for speed (docs/SECURITY.md,
//!   The binary). The PIE is linked with packed relative relocations (`-z
//!   pack-relative-relocs`, DT_RELR), which keep most of that start-up cost away, where the
//!   linker and C library support them (GNU ld 2.38+, glibc 2.36+).
//! - The unwinder std needs is the system's shared `libgcc_s.so`, as cargo links it: a static
//!   copy (`libgcc_eh.a`) would start a little faster, but a fix to the system's unwinder would
//!   then reach memdir only with a rebuild, and start-up is not worth that.
//!
//! Where the probe fails, the binary is linked as cargo links it.

#[path = "link.rs"]
mod link;

use link::{links_with, native_linux_gnu};

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=link.rs");
    if !native_linux_gnu() {
        return;
    }
    if links_with(&["-fPIE", "-pie", "-Wl,-z,pack-relative-relocs"]) {
        println!("cargo:rustc-link-arg-bins=-Wl,-z,pack-relative-relocs");
    }
}
