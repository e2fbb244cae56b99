/* fdtno_spectra.c — an FD-TNO plan's work on its circulant engine in one
 * precision (freq_internal.h): the spectra from a float64 response and
 * the kernels back. Compiled as is (R = double, skit_circulant) and again
 * by fdtno_spectraf.c (R = float, skit_circulantf), as circulantf.c
 * compiles the engine, so that both precisions fill their spectra by the
 * same loop. */
#include "config.h"

#include <string.h>

#include "freq/freq_internal.h"

#ifdef FDTNO_SINGLE
typedef float R;
#define E skit_circulantf
#define ENGINE(name) skit_circulantf_##name
#define X(name) fdtno_##name##_f32
#else
typedef double R;
#define E skit_circulant
#define ENGINE(name) skit_circulant_##name
#define X(name) fdtno_##name
#endif

void X(set_spectra)(E *engine, const double *response, size_t width, size_t d, int causal, R *work)
{
    const size_t half = ENGINE(frequencies)(engine), ls = ENGINE(spectra_ld)(engine);
    const double scale = 1.0 / (double)ENGINE(length)(engine);
    R *spectra = ENGINE(spectra)(engine);
    for (size_t c = 0; c < d; c++) {
        R *re = spectra + c * ls, *im = re + half;
        for (size_t m = 0; m < half; m++) re[m] = (R)(response[m * width + c] * scale);
        if (!causal)
            for (size_t m = 0; m < half; m++)
                im[m] = (m == 0 || m == half - 1) ? (R)0 : (R)(response[m * width + d + c] * scale);
    }
    if (causal) ENGINE(hilbert_rows)(engine, spectra, ls, d, spectra + half, ls, work);
}

void X(impulse)(const E *engine, size_t d, double *k, size_t ldk, R *work)
{
    const size_t N = ENGINE(length)(engine);
    for (size_t c = 0; c < d; c++) {
        double *kc = k + c * ldk;
        ENGINE(kernel)(engine, c, (R *)(void *)kc, work);
        if (sizeof(R) == sizeof(double)) continue;
        /* Widen in place from the end: value q of R ends at or before value q
         * of double begins, for q >= 1, so no value is overwritten before it
         * is read. memcpy reads it, as the bytes hold an R, not a double. */
        const unsigned char *bytes = (const unsigned char *)kc;
        for (size_t q = N; q-- > 0;) {
            R v;
            memcpy(&v, bytes + q * sizeof v, sizeof v);
            kc[q] = (double)v;
        }
    }
}
