/* extended.h — the DFT of skit_freq_impulse_extended in extended precision
 * (core/xreal.h); internal, tested by tests/test_freq.c on closed forms. */
#ifndef SKIT_FREQ_EXTENDED_H
#define SKIT_FREQ_EXTENDED_H

#include <stddef.h>

#include "core/xreal.h"

/* cos(2 pi j / N) and sin(2 pi j / N), j = 0..N-1 (N values each). */
void skit_xdft_twiddles(size_t N, skit_xreal *cos_t, skit_xreal *sin_t);

/* k[n] = (1/N) sum_m v[m] e^(2 pi i m n / N) for n = 0..lags (lags + 1
 * values in re, im), from N real samples v and the twiddles above. */
void skit_xdft_lags(const skit_xreal *v, size_t N, size_t lags, const skit_xreal *cos_t,
                    const skit_xreal *sin_t, skit_xreal *re, skit_xreal *im);

#endif
