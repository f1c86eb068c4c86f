/* test_ewald.c — mcf_ewald (models/slater-jastrow): Ewald energies against published
 * Madelung constants, alpha independence, single-particle moves, and the exact finite-N
 * Hartree-Fock reference of the homogeneous electron gas, plus the refusals.
 *
 * Tolerances.  Energies are compared in units of E_scale = max(Q2, 1) / L_min, the scale
 * the requested accuracy refers to (ewald.h).  A computation at requested accuracy eps
 * has estimated truncation error <= eps E_scale (eps/2 for each of the real and reciprocal
 * tails); rounding of sums of n <= 2e4 terms of size <= ~10 E_scale gives about
 * sqrt(n) 1.1e-16 * 10 E_scale ~ 2e-13 E_scale.  So:
 *  - literature constants (given to 12 or more significant digits) vs eps = 1e-12: the
 *    truncation error <= eps E_scale is <= 0.75 eps relative to the total energy of
 *    every lattice here (|E| L_min / Q2 >= 1.4 for all of them); add rounding (~1e-14)
 *    and the rounding of the last quoted digit (<= 6e-13 relative): under 2e-12, so
 *    1e-10 relative (the requested assertion level) holds with room;
 *  - two evaluations of one configuration at eps = 1e-13 (different alpha): truncation
 *    <= 2e-13 plus rounding ~2e-13: 1e-12 E_scale;
 *  - identities that hold exactly for the truncated sums (incremental vs total, the pair
 *    form, the cached vs fresh structure factor, the rs scaling of Hartree-Fock): rounding
 *    only, 1e-12 E_scale (or 1e-12 relative);
 *  - mcf_ewald_energy vs the same truncated sums evaluated directly in long double (cos and
 *    sin of k.r per k vector and charge, erfcl per image): rounding of the double sums of
 *    up to ~2e4 terms, ~1e-15 to 1e-14 relative (the long double ones ~1e-18): 1e-13
 *    relative to max(|E|, E_scale) (the parts of E are of size E_scale and cancel in E). */
#include "check.h"

#include "ewald.h"
#include "heg.h"
#include "mcf/error.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PI 3.14159265358979323846

/* ---- literature constants ------------------------------------------------------------
 * Madelung constant of a unit point charge in a cube of side L with its periodic images
 * and a neutralizing background, v_M = -XI_SC / L (the simple-cubic "Wigner-Seitz" lattice
 * sum): Nijboer & De Wette, Physica 23, 309 (1957); as 2.837297 in Makov & Payne, PRB 51,
 * 4014 (1995) and Fraser et al., PRB 53, 1814 (1996); full digits as tabulated for the
 * finite-size correction of charged cells.
 * Madelung energy per particle of the one-component plasma (Wigner crystal) in units of
 * 1/r_s hartree: bcc -0.895929255682, fcc -0.895873615195: Baiko, Potekhin & Yakovlev,
 * PRE 64, 057402 (2001), Table I (also Coldwell-Horsfall & Maradudin, J. Math. Phys. 1,
 * 395 (1960): -1.79186 Ry for bcc).
 * NaCl (per ion, nearest-neighbour distance): OEIS A085469, 1.74756459463318219063621...
 * CsCl (per ion, nearest-neighbour distance): OEIS A181152, 1.76267477307098839793567...
 * Benson's formula for NaCl (an independent closed form, used as a second reference):
 * M = 12 pi sum_{m, n odd >= 1} sech^2((pi/2) sqrt(m^2 + n^2)) (Benson, Am. Math. Monthly
 * 1956; see e.g. Borwein et al., "Lattice Sums Then and Now", CUP 2013). */
static const double XI_SC = 2.837297479480619;
static const double ZETA_BCC = -0.895929255682;
static const double ZETA_FCC = -0.895873615195;
static const double M_NACL = 1.7475645946331822;
static const double M_CSCL = 1.7626747730709884;

static double rel_err(double a, double b) { return fabs(a - b) / fabs(b); }

/* a small deterministic generator (splitmix64) for configurations */
static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static double uniform01(void)
{
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return (double)(z >> 11) * 0x1.0p-53;
}

/* Ewald energy per particle of a configuration at the default accuracy (1e-12). */
static double energy_per_particle(const double cell[3], size_t n, const double *q,
                                  const double *r, double *vM)
{
    mcf_ewald *ew = NULL;
    const int rc = mcf_ewald_create(cell, n, q, r, NULL, &ew);
    CHECK(rc == MCF_OK, "create failed: %s", mcf_last_error());
    if (rc) return NAN;
    const double e = mcf_ewald_energy(ew, NULL) / (double)n;
    if (vM) *vM = mcf_ewald_madelung(ew);
    mcf_ewald_destroy(ew);
    return e;
}

/* r_s of n particles in volume V: n / V = 3 / (4 pi r_s^3) */
static double rs_of(size_t n, double V) { return cbrt(3.0 * V / (4.0 * PI * (double)n)); }

static void test_madelung(void)
{
    const double tol = 1e-10;
    const double qe[8] = {-1, -1, -1, -1, -1, -1, -1, -1};

    /* sc: one electron in a cube (the Madelung constant itself), any side */
    for (int t = 0; t < 2; t++) {
        const double L = t ? 3.7 : 1.0;
        const double cell[3] = {L, L, L}, r[3] = {0.3 * L, 0.1, -2.0};
        double vM = 0.0;
        const double e = energy_per_particle(cell, 1, qe, r, &vM);
        printf("sc, L = %g: v_M L = %.15f (literature %.15f), E = %.15f = v_M/2 %.15f\n", L,
               vM * L, -XI_SC, e, 0.5 * vM);
        CHECK(rel_err(vM * L, -XI_SC) < tol, "v_M L = %.15f vs %.15f", vM * L, -XI_SC);
        CHECK(rel_err(e, 0.5 * vM) < 1e-12, "one charge: E = %.15g, v_M/2 = %.15g", e,
              0.5 * vM);
        double vM2 = 0.0;
        CHECK(mcf_ewald_madelung_cell(cell, 0.0, &vM2) == MCF_OK && rel_err(vM2, vM) < 1e-12,
              "madelung_cell %.15g vs %.15g", vM2, vM);
    }
    /* sc jellium per electron in 1/r_s, 1 particle and a 2x2x2 supercell, and two
     * orthorhombic cells holding the same lattice */
    const double sc_rs = -XI_SC / (2.0 * cbrt(4.0 * PI / 3.0));
    {
        const double c1[3] = {1, 1, 1}, r1[3] = {0, 0, 0};
        const double e1 = energy_per_particle(c1, 1, qe, r1, NULL) * rs_of(1, 1.0);
        double r8[24];
        size_t p = 0;
        for (int x = 0; x < 2; x++)
            for (int y = 0; y < 2; y++)
                for (int z = 0; z < 2; z++) {
                    r8[3 * p] = x + 0.25;
                    r8[3 * p + 1] = y;
                    r8[3 * p + 2] = z - 0.5;
                    p++;
                }
        const double c8[3] = {2, 2, 2};
        const double e8 = energy_per_particle(c8, 8, qe, r8, NULL) * rs_of(8, 8.0);
        const double c2[3] = {1, 1, 2}, r2[6] = {0, 0, 0, 0, 0, 1};
        const double e2 = energy_per_particle(c2, 2, qe, r2, NULL) * rs_of(2, 2.0);
        double r6[18];
        p = 0;
        for (int y = 0; y < 2; y++)
            for (int z = 0; z < 3; z++) {
                r6[3 * p] = 0.5;
                r6[3 * p + 1] = y;
                r6[3 * p + 2] = z;
                p++;
            }
        const double c6[3] = {1, 2, 3};
        const double e6 = energy_per_particle(c6, 6, qe, r6, NULL) * rs_of(6, 6.0);
        printf("sc jellium E r_s: 1 site %.15f, 2x2x2 %.15f, 1x1x2 %.15f, 1x2x3 %.15f "
               "(literature %.15f)\n", e1, e8, e2, e6, sc_rs);
        CHECK(rel_err(e1, sc_rs) < tol, "sc 1: %.15f", e1);
        CHECK(rel_err(e8, sc_rs) < tol, "sc 2x2x2: %.15f", e8);
        CHECK(rel_err(e2, sc_rs) < tol, "sc 1x1x2: %.15f", e2);
        CHECK(rel_err(e6, sc_rs) < tol, "sc 1x2x3: %.15f", e6);
    }
    /* bcc and fcc jellium: conventional cube a = 1.3 (any a; E r_s is scale-free) */
    {
        const double a = 1.3, c[3] = {a, a, a};
        const double rb[6] = {0, 0, 0, 0.5 * a, 0.5 * a, 0.5 * a};
        const double eb = energy_per_particle(c, 2, qe, rb, NULL) * rs_of(2, a * a * a);
        const double rf[12] = {0, 0, 0, 0, 0.5 * a, 0.5 * a, 0.5 * a, 0, 0.5 * a,
                               0.5 * a, 0.5 * a, 0};
        const double ef = energy_per_particle(c, 4, qe, rf, NULL) * rs_of(4, a * a * a);
        printf("bcc jellium E r_s = %.15f (literature %.12f)\n", eb, ZETA_BCC);
        printf("fcc jellium E r_s = %.15f (literature %.12f)\n", ef, ZETA_FCC);
        CHECK(rel_err(eb, ZETA_BCC) < tol, "bcc %.15f vs %.12f", eb, ZETA_BCC);
        CHECK(rel_err(ef, ZETA_FCC) < tol, "fcc %.15f vs %.12f", ef, ZETA_FCC);
        CHECK(eb < ef && ef < sc_rs, "bcc < fcc < sc expected: %.12f %.12f %.12f", eb, ef,
              sc_rs);
    }
    /* NaCl: conventional cube of side 2 (nearest neighbours at 1), 4 + 4 ions:
     * E = -(number of ion pairs) M / r_0 = -4 M */
    {
        const double c[3] = {2, 2, 2};
        const double r[24] = {0, 0, 0, 0, 1, 1, 1, 0, 1, 1, 1, 0,
                              1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 1, 1};
        const double q[8] = {1, 1, 1, 1, -1, -1, -1, -1};
        const double M = -energy_per_particle(c, 8, q, r, NULL) * 8.0 / 4.0;
        double benson = 0.0;
        for (int m = 1; m <= 41; m += 2)
            for (int n = 1; n <= 41; n += 2) {
                const double s = 1.0 / cosh(0.5 * PI * sqrt((double)(m * m + n * n)));
                benson += s * s;
            }
        benson *= 12.0 * PI;
        printf("NaCl Madelung %.15f (OEIS A085469 %.15f, Benson sum %.15f)\n", M, M_NACL,
               benson);
        CHECK(rel_err(M, M_NACL) < tol, "NaCl %.15f vs %.15f", M, M_NACL);
        CHECK(rel_err(benson, M_NACL) < 1e-13, "Benson %.15f vs %.15f", benson, M_NACL);
    }
    /* CsCl: unit cube, ions at 0 and the centre, r_0 = sqrt(3)/2: E = -M / r_0 */
    {
        const double c[3] = {1, 1, 1}, r[6] = {0, 0, 0, 0.5, 0.5, 0.5}, q[2] = {2, -2};
        /* charges +-2 scale the energy by 4 */
        const double M = -energy_per_particle(c, 2, q, r, NULL) * 2.0 / 4.0 * sqrt(3.0) / 2.0;
        printf("CsCl Madelung %.15f (OEIS A181152 %.15f)\n", M, M_CSCL);
        CHECK(rel_err(M, M_CSCL) < tol, "CsCl %.15f vs %.15f", M, M_CSCL);
    }
}

/* n random positions in [-L/2, 3L/2) per axis (the cell and beyond) */
static void random_config(const double cell[3], size_t n, double *r)
{
    for (size_t i = 0; i < 3 * n; i++) r[i] = cell[i % 3] * (2.0 * uniform01() - 0.5);
}

static void test_alpha_independence(void)
{
    /* (1) 14 electrons at r_s = 1; (2) mixed charges, net charge +1, orthorhombic */
    double L = 0.0;
    CHECK(mcf_heg_cell_side(1.0, 14, &L) == MCF_OK, "cell side");
    const double cells[2][3] = {{L, L, L}, {2.0, 2.5, 3.1}};
    const size_t ns[2] = {14, 9};
    double q[2][14];
    for (int i = 0; i < 14; i++) q[0][i] = -1.0;
    const double qm[9] = {1, -1, 2, -2, 1, 1, -1, 0.5, -0.5};
    memcpy(q[1], qm, sizeof qm);
    for (int s = 0; s < 2; s++) {
        double r[42];
        random_config(cells[s], ns[s], r);
        const double Lmin = fmin(cells[s][0], fmin(cells[s][1], cells[s][2]));
        double Q2 = 0.0;
        for (size_t i = 0; i < ns[s]; i++) Q2 += q[s][i] * q[s][i];
        const double escale = fmax(Q2, 1.0) / Lmin;
        const double alphas[4] = {0.0, 3.0 / Lmin, 5.5 / Lmin, 9.0 / Lmin};
        double e[4], vm[4], phi[4];
        const double dr[3] = {0.31 * cells[s][0], -0.12, 0.77};
        for (int a = 0; a < 4; a++) {
            const mcf_ewald_options o = {1e-13, alphas[a], 0.0};
            mcf_ewald *ew = NULL;
            const int rc = mcf_ewald_create(cells[s], ns[s], q[s], r, &o, &ew);
            CHECK(rc == MCF_OK, "create: %s", mcf_last_error());
            if (rc) return;
            mcf_ewald_parts p;
            e[a] = mcf_ewald_energy(ew, &p);
            vm[a] = mcf_ewald_madelung(ew);
            phi[a] = mcf_ewald_pair_potential(ew, dr);
            mcf_ewald_info info;
            mcf_ewald_get_info(ew, &info);
            printf("system %d alpha L_min = %5.2f: rcut/L_min %.3f kcut L_min %.1f n_k %zu "
                   "images %d: E = %.15f (real %.6f recip %.6f self %.6f bg %.6f)\n",
                   s, info.alpha * Lmin, info.rcut / Lmin, info.kcut * Lmin, info.n_kvectors,
                   info.images[0], e[a], p.real, p.recip, p.self, p.background);
            CHECK(fabs(p.real + p.recip + p.self + p.background - p.total) <= 1e-13 * escale,
                  "parts do not add up");
            mcf_ewald_destroy(ew);
        }
        for (int a = 1; a < 4; a++) {
            CHECK(fabs(e[a] - e[0]) <= 1e-12 * escale, "system %d alpha %d: E %.16g vs %.16g "
                  "(diff %.3g E_scale)", s, a, e[a], e[0], (e[a] - e[0]) / escale);
            CHECK(fabs(vm[a] - vm[0]) * Lmin <= 1e-12, "v_M %.16g vs %.16g", vm[a], vm[0]);
            CHECK(fabs(phi[a] - phi[0]) * Lmin <= 1e-12, "phi_E %.16g vs %.16g", phi[a], phi[0]);
        }
    }
}

static void test_moves(void)
{
    double L = 0.0;
    CHECK(mcf_heg_cell_side(2.0, 14, &L) == MCF_OK, "cell side");
    const double cells[2][3] = {{L, L, L}, {2.0, 2.5, 3.1}};
    const size_t ns[2] = {14, 9};
    double q[2][14];
    for (int i = 0; i < 14; i++) q[0][i] = -1.0;
    const double qm[9] = {1, -1, 2, -2, 1, 1, -1, 0.5, 0.0};
    memcpy(q[1], qm, sizeof qm);
    for (int s = 0; s < 2; s++) {
        const size_t n = ns[s];
        double r[42], rt[42];
        random_config(cells[s], n, r);
        const double Lmin = fmin(cells[s][0], fmin(cells[s][1], cells[s][2]));
        double Q2 = 0.0;
        for (size_t i = 0; i < n; i++) Q2 += q[s][i] * q[s][i];
        const double escale = fmax(Q2, 1.0) / Lmin;
        mcf_ewald *ew = NULL, *ref = NULL;
        CHECK(mcf_ewald_create(cells[s], n, q[s], r, NULL, &ew) == MCF_OK, "create");
        CHECK(mcf_ewald_create(cells[s], n, q[s], r, NULL, &ref) == MCF_OK, "create ref");
        if (!ew || !ref) return;
        double e_cur = mcf_ewald_energy(ref, NULL);
        const double e_start = e_cur;
        double worst = 0.0, accumulated = 0.0;
        int big = 0, accepted = 0;
        const int moves = 300;
        for (int m = 0; m < moves; m++) {
            const size_t i = (size_t)(uniform01() * (double)n) % n;
            double rn[3];
            for (int a = 0; a < 3; a++) rn[a] = r[3 * i + (size_t)a] + 0.3 * Lmin * (uniform01() - 0.5);
            if (m % 50 == 7) rn[0] += 3.0 * cells[s][0]; /* far outside the cell */
            double de = 0.0;
            CHECK(mcf_ewald_propose(ew, i, rn, &de) == MCF_OK, "propose: %s", mcf_last_error());
            memcpy(rt, r, 3 * n * sizeof *r);
            memcpy(rt + 3 * i, rn, sizeof rn);
            CHECK(mcf_ewald_set_positions(ref, rt) == MCF_OK, "set_positions");
            const double e_new = mcf_ewald_energy(ref, NULL);
            const double err = fabs(de - (e_new - e_cur)) / escale;
            if (err > worst) worst = err;
            if (fabs(de) > 1e-6 * escale) big++;
            if (uniform01() < 0.5) {
                CHECK(mcf_ewald_accept(ew) == MCF_OK, "accept: %s", mcf_last_error());
                memcpy(r, rt, 3 * n * sizeof *r);
                e_cur = e_new;
                accumulated += de;
                accepted++;
            }
        }
        printf("system %d: %d moves (%d accepted, %d with |dE| > 1e-6 E_scale): worst "
               "|dE - (E_new - E_old)| = %.3g E_scale\n", s, moves, accepted, big, worst);
        CHECK(worst <= 1e-12, "incremental energy off by %.3g E_scale", worst);
        CHECK(big > moves / 2, "moves too small to test anything (%d of %d)", big, moves);
        CHECK(accepted > 0 && accepted < moves, "acceptance %d of %d", accepted, moves);
        /* the cached rho(k) after the accepted moves: a proposal from the cached object
         * equals one from a fresh object at the same positions */
        CHECK(mcf_ewald_set_positions(ref, r) == MCF_OK, "set_positions");
        const double rn[3] = {0.1, 0.2, 0.3};
        double d1 = 0.0, d2 = 0.0;
        CHECK(mcf_ewald_propose(ew, 0, rn, &d1) == MCF_OK, "propose");
        CHECK(mcf_ewald_propose(ref, 0, rn, &d2) == MCF_OK, "propose ref");
        CHECK(fabs(d1 - d2) <= 1e-12 * escale, "cached rho: %.16g vs fresh %.16g", d1, d2);
        /* sum of accepted increments vs the energy change from scratch; each increment
         * carries <= 1e-12 E_scale (asserted above), so the sum <= accepted * 1e-12 */
        const double e_end = mcf_ewald_energy(ew, NULL);
        CHECK(fabs(e_start + accumulated - e_end) <= accepted * 1e-12 * escale,
              "accumulated %.16g vs %.16g", e_start + accumulated, e_end);
        /* pair form: E = sum_{i<j} q_i q_j phi_E(r_ij) + (Q2/2) v_M, identical truncation */
        double ep = 0.5 * Q2 * mcf_ewald_madelung(ew);
        for (size_t i = 0; i < n; i++)
            for (size_t j = i + 1; j < n; j++) {
                const double d[3] = {r[3 * i] - r[3 * j], r[3 * i + 1] - r[3 * j + 1],
                                     r[3 * i + 2] - r[3 * j + 2]};
                ep += q[s][i] * q[s][j] * mcf_ewald_pair_potential(ew, d);
            }
        CHECK(fabs(ep - e_end) <= 1e-12 * escale, "pair form %.16g vs %.16g", ep, e_end);
        /* errors */
        CHECK(mcf_ewald_propose(ew, n, rn, &d1) == MCF_EINVAL, "index n accepted");
        CHECK(mcf_ewald_set_positions(ew, r) == MCF_OK, "set_positions");
        CHECK(mcf_ewald_accept(ew) == MCF_EINVAL, "accept with nothing pending");
        const double bad[3] = {NAN, 0, 0};
        CHECK(mcf_ewald_propose(ew, 0, bad, &d1) == MCF_EINVAL, "NaN position accepted");
        mcf_ewald_destroy(ew);
        mcf_ewald_destroy(ref);
    }
}

/* phi_E has zero cell average: the sum of phi_E^L over the 8 points of a lattice of
 * spacing L/2 equals phi_E of the cell of side L/2 (only the Fourier components on the
 * coarser reciprocal lattice survive the sum); a nonzero average c would add 8c and c. */
static void test_zero_average(void)
{
    const double L = 2.3, cL[3] = {L, L, L}, ch[3] = {L / 2, L / 2, L / 2};
    const double q = 1.0, o[3] = {0, 0, 0};
    mcf_ewald *big = NULL, *small = NULL;
    CHECK(mcf_ewald_create(cL, 1, &q, o, NULL, &big) == MCF_OK, "create");
    CHECK(mcf_ewald_create(ch, 1, &q, o, NULL, &small) == MCF_OK, "create");
    if (!big || !small) return;
    const double r[3] = {0.37, -0.21, 0.93};
    double s = 0.0;
    for (int x = 0; x < 2; x++)
        for (int y = 0; y < 2; y++)
            for (int z = 0; z < 2; z++) {
                const double d[3] = {r[0] - x * L / 2, r[1] - y * L / 2, r[2] - z * L / 2};
                s += mcf_ewald_pair_potential(big, d);
            }
    const double t = mcf_ewald_pair_potential(small, r);
    printf("sum of 8 phi_E(L) = %.15f, phi_E(L/2) = %.15f\n", s, t);
    CHECK(fabs(s - t) * L <= 8e-12, "zero average: %.16g vs %.16g", s, t);
    mcf_ewald_destroy(big);
    mcf_ewald_destroy(small);
}

static void test_hartree_fock(void)
{
    /* N = 2: both electrons in k = 0, the determinant is constant: E = <v_M + phi_E(r12)>
     * = v_M (phi_E has zero average), i.e. v_M / 2 per electron */
    for (int t = 0; t < 2; t++) {
        const double rs = t ? 5.0 : 1.0;
        mcf_heg_hf hf;
        CHECK(mcf_heg_hartree_fock(2, 0, rs, 0.0, &hf) == MCF_OK, "HF N=2: %s", mcf_last_error());
        const double cell[3] = {hf.L, hf.L, hf.L};
        double vM = 0.0;
        CHECK(mcf_ewald_madelung_cell(cell, 0.0, &vM) == MCF_OK, "v_M");
        printf("HF N = 2 r_s = %g: kinetic %.3g exchange %.3g total %.15f = v_M/2 %.15f\n", rs,
               hf.kinetic, hf.exchange, hf.total, 0.5 * vM);
        CHECK(hf.kinetic == 0.0 && hf.exchange == 0.0, "N = 2 must have no kinetic/exchange");
        CHECK(rel_err(hf.total, 0.5 * vM) < 1e-14, "E = %.16g vs v_M/2 %.16g", hf.total, 0.5 * vM);
        CHECK(rel_err(hf.total * hf.L, -0.5 * XI_SC) < 1e-10, "v_M L/2 = %.15f", hf.total * hf.L);
    }
    /* N = 14 and 38, unpolarized, and polarized 7, 19, at r_s = 1, 2, 5 */
    const size_t Ns[4] = {14, 38, 7, 19};
    const int pol[4] = {0, 0, 1, 1};
    const double sum_n2[4] = {6.0, 30.0, 6.0, 30.0}; /* per spin: 6 x 1; + 12 x 2 */
    for (int c = 0; c < 4; c++) {
        mcf_heg_hf h[3];
        const double rss[3] = {1.0, 5.0, 2.0};
        for (int t = 0; t < 3; t++) {
            CHECK(mcf_heg_hartree_fock(Ns[c], pol[c], rss[t], 0.0, &h[t]) == MCF_OK, "HF: %s",
                  mcf_last_error());
            printf("HF N = %zu %s r_s = %g: L = %.10f  kinetic %.12f  exchange %.12f  madelung "
                   "%.12f  total %.12f hartree/electron\n", Ns[c],
                   pol[c] ? "polarized" : "unpolarized", rss[t], h[t].L, h[t].kinetic,
                   h[t].exchange, h[t].madelung, h[t].total);
            /* kinetic: (1/N_sigma) sum |n|^2 (2 pi / L)^2 / 2, same for every spin */
            const size_t nsig = pol[c] ? Ns[c] : Ns[c] / 2;
            const double tk = sum_n2[c] / (double)nsig * 2.0 * PI * PI / (h[t].L * h[t].L);
            CHECK(rel_err(h[t].kinetic, tk) < 1e-13, "kinetic %.16g vs %.16g", h[t].kinetic, tk);
        }
        /* exact scaling: E r_s^2 = a + b r_s; a, b from r_s = 1 and 5, predict r_s = 2 */
        const double b = (h[1].total * 25.0 - h[0].total) / 4.0, a = h[0].total - b;
        const double pred = a / 4.0 + b / 2.0;
        CHECK(rel_err(h[2].total, pred) < 1e-12, "N = %zu: E(2) = %.16g, a/4 + b/2 = %.16g",
              Ns[c], h[2].total, pred);
        CHECK(rel_err(h[1].kinetic * 25.0, h[0].kinetic) < 1e-12, "kinetic ~ 1/r_s^2");
        CHECK(rel_err((h[1].exchange + h[1].madelung) * 5.0, h[0].exchange + h[0].madelung) <
                  1e-12, "exchange + Madelung ~ 1/r_s");
    }
    /* N = 14 exchange by hand: the 7 vectors 0, +-x, +-y, +-z; ordered pairs: 0 with the
     * six (12 terms, |dn|^2 = 1), opposite (6 terms, 4), perpendicular (24 terms, 2):
     * sum 1/|dn|^2 = 12 + 1.5 + 12 = 25.5 per spin; exchange = -2 * 25.5 / (2 pi 14 L) */
    {
        mcf_heg_hf h;
        CHECK(mcf_heg_hartree_fock(14, 0, 1.0, 0.0, &h) == MCF_OK, "HF");
        const double ex = -51.0 / (28.0 * PI * h.L);
        CHECK(rel_err(h.exchange, ex) < 1e-14, "exchange %.16g vs %.16g", h.exchange, ex);
    }
    /* occupied list: first is k = 0, then the 6 unit vectors; k = 2 pi n / L */
    {
        int n[3 * 19];
        double k[3 * 19];
        CHECK(mcf_heg_occupied(19, 2.0, n, k) == MCF_OK, "occupied");
        int ok = n[0] == 0 && n[1] == 0 && n[2] == 0;
        for (int i = 1; i < 7; i++) ok &= n[3 * i] * n[3 * i] + n[3 * i + 1] * n[3 * i + 1] +
                                              n[3 * i + 2] * n[3 * i + 2] == 1;
        for (int i = 7; i < 19; i++) ok &= n[3 * i] * n[3 * i] + n[3 * i + 1] * n[3 * i + 1] +
                                               n[3 * i + 2] * n[3 * i + 2] == 2;
        CHECK(ok, "occupied vectors not in shell order");
        CHECK(fabs(k[3 * 18 + 2] - PI * n[3 * 18 + 2]) < 1e-15, "k = 2 pi n / L");
    }
}

/* ---- a direct evaluation of the truncated Ewald sums -------------------------------------
 * The sums of ewald.h over exactly the images and k vectors that mcf_ewald keeps (the
 * cutoff tests are the double expressions of ewald.c; the search ranges are wider than the
 * library's, so an image or k vector within the cutoffs that the library's ranges missed
 * would show up as a difference), evaluated term by term in long double: erfcl per image, and rho(k) from cosl, sinl of k.r per k and
 * charge, with k.r = 2 pi sum_a m_a r_a / L_a in long double.  part: real, recip, self,
 * background; *n_k the k vectors in the half space. */
static void reference_energy(const double cell[3], size_t n, const double *q, const double *r,
                             const mcf_ewald_info *info, long double part[4], size_t *n_k)
{
    const long double pi = 3.141592653589793238462643383279502884L;
    const double alpha = info->alpha, rc2 = info->rcut * info->rcut;
    const double kc2 = info->kcut * info->kcut;
    long double Q = 0.0L, Q2 = 0.0L;
    for (size_t i = 0; i < n; i++) {
        Q += q[i];
        Q2 += (long double)q[i] * q[i];
    }
    int nimg[3], mm[3];
    for (int a = 0; a < 3; a++) {
        nimg[a] = (int)ceil(info->rcut / cell[a]) + 1;
        mm[a] = (int)ceil(info->kcut * cell[a] / (2.0 * PI)) + 1;
    }
    /* real space: each pair (and each charge with its own images, i = j) from its
     * minimum-image separation, every image with |d + R| < r_c */
    long double er = 0.0L;
    for (size_t i = 0; i < n; i++)
        for (size_t j = i; j < n; j++) {
            double d[3];
            for (int a = 0; a < 3; a++) {
                const double x = r[3 * i + (size_t)a] - r[3 * j + (size_t)a];
                d[a] = x - cell[a] * nearbyint(x / cell[a]);
            }
            long double s = 0.0L;
            for (int nx = -nimg[0]; nx <= nimg[0]; nx++)
                for (int ny = -nimg[1]; ny <= nimg[1]; ny++)
                    for (int nz = -nimg[2]; nz <= nimg[2]; nz++) {
                        if (i == j && nx == 0 && ny == 0 && nz == 0) continue;
                        const double x = d[0] + nx * cell[0], y = d[1] + ny * cell[1];
                        const double z = d[2] + nz * cell[2];
                        if (x * x + y * y + z * z >= rc2) continue;
                        const long double rr = sqrtl((long double)x * x + (long double)y * y +
                                                     (long double)z * z);
                        s += erfcl(alpha * rr) / rr;
                    }
            er += (i == j ? 0.5L : 1.0L) * q[i] * q[j] * s;
        }
    /* reciprocal space: the half space, 0 < |k| <= k_c */
    const long double V = (long double)cell[0] * cell[1] * cell[2];
    long double ek = 0.0L;
    size_t count = 0;
    for (int mx = 0; mx <= mm[0]; mx++)
        for (int my = -mm[1]; my <= mm[1]; my++)
            for (int mz = -mm[2]; mz <= mm[2]; mz++) {
                if (mx == 0 && (my < 0 || (my == 0 && mz <= 0))) continue;
                const double kx = 2.0 * PI * mx / cell[0], ky = 2.0 * PI * my / cell[1];
                const double kz = 2.0 * PI * mz / cell[2];
                if (kx * kx + ky * ky + kz * kz > kc2) continue;
                count++;
                const long double Kx = 2.0L * pi * mx / cell[0], Ky = 2.0L * pi * my / cell[1];
                const long double Kz = 2.0L * pi * mz / cell[2];
                const long double k2 = Kx * Kx + Ky * Ky + Kz * Kz;
                long double re = 0.0L, im = 0.0L;
                for (size_t j = 0; j < n; j++) {
                    const long double kr =
                        2.0L * pi * ((long double)mx * r[3 * j] / cell[0] +
                                     (long double)my * r[3 * j + 1] / cell[1] +
                                     (long double)mz * r[3 * j + 2] / cell[2]);
                    re += q[j] * cosl(kr);
                    im += q[j] * sinl(kr);
                }
                ek += 4.0L * pi / V * expl(-k2 / (4.0L * alpha * alpha)) / k2 *
                      (re * re + im * im);
            }
    part[0] = er;
    part[1] = ek;
    part[2] = -alpha / sqrtl(pi) * Q2;
    part[3] = -pi * Q * Q / (2.0L * V * alpha * alpha);
    *n_k = count;
}

/* mcf_ewald_energy against reference_energy: N = 14, 38, 54 electrons at r_s = 1 and 5 in a
 * cube and two orthorhombic cells, mixed charges (one of them zero), the default accuracy
 * and 1e-14; positions in [-L/2, 3L/2). */
static void test_reference(void)
{
    rng_state = 0x5DEECE66Dull;
    const size_t ns[3] = {14, 38, 54};
    const double shapes[3][3] = {{1, 1, 1}, {1, 1.3, 0.8}, {1.7, 1, 1}};
    double worst_rel = 0.0, worst_scale = 0.0, worst_part = 0.0;
    int cases = 0;
    for (int in = 0; in < 3; in++)
        for (int sh = 0; sh < 3; sh++)
            for (int var = 0; var < 3; var++) { /* electrons r_s 5, r_s 1; mixed, 1e-14 */
                const size_t n = ns[in];
                const double rs = var == 0 ? 5.0 : 1.0;
                const double f = rs * cbrt(4.0 * PI / 3.0 * (double)n /
                                           (shapes[sh][0] * shapes[sh][1] * shapes[sh][2]));
                const double cell[3] = {f * shapes[sh][0], f * shapes[sh][1], f * shapes[sh][2]};
                double q[54], r[3 * 54];
                for (size_t i = 0; i < n; i++)
                    q[i] = var < 2 ? -1.0 : (i == 3 ? 0.0 : 0.7 * (double)((int)(i % 5) - 2) + 0.4);
                random_config(cell, n, r);
                const mcf_ewald_options o = {var == 2 ? 1e-14 : 0.0, 0.0, 0.0};
                mcf_ewald *ew = NULL;
                CHECK(mcf_ewald_create(cell, n, q, r, &o, &ew) == MCF_OK, "create: %s",
                      mcf_last_error());
                if (!ew) return;
                mcf_ewald_parts p;
                const double e = mcf_ewald_energy(ew, &p);
                mcf_ewald_info info;
                mcf_ewald_get_info(ew, &info);
                long double ref[4];
                size_t nk = 0;
                reference_energy(cell, n, q, r, &info, ref, &nk);
                const long double eref = ref[0] + ref[1] + ref[2] + ref[3];
                double Q2 = 0.0;
                for (size_t i = 0; i < n; i++) Q2 += q[i] * q[i];
                const double Lmin = fmin(cell[0], fmin(cell[1], cell[2]));
                const double escale = fmax(Q2, 1.0) / Lmin;
                const double diff = (double)fabsl((long double)e - eref);
                const double den = fmax((double)fabsl(eref), escale);
                const double dreal = (double)fabsl((long double)p.real - ref[0]);
                const double drec = (double)fabsl((long double)p.recip - ref[1]);
                const double dself = (double)fabsl((long double)p.self - ref[2]);
                const double dbg = (double)fabsl((long double)p.background - ref[3]);
                const double dpart = fmax(fmax(dreal / fmax(fabs(p.real), escale),
                                               drec / fmax(fabs(p.recip), escale)),
                                          fmax(dself / fmax(fabs(p.self), escale),
                                               dbg / fmax(fabs(p.background), escale)));
                if (diff / (double)fabsl(eref) > worst_rel) worst_rel = diff / (double)fabsl(eref);
                if (diff / escale > worst_scale) worst_scale = diff / escale;
                if (dpart > worst_part) worst_part = dpart;
                cases++;
                CHECK(nk == info.n_kvectors, "N %zu shape %d: %zu k vectors, reference %zu", n,
                      sh, info.n_kvectors, nk);
                CHECK(diff <= 1e-13 * den, "N %zu shape %d case %d: E = %.17g, reference "
                      "%.17Lg (diff %.3g relative to max(|E|, E_scale))", n, sh, var, e, eref,
                      diff / den);
                CHECK(dpart <= 1e-13, "N %zu shape %d case %d: parts off by %.3g: real %.17g "
                      "(%.17Lg) recip %.17g (%.17Lg)", n, sh, var, dpart, p.real, ref[0],
                      p.recip, ref[1]);
                mcf_ewald_destroy(ew);
            }
    printf("energy vs long double reference, %d configurations: worst |dE| / |E| = %.3g, "
           "|dE| / E_scale = %.3g, parts %.3g\n", cases, worst_rel, worst_scale, worst_part);
}

/* propose right after set_positions (structure factor not yet recomputed) and right after
 * create: the delta equals the difference of two energies from scratch; accept installs
 * the move. */
static void test_propose_after_set(void)
{
    double L = 0.0;
    CHECK(mcf_heg_cell_side(5.0, 38, &L) == MCF_OK, "cell side");
    const double cell[3] = {L, 0.9 * L, 1.2 * L};
    const size_t n = 38;
    double q[38], r0[3 * 38], r1[3 * 38], r2[3 * 38];
    for (size_t i = 0; i < n; i++) q[i] = i == 5 ? 0.0 : (i % 2 ? -1.0 : 0.5);
    double Q2 = 0.0;
    for (size_t i = 0; i < n; i++) Q2 += q[i] * q[i];
    const double es = fmax(Q2, 1.0) / (0.9 * L); /* E_scale: L_min = 0.9 L */
    double worst = 0.0;
    for (int trial = 0; trial < 6; trial++) {
        random_config(cell, n, r0);
        random_config(cell, n, r1);
        const size_t i = (size_t)trial * 7 % n; /* includes the zero charge 5 (trial 5) */
        memcpy(r2, r1, sizeof r1);
        for (int a = 0; a < 3; a++) r2[3 * i + (size_t)a] += 0.2 * L * (uniform01() - 0.5);
        mcf_ewald *ew = NULL, *ref = NULL;
        CHECK(mcf_ewald_create(cell, n, q, trial % 2 ? r1 : r0, NULL, &ew) == MCF_OK, "create");
        CHECK(mcf_ewald_create(cell, n, q, r1, NULL, &ref) == MCF_OK, "create ref");
        if (!ew || !ref) return;
        if (trial % 2 == 0) { /* an energy at r0 first, then new positions */
            (void)mcf_ewald_energy(ew, NULL);
            CHECK(mcf_ewald_set_positions(ew, r1) == MCF_OK, "set_positions");
        } /* else: propose straight after create */
        double de = 0.0;
        CHECK(mcf_ewald_propose(ew, i, r2 + 3 * i, &de) == MCF_OK, "propose: %s",
              mcf_last_error());
        const double e1 = mcf_ewald_energy(ref, NULL);
        CHECK(mcf_ewald_set_positions(ref, r2) == MCF_OK, "set_positions");
        const double e2 = mcf_ewald_energy(ref, NULL);
        const double err = fabs(de - (e2 - e1)) / es;
        if (err > worst) worst = err;
        CHECK(err <= 1e-12, "trial %d: delta %.17g vs E2 - E1 = %.17g (%.3g E_scale)", trial,
              de, e2 - e1, err);
        CHECK(i != 5 || de == 0.0, "moving the zero charge changed the energy by %g", de);
        CHECK(mcf_ewald_accept(ew) == MCF_OK, "accept");
        const double e_acc = mcf_ewald_energy(ew, NULL);
        CHECK(fabs(e_acc - e2) <= 1e-12 * es, "after accept %.17g vs %.17g", e_acc, e2);
        CHECK(memcmp(mcf_ewald_positions(ew), r2, sizeof r2) == 0, "positions after accept");
        mcf_ewald_destroy(ew);
        mcf_ewald_destroy(ref);
    }
    printf("propose after set_positions/create: worst |dE - (E2 - E1)| = %.3g E_scale\n",
           worst);
}

/* Timing, printed and not asserted: set_positions + energy for 14 electrons at r_s = 5
 * (the measurement of the slater-jastrow model), one electron moved between calls. */
static void test_timing(void)
{
    const size_t n = 14;
    const double L = 5.0 * cbrt(4.0 / 3.0 * PI * (double)n), cell[3] = {L, L, L};
    double q[14], r[42];
    for (size_t i = 0; i < n; i++) q[i] = -1.0;
    random_config(cell, n, r);
    mcf_ewald *ew = NULL;
    CHECK(mcf_ewald_create(cell, n, q, r, NULL, &ew) == MCF_OK, "create");
    if (!ew) return;
    mcf_ewald_info info;
    mcf_ewald_get_info(ew, &info);
    const int calls = 2000;
    double best = INFINITY, sum = 0.0;
    for (int rep = 0; rep < 5; rep++) {
        struct timespec t0, t1;
        timespec_get(&t0, TIME_UTC);
        for (int c = 0; c < calls; c++) {
            r[3 * (size_t)(c % 14)] += 0.01;
            mcf_ewald_set_positions(ew, r);
            sum += mcf_ewald_energy(ew, NULL);
        }
        timespec_get(&t1, TIME_UTC);
        const double us = ((double)(t1.tv_sec - t0.tv_sec) * 1e9 +
                           (double)(t1.tv_nsec - t0.tv_nsec)) / calls * 1e-3;
        if (us < best) best = us;
    }
    printf("timing: N = 14, r_s = 5 (L = %.4f, %zu k vectors, alpha L = %.3f): set_positions + "
           "energy %.1f us per call (best of 5 x %d; sum %.6g)\n", L, info.n_kvectors,
           info.alpha * L, best, calls, sum);
    mcf_ewald_destroy(ew);
}

static void test_refusals(void)
{
    /* closed shells per spin: cumulative r_3(m) = 1, 6, 12, 8, 6, 24, 24, 0, 12, 30 */
    size_t cs[9];
    const size_t want[9] = {1, 7, 19, 27, 33, 57, 81, 93, 123};
    CHECK(mcf_heg_closed_shells(9, cs) == MCF_OK, "closed_shells");
    CHECK(memcmp(cs, want, sizeof want) == 0, "closed shells %zu %zu %zu %zu %zu %zu %zu %zu %zu",
          cs[0], cs[1], cs[2], cs[3], cs[4], cs[5], cs[6], cs[7], cs[8]);
    size_t nu = 0, nd = 0;
    CHECK(mcf_heg_electrons(38, 0, &nu, &nd) == MCF_OK && nu == 19 && nd == 19, "N = 38");
    CHECK(mcf_heg_electrons(19, 1, &nu, &nd) == MCF_OK && nu == 19 && nd == 0, "N = 19 pol");

    int rc = mcf_heg_electrons(16, 0, &nu, &nd);
    const char *msg = mcf_last_error();
    printf("N = 16: %s\n", msg);
    CHECK(rc == MCF_EINVAL && strstr(msg, "nearest valid N are 14 and 38"),
          "N = 16 message: %s", msg);
    mcf_heg_hf h;
    rc = mcf_heg_hartree_fock(15, 0, 1.0, 0.0, &h);
    msg = mcf_last_error();
    CHECK(rc == MCF_EINVAL && strstr(msg, "14 and 38"), "N = 15 message: %s", msg);
    rc = mcf_heg_electrons(8, 1, &nu, &nd);
    msg = mcf_last_error();
    printf("N = 8 polarized: %s\n", msg);
    CHECK(rc == MCF_EINVAL && strstr(msg, "7 and 19") && strstr(msg, "polarized"),
          "N = 8 polarized message: %s", msg);
    rc = mcf_heg_electrons(1, 0, &nu, &nd);
    msg = mcf_last_error();
    CHECK(rc == MCF_EINVAL && strstr(msg, "smallest valid N is 2"), "N = 1: %s", msg);
    CHECK(mcf_heg_occupied(8, 1.0, NULL, NULL) == MCF_EINVAL, "8 per spin accepted");

    const double bad_rs[3] = {0.0, -1.0, NAN};
    for (int t = 0; t < 3; t++) {
        rc = mcf_heg_hartree_fock(14, 0, bad_rs[t], 0.0, &h);
        msg = mcf_last_error();
        if (t == 0) printf("r_s = 0: %s\n", msg);
        CHECK(rc == MCF_EINVAL && strstr(msg, "r_s"), "r_s = %g: %s", bad_rs[t], msg);
    }

    /* Ewald refusals */
    const double q[2] = {1, -1}, r[6] = {0, 0, 0, 0.5, 0.5, 0.5};
    const double cell[3] = {1, 1, 1}, badcell[3] = {1, -1, 1};
    mcf_ewald *ew = NULL;
    CHECK(mcf_ewald_create(badcell, 2, q, r, NULL, &ew) == MCF_EINVAL && !ew, "side < 0");
    CHECK(mcf_ewald_create(cell, 0, q, r, NULL, &ew) == MCF_EINVAL, "n = 0");
    const double q0[2] = {0, 0};
    CHECK(mcf_ewald_create(cell, 2, q0, r, NULL, &ew) == MCF_EINVAL, "zero charges");
    const mcf_ewald_options o1 = {1e-20, 0, 0}, o2 = {0, -1, 0}, o3 = {0, 1e-4, 0};
    CHECK(mcf_ewald_create(cell, 2, q, r, &o1, &ew) == MCF_EINVAL, "accuracy 1e-20");
    CHECK(mcf_ewald_create(cell, 2, q, r, &o2, &ew) == MCF_EINVAL, "alpha < 0");
    rc = mcf_ewald_create(cell, 2, q, r, &o3, &ew);
    printf("alpha = 1e-4: %s\n", mcf_last_error());
    CHECK(rc == MCF_EINVAL && strstr(mcf_last_error(), "images"), "tiny alpha accepted");
}

int main(void)
{
    test_madelung();
    test_alpha_independence();
    test_moves();
    test_zero_average();
    test_hartree_fock();
    test_reference();
    test_propose_after_set();
    test_timing();
    test_refusals();
    return check_exit();
}
