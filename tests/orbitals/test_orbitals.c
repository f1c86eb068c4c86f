/* test_orbitals.c — the orbital evaluators "planewave" (plugins/planewave) and "blip"
 * (plugins/blip), loaded with the core's plugin loader and used only through their ops, of
 * either ABI (tests/orbital_test.h: ABI 1's values, vgl and orbitals, ABI 2's evaluate):
 *
 *   (a) planewave against an independent evaluation written here (complex exponentials,
 *       term by term): values and analytic gradients/Laplacians to rounding bounds, and
 *       its gradients/Laplacians against central finite differences of that reference to
 *       the truncation + rounding bound of the difference formula;
 *   (b) the closed-shell homogeneous electron gas, N = 14 and 38 (7 and 19 orbitals per
 *       spin: k = 0, then the cos/sin pairs of the shells |n|^2 = 1, 2): blip vs planewave
 *       at random points for grids 16 ... 64; every error below the alias bound derived in
 *       blip.c; log-log slopes against h of 4 (values), 3 (gradients), 2 (Laplacians),
 *       +-0.5; and the projection of a blip plane wave on its own plane wave is exactly 1
 *       (the continuous-transform choice; the interpolating one is off by theta^4/720);
 *   (c) a constant orbital is reproduced exactly (partition of unity; zero gradient and
 *       Laplacian) to rounding, and both evaluators are periodic, f(r + L e_d) = f(r) to
 *       derived rounding bounds (values about 4e-14; measured about 2e-15);
 *   (d) refusals: a grid too coarse (the message names the minimum), NULL and invalid
 *       orbital descriptions, grid_factor < 1, non-finite positions, NULL arrays;
 *   (e) a batch of two workspaces equals two single calls bit for bit (values and vgl). */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "internal.h"
#include "mcf/mcf.h"
#include "orbital_test.h"
#include "test_params.h"

static const double two_pi = 6.28318530717958647692;
static const double eps = DBL_EPSILON;

typedef struct evaluator {
    mcf_plugin *plugin;
    const mcf_plugin_info *info; /* its table, of either ABI: called through orbital_test.h */
} evaluator;

static evaluator pw_ev, blip_ev;

static int contains(const char *s, const char *part) { return strstr(s, part) != NULL; }

/* ---- parameters from the declared defaults ---------------------------------------- */

/* Parameters of ev's plugin: the declared defaults, with overrides "key", "text", ... NULL. */
#define make_params(ev, ...) \
    test_params_make((ev)->info->params, "test_orbitals.ini", __VA_ARGS__)

/* ---- orbital descriptions ----------------------------------------------------------- */

typedef struct orbitals {
    mcf_pw_orbitals o;
    int32_t *g;
    double *a, *b;
} orbitals;

static orbitals *orbitals_alloc(size_t L, size_t ng, const double cell[3])
{
    orbitals *s = calloc(1, sizeof *s);
    s->g = calloc(3 * ng, sizeof *s->g);
    s->a = calloc(L * ng, sizeof *s->a);
    s->b = calloc(L * ng, sizeof *s->b);
    s->o.cell[0] = cell[0];
    s->o.cell[1] = cell[1];
    s->o.cell[2] = cell[2];
    s->o.n_orbitals = L;
    s->o.n_g = ng;
    s->o.g = s->g;
    s->o.cos_coef = s->a;
    s->o.sin_coef = s->b;
    return s;
}

static void orbitals_free(orbitals *s)
{
    if (!s)
        return;
    free(s->g);
    free(s->a);
    free(s->b);
    free(s);
}

/* The closed-shell HEG orbitals of N electrons (unpolarized, N/2 per spin) in a cubic cell
 * of side `side`: k = 0, then for each shell |n|^2 = 1, 2, ... the pairs +-n, one G per pair
 * (the first nonzero component positive), orbitals cos(G.r) and sin(G.r). */
static orbitals *heg_orbitals(int N, double side)
{
    const int per_spin = N / 2;
    int32_t reps[64][3];
    int nrep = 0, norb = 1;
    reps[nrep][0] = reps[nrep][1] = reps[nrep][2] = 0;
    nrep++;
    for (int shell = 1; norb < per_spin && shell < 10; shell++) {
        int added = 0;
        for (int x = -3; x <= 3; x++)
            for (int y = -3; y <= 3; y++)
                for (int z = -3; z <= 3; z++) {
                    if (x * x + y * y + z * z != shell)
                        continue;
                    const int first = x ? x : y ? y : z;
                    if (first < 0)
                        continue;
                    reps[nrep][0] = x;
                    reps[nrep][1] = y;
                    reps[nrep][2] = z;
                    nrep++;
                    added += 2;
                }
        norb += added;
    }
    CHECK(norb == per_spin, "N = %d is not a closed shell (%d orbitals for %d)", N, norb,
          per_spin);
    const double cell[3] = {side, side, side};
    orbitals *s = orbitals_alloc((size_t)norb, (size_t)nrep, cell);
    for (int g = 0; g < nrep; g++)
        for (int d = 0; d < 3; d++)
            s->g[3 * g + d] = reps[g][d];
    s->a[0] = 1.0; /* k = 0 */
    for (int g = 1; g < nrep; g++) {
        s->a[(size_t)(2 * g - 1) * (size_t)nrep + (size_t)g] = 1.0; /* cos */
        s->b[(size_t)(2 * g) * (size_t)nrep + (size_t)g] = 1.0;     /* sin */
    }
    return s;
}

/* random orbitals: ng distinct G with |n_d| <= nmax, coefficients uniform in [-1, 1] */
static orbitals *random_orbitals(mcf_rng *rng, size_t L, size_t ng, int nmax,
                                 const double cell[3])
{
    orbitals *s = orbitals_alloc(L, ng, cell);
    for (size_t g = 0; g < ng;) {
        int32_t n[3];
        for (int d = 0; d < 3; d++)
            n[d] = (int32_t)mcf_rng_below(rng, (uint64_t)(2 * nmax + 1)) - nmax;
        int dup = 0;
        for (size_t h = 0; h < g; h++)
            dup |= s->g[3 * h] == n[0] && s->g[3 * h + 1] == n[1] && s->g[3 * h + 2] == n[2];
        if (dup)
            continue;
        memcpy(s->g + 3 * g, n, sizeof n);
        g++;
    }
    for (size_t k = 0; k < L * ng; k++) {
        s->a[k] = 2.0 * mcf_rng_uniform(rng) - 1.0;
        s->b[k] = 2.0 * mcf_rng_uniform(rng) - 1.0;
    }
    return s;
}

static void random_points(mcf_rng *rng, const double cell[3], double lo, double hi, size_t P,
                          double *r)
{
    for (size_t p = 0; p < P; p++)
        for (int d = 0; d < 3; d++)
            r[3 * p + d] = cell[d] * (lo + (hi - lo) * mcf_rng_uniform(rng));
}

/* ---- the independent reference: complex exponentials, term by term ---------------- */

/* phi_l = Re sum_g (a - ib) e^{iG.r}; grad = Re sum_g (a - ib) iG e^{iG.r};
 * lap = -Re sum_g (a - ib) |G|^2 e^{iG.r}.  e^{iG.r} as the product of the three axes'
 * exp(i G_d x_d) (a different rounding path from the plugin's cos(G.r)). */
static void reference(const mcf_pw_orbitals *o, const double r[3], double *phi, double *grad,
                      double *lap)
{
    const size_t L = o->n_orbitals, ng = o->n_g;
    for (size_t l = 0; l < L; l++) {
        phi[l] = 0;
        if (grad)
            grad[3 * l] = grad[3 * l + 1] = grad[3 * l + 2] = lap[l] = 0;
    }
    for (size_t g = 0; g < ng; g++) {
        double G[3], re = 1, im = 0, G2 = 0;
        for (int d = 0; d < 3; d++) {
            G[d] = two_pi * (double)o->g[3 * g + (size_t)d] / o->cell[d];
            G2 += G[d] * G[d];
            const double c = cos(G[d] * r[d]), s = sin(G[d] * r[d]);
            const double nre = re * c - im * s, nim = re * s + im * c;
            re = nre;
            im = nim;
        }
        for (size_t l = 0; l < L; l++) {
            const double a = o->cos_coef[l * ng + g], b = o->sin_coef[l * ng + g];
            /* (a - ib)(re + i im) = (a re + b im) + i (a im - b re) */
            const double vr = a * re + b * im, vi = a * im - b * re;
            phi[l] += vr;
            if (grad) {
                for (int d = 0; d < 3; d++)
                    grad[3 * l + (size_t)d] += -G[d] * vi; /* Re(i G v) = -G Im v */
                lap[l] -= G2 * vr;
            }
        }
    }
}

/* ---- (a) planewave vs the reference ------------------------------------------------ */

static void test_planewave_reference(void)
{
    mcf_rng rng;
    mcf_rng_init(&rng, 2024, 1);
    const double cell[3] = {2.0, 3.0, 2.5};
    const size_t L = 5, ng = 12, P = 40;
    orbitals *s = random_orbitals(&rng, L, ng, 3, cell);
    test_params *tp = make_params(&pw_ev, NULL);
    void *ws = NULL;
    int rc = tor_create(pw_ev.info, &tp->p, &s->o, &ws);
    CHECK(rc == MCF_OK && ws, "planewave create: %s", mcf_last_error());
    if (rc) {
        test_params_free(tp);
        orbitals_free(s);
        return;
    }
    CHECK(tor_orbitals(pw_ev.info, ws) == L, "orbitals() = %zu, expected %zu",
          tor_orbitals(pw_ev.info, ws), L);
    /* points in [-1, 2) cells: the plugin reduces them into the cell, the reference does not */
    double *r = malloc(3 * P * sizeof *r);
    random_points(&rng, cell, -1.0, 2.0, P, r);
    double *phi = malloc(P * L * sizeof *phi), *grad = malloc(3 * P * L * sizeof *grad);
    double *lap = malloc(P * L * sizeof *lap), *phi2 = malloc(P * L * sizeof *phi2);
    const double *rr = r;
    size_t np = P;
    rc = tor_vgl(pw_ev.info, &ws, 1, &rr, &np, &phi, &grad, &lap);
    CHECK(rc == MCF_OK, "planewave vgl: %s", mcf_last_error());
    rc = tor_values(pw_ev.info, &ws, 1, &rr, &np, &phi2);
    CHECK(rc == MCF_OK && !memcmp(phi, phi2, P * L * sizeof *phi),
          "values() differs from the values of vgl(): %s", mcf_last_error());
    double worst[5] = {0, 0, 0, 0, 0}; /* error / bound: values, grad, lap, FD grad, FD lap */
    for (size_t p = 0; p < P; p++) {
        const double *x = r + 3 * p;
        double rv[8], rg[24], rl[8];
        reference(&s->o, x, rv, rg, rl);
        for (size_t l = 0; l < L; l++) {
            /* Bounds: sums S0 = sum_g (|a| + |b|), S_k = sum_g (|a| + |b|) |G|^k (and per
             * axis).  A phase G.r of size |G||r| carries an absolute error <= 4 eps (1 +
             * |G||r|) (products, the sum and the reduction into the cell, each <= eps |G||r|,
             * plus sin/cos's own <= eps); each term's value then errs by (|a| + |b|) times
             * that, and the accumulation of 2 ng terms adds 2 ng eps S0.  Gradients and
             * Laplacians: the same times |G_d| and |G|^2. */
            double b0 = 0, bg[3] = {0, 0, 0}, bl = 0, m3[3] = {0, 0, 0}, m4[3] = {0, 0, 0};
            const double rn = sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]) +
                              sqrt(cell[0] * cell[0] + cell[1] * cell[1] + cell[2] * cell[2]);
            for (size_t g = 0; g < ng; g++) {
                const double c = fabs(s->a[l * ng + g]) + fabs(s->b[l * ng + g]);
                double G[3], G2 = 0;
                for (int d = 0; d < 3; d++) {
                    G[d] = two_pi * s->g[3 * g + (size_t)d] / cell[d];
                    G2 += G[d] * G[d];
                }
                const double ph = (4.0 + 2.0 * (double)ng) * eps * (1.0 + sqrt(G2) * rn);
                b0 += c * ph;
                for (int d = 0; d < 3; d++) {
                    bg[d] += c * fabs(G[d]) * ph;
                    m3[d] += c * pow(fabs(G[d]), 3);
                    m4[d] += c * pow(G[d], 4);
                }
                bl += c * G2 * ph;
            }
            const double ev = fabs(phi[p * L + l] - rv[l]) / b0;
            if (ev > worst[0])
                worst[0] = ev;
            for (int d = 0; d < 3; d++) {
                const double eg = fabs(grad[(p * L + l) * 3 + (size_t)d] - rg[3 * l + (size_t)d]) /
                                  bg[d];
                if (eg > worst[1])
                    worst[1] = eg;
            }
            const double el = fabs(lap[p * L + l] - rl[l]) / bl;
            if (el > worst[2])
                worst[2] = el;
            /* Finite differences of the reference values.  Central first difference with
             * step d: |error| <= d^2/6 max|phi'''| + 2 e_v / (2 d), max|phi'''| <= m3 (the
             * sum of (|a|+|b|) |G_d|^3), e_v = b0 the value error bound; d = 1e-5 balances
             * them near 1e-6 relative.  Second difference: <= d^2/12 m4 + 4 e_v / d^2 per
             * axis, d = 2e-4. */
            const double h1 = 1e-5, h2 = 2e-4;
            double lap_fd = 0;
            for (int d = 0; d < 3; d++) {
                double xp[3] = {x[0], x[1], x[2]}, xm[3] = {x[0], x[1], x[2]};
                double vp[8], vm[8];
                xp[d] += h1;
                xm[d] -= h1;
                reference(&s->o, xp, vp, NULL, NULL);
                reference(&s->o, xm, vm, NULL, NULL);
                const double fd = (vp[l] - vm[l]) / (2 * h1);
                const double bound_g = h1 * h1 / 6 * m3[d] + b0 / h1 + bg[d];
                const double eg = fabs(grad[(p * L + l) * 3 + (size_t)d] - fd) / bound_g;
                if (eg > worst[3])
                    worst[3] = eg;
                xp[d] = x[d] + h2;
                xm[d] = x[d] - h2;
                reference(&s->o, xp, vp, NULL, NULL);
                reference(&s->o, xm, vm, NULL, NULL);
                lap_fd += (vp[l] - 2 * rv[l] + vm[l]) / (h2 * h2);
            }
            double bl_fd = bl;
            for (int d = 0; d < 3; d++)
                bl_fd += h2 * h2 / 12 * m4[d] + 4 * b0 / (h2 * h2);
            const double efl = fabs(lap[p * L + l] - lap_fd) / bl_fd;
            if (efl > worst[4])
                worst[4] = efl;
        }
    }
    CHECK(worst[0] <= 1 && worst[1] <= 1 && worst[2] <= 1,
          "planewave vs the reference: error / rounding bound = %.3g (values), %.3g "
          "(gradients), %.3g (Laplacians); all must be <= 1", worst[0], worst[1], worst[2]);
    CHECK(worst[3] <= 1 && worst[4] <= 1,
          "planewave vs finite differences: error / bound = %.3g (gradients), %.3g "
          "(Laplacians); both must be <= 1", worst[3], worst[4]);
    printf("planewave vs reference: error/bound %.2g %.2g %.2g (v, g, l), finite differences "
           "%.2g %.2g (g, l)\n", worst[0], worst[1], worst[2], worst[3], worst[4]);
    tor_destroy(pw_ev.info, ws);
    free(r);
    free(phi);
    free(phi2);
    free(grad);
    free(lap);
    test_params_free(tp);
    orbitals_free(s);
}

/* ---- (b) HEG: blip vs planewave, convergence with the grid ----------------------------- */

/* Alias sums of one axis (blip.c): a plane wave of index m on n points becomes the wave
 * plus the aliases k != 0 of relative amplitude (m / (m - n k))^4 and wave number
 * 2 pi (m - n k) / L.  A_p = sum_{k != 0} |m / (m - n k)|^4 |2 pi (m - n k) / L|^p. */
static double alias_sum(long m, size_t n, double side, int p)
{
    if (m == 0)
        return 0.0; /* Bhat(2 pi k) = 0 for k != 0: a constant is exact */
    const long K = 2000;
    double s = 0;
    for (long k = -K; k <= K; k++) {
        if (!k)
            continue;
        const double q = (double)(m - (long)n * k), rel = (double)m / q;
        s += rel * rel * rel * rel * pow(fabs(two_pi * q / side), p);
    }
    /* the tail |k| > K: |m - n k| >= n (|k| - 1/2) as |m| < n/2, and sum_{k > K}
     * (k - 1/2)^(p - 4) <= (K - 1/2)^(p - 3) / (3 - p), for both signs */
    const double m4 = pow((double)m, 4), nn = (double)n;
    s += 2.0 * m4 * pow(two_pi / side, p) * pow(nn, p - 4) * pow(K - 0.5, p - 3) / (3 - p);
    return s;
}

/* Bounds of |blip - exact| for the orbital cos(G.r) or sin(G.r) (the real or imaginary
 * part of prod_d (e^{i G_d x_d} + R_d), |R_d| <= A_0, |R_d'| <= A_1, |R_d''| <= A_2):
 *   values      prod_d (1 + A_0,d) - 1,
 *   d/dx_d      (|G_d| + A_1,d) prod_{e != d} (1 + A_0,e) - |G_d|,
 *   Laplacian   sum_d [(G_d^2 + A_2,d) prod_{e != d} (1 + A_0,e) - G_d^2]. */
static void alias_bounds(const int32_t m[3], const size_t n[3], const double cell[3],
                         double *bv, double bg[3], double *bl)
{
    double A[3][3], G[3];
    for (int d = 0; d < 3; d++) {
        G[d] = fabs(two_pi * m[d] / cell[d]);
        for (int p = 0; p < 3; p++)
            A[d][p] = alias_sum(m[d], n[d], cell[d], p);
    }
    *bv = (1 + A[0][0]) * (1 + A[1][0]) * (1 + A[2][0]) - 1;
    *bl = 0;
    for (int d = 0; d < 3; d++) {
        const double others = (1 + A[(d + 1) % 3][0]) * (1 + A[(d + 2) % 3][0]);
        bg[d] = (G[d] + A[d][1]) * others - G[d];
        *bl += (G[d] * G[d] + A[d][2]) * others - G[d] * G[d];
    }
}

/* least-squares slope of log y against log x */
static double loglog_slope(const double *x, const double *y, int n)
{
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (int i = 0; i < n; i++) {
        const double lx = log(x[i]), ly = log(y[i]);
        sx += lx;
        sy += ly;
        sxx += lx * lx;
        sxy += lx * ly;
    }
    return (n * sxy - sx * sy) / (n * sxx - sx * sx);
}

static void *create_blip(const orbitals *s, const char *grid)
{
    test_params *tp = make_params(&blip_ev, "grid", grid, NULL);
    CHECK(tp->ok, "grid = %s refused by the declaration: %s", grid, mcf_last_error());
    void *ws = NULL;
    int rc = tor_create(blip_ev.info, &tp->p, &s->o, &ws);
    CHECK(rc == MCF_OK && ws, "blip create with grid = %s: %s", grid, mcf_last_error());
    test_params_free(tp);
    return rc ? NULL : ws;
}

static void test_heg_convergence(int N)
{
    const double rs = 1.0, side = cbrt(4.0 * 3.14159265358979323846 / 3.0 * N) * rs;
    orbitals *s = heg_orbitals(N, side);
    const size_t L = s->o.n_orbitals, ng = s->o.n_g, P = 1000;
    CHECK(L == (size_t)N / 2, "HEG N = %d: %zu orbitals", N, L);
    mcf_rng rng;
    mcf_rng_init(&rng, 77 + (uint64_t)N, 2);
    double *r = malloc(3 * P * sizeof *r);
    random_points(&rng, s->o.cell, 0.0, 1.0, P, r);
    double *ev = malloc(P * L * sizeof *ev), *eg = malloc(3 * P * L * sizeof *eg);
    double *el = malloc(P * L * sizeof *el);
    double *bv = malloc(P * L * sizeof *bv), *bg = malloc(3 * P * L * sizeof *bg);
    double *bl = malloc(P * L * sizeof *bl);
    test_params *tp = make_params(&pw_ev, NULL);
    void *pws = NULL;
    int rc = tor_create(pw_ev.info, &tp->p, &s->o, &pws);
    CHECK(rc == MCF_OK, "planewave create: %s", mcf_last_error());
    test_params_free(tp);
    const double *rr = r;
    size_t np = P;
    if (!rc)
        rc = tor_vgl(pw_ev.info, &pws, 1, &rr, &np, &ev, &eg, &el);
    CHECK(rc == MCF_OK, "planewave vgl: %s", mcf_last_error());

    const int grids[] = {16, 24, 32, 48, 64};
    enum { NG = 5 };
    double h[NG], err[3][NG];
    printf("HEG N = %d (%zu orbitals, %zu plane waves), cell %.4f, %zu random points:\n"
           "  grid      h        max|dphi|    max|dgrad|   max|dlap|    err/bound (v g l)\n",
           N, L, ng, side, P);
    for (int i = 0; i < NG && !rc; i++) {
        char text[16];
        snprintf(text, sizeof text, "%d", grids[i]);
        void *ws = create_blip(s, text);
        if (!ws)
            break;
        const size_t Lb = tor_orbitals(blip_ev.info, ws);
        CHECK(Lb == L, "blip orbitals() = %zu", Lb);
        rc = tor_vgl(blip_ev.info, &ws, 1, &rr, &np, &bv, &bg, &bl);
        CHECK(rc == MCF_OK, "blip vgl: %s", mcf_last_error());
        const size_t n3[3] = {(size_t)grids[i], (size_t)grids[i], (size_t)grids[i]};
        const double inv_h = grids[i] / side;
        /* rounding floor: table entries <= 1/Bhat <= 1.1 with FFT rounding <= 3 log2(S) eps
         * <= 60 eps, the 64-term sum adds <= 2 x 64 eps: 256 eps per unit of weight sum,
         * times inv_h for gradients (sum |w'| <= inv_h) and 2 inv_h^2 per axis for
         * Laplacians (sum |w''| <= 2 inv_h^2) */
        const double fv = 256 * eps, fg = fv * inv_h, fl = 3 * fv * 2 * inv_h * inv_h;
        double mx[3] = {0, 0, 0}, ratio[3] = {0, 0, 0};
        for (size_t l = 0; l < L; l++) {
            int32_t m[3] = {0, 0, 0};
            for (size_t g = 0; g < ng; g++)
                if (s->a[l * ng + g] != 0 || s->b[l * ng + g] != 0)
                    memcpy(m, s->g + 3 * g, sizeof m);
            double av, ag[3], al;
            alias_bounds(m, n3, s->o.cell, &av, ag, &al);
            for (size_t p = 0; p < P; p++) {
                const size_t k = p * L + l;
                const double dv = fabs(bv[k] - ev[k]), dl = fabs(bl[k] - el[k]);
                if (dv > mx[0])
                    mx[0] = dv;
                if (dl > mx[2])
                    mx[2] = dl;
                if (dv / (av + fv) > ratio[0])
                    ratio[0] = dv / (av + fv);
                if (dl / (al + fl) > ratio[2])
                    ratio[2] = dl / (al + fl);
                for (int d = 0; d < 3; d++) {
                    const double dg = fabs(bg[3 * k + (size_t)d] - eg[3 * k + (size_t)d]);
                    if (dg > mx[1])
                        mx[1] = dg;
                    if (dg / (ag[d] + fg) > ratio[1])
                        ratio[1] = dg / (ag[d] + fg);
                }
            }
        }
        h[i] = side / grids[i];
        for (int q = 0; q < 3; q++)
            err[q][i] = mx[q];
        printf("  %4d  %9.5f  %11.3e  %11.3e  %11.3e   %.4f %.4f %.4f\n", grids[i], h[i],
               mx[0], mx[1], mx[2], ratio[0], ratio[1], ratio[2]);
        CHECK(ratio[0] <= 1 && ratio[1] <= 1 && ratio[2] <= 1,
              "N = %d grid %d: error / alias bound = %.3g %.3g %.3g (values, gradients, "
              "Laplacians); all must be <= 1", N, grids[i], ratio[0], ratio[1], ratio[2]);
        tor_destroy(blip_ev.info, ws);
    }
    if (!rc) {
        /* Orders: the k = +-1 aliases have relative amplitude (m/(n - m))^4 ~ h^4; each
         * derivative multiplies by 2 pi (n - m)/L ~ 1/h: values h^4, gradients h^3,
         * Laplacians h^2.  The preasymptotic factor (n/(n - m))^4 changes the slope by
         * < 4 m / n ~ 0.25 at n = 16, hence the +-0.5 window. */
        const double want[3] = {4, 3, 2};
        const char *what[3] = {"values", "gradients", "Laplacians"};
        for (int q = 0; q < 3; q++) {
            const double slope = loglog_slope(h, err[q], NG);
            printf("  slope of max error vs h (%s): %.3f (expected %.0f)\n", what[q], slope,
                   want[q]);
            CHECK(fabs(slope - want[q]) < 0.5, "N = %d: %s converge as h^%.2f, expected h^%.0f",
                  N, what[q], slope, want[q]);
        }
    }
    if (pws)
        tor_destroy(pw_ev.info, pws);
    free(r);
    free(ev);
    free(eg);
    free(el);
    free(bv);
    free(bg);
    free(bl);
    orbitals_free(s);
}

/* The projection of the blip version of cos(2 pi m x / L) on cos(2 pi m x / L) is 1 with
 * the continuous transform (the aliases are orthogonal), but Bhat(theta) / (2/3 +
 * cos(theta)/3) = 1 - theta^4/720 + ... with the interpolating (discrete) one: 5.3e-4 for
 * m = 2, n = 16 (theta = pi/4).  Quadrature: M = 97 equally spaced x (97 prime, coprime to
 * 16) integrates cos(2 pi q x/L) cos(2 pi m x/L) exactly unless q -+ m = 0 mod 97; the
 * alias q = m - 16 k meets that only for k = 0 mod 97 or 16 k = 2m mod 97, the first at
 * k = -24, amplitude (2 / 386)^4 = 7.2e-10; rounding adds ~ 97 x 256 eps.  Tolerance 1e-8. */
static void test_projection_grid(const char *grid);

static void test_projection(void)
{
    /* grid = 16 on every side, and grid = 0: the automatic grid differs per axis on this
     * non-cubic cell (20 x 12 x 12), which once crashed the FFT fit (a GSL workspace sized
     * for the longest axis only) */
    for (int q = 0; q < 2; q++)
        test_projection_grid(q ? "0" : "16");
}

static void test_projection_grid(const char *grid)
{
    const double cell[3] = {5.0, 4.0, 3.0};
    orbitals *s = orbitals_alloc(1, 1, cell);
    s->g[0] = 2;
    s->a[0] = 1.0;
    void *ws = create_blip(s, grid);
    CHECK(ws != NULL, "blip on the 5 x 4 x 3 cell with grid = %s: %s", grid, mcf_last_error());
    if (ws) {
        enum { M = 97 };
        double r[3 * M], phi[M];
        for (int j = 0; j < M; j++) {
            r[3 * j] = cell[0] * j / M;
            r[3 * j + 1] = 1.234;
            r[3 * j + 2] = 0.567;
        }
        const double *rr = r;
        double *pp = phi;
        size_t np = M;
        int rc = tor_values(blip_ev.info, &ws, 1, &rr, &np, &pp);
        CHECK(rc == MCF_OK, "blip values: %s", mcf_last_error());
        double proj = 0;
        for (int j = 0; j < M; j++)
            proj += phi[j] * cos(two_pi * 2 * j / M);
        proj *= 2.0 / M;
        const double theta = two_pi * 2 / 16;
        printf("grid = %s: projection of the blip plane wave on itself: 1 %+.3e (an "
               "interpolating spline on 16 points would give %+.3e)\n", grid, proj - 1,
               -pow(theta, 4) / 720);
        CHECK(fabs(proj - 1) < 1e-8, "projection = 1 %+.3e: the blip orbital's principal "
              "component is not exact (an interpolating fit gives about %.2e)", proj - 1,
              -pow(theta, 4) / 720);
        tor_destroy(blip_ev.info, ws);
    }
    orbitals_free(s);
}

/* ---- (c) partition of unity, periodicity -------------------------------------------- */

static void test_constant(void)
{
    const double cell[3] = {2.0, 3.0, 2.5};
    orbitals *s = orbitals_alloc(2, 2, cell);
    s->g[3] = 1;         /* G_1 = (1, 0, 0); G_0 = 0 */
    s->a[0] = 1.7;       /* orbital 0: the constant 1.7 */
    s->a[2 + 1] = 1.0;   /* orbital 1: cos(2 pi x / Lx), shares the complex FFT */
    const size_t P = 300;
    mcf_rng rng;
    mcf_rng_init(&rng, 5, 3);
    double *r = malloc(3 * P * sizeof *r), *phi = malloc(2 * P * sizeof *phi);
    double *grad = malloc(6 * P * sizeof *grad), *lap = malloc(2 * P * sizeof *lap);
    random_points(&rng, cell, -2.0, 3.0, P, r);
    const char *grids[] = {"3", "7", "16"};
    for (int i = 0; i < 3; i++) {
        void *ws = create_blip(s, grids[i]);
        if (!ws)
            continue;
        const double *rr = r;
        size_t np = P;
        int rc = tor_vgl(blip_ev.info, &ws, 1, &rr, &np, &phi, &grad, &lap);
        CHECK(rc == MCF_OK, "blip vgl: %s", mcf_last_error());
        /* the table holds 1.7 (+ FFT rounding <= 3 log2(S) eps x (1.7 + 1)); weights sum to
         * 1 up to 16 eps; the 64-term sum rounds <= 2 x 64 eps: 512 eps x 1.7 in all.
         * Derivative weights sum to 0 exactly in exact arithmetic; each |w'| <= inv_h and
         * |w''| <= 2 inv_h^2 carries <= 4 eps relative: 512 eps x 1.7 x inv_h and 3 x 2 x
         * 512 eps x 1.7 x inv_h^2, inv_h = max n / L. */
        const double nmax = atof(grids[i]), ih = nmax / 2.0;
        const double tv = 512 * eps * 1.7, tg = tv * ih, tl = 6 * tv * ih * ih;
        double ev = 0, eg = 0, el = 0;
        for (size_t p = 0; p < P; p++) {
            ev = fmax(ev, fabs(phi[2 * p] - 1.7));
            for (int d = 0; d < 3; d++)
                eg = fmax(eg, fabs(grad[6 * p + (size_t)d]));
            el = fmax(el, fabs(lap[2 * p]));
        }
        printf("constant orbital on grid %s: |phi - 1.7| %.2g, |grad| %.2g, |lap| %.2g "
               "(tolerances %.2g %.2g %.2g)\n", grids[i], ev, eg, el, tv, tg, tl);
        CHECK(ev <= tv && eg <= tg && el <= tl, "grid %s: constant orbital off by %.3g "
              "(tolerance %.3g), gradient %.3g (%.3g), Laplacian %.3g (%.3g)", grids[i], ev, tv,
              eg, tg, el, tl);
        tor_destroy(blip_ev.info, ws);
    }
    free(r);
    free(phi);
    free(grad);
    free(lap);
    orbitals_free(s);
}

/* phi(r + L e_d) = phi(r).  The shifted point reduces into the cell to x' with
 * |x' - x| <= dx = 2 L eps (the rounding of x + L; the subtraction of L is exact), and the
 * two evaluations round independently.  Bounds, per quantity (Gm = |G|max = 2 pi sqrt(2)/L
 * for N = 38; (1 + aliases) <= 1.01 on the 24-point grid):
 *   blip: the two evaluations read the same table (|c| <= cmax = 1/Bhat(2 pi/24)^3); one
 *     evaluation errs by <= 80 eps cmax x sum|weights| (each axis weight <= 4 eps absolute,
 *     12 of them enter every sum, the products add 2 eps, 16 + 4 sequential additions 20
 *     eps), with sum|w| = 1, sum|w'| <= 2 inv_h per axis, sum|w''| <= 4 inv_h^2 per axis:
 *       values  2 x 80 eps cmax + 1.01 Gm dx             (about 4e-14: "to 1e-14")
 *       grad    2 x 80 eps cmax 2 inv_h + 1.01 Gm^2 dx
 *       lap     2 x 80 eps cmax 12 inv_h^2 + 1.01 Gm^3 dx;
 *   planewave: the phase G.r (|r| <= 2 sqrt(3) L) errs by <= (4 + 2 n_g) eps (1 + Gm |r|)
 *     as in test (a): values 2 x that + Gm dx, gradients and Laplacians times Gm, Gm^2. */
static void test_periodicity(void)
{
    const double side = 5.4;
    orbitals *s = heg_orbitals(38, side);
    const size_t L = s->o.n_orbitals, P = 200, ng = s->o.n_g;
    mcf_rng rng;
    mcf_rng_init(&rng, 9, 4);
    double *r = malloc(3 * P * sizeof *r), *rs = malloc(3 * P * sizeof *rs);
    random_points(&rng, s->o.cell, 0.0, 1.0, P, r);
    double *v0 = malloc(P * L * sizeof *v0), *v1 = malloc(P * L * sizeof *v1);
    double *g0 = malloc(3 * P * L * sizeof *g0), *g1 = malloc(3 * P * L * sizeof *g1);
    double *l0 = malloc(P * L * sizeof *l0), *l1 = malloc(P * L * sizeof *l1);
    const double Gm = two_pi * sqrt(2.0) / side, dx = 2 * side * eps;
    const double bh = pow(sin(two_pi / 48) / (two_pi / 48), 4), cmax = 1 / (bh * bh * bh);
    const double inv_h = 24 / side, sb = 2 * 80 * eps * cmax;
    const double sp = 2 * (4.0 + 2.0 * (double)ng) * eps * (1 + Gm * 2 * sqrt(3.0) * side);
    const double tol[2][3] = {
        {sb + 1.01 * Gm * dx, sb * 2 * inv_h + 1.01 * Gm * Gm * dx,
         sb * 12 * inv_h * inv_h + 1.01 * Gm * Gm * Gm * dx},
        {sp + Gm * dx, (sp + Gm * dx) * Gm, (sp + Gm * dx) * Gm * Gm}};
    const evaluator *evs[2] = {&blip_ev, &pw_ev};
    for (int e = 0; e < 2; e++) {
        void *ws = NULL;
        if (e == 0) {
            ws = create_blip(s, "24");
        } else {
            test_params *tp = make_params(&pw_ev, NULL);
            CHECK(tor_create(pw_ev.info, &tp->p, &s->o, &ws) == MCF_OK, "planewave create: %s",
                  mcf_last_error());
            test_params_free(tp);
        }
        if (!ws)
            continue;
        const double *rr = r;
        size_t np = P;
        CHECK(tor_vgl(evs[e]->info, &ws, 1, &rr, &np, &v0, &g0, &l0) == MCF_OK, "vgl: %s",
              mcf_last_error());
        double diff[3] = {0, 0, 0};
        for (int d = 0; d < 3; d++)
            for (int sign = -1; sign <= 1; sign += 2) {
                memcpy(rs, r, 3 * P * sizeof *r);
                for (size_t p = 0; p < P; p++)
                    rs[3 * p + (size_t)d] += sign * s->o.cell[d];
                rr = rs;
                CHECK(tor_vgl(evs[e]->info, &ws, 1, &rr, &np, &v1, &g1, &l1) == MCF_OK, "vgl: %s",
                      mcf_last_error());
                for (size_t k = 0; k < P * L; k++) {
                    diff[0] = fmax(diff[0], fabs(v1[k] - v0[k]));
                    for (int c = 0; c < 3; c++)
                        diff[1] = fmax(diff[1], fabs(g1[3 * k + (size_t)c] - g0[3 * k + (size_t)c]));
                    diff[2] = fmax(diff[2], fabs(l1[k] - l0[k]));
                }
            }
        printf("%s periodicity: largest |f(r + L e_d) - f(r)| %.2g %.2g %.2g (values, "
               "gradients, Laplacians; tolerances %.2g %.2g %.2g)\n", evs[e]->info->name,
               diff[0], diff[1], diff[2], tol[e][0], tol[e][1], tol[e][2]);
        CHECK(diff[0] <= tol[e][0] && diff[1] <= tol[e][1] && diff[2] <= tol[e][2],
              "%s: f(r + L e_d) - f(r) = %.3g %.3g %.3g exceeds %.3g %.3g %.3g",
              evs[e]->info->name, diff[0], diff[1], diff[2], tol[e][0], tol[e][1], tol[e][2]);
        tor_destroy(evs[e]->info, ws);
    }
    free(r);
    free(rs);
    free(v0);
    free(v1);
    free(g0);
    free(g1);
    free(l0);
    free(l1);
    orbitals_free(s);
}

/* ---- (d) refusals ------------------------------------------------------------------ */

static void test_refusals(void)
{
    const double cell[3] = {4.0, 4.0, 4.0};
    orbitals *s = orbitals_alloc(2, 2, cell);
    s->g[3] = 3; /* G_1 = (3, 1, 0): needs n_x >= 7 */
    s->g[4] = 1;
    s->a[0] = 1;
    s->b[2 + 1] = 1;
    test_params *tp = make_params(&blip_ev, "grid", "6", NULL);
    void *ws = (void *)&ws;
    int rc = tor_create(blip_ev.info, &tp->p, &s->o, &ws);
    CHECK(rc == MCF_EINVAL && !ws && contains(mcf_last_error(), "grid >= 7") &&
              contains(mcf_last_error(), "Nyquist"),
          "grid 6 for |n_x| = 3: rc %d, message: %s", rc, mcf_last_error());
    test_params_free(tp);
    tp = make_params(&blip_ev, "grid", "7", NULL);
    rc = tor_create(blip_ev.info, &tp->p, &s->o, &ws);
    CHECK(rc == MCF_OK && ws, "grid 7 for |n_x| = 3 refused: %s", mcf_last_error());
    tor_destroy(blip_ev.info, ws);
    test_params_free(tp);
    /* the automatic grid resolves the cutoff: |G| = sqrt(10) 2 pi / 4 -> m_cut = 3,
     * plane-wave grid 7, x 4 = 28 */
    tp = make_params(&blip_ev, NULL);
    rc = tor_create(blip_ev.info, &tp->p, &s->o, &ws);
    CHECK(rc == MCF_OK && ws, "automatic grid refused: %s", mcf_last_error());
    tor_destroy(blip_ev.info, ws);
    test_params_free(tp);
    tp = make_params(&blip_ev, "grid_factor", "0.5", NULL);
    CHECK(!tp->ok, "grid_factor = 0.5 accepted by the declaration");
    test_params_free(tp);
    tp = make_params(&blip_ev, "grid", "-1", NULL);
    CHECK(!tp->ok, "grid = -1 accepted by the declaration");
    test_params_free(tp);

    /* invalid descriptions, for both evaluators */
    const evaluator *evs[2] = {&blip_ev, &pw_ev};
    for (int e = 0; e < 2; e++) {
        const char *name = evs[e]->info->name;
        tp = make_params(evs[e], "grid", "16", NULL);
        ws = (void *)&ws;
        rc = tor_create(evs[e]->info, &tp->p, NULL, &ws);
        CHECK(rc == MCF_EINVAL && !ws && contains(mcf_last_error(), "NULL"),
              "%s: NULL orbitals: rc %d, %s", name, rc, mcf_last_error());
        s->o.n_orbitals = 0;
        rc = tor_create(evs[e]->info, &tp->p, &s->o, &ws);
        CHECK(rc == MCF_EINVAL && !ws && contains(mcf_last_error(), "0 orbitals"),
              "%s: no orbitals: rc %d, %s", name, rc, mcf_last_error());
        s->o.n_orbitals = 2;
        s->g[3] = 0;
        s->g[4] = 0; /* G_1 = G_0 */
        rc = tor_create(evs[e]->info, &tp->p, &s->o, &ws);
        CHECK(rc == MCF_EINVAL && !ws && contains(mcf_last_error(), "twice"),
              "%s: duplicate G: rc %d, %s", name, rc, mcf_last_error());
        s->g[3] = 3;
        s->g[4] = 1;
        s->a[1] = NAN;
        rc = tor_create(evs[e]->info, &tp->p, &s->o, &ws);
        CHECK(rc == MCF_EINVAL && !ws && contains(mcf_last_error(), "not finite"),
              "%s: NaN coefficient: rc %d, %s", name, rc, mcf_last_error());
        s->a[1] = 0;
        s->o.cell[1] = -1;
        rc = tor_create(evs[e]->info, &tp->p, &s->o, &ws);
        CHECK(rc == MCF_EINVAL && !ws && contains(mcf_last_error(), "cell length 1"),
              "%s: negative cell: rc %d, %s", name, rc, mcf_last_error());
        s->o.cell[1] = 4;
        rc = tor_create(evs[e]->info, &tp->p, &s->o, &ws);
        CHECK(rc == MCF_OK && ws, "%s: valid orbitals refused: %s", name, mcf_last_error());
        if (ws) {
            /* bad calls: non-finite position, NULL output array, NULL workspace */
            double r[6] = {0.1, 0.2, 0.3, 1.0, INFINITY, 0.5}, phi[4], grad[12], lap[4];
            const double *rr = r;
            double *pp = phi, *gp = grad, *lp = lap, *none = NULL;
            size_t np = 2;
            rc = tor_values(evs[e]->info, &ws, 1, &rr, &np, &pp);
            CHECK(rc == MCF_EINVAL && contains(mcf_last_error(), "point 1") &&
                      contains(mcf_last_error(), "finite"),
                  "%s: infinite coordinate: rc %d, %s", name, rc, mcf_last_error());
            r[4] = 0.4;
            rc = tor_vgl(evs[e]->info, &ws, 1, &rr, &np, &pp, &none, &lp);
            CHECK(rc == MCF_EINVAL && contains(mcf_last_error(), "grad"),
                  "%s: NULL grad: rc %d, %s", name, rc, mcf_last_error());
            void *nows[1] = {NULL};
            rc = tor_values(evs[e]->info, nows, 1, &rr, &np, &pp);
            CHECK(rc == MCF_EINVAL && contains(mcf_last_error(), "workspace 0"),
                  "%s: NULL workspace: rc %d, %s", name, rc, mcf_last_error());
            rc = tor_vgl(evs[e]->info, &ws, 1, &rr, &np, &pp, &gp, &lp);
            CHECK(rc == MCF_OK, "%s: a good call after refused ones: %s", name,
                  mcf_last_error());
            tor_destroy(evs[e]->info, ws);
        }
        test_params_free(tp);
    }
    orbitals_free(s);
}

/* ---- (e) batches ------------------------------------------------------------------- */

static void test_batch(void)
{
    orbitals *s[2] = {heg_orbitals(14, 4.0), heg_orbitals(38, 5.4)};
    const size_t P[2] = {700, 500}; /* enough work for the OpenMP path in the batch */
    mcf_rng rng;
    mcf_rng_init(&rng, 31, 5);
    double *r[2], *phi[2][2], *grad[2][2], *lap[2][2], *vals[2][2];
    for (int k = 0; k < 2; k++) {
        const size_t L = s[k]->o.n_orbitals;
        r[k] = malloc(3 * P[k] * sizeof(double));
        random_points(&rng, s[k]->o.cell, -0.5, 1.5, P[k], r[k]);
        for (int t = 0; t < 2; t++) {
            phi[k][t] = malloc(P[k] * L * sizeof(double));
            vals[k][t] = malloc(P[k] * L * sizeof(double));
            grad[k][t] = malloc(3 * P[k] * L * sizeof(double));
            lap[k][t] = malloc(P[k] * L * sizeof(double));
        }
    }
    const evaluator *evs[2] = {&blip_ev, &pw_ev};
    for (int e = 0; e < 2; e++) {
        void *ws[2] = {NULL, NULL};
        for (int k = 0; k < 2; k++) {
            if (e == 0) {
                ws[k] = create_blip(s[k], k ? "20" : "12");
            } else {
                test_params *tp = make_params(&pw_ev, NULL);
                CHECK(tor_create(pw_ev.info, &tp->p, &s[k]->o, &ws[k]) == MCF_OK, "create: %s",
                      mcf_last_error());
                test_params_free(tp);
            }
        }
        if (!ws[0] || !ws[1])
            continue;
        const double *rr[2] = {r[0], r[1]};
        double *pb[2] = {phi[0][0], phi[1][0]}, *gb[2] = {grad[0][0], grad[1][0]};
        double *lb[2] = {lap[0][0], lap[1][0]}, *vb[2] = {vals[0][0], vals[1][0]};
        int rc = tor_vgl(evs[e]->info, ws, 2, rr, P, pb, gb, lb);
        CHECK(rc == MCF_OK, "%s: batched vgl: %s", evs[e]->info->name, mcf_last_error());
        rc = tor_values(evs[e]->info, ws, 2, rr, P, vb);
        CHECK(rc == MCF_OK, "%s: batched values: %s", evs[e]->info->name, mcf_last_error());
        for (int k = 0; k < 2; k++) {
            const size_t L = s[k]->o.n_orbitals;
            rc = tor_vgl(evs[e]->info, &ws[k], 1, &rr[k], &P[k], &phi[k][1], &grad[k][1],
                                  &lap[k][1]);
            CHECK(rc == MCF_OK, "single vgl: %s", mcf_last_error());
            rc = tor_values(evs[e]->info, &ws[k], 1, &rr[k], &P[k], &vals[k][1]);
            CHECK(rc == MCF_OK, "single values: %s", mcf_last_error());
            CHECK(!memcmp(phi[k][0], phi[k][1], P[k] * L * sizeof(double)) &&
                      !memcmp(grad[k][0], grad[k][1], 3 * P[k] * L * sizeof(double)) &&
                      !memcmp(lap[k][0], lap[k][1], P[k] * L * sizeof(double)) &&
                      !memcmp(vals[k][0], vals[k][1], P[k] * L * sizeof(double)),
                  "%s: batch entry %d differs from the single call", evs[e]->info->name, k);
            CHECK(!memcmp(vals[k][0], phi[k][0], P[k] * L * sizeof(double)),
                  "%s: values() and the values of vgl() differ (workspace %d)",
                  evs[e]->info->name, k);
        }
        /* an empty batch and a workspace with no points are fine */
        const size_t zero[2] = {0, P[1]};
        rc = tor_values(evs[e]->info, ws, 2, rr, zero, vb);
        CHECK(rc == MCF_OK && !memcmp(vals[1][0], phi[1][0], P[1] * s[1]->o.n_orbitals *
                                                                  sizeof(double)),
              "%s: batch with an empty workspace: %s", evs[e]->info->name, mcf_last_error());
        CHECK(tor_values(evs[e]->info, ws, 0, rr, P, vb) == MCF_OK, "%s: empty batch: %s",
              evs[e]->info->name, mcf_last_error());
        for (int k = 0; k < 2; k++)
            tor_destroy(evs[e]->info, ws[k]);
    }
    for (int k = 0; k < 2; k++) {
        free(r[k]);
        for (int t = 0; t < 2; t++) {
            free(phi[k][t]);
            free(vals[k][t]);
            free(grad[k][t]);
            free(lap[k][t]);
        }
        orbitals_free(s[k]);
    }
}

static int open_evaluator(const char *name, evaluator *ev)
{
    int rc = mcfe_plugin_open(name, MCF_PLUGIN_ORBITAL_EVALUATOR, &ev->plugin);
    CHECK(rc == MCF_OK && ev->plugin, "loading the %s plugin: %s", name, mcf_last_error());
    if (rc)
        return rc;
    ev->info = ev->plugin->info;
    CHECK(ev->info->kind == MCF_PLUGIN_ORBITAL_EVALUATOR && !strcmp(ev->info->name, name) &&
              tor_table_ok(ev->info),
          "%s: kind %d, name %s, ops size %u (ABI %u)", name, (int)ev->info->kind,
          ev->info->name, tor_table_size(ev->info), ev->info->abi_version);
    return MCF_OK;
}

int main(void)
{
    if (open_evaluator("planewave", &pw_ev) || open_evaluator("blip", &blip_ev))
        return check_exit();
    CHECK(mcfi_spec_count(pw_ev.info->params) == 0, "planewave declares %zu parameters",
          mcfi_spec_count(pw_ev.info->params));
    const char *keys[] = {"grid", "grid_factor"};
    for (int k = 0; k < 2; k++) {
        int found = 0;
        for (const mcf_param_spec *sp = blip_ev.info->params; sp->name; sp++)
            found |= !strcmp(sp->name, keys[k]);
        CHECK(found, "blip: parameter %s not declared", keys[k]);
    }
    test_planewave_reference();
    test_heg_convergence(14);
    test_heg_convergence(38);
    test_projection();
    test_constant();
    test_periodicity();
    test_refusals();
    test_batch();
    tor_batch_release(); /* before the plugins whose keep slots it may hold */
    mcfe_plugin_close(pw_ev.plugin);
    mcfe_plugin_close(blip_ev.plugin);
    return check_exit();
}
