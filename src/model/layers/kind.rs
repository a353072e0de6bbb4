//! A layers model as loaded: each layer's `Kind` with its parameters, and the `Graph` that wires
//! layers together. The two refer to each other (a nested model is a `Kind::Model`), so they are
//! defined together here; reading them from the config (`layer`, `graph`), running them
//! (`forward`, `graph`) and their static shapes (`shape`) build on this.

use super::activation::Act;
use super::bind::W;
use super::rnn::{Merge as BiMerge, Rnn};
use crate::tensor::{DType, Tensor};

#[derive(Clone, Copy, PartialEq)]
pub enum Padding {
    Valid,
    Same,
    /// Conv1D only: left-pad by `dilation * (kernel - 1)`, then valid.
    Causal,
}

/// A convolution's geometry as `[depth, height, width]`: 2-D layers have a depth of 1, 1-D ones
/// a height of 1 too (they run as 2-D ones).
#[derive(Clone, Copy)]
pub struct ConvGeom {
    pub rank: usize,
    pub kernel: [i64; 3],
    pub strides: [i64; 3],
    pub dilation: [i64; 3],
    pub padding: Padding,
    /// Conv2DTranspose's `output_padding` (height, width), if given.
    pub output_padding: Option<[i64; 2]>,
}

impl ConvGeom {
    /// `v`'s spatial values as a TF NHWC / NDHWC attr (1 in batch and channels).
    pub fn attr(&self, v: [i64; 3]) -> Vec<i64> {
        let mut a = vec![1];
        a.extend(&v[3 - self.rank.max(2)..]);
        a.push(1);
        a
    }
}

#[derive(Clone, Copy, PartialEq)]
pub enum MergeOp {
    Add,
    Subtract,
    Multiply,
    Average,
    Maximum,
    Minimum,
}

pub enum Norm {
    Weight(W),
    Value(Tensor),
}

pub enum Kind {
    Input,
    Identity,
    Dense {
        kernel: W,
        bias: Option<W>,
        act: Act,
    },
    Conv {
        geom: ConvGeom,
        kernel: W,
        bias: Option<W>,
        act: Act,
    },
    Depthwise {
        geom: ConvGeom,
        kernel: W,
        bias: Option<W>,
        act: Act,
    },
    /// Conv2DTranspose: TF's Conv2DBackpropInput, whose filter layout (`[kh, kw, out, in]`) is
    /// Keras's kernel as it is.
    ConvTranspose {
        geom: ConvGeom,
        kernel: W,
        bias: Option<W>,
        act: Act,
        filters: usize,
    },
    Separable {
        geom: ConvGeom,
        depthwise: W,
        pointwise: W,
        bias: Option<W>,
        act: Act,
    },
    BatchNorm {
        axis: i64,
        eps: f32,
        gamma: Option<W>,
        beta: Option<W>,
        mean: W,
        var: W,
    },
    LayerNorm {
        axes: Vec<i64>,
        eps: f32,
        gamma: Option<W>,
        beta: Option<W>,
    },
    Activation(Act),
    Relu {
        max: Option<f32>,
        slope: f32,
        threshold: f32,
    },
    LeakyRelu(f32),
    Prelu(W),
    Elu(f32),
    ThresholdedRelu(f32),
    Softmax(Vec<i64>),
    Flatten,
    Reshape(Vec<i64>),
    Permute(Vec<i64>),
    RepeatVector(i64),
    Merge(MergeOp),
    Concatenate(i64),
    Dot {
        axes: [i64; 2],
        normalize: bool,
    },
    Pool {
        max: bool,
        geom: ConvGeom,
    },
    GlobalPool {
        max: bool,
        rank: usize,
        keepdims: bool,
    },
    ZeroPad(Vec<(i64, i64)>),
    Crop(Vec<(i64, i64)>),
    UpSample {
        size: Vec<i64>,
        bilinear: bool,
    },
    Embedding {
        table: W,
        mask_zero: bool,
    },
    Rescaling {
        scale: f32,
        offset: f32,
    },
    Normalization {
        axes: Vec<i64>,
        mean: Norm,
        var: Norm,
        invert: bool,
    },
    Masking(f32),
    /// Keras 3's `NotEqual` op as a layer, against a constant.
    NotEqual(f32),
    /// Bilinear resize to `[height, width]` (`tf.image.resize`: half-pixel centers).
    Resizing([i64; 2]),
    /// The central `[height, width]` window.
    CenterCrop([i64; 2]),
    Rnn(Box<Rnn>),
    Bidirectional {
        fwd: Box<Rnn>,
        bwd: Box<Rnn>,
        merge: BiMerge,
    },
    TimeDistributed(Box<Kind>),
    Model(Box<Graph>),
}

impl Kind {
    /// What kind of layer this is, for `LayersModel::profile` (one name per variant: "Conv" for
    /// Conv1D/2D/3D, "Pooling" for max and average pooling of every rank).
    pub fn label(&self) -> &'static str {
        match self {
            Kind::Input => "InputLayer",
            Kind::Identity => "Identity",
            Kind::Dense { .. } => "Dense",
            Kind::Conv { .. } => "Conv",
            Kind::Depthwise { .. } => "DepthwiseConv",
            Kind::ConvTranspose { .. } => "ConvTranspose",
            Kind::Separable { .. } => "SeparableConv",
            Kind::BatchNorm { .. } => "BatchNormalization",
            Kind::LayerNorm { .. } => "LayerNormalization",
            Kind::Activation(_) => "Activation",
            Kind::Relu { .. } => "ReLU",
            Kind::LeakyRelu(_) => "LeakyReLU",
            Kind::Prelu(_) => "PReLU",
            Kind::Elu(_) => "ELU",
            Kind::ThresholdedRelu(_) => "ThresholdedReLU",
            Kind::Softmax(_) => "Softmax",
            Kind::Flatten => "Flatten",
            Kind::Reshape(_) => "Reshape",
            Kind::Permute(_) => "Permute",
            Kind::RepeatVector(_) => "RepeatVector",
            Kind::Merge(_) => "Merge",
            Kind::Concatenate(_) => "Concatenate",
            Kind::Dot { .. } => "Dot",
            Kind::Pool { .. } => "Pooling",
            Kind::GlobalPool { .. } => "GlobalPooling",
            Kind::ZeroPad(_) => "ZeroPadding",
            Kind::Crop(_) => "Cropping",
            Kind::UpSample { .. } => "UpSampling",
            Kind::Embedding { .. } => "Embedding",
            Kind::Rescaling { .. } => "Rescaling",
            Kind::Normalization { .. } => "Normalization",
            Kind::Masking(_) => "Masking",
            Kind::NotEqual(_) => "NotEqual",
            Kind::Resizing(_) => "Resizing",
            Kind::CenterCrop(_) => "CenterCrop",
            Kind::Rnn(_) => "RNN",
            Kind::Bidirectional { .. } => "Bidirectional",
            Kind::TimeDistributed(_) => "TimeDistributed",
            Kind::Model(_) => "Model",
        }
    }
}

pub struct Layer {
    pub name: String,
    pub kind: Kind,
}

/// One application of a layer to (layer call, output index) pairs.
pub struct Call {
    pub(super) layer: usize,
    pub(super) args: Vec<(usize, usize)>,
}

/// A model input as its `InputLayer` declares it.
pub struct InputSpec {
    pub name: String,
    pub dtype: DType,
    /// `None`: unknown rank; `-1`: unknown dim.
    pub shape: Option<Vec<i64>>,
}

/// A model's layers, wired: built by `graph::build`.
pub struct Graph {
    pub(super) layers: Vec<Layer>,
    /// In dependency order.
    pub(super) calls: Vec<Call>,
    /// Positions in `calls` of the inputs, in model input order.
    pub(super) inputs: Vec<usize>,
    pub(super) outputs: Vec<(usize, usize)>,
    /// How many arguments and model outputs read each call's outputs (freed at zero).
    pub(super) uses: Vec<u32>,
    pub input_specs: Vec<InputSpec>,
    pub output_names: Vec<String>,
}
