//! Op names that only TF.js defines, which its converter's op list maps and older converted
//! models carry: `Ones`/`Zeros` (shape input, dtype attr `T`), `Conv1D` (NWC input, WIO filter,
//! int `stride`/`dilation`) and `DepthwiseConv2d` (DepthwiseConv2dNative's attrs). TF has no
//! kernel for them; their semantics are TF.js's, computed by the TF kernels they stand for.

use super::array::assemble::assemble;
use super::nn::conv::{conv2d, Conv2dParams};
use super::nn::depthwise::depthwise;
use super::nn::window::padding_attr;
use crate::ops::def::{FLOAT, INDEX};
use crate::ops::{Kernel, KernelContext, KernelFactory::Prepared, KernelFactory::Simple};
use crate::ops::{NodeAttrs, OpBuilder, Registry};
use crate::status::{invalid_argument, Result};
use crate::tensor::{DType, Shape, Tensor};

const VALUES: &[DType] = &[
    DType::Float32,
    DType::Int32,
    DType::Int64,
    DType::Bool,
    DType::UInt8,
];

pub fn register(reg: &mut Registry) {
    for name in ["Ones", "Zeros"] {
        reg.add(
            OpBuilder::new(name, Simple(filled))
                .input("shape", "Tshape")
                .type_attr_default("Tshape", INDEX, DType::Int32)
                .type_attr_default("T", VALUES, DType::Float32),
        );
    }
    reg.add(
        OpBuilder::new("Conv1D", Simple(conv1d))
            .input("x", "T")
            .input("filter", "T")
            .type_attr("T", FLOAT)
            .int_attr("stride", Some(1))
            .enum_attr("padding", &["SAME", "VALID"], None)
            .enum_attr("data_format", &["NWC", "NCW"], Some("NWC"))
            .int_attr("dilation", Some(1)),
    );
    reg.add(
        OpBuilder::new("DepthwiseConv2d", Prepared(depthwise_op))
            .input("input", "T")
            .input("filter", "T")
            .type_attr("T", FLOAT)
            .ints_attr("strides", None)
            .enum_attr("padding", &["SAME", "VALID", "EXPLICIT"], None)
            .ints_attr("explicit_paddings", Some(&[]))
            .enum_attr("data_format", &["NHWC", "NCHW"], Some("NHWC"))
            .ints_attr("dilations", Some(&[1, 1, 1, 1])),
    );
}

fn filled(a: &NodeAttrs, _: &mut KernelContext<'_>, i: &[Tensor]) -> Result<Vec<Tensor>> {
    let dims: Vec<usize> = super::array::int_vector(&i[0], "shape")?
        .into_iter()
        .map(|d| super::array::to_dim(d, "shape dimension"))
        .collect::<Result<_>>()?;
    let shape = Shape::new(dims)?;
    let dtype = a.dtype("T")?;
    if a.op() == "Zeros" {
        return Ok(crate::ops::one_output(Tensor::zeros(dtype, shape)?));
    }
    let one = super::math::cast_tensor(&Tensor::scalar(1i32), dtype)?;
    let n = shape.num_elements();
    Ok(crate::ops::one_output(assemble(
        &[&one],
        dtype,
        shape,
        &mut |emit| emit(0, 0, n, 0),
    )?))
}

/// Conv1D as TF.js computes it: a Conv2D over [N, 1, W, C] with a [1, K, Ci, Co] filter.
fn conv1d(a: &NodeAttrs, _: &mut KernelContext<'_>, i: &[Tensor]) -> Result<Vec<Tensor>> {
    let (x, f) = (&i[0], &i[1]);
    if a.string("data_format")? != "NWC" {
        return Err(invalid_argument(
            "Conv1D: only data_format NWC is supported",
        ));
    }
    if x.rank() != 3 || f.rank() != 3 {
        return Err(invalid_argument(format!(
            "Conv1D: input must be rank 3 [N, W, C] and filter rank 3 [K, Ci, Co], got {} and {}",
            x.shape(),
            f.shape()
        )));
    }
    let positive = |name: &str| -> Result<usize> {
        let v = a.int(name)?;
        usize::try_from(v)
            .ok()
            .filter(|&v| v > 0)
            .ok_or_else(|| invalid_argument(format!("Conv1D: {name} must be positive, got {v}")))
    };
    let (stride, dilation) = (positive("stride")?, positive("dilation")?);
    let p = Conv2dParams {
        strides: (1, stride),
        dilations: (1, dilation),
        padding: padding_attr(a, false)?,
    };
    let (xd, fd) = (x.dims(), f.dims());
    let x4 = x.reshaped(Shape::new(vec![xd[0], 1, xd[1], xd[2]])?)?;
    let f4 = f.reshaped(Shape::new(vec![1, fd[0], fd[1], fd[2]])?)?;
    let y = conv2d(&x4, &f4, &p, None)?;
    let yd = y.dims().to_vec();
    Ok(crate::ops::one_output(
        y.reshaped(Shape::new(vec![yd[0], yd[2], yd[3]])?)?,
    ))
}

struct DepthwiseAlias(Conv2dParams);

impl Kernel for DepthwiseAlias {
    fn compute(&self, _: &mut KernelContext<'_>, i: &[Tensor]) -> Result<Vec<Tensor>> {
        Ok(crate::ops::one_output(depthwise(
            &i[0], &i[1], &self.0, None,
        )?))
    }
}

fn depthwise_op(a: &NodeAttrs) -> Result<Box<dyn Kernel>> {
    Ok(Box::new(DepthwiseAlias(Conv2dParams::from_attrs(
        a, true, false,
    )?)))
}
