//! The data model: ids, the stores and where a memory lives, a memory's
//! kind and state, the metadata
//! comment of a fact, who is calling, and the settings. Pure: no I/O.

pub(crate) mod caller;
pub(crate) mod id;
pub(crate) mod machine;
pub(crate) mod meta;
pub(crate) mod replicas;
pub(crate) mod scope;
pub(crate) mod settings;
pub(crate) mod state;
pub(crate) mod time;

pub use caller::{Caller, RunContext};
pub use id::{
    LEARNING_ID_SCOPE, PENDING_ID_SCOPE, day_id, entry_id, fold_whitespace, is_entry_id,
    is_pending_id, pending_id, validate_id, validate_new_id,
};
#[cfg(any(test, feature = "internals"))]
pub use id::{MAX_ID_LEN, RESERVED_ROOT_NAMES, is_reserved_root_name};
#[cfg(any(test, feature = "internals"))]
pub use machine::RecallConfig;
pub use machine::{ACCOUNT_CONFIG_DIR, MACHINE_CONFIG_FILE, MachineConfig, PASSWD_FILE, home_of};
#[cfg(any(test, feature = "internals"))]
pub use meta::BadValue;
pub use meta::{
    ArchiveKind, Meta, bad_values, created_at, expires_at, fmt_time, is_live, parse_expires,
    parse_time,
};
pub use replicas::Replica;
pub use scope::{Origin, Scope};
#[cfg(any(test, feature = "internals"))]
pub use settings::{Budgets, ExpiryDays, GitSettings};
pub use settings::{Curation, FORMAT, REVIEW_AT, ReviewSettings, Settings, WritePolicy};
pub use state::{FactKind, Status};
