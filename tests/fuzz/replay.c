/* replay.c — runs every input of the fuzz corpus (tests/fuzz/corpus) through
 * its fuzz target, without libFuzzer: the regression test for everything the
 * fuzzers ever found, and a smoke test of the targets under gcc, the
 * sanitizer build and valgrind (make memcheck).
 *
 *   test_fuzz_replay [CORPUS_DIR]   (default $SKIT_DATADIR/tests/fuzz/corpus)
 *
 * Subdirectories: npy/ and tsv/ (the readers), wisdom/ (wisdom files), cli-<command>/ (argument
 * words of `skit <command>`, one per line), cli-merge/ (output directories for
 * `skit reproduce --merge`), checkpoint/ (checkpoint directories for `skit
 * train --resume`). A broken invariant aborts. */
#include "config.h"

/* tools/skit.c is compiled into this program with -Dmain=skit_tool_main */
#undef main

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "fuzz.h"

static int compare_names(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static int read_file(const char *path, uint8_t **data, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f) return -1;
    size_t cap = 4096, n = 0;
    uint8_t *buf = malloc(cap);
    size_t got;
    while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            uint8_t *p = realloc(buf, cap *= 2);
            if (!p) { free(buf); buf = NULL; }
            buf = p;
        }
    }
    fclose(f);
    if (!buf) return -1;
    *data = buf;
    *size = n;
    return 0;
}

/* Runs all files of one corpus directory; returns the count, -1 on error. */
static long replay_dir(const char *dir, const char *target)
{
    DIR *d = opendir(dir);
    if (!d) return -1;
    char **names = NULL;
    size_t count = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        if (count == cap) {
            cap = cap ? 2 * cap : 64;
            char **p = realloc(names, cap * sizeof *names);
            if (!p) abort();
            names = p;
        }
        names[count++] = strdup(e->d_name);
    }
    closedir(d);
    qsort(names, count, sizeof *names, compare_names);
    long done = 0;
    for (size_t i = 0; i < count; i++) {
        char path[8400];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        uint8_t *data;
        size_t size;
        if (read_file(path, &data, &size) != 0) {
            fprintf(stderr, "cannot read %s\n", path);
            return -1;
        }
        fprintf(stderr, "%s\n", path); /* names the input if it crashes */
        if (!strcmp(target, "npy")) skit_fuzz_npy(data, size);
        else if (!strcmp(target, "tsv")) skit_fuzz_tsv(data, size);
        else if (!strcmp(target, "wisdom")) skit_fuzz_wisdom(data, size);
        else if (!strcmp(target, "cli-merge")) skit_fuzz_merge(data, size);
        else if (!strcmp(target, "checkpoint")) skit_fuzz_checkpoint(data, size);
        else skit_fuzz_cli(target + 4, data, size);
        free(data);
        free(names[i]);
        done++;
    }
    free(names);
    return done;
}

int main(int argc, char **argv)
{
    char root[4096];
    if (argc > 1) {
        snprintf(root, sizeof root, "%s", argv[1]);
    } else {
        const char *datadir = getenv("SKIT_DATADIR");
        if (!datadir) {
            fprintf(stderr, "usage: %s CORPUS_DIR (or set SKIT_DATADIR)\n", argv[0]);
            return 2;
        }
        snprintf(root, sizeof root, "%s/tests/fuzz/corpus", datadir);
    }
    /* absolute: the cli target changes the working directory */
    char abs_root[4096];
    if (!realpath(root, abs_root)) {
        fprintf(stderr, "%s: cannot open %s\n", argv[0], root);
        return 1;
    }
    DIR *d = opendir(abs_root);
    if (!d) return 1;
    char *targets[64];
    size_t ntargets = 0;
    struct dirent *e;
    while ((e = readdir(d)) && ntargets < 64)
        if (e->d_name[0] != '.') targets[ntargets++] = strdup(e->d_name);
    closedir(d);
    qsort(targets, ntargets, sizeof *targets, compare_names);
    int failed = 0;
    for (size_t i = 0; i < ntargets; i++) {
        const char *t = targets[i];
        int known = !strcmp(t, "npy") || !strcmp(t, "tsv") || !strcmp(t, "wisdom") || !strcmp(t, "cli-merge") ||
                    !strcmp(t, "checkpoint");
        for (const cli_command *c = cli_commands; !known && c->name; c++)
            known = !strncmp(t, "cli-", 4) && !strcmp(t + 4, c->name);
        if (!known) {
            fprintf(stderr, "%s: unknown corpus directory '%s'\n", argv[0], t);
            failed = 1;
            continue;
        }
        char dir[4200];
        snprintf(dir, sizeof dir, "%s/%s", abs_root, t);
        long n = replay_dir(dir, t);
        if (n < 0) failed = 1;
        printf("%-24s %ld inputs replayed\n", t, n);
        free(targets[i]);
    }
    return failed;
}
