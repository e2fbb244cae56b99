/* stub.c — the loader of a build without CUDA (configure found no nvcc, or
 * --without-cuda): there is no plugin, so every CUDA entry point stops at
 * its availability check with "cuda: not built" (after its argument
 * checks, as in every build). */
#include "config.h"

#include <stdio.h>

#include "cuda/api.h"

const struct skit_cuda_backend *skit_cuda_backend_load(char *line, size_t size)
{
    if (line && size) snprintf(line, size, "%s", "cuda: not built");
    return NULL;
}
