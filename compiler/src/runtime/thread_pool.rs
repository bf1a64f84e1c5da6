//! The persistent thread pool parallel loops run on, with TVM's contract
//! (`TVMBackendParallelLaunch`): a launch runs `lambda(task_id, num_task,
//! closure)` for every task id, the launching thread taking task 0, and
//! returns when all are done; the lambda takes its own static chunk of the
//! loop. Workers spin briefly between launches (back-to-back parallel loops
//! are common) and then sleep. Tasks go to whichever thread claims them
//! first, so a worker the OS has not scheduled yet never delays a launch.
//!
//! The size comes from [`set_num_threads`] (`tirc run --threads N`), else
//! `TIRC_NUM_THREADS`, else the machine's parallelism. A launch from inside
//! a launch, or while another thread's launch is running, does not nest:
//! nested ones run their tasks serially, concurrent ones wait their turn.

use std::cell::Cell;
use std::ffi::c_void;
use std::sync::atomic::{AtomicI32, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;

/// The function a parallel launch runs once per task.
pub type ParallelLambda = unsafe extern "C" fn(i32, i32, *mut c_void) -> i32;

/// How many times an idle worker polls before it sleeps (tens of microseconds).
const SPINS_BEFORE_SLEEP: u32 = 1 << 14;

/// Stack size of worker threads: allocations of up to 256 KiB live on the stack.
const WORKER_STACK_BYTES: usize = 16 << 20;

thread_local! {
    /// True on pool workers and on a thread running its share of a launch.
    static INSIDE_LAUNCH: Cell<bool> = const { Cell::new(false) };
}

#[derive(Clone, Copy)]
struct Job {
    lambda: ParallelLambda,
    closure: usize,
    num_task: i32,
    generation: u32,
}

/// Tasks are claimed from one word: the launch's generation in the high 32
/// bits, the next unclaimed task in the low 32. A thread that wakes late
/// finds its generation gone and claims nothing, and the launching thread
/// takes every task no worker has claimed yet, so a descheduled worker on a
/// busy machine never holds a launch up.
fn claim_word(generation: u32, next_task: u32) -> u64 {
    (u64::from(generation) << 32) | u64::from(next_task)
}

struct Shared {
    job: Mutex<Option<Job>>,
    claims: AtomicU64,
    completed: AtomicUsize,
    first_error: AtomicI32,
    sleep_lock: Mutex<bool>,
    wake: Condvar,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Shared {
    /// Claims and runs tasks of `job` until none is left.
    fn run_tasks(&self, job: Job) {
        loop {
            let word = self.claims.load(Ordering::Acquire);
            let (generation, next) = ((word >> 32) as u32, word as u32);
            if generation != job.generation || next >= job.num_task as u32 {
                return;
            }
            if self
                .claims
                .compare_exchange_weak(
                    word,
                    claim_word(generation, next + 1),
                    Ordering::AcqRel,
                    Ordering::Acquire,
                )
                .is_err()
            {
                continue;
            }
            // SAFETY: the launcher keeps the closure alive until every task
            // has completed; the lambda was generated for it.
            let code =
                unsafe { (job.lambda)(next as i32, job.num_task, job.closure as *mut c_void) };
            if code != 0 {
                let _ =
                    self.first_error
                        .compare_exchange(0, code, Ordering::AcqRel, Ordering::Acquire);
            }
            self.completed.fetch_add(1, Ordering::AcqRel);
        }
    }
}

/// A pool of `threads - 1` workers plus the launching thread.
pub struct ThreadPool {
    shared: Arc<Shared>,
    launch_lock: Mutex<u32>,
    workers: Vec<JoinHandle<()>>,
}

impl ThreadPool {
    /// A pool running launches on `threads` threads (the caller included).
    pub fn new(threads: usize) -> ThreadPool {
        let threads = threads.max(1);
        let shared = Arc::new(Shared {
            job: Mutex::new(None),
            claims: AtomicU64::new(0),
            completed: AtomicUsize::new(0),
            first_error: AtomicI32::new(0),
            sleep_lock: Mutex::new(false),
            wake: Condvar::new(),
        });
        let workers = (1..threads)
            .filter_map(|index| {
                let shared = Arc::clone(&shared);
                std::thread::Builder::new()
                    .name(format!("tirc-worker-{index}"))
                    .stack_size(WORKER_STACK_BYTES)
                    .spawn(move || worker_loop(&shared))
                    .ok()
            })
            .collect();
        ThreadPool {
            shared,
            launch_lock: Mutex::new(0),
            workers,
        }
    }

    /// The number of threads a launch uses.
    pub fn threads(&self) -> usize {
        self.workers.len() + 1
    }

    /// Runs `lambda` for every task and returns the first non-zero code.
    /// `num_task == 0` means one task per thread.
    pub fn launch(&self, lambda: ParallelLambda, closure: *mut c_void, num_task: i32) -> i32 {
        let num_task = if num_task <= 0 {
            self.threads() as i32
        } else {
            num_task
        };
        if INSIDE_LAUNCH.with(Cell::get) || self.workers.is_empty() || num_task == 1 {
            return run_serially(lambda, closure, num_task);
        }
        let mut generation = lock(&self.launch_lock);
        *generation = generation.wrapping_add(1);
        let shared = &*self.shared;
        let job = Job {
            lambda,
            closure: closure as usize,
            num_task,
            generation: *generation,
        };
        *lock(&shared.job) = Some(job);
        shared.first_error.store(0, Ordering::Release);
        shared.completed.store(0, Ordering::Release);
        {
            let _sleepers = lock(&shared.sleep_lock);
            shared
                .claims
                .store(claim_word(job.generation, 0), Ordering::Release);
            shared.wake.notify_all();
        }
        INSIDE_LAUNCH.with(|inside| inside.set(true));
        shared.run_tasks(job);
        INSIDE_LAUNCH.with(|inside| inside.set(false));
        let mut spins = 0u32;
        while shared.completed.load(Ordering::Acquire) < num_task as usize {
            if spins < SPINS_BEFORE_SLEEP {
                spins += 1;
                std::hint::spin_loop();
            } else {
                std::thread::yield_now();
            }
        }
        shared.first_error.load(Ordering::Acquire)
    }
}

impl Drop for ThreadPool {
    fn drop(&mut self) {
        {
            let mut stopping = lock(&self.shared.sleep_lock);
            *stopping = true;
            self.shared.wake.notify_all();
        }
        for worker in self.workers.drain(..) {
            let _ = worker.join();
        }
    }
}

fn run_serially(lambda: ParallelLambda, closure: *mut c_void, num_task: i32) -> i32 {
    let mut first_error = 0;
    for task in 0..num_task {
        // SAFETY: as in `Shared::run_tasks`.
        let code = unsafe { lambda(task, num_task, closure) };
        if code != 0 && first_error == 0 {
            first_error = code;
        }
    }
    first_error
}

fn worker_loop(shared: &Shared) {
    INSIDE_LAUNCH.with(|inside| inside.set(true));
    let mut seen = 0u32;
    loop {
        let mut spins = 0u32;
        let generation = loop {
            let generation = (shared.claims.load(Ordering::Acquire) >> 32) as u32;
            if generation != seen {
                break generation;
            }
            if spins < SPINS_BEFORE_SLEEP {
                spins += 1;
                std::hint::spin_loop();
                continue;
            }
            let mut stopping = lock(&shared.sleep_lock);
            while (shared.claims.load(Ordering::Acquire) >> 32) as u32 == seen && !*stopping {
                stopping = shared
                    .wake
                    .wait(stopping)
                    .unwrap_or_else(PoisonError::into_inner);
            }
            if *stopping {
                return;
            }
        };
        seen = generation;
        let job = *lock(&shared.job);
        if let Some(job) = job.filter(|job| job.generation == generation) {
            shared.run_tasks(job);
        }
    }
}

static GLOBAL_POOL: Mutex<Option<Arc<ThreadPool>>> = Mutex::new(None);

/// The thread count a new pool gets: `TIRC_NUM_THREADS`, else the
/// machine's parallelism.
pub fn default_num_threads() -> usize {
    std::env::var("TIRC_NUM_THREADS")
        .ok()
        .and_then(|text| text.trim().parse::<usize>().ok())
        .filter(|threads| *threads > 0)
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, usize::from))
}

/// Sizes the global pool (replacing it when the size changes).
pub fn set_num_threads(threads: usize) {
    let mut pool = lock(&GLOBAL_POOL);
    if pool.as_ref().map(|p| p.threads()) != Some(threads.max(1)) {
        *pool = Some(Arc::new(ThreadPool::new(threads)));
    }
}

/// The global pool, created on first use.
pub fn global_pool() -> Arc<ThreadPool> {
    let mut pool = lock(&GLOBAL_POOL);
    Arc::clone(pool.get_or_insert_with(|| Arc::new(ThreadPool::new(default_num_threads()))))
}

/// The entry point generated code calls for a parallel loop.
///
/// # Safety
/// `lambda` must be safe to call with `closure` from any thread.
pub unsafe extern "C" fn tirc_parallel_launch(
    lambda: ParallelLambda,
    closure: *mut c_void,
    num_task: i32,
) -> i32 {
    global_pool().launch(lambda, closure, num_task)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicU32;

    unsafe extern "C" fn count_tasks(task: i32, num_task: i32, closure: *mut c_void) -> i32 {
        // SAFETY: the tests pass a pointer to an array of `num_task` counters.
        let counters =
            unsafe { std::slice::from_raw_parts(closure as *const AtomicU32, num_task as usize) };
        counters[task as usize].fetch_add(1, Ordering::Relaxed);
        i32::from(task == 2) * 7
    }

    #[test]
    fn every_task_runs_once_and_the_first_error_is_returned() {
        let pool = ThreadPool::new(3);
        for num_task in [1, 3, 5] {
            let counters: Vec<AtomicU32> = (0..num_task).map(|_| AtomicU32::new(0)).collect();
            let code = pool.launch(count_tasks, counters.as_ptr() as *mut c_void, num_task);
            assert!(counters.iter().all(|c| c.load(Ordering::Relaxed) == 1));
            assert_eq!(code, if num_task > 2 { 7 } else { 0 });
        }
        let counters: Vec<AtomicU32> = (0..3).map(|_| AtomicU32::new(0)).collect();
        assert_eq!(
            pool.launch(count_tasks, counters.as_ptr() as *mut c_void, 0),
            7
        );
    }

    #[test]
    fn a_one_thread_pool_runs_serially() {
        let pool = ThreadPool::new(1);
        let counters: Vec<AtomicU32> = (0..4).map(|_| AtomicU32::new(0)).collect();
        pool.launch(count_tasks, counters.as_ptr() as *mut c_void, 4);
        assert!(counters.iter().all(|c| c.load(Ordering::Relaxed) == 1));
    }
}
