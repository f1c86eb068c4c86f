/* test_kpm_exact.c — KPM (plugins/kpm, kpm_core.h) against exact diagonalization of small
 * random Hermitian Hamiltonians (dim 50..200, complex hoppings, GSL gsl_eigen_hermv):
 *
 *   (a) moments <r|T_n(H~)|r> of unit vectors and random vectors, blocks of 1, 3 and 8,
 *       against sum_k |<k|r>|^2 T_n(x_k) (1e-10 of max |mu|); general <a|T_n(H~)|b>
 *       against sum_k <a|k><k|b> T_n(x_k); the two-moments-per-step identity against the
 *       one-moment-per-step recursion (1e-12);
 *   (b) moments do not depend on the block size nor on the number of OpenMP threads;
 *   (c) the FFT reconstruction (DOS, LDOS) against the kernel-damped series summed
 *       directly at every node from the exact moments (1e-10), for the three kernels and
 *       N = M, 2M and the odd N = 247 = 13 x 19 (GSL's mixed-radix FFT, length 2N);
 *   (d) the Jackson resolution: the LDOS of an isolated level has the variance
 *       (M - x0^2 (M-1)) / (2 (M+1)) (1 - cos(2 pi/(M+1))) of Weisse et al.
 *       (1e-10) and a width within 10% of pi/M sqrt(1 - x0^2); >= 0.99 of its weight lies
 *       within +-3 pi/M;
 *   (e) Green's functions: -Im G / pi equals the LDOS (1e-10), Re G equals the series
 *       -2 sum g_n mu_n U_{n-1}(x) summed directly from exact moments (1e-10);
 *   (f) integrated density and band energy: T = 0 closed forms and T > 0 quadrature
 *       against a fine Chebyshev-Gauss sum (2^18 nodes), and against the exact
 *       (1/dim) sum f(eps_k) of ED at large M. */
#include <stdio.h>

#include "kpm_core.h"
#include "kpm_test_util.h"

#ifdef _OPENMP
#include <omp.h>
#endif

/* ---- (a), (b) moments ------------------------------------------------------------------- */

static void test_moments(size_t dim, uint64_t seed)
{
    mcf_rng rng;
    mcf_rng_init(&rng, seed, 0);
    mcf_hamiltonian *h = kt_random_h(&rng, dim, 8, 3 * dim, 1.0, 1.5);
    if (!h)
        return;
    double a, b;
    mcf_hamiltonian_scaling(h, 0.01, &a, &b);
    kt_eigen e = kt_diagonalize(h);
    double *x = malloc(dim * sizeof *x);
    for (size_t k = 0; k < dim; k++)
        x[k] = (e.eval[k] - b) / a;
    CHECK(x[0] > -1.0 && x[dim - 1] < 1.0, "spectrum inside [-1, 1]: %g %g", x[0], x[dim - 1]);

    const size_t M = 200, nv = 8;
    kpm_engine *eng = NULL;
    int rc = kpm_engine_create(dim, 8, &eng);
    CHECK(rc == MCF_OK, "%s", mcf_last_error());
    double *vre = malloc(nv * dim * sizeof *vre), *vim = malloc(nv * dim * sizeof *vim);
    double *ov = malloc(2 * dim * sizeof *ov), *w = malloc(dim * sizeof *w);
    double *wi = malloc(dim * sizeof *wi);
    double *mu = malloc(nv * M * sizeof *mu), *ref = malloc(M * sizeof *ref);
    double *ref_im = malloc(M * sizeof *ref_im), *mug = malloc(2 * nv * M * sizeof *mug);
    double *left = malloc(2 * dim * nv * sizeof *left);

    /* vectors: 3 unit vectors, then 5 random-phase vectors */
    for (size_t j = 0; j < nv; j++)
        for (size_t r = 0; r < dim; r++) {
            if (j < 3) {
                vre[j * dim + r] = r == (j * 37) % dim ? 1.0 : 0.0;
                vim[j * dim + r] = 0.0;
            } else {
                const double phi = 2.0 * kt_pi * mcf_rng_uniform(&rng);
                vre[j * dim + r] = cos(phi);
                vim[j * dim + r] = sin(phi);
            }
        }
    /* blocks of 8 (all vectors at once), then 3 (the last block partial) and 1 */
    const size_t blocks[3] = {8, 3, 1};
    double worst_diag = 0.0, worst_two = 0.0, worst_gen = 0.0, worst_block = 0.0;
    double *mu_b8 = malloc(nv * M * sizeof *mu_b8);
    for (int bi = 0; bi < 3; bi++) {
        const size_t B = blocks[bi];
        for (size_t j0 = 0; j0 < nv; j0 += B) {
            const size_t nb = nv - j0 < B ? nv - j0 : B;
            double *v = kpm_engine_start(eng);
            for (size_t j = 0; j < nb; j++)
                for (size_t r = 0; r < dim; r++) {
                    v[2 * nb * r + j] = vre[(j0 + j) * dim + r];
                    v[2 * nb * r + nb + j] = vim[(j0 + j) * dim + r];
                }
            rc = kpm_moments_diag(eng, h, a, b, nb, M, mu + j0 * M);
            CHECK(rc == MCF_OK, "%s", mcf_last_error());
        }
        if (bi == 0)
            memcpy(mu_b8, mu, nv * M * sizeof *mu);
        for (size_t q = 0; q < nv * M; q++)
            worst_block = fmax(worst_block, fabs(mu[q] - mu_b8[q]));
        for (size_t j = 0; j < nv; j++) {
            kt_overlaps(&e, vre + j * dim, vim + j * dim, ov);
            for (size_t k = 0; k < dim; k++)
                w[k] = ov[2 * k] * ov[2 * k] + ov[2 * k + 1] * ov[2 * k + 1];
            kt_moments(dim, x, w, NULL, M, ref, NULL);
            const double scale = kt_max_abs(ref, M);
            for (size_t n = 0; n < M; n++)
                worst_diag = fmax(worst_diag, fabs(mu[j * M + n] - ref[n]) / scale);
        }
    }
    CHECK(worst_diag < 1e-10, "dim %zu: diagonal moments vs exact: worst relative error %.3e",
          dim, worst_diag);
    CHECK(worst_block < 1e-14, "dim %zu: moments depend on the block size: %.3e", dim,
          worst_block);

    /* general <a_j|T_n|b_j>: a_j = v_j (one moment per step) and a_j = v_{j+1} */
    for (int pass = 0; pass < 2; pass++) {
        double *v = kpm_engine_start(eng);
        for (size_t j = 0; j < nv; j++) {
            const size_t ja = pass ? (j + 1) % nv : j;
            for (size_t r = 0; r < dim; r++) {
                v[2 * nv * r + j] = vre[j * dim + r];
                v[2 * nv * r + nv + j] = vim[j * dim + r];
                left[2 * nv * r + j] = vre[ja * dim + r];
                left[2 * nv * r + nv + j] = vim[ja * dim + r];
            }
        }
        rc = kpm_moments_general(eng, h, a, b, nv, left, M, mug);
        CHECK(rc == MCF_OK, "%s", mcf_last_error());
        for (size_t j = 0; j < nv; j++) {
            if (pass == 0) {
                const double scale = kt_max_abs(mu_b8 + j * M, M);
                for (size_t n = 0; n < M; n++) {
                    const double d = fabs(mug[2 * (j * M + n)] - mu_b8[j * M + n]) / scale;
                    const double di = fabs(mug[2 * (j * M + n) + 1]) / scale;
                    if (d > worst_two)
                        worst_two = d;
                    if (di > worst_two)
                        worst_two = di;
                }
                continue;
            }
            const size_t ja = (j + 1) % nv;
            double *ovb = malloc(2 * dim * sizeof *ovb);
            kt_overlaps(&e, vre + ja * dim, vim + ja * dim, ov);
            kt_overlaps(&e, vre + j * dim, vim + j * dim, ovb);
            for (size_t k = 0; k < dim; k++) { /* conj(<k|a>) <k|b> */
                w[k] = ov[2 * k] * ovb[2 * k] + ov[2 * k + 1] * ovb[2 * k + 1];
                wi[k] = ov[2 * k] * ovb[2 * k + 1] - ov[2 * k + 1] * ovb[2 * k];
            }
            free(ovb);
            kt_moments(dim, x, w, wi, M, ref, ref_im);
            double scale = fmax(kt_max_abs(ref, M), kt_max_abs(ref_im, M));
            for (size_t n = 0; n < M; n++) {
                const double d = fmax(fabs(mug[2 * (j * M + n)] - ref[n]),
                                      fabs(mug[2 * (j * M + n) + 1] - ref_im[n])) /
                                 scale;
                if (d > worst_gen)
                    worst_gen = d;
            }
        }
    }
    CHECK(worst_two < 1e-12, "dim %zu: two moments per step vs one: %.3e", dim, worst_two);
    CHECK(worst_gen < 1e-10, "dim %zu: general moments vs exact: %.3e", dim, worst_gen);
    printf("moments, dim %3zu, M = %zu: diagonal vs exact %.2e, general vs exact %.2e, "
           "two-per-step vs one-per-step %.2e, block 1/3 vs 8 %.2e\n",
           dim, M, worst_diag, worst_gen, worst_two, worst_block);

    free(mu_b8);
    free(vre);
    free(vim);
    free(ov);
    free(w);
    free(wi);
    free(mu);
    free(ref);
    free(ref_im);
    free(mug);
    free(left);
    free(x);
    kpm_engine_destroy(eng);
    kt_eigen_free(&e);
    mcf_hamiltonian_destroy(h);
}

/* (b) the stochastic trace gives the same bits on 1 and 2 threads and for any block */
static void test_reproducible(void)
{
    mcf_hamiltonian *h = NULL;
    mcf_rng rng;
    mcf_rng_init(&rng, 99, 0);
    const size_t dim = 5 * KPM_CHUNK + 17; /* several chunks */
    h = kt_random_h(&rng, dim, 6, 2 * dim, 1.0, 1.0);
    double a, b;
    mcf_hamiltonian_scaling(h, 0.01, &a, &b);
    /* blocks 4, 8 and 16 run the 4-wide vector step, 1 and 5 the scalar one */
    enum { NC = 6 };
    const size_t M = 64, R = 16;
    double *mu[NC];
    const size_t blocks[NC] = {4, 4, 1, 5, 8, 16};
    const int threads[NC] = {1, 2, 2, 2, 2, 2};
    for (int c = 0; c < NC; c++) {
#ifdef _OPENMP
        omp_set_num_threads(threads[c]);
#else
        (void)threads;
#endif
        kpm_engine *eng = NULL;
        int rc = kpm_engine_create(dim, blocks[c], &eng);
        CHECK(rc == MCF_OK, "%s", mcf_last_error());
        mu[c] = malloc(R * M * sizeof *mu[c]);
        mcf_rng_init(&rng, 7, 3);
        rc = kpm_stochastic_moments(eng, h, a, b, &rng, KPM_RANDOM_PHASE, R, M, mu[c]);
        CHECK(rc == MCF_OK, "%s", mcf_last_error());
        kpm_engine_destroy(eng);
    }
    CHECK(!memcmp(mu[0], mu[1], R * M * sizeof(double)),
          "moments differ between 1 and 2 threads");
    double worst = 0.0;
    for (int c = 2; c < NC; c++)
        for (size_t q = 0; q < R * M; q++)
            worst = fmax(worst, fabs(mu[c][q] - mu[1][q]));
    /* every element goes through the same operations in the same order in both steps */
    CHECK(worst == 0.0, "stochastic moments depend on the block size: %.3e", worst);
    printf("reproducibility, dim %zu: 1 vs 2 threads bitwise %s; blocks 1, 4, 5, 8, 16 "
           "differ by %.1e (bitwise %s)\n",
           dim, memcmp(mu[0], mu[1], R * M * sizeof(double)) ? "NO" : "yes", worst,
           worst == 0.0 ? "yes" : "no");
#ifdef _OPENMP
    omp_set_num_threads(omp_get_num_procs());
#endif
    for (int c = 0; c < NC; c++)
        free(mu[c]);
    mcf_hamiltonian_destroy(h);
}

/* ---- (c) reconstruction, (e) Green's functions ------------------------------------------ */

static void test_reconstruction(void)
{
    mcf_rng rng;
    mcf_rng_init(&rng, 2024, 1);
    const size_t dim = 120;
    mcf_hamiltonian *h = kt_random_h(&rng, dim, 6, 2 * dim, 1.0, 2.0);
    double a, b;
    mcf_hamiltonian_scaling(h, 0.01, &a, &b);
    kt_eigen e = kt_diagonalize(h);
    double *x = malloc(dim * sizeof *x), *w = malloc(dim * sizeof *w);
    for (size_t k = 0; k < dim; k++)
        x[k] = (e.eval[k] - b) / a;
    const size_t M = 128;
    double *mu_dos = malloc(M * sizeof *mu_dos), *mu_ldos = malloc(M * sizeof *mu_ldos);
    for (size_t k = 0; k < dim; k++)
        w[k] = 1.0 / (double)dim;
    kt_moments(dim, x, w, NULL, M, mu_dos, NULL);
    const size_t row = 17;
    for (size_t k = 0; k < dim; k++) {
        gsl_complex c = gsl_matrix_complex_get(e.vec, row, k);
        w[k] = GSL_REAL(c) * GSL_REAL(c) + GSL_IMAG(c) * GSL_IMAG(c);
    }
    kt_moments(dim, x, w, NULL, M, mu_ldos, NULL);

    /* the KPM engine's LDOS moments of the same row agree with the exact ones */
    kpm_engine *eng = NULL;
    kpm_engine_create(dim, 4, &eng);
    double mu_k[128];
    int rc = kpm_ldos_moments(eng, h, a, b, &row, 1, M, mu_k);
    CHECK(rc == MCF_OK, "%s", mcf_last_error());
    double dmax = 0.0;
    for (size_t n = 0; n < M; n++)
        dmax = fmax(dmax, fabs(mu_k[n] - mu_ldos[n]));
    CHECK(dmax < 1e-10, "LDOS moments of row %zu vs exact: %.3e", row, dmax);
    kpm_engine_destroy(eng);

    const size_t Ns[3] = {M, 2 * M, 247}; /* 247 = 13 x 19: odd, odd prime factors */
    const kpm_kernel kernels[3] = {KPM_KERNEL_JACKSON, KPM_KERNEL_LORENTZ, KPM_KERNEL_NONE};
    const char *kname[3] = {"jackson", "lorentz", "none"};
    double *g = malloc(M * sizeof *g);
    for (int ki = 0; ki < 3; ki++) {
        kpm_kernel_coefficients(kernels[ki], 4.0, M, g);
        for (int ni = 0; ni < 3; ni++) {
            const size_t N = Ns[ni];
            kpm_dct *d = NULL;
            rc = kpm_dct_create(N, M, &d);
            CHECK(rc == MCF_OK, "%s", mcf_last_error());
            double *nodes = malloc(N * sizeof *nodes), *E = malloc(N * sizeof *E);
            double *dos = malloc(N * sizeof *dos), *ldos = malloc(N * sizeof *ldos);
            double *gre = malloc(N * sizeof *gre), *gim = malloc(N * sizeof *gim);
            kpm_dct_nodes(d, nodes);
            kpm_dct_energies(d, a, b, E);
            rc = kpm_dct_density(d, mu_dos, g, M, a, dos);
            rc |= kpm_dct_density(d, mu_ldos, g, M, a, ldos);
            rc |= kpm_dct_green(d, mu_ldos, NULL, g, M, a, gre, gim);
            CHECK(rc == MCF_OK, "%s", mcf_last_error());
            double edos = 0, eldos = 0, eim = 0, ere = 0, asc = 1, sdos = 0, sl = 0, sre = 0;
            for (size_t i = 0; i < N; i++) {
                const double xi = cos(kt_pi * ((double)(N - 1 - i) + 0.5) / (double)N);
                if (fabs(nodes[i] - xi) > 1e-15 || fabs(E[i] - (a * xi + b)) > 1e-13)
                    asc = 0;
                if (i && !(E[i] > E[i - 1]))
                    asc = 0;
                const double fd = kt_series_f(mu_dos, g, M, xi) / a;
                const double fl = kt_series_f(mu_ldos, g, M, xi) / a;
                const double fr = kt_series_reg(mu_ldos, g, M, xi) / a;
                sdos = fmax(sdos, fabs(fd));
                sl = fmax(sl, fabs(fl));
                sre = fmax(sre, fabs(fr));
                edos = fmax(edos, fabs(dos[i] - fd));
                eldos = fmax(eldos, fabs(ldos[i] - fl));
                eim = fmax(eim, fabs(-gim[i] / kt_pi - ldos[i]));
                ere = fmax(ere, fabs(gre[i] - fr));
            }
            edos /= sdos;
            eldos /= sl;
            eim /= sl;
            ere /= sre;
            CHECK(asc, "%s N = %zu: grid is not the ascending Chebyshev nodes", kname[ki], N);
            CHECK(edos < 1e-10 && eldos < 1e-10,
                  "%s N = %zu: FFT vs direct sum: DOS %.3e, LDOS %.3e", kname[ki], N, edos,
                  eldos);
            CHECK(eim < 1e-10, "%s N = %zu: -Im G/pi vs LDOS %.3e", kname[ki], N, eim);
            CHECK(ere < 1e-10, "%s N = %zu: Re G vs direct U-series %.3e", kname[ki], N, ere);
            printf("reconstruction %-7s N = %3zu: DOS %.1e, LDOS %.1e, -ImG/pi vs LDOS %.1e, "
                   "Re G %.1e (relative to max)\n",
                   kname[ki], N, edos, eldos, eim, ere);
            free(nodes);
            free(E);
            free(dos);
            free(ldos);
            free(gre);
            free(gim);
            kpm_dct_destroy(d);
        }
    }

    /* Re G of the Lorentz kernel tends to the exact sum_k w_k / (E - eps_k) away from the
     * levels: inside the largest gap of the LDOS spectrum, at M = 2048 */
    {
        const size_t M2 = 2048, N2 = 4096;
        double *mu2 = malloc(M2 * sizeof *mu2), *g2 = malloc(M2 * sizeof *g2);
        double *gre = malloc(N2 * sizeof *gre), *gim = malloc(N2 * sizeof *gim);
        double *E = malloc(N2 * sizeof *E);
        kt_moments(dim, x, w, NULL, M2, mu2, NULL);
        kpm_kernel_coefficients(KPM_KERNEL_LORENTZ, 4.0, M2, g2);
        kpm_dct *d = NULL;
        kpm_dct_create(N2, M2, &d);
        kpm_dct_green(d, mu2, NULL, g2, M2, a, gre, gim);
        kpm_dct_energies(d, a, b, E);
        size_t kgap = 0;
        for (size_t k = 0; k + 1 < dim; k++)
            if (e.eval[k + 1] - e.eval[k] > e.eval[kgap + 1] - e.eval[kgap])
                kgap = k;
        const double Em = 0.5 * (e.eval[kgap] + e.eval[kgap + 1]);
        size_t im = 0;
        for (size_t i = 0; i < N2; i++)
            if (fabs(E[i] - Em) < fabs(E[im] - Em))
                im = i;
        double exact = 0.0;
        for (size_t k = 0; k < dim; k++)
            exact += w[k] / (E[im] - e.eval[k]);
        const double gap = e.eval[kgap + 1] - e.eval[kgap];
        CHECK(fabs(gre[im] - exact) < 0.02 * fabs(exact) + 1e-3,
              "Re G(%g) = %g vs exact %g in the gap of width %g", E[im], gre[im], exact, gap);
        printf("Re G_rr in the largest gap (E = %.4f, gap %.3f), Lorentz M = %zu: %.6f, "
               "exact sum %.6f\n", E[im], gap, M2, gre[im], exact);
        kpm_dct_destroy(d);
        free(mu2);
        free(g2);
        free(gre);
        free(gim);
        free(E);
    }

    free(g);
    free(mu_dos);
    free(mu_ldos);
    free(x);
    free(w);
    kt_eigen_free(&e);
    mcf_hamiltonian_destroy(h);
}

/* ---- (d) Jackson resolution ---------------------------------------------------------- */

static void test_jackson_width(void)
{
    mcf_rng rng;
    mcf_rng_init(&rng, 5, 5);
    const size_t dim = 80;
    /* rows 1.. random with a small spectrum; row 0 decoupled: its LDOS is one level */
    mcf_hamiltonian *h = kt_random_h(&rng, dim, 6, 2 * dim, 0.3, 0.5);
    for (int k = 0; k < h->width; k++) { /* disconnect row 0 from the others */
        const int32_t c = h->col[(size_t)k * dim];
        if (c >= 0)
            mcf_hamiltonian_set(h, 0, (size_t)c, 0.0, 0.0);
    }
    mcf_hamiltonian_fix_bounds(h, -3.0, 3.0);
    double a, b;
    mcf_hamiltonian_scaling(h, 0.01, &a, &b);
    const double levels[2] = {0.0, 1.8};
    const size_t Ms[2] = {128, 512};
    kpm_engine *eng = NULL;
    kpm_engine_create(dim, 1, &eng);
    for (int li = 0; li < 2; li++)
        for (int mi = 0; mi < 2; mi++) {
            mcf_hamiltonian_set_onsite(h, 0, levels[li]);
            const size_t M = Ms[mi], N = 8 * M;
            const double x0 = (levels[li] - b) / a;
            double *mu = malloc(M * sizeof *mu), *g = malloc(M * sizeof *g);
            double *f = malloc(N * sizeof *f), *xn = malloc(N * sizeof *xn);
            size_t row = 0;
            int rc = kpm_ldos_moments(eng, h, a, b, &row, 1, M, mu);
            CHECK(rc == MCF_OK, "%s", mcf_last_error());
            kpm_kernel_coefficients(KPM_KERNEL_JACKSON, 0, M, g);
            kpm_dct *d = NULL;
            kpm_dct_create(N, M, &d);
            kpm_dct_density(d, mu, g, M, a, f);
            kpm_dct_nodes(d, xn);
            /* Chebyshev-Gauss quadrature: exact for these polynomial moments */
            double m0 = 0, m1 = 0, m2 = 0, win = 0;
            const double pm = kt_pi / (double)M;
            for (size_t i = 0; i < N; i++) {
                const double wq = kt_pi / (double)N * sqrt(1.0 - xn[i] * xn[i]) * a * f[i];
                m0 += wq;
                m1 += wq * (xn[i] - x0);
                m2 += wq * (xn[i] - x0) * (xn[i] - x0);
                if (fabs(xn[i] - x0) <= 3.0 * pm)
                    win += wq;
            }
            const double var = m2 / m0 - (m1 / m0) * (m1 / m0);
            const double sigma = sqrt(var), sig72 = kpm_jackson_width(M, x0);
            const double approx = pm * sqrt(1.0 - x0 * x0);
            CHECK(fabs(m0 - 1.0) < 1e-12, "LDOS weight %.15f", m0);
            CHECK(fabs(sigma - sig72) < 1e-10, "width %.12g vs the formula %.12g", sigma, sig72);
            CHECK(fabs(sigma / approx - 1.0) < 0.10, "width %.6g vs pi/M sqrt(1-x^2) = %.6g",
                  sigma, approx);
            CHECK(win >= 0.99, "weight within +-3 pi/M: %.5f", win);
            printf("Jackson peak at x0 = %.3f, M = %4zu: sigma = %.6e (formula %.6e, "
                   "pi/M sqrt(1-x0^2) = %.6e, ratio %.4f), weight within 3pi/M %.5f\n",
                   x0, M, sigma, sig72, approx, sigma / approx, win);
            kpm_dct_destroy(d);
            free(mu);
            free(g);
            free(f);
            free(xn);
        }
    kpm_engine_destroy(eng);
    mcf_hamiltonian_destroy(h);
}

/* ---- (f) occupation ---------------------------------------------------------------------- */

static double fermi(double E, double mu, double T)
{
    if (T == 0.0)
        return E < mu ? 1.0 : E > mu ? 0.0 : 0.5;
    const double y = (E - mu) / T;
    return y > 0 ? exp(-y) / (1.0 + exp(-y)) : 1.0 / (1.0 + exp(y));
}

static void test_occupation(void)
{
    mcf_rng rng;
    mcf_rng_init(&rng, 31, 0);
    const size_t dim = 150;
    mcf_hamiltonian *h = kt_random_h(&rng, dim, 6, 2 * dim, 1.0, 2.0);
    double a, b;
    mcf_hamiltonian_scaling(h, 0.01, &a, &b);
    kt_eigen e = kt_diagonalize(h);
    double *x = malloc(dim * sizeof *x), *w = malloc(dim * sizeof *w);
    for (size_t k = 0; k < dim; k++) {
        x[k] = (e.eval[k] - b) / a;
        w[k] = 1.0 / (double)dim;
    }
    const size_t M = 256, NF = 1u << 18;
    double *mu = malloc(M * sizeof *mu), *g = malloc(M * sizeof *g);
    double *f = malloc(NF * sizeof *f), *E = malloc(NF * sizeof *E);
    kt_moments(dim, x, w, NULL, M, mu, NULL);
    kpm_kernel_coefficients(KPM_KERNEL_JACKSON, 0, M, g);
    kpm_dct *d = NULL;
    kpm_dct_create(NF, M, &d);
    kpm_dct_density(d, mu, g, M, a, f);
    kpm_dct_energies(d, a, b, E);
    const double mus[4] = {-1.0, 0.3, e.eval[dim - 1] + 5.0, e.eval[0] - 5.0};
    const double Ts[4] = {0.0, 0.05, 0.3, 1e-3};
    double worst0 = 0, worstT = 0;
    for (int mi = 0; mi < 4; mi++)
        for (int ti = 0; ti < 4; ti++) {
            double n, en;
            int rc = kpm_occupation(mu, g, M, a, b, mus[mi], Ts[ti], &n, &en);
            CHECK(rc == MCF_OK, "%s", mcf_last_error());
            /* Chebyshev-Gauss sum: int rho F dE = (pi/N) sum a sin(theta) rho F */
            double rn = 0, re = 0;
            for (size_t i = 0; i < NF; i++) {
                const double xi = (E[i] - b) / a;
                const double wq = kt_pi / (double)NF * a * sqrt(1.0 - xi * xi) * f[i] *
                                  fermi(E[i], mus[mi], Ts[ti]);
                rn += wq;
                re += wq * E[i];
            }
            const double dn = fabs(n - rn), de = fabs(en - re) / (fabs(a) + fabs(b));
            if (Ts[ti] == 0.0 || Ts[ti] < 0.01) /* step-like: the fine sum is O(1/NF) */
                worst0 = fmax(worst0, fmax(dn, de));
            else
                worstT = fmax(worstT, fmax(dn, de));
        }
    CHECK(worst0 < 2e-5, "T = 0 / 1e-3 occupation vs fine quadrature: %.3e", worst0);
    CHECK(worstT < 1e-11, "T > 0 occupation vs fine quadrature: %.3e", worstT);
    printf("occupation vs Chebyshev-Gauss sum on 2^18 nodes: T >= 0.05 %.1e, T = 0 and "
           "1e-3 %.1e (the fine sum's own error is O(1e-5))\n", worstT, worst0);

    /* vs the exact (1/dim) sum f(eps_k) at T = 0.3, M = 2048 */
    {
        const size_t M2 = 2048;
        double *mu2 = malloc(M2 * sizeof *mu2), *g2 = malloc(M2 * sizeof *g2);
        kt_moments(dim, x, w, NULL, M2, mu2, NULL);
        kpm_kernel_coefficients(KPM_KERNEL_JACKSON, 0, M2, g2);
        const double m = 0.3, T = 0.3;
        double n, en, nx = 0, ex = 0;
        kpm_occupation(mu2, g2, M2, a, b, m, T, &n, &en);
        for (size_t k = 0; k < dim; k++) {
            nx += fermi(e.eval[k], m, T) / (double)dim;
            ex += e.eval[k] * fermi(e.eval[k], m, T) / (double)dim;
        }
        /* Jackson broadening changes int rho f by ~ sigma^2 <f''> / 2 ~ (pi a / M)^2 / T */
        const double sig = kt_pi * a / (double)M2, tol = 2.0 * sig * sig / T;
        CHECK(fabs(n - nx) < tol && fabs(en - ex) < tol * (fabs(b) + a),
              "M = %zu, T = %g: density %.8f vs exact %.8f, energy %.8f vs %.8f (tol %.1e)",
              M2, T, n, nx, en, ex, tol);
        printf("occupation M = %zu, mu = %g, T = %g: n = %.8f (exact %.8f), e = %.8f (exact "
               "%.8f), tolerance %.1e\n", M2, m, T, n, nx, en, ex, tol);
        /* mu above the whole rescaled interval: every state of the expansion is filled,
         * n = g_0 mu_0 = 1 and e = b + a g_1 mu_1 (the Jackson kernel keeps the weight
         * and scales the first moment by g_1 = cos(pi / (M + 1))) */
        double n0, e0;
        kpm_occupation(mu2, g2, M2, a, b, b + a + 1.0, 0.0, &n0, &e0);
        const double efull = b + a * g2[1] * mu2[1];
        CHECK(fabs(n0 - 1.0) < 1e-13 && fabs(e0 - efull) < 1e-12,
              "all states filled: n = %.15f, e = %.14f vs b + a g1 mu1 = %.14f", n0, e0, efull);
        kpm_occupation(mu2, g2, M2, a, b, b - a - 1.0, 0.0, &n0, &e0);
        CHECK(n0 == 0.0 && e0 == 0.0, "no state filled: n = %g, e = %g", n0, e0);
        free(mu2);
        free(g2);
    }
    double n, en;
    CHECK(kpm_occupation(mu, g, M, a, b, 0.0, -1.0, &n, &en) == MCF_EINVAL,
          "negative T accepted");
    CHECK(kpm_occupation(mu, g, M, a, b, NAN, 0.1, &n, &en) == MCF_EINVAL, "NaN mu accepted");

    kpm_dct_destroy(d);
    free(mu);
    free(g);
    free(f);
    free(E);
    free(x);
    free(w);
    kt_eigen_free(&e);
    mcf_hamiltonian_destroy(h);
}

int main(void)
{
    test_moments(50, 1);
    test_moments(200, 2);
    test_reproducible();
    test_reconstruction();
    test_jackson_width();
    test_occupation();
    return check_exit();
}
