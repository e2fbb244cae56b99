/* plan.c — the attention plan interface (options, create, execute, destroy)
 * and the methods that are one tiled sweep: exact, sliding window, BigBird. */
#include "config.h"

#include <math.h>
#include <pthread.h>
#include <string.h>

#include "attention/attention_internal.h"

static const char *const method_names[SKIT_ATTENTION_METHOD_COUNT] = {
    "exact", "mra2", "mra2s", "lowrank", "topk", "nystrom", "linformer", "performer", "window",
    "bigbird"};

const char *skit_attention_method_name(int method)
{
    if (method < 0 || method >= SKIT_ATTENTION_METHOD_COUNT) return NULL;
    return method_names[method];
}

int skit_attention_method_parse(const char *name, skit_attention_method *method)
{
    SKIT_REQUIRE_PTR(name);
    SKIT_REQUIRE_PTR(method);
    for (int i = 0; i < SKIT_ATTENTION_METHOD_COUNT; i++)
        if (!strcmp(name, method_names[i])) {
            *method = (skit_attention_method)i;
            return SKIT_OK;
        }
    return SKIT_ERROR(SKIT_EINVAL,
                      "method '%s' unknown: need one of exact, mra2, mra2s, lowrank, topk, "
                      "nystrom, linformer, performer, window, bigbird",
                      name);
}

void skit_attention_options_init(skit_attention_options *o, skit_attention_method method)
{
    if (!o) return;
    memset(o, 0, sizeof *o);
    o->method = method;
    o->scale = 0.0;
    o->seed = 1;
    o->block = 32;
    o->levels = 0;
    for (size_t l = 0; l + 1 < SKIT_MRA_MAX_LEVELS; l++) o->blocks_per_row[l] = 8;
    o->selection = SKIT_MRA_GLOBAL;
    o->rank = 64;
    o->nonzeros = 0;
    o->window = method == SKIT_ATTENTION_BIGBIRD ? 1 : 64;
    o->global_blocks = 1;
    o->random_blocks = 2;
    o->pinv_iterations = 6;
    o->linformer_projection = SKIT_LINFORMER_GAUSSIAN;
    o->performer_orthogonal = 1;
    o->device = SKIT_DEVICE_CPU;
}

void *attn_plan_alloc(skit_attention_plan *plan, size_t count, size_t size)
{
    size_t bytes, total;
    if (skit_size_mul(count, size, &bytes) || skit_size_add(plan->bytes, bytes, &total)) {
        plan->alloc_status = SKIT_ERROR(SKIT_EOVERFLOW, "attention plan size overflows size_t");
        return NULL;
    }
    if (plan->nblocks == ATTN_MAX_BLOCKS) {
        plan->alloc_status = SKIT_ERROR(
            SKIT_ENOMEM, "attention plan: too many allocations (internal limit %d)", ATTN_MAX_BLOCKS);
        return NULL;
    }
    plan->alloc_status = skit_memory_check(total, "attention plan");
    if (plan->alloc_status != SKIT_OK) return NULL;
    void *p = skit_malloc(count, size);
    if (!p) {
        plan->alloc_status = SKIT_ENOMEM;
        return NULL;
    }
    plan->blocks[plan->nblocks++] = p;
    plan->bytes = total;
    return p;
}

/* Executes write the plan's scratch and statistics, so a plan lends
 * itself to one execute at a time; a concurrent call takes an idle copy
 * (an instance made from the same options: the seeded projections and
 * patterns come out the same), creating one the first time it is needed.
 * Instances live until the plan is destroyed. */
typedef struct attn_pool {
    pthread_mutex_t lock;
    int plan_busy;
    skit_attention_plan **instances; /* count of them, cap allocated */
    unsigned char *busy;
    size_t count, cap;
} attn_pool;

static void destroy_instance(skit_attention_plan *plan)
{
    if (!plan) return;
    if (plan->release) plan->release(plan);
    for (size_t i = 0; i < plan->nblocks; i++) skit_free(plan->blocks[i]);
    skit_free(plan);
}

void skit_attention_plan_destroy(skit_attention_plan *plan)
{
    if (!plan) return;
    attn_pool *pool = plan->pool;
    if (pool) {
        for (size_t i = 0; i < pool->count; i++)
            destroy_instance(pool->instances[i]);
        skit_free(pool->instances);
        skit_free(pool->busy);
        pthread_mutex_destroy(&pool->lock);
        skit_free(pool);
    }
    destroy_instance(plan);
}

static int build_instance(skit_attention_plan **plan, size_t n, size_t d, size_t dv,
                          const skit_attention_options *o);

/* The instance this call runs on: the plan itself if idle, else an idle
 * or new copy (the error of its create if one cannot be made). */
static int take_instance(const skit_attention_plan *plan, skit_attention_plan **taken)
{
    attn_pool *pool = plan->pool;
    skit_attention_plan *inst = NULL;
    pthread_mutex_lock(&pool->lock);
    if (!pool->plan_busy) {
        pool->plan_busy = 1;
        inst = (skit_attention_plan *)plan; /* writes only the scratch it owns */
    }
    for (size_t i = 0; !inst && i < pool->count; i++)
        if (!pool->busy[i]) {
            pool->busy[i] = 1;
            inst = pool->instances[i];
        }
    pthread_mutex_unlock(&pool->lock);
    *taken = inst;
    if (inst) return SKIT_OK;
    SKIT_TRY(build_instance(&inst, plan->n, plan->d, plan->dv, &plan->o));
    pthread_mutex_lock(&pool->lock);
    if (pool->count == pool->cap) {
        size_t cap = pool->cap ? 2 * pool->cap : 2;
        skit_attention_plan **all = skit_malloc(cap, sizeof *all);
        unsigned char *busy = skit_malloc(cap, 1);
        if (!all || !busy) {
            skit_free(all);
            skit_free(busy);
            pthread_mutex_unlock(&pool->lock);
            destroy_instance(inst);
            return SKIT_ENOMEM;
        }
        if (pool->count) {
            memcpy(all, pool->instances, pool->count * sizeof *all);
            memcpy(busy, pool->busy, pool->count);
        }
        skit_free(pool->instances);
        skit_free(pool->busy);
        pool->instances = all;
        pool->busy = busy;
        pool->cap = cap;
    }
    pool->instances[pool->count] = inst;
    pool->busy[pool->count++] = 1;
    pthread_mutex_unlock(&pool->lock);
    *taken = inst;
    return SKIT_OK;
}

static void give_instance(const skit_attention_plan *plan, const skit_attention_plan *inst)
{
    attn_pool *pool = plan->pool;
    pthread_mutex_lock(&pool->lock);
    if (inst == plan) pool->plan_busy = 0;
    for (size_t i = 0; i < pool->count; i++)
        if (pool->instances[i] == inst) pool->busy[i] = 0;
    pthread_mutex_unlock(&pool->lock);
}

size_t skit_attention_plan_bytes(const skit_attention_plan *plan)
{
    return plan ? plan->bytes + sizeof *plan : 0;
}

int skit_attention_plan_create(skit_attention_plan **plan, size_t n, size_t d, size_t dv,
                               const skit_attention_options *o)
{
    SKIT_REQUIRE_PTR(plan);
    *plan = NULL;
    SKIT_REQUIRE_PTR(o);
    skit_attention_plan *p = NULL;
    SKIT_TRY(build_instance(&p, n, d, dv, o));
    attn_pool *pool = skit_calloc(1, sizeof *pool);
    if (!pool || pthread_mutex_init(&pool->lock, NULL) != 0) {
        skit_free(pool);
        destroy_instance(p);
        return pool ? SKIT_ERROR(SKIT_ENOMEM, "attention plan: no mutex") : SKIT_ENOMEM;
    }
    p->pool = pool;
    *plan = p;
    return SKIT_OK;
}

/* The causal mask: a flag, and only for the methods with a causal form
 * (Nyström's landmarks, Linformer's projections and Performer's feature
 * sums mix every token into every row). */
static int check_causal(const skit_attention_options *o)
{
    if (o->causal != 0 && o->causal != 1)
        return SKIT_ERROR(SKIT_EDOM, "causal = %d out of range: need 0 or 1", o->causal);
    if (!o->causal) return SKIT_OK;
    if (o->method == SKIT_ATTENTION_NYSTROM || o->method == SKIT_ATTENTION_LINFORMER ||
        o->method == SKIT_ATTENTION_PERFORMER)
        return SKIT_ERROR(SKIT_EUNSUPPORTED,
                          "causal %s is not available: its landmarks, projections or feature sums "
                          "mix every token into every row (use exact, mra2, mra2s, lowrank, topk, "
                          "window or bigbird)",
                          skit_attention_method_name(o->method));
    if (o->device != SKIT_DEVICE_CPU)
        return SKIT_ERROR(SKIT_EUNSUPPORTED, "causal attention runs on the CPU only (device = cpu)");
    return SKIT_OK;
}

/* The plan proper: validation, the method's constructor. */
static int build_instance(skit_attention_plan **plan, size_t n, size_t d, size_t dv,
                          const skit_attention_options *o)
{
    *plan = NULL;
    if ((int)o->method < 0 || o->method >= SKIT_ATTENTION_METHOD_COUNT)
        return SKIT_ERROR(SKIT_EINVAL, "method = %d unknown: need 0 <= method < %d",
                          (int)o->method, SKIT_ATTENTION_METHOD_COUNT);
    if (n == 0) return SKIT_ERROR(SKIT_EDOM, "n = 0 out of range: need n >= 1 tokens");
    if (d == 0) return SKIT_ERROR(SKIT_EDOM, "d = 0 out of range: need head dimension d >= 1");
    if (dv == 0) return SKIT_ERROR(SKIT_EDOM, "dv = 0 out of range: need value dimension dv >= 1");
    if (n > (size_t)INT32_MAX || d > (size_t)INT32_MAX || dv > (size_t)INT32_MAX)
        return SKIT_ERROR(SKIT_EDOM, "n, d, dv = %zu, %zu, %zu out of range: need each < 2^31 (BLAS)",
                          n, d, dv);
    if (!isfinite(o->scale) || o->scale < 0)
        return SKIT_ERROR(SKIT_EDOM, "scale = %g out of range: need finite scale >= 0 (0 = 1/sqrt(d))",
                          o->scale);
    if (o->device != SKIT_DEVICE_CPU && o->device != SKIT_DEVICE_CUDA)
        return SKIT_ERROR(SKIT_EINVAL, "device = %d unknown: need SKIT_DEVICE_CPU (0) or "
                                       "SKIT_DEVICE_CUDA (1)", (int)o->device);
    SKIT_TRY(check_causal(o));
    skit_attention_plan *p = skit_calloc(1, sizeof *p);
    if (!p) return SKIT_ENOMEM;
    p->o = *o;
    p->n = n;
    p->d = d;
    p->dv = dv;
    p->scale = o->scale > 0 ? o->scale : 1.0 / sqrt((double)d);
    p->threads = attn_max_threads();
    if (p->threads < 1) p->threads = 1;
    int status = SKIT_OK;
    if (o->device == SKIT_DEVICE_CUDA) {
        status = attn_device_create(p);
    } else if (status == SKIT_OK) {
        switch (o->method) {
        case SKIT_ATTENTION_EXACT: status = attn_exact_create(p); break;
        case SKIT_ATTENTION_MRA2:
        case SKIT_ATTENTION_MRA2_SPARSE: status = attn_mra_create(p); break;
        case SKIT_ATTENTION_LOWRANK: status = attn_lowrank_create(p); break;
        case SKIT_ATTENTION_TOPK: status = attn_topk_create(p); break;
        case SKIT_ATTENTION_NYSTROM: status = attn_nystrom_create(p); break;
        case SKIT_ATTENTION_LINFORMER: status = attn_linformer_create(p); break;
        case SKIT_ATTENTION_PERFORMER: status = attn_performer_create(p); break;
        case SKIT_ATTENTION_WINDOW: status = attn_window_create(p); break;
        case SKIT_ATTENTION_BIGBIRD: status = attn_bigbird_create(p); break;
        default: status = SKIT_ERROR(SKIT_EINVAL, "method unknown"); break;
        }
    }
    if (status != SKIT_OK) {
        destroy_instance(p);
        return status;
    }
    *plan = p;
    return SKIT_OK;
}

int skit_attention_plan_execute(const skit_attention_plan *plan, const double *q, size_t ldq,
                                const double *k, size_t ldk, const double *v, size_t ldv,
                                const unsigned char *mask, double *y, size_t ldy,
                                skit_attention_stats *stats)
{
    SKIT_REQUIRE_PTR(plan);
    if (plan->checks_inputs) {
        SKIT_TRY(attn_check_qk_shape(plan->n, plan->d, q, ldq, k, ldk));
        SKIT_TRY(attn_check_v_shape(plan->n, plan->dv, v, ldv));
    } else {
        SKIT_TRY(attn_check_qk(plan->n, plan->d, q, ldq, k, ldk));
        SKIT_TRY(attn_check_v(plan->n, plan->dv, v, ldv));
    }
    SKIT_TRY(attn_check_out(plan->n, plan->dv, y, ldy, "y"));
    if (!plan->pool)
        return SKIT_ERROR(SKIT_EINVAL, "plan is not one skit_attention_plan_create made");
    skit_attention_plan *inst;
    SKIT_TRY(take_instance(plan, &inst));
    skit_attention_stats done = {0};
    int status = inst->execute(inst, q, ldq, k, ldk, v, ldv, mask, y, ldy, &done);
    if (status == SKIT_OK && stats) *stats = done;
    give_instance(plan, inst);
    return status;
}

/* ---- methods that are one sweep ------------------------------------------ */

typedef struct sweep_impl {
    size_t t;
    int parallel;
    long band;
    size_t *row_ptr; /* NULL = dense */
    uint32_t *cols;
    double *work, *m, *den, *w;
    double entries;
} sweep_impl;

static int sweep_execute(const skit_attention_plan *plan, const double *q, size_t ldq,
                         const double *k, size_t ldk, const double *v, size_t ldv,
                         const unsigned char *mask, double *y, size_t ldy,
                         skit_attention_stats *stats)
{
    const sweep_impl *im = plan->impl;
    size_t n = plan->n;
    if (mask)
        for (size_t i = 0; i < n; i++) im->w[i] = mask[i] ? 1.0 : 0.0;
    attn_sweep s = {.n = n, .d = plan->d, .dv = plan->dv, .t = im->t, .q = q, .k = k, .v = v,
                    .ldq = ldq, .ldk = ldk, .ldv = ldv, .scale = plan->scale,
                    .bias = plan->o.shift_bias, .key_weight = mask ? im->w : NULL,
                    .band = im->band, .causal = plan->o.causal, .row_ptr = im->row_ptr, .cols = im->cols, .num = y,
                    .ldnum = ldy, .m = im->m, .den = im->den, .lsum = NULL, .work = im->work,
                    .threads = plan->threads, .parallel = im->parallel};
    attn_sweep_run(&s);
    attn_normalise(n, plan->dv, y, ldy, im->den, mask, y, ldy);
    stats->entries = im->entries;
    stats->work_fraction = im->entries / ((double)n * (double)n);
    stats->levels = 0;
    return SKIT_OK;
}

/* Shared setup: scratch for tile side t. */
static int sweep_setup(skit_attention_plan *p, size_t t, int parallel, sweep_impl **out)
{
    if (!isfinite(p->o.shift_bias))
        return SKIT_ERROR(SKIT_EDOM, "shift_bias = %g out of range: need a finite value",
                          p->o.shift_bias);
    sweep_impl *im = attn_plan_alloc(p, 1, sizeof *im);
    if (!im) return p->alloc_status;
    memset(im, 0, sizeof *im);
    im->t = t;
    im->parallel = parallel;
    im->band = -1;
    size_t per;
    SKIT_TRY(attn_sweep_work_count(p->n, t, p->d, p->dv, p->threads, &per));
    im->work = attn_plan_alloc(p, per, sizeof(double));
    if (!im->work) return p->alloc_status;
    im->m = attn_plan_alloc(p, 3 * p->n, sizeof(double));
    if (!im->m) return p->alloc_status;
    im->den = im->m + p->n;
    im->w = im->den + p->n;
    p->impl = im;
    p->execute = sweep_execute;
    *out = im;
    return SKIT_OK;
}

int attn_exact_create(skit_attention_plan *p)
{
    int parallel;
    size_t t = attn_dense_tile(p->d, p->dv, &parallel);
    sweep_impl *im;
    SKIT_TRY(sweep_setup(p, t, parallel, &im));
    double n = (double)p->n;
    im->entries = p->o.causal ? n * (n + 1) / 2 : n * n;
    return SKIT_OK;
}

int attn_window_create(skit_attention_plan *p)
{
    size_t n = p->n, w = p->o.window;
    if (w >= n)
        w = n - 1; /* a window covering everything is exact attention */
    if ((double)w > (double)INT32_MAX)
        return SKIT_ERROR(SKIT_EDOM, "window = %zu out of range", p->o.window);
    int parallel;
    size_t t = attn_dense_tile(p->d, p->dv, &parallel);
    sweep_impl *im;
    SKIT_TRY(sweep_setup(p, t, parallel, &im));
    im->band = (long)w;
    double entries = 0;
    for (size_t i = 0; i < n; i++) {
        size_t lo = i > w ? i - w : 0, hi = p->o.causal ? i : SKIT_MIN(n - 1, i + w);
        entries += (double)(hi - lo + 1);
    }
    im->entries = entries;
    return SKIT_OK;
}

/* BigBird's block pattern: for query block x, global rows (x < g) see every
 * block; the others see the window blocks x-w..x+w, the g global blocks and
 * r random blocks drawn (seeded per row) from the rest. */
int attn_bigbird_create(skit_attention_plan *p)
{
    size_t n = p->n, b = p->o.block;
    if (b == 0 || b > n)
        return SKIT_ERROR(SKIT_EDOM, "block = %zu out of range: need 1 <= block <= n (= %zu)", b, n);
    size_t nb = (n + b - 1) / b;
    size_t w = p->o.window, g = p->o.global_blocks, r = p->o.random_blocks;
    if (w > nb) w = nb;
    if (g > nb)
        return SKIT_ERROR(SKIT_EDOM, "global_blocks = %zu out of range: need <= n/block (= %zu)", g,
                          nb);
    if (r > nb)
        return SKIT_ERROR(SKIT_EDOM, "random_blocks = %zu out of range: need <= n/block (= %zu)",
                          r, nb);
    int parallel = (double)b * (double)b * (double)SKIT_MAX(p->d, p->dv) <= ATTN_GEMM_SERIAL_LIMIT;
    sweep_impl *im;
    SKIT_TRY(sweep_setup(p, b, parallel, &im));
    /* global rows hold nb blocks, the others at most 2w+1+g+r */
    size_t per_row = SKIT_MIN(nb, 2 * w + 1 + g + r), cap, cap_global;
    if (skit_size_mul(nb - g, per_row, &cap) || skit_size_mul(g, nb, &cap_global) ||
        skit_size_add(cap, cap_global, &cap))
        return SKIT_ERROR(SKIT_EOVERFLOW, "BigBird pattern size overflows size_t");
    im->row_ptr = attn_plan_alloc(p, nb + 1, sizeof(size_t));
    im->cols = attn_plan_alloc(p, cap ? cap : 1, sizeof(uint32_t));
    unsigned char *in = attn_plan_alloc(p, nb, 1);
    uint32_t *pool = attn_plan_alloc(p, nb, sizeof(uint32_t));
    if (!im->row_ptr || !im->cols || !in || !pool) return p->alloc_status;
    size_t pos = 0;
    double entries = 0;
    for (size_t x = 0; x < nb; x++) {
        im->row_ptr[x] = pos;
        memset(in, 0, nb);
        if (x < g) {
            memset(in, 1, nb);
        } else {
            size_t lo = x > w ? x - w : 0, hi = SKIT_MIN(nb - 1, x + w);
            for (size_t y = lo; y <= hi; y++) in[y] = 1;
            for (size_t y = 0; y < g; y++) in[y] = 1;
            size_t avail = 0;
            for (size_t y = 0; y < nb; y++)
                if (!in[y]) pool[avail++] = (uint32_t)y;
            skit_rng rng;
            skit_rng_seed_stream(&rng, p->o.seed, (uint64_t)x);
            for (size_t t = 0; t < r && avail > 0; t++) {
                size_t pick = (size_t)skit_rng_below(&rng, avail);
                in[pool[pick]] = 1;
                pool[pick] = pool[--avail];
            }
        }
        size_t rows_x = SKIT_MIN(b, n - x * b);
        for (size_t y = 0; y < nb; y++)
            if (in[y]) {
                im->cols[pos++] = (uint32_t)y;
                /* causal: the sweep skips later blocks, the diagonal's upper half */
                if (!p->o.causal || y < x)
                    entries += (double)rows_x * (double)SKIT_MIN(b, n - y * b);
                else if (y == x)
                    entries += (double)rows_x * (double)(rows_x + 1) / 2;
            }
    }
    im->row_ptr[nb] = pos;
    im->entries = entries;
    return SKIT_OK;
}
