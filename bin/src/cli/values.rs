//! The parsers of the command line's argument values, each refusal worded
//! as the value it expected. The library's words (a store, a kind, a
//! status, a way to keep) are its own types' (`clap::ValueEnum` under its
//! `cli` feature).

use chrono::NaiveDate;

/// `-`, standard input (the one value `--from`'s place takes besides a file).
pub(super) fn parse_dash(s: &str) -> Result<String, String> {
    if s == "-" {
        Ok(s.to_owned())
    } else {
        Err(format!(
            "expected `-` (standard input) or --from FILE, got {s:?}"
        ))
    }
}

/// A date `YYYY-MM-DD`.
pub(super) fn parse_date(s: &str) -> Result<NaiveDate, String> {
    NaiveDate::parse_from_str(s, "%Y-%m-%d")
        .map_err(|_| format!("expected a date YYYY-MM-DD, got {s:?}"))
}

/// A number of seconds from 0 to 86,400.
pub(super) fn parse_seconds(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if v.is_finite() && (0.0..=86_400.0).contains(&v) => Ok(v),
        _ => Err(format!(
            "expected a number of seconds from 0 to 86400, got {s:?}"
        )),
    }
}
