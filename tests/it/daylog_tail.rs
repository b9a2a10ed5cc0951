//! Recall reads the day log from the end of episodes.md: with 60 MiB of
//! history it answers today's and yesterday's lines, and the history before
//! the recent sections is not even decoded.

use chrono::{Duration, Utc};
use serde_json::Value;

use crate::util::Sandbox;

const O: &str = "agt_tail";

/// The day log lines a recall answers, as `DATE text` strings.
fn day_log(s: &Sandbox) -> Vec<String> {
    let v = s.json_ok(&["--owner", O, "recall", "--preview"]);
    v["day_log"]
        .as_array()
        .unwrap_or_else(|| panic!("day_log: {v}"))
        .iter()
        .map(|d| serde_json::to_string(d).expect("JSON"))
        .collect()
}

/// Sorted history of about `bytes` bytes, oldest first, ending two days
/// ago.
fn history(bytes: usize) -> String {
    let mut out = String::with_capacity(bytes + 4096);
    let line = format!("- 09:00 an old line {}\n", "o".repeat(200));
    let mut day = Utc::now().date_naive() - Duration::days(2);
    let mut sections = Vec::new();
    let mut size = 0;
    while size < bytes {
        let sec = format!("## {day}\n\n{}{}\n", line, line);
        size += sec.len();
        sections.push(sec);
        day -= Duration::days(1);
    }
    for sec in sections.iter().rev() {
        out.push_str(sec);
    }
    out
}

#[test]
fn a_recall_on_a_60_mib_log_answers_today_and_yesterday() {
    let s = Sandbox::new();
    s.run(&["--owner", O, "add", "A fact"]).ok();
    let today = Utc::now().date_naive();
    let yesterday = today - Duration::days(1);
    let recent = format!(
        "## {yesterday}\n\n- 17:00 [PIN-1] shipped the importer\n\n## {today}\n\n- 08:00 reviewed \
         the queue\n- 08:30 fixed the flaky test\n"
    );
    // Bytes that are not UTF-8 at the start: only a whole read decodes them.
    let mut file = b"# Journal \xff\xfe\n\n".to_vec();
    file.extend_from_slice(history(60 << 20).as_bytes());
    file.extend_from_slice(recent.as_bytes());
    s.write(O, "episodes.md", &file);
    let got = day_log(&s);
    let small = Sandbox::new();
    small.run(&["--owner", O, "add", "A fact"]).ok();
    let mut file = b"# Journal\n\n".to_vec();
    file.extend_from_slice(history(60 << 10).as_bytes());
    file.extend_from_slice(recent.as_bytes());
    small.write(O, "episodes.md", &file);
    let want = day_log(&small);
    assert_eq!(got, want);
    let all = want.join("\n");
    assert_eq!(want.len(), 3, "{all}");
    for text in [
        "shipped the importer",
        "reviewed the queue",
        "fixed the flaky test",
    ] {
        assert!(all.contains(text), "{all}");
    }
    assert!(!all.contains("an old line"), "{all}");
}

#[test]
fn a_section_out_of_date_order_is_reported_by_check() {
    let s = Sandbox::new();
    s.run(&["--owner", O, "add", "A fact"]).ok();
    let today = Utc::now().date_naive();
    let old = today - Duration::days(10);
    let older = today - Duration::days(20);
    // Today's section moved before an older one: a recall reading from the
    // end stops at the older one, so check names the section out of order.
    s.write(
        O,
        "episodes.md",
        format!("## {older}\n\n- 01:00 a\n\n## {today}\n\n- 08:00 today's line\n\n## {old}\n\n- 02:00 b\n"),
    );
    let v = s.json_ok(&["check", O]);
    let found: Vec<&Value> = v["reports"][0]["findings"]
        .as_array()
        .unwrap_or_else(|| panic!("{v}"))
        .iter()
        .filter(|f| f["kind"] == "day_log_out_of_order")
        .collect();
    assert_eq!(found.len(), 1, "{v}");
    assert_eq!(found[0]["file"], format!("{O}/episodes.md"), "{v}");
    assert_eq!(found[0]["line"], 9, "{v}");
    assert_eq!(found[0]["severity"], "warning", "{v}");
    // In date order again, nothing to report, and the recall sees today.
    s.write(
        O,
        "episodes.md",
        format!("## {older}\n\n- 01:00 a\n\n## {old}\n\n- 02:00 b\n\n## {today}\n\n- 08:00 today's line\n"),
    );
    let v = s.json_ok(&["check", O]);
    assert!(!v.to_string().contains("day_log_out_of_order"), "{v}");
    let got = day_log(&s).join("\n");
    assert!(got.contains("today's line"), "{got}");
}
