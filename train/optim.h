/* optim.h — AdamW with linear warm-up and cosine decay, global-norm clipping. */
#ifndef SKIT_TRAIN_OPTIM_H
#define SKIT_TRAIN_OPTIM_H

#include <stddef.h>

typedef struct train_adamw {
    double lr, beta1, beta2, eps, weight_decay, clip;
    size_t warmup, steps;
    double *m, *v; /* moments, count each */
    size_t count;
} train_adamw;

/* Learning rate at step t (0-based): linear warm-up over `warmup` steps,
 * then cosine from lr down to lr / 10 at the last step. */
double train_adamw_rate(const train_adamw *opt, size_t t);

/* Clip the gradient to global norm `clip` (if > 0); returns its norm before. */
double train_clip(double *grads, size_t count, double clip);

/* One AdamW step t (0-based) on params from grads; decayed[i] says whether
 * parameter i gets weight decay (NULL: all). */
void train_adamw_step(train_adamw *opt, size_t t, double *params, const double *grads,
                      const unsigned char *decayed);

#endif
