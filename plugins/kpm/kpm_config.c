/* kpm_config.c — the [evaluator] parameters shared by kpm and kpm-cuda: the spec
 * kpm_param_specs (what `mcf describe` shows, and the defaults a run gets), kpm_config's
 * defaults, its checks, and its reading from the parameters.  Every numeric default is
 * written once, in kpm_core.h (KPM_DEFAULT_*), and used by both the spec (its entries,
 * KPM_PARAM_SPEC_ENTRIES, which kpm-cuda's spec extends) and kpm_config_default. */
#include "kpm_core.h"

#include "mcf/error.h"

#include <math.h>

void kpm_config_default(kpm_config *c)
{
    c->moments = KPM_DEFAULT_MOMENTS;
    c->vectors = KPM_DEFAULT_VECTORS;
    c->kernel = KPM_KERNEL_JACKSON;
    c->lambda = KPM_DEFAULT_LAMBDA;
    c->points = KPM_DEFAULT_POINTS;
    c->random = KPM_RANDOM_PHASE;
    c->margin = KPM_DEFAULT_MARGIN;
    c->block = KPM_DEFAULT_BLOCK;
    c->gfmc = KPM_GFMC_CONTOUR;
    c->probing_distance = KPM_DEFAULT_PROBING_DISTANCE;
    c->probes = KPM_DEFAULT_PROBES;
    c->density_tolerance = KPM_DEFAULT_DENSITY_TOLERANCE;
    c->pf_tolerance = KPM_DEFAULT_PF_TOLERANCE;
}

int kpm_config_check(const kpm_config *c)
{
    if (c->moments < 2)
        return mcf_fail(MCF_EINVAL,
                        "kpm: moments = %ld is too small; the Chebyshev expansion needs at "
                        "least 2 moments (typical: 256 to 4096, resolution ~ pi a / moments)",
                        c->moments);
    if (c->moments > KPM_MAX_MOMENTS)
        return mcf_fail(MCF_EINVAL, "kpm: moments = %ld is too large (at most %ld)",
                        c->moments, KPM_MAX_MOMENTS);
    if (c->vectors < 0)
        return mcf_fail(MCF_EINVAL,
                        "kpm: vectors = %ld; the stochastic trace needs at least 1 random "
                        "vector (or 0 for the exact trace over all unit vectors)", c->vectors);
    if (c->kernel != KPM_KERNEL_JACKSON && c->kernel != KPM_KERNEL_LORENTZ &&
        c->kernel != KPM_KERNEL_NONE)
        return mcf_fail(MCF_EINVAL, "kpm: unknown kernel %d; use jackson, lorentz or none",
                        (int)c->kernel);
    if (c->kernel == KPM_KERNEL_LORENTZ && !(c->lambda > 0.0 && isfinite(c->lambda)))
        return mcf_fail(MCF_EINVAL,
                        "kpm: lambda = %g; the Lorentz kernel needs a finite lambda > 0 "
                        "(3 to 5 is customary)", c->lambda);
    if (c->points != 0 && c->points < c->moments)
        return mcf_fail(MCF_EINVAL,
                        "kpm: energy_points = %ld is smaller than moments = %ld; the "
                        "reconstruction needs at least as many Chebyshev nodes as moments "
                        "(set energy_points >= %ld, or 0 for 2 x moments = %ld)",
                        c->points, c->moments, c->moments, 2 * c->moments);
    if (c->points < 0 || c->points > KPM_MAX_POINTS)
        return mcf_fail(MCF_EINVAL, "kpm: energy_points = %ld is out of range [0, %ld]",
                        c->points, KPM_MAX_POINTS);
    if (c->random != KPM_RANDOM_PHASE && c->random != KPM_RANDOM_GAUSSIAN)
        return mcf_fail(MCF_EINVAL, "kpm: unknown random vector kind %d; use phase or gaussian",
                        (int)c->random);
    if (!(c->margin > 0.0 && c->margin < 0.5))
        return mcf_fail(MCF_EINVAL,
                        "kpm: margin = %g is out of range; it must lie in (0, 0.5) "
                        "(0.01 is customary)", c->margin);
    if (c->block < 1 || c->block > KPM_MAX_BLOCK)
        return mcf_fail(MCF_EINVAL, "kpm: block = %ld is out of range; it must lie in [1, %d]",
                        c->block, KPM_MAX_BLOCK);
    return MCF_OK;
}

size_t kpm_config_points(const kpm_config *c)
{
    return c->points > 0 ? (size_t)c->points : 2 * (size_t)c->moments;
}

/* ---- the [evaluator] parameters shared by kpm and kpm-cuda ---------------------------- */

const mcf_param_spec kpm_param_specs[] = {
    KPM_PARAM_SPEC_ENTRIES
    {0}};

int kpm_config_read(const mcf_params *params, kpm_config *c, int *extrapolate)
{
    int kernel, random, gfmc, rc;
    kpm_config_default(c);
    if ((rc = mcf_params_int(params, "moments", &c->moments)) ||
        (rc = mcf_params_int(params, "vectors", &c->vectors)) ||
        (rc = mcf_params_choice(params, "kernel", &kernel)) ||
        (rc = mcf_params_real(params, "lambda", &c->lambda)) ||
        (rc = mcf_params_int(params, "energy_points", &c->points)) ||
        (rc = mcf_params_choice(params, "random", &random)) ||
        (rc = mcf_params_real(params, "margin", &c->margin)) ||
        (rc = mcf_params_int(params, "block", &c->block)) ||
        (rc = mcf_params_bool(params, "extrapolate", extrapolate)) ||
        (rc = mcf_params_choice(params, "gfmc", &gfmc)) ||
        (rc = mcf_params_int(params, "probing_distance", &c->probing_distance)) ||
        (rc = mcf_params_int(params, "probes", &c->probes)) ||
        (rc = mcf_params_real(params, "density_tolerance", &c->density_tolerance)) ||
        (rc = mcf_params_real(params, "pseudofermion_tolerance", &c->pf_tolerance)))
        return rc;
    /* the enums are in the order of the choices (kpm_core.h) */
    c->gfmc = (kpm_gfmc_method)gfmc;
    c->kernel = (kpm_kernel)kernel;
    c->random = (kpm_random)random;
    if (*extrapolate && c->gfmc == KPM_GFMC_CONTOUR)
        return mcf_fail(MCF_EINVAL, "kpm: extrapolate = true belongs to gfmc = real-axis; "
                        "on the contour (the default) the error falls exponentially with "
                        "moments: raise moments instead, or set gfmc = real-axis");
    return MCF_OK;
}

