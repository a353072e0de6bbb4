//! Generational handles: a slot table whose keys are packed in one f64 (the JS number a tensor handle
//! is), `generation * 2^24 + index`. Each slot counts its own generations; a released slot's
//! generation moves on, and a slot whose generation reaches the limit is retired instead of reused,
//! so a stale handle can never name a later value. When nothing is live, `compact` frees the table's
//! memory (heap in use returns to its baseline) and new slots start above every generation issued
//! before; past half the generation space it keeps the slots instead (their own generations then
//! carry on), so handles never run out while slots remain.
//!
//! The generation limit (2^29, so that every handle is an exact f64 integer below 2^53) is a field,
//! so tests can exhaust a small one.

#![cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]

const INDEX_SPAN: f64 = 16_777_216.0; // 2^24
/// Most slots (live values) at once.
pub const MAX_SLOTS: usize = 1 << 24;
/// Generations are below this: `limit * 2^24 <= 2^53`.
pub const GENERATION_LIMIT: u32 = 1 << 29;

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
}

pub struct Handles<T> {
    slots: Vec<Slot<T>>,
    free: Vec<u32>,
    live: usize,
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
            slots: Vec::new(),
            free: Vec::new(),
            live: 0,
            floor: 1,
            limit,
        }
    }

    pub fn live(&self) -> usize {
        self.live
    }

    pub fn insert(&mut self, value: T) -> Result<f64, Full> {
        let index = match self.free.pop() {
            Some(i) => i,
            None => {
                if self.slots.len() >= MAX_SLOTS {
                    return Err(Full::Slots);
                }
                if self.floor >= self.limit {
                    return Err(Full::Generations);
                }
                self.slots.push(Slot {
                    generation: self.floor,
                    value: None,
                });
                (self.slots.len() - 1) as u32
            }
        };
        let slot = &mut self.slots[index as usize];
        slot.value = Some(value);
        self.live += 1;
        Ok(pack(index, slot.generation))
    }

    fn slot(&self, h: f64) -> Option<(u32, &Slot<T>)> {
        let (index, generation) = unpack(h)?;
        let s = self.slots.get(index as usize)?;
        (s.generation == generation && s.value.is_some()).then_some((index, s))
    }

    pub fn get(&self, h: f64) -> Option<&T> {
        self.slot(h).and_then(|(_, s)| s.value.as_ref())
    }

    /// Takes the value out of `h`'s slot; None if `h` is stale, released or not a handle.
    pub fn remove(&mut self, h: f64) -> Option<T> {
        let (index, _) = self.slot(h)?;
        let s = &mut self.slots[index as usize];
        let value = s.value.take();
        self.live -= 1;
        s.generation += 1;
        // A retired slot (every generation used) is never handed out again.
        if s.generation < self.limit {
            self.free.push(index);
        }
        self.floor = self.floor.max(s.generation);
        value
    }

    /// The handles of live values for which `pred` holds.
    pub fn handles_where(&self, mut pred: impl FnMut(&T) -> bool) -> Vec<f64> {
        self.slots
            .iter()
            .enumerate()
            .filter_map(|(i, s)| match &s.value {
                Some(v) if pred(v) => Some(pack(i as u32, s.generation)),
                _ => None,
            })
            .collect()
    }

    /// With nothing live, gives the table's memory back. `floor` already lies above every
    /// generation issued, so the slots made afterwards cannot match an old handle.
    pub fn compact(&mut self) {
        if self.live == 0 && self.floor <= self.limit / 2 {
            self.slots = Vec::new();
            self.free = Vec::new();
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
}
