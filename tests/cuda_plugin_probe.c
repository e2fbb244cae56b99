/* cuda_plugin_probe.c — a CPU-only program for tests/cuda_plugin.sh. It
 * computes a small attention product on the CPU, then asks whether the
 * CUDA backend can be used, and prints three lines:
 *   built: yes|no          (configure found CUDA)
 *   cpu: ok                (the CPU product ran)
 *   <ok|unsupported|status N> <skit_last_error() or the status line>
 * for skit_device_check(SKIT_DEVICE_CUDA). Exit status 0 unless the CPU
 * product failed. */
#include "config.h"

#include <stdio.h>

#include "skit.h"

int main(void)
{
#ifdef SKIT_HAVE_CUDA
    puts("built: yes");
#else
    puts("built: no");
#endif
    const double q[4] = {1, 0, 0, 1}, k[4] = {1, 0, 0, 1}, v[2] = {1, 2};
    double y[2];
    if (skit_attention_exact(2, 2, 1, q, 2, k, 2, v, 2, 1.0, NULL, y, 2) != SKIT_OK) {
        printf("cpu: %s\n", skit_last_error());
        return 1;
    }
    puts("cpu: ok");
    skit_clear_error();
    int status = skit_device_check(SKIT_DEVICE_CUDA);
    if (status == SKIT_OK) {
        char line[512];
        skit_cuda_status(line, sizeof line);
        printf("ok %s\n", line);
    } else if (status == SKIT_EUNSUPPORTED) {
        printf("unsupported %s\n", skit_last_error());
    } else {
        printf("status %d %s\n", status, skit_last_error());
    }
    return 0;
}
