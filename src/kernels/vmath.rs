//! exp, tanh and sigmoid for f32 in branch-free arithmetic (multiplies, adds, rounding, integer
//! bit tricks and selects), so that loops over slices auto-vectorize: SIMD128 in wasm, SSE/AVX
//! natively. libm's versions are scalar calls with branches, ~50x slower per element; these are
//! what Exp, Sigmoid, Tanh, Softmax and the fused activations run on.
//!
//! Accuracy: exp within 2 ulp of the correctly rounded result over its whole range (tested against
//! f64 below), tanh and sigmoid within a few ulp; the tests against TF's own outputs hold them to
//! the same tolerance as everything else.

/// Inputs are clamped to [EXP_LO, EXP_HI], chosen so that the scaling itself gives the right
/// answer outside the finite range, with no compare-and-select per element: at EXP_LO (n = -151)
/// every result rounds to 0, as e^x does below -103.97; at EXP_HI (n = 128) every result is +inf,
/// as e^x is above ln(f32::MAX) = 88.72. NaN passes the clamp and the arithmetic as NaN.
const EXP_LO: f32 = -104.5;
const EXP_HI: f32 = 89.0;

/// exp(x): x = n ln2 + r with |r| <= ln2 / 2 (ln2 split in a part exact in f32 and a small
/// correction), e^r by its degree-6 minimax polynomial (Cephes' expf coefficients), times 2^n
/// built in the exponent bits, in two halves so that denormal results come out right.
#[inline(always)]
pub fn exp(x: f32) -> f32 {
    let (er, n) = exp_reduced(x.clamp(EXP_LO, EXP_HI));
    // 2^n as 2^(n/2) * 2^(n - n/2): each factor stays a normal f32 for n in [-151, 128].
    let h = n >> 1;
    let s1 = f32::from_bits(((h + 127) as u32) << 23);
    let s2 = f32::from_bits(((n - h + 127) as u32) << 23);
    er * s1 * s2
}

/// exp(x) for x <= 0 (or NaN), bit for bit: what softmax (x - max), sigmoid (-|x|) and tanh
/// (-2|x|) need, in fewer operations. n is in [-151, 0] here, so 2^(n + 25) is always a normal f32
/// and one multiply by 2^-25 scales it down with a single rounding (into a denormal where the
/// result is one), as exp's two halves do. A positive x gives some other value (no panic):
/// softmax only passes one for a row holding a NaN, whose outputs are all NaN anyway.
#[inline(always)]
pub fn exp_nonpositive(x: f32) -> f32 {
    // The lower clamp alone; a NaN fails the compare and passes through.
    let (er, n) = exp_reduced(if x < EXP_LO { EXP_LO } else { x });
    let s = f32::from_bits(((n + 25 + 127) as u32) << 23);
    er * s * f32::from_bits((127 - 25) << 23)
}

/// e^r and n, with xc = n ln2 + r: the range reduction and polynomial of [`exp`], for xc already
/// clamped to [EXP_LO, EXP_HI].
#[inline(always)]
fn exp_reduced(xc: f32) -> (f32, i32) {
    const LOG2E: f32 = core::f32::consts::LOG2_E;
    const LN2_HI: f32 = 0.693_359_4;
    const LN2_LO: f32 = -2.121_944_4e-4;
    // Adding 1.5 * 2^23 rounds to an integer (ties to even) in the low mantissa bits: a plain
    // add, where `round()` is a libm call in wasm and on baseline x86-64, which stops vectorizing.
    const SHIFTER: f32 = 12_582_912.0;
    let t = xc * LOG2E + SHIFTER;
    let n = t - SHIFTER;
    let r = xc - n * LN2_HI - n * LN2_LO;
    let p = 1.987_569_1e-4;
    let p = p * r + 1.398_199_9e-3;
    let p = p * r + 8.333_452e-3;
    let p = p * r + 4.166_579_6e-2;
    let p = p * r + 1.666_666_5e-1;
    let p = p * r + 0.5;
    let er = p * r * r + r + 1.0;
    (er, t.to_bits() as i32 - SHIFTER.to_bits() as i32)
}

/// tanh(x): its Taylor series near 0 (where 1 - e^-2|x| would cancel), else
/// (1 - e^-2|x|) / (1 + e^-2|x|) with the sign of x restored; ±1 from |x| > 9 on by rounding.
#[inline(always)]
pub fn tanh(x: f32) -> f32 {
    let a = x.abs();
    let t = exp_nonpositive(-2.0 * a);
    let big = (1.0 - t) / (1.0 + t);
    let x2 = x * x;
    // The series to x^11: below |x| = 0.25 the next term is under 3e-10 relative.
    let p = -1382.0 / 155_925.0;
    let p = p * x2 + 62.0 / 2835.0;
    let p = p * x2 - 17.0 / 315.0;
    let p = p * x2 + 2.0 / 15.0;
    let p = p * x2 - 1.0 / 3.0;
    let small = x * (1.0 + x2 * p);
    if a < 0.25 {
        small
    } else {
        big.copysign(x)
    }
}

/// 1 / (1 + e^-x), accurate in relative terms on both tails: exp only of -|x|, and for x < 0
/// e^x / (1 + e^x).
#[inline(always)]
pub fn sigmoid(x: f32) -> f32 {
    let e = exp_nonpositive(-x.abs());
    let s = 1.0 / (1.0 + e);
    if x >= 0.0 {
        s
    } else {
        e * s
    }
}

/// `f` over `src` appended to `dst` (which has room for it), sixteen elements per step. The step's
/// fixed-size array becomes four interleaved SIMD vectors sharing one set of the polynomial's
/// constants: 1.5x faster for sigmoid in V8 than one vector per step, as the plain loop
/// vectorizes. (Mapping in place, the same code measured no faster than the plain loop.)
#[inline(always)]
pub fn map_into(src: &[f32], dst: &mut Vec<f32>, f: impl Fn(f32) -> f32) {
    let mut chunks = src.chunks_exact(16);
    for c in &mut chunks {
        if let Ok(c) = <&[f32; 16]>::try_from(c) {
            dst.extend_from_slice(&c.map(&f));
        }
    }
    dst.extend(chunks.remainder().iter().map(|&x| f(x)));
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Distance in units in the last place between `got` and the f64 reference rounded to f32.
    fn ulps(got: f32, want: f64) -> u32 {
        let w = want as f32;
        if got == w || (got.is_nan() && w.is_nan()) {
            return 0;
        }
        let key = |v: f32| {
            let b = v.to_bits() as i64;
            if b < 0x8000_0000 {
                b
            } else {
                0x8000_0000 - b
            }
        };
        (key(got) - key(w)).unsigned_abs().min(u32::MAX as u64) as u32
    }

    /// The largest ulp distance of `f` from `reference` (in f64) over every 97th f32 bit pattern
    /// in [lo, hi], and where it occurs (~40 M values at most).
    fn worst_ulps(
        lo: f32,
        hi: f32,
        f: impl Fn(f32) -> f32,
        reference: impl Fn(f64) -> f64,
    ) -> (u32, f32) {
        let mut worst = (0, 0.0);
        let mut x = lo;
        while x <= hi {
            let u = ulps(f(x), reference(x as f64));
            if u > worst.0 {
                worst = (u, x);
            }
            let b = x.to_bits();
            x = if x < 0.0 {
                if b <= 0x8000_0061 {
                    0.0
                } else {
                    f32::from_bits(b - 97)
                }
            } else {
                f32::from_bits(b + 97)
            };
        }
        worst
    }

    #[test]
    fn exp_is_within_2_ulp_over_its_range() {
        let (u, x) = worst_ulps(-105.0, 89.5, exp, f64::exp);
        assert!(u <= 2, "exp({x}) is {u} ulp off");
    }

    #[test]
    fn exp_edges() {
        assert_eq!(exp(0.0), 1.0);
        assert_eq!(exp(f32::NEG_INFINITY), 0.0);
        assert_eq!(exp(-200.0), 0.0);
        assert_eq!(exp(f32::INFINITY), f32::INFINITY);
        assert_eq!(exp(89.0), f32::INFINITY);
        assert!(exp(f32::NAN).is_nan());
        // The smallest denormal and the largest finite results.
        assert_eq!(exp(-103.9), (-103.9f64).exp() as f32);
        assert!(exp(88.72).is_finite());
    }

    #[test]
    fn exp_nonpositive_is_exp_bit_for_bit() {
        let mut x = -110f32;
        while x <= 0.0 {
            assert_eq!(exp_nonpositive(x).to_bits(), exp(x).to_bits(), "x = {x}");
            x = f32::from_bits(x.to_bits() - 7);
        }
        for x in [
            0.0,
            -0.0,
            f32::NEG_INFINITY,
            -104.5,
            -103.97,
            -87.34,
            -f32::MIN_POSITIVE,
        ] {
            assert_eq!(exp_nonpositive(x).to_bits(), exp(x).to_bits(), "x = {x}");
        }
        assert!(exp_nonpositive(f32::NAN).is_nan());
    }

    #[test]
    fn tanh_is_within_4_ulp() {
        let (u, x) = worst_ulps(-12.0, 12.0, tanh, f64::tanh);
        assert!(u <= 4, "tanh({x}) is {u} ulp off");
        assert_eq!(tanh(0.0), 0.0);
        assert!(tanh(-0.0).is_sign_negative());
        assert_eq!(tanh(f32::INFINITY), 1.0);
        assert_eq!(tanh(f32::NEG_INFINITY), -1.0);
        assert!(tanh(f32::NAN).is_nan());
    }

    #[test]
    fn sigmoid_is_within_4_ulp() {
        let (u, x) = worst_ulps(-100.0, 30.0, sigmoid, |x| 1.0 / (1.0 + (-x).exp()));
        assert!(u <= 4, "sigmoid({x}) is {u} ulp off");
        assert_eq!(sigmoid(f32::NEG_INFINITY), 0.0);
        assert_eq!(sigmoid(f32::INFINITY), 1.0);
        assert!(sigmoid(f32::NAN).is_nan());
    }
}
