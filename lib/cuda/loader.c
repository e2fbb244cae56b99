/* loader.c — finds the CUDA plugin (libskit-cuda.so) on the first use of
 * the CUDA backend and loads it with dlopen, so that libskit itself links
 * no CUDA library: a CPU-only program never needs the CUDA runtime, and
 * one on a machine without it gets "cuda: backend not loadable (...)"
 * instead of a failure to start. Built when configure found CUDA (stub.c
 * otherwise). The plugin is looked for, in order:
 *
 *   1. $SKIT_CUDA_LIBRARY, a path. When set and not empty it is the only
 *      place tried: whoever names a plugin gets that one or its error,
 *      never another (make check names the build tree's);
 *   2. the installed plugin, SKIT_CUDA_PLUGIN_PATH ($(pkglibdir) at make
 *      time, see lib/cuda.mk);
 *   3. the plain name libskit-cuda.so through the dynamic loader's own
 *      search (LD_LIBRARY_PATH, ...), for an installation moved elsewhere.
 *
 * The outcome, the plugin's table or the reason there is none, holds for
 * the rest of the process; the plugin is never unloaded. */
#include "config.h"

#include "core/internal.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cuda/api.h"
#include "lib/cuda/plugin_path.h" /* SKIT_CUDA_PLUGIN_PATH, written by make */

#define SKIT_CUDA_PLUGIN_NAME "libskit-cuda.so"

static const struct skit_cuda_host host_services = {
    .error_raise = skit_error_raise,
    .malloc = skit_malloc,
    .calloc = skit_calloc,
    .free = skit_free,
};

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static const struct skit_cuda_backend *loaded;
static char failure[512]; /* "cuda: backend not loadable (...)" when loaded is NULL */

#define ERROR_BYTES 400 /* of dlerror's text, to fit in failure */

/* dlopen, with dlerror's text in error on failure. */
static void *open_plugin(const char *name, char error[ERROR_BYTES])
{
    void *handle = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        const char *why = dlerror();
        snprintf(error, ERROR_BYTES, "%s", why ? why : name);
    }
    return handle;
}

/* Steps 2 and 3. Where an installed plugin exists but does not load (say a
 * CUDA library is missing), its error is the one worth reporting. */
static void *open_installed(const char **name, char error[ERROR_BYTES])
{
    *name = SKIT_CUDA_PLUGIN_PATH;
    void *handle = open_plugin(*name, error);
    if (handle) return handle;
    char search_error[ERROR_BYTES];
    int installed = access(SKIT_CUDA_PLUGIN_PATH, F_OK) == 0;
    *name = SKIT_CUDA_PLUGIN_NAME;
    handle = open_plugin(*name, search_error);
    if (!handle && !installed) memcpy(error, search_error, ERROR_BYTES);
    return handle;
}

static void load(void)
{
    char error[ERROR_BYTES] = "";
    const char *name = getenv("SKIT_CUDA_LIBRARY");
    void *handle = name && *name ? open_plugin(name, error) : open_installed(&name, error);
    if (handle) {
        skit_cuda_plugin_entry entry =
            (skit_cuda_plugin_entry)dlsym(handle, SKIT_CUDA_PLUGIN_ENTRY);
        if (!entry) {
            const char *why = dlerror();
            snprintf(error, sizeof error, "%s", why ? why : SKIT_CUDA_PLUGIN_ENTRY " not found");
        } else if (!(loaded = entry(SKIT_CUDA_PLUGIN_ABI, &host_services))) {
            snprintf(error, sizeof error,
                     "%s: built for another version of libskit (plugin interface %d wanted)", name,
                     SKIT_CUDA_PLUGIN_ABI);
        }
        if (!loaded) dlclose(handle);
    }
    if (!loaded) snprintf(failure, sizeof failure, "cuda: backend not loadable (%s)", error);
}

const struct skit_cuda_backend *skit_cuda_backend_load(char *line, size_t size)
{
    pthread_once(&load_once, load);
    if (!loaded && line && size) snprintf(line, size, "%s", failure);
    return loaded;
}
