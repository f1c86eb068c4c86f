/* test_change_zoo.c — the action change of every kind of finite-rank local change, on
 * every CPU fermion evaluator: kpm (GFMC on the contour) against ed (exact
 * diagonalization of H and H + Delta), both loaded with the core's plugin loader and used
 * only through their change_action op (mcf/fermion.h).
 *
 * Hamiltonians (W = emax - emin of the evaluator's scaling, the bandwidth):
 *   A  spinless periodic 4x4 square lattice, hoppings of modulus 1 and random phase,
 *      on-site energies in [-0.5, 0.5], Gershgorin bounds (dim 16);
 *   B  spinful 3^3 cubic double-exchange lattice with J_H = 2 (de_test_hamiltonian.h),
 *      bounds fixed to +-8 (dim 54);
 *   C  a random sparse Hermitian matrix, complex hoppings |t| <= 1, on-site in [-1, 1]
 *      (kt_random_h; dim 40).
 * Changes (random amplitudes, each built the way a model would):
 *   0 on-site, rank 1, traceful (the change that broke the real-axis GFMC);
 *   1 one bond, rank 2, traceless;
 *   2 a site with all its bonds and its on-site energy, rank 2, mixed;
 *   3 two distant sites' on-site energies, rank 2, traceful;
 *   4 a random Hermitian block on 3..8 random rows, rank 3..8 (mcf_change_from_block);
 *   5 a 2x2 block on the two orbitals of a site (spinful: the spin block), rank <= 2;
 *   6 eight dense vectors of 6 entries each and a random Hermitian C, rank 8, by hand.
 * Points: T = W x {1e-3, 1e-2, 0.1, 1, 10}; mu at the band centre, at the top eigenvalue
 * of H, and 0.3 W above the band.
 *
 * (a) accuracy: |dS_kpm - dS_ed| <= err + slack for every case, err kpm's reported bound.
 *     M is the smallest power of 2 with M gamma_p >= 30 (gamma_p = the Bernstein parameter
 *     of the Fermi pole nearest to the spectrum, kpm_core.h), between 32 and 16384.  The slack is the rounding neither
 *     method includes: ed's eigenvalues carry ~eps ||H|| each and dS sums dim levels
 *     divided by T, kpm's moments ~M eps |u|^2: slack = 1e-13 dim (||H|| + ||Delta||) / T +
 *     1e-12 |dS| (about 100 eps per level: the solvers' own error is a few eps ||H||).
 *     The bound must also be useful: where it is above 1e-6 at that M (mu far outside the
 *     band, where the N = M contour nodes rather than the moments limit it), M is doubled,
 *     as kpm's warning advises, until it is below (asserted, the accuracy at every M).
 * (b) convergence: at T = 0.1 W, mu at the centre, every shape and Hamiltonian at M/4, M/2,
 *     M: the actual error stays below err at each M, and err falls as the method says,
 *     err(M/2) / err(M) = e^{M gamma_p / 2} (the residue at the nearest pole dominates the
 *     bound, and the series there converges as e^{-M gamma_p}) within 10 %.
 * (c) the older op: delta_action with the plugin guide's rank-1 on-site mcf_local_change
 *     gives bitwise the dS of change_action on the same change (both go through the
 *     contour), and agrees with ed; a batch of 3 workspaces gives the bits of 3 single
 *     calls (kpm-cuda: the same to rounding, its summation order follows the batch).
 * (d) refusals: rank 9, a row out of range, T = 0, NaN mu: MCF_EINVAL for both; gfmc =
 *     real-axis with a rank-8 change: MCF_EINVAL naming gfmc = contour; a block of rank 10.
 * With an argument (kpm-cuda, label gpu) the same zoo runs on that evaluator, each dS also
 * held to kpm's within the rounding slack; without a device it prints "skipped: no
 * device" and exits 77.  A second argument KEY=VALUE sets one more [evaluator] key of it
 * (kpm-cuda gfmc_fft=false: the Green's functions at the contour's nodes by Horner's rule).
 * (e) too few moments for T (M = 16, 32 at T = 0.01 W and 0.001 W): the contour passes
 *     beyond the first Fermi poles and adds their residues, so every shape gives a result
 *     within its bound of ed's (no failure, a large bound). */
#include <complex.h>
#include <stdio.h>
#include <time.h>

#include "de_test_hamiltonian.h"
#include "internal.h"
#include "kpm_core.h"
#include "kpm_test_util.h"
#include "test_params.h"

/* kpm_info: the evaluator under test; cpu_info: kpm */
static const mcf_plugin_info *ed_info, *kpm_info, *cpu_info;

#define NSHAPES 7
static const char *shape_names[NSHAPES] = {
    "on-site (rank 1)", "bond (rank 2)", "site + bonds (rank 2)", "two sites (rank 2)",
    "block (rank 3-8)", "orbital block (rank <= 2)", "8 dense vectors (rank 8)"};
#define NT 5
static const double T_over_W[NT] = {1e-3, 1e-2, 0.1, 1.0, 10.0};

/* ---- Hamiltonians ---------------------------------------------------------------------- */

static mcf_hamiltonian *square_h(uint64_t seed)
{
    mcf_rng rng;
    mcf_rng_init(&rng, seed, 0);
    const size_t L = 4, n = L * L;
    mcf_hamiltonian *h = NULL;
    CHECK(mcf_hamiltonian_create(n, 1, 4, &h) == MCF_OK, "create: %s", mcf_last_error());
    for (size_t i = 0; i < n; i++) {
        const size_t x = i % L, y = i / L;
        const size_t nb[2] = {(x + 1) % L + L * y, x + L * ((y + 1) % L)};
        for (int k = 0; k < 2; k++) {
            const double p = 2.0 * kt_pi * mcf_rng_uniform(&rng);
            mcf_hamiltonian_set(h, i, nb[k], -cos(p), -sin(p));
        }
        mcf_hamiltonian_set_onsite(h, i, mcf_rng_uniform(&rng) - 0.5);
    }
    return h;
}

/* the extreme eigenvalues of h and ||h|| */
static void spectrum(const mcf_hamiltonian *h, double *lo, double *hi)
{
    const size_t n = h->dim;
    double *z = malloc(2 * n * n * sizeof *z);
    mcf_hamiltonian_dense(h, z);
    gsl_matrix_complex_view m = gsl_matrix_complex_view_array(z, n, n);
    gsl_vector *ev = gsl_vector_alloc(n);
    gsl_eigen_herm_workspace *w = gsl_eigen_herm_alloc(n);
    gsl_eigen_herm(&m.matrix, ev, w);
    *lo = gsl_vector_min(ev);
    *hi = gsl_vector_max(ev);
    gsl_eigen_herm_free(w);
    gsl_vector_free(ev);
    free(z);
}

/* ---- changes ------------------------------------------------------------------------- */

static double sym(mcf_rng *rng) { return 2.0 * mcf_rng_uniform(rng) - 1.0; }

/* the ELL neighbours of row r (distinct, != r) */
static int neighbours(const mcf_hamiltonian *h, size_t r, int64_t *nb)
{
    int n = 0;
    for (int s = 0; s < h->width; s++) {
        const int32_t c = h->col[(size_t)s * h->dim + r];
        if (c >= 0 && (size_t)c != r)
            nb[n++] = c;
    }
    return n;
}

/* a change of the given shape with amplitudes ~ scale */
static void make_change(int shape, const mcf_hamiltonian *h, mcf_rng *rng, double scale,
                        mcf_change *c)
{
    const size_t dim = h->dim;
    int64_t rows[MCF_CHANGE_ENTRIES];
    double re[MCF_CHANGE_ENTRIES * MCF_CHANGE_ENTRIES], im[MCF_CHANGE_ENTRIES * MCF_CHANGE_ENTRIES];
    int n = 0, rc = MCF_OK;
    memset(re, 0, sizeof re);
    memset(im, 0, sizeof im);
    const size_t o = (size_t)mcf_rng_below(rng, dim);
    switch (shape) {
    case 0:
        mcf_change_onsite(c, o, scale * (0.2 + 0.8 * mcf_rng_uniform(rng)) *
                                    (mcf_rng_uniform(rng) < 0.5 ? -1.0 : 1.0));
        return;
    case 1: {
        int64_t nb[64];
        const int k = neighbours(h, o, nb);
        rows[0] = (int64_t)o;
        rows[1] = nb[mcf_rng_below(rng, (uint64_t)k)];
        n = 2;
        re[1] = re[2] = 0.5 * scale * sym(rng);
        im[1] = 0.5 * scale * sym(rng);
        im[2] = -im[1];
        break;
    }
    case 2: {
        int64_t nb[64];
        const int k = neighbours(h, o, nb);
        rows[0] = (int64_t)o;
        n = 1 + k;
        for (int j = 0; j < k; j++) {
            rows[1 + j] = nb[j];
            re[1 + j] = re[(1 + j) * n] = 0.3 * scale * sym(rng);
            im[1 + j] = 0.3 * scale * sym(rng);
            im[(1 + j) * n] = -im[1 + j];
        }
        re[0] = 0.5 * scale * sym(rng);
        break;
    }
    case 3:
        rows[0] = (int64_t)o;
        rows[1] = (int64_t)((o + dim / 2) % dim);
        n = 2;
        re[0] = 0.5 * scale * sym(rng);
        re[3] = 0.5 * scale * sym(rng);
        break;
    case 4: {
        n = 3 + (int)mcf_rng_below(rng, 6);
        for (int i = 0; i < n; i++) {
            int64_t r;
            int dup;
            do {
                r = (int64_t)mcf_rng_below(rng, dim);
                dup = 0;
                for (int j = 0; j < i; j++)
                    dup |= rows[j] == r;
            } while (dup);
            rows[i] = r;
        }
        const double s = 0.5 * scale / n;
        for (int i = 0; i < n; i++) {
            re[i * n + i] = s * sym(rng);
            for (int j = 0; j < i; j++) {
                re[i * n + j] = re[j * n + i] = s * sym(rng);
                im[i * n + j] = s * sym(rng);
                im[j * n + i] = -im[i * n + j];
            }
        }
        break;
    }
    case 5: {
        const size_t r0 = h->orbitals == 2 ? 2 * (o / 2) : (o + 1 < dim ? o : o - 1);
        rows[0] = (int64_t)r0;
        rows[1] = (int64_t)r0 + 1;
        n = 2;
        re[0] = 0.4 * scale * sym(rng);
        re[3] = 0.4 * scale * sym(rng);
        re[1] = re[2] = 0.4 * scale * sym(rng);
        im[1] = 0.4 * scale * sym(rng);
        im[2] = -im[1];
        break;
    }
    case 6: {
        memset(c, 0, sizeof *c);
        c->rank = MCF_CHANGE_RANK;
        for (int a = 0; a < c->rank; a++) {
            c->entries[a] = 6;
            for (int e = 0; e < 6; e++) {
                c->row[a][e] = (int64_t)((o + (size_t)(5 * a + 7 * e)) % dim);
                c->re[a][e] = sym(rng) / sqrt(6.0);
                c->im[a][e] = sym(rng) / sqrt(6.0);
            }
            for (int e = 1; e < 6; e++) /* distinct rows within a vector */
                for (int f = 0; f < e; f++)
                    if (c->row[a][e] == c->row[a][f])
                        c->row[a][e] = (c->row[a][e] + 1) % (int64_t)dim;
        }
        const double s = 0.2 * scale / MCF_CHANGE_RANK;
        for (int a = 0; a < c->rank; a++) {
            c->c_re[a][a] = s * sym(rng);
            for (int b = 0; b < a; b++) {
                c->c_re[a][b] = c->c_re[b][a] = s * sym(rng);
                c->c_im[a][b] = s * sym(rng);
                c->c_im[b][a] = -c->c_im[a][b];
            }
        }
        rc = mcf_change_check(c, dim);
        CHECK(rc == MCF_OK, "shape 6: %s", mcf_last_error());
        return;
    }
    }
    rc = mcf_change_from_block(c, rows, n, re, im);
    CHECK(rc == MCF_OK, "%s: from_block: %s", shape_names[shape], mcf_last_error());
}

/* ||Delta||_F = sqrt(tr (C S)^2), S the Gram matrix of the u_a */
static double change_norm(const mcf_change *c)
{
    double complex S[MCF_CHANGE_RANK][MCF_CHANGE_RANK], CS[MCF_CHANGE_RANK][MCF_CHANGE_RANK];
    const int k = c->rank;
    for (int a = 0; a < k; a++)
        for (int b = 0; b < k; b++) {
            double complex s = 0.0;
            for (int e = 0; e < c->entries[a]; e++)
                for (int f = 0; f < c->entries[b]; f++)
                    if (c->row[a][e] == c->row[b][f])
                        s += (c->re[a][e] - I * c->im[a][e]) * (c->re[b][f] + I * c->im[b][f]);
            S[a][b] = s;
        }
    for (int a = 0; a < k; a++)
        for (int b = 0; b < k; b++) {
            double complex s = 0.0;
            for (int r = 0; r < k; r++)
                s += (c->c_re[a][r] + I * c->c_im[a][r]) * S[r][b];
            CS[a][b] = s;
        }
    double complex t = 0.0;
    for (int a = 0; a < k; a++)
        for (int b = 0; b < k; b++)
            t += CS[a][b] * CS[b][a];
    return sqrt(fabs(creal(t)));
}

/* ---- evaluators ---------------------------------------------------------------------- */

static void *make_ws(const mcf_plugin_info *info, const mcf_hamiltonian *h, test_params *tp)
{
    void *ws = NULL;
    CHECK(tp->ok, "%s params: %s", info->name, mcf_last_error());
    const int rc = tev_create(info, &tp->p, h, &ws);
    CHECK(rc == MCF_OK && ws, "%s create: %s", info->name, mcf_last_error());
    return ws;
}

/* one more [evaluator] key of the evaluator under test, from the command line
 * (`kpm-cuda gfmc_fft=false`: the contour's Green's functions by Horner's rule); NULL = none */
static char extra_key[64];
static const char *extra_value;

static test_params *kpm_params(size_t M, const char *gfmc)
{
    char m[32];
    snprintf(m, sizeof m, "%zu", M);
    return test_params_make(kpm_info->params, "test_change_zoo.ini", "moments", m, "gfmc",
                            gfmc, extra_value ? extra_key : NULL, extra_value, NULL);
}

/* gamma_p, the Bernstein parameter of the Fermi pole nearest to the spectrum, for the
 * scaling kpm uses with this change (kpm_core.h): the bound falls as e^{-M gamma_p} */
static double pole_gamma(const mcf_hamiltonian *h, const mcf_change *c, double T, double mu)
{
    double a, b, a2, b2;
    mcf_hamiltonian_scaling(h, 0.01, &a, &b);
    kpm_contour_scaling(h, a, b, 0.01, c, &a2, &b2);
    return kpm_contour_pole_gamma(a2, b2, T, mu);
}

static size_t moments_for(const mcf_hamiltonian *h, const mcf_change *c, double T, double mu)
{
    size_t M = 32;
    while (M < 16384 && (double)M * pole_gamma(h, c, T, mu) < 30.0)
        M *= 2;
    return M;
}

static double ed_dS(const mcf_hamiltonian *h, const mcf_change *c, double T, double mu)
{
    test_params *tp = test_params_make(ed_info->params, "test_change_zoo.ini", NULL);
    void *w = make_ws(ed_info, h, tp);
    double dS = NAN, err = NAN;
    int rc = tev_change_action(ed_info, &w, 1, &c, &T, &mu, &dS, &err);
    CHECK(rc == MCF_OK && err == 0.0, "ed change_action: %s", mcf_last_error());
    tev_destroy(ed_info, w);
    test_params_free(tp);
    return dS;
}

static int eval_dS(const mcf_plugin_info *info, const mcf_hamiltonian *h, const mcf_change *c,
                   size_t M, double T, double mu, double *dS, double *err)
{
    test_params *tp = kpm_params(M, "contour");
    void *w = make_ws(info, h, tp);
    int rc = tev_change_action(info, &w, 1, &c, &T, &mu, dS, err);
    tev_destroy(info, w);
    test_params_free(tp);
    return rc;
}

static double worst_gpu = 0.0; /* kpm-cuda against kpm: largest |difference| / slack */

/* the evaluator under test; kpm-cuda is also held to kpm within the rounding slack */
static int kpm_dS(const mcf_hamiltonian *h, const mcf_change *c, size_t M, double T,
                  double mu, double *dS, double *err, double slack)
{
    int rc = eval_dS(kpm_info, h, c, M, T, mu, dS, err);
    if (rc || kpm_info == cpu_info)
        return rc;
    double dc = NAN, ec = NAN;
    rc = eval_dS(cpu_info, h, c, M, T, mu, &dc, &ec);
    CHECK(rc == MCF_OK && fabs(*dS - dc) <= slack,
          "%s vs kpm at M = %zu, T = %g, mu = %g, rank %d: %.17g vs %.17g (slack %.3g)",
          kpm_info->name, M, T, mu, c->rank, *dS, dc, slack);
    worst_gpu = fmax(worst_gpu, fabs(*dS - dc) / slack);
    return MCF_OK;
}

/* ---- (a), (b) ---------------------------------------------------------------------------- */

static double worst_a = 0.0, worst_err = 0.0, worst_rate = 0.0;
static int cases = 0;

static void zoo(const char *name, const mcf_hamiltonian *h, uint64_t seed)
{
    mcf_rng rng;
    mcf_rng_init(&rng, seed, 1);
    double emin, emax, a, b, lo, hi;
    mcf_hamiltonian_bounds(h, &emin, &emax);
    mcf_hamiltonian_scaling(h, 0.01, &a, &b);
    spectrum(h, &lo, &hi);
    const double W = emax - emin, norm_h = fmax(fabs(lo), fabs(hi));
    const double mus[3] = {b, hi, emax + 0.3 * W};
    printf("%s: dim %zu, bounds [%.3g, %.3g], spectrum [%.4g, %.4g]\n", name, h->dim, emin,
           emax, lo, hi);
    for (int s = 0; s < NSHAPES; s++) {
        mcf_change c;
        make_change(s, h, &rng, 0.25 * W, &c);
        const double nd = change_norm(&c);
        double line_worst = 0.0, line_err = 0.0;
        size_t line_M = 0;
        for (int t = 0; t < NT; t++)
            for (int u = 0; u < 3; u++) {
                const double T = T_over_W[t] * W, mu = mus[u];
                const double de = ed_dS(h, &c, T, mu);
                const double slack = 1e-13 * (double)h->dim * (norm_h + nd) / T +
                                     1e-12 * fabs(de);
                /* from M gamma_p >= 30 on, doubling M (what kpm's warning advises) until the
                 * bound is below 1e-6: the bound must hold at every M tried */
                size_t M = moments_for(h, &c, T, mu);
                double dk = NAN, ek = NAN, diff = NAN;
                for (;; M *= 2) {
                    int rc = kpm_dS(h, &c, M, T, mu, &dk, &ek, slack);
                    CHECK(rc == MCF_OK, "%s, %s, T = %g, mu = %g, M = %zu: %s", name,
                          shape_names[s], T, mu, M, mcf_last_error());
                    diff = fabs(dk - de);
                    CHECK(diff <= ek + slack,
                          "%s, %s (rank %d), T = %g, mu = %g, M = %zu: kpm %.15g, ed %.15g, "
                          "|diff| %.3g > err %.3g + slack %.3g", name, shape_names[s], c.rank, T,
                          mu, M, dk, de, diff, ek, slack);
                    if (rc || !(ek > 1e-6) || M >= 16384)
                        break;
                }
                CHECK(ek <= 1e-6, "%s, %s, T = %g, mu = %g, M = %zu: bound %.3g is not useful",
                      name, shape_names[s], T, mu, M, ek);
                line_worst = fmax(line_worst, diff / (ek + slack));
                line_err = fmax(line_err, ek);
                line_M = M > line_M ? M : line_M;
                cases++;
            }
        printf("  %-26s rank %d  ||Delta|| %.3g  tr %+.3g: largest |diff|/(err+slack) %.2e, "
               "largest err %.1e, M up to %zu\n", shape_names[s], c.rank, nd,
               mcf_change_trace(&c), line_worst, line_err, line_M);
        worst_a = fmax(worst_a, line_worst);
        worst_err = fmax(worst_err, line_err);

        /* (b): M/4, M/2, M at T = 0.1 W, mu = b */
        const double T = 0.1 * W, mu = b;
        const size_t M = moments_for(h, &c, T, mu);
        const double de = ed_dS(h, &c, T, mu);
        double e[3], d[3];
        for (int q = 0; q < 3; q++) {
            const size_t Mq = M >> (2 - q);
            const double slack = 1e-13 * (double)h->dim * (norm_h + nd) / T + 1e-12 * fabs(de);
            const int rc = kpm_dS(h, &c, Mq, T, mu, &d[q], &e[q], slack);
            CHECK(rc == MCF_OK, "(b) %s, %s, M = %zu: %s", name, shape_names[s], Mq,
                  mcf_last_error());
            CHECK(fabs(d[q] - de) <= e[q] + slack, "(b) %s, %s, M = %zu: |diff| %.3g > err %.3g",
                  name, shape_names[s], Mq, fabs(d[q] - de), e[q]);
        }
        /* the bound's rate: e^{-M gamma_p}, the residue at the nearest pole */
        const double g = pole_gamma(h, &c, T, mu);
        const double want = exp(0.5 * (double)M * g);
        const double got = e[1] / e[2];
        if (e[2] > 1e-14) {
            CHECK(fabs(got / want - 1.0) < 0.1, "(b) %s, %s: err(M/2)/err(M) = %.4g, the method "
                  "says e^(M gamma_p/2) = %.4g", name, shape_names[s], got, want);
            worst_rate = fmax(worst_rate, fabs(got / want - 1.0));
        }
        printf("    M = %zu/%zu/%zu at T = 0.1 W: |diff| %.1e %.1e %.1e, err %.1e %.1e %.1e\n",
               M / 4, M / 2, M, fabs(d[0] - de), fabs(d[1] - de), fabs(d[2] - de), e[0], e[1],
               e[2]);
    }
}

/* ---- (e) too few moments for T ------------------------------------------------------- */

/* M = 16 and 32 at T = 0.01 W and 0.001 W, mu at the centre: the contour moves out past
 * the first Fermi poles (kpm_core.h), so every shape still gives a result, within its
 * (now large) bound of ed's */
static void few_moments(const char *name, const mcf_hamiltonian *h, uint64_t seed)
{
    mcf_rng rng;
    mcf_rng_init(&rng, seed, 2);
    double emin, emax, a, b;
    mcf_hamiltonian_bounds(h, &emin, &emax);
    mcf_hamiltonian_scaling(h, 0.01, &a, &b);
    const double W = emax - emin;
    double worst = 0.0, emin_seen = INFINITY, emax_seen = 0.0;
    for (int s = 0; s < NSHAPES; s++) {
        mcf_change c;
        make_change(s, h, &rng, 0.25 * W, &c);
        for (int t = 0; t < 2; t++)
            for (size_t M = 16; M <= 32; M *= 2) {
                const double T = (t ? 1e-3 : 1e-2) * W, mu = b;
                double dk = NAN, ek = NAN;
                const double de = ed_dS(h, &c, T, mu);
                const int rc = kpm_dS(h, &c, M, T, mu, &dk, &ek, 1e-9 * (1.0 + fabs(de)));
                CHECK(rc == MCF_OK, "(e) %s, %s, T = %g, M = %zu: %s", name, shape_names[s], T,
                      M, mcf_last_error());
                CHECK(fabs(dk - de) <= ek, "(e) %s, %s, T = %g, M = %zu: |diff| %.3g > err %.3g",
                      name, shape_names[s], T, M, fabs(dk - de), ek);
                worst = fmax(worst, fabs(dk - de) / ek);
                emin_seen = fmin(emin_seen, ek);
                emax_seen = fmax(emax_seen, ek);
            }
    }
    printf("(e) %s, M = 16, 32 at T = 0.01 W, 0.001 W: largest |diff|/err %.2e, err from %.1e "
           "to %.1e\n", name, worst, emin_seen, emax_seen);
}

/* ---- (c) the older op, batches ------------------------------------------------------- */

static void older_op(void)
{
    de_lattice d = de_random_lattice(3, 0.0, 5);
    mcf_hamiltonian *h = de_build(&d);
    const double T = 0.3, mu = 0.5;
    /* the plugin guide's example: u_0 = |o>, C = [[delta]] */
    mcf_local_change lc;
    memset(&lc, 0, sizeof lc);
    lc.rank = 1;
    lc.entries[0] = 1;
    lc.row[0][0] = 13;
    lc.re[0][0] = 1.0;
    lc.c_re[0][0] = 2.5;
    mcf_change c;
    CHECK(mcf_change_from_local(&lc, &c) == MCF_OK, "from_local: %s", mcf_last_error());
    const size_t M = moments_for(h, &c, T, mu);
    test_params *tp = kpm_params(M, "contour");
    void *w[3];
    for (int k = 0; k < 3; k++)
        w[k] = make_ws(kpm_info, h, tp);
    double d_old = NAN, d_new = NAN, err = NAN;
    const mcf_local_change *lp = &lc;
    const mcf_change *cp = &c;
    int rc = tev_delta_action(kpm_info, w, 1, &lp, &T, &mu, &d_old);
    CHECK(rc == MCF_OK, "delta_action: %s", mcf_last_error());
    rc = tev_change_action(kpm_info, w, 1, &cp, &T, &mu, &d_new, &err);
    CHECK(rc == MCF_OK, "change_action: %s", mcf_last_error());
    CHECK(d_old == d_new, "delta_action %.17g != change_action %.17g", d_old, d_new);
    const double de = ed_dS(h, &c, T, mu);
    CHECK(fabs(d_new - de) <= err + 1e-9, "on-site 2.5: kpm %.15g ed %.15g err %.3g", d_new, de,
          err);
    printf("(c) the plugin guide's on-site change (2.5 at T = 0.3): kpm %.12f, ed %.12f, err "
           "%.1e\n", d_new, de, err);
    /* a batch of 3 = 3 single calls, bitwise */
    mcf_rng rng;
    mcf_rng_init(&rng, 77, 0);
    mcf_change cs[3];
    const mcf_change *cps[3];
    double Ts[3] = {0.2, 0.5, 1.0}, mus[3] = {-1.0, 0.0, 2.0}, db[3], eb[3];
    for (int k = 0; k < 3; k++) {
        make_change(k + 2, h, &rng, 3.0, &cs[k]);
        cps[k] = &cs[k];
    }
    rc = tev_change_action(kpm_info, w, 3, cps, Ts, mus, db, eb);
    CHECK(rc == MCF_OK, "batch: %s", mcf_last_error());
    /* bitwise on the CPU; kpm-cuda's cluster size follows the batch (docs/architecture.md),
     * and with it the order of the moments' sums: there, equal to the moments' rounding
     * (~1e-15 relative, times the ~M steps and 1/T of dS: 1e-11 (1 + |dS|) is generous) */
    const int gpu = kpm_info != cpu_info;
    for (int k = 0; k < 3; k++) {
        double d1 = NAN, e1 = NAN;
        rc = tev_change_action(kpm_info, &w[k], 1, &cps[k], &Ts[k], &mus[k], &d1, &e1);
        CHECK(rc == MCF_OK && (gpu ? fabs(d1 - db[k]) <= 1e-11 * (1.0 + fabs(db[k]))
                                   : d1 == db[k] && e1 == eb[k]),
              "batch member %d: %.17g/%.3g alone, %.17g/%.3g in the batch", k, d1, e1, db[k],
              eb[k]);
    }
    for (int k = 0; k < 3; k++)
        tev_destroy(kpm_info, w[k]);
    test_params_free(tp);
    mcf_hamiltonian_destroy(h);
    free(d.s);
}

/* ---- (d) refusals ------------------------------------------------------------------------ */

static void refusals(void)
{
    mcf_hamiltonian *h = square_h(9);
    test_params *tk = kpm_params(64, "contour"), *tr = kpm_params(64, "real-axis");
    test_params *te = test_params_make(ed_info->params, "test_change_zoo.ini", NULL);
    void *wk = make_ws(kpm_info, h, tk), *wr = make_ws(kpm_info, h, tr),
         *we = make_ws(ed_info, h, te);
    mcf_change c;
    mcf_change_onsite(&c, 3, 1.0);
    const mcf_change *cp = &c;
    double T = 0.5, mu = 0.0, dS, err;
    void *ws[2] = {wk, we};
    const mcf_plugin_info *evs[2] = {kpm_info, ed_info};
    for (int k = 0; k < 2; k++) {
        c.rank = MCF_CHANGE_RANK + 1;
        CHECK(tev_change_action(evs[k], &ws[k], 1, &cp, &T, &mu, &dS, &err) == MCF_EINVAL,
              "rank 9 accepted");
        mcf_change_onsite(&c, 99, 1.0);
        CHECK(tev_change_action(evs[k], &ws[k], 1, &cp, &T, &mu, &dS, &err) == MCF_EINVAL,
              "row 99 of 16 accepted");
        mcf_change_onsite(&c, 3, 1.0);
        double T0 = 0.0, mun = NAN;
        CHECK(tev_change_action(evs[k], &ws[k], 1, &cp, &T0, &mu, &dS, &err) == MCF_EINVAL,
              "T = 0 accepted");
        CHECK(tev_change_action(evs[k], &ws[k], 1, &cp, &T, &mun, &dS, &err) == MCF_EINVAL,
              "mu = NaN accepted");
    }
    /* real-axis takes rank <= 2 only */
    mcf_rng rng;
    mcf_rng_init(&rng, 3, 0);
    mcf_change big;
    make_change(6, h, &rng, 2.0, &big);
    const mcf_change *bp = &big;
    const int rc = tev_change_action(kpm_info, &wr, 1, &bp, &T, &mu, &dS, &err);
    CHECK(rc == MCF_EINVAL && strstr(mcf_last_error(), "gfmc = contour"),
          "real-axis with rank 8: rc %d, %s", rc, mcf_last_error());
    /* ... and refuses a traceful change that moves a level out of H's bounds, advising
       the contour: the energy grid and lambda cannot help (issue 42) */
    mcf_change_onsite(&c, 3, 6.0);
    const int rt = tev_change_action(kpm_info, &wr, 1, &cp, &T, &mu, &dS, &err);
    CHECK(rt == MCF_EINVAL && strstr(mcf_last_error(), "gfmc = contour") &&
              !strstr(mcf_last_error(), "raise energy_points"),
          "real-axis with an on-site shift of 6: rc %d, %s", rt, mcf_last_error());
    /* from_block refuses a block of rank above 8 */
    int64_t rows[10];
    double re[100] = {0};
    for (int i = 0; i < 10; i++) {
        rows[i] = i;
        re[i * 10 + i] = 1.0 + i;
    }
    CHECK(mcf_change_from_block(&big, rows, 10, re, NULL) == MCF_EINVAL &&
              strstr(mcf_last_error(), "rank 10"),
          "a rank-10 block accepted: %s", mcf_last_error());
    tev_destroy(kpm_info, wk);
    tev_destroy(kpm_info, wr);
    tev_destroy(ed_info, we);
    test_params_free(tk);
    test_params_free(tr);
    test_params_free(te);
    mcf_hamiltonian_destroy(h);
}

static int has_change_action(const mcf_plugin_info *e)
{
    return (mcf_fermion_provides(e) & MCF_PROVIDES_CHANGE_ACTION) != 0;
}

int main(int argc, char **argv)
{
    const clock_t t0 = clock();
    const char *name = argc > 1 ? argv[1] : "kpm"; /* or kpm-cuda (label gpu) */
    if (argc > 2) { /* KEY=VALUE */
        const char *eq = strchr(argv[2], '=');
        CHECK(eq && (size_t)(eq - argv[2]) < sizeof extra_key, "usage: %s [EVALUATOR [KEY=VALUE]]",
              argv[0]);
        if (!eq || (size_t)(eq - argv[2]) >= sizeof extra_key)
            return check_exit();
        memcpy(extra_key, argv[2], (size_t)(eq - argv[2]));
        extra_value = eq + 1;
    }
    mcf_plugin *pe = NULL, *pk = NULL, *pt = NULL;
    int rc = mcfe_plugin_open("ed", MCF_PLUGIN_FERMION_EVALUATOR, &pe);
    if (!rc)
        rc = mcfe_plugin_open("kpm", MCF_PLUGIN_FERMION_EVALUATOR, &pk);
    CHECK(rc == MCF_OK, "loading ed and kpm: %s", mcf_last_error());
    if (rc)
        return check_exit();
    ed_info = pe->info;
    cpu_info = kpm_info = pk->info;
    if (strcmp(name, "kpm")) {
        rc = mcfe_plugin_open(name, MCF_PLUGIN_FERMION_EVALUATOR, &pt);
        CHECK(rc == MCF_OK, "loading %s: %s", name, mcf_last_error());
        if (rc)
            return check_exit();
        char why[512] = "";
        if (pt->info->struct_size >= offsetof(mcf_plugin_info, probe) + sizeof pt->info->probe &&
            pt->info->probe && !pt->info->probe(why, sizeof why)) {
            printf("skipped: no device (%s)\n", why);
            return 77;
        }
        kpm_info = pt->info;
    }
    if (extra_value) { /* a key the evaluator does not declare would be ignored silently */
        size_t j = 0;
        while (kpm_info->params[j].name && strcmp(kpm_info->params[j].name, extra_key))
            j++;
        CHECK(kpm_info->params[j].name != NULL, "%s declares no [evaluator] %s", kpm_info->name,
              extra_key);
        if (!kpm_info->params[j].name)
            return check_exit();
    }
    printf("evaluator under test: %s%s%s\n", kpm_info->name, extra_value ? " with " : "",
           extra_value ? argv[2] : "");
    CHECK(has_change_action(ed_info) && has_change_action(kpm_info),
          "an evaluator lacks change_action");
    if (!has_change_action(ed_info) || !has_change_action(kpm_info))
        return check_exit();

    mcf_hamiltonian *ha = square_h(1);
    zoo("A: square 4x4, spinless", ha, 11);
    few_moments("A", ha, 21);
    mcf_hamiltonian_destroy(ha);
    de_lattice d = de_random_lattice(3, 2.0, 2);
    mcf_hamiltonian *hb = de_build(&d);
    zoo("B: cubic 3^3, spinful, J_H = 2", hb, 12);
    few_moments("B", hb, 22);
    mcf_hamiltonian_destroy(hb);
    free(d.s);
    mcf_rng rng;
    mcf_rng_init(&rng, 3, 0);
    mcf_hamiltonian *hc = kt_random_h(&rng, 40, 6, 80, 1.0, 1.0);
    zoo("C: random sparse, dim 40", hc, 13);
    few_moments("C", hc, 23);
    mcf_hamiltonian_destroy(hc);
    printf("(a) %d cases: largest |diff| / (err + slack) = %.2e, largest err %.1e\n", cases,
           worst_a, worst_err);
    printf("(b) err(M/2)/err(M) within %.1f%% of e^(M gamma_p/2)\n", 100.0 * worst_rate);
    if (kpm_info != cpu_info)
        printf("%s against kpm: largest |difference| / rounding slack %.2e\n", kpm_info->name,
               worst_gpu);
    older_op();
    refusals();
    tev_batch_release(); /* before the plugins go: its keep slots' release is their code */
    if (pt)
        mcfe_plugin_close(pt);
    mcfe_plugin_close(pk);
    mcfe_plugin_close(pe);
    printf("cpu time %.2f s\n", (double)(clock() - t0) / CLOCKS_PER_SEC);
    return check_exit();
}
