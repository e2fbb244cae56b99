/* fdiff.c — the ladder rule of fdiff.h.
 *
 * Each consecutive pair of central differences is extrapolated (Richardson,
 * for a step ratio of 4) into E_k. Large steps lose to truncation (raw lags
 * make some parameters very sensitive) or to a ReLU kink within the step,
 * small ones to rounding; consecutive estimates agree only where neither
 * dominates.
 *
 * A pair's score is its disagreement plus the rounding of its smallest
 * step: without that term, steps so small that L(p + h) and L(p - h) no
 * longer change between them give identical, wrong quotients that agree
 * perfectly.
 *
 * The best-scoring pair wins among those that every smaller-step pair
 * confirms, within CONFIRM times that pair's score: a kink at a distance d
 * from p adds about J/2 - J d / 2h to every step h >> d, so the large
 * steps agree with each other on a value off by half the kink's jump J,
 * and only the steps below d show it (seen at n = 2048 and n = 97: 1.25e-3
 * and 1.4e-5 off, chosen by the best score alone). A confirmation is only
 * as good as the rounding estimate: one too small lets two noisy small
 * steps that happen to agree veto the right value (seen with eps |L| / 2h
 * at n = 2048, where the outputs' rounding reached 1000 eps |L|; the
 * caller's estimate must follow what its rounding scales with).
 *
 * The constants were chosen on recorded ladders of the test sweeps (the
 * counts are in the commit that brought this rule); test_fdiff_pick_kink
 * holds the rule to ladders known in closed form. */
#include "config.h"

#include <math.h>

#include "fdiff.h"

#define CONFIRM 3.0

/* the pair k that the rule keeps */
static int best_pair(int steps, const double *E, const double *score)
{
    int best = steps - 3; /* confirmed by no smaller pair, so always a candidate */
    for (int k = steps - 4; k >= 0; k--) {
        int confirmed = 1;
        for (int j = k + 1; j + 2 < steps && confirmed; j++) confirmed = fabs(E[k] - E[j]) <= CONFIRM * score[j];
        if (confirmed && score[k] < score[best]) best = k;
    }
    return best;
}

void fdiff_pick(int steps, const double *D, const double *rounding, double *estimate, double *resolution)
{
    double E[FDIFF_MAX_STEPS - 1], score[FDIFF_MAX_STEPS - 2];
    for (int k = 0; k + 1 < steps; k++) E[k] = (16 * D[k + 1] - D[k]) / 15;
    /* E[k+1] uses D[k+2]: 16/15 of its rounding */
    for (int k = 0; k + 2 < steps; k++) score[k] = fabs(E[k] - E[k + 1]) + 16.0 / 15.0 * rounding[k + 2];
    int best = best_pair(steps, E, score);
    *estimate = E[best];
    *resolution = score[best];
}
