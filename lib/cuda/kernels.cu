/* kernels.cu — elementwise device kernels of a token mixer: pointwise
 * complex products (FD-TNO, FFT convolution), banded Toeplitz products (the
 * short convolution of SKI-TNO) and SKI interpolation gather / scatter.
 * Every index comes from lib/cuda/index_logic.h, which the CPU tests check. */
#include "config.h"

#include "cuda/cuda_internal.h"

/* ---- pointwise complex product ------------------------------------------------ */

template <typename T>
__global__ void complex_multiply_kernel(size_t nfreq, size_t d, int shared,
                                        const typename skit_cuda_traits<T>::complex_type *s,
                                        size_t lds,
                                        typename skit_cuda_traits<T>::complex_type *z, size_t ldz,
                                        int conjugate)
{
    typedef typename skit_cuda_traits<T>::complex_type C;
    SKIT_CUDA_FOR(t, nfreq * d)
    {
        size_t f, c;
        skit_cuda_split(t, nfreq, &f, &c);
        C a = z[f + c * ldz];
        C b = s[skit_cuda_spectrum_offset(f, c, shared, lds)];
        T bi = conjugate ? -b.y : b.y;
        C out;
        out.x = a.x * b.x - a.y * bi;
        out.y = a.x * bi + a.y * b.x;
        z[f + c * ldz] = out;
    }
}

int skit_cuda_launch_complex_multiply(skit_cuda_precision precision, size_t nfreq, size_t d,
                                      int shared, const void *s, size_t lds, void *z, size_t ldz,
                                      int conjugate)
{
    unsigned blocks = skit_cuda_blocks_for(nfreq * d);
    if (precision == SKIT_CUDA_FLOAT64)
        complex_multiply_kernel<double><<<blocks, SKIT_CUDA_BLOCK>>>(
            nfreq, d, shared, (const double2 *)s, lds, (double2 *)z, ldz, conjugate);
    else
        complex_multiply_kernel<float><<<blocks, SKIT_CUDA_BLOCK>>>(
            nfreq, d, shared, (const float2 *)s, lds, (float2 *)z, ldz, conjugate);
    SKIT_CUDA_CHECK_LAUNCH("complex multiply");
    return SKIT_OK;
}

extern "C" int skit_cuda_backend_complex_multiply(skit_cuda_precision precision, size_t nfreq,
                                                  size_t d, int shared, const void *s, size_t lds,
                                                  void *z, size_t ldz, int conjugate)
{
    return skit_cuda_launch_complex_multiply(precision, nfreq, d, shared, s, lds, z, ldz,
                                             conjugate);
}

/* ---- banded Toeplitz product ------------------------------------------------------ */

template <typename T>
__global__ void band_kernel(size_t n, size_t d, size_t lo, size_t hi, int shared, const T *taps,
                            const T *x, size_t ldx, T *y, size_t ldy, int accumulate)
{
    size_t ntaps = lo + hi + 1;
    SKIT_CUDA_FOR(t, n * d)
    {
        size_t i, c;
        skit_cuda_split(t, n, &i, &c);
        ptrdiff_t lmin, lmax;
        skit_cuda_band_lags(i, n, lo, hi, &lmin, &lmax);
        const T *tc = taps + (shared ? 0 : c * ntaps) + lo; /* tc[l] = t_l */
        const T *xc = x + c * ldx;
        T sum = 0;
        for (ptrdiff_t l = lmin; l <= lmax; l++) sum += tc[l] * xc[(ptrdiff_t)i - l];
        T *out = y + i + c * ldy;
        *out = accumulate ? *out + sum : sum;
    }
}

extern "C" int skit_cuda_backend_band_convolve(skit_cuda_precision precision, size_t n, size_t d,
                                               size_t lo, size_t hi, int shared, const void *taps,
                                               const void *x, size_t ldx, void *y, size_t ldy,
                                               int accumulate)
{
    unsigned blocks = skit_cuda_blocks_for(n * d);
    if (precision == SKIT_CUDA_FLOAT64)
        band_kernel<double><<<blocks, SKIT_CUDA_BLOCK>>>(n, d, lo, hi, shared,
                                                         (const double *)taps, (const double *)x,
                                                         ldx, (double *)y, ldy, accumulate);
    else
        band_kernel<float><<<blocks, SKIT_CUDA_BLOCK>>>(n, d, lo, hi, shared, (const float *)taps,
                                                        (const float *)x, ldx, (float *)y, ldy,
                                                        accumulate);
    SKIT_CUDA_CHECK_LAUNCH("band convolution");
    return SKIT_OK;
}

/* ---- SKI interpolation ------------------------------------------------------------- */

/* y(i, c) (+)= sum_k w[i*width+k] u(cols[i*width+k], c) */
template <typename T>
__global__ void interp_gather_kernel(size_t n, size_t width, const size_t *cols, const T *w,
                                     size_t d, const T *u, size_t ldu, T *y, size_t ldy,
                                     int accumulate)
{
    SKIT_CUDA_FOR(t, n * d)
    {
        size_t i, c;
        skit_cuda_split(t, n, &i, &c);
        const T *uc = u + c * ldu;
        T sum = 0;
        for (size_t k = 0; k < width; k++) sum += w[i * width + k] * uc[cols[i * width + k]];
        T *out = y + i + c * ldy;
        *out = accumulate ? *out + sum : sum;
    }
}

/* u(j, c) = sum over W^T's row j: weight * x(row, c) — a gather, no atomics */
template <typename T>
__global__ void interp_scatter_kernel(size_t r, const size_t *t_ptr, const size_t *t_row,
                                      const T *t_w, size_t d, const T *x, size_t ldx, T *u,
                                      size_t ldu)
{
    SKIT_CUDA_FOR(t, r * d)
    {
        size_t j, c;
        skit_cuda_split(t, r, &j, &c);
        const T *xc = x + c * ldx;
        T sum = 0;
        for (size_t e = t_ptr[j]; e < t_ptr[j + 1]; e++) sum += t_w[e] * xc[t_row[e]];
        u[j + c * ldu] = sum;
    }
}

/* Converts n doubles to the plan's precision into a temporary host array
 * (set-up only) and uploads them. */
static int upload_reals(void *dst, const double *src, size_t count, skit_cuda_precision precision)
{
    if (precision == SKIT_CUDA_FLOAT64) {
        SKIT_CUDA_CHECK(cudaMemcpy(dst, src, count * sizeof(double), cudaMemcpyHostToDevice));
        return SKIT_OK;
    }
    float *tmp = (float *)skit_malloc(count, sizeof(float));
    if (!tmp) return SKIT_ENOMEM;
    for (size_t i = 0; i < count; i++) tmp[i] = (float)src[i];
    cudaError_t error = cudaMemcpy(dst, tmp, count * sizeof(float), cudaMemcpyHostToDevice);
    skit_free(tmp);
    if (error != cudaSuccess) return skit_cuda_raise_runtime(error, "cudaMemcpy", __FILE__, __LINE__);
    return SKIT_OK;
}

extern "C" int skit_cuda_backend_interp_init(struct skit_cuda_interp_plan *plan,
                                             const size_t *cols, const double *weights,
                                             const size_t *row_ptr, const size_t *trow,
                                             const size_t *tsrc)
{
    size_t entries = plan->n * plan->width; /* overflow checked by api.c */
    size_t *total = &plan->device_bytes;
    SKIT_TRY(skit_cuda_alloc(&plan->cols, entries * sizeof(size_t), "cuda interp plan", total));
    SKIT_TRY(skit_cuda_alloc(&plan->weights, entries * plan->elt, "cuda interp plan", total));
    SKIT_TRY(skit_cuda_alloc(&plan->t_ptr, (plan->r + 1) * sizeof(size_t), "cuda interp plan", total));
    SKIT_TRY(skit_cuda_alloc(&plan->t_row, entries * sizeof(size_t), "cuda interp plan", total));
    SKIT_TRY(skit_cuda_alloc(&plan->t_weights, entries * plan->elt, "cuda interp plan", total));
    SKIT_CUDA_CHECK(cudaMemcpy(plan->cols, cols, entries * sizeof(size_t), cudaMemcpyHostToDevice));
    SKIT_CUDA_CHECK(cudaMemcpy(plan->t_ptr, row_ptr, (plan->r + 1) * sizeof(size_t),
                               cudaMemcpyHostToDevice));
    SKIT_CUDA_CHECK(cudaMemcpy(plan->t_row, trow, entries * sizeof(size_t), cudaMemcpyHostToDevice));
    SKIT_TRY(upload_reals(plan->weights, weights, entries, plan->precision));
    /* W^T's weights in its row order */
    double *tw = (double *)skit_malloc(entries, sizeof(double));
    if (!tw) return SKIT_ENOMEM;
    for (size_t e = 0; e < entries; e++) tw[e] = weights[tsrc[e]];
    int status = upload_reals(plan->t_weights, tw, entries, plan->precision);
    skit_free(tw);
    return status;
}

extern "C" int skit_cuda_backend_interp_gather(const struct skit_cuda_interp_plan *plan, size_t d,
                                               const void *u, size_t ldu, void *y, size_t ldy,
                                               int accumulate)
{
    unsigned blocks = skit_cuda_blocks_for(plan->n * d);
    const size_t *cols = (const size_t *)plan->cols;
    if (plan->precision == SKIT_CUDA_FLOAT64)
        interp_gather_kernel<double><<<blocks, SKIT_CUDA_BLOCK>>>(
            plan->n, plan->width, cols, (const double *)plan->weights, d, (const double *)u, ldu,
            (double *)y, ldy, accumulate);
    else
        interp_gather_kernel<float><<<blocks, SKIT_CUDA_BLOCK>>>(
            plan->n, plan->width, cols, (const float *)plan->weights, d, (const float *)u, ldu,
            (float *)y, ldy, accumulate);
    SKIT_CUDA_CHECK_LAUNCH("interpolation gather");
    return SKIT_OK;
}

extern "C" int skit_cuda_backend_interp_scatter(const struct skit_cuda_interp_plan *plan,
                                                size_t d, const void *x, size_t ldx, void *u,
                                                size_t ldu)
{
    unsigned blocks = skit_cuda_blocks_for(plan->r * d);
    const size_t *t_ptr = (const size_t *)plan->t_ptr, *t_row = (const size_t *)plan->t_row;
    if (plan->precision == SKIT_CUDA_FLOAT64)
        interp_scatter_kernel<double><<<blocks, SKIT_CUDA_BLOCK>>>(
            plan->r, t_ptr, t_row, (const double *)plan->t_weights, d, (const double *)x, ldx,
            (double *)u, ldu);
    else
        interp_scatter_kernel<float><<<blocks, SKIT_CUDA_BLOCK>>>(
            plan->r, t_ptr, t_row, (const float *)plan->t_weights, d, (const float *)x, ldx,
            (float *)u, ldu);
    SKIT_CUDA_CHECK_LAUNCH("interpolation scatter");
    return SKIT_OK;
}

extern "C" void skit_cuda_backend_interp_release(struct skit_cuda_interp_plan *plan)
{
    skit_cuda_backend_free(plan->cols);
    skit_cuda_backend_free(plan->weights);
    skit_cuda_backend_free(plan->t_ptr);
    skit_cuda_backend_free(plan->t_row);
    skit_cuda_backend_free(plan->t_weights);
    plan->cols = plan->weights = plan->t_ptr = plan->t_row = plan->t_weights = NULL;
}
