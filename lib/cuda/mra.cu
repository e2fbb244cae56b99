/* mra.cu — MRA-2 and MRA-2-s attention on the device, R = {b, 1}, with the
 * CPU plan's semantics (lib/attention/mra.c):
 *
 *   Qm, Km, Vm, cnt = block means of the valid tokens    (kernel)
 *   C  = scale * Km Qm^T            (cuBLAS; C[y + x*rows], column per query block)
 *   selection on the host            (C copied back; the attention module's rule, p->select)
 *   coarse:  m0, den0, E = cnt exp(C - m0) on unrefined squares, num0 = E^T Vm
 *   fine:    S_e = scale * K_y Q_x^T for every refined square e  (batched GEMM)
 *            per query: m_f, den_f, S_e <- exp(S_e - m_f)       (kernel)
 *            N_e = S_e^T V_y                                     (batched GEMM)
 *   merge:   Y(i, :) = (w_f sum_e N_e(i, :) + w_0 num0(x, :)) / (w_f den_f + w_0 den0)
 *            with w_l = exp(m_l - max(m_0, m_f))                 (kernel)
 *
 * The per-thread work of every kernel is in lib/cuda/mra_logic.h (through
 * index_logic.h), which the CPU tests run. */
#include "config.h"

#include "cuda/cuda_internal.h"

/* ---- typed wrappers of the shared per-thread logic -------------------------------- */

static __device__ __forceinline__ double block_mean(const double *col, size_t xb, size_t s,
                                                    const unsigned char *mask, size_t *count)
{
    return skit_cuda_mra_block_mean_d(col, xb, s, mask, count);
}
static __device__ __forceinline__ float block_mean(const float *col, size_t xb, size_t s,
                                                   const unsigned char *mask, size_t *count)
{
    return skit_cuda_mra_block_mean_f(col, xb, s, mask, count);
}
static __device__ __forceinline__ void coarse_row(double *col, size_t rows, const uint32_t *row_ptr,
                                                  const uint32_t *cols, size_t x, const double *cnt,
                                                  double bias, double *m, double *den)
{
    skit_cuda_mra_coarse_row_d(col, rows, row_ptr, cols, x, cnt, bias, m, den);
}
static __device__ __forceinline__ void coarse_row(float *col, size_t rows, const uint32_t *row_ptr,
                                                  const uint32_t *cols, size_t x, const float *cnt,
                                                  float bias, float *m, float *den)
{
    skit_cuda_mra_coarse_row_f(col, rows, row_ptr, cols, x, cnt, bias, m, den);
}
static __device__ __forceinline__ void fine_row(double *fine, size_t i, size_t b,
                                                const uint32_t *row_ptr, const uint32_t *cols,
                                                const unsigned char *mask, double bias, double *m,
                                                double *den)
{
    skit_cuda_mra_fine_row_d(fine, i, b, row_ptr, cols, mask, bias, m, den);
}
static __device__ __forceinline__ void fine_row(float *fine, size_t i, size_t b,
                                                const uint32_t *row_ptr, const uint32_t *cols,
                                                const unsigned char *mask, float bias, float *m,
                                                float *den)
{
    skit_cuda_mra_fine_row_f(fine, i, b, row_ptr, cols, mask, bias, m, den);
}
static __device__ __forceinline__ double merge(size_t i, size_t col, size_t b, size_t dv,
                                               const uint32_t *row_ptr, const double *fnum,
                                               const double *mf, const double *denf, int sparse,
                                               size_t rows, const double *m0, const double *den0,
                                               const double *num0, const unsigned char *mask)
{
    return skit_cuda_mra_merge_d(i, col, b, dv, row_ptr, fnum, mf, denf, sparse, rows, m0, den0,
                                 num0, mask);
}
static __device__ __forceinline__ float merge(size_t i, size_t col, size_t b, size_t dv,
                                              const uint32_t *row_ptr, const float *fnum,
                                              const float *mf, const float *denf, int sparse,
                                              size_t rows, const float *m0, const float *den0,
                                              const float *num0, const unsigned char *mask)
{
    return skit_cuda_mra_merge_f(i, col, b, dv, row_ptr, fnum, mf, denf, sparse, rows, m0, den0,
                                 num0, mask);
}

/* ---- kernels ------------------------------------------------------------------------ */

/* out (rows x ncols, ld rows) = block means of x's columns; cnt (rows),
 * if not NULL, = valid tokens per block. */
template <typename T>
__global__ void block_means_kernel(size_t rows, size_t ncols, const T *x, size_t ldx, size_t s,
                                   const unsigned char *mask, T *out, T *cnt)
{
    SKIT_CUDA_FOR(t, rows * ncols)
    {
        size_t xb, c, count;
        skit_cuda_split(t, rows, &xb, &c);
        out[t] = block_mean(x + c * ldx, xb, s, mask, &count);
        if (cnt && c == 0) cnt[xb] = (T)count;
    }
}

/* Squares with an empty query or key block get logit -inf. */
template <typename T> __global__ void coarse_mask_kernel(size_t rows, const T *cnt, T *C)
{
    SKIT_CUDA_FOR(t, rows * rows)
    {
        size_t y, x;
        skit_cuda_split(t, rows, &y, &x);
        if (cnt[x] == (T)0 || cnt[y] == (T)0) C[t] = skit_cuda_traits<T>::neg_inf();
    }
}

template <typename T>
__global__ void coarse_rows_kernel(size_t rows, const uint32_t *row_ptr, const uint32_t *cols,
                                   const T *cnt, T bias, T *C, T *m0, T *den0)
{
    SKIT_CUDA_FOR(x, rows) coarse_row(C + x * rows, rows, row_ptr, cols, x, cnt, bias, m0 + x, den0 + x);
}

/* Operand pointers of the two batched GEMMs of square e. */
template <typename T>
__global__ void pointers_kernel(size_t nref, size_t cap, size_t b, size_t dv, const uint32_t *cols,
                                const uint32_t *prow, const T *Q, size_t ldq, const T *K,
                                size_t ldk, const T *V, size_t ldv, T *fine, T *fnum, void **ptrs)
{
    (void)ldq;
    (void)ldk;
    (void)ldv;
    SKIT_CUDA_FOR(e, nref)
    {
        size_t key_row, query_row;
        skit_cuda_mra_square_rows(e, cols, prow, b, &key_row, &query_row);
        T *S = fine + skit_cuda_mra_fine_offset(e, 0, 0, b);
        ptrs[0 * cap + e] = (void *)(K + key_row);
        ptrs[1 * cap + e] = (void *)(Q + query_row);
        ptrs[2 * cap + e] = (void *)S;
        ptrs[3 * cap + e] = (void *)S;
        ptrs[4 * cap + e] = (void *)(V + key_row);
        ptrs[5 * cap + e] = (void *)(fnum + skit_cuda_mra_num_offset(e, 0, 0, b, dv));
    }
}

template <typename T>
__global__ void fine_rows_kernel(size_t n, size_t b, const uint32_t *row_ptr, const uint32_t *cols,
                                 const unsigned char *mask, T bias, T *fine, T *mf, T *denf)
{
    SKIT_CUDA_FOR(i, n) fine_row(fine, i, b, row_ptr, cols, mask, bias, mf + i, denf + i);
}

template <typename T>
__global__ void merge_kernel(size_t n, size_t dv, size_t b, const uint32_t *row_ptr, const T *fnum,
                             const T *mf, const T *denf, int sparse, size_t rows, const T *m0,
                             const T *den0, const T *num0, const unsigned char *mask, T *Y,
                             size_t ldy)
{
    SKIT_CUDA_FOR(t, n * dv)
    {
        size_t i, c;
        skit_cuda_split(t, n, &i, &c);
        Y[i + c * ldy] = merge(i, c, b, dv, row_ptr, fnum, mf, denf, sparse, rows, m0, den0, num0, mask);
    }
}

/* ---- typed GEMMs ------------------------------------------------------------------------ */

static cublasStatus_t gemm(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m,
                           int n, int k, double alpha, const double *A, int lda, const double *B,
                           int ldb, double beta, double *C, int ldc)
{
    return cublasDgemm(h, ta, tb, m, n, k, &alpha, A, lda, B, ldb, &beta, C, ldc);
}

static cublasStatus_t gemm(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m,
                           int n, int k, double alpha, const float *A, int lda, const float *B,
                           int ldb, double beta, float *C, int ldc)
{
    float a = (float)alpha, b = (float)beta;
    return cublasSgemm(h, ta, tb, m, n, k, &a, A, lda, B, ldb, &b, C, ldc);
}

static cublasStatus_t gemm_batched(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb,
                                   int m, int n, int k, double alpha, void **A, int lda, void **B,
                                   int ldb, double *C_type, void **C, int ldc, int count)
{
    (void)C_type;
    double a = alpha, zero = 0.0;
    return cublasDgemmBatched(h, ta, tb, m, n, k, &a, (const double *const *)A, lda,
                              (const double *const *)B, ldb, &zero, (double *const *)C, ldc, count);
}

static cublasStatus_t gemm_batched(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb,
                                   int m, int n, int k, double alpha, void **A, int lda, void **B,
                                   int ldb, float *C_type, void **C, int ldc, int count)
{
    (void)C_type;
    float a = (float)alpha, zero = 0.0f;
    return cublasSgemmBatched(h, ta, tb, m, n, k, &a, (const float *const *)A, lda,
                              (const float *const *)B, ldb, &zero, (float *const *)C, ldc, count);
}

/* Batches of at most this many products per cuBLAS call (the grid's
 * third dimension in some cuBLAS versions). */
#define MRA_BATCH_CHUNK 65535

/* ---- the pipeline ---------------------------------------------------------------------- */

/* C (rows x rows, the plan's precision) -> host doubles in h_coarse. */
static int coarse_to_host(const struct skit_cuda_mra_plan *p)
{
    size_t count = p->rows * p->rows;
    if (p->precision == SKIT_CUDA_FLOAT64) {
        SKIT_CUDA_CHECK(cudaMemcpy(p->h_coarse, p->coarse, count * sizeof(double),
                                   cudaMemcpyDeviceToHost));
        return SKIT_OK;
    }
    float *stage = (float *)p->host_stage;
    SKIT_CUDA_CHECK(cudaMemcpy(stage, p->coarse, count * sizeof(float), cudaMemcpyDeviceToHost));
    for (size_t t = 0; t < count; t++) p->h_coarse[t] = (double)stage[t];
    return SKIT_OK;
}

template <typename T>
static int mra_run(const struct skit_cuda_mra_plan *p, const T *Q, size_t ldq, const T *K,
                   size_t ldk, const T *V, size_t ldv, const unsigned char *mask, T *Y, size_t ldy)
{
    cublasHandle_t h = (cublasHandle_t)p->blas;
    const size_t n = p->n, d = p->d, dv = p->dv, b = p->b, rows = p->rows, cap = p->ref_cap;
    T *qm = (T *)p->qm, *km = (T *)p->km, *vm = (T *)p->vm, *cnt = (T *)p->cnt;
    T *C = (T *)p->coarse, *fine = (T *)p->fine, *fnum = (T *)p->fnum;
    T *m0 = (T *)p->m0, *den0 = (T *)p->den0, *num0 = (T *)p->num0;
    T *mf = (T *)p->mf, *denf = (T *)p->denf;
    const T bias = (T)p->shift_bias;
    uint32_t *row_ptr = (uint32_t *)p->csr, *cols = row_ptr + rows + 1, *prow = cols + cap;

    /* 1. block means and counts */
    block_means_kernel<T><<<skit_cuda_blocks_for(rows * d), SKIT_CUDA_BLOCK>>>(rows, d, Q, ldq, b,
                                                                              mask, qm, cnt);
    SKIT_CUDA_CHECK_LAUNCH("block means");
    block_means_kernel<T><<<skit_cuda_blocks_for(rows * d), SKIT_CUDA_BLOCK>>>(rows, d, K, ldk, b,
                                                                              mask, km, NULL);
    SKIT_CUDA_CHECK_LAUNCH("block means");
    block_means_kernel<T><<<skit_cuda_blocks_for(rows * dv), SKIT_CUDA_BLOCK>>>(rows, dv, V, ldv,
                                                                               b, mask, vm, NULL);
    SKIT_CUDA_CHECK_LAUNCH("block means");

    /* 2. coarse logits C[y + x*rows] = scale * km_y . qm_x (sizes checked to fit int) */
    SKIT_CUBLAS_CHECK(gemm(h, CUBLAS_OP_N, CUBLAS_OP_T, (int)rows, (int)rows, (int)d, p->scale, km,
                           (int)rows, qm, (int)rows, 0.0, C, (int)rows));
    if (mask) {
        coarse_mask_kernel<T><<<skit_cuda_blocks_for(rows * rows), SKIT_CUDA_BLOCK>>>(rows, cnt, C);
        SKIT_CUDA_CHECK_LAUNCH("coarse mask");
    }

    /* 3. selection on the host (the copy waits for the work above) */
    SKIT_TRY(coarse_to_host(p));
    uint32_t *h_row_ptr = p->h_csr, *h_cols = h_row_ptr + rows + 1, *h_prow = h_cols + cap;
    size_t nref = p->select(rows, p->h_coarse, p->per_row, p->selection, p->diagonal_prior,
                            p->first_block_prior, p->h_score, p->h_tmp, p->h_ids, p->h_flags,
                            h_row_ptr, h_cols, h_prow);
    p->state[0] = nref;
    /* row_ptr and cols, then prow: only the entries in use */
    SKIT_CUDA_CHECK(cudaMemcpy(row_ptr, h_row_ptr, (rows + 1 + nref) * sizeof(uint32_t),
                               cudaMemcpyHostToDevice));
    SKIT_CUDA_CHECK(cudaMemcpy(prow, h_prow, nref * sizeof(uint32_t), cudaMemcpyHostToDevice));

    /* 4. coarse level (MRA-2): weights in place of C, num0 = E^T vm */
    if (!p->sparse) {
        coarse_rows_kernel<T><<<skit_cuda_blocks_for(rows), SKIT_CUDA_BLOCK>>>(
            rows, row_ptr, cols, cnt, bias, C, m0, den0);
        SKIT_CUDA_CHECK_LAUNCH("coarse level");
        SKIT_CUBLAS_CHECK(gemm(h, CUBLAS_OP_T, CUBLAS_OP_N, (int)rows, (int)dv, (int)rows, 1.0, C,
                               (int)rows, vm, (int)rows, 0.0, num0, (int)rows));
    }

    /* 5. fine level on the refined squares */
    void **ptrs = (void **)p->ptrs;
    if (nref > 0) {
        pointers_kernel<T><<<skit_cuda_blocks_for(nref), SKIT_CUDA_BLOCK>>>(
            nref, cap, b, dv, cols, prow, Q, ldq, K, ldk, V, ldv, fine, fnum, ptrs);
        SKIT_CUDA_CHECK_LAUNCH("MRA pointers");
        for (size_t e0 = 0; e0 < nref; e0 += MRA_BATCH_CHUNK) {
            int count = (int)(nref - e0 < MRA_BATCH_CHUNK ? nref - e0 : MRA_BATCH_CHUNK);
            SKIT_CUBLAS_CHECK(gemm_batched(h, CUBLAS_OP_N, CUBLAS_OP_T, (int)b, (int)b, (int)d,
                                           p->scale, ptrs + 0 * cap + e0, (int)ldk,
                                           ptrs + 1 * cap + e0, (int)ldq, (T *)NULL,
                                           ptrs + 2 * cap + e0, (int)b, count));
        }
    }
    fine_rows_kernel<T><<<skit_cuda_blocks_for(n), SKIT_CUDA_BLOCK>>>(n, b, row_ptr, cols, mask,
                                                                     bias, fine, mf, denf);
    SKIT_CUDA_CHECK_LAUNCH("fine level");
    for (size_t e0 = 0; e0 < nref; e0 += MRA_BATCH_CHUNK) {
        int count = (int)(nref - e0 < MRA_BATCH_CHUNK ? nref - e0 : MRA_BATCH_CHUNK);
        SKIT_CUBLAS_CHECK(gemm_batched(h, CUBLAS_OP_T, CUBLAS_OP_N, (int)b, (int)dv, (int)b, 1.0,
                                       ptrs + 3 * cap + e0, (int)b, ptrs + 4 * cap + e0, (int)ldv,
                                       (T *)NULL, ptrs + 5 * cap + e0, (int)b, count));
    }

    /* 6. merge and normalise */
    merge_kernel<T><<<skit_cuda_blocks_for(n * dv), SKIT_CUDA_BLOCK>>>(
        n, dv, b, row_ptr, fnum, mf, denf, p->sparse, rows, m0, den0, num0, mask, Y, ldy);
    SKIT_CUDA_CHECK_LAUNCH("MRA merge");
    return SKIT_OK;
}

/* ---- plan ------------------------------------------------------------------------------- */

extern "C" int skit_cuda_backend_mra_init(struct skit_cuda_mra_plan *p)
{
    const char *what = "cuda MRA plan";
    size_t *total = &p->device_bytes, elt = p->elt;
    const size_t n = p->n, d = p->d, dv = p->dv, b = p->b, rows = p->rows, cap = p->ref_cap;
    SKIT_TRY(skit_cuda_alloc(&p->qm, rows * d * elt, what, total));
    SKIT_TRY(skit_cuda_alloc(&p->km, rows * d * elt, what, total));
    SKIT_TRY(skit_cuda_alloc(&p->vm, rows * dv * elt, what, total));
    SKIT_TRY(skit_cuda_alloc(&p->cnt, rows * elt, what, total));
    SKIT_TRY(skit_cuda_alloc(&p->coarse, rows * rows * elt, what, total));
    if (!p->sparse) {
        SKIT_TRY(skit_cuda_alloc(&p->m0, rows * elt, what, total));
        SKIT_TRY(skit_cuda_alloc(&p->den0, rows * elt, what, total));
        SKIT_TRY(skit_cuda_alloc(&p->num0, rows * dv * elt, what, total));
    }
    SKIT_TRY(skit_cuda_alloc(&p->csr, (rows + 1 + 2 * cap) * sizeof(uint32_t), what, total));
    SKIT_TRY(skit_cuda_alloc(&p->ptrs, 6 * cap * sizeof(void *), what, total));
    SKIT_TRY(skit_cuda_alloc(&p->fine, cap * b * b * elt, what, total));
    SKIT_TRY(skit_cuda_alloc(&p->fnum, cap * b * dv * elt, what, total));
    SKIT_TRY(skit_cuda_alloc(&p->mf, n * elt, what, total));
    SKIT_TRY(skit_cuda_alloc(&p->denf, n * elt, what, total));
    SKIT_TRY(skit_cuda_alloc(&p->q, n * d * elt, what, total));
    SKIT_TRY(skit_cuda_alloc(&p->k, n * d * elt, what, total));
    SKIT_TRY(skit_cuda_alloc(&p->v, n * dv * elt, what, total));
    SKIT_TRY(skit_cuda_alloc(&p->y, n * dv * elt, what, total));
    SKIT_TRY(skit_cuda_alloc(&p->mask, n, what, total));

    p->h_coarse = (double *)skit_malloc(rows * rows, sizeof(double));
    p->h_score = (double *)skit_malloc(rows * rows, sizeof(double));
    p->h_tmp = (double *)skit_malloc(rows * rows, sizeof(double));
    p->h_ids = (uint32_t *)skit_malloc(rows, sizeof(uint32_t));
    p->h_flags = (unsigned char *)skit_malloc(rows, 1);
    p->h_csr = (uint32_t *)skit_malloc(rows + 1 + 2 * cap, sizeof(uint32_t));
    p->state = (size_t *)skit_calloc(1, sizeof(size_t));
    if (!p->h_coarse || !p->h_score || !p->h_tmp || !p->h_ids || !p->h_flags || !p->h_csr ||
        !p->state)
        return SKIT_ENOMEM;
    if (p->precision == SKIT_CUDA_FLOAT32) {
        size_t largest = n * (d > dv ? d : dv);
        if (rows * rows > largest) largest = rows * rows;
        SKIT_CUDA_CHECK(cudaMallocHost(&p->host_stage, largest * sizeof(float)));
    }

    int device = 0, major = 0;
    SKIT_CUDA_CHECK(cudaGetDevice(&device));
    SKIT_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
    size_t work = (size_t)(major >= 9 ? 32 : 4) << 20;
    SKIT_TRY(skit_cuda_alloc(&p->blas_work, work, what, total));
    cublasHandle_t h = NULL;
    SKIT_CUBLAS_CHECK(cublasCreate(&h));
    p->blas = (void *)h;
    SKIT_CUBLAS_CHECK(cublasSetWorkspace(h, p->blas_work, work));
    SKIT_CUBLAS_CHECK(cublasSetMathMode(h, CUBLAS_PEDANTIC_MATH));
    return SKIT_OK;
}

extern "C" void skit_cuda_backend_mra_release(struct skit_cuda_mra_plan *p)
{
    if (p->blas) cublasDestroy((cublasHandle_t)p->blas);
    p->blas = NULL;
    void **device[] = {&p->qm,   &p->km,  &p->vm,   &p->cnt,  &p->coarse, &p->m0,   &p->den0,
                       &p->num0, &p->csr, &p->ptrs, &p->fine, &p->fnum,   &p->mf,   &p->denf,
                       &p->q,    &p->k,   &p->v,    &p->y,    &p->mask,   &p->blas_work};
    for (size_t i = 0; i < sizeof device / sizeof device[0]; i++) {
        skit_cuda_backend_free(*device[i]);
        *device[i] = NULL;
    }
    if (p->host_stage && cudaFreeHost(p->host_stage) != cudaSuccess) cudaGetLastError();
    p->host_stage = NULL;
    skit_free(p->h_coarse);
    skit_free(p->h_score);
    skit_free(p->h_tmp);
    skit_free(p->h_ids);
    skit_free(p->h_flags);
    skit_free(p->h_csr);
    skit_free(p->state);
    p->h_coarse = p->h_score = p->h_tmp = NULL;
    p->h_ids = p->h_csr = NULL;
    p->h_flags = NULL;
    p->state = NULL;
}

extern "C" int skit_cuda_backend_mra_device(const struct skit_cuda_mra_plan *p, const void *Q,
                                            size_t ldq, const void *K, size_t ldk, const void *V,
                                            size_t ldv, const unsigned char *mask, void *Y,
                                            size_t ldy)
{
    if (p->precision == SKIT_CUDA_FLOAT64)
        return mra_run<double>(p, (const double *)Q, ldq, (const double *)K, ldk,
                               (const double *)V, ldv, mask, (double *)Y, ldy);
    return mra_run<float>(p, (const float *)Q, ldq, (const float *)K, ldk, (const float *)V, ldv,
                          mask, (float *)Y, ldy);
}

/* Host rows x cols block (ld) -> contiguous device block in the plan's
 * precision, through the pinned stage for float32. */
static int upload(const struct skit_cuda_mra_plan *p, void *dst, const double *src, size_t rows,
                  size_t cols, size_t ld)
{
    if (p->precision == SKIT_CUDA_FLOAT64)
        return skit_cuda_copy_2d(dst, rows * sizeof(double), src, ld * sizeof(double),
                                 rows * sizeof(double), cols, cudaMemcpyHostToDevice);
    float *stage = (float *)p->host_stage;
    for (size_t c = 0; c < cols; c++)
        for (size_t i = 0; i < rows; i++) stage[i + c * rows] = (float)src[i + c * ld];
    SKIT_CUDA_CHECK(cudaMemcpy(dst, stage, rows * cols * sizeof(float), cudaMemcpyHostToDevice));
    return SKIT_OK;
}

static int download(const struct skit_cuda_mra_plan *p, double *dst, size_t ld, const void *src,
                    size_t rows, size_t cols)
{
    if (p->precision == SKIT_CUDA_FLOAT64)
        return skit_cuda_copy_2d(dst, ld * sizeof(double), src, rows * sizeof(double),
                                 rows * sizeof(double), cols, cudaMemcpyDeviceToHost);
    float *stage = (float *)p->host_stage;
    SKIT_CUDA_CHECK(cudaMemcpy(stage, src, rows * cols * sizeof(float), cudaMemcpyDeviceToHost));
    for (size_t c = 0; c < cols; c++)
        for (size_t i = 0; i < rows; i++) dst[i + c * ld] = (double)stage[i + c * rows];
    return SKIT_OK;
}

extern "C" int skit_cuda_backend_mra_host(const struct skit_cuda_mra_plan *p, const double *Q,
                                          size_t ldq, const double *K, size_t ldk,
                                          const double *V, size_t ldv, const unsigned char *mask,
                                          double *Y, size_t ldy)
{
    const size_t n = p->n;
    SKIT_TRY(upload(p, p->q, Q, n, p->d, ldq));
    SKIT_TRY(upload(p, p->k, K, n, p->d, ldk));
    SKIT_TRY(upload(p, p->v, V, n, p->dv, ldv));
    if (mask) SKIT_CUDA_CHECK(cudaMemcpy(p->mask, mask, n, cudaMemcpyHostToDevice));
    SKIT_TRY(skit_cuda_backend_mra_device(p, p->q, n, p->k, n, p->v, n,
                                          mask ? (const unsigned char *)p->mask : NULL, p->y, n));
    return download(p, Y, ldy, p->y, n, p->dv);
}
