//! Step 3: an expired fact is renewed when it was recalled in the last
//! [`RECALL_WINDOW_DAYS`] days, else archived (kind `expired`).

use std::collections::BTreeSet;

use chrono::Duration;

use crate::model::ArchiveKind;
use crate::review::{Change, DEFAULT_RENEW_DAYS, Fact, Input, RECALL_WINDOW_DAYS};

/// Renews or archives each expired fact of `facts`: the ids renewed.
pub(super) fn renew_or_archive(
    facts: &[&Fact],
    input: &Input<'_>,
    gone: &mut BTreeSet<String>,
    changes: &mut Vec<Change>,
) -> BTreeSet<String> {
    let now = input.now;
    let mut renewed = BTreeSet::new();
    for f in facts.iter().filter(|f| f.expired(now)) {
        let when = f.meta.expires.map(|e| e.date_naive().to_string());
        if f.recalled_within(now) {
            renewed.insert(f.id.clone());
            let days = (input.renew_days)(f.scope)
                .filter(|d| *d > 0)
                .unwrap_or(DEFAULT_RENEW_DAYS);
            changes.push(Change::Renew {
                id: f.id.clone(),
                scope: f.scope,
                expires: now + Duration::days(i64::from(days)),
                previous: f.meta.expires,
                reason: format!(
                    "expired {}, recalled in the last {RECALL_WINDOW_DAYS} days",
                    when.unwrap_or_default()
                ),
            });
        } else {
            gone.insert(f.id.clone());
            changes.push(Change::Archive {
                id: f.id.clone(),
                scope: f.scope,
                text: f.text.clone(),
                kind: ArchiveKind::Expired,
                reason: format!(
                    "expired {}, not recalled in the last {RECALL_WINDOW_DAYS} days",
                    when.unwrap_or_default()
                ),
                into: None,
            });
        }
    }
    renewed
}
