/* model_ops.c — a model plugin opened for the core (model_ops.h): the checks every model
 * table passes, and the verbs of an ABI-2 model (mcf_model, mcf/model.h), the core's own
 * ABI.  ABI 1's tables go through the adapter, abi1.c. */
#include "model_ops.h"

#include <stdlib.h>
#include <string.h>

#include "mcf/batch.h"
#include "mcf/error.h"

#define V2(m) ((const mcf_model *)(m)->table)

/* ---- the verbs of an ABI-2 model ----------------------------------------------------- */

static int variational_of(const mcfi_model *m, void *chain, mcf_variational *v);

/* A new chain's description of its variational parameters is checked at once, so that a
 * model whose groups do not add up is refused before a run or an optimization starts. */
static int v2_create(const mcfi_model *m, const mcf_params *params,
                     const mcf_services *services, mcf_rng *rng, void **chain)
{
    int rc = V2(m)->create(params, services, rng, chain);
    mcf_variational v;
    if (!rc && (rc = variational_of(m, *chain, &v)) != MCF_OK) {
        V2(m)->destroy(*chain);
        *chain = NULL;
    }
    return rc;
}

static void v2_destroy(const mcfi_model *m, void *chain) { V2(m)->destroy(chain); }

/* layout() asked for the chain's units and the length of observable `index` (and, with
 * `axis`, that curve's axis values); 0 units on failure */
static void v2_layout(const mcfi_model *m, const void *chain, size_t index, double *axis,
                      size_t *units, size_t *points_of_index, size_t *moves)
{
    size_t n = 0;
    while (m->observables[n].name)
        n++;
    size_t *points = calloc(n, sizeof *points);
    double **bufs = axis ? calloc(n, sizeof *bufs) : NULL;
    *units = *points_of_index = *moves = 0;
    if (!points || (axis && !bufs)) {
        free(points);
        free(bufs);
        return;
    }
    for (size_t o = 0; o < n; o++)
        points[o] = 1;
    if (bufs)
        bufs[index] = axis;
    mcf_layout l = {.units = 0, .points = points, .axis = bufs};
    if (V2(m)->layout(chain, &l) == MCF_OK) {
        *units = l.units;
        *moves = l.moves ? l.moves : l.units;
        *points_of_index = points[index];
    }
    free(points);
    free(bufs);
}

static size_t v2_units(const mcfi_model *m, const void *chain)
{
    size_t units, count, moves;
    v2_layout(m, chain, 0, NULL, &units, &count, &moves);
    return units;
}

static size_t v2_moves(const mcfi_model *m, const void *chain)
{
    size_t units, count, moves;
    v2_layout(m, chain, 0, NULL, &units, &count, &moves);
    return moves;
}

static size_t v2_curve_points(const mcfi_model *m, const void *chain, size_t index,
                              double *axis)
{
    size_t units, count, moves;
    v2_layout(m, chain, index, axis, &units, &count, &moves);
    return count;
}

static int v2_propose(const mcfi_model *m, mcf_batch *b, void *const *chains, size_t n,
                      mcf_rng *const *rngs, void *moves, double *log_ratio, size_t *failed)
{
    *failed = n;
    return V2(m)->propose(b, chains, n, rngs, moves, log_ratio);
}

static int v2_apply(const mcfi_model *m, mcf_batch *b, void *const *chains, const void *moves,
                    size_t n, const unsigned char *accepted, size_t *failed)
{
    *failed = n;
    return V2(m)->apply(b, chains, moves, n, accepted);
}

static int v2_sweep(const mcfi_model *m, mcf_batch *b, void *const *chains, size_t n,
                    mcf_rng *const *rngs, uint64_t *accepted)
{
    return V2(m)->sweep ? V2(m)->sweep(b, chains, n, rngs, accepted) : MCF_SWEEP_DECLINED;
}

static int v2_measure(const mcfi_model *m, mcf_batch *b, void *const *chains, size_t n,
                      double *const *values, size_t *failed)
{
    *failed = n;
    return V2(m)->measure(b, chains, n, values);
}

/* the chain's state description (zeroed first) */
static int describe(const mcfi_model *m, void *chain, mcf_chain_state *st)
{
    memset(st, 0, sizeof *st);
    int rc = V2(m)->state(chain, st);
    if (!rc && st->n > MCF_STATE_MAX_FIELDS)
        rc = mcf_fail(MCF_EPLUGIN, "model %s: state() described %zu fields, more than %d",
                      m->name, st->n, MCF_STATE_MAX_FIELDS);
    return rc;
}

static void v2_adapt(const mcfi_model *m, void *chain, double acceptance)
{
    mcf_chain_state st;
    if (!describe(m, chain, &st) && st.step)
        *st.step = mcf_adapt_step(*st.step, acceptance, st.step_target, st.step_min,
                                  st.step_max);
}

static int v2_rebuild(const mcfi_model *m, void *chain, unsigned what)
{
    return V2(m)->rebuild ? V2(m)->rebuild(chain, what) : MCF_OK;
}

/* the checkpoint record's tag, or NULL: a state_tag of zeros writes none */
static const char *state_tag(const mcfi_model *m)
{
    return memcmp(V2(m)->state_tag, "\0\0\0\0", 4) ? V2(m)->state_tag : NULL;
}

static int v2_save(const mcfi_model *m, void *chain, mcf_stream *out)
{
    mcf_chain_state st;
    int rc = describe(m, chain, &st);
    return rc ? rc : mcf_state_save(out, state_tag(m), st.field, st.n);
}

static int v2_load(const mcfi_model *m, void *chain, mcf_stream *in)
{
    mcf_chain_state st;
    int rc = describe(m, chain, &st);
    if (!rc)
        rc = mcf_state_load(in, state_tag(m), m->name, st.field, st.n);
    return rc ? rc : v2_rebuild(m, chain, MCF_REBUILD_LOAD);
}

/* the CONFIGURATION fields alone */
static size_t configuration_fields(const mcf_chain_state *st, mcf_state_field *f)
{
    size_t n = 0;
    for (size_t k = 0; k < st->n; k++)
        if (st->flags[k] & MCF_STATE_CONFIGURATION)
            f[n++] = st->field[k];
    return n;
}

static int v2_save_configuration(const mcfi_model *m, void *chain, mcf_stream *out)
{
    mcf_chain_state st;
    mcf_state_field f[MCF_STATE_MAX_FIELDS];
    int rc = describe(m, chain, &st);
    return rc ? rc
              : mcf_state_save(out, V2(m)->configuration_tag, f, configuration_fields(&st, f));
}

static int v2_load_configuration(const mcfi_model *m, void *chain, mcf_stream *in)
{
    mcf_chain_state st;
    mcf_state_field f[MCF_STATE_MAX_FIELDS];
    int rc = describe(m, chain, &st);
    if (!rc)
        rc = mcf_state_load(in, V2(m)->configuration_tag, m->name, f,
                            configuration_fields(&st, f));
    return rc ? rc : v2_rebuild(m, chain, MCF_REBUILD_CONFIGURATION);
}

static int v2_set_temperature(const mcfi_model *m, void *chain, double T)
{
    mcf_chain_state st;
    int rc = describe(m, chain, &st);
    if (!rc && !st.temperature)
        rc = mcf_fail(MCF_EPLUGIN, "model %s: state() gives no temperature", m->name);
    if (rc)
        return rc;
    *st.temperature = T;
    return v2_rebuild(m, chain, MCF_REBUILD_TEMPERATURE);
}

static int v2_exchange(const mcfi_model *m, mcf_batch *b, void *const *chains, size_t n,
                       const double *T_new, double *out)
{
    return V2(m)->exchange(b, chains, n, T_new, out);
}

static int v2_periodic(const mcfi_model *m, const mcf_params *params, const void *chain,
                       const char *state, mcf_cell *cell)
{
    return V2(m)->periodic(params, chain, state, cell);
}

/* What the core relies on in a chain's mcf_variational (mcf/model.h): the array, the
 * parameter file's head and groups (their counts add up to count), and for a model that
 * has parameters at all (variational_file_key) the reason when this chain has none.
 * MCF_EPLUGIN naming the model: a broken description is the model's bug, not the
 * configuration's. */
static int variational_check(const mcfi_model *m, const mcf_variational *v)
{
    if (v->count && !m->variational_file_key)
        return mcf_fail(MCF_EPLUGIN, "model %s: state() gives %zu variational parameters but "
                        "the model has no variational_file_key", m->name, v->count);
    if (v->count && !v->p)
        return mcf_fail(MCF_EPLUGIN, "model %s: state() gives %zu variational parameters and "
                        "no array", m->name, v->count);
    if (v->count && !v->head)
        return mcf_fail(MCF_EPLUGIN, "model %s: state() gives %zu variational parameters and "
                        "no head of their file", m->name, v->count);
    if (v->groups > MCF_VARIATIONAL_MAX_GROUPS)
        return mcf_fail(MCF_EPLUGIN, "model %s: state() gives %zu groups of variational "
                        "parameters, more than %d", m->name, v->groups,
                        MCF_VARIATIONAL_MAX_GROUPS);
    size_t sum = 0;
    for (size_t g = 0; g < v->groups; g++) {
        if (!v->group[g])
            return mcf_fail(MCF_EPLUGIN, "model %s: state()'s group %zu of variational "
                            "parameters has no name", m->name, g);
        sum += v->group_count[g];
    }
    if (sum != v->count)
        return mcf_fail(MCF_EPLUGIN, "model %s: state()'s groups of variational parameters "
                        "hold %zu values, not its count %zu", m->name, sum, v->count);
    if (!v->count && m->variational_file_key && !v->none)
        return mcf_fail(MCF_EPLUGIN, "model %s: state() gives no variational parameters and "
                        "no reason (mcf_variational.none)", m->name);
    return MCF_OK;
}

/* the chain's variational parameters, from its state description, checked */
static int variational_of(const mcfi_model *m, void *chain, mcf_variational *v)
{
    mcf_chain_state st;
    int rc = describe(m, chain, &st);
    *v = st.variational;
    return rc ? rc : variational_check(m, v);
}

int mcfi_model_variational(const mcfi_model *m, void *chain, mcf_variational *v)
{
    memset(v, 0, sizeof *v);
    if (m->abi != 2)
        return mcf_fail(MCF_EINVAL, "model %s is built for ABI 1: its variational parameters "
                        "are not described to the core", m->name);
    return variational_of(m, chain, v);
}

static size_t v2_variational_count(const mcfi_model *m, void *chain)
{
    mcf_variational v;
    return variational_of(m, chain, &v) ? 0 : v.count;
}

static int v2_variational_get(const mcfi_model *m, void *chain, double *p)
{
    mcf_variational v;
    int rc = variational_of(m, chain, &v);
    if (!rc && v.count)
        memcpy(p, v.p, v.count * sizeof *p);
    return rc;
}

/* the new values into the described array, then the trial function follows them */
static int v2_variational_set(const mcfi_model *m, void *chain, const double *p)
{
    mcf_variational v;
    int rc = variational_of(m, chain, &v);
    if (rc)
        return rc;
    if (v.count)
        memcpy(v.p, p, v.count * sizeof *p);
    return v2_rebuild(m, chain, MCF_REBUILD_VARIATIONAL);
}

/* E_L, O_m and dE_L/dp_m are what measure() writes while the batch says so */
static int v2_variational_local(const mcfi_model *m, mcf_batch *b, void *const *chains,
                                size_t n, double *const *out)
{
    mcf_batch_set_variational(b, 1);
    int rc = V2(m)->measure(b, chains, n, out);
    mcf_batch_set_variational(b, 0);
    return rc;
}

/* The parameter file (mcf/model.h): the head, then one line per group, its name and its
 * values at full precision, so that the model reads back the very bits.  ABI 1's
 * variational_write(chain, NULL) asks why there are no parameters: the model's `none`. */
static int v2_variational_write(const mcfi_model *m, void *chain, FILE *out)
{
    mcf_variational v;
    int rc = variational_of(m, chain, &v);
    if (rc)
        return rc;
    if (!v.count)
        return v.none ? mcf_fail(MCF_EINVAL, "%s", v.none)
                      : mcf_fail(MCF_EINVAL, "model %s has no variational parameters", m->name);
    if (!out)
        return mcf_fail(MCF_EINVAL, "model %s: no file to write its %zu variational parameters "
                        "to", m->name, v.count);
    fputs(v.head, out);
    const double *x = v.p;
    for (size_t g = 0; g < v.groups; g++) {
        fputs(v.group[g], out);
        for (size_t k = 0; k < v.group_count[g]; k++)
            fprintf(out, " %.17g", *x++);
        fputc('\n', out);
    }
    return ferror(out) ? mcf_fail(MCF_EIO, "model %s: error writing the variational "
                                  "parameters", m->name)
                       : MCF_OK;
}

static const mcfi_model_calls abi2_calls = {
    .create = v2_create,
    .destroy = v2_destroy,
    .units = v2_units,
    .moves = v2_moves,
    .curve_points = v2_curve_points,
    .propose = v2_propose,
    .apply = v2_apply,
    .sweep = v2_sweep,
    .measure = v2_measure,
    .adapt = v2_adapt,
    .save = v2_save,
    .load = v2_load,
    .save_configuration = v2_save_configuration,
    .load_configuration = v2_load_configuration,
    .set_temperature = v2_set_temperature,
    .exchange = v2_exchange,
    .periodic = v2_periodic,
    .variational_count = v2_variational_count,
    .variational_get = v2_variational_get,
    .variational_set = v2_variational_set,
    .variational_local = v2_variational_local,
    .variational_write = v2_variational_write,
};

/* ---- opening -------------------------------------------------------------------------- */

/* The core's view of an ABI-2 table's labels: one label list from the observables' and
 * axes' symbols and units, the parameter specs' (mcf 1.0) and "T" in energy_unit (the
 * observables are the plugin's own). */
static int abi2_views(const char *path, const mcf_model *v, const mcf_param_spec *params,
                      mcfi_model *m)
{
    size_t n = 0, np = 0;
    while (v->observables && v->observables[n].name)
        n++;
    while (params && params[np].name)
        np++;
    m->own_labels = calloc(2 * n + np + 2, sizeof *m->own_labels);
    if (!m->own_labels)
        return mcf_fail(MCF_ENOMEM, "%s: out of memory", path);
    size_t nl = 0;
    for (size_t o = 0; o < n; o++) {
        const mcf_observable *x = &v->observables[o];
        if (x->symbol || x->unit)
            m->own_labels[nl++] = (mcf_label){x->name, x->symbol, x->unit};
        if (!x->axis || !(x->axis_symbol || x->axis_unit))
            continue;
        int seen = 0; /* one label per axis name, from the first curve that gives it */
        for (size_t k = 0; k < nl && !seen; k++)
            seen = !strcmp(m->own_labels[k].name, x->axis);
        if (!seen)
            m->own_labels[nl++] = (mcf_label){x->axis, x->axis_symbol, x->axis_unit};
    }
    for (size_t k = 0; k < np; k++)
        if (params[k].symbol || params[k].unit)
            m->own_labels[nl++] = (mcf_label){params[k].name, params[k].symbol, params[k].unit};
    if (v->energy_unit)
        m->own_labels[nl++] = (mcf_label){"T", "T", v->energy_unit};
    m->observables = v->observables;
    m->labels = nl ? m->own_labels : NULL;
    return MCF_OK;
}

static int abi2_open(const char *path, const mcf_model *v, const mcf_param_spec *params,
                     mcfi_model *m)
{
    const size_t size = offsetof(mcf_model, periodic) + sizeof(void *);
    if (v->struct_size < size)
        return mcf_fail(MCF_EPLUGIN, "%s: mcf_model struct_size %u is smaller than ABI 2's "
                        "%zu bytes; rebuild the plugin against these headers", path,
                        v->struct_size, size);
    struct {
        const char *name;
        int missing;
    } req[] = {{"create", !v->create},   {"destroy", !v->destroy}, {"layout", !v->layout},
               {"propose", !v->propose}, {"apply", !v->apply},     {"measure", !v->measure},
               {"state", !v->state}};
    for (size_t k = 0; k < sizeof req / sizeof req[0]; k++)
        if (req[k].missing)
            return mcf_fail(MCF_EPLUGIN, "%s: required model op '%s' is NULL", path,
                            req[k].name);
    m->abi = 2;
    m->calls = &abi2_calls;
    m->table = v;
    m->move_size = v->move_size;
    m->evaluator_kind = v->evaluator_kind;
    m->weight_form = v->weight_form;
    m->tempering = !v->exchange ? MCF_TEMPERING_NONE
                   : v->weight_form == MCF_WEIGHT_BOLTZMANN ? MCF_TEMPERING_ENERGY
                                                             : MCF_TEMPERING_ACTION;
    m->ordered_state = v->ordered_state;
    m->mu_key = v->mu_key;
    m->streams = v->streams;
    m->has_sweep = v->sweep != NULL;
    m->has_anneal = memcmp(v->configuration_tag, "\0\0\0\0", 4) != 0;
    m->has_periodic = v->periodic != NULL;
    m->has_variational = v->variational_file_key != NULL;
    m->variational_file_key = v->variational_file_key;
    return abi2_views(path, v, params, m);
}

/* What every model passes, whatever its ABI: observables, roles, streams (plugin.c checks
 * the labels). */
static int check_model(const char *path, const mcfi_model *m)
{
    if (m->move_size == 0)
        return mcf_fail(MCF_EPLUGIN, "%s: the model's move_size is 0", path);
    const mcf_observable *obs = m->observables;
    if (!obs || !obs[0].name)
        return mcf_fail(MCF_EPLUGIN, "%s: the model declares no observables", path);
    int seen[MCF_ROLE_COUNT] = {0};
    for (size_t k = 0; obs[k].name; k++) {
        int r = (int)obs[k].role;
        if (obs[k].axis && r)
            return mcf_fail(MCF_EPLUGIN, "%s: curve observable '%s' has a role; roles are for "
                            "scalars", path, obs[k].name);
        if (r < 0 || r >= MCF_ROLE_COUNT)
            return mcf_fail(MCF_EPLUGIN, "%s: observable '%s' has an unknown role %d", path,
                            obs[k].name, r);
        if (r && seen[r]++)
            return mcf_fail(MCF_EPLUGIN, "%s: two observables have role %d (at most one each)",
                            path, r);
        for (size_t j = 0; j < k; j++)
            if (!strcmp(obs[j].name, obs[k].name))
                return mcf_fail(MCF_EPLUGIN, "%s: observable '%s' is declared twice", path,
                                obs[k].name);
    }
    return mcf_streams_check(path, m->streams);
}

int mcfi_model_open(const char *path, const mcf_plugin_info *info, mcfi_model **out)
{
    *out = NULL;
    mcfi_model *m = calloc(1, sizeof *m);
    if (!m)
        return mcf_fail(MCF_ENOMEM, "%s: out of memory", path);
    m->name = info->name;
    int rc = info->abi_version == MCF_ABI_2 ? abi2_open(path, info->ops, info->params, m)
                                            : mcfi_abi1_open(path, info->ops, m);
    if (!rc)
        rc = check_model(path, m);
    if (rc) {
        mcfi_model_close(m);
        return rc;
    }
    *out = m;
    return MCF_OK;
}

void mcfi_model_close(mcfi_model *m)
{
    if (!m)
        return;
    free(m->own_observables);
    free(m->own_labels);
    free(m);
}

/* ---- what the program asks of a model plugin (mcf_engine.h) -------------------------- */

int mcfe_model_tempering(const mcf_plugin *model) { return model->model->tempering; }

const mcf_observable *mcfe_model_observables(const mcf_plugin *model)
{
    return model->model->observables;
}

int mcfe_model_has_periodic(const mcf_plugin *model) { return model->model->has_periodic; }

int mcfe_model_create(const mcf_plugin *model, const mcf_params *params,
                      const mcf_services *services, mcf_rng *rng, void **chain)
{
    return MCFI_MODEL(model->model, create, params, services, rng, chain);
}

void mcfe_model_destroy(const mcf_plugin *model, void *chain)
{
    MCFI_MODEL(model->model, destroy, chain);
}

int mcfe_model_periodic(const mcf_plugin *model, const mcf_params *params, const void *chain,
                        const char *state, mcf_cell *cell)
{
    return MCFI_MODEL(model->model, periodic, params, chain, state, cell);
}

int mcfe_model_driven_crystal(const mcf_plugin *model, const mcf_params *params,
                              mcf_cell *crystal, mcf_cell *dipole, mcf_drive_terms *terms)
{
    const mcfi_model *m = model->model;
    const mcf_model *v = m->abi == 2 ? m->table : NULL;
    if (!MCF_HAS(mcf_model, v, driven_crystal))
        return mcf_fail(MCF_EINVAL, "model '%s' describes no driven crystal (its plugin has "
                        "no driven_crystal op, mcf/model.h; two-band has one)", m->name);
    memset(terms, 0, sizeof *terms);
    terms->struct_size = sizeof *terms;
    return v->driven_crystal(params, crystal, dipole, terms);
}
