/* reproduce_units.c — experiments split into units (experiments/common.sh:
 * `units`, `run_units`). A long experiment whose seeds or configurations
 * train independently declares them; a sharded or Slurm run then gives each
 * unit to a shard or array task of its own (item "NAME@unit", run with
 * SKIT_UNIT=unit: it writes only that unit's data files), and --merge runs
 * the experiment once more with SKIT_COMBINE=1, which builds its tables,
 * claims, notes and figures from all the units' data. A run on one machine
 * runs each script whole, as ever: the same data files, byte for byte. */
#include "config.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "reproduce_slurm.h"

#define PATH_SIZE 4400

void units_experiment(const char *item, char *exp, size_t size)
{
    snprintf(exp, size, "%.*s", (int)strcspn(item, (char[]){UNIT_SEPARATOR, '\0'}), item);
}

const char *units_unit(const char *item)
{
    const char *sep = strchr(item, UNIT_SEPARATOR);
    return sep ? sep + 1 : NULL;
}

/* Runs `script` with SKIT_LIST_UNITS=1 in a scratch output directory (a
 * script may write data before its units are known); its stdout into out.
 * The script's exit status, -1 when no scratch directory can be made. */
static int list_units(const char *script, char *out, size_t size)
{
    char scratch[PATH_SIZE], out_env[PATH_SIZE + 16];
    snprintf(scratch, sizeof scratch, "%s/skit-units.XXXXXX", cli_temp_dir());
    if (!mkdtemp(scratch)) return -1;
    snprintf(out_env, sizeof out_env, "SKIT_OUT=%s", scratch);
    char *argv[] = {"env",   "-u",   "SKIT_UNIT",    "-u", "SKIT_COMBINE", "SKIT_LIST_UNITS=1",
                    out_env, "bash", (char *)script, NULL};
    int rc = reproduce_capture(argv, 1, out, size);
    reproduce_remove_tree(scratch);
    return rc;
}

/* Appends "name@unit" for every "skit-unit UNIT" line of `list` (at most
 * MAX_ITEMS in all); the number added. */
static size_t add_units(const char *name, char *list, char **items, size_t *count)
{
    static const char mark[] = "skit-unit ";
    size_t added = 0;
    char *save = NULL;
    for (char *line = strtok_r(list, "\n", &save); line && *count < MAX_ITEMS;
         line = strtok_r(NULL, "\n", &save)) {
        if (strncmp(line, mark, sizeof mark - 1)) continue;
        const char *u = line + sizeof mark - 1;
        size_t len = strlen(name) + strlen(u) + 2;
        char *item = malloc(len);
        if (!item) break;
        snprintf(item, len, "%s%c%s", name, UNIT_SEPARATOR, u);
        items[(*count)++] = item;
        added++;
    }
    return added;
}

void units_expand(const char *exp_dir, const char *file, char **items, size_t *count)
{
    char name[256], script[PATH_SIZE], list[16384];
    reproduce_stem(file, name, sizeof name);
    snprintf(script, sizeof script, "%s/%s", exp_dir, file);
    int rc = list_units(script, list, sizeof list);
    if (rc != 0)
        fprintf(stderr, "skit reproduce: %s: cannot list its units (exit %d); it runs whole\n",
                name, rc);
    if ((rc != 0 || add_units(name, list, items, count) == 0) && *count < MAX_ITEMS)
        items[(*count)++] = strdup(name);
}

/* ---- --merge: the combine steps ------------------------------------------- */

/* The items of the run's plans (done/.plan-I-of-N, the largest N). */
static void planned_items(const char *out_dir, char **items, size_t *count)
{
    char path[PATH_SIZE], line[512];
    size_t shards = 0, i, n;
    snprintf(path, sizeof path, "%s/done", out_dir);
    DIR *d = opendir(path);
    for (struct dirent *e; d && (e = readdir(d));)
        if (sscanf(e->d_name, ".plan-%zu-of-%zu", &i, &n) == 2 && n > shards) shards = n;
    if (d) closedir(d);
    *count = 0;
    for (i = 1; i <= shards; i++) {
        snprintf(path, sizeof path, "%s/done/.plan-%zu-of-%zu", out_dir, i, shards);
        FILE *f = fopen(path, "r");
        while (f && *count < MAX_ITEMS && fgets(line, sizeof line, f)) {
            line[strcspn(line, "\n")] = '\0';
            if (*line && !strchr(line, '/')) items[(*count)++] = strdup(line);
        }
        if (f) fclose(f);
    }
}

/* How the units of experiment exp among items[0..count) ended: 0 every one
 * finished, -1 one has no marker yet (--allow-partial), 1 one failed (its
 * reasons, "unit U: ...", into why). */
static int units_outcome(const char *out_dir, const char *exp, char *const *items, size_t count,
                         char *why, size_t size)
{
    int outcome = 0;
    *why = '\0';
    for (size_t i = 0; i < count && outcome >= 0; i++) {
        char item_exp[256], marker[PATH_SIZE], reason[1024] = "";
        units_experiment(items[i], item_exp, sizeof item_exp);
        if (!units_unit(items[i]) || strcmp(item_exp, exp)) continue;
        snprintf(marker, sizeof marker, "%s/done/%s", out_dir, items[i]);
        FILE *f = fopen(marker, "r");
        if (!f) {
            outcome = -1;
            continue;
        }
        if (fgets(reason, sizeof reason, f)) reason[strcspn(reason, "\n")] = '\0';
        fclose(f);
        if (!*reason) continue;
        size_t len = strlen(why);
        snprintf(why + len, size - len, "%sunit %s: %s", len ? "; " : "", units_unit(items[i]),
                 reason);
        outcome = 1;
    }
    return outcome;
}

/* The experiments that items[0..count) split into units, each once. */
static size_t split_experiments(char *const *items, size_t count, char (*exps)[256])
{
    size_t n = 0;
    for (size_t i = 0; i < count && n < MAX_EXPERIMENTS; i++) {
        char exp[256];
        units_experiment(items[i], exp, sizeof exp);
        size_t k = 0;
        while (k < n && strcmp(exps[k], exp))
            k++;
        if (units_unit(items[i]) && k == n) snprintf(exps[n++], sizeof *exps, "%s", exp);
    }
    return n;
}

/* An experiment not combined (a unit missing) shows no claims of an
 * earlier merge's. */
static void remove_results(const char *out_dir, const char *exp)
{
    char path[PATH_SIZE + 300];
    snprintf(path, sizeof path, "%.4095s/claims/%.255s.tsv", out_dir, exp);
    unlink(path);
    snprintf(path, sizeof path, "%.4095s/notes/%.255s.md", out_dir, exp);
    unlink(path);
}

size_t units_combine(const char *out_dir, const char *exp_dir, int quick)
{
    static char exps[MAX_EXPERIMENTS][256];
    char *items[MAX_ITEMS], abs_out[4096], why[4096];
    size_t count, failed = 0;
    planned_items(out_dir, items, &count);
    size_t steps = split_experiments(items, count, exps);
    if (steps && reproduce_prepare_output(out_dir, quick, abs_out, sizeof abs_out) != CLI_OK)
        steps = 0;
    for (size_t k = 0; k < steps; k++) {
        int outcome = units_outcome(abs_out, exps[k], items, count, why, sizeof why);
        if (outcome == 0)
            failed += (size_t)reproduce_run_item(exp_dir, exps[k], abs_out, k + 1, steps, 1);
        if (outcome < 0) remove_results(abs_out, exps[k]);
        if (outcome == 1) {
            fprintf(stderr, "[%zu/%zu] %-32s ... not combined: %s\n", k + 1, steps, exps[k], why);
            reproduce_error_row(abs_out, exps[k], why);
        }
    }
    for (size_t i = 0; i < count; i++)
        free(items[i]);
    return failed;
}
