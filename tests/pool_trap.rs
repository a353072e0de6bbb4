//! A worker that traps mid-task (on wasm: a bug that aborts its instance) must not leave the op's
//! caller spinning for good: the job fails, and later jobs run on the calling thread. Natively a
//! "trap" is a task that reports itself trapped (as js/thread-worker.js does) and never returns.
//! Its own test binary: the pool stays down to one thread afterwards.

#![cfg(not(target_arch = "wasm32"))]

use eager_wasm::parallel;
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::time::Duration;

#[test]
fn a_trapped_worker_fails_the_job_and_the_pool_goes_on_alone() {
    // On a thread of its own, so that a caller left spinning fails the test instead of hanging it.
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let outcome = std::panic::catch_unwind(trapped_worker_case);
        let _ = tx.send(outcome.is_ok());
    });
    match rx.recv_timeout(Duration::from_secs(60)) {
        Ok(passed) => assert!(passed, "see the panic above"),
        Err(_) => panic!("the job's caller still waits for the trapped worker after 60 s"),
    }
}

fn trapped_worker_case() {
    parallel::set_threads(2);
    assert_eq!(parallel::threads(), 2);
    let caller = std::thread::current().id();
    // A worker that starts after a job began waits for the next one: jobs until it has taken part.
    let helped = AtomicUsize::new(0);
    for _ in 0..100 {
        parallel::for_each_task(8, &|_| {
            if std::thread::current().id() != caller {
                helped.fetch_add(1, SeqCst);
            }
            std::thread::sleep(Duration::from_millis(1));
        });
        if helped.load(SeqCst) > 0 {
            break;
        }
    }
    assert!(helped.load(SeqCst) > 0, "the worker never took part");
    let ran = AtomicUsize::new(0);
    let job = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        parallel::for_each_task(64, &|_| {
            if std::thread::current().id() != caller {
                parallel::worker_trapped();
                // A trapped instance never runs again: neither does this thread.
                loop {
                    std::thread::park();
                }
            }
            ran.fetch_add(1, SeqCst);
            // Slow enough that the worker, once woken, takes a task.
            std::thread::sleep(Duration::from_millis(5));
        });
    }));
    let message = job.expect_err("the job cannot finish: it must fail, not return");
    let message = message.downcast_ref::<&str>().copied().unwrap_or("");
    assert!(message.contains("worker thread trapped"), "{message}");
    assert!(
        ran.load(SeqCst) < 64,
        "the trapped task did not run to its end"
    );

    // The pool is down to the caller, and a job runs to its end.
    assert_eq!(parallel::threads(), 1);
    let done = AtomicUsize::new(0);
    parallel::for_each_task(16, &|_| {
        done.fetch_add(1, SeqCst);
    });
    assert_eq!(done.load(SeqCst), 16);
}
