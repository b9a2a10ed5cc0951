//! The keys of `memdir serve` as the interface presents them: made (the key
//! shown once), listed (never the key) and revoked, as text or JSON. The
//! keys file itself is `store::keys`.

use std::path::Path;

use serde_json::{Value, json};

use crate::error::Result;
use crate::model::Caller;
use crate::store::Store;
use crate::store::keys;
pub use crate::store::keys::{KeyKind, KeyRecord, LoginLink, check, keys_path, verify};

/// What a key command answers: standard output, text or JSON.
fn record_json(k: &KeyRecord) -> Value {
    json!({
        "id": k.id, "name": k.name, "prefix": k.prefix, "kind": k.kind,
        "subject": k.subject, "created": k.created, "last_used": k.last_used,
        "revoked": k.revoked,
    })
}

fn line(v: &Value) -> String {
    format!("{v}\n")
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
        let mut v = record_json(&rec);
        if let Some(o) = v.as_object_mut() {
            o.insert("key".into(), json!(key));
            o.insert("file".into(), json!(path));
        }
        line(&v)
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
        let rows: Vec<Value> = list.iter().map(record_json).collect();
        line(&json!({ "keys": rows, "count": rows.len() }))
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
        let rows: Vec<Value> = done.iter().map(record_json).collect();
        line(&json!({ "revoked": rows, "count": rows.len() }))
    } else {
        done.iter()
            .map(|k| format!("revoked {} ({} {})\n", k.id, k.kind, k.subject))
            .collect()
    })
}
