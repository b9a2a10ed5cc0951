//! The routine ("Memory dreaming"): when a review is due, the last review
//! as the owner's journal records it, and the `review:` line of an owner's
//! `memdir.yaml` added or edited in place (the rest of the file untouched).
//!
//! Pure: the store reads episodes.md and memdir.yaml and passes their text.

use chrono::{DateTime, Duration, NaiveDateTime, NaiveTime, Utc};
use serde::Serialize;

use crate::model::{REVIEW_AT, ReviewSettings};

/// The comment written above a new routine's line.
pub const ROUTINE_COMMENT: &str =
    "# The daily review (\"Memory dreaming\"): due daily at `at` (UTC) unless paused.";

/// `HH:MM` (00:00–23:59) as a time of day.
pub fn parse_at(s: &str) -> Option<NaiveTime> {
    let b = s.as_bytes();
    if b.len() != 5
        || b[2] != b':'
        || !s[..2]
            .bytes()
            .chain(s[3..].bytes())
            .all(|c| c.is_ascii_digit())
    {
        return None;
    }
    NaiveTime::parse_from_str(s, "%H:%M").ok()
}

/// The latest scheduled time at or before `now`: today at `at`, or
/// yesterday at `at` when that is still to come today.
pub fn latest_scheduled(at: NaiveTime, now: DateTime<Utc>) -> DateTime<Utc> {
    let today = now.date_naive().and_time(at).and_utc();
    if today <= now {
        today
    } else {
        today - Duration::days(1)
    }
}

/// The first scheduled time after `now`.
pub fn next_scheduled(at: NaiveTime, now: DateTime<Utc>) -> DateTime<Utc> {
    latest_scheduled(at, now) + Duration::days(1)
}

/// The last review the journal records.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LastReview {
    /// Its id.
    pub id: String,
    /// When it ran (from its id).
    pub at: DateTime<Utc>,
    /// Its journal line's text (`review: 1 merged, …`).
    pub report: String,
    /// Whether `review undo` undid it (its journal line `review undo: …`
    /// names the review).
    pub undone: bool,
}

/// The time a review id (`review-YYYYMMDDTHHMMSSZ-xxxxxxxx`) names.
pub fn review_time(id: &str) -> Option<DateTime<Utc>> {
    let rest = id.strip_prefix("review-")?;
    let (stamp, hash) = rest.split_once('-')?;
    if hash.len() != 8 || !hash.bytes().all(|c| c.is_ascii_hexdigit()) {
        return None;
    }
    NaiveDateTime::parse_from_str(stamp, "%Y%m%dT%H%M%SZ")
        .ok()
        .map(|t| t.and_utc())
}

/// The most reviews [`reviews`] lists.
pub const MAX_REVIEWS: usize = 100;

/// The newest review recorded in episodes.md's text: a day line
/// `HH:MM review: … (run review-…)`, undone when a line `HH:MM review undo:
/// … (run review-…)` names it. One pass over the text looking for the
/// marker, no parse of the journal.
pub fn last_review(episodes: &str) -> Option<LastReview> {
    reviews(episodes, 1).pop()
}

/// Every review recorded in episodes.md's text, newest first (by the time
/// its id names), at most `limit` of them and never more than
/// [`MAX_REVIEWS`]: each a day line `HH:MM review: … (run review-…)`,
/// undone when a line `HH:MM review undo: … (run review-…)` names it. A
/// review recorded twice is listed once (its last line). One pass over
/// the text looking for the marker, no parse of the journal.
pub fn reviews(episodes: &str, limit: usize) -> Vec<LastReview> {
    const MARK: &str = " (run review-";
    let limit = limit.min(MAX_REVIEWS);
    let mut found: std::collections::BTreeMap<&str, LastReview> = Default::default();
    let mut undone = std::collections::BTreeSet::new();
    for (pos, _) in episodes.match_indices(MARK) {
        let start = episodes[..pos].rfind('\n').map_or(0, |i| i + 1);
        let end = episodes[pos..]
            .find('\n')
            .map_or(episodes.len(), |i| pos + i);
        let line = &episodes[start..end];
        let tail = &episodes[pos + MARK.len() - "review-".len()..end];
        let Some(id) = tail.strip_suffix(')').map(str::trim) else {
            continue;
        };
        let Some(at) = review_time(id) else { continue };
        if line.contains(UNDO_MARK) {
            undone.insert(id);
            continue;
        }
        let Some(report) = line
            .find(" review: ")
            .map(|i| &line[i + 1..pos - start])
            .filter(|r| !r.contains('\n'))
        else {
            continue;
        };
        found.insert(
            id,
            LastReview {
                id: id.to_owned(),
                at,
                report: report.to_owned(),
                undone: false,
            },
        );
    }
    let mut all: Vec<LastReview> = found.into_values().collect();
    all.sort_by(|a, b| b.at.cmp(&a.at).then_with(|| b.id.cmp(&a.id)));
    all.truncate(limit);
    for r in &mut all {
        r.undone = undone.contains(r.id.as_str());
    }
    all
}

/// What the journal line of an undo starts with (after its time).
pub const UNDO_MARK: &str = " review undo: ";

/// Whether a review is due.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum Due {
    /// The owner has no `review:` setting.
    NoRoutine,
    /// The routine is paused.
    Paused,
    /// Due: the last review is older than `since` (or there is none).
    Due {
        /// The scheduled time it is due since.
        since: DateTime<Utc>,
    },
    /// Not due before `next`.
    NotDue {
        /// The next scheduled time.
        next: DateTime<Utc>,
    },
}

/// Whether a review is due at `now` under the routine `routine`: the last
/// review having run at `last`, or, for an owner never reviewed, its first
/// save having been at `first_save`. A review is due once a scheduled time
/// has passed since the later of the two known (the last review, else the
/// first save): a new owner's first review is due at the first scheduled
/// time after its first save, not at once; with neither known, at once.
/// An `at` that is not `HH:MM` is an error message.
pub fn due(
    routine: Option<&ReviewSettings>,
    last: Option<DateTime<Utc>>,
    first_save: Option<DateTime<Utc>>,
    now: DateTime<Utc>,
) -> Result<Due, String> {
    let Some(r) = routine else {
        return Ok(Due::NoRoutine);
    };
    let at = parse_at(r.at()).ok_or_else(|| {
        format!(
            "review.at: {} is not a UTC time HH:MM",
            crate::error::quoted(r.at())
        )
    })?;
    if r.paused() {
        return Ok(Due::Paused);
    }
    let since = latest_scheduled(at, now);
    Ok(match last.or(first_save) {
        // The first scheduled time after it (a time ahead of the clock,
        // from another machine, counts from itself).
        Some(t) if t >= since => Due::NotDue {
            next: next_scheduled(at, now.max(t)),
        },
        _ => Due::Due { since },
    })
}

/// The index (in bytes) and the line of the top-level `review:` key.
fn review_line(yaml: &str) -> Option<(usize, &str)> {
    let mut pos = 0;
    for line in yaml.split_inclusive('\n') {
        if line.starts_with("review:") {
            return Some((pos, line));
        }
        pos += line.len();
    }
    None
}

/// A routine's line: `review: {at: "04:00", paused: P}`.
fn routine_line(paused: bool) -> String {
    format!("review: {{at: \"{REVIEW_AT}\", paused: {paused}}}\n")
}

/// `yaml` with a new routine (comment and line) appended, or `None` when it
/// has a top-level `review:` key already. Nothing else changes.
pub fn add_routine(yaml: &str, paused: bool) -> Option<String> {
    if review_line(yaml).is_some() {
        return None;
    }
    let mut out = yaml.to_owned();
    if !out.is_empty() && !out.ends_with('\n') {
        out.push('\n');
    }
    out.push_str(ROUTINE_COMMENT);
    out.push('\n');
    out.push_str(&routine_line(paused));
    Some(out)
}

/// `yaml` with the routine's `paused` set: edited in place in a flow
/// (`review: {…}`) or block (`review:` then indented keys) mapping, the
/// routine added when missing. Only the bytes of that value (or one new
/// key) change.
pub fn set_paused(yaml: &str, paused: bool) -> String {
    let Some((start, line)) = review_line(yaml) else {
        return add_routine(yaml, paused).unwrap_or_else(|| yaml.to_owned());
    };
    let value = if paused { "true" } else { "false" };
    let body = line["review:".len()..].trim_end_matches(['\n', '\r']);
    let rest = body.trim_start();
    let splice =
        |from: usize, to: usize, with: &str| format!("{}{with}{}", &yaml[..from], &yaml[to..]);
    if rest.starts_with('{') {
        let base = start + "review:".len() + (body.len() - rest.len());
        if let Some(p) = rest.find("paused:") {
            let v_start = p + "paused:".len();
            let v_len = rest[v_start..]
                .find([',', '}'])
                .unwrap_or(rest.len() - v_start);
            return splice(base + v_start, base + v_start + v_len, &format!(" {value}"));
        }
        if let Some(close) = rest.rfind('}') {
            let inner = rest[1..close].trim();
            let add = if inner.is_empty() {
                format!("paused: {value}")
            } else {
                format!(", paused: {value}")
            };
            let at = base + rest[..close].trim_end().len();
            return splice(at, at, &add);
        }
    }
    if rest.is_empty() || rest.starts_with('#') {
        // Block mapping: the indented lines that follow.
        let mut pos = start + line.len();
        let mut indent = "  ".to_owned();
        let mut first_child = true;
        for child in yaml[pos..].split_inclusive('\n') {
            let t = child.trim_start_matches([' ', '\t']);
            if t.trim().is_empty() || t.starts_with('#') {
                pos += child.len();
                continue;
            }
            if t.len() == child.len() {
                break;
            }
            if first_child {
                indent = child[..child.len() - t.len()].to_owned();
                first_child = false;
            }
            if let Some(after) = t.strip_prefix("paused:") {
                let key_end = pos + (child.len() - t.len()) + "paused:".len();
                let field = &after[..after.find(['#', '\n', '\r']).unwrap_or(after.len())];
                let lead = field.len() - field.trim_start().len();
                let token = field.trim().len();
                if token == 0 {
                    return splice(key_end, key_end, &format!(" {value}"));
                }
                return splice(key_end + lead, key_end + lead + token, value);
            }
            pos += child.len();
        }
        let after_key = start + line.len();
        let nl = if line.ends_with('\n') { "" } else { "\n" };
        return splice(
            after_key,
            after_key,
            &format!("{nl}{indent}paused: {value}\n"),
        );
    }
    // `review: null` and the like: a routine line of its own.
    splice(start, start + line.len(), &routine_line(paused))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
    }

    fn routine(at: &str, paused: bool) -> ReviewSettings {
        crate::model::Settings::from_yaml(
            &format!("review: {{at: \"{at}\", paused: {paused}}}\n"),
            std::path::Path::new("memdir.yaml"),
        )
        .unwrap()
        .review
        .unwrap()
    }

    #[test]
    fn a_review_is_due_once_its_scheduled_time_passed_the_last_one() {
        let r = routine("04:00", false);
        let now = t("2026-03-10T05:00:00Z");
        assert_eq!(
            due(Some(&r), None, None, now),
            Ok(Due::Due {
                since: t("2026-03-10T04:00:00Z")
            })
        );
        // Yesterday's review, before today's 04:00: due.
        assert!(matches!(
            due(Some(&r), Some(t("2026-03-09T04:01:00Z")), None, now),
            Ok(Due::Due { .. })
        ));
        // Today's, after 04:00: not due before tomorrow's 04:00.
        assert_eq!(
            due(Some(&r), Some(t("2026-03-10T04:00:30Z")), None, now),
            Ok(Due::NotDue {
                next: t("2026-03-11T04:00:00Z")
            })
        );
        // Before today's 04:00, yesterday's 04:00 is the latest scheduled.
        let early = t("2026-03-10T03:59:00Z");
        assert!(matches!(
            due(Some(&r), Some(t("2026-03-09T04:00:00Z")), None, early),
            Ok(Due::NotDue { .. })
        ));
        assert!(matches!(
            due(Some(&r), Some(t("2026-03-09T03:59:59Z")), None, early),
            Ok(Due::Due { .. })
        ));
        assert_eq!(due(None, None, None, now), Ok(Due::NoRoutine));
        assert_eq!(
            due(Some(&routine("04:00", true)), None, None, now),
            Ok(Due::Paused)
        );
        assert!(due(Some(&routine("4pm", false)), None, None, now).is_err());
        assert!(due(Some(&routine("24:00", false)), None, None, now).is_err());
    }

    #[test]
    fn a_new_owner_is_due_at_the_first_scheduled_time_after_its_first_save() {
        let r = routine("04:00", false);
        let saved = t("2026-03-10T05:00:00Z");
        // Saved after today's 04:00: not due until tomorrow's.
        for now in [saved, t("2026-03-11T03:59:59Z")] {
            assert_eq!(
                due(Some(&r), None, Some(saved), now),
                Ok(Due::NotDue {
                    next: t("2026-03-11T04:00:00Z")
                }),
                "{now}"
            );
        }
        assert_eq!(
            due(Some(&r), None, Some(saved), t("2026-03-11T04:00:00Z")),
            Ok(Due::Due {
                since: t("2026-03-11T04:00:00Z")
            })
        );
        // Saved before a scheduled time that has passed: due.
        assert!(matches!(
            due(Some(&r), None, Some(t("2026-03-10T03:00:00Z")), saved),
            Ok(Due::Due { .. })
        ));
        // A review recorded counts, not the first save.
        assert!(matches!(
            due(
                Some(&r),
                Some(t("2026-03-09T04:30:00Z")),
                Some(saved),
                saved
            ),
            Ok(Due::Due { .. })
        ));
        // A save ahead of the clock: the first scheduled time after it.
        assert_eq!(
            due(Some(&r), None, Some(t("2026-03-12T06:00:00Z")), saved),
            Ok(Due::NotDue {
                next: t("2026-03-13T04:00:00Z")
            })
        );
        // Paused or no routine: as before.
        assert_eq!(
            due(Some(&routine("04:00", true)), None, Some(saved), saved),
            Ok(Due::Paused)
        );
        assert_eq!(due(None, None, Some(saved), saved), Ok(Due::NoRoutine));
    }

    #[test]
    fn the_last_review_is_read_from_journal_lines() {
        let ep = "## 2026-03-09\n\n- 04:00 review: 1 merged, 0 expired (run review-20260309T040000Z-0123abcd)\n\
                  - 05:00 did things (run run-x)\n\n## 2026-03-10\n\n\
                  - 04:02 review: 0 merged, 2 expired (run review-20260310T040200Z-deadbeef)\n\
                  - 06:00 fake (run review-2026)\n";
        let last = last_review(ep).unwrap();
        assert_eq!(last.id, "review-20260310T040200Z-deadbeef");
        assert_eq!(last.at, t("2026-03-10T04:02:00Z"));
        assert_eq!(last.report, "review: 0 merged, 2 expired");
        assert!(!last.undone);
        let undone = format!(
            "{ep}- 07:00 review undo: 2 brought back, 0 taken out (run review-20260310T040200Z-deadbeef)\n"
        );
        let last = last_review(&undone).unwrap();
        assert_eq!(last.id, "review-20260310T040200Z-deadbeef");
        assert_eq!(last.report, "review: 0 merged, 2 expired");
        assert!(last.undone);
        assert_eq!(last_review("## 2026-03-09\n\n- 05:00 nothing\n"), None);
        assert_eq!(review_time("review-20260310T040200Z-xyz"), None);
    }

    #[test]
    fn every_review_is_listed_newest_first_and_bounded() {
        let mut ep = String::from("## 2026-03-09\n\n");
        ep.push_str("- 04:00 review: 1 merged (run review-20260309T040000Z-0123abcd)\n");
        ep.push_str("- 05:00 did things (run run-x)\n");
        ep.push_str("- 06:00 review: 2 expired (run review-20260309T060000Z-00000002)\n");
        ep.push_str("- 06:30 review undo: 2 brought back (run review-20260309T060000Z-00000002)\n");
        ep.push_str("- 06:40 review: no id here\n");
        ep.push_str(
            "## 2026-03-10\n\n- 04:02 review: 1 lifted (run review-20260310T040200Z-deadbeef)\n",
        );
        let all = reviews(&ep, 10);
        let ids: Vec<&str> = all.iter().map(|r| r.id.as_str()).collect();
        assert_eq!(
            ids,
            [
                "review-20260310T040200Z-deadbeef",
                "review-20260309T060000Z-00000002",
                "review-20260309T040000Z-0123abcd"
            ]
        );
        assert_eq!(all[0].report, "review: 1 lifted");
        assert_eq!(
            all.iter().map(|r| r.undone).collect::<Vec<_>>(),
            [false, true, false]
        );
        assert_eq!(reviews(&ep, 2).len(), 2);
        assert_eq!(reviews(&ep, 0), Vec::new());
        assert_eq!(last_review(&ep), all.first().cloned());
        // A review recorded twice is listed once; the list stops at the bound.
        let twice = format!("{ep}- 09:00 review: again (run review-20260310T040200Z-deadbeef)\n");
        let again = reviews(&twice, 10);
        assert_eq!(again.len(), 3);
        assert_eq!(again[0].report, "review: again");
        let many: String = (0..150)
            .map(|i| {
                format!(
                    "- 04:00 review: n (run review-2026031{}T04{:02}{:02}Z-0000abcd)\n",
                    i / 60,
                    (i % 60),
                    0
                )
            })
            .collect();
        let bounded = reviews(&many, usize::MAX);
        assert_eq!(bounded.len(), MAX_REVIEWS);
        assert!(bounded.windows(2).all(|w| w[0].at >= w[1].at));
        assert_eq!(bounded[0].id, "review-20260312T042900Z-0000abcd");
    }

    #[test]
    fn the_routine_line_is_added_once_and_paused_in_place() {
        let added = add_routine("budgets:\n  memory: 3000\n", false).unwrap();
        assert!(added.starts_with("budgets:\n  memory: 3000\n# The daily review"));
        assert!(added.ends_with("review: {at: \"04:00\", paused: false}\n"));
        assert_eq!(add_routine(&added, false), None);
        assert_eq!(
            add_routine("x: 1", false).unwrap().lines().nth(1),
            Some(ROUTINE_COMMENT)
        );
        let paused = set_paused(&added, true);
        assert_eq!(paused, added.replace("paused: false", "paused: true"));
        assert_eq!(set_paused(&paused, false), added);
        // Flow without the key, empty flow, block with and without the key.
        assert_eq!(
            set_paused("review: {at: \"05:30\"} # mine\nx: 1\n", true),
            "review: {at: \"05:30\", paused: true} # mine\nx: 1\n"
        );
        assert_eq!(set_paused("review: {}\n", true), "review: {paused: true}\n");
        assert_eq!(
            set_paused(
                "review:\n    at: \"05:30\"\n    paused: false  # note\nx: 1\n",
                true
            ),
            "review:\n    at: \"05:30\"\n    paused: true  # note\nx: 1\n"
        );
        assert_eq!(
            set_paused("review:\n  at: \"05:30\"\nx: 1\n", true),
            "review:\n  paused: true\n  at: \"05:30\"\nx: 1\n"
        );
        assert_eq!(
            set_paused("", true),
            format!("{ROUTINE_COMMENT}\nreview: {{at: \"04:00\", paused: true}}\n")
        );
        for text in [
            set_paused("review:\n  at: \"05:30\"\n", true),
            set_paused("review: {at: \"05:30\"}\n", true),
            set_paused("review: null\n", true),
        ] {
            let s = crate::model::Settings::from_yaml(&text, std::path::Path::new("m")).unwrap();
            assert!(s.review.unwrap().paused(), "{text}");
        }
        // Not a top-level key: an indented `review:` is left alone.
        assert!(add_routine("git:\n  review: 1\n", false).is_some());
    }
}
