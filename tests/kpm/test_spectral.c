/* test_spectral.c — issue 47's spectral functions: the fermion evaluators' vector_moments
 * (mu_n = <v| T_n(H~) |v> of given vectors; mcf/fermion.h, mcf 1.2) on ed and kpm (or the
 * evaluator named as the argument, e.g. kpm-cuda), and mcf_spectral_function /
 * mcf_spectral_occupation (mcf/response.h), against closed forms.
 *
 * (a) The clean periodic 8x8 square (hopping -1): the Bloch state |k> = N^{-1/2} sum_r
 *     e^{i k.r} |r> is an eigenvector with eps_k = -2 (cos k_x + cos k_y), so its moments are
 *     T_n((eps_k - b) / a) exactly.  All 64 k, M = 64, scale a = 4.04, b = 0: the evaluator's
 *     recursion within 1e-13 (its rounding grows ~ n eps); ed within M^2 N eps (its
 *     eigenvalues carry ~N eps ||H||, and |T_n'| <= n^2; the crystal's degenerate shells mix
 *     its eigenvectors, not the sums).
 * (b) A(k, E) of that crystal (M = 256, Jackson) is the kernel's delta at eps_k: on a grid of
 *     step 1e-3 its maximum lies within one step of eps_k for 6 k; its occupied weight at
 *     T = 0.3 is f(eps_k) up to the kernel's smoothing, sigma^2 max|f''| with sigma = pi a / M
 *     (Jackson's width) and max|f''| = 1 / (6 sqrt(3) T^2); at T = 0 and mu = eps_k +- 8 sigma
 *     it is within 1e-3 of 1 and 0 (Jackson's tails fall faster than any power).
 * (c) Anderson on the periodic 6x6 square (W = 3, twist (0.13, 0.27) x 2 pi: complex): the
 *     evaluator's moments of the 36 Bloch states against ed's (M^2 N eps, as (a)), and
 *     completeness,
 *     (1/N) sum_k mu_n(k) = (1/N) sum_r mu_n(e_r) (the unit vectors: both are Tr T_n / N),
 *     within 1e-12; the Bloch states' A(k, E) summed over k against the unit vectors' (the
 *     DOS) within 1e-10 of its maximum.
 * (d) Refusals: no moments, no vectors, a scale that misses the bounds, a NULL array;
 *     mcf_spectral_* with M = 0 and a bad kernel.
 * (e) More vectors than a pass and odd M (kpm-cuda's device path takes 64 vectors a pass and
 *     the doubling identities mu_2n = 2 <t_n|t_n> - mu_0, mu_2n+1 = 2 <t_n+1|t_n> - mu_1):
 *     Anderson on the twisted 10x10 (W = 3), its 100 Bloch states, M = 1, 2, 7 and 63,
 *     against ed within M^2 N eps as (c). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "evaluator_test.h"
#include "internal.h"
#include "mcf/mcf.h"
#include "test_params.h"
#include "test_xorshift.h"

static const double pi = 3.14159265358979323846;
static const mcf_plugin_info *ed_info, *ev_info;

static mcf_lattice *square(long L)
{
    mcf_lattice *lat = NULL;
    CHECK(mcf_lattice_create(MCF_LATTICE_SQUARE, L, MCF_BOUNDARY_PERIODIC, &lat) == MCF_OK,
          "%s", mcf_last_error());
    return lat;
}

/* the N Bloch states of an L x L lattice, k = 2 pi (i, j) / L + theta / L, vector after vector */
static double *bloch(const mcf_lattice *lat, long L, const double *theta)
{
    const size_t N = lat->sites;
    double *v = malloc(2 * N * N * sizeof *v);
    for (size_t q = 0; q < N; q++) {
        const double kx = (2 * pi * (double)(q % (size_t)L) + theta[0]) / (double)L;
        const double ky = (2 * pi * (double)(q / (size_t)L) + theta[1]) / (double)L;
        for (size_t r = 0; r < N; r++) {
            const double ph = kx * lat->positions[3 * r] + ky * lat->positions[3 * r + 1];
            v[2 * (q * N + r)] = cos(ph) / sqrt((double)N);
            v[2 * (q * N + r) + 1] = sin(ph) / sqrt((double)N);
        }
    }
    return v;
}

/* the moments of nv vectors v on plugin e */
static double *moments(const mcf_plugin_info *e, const mcf_hamiltonian *h, const double *v,
                       size_t nv, size_t M, const double *scale)
{
    double *mu = calloc(nv * M, sizeof *mu), *mp = mu, ab[2];
    double *abp = ab;
    test_params *tp = test_params_make(e->params, "test", NULL);
    void *ws = test_params_workspace(e, tp, h);
    const mcf_vector_moments r = {.moments = M, .vectors = nv, .scale = scale, .v = &v,
                                  .mu = &mp, .moment_scale = &abp};
    if (ws) {
        CHECK(tev_v2(e)->vector_moments(tev_batch(), &ws, 1, &r) == MCF_OK, "%s: %s",
              e->name, mcf_last_error());
        tev_destroy(e, ws);
    }
    test_params_free(tp);
    return mu;
}

static void part_ab(void)
{
    const long L = 8;
    mcf_lattice *lat = square(L);
    mcf_hamiltonian *h = NULL;
    CHECK(mcf_hamiltonian_create(lat->sites, 1, 4, &h) == MCF_OK, "%s", mcf_last_error());
    mcf_hamiltonian_set_hopping(h, lat, 1.0);
    const double zero[2] = {0, 0}, scale[2] = {4.04, 0.0};
    const size_t N = lat->sites, M = 64;
    double *v = bloch(lat, L, zero);
    double *me = moments(ed_info, h, v, N, M, scale), *mk = moments(ev_info, h, v, N, M, scale);
    double de = 0.0, dk = 0.0;
    for (size_t q = 0; q < N; q++) {
        const double kx = 2 * pi * (double)(q % (size_t)L) / (double)L;
        const double ky = 2 * pi * (double)(q / (size_t)L) / (double)L;
        const double x = -2.0 * (cos(kx) + cos(ky)) / scale[0];
        double t0 = 1.0, t1 = x;
        for (size_t n = 0; n < M; n++) {
            const double tn = n == 0 ? 1.0 : t1;
            de = fmax(de, fabs(me[q * M + n] - tn));
            dk = fmax(dk, fabs(mk[q * M + n] - tn));
            if (n > 0) {
                const double t2 = 2.0 * x * t1 - t0;
                t0 = t1;
                t1 = t2;
            }
        }
    }
    printf("(a) clean 8x8, 64 Bloch states, M = %zu: moments against T_n(eps_k~): ed %.1e, %s "
           "%.1e\n", M, de, ev_info->name, dk);
    /* ed: its eigenvalues carry ~N eps ||H|| (Householder's backward error), and |T_n'| <= n^2
     * on [-1, 1]: M^2 N eps; the recursion: 1e-13 (~M eps) */
    const double ed_tol = (double)(M * M * N) * 2.220446049250313e-16;
    CHECK(de < ed_tol && dk < 1e-13, "(a) ed %.3e (bound %.1e), %s %.3e", de, ed_tol,
          ev_info->name, dk);
    free(me);
    free(mk);
    /* (b) A(k, E) and its occupied weight, M = 256 */
    const size_t M2 = 256;
    const double sigma = pi * scale[0] / (double)M2, T = 0.3;
    const size_t qs[6] = {0, 1, 9, 18, 27, 36};
    double peak_worst = 0.0, occ_worst = 0.0, bound = 0.0, cold_worst = 0.0;
    const size_t NE = 8001;
    double *E = malloc(NE * sizeof *E), *A = malloc(NE * sizeof *A);
    for (size_t i = 0; i < NE; i++)
        E[i] = -4.0 + 1e-3 * (double)i;
    for (int s = 0; s < 6; s++) {
        const size_t q = qs[s];
        double *mu = moments(ev_info, h, v + 2 * q * N, 1, M2, scale);
        const double kx = 2 * pi * (double)(q % (size_t)L) / (double)L;
        const double ky = 2 * pi * (double)(q / (size_t)L) / (double)L;
        const double ek = -2.0 * (cos(kx) + cos(ky));
        CHECK(mcf_spectral_function(M2, mu, scale[0], scale[1], NULL, NE, E, A) == MCF_OK,
              "(b) %s", mcf_last_error());
        size_t im = 0;
        for (size_t i = 1; i < NE; i++)
            if (A[i] > A[im])
                im = i;
        peak_worst = fmax(peak_worst, fabs(E[im] - ek));
        double occ = NAN, hot = NAN, cold = NAN;
        CHECK(mcf_spectral_occupation(M2, mu, scale[0], scale[1], NULL, T, 0.1, &occ) ==
                      MCF_OK &&
                  mcf_spectral_occupation(M2, mu, scale[0], scale[1], NULL, 0.0, ek + 8 * sigma,
                                          &cold) == MCF_OK &&
                  mcf_spectral_occupation(M2, mu, scale[0], scale[1], NULL, 0.0, ek - 8 * sigma,
                                          &hot) == MCF_OK,
              "(b) %s", mcf_last_error());
        const double f = 1.0 / (1.0 + exp((ek - 0.1) / T));
        occ_worst = fmax(occ_worst, fabs(occ - f));
        cold_worst = fmax(cold_worst, fmax(fabs(cold - 1.0), fabs(hot)));
        free(mu);
    }
    bound = sigma * sigma / (6.0 * sqrt(3.0) * T * T);
    printf("(b) A(k, E), M = %zu, 6 k: peaks within %.1e of eps_k (grid 1e-3); n(k) at T = %.1f "
           "within %.1e of f(eps_k) (bound sigma^2 max|f''| = %.1e); at T = 0, mu = eps_k +- 8 "
           "sigma: %.1e from 1 and 0\n", M2, peak_worst, T, occ_worst, bound, cold_worst);
    CHECK(peak_worst <= 1e-3 + 1e-12, "(b) peak %.3e from eps_k", peak_worst);
    CHECK(occ_worst < bound, "(b) n(k) %.3e from f(eps_k), bound %.3e", occ_worst, bound);
    CHECK(cold_worst < 1e-3, "(b) T = 0 occupations %.3e from 1 and 0", cold_worst);
    free(E);
    free(A);
    free(v);
    mcf_hamiltonian_destroy(h);
    mcf_lattice_destroy(lat);
}

static void part_c(void)
{
    const long L = 6;
    mcf_lattice *lat = square(L);
    const double theta[2] = {0.13 * 2 * pi, 0.27 * 2 * pi};
    mcf_hamiltonian *h = NULL;
    CHECK(mcf_hamiltonian_create(lat->sites, 1, 4, &h) == MCF_OK, "%s", mcf_last_error());
    CHECK(mcf_hamiltonian_set_hopping_twisted(h, lat, 1.0, theta) == MCF_OK, "%s",
          mcf_last_error());
    unsigned long long seed = 20261203;
    for (size_t i = 0; i < lat->sites; i++)
        mcf_hamiltonian_set_onsite(h, i, 3.0 * (test_xorshift_uniform(&seed) - 0.5));
    const size_t N = lat->sites, M = 48;
    double lo, hi;
    mcf_hamiltonian_bounds(h, &lo, &hi);
    const double scale[2] = {0.5 * (hi - lo) * 1.02, 0.5 * (hi + lo)};
    double *v = bloch(lat, L, theta), *u = calloc(2 * N * N, sizeof *u);
    for (size_t r = 0; r < N; r++)
        u[2 * (r * N + r)] = 1.0;
    double *me = moments(ed_info, h, v, N, M, scale), *mk = moments(ev_info, h, v, N, M, scale);
    double *mu = moments(ev_info, h, u, N, M, scale);
    double d = 0.0, dc = 0.0;
    for (size_t q = 0; q < N * M; q++)
        d = fmax(d, fabs(me[q] - mk[q]));
    double *sk = calloc(M, sizeof *sk), *su = calloc(M, sizeof *su);
    for (size_t q = 0; q < N; q++)
        for (size_t n = 0; n < M; n++) {
            sk[n] += mk[q * M + n] / (double)N;
            su[n] += mu[q * M + n] / (double)N;
        }
    for (size_t n = 0; n < M; n++)
        dc = fmax(dc, fabs(sk[n] - su[n]));
    const size_t NE = 401;
    double E[401], Ak[401], Au[401], amax = 0.0, da = 0.0;
    for (size_t i = 0; i < NE; i++)
        E[i] = lo + (hi - lo) * (double)i / (double)(NE - 1);
    mcf_spectral_function(M, sk, scale[0], scale[1], "jackson", NE, E, Ak);
    mcf_spectral_function(M, su, scale[0], scale[1], "jackson", NE, E, Au);
    for (size_t i = 0; i < NE; i++) {
        amax = fmax(amax, Au[i]);
        da = fmax(da, fabs(Ak[i] - Au[i]));
    }
    printf("(c) Anderson 6x6, W = 3, twisted: %s against ed on the 36 Bloch states %.1e; "
           "(1/N) sum_k mu_n(k) against the unit vectors' %.1e; the k-summed A(E) against the "
           "DOS %.1e of its maximum %.3f\n", ev_info->name, d, dc, da / amax, amax);
    const double ed_tol = (double)(M * M * N) * 2.220446049250313e-16; /* as in (a) */
    CHECK(d < ed_tol && dc < 1e-12 && da < 1e-10 * amax, "(c) %.3e (bound %.1e) %.3e %.3e", d,
          ed_tol, dc, da);
    free(me);
    free(mk);
    free(mu);
    free(sk);
    free(su);
    free(u);
    /* (d) refusals */
    test_params *tp = test_params_make(ev_info->params, "test", NULL);
    void *ws = test_params_workspace(ev_info, tp, h);
    double out[8], *op = out;
    const double bad[2] = {0.5, 0.0};
    const mcf_vector_moments cases[4] = {
        {.moments = 0, .vectors = 1, .v = (const double *const *)&v, .mu = &op},
        {.moments = 2, .vectors = 0, .v = (const double *const *)&v, .mu = &op},
        {.moments = 2, .vectors = 1, .scale = bad, .v = (const double *const *)&v, .mu = &op},
        {.moments = 2, .vectors = 1, .v = (const double *const *)&v, .mu = NULL}};
    for (int c = 0; ws && c < 4; c++)
        CHECK(tev_v2(ev_info)->vector_moments(tev_batch(), &ws, 1, &cases[c]) == MCF_EINVAL,
              "(d) case %d accepted", c);
    if (ws)
        tev_destroy(ev_info, ws);
    test_params_free(tp);
    double A1;
    const double E1 = 0.0, m1 = 1.0;
    CHECK(mcf_spectral_function(0, &m1, 1.0, 0.0, NULL, 1, &E1, &A1) == MCF_EINVAL &&
              mcf_spectral_function(1, &m1, 1.0, 0.0, "gauss", 1, &E1, &A1) == MCF_EINVAL &&
              mcf_spectral_occupation(1, &m1, 1.0, 0.0, NULL, -1.0, 0.0, &A1) == MCF_EINVAL,
          "(d) mcf_spectral_* accepted bad input");
    printf("(d) refused: no moments, no vectors, a scale missing the bounds, a NULL output; "
           "M = 0, kernel 'gauss', T < 0\n");
    free(v);
    mcf_hamiltonian_destroy(h);
    mcf_lattice_destroy(lat);
}

static void part_e(void)
{
    const long L = 10;
    mcf_lattice *lat = square(L);
    const double theta[2] = {0.31 * 2 * pi, 0.07 * 2 * pi};
    mcf_hamiltonian *h = NULL;
    CHECK(mcf_hamiltonian_create(lat->sites, 1, 4, &h) == MCF_OK &&
          mcf_hamiltonian_set_hopping_twisted(h, lat, 1.0, theta) == MCF_OK, "%s",
          mcf_last_error());
    unsigned long long seed = 977;
    for (size_t i = 0; h && i < lat->sites; i++)
        mcf_hamiltonian_set_onsite(h, i, 3.0 * (test_xorshift_uniform(&seed) - 0.5));
    const size_t N = lat->sites, Ms[4] = {1, 2, 7, 63};
    double *v = bloch(lat, L, theta);
    for (int c = 0; h && c < 4; c++) {
        const size_t M = Ms[c];
        double *me = moments(ed_info, h, v, N, M, NULL), *mk = moments(ev_info, h, v, N, M, NULL);
        double d = 0.0;
        for (size_t q = 0; q < N * M; q++)
            d = fmax(d, fabs(me[q] - mk[q]));
        const double tol = (double)(M * M * N) * 2.220446049250313e-16;
        CHECK(d <= fmax(tol, 1e-13), "(e) M = %zu: %.1e from ed (bound %.1e)", M, d, tol);
        printf("(e) Anderson 10x10, twisted, 100 Bloch states, M = %zu: %s within %.1e of ed "
               "(bound %.1e)\n", M, ev_info->name, d, fmax(tol, 1e-13));
        free(me);
        free(mk);
    }
    free(v);
    mcf_hamiltonian_destroy(h);
    mcf_lattice_destroy(lat);
}

int main(int argc, char **argv)
{
    const char *name = argc > 1 ? argv[1] : "kpm";
    mcf_plugin *pe = NULL, *pk = NULL;
    CHECK(mcfe_plugin_open("ed", MCF_PLUGIN_FERMION_EVALUATOR, &pe) == MCF_OK, "ed: %s",
          mcf_last_error());
    CHECK(mcfe_plugin_open(name, MCF_PLUGIN_FERMION_EVALUATOR, &pk) == MCF_OK, "%s: %s", name,
          mcf_last_error());
    if (!pe || !pk)
        return check_exit();
    char why[512] = "";
    if (pk->info->probe && !pk->info->probe(why, sizeof why)) { /* a GPU plugin, no GPU */
        printf("skipped: no device (%s)\n", why);
        return 77;
    }
    ed_info = pe->info;
    ev_info = pk->info;
    CHECK(mcf_fermion_provides(ed_info) & MCF_PROVIDES_VECTOR_MOMENTS, "ed: no vector_moments");
    CHECK(mcf_fermion_provides(ev_info) & MCF_PROVIDES_VECTOR_MOMENTS, "%s: no vector_moments",
          name);
    part_ab();
    part_c();
    part_e();
    tev_batch_release();
    mcfe_plugin_close(pk);
    mcfe_plugin_close(pe);
    return check_exit();
}
