//! Elementwise math: binary arithmetic with broadcasting, comparisons, logical ops, Select, AddN,
//! unary functions, Cast, ZerosLike/OnesLike. Semantics follow TF's CPU kernels (integer division
//! by zero is an error, Maximum/Minimum propagate NaN, Round is half-to-even).

use super::array::assemble::assemble;
use super::broadcast::{binary_map, binary_map_fn, binary_map_tiled, broadcast_shapes};
use super::complex_elem as complex;
use super::{input, two, unsupported};
use crate::ops::def::{FLOAT, NUMERIC};
use crate::ops::{KernelContext, KernelFactory::Simple};
use crate::ops::{NodeAttrs, OpBuilder, Registry};
use crate::status::{invalid_argument, Result};
use crate::tensor::{try_with_capacity, DType, Element, Shape, Tensor, C64};

type Outputs = Result<Vec<Tensor>>;

/// Every storable dtype but resources: Equal/NotEqual, Cast, ZerosLike, Select's T.
const VALUES: &[DType] = &[
    DType::Float32,
    DType::Int32,
    DType::Int64,
    DType::Bool,
    DType::UInt8,
    DType::Complex64,
];

/// The arithmetic TF's CPU kernels also register for complex64 (Add, Sub, Mul, Div, Neg, Square,
/// AddN).
const NUMERIC_COMPLEX: &[DType] = &[DType::Float32, DType::Int32, DType::Int64, DType::Complex64];

/// RealDiv's types: the float ones.
const FLOAT_COMPLEX: &[DType] = &[DType::Float32, DType::Complex64];
/// `VALUES` and strings: the ops that compare or pick elements without reading them.
const VALUES_AND_STRINGS: &[DType] = &[
    DType::Float32,
    DType::Int32,
    DType::Int64,
    DType::Bool,
    DType::UInt8,
    DType::Complex64,
    DType::String,
];

pub fn register(reg: &mut Registry) {
    let binary: [(&'static str, crate::ops::ComputeFn, &'static [DType]); 12] = [
        ("AddV2", add, NUMERIC_COMPLEX),
        ("Add", add, NUMERIC_COMPLEX),
        ("Sub", sub, NUMERIC_COMPLEX),
        ("Mul", mul, NUMERIC_COMPLEX),
        ("RealDiv", real_div, FLOAT_COMPLEX),
        ("Div", div, NUMERIC_COMPLEX),
        ("FloorDiv", floor_div, NUMERIC),
        ("FloorMod", floor_mod, NUMERIC),
        ("Maximum", maximum, NUMERIC),
        ("Minimum", minimum, NUMERIC),
        ("SquaredDifference", squared_difference, NUMERIC),
        ("Pow", pow, NUMERIC),
    ];
    for (name, f, types) in binary {
        reg.add(
            OpBuilder::new(name, Simple(f))
                .input("x", "T")
                .input("y", "T")
                .type_attr("T", types),
        );
    }
    let compare: [(&'static str, crate::ops::ComputeFn); 4] = [
        ("Greater", greater),
        ("GreaterEqual", greater_equal),
        ("Less", less),
        ("LessEqual", less_equal),
    ];
    for (name, f) in compare {
        reg.add(
            OpBuilder::new(name, Simple(f))
                .input("x", "T")
                .input("y", "T")
                .type_attr("T", NUMERIC),
        );
    }
    for (name, f) in [
        ("Equal", equal as crate::ops::ComputeFn),
        ("NotEqual", not_equal),
    ] {
        reg.add(
            OpBuilder::new(name, Simple(f))
                .input("x", "T")
                .input("y", "T")
                .type_attr("T", VALUES_AND_STRINGS)
                .bool_attr("incompatible_shape_error", true)
                .strings_by_index(),
        );
    }
    for (name, f) in [
        ("LogicalAnd", logical_and as crate::ops::ComputeFn),
        ("LogicalOr", logical_or),
    ] {
        reg.add(
            OpBuilder::new(name, Simple(f))
                .fixed_input("x", DType::Bool)
                .fixed_input("y", DType::Bool),
        );
    }
    reg.add(OpBuilder::new("LogicalNot", Simple(logical_not)).fixed_input("x", DType::Bool));
    for (name, f) in [
        ("Select", select as crate::ops::ComputeFn),
        ("SelectV2", select_v2),
    ] {
        reg.add(
            OpBuilder::new(name, Simple(f))
                .fixed_input("condition", DType::Bool)
                .input("t", "T")
                .input("e", "T")
                .type_attr("T", VALUES_AND_STRINGS)
                .strings_by_index(),
        );
    }
    reg.add(
        OpBuilder::new("AddN", Simple(add_n))
            .inputs_n("inputs", "N", "T")
            .type_attr("T", NUMERIC_COMPLEX),
    );
    let unary: [(&'static str, crate::ops::ComputeFn, &'static [DType]); 18] = [
        ("Rsqrt", rsqrt, FLOAT),
        ("Sqrt", sqrt, FLOAT),
        ("Exp", exp, FLOAT),
        ("Log", log, FLOAT),
        ("Log1p", log1p, FLOAT),
        ("Sin", sin, FLOAT),
        ("Cos", cos, FLOAT),
        ("Erf", erf, FLOAT),
        ("Reciprocal", reciprocal, FLOAT),
        ("Floor", floor, FLOAT),
        ("Ceil", ceil, FLOAT),
        ("Round", round, NUMERIC),
        ("Neg", neg, NUMERIC_COMPLEX),
        ("Abs", abs, NUMERIC),
        ("Square", square, NUMERIC_COMPLEX),
        ("Sign", sign, NUMERIC),
        ("ZerosLike", zeros_like, VALUES),
        ("OnesLike", ones_like, VALUES),
    ];
    for (name, f, types) in unary {
        reg.add(
            OpBuilder::new(name, Simple(f))
                .input("x", "T")
                .type_attr("T", types),
        );
    }
    reg.add(
        OpBuilder::new("Cast", Simple(cast))
            .input("x", "SrcT")
            .type_attr("SrcT", VALUES)
            .type_attr("DstT", VALUES)
            .bool_attr("Truncate", false),
    );
}

/// Elementwise `f` over any element type (a tight map the compiler can vectorize).
pub fn unary_map<T: Element, O: Element>(t: &Tensor, f: impl Fn(T) -> O) -> Result<Tensor> {
    let x = t.as_slice::<T>()?;
    let mut out = try_with_capacity::<O>(x.len())?;
    out.extend(x.iter().map(|&v| f(v)));
    Tensor::from_vec(t.shape().clone(), out)
}

/// [`unary_map`] through a function pointer: one instantiation per (input, output) type pair.
#[inline(never)]
pub fn unary_map_fn<T: Element, O: Element>(t: &Tensor, f: fn(T) -> O) -> Result<Tensor> {
    unary_map(t, f)
}

/// Elementwise `f` over a float32 tensor.
pub(crate) fn unary_f32(t: &Tensor, f: impl Fn(f32) -> f32) -> Result<Tensor> {
    unary_map::<f32, f32>(t, f)
}

// ---------------------------------------------------------------------------------------------
// Binary arithmetic

/// Defines a kernel applying `$ef` to float32 (inlined, vectorized loops) and `$ei` to
/// int32/int64 operands (through a function pointer: integer kernels share one loop per dtype);
/// `$ec`, when given, to complex64 (one shared loop for every complex op, out of the float path).
macro_rules! arith {
    ($fname:ident, |$a:ident, $b:ident| float: $ef:expr, int: $ei:expr $(, complex: $ec:expr)?) => {
        pub(crate) fn $fname(
            _: &NodeAttrs,
            _: &mut KernelContext<'_>,
            inputs: &[Tensor],
        ) -> Outputs {
            let (x, y) = two(inputs, ["x", "y"])?;
            Ok(crate::ops::one_output(match x.dtype() {
                DType::Float32 => binary_map_tiled(x, y, |$a: f32, $b: f32| $ef)?,
                DType::Int32 => binary_map_fn(x, y, |$a: i32, $b: i32| $ei)?,
                DType::Int64 => binary_map_fn(x, y, |$a: i64, $b: i64| $ei)?,
                $(DType::Complex64 => binary_map_fn(x, y, $ec)?,)?
                d => return Err(unsupported(d)),
            }))
        }
    };
}

// Integer arithmetic wraps (two's complement), as TF's C++ kernels do in practice.
arith!(add, |a, b| float: a + b, int: a.wrapping_add(b), complex: complex::add);
arith!(sub, |a, b| float: a - b, int: a.wrapping_sub(b), complex: complex::sub);
arith!(mul, |a, b| float: a * b, int: a.wrapping_mul(b), complex: complex::mul);
arith!(maximum, |a, b| float: max_nan(a, b), int: a.max(b));
arith!(minimum, |a, b| float: min_nan(a, b), int: a.min(b));
arith!(squared_difference, |a, b| float: (a - b) * (a - b),
    int: a.wrapping_sub(b).wrapping_mul(a.wrapping_sub(b)));

/// TF's NaN-propagating max: `q` if it is greater or NaN, else `p` (so a NaN `p` stays, and on a
/// tie `p` wins, as Eigen's `a < b ? b : a`). Maximum elementwise and the running max of the Max
/// reduction. Compare-and-select, which LLVM vectorizes in every version (`f32::max` after a NaN
/// check was a scalar loop, 1.3x slower still in the nightly that builds the shipped .wasm).
#[inline(always)]
pub(crate) fn max_nan(p: f32, q: f32) -> f32 {
    if (q > p) | q.is_nan() {
        q
    } else {
        p
    }
}

/// The min counterpart of [`max_nan`].
#[inline(always)]
pub(crate) fn min_nan(p: f32, q: f32) -> f32 {
    if (q < p) | q.is_nan() {
        q
    } else {
        p
    }
}

fn real_div(_: &NodeAttrs, _: &mut KernelContext<'_>, inputs: &[Tensor]) -> Outputs {
    let (x, y) = two(inputs, ["x", "y"])?;
    Ok(crate::ops::one_output(div_f32(x, y)?))
}

/// Float (and complex) division, shared by RealDiv and Div.
fn div_f32(x: &Tensor, y: &Tensor) -> Result<Tensor> {
    if x.dtype() == DType::Complex64 {
        return binary_map_fn(x, y, complex::div);
    }
    binary_map_tiled(x, y, |a: f32, b: f32| a / b)
}

/// TF's safe integer kernels fail on a zero divisor. When `x` has elements, every element of `y`
/// is used by the broadcast (or the shapes are incompatible), so checking `y` up front is exact.
fn check_divisor(x: &Tensor, y: &Tensor) -> Result<()> {
    check_zero_divisor(x.num_elements() > 0, y)
}

/// InvalidArgument when `check` is set and the integer tensor `y` holds a zero: one scan, through
/// int64, for every integer dtype and op (Div, FloorDiv, FloorMod, TruncateMod).
#[inline(never)]
pub(crate) fn check_zero_divisor(check: bool, y: &Tensor) -> Result<()> {
    if check && matches!(y.dtype(), DType::Int32 | DType::Int64) && y.to_i64_vec()?.contains(&0) {
        return Err(invalid_argument("Integer division by zero"));
    }
    Ok(())
}

/// Kernels for ops with integer failure modes: `$check` runs on int inputs first. Every dtype
/// goes through a function pointer (these ops are rare and, for floats, costly per element).
macro_rules! checked_arith {
    ($fname:ident, $check:ident, |$a:ident, $b:ident| float: $ef:expr, int: $ei:expr) => {
        fn $fname(_: &NodeAttrs, _: &mut KernelContext<'_>, inputs: &[Tensor]) -> Outputs {
            let (x, y) = two(inputs, ["x", "y"])?;
            Ok(crate::ops::one_output(match x.dtype() {
                DType::Float32 => binary_map_fn(x, y, |$a: f32, $b: f32| $ef)?,
                DType::Int32 => {
                    $check(x, y)?;
                    binary_map_fn(x, y, |$a: i32, $b: i32| $ei)?
                }
                DType::Int64 => {
                    $check(x, y)?;
                    binary_map_fn(x, y, |$a: i64, $b: i64| $ei)?
                }
                d => return Err(unsupported(d)),
            }))
        }
    };
}

/// Floor division on integers: truncating division, one less when the signs differ and the
/// division is inexact.
macro_rules! floor_div_int {
    ($a:expr, $b:expr) => {{
        let (a, b) = ($a, $b);
        let q = a.wrapping_div(b);
        if a.wrapping_rem(b) != 0 && ((a < 0) != (b < 0)) {
            q.wrapping_sub(1)
        } else {
            q
        }
    }};
}

/// Modulo with the sign of the divisor (Python semantics), as TF's FloorMod.
macro_rules! floor_mod_int {
    ($a:expr, $b:expr) => {{
        let (a, b) = ($a, $b);
        let r = a.wrapping_rem(b);
        if r != 0 && ((r < 0) != (b < 0)) {
            r.wrapping_add(b)
        } else {
            r
        }
    }};
}

fn floor_mod_f32(a: f32, b: f32) -> f32 {
    let r = a % b;
    if r != 0.0 && ((r < 0.0) != (b < 0.0)) {
        r + b
    } else {
        r
    }
}

/// Integer power by squaring with wrapping; the exponent is non-negative (checked first).
macro_rules! int_pow {
    ($a:expr, $b:expr) => {{
        let (mut base, mut e) = ($a, $b);
        let mut acc = 1;
        while e > 0 {
            if e & 1 == 1 {
                acc = base.wrapping_mul(acc);
            }
            base = base.wrapping_mul(base);
            e >>= 1;
        }
        acc
    }};
}

// `b == 0` cannot reach the integer closures (checked first); the guards keep them panic-free.
fn div(_: &NodeAttrs, _: &mut KernelContext<'_>, inputs: &[Tensor]) -> Outputs {
    let (x, y) = two(inputs, ["x", "y"])?;
    Ok(crate::ops::one_output(match x.dtype() {
        DType::Float32 | DType::Complex64 => div_f32(x, y)?,
        DType::Int32 => {
            check_divisor(x, y)?;
            binary_map_fn(
                x,
                y,
                |a: i32, b: i32| if b == 0 { 0 } else { a.wrapping_div(b) },
            )?
        }
        DType::Int64 => {
            check_divisor(x, y)?;
            binary_map_fn(
                x,
                y,
                |a: i64, b: i64| if b == 0 { 0 } else { a.wrapping_div(b) },
            )?
        }
        d => return Err(unsupported(d)),
    }))
}
checked_arith!(floor_div, check_divisor, |a, b| float: (a / b).floor(),
    int: if b == 0 { 0 } else { floor_div_int!(a, b) });
checked_arith!(floor_mod, check_divisor, |a, b| float: floor_mod_f32(a, b),
    int: if b == 0 { 0 } else { floor_mod_int!(a, b) });
checked_arith!(pow, check_exponent, |a, b| float: a.powf(b), int: int_pow!(a, b));

/// Integer Pow: negative exponents fail (one out-of-line scan through int64 for both dtypes).
#[inline(never)]
fn check_exponent(x: &Tensor, y: &Tensor) -> Result<()> {
    if x.num_elements() > 0 && y.to_i64_vec()?.iter().any(|&v| v < 0) {
        return Err(invalid_argument(
            "Integers to negative integer powers are not allowed",
        ));
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Comparisons and logic

/// Float32 inlined (thresholding scores, masks: vectorized, ~15x faster than a call per element),
/// integers through the shared function-pointer loop.
macro_rules! compare {
    ($fname:ident, $op:tt) => {
        fn $fname(_: &NodeAttrs, _: &mut KernelContext<'_>, inputs: &[Tensor]) -> Outputs {
            let (x, y) = two(inputs, ["x", "y"])?;
            Ok(crate::ops::one_output(match x.dtype() {
                DType::Float32 => binary_map(x, y, |a: f32, b: f32| a $op b)?,
                DType::Int32 => binary_map_fn(x, y, |a: i32, b: i32| a $op b)?,
                DType::Int64 => binary_map_fn(x, y, |a: i64, b: i64| a $op b)?,
                d => return Err(unsupported(d)),
            }))
        }
    };
}

compare!(greater, >);
compare!(greater_equal, >=);
compare!(less, <);
compare!(less_equal, <=);

/// Equal / NotEqual: with `incompatible_shape_error=false`, shapes that do not broadcast give a
/// scalar `!equal` instead of an error (TF's documented behaviour).
fn equality(a: &NodeAttrs, inputs: &[Tensor], equal: bool) -> Outputs {
    let (x, y) = two(inputs, ["x", "y"])?;
    if broadcast_shapes(x.dims(), y.dims()).is_err() && !a.bool("incompatible_shape_error")? {
        return Ok(crate::ops::one_output(Tensor::scalar(!equal)));
    }
    // Float32 inlined like the other comparisons (CenterNet's peak mask is Equal(x, MaxPool(x))).
    let out = match x.dtype() {
        DType::Float32 if equal => binary_map(x, y, |p: f32, q: f32| p == q),
        DType::Float32 => binary_map(x, y, |p: f32, q: f32| p != q),
        _ => crate::with_dtype!(x.dtype(), T, {
            if equal {
                binary_map_fn(x, y, |p: T, q: T| p == q)
            } else {
                binary_map_fn(x, y, |p: T, q: T| p != q)
            }
        }),
    }?;
    Ok(crate::ops::one_output(out))
}

fn equal(a: &NodeAttrs, _: &mut KernelContext<'_>, inputs: &[Tensor]) -> Outputs {
    equality(a, inputs, true)
}

fn not_equal(a: &NodeAttrs, _: &mut KernelContext<'_>, inputs: &[Tensor]) -> Outputs {
    equality(a, inputs, false)
}

fn logical_and(_: &NodeAttrs, _: &mut KernelContext<'_>, inputs: &[Tensor]) -> Outputs {
    let (x, y) = two(inputs, ["x", "y"])?;
    Ok(crate::ops::one_output(binary_map_fn(
        x,
        y,
        |a: bool, b: bool| a && b,
    )?))
}

fn logical_or(_: &NodeAttrs, _: &mut KernelContext<'_>, inputs: &[Tensor]) -> Outputs {
    let (x, y) = two(inputs, ["x", "y"])?;
    Ok(crate::ops::one_output(binary_map_fn(
        x,
        y,
        |a: bool, b: bool| a || b,
    )?))
}

fn logical_not(_: &NodeAttrs, _: &mut KernelContext<'_>, inputs: &[Tensor]) -> Outputs {
    Ok(crate::ops::one_output(unary_map_fn(
        input(inputs, 0, "x")?,
        |a: bool| !a,
    )?))
}

// ---------------------------------------------------------------------------------------------
// Select

fn select_inputs(inputs: &[Tensor]) -> Result<(&Tensor, &Tensor, &Tensor)> {
    Ok((
        input(inputs, 0, "condition")?,
        input(inputs, 1, "t")?,
        input(inputs, 2, "e")?,
    ))
}

/// TF v1 Select: `t` and `e` have one shape; `condition` is a scalar, has that shape too, or is a
/// vector selecting whole rows along the first dimension.
fn select(_: &NodeAttrs, _: &mut KernelContext<'_>, inputs: &[Tensor]) -> Outputs {
    let (c, t, e) = select_inputs(inputs)?;
    if t.dims() != e.dims() {
        return Err(invalid_argument(format!(
            "'then' and 'else' must have the same size. but received: {} vs. {}",
            t.shape(),
            e.shape()
        )));
    }
    let cond = c.as_slice::<bool>()?;
    if c.rank() == 0 {
        return Ok(crate::ops::one_output(
            if cond.first().copied().unwrap_or(false) {
                t.clone()
            } else {
                e.clone()
            },
        ));
    }
    let out = if c.rank() == 1 && t.rank() != 1 {
        if t.rank() == 0 {
            return Err(invalid_argument(format!(
                "'then' must be at least a vector, but saw shape: {}",
                t.shape()
            )));
        }
        if cond.len() != t.dims()[0] {
            return Err(invalid_argument(format!(
                "Number of batches of 'then' must match size of 'cond', but saw: {} vs. {}",
                t.dims()[0],
                cond.len()
            )));
        }
        let row = if cond.is_empty() {
            0
        } else {
            t.num_elements() / cond.len()
        };
        assemble(&[t, e], t.dtype(), t.shape().clone(), &mut |emit| {
            for (i, &k) in cond.iter().enumerate() {
                emit(usize::from(!k), i * row, row, 1);
            }
        })?
    } else {
        if c.dims() != t.dims() {
            return Err(invalid_argument(format!(
                "'condition' and 'then' must have the same size. but received: {} vs. {}",
                c.shape(),
                t.shape()
            )));
        }
        select_runs(&[t, e], cond, t.shape().clone())?
    };
    Ok(crate::ops::one_output(out))
}

/// Elementwise select between two same-shaped sources, copied as runs of equal condition.
fn select_runs(sources: &[&Tensor; 2], cond: &[bool], shape: Shape) -> Result<Tensor> {
    assemble(sources, sources[0].dtype(), shape, &mut |emit| {
        let mut i = 0;
        while i < cond.len() {
            let k = cond[i];
            let run = cond[i..].iter().take_while(|&&c| c == k).count();
            emit(usize::from(!k), i, run, 1);
            i += run;
        }
    })
}

/// SelectV2: condition, t and e broadcast against one another.
fn select_v2(_: &NodeAttrs, _: &mut KernelContext<'_>, inputs: &[Tensor]) -> Outputs {
    let (c, t, e) = select_inputs(inputs)?;
    let dims = broadcast_shapes(c.dims(), &broadcast_shapes(t.dims(), e.dims())?)?;
    let shape = Shape::new(dims)?;
    let cond = c.as_slice::<bool>()?;
    if c.dims() == shape.dims() && t.dims() == shape.dims() && e.dims() == shape.dims() {
        return Ok(crate::ops::one_output(select_runs(&[t, e], cond, shape)?));
    }
    let n = shape.num_elements();
    let d = shape.dims().to_vec();
    let out = assemble(&[t, e], t.dtype(), shape, &mut |emit| {
        if n == 0 {
            return;
        }
        let (sc, st, se) = (
            super::broadcast::stretched_strides(c.dims(), &d),
            super::broadcast::stretched_strides(t.dims(), &d),
            super::broadcast::stretched_strides(e.dims(), &d),
        );
        let mut idx = vec![0usize; d.len()];
        let (mut ic, mut it, mut ie) = (0usize, 0usize, 0usize);
        for _ in 0..n {
            // Offsets stay within each input: every index is below its (stretched) dim.
            if cond.get(ic).copied().unwrap_or(false) {
                emit(0, it, 1, 1);
            } else {
                emit(1, ie, 1, 1);
            }
            for ax in (0..d.len()).rev() {
                idx[ax] += 1;
                ic += sc[ax];
                it += st[ax];
                ie += se[ax];
                if idx[ax] < d[ax] {
                    break;
                }
                ic -= sc[ax] * d[ax];
                it -= st[ax] * d[ax];
                ie -= se[ax] * d[ax];
                idx[ax] = 0;
            }
        }
    })?;
    Ok(crate::ops::one_output(out))
}

// ---------------------------------------------------------------------------------------------
// AddN

fn add_n(_: &NodeAttrs, _: &mut KernelContext<'_>, inputs: &[Tensor]) -> Outputs {
    let first = input(inputs, 0, "inputs")?;
    for (i, t) in inputs.iter().enumerate().skip(1) {
        if t.dims() != first.dims() {
            return Err(invalid_argument(format!(
                "Inputs to operation AddN must have the same size and shape. Input 0: {} != input {i}: {}",
                first.shape(),
                t.shape()
            )));
        }
    }
    fn sum<T: Element>(inputs: &[Tensor], add: impl Fn(T, T) -> T) -> Result<Tensor> {
        let first = &inputs[0];
        let mut out = try_with_capacity::<T>(first.num_elements())?;
        out.extend_from_slice(first.as_slice::<T>()?);
        for t in &inputs[1..] {
            for (o, &v) in out.iter_mut().zip(t.as_slice::<T>()?) {
                *o = add(*o, v);
            }
        }
        Tensor::from_vec(first.shape().clone(), out)
    }
    Ok(crate::ops::one_output(match first.dtype() {
        DType::Float32 => sum(inputs, |a: f32, b| a + b)?,
        DType::Int32 => sum(inputs, |a: i32, b| a.wrapping_add(b))?,
        DType::Int64 => sum(inputs, |a: i64, b| a.wrapping_add(b))?,
        DType::Complex64 => sum(inputs, complex::add)?,
        d => return Err(unsupported(d)),
    }))
}

// ---------------------------------------------------------------------------------------------
// Unary

/// A float-only unary kernel: `fast` ones get their own inlined loop, the others (calls into
/// libm, slow per element anyway) share one loop through a function pointer.
macro_rules! unary_float {
    ($fname:ident, |$a:ident| $e:expr) => {
        fn $fname(_: &NodeAttrs, _: &mut KernelContext<'_>, inputs: &[Tensor]) -> Outputs {
            Ok(crate::ops::one_output(unary_map_fn(
                input(inputs, 0, "x")?,
                |$a: f32| $e,
            )?))
        }
    };
    (fast $fname:ident, |$a:ident| $e:expr) => {
        fn $fname(_: &NodeAttrs, _: &mut KernelContext<'_>, inputs: &[Tensor]) -> Outputs {
            Ok(crate::ops::one_output(unary_f32(
                input(inputs, 0, "x")?,
                |$a: f32| $e,
            )?))
        }
    };
}

unary_float!(fast rsqrt, |a| 1.0 / a.sqrt());
unary_float!(fast sqrt, |a| a.sqrt());
unary_float!(fast exp, |a| crate::kernels::vmath::exp(a));
unary_float!(log, |a| a.ln());
unary_float!(log1p, |a| a.ln_1p());
unary_float!(sin, |a| a.sin());
unary_float!(cos, |a| a.cos());
unary_float!(erf, |a| erf_f32(a));
unary_float!(fast reciprocal, |a| 1.0 / a);
unary_float!(fast floor, |a| a.floor());
unary_float!(fast ceil, |a| a.ceil());

/// A unary kernel over float32 (`$ef`), int32/int64 (`$ei`) and, when given, complex64 (`$ec`).
macro_rules! unary_numeric {
    ($fname:ident, |$a:ident| float: $ef:expr, int: $ei:expr $(, complex: $ec:expr)?) => {
        fn $fname(_: &NodeAttrs, _: &mut KernelContext<'_>, inputs: &[Tensor]) -> Outputs {
            let x = input(inputs, 0, "x")?;
            Ok(crate::ops::one_output(match x.dtype() {
                DType::Float32 => unary_map(x, |$a: f32| $ef)?,
                DType::Int32 => unary_map_fn(x, |$a: i32| $ei)?,
                DType::Int64 => unary_map_fn(x, |$a: i64| $ei)?,
                $(DType::Complex64 => unary_map_fn(x, $ec)?,)?
                d => return Err(unsupported(d)),
            }))
        }
    };
}

unary_numeric!(round, |a| float: a.round_ties_even(), int: a);
unary_numeric!(neg, |a| float: -a, int: a.wrapping_neg(), complex: complex::neg);
unary_numeric!(abs, |a| float: a.abs(), int: a.wrapping_abs());
unary_numeric!(square, |a| float: a * a, int: a.wrapping_mul(a), complex: |a| complex::mul(a, a));
unary_numeric!(sign, |a| float: sign_f32(a), int: a.signum());

/// -1, 0 or 1; NaN stays NaN.
fn sign_f32(a: f32) -> f32 {
    if a > 0.0 {
        1.0
    } else if a < 0.0 {
        -1.0
    } else {
        a // 0.0, -0.0 or NaN
    }
}

/// erf in f64: the Maclaurin series below 4 (terms shrink past n ~ x^2; f64 absorbs the
/// cancellation), and ±1 beyond, where erfc(4) ~ 1.5e-8 is below float32 resolution at 1.
pub fn erf_f32(x: f32) -> f32 {
    if x.is_nan() {
        return x;
    }
    let xd = x as f64;
    if xd.abs() >= 4.0 {
        return xd.signum() as f32;
    }
    let x2 = xd * xd;
    // sum_n (-1)^n x^(2n+1) / (n! (2n+1))
    let mut term = xd; // (-1)^n x^(2n+1) / n!
    let mut sum = xd;
    let mut n = 0.0f64;
    loop {
        n += 1.0;
        term *= -x2 / n;
        let add = term / (2.0 * n + 1.0);
        sum += add;
        if add.abs() < 1e-17 * sum.abs().max(1e-300) || n > 200.0 {
            break;
        }
    }
    (sum * std::f64::consts::FRAC_2_SQRT_PI) as f32
}

fn zeros_like(_: &NodeAttrs, _: &mut KernelContext<'_>, inputs: &[Tensor]) -> Outputs {
    let x = input(inputs, 0, "x")?;
    Ok(crate::ops::one_output(Tensor::zeros(
        x.dtype(),
        x.shape().clone(),
    )?))
}

fn ones_like(_: &NodeAttrs, _: &mut KernelContext<'_>, inputs: &[Tensor]) -> Outputs {
    let x = input(inputs, 0, "x")?;
    let one = crate::with_dtype!(x.dtype(), T, { Ok(Tensor::scalar(<T as Scalar>::ONE)) })?;
    let n = x.num_elements();
    let out = assemble(&[&one], x.dtype(), x.shape().clone(), &mut |emit| {
        emit(0, 0, n, 0)
    })?;
    Ok(crate::ops::one_output(out))
}

// ---------------------------------------------------------------------------------------------
// Cast

/// Conversions between the storable dtypes, as TF's Cast: float to int truncates toward zero,
/// to bool is `!= 0`, bool to number is 0/1.
trait Scalar: Element {
    const ONE: Self;
    fn to_f32(self) -> f32;
    fn to_i32(self) -> i32;
    fn to_i64(self) -> i64;
    fn to_bool(self) -> bool;
    /// Wraps modulo 256 like a C++ integer conversion (floats through int32, as on x86).
    fn to_u8(self) -> u8;
}

macro_rules! scalar_num {
    ($t:ty, $one:expr, $wide:ty) => {
        impl Scalar for $t {
            const ONE: Self = $one;
            fn to_f32(self) -> f32 {
                self as f32
            }
            fn to_i32(self) -> i32 {
                self as i32
            }
            fn to_i64(self) -> i64 {
                self as i64
            }
            #[allow(clippy::float_cmp)]
            fn to_bool(self) -> bool {
                self != (0 as $t)
            }
            fn to_u8(self) -> u8 {
                self as $wide as u8
            }
        }
    };
}
scalar_num!(f32, 1.0, i32);
scalar_num!(i32, 1, i32);
scalar_num!(i64, 1, i64);
scalar_num!(u8, 1, u8);

impl Scalar for bool {
    const ONE: Self = true;
    fn to_f32(self) -> f32 {
        self as u8 as f32
    }
    fn to_i32(self) -> i32 {
        self as i32
    }
    fn to_i64(self) -> i64 {
        self as i64
    }
    fn to_bool(self) -> bool {
        self
    }
    fn to_u8(self) -> u8 {
        self as u8
    }
}

/// complex64 as a Cast source keeps the real part, as TF's (and numpy's) cast does; only `ONE` and
/// the float32 conversion are used (the others go through float32).
impl Scalar for C64 {
    const ONE: Self = C64::new(1.0, 0.0);
    fn to_f32(self) -> f32 {
        self.re
    }
    fn to_i32(self) -> i32 {
        self.re.to_i32()
    }
    fn to_i64(self) -> i64 {
        self.re.to_i64()
    }
    fn to_bool(self) -> bool {
        self.re.to_bool()
    }
    fn to_u8(self) -> u8 {
        self.re.to_u8()
    }
}

/// A real value as complex64 (imaginary part 0); int64 through float32 as TF's cast.
fn to_c64<S: Scalar>(v: S) -> C64 {
    C64::new(v.to_f32(), 0.0)
}

/// `t` converted to `dst`; the same tensor (aliased) when it already has that dtype.
pub fn cast_tensor(t: &Tensor, dst: DType) -> Result<Tensor> {
    if t.dtype() == dst {
        return Ok(t.clone());
    }
    // The common conversions inline their loop (so it vectorizes); the rest share one loop per
    // type pair through a function pointer.
    match (t.dtype(), dst) {
        (DType::Int32, DType::Float32) => return unary_map(t, |v: i32| v as f32),
        (DType::Float32, DType::Int32) => return unary_map(t, |v: f32| v as i32),
        (DType::Bool, DType::Float32) => return unary_map(t, |v: bool| v as u8 as f32),
        _ => {}
    }
    // The rest: float32 and int64 sources convert directly; the narrow integer sources (int32,
    // uint8, bool) go through int64 (exact: every such value is an int64, and the conversions
    // from int64 agree with theirs), so only those two sources instantiate a loop per target.
    match t.dtype() {
        DType::Float32 => cast_from::<f32>(t, dst),
        DType::Int64 => cast_from::<i64>(t, dst),
        DType::UInt8 if dst == DType::Float32 => unary_map_fn(t, u8::to_f32),
        // The real part, then float32's conversion to the target.
        DType::Complex64 => cast_tensor(&unary_map_fn(t, C64::to_f32)?, dst),
        DType::Int32 => cast_tensor(&unary_map_fn(t, i32::to_i64)?, dst),
        DType::UInt8 => cast_tensor(&unary_map_fn(t, u8::to_i64)?, dst),
        DType::Bool => cast_tensor(&unary_map_fn(t, bool::to_i64)?, dst),
        DType::Resource => Err(invalid_argument("this op does not accept resource tensors")),
        DType::String => Err(unimplemented_cast(DType::String, dst)),
    }
}

/// TF has no Cast to or from string (AsString / StringToNumber do that): Unimplemented as TF.
#[cold]
fn unimplemented_cast(src: DType, dst: DType) -> crate::status::Status {
    crate::status::unimplemented(format!("Cast {src} to {dst} is not supported"))
}

/// A float32 or int64 tensor `t` (element type `S`) converted to `dst`.
fn cast_from<S: Scalar>(t: &Tensor, dst: DType) -> Result<Tensor> {
    match dst {
        DType::Float32 => unary_map_fn(t, S::to_f32),
        DType::Int32 => unary_map_fn(t, S::to_i32),
        DType::Int64 => unary_map_fn(t, S::to_i64),
        DType::Bool => unary_map_fn(t, S::to_bool),
        DType::UInt8 => unary_map_fn(t, S::to_u8),
        DType::Complex64 => unary_map_fn(t, to_c64::<S>),
        DType::Resource => Err(invalid_argument("cannot cast to a resource")),
        DType::String => Err(unimplemented_cast(S::DTYPE, dst)),
    }
}

fn cast(a: &NodeAttrs, _: &mut KernelContext<'_>, inputs: &[Tensor]) -> Outputs {
    let x = input(inputs, 0, "x")?;
    Ok(crate::ops::one_output(cast_tensor(x, a.dtype("DstT")?)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn erf_matches_reference_values() {
        for (x, want) in [
            (0.0f32, 0.0f32),
            (0.5, 0.520_499_9),
            (1.0, 0.842_700_8),
            (-2.0, -0.995_322_3),
            (3.5, 0.999_999_3),
            (10.0, 1.0),
        ] {
            assert!((erf_f32(x) - want).abs() < 1e-6, "erf({x})");
        }
    }

    #[test]
    fn integer_floor_ops_follow_python() {
        assert_eq!(floor_div_int!(7i32, -2i32), -4);
        assert_eq!(floor_div_int!(-7i32, 2i32), -4);
        assert_eq!(floor_div_int!(6i32, -2i32), -3);
        assert_eq!(floor_mod_int!(7i32, -2i32), -1);
        assert_eq!(floor_mod_int!(-7i64, 2i64), 1);
        assert_eq!(floor_mod_f32(-7.0, 2.0), 1.0);
        assert_eq!(int_pow!(3i64, 4i64), 81);
        assert_eq!(floor_div_int!(i32::MIN, -1i32), i32::MIN);
    }
}

#[cfg(test)]
mod op_tests {
    use crate::ops::AttrValue;
    use crate::tensor::{DType, Tensor};
    use crate::EagerContext;

    fn run(op: &str, inputs: &[Tensor], attrs: Vec<(&str, AttrValue)>) -> crate::Result<Tensor> {
        let mut ctx = EagerContext::default();
        Ok(ctx.execute(op, inputs, attrs)?.remove(0))
    }

    fn t<T: crate::tensor::Element>(dims: &[usize], v: &[T]) -> Tensor {
        Tensor::from_slice(dims, v).unwrap()
    }

    /// Maximum/Minimum propagate NaN from either operand as TF does, through the vectorized loop
    /// (37 elements: full SIMD chunks and a tail) and the broadcast path, with the NaN at every
    /// position in turn.
    #[test]
    fn maximum_minimum_propagate_nan_from_either_side() {
        let n = 37;
        let a: Vec<f32> = (0..n).map(|i| (i as f32 * 0.7).sin()).collect();
        let b: Vec<f32> = (0..n).map(|i| (i as f32 * 1.3).cos()).collect();
        for (op, f) in [
            ("Maximum", f32::max as fn(f32, f32) -> f32),
            ("Minimum", f32::min),
        ] {
            for at in 0..n {
                for nan_in_a in [true, false] {
                    let (mut x, mut y) = (a.clone(), b.clone());
                    if nan_in_a {
                        x[at] = f32::NAN
                    } else {
                        y[at] = f32::NAN
                    }
                    let out = run(op, &[t(&[n], &x), t(&[n], &y)], vec![]).unwrap();
                    for (i, &v) in out.as_slice::<f32>().unwrap().iter().enumerate() {
                        if i == at {
                            assert!(v.is_nan(), "{op}: NaN at {at} lost");
                        } else {
                            assert_eq!(v, f(x[i], y[i]), "{op} at {i}");
                        }
                    }
                }
            }
            let scalar_nan = run(op, &[t(&[n], &a), t(&[], &[f32::NAN])], vec![]).unwrap();
            assert!(
                scalar_nan
                    .as_slice::<f32>()
                    .unwrap()
                    .iter()
                    .all(|v| v.is_nan()),
                "{op}"
            );
            let inf = run(
                op,
                &[
                    t(&[2], &[f32::INFINITY, -0.5]),
                    t(&[2], &[1.0f32, f32::NEG_INFINITY]),
                ],
                vec![],
            )
            .unwrap();
            assert_eq!(
                inf.as_slice::<f32>().unwrap(),
                &[f(f32::INFINITY, 1.0), f(-0.5, f32::NEG_INFINITY)]
            );
        }
    }

    #[test]
    fn integer_division_family() {
        let x = t(&[4], &[7i32, -7, 7, -7]);
        let y = t(&[4], &[2i32, 2, -2, -2]);
        let div = run("Div", &[x.clone(), y.clone()], vec![]).unwrap();
        assert_eq!(div.as_slice::<i32>().unwrap(), &[3, -3, -3, 3]);
        let fd = run("FloorDiv", &[x.clone(), y.clone()], vec![]).unwrap();
        assert_eq!(fd.as_slice::<i32>().unwrap(), &[3, -4, -4, 3]);
        let fm = run("FloorMod", &[x.clone(), y], vec![]).unwrap();
        assert_eq!(fm.as_slice::<i32>().unwrap(), &[1, 1, -1, -1]);
        let zero = t(&[1], &[0i32]);
        let e = run("FloorDiv", &[x.clone(), zero.clone()], vec![]).unwrap_err();
        assert_eq!(e.code, crate::Code::InvalidArgument);
        // No element is divided, so no error (as TF).
        let empty = t::<i32>(&[0], &[]);
        assert!(run("Div", &[empty, zero], vec![]).is_ok());
        let neg = t(&[1], &[-1i32]);
        assert!(run("Pow", &[x, neg], vec![]).is_err());
        let fm = run(
            "FloorMod",
            &[t(&[2], &[-7.5f32, 7.5]), Tensor::scalar(2f32)],
            vec![],
        );
        assert_eq!(fm.unwrap().f32s().unwrap(), &[0.5, 1.5]);
    }

    #[test]
    fn logical_and_add_n() {
        let a = t(&[2, 2], &[true, false, true, false]);
        let b = t(&[2], &[true, true]);
        let and = run("LogicalAnd", &[a.clone(), b.clone()], vec![]).unwrap();
        assert_eq!(and.as_slice::<bool>().unwrap(), &[true, false, true, false]);
        let or = run("LogicalOr", &[a.clone(), b], vec![]).unwrap();
        assert_eq!(or.as_slice::<bool>().unwrap(), &[true; 4]);
        let not = run("LogicalNot", &[a], vec![]).unwrap();
        assert_eq!(not.as_slice::<bool>().unwrap(), &[false, true, false, true]);
        let x = t(&[2], &[1f32, 2.]);
        let s = run("AddN", &[x.clone(), x.clone(), x.clone()], vec![]).unwrap();
        assert_eq!(s.f32s().unwrap(), &[3., 6.]);
        assert!(run("AddN", &[x, t(&[1], &[1f32])], vec![]).is_err());
    }

    #[test]
    fn unary_rounding_and_signs() {
        let x = t(&[7], &[-2.5f32, -1.5, -0.5, 0.5, 1.5, 2.5, f32::NAN]);
        let r = run("Round", std::slice::from_ref(&x), vec![]).unwrap();
        assert_eq!(&r.f32s().unwrap()[..6], &[-2., -2., -0., 0., 2., 2.]);
        let s = run("Sign", std::slice::from_ref(&x), vec![]).unwrap();
        assert_eq!(&s.f32s().unwrap()[..6], &[-1., -1., -1., 1., 1., 1.]);
        let f = run("Floor", std::slice::from_ref(&x), vec![]).unwrap();
        assert_eq!(&f.f32s().unwrap()[..3], &[-3., -2., -1.]);
        let c = run("Ceil", &[x], vec![]).unwrap();
        assert_eq!(&c.f32s().unwrap()[..3], &[-2., -1., -0.]);
        let o = run("OnesLike", &[t(&[2], &[5i64, 6])], vec![]).unwrap();
        assert_eq!(o.as_slice::<i64>().unwrap(), &[1, 1]);
        let z = run("ZerosLike", &[t(&[1], &[true])], vec![]).unwrap();
        assert_eq!(z.as_slice::<bool>().unwrap(), &[false]);
    }

    #[test]
    fn cast_truncates_and_maps_bools() {
        let x = t(&[4], &[-1.7f32, 1.7, 0.0, 3e9]);
        let dst = |d: DType| vec![("DstT", AttrValue::Type(d))];
        let i = run("Cast", std::slice::from_ref(&x), dst(DType::Int32)).unwrap();
        assert_eq!(&i.as_slice::<i32>().unwrap()[..3], &[-1, 1, 0]);
        let b = run("Cast", &[x], dst(DType::Bool)).unwrap();
        assert_eq!(b.as_slice::<bool>().unwrap(), &[true, true, false, true]);
        let f = run("Cast", &[t(&[2], &[true, false])], dst(DType::Float32)).unwrap();
        assert_eq!(f.f32s().unwrap(), &[1., 0.]);
    }

    #[test]
    fn select_variants() {
        let c = t(&[2], &[true, false]);
        let x = t(&[2, 2], &[1f32, 2., 3., 4.]);
        let y = t(&[2, 2], &[5f32, 6., 7., 8.]);
        let s = run("Select", &[c.clone(), x.clone(), y.clone()], vec![]).unwrap();
        assert_eq!(s.f32s().unwrap(), &[1., 2., 7., 8.]);
        // SelectV2 broadcasts the vector along the last dim instead.
        let s = run("SelectV2", &[c, x.clone(), Tensor::scalar(0f32)], vec![]).unwrap();
        assert_eq!(s.f32s().unwrap(), &[1., 0., 3., 0.]);
        let bad = t(&[3], &[true, false, true]);
        assert!(run("Select", &[bad.clone(), x.clone(), y], vec![]).is_err());
        assert!(run("SelectV2", &[bad, x, Tensor::scalar(0f32)], vec![]).is_err());
    }

    #[test]
    fn equal_with_incompatible_shapes() {
        let a = t(&[2], &[1i32, 2]);
        let b = t(&[3], &[1i32, 2, 3]);
        assert!(run("Equal", &[a.clone(), b.clone()], vec![]).is_err());
        let off = vec![("incompatible_shape_error", AttrValue::Bool(false))];
        let e = run("NotEqual", &[a, b], off).unwrap();
        assert_eq!(e.rank(), 0);
        assert_eq!(e.as_slice::<bool>().unwrap(), &[true]);
    }

    #[test]
    fn reductions_through_the_registry() {
        let x = t(&[2, 3], &[true, false, true, true, true, true]);
        let all = run("All", &[x.clone(), Tensor::scalar(1i32)], vec![]).unwrap();
        assert_eq!(all.as_slice::<bool>().unwrap(), &[false, true]);
        let any = run("Any", &[x, t::<i32>(&[2], &[0, 1])], vec![]).unwrap();
        assert_eq!(any.as_slice::<bool>().unwrap(), &[true]);
        let y = t(&[2, 3], &[3f32, 1., 2., 0., 5., -1.]);
        let m = run("ArgMin", &[y.clone(), Tensor::scalar(-1i64)], vec![]).unwrap();
        assert_eq!(m.as_slice::<i64>().unwrap(), &[1, 2]);
        let dup = t(&[2], &[1i32, -1]);
        assert!(run("Sum", &[y.clone(), dup], vec![]).is_err());
        let e = t::<f32>(&[2, 0], &[]);
        let mx = run("Max", &[e.clone(), Tensor::scalar(1i32)], vec![]).unwrap();
        assert_eq!(mx.f32s().unwrap(), &[f32::NEG_INFINITY; 2]);
        let mean = run("Mean", &[e.clone(), Tensor::scalar(1i32)], vec![]).unwrap();
        assert!(mean.f32s().unwrap().iter().all(|v| v.is_nan()));
        assert!(run("ArgMax", &[e, Tensor::scalar(1i32)], vec![]).is_err());
        let keep = vec![("keep_dims", AttrValue::Bool(true))];
        let s = run("Sum", &[y, t::<i32>(&[0], &[])], keep).unwrap();
        assert_eq!(s.dims(), &[2, 3]);
    }
}
