/* attention.cu — exact softmax attention on the device, one query tile at a
 * time so no n_q x n_k matrix is ever held:
 *
 *   S  = scale * K Q_tile^T        (cuBLAS GEMM; keys x rows, column per query)
 *   S  = softmax down each column   (max-shifted: exp never overflows)
 *   Y_tile = S^T V                  (cuBLAS GEMM)
 *
 * Logits are stored transposed (one column per query) so the softmax of a
 * query reads contiguous memory. A causal tile stops both GEMMs at the last
 * key its last row may see (skit_cuda_tile_keys). */
#include "config.h"

#include "cuda/cuda_internal.h"

/* ---- block reductions ------------------------------------------------------------ */

template <typename T> struct max_op {
    __device__ __forceinline__ T operator()(T a, T b) const { return a > b ? a : b; }
};
template <typename T> struct sum_op {
    __device__ __forceinline__ T operator()(T a, T b) const { return a + b; }
};

/* Reduce v over the block (blockDim.x a multiple of 32, at most 1024);
 * every thread gets the result. scratch holds 32 elements. */
template <typename T, typename Op>
__device__ T block_reduce(T v, Op op, T identity, T *scratch)
{
    const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
    for (int offset = 16; offset > 0; offset >>= 1) v = op(v, __shfl_down_sync(0xffffffffu, v, offset));
    if (lane == 0) scratch[warp] = v;
    __syncthreads();
    if (warp == 0) {
        const unsigned warps = (blockDim.x + 31u) >> 5;
        v = lane < warps ? scratch[lane] : identity;
        for (int offset = 16; offset > 0; offset >>= 1)
            v = op(v, __shfl_down_sync(0xffffffffu, v, offset));
        if (lane == 0) scratch[0] = v;
    }
    __syncthreads();
    T result = scratch[0];
    __syncthreads(); /* scratch is reused by the next reduction */
    return result;
}

/* Column q of S (ld rows; `keys` rows in use) holds the logits of query
 * row0 + q. Replace them by softmax weights; masked keys (key_mask[j] = 0)
 * get 0, and a masked query (query_mask) or one without a valid key gets a
 * zero column, so its output row is 0. Masks are NULL (all valid) or
 * device arrays. */
template <typename T>
__global__ void softmax_columns_kernel(T *S, size_t ld, size_t keys, size_t cols, size_t row0,
                                       size_t n_k, int causal, const unsigned char *key_mask,
                                       const unsigned char *query_mask)
{
    typedef skit_cuda_traits<T> tr;
    __shared__ T scratch[32];
    for (size_t q = blockIdx.x; q < cols; q += gridDim.x) {
        T *s = S + q * ld;
        size_t valid = skit_cuda_causal_keys(row0 + q, n_k, causal); /* >= 1, <= keys */
        if (query_mask && !query_mask[row0 + q]) valid = 0;
        T top = tr::neg_inf();
        for (size_t j = threadIdx.x; j < valid; j += blockDim.x)
            if (!key_mask || key_mask[j]) top = s[j] > top ? s[j] : top;
        top = block_reduce(top, max_op<T>(), tr::neg_inf(), scratch);
        if (top == tr::neg_inf()) valid = 0; /* no valid key: a zero column */
        T sum = 0;
        for (size_t j = threadIdx.x; j < valid; j += blockDim.x) {
            T e = (!key_mask || key_mask[j]) ? tr::exp_(s[j] - top) : (T)0;
            s[j] = e;
            sum += e;
        }
        sum = block_reduce(sum, sum_op<T>(), (T)0, scratch); /* >= 1 when valid > 0 */
        T inv = valid ? (T)1 / sum : (T)0;
        for (size_t j = threadIdx.x; j < valid; j += blockDim.x) s[j] *= inv;
        for (size_t j = valid + threadIdx.x; j < keys; j += blockDim.x) s[j] = 0;
    }
}

/* ---- typed GEMMs ----------------------------------------------------------------- */

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

template <typename T>
static int attention_tiles(const struct skit_cuda_attention_plan *p, double scale, const T *Q,
                           size_t ldq, const T *K, size_t ldk, const T *V, size_t ldv, T *Y,
                           size_t ldy, const unsigned char *key_mask,
                           const unsigned char *query_mask)
{
    cublasHandle_t h = (cublasHandle_t)p->blas;
    T *S = (T *)p->logits;
    size_t tiles = skit_cuda_tile_count(p->n_q, p->tile);
    for (size_t t = 0; t < tiles; t++) {
        size_t row0 = t * p->tile, rows = skit_cuda_tile_rows(t, p->n_q, p->tile);
        size_t keys = skit_cuda_tile_keys(row0, rows, p->n_k, p->causal);
        /* sizes and leading dimensions were checked to fit int (api.c) */
        SKIT_CUBLAS_CHECK(gemm(h, CUBLAS_OP_N, CUBLAS_OP_T, (int)keys, (int)rows, (int)p->d_k,
                               scale, K, (int)ldk, Q + row0, (int)ldq, 0.0, S, (int)p->n_k));
        unsigned blocks = (unsigned)(rows < SKIT_CUDA_MAX_BLOCKS ? rows : SKIT_CUDA_MAX_BLOCKS);
        softmax_columns_kernel<T><<<blocks, SKIT_CUDA_BLOCK>>>(S, p->n_k, keys, rows, row0,
                                                               p->n_k, p->causal, key_mask,
                                                               query_mask);
        SKIT_CUDA_CHECK_LAUNCH("softmax");
        SKIT_CUBLAS_CHECK(gemm(h, CUBLAS_OP_T, CUBLAS_OP_N, (int)rows, (int)p->d_v, (int)keys, 1.0,
                               S, (int)p->n_k, V, (int)ldv, 0.0, Y + row0, (int)ldy));
    }
    return SKIT_OK;
}

/* ---- plan ------------------------------------------------------------------------ */

extern "C" int skit_cuda_backend_attention_init(struct skit_cuda_attention_plan *p)
{
    const char *what = "cuda attention plan";
    size_t *total = &p->device_bytes, elt = p->elt;
    SKIT_TRY(skit_cuda_alloc(&p->logits, p->n_k * p->tile * elt, what, total));
    SKIT_TRY(skit_cuda_alloc(&p->q, p->n_q * p->d_k * elt, what, total));
    SKIT_TRY(skit_cuda_alloc(&p->k, p->n_k * p->d_k * elt, what, total));
    SKIT_TRY(skit_cuda_alloc(&p->v, p->n_k * p->d_v * elt, what, total));
    SKIT_TRY(skit_cuda_alloc(&p->y, p->n_q * p->d_v * elt, what, total));
    SKIT_TRY(skit_cuda_alloc(&p->key_mask, p->n_k, what, total));
    SKIT_TRY(skit_cuda_alloc(&p->query_mask, p->n_q, what, total));
    if (p->precision == SKIT_CUDA_FLOAT32) {
        size_t largest = p->n_q * p->d_k;
        if (p->n_k * p->d_k > largest) largest = p->n_k * p->d_k;
        if (p->n_k * p->d_v > largest) largest = p->n_k * p->d_v;
        if (p->n_q * p->d_v > largest) largest = p->n_q * p->d_v;
        SKIT_CUDA_CHECK(cudaMallocHost(&p->host_stage, largest * sizeof(float)));
    }
    /* cuBLAS's recommended workspace: 32 MiB on Hopper and later, 4 MiB before */
    int device = 0, major = 0;
    SKIT_CUDA_CHECK(cudaGetDevice(&device));
    SKIT_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
    size_t work = (size_t)(major >= 9 ? 32 : 4) << 20;
    SKIT_TRY(skit_cuda_alloc(&p->blas_work, work, what, total));
    cublasHandle_t h = NULL;
    SKIT_CUBLAS_CHECK(cublasCreate(&h));
    p->blas = (void *)h;
    SKIT_CUBLAS_CHECK(cublasSetWorkspace(h, p->blas_work, work));
    /* exact arithmetic of the requested precision (no TF32 shortcuts) */
    SKIT_CUBLAS_CHECK(cublasSetMathMode(h, CUBLAS_PEDANTIC_MATH));
    return SKIT_OK;
}

extern "C" void skit_cuda_backend_attention_release(struct skit_cuda_attention_plan *p)
{
    if (p->blas) cublasDestroy((cublasHandle_t)p->blas);
    p->blas = NULL;
    skit_cuda_backend_free(p->blas_work);
    skit_cuda_backend_free(p->logits);
    skit_cuda_backend_free(p->q);
    skit_cuda_backend_free(p->k);
    skit_cuda_backend_free(p->v);
    skit_cuda_backend_free(p->y);
    skit_cuda_backend_free(p->key_mask);
    skit_cuda_backend_free(p->query_mask);
    if (p->host_stage && cudaFreeHost(p->host_stage) != cudaSuccess) cudaGetLastError();
    p->blas_work = p->logits = p->q = p->k = p->v = p->y = p->host_stage = NULL;
    p->key_mask = p->query_mask = NULL;
}

static int attention_any(const struct skit_cuda_attention_plan *p, double scale, const void *Q,
                         size_t ldq, const void *K, size_t ldk, const void *V, size_t ldv, void *Y,
                         size_t ldy, const unsigned char *key_mask,
                         const unsigned char *query_mask)
{
    if (p->precision == SKIT_CUDA_FLOAT64)
        return attention_tiles<double>(p, scale, (const double *)Q, ldq, (const double *)K, ldk,
                                       (const double *)V, ldv, (double *)Y, ldy, key_mask,
                                       query_mask);
    return attention_tiles<float>(p, scale, (const float *)Q, ldq, (const float *)K, ldk,
                                  (const float *)V, ldv, (float *)Y, ldy, key_mask, query_mask);
}

extern "C" int skit_cuda_backend_attention_device(const struct skit_cuda_attention_plan *p,
                                                  double scale, const void *Q, size_t ldq,
                                                  const void *K, size_t ldk, const void *V,
                                                  size_t ldv, void *Y, size_t ldy)
{
    return attention_any(p, scale, Q, ldq, K, ldk, V, ldv, Y, ldy, NULL, NULL);
}

/* Host rows x cols block (ld) -> contiguous device block in the plan's
 * precision, through the pinned stage for float32. */
static int upload_block(const struct skit_cuda_attention_plan *p, void *dst, const double *src,
                        size_t rows, size_t cols, size_t ld)
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

static int download_block(const struct skit_cuda_attention_plan *p, double *dst, size_t ld,
                          const void *src, size_t rows, size_t cols)
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

extern "C" int skit_cuda_backend_attention_host(const struct skit_cuda_attention_plan *p,
                                                double scale, const double *Q, size_t ldq,
                                                const double *K, size_t ldk, const double *V,
                                                size_t ldv, const unsigned char *key_mask,
                                                const unsigned char *query_mask, double *Y,
                                                size_t ldy)
{
    SKIT_TRY(upload_block(p, p->q, Q, p->n_q, p->d_k, ldq));
    SKIT_TRY(upload_block(p, p->k, K, p->n_k, p->d_k, ldk));
    SKIT_TRY(upload_block(p, p->v, V, p->n_k, p->d_v, ldv));
    if (key_mask)
        SKIT_CUDA_CHECK(cudaMemcpy(p->key_mask, key_mask, p->n_k, cudaMemcpyHostToDevice));
    if (query_mask)
        SKIT_CUDA_CHECK(cudaMemcpy(p->query_mask, query_mask, p->n_q, cudaMemcpyHostToDevice));
    SKIT_TRY(attention_any(p, scale, p->q, p->n_q, p->k, p->n_k, p->v, p->n_k, p->y, p->n_q,
                           key_mask ? (const unsigned char *)p->key_mask : NULL,
                           query_mask ? (const unsigned char *)p->query_mask : NULL));
    return download_block(p, Y, ldy, p->y, p->n_q, p->d_v);
}
