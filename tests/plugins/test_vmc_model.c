/* test_vmc_model.c — a model of ABI 2 with variational parameters, for `mcf optimize` through
 * model_ops.c (the parameters described by state(), E_L and its derivatives measured while
 * the batch's variational flag is set): tests/cli/test_optimize_abi2.sh.
 *
 * One particle in the harmonic well H = -1/2 d^2/dx^2 + x^2/2, the trial function
 *     Psi(x) = exp(-a x^2 - c x),   parameters p = (a, c),
 * sampled from |Psi|^2 by Metropolis moves x -> x + step u, u uniform in [-1, 1).  With
 * g = 2 a x + c (so Psi'/Psi = -g and Psi''/Psi = g^2 - 2a):
 *     E_L = a + x^2/2 - g^2/2,
 *     O_a = d ln Psi / da = -x^2,            O_c = -x,
 *     dE_L/da = 1 - 2 x g,                   dE_L/dc = -g.
 * |Psi|^2 is a Gaussian of mean -c/(2a) and variance 1/(4a), so the energy is
 *     E(a, c) = a/2 + 1/(8a) + c^2/(8a^2),
 * least at a = 1/2, c = 0, where Psi is the ground state: E_L = 1/2 for every x (zero
 * variance).
 *
 * [model] keys: a, c (the start), trial = gauss|none (none: no parameters, and state()
 * says why), p_file (a parameter file written by `mcf optimize`: its '#' lines, then
 * "width a" and "shift c"; default none), step. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcf/mcf.h"

static const mcf_param_spec tvmc_params[] = {
    {"a", MCF_PARAM_REAL, "0.3", MCF_PARAM_HAS_MIN | MCF_PARAM_MIN_EXCLUSIVE, 0, 0, NULL,
     .doc = "the Gaussian's width parameter (start)"},
    {"c", MCF_PARAM_REAL, "0.2", 0, 0, 0, NULL, .doc = "the linear term (start)"},
    {"trial", MCF_PARAM_CHOICE, "gauss", MCF_PARAM_NO_SCAN, 0, 0, "gauss|none",
     .doc = "gauss: a and c are variational; none: no parameters to optimize"},
    {"p_file", MCF_PARAM_STRING, "none", MCF_PARAM_NO_SCAN, 0, 0, NULL,
     .doc = "a parameter file of mcf optimize (replaces a and c), or none"},
    {"step", MCF_PARAM_REAL, "1.0", MCF_PARAM_HAS_MIN | MCF_PARAM_MIN_EXCLUSIVE, 0, 0, NULL,
     .doc = "half-width of the move (adapted while thermalizing)"},
    {0}};

static const mcf_observable tvmc_observables[] = {
    {"energy", MCF_ROLE_ENERGY, "the local energy E_L", NULL, 0, NULL, NULL, NULL, NULL},
    {NULL, MCF_ROLE_NONE, NULL, NULL, 0, NULL, NULL, NULL, NULL}};

typedef struct tvmc {
    double x, step;
    double p[2]; /* a, c */
    int none;    /* trial = none */
} tvmc;

typedef struct tvmc_move {
    double x;
} tvmc_move;

/* "width a" and "shift c" after the '#' lines */
static int read_file(const char *path, double p[2])
{
    FILE *f = fopen(path, "r");
    if (!f)
        return mcf_fail(MCF_EIO, "tvmc: cannot open p_file %s", path);
    char line[256];
    int got = 0;
    while (fgets(line, sizeof line, f))
        if (line[0] != '#')
            got += sscanf(line, "width %lf", &p[0]) == 1 ? 1
                   : sscanf(line, "shift %lf", &p[1]) == 1 ? 2 : 100;
    fclose(f);
    return got == 3 ? MCF_OK : mcf_fail(MCF_EFORMAT, "tvmc: %s is not a parameter file", path);
}

static int tvmc_create(const mcf_params *params, const mcf_services *s, mcf_rng *rng,
                       void **out)
{
    (void)s;
    tvmc *t = calloc(1, sizeof *t);
    if (!t)
        return mcf_fail(MCF_ENOMEM, "tvmc: out of memory");
    const char *file;
    int trial, rc;
    if ((rc = mcf_params_real(params, "a", &t->p[0])) ||
        (rc = mcf_params_real(params, "c", &t->p[1])) ||
        (rc = mcf_params_choice(params, "trial", &trial)) ||
        (rc = mcf_params_string(params, "p_file", &file)) ||
        (rc = mcf_params_real(params, "step", &t->step)) ||
        (strcmp(file, "none") && (rc = read_file(file, t->p)))) {
        free(t);
        return rc;
    }
    t->none = trial == 1;
    t->x = mcf_rng_uniform(rng) - 0.5;
    *out = t;
    return MCF_OK;
}

static void tvmc_destroy(void *chain) { free(chain); }

static int tvmc_layout(const void *chain, mcf_layout *l)
{
    (void)chain;
    l->units = 1;
    return MCF_OK;
}

static double log_psi2(const tvmc *t, double x)
{
    return -2.0 * (t->p[0] * x * x + t->p[1] * x);
}

static int tvmc_propose(mcf_batch *b, void *const *chains, size_t n, mcf_rng *const *rngs,
                        void *moves, double *log_ratio)
{
    (void)b;
    tvmc_move *m = moves;
    for (size_t k = 0; k < n; k++) {
        const tvmc *t = chains[k];
        m[k].x = t->x + t->step * (2.0 * mcf_rng_uniform(rngs[k]) - 1.0);
        log_ratio[k] = log_psi2(t, m[k].x) - log_psi2(t, t->x);
    }
    return MCF_OK;
}

static int tvmc_apply(mcf_batch *b, void *const *chains, const void *moves, size_t n,
                      const unsigned char *accepted)
{
    (void)b;
    const tvmc_move *m = moves;
    for (size_t k = 0; k < n; k++)
        if (accepted[k])
            ((tvmc *)chains[k])->x = m[k].x;
    return MCF_OK;
}

/* E_L alone, or while the core optimizes E_L, O_a, O_c, dE_L/da, dE_L/dc */
static int tvmc_measure(mcf_batch *b, void *const *chains, size_t n, double *const *values)
{
    const int variational = mcf_batch_variational(b);
    for (size_t k = 0; k < n; k++) {
        const tvmc *t = chains[k];
        const double x = t->x, a = t->p[0], g = 2.0 * a * x + t->p[1];
        double *v = values[k];
        v[0] = a + 0.5 * x * x - 0.5 * g * g;
        if (variational) {
            v[1] = -x * x;
            v[2] = -x;
            v[3] = 1.0 - 2.0 * x * g;
            v[4] = -g;
        }
    }
    return MCF_OK;
}

static int tvmc_state(void *chain, mcf_chain_state *st)
{
    tvmc *t = chain;
    int rc;
    if ((rc = mcf_chain_state_add(st, MCF_STATE_REALS("x", &t->x, 1), 0)) ||
        (rc = mcf_chain_state_add(st, MCF_STATE_REALS("step", &t->step, 1), 0)) ||
        (rc = mcf_chain_state_add(st, MCF_STATE_REALS("parameters", t->p, 2), 0)))
        return rc;
    st->step = &t->step;
    st->step_target = 0.5;
    st->step_min = 1e-6;
    st->step_max = 10.0;
    mcf_variational *v = &st->variational;
    if (t->none) {
        v->none = "tvmc: trial = none has no parameters to optimize; set [model] trial = gauss";
        return MCF_OK;
    }
    v->p = t->p;
    v->count = 2;
    v->head = "# tvmc trial function exp(-a x^2 - c x)\n# read with [model] p_file\n";
    v->groups = 2;
    v->group[0] = "width";
    v->group_count[0] = 1;
    v->group[1] = "shift";
    v->group_count[1] = 1;
    return MCF_OK;
}

/* new parameters: a must stay positive (|Psi|^2 normalizable) */
static int tvmc_rebuild(void *chain, unsigned what)
{
    const tvmc *t = chain;
    if ((what & (MCF_REBUILD_VARIATIONAL | MCF_REBUILD_LOAD)) && !(t->p[0] > 0))
        return mcf_fail(MCF_EINVAL, "tvmc: a = %g is not positive", t->p[0]);
    return MCF_OK;
}

static const mcf_model tvmc_model = {
    .struct_size = sizeof(mcf_model),
    .move_size = sizeof(tvmc_move),
    .observables = tvmc_observables,
    .variational_file_key = "p_file",
    .state_tag = {'T', 'V', 'M', '1'},
    .create = tvmc_create,
    .destroy = tvmc_destroy,
    .layout = tvmc_layout,
    .propose = tvmc_propose,
    .apply = tvmc_apply,
    .measure = tvmc_measure,
    .state = tvmc_state,
    .rebuild = tvmc_rebuild,
};

MCF_PLUGIN_DESCRIPTOR(MCF_PLUGIN_MODEL, "tvmc", "0.1.0",
                      "test: a Gaussian trial function in a harmonic well (mcf optimize)",
                      tvmc_params, &tvmc_model)
