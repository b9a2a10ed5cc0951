//! Cached scanner verdicts for the entries a snapshot renders, under
//! `.memdir/scan-cache.json`: a derived file (delete it at any time), valid
//! only for the scanner fingerprint it was written with.
//!
//! A snapshot scans every entry; most entries do not change between runs, so
//! their verdicts are looked up by the SHA-256 of their text. Entries not in
//! the cache are scanned and the cache is rewritten (atomically, best effort:
//! a lost update only means a scan next time).

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::fs;
use crate::scan::{self, Finding};
use crate::store::{DERIVED_DIR, Owner};

#[derive(Debug, Default, Serialize, Deserialize)]
struct CacheFile {
    fingerprint: String,
    /// SHA-256 of an entry's text → the pattern ids it matched.
    verdicts: BTreeMap<String, Vec<String>>,
}

/// A scanner that remembers verdicts for one snapshot.
pub(crate) struct CachedScanner {
    old: CacheFile,
    new: BTreeMap<String, Vec<String>>,
    misses: usize,
}

impl CachedScanner {
    /// Scans `text`, or takes its verdict from the cache.
    pub(crate) fn scan(&mut self, text: &str) -> Vec<Finding> {
        let mut buf = [0u8; 64];
        let _ = hex::encode_to_slice(Sha256::digest(text.as_bytes()), &mut buf);
        let key = String::from_utf8_lossy(&buf).into_owned();
        let cached = self.old.verdicts.get(&key).map(|ids| {
            ids.iter()
                .map(|id| scan::finding(id))
                .collect::<Option<Vec<Finding>>>()
        });
        let findings = match cached {
            Some(Some(f)) => f,
            _ => {
                self.misses += 1;
                scan::scan(text)
            }
        };
        self.new
            .insert(key, findings.iter().map(|f| f.pattern.to_owned()).collect());
        findings
    }
}

impl Owner<'_> {
    fn scan_cache_path(&self) -> PathBuf {
        self.dir().join(DERIVED_DIR).join("scan-cache.json")
    }

    /// A scanner primed with the owner's cached verdicts (none if the cache is
    /// missing, unreadable or from another scanner).
    pub(crate) fn cached_scanner(&self) -> CachedScanner {
        let old = fs::stable_read(self.io(), &self.scan_cache_path())
            .ok()
            .flatten()
            .and_then(|b| serde_json::from_slice::<CacheFile>(&b).ok())
            .filter(|c| c.fingerprint == scan::fingerprint())
            .unwrap_or_default();
        CachedScanner {
            old,
            new: BTreeMap::new(),
            misses: 0,
        }
    }

    /// Writes the verdicts of this snapshot back when anything was scanned
    /// afresh or dropped (best effort: errors are ignored, the cache is derived).
    pub(crate) fn store_scan_cache(&self, cache: CachedScanner) {
        if cache.misses == 0 && cache.new.len() == cache.old.verdicts.len() {
            return;
        }
        if self.store.poison.check().is_err() || self.ensure_dirs().is_err() {
            return;
        }
        let file = CacheFile {
            fingerprint: scan::fingerprint().to_owned(),
            verdicts: cache.new,
        };
        if let Ok(bytes) = serde_json::to_vec(&file) {
            let _ = fs::write_atomic(
                self.io(),
                &self.store.poison,
                &self.scan_cache_path(),
                &bytes,
            );
        }
    }
}
