/* gfmc_cpu.c — benchmark of one trial spin flip of the double-exchange Monte Carlo on the
 * CPU: dS by GFMC (kpm_gfmc_delta_action, what the kpm evaluator runs) against dS by exact
 * diagonalization (the eigenvalues of the dense H', what the ed evaluator runs: GSL
 * gsl_eigen_herm; the eigenvalues of H are cached between flips, so one diagonalization
 * per flip), on periodic L^3 cubic lattices with random spins (infinite Hund coupling).
 *
 * Usage: gfmc_cpu [L ...]                 (default: 4 6 8 10 12 16)
 * Environment: GFMC_BENCH_M="256 1024"    moments (no extrapolation; with it, a flip costs
 *                                         the same as 2M moments)
 *              GFMC_BENCH_ED_MAX=1000     largest dimension timed with ED
 *              GFMC_BENCH_COPY=0          skip the copy-bandwidth measurement
 *
 * Columns.  For every lattice and M, on 1 thread and on all cores:
 *   kpm 1 chain    one flip at a time; OpenMP threads share the rows of each Chebyshev
 *                  step (chunks of KPM_CHUNK rows: below that, one thread does the work);
 *   kpm C chains   a batch of C = 2 x threads chains (independent Hamiltonians), one flip
 *                  each, chains shared among threads as the kpm plugin does for a batch:
 *                  the time per flip is the batch time / C;
 *   ed             the same for ED (1 chain, and C chains over the threads).
 * Bytes per flip (KPM) are counted like kpm_cpu: M/2 Chebyshev steps of a block of 4
 * vectors, per row 6 x 20 B of ELL table + 8 B on-site + 4 x 48 B of vectors = 320 B; the
 * bandwidth column divides them by the time (small lattices live in cache, so the ratio
 * to the copy bandwidth may exceed 100%: those flips are bound by arithmetic and the FFTs,
 * 4 of length 2N = 4M per flip).  Crossover: the smallest L at which kpm beats ed. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_eigen.h>
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_vector.h>

#include "bench_util.h"
#include "de_test_hamiltonian.h"
#include "kpm_core.h"
#include "mcf/mcf.h"

#define MAX_CHAINS 256

typedef struct chain {
    de_lattice d;
    mcf_hamiltonian *h;
    double a, b;
    kpm_gfmc *g;
    mcf_rng rng;
    /* ED scratch */
    gsl_matrix_complex *m;
    gsl_vector *ev;
    gsl_eigen_herm_workspace *w;
} chain;

static void chain_init(chain *c, size_t L, uint64_t seed)
{
    memset(c, 0, sizeof *c);
    mcf_rng_init(&c->rng, seed, 0);
    c->d.L = L;
    c->d.n = L * L * L;
    c->d.hund = 0;
    c->d.s = malloc(3 * c->d.n * sizeof *c->d.s);
    for (size_t s = 0; s < c->d.n; s++)
        de_unit(&c->rng, c->d.s + 3 * s);
    c->h = de_build(&c->d);
    mcf_hamiltonian_scaling(c->h, 0.01, &c->a, &c->b);
}

static void chain_free(chain *c)
{
    kpm_gfmc_destroy(c->g);
    mcf_hamiltonian_destroy(c->h);
    free(c->d.s);
    if (c->m) {
        gsl_matrix_complex_free(c->m);
        gsl_vector_free(c->ev);
        gsl_eigen_herm_free(c->w);
    }
}

static void random_change(chain *c, mcf_local_change *ch)
{
    const size_t o = (size_t)mcf_rng_below(&c->rng, c->d.n);
    double s[3];
    de_unit(&c->rng, s);
    de_change(&c->d, o, s, ch);
}

static double kpm_flip(chain *c)
{
    mcf_local_change ch;
    random_change(c, &ch);
    double ds;
    if (kpm_gfmc_delta_action(c->g, c->h, c->a, c->b, &ch, 0.1, 0.0, &ds, NULL, NULL)) {
        fprintf(stderr, "gfmc_cpu: %s\n", mcf_last_error());
        exit(1);
    }
    return ds;
}

static double ed_flip(chain *c)
{
    const size_t n = c->h->dim;
    if (!c->m) {
        c->m = gsl_matrix_complex_alloc(n, n);
        c->ev = gsl_vector_alloc(n);
        c->w = gsl_eigen_herm_alloc(n);
    }
    mcf_local_change ch;
    random_change(c, &ch);
    mcf_hamiltonian_dense(c->h, c->m->data);
    mcf_local_change_add_dense(&ch, n, c->m->data);
    gsl_eigen_herm(c->m, c->ev, c->w);
    double s = 0;
    for (size_t k = 0; k < n; k++) {
        const double x = gsl_vector_get(c->ev, k) / 0.1;
        s -= x > 0 ? log1p(exp(-x)) : -x + log1p(exp(x));
    }
    return s;
}

/* seconds per flip: `chains` chains flipped `rounds` times (chains in parallel when > 1),
 * best of 3 */
static double time_flips(chain *cs, int chains, int rounds, int ed)
{
    double best = 1e30, sink = 0;
    for (int rep = 0; rep < 3; rep++) {
        const double t0 = now();
        for (int r = 0; r < rounds; r++) {
#pragma omp parallel for schedule(dynamic, 1) reduction(+ : sink) if (chains > 1)
            for (int k = 0; k < chains; k++)
                sink += ed ? ed_flip(&cs[k]) : kpm_flip(&cs[k]);
        }
        const double t = (now() - t0) / ((double)rounds * chains);
        if (t < best)
            best = t;
    }
    if (sink == 12345.678)
        printf("(%g)\n", sink);
    return best;
}

int main(int argc, char **argv)
{
    size_t Ls[32], nL = 0;
    for (int i = 1; i < argc && nL < 32; i++)
        Ls[nL++] = (size_t)strtoul(argv[i], NULL, 10);
    if (!nL) {
        const size_t def[] = {4, 6, 8, 10, 12, 16};
        for (size_t i = 0; i < sizeof def / sizeof *def; i++)
            Ls[nL++] = def[i];
    }
    size_t Ms[8], nM = 0;
    {
        const char *e = getenv("GFMC_BENCH_M");
        char buf[256];
        snprintf(buf, sizeof buf, "%s", e ? e : "256 1024");
        for (char *t = strtok(buf, " ,"); t && nM < 8; t = strtok(NULL, " ,"))
            Ms[nM++] = (size_t)strtoul(t, NULL, 10);
    }
    const char *edmax_env = getenv("GFMC_BENCH_ED_MAX");
    const size_t ed_max = edmax_env ? (size_t)strtoul(edmax_env, NULL, 10) : 1000;
    const int P = max_threads();
    const char *copy_env = getenv("GFMC_BENCH_COPY");
    double bw1 = NAN, bwP = NAN;
    if (!copy_env || strcmp(copy_env, "0")) {
        const size_t n = bench_copy_len();
        set_threads(1);
        bw1 = copy_bandwidth(n);
        set_threads(P);
        bwP = copy_bandwidth(n);
    }
    printf("# gfmc_cpu: %d cores; copy bandwidth %.1f GB/s (1 thread), %.1f GB/s (%d threads)\n",
           P, bw1, bwP, P);
    printf("# times in microseconds per trial flip; C = %d chains in the batch columns\n",
           2 * P);
    printf("%-5s %6s %5s %7s | %12s %12s %12s | %12s %12s | %10s %6s\n", "L", "sites", "M",
           "threads", "kpm 1 chain", "kpm C chains", "GB/s (C)", "ed 1 chain", "ed C chains",
           "bytes/flip", "%copy");
    const int C = 2 * P > MAX_CHAINS ? MAX_CHAINS : 2 * P;
    for (size_t il = 0; il < nL; il++) {
        const size_t L = Ls[il], n = L * L * L;
        chain *cs = calloc((size_t)C, sizeof *cs);
        for (int k = 0; k < C; k++)
            chain_init(&cs[k], L, 1000 + (uint64_t)k);
        for (int threads = 1; threads <= P; threads = threads == P ? P + 1 : P) {
            set_threads(threads);
            const int Cb = 2 * threads;
            double ed1 = NAN, edC = NAN;
            if (n <= ed_max) {
                const int rounds = n <= 256 ? 20 : n <= 600 ? 3 : 1;
                ed1 = time_flips(cs, 1, rounds, 1);
                edC = time_flips(cs, Cb, rounds, 1);
            }
            for (size_t im = 0; im < nM; im++) {
                const size_t M = Ms[im];
                for (int k = 0; k < C; k++) {
                    kpm_gfmc_destroy(cs[k].g);
                    cs[k].g = NULL;
                    if (kpm_gfmc_create(n, M, 0, KPM_KERNEL_LORENTZ, 4.0, 0, &cs[k].g)) {
                        fprintf(stderr, "gfmc_cpu: %s\n", mcf_last_error());
                        return 1;
                    }
                }
                /* about 0.3 s of work per measurement */
                const double est = 2e-9 * (double)n * (double)M * 4.0 + 2e-5;
                int rounds = (int)(0.3 / est / Cb);
                rounds = rounds < 1 ? 1 : rounds > 200 ? 200 : rounds;
                const double k1 = time_flips(cs, 1, rounds * Cb / 2 + 1, 0);
                const double kC = time_flips(cs, Cb, rounds, 0);
                const double bytes = (double)(M / 2) * (double)n * 320.0;
                const double gbs = bytes / kC / 1e9;
                const double bw = threads == 1 ? bw1 : bwP;
                printf("%-5zu %6zu %5zu %7d | %12.1f %12.1f %12.2f | %12.1f %12.1f | %10.0f %5.0f%%\n",
                       L, n, M, threads, 1e6 * k1, 1e6 * kC, gbs, 1e6 * ed1, 1e6 * edC, bytes,
                       100.0 * gbs / bw);
                fflush(stdout);
            }
        }
        for (int k = 0; k < C; k++)
            chain_free(&cs[k]);
        free(cs);
    }
    return 0;
}
