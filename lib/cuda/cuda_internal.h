/* cuda_internal.h — shared by the .cu files of the CUDA plugin (CUDA C++,
 * compiled by nvcc): error translation for the CUDA runtime, cuFFT and
 * cuBLAS, element-type traits, and launch helpers. SKIT_ERROR, skit_malloc
 * and skit_free here are the plugin's forwards to libskit's host services
 * (plugin.c). Not installed. */
#ifndef SKIT_CUDA_INTERNAL_H
#define SKIT_CUDA_INTERNAL_H

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cufft.h>

extern "C" {
#include "core/internal.h"
}
#include "cuda/plugin.h"
#include "cuda/index_logic.h"

/* ---- error translation ----------------------------------------------------
 * Each returns the skit status it raised: SKIT_ENOMEM for an allocation
 * failure, SKIT_ELIBRARY otherwise; the message names the failed call and
 * the library's description. */
int skit_cuda_raise_runtime(cudaError_t error, const char *call, const char *file, int line);
int skit_cuda_raise_cufft(cufftResult result, const char *call, const char *file, int line);
int skit_cuda_raise_cublas(cublasStatus_t status, const char *call, const char *file, int line);

#define SKIT_CUDA_CHECK(call)                                                          \
    do {                                                                               \
        cudaError_t skit_cuda_e_ = (call);                                             \
        if (skit_cuda_e_ != cudaSuccess)                                               \
            return skit_cuda_raise_runtime(skit_cuda_e_, #call, __FILE__, __LINE__);   \
    } while (0)
#define SKIT_CUFFT_CHECK(call)                                                         \
    do {                                                                               \
        cufftResult skit_cufft_e_ = (call);                                            \
        if (skit_cufft_e_ != CUFFT_SUCCESS)                                            \
            return skit_cuda_raise_cufft(skit_cufft_e_, #call, __FILE__, __LINE__);    \
    } while (0)
#define SKIT_CUBLAS_CHECK(call)                                                        \
    do {                                                                               \
        cublasStatus_t skit_cublas_e_ = (call);                                        \
        if (skit_cublas_e_ != CUBLAS_STATUS_SUCCESS)                                   \
            return skit_cuda_raise_cublas(skit_cublas_e_, #call, __FILE__, __LINE__);  \
    } while (0)
/* After a kernel launch: launch-configuration errors surface here (errors
 * while the kernel runs surface at the next synchronising call). */
#define SKIT_CUDA_CHECK_LAUNCH(what)                                                   \
    do {                                                                               \
        cudaError_t skit_cuda_e_ = cudaGetLastError();                                 \
        if (skit_cuda_e_ != cudaSuccess)                                               \
            return skit_cuda_raise_runtime(skit_cuda_e_, "launch of the " what " kernel", \
                                           __FILE__, __LINE__);                        \
    } while (0)

/* cudaMalloc with a device-memory check first, so an oversized request is
 * refused as SKIT_ETOOBIG with both byte counts instead of failing inside
 * the driver. Adds the bytes to *total. */
int skit_cuda_alloc(void **ptr, size_t bytes, const char *what, size_t *total);
/* cudaMemcpy2D when the pitches differ, cudaMemcpy otherwise (pitches and
 * widths in bytes). Blocking with respect to the host. */
int skit_cuda_copy_2d(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                      size_t height, cudaMemcpyKind kind);

/* ---- element types ---------------------------------------------------------- */

template <typename T> struct skit_cuda_traits;
template <> struct skit_cuda_traits<double> {
    typedef double2 complex_type;
    static __device__ __forceinline__ double exp_(double x) { return exp(x); }
    static __device__ __forceinline__ double neg_inf() { return -__longlong_as_double(0x7ff0000000000000LL); }
};
template <> struct skit_cuda_traits<float> {
    typedef float2 complex_type;
    static __device__ __forceinline__ float exp_(float x) { return expf(x); }
    static __device__ __forceinline__ float neg_inf() { return -__int_as_float(0x7f800000); }
};

/* Grid for `total` elementwise work items (grid-stride loops cover the rest). */
static inline unsigned skit_cuda_blocks_for(size_t total)
{
    return skit_cuda_grid_blocks(total, SKIT_CUDA_BLOCK, SKIT_CUDA_MAX_BLOCKS);
}

/* Grid-stride loop over [0, total). */
#define SKIT_CUDA_FOR(t, total)                                                        \
    for (size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x; t < (total);        \
         t += (size_t)gridDim.x * blockDim.x)

/* Launch helpers of the elementwise kernels in kernels.cu, shared with the
 * Toeplitz plan (asynchronous, default stream; return a raised status). */
int skit_cuda_launch_complex_multiply(skit_cuda_precision precision, size_t nfreq, size_t d,
                                      int shared, const void *s, size_t lds, void *z, size_t ldz,
                                      int conjugate);

#endif
