/* plateau.h — `skit train --plateau K:DELTA`: stop a run once it has
 * converged. The rule compares validation losses only (the evaluations
 * every --eval-every steps), in nats: at an evaluation, the run is on the
 * plateau when the best loss of the last K evaluations is lower than the
 * best loss of every evaluation before them by less than DELTA. Absolute,
 * not relative: the losses of a solved task go to a floor (0 for recall),
 * where a relative change stays large however little the loss still moves.
 * The rule reads only the losses of the log, which a checkpoint keeps
 * exact, so a resumed run stops at the step the uninterrupted one does. */
#ifndef SKIT_TRAIN_PLATEAU_H
#define SKIT_TRAIN_PLATEAU_H

#include <stddef.h>

typedef struct train_plateau {
    size_t window; /* K evaluations; 0: no rule */
    double delta;  /* DELTA nats */
} train_plateau;

/* The rule's two sides at the latest of `count` evaluations. */
typedef struct train_plateau_reading {
    double recent; /* best loss of the last K */
    double before; /* best loss of the evaluations before them */
} train_plateau_reading;

#define TRAIN_PLATEAU_MAX_WINDOW ((size_t)1 << 20)
#define TRAIN_PLATEAU_MAX_DELTA 100.0

/* Parse "K:DELTA" (K in 1..TRAIN_PLATEAU_MAX_WINDOW, DELTA in [0,
 * TRAIN_PLATEAU_MAX_DELTA]); a CLI status, one line naming --plateau on
 * bad input. */
int train_plateau_parse(const char *text, train_plateau *out);

/* 1 if the rule holds after `count` evaluations whose losses are
 * losses[i * stride], oldest first (0 with fewer than K + 1: nothing to
 * compare yet); *reading (may be NULL) gets both sides when there are. */
int train_plateau_met(const train_plateau *rule, const double *losses, size_t stride, size_t count,
                      train_plateau_reading *reading);

#endif
