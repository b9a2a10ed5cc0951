//! The link probes of the binary's build script (`build.rs`).

use std::io::Write;
use std::process::{Command, Stdio};

/// Whether the build is for Linux with glibc on the machine that builds it, where the
/// probes below can run what they link.
pub fn native_linux_gnu() -> bool {
    let var = |k: &str| std::env::var(k).unwrap_or_default();
    var("CARGO_CFG_TARGET_OS") == "linux"
        && var("CARGO_CFG_TARGET_ENV") == "gnu"
        && var("HOST") == var("TARGET")
}

/// Whether the C toolchain links, and the system runs, a small program with pointers in its
/// data linked with `flags`.
pub fn links_with(flags: &[&str]) -> bool {
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
