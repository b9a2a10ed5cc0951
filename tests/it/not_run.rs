//! A test that cannot run on this machine (no Python venv, no model, no
//! browser, no client, no git) says so in `cargo test`'s output by its
//! name, instead of passing in silence: each is run here as a child of this
//! very test binary, without what it needs, and its output is read.

use std::process::Command;

/// `test` run alone (exactly that name) in this test binary with the
/// variables `remove` names unset; its standard error.
fn stderr_of(test: &str, remove: &[&str]) -> String {
    let exe = std::env::current_exe().expect("the test binary's path");
    let mut cmd = Command::new(exe);
    cmd.args([test, "--exact", "--test-threads", "1"]);
    for var in remove {
        cmd.env_remove(var);
    }
    let out = cmd.output().expect("the test binary runs");
    assert!(
        out.status.success(),
        "{test} failed:\n{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("1 passed"),
        "{test} did not run at all:\n{stdout}"
    );
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn a_test_without_its_python_says_by_name_that_it_did_not_run() {
    let test = "python::the_python_package_passes_its_tests_against_this_binary";
    let err = stderr_of(test, &["MEMDIR_PYTHON", "MEMDIR_REQUIRE_PYTHON"]);
    assert!(
        err.contains(&format!("NOT RUN {test}: set MEMDIR_PYTHON")),
        "{err}"
    );
}

#[test]
fn a_test_without_its_wheel_says_by_name_that_it_did_not_run() {
    let test = "wheel::the_wheel_installs_and_runs_as_a_user_would_without_cargo";
    let err = stderr_of(test, &["MEMDIR_WHEEL", "MEMDIR_REQUIRE_WHEEL"]);
    assert!(
        err.contains(&format!("NOT RUN {test}: set MEMDIR_WHEEL")),
        "{err}"
    );
}

#[test]
fn a_test_without_its_model_says_by_name_that_it_did_not_run() {
    let test = "semantic::the_model_finds_what_no_word_shares_after_its_vectors_are_cached";
    let err = stderr_of(test, &["MEMDIR_MODEL_DIR", "MEMDIR_REQUIRE_MODEL"]);
    assert!(
        err.contains(&format!("NOT RUN {test}: MEMDIR_MODEL_DIR is not set")),
        "{err}"
    );
}

/// Every early return for want of a tool goes through `util::not_run`: no
/// test reports a skip with `eprintln!`, which a passing test's output drops.
#[test]
fn no_test_skips_through_a_captured_print() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut found = Vec::new();
    for dir in ["tests/it", "src"] {
        let mut stack = vec![root.join(dir)];
        while let Some(d) = stack.pop() {
            for e in std::fs::read_dir(&d).expect("readable").flatten() {
                let p = e.path();
                if p.is_dir() {
                    stack.push(p);
                } else if p.extension().is_some_and(|x| x == "rs") {
                    let text = std::fs::read_to_string(&p).expect("utf-8");
                    for (i, line) in text.lines().enumerate() {
                        let l = line.to_ascii_lowercase();
                        if l.contains("println!(")
                            && (l.contains("\"skipped:")
                                || l.contains("\"skipped the")
                                || l.contains("skipping\"")
                                || l.contains("\"not run {"))
                        {
                            found.push(format!("{}:{}: {}", p.display(), i + 1, line.trim()));
                        }
                    }
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "skips printed where libtest drops them:\n{}",
        found.join("\n")
    );
}
