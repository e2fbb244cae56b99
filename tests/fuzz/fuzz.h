/* fuzz.h — the fuzz targets of skit, shared by the libFuzzer drivers
 * (tests/fuzz/libfuzzer_*.c, built with clang by `make fuzz`) and by the
 * corpus replay test (tests/fuzz/replay.c, built by `make check`).
 *
 * Each target returns 0 for an input it ran, -1 for an input it refuses to
 * run (libFuzzer then leaves it out of the corpus). A broken invariant
 * (status outside the documented set, a partial output file, a second line
 * on stderr, ...) prints what went wrong and calls abort(), so libFuzzer
 * and the replay test both see it as a crash. */
#ifndef SKIT_FUZZ_H
#define SKIT_FUZZ_H

#include <stddef.h>
#include <stdint.h>

/* skit_npy_parse on the bytes. */
int skit_fuzz_npy(const uint8_t *data, size_t size);

/* skit_tsv_parse on the bytes; a parsed table is printed and parsed again. */
int skit_fuzz_tsv(const uint8_t *data, size_t size);

/* skit_fft_wisdom_import_file on the bytes, written to a file; wisdom
 * that imports is exported and imported again. */
int skit_fuzz_wisdom(const uint8_t *data, size_t size);

/* `skit <command> WORDS...`: the input is split into argv words at '\n' and
 * '\0'; command NULL means the first word names the subcommand. Runs in a
 * private temporary directory that holds small input files (see
 * fuzz_cli.c); words with '/' and integers above a cap are refused. */
int skit_fuzz_cli(const char *command, const uint8_t *data, size_t size);

/* `skit reproduce --merge [--allow-partial]` over an output directory built
 * from the bytes (claims, notes, completion markers; see fuzz_cli.c). */
int skit_fuzz_merge(const uint8_t *data, size_t size);

/* What `skit train --resume DIR` does before training, over a checkpoint
 * directory built from the bytes (see fuzz_cli.c). */
int skit_fuzz_checkpoint(const uint8_t *data, size_t size);

/* Prints an invariant violation with the input and aborts. */
void skit_fuzz_fail(const char *target, const uint8_t *data, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 4, 5), noreturn));

#endif
