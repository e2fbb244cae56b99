/* cmd_ski.c — `skit ski-bound`: the SKI and Nystrom errors against Theorem 1
 * of "SKI to go Faster" and every term of its proof, swept over n, r,
 * kernel, interpolation scheme and degree N; plus two related studies:
 * Algorithm 1's sparse + low-rank split and the extrapolation of fitted RPEs
 * (inverse time warp vs MLP). The tool parses, calls the library, writes TSV. */
#include "config.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "commands.h"
#include "cli/table.h"

static const char *usage =
    "usage: skit ski-bound [--study theorem1|sparse-lowrank|extrapolation] [options]\n"
    "theorem1 (default): measure ||E_SKI||_2 = ||W A W^T - T_opt||_2 against the\n"
    "right-hand side of Theorem 1 (SKI to go Faster, Appendix D) and every term of\n"
    "its proof, by dense SVD, for each combination of the swept values.\n"
    "sparse-lowrank: Algorithm 1 on k = kernel + spike (spike(t) = v exp(-|t|/l_s)):\n"
    "errors of band only, low rank (SKI) only and band + SKI, vs r and band width m.\n"
    "extrapolation: fit a warped piecewise-linear RPE (inverse time warp) and an MLP\n"
    "RPE (times lambda^|t|) to a target kernel on lags |t| < n_train, evaluate both\n"
    "up to factor * n_train.\n\n"
    "Conventions: observation points x_i = i (i = 0..n-1), T(i,j) = k(i-j);\n"
    "r inducing points uniform on [lo, hi] (default [0, n-1]); A(i,j) = k(p_i-p_j),\n"
    "F(i,j) = k(x_i-p_j), B(i,j) = k(p_i-x_j); A^-1 is the pseudo-inverse.\n\n"
    "sweeps (comma-separated lists; 2^a..2^b expands powers of two):\n"
    "  --n LIST            sizes n, 2..8192 (default 256)\n"
    "  --r LIST            inducing points r, 2 <= r <= n (default 8,16,32,64,128)\n"
    "  --kernel LIST       gaussian, shifted-gaussian, matern52, exp-cosine, tnn,\n"
    "                      warped-linear (default matern52; extrapolation: targets)\n"
    "  --interp LIST       linear, cubic (Keys a=-0.5), lagrange, authors-bracket,\n"
    "                      authors (the ski-tnn code's W; no bound) (default linear)\n"
    "  --degree LIST       Lagrange degrees N, 1 <= N <= min(r-1, 15) (default 3)\n"
    "  --band LIST         sparse-lowrank: band widths m (odd, or 0 = none) (default 0,9,33)\n"
    "kernel parameters:\n"
    "  --variance X        > 0 (default 1)\n"
    "  --lengthscale X     > 0, in lags (default 16)\n"
    "  --shift X           shifted Gaussian centre (default 4)\n"
    "  --frequency X       exp-cosine frequency in rad/lag, >= 0 (default 0.1)\n"
    "  --lambda X          decay of tnn / warp of warped-linear, 0 < X < 1 (default 0.99)\n"
    "  --knots K           warped-linear knots per side, 1..4096 (default 16; values\n"
    "                      drawn N(0,1) from --seed, f(0) = 0)\n"
    "  --rpe-width W       tnn RPE MLP width (default 32)\n"
    "  --rpe-layers L      tnn RPE hidden layers (default 2)\n"
    "  --activation A      tnn RPE activation relu, silu, gelu (default gelu)\n"
    "  --spike-variance X  sparse-lowrank spike height v > 0 (default 1)\n"
    "  --spike-lengthscale X  sparse-lowrank spike width l_s > 0 (default 2)\n"
    "evaluation:\n"
    "  --interval LO:HI    inducing interval, LO < HI (default 0:n-1 for each n)\n"
    "  --gamma X           falloff of the authors' W, 0 < X < 1 (default 0.99)\n"
    "  --pinv-rtol X       pseudo-inverse tolerance relative to sigma_1(A)\n"
    "                      (default r * machine epsilon)\n"
    "  --norm M            dense (SVD, default) or lanczos for the n x n norms\n"
    "  --vs AXIS           x axis of the figure: r or n (theorem1), r or m\n"
    "                      (sparse-lowrank) (default r)\n"
    "  --n-train N         extrapolation: fitted lags |t| < N, 8..65536 (default 512)\n"
    "  --factor F          extrapolation: evaluated up to F * n-train, 2..64 (default 4)\n"
    "  --curves FILE       extrapolation: also write k(t) of target and fits (TSV)\n" CLI_COMMON_HELP
    "  -h, --help          this message\n\n"
    "theorem1 columns: every term of the bound and of the proof's chain (see the\n"
    "output header); holds = 1 if ||E_SKI|| <= the theorem's right-hand side, -1 if\n"
    "the scheme has no bound (authors' W). Exit status 0 ok, 1 computation failed,\n"
    "2 bad input (nothing written).\n\n"
    "examples:\n"
    "  skit ski-bound --n 512 --r 8..256 --kernel matern52,gaussian --plot bound.png\n"
    "  skit ski-bound --study sparse-lowrank --kernel gaussian --lengthscale 32 --band 0,9,33 --norm lanczos\n"
    "  skit ski-bound --study extrapolation --kernel matern52,tnn --lengthscale 128 --plot extrap.png\n";

static const char *const study_names[] = {"theorem1", "sparse-lowrank", "extrapolation", NULL};
static const char *const kernel_names[] = {"gaussian", "shifted-gaussian", "matern52",
                                           "exp-cosine", "tnn", "warped-linear", NULL};
static const char *const interp_names[] = {"linear", "cubic", "lagrange", "authors-bracket",
                                           "authors", NULL};
static const char *const activation_names[] = {"relu", "silu", "gelu", NULL};
static const char *const norm_names[] = {"dense", "lanczos", NULL};
static const char *const vs_names[] = {"r", "n", "m", NULL};
static const char *const kind_names[] = {"analytic", "sampled", "estimate"};

enum { STUDY_THEOREM1 = 0, STUDY_SPARSE = 1, STUDY_EXTRAP = 2 };
enum { VS_R = 0, VS_N = 1, VS_M = 2 };

enum {
    OPT_N = 0x2000, OPT_R, OPT_KERNEL, OPT_INTERP, OPT_DEGREE, OPT_VARIANCE, OPT_LENGTHSCALE,
    OPT_SHIFT, OPT_FREQUENCY, OPT_LAMBDA, OPT_KNOTS, OPT_RPE_WIDTH, OPT_RPE_LAYERS,
    OPT_ACTIVATION, OPT_INTERVAL, OPT_GAMMA, OPT_PINV, OPT_NORM, OPT_VS, OPT_STUDY, OPT_BAND,
    OPT_SPIKE_VARIANCE, OPT_SPIKE_LENGTHSCALE, OPT_N_TRAIN, OPT_FACTOR, OPT_CURVES
};

typedef struct options {
    cli_common common;
    int argc;
    char **argv;
    int study;
    size_t *n, *r, *degree, *band;
    size_t nn, nr, ndegree, nband;
    int kernels[6], interps[5];
    double variance, lengthscale, shift, frequency, lambda, gamma, pinv_rtol;
    double spike_variance, spike_lengthscale;
    size_t knots, rpe_width, rpe_layers, n_train, factor;
    int activation, norm, vs, has_interval, vs_given;
    double lo, hi;
    const char *curves;
    /* options given that only some studies use */
    const char *only_sparse, *only_extrap, *only_theorem1;
} options;

static void free_options(options *o)
{
    free(o->n);
    free(o->r);
    free(o->degree);
    free(o->band);
}

/* ---- kernels -------------------------------------------------------------------------- */

static int make_kernel(const options *o, int which, uint64_t seed, skit_kernel **k, skit_mlp **mlp)
{
    *k = NULL;
    *mlp = NULL;
    int st = SKIT_OK;
    switch (which) {
    case 0: st = skit_kernel_gaussian_create(k, o->variance, o->lengthscale); break;
    case 1: st = skit_kernel_shifted_gaussian_create(k, o->variance, o->lengthscale, o->shift); break;
    case 2: st = skit_kernel_matern52_create(k, o->variance, o->lengthscale); break;
    case 3: st = skit_kernel_exp_cosine_create(k, o->variance, o->lengthscale, o->frequency); break;
    case 4:
        st = skit_mlp_create(mlp, 1, o->rpe_width, o->rpe_layers, 1, (skit_activation)o->activation,
                             SKIT_NORM_RMS, seed);
        if (st == SKIT_OK) st = skit_kernel_tnn_create(k, *mlp, 0, o->lambda, (skit_activation)o->activation);
        break;
    case 5: {
        double *v = malloc(2 * o->knots * sizeof *v);
        if (!v) return SKIT_ENOMEM;
        skit_rng rng;
        skit_rng_seed(&rng, seed);
        skit_rng_fill_normal(&rng, v, 2 * o->knots);
        st = skit_kernel_warped_linear_create(k, o->knots, v, o->lambda);
        free(v);
        break;
    }
    }
    return st;
}

static void kernel_comment(cli_table *t, const options *o)
{
    cli_table_comment(t, "kernel parameters: variance %g, lengthscale %g, shift %g, frequency %g, lambda %g, knots %zu (warped-linear values N(0,1) from the seed), rpe width %zu, rpe layers %zu, activation %s (RMS norm, PyTorch init from the seed)",
                    o->variance, o->lengthscale, o->shift, o->frequency, o->lambda, o->knots,
                    o->rpe_width, o->rpe_layers, activation_names[o->activation]);
}

static void interval_comment(cli_table *t, const options *o)
{
    cli_table_comment(t, "observation points x_i = i, i = 0..n-1; T(i,j) = k(i-j)");
    if (o->has_interval)
        cli_table_comment(t, "inducing points p_j = lo + j (hi-lo)/(r-1), j = 0..r-1, on [lo, hi] = [%g, %g]", o->lo, o->hi);
    else
        cli_table_comment(t, "inducing points p_j = j (n-1)/(r-1), j = 0..r-1 (interval [0, n-1])");
}

/* Interpolation options of scheme s at n (degree: Lagrange's N), with
 * --gamma and --interval. */
static void interp_options(const options *o, size_t n, int s, size_t degree, skit_interp_options *io)
{
    skit_interp_options_default(io, n);
    io->scheme = (skit_interp_scheme)s;
    io->degree = s == SKIT_INTERP_LAGRANGE ? degree : 1;
    io->gamma = o->gamma;
    if (o->has_interval) {
        io->lo = o->lo;
        io->hi = o->hi;
    }
}

/* One table cell: a number ("%.10g") or a text. */
static void num(cli_table *t, double v) { cli_table_cell(t, "%.10g", v); }
static void txt(cli_table *t, const char *s) { cli_table_cell(t, "%s", s); }

/* The first member of every study row: rows sort by series, then by x, so
 * that each series of the figure is one contiguous line. */
typedef struct series_key {
    size_t series;
    double x;
} series_key;

static int compare_series(const void *a, const void *b)
{
    const series_key *x = a, *y = b;
    if (x->series != y->series) return x->series < y->series ? -1 : 1;
    return (x->x > y->x) - (x->x < y->x);
}

/* Sort rows (each `size` bytes, a series_key first) and renumber their
 * series 0..S-1; the figure's titles, one per series, by `title`. */
static size_t sort_series(void *rows, size_t count, size_t size, const options *o,
                          void (*title)(const void *row, const options *o, char *text, size_t length),
                          char *titles, size_t length)
{
    qsort(rows, count, size, compare_series);
    size_t nseries = 0, previous = 0;
    titles[0] = '\0';
    for (size_t i = 0; i < count; i++) {
        series_key *key = (series_key *)((char *)rows + i * size);
        size_t original = key->series;
        if (i == 0 || original != previous) {
            char t[96];
            title(key, o, t, sizeof t);
            if (strlen(titles) + strlen(t) < length) strcat(titles, t);
            nseries++;
        }
        key->series = nseries - 1;
        previous = original;
    }
    return nseries;
}

/* ---- study: theorem 1 ------------------------------------------------------------------ */

typedef struct row {
    series_key key;
    char kernel[32], interp[24];
    skit_theorem1_terms t;
} row;

static const char *const theorem1_columns[] = {
    "series", "kernel", "interp", "n", "r", "N", "width", "h", "lag_lo", "lag_hi",
    "e_ski", "e_nyst", "ski_error", "nystrom_error", "sigma_next", "t_norm", "ski_nystrom",
    "sigma1_f", "sigma1_b", "sigma1_a", "sigma_r_a", "a_rank", "w_norm", "w_inf", "w_max_abs",
    "wa_f", "wa_f_fro", "awt_b", "awt_b_fro", "max_entry_err", "f_ainv", "ainv_b", "psi",
    "h2_over_8", "L", "L_kind", "interp_bound", "chain1_triangle", "chain2_eq12",
    "chain3_sigma", "chain4_frobenius", "chain5_interp", "chain6_w_inf", "chain7_rhs", "rhs",
    "rhs_valid", "tightness", "a_nonsingular", "smooth", "entrywise_valid", "w_inf_le_N1",
    "holds", "loosest_step", "ski_norm", "w_rows_alive", "w_rows_outside", NULL};

static void theorem1_row(cli_table *table, const row *rw)
{
    const skit_theorem1_terms *t = &rw->t;
    num(table, (double)rw->key.series);
    txt(table, rw->kernel);
    txt(table, rw->interp);
    double v1[] = {(double)t->n, (double)t->r, (double)t->degree, (double)t->width, t->spacing,
                   t->lag_lo, t->lag_hi, t->e_ski, t->e_nyst, t->ski_error, t->nystrom_error,
                   t->sigma_next, t->t_norm, t->ski_nystrom, t->sigma1_f, t->sigma1_b,
                   t->sigma1_a, t->sigma_r_a, (double)t->a_rank, t->w_norm, t->w_inf,
                   t->w_max_abs, t->wa_f, t->wa_f_frobenius, t->awt_b, t->awt_b_frobenius,
                   t->wa_f_max_entry, t->f_ainv, t->ainv_b, t->psi, t->psi_linear_h2_8,
                   t->lipschitz};
    for (size_t i = 0; i < sizeof v1 / sizeof v1[0]; i++) num(table, v1[i]);
    txt(table, kind_names[t->lipschitz_kind]);
    num(table, t->interp_bound);
    for (int c = 1; c < SKIT_THEOREM1_CHAIN; c++) num(table, t->chain[c]);
    double v2[] = {t->rhs, t->rhs_valid, t->rhs / t->e_ski, (double)t->a_nonsingular,
                   (double)t->smooth, (double)t->entrywise_valid, (double)t->w_inf_le_n1,
                   (double)t->holds};
    for (size_t i = 0; i < sizeof v2 / sizeof v2[0]; i++) num(table, v2[i]);
    txt(table, t->loosest_step ? skit_theorem1_step_name(t->loosest_step) : "-");
    num(table, t->ski_norm);
    num(table, (double)t->w_rows_alive);
    num(table, (double)t->w_rows_outside);
    cli_table_end_row(table);
}

static void theorem1_title(const void *r, const options *o, char *text, size_t length)
{
    const row *rw = r;
    if (o->vs == VS_R) snprintf(text, length, "%s/%s/n=%zu ", rw->kernel, rw->interp, rw->t.n);
    else snprintf(text, length, "%s/%s/r=%zu ", rw->kernel, rw->interp, rw->t.r);
}

/* Interpolation schemes swept: one per scheme, one per degree for Lagrange. */
static size_t theorem1_schemes(const options *o)
{
    size_t nschemes = 0;
    for (int s = 0; s < 5; s++)
        if (o->interps[s]) nschemes += s == SKIT_INTERP_LAGRANGE ? o->ndegree : 1;
    return nschemes;
}

/* The rows of kernel kk at n = o->n[in]: every scheme x r, appended at
 * rows + *count. */
static int theorem1_at(const options *o, int kk, size_t in, skit_theorem1 *ctx, row *rows,
                       size_t *count)
{
    size_t n = o->n[in], nschemes = theorem1_schemes(o), scheme_index = 0;
    for (int s = 0; s < 5; s++) {
        if (!o->interps[s]) continue;
        size_t nd = s == SKIT_INTERP_LAGRANGE ? o->ndegree : 1;
        for (size_t id = 0; id < nd; id++, scheme_index++) {
            for (size_t ir = 0; ir < o->nr; ir++) {
                skit_interp_options io;
                interp_options(o, n, s, o->degree[id], &io);
                row *rw = &rows[*count];
                cli_progress("%s n = %zu %s r = %zu", kernel_names[kk], n, interp_names[s], o->r[ir]);
                int st = skit_theorem1_evaluate(ctx, o->r[ir], &io, o->pinv_rtol, &rw->t);
                if (st != SKIT_OK) return st;
                snprintf(rw->kernel, sizeof rw->kernel, "%s", kernel_names[kk]);
                if (s == SKIT_INTERP_LAGRANGE) snprintf(rw->interp, sizeof rw->interp, "lagrange%zu", io.degree);
                else snprintf(rw->interp, sizeof rw->interp, "%s", interp_names[s]);
                size_t other = o->vs == VS_R ? in : ir, nother = o->vs == VS_R ? o->nn : o->nr;
                rw->key.series = ((size_t)kk * nschemes + scheme_index) * nother + other;
                rw->key.x = o->vs == VS_R ? (double)o->r[ir] : (double)n;
                (*count)++;
            }
        }
    }
    return SKIT_OK;
}

/* Every kernel x n x scheme x r row. */
static int theorem1_rows(const options *o, row *rows, size_t *count)
{
    int st = SKIT_OK;
    for (int kk = 0; kk < 6 && st == SKIT_OK; kk++) {
        if (!o->kernels[kk]) continue;
        skit_kernel *kernel;
        skit_mlp *mlp;
        st = make_kernel(o, kk, o->common.seed, &kernel, &mlp);
        for (size_t in = 0; in < o->nn && st == SKIT_OK; in++) {
            skit_theorem1 *ctx = NULL;
            /* a dense SVD: ~20 n^3 flops (Lanczos, --norm, far fewer) */
            cli_progress_cost(o->norm ? 0.0 : 20.0 * (double)o->n[in] * (double)o->n[in] * (double)o->n[in],
                              "%s n = %zu: SVD of T", kernel_names[kk], o->n[in]);
            st = skit_theorem1_create(&ctx, kernel, o->n[in], o->norm ? SKIT_NORM_LANCZOS : SKIT_NORM_DENSE_SVD);
            if (st == SKIT_OK) st = theorem1_at(o, kk, in, ctx, rows, count);
            skit_theorem1_destroy(ctx);
        }
        skit_kernel_destroy(kernel);
        skit_mlp_destroy(mlp);
    }
    return st;
}

static int theorem1_write(const options *o, row *rows, size_t count)
{
    char titles[6000], vars[6200];
    size_t nseries = sort_series(rows, count, sizeof *rows, o, theorem1_title, titles, sizeof titles);
    snprintf(vars, sizeof vars, "xcol='%s'; nseries=%zu; titles='%s'", o->vs == VS_R ? "r" : "n", nseries,
             titles);
    cli_table t;
    cli_table_init(&t, theorem1_columns);
    cli_table_comment(&t, "Theorem 1 of 'SKI to go Faster' (Appendix D): ||E_SKI||_2 <= sqrt(n r) psi L ((N+1) sqrt(n) + min(s1(F), s1(B))/s_r(A)) + ||E_nyst||_2");
    interval_comment(&t, o);
    cli_table_comment(&t, "T_opt = best rank-r approximation of T (truncated SVD); A(i,j) = k(p_i - p_j), F(i,j) = k(x_i - p_j), B(i,j) = k(p_i - x_j); A^-1 = pseudo-inverse with rtol %s",
                      o->pinv_rtol < 0 ? "r * machine epsilon" : "--pinv-rtol");
    cli_table_comment(&t, "E_SKI = W A W^T - T_opt, E_nyst = F A^-1 B - T_opt; ski_error = ||T - W A W^T||, nystrom_error = ||T - F A^-1 B||, sigma_next = sigma_{r+1}(T), ski_norm = ||W A W^T||");
    cli_table_comment(&t, "psi = max_i |prod over the N+1 stencil points (x_i - p)| / (N+1)! (the paper's product over N points read as N+1, as its linear example h^2/8 requires; cubic: max_i sum |w| |p - x_i|^3 / 3!)");
    cli_table_comment(&t, "L >= |k^(N+1)| over lags [lag_lo, lag_hi]; L_kind: analytic or sampled = rigorous, estimate = sampled Taylor-mode derivatives (not a proof)");
    cli_table_comment(&t, "chain: 1 = ||WAW^T - FA^-1B|| + ||E_nyst||; 2 = eqs (1)/(2) with ||FA^-1||, ||A^-1B||; 3 = with s1(F)/s_r(A), s1(B)/s_r(A); 4 = Frobenius norms of WA-F, AW^T-B; 5 = sqrt(nr) psi L; 6 = ||W||_2 -> sqrt(n) ||W||_inf; 7 = ||W||_inf -> N+1 (the theorem)");
    cli_table_comment(&t, "premises: a_nonsingular (numerical rank of A = r), smooth (k is C^(N+1) on the lag range), entrywise_valid (no non-smooth point of k inside a stencil), w_inf_le_N1; tightness = rhs / e_ski; loosest_step maximises chain_k / chain_(k-1)");
    cli_table_comment(&t, "norms of n x n matrices: %s; authors' W gamma %g", o->norm ? "Lanczos (dense matrices)" : "dense SVD", o->gamma);
    kernel_comment(&t, o);
    for (size_t i = 0; i < count; i++) theorem1_row(&t, &rows[i]);
    int status = cli_table_emit(&t, &o->common, o->argc, o->argv,
                                "norms are spectral norms (kernel units); lags, h in index units", "ski_bound", vars);
    cli_table_free(&t);
    return status;
}

static int run_theorem1(options *o)
{
    size_t nkernels = 0;
    for (int k = 0; k < 6; k++) nkernels += o->kernels[k] != 0;
    size_t total = nkernels * o->nn * theorem1_schemes(o) * o->nr, count = 0;
    row *rows = calloc(total ? total : 1, sizeof *rows);
    if (!rows) return cli_failure("out of memory");
    cli_progress_start(&o->common);
    int st = theorem1_rows(o, rows, &count);
    cli_progress_done();
    int status = st == SKIT_OK ? theorem1_write(o, rows, count) : cli_library_error(st);
    free(rows);
    return status;
}

/* ---- study: sparse + low rank ------------------------------------------------------------ */

typedef struct srow {
    series_key key;
    const char *kernel, *interp;
    size_t n, r, m;
    skit_sparse_lowrank_errors e;
} srow;

static const char *const sparse_columns[] = {
    "series", "kernel", "interp", "n", "r", "m", "t_norm", "band_only", "lowrank_only",
    "sparse_lowrank", "sparse_lowrank_fit", "spike_outside_band", "smooth_ski", "rel_band",
    "rel_lowrank", "rel_sparse_lowrank", "rel_sparse_lowrank_fit", NULL};

static void sparse_title(const void *r, const options *o, char *text, size_t length)
{
    const srow *rw = r;
    if (o->vs == VS_R) snprintf(text, length, "%s/m=%zu ", rw->kernel, rw->m);
    else snprintf(text, length, "%s/r=%zu ", rw->kernel, rw->r);
}

/* The rows of kernel kk (index kk among the kernels, schemes counted by
 * nschemes): every scheme x n x r x band width, appended at rows + *count. */
static int sparse_rows(const options *o, int kk, const skit_kernel *kernel, const skit_kernel *spike,
                       size_t nschemes, srow *rows, size_t *count)
{
    size_t scheme_index = 0;
    for (int s = 0; s < 5; s++) {
        if (!o->interps[s]) continue;
        for (size_t in = 0; in < o->nn; in++)
            for (size_t ir = 0; ir < o->nr; ir++)
                for (size_t im = 0; im < o->nband; im++) {
                    size_t n = o->n[in];
                    skit_interp_options io;
                    interp_options(o, n, s, o->degree[0], &io);
                    srow *rw = &rows[*count];
                    cli_progress("%s n = %zu r = %zu m = %zu", kernel_names[kk], n, o->r[ir], o->band[im]);
                    int st = skit_sparse_lowrank_study(kernel, spike, n, o->r[ir], o->band[im], &io,
                                                       o->norm ? SKIT_NORM_LANCZOS : SKIT_NORM_DENSE_SVD, &rw->e);
                    if (st != SKIT_OK) return st;
                    rw->kernel = kernel_names[kk];
                    rw->interp = interp_names[s];
                    rw->n = n;
                    rw->r = o->r[ir];
                    rw->m = o->band[im];
                    size_t other = o->vs == VS_R ? im : ir, nother = o->vs == VS_R ? o->nband : o->nr;
                    rw->key.series = (((size_t)kk * nschemes + scheme_index) * o->nn + in) * nother + other;
                    rw->key.x = o->vs == VS_R ? (double)rw->r : (double)rw->m;
                    (*count)++;
                }
        scheme_index++;
    }
    return SKIT_OK;
}

static int sparse_write(const options *o, srow *rows, size_t count)
{
    char titles[6000], vars[6200];
    size_t nseries = sort_series(rows, count, sizeof *rows, o, sparse_title, titles, sizeof titles);
    snprintf(vars, sizeof vars, "xcol='%s'; nseries=%zu; titles='%s'", o->vs == VS_R ? "r" : "m", nseries,
             titles);
    cli_table t;
    cli_table_init(&t, sparse_columns);
    cli_table_comment(&t, "Algorithm 1 (SKI to go Faster): T = T_smooth + T_spike approximated by band_m (1-D convolution, m diagonals) + W A W^T (SKI)");
    cli_table_comment(&t, "k = kernel + spike, spike(t) = %g exp(-|t| / %g) (sharp near the diagonal: not differentiable at 0, decays within a few lags)",
                      o->spike_variance, o->spike_lengthscale);
    interval_comment(&t, o);
    cli_table_comment(&t, "band_only = ||T - band_m(T)||; lowrank_only = ||T - W A W^T|| (A from the whole kernel); sparse_lowrank = ||T - band_m(T_spike) - W A_smooth W^T|| (split known, as the paper's analysis assumes)");
    cli_table_comment(&t, "sparse_lowrank_fit = ||R - band_m(mean of R along each diagonal)||, R = T - W A W^T (split unknown: the band fitted by least squares to what SKI misses)");
    cli_table_comment(&t, "norms: %s", o->norm ? "Lanczos (dense matrices)" : "dense SVD");
    kernel_comment(&t, o);
    for (size_t i = 0; i < count; i++) {
        const srow *rw = &rows[i];
        const skit_sparse_lowrank_errors *e = &rw->e;
        num(&t, (double)rw->key.series);
        txt(&t, rw->kernel);
        txt(&t, rw->interp);
        double v[] = {(double)rw->n, (double)rw->r, (double)rw->m, e->t_norm, e->band_only,
                      e->lowrank_only, e->sparse_lowrank, e->sparse_lowrank_fit,
                      e->spike_outside_band, e->smooth_ski, e->band_only / e->t_norm,
                      e->lowrank_only / e->t_norm, e->sparse_lowrank / e->t_norm,
                      e->sparse_lowrank_fit / e->t_norm};
        for (size_t j = 0; j < sizeof v / sizeof v[0]; j++) num(&t, v[j]);
        cli_table_end_row(&t);
    }
    int status = cli_table_emit(&t, &o->common, o->argc, o->argv,
                                "absolute spectral norms (kernel units); rel_* = norm / ||T||_2",
                                "ski_sparse_lowrank", vars);
    cli_table_free(&t);
    return status;
}

static int run_sparse(options *o)
{
    size_t nkernels = 0, nschemes = 0, count = 0;
    for (int k = 0; k < 6; k++) nkernels += o->kernels[k] != 0;
    for (int s = 0; s < 5; s++) nschemes += o->interps[s] != 0;
    size_t total = nkernels * nschemes * o->nn * o->nr * o->nband;
    srow *rows = calloc(total ? total : 1, sizeof *rows);
    if (!rows) return cli_failure("out of memory");
    skit_kernel *spike = NULL;
    int st = skit_kernel_exp_cosine_create(&spike, o->spike_variance, o->spike_lengthscale, 0.0);
    cli_progress_start(&o->common);
    for (int kk = 0; kk < 6 && st == SKIT_OK; kk++) {
        if (!o->kernels[kk]) continue;
        skit_kernel *kernel;
        skit_mlp *mlp;
        st = make_kernel(o, kk, o->common.seed, &kernel, &mlp);
        if (st == SKIT_OK) st = sparse_rows(o, kk, kernel, spike, nschemes, rows, &count);
        skit_kernel_destroy(kernel);
        skit_mlp_destroy(mlp);
    }
    cli_progress_done();
    skit_kernel_destroy(spike);
    int status = st == SKIT_OK ? sparse_write(o, rows, count) : cli_library_error(st);
    free(rows);
    return status;
}

/* ---- study: extrapolation ------------------------------------------------------------------ */

/* relative L2 error of b against a over the lags lo <= |t| <= hi (t integer) */
static double rel_l2(size_t count, const double *t, const double *a, const double *b, double lo,
                     double hi, double *max_abs)
{
    double num2 = 0, den = 0, mx = 0;
    for (size_t i = 0; i < count; i++) {
        double at = fabs(t[i]);
        if (at < lo || at > hi) continue;
        double d = b[i] - a[i];
        num2 += d * d;
        den += a[i] * a[i];
        if (fabs(d) > mx) mx = fabs(d);
    }
    if (max_abs) *max_abs = mx;
    return den > 0 ? sqrt(num2 / den) : (num2 > 0 ? INFINITY : 0);
}

static const char *const extrap_columns[] = {
    "target", "model", "n_train", "n_eval", "parameters", "train_rel_l2", "extrap_rel_l2",
    "extrap_max_abs", "target_extrap_l2", "matrix_rel_error_train", "matrix_rel_error_eval", NULL};

/* The lags and kernel values of the extrapolation study: fitted on the
 * ctrain = 2 n_train - 1 lags ttrain, evaluated on the ceval = 2 n_eval - 1
 * lags t. */
typedef struct extrapolation {
    size_t ntrain, neval, ctrain, ceval;
    double *t, *ytarget, *ypwl, *ymlp, *ttrain, *ytrain, *knots;
} extrapolation;

static void extrapolation_free(extrapolation *x)
{
    free(x->t);
    free(x->ytarget);
    free(x->ypwl);
    free(x->ymlp);
    free(x->ttrain);
    free(x->ytrain);
    free(x->knots);
}

static int extrapolation_init(extrapolation *x, const options *o)
{
    x->ntrain = o->n_train;
    x->neval = o->n_train * o->factor;
    x->ctrain = 2 * x->ntrain - 1;
    x->ceval = 2 * x->neval - 1;
    size_t ce = x->ceval, ct = x->ctrain;
    x->t = malloc(ce * sizeof(double));
    x->ytarget = malloc(ce * sizeof(double));
    x->ypwl = malloc(ce * sizeof(double));
    x->ymlp = malloc(ce * sizeof(double));
    x->ttrain = malloc(ct * sizeof(double));
    x->ytrain = malloc(ct * sizeof(double));
    x->knots = malloc(2 * o->knots * sizeof(double));
    if (!x->t || !x->ytarget || !x->ypwl || !x->ymlp || !x->ttrain || !x->ytrain || !x->knots) {
        extrapolation_free(x);
        return cli_failure("out of memory");
    }
    for (size_t i = 0; i < ce; i++) x->t[i] = (double)i - (double)(x->neval - 1);
    for (size_t i = 0; i < ct; i++) x->ttrain[i] = (double)i - (double)(x->ntrain - 1);
    return CLI_OK;
}

static void extrapolation_comments(cli_table *t, cli_table *curves, const options *o, size_t ntrain)
{
    cli_table_comment(t, "inverse time warp (SKI to go Faster 3.2.2): k(t) = f(sign(t) lambda^|t|), f piecewise linear on %zu knots per side on [-1, 1], f(0) = 0, lambda = %g", o->knots, o->lambda);
    cli_table_comment(t, "fitted = least squares on all integer lags |t| <= %zu (n_train - 1): warped-linear over its 2K knot values; mlp-rpe = RPE(t) lambda^|t| with an MLP (width %zu, %zu hidden layers, %s, RMS norm) whose hidden layers keep their seeded PyTorch init and whose output layer is the least-squares solution (random features)",
                      ntrain - 1, o->rpe_width, o->rpe_layers, activation_names[o->activation]);
    cli_table_comment(t, "train_rel_l2 over |t| < n_train; extrap_rel_l2 and extrap_max_abs over n_train <= |t| < n_eval = %zu n_train; target_extrap_l2 = ||target|| over that range; matrix_rel_error_* = ||T_target - T_model||_2 / ||T_target||_2 at n = n_train and n = n_eval (Lanczos on FFT matvecs)", o->factor);
    cli_table_comment(t, "the tnn target is RPE(t) lambda^|t| with a GeLU/SiLU/ReLU MLP (--activation) drawn from seed + 1, so it is not one of the fitted MLPs");
    kernel_comment(t, o);
    cli_table_comment(curves, "k(t) of each target and of the two fits; |t| < n_train = %zu was fitted", ntrain);
}

/* The two rows of one fitted model pair (warped-linear, mlp-rpe) against
 * target kernel kk. */
static int extrapolation_rows(cli_table *t, const options *o, const extrapolation *x, int kk,
                              const skit_kernel *target, const skit_kernel *pwl, const skit_kernel *mk)
{
    for (int model = 0; model < 2; model++) {
        const skit_kernel *fitted = model == 0 ? pwl : mk;
        const double *y = model == 0 ? x->ypwl : x->ymlp;
        double dtr, rtr, dev, rev, mx;
        int st = skit_kernel_matrix_error(fitted, target, x->ntrain, &dtr, &rtr);
        if (st == SKIT_OK) st = skit_kernel_matrix_error(fitted, target, x->neval, &dev, &rev);
        if (st != SKIT_OK) return st;
        double tr = rel_l2(x->ceval, x->t, x->ytarget, y, 0, (double)(x->ntrain - 1), NULL);
        double ex = rel_l2(x->ceval, x->t, x->ytarget, y, (double)x->ntrain, (double)(x->neval - 1), &mx);
        double tail = 0;
        for (size_t i = 0; i < x->ceval; i++)
            if (fabs(x->t[i]) >= (double)x->ntrain) tail += x->ytarget[i] * x->ytarget[i];
        txt(t, kernel_names[kk]);
        txt(t, model == 0 ? "warped-linear" : "mlp-rpe");
        num(t, (double)x->ntrain);
        num(t, (double)x->neval);
        num(t, model == 0 ? (double)(2 * o->knots) : (double)(o->rpe_width + 1));
        double v[] = {tr, ex, mx, sqrt(tail), dtr / rtr, dev / rev};
        for (size_t j = 0; j < sizeof v / sizeof v[0]; j++) num(t, v[j]);
        cli_table_end_row(t);
    }
    return SKIT_OK;
}

/* Fit both models to target kernel kk (the target_index-th) and add their
 * rows and curves. */
static int extrapolate_target(cli_table *t, cli_table *curves, const options *o, extrapolation *x,
                              int kk, int target_index)
{
    skit_kernel *target = NULL, *pwl = NULL, *mk = NULL;
    skit_mlp *tmlp = NULL, *fitted = NULL;
    int st = make_kernel(o, kk, o->common.seed + 1, &target, &tmlp);
    if (st == SKIT_OK) st = skit_kernel_eval(target, x->ctrain, x->ttrain, x->ytrain);
    if (st == SKIT_OK) st = skit_kernel_eval(target, x->ceval, x->t, x->ytarget);
    if (st == SKIT_OK) st = skit_warped_linear_fit(o->knots, o->lambda, x->ctrain, x->ttrain, x->ytrain, x->knots);
    if (st == SKIT_OK) st = skit_kernel_warped_linear_create(&pwl, o->knots, x->knots, o->lambda);
    if (st == SKIT_OK)
        st = skit_tnn_rpe_fit(&fitted, o->rpe_width, o->rpe_layers, (skit_activation)o->activation,
                              SKIT_NORM_RMS, o->common.seed, o->lambda, x->ctrain, x->ttrain, x->ytrain);
    if (st == SKIT_OK) st = skit_kernel_tnn_create(&mk, fitted, 0, o->lambda, (skit_activation)o->activation);
    if (st == SKIT_OK) st = skit_kernel_eval(pwl, x->ceval, x->t, x->ypwl);
    if (st == SKIT_OK) st = skit_kernel_eval(mk, x->ceval, x->t, x->ymlp);
    if (st == SKIT_OK) st = extrapolation_rows(t, o, x, kk, target, pwl, mk);
    for (size_t i = 0; i < x->ceval && st == SKIT_OK; i++) {
        double v[] = {(double)target_index, x->t[i], x->ytarget[i], x->ypwl[i], x->ymlp[i]};
        cli_table_row_numbers(curves, v, 5);
    }
    skit_kernel_destroy(target);
    skit_kernel_destroy(pwl);
    skit_kernel_destroy(mk);
    skit_mlp_destroy(tmlp);
    skit_mlp_destroy(fitted);
    return st;
}

static int run_extrapolation(options *o)
{
    static const char *const curve_columns[] = {"target_index", "t", "target", "warped_linear", "mlp_rpe", NULL};
    extrapolation x;
    if (extrapolation_init(&x, o) != CLI_OK) return CLI_FAILED;
    cli_table t, curves;
    cli_table_init(&t, extrap_columns);
    cli_table_init(&curves, curve_columns);
    extrapolation_comments(&t, &curves, o, x.ntrain);
    cli_progress_start(&o->common);
    int target_index = 0, st = SKIT_OK;
    char target_titles[512] = "";
    for (int kk = 0; kk < 6 && st == SKIT_OK; kk++) {
        if (!o->kernels[kk]) continue;
        cli_progress("target %s", kernel_names[kk]);
        st = extrapolate_target(&t, &curves, o, &x, kk, target_index++);
        if (st == SKIT_OK && strlen(target_titles) + 32 < sizeof target_titles) {
            strcat(target_titles, kernel_names[kk]);
            strcat(target_titles, " ");
        }
    }
    cli_progress_done();
    int status = st == SKIT_OK ? CLI_OK : cli_library_error(st);
    if (status == CLI_OK)
        status = cli_table_emit(&t, &o->common, o->argc, o->argv,
                                "errors relative to the target (dimensionless); lags in index units", NULL, NULL);
    /* the figure draws the curves: from --curves, or a temporary file */
    char curves_tmp[256] = "";
    const char *curves_path = o->curves;
    int curves_slot = -1; /* the temporary goes if a signal ends the run */
    if (!curves_path && o->common.plot) {
        snprintf(curves_tmp, sizeof curves_tmp, "%s/skit-ski-curves-%ld.tsv", cli_temp_dir(), (long)getpid());
        curves_path = curves_tmp;
        curves_slot = cli_temp_register(curves_tmp);
    }
    if (status == CLI_OK && curves_path)
        status = cli_table_save(&curves, curves_path, o->argc, o->argv, o->common.seed, "k(t) in kernel units, t in lags");
    if (status == CLI_OK && o->common.plot) {
        char vars[1024];
        snprintf(vars, sizeof vars, "ntargets=%d; titles='%s'; ntrain=%zu", target_index, target_titles, x.ntrain);
        status = cli_plot("ski_extrapolation", curves_path, o->common.plot, vars);
    }
    if (curves_tmp[0]) unlink(curves_tmp);
    cli_temp_release(curves_slot);
    cli_table_free(&t);
    cli_table_free(&curves);
    extrapolation_free(&x);
    return status;
}

/* ---- options ------------------------------------------------------------------------------- */

static int parse_interval(const char *text, double *lo, double *hi)
{
    const char *colon = strchr(text, ':');
    char *end;
    if (!colon) return cli_usage_error("--interval: expected LO:HI, got '%s'", text);
    *lo = strtod(text, &end);
    if (end != colon || !isfinite(*lo)) return cli_usage_error("--interval: LO in '%s' is not a finite number", text);
    *hi = strtod(colon + 1, &end);
    if (*end != '\0' || end == colon + 1 || !isfinite(*hi))
        return cli_usage_error("--interval: HI in '%s' is not a finite number", text);
    if (!(*lo < *hi))
        return cli_usage_error("--interval: empty interval [%g, %g]: need LO < HI", *lo, *hi);
    return CLI_OK;
}

/* What is swept (sizes, kernels, schemes) and how: CLI_OK, CLI_USAGE
 * (reported), -1 if not such an option. */
static int apply_sweep_option(options *o, int opt, const char *arg)
{
    switch (opt) {
    case OPT_N:
        free(o->n);
        o->n = NULL;
        return cli_parse_size_list("--n", arg, 2, 8192, &o->n, &o->nn);
    case OPT_R:
        free(o->r);
        o->r = NULL;
        return cli_parse_size_list("--r", arg, 1, 8192, &o->r, &o->nr);
    case OPT_DEGREE:
        free(o->degree);
        o->degree = NULL;
        return cli_parse_size_list("--degree", arg, 0, 1000, &o->degree, &o->ndegree);
    case OPT_KERNEL:
        memset(o->kernels, 0, sizeof o->kernels);
        return cli_parse_choice_list("--kernel", arg, kernel_names, o->kernels);
    case OPT_INTERP:
        memset(o->interps, 0, sizeof o->interps);
        return cli_parse_choice_list("--interp", arg, interp_names, o->interps);
    case OPT_STUDY: return cli_parse_choice("--study", arg, study_names, &o->study);
    case OPT_VS:
        o->vs_given = 1;
        return cli_parse_choice("--vs", arg, vs_names, &o->vs);
    case OPT_INTERVAL:
        o->has_interval = 1;
        return parse_interval(arg, &o->lo, &o->hi);
    }
    return -1;
}

/* The options of one study only (check_options refuses them in another):
 * CLI_OK, CLI_USAGE (reported), -1 if not such an option. */
static int apply_study_option(options *o, int opt, const char *arg)
{
    switch (opt) {
    case OPT_PINV:
        o->only_theorem1 = "--pinv-rtol";
        return cli_parse_double("--pinv-rtol", arg, 0, 1, 0, 1, &o->pinv_rtol);
    case OPT_BAND:
        free(o->band);
        o->band = NULL;
        o->only_sparse = "--band";
        return cli_parse_size_list("--band", arg, 0, 16383, &o->band, &o->nband);
    case OPT_SPIKE_VARIANCE:
        o->only_sparse = "--spike-variance";
        return cli_parse_double("--spike-variance", arg, 0, INFINITY, 1, 1, &o->spike_variance);
    case OPT_SPIKE_LENGTHSCALE:
        o->only_sparse = "--spike-lengthscale";
        return cli_parse_double("--spike-lengthscale", arg, 0, INFINITY, 1, 1, &o->spike_lengthscale);
    case OPT_N_TRAIN:
        o->only_extrap = "--n-train";
        return cli_parse_size("--n-train", arg, 8, 65536, &o->n_train);
    case OPT_FACTOR:
        o->only_extrap = "--factor";
        return cli_parse_size("--factor", arg, 2, 64, &o->factor);
    case OPT_CURVES:
        o->curves = arg;
        o->only_extrap = "--curves";
        return CLI_OK;
    }
    return -1;
}

/* One option (cli_options.apply): CLI_OK, CLI_USAGE (reported), -1 if not
 * one of ski-bound's own. The rest are the kernels' parameters. */
static int apply_option(void *ctx, int opt, const char *arg)
{
    options *o = ctx;
    int st = apply_sweep_option(o, opt, arg);
    if (st == -1) st = apply_study_option(o, opt, arg);
    if (st != -1) return st;
    switch (opt) {
    case OPT_VARIANCE: return cli_parse_double("--variance", arg, 0, INFINITY, 1, 1, &o->variance);
    case OPT_LENGTHSCALE: return cli_parse_double("--lengthscale", arg, 0, INFINITY, 1, 1, &o->lengthscale);
    case OPT_SHIFT: return cli_parse_double("--shift", arg, -INFINITY, INFINITY, 1, 1, &o->shift);
    case OPT_FREQUENCY: return cli_parse_double("--frequency", arg, 0, INFINITY, 0, 1, &o->frequency);
    case OPT_LAMBDA: return cli_parse_double("--lambda", arg, 0, 1, 1, 1, &o->lambda);
    case OPT_GAMMA: return cli_parse_double("--gamma", arg, 0, 1, 1, 1, &o->gamma);
    case OPT_KNOTS: return cli_parse_size("--knots", arg, 1, 4096, &o->knots);
    case OPT_RPE_WIDTH: return cli_parse_size("--rpe-width", arg, 1, 1024, &o->rpe_width);
    case OPT_RPE_LAYERS: return cli_parse_size("--rpe-layers", arg, 0, 16, &o->rpe_layers);
    case OPT_ACTIVATION: return cli_parse_choice("--activation", arg, activation_names, &o->activation);
    case OPT_NORM: return cli_parse_choice("--norm", arg, norm_names, &o->norm);
    }
    return -1;
}

/* The combinations of options and the sizes, before any work. */
static int check_options(options *o)
{
    if (o->only_sparse && o->study != STUDY_SPARSE)
        return cli_usage_error("%s: only with --study sparse-lowrank", o->only_sparse);
    if (o->only_extrap && o->study != STUDY_EXTRAP)
        return cli_usage_error("%s: only with --study extrapolation", o->only_extrap);
    if (o->only_theorem1 && o->study != STUDY_THEOREM1)
        return cli_usage_error("%s: only with --study theorem1", o->only_theorem1);
    if (o->vs_given) {
        if (o->study == STUDY_THEOREM1 && o->vs == VS_M)
            return cli_usage_error("--vs: m only with --study sparse-lowrank (theorem1: r or n)");
        if (o->study == STUDY_SPARSE && o->vs == VS_N)
            return cli_usage_error("--vs: n only with --study theorem1 (sparse-lowrank: r or m)");
    } else {
        o->vs = o->study == STUDY_THEOREM1 && o->nr == 1 && o->nn > 1 ? VS_N : VS_R;
    }

    if (o->study != STUDY_EXTRAP) {
        size_t nmin = o->n[0], nmax = o->n[0];
        for (size_t i = 1; i < o->nn; i++) {
            if (o->n[i] < nmin) nmin = o->n[i];
            if (o->n[i] > nmax) nmax = o->n[i];
        }
        size_t rmax = 0, rmin = o->r[0];
        for (size_t i = 0; i < o->nr; i++) {
            if (o->r[i] < 2) return cli_usage_error("--r: r = %zu out of range: need 2 <= r <= n", o->r[i]);
            if (o->r[i] > rmax) rmax = o->r[i];
            if (o->r[i] < rmin) rmin = o->r[i];
        }
        if (rmax > nmin)
            return cli_usage_error("--r: r = %zu out of range: need 2 <= r <= n (= %zu)", rmax, nmin);
        if (o->interps[SKIT_INTERP_CUBIC] && rmin < 3)
            return cli_usage_error("--r: r = %zu out of range: cubic interpolation needs r >= 3", rmin);
        if (o->interps[SKIT_INTERP_LAGRANGE])
            for (size_t i = 0; i < o->ndegree; i++) {
                size_t max = SKIT_INTERP_MAX_DEGREE < rmin - 1 ? SKIT_INTERP_MAX_DEGREE : rmin - 1;
                if (o->degree[i] < 1 || o->degree[i] > max)
                    return cli_usage_error("--degree: N = %zu out of range: need 1 <= N <= min(r-1, %d) (= %zu)",
                                           o->degree[i], SKIT_INTERP_MAX_DEGREE, max);
            }
        if (o->study == STUDY_SPARSE)
            for (size_t i = 0; i < o->nband; i++)
                if (o->band[i] != 0 && (o->band[i] % 2 == 0 || o->band[i] > 2 * nmin - 1))
                    return cli_usage_error("--band: m = %zu out of range: need m = 0 or odd m <= 2n - 1 (= %zu)",
                                           o->band[i], 2 * nmin - 1);
        /* the dense evaluators hold about 11 n^2 doubles */
        if (skit_memory_check(11 * nmax * nmax * sizeof(double), "--n: dense n x n matrices") != SKIT_OK)
            return cli_usage_error("--n: %s", skit_last_error());
    } else if (o->curves && o->common.output && !strcmp(o->curves, o->common.output)) {
        return cli_usage_error("--curves: must differ from -o");
    }
    if (cli_check_output_path("--curves", o->curves) != CLI_OK) return CLI_USAGE;
    if (cli_common_validate(&o->common) != CLI_OK) return CLI_USAGE;
    return CLI_OK;
}

static int parse_options(int argc, char **argv, options *o)
{
    static const struct option longopts[] = {
        CLI_COMMON_LONGOPTS,
        {"n", required_argument, NULL, OPT_N},
        {"r", required_argument, NULL, OPT_R},
        {"kernel", required_argument, NULL, OPT_KERNEL},
        {"interp", required_argument, NULL, OPT_INTERP},
        {"degree", required_argument, NULL, OPT_DEGREE},
        {"variance", required_argument, NULL, OPT_VARIANCE},
        {"lengthscale", required_argument, NULL, OPT_LENGTHSCALE},
        {"shift", required_argument, NULL, OPT_SHIFT},
        {"frequency", required_argument, NULL, OPT_FREQUENCY},
        {"lambda", required_argument, NULL, OPT_LAMBDA},
        {"knots", required_argument, NULL, OPT_KNOTS},
        {"rpe-width", required_argument, NULL, OPT_RPE_WIDTH},
        {"rpe-layers", required_argument, NULL, OPT_RPE_LAYERS},
        {"activation", required_argument, NULL, OPT_ACTIVATION},
        {"interval", required_argument, NULL, OPT_INTERVAL},
        {"gamma", required_argument, NULL, OPT_GAMMA},
        {"pinv-rtol", required_argument, NULL, OPT_PINV},
        {"norm", required_argument, NULL, OPT_NORM},
        {"vs", required_argument, NULL, OPT_VS},
        {"study", required_argument, NULL, OPT_STUDY},
        {"band", required_argument, NULL, OPT_BAND},
        {"spike-variance", required_argument, NULL, OPT_SPIKE_VARIANCE},
        {"spike-lengthscale", required_argument, NULL, OPT_SPIKE_LENGTHSCALE},
        {"n-train", required_argument, NULL, OPT_N_TRAIN},
        {"factor", required_argument, NULL, OPT_FACTOR},
        {"curves", required_argument, NULL, OPT_CURVES},
        {NULL, 0, NULL, 0}};
    const cli_options parser = {.longopts = longopts, .usage = usage, .common = &o->common,
                                .apply = apply_option, .ctx = o};
    int rc = cli_parse_options(&parser, argc, argv);
    if (rc != CLI_OK) return rc;
    return check_options(o);
}

int cmd_ski_bound(int argc, char **argv)
{
    options o;
    memset(&o, 0, sizeof o);
    cli_common_init(&o.common);
    o.argc = argc;
    o.argv = argv;
    o.variance = 1;
    o.lengthscale = 16;
    o.shift = 4;
    o.frequency = 0.1;
    o.lambda = 0.99;
    o.gamma = 0.99;
    o.pinv_rtol = -1;
    o.spike_variance = 1;
    o.spike_lengthscale = 2;
    o.knots = 16;
    o.rpe_width = 32;
    o.rpe_layers = 2;
    o.n_train = 512;
    o.factor = 4;
    o.activation = SKIT_ACTIVATION_GELU;
    o.kernels[SKIT_KERNEL_MATERN52] = 1;
    o.interps[SKIT_INTERP_LINEAR] = 1;
    if (cli_parse_size_list("--n", "256", 2, 8192, &o.n, &o.nn) != CLI_OK ||
        cli_parse_size_list("--r", "8,16,32,64,128", 1, 8192, &o.r, &o.nr) != CLI_OK ||
        cli_parse_size_list("--degree", "3", 0, 1000, &o.degree, &o.ndegree) != CLI_OK ||
        cli_parse_size_list("--band", "0,9,33", 0, 16383, &o.band, &o.nband) != CLI_OK) {
        free_options(&o);
        return CLI_FAILED;
    }
    int status = parse_options(argc, argv, &o);
    if (status != CLI_OK) {
        free_options(&o);
        return status == CLI_HELP ? CLI_OK : status;
    }
    cli_apply_threads(&o.common);
    if (o.study == STUDY_THEOREM1) status = run_theorem1(&o);
    else if (o.study == STUDY_SPARSE) status = run_sparse(&o);
    else status = run_extrapolation(&o);
    free_options(&o);
    return status;
}
