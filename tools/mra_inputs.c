/* mra_inputs.c — the Q, K, V of `skit mra`: synthetic ones from the seeded
 * generator, or the user's .npy files (one head, a stack of heads, or a
 * directory of per-head files), one sequence per run (mra.h). */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <sys/stat.h>

#include "mra.h"

void mra_inputs_free(mra_inputs *in)
{
    free(in->q);
    free(in->k);
    free(in->v);
    free(in->mask);
    memset(in, 0, sizeof *in);
}

/* --pad: the padding mask of in (nothing without --pad). */
static int attach_mask(const mra_options *o, mra_inputs *in)
{
    if (!o->pad) return CLI_OK;
    in->mask = malloc(in->n);
    if (!in->mask) return cli_failure("out of memory");
    for (size_t i = 0; i < in->n; i++) in->mask[i] = i + o->pad < in->n;
    return CLI_OK;
}

static int make_inputs(const mra_options *o, size_t n, int need_v, mra_inputs *in)
{
    memset(in, 0, sizeof *in);
    in->n = n;
    in->d = o->d;
    in->dv = o->dv;
    size_t bytes = n * (2 * o->d + (need_v ? o->dv : 0)) * sizeof(double);
    if (skit_memory_check(bytes, "Q, K, V (--n, --d, --dv)") != SKIT_OK) return cli_library_error(SKIT_ETOOBIG);
    in->q = malloc(n * o->d * sizeof(double));
    in->k = malloc(n * o->d * sizeof(double));
    in->v = need_v ? malloc(n * o->dv * sizeof(double)) : NULL;
    if (!in->q || !in->k || (need_v && !in->v)) {
        mra_inputs_free(in);
        return cli_failure("out of memory for Q, K, V at n = %zu", n);
    }
    int st = skit_attention_synthetic_generate(&o->spec, n, o->d, o->dv, in->q, n, in->k, n, in->v, n);
    if (st != SKIT_OK) {
        mra_inputs_free(in);
        return cli_library_error(st);
    }
    int status = attach_mask(o, in);
    if (status != CLI_OK) mra_inputs_free(in);
    return status;
}

void mra_stack_free(mra_stack *s)
{
    skit_matrix_free(&s->q);
    skit_matrix_free(&s->k);
    skit_matrix_free(&s->v);
    memset(s, 0, sizeof *s);
}

static int npy_name(const struct dirent *e)
{
    return cli_ends_with(e->d_name, ".npy");
}

/* Names in natural order: digit runs compare as numbers ("h2" < "h10"). */
static int natural_compare(const char *a, const char *b)
{
    while (*a && *b) {
        if (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
            char *ea, *eb;
            unsigned long long x = strtoull(a, &ea, 10), y = strtoull(b, &eb, 10);
            if (x != y) return x < y ? -1 : 1;
            a = ea, b = eb;
        } else {
            if (*a != *b) return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
            a++, b++;
        }
    }
    return *a ? 1 : *b ? -1 : 0;
}

static int natural_dirent(const struct dirent **a, const struct dirent **b)
{
    return natural_compare((*a)->d_name, (*b)->d_name);
}

/* The last two numbers of a name ("q_l3_h07.npy": 3, 7); 0 if it has fewer. */
static int name_layer_head(const char *name, size_t *layer, size_t *head)
{
    size_t nums[2] = {0, 0}, found = 0;
    for (const char *p = name; *p;) {
        if (!isdigit((unsigned char)*p)) {
            p++;
            continue;
        }
        char *end;
        nums[0] = nums[1];
        nums[1] = (size_t)strtoull(p, &end, 10);
        found++;
        p = end;
    }
    *layer = nums[0], *head = nums[1];
    return found >= 2;
}

/* Files named by layer and head (two numbers each) that form a full
 * grid, layer-major, layers and heads from 0: *layers x *heads. */
static int names_form_grid(struct dirent **names, int count, size_t *layers, size_t *heads)
{
    size_t l, h, H = 0;
    for (int f = 0; f < count; f++) {
        if (!name_layer_head(names[f]->d_name, &l, &h)) return 0;
        if (l == 0) H = h + 1;
    }
    if (!H || (size_t)count % H) return 0;
    for (int f = 0; f < count; f++) {
        name_layer_head(names[f]->d_name, &l, &h);
        if (l != (size_t)f / H || h != (size_t)f % H) return 0;
    }
    *layers = (size_t)count / H, *heads = H;
    return 1;
}

/* A directory of per-head n x c files in natural name order as one stack:
 * (L, H, n, c) when the names carry layer and head numbers forming a full
 * grid (e.g. l0_h0.npy .. l5_h11.npy), else (files, n, c) with head = the
 * position. CLI status (errors reported, naming the option and the file). */
static int read_head_directory(const char *option, const char *dir, skit_matrix *m, size_t *shape, int *ndim)
{
    struct dirent **names = NULL;
    int count = scandir(dir, &names, npy_name, natural_dirent);
    if (count < 0) return cli_usage_error("%s: cannot read directory %s: %s", option, dir, strerror(errno));
    int status = count ? CLI_OK : cli_usage_error("%s: no .npy files in the directory %s", option, dir);
    skit_matrix one;
    memset(&one, 0, sizeof one);
    for (int f = 0; f < count && status == CLI_OK; f++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, names[f]->d_name);
        int st = skit_npy_read(path, &one);
        if (st != SKIT_OK)
            status = st == SKIT_ENOMEM ? cli_library_error(st) : cli_usage_error("%s: %s", option, skit_last_error());
        else if (one.ndim != 2 || (f && (one.rows != shape[*ndim - 2] || one.cols != shape[*ndim - 1])))
            status = cli_usage_error("%s: %s is %zu x %zu: need a 2-D array like the first file (%zu x %zu)", option,
                                     path, one.rows, one.cols, f ? shape[*ndim - 2] : one.rows,
                                     f ? shape[*ndim - 1] : one.cols);
        if (status == CLI_OK && !f) {
            size_t layers, heads;
            if (names_form_grid(names, count, &layers, &heads)) {
                shape[0] = layers, shape[1] = heads, shape[2] = one.rows, shape[3] = one.cols;
                *ndim = 4;
            } else {
                shape[0] = (size_t)count, shape[1] = one.rows, shape[2] = one.cols, shape[3] = 1;
                *ndim = 3;
            }
            m->rows = (size_t)count * one.rows, m->cols = one.cols, m->ndim = 2;
            m->data = skit_malloc(m->rows * m->cols, sizeof(double));
            if (!m->data) status = cli_failure("out of memory reading %s", dir);
        }
        for (size_t c = 0; status == CLI_OK && c < one.cols; c++)
            memcpy(m->data + (size_t)f * one.rows + c * m->rows, one.data + c * one.rows, one.rows * sizeof(double));
        skit_matrix_free(&one);
    }
    for (int f = 0; f < count; f++) free(names[f]);
    free(names);
    if (status != CLI_OK) skit_matrix_free(m);
    return status;
}

/* One of --q/--k/--v: a file of 2 to 4 axes or a directory. */
static int read_stack_part(const char *option, const char *path, skit_matrix *m, size_t *shape, int *ndim)
{
    struct stat sb;
    if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode)) {
        if (read_head_directory(option, path, m, shape, ndim) != CLI_OK) return CLI_USAGE;
    } else {
        int st = skit_npy_read_nd(path, m, shape, ndim);
        if (st == SKIT_ENOMEM) return cli_library_error(st);
        if (st != SKIT_OK) return cli_usage_error("%s: %s", option, skit_last_error());
    }
    if (*ndim < 2 || !shape[*ndim - 1] || !shape[*ndim - 2]) {
        skit_matrix_free(m);
        return cli_usage_error("%s: %s has %d axes or an empty one: need (n, d), (H, n, d) or (L, H, n, d)",
                               option, path, *ndim);
    }
    return CLI_OK;
}

static void format_shape(char *buf, size_t size, const size_t *shape, int ndim)
{
    int len = snprintf(buf, size, "(");
    for (int a = 0; a < ndim; a++) len += snprintf(buf + len, size - (size_t)len, "%s%zu", a ? ", " : "", shape[a]);
    snprintf(buf + len, size - (size_t)len, ")");
}

/* Q and K of the same shape; V with their leading axes and tokens. */
static int check_stack_shapes(const size_t *qs, int qn, const size_t *ks, int kn, const size_t *vs, int vn)
{
    char a[96], b[96];
    int same = qn == kn;
    for (int x = 0; same && x < qn; x++) same = qs[x] == ks[x];
    if (!same) {
        format_shape(a, sizeof a, qs, qn);
        format_shape(b, sizeof b, ks, kn);
        const char *what = qn != kn                       ? "shapes differ"
                           : qs[qn - 1] != ks[kn - 1]     ? "columns (head dimension) differ"
                           : qs[qn - 2] != ks[kn - 2]     ? "row counts (tokens) differ"
                                                          : "stack shapes differ";
        return cli_usage_error("--q/--k: %s: Q %s, K %s (need equal shapes)", what, a, b);
    }
    same = !vs || vn == qn;
    for (int x = 0; vs && same && x + 1 < qn; x++) same = qs[x] == vs[x];
    if (!same) {
        format_shape(a, sizeof a, qs, qn);
        format_shape(b, sizeof b, vs, vn);
        return cli_usage_error("--v: shape %s does not match Q %s: need the same axes but the last", b, a);
    }
    return CLI_OK;
}

/* --q/--k[/--v] into s; every shape and --heads checked. */
int mra_load_stack(const mra_options *o, int need_v, mra_stack *s)
{
    memset(s, 0, sizeof *s);
    size_t qs[SKIT_NPY_MAX_DIMS], ks[SKIT_NPY_MAX_DIMS];
    int qn = 0, kn = 0;
    int st = read_stack_part("--q", o->qpath, &s->q, qs, &qn);
    if (st == CLI_OK) st = read_stack_part("--k", o->kpath, &s->k, ks, &kn);
    if (st == CLI_OK && need_v) st = read_stack_part("--v", o->vpath, &s->v, s->vshape, &s->vndim);
    if (st == CLI_OK) st = check_stack_shapes(qs, qn, ks, kn, need_v ? s->vshape : NULL, s->vndim);
    if (st != CLI_OK) {
        mra_stack_free(s);
        return st;
    }
    s->n = qs[qn - 2];
    s->d = qs[qn - 1];
    s->dv = need_v ? s->vshape[s->vndim - 1] : 0;
    s->layers = qn == 4 ? qs[0] : 1;
    s->heads = qn >= 3 ? qs[qn - 3] : 1;
    s->count = s->layers * s->heads;
    for (size_t i = 0; i < o->nheads && st == CLI_OK; i++)
        if (o->heads[i] >= s->count)
            st = cli_usage_error("--heads: %zu out of range: the stack has %zu heads (0..%zu)", o->heads[i],
                                 s->count, s->count - 1);
    if (st == CLI_OK) st = mra_check_n(o, s->n);
    if (st != CLI_OK) mra_stack_free(s);
    return st;
}

/* Head h of the stack as one sequence (copied, ld n). */
static int head_inputs(const mra_options *o, const mra_stack *s, size_t h, mra_inputs *in)
{
    memset(in, 0, sizeof *in);
    size_t n = s->n, rows = s->count * n;
    in->n = n;
    in->d = s->d;
    in->dv = s->dv;
    in->q = malloc(n * s->d * sizeof(double));
    in->k = malloc(n * s->d * sizeof(double));
    in->v = s->dv ? malloc(n * s->dv * sizeof(double)) : NULL;
    if (!in->q || !in->k || (s->dv && !in->v)) {
        mra_inputs_free(in);
        return cli_failure("out of memory");
    }
    for (size_t c = 0; c < s->d; c++) {
        memcpy(in->q + c * n, s->q.data + h * n + c * rows, n * sizeof(double));
        memcpy(in->k + c * n, s->k.data + h * n + c * rows, n * sizeof(double));
    }
    for (size_t c = 0; c < s->dv; c++) memcpy(in->v + c * n, s->v.data + h * n + c * rows, n * sizeof(double));
    snprintf(in->label, sizeof in->label, "\t%zu\t%zu", h / s->heads, h % s->heads);
    int status = attach_mask(o, in);
    if (status != CLI_OK) mra_inputs_free(in);
    return status;
}

/* The runs of a mode: the chosen heads of a user stack, or one per --n. */
size_t mra_run_count(const mra_options *o, const mra_stack *s)
{
    if (!o->qpath) return o->nn;
    return o->heads ? o->nheads : s->count;
}

int mra_run_inputs(const mra_options *o, const mra_stack *s, size_t r, int need_v, mra_inputs *in)
{
    if (!o->qpath) return make_inputs(o, o->n[r], need_v, in);
    return head_inputs(o, s, o->heads ? o->heads[r] : r, in);
}

/* --save-inputs: the synthetic Q, K, V of the one --n as DIR/{q,k,v}.npy. */
int mra_save_inputs(const mra_options *o)
{
    mra_inputs in;
    if (make_inputs(o, o->n[0], 1, &in) != CLI_OK) return CLI_FAILED;
    const double *arrays[3] = {in.q, in.k, in.v};
    size_t cols[3] = {in.d, in.d, in.dv};
    int st = SKIT_OK;
    for (int a = 0; a < 3 && st == SKIT_OK; a++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%c.npy", o->save_inputs, "qkv"[a]);
        st = skit_npy_write(path, arrays[a], in.n, cols[a], in.n, 2);
    }
    mra_inputs_free(&in);
    return st == SKIT_OK ? CLI_OK : cli_library_error(st);
}

int mra_require_finite(const double *values, size_t count, const char *what)
{
    for (size_t i = 0; i < count; i++)
        if (!isfinite(values[i]))
            return cli_failure("%s is not finite (%g): the logits scale q.k overflow double precision; "
                               "scale Q and K down (or raise --temperature)", what, values[i]);
    return CLI_OK;
}
