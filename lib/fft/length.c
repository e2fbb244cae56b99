/* length.c — FFT lengths FFTW transforms fast (skit/fft.h). */
#include "config.h"

#include <stdint.h>

#include "core/internal.h"
#include "skit/fft.h"

int skit_fft_good_length(size_t n, size_t *length)
{
    SKIT_REQUIRE_PTR(length);
    if (n <= 1) {
        *length = 1; /* the empty product: every FFT library handles length 1 */
        return SKIT_OK;
    }
    /* Enumerate p = 3^b 5^c 7^d below the best candidate so far and round
     * each up by powers of two; 7-smooth numbers are sparse enough (about
     * 10^4 below 2^64) that this is instantaneous. */
    size_t best = SIZE_MAX;
    int found = 0;
    for (size_t p7 = 1;; p7 *= 7) {
        for (size_t p5 = p7;; p5 *= 5) {
            for (size_t p3 = p5;; p3 *= 3) {
                size_t p = p3;
                int ok = 1;
                while (p < n) {
                    if (p > SIZE_MAX / 2) {
                        ok = 0;
                        break;
                    }
                    p *= 2;
                }
                if (ok && (!found || p < best)) {
                    best = p;
                    found = 1;
                }
                if (p3 >= n || p3 > SIZE_MAX / 3) break;
            }
            if (p5 >= n || p5 > SIZE_MAX / 5) break;
        }
        if (p7 >= n || p7 > SIZE_MAX / 7) break;
    }
    if (!found)
        return SKIT_ERROR(SKIT_EOVERFLOW,
                          "n = %zu out of range: no 2^a 3^b 5^c 7^d >= n fits in size_t", n);
    *length = best;
    return SKIT_OK;
}
