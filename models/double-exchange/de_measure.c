/* de_measure.c — the measurements of the double-exchange model: the spin observables, the
 * fermion density and energy from the evaluator's occupation(), and the optional DOS curve.
 *
 * Observables (per site, N sites):
 *   energy          fermion energy <H> / N = sum_nu eps_nu f(eps_nu) / N, from the
 *                   evaluator's occupation() (per state, so times dim / N)
 *   abs_m, m2, m4   |M| / N and its square and fourth power (order-parameter roles)
 *   density         electrons per site, sum_nu f(eps_nu) / N (0..1 for hund = inf, 0..2
 *                   for finite J_H)
 *   nn_correlation  the mean of S_i . S_j over nearest-neighbour bonds
 *   energy_dT       d(energy)/dT at fixed spins, sum_nu eps_nu df/dT / N, from the
 *                   evaluator's occupation_dT (which the model binds as required)
 *   m2_kmin         |sum_i S_i exp(i k_min . r_i) / N|^2 averaged over k_min = 2 pi / L along
 *                   each axis (on request): with m2 the core's second-moment correlation
 *                   length xi_over_l, for mcf tc
 *   action_dT       dS_eff/dT at fixed spins per site, -(energy - mu density) / T^2: with
 *                   energy_dT the core's specific heat d<E>/dT (mcf/model.h); from a
 *                   second trace, independent of energy's (mcf_fermion_occupation_heat:
 *                   noise set 2 against energy's 1, so <energy action_dT> has no noise
 *                   bias)
 *   dos             (a curve over E, only with dos_every = k > 0) the fermion DOS per state
 *                   from the evaluator's dos(), new at every k-th measurement and repeated
 *                   in between (equal weights: the mean is that of the measured curves)
 *   sigma_xx_moments, sigma_xy_moments
 *                   (only with response_moments = M > 0) the two-dimensional moments of the
 *                   currents J_x, J_x and J_x, J_y of the spins now (mcf_current_operator_update
 *                   from H, every measurement), with the scaling, the fixed bounds and the
 *                   states per volume (MCF_RESPONSE_POINTS(M) values; `mcf response DIR`)
 *   spectral_function_moments
 *                   (only with spectral_moments = M > 0) the moments of the electron's
 *                   spectral function along spectral_path, sum_s <K s| T_n(H~) |K s>: at
 *                   hund = inf the projected state of c_{K s}^dagger, amplitude
 *                   <chi_i|s> exp(i K.r_i) / sqrt(N) on site i (the spins now, every
 *                   measurement), at finite hund the plain Bloch state on orbital s; with
 *                   the wave vectors and the scaling (MCF_SPECTRAL_POINTS(nk, M) values)
 * measure() gets density and energy (and d(energy)/dT) from
 * mcf_fermion_occupation_heat, which calls occupation_dT() once for all chains of a batch that
 * share (mu, T) (the op takes one mu and one T; a temperature scan gives one call per
 * temperature), and, with a stochastic trace, occupation() again for action_dT.
 * The measurement stream of the chain feeds the random vectors of a stochastic evaluator's
 * occupation() and dos().  The evaluator of the batch's calls is the batch's (ABI 2's helpers);
 * the arrays come from the batch's scratch. */
#include "de_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The observables that need no evaluator. */
static void de_spin_observables(de_chain *c, double *values)
{
    const double n = (double)c->n;
    const double m2 =
        (c->mag[0] * c->mag[0] + c->mag[1] * c->mag[1] + c->mag[2] * c->mag[2]) / (n * n);
    double bond = 0.0;
    for (size_t i = 0; i < c->n; i++) {
        const double *s = c->spin + 3 * i;
        const int32_t *nb = c->nb + (size_t)c->z * i;
        for (int k = 0; k < c->z; k += 2) { /* even slots: every bond once */
            if (nb[k] < 0)
                continue;
            const double *r = c->spin + 3 * (size_t)nb[k];
            bond += s[0] * r[0] + s[1] * r[1] + s[2] * r[2];
        }
    }
    values[OBS_ABS_M] = sqrt(m2);
    values[OBS_M2] = m2;
    values[OBS_M4] = m2 * m2;
    values[OBS_NN] = c->bonds ? bond / (double)c->bonds : 0.0;
    values[OBS_M2_KMIN] = mcf_kmin_structure_factor(c->kmin, c->spin);
}

/* The DOS curve of the chains that measure it: a new one (one dos() call for all of them,
 * from their measurement streams, after occupation()) at every dos_every-th measurement,
 * the last one repeated in between.  Repeating a value k times gives every measured DOS
 * the same weight, so the mean is that of the measured ones; the jackknife bins of the
 * core are much longer than k, so the error bars stay right.  Its arrays (workspaces,
 * streams, output rows) come from the batch scratch, taken anew: the occupation's arrays
 * are no longer needed. */
static int de_measure_dos(mcf_batch *batch, void *const *chains, size_t n,
                          double *const *values)
{
    void **ws = NULL;
    mcf_rng **rngs = NULL;
    double **out = NULL;
    size_t m = 0;
    for (size_t k = 0; k < n; k++) {
        de_chain *c = chains[k];
        if (c->dos_every > 0 && c->measured % (uint64_t)c->dos_every == 0) {
            if (!ws) {
                ws = mcf_batch_scratch(batch, 3 * n * sizeof(void *));
                if (!ws)
                    return mcf_fail_prefix(MCF_ENOMEM, "double-exchange: the DOS");
                rngs = (mcf_rng **)(ws + n);
                out = (double **)(rngs + n);
            }
            ws[m] = c->ws;
            rngs[m] = &c->mrng;
            out[m] = c->dos_last;
            m++;
        }
    }
    if (m) {
        const mcf_fermion_batch d = {.ws = ws, .rngs = rngs, .batch = batch};
        mcf_spectra s = {.dos = out};
        int rc = mcf_fermion_spectra(&d, m, &s);
        if (rc)
            return mcf_fail_prefix(rc, "double-exchange: the DOS");
    }
    for (size_t k = 0; k < n; k++) {
        de_chain *c = chains[k];
        if (c->dos_every > 0)
            memcpy(values[k] + OBS_DOS, c->dos_last, c->dos_points * sizeof *c->dos_last);
        c->measured++;
    }
    return MCF_OK;
}

/* The response moments of every chain (Mr > 0: the same for all, one configuration), from
 * the measurement streams after the DOS (mcf_fermion_response_curves); the arrays from the
 * batch's scratch, taken anew. */
static int de_measure_response(mcf_batch *batch, void *const *chains, size_t n,
                               double *const *values)
{
    void **p = mcf_batch_scratch(batch, 7 * n * sizeof(void *));
    if (!p)
        return mcf_fail_prefix(MCF_ENOMEM, "double-exchange: the response");
    const mcf_hamiltonian **jx = (const mcf_hamiltonian **)p, **jy = jx + n;
    double **xx = (double **)(p + 2 * n), **xy = xx + n;
    const double **tail = (const double **)(p + 4 * n);
    mcf_rng **rngs = (mcf_rng **)(p + 5 * n);
    void **ws = p + 6 * n;
    int rc = MCF_OK;
    for (size_t k = 0; k < n && !rc; k++) {
        de_chain *c = chains[k];
        if ((rc = mcf_current_operator_update(c->jx, c->h, c->lat, 0)) ||
            (rc = mcf_current_operator_update(c->jy, c->h, c->lat, 1)))
            return mcf_fail_prefix(rc, "double-exchange: the currents");
        xx[k] = values[k] + OBS_DOS + (c->dos_every > 0 ? c->dos_points : 0);
        xy[k] = xx[k] + MCF_RESPONSE_POINTS(c->Mr);
        jx[k] = c->jx;
        jy[k] = c->jy;
        tail[k] = c->response_tail;
        ws[k] = c->ws;
        rngs[k] = &c->mrng;
    }
    const mcf_fermion_batch a = {.ws = ws, .rngs = rngs, .batch = batch};
    rc = mcf_fermion_response_curves(&a, n, ((de_chain *)chains[0])->Mr, jx, jy, xx, xy, tail);
    return rc ? mcf_fail_prefix(rc, "double-exchange") : MCF_OK;
}

int de_spectral_setup(de_chain *c, const mcf_lattice *lat, const char *path)
{
    int rc = mcf_kpath_create(lat, path, c->twisted ? c->theta : NULL, &c->kpath);
    if (rc)
        return rc;
    const size_t nk = c->kpath->points, dim = c->h->dim;
    if (!(c->bloch = malloc(4 * nk * dim * sizeof *c->bloch)) ||
        (!c->finite && !(c->bloch_w = malloc(4 * c->n * sizeof *c->bloch_w))))
        return mcf_fail(MCF_ENOMEM, "out of memory for %zu Bloch vectors of %zu states",
                        2 * nk, dim);
    for (size_t j = 0; c->finite && j < nk; j++) /* the spin's orbital: fixed vectors */
        for (size_t s = 0; s < 2; s++)
            mcf_bloch_vector(lat, c->kpath->k + 3 * j, 2, s, NULL,
                             c->bloch + (2 * j + s) * 2 * dim);
    return MCF_OK;
}

/* The spectral moments of every chain (Ms > 0: the same for all): at hund = inf the Bloch
 * vectors are rewritten from the spinors H was written from (<chi_i|up> = conj(chi_i up),
 * <chi_i|dn> = conj(chi_i dn)): hybrid Monte Carlo's own (each chi_i's phase is the
 * trajectory's, and H's basis follows it), else de_field's of the spins; then one
 * vector_moments call (mcf_fermion_spectral_curves). */
static int de_measure_spectral(mcf_batch *batch, void *const *chains, size_t n,
                               double *const *values)
{
    void **p = mcf_batch_scratch(batch, 3 * n * sizeof(void *));
    if (!p)
        return mcf_fail_prefix(MCF_ENOMEM, "double-exchange: the spectral function");
    const double **v = (const double **)p;
    double **out = (double **)(p + n);
    void **ws = p + 2 * n;
    for (size_t k = 0; k < n; k++) {
        de_chain *c = chains[k];
        const size_t nk = c->kpath->points, dim = c->h->dim;
        for (size_t i = 0; !c->finite && i < c->n; i++) {
            double f[4];
            const double *a = c->h_from_spinor ? c->spinor + 4 * i : f;
            if (!c->h_from_spinor)
                de_field(c->spin + 3 * i, f);
            c->bloch_w[2 * i] = a[0];
            c->bloch_w[2 * i + 1] = -a[1];
            c->bloch_w[2 * c->n + 2 * i] = a[2];
            c->bloch_w[2 * c->n + 2 * i + 1] = -a[3];
        }
        for (size_t j = 0; !c->finite && j < nk; j++)
            for (size_t s = 0; s < 2; s++)
                mcf_bloch_vector(c->lat, c->kpath->k + 3 * j, 1, 0, c->bloch_w + 2 * s * c->n,
                                 c->bloch + (2 * j + s) * 2 * dim);
        out[k] = values[k] + OBS_DOS + (c->dos_every > 0 ? c->dos_points : 0) +
                 (c->Mr ? 2 * MCF_RESPONSE_POINTS(c->Mr) : 0);
        v[k] = c->bloch;
        ws[k] = c->ws;
    }
    const de_chain *c0 = chains[0];
    const mcf_fermion_batch a = {.ws = ws, .batch = batch};
    int rc = mcf_fermion_spectral_curves(&a, n, c0->Ms, c0->kpath, 2, v, out);
    return rc ? mcf_fail_prefix(rc, "double-exchange") : MCF_OK;
}

/* Density and energy of every chain from mcf_fermion_occupation (one occupation() call per
 * distinct (mu, T) among the chains of the batch), the spin observables, then the DOS. */
int de_measure(mcf_batch *batch, void *const *chains, size_t n, double *const *values)
{
    if (n == 0)
        return MCF_OK;
    mcf_fermion_batch a;
    mcf_fermion_heat heat;
    int rc = mcf_fermion_heat_get(batch, n, &a, &heat);
    if (rc)
        return mcf_fail_prefix(rc, "double-exchange");
    for (size_t k = 0; k < n; k++) {
        de_chain *c = chains[k];
        a.ws[k] = c->ws;
        a.rngs[k] = &c->mrng;
        a.T[k] = c->T;
        a.mu[k] = c->mu;
    }
    /* energy, density and energy_dT from one trace, action_dT from an independent one (the
       same with an exact trace): their product in the specific heat has no noise bias */
    rc = mcf_fermion_occupation_heat(&a, n, &heat);
    if (rc)
        return rc;
    for (size_t k = 0; k < n; k++) {
        de_chain *c = chains[k];
        const double per_site = (double)c->h->dim / (double)c->n;
        values[k][OBS_ENERGY] = a.energy[k] * per_site;
        values[k][OBS_DENSITY] = a.density[k] * per_site;
        values[k][OBS_ENERGY_DT] = heat.denergy[k] * per_site;
        values[k][OBS_ACTION_DT] =
            -(heat.energy2[k] - c->mu * heat.density2[k]) * per_site / (c->T * c->T);
        de_spin_observables(c, values[k]);
    }
    rc = de_measure_dos(batch, chains, n, values);
    if (!rc && ((de_chain *)chains[0])->Mr)
        rc = de_measure_response(batch, chains, n, values);
    if (!rc && ((de_chain *)chains[0])->Ms)
        rc = de_measure_spectral(batch, chains, n, values);
    return rc;
}

/* The units (sites), and the DOS curve: the evaluator's energy grid as its axis, or no
 * points with dos_every = 0 (not measured). */
int de_layout(const void *chain, mcf_layout *layout)
{
    const de_chain *c = chain;
    layout->units = c->n;
    layout->points[OBS_DOS] = c->dos_every > 0 ? c->dos_points : 0;
    for (int o = OBS_SIGMA_XX_MOMENTS; o <= OBS_SIGMA_XY_MOMENTS; o++) {
        layout->points[o] = c->Mr ? MCF_RESPONSE_POINTS(c->Mr) : 0;
        for (size_t k = 0; layout->axis && layout->axis[o] && k < layout->points[o]; k++)
            layout->axis[o][k] = (double)k;
    }
    layout->points[OBS_SPECTRAL_MOMENTS] =
        c->Ms ? MCF_SPECTRAL_POINTS(c->kpath->points, c->Ms) : 0;
    for (size_t k = 0; layout->axis && layout->axis[OBS_SPECTRAL_MOMENTS] &&
                       k < layout->points[OBS_SPECTRAL_MOMENTS]; k++)
        layout->axis[OBS_SPECTRAL_MOMENTS][k] = (double)k;
    double *axis = layout->axis ? layout->axis[OBS_DOS] : NULL;
    if (axis && c->dos_every > 0) {
        if (mcf_fermion_grid(&c->fermion, c->ws, axis) != c->dos_points)
            return mcf_fail_prefix(MCF_EPLUGIN, "double-exchange: evaluator %s: energies",
                                   c->fermion.name);
    }
    return MCF_OK;
}
