//! A fork-join pool for the kernels: `for_each_task(n, f)` runs `f(0..n)` on the calling thread and
//! the pool's workers, and returns when every task has finished.
//!
//! Not rayon: a browser's main thread may not block (`memory.atomic.wait` traps there), and rayon's
//! caller blocks on a latch while the pool works. Here the caller takes tasks itself and, once none
//! are left, spins until the last one another thread took is done: the way XNNPACK's pthreadpool
//! runs on the main thread under Emscripten. Workers sleep on `memory.atomic.wait32` between jobs.
//!
//! Where workers come from: in the threaded wasm build, JS starts Web Workers (or Node
//! worker_threads) on the same shared memory, each calling `worker_loop` (bindings); natively,
//! `set_threads` spawns std threads (so the native tests check that parallel kernels give the
//! single-threaded results bit for bit). Elsewhere (the single-threaded wasm builds) there are no
//! workers and `for_each_task` is a plain loop.
//!
//! One job runs at a time: a call made while another job runs (a task that itself calls
//! `for_each_task`, or natively another test thread) runs its tasks inline, in order.

use std::sync::atomic::{AtomicBool, AtomicU32, AtomicUsize, Ordering::SeqCst};

/// Threads that take part in a job, the caller included (1: no workers).
static THREADS: AtomicUsize = AtomicUsize::new(1);
/// Held by the thread whose job is running.
static BUSY: AtomicBool = AtomicBool::new(false);
/// Bumped for every job; workers sleep until it changes.
static GENERATION: AtomicU32 = AtomicU32::new(0);
/// The running job: the address of a `&(dyn Fn(usize) + Sync)` on the caller's stack, and its
/// task count.
static JOB: AtomicUsize = AtomicUsize::new(0);
static TASKS: AtomicUsize = AtomicUsize::new(0);
/// The next task to take; `CLOSED` (and above) once the job is over, so that a worker arriving
/// late takes nothing.
static NEXT: AtomicUsize = AtomicUsize::new(CLOSED);
static DONE: AtomicUsize = AtomicUsize::new(0);
/// Workers between taking part in a job and leaving it: the caller returns (and the job's closure
/// goes away) only when this is 0 again.
static ACTIVE: AtomicUsize = AtomicUsize::new(0);
/// Divides every kernel's `min_per_task` (`tasks_for`): 1 in use; the exactness tests raise it so
/// that small fixtures take the parallel paths too.
static GRAIN_DIVISOR: AtomicUsize = AtomicUsize::new(1);
/// Natively, a task panicked (the caller re-raises it).
static PANICKED: AtomicBool = AtomicBool::new(false);
/// A worker trapped (a bug; see `worker_trapped`): the pool is down to the calling thread.
static TRAPPED: AtomicBool = AtomicBool::new(false);

const CLOSED: usize = usize::MAX / 2;

/// Threads a job may use (the caller included).
#[cfg(any(not(target_arch = "wasm32"), target_feature = "atomics"))]
pub fn threads() -> usize {
    if TRAPPED.load(SeqCst) {
        1
    } else {
        THREADS.load(SeqCst)
    }
}

/// A single-threaded wasm build has no workers: a constant, so that the parallel paths compile
/// away there (they are about 8 KB of the .wasm).
#[cfg(all(target_arch = "wasm32", not(target_feature = "atomics")))]
pub fn threads() -> usize {
    1
}

/// Tasks a job is cut into per thread, at most: a few, so that when a worker is late (woken late,
/// or its core busy with another process) the others take its share instead of waiting for it.
const TASKS_PER_THREAD: usize = 4;

/// How many tasks to cut `work` units into: up to `TASKS_PER_THREAD` per thread when there are
/// threads, each at least `min_per_task` units; 1 for small work (it stays on the calling thread).
pub fn tasks_for(work: usize, min_per_task: usize) -> usize {
    let t = threads();
    if t <= 1 || BUSY.load(SeqCst) {
        return 1;
    }
    let min = (min_per_task / GRAIN_DIVISOR.load(SeqCst).max(1)).max(1);
    (work / min).clamp(1, t * TASKS_PER_THREAD)
}

/// How many of `items` (rows, products) each task takes when `work` units are spread over them:
/// all of them on one task for small work (see `tasks_for`).
pub fn items_per_task(items: usize, work: usize, min_per_task: usize) -> usize {
    items.div_ceil(tasks_for(work, min_per_task).min(items).max(1))
}

/// Makes `tasks_for` cut work `divisor` times finer than the kernels ask (tests only: tiny
/// inputs then take the parallel paths).
pub fn set_grain_divisor(divisor: usize) {
    GRAIN_DIVISOR.store(divisor.max(1), SeqCst);
}

/// Runs `f(i)` for every `i` in `0..tasks`, on this thread and the pool's, and returns when all have
/// finished. Tasks must not depend on one another's order.
pub fn for_each_task(tasks: usize, f: &(dyn Fn(usize) + Sync)) {
    if tasks <= 1 || threads() <= 1 || BUSY.swap(true, SeqCst) {
        (0..tasks).for_each(f);
        return;
    }
    let job: &(dyn Fn(usize) + Sync) = f;
    JOB.store(&job as *const &(dyn Fn(usize) + Sync) as usize, SeqCst);
    TASKS.store(tasks, SeqCst);
    DONE.store(0, SeqCst);
    NEXT.store(0, SeqCst);
    GENERATION.fetch_add(1, SeqCst);
    wake_workers();
    take_tasks();
    // The caller may not sleep (a browser's main thread cannot): it spins until the tasks other
    // threads took are done, then closes the job and waits for every worker to have left it.
    // A trapped worker never finishes the task it took: the job then ends unfinished.
    let mut lost = false;
    while DONE.load(SeqCst) < tasks {
        if TRAPPED.load(SeqCst) {
            lost = true;
            break;
        }
        std::hint::spin_loop();
    }
    NEXT.store(CLOSED, SeqCst);
    while ACTIVE.load(SeqCst) != 0 {
        std::hint::spin_loop();
    }
    JOB.store(0, SeqCst);
    BUSY.store(false, SeqCst);
    if lost {
        // Its output is incomplete: fail the op (on wasm, panic = abort traps, and JS reports an
        // internal error) rather than return it or spin for good.
        panic!("a worker thread trapped during a parallel kernel");
    }
    if PANICKED.swap(false, SeqCst) {
        panic!("a parallel task panicked");
    }
}

/// Called (from JS, by `js/thread-worker.js`) when a worker's wasm trapped, which is a bug: kernels
/// validate before they can panic. The task it was running never finishes and it never leaves its
/// job, so the job's caller stops waiting for it (and fails the op), and every later job runs on
/// the calling thread alone. A worker runs wasm only inside a job's tasks, so it was counted active.
pub fn worker_trapped() {
    // Not active any more, before the caller can see the trap and wait for the active ones.
    ACTIVE.fetch_sub(1, SeqCst);
    TRAPPED.store(true, SeqCst);
}

/// Takes and runs tasks of the current job until none is left.
fn take_tasks() {
    loop {
        let i = NEXT.fetch_add(1, SeqCst);
        if i >= TASKS.load(SeqCst) {
            return;
        }
        // SAFETY: a task index below TASKS was handed out while the job was open, so the caller of
        // `for_each_task` is still inside it (it returns only after DONE reaches TASKS, which this
        // task has not yet added to), and JOB points at its `&dyn Fn` on its stack. TASKS and JOB
        // were stored before NEXT was opened (SeqCst), so they belong to this job.
        let f = unsafe { *(JOB.load(SeqCst) as *const &(dyn Fn(usize) + Sync)) };
        run(f, i);
        DONE.fetch_add(1, SeqCst);
    }
}

#[cfg(not(target_arch = "wasm32"))]
fn run(f: &(dyn Fn(usize) + Sync), i: usize) {
    let ok = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(i))).is_ok();
    if !ok {
        PANICKED.store(true, SeqCst);
    }
}

#[cfg(target_arch = "wasm32")]
fn run(f: &(dyn Fn(usize) + Sync), i: usize) {
    // panic = abort: a panic traps the whole instance, as it does on one thread.
    let _ = &PANICKED;
    f(i)
}

/// A worker's life: wait for a job, take part in it, repeat. Never returns.
pub fn worker_loop() -> ! {
    let mut seen = GENERATION.load(SeqCst);
    loop {
        // Spin a little first: back-to-back ops then find the worker awake (a wake-up from
        // `atomic.wait` costs tens of microseconds, more than a small op).
        let mut spins = 0u32;
        while GENERATION.load(SeqCst) == seen {
            if spins < 20_000 {
                spins += 1;
                std::hint::spin_loop();
            } else {
                sleep_while_generation_is(seen);
            }
        }
        seen = GENERATION.load(SeqCst);
        ACTIVE.fetch_add(1, SeqCst);
        take_tasks();
        ACTIVE.fetch_sub(1, SeqCst);
    }
}

/// Tells the pool how many threads run `worker_loop` besides the caller. The count is what jobs
/// are cut for; a worker still starting up simply joins its first job late.
pub fn set_worker_count(workers: usize) {
    THREADS.store(workers.saturating_add(1), SeqCst);
}

#[cfg(all(target_arch = "wasm32", target_feature = "atomics"))]
fn sleep_while_generation_is(seen: u32) {
    // SAFETY: GENERATION is a live static, 4-byte aligned; `memory_atomic_wait32` reads it
    // atomically and blocks (in a worker: the only place `worker_loop` runs) until notified or the
    // value differs. u32 and i32 have the same layout.
    unsafe {
        core::arch::wasm32::memory_atomic_wait32(
            GENERATION.as_ptr().cast::<i32>(),
            seen as i32,
            -1,
        );
    }
}

#[cfg(all(target_arch = "wasm32", target_feature = "atomics"))]
fn wake_workers() {
    // SAFETY: as above; notify only wakes waiters on this address.
    unsafe {
        core::arch::wasm32::memory_atomic_notify(GENERATION.as_ptr().cast::<i32>(), u32::MAX);
    }
}

#[cfg(all(target_arch = "wasm32", not(target_feature = "atomics")))]
fn sleep_while_generation_is(_: u32) {
    std::hint::spin_loop();
}

#[cfg(all(target_arch = "wasm32", not(target_feature = "atomics")))]
fn wake_workers() {}

#[cfg(not(target_arch = "wasm32"))]
mod native {
    use std::sync::{Condvar, Mutex};

    pub static LOCK: Mutex<()> = Mutex::new(());
    pub static WAKE: Condvar = Condvar::new();
}

#[cfg(not(target_arch = "wasm32"))]
fn sleep_while_generation_is(seen: u32) {
    let guard = native::LOCK.lock().unwrap_or_else(|e| e.into_inner());
    let _ = native::WAKE
        .wait_while(guard, |_| GENERATION.load(SeqCst) == seen)
        .map(drop);
}

#[cfg(not(target_arch = "wasm32"))]
fn wake_workers() {
    let _guard = native::LOCK.lock().unwrap_or_else(|e| e.into_inner());
    native::WAKE.notify_all();
}

/// Natively: makes jobs use `threads` threads (the caller and `threads - 1` std threads, spawned
/// once and kept). Fewer than before only lowers the count jobs are cut for.
#[cfg(not(target_arch = "wasm32"))]
pub fn set_threads(threads: usize) {
    static SPAWNED: AtomicUsize = AtomicUsize::new(0);
    let want = threads.max(1) - 1;
    while SPAWNED.load(SeqCst) < want {
        SPAWNED.fetch_add(1, SeqCst);
        std::thread::spawn(|| worker_loop());
    }
    set_worker_count(want);
}

/// Splits `data` into chunks of `chunk` elements (the last may be shorter) and runs
/// `f(index, chunk)` on each, in parallel when `tasks_for` allows: one task per chunk. The first
/// error, in chunk order, is returned.
pub fn for_each_chunk_mut<T: Send, E: Send>(
    data: &mut [T],
    chunk: usize,
    f: impl Fn(usize, &mut [T]) -> Result<(), E> + Sync,
) -> Result<(), E> {
    let chunk = chunk.max(1);
    let count = data.len().div_ceil(chunk);
    if count <= 1 || threads() <= 1 {
        return data
            .chunks_mut(chunk)
            .enumerate()
            .try_for_each(|(i, c)| f(i, c));
    }
    let len = data.len();
    let base = SendPtr(data.as_mut_ptr());
    let errors: Vec<std::sync::Mutex<Option<E>>> =
        (0..count).map(|_| std::sync::Mutex::new(None)).collect();
    for_each_task(count, &|i| {
        let start = i * chunk;
        let n = chunk.min(len - start);
        // SAFETY: chunk `i` is `start..start + n`, inside `data` (start < len as i < count), and
        // the chunks of different `i` are disjoint; each `i` runs exactly once, and `data` stays
        // mutably borrowed by this function until every task has finished (`for_each_task`
        // returns only then), so this is the only reference to those elements.
        let part = unsafe { std::slice::from_raw_parts_mut(base.get().add(start), n) };
        if let Err(e) = f(i, part) {
            if let Ok(mut slot) = errors[i].lock() {
                *slot = Some(e);
            }
        }
    });
    match errors
        .into_iter()
        .find_map(|m| m.into_inner().ok().flatten())
    {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// A raw pointer that tasks on other threads may use (see the SAFETY note at its use).
struct SendPtr<T>(*mut T);
// SAFETY: only used by `for_each_chunk_mut`, whose tasks write disjoint ranges through it while the
// slice it came from is exclusively borrowed.
unsafe impl<T: Send> Send for SendPtr<T> {}
// SAFETY: as above.
unsafe impl<T: Send> Sync for SendPtr<T> {}
impl<T> SendPtr<T> {
    fn get(&self) -> *mut T {
        self.0
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;

    #[test]
    fn every_task_runs_once_and_errors_come_back_in_chunk_order() {
        set_threads(3);
        let mut v = vec![0u32; 1000];
        let r: Result<(), usize> = for_each_chunk_mut(&mut v, 7, |i, c| {
            for x in c.iter_mut() {
                *x += 1 + i as u32;
            }
            Ok(())
        });
        assert!(r.is_ok());
        for (j, x) in v.iter().enumerate() {
            assert_eq!(*x, 1 + (j / 7) as u32);
        }
        let r: Result<(), usize> =
            for_each_chunk_mut(
                &mut v,
                10,
                |i, _| if i % 30 == 29 { Err(i) } else { Ok(()) },
            );
        assert_eq!(r, Err(29));
        // Nested calls run inline.
        let total = AtomicUsize::new(0);
        for_each_task(4, &|_| {
            for_each_task(5, &|_| {
                total.fetch_add(1, SeqCst);
            })
        });
        assert_eq!(total.load(SeqCst), 20);
    }
}
