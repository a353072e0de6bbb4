//! `F4`: four f32 lanes, as SIMD128 `v128` on wasm and as a plain array elsewhere (LLVM turns the
//! array form into SSE/NEON). Kernels written against it are tested natively and run vectorized in
//! the browser from the same source.
//!
//! `mul_add` is one fused multiply-add (`f32x4.relaxed_madd`) in the relaxed-SIMD build
//! (`-C target-feature=+relaxed-simd`, loaded where the engine validates it), else a multiply and
//! an add: relaxed_madd may round once or twice, so results differ from the plain build in the last
//! bit at most per step, well within the tests' tolerance against TF.

use core::mem::MaybeUninit;

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod imp {
    use core::arch::wasm32::{
        f32x4_add, f32x4_extract_lane, f32x4_lt, f32x4_mul, f32x4_pmax, f32x4_pmin, f32x4_splat,
        f32x4_sub, v128, v128_bitselect, v128_load, v128_store,
    };
    use core::mem::MaybeUninit;

    #[derive(Clone, Copy)]
    pub struct F4(v128);

    /// `a * b + c` on raw vectors (for kernels written in `v128` directly).
    #[inline(always)]
    pub fn madd(a: v128, b: v128, c: v128) -> v128 {
        #[cfg(target_feature = "relaxed-simd")]
        {
            core::arch::wasm32::f32x4_relaxed_madd(a, b, c)
        }
        #[cfg(not(target_feature = "relaxed-simd"))]
        {
            f32x4_add(f32x4_mul(a, b), c)
        }
    }

    impl F4 {
        #[inline(always)]
        pub fn splat(x: f32) -> F4 {
            F4(f32x4_splat(x))
        }

        #[inline(always)]
        pub fn load(s: &[f32; 4]) -> F4 {
            // SAFETY: `s` is a live shared reference to 4 f32s: 16 readable bytes. Wasm loads have
            // no alignment requirement (`v128_load` is an unaligned load on wasm32).
            F4(unsafe { v128_load(s.as_ptr().cast::<v128>()) })
        }

        #[inline(always)]
        pub fn store(self, d: &mut [f32; 4]) {
            // SAFETY: `d` is a live exclusive reference to 4 f32s: 16 writable bytes, unaligned
            // stores are allowed on wasm32.
            unsafe { v128_store(d.as_mut_ptr().cast::<v128>(), self.0) }
        }

        #[inline(always)]
        pub fn store_uninit(self, d: &mut [MaybeUninit<f32>; 4]) {
            // SAFETY: as `store`: 16 exclusively borrowed writable bytes; writing initializes them.
            unsafe { v128_store(d.as_mut_ptr().cast::<v128>(), self.0) }
        }

        /// `lo < x ? x : lo` lane-wise after `x < hi ? x : hi` (NaN passes, like the scalar
        /// activations and Eigen's cwiseMax/cwiseMin).
        #[inline(always)]
        pub fn clamp(self, lo: F4, hi: F4) -> F4 {
            // pmax(a, b) = a < b ? b : a; pmin(a, b) = b < a ? b : a.
            F4(f32x4_pmin(f32x4_pmax(self.0, lo.0), hi.0))
        }

        /// `lo < x ? x : lo` lane-wise (NaN passes, as in `clamp`).
        #[inline(always)]
        pub fn max(self, lo: F4) -> F4 {
            F4(f32x4_pmax(self.0, lo.0))
        }

        /// `x < hi ? x : hi` lane-wise (NaN passes, as in `clamp`).
        #[inline(always)]
        pub fn min(self, hi: F4) -> F4 {
            F4(f32x4_pmin(self.0, hi.0))
        }

        /// `x < 0 ? x * a : x` lane-wise (PReLU; NaN and -0 pass, as in the scalar form).
        #[inline(always)]
        pub fn prelu(self, a: F4) -> F4 {
            let neg = f32x4_lt(self.0, f32x4_splat(0.0));
            F4(v128_bitselect(f32x4_mul(self.0, a.0), self.0, neg))
        }

        /// `self * b + c`, fused in the relaxed-SIMD build.
        #[inline(always)]
        pub fn mul_add(self, b: F4, c: F4) -> F4 {
            F4(madd(self.0, b.0, c.0))
        }

        #[inline(always)]
        pub fn to_array(self) -> [f32; 4] {
            [
                f32x4_extract_lane::<0>(self.0),
                f32x4_extract_lane::<1>(self.0),
                f32x4_extract_lane::<2>(self.0),
                f32x4_extract_lane::<3>(self.0),
            ]
        }
    }

    impl core::ops::Add for F4 {
        type Output = F4;
        #[inline(always)]
        fn add(self, o: F4) -> F4 {
            F4(f32x4_add(self.0, o.0))
        }
    }

    impl core::ops::Mul for F4 {
        type Output = F4;
        #[inline(always)]
        fn mul(self, o: F4) -> F4 {
            F4(f32x4_mul(self.0, o.0))
        }
    }

    impl core::ops::Sub for F4 {
        type Output = F4;
        #[inline(always)]
        fn sub(self, o: F4) -> F4 {
            F4(f32x4_sub(self.0, o.0))
        }
    }
}

#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
mod imp {
    use core::mem::MaybeUninit;

    #[derive(Clone, Copy)]
    pub struct F4([f32; 4]);

    impl F4 {
        #[inline(always)]
        pub fn splat(x: f32) -> F4 {
            F4([x; 4])
        }

        #[inline(always)]
        pub fn load(s: &[f32; 4]) -> F4 {
            F4(*s)
        }

        #[inline(always)]
        pub fn store(self, d: &mut [f32; 4]) {
            *d = self.0;
        }

        #[inline(always)]
        pub fn store_uninit(self, d: &mut [MaybeUninit<f32>; 4]) {
            for (d, &v) in d.iter_mut().zip(&self.0) {
                d.write(v);
            }
        }

        #[inline(always)]
        pub fn clamp(self, lo: F4, hi: F4) -> F4 {
            F4(core::array::from_fn(|i| {
                let x = self.0[i];
                let x = if x < lo.0[i] { lo.0[i] } else { x };
                if hi.0[i] < x {
                    hi.0[i]
                } else {
                    x
                }
            }))
        }

        /// `f` lane by lane over `self` and `o`.
        #[inline(always)]
        fn lanes(self, o: F4, f: impl Fn(f32, f32) -> f32) -> F4 {
            F4(core::array::from_fn(|i| f(self.0[i], o.0[i])))
        }

        #[inline(always)]
        pub fn max(self, lo: F4) -> F4 {
            self.lanes(lo, |x, lo| if x < lo { lo } else { x })
        }

        #[inline(always)]
        pub fn min(self, hi: F4) -> F4 {
            self.lanes(hi, |x, hi| if hi < x { hi } else { x })
        }

        #[inline(always)]
        pub fn prelu(self, a: F4) -> F4 {
            self.lanes(a, super::prelu)
        }

        /// `self * b + c`, unfused (as the plain SIMD128 build).
        #[inline(always)]
        pub fn mul_add(self, b: F4, c: F4) -> F4 {
            self * b + c
        }

        #[inline(always)]
        pub fn to_array(self) -> [f32; 4] {
            self.0
        }
    }

    impl core::ops::Add for F4 {
        type Output = F4;
        #[inline(always)]
        fn add(self, o: F4) -> F4 {
            F4(core::array::from_fn(|i| self.0[i] + o.0[i]))
        }
    }

    impl core::ops::Mul for F4 {
        type Output = F4;
        #[inline(always)]
        fn mul(self, o: F4) -> F4 {
            F4(core::array::from_fn(|i| self.0[i] * o.0[i]))
        }
    }

    impl core::ops::Sub for F4 {
        type Output = F4;
        #[inline(always)]
        fn sub(self, o: F4) -> F4 {
            F4(core::array::from_fn(|i| self.0[i] - o.0[i]))
        }
    }
}

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
pub use imp::madd;
pub use imp::F4;

/// Four lanes of `s` from `at`, if they are in range.
#[inline(always)]
pub fn load_at(s: &[f32], at: usize) -> Option<F4> {
    s.get(at..at + 4)
        .and_then(|c| <&[f32; 4]>::try_from(c).ok())
        .map(F4::load)
}

/// `dst.copy_from_slice(src)` for runs of equal length, with those up to 16 long as fixed-size
/// loads and stores: a variable-length copy compiles to `memory.copy`, which V8 runs out of line at
/// ~3 ns a call whatever its size (measured: six plain stores cost less), and im2col makes one per
/// kernel row of every output pixel. Lengths 4-16 take overlapping 4-lane copies.
#[inline(always)]
pub fn copy_run(dst: &mut [f32], src: &[f32]) {
    let n = dst.len();
    if n != src.len() {
        return;
    }
    let mut lanes = |at: usize| {
        if let Some(v) = load_at(src, at) {
            store_at(dst, at, v);
        }
    };
    match n {
        0..=3 => {
            // Unrolled by hand: a loop here would be turned back into `memory.copy`.
            if n > 0 {
                dst[0] = src[0];
            }
            if n > 1 {
                dst[1] = src[1];
            }
            if n > 2 {
                dst[2] = src[2];
            }
        }
        4..=8 => {
            lanes(0);
            lanes(n - 4);
        }
        9..=16 => {
            lanes(0);
            lanes(4);
            lanes(n - 8);
            lanes(n - 4);
        }
        _ => dst.copy_from_slice(src),
    }
}

/// `dst.fill(0.0)` with short runs as stores (as [`copy_run`]).
#[inline(always)]
pub fn zero_run(dst: &mut [f32]) {
    let n = dst.len();
    let zero = F4::splat(0.0);
    match n {
        0..=3 => {
            if n > 0 {
                dst[0] = 0.0;
            }
            if n > 1 {
                dst[1] = 0.0;
            }
            if n > 2 {
                dst[2] = 0.0;
            }
        }
        4..=8 => {
            store_at(dst, 0, zero);
            store_at(dst, n - 4, zero);
        }
        _ => dst.fill(0.0),
    }
}

/// Stores `v` at `at..at + 4` of `d`; false (nothing stored) if out of range.
#[inline(always)]
pub fn store_at(d: &mut [f32], at: usize, v: F4) -> bool {
    match d
        .get_mut(at..at + 4)
        .and_then(|c| <&mut [f32; 4]>::try_from(c).ok())
    {
        Some(c) => {
            v.store(c);
            true
        }
        None => false,
    }
}

/// Stores `v` at `at..at + 4` of `d` if in range.
#[inline(always)]
pub fn store_uninit_at(d: &mut [MaybeUninit<f32>], at: usize, v: F4) {
    if let Some(c) = d
        .get_mut(at..at + 4)
        .and_then(|c| <&mut [MaybeUninit<f32>; 4]>::try_from(c).ok())
    {
        v.store_uninit(c);
    }
}

/// A per-channel epilogue simple enough to run in registers: `clamp(x + bias[c], lo, hi)`
/// (`lo`/`hi` infinite for no activation, `0`/`inf` for Relu, `0`/`6` for Relu6), then, with
/// `alpha`, PReLU: `x < 0 ? x * alpha[c] : x`.
#[derive(Clone, Copy)]
pub struct BiasClamp<'a> {
    /// One value per output channel, or `None` for no bias.
    pub bias: Option<&'a [f32]>,
    pub lo: f32,
    pub hi: f32,
    /// One PReLU slope per output channel, or `None` for no PReLU.
    pub alpha: Option<&'a [f32]>,
}

impl BiasClamp<'_> {
    pub const NONE: BiasClamp<'static> = BiasClamp {
        bias: None,
        lo: f32::NEG_INFINITY,
        hi: f32::INFINITY,
        alpha: None,
    };
}

impl BiasClamp<'_> {
    /// Applies the epilogue to `seg`, the output channels `col0..` of one row, in scalar code.
    pub fn apply(&self, col0: usize, seg: &mut [f32]) {
        if let Some(b) = self.bias {
            for (x, &y) in seg.iter_mut().zip(b.get(col0..).unwrap_or(&[])) {
                *x += y;
            }
        }
        if self.lo != f32::NEG_INFINITY || self.hi != f32::INFINITY {
            let (lo, hi) = (self.lo, self.hi);
            for x in seg.iter_mut() {
                let v = if *x < lo { lo } else { *x };
                *x = if hi < v { hi } else { v };
            }
        }
        if let Some(a) = self.alpha {
            prelu_row(seg, a.get(col0..).unwrap_or(&[]));
        }
    }
}

/// PReLU: `x < 0 ? x * a : x` (a select, not a branch: loops over it vectorize; NaN and -0 pass).
#[inline(always)]
pub fn prelu(x: f32, a: f32) -> f32 {
    if x < 0.0 {
        x * a
    } else {
        x
    }
}

/// `prelu` over a row and its per-channel slopes.
pub fn prelu_row(seg: &mut [f32], alpha: &[f32]) {
    for (x, &a) in seg.iter_mut().zip(alpha) {
        *x = prelu(*x, a);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_runs_copy_and_zero_exactly_their_length() {
        let src: Vec<f32> = (1..=24).map(|v| v as f32).collect();
        for n in 0..=20 {
            let mut dst = [-1f32; 24];
            copy_run(&mut dst[2..2 + n], &src[..n]);
            assert_eq!(&dst[2..2 + n], &src[..n], "copy of {n}");
            assert!(
                dst[..2].iter().chain(&dst[2 + n..]).all(|&v| v == -1.0),
                "copy of {n}"
            );
            let mut dst = [-1f32; 24];
            zero_run(&mut dst[2..2 + n]);
            assert!(dst[2..2 + n].iter().all(|&v| v == 0.0), "zero of {n}");
            assert!(
                dst[..2].iter().chain(&dst[2 + n..]).all(|&v| v == -1.0),
                "zero of {n}"
            );
        }
    }
}
