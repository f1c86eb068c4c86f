/* anderson_measure.c — the measurements of the Anderson model: per disorder realization the
 * DOS, the typical DOS and the LDOS, all curves over E computed by the configured fermion
 * evaluator.
 *
 * Observables (curves over E, on the evaluator's grid; per state, each integrates to 1):
 *   dos          the DOS of the realization (a stochastic trace for kpm, exact for ed),
 *                averaged over realizations.
 *   typical_dos  rho_typ(E) = exp< log rho_i(E) >, the geometric mean of the LDOS over
 *                sites and realizations (MCF_OBS_GEOMETRIC_MEAN: the model measures, per
 *                realization, the mean of log rho_i(E) over `typical_sites` distinct
 *                sites drawn uniformly; the core averages the logs and exponentiates).
 *                rho_typ / rho falls to 0 at the Anderson transition (W_c = 16.5 t on the
 *                cubic lattice) as the LDOS breaks up into the isolated peaks of
 *                localized states.
 *   ldos         the arithmetic mean of the LDOS of the sites listed in `ldos_sites`,
 *                averaged over realizations; with ldos_sites = none (the default, no list:
 *                the core refuses an empty value), the arithmetic mean
 *                of the LDOS over the same sampled sites as typical_dos (an estimate of
 *                the DOS from the very sites whose geometric mean is typical_dos, so that
 *                typical_dos / ldos compares like with like).  Observables are declared
 *                statically, so the curve exists in every run; it cannot be left out.
 *   dos_moments, dos_moments_var, moment_scale (MCF_FERMION_MOMENT_OBSERVABLES) and
 *   ldos_moments, curves over n: with an evaluator that has moments (kpm, kpm-cuda; 0
 *                points, not measured, with ed), the Chebyshev moments of the very trace
 *                behind dos, their per-vector variance, the scaling (a, b), and the mean
 *                over ldos's sites of their exact LDOS moments: `mcf dos DIR` rebuilds
 *                dos and ldos from them with another kernel or grid.  typical_dos cannot be
 *                rebuilt (a geometric mean is not linear in the moments).
 * All of them come from anderson_measure(): one ldos and one dos call of the evaluator for the
 * chains of a batch, with the argument arrays carved from the core's batch scratch
 * (mcf_batch_scratch).
 *
 * The measurement stream ("measurement" of anderson_streams, anderson.c), kept in
 * the chain, draws the sampled sites of typical_dos and the random vectors of a stochastic
 * evaluator. */
#include "anderson_internal.h"

#include <math.h>
#include <string.h>

/* The LDOS is clamped at this floor before its logarithm is taken, only to keep
 * log rho_i(E) finite: a kernel-broadened LDOS is positive in exact arithmetic (Jackson
 * and Lorentz kernels), but where it is tiny (far from every level of a localized site) the
 * Chebyshev sum may round to 0 or a slightly negative value, and with kernel = none it
 * oscillates around 0.  A clamped value enters as log(1e-300) = -690.8, so a kernel that
 * goes negative drags the typical DOS down: use jackson (or lorentz) for typical_dos. */
#define ANDERSON_LDOS_FLOOR 1e-300

size_t anderson_curve_points(const void *chain, size_t index, double *axis)
{
    const anderson_chain *c = chain;
    if (index == OBS_SPECTRAL_MOMENTS) {
        const size_t P = c->Ms ? MCF_SPECTRAL_POINTS(c->kpath->points, c->Ms) : 0;
        for (size_t k = 0; axis && k < P; k++)
            axis[k] = (double)k;
        return P;
    }
    if (index == OBS_SIGMA_XX_MOMENTS || index == OBS_SIGMA_XY_MOMENTS) {
        const size_t P = c->Mr ? MCF_RESPONSE_POINTS(c->Mr) : 0;
        for (size_t k = 0; axis && k < P; k++)
            axis[k] = (double)k;
        return P;
    }
    if (index >= OBS_DOS_MOMENTS && index < OBS_LDOS_MOMENTS)
        return mcf_fermion_moment_points(&c->ev, c->ws, index - OBS_DOS_MOMENTS, axis);
    if (index == OBS_LDOS_MOMENTS) /* over n, like dos_moments */
        return mcf_fermion_moment_points(&c->ev, c->ws, 0, axis);
    /* the other curves live on the evaluator's grid */
    if (axis)
        memcpy(axis, c->E, c->points * sizeof *axis);
    return c->points;
}

/* where the moment curves start in a chain's values: after the three curves over E */
static double *anderson_moments_at(const anderson_chain *c, double *values)
{
    return values + 3 * c->points;
}

/* Draws c->n_typical distinct sites uniformly into c->rows[0..n_typical) (Floyd's
 * algorithm: every subset equally likely), from the measurement stream.  All sites, in
 * order, when n_typical = N (nothing to sample). */
static void anderson_sample_sites(anderson_chain *c)
{
    const size_t k = c->n_typical, n = c->n;
    if (k == n) {
        for (size_t i = 0; i < n; i++)
            c->rows[i] = i;
        return;
    }
    size_t m = 0;
    for (size_t j = n - k; j < n; j++) {
        size_t s = (size_t)mcf_rng_below(&c->mrng, (uint64_t)j + 1);
        if (c->mark[s])
            s = j;
        c->mark[s] = 1;
        c->rows[m++] = s;
    }
    for (size_t q = 0; q < k; q++)
        c->mark[c->rows[q]] = 0;
}

/* Turns the LDOS curves in c->ldos_buf into the typical_dos and ldos values. */
static int anderson_reduce(const anderson_chain *c, double *values)
{
    const size_t P = c->points, S = c->n_typical;
    const double *buf = c->ldos_buf;
    const double *dos = values + OBS_DOS * P;
    double *typical = values + OBS_TYPICAL * P, *ldos = values + OBS_LDOS * P;
    for (size_t e = 0; e < P; e++) {
        if (!isfinite(dos[e]))
            return mcf_fail(MCF_EPLUGIN, "anderson: evaluator %s returned DOS = %g at E = %g "
                            "(chain %llu, realization %llu)", c->ev.name, dos[e], c->E[e],
                            (unsigned long long)c->chain_index,
                            (unsigned long long)c->realizations);
    }
    for (size_t j = 0; j < S + c->n_ldos; j++)
        for (size_t e = 0; e < P; e++)
            if (!isfinite(buf[j * P + e]))
                return mcf_fail(MCF_EPLUGIN, "anderson: evaluator %s returned LDOS = %g at "
                                "site %zu, E = %g (chain %llu, realization %llu)", c->ev.name,
                                buf[j * P + e], c->rows[j], c->E[e],
                                (unsigned long long)c->chain_index,
                                (unsigned long long)c->realizations);
    for (size_t e = 0; e < P; e++) {
        double sum_log = 0, sum = 0;
        for (size_t j = 0; j < S; j++) {
            const double x = buf[j * P + e];
            sum_log += log(x > ANDERSON_LDOS_FLOOR ? x : ANDERSON_LDOS_FLOOR);
            sum += x;
        }
        typical[e] = sum_log / (double)S;
        if (c->n_ldos) {
            sum = 0;
            for (size_t j = S; j < S + c->n_ldos; j++)
                sum += buf[j * P + e];
            ldos[e] = sum / (double)c->n_ldos;
        } else {
            ldos[e] = sum / (double)S;
        }
    }
    /* ldos_moments: the mean over the same sites as ldos, after dos_moments (M), its
     * variance (M) and moment_scale (2) */
    if (c->M) {
        const size_t M = c->M, j0 = c->n_ldos ? S : 0, nj = c->n_ldos ? c->n_ldos : S;
        double *mu = anderson_moments_at(c, values) + 2 * M + 2;
        for (size_t m = 0; m < M; m++) {
            double sum = 0;
            for (size_t j = j0; j < j0 + nj; j++)
                sum += c->ldos_mu[j * M + m];
            mu[m] = sum / (double)nj;
        }
    }
    return MCF_OK;
}

/* The conductivity's moment curves of n chains (c->Mr > 0 for all: one configuration), after
 * the DOS, from the measurement stream (mcf_fermion_response_curves).  p: 6 n pointers of
 * the batch's scratch. */
static int anderson_response(mcf_fermion_batch *a, void *const *chains, size_t n,
                             double *const *values, void **p)
{
    const mcf_hamiltonian **jx = (const mcf_hamiltonian **)p, **jy = jx + n;
    double **xx = (double **)(p + 2 * n), **xy = xx + n;
    const double **tail = (const double **)(p + 4 * n);
    mcf_rng **rngs = (mcf_rng **)(p + 5 * n);
    for (size_t k = 0; k < n; k++) {
        anderson_chain *c = chains[k];
        xx[k] = values[k] + 3 * c->points + (c->M ? 3 * c->M + 2 : 0);
        xy[k] = xx[k] + MCF_RESPONSE_POINTS(c->Mr);
        a->ws[k] = c->ws;
        rngs[k] = &c->mrng;
        jx[k] = c->jx;
        jy[k] = c->jy;
        tail[k] = c->response_tail;
    }
    a->rngs = rngs;
    const int rc = mcf_fermion_response_curves(a, n, ((anderson_chain *)chains[0])->Mr, jx, jy,
                                               xx, xy, tail);
    return rc ? mcf_fail_prefix(rc, "anderson") : MCF_OK;
}

/* One evaluator call for all chains of the batch (a GPU evaluator gets them at once); the
 * LDOS call groups chains by their row count, which differs only when typical_sites is a
 * scan axis.  The argument arrays come from the batch's scratch, in one call.  With an
 * evaluator that has moments (c->M > 0, the same for every chain of a batch: one
 * evaluator) the LDOS comes with the rows' moments, and the DOS with its moments from the
 * same random vectors (mcf_fermion_dos_moments). */
int anderson_measure(mcf_batch *batch, void *const *chains, size_t n, double *const *values)
{
    if (n == 0)
        return MCF_OK;
    /* n workspaces, streams, outputs, row lists, moment outputs, LDOS moments and scales,
     * anderson_response's 6 n, then n "done" flags */
    void **ws = mcf_batch_scratch(batch, 13 * n * sizeof(void *) + n);
    if (!ws)
        return mcf_fail_prefix(MCF_ENOMEM, "anderson: measuring %zu chains", n);
    mcf_rng **rngs = (mcf_rng **)(ws + n);
    double **out = (double **)(ws + 2 * n);
    const size_t **rows = (const size_t **)(ws + 3 * n);
    double **mom = (double **)(ws + 4 * n), **lmu = (double **)(ws + 5 * n);
    double **lscale = (double **)(ws + 6 * n);
    unsigned char *done = (unsigned char *)(ws + 13 * n);
    memset(done, 0, n);
    const anderson_chain *c0 = chains[0];
    /* the evaluator's calls, with the batch that knows the run's evaluator */
    mcf_fermion_batch a = {.ws = ws, .rngs = rngs, .batch = batch};
    /* per chain, from its measurement stream: first the sampled sites, then (inside the
     * evaluator's dos()) the random vectors; so each stream advances the same way whatever
     * the batch.  The LDOS comes first: an exact evaluator then diagonalizes once, for the
     * eigenvectors, and dos() reuses the eigenvalues. */
    for (size_t k = 0; k < n; k++)
        anderson_sample_sites(chains[k]);
    int rc;
    for (size_t first = 0; first < n; first++) {
        if (done[first])
            continue;
        const size_t n_rows = ((anderson_chain *)chains[first])->n_typical +
                              ((anderson_chain *)chains[first])->n_ldos;
        size_t m = 0;
        for (size_t k = first; k < n; k++) {
            anderson_chain *c = chains[k];
            if (done[k] || c->n_typical + c->n_ldos != n_rows)
                continue;
            done[k] = 1;
            ws[m] = c->ws;
            rows[m] = c->rows;
            out[m] = c->ldos_buf;
            lmu[m] = c->ldos_mu;
            /* a and b go where moment_scale's values are; dos_moments writes the same */
            lscale[m] = anderson_moments_at(c, values[k]) + 2 * c->M;
            m++;
        }
        mcf_spectra s = {.rows = rows, .n_rows = n_rows, .ldos = out,
                         .ldos_moments = c0->M ? lmu : NULL,
                         .moment_scale = c0->M ? lscale : NULL};
        if ((rc = mcf_fermion_spectra(&a, m, &s)))
            return mcf_fail_prefix(rc, "anderson: LDOS");
    }
    for (size_t k = 0; k < n; k++) {
        anderson_chain *c = chains[k];
        ws[k] = c->ws;
        rngs[k] = &c->mrng;
        out[k] = values[k] + OBS_DOS * c->points;
        mom[k] = anderson_moments_at(c, values[k]);
    }
    /* the DOS, and with moments the DOS moments of the very same random vectors */
    if ((rc = mcf_fermion_dos_moments(&a, n, out, mom)))
        return mcf_fail_prefix(rc, "anderson");
    for (size_t k = 0; k < n; k++)
        if ((rc = anderson_reduce(chains[k], values[k])))
            return rc;
    if (c0->Mr && (rc = anderson_response(&a, chains, n, values, ws + 7 * n)))
        return rc;
    if (!c0->Ms)
        return MCF_OK;
    /* the Bloch states' moments (exact: no random vectors) */
    const double **v = (const double **)(ws + 7 * n);
    for (size_t k = 0; k < n; k++) {
        anderson_chain *c = chains[k];
        ws[k] = c->ws;
        v[k] = c->bloch;
        out[k] = anderson_moments_at(c, values[k]) + (c->M ? 3 * c->M + 2 : 0) +
                 (c->Mr ? 2 * MCF_RESPONSE_POINTS(c->Mr) : 0);
    }
    rc = mcf_fermion_spectral_curves(&a, n, c0->Ms, c0->kpath, 1, v, out);
    return rc ? mcf_fail_prefix(rc, "anderson") : MCF_OK;
}
