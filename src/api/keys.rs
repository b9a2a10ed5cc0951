//! The keys of `memdir serve` as the interface presents them: made (the key
//! shown once), listed (never the key) and revoked, as text or JSON. The
//! keys file itself is `store::keys`.

use std::path::Path;

use serde::Serialize;

use super::wire::{KeyCreated, KeyShown, KeysListed, KeysRevoked};
use crate::error::Result;
use crate::model::Caller;
use crate::store::Store;
use crate::store::keys;
pub use crate::store::keys::{
    KeyKind, KeyRecord, LoginLink, check, key_file_text, keys_path, verify,
};

/// What a key command answers: standard output, text or JSON.
fn shown(k: &KeyRecord) -> KeyShown<'_> {
    KeyShown {
        id: &k.id,
        name: k.name.as_deref(),
        prefix: &k.prefix,
        kind: k.kind,
        subject: &k.subject,
        created: k.created,
        last_used: k.last_used,
        revoked: k.revoked,
    }
}

/// One line of JSON: `v` serialized (a type that cannot be says so, as the
/// answers' renderer does).
fn line(v: &impl Serialize) -> String {
    match serde_json::to_string(v) {
        Ok(s) => format!("{s}\n"),
        Err(e) => format!("{}\n", serde_json::json!({ "error": e.to_string() })),
    }
}

/// `memdir key create`: makes a key for `caller` in the keys file `path`
/// (default: `keys.yaml` in the configuration folder) and renders it; the
/// key is shown here and never again.
pub fn create(
    store: &Store,
    path: Option<&Path>,
    caller: &Caller,
    name: Option<&str>,
    json: bool,
) -> Result<String> {
    let path = keys::keys_path(store, path)?;
    let (key, rec) = keys::create(store, &path, caller, name)?;
    Ok(if json {
        line(&KeyCreated {
            record: shown(&rec),
            key: &key,
            file: &path,
        })
    } else {
        format!(
            "{key}\n(key {} for {} {}, kept as its SHA-256 in {}; this is the only time it is shown)\n",
            rec.id,
            rec.kind,
            rec.subject,
            path.display()
        )
    })
}

/// `memdir key list`: every key's id, name, prefix, identity, dates.
pub fn list(store: &Store, path: Option<&Path>, json: bool) -> Result<String> {
    let path = keys::keys_path(store, path)?;
    let list = keys::list(store, &path)?;
    Ok(if json {
        let keys: Vec<KeyShown<'_>> = list.iter().map(shown).collect();
        let count = keys.len();
        line(&KeysListed { keys, count })
    } else {
        let mut out = String::new();
        for k in &list {
            out.push_str(&format!(
                "{}  {}…  {} {}  {}  created {}  last used {}{}\n",
                k.id,
                k.prefix,
                k.kind,
                k.subject,
                k.name.as_deref().unwrap_or("-"),
                k.created.format("%Y-%m-%d %H:%M"),
                k.last_used
                    .map_or("never".into(), |t| t.format("%Y-%m-%d %H:%M").to_string()),
                k.revoked
                    .map(|t| format!("  revoked {}", t.format("%Y-%m-%d %H:%M")))
                    .unwrap_or_default(),
            ));
        }
        if list.is_empty() {
            out.push_str("(no keys)\n");
        }
        out
    })
}

/// `memdir key revoke`: revokes the key with this id or name.
pub fn revoke(store: &Store, path: Option<&Path>, which: &str, json: bool) -> Result<String> {
    let path = keys::keys_path(store, path)?;
    let done = keys::revoke(store, &path, which)?;
    Ok(if json {
        let revoked: Vec<KeyShown<'_>> = done.iter().map(shown).collect();
        let count = revoked.len();
        line(&KeysRevoked { revoked, count })
    } else {
        done.iter()
            .map(|k| format!("revoked {} ({} {})\n", k.id, k.kind, k.subject))
            .collect()
    })
}
