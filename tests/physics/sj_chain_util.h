/* sj_chain_util.h — what the tests that call the slater-jastrow model's verbs directly share
 * (test_sj_jastrow.c, test_sj_configuration.c): the model and the planewave evaluator opened
 * as a run opens them, chains made as a run makes chain 0 (mcfe_chain_services, the model's
 * create), and the verbs a sweep uses (sweep, propose, apply) and measure, in a batch of the
 * test's own whose evaluator is planewave.  Include after check.h, test_params.h and the
 * core's chain.h, internal.h, model_ops.h. */
#ifndef MCF_SJ_CHAIN_UTIL_H
#define MCF_SJ_CHAIN_UTIL_H

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <string.h>

static mcf_plugin *planewave;
static const mcf_plugin *model_info; /* slater-jastrow, for its services */
static const mcfi_model *md;       /* slater-jastrow as the core calls it */
static mcf_batch *batch;           /* the batched verbs' (its evaluator: planewave) */
static const mcf_param_spec *specs;

/* Opens planewave and slater-jastrow and makes the batch; 0 on success (checked). */
static inline int sj_util_open(mcf_plugin **model)
{
    int rc = mcfe_plugin_open("planewave", MCF_PLUGIN_ORBITAL_EVALUATOR, &planewave);
    CHECK(rc == MCF_OK, "loading planewave: %s", mcf_last_error());
    *model = NULL;
    rc = rc ? rc : mcfe_plugin_open("slater-jastrow", MCF_PLUGIN_MODEL, model);
    CHECK(rc == MCF_OK, "loading slater-jastrow: %s", mcf_last_error());
    if (rc)
        return rc;
    md = (*model)->model;
    model_info = *model;
    specs = (*model)->info->params;
    batch = mcf_batch_create();
    CHECK(batch != NULL, "out of memory for a batch");
    if (!batch)
        return MCF_ENOMEM;
    mcf_batch_set_evaluator(batch, planewave->info, "slater-jastrow");
    return MCF_OK;
}

/* The batch (before the evaluator closes: its keep slots' release), then the plugins. */
static inline void sj_util_close(mcf_plugin *model)
{
    mcf_batch_destroy(batch);
    if (model)
        mcfe_plugin_close(model);
    if (planewave)
        mcfe_plugin_close(planewave);
}

/* one chain as a run makes chain 0 */
typedef struct sjc {
    test_params *mp, *ep;
    mcf_services services;
    mcf_rng rng;
    void *chain;
    size_t n, P;
} sjc;

static inline void sjc_free(sjc *c)
{
    if (c->chain)
        MCFI_MODEL(md, destroy, c->chain);
    test_params_free(c->mp);
    test_params_free(c->ep);
    memset(c, 0, sizeof *c);
}

/* creates the chain of `seed` with the [model] keys "key", "value", ..., NULL (evaluator
 * planewave); the create's return code (the message in mcf_last_error) */
static inline int sjc_make(sjc *c, uint64_t seed, ...)
{
    const char *kv[24] = {NULL};
    va_list ap;
    va_start(ap, seed);
    for (int i = 0; i < 23; i++)
        if (!(kv[i] = va_arg(ap, const char *)))
            break;
    va_end(ap);
    memset(c, 0, sizeof *c);
    c->mp = test_params_make(specs, "test.ini", kv[0], kv[1], kv[2], kv[3], kv[4], kv[5],
                             kv[6], kv[7], kv[8], kv[9], kv[10], kv[11], kv[12], kv[13],
                             kv[14], kv[15], kv[16], kv[17], kv[18], kv[19], kv[20], kv[21],
                             (const char *)NULL);
    c->mp->p.section = "model";
    c->ep = test_params_make(planewave->info->params, "test.ini", (const char *)NULL);
    mcfe_chain_services(seed, 0, planewave->info, &c->ep->p, &c->services, &c->rng);
    mcfe_model_services(model_info, &c->services);
    int rc = c->mp->ok && c->ep->ok
                 ? MCFI_MODEL(md, create, &c->mp->p, &c->services, &c->rng, &c->chain)
                 : MCF_EINVAL;
    if (rc) {
        c->chain = NULL;
        return rc;
    }
    c->n = MCFI_MODEL(md, units, c->chain);
    c->P = MCFI_MODEL(md, variational_count, c->chain);
    return MCF_OK;
}

/* variational_local of the chain into out (1 + 2P values) */
static inline int local(sjc *c, double *out)
{
    void *ch[1] = {c->chain};
    double *rows[1] = {out};
    int rc = MCFI_MODEL(md, variational_local, batch, ch, 1, rows);
    CHECK(rc == MCF_OK, "variational_local: %s", mcf_last_error());
    return rc;
}

static inline int set_p(sjc *c, const double *p)
{
    int rc = MCFI_MODEL(md, variational_set, c->chain, p);
    CHECK(rc == MCF_OK, "variational_set: %s", mcf_last_error());
    return rc;
}

/* the sweep verb, which draws the sweep's trial moves and must decline (the core's loop
 * makes the moves with the planewave evaluator) */
static inline int sweep_start(sjc *c)
{
    void *ch[1] = {c->chain};
    mcf_rng *rngs[1] = {&c->rng};
    uint64_t accepted = 0;
    int rc = MCFI_MODEL(md, sweep, batch, ch, 1, rngs, &accepted);
    if (rc == MCF_SWEEP_DECLINED)
        return MCF_OK;
    CHECK(0, "sweep: returned %d, not MCF_SWEEP_DECLINED: %s", rc, rc ? mcf_last_error() : "");
    return rc ? rc : MCF_EINTERNAL;
}

/* the move of the turn and its log ratio (propose); again for the same turn: the same */
static inline int propose(sjc *c, void *move, double *lr)
{
    void *ch[1] = {c->chain};
    mcf_rng *rngs[1] = {&c->rng};
    size_t failed;
    return MCFI_MODEL(md, propose, batch, ch, 1, rngs, move, lr, &failed);
}

/* the core's decision on the proposed move (apply) */
static inline int decide(sjc *c, const void *move, int accept)
{
    void *ch[1] = {c->chain};
    const unsigned char acc[1] = {(unsigned char)accept};
    size_t failed;
    return MCFI_MODEL(md, apply, batch, ch, move, 1, acc, &failed);
}

/* sweeps of Metropolis through the core's verbs, as the core makes them */
static inline int metropolis(sjc *c, int sweeps)
{
    uint64_t move[16];
    if (md->move_size > sizeof move)
        return MCF_EINTERNAL;
    for (int s = 0; s < sweeps; s++) {
        int rc = sweep_start(c);
        for (size_t k = 0; !rc && k < c->n; k++) {
            double lr;
            rc = propose(c, move, &lr);
            if (rc)
                break;
            rc = decide(c, move, lr >= 0 || mcf_rng_uniform(&c->rng) < exp(lr));
        }
        if (rc) {
            CHECK(0, "Metropolis sweep: %s", mcf_last_error());
            return rc;
        }
    }
    return MCF_OK;
}

/* measure of the chain: its observables (energy, kinetic, potential, energy_sq) into v */
static inline int sjc_measure(sjc *c, double *v)
{
    void *ch[1] = {c->chain};
    double *rows[1] = {v};
    size_t failed;
    int rc = MCFI_MODEL(md, measure, batch, ch, 1, rows, &failed);
    CHECK(rc == MCF_OK, "measure: %s", mcf_last_error());
    return rc;
}

#endif
