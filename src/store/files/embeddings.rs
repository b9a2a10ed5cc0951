//! Semantic recall's files: the recall model's folder (read once per
//! process, shared by every owner and every `Store` value that names the
//! same path), and each owner's cached fact embeddings under
//! `.memdir/embeddings.json`, a derived file (delete it at any time).
//!
//! The cache maps the SHA-256 of a fact's scored text to its vector, for
//! one model (its fingerprint: the engine's version and the model's bytes).
//! Every vector carries an HMAC-SHA256 under the machine's scan key (kept
//! outside every memory folder) over the model, the text's hash and the
//! vector: whoever can write the memory folder can write this file, but
//! cannot make a vector memdir believes (a forged one could pin a fact into
//! every recall). A vector that does not verify, of another model or of
//! another size is dropped and computed again. Without a key nothing is
//! cached, and recall scores lexically. Vectors are used for ranking only.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use base64::Engine;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::recall::embed::{Model, ModelFiles};
use crate::recall::fuse::Vectors;
use crate::store::limits::{EMBEDDINGS_BYTES, MODEL_FILE_BYTES, MODEL_WEIGHTS_BYTES};
use crate::store::owner::{At, Owner};
use crate::store::root::{DERIVED_DIR, ScanKey, Store};

/// The cache file's name in `.memdir/`.
pub(crate) const EMBEDDINGS_FILE: &str = "embeddings.json";
/// The cache file's format version.
const CACHE_VERSION: u32 = 1;

/// A model loaded (or refused, with why) once per process and path.
type Slot = Arc<OnceLock<Result<Arc<Model>, String>>>;

/// The models this process loaded, by the path named.
static MODELS: OnceLock<Mutex<HashMap<PathBuf, Slot>>> = OnceLock::new();

/// The model of the folder `path`: loaded on first use in this process
/// (every later call, from any thread or `Store`, shares it), or why it
/// could not be (also remembered: a restart tries again).
pub(crate) fn model(store: &Store, path: &Path) -> Result<Arc<Model>, String> {
    let slot = {
        let map = MODELS.get_or_init(Mutex::default);
        let mut map = map.lock().unwrap_or_else(PoisonError::into_inner);
        map.entry(path.to_owned()).or_default().clone()
    };
    slot.get_or_init(|| load(store, path).map(Arc::new)).clone()
}

/// Reads a sentence-transformers folder through the disk layer, each file
/// bounded, and loads it.
fn load(store: &Store, path: &Path) -> Result<Model, String> {
    let disk = store.disk();
    let shown = path.display();
    let failed = |e: &dyn std::fmt::Display| format!("the recall model {shown}: {e}");
    let dir = disk
        .open_root(path)
        .map_err(|e| failed(&e))?
        .ok_or_else(|| failed(&"no such folder"))?;
    let read = |dir: &crate::disk::Dir, name: &str, limit: u64| {
        disk.read_bytes(dir, name, limit).map_err(|e| failed(&e))
    };
    let need = |name: &str, limit: u64| {
        read(&dir, name, limit)?.ok_or_else(|| failed(&format_args!("no {name}")))
    };
    let config = need("config.json", MODEL_FILE_BYTES)?;
    let weights = need("model.safetensors", MODEL_WEIGHTS_BYTES)?;
    let tokenizer = need("tokenizer.json", MODEL_FILE_BYTES)?;
    let pooling = match disk.open_dir(&dir, "1_Pooling").map_err(|e| failed(&e))? {
        Some(p) => read(&p, "config.json", MODEL_FILE_BYTES)?,
        None => None,
    };
    Model::load(ModelFiles {
        config: &config,
        weights: &weights,
        tokenizer: &tokenizer,
        pooling: pooling.as_deref(),
    })
    .map_err(|e| failed(&e))
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct CacheFile {
    v: u32,
    /// The model's fingerprint.
    model: String,
    /// The SHA-256 of a text, in hex → its vector (little-endian f32, in
    /// base64) and its tag, as `VECTOR.TAG`.
    vectors: BTreeMap<String, String>,
}

/// The SHA-256 of a scored text.
pub(crate) fn text_hash(text: &str) -> [u8; 32] {
    Sha256::digest(text.as_bytes()).into()
}

fn tag(key: &ScanKey, model: &str, hash: &[u8; 32], bytes: &[u8]) -> String {
    key.mac(&[b"embedding", model.as_bytes(), hash, bytes])
}

/// An owner's cached vectors that verified, by text hash.
#[derive(Debug, Default)]
pub(crate) struct Cached {
    vectors: HashMap<[u8; 32], Vec<f32>>,
}

impl Cached {
    /// Whether `text` has a vector.
    pub(crate) fn has(&self, text: &str) -> bool {
        self.vectors.contains_key(&text_hash(text))
    }

    /// Adds the vectors computed for `texts`.
    pub(crate) fn extend(&mut self, texts: &[String], vectors: Vec<Vec<f32>>) {
        for (t, v) in texts.iter().zip(vectors) {
            self.vectors.insert(text_hash(t), v);
        }
    }
}

impl Vectors for Cached {
    fn vector(&self, text: &str) -> Option<&[f32]> {
        self.vectors.get(&text_hash(text)).map(Vec::as_slice)
    }
}

/// The owner's cached vectors of `model` that verify under the machine's
/// key (none without a key, a folder or a readable cache).
pub(crate) fn load_cached(at: At<'_>, model: &Model) -> Cached {
    let Some(key) = at.owner.store().scan_key() else {
        return Cached::default();
    };
    let disk = at.disk();
    let Some(file) = at
        .dir
        .and_then(|dir| disk.open_dir(dir, DERIVED_DIR).ok().flatten())
        .and_then(|d| {
            disk.read_bytes(&d, EMBEDDINGS_FILE, EMBEDDINGS_BYTES)
                .ok()
                .flatten()
        })
        .and_then(|b| serde_json::from_slice::<CacheFile>(&b).ok())
        .filter(|c| c.v == CACHE_VERSION && c.model == model.fingerprint())
    else {
        return Cached::default();
    };
    let b64 = base64::engine::general_purpose::STANDARD_NO_PAD;
    let dim = model.dim();
    let mut vectors = HashMap::with_capacity(file.vectors.len());
    for (hash, entry) in &file.vectors {
        let mut h = [0u8; 32];
        let Some((vector, stated)) = entry.split_once('.') else {
            continue;
        };
        if hex::decode_to_slice(hash, &mut h).is_err() {
            continue;
        }
        let Ok(bytes) = b64.decode(vector) else {
            continue;
        };
        if bytes.len() != dim * 4 || tag(&key, &file.model, &h, &bytes) != stated {
            continue;
        }
        let v: Vec<f32> = bytes
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        if v.iter().all(|x| x.is_finite()) {
            vectors.insert(h, v);
        }
    }
    Cached { vectors }
}

/// Writes the vectors of `keep` (the texts recall scores now) back, each
/// tagged; the others are dropped. Best effort: the cache is derived, a
/// lost update only means computing a vector again. Nothing is written
/// without a key or an owner's folder.
pub(crate) fn store_cached(owner: &Owner, model: &Model, cached: &Cached, keep: &[String]) {
    let Some(key) = owner.store().scan_key() else {
        return;
    };
    let Ok(Some(folders)) = owner.existing_folders() else {
        return;
    };
    let b64 = base64::engine::general_purpose::STANDARD_NO_PAD;
    let fingerprint = model.fingerprint();
    let mut vectors = BTreeMap::new();
    for text in keep {
        let h = text_hash(text);
        let Some(v) = cached.vectors.get(&h) else {
            continue;
        };
        let bytes: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
        let t = tag(&key, fingerprint, &h, &bytes);
        vectors.insert(hex::encode(h), format!("{}.{t}", b64.encode(&bytes)));
    }
    let file = CacheFile {
        v: CACHE_VERSION,
        model: fingerprint.to_owned(),
        vectors,
    };
    if let Ok(bytes) = serde_json::to_vec(&file)
        && (bytes.len() as u64) <= EMBEDDINGS_BYTES
    {
        let _ = owner
            .disk()
            .write_atomic_volatile(&folders.derived, EMBEDDINGS_FILE, &bytes);
    }
}
