/* test_vmc_qmcpack.c — the cross-code check: slater-jastrow VMC of the 14-electron
 * homogeneous electron gas against QMCPACK's test tests/heg/heg_14_gamma, with the same
 * trial wave functions.
 *
 * The system (QMCPACK's heg.ptcl.xml): 14 electrons, 7 up and 7 down, r_s = 5, a simple
 * cubic cell with periodic boundaries, Gamma point (the closed-shell plane waves |n|^2 <= 1
 * per spin), the Ewald-summed Coulomb interaction with a neutralizing background.  The
 * wave functions:
 *   heg_SJ  (heg.sj.wfs.xml): the Slater determinants times the two-body B-spline Jastrow
 *           (QMCPACK's BsplineFunctor, 5 coefficients per spin pair, cusps -1/4 and -1/2
 *           built in, cutoff the Wigner-Seitz radius L/2 as no rcut is given) with
 *               uu = 1.082858193 0.6653279375 0.4358910287 0.2243616172 0.1102948764
 *               ud = 1.696171854 1.047722154 0.6275148566 0.3175982878 0.1446706214;
 *           here: jastrow = bspline with jastrow_uu, jastrow_ud those numbers, cutoff 0
 *           (= L/2) (models/slater-jastrow/sj_bspline.c follows the BsplineFunctor
 *           convention, so the coefficients carry over unchanged).
 *   heg_HF  (heg.ni.wfs.xml with the interacting Hamiltonian): the Slater determinants
 *           alone; here: jastrow = none.
 * The references are QMCPACK's high-block-count VMC results listed in that test's README
 * (tests/heg/heg_14_gamma/README of the QMCPACK repository, "Reference data from the high
 * block count runs"), per cell, hartree:
 *     heg_SJ  LocalEnergy -1.073323 +- 0.000027   Variance 0.024574 +- 0.000018
 *     heg_HF  LocalEnergy -0.812484 +- 0.000027   Variance 0.193169 +- 0.001852
 *     heg_NI  LocalEnergy  0.627711 (exact)       the kinetic energy of the determinant
 * (the README's second heg_SJ style, heg_SJ_new, gives -1.073286 +- 0.000027; the two
 * agree within 1 combined sigma.)  A third, exact reference for the Slater-only case is
 * this project's finite-N Hartree-Fock energy (heg.h, mcf_heg_hartree_fock): <D|H|D> of the
 * same determinant and the same Ewald Hamiltonian, to ~1e-12.
 *
 * What is compared (mcf's results.tsv: `energy` is E_L per electron, `variance` the core's
 * Var(E_L)/N with E_L the whole cell's local energy, so the cell's E = N energy and
 * Var(E) = N variance, each with the core's error: blocking for energy, jackknife over
 * bins for variance, combined over the walkers):
 *   (1) Slater-Jastrow: |N energy - E_SJ| <= 3 sqrt((N energy_err)^2 + 0.000027^2) and
 *       |N variance - Var_SJ| <= 3 sqrt((N variance_err)^2 + 0.000018^2).
 *   (2) Slater only: the same against heg_HF (0.000027 and 0.001852), and
 *       |N energy - N E_HF(exact)| <= 3 N energy_err; the kinetic energy is exact at every
 *       step for plane waves (they are eigenfunctions of the kinetic operator), so
 *       N kinetic equals the exact N E_kin(HF) to 1e-9 and QMCPACK's heg_NI 0.627711 to
 *       its printed 6 decimals (5e-7); and the exact E_HF is QMCPACK's heg_HF within 3 of
 *       its sigmas (a deterministic check that both codes have the same Ewald Hamiltonian,
 *       Madelung term included).
 * The tolerance: both codes estimate the same expectation value over |Psi|^2 (the same
 * Psi, the same H), so the difference of the two estimates has mean 0 and, the runs being
 * independent, standard deviation sqrt(sigma_mcf^2 + sigma_QMCPACK^2); its distribution is
 * Gaussian to a good approximation (many effectively independent measurements per run), so
 * 3 combined sigma is exceeded by a correct code with probability 0.27 % per comparison
 * (about 1.3 % for the five statistical comparisons together; the seed is fixed, so the
 * test is deterministic, and it was not chosen to make the test pass).
 * One caveat for the variances: the error of a variance estimate involves <E_L^4>.  Without a
 * Jastrow, E_L is the constant kinetic energy (plane waves are kinetic eigenfunctions) plus V,
 * and V ~ 1/r at the coalescence of two unlike spins, where |Psi|^2 stays finite: <E_L^2> is
 * finite but <E_L^4> ~ int r^2 r^-4 dr is not, so the Slater-only variance has heavy tails and
 * its error bar (QMCPACK's: 1 % of the value, against 0.07 % with the Jastrow; ours: 5 %
 * against 0.7 %) is only indicative.  With the Jastrow the cusps cancel the 1/r, and what is
 * left is E_L ~ 1/d at a distance d from a node of the determinant (weight d^2), rare enough
 * that the error bars behave.  Both are asserted at 3 sigma as above.
 *
 * Statistics (measured on 2 cores, seed 20240611): a sweep (14 single-electron moves) costs
 * ~0.03 ms, a measurement ~0.35 ms; walkers = 4, thermalize = 2000, measure_every = 2
 * (tau of the energy ~1.3 sweeps), 56000 sweeps with the Jastrow (~35 s) and 12000 without
 * (~6 s).  The Jastrow run's error bars are ~0.0005 hartree per cell for E and ~0.00018
 * hartree^2 for Var(E): the test resolves 0.05 % of E (0.2 % of the correlation energy
 * E_SJ - E_HF = -0.26 hartree) and 0.7 % of Var(E); QMCPACK's errors are 10 to 20 times
 * smaller.  The Slater-only run's error is ~0.003 hartree (its variance is 8 times
 * larger); test_vmc_heg checks that case more tightly against the exact HF energy.
 *
 * Measured with this seed and schedule (per cell, hartree): with the Jastrow
 * E = -1.072875 +- 0.000521 (+0.86 combined sigma from QMCPACK), Var(E) = 0.024484 +-
 * 0.000181 (-0.50); without, E = -0.807125 +- 0.003264 (+1.64 from QMCPACK, +1.66 from the
 * exact HF), Var(E) = 0.199113 +- 0.009740 (+0.60); the kinetic energy 0.627711206 (exact
 * to 2e-12).  The exact HF energy -0.812548703 lies 0.000065 = 2.4 of QMCPACK's sigmas below
 * QMCPACK's heg_HF estimate: inside the 3 sigma, and the only one of these differences above
 * 2 sigma.  It does not depend on the seed.  Whether it is chance (1.6 % for 2.4 sigma;
 * QMCPACK's own long test run gives -0.812621 +- 0.000081, on the other side) or a small
 * systematic of QMCPACK's (its optimized Ewald breakup, LR_dim_cutoff = 6, approximates the
 * Ewald sum, which heg.h evaluates to 1e-12) is not settled here. */
#include "physics_util.h"

#include "heg.h"

static const char *mcf_program;

#define N_EL 14
#define SEED 20240611ULL

static const char qmc_uu[] = "1.082858193 0.6653279375 0.4358910287 0.2243616172 0.1102948764";
static const char qmc_ud[] = "1.696171854 1.047722154 0.6275148566 0.3175982878 0.1446706214";

/* QMCPACK's heg_14_gamma README, high block count runs (per cell, hartree) */
static const double E_SJ = -1.073323, E_SJ_ERR = 0.000027;
static const double VAR_SJ = 0.024574, VAR_SJ_ERR = 0.000018;
static const double E_HF = -0.812484, E_HF_ERR = 0.000027;
static const double VAR_HF = 0.193169, VAR_HF_ERR = 0.001852;
static const double E_NI = 0.627711; /* printed to 6 decimals */

typedef struct vmc {
    double e, e_err, tau, kin, kin_err, var, var_err, acc, wall;
    int ok;
} vmc;

/* one run: N = 14, r_s = 5, walkers 4, thermalize 2000, measure_every 2; per-cell values */
static vmc run(const char *name, const char *model_keys, long sweeps)
{
    vmc v = {0};
    char sections[2048];
    snprintf(sections, sizeof sections,
             "evaluator = planewave\nwalkers = 4\n[schedule]\nthermalize = 2000\n"
             "sweeps = %ld\nmeasure_every = 2\n[model]\nelectrons = %d\nrs = 5\n%s",
             sweeps, N_EL, model_keys);
    phys_table t;
    const double t0 = phys_now();
    if (phys_run_mcf(mcf_program, name, "slater-jastrow", SEED, sections, &t)) {
        CHECK(0, "%s: the run failed", name);
        return v;
    }
    v.wall = phys_now() - t0;
    v.e = N_EL * phys_get(&t, 0, "energy");
    v.e_err = N_EL * phys_get(&t, 0, "energy_err");
    v.tau = phys_get(&t, 0, "tau_energy");
    v.kin = N_EL * phys_get(&t, 0, "kinetic");
    v.kin_err = N_EL * phys_get(&t, 0, "kinetic_err");
    v.var = N_EL * phys_get(&t, 0, "variance");
    v.var_err = N_EL * phys_get(&t, 0, "variance_err");
    v.acc = phys_get(&t, 0, "acceptance");
    v.ok = isfinite(v.e) && isfinite(v.e_err) && isfinite(v.var) && isfinite(v.var_err);
    CHECK(v.ok, "%s: results.tsv lacks energy, variance or their errors", name);
    phys_table_free(&t);
    return v;
}

/* |mc - ref| <= 3 sqrt(mc_err^2 + ref_err^2), printed with the sigmas */
static void compare(const char *what, double mc, double mc_err, double ref, double ref_err)
{
    const double s = sqrt(mc_err * mc_err + ref_err * ref_err), d = mc - ref;
    printf("  %-34s mcf %+.6f +- %.6f   ref %+.6f +- %.6f   diff %+.6f = %+.2f combined "
           "sigma (tol %.6f)\n", what, mc, mc_err, ref, ref_err, d, d / s, 3.0 * s);
    CHECK(isfinite(mc_err) && mc_err > 0, "%s: error bar %g is not positive", what, mc_err);
    CHECK(isfinite(mc) && fabs(d) <= 3.0 * s, "%s: mcf %.6f +- %.6f vs %.6f +- %.6f: "
          "|diff| %.6f > 3 combined sigma %.6f", what, mc, mc_err, ref, ref_err, fabs(d),
          3.0 * s);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s MCF_PROGRAM\n", argv[0]);
        return 2;
    }
    mcf_program = argv[1];
    const double t0 = phys_now();

    /* (1) Slater-Jastrow with QMCPACK's B-spline coefficients */
    char keys[512];
    snprintf(keys, sizeof keys, "jastrow = bspline\njastrow_uu = %s\njastrow_ud = %s\n",
             qmc_uu, qmc_ud);
    vmc sj = run("vmc_qmcpack_sj", keys, 56000);
    if (sj.ok) {
        printf("heg_SJ (N = 14, r_s = 5, B-spline Jastrow): E = %.6f +- %.6f (tau %.2f "
               "sweeps), Var(E) = %.6f +- %.6f, kinetic %.6f, acceptance %.3f, %.1f s\n",
               sj.e, sj.e_err, sj.tau, sj.var, sj.var_err, sj.kin, sj.acc, sj.wall);
        compare("E (cell) vs QMCPACK heg_SJ", sj.e, sj.e_err, E_SJ, E_SJ_ERR);
        compare("Var(E) (cell) vs QMCPACK heg_SJ", sj.var, sj.var_err, VAR_SJ, VAR_SJ_ERR);
    }

    /* (2) the Slater determinant alone */
    mcf_heg_hf hf;
    const int rc = mcf_heg_hartree_fock(N_EL, 0, 5.0, 1e-12, &hf);
    CHECK(rc == 0, "mcf_heg_hartree_fock(14, rs = 5) failed");
    vmc d = run("vmc_qmcpack_hf", "jastrow = none\n", 12000);
    if (d.ok && rc == 0) {
        const double hf_cell = N_EL * hf.total, kin_cell = N_EL * hf.kinetic;
        printf("heg_HF (N = 14, r_s = 5, no Jastrow): E = %.6f +- %.6f (tau %.2f sweeps), "
               "Var(E) = %.6f +- %.6f, kinetic %.9f, acceptance %.3f, %.1f s; exact HF per "
               "cell %.9f (kinetic %.9f, exchange %.9f, Madelung %.9f)\n", d.e, d.e_err, d.tau,
               d.var, d.var_err, d.kin, d.acc, d.wall, hf_cell, kin_cell,
               N_EL * hf.exchange, N_EL * hf.madelung);
        compare("E (cell) vs QMCPACK heg_HF", d.e, d.e_err, E_HF, E_HF_ERR);
        compare("Var(E) (cell) vs QMCPACK heg_HF", d.var, d.var_err, VAR_HF, VAR_HF_ERR);
        compare("E (cell) vs exact HF (heg.h)", d.e, d.e_err, hf_cell, 0.0);
        /* deterministic: the exact HF energy against QMCPACK's estimate of it */
        const double dq = hf_cell - E_HF;
        printf("  %-34s exact %+.6f   QMCPACK %+.6f +- %.6f   diff %+.6f = %+.2f sigma\n",
               "exact HF vs QMCPACK heg_HF", hf_cell, E_HF, E_HF_ERR, dq, dq / E_HF_ERR);
        CHECK(fabs(dq) <= 3.0 * E_HF_ERR, "exact HF %.6f vs QMCPACK heg_HF %.6f +- %.6f: "
              "|diff| %.6f > 3 sigma", hf_cell, E_HF, E_HF_ERR, fabs(dq));
        /* the kinetic energy: exact at every step; results.tsv prints 10 digits */
        const double ktol = 1e-9 + N_EL * 0.5e-9 * fabs(hf.kinetic);
        printf("  %-34s mcf %.9f   exact %.9f (diff %.2e, tol %.1e)   QMCPACK heg_NI %.6f "
               "(diff %.2e, tol 5e-7)\n", "kinetic (cell)", d.kin, kin_cell, d.kin - kin_cell,
               ktol, E_NI, d.kin - E_NI);
        CHECK(fabs(d.kin - kin_cell) <= ktol, "kinetic %.12f vs exact %.12f", d.kin, kin_cell);
        CHECK(fabs(d.kin - E_NI) <= 5e-7 + ktol, "kinetic %.9f vs QMCPACK heg_NI %.6f", d.kin,
              E_NI);
        CHECK(fabs(kin_cell - E_NI) <= 5e-7, "exact kinetic %.9f vs QMCPACK heg_NI %.6f",
              kin_cell, E_NI);
    }
    if (sj.ok && d.ok)
        printf("correlation energy of the Jastrow, E_SJ - E_HF = %.6f +- %.6f hartree per cell "
               "(QMCPACK %.6f +- %.6f)\n", sj.e - d.e,
               sqrt(sj.e_err * sj.e_err + d.e_err * d.e_err),
               E_SJ - E_HF, sqrt(E_SJ_ERR * E_SJ_ERR + E_HF_ERR * E_HF_ERR));
    printf("test_vmc_qmcpack: %.1f s\n", phys_now() - t0);
    return check_exit();
}
