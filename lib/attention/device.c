/* device.c — the attention plan on a GPU (options.device =
 * SKIT_DEVICE_CUDA): exact attention through the device attention plan
 * (with the padding mask), MRA-2 / MRA-2-s through the device MRA plan,
 * both in float64 on host arrays, all through skit/cuda.h. Also the device
 * MRA plan's own constructor, which gives lib/cuda this module's option
 * rules and selection (cuda/mra_rules.h). Built in every configuration:
 * without CUDA the device plans answer "cuda: not built". */
#include "config.h"

#include <math.h>
#include <string.h>

#include "attention/attention_internal.h"
#include "cuda/mra_rules.h"
#include "skit/cuda.h"

int skit_cuda_mra_plan_create(skit_cuda_mra_plan **plan, size_t n, size_t d, size_t dv,
                              const skit_attention_options *options, skit_cuda_precision precision)
{
    static const skit_cuda_mra_rules rules = {attn_mra_levels, attn_mra_select};
    return skit_cuda_mra_plan_build(plan, n, d, dv, options, precision, &rules);
}

static void release_exact(skit_attention_plan *p)
{
    skit_cuda_attention_plan_destroy(p->impl);
    p->impl = NULL;
}

static void release_mra(skit_attention_plan *p)
{
    skit_cuda_mra_plan_destroy(p->impl);
    p->impl = NULL;
}

static int execute_exact(const skit_attention_plan *p, const double *q, size_t ldq, const double *k,
                         size_t ldk, const double *v, size_t ldv, const unsigned char *mask,
                         double *y, size_t ldy, skit_attention_stats *stats)
{
    /* a padding mask of self-attention masks both the keys and the rows */
    SKIT_TRY(skit_cuda_attention_execute_masked(p->impl, p->scale, q, ldq, k, ldk, v, ldv, mask,
                                                mask, y, ldy));
    stats->entries = (double)p->n * (double)p->n;
    stats->work_fraction = 1.0;
    stats->levels = 0;
    return SKIT_OK;
}

static int execute_mra(const skit_attention_plan *p, const double *q, size_t ldq, const double *k,
                       size_t ldk, const double *v, size_t ldv, const unsigned char *mask,
                       double *y, size_t ldy, skit_attention_stats *stats)
{
    const skit_cuda_mra_plan *mp = p->impl;
    SKIT_TRY(skit_cuda_mra_execute(mp, q, ldq, k, ldk, v, ldv, mask, y, ldy));
    skit_attention_stats *st = stats;
    size_t b = skit_cuda_mra_plan_block(mp), rows = p->n / b, nref = skit_cuda_mra_plan_refined(mp);
    memset(st, 0, sizeof *st);
    st->levels = 2;
    st->refined[0] = nref;
    st->entries = (double)rows * (double)rows + (double)nref * (double)b * (double)b;
    st->work_fraction = st->entries / ((double)p->n * (double)p->n);
    return SKIT_OK;
}

int attn_device_create(skit_attention_plan *p)
{
    const skit_attention_options *o = &p->o;
    size_t device_bytes = 0;
    switch (o->method) {
    case SKIT_ATTENTION_EXACT: {
        if (!isfinite(o->shift_bias))
            return SKIT_ERROR(SKIT_EDOM, "shift_bias = %g out of range: need a finite value",
                              o->shift_bias);
        skit_cuda_attention_plan *ap = NULL;
        SKIT_TRY(skit_cuda_attention_plan_create(&ap, p->n, p->n, p->d, p->dv, 0,
                                                 SKIT_CUDA_FLOAT64, 0));
        p->impl = ap;
        p->release = release_exact;
        p->execute = execute_exact;
        device_bytes = skit_cuda_attention_plan_device_bytes(ap);
        break;
    }
    case SKIT_ATTENTION_MRA2:
    case SKIT_ATTENTION_MRA2_SPARSE: {
        skit_cuda_mra_plan *mp = NULL;
        SKIT_TRY(skit_cuda_mra_plan_create(&mp, p->n, p->d, p->dv, o, SKIT_CUDA_FLOAT64));
        p->impl = mp;
        p->release = release_mra;
        p->execute = execute_mra;
        device_bytes = skit_cuda_mra_plan_device_bytes(mp);
        break;
    }
    default:
        return SKIT_ERROR(SKIT_EUNSUPPORTED,
                          "method '%s' runs on the CPU only: device = cuda supports exact, mra2 "
                          "and mra2s",
                          skit_attention_method_name((int)o->method));
    }
    if (skit_size_add(p->bytes, device_bytes, &p->bytes))
        return SKIT_ERROR(SKIT_EOVERFLOW, "attention plan size overflows size_t");
    return SKIT_OK;
}
