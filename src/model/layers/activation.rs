//! Keras activations by name, each as TF ops (Keras 2 / tf_keras 2.18 formulas).

use super::tf::{self, binary, mul, scalar, unary};
use crate::eager::EagerContext;
use crate::status::{invalid_argument, Result};
use crate::tensor::Tensor;

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Act {
    Linear,
    Relu,
    Relu6,
    Elu,
    Selu,
    Sigmoid,
    /// tf_keras: `clip(0.2 x + 0.5, 0, 1)`.
    HardSigmoid,
    Tanh,
    Softmax,
    LogSoftmax,
    Softplus,
    Softsign,
    /// `x * sigmoid(x)` (`swish`, `silu`).
    Swish,
    /// Exact: `0.5 x (1 + erf(x / sqrt 2))` (Keras's default, `approximate=False`).
    Gelu,
    /// `x * tanh(softplus(x))`.
    Mish,
    Exponential,
}

impl Act {
    pub fn parse(name: &str) -> Result<Act> {
        Ok(match name {
            "linear" | "Linear" => Act::Linear,
            "relu" => Act::Relu,
            "relu6" => Act::Relu6,
            "elu" => Act::Elu,
            "selu" => Act::Selu,
            "sigmoid" => Act::Sigmoid,
            "hard_sigmoid" | "hardSigmoid" => Act::HardSigmoid,
            "tanh" => Act::Tanh,
            "softmax" => Act::Softmax,
            "log_softmax" | "logSoftmax" => Act::LogSoftmax,
            "softplus" => Act::Softplus,
            "softsign" => Act::Softsign,
            "swish" | "silu" => Act::Swish,
            "gelu" => Act::Gelu,
            "mish" => Act::Mish,
            "exponential" => Act::Exponential,
            other => return Err(invalid_argument(format!("unknown activation '{other}'"))),
        })
    }

    #[inline(never)]
    pub fn apply(self, ctx: &mut EagerContext, x: Tensor) -> Result<Tensor> {
        Ok(match self {
            Act::Linear => x,
            Act::Relu => unary(ctx, "Relu", &x)?,
            Act::Relu6 => unary(ctx, "Relu6", &x)?,
            Act::Elu => unary(ctx, "Elu", &x)?,
            Act::Selu => unary(ctx, "Selu", &x)?,
            Act::Sigmoid => unary(ctx, "Sigmoid", &x)?,
            Act::Tanh => unary(ctx, "Tanh", &x)?,
            Act::Softmax => unary(ctx, "Softmax", &x)?,
            Act::LogSoftmax => unary(ctx, "LogSoftmax", &x)?,
            Act::Softplus => unary(ctx, "Softplus", &x)?,
            Act::Exponential => unary(ctx, "Exp", &x)?,
            Act::HardSigmoid => {
                let y = mul(ctx, &x, &scalar(0.2))?;
                let y = tf::add(ctx, &y, &scalar(0.5))?;
                let y = binary(ctx, "Maximum", &y, &scalar(0.0))?;
                binary(ctx, "Minimum", &y, &scalar(1.0))?
            }
            Act::Softsign => {
                let a = unary(ctx, "Abs", &x)?;
                let d = tf::add(ctx, &a, &scalar(1.0))?;
                binary(ctx, "RealDiv", &x, &d)?
            }
            Act::Swish => {
                let s = unary(ctx, "Sigmoid", &x)?;
                mul(ctx, &x, &s)?
            }
            Act::Gelu => {
                let scaled = mul(ctx, &x, &scalar(std::f32::consts::FRAC_1_SQRT_2))?;
                let e = unary(ctx, "Erf", &scaled)?;
                let e1 = tf::add(ctx, &e, &scalar(1.0))?;
                let h = mul(ctx, &e1, &scalar(0.5))?;
                mul(ctx, &x, &h)?
            }
            Act::Mish => {
                let sp = unary(ctx, "Softplus", &x)?;
                let t = unary(ctx, "Tanh", &sp)?;
                mul(ctx, &x, &t)?
            }
        })
    }
}
