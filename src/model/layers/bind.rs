//! Layers to manifest weights, by name, checked against the shapes their configs imply.
//!
//! Keras names a weight `<layer>/<leaf>` or, for a wrapped cell, `<layer>/<cell>/<leaf>`
//! (`lstm/lstm_cell/kernel`, `bidirectional/forward_lstm/lstm_cell/kernel`; a `TimeDistributed`
//! layer's weights go under the wrapper's name). The manifest order is not the layer order
//! (trainable weights come first), so weights are claimed by name; each exactly once.

use crate::status::{invalid_argument, Result};

pub struct Binder<'a> {
    names: Vec<&'a str>,
    shapes: Vec<&'a [usize]>,
    claimed: Vec<bool>,
}

/// A dimension a layer's config fixes (`Some`), or one that depends on its input (`None`).
pub type Dim = Option<usize>;

impl<'a> Binder<'a> {
    pub fn new(weights: impl Iterator<Item = (&'a str, &'a [usize])>) -> Binder<'a> {
        let (names, shapes): (Vec<_>, Vec<_>) = weights.unzip();
        let claimed = vec![false; names.len()];
        Binder {
            names,
            shapes,
            claimed,
        }
    }

    /// Claims the weight `leaf` of the layer named `prefix` (inside a sub-layer whose name starts
    /// with `sub`, if given) and checks its shape against `want`; returns its manifest position.
    pub fn take(
        &mut self,
        prefix: &str,
        sub: Option<&str>,
        leaf: &str,
        want: &[Dim],
    ) -> Result<usize> {
        let found = self.find(prefix, sub, leaf);
        let Some(i) = found else {
            if self
                .names
                .iter()
                .any(|n| n.starts_with("layers/") && n.contains("/vars/"))
            {
                return Err(crate::status::unimplemented(
                    "weights named by Keras 3 object path ('layers/<name>/vars/<i>', from \
                     --input_format keras_keras) are not supported yet; convert a Keras 2 \
                     (tf_keras) model",
                ));
            }
            return Err(invalid_argument(format!(
                "layer '{prefix}' needs weight '{leaf}', which the weights manifest does not have"
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

    /// The first unclaimed weight that `take` would claim.
    fn find(&self, prefix: &str, sub: Option<&str>, leaf: &str) -> Option<usize> {
        let matches = |name: &str| -> bool {
            let Some(rest) = name.strip_prefix(prefix).and_then(|r| r.strip_prefix('/')) else {
                return false;
            };
            if let Some(sub) = sub {
                if !rest.starts_with(sub) {
                    return false;
                }
            }
            rest == leaf || rest.ends_with(&format!("/{leaf}"))
        };
        (0..self.names.len())
            .find(|&i| !self.claimed[i] && matches(self.names[i]))
            // Keras 2 preprocessing layers (Normalization) name their weights without a prefix.
            .or_else(|| {
                sub.is_none()
                    .then(|| {
                        (0..self.names.len()).find(|&i| !self.claimed[i] && self.names[i] == leaf)
                    })
                    .flatten()
            })
    }

    /// `take` for a weight whose shape depends on the input (checked when it is used).
    pub fn take_any(&mut self, prefix: &str, leaf: &str) -> Result<usize> {
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
