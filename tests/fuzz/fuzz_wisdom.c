/* fuzz_wisdom.c — fuzz target for the wisdom file reader
 * (skit_fft_wisdom_import_file, skit/fft.h).
 *
 * The bytes are written to a private temporary file, which the reader
 * opens by name as `--wisdom FILE` does. Beyond "no crash", the target
 * checks the reader's contract: the status is one of the documented codes,
 * a failure has a message naming the file, bytes with a NUL are refused as
 * not text, and wisdom that was imported exports again, round trip: the
 * exported text, written with skit_fft_wisdom_export_file, imports. The
 * process forgets its wisdom after each input, so inputs do not add up. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "skit.h"
#include "fuzz.h"

/* A file name of this process's own, removed at exit. */
static char wisdom_path[4096];

static void remove_wisdom_file(void) { unlink(wisdom_path); }

static const char *private_file(void)
{
    if (wisdom_path[0]) return wisdom_path;
    const char *dir = getenv("TMPDIR");
    snprintf(wisdom_path, sizeof wisdom_path, "%s/skit-fuzz-wisdom-XXXXXX", dir && *dir ? dir : "/tmp");
    int fd = mkstemp(wisdom_path);
    if (fd < 0) {
        wisdom_path[0] = '\0';
        return NULL;
    }
    close(fd);
    atexit(remove_wisdom_file);
    return wisdom_path;
}

static int write_bytes(const char *path, const uint8_t *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    int bad = size && fwrite(data, 1, size, f) != size;
    bad |= fclose(f) != 0;
    return bad ? -1 : 0;
}

/* Imported wisdom writes out and reads back. */
static void check_round_trip(const char *path, const uint8_t *data, size_t size)
{
    char *text = skit_fft_wisdom_export_string();
    if (!text) skit_fuzz_fail("wisdom", data, size, "export after a successful import gave no text");
    skit_free(text);
    unlink(path); /* export merges what the file holds: start from none */
    if (skit_fft_wisdom_export_file(path) != SKIT_OK)
        skit_fuzz_fail("wisdom", data, size, "export_file failed: %s", skit_last_error());
    skit_fft_wisdom_forget();
    if (skit_fft_wisdom_import_file(path) != SKIT_OK)
        skit_fuzz_fail("wisdom", data, size, "the exported wisdom does not import: %s", skit_last_error());
}

int skit_fuzz_wisdom(const uint8_t *data, size_t size)
{
    const char *path = private_file();
    if (!path || write_bytes(path, data, size) != 0) return -1;
    int status = skit_fft_wisdom_import_file(path);
    if (status != SKIT_OK && status != SKIT_EFORMAT && status != SKIT_ENOMEM)
        skit_fuzz_fail("wisdom", data, size, "undocumented status %d (%s)", status, skit_strerror(status));
    if (status == SKIT_EFORMAT && !strstr(skit_last_error(), path))
        skit_fuzz_fail("wisdom", data, size, "the message does not name the file: %s", skit_last_error());
    if (memchr(data, '\0', size) && status == SKIT_OK)
        skit_fuzz_fail("wisdom", data, size, "bytes with a NUL imported as wisdom text");
    if (status == SKIT_OK) check_round_trip(path, data, size);
    skit_fft_wisdom_forget();
    return 0;
}
