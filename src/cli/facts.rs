//! `memdir archive|unarchive|veto|list|recall|init`: the fact lifecycle.

use memdir::{Caller, Error, FactRow, ListFilter, Owner, Recall, RecallOptions, Store, Transition};
use serde_json::json;

use super::to_json;

/// Prints a transition.
pub fn transition(t: &Transition, json: bool) -> String {
    if json {
        to_json(t)
    } else {
        format!("{} {} ({})\n", t.message, t.id, t.status)
    }
}

/// `memdir list`: one owner's rows, or every owner's for a person who named none.
pub fn list(
    store: &Store,
    caller: &Caller,
    named: Option<&str>,
    filter: &ListFilter,
    json: bool,
) -> Result<String, Error> {
    let mut rows: Vec<FactRow> = Vec::new();
    if caller.is_person() && named.is_none() {
        for id in store.owners()? {
            rows.extend(store.owner_as(caller, Some(&id))?.list(filter)?);
        }
        filter.finish(&mut rows);
    } else {
        rows = store.owner_as(caller, named)?.list(filter)?;
    }
    if json {
        return Ok(to_json(&json!({ "rows": rows, "count": rows.len() })));
    }
    let mut out = String::new();
    for r in &rows {
        let state = match (r.status, r.expired) {
            ("archived", _) => format!(
                "archived ({})",
                r.archive_kind.map_or("plain", |k| k.name())
            ),
            (_, true) => "active, expired".to_owned(),
            (s, false) => s.to_owned(),
        };
        let when = match r.date {
            Some(d) => d.to_string(),
            None => r.created_at.date_naive().to_string(),
        };
        out.push_str(&format!(
            "{}  {} {}  {}  {}  recalled {}×\n",
            r.id, r.kind, r.scope, when, state, r.recall_count
        ));
        for line in r.text.lines() {
            out.push_str(&format!("    {line}\n"));
        }
        if let Some(reason) = &r.reason {
            out.push_str(&format!("    reason: {reason}\n"));
        }
    }
    if rows.is_empty() {
        out.push_str("(nothing)\n");
    }
    Ok(out)
}

/// `memdir recall`.
pub fn recall(owner: &Owner<'_>, options: &RecallOptions, json: bool) -> Result<String, Error> {
    let r: Recall = owner.recall(options)?;
    if json {
        return Ok(to_json(&r));
    }
    if r.skipped {
        return Ok("(skipped: this session already recalled in the last 24 hours)\n".into());
    }
    let mut out = String::new();
    if let Some(f) = &r.fallback {
        out.push_str(&format!("note: {f}\n"));
    }
    out.push_str(&r.block);
    Ok(out)
}

/// `memdir init`: creates the root and a `.gitignore` listing `.memdir/`.
pub fn init(store: &Store, json: bool) -> Result<String, Error> {
    let created = store.init()?;
    if json {
        Ok(to_json(
            &json!({"root": store.root(), "gitignore": created}),
        ))
    } else {
        Ok(format!(
            "memory root {} ready; .gitignore {}\n",
            store.root().display(),
            if created {
                "lists .memdir/"
            } else {
                "already lists .memdir/"
            }
        ))
    }
}
