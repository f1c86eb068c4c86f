/* abi1.c — the adapter: a model built for ABI 1 (mcf_model_ops, SDK 0.1 to 0.5) under the
 * verbs the core calls (model_ops.h).  The only file of the core that knows ABI 1's model
 * ops.  Every verb makes the calls the core made before ABI 2, in the same order with the
 * same random draws, so an ABI-1 model gives the same bits as it always did. */
#include "mcf/abi1_model.h" /* ABI 1's table: private to mcf since 1.0 (core/sdk/abi1) */
#include "model_ops.h"

#include <stdlib.h>
#include <string.h>

#include "mcf/error.h"

#define OPS(m) ((const mcf_model_ops *)(m)->table)
/* an appended op that the plugin's table covers and sets */
#define HAS(m, field) MCF_HAS(mcf_model_ops, OPS(m), field)

/* ---- the verbs ---------------------------------------------------------------------- */

static int a1_create(const mcfi_model *m, const mcf_params *params,
                     const mcf_services *services, mcf_rng *rng, void **chain)
{
    return OPS(m)->create(params, services, rng, chain);
}

static void a1_destroy(const mcfi_model *m, void *chain) { OPS(m)->destroy(chain); }

static size_t a1_units(const mcfi_model *m, const void *chain) { return OPS(m)->units(chain); }

static size_t a1_curve_points(const mcfi_model *m, const void *chain, size_t index,
                              double *axis)
{
    return OPS(m)->curve_points(chain, index, axis);
}

/* propose() per chain, then one (batch_)log_ratio for the batch: ABI 1's step */
static int a1_propose(const mcfi_model *m, mcf_batch *b, void *const *chains, size_t n,
                      mcf_rng *const *rngs, void *moves, double *log_ratio, size_t *failed)
{
    const mcf_model_ops *ops = OPS(m);
    unsigned char *mv = moves;
    for (size_t k = 0; k < n; k++) {
        int rc = ops->propose(chains[k], rngs[k], mv + k * ops->move_size);
        if (rc) {
            *failed = k;
            return rc;
        }
    }
    *failed = n;
    int rc = HAS(m, batch_log_ratio) ? ops->batch_log_ratio(b, chains, moves, n, log_ratio)
                                     : ops->log_ratio(chains, moves, n, log_ratio);
    return rc ? mcf_fail_prefix(rc, "log_ratio") : MCF_OK;
}

static int a1_apply(const mcfi_model *m, mcf_batch *b, void *const *chains, const void *moves,
                    size_t n, const unsigned char *accepted, size_t *failed)
{
    (void)b;
    const mcf_model_ops *ops = OPS(m);
    const unsigned char *mv = moves;
    for (size_t k = 0; k < n; k++) {
        const void *move = mv + k * ops->move_size;
        if (accepted[k]) {
            int rc = ops->accept(chains[k], move);
            if (rc) {
                *failed = k;
                return rc;
            }
        } else if (ops->reject) {
            ops->reject(chains[k], move);
        }
    }
    return MCF_OK;
}

/* begin_sweep, then the whole-sweep op or MCF_SWEEP_DECLINED */
static int a1_sweep(const mcfi_model *m, mcf_batch *b, void *const *chains, size_t n,
                    mcf_rng *const *rngs, uint64_t *accepted)
{
    (void)b;
    const mcf_model_ops *ops = OPS(m);
    if (ops->begin_sweep) {
        int rc = ops->begin_sweep(chains, n);
        if (rc)
            return mcf_fail_prefix(rc, "begin_sweep");
    }
    return HAS(m, sweep) ? ops->sweep(chains, n, rngs, accepted) : MCF_SWEEP_DECLINED;
}

static int a1_measure(const mcfi_model *m, mcf_batch *b, void *const *chains, size_t n,
                      double *const *values, size_t *failed)
{
    const mcf_model_ops *ops = OPS(m);
    *failed = n;
    if (HAS(m, batch_measure))
        return ops->batch_measure(b, chains, n, values);
    if (ops->struct_size >= offsetof(mcf_model_ops, measure_batch) + sizeof(void *) &&
        ops->measure_batch)
        return ops->measure_batch(chains, n, values);
    for (size_t k = 0; k < n; k++) {
        int rc = ops->measure(chains[k], values[k]);
        if (rc) {
            *failed = k;
            return rc;
        }
    }
    return MCF_OK;
}

static void a1_adapt(const mcfi_model *m, void *chain, double acceptance)
{
    if (OPS(m)->adapt)
        OPS(m)->adapt(chain, acceptance);
}

static int a1_save(const mcfi_model *m, void *chain, mcf_stream *out)
{
    return OPS(m)->save(chain, out);
}

static int a1_load(const mcfi_model *m, void *chain, mcf_stream *in)
{
    return OPS(m)->load(chain, in);
}

static int a1_save_configuration(const mcfi_model *m, void *chain, mcf_stream *out)
{
    return OPS(m)->save_configuration(chain, out);
}

static int a1_load_configuration(const mcfi_model *m, void *chain, mcf_stream *in)
{
    return OPS(m)->load_configuration(chain, in);
}

static int a1_set_temperature(const mcfi_model *m, void *chain, double T)
{
    return OPS(m)->set_temperature(chain, T);
}

/* energies one by one, or the (batch_)exchange_action of the batch */
static int a1_exchange(const mcfi_model *m, mcf_batch *b, void *const *chains, size_t n,
                       const double *T_new, double *out)
{
    const mcf_model_ops *ops = OPS(m);
    if (m->tempering == MCF_TEMPERING_ENERGY) {
        for (size_t k = 0; k < n; k++)
            out[k] = ops->energy(chains[k]);
        return MCF_OK;
    }
    return HAS(m, batch_exchange_action)
               ? ops->batch_exchange_action(b, chains, n, T_new, out)
               : ops->exchange_action(chains, n, T_new, out);
}

static int a1_periodic(const mcfi_model *m, const mcf_params *params, const void *chain,
                       const char *state, mcf_cell *cell)
{
    return OPS(m)->periodic(params, chain, state, cell);
}

static size_t a1_variational_count(const mcfi_model *m, void *chain)
{
    return OPS(m)->variational_count(chain);
}

static int a1_variational_get(const mcfi_model *m, void *chain, double *p)
{
    return OPS(m)->variational_get(chain, p);
}

static int a1_variational_set(const mcfi_model *m, void *chain, const double *p)
{
    return OPS(m)->variational_set(chain, p);
}

static int a1_variational_local(const mcfi_model *m, mcf_batch *b, void *const *chains,
                                size_t n, double *const *out)
{
    (void)b;
    return OPS(m)->variational_local(chains, n, out);
}

static int a1_variational_write(const mcfi_model *m, void *chain, FILE *out)
{
    return OPS(m)->variational_write(chain, out);
}

static const mcfi_model_calls abi1_calls = {
    .create = a1_create,
    .destroy = a1_destroy,
    .units = a1_units,
    .moves = a1_units,
    .curve_points = a1_curve_points,
    .propose = a1_propose,
    .apply = a1_apply,
    .sweep = a1_sweep,
    .measure = a1_measure,
    .adapt = a1_adapt,
    .save = a1_save,
    .load = a1_load,
    .save_configuration = a1_save_configuration,
    .load_configuration = a1_load_configuration,
    .set_temperature = a1_set_temperature,
    .exchange = a1_exchange,
    .periodic = a1_periodic,
    .variational_count = a1_variational_count,
    .variational_get = a1_variational_get,
    .variational_set = a1_variational_set,
    .variational_local = a1_variational_local,
    .variational_write = a1_variational_write,
};

/* ---- opening an ABI-1 table --------------------------------------------------------- */

/* the first ABI's model ops: a shorter table is refused */
#define MODEL_OPS_MIN_SIZE (offsetof(mcf_model_ops, adapt) + sizeof(void *))

/* How parallel tempering weighs an exchange: set_temperature with energy() (exp(-H/T)) or
 * with (batch_)exchange_action, which wins when both are there. */
static int tempering_of(const mcf_model_ops *ops)
{
    if (ops->struct_size < offsetof(mcf_model_ops, energy) + sizeof ops->energy ||
        !ops->set_temperature)
        return MCF_TEMPERING_NONE;
    if (MCF_HAS(mcf_model_ops, ops, exchange_action) ||
        MCF_HAS(mcf_model_ops, ops, batch_exchange_action))
        return MCF_TEMPERING_ACTION;
    return ops->energy ? MCF_TEMPERING_ENERGY : MCF_TEMPERING_NONE;
}

/* The core's view of ABI 1's observables (mcf_observable_spec: ABI 2's mcf_observable
 * without symbols and units, which ABI 1 gives in its label list) into m's own storage. */
static int observables_of(const char *path, const mcf_model_ops *ops, mcfi_model *m)
{
    size_t n = 0;
    while (ops->observables && ops->observables[n].name)
        n++;
    m->own_observables = calloc(n + 1, sizeof *m->own_observables);
    if (!m->own_observables)
        return mcf_fail(MCF_ENOMEM, "%s: out of memory", path);
    for (size_t o = 0; o < n; o++) {
        const mcf_observable_spec *x = &ops->observables[o];
        m->own_observables[o] = (mcf_observable){.name = x->name, .role = x->role,
                                                 .doc = x->doc, .axis = x->axis,
                                                 .flags = x->flags};
    }
    m->observables = m->own_observables;
    return MCF_OK;
}

int mcfi_abi1_open(const char *path, const void *table, mcfi_model *m)
{
    const mcf_model_ops *ops = table;
    if (ops->struct_size < MODEL_OPS_MIN_SIZE)
        return mcf_fail(MCF_EPLUGIN, "%s: model ops struct_size %u is smaller than ABI 1's "
                        "%zu bytes; rebuild the plugin against these headers", path,
                        ops->struct_size, (size_t)MODEL_OPS_MIN_SIZE);
    struct {
        const char *name, *or_else;
        int missing;
    } req[] = {
        {"create", "", !ops->create},   {"destroy", "", !ops->destroy},
        {"units", "", !ops->units},     {"propose", "", !ops->propose},
        {"log_ratio", " and so is batch_log_ratio",
         !ops->log_ratio && !MCF_HAS(mcf_model_ops, ops, batch_log_ratio)},
        {"accept", "", !ops->accept},
        {"measure", " and so is batch_measure",
         !ops->measure && !MCF_HAS(mcf_model_ops, ops, batch_measure)},
        {"save", "", !ops->save},       {"load", "", !ops->load},
    };
    for (size_t k = 0; k < sizeof req / sizeof req[0]; k++)
        if (req[k].missing)
            return mcf_fail(MCF_EPLUGIN, "%s: required model op '%s' is NULL%s", path,
                            req[k].name, req[k].or_else);
    const int has_curve_points =
        ops->struct_size >= offsetof(mcf_model_ops, curve_points) + sizeof(void *) &&
        ops->curve_points;
    for (size_t k = 0; ops->observables && ops->observables[k].name; k++)
        if (ops->observables[k].axis && !has_curve_points)
            return mcf_fail(MCF_EPLUGIN, "%s: observable '%s' is a curve but the model has no "
                            "curve_points op", path, ops->observables[k].name);
    m->abi = 1;
    m->calls = &abi1_calls;
    m->table = ops;
    m->move_size = ops->move_size;
    m->labels = MCF_HAS(mcf_model_ops, ops, labels) ? ops->labels : NULL;
    m->evaluator_kind =
        ops->struct_size >= offsetof(mcf_model_ops, evaluator_kind) + sizeof ops->evaluator_kind
            ? ops->evaluator_kind
            : 0;
    m->weight_form = MCF_HAS(mcf_model_ops, ops, weight_form) ? ops->weight_form : 0;
    m->tempering = tempering_of(ops);
    if (MCF_HAS(mcf_model_ops, ops, mu_key)) {
        m->ordered_state = ops->ordered_state;
        m->mu_key = ops->mu_key;
    }
    m->streams = MCF_HAS(mcf_model_ops, ops, streams) ? ops->streams : NULL;
    m->has_sweep = ops->begin_sweep || MCF_HAS(mcf_model_ops, ops, sweep);
    m->has_anneal = MCF_HAS(mcf_model_ops, ops, save_configuration) &&
                    MCF_HAS(mcf_model_ops, ops, load_configuration);
    m->has_periodic = MCF_HAS(mcf_model_ops, ops, periodic);
    if (MCF_HAS(mcf_model_ops, ops, variational_file_key) && ops->variational_count &&
        ops->variational_get && ops->variational_set && ops->variational_local &&
        ops->variational_write) {
        m->has_variational = 1;
        m->variational_file_key = ops->variational_file_key;
    }
    return observables_of(path, ops, m);
}
