/* ski_causal.c — causal SKI-TNO's plan: the lower triangle of S + W A W^T,
 * by the running sums of ski-to-go-faster Appendix B (the paper's
 * algorithm) or with the same sums grouped by interpolation bracket
 * (SKIT_TNO_CAUSAL_BLOCKED): the groups and A's transposed coefficients.
 * The set-up is SKI-TNO's (ski.c), the arithmetic ski_apply.c's. */
#include "config.h"

#include <string.h>

#include "tno/tno_internal.h"

static int blocked(const skit_tno_plan *p)
{
    return p->opt.causal_ski == SKIT_TNO_CAUSAL_BLOCKED;
}

/* the workspace in doubles (a float32 plan's floats rounded up) */
static size_t workspace_doubles(const skit_tno_plan *p)
{
    if (p->opt.precision == SKIT_PRECISION_F32) return tno_ski_workspace_f32(p, tno_ski_causal_workspace_f32(p));
    return tno_ski_causal_workspace(p);
}

/* consecutive tokens that share a stencil form a group */
static int group_tokens(const skit_tno_plan *p, tno_ski *s)
{
    const skit_interp_weights *W = s->W;
    size_t G = 1;
    for (size_t i = 1; i < p->n; i++) G += W->start[i] != W->start[i - 1];
    s->groups = G;
    s->group_token = skit_malloc(G + 1, sizeof(size_t));
    s->group_row = skit_malloc(G, sizeof(size_t));
    if (!s->group_token || !s->group_row) return SKIT_ENOMEM;
    size_t g = 0;
    for (size_t i = 0; i < p->n; i++)
        if (i == 0 || W->start[i] != W->start[i - 1]) {
            s->group_token[g] = i;
            s->group_row[g++] = W->start[i];
        }
    s->group_token[G] = p->n;
    return SKIT_OK;
}

static int create(skit_tno_plan *p, const double *params)
{
    SKIT_TRY(tno_ski_create_common(p, params));
    tno_ski *s = p->op;
    /* float32 plans keep the float transpose only (tno_ski_update_f32) */
    if (p->opt.precision != SKIT_PRECISION_F32 && !(s->a_coeffs_t = skit_malloc(2 * s->r - 1, p->d * sizeof(double))))
        return SKIT_ENOMEM;
    return blocked(p) ? group_tokens(p, s) : SKIT_OK;
}

static int update(skit_tno_plan *p, double *work)
{
    tno_ski *s = p->op;
    if (p->opt.precision == SKIT_PRECISION_F32) {
        SKIT_TRY(tno_ski_update_common(p, work));
        return tno_ski_update_f32(p, work, (float *)work);
    }
    SKIT_TRY(tno_ski_update_common(p, s->a_coeffs));
    skit_transpose(s->a_coeffs, p->d, 2 * s->r - 1, s->a_coeffs_t);
    return SKIT_OK;
}

static int estimate(const skit_tno_plan *p, size_t *doubles)
{
    int overflow = 0;
    tno_ski_estimate_common(p, doubles, &overflow);
    return overflow ? SKIT_EOVERFLOW : SKIT_OK;
}

const tno_ops tno_ski_causal_ops = {
    .estimate = estimate,
    .create = create,
    .destroy = tno_ski_destroy,
    .get_parameters = tno_ski_get_parameters,
    .put_parameters = tno_ski_put_parameters,
    .update = update,
    .workspace_doubles = workspace_doubles,
    .execute = tno_ski_causal_execute,
    .create_f32 = tno_ski_create_f32,
    .execute_f32 = tno_ski_causal_execute_f32,
    .dense = tno_ski_dense,
    .bytes = tno_ski_bytes,
    .describe = tno_ski_describe,
    .backward = &tno_ski_backward,
};
