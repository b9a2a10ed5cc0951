//! archive.md: the union of the archived records of both sides, each once
//! (by its archived id: over its original scope and text, or its date for
//! a day row). The merge itself is the entry-file merge of `store`, under
//! its archive rules: no record is dropped, none is paired, and a record
//! both sides hold keeps ours' bytes (theirs' where only theirs changed
//! it). The text around the records (the heading) merges as text.

use crate::markdown::{META_PREFIX, parse_without_ids};

/// Whether the texts look like archive.md: they hold at least one entry,
/// and every entry carries an archive record's metadata (`archived=`).
pub(super) fn looks_like(texts: &[&str]) -> bool {
    let mut any = false;
    for s in texts {
        if s.trim().is_empty() {
            continue;
        }
        let d = parse_without_ids(s);
        if !d.entries.is_empty() && !s.contains(META_PREFIX) {
            return false;
        }
        for e in &d.entries {
            if e.metadata(s).archived.is_none() {
                return false;
            }
            any = true;
        }
    }
    any
}
