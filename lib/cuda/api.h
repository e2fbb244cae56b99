/* api.h — libskit's side of the CUDA backend: the argument checks that the
 * public entry points (api.c, plans.c) share, and the loader that finds the
 * plugin (loader.c; stub.c in a build without CUDA). Not installed. */
#ifndef SKIT_CUDA_API_H
#define SKIT_CUDA_API_H

#include "cuda/backend.h"

/* The plugin's table, loaded on the first call (once per process,
 * thread-safe; loader.c describes where it looks). NULL when there is none,
 * with the reason in line (size bytes, always terminated; line may be NULL
 * with size 0): "cuda: not built" or "cuda: backend not loadable (<why>)".
 * Raises nothing. */
const struct skit_cuda_backend *skit_cuda_backend_load(char *line, size_t size);

/* The table, for a call on a plan or device pointer: only a loaded backend
 * can have made one, so this is never NULL there. */
static inline const struct skit_cuda_backend *skit_cuda_loaded(void)
{
    return skit_cuda_backend_load(NULL, 0);
}

/* SKIT_OK when a device is usable; otherwise raises SKIT_EUNSUPPORTED with
 * the loader's or the plugin's line ("cuda: no device (...)"). */
int skit_cuda_require_device(void);

/* Checks that raise with the parameter's name: a known precision; value
 * >= 1 (SKIT_EDOM); ld >= rows (SKIT_ESHAPE); the bytes spanned by a
 * rows x cols block with leading dimension ld, (ld*(cols-1) + rows) * elt,
 * without overflow (SKIT_EOVERFLOW); an output block that does not overlap
 * an input block, as the kernels read and write in parallel (SKIT_EINVAL). */
int skit_cuda_check_precision(skit_cuda_precision precision);
int skit_cuda_check_positive(size_t value, const char *name);
int skit_cuda_check_ld(size_t ld, size_t rows, const char *ld_name, const char *rows_name);
int skit_cuda_block_span(size_t rows, size_t cols, size_t ld, size_t elt, const char *what,
                         size_t *bytes);
int skit_cuda_check_disjoint(const void *in, size_t in_bytes, const char *in_name,
                             const void *out, size_t out_bytes, const char *out_name);

#endif
