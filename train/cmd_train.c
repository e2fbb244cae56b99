/* cmd_train.c — `skit train`: train the TNN-style language model of
 * train/model.h on a synthetic task or a byte-level text, with
 * AdamW, warm-up + cosine decay and clipping; report the validation loss
 * against the task's floor, optionally at other lengths (extrapolation),
 * save a checkpoint directory of .npy files; or check every gradient of a
 * tiny model against finite differences (--check-gradients). */
#include "config.h"

#include <cblas.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/table.h"
#include "check.h"
#include "checkpoint.h"
#include "data.h"
#include "model.h"
#include "train.h"
#include "optim.h"
#include "plateau.h"

#define DEFAULT_TEXT "/usr/share/common-licenses/GPL-3"

static const char *usage =
    "usage: skit train [options]\n"
    "Train a small Toeplitz neural network language model (TNN architecture: token\n"
    "embedding, pre-norm blocks of GTU token mixing and GLU channel mixing) on CPU.\n\n"
    "data:\n"
    "  --task T            markov (default): k-th order Markov chain with known entropy\n"
    "                      rate H; recall: multi-query associative recall; copy:\n"
    "                      selective copy; text: bytes of --text (90 % train, the last\n"
    "                      10 % validation)\n"
    "  --vocab V           markov tokens (default 8, 2..64); recall keys (default 16);\n"
    "                      copy data tokens (default 8)\n"
    "  --order K           markov order (default 2, 1..4)\n"
    "  --text FILE         text corpus (default " DEFAULT_TEXT ", Debian base-files)\n"
    "  --objective O       causal (default) or masked (masked LM, 15 %, bidirectional)\n"
    "model:\n"
    "  --mixer M           tno (default), fd, ski, attention, mra, mra2s or\n"
    "                      toeplitz (TNN w/o RPE: the Toeplitz coefficients are\n"
    "                      the parameters, layerL.coeffs, lags x e; float64 only,\n"
    "                      no --eval-lengths but --n); mra: MRA-2 (refined squares\n"
    "                      + coarse block means), mra2s: MRA-2-s (the refined\n"
    "                      squares alone)\n"
    "  --n N               training length (default 64)\n"
    "  --batch B           sequences per step (default 8)\n"
    "  --d D               model width (default 32); --expand E GTU width E*D (default 1)\n"
    "  --glu H             GLU hidden width (default 2*D; 0: no GLU channel mixer,\n"
    "                      blocks of the GTU alone, TNN's \"GTU only\" ablation)\n"
    "  --layers L          blocks (default 2)\n"
    "  --norm N            rms (default) or layer\n"
    "  --untied            own output head (default: tied to the embedding)\n"
    "  --rpe-width W --rpe-layers L --activation A   RPE MLP of tno/fd (default 32,\n"
    "                      1, relu)\n"
    "  --rpe-input I       tno, fd: the RPE MLP sees the lag t (integer, default; fd:\n"
    "                      the frequency) or t / n (scaled, n the training --n at\n"
    "                      every length); checkpoints then hold the first layer's\n"
    "                      weights n times those 'skit tno --params' needs\n"
    "  --decay LAMBDA      tno decay bias in (0, 1] (default 0.99; 1 = none)\n"
    "  --causal-ski A      ski, causal objective: cumsum, blocked or auto (default);\n"
    "                      the same operator (see 'skit tno --help')\n"
    "  --heads H           attention: heads (default 1; H divides expand * d)\n"
    "  --positions P       attention, mra, mra2s: rope (default: rotary q, k), learned\n"
    "                      (absolute positions added to the embedding, n x d) or,\n"
    "                      attention only, alibi (ALiBi: head h of H adds\n"
    "                      -2^(-8(h+1)/H) |i - j| to its scores, H a power of two\n"
    "                      or not; no parameters, any --eval-lengths)\n"
    "  --precision P       f64 (default) or f32: activations, gradients and GEMMs in\n"
    "                      float32, tno, fd and ski on float32 plans, mra and\n"
    "                      mra2s on the float32 MRA plans; parameters, AdamW and checkpoints stay\n"
    "                      float64 (mixed)\n"
    "  --learn-decay       tno: train each block's lambda = sigmoid(theta) from --decay\n"
    "                      (< 1); checkpoints hold theta as layerL.decay_logit.npy\n"
    "optimisation:\n"
    "  --steps S           (default 300)   --lr R (default 1e-2)\n"
    "  --warmup W          warm-up steps (default steps/10)\n"
    "  --weight-decay X    AdamW (default 0.01; not on the mixers' parameters)\n"
    "  --clip C            global gradient norm (default 1; 0 = none)\n"
    "  --eval-batches K    validation batches (default 16)\n"
    "  --eval-every S      validation every S steps (default: at the end only)\n"
    "  --plateau K:DELTA   stop once converged: at an evaluation, when the best\n"
    "                      validation loss of the last K evaluations is lower than\n"
    "                      the best of all those before them by less than DELTA\n"
    "                      nats (absolute); needs --eval-every. Checked before the\n"
    "                      last step only: the schedule still decays over --steps,\n"
    "                      and a run that reaches --steps did not converge by the\n"
    "                      rule. The log says which: \"steps taken S of N; stop\n"
    "                      plateau\" or \"... stop steps\"\n"
    "outputs:\n"
    "  -o FILE             training log TSV: step, loss, validation loss, lr, norm\n"
    "  --eval-lengths LIST also evaluate the trained model at these lengths\n"
    "  --eval-out FILE     their validation losses (TSV: n, loss, loss/floor)\n"
    "  --save DIR          checkpoint: one .npy per parameter group (mixers 1-D, as\n"
    "                      'skit tno --params' reads them), model.tsv (format\n"
    "                      version and every option above), the optimiser's state\n"
    "                      and checksums; DIR must not exist (but may be --resume's);\n"
    "                      written whole or not at all (DIR.tmp.PID, then one rename)\n"
    "  --save-every S      also save DIR every S steps (replaced atomically); on\n"
    "                      SIGINT/SIGTERM/SIGHUP with --save, the step under way\n"
    "                      finishes, DIR is saved, and skit train ends by the signal\n"
    "  --resume DIR        continue the run DIR was saved from: its model, data,\n"
    "                      schedule, seed, parameters, AdamW moments, step, data\n"
    "                      position and log; the result is bit for bit that of the\n"
    "                      run never stopped. Options of the model, data or\n"
    "                      optimisation come from DIR; one given with another value\n"
    "                      is refused (exit 2, naming it)\n"
    "  --stop-after K      stop after K steps of this run (the --steps schedule goes\n"
    "                      on): with --save, a checkpoint to --resume from\n"
    "  --check-gradients   only check every parameter group's gradient of the loss\n"
    "                      against central finite differences; exit 1 above 1e-6;\n"
    "                      with --precision f32: against the float64 model's on the\n"
    "                      same parameters and batch, exit 1 above a float32 bound\n"
    "  --dump-step DIR     only one step, with what a reference implementation needs to\n"
    "                      repeat it: DIR/before, DIR/gradients (before clipping),\n"
    "                      DIR/after (checkpoints), DIR/batch.npy (inputs, targets,\n"
    "                      weights as columns), DIR/scalars.npy (loss, lr, gradient norm)\n"
    "      --seed N        seed of data and initialisation (default 1)\n"
    "      --threads N     OpenMP threads (default 1: at these sizes more threads cost\n"
    "                      more than they save)\n"
    "      --quiet         no progress on stderr\n"
    "  -h, --help          this message\n\n"
    "examples:\n"
    "  skit train --task markov --mixer tno --steps 300\n"
    "  skit train --task text --mixer fd --steps 1000 --save ckpt\n"
    "  skit tno --op tno --causal --d 32 --n 64 --rpe-width 32 --rpe-layers 1 \\\n"
    "           --params ckpt/layer0.mixer.npy --coeffs k.tsv -o /dev/null\n";

enum { OPT_TASK = 0x2000, OPT_VOCAB, OPT_ORDER, OPT_TEXT, OPT_OBJECTIVE, OPT_MIXER, OPT_N, OPT_BATCH, OPT_D,
       OPT_EXPAND, OPT_GLU, OPT_LAYERS, OPT_NORM, OPT_UNTIED, OPT_RPE_WIDTH, OPT_RPE_LAYERS, OPT_ACTIVATION,
       OPT_DECAY, OPT_STEPS, OPT_LR, OPT_WARMUP, OPT_WEIGHT_DECAY, OPT_CLIP, OPT_EVAL_BATCHES, OPT_EVAL_EVERY,
       OPT_EVAL_LENGTHS, OPT_EVAL_OUT, OPT_SAVE, OPT_CHECK, OPT_DUMP_STEP, OPT_LEARN_DECAY, OPT_POSITIONS, OPT_HEADS,
       OPT_PRECISION, OPT_CAUSAL_SKI, OPT_RESUME, OPT_SAVE_EVERY, OPT_STOP_AFTER, OPT_PLATEAU, OPT_RPE_INPUT,
       OPT_LAST };
enum { OPT_SEED = 0x1002 }; /* cli.h's --seed */

typedef struct args {
    cli_common common;
    train_task_kind task;
    size_t vocab, order;
    const char *text;
    int masked, have_glu, have_warmup, have_causal_ski, check;
    int rpe_scaled; /* --rpe-input scaled */
    train_config model;
    train_adamw opt;
    size_t eval_batches, eval_every;
    train_plateau plateau;
    size_t *lengths, nlengths;
    const char *eval_out, *save, *dump, *resume;
    size_t save_every, stop_after;
    unsigned char given[OPT_LAST - OPT_TASK]; /* options on the command line (--resume compares them) */
    int seed_given;
    cli_fields manifest, sums; /* --resume: the checkpoint's model.tsv and checksums.tsv */
} args;

static void defaults(args *a)
{
    memset(a, 0, sizeof *a);
    cli_common_init(&a->common);
    a->task = TRAIN_TASK_MARKOV;
    a->vocab = 0;
    a->order = 2;
    a->text = DEFAULT_TEXT;
    train_config *m = &a->model;
    m->mixer = TRAIN_MIXER_TNO;
    m->n = 64, m->batch = 8, m->d = 32, m->expand = 1, m->layers = 2;
    m->norm = SKIT_NORM_RMS;
    m->tied = 1;
    m->positions = TRAIN_POSITIONS_ROPE;
    m->heads = 1;
    skit_tno_options_default(&m->tno, SKIT_TNO_FFT);
    m->tno.rpe_width = 32;
    m->tno.rpe_layers = 1;
    a->opt = (train_adamw){.lr = 1e-2, .beta1 = 0.9, .beta2 = 0.999, .eps = 1e-8, .weight_decay = 0.01,
                           .clip = 1.0, .steps = 300};
    a->eval_batches = 16;
}

/* --rpe-input's values: the RPE MLP sees t, or t / n (the training n) */
static const char *const rpe_inputs[] = {"integer", "scaled", NULL};

/* skit_activation's and skit_norm's names, in their enums' order */
static const char *const activation_names[] = {"relu", "silu", "gelu", NULL};
static const char *const tno_norm_names[] = {"none", "layer", "rms", NULL};

static int parse_model_option(args *a, int opt, const char *arg)
{
    static const char *const norms[] = {"layer", "rms", NULL};
    train_config *m = &a->model;
    int idx = 0;
    switch (opt) {
    case OPT_MIXER:
        if (cli_parse_choice("--mixer", arg, train_mixer_names, &idx)) return CLI_USAGE;
        m->mixer = (train_mixer)idx;
        return CLI_OK;
    case OPT_N: return cli_parse_size("--n", arg, 2, 1 << 16, &m->n);
    case OPT_BATCH: return cli_parse_size("--batch", arg, 1, 4096, &m->batch);
    case OPT_D: return cli_parse_size("--d", arg, 1, 4096, &m->d);
    case OPT_EXPAND: return cli_parse_size("--expand", arg, 1, 16, &m->expand);
    case OPT_GLU: a->have_glu = 1; return cli_parse_size("--glu", arg, 0, 1 << 16, &m->glu_hidden);
    case OPT_LAYERS: return cli_parse_size("--layers", arg, 1, 64, &m->layers);
    case OPT_NORM:
        if (cli_parse_choice("--norm", arg, norms, &idx)) return CLI_USAGE;
        m->norm = idx ? SKIT_NORM_RMS : SKIT_NORM_LAYER;
        return CLI_OK;
    case OPT_UNTIED: m->tied = 0; return CLI_OK;
    case OPT_RPE_WIDTH: return cli_parse_size("--rpe-width", arg, 1, 4096, &m->tno.rpe_width);
    case OPT_RPE_LAYERS: return cli_parse_size("--rpe-layers", arg, 0, 64, &m->tno.rpe_layers);
    case OPT_ACTIVATION:
        if (cli_parse_choice("--activation", arg, activation_names, &idx)) return CLI_USAGE;
        m->tno.activation = (skit_activation)idx;
        return CLI_OK;
    case OPT_DECAY: return cli_parse_double("--decay", arg, 0, 1, 1, 0, &m->tno.decay);
    case OPT_LEARN_DECAY: m->learn_decay = 1; return CLI_OK;
    case OPT_CAUSAL_SKI:
        if (cli_parse_causal_ski(arg, &m->tno.causal_ski)) return CLI_USAGE;
        a->have_causal_ski = 1;
        return CLI_OK;
    case OPT_HEADS: return cli_parse_size("--heads", arg, 1, 64, &m->heads);
    case OPT_PRECISION: return cli_parse_precision(arg, &m->precision);
    case OPT_RPE_INPUT: return cli_parse_choice("--rpe-input", arg, rpe_inputs, &a->rpe_scaled) ? CLI_USAGE : CLI_OK;
    case OPT_POSITIONS:
        if (cli_parse_choice("--positions", arg, train_positions_names, &idx)) return CLI_USAGE;
        m->positions = (train_positions)idx;
        return CLI_OK;
    }
    return -1;
}

/* One option (cli_options.apply): -1 if not one of train's own. */
static int parse_option(void *ctx, int opt, const char *arg)
{
    static const char *const objectives[] = {"causal", "masked", NULL};
    args *a = ctx;
    if (opt >= OPT_TASK && opt < OPT_LAST) a->given[opt - OPT_TASK] = 1;
    if (opt == OPT_SEED) a->seed_given = 1;
    int idx = 0, rc = parse_model_option(a, opt, arg);
    if (rc != -1) return rc;
    switch (opt) {
    case OPT_TASK:
        if (cli_parse_choice("--task", arg, train_task_names, &idx)) return CLI_USAGE;
        a->task = (train_task_kind)idx;
        return CLI_OK;
    case OPT_VOCAB: return cli_parse_size("--vocab", arg, 2, 64, &a->vocab);
    case OPT_ORDER: return cli_parse_size("--order", arg, 1, 4, &a->order);
    case OPT_TEXT: a->text = arg; return CLI_OK;
    case OPT_OBJECTIVE:
        if (cli_parse_choice("--objective", arg, objectives, &idx)) return CLI_USAGE;
        a->masked = idx;
        return CLI_OK;
    case OPT_STEPS: return cli_parse_size("--steps", arg, 1, (size_t)1 << 30, &a->opt.steps);
    case OPT_LR: return cli_parse_double("--lr", arg, 0, 10, 1, 0, &a->opt.lr);
    case OPT_WARMUP: a->have_warmup = 1; return cli_parse_size("--warmup", arg, 0, (size_t)1 << 30, &a->opt.warmup);
    case OPT_WEIGHT_DECAY: return cli_parse_double("--weight-decay", arg, 0, 1, 0, 0, &a->opt.weight_decay);
    case OPT_CLIP: return cli_parse_double("--clip", arg, 0, 1e6, 0, 0, &a->opt.clip);
    case OPT_EVAL_BATCHES: return cli_parse_size("--eval-batches", arg, 1, 1 << 16, &a->eval_batches);
    case OPT_EVAL_EVERY: return cli_parse_size("--eval-every", arg, 1, (size_t)1 << 30, &a->eval_every);
    case OPT_PLATEAU: return train_plateau_parse(arg, &a->plateau);
    case OPT_EVAL_LENGTHS:
        free(a->lengths);
        return cli_parse_size_list("--eval-lengths", arg, 2, 1 << 16, &a->lengths, &a->nlengths);
    case OPT_EVAL_OUT: a->eval_out = arg; return CLI_OK;
    case OPT_SAVE: a->save = arg; return CLI_OK;
    case OPT_CHECK: a->check = 1; return CLI_OK;
    case OPT_DUMP_STEP: a->dump = arg; return CLI_OK;
    case OPT_RESUME: a->resume = arg; return CLI_OK;
    case OPT_SAVE_EVERY: return cli_parse_size("--save-every", arg, 1, (size_t)1 << 30, &a->save_every);
    case OPT_STOP_AFTER: return cli_parse_size("--stop-after", arg, 1, (size_t)1 << 30, &a->stop_after);
    }
    return -1;
}

/* ---- the options a checkpoint records (model.tsv) ----------------------- */

/* Each field is the option of that name; its value reads back through
 * parse_option, so a checkpoint's model is the one these options make. */
typedef struct field {
    const char *key;
    int opt;
} field;

static const field fields[] = {
    {"task", OPT_TASK}, {"vocab", OPT_VOCAB}, {"order", OPT_ORDER}, {"text", OPT_TEXT},
    {"objective", OPT_OBJECTIVE}, {"mixer", OPT_MIXER}, {"n", OPT_N}, {"batch", OPT_BATCH}, {"d", OPT_D},
    {"expand", OPT_EXPAND}, {"glu", OPT_GLU}, {"layers", OPT_LAYERS}, {"norm", OPT_NORM},
    {"untied", OPT_UNTIED}, {"rpe-width", OPT_RPE_WIDTH}, {"rpe-layers", OPT_RPE_LAYERS},
    {"activation", OPT_ACTIVATION}, {"decay", OPT_DECAY}, {"learn-decay", OPT_LEARN_DECAY},
    {"causal-ski", OPT_CAUSAL_SKI}, {"heads", OPT_HEADS}, {"positions", OPT_POSITIONS},
    {"rpe-input", OPT_RPE_INPUT},
    {"precision", OPT_PRECISION}, {"steps", OPT_STEPS}, {"lr", OPT_LR}, {"warmup", OPT_WARMUP},
    {"weight-decay", OPT_WEIGHT_DECAY}, {"clip", OPT_CLIP}, {"eval-batches", OPT_EVAL_BATCHES},
    {"eval-every", OPT_EVAL_EVERY}, {"plateau", OPT_PLATEAU}, {"seed", OPT_SEED}};

static int is_flag(int opt) { return opt == OPT_UNTIED || opt == OPT_LEARN_DECAY; }

/* The text of a choice-valued option (NULL: not one). */
static const char *choice_text(const args *a, int opt)
{
    static const char *const ski[] = {"cumsum", "blocked", "auto"};
    const train_config *m = &a->model;
    switch (opt) {
    case OPT_TASK: return train_task_names[a->task];
    case OPT_TEXT: return a->task == TRAIN_TASK_TEXT ? a->text : "";
    case OPT_OBJECTIVE: return a->masked ? "masked" : "causal";
    case OPT_MIXER: return train_mixer_names[m->mixer];
    case OPT_NORM: return m->norm == SKIT_NORM_RMS ? "rms" : "layer";
    case OPT_UNTIED: return m->tied ? "no" : "yes";
    case OPT_ACTIVATION: return activation_names[m->tno.activation];
    case OPT_LEARN_DECAY: return m->learn_decay ? "yes" : "no";
    case OPT_CAUSAL_SKI: return a->have_causal_ski ? ski[m->tno.causal_ski] : "";
    case OPT_POSITIONS: return train_positions_names[m->positions];
    case OPT_RPE_INPUT: return rpe_inputs[a->rpe_scaled];
    case OPT_PRECISION: return m->precision == SKIT_PRECISION_F32 ? "f32" : "f64";
    }
    return NULL;
}

/* --plateau's value as typed ("K:DELTA", DELTA exact), "" without one */
static void plateau_text(const train_plateau *p, char *out, size_t size)
{
    char delta[32];
    cli_format_exact(p->delta, delta, sizeof delta);
    if (p->window) snprintf(out, size, "%zu:%s", p->window, delta);
    else snprintf(out, size, "%s", "");
}

/* The value of option `opt` in a, as typed; "" for an optional one not set. */
static void field_text(const args *a, int opt, char *out, size_t size)
{
    const train_config *m = &a->model;
    const char *choice = choice_text(a, opt);
    size_t count = 0;
    double value = NAN;
    switch (opt) {
    case OPT_VOCAB: count = a->vocab; break;
    case OPT_ORDER: count = a->order; break;
    case OPT_N: count = m->n; break;
    case OPT_BATCH: count = m->batch; break;
    case OPT_D: count = m->d; break;
    case OPT_EXPAND: count = m->expand; break;
    case OPT_GLU: count = m->glu_hidden; break;
    case OPT_LAYERS: count = m->layers; break;
    case OPT_RPE_WIDTH: count = m->tno.rpe_width; break;
    case OPT_RPE_LAYERS: count = m->tno.rpe_layers; break;
    case OPT_HEADS: count = m->heads; break;
    case OPT_STEPS: count = a->opt.steps; break;
    case OPT_WARMUP: count = a->opt.warmup; break;
    case OPT_EVAL_BATCHES: count = a->eval_batches; break;
    case OPT_EVAL_EVERY: count = a->eval_every; break;
    case OPT_DECAY: value = m->tno.decay; break;
    case OPT_LR: value = a->opt.lr; break;
    case OPT_WEIGHT_DECAY: value = a->opt.weight_decay; break;
    case OPT_CLIP: value = a->opt.clip; break;
    case OPT_SEED: snprintf(out, size, "%" PRIu64, a->common.seed); return;
    case OPT_PLATEAU: plateau_text(&a->plateau, out, size); return;
    }
    if (choice) snprintf(out, size, "%s", choice);
    else if (!isnan(value)) cli_format_exact(value, out, size);
    else if (opt == OPT_EVAL_EVERY && !count) snprintf(out, size, "%s", "");
    else snprintf(out, size, "%zu", count);
}

/* model.tsv's fields: the options, then the mixers' `skit tno` options. */
static char *model_fields(const args *a, const train_model *model)
{
    size_t size = 8192 + 64 * a->model.layers, used = 0;
    char *text = malloc(size), value[4200];
    for (size_t i = 0; text && i < sizeof fields / sizeof *fields; i++) {
        field_text(a, fields[i].opt, value, sizeof value);
        if (*value) used += (size_t)snprintf(text + used, size - used, "%s\t%s\n", fields[i].key, value);
    }
    const skit_tno_options *o = train_model_mixer_options(model);
    if (!text || a->model.mixer > TRAIN_MIXER_SKI) return text; /* no skit_tno plan */
    used += (size_t)snprintf(text + used, size - used,
                             "tno.op\t%s\ntno.causal\t%s\ntno.d\t%zu\ntno.norm\t%s\ntno.rpe-width\t%zu\n"
                             "tno.rpe-layers\t%zu\ntno.activation\t%s\n",
                             train_mixer_names[a->model.mixer], o->causality == SKIT_CAUSAL ? "yes" : "no",
                             a->model.expand * a->model.d, tno_norm_names[o->norm], o->rpe_width, o->rpe_layers,
                             activation_names[o->activation]);
    if (o->kind == SKIT_TNO_SKI)
        used += (size_t)snprintf(text + used, size - used, "tno.rank\t%zu\ntno.taps\t%zu\ntno.knots\t%zu\n", o->rank,
                                 o->taps, o->knots);
    for (size_t l = 0; l < (a->model.learn_decay ? a->model.layers : 1); l++) {
        cli_format_exact(train_model_decay(model, l), value, sizeof value);
        if (a->model.learn_decay) used += (size_t)snprintf(text + used, size - used, "layer%zu.decay\t%s\n", l, value);
        else used += (size_t)snprintf(text + used, size - used, "tno.decay\t%s\n", value);
    }
    return text;
}

/* A key model.tsv may hold besides the options. */
static int known_key(const char *key)
{
    unsigned layer;
    char rest[16];
    return !strcmp(key, "format") || !strcmp(key, "kind") || !strncmp(key, "tno.", 4) ||
           (sscanf(key, "layer%u.%15s", &layer, rest) == 2 && !strcmp(rest, "decay"));
}

/* One field's value into a, as if its option were given. */
static int apply_field(args *a, const field *f, const char *value, const char *path)
{
    if (is_flag(f->opt)) {
        if (!strcmp(value, "yes")) return parse_option(a, f->opt, NULL);
        if (!strcmp(value, "no")) return CLI_OK;
        return cli_usage_error("%s: field %s '%s': need yes or no", path, f->key, value);
    }
    int rc = parse_option(a, f->opt, value);
    return rc == -1 ? cli_common_option(&a->common, f->opt, value) : rc;
}

/* The options the checkpoint's model.tsv records, into a (defaults first). */
static int apply_fields(args *a, const cli_fields *model, const char *path)
{
    for (size_t i = 0; i < model->count; i++) {
        int known = known_key(model->keys[i]);
        for (size_t k = 0; !known && k < sizeof fields / sizeof *fields; k++) known = !strcmp(model->keys[i], fields[k].key);
        if (!known) return cli_usage_error("--resume: %s: unknown field '%s'", path, model->keys[i]);
    }
    const char *kind = cli_fields_get(model, "kind");
    if (!kind || strcmp(kind, "parameters"))
        return cli_usage_error("--resume: %s: kind '%s': need parameters", path, kind ? kind : "(missing)");
    char saved[128], context[4400];
    snprintf(saved, sizeof saved, "%s", cli_context());
    snprintf(context, sizeof context, "%s: --resume %s", saved, path);
    cli_set_context(context); /* a value's own message then names the file */
    int rc = CLI_OK;
    for (size_t k = 0; rc == CLI_OK && k < sizeof fields / sizeof *fields; k++) {
        const char *value = cli_fields_get(model, fields[k].key);
        int opt = fields[k].opt;
        /* rpe-input: absent from older checkpoints, which had integer lags */
        int optional = opt == OPT_TEXT || opt == OPT_CAUSAL_SKI || opt == OPT_EVAL_EVERY || opt == OPT_PLATEAU ||
                       opt == OPT_RPE_INPUT;
        if (value) rc = apply_field(a, &fields[k], value, path);
        else if (!optional) rc = cli_usage_error("field %s missing", fields[k].key);
    }
    cli_set_context(saved);
    return rc;
}

/* Every option given on this command line that the checkpoint also
 * records must have the checkpoint's value. */
static int check_given(const args *a, const args *ck, const char *path)
{
    for (size_t k = 0; k < sizeof fields / sizeof *fields; k++) {
        int opt = fields[k].opt;
        if (opt == OPT_SEED ? !a->seed_given : !a->given[opt - OPT_TASK]) continue;
        char ours[4200], theirs[4200];
        field_text(a, opt, ours, sizeof ours);
        field_text(ck, opt, theirs, sizeof theirs);
        if (strcmp(ours, theirs) != 0)
            return cli_usage_error("--%s: this run gives %s; the checkpoint's run has %s (%s, field %s): leave "
                                   "--%s out to continue that run", fields[k].key, *ours ? ours : "none",
                                   *theirs ? theirs : "none", path, fields[k].key, fields[k].key);
    }
    return CLI_OK;
}

/* The training settings of a come from the checkpoint ck. */
static void adopt(args *a, const args *ck)
{
    a->task = ck->task, a->vocab = ck->vocab, a->order = ck->order, a->text = ck->text, a->masked = ck->masked;
    a->have_glu = ck->have_glu, a->have_warmup = ck->have_warmup, a->have_causal_ski = ck->have_causal_ski;
    a->rpe_scaled = ck->rpe_scaled;
    a->model = ck->model, a->opt = ck->opt;
    a->eval_batches = ck->eval_batches, a->eval_every = ck->eval_every, a->plateau = ck->plateau;
    a->common.seed = ck->common.seed;
}

/* --resume DIR: open the checkpoint (kept in a for loading), take its options. */
static int resume_options(args *a)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/model.tsv", a->resume);
    int rc = cli_checkpoint_open("--resume", a->resume, &a->manifest, &a->sums);
    if (rc != CLI_OK) return rc;
    if (!cli_fields_get(&a->sums, "state.tsv"))
        return cli_usage_error("--resume: %s holds parameters only, no training state (a --dump-step directory?)",
                               a->resume);
    args ck;
    defaults(&ck);
    rc = apply_fields(&ck, &a->manifest, path);
    if (rc == CLI_OK) rc = check_given(a, &ck, path);
    if (rc == CLI_OK) adopt(a, &ck);
    free(ck.lengths);
    return rc;
}

static void args_free(args *a)
{
    free(a->lengths);
    cli_fields_free(&a->manifest);
    cli_fields_free(&a->sums);
}

/* 1 if both name the same existing directory. */
static int same_directory(const char *x, const char *y)
{
    char rx[PATH_MAX], ry[PATH_MAX];
    return x && y && realpath(x, rx) && realpath(y, ry) && !strcmp(rx, ry);
}

/* Combinations, paths and sizes, before any work. */
static int validate(args *a)
{
    train_config *m = &a->model;
    if (!a->vocab) a->vocab = a->task == TRAIN_TASK_MARKOV ? 8 : a->task == TRAIN_TASK_RECALL ? 16 : 8;
    size_t contexts = 1;
    for (size_t i = 0; i < a->order; i++) contexts *= a->vocab;
    if (a->task == TRAIN_TASK_MARKOV && contexts > 65536)
        return cli_usage_error("--vocab/--order: %zu^%zu contexts is more than 65536", a->vocab, a->order);
    if (a->task == TRAIN_TASK_RECALL && m->n < 8) return cli_usage_error("--n: recall needs n >= 8");
    if (a->task == TRAIN_TASK_COPY && m->n < 4) return cli_usage_error("--n: copy needs n >= 4");
    if (!a->have_glu) m->glu_hidden = 2 * m->d;
    if (!a->have_warmup) a->opt.warmup = a->opt.steps / 10;
    if (a->opt.warmup >= a->opt.steps) return cli_usage_error("--warmup: %zu out of range: need < --steps", a->opt.warmup);
    m->causal = !a->masked;
    if (m->heads > 1 && m->mixer != TRAIN_MIXER_ATTENTION) return cli_usage_error("--heads: needs --mixer attention");
    if (m->heads > 1 && (m->expand * m->d) % m->heads)
        return cli_usage_error("--heads: %zu does not divide the GTU width %zu", m->heads, m->expand * m->d);
    if (m->learn_decay && m->mixer != TRAIN_MIXER_TNO) return cli_usage_error("--learn-decay: needs --mixer tno");
    if (m->learn_decay && m->tno.decay >= 1)
        return cli_usage_error("--learn-decay: the initial --decay must be in (0, 1), not 1");
    if (a->have_causal_ski && (m->mixer != TRAIN_MIXER_SKI || !m->causal))
        return cli_usage_error("--causal-ski: needs --mixer ski and the causal objective");
    if (m->tno.decay >= 1 && m->mixer == TRAIN_MIXER_SKI)
        return cli_usage_error("--decay: ski needs a time warp in (0, 1)");
    if (m->positions == TRAIN_POSITIONS_ALIBI && m->mixer != TRAIN_MIXER_ATTENTION)
        return cli_usage_error("--positions: alibi needs --mixer attention (not %s)", train_mixer_names[m->mixer]);
    if (a->rpe_scaled && m->mixer != TRAIN_MIXER_TNO && m->mixer != TRAIN_MIXER_FD)
        return cli_usage_error("--rpe-input: scaled needs --mixer tno or fd (not %s)", train_mixer_names[m->mixer]);
    m->rpe_scale = a->rpe_scaled ? m->n : 0; /* the training n, at every --eval-lengths too */
    if (m->mixer == TRAIN_MIXER_TOEPLITZ && m->precision == SKIT_PRECISION_F32)
        return cli_usage_error("--precision: f32: --mixer toeplitz trains in float64 only");
    for (size_t i = 0; m->mixer == TRAIN_MIXER_TOEPLITZ && i < a->nlengths; i++)
        if (a->lengths[i] != m->n)
            return cli_usage_error("--eval-lengths: %zu: --mixer toeplitz has one coefficient per lag of --n %zu "
                                   "and none beyond", a->lengths[i], m->n);
    if (a->nlengths && m->positions == TRAIN_POSITIONS_LEARNED &&
        (m->mixer == TRAIN_MIXER_ATTENTION || train_mixer_is_mra(m->mixer)))
        return cli_usage_error("--eval-lengths: the attention model's learned positions exist for --n only");
    if (a->eval_out && !a->nlengths) return cli_usage_error("--eval-out: give --eval-lengths too");
    if (cli_common_validate(&a->common) || cli_check_data_path("--eval-out", a->eval_out, 0)) return CLI_USAGE;
    if (a->save_every && !a->save) return cli_usage_error("--save-every: give --save DIR too");
    if (a->plateau.window && !a->eval_every)
        return cli_usage_error("--plateau: give --eval-every S too (the evaluations it compares)");
    if ((a->resume || a->save_every || a->stop_after) && (a->check || a->dump))
        return cli_usage_error("--resume, --save-every, --stop-after: they train; not with --check-gradients or --dump-step");
    if (a->save && !same_directory(a->save, a->resume)) {
        struct stat st;
        if (stat(a->save, &st) == 0) return cli_usage_error("--save: %s exists; give a new directory", a->save);
        if (cli_check_output_path("--save", a->save)) return CLI_USAGE;
    }
    if (a->dump) {
        struct stat st;
        if (stat(a->dump, &st) == 0) return cli_usage_error("--dump-step: %s exists; give a new directory", a->dump);
        if (cli_check_output_path("--dump-step", a->dump)) return CLI_USAGE;
    }
    if (a->task == TRAIN_TASK_TEXT && access(a->text, R_OK) != 0)
        return cli_usage_error("--text: cannot read %s: %s", a->text, strerror(errno));
    return CLI_OK;
}

static int parse_args(int argc, char **argv, args *a)
{
    static const struct option longopts[] = {
        CLI_COMMON_LONGOPTS,
        {"task", required_argument, NULL, OPT_TASK}, {"vocab", required_argument, NULL, OPT_VOCAB},
        {"order", required_argument, NULL, OPT_ORDER}, {"text", required_argument, NULL, OPT_TEXT},
        {"objective", required_argument, NULL, OPT_OBJECTIVE}, {"mixer", required_argument, NULL, OPT_MIXER},
        {"n", required_argument, NULL, OPT_N}, {"batch", required_argument, NULL, OPT_BATCH},
        {"d", required_argument, NULL, OPT_D}, {"expand", required_argument, NULL, OPT_EXPAND},
        {"glu", required_argument, NULL, OPT_GLU}, {"layers", required_argument, NULL, OPT_LAYERS},
        {"norm", required_argument, NULL, OPT_NORM}, {"untied", no_argument, NULL, OPT_UNTIED},
        {"rpe-width", required_argument, NULL, OPT_RPE_WIDTH},
        {"rpe-layers", required_argument, NULL, OPT_RPE_LAYERS},
        {"activation", required_argument, NULL, OPT_ACTIVATION}, {"decay", required_argument, NULL, OPT_DECAY},
        {"learn-decay", no_argument, NULL, OPT_LEARN_DECAY}, {"positions", required_argument, NULL, OPT_POSITIONS},
        {"causal-ski", required_argument, NULL, OPT_CAUSAL_SKI},
        {"heads", required_argument, NULL, OPT_HEADS}, {"precision", required_argument, NULL, OPT_PRECISION},
        {"rpe-input", required_argument, NULL, OPT_RPE_INPUT},
        {"steps", required_argument, NULL, OPT_STEPS}, {"lr", required_argument, NULL, OPT_LR},
        {"warmup", required_argument, NULL, OPT_WARMUP},
        {"weight-decay", required_argument, NULL, OPT_WEIGHT_DECAY},
        {"clip", required_argument, NULL, OPT_CLIP},
        {"eval-batches", required_argument, NULL, OPT_EVAL_BATCHES},
        {"eval-every", required_argument, NULL, OPT_EVAL_EVERY},
        {"eval-lengths", required_argument, NULL, OPT_EVAL_LENGTHS},
        {"eval-out", required_argument, NULL, OPT_EVAL_OUT}, {"save", required_argument, NULL, OPT_SAVE},
        {"check-gradients", no_argument, NULL, OPT_CHECK}, {"dump-step", required_argument, NULL, OPT_DUMP_STEP},
        {"resume", required_argument, NULL, OPT_RESUME}, {"save-every", required_argument, NULL, OPT_SAVE_EVERY},
        {"stop-after", required_argument, NULL, OPT_STOP_AFTER}, {"plateau", required_argument, NULL, OPT_PLATEAU},
        {NULL, 0, NULL, 0}};
    defaults(a);
    const cli_options options = {.longopts = longopts, .usage = usage, .common = &a->common,
                                 .apply = parse_option, .ctx = a};
    int rc = cli_parse_options(&options, argc, argv);
    if (rc == CLI_OK && a->resume) rc = resume_options(a);
    return rc == CLI_OK ? validate(a) : rc;
}

/* ---- a training run ------------------------------------------------------ */

typedef struct run run;
static void describe_mixer(const args *a, const run *r, char *text, size_t size);

struct run {
    train_task task;
    train_model *model;
    int *inputs, *targets;
    double *weights;
    unsigned char *decayed;
    skit_rng data_rng;
    double floor;
    double oracle; /* markov: the chain's own validation loss (masked: its exact posterior) */
    train_state state; /* AdamW's moments, steps done, the log so far (a checkpoint's training state) */
    size_t history_rows; /* room in state.history */
    int converged;       /* stopped on the --plateau rule */
};

/* The --plateau rule over the evaluations at the multiples of
 * --eval-every up to `steps` (1 if met; *reading: its two sides). */
static int plateau_reading(const args *a, const run *r, size_t steps, train_plateau_reading *reading)
{
    if (!a->plateau.window || !a->eval_every || steps < a->eval_every) return 0;
    const double *first = r->state.history + (a->eval_every - 1) * TRAIN_LOG_COLUMNS + 1; /* its val_loss */
    return train_plateau_met(&a->plateau, first, a->eval_every * TRAIN_LOG_COLUMNS, steps / a->eval_every, reading);
}

/* The run stops after `steps` steps on the plateau: at an evaluation of
 * --eval-every before the schedule's end (at the end the learning rate has
 * decayed to 0, and any curve flattens there) */
static int plateau_reached(const args *a, const run *r, size_t steps)
{
    return a->eval_every && steps % a->eval_every == 0 && steps < a->opt.steps && plateau_reading(a, r, steps, NULL);
}

/* The run is over: its schedule done, or converged */
static int run_finished(const args *a, const run *r) { return r->state.step == a->opt.steps || r->converged; }

static int batch_buffers(size_t rows, int **inputs, int **targets, double **weights)
{
    *inputs = malloc(rows * sizeof(int));
    *targets = malloc(rows * sizeof(int));
    *weights = malloc(rows * sizeof(double));
    return *inputs && *targets && *weights ? CLI_OK : cli_failure("out of memory");
}

/* A model of this configuration at length n and batch, parameters from src (may be NULL). */
static int make_model(const args *a, const run *r, size_t n, size_t batch, train_model *src, train_model **out)
{
    train_config c = a->model;
    c.n = n;
    c.batch = batch;
    c.vocab = r->task.vocab + (size_t)a->masked;
    c.out_vocab = r->task.vocab;
    c.seed = a->common.seed;
    const char *why = NULL;
    int status = train_model_create(out, &c, &why);
    if (status == SKIT_EUNSUPPORTED && why)
        return cli_usage_error("--mixer %s: %s", train_mixer_names[c.mixer], why);
    if (status) return cli_library_error(status);
    if (src) {
        memcpy(train_model_parameters(*out), train_model_parameters(src),
               train_model_parameter_count(src) * sizeof(double));
        if ((status = train_model_sync(*out))) return cli_library_error(status);
    }
    return CLI_OK;
}

/* Mean validation loss over eval_batches fixed batches (the same for every
 * step and run); *oracle (may be NULL): the Markov chain's own mean loss on
 * the same tokens (NAN for other tasks). */
static int evaluate(const args *a, const run *r, train_model *m, size_t n, size_t batch, int *in, int *tg,
                    double *w, double *loss, double *oracle)
{
    skit_rng rng;
    skit_rng_seed_stream(&rng, a->common.seed, 0x76616c); /* validation stream */
    double total = 0, count = 0, chain = 0;
    for (size_t k = 0; k < a->eval_batches; k++) {
        double l = 0, c = 0;
        train_task_batch(&r->task, &rng, 1, batch, n, in, tg, w);
        int status = train_model_forward(m, in, tg, w, &l, &c);
        if (status) return cli_library_error(status);
        total += l * c, count += c;
        chain += train_task_oracle_loss(&r->task, batch, n, in, tg, w);
    }
    *loss = count > 0 ? total / count : NAN;
    if (oracle) *oracle = count > 0 ? chain / count : NAN;
    return CLI_OK;
}

/* --resume: parameters, moments, step, data position and log from the checkpoint. */
static int resume_state(const args *a, run *r)
{
    int rc = train_checkpoint_load("--resume", a->resume, &a->sums, r->model, &r->state);
    r->history_rows = r->state.step;
    if (rc == CLI_OK && r->state.step >= a->opt.steps)
        rc = cli_usage_error("--resume: %s: the run ended (step %zu of --steps %zu): nothing to resume", a->resume,
                             r->state.step, a->opt.steps);
    if (rc == CLI_OK && plateau_reached(a, r, r->state.step))
        rc = cli_usage_error("--resume: %s: the run ended on the plateau (step %zu, --plateau): nothing to resume",
                             a->resume, r->state.step);
    r->data_rng = r->state.rng;
    return rc;
}

static int run_setup(const args *a, run *r)
{
    int status = train_task_create(&r->task, a->task, a->vocab, a->order, a->text, a->masked, a->common.seed);
    if (status == SKIT_EIO) return cli_usage_error("--text: cannot read %s", a->text);
    if (status) return cli_library_error(status);
    if (a->task == TRAIN_TASK_TEXT && r->task.text_length - r->task.split < a->model.n + 2)
        return cli_usage_error("--text: %s is too short for n = %zu", a->text, a->model.n);
    r->floor = a->masked ? NAN : train_task_floor(&r->task);
    int rc = make_model(a, r, a->model.n, a->model.batch, NULL, &r->model);
    if (rc) return rc;
    size_t P = train_model_parameter_count(r->model);
    r->decayed = malloc(P);
    if (!r->decayed) return cli_failure("out of memory");
    for (size_t g = 0; g < train_model_group_count(r->model); g++) {
        const train_group *gr = train_model_group(r->model, g);
        memset(r->decayed + gr->offset, gr->decayed, gr->rows * gr->cols);
    }
    skit_rng_seed_stream(&r->data_rng, a->common.seed, 0x747261696e); /* training stream */
    r->state.m = calloc(P, sizeof(double));
    r->state.v = calloc(P, sizeof(double));
    if (!r->state.m || !r->state.v) return cli_failure("out of memory");
    if (a->resume) rc = resume_state(a, r);
    return rc == CLI_OK ? batch_buffers(a->model.batch * a->model.n, &r->inputs, &r->targets, &r->weights) : rc;
}

static void run_free(run *r)
{
    train_model_destroy(r->model);
    train_task_destroy(&r->task);
    free(r->inputs);
    free(r->targets);
    free(r->weights);
    free(r->decayed);
    free(r->state.m);
    free(r->state.v);
    free(r->state.history);
}


/* ---- training ------------------------------------------------------------ */

/* One step: forward, backward, clip, AdamW, push to the plans. */
static int train_step(const args *a, run *r, train_adamw *opt, size_t t, double *loss, double *norm)
{
    train_task_batch(&r->task, &r->data_rng, 0, a->model.batch, a->model.n, r->inputs, r->targets, r->weights);
    int status = train_model_forward(r->model, r->inputs, r->targets, r->weights, loss, NULL);
    if (!status) status = train_model_backward(r->model);
    if (status) return cli_library_error(status);
    size_t P = train_model_parameter_count(r->model);
    *norm = train_clip(train_model_gradients(r->model), P, opt->clip);
    if (!isfinite(*norm) || !isfinite(*loss))
        return cli_failure("step %zu: loss or gradient not finite (lower --lr)", t + 1);
    train_adamw_step(opt, t, train_model_parameters(r->model), train_model_gradients(r->model), r->decayed);
    status = train_model_sync(r->model);
    if (status == SKIT_ENONFINITE) return cli_failure("step %zu: the mixers' parameters blew up (lower --lr)", t + 1);
    return status ? cli_library_error(status) : CLI_OK;
}

/* The log's row of step t (0-based) from the history. */
static void log_row(cli_table *log, const double *h, size_t t)
{
    cli_table_rowf(log, "%zu\t%.6f\t%.6f\t%.6g\t%.6g\t%.0f\t%.6f", t + 1, h[0], h[1], h[2], h[3], h[4], h[5]);
}

/* Append step t's row to the history (grown as needed) and the log. */
static int record_step(run *r, cli_table *log, size_t t, const double row[TRAIN_LOG_COLUMNS])
{
    if (t >= r->history_rows) {
        size_t rows = 2 * t + 16;
        double *grown = realloc(r->state.history, rows * TRAIN_LOG_COLUMNS * sizeof(double));
        if (!grown) return cli_failure("out of memory");
        r->state.history = grown, r->history_rows = rows;
    }
    memcpy(r->state.history + t * TRAIN_LOG_COLUMNS, row, TRAIN_LOG_COLUMNS * sizeof(double));
    log_row(log, row, t);
    return CLI_OK;
}

/* --save DIR now: parameters and the training state after r->state.step steps. */
static int save_checkpoint(const args *a, run *r)
{
    char description[512];
    describe_mixer(a, r, description, sizeof description);
    char *text = model_fields(a, r->model);
    r->state.rng = r->data_rng;
    int rc = text ? train_checkpoint_write("--save", r->model, train_model_parameters(r->model), a->save,
                                           "parameters", description, text, &r->state)
                  : cli_failure("out of memory");
    free(text);
    return rc;
}

/* After step t: a periodic checkpoint, or the last one before a signal ends the run. */
static int after_step(const args *a, run *r, size_t t)
{
    if (!a->save) return CLI_OK;
    int periodic = a->save_every && (t + 1) % a->save_every == 0 && !run_finished(a, r);
    int rc = periodic || cli_signal_pending() ? save_checkpoint(a, r) : CLI_OK;
    if (rc == CLI_OK) cli_signal_finish(); /* returns only when no signal came */
    return rc;
}

/* Steps from the checkpoint's (or 0) to the end of the schedule or
 * --stop-after; *val_loss gets the last step's validation loss. */
static int train_loop(const args *a, run *r, cli_table *log, double *val_loss)
{
    train_adamw opt = a->opt;
    size_t rows = a->model.batch * a->model.n, start = r->state.step;
    size_t stop = a->stop_after && a->stop_after < opt.steps - start ? start + a->stop_after : opt.steps;
    opt.count = train_model_parameter_count(r->model);
    opt.m = r->state.m;
    opt.v = r->state.v;
    for (size_t t = 0; t < start; t++) log_row(log, r->state.history + t * TRAIN_LOG_COLUMNS, t);
    double before = start ? r->state.history[(start - 1) * TRAIN_LOG_COLUMNS + 5] : 0;
    int rc = CLI_OK;
    cli_progress_start(&a->common);
    double t0 = skit_clock_seconds() - before;
    for (size_t t = start; t < stop && rc == CLI_OK && !r->converged; t++) {
        double loss = NAN, norm = NAN, val = NAN;
        rc = train_step(a, r, &opt, t, &loss, &norm);
        int last = t + 1 == opt.steps;
        if (rc == CLI_OK && (last || (a->eval_every && (t + 1) % a->eval_every == 0)))
            rc = evaluate(a, r, r->model, a->model.n, a->model.batch, r->inputs, r->targets, r->weights, &val,
                          &r->oracle);
        double seconds = skit_clock_seconds() - t0, rate = (double)(rows * (t + 1 - start)) / (seconds - before);
        const double row[TRAIN_LOG_COLUMNS] = {loss, val, train_adamw_rate(&opt, t), norm, rate, seconds};
        if (rc == CLI_OK) rc = record_step(r, log, t, row);
        r->state.step = t + 1;
        r->converged = rc == CLI_OK && plateau_reached(a, r, t + 1);
        cli_progress("step %zu/%zu  loss %.4f  %.0f tokens/s  ETA %.0f s", t + 1, opt.steps, loss, rate,
                     (seconds - before) / (double)(t + 1 - start) * (double)(stop - t - 1));
        if (last || r->converged) *val_loss = val;
        if (rc == CLI_OK) rc = after_step(a, r, t);
    }
    cli_progress_done();
    return rc;
}

/* Validation loss of the trained parameters at every --eval-lengths n. */
static int eval_lengths(const args *a, run *r, cli_table *t)
{
    int rc = CLI_OK;
    for (size_t i = 0; i < a->nlengths && rc == CLI_OK; i++) {
        size_t n = a->lengths[i], batch = a->model.batch;
        train_model *m = NULL;
        int *in = NULL, *tg = NULL;
        double *w = NULL, loss = NAN;
        rc = make_model(a, r, n, batch, r->model, &m);
        if (rc == CLI_OK) rc = batch_buffers(batch * n, &in, &tg, &w);
        if (rc == CLI_OK) rc = evaluate(a, r, m, n, batch, in, tg, w, &loss, NULL);
        if (rc == CLI_OK) cli_table_rowf(t, "%zu\t%.6f\t%.6f", n, loss, loss / r->floor);
        train_model_destroy(m);
        free(in), free(tg), free(w);
    }
    return rc;
}

/* The `skit tno` options that load a mixer of this checkpoint. */
static void describe_mixer(const args *a, const run *r, char *text, size_t size)
{
    const skit_tno_options *o = train_model_mixer_options(r->model);
    if (a->model.mixer == TRAIN_MIXER_TOEPLITZ) {
        snprintf(text, size, "mixer toeplitz (layerL.coeffs: lags x e, lags %s); d %zu",
                 a->model.causal ? "0..n-1" : "-(n-1)..n-1", a->model.expand * a->model.d);
        return;
    }
    if (a->model.mixer == TRAIN_MIXER_ATTENTION || train_mixer_is_mra(a->model.mixer)) {
        snprintf(text, size, "mixer %s (layerL.mixer.wq/wk: e x e); d %zu; heads %zu; positions %s",
                 train_mixer_names[a->model.mixer], a->model.expand * a->model.d, a->model.heads,
                 train_positions_names[a->model.positions]);
        return;
    }
    char ski[128] = "", decay[32];
    if (o->kind == SKIT_TNO_SKI) snprintf(ski, sizeof ski, " --rank %zu --taps %zu --knots %zu", o->rank, o->taps, o->knots);
    cli_format_exact(train_model_decay(r->model, 0), decay, sizeof decay); /* exact: skit tno compares it */
    snprintf(text, size, "load a mixer with: skit tno --op %s%s --d %zu --rpe-width %zu --rpe-layers %zu "
             "--activation %s --norm %s --decay %s%s --params DIR/layerL.mixer.npy",
             train_mixer_names[a->model.mixer], o->causality == SKIT_CAUSAL ? " --causal" : "",
             a->model.expand * a->model.d, o->rpe_width, o->rpe_layers, activation_names[o->activation],
             tno_norm_names[o->norm], decay, ski);
    if (a->rpe_scaled)
        snprintf(text + strlen(text), size - strlen(text), "; rpe-input scaled: divide the first %zu values by %zu",
                 o->rpe_width, a->model.n);
    for (size_t l = 0; a->model.learn_decay && l < a->model.layers; l++) {
        size_t used = strlen(text);
        cli_format_exact(train_model_decay(r->model, l), decay, sizeof decay);
        snprintf(text + used, size - used, "%s layer%zu %s", l ? "," : "; learned decay lambda:", l, decay);
    }
}

/* --check-gradients --precision f32: the float32 gradients against the
 * float64 model's on the same parameters and batch. */
static int check_precision(const args *a, run *r)
{
    args a64 = *a;
    a64.model.precision = SKIT_PRECISION_F64;
    train_model *m64 = NULL;
    size_t G = train_model_group_count(r->model);
    double *worst = calloc(G, sizeof(double)), max = 0, loss_error = NAN;
    double tol = train_precision_tolerance(train_model_config(r->model));
    int rc = worst ? make_model(&a64, r, a->model.n, a->model.batch, r->model, &m64) : cli_failure("out of memory");
    train_task_batch(&r->task, &r->data_rng, 0, a->model.batch, a->model.n, r->inputs, r->targets, r->weights);
    int same = 1;
    int status = rc ? SKIT_OK
                    : train_precision_check(r->model, m64, r->inputs, r->targets, r->weights, &loss_error, worst, &same);
    if (status) rc = cli_library_error(status);
    else if (!rc && !same)
        rc = cli_failure("float32 check: the float32 and float64 MRA-2 refined different squares (coarse scores "
                         "within rounding of each other), so their gradients are not comparable; try another --seed");
    if (rc == CLI_OK) {
        printf("group\trelative_error_f32\ttolerance\n");
        printf("loss\t%.3g\t%.3g\n", loss_error, tol);
        for (size_t g = 0; g < G; g++) {
            printf("%s\t%.3g\t%.3g\n", train_model_group(r->model, g)->name, worst[g], tol);
            max = fmax(max, worst[g]);
        }
        max = fmax(max, loss_error);
        if (!(max <= tol)) rc = cli_failure("float32 check: worst relative error %.3g above %.3g", max, tol);
        else if (!a->common.quiet)
            fprintf(stderr, "%s: float32 check: worst relative error %.3g (<= %.3g): ok\n", cli_context(), max, tol);
    }
    train_model_destroy(m64);
    free(worst);
    return rc;
}

static int check_gradients(const args *a, run *r)
{
    if (a->model.precision == SKIT_PRECISION_F32) return check_precision(a, r);
    size_t G = train_model_group_count(r->model);
    double *worst = calloc(G, sizeof(double)), max = 0;
    if (!worst) return cli_failure("out of memory");
    train_task_batch(&r->task, &r->data_rng, 0, a->model.batch, a->model.n, r->inputs, r->targets, r->weights);
    int status = train_gradient_check(r->model, r->inputs, r->targets, r->weights, 8, a->common.seed, worst);
    if (status) {
        free(worst);
        return cli_library_error(status);
    }
    printf("group\tworst_relative_error\n");
    for (size_t g = 0; g < G; g++) {
        printf("%s\t%.3g\n", train_model_group(r->model, g)->name, worst[g]);
        max = fmax(max, worst[g]);
    }
    free(worst);
    if (max > 1e-6) return cli_failure("gradient check: worst relative error %.3g above 1e-6", max);
    if (!a->common.quiet) fprintf(stderr, "%s: gradient check: worst relative error %.3g (<= 1e-6): ok\n", cli_context(), max);
    return CLI_OK;
}

/* DIR/name, or a usage error for a path too long */
static int dump_path(char *out, size_t size, const char *dir, const char *name)
{
    int n = snprintf(out, size, "%s/%s", dir, name);
    return n < 0 || (size_t)n >= size ? cli_usage_error("--dump-step: path too long") : CLI_OK;
}

/* One of --dump-step's checkpoints (no training state). */
static int dump_arrays(const args *a, run *r, const double *values, const char *dir, const char *kind,
                       const char *description)
{
    char *text = model_fields(a, r->model);
    int rc = text ? train_checkpoint_write("--dump-step", r->model, values, dir, kind, description, text, NULL)
                  : cli_failure("out of memory");
    free(text);
    return rc;
}

static int dump_step(const args *a, run *r)
{
    char path[4096];
    size_t R = a->model.batch * a->model.n, P = train_model_parameter_count(r->model);
    train_adamw opt = a->opt;
    opt.count = P;
    opt.m = calloc(P, sizeof(double));
    opt.v = calloc(P, sizeof(double));
    double *batch = malloc(3 * R * sizeof(double)), scalars[3] = {NAN, train_adamw_rate(&opt, 0), NAN};
    int rc = opt.m && opt.v && batch ? CLI_OK : cli_failure("out of memory");
    if (rc == CLI_OK && mkdir(a->dump, 0777) != 0) rc = cli_failure("--dump-step: cannot create %s: %s", a->dump, strerror(errno));
    if (rc == CLI_OK) rc = dump_path(path, sizeof path, a->dump, "before");
    if (rc == CLI_OK) rc = dump_arrays(a, r, train_model_parameters(r->model), path, "parameters", "parameters before the step");
    train_task_batch(&r->task, &r->data_rng, 0, a->model.batch, a->model.n, r->inputs, r->targets, r->weights);
    int status = rc ? SKIT_OK : train_model_forward(r->model, r->inputs, r->targets, r->weights, &scalars[0], NULL);
    if (!status && !rc) status = train_model_backward(r->model);
    if (status) rc = cli_library_error(status);
    if (rc == CLI_OK) rc = dump_path(path, sizeof path, a->dump, "gradients");
    if (rc == CLI_OK) rc = dump_arrays(a, r, train_model_gradients(r->model), path, "gradients", "gradients");
    if (rc == CLI_OK) {
        scalars[2] = train_clip(train_model_gradients(r->model), P, opt.clip);
        train_adamw_step(&opt, 0, train_model_parameters(r->model), train_model_gradients(r->model), r->decayed);
        if ((status = train_model_sync(r->model))) rc = cli_library_error(status);
    }
    if (rc == CLI_OK) rc = dump_path(path, sizeof path, a->dump, "after");
    if (rc == CLI_OK) rc = dump_arrays(a, r, train_model_parameters(r->model), path, "parameters", "parameters after the step");
    for (size_t i = 0; i < R && rc == CLI_OK; i++)
        batch[i] = r->inputs[i], batch[R + i] = r->targets[i], batch[2 * R + i] = r->weights[i];
    if (rc == CLI_OK && !dump_path(path, sizeof path, a->dump, "batch.npy") && skit_npy_write(path, batch, R, 3, R, 2))
        rc = cli_library_error(SKIT_EIO);
    if (rc == CLI_OK && !dump_path(path, sizeof path, a->dump, "scalars.npy") && skit_npy_write(path, scalars, 3, 1, 3, 1))
        rc = cli_library_error(SKIT_EIO);
    free(opt.m), free(opt.v), free(batch);
    return rc;
}

/* The loss floor the first summary line states: the task's (Markov: the
 * entropy rate); masked LM: the chain's exact posterior loss on the
 * validation tokens (computed by the last evaluation); NAN if none. */
static double loss_floor(const args *a, const run *r) { return a->masked ? r->oracle : r->floor; }

/* The log's line on how a finished run ended: the steps taken, and
 * whether on the --plateau rule ("stop plateau") or at --steps ("stop
 * steps"), with the rule's two sides. */
static void stop_line(const args *a, const run *r, cli_table *log)
{
    char rule[256] = "no --plateau", text[64];
    train_plateau_reading reading = {NAN, NAN};
    size_t steps = r->state.step;
    if (a->plateau.window) {
        plateau_text(&a->plateau, text, sizeof text);
        plateau_reading(a, r, steps, &reading);
        snprintf(rule, sizeof rule, "--plateau %s%s: best validation loss of the last %zu evaluations %.6f, of those "
                 "before %.6f", text, r->converged ? "" : " not met", a->plateau.window, reading.recent, reading.before);
    }
    if (r->converged) {
        size_t used = strlen(rule);
        snprintf(rule + used, sizeof rule - used, "; learning rate %.3g", r->state.history[(steps - 1) * TRAIN_LOG_COLUMNS + 2]);
    }
    cli_table_comment(log, "steps taken %zu of %zu; stop %s (%s)", steps, a->opt.steps,
                      r->converged ? "plateau" : "steps", rule);
    if (!a->common.quiet && a->plateau.window)
        fprintf(stderr, "%s: %s after %zu of %zu steps\n", cli_context(),
                r->converged ? "converged (--plateau)" : "not converged (--plateau not met)", steps, a->opt.steps);
}

/* The log's summary of a finished run, and the line on stderr. */
static void summarise(const args *a, run *r, cli_table *log, double val_loss)
{
    double floor = loss_floor(a, r);
    char stated[96] = "no known floor";
    if (isfinite(floor)) snprintf(stated, sizeof stated, "floor %.6f nats/token", floor);
    cli_table_comment(log, "task %s vocab %zu%s; %s; final validation loss %.6f (%.4f x floor)",
                      train_task_names[a->task], r->task.vocab, a->masked ? " masked-LM" : " causal", stated,
                      val_loss, val_loss / floor);
    snprintf(stated, sizeof stated, "no known floor");
    if (isfinite(r->oracle))
        cli_table_comment(log, "the chain's own loss on the same validation tokens %.6f; model / chain %.4f%s",
                          r->oracle, val_loss / r->oracle,
                          a->masked ? " (masked: the chain's exact posterior given the visible tokens)" : "");
    stop_line(a, r, log);
    size_t peak = skit_memory_peak_rss();
    cli_table_comment(log, "parameters %zu; model arenas and plans %zu bytes; peak RSS %zu bytes",
                      train_model_parameter_count(r->model), train_model_bytes(r->model), peak);
    if (isfinite(floor)) snprintf(stated, sizeof stated, "floor %.4f, ratio %.4f", floor, val_loss / floor);
    if (!a->common.quiet)
        fprintf(stderr, "%s: validation loss %.4f nats/token (%s); %zu parameters, arenas %.1f MiB, peak RSS "
                "%.1f MiB\n", cli_context(), val_loss, stated, train_model_parameter_count(r->model),
                train_model_bytes(r->model) / 1048576.0, peak / 1048576.0);
}

static int report(const args *a, run *r, cli_table *log, double val_loss, int argc, char **argv)
{
    char mixer[4096];
    describe_mixer(a, r, mixer, sizeof mixer);
    if (run_finished(a, r)) summarise(a, r, log, val_loss);
    else {
        cli_table_comment(log, "stopped after step %zu of %zu (--stop-after)%s%s", r->state.step, a->opt.steps,
                          a->save ? "; continue with --resume " : "", a->save ? a->save : "");
        if (!a->common.quiet)
            fprintf(stderr, "%s: stopped after step %zu of %zu%s%s\n", cli_context(), r->state.step, a->opt.steps,
                    a->save ? "; continue with --resume " : "", a->save ? a->save : "");
    }
    cli_table_comment(log, "%s", mixer);
    int rc = cli_table_emit(log, &a->common, argc, argv, "nats/token; seconds", NULL, NULL);
    if (rc == CLI_OK && a->save) rc = save_checkpoint(a, r);
    return rc;
}

int cmd_train_load_checkpoint(const char *dir)
{
    args a;
    defaults(&a);
    a.resume = dir;
    int rc = resume_options(&a);
    if (rc == CLI_OK) rc = validate(&a);
    run r;
    memset(&r, 0, sizeof r);
    r.oracle = NAN;
    if (rc == CLI_OK) rc = run_setup(&a, &r);
    run_free(&r);
    args_free(&a);
    return rc;
}

int cmd_train(int argc, char **argv)
{
    args a;
    int rc = parse_args(argc, argv, &a);
    if (rc != CLI_OK) {
        args_free(&a);
        return rc == CLI_HELP ? CLI_OK : rc;
    }
#ifdef OPENBLAS_VERSION
    openblas_set_num_threads(1); /* one thread pool (OpenMP), as skit tno */
#endif
    if (a.common.threads == 0) a.common.threads = 1; /* small models: threads cost more than they save */
    cli_apply_threads(&a.common);
    run r;
    memset(&r, 0, sizeof r);
    r.oracle = NAN;
    rc = run_setup(&a, &r);
    static const char *const log_columns[] = {"step", "loss", "val_loss", "lr", "grad_norm", "tokens_per_s",
                                              "seconds", NULL};
    static const char *const eval_columns[] = {"n", "val_loss", "ratio_to_floor", NULL};
    cli_table log, ev;
    cli_table_init(&log, log_columns);
    cli_table_init(&ev, eval_columns);
    double val_loss = NAN;
    if (rc == CLI_OK && a.check) rc = check_gradients(&a, &r);
    else if (rc == CLI_OK && a.dump) rc = dump_step(&a, &r);
    else if (rc == CLI_OK) {
        if (a.save) cli_signals_defer(1); /* a signal then ends the run after a checkpoint */
        rc = train_loop(&a, &r, &log, &val_loss);
        int finished = run_finished(&a, &r);
        if (rc == CLI_OK && finished) rc = eval_lengths(&a, &r, &ev);
        if (rc == CLI_OK && finished && a.eval_out)
            rc = cli_table_save(&ev, a.eval_out, argc, argv, a.common.seed, "nats/token");
        if (rc == CLI_OK) rc = report(&a, &r, &log, val_loss, argc, argv);
        cli_signals_defer(0); /* a signal that came meanwhile ends the run now, DIR saved */
    }
    cli_table_free(&log);
    cli_table_free(&ev);
    run_free(&r);
    args_free(&a);
    return rc;
}
