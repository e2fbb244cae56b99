/* skit/device.h — where a plan runs: on the CPU (every build) or on a CUDA
 * GPU (builds with CUDA, on machines with a device). The options of the
 * Toeplitz plans (skit/toeplitz.h), attention plans (skit/attention.h) and
 * token-mixing plans (skit/tno.h) carry a skit_device; the same create / execute / destroy calls
 * then run on the chosen backend. The CUDA backend itself is skit/cuda.h.
 *
 * libskit links no CUDA library, so CPU-only use never needs the CUDA
 * runtime. A build with CUDA installs the backend as a plugin,
 * $(pkglibdir)/libskit-cuda.so (e.g. /usr/local/lib/skit/libskit-cuda.so),
 * which alone links cuFFT, cuBLAS and the CUDA runtime; libskit loads it
 * with dlopen on the first use of the CUDA backend (skit_device_check,
 * skit_cuda_*, a plan with device = SKIT_DEVICE_CUDA). It looks for the
 * plugin at:
 *   1. $SKIT_CUDA_LIBRARY, a path — when set and not empty, the only place
 *      tried;
 *   2. the installed path above, fixed when libskit was built;
 *   3. "libskit-cuda.so" through the dynamic loader's search
 *      (LD_LIBRARY_PATH, ...), for an installation moved elsewhere.
 * The first attempt decides for the rest of the process.
 */
#ifndef SKIT_DEVICE_H
#define SKIT_DEVICE_H

#include "skit/core.h"

SKIT_BEGIN_DECLS

/* skit_device itself is in skit/core.h, beside the other shared enums. */

/* "cpu", "cuda"; NULL for an unknown value. */
const char *skit_device_name(int device);

/* Inverse of skit_device_name. Errors: SKIT_EINVAL (NULL or unknown name). */
int skit_device_parse(const char *name, skit_device *device);

/* Whether plans can be created on `device` here: SKIT_OK for the CPU, and
 * for CUDA when the backend is built, its plugin loads and a device is
 * usable; otherwise SKIT_EUNSUPPORTED with the message "cuda: not built",
 * "cuda: backend not loadable (<the loader's reason>)" or
 * "cuda: no device (<reason>)". SKIT_EINVAL for an unknown value. */
int skit_device_check(skit_device device);

SKIT_END_DECLS
#endif /* SKIT_DEVICE_H */
