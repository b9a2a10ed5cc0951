//! The Python package (`python/`: the `memdir` client, the Hermes memory
//! provider, Claude's memory tool) tested by its own pytest suite against
//! this build's `memdir` binary, in the venv `MEMDIR_PYTHON` names (made by
//! `python/setup-venv.sh`: the pinned hermes-agent, anthropic and pytest, and
//! `./python` installed). Skipped without `MEMDIR_PYTHON`, unless
//! `MEMDIR_REQUIRE_PYTHON=1` (CI), which makes a missing venv, a failing
//! test or a skipped one a failure.

use std::path::Path;
use std::process::Command;

/// The venv's interpreter, or `None` to skip.
fn python() -> Option<String> {
    match std::env::var("MEMDIR_PYTHON") {
        Ok(p) if !p.is_empty() => Some(p),
        _ => {
            assert!(
                std::env::var("MEMDIR_REQUIRE_PYTHON").as_deref() != Ok("1"),
                "MEMDIR_REQUIRE_PYTHON=1 but MEMDIR_PYTHON is not set"
            );
            crate::util::not_run("set MEMDIR_PYTHON to a venv's python (python/setup-venv.sh)");
            None
        }
    }
}

#[test]
fn the_python_package_passes_its_tests_against_this_binary() {
    let Some(python) = python() else { return };
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let tests = repo.join("python").join("tests");
    let out = Command::new(&python)
        .args(["-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider"])
        .arg(&tests)
        .env("MEMDIR_BIN", crate::util::BIN)
        // The package under test is the installed one, not the source tree.
        .current_dir(std::env::temp_dir())
        .env_remove("PYTHONPATH")
        .output()
        .unwrap_or_else(|e| panic!("cannot run {python}: {e}"));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "pytest failed:\n{stdout}\n{stderr}");
    let summary = stdout
        .lines()
        .rev()
        .find(|l| l.contains(" passed"))
        .unwrap_or("");
    assert!(
        !summary.contains("skipped") && !summary.contains("xfail"),
        "every Python test must run here, none skipped:\n{stdout}"
    );
    let passed: u32 = summary
        .split_whitespace()
        .zip(summary.split_whitespace().skip(1))
        .find(|(_, w)| w.trim_end_matches(',') == "passed")
        .and_then(|(n, _)| n.parse().ok())
        .unwrap_or(0);
    assert!(
        passed >= 20,
        "too few Python tests ran ({passed}):\n{stdout}"
    );
}
