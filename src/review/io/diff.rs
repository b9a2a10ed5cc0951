//! The dry run's diff of a file: a unified diff with context, by
//! imara-diff (Histogram, then its line post-processing), in linear space.

use imara_diff::{Algorithm, BasicLineDiffPrinter, Diff, InternedInput, UnifiedDiffConfig};

/// Lines of context around each change.
const CONTEXT_LINES: u32 = 3;

/// A unified diff of `old` and `new` named `name` (`--- a/NAME`,
/// `+++ b/NAME`, then hunks with [`CONTEXT_LINES`] lines of context; only
/// the headers when they are the same).
pub(crate) fn unified_diff(name: &str, old: &str, new: &str) -> String {
    let mut out = format!("--- a/{name}\n+++ b/{name}\n");
    let input = InternedInput::new(old, new);
    let mut diff = Diff::compute(Algorithm::Histogram, &input);
    diff.postprocess_lines(&input);
    let mut config = UnifiedDiffConfig::default();
    config.context_len(CONTEXT_LINES);
    let printer = BasicLineDiffPrinter(&input.interner);
    out.push_str(&diff.unified_diff(&printer, config, &input).to_string());
    if !out.ends_with('\n') {
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::unified_diff;

    #[test]
    fn a_change_is_one_hunk_with_context() {
        let old: String = (1..=20).map(|i| format!("- fact {i}\n")).collect();
        let new = old.replace("- fact 10\n", "- fact ten\n");
        let d = unified_diff("MEMORY.md", &old, &new);
        assert_eq!(
            d,
            "--- a/MEMORY.md\n+++ b/MEMORY.md\n@@ -7,7 +7,7 @@\n \
             - fact 7\n - fact 8\n - fact 9\n-- fact 10\n+- fact ten\n \
             - fact 11\n - fact 12\n - fact 13\n"
        );
    }

    #[test]
    fn a_large_store_diffs_in_full() {
        // 4,000 lines, every tenth changed: hunks, not a summary.
        let old: String = (0..4_000).map(|i| format!("- fact number {i}\n")).collect();
        let new: String = (0..4_000)
            .map(|i| {
                if i % 10 == 0 {
                    format!("- changed fact {i}\n")
                } else {
                    format!("- fact number {i}\n")
                }
            })
            .collect();
        let d = unified_diff("MEMORY.md", &old, &new);
        assert_eq!(d.matches("\n-- fact number ").count(), 400, "{}", &d[..300]);
        assert_eq!(d.matches("\n+- changed fact ").count(), 400);
        assert!(d.contains("@@ -1,4 +1,4 @@\n-- fact number 0\n+- changed fact 0\n"));
        assert!(!d.contains("lines ->"));
    }

    #[test]
    fn the_same_text_has_only_the_headers() {
        assert_eq!(
            unified_diff("USER.md", "- a\n", "- a\n"),
            "--- a/USER.md\n+++ b/USER.md\n"
        );
    }
}
