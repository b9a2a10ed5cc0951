//! episodes.md through the real binary: concurrent appends from several
//! processes, hand edits kept, limits with their codes.

use std::path::Path;

use crate::util::{Run, run_at};

/// `memdir --root ROOT --owner agt ARGS`.
fn memdir(root: &Path, args: &[&str]) -> Run {
    run_at(root, &[&["--owner", "agt"][..], args].concat())
}

fn code(out: &Run) -> String {
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    v["error"]["code"].as_str().unwrap().to_owned()
}

#[test]
fn concurrent_appends_from_processes_all_land_in_order() {
    let d = tempfile::tempdir().unwrap();
    let root = d.path().to_owned();
    // A person's notes at the top, written before any append.
    std::fs::create_dir_all(root.join("agt")).unwrap();
    let preamble = "# Journal of agt\n\nKept by the agent; people may add notes.\n";
    std::fs::write(root.join("agt/episodes.md"), preamble).unwrap();
    let workers: Vec<_> = (0..4)
        .map(|w| {
            let root = root.clone();
            std::thread::spawn(move || {
                for i in 0..15 {
                    let line = format!("worker {w} line {i:02}");
                    let out = memdir(&root, &["day", &line, "--task", &format!("W-{w}")]);
                    assert!(out.success(), "{}", out.stderr);
                }
            })
        })
        .collect();
    for w in workers {
        w.join().unwrap();
    }
    let text = std::fs::read_to_string(root.join("agt/episodes.md")).unwrap();
    assert!(
        text.starts_with(preamble),
        "hand-written preamble changed:\n{text}"
    );
    let out = memdir(&root, &["--json", "list", "--kind", "day"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut texts: Vec<String> = Vec::new();
    for row in v["rows"].as_array().unwrap() {
        assert_eq!(row["kind"], "day");
        for l in row["text"].as_str().unwrap().lines() {
            // "HH:MM [W-n] worker n line i": keep the text after the task key.
            texts.push(l.split_once("] ").unwrap().1.to_owned());
        }
    }
    assert_eq!(texts.len(), 60, "{text}");
    for w in 0..4 {
        // Each worker's lines are present once and in the order it wrote them.
        let mine: Vec<&String> = texts
            .iter()
            .filter(|t| t.starts_with(&format!("worker {w} ")))
            .collect();
        let want: Vec<String> = (0..15).map(|i| format!("worker {w} line {i:02}")).collect();
        assert_eq!(mine, want.iter().collect::<Vec<_>>());
    }
}

#[test]
fn hand_edits_survive_and_sections_stay_in_date_order() {
    let d = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(d.path().join("agt")).unwrap();
    let src = "## 2000-01-01\r\n\r\n- 09:00 an old day\r\n\r\nA person's note about that day.\r\n";
    std::fs::write(d.path().join("agt/episodes.md"), src).unwrap();
    let out = memdir(d.path(), &["day", "today's line"]);
    assert!(out.success());
    let text = std::fs::read_to_string(d.path().join("agt/episodes.md")).unwrap();
    assert!(text.starts_with(src), "{text:?}");
    let today = chrono::Utc::now().format("%Y-%m-%d").to_string();
    assert!(
        text[src.len()..].starts_with(&format!("\r\n## {today}\r\n\r\n- ")),
        "{text:?}"
    );
    assert!(text.ends_with(" today's line\r\n"));
}

#[test]
fn limits_and_callers_have_their_codes() {
    let d = tempfile::tempdir().unwrap();
    let long = "x".repeat(301);
    let out = memdir(d.path(), &["--json", "day", &long]);
    assert_eq!(out.code, 1);
    assert_eq!(code(&out), "memory_day_line_too_long");
    // (The agent exists: a person naming a missing one is owner_not_found.)
    assert_eq!(memdir(d.path(), &["day", "the first line"]).code, 0);
    let out = memdir(d.path(), &["--json", "--person", "dana", "day", "hello"]);
    assert_eq!(code(&out), "memory_day_agent_only");
    let line = "y".repeat(290);
    let mut last = None;
    for _ in 0..30 {
        let out = memdir(d.path(), &["--json", "day", &line]);
        if !out.success() {
            last = Some(code(&out));
            break;
        }
    }
    assert_eq!(last.as_deref(), Some("memory_day_full"));
    // Nothing else was created: episodes.md only, never USER.md or MEMORY.md.
    assert!(!d.path().join("agt/MEMORY.md").exists());
}
