/* The runtime of shared libraries built by `tirc build --emit so`: the
 * parallel launch and workspace allocation.
 *
 * Generated code calls tirc_parallel_launch(lambda, closure, num_task) for
 * each parallel loop; the lambda takes its own static chunk of iterations
 * from its task id. This version starts threads per launch (the JIT's pool
 * in tirc is persistent); TIRC_NUM_THREADS sizes it, else the number of
 * online CPUs. Nested launches run serially. */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

typedef int32_t (*tirc_parallel_lambda)(int32_t task_id, int32_t num_task, void *closure);

struct tirc_share {
    tirc_parallel_lambda lambda;
    void *closure;
    int32_t num_task;
    int32_t threads;
    int32_t index;
    int32_t code;
};

static __thread int tirc_inside_launch = 0;

static void *tirc_run_share(void *argument) {
    struct tirc_share *share = (struct tirc_share *)argument;
    tirc_inside_launch = 1;
    share->code = 0;
    for (int32_t task = share->index; task < share->num_task; task += share->threads) {
        int32_t code = share->lambda(task, share->num_task, share->closure);
        if (code != 0 && share->code == 0) {
            share->code = code;
        }
    }
    return NULL;
}

static int32_t tirc_thread_count(void) {
    const char *configured = getenv("TIRC_NUM_THREADS");
    if (configured != NULL && atoi(configured) > 0) {
        return (int32_t)atoi(configured);
    }
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    return online > 0 ? (int32_t)online : 1;
}

__attribute__((visibility("hidden")))
int32_t tirc_parallel_launch(tirc_parallel_lambda lambda, void *closure, int32_t num_task) {
    int32_t threads = tirc_thread_count();
    if (num_task <= 0) {
        num_task = threads;
    }
    if (threads > num_task) {
        threads = num_task;
    }
    if (tirc_inside_launch || threads <= 1) {
        struct tirc_share serial = {lambda, closure, num_task, 1, 0, 0};
        int was_inside = tirc_inside_launch;
        tirc_run_share(&serial);
        tirc_inside_launch = was_inside;
        return serial.code;
    }
    struct tirc_share *shares = calloc((size_t)threads, sizeof(struct tirc_share));
    pthread_t *handles = calloc((size_t)threads, sizeof(pthread_t));
    int *started = calloc((size_t)threads, sizeof(int));
    if (shares == NULL || handles == NULL || started == NULL) {
        free(shares);
        free(handles);
        free(started);
        struct tirc_share serial = {lambda, closure, num_task, 1, 0, 0};
        tirc_run_share(&serial);
        tirc_inside_launch = 0;
        return serial.code;
    }
    pthread_attr_t attributes;
    pthread_attr_init(&attributes);
    pthread_attr_setstacksize(&attributes, (size_t)16 << 20);
    for (int32_t index = 0; index < threads; ++index) {
        struct tirc_share share = {lambda, closure, num_task, threads, index, 0};
        shares[index] = share;
    }
    for (int32_t index = 1; index < threads; ++index) {
        started[index] = pthread_create(&handles[index], &attributes, tirc_run_share, &shares[index]) == 0;
    }
    pthread_attr_destroy(&attributes);
    tirc_run_share(&shares[0]);
    /* A thread that could not start has its share run here. */
    for (int32_t index = 1; index < threads; ++index) {
        if (started[index]) {
            pthread_join(handles[index], NULL);
        } else {
            tirc_run_share(&shares[index]);
        }
    }
    tirc_inside_launch = 0;
    int32_t code = 0;
    for (int32_t index = 0; index < threads && code == 0; ++index) {
        code = shares[index].code;
    }
    free(shares);
    free(handles);
    free(started);
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
