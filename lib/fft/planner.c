/* planner.c — FFTW planning and wisdom for every skit module that plans.
 *
 * FFTW's planner (fftw_plan_*, fftw_destroy_plan) and its wisdom calls
 * share global state and are not thread-safe. FFTW >= 3.3.5 can lock its
 * own planner; we switch that on once (so that code of the application
 * planning with FFTW directly is safe beside skit) and also hold one lock
 * of ours around every plan, destroy and wisdom call skit makes, since
 * FFTW's lock does not cover the wisdom import/export calls. (Executing
 * plans on new arrays was always thread-safe.) */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <fftw3.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/internal.h"
#include "fft/planner.h"
#include "skit/fft.h"

static pthread_once_t once = PTHREAD_ONCE_INIT;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static skit_planner default_planner = SKIT_PLANNER_ESTIMATE;

static void make_thread_safe(void)
{
    fftw_make_planner_thread_safe();
    fftwf_make_planner_thread_safe(); /* the float32 plans' planner is another */
}

void skit_fftw_planner_init(void) { pthread_once(&once, make_thread_safe); }

void skit_fftw_lock(void)
{
    skit_fftw_planner_init();
    pthread_mutex_lock(&lock);
}

void skit_fftw_unlock(void) { pthread_mutex_unlock(&lock); }

static const char *const names[] = {"default", "estimate", "measure", "patient", "exhaustive", "wisdom-only"};

static int known(skit_planner p) { return (int)p >= 0 && (int)p <= (int)SKIT_PLANNER_WISDOM_ONLY; }

int skit_fft_set_default_planner(skit_planner planner)
{
    if (!known(planner) || planner == SKIT_PLANNER_DEFAULT)
        return SKIT_ERROR(SKIT_EINVAL, "planner = %d unknown: need estimate, measure, patient, exhaustive "
                                       "or wisdom-only", (int)planner);
    __atomic_store_n(&default_planner, planner, __ATOMIC_RELAXED);
    return SKIT_OK;
}

skit_planner skit_fft_default_planner(void) { return __atomic_load_n(&default_planner, __ATOMIC_RELAXED); }

void skit_fft_set_time_limit(double seconds)
{
    skit_fftw_lock();
    fftw_set_timelimit(seconds < 0 ? FFTW_NO_TIMELIMIT : seconds);
    fftwf_set_timelimit(seconds < 0 ? FFTW_NO_TIMELIMIT : seconds);
    skit_fftw_unlock();
}

const char *skit_planner_name(skit_planner planner)
{
    if (!known(planner)) return NULL;
    if (planner == SKIT_PLANNER_DEFAULT) planner = skit_fft_default_planner();
    return names[planner];
}

const char *skit_fft_inverse_name(skit_fft_inverse inverse)
{
    switch (inverse) {
    case SKIT_FFT_INVERSE_AUTO: return "auto";
    case SKIT_FFT_INVERSE_HARTLEY: return "hartley";
    case SKIT_FFT_INVERSE_C2R: return "c2r";
    }
    return NULL;
}

int skit_planner_parse(const char *name, skit_planner *planner)
{
    SKIT_REQUIRE_PTR(planner);
    for (int p = SKIT_PLANNER_ESTIMATE; name && p <= SKIT_PLANNER_WISDOM_ONLY; p++)
        if (!strcmp(name, names[p])) {
            *planner = (skit_planner)p;
            return SKIT_OK;
        }
    return SKIT_ERROR(SKIT_EINVAL, "planner '%s' unknown: need estimate, measure, patient, exhaustive or "
                                   "wisdom-only", name ? name : "(null)");
}

int skit_fftw_flags(skit_planner planner, unsigned *flags)
{
    if (!known(planner))
        return SKIT_ERROR(SKIT_EINVAL, "planner = %d unknown: need SKIT_PLANNER_DEFAULT, _ESTIMATE, _MEASURE, "
                                       "_PATIENT, _EXHAUSTIVE or _WISDOM_ONLY", (int)planner);
    if (planner == SKIT_PLANNER_DEFAULT) planner = skit_fft_default_planner();
    static const unsigned table[] = {FFTW_ESTIMATE, FFTW_ESTIMATE, FFTW_MEASURE, FFTW_PATIENT, FFTW_EXHAUSTIVE,
                                     FFTW_WISDOM_ONLY | FFTW_ESTIMATE};
    *flags = table[planner];
    return SKIT_OK;
}

/* Why a pair fails: no wisdom under WISDOM_ONLY, or FFTW itself. */
static int pair_failed(unsigned flags, size_t N)
{
    if (flags & FFTW_WISDOM_ONLY)
        return SKIT_ERROR(SKIT_ELIBRARY, "planner wisdom-only: no wisdom for a real FFT of length %zu "
                                         "(import it first, e.g. from `skit wisdom`)", N);
    return SKIT_ERROR(SKIT_ELIBRARY, "FFTW could not plan a real FFT of length %zu", N);
}

/* The plan pair and its destroy, once per precision (FFTW's own way: the
 * same text with the prefix fftw_ for double, fftwf_ for float). */
#define SKIT_DEFINE_REAL_PAIR(PAIR, DESTROY, R, P)                                                    \
    int PAIR(size_t N, R *real, R *complex_buf, unsigned flags, P##_plan *r2c, P##_plan *c2r)        \
    {                                                                                                 \
        skit_fftw_lock();                                                                             \
        *r2c = P##_plan_dft_r2c_1d((int)N, real, (P##_complex *)complex_buf, flags);                 \
        *c2r = P##_plan_dft_c2r_1d((int)N, (P##_complex *)complex_buf, real, flags);                 \
        if (!*r2c || !*c2r) {                                                                         \
            if (*r2c) P##_destroy_plan(*r2c);                                                         \
            if (*c2r) P##_destroy_plan(*c2r);                                                         \
            *r2c = *c2r = NULL;                                                                       \
        }                                                                                             \
        skit_fftw_unlock();                                                                           \
        return *r2c ? SKIT_OK : pair_failed(flags, N);                                                \
    }                                                                                                 \
    void DESTROY(P##_plan plan)                                                                       \
    {                                                                                                 \
        if (!plan) return;                                                                            \
        skit_fftw_lock();                                                                             \
        P##_destroy_plan(plan);                                                                       \
        skit_fftw_unlock();                                                                           \
    }

SKIT_DEFINE_REAL_PAIR(skit_fftw_plan_real_pair, skit_fftw_destroy, double, fftw)
SKIT_DEFINE_REAL_PAIR(skit_fftwf_plan_real_pair, skit_fftwf_destroy, float, fftwf)

#define SKIT_DEFINE_PLAN_FLOPS(FLOPS, P)                                                              \
    double FLOPS(P##_plan plan)                                                                       \
    {                                                                                                 \
        double add, mul, fma;                                                                         \
        skit_fftw_lock();                                                                             \
        P##_flops(plan, &add, &mul, &fma);                                                            \
        skit_fftw_unlock();                                                                           \
        return add + mul + 2 * fma;                                                                   \
    }

SKIT_DEFINE_PLAN_FLOPS(skit_fftw_plan_flops, fftw)
SKIT_DEFINE_PLAN_FLOPS(skit_fftwf_plan_flops, fftwf)

/* ---- shared pairs ---------------------------------------------------------
 * Creating an FFTW plan costs far more than running a small one (wisdom
 * lookup by md5 hashing, twiddle tables, allocations): a Toeplitz solve at
 * n = 1024 spent a fifth of its time planning its residual product. Plans
 * executed on new arrays are thread-safe and depend only on the length,
 * the flags and the arrays' alignment, so circulant engines share them:
 * SHARED_SLOTS pairs per precision, reference-counted, the least recently
 * used unreferenced pair evicted when a new one needs its slot. Every
 * shared pair is planned on buffers laid out as the engine's workspace
 * slices (64-byte aligned; real part N rounded up to a line plus one line,
 * then N/2+1 complex), the layout each execution uses. Forgetting wisdom
 * drops the unreferenced pairs, so that planning after it (wisdom-only
 * included) plans anew. */
enum { SHARED_SLOTS = 32 };

#define SKIT_DEFINE_SHARED_PAIR(ACQUIRE, RELEASE, CHOICE, SET_CHOICE, FLUSH, R, P)                       \
    static struct {                                                                                   \
        size_t N;                                                                                     \
        unsigned flags, refs;                                                                         \
        int choice; /* a user's measured choice for this pair (-1: none yet) */                      \
        unsigned long long used;                                                                      \
        P##_plan r2c, c2r;                                                                            \
    } P##_shared[SHARED_SLOTS];                                                                       \
    static unsigned long long P##_clock;                                                              \
                                                                                                      \
    /* the slot of (N, flags), else a free or evictable slot (evicted), else -1 */                    \
    static int P##_slot(size_t N, unsigned flags, int *hit)                                           \
    {                                                                                                 \
        int empty = -1, idle = -1;                                                                    \
        for (int i = 0; i < SHARED_SLOTS; i++) {                                                      \
            if (!P##_shared[i].r2c) { if (empty < 0) empty = i; continue; }                           \
            if (P##_shared[i].N == N && P##_shared[i].flags == flags) { *hit = 1; return i; }         \
            if (!P##_shared[i].refs && (idle < 0 || P##_shared[i].used < P##_shared[idle].used))      \
                idle = i;                                                                             \
        }                                                                                             \
        *hit = 0;                                                                                     \
        int i = empty >= 0 ? empty : idle;                                                            \
        if (i >= 0 && P##_shared[i].r2c) {                                                            \
            P##_destroy_plan(P##_shared[i].r2c);                                                      \
            P##_destroy_plan(P##_shared[i].c2r);                                                      \
            P##_shared[i].r2c = P##_shared[i].c2r = NULL;                                             \
        }                                                                                             \
        return i;                                                                                     \
    }                                                                                                 \
                                                                                                      \
    int ACQUIRE(size_t N, unsigned flags, P##_plan *r2c, P##_plan *c2r)                               \
    {                                                                                                 \
        *r2c = *c2r = NULL;                                                                           \
        const size_t line = 64 / sizeof(R), real = (N + line - 1) / line * line + line;              \
        R *buf = NULL; /* a planning buffer only on a miss */                                         \
        skit_fftw_lock();                                                                             \
        int hit, i = P##_slot(N, flags, &hit);                                                        \
        if (!hit && !(buf = skit_malloc(real + 2 * (N / 2 + 1), sizeof(R)))) {                        \
            skit_fftw_unlock();                                                                       \
            return SKIT_ENOMEM;                                                                       \
        }                                                                                             \
        if (!hit) {                                                                                   \
            *r2c = P##_plan_dft_r2c_1d((int)N, buf, (P##_complex *)(buf + real), flags);              \
            *c2r = P##_plan_dft_c2r_1d((int)N, (P##_complex *)(buf + real), buf, flags);              \
            if (!*r2c || !*c2r) {                                                                     \
                if (*r2c) P##_destroy_plan(*r2c);                                                     \
                if (*c2r) P##_destroy_plan(*c2r);                                                     \
                *r2c = *c2r = NULL;                                                                   \
                i = -1;                                                                               \
            } else if (i >= 0) { /* no slot: the caller owns an unshared pair */                      \
                P##_shared[i].N = N, P##_shared[i].flags = flags, P##_shared[i].refs = 0;             \
                P##_shared[i].r2c = *r2c, P##_shared[i].c2r = *c2r;                                   \
                P##_shared[i].choice = -1;                                                            \
            }                                                                                         \
        }                                                                                             \
        if (i >= 0) {                                                                                 \
            P##_shared[i].refs++;                                                                     \
            P##_shared[i].used = ++P##_clock;                                                         \
            *r2c = P##_shared[i].r2c, *c2r = P##_shared[i].c2r;                                       \
        }                                                                                             \
        skit_fftw_unlock();                                                                           \
        skit_free(buf);                                                                               \
        return *r2c ? SKIT_OK : pair_failed(flags, N);                                                \
    }                                                                                                 \
                                                                                                      \
    void RELEASE(P##_plan r2c, P##_plan c2r)                                                          \
    {                                                                                                 \
        if (!r2c) return;                                                                             \
        skit_fftw_lock();                                                                             \
        int i = 0;                                                                                    \
        while (i < SHARED_SLOTS && P##_shared[i].r2c != r2c) i++;                                     \
        if (i < SHARED_SLOTS) {                                                                       \
            P##_shared[i].refs--;                                                                     \
        } else {                                                                                      \
            P##_destroy_plan(r2c);                                                                    \
            P##_destroy_plan(c2r);                                                                    \
        }                                                                                             \
        skit_fftw_unlock();                                                                           \
    }                                                                                                 \
                                                                                                      \
    int CHOICE(P##_plan r2c)                                                                          \
    {                                                                                                 \
        int choice = -1;                                                                              \
        skit_fftw_lock();                                                                             \
        for (int i = 0; i < SHARED_SLOTS; i++)                                                        \
            if (r2c && P##_shared[i].r2c == r2c) choice = P##_shared[i].choice;                       \
        skit_fftw_unlock();                                                                           \
        return choice;                                                                                \
    }                                                                                                 \
                                                                                                      \
    void SET_CHOICE(P##_plan r2c, int choice)                                                         \
    {                                                                                                 \
        skit_fftw_lock();                                                                             \
        for (int i = 0; i < SHARED_SLOTS; i++)                                                        \
            if (r2c && P##_shared[i].r2c == r2c) P##_shared[i].choice = choice;                       \
        skit_fftw_unlock();                                                                           \
    }                                                                                                 \
                                                                                                      \
    /* drop the unreferenced pairs (the caller holds the lock) */                                     \
    static void FLUSH(void)                                                                           \
    {                                                                                                 \
        for (int i = 0; i < SHARED_SLOTS; i++)                                                        \
            if (P##_shared[i].r2c && !P##_shared[i].refs) {                                           \
                P##_destroy_plan(P##_shared[i].r2c);                                                  \
                P##_destroy_plan(P##_shared[i].c2r);                                                  \
                P##_shared[i].r2c = P##_shared[i].c2r = NULL;                                         \
            }                                                                                         \
    }

SKIT_DEFINE_SHARED_PAIR(skit_fftw_pair_acquire, skit_fftw_pair_release, skit_fftw_pair_choice,
                        skit_fftw_pair_set_choice, flush_shared, double, fftw)
SKIT_DEFINE_SHARED_PAIR(skit_fftwf_pair_acquire, skit_fftwf_pair_release, skit_fftwf_pair_choice,
                        skit_fftwf_pair_set_choice, flush_shared_f, float, fftwf)

/* The pair of one precision on the engine's buffers (real: N rounded up
 * to a 64-byte line and one line more, then N/2+1 complex), timed. */
static int plan_length(size_t length, int single, skit_planner planner, double *seconds)
{
    if (length == 0 || length > (size_t)INT_MAX)
        return SKIT_ERROR(SKIT_EDOM, "FFT length %zu out of range: need 1 <= N <= %d", length, INT_MAX);
    unsigned flags = FFTW_ESTIMATE;
    SKIT_TRY(skit_fftw_flags(planner, &flags));
    const size_t size = single ? sizeof(float) : sizeof(double), line = 64 / size;
    size_t real = (length + line - 1) / line * line + line;
    void *buf = skit_malloc(real + 2 * (length / 2 + 1), size);
    if (!buf) return SKIT_ENOMEM;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int status;
    if (single) {
        fftwf_plan r2c, c2r;
        status = skit_fftwf_plan_real_pair(length, buf, (float *)buf + real, flags, &r2c, &c2r);
        skit_fftwf_destroy(r2c);
        skit_fftwf_destroy(c2r);
    } else {
        fftw_plan r2c, c2r;
        status = skit_fftw_plan_real_pair(length, buf, (double *)buf + real, flags, &r2c, &c2r);
        skit_fftw_destroy(r2c);
        skit_fftw_destroy(c2r);
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    skit_free(buf);
    if (seconds) *seconds = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    return status;
}

int skit_fft_plan_length(size_t length, skit_planner planner, double *seconds)
{
    return plan_length(length, 0, planner, seconds);
}

int skit_fft_plan_length_f32(size_t length, skit_planner planner, double *seconds)
{
    return plan_length(length, 1, planner, seconds);
}

/* ---- wisdom --------------------------------------------------------------- */

void skit_fft_wisdom_forget(void)
{
    skit_fftw_lock();
    fftw_forget_wisdom();
    fftwf_forget_wisdom();
    flush_shared();
    flush_shared_f();
    skit_fftw_unlock();
}
