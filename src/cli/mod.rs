//! Subcommand groups of the `memdir` binary, each on the public library API.

pub mod facts;
pub mod results;
pub mod runs;

/// Serialises an answer as one line of JSON.
pub fn to_json(v: &impl serde::Serialize) -> String {
    format!(
        "{}\n",
        serde_json::to_string(v)
            .unwrap_or_else(|e| serde_json::json!({"error": e.to_string()}).to_string())
    )
}
