//! complex64 element arithmetic: the scalar functions the generic elementwise kernels (math.rs)
//! and the complex ops (complex.rs) run on complex64 through function pointers.

use crate::tensor::C64;

pub(crate) fn add(a: C64, b: C64) -> C64 {
    C64::new(a.re + b.re, a.im + b.im)
}

pub(crate) fn sub(a: C64, b: C64) -> C64 {
    C64::new(a.re - b.re, a.im - b.im)
}

pub(crate) fn mul(a: C64, b: C64) -> C64 {
    C64::new(a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re)
}

pub(crate) fn neg(a: C64) -> C64 {
    C64::new(-a.re, -a.im)
}

/// `a / b` in double precision (no overflow or underflow in |b|^2 for any float32 `b`), rounded
/// once; a NaN+NaNi result is mended as C99 Annex G says (libgcc's `__divsc3`, what TF's
/// scalar path gives): a zero divisor gives a signed infinity, an infinite operand infinities or
/// zeros.
pub(crate) fn div(a: C64, b: C64) -> C64 {
    let (p, q) = (f64::from(a.re), f64::from(a.im));
    let (mut c, mut d) = (f64::from(b.re), f64::from(b.im));
    let den = c * c + d * d;
    let (mut x, mut y) = ((p * c + q * d) / den, (q * c - p * d) / den);
    if x.is_nan() && y.is_nan() {
        let finite = |u: f64, v: f64| u.is_finite() && v.is_finite();
        let unit = |u: f64| (if u.is_infinite() { 1.0f64 } else { 0.0 }).copysign(u);
        if den == 0.0 && (!p.is_nan() || !q.is_nan()) {
            let inf = f64::INFINITY.copysign(c);
            (x, y) = (inf * p, inf * q);
        } else if (p.is_infinite() || q.is_infinite()) && finite(c, d) {
            let (p, q) = (unit(p), unit(q));
            (x, y) = (
                f64::INFINITY * (p * c + q * d),
                f64::INFINITY * (q * c - p * d),
            );
        } else if (c.is_infinite() || d.is_infinite()) && finite(p, q) {
            (c, d) = (unit(c), unit(d));
            (x, y) = (0.0 * (p * c + q * d), 0.0 * (q * c - p * d));
        }
    }
    C64::new(x as f32, y as f32)
}

/// |a| (TF's `std::abs`, a hypot): in f64, where no float32's square overflows or underflows
/// (and `sqrt` is one instruction, not libm's hypot).
pub(crate) fn abs(a: C64) -> f32 {
    let (re, im) = (f64::from(a.re), f64::from(a.im));
    (re * re + im * im).sqrt() as f32
}
