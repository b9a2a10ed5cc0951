//! Links the `memdir` binary with packed relative relocations
//! (`-z pack-relative-relocs`, DT_RELR) where the linker and C library
//! support them (GNU ld 2.38+, glibc 2.36+): a 4.8 MB position-independent
//! binary otherwise carries some 15,000 relocation records that the dynamic
//! loader reads and applies at every start, which costs a one-shot command
//! more than its own work (docs/PERFORMANCE.md, start-up). The binary stays
//! position-independent (ASLR is kept). Where the probe fails the binary is
//! linked as before.

use std::io::Write;
use std::process::{Command, Stdio};

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let env = std::env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    let host = std::env::var("HOST").unwrap_or_default();
    let target = std::env::var("TARGET").unwrap_or_default();
    if os == "linux" && env == "gnu" && host == target && links_with_relr() {
        println!("cargo:rustc-link-arg-bins=-Wl,-z,pack-relative-relocs");
    }
}

/// Whether the C toolchain links (and the C library accepts) a program with
/// packed relative relocations.
fn links_with_relr() -> bool {
    let out = std::env::var("OUT_DIR").unwrap_or_else(|_| ".".into());
    let exe = std::path::Path::new(&out).join("relr-probe");
    let Ok(mut cc) = Command::new("cc")
        .args(["-x", "c", "-", "-o"])
        .arg(&exe)
        .args(["-fPIE", "-pie", "-Wl,-z,pack-relative-relocs"])
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
    // The probe must also run: the loader must know DT_RELR.
    linked && Command::new(&exe).status().is_ok_and(|s| s.success())
}
