/* test_spectral.c — SVD, spectral norm, truncated SVD, pseudo-inverse,
 * condition number and the Lanczos spectral norm, checked against matrices
 * built with known singular values (orthogonal factors from the QR of random
 * matrices times chosen sigmas), the Eckart–Young theorem, the four
 * Moore–Penrose conditions, and operators with a closed-form norm; plus a
 * "config" test of every documented error. */
#include "config.h"

#include <cblas.h>
#include <float.h>
#include <lapacke.h>

#include "check_util.h"

static const size_t shapes[][2] = {{1, 1}, {1, 7}, {7, 1}, {2, 2}, {7, 3}, {3, 7}, {13, 13},
                                   {50, 17}, {17, 50}, {64, 64}, {101, 37}, {37, 101}, {127, 127}};
#define NSHAPES (sizeof shapes / sizeof shapes[0])

/* m x k with orthonormal columns (Q of a random Gaussian matrix) */
static double *random_orthonormal(skit_rng *rng, size_t m, size_t k)
{
    double *Q = tu_random(rng, m * k);
    double *tau = tu_alloc(k);
    ck_assert_int_eq(LAPACKE_dgeqrf(LAPACK_COL_MAJOR, (int)m, (int)k, Q, (int)m, tau), 0);
    ck_assert_int_eq(LAPACKE_dorgqr(LAPACK_COL_MAJOR, (int)m, (int)k, (int)k, Q, (int)m, tau), 0);
    skit_free(tau);
    return Q;
}

/* A = Q1 diag(sigma) Q2^T (m x n, leading dimension lda; padding rows are
 * NaN so that reading them would show) */
static double *known_matrix(skit_rng *rng, size_t m, size_t n, size_t lda, const double *sigma)
{
    size_t k = m < n ? m : n;
    double *Q1 = random_orthonormal(rng, m, k), *Q2 = random_orthonormal(rng, n, k);
    for (size_t j = 0; j < k; j++) cblas_dscal((int)m, sigma[j], Q1 + j * m, 1);
    double *A = tu_alloc(lda * n);
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, (int)m, (int)n, (int)k, 1.0, Q1, (int)m, Q2, (int)n, 0.0,
                A, (int)lda);
    skit_free(Q1);
    skit_free(Q2);
    return A;
}

/* distinct, descending, spanning three decades */
static double *chosen_sigmas(skit_rng *rng, size_t k)
{
    double *s = tu_alloc(k);
    for (size_t i = 0; i < k; i++) s[i] = 5.0 * pow(10.0, -3.0 * (double)i / (double)k) * (1 + 0.01 * skit_rng_uniform(rng));
    for (size_t i = 1; i < k; i++)
        if (s[i] >= s[i - 1]) s[i] = s[i - 1] * 0.999;
    return s;
}

/* max |A - B| over an m x n block / max |B| */
static double rel_diff(size_t m, size_t n, const double *A, size_t lda, const double *B, size_t ldb)
{
    double num = 0, den = 0;
    for (size_t j = 0; j < n; j++)
        for (size_t i = 0; i < m; i++) {
            double d = fabs(A[i + j * lda] - B[i + j * ldb]);
            if (!(d <= num)) num = d;
            den = fmax(den, fabs(B[i + j * ldb]));
        }
    return isnan(num) ? INFINITY : num / fmax(den, 1e-300);
}

/* C = A B with A m x k (lda), B k x n (ldb), fresh m x n */
static double *matmul(size_t m, size_t k, size_t n, const double *A, size_t lda, const double *B, size_t ldb)
{
    double *C = tu_alloc(m * n);
    if (k == 0) {
        memset(C, 0, m * n * sizeof(double));
        return C;
    }
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, (int)m, (int)n, (int)k, 1.0, A, (int)lda, B, (int)ldb,
                0.0, C, (int)m);
    return C;
}

START_TEST(test_svd_known_singular_values_and_reconstruction)
{
    uint64_t seed = tu_seed();
    skit_rng rng;
    skit_rng_seed(&rng, seed);
    for (size_t t = 0; t < NSHAPES; t++) {
        size_t m = shapes[t][0], n = shapes[t][1], k = m < n ? m : n;
        size_t lda = m + 3, ldu = m + 1, ldvt = k + 2;
        double *sigma = chosen_sigmas(&rng, k);
        double *A = known_matrix(&rng, m, n, lda, sigma);
        double *s = tu_alloc(k), *U = tu_alloc(ldu * k), *Vt = tu_alloc(ldvt * n);
        TU_EXPECT_OK(skit_svd(m, n, A, lda, s, U, ldu, Vt, ldvt));
        for (size_t i = 0; i < k; i++)
            ck_assert_msg(fabs(s[i] - sigma[i]) <= 1e-13 * sigma[0], "%zux%zu s[%zu] = %.17g, want %.17g (seed %llu)",
                          m, n, i, s[i], sigma[i], (unsigned long long)seed);
        /* U S Vt reproduces A */
        for (size_t j = 0; j < k; j++) cblas_dscal((int)m, s[j], U + j * ldu, 1);
        double *R = matmul(m, k, n, U, ldu, Vt, ldvt);
        double err = rel_diff(m, n, R, m, A, lda);
        ck_assert_msg(err <= 1e-13, "%zux%zu: |U S Vt - A| / |A| = %g (seed %llu)", m, n, err,
                      (unsigned long long)seed);
        /* orthonormal factors: recompute U unscaled and check U^T U = I, Vt Vt^T = I */
        TU_EXPECT_OK(skit_svd(m, n, A, lda, s, U, ldu, Vt, ldvt));
        double *G = tu_alloc(k * k), *H = tu_alloc(k * k);
        cblas_dgemm(CblasColMajor, CblasTrans, CblasNoTrans, (int)k, (int)k, (int)m, 1.0, U, (int)ldu, U, (int)ldu,
                    0.0, G, (int)k);
        cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, (int)k, (int)k, (int)n, 1.0, Vt, (int)ldvt, Vt,
                    (int)ldvt, 0.0, H, (int)k);
        for (size_t i = 0; i < k; i++)
            for (size_t j = 0; j < k; j++) {
                double want = i == j ? 1.0 : 0.0;
                ck_assert_msg(fabs(G[i + j * k] - want) < 1e-13 && fabs(H[i + j * k] - want) < 1e-13,
                              "%zux%zu: factors not orthonormal at (%zu,%zu)", m, n, i, j);
            }
        /* singular values alone, and with one factor only, agree */
        double *s2 = tu_alloc(k), *U2 = tu_alloc(ldu * k), *Vt2 = tu_alloc(ldvt * n);
        TU_EXPECT_OK(skit_svd(m, n, A, lda, s2, NULL, 0, NULL, 0));
        ck_assert_msg(tu_rel_error(s2, s, k) < 1e-13, "%zux%zu values-only SVD differs", m, n);
        TU_EXPECT_OK(skit_svd(m, n, A, lda, s2, U2, ldu, NULL, 0));
        TU_EXPECT_OK(skit_svd(m, n, A, lda, s2, NULL, 0, Vt2, ldvt));
        for (size_t j = 0; j < k; j++) {
            /* signs of singular vectors are not unique: compare |u_j . u2_j| */
            double du = cblas_ddot((int)m, U + j * ldu, 1, U2 + j * ldu, 1);
            double dv = cblas_ddot((int)n, Vt + j, (int)ldvt, Vt2 + j, (int)ldvt);
            ck_assert_msg(fabs(fabs(du) - 1) < 1e-10 && fabs(fabs(dv) - 1) < 1e-10, "%zux%zu single factor %zu", m,
                          n, j);
        }
        double norm = NAN;
        TU_EXPECT_OK(skit_spectral_norm(m, n, A, lda, &norm));
        ck_assert_msg(fabs(norm - sigma[0]) <= 1e-13 * sigma[0], "%zux%zu norm %.17g vs %.17g", m, n, norm, sigma[0]);
        skit_free(sigma), skit_free(A), skit_free(s), skit_free(U), skit_free(Vt), skit_free(R);
        skit_free(G), skit_free(H), skit_free(s2), skit_free(U2), skit_free(Vt2);
    }
}
END_TEST

START_TEST(test_svd_of_identity_and_diagonal)
{
    /* an exactly representable case: singular values of diag(-3, 1, 2) are
     * 3, 2, 1 whatever the algorithm */
    double A[9] = {-3, 0, 0, 0, 1, 0, 0, 0, 2}, s[3];
    TU_EXPECT_OK(skit_svd(3, 3, A, 3, s, NULL, 0, NULL, 0));
    ck_assert(fabs(s[0] - 3) < 1e-15 && fabs(s[1] - 2) < 1e-15 && fabs(s[2] - 1) < 1e-15);
    double one = -2.5, s1;
    TU_EXPECT_OK(skit_svd(1, 1, &one, 1, &s1, NULL, 0, NULL, 0));
    ck_assert(s1 == 2.5);
}
END_TEST

START_TEST(test_truncated_svd_is_eckart_young)
{
    uint64_t seed = tu_seed();
    skit_rng rng;
    skit_rng_seed(&rng, seed);
    for (size_t t = 0; t < NSHAPES; t++) {
        size_t m = shapes[t][0], n = shapes[t][1], k = m < n ? m : n;
        double *sigma = chosen_sigmas(&rng, k);
        double *A = known_matrix(&rng, m, n, m, sigma);
        size_t ranks[] = {0, 1, 3, k / 2, k - 1, k};
        for (size_t q = 0; q < sizeof ranks / sizeof ranks[0]; q++) {
            size_t r = ranks[q];
            if (r > k) continue;
            size_t ldar = m + 2;
            double *Ar = tu_alloc(ldar * n), *E = tu_alloc(m * n);
            double next = NAN;
            TU_EXPECT_OK(skit_svd_truncate(m, n, A, m, r, Ar, ldar, &next));
            double want = r < k ? sigma[r] : 0.0;
            ck_assert_msg(fabs(next - want) <= 1e-13 * sigma[0], "%zux%zu r=%zu sigma_next %g want %g", m, n, r, next,
                          want);
            for (size_t j = 0; j < n; j++)
                for (size_t i = 0; i < m; i++) E[i + j * m] = A[i + j * m] - Ar[i + j * ldar];
            double err = NAN;
            TU_EXPECT_OK(skit_spectral_norm(m, n, E, m, &err));
            ck_assert_msg(fabs(err - want) <= 1e-12 * sigma[0], "%zux%zu r=%zu: |A - A_r|_2 = %.17g, sigma_{r+1} = %.17g (seed %llu)",
                          m, n, r, err, want, (unsigned long long)seed);
            /* A_r has rank r: sigma_{r+1}(A_r) at rounding level */
            if (r < k) {
                double *s = tu_alloc(k);
                TU_EXPECT_OK(skit_svd(m, n, Ar, ldar, s, NULL, 0, NULL, 0));
                ck_assert_msg(s[r] <= 1e-13 * sigma[0], "%zux%zu r=%zu: rank(A_r) > r", m, n, r);
                skit_free(s);
            }
            TU_EXPECT_OK(skit_svd_truncate(m, n, A, m, r, Ar, ldar, NULL)); /* sigma_next optional */
            skit_free(Ar), skit_free(E);
        }
        skit_free(sigma), skit_free(A);
    }
}
END_TEST

/* the four Moore–Penrose conditions for X = pinv(A), A m x n, X n x m */
static void check_moore_penrose(size_t m, size_t n, const double *A, const double *X, size_t ldx, double tol,
                                const char *what)
{
    double *AX = matmul(m, n, m, A, m, X, ldx);   /* m x m */
    double *XA = matmul(n, m, n, X, ldx, A, m);   /* n x n */
    double *AXA = matmul(m, m, n, AX, m, A, m);   /* m x n */
    double *XAX = matmul(n, n, m, XA, n, X, ldx); /* n x m */
    double anorm = 0, xnorm = 0;
    TU_EXPECT_OK(skit_spectral_norm(m, n, A, m, &anorm));
    TU_EXPECT_OK(skit_spectral_norm(n, m, X, ldx, &xnorm));
    double e1 = 0, e2 = 0, e3 = 0, e4 = 0;
    for (size_t j = 0; j < n; j++)
        for (size_t i = 0; i < m; i++) e1 = fmax(e1, fabs(AXA[i + j * m] - A[i + j * m]));
    for (size_t j = 0; j < m; j++)
        for (size_t i = 0; i < n; i++) e2 = fmax(e2, fabs(XAX[i + j * n] - X[i + j * ldx]));
    for (size_t j = 0; j < m; j++)
        for (size_t i = 0; i < m; i++) e3 = fmax(e3, fabs(AX[i + j * m] - AX[j + i * m]));
    for (size_t j = 0; j < n; j++)
        for (size_t i = 0; i < n; i++) e4 = fmax(e4, fabs(XA[i + j * n] - XA[j + i * n]));
    double kappa = anorm * xnorm; /* ||A|| ||A+|| = sigma_1 / sigma_rank */
    ck_assert_msg(e1 <= tol * kappa * anorm, "%s: |A X A - A| = %g", what, e1);
    ck_assert_msg(e2 <= tol * kappa * xnorm, "%s: |X A X - X| = %g", what, e2);
    ck_assert_msg(e3 <= tol * kappa, "%s: A X not symmetric (%g)", what, e3);
    ck_assert_msg(e4 <= tol * kappa, "%s: X A not symmetric (%g)", what, e4);
    skit_free(AX), skit_free(XA), skit_free(AXA), skit_free(XAX);
}

START_TEST(test_pinv_moore_penrose)
{
    uint64_t seed = tu_seed();
    skit_rng rng;
    skit_rng_seed(&rng, seed);
    char what[96];
    for (size_t t = 0; t < NSHAPES; t++) {
        size_t m = shapes[t][0], n = shapes[t][1], k = m < n ? m : n;
        /* full rank, and rank deficient: the trailing third of sigmas exactly 0 */
        for (int deficient = 0; deficient <= 1; deficient++) {
            double *sigma = chosen_sigmas(&rng, k);
            size_t true_rank = k;
            if (deficient && k > 1) {
                true_rank = k - (k + 2) / 3;
                for (size_t i = true_rank; i < k; i++) sigma[i] = 0;
            }
            double *A = known_matrix(&rng, m, n, m, sigma);
            size_t ldp = n + 1, rank = 12345;
            double *X = tu_alloc(ldp * m);
            TU_EXPECT_OK(skit_pinv(m, n, A, m, -1.0, X, ldp, &rank));
            ck_assert_msg(rank == true_rank, "%zux%zu: rank %zu, want %zu (seed %llu)", m, n, rank, true_rank,
                          (unsigned long long)seed);
            snprintf(what, sizeof what, "%zux%zu %s (seed %llu)", m, n, deficient ? "rank-deficient" : "full rank",
                     (unsigned long long)seed);
            check_moore_penrose(m, n, A, X, ldp, 1e-13 * (double)(m + n), what);
            /* singular values of A+ are 1/sigma over the kept rank */
            double *s = tu_alloc(k);
            TU_EXPECT_OK(skit_svd(n, m, X, ldp, s, NULL, 0, NULL, 0));
            ck_assert_msg(fabs(s[0] - 1 / sigma[true_rank - 1]) <= 1e-10 * s[0], "%s: |A+| = %g", what, s[0]);
            skit_free(s), skit_free(sigma), skit_free(A), skit_free(X);
        }
    }
}
END_TEST

START_TEST(test_pinv_tolerance_and_zero)
{
    /* diag(4, 2, 1e-9): the default tolerance keeps all three; rtol = 1e-6
     * drops the smallest; rtol >= 1 keeps nothing (the zero matrix). */
    double A[9] = {4, 0, 0, 0, 2, 0, 0, 0, 1e-9}, X[9];
    size_t rank;
    TU_EXPECT_OK(skit_pinv(3, 3, A, 3, -1, X, 3, &rank));
    ck_assert_uint_eq(rank, 3);
    ck_assert(fabs(X[8] - 1e9) < 1e-3 && fabs(X[0] - 0.25) < 1e-15);
    TU_EXPECT_OK(skit_pinv(3, 3, A, 3, 1e-6, X, 3, &rank));
    ck_assert_uint_eq(rank, 2);
    ck_assert(fabs(X[0] - 0.25) < 1e-15 && fabs(X[4] - 0.5) < 1e-15 && fabs(X[8]) < 1e-15);
    TU_EXPECT_OK(skit_pinv(3, 3, A, 3, 1.0, X, 3, NULL));
    for (int i = 0; i < 9; i++) ck_assert(X[i] == 0);
    double Z[6] = {0}, Zp[6];
    tu_poison(Zp, 6);
    TU_EXPECT_OK(skit_pinv(2, 3, Z, 2, -1, Zp, 3, &rank));
    ck_assert_uint_eq(rank, 0);
    for (int i = 0; i < 6; i++) ck_assert(Zp[i] == 0);
    /* a rank-one 2x2 with known pseudo-inverse: [1 1; 1 1]+ = [1 1; 1 1] / 4 */
    double O[4] = {1, 1, 1, 1}, Op[4];
    TU_EXPECT_OK(skit_pinv(2, 2, O, 2, -1, Op, 2, &rank));
    ck_assert_uint_eq(rank, 1);
    for (int i = 0; i < 4; i++) ck_assert_msg(fabs(Op[i] - 0.25) < 1e-15, "Op[%d] = %.17g", i, Op[i]);
}
END_TEST

START_TEST(test_condition_number)
{
    uint64_t seed = tu_seed();
    skit_rng rng;
    skit_rng_seed(&rng, seed);
    for (size_t t = 0; t < NSHAPES; t++) {
        size_t m = shapes[t][0], n = shapes[t][1], k = m < n ? m : n;
        double *sigma = chosen_sigmas(&rng, k);
        double *A = known_matrix(&rng, m, n, m, sigma);
        double kappa = NAN, want = sigma[0] / sigma[k - 1];
        TU_EXPECT_OK(skit_condition_number(m, n, A, m, &kappa));
        /* sigma_min has absolute error ~ eps * sigma_1, so relative ~ eps * kappa */
        ck_assert_msg(fabs(kappa - want) <= 1e-13 * want * want, "%zux%zu: kappa %.17g want %.17g (seed %llu)", m, n,
                      kappa, want, (unsigned long long)seed);
        skit_free(sigma), skit_free(A);
    }
    double I3[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, D[4] = {10, 0, 0, 0.5}, kappa;
    TU_EXPECT_OK(skit_condition_number(3, 3, I3, 3, &kappa));
    ck_assert(fabs(kappa - 1) < 1e-15);
    TU_EXPECT_OK(skit_condition_number(2, 2, D, 2, &kappa));
    ck_assert(fabs(kappa - 20) < 1e-13);
    /* singular: a zero column, and the zero matrix */
    double S[6] = {1, 2, 3, 0, 0, 0}, Z[4] = {0, 0, 0, 0};
    TU_EXPECT_OK(skit_condition_number(3, 2, S, 3, &kappa));
    ck_assert_msg(isinf(kappa) && kappa > 0, "kappa = %g", kappa);
    TU_EXPECT_OK(skit_condition_number(2, 2, Z, 2, &kappa));
    ck_assert(isinf(kappa) && kappa > 0);
}
END_TEST

/* ---- Lanczos -------------------------------------------------------- */

typedef struct {
    size_t m, n;
    const double *A;
    int calls;
    int fail_after; /* return an error on this call (0: never) */
    int nan_after;  /* return NaN on this call (0: never) */
} dense_op;

static int dense_apply(void *context, int transpose, const double *x, double *y)
{
    dense_op *op = context;
    op->calls++;
    cblas_dgemv(CblasColMajor, transpose ? CblasTrans : CblasNoTrans, (int)op->m, (int)op->n, 1.0, op->A,
                (int)op->m, x, 1, 0.0, y, 1);
    if (op->fail_after && op->calls >= op->fail_after) return SKIT_EDOM;
    if (op->nan_after && op->calls >= op->nan_after) y[0] = NAN;
    return SKIT_OK;
}

START_TEST(test_lanczos_matches_svd_on_random)
{
    uint64_t seed = tu_seed();
    skit_rng rng;
    skit_rng_seed(&rng, seed);
    const size_t more[][2] = {{200, 300}, {300, 200}, {500, 40}};
    for (size_t t = 0; t < NSHAPES + 3; t++) {
        size_t m = t < NSHAPES ? shapes[t][0] : more[t - NSHAPES][0];
        size_t n = t < NSHAPES ? shapes[t][1] : more[t - NSHAPES][1];
        double *A = tu_random(&rng, m * n);
        double want = NAN, got = NAN;
        TU_EXPECT_OK(skit_spectral_norm(m, n, A, m, &want));
        dense_op op = {m, n, A, 0, 0, 0};
        size_t its = 0;
        TU_EXPECT_OK(skit_spectral_norm_lanczos(m, n, dense_apply, &op, 1e-13, 1000, seed + t, &got, &its));
        ck_assert_msg(fabs(got - want) <= 1e-10 * want, "%zux%zu: Lanczos %.17g, SVD %.17g after %zu steps (seed %llu)",
                      m, n, got, want, its, (unsigned long long)seed);
        ck_assert(its >= 1 && its <= (m < n ? m : n));
        ck_assert(got <= want * (1 + 1e-13)); /* a lower bound by construction */
        skit_free(A);
    }
}
END_TEST

/* The n x n lower-triangular all-ones matrix (prefix sum): its singular
 * values are 1 / (2 sin((2k-1) pi / (2(2n+1)))), k = 1..n. Given only by
 * its action (prefix / suffix sums), never formed. */
static int prefix_sum_apply(void *context, int transpose, const double *x, double *y)
{
    size_t n = *(const size_t *)context;
    double acc = 0;
    if (!transpose)
        for (size_t i = 0; i < n; i++) y[i] = acc += x[i];
    else
        for (size_t i = n; i-- > 0;) y[i] = acc += x[i];
    return SKIT_OK;
}

START_TEST(test_lanczos_operator_by_action)
{
    uint64_t seed = tu_seed();
    const size_t sizes[] = {1, 2, 5, 64, 333, 100000};
    for (size_t q = 0; q < sizeof sizes / sizeof sizes[0]; q++) {
        size_t n = sizes[q];
        double want = 1 / (2 * sin(M_PI / (2.0 * (2.0 * (double)n + 1)))), got = NAN;
        size_t its;
        TU_EXPECT_OK(skit_spectral_norm_lanczos(n, n, prefix_sum_apply, &n, 1e-14, 300, seed, &got, &its));
        ck_assert_msg(fabs(got - want) <= 1e-10 * want, "n = %zu: Lanczos %.17g, exact %.17g (%zu steps, seed %llu)",
                      n, got, want, its, (unsigned long long)seed);
        if (n <= 333) { /* and the dense SVD agrees with the formula */
            double *L = tu_alloc(n * n), s;
            for (size_t j = 0; j < n; j++)
                for (size_t i = 0; i < n; i++) L[i + j * n] = i >= j ? 1 : 0;
            TU_EXPECT_OK(skit_spectral_norm(n, n, L, n, &s));
            ck_assert_msg(fabs(s - want) <= 1e-12 * want, "n = %zu: SVD %.17g exact %.17g", n, s, want);
            skit_free(L);
        }
    }
    /* the zero operator: norm 0, converged at once */
    double Z[12] = {0}, got = -1;
    dense_op op = {3, 4, Z, 0, 0, 0};
    TU_EXPECT_OK(skit_spectral_norm_lanczos(3, 4, dense_apply, &op, 1e-10, 10, seed, &got, NULL));
    ck_assert(got == 0);
    /* same seed, same answer bit for bit */
    size_t n = 777;
    double a, b;
    TU_EXPECT_OK(skit_spectral_norm_lanczos(n, n, prefix_sum_apply, &n, 1e-8, 100, 99, &a, NULL));
    TU_EXPECT_OK(skit_spectral_norm_lanczos(n, n, prefix_sum_apply, &n, 1e-8, 100, 99, &b, NULL));
    ck_assert(a == b);
}
END_TEST

/* ---- config: every documented error ------------------------------------ */

START_TEST(test_config_dense_errors)
{
    double A[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, s[3], U[12], Vt[12], out[12], x = 0;
    size_t rank;
    /* NULL pointers */
    TU_EXPECT_STATUS(skit_svd(3, 4, NULL, 3, s, NULL, 0, NULL, 0), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_svd(3, 4, A, 3, NULL, NULL, 0, NULL, 0), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_spectral_norm(3, 4, NULL, 3, &x), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_spectral_norm(3, 4, A, 3, NULL), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_svd_truncate(3, 4, NULL, 3, 1, out, 3, NULL), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_svd_truncate(3, 4, A, 3, 1, NULL, 3, NULL), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_pinv(3, 4, NULL, 3, -1, out, 4, NULL), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_pinv(3, 4, A, 3, -1, NULL, 4, NULL), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_condition_number(3, 4, NULL, 3, &x), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_condition_number(3, 4, A, 3, NULL), SKIT_EINVAL);
    /* m or n = 0 */
    TU_EXPECT_STATUS(skit_svd(0, 4, A, 3, s, NULL, 0, NULL, 0), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_svd(3, 0, A, 3, s, NULL, 0, NULL, 0), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_spectral_norm(0, 4, A, 3, &x), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_spectral_norm(3, 0, A, 3, &x), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_svd_truncate(0, 4, A, 3, 0, out, 3, NULL), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_pinv(3, 0, A, 3, -1, out, 4, NULL), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_condition_number(0, 0, A, 3, &x), SKIT_EDOM);
    ck_assert_msg(strstr(skit_last_error(), "m = 0") != NULL, "%s", skit_last_error());
    /* leading dimensions */
    TU_EXPECT_STATUS(skit_svd(3, 4, A, 2, s, NULL, 0, NULL, 0), SKIT_ESHAPE);
    ck_assert_msg(strstr(skit_last_error(), "lda = 2") != NULL, "%s", skit_last_error());
    TU_EXPECT_STATUS(skit_svd(3, 4, A, 3, s, U, 2, Vt, 3), SKIT_ESHAPE);
    ck_assert_msg(strstr(skit_last_error(), "ldu") != NULL, "%s", skit_last_error());
    TU_EXPECT_STATUS(skit_svd(3, 4, A, 3, s, U, 3, Vt, 2), SKIT_ESHAPE);
    ck_assert_msg(strstr(skit_last_error(), "ldvt") != NULL, "%s", skit_last_error());
    TU_EXPECT_STATUS(skit_spectral_norm(3, 4, A, 1, &x), SKIT_ESHAPE);
    TU_EXPECT_STATUS(skit_svd_truncate(3, 4, A, 3, 1, out, 2, NULL), SKIT_ESHAPE);
    TU_EXPECT_STATUS(skit_pinv(3, 4, A, 3, -1, out, 3, NULL), SKIT_ESHAPE);
    ck_assert_msg(strstr(skit_last_error(), "ldp") != NULL, "%s", skit_last_error());
    TU_EXPECT_STATUS(skit_condition_number(3, 4, A, 2, &x), SKIT_ESHAPE);
    /* r > min(m, n) */
    TU_EXPECT_STATUS(skit_svd_truncate(3, 4, A, 3, 4, out, 3, NULL), SKIT_EDOM);
    ck_assert_msg(strstr(skit_last_error(), "r = 4") != NULL, "%s", skit_last_error());
    /* rtol not finite */
    TU_EXPECT_STATUS(skit_pinv(3, 4, A, 3, NAN, out, 4, &rank), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_pinv(3, 4, A, 3, INFINITY, out, 4, &rank), SKIT_EDOM);
    /* NaN / Inf in A */
    A[7] = NAN;
    TU_EXPECT_STATUS(skit_svd(3, 4, A, 3, s, NULL, 0, NULL, 0), SKIT_ENONFINITE);
    ck_assert_msg(strstr(skit_last_error(), "A(1,2)") != NULL, "%s", skit_last_error());
    TU_EXPECT_STATUS(skit_spectral_norm(3, 4, A, 3, &x), SKIT_ENONFINITE);
    TU_EXPECT_STATUS(skit_svd_truncate(3, 4, A, 3, 1, out, 3, NULL), SKIT_ENONFINITE);
    TU_EXPECT_STATUS(skit_pinv(3, 4, A, 3, -1, out, 4, NULL), SKIT_ENONFINITE);
    A[7] = -INFINITY;
    TU_EXPECT_STATUS(skit_condition_number(3, 4, A, 3, &x), SKIT_ENONFINITE);
    A[7] = 8;
    /* NaN in the padding beyond m (lda > m) is never read */
    double P[8] = {1, 2, NAN, NAN, 3, 4, NAN, NAN};
    TU_EXPECT_OK(skit_spectral_norm(2, 2, P, 4, &x));
    /* a size beyond memory is refused before allocating */
    TU_EXPECT_STATUS(skit_spectral_norm((size_t)1 << 30, (size_t)1 << 30, A, (size_t)1 << 30, &x), SKIT_ETOOBIG);
}
END_TEST

START_TEST(test_config_lanczos_errors)
{
    double A[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, x = 0;
    dense_op op = {3, 4, A, 0, 0, 0};
    TU_EXPECT_STATUS(skit_spectral_norm_lanczos(3, 4, NULL, &op, 1e-10, 10, 1, &x, NULL), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_spectral_norm_lanczos(3, 4, dense_apply, &op, 1e-10, 10, 1, NULL, NULL), SKIT_EINVAL);
    TU_EXPECT_STATUS(skit_spectral_norm_lanczos(0, 4, dense_apply, &op, 1e-10, 10, 1, &x, NULL), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_spectral_norm_lanczos(3, 0, dense_apply, &op, 1e-10, 10, 1, &x, NULL), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_spectral_norm_lanczos(3, 4, dense_apply, &op, 0, 10, 1, &x, NULL), SKIT_EDOM);
    ck_assert_msg(strstr(skit_last_error(), "tol") != NULL, "%s", skit_last_error());
    TU_EXPECT_STATUS(skit_spectral_norm_lanczos(3, 4, dense_apply, &op, NAN, 10, 1, &x, NULL), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_spectral_norm_lanczos(3, 4, dense_apply, &op, 1, 10, 1, &x, NULL), SKIT_EDOM);
    TU_EXPECT_STATUS(skit_spectral_norm_lanczos(3, 4, dense_apply, &op, 1e-10, 0, 1, &x, NULL), SKIT_EDOM);
    ck_assert_msg(strstr(skit_last_error(), "max_iter") != NULL, "%s", skit_last_error());

    /* max_iter too small: SKIT_ENOCONV with a lower bound in *norm */
    uint64_t seed = tu_seed();
    skit_rng rng;
    skit_rng_seed(&rng, seed);
    size_t m = 60, n = 50, its = 0;
    double *R = tu_random(&rng, m * n), want;
    TU_EXPECT_OK(skit_spectral_norm(m, n, R, m, &want));
    dense_op big = {m, n, R, 0, 0, 0};
    x = NAN;
    TU_EXPECT_STATUS(skit_spectral_norm_lanczos(m, n, dense_apply, &big, 1e-15, 2, seed, &x, &its), SKIT_ENOCONV);
    ck_assert_uint_eq(its, 2);
    ck_assert_msg(x > 0 && x <= want * (1 + 1e-13), "lower bound %g vs %g", x, want);
    TU_EXPECT_STATUS(skit_spectral_norm_lanczos(m, n, dense_apply, &big, 1e-15, 1, seed, &x, &its), SKIT_ENOCONV);
    /* the operator's own failure propagates, with its status */
    big.calls = 0;
    big.fail_after = 3;
    TU_EXPECT_STATUS(skit_spectral_norm_lanczos(m, n, dense_apply, &big, 1e-12, 50, seed, &x, NULL), SKIT_EDOM);
    ck_assert_msg(strstr(skit_last_error(), "linear operator") != NULL, "%s", skit_last_error());
    /* NaN from the operator */
    big.calls = 0;
    big.fail_after = 0;
    big.nan_after = 4;
    TU_EXPECT_STATUS(skit_spectral_norm_lanczos(m, n, dense_apply, &big, 1e-12, 50, seed, &x, NULL), SKIT_ENONFINITE);
    /* bases larger than memory are refused before allocating */
    TU_EXPECT_STATUS(skit_spectral_norm_lanczos((size_t)1 << 30, (size_t)1 << 30, dense_apply, &big, 1e-12,
                                                (size_t)1 << 20, seed, &x, NULL),
                     SKIT_ETOOBIG);
    skit_free(R);
}
END_TEST

static Suite *suite_spectral(void)
{
    Suite *s = suite_create("spectral");
    TCase *tc = tcase_create("spectral");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_svd_known_singular_values_and_reconstruction);
    tcase_add_test(tc, test_svd_of_identity_and_diagonal);
    tcase_add_test(tc, test_truncated_svd_is_eckart_young);
    tcase_add_test(tc, test_pinv_moore_penrose);
    tcase_add_test(tc, test_pinv_tolerance_and_zero);
    tcase_add_test(tc, test_condition_number);
    tcase_add_test(tc, test_lanczos_matches_svd_on_random);
    tcase_add_test(tc, test_lanczos_operator_by_action);
    tcase_add_test(tc, test_config_dense_errors);
    tcase_add_test(tc, test_config_lanczos_errors);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tu_main(suite_spectral()); }
