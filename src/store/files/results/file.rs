//! The `.result` file format: a first line of JSON metadata (the header),
//! `\n`, then the raw content bytes. Encoding, decoding and the checks a
//! read makes (version, ids, length, SHA-256). Pure: no I/O.

use std::path::Path;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::kind::ContentKind;
use super::verdict::StoredVerdict;
use super::{RESULT_FORMAT_VERSION, ResultMeta, TaskResult};
use crate::error::{Error, Result};

/// Longest content type accepted, in bytes.
const MAX_CONTENT_TYPE_LEN: usize = 255;

/// The first line of a `.result` file (field order is the on-disk order).
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Header {
    v: u32,
    workflow_id: String,
    task_id: String,
    content_type: String,
    created_at: String,
    sha256: String,
    bytes: u64,
    /// The scanner's verdict on the content, vouched for by the machine's
    /// scan key (format 2; absent without a key).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    scan: Option<StoredVerdict>,
}

/// The format versions a read accepts: 1 (no verdict) and the current one.
const READABLE_VERSIONS: [u32; 2] = [1, RESULT_FORMAT_VERSION];

/// SHA-256 of `bytes`, lowercase hex.
pub(crate) fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

/// Whether `s` is a SHA-256 in lowercase hex.
pub(crate) fn is_sha256_hex(s: &str) -> bool {
    s.len() == 64 && s.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// Refuses a content type that is empty, too long or not printable ASCII.
pub(crate) fn check_content_type(content_type: &str) -> Result<()> {
    let ok = !content_type.is_empty()
        && content_type.len() <= MAX_CONTENT_TYPE_LEN
        && content_type.bytes().all(|b| (0x20..0x7f).contains(&b));
    if ok {
        Ok(())
    } else {
        Err(Error::InvalidContentType {
            value: content_type.to_owned(),
            limit: MAX_CONTENT_TYPE_LEN,
        })
    }
}

fn corrupt(path: &Path, message: impl Into<String>) -> Error {
    Error::ResultCorrupt {
        path: path.to_owned(),
        message: message.into(),
    }
}

/// The bytes of a `.result` file: the metadata line (with the scanner's
/// verdict, when there is one), `\n`, the content.
pub(crate) fn encode_result(
    meta: &ResultMeta,
    content: &[u8],
    verdict: Option<StoredVerdict>,
) -> Result<Vec<u8>> {
    let mut out = encode_head(meta, verdict, content.len())?;
    out.extend_from_slice(content);
    Ok(out)
}

/// The head of a `.result` file: its metadata line and the `\n` that ends
/// it, with room reserved for `room` bytes of content to follow.
pub(crate) fn encode_head(
    meta: &ResultMeta,
    verdict: Option<StoredVerdict>,
    room: usize,
) -> Result<Vec<u8>> {
    let header = Header {
        v: RESULT_FORMAT_VERSION,
        workflow_id: meta.workflow_id.clone(),
        task_id: meta.task_id.clone(),
        content_type: meta.content_type.clone(),
        created_at: meta.created_at.clone(),
        sha256: meta.sha256.clone(),
        bytes: meta.bytes,
        scan: verdict,
    };
    let mut out = serde_json::to_vec(&header).map_err(|source| Error::Encode {
        what: "result header",
        source,
    })?;
    out.reserve(room + 1);
    out.push(b'\n');
    Ok(out)
}

/// Parses and checks a `.result` file read from `path`, which must hold the
/// result of (`workflow_id`, `task_id`); [`Error::ResultCorrupt`] naming
/// `path` when it does not. Its `flagged` is left empty: see
/// [`decode_with_verdict`].
pub(crate) fn decode_result(
    path: &Path,
    workflow_id: &str,
    task_id: &str,
    bytes: Vec<u8>,
) -> Result<TaskResult> {
    decode_with_verdict(path, workflow_id, task_id, bytes).map(|(r, _)| r)
}

/// [`decode_result`], with the verdict the file keeps (not yet verified:
/// `verdict::open` does that).
pub(crate) fn decode_with_verdict(
    path: &Path,
    workflow_id: &str,
    task_id: &str,
    mut bytes: Vec<u8>,
) -> Result<(TaskResult, Option<StoredVerdict>)> {
    let Some(nl) = bytes.iter().position(|&b| b == b'\n') else {
        return Err(corrupt(path, "result file: no metadata line"));
    };
    let header: Header = serde_json::from_slice(&bytes[..nl])
        .map_err(|e| corrupt(path, format!("result file: bad metadata line: {e}")))?;
    if !READABLE_VERSIONS.contains(&header.v) {
        return Err(corrupt(
            path,
            format!("result file: unknown format version {}", header.v),
        ));
    }
    if header.workflow_id != workflow_id || header.task_id != task_id {
        return Err(corrupt(
            path,
            format!(
                "result file: holds {}/{}, not {workflow_id}/{task_id}",
                header.workflow_id, header.task_id
            ),
        ));
    }
    let content = bytes.split_off(nl + 1);
    if content.len() as u64 != header.bytes {
        return Err(corrupt(
            path,
            format!(
                "result file: {} content bytes, the metadata says {}",
                content.len(),
                header.bytes
            ),
        ));
    }
    let sha = sha256_hex(&content);
    if sha != header.sha256 {
        return Err(corrupt(
            path,
            format!(
                "result file: content SHA-256 {sha} does not match the metadata's {}",
                header.sha256
            ),
        ));
    }
    let verdict = if header.v == 1 { None } else { header.scan };
    let result = TaskResult {
        kind: ContentKind::of(&content),
        content,
        content_type: header.content_type,
        workflow_id: header.workflow_id,
        task_id: header.task_id,
        created_at: header.created_at,
        sha256: header.sha256,
        bytes: header.bytes,
        flagged: Vec::new(),
        redacted: false,
    };
    Ok((result, verdict))
}
