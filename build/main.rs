//! Generates the scanner's table of ASCII lookalikes (see `lookalikes.rs`), and chooses how
//! the `memdir` binary is linked on Linux with glibc, where start-up is part of every write
//! (agents run one `memdir` process per operation; docs/PERFORMANCE.md, start-up).
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
//! library support them (GNU ld 2.38+, glibc 2.36+). The unwinder is linked in from
//! `libgcc_eh.a` instead of loaded from `libgcc_s.so` (`MEMDIR_SHARED_UNWINDER=1` keeps the
//! shared one). Where a probe fails, the binary is linked as cargo links it.

use std::io::Write;
use std::process::{Command, Stdio};

mod lookalikes;

fn main() {
    println!("cargo:rerun-if-changed=build");
    let out = std::env::var("OUT_DIR").unwrap_or_else(|_| ".".into());
    let table = std::path::Path::new(&out).join("lookalikes.rs");
    if let Err(e) = std::fs::write(&table, lookalikes::source()) {
        panic!("cannot write {}: {e}", table.display());
    }
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let env = std::env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    let host = std::env::var("HOST").unwrap_or_default();
    let target = std::env::var("TARGET").unwrap_or_default();
    println!("cargo:rerun-if-env-changed=MEMDIR_PIE");
    if os != "linux" || env != "gnu" || host != target {
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
    let pie = std::env::var_os("MEMDIR_PIE").is_some_and(|v| v != "0");
    if !pie && links_with(&["-no-pie"]) {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    } else if links_with(&["-fPIE", "-pie", "-Wl,-z,pack-relative-relocs"]) {
        println!("cargo:rustc-link-arg-bins=-Wl,-z,pack-relative-relocs");
    }
}

/// Whether the C toolchain links, and the system runs, a small program with pointers in its
/// data linked with `flags`.
fn links_with(flags: &[&str]) -> bool {
    let out = std::env::var("OUT_DIR").unwrap_or_else(|_| ".".into());
    let exe = std::path::Path::new(&out).join("link-probe");
    let Ok(mut cc) = Command::new("cc")
        .args(["-x", "c", "-", "-o"])
        .arg(&exe)
        .args(flags)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
    else {
        return false;
    };
    if let Some(mut stdin) = cc.stdin.take() {
        let _ = stdin.write_all(b"static int x; int *p = &x; int main(void) { return *p; }\n");
    }
    let linked = cc.wait().is_ok_and(|s| s.success());
    // The probe must also run (the loader must know DT_RELR, for one).
    linked && Command::new(&exe).status().is_ok_and(|s| s.success())
}
