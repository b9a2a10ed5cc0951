//! The review's plan ([`plan`]), one step a module, in the order the plan
//! takes them:
//!
//! ```text
//! copies     copies of one entry kept as one (metadata merged)
//! twins      0. a fact both live and archived: one side kept
//! vetoes     0b. a vetoed fact in another form goes into it
//! merges     1. exact and near duplicates merged into a survivor
//! conflicts  2. two facts a merge left in conflict, settled by results
//! expiry     3. expired facts renewed when recalled lately, else archived
//! lifts      4. facts marked in yesterday's day log lifted
//! curation   5. the unrecalled candidates; 6. `curation: auto`
//! ```
//!
//! What leaves a store in one step is `gone` for the steps after it.

use std::collections::BTreeSet;

use crate::review::{Fact, Input, Plan};

mod conflicts;
mod copies;
mod curation;
mod expiry;
mod lifts;
mod merges;
mod twins;
mod vetoes;

#[cfg(any(test, feature = "internals"))]
pub use copies::merge_copies;
pub use lifts::{lift_ids, marks_fact};
#[cfg(any(test, feature = "internals"))]
pub use twins::settle_twin;

/// The review's plan (see the module docs).
pub fn plan(input: &Input<'_>) -> Plan {
    let now = input.now;
    let mut out = Plan::default();
    let mut gone: BTreeSet<String> = BTreeSet::new();
    // Each id once: copies of one entry (a hand edit or a merge makes them)
    // are kept as one, with their metadata merged.
    let owned = copies::one_per_id(input.facts, &mut out.changes);
    let facts: Vec<&Fact> = owned.iter().collect();
    // 0. Facts both live and archived (after a merge): one side is kept.
    twins::settle(&facts, input.archived, &mut gone, &mut out.changes);
    // 0b. Vetoed facts in another form.
    vetoes::vetoed_forms(&facts, input.vetoes, &mut gone, &mut out.changes);
    let facts: Vec<&Fact> = facts
        .into_iter()
        .filter(|f| !gone.contains(&f.id))
        .collect();
    let live: Vec<&Fact> = facts.iter().copied().filter(|f| !f.expired(now)).collect();
    // 1. Duplicates: survivors first (most recalled, then newest, then id).
    merges::merge(&live, &mut gone, &mut out);
    // 2. Conflicts a merge left: settled by the runs' results.
    conflicts::settle(&live, input.evidence, &mut gone, &mut out);
    // 3. Expired facts: renewed when recalled lately, else archived.
    let renewed = expiry::renew_or_archive(&facts, input, &mut gone, &mut out.changes);
    // 4. Facts marked in yesterday's day log.
    lifts::lift(&live, input, &gone, &mut out);
    // 5. Not recalled in 30 days (and not new): candidates to re-read.
    out.unrecalled = curation::unrecalled(&live, &gone, now);
    // 6. `curation: auto`: unrecalled facts archived while a store is over
    // its budget.
    if input.curation {
        curation::curate(&facts, &live, &renewed, input, &mut gone, &mut out);
    }
    out
}
