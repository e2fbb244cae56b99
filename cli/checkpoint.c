/* checkpoint.c — the field files of checkpoint.h, their checksums, and the
 * check `skit tno --params` makes of a checkpoint's mixer. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checkpoint.h"
#include "cli.h"

#define CHECKPOINT_TITLE CLI_CHECKPOINT_TITLE
#define CHECKSUMS_TITLE CLI_CHECKPOINT_SUMS_TITLE

void cli_fields_free(cli_fields *f)
{
    free(f->keys);
    free(f->values);
    free(f->text);
    memset(f, 0, sizeof *f);
}

const char *cli_fields_get(const cli_fields *f, const char *key)
{
    for (size_t i = 0; i < f->count; i++)
        if (!strcmp(f->keys[i], key)) return f->values[i];
    return NULL;
}

/* One "key\tvalue" line (NUL-terminated in place) into f; a message
 * (static text) if it is malformed. */
static const char *add_field(cli_fields *f, char *line)
{
    size_t len = strlen(line);
    if (len && line[len - 1] == '\r') line[--len] = '\0';
    char *tab = strchr(line, '\t');
    if (!tab) return "a line without a tab (need field<TAB>value)";
    *tab = '\0';
    if (!*line || !tab[1]) return "an empty field name or value";
    if (strchr(tab + 1, '\t')) return "a line with more than two columns";
    if (cli_fields_get(f, line)) return "a field given twice";
    f->keys[f->count] = line;
    f->values[f->count++] = tab + 1;
    return NULL;
}

static int split_lines(const char *option, const char *path, const char *title, cli_fields *f)
{
    size_t lines = 0;
    for (const char *p = f->text; *p; p++) lines += *p == '\n';
    f->keys = malloc((lines + 1) * sizeof *f->keys);
    f->values = malloc((lines + 1) * sizeof *f->values);
    if (!f->keys || !f->values) return cli_failure("%s: %s: out of memory", option, path);
    char *line = f->text;
    for (size_t i = 0; *line; i++) {
        char *nl = strchr(line, '\n');
        *nl = '\0';
        const char *problem = NULL;
        if (i == 0 && strncmp(line, title, strlen(title)) != 0) problem = "not a skit train checkpoint file (first line)";
        else if (i == 1 && strcmp(line, "field\tvalue") && strcmp(line, "field\tvalue\r")) problem = "no field<TAB>value header";
        else if (i > 1) problem = add_field(f, line);
        if (problem) return cli_usage_error("%s: %s: line %zu: %s", option, path, i + 1, problem);
        line = nl + 1;
    }
    return CLI_OK;
}

int cli_fields_parse(const char *option, const char *path, const char *title, const char *text, size_t len,
                     cli_fields *out)
{
    memset(out, 0, sizeof *out);
    if (len > CLI_FIELDS_MAX_BYTES)
        return cli_usage_error("%s: %s: larger than %u bytes: not a checkpoint file", option, path, CLI_FIELDS_MAX_BYTES);
    if (memchr(text, '\0', len)) return cli_usage_error("%s: %s: holds a NUL byte: not a text file", option, path);
    if (len == 0) return cli_usage_error("%s: %s: empty", option, path);
    if (text[len - 1] != '\n') return cli_usage_error("%s: %s: cut short (no final newline)", option, path);
    out->text = malloc(len + 1);
    if (!out->text) return cli_failure("%s: %s: out of memory", option, path);
    memcpy(out->text, text, len);
    out->text[len] = '\0';
    int rc = split_lines(option, path, title, out);
    if (rc == CLI_OK && out->count == 0) rc = cli_usage_error("%s: %s: no fields", option, path);
    if (rc != CLI_OK) cli_fields_free(out);
    return rc;
}

/* The whole file (at most `cap` bytes; *size + 1 allocated, NUL-ended). */
static int read_whole(const char *option, const char *path, size_t cap, unsigned char **data, size_t *size)
{
    *data = NULL;
    *size = 0;
    FILE *f = fopen(path, "rb");
    if (!f) return cli_usage_error("%s: %s: %s", option, path, strerror(errno));
    size_t used = 0, room = 4096;
    unsigned char *buf = malloc(room + 1);
    int rc = buf ? CLI_OK : cli_failure("%s: %s: out of memory", option, path);
    while (rc == CLI_OK) {
        used += fread(buf + used, 1, room - used, f);
        if (used < room) break;
        if (room > cap) {
            rc = cli_usage_error("%s: %s: larger than %zu bytes", option, path, cap);
            break;
        }
        unsigned char *grown = realloc(buf, 2 * room + 1);
        if (!grown) rc = cli_failure("%s: %s: out of memory", option, path);
        else buf = grown, room *= 2;
    }
    if (rc == CLI_OK && ferror(f)) rc = cli_usage_error("%s: %s: read error: %s", option, path, strerror(errno));
    fclose(f);
    if (rc != CLI_OK) {
        free(buf);
        return rc;
    }
    buf[used] = '\0';
    *data = buf;
    *size = used;
    return CLI_OK;
}

int cli_fields_read(const char *option, const char *path, const char *title, cli_fields *out)
{
    memset(out, 0, sizeof *out);
    unsigned char *data;
    size_t size;
    int rc = read_whole(option, path, CLI_FIELDS_MAX_BYTES, &data, &size);
    if (rc == CLI_OK) rc = cli_fields_parse(option, path, title, (const char *)data, size, out);
    free(data);
    return rc;
}

#define FNV_OFFSET 14695981039346656037ull

static uint64_t fnv_update(uint64_t h, const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

uint64_t cli_digest(const void *data, size_t n) { return fnv_update(FNV_OFFSET, data, n); }

void cli_digest_text(const void *data, size_t n, char *out, size_t size)
{
    snprintf(out, size, "%zu %016llx", n, (unsigned long long)cli_digest(data, n));
}

int cli_digest_file(const char *path, char *out, size_t size)
{
    FILE *f = fopen(path, "rb");
    if (!f) return -1;
    unsigned char buf[65536];
    uint64_t h = FNV_OFFSET;
    size_t total = 0, got;
    while ((got = fread(buf, 1, sizeof buf, f)) > 0) {
        h = fnv_update(h, buf, got);
        total += got;
    }
    int failed = ferror(f);
    fclose(f);
    if (failed) {
        errno = EIO;
        return -1;
    }
    snprintf(out, size, "%zu %016llx", total, (unsigned long long)h);
    return 0;
}

static int join_path(const char *option, const char *dir, const char *name, char *out, size_t size)
{
    int n = snprintf(out, size, "%s/%s", dir, name);
    return n < 0 || (size_t)n >= size ? cli_usage_error("%s: %s/%s: path too long", option, dir, name) : CLI_OK;
}

int cli_checkpoint_read_file(const char *option, const char *dir, const cli_fields *sums, const char *name,
                             unsigned char **data, size_t *size)
{
    char path[4096], expect[64];
    *data = NULL;
    int rc = join_path(option, dir, name, path, sizeof path);
    const char *sum = sums ? cli_fields_get(sums, name) : NULL;
    if (rc == CLI_OK && !sum)
        return cli_usage_error("%s: %s: no checksum in %s/checksums.tsv (a file of another checkpoint, or "
                               "checksums.tsv cut short)", option, path, dir);
    if (rc == CLI_OK) rc = read_whole(option, path, (size_t)1 << 40, data, size);
    if (rc != CLI_OK) return rc;
    cli_digest_text(*data, *size, expect, sizeof expect);
    if (strcmp(expect, sum) == 0) return CLI_OK;
    free(*data);
    *data = NULL;
    size_t want = strtoull(sum, NULL, 10);
    if (want != *size)
        return cli_usage_error("%s: %s: %zu bytes, the checkpoint wrote %zu (cut short or changed)", option, path,
                               *size, want);
    return cli_usage_error("%s: %s: checksum mismatch: the file changed after the checkpoint was written (corrupted)",
                           option, path);
}

int cli_checkpoint_open(const char *option, const char *dir, cli_fields *model, cli_fields *sums)
{
    char path[4096];
    memset(sums, 0, sizeof *sums);
    int rc = join_path(option, dir, "model.tsv", path, sizeof path);
    if (rc == CLI_OK) rc = cli_fields_read(option, path, CHECKPOINT_TITLE, model);
    if (rc != CLI_OK) return rc;
    const char *format = cli_fields_get(model, "format");
    char version[16];
    snprintf(version, sizeof version, "%d", CLI_CHECKPOINT_FORMAT);
    if (!format || strcmp(format, version) != 0) {
        rc = cli_usage_error("%s: %s: checkpoint format %s; this skit reads format %d (save it again with this "
                             "version's skit train)", option, path, format ? format : "1 (no format field)",
                             CLI_CHECKPOINT_FORMAT);
    }
    if (rc == CLI_OK) rc = join_path(option, dir, "checksums.tsv", path, sizeof path);
    if (rc == CLI_OK) rc = cli_fields_read(option, path, CHECKSUMS_TITLE, sums);
    unsigned char *data = NULL;
    size_t size;
    if (rc == CLI_OK) rc = cli_checkpoint_read_file(option, dir, sums, "model.tsv", &data, &size);
    free(data);
    if (rc != CLI_OK) {
        cli_fields_free(model);
        cli_fields_free(sums);
    }
    return rc;
}

/* ---- a mixer of a checkpoint, read by `skit tno` and `skit decay` ------- */

/* A field against the value this run has, refused by name if they differ;
 * key may list alternatives "a|b" (the first present is compared). */
static int same_field(const char *option, const char *path, const cli_fields *model, const cli_field_check *c)
{
    char key[64];
    const char *theirs = NULL, *rest = c->key;
    while (!theirs && *rest) {
        size_t len = strcspn(rest, "|");
        snprintf(key, sizeof key, "%.*s", (int)len, rest);
        theirs = cli_fields_get(model, key);
        rest += len + (rest[len] == '|');
    }
    if (!theirs)
        return cli_usage_error("%s: %s: the checkpoint's model.tsv lacks the field %s", option, path, c->key);
    if (!strcmp(theirs, c->value)) return CLI_OK;
    return cli_usage_error("%s: %s is a mixer trained with %s %s; this run has %s %s (the checkpoint's model.tsv, "
                           "field %s)", option, path, c->option, theirs, c->option, c->value, key);
}

int cli_checkpoint_mixer_layer(const char *path)
{
    const char *base = strrchr(path, '/');
    unsigned layer;
    return sscanf(base ? base + 1 : path, "layer%u.", &layer) == 1 && layer < 1000 ? (int)layer : -1;
}

/* 1 if path's directory holds a checkpoint's model.tsv (dir receives it). */
static int in_checkpoint(const char *path, char *dir, size_t size)
{
    char manifest[4200], head[sizeof CHECKPOINT_TITLE] = "";
    const char *slash = strrchr(path, '/');
    if (!slash) snprintf(dir, size, ".");
    else if (slash == path) snprintf(dir, size, "/");
    else snprintf(dir, size, "%.*s", (int)(slash - path), path);
    snprintf(manifest, sizeof manifest, "%s/model.tsv", dir);
    FILE *f = fopen(manifest, "rb");
    if (!f) return 0; /* a vector of its own, not a checkpoint's */
    size_t got = fread(head, 1, sizeof head - 1, f);
    fclose(f);
    head[got] = '\0';
    return strcmp(head, CHECKPOINT_TITLE) == 0;
}

int cli_checkpoint_check_mixer(const char *option, const char *path, const cli_field_check *checks, size_t count)
{
    char dir[4096];
    if (!in_checkpoint(path, dir, sizeof dir)) return CLI_OK;
    cli_fields model, sums;
    int rc = cli_checkpoint_open(option, dir, &model, &sums);
    if (rc != CLI_OK) return rc;
    const char *kind = cli_fields_get(&model, "kind"), *mixer = cli_fields_get(&model, "mixer");
    if (!kind || strcmp(kind, "parameters") != 0)
        rc = cli_usage_error("%s: %s: the checkpoint holds %s, not parameters", option, path, kind ? kind : "no kind field");
    if (rc == CLI_OK && !cli_fields_get(&model, "tno.op"))
        rc = cli_usage_error("%s: %s: the checkpoint's mixer is %s, not a skit tno operator", option, path,
                             mixer ? mixer : "unknown");
    unsigned char *data = NULL;
    size_t size;
    const char *slash = strrchr(path, '/');
    if (rc == CLI_OK) rc = cli_checkpoint_read_file(option, dir, &sums, slash ? slash + 1 : path, &data, &size);
    free(data);
    for (size_t i = 0; rc == CLI_OK && i < count; i++) rc = same_field(option, path, &model, &checks[i]);
    cli_fields_free(&model);
    cli_fields_free(&sums);
    return rc;
}
