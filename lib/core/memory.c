/* memory.c — aligned, overflow-checked allocation and memory accounting. */
#include "config.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "core/internal.h"

/* 64 bytes: a cache line, and enough for AVX-512 loads; FFTW's SIMD paths
 * want at least 16/32. */
#define SKIT_ALIGNMENT 64

int skit_size_mul(size_t a, size_t b, size_t *out)
{
    size_t r;
    if (__builtin_mul_overflow(a, b, &r)) return SKIT_EOVERFLOW;
    *out = r;
    return SKIT_OK;
}

int skit_size_add(size_t a, size_t b, size_t *out)
{
    size_t r;
    if (__builtin_add_overflow(a, b, &r)) return SKIT_EOVERFLOW;
    *out = r;
    return SKIT_OK;
}

void *skit_malloc(size_t count, size_t size)
{
    size_t bytes;
    if (skit_size_mul(count, size, &bytes) != SKIT_OK) {
        SKIT_ERROR(SKIT_EOVERFLOW, "allocation of %zu x %zu bytes overflows size_t", count, size);
        return NULL;
    }
    if (bytes == 0) bytes = SKIT_ALIGNMENT;
    /* round up so aligned_alloc's size-multiple rule holds */
    if (bytes > SIZE_MAX - SKIT_ALIGNMENT) {
        SKIT_ERROR(SKIT_EOVERFLOW, "allocation of %zu bytes overflows size_t", bytes);
        return NULL;
    }
    bytes = (bytes + SKIT_ALIGNMENT - 1) / SKIT_ALIGNMENT * SKIT_ALIGNMENT;
    void *p = aligned_alloc(SKIT_ALIGNMENT, bytes);
    if (!p) SKIT_ERROR(SKIT_ENOMEM, "out of memory allocating %zu bytes", bytes);
    return p;
}

void *skit_calloc(size_t count, size_t size)
{
    void *p = skit_malloc(count, size);
    if (p) memset(p, 0, count * size); /* product checked by skit_malloc */
    return p;
}

void skit_free(void *p) { free(p); }

/* Reads one "Key:   value kB" line from a /proc file; 0 if absent. */
static size_t read_proc_kib(const char *path, const char *key)
{
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    char line[256];
    size_t keylen = strlen(key), value = 0;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, key, keylen) == 0 && line[keylen] == ':') {
            unsigned long long kib = 0;
            if (sscanf(line + keylen + 1, "%llu", &kib) == 1) value = (size_t)kib * 1024u;
            break;
        }
    }
    fclose(f);
    return value;
}

/* One unsigned number from a file ("max" or unreadable: 0). */
static size_t read_number_file(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    unsigned long long v = 0;
    if (fscanf(f, "%llu", &v) != 1) v = 0;
    fclose(f);
    return (size_t)v;
}

/* Headroom under RLIMIT_AS (ulimit -v): the limit less the address space
 * already mapped; SIZE_MAX when unlimited. */
static size_t address_space_headroom(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_AS, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY) return SIZE_MAX;
    size_t used = read_proc_kib("/proc/self/status", "VmSize");
    size_t limit = (size_t)rl.rlim_cur;
    return limit > used ? limit - used : 1;
}

/* Headroom under the cgroup (v2 memory.max, v1 limit_in_bytes) this
 * process runs in; SIZE_MAX when there is none. */
static size_t cgroup_headroom(void)
{
    char own[512] = "", limits[3][2][600];
    FILE *f = fopen("/proc/self/cgroup", "r"); /* v2: the line "0::/path" */
    if (f) {
        char line[512];
        while (fgets(line, sizeof line, f))
            if (strncmp(line, "0::", 3) == 0) {
                line[strcspn(line, "\n")] = '\0';
                snprintf(own, sizeof own, "%s", strcmp(line + 3, "/") ? line + 3 : "");
            }
        fclose(f);
    }
    snprintf(limits[0][0], sizeof limits[0][0], "/sys/fs/cgroup%s/memory.max", own);
    snprintf(limits[0][1], sizeof limits[0][1], "/sys/fs/cgroup%s/memory.current", own);
    snprintf(limits[1][0], sizeof limits[1][0], "/sys/fs/cgroup/memory.max");
    snprintf(limits[1][1], sizeof limits[1][1], "/sys/fs/cgroup/memory.current");
    snprintf(limits[2][0], sizeof limits[2][0], "/sys/fs/cgroup/memory/memory.limit_in_bytes");
    snprintf(limits[2][1], sizeof limits[2][1], "/sys/fs/cgroup/memory/memory.usage_in_bytes");
    for (size_t i = 0; i < 3; i++) {
        size_t limit = read_number_file(limits[i][0]);
        /* v1 reports "no limit" as a huge number near LONG_MAX */
        if (limit == 0 || limit >= ((size_t)1 << 60)) continue;
        size_t used = read_number_file(limits[i][1]);
        return limit > used ? limit - used : 1;
    }
    return SIZE_MAX;
}

size_t skit_memory_available(void)
{
    size_t avail = read_proc_kib("/proc/meminfo", "MemAvailable");
    if (!avail) {
        long pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGESIZE);
        if (pages > 0 && page > 0) avail = (size_t)pages * (size_t)page;
    }
    if (!avail) avail = SIZE_MAX; /* unknown: the other limits still apply */
    size_t as = address_space_headroom(), cg = cgroup_headroom();
    if (as < avail) avail = as;
    if (cg < avail) avail = cg;
    return avail == SIZE_MAX ? 0 : avail;
}

/* Reading the limits costs several /proc and /sys reads, more than a
 * small plan's whole creation. A reading taken within RECHECK_NS that
 * left at least RECHECK_MARGIN times the request free answers without
 * reading again; a request near the last reading, or an older reading,
 * reads anew. The cache is two relaxed atomics: a race costs at most one
 * extra reading. */
#define RECHECK_NS 100000000LL /* 0.1 s */
#define RECHECK_MARGIN 8
static _Atomic long long last_reading_ns = -1;
static _Atomic size_t last_available;

static long long monotonic_ns(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0) return -1;
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static size_t memory_available_cached(size_t bytes)
{
    long long now = monotonic_ns(), then = atomic_load_explicit(&last_reading_ns, memory_order_relaxed);
    size_t avail = atomic_load_explicit(&last_available, memory_order_relaxed);
    if (now >= 0 && then >= 0 && now - then < RECHECK_NS && avail != 0 &&
        bytes <= avail / RECHECK_MARGIN)
        return avail;
    avail = skit_memory_available();
    atomic_store_explicit(&last_available, avail, memory_order_relaxed);
    atomic_store_explicit(&last_reading_ns, now, memory_order_relaxed);
    return avail;
}

int skit_memory_check(size_t bytes, const char *what)
{
    size_t avail = memory_available_cached(bytes);
    if (avail != 0 && bytes > avail)
        return SKIT_ERROR(SKIT_ETOOBIG,
                          "%s needs about %.3g GiB but only %.3g GiB is available",
                          what ? what : "request", (double)bytes / 1073741824.0,
                          (double)avail / 1073741824.0);
    return SKIT_OK;
}

size_t skit_memory_peak_rss(void) { return read_proc_kib("/proc/self/status", "VmHWM"); }
