//! TF's stateful random ops: RandomUniform, RandomStandardNormal, TruncatedNormal,
//! RandomUniformInt and Multinomial, giving TF's CPU kernels' values for a given (seed, seed2).
//!
//! Each kernel owns a Philox-4x32-10 generator keyed as TF's `GuardedPhiloxRandom` keys it
//! (`seed` -> key, `seed2` -> counter words 2..3; both 0 -> random seeds) and, like TF's, reserves
//! `outputs * 256` 128-bit blocks per call, so consecutive calls of one cached kernel continue the
//! stream exactly as consecutive calls of one TF kernel do. The normal transforms call glibc's
//! `logf`/`sincosf` in TF; those are not correctly rounded, so this file carries the same
//! algorithms (below) to give the same floats on every platform, wasm included.

use super::array::{int_vector, to_dim};
use crate::ops::def::{FLOAT, INDEX};
use crate::ops::{
    Kernel, KernelContext, KernelFactory::Prepared, NodeAttrs, OpBuilder, PrepareFn, Registry,
};
use crate::status::{invalid_argument, resource_exhausted, Result};
use crate::tensor::{try_with_capacity, DType, Element, Shape, Tensor};
use std::cell::Cell;

pub fn register(reg: &mut Registry) {
    for (name, kind) in [
        ("RandomUniform", Kind::Uniform),
        ("RandomStandardNormal", Kind::Normal),
        ("TruncatedNormal", Kind::Truncated),
    ] {
        reg.add(
            OpBuilder::new(name, Prepared(PREPARE[kind as usize]))
                .input("shape", "T")
                .with(seeds)
                .type_attr("dtype", FLOAT)
                .type_attr("T", INDEX)
                .stateful(),
        );
    }
    reg.add(
        OpBuilder::new("RandomUniformInt", Prepared(PREPARE[Kind::Int as usize]))
            .input("shape", "T")
            .input("minval", "Tout")
            .input("maxval", "Tout")
            .with(seeds)
            .type_attr("Tout", INDEX)
            .type_attr("T", INDEX)
            .stateful(),
    );
    reg.add(
        OpBuilder::new("Multinomial", Prepared(PREPARE[Kind::Multinomial as usize]))
            .input("logits", "T")
            .fixed_input("num_samples", DType::Int32)
            .with(seeds)
            .type_attr("T", FLOAT)
            .type_attr_default("output_dtype", INDEX, DType::Int64)
            .stateful(),
    );
}

fn seeds(b: OpBuilder) -> OpBuilder {
    b.int_attr("seed", Some(0)).int_attr("seed2", Some(0))
}

#[derive(Clone, Copy)]
enum Kind {
    Uniform,
    Normal,
    Truncated,
    Int,
    Multinomial,
}

const PREPARE: [PrepareFn; 5] = [
    |a| prepare(a, Kind::Uniform),
    |a| prepare(a, Kind::Normal),
    |a| prepare(a, Kind::Truncated),
    |a| prepare(a, Kind::Int),
    |a| prepare(a, Kind::Multinomial),
];

fn prepare(a: &NodeAttrs, kind: Kind) -> Result<Box<dyn Kernel>> {
    let (seed, seed2) = match (a.int("seed")?, a.int("seed2")?) {
        (0, 0) => random_seeds(),
        (s, s2) => (s as u64, s2 as u64),
    };
    let out = match kind {
        Kind::Int => a.dtype("Tout")?,
        Kind::Multinomial => a.dtype("output_dtype")?,
        _ => DType::Float32,
    };
    Ok(Box::new(RandomOp {
        kind,
        out,
        gen: Cell::new(Philox::new(seed, seed2)),
    }))
}

/// Philox-4x32-10 as TF's `random::PhiloxRandom`: a 128-bit counter and a 64-bit key.
#[derive(Clone, Copy)]
struct Philox {
    c: [u32; 4],
    k: [u32; 2],
}

impl Philox {
    fn new(seed: u64, seed2: u64) -> Philox {
        Philox {
            c: [0, 0, seed2 as u32, (seed2 >> 32) as u32],
            k: [seed as u32, (seed >> 32) as u32],
        }
    }

    /// Skips `n` 128-bit blocks, with TF's carry (which drops a carry out of word 0 when the
    /// high half of `n` is all ones).
    fn skip(&mut self, n: u64) {
        let lo = n as u32;
        let mut hi = (n >> 32) as u32;
        self.c[0] = self.c[0].wrapping_add(lo);
        if self.c[0] < lo {
            hi = hi.wrapping_add(1);
        }
        self.c[1] = self.c[1].wrapping_add(hi);
        if self.c[1] < hi {
            self.c[2] = self.c[2].wrapping_add(1);
            if self.c[2] == 0 {
                self.c[3] = self.c[3].wrapping_add(1);
            }
        }
    }

    fn next(&mut self) -> [u32; 4] {
        let (mut c, mut k) = (self.c, self.k);
        for round in 0..10 {
            if round > 0 {
                k = [
                    k[0].wrapping_add(0x9E37_79B9),
                    k[1].wrapping_add(0xBB67_AE85),
                ];
            }
            let p0 = u64::from(0xD251_1F53u32) * u64::from(c[0]);
            let p1 = u64::from(0xCD9E_8D57u32) * u64::from(c[2]);
            c = [
                (p1 >> 32) as u32 ^ c[1] ^ k[0],
                p1 as u32,
                (p0 >> 32) as u32 ^ c[3] ^ k[1],
                p0 as u32,
            ];
        }
        for w in &mut self.c {
            *w = w.wrapping_add(1);
            if *w != 0 {
                break;
            }
        }
        c
    }
}

/// TF's `SingleSampleAdapter`: the generator's words one at a time.
struct Single {
    gen: Philox,
    buf: [u32; 4],
    used: usize,
}

impl Single {
    fn new(gen: Philox) -> Single {
        Single {
            gen,
            buf: [0; 4],
            used: 4,
        }
    }

    fn next(&mut self) -> u32 {
        if self.used == 4 {
            self.buf = self.gen.next();
            self.used = 0;
        }
        self.used += 1;
        self.buf[self.used - 1]
    }
}

/// [0, 1) from the low 23 bits (TF's `Uint32ToFloat`).
fn unit_f32(x: u32) -> f32 {
    f32::from_bits(0x3f80_0000 | (x & 0x7f_ffff)) - 1.0
}

/// [0, 1) from 52 bits: 20 of `x0`, all of `x1` (TF's `Uint64ToDouble`).
fn unit_f64(x0: u32, x1: u32) -> f64 {
    f64::from_bits(0x3ff0_0000_0000_0000 | (u64::from(x0 & 0xf_ffff) << 32) | u64::from(x1)) - 1.0
}

/// TF's `BoxMullerFloat`. The angle is computed in double (TF multiplies by the double `M_PI`).
fn box_muller(x0: u32, x1: u32) -> [f32; 2] {
    let u1 = unit_f32(x0).max(1.0e-7);
    let v1 = (2.0 * std::f64::consts::PI * f64::from(unit_f32(x1))) as f32;
    let u2 = (-2.0 * glibc::logf(u1)).sqrt();
    let (s, c) = glibc::sincosf(v1);
    [s * u2, c * u2]
}

/// One kernel instance: its generator advances on every call (TF's `GuardedPhiloxRandom`).
struct RandomOp {
    kind: Kind,
    /// Tout / output_dtype (Float32 for the float ops).
    out: DType,
    gen: Cell<Philox>,
}

impl RandomOp {
    /// TF's `ReserveRandomOutputs(outputs, 256)`: this call's stream starts at the current state,
    /// the next call's `outputs * 256` blocks later.
    fn reserve(&self, outputs: u64) -> Philox {
        let start = self.gen.get();
        let mut next = start;
        next.skip(outputs.wrapping_mul(256));
        self.gen.set(next);
        start
    }
}

impl Kernel for RandomOp {
    fn compute(&self, _: &mut KernelContext<'_>, i: &[Tensor]) -> Result<Vec<Tensor>> {
        if let Kind::Multinomial = self.kind {
            return self.multinomial(i);
        }
        let bounds = match self.kind {
            Kind::Int => Some(int_bounds(
                super::input(i, 1, "minval")?,
                super::input(i, 2, "maxval")?,
            )?),
            _ => None,
        };
        let dims = int_vector(super::input(i, 0, "shape")?, "shape")?
            .into_iter()
            .map(|d| to_dim(d, "shape dimension"))
            .collect::<Result<Vec<_>>>()?;
        let shape = Shape::new(dims)?;
        let n = shape.num_elements();
        // The stream advances only once the output exists (TF allocates before reserving).
        let mut gen = self.gen.get();
        let t = (|| match (self.kind, bounds) {
            (Kind::Uniform, _) => Tensor::from_vec(shape, groups(n, || gen.next().map(unit_f32))?),
            (Kind::Normal, _) => Tensor::from_vec(
                shape,
                groups(n, || {
                    let x = gen.next();
                    let ([a, b], [c, d]) = (box_muller(x[0], x[1]), box_muller(x[2], x[3]));
                    [a, b, c, d]
                })?,
            ),
            (Kind::Truncated, _) => {
                let mut group = 0u64;
                Tensor::from_vec(
                    shape,
                    groups(n, || {
                        // A variable number of draws per output: each group of 4 starts at its
                        // own offset (256 draws reserved per output), as TF's CPU kernel does.
                        let mut g = gen;
                        g.skip(group * 256);
                        group += 1;
                        truncated_group(Single::new(g))
                    })?,
                )
            }
            (_, Some(Bounds::I32(lo, range))) => Tensor::from_vec(
                shape,
                groups(n, || {
                    gen.next().map(|x| lo.wrapping_add((x % range) as i32))
                })?,
            ),
            (_, Some(Bounds::I64(lo, range))) => Tensor::from_vec(
                shape,
                groups(n, || {
                    let x = gen.next();
                    [(x[0], x[1]), (x[2], x[3])].map(|(a, b)| {
                        let bits = u64::from(a) | (u64::from(b) << 32);
                        lo.wrapping_add((bits % range) as i64)
                    })
                })?,
            ),
            _ => unreachable!("RandomUniformInt always has bounds"),
        })()?;
        self.reserve(n as u64);
        Ok(crate::ops::one_output(t))
    }
}

enum Bounds {
    /// lo and the range hi - lo (unsigned: it can exceed the signed type).
    I32(i32, u32),
    I64(i64, u64),
}

fn int_bounds(lo: &Tensor, hi: &Tensor) -> Result<Bounds> {
    for (t, name) in [(lo, "minval"), (hi, "maxval")] {
        if t.rank() != 0 {
            return Err(invalid_argument(format!(
                "{name} must be 0-D, got shape {}",
                t.shape()
            )));
        }
    }
    let (l, h) = (lo.to_i64_vec()?[0], hi.to_i64_vec()?[0]);
    if l >= h {
        return Err(invalid_argument(format!(
            "Need minval < maxval, got {l} >= {h}"
        )));
    }
    Ok(match lo.dtype() {
        DType::Int32 => Bounds::I32(l as i32, (h as u32).wrapping_sub(l as u32)),
        _ => Bounds::I64(l, (h as u64).wrapping_sub(l as u64)),
    })
}

/// `n` values from a distribution that yields `K` at a time; the last group's surplus is dropped.
fn groups<T: Element + Copy, const K: usize>(
    n: usize,
    mut next: impl FnMut() -> [T; K],
) -> Result<Vec<T>> {
    let mut v = try_with_capacity::<T>(n)?;
    while v.len() < n {
        let g = next();
        let take = K.min(n - v.len());
        v.extend_from_slice(&g[..take]);
    }
    Ok(v)
}

/// TF's `TruncatedNormalDistribution<float>`: Box-Muller pairs, keeping values with |x| < 2.
fn truncated_group(mut s: Single) -> [f32; 4] {
    let mut out = [0.0; 4];
    let mut k = 0;
    loop {
        let (x0, x1) = (s.next(), s.next());
        for v in box_muller(x0, x1) {
            if v.abs() < 2.0 {
                out[k] = v;
                k += 1;
                if k == 4 {
                    return out;
                }
            }
        }
    }
}

impl RandomOp {
    /// TF's CPU Multinomial: per row, an unnormalized CDF of exp(logit - max) over the finite
    /// logits (in double), and per sample the first class whose CDF exceeds a uniform double
    /// times the total, all rows from one stream. That is TF's result for small batches, and for
    /// any batch with one intra-op thread: with more, TF splits a large batch into blocks of rows,
    /// each skipping ahead on its own, where it depends on TF's thread count.
    fn multinomial(&self, i: &[Tensor]) -> Result<Vec<Tensor>> {
        let (logits, ns) = super::two(i, ["logits", "num_samples"])?;
        if logits.rank() != 2 {
            return Err(invalid_argument(format!(
                "logits should be a matrix, got shape {}",
                logits.shape()
            )));
        }
        if ns.rank() != 0 {
            return Err(invalid_argument(format!(
                "num_samples should be a scalar, got shape {}",
                ns.shape()
            )));
        }
        let samples = ns.as_slice::<i32>()?[0];
        let samples = usize::try_from(samples).map_err(|_| {
            invalid_argument(format!("num_samples should be non-negative, got {samples}"))
        })?;
        let (batch, classes) = (logits.dims()[0], logits.dims()[1]);
        if batch > i32::MAX as usize || classes > i32::MAX as usize {
            return Err(invalid_argument(
                "batch_size and num_classes cannot exceed max int",
            ));
        }
        if classes == 0 {
            return Err(invalid_argument("num_classes should be positive, got 0"));
        }
        let shape = Shape::new(vec![batch, samples])?;
        let mut out = try_with_capacity::<i64>(shape.num_elements())?;
        if shape.num_elements() > 0 {
            // TF's int arithmetic: samples rounded up to 4, times 2 (a double takes two words).
            let x = logits.f32s()?;
            let mut cdf: Vec<f64> = Vec::new();
            cdf.try_reserve_exact(classes)
                .map_err(|_| resource_exhausted("Multinomial: out of memory for the CDF"))?;
            let per_row = ((samples as i32).wrapping_add(3) / 4).wrapping_mul(8);
            let blocks = i64::from((batch as i32).wrapping_mul(per_row)) as u64;
            let mut s = Single::new(self.reserve(blocks));
            for row in x.chunks_exact(classes) {
                let max = row
                    .iter()
                    .filter(|v| v.is_finite())
                    .fold(f32::MIN, |m, &v| m.max(v));
                let mut total = 0.0;
                cdf.clear();
                for &v in row {
                    if v.is_finite() {
                        total += (f64::from(v) - f64::from(max)).exp();
                    }
                    cdf.push(total);
                }
                for _ in 0..samples {
                    let (x0, x1) = (s.next(), s.next());
                    let target = unit_f64(x0, x1) * total;
                    out.push(cdf.partition_point(|&c| c <= target) as i64);
                }
            }
        }
        let t = match self.out {
            DType::Int32 => {
                Tensor::from_vec(shape, out.into_iter().map(|v| v as i32).collect::<Vec<_>>())
            }
            _ => Tensor::from_vec(shape, out),
        }?;
        Ok(crate::ops::one_output(t))
    }
}

/// Seeds for a kernel whose seed and seed2 are both 0: fresh on every kernel, as TF draws them
/// from its process-wide random source. A process-wide counter is mixed in so two kernels made
/// together differ even where the entropy source is weak.
fn random_seeds() -> (u64, u64) {
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let [a, b] = entropy();
    (mix(a ^ n), mix(b.wrapping_add(n.rotate_left(32))))
}

/// splitmix64's finalizer.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE5_E4B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Native: std's per-process random hash keys (OS entropy) over the time. Wasm has no OS
/// entropy: `crypto.getRandomValues` through js-sys (already a dependency), else `Math.random`.
#[cfg(not(target_arch = "wasm32"))]
fn entropy() -> [u64; 2] {
    use std::hash::{BuildHasher, RandomState};
    let t = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    let s = RandomState::new();
    [s.hash_one(t), s.hash_one(!t)]
}

#[cfg(target_arch = "wasm32")]
fn entropy() -> [u64; 2] {
    use js_sys::{Function, Reflect, Uint32Array};
    use wasm_bindgen::{JsCast, JsValue};
    let crypto = || -> Option<[u32; 4]> {
        let c = Reflect::get(&js_sys::global(), &JsValue::from_str("crypto")).ok()?;
        let f: Function = Reflect::get(&c, &JsValue::from_str("getRandomValues"))
            .ok()?
            .dyn_into()
            .ok()?;
        let a = Uint32Array::new_with_length(4);
        f.call1(&c, &a).ok()?;
        let mut w = [0u32; 4];
        a.copy_to(&mut w);
        Some(w)
    };
    let w = crypto()
        .unwrap_or_else(|| [0; 4].map(|_: u32| (js_sys::Math::random() * 4_294_967_296.0) as u32));
    [
        u64::from(w[0]) | u64::from(w[1]) << 32,
        u64::from(w[2]) | u64::from(w[3]) << 32,
    ]
}

/// glibc's (since 2.28) `logf` and `sincosf`, from Arm's optimized-routines (MIT): evaluated in
/// double, within 0.82 / 0.56 ULP but not correctly rounded, and TF's normal samples carry their
/// roundings. Only the domains Box-Muller feeds are covered: `logf` on [1e-7, 1), `sincosf` on
/// [0, 2pi). Constants are the routines' hex-float ones, as bit patterns.
mod glibc {
    const fn d(bits: u64) -> f64 {
        f64::from_bits(bits)
    }

    /// (1/c, ln c) for 16 subintervals of [0x3f330000, 2 * 0x3f330000) as float bits.
    const LOG_TAB: [(u64, u64); 16] = [
        (0x3ff661ec79f8f3be, 0xbfd57bf7808caade),
        (0x3ff571ed4aaf883d, 0xbfd2bef0a7c06ddb),
        (0x3ff49539f0f010b0, 0xbfd01eae7f513a67),
        (0x3ff3c995b0b80385, 0xbfcb31d8a68224e9),
        (0x3ff30d190c8864a5, 0xbfc6574f0ac07758),
        (0x3ff25e227b0b8ea0, 0xbfc1aa2bc79c8100),
        (0x3ff1bb4a4a1a343f, 0xbfba4e76ce8c0e5e),
        (0x3ff12358f08ae5ba, 0xbfb1973c5a611ccc),
        (0x3ff0953f419900a7, 0xbfa252f438e10c1e),
        (0x3ff0000000000000, 0x0000000000000000),
        (0x3fee608cfd9a47ac, 0x3faaa5aa5df25984),
        (0x3feca4b31f026aa0, 0x3fbc5e53aa362eb4),
        (0x3feb2036576afce6, 0x3fc526e57720db08),
        (0x3fe9c2d163a1aa2d, 0x3fcbc2860d224770),
        (0x3fe886e6037841ed, 0x3fd1058bc8a07ee1),
        (0x3fe767dcf5534862, 0x3fd4043057b6ee09),
    ];
    const LN2: f64 = d(0x3fe62e42fefa39ef);
    const LOG_POLY: [f64; 3] = [
        d(0xbfd00ea348b88334),
        d(0x3fd5575b0be00b6a),
        d(0xbfdffffef20a4123),
    ];

    /// x = 2^k z with z near a table point c: log x = log1p(z/c - 1) + log c + k ln 2.
    pub fn logf(x: f32) -> f32 {
        const OFF: u32 = 0x3f33_0000;
        let ix = x.to_bits();
        let tmp = ix.wrapping_sub(OFF);
        let (invc, logc) = LOG_TAB[((tmp >> 19) % 16) as usize];
        let k = (tmp as i32) >> 23;
        let z = f64::from(f32::from_bits(ix.wrapping_sub(tmp & 0xff80_0000)));
        let r = z * d(invc) - 1.0;
        let y0 = d(logc) + f64::from(k) * LN2;
        let r2 = r * r;
        let y = LOG_POLY[1] * r + LOG_POLY[2];
        let y = LOG_POLY[0] * r2 + y;
        (y * r2 + (y0 + r)) as f32
    }

    /// Cosine coefficients c0..c4 (the second set is negated: -cos for quadrants 2 and 3), then
    /// sine coefficients s1..s3.
    const COS: [[f64; 5]; 2] = [
        [
            1.0,
            d(0xbfdffffffd0c621c),
            d(0x3fa55553e1068f19),
            d(0xbf56c087e89a359d),
            d(0x3ef99343027bf8c3),
        ],
        [
            -1.0,
            d(0x3fdffffffd0c621c),
            d(0xbfa55553e1068f19),
            d(0x3f56c087e89a359d),
            d(0xbef99343027bf8c3),
        ],
    ];
    const SIN: [f64; 3] = [
        d(0xbfc555545995a603),
        d(0x3f81107605230bc4),
        d(0xbf2994eb3774cf24),
    ];
    /// 2/pi * 2^24 and pi/2.
    const HPI_INV: f64 = d(0x41645f306dc9c883);
    const HPI: f64 = d(0x3ff921fb54442d18);

    /// (sin y, cos y) for y in [0, 2pi): below pi/4 directly, else reduced by the nearest
    /// multiple n of pi/2 (quadrant n picks signs and swaps sin and cos).
    pub fn sincosf(y: f32) -> (f32, f32) {
        // Exponent and 3 mantissa bits, compared as glibc does (against pi/4 and 2^-12 as floats).
        let top12 = |f: f32| (f.to_bits() >> 20) & 0x7ff;
        let x = f64::from(y);
        if top12(y) < top12(std::f32::consts::FRAC_PI_4) {
            if top12(y) < top12(1.0 / 4096.0) {
                return (y, 1.0);
            }
            return poly(x, x * x, 0, 0);
        }
        let n = (((x * HPI_INV) as i32) + 0x80_0000) >> 24;
        let x = x - f64::from(n) * HPI;
        let sign = [1.0, -1.0, -1.0, 1.0][(n & 3) as usize];
        poly(x * sign, x * x, usize::from(n & 2 != 0), n)
    }

    fn poly(x: f64, x2: f64, table: usize, n: i32) -> (f32, f32) {
        let c = &COS[table];
        let x4 = x2 * x2;
        let x3 = x2 * x;
        let c2 = c[3] + x2 * c[4];
        let s1 = SIN[1] + x2 * SIN[2];
        let c1 = c[0] + x2 * c[1];
        let x5 = x3 * x2;
        let x6 = x4 * x2;
        let s = x + x3 * SIN[0];
        let cc = c1 + x4 * c[2];
        let (sin, cos) = ((s + x5 * s1) as f32, (cc + x6 * c2) as f32);
        if n & 1 != 0 {
            (cos, sin)
        } else {
            (sin, cos)
        }
    }
}

/// The glibc routines against the host's own (glibc >= 2.28 on Linux, as TF's Linux wheels run
/// on) over every input Box-Muller can give them: the 2^23 values of `unit_f32`.
#[cfg(all(test, target_os = "linux", target_env = "gnu"))]
mod tests {
    use super::{glibc, unit_f32};

    #[test]
    fn logf_and_sincosf_match_the_host_glibc_on_the_box_muller_domain() {
        let mut bad = Vec::new();
        for m in 0..1u32 << 23 {
            let u = unit_f32(m);
            let u1 = u.max(1.0e-7);
            if glibc::logf(u1).to_bits() != u1.ln().to_bits() {
                bad.push(("logf", u1));
            }
            let v = (2.0 * std::f64::consts::PI * f64::from(u)) as f32;
            let (s, c) = glibc::sincosf(v);
            if s.to_bits() != v.sin().to_bits() || c.to_bits() != v.cos().to_bits() {
                bad.push(("sincosf", v));
            }
        }
        assert!(
            bad.is_empty(),
            "{} differ, first {:?}",
            bad.len(),
            &bad[..bad.len().min(5)]
        );
    }
}
