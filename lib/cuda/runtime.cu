/* runtime.cu — availability, error translation, device memory, copies and
 * CUDA-event timing for the CUDA backend. */
#include "config.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "cuda/cuda_internal.h"

/* ---- error translation ------------------------------------------------------ */

int skit_cuda_raise_runtime(cudaError_t error, const char *call, const char *file, int line)
{
    int status = error == cudaErrorMemoryAllocation ? SKIT_ENOMEM : SKIT_ELIBRARY;
    return skit_error_raise(status, file, line, "cuda: %s failed: %s (%s)", call,
                            cudaGetErrorString(error), cudaGetErrorName(error));
}

static const char *cufft_result_name(cufftResult result)
{
    switch (result) {
    case CUFFT_SUCCESS: return "CUFFT_SUCCESS";
    case CUFFT_INVALID_PLAN: return "CUFFT_INVALID_PLAN";
    case CUFFT_ALLOC_FAILED: return "CUFFT_ALLOC_FAILED";
    case CUFFT_INVALID_TYPE: return "CUFFT_INVALID_TYPE";
    case CUFFT_INVALID_VALUE: return "CUFFT_INVALID_VALUE";
    case CUFFT_INTERNAL_ERROR: return "CUFFT_INTERNAL_ERROR";
    case CUFFT_EXEC_FAILED: return "CUFFT_EXEC_FAILED";
    case CUFFT_SETUP_FAILED: return "CUFFT_SETUP_FAILED";
    case CUFFT_INVALID_SIZE: return "CUFFT_INVALID_SIZE";
    case CUFFT_UNALIGNED_DATA: return "CUFFT_UNALIGNED_DATA";
    case CUFFT_INVALID_DEVICE: return "CUFFT_INVALID_DEVICE";
    case CUFFT_NO_WORKSPACE: return "CUFFT_NO_WORKSPACE";
    case CUFFT_NOT_IMPLEMENTED: return "CUFFT_NOT_IMPLEMENTED";
    case CUFFT_NOT_SUPPORTED: return "CUFFT_NOT_SUPPORTED";
    default: return "unknown cuFFT result";
    }
}

int skit_cuda_raise_cufft(cufftResult result, const char *call, const char *file, int line)
{
    int status = result == CUFFT_ALLOC_FAILED ? SKIT_ENOMEM : SKIT_ELIBRARY;
    return skit_error_raise(status, file, line, "cuda: %s failed: %s (%d)", call,
                            cufft_result_name(result), (int)result);
}

int skit_cuda_raise_cublas(cublasStatus_t error, const char *call, const char *file, int line)
{
    int status = error == CUBLAS_STATUS_ALLOC_FAILED ? SKIT_ENOMEM : SKIT_ELIBRARY;
    return skit_error_raise(status, file, line, "cuda: %s failed: %s (%s)", call,
                            cublasGetStatusString(error), cublasGetStatusName(error));
}

/* ---- availability ------------------------------------------------------------ */

/* Probed once per process: the CUDA runtime's own initialisation is what
 * fails on a machine without a driver or device, and it would fail the same
 * way every time. */
static pthread_once_t probe_once = PTHREAD_ONCE_INIT;
static int probe_ok;
static char probe_line[512];

static void probe(void)
{
    int count = 0;
    cudaError_t error = cudaGetDeviceCount(&count);
    if (error != cudaSuccess) {
        snprintf(probe_line, sizeof probe_line, "cuda: no device (%s)", cudaGetErrorString(error));
        cudaGetLastError(); /* clear the non-sticky error */
        return;
    }
    if (count < 1) {
        snprintf(probe_line, sizeof probe_line, "cuda: no device (cudaGetDeviceCount found none)");
        return;
    }
    int device = 0, runtime = 0;
    cudaDeviceProp prop;
    if ((error = cudaGetDevice(&device)) != cudaSuccess ||
        (error = cudaGetDeviceProperties(&prop, device)) != cudaSuccess ||
        (error = cudaRuntimeGetVersion(&runtime)) != cudaSuccess) {
        snprintf(probe_line, sizeof probe_line, "cuda: no device (%s)", cudaGetErrorString(error));
        cudaGetLastError();
        return;
    }
    snprintf(probe_line, sizeof probe_line,
             "cuda: %.120s, compute capability %d.%d, %zu MiB, runtime %d.%d, %d device%s", prop.name,
             prop.major, prop.minor, (size_t)(prop.totalGlobalMem >> 20), runtime / 1000,
             (runtime % 1000) / 10, count, count == 1 ? "" : "s");
    probe_ok = 1;
}

int skit_cuda_backend_status(char *buf, size_t size)
{
    pthread_once(&probe_once, probe);
    if (buf && size) snprintf(buf, size, "%s", probe_line);
    return probe_ok ? SKIT_OK : SKIT_EUNSUPPORTED;
}

/* ---- memory -------------------------------------------------------------------- */

int skit_cuda_alloc(void **ptr, size_t bytes, const char *what, size_t *total)
{
    size_t free_bytes = 0, total_bytes = 0;
    *ptr = NULL;
    SKIT_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    if (bytes > free_bytes)
        return SKIT_ERROR(SKIT_ETOOBIG, "%s needs %zu bytes of device memory; %zu of %zu are free",
                          what, bytes, free_bytes, total_bytes);
    /* a zero-byte request still gets a distinct valid pointer */
    SKIT_CUDA_CHECK(cudaMalloc(ptr, bytes ? bytes : 1));
    if (total) *total += bytes;
    return SKIT_OK;
}

int skit_cuda_backend_malloc(void **ptr, size_t bytes)
{
    return skit_cuda_alloc(ptr, bytes, "skit_cuda_malloc", NULL);
}

void skit_cuda_backend_free(void *ptr)
{
    /* nothing useful can be done with an error here; clear it so it does not
     * surface in an unrelated later call */
    if (cudaFree(ptr) != cudaSuccess) cudaGetLastError();
}

int skit_cuda_copy_2d(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                      size_t height, cudaMemcpyKind kind)
{
    if (width == 0 || height == 0) return SKIT_OK;
    if (height == 1 || (dpitch == width && spitch == width))
        SKIT_CUDA_CHECK(cudaMemcpy(dst, src, width * height, kind));
    else
        SKIT_CUDA_CHECK(cudaMemcpy2D(dst, dpitch, src, spitch, width, height, kind));
    return SKIT_OK;
}

int skit_cuda_backend_copy(void *dst, const void *src, size_t bytes, int kind)
{
    static const cudaMemcpyKind kinds[3] = {cudaMemcpyHostToDevice, cudaMemcpyDeviceToHost,
                                            cudaMemcpyDeviceToDevice};
    SKIT_CUDA_CHECK(cudaMemcpy(dst, src, bytes, kinds[kind]));
    return SKIT_OK;
}

int skit_cuda_backend_synchronize(void)
{
    SKIT_CUDA_CHECK(cudaDeviceSynchronize());
    SKIT_CUDA_CHECK(cudaGetLastError());
    return SKIT_OK;
}

/* ---- timing ------------------------------------------------------------------- */

static int time_between_events(skit_cuda_work work, void *context, size_t repeats,
                               cudaEvent_t start, cudaEvent_t stop, double *seconds)
{
    SKIT_TRY(work(context)); /* warm-up: lazy module loading, cuFFT/cuBLAS setup */
    SKIT_CUDA_CHECK(cudaDeviceSynchronize());
    SKIT_CUDA_CHECK(cudaEventRecord(start, 0));
    for (size_t i = 0; i < repeats; i++) SKIT_TRY(work(context));
    SKIT_CUDA_CHECK(cudaEventRecord(stop, 0));
    SKIT_CUDA_CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    SKIT_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    *seconds = (double)ms * 1e-3 / (double)repeats;
    return SKIT_OK;
}

int skit_cuda_backend_time(skit_cuda_work work, void *context, size_t repeats, double *seconds)
{
    cudaEvent_t start = NULL, stop = NULL;
    int status = SKIT_OK;
    cudaError_t error = cudaEventCreate(&start);
    if (error == cudaSuccess) error = cudaEventCreate(&stop);
    if (error != cudaSuccess)
        status = skit_cuda_raise_runtime(error, "cudaEventCreate", __FILE__, __LINE__);
    else
        status = time_between_events(work, context, repeats, start, stop, seconds);
    if (start) cudaEventDestroy(start);
    if (stop) cudaEventDestroy(stop);
    return status;
}

struct copy_context {
    void *dst;
    const void *src;
    size_t bytes;
};

static int copy_once(void *context)
{
    struct copy_context *c = (struct copy_context *)context;
    SKIT_CUDA_CHECK(cudaMemcpyAsync(c->dst, c->src, c->bytes, cudaMemcpyDeviceToDevice, 0));
    return SKIT_OK;
}

int skit_cuda_backend_copy_bandwidth(size_t bytes, size_t repeats, double *bytes_per_second)
{
    void *a = NULL, *b = NULL;
    size_t total = 0;
    int status = skit_cuda_alloc(&a, bytes, "copy bandwidth source", &total);
    if (status == SKIT_OK) status = skit_cuda_alloc(&b, bytes, "copy bandwidth destination", &total);
    if (status == SKIT_OK) {
        cudaError_t error = cudaMemset(a, 0, bytes);
        if (error != cudaSuccess)
            status = skit_cuda_raise_runtime(error, "cudaMemset", __FILE__, __LINE__);
    }
    double seconds = 0;
    if (status == SKIT_OK) {
        struct copy_context context = {b, a, bytes};
        status = skit_cuda_backend_time(copy_once, &context, repeats, &seconds);
    }
    if (status == SKIT_OK) {
        if (seconds > 0)
            *bytes_per_second = 2.0 * (double)bytes / seconds;
        else
            status = SKIT_ERROR(SKIT_ELIBRARY, "cuda: copy of %zu bytes timed at 0 s", bytes);
    }
    skit_cuda_backend_free(a);
    skit_cuda_backend_free(b);
    return status;
}
