/* kpm_config.c — the [evaluator] parameters shared by kpm and kpm-cuda: the spec
 * kpm_param_specs (what `mcf describe` shows, and the defaults a run gets), kpm_config's
 * defaults, its checks, and its reading from the parameters.  Every numeric default is
 * written once, below, and used by both the spec and kpm_config_default. */
#include "kpm_core.h"

#include "mcf/error.h"

#include <math.h>
#include <string.h>

/* The defaults: as C tokens for kpm_config_default and, stringified, for the spec. */
#define KPM_DEFAULT_MOMENTS 256
#define KPM_DEFAULT_VECTORS 8
#define KPM_DEFAULT_LAMBDA 4
#define KPM_DEFAULT_POINTS 0
#define KPM_DEFAULT_MARGIN 0.01
#define KPM_DEFAULT_BLOCK 8
#define KPM_STR_(x) #x
#define KPM_STR(x) KPM_STR_(x)

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
}

int kpm_config_check(const kpm_config *c)
{
    if (c->moments < 2)
        return mcf_fail(MCF_EINVAL,
                        "kpm: moments = %ld is too small; the Chebyshev expansion needs at "
                        "least 2 moments (typical: 256 to 4096, resolution ~ pi a / moments)",
                        c->moments);
    if (c->moments > (1L << 24))
        return mcf_fail(MCF_EINVAL, "kpm: moments = %ld is too large (at most %ld)",
                        c->moments, 1L << 24);
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
    if (c->points < 0 || c->points > (1L << 26))
        return mcf_fail(MCF_EINVAL, "kpm: energy_points = %ld is out of range [0, %ld]",
                        c->points, 1L << 26);
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
    {"moments", MCF_PARAM_INT, KPM_STR(KPM_DEFAULT_MOMENTS), MCF_PARAM_HAS_MIN, 2, 0, NULL,
     "number M of Chebyshev moments (>= 2); the resolution is about pi a / M, a the "
     "half-width of the rescaled spectrum"},
    {"vectors", MCF_PARAM_INT, KPM_STR(KPM_DEFAULT_VECTORS), MCF_PARAM_HAS_MIN, 0, 0, NULL,
     "random vectors R of the stochastic trace (DOS, occupation); the error falls as "
     "1 / sqrt(R dim); 0 = the exact trace over all dim unit vectors (deterministic, dim / R "
     "times the cost: for small lattices, and where fluctuations of the energy are measured)"},
    {"kernel", MCF_PARAM_CHOICE, "jackson", MCF_PARAM_NO_SCAN, 0, 0, "jackson|lorentz|none",
     "kernel damping the moments of DOS, LDOS, Green's functions and occupations: jackson "
     "(positive, near-Gaussian peaks of width pi/M), lorentz (Lorentzian peaks), none (Gibbs "
     "oscillations); GFMC with gfmc = real-axis always uses lorentz"},
    {"lambda", MCF_PARAM_REAL, KPM_STR(KPM_DEFAULT_LAMBDA),
     MCF_PARAM_HAS_MIN | MCF_PARAM_MIN_EXCLUSIVE, 0, 0, NULL,
     "parameter of the Lorentz kernel, g_n = sinh(lambda (1 - n/M)) / sinh(lambda): the "
     "broadening is lambda a / M (used by kernel = lorentz and by gfmc = real-axis)"},
    {"energy_points", MCF_PARAM_INT, KPM_STR(KPM_DEFAULT_POINTS), MCF_PARAM_HAS_MIN, 0, 0, NULL,
     "number N >= moments of Chebyshev nodes of the energy grid; 0 means 2 x moments"},
    {"random", MCF_PARAM_CHOICE, "phase", MCF_PARAM_NO_SCAN, 0, 0, "phase|gaussian",
     "entries of the random vectors: random phases exp(i phi) or complex Gaussians"},
    {"margin", MCF_PARAM_REAL, KPM_STR(KPM_DEFAULT_MARGIN),
     MCF_PARAM_HAS_MIN | MCF_PARAM_HAS_MAX | MCF_PARAM_MIN_EXCLUSIVE | MCF_PARAM_MAX_EXCLUSIVE,
     0, 0.5, NULL,
     "rescaling margin: the spectrum is mapped onto [-1 + margin/2, 1 - margin/2]"},
    {"block", MCF_PARAM_INT, KPM_STR(KPM_DEFAULT_BLOCK),
     MCF_PARAM_HAS_MIN | MCF_PARAM_HAS_MAX | MCF_PARAM_NO_SCAN, 1, KPM_MAX_BLOCK, NULL,
     "vectors advanced together (the Hamiltonian is read once per step for all of them); "
     "results do not depend on it"},
    {"extrapolate", MCF_PARAM_BOOL, "false", MCF_PARAM_NO_SCAN, 0, 0, NULL,
     "GFMC with gfmc = real-axis: compute 2 x moments and use the two-point estimate "
     "2 dS(2M) - dS(M) (error ~ 1/M^2 instead of 1/M, at twice the cost)"},
    {"gfmc", MCF_PARAM_CHOICE, "contour", MCF_PARAM_NO_SCAN, 0, 0, "contour|real-axis",
     "how GFMC computes the action change of a move: contour (log det(1 - G Delta) on an "
     "ellipse around the spectrum: every finite-rank change, error falling exponentially "
     "with moments and reported) or real-axis (the Lorentz-damped phase on the real axis of "
     "the seed thesis: changes that keep the spectrum inside H's bounds only, error ~ "
     "lambda a / (M T))"},
    {NULL, 0, NULL, 0, 0, 0, NULL, NULL}};

int kpm_config_read(const mcf_params *params, kpm_config *c, int *extrapolate)
{
    const char *kernel = NULL, *random = NULL, *gfmc = NULL;
    int rc;
    kpm_config_default(c);
    if ((rc = mcf_params_int(params, "moments", &c->moments)) ||
        (rc = mcf_params_int(params, "vectors", &c->vectors)) ||
        (rc = mcf_params_string(params, "kernel", &kernel)) ||
        (rc = mcf_params_real(params, "lambda", &c->lambda)) ||
        (rc = mcf_params_int(params, "energy_points", &c->points)) ||
        (rc = mcf_params_string(params, "random", &random)) ||
        (rc = mcf_params_real(params, "margin", &c->margin)) ||
        (rc = mcf_params_int(params, "block", &c->block)) ||
        (rc = mcf_params_bool(params, "extrapolate", extrapolate)) ||
        (rc = mcf_params_string(params, "gfmc", &gfmc)))
        return rc;
    if (!strcmp(gfmc, "contour"))
        c->gfmc = KPM_GFMC_CONTOUR;
    else if (!strcmp(gfmc, "real-axis"))
        c->gfmc = KPM_GFMC_REAL_AXIS;
    else
        return mcf_fail(MCF_EINVAL, "kpm: gfmc = %s; use contour or real-axis", gfmc);
    if (*extrapolate && c->gfmc == KPM_GFMC_CONTOUR)
        return mcf_fail(MCF_EINVAL, "kpm: extrapolate = true belongs to gfmc = real-axis; "
                        "on the contour (the default) the error falls exponentially with "
                        "moments: raise moments instead, or set gfmc = real-axis");
    if (!strcmp(kernel, "jackson"))
        c->kernel = KPM_KERNEL_JACKSON;
    else if (!strcmp(kernel, "lorentz"))
        c->kernel = KPM_KERNEL_LORENTZ;
    else if (!strcmp(kernel, "none"))
        c->kernel = KPM_KERNEL_NONE;
    else
        return mcf_fail(MCF_EINVAL, "kpm: kernel = %s; use jackson, lorentz or none", kernel);
    if (!strcmp(random, "phase"))
        c->random = KPM_RANDOM_PHASE;
    else if (!strcmp(random, "gaussian"))
        c->random = KPM_RANDOM_GAUSSIAN;
    else
        return mcf_fail(MCF_EINVAL, "kpm: random = %s; use phase or gaussian", random);
    return MCF_OK;
}

