//! One Keras layer's config read into a `Kind` at load: fields checked, weights bound by name with
//! the shapes the config implies (its forward pass is in `forward`).

use super::activation::Act;
use super::bind::{Binder, Dim, W};
use super::config::{class_and_config, Cfg};
use super::kind::{ConvGeom, Graph, Kind, MergeOp, Norm, Padding};
use super::rnn::{Merge as BiMerge, Rnn};
use crate::status::{unimplemented, Result};
use crate::tensor::Tensor;

/// Builds the nested graph of a model used as a layer (`graph::build` passes itself in, so this
/// module does not depend on how graphs are read).
pub type BuildModel<'b> = dyn Fn(&str, &super::json::Value, &mut Binder) -> Result<Graph> + 'b;

/// Reads layer `class` with config `config`; `prefix` is the name its weights live under.
pub fn build(
    class: &str,
    config: &super::json::Value,
    name: &str,
    prefix: &str,
    b: &mut Binder,
    build_model: &BuildModel,
) -> Result<Kind> {
    let c = Cfg::new(config, name)?;
    let df = c.str("data_format", "channels_last")?;
    if df != "channels_last" {
        return Err(unimplemented(format!(
            "layer '{name}' ({class}): data_format '{df}' is not supported (only channels_last)"
        )));
    }
    let act = |key: &str| -> Result<Act> {
        match c.get(key) {
            None => Ok(Act::Linear),
            Some(v) => {
                let n = v.as_str().or_else(|| {
                    // Keras 3 / TF.js may serialize an activation as {class_name, config}.
                    v.get("config")
                        .and_then(|c| c.get("name"))
                        .and_then(|n| n.as_str())
                });
                n.ok_or_else(|| {
                    c.err(format!(
                        "'{key}' must be an activation name, got {}",
                        super::config::kind(v)
                    ))
                })
                .and_then(|n| Act::parse(n).map_err(|e| e.context(format!("layer '{name}'"))))
            }
        }
    };
    let bias = |b: &mut Binder, n: Dim| -> Result<Option<W>> {
        if c.bool("use_bias", true)? {
            b.take(prefix, None, "bias", &[n]).map(Some)
        } else {
            Ok(None)
        }
    };
    Ok(match class {
        "InputLayer" => Kind::Input,
        "Dropout"
        | "SpatialDropout1D"
        | "SpatialDropout2D"
        | "SpatialDropout3D"
        | "GaussianNoise"
        | "GaussianDropout"
        | "AlphaDropout"
        | "ActivityRegularization" => Kind::Identity,
        "Dense" => {
            let units = c.count("units")?;
            Kind::Dense {
                kernel: b.take(prefix, None, "kernel", &[None, Some(units)])?,
                bias: bias(b, Some(units))?,
                act: act("activation")?,
            }
        }
        "Conv1D" | "Conv2D" | "Conv3D" => {
            let geom = conv_geom(&c, class, "kernel_size")?;
            if c.opt_int("groups")?.unwrap_or(1) != 1 {
                return Err(unimplemented(format!(
                    "layer '{name}' ({class}): groups > 1 is not supported"
                )));
            }
            let filters = c.count("filters")?;
            let mut want: Vec<Dim> = kernel_dims(&geom);
            want.extend([None, Some(filters)]);
            Kind::Conv {
                kernel: b.take(prefix, None, "kernel", &want)?,
                bias: bias(b, Some(filters))?,
                act: act("activation")?,
                geom,
            }
        }
        "Conv2DTranspose" => {
            let mut geom = conv_geom(&c, class, "kernel_size")?;
            if c.get("output_padding").is_some() {
                let p = c.ints("output_padding", 2, None)?;
                if (0..2).any(|i| p[i] < 0 || p[i] >= geom.strides[i + 1]) {
                    return Err(c.err(format!(
                        "output_padding {p:?} must be non-negative and less than the strides"
                    )));
                }
                geom.output_padding = Some([p[0], p[1]]);
            }
            let filters = c.count("filters")?;
            let mut want: Vec<Dim> = kernel_dims(&geom);
            want.extend([Some(filters), None]);
            Kind::ConvTranspose {
                kernel: b.take(prefix, None, "kernel", &want)?,
                bias: bias(b, Some(filters))?,
                act: act("activation")?,
                geom,
                filters,
            }
        }
        "DepthwiseConv2D" => {
            let geom = conv_geom(&c, class, "kernel_size")?;
            let mult = c.opt_int("depth_multiplier")?.unwrap_or(1);
            let mut want = kernel_dims(&geom);
            want.extend([None, Some(mult as usize)]);
            // Keras 3 names it `kernel`.
            let kernel = b
                .take(prefix, None, "depthwise_kernel", &want)
                .or_else(|_| b.take(prefix, None, "kernel", &want))?;
            let out = b.shape(kernel)[2] * b.shape(kernel)[3];
            Kind::Depthwise {
                bias: bias(b, Some(out))?,
                act: act("activation")?,
                kernel,
                geom,
            }
        }
        "SeparableConv1D" | "SeparableConv2D" => {
            let geom = conv_geom(&c, class, "kernel_size")?;
            let mult = c.opt_int("depth_multiplier")?.unwrap_or(1) as usize;
            let filters = c.count("filters")?;
            let mut want = kernel_dims(&geom);
            want.extend([None, Some(mult)]);
            let depthwise = b.take(prefix, None, "depthwise_kernel", &want)?;
            let inner = b.shape(depthwise)[geom.rank] * mult;
            let mut want: Vec<Dim> = vec![Some(1); geom.rank];
            want.extend([Some(inner), Some(filters)]);
            let pointwise = b.take(prefix, None, "pointwise_kernel", &want)?;
            Kind::Separable {
                bias: bias(b, Some(filters))?,
                act: act("activation")?,
                geom,
                depthwise,
                pointwise,
            }
        }
        "BatchNormalization" => {
            let axis = match c.int_vec("axis")? {
                None => -1,
                Some(a) if a.len() == 1 => a[0],
                Some(_) => {
                    return Err(unimplemented(format!(
                        "layer '{name}': BatchNormalization over several axes"
                    )))
                }
            };
            let gamma = if c.bool("scale", true)? {
                Some(b.take(prefix, None, "gamma", &[None])?)
            } else {
                None
            };
            let beta = if c.bool("center", true)? {
                Some(b.take(prefix, None, "beta", &[None])?)
            } else {
                None
            };
            let mean = b.take(prefix, None, "moving_mean", &[None])?;
            let n = Some(b.shape(mean)[0]);
            let var = b.take(prefix, None, "moving_variance", &[n])?;
            for w in [gamma, beta].into_iter().flatten() {
                if Some(b.shape(w)[0]) != n {
                    return Err(c.err("gamma, beta and moving statistics differ in size"));
                }
            }
            Kind::BatchNorm {
                axis,
                eps: c.float("epsilon", 1e-3)? as f32,
                gamma,
                beta,
                mean,
                var,
            }
        }
        "LayerNormalization" => {
            let axes = c.int_vec("axis")?.unwrap_or(vec![-1]);
            // Gamma and beta have the normalized axes' dims: checked when broadcast.
            let mut param = |leaf: &str, on: bool| -> Result<Option<W>> {
                on.then(|| b.take_any(prefix, leaf)).transpose()
            };
            Kind::LayerNorm {
                gamma: param("gamma", c.bool("scale", true)?)?,
                beta: param("beta", c.bool("center", true)?)?,
                eps: c.float("epsilon", 1e-3)? as f32,
                axes,
            }
        }
        "Activation" => Kind::Activation(act("activation")?),
        "ReLU" => {
            let max = c.opt_float("max_value")?.map(|v| v as f32);
            Kind::Relu {
                max,
                slope: c.float("negative_slope", 0.0)? as f32,
                threshold: c.float("threshold", 0.0)? as f32,
            }
        }
        // Keras 2 `alpha`, Keras 3 `negative_slope`.
        "LeakyReLU" => Kind::LeakyRelu(match c.opt_float("negative_slope")? {
            Some(v) => v as f32,
            None => c.float("alpha", 0.3)? as f32,
        }),
        // Alpha's shape follows the input's (shared axes of size 1): checked when broadcast.
        "PReLU" => Kind::Prelu(b.take_any(prefix, "alpha")?),
        "ELU" => Kind::Elu(c.float("alpha", 1.0)? as f32),
        "ThresholdedReLU" => Kind::ThresholdedRelu(c.float("theta", 1.0)? as f32),
        "Softmax" => Kind::Softmax(c.int_vec("axis")?.unwrap_or(vec![-1])),
        "Flatten" => Kind::Flatten,
        "Reshape" => {
            let t = c
                .int_vec("target_shape")?
                .ok_or_else(|| c.err("config has no 'target_shape'"))?;
            if t.iter().filter(|&&d| d == -1).count() > 1 || t.iter().any(|&d| d < -1) {
                return Err(c.err(format!("bad target_shape {t:?}")));
            }
            // Reshape takes an int32 shape: a larger dim would wrap.
            if let Some(d) = t.iter().find(|&&d| d > i32::MAX as i64) {
                return Err(c.err(format!(
                    "target_shape {t:?}: dim {d} exceeds the limit of {}",
                    i32::MAX
                )));
            }
            Kind::Reshape(t)
        }
        "Permute" => {
            let d = c
                .int_vec("dims")?
                .ok_or_else(|| c.err("config has no 'dims'"))?;
            let mut sorted = d.clone();
            sorted.sort_unstable();
            if sorted != (1..=d.len() as i64).collect::<Vec<_>>() {
                return Err(c.err(format!(
                    "'dims' {d:?} is not a permutation of 1..{}",
                    d.len()
                )));
            }
            Kind::Permute(d)
        }
        "RepeatVector" => Kind::RepeatVector(c.count("n")? as i64),
        "Add" => Kind::Merge(MergeOp::Add),
        "Subtract" => Kind::Merge(MergeOp::Subtract),
        "Multiply" => Kind::Merge(MergeOp::Multiply),
        "Average" => Kind::Merge(MergeOp::Average),
        "Maximum" => Kind::Merge(MergeOp::Maximum),
        "Minimum" => Kind::Merge(MergeOp::Minimum),
        "Concatenate" => Kind::Concatenate(c.opt_int("axis")?.unwrap_or(-1)),
        "Dot" => {
            let axes = c.ints("axes", 2, None)?;
            Kind::Dot {
                axes: [axes[0], axes[1]],
                normalize: c.bool("normalize", false)?,
            }
        }
        "MaxPooling1D" | "MaxPooling2D" | "MaxPooling3D" | "AveragePooling1D"
        | "AveragePooling2D" | "AveragePooling3D" | "MaxPool1D" | "MaxPool2D" | "MaxPool3D"
        | "AvgPool1D" | "AvgPool2D" | "AvgPool3D" => {
            let mut geom = conv_geom(&c, class, "pool_size")?;
            // Keras: strides default to the pool size.
            if c.get("strides").is_none() {
                geom.strides = geom.kernel;
            }
            Kind::Pool {
                max: class.starts_with("Max"),
                geom,
            }
        }
        "GlobalMaxPooling1D"
        | "GlobalMaxPooling2D"
        | "GlobalMaxPooling3D"
        | "GlobalAveragePooling1D"
        | "GlobalAveragePooling2D"
        | "GlobalAveragePooling3D"
        | "GlobalMaxPool1D"
        | "GlobalMaxPool2D"
        | "GlobalMaxPool3D"
        | "GlobalAvgPool1D"
        | "GlobalAvgPool2D"
        | "GlobalAvgPool3D" => Kind::GlobalPool {
            max: class.starts_with("GlobalMax"),
            rank: spatial_rank(class),
            keepdims: c.bool("keepdims", false)?,
        },
        "ZeroPadding1D" => Kind::ZeroPad(c.pairs("padding", 1)?),
        "ZeroPadding2D" => Kind::ZeroPad(c.pairs("padding", 2)?),
        "ZeroPadding3D" => Kind::ZeroPad(c.pairs("padding", 3)?),
        "Cropping1D" => Kind::Crop(c.pairs("cropping", 1)?),
        "Cropping2D" => Kind::Crop(c.pairs("cropping", 2)?),
        "Cropping3D" => Kind::Crop(c.pairs("cropping", 3)?),
        "UpSampling3D" => Kind::UpSample {
            size: up_sizes(&c, c.ints("size", 3, Some(2))?)?,
            bilinear: false,
        },
        "UpSampling1D" => Kind::UpSample {
            size: up_sizes(&c, vec![c.opt_int("size")?.unwrap_or(2)])?,
            bilinear: false,
        },
        "UpSampling2D" => {
            let interp = c.str("interpolation", "nearest")?;
            if interp != "nearest" && interp != "bilinear" {
                return Err(unimplemented(format!(
                    "layer '{name}': UpSampling2D interpolation '{interp}'"
                )));
            }
            Kind::UpSample {
                size: up_sizes(&c, c.ints("size", 2, Some(2))?)?,
                bilinear: interp == "bilinear",
            }
        }
        "Embedding" => {
            let (n, d) = (c.count("input_dim")?, c.count("output_dim")?);
            Kind::Embedding {
                table: b.take(prefix, None, "embeddings", &[Some(n), Some(d)])?,
                mask_zero: c.bool("mask_zero", false)?,
            }
        }
        "Rescaling" => Kind::Rescaling {
            scale: c.float("scale", 1.0)? as f32,
            offset: c.float("offset", 0.0)? as f32,
        },
        "Normalization" => {
            let axes = c.int_vec("axis")?.unwrap_or(vec![-1]);
            let (mean, var) = match (c.get("mean"), c.get("variance")) {
                (Some(m), Some(v)) => (Norm::Value(floats(&c, m)?), Norm::Value(floats(&c, v)?)),
                _ => {
                    let mean = b.take(prefix, None, "mean", &vec![None; axes.len()])?;
                    let var = b.take(prefix, None, "variance", &vec![None; axes.len()])?;
                    if b.shape(mean) != b.shape(var) {
                        return Err(c.err("mean and variance differ in shape"));
                    }
                    b.take(prefix, None, "count", &[])?;
                    (Norm::Weight(mean), Norm::Weight(var))
                }
            };
            Kind::Normalization {
                axes,
                mean,
                var,
                invert: c.bool("invert", false)?,
            }
        }
        "Masking" => Kind::Masking(c.float("mask_value", 0.0)? as f32),
        "Resizing" => {
            let interp = c.str("interpolation", "bilinear")?;
            if interp != "bilinear" || c.bool("crop_to_aspect_ratio", false)? {
                return Err(unimplemented(format!(
                    "layer '{name}': Resizing with interpolation '{interp}' or crop_to_aspect_ratio \
                     (only plain bilinear)"
                )));
            }
            Kind::Resizing([c.count("height")? as i64, c.count("width")? as i64])
        }
        "CenterCrop" => Kind::CenterCrop([c.count("height")? as i64, c.count("width")? as i64]),
        "SimpleRNN" | "LSTM" | "GRU" => Kind::Rnn(Box::new(Rnn::build(
            class,
            &c,
            prefix,
            None,
            b,
            act("activation")?,
        )?)),
        "Bidirectional" => {
            let (inner_class, inner_cfg) = class_and_config(c.object("layer")?)?;
            let inner_name = Cfg::new(inner_cfg, name)?.str("name", "")?;
            let ic = Cfg::new(inner_cfg, name)?;
            if !matches!(inner_class, "SimpleRNN" | "LSTM" | "GRU") {
                return Err(unimplemented(format!(
                    "layer '{name}': Bidirectional around '{inner_class}'"
                )));
            }
            let a = |key| -> Result<Act> {
                let n = ic.str(key, "tanh")?;
                Act::parse(n).map_err(|e| e.context(format!("layer '{name}'")))
            };
            // Keras 3 writes the inner layer already named `forward_<name>`.
            let inner_name = inner_name.strip_prefix("forward_").unwrap_or(inner_name);
            let fwd_sub = format!("forward_{inner_name}");
            let bwd_sub = format!("backward_{inner_name}");
            let mut fwd = Rnn::build(
                inner_class,
                &ic,
                prefix,
                Some(&fwd_sub),
                b,
                a("activation")?,
            )?;
            let mut bwd = Rnn::build(
                inner_class,
                &ic,
                prefix,
                Some(&bwd_sub),
                b,
                a("activation")?,
            )?;
            bwd.go_backwards = !bwd.go_backwards;
            fwd.zero_output_for_mask = fwd.return_sequences();
            bwd.zero_output_for_mask = bwd.return_sequences();
            let merge = match c.get("merge_mode").map(|v| v.as_str()) {
                None => BiMerge::None,
                Some(Some("concat")) => BiMerge::Concat,
                Some(Some("sum")) => BiMerge::Sum,
                Some(Some("mul")) => BiMerge::Mul,
                Some(Some("ave")) => BiMerge::Ave,
                Some(Some(other)) => return Err(c.err(format!("unknown merge_mode '{other}'"))),
                Some(None) => {
                    let v = c.get("merge_mode").map_or("null", super::config::kind);
                    return Err(c.err(format!("merge_mode must be a string, got {v}")));
                }
            };
            if fwd.return_state {
                return Err(unimplemented(format!(
                    "layer '{name}': Bidirectional with return_state"
                )));
            }
            Kind::Bidirectional {
                fwd: Box::new(fwd),
                bwd: Box::new(bwd),
                merge,
            }
        }
        "TimeDistributed" => {
            let (inner_class, inner_cfg) = class_and_config(c.object("layer")?)?;
            let inner = build(inner_class, inner_cfg, name, prefix, b, build_model)?;
            if matches!(
                inner,
                Kind::Input | Kind::Model(_) | Kind::Rnn(_) | Kind::Bidirectional { .. }
            ) {
                return Err(unimplemented(format!(
                    "layer '{name}': TimeDistributed around '{inner_class}'"
                )));
            }
            Kind::TimeDistributed(Box::new(inner))
        }
        "Sequential" | "Functional" | "Model" => {
            Kind::Model(Box::new(build_model(class, config, b)?))
        }
        "Conv3DTranspose" => {
            return Err(unimplemented(format!(
                "layer '{name}' has class '{class}', which eager-wasm does not support yet \
                 (its TF op is not implemented)"
            )))
        }
        other => {
            return Err(unimplemented(format!(
                "layer '{name}' has class '{other}', which eager-wasm does not support"
            )))
        }
    })
}

fn floats(c: &Cfg, v: &super::json::Value) -> Result<Tensor> {
    let list: Vec<f32> = match v {
        super::json::Value::Number(n) => vec![*n as f32],
        super::json::Value::Array(a) => a
            .iter()
            .map(|x| x.as_f64().map(|f| f as f32))
            .collect::<Option<_>>()
            .ok_or_else(|| c.err("mean/variance must be numbers"))?,
        _ => return Err(c.err("mean/variance must be numbers")),
    };
    Tensor::from_slice(&[list.len()], &list)
}

/// UpSampling factors, bounded so output sizes cannot overflow.
fn up_sizes(c: &Cfg, v: Vec<i64>) -> Result<Vec<i64>> {
    if v.iter().any(|&s| !(1..=1 << 16).contains(&s)) {
        return Err(c.err(format!("'size' must be in 1..=65536, got {v:?}")));
    }
    Ok(v)
}

/// 1, 2 or 3 from a class name's `1D`/`2D`/`3D`.
fn spatial_rank(class: &str) -> usize {
    if class.contains("1D") {
        1
    } else if class.contains("3D") {
        3
    } else {
        2
    }
}

/// Largest kernel / pool size, stride or dilation a layer config may ask for.
const MAX_WINDOW: i64 = 1 << 16;

fn conv_geom(c: &Cfg, class: &str, size_key: &str) -> Result<ConvGeom> {
    let rank = spatial_rank(class);
    let kernel = c.ints(size_key, rank, None)?;
    let strides = c.ints("strides", rank, Some(1))?;
    let dilation = c.ints("dilation_rate", rank, Some(1))?;
    let padding = match c.str("padding", "valid")? {
        "valid" => Padding::Valid,
        "same" => Padding::Same,
        "causal" if rank == 1 => Padding::Causal,
        p => return Err(c.err(format!("unsupported padding '{p}'"))),
    };
    let check = |v: &[i64], what: &str| -> Result<()> {
        if v.iter().any(|&x| x < 1) {
            return Err(c.err(format!("{what} must be positive, got {v:?}")));
        }
        if v.iter().any(|&x| x > MAX_WINDOW) {
            return Err(c.err(format!("{what} {v:?} exceeds the limit of {MAX_WINDOW}")));
        }
        Ok(())
    };
    check(&kernel, size_key)?;
    check(&strides, "strides")?;
    check(&dilation, "dilation_rate")?;
    if dilation.iter().any(|&d| d != 1) && strides.iter().any(|&s| s != 1) {
        return Err(c.err("dilation_rate > 1 with strides > 1 (Keras rejects it too)"));
    }
    // Right-aligned in [depth, height, width], 1 before.
    let three = |v: Vec<i64>| {
        let mut a = [1; 3];
        a[3 - rank..].copy_from_slice(&v);
        a
    };
    Ok(ConvGeom {
        rank,
        kernel: three(kernel),
        strides: three(strides),
        dilation: three(dilation),
        padding,
        output_padding: None,
    })
}

fn kernel_dims(g: &ConvGeom) -> Vec<Dim> {
    g.kernel[3 - g.rank..]
        .iter()
        .map(|&d| Some(d as usize))
        .collect()
}
