//! Single-threaded cache-blocked SGEMM: C = op(A) * op(B), then an optional per-row epilogue.
//!
//! BLIS-style loop nest: NC-wide column blocks of B and KC-deep slices are packed into NR-column
//! panels, MC-tall row blocks of A into MR-row panels, and an MR x NR register-blocked micro-kernel
//! walks the panels. Transposes are strides, resolved while packing, never materialized. The
//! epilogue runs on each row segment of a finished MC x NC tile, while it is still in cache.

use super::epilogue::RowEpilogue;
use super::simd::{load_at, BiasClamp, F4};
use crate::parallel;
use crate::status::{internal, invalid_argument, Result};
use crate::tensor::{flush_denormal, try_alloc, Packed, PackedLayout, Tensor};
use core::mem::MaybeUninit;
use std::borrow::Cow;

/// Micro-tile rows.
pub const MR: usize = 4;
/// Micro-tile columns (two f32x4 vectors).
pub const NR: usize = 8;
/// Depth of one packed slice: MR*KC + NR*KC floats stay in L1.
const KC: usize = 256;
/// Rows of A per packed block (a multiple of MR).
const MC: usize = 64;
/// Columns of B per packed block (a multiple of NR).
const NC: usize = 512;

/// A strided read-only matrix view: element (i, j) is `data[i * rs + j * cs]`.
#[derive(Clone, Copy, Debug)]
pub struct MatRef<'a> {
    data: &'a [f32],
    rows: usize,
    cols: usize,
    rs: usize,
    cs: usize,
    /// The same matrix already packed as a B operand (`pack_weight`), if it was.
    panels: Option<&'a [f32]>,
}

impl<'a> MatRef<'a> {
    /// `op(X)` of shape `rows x cols` where X is stored row-major: as is (`rows x cols`) or, when
    /// `transposed`, stored as `cols x rows`.
    pub fn new(data: &'a [f32], rows: usize, cols: usize, transposed: bool) -> Result<Self> {
        if transposed {
            Self::strided(data, rows, cols, 1, rows)
        } else {
            Self::strided(data, rows, cols, cols, 1)
        }
    }

    /// A general strided view; fails unless every element lies inside `data`.
    pub fn strided(
        data: &'a [f32],
        rows: usize,
        cols: usize,
        rs: usize,
        cs: usize,
    ) -> Result<Self> {
        if rows > 0 && cols > 0 {
            let last = (rows - 1)
                .checked_mul(rs)
                .and_then(|x| (cols - 1).checked_mul(cs).and_then(|y| x.checked_add(y)));
            if last.is_none_or(|l| l >= data.len()) {
                return Err(invalid_argument(format!(
                    "matrix view {rows}x{cols} (strides {rs},{cs}) exceeds {} elements",
                    data.len()
                )));
            }
        }
        Ok(MatRef {
            data,
            rows,
            cols,
            rs,
            cs,
            panels: None,
        })
    }

    /// The same matrix with its panels (as `whole_panels` makes them) given.
    pub fn with_panels(self, panels: &'a [f32]) -> Self {
        MatRef {
            panels: Some(panels),
            ..self
        }
    }

    pub fn rows(&self) -> usize {
        self.rows
    }

    pub fn cols(&self) -> usize {
        self.cols
    }

    #[inline(always)]
    fn at(&self, i: usize, j: usize) -> f32 {
        self.data
            .get(i * self.rs + j * self.cs)
            .copied()
            .unwrap_or(0.0)
    }

    /// Row `i` as a slice when rows are contiguous.
    fn row(&self, i: usize) -> Option<&'a [f32]> {
        if self.cs != 1 {
            return None;
        }
        self.data.get(i * self.rs..i * self.rs + self.cols)
    }

    /// Column `j` as a slice when columns are contiguous.
    fn col(&self, j: usize) -> Option<&'a [f32]> {
        if self.rs != 1 {
            return None;
        }
        self.data.get(j * self.cs..j * self.cs + self.rows)
    }
}

/// `PackedLayout::kind` of B packed into NR-column panels over its whole depth, panel after
/// panel (what `pack_b` makes of one block, for all of B): stored as is, or transposed.
const PANELS: u32 = 1;
const PANELS_T: u32 = 2;

/// The layout `pack_weight` gives `op(t)` of `rows x cols` (t stored transposed or not).
pub fn panel_layout(rows: usize, cols: usize, transposed: bool) -> PackedLayout {
    PackedLayout {
        kind: if transposed { PANELS_T } else { PANELS },
        rows,
        cols,
    }
}

/// Packs the float tensor `t`, as the B operand `op(t)` of `rows x cols`, into the panels every
/// product would otherwise pack per call, and attaches them to its buffer. False when there is
/// nothing to pack or the buffer already holds a copy. Denormals are flushed in the panels, as a
/// model's weights are at load (`flush_denormal`): weights written from JS (the TF.js backend's)
/// compute as TF computes them, at full speed.
pub fn pack_weight(t: &Tensor, rows: usize, cols: usize, transposed: bool) -> Result<bool> {
    if rows == 0 || cols == 0 || t.packed().is_some() {
        return Ok(false);
    }
    let b = MatRef::new(t.f32s()?, rows, cols, transposed)?;
    let len = cols
        .div_ceil(NR)
        .checked_mul(NR * rows)
        .ok_or_else(|| invalid_argument("weight too large to pack"))?;
    let mut panels = try_alloc::<f32>(len)?;
    pack_b(&b, 0, rows, 0, cols, &mut panels);
    for v in panels.iter_mut() {
        *v = flush_denormal(*v);
    }
    Ok(t.attach_packed(Packed::new(panel_layout(rows, cols, transposed), panels)))
}

/// The B operand `op(t)` of `rows x cols` in a product with `m` rows, with the panels
/// `pack_weight` attached when `t` has them for this very view. A weight marked packable is
/// packed here, on the first product that would pack it (fewer than MR rows never do: `skinny`
/// reads B as it is); if that fails, the product runs unpacked.
pub fn weight_ref(
    t: &Tensor,
    rows: usize,
    cols: usize,
    transposed: bool,
    m: usize,
) -> Result<MatRef<'_>> {
    if m >= MR && t.is_packable() && t.packed().is_none() {
        let _ = pack_weight(t, rows, cols, transposed);
    }
    let mut b = MatRef::new(t.f32s()?, rows, cols, transposed)?;
    if let Some(p) = t.packed() {
        let whole = cols.div_ceil(NR) * NR * rows;
        if p.layout() == panel_layout(rows, cols, transposed) && p.data().len() == whole {
            b.panels = Some(p.data());
        }
    }
    Ok(b)
}

/// Called with (row, first column, row segment of C) once the segment holds its final sum.
pub type Epilogue<'e> = &'e mut dyn FnMut(usize, usize, &mut [f32]);

/// C (row-major `a.rows() x b.cols()`, overwritten) = A * B, then `epilogue` on every row segment.
pub fn sgemm(a: MatRef<'_>, b: MatRef<'_>, c: &mut [f32], epilogue: Epilogue<'_>) -> Result<()> {
    let (m, k, n) = (a.rows, a.cols, b.cols);
    if b.rows != k {
        return Err(invalid_argument(format!(
            "gemm inner dimensions differ: {m}x{k} * {}x{n}",
            b.rows
        )));
    }
    if m.checked_mul(n) != Some(c.len()) {
        return Err(invalid_argument(format!(
            "gemm output has {} elements, {m}x{n} expected",
            c.len()
        )));
    }
    if m < MR && k > 0 && n > 0 && (b.cs == 1 || b.rs == 1) {
        return skinny(a, b, c, epilogue);
    }
    sgemm_at_least_mr(a, b, c, epilogue)
}

/// `sgemm` by packed blocks, never `skinny`: what a block of a parallel product takes whatever its
/// row count, so that it computes as the whole product would.
fn sgemm_at_least_mr(
    a: MatRef<'_>,
    b: MatRef<'_>,
    c: &mut [f32],
    epilogue: Epilogue<'_>,
) -> Result<()> {
    let (m, k, n) = (a.rows, a.cols, b.cols);
    if m.checked_mul(n) != Some(c.len()) || b.rows != k {
        return Err(internal("gemm: operand shapes disagree"));
    }
    if m == 0 || n == 0 {
        return Ok(());
    }
    if k == 0 {
        for (i, row) in c.chunks_exact_mut(n).enumerate() {
            row.fill(0.0);
            epilogue(i, 0, row);
        }
        return Ok(());
    }
    let kc_max = KC.min(k);
    let nc_max = NC.min(n).div_ceil(NR) * NR;
    let mc_max = MC.min(m).div_ceil(MR) * MR;
    let mut pa = try_alloc::<f32>(mc_max * kc_max)?;
    let mut pb = match b.panels {
        Some(_) => Vec::new(),
        None => try_alloc::<f32>(kc_max * nc_max)?,
    };
    let bad = || internal("gemm packing out of range");
    for jc in (0..n).step_by(NC) {
        let nc = NC.min(n - jc);
        for pc in (0..k).step_by(KC) {
            let kc = KC.min(k - pc);
            let first = pc == 0;
            let last = pc + kc == k;
            if b.panels.is_none() {
                pack_b(&b, pc, kc, jc, nc, &mut pb);
            }
            for ic in (0..m).step_by(MC) {
                let mc = MC.min(m - ic);
                pack_a(&a, ic, mc, pc, kc, &mut pa);
                for jr in (0..nc).step_by(NR) {
                    let nr = NR.min(nc - jr);
                    // A prepacked panel spans the whole depth: this slice of it is contiguous.
                    let pbp = match b.panels {
                        Some(all) => {
                            let off = ((jc + jr) / NR) * k * NR + pc * NR;
                            all.get(off..off + kc * NR)
                        }
                        None => {
                            let off = (jr / NR) * kc * NR;
                            pb.get(off..off + kc * NR)
                        }
                    }
                    .ok_or_else(bad)?;
                    for ir in (0..mc).step_by(MR) {
                        let mr = MR.min(mc - ir);
                        let off = (ir / MR) * kc * MR;
                        let pap = pa.get(off..off + kc * MR).ok_or_else(bad)?;
                        let acc = micro_kernel(pap, pbp);
                        store(c, n, ic + ir, jc + jr, mr, nr, &acc, first);
                    }
                }
                if last {
                    for i in ic..ic + mc {
                        let seg = c.get_mut(i * n + jc..i * n + jc + nc).ok_or_else(bad)?;
                        epilogue(i, jc, seg);
                    }
                }
            }
        }
    }
    Ok(())
}

/// Deepest product the direct path takes: the whole depth is accumulated in registers, so its B
/// panel (`KD * NR` floats, 20 KiB) and MR rows of A (10 KiB) stay in a 48 KiB L1. 640 covers
/// im2col depths up to 3x3x71 (a 3x3 conv on 64 channels: 1.2x faster than through packing).
const KD: usize = 640;

/// Rows per block when a row-wise epilogue follows the direct path (64 rows of up to 64 channels:
/// 16 KiB, in L1).
const REST_ROWS: usize = 64;

/// Multiply-adds below which a product stays on the calling thread: about 50 us of work, well
/// above what handing tasks to the pool's workers costs.
pub const PAR_MIN_WORK: usize = 1 << 20;

/// Appends C = A * B (row-major, `a.rows() x b.cols()`) to `out`, with the epilogue applied: the
/// bias + clamp part in registers where the direct path runs, the rest per finished row. `row0` is
/// the index of C's first row in the whole output (for row-indexed epilogue operands).
///
/// With threads (`crate::parallel`), C's rows are cut into blocks, one task each, against B packed
/// once: every element is computed exactly as on one thread (the same path, the same depth order).
pub fn gemm_into(
    a: MatRef<'_>,
    b: MatRef<'_>,
    out: &mut Vec<f32>,
    epi: &RowEpilogue<'_>,
    row0: usize,
) -> Result<()> {
    let (m, k, n) = (a.rows, a.cols, b.cols);
    let len = m
        .checked_mul(n)
        .ok_or_else(|| invalid_argument("gemm output too large"))?;
    let start = out.len();
    if start.checked_add(len).is_none_or(|e| e > out.capacity()) {
        return Err(internal("gemm output buffer too small"));
    }
    let direct = direct_path(&a, &b, epi);
    let tasks = if k == 0 || b.rows != k {
        1
    } else {
        parallel::tasks_for(len.saturating_mul(k), PAR_MIN_WORK).min(m / MR)
    };
    let spare = out
        .spare_capacity_mut()
        .get_mut(..len)
        .ok_or_else(|| internal("gemm output buffer too small"))?;
    if tasks > 1 {
        let panels = whole_panels(&b)?;
        let b = MatRef {
            panels: Some(&panels),
            ..b
        };
        let block = m.div_ceil(tasks).next_multiple_of(MR);
        // The rest of the epilogue reads tensors, which stay on this thread: it runs after.
        let fast = epi.fast;
        parallel::for_each_chunk_mut(spare, block * n, |t, c| {
            let fast = RowEpilogue { fast, rest: None };
            let r0 = t * block;
            let rows = c.len() / n;
            let a = MatRef::strided(a.data.get(r0 * a.rs..).unwrap_or(&[]), rows, k, a.rs, a.cs)?;
            gemm_rows(a, b, c, &fast, direct, row0 + r0)
        })?;
        // SAFETY: every task returned Ok, so `gemm_rows` wrote every element of its block, and
        // the blocks cover the `len` slots after the current length (within the capacity).
        unsafe { out.set_len(start + len) };
        epi.apply_rest(&mut out[start..], n, row0);
        return Ok(());
    }
    gemm_slice(a, b, spare, epi, row0)?;
    // SAFETY: `gemm_slice` returned Ok, so it wrote all `len` slots after the current length.
    unsafe { out.set_len(start + len) };
    Ok(())
}

/// `gemm_into` on one thread, into every element of `c` (`a.rows() x b.cols()`): for kernels that
/// cut their work into tasks themselves.
pub fn gemm_slice(
    a: MatRef<'_>,
    b: MatRef<'_>,
    c: &mut [MaybeUninit<f32>],
    epi: &RowEpilogue<'_>,
    row0: usize,
) -> Result<()> {
    let direct = direct_path(&a, &b, epi);
    if !direct && a.rows < MR {
        return sgemm(a, b, zero_filled(c), &mut |r, col, seg| {
            epi.row(row0 + r, col, seg)
        });
    }
    gemm_rows(a, b, c, epi, direct, row0)
}

/// Whether a product takes the direct path: contiguous rows of A, at least MR of them, a depth
/// that fits in registers' reach, and epilogue operands of the right length.
fn direct_path(a: &MatRef<'_>, b: &MatRef<'_>, epi: &RowEpilogue<'_>) -> bool {
    let (m, k, n) = (a.rows, a.cols, b.cols);
    let fast_ok = epi.fast.bias.is_none_or(|bias| bias.len() == n)
        && epi.fast.alpha.is_none_or(|alpha| alpha.len() == n);
    a.cs == 1 && m >= MR && (1..=KD).contains(&k) && b.rows == k && fast_ok
}

/// `c` with every element set to 0, as initialized floats.
fn zero_filled(c: &mut [MaybeUninit<f32>]) -> &mut [f32] {
    for x in c.iter_mut() {
        x.write(0.0);
    }
    // SAFETY: every element was just written; `MaybeUninit<f32>` has f32's layout.
    unsafe { &mut *(c as *mut [MaybeUninit<f32>] as *mut [f32]) }
}

/// C = A * B with `epi`, written into every element of `c` (`a.rows() x b.cols()`): by the direct
/// path (`direct`, decided for the whole product, so that a block of it takes the same path) or
/// by packed blocks (never `skinny`, whatever the block's row count, for the same reason).
fn gemm_rows(
    a: MatRef<'_>,
    b: MatRef<'_>,
    c: &mut [MaybeUninit<f32>],
    epi: &RowEpilogue<'_>,
    direct: bool,
    row0: usize,
) -> Result<()> {
    let (m, k, n) = (a.rows, a.cols, b.cols);
    if !direct {
        return sgemm_at_least_mr(a, b, zero_filled(c), &mut |r, col, seg| {
            epi.row(row0 + r, col, seg)
        });
    }
    // A row-wise rest of the epilogue runs on blocks of REST_ROWS rows while they are in cache,
    // against B packed once; without one, one block.
    let packed = match epi.rest {
        Some(_) if m > REST_ROWS => Some(whole_panels(&b)?),
        _ => None,
    };
    let b = MatRef {
        panels: packed.as_deref().or(b.panels),
        ..b
    };
    let step = if packed.is_some() { REST_ROWS } else { m };
    for i0 in (0..m).step_by(step.max(1)) {
        let rows = step.min(m - i0);
        let ai = MatRef::strided(a.data.get(i0 * a.rs..).unwrap_or(&[]), rows, k, a.rs, 1)?;
        let block = c
            .get_mut(i0 * n..(i0 + rows) * n)
            .ok_or_else(|| internal("gemm output buffer too small"))?;
        sgemm_direct(ai, b, block, epi.fast)?;
        if let Some(rest) = epi.rest {
            // SAFETY: `sgemm_direct` returned Ok, so it wrote every element of `block` (see its
            // contract); `MaybeUninit<f32>` has f32's layout.
            let block = unsafe { &mut *(block as *mut [MaybeUninit<f32>] as *mut [f32]) };
            for (i, row) in block.chunks_exact_mut(n.max(1)).enumerate() {
                rest.apply_row(row0 + i0 + i, 0, row);
            }
        }
    }
    Ok(())
}

/// C = A * B with `epi` applied in registers, for A with contiguous rows: B is packed into
/// NR-column panels, A is read in place (MR rows at a time), and each MR x NR tile is computed
/// over the whole depth, finished and stored once. On `Ok`, every element of `c` (exactly
/// `a.rows() * b.cols()` long) has been written; `gemm_into` relies on that.
fn sgemm_direct(
    a: MatRef<'_>,
    b: MatRef<'_>,
    c: &mut [MaybeUninit<f32>],
    epi: BiasClamp<'_>,
) -> Result<()> {
    let (m, k, n) = (a.rows, a.cols, b.cols);
    if b.rows != k || m.checked_mul(n) != Some(c.len()) {
        return Err(internal("gemm_direct: operand shapes disagree"));
    }
    if m == 0 || n == 0 {
        return Ok(());
    }
    if k == 0 {
        // (pack_b needs a depth; gemm_into sends k = 0 to `sgemm`.)
        return Err(internal("gemm_direct: empty depth"));
    }
    let bad = || internal("gemm_direct: index out of range");
    let nc_max = NC.min(n).div_ceil(NR) * NR;
    let mut pb = match b.panels {
        Some(_) => Vec::new(),
        None => try_alloc::<f32>(k * nc_max)?,
    };
    // Covering argument for the contract: jc steps over 0..n by NC, jr over 0..nc by NR, i over
    // 0..m by MR; every (row, column) pair lies in exactly one (i, jc + jr) tile, and each tile
    // stores all of its `mr` rows and `nr` columns (`store_tile`) or returns Err.
    for jc in (0..n).step_by(NC) {
        let nc = NC.min(n - jc);
        // The block's panels: prepacked ones from panel jc / NR on, or packed now from 0.
        let (panels, first_panel) = match b.panels {
            Some(all) => (all, jc / NR),
            None => {
                pack_b(&b, 0, k, jc, nc, &mut pb);
                (&pb[..], 0)
            }
        };
        for i in (0..m).step_by(MR) {
            let mr = MR.min(m - i);
            // Rows past the end repeat the last one (computed, never stored).
            let mut rows: [&[f32]; MR] = [&[]; MR];
            for (r, row) in rows.iter_mut().enumerate() {
                *row = a.row(i + r.min(mr - 1)).ok_or_else(bad)?;
            }
            let mut out = block_rows(c, n, (i, mr))?;
            for jr in (0..nc).step_by(NR) {
                let nr = NR.min(nc - jr);
                let off = (first_panel + jr / NR) * k * NR;
                let panel = panels.get(off..off + k * NR).ok_or_else(bad)?;
                let acc = tile_acc([[F4::splat(0.0); 2]; MR], &rows, panel);
                store_tile(&mut out, mr, (jc + jr, nr), acc, &epi)?;
            }
        }
    }
    Ok(())
}

/// B's NR-column panels over its whole depth (as `pack_weight` lays them out): the prepacked ones,
/// or packed now.
pub fn whole_panels<'a>(b: &MatRef<'a>) -> Result<Cow<'a, [f32]>> {
    if let Some(p) = b.panels {
        return Ok(Cow::Borrowed(p));
    }
    let mut pb = try_alloc::<f32>(b.cols.div_ceil(NR) * NR * b.rows)?;
    pack_b(b, 0, b.rows, 0, b.cols, &mut pb);
    Ok(Cow::Owned(pb))
}

/// `acc` plus the MR x NR product of `rows` (MR rows of A, each as long as the depth) and `panel`
/// (that depth of one packed B panel, `depth * NR`). By value: the tile stays in registers.
#[inline(always)]
pub fn tile_acc(acc: [[F4; 2]; MR], rows: &[&[f32]; MR], panel: &[f32]) -> [[F4; 2]; MR] {
    let mut acc = acc;
    let [r0, r1, r2, r3] = *rows;
    for ((((&a0, &a1), &a2), &a3), bp) in r0
        .iter()
        .zip(r1)
        .zip(r2)
        .zip(r3)
        .zip(panel.chunks_exact(NR))
    {
        let Ok(bp) = <&[f32; NR]>::try_from(bp) else {
            continue;
        };
        let (Ok(lo), Ok(hi)) = (
            <&[f32; 4]>::try_from(&bp[..4]),
            <&[f32; 4]>::try_from(&bp[4..]),
        ) else {
            continue;
        };
        let (b0, b1) = (F4::load(lo), F4::load(hi));
        for (acc, a) in acc.iter_mut().zip([a0, a1, a2, a3]) {
            let a = F4::splat(a);
            acc[0] = a.mul_add(b0, acc[0]);
            acc[1] = a.mul_add(b1, acc[1]);
        }
    }
    acc
}

/// Output rows `i..i + mr` of C (row-major, `n` columns), one slice each: what `store_tile`
/// writes a row block's tiles into (rows from `mr` on are empty).
#[inline(always)]
pub fn block_rows(
    c: &mut [MaybeUninit<f32>],
    n: usize,
    (i, mr): (usize, usize),
) -> Result<[&mut [MaybeUninit<f32>]; MR]> {
    let block = c
        .get_mut(i * n..(i + mr) * n)
        .ok_or_else(|| internal("gemm: row block out of range"))?;
    let mut rows = block.chunks_exact_mut(n.max(1));
    Ok(core::array::from_fn(|_| rows.next().unwrap_or(&mut [])))
}

/// Finishes a tile: bias, clamp, and stores its `mr x nr` corner at columns `j..` of `out` (its
/// row block, `block_rows`). Every one of those elements is written, or Err.
///
/// A whole tile takes a path with no call on it, and skips the parts of the epilogue that do
/// nothing (no bias, an infinite bound): the tile's own loop is bound by the vector units, and
/// a clamp to +-inf was 16 of their ops a tile. Partial tiles go out of line: their copies of
/// variable length are calls under V8, and a call in here made V8 spill and reload all eight
/// accumulators on every tile. (Together: 3% of a 1x1 conv at depth 32 in Node.)
#[inline(always)]
pub fn store_tile(
    out: &mut [&mut [MaybeUninit<f32>]; MR],
    mr: usize,
    (j, nr): (usize, usize),
    acc: [[F4; 2]; MR],
    epi: &BiasClamp<'_>,
) -> Result<()> {
    if mr != MR || nr != NR {
        let mut t = [[0f32; NR]; MR];
        for (t, a) in t.iter_mut().zip(&acc) {
            let (lo, hi) = t.split_at_mut(4);
            lo.copy_from_slice(&a[0].to_array());
            hi.copy_from_slice(&a[1].to_array());
        }
        return store_partial_tile(out, mr, (j, nr), &t, epi);
    }
    let bad = || internal("gemm: tile out of range");
    let mut acc = acc;
    if let Some(bv) = epi.bias {
        let (b0, b1) = (
            load_at(bv, j).ok_or_else(bad)?,
            load_at(bv, j + 4).ok_or_else(bad)?,
        );
        for a in acc.iter_mut() {
            a[0] = a[0] + b0;
            a[1] = a[1] + b1;
        }
    }
    if epi.lo != f32::NEG_INFINITY {
        let lo = F4::splat(epi.lo);
        for a in acc.iter_mut() {
            a[0] = a[0].max(lo);
            a[1] = a[1].max(lo);
        }
    }
    if epi.hi != f32::INFINITY {
        let hi = F4::splat(epi.hi);
        for a in acc.iter_mut() {
            a[0] = a[0].min(hi);
            a[1] = a[1].min(hi);
        }
    }
    if let Some(al) = epi.alpha {
        let (a0, a1) = (
            load_at(al, j).ok_or_else(bad)?,
            load_at(al, j + 4).ok_or_else(bad)?,
        );
        for a in acc.iter_mut() {
            a[0] = a[0].prelu(a0);
            a[1] = a[1].prelu(a1);
        }
    }
    for (row, acc) in out.iter_mut().zip(&acc) {
        let dst = row.get_mut(j..j + NR).ok_or_else(bad)?;
        let (d0, d1) = dst.split_at_mut(4);
        acc[0].store_uninit(d0.try_into().map_err(|_| bad())?);
        acc[1].store_uninit(d1.try_into().map_err(|_| bad())?);
    }
    Ok(())
}

/// `store_tile` for a tile cut short by C's last rows or columns: the raw sums in `t`, then the
/// epilogue in scalar code.
#[inline(never)]
fn store_partial_tile(
    out: &mut [&mut [MaybeUninit<f32>]; MR],
    mr: usize,
    (j, nr): (usize, usize),
    t: &[[f32; NR]; MR],
    epi: &BiasClamp<'_>,
) -> Result<()> {
    let bad = || internal("gemm: tile out of range");
    for (row, t) in out.iter_mut().zip(t).take(mr) {
        let dst = row.get_mut(j..j + nr).ok_or_else(bad)?;
        let mut vals = *t;
        let seg = vals.get_mut(..nr).ok_or_else(bad)?;
        epi.apply(j, seg);
        for (d, &v) in dst.iter_mut().zip(seg.iter()) {
            d.write(v);
        }
    }
    Ok(())
}

/// Fewer rows than a micro-tile (a dense layer on one example): packing B would cost as much as
/// the product, so stream B directly: row axpys when B's rows are contiguous, dot products when
/// its columns are.
fn skinny(a: MatRef<'_>, b: MatRef<'_>, c: &mut [f32], epilogue: Epilogue<'_>) -> Result<()> {
    let (k, n) = (a.cols, b.cols);
    let mut arow = Vec::new();
    for (i, out) in c.chunks_exact_mut(n).enumerate() {
        arow.clear();
        match a.row(i) {
            Some(r) => arow.extend_from_slice(r),
            None => arow.extend((0..k).map(|p| a.at(i, p))),
        }
        if b.cs == 1 {
            vec_times_rows(&arow, &b, out)?;
        } else {
            for (j, o) in out.iter_mut().enumerate() {
                let col = b
                    .col(j)
                    .ok_or_else(|| internal("gemm column view out of range"))?;
                *o = dot(&arow, col);
            }
        }
        epilogue(i, 0, out);
    }
    Ok(())
}

/// `out = x * B` for row-major B (`b.cs == 1`): column blocks of 32, then 4, then 1, each summed
/// over all of B's rows in registers (a block of 32 is 8 vectors, half of x86's 16). Each output
/// is summed in row order, one product at a time, as a plain loop over rows would.
fn vec_times_rows(x: &[f32], b: &MatRef<'_>, out: &mut [f32]) -> Result<()> {
    let n = out.len();
    let wide = n - n % 32;
    let narrow = n - n % 4;
    for j0 in (0..wide).step_by(32) {
        column_block::<8>(x, b, j0, &mut out[j0..j0 + 32])?;
    }
    for j0 in (wide..narrow).step_by(4) {
        column_block::<1>(x, b, j0, &mut out[j0..j0 + 4])?;
    }
    for (j, o) in out.iter_mut().enumerate().skip(narrow) {
        *o = 0.0;
        for (p, &s) in x.iter().enumerate() {
            *o += s * b.at(p, j);
        }
    }
    Ok(())
}

/// `out` (4*V columns from `j0`) = x * B's columns `j0..j0 + 4V`, V vectors held in registers.
#[inline(always)]
fn column_block<const V: usize>(
    x: &[f32],
    b: &MatRef<'_>,
    j0: usize,
    out: &mut [f32],
) -> Result<()> {
    let mut acc = [F4::splat(0.0); V];
    for (p, &s) in x.iter().enumerate() {
        let at = p * b.rs + j0;
        let row = b
            .data
            .get(at..at + 4 * V)
            .ok_or_else(|| internal("gemm row view out of range"))?;
        let s = F4::splat(s);
        for (acc, lanes) in acc.iter_mut().zip(row.chunks_exact(4)) {
            if let Ok(lanes) = <&[f32; 4]>::try_from(lanes) {
                *acc = F4::load(lanes).mul_add(s, *acc);
            }
        }
    }
    for (acc, d) in acc.iter().zip(out.chunks_exact_mut(4)) {
        if let Ok(d) = <&mut [f32; 4]>::try_from(d) {
            acc.store(d);
        }
    }
    Ok(())
}

/// Dot product with 8 independent partial sums so it vectorizes.
fn dot(x: &[f32], y: &[f32]) -> f32 {
    let mut acc = [0f32; 8];
    let xc = x.chunks_exact(8);
    let yc = y.chunks_exact(8);
    let (xr, yr) = (xc.remainder(), yc.remainder());
    for (p, q) in xc.zip(yc) {
        for l in 0..8 {
            acc[l] += p[l] * q[l];
        }
    }
    let mut s: f32 = acc.iter().sum();
    for (p, q) in xr.iter().zip(yr) {
        s += p * q;
    }
    s
}

/// Packs rows `i0..i0+mc`, depth `p0..p0+kc` of A into MR-row panels (zero-filled past `mc`):
/// panel-major, then depth, then the MR rows.
fn pack_a(a: &MatRef<'_>, i0: usize, mc: usize, p0: usize, kc: usize, out: &mut [f32]) {
    for (panel, chunk) in out
        .chunks_exact_mut(kc * MR)
        .take(mc.div_ceil(MR))
        .enumerate()
    {
        let ib = i0 + panel * MR;
        let rows = MR.min(i0 + mc - ib);
        if a.rs == 1 && rows == MR {
            // Columns of A are contiguous (a transposed operand): MR rows at depth p are adjacent.
            for (p, dst) in chunk.chunks_exact_mut(MR).enumerate() {
                let s = (p0 + p) * a.cs + ib;
                match a.data.get(s..s + MR) {
                    Some(src) => dst.copy_from_slice(src),
                    None => dst.fill(0.0),
                }
            }
            continue;
        }
        for r in 0..MR {
            match (r < rows).then(|| a.row(ib + r)).flatten() {
                Some(row) => {
                    for (dst, &v) in chunk
                        .iter_mut()
                        .skip(r)
                        .step_by(MR)
                        .zip(row.iter().skip(p0).take(kc))
                    {
                        *dst = v;
                    }
                }
                None => {
                    for (p, dst) in chunk.iter_mut().skip(r).step_by(MR).enumerate() {
                        *dst = if r < rows { a.at(ib + r, p0 + p) } else { 0.0 };
                    }
                }
            }
        }
    }
}

/// Packs depth `p0..p0+kc`, columns `j0..j0+nc` of B into NR-column panels (zero-filled past
/// `nc`): panel-major, then depth, then the NR columns.
fn pack_b(b: &MatRef<'_>, p0: usize, kc: usize, j0: usize, nc: usize, out: &mut [f32]) {
    for (panel, chunk) in out
        .chunks_exact_mut(kc * NR)
        .take(nc.div_ceil(NR))
        .enumerate()
    {
        let jb = j0 + panel * NR;
        let cols = NR.min(j0 + nc - jb);
        for (p, dst) in chunk.chunks_exact_mut(NR).enumerate() {
            let row = p0 + p;
            if b.cs == 1 && cols == NR {
                let s = row * b.rs + jb;
                if let Some(src) = b.data.get(s..s + NR) {
                    dst.copy_from_slice(src);
                    continue;
                }
            }
            for (c, d) in dst.iter_mut().enumerate() {
                *d = if c < cols { b.at(row, jb + c) } else { 0.0 };
            }
        }
    }
}

/// Writes (or, after the first depth slice, adds) the valid `mr x nr` corner of a micro-tile.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn store(
    c: &mut [f32],
    ldc: usize,
    i: usize,
    j: usize,
    mr: usize,
    nr: usize,
    acc: &[[f32; NR]; MR],
    first: bool,
) {
    for (r, accr) in acc.iter().enumerate().take(mr) {
        let s = (i + r) * ldc + j;
        if let Some(dst) = c.get_mut(s..s + nr) {
            if first {
                dst.copy_from_slice(&accr[..nr]);
            } else {
                for (d, &v) in dst.iter_mut().zip(accr) {
                    *d += v;
                }
            }
        }
    }
}

/// The MR x NR micro-kernel over one packed A panel and one packed B panel.
#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
#[inline(always)]
fn micro_kernel(pa: &[f32], pb: &[f32]) -> [[f32; NR]; MR] {
    // Fixed-size arrays and loops: LLVM keeps `acc` in registers and vectorizes the NR loop.
    let mut acc = [[0f32; NR]; MR];
    for (a, b) in pa.chunks_exact(MR).zip(pb.chunks_exact(NR)) {
        let (Ok(a), Ok(b)) = (<&[f32; MR]>::try_from(a), <&[f32; NR]>::try_from(b)) else {
            continue;
        };
        for r in 0..MR {
            for c in 0..NR {
                acc[r][c] += a[r] * b[c];
            }
        }
    }
    acc
}

/// The micro-kernel in explicit SIMD128: eight f32x4 accumulators, splat(A) x two B vectors
/// (multiply-adds fused in the relaxed-SIMD build).
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
#[inline(always)]
fn micro_kernel(pa: &[f32], pb: &[f32]) -> [[f32; NR]; MR] {
    use super::simd::madd;
    use core::arch::wasm32::{f32x4, f32x4_extract_lane, f32x4_splat};
    let zero = f32x4_splat(0.0);
    let mut acc = [[zero; 2]; MR];
    for (a, b) in pa.chunks_exact(MR).zip(pb.chunks_exact(NR)) {
        let (Ok(a), Ok(b)) = (<&[f32; MR]>::try_from(a), <&[f32; NR]>::try_from(b)) else {
            continue;
        };
        // Adjacent scalar reads of a fixed array; LLVM merges them into one v128.load each.
        let b0 = f32x4(b[0], b[1], b[2], b[3]);
        let b1 = f32x4(b[4], b[5], b[6], b[7]);
        for r in 0..MR {
            let ar = f32x4_splat(a[r]);
            acc[r][0] = madd(ar, b0, acc[r][0]);
            acc[r][1] = madd(ar, b1, acc[r][1]);
        }
    }
    let mut out = [[0f32; NR]; MR];
    for (o, v) in out.iter_mut().zip(&acc) {
        for h in 0..2 {
            o[h * 4] = f32x4_extract_lane::<0>(v[h]);
            o[h * 4 + 1] = f32x4_extract_lane::<1>(v[h]);
            o[h * 4 + 2] = f32x4_extract_lane::<2>(v[h]);
            o[h * 4 + 3] = f32x4_extract_lane::<3>(v[h]);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn naive(a: &[f32], b: &[f32], m: usize, k: usize, n: usize, ta: bool, tb: bool) -> Vec<f32> {
        let mut c = vec![0f32; m * n];
        for i in 0..m {
            for j in 0..n {
                let mut s = 0f64;
                for p in 0..k {
                    let x = if ta { a[p * m + i] } else { a[i * k + p] };
                    let y = if tb { b[j * k + p] } else { b[p * n + j] };
                    s += x as f64 * y as f64;
                }
                c[i * n + j] = s as f32;
            }
        }
        c
    }

    fn fill(n: usize, seed: u32) -> Vec<f32> {
        let mut s = seed.wrapping_mul(2654435761).wrapping_add(1);
        (0..n)
            .map(|_| {
                s ^= s << 13;
                s ^= s >> 17;
                s ^= s << 5;
                (s % 2001) as f32 / 1000.0 - 1.0
            })
            .collect()
    }

    #[test]
    fn matches_naive_on_odd_sizes_all_transposes() {
        check_against_naive();
    }

    /// The same check on wasm, where the explicit SIMD128 micro-kernel is the one compiled
    /// (`cargo test --target wasm32-unknown-unknown --lib gemm`).
    #[cfg(target_arch = "wasm32")]
    #[wasm_bindgen_test::wasm_bindgen_test]
    fn wasm_simd_matches_naive() {
        check_against_naive();
    }

    fn check_against_naive() {
        for &(m, k, n) in &[
            (1, 1, 1),
            (3, 5, 7),
            (17, 33, 9),
            (65, 70, 130),
            (5, 300, 600),
            (2, 9, 11),
            (4, 0, 8),
            (7, 16, 20),
            (36, 72, 32),
            // Fewer rows than MR: `skinny`, with column blocks of 32, 4 and 1.
            (1, 50, 77),
            (3, 40, 36),
            // The direct path's depth limit and one past it (packed path).
            (9, KD, 13),
            (6, KD + 1, 10),
        ] {
            for ta in [false, true] {
                for tb in [false, true] {
                    let a = fill(m * k, (m * 31 + k) as u32);
                    let b = fill(k * n, (n * 17 + k) as u32);
                    let want = naive(&a, &b, m, k, n, ta, tb);
                    let mut got = vec![f32::NAN; m * n];
                    let mut rows_seen = vec![0usize; m];
                    let mut epi = |i: usize, _j: usize, seg: &mut [f32]| {
                        rows_seen[i] += seg.len();
                    };
                    sgemm(
                        MatRef::new(&a, m, k, ta).unwrap(),
                        MatRef::new(&b, k, n, tb).unwrap(),
                        &mut got,
                        &mut epi,
                    )
                    .unwrap();
                    assert!(rows_seen.iter().all(|&r| r == n), "epilogue coverage");
                    for (x, y) in got.iter().zip(&want) {
                        assert!(
                            (x - y).abs() <= 1e-4 * (1.0 + y.abs()),
                            "{m}x{k}x{n} ta={ta} tb={tb}: {x} vs {y}"
                        );
                    }
                    // gemm_into (the direct path when A's rows are contiguous), appended after
                    // existing data, with a bias + Relu6 and a bias + PReLU epilogue in registers.
                    let bias: Vec<f32> = (0..n).map(|j| j as f32 * 0.25 - 1.0).collect();
                    let alpha: Vec<f32> = (0..n).map(|j| 0.5 - j as f32 * 0.125).collect();
                    let relu6 = BiasClamp {
                        bias: Some(&bias),
                        lo: 0.0,
                        hi: 6.0,
                        alpha: None,
                    };
                    let prelu = BiasClamp {
                        bias: Some(&bias),
                        alpha: Some(&alpha),
                        ..BiasClamp::NONE
                    };
                    for fast in [relu6, prelu] {
                        let epi = RowEpilogue { fast, rest: None };
                        let mut out = Vec::with_capacity(3 + m * n);
                        out.extend([7.0f32; 3]);
                        gemm_into(
                            MatRef::new(&a, m, k, ta).unwrap(),
                            MatRef::new(&b, k, n, tb).unwrap(),
                            &mut out,
                            &epi,
                            0,
                        )
                        .unwrap();
                        assert_eq!(out.len(), 3 + m * n);
                        assert_eq!(out[..3], [7.0; 3]);
                        for (i, (x, y)) in out[3..].iter().zip(&want).enumerate() {
                            let y = (y + bias[i % n]).clamp(fast.lo, fast.hi);
                            let y = match fast.alpha {
                                Some(al) if y < 0.0 => y * al[i % n],
                                _ => y,
                            };
                            assert!(
                                (x - y).abs() <= 1e-4 * (1.0 + y.abs()),
                                "gemm_into {m}x{k}x{n} ta={ta} tb={tb}: {x} vs {y}"
                            );
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn packed_weights_read_denormals_as_zero() {
        let (k, n) = (3, 9);
        let mut w: Vec<f32> = fill(k * n, 5);
        w[0] = 1e-40;
        w[10] = -1e-41;
        let shape = crate::tensor::Shape::new(vec![k, n]).unwrap();
        let t = crate::tensor::Tensor::from_vec(shape, w).unwrap();
        assert!(pack_weight(&t, k, n, false).unwrap());
        let panels = t.packed().unwrap().data();
        assert!(panels.iter().all(|v| !v.is_subnormal()));
        let zeros = panels.iter().filter(|v| **v == 0.0).count();
        assert!(zeros >= 2, "the two denormals read as zeros");
        // The original tensor is untouched: only the product's copy is flushed.
        assert_eq!(t.f32s().unwrap()[0], 1e-40);
    }

    #[test]
    fn rejects_bad_views() {
        assert!(MatRef::new(&[0.0; 5], 2, 3, false).is_err());
        let a = MatRef::new(&[1.0; 6], 2, 3, false).unwrap();
        let b = MatRef::new(&[1.0; 6], 2, 3, false).unwrap();
        assert!(sgemm(a, b, &mut [0.0; 9], &mut |_, _, _| {}).is_err());
        let mut z = [5.0f32; 4];
        let a = MatRef::new(&[], 2, 0, false).unwrap();
        let b = MatRef::new(&[], 0, 2, false).unwrap();
        sgemm(a, b, &mut z, &mut |_, _, _| {}).unwrap();
        assert_eq!(z, [0.0; 4]);
    }
}
