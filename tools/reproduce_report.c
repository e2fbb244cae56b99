/* reproduce_report.c — REPORT.md, verdicts.json and the terminal verdict
 * table of `skit reproduce`, from the claims files of the experiments.
 *
 * REPORT.md holds nothing that changes from run to run by itself (no date,
 * no run times): regenerated from the same measurements it is the same file.
 * Layout: the verdict vocabulary; one scoreboard row per paper (the claims
 * of that paper) and one for skit's own checks; a table of claims per paper,
 * then skit's checks, one short row per claim; verdicts that differ from a
 * comparison run (--quick against the full run); then each experiment's
 * notes and the full entries of its claims (measured, margin, stability and
 * control in full), which the table rows link to. */
#include "config.h"

#include "reproduce_report.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/table.h"

/* The vocabulary, in scoreboard order; "error" is no verdict an experiment
 * can give: skit reproduce records it for a script that failed. */
static const char *const verdicts[] = {
    "holds",        "fails",       "hypothesis not met", "reproduced", "not reproduced",
    "inconclusive", "informative", "error"};
enum { NVERDICTS = sizeof verdicts / sizeof *verdicts };

static const char *const verdict_meaning[] = {
    "the tested object meets the statement's hypotheses and the claim is true here",
    "the hypotheses are met and the claim is false here: a counterexample",
    "the tested object is outside the statement (the claim's entry says which hypothesis, and "
    "what that means for the code that builds it); nothing is concluded about the statement",
    "an empirical claim (a figure, a table, a speed-up) whose direction and size appear here too",
    "an empirical claim that the measurement here does not show",
    "a claim the test could not decide: the test could not tell the claim from its control "
    "(the control got the same positive verdict), no control was measured, its repeats or seeds "
    "disagree, or a timing was measured on a loaded machine; the margin (in the claim's entry) "
    "says which, and the verdict measured",
    "a measurement reported for context; not a claim",
    "the experiment script did not finish; its log says why"};

/* The claims file's columns, as verdicts.json and the claims' entries name them. */
static const char *const claim_keys[CLAIM_FIELDS] = {"id",      "source", "claim",     "measured",
                                                     "verdict", "margin", "stability", "control"};

static int verdict_index(const char *v)
{
    for (int i = 0; i < NVERDICTS; i++)
        if (!strcmp(v, verdicts[i])) return i;
    return -1;
}

/* ---- reading the claims files ------------------------------------------ */

static int compare_strings(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int push_row(claim_set *set, const char *experiment, char **cells)
{
    if (set->count == set->cap) {
        size_t cap = set->cap ? 2 * set->cap : 64;
        claim_row *rows = realloc(set->rows, cap * sizeof *rows);
        if (!rows) return -1;
        set->rows = rows;
        set->cap = cap;
    }
    claim_row *r = &set->rows[set->count];
    memset(r, 0, sizeof *r);
    r->experiment = strdup(experiment);
    int ok = r->experiment != NULL;
    for (int k = 0; k < CLAIM_FIELDS; k++)
        ok &= (r->field[k] = strdup(cells[k])) != NULL;
    r->unstable = !strncmp(r->field[CLAIM_STABILITY], "unstable", 8);
    set->count++;
    return ok ? 0 : -1;
}

/* ---- checking a claims file --------------------------------------------- */

/* Why one claim row (line `number`) is malformed, into why; else nothing. */
static void check_row(const char *line, size_t number, char *why, size_t size)
{
    const char *cell[CLAIM_FIELDS + 1];
    size_t cells = 0;
    for (const char *p = line; p && cells <= CLAIM_FIELDS; cells++) {
        cell[cells] = p;
        p = strchr(p, '\t');
        if (p) p++;
    }
    if (cells != CLAIM_FIELDS) {
        snprintf(why, size, "line %zu has %s%zu fields, need %d", number, cells > CLAIM_FIELDS ? "more than " : "",
                 cells > CLAIM_FIELDS ? (size_t)CLAIM_FIELDS : cells, CLAIM_FIELDS);
        return;
    }
    char verdict[64];
    snprintf(verdict, sizeof verdict, "%.*s", (int)strcspn(cell[CLAIM_VERDICT], "\t"), cell[CLAIM_VERDICT]);
    if (cell[CLAIM_ID][0] == '\t') snprintf(why, size, "line %zu has an empty id", number);
    else if (verdict_index(verdict) < 0) snprintf(why, size, "line %zu has the unknown verdict '%s'", number, verdict);
}

int claims_file_check(const char *path, char *why, size_t size)
{
    why[0] = '\0';
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(why, size, "%s", errno == ENOENT ? "missing" : strerror(errno));
        return -1;
    }
    char line[16384];
    size_t number = 0, rows = 0;
    while (!why[0] && fgets(line, sizeof line, f)) {
        number++;
        size_t len = strlen(line);
        if (line[len - 1] != '\n') { /* a write cut short, or no line of a claims file */
            snprintf(why, size, "line %zu is cut short (no end of line)", number);
            break;
        }
        line[strcspn(line, "\r\n")] = '\0';
        if (number == 1) {
            if (strcmp(line, CLAIMS_HEADER) != 0) snprintf(why, size, "no header row");
        } else if (line[0] && line[0] != '#') {
            check_row(line, number, why, size);
            rows++;
        }
    }
    if (!why[0] && ferror(f)) snprintf(why, size, "cannot be read");
    fclose(f);
    if (!why[0] && number == 0) snprintf(why, size, "empty");
    else if (!why[0] && rows == 0) snprintf(why, size, "no claim rows");
    return why[0] ? -1 : 0;
}

char *claims_check_completed(const char *dir)
{
    char *list = NULL, path[8400], why[256];
    size_t length = 0;
    FILE *out = open_memstream(&list, &length);
    if (!out) return NULL;
    snprintf(path, sizeof path, "%s/done", dir);
    DIR *d = opendir(path);
    struct dirent *e;
    const char *comma = "";
    while (d && (e = readdir(d))) {
        /* plans are not markers; a unit's marker (NAME@UNIT) vouches for
         * data its experiment's combine step reads, not for a claims file */
        if (e->d_name[0] == '.' || strchr(e->d_name, '@')) continue;
        snprintf(path, sizeof path, "%s/claims/%s.tsv", dir, e->d_name);
        if (claims_file_check(path, why, sizeof why) == 0) continue;
        fprintf(out, "%s%s (claims/%s.tsv: %s)", comma, e->d_name, e->d_name, why);
        comma = ", ";
    }
    if (d) closedir(d);
    return fclose(out) == 0 ? list : (free(list), NULL);
}

/* ---- reading the claims files, once checked ------------------------------ */

/* One claims file; a file that is not well formed (without the header
 * row: an older skit; cut short, or with a malformed row) is skipped and
 * counted. */
static int load_file(const char *path, const char *experiment, claim_set *set)
{
    char why[256];
    if (claims_file_check(path, why, sizeof why) != 0) {
        set->skipped_files++;
        return 0;
    }
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    char line[16384];
    int status = 0, header = 0;
    while (status == 0 && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = '\0';
        if (!header) {
            header = 1;
            if (strcmp(line, CLAIMS_HEADER) != 0) {
                set->skipped_files++;
                break;
            }
            continue;
        }
        if (line[0] == '\0' || line[0] == '#') continue;
        char *cells[CLAIM_FIELDS] = {"", "", "", "", "", "", "", ""};
        char *p = line;
        for (int k = 0; k < CLAIM_FIELDS && p; k++) {
            cells[k] = p;
            p = strchr(p, '\t');
            if (p) *p++ = '\0';
        }
        status = push_row(set, experiment, cells);
    }
    fclose(f);
    return status;
}

int claims_load(const char *dir, claim_set *set)
{
    memset(set, 0, sizeof *set);
    char claims_dir[4200], path[8400];
    snprintf(claims_dir, sizeof claims_dir, "%s/claims", dir);
    DIR *d = opendir(claims_dir);
    if (!d) return -1;
    char **names = NULL;
    size_t count = 0, cap = 0;
    struct dirent *e;
    int status = 0;
    while (status == 0 && (e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (len <= 4 || e->d_name[0] == '.' || strcmp(e->d_name + len - 4, ".tsv")) continue;
        if (count == cap) {
            cap = cap ? 2 * cap : 32;
            char **grown = realloc(names, cap * sizeof *names);
            if (!grown)
                status = -1;
            else
                names = grown;
        }
        if (status == 0 && !(names[count++] = strdup(e->d_name))) status = -1;
    }
    closedir(d);
    if (count) qsort(names, count, sizeof *names, compare_strings);
    for (size_t i = 0; i < count; i++) {
        if (status == 0 && names[i]) {
            char experiment[4096];
            snprintf(experiment, sizeof experiment, "%.*s", (int)(strlen(names[i]) - 4), names[i]);
            snprintf(path, sizeof path, "%s/%s", claims_dir, names[i]);
            status = load_file(path, experiment, set);
        }
        free(names[i]);
    }
    free(names);
    return status;
}

void claims_free(claim_set *set)
{
    for (size_t i = 0; i < set->count; i++) {
        free(set->rows[i].experiment);
        for (int k = 0; k < CLAIM_FIELDS; k++)
            free(set->rows[i].field[k]);
    }
    free(set->rows);
    memset(set, 0, sizeof *set);
}

/* ---- scoreboards --------------------------------------------------------- */

static int is_paper(const claim_row *r)
{
    return strcmp(r->field[CLAIM_SOURCE], CLAIM_SOURCE_SKIT) &&
           strcmp(r->field[CLAIM_SOURCE], CLAIM_SOURCE_RUN);
}

/* The sources in order of first appearance, papers first, then skit's
 * checks and failed runs. */
static size_t list_sources(const claim_set *set, const char **sources, size_t max)
{
    size_t n = 0;
    for (int pass = 0; pass < 3; pass++)
        for (size_t i = 0; i < set->count; i++) {
            const char *s = set->rows[i].field[CLAIM_SOURCE];
            int want = pass == 0   ? is_paper(&set->rows[i])
                       : pass == 1 ? !strcmp(s, CLAIM_SOURCE_SKIT)
                                   : !strcmp(s, CLAIM_SOURCE_RUN);
            int seen = 0;
            for (size_t j = 0; j < n; j++)
                seen |= !strcmp(sources[j], s);
            if (want && !seen && n < max) sources[n++] = s;
        }
    return n;
}

static const char *source_title(const char *source)
{
    if (!strcmp(source, CLAIM_SOURCE_SKIT)) return "skit's own checks (not claims of a paper)";
    if (!strcmp(source, CLAIM_SOURCE_RUN)) return "experiments that did not finish";
    return source;
}

/* counts[verdict], unstable and total for one source */
static void count_source(const claim_set *set, const char *source, size_t *counts, size_t *unstable,
                         size_t *total)
{
    memset(counts, 0, NVERDICTS * sizeof *counts);
    *unstable = *total = 0;
    for (size_t i = 0; i < set->count; i++) {
        const claim_row *r = &set->rows[i];
        if (strcmp(r->field[CLAIM_SOURCE], source)) continue;
        int v = verdict_index(r->field[CLAIM_VERDICT]);
        counts[v < 0 ? NVERDICTS - 1 : v]++;
        *unstable += (size_t)r->unstable;
        (*total)++;
    }
}

static void write_vocabulary(FILE *f)
{
    fputs("## Verdicts\n\nEvery row has one of these verdicts, computed by the experiment script "
          "from the claim's own measurement (none is copied from a paper):\n\n"
          "| verdict | meaning |\n|---|---|\n",
          f);
    for (int i = 0; i < NVERDICTS; i++)
        fprintf(f, "| **%s** | %s |\n", verdicts[i], verdict_meaning[i]);
    fputs("\nThe tables of claims below give one short row per claim: its experiment, the claim "
          "(its id links to the claim's full entry), the verdict, the stability and the control's "
          "verdict. The full entry of each claim, in its experiment's section after the notes, "
          "adds what was *measured* (with the sizes), the *margin* (by how much the verdict "
          "holds, or why it is inconclusive), and the stability and the control in full.\n\n"
          "The *stability* column says how many repeats (timing claims), seeds "
          "(data-dependent claims) or settings (deterministic claims decided per kernel "
          "setting, e.g. each lengthscale) gave the verdict, with the spread of the deciding number; "
          "\"unstable\" marks repeats that disagree, and the row is then inconclusive (the "
          "margin gives the majority's verdict). Timing and data-dependent claims are always "
          "repeated. A claim decided by "
          "one run says why one suffices: \"deterministic\" (no random input, or an identity "
          "checked to rounding), \"every case\" (a universal statement checked on every case of "
          "a sweep of random inputs, whose count the entry's measured line gives: one "
          "counterexample would decide \"fails\"), \"fixed data\" (measured over a fixed real "
          "dataset, e.g. a trained model's attention heads; the fraction over its items is in "
          "the entry's measured line).\n\n"
          "The *control* column is the negative control of an empirical claim: a configuration "
          "for which the claim is known to be false (true, for a claim that something fails), "
          "measured in the same run with the same code and threshold, written \"what → verdict\" "
          "in the claim's entry and \"→ verdict\" in the table. "
          "If the control gets the claim's positive verdict (reproduced, holds), the test could "
          "not tell the claim from its control and the claim is **inconclusive**; a negative "
          "verdict that agrees with a negative control stands (the claim behaved like a "
          "configuration where it is false). An empirical claim without a control is "
          "inconclusive too (\"none: no control measured\"). \"-\" marks a row that needs none: "
          "a verdict that is deterministic or checked on every case, a theorem's verdict, or a "
          "measurement. Timing claims record the 1-minute load average and the CPU affinity in "
          "their stability (in the claim's entry; the table row leaves it out); one measured "
          "with a load above the machine's CPUs, or with fewer CPUs in its affinity mask than it "
          "needs, is inconclusive (loaded machine).\n\n",
          f);
}

/* ---- the list at the top: what fails, is not reproduced, is inconclusive -- */

/* Why an inconclusive row is inconclusive: the reason its margin starts
 * with (experiments/common.sh writes these prefixes). */
static const char *inconclusive_reason(const claim_row *r)
{
    static const char *const reasons[][2] = {
        {"the test could not tell", "the test could not tell the claim from its control"},
        {"no control measured", "no control measured"},
        {"loaded machine", "loaded machine"},
        {"repeats disagree", "its repeats or seeds disagree"}};
    for (size_t i = 0; i < sizeof reasons / sizeof *reasons; i++)
        if (!strncmp(r->field[CLAIM_MARGIN], reasons[i][0], strlen(reasons[i][0])))
            return reasons[i][1];
    return "undecided: see its entry";
}

/* The reason shared by every inconclusive row of experiment `exp` from row
 * `from` on (rows of one experiment are adjacent), or NULL if they differ. */
static const char *shared_reason(const claim_set *set, size_t from, const char *exp)
{
    const char *reason = NULL;
    for (size_t i = from; i < set->count && !strcmp(set->rows[i].experiment, exp); i++) {
        const claim_row *r = &set->rows[i];
        if (!is_paper(r) || strcmp(r->field[CLAIM_VERDICT], "inconclusive")) continue;
        const char *why = inconclusive_reason(r);
        if (reason && strcmp(reason, why)) return NULL;
        reason = why;
    }
    return reason;
}

/* One line per experiment: "- [exp](#exp): `id`, `id`", inconclusive rows
 * with their reason (once, when the experiment's rows share it). */
static size_t write_glance_verdict(FILE *f, const claim_set *set, const char *verdict)
{
    size_t n = 0;
    const char *last = NULL, *shared = NULL;
    int inconclusive = !strcmp(verdict, "inconclusive");
    for (size_t i = 0; i < set->count; i++) {
        const claim_row *r = &set->rows[i];
        if (!is_paper(r) || strcmp(r->field[CLAIM_VERDICT], verdict)) continue;
        if (!n++) fprintf(f, "**%s**\n\n", verdict);
        if (!last || strcmp(last, r->experiment)) {
            shared = inconclusive ? shared_reason(set, i, r->experiment) : NULL;
            fprintf(f, "%s- [%s](#%s)", last ? "\n" : "", r->experiment, r->experiment);
            if (shared) fprintf(f, " (%s)", shared);
            fputs(": ", f);
        } else
            fputs(", ", f);
        fprintf(f, "`%s`", r->field[CLAIM_ID]);
        if (inconclusive && !shared) fprintf(f, " (%s)", inconclusive_reason(r));
        last = r->experiment;
    }
    if (n) fputs("\n\n", f);
    return n;
}

static void write_glance(FILE *f, const claim_set *set)
{
    fputs("## What fails, what is not reproduced, what is inconclusive\n\n"
          "The papers' claims (by experiment and claim id; the rows are in the tables below, the "
          "full entries in each experiment's section) "
          "whose verdict is not holds or reproduced:\n\n",
          f);
    size_t n = 0;
    n += write_glance_verdict(f, set, "fails");
    n += write_glance_verdict(f, set, "not reproduced");
    n += write_glance_verdict(f, set, "inconclusive");
    n += write_glance_verdict(f, set, "error");
    if (!n) fputs("None.\n\n", f);
}

static void write_scoreboard(FILE *f, const claim_set *set, const char **sources, size_t nsources)
{
    fputs("## Scoreboard\n\n| source | claims |", f);
    for (int i = 0; i < NVERDICTS; i++)
        fprintf(f, " %s |", verdicts[i]);
    fputs(" unstable |\n|---|---|", f);
    for (int i = 0; i <= NVERDICTS; i++)
        fputs("---|", f);
    fputc('\n', f);
    for (size_t s = 0; s < nsources; s++) {
        size_t counts[NVERDICTS], unstable, total;
        count_source(set, sources[s], counts, &unstable, &total);
        fprintf(f, "| %s | %zu |", source_title(sources[s]), total);
        for (int i = 0; i < NVERDICTS; i++)
            fprintf(f, " %zu |", counts[i]);
        fprintf(f, " %zu |\n", unstable);
    }
    fputc('\n', f);
}

/* ---- the claim tables ---------------------------------------------------- */

/* A markdown table cell: '|' inside a claim (|k[n]|, norms) would end the
 * cell, so it is escaped; the first `length` bytes of text. */
static void put_table_cell_prefix(FILE *f, const char *text, size_t length)
{
    for (const char *p = text; p < text + length; p++) {
        if (*p == '|') fputc('\\', f);
        fputc(*p, f);
    }
}

static void put_table_cell(FILE *f, const char *text)
{
    put_table_cell_prefix(f, text, strlen(text));
}

/* A link target as GitHub derives it from a heading: lower case, spaces to
 * '-', punctuation other than '-' and '_' dropped (bytes of UTF-8 letters
 * kept). */
static void put_anchor(FILE *f, const char *heading)
{
    for (const unsigned char *p = (const unsigned char *)heading; *p; p++) {
        if (*p == ' ') fputc('-', f);
        else if (*p >= 0x80 || *p == '-' || *p == '_' || (*p >= '0' && *p <= '9')) fputc(*p, f);
        else if ((*p | 0x20) >= 'a' && (*p | 0x20) <= 'z') fputc(*p | 0x20, f);
    }
}

/* A claim's entry is headed "EXPERIMENT: ID", so its anchor is EXPERIMENT-ID. */
static void put_claim_anchor(FILE *f, const claim_row *r)
{
    put_anchor(f, r->experiment);
    fputc('-', f);
    put_anchor(f, r->field[CLAIM_ID]);
}

/* The control's verdict alone ("what (stability) → verdict" gives
 * "→ verdict", "none: reason" gives "none", "-" for none needed): the row
 * stays short, the claim's entry has the rest. */
static void put_control_verdict(FILE *f, const char *control)
{
    static const char arrow[] = " → ";
    const char *last = NULL;
    for (const char *p = strstr(control, arrow); p; p = strstr(p + 1, arrow))
        last = p;
    if (!*control)
        fputc('-', f);
    else if (last) {
        fputs("→ ", f);
        put_table_cell(f, last + strlen(arrow));
    } else if (!strncmp(control, "none", 4))
        fputs("none", f);
    else
        put_table_cell(f, control);
}

/* The stability without the machine state a timing claim appends
 * ("; load L (1 min), ..."): repeats and spread in the row, the load in
 * the claim's entry. */
static void put_stability_summary(FILE *f, const char *stability)
{
    const char *machine = strstr(stability, "; load ");
    put_table_cell_prefix(f, stability, machine ? (size_t)(machine - stability) : strlen(stability));
}

static void write_claim_table(FILE *f, const claim_set *set, const char *source)
{
    fprintf(f,
            "## Claims: %s\n\n| experiment | claim | verdict | stability | control |\n"
            "|---|---|---|---|---|\n",
            source_title(source));
    for (size_t i = 0; i < set->count; i++) {
        const claim_row *r = &set->rows[i];
        if (strcmp(r->field[CLAIM_SOURCE], source)) continue;
        fprintf(f, "| [%s](#", r->experiment);
        put_anchor(f, r->experiment);
        fprintf(f, ") | [`%s`](#", r->field[CLAIM_ID]);
        put_claim_anchor(f, r);
        fputs("): ", f);
        put_table_cell(f, r->field[CLAIM_TEXT]);
        fprintf(f, " | **%s** | ", r->field[CLAIM_VERDICT]);
        put_stability_summary(f, r->field[CLAIM_STABILITY]);
        fputs(" | ", f);
        put_control_verdict(f, r->field[CLAIM_CONTROL]);
        fputs(" |\n", f);
    }
    fputc('\n', f);
}

/* ---- comparison with another run ---------------------------------------- */

static const claim_row *find_claim(const claim_set *set, const claim_row *r)
{
    for (size_t i = 0; i < set->count; i++)
        if (!strcmp(set->rows[i].experiment, r->experiment) &&
            !strcmp(set->rows[i].field[CLAIM_ID], r->field[CLAIM_ID]))
            return &set->rows[i];
    return NULL;
}

/* Lists the claims whose verdict differs from the run in `other_dir`;
 * returns how many differ (claims missing in either run are listed too). */
static size_t write_comparison(FILE *f, const claim_set *set, const char *other_dir,
                               const char *label, int quick)
{
    claim_set other;
    if (claims_load(other_dir, &other) != 0) {
        fprintf(f, "## Verdicts against %s\n\nNo claims could be read from %s.\n\n", label, label);
        return 0;
    }
    size_t differ = 0, same = 0;
    fprintf(f, "## Verdicts against the %s run\n\n", quick ? "full" : "comparison");
    fprintf(f, "Compared with the claims in %s%s. Rows whose verdict differs in kind:\n\n",
            label, other.skipped_files ? " (claims files that are not well formed skipped)" : "");
    fputs("| experiment | claim id | this run | other run | this run's stability |\n"
          "|---|---|---|---|---|\n",
          f);
    for (size_t i = 0; i < set->count; i++) {
        const claim_row *r = &set->rows[i], *o = find_claim(&other, r);
        const char *theirs = o ? o->field[CLAIM_VERDICT] : "(absent)";
        if (o && !strcmp(theirs, r->field[CLAIM_VERDICT])) {
            same++;
            continue;
        }
        differ++;
        fprintf(f, "| %s | %s | %s | %s | %s |\n", r->experiment, r->field[CLAIM_ID],
                r->field[CLAIM_VERDICT], theirs, r->field[CLAIM_STABILITY]);
    }
    fprintf(f, "\n%zu of %zu verdicts agree, %zu differ%s.\n\n", same, set->count, differ,
            quick ? " (--quick uses smaller sizes: a difference says the claim depends on size "
                    "or is unstable)"
                  : "");
    claims_free(&other);
    return differ;
}

/* ---- verdicts.json and the terminal table -------------------------------- */

static int write_json(const char *out_dir, const claim_set *set, int quick)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/verdicts.json", out_dir);
    cli_json j;
    if (cli_json_open(&j, path) != CLI_OK) return CLI_FAILED;
    cli_json_key(&j, "skit_version");
    cli_json_string(&j, skit_version());
    cli_json_key(&j, "quick");
    cli_json_bool(&j, quick);
    cli_json_key(&j, "verdicts");
    cli_json_begin_array(&j, 1);
    for (int i = 0; i < NVERDICTS; i++)
        cli_json_string(&j, verdicts[i]);
    cli_json_end_array(&j);
    cli_json_key(&j, "claims");
    cli_json_begin_array(&j, 0);
    for (size_t i = 0; i < set->count; i++) {
        const claim_row *r = &set->rows[i];
        cli_json_begin_object(&j, 1);
        cli_json_key(&j, "experiment");
        cli_json_string(&j, r->experiment);
        for (int k = 0; k < CLAIM_FIELDS; k++) {
            cli_json_key(&j, claim_keys[k]);
            cli_json_string(&j, r->field[k]);
        }
        cli_json_key(&j, "paper_claim");
        cli_json_bool(&j, is_paper(r));
        cli_json_key(&j, "unstable");
        cli_json_bool(&j, r->unstable);
        cli_json_end_object(&j);
    }
    cli_json_end_array(&j);
    return cli_json_close(&j);
}

/* Column widths from the longest entry, so long names stay aligned. */
static void print_table(const claim_set *set, const char **sources, size_t nsources)
{
    int wsrc = 6, wname = 16, wverdict = 7;
    for (size_t i = 0; i < set->count; i++) {
        const claim_row *r = &set->rows[i];
        int name = (int)(strlen(r->experiment) + 1 + strlen(r->field[CLAIM_ID]));
        if (name > wname) wname = name;
        if ((int)strlen(r->field[CLAIM_SOURCE]) > wsrc) wsrc = (int)strlen(r->field[CLAIM_SOURCE]);
        if ((int)strlen(r->field[CLAIM_VERDICT]) > wverdict)
            wverdict = (int)strlen(r->field[CLAIM_VERDICT]);
    }
    printf("%-*s  %-*s  %-*s  %s\n", wsrc, "source", wname, "experiment/claim", wverdict, "verdict",
           "stability");
    for (size_t s = 0; s < nsources; s++)
        for (size_t i = 0; i < set->count; i++) {
            const claim_row *r = &set->rows[i];
            if (strcmp(r->field[CLAIM_SOURCE], sources[s])) continue;
            char name[8400];
            snprintf(name, sizeof name, "%s/%s", r->experiment, r->field[CLAIM_ID]);
            printf("%-*s  %-*s  %-*s  %s\n", wsrc, sources[s], wname, name, wverdict,
                   r->field[CLAIM_VERDICT], r->field[CLAIM_STABILITY]);
        }
    for (size_t s = 0; s < nsources; s++) {
        size_t counts[NVERDICTS], unstable, total;
        count_source(set, sources[s], counts, &unstable, &total);
        printf("%s: %zu", source_title(sources[s]), total);
        for (int i = 0; i < NVERDICTS; i++)
            if (counts[i]) printf(", %zu %s", counts[i], verdicts[i]);
        if (unstable) printf(", %zu unstable", unstable);
        putchar('\n');
    }
}

/* ---- REPORT.md ------------------------------------------------------------ */

/* One experiment's notes file, as it is; ends the last line if it has none,
 * so the claims' entries after it start their own lines. */
static void copy_notes(FILE *f, const char *out_dir, const char *exp)
{
    char path[8400];
    snprintf(path, sizeof path, "%s/notes/%s.md", out_dir, exp);
    FILE *n = fopen(path, "r");
    if (!n) {
        fputs("(no notes)\n", f);
        return;
    }
    char buf[8192], last = '\n';
    size_t got;
    while ((got = fread(buf, 1, sizeof buf, n)) > 0) {
        fwrite(buf, 1, got, f);
        last = buf[got - 1];
    }
    fclose(n);
    if (last != '\n') fputc('\n', f);
}

/* The full entry of one claim: every column of its claims file row but the
 * id (its heading, which the table row links to) and the source (the
 * table it is in). */
static void write_claim_entry(FILE *f, const claim_row *r)
{
    fprintf(f, "\n### %s: %s\n\n", r->experiment, r->field[CLAIM_ID]);
    for (int k = CLAIM_TEXT; k < CLAIM_FIELDS; k++) {
        const char *text = k == CLAIM_CONTROL && !*r->field[k] ? "-" : r->field[k];
        fprintf(f, k == CLAIM_VERDICT ? "- %s: **%s**\n" : "- %s: %s\n", claim_keys[k], text);
    }
}

/* Each experiment's section: its notes, then its claims' full entries
 * (rows of one experiment are adjacent). */
static void write_sections(FILE *f, const char *out_dir, const claim_set *set)
{
    const char *last = "";
    for (size_t i = 0; i < set->count; i++) {
        const char *exp = set->rows[i].experiment;
        if (strcmp(exp, last)) {
            fprintf(f, "\n## %s\n\n", exp);
            copy_notes(f, out_dir, exp);
        }
        write_claim_entry(f, &set->rows[i]);
        last = exp;
    }
}

static void tally(const claim_set *set, report_outcome *outcome)
{
    for (size_t i = 0; i < set->count; i++) {
        const claim_row *r = &set->rows[i];
        outcome->paper_fails += (size_t)(is_paper(r) && !strcmp(r->field[CLAIM_VERDICT], "fails"));
        outcome->errors += (size_t)!strcmp(r->field[CLAIM_VERDICT], "error");
        outcome->unstable += (size_t)r->unstable;
    }
}

int report_write(const char *out_dir, const report_options *options, report_outcome *outcome)
{
    memset(outcome, 0, sizeof *outcome);
    claim_set set;
    if (claims_load(out_dir, &set) != 0) {
        claims_free(&set);
        return cli_usage_error(
            "--merge/--out: %s has no readable claims/ directory (run experiments first)", out_dir);
    }
    const char *sources[64];
    size_t nsources = list_sources(&set, sources, 64);
    char report_path[4200], tmp[4300];
    snprintf(report_path, sizeof report_path, "%s/REPORT.md", out_dir);
    FILE *f;
    if (skit_atomic_open(report_path, tmp, sizeof tmp, &f) != SKIT_OK) {
        claims_free(&set);
        return cli_write_error(SKIT_EIO);
    }
    int tmp_slot = cli_temp_register(tmp); /* removed if a signal ends the run */
    fputs("# skit reproduction report\n\n", f);
    if (options->missing && *options->missing) /* first, where no reader misses it */
        fprintf(f,
                "> **Partial report.** These experiments did not run to completion (no marker in\n"
                "> `done/`), or left no well-formed claims file, and are missing below: %s.\n\n",
                options->missing);
    fprintf(f,
            "Generated by `skit reproduce` (skit %s)%s. Machine-readable verdicts: `verdicts.json` "
            "and `claims/*.tsv`; figures: `figures/*.png`. A run's output directory also holds each "
            "figure as SVG, PDF and EPS and the data behind every row in `data/<experiment>/` "
            "(not committed: `skit reproduce` regenerates them).\n\n",
            skit_version(),
            options->quick ? " with **--quick sizes (smoke test)**: every claim ran at the smaller sizes its measured line gives"
                           : " at full size: every claim ran at the sizes its measured line gives");
    if (set.skipped_files)
        fprintf(f, "%zu claims file(s) that are not well formed (no header row, cut short, a malformed "
                   "row) were skipped.\n\n",
                set.skipped_files);
    write_glance(f, &set);
    write_vocabulary(f);
    write_scoreboard(f, &set, sources, nsources);
    if (options->compare_dir)
        outcome->differ = write_comparison(f, &set, options->compare_dir,
                                           options->compare_label ? options->compare_label
                                                                  : options->compare_dir,
                                           options->quick);
    for (size_t s = 0; s < nsources; s++)
        write_claim_table(f, &set, sources[s]);
    write_sections(f, out_dir, &set);
    int status = skit_atomic_commit(f, tmp, report_path) == SKIT_OK ? CLI_OK : cli_write_error(SKIT_EIO);
    cli_temp_release(tmp_slot);
    if (status == CLI_OK) status = write_json(out_dir, &set, options->quick);
    if (status == CLI_OK) {
        print_table(&set, sources, nsources);
        tally(&set, outcome);
    }
    claims_free(&set);
    return status;
}
