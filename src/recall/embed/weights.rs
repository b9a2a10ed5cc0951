//! `model.safetensors`: every tensor the encoder uses, checked for its name,
//! shape, dtype and finiteness, and converted to F32 matrices.

use ndarray::Array2;
use safetensors::{Dtype, SafeTensors};

use super::EmbedError;
use super::config::BertConfig;

/// A dense layer, `y = x · Wᵀ + b`.
pub(super) struct Linear {
    /// `W`, `[out, in]` row after row, as the file has it: each output's
    /// weights contiguous, the order [`super::dense`] reads them in.
    pub(super) weight: Vec<f32>,
    /// `[out]`.
    pub(super) bias: Vec<f32>,
    /// The width of `x`.
    pub(super) inputs: usize,
}

impl Linear {
    /// The number of outputs.
    pub(super) fn outputs(&self) -> usize {
        self.bias.len()
    }
}

/// A LayerNorm's gain and bias.
pub(super) struct Norm {
    pub(super) gain: Vec<f32>,
    pub(super) bias: Vec<f32>,
}

/// One encoder layer.
pub(super) struct Layer {
    /// Query, key and value side by side: `Wᵀ` is `[hidden, 3 · hidden]`,
    /// so one product gives all three.
    pub(super) qkv: Linear,
    pub(super) attention_out: Linear,
    pub(super) attention_norm: Norm,
    pub(super) intermediate: Linear,
    pub(super) output: Linear,
    pub(super) output_norm: Norm,
}

/// The encoder's weights.
pub(super) struct Weights {
    /// `[vocab, hidden]`.
    pub(super) words: Array2<f32>,
    /// `[max_positions, hidden]`.
    pub(super) positions: Array2<f32>,
    /// Token type 0's embedding, `[hidden]`.
    pub(super) token_type: Vec<f32>,
    pub(super) embedding_norm: Norm,
    pub(super) layers: Vec<Layer>,
}

struct Reader<'a> {
    tensors: SafeTensors<'a>,
    prefix: &'static str,
}

impl Reader<'_> {
    /// The tensor `name` as F32 values, checked to have `shape`.
    fn tensor(&self, name: &str, shape: &[usize]) -> Result<Vec<f32>, EmbedError> {
        let full = format!("{}{name}", self.prefix);
        let view = self
            .tensors
            .tensor(&full)
            .map_err(|_| EmbedError::MissingTensor(full.clone()))?;
        if view.shape() != shape {
            return Err(EmbedError::Shape {
                name: full,
                expected: shape.to_vec(),
                found: view.shape().to_vec(),
            });
        }
        let count: usize = shape.iter().product();
        let data = view.data();
        let values: Vec<f32> = match view.dtype() {
            Dtype::F32 => data
                .chunks_exact(4)
                .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                .collect(),
            Dtype::F16 => data
                .chunks_exact(2)
                .map(|b| f16_to_f32(u16::from_le_bytes([b[0], b[1]])))
                .collect(),
            Dtype::BF16 => data
                .chunks_exact(2)
                .map(|b| f32::from_bits(u32::from(u16::from_le_bytes([b[0], b[1]])) << 16))
                .collect(),
            other => {
                return Err(EmbedError::Dtype {
                    name: full,
                    dtype: format!("{other:?}"),
                });
            }
        };
        // safetensors checks that the data spans exactly shape × dtype bytes;
        // checked again so that nothing below can index past the values.
        if values.len() != count {
            return Err(EmbedError::Safetensors(format!(
                "tensor {full} holds {} values, its shape {shape:?} needs {count}",
                values.len()
            )));
        }
        if values.iter().any(|v| !v.is_finite()) {
            return Err(EmbedError::NonFinite(full));
        }
        Ok(values)
    }

    fn matrix(&self, name: &str, rows: usize, cols: usize) -> Result<Array2<f32>, EmbedError> {
        let values = self.tensor(name, &[rows, cols])?;
        Array2::from_shape_vec((rows, cols), values)
            .map_err(|e| EmbedError::Safetensors(format!("tensor {name}: {e}")))
    }

    fn linear(&self, name: &str, out: usize, inp: usize) -> Result<Linear, EmbedError> {
        Ok(Linear {
            weight: self.tensor(&format!("{name}.weight"), &[out, inp])?,
            bias: self.tensor(&format!("{name}.bias"), &[out])?,
            inputs: inp,
        })
    }

    fn norm(&self, name: &str, hidden: usize) -> Result<Norm, EmbedError> {
        Ok(Norm {
            gain: self.tensor(&format!("{name}.weight"), &[hidden])?,
            bias: self.tensor(&format!("{name}.bias"), &[hidden])?,
        })
    }
}

impl Weights {
    /// Reads and checks every tensor the encoder of `config` uses; tensors it
    /// does not use (the pooler, `position_ids`) are ignored. Names may carry
    /// a `bert.` prefix, as in checkpoints saved from a task model.
    pub(super) fn load(bytes: &[u8], config: &BertConfig) -> Result<Weights, EmbedError> {
        let tensors =
            SafeTensors::deserialize(bytes).map_err(|e| EmbedError::Safetensors(e.to_string()))?;
        let words = "embeddings.word_embeddings.weight";
        let prefix =
            if tensors.tensor(words).is_err() && tensors.tensor(&format!("bert.{words}")).is_ok() {
                "bert."
            } else {
                ""
            };
        let r = Reader { tensors, prefix };
        let h = config.hidden;
        let token_types = r.matrix(
            "embeddings.token_type_embeddings.weight",
            config.type_vocab,
            h,
        )?;
        let mut layers = Vec::with_capacity(config.layers);
        for l in 0..config.layers {
            let p = format!("encoder.layer.{l}.");
            let q = r.linear(&format!("{p}attention.self.query"), h, h)?;
            let k = r.linear(&format!("{p}attention.self.key"), h, h)?;
            let v = r.linear(&format!("{p}attention.self.value"), h, h)?;
            // Stacked along the output axis, [Wq; Wk; Wv]: the rows of one
            // after the other.
            let qkv = Linear {
                weight: [q.weight, k.weight, v.weight].concat(),
                bias: [q.bias, k.bias, v.bias].concat(),
                inputs: h,
            };
            layers.push(Layer {
                qkv,
                attention_out: r.linear(&format!("{p}attention.output.dense"), h, h)?,
                attention_norm: r.norm(&format!("{p}attention.output.LayerNorm"), h)?,
                intermediate: r.linear(
                    &format!("{p}intermediate.dense"),
                    config.intermediate,
                    h,
                )?,
                output: r.linear(&format!("{p}output.dense"), h, config.intermediate)?,
                output_norm: r.norm(&format!("{p}output.LayerNorm"), h)?,
            });
        }
        Ok(Weights {
            words: r.matrix(words, config.vocab, h)?,
            positions: r.matrix(
                "embeddings.position_embeddings.weight",
                config.max_positions,
                h,
            )?,
            token_type: token_types.row(0).to_vec(),
            embedding_norm: r.norm("embeddings.LayerNorm", h)?,
            layers,
        })
    }
}

/// An IEEE half-precision value, widened exactly.
pub(super) fn f16_to_f32(h: u16) -> f32 {
    let sign = u32::from(h >> 15) << 31;
    let exponent = u32::from((h >> 10) & 0x1f);
    let mantissa = u32::from(h & 0x3ff);
    match exponent {
        0 => {
            // Zero or subnormal: mantissa × 2⁻²⁴, exact in F32.
            let magnitude = mantissa as f32 * (1.0 / 16_777_216.0);
            if sign == 0 { magnitude } else { -magnitude }
        }
        0x1f => f32::from_bits(sign | 0x7f80_0000 | (mantissa << 13)),
        _ => f32::from_bits(sign | ((exponent + 112) << 23) | (mantissa << 13)),
    }
}
