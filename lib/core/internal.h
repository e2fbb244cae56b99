/* internal.h — helpers shared by the library's source files; not installed. */
#ifndef SKIT_INTERNAL_H
#define SKIT_INTERNAL_H

#include "skit/core.h"

#if defined(__GNUC__)
#define SKIT_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define SKIT_PRINTF(a, b)
#endif

/* Record an error (message, file, line), call the handler, return `status`.
 * Use through SKIT_ERROR so the location is filled in. */
int skit_error_raise(int status, const char *file, int line, const char *fmt, ...)
    SKIT_PRINTF(4, 5);

/* `return SKIT_ERROR(SKIT_EDOM, "r = %zu out of range: need 2 <= r <= n (= %zu)", r, n);` */
#define SKIT_ERROR(status, ...) skit_error_raise((status), __FILE__, __LINE__, __VA_ARGS__)

/* Argument checks that raise with the parameter's name. */
#define SKIT_REQUIRE_PTR(p)                                                     \
    do {                                                                        \
        if ((p) == NULL) return SKIT_ERROR(SKIT_EINVAL, "%s must not be NULL", #p); \
    } while (0)

/* Propagate a non-OK status (already raised by the callee). */
#define SKIT_TRY(expr)                                                          \
    do {                                                                        \
        int skit_try_status_ = (expr);                                          \
        if (skit_try_status_ != SKIT_OK) return skit_try_status_;               \
    } while (0)

/* A plan's own workspace, lent to one execute at a time (workspace.c):
 * take returns it, or, while another call holds it, a fresh allocation of
 * the same size (NULL, with SKIT_ENOMEM raised, if that fails); give
 * returns what take gave. Thread-safe; a const plan may hold one. */
typedef struct skit_workspace skit_workspace;
int skit_workspace_create(skit_workspace **workspace, size_t doubles);
void skit_workspace_destroy(skit_workspace *workspace);
size_t skit_workspace_doubles(const skit_workspace *workspace);
double *skit_workspace_take(skit_workspace *workspace);
void skit_workspace_give(skit_workspace *workspace, double *data);

/* OpenMP's thread count for the next parallel region (1 without OpenMP):
 * what a plan sizes its per-thread buffers for at create time. */
int skit_max_threads(void);

/* The *_struct_size functions of the public headers: the size of the
 * named struct from a module's table (0 if absent or name is NULL). */
typedef struct skit_struct_entry {
    const char *name;
    size_t size;
} skit_struct_entry;
size_t skit_struct_size_of(const skit_struct_entry *table, size_t count, const char *name);
#define SKIT_STRUCT(type) {#type, sizeof(type)}
/* fn(name): the lookup over the SKIT_STRUCT entries given */
#define SKIT_DEFINE_STRUCT_SIZE(fn, ...)                                                  \
    size_t fn(const char *name)                                                           \
    {                                                                                     \
        static const skit_struct_entry table[] = {__VA_ARGS__};                           \
        return skit_struct_size_of(table, sizeof table / sizeof table[0], name);          \
    }

/* The file a write to `path` replaces (atomic.c): path itself, or, for a
 * symbolic link (a chain of them), the file the last one names, also when
 * that file does not exist yet. SKIT_EINVAL (not raised) if it does not
 * fit in `size` bytes. */
int skit_link_target(const char *path, char *out, size_t size);

#define SKIT_MIN(a, b) ((a) < (b) ? (a) : (b))
#define SKIT_MAX(a, b) ((a) > (b) ? (a) : (b))

#endif
