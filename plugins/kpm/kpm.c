/* kpm.c — the kernel-polynomial-method fermion evaluator "kpm" (CPU, OpenMP).
 *
 * The mathematics lives in kpm_core.c (see kpm_core.h for every formula); this file is the
 * glue to mcf/fermion.h:
 *
 *   energy grid   the N = energy_points Chebyshev nodes x_k = cos(pi (k + 1/2) / N),
 *                 ascending, at E = a x + b with a, b from mcf_hamiltonian_scaling(margin)
 *                 of the Hamiltonian's current bounds (fixed bounds: one grid for every
 *                 realization);
 *   dos           stochastic trace over `vectors` random vectors (random phases or complex
 *                 Gaussians; vectors = 0: the exact trace over the dim unit vectors, no
 *                 randomness) drawn from the chain's stream, `block` vectors advanced
 *                 together, the kernel-damped Chebyshev series summed on the grid by FFT;
 *                 normalized per state (mu_0 = <r|r> / dim: exactly 1 for phases);
 *   ldos          moments <r|T_n(H~)|r> of unit vectors, exact (no randomness);
 *   green         G_rr(E + i0) from the same moments, -Im G / pi = the LDOS;
 *   occupation    int rho f dE and int E rho f dE of the stochastic DOS expansion (closed
 *                 forms at T = 0, Gauss-Legendre on the Fermi edge for T > 0).
 *   delta_action  GFMC (kpm_gfmc.c): dS from the k^2 diagonal Green's functions of the
 *                 change's vectors, one block of vectors per change; with `extrapolate`,
 *                 2M moments and the two-point estimate 2 dS(2M) - dS(M).  Always with
 *                 the Lorentz kernel of `lambda`, whatever `kernel` says: it makes G(E + i
 *                 eta), whose determinant d has a smooth phase (the Jackson-damped G does
 *                 not, and its d can vanish near the real axis); `kernel` still applies to
 *                 dos/ldos/green/occupation, where Jackson's positivity matters (the
 *                 Lorentzian tails would bias the energy).  Warns once per workspace and T
 *                 when lambda a / M is coarser than T.
 *
 * Scaling is cached per workspace and recomputed whenever h->version changes.  Batches
 * loop over the workspaces in order (the random streams advance the same whatever the
 * batch); the parallelism is inside, over rows, and results do not depend on the thread
 * count.  Memory per workspace: 2 blocks of `block` complex vectors (32 dim block bytes),
 * vectors x moments doubles of moments, and the FFT plan of length 2 N. */
#include "mcf/mcf.h"

#include "kpm_core.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct kpm_ws {
    const mcf_hamiltonian *h; /* borrowed */
    kpm_config cfg;
    size_t M, N, R, block;
    kpm_engine *eng;
    kpm_dct *dct;
    double *g;                /* M kernel coefficients */
    double *mu_vec;           /* max(R, block) x M moments */
    double *mu;               /* M: the mean over vectors */
    int scaled;
    uint64_t version;         /* h->version of a, b */
    double a, b;
    int extrapolate;
    kpm_gfmc *gfmc;           /* created on the first delta_action */
    double warned_T;          /* the last T the resolution warning was given for */
} kpm_ws;

/* ---- workspace -------------------------------------------------------------------- */

static void kpm_destroy(void *p)
{
    kpm_ws *w = p;
    if (!w)
        return;
    kpm_engine_destroy(w->eng);
    kpm_dct_destroy(w->dct);
    kpm_gfmc_destroy(w->gfmc);
    free(w->g);
    free(w->mu_vec);
    free(w->mu);
    free(w);
}

static int kpm_create(const mcf_params *params, const mcf_hamiltonian *h, void **out)
{
    *out = NULL;
    if (!h || h->dim < 1)
        return mcf_fail(MCF_EINVAL, "kpm: no Hamiltonian (or an empty one) was given");
    kpm_config c;
    int extrapolate = 0;
    int rc = kpm_config_read(params, &c, &extrapolate);
    if (!rc)
        rc = kpm_config_check(&c);
    if (rc)
        return mcf_fail_prefix(rc, "[%s] in %s", mcf_params_section(params),
                               mcf_params_origin(params));
    kpm_ws *w = calloc(1, sizeof *w);
    if (!w)
        return mcf_fail(MCF_ENOMEM, "kpm: out of memory for a workspace");
    w->h = h;
    w->cfg = c;
    w->extrapolate = extrapolate;
    w->M = (size_t)c.moments;
    w->N = kpm_config_points(&c);
    w->R = (size_t)c.vectors;
    w->block = (size_t)c.block;
    const size_t rows = w->R > w->block ? w->R : w->block;
    if ((rc = kpm_engine_create(h->dim, w->block, &w->eng)) ||
        (rc = kpm_dct_create(w->N, w->M, &w->dct))) {
        kpm_destroy(w);
        return rc;
    }
    w->g = malloc(w->M * sizeof *w->g);
    w->mu_vec = malloc(rows * w->M * sizeof *w->mu_vec);
    w->mu = malloc(w->M * sizeof *w->mu);
    if (!w->g || !w->mu_vec || !w->mu) {
        const size_t M = w->M;
        kpm_destroy(w);
        return mcf_fail(MCF_ENOMEM, "kpm: out of memory for %zu x %zu moments", rows, M);
    }
    kpm_kernel_coefficients(c.kernel, c.lambda, w->M, w->g);
    *out = w;
    return MCF_OK;
}

/* a and b of the current Hamiltonian (recomputed when its version changed) */
static void kpm_scale(kpm_ws *w)
{
    if (!w->scaled || w->version != w->h->version) {
        mcf_hamiltonian_scaling(w->h, w->cfg.margin, &w->a, &w->b);
        w->version = w->h->version;
        w->scaled = 1;
    }
}

static size_t kpm_energy_points(const void *p) { return ((const kpm_ws *)p)->N; }

static int kpm_energies(void *p, double *E)
{
    kpm_ws *w = p;
    kpm_scale(w);
    kpm_dct_energies(w->dct, w->a, w->b, E);
    return MCF_OK;
}

/* ---- ops ---------------------------------------------------------------------------- */

static int kpm_check_batch(void *const *ws, size_t n, const char *what)
{
    for (size_t k = 0; k < n; k++)
        if (!ws[k])
            return mcf_fail(MCF_EINVAL, "kpm: %s: workspace %zu of the batch is NULL", what, k);
    return MCF_OK;
}

/* vectors = 0: the exact trace (1/dim) sum_r <r|T_n(H~)|r> over the unit vectors, `block`
 * rows at a time, into w->mu (no randomness) */
static int kpm_exact_trace(kpm_ws *w)
{
    const size_t dim = w->h->dim, M = w->M, B = w->block;
    size_t rows[KPM_MAX_BLOCK];
    for (size_t n = 0; n < M; n++)
        w->mu[n] = 0.0;
    for (size_t r0 = 0; r0 < dim; r0 += B) {
        const size_t nb = dim - r0 < B ? dim - r0 : B;
        for (size_t j = 0; j < nb; j++)
            rows[j] = r0 + j;
        int rc = kpm_ldos_moments(w->eng, w->h, w->a, w->b, rows, nb, M, w->mu_vec);
        if (rc)
            return rc;
        for (size_t j = 0; j < nb; j++)
            for (size_t n = 0; n < M; n++)
                w->mu[n] += w->mu_vec[j * M + n];
    }
    for (size_t n = 0; n < M; n++)
        w->mu[n] /= (double)dim;
    return MCF_OK;
}

/* the mean stochastic moments of one workspace into w->mu (exact with vectors = 0) */
static int kpm_trace(kpm_ws *w, mcf_rng *rng)
{
    kpm_scale(w);
    if (w->R == 0)
        return kpm_exact_trace(w);
    int rc = kpm_stochastic_moments(w->eng, w->h, w->a, w->b, rng, w->cfg.random, w->R, w->M,
                                    w->mu_vec);
    if (rc)
        return rc;
    kpm_moments_mean(w->R, w->M, w->mu_vec, w->mu, NULL);
    return MCF_OK;
}

static int kpm_dos(void *const *ws, size_t n, mcf_rng *const *rngs, double *const *dos)
{
    int rc = kpm_check_batch(ws, n, "dos");
    if (rc)
        return rc;
    if (n && !rngs)
        return mcf_fail(MCF_EINVAL, "kpm: dos: the stochastic trace needs the chains' random "
                        "streams, but rngs is NULL");
    for (size_t k = 0; k < n; k++) {
        kpm_ws *w = ws[k];
        if ((rc = kpm_trace(w, rngs[k])) ||
            (rc = kpm_dct_density(w->dct, w->mu, w->g, w->M, w->a, dos[k])))
            return mcf_fail_prefix(rc, "kpm: dos of workspace %zu", k);
    }
    return MCF_OK;
}

/* LDOS or Green's functions of rows, block by block */
static int kpm_rows(void *const *ws, size_t n, const size_t *const *rows, size_t n_rows,
                    double *const *out, double *const *re, double *const *im,
                    const char *what)
{
    int rc = kpm_check_batch(ws, n, what);
    if (rc)
        return rc;
    for (size_t k = 0; k < n; k++) {
        kpm_ws *w = ws[k];
        kpm_scale(w);
        const size_t P = w->N, M = w->M;
        for (size_t r0 = 0; r0 < n_rows; r0 += w->block) {
            const size_t nb = n_rows - r0 < w->block ? n_rows - r0 : w->block;
            rc = kpm_ldos_moments(w->eng, w->h, w->a, w->b, rows[k] + r0, nb, M, w->mu_vec);
            for (size_t j = 0; !rc && j < nb; j++) {
                const double *mu = w->mu_vec + j * M;
                const size_t off = (r0 + j) * P;
                rc = out ? kpm_dct_density(w->dct, mu, w->g, M, w->a, out[k] + off)
                         : kpm_dct_green(w->dct, mu, NULL, w->g, M, w->a, re[k] + off,
                                         im[k] + off);
            }
            if (rc)
                return mcf_fail_prefix(rc, "kpm: %s of workspace %zu", what, k);
        }
    }
    return MCF_OK;
}

static int kpm_ldos(void *const *ws, size_t n, const size_t *const *rows, size_t n_rows,
                    double *const *out)
{
    return kpm_rows(ws, n, rows, n_rows, out, NULL, NULL, "ldos");
}

static int kpm_green(void *const *ws, size_t n, const size_t *const *rows, size_t n_rows,
                     double *const *re, double *const *im)
{
    return kpm_rows(ws, n, rows, n_rows, NULL, re, im, "green");
}

static int kpm_occupation_op(void *const *ws, size_t n, mcf_rng *const *rngs, double mu,
                             double T, double *density, double *energy)
{
    int rc = kpm_check_batch(ws, n, "occupation");
    if (rc)
        return rc;
    if (n && !rngs)
        return mcf_fail(MCF_EINVAL, "kpm: occupation: the stochastic trace needs the chains' "
                        "random streams, but rngs is NULL");
    for (size_t k = 0; k < n; k++) {
        kpm_ws *w = ws[k];
        if ((rc = kpm_trace(w, rngs[k])) ||
            (rc = kpm_occupation(w->mu, w->g, w->M, w->a, w->b, mu, T, density + k,
                                 energy + k)))
            return mcf_fail_prefix(rc, "kpm: occupation of workspace %zu", k);
    }
    return MCF_OK;
}

/* GFMC for a batch: chains are independent, so with several the batch is shared among
 * OpenMP threads (the row loop inside each recursion then runs on one thread); with one
 * chain the row loop is threaded instead.  Every chain's arithmetic is the same either
 * way, so results do not depend on the thread count. */
static int kpm_delta_action(void *const *ws, size_t n, const mcf_local_change *const *changes,
                            const double *T, const double *mu, double *dS)
{
    int rc = kpm_check_batch(ws, n, "delta_action");
    if (rc)
        return rc;
    for (size_t k = 0; k < n; k++) {
        kpm_ws *w = ws[k];
        kpm_scale(w);
        if (!w->gfmc &&
            (rc = kpm_gfmc_create(w->h->dim, w->M, (size_t)w->cfg.points, KPM_KERNEL_LORENTZ,
                                  w->cfg.lambda, w->extrapolate, &w->gfmc)))
            return mcf_fail_prefix(rc, "kpm: delta_action of workspace %zu", k);
        kpm_gfmc_warn_resolution(kpm_gfmc_resolution(w->gfmc, w->a), T[k], w->M,
                                 w->extrapolate, &w->warned_T, "kpm");
    }
    int failed = 0;
    size_t bad = 0;
    char msg[1024] = "";
#pragma omp parallel for schedule(dynamic, 1) if (n > 1)
    for (size_t k = 0; k < n; k++) {
        kpm_ws *w = ws[k];
        int r = kpm_gfmc_delta_action(w->gfmc, w->h, w->a, w->b, changes[k], T[k], mu[k],
                                      dS + k, NULL, NULL);
        if (r) {
#pragma omp critical(kpm_delta_action_error)
            if (!failed || k < bad) {
                failed = r;
                bad = k;
                snprintf(msg, sizeof msg, "%s", mcf_last_error());
            }
        }
    }
    if (failed)
        return mcf_fail(failed, "kpm: delta_action of workspace %zu: %s", bad, msg);
    return MCF_OK;
}

static const mcf_fermion_ops kpm_ops = {
    .struct_size = sizeof(mcf_fermion_ops),
    .create = kpm_create,
    .destroy = kpm_destroy,
    .energy_points = kpm_energy_points,
    .energies = kpm_energies,
    .dos = kpm_dos,
    .ldos = kpm_ldos,
    .green = kpm_green,
    .occupation = kpm_occupation_op,
    .delta_action = kpm_delta_action,
};

static const mcf_plugin_info kpm_info = {
    .abi_version = MCF_ABI_VERSION,
    .struct_size = sizeof(mcf_plugin_info),
    .kind = MCF_PLUGIN_FERMION_EVALUATOR,
    .name = "kpm",
    .version = "1.0",
    .summary = "kernel polynomial method (Chebyshev moments, Jackson/Lorentz kernels, FFT "
               "reconstruction): DOS, LDOS, Green's functions, occupations and GFMC action "
               "changes, OpenMP",
    .params = kpm_param_specs,
    .ops = &kpm_ops,
    .auto_priority = 10, /* the CPU choice of evaluator = auto */
};

MCF_PLUGIN(kpm_info)
