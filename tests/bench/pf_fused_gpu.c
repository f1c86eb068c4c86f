/* pf_fused_gpu.c — kpm-cuda's pseudofermion gradient (one molecular-dynamics force of hybrid
 * Monte Carlo) by its three device paths, called directly (kcu_pf_gradient, no plugin):
 * the launches per Chebyshev order (a CUDA graph), the cooperative kernel with blocks of 128
 * threads and with blocks of 512 (kcu_pf_fused_mode -1, 1, 2).
 *
 *   build/tests/bench/pf_fused_gpu [L ...]          (default 16 32)
 *
 * Per L: a double-exchange table on the L^3 torus (random unit spinors, hopping -1, small
 * random on-site terms), 5 flavours, a series of M = 489 terms (the force's order at T = 0.1
 * on the cubic band, docs/benchmarks.md), the best of 5 calls after one to set up.  A call
 * includes the host's staging (pack, transfers, unpack: the same in every path).  Bytes:
 * density_gpu's count per product (the table, 20 bytes a slot and 8 a row, and five passes
 * over the 5 vectors; 3M products), over the time as a fraction of the copy bandwidth.  The
 * results of the three paths are compared (largest difference of the gradient, relative). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "kpm_cuda.h"
#include "kpm_test_util.h"

static double best_of(kcu_pf *s, int mode, const kcu_ham *d, const mcf_hamiltonian *h,
                      double a, double b, const double *c, size_t M, size_t nb, const double *x,
                      double *y, double *gd, double *gre, double *gim)
{
    kcu_pf_fused_mode(s, mode);
    double best = INFINITY;
    for (int rep = 0; rep < 6; rep++) {
        const size_t slots = (size_t)h->width * h->dim;
        memset(gd, 0, h->dim * sizeof *gd);
        memset(gre, 0, slots * sizeof *gre);
        memset(gim, 0, slots * sizeof *gim);
        const double t0 = now();
        if (kcu_pf_gradient(s, d, h, a, b, c, M, nb, x, y, gd, gre, gim)) {
            fprintf(stderr, "mode %d: %s\n", mode, mcf_last_error());
            return NAN;
        }
        const double t = now() - t0;
        if (rep && t < best)
            best = t;
    }
    return best;
}

int main(int argc, char **argv)
{
    char why[512];
    if (!kcu_probe(why, sizeof why) || kcu_device_init()) {
        printf("skipped: no device (%s)\n", why);
        return 0;
    }
    long sizes[8] = {16, 32};
    int ns = 2;
    if (argc > 1)
        for (ns = 0; ns < argc - 1 && ns < 8; ns++)
            sizes[ns] = atol(argv[ns + 1]);
    const double bw = 1e9 * kcu_copy_bandwidth((size_t)1 << 30, 5);
    printf("device: %s, copy bandwidth %.0f GB/s\n", kcu_device_name(), bw / 1e9);
    printf("   L      dim  path             time [ms]  us/order   GB moved   %% copy   vs launches"
           "   |dg|/|g|\n");
    const size_t nb = 5, M = 489;
    mcf_rng rng;
    mcf_rng_init(&rng, 44, 0);
    for (int q = 0; q < ns; q++) {
        mcf_lattice *lat = NULL;
        mcf_hamiltonian *h = NULL, *t = NULL;
        if (mcf_lattice_create(MCF_LATTICE_CUBIC, sizes[q], MCF_BOUNDARY_PERIODIC, &lat) ||
            mcf_hamiltonian_create(lat->sites, 1, lat->coordination, &h) ||
            mcf_hamiltonian_factorize(h, lat, -1.0, 2) ||
            mcf_hamiltonian_create(lat->sites, 1, lat->coordination, &t)) {
            fprintf(stderr, "%s\n", mcf_last_error());
            return 1;
        }
        for (size_t i = 0; i < lat->sites; i++) {
            double f[4], n2 = 0.0;
            for (int k = 0; k < 4; k++) {
                f[k] = 2.0 * mcf_rng_uniform(&rng) - 1.0;
                n2 += f[k] * f[k];
            }
            for (int k = 0; k < 4; k++)
                f[k] /= sqrt(n2);
            mcf_hamiltonian_set_field(h, i, f);
            mcf_hamiltonian_set_onsite(h, i, 0.2 * (mcf_rng_uniform(&rng) - 0.5));
        }
        double lo, hi, a, b;
        mcf_hamiltonian_bounds(h, &lo, &hi);
        mcf_hamiltonian_fix_bounds(h, lo - 0.1, hi + 0.1);
        kt_copy_table(h, t); /* the twisted runs' form: a table */
        mcf_hamiltonian_scaling(t, 0.01, &a, &b);
        kcu_ham *d = NULL;
        kcu_pf *s = NULL;
        if (kcu_ham_create(t, &d) || kcu_pf_create(t->dim, t->width, nb, &s)) {
            fprintf(stderr, "%s\n", mcf_last_error());
            return 1;
        }
        const size_t dim = t->dim, slots = (size_t)t->width * dim, n = 2 * nb * dim;
        double *c = malloc(M * sizeof *c), *x = malloc(n * sizeof *x);
        double *y = malloc(n * sizeof *y), *g[3][3];
        for (size_t m = 0; m < M; m++)
            c[m] = (2.0 * mcf_rng_uniform(&rng) - 1.0) * exp(-0.01 * (double)m);
        for (size_t i = 0; i < n; i++)
            x[i] = mcf_rng_normal(&rng);
        const int modes[3] = {-1, 1, 2};
        const char *names[3] = {"launches (graph)", "fused, 128", "fused, 512"};
        const double bytes = 3.0 * (double)M * (double)dim *
                             (20.0 * t->width + 8.0 + 5.0 * (double)nb * 16.0);
        double t_launch = NAN;
        for (int k = 0; k < 3; k++) {
            for (int j = 0; j < 3; j++)
                g[k][j] = malloc((j ? slots : dim) * sizeof(double));
            const double sec = best_of(s, modes[k], d, t, a, b, c, M, nb, x, y, g[k][0],
                                       g[k][1], g[k][2]);
            if (k == 0)
                t_launch = sec;
            double dg = 0.0, gmax = 0.0;
            for (size_t i = 0; i < slots; i++) {
                dg = fmax(dg, fabs(g[k][1][i] - g[0][1][i]) + fabs(g[k][2][i] - g[0][2][i]));
                gmax = fmax(gmax, fabs(g[0][1][i]) + fabs(g[0][2][i]));
            }
            printf("%4ld %8zu  %-16s %9.3f %9.2f %10.3f %8.1f %12.2f %10.1e\n", sizes[q], dim,
                   names[k], 1e3 * sec, 1e6 * sec / (2.0 * (double)M), bytes / 1e9,
                   100.0 * bytes / sec / bw, t_launch / sec, gmax > 0 ? dg / gmax : 0.0);
        }
        for (int k = 0; k < 3; k++)
            for (int j = 0; j < 3; j++)
                free(g[k][j]);
        free(c);
        free(x);
        free(y);
        kcu_pf_destroy(s);
        kcu_ham_destroy(d);
        mcf_hamiltonian_destroy(h);
        mcf_hamiltonian_destroy(t);
        mcf_lattice_destroy(lat);
    }
    return 0;
}
