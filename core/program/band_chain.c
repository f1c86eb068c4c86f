/* band_chain.c — `mcf band`'s state configuration (band_chain.h): chain 0 of a run of the
 * [model] at [run] seed, as the crystal that repeats its L^d box.
 *
 * The chain is made as a run makes chain 0: mcfe_chain_services (seed, index 0, the random
 * stream (seed, 0)) and the model's create with the [model] values, at [band] temperature
 * when given (a run's chain 0 has the first of [schedule] temperatures).  A fermion model
 * binds its evaluator in create and refuses to exist without one, so the chain gets ed at
 * its defaults, which computes nothing until asked (its workspace holds dim doubles); its
 * max_dim (4096) bounds the box.  The model's periodic op with state NULL describes the
 * chain, which is destroyed at once: the cell is all that is kept. */
#include "band_chain.h"

#include "mcf_engine.h"

int mcfi_band_chain_cell(mcf_config *c, const mcf_plugin *model,
                         const mcf_params *model_params, const mcf_section sec[2],
                         mcf_cell *cell)
{
    mcf_params rp, bp, mp = *model_params, ep;
    long seed = 0;
    mcfe_section_params(&sec[0], c->path, &rp);
    mcfe_section_params(&sec[1], c->path, &bp);
    int rc = mcf_params_int(&rp, "seed", &seed);
    if (!rc && mcfe_section_text(&sec[1], "temperature")) {
        mp.has_temperature = 1;
        rc = mcf_params_real(&bp, "temperature", &mp.temperature);
    }
    mcf_plugin *ed = NULL;
    mcf_section eds = {0};
    if (!rc && mcfe_model_evaluator_kind(model) == MCF_PLUGIN_FERMION_EVALUATOR) {
        mcf_axis *axes = NULL;
        size_t n_axes = 0;
        rc = mcfe_plugin_open("ed", MCF_PLUGIN_FERMION_EVALUATOR, &ed);
        if (!rc) /* a section no band configuration has: ed's defaults */
            rc = mcfe_section_check(c, "ed (the chain's evaluator)", ed->info->params,
                                    "evaluator ed", 1, &eds, &axes, &n_axes);
        mcfe_axes_free(axes, n_axes);
        mcfe_section_params(&eds, c->path, &ep);
    }
    mcf_services services;
    mcf_rng rng;
    void *chain = NULL;
    if (!rc) {
        mcfe_chain_services((uint64_t)seed, 0, ed ? ed->info : NULL, ed ? &ep : NULL,
                            &services, &rng);
        mcfe_model_services(model, &services);
        mcf_clear_error();
        if ((rc = mcfe_model_create(model, &mp, &services, &rng, &chain)))
            chain = NULL;
    }
    if (!rc)
        rc = mcfe_model_periodic(model, &mp, chain, NULL, cell);
    if (chain)
        mcfe_model_destroy(model, chain);
    mcfe_section_release(&eds);
    if (ed)
        mcfe_plugin_close(ed);
    if (rc && mp.has_temperature)
        return mcf_fail_prefix(rc, "configuration: chain 0 of a run at [run] seed = %ld, "
                               "[band] temperature = %g", seed, mp.temperature);
    return rc ? mcf_fail_prefix(rc, "configuration: chain 0 of a run at [run] seed = %ld, "
                                "no [band] temperature (a model that reads one at create gets "
                                "it there, as a run from [schedule] temperatures)", seed)
              : MCF_OK;
}
