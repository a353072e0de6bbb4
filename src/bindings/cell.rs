//! `EpochCell`: the bindings' `RefCell` for state that must outlive an abandoned call. In the split
//! build a call can be cut short from outside Rust: when the on-demand part cannot be loaded, its
//! loader throws through the wasm frames under way (`js/cold-code.js`), and no destructor of theirs
//! runs, so a `RefCell` they held would stay borrowed for good (a context forever "busy", the
//! tensor table unusable). A borrow here records the epoch it was taken in; JS moves the epoch on
//! after such a throw when no wasm frame remains under way, and a borrow of an earlier epoch is
//! then known to belong to a frame that is gone.

use std::cell::{Cell, UnsafeCell};
use std::ops::{Deref, DerefMut};
use std::sync::atomic::{AtomicU32, Ordering};

/// Moved on by JS (it writes this word of wasm memory) once every frame of the calls under way was
/// abandoned; never while one runs.
static EPOCH: AtomicU32 = AtomicU32::new(0);

/// Where `EPOCH` lives in wasm memory, for JS.
pub(crate) fn epoch_address() -> u32 {
    &EPOCH as *const AtomicU32 as usize as u32
}

pub(crate) struct EpochCell<T> {
    /// 0 when free, else the epoch it was borrowed in, plus one.
    taken: Cell<u32>,
    value: UnsafeCell<T>,
}

impl<T> EpochCell<T> {
    pub(crate) const fn new(value: T) -> Self {
        EpochCell {
            taken: Cell::new(0),
            value: UnsafeCell::new(value),
        }
    }

    /// Exclusive access, or None while a borrow of the current epoch is live (re-entry from a
    /// callback).
    #[inline]
    pub(crate) fn try_borrow_mut(&self) -> Option<EpochRefMut<'_, T>> {
        let now = EPOCH.load(Ordering::Relaxed).wrapping_add(1).max(1);
        if self.taken.get() == now {
            return None;
        }
        // Free, or taken in an earlier epoch by a frame that no longer exists (see the module
        // doc): either way no reference to the value is live.
        self.taken.set(now);
        Some(EpochRefMut { cell: self })
    }

    /// `try_borrow_mut` where re-entry cannot happen (no JS runs while it is held).
    #[inline]
    pub(crate) fn borrow_mut(&self) -> EpochRefMut<'_, T> {
        match self.try_borrow_mut() {
            Some(b) => b,
            None => panic!("EpochCell borrowed twice"),
        }
    }
}

pub(crate) struct EpochRefMut<'a, T> {
    cell: &'a EpochCell<T>,
}

impl<T> Deref for EpochRefMut<'_, T> {
    type Target = T;
    #[inline]
    fn deref(&self) -> &T {
        // SAFETY: this guard is the one live borrow of the cell (`try_borrow_mut`).
        unsafe { &*self.cell.value.get() }
    }
}

impl<T> DerefMut for EpochRefMut<'_, T> {
    #[inline]
    fn deref_mut(&mut self) -> &mut T {
        // SAFETY: as in `deref`; `&mut self` makes this reference unique among the guard's.
        unsafe { &mut *self.cell.value.get() }
    }
}

impl<T> Drop for EpochRefMut<'_, T> {
    #[inline]
    fn drop(&mut self) {
        self.cell.taken.set(0);
    }
}
