/* test_kpm_moments.c — the Chebyshev moments of the kpm plugin (its spectra and
 * reconstruct, called through tests/evaluator_test.h in the shapes of ABI 1's
 * moment_count, dos_moments, ldos_moments and reconstruct), loaded through the core's
 * loader, against dense
 * diagonalization (GSL) of a random complex Hamiltonian:
 *
 *   (a) vectors = 0: the DOS moments equal Tr T_n(H~) / dim from the eigenvalues, to the
 *       rounding of the recursion (bound (n + 1) dim 8 eps), and their variance is 0;
 *       ldos_moments equal sum_k |<k|r>|^2 T_n(x_k) likewise; the LDOS that comes with them
 *       is ldos()'s bit for bit;
 *   (b) random phases: over D = 400 draws of R = 8 vectors the mean moments lie within
 *       4.5 standard errors sqrt(<var> / (R D)) of the exact ones (n >= 1; mu_0 = 1
 *       exactly), where var is the op's own per-vector variance; and <var> agrees with the
 *       exact per-vector variance (1/dim^2) sum_{i != j} |T_n(H~)_ij|^2 of random phases
 *       within 4.5 standard errors of the D variances;
 *   (c) the DOS dos_moments returns equals dos()'s from the same stream, bit for bit;
 *   (d) reconstruct: the run's kernel on the run's grid gives back dos() to rounding and
 *       energies()'s grid; at given energies (Clenshaw) it agrees with the FFT within the
 *       summation bound 4 M eps sum|c_n| / (pi a sin theta); with lorentz:3 on 300 nodes
 *       the Gauss-Chebyshev sum pi a / N sum rho_i sin theta_i equals mu_0 (normalization);
 *       unknown kernels are refused;
 *   (e) ed has none of these ops (MCF_FERMION_MOMENTS is not offered); kpm provides
 *       MCF_PROVIDES_MOMENTS. */
#include <float.h>
#include <stdio.h>

#include "internal.h"
#include "kpm_core.h"
#include "kpm_test_util.h"
#include "test_params.h"

static const mcf_plugin_info *info;

#define make_params(...) test_params_make(info->params, "test_kpm_moments.ini", __VA_ARGS__)

enum { DIM = 60, M = 48 };

static void *workspace(test_params *tp, const mcf_hamiltonian *h)
{
    void *ws = NULL;
    int rc = tev_create(info, &tp->p, h, &ws);
    CHECK(rc == MCF_OK && ws, "create: %s", mcf_last_error());
    return ws;
}

/* exact moments (1/dim) sum_k T_n(x_k) and, for row r (r < dim), sum_k |<k|r>|^2 T_n(x_k) */
static void exact_moments(const kt_eigen *e, double a, double b, size_t row, double *dos,
                          double *ldos)
{
    double x[DIM], w[DIM], wr[DIM];
    for (size_t k = 0; k < DIM; k++) {
        x[k] = (e->eval[k] - b) / a;
        w[k] = 1.0 / DIM;
        gsl_complex c = gsl_matrix_complex_get(e->vec, row, k);
        wr[k] = GSL_REAL(c) * GSL_REAL(c) + GSL_IMAG(c) * GSL_IMAG(c);
    }
    kt_moments(DIM, x, w, NULL, M, dos, NULL);
    kt_moments(DIM, x, wr, NULL, M, ldos, NULL);
}

/* the exact per-vector variance of <r|T_n|r> / dim for random phases:
 * (1/dim^2) sum_{i != j} |T_n(H~)_ij|^2, T_n(H~) = V diag(T_n(x)) V^+ */
static void exact_variance(const kt_eigen *e, double a, double b, double *var)
{
    double *t = malloc(DIM * M * sizeof *t);
    for (size_t k = 0; k < DIM; k++) {
        const double x = (e->eval[k] - b) / a;
        double t0 = 1.0, t1 = x;
        for (size_t n = 0; n < M; n++) {
            const double tn = n == 0 ? 1.0 : n == 1 ? x : 2.0 * x * t1 - t0;
            if (n >= 2) {
                t0 = t1;
                t1 = tn;
            }
            t[k * M + n] = tn;
        }
    }
    for (size_t n = 0; n < M; n++) {
        double s = 0.0;
        for (size_t i = 0; i < DIM; i++)
            for (size_t j = 0; j < DIM; j++) {
                if (i == j)
                    continue;
                double re = 0.0, im = 0.0;
                for (size_t k = 0; k < DIM; k++) {
                    gsl_complex vi = gsl_matrix_complex_get(e->vec, i, k);
                    gsl_complex vj = gsl_matrix_complex_get(e->vec, j, k);
                    /* v_i conj(v_j) T_n(x_k) */
                    const double pr = GSL_REAL(vi) * GSL_REAL(vj) + GSL_IMAG(vi) * GSL_IMAG(vj);
                    const double pi = GSL_IMAG(vi) * GSL_REAL(vj) - GSL_REAL(vi) * GSL_IMAG(vj);
                    re += pr * t[k * M + n];
                    im += pi * t[k * M + n];
                }
                s += re * re + im * im;
            }
        var[n] = s / ((double)DIM * DIM);
    }
    free(t);
}

static void test_exact(const mcf_hamiltonian *h, const kt_eigen *e)
{
    test_params *tp = make_params("vectors", "0", "moments", "48", "block", "5", NULL);
    void *ws = workspace(tp, h);
    if (!ws)
        return;
    CHECK(tev_moment_count(info, ws) == M, "moment_count %zu, want %d",
          tev_moment_count(info, ws), M);
    double mu[M], var[M], scale[2], ex[M], exl[M];
    double *pm[1] = {mu}, *pv[1] = {var}, *ps[1] = {scale};
    void *const w1[1] = {ws};
    mcf_rng rng;
    mcf_rng_init(&rng, 3, 0);
    mcf_rng *r1[1] = {&rng};
    int rc = tev_dos_moments(info, w1, 1, r1, pm, pv, ps, NULL);
    CHECK(rc == MCF_OK, "dos_moments: %s", mcf_last_error());
    const size_t row = 17;
    exact_moments(e, scale[0], scale[1], row, ex, exl);
    double worst = 0.0, worst_var = 0.0;
    for (size_t n = 0; n < M; n++) {
        const double tol = (double)(n + 1) * DIM * 8 * DBL_EPSILON;
        worst = fmax(worst, fabs(mu[n] - ex[n]) / tol);
        worst_var = fmax(worst_var, fabs(var[n]));
    }
    CHECK(worst <= 1.0 && worst_var == 0.0,
          "exact trace: moments off by %.3g of the rounding bound, variance %.3g", worst,
          worst_var);
    /* the LDOS moments of three rows, and the LDOS that comes with them */
    const size_t rows[3] = {row, 0, 59};
    const size_t *rl[1] = {rows};
    const size_t P = tev_energy_points(info, ws);
    double lmu[3 * M], lsc[2];
    double *ld = malloc(3 * P * sizeof *ld), *ld2 = malloc(3 * P * sizeof *ld2);
    double *plm[1] = {lmu}, *pls[1] = {lsc}, *pld[1] = {ld}, *pld2[1] = {ld2};
    rc = tev_ldos_moments(info, w1, 1, rl, 3, plm, pls, pld) ||
         tev_ldos(info, w1, 1, rl, 3, pld2);
    CHECK(rc == MCF_OK, "ldos_moments: %s", mcf_last_error());
    double lworst = 0.0;
    for (size_t n = 0; n < M; n++)
        lworst = fmax(lworst, fabs(lmu[n] - exl[n]) / ((double)(n + 1) * DIM * 8 * DBL_EPSILON));
    CHECK(lworst <= 1.0 && lsc[0] == scale[0] && lsc[1] == scale[1] &&
              !memcmp(ld, ld2, 3 * P * sizeof *ld),
          "ldos moments off by %.3g of the bound, or scale / LDOS differ", lworst);
    printf("(a) exact trace: DOS moments within %.2g, LDOS moments within %.2g of the rounding "
           "bound; variance 0\n", worst, lworst);
    free(ld);
    free(ld2);
    tev_destroy(info, ws);
    test_params_free(tp);
}

static void test_random(const mcf_hamiltonian *h, const kt_eigen *e)
{
    enum { R = 8, D = 400 };
    test_params *tp = make_params("vectors", "8", "moments", "48", NULL);
    void *ws = workspace(tp, h);
    if (!ws)
        return;
    double mu[M], var[M], scale[2];
    double *pm[1] = {mu}, *pv[1] = {var}, *ps[1] = {scale};
    void *const w1[1] = {ws};
    double sum[M] = {0}, vsum[M] = {0}, vsq[M] = {0};
    int rc = MCF_OK;
    for (size_t d = 0; d < D && !rc; d++) {
        mcf_rng rng;
        mcf_rng_init(&rng, 11, d);
        mcf_rng *r1[1] = {&rng};
        rc = tev_dos_moments(info, w1, 1, r1, pm, pv, ps, NULL);
        for (size_t n = 0; n < M; n++) {
            sum[n] += mu[n];
            vsum[n] += var[n];
            vsq[n] += var[n] * var[n];
        }
    }
    CHECK(rc == MCF_OK, "dos_moments: %s", mcf_last_error());
    double ex[M], exl[M], exv[M];
    exact_moments(e, scale[0], scale[1], 0, ex, exl);
    exact_variance(e, scale[0], scale[1], exv);
    double zmax = 0.0, vzmax = 0.0;
    size_t nz = 0, nv = 0;
    for (size_t n = 1; n < M; n++) {
        const double mean = sum[n] / D, vmean = vsum[n] / D;
        const double se = sqrt(vmean / ((double)R * D));
        const double z = fabs(mean - ex[n]) / se;
        if (z > zmax) {
            zmax = z;
            nz = n;
        }
        /* the spread of the D variances: their standard error */
        const double vse = sqrt((vsq[n] / D - vmean * vmean) / (D - 1.0));
        const double vz = fabs(vmean - exv[n]) / vse;
        if (vz > vzmax) {
            vzmax = vz;
            nv = n;
        }
    }
    CHECK(fabs(sum[0] / D - 1.0) <= 8 * DBL_EPSILON, "mu_0 = %.17g, want 1", sum[0] / D);
    CHECK(zmax < 4.5, "mean moment %zu is %.2f standard errors from the exact one", nz, zmax);
    CHECK(vzmax < 4.5, "mean per-vector variance of moment %zu is %.2f standard errors from "
          "the exact (1/dim^2) sum_{i!=j} |T_ij|^2", nv, vzmax);
    printf("(b) random phases, %d x %d vectors: moments within %.2f standard errors (worst n = "
           "%zu); per-vector variance within %.2f (n = %zu) of the exact\n", D, R, zmax, nz,
           vzmax, nv);

    /* (c) the DOS of dos_moments is dos()'s, bit for bit, from the same stream */
    const size_t P = tev_energy_points(info, ws);
    double *d1 = malloc(P * sizeof *d1), *d2 = malloc(P * sizeof *d2);
    double *pd1[1] = {d1}, *pd2[1] = {d2};
    mcf_rng s1, s2;
    mcf_rng_init(&s1, 77, 5);
    mcf_rng_init(&s2, 77, 5);
    mcf_rng *q1[1] = {&s1}, *q2[1] = {&s2};
    rc = tev_dos_moments(info, w1, 1, q1, pm, pv, ps, pd1) || tev_dos(info, w1, 1, q2, pd2);
    CHECK(rc == MCF_OK && !memcmp(d1, d2, P * sizeof *d1) &&
              mcf_rng_u64(&s1) == mcf_rng_u64(&s2),
          "dos_moments' DOS or the stream differs from dos()'s (%s)", mcf_last_error());
    printf("(c) dos_moments gives dos()'s DOS bit for bit and draws the same numbers\n");

    /* (d) reconstruct */
    double *E = malloc(P * sizeof *E), *grid = malloc(P * sizeof *grid);
    double *rho = malloc(P * sizeof *rho), *direct = malloc(P * sizeof *direct);
    tev_energies(info, ws, E);
    rc = tev_reconstruct(info, &tp->p, NULL, M, 1, mu, scale[0], scale[1], P, NULL, grid,
                         rho);
    CHECK(rc == MCF_OK, "reconstruct: %s", mcf_last_error());
    double dmax = kt_max_abs(d1, P), diff = 0.0;
    for (size_t i = 0; i < P; i++)
        diff = fmax(diff, fabs(rho[i] - d1[i]));
    CHECK(diff <= 4 * DBL_EPSILON * dmax && !memcmp(E, grid, P * sizeof *E),
          "the run's kernel and grid: %.3g from dos() (max %.3g), or another grid", diff, dmax);
    rc = tev_reconstruct(info, &tp->p, NULL, M, 1, mu, scale[0], scale[1], P, E, NULL,
                         direct);
    double g[M], csum = 0.0, worst = 0.0;
    kpm_kernel_coefficients(KPM_KERNEL_JACKSON, 4, M, g);
    for (size_t n = 0; n < M; n++)
        csum += (n ? 2.0 : 1.0) * fabs(g[n] * mu[n]);
    for (size_t i = 0; i < P; i++) {
        const double x = (E[i] - scale[1]) / scale[0];
        const double bound = 4.0 * M * DBL_EPSILON * csum /
                             (kt_pi * scale[0] * sqrt((1.0 - x) * (1.0 + x)));
        worst = fmax(worst, fabs(direct[i] - rho[i]) / bound);
    }
    CHECK(rc == MCF_OK && worst <= 1.0, "Clenshaw vs FFT: %.3g of the summation bound (%s)",
          worst, mcf_last_error());
    enum { N2 = 300 };
    double rho2[N2], grid2[N2];
    rc = tev_reconstruct(info, &tp->p, "lorentz:3", M, 1, mu, scale[0], scale[1], N2, NULL,
                         grid2, rho2);
    double norm = 0.0;
    for (size_t i = 0; i < N2; i++) {
        const double x = (grid2[i] - scale[1]) / scale[0];
        norm += rho2[i] * kt_pi * scale[0] * sqrt((1.0 - x) * (1.0 + x)) / N2;
    }
    CHECK(rc == MCF_OK && fabs(norm - mu[0]) <= 64 * DBL_EPSILON,
          "lorentz:3 on %d nodes: integral %.17g, mu_0 %.17g (%s)", N2, norm, mu[0],
          mcf_last_error());
    rc = tev_reconstruct(info, &tp->p, "gauss", M, 1, mu, scale[0], scale[1], 10, NULL, NULL,
                         rho2);
    CHECK(rc == MCF_EINVAL && strstr(mcf_last_error(), "jackson"), "kernel gauss: %d %s", rc,
          mcf_last_error());
    rc = tev_reconstruct(info, &tp->p, "lorentz:-1", M, 1, mu, scale[0], scale[1], 10, NULL,
                         NULL, rho2);
    CHECK(rc == MCF_EINVAL && strstr(mcf_last_error(), "lambda"), "kernel lorentz:-1: %d %s", rc,
          mcf_last_error());
    printf("(d) reconstruct: the run's grid %.2g eps of dos(); Clenshaw within %.2g of the "
           "bound; lorentz:3 integral - mu_0 = %.2g; refusals: %s\n",
           diff / (DBL_EPSILON * dmax), worst, norm - mu[0], mcf_last_error());
    free(d1);
    free(d2);
    free(E);
    free(grid);
    free(rho);
    free(direct);
    tev_destroy(info, ws);
    test_params_free(tp);
}

static void test_ed(void)
{
    mcf_plugin *p = NULL;
    int rc = mcfe_plugin_open("ed", MCF_PLUGIN_FERMION_EVALUATOR, &p);
    CHECK(rc == MCF_OK, "loading ed: %s", mcf_last_error());
    if (rc)
        return;
    /* the bits both evaluators state */
    CHECK(!(mcf_fermion_provides(p->info) & MCF_PROVIDES_MOMENTS) &&
              (mcf_fermion_provides(info) & MCF_PROVIDES_MOMENTS),
          "ed offers moments, or kpm does not");
    printf("(e) ed: no moment ops; kpm: MCF_FERMION_MOMENTS\n");
    mcfe_plugin_close(p);
}

int main(void)
{
    mcf_plugin *p = NULL;
    int rc = mcfe_plugin_open("kpm", MCF_PLUGIN_FERMION_EVALUATOR, &p);
    CHECK(rc == MCF_OK && p, "loading the kpm plugin: %s", mcf_last_error());
    if (rc)
        return check_exit();
    info = p->info;
    CHECK(mcf_fermion_provides(info) & MCF_PROVIDES_MOMENTS, "kpm lacks the moment ops");
    mcf_rng rng;
    mcf_rng_init(&rng, 2024, 0);
    mcf_hamiltonian *h = kt_random_h(&rng, DIM, 6, 120, 1.0, 2.0);
    kt_eigen e = kt_diagonalize(h);
    test_exact(h, &e);
    test_random(h, &e);
    test_ed();
    kt_eigen_free(&e);
    mcf_hamiltonian_destroy(h);
    mcfe_plugin_close(p);
    return check_exit();
}
