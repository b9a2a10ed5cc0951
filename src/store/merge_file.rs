//! `memdir merge-file BASE OURS THEIRS [PATH]`, git's merge driver: reads
//! the three versions of a file through the disk layer, merges them
//! (`crate::merge`, pure) and replaces OURS with the result, atomically and
//! durably.
//!
//! Each file is reached through its folder, opened once: a symlink or
//! anything but a regular file is refused (`unsafe_path`), a file over
//! [`MERGE_BYTES`] is refused before a byte of it is read
//! (`file_too_large`), and a file that is not UTF-8 is refused
//! (`invalid_utf8`). A refusal leaves OURS as it was.

use std::cell::RefCell;
use std::path::{Path, PathBuf};

use crate::disk::{Base, Change, Dir, Disk, Held, decode};
use crate::error::{Error, Result};
use crate::merge::{self, Kind, Merged};
use crate::store::limits::MERGE_BYTES;

/// What a merge of three files did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MergeFileOutcome {
    /// The file OURS, now holding the result.
    pub ours: PathBuf,
    /// How the file was merged.
    pub kind: Kind,
    /// The result and what is left in conflict.
    pub merged: Merged,
}

/// A file named by the caller: its folder, opened, and its name in it.
struct Named {
    dir: Dir,
    name: String,
    path: PathBuf,
}

fn open(disk: &Disk, path: &Path) -> Result<Named> {
    let bad = || Error::Io {
        path: path.to_owned(),
        op: "open",
        source: std::io::Error::new(std::io::ErrorKind::InvalidInput, "not a file name"),
    };
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .filter(|n| *n != "." && *n != "..")
        .ok_or_else(bad)?
        .to_owned();
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let dir = disk.open_root(parent)?.ok_or_else(|| Error::Io {
        path: parent.to_owned(),
        op: "open folder",
        source: std::io::ErrorKind::NotFound.into(),
    })?;
    Ok(Named {
        dir,
        name,
        path: path.to_owned(),
    })
}

/// Reads a named file whole (its size checked first), as text.
fn read(disk: &Disk, f: &Named) -> Result<(Held, String)> {
    let held = disk
        .read(&f.dir, &f.name, MERGE_BYTES)?
        .ok_or_else(|| Error::Io {
            path: f.path.clone(),
            op: "read",
            source: std::io::ErrorKind::NotFound.into(),
        })?;
    let text = decode(&f.path, held.bytes.clone())?;
    Ok((held, text))
}

/// The kind of the file merged: by `path` (git's `%P`), else by OURS' own
/// name when it is one memdir owns, else by the content.
fn kind(path: Option<&str>, ours: &Path, base: &str, o: &str, t: &str) -> Kind {
    if let Some(p) = path {
        return Kind::of_path(p).unwrap_or(Kind::Text);
    }
    ours.file_name()
        .and_then(|n| n.to_str())
        .and_then(Kind::of_path)
        .unwrap_or_else(|| Kind::sniff(base, o, t))
}

/// Merges BASE, OURS and THEIRS (git's `%O %A %B`) and writes the result
/// over OURS; `path` is the file's path in the repository (`%P`).
pub fn merge_file(
    base: &Path,
    ours: &Path,
    theirs: &Path,
    path: Option<&str>,
) -> Result<MergeFileOutcome> {
    merge_file_on(&Disk::default(), base, ours, theirs, path)
}

pub(crate) fn merge_file_on(
    disk: &Disk,
    base: &Path,
    ours: &Path,
    theirs: &Path,
    path: Option<&str>,
) -> Result<MergeFileOutcome> {
    let (b, o, t) = (open(disk, base)?, open(disk, ours)?, open(disk, theirs)?);
    let (_, base_text) = read(disk, &b)?;
    let (held, ours_text) = read(disk, &o)?;
    let (_, theirs_text) = read(disk, &t)?;
    let kind = kind(path, ours, &base_text, &ours_text, &theirs_text);
    let merged = merge::merge_as(kind, &base_text, &ours_text, &theirs_text);
    // If OURS changes under the merge (it should not: git hands it to the
    // driver), the merge runs again on what it then holds.
    let again: RefCell<Option<Merged>> = RefCell::new(None);
    let change = Change {
        dir: &o.dir,
        name: &o.name,
        base: Some(Base::from(held)),
        planned: Some(merged.text.clone().into_bytes()),
        redo: Box::new(|cur| {
            let cur = decode(&o.path, cur.map(<[u8]>::to_vec).unwrap_or_default())?;
            let m = merge::merge_as(kind, &base_text, &cur, &theirs_text);
            let bytes = m.text.clone().into_bytes();
            *again.borrow_mut() = Some(m);
            Ok(Some(bytes))
        }),
    };
    disk.replace(change)?;
    let merged = again.into_inner().unwrap_or(merged);
    Ok(MergeFileOutcome {
        ours: ours.to_owned(),
        kind,
        merged,
    })
}
