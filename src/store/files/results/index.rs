//! A workflow's sidecar index, `results/<workflow_id>/index.json`: reading
//! and validating it against the `.result` files in the folder, rebuilding
//! it from them (with a warning) when it is missing, damaged, of another
//! version or workflow, or out of step, and writing it durably.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use super::file::{decode_result, is_sha256_hex};
use super::{RESULT_INDEX_FILE, RESULT_INDEX_VERSION, RESULT_SUFFIX, ResultMeta, ResultStep};
use crate::disk::{Dir, Disk};
use crate::error::{Error, Result};
use crate::model::validate_id;
use crate::store::limits::RESULT_INDEX_BYTES;

/// A workflow's `index.json`.
#[derive(Debug, Serialize, Deserialize)]
struct Index {
    version: u32,
    workflow_id: String,
    results: Vec<ResultStep>,
}

/// How a workflow's index was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum IndexState {
    /// No index file.
    Missing,
    /// An index of this format, for this workflow.
    Valid(Vec<ResultStep>),
    /// Unreadable, of another version or another workflow: why.
    Bad(String),
}

/// A workflow's steps, and whether the index on disk must be rewritten.
pub(crate) struct Loaded {
    /// The steps, in index order.
    pub(crate) steps: Vec<ResultStep>,
    /// Why the index was rebuilt, and the damaged files left out.
    pub(crate) warnings: Vec<String>,
    /// The steps were rebuilt from the result files: save them.
    pub(crate) rebuilt: bool,
}

/// A result's entry in its workflow's index.
pub(crate) fn step_of(meta: &ResultMeta) -> ResultStep {
    ResultStep {
        task_id: meta.task_id.clone(),
        content_type: meta.content_type.clone(),
        created_at: meta.created_at.clone(),
        sha256: meta.sha256.clone(),
        bytes: meta.bytes,
    }
}

/// Index order: by `created_at` (fixed-width UTC, so string order is time
/// order), then task id.
pub(crate) fn sort_steps(steps: &mut [ResultStep]) {
    steps.sort_by(|a, b| {
        a.created_at
            .cmp(&b.created_at)
            .then_with(|| a.task_id.cmp(&b.task_id))
    });
}

/// The task ids of the `.result` files in a workflow's folder, sorted.
fn result_files(disk: &Disk, dir: &Dir) -> Result<BTreeSet<String>> {
    let names = disk.list(dir)?;
    Ok(names
        .into_iter()
        .filter_map(|n| {
            let task = n.strip_suffix(RESULT_SUFFIX)?;
            validate_id("task", task).ok()?;
            Some(task.to_owned())
        })
        .collect())
}

fn read_index(disk: &Disk, dir: &Dir, workflow_id: &str) -> Result<IndexState> {
    Ok(
        match disk.read_bytes(dir, RESULT_INDEX_FILE, RESULT_INDEX_BYTES)? {
            Some(bytes) => parse_index(&bytes, workflow_id),
            None => IndexState::Missing,
        },
    )
}

/// Reads the bytes of `workflow_id`'s `index.json`: valid, or bad and why.
pub(crate) fn parse_index(bytes: &[u8], workflow_id: &str) -> IndexState {
    // JSON is UTF-8 throughout: parsing bytes, serde_json does not check the
    // strings of fields it skips.
    let Ok(text) = std::str::from_utf8(bytes) else {
        return IndexState::Bad("not a valid index (not UTF-8)".into());
    };
    let index: Index = match serde_json::from_str(text) {
        Ok(i) => i,
        Err(e) => return IndexState::Bad(format!("not a valid index ({e})")),
    };
    if index.version != RESULT_INDEX_VERSION {
        return IndexState::Bad(format!("unknown index version {}", index.version));
    }
    if index.workflow_id != workflow_id {
        return IndexState::Bad(format!("indexes workflow {:?}", index.workflow_id));
    }
    if let Some(s) = index
        .results
        .iter()
        .find(|s| validate_id("task", &s.task_id).is_err() || !is_sha256_hex(&s.sha256))
    {
        return IndexState::Bad(format!("bad entry for task {:?}", s.task_id));
    }
    IndexState::Valid(index.results)
}

/// The steps of an index found as `state` when they can be used as they
/// are: they list each of the `files` (the task ids of the workflow's
/// `.result` files) once and nothing else; sorted. Else why the index must
/// be rebuilt.
pub(crate) fn usable_steps(
    state: IndexState,
    files: &BTreeSet<String>,
) -> std::result::Result<Vec<ResultStep>, String> {
    match state {
        IndexState::Missing if files.is_empty() => Ok(Vec::new()),
        IndexState::Missing => Err("missing".to_owned()),
        IndexState::Bad(why) => Err(why),
        IndexState::Valid(mut steps) => {
            let listed: BTreeSet<&str> = steps.iter().map(|s| s.task_id.as_str()).collect();
            if listed.len() == steps.len()
                && listed.iter().copied().eq(files.iter().map(String::as_str))
            {
                sort_steps(&mut steps);
                Ok(steps)
            } else {
                Err("out of step with the result files (an interrupted put)".to_owned())
            }
        }
    }
}

/// The workflow's steps from its index when the index matches the
/// `.result` files in the folder; else rebuilt from the files, with a
/// warning (`rebuilt` set). Call under the workflow's lock to rebuild.
pub(crate) fn load_steps(
    disk: &Disk,
    dir: &Dir,
    workflow_id: &str,
    file_limit: u64,
) -> Result<Loaded> {
    let files = result_files(disk, dir)?;
    let index_path = dir.join(RESULT_INDEX_FILE);
    let why = match usable_steps(read_index(disk, dir, workflow_id)?, &files) {
        Ok(steps) => {
            return Ok(Loaded {
                steps,
                warnings: Vec::new(),
                rebuilt: false,
            });
        }
        Err(why) => why,
    };
    let mut warnings = Vec::new();
    let mut steps = Vec::with_capacity(files.len());
    for task in &files {
        let name = format!("{task}{RESULT_SUFFIX}");
        let path = dir.join(&name);
        let read = disk
            .read_bytes(dir, &name, file_limit)
            .and_then(|b| match b {
                Some(b) => decode_result(&path, workflow_id, task, b).map(Some),
                None => Ok(None), // removed meanwhile
            });
        match read {
            Ok(Some(r)) => steps.push(step_of(&r.meta())),
            Ok(None) => {}
            Err(e) => warnings.push(format!("skipped a damaged result: {e}")),
        }
    }
    sort_steps(&mut steps);
    warnings.insert(
        0,
        format!(
            "{}: {why}; rebuilt from {} result file(s)",
            index_path.display(),
            steps.len()
        ),
    );
    Ok(Loaded {
        steps,
        warnings,
        rebuilt: true,
    })
}

/// Writes the workflow's index durably (temp file, sync, rename, folder sync).
pub(crate) fn write_index(
    disk: &Disk,
    dir: &Dir,
    workflow_id: &str,
    steps: &[ResultStep],
) -> Result<()> {
    disk.write_atomic(dir, RESULT_INDEX_FILE, &encode_index(workflow_id, steps)?)
}

/// The bytes of `workflow_id`'s `index.json` listing `steps`: pretty JSON
/// and a final line feed.
pub(crate) fn encode_index(workflow_id: &str, steps: &[ResultStep]) -> Result<Vec<u8>> {
    let index = Index {
        version: RESULT_INDEX_VERSION,
        workflow_id: workflow_id.to_owned(),
        results: steps.to_vec(),
    };
    let mut bytes = serde_json::to_vec_pretty(&index).map_err(|source| Error::Encode {
        what: "results index",
        source,
    })?;
    bytes.push(b'\n');
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(task: &str) -> ResultStep {
        ResultStep {
            task_id: task.to_owned(),
            content_type: "text/plain".to_owned(),
            created_at: "2026-11-30T12:00:00Z".to_owned(),
            sha256: "0".repeat(64),
            bytes: 1,
        }
    }

    fn files(ids: &[&str]) -> BTreeSet<String> {
        ids.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn an_encoded_index_parses_back_for_its_workflow_only() {
        let steps = vec![step("b"), step("a")];
        let bytes = encode_index("wf-1", &steps).unwrap();
        assert!(bytes.ends_with(b"\n"));
        assert_eq!(
            parse_index(&bytes, "wf-1"),
            IndexState::Valid(steps.clone())
        );
        assert!(matches!(parse_index(&bytes, "wf-2"), IndexState::Bad(_)));
        assert!(matches!(parse_index(b"{", "wf-1"), IndexState::Bad(_)));
        let other = String::from_utf8(bytes).unwrap().replace(
            &format!("\"version\": {RESULT_INDEX_VERSION}"),
            "\"version\": 999",
        );
        assert_eq!(
            parse_index(other.as_bytes(), "wf-1"),
            IndexState::Bad("unknown index version 999".to_owned())
        );
        // Found by the `result_index` fuzz target: a byte that is not UTF-8
        // in a field the index does not read made no difference to serde.
        let mut junk = bytes_with_field(&steps, "\"note\": \"x\",");
        let at = junk.iter().position(|&b| b == b'x').unwrap();
        junk[at] = 0xb0;
        assert_eq!(
            parse_index(&junk, "wf-1"),
            IndexState::Bad("not a valid index (not UTF-8)".to_owned())
        );
        junk[at] = b'x';
        assert_eq!(parse_index(&junk, "wf-1"), IndexState::Valid(steps));
    }

    /// The encoded index of `steps` with `field` added to its object.
    fn bytes_with_field(steps: &[ResultStep], field: &str) -> Vec<u8> {
        let text = String::from_utf8(encode_index("wf-1", steps).unwrap()).unwrap();
        text.replacen('{', &format!("{{ {field}"), 1).into_bytes()
    }

    #[test]
    fn an_index_is_used_only_when_it_lists_exactly_the_files() {
        let valid = IndexState::Valid(vec![step("b"), step("a")]);
        let got = usable_steps(valid.clone(), &files(&["a", "b"])).unwrap();
        let ids: Vec<&str> = got.iter().map(|s| s.task_id.as_str()).collect();
        assert_eq!(ids, ["a", "b"]);
        assert!(usable_steps(valid.clone(), &files(&["a"])).is_err());
        assert!(usable_steps(valid, &files(&["a", "b", "c"])).is_err());
        let twice = IndexState::Valid(vec![step("a"), step("a")]);
        assert!(usable_steps(twice, &files(&["a"])).is_err());
        assert_eq!(
            usable_steps(IndexState::Missing, &files(&[])),
            Ok(Vec::new())
        );
        assert!(usable_steps(IndexState::Missing, &files(&["a"])).is_err());
        assert!(usable_steps(IndexState::Bad("x".to_owned()), &files(&[])).is_err());
    }
}
