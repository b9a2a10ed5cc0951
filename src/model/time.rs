//! Times as memdir's JSON files write them: RFC 3339 UTC with microseconds
//! (`2026-11-29T23:59:59.123456Z`), fixed width so that string order is time
//! order.

use chrono::{DateTime, SecondsFormat, Utc};
use serde::{Deserialize, Deserializer, Serializer};

/// Formats a time with microseconds.
pub fn micros(t: &DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Micros, true)
}

/// Serde helpers for a `DateTime<Utc>` field written with microseconds.
pub mod as_micros {
    use super::*;

    /// Writes the time with microseconds.
    pub fn serialize<S: Serializer>(t: &DateTime<Utc>, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&micros(t))
    }

    /// Reads an RFC 3339 time.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<DateTime<Utc>, D::Error> {
        let s = String::deserialize(d)?;
        DateTime::parse_from_rfc3339(&s)
            .map(|t| t.with_timezone(&Utc))
            .map_err(serde::de::Error::custom)
    }
}

/// Serde helpers for an optional `DateTime<Utc>` field written with
/// microseconds.
pub mod as_micros_opt {
    use super::*;

    /// Writes the time with microseconds, or nothing.
    pub fn serialize<S: Serializer>(t: &Option<DateTime<Utc>>, s: S) -> Result<S::Ok, S::Error> {
        match t {
            Some(t) => s.serialize_some(&micros(t)),
            None => s.serialize_none(),
        }
    }

    /// Reads an RFC 3339 time, or nothing.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<DateTime<Utc>>, D::Error> {
        match Option::<String>::deserialize(d)? {
            Some(s) => DateTime::parse_from_rfc3339(&s)
                .map(|t| Some(t.with_timezone(&Utc)))
                .map_err(serde::de::Error::custom),
            None => Ok(None),
        }
    }
}
