//! The answers of the root's git commands and the watcher: `check`, the
//! merge driver, `sync`, `log` and `watch`.

use serde_json::{Value, json};

use super::{line, utc};
use crate::api::wire;

/// The errors and warnings `check` found in `reports`.
pub(super) fn check_counts(reports: &[crate::store::CheckReport]) -> (usize, usize) {
    use crate::store::Severity;
    let errors: usize = reports.iter().map(|r| r.count(Severity::Error)).sum();
    let warnings: usize = reports.iter().map(|r| r.count(Severity::Warning)).sum();
    (errors, warnings)
}

/// `check`'s answer as JSON: the reports and what they count.
pub(super) fn check_json(reports: &[crate::store::CheckReport], strict: bool) -> Value {
    let (errors, warnings) = check_counts(reports);
    wire::value(&wire::Checked {
        reports,
        errors,
        warnings,
        strict,
    })
}

/// `check`'s answer as text: one line per finding, then the counts.
pub(super) fn check_text(reports: &[crate::store::CheckReport]) -> String {
    use crate::store::Severity;
    let (errors, warnings) = check_counts(reports);
    let mut out = String::new();
    for f in reports.iter().flat_map(|r| &r.findings) {
        let severity = match f.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        let at = f.line.map(|l| format!(":{l}")).unwrap_or_default();
        let id = f.id.as_ref().map(|i| format!(" {i}")).unwrap_or_default();
        out.push_str(&format!(
            "{severity}[{}] {}{at}{id}: {}\n  hint: {}\n",
            f.kind, f.file, f.message, f.hint
        ));
    }
    let plural = |n: usize, what: &str| format!("{n} {what}{}", if n == 1 { "" } else { "s" });
    out.push_str(&format!(
        "{}, {} in {}\n",
        plural(errors, "error"),
        plural(warnings, "warning"),
        plural(reports.len(), "owner")
    ));
    out
}

/// What `merge-file` merged the file as.
fn merged_kind(m: &crate::store::MergeFileOutcome) -> &'static str {
    use crate::merge::Kind;
    match m.kind {
        Kind::Store(scope) => scope.file_name(),
        Kind::Learnings => "learnings",
        Kind::Pending => "PENDING.md",
        Kind::Archive => "archive.md",
        Kind::Episodes => "episodes.md",
        Kind::Text => "text",
    }
}

/// `merge-file`'s answer as JSON: what was merged and the conflicts left.
pub(super) fn merged_json(m: &crate::store::MergeFileOutcome) -> Value {
    wire::value(&wire::MergedFile {
        file: m.ours.display().to_string(),
        merged_as: merged_kind(m),
        clean: m.merged.is_clean(),
        conflicts: m
            .merged
            .conflicts
            .iter()
            .map(wire::MergeConflict::of)
            .collect(),
    })
}

/// `merge-file`'s answer as text: what was merged and what is left.
pub(super) fn merged_text(m: &crate::store::MergeFileOutcome) -> String {
    use crate::merge::Conflict;
    let kind = merged_kind(m);
    let (entries, text): (Vec<&Conflict>, Vec<&Conflict>) = m
        .merged
        .conflicts
        .iter()
        .partition(|c| matches!(c, Conflict::Entry { .. }));
    let mut out = format!(
        "merged {} as {kind}: {}\n",
        m.ours.display(),
        if m.merged.is_clean() {
            "clean"
        } else {
            "conflict markers left"
        }
    );
    for c in entries.iter().chain(&text) {
        out.push_str(&format!("  {}\n", c.describe()));
    }
    if !entries.is_empty() {
        out.push_str("  both versions are kept with conflict=<id>; `memdir check` lists them\n");
    }
    out
}

/// `sync`'s answer as text: what it did, then per owner the entries that
/// came in and went out, each with its text cut to a line.
pub(super) fn synced(r: &crate::store::SyncReport) -> String {
    let mut out = match &r.remote {
        Some(remote) => format!(
            "synced with {remote}/{}: {}{}{}\n",
            r.branch,
            if r.committed { "committed, " } else { "" },
            if r.merged { "merged, " } else { "" },
            if r.pushed {
                "pushed"
            } else {
                "nothing to push"
            },
        ),
        None => format!(
            "{} on {}; no remote to sync with (add one: `git remote add origin URL`)\n",
            if r.committed {
                "committed"
            } else {
                "nothing to commit"
            },
            r.branch
        ),
    };
    if r.retries > 0 {
        out.push_str(&format!("  the push was retried {} times\n", r.retries));
    }
    for (way, list) in [("came in", &r.incoming), ("went out", &r.outgoing)] {
        for c in list {
            out.push_str(&format!(
                "  {way} for {}: {} added, {} removed\n",
                c.owner,
                c.added.len(),
                c.removed.len()
            ));
            for (sign, entries) in [('+', &c.added), ('-', &c.removed)] {
                for e in entries {
                    out.push_str(&format!(
                        "    {sign} {} ({})  {}\n",
                        e.id,
                        e.store.file_name(),
                        e.text
                    ));
                }
            }
        }
    }
    if r.cut {
        out.push_str("  (more changed than listed: `memdir log` shows each commit)\n");
    }
    out
}

/// A change `watch` saw, with what `check` finds in the file now.
pub(crate) fn watch_event(
    c: &crate::store::WatchedChange,
    findings: &[crate::store::Finding],
    json: bool,
) -> String {
    let now = chrono::Utc::now();
    if json {
        let at = crate::model::fmt_time(now);
        return line(&json!({
            "at": at,
            "owner": c.owner,
            "file": c.file,
            "removed": c.removed,
            "findings": findings,
        }));
    }
    let what = if c.removed { "removed" } else { "changed" };
    let at = utc(&now);
    let mut out = format!(
        "{at} {}/{} {what} (not by memdir): {}\n",
        c.owner,
        c.file,
        match findings.len() {
            0 => "clean".to_owned(),
            1 => "1 finding".to_owned(),
            n => format!("{n} findings"),
        }
    );
    for f in findings {
        let severity = match f.severity {
            crate::store::Severity::Error => "error",
            crate::store::Severity::Warning => "warning",
        };
        let line_no = f.line.map(|l| format!(":{l}")).unwrap_or_default();
        let id = f.id.as_ref().map(|i| format!(" {i}")).unwrap_or_default();
        out.push_str(&format!(
            "  {severity}[{}] {}{line_no}{id}: {}\n    hint: {}\n",
            f.kind, f.file, f.message, f.hint
        ));
    }
    out
}

/// `log`: each commit's line, then the entries it added, removed,
/// archived or brought back.
pub(super) fn log_text(commits: &[crate::store::LogCommit]) -> String {
    let mut out = String::new();
    for c in commits {
        out.push_str(&format!(
            "{} {} {} <{}>: {}\n",
            c.commit.get(..12).unwrap_or(&c.commit),
            c.date,
            c.author,
            c.email,
            c.message
        ));
        for e in &c.changes {
            let sign = if e.change.gained() { '+' } else { '-' };
            out.push_str(&format!(
                "  {sign} {} {} {} {}\n",
                e.change,
                e.file,
                e.id,
                e.text.replace('\n', " ")
            ));
        }
    }
    if commits.is_empty() {
        out.push_str("no commits touched these memory files\n");
    }
    out
}
