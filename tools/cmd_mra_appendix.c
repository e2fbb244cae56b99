/* cmd_mra_appendix.c — `skit mra-appendix`: the MRA paper's appendix
 * measurements on Q, K: App. A.5's Haar smoothness bound (haar-bound) and
 * App. A.2's sparse + low-rank view of MRA-2 (sparse-lowrank), on
 * synthetic attention patterns or on user Q, K. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "commands.h"
#include "cli/table.h"

static const char *const pattern_names[] = {"diagonal", "vertical", "block", "random", NULL};

static const char *usage =
    "usage: skit mra-appendix <haar-bound|sparse-lowrank|refine> [options]\n"
    "MRA appendix measurements on P = scale Q K^T (scale 1/sqrt(d)):\n"
    "  haar-bound      App. A.5: for each Haar level and p, every column j of P\n"
    "                  (side columns) and every row (side rows, Q and K swapped):\n"
    "                  ||H_k^{P,j}||_1 <= (sum_i ||(H_k^Q)_i||_p) ||K_j||_q; one row per\n"
    "                  level x p x side: violations, min and median margin rhs/lhs\n"
    "  sparse-lowrank  App. A.2: MRA-2 with R = {b, 1} as S + L on A = exp(P); per\n"
    "                  sparsity: the relative errors of the optimal scattered S, the\n"
    "                  optimal block S (largest mu'), MRA-2's S (largest mu^2), MRA-2's\n"
    "                  S + L, ||L||_F, the supports' overlap, min (mu' - mu^2)/mu',\n"
    "                  and S on the squares of smallest mu^2 (block_reversed: a\n"
    "                  selection known to be poor, the proxy's control)\n"
    "  refine          Figs. 3/6: Algorithm 1 with R = {16, 4, 1} on A = exp(P): the\n"
    "                  approximation after each stage (form (5)), entry by entry\n"
    "                  (n a power of two; 2n/16 squares refined to 4, 2n/4 to 1)\n\n"
    "options:\n"
    "  --q FILE, --k FILE  Q and K (n x d, .npy or TSV) instead of a pattern\n"
    "  --pattern P       diagonal (local smooth tokens), vertical (sink keys),\n"
    "                    block (tokens in 8 segments sharing a latent), random\n"
    "                    (i.i.d. tokens) (default diagonal)\n"
    "  --n N             tokens (default 512; patterns only)\n"
    "  --d D             head width (default 32; patterns only)\n"
    "  --beta B          inverse temperature: a token's logit with itself ~ B\n"
    "                    (default 4; patterns only)\n"
    "  --levels LIST     haar-bound: Haar levels (default 1,2,3)\n"
    "  --p LIST          haar-bound: p values >= 1, inf allowed (default 1,2,inf)\n"
    "  --block B         sparse-lowrank: square side b (default 16; divides n)\n"
    "  --sparsity LIST   sparse-lowrank: fractions of entries outside S, in [0, 1)\n"
    "                    (default 0.8,0.9,0.95)\n"
    "  --supports PREFIX sparse-lowrank: write the supports at the first sparsity\n"
    "                    to PREFIX.entry.tsv (n x n), PREFIX.optimal.tsv and\n"
    "                    PREFIX.proxy.tsv ((n/b) x (n/b), row block x, column block y)\n" CLI_COMMON_HELP
    "  -h, --help        this message\n\n"
    "examples:\n"
    "  skit mra-appendix haar-bound --pattern diagonal -o haar.tsv\n"
    "  skit mra-appendix sparse-lowrank --pattern block --supports fig8 -o sl.tsv\n";

typedef struct appendix_options {
    cli_common common;
    int mode, pattern;
    const char *q_path, *k_path, *supports;
    size_t n, d, block;
    double beta;
    size_t *levels, nlevels;
    double *p, *sparsity;
    size_t np, nsparsity;
    skit_matrix q, k;
    const char *levels_text, *p_text, *sparsity_text; /* the lists as given */
} appendix_options;

/* --p: numbers >= 1 or "inf" */
static int parse_p(const char *text, appendix_options *o)
{
    size_t cap = 1;
    for (const char *s = text; *s; s++) cap += *s == ',';
    o->p = malloc(cap * sizeof(double));
    if (!o->p) return cli_failure("out of memory");
    const char *s = text;
    for (o->np = 0; o->np < cap; o->np++) {
        char *end;
        double v = strncmp(s, "inf", 3) ? strtod(s, &end) : (end = (char *)s + 3, INFINITY);
        if (end == s || (*end && *end != ',') || !(v >= 1))
            return cli_usage_error("--p: '%s': need comma-separated numbers >= 1 or inf", text);
        o->p[o->np] = v;
        s = *end ? end + 1 : end;
    }
    return CLI_OK;
}

/* block pattern: 8 segments, token i = sqrt(beta) d^(-1/4) (c_segment + 0.3 z_i) / sqrt(1.09),
 * Q = K, so that scale q_i . k_i ~ beta */
static int block_pattern(appendix_options *o)
{
    size_t n = o->n, d = o->d, seg = (n + 7) / 8;
    o->q.data = malloc(n * d * sizeof(double));
    o->k.data = malloc(n * d * sizeof(double));
    double *c = malloc(8 * d * sizeof(double));
    if (!o->q.data || !o->k.data || !c) {
        free(c);
        return cli_failure("out of memory");
    }
    skit_rng rng;
    skit_rng_seed(&rng, o->common.seed);
    skit_rng_fill_normal(&rng, c, 8 * d);
    double f = sqrt(o->beta) * pow((double)d, -0.25) / sqrt(1.09);
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < d; j++)
            o->q.data[i + j * n] = o->k.data[i + j * n] = f * (c[(i / seg) * d + j] + 0.3 * skit_rng_normal(&rng));
    free(c);
    return CLI_OK;
}

static int make_inputs(appendix_options *o)
{
    if (o->q_path) {
        if (cli_read_matrix("--q", o->q_path, &o->q) != CLI_OK || cli_read_matrix("--k", o->k_path, &o->k) != CLI_OK)
            return CLI_USAGE;
        if (o->q.rows != o->k.rows || o->q.cols != o->k.cols)
            return cli_usage_error("--q, --k: shapes %zu x %zu and %zu x %zu differ", o->q.rows, o->q.cols, o->k.rows,
                                   o->k.cols);
        o->n = o->q.rows;
        o->d = o->q.cols;
        return CLI_OK;
    }
    o->q.rows = o->k.rows = o->n;
    o->q.cols = o->k.cols = o->d;
    o->q.ndim = o->k.ndim = 2;
    if (o->pattern == 2) return block_pattern(o);
    skit_attention_synthetic spec;
    skit_attention_synthetic_init(&spec);
    spec.seed = o->common.seed;
    spec.inverse_temperature = o->beta;
    if (o->pattern == 1) {
        spec.sinks = 8;
        spec.sink_strength = 1.5;
    } else if (o->pattern == 3) {
        spec.correlation_length = 0;
    }
    o->q.data = malloc(o->n * o->d * sizeof(double));
    o->k.data = malloc(o->n * o->d * sizeof(double));
    if (!o->q.data || !o->k.data) return cli_failure("out of memory");
    int st = skit_attention_synthetic_generate(&spec, o->n, o->d, 1, o->q.data, o->n, o->k.data, o->n, NULL, o->n);
    return st == SKIT_OK ? CLI_OK : cli_library_error(st);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *x, size_t count)
{
    qsort(x, count, sizeof(double), cmp_double);
    return count % 2 ? x[count / 2] : 0.5 * (x[count / 2 - 1] + x[count / 2]);
}

static int haar_mode(const appendix_options *o, cli_table *t)
{
    static const char *const names[] = {"level", "p", "side", "count", "violations", "min_margin",
                                        "median_margin", "max_lhs", NULL};
    cli_table_init(t, names);
    double *lhs = malloc(2 * o->n * sizeof(double)), *rhs = lhs ? lhs + o->n : NULL;
    if (!lhs) return cli_failure("out of memory");
    int rc = CLI_OK;
    for (size_t l = 0; rc == CLI_OK && l < o->nlevels; l++)
        for (size_t pi = 0; rc == CLI_OK && pi < o->np; pi++)
            for (int side = 0; rc == CLI_OK && side < 2; side++) {
                cli_progress("level %zu, p = %g, %s", o->levels[l], o->p[pi], side ? "rows" : "columns");
                int st = skit_mra_haar_bound(o->n, o->d, o->q.data, o->n, o->k.data, o->n, o->levels[l], o->p[pi],
                                             side, lhs, rhs);
                if (st != SKIT_OK) {
                    rc = cli_library_error(st);
                    break;
                }
                size_t bad = 0, cnt = 0;
                double mx = 0;
                for (size_t j = 0; j < o->n; j++) {
                    bad += lhs[j] > rhs[j] * (1 + 1e-12);
                    mx = fmax(mx, lhs[j]);
                    if (lhs[j] > 0) rhs[cnt++] = rhs[j] / lhs[j]; /* margins, in place */
                }
                double lo = INFINITY;
                for (size_t j = 0; j < cnt; j++) lo = fmin(lo, rhs[j]);
                double med = cnt ? median(rhs, cnt) : NAN;
                cli_table_rowf(t, "%zu\t%g\t%s\t%zu\t%zu\t%.6g\t%.6g\t%.6g", o->levels[l], o->p[pi],
                               side ? "rows" : "columns", o->n, bad, lo, med, mx);
            }
    free(lhs);
    return rc;
}

/* a support as rows "i j support" (i: query index or block, j: key) */
static int write_support(const appendix_options *o, int argc, char **argv, const char *what,
                         const unsigned char *s, size_t side)
{
    char path[4096];
    snprintf(path, sizeof path, "%s.%s.tsv", o->supports, what);
    static const char *const names[] = {"i", "j", "support", NULL};
    cli_table t;
    cli_table_init(&t, names);
    cli_table_comment(&t, "%s support at the first sparsity: %zu x %zu, 1 = in S", what, side, side);
    for (size_t x = 0; x < side; x++)
        for (size_t y = 0; y < side; y++) cli_table_rowf(&t, "%zu\t%zu\t%d", x, y, s[x * side + y]);
    int rc = cli_table_save(&t, path, argc, argv, o->common.seed, NULL);
    cli_table_free(&t);
    return rc;
}

static int sparse_mode(const appendix_options *o, cli_table *t, int argc, char **argv)
{
    static const char *const names[] = {"block", "sparsity", "squares", "nnz", "entry_optimal", "block_optimal",
                                        "block_proxy", "mra", "lowrank_norm", "support_overlap",
                                        "min_jensen_gap", "block_reversed", NULL};
    cli_table_init(t, names);
    if (o->n % o->block) return cli_usage_error("--block: %zu does not divide n = %zu", o->block, o->n);
    size_t nb = o->n / o->block;
    unsigned char *sup = o->supports ? malloc(2 * nb * nb + o->n * o->n) : NULL;
    if (o->supports && !sup) return cli_failure("out of memory");
    int rc = CLI_OK;
    for (size_t s = 0; rc == CLI_OK && s < o->nsparsity; s++) {
        size_t m = (size_t)llround((1 - o->sparsity[s]) * (double)(nb * nb));
        cli_progress("sparsity %g (%zu of %zu squares)", o->sparsity[s], m, nb * nb);
        int first = s == 0 && sup;
        skit_mra_sparse_lowrank r;
        int st = skit_mra_sparse_lowrank_evaluate(o->n, o->d, o->q.data, o->n, o->k.data, o->n, 1 / sqrt((double)o->d),
                                                  o->block, m, &r, first ? sup : NULL, first ? sup + nb * nb : NULL,
                                                  first ? sup + 2 * nb * nb : NULL);
        if (st != SKIT_OK) {
            rc = cli_library_error(st);
            break;
        }
        cli_table_rowf(t, "%zu\t%g\t%zu\t%zu\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g", r.block, o->sparsity[s],
                       r.squares, r.nnz, r.entry_optimal, r.block_optimal, r.block_proxy, r.mra, r.lowrank_norm,
                       r.support_overlap, r.min_jensen_gap, r.block_reversed);
    }
    if (rc == CLI_OK && sup) {
        rc = write_support(o, argc, argv, "proxy", sup, nb);
        if (rc == CLI_OK) rc = write_support(o, argc, argv, "optimal", sup + nb * nb, nb);
        if (rc == CLI_OK) rc = write_support(o, argc, argv, "entry", sup + 2 * nb * nb, o->n);
    }
    free(sup);
    return rc;
}

/* mean of P (row-major n x n) over square (x, y) of side sc */
static double square_mean(const double *p, size_t n, size_t sc, size_t x, size_t y)
{
    double m = 0;
    for (size_t i = 0; i < sc; i++)
        for (size_t j = 0; j < sc; j++) m += p[(x * sc + i) * n + y * sc + j];
    return m / (double)(sc * sc);
}

/* Algorithm 1's refinement with R = {s0, s1, 1}: J starts as every square
 * of side s0; the budgets[0] squares with the largest mean logit gain their
 * children of side s1, and the budgets[1] of those children with the
 * largest mean logit gain their entries. stage[t]: the frame subset after t
 * refinements. */
static int refine_subsets(size_t n, const double *p, const size_t *scales, const size_t *budgets,
                          unsigned char *stage[3])
{
    size_t count = skit_mra_frame_count(n), idx;
    memset(stage[0], 0, count);
    for (size_t x = 0; x < n / scales[0]; x++)
        for (size_t y = 0; y < n / scales[0]; y++) {
            if (skit_mra_frame_index(n, scales[0], x, y, &idx) != SKIT_OK) return CLI_FAILED;
            stage[0][idx] = 1;
        }
    size_t parent = scales[0];
    const unsigned char *open = NULL; /* squares at `parent` eligible for refinement */
    for (int t = 0; t < 2; t++) {
        size_t child = scales[t + 1], side = n / parent;
        memcpy(stage[t + 1], stage[t], count);
        double *key = malloc(side * side * sizeof(double));
        if (!key) return cli_failure("out of memory");
        for (size_t x = 0; x < side; x++)
            for (size_t y = 0; y < side; y++) {
                if (skit_mra_frame_index(n, parent, x, y, &idx) != SKIT_OK) return CLI_FAILED;
                key[x * side + y] = (!open || open[idx]) ? square_mean(p, n, parent, x, y) : -INFINITY;
            }
        for (size_t b = 0; b < budgets[t] && b < side * side; b++) {
            size_t best = 0;
            for (size_t c = 1; c < side * side; c++)
                if (key[c] > key[best]) best = c;
            if (key[best] == -INFINITY) break;
            key[best] = -INFINITY;
            size_t f = parent / child, bx = best / side, by = best % side;
            for (size_t u = 0; u < f; u++)
                for (size_t v = 0; v < f; v++) {
                    if (skit_mra_frame_index(n, child, bx * f + u, by * f + v, &idx) != SKIT_OK) return CLI_FAILED;
                    stage[t + 1][idx] = 1;
                }
        }
        free(key);
        open = stage[t + 1];
        parent = child;
    }
    return CLI_OK;
}

static int refine_mode(const appendix_options *o, cli_table *t)
{
    static const char *const names[] = {"i", "j", "A", "stage1", "stage2", "stage3", NULL};
    cli_table_init(t, names);
    size_t n = o->n, scales[3] = {16, 4, 1}, budgets[2] = {o->n / 16 * 2, o->n / 4 * 2};
    if (!skit_mra_frame_count(n) || n < 16)
        return cli_usage_error("--n: %zu: refine needs a power of two >= 16", n);
    size_t count = skit_mra_frame_count(n);
    double *p = malloc(n * n * sizeof(double)), *a = malloc(n * n * sizeof(double));
    double *hat = malloc(3 * n * n * sizeof(double));
    unsigned char *sub = malloc(3 * count);
    int rc = (p && a && hat && sub) ? CLI_OK : cli_failure("out of memory");
    unsigned char *stage[3] = {sub, sub + count, sub + 2 * count};
    if (rc == CLI_OK) {
        double scale = 1 / sqrt((double)o->d), mx = -INFINITY;
        for (size_t i = 0; i < n; i++)
            for (size_t j = 0; j < n; j++) {
                double v = 0;
                for (size_t c = 0; c < o->d; c++) v += o->q.data[i + c * n] * o->k.data[j + c * n];
                p[i * n + j] = scale * v;
                mx = fmax(mx, scale * v);
            }
        for (size_t i = 0; i < n; i++)
            for (size_t j = 0; j < n; j++) a[i + j * n] = exp(p[i * n + j] - mx); /* column-major */
        rc = refine_subsets(n, p, scales, budgets, stage);
    }
    for (int st = 0; rc == CLI_OK && st < 3; st++) {
        int status = skit_mra_frame_mu_form(n, a, n, stage[st], hat + (size_t)st * n * n, n);
        if (status != SKIT_OK) rc = cli_library_error(status);
    }
    for (size_t i = 0; rc == CLI_OK && i < n; i++)
        for (size_t j = 0; j < n; j++)
            cli_table_rowf(t, "%zu\t%zu\t%.6g\t%.6g\t%.6g\t%.6g", i, j, a[i + j * n], hat[i + j * n],
                           hat[n * n + i + j * n], hat[2 * n * n + i + j * n]);
    if (rc == CLI_OK)
        cli_table_comment(t, "R = {16, 4, 1}: stage1 = every 16-square's mean, stage2 = %zu squares refined to 4, "
                             "stage3 = %zu 4-squares refined to entries (largest mean logit); A = exp(P - max P)",
                          budgets[0], budgets[1]);
    free(p);
    free(a);
    free(hat);
    free(sub);
    return rc;
}

/* One option (cli_options.apply). */
static int appendix_option(void *ctx, int opt, const char *arg)
{
    appendix_options *o = ctx;
    switch (opt) {
    case 'Q': o->q_path = arg; return CLI_OK;
    case 'K': o->k_path = arg; return CLI_OK;
    case 'P': return cli_parse_choice("--pattern", arg, pattern_names, &o->pattern);
    case 'n': return cli_parse_size("--n", arg, 2, 8192, &o->n);
    case 'd': return cli_parse_size("--d", arg, 1, 4096, &o->d);
    case 'b': return cli_parse_double("--beta", arg, 0, 1e4, 1, 0, &o->beta);
    case 'L': o->levels_text = arg; return CLI_OK;
    case 'p': o->p_text = arg; return CLI_OK;
    case 'B': return cli_parse_size("--block", arg, 1, 8192, &o->block);
    case 'S': o->sparsity_text = arg; return CLI_OK;
    case 'O': o->supports = arg; return CLI_OK;
    }
    return -1;
}

static int appendix_parse(int argc, char **argv, appendix_options *o)
{
    static const struct option longopts[] = {CLI_COMMON_LONGOPTS,
                                             {"q", required_argument, NULL, 'Q'},
                                             {"k", required_argument, NULL, 'K'},
                                             {"pattern", required_argument, NULL, 'P'},
                                             {"n", required_argument, NULL, 'n'},
                                             {"d", required_argument, NULL, 'd'},
                                             {"beta", required_argument, NULL, 'b'},
                                             {"levels", required_argument, NULL, 'L'},
                                             {"p", required_argument, NULL, 'p'},
                                             {"block", required_argument, NULL, 'B'},
                                             {"sparsity", required_argument, NULL, 'S'},
                                             {"supports", required_argument, NULL, 'O'},
                                             {NULL, 0, NULL, 0}};
    o->levels_text = "1,2,3";
    o->p_text = "1,2,inf";
    o->sparsity_text = "0.8,0.9,0.95";
    const cli_options parser = {.longopts = longopts, .usage = usage, .common = &o->common,
                                .apply = appendix_option, .ctx = o};
    int rc = cli_parse_options(&parser, argc, argv);
    if (rc != CLI_OK) return rc;
    const char *levels = o->levels_text, *p = o->p_text, *sparsity = o->sparsity_text;
    if (!o->q_path != !o->k_path) return cli_usage_error("--q and --k: give both or neither");
    if (cli_parse_size_list("--levels", levels, 1, 30, &o->levels, &o->nlevels) != CLI_OK) return CLI_USAGE;
    if (parse_p(p, o) != CLI_OK) return CLI_USAGE;
    if (cli_parse_double_list_range("--sparsity", sparsity, 0, 1, 0, 1, &o->sparsity, &o->nsparsity) != CLI_OK)
        return CLI_USAGE;
    if (o->supports && cli_check_output_path("--supports", o->supports) != CLI_OK) return CLI_USAGE;
    return cli_common_validate(&o->common);
}

int cmd_mra_appendix(int argc, char **argv)
{
    cli_set_context("skit mra-appendix");
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        if (argc < 2) return cli_usage_error("missing mode: haar-bound, sparse-lowrank or refine (see --help)");
        fputs(usage, stdout);
        return CLI_OK;
    }
    static const char *const modes[] = {"haar-bound", "sparse-lowrank", "refine", NULL};
    appendix_options o;
    memset(&o, 0, sizeof o);
    if (cli_parse_choice("mode", argv[1], modes, &o.mode) != CLI_OK) return CLI_USAGE;
    cli_common_init(&o.common);
    o.n = 512;
    o.d = 32;
    o.beta = 4;
    o.block = 16;
    int rc = appendix_parse(argc - 1, argv + 1, &o);
    if (rc == CLI_OK) rc = make_inputs(&o);
    if (rc == CLI_OK) {
        cli_table t;
        /* O(n^2 d) per stage: n = 16384 runs for minutes */
        cli_progress_start(&o.common);
        cli_progress("%s, n = %zu", o.mode == 0 ? "haar-bound" : o.mode == 1 ? "sparse-lowrank" : "refine", o.n);
        rc = o.mode == 0 ? haar_mode(&o, &t) : o.mode == 1 ? sparse_mode(&o, &t, argc, argv) : refine_mode(&o, &t);
        cli_progress_done();
        if (rc == CLI_OK) {
            cli_table_comment(&t, "%s: n = %zu, d = %zu, %s%s, beta %g, scale 1/sqrt(d)", modes[o.mode], o.n, o.d,
                              o.q_path ? "user Q, K: " : "pattern ", o.q_path ? o.q_path : pattern_names[o.pattern],
                              o.beta);
            rc = cli_table_emit(&t, &o.common, argc, argv, NULL, NULL, NULL);
        }
        cli_table_free(&t);
    }
    skit_matrix_free(&o.q);
    skit_matrix_free(&o.k);
    free(o.levels);
    free(o.p);
    free(o.sparsity);
    return rc == CLI_HELP ? CLI_OK : rc;
}
