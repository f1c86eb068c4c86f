/* band_calls.c — a band evaluator's ops over either ABI (mcf/band.h): an ABI-2 table
 * (mcf_band_evaluator) as it is, an ABI-1 one (mcf_band_ops) without the batch and the
 * app_data, which ABI 1 did not have. */
#include "mcf/abi1_band.h"
#include "mcf/band.h"

#include "mcf/model.h"
#include "mcf/plugin.h"

static int abi2(const mcf_plugin_info *e)
{
    return e->abi_version == MCF_ABI_2;
}

static const mcf_band_evaluator *v2(const mcf_plugin_info *e)
{
    return (const mcf_band_evaluator *)e->ops;
}

static const mcf_band_ops *v1(const mcf_plugin_info *e)
{
    return (const mcf_band_ops *)e->ops;
}

int mcf_band_create(const mcf_plugin_info *e, const mcf_params *params, const mcf_periodic *p,
                    void **ws)
{
    return abi2(e) ? v2(e)->create(params, p, MCF_PLUGIN_INFO_HAS(e, app_data) ? e->app_data
                                                                               : NULL, ws)
                   : v1(e)->create(params, p, ws);
}

void mcf_band_destroy(const mcf_plugin_info *e, void *ws)
{
    if (!ws)
        return;
    if (abi2(e))
        v2(e)->destroy(ws);
    else
        v1(e)->destroy(ws);
}

void mcf_band_range(const mcf_plugin_info *e, const void *ws, double *lowest, double *highest)
{
    if (abi2(e))
        v2(e)->range(ws, lowest, highest);
    else
        v1(e)->range(ws, lowest, highest);
}

int mcf_band_dos(const mcf_plugin_info *e, mcf_batch *b, void *ws, size_t n, const double *E,
                 double *dos, double *idos, double *orbital)
{
    return abi2(e) ? v2(e)->dos(b, ws, n, E, dos, idos, orbital)
                   : v1(e)->dos(ws, n, E, dos, idos, orbital);
}

int mcf_band_occupation(const mcf_plugin_info *e, mcf_batch *b, void *ws, double mu,
                        double *electrons, double *energy)
{
    return abi2(e) ? v2(e)->occupation(b, ws, mu, electrons, energy)
                   : v1(e)->occupation(ws, mu, electrons, energy);
}

int mcf_band_fermi_level(const mcf_plugin_info *e, mcf_batch *b, void *ws, double electrons,
                         double *mu)
{
    return abi2(e) ? v2(e)->fermi_level(b, ws, electrons, mu)
                   : v1(e)->fermi_level(ws, electrons, mu);
}
