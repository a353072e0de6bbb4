//! Neural-network kernels: GEMM-backed contractions (MatMul, Conv2D), depthwise convolution,
//! pooling, batch norm and bias, bilinear resize, activations, and the converter's fused forms.

pub mod activation;
pub mod activation_grad;
pub mod batchnorm;
pub mod conv;
pub mod conv_grad;
pub mod conv_thin;
pub mod conv_transpose;
pub mod depthwise;
pub mod einsum;
pub mod epilogue;
pub mod fused;
pub mod gemm;
pub mod image_more;
pub mod matmul;
pub mod nms;
pub mod pool;
pub mod pool_grad;
pub mod resize;
pub mod resize_grad;
pub mod resize_nearest;
pub mod simd;
pub mod volume;
pub mod window;

use crate::ops::Registry;

pub fn register(reg: &mut Registry) {
    activation::register(reg);
    activation_grad::register(reg);
    batchnorm::register(reg);
    conv::register(reg);
    conv_grad::register(reg);
    conv_transpose::register(reg);
    depthwise::register(reg);
    einsum::register(reg);
    fused::register(reg);
    image_more::register(reg);
    matmul::register(reg);
    nms::register(reg);
    pool::register(reg);
    pool_grad::register(reg);
    resize::register(reg);
    resize_grad::register(reg);
    resize_nearest::register(reg);
    volume::register(reg);
}
