//! `tokenizer.json`, through the `tokenizers` library: its normaliser,
//! pre-tokeniser, model and post-processor as the file says, but never its
//! padding, and truncated to the model's positions. Every id it gives is
//! checked against the model's vocabulary.

use tokenizers::{TruncationDirection, TruncationParams, TruncationStrategy};

use super::{EmbedError, MAX_TEXT_BYTES};

/// A tokenizer fitted to one model.
pub(super) struct Tokenizer {
    inner: tokenizers::Tokenizer,
    max_len: usize,
    vocab: usize,
}

impl Tokenizer {
    /// Parses `tokenizer.json`, drops its padding, truncates to `max_len`
    /// tokens (special tokens included) and checks that every id it knows,
    /// and those of a probe text, has one of the model's `vocab` embeddings.
    pub(super) fn load(
        bytes: &[u8],
        max_len: usize,
        vocab: usize,
    ) -> Result<Tokenizer, EmbedError> {
        let value = checked_json(bytes)?;
        let mut inner: tokenizers::Tokenizer =
            serde_json::from_value(value).map_err(|e| EmbedError::Tokenizer(e.to_string()))?;
        inner.with_padding(None);
        inner
            .with_truncation(Some(TruncationParams {
                max_length: max_len,
                strategy: TruncationStrategy::LongestFirst,
                stride: 0,
                direction: TruncationDirection::Right,
            }))
            .map_err(|e| EmbedError::Tokenizer(e.to_string()))?;
        if let Some(&id) = inner.get_vocab(true).values().max() {
            check_id(id, vocab)?;
        }
        let tokenizer = Tokenizer {
            inner,
            max_len,
            vocab,
        };
        // The post-processor's special tokens carry ids of their own, outside
        // the vocabulary: a probe shows them.
        tokenizer.encode("a")?;
        Ok(tokenizer)
    }

    /// The most tokens of a text.
    pub(super) fn max_len(&self) -> usize {
        self.max_len
    }

    /// The ids of `text` (its first [`MAX_TEXT_BYTES`]), special tokens
    /// included, at most [`Tokenizer::max_len`] of them, each in the
    /// vocabulary.
    pub(super) fn encode(&self, text: &str) -> Result<Vec<u32>, EmbedError> {
        let text = prefix(text, MAX_TEXT_BYTES);
        let encoding = self
            .inner
            .encode(text, true)
            .map_err(|e| EmbedError::Tokenize(e.to_string()))?;
        let mut ids = encoding.get_ids().to_vec();
        ids.truncate(self.max_len);
        for &id in &ids {
            check_id(id, self.vocab)?;
        }
        Ok(ids)
    }
}

/// The longest word WordPiece is asked to split (all-MiniLM-L6-v2: 100); a
/// longer word is one `[UNK]`. WordPiece's work on a word grows with the
/// square of this, so a file asking for more is refused.
const MAX_WORD_CHARS: u64 = 200;

/// `tokenizer.json` parsed as JSON, checked to use only the components of a
/// BERT tokenizer, and stripped of what the engine does not use (decoder)
/// or overrides (padding, truncation), before the `tokenizers` library
/// reads it: its deserialiser panics on some malformed files (a syntax error
/// inside the decoder), and this way it only ever sees well-formed JSON of
/// a known shape.
fn checked_json(bytes: &[u8]) -> Result<serde_json::Value, EmbedError> {
    use serde_json::Value;
    let bad = |what: String| EmbedError::Tokenizer(what);
    let mut value: Value = serde_json::from_slice(bytes).map_err(|e| bad(e.to_string()))?;
    let object = value
        .as_object_mut()
        .ok_or_else(|| bad("not a JSON object".into()))?;
    let kind = |v: Option<&Value>| -> Option<String> {
        match v {
            None | Some(Value::Null) => None,
            Some(v) => Some(
                v.get("type")
                    .and_then(Value::as_str)
                    .unwrap_or("?")
                    .to_string(),
            ),
        }
    };
    let model = object.get("model").ok_or_else(|| bad("no model".into()))?;
    if kind(Some(model)).as_deref() != Some("WordPiece") {
        return Err(bad("the model is not WordPiece".into()));
    }
    match model.get("max_input_chars_per_word") {
        None => {}
        Some(n) if n.as_u64().is_some_and(|n| n <= MAX_WORD_CHARS) => {}
        Some(n) => {
            return Err(bad(format!(
                "max_input_chars_per_word is {n}, more than {MAX_WORD_CHARS}"
            )));
        }
    }
    for (field, allowed) in [
        ("normalizer", &["BertNormalizer"][..]),
        (
            "pre_tokenizer",
            &["BertPreTokenizer", "Whitespace", "WhitespaceSplit"][..],
        ),
        (
            "post_processor",
            &["TemplateProcessing", "BertProcessing"][..],
        ),
    ] {
        if let Some(kind) = kind(object.get(field))
            && !allowed.contains(&kind.as_str())
        {
            return Err(bad(format!("{field} {kind:?} is not supported")));
        }
    }
    if kind(object.get("post_processor")).as_deref() == Some("TemplateProcessing")
        && let Some(template) = object.get("post_processor")
    {
        check_template(template).map_err(|e| bad(format!("post_processor: {e}")))?;
    }
    for field in ["decoder", "truncation", "padding"] {
        object.insert(field.to_string(), Value::Null);
    }
    Ok(value)
}

/// A `TemplateProcessing` post-processor in its canonical form, checked as
/// `tokenizers` does not when it reads one (it then indexes by it): every
/// special token a template names is defined, with as many ids as tokens,
/// and the single template names no second sequence.
fn check_template(template: &serde_json::Value) -> Result<(), String> {
    use serde_json::Value;
    let specials = template
        .get("special_tokens")
        .and_then(Value::as_object)
        .ok_or("special_tokens is not an object")?;
    for (name, special) in specials {
        let count = |field: &str| special.get(field).and_then(Value::as_array).map(Vec::len);
        match (count("ids"), count("tokens")) {
            (Some(ids), Some(tokens)) if ids == tokens => {}
            _ => return Err(format!("special token {name:?} has not one id per token")),
        }
    }
    for (field, sequences) in [("single", &["A"][..]), ("pair", &["A", "B"][..])] {
        let pieces = template
            .get(field)
            .and_then(Value::as_array)
            .ok_or_else(|| format!("{field} is not a list"))?;
        for piece in pieces {
            let id = |p: &Value| p.get("id").and_then(Value::as_str).map(str::to_string);
            let parts = piece
                .as_object()
                .map(|o| (o.len(), o.get("Sequence"), o.get("SpecialToken")));
            let fits = match parts {
                Some((1, Some(p), None)) => {
                    id(p).is_some_and(|id| sequences.contains(&id.as_str()))
                }
                Some((1, None, Some(p))) => id(p).is_some_and(|id| specials.contains_key(&id)),
                _ => false,
            };
            if !fits {
                return Err(format!(
                    "{field} has a piece {piece} that is not a defined special token or sequence"
                ));
            }
        }
    }
    Ok(())
}

/// [`EmbedError::TokenOutOfVocab`] unless `id` has an embedding.
pub(super) fn check_id(id: u32, vocab: usize) -> Result<(), EmbedError> {
    if usize::try_from(id).map_or(true, |i| i >= vocab) {
        return Err(EmbedError::TokenOutOfVocab { id, vocab });
    }
    Ok(())
}

/// The longest prefix of `text` of at most `max` bytes that ends on a
/// character boundary.
pub(super) fn prefix(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text.get(..end).unwrap_or("")
}
