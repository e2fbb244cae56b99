/* plugin.c — the entry point of the CUDA plugin (libskit-cuda.so), its one
 * exported symbol: it keeps libskit's host services and hands back the
 * table of the .cu files' functions (cuda/backend.h).
 *
 * The .cu files raise errors through SKIT_ERROR and allocate host memory
 * with skit_malloc / skit_calloc / skit_free, as the rest of the library
 * does. The plugin does not link against libskit, so those four are
 * defined here as forwards to the host services; the link keeps them (like
 * everything but the entry point) local to the plugin. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>

#include "core/internal.h"
#include "cuda/plugin.h"

static const struct skit_cuda_host *host;

int skit_error_raise(int status, const char *file, int line, const char *fmt, ...)
{
    char message[512]; /* skit_last_error's capacity */
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(message, sizeof message, fmt, ap);
    va_end(ap);
    return host->error_raise(status, file, line, "%s", message);
}

void *skit_malloc(size_t count, size_t size) { return host->malloc(count, size); }
void *skit_calloc(size_t count, size_t size) { return host->calloc(count, size); }
void skit_free(void *p) { host->free(p); }

static const struct skit_cuda_backend table = {
    .status = skit_cuda_backend_status,
    .malloc = skit_cuda_backend_malloc,
    .free = skit_cuda_backend_free,
    .copy = skit_cuda_backend_copy,
    .synchronize = skit_cuda_backend_synchronize,
    .time = skit_cuda_backend_time,
    .copy_bandwidth = skit_cuda_backend_copy_bandwidth,
    .toeplitz_init = skit_cuda_backend_toeplitz_init,
    .toeplitz_set_coeffs = skit_cuda_backend_toeplitz_set_coeffs,
    .toeplitz_device = skit_cuda_backend_toeplitz_device,
    .toeplitz_host = skit_cuda_backend_toeplitz_host,
    .toeplitz_release = skit_cuda_backend_toeplitz_release,
    .attention_init = skit_cuda_backend_attention_init,
    .attention_device = skit_cuda_backend_attention_device,
    .attention_host = skit_cuda_backend_attention_host,
    .attention_release = skit_cuda_backend_attention_release,
    .mra_init = skit_cuda_backend_mra_init,
    .mra_device = skit_cuda_backend_mra_device,
    .mra_host = skit_cuda_backend_mra_host,
    .mra_release = skit_cuda_backend_mra_release,
    .complex_multiply = skit_cuda_backend_complex_multiply,
    .band_convolve = skit_cuda_backend_band_convolve,
    .interp_init = skit_cuda_backend_interp_init,
    .interp_gather = skit_cuda_backend_interp_gather,
    .interp_scatter = skit_cuda_backend_interp_scatter,
    .interp_release = skit_cuda_backend_interp_release,
};

const struct skit_cuda_backend *skit_cuda_plugin_init(int abi, const struct skit_cuda_host *services)
{
    if (abi != SKIT_CUDA_PLUGIN_ABI || !services) return NULL;
    host = services;
    return &table;
}
