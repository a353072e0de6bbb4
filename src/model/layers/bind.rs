//! Layers to manifest weights, by name, checked against the shapes their configs imply.
//!
//! Three naming schemes, told apart by the manifest:
//! - Keras 2 (tf_keras) names a weight `<layer>/<leaf>` or, for a wrapped cell,
//!   `<layer>/<cell>/<leaf>` (`lstm/lstm_cell/kernel`, `bidirectional/forward_lstm/lstm_cell/kernel`;
//!   a `TimeDistributed` layer's weights go under the wrapper's name).
//! - Keras 3 saved to HDF5 names it by variable path: the same, behind the names of the models it
//!   was built in (`sequential/dense/kernel`, `outer/inner_seq/dense/kernel`); the longest match of
//!   the model path wins, so a nested model's `dense` is not the outer model's.
//! - Keras 3 `.keras` files (`--input_format keras_keras`) name it by object path:
//!   `layers/<snake_case class>[_n]/[<sub-object>/]vars/<i>`, the i-th variable the layer created.
//!   Layers ask for their weights in Keras's creation order, so the leaf is not needed there.
//!
//! The manifest order is not the layer order (trainable weights come first), so weights are
//! claimed by name; each exactly once.

use crate::status::{invalid_argument, Result};

/// One model being read: its name and its layers' object-path base, with how many layers of
/// each snake-cased class it has so far (Keras 3 numbers them `dense`, `dense_1`, ...).
struct Frame {
    name: String,
    obj_base: String,
    counts: Vec<(String, usize)>,
}

pub struct Binder<'a> {
    names: Vec<&'a str>,
    shapes: Vec<&'a [usize]>,
    claimed: Vec<bool>,
    /// Keras 3 object-path names (`layers/.../vars/<i>`).
    object_paths: bool,
    frames: Vec<Frame>,
    /// The object path of the layer being read.
    obj: String,
}

/// A dimension a layer's config fixes (`Some`), or one that depends on its input (`None`).
pub type Dim = Option<usize>;

/// A weight: its position in the manifest (and in the model's variable handles); what `take`
/// claims.
pub type W = usize;

/// Keras 3's `to_snake_case` of a class name: `_` before an upper-case letter that follows a
/// lower-case one or starts a capitalized word (`PReLU` -> `p_re_lu`, `Conv2DTranspose` ->
/// `conv2d_transpose`, `SimpleRNN` -> `simple_rnn`).
pub fn snake_case(class: &str) -> String {
    let c: Vec<char> = class
        .chars()
        .filter(|c| c.is_alphanumeric() || *c == '_')
        .collect();
    let mut out = String::with_capacity(c.len() + 4);
    for (i, &ch) in c.iter().enumerate() {
        let lower = |j: usize| c.get(j).is_some_and(|c| c.is_ascii_lowercase());
        if i > 0 && ch.is_ascii_uppercase() && (lower(i - 1) || lower(i + 1)) {
            out.push('_');
        }
        out.push(ch.to_ascii_lowercase());
    }
    out
}

impl<'a> Binder<'a> {
    pub fn new(weights: impl Iterator<Item = (&'a str, &'a [usize])>) -> Binder<'a> {
        let (names, shapes): (Vec<_>, Vec<_>) = weights.unzip();
        let claimed = vec![false; names.len()];
        let object_paths = names
            .iter()
            .any(|n| n.starts_with("layers/") && n.contains("/vars/"));
        Binder {
            names,
            shapes,
            claimed,
            object_paths,
            frames: Vec::new(),
            obj: String::new(),
        }
    }

    /// Starts reading model `name` (nested in the layer being read, if any).
    pub fn enter_model(&mut self, name: &str) {
        let obj_base = if self.frames.is_empty() {
            String::new()
        } else {
            format!("{}/", self.obj)
        };
        self.frames.push(Frame {
            name: name.to_string(),
            obj_base,
            counts: Vec::new(),
        });
    }

    pub fn exit_model(&mut self) {
        self.frames.pop();
    }

    /// Starts reading the next layer of the current model, of class `class`.
    pub fn enter_layer(&mut self, class: &str) {
        let Some(f) = self.frames.last_mut() else {
            return;
        };
        let snake = snake_case(class);
        let n = match f.counts.iter_mut().find(|(c, _)| *c == snake) {
            Some((_, n)) => {
                *n += 1;
                *n
            }
            None => {
                f.counts.push((snake.clone(), 0));
                0
            }
        };
        self.obj = if n == 0 {
            format!("{}layers/{snake}", f.obj_base)
        } else {
            format!("{}layers/{snake}_{n}", f.obj_base)
        };
    }

    /// Claims the weight `leaf` of the layer named `prefix` (inside a sub-layer whose name starts
    /// with `sub`, if given) and checks its shape against `want`; returns its manifest position.
    pub fn take(&mut self, prefix: &str, sub: Option<&str>, leaf: &str, want: &[Dim]) -> Result<W> {
        let found = self.find(prefix, sub, leaf);
        let Some(i) = found else {
            let at = if self.object_paths { &self.obj } else { prefix };
            return Err(invalid_argument(format!(
                "layer '{prefix}' needs weight '{leaf}', which the weights manifest does not have \
                 (under '{at}')"
            )));
        };
        let got = self.shapes[i];
        let ok =
            got.len() == want.len() && got.iter().zip(want).all(|(&g, w)| w.is_none_or(|w| w == g));
        if !ok {
            let want: Vec<String> = want
                .iter()
                .map(|d| d.map_or("?".to_string(), |d| d.to_string()))
                .collect();
            return Err(invalid_argument(format!(
                "weight '{}' of layer '{prefix}' has shape {got:?}; the layer's config needs [{}]",
                self.names[i],
                want.join(", ")
            )));
        }
        self.claimed[i] = true;
        Ok(i)
    }

    /// The unclaimed weight that `take` would claim.
    fn find(&self, prefix: &str, sub: Option<&str>, leaf: &str) -> Option<usize> {
        let free = (0..self.names.len()).filter(|&i| !self.claimed[i]);
        if self.object_paths {
            // `<obj>/[<sub-object>/]vars/<i>`, lowest (sub-object, i) first; a Bidirectional's
            // directions are its `forward_layer` and `backward_layer`.
            let side = sub.map(|s| {
                if s.starts_with("backward_") {
                    "backward_layer/"
                } else {
                    "forward_layer/"
                }
            });
            return free
                .filter_map(|i| {
                    let rest = self.names[i]
                        .strip_prefix(self.obj.as_str())?
                        .strip_prefix('/')?;
                    let (mid, idx) = rest.rsplit_once("vars/")?;
                    if !(mid.is_empty() || mid.ends_with('/'))
                        || !side.is_none_or(|s| mid.starts_with(s))
                    {
                        return None;
                    }
                    Some(((mid, idx.parse::<u32>().ok()?), i))
                })
                .min()
                .map(|(_, i)| i);
        }
        // `[<models>/]<prefix>/[<sub>...]<leaf>`: the candidate behind the longest tail of the
        // model path wins.
        let matches = |name: &str| -> Option<usize> {
            let mut scopes = self.frames.iter().map(|f| f.name.as_str()).rev();
            let mut head = name.strip_suffix(leaf)?;
            if !head.ends_with('/') {
                return None;
            }
            // Find `prefix/` in `head`, at a segment start, then check what precedes it.
            let at = head.match_indices(prefix).map(|(i, _)| i).find(|&i| {
                (i == 0 || head.as_bytes()[i - 1] == b'/')
                    && head[i + prefix.len()..].starts_with('/')
                    && sub.is_none_or(|s| head[i + prefix.len() + 1..].starts_with(s))
            })?;
            head = &head[..at];
            let mut depth = 1;
            while let Some(h) = head.strip_suffix('/') {
                let (before, last) = h.rsplit_once('/').unwrap_or(("", h));
                if scopes.next() != Some(last) {
                    return None;
                }
                depth += 1;
                head = if before.is_empty() {
                    ""
                } else {
                    &h[..before.len() + 1]
                };
            }
            Some(depth)
        };
        free.clone()
            .filter_map(|i| matches(self.names[i]).map(|d| (d, i)))
            .max_by_key(|&(d, i)| (d, std::cmp::Reverse(i)))
            .map(|(_, i)| i)
            // Keras 2 preprocessing layers (Normalization) name their weights without a prefix.
            .or_else(|| {
                sub.is_none()
                    .then(|| free.clone().find(|&i| self.names[i] == leaf))
                    .flatten()
            })
    }

    /// `take` for a weight whose shape depends on the input (checked when it is used).
    pub fn take_any(&mut self, prefix: &str, leaf: &str) -> Result<W> {
        let want = self
            .find(prefix, None, leaf)
            .map(|i| vec![None; self.shapes[i].len()]);
        self.take(prefix, None, leaf, want.as_deref().unwrap_or(&[]))
    }

    pub fn shape(&self, i: usize) -> &'a [usize] {
        self.shapes[i]
    }

    /// Every weight must belong to a layer: a left-over one means the config and weights disagree.
    pub fn check_all_claimed(&self) -> Result<()> {
        match self.claimed.iter().position(|c| !c) {
            None => Ok(()),
            Some(i) => Err(invalid_argument(format!(
                "weight '{}' in the manifest belongs to no layer of the model",
                self.names[i]
            ))),
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn snake_case_matches_keras_3() {
        // Values from keras.src.utils.naming.to_snake_case (Keras 3.15).
        for (class, want) in [
            ("PReLU", "p_re_lu"),
            ("LeakyReLU", "leaky_re_lu"),
            ("Conv2DTranspose", "conv2d_transpose"),
            ("SimpleRNN", "simple_rnn"),
            ("GRU", "gru"),
            ("BatchNormalization", "batch_normalization"),
            ("GlobalAveragePooling3D", "global_average_pooling3d"),
            ("Dense", "dense"),
        ] {
            assert_eq!(super::snake_case(class), want, "{class}");
        }
    }
}
