/* skit/fft.h — FFT lengths. Every FFT-based operator of skit runs on
 * FFTW through one circulant-product engine (lib/fft); this header holds
 * what a user needs of it directly. */
#ifndef SKIT_FFT_H
#define SKIT_FFT_H

#include "skit/core.h"

SKIT_BEGIN_DECLS

/* Smallest integer >= n whose prime factors are all in {2, 3, 5, 7}
 * (fast for FFTW). SKIT_EOVERFLOW if none fits in size_t. */
int skit_fft_good_length(size_t n, size_t *length);

SKIT_END_DECLS
#endif
