/* test_kpm_cuda.c — the GPU evaluator kpm-cuda against the CPU evaluator kpm (label gpu).
 * Without a usable CUDA device it prints "skipped: no device" and returns 77, which ctest
 * counts as skipped.
 *
 *   (a) moments: the unit-vector moments <r|T_n(H~)|r> of the device recursion equal the
 *       CPU's (kpm_ldos_moments) to 1e-12 mu_0 — both sum the same products in double, in
 *       different orders, so they differ by rounding (~1e-15 per step, growing at most
 *       linearly over the M/2 steps);
 *   (b) random vectors: the same seed gives the same moments bit for bit; random phases
 *       give mu_0 = 1 per vector; the mean over R vectors agrees with the exact trace within
 *       5 standard errors (from the R vectors themselves) for every n;
 *   (c) cuFFT reconstruction: density and Green's function equal kpm_dct's (GSL FFT) to
 *       1e-12 of their largest value;
 *   (d) GFMC: dS of a batch of changes (4^3 and 6^3, infinite and finite Hund coupling,
 *       several T and mu, with and without extrapolation) equals kpm_gfmc_delta_action to
 *       the rounding bound below, the device moments equal the CPU's to 1e-12 mu_0, and
 *       every cluster size G = 1, 2, 4, 8, 16 gives the same dS to 1e-12, and so do the
 *       two ways of summing the Green's functions at the nodes (FFT in shared memory,
 *       direct Chebyshev sums), each asked for through kcu_gfmc_settings and confirmed by
 *       the launch's kcu_gfmc_info;
 *   (e) Hamiltonian updates: after accepted moves (mcf_hamiltonian_set on the host) only the
 *       changed rows travel (the journal), and dS still equals the CPU's; a change the
 *       journal cannot name (mcf_hamiltonian_touch_all) makes a full upload;
 *   (f) the plugin through the loader (ABI 1's call shapes on the ABI-2 tables:
 *       tests/evaluator_test.h): ldos, green, dos and occupation with vectors = 0
 *       (exact trace) equal the kpm plugin's to 1e-12; delta_action equals kpm's;
 *       bad input (T = 0, a change with a row out of range) is refused naming it;
 *       action (vectors = 0) at 6 points (T, mu) equals kpm's: S within 1e-10 dim max|F|
 *       (the exact-trace moments agree to 1e-12 mu_0, (a), and S = dim sum c_n mu_n with
 *       sum |c_n| <~ a few max|F|, F = -softplus(-(E - mu)/T), max|F| <= (a + |b - mu|)/T +
 *       log 2 on the spectrum), err within the same slack (the coefficients come from the
 *       same host code: equal); T = 0 refused naming the point;
 *   (g) out of device memory: vectors for 2^30 rows in blocks of 64 (2 TiB) are refused
 *       with MCF_ENOMEM and a message giving the sizes.
 *
 * Before the device is probed (so also where the test is skipped): kpm-cuda declares kpm's
 * parameters, in kpm's order, and then its four device keys gfmc_blocks, gfmc_fft,
 * gfmc_on_chip and gfmc_recursion, each with a default (auto, true, true, auto) and
 * MCF_PARAM_ECHO_IF_CHANGED
 * (a key at its default stays out of config.ini: older checkpoints resume); a failure
 * there fails the test instead of skipping it.
 *
 * The rounding bound of (d): the phase increments delta_i of d(E_i) carry a relative error
 * of about 1e-13 (moments to ~1e-14, the series summed by FFT on the CPU and by the
 * Chebyshev recurrence on the GPU, each ~M eps); dS = (1/(pi T)) sum_i W_i delta_i with
 * |W_i| <= the width of the spectrum, so |dS_gpu - dS_cpu| <= N 1e-12 (E_max - E_min) /
 * (pi T), a factor 10 above the worst-case linear sum. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "de_test_hamiltonian.h"
#include "kpm_core.h"
#include "kpm_cuda.h"
#include "kpm_test_util.h"
#include "test_params.h"
#include "kpm_plugin_pair.h" /* after test_params.h: the loader */

/* (a) unit-vector moments, CPU vs GPU */
static void test_moments(void)
{
    mcf_rng rng;
    mcf_rng_init(&rng, 11, 0);
    mcf_hamiltonian *hr = kt_random_h(&rng, 300, 5, 600, 1.0, 2.0);
    de_lattice d = de_random_lattice(6, 3.0, 5);
    mcf_hamiltonian *hd = de_build(&d);
    mcf_hamiltonian *hs[2] = {hr, hd};
    const size_t M = 256;
    for (int q = 0; q < 2; q++) {
        mcf_hamiltonian *h = hs[q];
        double a, b;
        mcf_hamiltonian_scaling(h, 0.01, &a, &b);
        const size_t rows[5] = {0, 7, h->dim / 2, h->dim - 2, h->dim - 1};
        double *cpu = malloc(5 * M * sizeof *cpu), *gpu = malloc(5 * M * sizeof *gpu);
        kpm_engine *e = NULL;
        kcu_engine *ge = NULL;
        kcu_ham *dh = NULL;
        int rc = kpm_engine_create(h->dim, 4, &e);
        if (!rc)
            rc = kpm_ldos_moments(e, h, a, b, rows, 5, M, cpu);
        CHECK(rc == MCF_OK, "CPU moments: %s", mcf_last_error());
        rc = kcu_ham_create(h, &dh);
        if (!rc)
            rc = kcu_engine_create(h->dim, 4, &ge);
        if (!rc)
            rc = kcu_rows_moments(ge, dh, a, b, rows, 5, M, gpu);
        CHECK(rc == MCF_OK, "GPU moments: %s", mcf_last_error());
        const double diff = kt_max_abs_diff(cpu, gpu, 5 * M);
        printf("(a) %s, dim %zu: unit-vector moments, max |GPU - CPU| = %.2e (mu_0 = 1)\n",
               q ? "double exchange 6^3, J_H = 3" : "random Hermitian", h->dim, diff);
        CHECK(diff <= 1e-12, "moments differ by %.3e", diff);
        kpm_engine_destroy(e);
        kcu_engine_destroy(ge);
        kcu_ham_destroy(dh);
        free(cpu);
        free(gpu);
    }
    mcf_hamiltonian_destroy(hr);
    mcf_hamiltonian_destroy(hd);
    free(d.s);
}

/* (b) random vectors */
static void test_random(void)
{
    de_lattice d = de_random_lattice(6, 0.0, 9);
    mcf_hamiltonian *h = de_build(&d);
    double a, b;
    mcf_hamiltonian_scaling(h, 0.01, &a, &b);
    const size_t M = 64, R = 96;
    double *m1 = malloc(R * M * sizeof *m1), *m2 = malloc(R * M * sizeof *m2);
    double *mean = malloc(M * sizeof *mean), *err = malloc(M * sizeof *err);
    double *exact = calloc(M, sizeof *exact), *rowm = malloc(8 * M * sizeof *rowm);
    kcu_ham *dh = NULL;
    kcu_engine *ge = NULL;
    int rc = kcu_ham_create(h, &dh);
    if (!rc)
        rc = kcu_engine_create(h->dim, 8, &ge);
    if (!rc)
        rc = kcu_random_moments(ge, dh, a, b, 0, 1234, R, M, m1);
    if (!rc)
        rc = kcu_random_moments(ge, dh, a, b, 0, 1234, R, M, m2);
    CHECK(rc == MCF_OK, "random moments: %s", mcf_last_error());
    CHECK(memcmp(m1, m2, R * M * sizeof *m1) == 0, "the same seed gave different moments");
    double worst0 = 0.0;
    for (size_t r = 0; r < R; r++)
        worst0 = fmax(worst0, fabs(m1[r * M] - 1.0));
    CHECK(worst0 < 1e-13, "random phases: mu_0 per vector differs from 1 by %.3e", worst0);
    /* the exact trace over all rows, 8 at a time */
    for (size_t r0 = 0; r0 < h->dim && !rc; r0 += 8) {
        size_t rows[8];
        for (size_t j = 0; j < 8; j++)
            rows[j] = r0 + j;
        rc = kcu_rows_moments(ge, dh, a, b, rows, 8, M, rowm);
        for (size_t j = 0; j < 8 && !rc; j++)
            for (size_t n = 0; n < M; n++)
                exact[n] += rowm[j * M + n] / (double)h->dim;
    }
    kpm_moments_mean(R, M, m1, mean, err);
    double worst = 0.0;
    for (size_t n = 1; n < M; n++)
        worst = fmax(worst, fabs(mean[n] - exact[n]) / err[n]);
    printf("(b) 6^3 double exchange, %zu random-phase vectors: largest |mean - exact| = %.2f "
           "standard errors over %zu moments\n", R, worst, M - 1);
    CHECK(worst < 5.0, "stochastic trace off by %.2f standard errors", worst);
    kcu_engine_destroy(ge);
    kcu_ham_destroy(dh);
    mcf_hamiltonian_destroy(h);
    free(d.s);
    free(m1);
    free(m2);
    free(mean);
    free(err);
    free(exact);
    free(rowm);
}

/* (c) cuFFT vs GSL FFT */
static void test_dct(void)
{
    const size_t M = 200, N = 450, nb = 3;
    double *mu = malloc(nb * M * sizeof *mu), *g = malloc(M * sizeof *g);
    mcf_rng rng;
    mcf_rng_init(&rng, 3, 0);
    for (size_t i = 0; i < nb * M; i++)
        mu[i] = (2.0 * mcf_rng_uniform(&rng) - 1.0) / (1.0 + (double)(i % M));
    kpm_kernel_coefficients(KPM_KERNEL_JACKSON, 4.0, M, g);
    double *c_re = malloc(nb * N * sizeof *c_re), *c_im = malloc(nb * N * sizeof *c_im);
    double *g_re = malloc(nb * N * sizeof *g_re), *g_im = malloc(nb * N * sizeof *g_im);
    double *c_f = malloc(nb * N * sizeof *c_f), *g_f = malloc(nb * N * sizeof *g_f);
    kpm_dct *cd = NULL;
    kcu_dct *gd = NULL;
    int rc = kpm_dct_create(N, M, &cd);
    for (size_t j = 0; j < nb && !rc; j++)
        rc = kpm_dct_green(cd, mu + j * M, NULL, g, M, 2.5, c_re + j * N, c_im + j * N) ||
             kpm_dct_density(cd, mu + j * M, g, M, 2.5, c_f + j * N);
    if (!rc)
        rc = kcu_dct_create(N, M, nb, &gd);
    if (!rc)
        rc = kcu_dct_green(gd, mu, nb, g, 2.5, g_re, g_im);
    if (!rc)
        rc = kcu_dct_density(gd, mu, nb, g, 2.5, g_f);
    CHECK(rc == MCF_OK, "transforms: %s", mcf_last_error());
    const double scale = fmax(kt_max_abs(c_re, nb * N), kt_max_abs(c_im, nb * N));
    const double dg = fmax(kt_max_abs_diff(c_re, g_re, nb * N), kt_max_abs_diff(c_im, g_im, nb * N));
    const double df = kt_max_abs_diff(c_f, g_f, nb * N);
    printf("(c) cuFFT vs GSL: Green's function %.2e, density %.2e (relative to the largest "
           "value)\n", dg / scale, df / kt_max_abs(c_f, nb * N));
    CHECK(dg <= 1e-12 * scale, "Green's functions differ by %.3e of %.3e", dg, scale);
    CHECK(df <= 1e-12 * kt_max_abs(c_f, nb * N), "densities differ by %.3e", df);
    kpm_dct_destroy(cd);
    kcu_dct_destroy(gd);
    free(mu);
    free(g);
    free(c_re);
    free(c_im);
    free(g_re);
    free(g_im);
    free(c_f);
    free(g_f);
}

/* ---- (d), (e) GFMC ------------------------------------------------------------------- */

typedef struct gchain {
    de_lattice d;
    mcf_hamiltonian *h;
    double a, b, T, mu;
    mcf_local_change c;
    double snew[3];
    size_t site;
    kpm_gfmc *cg;
    kcu_gfmc *gg;
    kcu_ham *dh;
} gchain;

static void gchain_init(gchain *c, size_t L, double hund, double T, double mu, size_t M,
                        int extrapolate, uint64_t seed)
{
    memset(c, 0, sizeof *c);
    c->d = de_random_lattice(L, hund, seed);
    c->h = de_build(&c->d);
    c->T = T;
    c->mu = mu;
    mcf_hamiltonian_scaling(c->h, 0.01, &c->a, &c->b);
    int rc = kpm_gfmc_create(c->h->dim, M, 0, KPM_KERNEL_LORENTZ, 4.0, extrapolate, &c->cg);
    if (!rc)
        rc = kcu_gfmc_create(c->h->dim, M, 0, 4.0, extrapolate, &c->gg);
    if (!rc)
        rc = kcu_ham_create(c->h, &c->dh);
    CHECK(rc == MCF_OK, "GFMC set-up: %s", mcf_last_error());
}

static void gchain_free(gchain *c)
{
    kpm_gfmc_destroy(c->cg);
    kcu_gfmc_destroy(c->gg);
    kcu_ham_destroy(c->dh);
    mcf_hamiltonian_destroy(c->h);
    free(c->d.s);
}

/* a new trial move of each chain */
static void gchain_propose(gchain *c, mcf_rng *rng)
{
    c->site = (size_t)mcf_rng_below(rng, c->d.n);
    de_unit(rng, c->snew);
    de_change(&c->d, c->site, c->snew, &c->c);
}

/* accept the move: the spin and the Hamiltonian rows of the site (as the model does) */
static void gchain_accept(gchain *c)
{
    const size_t o = c->site;
    memcpy(c->d.s + 3 * o, c->snew, sizeof c->snew);
    if (c->d.hund == 0) {
        size_t nb[6];
        de_neighbours(c->d.L, o, nb);
        for (int k = 0; k < 6; k++) {
            double re, im;
            de_overlap(c->d.s + 3 * o, c->d.s + 3 * nb[k], &re, &im);
            mcf_hamiltonian_set(c->h, o, nb[k], -re, -im);
        }
    } else {
        const double *S = c->d.s + 3 * o, J = c->d.hund;
        mcf_hamiltonian_set_onsite(c->h, 2 * o, -J * S[2]);
        mcf_hamiltonian_set_onsite(c->h, 2 * o + 1, J * S[2]);
        mcf_hamiltonian_set(c->h, 2 * o, 2 * o + 1, -J * S[0], J * S[1]);
    }
}

/* dS of every chain on the GPU (one batch, default settings; what the launch did into info
 * when not NULL) and the CPU; the largest difference over the rounding bound (see the top
 * of the file) */
static double gfmc_compare(gchain *c, size_t n, const char *what, int verbose,
                           kcu_gfmc_info *info)
{
    kcu_gfmc_job *jobs = calloc(n, sizeof *jobs);
    double *gpu = calloc(n, sizeof *gpu);
    for (size_t k = 0; k < n; k++)
        jobs[k] = (kcu_gfmc_job){.g = c[k].gg, .d = c[k].dh, .h = c[k].h, .a = c[k].a,
                                 .b = c[k].b, .T = c[k].T, .mu = c[k].mu, .change = &c[k].c};
    int rc = kcu_gfmc_run(jobs, n, NULL, gpu, NULL, NULL, info);
    CHECK(rc == MCF_OK, "%s: kcu_gfmc_run: %s", what, mcf_last_error());
    double worst = 0.0;
    for (size_t k = 0; k < n && !rc; k++) {
        double cpu = 0.0;
        rc = kpm_gfmc_delta_action(c[k].cg, c[k].h, c[k].a, c[k].b, &c[k].c, c[k].T, c[k].mu,
                                   &cpu, NULL, NULL);
        CHECK(rc == MCF_OK, "%s: CPU GFMC: %s", what, mcf_last_error());
        const double N = 4.0 * 256.0; /* at most 2 M_tot nodes for M <= 256 with extrapolate */
        const double bound = N * 1e-12 * 2.0 * (6.0 + c[k].d.hund) / (kt_pi * c[k].T);
        const double r = fabs(gpu[k] - cpu) / bound;
        if (verbose)
            printf("    chain %zu: L = %zu, J_H = %s%g, T = %g, mu = %g: dS GPU %.15f CPU %.15f "
                   "(|diff| %.1e, bound %.1e)\n", k, c[k].d.L, c[k].d.hund ? "" : "inf ",
                   c[k].d.hund, c[k].T, c[k].mu, gpu[k], cpu, fabs(gpu[k] - cpu), bound);
        CHECK(r <= 1.0, "%s: chain %zu: dS GPU %.17g vs CPU %.17g", what, k, gpu[k], cpu);
        worst = fmax(worst, r);
    }
    free(jobs);
    free(gpu);
    return worst;
}

static void test_gfmc(void)
{
    mcf_rng rng;
    mcf_rng_init(&rng, 77, 0);
    for (int ex = 0; ex < 2; ex++) {
        const size_t M = ex ? 128 : 256;
        enum { NC = 8 };
        gchain c[NC];
        const size_t Ls[NC] = {4, 4, 4, 4, 6, 6, 4, 6};
        const double hund[NC] = {0, 0, 0, 8, 0, 0, 8, 8};
        const double T[NC] = {0.05, 0.2, 1.0, 0.2, 0.1, 1.0, 1.0, 0.3};
        const double mu[NC] = {0.0, -1.0, 0.5, -9.0, -2.0, 0.0, -8.0, -8.5};
        for (int k = 0; k < NC; k++) {
            gchain_init(&c[k], Ls[k], hund[k], T[k], mu[k], M, ex, 100 + (uint64_t)k);
            gchain_propose(&c[k], &rng);
        }
        printf("(d) GFMC, M = %zu%s, a batch of %d chains:\n", M,
               ex ? " with extrapolation" : "", NC);
        kcu_gfmc_info info;
        const double w = gfmc_compare(c, NC, "GFMC", 1, &info);
        printf("    largest |GPU - CPU| / bound = %.2e, cluster size %d\n", w, info.cluster);
        /* the device moments of the last run vs the CPU's */
        for (int k = 0; k < NC; k += 3) {
            const size_t Mt = ex ? 2 * M : M;
            double *gm = malloc(4 * Mt * sizeof *gm), *cm = malloc(4 * Mt * sizeof *cm);
            kpm_engine *e = NULL;
            int rc = kcu_gfmc_last_moments(c[k].gg, gm);
            if (!rc)
                rc = kpm_engine_create(c[k].h->dim, 4, &e);
            if (!rc) {
                /* the four start vectors as kpm_gfmc builds them */
                double *v = kpm_engine_start(e);
                memset(v, 0, 8 * c[k].h->dim * sizeof *v);
                for (int a = 0; a < 2; a++)
                    for (int q = 0; q < c[k].c.entries[a]; q++) {
                        double *row = v + 8 * (size_t)c[k].c.row[a][q];
                        const double re = c[k].c.re[a][q], im = c[k].c.im[a][q];
                        if (a == 0) {
                            row[0] += re; row[4] += im;
                            row[2] += re; row[6] += im;
                            row[3] += re; row[7] += im;
                        } else {
                            row[1] += re; row[5] += im;
                            row[2] += re; row[6] += im;
                            row[3] -= im; row[7] += re;
                        }
                    }
                rc = kpm_moments_diag(e, c[k].h, c[k].a, c[k].b, 4, Mt, cm);
            }
            CHECK(rc == MCF_OK, "moments: %s", mcf_last_error());
            double scale = 0.0;
            for (int j = 0; j < 4; j++)
                scale = fmax(scale, cm[j * Mt]);
            const double diff = kt_max_abs_diff(gm, cm, 4 * Mt);
            CHECK(diff <= 1e-12 * scale, "chain %d: GFMC moments differ by %.3e (mu_0 %.3g)", k,
                  diff, scale);
            if (k == 0)
                printf("    GFMC moments of chain 0: max |GPU - CPU| = %.2e (mu_0 up to %.3g)\n",
                       diff, scale);
            kpm_engine_destroy(e);
            free(gm);
            free(cm);
        }
        /* every cluster size gives the same dS */
        if (!ex) {
            double ref[NC];
            kcu_gfmc_job jobs[NC];
            for (int k = 0; k < NC; k++)
                jobs[k] = (kcu_gfmc_job){.g = c[k].gg, .d = c[k].dh, .h = c[k].h, .a = c[k].a,
                                         .b = c[k].b, .T = c[k].T, .mu = c[k].mu,
                                         .change = &c[k].c};
            const int Gs[5] = {1, 2, 4, 8, 16};
            double spread = 0.0;
            for (int q = 0; q < 5; q++) {
                double out[NC];
                kcu_gfmc_settings s = KCU_GFMC_SETTINGS_DEFAULT;
                s.blocks_per_chain = Gs[q];
                int rc = kcu_gfmc_run(jobs, NC, &s, out, NULL, NULL, &info);
                /* 16 is a non-portable cluster size: a device that cannot place it gets 8 */
                const int G = info.cluster;
                CHECK(rc == MCF_OK && (G == Gs[q] || (q == 4 && G == 8)),
                      "cluster size %d (got %d): %s", Gs[q], G, mcf_last_error());
                for (int k = 0; k < NC; k++) {
                    if (q == 0)
                        ref[k] = out[k];
                    spread = fmax(spread, fabs(out[k] - ref[k]) / fmax(1.0, fabs(ref[k])));
                }
            }
            printf("    cluster sizes 1, 2, 4, 8, 16: largest relative spread of dS %.2e\n", spread);
            CHECK(spread <= 1e-12, "cluster sizes disagree by %.3e", spread);
            /* a cluster size the kernel has no launch for is refused */
            kcu_gfmc_settings bad = KCU_GFMC_SETTINGS_DEFAULT;
            bad.blocks_per_chain = 3;
            double refused[NC];
            CHECK(kcu_gfmc_run(jobs, NC, &bad, refused, NULL, NULL, NULL) == MCF_EINVAL,
                  "3 blocks per chain were not refused");
            /* the Green's functions by the in-kernel FFT and by direct Chebyshev sums */
            double fft[NC], direct[NC];
            kcu_gfmc_settings horner = KCU_GFMC_SETTINGS_DEFAULT;
            horner.fft = 0;
            int rc = kcu_gfmc_run(jobs, NC, NULL, fft, NULL, NULL, &info);
            const int used_fft = info.fft;
            rc = rc || kcu_gfmc_run(jobs, NC, &horner, direct, NULL, NULL, &info);
            const int used_direct = !info.fft;
            double dd = 0.0;
            for (int k = 0; k < NC; k++)
                dd = fmax(dd, fabs(fft[k] - direct[k]) / fmax(1.0, fabs(direct[k])));
            printf("    Green's functions by FFT vs direct sums: largest relative difference of "
                   "dS %.2e\n", dd);
            CHECK(rc == MCF_OK && used_fft && used_direct && dd <= 1e-12,
                  "FFT (%d) vs direct (%d): %.3e (%s)", used_fft, used_direct, dd,
                  mcf_last_error());
        }
        /* (e) accepted moves: only the changed rows travel */
        if (!ex) {
            uint64_t rows0[NC], full0[NC];
            for (int k = 0; k < NC; k++)
                kcu_ham_stats(c[k].dh, &rows0[k], &full0[k]);
            double worst = 0.0;
            for (int sweep = 0; sweep < 5; sweep++) {
                for (int k = 0; k < NC; k++) {
                    gchain_accept(&c[k]);
                    gchain_propose(&c[k], &rng);
                }
                worst = fmax(worst, gfmc_compare(c, NC, "after accepted moves", 0, NULL));
            }
            int rows_ok = 1;
            for (int k = 0; k < NC; k++) {
                uint64_t rows, full;
                kcu_ham_stats(c[k].dh, &rows, &full);
                /* infinite Hund: the site and its 6 neighbours; finite: the 2 rows of the
                 * site */
                const uint64_t per = c[k].d.hund == 0 ? 7 : 2;
                rows_ok &= rows - rows0[k] == 5 * per && full == full0[k];
            }
            printf("(e) 5 accepted moves per chain: dS still within %.2e of the bound; row "
                   "updates only: %s\n", worst, rows_ok ? "yes" : "NO");
            CHECK(rows_ok, "accepted moves did not travel as row updates");
            /* a change the journal cannot name: a full upload, still right */
            mcf_hamiltonian_touch_all(c[0].h);
            gfmc_compare(c, 1, "after touch_all", 0, NULL);
            uint64_t rows, full;
            kcu_ham_stats(c[0].dh, &rows, &full);
            CHECK(full == full0[0] + 1, "touch_all did not make a full upload (%llu)",
                  (unsigned long long)(full - full0[0]));
        }
        for (int k = 0; k < NC; k++)
            gchain_free(&c[k]);
    }
}

/* ---- (f) the plugin through the loader --------------------------------------------- */

static void test_plugin(void)
{
    mcf_plugin *pc = NULL, *pg = NULL;
    int rc = open_kpm_pair(&pc, &pg);
    if (rc)
        return;
    const mcf_plugin_info *oc = pc->info, *og = pg->info; /* through evaluator_test.h */
    de_lattice d = de_random_lattice(4, 0.0, 21);
    mcf_hamiltonian *h = de_build(&d);
    test_params *tc = test_params_make(pc->info->params, "test_kpm_cuda.ini", "vectors", "0",
                                       "moments", "128", "block", "5", NULL);
    test_params *tg = test_params_make(pg->info->params, "test_kpm_cuda.ini", "vectors", "0",
                                       "moments", "128", "block", "5", NULL);
    void *wc = test_params_workspace(pc->info, tc, h);
    void *wg = test_params_workspace(pg->info, tg, h);
    if (!wc || !wg)
        return;
    const size_t P = tev_energy_points(oc, wc);
    CHECK(tev_energy_points(og, wg) == P, "energy grids differ in size");
    double *ec = malloc(P * sizeof *ec), *eg = malloc(P * sizeof *eg);
    tev_energies(oc, wc, ec);
    tev_energies(og, wg, eg);
    CHECK(kt_max_abs_diff(ec, eg, P) == 0.0, "energy grids differ");
    const size_t rows[3] = {0, 17, 63};
    const size_t *rl[1] = {rows};
    double *lc = malloc(3 * P * sizeof *lc), *lg = malloc(3 * P * sizeof *lg);
    double *rc_ = malloc(3 * P * sizeof *rc_), *rg = malloc(3 * P * sizeof *rg);
    double *ic = malloc(3 * P * sizeof *ic), *ig = malloc(3 * P * sizeof *ig);
    void *const wsc[1] = {wc}, *const wsg[1] = {wg};
    double *const outc[1] = {lc}, *const outg[1] = {lg};
    double *const rec[1] = {rc_}, *const reg[1] = {rg}, *const imc[1] = {ic}, *const img[1] = {ig};
    rc = tev_ldos(oc, wsc, 1, rl, 3, outc) || tev_ldos(og, wsg, 1, rl, 3, outg) ||
         tev_green(oc, wsc, 1, rl, 3, rec, imc) || tev_green(og, wsg, 1, rl, 3, reg, img);
    CHECK(rc == MCF_OK, "ldos / green: %s", mcf_last_error());
    const double sl = kt_max_abs(lc, 3 * P), sg = kt_max_abs(ic, 3 * P);
    const double dl = kt_max_abs_diff(lc, lg, 3 * P);
    const double dg = fmax(kt_max_abs_diff(rc_, rg, 3 * P), kt_max_abs_diff(ic, ig, 3 * P));
    CHECK(dl <= 1e-12 * sl && dg <= 1e-12 * sg, "ldos differ by %.3e, green by %.3e", dl, dg);
    double *dc = malloc(P * sizeof *dc), *dgp = malloc(P * sizeof *dgp);
    double *const doc[1] = {dc}, *const dog[1] = {dgp};
    mcf_rng r1, r2;
    mcf_rng_init(&r1, 1, 0);
    mcf_rng_init(&r2, 1, 0);
    mcf_rng *const rr1[1] = {&r1}, *const rr2[1] = {&r2};
    double nc, ncE, ng, ngE;
    rc = tev_dos(oc, wsc, 1, rr1, doc) || tev_dos(og, wsg, 1, rr2, dog) ||
         tev_occupation(oc, wsc, 1, rr1, 0.3, 0.1, &nc, &ncE) ||
         tev_occupation(og, wsg, 1, rr2, 0.3, 0.1, &ng, &ngE);
    CHECK(rc == MCF_OK, "dos / occupation: %s", mcf_last_error());
    const double dd = kt_max_abs_diff(dc, dgp, P);
    CHECK(dd <= 1e-12 * kt_max_abs(dc, P), "exact-trace DOS differs by %.3e", dd);
    CHECK(fabs(nc - ng) <= 1e-12 && fabs(ncE - ngE) <= 1e-12,
          "occupation: n %.15g vs %.15g, e %.15g vs %.15g", nc, ng, ncE, ngE);
    printf("(f) plugin: ldos %.1e, green %.1e, exact DOS %.1e (relative), occupation n %.1e, "
           "e %.1e\n", dl / sl, dg / sg, dd / kt_max_abs(dc, P), fabs(nc - ng), fabs(ncE - ngE));
    /* delta_action, and refusals */
    mcf_local_change ch;
    double snew[3] = {0.0, 0.6, 0.8};
    de_change(&d, 5, snew, &ch);
    const mcf_local_change *chl[1] = {&ch};
    double T = 0.2, mu = -0.5, sc = 0, sgp = 0;
    rc = tev_delta_action(oc, wsc, 1, chl, &T, &mu, &sc) ||
         tev_delta_action(og, wsg, 1, chl, &T, &mu, &sgp);
    CHECK(rc == MCF_OK && fabs(sc - sgp) <= 1e-9 * fmax(1.0, fabs(sc)),
          "delta_action: kpm %.15g, kpm-cuda %.15g (%s)", sc, sgp, mcf_last_error());
    double T0 = 0.0;
    rc = tev_delta_action(og, wsg, 1, chl, &T0, &mu, &sgp);
    CHECK(rc == MCF_EINVAL && strstr(mcf_last_error(), "T = 0") &&
              strstr(mcf_last_error(), "workspace 0"),
          "T = 0: %d %s", rc, mcf_last_error());
    ch.row[1][2] = (int64_t)h->dim + 3;
    rc = tev_delta_action(og, wsg, 1, chl, &T, &mu, &sgp);
    CHECK(rc == MCF_EINVAL && strstr(mcf_last_error(), "workspace 0"),
          "row out of range: %d %s", rc, mcf_last_error());
    printf("    delta_action: kpm %.12f, kpm-cuda %.12f; refusals: %s\n", sc, sgp,
           mcf_last_error());
    /* action: the exact trace on the device, the series on the host */
    {
        const int actions = (mcf_fermion_provides(oc) & MCF_PROVIDES_ACTION) &&
                            (mcf_fermion_provides(og) & MCF_PROVIDES_ACTION);
        CHECK(actions, "kpm or kpm-cuda lacks the action op");
        if (actions) {
            const double aT[6] = {0.05, 0.05, 0.2, 0.2, 1.0, 1.0};
            const double amu[6] = {-1.0, 0.7, 0.0, -0.5, 0.7, 0.0};
            double Sc[6], Sg[6], Ec[6], Eg[6];
            rc = tev_action(oc, wsc, 1, 6, aT, amu, Sc, Ec);
            CHECK(rc == MCF_OK, "kpm action: %s", mcf_last_error());
            rc = tev_action(og, wsg, 1, 6, aT, amu, Sg, Eg);
            CHECK(rc == MCF_OK, "kpm-cuda action: %s", mcf_last_error());
            double ah, bh, worst = 0.0;
            mcf_hamiltonian_scaling(h, 0.01, &ah, &bh);
            int err_bits = 1;
            for (int p = 0; p < 6; p++) {
                const double fmaxp = (ah + fabs(bh - amu[p])) / aT[p] + log(2.0);
                const double tol = 1e-10 * (double)h->dim * fmaxp;
                CHECK(fabs(Sc[p] - Sg[p]) <= tol && fabs(Ec[p] - Eg[p]) <= tol,
                      "action T = %g mu = %g: S kpm %.15g kpm-cuda %.15g, err %.3e vs %.3e "
                      "(tol %.1e)", aT[p], amu[p], Sc[p], Sg[p], Ec[p], Eg[p], tol);
                worst = fmax(worst, fabs(Sc[p] - Sg[p]) / ((double)h->dim * fmaxp));
                err_bits &= Ec[p] == Eg[p];
            }
            const double T0a[2] = {0.2, 0.0}, mu0a[2] = {0.0, 0.0};
            rc = tev_action(og, wsg, 1, 2, T0a, mu0a, Sg, Eg);
            CHECK(rc == MCF_EINVAL && strstr(mcf_last_error(), "point 1"),
                  "kpm-cuda action T = 0: %d %s", rc, mcf_last_error());
            printf("    action: max |S_gpu - S_cpu| / (dim max|F|) = %.1e, err %s; T = 0: %s\n",
                   worst, err_bits ? "bitwise equal" : "differs", mcf_last_error());
        }
    }
    /* the moment ops: the exact trace's and the rows' moments agree with the CPU's to
     * 1e-12 mu_0 (the same products in double, summed in another order), a and b are the
     * same bits; with random vectors (Philox on the device) dos_moments' DOS is dos()'s from
     * the same stream, bit for bit, and its variance is finite */
    CHECK(mcf_fermion_provides(og) & MCF_PROVIDES_MOMENTS, "kpm-cuda lacks the moment ops");
    if ((mcf_fermion_provides(og) & MCF_PROVIDES_MOMENTS) &&
        (mcf_fermion_provides(oc) & MCF_PROVIDES_MOMENTS)) {
        enum { MM = 128 };
        double muc[MM], mug[MM], vc[MM], vg[MM], sc2[2], sg2[2];
        double *pmc[1] = {muc}, *pmg[1] = {mug}, *pvc[1] = {vc}, *pvg[1] = {vg};
        double *psc[1] = {sc2}, *psg[1] = {sg2};
        rc = tev_dos_moments(oc, wsc, 1, rr1, pmc, pvc, psc, NULL) ||
             tev_dos_moments(og, wsg, 1, rr2, pmg, pvg, psg, NULL);
        CHECK(rc == MCF_OK, "dos_moments: %s", mcf_last_error());
        double dm = kt_max_abs_diff(muc, mug, MM);
        CHECK(dm <= 1e-12 * muc[0] && sc2[0] == sg2[0] && sc2[1] == sg2[1] && vg[5] == 0.0,
              "exact-trace moments differ by %.3e (or scale / variance)", dm);
        double lmc[3 * MM], lmg[3 * MM], lsc[2], lsg[2];
        double *plc[1] = {lmc}, *plg[1] = {lmg}, *pls[1] = {lsc}, *plh[1] = {lsg};
        rc = tev_ldos_moments(oc, wsc, 1, rl, 3, plc, pls, NULL) ||
             tev_ldos_moments(og, wsg, 1, rl, 3, plg, plh, NULL);
        const double dlm = kt_max_abs_diff(lmc, lmg, 3 * MM);
        CHECK(rc == MCF_OK && dlm <= 1e-12, "ldos moments differ by %.3e (%s)", dlm,
              mcf_last_error());
        test_params *tr = test_params_make(pg->info->params, "test_kpm_cuda.ini", "vectors",
                                           "4", "moments", "128", NULL);
        void *wr = test_params_workspace(pg->info, tr, h);
        if (wr) {
            void *const wsr[1] = {wr};
            double *dd1 = malloc(P * sizeof *dd1), *dd2 = malloc(P * sizeof *dd2);
            double *pd1[1] = {dd1}, *pd2[1] = {dd2};
            mcf_rng q1, q2;
            mcf_rng_init(&q1, 9, 1);
            mcf_rng_init(&q2, 9, 1);
            mcf_rng *const qq1[1] = {&q1}, *const qq2[1] = {&q2};
            rc = tev_dos_moments(og, wsr, 1, qq1, pmg, pvg, psg, pd1) ||
                 tev_dos(og, wsr, 1, qq2, pd2);
            CHECK(rc == MCF_OK && !memcmp(dd1, dd2, P * sizeof *dd1) && isfinite(vg[7]) &&
                      vg[7] > 0,
                  "kpm-cuda dos_moments' DOS differs from dos() or bad variance %g (%s)", vg[7],
                  mcf_last_error());
            free(dd1);
            free(dd2);
            tev_destroy(og, wr);
        }
        test_params_free(tr);
        printf("    moments: exact trace %.1e (relative), rows %.1e; random vectors: the DOS "
               "of dos_moments is dos()'s bit for bit\n", dm / muc[0], dlm);
    }
    tev_destroy(oc, wc);
    tev_destroy(og, wg);
    test_params_free(tc);
    test_params_free(tg);
    mcf_hamiltonian_destroy(h);
    free(d.s);
    free(ec); free(eg); free(lc); free(lg); free(rc_); free(rg); free(ic); free(ig);
    free(dc); free(dgp);
    tev_batch_release(); /* before the plugins go: its keep slots' release is their code */
    mcfe_plugin_close(pc);
    mcfe_plugin_close(pg);
}

/* (g) */
static void test_out_of_memory(void)
{
    kcu_engine *e = NULL;
    const int rc = kcu_engine_create((size_t)1 << 30, 64, &e);
    printf("(g) 2^30 rows x 64 vectors: %s\n", mcf_last_error());
    CHECK(rc == MCF_ENOMEM && !e && strstr(mcf_last_error(), "out of device memory") &&
              strstr(mcf_last_error(), "MiB"),
          "a 2 TiB engine: rc %d, %s", rc, mcf_last_error());
    kcu_engine_destroy(e);
    /* the device still works */
    kcu_dct *p = NULL;
    CHECK(kcu_dct_create(16, 8, 1, &p) == MCF_OK, "after out of memory: %s", mcf_last_error());
    kcu_dct_destroy(p);
}

/* kpm-cuda's declaration: kpm's keys, then the device keys (see the top of the file) */
static void test_param_specs(void)
{
    mcf_plugin *pc = NULL, *pg = NULL;
    if (open_kpm_pair(&pc, &pg))
        return;
    const mcf_param_spec *sc = pc->info->params, *sg = pg->info->params;
    const size_t nc = mcfi_spec_count(sc), ng = mcfi_spec_count(sg);
    static const char *const device[4][2] = {{"gfmc_blocks", "auto"},
                                             {"gfmc_fft", "true"},
                                             {"gfmc_on_chip", "true"},
                                             {"gfmc_recursion", "auto"}};
    CHECK(ng == nc + 4, "kpm-cuda declares %zu parameters, kpm %zu (+ 4 expected)", ng, nc);
    for (size_t k = 0; k < nc && k < ng; k++)
        CHECK(!strcmp(sc[k].name, sg[k].name) && sc[k].type == sg[k].type &&
                  sc[k].flags == sg[k].flags && !strcmp(sc[k].doc, sg[k].doc),
              "kpm-cuda's parameter %zu (%s) is not kpm's (%s)", k, sg[k].name, sc[k].name);
    for (size_t k = 0; k < 4 && nc + k < ng; k++) {
        const mcf_param_spec *s = &sg[nc + k];
        CHECK(!strcmp(s->name, device[k][0]) && s->default_value &&
                  !strcmp(s->default_value, device[k][1]) &&
                  (s->flags & MCF_PARAM_ECHO_IF_CHANGED) && s->doc && *s->doc,
              "kpm-cuda's device key %zu: %s = %s (expected %s = %s, echoed only if changed, "
              "with a doc line)", k, s->name, s->default_value ? s->default_value : "(none)",
              device[k][0], device[k][1]);
    }
    printf("parameters: kpm's %zu, then gfmc_blocks, gfmc_fft, gfmc_on_chip, gfmc_recursion\n",
           nc);
    mcfe_plugin_close(pc);
    mcfe_plugin_close(pg);
}

int main(void)
{
    char why[512];
    test_param_specs();
    if (check_failed_count)
        return check_exit();
    if (!kcu_probe(why, sizeof why)) {
        printf("skipped: no device (%s)\n", why);
        return 77;
    }
    printf("device: %s\n", why);
    test_moments();
    test_random();
    test_dct();
    test_gfmc();
    test_plugin();
    test_out_of_memory();
    return check_exit();
}
