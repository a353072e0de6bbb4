//! The FFT family (TF's spectral ops) over the innermost 1, 2 or 3 dims: FFT/IFFT on complex64,
//! RFFT (float32 -> complex64, `fft_length/2 + 1` bins) and IRFFT (complex64 -> float32, reading
//! only those bins), with TF's conventions: forward unscaled, inverse divided by the transform's
//! size, RFFT cropping its input to `fft_length`, IRFFT cropping the outer axes and taking the
//! first `n/2 + 1` bins of the innermost.
//!
//! Any length: a power of two runs an iterative radix-2 transform; any other length (primes
//! included) Bluestein's chirp-z transform over a power-of-two cyclic convolution. Everything is
//! computed in f64 and rounded once, so the results are closer to the exact DFT than TF's float32
//! ones.

use super::{input, two};
use crate::ops::{ComputeFn, KernelFactory::Simple};
use crate::ops::{OpBuilder, Registry};
use crate::status::{invalid_argument, resource_exhausted, Result};
use crate::tensor::{try_with_capacity, DType, Shape, Tensor, C64, MAX_TENSOR_BYTES};

type Outputs = Result<Vec<Tensor>>;

const COMPLEX: &[DType] = &[DType::Complex64];
const FLOAT: &[DType] = &[DType::Float32];

pub fn register(reg: &mut Registry) {
    let c2c: [(&'static str, ComputeFn); 6] = [
        ("FFT", |_, _, i| c2c(i, 1, false)),
        ("IFFT", |_, _, i| c2c(i, 1, true)),
        ("FFT2D", |_, _, i| c2c(i, 2, false)),
        ("IFFT2D", |_, _, i| c2c(i, 2, true)),
        ("FFT3D", |_, _, i| c2c(i, 3, false)),
        ("IFFT3D", |_, _, i| c2c(i, 3, true)),
    ];
    for (name, f) in c2c {
        reg.add(
            OpBuilder::new(name, Simple(f))
                .input("input", "Tcomplex")
                .type_attr_default("Tcomplex", COMPLEX, DType::Complex64),
        );
    }
    let real: [(&'static str, ComputeFn, &'static str); 6] = [
        ("RFFT", |_, _, i| rfft(i, 1), "Treal"),
        ("RFFT2D", |_, _, i| rfft(i, 2), "Treal"),
        ("RFFT3D", |_, _, i| rfft(i, 3), "Treal"),
        ("IRFFT", |_, _, i| irfft(i, 1), "Tcomplex"),
        ("IRFFT2D", |_, _, i| irfft(i, 2), "Tcomplex"),
        ("IRFFT3D", |_, _, i| irfft(i, 3), "Tcomplex"),
    ];
    for (name, f, ty) in real {
        reg.add(
            OpBuilder::new(name, Simple(f))
                .input("input", ty)
                .fixed_input("fft_length", DType::Int32)
                .type_attr_default("Treal", FLOAT, DType::Float32)
                .type_attr_default("Tcomplex", COMPLEX, DType::Complex64),
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Kernels

/// FFT/IFFT over the innermost `k` dims.
fn c2c(inputs: &[Tensor], k: usize, inverse: bool) -> Outputs {
    let x = input(inputs, 0, "input")?;
    let v = x.as_slice::<C64>()?;
    check_rank(x, k)?;
    let mut data = buffer(v.len())?;
    data.extend(v.iter().map(|c| Cx::new(c.re.into(), c.im.into())));
    let dims = x.dims();
    for ax in dims.len() - k..dims.len() {
        along(&mut data, dims, ax, inverse)?;
    }
    let scale = if inverse {
        1.0 / dims[dims.len() - k..].iter().product::<usize>().max(1) as f64
    } else {
        1.0
    };
    let mut out = try_with_capacity::<C64>(data.len())?;
    out.extend(
        data.iter()
            .map(|c| C64::new((c.re * scale) as f32, (c.im * scale) as f32)),
    );
    Ok(crate::ops::one_output(Tensor::from_vec(
        x.shape().clone(),
        out,
    )?))
}

/// RFFT over the innermost `k` dims: the input cropped to `fft_length`, `n/2 + 1` bins kept.
fn rfft(inputs: &[Tensor], k: usize) -> Outputs {
    let (x, len) = two(inputs, ["input", "fft_length"])?;
    let v = x.f32s()?;
    let n = fft_lengths(x, len, k)?;
    let rank = x.rank();
    let mut work_dims = x.dims().to_vec();
    work_dims[rank - k..].copy_from_slice(&n);
    let mut out_dims = work_dims.clone();
    out_dims[rank - 1] = n[k - 1] / 2 + 1;
    let out_shape = Shape::new(out_dims.clone())?;
    if v.is_empty() {
        return Ok(crate::ops::one_output(Tensor::zeros(
            DType::Complex64,
            out_shape,
        )?));
    }
    check_lengths(x.dims(), &work_dims, k)?;
    let mut real = buffer(v.len())?;
    real.extend(v.iter().map(|&r| Cx::new(r.into(), 0.0)));
    let mut data = crop(&real, x.dims(), &work_dims)?;
    drop(real);
    for ax in rank - k..rank {
        along(&mut data, &work_dims, ax, false)?;
    }
    let kept = crop(&data, &work_dims, &out_dims)?;
    let mut out = try_with_capacity::<C64>(kept.len())?;
    out.extend(kept.iter().map(|c| C64::new(c.re as f32, c.im as f32)));
    Ok(crate::ops::one_output(Tensor::from_vec(out_shape, out)?))
}

/// IRFFT over the innermost `k` dims: the outer axes cropped to `fft_length`, the innermost's
/// first `n/2 + 1` bins read as half of a Hermitian spectrum, the real part divided by the size.
fn irfft(inputs: &[Tensor], k: usize) -> Outputs {
    let (x, len) = two(inputs, ["input", "fft_length"])?;
    let v = x.as_slice::<C64>()?;
    let n = fft_lengths(x, len, k)?;
    let rank = x.rank();
    let mut out_dims = x.dims().to_vec();
    out_dims[rank - k..].copy_from_slice(&n);
    let out_shape = Shape::new(out_dims.clone())?;
    if v.is_empty() {
        return Ok(crate::ops::one_output(Tensor::zeros(
            DType::Float32,
            out_shape,
        )?));
    }
    let last = n[k - 1];
    let half = last / 2 + 1;
    let mut read_dims = out_dims.clone();
    read_dims[rank - 1] = half;
    check_lengths(x.dims(), &read_dims, k)?;
    // The bins read, cropped, then each row widened to the full length.
    let mut all = buffer(v.len())?;
    all.extend(v.iter().map(|c| Cx::new(c.re.into(), c.im.into())));
    let bins = crop(&all, x.dims(), &read_dims)?;
    drop(all);
    let mut data = buffer(out_shape.num_elements())?;
    for row in bins.chunks_exact(half) {
        data.extend_from_slice(row);
        data.resize(data.len() + last - half, Cx::default());
    }
    for ax in rank - k..rank - 1 {
        along(&mut data, &out_dims, ax, true)?;
    }
    // Hermitian symmetry completes each row: X[n - c] = conj(X[c]).
    for row in data.chunks_exact_mut(last) {
        for c in half..last {
            row[c] = row[last - c].conj();
        }
    }
    along(&mut data, &out_dims, rank - 1, true)?;
    let scale = 1.0 / n.iter().product::<usize>() as f64;
    let mut out = try_with_capacity::<f32>(data.len())?;
    out.extend(data.iter().map(|c| (c.re * scale) as f32));
    Ok(crate::ops::one_output(Tensor::from_vec(out_shape, out)?))
}

fn check_rank(x: &Tensor, k: usize) -> Result<()> {
    if x.rank() < k {
        return Err(invalid_argument(format!(
            "Input must have rank of at least {k} but got: {}",
            x.shape()
        )));
    }
    Ok(())
}

/// The `k` transform lengths of `fft_length` (shape `[k]`, each >= 0; 0 only for an empty
/// input, where TF's kernel would abort on a non-empty one).
fn fft_lengths(x: &Tensor, len: &Tensor, k: usize) -> Result<Vec<usize>> {
    check_rank(x, k)?;
    if len.dims() != [k] {
        return Err(invalid_argument(format!(
            "fft_length must have shape [{k}]"
        )));
    }
    let mut n = Vec::with_capacity(k);
    for (i, &l) in len.as_slice::<i32>()?.iter().enumerate() {
        if l < 0 {
            return Err(invalid_argument(format!(
                "fft_length[{i}] must >= 0, but got: {l}"
            )));
        }
        if l == 0 && x.num_elements() > 0 {
            return Err(invalid_argument(format!(
                "fft_length[{i}] is 0: a transform of a non-empty input needs a positive length"
            )));
        }
        n.push(l as usize);
    }
    Ok(n)
}

/// The input's innermost `k` dims must hold what is read (`need`), as TF checks.
fn check_lengths(dims: &[usize], need: &[usize], k: usize) -> Result<()> {
    for ax in dims.len() - k..dims.len() {
        if dims[ax] < need[ax] {
            return Err(invalid_argument(format!(
                "Input dimension {ax} must have length of at least {} but got: {}",
                need[ax], dims[ax]
            )));
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// The transform

/// A complex number in f64, the working precision.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
struct Cx {
    re: f64,
    im: f64,
}

impl Cx {
    fn new(re: f64, im: f64) -> Cx {
        Cx { re, im }
    }

    fn add(self, o: Cx) -> Cx {
        Cx::new(self.re + o.re, self.im + o.im)
    }

    fn sub(self, o: Cx) -> Cx {
        Cx::new(self.re - o.re, self.im - o.im)
    }

    fn mul(self, o: Cx) -> Cx {
        Cx::new(
            self.re * o.re - self.im * o.im,
            self.re * o.im + self.im * o.re,
        )
    }

    fn conj(self) -> Cx {
        Cx::new(self.re, -self.im)
    }
}

/// e^{-2 pi i num/den} to f64 precision without libm's sin/cos (and their range-reduction tables,
/// ~2.5 KB of wasm): the angle is reduced exactly, in integers, to a quadrant and a fraction x of
/// it, whose sine and cosine Taylor series converge for x < pi/2 in 15 terms each. Lengths stay
/// below 2^31 (a tensor is at most 2 GiB), so `num`, `4 * num % den` fit in u64 (no u128 division).
fn twiddle(num: u64, den: u64) -> Cx {
    let r = num % den;
    let q = 4 * r / den;
    let x = std::f64::consts::FRAC_PI_2 * (4 * r - q * den) as f64 / den as f64;
    let x2 = x * x;
    let (mut c, mut s, mut tc, mut ts) = (1.0, x, 1.0, x);
    for k in 1..15u32 {
        // tc = (-1)^k x^2k / (2k)!, ts = (-1)^k x^(2k+1) / (2k+1)!
        let k = f64::from(k);
        tc *= -x2 / ((2.0 * k - 1.0) * (2.0 * k));
        ts *= -x2 / ((2.0 * k) * (2.0 * k + 1.0));
        c += tc;
        s += ts;
    }
    // e^{i (q pi/2 + x)} = i^q (c + i s), conjugated for the negative angle.
    match q {
        0 => Cx::new(c, -s),
        1 => Cx::new(-s, -c),
        2 => Cx::new(-c, s),
        _ => Cx::new(s, c),
    }
}

/// An empty working buffer with room for `n` values, or ResourceExhausted (past the one-tensor
/// bound too, so a hostile length never reaches the OS allocator).
fn buffer(n: usize) -> Result<Vec<Cx>> {
    let bytes = n.saturating_mul(std::mem::size_of::<Cx>());
    let mut v = Vec::new();
    if bytes > MAX_TENSOR_BYTES || v.try_reserve_exact(n).is_err() {
        return Err(resource_exhausted(format!(
            "cannot allocate an FFT work buffer of {n} values ({bytes} bytes)"
        )));
    }
    Ok(v)
}

/// The leading `dst` block of `data` (row-major `src` dims; same rank, each dim at least `dst`'s).
fn crop(data: &[Cx], src: &[usize], dst: &[usize]) -> Result<Vec<Cx>> {
    let total: usize = dst.iter().product();
    let mut out = buffer(total)?;
    if total == 0 {
        return Ok(out);
    }
    let rank = dst.len();
    let last = dst[rank - 1];
    let mut idx = vec![0usize; rank];
    while out.len() < total {
        // The source offset of the row at `idx` (its last index 0).
        let base = idx
            .iter()
            .zip(src)
            .fold(0usize, |acc, (&i, &d)| acc * d + i);
        out.extend_from_slice(&data[base..base + last]);
        for ax in (0..rank - 1).rev() {
            idx[ax] += 1;
            if idx[ax] < dst[ax] {
                break;
            }
            idx[ax] = 0;
        }
    }
    Ok(out)
}

/// Transforms `data` (row-major `dims`) along axis `ax`: forward, or the unscaled inverse.
fn along(data: &mut [Cx], dims: &[usize], ax: usize, inverse: bool) -> Result<()> {
    let n = dims[ax];
    if n <= 1 || data.is_empty() {
        return Ok(());
    }
    let inner: usize = dims[ax + 1..].iter().product();
    let plan = Plan::new(n)?;
    let mut line = buffer(n)?;
    let mut work = Vec::new();
    for block in data.chunks_exact_mut(n * inner) {
        for i in 0..inner {
            line.clear();
            // The inverse as conj(F(conj(x))).
            line.extend((0..n).map(|j| {
                let c = block[j * inner + i];
                if inverse {
                    c.conj()
                } else {
                    c
                }
            }));
            plan.run(&mut line, &mut work)?;
            for (j, c) in line.iter().enumerate() {
                block[j * inner + i] = if inverse { c.conj() } else { *c };
            }
        }
    }
    Ok(())
}

/// A forward DFT of one length, X[k] = sum_j x[j] e^{-2 pi i jk/n}.
enum Plan {
    /// A power of two: the twiddles e^{-2 pi i j/n}, j < n/2.
    Radix2(Vec<Cx>),
    /// Bluestein: x[j] w[j] convolved with conj(w) cyclically in a power-of-two length `m`
    /// (the `filter` is that conj(w) sequence's transform), times w[k], w[j] = e^{-pi i j^2/n}.
    Bluestein {
        chirp: Vec<Cx>,
        filter: Vec<Cx>,
        inner: Box<Plan>,
    },
}

impl Plan {
    fn new(n: usize) -> Result<Plan> {
        if n.is_power_of_two() {
            let mut tw = buffer(n / 2)?;
            tw.extend((0..n / 2).map(|j| twiddle(j as u64, n as u64)));
            return Ok(Plan::Radix2(tw));
        }
        let m = n
            .checked_mul(2)
            .and_then(|d| (d - 1).checked_next_power_of_two())
            .ok_or_else(|| resource_exhausted(format!("an FFT of length {n} is too long")))?;
        let mut chirp = buffer(n)?;
        // e^{-pi i j^2/n} = e^{-2 pi i j^2/2n}; j^2 < 2^62 is exact in u64.
        chirp.extend((0..n).map(|j| twiddle(j as u64 * j as u64, 2 * n as u64)));
        let mut filter = buffer(m)?;
        filter.resize(m, Cx::default());
        for (j, w) in chirp.iter().enumerate() {
            filter[j] = w.conj();
            if j > 0 {
                filter[m - j] = w.conj();
            }
        }
        let inner = Box::new(Plan::new(m)?);
        inner.run(&mut filter, &mut Vec::new())?;
        Ok(Plan::Bluestein {
            chirp,
            filter,
            inner,
        })
    }

    /// Transforms `x` in place; `work` is scratch kept between calls.
    fn run(&self, x: &mut [Cx], work: &mut Vec<Cx>) -> Result<()> {
        match self {
            Plan::Radix2(tw) => radix2(x, tw),
            Plan::Bluestein {
                chirp,
                filter,
                inner,
            } => {
                let m = filter.len();
                if work.capacity() < m {
                    *work = buffer(m)?;
                }
                work.clear();
                work.extend(x.iter().zip(chirp).map(|(&v, &w)| v.mul(w)));
                work.resize(m, Cx::default());
                inner.run(work, &mut Vec::new())?;
                // The inverse transform of the product, as conj(F(conj(.))) / m.
                for (v, f) in work.iter_mut().zip(filter) {
                    *v = v.mul(*f).conj();
                }
                inner.run(work, &mut Vec::new())?;
                let scale = 1.0 / m as f64;
                for ((o, v), w) in x.iter_mut().zip(work.iter()).zip(chirp) {
                    let c = Cx::new(v.re * scale, -v.im * scale);
                    *o = c.mul(*w);
                }
            }
        }
        Ok(())
    }
}

/// Iterative radix-2 decimation in time; `tw` holds e^{-2 pi i j/n} for j < n/2.
fn radix2(x: &mut [Cx], tw: &[Cx]) {
    let n = x.len();
    let mut j = 0;
    for i in 1..n {
        let mut bit = n >> 1;
        while j & bit != 0 {
            j ^= bit;
            bit >>= 1;
        }
        j |= bit;
        if i < j {
            x.swap(i, j);
        }
    }
    let mut len = 2;
    while len <= n {
        let (half, step) = (len / 2, n / len);
        for block in x.chunks_exact_mut(len) {
            let (lo, hi) = block.split_at_mut(half);
            for (k, (u, v)) in lo.iter_mut().zip(hi.iter_mut()).enumerate() {
                let t = v.mul(tw[k * step]);
                (*u, *v) = (u.add(t), u.sub(t));
            }
        }
        len <<= 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// e^{i theta} by libm, the reference.
    fn expi(theta: f64) -> Cx {
        Cx::new(theta.cos(), theta.sin())
    }

    /// The O(n^2) DFT, for checking both paths.
    fn dft(x: &[Cx]) -> Vec<Cx> {
        let n = x.len();
        (0..n)
            .map(|k| {
                x.iter().enumerate().fold(Cx::default(), |acc, (j, &v)| {
                    let r = (j * k % n) as f64;
                    acc.add(v.mul(expi(-std::f64::consts::TAU * r / n as f64)))
                })
            })
            .collect()
    }

    #[test]
    fn twiddles_match_libm() {
        for den in [1u64, 2, 3, 7, 8, 12, 34, 1000, 1 << 20, 999_983, 1 << 31] {
            for num in (0..3 * den).step_by((den as usize / 97).max(1)) {
                let got = twiddle(num, den);
                let want = expi(-std::f64::consts::TAU * (num % den) as f64 / den as f64);
                assert!(
                    (got.re - want.re).abs() < 1e-15 && (got.im - want.im).abs() < 1e-15,
                    "{num}/{den}: {got:?} vs {want:?}"
                );
            }
        }
    }

    #[test]
    fn radix2_and_bluestein_match_the_dft() {
        for n in [1usize, 2, 3, 5, 8, 12, 17, 31, 64, 100] {
            let x: Vec<Cx> = (0..n)
                .map(|j| Cx::new((j as f64 * 0.7).sin(), (j as f64 * 1.3).cos()))
                .collect();
            let mut y = x.clone();
            Plan::new(n).unwrap().run(&mut y, &mut Vec::new()).unwrap();
            for (a, b) in y.iter().zip(dft(&x)) {
                assert!(
                    (a.re - b.re).abs() < 1e-9 && (a.im - b.im).abs() < 1e-9,
                    "n={n}"
                );
            }
        }
    }
}
