//! Kernel families. Each family module declares its ops (definition + kernel, through the interface
//! in `ops::kernel`) in a `register` function; `register_all` lists the families.

pub mod array;
pub mod broadcast;
pub mod complex;
pub(crate) mod complex_elem;
pub mod list;
pub mod math;
pub mod math_extra;
pub mod math_more;
pub mod nn;
pub mod num;
pub mod random;
pub mod reduce;
pub mod resource;
pub mod segment;
pub mod space_batch;
pub mod spectral;
pub mod strings;
pub mod tensor_array;
pub mod tfjs_only;
pub mod vmath;

use crate::ops::Registry;
use crate::status::{invalid_argument, Result, Status};
use crate::tensor::{DType, Tensor};

/// Input `i`, or InvalidArgument naming it if the caller passed too few (kernels can be run
/// directly, without the op definition's arity check).
pub(crate) fn input<'a>(inputs: &'a [Tensor], i: usize, name: &str) -> Result<&'a Tensor> {
    inputs.get(i).ok_or_else(|| missing_input(i, name))
}

#[cold]
#[inline(never)]
fn missing_input(i: usize, name: &str) -> crate::status::Status {
    invalid_argument(format!("missing input '{name}' (#{i})"))
}

/// The first two inputs, named for the error when one is missing.
pub(crate) fn two<'a>(inputs: &'a [Tensor], names: [&str; 2]) -> Result<(&'a Tensor, &'a Tensor)> {
    Ok((input(inputs, 0, names[0])?, input(inputs, 1, names[1])?))
}

pub(crate) fn unsupported(d: DType) -> Status {
    invalid_argument(format!("dtype {d} is not supported by this op"))
}

pub fn register_all(reg: &mut Registry) {
    nn::register(reg);
    resource::register(reg);
    list::register(reg);
    tensor_array::register(reg);
    space_batch::register(reg);
    math::register(reg);
    reduce::register(reg);
    array::register(reg);
    math_extra::register(reg);
    math_more::register(reg);
    tfjs_only::register(reg);
    random::register(reg);
    segment::register(reg);
    complex::register(reg);
    spectral::register(reg);
    strings::register(reg);
}
