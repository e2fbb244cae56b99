/* workspace.c — the workspace a plan lends to its executes (core/internal.h).
 *
 * FFTW's contract, which skit's plans follow: execute on a const plan is
 * safe from many threads at once. A plan's execute needs scratch; the
 * caller may pass it, and when it does not, the plan lends its own to one
 * call at a time and a concurrent call gets a fresh one for its duration.
 * Single-threaded use so allocates nothing after create. */
#include "config.h"

#include <stdatomic.h>

#include "core/internal.h"

struct skit_workspace {
    double *data;
    size_t doubles;
    atomic_flag busy;
};

int skit_workspace_create(skit_workspace **ws, size_t doubles)
{
    *ws = NULL;
    skit_workspace *w = skit_calloc(1, sizeof *w);
    if (!w) return SKIT_ENOMEM;
    w->doubles = doubles;
    w->data = skit_malloc(doubles ? doubles : 1, sizeof(double));
    if (!w->data) {
        skit_free(w);
        return SKIT_ENOMEM;
    }
    atomic_flag_clear(&w->busy);
    *ws = w;
    return SKIT_OK;
}

void skit_workspace_destroy(skit_workspace *w)
{
    if (!w) return;
    skit_free(w->data);
    skit_free(w);
}

size_t skit_workspace_doubles(const skit_workspace *w) { return w ? w->doubles : 0; }

double *skit_workspace_take(skit_workspace *w)
{
    if (!atomic_flag_test_and_set_explicit(&w->busy, memory_order_acquire)) return w->data;
    return skit_malloc(w->doubles ? w->doubles : 1, sizeof(double));
}

void skit_workspace_give(skit_workspace *w, double *data)
{
    if (data == w->data) atomic_flag_clear_explicit(&w->busy, memory_order_release);
    else skit_free(data);
}
