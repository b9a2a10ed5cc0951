//! Chooses how the `memdir` binary is linked on Linux with glibc, where start-up is part of
//! every write (agents run one `memdir` process per operation; docs/PERFORMANCE.md, start-up).
//!
//! A position-independent executable (PIE) of this size carries tens of thousands of pointers
//! in tables (regex case folding, HTML entities, vtables, the clap command tree) that the dynamic
//! loader relocates at every start, writing to (and so copying) some 70 pages before `main`
//! runs. So by default the binary is linked as a fixed-address executable (`-no-pie`): the
//! objects stay position-independent, the linker resolves their relocations once, and the
//! loader has about a hundred left (the C library's symbols). The cost is that the binary's
//! own code and data are not randomised by ASLR (the stack, heap, libraries and mappings still
//! are); docs/SECURITY.md weighs it. Building with `MEMDIR_PIE=1` keeps a PIE, linked with
//! packed relative relocations (`-z pack-relative-relocs`, DT_RELR) where the linker and C
//! library support them (GNU ld 2.38+, glibc 2.36+). Where a probe fails, the binary is linked
//! as cargo links it. (The library's build script, `build/main.rs`, links the unwinder in.)

#[path = "../build/link.rs"]
mod link;

use link::{links_with, native_linux_gnu};

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=../build/link.rs");
    println!("cargo:rerun-if-env-changed=MEMDIR_PIE");
    if !native_linux_gnu() {
        return;
    }
    let pie = std::env::var_os("MEMDIR_PIE").is_some_and(|v| v != "0");
    if !pie && links_with(&["-no-pie"]) {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    } else if links_with(&["-fPIE", "-pie", "-Wl,-z,pack-relative-relocs"]) {
        println!("cargo:rustc-link-arg-bins=-Wl,-z,pack-relative-relocs");
    }
}
