/* The runtime of shared libraries built by `tirc build --emit so`: the
 * parallel launch and workspace allocation.
 *
 * Generated code calls tirc_parallel_launch(lambda, closure, num_task) for
 * each parallel loop; the lambda takes its own static chunk of iterations
 * from its task id. The pool follows the JIT's (src/runtime/thread_pool.rs):
 * persistent workers, started on the first launch, spin briefly between
 * launches (back-to-back parallel loops are common) and then sleep; tasks go
 * to whichever thread claims them first, and the launching thread takes every
 * task no worker has claimed, so a worker the OS has not scheduled never holds
 * a launch up (and a forked child, which has no workers, still completes).
 * TIRC_NUM_THREADS sizes the pool, else the number of online CPUs. Nested
 * launches run serially; launches from different threads take turns. */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

typedef int32_t (*tirc_parallel_lambda)(int32_t task_id, int32_t num_task, void *closure);

/* How many times an idle thread polls before it sleeps (tens of microseconds). */
#define TIRC_SPINS_BEFORE_SLEEP (1 << 14)
/* Stack size of workers: allocations of up to 256 KiB live on the stack. */
#define TIRC_WORKER_STACK_BYTES ((size_t)16 << 20)

struct tirc_job {
    tirc_parallel_lambda lambda;
    void *closure;
    int32_t num_task;
    uint32_t generation;
};

static struct {
    pthread_once_t once;
    int32_t threads;
    int32_t started;
    pthread_t *workers;
    /* Held for a whole launch, so launches from different threads take turns. */
    pthread_mutex_t launch_lock;
    uint32_t generation;
    /* The current job, copied out by a worker once it sees a new generation. */
    pthread_mutex_t job_lock;
    struct tirc_job job;
    /* The launch's generation in the high 32 bits, the next unclaimed task in the low 32. */
    _Atomic uint64_t claims;
    _Atomic int32_t completed;
    _Atomic int32_t first_error;
    _Atomic int stopping;
    pthread_mutex_t sleep_lock;
    pthread_cond_t wake;
} tirc_pool = {
    .once = PTHREAD_ONCE_INIT,
    .launch_lock = PTHREAD_MUTEX_INITIALIZER,
    .job_lock = PTHREAD_MUTEX_INITIALIZER,
    .sleep_lock = PTHREAD_MUTEX_INITIALIZER,
    .wake = PTHREAD_COND_INITIALIZER,
};

static __thread int tirc_inside_launch = 0;

static void tirc_spin_pause(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

static uint32_t tirc_generation_of(uint64_t claims) {
    return (uint32_t)(claims >> 32);
}

static void tirc_record_error(int32_t code) {
    int32_t none = 0;
    if (code != 0) {
        atomic_compare_exchange_strong(&tirc_pool.first_error, &none, code);
    }
}

/* Claims and runs tasks of `job` until none is left. */
static void tirc_run_tasks(struct tirc_job job) {
    for (;;) {
        uint64_t word = atomic_load_explicit(&tirc_pool.claims, memory_order_acquire);
        uint32_t next = (uint32_t)word;
        if (tirc_generation_of(word) != job.generation || next >= (uint32_t)job.num_task) {
            return;
        }
        if (!atomic_compare_exchange_weak_explicit(&tirc_pool.claims, &word, word + 1,
                                                   memory_order_acq_rel, memory_order_acquire)) {
            continue;
        }
        tirc_record_error(job.lambda((int32_t)next, job.num_task, job.closure));
        atomic_fetch_add_explicit(&tirc_pool.completed, 1, memory_order_acq_rel);
    }
}

static void *tirc_worker(void *unused) {
    (void)unused;
    tirc_inside_launch = 1;
    uint32_t seen = 0;
    for (;;) {
        uint32_t generation = seen;
        for (int spins = 0; generation == seen; ++spins) {
            if (atomic_load_explicit(&tirc_pool.stopping, memory_order_acquire)) {
                return NULL;
            }
            generation = tirc_generation_of(
                atomic_load_explicit(&tirc_pool.claims, memory_order_acquire));
            if (generation != seen) {
                continue;
            }
            if (spins < TIRC_SPINS_BEFORE_SLEEP) {
                tirc_spin_pause();
                continue;
            }
            pthread_mutex_lock(&tirc_pool.sleep_lock);
            while (tirc_generation_of(atomic_load(&tirc_pool.claims)) == seen &&
                   !atomic_load(&tirc_pool.stopping)) {
                pthread_cond_wait(&tirc_pool.wake, &tirc_pool.sleep_lock);
            }
            pthread_mutex_unlock(&tirc_pool.sleep_lock);
            spins = 0;
        }
        seen = generation;
        pthread_mutex_lock(&tirc_pool.job_lock);
        struct tirc_job job = tirc_pool.job;
        pthread_mutex_unlock(&tirc_pool.job_lock);
        if (job.generation == generation) {
            tirc_run_tasks(job);
        }
    }
}

static int32_t tirc_thread_count(void) {
    const char *configured = getenv("TIRC_NUM_THREADS");
    if (configured != NULL && atoi(configured) > 0) {
        return (int32_t)atoi(configured);
    }
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    return online > 0 ? (int32_t)online : 1;
}

static void tirc_start_pool(void) {
    tirc_pool.threads = tirc_thread_count();
    if (tirc_pool.threads <= 1) {
        return;
    }
    tirc_pool.workers = calloc((size_t)tirc_pool.threads - 1, sizeof(pthread_t));
    if (tirc_pool.workers == NULL) {
        return;
    }
    pthread_attr_t attributes;
    pthread_attr_init(&attributes);
    pthread_attr_setstacksize(&attributes, TIRC_WORKER_STACK_BYTES);
    /* A worker that cannot start leaves its tasks to the launching thread. */
    for (int32_t index = 0; index + 1 < tirc_pool.threads; ++index) {
        if (pthread_create(&tirc_pool.workers[tirc_pool.started], &attributes, tirc_worker, NULL) == 0) {
            tirc_pool.started += 1;
        }
    }
    pthread_attr_destroy(&attributes);
}

/* Stops and joins the workers when the library is unloaded (dlclose or exit),
 * so none is left running code that is no longer mapped. */
__attribute__((destructor)) static void tirc_stop_pool(void) {
    if (tirc_pool.started == 0) {
        return;
    }
    pthread_mutex_lock(&tirc_pool.sleep_lock);
    atomic_store(&tirc_pool.stopping, 1);
    pthread_cond_broadcast(&tirc_pool.wake);
    pthread_mutex_unlock(&tirc_pool.sleep_lock);
    for (int32_t index = 0; index < tirc_pool.started; ++index) {
        pthread_join(tirc_pool.workers[index], NULL);
    }
    free(tirc_pool.workers);
    tirc_pool.workers = NULL;
    tirc_pool.started = 0;
}

static int32_t tirc_run_serially(tirc_parallel_lambda lambda, void *closure, int32_t num_task) {
    int32_t first_error = 0;
    for (int32_t task = 0; task < num_task; ++task) {
        int32_t code = lambda(task, num_task, closure);
        if (code != 0 && first_error == 0) {
            first_error = code;
        }
    }
    return first_error;
}

__attribute__((visibility("hidden")))
int32_t tirc_parallel_launch(tirc_parallel_lambda lambda, void *closure, int32_t num_task) {
    pthread_once(&tirc_pool.once, tirc_start_pool);
    if (num_task <= 0) {
        num_task = tirc_pool.threads > 0 ? tirc_pool.threads : 1;
    }
    if (tirc_inside_launch || tirc_pool.started == 0 || num_task == 1) {
        int was_inside = tirc_inside_launch;
        tirc_inside_launch = 1;
        int32_t code = tirc_run_serially(lambda, closure, num_task);
        tirc_inside_launch = was_inside;
        return code;
    }
    pthread_mutex_lock(&tirc_pool.launch_lock);
    tirc_pool.generation += 1;
    struct tirc_job job = {lambda, closure, num_task, tirc_pool.generation};
    pthread_mutex_lock(&tirc_pool.job_lock);
    tirc_pool.job = job;
    pthread_mutex_unlock(&tirc_pool.job_lock);
    atomic_store_explicit(&tirc_pool.first_error, 0, memory_order_release);
    atomic_store_explicit(&tirc_pool.completed, 0, memory_order_release);
    pthread_mutex_lock(&tirc_pool.sleep_lock);
    atomic_store_explicit(&tirc_pool.claims, (uint64_t)job.generation << 32, memory_order_release);
    pthread_cond_broadcast(&tirc_pool.wake);
    pthread_mutex_unlock(&tirc_pool.sleep_lock);
    tirc_inside_launch = 1;
    tirc_run_tasks(job);
    tirc_inside_launch = 0;
    for (int spins = 0;
         atomic_load_explicit(&tirc_pool.completed, memory_order_acquire) < num_task; ++spins) {
        if (spins < TIRC_SPINS_BEFORE_SLEEP) {
            tirc_spin_pause();
        } else {
            sched_yield();
        }
    }
    int32_t code = atomic_load_explicit(&tirc_pool.first_error, memory_order_acquire);
    pthread_mutex_unlock(&tirc_pool.launch_lock);
    return code;
}

/* Workspace memory for large allocations in kernels (64-byte aligned). */
__attribute__((visibility("hidden")))
void *tirc_workspace_allocate(int64_t bytes) {
    size_t size = (size_t)(bytes > 0 ? bytes : 1);
    size = (size + 63) / 64 * 64;
    return aligned_alloc(64, size);
}

__attribute__((visibility("hidden")))
void tirc_workspace_free(void *pointer) {
    free(pointer);
}
