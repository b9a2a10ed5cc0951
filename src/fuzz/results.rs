//! Targets `result_file` (a `.result` file: its metadata line and content)
//! and `result_index` (a workflow's `index.json`).

use std::collections::BTreeSet;
use std::path::Path;

use super::Input;
use crate::model::validate_id;
use crate::store::files::results::file::{decode_result, encode_result, sha256_hex};
use crate::store::files::results::index::{
    IndexState, encode_index, parse_index, sort_steps, usable_steps,
};
use crate::store::files::results::{RESULT_INDEX_VERSION, ResultMeta, ResultStep, TaskResult};

/// The path named in errors.
const PATH: &str = "results/wf/task.result";

/// Input: a control byte (bit 0: decode the rest as a file, or encode it as
/// a content), two bytes placing a damage and one giving it, the workflow
/// and task ids (fields), then for an encode the content type and time
/// (fields) and the content.
///
/// Decoding arbitrary bytes never panics: it is `result_corrupt` naming the
/// file, or a result whose ids, length and SHA-256 are those asked for and
/// that encodes and decodes to itself. An encoded result decodes to what
/// was encoded; with a byte damaged, cut or added it is refused, or (a
/// damage inside the metadata's free text) it still gives the same
/// content for the same ids.
pub fn result_file(data: &[u8]) {
    let mut input = Input::new(data);
    let control = input.byte();
    let at = usize::from(input.u16());
    let damage = input.byte().max(1);
    let workflow = input.field();
    let task = input.field();
    if control & 1 == 0 {
        decode_any(&workflow, &task, input.rest_bytes());
        return;
    }
    let content_type = input.field();
    let created_at = input.field();
    let content = input.rest_bytes();
    let meta = ResultMeta {
        workflow_id: workflow.clone(),
        task_id: task.clone(),
        content_type,
        created_at,
        sha256: sha256_hex(content),
        bytes: content.len() as u64,
    };
    let encoded = encode_result(&meta, content, None).unwrap_or_else(|e| panic!("encode: {e}"));
    let header = encoded
        .iter()
        .position(|&b| b == b'\n')
        .unwrap_or_else(|| panic!("no metadata line in {encoded:?}"));
    assert_eq!(
        &encoded[header + 1..],
        content,
        "the content follows the line"
    );
    let r = decode(&workflow, &task, encoded.clone())
        .unwrap_or_else(|e| panic!("decoding what was encoded: {e}"));
    assert_eq!(r.meta(), meta, "metadata round trip");
    assert_eq!(r.content, content, "content round trip");

    let mut damaged = encoded.clone();
    let at = at % damaged.len();
    damaged[at] ^= damage;
    if let Ok(r) = decode(&workflow, &task, damaged) {
        assert!(at < header, "damage at {at} in the content was not noticed");
        assert_eq!(r.content, content, "damaged at {at}: other content trusted");
        assert_eq!(
            (&r.workflow_id, &r.task_id, &r.sha256, r.bytes),
            (&meta.workflow_id, &meta.task_id, &meta.sha256, meta.bytes),
            "damaged at {at}"
        );
    }
    let mut cut = encoded.clone();
    cut.pop();
    assert!(
        decode(&workflow, &task, cut).is_err(),
        "a cut file was read"
    );
    let mut longer = encoded.clone();
    longer.push(damage);
    assert!(
        decode(&workflow, &task, longer).is_err(),
        "a longer file was read"
    );
    let elsewhere = format!("{task}x");
    assert!(
        decode(&workflow, &elsewhere, encoded).is_err(),
        "a result read in another task's place"
    );
}

/// Decodes a result file as the store does, checking what a refusal is.
fn decode(workflow: &str, task: &str, bytes: Vec<u8>) -> crate::error::Result<TaskResult> {
    let got = decode_result(Path::new(PATH), workflow, task, bytes);
    if let Err(e) = &got {
        assert_eq!(e.code().as_str(), "result_corrupt", "{e}");
        assert!(
            e.to_string().starts_with(PATH),
            "the error names no path: {e}"
        );
    }
    got
}

/// Arbitrary bytes as a `.result` file.
fn decode_any(workflow: &str, task: &str, bytes: &[u8]) {
    let Ok(r) = decode(workflow, task, bytes.to_vec()) else {
        return;
    };
    assert_eq!(
        (r.workflow_id.as_str(), r.task_id.as_str()),
        (workflow, task)
    );
    assert_eq!(r.content.len() as u64, r.bytes, "length");
    assert_eq!(sha256_hex(&r.content), r.sha256, "SHA-256");
    assert!(bytes.ends_with(&r.content), "the content is the file's end");
    let again =
        encode_result(&r.meta(), &r.content, None).unwrap_or_else(|e| panic!("encode: {e}"));
    let back = decode(workflow, task, again).unwrap_or_else(|e| panic!("re-decode: {e}"));
    assert_eq!(back, r, "re-encoded");
}

/// Input: a control byte (bit 0: parse the rest as an index, or build an
/// index from it), two bytes placing a damage and one giving it, the
/// workflow id and the task ids of the `.result` files (a field, ids
/// parted by spaces), then the rest.
///
/// Parsing arbitrary bytes never panics; an index is valid only when it is
/// JSON of this version for this workflow with valid task ids and hashes,
/// and then encodes and parses to itself; it is used as it is only when it
/// lists each result file once and nothing else, sorted; else it is
/// rebuilt. An index built and encoded parses back to its steps; damaged,
/// it is refused or still names exactly the result files.
pub fn result_index(data: &[u8]) {
    let mut input = Input::new(data);
    let control = input.byte();
    let at = usize::from(input.u16());
    let damage = input.byte().max(1);
    let mut workflow = input.field();
    if workflow.is_empty() {
        workflow = "wf-1".to_owned();
    }
    let files: BTreeSet<String> = input
        .field()
        .split(' ')
        .filter(|t| validate_id("task", t).is_ok())
        .map(str::to_owned)
        .collect();
    let rest = input.rest_bytes();
    if control & 1 == 0 {
        let state = parse_index(rest, &workflow);
        check_state(&state, rest, &workflow);
        check_usable(&state, &files);
        if let IndexState::Valid(steps) = &state {
            let again = encode_index(&workflow, steps).unwrap_or_else(|e| panic!("encode: {e}"));
            assert_eq!(&parse_index(&again, &workflow), &state, "re-encoded");
        }
        return;
    }
    let steps = built_steps(&files, rest);
    let encoded = encode_index(&workflow, &steps).unwrap_or_else(|e| panic!("encode: {e}"));
    let state = parse_index(&encoded, &workflow);
    assert_eq!(state, IndexState::Valid(steps.clone()), "round trip");
    let mut sorted = steps.clone();
    sort_steps(&mut sorted);
    assert_eq!(
        usable_steps(state.clone(), &files),
        Ok(sorted),
        "used as it is"
    );
    if let Some(first) = files.iter().next() {
        let mut fewer = files.clone();
        fewer.remove(first);
        assert!(usable_steps(state.clone(), &fewer).is_err(), "a file gone");
    }
    let mut more = files.clone();
    more.insert("zz-extra".to_owned());
    if more.len() > files.len() {
        assert!(usable_steps(state.clone(), &more).is_err(), "a file more");
    }
    let other = format!("{workflow}x");
    assert!(
        matches!(parse_index(&encoded, &other), IndexState::Bad(_)),
        "an index read for another workflow"
    );
    let mut damaged = encoded;
    let at = at % damaged.len();
    damaged[at] ^= damage;
    let state = parse_index(&damaged, &workflow);
    check_state(&state, &damaged, &workflow);
    check_usable(&state, &files);
}

/// Steps for the task ids `files`, their other fields cut from `rest`.
fn built_steps(files: &BTreeSet<String>, rest: &[u8]) -> Vec<ResultStep> {
    let mut chunks = rest.split(|&b| b == super::FIELD_SEPARATOR);
    files
        .iter()
        .map(|task| {
            let mut text =
                || String::from_utf8_lossy(chunks.next().unwrap_or_default()).into_owned();
            let content_type = text();
            let created_at = text();
            ResultStep {
                task_id: task.clone(),
                sha256: sha256_hex(format!("{task}\n{created_at}").as_bytes()),
                bytes: created_at.len() as u64,
                content_type,
                created_at,
            }
        })
        .collect()
}

/// A parse of `bytes`: valid only for JSON of this version and workflow
/// whose steps have valid task ids and SHA-256s; bad with a reason.
fn check_state(state: &IndexState, bytes: &[u8], workflow: &str) {
    match state {
        IndexState::Missing => panic!("parsed bytes as a missing index"),
        IndexState::Bad(why) => assert!(!why.is_empty(), "bad without a reason"),
        IndexState::Valid(steps) => {
            let v: serde_json::Value = serde_json::from_slice(bytes)
                .unwrap_or_else(|e| panic!("valid, but not JSON: {e}"));
            assert_eq!(v["version"], RESULT_INDEX_VERSION, "version");
            assert_eq!(v["workflow_id"], workflow, "workflow");
            for s in steps {
                assert!(
                    validate_id("task", &s.task_id).is_ok(),
                    "task {:?}",
                    s.task_id
                );
                assert!(
                    s.sha256.len() == 64
                        && s.sha256
                            .bytes()
                            .all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')),
                    "sha256 {:?}",
                    s.sha256
                );
            }
        }
    }
}

/// An index is used as it is exactly when it lists each result file once
/// and nothing else (or there are neither index nor files), then sorted;
/// otherwise it is rebuilt, with a reason.
fn check_usable(state: &IndexState, files: &BTreeSet<String>) {
    let got = usable_steps(state.clone(), files);
    let exact = match state {
        IndexState::Missing => files.is_empty(),
        IndexState::Bad(_) => false,
        IndexState::Valid(steps) => {
            let mut ids: Vec<&str> = steps.iter().map(|s| s.task_id.as_str()).collect();
            ids.sort_unstable();
            ids.iter().copied().eq(files.iter().map(String::as_str))
        }
    };
    match got {
        Ok(steps) => {
            assert!(exact, "used an index that does not list exactly the files");
            let mut sorted = steps.clone();
            sort_steps(&mut sorted);
            assert_eq!(sorted, steps, "not sorted");
            if let IndexState::Valid(orig) = state {
                let mut a = orig.clone();
                sort_steps(&mut a);
                assert_eq!(a, steps, "not the index's steps");
            }
        }
        Err(why) => {
            assert!(
                !exact,
                "rebuilt an index that lists exactly the files: {why}"
            );
            assert!(!why.is_empty(), "rebuilt without a reason");
        }
    }
}
