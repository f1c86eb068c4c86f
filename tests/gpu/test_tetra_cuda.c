/* test_tetra_cuda.c — the GPU tetrahedron method (cuda/tetra-cuda, mcf_tetra_cuda) against
 * the CPU library (plugins/tetra, mcf_tetra_core) (label gpu).  Without a usable CUDA
 * device it prints "skipped: no device" and returns 77, which ctest counts as skipped.
 *
 * The crystal: tests/tetra/tetra_crystal8.h (8 bands, complex H(k)), and the clean cubic
 * lattice (one band, hopping -1).  eps = DBL_EPSILON, u = FLT_EPSILON, ||H|| the largest
 * |band energy|, n = 8 bands.
 *
 * (a) Eigenproblems.  The Jacobi kernel, cuSOLVER's zheevjBatched and one zheevd per k
 *     against GSL's zheev on the CPU, every band of every k point of a 6^3 grid: backward
 *     stable solvers each give eigenvalues within c n eps ||H|| (c = 4 each, so the bound of
 *     a difference is 8 n eps ||H||); the weights |<a|m,k>|^2 of a band separated from its
 *     neighbours by a gap g within 2 (8 n eps ||H||) / g (first-order perturbation of the
 *     eigenvector), checked where g > 1e-6.
 * (b) The integration alone, in double: a GPU grid made from the CPU's bands and weights
 *     (tcu_grid_from_bands) against tetra_dos at 1024 energies over the bands and 5% beyond,
 *     Bloechl's correction off: every term (D_T, n_T, dw_i w_ia) is >= 0, so the sum of
 *     terms is the result itself and two orders of summation differ by at most
 *     (N_terms + 64) eps |result| (N_terms = 6 n_k n the sequential bound; 64 eps per term
 *     for the formula's rounding with FMA contraction on the GPU).  The same bound for the
 *     band energy and electrons below E_F (the band energy: sum |w e| <= N(E_F) ||H||).
 * (c) With Bloechl's correction on: N and rho do not depend on it (the correction sums to
 *     zero over the corners), so they equal (b)'s; and the orbital DOS sums to rho within
 *     the bound of (b) — on the GPU as on the CPU.
 * (d) Single precision (TCU_SINGLE) and float arithmetic with double sums (TCU_MIXED)
 *     against the GPU's double: rounding the bands and E to float moves every difference
 *     E - e_i by at most delta = u max(||H||, |E|), so N moves by at most 2 delta rho_max
 *     (rho_max the largest DOS on the grid, per cell), the formulas' rounding adds at most
 *     32 u per term (n <= 1, each of its parts <= 3), <= 32 u n over all terms; float sums
 *     add (L + C) u n (L items per chunk summed in sequence, then C chunks).  The measured
 *     errors are printed (docs/benchmarks.md).
 * (e) The whole pipeline, crystal to DOS on the device (Jacobi), against the CPU's: the
 *     eigenvalues differ by (a)'s bound delta_e, which moves N by at most 2 delta_e rho_max,
 *     plus (b)'s summation bound.
 * (f) The Fermi level of 0.3 n and 0.55 n electrons per cell: GPU = CPU within the
 *     search's tolerance, 2e-13 of the band width, plus (b)'s bound on N divided by rho.
 * (g) Bit for bit: the same DOS twice.
 * (h) The clean cubic lattice on a 24^3 grid: N(0) = 1/2 and N(E) + N(-E) = 1 (the grid
 *     maps k to k + (pi, pi, pi), E to -E) within (b)'s bound and the bands' rounding; the
 *     band edges -6 and 6 (Gamma and R are on the grid). */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "mcf/error.h"
#include "mcf_cuda.h"
#include "tetra.h"
#include "tetra_crystal8.h"
#include "tetra_cuda.h"

#define NE 1024

static void energies(double lo, double hi, double *E)
{
    const double pad = 0.05 * (hi - lo);
    for (int i = 0; i < NE; i++)
        E[i] = lo - pad + (hi - lo + 2 * pad) * i / (NE - 1);
}

/* (a) */
static void test_eigen(const mcf_periodic *p)
{
    const size_t n[3] = {6, 6, 6}, nb = p->orbitals, nk = 216;
    tetra_grid *cpu;
    CHECK(tetra_grid_create(p, n, NULL, 1, &cpu) == MCF_OK, "CPU grid: %s", mcf_last_error());
    if (!cpu)
        return;
    double *eps = malloc(nk * nb * sizeof *eps), *w = malloc(nk * nb * nb * sizeof *w);
    double cpu_norm = 0.0;
    for (size_t k = 0; k < nk; k++)
        for (size_t b = 0; b < nb; b++)
            cpu_norm = fmax(cpu_norm, fabs(tetra_grid_energy(cpu, k, b)));
    const double bound = 8.0 * nb * DBL_EPSILON * cpu_norm;
    static const char *const names[] = {"jacobi", "cusolver zheevjBatched", "zheevd per k"};
    for (int s = 0; s < 3; s++) {
        tcu_grid *g;
        if (tcu_grid_create(p, n, NULL, 1, (tcu_solver)s, &g) != MCF_OK) {
            CHECK(0, "%s: %s", names[s], mcf_last_error());
            continue;
        }
        CHECK(tcu_grid_copy_bands(g, eps, w) == MCF_OK, "copy: %s", mcf_last_error());
        double de = 0.0, dw = 0.0, dw_bound_ratio = 0.0;
        size_t checked = 0;
        for (size_t k = 0; k < nk; k++)
            for (size_t b = 0; b < nb; b++) {
                de = fmax(de, fabs(eps[k * nb + b] - tetra_grid_energy(cpu, k, b)));
                double gap = INFINITY;
                if (b > 0)
                    gap = fmin(gap, tetra_grid_energy(cpu, k, b) - tetra_grid_energy(cpu, k, b - 1));
                if (b + 1 < nb)
                    gap = fmin(gap, tetra_grid_energy(cpu, k, b + 1) - tetra_grid_energy(cpu, k, b));
                if (gap <= 1e-6)
                    continue;
                checked++;
                for (size_t a = 0; a < nb; a++) {
                    const double d = fabs(w[(k * nb + b) * nb + a] - tetra_grid_weight(cpu, k, b, a));
                    dw = fmax(dw, d);
                    dw_bound_ratio = fmax(dw_bound_ratio, d / (2.0 * bound / gap));
                }
            }
        printf("(a) %-24s max |eps - GSL| = %.2e (bound %.2e), max |weight - GSL| = %.2e on "
               "%zu nondegenerate bands (%.2g of its bound)\n", names[s], de, bound, dw,
               checked, dw_bound_ratio);
        CHECK(de <= bound, "%s: eigenvalues differ from GSL's by %.3e > %.3e", names[s], de,
              bound);
        CHECK(dw_bound_ratio <= 1.0, "%s: weights differ from GSL's beyond 2 bound / gap",
              names[s]);
        CHECK(checked > nk * nb / 2, "%s: only %zu of %zu bands nondegenerate", names[s],
              checked, nk * nb);
        tcu_grid_destroy(g);
    }
    free(eps);
    free(w);
    tetra_grid_destroy(cpu);
}

/* the CPU grid's bands and weights into a GPU grid */
static tcu_grid *from_cpu(const mcf_periodic *p, const tetra_grid *cpu, const size_t n[3])
{
    const size_t nk = tetra_grid_points(cpu), nb = tetra_grid_bands(cpu);
    double *eps = malloc(nk * nb * sizeof *eps), *w = malloc(nk * nb * nb * sizeof *w);
    for (size_t k = 0; k < nk; k++)
        for (size_t b = 0; b < nb; b++) {
            eps[k * nb + b] = tetra_grid_energy(cpu, k, b);
            for (size_t a = 0; a < nb; a++)
                w[(k * nb + b) * nb + a] = tetra_grid_weight(cpu, k, b, a);
        }
    double G[3][3];
    tetra_reciprocal_metric(p, G);
    tcu_grid *g = NULL;
    CHECK(tcu_grid_from_bands(n, nb, eps, w, G, &g) == MCF_OK, "from bands: %s",
          mcf_last_error());
    free(eps);
    free(w);
    return g;
}

typedef struct curves {
    double dos[NE], idos[NE], orb[NE * 8];
} curves;

static double max_rel(const double *a, const double *b, size_t n, double bound_per_unit)
{
    double worst = 0.0; /* the largest |a - b| / (bound_per_unit |b|), 0 where both are 0 */
    for (size_t i = 0; i < n; i++) {
        const double d = fabs(a[i] - b[i]);
        if (d > 0.0)
            worst = fmax(worst, d / (bound_per_unit * fabs(b[i]) + DBL_MIN));
    }
    return worst;
}

/* (b) to (g) */
static void test_integration(const mcf_periodic *p)
{
    const size_t n[3] = {12, 12, 12}, nb = p->orbitals, nk = 1728;
    tetra_grid *cpu;
    CHECK(tetra_grid_create(p, n, NULL, 1, &cpu) == MCF_OK, "CPU grid: %s", mcf_last_error());
    if (!cpu)
        return;
    tcu_grid *g = from_cpu(p, cpu, n);
    if (!g) {
        tetra_grid_destroy(cpu);
        return;
    }
    double E[NE];
    energies(tetra_grid_emin(cpu), tetra_grid_emax(cpu), E);
    static curves c, d, f;
    const double sum_bound = ((double)(6 * nk * nb) + 64.0) * DBL_EPSILON;

    /* (b) */
    CHECK(tetra_dos(cpu, NE, E, 0, c.dos, c.idos, c.orb) == MCF_OK, "%s", mcf_last_error());
    CHECK(tcu_dos(g, NE, E, 0, TCU_DOUBLE, d.dos, d.idos, d.orb) == MCF_OK, "%s",
          mcf_last_error());
    const double rd = max_rel(d.dos, c.dos, NE, sum_bound);
    const double ri = max_rel(d.idos, c.idos, NE, sum_bound);
    const double ro = max_rel(d.orb, c.orb, NE * nb, sum_bound);
    printf("(b) double, from the CPU's bands: rho, N, orbital rho within %.2g, %.2g, %.2g of "
           "the summation bound %.2e relative\n", rd, ri, ro, sum_bound);
    CHECK(rd <= 1.0 && ri <= 1.0 && ro <= 1.0, "GPU and CPU differ beyond the summation bound");
    for (int b = 0; b < 4; b++) {
        const double EF = tetra_grid_emin(cpu) + (b + 0.5) / 4.0 *
                          (tetra_grid_emax(cpu) - tetra_grid_emin(cpu));
        double ne_c, en_c, ne_g, en_g;
        tetra_band_energy(cpu, EF, 0, &ne_c, &en_c);
        CHECK(tcu_band_energy(g, EF, 0, &ne_g, &en_g) == MCF_OK, "%s", mcf_last_error());
        const double H = fmax(fabs(tetra_grid_emin(cpu)), fabs(tetra_grid_emax(cpu)));
        CHECK(fabs(ne_g - ne_c) <= sum_bound * ne_c && fabs(en_g - en_c) <= sum_bound * ne_c * H,
              "band energy at %g: electrons %.17g vs %.17g, energy %.17g vs %.17g", EF, ne_g,
              ne_c, en_g, en_c);
    }

    /* (c) */
    CHECK(tcu_dos(g, NE, E, 1, TCU_DOUBLE, f.dos, f.idos, f.orb) == MCF_OK, "%s",
          mcf_last_error());
    CHECK(max_rel(f.dos, c.dos, NE, sum_bound) <= 1.0 && max_rel(f.idos, c.idos, NE, sum_bound) <= 1.0,
          "Bloechl's correction changed rho or N");
    double worst_sum = 0.0;
    for (int i = 0; i < NE; i++) {
        double s = 0.0;
        for (size_t a = 0; a < nb; a++)
            s += f.orb[i * nb + a];
        worst_sum = fmax(worst_sum, fabs(s - f.dos[i]) / (sum_bound * c.dos[i] + DBL_MIN));
    }
    CHECK(worst_sum <= 1.0, "the orbital DOS with Bloechl's correction does not sum to rho "
          "(%.3g of the bound)", worst_sum);

    /* (d) */
    double rho_max = 0.0;
    for (int i = 0; i < NE; i++)
        rho_max = fmax(rho_max, d.dos[i]);
    const double H = fmax(fabs(tetra_grid_emin(cpu)), fabs(tetra_grid_emax(cpu)));
    for (int prec = TCU_MIXED; prec <= TCU_SINGLE; prec++) {
        static curves s;
        CHECK(tcu_dos(g, NE, E, 0, (tcu_precision)prec, s.dos, s.idos, s.orb) == MCF_OK, "%s",
              mcf_last_error());
        tcu_timing t;
        tcu_grid_timing(g, &t);
        const double L = ceil((double)nk / (double)t.chunks) * 6.0 * (double)nb;
        const double bound_at = 2.0 * FLT_EPSILON * rho_max + 32.0 * FLT_EPSILON * nb +
                                (prec == TCU_SINGLE ? (L + (double)t.chunks) * FLT_EPSILON * nb
                                                    : 0.0);
        double worst = 0.0, worst_ratio = 0.0, worst_rho = 0.0;
        for (int i = 0; i < NE; i++) {
            const double delta = FLT_EPSILON * fmax(H, fabs(E[i]));
            const double b = 2.0 * delta * rho_max + (bound_at - 2.0 * FLT_EPSILON * rho_max);
            const double e = fabs(s.idos[i] - d.idos[i]);
            worst = fmax(worst, e);
            worst_ratio = fmax(worst_ratio, e / b);
            worst_rho = fmax(worst_rho, fabs(s.dos[i] - d.dos[i]) / rho_max);
        }
        printf("(d) %s: max |N - N_double| = %.2e (%.2g of the bound), max |rho - rho_double| "
               "= %.2e of rho_max\n", prec == TCU_SINGLE ? "single" : "mixed ", worst,
               worst_ratio, worst_rho);
        CHECK(worst_ratio <= 1.0, "%s precision: N beyond the single-precision bound",
              prec == TCU_SINGLE ? "single" : "mixed");
    }

    /* (e) */
    tcu_grid *full;
    if (tcu_grid_create(p, n, NULL, 1, TCU_JACOBI, &full) == MCF_OK) {
        static curves e;
        CHECK(tcu_dos(full, NE, E, 0, TCU_DOUBLE, e.dos, e.idos, NULL) == MCF_OK, "%s",
              mcf_last_error());
        const double de = 8.0 * nb * DBL_EPSILON * H;
        double worst = 0.0;
        for (int i = 0; i < NE; i++)
            worst = fmax(worst, fabs(e.idos[i] - c.idos[i]) /
                                    (2.0 * de * rho_max + sum_bound * c.idos[i] + DBL_MIN));
        printf("(e) crystal to N(E) on the device: %.2g of the bound\n", worst);
        CHECK(worst <= 1.0, "the device's whole pipeline differs from the CPU's beyond the "
              "bound");
        tcu_grid_destroy(full);
    } else
        CHECK(0, "Jacobi grid: %s", mcf_last_error());

    /* (f) */
    for (int q = 0; q < 2; q++) {
        const double el = (q ? 0.55 : 0.3) * nb;
        double ef_c, ef_g, rho;
        CHECK(tetra_fermi_level(cpu, el, &ef_c) == MCF_OK, "%s", mcf_last_error());
        CHECK(tcu_fermi_level(g, el, &ef_g) == MCF_OK, "%s", mcf_last_error());
        tetra_dos(cpu, 1, &ef_c, 0, &rho, NULL, NULL);
        const double tol = 2e-13 * (tetra_grid_emax(cpu) - tetra_grid_emin(cpu)) +
                           sum_bound * el / fmax(rho, DBL_MIN);
        CHECK(fabs(ef_g - ef_c) <= tol, "Fermi level of %g electrons: %.17g (GPU) vs %.17g "
              "(CPU), tolerance %.3g", el, ef_g, ef_c, tol);
    }

    /* (g) */
    static curves again;
    tcu_dos(g, NE, E, 0, TCU_DOUBLE, again.dos, again.idos, again.orb);
    CHECK(!memcmp(again.dos, d.dos, sizeof d.dos) && !memcmp(again.idos, d.idos, sizeof d.idos) &&
          !memcmp(again.orb, d.orb, sizeof d.orb), "two DOS calls differ");
    tcu_grid_destroy(g);
    tetra_grid_destroy(cpu);
}

/* (h) */
static void test_cubic(void)
{
    static const double a[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    mcf_cell *cell = NULL;
    const mcf_periodic *p = NULL;
    if (!mcf_cell_create(&cell) && !mcf_cell_shape(cell, 3, 1, 1, a) &&
        !mcf_cell_bond(cell, 1, 0, 0, 0, 0, -1.0, 0.0) &&
        !mcf_cell_bond(cell, 0, 1, 0, 0, 0, -1.0, 0.0) &&
        !mcf_cell_bond(cell, 0, 0, 1, 0, 0, -1.0, 0.0))
        p = mcf_cell_view(cell);
    const size_t n[3] = {24, 24, 24};
    tcu_grid *g = NULL;
    if (!p || tcu_grid_create(p, n, NULL, 0, TCU_JACOBI, &g) != MCF_OK) {
        CHECK(0, "cubic grid: %s", mcf_last_error());
        mcf_cell_destroy(cell);
        return;
    }
    mcf_cell_destroy(cell);
    static double E[NE], rho[NE], N[NE];
    for (int i = 0; i < NE; i++)
        E[i] = -6.3 + 12.6 * i / (NE - 1); /* symmetric about 0 */
    CHECK(tcu_dos(g, NE, E, 1, TCU_DOUBLE, rho, N, NULL) == MCF_OK, "%s", mcf_last_error());
    const double sum_bound = (6.0 * 24 * 24 * 24 + 64.0) * DBL_EPSILON;
    double half, r0;
    CHECK(tcu_dos(g, 1, (const double[]){0.0}, 1, TCU_DOUBLE, &r0, &half, NULL) == MCF_OK, "%s",
          mcf_last_error());
    CHECK(fabs(half - 0.5) <= sum_bound * 0.5 + 6.0 * DBL_EPSILON, "N(0) = %.17g, not 1/2", half);
    /* N(E) + N(-E) = 1: the map k -> k + (1/2, 1/2, 1/2) takes the grid and its tetrahedra
     * to themselves and the band to minus itself, to the rounding of the band energies (three
     * cosines times 2: 12 eps 6) and of the energies E and -E (4 eps 6), delta = 16 eps 6,
     * which moves N by 2 delta rho_max (rho_max < 0.15 per cell per t), plus the summation
     * bound for each of the two */
    const double delta = 16.0 * DBL_EPSILON * 6.0;
    double asym = 0.0;
    for (int i = 0; i < NE; i++)
        asym = fmax(asym, fabs(N[i] + N[NE - 1 - i] - 1.0));
    CHECK(asym <= 2.0 * delta * 0.15 + 2.0 * sum_bound, "N(E) + N(-E) - 1 up to %.3g", asym);
    CHECK(fabs(tcu_grid_emin(g) + 6.0) < 1e-12 && fabs(tcu_grid_emax(g) - 6.0) < 1e-12,
          "cubic band edges %.17g, %.17g, not -6, 6 (the grid holds Gamma and R)",
          tcu_grid_emin(g), tcu_grid_emax(g));
    tcu_grid_destroy(g);
}

int main(void)
{
    char why[256];
    if (!mcu_probe(why, sizeof why)) {
        printf("skipped: no device (%s)\n", why);
        return 77;
    }
    if (mcu_device_init("test_tetra_cuda", "tetra") != MCF_OK) {
        printf("device: %s\n", mcf_last_error());
        return 1;
    }
    printf("device: %s\n", why);
    mcf_cell *cell = NULL;
    const mcf_periodic *p = crystal8(&cell);
    CHECK(p != NULL, "the 8-band crystal: %s", mcf_last_error());
    if (p) {
        test_eigen(p);
        test_integration(p);
    }
    mcf_cell_destroy(cell);
    test_cubic();
    return check_exit();
}
