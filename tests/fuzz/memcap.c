/* memcap.c — the libFuzzer builds' skit_memory_check: refuses requests above
 * SKIT_FUZZ_MEMORY_CAP bytes (make: FUZZ_MEMORY_CAP), then asks the real one
 * (lib/core/memory.c, compiled there with
 * -Dskit_memory_check=skit_memory_check_uncapped). Keeps a fuzzed size within
 * what the fuzzer can run many times a second; the refusal is the same
 * SKIT_ETOOBIG that a machine with less memory would give. */
#include "config.h"

#include "core/internal.h"

int skit_memory_check_uncapped(size_t bytes, const char *what);

int skit_memory_check(size_t bytes, const char *what)
{
    if (bytes > (size_t)SKIT_FUZZ_MEMORY_CAP)
        return SKIT_ERROR(SKIT_ETOOBIG, "%s needs about %.3g GiB but the fuzz harness allows %.3g GiB",
                          what ? what : "request", (double)bytes / 1073741824.0,
                          (double)SKIT_FUZZ_MEMORY_CAP / 1073741824.0);
    return skit_memory_check_uncapped(bytes, what);
}
