//! A copy of a tensor's values rearranged into the layout a kernel wants (a weight's GEMM panels),
//! held by the tensor's buffer: made once when a model loads, freed with the buffer (its variable
//! destroyed or reassigned, its model disposed), counted in live figures of its own. The values
//! of a buffer never change, so a copy derived from them stays valid for as long as the buffer.

use std::cell::Cell;

/// What a packed copy holds, as its packer describes it; a kernel uses the copy only when the
/// layout it would make is equal to this one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PackedLayout {
    /// Which rearrangement (the packer's own numbering).
    pub kind: u32,
    pub rows: usize,
    pub cols: usize,
}

#[derive(Debug)]
pub struct Packed {
    layout: PackedLayout,
    data: Vec<f32>,
}

thread_local! {
    static LIVE_PACKED: Cell<usize> = const { Cell::new(0) };
    static LIVE_PACKED_BYTES: Cell<usize> = const { Cell::new(0) };
}

/// Live packed copies and their bytes (the heap their storage takes).
pub fn live_packed() -> (usize, usize) {
    (
        LIVE_PACKED.with(Cell::get),
        LIVE_PACKED_BYTES.with(Cell::get),
    )
}

impl Packed {
    pub fn new(layout: PackedLayout, data: Vec<f32>) -> Packed {
        let bytes = data.capacity() * size_of::<f32>();
        LIVE_PACKED.with(|c| c.set(c.get() + 1));
        LIVE_PACKED_BYTES.with(|c| c.set(c.get() + bytes));
        Packed { layout, data }
    }

    pub fn layout(&self) -> PackedLayout {
        self.layout
    }

    pub fn data(&self) -> &[f32] {
        &self.data
    }
}

impl Drop for Packed {
    fn drop(&mut self) {
        let bytes = self.data.capacity() * size_of::<f32>();
        LIVE_PACKED.with(|c| c.set(c.get() - 1));
        LIVE_PACKED_BYTES.with(|c| c.set(c.get() - bytes));
    }
}
