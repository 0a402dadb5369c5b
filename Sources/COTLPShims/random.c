/* A per-thread xoshiro256** generator for trace and span IDs: no lock and no system call per ID. Seeded
   by the caller (from the system's randomness) on a thread's first use and again in a child process after
   fork, so that parent and child never continue one sequence. */
#include <pthread.h>

#include "COTLPShims.h"

static _Thread_local uint64_t state[4];
static _Thread_local unsigned long state_generation; /* 0: never seeded */
/* Bumped in every child after fork: each thread's state then counts as unseeded. */
static volatile unsigned long process_generation = 1;
static pthread_once_t at_fork_once = PTHREAD_ONCE_INIT;

static void forked_child(void) { process_generation += 1; }
static void register_at_fork(void) { pthread_atfork(NULL, NULL, forked_child); }

static inline uint64_t rotate_left(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

bool COTLPShims_random_next(uint64_t *value) {
    if (state_generation != process_generation) return false;
    uint64_t result = rotate_left(state[1] * 5, 7) * 9;
    uint64_t t = state[1] << 17;
    state[2] ^= state[0];
    state[3] ^= state[1];
    state[1] ^= state[2];
    state[0] ^= state[3];
    state[2] ^= t;
    state[3] = rotate_left(state[3], 45);
    *value = result;
    return true;
}

void COTLPShims_random_seed(uint64_t a, uint64_t b, uint64_t c, uint64_t d) {
    pthread_once(&at_fork_once, register_at_fork);
    /* An all-zero state would stay zero forever. */
    if ((a | b | c | d) == 0) a = 0x9E3779B97F4A7C15ULL;
    state[0] = a;
    state[1] = b;
    state[2] = c;
    state[3] = d;
    state_generation = process_generation;
}
