//! The kinds of finding `check` reports, each a stable code.

use serde::Serialize;

/// What kind of finding, serialised as its stable snake_case code
/// (`conflict_markers`, `duplicate_entry`, …).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum FindingKind {
    /// Git conflict markers in a file.
    ConflictMarkers,
    /// An entry twice in its store.
    DuplicateEntry,
    /// Text the scanner flags as a prompt injection or an exfiltration.
    Threat,
    /// Text the scanner flags as a secret.
    Secret,
    /// A metadata comment that does not parse.
    MalformedMetadata,
    /// A file that cannot be read at all.
    Unreadable,
    /// A file of a format this version does not read.
    FormatUnsupported,
    /// One side of a pair a merge kept (`conflict=`).
    MergeConflictPair,
    /// A fact both live and archived.
    LiveAndArchived,
    /// A store past its budget.
    OverBudget,
    /// A fact past its expiry, still in its store.
    Expired,
    /// A metadata key this version does not know.
    UnknownMetadataKey,
    /// A setting of memdir.yaml this version does not know.
    UnknownSetting,
    /// A setting out of its bounds, clamped.
    SettingClamped,
    /// A memdir.yaml that does not parse.
    InvalidConfig,
    /// Day log sections out of date order.
    DayLogOutOfOrder,
    /// Control characters in an entry.
    ControlCharacters,
    /// Derived files git tracks.
    TrackedDerived,
}

impl FindingKind {
    /// Its stable code.
    pub const fn as_str(self) -> &'static str {
        match self {
            FindingKind::ConflictMarkers => "conflict_markers",
            FindingKind::DuplicateEntry => "duplicate_entry",
            FindingKind::Threat => "threat",
            FindingKind::Secret => "secret",
            FindingKind::MalformedMetadata => "malformed_metadata",
            FindingKind::Unreadable => "unreadable",
            FindingKind::FormatUnsupported => "format_unsupported",
            FindingKind::MergeConflictPair => "merge_conflict_pair",
            FindingKind::LiveAndArchived => "live_and_archived",
            FindingKind::OverBudget => "over_budget",
            FindingKind::Expired => "expired",
            FindingKind::UnknownMetadataKey => "unknown_metadata_key",
            FindingKind::UnknownSetting => "unknown_setting",
            FindingKind::SettingClamped => "setting_clamped",
            FindingKind::InvalidConfig => "invalid_config",
            FindingKind::DayLogOutOfOrder => "day_log_out_of_order",
            FindingKind::ControlCharacters => "control_characters",
            FindingKind::TrackedDerived => "tracked_derived",
        }
    }
}

impl std::fmt::Display for FindingKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}
