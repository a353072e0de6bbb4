//! The converter's fused contractions (_FusedConv2D, _FusedMatMul, FusedDepthwiseConv2dNative):
//! the ops whose kernels run a contraction with an epilogue (`epilogue.rs`).

use super::epilogue::{Fusion, FusionSpec};
use super::window::padding_attrs;
use super::{conv, depthwise, matmul};
use crate::ops::def::FLOAT;
use crate::ops::{AttrDefault, AttrType, NodeAttrs, OpBuilder, Registry};
use crate::ops::{Kernel, KernelContext, KernelFactory::Prepared as Instantiate};
use crate::status::{invalid_argument, unimplemented, Result};
use crate::tensor::{DType, Tensor};

fn fused_common(b: OpBuilder) -> OpBuilder {
    b.attr(
        "fused_ops",
        AttrType::ListString,
        Some(AttrDefault::EmptyList),
    )
    .float_attr("epsilon", 0.0001)
    .float_attr("leakyrelu_alpha", 0.2)
}

pub fn register(reg: &mut Registry) {
    let conv = OpBuilder::new("_FusedConv2D", Instantiate(fused_conv2d))
        .input("input", "T")
        .input("filter", "T")
        .inputs_n_min("args", "num_args", "T", 0)
        .type_attr("T", FLOAT)
        // Newer TF declares the args' types separately and host args; accepted for models that
        // carry them, validated in the kernel.
        .attr("TArgs", AttrType::ListType, Some(AttrDefault::EmptyList))
        .int_attr("num_host_args", Some(0))
        .ints_attr("strides", None)
        .with(|b| padding_attrs(b, &["NHWC", "NCHW", "NCHW_VECT_C"]))
        .enum_attr(
            "filter_format",
            &["HWIO", "OIHW", "OIHW_VECT_I"],
            Some("HWIO"),
        )
        .ints_attr("dilations", Some(&[1, 1, 1, 1]))
        .bool_attr("use_cudnn_on_gpu", true);
    reg.add(fused_common(conv));
    let mm = OpBuilder::new("_FusedMatMul", Instantiate(fused_matmul))
        .input("a", "T")
        .input("b", "T")
        .inputs_n_min("args", "num_args", "T", 0)
        .bool_attr("transpose_a", false)
        .bool_attr("transpose_b", false)
        .type_attr("T", FLOAT);
    reg.add(fused_common(mm));
    let dw = OpBuilder::new("FusedDepthwiseConv2dNative", Instantiate(fused_depthwise))
        .input("input", "T")
        .input("filter", "T")
        .inputs_n_min("args", "num_args", "T", 0)
        .type_attr("T", FLOAT)
        .ints_attr("strides", None)
        .with(|b| padding_attrs(b, &["NHWC", "NCHW"]))
        .ints_attr("dilations", Some(&[1, 1, 1, 1]));
    reg.add(fused_common(dw));
}

fn split_args<'t>(
    op: &str,
    inputs: &'t [Tensor],
) -> Result<(&'t Tensor, &'t Tensor, &'t [Tensor])> {
    match inputs {
        [x, w, args @ ..] => Ok((x, w, args)),
        _ => Err(invalid_argument(format!("{op} needs at least 2 inputs"))),
    }
}

/// The contraction a fused kernel runs, its attrs read once at instantiation.
enum Contraction {
    Conv(conv::Conv2dParams),
    Depthwise(conv::Conv2dParams),
    MatMul { ta: bool, tb: bool },
}

struct FusedKernel {
    op: &'static str,
    what: Contraction,
    spec: FusionSpec,
}

impl Kernel for FusedKernel {
    fn compute(&self, _: &mut KernelContext<'_>, inputs: &[Tensor]) -> Result<Vec<Tensor>> {
        let (x, w, args) = split_args(self.op, inputs)?;
        let fusion = Fusion::bind(self.op, self.spec, args)?;
        Ok(crate::ops::one_output(match &self.what {
            Contraction::Conv(p) => conv::conv2d(x, w, p, Some(&fusion))?,
            Contraction::Depthwise(p) => depthwise::depthwise(x, w, p, Some(&fusion))?,
            Contraction::MatMul { ta, tb } => matmul::matmul_f32(x, w, *ta, *tb, Some(&fusion))?,
        }))
    }
}

fn fused_conv2d(a: &NodeAttrs) -> Result<Box<dyn Kernel>> {
    if let crate::ops::AttrValue::ListType(types) = a.get("TArgs")? {
        let args = usize::try_from(a.int("num_args")?).unwrap_or(usize::MAX);
        // The TF.js converter raises num_args to 2 when it folds a Prelu into the conv but leaves
        // TArgs with the bias's type alone (TF.js ignores TArgs), so a shorter list is accepted.
        if types.len() > args || types.iter().any(|&t| t != DType::Float32) {
            return Err(invalid_argument(format!(
                "_FusedConv2D: TArgs {types:?} does not match the {args} float32 args",
            )));
        }
    }
    if a.int("num_host_args")? != 0 {
        return Err(unimplemented("_FusedConv2D: host args are not supported"));
    }
    if a.string("filter_format")? != "HWIO" {
        return Err(unimplemented(
            "_FusedConv2D: only filter_format HWIO is supported",
        ));
    }
    let spec = FusionSpec::parse(a)?;
    let params = conv::Conv2dParams::from_attrs(a, true, true)?;
    Ok(Box::new(FusedKernel {
        op: a.op(),
        what: Contraction::Conv(params),
        spec,
    }))
}

fn fused_matmul(a: &NodeAttrs) -> Result<Box<dyn Kernel>> {
    let spec = FusionSpec::parse(a)?;
    Ok(Box::new(FusedKernel {
        op: a.op(),
        what: Contraction::MatMul {
            ta: a.bool("transpose_a")?,
            tb: a.bool("transpose_b")?,
        },
        spec,
    }))
}

fn fused_depthwise(a: &NodeAttrs) -> Result<Box<dyn Kernel>> {
    let spec = FusionSpec::parse(a)?;
    let params = conv::Conv2dParams::from_attrs(a, true, false)?;
    Ok(Box::new(FusedKernel {
        op: a.op(),
        what: Contraction::Depthwise(params),
        spec,
    }))
}
