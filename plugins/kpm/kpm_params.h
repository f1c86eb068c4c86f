/* kpm_params.h — the [evaluator] parameters shared by the plugins kpm and kpm-cuda: their
 * defaults, the entries of the declaration and its reading (kpm_config.c).  Included by
 * kpm_core.h at its end (never on its own: it uses kpm_core.h's types); part of
 * mcf_kpm_core, not installed. */
#ifndef MCF_KPM_PARAMS_H
#define MCF_KPM_PARAMS_H

#ifdef __cplusplus
extern "C" {
#endif

/* ---- the [evaluator] parameters, shared by the plugins kpm and kpm-cuda ---------------- */

/* The defaults: as C tokens for kpm_config_default and, stringified, for the spec. */
#define KPM_DEFAULT_MOMENTS 256
#define KPM_DEFAULT_VECTORS 8
#define KPM_DEFAULT_LAMBDA 4
#define KPM_DEFAULT_POINTS 0
#define KPM_DEFAULT_MARGIN 0.01
#define KPM_DEFAULT_BLOCK 8
#define KPM_STR_(x) #x
#define KPM_STR(x) KPM_STR_(x)

/* The entries of the declaration, each followed by a comma, written once for kpm's
 * kpm_param_specs and kpm-cuda's spec (these, then its device keys): moments, vectors,
 * kernel, lambda, energy_points, random, margin, block, extrapolate, gfmc, then mcf 1.1's
 * (kpm_series.h). */
#define KPM_PARAM_SPEC_ENTRIES \
    {"moments", MCF_PARAM_INT, KPM_STR(KPM_DEFAULT_MOMENTS),                                       \
     MCF_PARAM_HAS_MIN | MCF_PARAM_HAS_MAX, 2, (double)KPM_MAX_MOMENTS, NULL,                      \
     .doc = "number M of Chebyshev moments (>= 2); the resolution is about pi a / M, a the "       \
     "half-width of the rescaled spectrum"},                                                       \
    {"vectors", MCF_PARAM_INT, KPM_STR(KPM_DEFAULT_VECTORS), MCF_PARAM_HAS_MIN, 0, 0, NULL,        \
     .doc = "random vectors R of the stochastic trace (DOS, occupation); the error falls as "      \
     "1 / sqrt(R dim); 0 = the exact trace over all dim unit vectors (deterministic, dim / R "     \
     "times the cost: for small lattices, and where fluctuations of the energy are measured)"},    \
    {"kernel", MCF_PARAM_CHOICE, "jackson", MCF_PARAM_NO_SCAN, 0, 0, "jackson|lorentz|none",       \
     .doc = "kernel damping the moments of DOS, LDOS, Green's functions and occupations: jackson " \
     "(positive, near-Gaussian peaks of width pi/M), lorentz (Lorentzian peaks), none (Gibbs "     \
     "oscillations); GFMC with gfmc = real-axis always uses lorentz"},                             \
    {"lambda", MCF_PARAM_REAL, KPM_STR(KPM_DEFAULT_LAMBDA),                                        \
     MCF_PARAM_HAS_MIN | MCF_PARAM_MIN_EXCLUSIVE | MCF_PARAM_FINITE, 0, 0, NULL,                   \
     .doc = "parameter of the Lorentz kernel, g_n = sinh(lambda (1 - n/M)) / sinh(lambda): the "   \
     "broadening is lambda a / M (used by kernel = lorentz and by gfmc = real-axis)"},             \
    {"energy_points", MCF_PARAM_INT, KPM_STR(KPM_DEFAULT_POINTS),                                  \
     MCF_PARAM_HAS_MIN | MCF_PARAM_HAS_MAX, 0, (double)KPM_MAX_POINTS, NULL,                       \
     .doc = "number N >= moments of Chebyshev nodes of the energy grid; 0 means 2 x moments"},     \
    {"random", MCF_PARAM_CHOICE, "phase", MCF_PARAM_NO_SCAN, 0, 0, "phase|gaussian",               \
     .doc = "entries of the random vectors: random phases exp(i phi) or complex Gaussians"},       \
    {"margin", MCF_PARAM_REAL, KPM_STR(KPM_DEFAULT_MARGIN),                                        \
     MCF_PARAM_HAS_MIN | MCF_PARAM_HAS_MAX | MCF_PARAM_MIN_EXCLUSIVE | MCF_PARAM_MAX_EXCLUSIVE,    \
     0, 0.5, NULL,                                                                                 \
     .doc = "rescaling margin: the spectrum is mapped onto [-1 + margin/2, 1 - margin/2]"},        \
    {"block", MCF_PARAM_INT, KPM_STR(KPM_DEFAULT_BLOCK),                                           \
     MCF_PARAM_HAS_MIN | MCF_PARAM_HAS_MAX | MCF_PARAM_NO_SCAN, 1, KPM_MAX_BLOCK, NULL,            \
     .doc = "vectors advanced together (the Hamiltonian is read once per step for all of them); "  \
     "results do not depend on it"},                                                               \
    {"extrapolate", MCF_PARAM_BOOL, "false", MCF_PARAM_NO_SCAN, 0, 0, NULL,                        \
     .doc = "GFMC with gfmc = real-axis: compute 2 x moments and use the two-point estimate "      \
     "2 dS(2M) - dS(M) (error ~ 1/M^2 instead of 1/M, at twice the cost)"},                        \
    {"gfmc", MCF_PARAM_CHOICE, "contour", MCF_PARAM_NO_SCAN, 0, 0, "contour|real-axis",            \
     .doc = "how GFMC computes the action change of a move: contour (log det(1 - G Delta) on an "  \
     "ellipse around the spectrum: every finite-rank change, error falling exponentially "         \
     "with moments and reported) or real-axis (the Lorentz-damped phase on the real axis of "      \
     "the seed thesis: changes that keep the spectrum inside H's bounds only, error ~ "            \
     "lambda a / (M T))"},                                                                \
    KPM_PARAM_SPEC_FORCES

/* The declared parameters (NULL-name terminated): KPM_PARAM_SPEC_ENTRIES. */
KPM_API extern const mcf_param_spec kpm_param_specs[];

/* Reads the validated [evaluator] params into c (and extrapolate); MCF_EINVAL for extrapolate
 * = true with gfmc = contour.  kpm_config_check() (N >= M) is the caller's next step. */
KPM_API int kpm_config_read(const mcf_params *params, kpm_config *c, int *extrapolate);

#ifdef __cplusplus
}
#endif
#endif
