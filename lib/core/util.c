/* util.c — finiteness checks and the clock. */
#include "config.h"

#include <math.h>
#include <string.h>
#include <time.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "core/internal.h"

int skit_check_finite(const double *x, size_t n, const char *what)
{
    if (n > 0 && x == NULL) return SKIT_ERROR(SKIT_EINVAL, "%s must not be NULL", what);
    for (size_t i = 0; i < n; i++)
        if (!isfinite(x[i]))
            return SKIT_ERROR(SKIT_ENONFINITE, "%s[%zu] = %g: NaN/Inf not allowed", what, i, x[i]);
    return SKIT_OK;
}

int skit_check_finite_matrix(const double *a, size_t m, size_t n, size_t ld, const char *what)
{
    if (m > 0 && n > 0 && a == NULL) return SKIT_ERROR(SKIT_EINVAL, "%s must not be NULL", what);
    for (size_t j = 0; j < n; j++)
        for (size_t i = 0; i < m; i++)
            if (!isfinite(a[i + j * ld]))
                return SKIT_ERROR(SKIT_ENONFINITE, "%s(%zu,%zu) = %g: NaN/Inf not allowed", what,
                                  i, j, a[i + j * ld]);
    return SKIT_OK;
}

double skit_clock_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int skit_max_threads(void)
{
#ifdef _OPENMP
    int t = omp_get_max_threads();
    return t > 0 ? t : 1;
#else
    return 1;
#endif
}

size_t skit_struct_size_of(const skit_struct_entry *table, size_t count, const char *name)
{
    for (size_t i = 0; name && i < count; i++)
        if (!strcmp(table[i].name, name)) return table[i].size;
    return 0;
}
