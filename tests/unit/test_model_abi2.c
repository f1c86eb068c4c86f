/* test_model_abi2.c — the core's side of ABI 2's model table (core/engine/model_ops.c) with a
 * toy model that has everything the tree's first ABI-2 model (ising) does not: a curve, an
 * adapted step, the action form of tempering, variational parameters, the whole-sweep op.
 * Expectations are worked out in this file:
 *
 *   opening   observables without their labels; one label list from the observables'
 *             symbols and units, the curve's axis, the parameters' labels and T in
 *             energy_unit; the tempering form from weight_form; refusals naming the op;
 *   layout    units and a curve's length and axis values through the verbs the core uses;
 *   state     the checkpoint record is mcf_state_save's bytes of the described fields,
 *             written by hand here; load reads them back and calls rebuild(LOAD); the
 *             configuration record holds the CONFIGURATION fields alone under its tag;
 *   adapt     the step follows mcf_adapt_step with the described target and bounds;
 *   tempering set_temperature writes the described T and calls rebuild(TEMPERATURE);
 *   variational  from state()'s mcf_variational: count, get, set (then rebuild), the file's
 *             exact bytes (head, then a line per group), and why there is none; E_L and
 *             its derivatives through measure() while the batch's variational flag is
 *             set (and not after); the refusals of a description that does not add up;
 *   sweep     the model's whole-sweep op, and MCF_SWEEP_DECLINED without one. */
#define _POSIX_C_SOURCE 200809L /* fmemopen */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "internal.h"
#include "model_ops.h"

static int contains(const char *s, const char *part) { return s && strstr(s, part) != NULL; }

typedef struct toy {
    double x[3];      /* the configuration */
    int64_t size;     /* fixed by the parameters */
    double step, T;
    double p[2];      /* variational parameters */
    mcf_rng mrng;
    unsigned rebuilt; /* the last rebuild()'s bits */
    int rebuilds;
    int no_parameters;
    int broken;       /* which broken description state() gives (test_variational_refusals) */
    int measured_variational; /* mcf_batch_variational in the last measure() */
} toy;

static int toy_broken; /* the `broken` of the chains created next */
static int toy_live;   /* chains created and not destroyed */

static int toy_create(const mcf_params *p, const mcf_services *s, mcf_rng *rng, void **chain)
{
    (void)p, (void)s, (void)rng;
    toy *t = calloc(1, sizeof *t);
    if (!t)
        return MCF_ENOMEM;
    toy_live++;
    t->broken = toy_broken;
    t->size = 3;
    t->step = 1.0;
    t->T = 2.0;
    *chain = t;
    return MCF_OK;
}
static void toy_destroy(void *c)
{
    toy_live--;
    free(c);
}
static int toy_layout(const void *chain, mcf_layout *l)
{
    (void)chain;
    l->units = 3;
    l->points[1] = 4; /* observable 1 is the curve */
    if (l->axis)
        for (int i = 0; i < 4; i++)
            l->axis[1][i] = 0.5 * i;
    return MCF_OK;
}
static int toy_propose(mcf_batch *b, void *const *c, size_t n, mcf_rng *const *r, void *m,
                       double *lr)
{
    (void)b, (void)c, (void)r, (void)m;
    for (size_t k = 0; k < n; k++)
        lr[k] = 0;
    return MCF_OK;
}
static int toy_apply(mcf_batch *b, void *const *c, const void *m, size_t n,
                     const unsigned char *a)
{
    (void)b, (void)c, (void)m, (void)n, (void)a;
    return MCF_OK;
}
static int toy_sweep(mcf_batch *b, void *const *c, size_t n, mcf_rng *const *r, uint64_t *acc)
{
    (void)b, (void)c, (void)r;
    for (size_t k = 0; k < n; k++)
        acc[k] = 2;
    return MCF_OK;
}
/* While the core optimizes: E_L = x0 + p0 p1, O = (p0, p1), dE_L/dp = (p1, p0), values
 * worked out from the chain so that each lands in its place (1 + 2P of them). */
static int toy_measure(mcf_batch *b, void *const *c, size_t n, double *const *v)
{
    for (size_t k = 0; k < n; k++) {
        toy *t = c[k];
        t->measured_variational = mcf_batch_variational(b);
        if (!t->measured_variational)
            continue;
        const double row[5] = {t->x[0] + t->p[0] * t->p[1], t->p[0], t->p[1], t->p[1],
                               t->p[0]};
        memcpy(v[k], row, sizeof row);
    }
    return MCF_OK;
}
static int toy_state(void *chain, mcf_chain_state *st)
{
    toy *t = chain;
    mcf_chain_state_add(st, MCF_STATE_FIXED("size", &t->size, 8), MCF_STATE_CONFIGURATION);
    mcf_chain_state_add(st, MCF_STATE_REALS("x", t->x, 3), MCF_STATE_CONFIGURATION);
    mcf_chain_state_add(st, MCF_STATE_REALS("step", &t->step, 1), 0);
    mcf_chain_state_add(st, MCF_STATE_RNG("measurement stream", &t->mrng), 0);
    st->temperature = &t->T;
    st->step = &t->step;
    st->step_target = 0.4;
    st->step_min = 0.1;
    st->step_max = 3.0;
    mcf_variational *v = &st->variational;
    if (t->no_parameters) {
        v->none = "toy: set [model] p to get parameters";
        return MCF_OK;
    }
    v->p = t->p;
    v->count = 2;
    v->head = "# toy parameters\nform toy\n";
    v->groups = 2;
    v->group[0] = "a";
    v->group_count[0] = 1;
    v->group[1] = "b";
    v->group_count[1] = 1;
    switch (t->broken) { /* test_variational_refusals */
    case 1: v->group_count[1] = 2; break;             /* 3 values for a count of 2 */
    case 2: v->groups = MCF_VARIATIONAL_MAX_GROUPS + 1; break;
    case 3: v->head = NULL; break;
    case 4: v->p = NULL; break;
    case 5: v->group[1] = NULL; break;
    case 6: *v = (mcf_variational){0}; break;         /* none, and no reason */
    default: break;
    }
    return MCF_OK;
}
static int toy_rebuild(void *chain, unsigned what)
{
    toy *t = chain;
    t->rebuilt = what;
    t->rebuilds++;
    return MCF_OK;
}
static int toy_exchange(mcf_batch *b, void *const *c, size_t n, const double *T, double *out)
{
    (void)b, (void)c, (void)T;
    for (size_t k = 0; k < n; k++)
        out[k] = 0;
    return MCF_OK;
}

static const mcf_observable toy_obs[] = {
    {"e", MCF_ROLE_ENERGY, "energy", NULL, 0, "E/N", "t", NULL, NULL},
    {"dos", MCF_ROLE_NONE, "a curve", "E", 0, "ρ(E)", "1/t", "E", "t"},
    {"plain", MCF_ROLE_NONE, "no label", NULL, 0, NULL, NULL, NULL, NULL},
    {NULL, 0, NULL, NULL, 0, NULL, NULL, NULL, NULL}};
/* a parameter with its symbol and unit in its spec (mcf 1.0), and one without */
static const mcf_param_spec toy_params[] = {
    {"W", MCF_PARAM_REAL, "1", 0, 0, 0, NULL, "disorder", .symbol = "W", .unit = "t"},
    {"n", MCF_PARAM_INT, "1", 0, 0, 0, NULL, .doc = "a count"}, {0}};

static mcf_model toy_model(void)
{
    return (mcf_model){.struct_size = sizeof(mcf_model), .move_size = 8,
                       .observables = toy_obs,
                       .energy_unit = "t", .weight_form = MCF_WEIGHT_ACTION,
                       .variational_file_key = "p_file",
                       .state_tag = {'T', 'O', 'Y', '1'},
                       .configuration_tag = {'T', 'O', 'Y', 'C'},
                       .create = toy_create, .destroy = toy_destroy, .layout = toy_layout,
                       .propose = toy_propose, .apply = toy_apply, .sweep = toy_sweep,
                       .measure = toy_measure, .state = toy_state, .rebuild = toy_rebuild,
                       .exchange = toy_exchange};
}

static int open_toy(const mcf_model *v, mcfi_model **m)
{
    mcf_plugin_info info = {.abi_version = MCF_ABI_2, .struct_size = sizeof info,
                            .kind = MCF_PLUGIN_MODEL, .name = "toy", .params = toy_params,
                            .ops = v};
    return mcfi_model_open("mcf-toy.so", &info, m);
}

static const mcf_label *label_of(const mcfi_model *m, const char *name)
{
    for (const mcf_label *l = m->labels; l && l->name; l++)
        if (!strcmp(l->name, name))
            return l;
    return NULL;
}

static void test_open(void)
{
    mcf_model v = toy_model();
    mcfi_model *m = NULL;
    CHECK(open_toy(&v, &m) == MCF_OK && m, "open: %s", mcf_last_error());
    if (!m)
        return;
    CHECK(m->abi == 2 && m->tempering == MCF_TEMPERING_ACTION && m->has_sweep &&
              m->has_anneal && m->has_variational && !m->has_periodic,
          "abi %d tempering %d sweep %d anneal %d variational %d periodic %d", m->abi,
          m->tempering, m->has_sweep, m->has_anneal, m->has_variational, m->has_periodic);
    CHECK(!strcmp(m->observables[1].name, "dos") && !strcmp(m->observables[1].axis, "E") &&
              m->observables[0].role == MCF_ROLE_ENERGY && !m->observables[3].name,
          "the observables' core view");
    const mcf_label *e = label_of(m, "e"), *dos = label_of(m, "dos"), *E = label_of(m, "E"),
                    *W = label_of(m, "W"), *T = label_of(m, "T");
    CHECK(e && !strcmp(e->symbol, "E/N") && !strcmp(e->unit, "t"), "label of e");
    CHECK(dos && !strcmp(dos->unit, "1/t") && E && !strcmp(E->unit, "t"), "curve and axis labels");
    CHECK(W && !strcmp(W->unit, "t") && T && !strcmp(T->unit, "t"), "parameter and T labels");
    CHECK(!label_of(m, "n"), "a parameter without symbol or unit got a label");
    CHECK(!label_of(m, "plain"), "an observable without symbol or unit got a label");
    mcfi_model_close(m);

    /* refusals */
    mcf_model bad = toy_model();
    bad.apply = NULL;
    CHECK(open_toy(&bad, &m) == MCF_EPLUGIN && contains(mcf_last_error(), "'apply' is NULL") &&
              contains(mcf_last_error(), "mcf-toy.so"),
          "no apply: %s", mcf_last_error());
    bad = toy_model();
    bad.struct_size = (uint32_t)offsetof(mcf_model, periodic);
    CHECK(open_toy(&bad, &m) == MCF_EPLUGIN && contains(mcf_last_error(), "struct_size"),
          "a short table: %s", mcf_last_error());
    bad = toy_model();
    bad.weight_form = MCF_WEIGHT_BOLTZMANN;
    bad.exchange = NULL;
    memset(bad.configuration_tag, 0, 4);
    CHECK(open_toy(&bad, &m) == MCF_OK && m->tempering == MCF_TEMPERING_NONE && !m->has_anneal,
          "no exchange op, no configuration tag");
    mcfi_model_close(m);
    bad.exchange = toy_exchange;
    CHECK(open_toy(&bad, &m) == MCF_OK && m->tempering == MCF_TEMPERING_ENERGY,
          "Boltzmann weight with exchange: energies");
    mcfi_model_close(m);
    bad.variational_file_key = NULL; /* no file key: no variational parameters */
    CHECK(open_toy(&bad, &m) == MCF_OK && !m->has_variational && !m->variational_file_key,
          "no variational_file_key: has_variational %d", m ? m->has_variational : -1);
    mcfi_model_close(m);
}

static void test_verbs(void)
{
    mcf_model v = toy_model();
    mcfi_model *m = NULL;
    if (open_toy(&v, &m))
        return;
    void *chain = NULL;
    mcf_rng rng;
    mcf_rng_init(&rng, 1, 2);
    CHECK(MCFI_MODEL(m, create, NULL, NULL, &rng, &chain) == MCF_OK && chain, "create");
    if (!chain)
        return;
    toy *t = chain;
    CHECK(MCFI_MODEL(m, units, chain) == 3, "units");
    double axis[4] = {-1, -1, -1, -1};
    CHECK(MCFI_MODEL(m, curve_points, chain, 1, NULL) == 4 &&
              MCFI_MODEL(m, curve_points, chain, 1, axis) == 4 && axis[0] == 0 &&
              axis[3] == 1.5,
          "curve: points and axis (%g .. %g)", axis[0], axis[3]);

    /* the checkpoint record: tag, then the fields' bytes in order */
    t->x[0] = 0.25, t->x[1] = -1.5, t->x[2] = 3.0, t->step = 0.7;
    mcf_rng_init(&t->mrng, 9, 10);
    mcf_stream out;
    mcf_stream_init_writer(&out);
    CHECK(MCFI_MODEL(m, save, chain, &out) == MCF_OK, "save: %s", mcf_last_error());
    unsigned char want[4 + 8 + 24 + 8 + sizeof(mcf_rng)];
    memcpy(want, "TOY1", 4);
    memcpy(want + 4, &t->size, 8);
    memcpy(want + 12, t->x, 24);
    memcpy(want + 36, &t->step, 8);
    memcpy(want + 44, &t->mrng, sizeof(mcf_rng));
    CHECK(out.size == sizeof want && !memcmp(out.data, want, sizeof want),
          "the record: %zu bytes, expected %zu written by hand", out.size, sizeof want);
    toy saved = *t;
    t->x[1] = 99, t->step = 0.1, t->rebuilds = 0;
    mcf_stream in;
    mcf_stream_init_reader(&in, out.data, out.size);
    CHECK(MCFI_MODEL(m, load, chain, &in) == MCF_OK && t->x[1] == saved.x[1] &&
              t->step == saved.step && t->rebuilds == 1 && t->rebuilt == MCF_REBUILD_LOAD,
          "load: x %g step %g, rebuilds %d (bits %u)", t->x[1], t->step, t->rebuilds,
          t->rebuilt);
    /* a record that is not this model's */
    out.data[0] = 'X';
    mcf_stream_init_reader(&in, out.data, out.size);
    CHECK(MCFI_MODEL(m, load, chain, &in) == MCF_EFORMAT && contains(mcf_last_error(), "toy"),
          "a foreign tag: %s", mcf_last_error());
    mcf_stream_release(&out);

    /* the configuration record: its tag, the CONFIGURATION fields alone */
    mcf_stream_init_writer(&out);
    CHECK(MCFI_MODEL(m, save_configuration, chain, &out) == MCF_OK && out.size == 4 + 8 + 24 &&
              !memcmp(out.data, "TOYC", 4) && !memcmp(out.data + 12, t->x, 24),
          "configuration record: %zu bytes", out.size);
    t->x[2] = -7;
    t->rebuilds = 0;
    mcf_stream_init_reader(&in, out.data, out.size);
    CHECK(MCFI_MODEL(m, load_configuration, chain, &in) == MCF_OK && t->x[2] == 3.0 &&
              t->rebuilt == MCF_REBUILD_CONFIGURATION,
          "load_configuration: x[2] %g, bits %u", t->x[2], t->rebuilt);
    mcf_stream_release(&out);

    /* the step: mcf_adapt_step(step, acceptance, 0.4, 0.1, 3.0) */
    t->step = 1.0;
    MCFI_MODEL(m, adapt, chain, 0.8); /* factor 2 */
    CHECK(t->step == 2.0, "adapt at acceptance 0.8: step %g, expected 2", t->step);
    MCFI_MODEL(m, adapt, chain, 0.9); /* 4 clamped to 3 */
    CHECK(t->step == 3.0, "adapt to the maximum: step %g, expected 3", t->step);
    MCFI_MODEL(m, adapt, chain, 0.1); /* factor 1/2 */
    CHECK(t->step == 1.5, "adapt at acceptance 0.1: step %g, expected 1.5", t->step);

    /* tempering */
    CHECK(MCFI_MODEL(m, set_temperature, chain, 0.75) == MCF_OK && t->T == 0.75 &&
              t->rebuilt == MCF_REBUILD_TEMPERATURE,
          "set_temperature: T %g, bits %u", t->T, t->rebuilt);

    /* variational parameters */
    t->p[0] = 1.25, t->p[1] = -2;
    double p[2] = {0, 0};
    CHECK(MCFI_MODEL(m, variational_count, chain) == 2 &&
              MCFI_MODEL(m, variational_get, chain, p) == MCF_OK && p[0] == 1.25 && p[1] == -2,
          "variational get: %g %g", p[0], p[1]);
    const double q[2] = {0.5, 4};
    CHECK(MCFI_MODEL(m, variational_set, chain, q) == MCF_OK && t->p[0] == 0.5 &&
              t->p[1] == 4 && t->rebuilt == MCF_REBUILD_VARIATIONAL,
          "variational set: %g %g, bits %u", t->p[0], t->p[1], t->rebuilt);
    t->p[1] = 0.1; /* not a short decimal in binary: all 17 digits are written */
    char text[128] = "";
    FILE *f = fmemopen(text, sizeof text, "w");
    CHECK(f && MCFI_MODEL(m, variational_write, chain, f) == MCF_OK, "variational write");
    if (f)
        fclose(f);
    CHECK(!strcmp(text, "# toy parameters\nform toy\na 0.5\nb 0.10000000000000001\n"),
          "the parameter file: '%s'", text);
    /* E_L and its derivatives: measure() with the batch's flag, cleared afterwards */
    mcf_batch *vb = mcf_batch_create();
    t->x[0] = 2;
    double row[5] = {0}, *rows[1] = {row};
    CHECK(vb && MCFI_MODEL(m, variational_local, vb, &chain, 1, rows) == MCF_OK &&
              t->measured_variational == 1 && !mcf_batch_variational(vb),
          "variational_local: measured with the flag %d, flag after %d",
          t->measured_variational, mcf_batch_variational(vb));
    CHECK(row[0] == 2 + 0.5 * 0.1 && row[1] == 0.5 && row[2] == 0.1 && row[3] == 0.1 &&
              row[4] == 0.5,
          "variational_local: E_L %g, O %g %g, dE_L %g %g", row[0], row[1], row[2], row[3],
          row[4]);
    size_t failed = 0;
    double *vals[1] = {NULL};
    CHECK(MCFI_MODEL(m, measure, vb, &chain, 1, vals, &failed) == MCF_OK &&
              t->measured_variational == 0,
          "a plain measure after optimizing: flag %d", t->measured_variational);
    mcf_batch_set_variational(vb, 7);
    CHECK(mcf_batch_variational(vb) == 1 && mcf_batch_variational(NULL) == 0,
          "the batch's flag is 0 or 1, and 0 without a batch");
    mcf_batch_set_variational(NULL, 1); /* no batch: nothing to set, no crash */
    mcf_batch_destroy(vb);
    t->no_parameters = 1;
    CHECK(MCFI_MODEL(m, variational_count, chain) == 0 &&
              MCFI_MODEL(m, variational_write, chain, NULL) == MCF_EINVAL &&
              contains(mcf_last_error(), "[model] p"),
          "why no parameters: %s", mcf_last_error());
    t->no_parameters = 0;

    /* the whole-sweep op */
    uint64_t acc[1] = {0};
    mcf_rng *rngs[1] = {&rng};
    mcf_batch *b = mcf_batch_create();
    CHECK(MCFI_MODEL(m, sweep, b, &chain, 1, rngs, acc) == MCF_OK && acc[0] == 2, "sweep");
    mcf_model nosweep = toy_model();
    nosweep.sweep = NULL;
    mcfi_model *m2 = NULL;
    CHECK(open_toy(&nosweep, &m2) == MCF_OK &&
              MCFI_MODEL(m2, sweep, b, &chain, 1, rngs, acc) == MCF_SWEEP_DECLINED &&
              !m2->has_sweep,
          "no sweep op: declined");
    mcfi_model_close(m2);
    mcf_batch_destroy(b);
    MCFI_MODEL(m, destroy, chain);
    mcfi_model_close(m);
}

/* A description of the variational parameters that does not add up is the model's bug: the
 * chain is refused when it is created (and destroyed), MCF_EPLUGIN naming the model and what
 * is wrong; a chain whose description breaks later is refused by every variational verb. */
static void test_variational_refusals(void)
{
    static const struct {
        int broken;
        const char *says;
    } cases[] = {{1, "hold 3 values, not its count 2"}, {2, "more than 4"},
                 {3, "no head"}, {4, "no array"}, {5, "group 1"}, {6, "no reason"}};
    mcf_model v = toy_model();
    mcfi_model *m = NULL;
    if (open_toy(&v, &m))
        return;
    mcf_rng rng;
    mcf_rng_init(&rng, 1, 2);
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        void *chain = NULL;
        toy_broken = cases[k].broken;
        const int rc = MCFI_MODEL(m, create, NULL, NULL, &rng, &chain);
        CHECK(rc == MCF_EPLUGIN && !chain && toy_live == 0 &&
                  contains(mcf_last_error(), "model toy") &&
                  contains(mcf_last_error(), cases[k].says),
              "broken description %d: rc %d, chains left %d, '%s'", cases[k].broken, rc,
              toy_live, mcf_last_error());
    }
    toy_broken = 0;
    void *chain = NULL;
    CHECK(MCFI_MODEL(m, create, NULL, NULL, &rng, &chain) == MCF_OK && chain, "create");
    if (chain) {
        toy *t = chain;
        double p[2] = {0, 0};
        t->broken = 1;
        CHECK(MCFI_MODEL(m, variational_count, chain) == 0 &&
                  MCFI_MODEL(m, variational_get, chain, p) == MCF_EPLUGIN &&
                  MCFI_MODEL(m, variational_set, chain, p) == MCF_EPLUGIN && t->rebuilds == 0 &&
                  MCFI_MODEL(m, variational_write, chain, NULL) == MCF_EPLUGIN,
              "a description broken after create: '%s'", mcf_last_error());
        MCFI_MODEL(m, destroy, chain);
    }
    mcfi_model_close(m);

    /* parameters without a file key to read them back, refused; none without one, fine */
    v.variational_file_key = NULL;
    if (open_toy(&v, &m))
        return;
    chain = NULL;
    CHECK(MCFI_MODEL(m, create, NULL, NULL, &rng, &chain) == MCF_EPLUGIN && !chain &&
              contains(mcf_last_error(), "no variational_file_key"),
          "parameters and no file key: '%s'", mcf_last_error());
    toy_broken = 6;
    CHECK(MCFI_MODEL(m, create, NULL, NULL, &rng, &chain) == MCF_OK && chain,
          "no parameters and no file key: '%s'", mcf_last_error());
    toy_broken = 0;
    if (chain) {
        CHECK(MCFI_MODEL(m, variational_count, chain) == 0 &&
                  MCFI_MODEL(m, variational_write, chain, NULL) == MCF_EINVAL &&
                  contains(mcf_last_error(), "model toy has no variational parameters"),
              "why none, for a model without parameters: '%s'", mcf_last_error());
        MCFI_MODEL(m, destroy, chain);
    }
    CHECK(toy_live == 0, "%d chains not destroyed", toy_live);
    mcfi_model_close(m);
}

/* the state's field limit is refused with a message naming the field (a model adds fields
 * one by one, and a silent MCF_EINTERNAL left it to guess why) */
static void test_state_limit(void)
{
    mcf_chain_state st = {0};
    double x = 0;
    int rc = MCF_OK;
    for (int k = 0; k < MCF_STATE_MAX_FIELDS && !rc; k++)
        rc = mcf_chain_state_add(&st, MCF_STATE_REALS("x", &x, 1), 0);
    CHECK(rc == MCF_OK && st.n == MCF_STATE_MAX_FIELDS, "%d fields: rc %d, n %zu",
          MCF_STATE_MAX_FIELDS, rc, st.n);
    rc = mcf_chain_state_add(&st, MCF_STATE_REALS("one_too_many", &x, 1), 0);
    CHECK(rc == MCF_EINTERNAL && st.n == MCF_STATE_MAX_FIELDS &&
              contains(mcf_last_error(), "MCF_STATE_MAX_FIELDS") &&
              contains(mcf_last_error(), "one_too_many"),
          "field %d: rc %d, n %zu, '%s'", MCF_STATE_MAX_FIELDS + 1, rc, st.n, mcf_last_error());
}

int main(void)
{
    test_open();
    test_verbs();
    test_variational_refusals();
    test_state_limit();
    return check_exit();
}
