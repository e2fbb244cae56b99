/* plateau.c — the convergence stop of plateau.h. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "plateau.h"

int train_plateau_parse(const char *text, train_plateau *out)
{
    const char *colon = text ? strchr(text, ':') : NULL;
    char count[32];
    size_t length = colon ? (size_t)(colon - text) : 0;
    if (!colon || length >= sizeof count)
        return cli_usage_error("--plateau: expected K:DELTA (K evaluations in 1..%zu, DELTA nats in [0, %g]), "
                               "got '%s'", TRAIN_PLATEAU_MAX_WINDOW, TRAIN_PLATEAU_MAX_DELTA, text ? text : "");
    memcpy(count, text, length);
    count[length] = '\0';
    if (cli_parse_size("--plateau K", count, 1, TRAIN_PLATEAU_MAX_WINDOW, &out->window)) return CLI_USAGE;
    return cli_parse_double("--plateau DELTA", colon + 1, 0, TRAIN_PLATEAU_MAX_DELTA, 0, 0, &out->delta);
}

/* the smallest of losses[i * stride] for i in [from, to) */
static double best_of(const double *losses, size_t stride, size_t from, size_t to)
{
    double best = INFINITY;
    for (size_t i = from; i < to; i++) best = fmin(best, losses[i * stride]);
    return best;
}

int train_plateau_met(const train_plateau *rule, const double *losses, size_t stride, size_t count,
                      train_plateau_reading *reading)
{
    if (!rule->window || count <= rule->window) return 0;
    size_t split = count - rule->window;
    train_plateau_reading r = {best_of(losses, stride, split, count), best_of(losses, stride, 0, split)};
    if (reading) *reading = r;
    /* written so that a NaN loss never reads as a plateau */
    return !(r.before - r.recent >= rule->delta) && isfinite(r.recent) && isfinite(r.before);
}
