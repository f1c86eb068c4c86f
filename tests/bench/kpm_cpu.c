/* kpm_cpu.c — benchmark of the CPU Chebyshev step of the kpm evaluator (kpm_engine.c):
 * time per step per site, bytes moved per step, achieved bandwidth against the machine's
 * copy bandwidth measured here with the same thread count.
 *
 * Usage: kpm_cpu [L ...]          (default: 64 128; cubic lattices of L^3 sites)
 * Environment: KPM_BENCH_BLOCKS="1 4 16" (vectors per block), KPM_BENCH_STEPS (timed
 * steps; default 2e8 / (sites x B), within [6, 60]), KPM_BENCH_COPY=0 (skip the copy
 * bandwidth: the last column is then nan), KPM_BENCH_FORMS="table factorized" (which
 * hoppings: the ELL table, the default, and/or factorized, mcf/hamiltonian_factors.h, where
 * the engine reads the field for 4 or more vectors from 4096 rows (16^3) on, and a row's
 * bytes count only the 8 B on-site term and the vectors; elsewhere it reads the table
 * either way, and the row says "table"), KPM_BENCH_FIELD=1 (the field wherever a field
 * step exists, kpm_step_set_form: to measure where the default does not take it).
 *
 * Method.  For every lattice, block size B and thread count (1, and all cores), the
 * recursion kpm_moments_diag() runs twice, with K1 = 2 and K2 = 2 + S Chebyshev steps; the
 * time of one step is (t2 - t1) / S (the difference removes the setup and the mu_0 sum),
 * best of 3.  Bytes per step are counted from the data the step must touch at least once:
 *     per row:  W slots x (4 B col + 8 B re + 8 B im)  +  8 B onsite
 *               + B vectors x 16 B x 3  (read r_n, read r_{n-1}, write r_{n+1})
 * (W = 6 for the cubic lattice).  The gathered neighbours r_n[col] are assumed to come
 * from cache (each r_n row is read once from memory); extra misses of the +-L^2
 * neighbours are what the ratio to the copy bandwidth exposes.  Copy bandwidth: STREAM
 * "copy" c[i] = a[i] over arrays of max(4 x last-level cache, 256 MiB) each, counted as
 * 16 bytes per element (read + write, no write-allocate, STREAM's convention): best of 5 at
 * the start (the machine line), and best of 3 right after every row's timing with the same
 * threads (the "copy GB/s" column, which "% of copy" divides by): on a shared VM the copy
 * bandwidth drifts by 2x within minutes, and only the adjacent measurement makes the ratio
 * mean something. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "bench_util.h"
#include "kpm_core.h"
#include "kpm_step.h"
#include "kpm_bench.h"
#include "mcf/mcf.h"

static mcf_hamiltonian *cubic(size_t L)
{
    mcf_hamiltonian *h = NULL;
    const size_t n = L * L * L;
    if (mcf_hamiltonian_create(n, 1, 6, &h))
        return NULL;
    for (size_t s = 0; s < n; s++) {
        const size_t x = s % L, y = (s / L) % L, z = s / (L * L);
        if (mcf_hamiltonian_set(h, s, (x + 1) % L + L * y + L * L * z, -1.0, 0.0) ||
            mcf_hamiltonian_set(h, s, x + L * ((y + 1) % L) + L * L * z, -1.0, 0.0) ||
            mcf_hamiltonian_set(h, s, x + L * y + L * L * ((z + 1) % L), -1.0, 0.0)) {
            mcf_hamiltonian_destroy(h);
            return NULL;
        }
    }
    return h;
}

/* The same lattice with the hopping declared factorized (rank 0, mcf/hamiltonian_factors.h):
 * the step reads no table and computes the neighbours. */
static mcf_hamiltonian *cubic_factorized(size_t L)
{
    mcf_hamiltonian *h = NULL;
    mcf_lattice *lat = NULL;
    if (mcf_lattice_create(MCF_LATTICE_CUBIC, (long)L, MCF_BOUNDARY_PERIODIC, &lat) ||
        mcf_hamiltonian_create(lat->sites, 1, 6, &h) ||
        mcf_hamiltonian_factorize(h, lat, -1.0, 0)) {
        mcf_hamiltonian_destroy(h);
        h = NULL;
    }
    mcf_lattice_destroy(lat);
    return h;
}

int main(int argc, char **argv)
{
    size_t Ls[8] = {64, 128};
    int nL = 2;
    if (argc > 1) {
        nL = 0;
        for (int i = 1; i < argc && nL < 8; i++)
            Ls[nL++] = (size_t)strtoul(argv[i], NULL, 10);
    }
    size_t blocks[8] = {1, 4, 16};
    int nB = 3;
    const char *env = getenv("KPM_BENCH_BLOCKS");
    if (env) {
        nB = 0;
        char *end;
        for (const char *p = env; nB < 8; p = end) {
            unsigned long v = strtoul(p, &end, 10);
            if (end == p)
                break;
            if (v >= 1 && v <= KPM_MAX_BLOCK)
                blocks[nB++] = v;
        }
    }
    const int threads[2] = {1, max_threads()};
    const int nT = threads[1] > 1 ? 2 : 1;

    double bw[2] = {NAN, NAN};
    bench_machine("kpm_cpu", "KPM_BENCH_COPY", threads, nT, bw);
    double *ca = NULL, *cc = NULL;
    const size_t ncopy = bench_copy_len();
    const char *ec = getenv("KPM_BENCH_COPY");
    const int copy = !(ec && !strcmp(ec, "0"));
    if (copy && !copy_arrays(ncopy, &ca, &cc)) {
        fprintf(stderr, "kpm_cpu: no memory for the copy test\n");
        return 1;
    }
    const char *ef = getenv("KPM_BENCH_FORMS");
    const int form0 = ef && !strstr(ef, "table") ? 1 : 0;
    const int form1 = ef && strstr(ef, "factor") ? 1 : 0;
    const char *efield = getenv("KPM_BENCH_FIELD");
    if (efield && !strcmp(efield, "1"))
        kpm_step_set_form(KPM_FORM_FIELD);
    printf("\n| lattice | hopping | sites | B | threads | ns/step/site | ns/step/site/vector | "
           "bytes/step | GB/s | copy GB/s | %% of copy |\n"
           "|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (int lf = 0; lf < nL * 2; lf++) {
        const size_t L = Ls[lf / 2];
        const int form = lf % 2;
        if (form < form0 || form > form1)
            continue;
        mcf_hamiltonian *h = form ? cubic_factorized(L) : cubic(L);
        if (!h) {
            fprintf(stderr, "kpm_cpu: cannot build the %zu^3 lattice: %s\n", L,
                    mcf_last_error());
            return 1;
        }
        double a, b;
        mcf_hamiltonian_scaling(h, 0.01, &a, &b);
        const size_t n = h->dim;
        for (int bi = 0; bi < nB; bi++) {
            const size_t B = blocks[bi];
            kpm_engine *e = NULL;
            if (kpm_engine_create(n, B, &e)) {
                fprintf(stderr, "kpm_cpu: %s\n", mcf_last_error());
                return 1;
            }
            double *mu = malloc(B * 2 * 64 * sizeof *mu);
            /* where the engine reads the field (kpm_step_reads_field: rank 0, >= 4096 rows,
             * >= 4 vectors); otherwise the table, whatever the form */
            const int fac = kpm_step_reads_field(h, B);
            const double bytes = (double)n * ((fac ? 0.0 : 6.0 * 20.0) + 8.0 +
                                              48.0 * (double)B);
            size_t S = (size_t)(2e8 / ((double)n * (double)B));
            const char *es = getenv("KPM_BENCH_STEPS");
            if (es)
                S = (size_t)strtoul(es, NULL, 10);
            if (S < 6)
                S = 6;
            if (S > 60)
                S = 60;
            for (int t = 0; t < nT; t++) {
                set_threads(threads[t]);
                const double t1 = kpm_bench_cpu_steps(e, h, a, b, B, 2, mu);
                const double t2 = kpm_bench_cpu_steps(e, h, a, b, B, 2 + S, mu);
                if (t1 < 0 || t2 < 0) {
                    fprintf(stderr, "kpm_cpu: %s\n", mcf_last_error());
                    exit(1);
                }
                const double step = (t2 - t1) / (double)S;
                const double gbs = bytes / step / 1e9;
                const double cbw = copy ? copy_bandwidth_of(ca, cc, ncopy, 3) : bw[t];
                printf("| %zu^3 | %s | %zu | %zu | %d | %.3f | %.3f | %.0f | %.2f | %.2f | "
                       "%.0f%% |\n", L, fac ? "factorized" : "table", n, B, threads[t],
                       step / (double)n * 1e9, step / (double)n / (double)B * 1e9, bytes, gbs,
                       cbw, 100.0 * gbs / cbw);
                fflush(stdout);
            }
            free(mu);
            kpm_engine_destroy(e);
        }
        mcf_hamiltonian_destroy(h);
    }
    free(ca);
    free(cc);
    return 0;
}
