//! The answers of `import hermes` and `export --format hermes`.

use crate::store::ImportStatus;

/// One entry's text on one line, shortened.
pub(super) fn one_line(text: &str) -> String {
    let one: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if one.chars().count() <= 70 {
        one
    } else {
        format!("{}...", one.chars().take(67).collect::<String>())
    }
}

/// `import hermes`: per file, what went in, what was skipped and what was
/// refused with its reason.
pub(super) fn imported_text(i: &crate::store::HermesImport) -> String {
    let verb = if i.dry_run {
        "would import"
    } else {
        "imported"
    };
    let mut out = String::new();
    if i.dry_run {
        out.push_str("dry run: nothing written\n");
    }
    for f in &i.files {
        let usage = f
            .usage
            .as_ref()
            .map(|u| format!(" ({})", u.text))
            .unwrap_or_default();
        let what = match f.status {
            ImportStatus::Refused => format!("refused, nothing {verb}"),
            ImportStatus::Unchanged => "nothing new".to_owned(),
            ImportStatus::Pending => format!(
                "{} of {} entries wait for a person's review (pending {})",
                f.imported.len(),
                f.entries,
                f.pending_id.as_deref().unwrap_or_default()
            ),
            ImportStatus::Imported | ImportStatus::Partial => {
                format!("{verb} {} of {} entries", f.imported.len(), f.entries)
            }
        };
        out.push_str(&format!("{}: {what}{usage}\n", f.file));
        for e in &f.imported {
            out.push_str(&format!("  + {}  {}\n", e.id, one_line(&e.text)));
        }
        for s in &f.skipped {
            out.push_str(&format!(
                "  = #{} {} ({})\n",
                s.index,
                one_line(&s.text),
                s.reason
            ));
        }
        for r in &f.refused {
            out.push_str(&format!(
                "  ! #{} {} [{}] {}\n",
                r.index,
                one_line(&r.text),
                r.code,
                r.reason
            ));
        }
        for a in &f.archived {
            out.push_str(&format!("  archived {a} to make room\n"));
        }
    }
    out
}

/// `export --format hermes`: per file, how many entries and what was left
/// out.
pub(super) fn exported_text(x: &crate::store::HermesExport) -> String {
    let verb = if x.dry_run { "would write" } else { "wrote" };
    let mut out = String::new();
    for f in &x.files {
        out.push_str(&format!(
            "{verb} {}/{}: {} entries, {} bytes{}\n",
            x.dir,
            f.file,
            f.entries,
            f.bytes,
            if f.replaced { " (replaced)" } else { "" }
        ));
        for l in &f.left_out {
            out.push_str(&format!(
                "  left out #{} {} ({}: {})\n",
                l.index,
                one_line(&l.text),
                l.code,
                l.reason
            ));
        }
    }
    out
}
