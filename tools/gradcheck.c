/* gradcheck.c — the checks of gradcheck.h: one set-up per operator (its
 * groups, forward and backward), one finite-difference loop for all. */
#include "config.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/fdiff.h"
#include "gradcheck.h"

#define GC_MAX(a, b) ((a) > (b) ? (a) : (b))
#define GC_MIN(a, b) ((a) < (b) ? (a) : (b))
#define GC_TRY(expr)                     \
    do {                                 \
        int gc_status_ = (expr);         \
        if (gc_status_ != SKIT_OK) return gc_status_; \
    } while (0)

const char *const gradcheck_ops[] = {"toeplitz", "mlp",     "decay",     "tno", "fd",
                                     "ski-tno",  "ski-causal", "attention", "mra2", NULL};
const char *const gradcheck_ops_f32[] = {"toeplitz", "tno", "fd", "ski-tno", "ski-causal", "attention", "mra2",
                                         NULL};

void gradcheck_options_default(gradcheck_options *o)
{
    memset(o, 0, sizeof *o);
    o->n = 64;
    o->d = 4;
    o->batch = 2;
    o->seed = 1;
    o->activation = SKIT_ACTIVATION_RELU;
    o->norm = SKIT_NORM_RMS;
    o->rpe_width = 16;
    o->rpe_layers = 2;
    o->decay = 0.9;
    o->samples = 12;
    o->blocks = 16;
    o->tolerance = 1e-6;
}

/* ---- a problem: groups of values with their gradients -------------------- */

typedef struct gc_group {
    char name[32];
    double *values, *grad;
    size_t count;
    gradcheck_layout layout;
    int gathers; /* 1: only gathers groups checked on their own ("params") */
} gc_group;

typedef struct gc_problem gc_problem;
struct gc_problem {
    const gradcheck_options *o;
    skit_rng rng;
    size_t ny;
    double *y, *dy;
    gc_group g[GRADCHECK_MAX_GROUPS];
    size_t ng;
    int kinks; /* 1: a ReLU MLP inside, whose kinks need the longer ladder */
    int (*forward)(gc_problem *pb, double *y);
    int (*backward)(gc_problem *pb);
    void (*destroy)(gc_problem *pb); /* the state's resources; NULL: none */
    void *state;
    void *owned[16]; /* freed at the end */
    size_t nowned;
};

static double *gc_alloc(gc_problem *pb, size_t count)
{
    if (pb->nowned == 16) return NULL;
    double *p = skit_malloc(count ? count : 1, sizeof(double));
    if (p) pb->owned[pb->nowned++] = p;
    return p;
}

typedef int (*gc_forward)(gc_problem *pb, double *y);
typedef int (*gc_backward)(gc_problem *pb);

/* the op's state (bytes, zeroed; freed by gradcheck_run) and functions */
static void *gc_state(gc_problem *pb, size_t bytes, gc_forward forward, gc_backward backward, size_t ny)
{
    pb->state = calloc(1, bytes ? bytes : 1);
    pb->forward = forward;
    pb->backward = backward;
    pb->ny = ny;
    return pb->state;
}

/* a group over values[0..count) with its gradient slice */
static void gc_add_group(gc_problem *pb, const char *name, double *values, double *grad, size_t count)
{
    if (pb->ng == GRADCHECK_MAX_GROUPS) return;
    gc_group *g = &pb->g[pb->ng++];
    snprintf(g->name, sizeof g->name, "%s", name);
    g->values = values;
    g->grad = grad;
    g->count = count;
    g->layout = (gradcheck_layout){count, 1, count}; /* one value per row until told */
}

/* the last group added has `rows` rows, row r's column c at r rs + c cs */
static void gc_rows(gc_problem *pb, size_t rows, size_t rs, size_t cs)
{
    if (pb->ng) pb->g[pb->ng - 1].layout = (gradcheck_layout){rows, rs, cs};
}

/* a random normal group of count values */
static double *gc_random_group(gc_problem *pb, const char *name, size_t count, double scale)
{
    double *v = gc_alloc(pb, count), *gr = gc_alloc(pb, count);
    if (!v || !gr) return NULL;
    skit_rng_fill_normal(&pb->rng, v, count);
    for (size_t i = 0; i < count; i++) v[i] *= scale;
    gc_add_group(pb, name, v, gr, count);
    return v;
}

size_t gradcheck_mlp_group_count(size_t layers) { return 2 * (layers + 2); }

void gradcheck_mlp_group(size_t g, size_t in, size_t w, size_t layers, size_t out, char *name, size_t size,
                         const char *prefix, size_t *first, size_t *count)
{
    size_t off = 0, l = g / 2;
    for (size_t k = 0; k < l; k++) {
        size_t fi = k == 0 ? in : w, fo = k == layers + 1 ? out : w;
        off += fo * (fi + 1);
    }
    size_t fi = l == 0 ? in : w, fo = l == layers + 1 ? out : w;
    snprintf(name, size, "%s.%c%zu", prefix, g % 2 ? 'b' : 'W', l);
    *first = g % 2 ? off + fo * fi : off;
    *count = g % 2 ? fo : fo * fi;
}

/* The groups of an MLP's parameter vector: W<l> and b<l> per Linear layer. */
static void gc_mlp_groups(gc_problem *pb, const char *prefix, size_t in, size_t w, size_t layers, size_t out,
                          double *params, double *grad)
{
    for (size_t g = 0; g < gradcheck_mlp_group_count(layers); g++) {
        char name[32];
        size_t first, count;
        gradcheck_mlp_group(g, in, w, layers, out, name, sizeof name, prefix, &first, &count);
        gc_add_group(pb, name, params + first, grad + first, count);
        size_t l = g / 2, out_rows = l == layers + 1 ? out : w;
        if (g % 2 == 0) gc_rows(pb, out_rows, count / out_rows, 1); /* W: out x in, row-major */
    }
}

/* ---- Toeplitz matvec, per channel ------------------------------------------ */

typedef struct gc_toeplitz {
    skit_toeplitz_plan *plan;
    double *x, *coeffs;
} gc_toeplitz;

static int toeplitz_forward(gc_problem *pb, double *y)
{
    gc_toeplitz *s = pb->state;
    size_t n = pb->o->n;
    int status = skit_toeplitz_plan_set_coeffs(s->plan, s->coeffs);
    if (status == SKIT_OK) status = skit_toeplitz_plan_execute(s->plan, s->x, n, y, n, NULL);
    return status;
}

static int toeplitz_backward(gc_problem *pb)
{
    gc_toeplitz *s = pb->state;
    size_t n = pb->o->n;
    return skit_toeplitz_plan_backward(s->plan, s->x, n, pb->dy, n, pb->g[0].grad, n, pb->g[1].grad, NULL);
}

static void toeplitz_destroy(gc_problem *pb)
{
    gc_toeplitz *s = pb->state;
    skit_toeplitz_plan_destroy(s->plan);
}

static int setup_toeplitz(gc_problem *pb)
{
    const gradcheck_options *o = pb->o;
    gc_toeplitz *s = gc_state(pb, sizeof *s, toeplitz_forward, toeplitz_backward, o->n * o->d);
    if (!s) return SKIT_ENOMEM;
    pb->destroy = toeplitz_destroy;
    s->x = gc_random_group(pb, "x", o->n * o->d, 1.0);
    gc_rows(pb, o->n, 1, o->n); /* n x d, a channel per column */
    s->coeffs = gc_random_group(pb, "coeffs", o->d * (2 * o->n - 1), 1.0 / sqrt((double)o->n));
    gc_rows(pb, 2 * o->n - 1, 1, 2 * o->n - 1); /* a row per lag */
    if (!s->x || !s->coeffs) return SKIT_ENOMEM;
    skit_toeplitz_options opt;
    skit_toeplitz_options_default(&opt);
    opt.causality = o->causal ? SKIT_CAUSAL : SKIT_BIDIRECTIONAL;
    return skit_toeplitz_plan_create(&s->plan, o->n, o->n, o->d, &opt, s->coeffs);
}

/* ---- the MLP (in 2 -> out d at n inputs) ------------------------------------ */

#define GC_MLP_IN 2

typedef struct gc_mlp {
    skit_mlp *mlp;
    double *x, *params;
} gc_mlp;

static int mlp_forward(gc_problem *pb, double *y)
{
    gc_mlp *s = pb->state;
    int status = skit_mlp_set_parameters(s->mlp, s->params, skit_mlp_parameter_count(s->mlp));
    if (status == SKIT_OK) status = skit_mlp_eval(s->mlp, pb->o->n, s->x, y, NULL);
    return status;
}

static int mlp_backward(gc_problem *pb)
{
    gc_mlp *s = pb->state;
    return skit_mlp_backward(s->mlp, pb->o->n, s->x, pb->dy, NULL, pb->g[0].grad, pb->g[1].grad, NULL);
}

static void mlp_destroy(gc_problem *pb)
{
    gc_mlp *s = pb->state;
    skit_mlp_destroy(s->mlp);
}

static int setup_mlp(gc_problem *pb)
{
    const gradcheck_options *o = pb->o;
    gc_mlp *s = gc_state(pb, sizeof *s, mlp_forward, mlp_backward, o->n * o->d);
    if (!s) return SKIT_ENOMEM;
    pb->destroy = mlp_destroy;
    int status = skit_mlp_create(&s->mlp, GC_MLP_IN, o->rpe_width, o->rpe_layers, o->d, o->activation, o->norm,
                                 o->seed);
    if (status != SKIT_OK) return status;
    size_t count = skit_mlp_parameter_count(s->mlp);
    s->x = gc_random_group(pb, "x", o->n * GC_MLP_IN, 1.0);
    gc_rows(pb, o->n, GC_MLP_IN, 1);
    s->params = gc_alloc(pb, count);
    double *grad = gc_alloc(pb, count);
    if (!s->x || !s->params || !grad) return SKIT_ENOMEM;
    skit_mlp_get_parameters(s->mlp, s->params, count);
    /* the gradient is written whole; group 1 spans it, the layers follow */
    gc_add_group(pb, "params", s->params, grad, count);
    pb->g[pb->ng - 1].gathers = 1;
    pb->kinks = o->activation == SKIT_ACTIVATION_RELU;
    gc_mlp_groups(pb, "mlp", GC_MLP_IN, o->rpe_width, o->rpe_layers, o->d, s->params, grad);
    return SKIT_OK;
}

/* ---- the decay bias ------------------------------------------------------------ */

typedef struct gc_decay {
    size_t count;
    double *lags, *rpe, *lambda;
} gc_decay;

static int decay_forward(gc_problem *pb, double *y)
{
    gc_decay *s = pb->state;
    return skit_tno_decay_bias(s->count, s->lags, pb->o->d, *s->lambda, s->rpe, y);
}

static int decay_backward(gc_problem *pb)
{
    gc_decay *s = pb->state;
    return skit_tno_decay_bias_backward(s->count, s->lags, pb->o->d, *s->lambda, s->rpe, pb->dy, pb->g[0].grad,
                                        pb->g[1].grad);
}

static int setup_decay(gc_problem *pb)
{
    const gradcheck_options *o = pb->o;
    gc_decay *s = gc_state(pb, sizeof *s, decay_forward, decay_backward, 0);
    if (!s) return SKIT_ENOMEM;
    s->count = o->causal ? o->n : 2 * o->n - 1;
    pb->ny = s->count * o->d;
    s->lags = gc_alloc(pb, s->count);
    s->rpe = gc_random_group(pb, "rpe", s->count * o->d, 1.0);
    gc_rows(pb, s->count, o->d, 1); /* a row per lag */
    s->lambda = gc_random_group(pb, "lambda", 1, 0.0);
    if (!s->lags || !s->rpe || !s->lambda) return SKIT_ENOMEM;
    *s->lambda = o->decay;
    for (size_t j = 0; j < s->count; j++) s->lags[j] = o->causal ? (double)j : (double)j - (double)(o->n - 1);
    return SKIT_OK;
}

/* ---- the token mixers: TNO, FD-TNO --------------------------------------------- */

typedef struct gc_tno {
    skit_tno_plan *plan;
    skit_tno_options opt;
    double *x, *params, *lambda;
    double *gx, *gparams, *glambda;
    size_t count;
} gc_tno;

static int tno_plan(gc_tno *s, const gradcheck_options *o)
{
    skit_tno_plan_destroy(s->plan);
    s->plan = NULL;
    s->opt.decay = *s->lambda;
    return skit_tno_plan_create(&s->plan, o->n, o->d, o->batch, &s->opt, s->params, s->count);
}

static int tno_forward(gc_problem *pb, double *y)
{
    gc_tno *s = pb->state;
    int status = s->lambda && *s->lambda != s->opt.decay
                     ? tno_plan(s, pb->o)
                     : skit_tno_plan_set_parameters(s->plan, s->params, s->count);
    if (status == SKIT_OK) status = skit_tno_plan_execute(s->plan, s->x, y, NULL);
    return status;
}

static int tno_backward(gc_problem *pb)
{
    gc_tno *s = pb->state;
    return skit_tno_plan_backward(s->plan, s->x, pb->dy, s->gx, s->gparams, s->glambda, NULL);
}

static void tno_destroy(gc_problem *pb)
{
    gc_tno *s = pb->state;
    skit_tno_plan_destroy(s->plan);
}

void gradcheck_mixer_options(const gradcheck_options *o, skit_tno_kind kind, skit_tno_options *opt)
{
    skit_tno_options_default(opt, kind);
    opt->causality = o->causal ? SKIT_CAUSAL : SKIT_BIDIRECTIONAL;
    opt->rpe_width = o->rpe_width;
    opt->rpe_layers = o->rpe_layers;
    opt->activation = o->activation;
    opt->norm = o->norm;
    opt->decay = o->decay;
    opt->seed = o->seed;
    /* SKI: a small rank, band and knot count, so that every piece shows */
    opt->rank = o->n < 8 ? o->n : 8;
    opt->taps = 2 * o->n - 1 < 5 ? 2 * o->n - 1 : 5;
    opt->knots = 4;
}

static int setup_mixer(gc_problem *pb, skit_tno_kind kind, int force_causal)
{
    const gradcheck_options *o = pb->o;
    gc_tno *s = gc_state(pb, sizeof *s, tno_forward, tno_backward, o->batch * o->n * o->d);
    if (!s) return SKIT_ENOMEM;
    pb->destroy = tno_destroy;
    gradcheck_mixer_options(o, kind, &s->opt);
    if (force_causal) s->opt.causality = SKIT_CAUSAL;
    int status = skit_tno_options_parameter_count(&s->opt, o->d, &s->count);
    if (status != SKIT_OK) return status;
    s->x = gc_random_group(pb, "x", pb->ny, 1.0);
    gc_rows(pb, o->batch * o->n, o->d, 1); /* (batch, n, d): a row per token */
    s->params = gc_alloc(pb, s->count);
    s->gparams = gc_alloc(pb, s->count);
    if (!s->x || !s->params || !s->gparams) return SKIT_ENOMEM;
    s->gx = pb->g[0].grad;
    if (kind == SKIT_TNO_FFT) { /* the decay bias's lambda is learnable */
        if (!(s->lambda = gc_random_group(pb, "lambda", 1, 0.0))) return SKIT_ENOMEM;
        *s->lambda = o->decay;
        s->glambda = pb->g[1].grad;
    }
    if (kind == SKIT_TNO_SKI) { /* knot values d x 2K, then taps d x m */
        size_t nk = o->d * 2 * s->opt.knots;
        size_t taps = (s->count - nk) / o->d;
        gc_add_group(pb, "knots", s->params, s->gparams, nk);
        gc_rows(pb, 2 * s->opt.knots, 1, 2 * s->opt.knots); /* d x 2K: a row per knot */
        gc_add_group(pb, "taps", s->params + nk, s->gparams + nk, s->count - nk);
        gc_rows(pb, taps, 1, taps);
    } else {
        gc_add_group(pb, "params", s->params, s->gparams, s->count);
        pb->g[pb->ng - 1].gathers = 1;
        pb->kinks = o->activation == SKIT_ACTIVATION_RELU;
        size_t out = kind == SKIT_TNO_FD && s->opt.causality != SKIT_CAUSAL ? 2 * o->d : o->d;
        gc_mlp_groups(pb, "rpe", 1, o->rpe_width, o->rpe_layers, out, s->params, s->gparams);
    }
    if ((status = skit_tno_plan_create(&s->plan, o->n, o->d, o->batch, &s->opt, NULL, 0)) != SKIT_OK) return status;
    return skit_tno_plan_get_parameters(s->plan, s->params, s->count);
}

static int setup_tno(gc_problem *pb) { return setup_mixer(pb, SKIT_TNO_FFT, 0); }
static int setup_fd(gc_problem *pb) { return setup_mixer(pb, SKIT_TNO_FD, 0); }
static int setup_ski(gc_problem *pb) { return setup_mixer(pb, SKIT_TNO_SKI, 0); }
/* causal SKI-TNO whatever --causal says: Appendix B's running sums */
static int setup_ski_causal(gc_problem *pb) { return setup_mixer(pb, SKIT_TNO_SKI, 1); }

/* ---- exact attention --------------------------------------------------------- */

/* q, k, v: n x d each, a column per channel */
static int gc_qkv(gc_problem *pb)
{
    const char *names[3] = {"q", "k", "v"};
    for (int i = 0; i < 3; i++) {
        if (!gc_random_group(pb, names[i], pb->o->n * pb->o->d, 1.0)) return SKIT_ENOMEM;
        gc_rows(pb, pb->o->n, 1, pb->o->n);
    }
    return SKIT_OK;
}

/* --causal: the decoder's mask (query i sees keys j <= i) */
static int attention_forward(gc_problem *pb, double *y)
{
    size_t n = pb->o->n, d = pb->o->d;
    skit_attention_mask mask = {NULL, pb->o->causal};
    return skit_attention_exact_masked(n, d, d, pb->g[0].values, n, pb->g[1].values, n, pb->g[2].values, n,
                                       1.0 / sqrt((double)d), &mask, y, n);
}

static int attention_backward(gc_problem *pb)
{
    size_t n = pb->o->n, d = pb->o->d;
    skit_attention_mask mask = {NULL, pb->o->causal};
    return skit_attention_exact_backward_masked(n, d, d, pb->g[0].values, n, pb->g[1].values, n, pb->g[2].values,
                                                n, 1.0 / sqrt((double)d), &mask, pb->dy, n, pb->g[0].grad, n,
                                                pb->g[1].grad, n, pb->g[2].grad, n, NULL);
}

static int setup_attention(gc_problem *pb)
{
    const gradcheck_options *o = pb->o;
    if (!gc_state(pb, 0, attention_forward, attention_backward, o->n * o->d)) return SKIT_ENOMEM;
    return gc_qkv(pb);
}

/* ---- MRA-2 (block: the largest of 8, 4, 2 dividing n at least twice) ------------ */

int gradcheck_mra_shape(size_t n, size_t *block, size_t *per_row)
{
    *block = n % 8 == 0 && n >= 16 ? 8 : n % 4 == 0 && n >= 8 ? 4 : 2;
    if (n % *block || n < 2 * *block) return SKIT_ESHAPE;
    size_t rows = n / *block;
    *per_row = rows > 4 ? rows / 4 : 1; /* a quarter of the squares refined */
    return SKIT_OK;
}

typedef struct gc_mra {
    skit_attention_plan *plan;
    size_t block, per_row;
    double scale;
    unsigned char *refined;
} gc_mra;

static int mra_forward(gc_problem *pb, double *y)
{
    gc_mra *s = pb->state;
    size_t n = pb->o->n;
    return skit_attention_plan_execute(s->plan, pb->g[0].values, n, pb->g[1].values, n, pb->g[2].values, n, NULL, y,
                                       n, NULL);
}

static int mra_backward(gc_problem *pb)
{
    gc_mra *s = pb->state;
    size_t n = pb->o->n, d = pb->o->d;
    const double *q = pb->g[0].values, *k = pb->g[1].values, *v = pb->g[2].values;
    int causal = pb->o->causal;
    GC_TRY(skit_mra2_select(n, d, q, n, k, n, s->scale, s->block, s->per_row, SKIT_MRA_GLOBAL, causal, s->refined,
                            NULL));
    return (causal ? skit_mra2_backward_causal : skit_mra2_backward)(n, d, d, q, n, k, n, v, n, s->scale, s->block,
                                                                     s->refined, pb->dy, n, pb->g[0].grad, n,
                                                                     pb->g[1].grad, n, pb->g[2].grad, n, NULL);
}

static void mra_destroy(gc_problem *pb)
{
    gc_mra *s = pb->state;
    skit_attention_plan_destroy(s->plan);
    free(s->refined);
}

static int setup_mra(gc_problem *pb)
{
    const gradcheck_options *o = pb->o;
    gc_mra *s = gc_state(pb, sizeof *s, mra_forward, mra_backward, o->n * o->d);
    if (!s) return SKIT_ENOMEM;
    pb->destroy = mra_destroy;
    if (gradcheck_mra_shape(o->n, &s->block, &s->per_row) != SKIT_OK) return SKIT_ESHAPE; /* the CLI says why */
    size_t rows = o->n / s->block;
    s->scale = 1.0 / sqrt((double)o->d);
    if (!(s->refined = malloc(rows * rows))) return SKIT_ENOMEM;
    GC_TRY(gc_qkv(pb));
    skit_attention_options opt;
    skit_attention_options_init(&opt, SKIT_ATTENTION_MRA2);
    opt.scale = s->scale;
    opt.block = s->block;
    opt.blocks_per_row[0] = s->per_row;
    opt.selection = SKIT_MRA_GLOBAL;
    opt.causal = o->causal;
    pb->kinks = 1; /* the selection jumps where perturbed logits reorder: the longer ladder steps past */
    return skit_attention_plan_create(&s->plan, o->n, o->d, o->d, &opt);
}

/* ---- finite differences ------------------------------------------------------- */

/* L = <dy, f(p)>, and *size = ||dy|| ||f(p)||, what its rounding scales
 * with: the outputs' rounding is relative to their norm, and L, a sum of
 * terms of both signs, can be far smaller (at n = 2048 its rounding
 * reached 1000 eps |L|) */
static int loss(gc_problem *pb, double *L, double *size)
{
    GC_TRY(pb->forward(pb, pb->y));
    double s = 0, yy = 0, gg = 0;
    for (size_t i = 0; i < pb->ny; i++) {
        s += pb->dy[i] * pb->y[i];
        yy += pb->y[i] * pb->y[i];
        gg += pb->dy[i] * pb->dy[i];
    }
    *L = s;
    *size = sqrt(yy * gg);
    return SKIT_OK;
}

/* A direction confined to m coordinates of a group: v[k] along idx[k];
 * saved holds their values while they move. */
typedef struct gc_dir {
    size_t *idx;
    double *v, *saved;
    size_t m;
} gc_dir;

/* the coordinates moved by p + t v (t = 0 restores them exactly) */
static void move(gc_group *g, const gc_dir *dir, double t)
{
    for (size_t k = 0; k < dir->m; k++) g->values[dir->idx[k]] = dir->saved[k] + t * dir->v[k];
}

/* (L(p + h v) - L(p - h v)) / 2h; *noise: the rounding of that quotient,
 * eps (size+ + size-) / 2h */
static int central(gc_problem *pb, gc_group *g, const gc_dir *dir, double h, double *D, double *noise)
{
    double Lp = 0, Lm = 0, Sp = 0, Sm = 0;
    move(g, dir, h);
    int status = loss(pb, &Lp, &Sp);
    move(g, dir, -h);
    if (status == SKIT_OK) status = loss(pb, &Lm, &Sm);
    move(g, dir, 0);
    *D = (Lp - Lm) / (2 * h);
    *noise = DBL_EPSILON * (Sp + Sm) / (2 * h);
    return status;
}

/* The derivative from central differences at h_k = 1e-3 4^-k max(1, |p_i|)
 * (a direction: max(1, 1)), k = 0..5, picked by fdiff.c's rule; 0..11
 * through a ReLU, whose kinks lie densely among the many pre-activations
 * of a large operator: only steps of 1e-8 or so miss them. */
#define GC_STEPS FDIFF_MAX_STEPS

static int derivative(gc_problem *pb, gc_group *g, const gc_dir *dir, double *R, double *resolution)
{
    for (size_t k = 0; k < dir->m; k++) dir->saved[k] = g->values[dir->idx[k]];
    double h = 1e-3 * (dir->m == 1 ? GC_MAX(1.0, fabs(dir->saved[0])) : 1.0), D[GC_STEPS], noise[GC_STEPS];
    const int steps = pb->kinks ? GC_STEPS : GC_STEPS / 2;
    for (int k = 0; k < steps; k++, h /= 4) GC_TRY(central(pb, g, dir, h, &D[k], &noise[k]));
    fdiff_pick(steps, D, noise, R, resolution);
    return SKIT_OK;
}

/* What a check's error is relative to (gradcheck.h): the size <g, v>
 * should have, floored by the backward's own rounding (GC_ROUNDING of the
 * group's largest entry) and by GC_RESOLVED times what the difference
 * resolves, so that an error at that resolution reads 1e-7, below every
 * tolerance (train/check.c does the same; a saturated softmax gave a
 * gradient group of 1e-21 there). */
#define GC_RESOLVED 1e7
#define GC_ROUNDING 1e-5

typedef struct gc_tally {
    double gmax, err;
    size_t checks;
} gc_tally;

/* one check along dir: its error into the tally; aligned: dir follows the
 * gradient, so <g, v> is the size (a random v: at least its typical one) */
static int check_along(gc_problem *pb, gc_group *g, const gc_dir *dir, int aligned, gc_tally *t)
{
    double R, resolution, dot = 0, gg = 0, vv = 0, l1 = 0;
    GC_TRY(derivative(pb, g, dir, &R, &resolution));
    for (size_t k = 0; k < dir->m; k++) {
        double gi = g->grad[dir->idx[k]];
        dot += gi * dir->v[k];
        gg += gi * gi;
        vv += dir->v[k] * dir->v[k];
        l1 += fabs(dir->v[k]);
    }
    double size = aligned ? fabs(dot) : GC_MAX(fabs(dot), sqrt(gg * vv / (double)dir->m));
    size = GC_MAX(size, GC_MAX(GC_ROUNDING * t->gmax * l1, GC_MAX(GC_RESOLVED * resolution, 1e-300)));
    t->err = GC_MAX(t->err, fabs(dot - R) / size);
    t->checks++;
    return SKIT_OK;
}

static int check_coordinate(gc_problem *pb, gc_group *g, gc_dir *dir, size_t i, gc_tally *t)
{
    dir->m = 1;
    dir->idx[0] = i;
    dir->v[0] = 1.0;
    return check_along(pb, g, dir, 0, t);
}

/* dir over rows [r0, r1) of the group, every column */
static void block_coordinates(const gc_group *g, size_t r0, size_t r1, gc_dir *dir)
{
    const gradcheck_layout *L = &g->layout;
    size_t cols = g->count / L->rows;
    dir->m = 0;
    for (size_t r = r0; r < r1; r++)
        for (size_t c = 0; c < cols; c++) dir->idx[dir->m++] = r * L->row_stride + c * L->col_stride;
}

/* The rows' norms, floored at 1e-3 of the largest (0 for a zero row). */
static double row_norm(const gc_group *g, const gc_dir *dir, size_t r, size_t cols)
{
    double nn = 0;
    for (size_t c = 0; c < cols; c++) nn += g->grad[dir->idx[r * cols + c]] * g->grad[dir->idx[r * cols + c]];
    return sqrt(nn);
}

/* Along the gradient, row j scaled by m / s_j^2 (s_j its norm floored at
 * 1e-3 of the largest, m the smallest s_j): every row adds m to <g, v>,
 * so an error that scales one row by 1 + e changes it by e / rows however
 * small that row is beside the others, and no entry of v exceeds 1. 0 if
 * the run's gradient is zero. */
static int gradient_direction(const gc_group *g, size_t rows, gc_dir *dir)
{
    const size_t cols = dir->m / rows;
    double top = 0, m = INFINITY;
    for (size_t r = 0; r < rows; r++) top = GC_MAX(top, row_norm(g, dir, r, cols));
    if (top == 0) return 0;
    for (size_t r = 0; r < rows; r++) m = GC_MIN(m, GC_MAX(row_norm(g, dir, r, cols), 1e-3 * top));
    for (size_t r = 0; r < rows; r++) {
        double sj = GC_MAX(row_norm(g, dir, r, cols), 1e-3 * top);
        for (size_t c = 0; c < cols; c++) dir->v[r * cols + c] = g->grad[dir->idx[r * cols + c]] * m / (sj * sj);
    }
    return 1;
}

/* every run of rows along the gradient and a random direction (one check
 * for a run of a single value) */
static int check_blocks(gc_problem *pb, gc_group *g, gc_dir *dir, gc_tally *t)
{
    size_t rows = g->layout.rows, nb = GC_MIN(pb->o->blocks, rows);
    for (size_t b = 0; b < nb; b++) {
        size_t r0 = b * rows / nb, r1 = (b + 1) * rows / nb;
        block_coordinates(g, r0, r1, dir);
        if (dir->m == 1) {
            dir->v[0] = 1.0;
            GC_TRY(check_along(pb, g, dir, 0, t));
            continue;
        }
        if (gradient_direction(g, r1 - r0, dir)) GC_TRY(check_along(pb, g, dir, 1, t));
        skit_rng_fill_normal(&pb->rng, dir->v, dir->m);
        GC_TRY(check_along(pb, g, dir, 0, t));
    }
    return SKIT_OK;
}

/* samples coordinates at random and 2 random directions over the group */
static int check_random(gc_problem *pb, gc_group *g, gc_dir *dir, gc_tally *t)
{
    const gradcheck_options *o = pb->o;
    for (size_t k = 0; k < GC_MIN(g->count, o->samples); k++)
        GC_TRY(check_coordinate(pb, g, dir, g->count <= o->samples ? k : (size_t)skit_rng_below(&pb->rng, g->count), t));
    for (int d = 0; d < 2 && g->count > 1; d++) {
        dir->m = g->count;
        for (size_t i = 0; i < g->count; i++) dir->idx[i] = i;
        skit_rng_fill_normal(&pb->rng, dir->v, dir->m);
        GC_TRY(check_along(pb, g, dir, 0, t));
    }
    return SKIT_OK;
}

static int check_group_with(gc_problem *pb, gc_group *g, gc_dir *dir, gc_tally *t)
{
    if (pb->o->full) {
        for (size_t i = 0; i < g->count && !g->gathers; i++) GC_TRY(check_coordinate(pb, g, dir, i, t));
        return SKIT_OK;
    }
    /* one value per row and a block per row: every coordinate is checked */
    int every = g->layout.rows == g->count && pb->o->blocks >= g->count;
    if (!g->gathers) GC_TRY(check_blocks(pb, g, dir, t));
    return every && !g->gathers ? SKIT_OK : check_random(pb, g, dir, t);
}

static int check_group(gc_problem *pb, gc_group *g, gradcheck_group *out)
{
    gc_tally t = {0, 0, 0};
    int bad = 0;
    for (size_t i = 0; i < g->count; i++) {
        if (!isfinite(g->grad[i])) bad = 1;
        t.gmax = GC_MAX(t.gmax, fabs(g->grad[i]));
    }
    gc_dir dir = {malloc(g->count * sizeof(size_t)), malloc(g->count * sizeof(double)),
                  malloc(g->count * sizeof(double)), 0};
    int status = dir.idx && dir.v && dir.saved ? check_group_with(pb, g, &dir, &t) : SKIT_ENOMEM;
    free(dir.idx), free(dir.v), free(dir.saved);
    snprintf(out->name, sizeof out->name, "%s", g->name);
    out->count = g->count;
    out->checked = t.checks;
    out->max_grad = t.gmax;
    out->error = bad ? INFINITY : t.err;
    out->tolerance = pb->o->tolerance;
    return status;
}

typedef int (*gc_setup)(gc_problem *pb);

static gc_setup setup_of(const char *op)
{
    static const struct {
        const char *name;
        gc_setup setup;
    } table[] = {{"toeplitz", setup_toeplitz}, {"mlp", setup_mlp},         {"decay", setup_decay},
                 {"tno", setup_tno},           {"fd", setup_fd},          {"ski-tno", setup_ski},
                 {"ski-causal", setup_ski_causal},                 {"attention", setup_attention}, {"mra2", setup_mra}};
    for (size_t i = 0; i < sizeof table / sizeof *table; i++)
        if (!strcmp(op, table[i].name)) return table[i].setup;
    return NULL;
}

/* ---- injected errors (the checker's own tests) ---------------------------- */

int gradcheck_inject_parse(const char *text, gradcheck_inject *inject)
{
    static const char *const kinds[] = {"scale", "shift", "transpose"};
    char kind[16] = "", group[32] = "";
    int used = 0;
    memset(inject, 0, sizeof *inject);
    inject->eps = 1e-4;
    if (sscanf(text, "%15[a-z]:%31[a-zA-Z0-9.]%n", kind, group, &used) != 2) return -1;
    const char *rest = text + used;
    if (*rest == ':') {
        char *end;
        inject->row = (size_t)strtoul(rest + 1, &end, 10);
        if (end == rest + 1) return -1;
        rest = end;
        if (*rest == ':') {
            inject->eps = strtod(rest + 1, &end);
            if (end == rest + 1 || !isfinite(inject->eps)) return -1;
            rest = end;
        }
    }
    if (*rest) return -1;
    for (int k = 0; k < 3; k++)
        if (!strcmp(kind, kinds[k])) inject->kind = (gradcheck_inject_kind)(k + 1);
    snprintf(inject->group, sizeof inject->group, "%s", group);
    return inject->kind ? 0 : -1;
}

int gradcheck_inject_apply(const gradcheck_inject *in, const char *name, double *grad, size_t count,
                           const gradcheck_layout *L)
{
    if (!in->kind || in->kind == GRADCHECK_INJECT_TRANSPOSE || strcmp(in->group, name)) return 0;
    if (in->row >= L->rows || (in->kind == GRADCHECK_INJECT_SHIFT && L->rows < 2)) return -1;
    size_t from = in->row + 1 < L->rows ? in->row + 1 : in->row - 1; /* the neighbour a shift reads */
    for (size_t c = 0; c < count / L->rows; c++) {
        double *at = grad + in->row * L->row_stride + c * L->col_stride;
        *at = in->kind == GRADCHECK_INJECT_SCALE ? *at * (1 + in->eps) : grad[from * L->row_stride + c * L->col_stride];
    }
    return 1;
}

/* the gradient A dy of a group the output depends on linearly, y = A p_g
 * (a transpose forgotten): the forward with the group's values set to dy */
static int inject_transpose(gc_problem *pb, gc_group *g)
{
    if (g->count != pb->ny) return SKIT_EINVAL;
    double *saved = malloc(g->count * sizeof *saved);
    if (!saved) return SKIT_ENOMEM;
    memcpy(saved, g->values, g->count * sizeof *saved);
    memcpy(g->values, pb->dy, g->count * sizeof *saved);
    int status = pb->forward(pb, g->grad);
    memcpy(g->values, saved, g->count * sizeof *saved);
    free(saved);
    return status;
}

/* SKIT_EINVAL when the injection names no group of the op (or a row it lacks) */
static int inject(gc_problem *pb)
{
    const gradcheck_inject *in = &pb->o->inject;
    if (!in->kind) return SKIT_OK;
    for (size_t k = 0; k < pb->ng; k++) {
        gc_group *g = &pb->g[k];
        if (in->kind == GRADCHECK_INJECT_TRANSPOSE && !strcmp(in->group, g->name)) return inject_transpose(pb, g);
        int applied = gradcheck_inject_apply(in, g->name, g->grad, g->count, &g->layout);
        if (applied) return applied > 0 ? SKIT_OK : SKIT_EINVAL;
    }
    return SKIT_EINVAL;
}

static int run_checks(gc_problem *pb, gradcheck_result *r)
{
    skit_rng_fill_normal(&pb->rng, pb->dy, pb->ny);
    for (size_t k = 0; k < pb->ng; k++)
        for (size_t i = 0; i < pb->g[k].count; i++) pb->g[k].grad[i] = NAN; /* poison */
    GC_TRY(pb->backward(pb));
    GC_TRY(inject(pb));
    r->worst = 0;
    for (size_t k = 0; k < pb->ng; k++) {
        GC_TRY(check_group(pb, &pb->g[k], &r->groups[r->ngroups]));
        double e = r->groups[r->ngroups++].error;
        r->worst = isnan(e) || e > r->worst ? e : r->worst;
    }
    return SKIT_OK;
}

int gradcheck_run(const char *op, const gradcheck_options *o, gradcheck_result *r)
{
    if (o->f32) return gradcheck_run_f32(op, o, r);
    memset(r, 0, sizeof *r);
    gc_setup setup = setup_of(op);
    if (!setup) return SKIT_EINVAL;
    gc_problem pb;
    memset(&pb, 0, sizeof pb);
    pb.o = o;
    skit_rng_seed(&pb.rng, o->seed);
    int status = setup(&pb);
    if (status == SKIT_OK) {
        for (size_t k = 0; k < pb.ng; k++) r->coordinates += pb.g[k].gathers ? 0 : pb.g[k].count;
        if (o->full && r->coordinates > GRADCHECK_FULL_MAX) status = SKIT_ETOOBIG;
    }
    if (status == SKIT_OK) {
        pb.y = gc_alloc(&pb, pb.ny);
        pb.dy = gc_alloc(&pb, pb.ny);
        status = pb.y && pb.dy ? run_checks(&pb, r) : SKIT_ENOMEM;
    }
    if (pb.destroy && pb.state) pb.destroy(&pb);
    free(pb.state);
    for (size_t i = 0; i < pb.nowned; i++) skit_free(pb.owned[i]);
    return status;
}
