/* cuda_plugin_other.c — for tests/cuda_plugin.sh: a CUDA plugin from
 * "another build of skit", whose entry point refuses libskit's plugin
 * interface version, as a real plugin does on a mismatch. */
#include "config.h"

#include "cuda/backend.h"

const struct skit_cuda_backend *skit_cuda_plugin_init(int abi, const struct skit_cuda_host *host);

const struct skit_cuda_backend *skit_cuda_plugin_init(int abi, const struct skit_cuda_host *host)
{
    return NULL;
}
