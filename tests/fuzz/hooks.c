/* hooks.c — a replacement that only the libFuzzer builds link (make fuzz):
 * skit_memory_check refuses requests above SKIT_FUZZ_MEMORY_CAP bytes
 * (make: FUZZ_MEMORY_CAP), then asks the real one (lib/core/memory.c,
 * compiled there with -Dskit_memory_check=skit_memory_check_uncapped). It
 * keeps a fuzzed size within what the fuzzer can run many times a second;
 * the refusal is the SKIT_ETOOBIG that a machine with less memory gives.
 * (The cli_apply_threads hook of the same builds is in fuzz_cli.c.) */
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
