//! The streaming put: a result's content read from an [`std::io::Read`]
//! (standard input, a file, an HTTP body fed through a channel) into a
//! spool in the owner's `.memdir/`, through a bounded buffer, hashed,
//! counted and its kind found on the way, then (text only) scanned from the
//! spool a piece at a time and written behind its metadata line in pieces
//! (`Disk::write_atomic_spooled`): memory stays bounded whatever the
//! content's size, and the `.result` file is the one `put` writes.
//!
//! The content is received before the workflow's lock is taken, so a slow
//! upload keeps no other put of the workflow waiting; the spool has no name
//! in any folder (see `disk::Spool`), so the sweep of temp files a put makes
//! under the lock never meets an upload in progress, and a refused or
//! broken upload leaves nothing behind.

use std::io::Read;

use super::{Body, Content, PutOptions, PutOutcome, accepted_type, checked_limit, commit};
use crate::error::{Error, Result};
use crate::store::files::results::ContentKind;
use crate::store::files::results::file::check_content_type;
use crate::store::files::results::upload::{CHUNK_BYTES, SpoolSource, receive};
use crate::store::files::results::verdict;
use crate::store::owner::Owner;

/// Stores the result of `task_id` in `workflow_id` read from `content` to
/// its end, under `options` (see [`PutOptions`]), with the rules of
/// [`super::put_with`]: ids, size ([`crate::Error::ResultTooLarge`] as soon
/// as the content passes the limit, its `bytes` what was read so far), empty
/// content, text without a type, already stored, exists, overwrite.
/// `source` names the reader in an error (`<stdin>`, a path, `request
/// body`).
pub(crate) fn put_from(
    owner: &Owner,
    (workflow_id, task_id): (&str, &str),
    content: &mut dyn Read,
    source: &str,
    options: &PutOptions,
) -> Result<PutOutcome> {
    let limit = checked_limit(owner, (workflow_id, task_id), options)?;
    if let Some(t) = &options.content_type {
        check_content_type(t)?;
    }
    let disk = owner.disk();
    disk.check()?;
    owner.writable(owner.view()?.at().settings)?;
    // Content that fits in one chunk is put from memory, as `put_with`
    // puts it: a refused one (empty, too large, not text) creates nothing.
    let mut head = Vec::new();
    let read = content
        .take(CHUNK_BYTES as u64 + 1)
        .read_to_end(&mut head)
        .map_err(Error::io(source, "read"))?;
    if read <= CHUNK_BYTES {
        return super::put_with(owner, workflow_id, task_id, &head, options);
    }
    let folders = owner.folders()?;
    let got = receive(disk, &folders.derived, (&head, content), limit, source)?;
    let content_type = accepted_type((workflow_id, task_id), got.bytes, got.kind, options)?;
    // Binary content is not read as text (see `files::results::kind`).
    let flagged = match got.kind {
        ContentKind::Text => verdict::scan_source(&mut SpoolSource::new(&got.spool))?,
        ContentKind::Binary { .. } => Vec::new(),
    };
    let received = Content {
        body: Body::Spool(&got.spool),
        sha256: got.sha256.clone(),
        bytes: got.bytes,
        flagged,
    };
    commit(
        owner,
        (workflow_id, task_id),
        received,
        &content_type,
        options.overwrite,
    )
}
