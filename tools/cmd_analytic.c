/* cmd_analytic.c — `skit analytic`: is an MLP frequency response entire?
 * ski-to-go-faster Lemma 3 (complex GeLU is entire) and Lemma 4 (a GeLU MLP
 * with layer norm is entire), tested by contour integrals of the MLP
 * continued to complex omega (skit_mlp_contour). */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "commands.h"
#include "cli/table.h"

static const char *const act_names[] = {"relu", "silu", "gelu", NULL};
static const char *const norm_names[] = {"none", "layer", "rms", NULL};

static const char *usage =
    "usage: skit analytic [options]\n"
    "ski-to-go-faster Lemmas 3 and 4: the MLP frequency response k(omega) of a\n"
    "randomly initialised MLP (PyTorch default init, --seed) continued to complex\n"
    "omega, every layer by its own formula (skit/mlp.h: GeLU with the complex\n"
    "error function, SiLU, ReLU as z [Re z > 0], LayerNorm / RMS norm with the\n"
    "principal square root), tested for analyticity on circles |omega - c| = r\n"
    "by the trapezoid rule. One row per activation x norm x seed x circle x\n"
    "point count:\n"
    "  integral  |(1/2 pi) oint k d omega| / (r max|k|)   (Cauchy's theorem: 0)\n"
    "  cauchy    |k(c) - (1/2 pi i) oint k/(omega - c) d omega| / max|k|  (0)\n"
    "  fmax      max |k| on the circle\n"
    "maximised over the output channels; both are rounding-level when k is\n"
    "analytic on the disc, O(1) around a kink, pole or branch point. Circles:\n"
    "every centre with every radius, and (--branch-radii) circles around the\n"
    "first norm's branch point b (where its radicand, quadratic in omega,\n"
    "vanishes), radius f Im b; the header names b for each norm and seed.\n\n"
    "options (lists are comma-separated):\n"
    "  --activation LIST  relu, silu, gelu (default gelu)\n"
    "  --norm LIST        none, layer, rms (default none)\n"
    "  --replicates R     seeds seed .. seed+R-1 (default 1)\n"
    "  --width W          hidden width (default 64)\n"
    "  --layers L         hidden layers (default 3)\n"
    "  --channels D       output channels (default 4)\n"
    "  --centers LIST     centres re:im (default 0:0)\n"
    "  --radii LIST       radii > 0 (default 0.5,1,2)\n"
    "  --branch-radii LIST  radii around the branch point as fractions of Im b\n"
    "                     (default none; no rows for norm none)\n"
    "  --points LIST      nodes per circle, 8..2^20 (default 256,1024)\n" CLI_COMMON_HELP
    "  -h, --help         this message\n\n"
    "example:\n"
    "  skit analytic --activation relu,gelu --norm none,layer --branch-radii 0.5 -o analytic.tsv\n";

typedef struct analytic_options {
    cli_common common;
    int act[3], norm[3];
    size_t replicates, width, layers, channels;
    double *centers; /* re, im pairs */
    size_t ncenters;
    double *radii, *branch_radii;
    size_t nradii, nbranch;
    size_t *points, npoints;
    /* the lists as given, parsed after the options */
    const char *centers_text, *radii_text, *points_text, *branch_text;
} analytic_options;

/* "a:b,c:d" -> pairs */
static int parse_centers(const char *text, analytic_options *o)
{
    size_t cap = 1;
    for (const char *s = text; *s; s++) cap += *s == ',';
    o->centers = malloc(2 * cap * sizeof(double));
    if (!o->centers) return cli_failure("out of memory");
    const char *s = text;
    for (o->ncenters = 0; o->ncenters < cap; o->ncenters++) {
        char *end;
        double re = strtod(s, &end), im;
        if (end == s || *end != ':') goto bad;
        s = end + 1;
        im = strtod(s, &end);
        if (end == s || (*end != ',' && *end) || !isfinite(re) || !isfinite(im) || fabs(re) > 1e3 || fabs(im) > 1e3)
            goto bad;
        o->centers[2 * o->ncenters] = re;
        o->centers[2 * o->ncenters + 1] = im;
        s = *end ? end + 1 : end;
    }
    return CLI_OK;
bad:
    return cli_usage_error("--centers: '%s': need comma-separated re:im pairs, |re|, |im| <= 1000", text);
}

/* One option (cli_options.apply). */
static int analytic_option(void *ctx, int opt, const char *arg)
{
    analytic_options *o = ctx;
    switch (opt) {
    case 'a':
        memset(o->act, 0, sizeof o->act);
        return cli_parse_choice_list("--activation", arg, act_names, o->act);
    case 'm':
        memset(o->norm, 0, sizeof o->norm);
        return cli_parse_choice_list("--norm", arg, norm_names, o->norm);
    case 'r': return cli_parse_size("--replicates", arg, 1, 1000, &o->replicates);
    case 'w': return cli_parse_size("--width", arg, 1, 1024, &o->width);
    case 'l': return cli_parse_size("--layers", arg, 0, 64, &o->layers);
    case 'd': return cli_parse_size("--channels", arg, 1, 64, &o->channels);
    case 'c': o->centers_text = arg; return CLI_OK;
    case 'R': o->radii_text = arg; return CLI_OK;
    case 'B': o->branch_text = arg; return CLI_OK;
    case 'P': o->points_text = arg; return CLI_OK;
    }
    return -1;
}

static int analytic_parse(int argc, char **argv, analytic_options *o)
{
    static const struct option longopts[] = {CLI_COMMON_LONGOPTS,
                                             {"activation", required_argument, NULL, 'a'},
                                             {"norm", required_argument, NULL, 'm'},
                                             {"replicates", required_argument, NULL, 'r'},
                                             {"width", required_argument, NULL, 'w'},
                                             {"layers", required_argument, NULL, 'l'},
                                             {"channels", required_argument, NULL, 'd'},
                                             {"centers", required_argument, NULL, 'c'},
                                             {"radii", required_argument, NULL, 'R'},
                                             {"branch-radii", required_argument, NULL, 'B'},
                                             {"points", required_argument, NULL, 'P'},
                                             {NULL, 0, NULL, 0}};
    o->centers_text = "0:0";
    o->radii_text = "0.5,1,2";
    o->points_text = "256,1024";
    const cli_options parser = {.longopts = longopts, .usage = usage, .common = &o->common,
                                .apply = analytic_option, .ctx = o};
    int rc = cli_parse_options(&parser, argc, argv);
    if (rc != CLI_OK) return rc;
    const char *centers = o->centers_text, *radii = o->radii_text, *points = o->points_text,
               *branch = o->branch_text;
    if (parse_centers(centers, o) != CLI_OK) return CLI_USAGE;
    if (cli_parse_double_list_range("--radii", radii, 0, 100, 1, 0, &o->radii, &o->nradii) != CLI_OK)
        return CLI_USAGE;
    if (branch && cli_parse_double_list_range("--branch-radii", branch, 0, 100, 1, 0, &o->branch_radii,
                                              &o->nbranch) != CLI_OK)
        return CLI_USAGE;
    if (cli_parse_size_list("--points", points, 8, (size_t)1 << 20, &o->points, &o->npoints) != CLI_OK)
        return CLI_USAGE;
    if (cli_check_seed_range(o->common.seed, o->replicates) != CLI_OK) return CLI_USAGE;
    return cli_common_validate(&o->common);
}

/* the rows of one circle, one per point count */
static int circle_rows(cli_table *t, const analytic_options *o, const skit_mlp *mlp, const char *labels,
                       const char *kind, double re, double im, double r)
{
    for (size_t p = 0; p < o->npoints; p++) {
        skit_contour_result c;
        int st = skit_mlp_contour(mlp, re, im, r, o->points[p], &c);
        if (st != SKIT_OK) return cli_library_error(st);
        cli_table_rowf(t, "%s\t%s\t%.17g\t%.17g\t%.17g\t%zu\t%.6g\t%.6g\t%.6g", labels, kind, re, im, r,
                       o->points[p], c.integral, c.cauchy, c.fmax);
    }
    return CLI_OK;
}

static int one_mlp(cli_table *t, const analytic_options *o, int a, int nm, uint64_t seed)
{
    skit_mlp *mlp;
    int st = skit_mlp_create(&mlp, 1, o->width, o->layers, o->channels, (skit_activation)a, (skit_norm)nm, seed);
    if (st != SKIT_OK) return cli_library_error(st);
    char labels[96];
    snprintf(labels, sizeof labels, "%s\t%s\t%llu", act_names[a], norm_names[nm], (unsigned long long)seed);
    int rc = CLI_OK;
    for (size_t c = 0; rc == CLI_OK && c < o->ncenters; c++)
        for (size_t r = 0; rc == CLI_OK && r < o->nradii; r++)
            rc = circle_rows(t, o, mlp, labels, "given", o->centers[2 * c], o->centers[2 * c + 1], o->radii[r]);
    double bre, bim;
    if (rc == CLI_OK && nm != SKIT_NORM_NONE && skit_mlp_norm_branch_point(mlp, &bre, &bim) == SKIT_OK) {
        cli_table_comment(t, "branch point of the first %s norm, %s, seed %llu: %.17g%+.17gi", norm_names[nm],
                          act_names[a], (unsigned long long)seed, bre, bim);
        for (size_t r = 0; rc == CLI_OK && r < o->nbranch && bim > 0; r++)
            rc = circle_rows(t, o, mlp, labels, "branch", bre, bim, o->branch_radii[r] * bim);
    }
    skit_mlp_destroy(mlp);
    return rc;
}

int cmd_analytic(int argc, char **argv)
{
    cli_set_context("skit analytic");
    analytic_options o;
    memset(&o, 0, sizeof o);
    cli_common_init(&o.common);
    o.act[SKIT_ACTIVATION_GELU] = 1;
    o.norm[SKIT_NORM_NONE] = 1;
    o.replicates = 1;
    o.width = 64;
    o.layers = 3;
    o.channels = 4;
    int rc = analytic_parse(argc, argv, &o);
    if (rc == CLI_OK) {
        static const char *const names[] = {"activation", "norm", "seed", "centre", "centre_re", "centre_im",
                                            "radius", "points", "integral", "cauchy", "fmax", NULL};
        cli_table t;
        cli_table_init(&t, names);
        cli_table_comment(&t, "MLP 1 -> %zu x %zu hidden layers -> %zu, continued to complex omega; "
                              "integral and cauchy: 0 for an analytic response (rounding)",
                          o.width, o.layers, o.channels);
        cli_progress_start(&o.common);
        for (int a = 0; rc == CLI_OK && a < 3; a++)
            for (int nm = 0; rc == CLI_OK && nm < 3; nm++)
                for (size_t s = 0; rc == CLI_OK && s < o.replicates && o.act[a] && o.norm[nm]; s++) {
                    cli_progress("MLP %d/%d, seed %llu", a * 3 + nm + 1, 9, (unsigned long long)(o.common.seed + s));
                    rc = one_mlp(&t, &o, a, nm, o.common.seed + s);
                }
        cli_progress_done();
        if (rc == CLI_OK) rc = cli_table_emit(&t, &o.common, argc, argv, NULL, NULL, NULL);
        cli_table_free(&t);
    }
    free(o.centers);
    free(o.radii);
    free(o.branch_radii);
    free(o.points);
    return rc == CLI_HELP ? CLI_OK : rc;
}
