/* test_train_alloc.c — "no allocation inside a training step
 * after the first": the process's malloc family is counted (this program
 * replaces malloc, calloc, realloc, aligned_alloc, posix_memalign and
 * memalign by counting wrappers of glibc's, which the library, FFTW and
 * OpenBLAS then call too), and steps 2..5 of every mixer's model (forward,
 * backward, clipping, AdamW, pushing the parameters into the plans; causal
 * and masked LM; with a learnable decay; float64 and, for tno, fd and
 * attention, float32) must call none of them, apart from
 * the OpenMP runtime's own bookkeeping (counted apart, printed); nor must
 * the attention plans' execute, select and backward after their first
 * calls. */
#define _GNU_SOURCE 1 /* dladdr */
#include "config.h"

#include <dlfcn.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check_util.h"
#include "train/data.h"
#include "train/model.h"
#include "train/optim.h"

/* AddressSanitizer replaces the malloc family itself: wrappers of glibc's
 * would hand ASan's free pointers it never made (the sanitizer build
 * crashed so). There the test is skipped. */
#if defined(__SANITIZE_ADDRESS__)
#define TRAIN_ALLOC_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TRAIN_ALLOC_ASAN 1
#endif
#endif

/* Calls of the malloc family since the last reset: by skit, FFTW, OpenBLAS
 * (allocations), and by the OpenMP runtime (runtime: libgomp allocates a
 * team for every parallel region that runs on one thread, and frees it after;
 * that is not the library's doing and not avoidable by it). Callers are
 * told apart only while counting, by dladdr of the return address. */
static size_t allocations, runtime;
/* of allocations, those OpenBLAS makes itself: its small-matrix GEMM
 * kernels for AVX-512 malloc a packing buffer for some shapes (sgemm NN
 * with fewer than 16 rows and 32 or more terms, for one), beyond the
 * library's reach */
static size_t blas;
static int counting;

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
void *memalign(size_t alignment, size_t size);

#ifndef TRAIN_ALLOC_ASAN
static void count(const void *caller)
{
    if (!__atomic_load_n(&counting, __ATOMIC_RELAXED)) return;
    Dl_info info;
    if (dladdr(caller, &info) && info.dli_fname && strstr(info.dli_fname, "libgomp"))
        __atomic_add_fetch(&runtime, 1, __ATOMIC_RELAXED);
    else
        __atomic_add_fetch(&allocations, 1, __ATOMIC_RELAXED);
    if (dladdr(caller, &info) && info.dli_fname && strstr(info.dli_fname, "libopenblas"))
        __atomic_add_fetch(&blas, 1, __ATOMIC_RELAXED);
}

void *malloc(size_t size)
{
    count(__builtin_return_address(0));
    return __libc_malloc(size);
}
void *calloc(size_t n, size_t size)
{
    count(__builtin_return_address(0));
    return __libc_calloc(n, size);
}
void *realloc(void *p, size_t size)
{
    count(__builtin_return_address(0));
    return __libc_realloc(p, size);
}
void *memalign(size_t alignment, size_t size)
{
    count(__builtin_return_address(0));
    return __libc_memalign(alignment, size);
}
void *aligned_alloc(size_t alignment, size_t size)
{
    count(__builtin_return_address(0));
    return __libc_memalign(alignment, size);
}
int posix_memalign(void **out, size_t alignment, size_t size)
{
    count(__builtin_return_address(0));
    void *p = __libc_memalign(alignment, size);
    if (!p) return 12; /* ENOMEM */
    *out = p;
    return 0;
}
#endif /* TRAIN_ALLOC_ASAN */

static void counter_start(void)
{
    __atomic_store_n(&allocations, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&runtime, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&blas, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&counting, 1, __ATOMIC_RELAXED);
}

static size_t counter_stop(void)
{
    __atomic_store_n(&counting, 0, __ATOMIC_RELAXED);
    return __atomic_load_n(&allocations, __ATOMIC_RELAXED);
}

/* One training step as `skit train` takes it (train/cmd_train.c train_step);
 * no ck_assert inside (check's bookkeeping of a passed assertion allocates).
 * Returns a library status, SKIT_ENONFINITE for a loss not finite. */
static int step(train_model *m, train_task *task, skit_rng *rng, train_adamw *opt, size_t t, int *in, int *tg,
                double *w, const unsigned char *decayed)
{
    const train_config *c = train_model_config(m);
    double loss = NAN;
    train_task_batch(task, rng, 0, c->batch, c->n, in, tg, w);
    int status = train_model_forward(m, in, tg, w, &loss, NULL);
    if (!status) status = train_model_backward(m);
    if (status) return status;
    train_clip(train_model_gradients(m), train_model_parameter_count(m), opt->clip);
    train_adamw_step(opt, t, train_model_parameters(m), train_model_gradients(m), decayed);
    status = train_model_sync(m);
    return status ? status : isfinite(loss) ? SKIT_OK : SKIT_ENONFINITE;
}

static void check_steps_allocate_nothing(train_mixer mixer, int causal, int learn_decay, skit_precision precision)
{
    train_config c;
    memset(&c, 0, sizeof c);
    c.vocab = 9, c.out_vocab = 8, c.n = 16, c.batch = 2, c.d = 8, c.expand = 1, c.glu_hidden = 16, c.layers = 2;
    c.mixer = mixer, c.causal = causal, c.norm = SKIT_NORM_RMS, c.tied = 1, c.seed = tu_seed();
    c.positions = TRAIN_POSITIONS_ROPE;
    c.learn_decay = learn_decay;
    c.precision = precision;
    skit_tno_options_default(&c.tno, SKIT_TNO_FFT);
    c.tno.rpe_width = 8;
    c.tno.rank = 8, c.tno.taps = 5, c.tno.knots = 4;
    train_task task;
    TU_EXPECT_OK(train_task_create(&task, TRAIN_TASK_MARKOV, 8, 2, NULL, !causal, c.seed));
    train_model *m;
    const char *why;
    TU_EXPECT_OK(train_model_create(&m, &c, &why));
    size_t P = train_model_parameter_count(m), R = c.batch * c.n;
    int *in = malloc(R * sizeof *in), *tg = malloc(R * sizeof *tg);
    double *w = malloc(R * sizeof *w);
    unsigned char *decayed = calloc(P, 1);
    train_adamw opt = {.lr = 1e-2, .beta1 = 0.9, .beta2 = 0.999, .eps = 1e-8, .weight_decay = 0.01, .clip = 1.0,
                       .warmup = 1, .steps = 5, .count = P};
    opt.m = calloc(P, sizeof(double)), opt.v = calloc(P, sizeof(double));
    skit_rng rng;
    skit_rng_seed(&rng, c.seed);
    TU_EXPECT_OK(step(m, &task, &rng, &opt, 0, in, tg, w, decayed));
    int status = SKIT_OK;
    counter_start();
    for (size_t t = 1; t < 5 && !status; t++) status = step(m, &task, &rng, &opt, t, in, tg, w, decayed);
    size_t counted = counter_stop();
    TU_EXPECT_OK(status);
    fprintf(stderr, "mixer %s %s%s%s: steps 2..5 allocated %zu times (the OpenMP runtime's teams: %zu)\n",
           train_mixer_names[mixer], causal ? "causal" : "masked", learn_decay ? " learned decay" : "",
           precision == SKIT_PRECISION_F32 ? " float32" : "", counted, runtime);
    ck_assert_uint_eq(counted, 0);
    free(in), free(tg), free(w), free(decayed), free(opt.m), free(opt.v);
    train_model_destroy(m);
    train_task_destroy(&task);
}

START_TEST(test_steps_allocate_nothing)
{
    for (int mixer = TRAIN_MIXER_TNO; mixer <= TRAIN_MIXER_MRA2S; mixer++)
        for (int causal = 0; causal < 2; causal++)
            check_steps_allocate_nothing((train_mixer)mixer, causal, 0, SKIT_PRECISION_F64);
    check_steps_allocate_nothing(TRAIN_MIXER_TNO, 1, 1, SKIT_PRECISION_F64);
    /* float32, every mixer: float arenas, the library's float32 plans, and
     * MRA-2's float32 forward and backward on the model's scratch */
    static const train_mixer single[] = {TRAIN_MIXER_TNO, TRAIN_MIXER_FD, TRAIN_MIXER_SKI, TRAIN_MIXER_ATTENTION,
                                         TRAIN_MIXER_MRA, TRAIN_MIXER_MRA2S};
    for (size_t i = 0; i < sizeof single / sizeof single[0]; i++)
        for (int causal = 0; causal < 2; causal++)
            check_steps_allocate_nothing(single[i], causal, 0, SKIT_PRECISION_F32);
    check_steps_allocate_nothing(TRAIN_MIXER_TNO, 1, 1, SKIT_PRECISION_F32);
}
END_TEST

/* Attention plans lend their own scratch: after a first round of calls
 * (OpenBLAS and OpenMP set themselves up once), execute, select and
 * backward of the exact and MRA-2 plans, float64 and float32, causal or
 * not, allocate nothing but what OpenBLAS allocates inside a GEMM
 * (counted apart, printed). */
static int attention_round(const skit_attention_plan *p, int f32, int mra, const double *x, const float *x32,
                           size_t n, size_t d, unsigned char *refined, double *y, float *y32)
{
    const size_t b = n * d;
    int st;
    if (f32) {
        st = skit_attention_plan_execute_f32(p, x32, n, x32 + b, n, x32 + 2 * b, n, NULL, y32, n, NULL);
        if (!st && mra) st = skit_attention_plan_select_f32(p, x32, n, x32 + b, n, NULL, refined);
        for (int again = 0; again < 2 && !st; again++) /* the caller's squares, then the plan's own */
            st = skit_attention_plan_backward_f32(p, x32, n, x32 + b, n, x32 + 2 * b, n, NULL, again ? NULL : refined,
                                                  x32 + 3 * b, n, y32, n, y32 + b, n, y32 + 2 * b, n);
        return st;
    }
    st = skit_attention_plan_execute(p, x, n, x + b, n, x + 2 * b, n, NULL, y, n, NULL);
    if (!st && mra) st = skit_attention_plan_select(p, x, n, x + b, n, NULL, refined);
    for (int again = 0; again < 2 && !st; again++)
        st = skit_attention_plan_backward(p, x, n, x + b, n, x + 2 * b, n, NULL, again ? NULL : refined, x + 3 * b, n,
                                          y, n, y + b, n, y + 2 * b, n);
    return st;
}

START_TEST(test_attention_plans_allocate_nothing)
{
    const size_t n = 64, d = 8;
    skit_rng rng;
    skit_rng_seed(&rng, tu_seed());
    double *x = tu_random(&rng, 4 * n * d), *y = tu_alloc(3 * n * d);
    float *x32 = skit_malloc(4 * n * d, sizeof(float)), *y32 = skit_malloc(3 * n * d, sizeof(float));
    unsigned char refined[64];
    for (size_t i = 0; i < 4 * n * d; i++) x32[i] = (float)x[i];
    for (int mra = 0; mra < 2; mra++)
        for (int f32 = 0; f32 < 2; f32++)
            for (int causal = 0; causal < 2; causal++) {
                skit_attention_options o;
                skit_attention_options_init(&o, mra ? SKIT_ATTENTION_MRA2 : SKIT_ATTENTION_EXACT);
                o.block = 8, o.blocks_per_row[0] = 2, o.causal = causal;
                o.precision = f32 ? SKIT_PRECISION_F32 : SKIT_PRECISION_F64;
                skit_attention_plan *p;
                TU_EXPECT_OK(skit_attention_plan_create(&p, n, d, d, &o));
                TU_EXPECT_OK(attention_round(p, f32, mra, x, x32, n, d, refined, y, y32));
                counter_start();
                int status = attention_round(p, f32, mra, x, x32, n, d, refined, y, y32);
                size_t counted = counter_stop() - blas;
                TU_EXPECT_OK(status);
                fprintf(stderr, "attention %s %s%s: a round of calls allocated %zu times (OpenBLAS inside a GEMM: "
                        "%zu)\n", mra ? "mra2" : "exact", f32 ? "float32" : "float64", causal ? " causal" : "",
                        counted, blas);
                ck_assert_uint_eq(counted, 0);
                skit_attention_plan_destroy(p);
            }
    skit_free(x), skit_free(y), skit_free(x32), skit_free(y32);
}
END_TEST

/* the counter counts: a plan's creation allocates */
START_TEST(test_counter_counts)
{
    counter_start();
    void *p = skit_malloc(10, 8);
    ck_assert_uint_eq(counter_stop(), 1);
    skit_free(p);
}
END_TEST

static Suite *suite_train_alloc(void)
{
    Suite *s = suite_create("train_alloc");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_counter_counts);
    tcase_add_test(tc, test_steps_allocate_nothing);
    tcase_add_test(tc, test_attention_plans_allocate_nothing);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
#ifdef TRAIN_ALLOC_ASAN
    (void)suite_train_alloc;
    puts("skipped: AddressSanitizer owns the malloc family (the counting wrappers are left out)");
    return 77;
#else
    return tu_main(suite_train_alloc());
#endif
}
