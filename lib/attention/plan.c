/* plan.c — the attention plan interface (options, create, execute, destroy)
 * and the methods that are one tiled sweep: exact, sliding window, BigBird. */
#include "config.h"

#include <math.h>
#include <pthread.h>
#include <string.h>

#include "attention/attention_internal.h"
#include "core/transpose.h"

static const char *const method_names[SKIT_ATTENTION_METHOD_COUNT] = {
    "exact", "mra2", "mra2s", "lowrank", "topk", "nystrom", "linformer", "performer", "window",
    "bigbird", "linformer-fit"};

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
                      "nystrom, linformer, performer, window, bigbird, linformer-fit",
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
    /* the fitted form's oracle is only as good as P: segment means give
     * the keys' local averages, Gaussian E mixes all keys at random */
    o->linformer_projection =
        method == SKIT_ATTENTION_LINFORMER_FIT ? SKIT_LINFORMER_POOLING : SKIT_LINFORMER_GAUSSIAN;
    o->performer_orthogonal = 1;
    o->device = SKIT_DEVICE_CPU;
    o->precision = SKIT_PRECISION_F64;
    o->layout = SKIT_LAYOUT_COLUMNS;
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
    if (plan->adopt) plan->adopt(inst, plan);
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
        o->method == SKIT_ATTENTION_LINFORMER_FIT || o->method == SKIT_ATTENTION_PERFORMER)
        return SKIT_ERROR(SKIT_EUNSUPPORTED,
                          "causal %s is not available: its landmarks, projections or feature sums "
                          "mix every token into every row (use exact, mra2, mra2s, lowrank, topk, "
                          "window or bigbird)",
                          skit_attention_method_name(o->method));
    if (o->device != SKIT_DEVICE_CPU)
        return SKIT_ERROR(SKIT_EUNSUPPORTED, "causal attention runs on the CPU only (device = cpu)");
    return SKIT_OK;
}

/* Float32 plans: exact attention and MRA-2 / -2-s on the CPU (the MRA
 * plan checks its two levels); the scale must round to a finite float. */
static int check_precision_option(const skit_attention_options *o)
{
    if (o->precision != SKIT_PRECISION_F64 && o->precision != SKIT_PRECISION_F32)
        return SKIT_ERROR(SKIT_EINVAL, "precision = %d unknown: need SKIT_PRECISION_F64 or SKIT_PRECISION_F32",
                          (int)o->precision);
    if (o->precision == SKIT_PRECISION_F64) return SKIT_OK;
    if (o->method != SKIT_ATTENTION_EXACT && o->method != SKIT_ATTENTION_MRA2 &&
        o->method != SKIT_ATTENTION_MRA2_SPARSE)
        return SKIT_ERROR(SKIT_EUNSUPPORTED,
                          "precision = float32: method %s computes in float64 only (float32 plans: exact, mra2, "
                          "mra2s)",
                          skit_attention_method_name(o->method));
    if (o->device != SKIT_DEVICE_CPU)
        return SKIT_ERROR(SKIT_EUNSUPPORTED, "precision = float32: on the cpu only (got device = %s)",
                          skit_device_name(o->device));
    if (o->scale > 3.4e38)
        return SKIT_ERROR(SKIT_EDOM, "scale = %g out of range: need scale <= 3.4e38 for a float32 plan", o->scale);
    if (!isfinite(o->shift_bias))
        return SKIT_ERROR(SKIT_EDOM, "shift_bias = %g out of range: need a finite value", o->shift_bias);
    return SKIT_OK;
}

/* ---- the rows layout -------------------------------------------------------
 * Every method's passes read q, k, v by columns (the sweep's packed tiles,
 * block means, MRA's gathered squares, the n x n factorisations), so a rows
 * plan transposes a call's inputs into scratch it holds, runs the column
 * code on them with ld = n and transposes the outputs back: O(n (d + dv))
 * moves beside O(n^2 d) or O(n budget s) arithmetic, and the column
 * layout's results bit for bit. The scratch holds one column copy of each
 * array a call can pass, in this order. */
enum { ROWS_Q, ROWS_K, ROWS_V, ROWS_Y, ROWS_DQ, ROWS_DK, ROWS_DV, ROWS_REGIONS };

static size_t rows_width(const skit_attention_plan *p, int region)
{
    return region == ROWS_V || region == ROWS_Y || region == ROWS_DV ? p->dv : p->d;
}

static size_t element_size(const skit_attention_plan *p)
{
    return p->o.precision == SKIT_PRECISION_F32 ? sizeof(float) : sizeof(double);
}

static void *rows_region(const skit_attention_plan *p, int region)
{
    size_t before = 0;
    for (int r = 0; r < region; r++) before += rows_width(p, r);
    return (char *)p->rows + before * p->n * element_size(p);
}

/* The scratch of a rows plan: q, k, v, y (dy) and, with a backward, dq,
 * dk, dv (sizes fit size_t: the method's own scratch is larger). */
static int rows_scratch(skit_attention_plan *p)
{
    if (p->o.layout != SKIT_LAYOUT_ROWS) return SKIT_OK;
    const int regions = p->backward ? ROWS_REGIONS : ROWS_DQ;
    size_t width = 0, count;
    for (int r = 0; r < regions; r++) width += rows_width(p, r);
    if (skit_size_mul(width, p->n, &count))
        return SKIT_ERROR(SKIT_EOVERFLOW, "attention plan size overflows size_t");
    p->rows = attn_plan_alloc(p, count, element_size(p));
    return p->rows ? SKIT_OK : p->alloc_status;
}

/* The region's column-major copy (ld n) of src, row-major n x width with
 * row stride ld; NULL for NULL. */
static const void *gather_columns(const skit_attention_plan *p, int region, const void *src, size_t ld)
{
    if (!src) return NULL;
    void *dst = rows_region(p, region);
    if (p->o.precision == SKIT_PRECISION_F32)
        skit_transpose_ld_f32(src, p->n, rows_width(p, region), ld, dst, p->n);
    else
        skit_transpose_ld(src, p->n, rows_width(p, region), ld, dst, p->n);
    return dst;
}

/* dst (row-major, row stride ld; nothing for NULL) = the region's columns */
static void scatter_rows(const skit_attention_plan *p, int region, void *dst, size_t ld)
{
    if (!dst) return;
    const void *src = rows_region(p, region);
    if (p->o.precision == SKIT_PRECISION_F32)
        skit_transpose_ld_f32(src, rows_width(p, region), p->n, p->n, dst, ld);
    else
        skit_transpose_ld(src, rows_width(p, region), p->n, p->n, dst, ld);
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
    SKIT_TRY(check_precision_option(o));
    if (o->layout != SKIT_LAYOUT_COLUMNS && o->layout != SKIT_LAYOUT_ROWS)
        return SKIT_ERROR(SKIT_EINVAL, "layout = %d unknown: need SKIT_LAYOUT_COLUMNS (0) or SKIT_LAYOUT_ROWS (1)",
                          (int)o->layout);
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
    } else if (o->precision == SKIT_PRECISION_F32) {
        status = o->method == SKIT_ATTENTION_EXACT ? attn_exact_create_f32(p) : attn_mra_create_f32(p);
    } else {
        switch (o->method) {
        case SKIT_ATTENTION_EXACT: status = attn_exact_create(p); break;
        case SKIT_ATTENTION_MRA2:
        case SKIT_ATTENTION_MRA2_SPARSE: status = attn_mra_create(p); break;
        case SKIT_ATTENTION_LOWRANK: status = attn_lowrank_create(p); break;
        case SKIT_ATTENTION_TOPK: status = attn_topk_create(p); break;
        case SKIT_ATTENTION_NYSTROM: status = attn_nystrom_create(p); break;
        case SKIT_ATTENTION_LINFORMER:
        case SKIT_ATTENTION_LINFORMER_FIT: status = attn_linformer_create(p); break;
        case SKIT_ATTENTION_PERFORMER: status = attn_performer_create(p); break;
        case SKIT_ATTENTION_WINDOW: status = attn_window_create(p); break;
        case SKIT_ATTENTION_BIGBIRD: status = attn_bigbird_create(p); break;
        default: status = SKIT_ERROR(SKIT_EINVAL, "method unknown"); break;
        }
    }
    if (status == SKIT_OK) status = rows_scratch(p);
    if (status != SKIT_OK) {
        destroy_instance(p);
        return status;
    }
    *plan = p;
    return SKIT_OK;
}

/* ---- the calls: checks, then the plan lends itself or a copy ------------- */

/* SKIT_EINVAL naming the form of `op` that takes the plan's precision */
static int check_precision(const skit_attention_plan *plan, skit_precision precision, const char *op)
{
    if (plan->o.precision == precision) return SKIT_OK;
    const int f32 = plan->o.precision == SKIT_PRECISION_F32;
    return SKIT_ERROR(SKIT_EINVAL, "plan computes in %s: use skit_attention_plan_%s%s", f32 ? "float32" : "float64",
                      op, f32 ? "_f32" : "");
}

static int check_finite(skit_precision precision, const void *a, size_t rows, size_t cols, size_t ld,
                        const char *what)
{
    return precision == SKIT_PRECISION_F32 ? attn_check_finite_f32(a, rows, cols, ld, what)
                                           : skit_check_finite_matrix(a, rows, cols, ld, what);
}

/* q, k (and v unless NULL is allowed: v_cols 0) of the plan's shape;
 * their NaN/Inf scan when scan (the shape checks never read the arrays,
 * so they serve both precisions) */
static int check_inputs(const skit_attention_plan *plan, skit_precision precision, const void *q, size_t ldq,
                        const void *k, size_t ldk, const void *v, size_t ldv, int with_v, int scan)
{
    const size_t n = plan->n, d = plan->d, dv = plan->dv;
    SKIT_TRY(attn_check_qk_shape(n, d, q, ldq, k, ldk));
    if (with_v) SKIT_TRY(attn_check_v_shape(n, dv, v, ldv));
    if (!scan) return SKIT_OK;
    SKIT_TRY(check_finite(precision, q, n, d, ldq, "Q"));
    SKIT_TRY(check_finite(precision, k, n, d, ldk, "K"));
    return with_v ? check_finite(precision, v, n, dv, ldv, "V") : SKIT_OK;
}

/* A row-major n x width array `name` (rows layout): ld >= width (the
 * dimension `dim`), NULL only where optional. */
static int check_rows(const void *a, size_t n, size_t width, size_t ld, const char *name, const char *dim,
                      int optional)
{
    if (!a) return optional ? SKIT_OK : SKIT_ERROR(SKIT_EINVAL, "%s must not be NULL", name);
    if (ld < width)
        return SKIT_ERROR(SKIT_ESHAPE, "ld%s = %zu too small: need ld%s >= %s (= %zu) in the rows layout", name,
                          ld, name, dim, width);
    size_t extent;
    if (skit_size_mul(n, ld, &extent))
        return SKIT_ERROR(SKIT_EOVERFLOW, "%s extent (n x ld%s) overflows size_t", name, name);
    return SKIT_OK;
}

/* check_inputs' shape checks for a rows plan (the scans come later, on
 * the column copies) */
static int check_rows_inputs(const skit_attention_plan *plan, const void *q, size_t ldq, const void *k, size_t ldk,
                             const void *v, size_t ldv, int with_v)
{
    const size_t n = plan->n, d = plan->d;
    SKIT_TRY(check_rows(q, n, d, ldq, "q", "d", 0));
    SKIT_TRY(check_rows(k, n, d, ldk, "k", "d", 0));
    return with_v ? check_rows(v, n, plan->dv, ldv, "v", "dv", 0) : SKIT_OK;
}

/* One call on the plan or an idle copy: execute (y), backward (grads) or
 * selection (refined), in the plan's precision. scan: the NaN/Inf scans
 * of q, k, v (where given) and dy (a backward) are still owed (rows
 * plans make them on their column copies). */
typedef struct plan_call {
    const void *q, *k, *v;
    size_t ldq, ldk, ldv;
    const unsigned char *mask;
    void *y;
    size_t ldy;
    skit_attention_stats *stats;
    const attn_backward_call *grads;
    unsigned char *refined;
    int fit; /* skit_attention_plan_fit: q, k and mask only */
    int scan;
} plan_call;

/* The method's code on column arrays. */
static int dispatch(skit_attention_plan *inst, const plan_call *c, skit_attention_stats *done)
{
    if (c->grads && inst->select && !c->grads->refined) { /* MRA-2: the squares of an execute on q, k */
        attn_backward_call g = *c->grads;
        int status = inst->select(inst, g.q, g.ldq, g.k, g.ldk, NULL, inst->refined);
        g.refined = inst->refined;
        return status == SKIT_OK ? inst->backward(inst, &g) : status;
    }
    if (c->grads) return inst->backward(inst, c->grads);
    if (c->refined) return inst->select(inst, c->q, c->ldq, c->k, c->ldk, c->mask, c->refined);
    if (c->fit) return inst->fit(inst, c->q, c->ldq, c->k, c->ldk, c->mask);
    if (inst->o.precision == SKIT_PRECISION_F32)
        return inst->execute_f32(inst, c->q, c->ldq, c->k, c->ldk, c->v, c->ldv, c->mask, c->y, c->ldy, done);
    return inst->execute(inst, c->q, c->ldq, c->k, c->ldk, c->v, c->ldv, c->mask, c->y, c->ldy, done);
}

/* The NaN/Inf scans of a call's column arrays (ld n), in the column
 * front's order. */
static int scan_columns(const skit_attention_plan *p, const plan_call *c)
{
    const attn_backward_call *g = c->grads;
    const skit_precision precision = p->o.precision;
    const size_t n = p->n;
    SKIT_TRY(check_finite(precision, g ? g->q : c->q, n, p->d, n, "Q"));
    SKIT_TRY(check_finite(precision, g ? g->k : c->k, n, p->d, n, "K"));
    const void *v = g ? g->v : c->v;
    if (v) SKIT_TRY(check_finite(precision, v, n, p->dv, n, "V"));
    return g ? check_finite(precision, g->dy, n, p->dv, n, "dY") : SKIT_OK;
}

/* A rows plan's call: the inputs into the instance's column copies, the
 * method's code on them, the outputs back into the caller's rows. */
static int dispatch_rows(skit_attention_plan *inst, const plan_call *c, skit_attention_stats *done)
{
    const size_t n = inst->n;
    plan_call cc = *c;
    attn_backward_call g;
    const attn_backward_call *rows = c->grads;
    if (rows) {
        g = *rows;
        g.q = gather_columns(inst, ROWS_Q, rows->q, rows->ldq);
        g.k = gather_columns(inst, ROWS_K, rows->k, rows->ldk);
        g.v = gather_columns(inst, ROWS_V, rows->v, rows->ldv);
        g.dy = gather_columns(inst, ROWS_Y, rows->dy, rows->lddy);
        g.dq = rows->dq ? rows_region(inst, ROWS_DQ) : NULL;
        g.dk = rows->dk ? rows_region(inst, ROWS_DK) : NULL;
        g.dv = rows->dv ? rows_region(inst, ROWS_DV) : NULL;
        g.ldq = g.ldk = g.ldv = g.lddy = g.lddq = g.lddk = g.lddv = n;
        cc.grads = &g;
    } else {
        cc.q = gather_columns(inst, ROWS_Q, c->q, c->ldq);
        cc.k = gather_columns(inst, ROWS_K, c->k, c->ldk);
        cc.v = gather_columns(inst, ROWS_V, c->v, c->ldv);
        cc.y = c->y ? rows_region(inst, ROWS_Y) : NULL;
        cc.ldq = cc.ldk = cc.ldv = cc.ldy = n;
    }
    SKIT_TRY(c->scan ? scan_columns(inst, &cc) : SKIT_OK);
    SKIT_TRY(dispatch(inst, &cc, done));
    if (rows) {
        scatter_rows(inst, ROWS_DQ, rows->dq, rows->lddq);
        scatter_rows(inst, ROWS_DK, rows->dk, rows->lddk);
        scatter_rows(inst, ROWS_DV, rows->dv, rows->lddv);
    } else {
        scatter_rows(inst, ROWS_Y, c->y, c->ldy);
    }
    return SKIT_OK;
}

static int lend(const skit_attention_plan *plan, const plan_call *c)
{
    if (!plan->pool) return SKIT_ERROR(SKIT_EINVAL, "plan is not one skit_attention_plan_create made");
    skit_attention_plan *inst;
    SKIT_TRY(take_instance(plan, &inst));
    skit_attention_stats done = {0};
    int status = plan->o.layout == SKIT_LAYOUT_ROWS ? dispatch_rows(inst, c, &done) : dispatch(inst, c, &done);
    if (status == SKIT_OK && c->stats) *c->stats = done;
    give_instance(plan, inst);
    return status;
}

static int execute(const skit_attention_plan *plan, skit_precision precision, const plan_call *c)
{
    SKIT_REQUIRE_PTR(plan);
    SKIT_TRY(check_precision(plan, precision, "execute"));
    if (plan->o.layout == SKIT_LAYOUT_ROWS) {
        SKIT_TRY(check_rows_inputs(plan, c->q, c->ldq, c->k, c->ldk, c->v, c->ldv, 1));
        SKIT_TRY(check_rows(c->y, plan->n, plan->dv, c->ldy, "y", "dv", 0));
        plan_call rows = *c;
        rows.scan = !plan->checks_inputs;
        return lend(plan, &rows);
    }
    SKIT_TRY(check_inputs(plan, precision, c->q, c->ldq, c->k, c->ldk, c->v, c->ldv, 1, !plan->checks_inputs));
    SKIT_TRY(attn_check_out(plan->n, plan->dv, c->y, c->ldy, "y"));
    return lend(plan, c);
}

int skit_attention_plan_execute(const skit_attention_plan *plan, const double *q, size_t ldq,
                                const double *k, size_t ldk, const double *v, size_t ldv,
                                const unsigned char *mask, double *y, size_t ldy,
                                skit_attention_stats *stats)
{
    const plan_call c = {.q = q, .k = k, .v = v, .ldq = ldq, .ldk = ldk, .ldv = ldv, .mask = mask, .y = y,
                         .ldy = ldy, .stats = stats};
    return execute(plan, SKIT_PRECISION_F64, &c);
}

int skit_attention_plan_execute_f32(const skit_attention_plan *plan, const float *q, size_t ldq, const float *k,
                                    size_t ldk, const float *v, size_t ldv, const unsigned char *mask, float *y,
                                    size_t ldy, skit_attention_stats *stats)
{
    const plan_call c = {.q = q, .k = k, .v = v, .ldq = ldq, .ldk = ldk, .ldv = ldv, .mask = mask, .y = y,
                         .ldy = ldy, .stats = stats};
    return execute(plan, SKIT_PRECISION_F32, &c);
}

/* A rows plan's backward arrays: shapes only (the scans are owed). */
static int check_rows_backward(const skit_attention_plan *plan, const attn_backward_call *g)
{
    const size_t n = plan->n, d = plan->d, dv = plan->dv;
    SKIT_TRY(check_rows_inputs(plan, g->q, g->ldq, g->k, g->ldk, g->v, g->ldv, 1));
    SKIT_TRY(check_rows(g->dy, n, dv, g->lddy, "dy", "dv", 0));
    SKIT_TRY(check_rows(g->dq, n, d, g->lddq, "dq", "d", 1));
    SKIT_TRY(check_rows(g->dk, n, d, g->lddk, "dk", "d", 1));
    return check_rows(g->dv, n, dv, g->lddv, "dv", "dv", 1);
}

static int backward(const skit_attention_plan *plan, skit_precision precision, const attn_backward_call *g)
{
    SKIT_REQUIRE_PTR(plan);
    SKIT_TRY(check_precision(plan, precision, "backward"));
    if (!plan->backward) {
        if (plan->no_backward) return SKIT_ERROR(SKIT_EUNSUPPORTED, "%s", plan->no_backward);
        if (plan->o.device != SKIT_DEVICE_CPU)
            return SKIT_ERROR(SKIT_EUNSUPPORTED, "device = %s: the backward runs on the cpu",
                              skit_device_name(plan->o.device));
        return SKIT_ERROR(SKIT_EUNSUPPORTED, "method = %s: the backward runs exact and mra2 plans",
                          skit_attention_method_name(plan->o.method));
    }
    if (g->mask && plan->select)
        return SKIT_ERROR(SKIT_EUNSUPPORTED, "mask: the MRA-2 backward takes no padding mask (pass NULL)");
    if (plan->o.layout == SKIT_LAYOUT_ROWS) {
        SKIT_TRY(check_rows_backward(plan, g));
        const plan_call c = {.grads = g, .scan = 1};
        return lend(plan, &c);
    }
    const size_t n = plan->n;
    SKIT_TRY(check_inputs(plan, precision, g->q, g->ldq, g->k, g->ldk, g->v, g->ldv, 1, 1));
    SKIT_REQUIRE_PTR(g->dy);
    if (g->lddy < n) return SKIT_ERROR(SKIT_ESHAPE, "lddy = %zu too small: need lddy >= n (= %zu)", g->lddy, n);
    SKIT_TRY(check_finite(precision, g->dy, n, plan->dv, g->lddy, "dY"));
    if ((g->dq && g->lddq < n) || (g->dk && g->lddk < n) || (g->dv && g->lddv < n))
        return SKIT_ERROR(SKIT_ESHAPE, "lddq, lddk, lddv = %zu, %zu, %zu: need each >= n (= %zu) where given",
                          g->lddq, g->lddk, g->lddv, n);
    const plan_call c = {.grads = g};
    return lend(plan, &c);
}

int skit_attention_plan_backward(const skit_attention_plan *plan, const double *q, size_t ldq, const double *k,
                                 size_t ldk, const double *v, size_t ldv, const unsigned char *mask,
                                 const unsigned char *refined, const double *dy, size_t lddy, double *dq, size_t lddq,
                                 double *dk, size_t lddk, double *dv, size_t lddv)
{
    const attn_backward_call g = {q, k, v, dy, ldq, ldk, ldv, lddy, mask, refined, dq, dk, dv, lddq, lddk, lddv};
    return backward(plan, SKIT_PRECISION_F64, &g);
}

int skit_attention_plan_backward_f32(const skit_attention_plan *plan, const float *q, size_t ldq, const float *k,
                                     size_t ldk, const float *v, size_t ldv, const unsigned char *mask,
                                     const unsigned char *refined, const float *dy, size_t lddy, float *dq,
                                     size_t lddq, float *dk, size_t lddk, float *dv, size_t lddv)
{
    const attn_backward_call g = {q, k, v, dy, ldq, ldk, ldv, lddy, mask, refined, dq, dk, dv, lddq, lddk, lddv};
    return backward(plan, SKIT_PRECISION_F32, &g);
}

static int select_squares(const skit_attention_plan *plan, skit_precision precision, const plan_call *c)
{
    SKIT_REQUIRE_PTR(plan);
    SKIT_TRY(check_precision(plan, precision, "select"));
    if (!plan->select)
        return SKIT_ERROR(SKIT_EUNSUPPORTED, "method = %s (device = %s): the selection is an MRA plan's on the cpu",
                          skit_attention_method_name(plan->o.method), skit_device_name(plan->o.device));
    SKIT_REQUIRE_PTR(c->refined);
    if (plan->o.layout == SKIT_LAYOUT_ROWS) {
        SKIT_TRY(check_rows_inputs(plan, c->q, c->ldq, c->k, c->ldk, NULL, 0, 0));
        plan_call rows = *c;
        rows.scan = 1;
        return lend(plan, &rows);
    }
    SKIT_TRY(check_inputs(plan, precision, c->q, c->ldq, c->k, c->ldk, NULL, 0, 0, 1));
    return lend(plan, c);
}

int skit_attention_plan_select(const skit_attention_plan *plan, const double *q, size_t ldq, const double *k,
                               size_t ldk, const unsigned char *mask, unsigned char *refined)
{
    const plan_call c = {.q = q, .k = k, .ldq = ldq, .ldk = ldk, .mask = mask, .refined = refined};
    return select_squares(plan, SKIT_PRECISION_F64, &c);
}

int skit_attention_plan_select_f32(const skit_attention_plan *plan, const float *q, size_t ldq, const float *k,
                                   size_t ldk, const unsigned char *mask, unsigned char *refined)
{
    const plan_call c = {.q = q, .k = k, .ldq = ldq, .ldk = ldk, .mask = mask, .refined = refined};
    return select_squares(plan, SKIT_PRECISION_F32, &c);
}

int skit_attention_plan_fit(skit_attention_plan *plan, const double *q, size_t ldq, const double *k,
                            size_t ldk, const unsigned char *mask)
{
    SKIT_REQUIRE_PTR(plan);
    if (!plan->fit)
        return SKIT_ERROR(SKIT_EUNSUPPORTED, "method = %s: only linformer-fit plans are fitted",
                          skit_attention_method_name(plan->o.method));
    const plan_call c = {.q = q, .k = k, .ldq = ldq, .ldk = ldk, .mask = mask, .fit = 1, .scan = 1};
    if (plan->o.layout == SKIT_LAYOUT_ROWS) {
        SKIT_TRY(check_rows_inputs(plan, q, ldq, k, ldk, NULL, 0, 0));
        return lend(plan, &c);
    }
    SKIT_TRY(check_inputs(plan, SKIT_PRECISION_F64, q, ldq, k, ldk, NULL, 0, 0, 1));
    plan_call columns = c;
    columns.scan = 0;
    return lend(plan, &columns);
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

/* Shared setup: scratch for tile side t, and at least `least` doubles of
 * it (exact attention's backward runs on the sweep's scratch). */
static int sweep_setup(skit_attention_plan *p, size_t t, int parallel, size_t least, sweep_impl **out)
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
    im->work = attn_plan_alloc(p, SKIT_MAX(per, least), sizeof(double));
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

static int exact_backward(const skit_attention_plan *plan, const attn_backward_call *c)
{
    const sweep_impl *im = plan->impl;
    const skit_attention_mask mask = {c->mask, plan->o.causal};
    return skit_attention_exact_backward_masked(plan->n, plan->d, plan->dv, c->q, c->ldq, c->k, c->ldk, c->v, c->ldv,
                                                plan->scale, &mask, c->dy, c->lddy, c->dq, c->lddq, c->dk, c->lddk,
                                                c->dv, c->lddv, im->work);
}

int attn_exact_create(skit_attention_plan *p)
{
    int parallel;
    size_t t = attn_dense_tile(p->d, p->dv, &parallel);
    sweep_impl *im;
    SKIT_TRY(sweep_setup(p, t, parallel, skit_attention_exact_backward_workspace(p->n), &im));
    double n = (double)p->n;
    im->entries = p->o.causal ? n * (n + 1) / 2 : n * n;
    p->backward = exact_backward;
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
    SKIT_TRY(sweep_setup(p, t, parallel, 0, &im));
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
    SKIT_TRY(sweep_setup(p, b, parallel, 0, &im));
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

SKIT_DEFINE_STRUCT_SIZE(skit_attention_struct_size,
                        SKIT_STRUCT(skit_attention_options),
                        SKIT_STRUCT(skit_attention_mask),
                        SKIT_STRUCT(skit_attention_stats),
                        SKIT_STRUCT(skit_mra_lemma41),
                        SKIT_STRUCT(skit_mra_prop45),
                        SKIT_STRUCT(skit_attention_synthetic))
