/* reproduce_report.h — the report of `skit reproduce`: the claims the
 * experiment scripts wrote (claims/<experiment>.tsv, a header row
 * "id source claim measured verdict margin stability control", one row per
 * claim,
 * see experiments/common.sh and docs/development.md) turned into REPORT.md,
 * verdicts.json and the terminal table. */
#ifndef SKIT_REPRODUCE_REPORT_H
#define SKIT_REPRODUCE_REPORT_H

#include <stddef.h>

enum {
    CLAIM_ID,
    CLAIM_SOURCE,
    CLAIM_TEXT,
    CLAIM_MEASURED,
    CLAIM_VERDICT,
    CLAIM_MARGIN,
    CLAIM_STABILITY,
    CLAIM_CONTROL, /* "what → verdict", "none: reason", or empty (exact claims) */
    CLAIM_FIELDS
};

/* The header row every claims file starts with. */
#define CLAIMS_HEADER "id\tsource\tclaim\tmeasured\tverdict\tmargin\tstability\tcontrol"
/* Source of skit's own checks (not a paper's claim), and of the row that
 * records an experiment script that failed (verdict "error"). */
#define CLAIM_SOURCE_SKIT "skit"
#define CLAIM_SOURCE_RUN "run"

typedef struct claim_row {
    char *experiment;          /* claims file name without ".tsv" */
    char *field[CLAIM_FIELDS]; /* the row's cells */
    int unstable;              /* its repeats disagreed */
} claim_row;

typedef struct claim_set {
    claim_row *rows;
    size_t count, cap;
    size_t skipped_files; /* claims files that are not well formed */
} claim_set;

/* 0 if the claims file at `path` is well formed: the header row, at least
 * one claim row, every row with its 7 fields, a known verdict and an id,
 * every line ended. Else -1 and why (e.g. "missing", "empty", "line 3 is
 * cut short (no end of line)") in why[0..size). */
int claims_file_check(const char *path, char *why, size_t size);
/* The experiments with a completion marker (DIR/done/NAME) whose claims
 * file is not well formed, as "NAME (claims/NAME.tsv: why)", comma-
 * separated ("" when none); NULL out of memory. Caller frees. */
char *claims_check_completed(const char *dir);

/* Reads the claims files (DIR/claims/NAME.tsv) in name order. Returns 0, or -1 if DIR has no
 * claims/ directory or memory ran out. */
int claims_load(const char *dir, claim_set *set);
void claims_free(claim_set *set);

typedef struct report_options {
    int quick;               /* this run used --quick sizes */
    const char *compare_dir; /* NULL, or a run to compare verdicts with */
    const char *compare_label; /* how the report names it (no machine's
                                  absolute path); NULL: compare_dir */
    const char *missing;     /* NULL or "": complete; else the experiments that
                                did not run to completion, named first */
} report_options;

typedef struct report_outcome {
    size_t paper_fails; /* paper claims with verdict "fails" */
    size_t errors;      /* experiments that did not finish */
    size_t unstable;    /* claims whose repeats disagreed */
    size_t differ;      /* verdicts that differ from compare_dir's */
} report_outcome;

/* Writes OUT/REPORT.md and OUT/verdicts.json from OUT/claims and OUT/notes
 * and prints the verdict table. CLI_OK or a CLI_* error (message printed). */
int report_write(const char *out_dir, const report_options *options, report_outcome *outcome);

#endif
