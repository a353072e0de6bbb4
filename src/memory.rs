//! Exact heap accounting: a counting wrapper around the system allocator, and the one memory report
//! every surface (Rust, JS, demo) shows.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicPtr, Ordering};

/// Memory held back for the small allocations that finish a call once memory is full: the call's
/// own bookkeeping, its error and message. Rust aborts on a failed infallible allocation, which on
/// wasm kills the instance; with the reserve, such an allocation is retried after giving the
/// reserve back, and `ensure_headroom` refuses new work until the reserve can be taken again.
pub const RESERVE_BYTES: usize = 256 << 10;

const RESERVE_LAYOUT: Layout = match Layout::from_size_align(RESERVE_BYTES, 16) {
    Ok(l) => l,
    Err(_) => panic!("reserve layout"),
};

/// The reserve while held (not counted in the heap figures: it is not the program's memory).
static RESERVE: AtomicPtr<u8> = AtomicPtr::new(std::ptr::null_mut());

/// Gives the reserve back to the system allocator for an allocation of `size` bytes that failed;
/// true if that may now succeed. Only small ones: a large request (a tensor buffer, asked for
/// fallibly) must fail rather than take the room the rest of its call needs.
fn spend_reserve(size: usize) -> bool {
    if size > RESERVE_BYTES / 16 {
        return false;
    }
    let p = RESERVE.swap(std::ptr::null_mut(), Ordering::AcqRel);
    if p.is_null() {
        return false;
    }
    // SAFETY: `p` came from `System.alloc(RESERVE_LAYOUT)` in `ensure_headroom`, and the swap
    // above took it out of `RESERVE`, so it is freed exactly once.
    unsafe { System.dealloc(p, RESERVE_LAYOUT) };
    true
}

/// Whether the reserve is held, taking it again if it was spent: false when memory is too full for
/// a call to allocate safely. Entry points that allocate check this first.
pub fn ensure_headroom() -> bool {
    if !RESERVE.load(Ordering::Acquire).is_null() {
        return true;
    }
    // SAFETY: a valid, non-zero-sized layout.
    let p = unsafe { System.alloc(RESERVE_LAYOUT) };
    if p.is_null() {
        return false;
    }
    if RESERVE
        .compare_exchange(std::ptr::null_mut(), p, Ordering::AcqRel, Ordering::Acquire)
        .is_err()
    {
        // SAFETY: `p` was just allocated with this layout and is not stored anywhere.
        unsafe { System.dealloc(p, RESERVE_LAYOUT) };
    }
    true
}

/// Whether `bytes` more could be allocated now (in one piece), with the reserve still held after:
/// a trial allocation, given back at once.
pub fn can_allocate(bytes: usize) -> bool {
    if !ensure_headroom() {
        return false;
    }
    let Ok(layout) = Layout::from_size_align(bytes.max(1), 16) else {
        return false;
    };
    // SAFETY: a valid, non-zero-sized layout; the block is freed right away with it.
    let p = unsafe { System.alloc(layout) };
    if p.is_null() {
        return false;
    }
    // SAFETY: as above.
    unsafe { System.dealloc(p, layout) };
    true
}

/// Counts live bytes, the high-water mark and allocation calls. On wasm32 the counters are the
/// instance's: one set, shared by the threads of the threaded build (a kernel's scratch buffers are
/// allocated on workers too, and worker stacks come from this heap). Natively they are per thread,
/// which keeps figures exact under a multi-threaded test runner (Rust tensors are `Rc`, so an
/// allocation is freed on the thread that made it; parallel kernels free their scratch on the
/// thread that made it too).
pub struct CountingAllocator;

#[cfg(target_arch = "wasm32")]
mod counters {
    use std::sync::atomic::{AtomicI64, AtomicUsize, Ordering::Relaxed};

    // i64, not isize: on wasm32 an isize turns negative past 2 GiB in use. Relaxed: each figure is
    // read on its own; without the atomics feature these are plain loads and stores.
    static LIVE_BYTES: AtomicI64 = AtomicI64::new(0);
    static PEAK_BYTES: AtomicI64 = AtomicI64::new(0);
    static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

    pub fn add(size: usize) {
        let now = LIVE_BYTES
            .fetch_add(size as i64, Relaxed)
            .wrapping_add(size as i64);
        // A new high is rare: the read-modify-write (a compare-exchange loop in wasm) only then.
        if now > PEAK_BYTES.load(Relaxed) {
            PEAK_BYTES.fetch_max(now, Relaxed);
        }
        ALLOCATIONS.fetch_add(1, Relaxed);
    }
    pub fn sub(size: usize) {
        LIVE_BYTES.fetch_sub(size as i64, Relaxed);
    }
    pub fn live() -> i64 {
        LIVE_BYTES.load(Relaxed)
    }
    pub fn peak() -> i64 {
        PEAK_BYTES.load(Relaxed)
    }
    pub fn allocations() -> usize {
        ALLOCATIONS.load(Relaxed)
    }
    pub fn reset_peak() {
        PEAK_BYTES.store(live(), Relaxed);
    }
}

#[cfg(not(target_arch = "wasm32"))]
mod counters {
    use std::cell::Cell;

    thread_local! {
        // Const-initialized without Drop: no lazy registration, so safe to touch inside the
        // allocator.
        static LIVE_BYTES: Cell<i64> = const { Cell::new(0) };
        static PEAK_BYTES: Cell<i64> = const { Cell::new(0) };
        static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
    }

    // `try_with`: during thread teardown the slots may be gone; the figures then stop mattering.
    pub fn add(size: usize) {
        let _ = LIVE_BYTES.try_with(|live| {
            let now = live.get().wrapping_add(size as i64);
            live.set(now);
            let _ = PEAK_BYTES.try_with(|p| p.set(p.get().max(now)));
        });
        let _ = ALLOCATIONS.try_with(|a| a.set(a.get().wrapping_add(1)));
    }
    pub fn sub(size: usize) {
        let _ = LIVE_BYTES.try_with(|live| live.set(live.get().wrapping_sub(size as i64)));
    }
    pub fn live() -> i64 {
        LIVE_BYTES.with(Cell::get)
    }
    pub fn peak() -> i64 {
        PEAK_BYTES.with(Cell::get)
    }
    pub fn allocations() -> usize {
        ALLOCATIONS.with(Cell::get)
    }
    pub fn reset_peak() {
        PEAK_BYTES.with(|p| p.set(live()));
    }
}

fn record_alloc(size: usize) {
    counters::add(size);
}

fn record_dealloc(size: usize) {
    counters::sub(size);
}

// SAFETY: every method forwards to `System` with the caller's layout unchanged, so `System`'s
// guarantees carry over; the counters are only updated when the underlying call succeeded.
// Every method is out of line: inlined, the counting and the system allocator's wrapper (about 100
// bytes of wasm) were copied into each of the ~2,000 places that allocate or drop a buffer, about
// 10% of the .wasm; a call costs a few nanoseconds next to dlmalloc's own work.
unsafe impl GlobalAlloc for CountingAllocator {
    #[inline(never)]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: same contract as ours, forwarded unchanged.
        let mut ptr = unsafe { System.alloc(layout) };
        if ptr.is_null() && spend_reserve(layout.size()) {
            // SAFETY: as above.
            ptr = unsafe { System.alloc(layout) };
        }
        if !ptr.is_null() {
            record_alloc(layout.size());
        }
        ptr
    }

    #[inline(never)]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: same contract as ours, forwarded unchanged.
        let mut ptr = unsafe { System.alloc_zeroed(layout) };
        if ptr.is_null() && spend_reserve(layout.size()) {
            // SAFETY: as above.
            ptr = unsafe { System.alloc_zeroed(layout) };
        }
        if !ptr.is_null() {
            record_alloc(layout.size());
        }
        ptr
    }

    #[inline(never)]
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from this allocator (hence from `System`) with this layout.
        unsafe { System.dealloc(ptr, layout) };
        record_dealloc(layout.size());
    }

    #[inline(never)]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: `ptr`/`layout` came from this allocator; `new_size` is the caller's, unchanged.
        let mut new_ptr = unsafe { System.realloc(ptr, layout, new_size) };
        if new_ptr.is_null() && spend_reserve(new_size) {
            // SAFETY: as above (a failed realloc left `ptr` valid).
            new_ptr = unsafe { System.realloc(ptr, layout, new_size) };
        }
        if !new_ptr.is_null() {
            record_dealloc(layout.size());
            record_alloc(new_size);
        }
        new_ptr
    }
}

#[global_allocator]
static GLOBAL: CountingAllocator = CountingAllocator;

/// Live bytes of the Rust heap right now.
pub fn heap_bytes() -> usize {
    usize::try_from(counters::live().max(0)).unwrap_or(usize::MAX)
}

/// Highest `heap_bytes()` seen since start or the last `reset_heap_peak()`.
pub fn heap_peak_bytes() -> usize {
    usize::try_from(counters::peak().max(0)).unwrap_or(usize::MAX)
}

/// Allocation calls since start (a cheap proxy for allocator pressure on hot paths).
pub fn allocation_count() -> usize {
    counters::allocations()
}

pub fn reset_heap_peak() {
    counters::reset_peak();
}

/// Reserved linear memory of this wasm instance (grows, never shrinks). Zero off wasm. A u64:
/// a full wasm32 memory is 4 GiB, one more than a 32-bit `usize` holds.
pub fn wasm_memory_bytes() -> u64 {
    #[cfg(target_arch = "wasm32")]
    {
        core::arch::wasm32::memory_size(0) as u64 * 65536
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        0
    }
}

/// The one memory report. Heap and wasm figures are for the whole instance; tensors are live tensor
/// buffers of the instance; resources and cache are the reporting context's own.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct MemoryReport {
    pub heap_bytes: usize,
    pub heap_peak_bytes: usize,
    pub wasm_memory_bytes: u64,
    pub num_tensors: usize,
    pub tensor_bytes: usize,
    pub num_resources: usize,
    pub resource_bytes: usize,
    pub cache_entries: usize,
    pub cache_bytes: usize,
    /// Packed weight copies of the instance (`tensor::Packed`) and their bytes.
    pub num_packed: usize,
    pub packed_bytes: usize,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reserve_is_held_and_room_is_checked_without_keeping_it() {
        assert!(ensure_headroom());
        let before = heap_bytes();
        assert!(can_allocate(1 << 20));
        assert!(!can_allocate(usize::MAX / 4));
        // Neither the reserve nor a trial allocation counts as heap in use.
        assert_eq!(heap_bytes(), before);
        assert!(ensure_headroom());
    }
}
