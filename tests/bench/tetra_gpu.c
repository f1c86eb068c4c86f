/* tetra_gpu.c — benchmark of the tetrahedron method on the GPU (cuda/tetra-cuda) against the
 * CPU library (plugins/tetra) on one core and on all cores (issue 19; docs/benchmarks.md).
 *
 * The shape of seed 000's benchmark: 8 bands (tests/tetra/tetra_crystal8.h), the orbital-
 * resolved DOS at 1024 energies over the bands, grids of 10^3, 20x20x10, 25^3 and 60x60x10
 * k points and larger ones.  Per grid:
 *   - the eigenproblems: GSL on all CPU cores; the Jacobi kernel; cuSOLVER zheevjBatched;
 *     and (10^3 only) one cusolverDnZheevd call per k point — time per k point;
 *   - the integration (orbital DOS, N, rho; Bloechl on): the CPU on one core and on all
 *     cores, the GPU kernel (+ the chunks' sum) in double, mixed and single precision, best
 *     of 5; the GPU call from bands on the host (copy in, integrate, copy out: the seed's
 *     "worst case"); time per (energy x band x tetrahedron), the kernel's bytes at least
 *     (bands, weights, energies, outputs once) per second as % of the device's copy
 *     bandwidth measured in the same run, and the speedups;
 *   - the single- and mixed-precision errors against double: max |N - N_double| and
 *     max |rho - rho_double| / rho_max.
 * usage: tetra_gpu [--quick]   (--quick: the two smallest grids; a large grid's one-core
 * CPU run is skipped beyond 300 000 k points and said so) */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "mcf/error.h"
#include "mcf_cuda.h"
#include "tetra_crystal8.h"
#include "tetra_impl.h"
#include "tetra_cuda.h"

#define NE 1024
#define REPS 5

static void die(const char *what)
{
    fprintf(stderr, "tetra_gpu: %s: %s\n", what, mcf_last_error());
    exit(1);
}

/* best of REPS CPU DOS runs on `threads` threads (seconds) */
static double cpu_dos(const tetra_grid *g, const double *E, int threads, double *dos,
                      double *idos, double *orb, int reps)
{
    set_threads(threads);
    double best = 1e30;
    for (int r = 0; r < reps; r++) {
        const double t0 = now();
        if (tetra_dos(g, NE, E, 1, dos, idos, orb))
            die("CPU DOS");
        best = fmin(best, now() - t0);
    }
    set_threads(max_threads());
    return best;
}

/* the (energy, band, tetrahedron) triples with the energy strictly inside the
 * tetrahedron's range: where the formulas run (the rest is a comparison); E ascending */
static double active_pairs(const tetra_grid *g, const double *E)
{
    const size_t nb = tetra_grid_bands(g), nk = tetra_grid_points(g);
    double count = 0.0;
#pragma omp parallel for reduction(+ : count) schedule(static)
    for (size_t c = 0; c < nk; c++)
        for (unsigned t = 0; t < 6; t++) {
            size_t k[4];
            tetra_grid_corners(g, c, t, k);
            for (size_t b = 0; b < nb; b++) {
                double lo = INFINITY, hi = -INFINITY;
                for (int i = 0; i < 4; i++) {
                    lo = fmin(lo, tetra_grid_energy(g, k[i], b));
                    hi = fmax(hi, tetra_grid_energy(g, k[i], b));
                }
                for (int i = 0; i < NE; i++) /* short: a linear scan is enough here */
                    count += E[i] > lo && E[i] < hi;
            }
        }
    return count;
}

typedef struct gpu_run {
    double kernel_ms, reduce_ms, call_ms, floor;
} gpu_run;

/* best of REPS after one warm-up; orb NULL: the total DOS and N only */
static gpu_run gpu_dos(tcu_grid *g, const double *E, tcu_precision prec, double *dos,
                       double *idos, double *orb)
{
    gpu_run best = {1e30, 1e30, 1e30, 0};
    for (int r = 0; r < REPS + 1; r++) { /* the first warms up */
        const double t0 = now();
        if (tcu_dos(g, NE, E, 1, prec, dos, idos, orb))
            die("GPU DOS");
        const double call = 1e3 * (now() - t0);
        tcu_timing t;
        tcu_grid_timing(g, &t);
        if (r == 0)
            continue;
        best.kernel_ms = fmin(best.kernel_ms, t.integrate_ms);
        best.reduce_ms = fmin(best.reduce_ms, t.reduce_ms);
        best.call_ms = fmin(best.call_ms, call);
        best.floor = t.floor_bytes;
    }
    return best;
}

int main(int argc, char **argv)
{
    const int quick = argc > 1 && !strcmp(argv[1], "--quick");
    char why[256];
    if (!mcu_probe(why, sizeof why)) {
        printf("skipped: no device (%s)\n", why);
        return 77;
    }
    if (mcu_device_init("tetra_gpu", "tetra"))
        die("device");
    const double bw = mcu_copy_bandwidth((size_t)1 << 30, 5);
    const int cores = max_threads();
    mcf_cell *cell = NULL;
    const mcf_periodic *p = crystal8(&cell);
    if (!p)
        die("crystal");
    const size_t nb = p->orbitals;
    printf("# tetra_gpu: %s; copy bandwidth %.0f GB/s; CPU: %d cores\n", why, bw, cores);
    printf("# crystal: tests/tetra/tetra_crystal8.h, %zu bands; %d energies; orbital DOS, "
           "N and rho, Bloechl's correction on\n", nb, NE);

    static const size_t grids[][3] = {{10, 10, 10}, {20, 20, 10}, {25, 25, 25}, {60, 60, 10},
                                      {100, 100, 10}, {64, 64, 64}, {100, 100, 100}};
    const int count = quick ? 2 : (int)(sizeof grids / sizeof grids[0]);
    printf("\n## Integration: orbital DOS at %d energies\n\n", NE);
    char eig_lines[16][256];
    for (int gi = 0; gi < count; gi++) {
        const size_t *n = grids[gi], nk = n[0] * n[1] * n[2];
        double t0 = now();
        tetra_grid *cpu;
        if (tetra_grid_create(p, n, NULL, 1, &cpu))
            die("CPU grid");
        const double cpu_eig = now() - t0;
        tcu_grid *jac, *cus;
        if (tcu_grid_create(p, n, NULL, 1, TCU_JACOBI, &jac))
            die("Jacobi grid");
        tcu_timing tj, tc, tl = {0};
        tcu_grid_timing(jac, &tj);
        if (tcu_grid_create(p, n, NULL, 1, TCU_CUSOLVER, &cus))
            die("cuSOLVER grid");
        tcu_grid_timing(cus, &tc);
        tcu_grid_destroy(cus);
        if (gi == 0) {
            tcu_grid *loop;
            if (tcu_grid_create(p, n, NULL, 1, TCU_CUSOLVER_PER_K, &loop))
                die("per-k grid");
            tcu_grid_timing(loop, &tl);
            tcu_grid_destroy(loop);
        }
        char per_k[64] = "-";
        if (gi == 0)
            snprintf(per_k, sizeof per_k, "%.2f us", 1e3 * tl.eigen_ms / (double)nk);
        snprintf(eig_lines[gi], sizeof eig_lines[gi],
                 "| %zux%zux%zu | %zu | %.3f us | %.3f us | %.3f us | %s | %.3f us |", n[0], n[1],
                 n[2], nk, 1e6 * cpu_eig / (double)nk, 1e3 * tj.eigen_ms / (double)nk,
                 1e3 * tc.eigen_ms / (double)nk, per_k, 1e3 * tj.hk_ms / (double)nk);

        double E[NE];
        const double lo = tetra_grid_emin(cpu), hi = tetra_grid_emax(cpu), pad = 0.05 * (hi - lo);
        for (int i = 0; i < NE; i++)
            E[i] = lo - pad + (hi - lo + 2 * pad) * i / (NE - 1);
        double *dos = malloc(NE * sizeof *dos), *idos = malloc(NE * sizeof *idos);
        double *orb = malloc(NE * nb * sizeof *orb);
        double *gd = malloc(NE * sizeof *gd), *gi_ = malloc(NE * sizeof *gi_);
        double *go = malloc(NE * nb * sizeof *go);
        double *sd = malloc(NE * sizeof *sd), *si = malloc(NE * sizeof *si);
        double *so = malloc(NE * nb * sizeof *so);
        if (!dos || !idos || !orb || !gd || !gi_ || !go || !sd || !si || !so)
            die("memory");
        const double all = cpu_dos(cpu, E, cores, dos, idos, orb, nk > 300000 ? 1 : 3);
        const double one = nk <= 300000 ? cpu_dos(cpu, E, 1, dos, idos, orb, 1) : NAN;
        const double terms = (double)NE * nb * 6.0 * (double)nk;
        const double active = active_pairs(cpu, E);
        printf("### %zu x %zu x %zu = %zu k points\n\nCPU: %.1f ms on one core (%.2f ns per "
               "energy x band x tetrahedron), %.1f ms on %d cores; %.3g of the %.3g (energy, "
               "band, tetrahedron) triples have the energy inside the tetrahedron\n\n", n[0],
               n[1], n[2], nk, 1e3 * one, 1e9 * one / terms, 1e3 * all, cores, active, terms);
        printf("| GPU precision | kernel ms | + sum of chunks ms | ns per E x band x tet | "
               "ns per triple inside | bytes at least | %% of copy bandwidth | x one core | x %d "
               "cores | call from host bands ms | max abs(N - N_double) | max abs(rho - "
               "rho_double) / rho_max |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n",
               cores);
        /* the worst case of seed 000: the bands on the host, copied in and integrated */
        double G[3][3];
        tetra_reciprocal_metric(p, G);
        double *eps = malloc(nk * nb * sizeof *eps), *w = malloc(nk * nb * nb * sizeof *w);
        if (!eps || !w)
            die("memory");
        if (tcu_grid_copy_bands(jac, eps, w))
            die("copy bands");
        double rho_max = 0.0;
        for (int prec = TCU_DOUBLE; prec <= TCU_SINGLE; prec++) {
            double *od = prec == TCU_DOUBLE ? gd : sd, *oi = prec == TCU_DOUBLE ? gi_ : si;
            double *oo = prec == TCU_DOUBLE ? go : so;
            const gpu_run r = gpu_dos(jac, E, (tcu_precision)prec, od, oi, oo);
            double host_ms = 1e30;
            for (int rep = 0; rep < 3; rep++) {
                t0 = now();
                tcu_grid *fb;
                if (tcu_grid_from_bands(n, nb, eps, w, G, &fb))
                    die("grid from bands");
                if (tcu_dos(fb, NE, E, 1, (tcu_precision)prec, od, oi, oo))
                    die("GPU DOS from bands");
                tcu_grid_destroy(fb);
                host_ms = fmin(host_ms, 1e3 * (now() - t0));
            }
            double dN = 0.0, drho = 0.0;
            if (prec == TCU_DOUBLE)
                for (int i = 0; i < NE; i++)
                    rho_max = fmax(rho_max, gd[i]);
            else
                for (int i = 0; i < NE; i++) {
                    dN = fmax(dN, fabs(si[i] - gi_[i]));
                    drho = fmax(drho, fabs(sd[i] - gd[i]) / rho_max);
                }
            const double ms = r.kernel_ms + r.reduce_ms;
            printf("| %s | %.3f | %.3f | %.4f | %.3f | %.1f MB | %.2f%% | %.0f | %.1f | %.2f | "
                   "%.1e | %.1e |\n",
                   prec == TCU_DOUBLE ? "double" : prec == TCU_MIXED ? "mixed" : "single",
                   r.kernel_ms, r.reduce_ms, 1e6 * r.kernel_ms / terms,
                   1e6 * r.kernel_ms / active, 1e-6 * r.floor,
                   100.0 * r.floor / (1e-3 * r.kernel_ms) / (1e9 * bw), one / (1e-3 * ms),
                   all / (1e-3 * ms), host_ms, dN, drho);
        }
        {
            const gpu_run r = gpu_dos(jac, E, TCU_DOUBLE, sd, si, NULL);
            printf("| double, rho and N only | %.3f | %.3f | %.4f | %.3f | %.1f MB | %.2f%% | | "
                   "| | | |\n", r.kernel_ms, r.reduce_ms, 1e6 * r.kernel_ms / terms,
                   1e6 * r.kernel_ms / active, 1e-6 * r.floor,
                   100.0 * r.floor / (1e-3 * r.kernel_ms) / (1e9 * bw));
        }
        double worst = 0.0;
        for (int i = 0; i < NE; i++)
            worst = fmax(worst, fabs(gi_[i] - idos[i]));
        printf("\nGPU double against the CPU: max |N - N_cpu| = %.1e\n\n", worst);
        free(eps);
        free(w);
        free(dos);
        free(idos);
        free(orb);
        free(gd);
        free(gi_);
        free(go);
        free(sd);
        free(si);
        free(so);
        tcu_grid_destroy(jac);
        tetra_grid_destroy(cpu);
        fflush(stdout);
    }
    printf("\n## Eigenproblems (per k point)\n\n| grid | k points | GSL, %d cores | Jacobi "
           "kernel | cuSOLVER zheevjBatched | cuSOLVER zheevd per k | H(k) on the GPU |\n"
           "|---|---|---|---|---|---|---|\n", cores);
    for (int gi = 0; gi < count; gi++)
        printf("%s\n", eig_lines[gi]);
    mcf_cell_destroy(cell);
    return 0;
}
