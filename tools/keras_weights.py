"""Seeded weights and inputs shared by the Keras fixture generators (gen_layers_models.py for
Keras 2 through tf_keras, gen_keras3_models.py for Keras 3)."""

import numpy as np

# Left as initialized: kernels and embeddings (their initializers are already seeded and
# non-trivial), and Normalization's mean/variance/count (Keras reads its adapted statistics from
# copies it made at adapt() time, so they must keep the adapted values).
_KEEP = ("kernel", "recurrent_kernel", "depthwise_kernel", "pointwise_kernel", "embeddings",
         "count", "mean", "variance")


def randomize(model, seed_, leaf_name, np_dtype):
    """Seeded values for every weight that starts trivial (zeros/ones): biases, BN statistics,
    gammas and betas, PReLU alphas. `leaf_name(w)` and `np_dtype(w)` give a weight's last name
    component and numpy dtype, which the two Keras versions spell differently."""
    rng = np.random.default_rng(seed_)
    for w in model.weights:
        leaf = leaf_name(w)
        if leaf in _KEEP:
            continue
        if leaf in ("moving_variance", "gamma"):
            v = rng.uniform(0.5, 1.5, w.shape)
        elif leaf == "alpha":
            v = rng.uniform(0.05, 0.5, w.shape)
        else:
            v = rng.normal(0, 0.3, w.shape)
        w.assign(v.astype(np_dtype(w)))
    return model


def normal(rng, shape, scale=1.0):
    return (rng.standard_normal(shape) * scale).astype(np.float32)
