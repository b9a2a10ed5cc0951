//! Where an id lives in an owner's memory: a live entry of a store, a live
//! day row, an archived memory, or nowhere; and the error for an id found
//! nowhere.

use chrono::NaiveDate;

use super::archive;
use super::{episodes, stores};
use crate::error::{Error, Result};
use crate::model::Scope;
use crate::store::limits::STORE_EDIT_BYTES;
use crate::store::owner::At;

/// Where an id lives.
#[derive(Debug, Clone)]
pub(crate) enum Found {
    /// A live entry of a store, by index.
    Live(Scope, usize),
    /// A live day row.
    Day(NaiveDate),
    /// An archived memory.
    Archived,
    /// Nowhere in this owner's memory.
    Nowhere,
}

/// Finds where `id` lives in the owner's memory: the stores first, then the
/// day log, then the archive. (Writes look ids up: a store grown past what
/// memdir reads may still be searched, so that it can be curated back.)
pub(crate) fn locate(at: At<'_>, id: &str) -> Result<Found> {
    for scope in Scope::ALL {
        let l = stores::load(at, scope, true, STORE_EDIT_BYTES)?;
        if let Some(i) = l.doc.entries.iter().position(|e| e.id == id) {
            return Ok(Found::Live(scope, i));
        }
    }
    if let Some(row) = episodes::day_rows(at)?.into_iter().find(|r| r.id == id) {
        return Ok(Found::Day(row.date));
    }
    Ok(match archive::find(at, id)? {
        Some(_) => Found::Archived,
        None => Found::Nowhere,
    })
}

/// The owner that holds `id` among the other owners under the root, if any.
fn holder_elsewhere(at: At<'_>, id: &str) -> Result<Option<String>> {
    let store = at.owner.store();
    for other in store.owners()? {
        if other == at.owner.id() {
            continue;
        }
        let o = store.owner(&other)?;
        let found = o.view().and_then(|v| locate(v.at(), id));
        if !matches!(found, Ok(Found::Nowhere) | Err(_)) {
            return Ok(Some(other));
        }
    }
    Ok(None)
}

/// The error for an id found nowhere: `memory_agent_mismatch` if another
/// owner holds it, `mismatch` is set and the caller is a person (naming two
/// agents), else `memory_not_found`. An agent always gets
/// `memory_not_found`, the same answer whether or not another owner holds
/// the id: ids come from scope and text only, so any agent can compute a
/// guessed text's id, and the answer must not tell it who holds that text.
pub(crate) fn unknown(at: At<'_>, id: &str, mismatch: bool) -> Result<Error> {
    let person = at.owner.caller().is_person();
    if mismatch
        && person
        && let Some(owner) = holder_elsewhere(at, id)?
    {
        return Ok(Error::AgentMismatch {
            id: id.to_owned(),
            owner,
        });
    }
    Ok(Error::NotFound {
        file: "the workspace",
        query: id.to_owned(),
        elsewhere: None,
        entries: Vec::new(),
    })
}
