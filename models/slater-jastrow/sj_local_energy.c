/* sj_local_energy.c — the measurements of the slater-jastrow model (measure, ABI 2): the
 * local energy of every chain of a batch, its kinetic part from the determinants and the
 * Jastrow factor, its potential part from the Ewald sum; while `mcf optimize` measures
 * (mcf_batch_variational), the local energy with its derivatives in the variational
 * parameters instead (ABI 1's variational_local).
 *
 * One evaluator call (values, gradients, Laplacians) for the current positions of all
 * chains.  With D = D_up D_down,
 *     grad_i D / D = sum_l grad phi_l(r_i) Ainv[l][i],  lap_i D / D likewise,
 *     grad_i J = sum_j u'(r_ij) r_ij / r_ij,  lap_i J = sum_j [u''(r_ij) + 2 u'(r_ij)/r_ij],
 *     E_kin = -(1/2) sum_i [lap_i D/D + 2 grad_i D/D . grad_i J + lap_i J + |grad_i J|^2],
 * E_pot = the Ewald energy of the electrons in the neutralizing background (ewald.h),
 * recomputed from scratch (interaction = none: 0).  Observables per electron (hartree):
 * energy, kinetic, potential, energy_sq (= energy^2, so var(E_L) = N^2 (<energy_sq> -
 * <energy>^2)).  For `mcf optimize`, per chain 1 + 2P values: E_L of the whole cell,
 * O_m = d ln Psi / d p_m and dE_L / dp_m (P = the bspline parameters, sj_variational.c). */
#include "slater_jastrow_internal.h"

/* The observables (energy, kinetic, potential, energy_sq) of one chain into values; with
 * O and dE (bspline: P values each, zeroed here), also O_m = dJ/dp_m and the derivative of
 * the local energy, dE_L/dp_m = -(1/2) sum_i [lap_i O_m + 2 grad_i ln Psi . grad_i O_m]
 * (the potential does not depend on p), of the whole configuration. */
void local_energy(sj_chain *c, double *values, double *O, double *dE)
{
    const size_t n = c->n, no = c->norb;
    const size_t P = O ? sj_variational_count(c) : 0;
    double kin = 0.0, gO_buf[3 * 2 * SJ_BSPLINE_MAX], lO_buf[2 * SJ_BSPLINE_MAX];
    for (size_t m = 0; m < P; m++)
        O[m] = dE[m] = 0.0;
    sj_timing *t = c->tm;
    for (size_t e = 0; e < n; e++) {
        const double t0 = t ? now_s() : 0.0;
        const size_t s = spin_of(c, e), i = index_in_spin(c, e), m = spin_count(c, s);
        const double *Ai = c->Ainv[s];
        double gD[3] = {0, 0, 0}, lD = 0.0;
        if (c->on_ev) { /* from det_local */
            gD[0] = c->gD[3 * e];
            gD[1] = c->gD[3 * e + 1];
            gD[2] = c->gD[3 * e + 2];
            lD = c->lD[e];
        } else
            for (size_t l = 0; l < m; l++) {
                const double a = Ai[l * m + i];
                const double *g = c->grad + (e * no + l) * 3;
                gD[0] += g[0] * a;
                gD[1] += g[1] * a;
                gD[2] += g[2] * a;
                lD += c->lap[e * no + l] * a;
            }
        double gJ[3] = {0, 0, 0}, lJ = 0.0;
        const double t1 = t ? now_s() : 0.0;
        if (t)
            t->det_m += t1 - t0;
        if (c->jastrow) {
            jastrow_grad_lap(c, e, gJ, &lJ);
            if (t)
                t->jastrow_m += now_s() - t1;
        }
        kin += lD + 2.0 * (gD[0] * gJ[0] + gD[1] * gJ[1] + gD[2] * gJ[2]) + lJ +
               gJ[0] * gJ[0] + gJ[1] * gJ[1] + gJ[2] * gJ[2];
        if (P) {
            for (size_t q = 0; q < P; q++) {
                gO_buf[3 * q] = gO_buf[3 * q + 1] = gO_buf[3 * q + 2] = 0.0;
                lO_buf[q] = 0.0;
            }
            jastrow_param_terms(c, e, O, gO_buf, lO_buf);
            const double g[3] = {gD[0] + gJ[0], gD[1] + gJ[1], gD[2] + gJ[2]};
            for (size_t q = 0; q < P; q++)
                dE[q] -= 0.5 * (lO_buf[q] + 2.0 * (g[0] * gO_buf[3 * q] + g[1] * gO_buf[3 * q + 1] +
                                                  g[2] * gO_buf[3 * q + 2]));
        }
    }
    kin *= -0.5 / (double)n;
    const double te = t ? now_s() : 0.0;
    double pot = 0.0; /* interaction = none: the free gas */
    if (c->coulomb) {
        mcf_ewald_set_positions(c->ew, c->r);
        pot = mcf_ewald_energy(c->ew, NULL) / (double)n;
    }
    if (t)
        t->ewald_m += now_s() - te;
    values[0] = kin + pot;
    values[1] = kin;
    values[2] = pot;
    values[3] = (kin + pot) * (kin + pot);
}

/* E_L, O and dE_L/dp of the nb chains (orbitals_batch done): `mcf optimize`'s values. */
static void variational_values(void *const *chains, size_t nb, double *const *out)
{
#pragma omp parallel for schedule(static) if (nb > 1)
    for (size_t k = 0; k < nb; k++) {
        sj_chain *c = chains[k];
        const size_t P = sj_variational_count(c);
        double v[4], *o = out[k];
        local_energy(c, v, o + 1, o + 1 + P);
        o[0] = v[0] * (double)c->n;
    }
}

int sj_measure(mcf_batch *b, void *const *chains, size_t n, double *const *values)
{
    const int variational = mcf_batch_variational(b);
    for (size_t k0 = 0; k0 < n; k0 += SJ_BATCH) {
        const size_t nb = n - k0 < SJ_BATCH ? n - k0 : SJ_BATCH;
        const sj_chain *c0 = chains[k0];
        const double t0 = c0->tm && !variational ? now_s() : 0.0;
        int rc = orbitals_batch(b, chains + k0, nb, 1); /* grad D / D, lap D / D: on_ev */
        if (rc)
            return rc;
        if (variational) { /* not timed */
            variational_values(chains + k0, nb, values + k0);
            continue;
        }
        const double vshare = c0->tm ? (now_s() - t0) / (double)nb : 0.0;
#pragma omp parallel for schedule(static) if (nb > 1)
        for (size_t k = 0; k < nb; k++) {
            sj_chain *c = chains[k0 + k];
            const double tl = c->tm ? now_s() : 0.0;
            local_energy(c, values[k0 + k], NULL, NULL);
            if (c->tm) {
                c->tm->vgl += vshare;
                c->tm->measure += vshare + (now_s() - tl);
                c->tm->measurements++;
            }
        }
    }
    return MCF_OK;
}
