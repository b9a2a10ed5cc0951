//! Semantic recall: the configured model's query vector and the owner's
//! cached fact vectors, fused with the lexical score
//! (`recall::fuse::Fused`); the facts without a vector computed after the
//! answer, on a background thread of this process (at most one per owner,
//! on at most 2 threads), and by the review (`Owner::embed_missing`).

use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};

use crate::error::Result;
use crate::model::Scope;
use crate::recall::embed::Model;
use crate::store::files::embeddings::{self, Cached};
use crate::store::files::{learnings, stores};
use crate::store::limits::STORE_BYTES;
use crate::store::owner::{At, Owner};

/// Threads a batch of fact embeddings may use.
const EMBED_THREADS: usize = 2;
/// The share of a recall's time limit the query's vector may take.
const QUERY_SHARE: f64 = 0.75;

/// How long computing an owner's missing vectors may take at most.
const EMBED_DEADLINE: Duration = Duration::from_secs(120);

/// What a semantic recall scores with: the model, the query's vector, the
/// owner's cached vectors.
pub(super) struct Prepared {
    /// When the scoring must be done: the time limit, counted from when
    /// the model was loaded.
    pub(super) deadline: Instant,
    pub(super) model: Arc<Model>,
    /// The model's folder, which the answer names.
    pub(super) path: std::path::PathBuf,
    pub(super) query: Vec<f32>,
    pub(super) cached: Cached,
}

/// Why semantic scoring could not be prepared, and the model when it
/// loaded (only the query's vector failed or came late): the facts'
/// missing vectors are then still computed after the answer.
pub(super) struct Unprepared {
    pub(super) why: String,
    pub(super) model: Option<Arc<Model>>,
}

/// The model, the query's vector (within `timeout` of loading the model)
/// and the cached vectors;
/// `Ok(None)` when no model is configured; `Err` when the model or
/// the query's vector failed (recall then scores lexically and says so).
pub(super) fn prepare(
    owner: &Owner,
    at: At<'_>,
    query: Option<&str>,
    timeout: Duration,
) -> std::result::Result<Option<Prepared>, Unprepared> {
    let Some(query) = query.filter(|q| !q.trim().is_empty()) else {
        return Ok(None);
    };
    let path = match owner.store().recall_model_or_why() {
        Ok(Some(path)) => path,
        Ok(None) => return Ok(None),
        Err(why) => return Err(Unprepared { why, model: None }),
    };
    let model =
        embeddings::model(owner.store(), &path).map_err(|why| Unprepared { why, model: None })?;
    let start = Instant::now();
    let deadline = start + timeout;
    // The query's vector is late past three quarters of the time limit: the
    // fusion then still has a quarter (lexical scoring takes about a
    // millisecond), and a late model falls back to lexical scoring with the
    // time afresh rather than leaving the fusion none.
    let late = start + timeout.mul_f64(QUERY_SHARE);
    let query = model
        .embed(&[query], EMBED_THREADS, Some(late))
        .map_err(|e| format!("embedding the query: {e}"))
        .and_then(|v| {
            v.into_iter()
                .next()
                .ok_or_else(|| "embedding the query gave no vector".to_owned())
        })
        .map_err(|why| Unprepared {
            why,
            model: Some(model.clone()),
        })?;
    let cached = embeddings::load_cached(at, &model);
    Ok(Some(Prepared {
        deadline,
        model,
        path,
        query,
        cached,
    }))
}

/// Owners whose missing vectors a thread of this process is computing.
static IN_FLIGHT: Mutex<Option<HashSet<PathBuf>>> = Mutex::new(None);
/// Held while a batch of facts is embedded: one batch at a time in this
/// process (on at most [`EMBED_THREADS`] threads), whatever the owners.
static BATCH: Mutex<()> = Mutex::new(());
/// The background threads started, for [`settle`].
static STARTED: Mutex<Vec<JoinHandle<()>>> = Mutex::new(Vec::new());

/// Computes the vectors of `texts` the cache lacks, after the answer: on a
/// background thread (none when one already works for this owner), which
/// writes them to the cache. `texts` are all the texts recall scores now
/// (the cache keeps only theirs).
pub(super) fn embed_later(owner: &Owner, prepared: &Prepared, texts: Vec<String>) {
    if texts.iter().all(|t| prepared.cached.has(t)) {
        return;
    }
    embed_in_background(owner, &prepared.model, texts);
}

/// Computes the vectors of `texts` the owner's cache lacks on a
/// background thread (none when one already works for this owner).
pub(super) fn embed_in_background(owner: &Owner, model: &Arc<Model>, texts: Vec<String>) {
    let dir = owner.dir();
    {
        let mut flying = IN_FLIGHT.lock().unwrap_or_else(PoisonError::into_inner);
        if !flying.get_or_insert_with(HashSet::new).insert(dir.clone()) {
            return;
        }
    }
    let done = dir.clone();
    let owner = owner.clone();
    let model = model.clone();
    let spawned = std::thread::Builder::new()
        .name("memdir-embed-later".into())
        .spawn(move || {
            let _ = embed_into_cache(&owner, &model, &texts);
            let mut flying = IN_FLIGHT.lock().unwrap_or_else(PoisonError::into_inner);
            if let Some(set) = flying.as_mut() {
                set.remove(&done);
            }
        });
    match spawned {
        Ok(handle) => {
            let mut started = STARTED.lock().unwrap_or_else(PoisonError::into_inner);
            started.retain(|h| !h.is_finished());
            started.push(handle);
        }
        Err(_) => {
            let mut flying = IN_FLIGHT.lock().unwrap_or_else(PoisonError::into_inner);
            if let Some(set) = flying.as_mut() {
                set.remove(&dir);
            }
        }
    }
}

/// Waits for the vectors computed after recalls in this process to be
/// written (a command line process calls it after printing its answer).
pub(crate) fn settle() {
    let handles: Vec<JoinHandle<()>> = {
        let mut started = STARTED.lock().unwrap_or_else(PoisonError::into_inner);
        std::mem::take(&mut *started)
    };
    for h in handles {
        let _ = h.join();
    }
}

/// Computes the vectors the owner's cache lacks for `texts` and writes the
/// cache (keeping `texts`' vectors only). How many were computed.
fn embed_into_cache(
    owner: &Owner,
    model: &Model,
    texts: &[String],
) -> std::result::Result<usize, String> {
    let view = owner.view().map_err(|e| e.to_string())?;
    let mut cached = embeddings::load_cached(view.at(), model);
    let missing: Vec<String> = texts.iter().filter(|t| !cached.has(t)).cloned().collect();
    if missing.is_empty() {
        return Ok(0);
    }
    let refs: Vec<&str> = missing.iter().map(String::as_str).collect();
    let _one_batch = BATCH.lock().unwrap_or_else(PoisonError::into_inner);
    let vectors = model
        .embed(&refs, EMBED_THREADS, Some(Instant::now() + EMBED_DEADLINE))
        .map_err(|e| format!("embedding facts: {e}"))?;
    cached.extend(&missing, vectors);
    embeddings::store_cached(owner, model, &cached, texts);
    Ok(missing.len())
}

/// The texts a recall of the owner scores now: its live, unexpired facts
/// and the root's approved learnings.
fn scored_texts(owner: &Owner, at: At<'_>, now: DateTime<Utc>) -> Result<Vec<String>> {
    let mut texts = Vec::new();
    for scope in Scope::ALL {
        let l = stores::load(at, scope, true, STORE_BYTES)?;
        let (entries, _) = stores::live_entries(&l, now);
        texts.extend(entries.into_iter().map(|e| e.text.clone()));
    }
    let store = owner.store();
    if let Some(root) = store.disk().open_root(store.root())? {
        texts.extend(
            learnings::approved(store.disk(), &root)?
                .into_iter()
                .map(|a| a.text),
        );
    }
    Ok(texts)
}

/// Computes now the vectors the owner's cache lacks (what the review does):
/// how many (0 without a model), or why it could not.
pub(crate) fn embed_missing(owner: &Owner) -> std::result::Result<usize, String> {
    let Some(path) = owner.store().recall_model() else {
        return Ok(0);
    };
    let model = embeddings::model(owner.store(), &path)?;
    let texts = {
        let view = owner.view().map_err(|e| e.to_string())?;
        scored_texts(owner, view.at(), Utc::now()).map_err(|e| e.to_string())?
    };
    embed_into_cache(owner, &model, &texts)
}

#[cfg(test)]
mod tests {
    use std::path::Path;
    use std::time::Duration;

    use crate::model::Scope;
    use crate::recall::RecallOptions;
    use crate::recall::embed::testmodel;
    use crate::store::{Owner, Store};

    fn owner_with_model(d: &Path) -> Owner {
        testmodel::write_folder(&d.join("model"));
        let s = Store::open(d.join("root"))
            .unwrap()
            .with_config_dir(d.join("config"))
            .with_recall_model(d.join("model"));
        s.init().unwrap();
        s.owner("agt").unwrap()
    }

    fn cache(d: &Path) -> std::path::PathBuf {
        d.join("root/agt/.memdir/embeddings.json")
    }

    #[test]
    fn vectors_are_computed_after_the_answer_cached_and_used() {
        let d = tempfile::tempdir().unwrap();
        let o = owner_with_model(d.path());
        let a = o
            .add(Scope::Memory, "the staging server needs the vpn")
            .unwrap()
            .outcome
            .id;
        o.add(Scope::User, "i like tea and coffee").unwrap();
        let q = RecallOptions::query("the staging deploy needs vpn");
        let cold = o.recall(&q).unwrap();
        assert!(
            cold.fallback
                .as_deref()
                .unwrap()
                .contains("no embedding yet"),
            "{cold:?}"
        );
        assert!(cold.lexical.contains(&a), "{cold:?}");
        Store::settle();
        let file = std::fs::read_to_string(cache(d.path())).unwrap();
        assert_eq!(
            serde_json::from_str::<serde_json::Value>(&file).unwrap()["vectors"]
                .as_object()
                .unwrap()
                .len(),
            2
        );
        let warm = o.recall(&q).unwrap();
        assert!(
            warm.fallback.is_none() && warm.lexical.is_empty(),
            "{warm:?}"
        );
        assert!(warm.facts.iter().all(|f| f.score.is_some()));
        // A changed text has no vector until the next recall computes it.
        o.write(crate::edit::Op::Replace {
            old: a.clone(),
            new: "the staging server needs the vpn and my tea".into(),
            scope: Some(Scope::Memory),
        })
        .unwrap();
        let changed = o.recall(&q).unwrap();
        assert_eq!(changed.lexical.len(), 1, "{changed:?}");
        Store::settle();
        assert!(o.recall(&q).unwrap().lexical.is_empty());
        // The review computes none: all are there.
        assert_eq!(o.embed_missing().unwrap(), 0);
    }

    #[test]
    fn a_forged_or_altered_vector_is_never_believed() {
        let d = tempfile::tempdir().unwrap();
        let o = owner_with_model(d.path());
        o.add(Scope::Memory, "the cat sat on the mat").unwrap();
        o.add(Scope::Memory, "the dog ran in the park").unwrap();
        let q = RecallOptions::query("a cat on a mat");
        o.recall(&q).unwrap();
        Store::settle();
        let path = cache(d.path());
        let text = std::fs::read_to_string(&path).unwrap();
        let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
        // Swap the two vectors, keeping each tag: neither verifies.
        let map = v["vectors"].as_object_mut().unwrap();
        let keys: Vec<String> = map.keys().cloned().collect();
        let (x, y) = (map[&keys[0]].clone(), map[&keys[1]].clone());
        let vec_of =
            |e: &serde_json::Value| e.as_str().unwrap().split('.').next().unwrap().to_owned();
        let tag_of =
            |e: &serde_json::Value| e.as_str().unwrap().split('.').nth(1).unwrap().to_owned();
        map.insert(
            keys[0].clone(),
            format!("{}.{}", vec_of(&y), tag_of(&x)).into(),
        );
        map.insert(
            keys[1].clone(),
            format!("{}.{}", vec_of(&x), tag_of(&y)).into(),
        );
        std::fs::write(&path, serde_json::to_vec(&v).unwrap()).unwrap();
        let r = o.recall(&q).unwrap();
        assert_eq!(r.lexical.len(), r.facts.len(), "{r:?}");
        assert!(r.fallback.unwrap().contains("2 of 2 facts"));
        // Recomputed after that answer, and believed again.
        Store::settle();
        assert!(o.recall(&q).unwrap().lexical.is_empty());
    }

    #[test]
    fn a_late_query_vector_still_has_the_facts_embedded_after_the_answer() {
        let d = tempfile::tempdir().unwrap();
        let o = owner_with_model(d.path());
        o.add(Scope::Memory, "the staging server needs the vpn")
            .unwrap();
        // No time at all: the query's vector is late, so is everything else.
        let late = o
            .recall(&RecallOptions::query("staging vpn").timeout(Duration::ZERO))
            .unwrap();
        assert!(late.fallback.is_some(), "{late:?}");
        Store::settle();
        // The model had loaded: the fact's vector was computed anyway.
        let r = o.recall(&RecallOptions::query("staging vpn")).unwrap();
        assert!(r.fallback.is_none() && r.lexical.is_empty(), "{r:?}");
        assert_eq!(o.embed_missing().unwrap(), 0);
    }

    #[test]
    fn a_broken_model_falls_back_to_lexical_scoring_and_says_so() {
        let d = tempfile::tempdir().unwrap();
        let o = owner_with_model(d.path());
        let weights = d.path().join("model/model.safetensors");
        let bytes = std::fs::read(&weights).unwrap();
        // A fresh path: the first model of this process stays loaded.
        let broken = d.path().join("broken");
        testmodel::write_folder(&broken);
        std::fs::write(broken.join("model.safetensors"), &bytes[..bytes.len() / 2]).unwrap();
        let o = o
            .store()
            .clone()
            .with_recall_model(&broken)
            .owner("agt")
            .unwrap();
        o.add(Scope::Memory, "the staging server needs the vpn")
            .unwrap();
        let r = o.recall(&RecallOptions::query("staging vpn")).unwrap();
        let why = r.fallback.unwrap();
        assert!(
            why.starts_with("semantic scoring failed") && why.contains("model.safetensors"),
            "{why}"
        );
        assert_eq!(r.facts.len(), 1, "scored lexically, and kept");
        assert!(r.facts[0].score.is_some());
        assert_eq!(r.lexical, vec![r.facts[0].id.clone()]);
        assert!(o.embed_missing().is_err());
        // No model configured: lexical recall as before, no fallback.
        let plain = Store::open(d.path().join("root"))
            .unwrap()
            .with_config_dir(d.path().join("config"))
            .owner("agt")
            .unwrap();
        let r = plain.recall(&RecallOptions::query("staging vpn")).unwrap();
        assert!(r.fallback.is_none() && r.lexical.is_empty(), "{r:?}");
    }
}
