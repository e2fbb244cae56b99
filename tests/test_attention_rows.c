/* test_attention_rows.c — attention plans in the rows layout against the
 * columns layout: every method's execute, the backward and selection of
 * exact and MRA-2, both precisions, masked and causal where supported, odd
 * and prime n, row strides beyond the width with NaN gaps. A rows plan runs
 * the column code on transposed copies (plan.c), so the two layouts must
 * agree bit for bit; gaps must stay NaN and outputs (NaN before the call)
 * be fully written. Also the rows form's errors and scratch. */
#include "config.h"

#include <string.h>

#include "check_util.h"

/* An n x w matrix in one layout: column-major with ld n, or row-major with
 * row stride ld > w and NaN in the gaps; count = the doubles allocated. */
typedef struct block {
    double *a;
    size_t ld, count;
} block;

static block column_block(skit_rng *rng, size_t n, size_t w)
{
    block b = {tu_random(rng, n * w), n, n * w};
    return b;
}

static block rows_of(const block *col, size_t n, size_t w, size_t ld)
{
    block b = {tu_alloc(n * ld), ld, n * ld};
    for (size_t i = 0; i < n; i++)
        for (size_t c = 0; c < w; c++) b.a[i * ld + c] = col->a[c * n + i];
    return b;
}

/* an output: all NaN, so that unwritten elements show */
static block out_block(size_t n, size_t w, size_t ld, int rows)
{
    block b = {tu_alloc(rows ? n * ld : n * w), rows ? ld : n, rows ? n * ld : n * w};
    return b;
}

static void free_block(block *b)
{
    skit_free(b->a);
    b->a = NULL;
}

/* float copies for the _f32 forms (NaN stays NaN); NULL for an absent block */
static float *f32_of(const block *b)
{
    if (!b || !b->a) return NULL;
    float *f = tu_alloc_f32(b->count);
    for (size_t i = 0; i < b->count; i++) f[i] = (float)b->a[i];
    return f;
}

static void f32_back(float *f, block *b)
{
    if (!f) return;
    for (size_t i = 0; i < b->count; i++) b->a[i] = f[i];
    skit_free(f);
}

/* rows (n x w, stride ld) equal to cols (ld n) bit for bit, gaps NaN */
static void expect_same(const block *rows, const block *cols, size_t n, size_t w, const char *what)
{
    for (size_t i = 0; i < n; i++) {
        for (size_t c = 0; c < w; c++) {
            double r = rows->a[i * rows->ld + c], k = cols->a[c * n + i];
            ck_assert_msg(!isnan(k) && memcmp(&r, &k, sizeof r) == 0, "%s(%zu,%zu): rows %.17g, columns %.17g",
                          what, i, c, r, k);
        }
        for (size_t c = w; c < rows->ld; c++)
            ck_assert_msg(isnan(rows->a[i * rows->ld + c]), "%s: row %zu's gap written", what, i);
    }
}

/* ---- the three calls in either precision ------------------------------------ */

typedef struct qkv {
    block q, k, v;
} qkv;

static int call_execute(const skit_attention_plan *p, int f32, const qkv *in, const unsigned char *mask,
                        block *y, skit_attention_stats *stats)
{
    if (!f32)
        return skit_attention_plan_execute(p, in->q.a, in->q.ld, in->k.a, in->k.ld, in->v.a, in->v.ld, mask, y->a,
                                           y->ld, stats);
    float *q = f32_of(&in->q), *k = f32_of(&in->k), *v = f32_of(&in->v), *yf = f32_of(y);
    int status = skit_attention_plan_execute_f32(p, q, in->q.ld, k, in->k.ld, v, in->v.ld, mask, yf, y->ld, stats);
    f32_back(yf, y);
    skit_free(q);
    skit_free(k);
    skit_free(v);
    return status;
}

typedef struct grads {
    block dy, dq, dk, dv; /* dk.a NULL: not asked for */
} grads;

static int call_backward(const skit_attention_plan *p, int f32, const qkv *in, const unsigned char *mask,
                         const unsigned char *refined, grads *g)
{
    if (!f32)
        return skit_attention_plan_backward(p, in->q.a, in->q.ld, in->k.a, in->k.ld, in->v.a, in->v.ld, mask, refined,
                                            g->dy.a, g->dy.ld, g->dq.a, g->dq.ld, g->dk.a, g->dk.ld, g->dv.a,
                                            g->dv.ld);
    float *q = f32_of(&in->q), *k = f32_of(&in->k), *v = f32_of(&in->v), *dy = f32_of(&g->dy);
    float *dq = f32_of(&g->dq), *dk = f32_of(&g->dk), *dv = f32_of(&g->dv);
    int status = skit_attention_plan_backward_f32(p, q, in->q.ld, k, in->k.ld, v, in->v.ld, mask, refined, dy,
                                                  g->dy.ld, dq, g->dq.ld, dk, g->dk.ld, dv, g->dv.ld);
    f32_back(dq, &g->dq);
    f32_back(dk, &g->dk);
    f32_back(dv, &g->dv);
    skit_free(q);
    skit_free(k);
    skit_free(v);
    skit_free(dy);
    return status;
}

static int call_select(const skit_attention_plan *p, int f32, const qkv *in, const unsigned char *mask,
                       unsigned char *refined)
{
    if (!f32) return skit_attention_plan_select(p, in->q.a, in->q.ld, in->k.a, in->k.ld, mask, refined);
    float *q = f32_of(&in->q), *k = f32_of(&in->k);
    int status = skit_attention_plan_select_f32(p, q, in->q.ld, k, in->k.ld, mask, refined);
    skit_free(q);
    skit_free(k);
    return status;
}

/* ---- one problem in both layouts -------------------------------------------- */

typedef struct problem {
    size_t n, d, dv, pad;
    qkv cols, rows;
    unsigned char *mask; /* NULL or n bytes, some 0 */
} problem;

static problem make_problem(skit_rng *rng, size_t n, size_t d, size_t dv, size_t pad, int masked)
{
    problem pr = {.n = n, .d = d, .dv = dv, .pad = pad};
    pr.cols.q = column_block(rng, n, d);
    pr.cols.k = column_block(rng, n, d);
    pr.cols.v = column_block(rng, n, dv);
    pr.rows.q = rows_of(&pr.cols.q, n, d, d + pad);
    pr.rows.k = rows_of(&pr.cols.k, n, d, d + pad);
    pr.rows.v = rows_of(&pr.cols.v, n, dv, dv + pad);
    if (masked) {
        pr.mask = malloc(n);
        ck_assert_ptr_nonnull(pr.mask);
        for (size_t i = 0; i < n; i++) pr.mask[i] = i % 5 != 3;
    }
    return pr;
}

static void free_problem(problem *pr)
{
    block *all[] = {&pr->cols.q, &pr->cols.k, &pr->cols.v, &pr->rows.q, &pr->rows.k, &pr->rows.v};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) free_block(all[i]);
    free(pr->mask);
}

/* The plans of o in both layouts; 0 (and no plans) when the options are
 * refused, with the same status for both layouts. */
static int make_plans(const problem *pr, const skit_attention_options *o, skit_attention_plan **cols,
                      skit_attention_plan **rows)
{
    skit_attention_options oc = *o, orw = *o;
    oc.layout = SKIT_LAYOUT_COLUMNS;
    orw.layout = SKIT_LAYOUT_ROWS;
    int sc = skit_attention_plan_create(cols, pr->n, pr->d, pr->dv, &oc);
    int sr = skit_attention_plan_create(rows, pr->n, pr->d, pr->dv, &orw);
    ck_assert_msg(sc == sr, "%s n %zu: create %d in columns, %d in rows", skit_attention_method_name(o->method),
                  pr->n, sc, sr);
    return sc == SKIT_OK;
}

/* linformer-fit's fit in both layouts: the same status (the fitted F
 * then shows in the outputs compared) */
static void fit_both(const problem *pr, skit_attention_plan *pc, skit_attention_plan *pw)
{
    const qkv *c = &pr->cols, *r = &pr->rows;
    int stc = skit_attention_plan_fit(pc, c->q.a, c->q.ld, c->k.a, c->k.ld, pr->mask);
    int str = skit_attention_plan_fit(pw, r->q.a, r->q.ld, r->k.a, r->k.ld, pr->mask);
    ck_assert_msg(stc == SKIT_OK && str == SKIT_OK, "linformer-fit: fit %d in columns, %d in rows", stc, str);
}

/* execute in both layouts: the same status, stats and (bit for bit) y */
static int compare_execute(const problem *pr, const skit_attention_options *o)
{
    skit_attention_plan *pc, *pw;
    if (!make_plans(pr, o, &pc, &pw)) return 0;
    if (o->method == SKIT_ATTENTION_LINFORMER_FIT) fit_both(pr, pc, pw);
    const int f32 = o->precision == SKIT_PRECISION_F32;
    block yc = out_block(pr->n, pr->dv, 0, 0), yr = out_block(pr->n, pr->dv, pr->dv + pr->pad, 1);
    skit_attention_stats sc, sr;
    int stc = call_execute(pc, f32, &pr->cols, pr->mask, &yc, &sc);
    int str = call_execute(pw, f32, &pr->rows, pr->mask, &yr, &sr);
    ck_assert_msg(stc == str, "%s: execute %d in columns, %d in rows", skit_attention_method_name(o->method), stc,
                  str);
    if (stc == SKIT_OK) {
        expect_same(&yr, &yc, pr->n, pr->dv, skit_attention_method_name(o->method));
        ck_assert(sc.entries == sr.entries && sc.levels == sr.levels);
    }
    free_block(&yc);
    free_block(&yr);
    skit_attention_plan_destroy(pc);
    skit_attention_plan_destroy(pw);
    return stc == SKIT_OK;
}

static void method_options(skit_attention_options *o, skit_attention_method method, size_t n)
{
    skit_attention_options_init(o, method);
    o->seed = 7;
    switch (method) {
    case SKIT_ATTENTION_MRA2:
    case SKIT_ATTENTION_MRA2_SPARSE:
        o->block = n % 5 == 0 ? 5 : 7;
        o->blocks_per_row[0] = 3;
        break;
    case SKIT_ATTENTION_TOPK: o->rank = 4; break;
    case SKIT_ATTENTION_LOWRANK:
    case SKIT_ATTENTION_NYSTROM: o->rank = 5; break;
    case SKIT_ATTENTION_LINFORMER:
    case SKIT_ATTENTION_LINFORMER_FIT: o->rank = 6; break;
    case SKIT_ATTENTION_PERFORMER: o->rank = 8; break;
    case SKIT_ATTENTION_WINDOW: o->window = 3; break;
    case SKIT_ATTENTION_BIGBIRD:
        o->block = 4;
        o->random_blocks = 1;
        break;
    default: break;
    }
}

static int is_mra(skit_attention_method method)
{
    return method == SKIT_ATTENTION_MRA2 || method == SKIT_ATTENTION_MRA2_SPARSE;
}

/* n: 13 (prime) and 45 (odd) for every method but MRA, which needs a
 * multiple of its block: 45 (block 5) and 49 (block 7). */
static const size_t plain_sizes[] = {13, 45}, mra_sizes[] = {45, 49};

START_TEST(test_execute_every_method)
{
    skit_rng rng;
    skit_rng_seed(&rng, tu_seed());
    for (int m = 0; m < SKIT_ATTENTION_METHOD_COUNT; m++) {
        const skit_attention_method method = (skit_attention_method)m;
        size_t ran = 0;
        for (size_t s = 0; s < 2; s++) {
            const size_t n = is_mra(method) ? mra_sizes[s] : plain_sizes[s];
            for (int variant = 0; variant < 4; variant++) { /* plain, masked, causal, both */
                problem pr = make_problem(&rng, n, 3, 5, 2 + s, variant & 1);
                skit_attention_options o;
                method_options(&o, method, n);
                o.causal = variant >> 1;
                ran += (size_t)compare_execute(&pr, &o);
                free_problem(&pr);
            }
        }
        ck_assert_msg(ran >= 4, "%s: only %zu of 8 cases ran", skit_attention_method_name(method), ran);
    }
}
END_TEST

START_TEST(test_execute_float32)
{
    skit_rng rng;
    skit_rng_seed(&rng, tu_seed());
    const skit_attention_method methods[] = {SKIT_ATTENTION_EXACT, SKIT_ATTENTION_MRA2, SKIT_ATTENTION_MRA2_SPARSE};
    for (size_t a = 0; a < 3; a++)
        for (size_t s = 0; s < 2; s++) {
            const size_t n = is_mra(methods[a]) ? mra_sizes[s] : plain_sizes[s];
            for (int variant = 0; variant < 4; variant++) {
                problem pr = make_problem(&rng, n, 4, 3, 1 + 2 * s, variant & 1);
                skit_attention_options o;
                method_options(&o, methods[a], n);
                o.precision = SKIT_PRECISION_F32;
                o.causal = variant >> 1;
                ck_assert_msg(compare_execute(&pr, &o), "%s float32 n %zu variant %d did not run",
                              skit_attention_method_name(methods[a]), n, variant);
                free_problem(&pr);
            }
        }
}
END_TEST

/* gradients in both layouts, refined NULL (the plan selects) or given */
static void compare_backward(skit_rng *rng, const problem *pr, const skit_attention_options *o,
                             const unsigned char *refined, int skip_dk)
{
    skit_attention_plan *pc, *pw;
    ck_assert(make_plans(pr, o, &pc, &pw));
    const int f32 = o->precision == SKIT_PRECISION_F32;
    const size_t n = pr->n, d = pr->d, dv = pr->dv, pad = pr->pad;
    grads gc, gr;
    gc.dy = column_block(rng, n, dv);
    gr.dy = rows_of(&gc.dy, n, dv, dv + pad);
    gc.dq = out_block(n, d, 0, 0);
    gr.dq = out_block(n, d, d + pad, 1);
    gc.dk = skip_dk ? (block){0} : out_block(n, d, 0, 0);
    gr.dk = skip_dk ? (block){0} : out_block(n, d, d + pad, 1);
    gc.dv = out_block(n, dv, 0, 0);
    gr.dv = out_block(n, dv, dv + pad, 1);
    const unsigned char *mask = is_mra(o->method) ? NULL : pr->mask;
    TU_EXPECT_OK(call_backward(pc, f32, &pr->cols, mask, refined, &gc));
    TU_EXPECT_OK(call_backward(pw, f32, &pr->rows, mask, refined, &gr));
    expect_same(&gr.dq, &gc.dq, n, d, "dq");
    if (!skip_dk) expect_same(&gr.dk, &gc.dk, n, d, "dk");
    expect_same(&gr.dv, &gc.dv, n, dv, "dv");
    block *all[] = {&gc.dy, &gr.dy, &gc.dq, &gr.dq, &gc.dk, &gr.dk, &gc.dv, &gr.dv};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) free_block(all[i]);
    skit_attention_plan_destroy(pc);
    skit_attention_plan_destroy(pw);
}

/* the squares in both layouts: the same bytes; returned (the columns') */
static unsigned char *compare_select(const problem *pr, const skit_attention_options *o)
{
    skit_attention_plan *pc, *pw;
    ck_assert(make_plans(pr, o, &pc, &pw));
    const size_t squares = (pr->n / o->block) * (pr->n / o->block);
    unsigned char *rc = malloc(squares), *rr = malloc(squares);
    ck_assert(rc && rr);
    memset(rc, 0xAA, squares);
    memset(rr, 0x55, squares);
    const int f32 = o->precision == SKIT_PRECISION_F32;
    TU_EXPECT_OK(call_select(pc, f32, &pr->cols, pr->mask, rc));
    TU_EXPECT_OK(call_select(pw, f32, &pr->rows, pr->mask, rr));
    ck_assert_msg(memcmp(rc, rr, squares) == 0, "%s n %zu: rows select other squares",
                  skit_attention_method_name(o->method), pr->n);
    free(rr);
    skit_attention_plan_destroy(pc);
    skit_attention_plan_destroy(pw);
    return rc;
}

START_TEST(test_backward_and_select)
{
    skit_rng rng;
    skit_rng_seed(&rng, tu_seed());
    for (int f32 = 0; f32 < 2; f32++)
        for (size_t s = 0; s < 2; s++)
            for (int causal = 0; causal < 2; causal++) {
                skit_attention_options o;
                /* exact: the padding mask too; dk left out in one case */
                problem pe = make_problem(&rng, plain_sizes[s], 3, 4, 1 + s, 1);
                method_options(&o, SKIT_ATTENTION_EXACT, pe.n);
                o.precision = f32 ? SKIT_PRECISION_F32 : SKIT_PRECISION_F64;
                o.causal = causal;
                compare_backward(&rng, &pe, &o, NULL, causal);
                free_problem(&pe);
                /* mra2 (no mask): squares selected by the plan, or given */
                problem pm = make_problem(&rng, mra_sizes[s], 3, 4, 2, 0);
                method_options(&o, SKIT_ATTENTION_MRA2, pm.n);
                o.precision = f32 ? SKIT_PRECISION_F32 : SKIT_PRECISION_F64;
                o.causal = causal;
                unsigned char *refined = compare_select(&pm, &o);
                compare_backward(&rng, &pm, &o, NULL, 0);
                compare_backward(&rng, &pm, &o, refined, 1);
                free(refined);
                /* mra2s selects with a padding mask */
                problem ps = make_problem(&rng, mra_sizes[s], 3, 4, 3, 1);
                method_options(&o, SKIT_ATTENTION_MRA2_SPARSE, ps.n);
                o.precision = f32 ? SKIT_PRECISION_F32 : SKIT_PRECISION_F64;
                free(compare_select(&ps, &o));
                free_problem(&ps);
                free_problem(&pm);
            }
}
END_TEST

/* a rows plan of o holds `bytes` more than the columns plan */
static void expect_rows_scratch(const problem *pr, const skit_attention_options *o, size_t bytes)
{
    skit_attention_plan *pc, *pw;
    ck_assert(make_plans(pr, o, &pc, &pw));
    ck_assert_uint_eq(skit_attention_plan_bytes(pw) - skit_attention_plan_bytes(pc), bytes);
    skit_attention_plan_destroy(pc);
    skit_attention_plan_destroy(pw);
}

START_TEST(test_rows_errors_and_scratch)
{
    skit_rng rng;
    skit_rng_seed(&rng, tu_seed());
    const size_t n = 13, d = 3, dv = 5;
    problem pr = make_problem(&rng, n, d, dv, 2, 0);
    skit_attention_options o;
    skit_attention_options_init(&o, SKIT_ATTENTION_EXACT);
    ck_assert_int_eq(o.layout, SKIT_LAYOUT_COLUMNS);
    skit_attention_plan *bad = NULL, *pc, *pw;
    o.layout = (skit_layout)2;
    TU_EXPECT_STATUS(skit_attention_plan_create(&bad, n, d, dv, &o), SKIT_EINVAL);
    ck_assert(strstr(skit_last_error(), "layout") != NULL);
    ck_assert_ptr_null(bad);
    /* the scratch: one column copy of q, k, v, dy, dq, dk, dv, made at create */
    expect_rows_scratch(&pr, &o, n * (4 * d + 3 * dv) * sizeof(double));
    ck_assert(make_plans(&pr, &o, &pc, &pw));
    const qkv *r = &pr.rows;
    block y = out_block(n, dv, dv, 1);
    /* ld is the row stride: >= the width, not n */
    TU_EXPECT_STATUS(skit_attention_plan_execute(pw, r->q.a, d - 1, r->k.a, r->k.ld, r->v.a, r->v.ld, NULL, y.a, dv,
                                                 NULL), SKIT_ESHAPE);
    ck_assert(strstr(skit_last_error(), "ldq") != NULL && strstr(skit_last_error(), "rows") != NULL);
    TU_EXPECT_STATUS(skit_attention_plan_execute(pw, r->q.a, r->q.ld, r->k.a, r->k.ld, r->v.a, r->v.ld, NULL, y.a,
                                                 dv - 1, NULL), SKIT_ESHAPE);
    TU_EXPECT_STATUS(skit_attention_plan_execute(pw, r->q.a, r->q.ld, r->k.a, r->k.ld, NULL, r->v.ld, NULL, y.a, dv,
                                                 NULL), SKIT_EINVAL);
    TU_EXPECT_OK(skit_attention_plan_execute(pw, r->q.a, r->q.ld, r->k.a, r->k.ld, r->v.a, r->v.ld, NULL, y.a, dv,
                                             NULL));
    /* the columns plan refuses the same strides (they are < n) */
    TU_EXPECT_STATUS(skit_attention_plan_execute(pc, r->q.a, r->q.ld, r->k.a, r->k.ld, r->v.a, r->v.ld, NULL, y.a, dv,
                                                 NULL), SKIT_ESHAPE);
    /* NaN in an input's row, named at its (token, channel) */
    r->k.a[4 * r->k.ld + 1] = NAN;
    TU_EXPECT_STATUS(skit_attention_plan_execute(pw, r->q.a, r->q.ld, r->k.a, r->k.ld, r->v.a, r->v.ld, NULL, y.a, dv,
                                                 NULL), SKIT_ENONFINITE);
    ck_assert_msg(strstr(skit_last_error(), "K(4,1)") != NULL, "%s", skit_last_error());
    r->k.a[4 * r->k.ld + 1] = 0.5;
    block dy = out_block(n, dv, dv, 1), dq = out_block(n, d, d, 1);
    for (size_t i = 0; i < dy.count; i++) dy.a[i] = 1.0;
    TU_EXPECT_STATUS(skit_attention_plan_backward(pw, r->q.a, r->q.ld, r->k.a, r->k.ld, r->v.a, r->v.ld, NULL, NULL,
                                                  dy.a, dv, dq.a, d - 1, NULL, 0, NULL, 0), SKIT_ESHAPE);
    dy.a[2 * dv + 3] = INFINITY;
    TU_EXPECT_STATUS(skit_attention_plan_backward(pw, r->q.a, r->q.ld, r->k.a, r->k.ld, r->v.a, r->v.ld, NULL, NULL,
                                                  dy.a, dv, dq.a, d, NULL, 0, NULL, 0), SKIT_ENONFINITE);
    ck_assert_msg(strstr(skit_last_error(), "dY(2,3)") != NULL, "%s", skit_last_error());
    free_block(&y);
    free_block(&dy);
    free_block(&dq);
    skit_attention_plan_destroy(pc);
    skit_attention_plan_destroy(pw);
    /* a method without a backward holds q, k, v, y only; float32 in floats */
    skit_attention_options_init(&o, SKIT_ATTENTION_NYSTROM);
    o.rank = 4;
    expect_rows_scratch(&pr, &o, n * (2 * d + 2 * dv) * sizeof(double));
    skit_attention_options_init(&o, SKIT_ATTENTION_EXACT);
    o.precision = SKIT_PRECISION_F32;
    expect_rows_scratch(&pr, &o, n * (4 * d + 3 * dv) * sizeof(float));
    free_problem(&pr);
}
END_TEST

static Suite *suite_attention_rows(void)
{
    Suite *s = suite_create("attention_rows");
    TCase *t = tcase_create("rows");
    tcase_set_timeout(t, 600);
    tcase_add_test(t, test_execute_every_method);
    tcase_add_test(t, test_execute_float32);
    tcase_add_test(t, test_backward_and_select);
    tcase_add_test(t, test_rows_errors_and_scratch);
    suite_add_tcase(s, t);
    return s;
}

int main(void) { return tu_main(suite_attention_rows()); }
