/* toeplitz.cu — batched Toeplitz FFT matvec on the device: the d channels'
 * circulant embeddings are transformed by one batched cuFFT plan each way
 * (D2Z/Z2D for float64, R2C/C2R for float32); per-channel or shared spectra
 * stay on the device, scaled by 1/L so the inverse needs no extra pass.
 *
 *   y = crop_m( IFFT( FFT(pad_L(x)) .* S ) ),   S = FFT(embed_L(t)) / L
 *
 * The transpose uses conj(S): the embedding of T^T is the embedding of T
 * reversed modulo L, whose real FFT is the conjugate. */
#include "config.h"

#include "cuda/cuda_internal.h"

/* ---- kernels (indices from index_logic.h) ----------------------------------- */

/* R(:, c) = circulant embedding of coefficient set (shared ? 0 : c) */
template <typename T>
__global__ void embed_kernel(const T *coeffs, size_t ncoef, int shared, size_t m, size_t n,
                             size_t L, size_t d, int causal, T *R)
{
    SKIT_CUDA_FOR(t, L * d)
    {
        size_t p, c;
        skit_cuda_split(t, L, &p, &c);
        ptrdiff_t src = skit_cuda_embed_source(p, m, n, L, causal);
        R[t] = src >= 0 ? coeffs[(shared ? 0 : c * ncoef) + (size_t)src] : (T)0;
    }
}

/* R(:, c) = [x(0..len-1, c); 0]. In place (x == R, ldx == L) it zeroes the
 * tail, each element read and written by the same thread. */
template <typename T>
__global__ void pad_kernel(const T *x, size_t ldx, size_t len, size_t L, size_t d, T *R)
{
    SKIT_CUDA_FOR(t, L * d)
    {
        size_t p, c;
        skit_cuda_split(t, L, &p, &c);
        ptrdiff_t src = skit_cuda_pad_source(p, c, len, ldx);
        R[t] = src >= 0 ? x[src] : (T)0;
    }
}

/* y(0..len-1, c) = R(0..len-1, c) */
template <typename T>
__global__ void crop_kernel(const T *R, size_t L, size_t len, size_t d, T *y, size_t ldy)
{
    SKIT_CUDA_FOR(t, len * d)
    {
        size_t i, c;
        skit_cuda_split(t, len, &i, &c);
        y[i + c * ldy] = R[i + c * L];
    }
}

template <typename T>
__global__ void scale_kernel(const T *in, size_t count, T factor, T *out)
{
    SKIT_CUDA_FOR(t, count) out[t] = in[t] * factor;
}

/* ---- cuFFT plans --------------------------------------------------------------- */

static int make_fft(int *handle, int *have, size_t L, size_t d, cufftType type, size_t *work)
{
    cufftHandle h;
    SKIT_CUFFT_CHECK(cufftCreate(&h));
    *handle = (int)h;
    *have = 1;
    /* one work area shared by the forward and inverse plans (set below) */
    SKIT_CUFFT_CHECK(cufftSetAutoAllocation(h, 0));
    long long len = (long long)L, bins = (long long)skit_cuda_rfft_bins(L);
    int forward = type == CUFFT_D2Z || type == CUFFT_R2C;
    long long inembed = forward ? len : bins, onembed = forward ? bins : len;
    SKIT_CUFFT_CHECK(cufftMakePlanMany64(h, 1, &len, &inembed, 1, inembed, &onembed, 1, onembed,
                                        type, (long long)d, work));
    return SKIT_OK;
}

static int fft_forward(const struct skit_cuda_toeplitz_plan *p)
{
    if (p->precision == SKIT_CUDA_FLOAT64)
        SKIT_CUFFT_CHECK(cufftExecD2Z(p->fft_forward, (cufftDoubleReal *)p->real_work,
                                      (cufftDoubleComplex *)p->complex_work));
    else
        SKIT_CUFFT_CHECK(cufftExecR2C(p->fft_forward, (cufftReal *)p->real_work,
                                      (cufftComplex *)p->complex_work));
    return SKIT_OK;
}

static int fft_inverse(const struct skit_cuda_toeplitz_plan *p)
{
    if (p->precision == SKIT_CUDA_FLOAT64)
        SKIT_CUFFT_CHECK(cufftExecZ2D(p->fft_inverse, (cufftDoubleComplex *)p->complex_work,
                                      (cufftDoubleReal *)p->real_work));
    else
        SKIT_CUFFT_CHECK(cufftExecC2R(p->fft_inverse, (cufftComplex *)p->complex_work,
                                      (cufftReal *)p->real_work));
    return SKIT_OK;
}

/* ---- typed pieces of the pipeline ---------------------------------------------- */

template <typename T>
static int launch_embed(const struct skit_cuda_toeplitz_plan *p, const void *coeffs)
{
    embed_kernel<T><<<skit_cuda_blocks_for(p->L * p->d), SKIT_CUDA_BLOCK>>>(
        (const T *)coeffs, p->m + p->n - 1, p->nsets == 1, p->m, p->n, p->L, p->d,
        p->causality == SKIT_CAUSAL, (T *)p->real_work);
    SKIT_CUDA_CHECK_LAUNCH("embed");
    return SKIT_OK;
}

template <typename T>
static int launch_pad(const struct skit_cuda_toeplitz_plan *p, const void *x, size_t ldx,
                      size_t len)
{
    pad_kernel<T><<<skit_cuda_blocks_for(p->L * p->d), SKIT_CUDA_BLOCK>>>(
        (const T *)x, ldx, len, p->L, p->d, (T *)p->real_work);
    SKIT_CUDA_CHECK_LAUNCH("pad");
    return SKIT_OK;
}

template <typename T>
static int launch_crop(const struct skit_cuda_toeplitz_plan *p, size_t len, void *y, size_t ldy)
{
    crop_kernel<T><<<skit_cuda_blocks_for(len * p->d), SKIT_CUDA_BLOCK>>>(
        (const T *)p->real_work, p->L, len, p->d, (T *)y, ldy);
    SKIT_CUDA_CHECK_LAUNCH("crop");
    return SKIT_OK;
}

template <typename T> static int launch_scale_spectra(const struct skit_cuda_toeplitz_plan *p)
{
    size_t count = 2 * p->nfreq * p->nsets; /* reals: (re, im) pairs */
    scale_kernel<T><<<skit_cuda_blocks_for(count), SKIT_CUDA_BLOCK>>>(
        (const T *)p->complex_work, count, (T)(1.0 / (double)p->L), (T *)p->spectra);
    SKIT_CUDA_CHECK_LAUNCH("scale spectra");
    return SKIT_OK;
}

/* ---- plan ------------------------------------------------------------------------ */

extern "C" int skit_cuda_backend_toeplitz_set_coeffs(struct skit_cuda_toeplitz_plan *p,
                                                     const double *coeffs)
{
    /* The coefficients are staged in the complex work array, which holds
     * 2*(L/2+1)*d >= (m+n-1)*nsets reals, and consumed by the embedding
     * before the forward FFT overwrites it. */
    size_t count = (p->m + p->n - 1) * p->nsets;
    if (p->precision == SKIT_CUDA_FLOAT64) {
        SKIT_CUDA_CHECK(cudaMemcpy(p->complex_work, coeffs, count * sizeof(double),
                                   cudaMemcpyHostToDevice));
        SKIT_TRY(launch_embed<double>(p, p->complex_work));
    } else {
        float *tmp = (float *)skit_malloc(count, sizeof(float)); /* set-up, not execute */
        if (!tmp) return SKIT_ENOMEM;
        for (size_t i = 0; i < count; i++) tmp[i] = (float)coeffs[i];
        cudaError_t error = cudaMemcpy(p->complex_work, tmp, count * sizeof(float),
                                       cudaMemcpyHostToDevice);
        skit_free(tmp);
        if (error != cudaSuccess)
            return skit_cuda_raise_runtime(error, "cudaMemcpy(coeffs)", __FILE__, __LINE__);
        SKIT_TRY(launch_embed<float>(p, p->complex_work));
    }
    SKIT_TRY(fft_forward(p));
    if (p->precision == SKIT_CUDA_FLOAT64)
        SKIT_TRY(launch_scale_spectra<double>(p));
    else
        SKIT_TRY(launch_scale_spectra<float>(p));
    SKIT_CUDA_CHECK(cudaDeviceSynchronize());
    return SKIT_OK;
}

extern "C" int skit_cuda_backend_toeplitz_init(struct skit_cuda_toeplitz_plan *p,
                                               const double *coeffs)
{
    const char *what = "cuda toeplitz plan";
    size_t *total = &p->device_bytes;
    size_t celt = 2 * p->elt;
    SKIT_TRY(skit_cuda_alloc(&p->spectra, p->nfreq * p->nsets * celt, what, total));
    SKIT_TRY(skit_cuda_alloc(&p->real_work, p->L * p->d * p->elt, what, total));
    SKIT_TRY(skit_cuda_alloc(&p->complex_work, p->nfreq * p->d * celt, what, total));
    int f64 = p->precision == SKIT_CUDA_FLOAT64;
    size_t work_forward = 0, work_inverse = 0;
    SKIT_TRY(make_fft(&p->fft_forward, &p->have_forward, p->L, p->d, f64 ? CUFFT_D2Z : CUFFT_R2C,
                      &work_forward));
    SKIT_TRY(make_fft(&p->fft_inverse, &p->have_inverse, p->L, p->d, f64 ? CUFFT_Z2D : CUFFT_C2R,
                      &work_inverse));
    size_t work = work_forward > work_inverse ? work_forward : work_inverse;
    SKIT_TRY(skit_cuda_alloc(&p->fft_work, work, what, total));
    SKIT_CUFFT_CHECK(cufftSetWorkArea(p->fft_forward, p->fft_work));
    SKIT_CUFFT_CHECK(cufftSetWorkArea(p->fft_inverse, p->fft_work));
    if (!f64) {
        size_t rows = p->m > p->n ? p->m : p->n;
        SKIT_CUDA_CHECK(cudaMallocHost(&p->host_stage, rows * p->d * sizeof(float)));
    }
    return skit_cuda_backend_toeplitz_set_coeffs(p, coeffs);
}

extern "C" void skit_cuda_backend_toeplitz_release(struct skit_cuda_toeplitz_plan *p)
{
    if (p->have_forward) cufftDestroy(p->fft_forward);
    if (p->have_inverse) cufftDestroy(p->fft_inverse);
    p->have_forward = p->have_inverse = 0;
    skit_cuda_backend_free(p->spectra);
    skit_cuda_backend_free(p->real_work);
    skit_cuda_backend_free(p->complex_work);
    skit_cuda_backend_free(p->fft_work);
    if (p->host_stage && cudaFreeHost(p->host_stage) != cudaSuccess) cudaGetLastError();
    p->spectra = p->real_work = p->complex_work = p->fft_work = p->host_stage = NULL;
}

/* Forward FFT of the padded signal in real_work, spectral product, inverse:
 * the part shared by the device and host entry points. */
static int convolve_in_place(const struct skit_cuda_toeplitz_plan *p, int transpose)
{
    SKIT_TRY(fft_forward(p));
    SKIT_TRY(skit_cuda_launch_complex_multiply(p->precision, p->nfreq, p->d, p->nsets == 1,
                                               p->spectra, p->nfreq, p->complex_work, p->nfreq,
                                               transpose));
    SKIT_TRY(fft_inverse(p));
    return SKIT_OK;
}

extern "C" int skit_cuda_backend_toeplitz_device(const struct skit_cuda_toeplitz_plan *p,
                                                 int transpose, const void *x, size_t ldx,
                                                 void *y, size_t ldy)
{
    size_t in_len = transpose ? p->m : p->n, out_len = transpose ? p->n : p->m;
    int f64 = p->precision == SKIT_CUDA_FLOAT64;
    SKIT_TRY(f64 ? launch_pad<double>(p, x, ldx, in_len) : launch_pad<float>(p, x, ldx, in_len));
    SKIT_TRY(convolve_in_place(p, transpose));
    SKIT_TRY(f64 ? launch_crop<double>(p, out_len, y, ldy) : launch_crop<float>(p, out_len, y, ldy));
    return SKIT_OK;
}

extern "C" int skit_cuda_backend_toeplitz_host(const struct skit_cuda_toeplitz_plan *p,
                                               int transpose, const double *x, size_t ldx,
                                               double *y, size_t ldy)
{
    size_t in_len = transpose ? p->m : p->n, out_len = transpose ? p->n : p->m, d = p->d;
    size_t elt = p->elt;
    if (p->precision == SKIT_CUDA_FLOAT64) {
        /* straight into the FFT buffer (pitch L), then zero the tail there */
        SKIT_TRY(skit_cuda_copy_2d(p->real_work, p->L * elt, x, ldx * elt, in_len * elt, d,
                                   cudaMemcpyHostToDevice));
        SKIT_TRY(launch_pad<double>(p, p->real_work, p->L, in_len));
        SKIT_TRY(convolve_in_place(p, transpose));
        SKIT_TRY(skit_cuda_copy_2d(y, ldy * elt, p->real_work, p->L * elt, out_len * elt, d,
                                   cudaMemcpyDeviceToHost));
        return SKIT_OK;
    }
    float *stage = (float *)p->host_stage;
    for (size_t c = 0; c < d; c++)
        for (size_t i = 0; i < in_len; i++) stage[i + c * in_len] = (float)x[i + c * ldx];
    SKIT_TRY(skit_cuda_copy_2d(p->real_work, p->L * elt, stage, in_len * elt, in_len * elt, d,
                               cudaMemcpyHostToDevice));
    SKIT_TRY(launch_pad<float>(p, p->real_work, p->L, in_len));
    SKIT_TRY(convolve_in_place(p, transpose));
    SKIT_TRY(skit_cuda_copy_2d(stage, out_len * elt, p->real_work, p->L * elt, out_len * elt, d,
                               cudaMemcpyDeviceToHost));
    for (size_t c = 0; c < d; c++)
        for (size_t i = 0; i < out_len; i++) y[i + c * ldy] = (double)stage[i + c * out_len];
    return SKIT_OK;
}
