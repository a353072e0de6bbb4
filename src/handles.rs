//! Generational handles: a slot table whose keys are packed in one f64 (the JS number a tensor handle
//! is), `generation * 2^24 + index`. Each slot counts its own generations; a released slot's
//! generation moves on, and a slot whose generation reaches the limit is retired instead of reused,
//! so a stale handle can never name a later value.
//!
//! Slots live in pages of `PAGE` slots. When the table is mostly empty, pages with no live value are
//! released (heap in use returns near its baseline even while a few values live on); when nothing
//! is live, `compact` frees everything. Slots made afterwards start at `floor`, above every
//! generation issued before, so they cannot match an old handle. Past half the generation space
//! pages are kept instead (their own generations then carry on), so handles never run out while
//! slots remain.
//!
//! The generation limit (2^29, so that every handle is an exact f64 integer below 2^53) is a field,
//! so tests can exhaust a small one.

#![cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]

const INDEX_SPAN: f64 = 16_777_216.0; // 2^24
/// Most slots (live values) at once.
pub const MAX_SLOTS: usize = 1 << 24;
/// Generations are below this: `limit * 2^24 <= 2^53`.
pub const GENERATION_LIMIT: u32 = 1 << 29;
const PAGE_BITS: u32 = 12;
/// Slots per page.
pub const PAGE: usize = 1 << PAGE_BITS;

struct Slot<T> {
    /// The generation of the value in `value`, or (when empty) of the next value put here.
    generation: u32,
    value: Option<T>,
}

/// Why an insert failed.
#[derive(Debug, PartialEq, Eq)]
pub enum Full {
    /// `MAX_SLOTS` values are live.
    Slots,
    /// Every generation below the limit has been issued.
    Generations,
    /// The table could not grow: out of memory.
    Memory,
}

pub struct Handles<T> {
    /// Slot pages, filled in order (each grows to `PAGE` slots); a released page is an empty Vec.
    pages: Vec<Vec<Slot<T>>>,
    /// Live values of each page.
    page_live: Vec<u32>,
    /// Held pages with no live value.
    empty_pages: usize,
    /// Released pages below `pages.len()`, refilled before new pages are added.
    spare_pages: Vec<u32>,
    /// The page that fresh slots are added to while it has room.
    filling: Option<u32>,
    /// Released slots to reuse. Its capacity is kept at least `held`, so `remove` never allocates.
    free: Vec<u32>,
    live: usize,
    /// Slots in pages not released.
    held: usize,
    /// The generation new slots start at: above every generation issued since the table was made.
    floor: u32,
    limit: u32,
}

impl<T> Handles<T> {
    pub const fn new() -> Self {
        Self::with_generation_limit(GENERATION_LIMIT)
    }

    /// A table whose generations stay below `limit` (at most `GENERATION_LIMIT`, at least 2).
    pub const fn with_generation_limit(limit: u32) -> Self {
        Handles {
            pages: Vec::new(),
            page_live: Vec::new(),
            empty_pages: 0,
            spare_pages: Vec::new(),
            filling: None,
            free: Vec::new(),
            live: 0,
            held: 0,
            floor: 1,
            limit,
        }
    }

    pub fn live(&self) -> usize {
        self.live
    }

    /// Slots held in memory, live or free.
    #[cfg(test)]
    pub fn held_slots(&self) -> usize {
        self.held
    }

    pub fn insert(&mut self, value: T) -> Result<f64, Full> {
        let index = match self.free.pop() {
            Some(i) => i,
            None => self.fresh_slot()?,
        };
        let (p, o) = split(index);
        let slot = &mut self.pages[p][o];
        slot.value = Some(value);
        self.live += 1;
        if self.page_live[p] == 0 {
            self.empty_pages -= 1;
        }
        self.page_live[p] += 1;
        Ok(pack(index, slot.generation))
    }

    /// A new slot at generation `floor`, in the page being filled or a new (or spare) page.
    fn fresh_slot(&mut self) -> Result<u32, Full> {
        if self.filling.is_none()
            && self.spare_pages.is_empty()
            && self.pages.len() * PAGE >= MAX_SLOTS
        {
            return Err(Full::Slots);
        }
        if self.floor >= self.limit {
            return Err(Full::Generations);
        }
        // Everything fallible first, so that a failure leaves the table as it was.
        if self.free.capacity() <= self.held {
            self.free
                .try_reserve(self.held + 1 - self.free.len())
                .map_err(|_| Full::Memory)?;
        }
        let p = match self.filling {
            Some(p) => p as usize,
            None => {
                let p = match self.spare_pages.pop() {
                    Some(p) => p as usize,
                    None => {
                        self.pages.try_reserve(1).map_err(|_| Full::Memory)?;
                        self.page_live.try_reserve(1).map_err(|_| Full::Memory)?;
                        self.pages.push(Vec::new());
                        self.page_live.push(0);
                        self.pages.len() - 1
                    }
                };
                self.filling = Some(p as u32);
                self.empty_pages += 1;
                p
            }
        };
        let page = &mut self.pages[p];
        // Amortized doubling from 4 stops at exactly `PAGE` (a power of two).
        page.try_reserve(1).map_err(|_| Full::Memory)?;
        page.push(Slot {
            generation: self.floor,
            value: None,
        });
        self.held += 1;
        let o = page.len() - 1;
        if page.len() == PAGE {
            self.filling = None;
        }
        Ok(((p << PAGE_BITS) | o) as u32)
    }

    fn slot(&self, h: f64) -> Option<(u32, &Slot<T>)> {
        let (index, generation) = unpack(h)?;
        let (p, o) = split(index);
        let s = self.pages.get(p)?.get(o)?;
        (s.generation == generation && s.value.is_some()).then_some((index, s))
    }

    pub fn get(&self, h: f64) -> Option<&T> {
        self.slot(h).and_then(|(_, s)| s.value.as_ref())
    }

    /// Takes the value out of `h`'s slot; None if `h` is stale, released or not a handle.
    pub fn remove(&mut self, h: f64) -> Option<T> {
        let (index, _) = self.slot(h)?;
        let (p, o) = split(index);
        let s = &mut self.pages[p][o];
        let value = s.value.take();
        s.generation += 1;
        let generation = s.generation;
        self.live -= 1;
        self.page_live[p] -= 1;
        // A retired slot (every generation used) is never handed out again.
        if generation < self.limit {
            // Within the capacity reserved when the slot was made: no allocation.
            self.free.push(index);
        }
        self.floor = self.floor.max(generation);
        if self.page_live[p] == 0 {
            self.empty_pages += 1;
            // Mostly empty, half of it in empty pages: the scan below is paid for by at least
            // `held / 2` slots that were made since the last one.
            if self.live * 4 <= self.held && self.empty_pages * PAGE * 2 >= self.held {
                self.release_empty_pages();
            }
        }
        value
    }

    /// Releases the pages that hold no live value.
    fn release_empty_pages(&mut self) {
        if self.floor > self.limit / 2 {
            return;
        }
        for (p, page) in self.pages.iter_mut().enumerate() {
            if self.page_live[p] == 0 && page.capacity() > 0 {
                self.held -= page.len();
                *page = Vec::new();
                if self.filling == Some(p as u32) {
                    self.filling = None;
                }
                self.spare_pages.push(p as u32);
            }
        }
        self.empty_pages = 0;
        let pages = &self.pages;
        self.free.retain(|&i| pages[split(i).0].capacity() > 0);
        while self.pages.last().is_some_and(|p| p.capacity() == 0) {
            self.pages.pop();
            self.page_live.pop();
        }
        let n = self.pages.len() as u32;
        self.spare_pages.retain(|&p| p < n);
        // Capacity stays at least `held` (see `free`); shrinking in place does not fail.
        self.free.shrink_to(self.held);
        self.pages.shrink_to_fit();
        self.page_live.shrink_to_fit();
        self.spare_pages.shrink_to_fit();
    }

    /// Removes every live value for which `pred` holds; returns how many. Allocates nothing (it
    /// runs to free memory, possibly when none is left).
    pub fn remove_where(&mut self, mut pred: impl FnMut(&T) -> bool) -> usize {
        let mut removed = 0;
        for (p, page) in self.pages.iter_mut().enumerate() {
            for (o, s) in page.iter_mut().enumerate() {
                if !s.value.as_ref().is_some_and(&mut pred) {
                    continue;
                }
                s.value = None;
                s.generation += 1;
                if s.generation < self.limit {
                    // Within the capacity reserved when the slot was made.
                    self.free.push(((p << PAGE_BITS) | o) as u32);
                }
                self.floor = self.floor.max(s.generation);
                self.live -= 1;
                self.page_live[p] -= 1;
                if self.page_live[p] == 0 {
                    self.empty_pages += 1;
                }
                removed += 1;
            }
        }
        if removed > 0 && self.live * 4 <= self.held && self.empty_pages * PAGE * 2 >= self.held {
            self.release_empty_pages();
        }
        removed
    }

    /// With nothing live, gives the table's memory back. `floor` already lies above every
    /// generation issued, so the slots made afterwards cannot match an old handle.
    pub fn compact(&mut self) {
        if self.live == 0 && self.floor <= self.limit / 2 {
            self.pages = Vec::new();
            self.page_live = Vec::new();
            self.empty_pages = 0;
            self.spare_pages = Vec::new();
            self.filling = None;
            self.free = Vec::new();
            self.held = 0;
        }
    }
}

impl<T> Default for Handles<T> {
    fn default() -> Self {
        Self::new()
    }
}

/// Whether `h` has the form of a handle (whatever its slot holds).
pub fn is_handle(h: f64) -> bool {
    unpack(h).is_some()
}

/// Page and offset of a slot index.
fn split(index: u32) -> (usize, usize) {
    ((index >> PAGE_BITS) as usize, (index as usize) & (PAGE - 1))
}

fn pack(index: u32, generation: u32) -> f64 {
    f64::from(generation) * INDEX_SPAN + f64::from(index)
}

fn unpack(h: f64) -> Option<(u32, u32)> {
    if !(h >= INDEX_SPAN && h < f64::from(GENERATION_LIMIT) * INDEX_SPAN) || h.fract() != 0.0 {
        return None;
    }
    let generation = (h / INDEX_SPAN).floor();
    let index = h - generation * INDEX_SPAN;
    Some((index as u32, generation as u32))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn handles_round_trip() {
        for (i, g) in [(0, 1), (5, 7), (MAX_SLOTS as u32 - 1, GENERATION_LIMIT - 1)] {
            assert_eq!(unpack(pack(i, g)), Some((i, g)));
        }
        assert_eq!(unpack(0.0), None);
        assert_eq!(unpack(1.5), None);
        assert_eq!(unpack(f64::NAN), None);
        assert_eq!(unpack(f64::from(GENERATION_LIMIT) * INDEX_SPAN), None);
    }

    /// Every handle ever issued, with whether it may still resolve; none stale ever does.
    fn check(t: &Handles<u32>, issued: &[(f64, Option<u32>)]) {
        for &(h, v) in issued {
            assert_eq!(t.get(h).copied(), v, "handle {h}");
        }
    }

    #[test]
    fn stale_handles_never_name_a_later_value() {
        // Limit 4: generations 1..=3, so slots retire after three uses.
        let mut t = Handles::with_generation_limit(4);
        let mut issued: Vec<(f64, Option<u32>)> = Vec::new();
        let keep = t.insert(0).unwrap();
        issued.push((keep, Some(0)));
        // Reuse one slot until it retires; the others keep being handed out.
        let mut n = 1;
        loop {
            match t.insert(n) {
                Ok(h) => {
                    assert!(
                        issued.iter().all(|&(old, _)| old != h),
                        "handle {h} reissued"
                    );
                    issued.push((h, Some(n)));
                    check(&t, &issued);
                    assert_eq!(t.remove(h), Some(n));
                    issued.last_mut().unwrap().1 = None;
                    assert_eq!(t.remove(h), None, "double release");
                    n += 1;
                }
                Err(e) => {
                    assert_eq!(e, Full::Generations);
                    break;
                }
            }
            assert!(n < 100, "generations never ran out");
        }
        check(&t, &issued);
        // Nothing live, but past half the generations: the slots stay with their generations, so
        // the first slot is still usable and its next handle is new.
        assert_eq!(t.remove(keep), Some(0));
        issued[0].1 = None;
        t.compact();
        assert_eq!(t.live(), 0);
        let h = t.insert(7).unwrap();
        assert!(issued.iter().all(|&(old, _)| old != h));
        check(&t, &issued);
        assert_eq!(t.get(h), Some(&7));
    }

    #[test]
    fn compaction_starts_above_every_generation_issued() {
        let mut t = Handles::with_generation_limit(1 << 10);
        let mut issued = Vec::new();
        for round in 0..300u32 {
            let a = t.insert(round).unwrap();
            let b = t.insert(round + 1000).unwrap();
            assert!(!issued.contains(&a) && !issued.contains(&b));
            issued.push(a);
            issued.push(b);
            t.remove(a);
            t.remove(b);
            t.compact();
            for &h in &issued {
                assert_eq!(t.get(h), None);
            }
        }
    }

    #[test]
    fn a_mostly_empty_table_releases_its_pages() {
        use std::collections::HashSet;
        let n = 200_000u64;
        let mut issued: Vec<f64> = Vec::with_capacity(n as usize + 50_000);
        let baseline = crate::memory::heap_bytes();
        let mut t = Handles::new();
        let keep = t.insert(0u64).unwrap();
        issued.extend((1..n).map(|v| t.insert(v).unwrap()));
        let grown = crate::memory::heap_bytes();
        assert!(grown - baseline > n as usize * 16, "{baseline} -> {grown}");
        for &h in &issued {
            assert!(t.remove(h).is_some());
        }
        // Only the page of the value still live is held.
        assert_eq!(t.live(), 1);
        assert_eq!(t.held_slots(), PAGE);
        let above = crate::memory::heap_bytes() - baseline;
        assert!(above <= PAGE * 64, "heap {above} above baseline");
        assert_eq!(t.get(keep), Some(&0));
        // Slots made again in released pages start above every generation issued.
        let again: Vec<f64> = (0..50_000u64).map(|v| t.insert(v).unwrap()).collect();
        let old: HashSet<u64> = issued.iter().map(|h| h.to_bits()).collect();
        for (k, &h) in again.iter().enumerate() {
            assert!(!old.contains(&h.to_bits()), "handle {h} reissued");
            assert_eq!(t.get(h), Some(&(k as u64)));
        }
        for &h in &issued {
            assert_eq!(t.get(h), None, "stale handle {h} resolves");
        }
        for &h in &again {
            t.remove(h);
        }
        assert_eq!(t.held_slots(), PAGE);
        issued.extend(&again);
        // The last removal lets `compact` free everything.
        assert_eq!(t.remove(keep), Some(0));
        t.compact();
        assert_eq!(t.held_slots(), 0);
        drop((again, old));
        assert_eq!(crate::memory::heap_bytes(), baseline);
        let h = t.insert(9).unwrap();
        assert!(!issued.contains(&h) && h != keep);
    }

    #[test]
    fn remove_where_frees_in_place_and_stales_the_handles() {
        let mut t = Handles::new();
        let hs: Vec<f64> = (0..3 * PAGE as u32).map(|v| t.insert(v).unwrap()).collect();
        let before = crate::memory::allocation_count();
        assert_eq!(t.remove_where(|v| v % 3 != 0), 2 * PAGE);
        // Only the mostly-empty table's own shrinking may touch the allocator (to give back).
        assert!(crate::memory::allocation_count() - before <= 4);
        for (k, &h) in hs.iter().enumerate() {
            let want = (k % 3 == 0).then_some(k as u32);
            assert_eq!(t.get(h).copied(), want);
        }
        assert_eq!(t.live(), PAGE);
        let again = t.insert(7).unwrap();
        assert!(!hs.contains(&again));
    }

    #[test]
    fn a_live_value_in_a_late_page_keeps_only_that_page() {
        let mut t = Handles::new();
        let early: Vec<f64> = (0..3 * PAGE as u32).map(|v| t.insert(v).unwrap()).collect();
        let keep = t.insert(u32::MAX).unwrap();
        let late: Vec<f64> = (0..5 * PAGE as u32).map(|v| t.insert(v).unwrap()).collect();
        for &h in early.iter().chain(&late) {
            t.remove(h);
        }
        assert_eq!(t.held_slots(), PAGE);
        assert_eq!(t.get(keep), Some(&u32::MAX));
        for &h in early.iter().chain(&late) {
            assert_eq!(t.get(h), None);
        }
        // Refilling goes through the spare pages below the live one first.
        let refill: Vec<f64> = (0..4 * PAGE as u32).map(|v| t.insert(v).unwrap()).collect();
        for (k, &h) in refill.iter().enumerate() {
            assert_eq!(t.get(h), Some(&(k as u32)));
            assert!(!early.contains(&h) && !late.contains(&h) && h != keep);
        }
    }
}
