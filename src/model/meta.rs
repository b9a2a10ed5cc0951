//! Fact metadata: the `<!-- memdir key=value … -->` comment that closes an
//! entry. Compact, readable and editable by a person; never rendered into a
//! snapshot nor counted in a budget.
//!
//! Pure: no I/O.

use std::sync::LazyLock;

use chrono::{DateTime, Datelike, NaiveDate, NaiveTime, SecondsFormat, Utc};
use memchr::memmem;
use serde::Serialize;

use super::id::{day_id, entry_id};
use super::scope::Origin;
use crate::error::{Error, Result};

/// Why and how a fact was archived.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ArchiveKind {
    /// Archived with a reason.
    Plain,
    /// Replaced by a newer fact (`superseded_by`); can never come back.
    Superseded,
    /// Vetoed by a person; only a person can bring it back.
    Vetoed,
    /// Merged by a review into a duplicate that survives (named in the reason).
    Merged,
    /// Archived by a review past its expiry, not recalled in 30 days.
    Expired,
    /// Archived by a review as the side of a conflict its run's results do
    /// not support (the evidence named in the reason).
    Conflict,
    /// Archived by a review on its reviewer's proposal (the reviewer's
    /// reason).
    Reviewed,
    /// Archived by a review under `curation: auto`: the store was over its
    /// budget and the fact had not been recalled in 30 days.
    Unrecalled,
}

impl ArchiveKind {
    /// The kind's name in metadata and JSON.
    pub fn name(self) -> &'static str {
        match self {
            ArchiveKind::Plain => "plain",
            ArchiveKind::Superseded => "superseded",
            ArchiveKind::Vetoed => "vetoed",
            ArchiveKind::Merged => "merged",
            ArchiveKind::Expired => "expired",
            ArchiveKind::Conflict => "conflict",
            ArchiveKind::Reviewed => "reviewed",
            ArchiveKind::Unrecalled => "unrecalled",
        }
    }

    fn parse(s: &str) -> Option<ArchiveKind> {
        match s {
            "plain" => Some(ArchiveKind::Plain),
            "superseded" => Some(ArchiveKind::Superseded),
            "vetoed" => Some(ArchiveKind::Vetoed),
            "merged" => Some(ArchiveKind::Merged),
            "expired" => Some(ArchiveKind::Expired),
            "conflict" => Some(ArchiveKind::Conflict),
            "reviewed" => Some(ArchiveKind::Reviewed),
            "unrecalled" => Some(ArchiveKind::Unrecalled),
            _ => None,
        }
    }
}

/// The metadata of a fact (and, in archive.md, of its archiving).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Meta {
    /// When it was saved.
    pub created: Option<DateTime<Utc>>,
    /// When it was last changed.
    pub updated: Option<DateTime<Utc>>,
    /// When it expires.
    pub expires: Option<DateTime<Utc>>,
    /// The run that saved it.
    pub run: Option<String>,
    /// The task that run worked on, such as `PIN-42`.
    pub task: Option<String>,
    /// The agent that saved it, when an agent did.
    pub agent: Option<String>,
    /// The person who saved or last edited it, when a person did.
    pub person: Option<String>,
    /// The id of the fact this one replaced.
    pub supersedes: Option<String>,
    /// Set by a merge that kept two versions of one fact, each edited on
    /// its own branch: the id the fact had before both edits (the two
    /// versions carry the same value; a person keeps one).
    pub conflict: Option<String>,
    /// In archive.md: the store it came from (`memory`, `user`) or `day`.
    pub scope: Option<Origin>,
    /// In archive.md, for a day row: its date.
    pub date: Option<NaiveDate>,
    /// In archive.md: when it was archived.
    pub archived: Option<DateTime<Utc>>,
    /// In archive.md: the kind of archive.
    pub kind: Option<ArchiveKind>,
    /// In archive.md: why.
    pub reason: Option<String>,
    /// In archive.md: the id that replaced it.
    pub superseded_by: Option<String>,
    /// In archive.md: who archived it (`agent:ID` or `person:ID`).
    pub archived_by: Option<String>,
    /// In archive.md: the id the fact had when it was archived.
    pub id: Option<String>,
    /// The review that archived, renewed or lifted it (`memdir review undo`
    /// finds its entries by this).
    pub review: Option<String>,
    /// For a fact a review lifted out of a day log: that day's date.
    pub lifted: Option<NaiveDate>,
    /// For a fact a review renewed: its expiry before (`memdir review undo`
    /// puts it back).
    pub renewed_from: Option<DateTime<Utc>>,
    /// For the fact a review kept when it settled a `conflict=` pair: the
    /// `conflict` value it had (`memdir review undo` puts it back).
    pub resolved: Option<String>,
    /// In an archive: the review that settled this record's fact, which was
    /// also live (after a merge); `memdir review undo` takes it away again.
    pub settled: Option<String>,
    /// Keys this version does not know, kept as they were.
    pub other: Vec<(String, String)>,
}

/// Formats a time as metadata writes it: RFC 3339 UTC, whole seconds.
pub fn fmt_time(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Secs, true)
}

/// Reads a time in the one form [`fmt_time`] writes, `YYYY-MM-DDTHH:MM:SSZ`,
/// without a general parser (liveness reads one for every entry of every
/// snapshot and edit); `None` for anything else.
fn parse_written(s: &str) -> Option<DateTime<Utc>> {
    let b = s.as_bytes();
    let shape = b.len() == 20
        && b[4] == b'-'
        && b[7] == b'-'
        && b[10] == b'T'
        && b[13] == b':'
        && b[16] == b':'
        && b[19] == b'Z';
    if !shape {
        return None;
    }
    let num = |at: usize, len: usize| {
        b[at..at + len].iter().try_fold(0u32, |n, &c| {
            c.is_ascii_digit().then(|| n * 10 + u32::from(c - b'0'))
        })
    };
    let date = NaiveDate::from_ymd_opt(i32::try_from(num(0, 4)?).ok()?, num(5, 2)?, num(8, 2)?)?;
    Some(
        date.and_hms_opt(num(11, 2)?, num(14, 2)?, num(17, 2)?)?
            .and_utc(),
    )
}

/// Reads a time as a person may write it: RFC 3339, or a date `YYYY-MM-DD`
/// meaning the end of that UTC day (23:59:59).
pub fn parse_time(s: &str) -> Option<DateTime<Utc>> {
    if let Some(t) = parse_written(s) {
        return Some(t);
    }
    if let Ok(t) = DateTime::parse_from_rfc3339(s) {
        return Some(t.with_timezone(&Utc));
    }
    // Years of four digits only, as RFC 3339 writes them: a time read must
    // be one [`fmt_time`] writes back readably.
    let d = NaiveDate::parse_from_str(s, "%Y-%m-%d")
        .ok()
        .filter(|d| (0..=9999).contains(&d.year()))?;
    let end = NaiveTime::from_hms_opt(23, 59, 59)?;
    Some(d.and_time(end).and_utc())
}

/// Parses an `--expires` value, refusing what [`parse_time`] cannot read.
pub fn parse_expires(s: &str) -> Result<DateTime<Utc>> {
    parse_time(s).ok_or_else(|| Error::InvalidExpiry {
        value: s.to_owned(),
        today: None,
    })
}

/// Whether a fact with metadata comment `meta` is live at `now`: it has no
/// `expires`, or one still ahead. (Reads only the `expires` value; this runs
/// for every entry of every snapshot.)
pub fn is_live(meta: Option<&str>, now: DateTime<Utc>) -> bool {
    meta.and_then(expires_at).is_none_or(|e| e > now)
}

/// When the fact with metadata comment `meta` expires, if it says (what
/// [`is_live`] compares with the time).
pub fn expires_at(meta: &str) -> Option<DateTime<Utc>> {
    static EXPIRES: LazyLock<memmem::Finder<'static>> =
        LazyLock::new(|| memmem::Finder::new("expires"));
    quick_time(meta, &EXPIRES, |m| m.expires)
}

/// When the fact with metadata comment `meta` was created, if it says.
/// (Reads only the `created` value; recall runs it for every fact.)
pub fn created_at(meta: &str) -> Option<DateTime<Utc>> {
    static CREATED: LazyLock<memmem::Finder<'static>> =
        LazyLock::new(|| memmem::Finder::new("created"));
    quick_time(meta, &CREATED, |m| m.created)
}

/// The time a metadata comment gives under the key that `key` finds (its
/// name), as [`Meta::parse`] reads it (`pick` takes it from a full parse).
/// None when the name is nowhere in the comment (no key can be it). Read
/// directly when the comment has no quoted value and the name appears once,
/// as ` key=` with a value [`parse_time`] reads, as memdir writes it (then
/// it can only be that key: unquoted values end at whitespace); anything
/// else goes through the full parser.
fn quick_time(
    meta: &str,
    key: &memmem::Finder<'_>,
    pick: fn(Meta) -> Option<DateTime<Utc>>,
) -> Option<DateTime<Utc>> {
    let b = meta.as_bytes();
    let mut found = key.find_iter(b);
    let at = found.next()?;
    let end = at + key.needle().len();
    if found.next().is_none()
        && !meta.contains('"')
        && at > 0
        && b[at - 1] == b' '
        && b.get(end) == Some(&b'=')
    {
        let value = &meta[end + 1..];
        let token = value.split(char::is_whitespace).next().unwrap_or("");
        if let Some(t) = parse_time(token) {
            return Some(t);
        }
    }
    pick(Meta::parse(meta))
}

/// A value of a metadata comment that memdir cannot read: a time that is
/// not a time, a date that is not a date, an archive kind or scope it does
/// not know. [`Meta::parse`] drops such values, so a fact whose `expires`
/// cannot be read never expires: `memdir check` reports them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadValue {
    /// The key.
    pub key: String,
    /// The value as written.
    pub value: String,
}

/// The values of metadata comment `comment` that memdir cannot read (see
/// [`BadValue`]).
pub fn bad_values(comment: &str) -> Vec<BadValue> {
    pairs(comment_body(comment))
        .into_iter()
        .filter(|(k, v)| match k.as_str() {
            "created" | "updated" | "expires" | "archived" | "renewed_from" => {
                parse_time(v).is_none()
            }
            "date" | "lifted" => NaiveDate::parse_from_str(v, "%Y-%m-%d").is_err(),
            "kind" => ArchiveKind::parse(v).is_none(),
            "scope" => Origin::parse(v).is_none(),
            _ => false,
        })
        .map(|(key, value)| BadValue { key, value })
        .collect()
}

/// The key-value part of a metadata comment (`<!-- memdir … -->`).
fn comment_body(comment: &str) -> &str {
    comment
        .trim()
        .trim_start_matches("<!--")
        .trim_end_matches("-->")
        .trim()
        .trim_start_matches("memdir")
        .trim()
}

impl Meta {
    /// The id of an archived memory whose archive record holds this
    /// metadata and `text`: over its original scope and text, or its date
    /// for a day row (an archive record without a scope counts as memory).
    pub fn archived_id(&self, text: &str) -> String {
        match (self.scope, self.date) {
            (Some(Origin::Day), Some(date)) => day_id(date),
            (Some(origin), _) => entry_id(origin.name(), text),
            (None, _) => entry_id("memory", text),
        }
    }

    /// Parses a metadata comment (`<!-- memdir … -->`); unknown keys are kept,
    /// unreadable values are dropped.
    pub fn parse(comment: &str) -> Meta {
        let inner = comment_body(comment);
        let mut m = Meta::default();
        for (k, v) in pairs(inner) {
            let time = || parse_time(&v);
            match k.as_str() {
                "created" => m.created = time(),
                "updated" => m.updated = time(),
                "expires" => m.expires = time(),
                "archived" => m.archived = time(),
                "run" => m.run = Some(v),
                "task" => m.task = Some(v),
                "agent" => m.agent = Some(v),
                "person" => m.person = Some(v),
                "supersedes" => m.supersedes = Some(v),
                "conflict" => m.conflict = Some(v),
                "scope" => match Origin::parse(&v) {
                    Some(o) => m.scope = Some(o),
                    None => m.other.push((k, v)),
                },
                "date" => m.date = NaiveDate::parse_from_str(&v, "%Y-%m-%d").ok(),
                "kind" => m.kind = ArchiveKind::parse(&v),
                "reason" => m.reason = Some(v),
                "superseded_by" => m.superseded_by = Some(v),
                "archived_by" => m.archived_by = Some(v),
                "id" => m.id = Some(v),
                "review" => m.review = Some(v),
                "lifted" => m.lifted = NaiveDate::parse_from_str(&v, "%Y-%m-%d").ok(),
                "renewed_from" => m.renewed_from = time(),
                "resolved" => m.resolved = Some(v),
                "settled" => m.settled = Some(v),
                _ => m.other.push((k, v)),
            }
        }
        m
    }

    /// Renders the comment, keys in a fixed order, values quoted only when needed.
    pub fn render(&self) -> String {
        let mut out = String::from("<!-- memdir");
        let mut put = |k: &str, v: &str| {
            out.push(' ');
            out.push_str(k);
            out.push('=');
            out.push_str(&quote(v));
        };
        let t = |x: &Option<DateTime<Utc>>| x.map(fmt_time);
        for (k, v) in [
            ("id", self.id.clone()),
            ("scope", self.scope.map(|o| o.name().to_owned())),
            ("date", self.date.map(|d| d.to_string())),
            ("created", t(&self.created)),
            ("updated", t(&self.updated)),
            ("expires", t(&self.expires)),
            ("agent", self.agent.clone()),
            ("person", self.person.clone()),
            ("run", self.run.clone()),
            ("task", self.task.clone()),
            ("supersedes", self.supersedes.clone()),
            ("conflict", self.conflict.clone()),
            ("lifted", self.lifted.map(|d| d.to_string())),
            ("review", self.review.clone()),
            ("renewed_from", t(&self.renewed_from)),
            ("resolved", self.resolved.clone()),
            ("settled", self.settled.clone()),
            ("archived", t(&self.archived)),
            ("kind", self.kind.map(|k| k.name().to_owned())),
            ("archived_by", self.archived_by.clone()),
            ("superseded_by", self.superseded_by.clone()),
            ("reason", self.reason.clone()),
        ] {
            if let Some(v) = v {
                put(k, &v);
            }
        }
        for (k, v) in &self.other {
            put(k, v);
        }
        out.push_str(" -->");
        out
    }
}

/// A value as written: bare when it is a plain token, else a JSON string with
/// `<`, `>` and `-` escaped so it can never close the comment.
fn quote(v: &str) -> String {
    let plain = !v.is_empty()
        && v.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | ':' | '+' | '-' | '/'))
        && !v.contains("--");
    if plain {
        return v.to_owned();
    }
    let json = serde_json::to_string(v).unwrap_or_else(|_| "\"\"".into());
    json.replace('<', "\\u003c")
        .replace('>', "\\u003e")
        .replace('-', "\\u002d")
}

/// `key=value` pairs; a value is a bare token or a JSON string.
fn pairs(s: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut rest = s.trim_start();
    while !rest.is_empty() {
        let Some(eq) = rest.find('=') else { break };
        // The key is the word before `=`: words without one (a person's
        // note, a mistyped `memdir`) are skipped, as the quick reads of
        // `created` and `expires` skip them.
        let key = rest[..eq]
            .split_whitespace()
            .last()
            .unwrap_or("")
            .to_owned();
        let after = &rest[eq + 1..];
        let (value, next) = if after.starts_with('"') {
            let mut de = serde_json::Deserializer::from_str(after).into_iter::<String>();
            match de.next() {
                Some(Ok(v)) => (v, &after[de.byte_offset()..]),
                _ => {
                    let end = after.find(char::is_whitespace).unwrap_or(after.len());
                    (after[..end].to_owned(), &after[end..])
                }
            }
        } else {
            let end = after.find(char::is_whitespace).unwrap_or(after.len());
            (after[..end].to_owned(), &after[end..])
        };
        if !key.is_empty() {
            out.push((key, value));
        }
        rest = next.trim_start();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn written_times_read_as_rfc_3339_reads_them() {
        for s in [
            "2026-11-30T02:15:05Z",
            "2027-02-28T23:59:59Z",
            "2028-02-29T00:00:00Z",
            "0001-01-01T00:00:00Z",
            "9999-12-31T23:59:59Z",
        ] {
            let full = DateTime::parse_from_rfc3339(s).map(|t| t.with_timezone(&Utc));
            assert_eq!(parse_written(s), full.ok(), "{s}");
        }
        // Not the written form, or not a real time: left to the full parser.
        for s in [
            "2027-02-29T00:00:00Z",
            "2026-13-01T00:00:00Z",
            "2026-11-30T24:00:00Z",
            "2026-11-30T23:59:60Z",
            "2026-11-30t02:15:05z",
            "2026-11-30T02:15:05+00:00",
            "2026-11-30T02:15:05.5Z",
            "2026-11-30",
            "2026-1a-30T02:15:05Z",
        ] {
            assert_eq!(parse_written(s), None, "{s}");
        }
        assert_eq!(
            parse_time("2026-11-30T23:59:60Z"),
            DateTime::parse_from_rfc3339("2026-11-30T23:59:60Z")
                .map(|t| t.with_timezone(&Utc))
                .ok()
        );
    }

    #[test]
    fn bad_values_are_the_ones_the_parse_drops() {
        let c = "<!-- memdir created=2026-01-02T03:04:05Z expires=2027-13-45 date=yesterday \
                 kind=lost scope=day updated=\"soon\" task=x -->";
        let bad: Vec<(String, String)> = bad_values(c)
            .into_iter()
            .map(|b| (b.key, b.value))
            .collect();
        let want = [
            ("expires", "2027-13-45"),
            ("date", "yesterday"),
            ("kind", "lost"),
            ("updated", "soon"),
        ];
        assert_eq!(bad.len(), want.len(), "{bad:?}");
        for (k, v) in want {
            assert!(bad.contains(&(k.to_owned(), v.to_owned())), "{k}: {bad:?}");
        }
        let m = Meta::parse(c);
        assert!(m.expires.is_none() && m.updated.is_none() && m.date.is_none());
        assert!(bad_values("<!-- memdir created=2026-01-02 expires=2027-01-01 -->").is_empty());
    }

    #[test]
    fn quick_reads_agree_with_the_full_parse() {
        let now = t("2026-06-01T00:00:00Z");
        let cases = [
            "<!-- memdir created=2026-01-02T03:04:05Z expires=2026-12-31T23:59:59Z -->",
            "<!-- memdir created=2026-01-02T03:04:05Z expires=2026-03-01 -->",
            "<!-- memdir created=2026-01-02 -->",
            "<!-- memdir expires=garbage -->",
            "<!-- memdir -->",
            // A key inside another key's quoted value is no key.
            "<!-- memdir task=\"x expires=2000-01-01 created=1999-01-01\" -->",
            "<!-- memdir created=\"2026-01-02T03:04:05Z\" expires=\"2026-02-01\" -->",
            // Twice: the last one counts, as in the full parse.
            "<!-- memdir expires=2000-01-01 expires=2999-01-01 created=2001-01-01 created=2002-01-01 -->",
            // Found by the `settings` fuzz target: a key after a tab, at the
            // start, before a space and `=`, or once more after other words.
            "<!-- memdir -\texpires=2000-02-01 created=2001-01-01 -->",
            "<!--expires=2000-02-01 created=2001-01-01-->",
            "<!-- memdir expires =2000-02-01 created =2001-01-01 -->",
            "<!-- memdir expires=2999-01-01 expires =2000-02-01 -->",
            "<!-- memdir created=2001-01-01 xcreated=2002-01-01 expiresx=2000-01-01 -->",
        ];
        for c in cases {
            let m = Meta::parse(c);
            assert_eq!(
                is_live(Some(c), now),
                m.expires.is_none_or(|e| e > now),
                "{c}"
            );
            assert_eq!(created_at(c), m.created, "{c}");
        }
        assert!(is_live(Some(cases[5]), now));
        assert!(is_live(Some(cases[7]), now));
        assert_eq!(created_at(cases[7]), Some(t("2002-01-01T23:59:59Z")));
    }

    fn t(s: &str) -> DateTime<Utc> {
        parse_time(s).unwrap()
    }

    #[test]
    fn round_trip_with_quoting() {
        let m = Meta {
            created: Some(t("2026-11-29T14:05:00Z")),
            expires: Some(t("2027-02-27T14:05:00Z")),
            agent: Some("agt_1".into()),
            task: Some("PIN-42".into()),
            reason: Some("stale --> \"old\" <b>".into()),
            kind: Some(ArchiveKind::Vetoed),
            conflict: Some("mem_0123456789ab".into()),
            other: vec![("future".into(), "x".into())],
            ..Meta::default()
        };
        let c = m.render();
        assert_eq!(c.matches("-->").count(), 1, "{c}");
        assert!(c.starts_with("<!-- memdir created=2026-11-29T14:05:00Z expires=2027-02-27T14:05:00Z agent=agt_1 task=PIN-42"));
        assert_eq!(Meta::parse(&c), m);
    }

    #[test]
    fn people_may_write_dates() {
        let m = Meta::parse("<!-- memdir created=2026-11-29T14:05:00Z expires=2026-12-31 -->");
        assert_eq!(m.expires, Some(t("2026-12-31T23:59:59Z")));
        assert!(parse_expires("next week").is_err());
        let m = Meta::parse("<!--memdir  expires=garbage task=X-1 -->");
        assert_eq!((m.expires, m.task.as_deref()), (None, Some("X-1")));
        // Found by the `settings` fuzz target: a year RFC 3339 cannot write
        // was read, then rendered as a time that does not read back.
        for y in ["-0001-01-01", "+10000-01-01", "10000-01-01"] {
            assert_eq!(parse_time(y), None, "{y}");
        }
        assert_eq!(parse_time("0000-01-01"), Some(t("0000-01-01T23:59:59Z")));
        let m = Meta::parse("<!-- memdir expires=-0001-01-01 -->");
        assert_eq!(Meta::parse(&m.render()), m);
    }

    /// Found by the `settings` fuzz target: a word without `=` before a key
    /// (here a mistyped `memdir`) hid the key from the full parse, while the
    /// quick reads found it; both now read it.
    #[test]
    fn a_word_before_a_key_does_not_hide_it() {
        let c = "<!--m emdir created=2026-11-29T14:05:00Z note expires=2027-01-01T00:00:00Z -->";
        let m = Meta::parse(c);
        assert_eq!(m.created, created_at(c));
        assert_eq!(m.created, parse_time("2026-11-29T14:05:00Z"));
        assert_eq!(m.expires, parse_time("2027-01-01T00:00:00Z"));
        let after = parse_time("2027-01-02T00:00:00Z").unwrap();
        assert!(!is_live(Some(c), after));
        assert!(m.other.is_empty(), "{:?}", m.other);
    }
}
