/* cmd_toeplitz.c — `skit toeplitz matvec|solve`: Toeplitz products and
 * solves on arrays from .npy or TSV files (e.g. coefficients exported from
 * NumPy / PyTorch), written to .npy or TSV.
 *
 * Shapes (rows x columns, column-major as skit stores them):
 *   coefficients  2n-1 values t_{-(n-1)} .. t_{n-1} (1-D), or (2n-1) x d for
 *                 d matrices, one per column (the TNO per-channel case);
 *   x / b         n (1-D) or n x k; with d matrices, k must equal d.
 * The output has the shape of x / b. Everything is validated before any
 * work is done or any file is created; output files are written atomically. */
#include "config.h"

#include <cblas.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "commands.h"
#include "cli/table.h"

static const char *usage_main =
    "usage: skit toeplitz <matvec|solve> [options]     skit toeplitz <matvec|solve> --help\n"
    "Toeplitz products and solves on .npy or TSV files.\n\n"
    "  matvec   y = T x (or T^T x), by FFT (O(n log n)) or the dense matrix\n"
    "  solve    T x = b by Levinson recursion (general, or --spd: Levinson-Durbin)\n\n"
    "Coefficients follow T(i, j) = t_{i-j}: a 1-D array of 2n-1 values\n"
    "t_{-(n-1)}, ..., t_0, ..., t_{n-1} (t_0 in the middle), or for d different\n"
    "matrices a (2n-1) x d array with one matrix per column.\n"
    "Files ending in .npy are NumPy arrays (float64 or float32, C or Fortran order);\n"
    "anything else is read as a TSV table (rows x columns; '#' comments and one\n"
    "header line allowed). Exit status: 0 ok, 1 computation failed (breakdown),\n"
    "2 bad input (nothing written).\n";

static const char *usage_matvec =
    "usage: skit toeplitz matvec --coeffs C --x X [options]\n"
    "Compute y = T x for a square n x n Toeplitz matrix T (or d of them).\n\n"
    "  --coeffs FILE     2n-1 coefficients t_{-(n-1)}..t_{n-1} (1-D), or a (2n-1) x d\n"
    "                    array: d matrices, one per column\n"
    "  --x FILE          n values (1-D) or an n x k array (k right-hand sides; k = d\n"
    "                    when d matrices are given: column c uses matrix c)\n"
    "  --causal          lower-triangular T (y_i depends on x_0..x_i; t_{-k} ignored)\n"
    "  --transpose       compute y = T^T x\n"
    "  --method M        fft (default: circulant embedding, O(n log n)) or dense\n"
    "                    (materialise T and multiply with BLAS, O(n^2) memory)\n"
    "  -o, --output FILE write y to FILE: .npy (float64, or float32 with --precision\n"
    "                    f32) or .tsv; default: TSV on stdout\n"
    "      --precision P f64 (default) or f32: the FFTs, spectra and x, y in float32\n"
    "                    (a .npy x of '<f4' is read as is, y written '<f4'; the\n"
    "                    coefficients are rounded to float32; --method fft on the cpu)\n"
    "      --threads N   OpenMP threads for the FFT channels (default: all cores)\n"
    "      --quiet       no progress messages on stderr\n"
    "      --device D    cpu (default) or cuda: the FFT product by cuFFT on the GPU\n"
    "                    (float64, transfers included; --method fft only)\n"
    CLI_PLANNER_HELP("estimate: one product per plan, see cmd_toeplitz.c")
    "  -h, --help        this message\n\n"
    "examples:\n"
    "  skit toeplitz matvec --coeffs coeffs.npy --x x.npy --causal -o y.npy\n"
    "  skit toeplitz matvec --coeffs coeffs.npy --x x32.npy --precision f32 -o y32.npy\n"
    "  skit toeplitz matvec --coeffs coeffs.npy --x x.npy --device cuda -o y.npy\n";

static const char *usage_solve =
    "usage: skit toeplitz solve --coeffs C --b B [options]\n"
    "Solve T x = b for a square n x n Toeplitz matrix T.\n\n"
    "  --coeffs FILE     2n-1 coefficients t_{-(n-1)}..t_{n-1} (1-D); with --spd also\n"
    "                    just the first column t_0..t_{n-1} (n values)\n"
    "  --b FILE          n values (1-D) or an n x k array (k right-hand sides)\n"
    "  --spd             T is symmetric positive definite: Levinson-Durbin\n"
    "                    (default: general Levinson-Trench recursion)\n"
    "  -o, --output FILE write x to FILE: .npy (float64) or .tsv; default: TSV on stdout\n"
    "      --threads N   OpenMP threads (default: all cores)\n"
    "      --quiet       with a .npy output, no report of the check on stderr\n"
    "  -h, --help        this message\n\n"
    "Every answer is checked: its backward error must be within 32 n eps (else the\n"
    "solve refines it, then falls back to dense LU for n <= 4096); the header gives\n"
    "the solver used, the backward error and a condition estimate. Exit status 1,\n"
    "nothing written: no method met the bound, T is singular to working precision\n"
    "(condition estimate > 1/eps), or, with --spd, T is not positive definite.\n\n"
    "example:\n"
    "  skit toeplitz solve --coeffs t.tsv --b b.tsv --spd -o x.tsv\n";

/* -o must be .npy, .tsv / .txt, or "-" (stdout) */
static int validate_output(const char *output)
{
    if (!output || !strcmp(output, "-")) return CLI_OK;
    return cli_check_data_path("-o", output, 1);
}

/* Writes rows x cols (column-major) to `output` as .npy or TSV (stdout if
 * NULL or "-"), with the command line and `comment` in the TSV header;
 * data is float (f32: a .npy is written '<f4') or double. */
static int write_result(const char *output, int argc, char **argv, const void *data, int f32, size_t rows,
                        size_t cols, int ndim, const char *name, const char *comment)
{
    for (size_t i = 0; i < rows * cols; i++)
        if (!isfinite(f32 ? ((const float *)data)[i] : ((const double *)data)[i]))
            return cli_failure("the result has non-finite values (overflow): inputs too large for %s",
                               f32 ? "float32 (run with --precision f64)" : "double precision");
    /* argv[0] is the action ("matvec"): record "skit toeplitz matvec ..." */
    char **full = malloc((size_t)(argc + 2) * sizeof *full);
    if (!full) return cli_failure("out of memory");
    full[0] = "skit";
    full[1] = "toeplitz";
    for (int i = 0; i < argc; i++) full[i + 2] = argv[i];
    int rc = f32 ? cli_write_matrix_f32(output, argc + 2, full, 0, 0, data, rows, cols, ndim, name, comment, 0)
                 : cli_write_matrix(output, argc + 2, full, 0, 0, data, rows, cols, ndim, name, comment, 0);
    free(full);
    return rc;
}

/* n from a coefficient count 2n-1 */
static int order_from_coeffs(const char *option, size_t count, size_t *n)
{
    if (count == 0 || count % 2 == 0)
        return cli_usage_error("%s: has %zu coefficients; need an odd count 2n-1 "
                               "(t_{-(n-1)} .. t_{n-1}, t_0 in the middle)",
                               option, count);
    *n = (count + 1) / 2;
    return CLI_OK;
}

/* y(:, c) = T_c x(:, c) (or T_c^T) with T_c materialised: O(n^2) memory
 * (checked against available memory by the caller before x is read). */
static int matvec_dense(size_t n, size_t d_matrices, size_t k, const double *coeffs, skit_causality causality,
                        int transpose, const double *x, double *y)
{
    int status = SKIT_OK;
    double *A = skit_malloc(n * n, sizeof(double));
    if (!A) return SKIT_ENOMEM;
    const size_t L = 2 * n - 1;
    for (size_t c = 0; c < d_matrices && status == SKIT_OK; c++) {
        status = skit_toeplitz_dense(n, n, coeffs + c * L, causality, A, n);
        if (status != SKIT_OK) break;
        /* one matrix for all k columns, or matrix c for column c */
        size_t cols = d_matrices == 1 ? k : 1;
        const double *xc = x + (d_matrices == 1 ? 0 : c * n);
        double *yc = y + (d_matrices == 1 ? 0 : c * n);
        cblas_dgemm(CblasColMajor, transpose ? CblasTrans : CblasNoTrans, CblasNoTrans, (int)n, (int)cols, (int)n, 1.0,
                    A, (int)n, xc, (int)n, 0.0, yc, (int)n);
    }
    skit_free(A);
    return status;
}

/* The FFT product on the CPU or (device = SKIT_DEVICE_CUDA) the GPU, in
 * the precision of x and y (float32: float arrays) */
static int matvec_fft(size_t n, size_t d_matrices, size_t k, const double *coeffs,
                      skit_causality causality, skit_device device, skit_precision precision, int transpose,
                      const void *x, void *y, size_t *fft_length)
{
    skit_toeplitz_plan *plan = NULL;
    skit_toeplitz_options o;
    skit_toeplitz_options_default(&o);
    o.sharing = d_matrices == 1 ? SKIT_TOEPLITZ_SHARED : SKIT_TOEPLITZ_PER_CHANNEL;
    o.causality = causality;
    o.device = device;
    o.precision = precision;
    int status =
        skit_toeplitz_plan_create(&plan, n, n, d_matrices == 1 ? k : d_matrices, &o, coeffs);
    if (status != SKIT_OK) return status;
    *fft_length = skit_toeplitz_plan_fft_length(plan);
    if (precision == SKIT_PRECISION_F32)
        status = transpose ? skit_toeplitz_plan_execute_transpose_f32(plan, x, n, y, n, NULL)
                           : skit_toeplitz_plan_execute_f32(plan, x, n, y, n, NULL);
    else
        status = transpose ? skit_toeplitz_plan_execute_transpose(plan, x, n, y, n, NULL)
                           : skit_toeplitz_plan_execute(plan, x, n, y, n, NULL);
    skit_toeplitz_plan_destroy(plan);
    return status;
}

/* x's shape against the coefficients' n and d */
static int check_x_shape(size_t rows, size_t k, size_t n, size_t d, size_t coeff_rows)
{
    if (rows != n) return cli_usage_error("--x: has %zu rows but the %zu coefficients give n = %zu", rows, coeff_rows, n);
    if (k == 0) return cli_usage_error("--x: has 0 columns");
    if (d > 1 && k != d)
        return cli_usage_error("--x: has %zu columns but --coeffs holds d = %zu matrices: need one column per matrix", k,
                               d);
    return CLI_OK;
}

enum { OPT_COEFFS = 0x2000, OPT_X, OPT_B, OPT_CAUSAL, OPT_TRANSPOSE, OPT_METHOD, OPT_DEVICE, OPT_PRECISION, OPT_SPD };
enum { METHOD_FFT, METHOD_DENSE };
static const char *const methods[] = {"fft", "dense", NULL};

/* The options of matvec and solve (those of the other one stay unset). */
typedef struct toeplitz_args {
    cli_common common; /* -o, --threads, --quiet; matvec: the FFT planner */
    const char *coeffs_path, *x_path, *b_path;
    int causal, transpose, method, device, spd;
    skit_precision precision;
} toeplitz_args;

/* One option (cli_options.apply): -1 for the common ones. */
static int toeplitz_option(void *ctx, int opt, const char *arg)
{
    static const char *const devices[] = {"cpu", "cuda", NULL};
    toeplitz_args *t = ctx;
    switch (opt) {
    case OPT_COEFFS: t->coeffs_path = arg; return CLI_OK;
    case OPT_X: t->x_path = arg; return CLI_OK;
    case OPT_B: t->b_path = arg; return CLI_OK;
    case OPT_CAUSAL: t->causal = 1; return CLI_OK;
    case OPT_TRANSPOSE: t->transpose = 1; return CLI_OK;
    case OPT_SPD: t->spd = 1; return CLI_OK;
    case OPT_METHOD: return cli_parse_choice("--method", arg, methods, &t->method);
    case OPT_DEVICE: return cli_parse_choice("--device", arg, devices, &t->device);
    case OPT_PRECISION: return cli_parse_precision(arg, &t->precision);
    }
    return -1;
}

/* matvec's options and their combinations, before any file is read. */
static int matvec_args(int argc, char **argv, toeplitz_args *t)
{
    static const struct option longopts[] = {CLI_BASIC_LONGOPTS,
                                             CLI_PLANNER_LONGOPTS,
                                             {"coeffs", required_argument, NULL, OPT_COEFFS},
                                             {"x", required_argument, NULL, OPT_X},
                                             {"causal", no_argument, NULL, OPT_CAUSAL},
                                             {"transpose", no_argument, NULL, OPT_TRANSPOSE},
                                             {"method", required_argument, NULL, OPT_METHOD},
                                             {"device", required_argument, NULL, OPT_DEVICE},
                                             {"precision", required_argument, NULL, OPT_PRECISION},
                                             {NULL, 0, NULL, 0}};
    /* One product per plan: ESTIMATE. MEASURE spends far longer planning a
     * length than one product of it takes: it pays only for a plan reused
     * many times, or with wisdom (--wisdom, skit wisdom). */
    t->common.planner_default = SKIT_PLANNER_ESTIMATE;
    const cli_options parser = {.longopts = longopts, .usage = usage_matvec, .common = &t->common,
                                .apply = toeplitz_option, .ctx = t};
    int rc = cli_parse_options(&parser, argc, argv);
    if (rc != CLI_OK) return rc;
    if (!t->coeffs_path) return cli_usage_error("--coeffs: missing (the file of 2n-1 Toeplitz coefficients)");
    if (!t->x_path) return cli_usage_error("--x: missing (the file of the vector or n x k array to multiply)");
    if (validate_output(t->common.output) != CLI_OK) return CLI_USAGE;
    if (cli_planner_setup(&t->common) != CLI_OK) return CLI_USAGE;
    if (t->device == 1 && t->method == METHOD_DENSE)
        return cli_usage_error("--device cuda: runs --method fft only (the dense product is a CPU reference)");
    if (t->precision == SKIT_PRECISION_F32 && (t->method == METHOD_DENSE || t->device == 1))
        return cli_usage_error("--precision f32: runs --method fft on the cpu only (the dense product is a float64 "
                               "reference; the CUDA plan computes in float64)");
    if (t->device == 1 && skit_device_check(SKIT_DEVICE_CUDA) != SKIT_OK)
        return cli_usage_error("--device cuda: %s", skit_last_error());
    return CLI_OK;
}

/* matvec's inputs: the coefficients of d matrices of order n and x with k
 * columns (float32 into X32 with --precision f32, else into X), shapes
 * checked; the dense matrix is refused before x is read. */
typedef struct matvec_inputs {
    skit_matrix C, X;
    skit_matrix_f32 X32;
    size_t n, d, k;
    int x_ndim;
} matvec_inputs;

static void matvec_inputs_free(matvec_inputs *in)
{
    skit_matrix_free(&in->C);
    skit_matrix_free(&in->X);
    skit_matrix_f32_free(&in->X32);
}

static int matvec_read(const toeplitz_args *t, matvec_inputs *in)
{
    const int f32 = t->precision == SKIT_PRECISION_F32;
    int rc = cli_read_matrix("--coeffs", t->coeffs_path, &in->C);
    if (rc == CLI_OK) rc = order_from_coeffs("--coeffs", in->C.rows, &in->n);
    if (rc != CLI_OK) return rc;
    in->d = in->C.ndim == 1 ? 1 : in->C.cols;
    if (in->d == 0) return cli_usage_error("--coeffs: has 0 columns; need at least one matrix");
    if (t->method == METHOD_DENSE) {
        size_t bytes;
        if (skit_size_mul(in->n, in->n, &bytes) || skit_size_mul(bytes, sizeof(double), &bytes)) bytes = SIZE_MAX;
        char what[96];
        snprintf(what, sizeof what, "dense n = %zu (--method dense, an n x n matrix)", in->n);
        if (skit_memory_check(bytes, what) != SKIT_OK) return cli_usage_error("%s", skit_last_error());
    }
    rc = f32 ? cli_read_matrix_f32("--x", t->x_path, &in->X32) : cli_read_matrix("--x", t->x_path, &in->X);
    if (rc != CLI_OK) return rc;
    in->x_ndim = f32 ? in->X32.ndim : in->X.ndim;
    in->k = f32 ? in->X32.cols : in->X.cols;
    return check_x_shape(f32 ? in->X32.rows : in->X.rows, in->k, in->n, in->d, in->C.rows);
}

/* What the output's header says of the product. */
static void matvec_comment(const toeplitz_args *t, const matvec_inputs *in, size_t fft_length, char *comment,
                           size_t size)
{
    int len = snprintf(comment, size, "toeplitz matvec: y = T%s x, n = %zu, %zu %s, k = %zu, %s, method %s%s%s",
                       t->transpose ? "^T" : "", in->n, in->d,
                       in->d == 1 ? "matrix" : "matrices (one per column)", in->k,
                       t->causal ? "causal" : "bidirectional", methods[t->method], t->device ? " on cuda" : "",
                       t->precision == SKIT_PRECISION_F32 ? " in float32" : "");
    if (t->method == METHOD_FFT && len > 0 && (size_t)len < size)
        snprintf(comment + len, size - (size_t)len, " (FFT length %zu)", fft_length);
}

static int run_matvec(int argc, char **argv)
{
    toeplitz_args t = {.precision = SKIT_PRECISION_F64};
    cli_common_init(&t.common);
    int rc = matvec_args(argc, argv, &t);
    if (rc != CLI_OK) return rc == CLI_HELP ? CLI_OK : rc;
    matvec_inputs in = {0};
    rc = matvec_read(&t, &in);
    if (rc != CLI_OK) {
        matvec_inputs_free(&in);
        return rc;
    }
    cli_apply_threads(&t.common);
    const int f32 = t.precision == SKIT_PRECISION_F32;
    void *Y = skit_malloc(in.n * in.k, f32 ? sizeof(float) : sizeof(double));
    int status = Y ? SKIT_OK : SKIT_ENOMEM;
    size_t fft_length = 0;
    skit_causality causality = t.causal ? SKIT_CAUSAL : SKIT_BIDIRECTIONAL;
    skit_device device = t.device == 1 ? SKIT_DEVICE_CUDA : SKIT_DEVICE_CPU;
    cli_progress_start(&t.common);
    if (status == SKIT_OK && t.method == METHOD_DENSE) {
        cli_progress_cost(2.0 * (double)in.n * (double)in.n * (double)in.k, "dense product, n = %zu", in.n);
        status = matvec_dense(in.n, in.d, in.k, in.C.data, causality, t.transpose, in.X.data, Y);
    } else if (status == SKIT_OK)
        status = matvec_fft(in.n, in.d, in.k, in.C.data, causality, device, t.precision, t.transpose,
                            f32 ? (const void *)in.X32.data : in.X.data, Y, &fft_length);
    cli_progress_done();
    if (status == SKIT_OK) {
        char comment[256];
        matvec_comment(&t, &in, fft_length, comment, sizeof comment);
        rc = write_result(t.common.output, argc, argv, Y, f32, in.n, in.k, in.x_ndim, "y", comment);
    } else {
        rc = cli_library_error(status);
    }
    skit_free(Y);
    matvec_inputs_free(&in);
    return rc;
}

/* The solve's own check, for the output's header (and stderr for .npy,
 * which has no place for it). */
static int write_solution(const toeplitz_args *t, int argc, char **argv, const double *X, size_t n, size_t k,
                          int ndim, const skit_toeplitz_solve_info *info)
{
    const char *output = t->common.output;
    const int spd = t->spd;
    static const char *const solver_names[] = {"Levinson", "Levinson + iterative refinement",
                                               "dense LU (LAPACK dgesv): Levinson was inaccurate"};
    char comment[640];
    snprintf(comment, sizeof comment,
             "toeplitz solve: T x = b, n = %zu, k = %zu right-hand side%s, %s\n"
             "# solver: %s (%d refinement step%s)\n"
             "# backward error max_j |b - T x|_inf / (|T|_inf |x|_inf + |b|_inf) = %.3g (tolerance 32 n eps = %.3g)\n"
             "# condition estimate cond_1(T) = %.3g: relative forward error <~ 2 cond eta = %.3g",
             n, k, k == 1 ? "" : "s", spd ? "symmetric positive definite (Levinson-Durbin)" : "general (Levinson-Trench)",
             solver_names[info->solver], info->refinement_steps, info->refinement_steps == 1 ? "" : "s",
             info->backward_error, info->tolerance, 1.0 / info->rcond, 2.0 * info->backward_error / info->rcond);
    size_t len = output ? strlen(output) : 0;
    if (len > 4 && !strcmp(output + len - 4, ".npy") && !t->common.quiet)
        fprintf(stderr, "skit toeplitz solve: %s, backward error %.3g (tolerance %.3g), condition estimate %.3g\n",
                solver_names[info->solver], info->backward_error, info->tolerance, 1.0 / info->rcond);
    return write_result(output, argc, argv, X, 0, n, k, ndim, "x", comment);
}

/* solve's options, before any file is read. */
static int solve_args(int argc, char **argv, toeplitz_args *t)
{
    static const struct option longopts[] = {CLI_BASIC_LONGOPTS,
                                             {"coeffs", required_argument, NULL, OPT_COEFFS},
                                             {"b", required_argument, NULL, OPT_B},
                                             {"spd", no_argument, NULL, OPT_SPD},
                                             {NULL, 0, NULL, 0}};
    const cli_options parser = {.longopts = longopts, .usage = usage_solve, .common = &t->common,
                                .apply = toeplitz_option, .ctx = t};
    int rc = cli_parse_options(&parser, argc, argv);
    if (rc != CLI_OK) return rc;
    if (!t->coeffs_path) return cli_usage_error("--coeffs: missing (the file of Toeplitz coefficients)");
    if (!t->b_path) return cli_usage_error("--b: missing (the file of the right-hand side)");
    return validate_output(t->common.output);
}

/* --spd with 2n-1 coefficients: the matrix must be symmetric, t_{-k} = t_k. */
static int check_symmetric(const double *c, size_t n)
{
    double scale = 0;
    for (size_t i = 0; i < 2 * n - 1; i++) scale = fmax(scale, fabs(c[i]));
    for (size_t j = 1; j < n; j++)
        if (fabs(c[n - 1 - j] - c[n - 1 + j]) > 1e-12 * scale)
            return cli_usage_error("--coeffs: --spd needs a symmetric matrix but t_{-%zu} = %.17g != t_%zu = %.17g",
                                   j, c[n - 1 - j], j, c[n - 1 + j]);
    return CLI_OK;
}

/* solve's inputs: C and B read, their sizes checked; *t_spd: the first
 * column for --spd. */
static int solve_read(const toeplitz_args *t, skit_matrix *C, skit_matrix *B, const double **t_spd)
{
    int rc = cli_read_matrix("--coeffs", t->coeffs_path, C);
    if (rc == CLI_OK && C->ndim == 2 && C->cols != 1)
        rc = cli_usage_error("--coeffs: is a %zu x %zu array; solve takes one matrix: a 1-D array", C->rows, C->cols);
    if (rc == CLI_OK) rc = cli_read_matrix("--b", t->b_path, B);
    if (rc != CLI_OK) return rc;
    size_t n = B->rows, L = C->rows;
    if (n == 0 || B->cols == 0) return cli_usage_error("--b: is empty (%zu x %zu)", B->rows, B->cols);
    if (t->spd && L == n) {
        *t_spd = C->data;
        return CLI_OK;
    }
    if (L != 2 * n - 1)
        return t->spd ? cli_usage_error("--coeffs: has %zu values but --b has n = %zu rows: need n (first column) "
                                        "or 2n-1 = %zu",
                                        L, n, 2 * n - 1)
                      : cli_usage_error("--coeffs: has %zu values but --b has n = %zu rows: need 2n-1 = %zu", L, n,
                                        2 * n - 1);
    if (t->spd && check_symmetric(C->data, n) != CLI_OK) return CLI_USAGE;
    if (t->spd) *t_spd = C->data + (n - 1);
    return CLI_OK;
}

static int run_solve(int argc, char **argv)
{
    toeplitz_args t = {.precision = SKIT_PRECISION_F64};
    cli_common_init(&t.common);
    int rc = solve_args(argc, argv, &t);
    if (rc != CLI_OK) return rc == CLI_HELP ? CLI_OK : rc;
    skit_matrix C = {0}, B = {0};
    const double *first_column = NULL;
    rc = solve_read(&t, &C, &B, &first_column);
    if (rc != CLI_OK) {
        skit_matrix_free(&C);
        skit_matrix_free(&B);
        return rc;
    }
    cli_apply_threads(&t.common);
    size_t n = B.rows, k = B.cols;
    double *X = skit_malloc(n * k, sizeof(double));
    int status = X ? SKIT_OK : SKIT_ENOMEM;
    skit_toeplitz_solve_info info;
    if (status == SKIT_OK)
        status = t.spd ? skit_toeplitz_solve_spd_with_info(n, first_column, k, B.data, n, X, n, &info)
                       : skit_toeplitz_solve_with_info(n, C.data, k, B.data, n, X, n, &info);
    if (status != SKIT_OK)
        rc = cli_library_error(status);
    else if (info.rcond < DBL_EPSILON)
        rc = cli_failure("T is singular to working precision: condition estimate %.3g > 1/eps = %.3g, so no "
                         "digit of x can be trusted (backward error %.3g); nothing written",
                         1.0 / info.rcond, 1.0 / DBL_EPSILON, info.backward_error);
    else
        rc = write_solution(&t, argc, argv, X, n, k, B.ndim, &info);
    skit_free(X);
    skit_matrix_free(&C);
    skit_matrix_free(&B);
    return rc;
}

int cmd_toeplitz(int argc, char **argv)
{
    if (argc < 2) return cli_usage_error("missing subcommand: matvec or solve (see 'skit toeplitz --help')");
    const char *sub = argv[1];
    if (!strcmp(sub, "--help") || !strcmp(sub, "-h") || !strcmp(sub, "help")) {
        fputs(usage_main, stdout);
        return CLI_OK;
    }
    if (!strcmp(sub, "matvec")) {
        cli_set_context("skit toeplitz matvec");
        return run_matvec(argc - 1, argv + 1);
    }
    if (!strcmp(sub, "solve")) {
        cli_set_context("skit toeplitz solve");
        return run_solve(argc - 1, argv + 1);
    }
    return cli_usage_error("unknown subcommand '%s': need matvec or solve (see 'skit toeplitz --help')", sub);
}
