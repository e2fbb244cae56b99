/* optim.c — the optimiser of optim.h (Loshchilov & Hutter's AdamW, the
 * update PyTorch's torch.optim.AdamW makes). */
#include "config.h"

#include <math.h>

#include "optim.h"

double train_adamw_rate(const train_adamw *opt, size_t t)
{
    if (t < opt->warmup) return opt->lr * (double)(t + 1) / (double)opt->warmup;
    double span = opt->steps > opt->warmup + 1 ? (double)(opt->steps - opt->warmup - 1) : 1.0;
    double progress = (double)(t - opt->warmup) / span;
    if (progress > 1) progress = 1;
    double floor = opt->lr / 10;
    return floor + 0.5 * (opt->lr - floor) * (1 + cos(M_PI * progress));
}

double train_clip(double *grads, size_t count, double clip)
{
    double sum = 0;
    for (size_t i = 0; i < count; i++) sum += grads[i] * grads[i];
    double norm = sqrt(sum);
    double coefficient = clip / (norm + 1e-6); /* as torch.nn.utils.clip_grad_norm_ */
    if (clip > 0 && coefficient < 1)
        for (size_t i = 0; i < count; i++) grads[i] *= coefficient;
    return norm;
}

void train_adamw_step(train_adamw *opt, size_t t, double *params, const double *grads,
                      const unsigned char *decayed)
{
    double lr = train_adamw_rate(opt, t);
    double c1 = 1 - pow(opt->beta1, (double)(t + 1)), c2 = 1 - pow(opt->beta2, (double)(t + 1));
    for (size_t i = 0; i < opt->count; i++) {
        double g = grads[i];
        opt->m[i] = opt->beta1 * opt->m[i] + (1 - opt->beta1) * g;
        opt->v[i] = opt->beta2 * opt->v[i] + (1 - opt->beta2) * g * g;
        if (!decayed || decayed[i]) params[i] -= lr * opt->weight_decay * params[i];
        params[i] -= lr * (opt->m[i] / c1) / (sqrt(opt->v[i] / c2) + opt->eps);
    }
}
