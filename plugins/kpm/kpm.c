/* kpm.c — the kernel-polynomial-method fermion evaluator "kpm" (CPU, OpenMP).
 *
 * The mathematics lives in the library mcf_kpm_core (kpm_core.h has every formula and
 * lists its files) and the evaluator of mcf/fermion.h (ABI 2), shared with the GPU plugin
 * kpm-cuda, in kpm_ops.c (kpm_ops.h); this file is the CPU backend of kpm_ops (moments by
 * kpm_core's engine, reconstruction by its FFT, the GFMC batch of the real axis), handed
 * to the shared evaluator as the descriptor's app_data.  What the ops compute (spectra
 * gives the grid, dos, ldos, green and their moments; occupation with or without the
 * T-derivatives of occupation_dT):
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
 *   occupation_dT the same, and from the same trace int rho df/dT dE, int E rho df/dT dE
 *                 (T > 0: Chebyshev-Gauss sums, Gauss-Legendre panels at very low T).
 *   change_action GFMC on the contour (kpm_contour.c, gfmc = contour, the default): dS of
 *                 any change of rank <= 8 from log det(1 - G Delta) on a Bernstein ellipse
 *                 around the spectrum plus the residues of the Fermi poles inside it, with
 *                 an error bound (err) falling as e^{-pi T M / a}; warns once per workspace
 *                 and T when the bound exceeds 0.05, naming the moments that would do.
 *                 gfmc = real-axis: the seed thesis's method (kpm_gfmc.c: k^2 diagonal
 *                 Green's functions, always with the Lorentz kernel of `lambda`; with
 *                 `extrapolate`, 2M moments and 2 dS(2M) - dS(M)), rank <= 2 only.
 *   density_matrix f(H) on H's nonzero elements: the Fermi series on probing vectors
 *                 (kpm_ops_density.c; the series step kpm_series_apply on the host engine).
 *   action        S_eff(H) = -sum_nu log(1 + exp(-(eps_nu - mu)/T)) for m points (T, mu)
 *                 per workspace: the exact trace (vectors = 0 required, else MCF_EINVAL
 *                 naming `vectors`) once per workspace and call, then per point the plain
 *                 Chebyshev series (no kernel) of the function, its coefficients from
 *                 K = max(8 M, 1024) Chebyshev-Gauss nodes (kpm_action_series):
 *                 S = dim sum_{n<M} c_n mu_n, err = dim sum_{M<=n<K/2} |c_n| (the truncation
 *                 bound when the coefficients decay, as rho^-n with rho the Bernstein ellipse
 *                 through (mu - b + i pi T)/a; rounding not included).  Deterministic.
 *
 * Scaling is cached per workspace and recomputed whenever h->version changes.  Batches
 * loop over the workspaces in order (the random streams advance the same whatever the
 * batch); the parallelism is inside, over rows, and results do not depend on the thread
 * count.  Memory per workspace: 2 blocks of `block` complex vectors (32 dim block bytes),
 * vectors x moments doubles of moments, and the FFT plan of length 2 N. */
#include "mcf/mcf.h"

#include "kpm_core.h"
#include "kpm_ops.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

typedef struct kpm_ws {
    kpm_ops_ws base;          /* first: the shared head (base.grid is also the FFT plan) */
    kpm_engine *eng;
    kpm_gfmc *gfmc;           /* created on the first change_action on the real axis */
} kpm_ws;

/* ---- the backend of kpm_ops (kpm_ops.h) ----------------------------------------------- */

static int kpm_random_moments(kpm_ops_ws *b, mcf_rng *rng)
{
    kpm_ws *w = (kpm_ws *)b;
    return kpm_stochastic_moments(w->eng, b->h, b->a, b->b, rng, b->cfg.random, b->R, b->M,
                                  b->mu_vec);
}

static int kpm_rows_moments(kpm_ops_ws *b, const size_t *rows, size_t nb)
{
    kpm_ws *w = (kpm_ws *)b;
    return kpm_ldos_moments(w->eng, b->h, b->a, b->b, rows, nb, b->M, b->mu_vec);
}

/* pseudofermion's gradient on the host engine (kpm_series_gradient) */
static int kpm_series_grad(kpm_ops_ws *b, const double *c, size_t Mf, size_t nb, double *x,
                           double *y, double *gd, double *gre, double *gim)
{
    kpm_ws *w = (kpm_ws *)b;
    memcpy(kpm_engine_start(w->eng), x, 2 * b->h->dim * nb * sizeof *x);
    return kpm_series_gradient(w->eng, b->h, b->a, b->b, c, Mf, nb, y, gd, gre, gim);
}

/* density_matrix's series on the host engine: x copied into the start block */
static int kpm_series(kpm_ops_ws *b, const double *c, size_t Mf, size_t nb, double *x,
                      double *y)
{
    kpm_ws *w = (kpm_ws *)b;
    memcpy(kpm_engine_start(w->eng), x, 2 * b->h->dim * nb * sizeof *x);
    return kpm_series_apply(w->eng, b->h, b->a, b->b, c, Mf, nb, y);
}

/* f(ctx, k) for k < n, one chain an OpenMP thread (n > 1; the row loops inside then run on
 * that thread, with the same chunks and sums as alone: the same bits on any thread count);
 * the failure of the lowest k is returned, its message prefixed with `what` and k */
static int each_chain(size_t n, int (*f)(void *ctx, size_t k), void *ctx, const char *what)
{
    int failed = 0;
    size_t bad = 0;
    char msg[1024] = "";
#pragma omp parallel for schedule(dynamic, 1) if (n > 1)
    for (size_t k = 0; k < n; k++) {
        const int r = f(ctx, k);
        if (r) {
#pragma omp critical(kpm_each_chain)
            if (!failed || k < bad) {
                failed = r;
                bad = k;
                snprintf(msg, sizeof msg, "%s", mcf_last_error());
            }
        }
    }
    if (failed)
        return mcf_fail(failed, "kpm: %s of workspace %zu: %s", what, bad, msg);
    return MCF_OK;
}

typedef struct series_jobs {
    kpm_series_job *jobs;
    size_t nb;
} series_jobs;

static int series_job(void *ctx, size_t k)
{
    const series_jobs *a = ctx;
    kpm_series_job *j = &a->jobs[k];
    const int r = j->gd ? kpm_series_grad(j->w, j->c, j->M, a->nb, j->x, j->y, j->gd, j->gre,
                                          j->gim)
                        : kpm_series(j->w, j->c, j->M, a->nb, j->x, j->y);
    j->done = !r;
    return r;
}

/* The pseudofermion jobs of several chains (series_batch): one chain a thread (each_chain)
 * where that keeps more threads busy: the chains are as many as the threads, or as the
 * largest lattice's chunks of rows (KPM_CHUNK; an 8^3 chain's row loop is one chunk on one
 * thread); else declined, and the chains go one by one with their rows threaded. */
static int kpm_series_batch(kpm_series_job *jobs, size_t n, size_t nb)
{
    int threads = 1;
#ifdef _OPENMP
    threads = omp_get_max_threads();
#endif
    size_t largest = 0;
    for (size_t k = 0; k < n; k++)
        largest = jobs[k].w->h->dim > largest ? jobs[k].w->h->dim : largest;
    const size_t chunks = (largest + KPM_CHUNK - 1) / KPM_CHUNK;
    if (threads < 2 || (n < (size_t)threads && n < chunks))
        return MCF_OK;
    series_jobs a = {jobs, nb};
    return each_chain(n, series_job, &a, "pseudofermion");
}

static int kpm_density(kpm_ops_ws *w, const double *mu, size_t nb, double *out)
{
    int rc = MCF_OK;
    for (size_t j = 0; !rc && j < nb; j++)
        rc = kpm_dct_density(w->grid, mu + j * w->M, w->g, w->M, w->a, out + j * w->N);
    return rc;
}

static int kpm_green(kpm_ops_ws *w, const double *mu, size_t nb, double *re, double *im)
{
    int rc = MCF_OK;
    for (size_t j = 0; !rc && j < nb; j++)
        rc = kpm_dct_green(w->grid, mu + j * w->M, NULL, w->g, w->M, w->a, re + j * w->N,
                           im + j * w->N);
    return rc;
}

static int kpm_gfmc_need(kpm_ops_ws *b)
{
    kpm_ws *w = (kpm_ws *)b;
    if (w->gfmc)
        return MCF_OK;
    return kpm_gfmc_create(b->h->dim, b->M, (size_t)b->cfg.points, KPM_KERNEL_LORENTZ,
                           b->cfg.lambda, b->extrapolate, &w->gfmc);
}

/* GFMC for a batch: chains are independent, so with several the batch is shared among
 * OpenMP threads (the row loop inside each recursion then runs on one thread); with one
 * chain the row loop is threaded instead.  Every chain's arithmetic is the same either
 * way, so results do not depend on the thread count.  kpm_gfmc_delta_action checks the
 * change, T and mu. */
typedef struct gfmc_jobs {
    void *const *ws;
    const mcf_local_change *const *changes;
    const double *T, *mu;
    double *dS;
} gfmc_jobs;

static int gfmc_job(void *ctx, size_t k)
{
    const gfmc_jobs *a = ctx;
    kpm_ws *w = a->ws[k];
    return kpm_gfmc_delta_action(w->gfmc, w->base.h, w->base.a, w->base.b, a->changes[k],
                                 a->T[k], a->mu[k], a->dS + k, NULL, NULL);
}

static int kpm_gfmc_batch(mcf_batch *batch, void *const *ws, size_t n,
                          const mcf_local_change *const *changes, const double *T,
                          const double *mu, double *dS)
{
    (void)batch; /* nothing kept per batch: each chain's scratch is its workspace's */
    gfmc_jobs a = {ws, changes, T, mu, dS};
    return each_chain(n, gfmc_job, &a, "change_action");
}

/* the engine (the grid, base.grid, is also the FFT plan) */
static int kpm_init(kpm_ops_ws *b, const mcf_params *params)
{
    (void)params; /* kpm's keys are all kpm_ops' */
    return kpm_engine_create(b->h->dim, b->block, &((kpm_ws *)b)->eng);
}

static void kpm_release(kpm_ops_ws *b)
{
    kpm_ws *w = (kpm_ws *)b;
    kpm_engine_destroy(w->eng);
    kpm_gfmc_destroy(w->gfmc);
}

/* the descriptor's app_data: what the shared evaluator calls for the CPU */
static const kpm_backend kpm_backend_cpu = {
    .name = "kpm",
    .size = sizeof(kpm_ws),
    .admit = NULL, /* any Hamiltonian */
    .init = kpm_init,
    .release = kpm_release,
    .check_changes = 0, /* kpm_gfmc_delta_action checks them, per chain */
    .prepare = NULL,    /* the scaling is all */
    .random_moments = kpm_random_moments,
    .rows_moments = kpm_rows_moments,
    .density = kpm_density,
    .green = kpm_green,
    .gfmc_need = kpm_gfmc_need,
    .gfmc_batch = kpm_gfmc_batch,
    .series = kpm_series,
    .series_gradient = kpm_series_grad,
    .series_batch = kpm_series_batch,
};

/* the shared evaluator reads the backend, never writes it (app_data is not const) */
MCF_PLUGIN_DESCRIPTOR(MCF_PLUGIN_FERMION_EVALUATOR, "kpm", "1.0",
                      "kernel polynomial method (Chebyshev moments, Jackson/Lorentz kernels, "
                      "FFT reconstruction): DOS, LDOS, Green's functions, occupations and GFMC "
                      "action changes, OpenMP",
                      kpm_param_specs, &kpm_ops_evaluator,
                      .app_data = (void *)&kpm_backend_cpu,
                      .auto_priority = 10) /* the CPU choice of evaluator = auto */
