/* test_density_matrix.c — the density matrix rho = f(H) on the diagonal and the nonzero
 * elements of H (mcf/fermion.h's density_matrix, mcf 1.1), the forces of a global sampler:
 * dS_eff/dH_rr = rho_rr / T, and for a bond (r, c) dS_eff/dRe H_rc = 2 Re rho_rc / T,
 * dS_eff/dIm H_rc = 2 Im rho_rc / T (H_cr moving with it).
 *
 * Hamiltonians, as the models build them (de_test_hamiltonian.h and below):
 *   DE   double exchange, infinite Hund coupling: 3^3 periodic cube, random spins (complex
 *        hoppings), dim 27;
 *   DEJ  double exchange, J_H = 2: spin-diagonal hopping and -J_H S.sigma blocks, dim 54;
 *   HOL  Holstein-like: 4x4 square, hopping -1, on-site g x_i with x_i Gaussian, dim 16;
 *   AND  Anderson: 4^3 periodic cube, hopping -1, on-site uniform in [-W/2, W/2], W = 4.
 * Each at T = 0.3 and a mu inside the band.
 *
 * (a) ed against central differences of ed's exact change_action, every diagonal entry and
 *     every slot (both directions of a bond): D(delta) = (dS(+delta) - dS(-delta)) /
 *     (2 delta) at delta = 1e-3 and 5e-4.  The truncation of D(delta/2) is a third of
 *     |D(delta) - D(delta/2)| (an O(delta^2) rule); the rounding of a dS is that of the
 *     change zoo, 1e-13 dim (||H|| + 1) / T, divided by delta.  Tolerance: their sum.
 * (b) kpm with vectors = 0 (exact: unit vectors, no randomness) against ed, every entry:
 *     within the reported truncation bound plus 1e-11 (the recursion's rounding: Mf steps
 *     of eps ||H~|| each, Mf ~ 10^2-10^3).
 * (c) kpm (exact mode) against central differences of kpm's contour change_action, 24
 *     entries per Hamiltonian: tolerance as (a) plus the contour's own error bounds / delta
 *     plus the density's truncation bound.
 * (d) probing (vectors = 8: stochastic, probes = 4, probing_distance = 2) against ed:
 *     K = 60 calls on independent streams; per entry the mean over calls within 5 standard
 *     errors (the spread of the calls / sqrt(K): a t-distribution with 59 degrees of freedom;
 *     over ~10^3 entries the chance of one beyond 5 is below 1 %); and the reported error
 *     calibrated: the mean reported variance over the observed variance of the calls within
 *     [0.8, 1.25] (each variance estimated from >= 10^4 numbers, correlated in groups of a
 *     few entries: its relative error is a few %).  Probing cuts the noise: distance 2 has
 *     less observed variance per probe than distance 0 (one plain random vector).
 * (e) the forces of factorized hoppings (mcf_hamiltonian_factors_gradient, DE as the model
 *     writes it: rank-2 spinors): 2 Re(conj(g_ic) da) / T against central differences of
 *     ed's action as a_ic moves by da = delta and i delta, every site and component.
 * (f) mcf_density_matrix_force with dH/dt of the uniform hopping (AND): against the central
 *     difference of ed's action as t moves.
 * (g) a batch of 3 workspaces gives the bits of 3 single calls (ed; kpm stochastic, each
 *     its own stream); refusals: T = 0, NaN mu, NULL output arrays, no stream with probes.
 * With an argument (kpm-cuda, label gpu): (b) and (d) also on that evaluator, held to kpm's
 * numbers within 1e-11 (the same phases from the same streams; only the series' rounding
 * differs); without a device it prints "skipped: no device" and exits 77. */
#include <stdio.h>
#include <time.h>

#include "de_test_hamiltonian.h"
#include "internal.h"
#include "kpm_core.h"
#include "kpm_test_util.h"
#include "test_params.h"

static const mcf_plugin_info *ed_info, *kpm_info, *dev_info;

typedef struct dm {
    size_t dim, slots;
    double *diag, *re, *im, *derr, *berr, trunc;
} dm;

static dm dm_alloc(const mcf_hamiltonian *h)
{
    dm d = {.dim = h->dim, .slots = (size_t)h->width * h->dim};
    d.diag = calloc(d.dim, sizeof *d.diag);
    d.derr = calloc(d.dim, sizeof *d.derr);
    d.re = calloc(d.slots, sizeof *d.re);
    d.im = calloc(d.slots, sizeof *d.im);
    d.berr = calloc(d.slots, sizeof *d.berr);
    return d;
}

static void dm_free(dm *d)
{
    free(d->diag);
    free(d->derr);
    free(d->re);
    free(d->im);
    free(d->berr);
}

static int dm_call(const mcf_plugin_info *e, void *ws, mcf_rng *rng, double T, double mu,
                   dm *d)
{
    double *diag = d->diag, *re = d->re, *im = d->im, *de = d->derr, *be = d->berr;
    const mcf_density_matrix out = {&diag, &re, &im, &de, &be, &d->trunc};
    return tev_v2(e)->density_matrix(tev_batch(), &ws, 1, &rng, &T, &mu, &out);
}

/* ---- Hamiltonians ---------------------------------------------------------------------- */

static mcf_hamiltonian *lattice_h(mcf_lattice_kind kind, long L, double onsite_scale,
                                  int gaussian, uint64_t seed)
{
    mcf_lattice *lat = NULL;
    mcf_hamiltonian *h = NULL;
    CHECK(mcf_lattice_create(kind, L, MCF_BOUNDARY_PERIODIC, &lat) == MCF_OK, "lattice: %s",
          mcf_last_error());
    CHECK(mcf_hamiltonian_create(lat->sites, 1, lat->coordination, &h) == MCF_OK, "h: %s",
          mcf_last_error());
    CHECK(mcf_hamiltonian_set_hopping(h, lat, 1.0) == MCF_OK, "hopping: %s", mcf_last_error());
    mcf_rng rng;
    mcf_rng_init(&rng, seed, 0);
    for (size_t r = 0; r < h->dim; r++)
        mcf_hamiltonian_set_onsite(h, r, onsite_scale * (gaussian ? mcf_rng_normal(&rng)
                                                                  : mcf_rng_uniform(&rng) - 0.5));
    mcf_lattice_destroy(lat);
    return h;
}

typedef struct hcase {
    const char *name;
    mcf_hamiltonian *h;
    double T, mu;
} hcase;

/* ---- (a), (c): central differences of change_action ------------------------------------ */

/* the change of entry (r, c) (r == c: on-site) in direction dir (0: real, 1: imaginary) by
 * amplitude x */
static void entry_change(size_t r, size_t c, int dir, double x, mcf_change *ch)
{
    if (r == c) {
        mcf_change_onsite(ch, r, x);
        return;
    }
    const int64_t rows[2] = {(int64_t)r, (int64_t)c};
    double re[4] = {0, dir ? 0 : x, dir ? 0 : x, 0}, im[4] = {0, dir ? x : 0, dir ? -x : 0, 0};
    const int rc = mcf_change_from_block(ch, rows, 2, re, im);
    CHECK(rc == MCF_OK, "change: %s", mcf_last_error());
}

static double ds_of(const mcf_plugin_info *e, void *ws, const mcf_change *ch, double T,
                    double mu, double *err)
{
    double dS = NAN, er = 0.0;
    const int rc = tev_v2(e)->change_action(tev_batch(), &ws, 1, &ch, &T, &mu, &dS, &er);
    CHECK(rc == MCF_OK, "%s change_action: %s", e->name, mcf_last_error());
    *err += fabs(er);
    return dS;
}

/* D(x) = (dS(+x) - dS(-x)) / (2 x); *err gets the evaluator's bounds / (2 x) */
static double central(const mcf_plugin_info *e, void *ws, size_t r, size_t c, int dir, double x,
                      double T, double mu, double *err)
{
    mcf_change cp, cm;
    entry_change(r, c, dir, x, &cp);
    entry_change(r, c, dir, -x, &cm);
    double e2 = 0.0;
    const double d = (ds_of(e, ws, &cp, T, mu, &e2) - ds_of(e, ws, &cm, T, mu, &e2)) / (2 * x);
    *err = e2 / (2 * x);
    return d;
}

static double worst_a, worst_c;
static int entries_a, entries_c;

/* every entry (stride 1) or every stride-th; against rho of d */
static void differences(const hcase *hc, const mcf_plugin_info *e, void *ws, const dm *d,
                        size_t stride, double *worst, int *count)
{
    const mcf_hamiltonian *h = hc->h;
    double lo, hi;
    mcf_hamiltonian_bounds(h, &lo, &hi);
    const double norm = fmax(fabs(lo), fabs(hi)), dx = 1e-3;
    const size_t n = h->dim, total = n + (size_t)h->width * n;
    for (size_t q = 0; q < total; q += stride) {
        const size_t r = q < n ? q : (q - n) % n;
        const int32_t c = q < n ? (int32_t)r : h->col[q - n];
        if (c < 0)
            continue;
        for (int dir = 0; dir < (q < n ? 1 : 2); dir++) {
            double e1, e2;
            const double d1 = central(e, ws, r, (size_t)c, dir, dx, hc->T, hc->mu, &e1);
            const double d2 = central(e, ws, r, (size_t)c, dir, dx / 2, hc->T, hc->mu, &e2);
            const double want = q < n ? d->diag[r] / hc->T
                                      : 2.0 * (dir ? d->im[q - n] : d->re[q - n]) / hc->T;
            const double tol = fabs(d1 - d2) + 1e-13 * (double)n * (norm + 1.0) / hc->T /
                                                   (dx / 2) +
                               e2 + 2.0 * d->trunc / hc->T;
            const double ratio = fabs(d2 - want) / tol;
            if (ratio > *worst)
                *worst = ratio;
            (*count)++;
            CHECK(ratio <= 1.0, "%s %s: entry (%zu, %d) %s: rho gives %.12g, differences "
                  "%.12g (tolerance %.2e)", hc->name, e->name, r, c, dir ? "im" : "re", want,
                  d2, tol);
        }
    }
}

/* ---- (b) exact KPM against ed ---------------------------------------------------------- */

static double worst_b;

static void against(const char *what, const dm *got, const dm *ref, double slack)
{
    for (size_t q = 0; q < got->dim + got->slots; q++) {
        const int diag = q < got->dim;
        const size_t s = q - got->dim;
        const double dr = diag ? got->diag[q] - ref->diag[q] : got->re[s] - ref->re[s];
        const double di = diag ? 0.0 : got->im[s] - ref->im[s];
        const double tol = got->trunc + ref->trunc + slack, ratio = hypot(dr, di) / tol;
        if (ratio > worst_b)
            worst_b = ratio;
        CHECK(ratio <= 1.0, "%s: entry %zu differs by %.3e (tolerance %.2e)", what, q,
              hypot(dr, di), tol);
        if (ratio > 1.0)
            return;
    }
}

/* ---- (d) probing ----------------------------------------------------------------------- */

#define NCALLS 60

/* K calls on streams (seed, k): the largest |z| of the mean, the calibration ratio (mean
 * reported variance / observed variance) and the observed variance per probe (summed) */
static void probing(const hcase *hc, const mcf_plugin_info *e, const dm *exact, long distance,
                    double *zmax, double *calib, double *var_probe)
{
    char dist[16];
    snprintf(dist, sizeof dist, "%ld", distance);
    test_params *tp = test_params_make(e->params, "test", "vectors", "8", "probes", "4",
                                       "probing_distance", dist, NULL);
    void *ws = test_params_workspace(e, tp, hc->h);
    dm d = dm_alloc(hc->h);
    const size_t ne = d.dim + d.slots;
    double *sum = calloc(2 * ne, sizeof *sum), *sq = calloc(ne, sizeof *sq);
    double *rep = calloc(ne, sizeof *rep);
    for (int k = 0; k < NCALLS && ws; k++) {
        mcf_rng rng;
        mcf_rng_init(&rng, 99, (uint64_t)k);
        CHECK(dm_call(e, ws, &rng, hc->T, hc->mu, &d) == MCF_OK, "%s probing: %s", e->name,
              mcf_last_error());
        for (size_t q = 0; q < ne; q++) {
            const int dg = q < d.dim;
            const double vr = dg ? d.diag[q] : d.re[q - d.dim], vi = dg ? 0 : d.im[q - d.dim];
            const double se = dg ? d.derr[q] : d.berr[q - d.dim];
            sum[2 * q] += vr;
            sum[2 * q + 1] += vi;
            sq[q] += vr * vr + vi * vi;
            rep[q] += se * se;
        }
    }
    double worst = 0.0, obs_tot = 0.0, rep_tot = 0.0;
    for (size_t q = 0; q < ne; q++) {
        if (q >= d.dim && hc->h->col[q - d.dim] < 0)
            continue;
        const double mr = sum[2 * q] / NCALLS, mi = sum[2 * q + 1] / NCALLS;
        const double var = (sq[q] / NCALLS - mr * mr - mi * mi) * NCALLS / (NCALLS - 1.0);
        const int dg = q < d.dim;
        const double xr = dg ? exact->diag[q] : exact->re[q - d.dim];
        const double xi = dg ? 0 : exact->im[q - d.dim];
        /* the mean's error: the calls' spread / sqrt(K) (complex: per component var/2) */
        const double se = sqrt(var / NCALLS / (dg ? 1.0 : 2.0));
        /* beyond the series' truncation (an entry the colours make exact has no spread) */
        const double off = fmax(fmax(fabs(mr - xr), fabs(mi - xi)) - d.trunc - 1e-11, 0.0);
        const double z = off > 0.0 ? off / se : 0.0;
        if (z > worst)
            worst = z;
        obs_tot += var;
        rep_tot += rep[q] / NCALLS;
    }
    *zmax = worst;
    *calib = rep_tot / obs_tot;
    *var_probe = obs_tot * 4.0; /* 4 probes a call */
    free(sum);
    free(sq);
    free(rep);
    dm_free(&d);
    if (ws)
        tev_destroy(e, ws);
    test_params_free(tp);
}

/* ---- (e) factorized hoppings ----------------------------------------------------------- */

static double action_of(void *ws, double T, double mu)
{
    double S = NAN, err = 0.0;
    const int rc = tev_v2(ed_info)->action(tev_batch(), &ws, 1, 1, &T, &mu, &S, &err);
    CHECK(rc == MCF_OK, "ed action: %s", mcf_last_error());
    return S;
}

static void factors_case(void)
{
    mcf_lattice *lat = NULL;
    mcf_hamiltonian *h = NULL;
    CHECK(mcf_lattice_create(MCF_LATTICE_CUBIC, 3, MCF_BOUNDARY_PERIODIC, &lat) == MCF_OK, "lattice: %s", mcf_last_error());
    CHECK(mcf_hamiltonian_create(lat->sites, 1, 6, &h) == MCF_OK, "h: %s", mcf_last_error());
    CHECK(mcf_hamiltonian_factorize(h, lat, -1.0, 2) == MCF_OK, "factorize: %s",
          mcf_last_error());
    mcf_rng rng;
    mcf_rng_init(&rng, 7, 0);
    double *a = malloc(4 * h->sites * sizeof *a), *g = malloc(4 * h->sites * sizeof *g);
    for (size_t i = 0; i < h->sites; i++) {
        const double th = acos(2.0 * mcf_rng_uniform(&rng) - 1.0);
        const double ph = 2.0 * kt_pi * mcf_rng_uniform(&rng);
        double *ai = a + 4 * i;
        ai[0] = cos(th / 2);
        ai[1] = 0.0;
        ai[2] = sin(th / 2) * cos(ph);
        ai[3] = sin(th / 2) * sin(ph);
        mcf_hamiltonian_set_field(h, i, ai);
    }
    mcf_hamiltonian_fix_bounds(h, -6.0, 6.0);
    const double T = 0.3, mu = -0.5;
    test_params *tp = test_params_make(ed_info->params, "test", NULL);
    void *ws = test_params_workspace(ed_info, tp, h);
    dm d = dm_alloc(h);
    CHECK(dm_call(ed_info, ws, NULL, T, mu, &d) == MCF_OK, "ed: %s", mcf_last_error());
    CHECK(mcf_hamiltonian_factors_gradient(h, d.re, d.im, g) == MCF_OK, "gradient: %s",
          mcf_last_error());
    double worst = 0.0;
    for (size_t i = 0; i < h->sites; i++)
        for (int c = 0; c < 2; c++)
            for (int dir = 0; dir < 2; dir++) {
                double Dx[2];
                for (int half = 0; half < 2; half++) {
                    const double x = half ? 5e-4 : 1e-3;
                    double ai[4], S[2];
                    for (int sgn = 0; sgn < 2; sgn++) {
                        memcpy(ai, a + 4 * i, sizeof ai);
                        ai[2 * c + dir] += sgn ? -x : x;
                        mcf_hamiltonian_set_field(h, i, ai);
                        S[sgn] = action_of(ws, T, mu);
                    }
                    mcf_hamiltonian_set_field(h, i, a + 4 * i);
                    Dx[half] = (S[0] - S[1]) / (2 * x);
                }
                /* dOmega = 2 Re(conj(g) da): da = x gives 2 Re g, da = i x gives 2 Im g */
                const double want = 2.0 * g[4 * i + 2 * c + dir] / T;
                const double tol = fabs(Dx[0] - Dx[1]) + 1e-13 * 27.0 * 7.0 / T / 5e-4;
                const double ratio = fabs(Dx[1] - want) / tol;
                if (ratio > worst)
                    worst = ratio;
                CHECK(ratio <= 1.0, "(e) site %zu component %d %s: gradient %.12g, "
                      "differences %.12g (tolerance %.2e)", i, c, dir ? "im" : "re", want,
                      Dx[1], tol);
            }
    printf("(e) factorized DE 3^3: 108 field derivatives, worst |diff|/tol %.3f\n", worst);
    dm_free(&d);
    tev_destroy(ed_info, ws);
    test_params_free(tp);
    free(a);
    free(g);
    mcf_hamiltonian_destroy(h);
    mcf_lattice_destroy(lat);
}

/* ---- (f) the contraction with dH/dt of a uniform hopping ------------------------------- */

static void hopping_force(void)
{
    const double T = 0.3, mu = 0.4, t0 = 1.0;
    mcf_hamiltonian *h = lattice_h(MCF_LATTICE_CUBIC, 4, 4.0, 0, 31);
    test_params *tp = test_params_make(ed_info->params, "test", NULL);
    void *ws = test_params_workspace(ed_info, tp, h);
    dm d = dm_alloc(h);
    CHECK(dm_call(ed_info, ws, NULL, T, mu, &d) == MCF_OK, "ed: %s", mcf_last_error());
    /* H_rc = -t on every bond: dH/dt = -1 on every occupied slot */
    double *dre = calloc(d.slots, sizeof *dre);
    for (size_t s = 0; s < d.slots; s++)
        dre[s] = h->col[s] >= 0 ? -1.0 : 0.0;
    const double force = mcf_density_matrix_force(h, d.diag, d.re, d.im, NULL, dre, NULL) / T;
    double D[2];
    for (int half = 0; half < 2; half++) {
        const double x = half ? 5e-4 : 1e-3;
        double S[2];
        for (int sgn = 0; sgn < 2; sgn++) {
            for (size_t s = 0; s < d.slots; s++)
                if (h->col[s] >= 0)
                    h->hop_re[s] = -(t0 + (sgn ? -x : x));
            mcf_hamiltonian_touch_all(h);
            S[sgn] = action_of(ws, T, mu);
        }
        D[half] = (S[0] - S[1]) / (2 * x);
    }
    const double tol = fabs(D[0] - D[1]) + 1e-13 * 64.0 * 15.0 / T / 5e-4;
    CHECK(fabs(D[1] - force) <= tol, "(f) dS/dt: contraction %.12g, differences %.12g "
          "(tolerance %.2e)", force, D[1], tol);
    printf("(f) Anderson 4^3, dS/dt of the uniform hopping: %.10f (differences %.10f, tol "
           "%.1e)\n", force, D[1], tol);
    free(dre);
    dm_free(&d);
    tev_destroy(ed_info, ws);
    test_params_free(tp);
    mcf_hamiltonian_destroy(h);
}

/* ---- (g) batches and refusals ---------------------------------------------------------- */

static void batches(const mcf_plugin_info *e, const hcase *hc, int stochastic)
{
    test_params *tp = stochastic ? test_params_make(e->params, "test", "vectors", "8", NULL)
                                 : test_params_make(e->params, "test", NULL);
    void *ws[3];
    dm d[3], s[3];
    mcf_rng rng[3];
    mcf_rng *rp[3];
    double T[3], mu[3], tr[3];
    double *diag[3], *re[3], *im[3];
    for (int k = 0; k < 3; k++) {
        ws[k] = test_params_workspace(e, tp, hc[k].h);
        d[k] = dm_alloc(hc[k].h);
        s[k] = dm_alloc(hc[k].h);
        mcf_rng_init(&rng[k], 5, (uint64_t)k);
        rp[k] = &rng[k];
        T[k] = hc[k].T;
        mu[k] = hc[k].mu;
        diag[k] = d[k].diag;
        re[k] = d[k].re;
        im[k] = d[k].im;
    }
    const mcf_density_matrix out = {diag, re, im, NULL, NULL, tr};
    CHECK(tev_v2(e)->density_matrix(tev_batch(), ws, 3, rp, T, mu, &out) == MCF_OK,
          "%s batch: %s", e->name, mcf_last_error());
    for (int k = 0; k < 3; k++) {
        mcf_rng_init(&rng[k], 5, (uint64_t)k);
        CHECK(dm_call(e, ws[k], &rng[k], T[k], mu[k], &s[k]) == MCF_OK, "%s: %s", e->name,
              mcf_last_error());
        CHECK(!memcmp(d[k].diag, s[k].diag, d[k].dim * sizeof(double)) &&
                  !memcmp(d[k].re, s[k].re, d[k].slots * sizeof(double)) &&
                  !memcmp(d[k].im, s[k].im, d[k].slots * sizeof(double)),
              "(g) %s: workspace %d of a batch differs from a single call", e->name, k);
    }
    /* refusals */
    double Tz = 0.0, mun = NAN, T1 = 0.3, mu1 = 0.0;
    const mcf_density_matrix none = {NULL, re, im, NULL, NULL, NULL};
    CHECK(tev_v2(e)->density_matrix(tev_batch(), ws, 1, rp, &Tz, &mu1, &out) == MCF_EINVAL,
          "(g) %s: T = 0 accepted", e->name);
    CHECK(tev_v2(e)->density_matrix(tev_batch(), ws, 1, rp, &T1, &mun, &out) == MCF_EINVAL,
          "(g) %s: mu = NaN accepted", e->name);
    CHECK(tev_v2(e)->density_matrix(tev_batch(), ws, 1, rp, &T1, &mu1, &none) == MCF_EINVAL,
          "(g) %s: a NULL output array accepted", e->name);
    if (stochastic) {
        const int rc = tev_v2(e)->density_matrix(tev_batch(), ws, 1, NULL, &T1, &mu1, &out);
        CHECK(rc == MCF_EINVAL && strstr(mcf_last_error(), "stream"),
              "(g) %s: probes without a stream accepted (%s)", e->name, mcf_last_error());
    }
    for (int k = 0; k < 3; k++) {
        tev_destroy(e, ws[k]);
        dm_free(&d[k]);
        dm_free(&s[k]);
    }
    test_params_free(tp);
}

/* ---- main ------------------------------------------------------------------------------ */

static const mcf_plugin_info *open_evaluator(const char *name, mcf_plugin **p)
{
    int rc = mcfe_plugin_open(name, MCF_PLUGIN_FERMION_EVALUATOR, p);
    CHECK(rc == MCF_OK, "loading %s: %s", name, mcf_last_error());
    if (rc)
        return NULL;
    CHECK(mcf_fermion_provides((*p)->info) & MCF_PROVIDES_DENSITY_MATRIX,
          "%s does not provide density_matrix", name);
    return (*p)->info;
}

int main(int argc, char **argv)
{
    const clock_t t0 = clock();
    mcf_plugin *pe = NULL, *pk = NULL, *pd = NULL;
    ed_info = open_evaluator("ed", &pe);
    kpm_info = open_evaluator("kpm", &pk);
    if (!ed_info || !kpm_info)
        return check_exit();
    if (argc > 1) {
        dev_info = open_evaluator(argv[1], &pd);
        if (!dev_info)
            return check_exit();
        char why[512] = "";
        if (dev_info->probe && !dev_info->probe(why, sizeof why)) {
            printf("skipped: no device (%s)\n", why);
            return 77;
        }
    }
    de_lattice d1 = de_random_lattice(3, 0.0, 1), d2 = de_random_lattice(3, 2.0, 2);
    hcase hc[4] = {
        {"DE (J_H infinite, 3^3)", de_build(&d1), 0.3, -1.0},
        {"DE (J_H = 2, 3^3)", de_build(&d2), 0.3, -2.5},
        {"Holstein-like 4x4", lattice_h(MCF_LATTICE_SQUARE, 4, 0.8, 1, 3), 0.3, 0.2},
        {"Anderson 4^3 (W = 4)", lattice_h(MCF_LATTICE_CUBIC, 4, 4.0, 0, 4), 0.3, 0.5},
    };
    test_params *te = test_params_make(ed_info->params, "test", NULL);
    test_params *tk = test_params_make(kpm_info->params, "test", "vectors", "0", NULL);
    for (int c = 0; c < 4; c++) {
        const hcase *h = &hc[c];
        void *we = test_params_workspace(ed_info, te, h->h);
        void *wk = test_params_workspace(kpm_info, tk, h->h);
        dm de = dm_alloc(h->h), dk = dm_alloc(h->h);
        CHECK(dm_call(ed_info, we, NULL, h->T, h->mu, &de) == MCF_OK, "ed: %s",
              mcf_last_error());
        CHECK(dm_call(kpm_info, wk, NULL, h->T, h->mu, &dk) == MCF_OK, "kpm: %s",
              mcf_last_error());
        differences(h, ed_info, we, &de, 1, &worst_a, &entries_a);       /* (a) */
        against(h->name, &dk, &de, 1e-11);                               /* (b) */
        differences(h, kpm_info, wk, &dk, 7, &worst_c, &entries_c);      /* (c) */
        printf("%s: kpm's Fermi series truncation bound %.1e\n", h->name, dk.trunc);
        double z, cal, v2, z0, cal0, v0;
        probing(h, kpm_info, &de, 2, &z, &cal, &v2);                     /* (d) */
        probing(h, kpm_info, &de, 0, &z0, &cal0, &v0);
        size_t nc = 0;
        int32_t *colour = malloc(h->h->dim * sizeof *colour);
        kpm_probe_colours(h->h, 2, colour, &nc);
        free(colour);
        printf("(d) %s: probing distance 2 (%zu colours): max |z| %.2f, calibration %.3f, "
               "variance per probe %.3e; distance 0: max |z| %.2f, calibration %.3f, "
               "variance %.3e (%.0fx)\n", h->name, nc, z, cal, v2, z0, cal0, v0, v0 / v2);
        CHECK(z <= 5.0 && z0 <= 5.0, "(d) %s: a mean beyond 5 standard errors of ed's",
              h->name);
        CHECK(cal >= 0.8 && cal <= 1.25 && cal0 >= 0.8 && cal0 <= 1.25,
              "(d) %s: the reported errors are not calibrated (%.3f, %.3f)", h->name, cal, cal0);
        CHECK(v2 < v0, "(d) %s: probing at distance 2 did not cut the variance per probe",
              h->name);
        if (dev_info) {
            test_params *tx = test_params_make(dev_info->params, "test", "vectors", "0", NULL);
            void *wd = test_params_workspace(dev_info, tx, h->h);
            dm dd = dm_alloc(h->h);
            CHECK(dm_call(dev_info, wd, NULL, h->T, h->mu, &dd) == MCF_OK, "%s: %s",
                  dev_info->name, mcf_last_error());
            against(dev_info->name, &dd, &dk, 1e-11);
            test_params *ts = test_params_make(dev_info->params, "test", "vectors", "8", NULL);
            test_params *tc = test_params_make(kpm_info->params, "test", "vectors", "8", NULL);
            void *wds = test_params_workspace(dev_info, ts, h->h);
            void *wcs = test_params_workspace(kpm_info, tc, h->h);
            mcf_rng r1, r2;
            mcf_rng_init(&r1, 8, 8);
            mcf_rng_init(&r2, 8, 8);
            CHECK(dm_call(dev_info, wds, &r1, h->T, h->mu, &dd) == MCF_OK, "device probes");
            CHECK(dm_call(kpm_info, wcs, &r2, h->T, h->mu, &dk) == MCF_OK, "host probes");
            against("the device's probes", &dd, &dk, 1e-11);
            tev_destroy(dev_info, wd);
            tev_destroy(dev_info, wds);
            tev_destroy(kpm_info, wcs);
            test_params_free(ts);
            test_params_free(tc);
            test_params_free(tx);
            dm_free(&dd);
        }
        dm_free(&de);
        dm_free(&dk);
        tev_destroy(ed_info, we);
        tev_destroy(kpm_info, wk);
    }
    printf("(a) ed: %d derivatives, worst |diff|/tol %.3f\n", entries_a, worst_a);
    printf("(b) kpm exact vs ed: worst |diff|/tol %.3f\n", worst_b);
    printf("(c) kpm: %d derivatives of the contour action, worst |diff|/tol %.3f\n", entries_c,
           worst_c);
    factors_case();
    hopping_force();
    batches(ed_info, hc, 0);
    batches(kpm_info, hc, 1);
    if (dev_info)
        batches(dev_info, hc, 1);
    for (int c = 0; c < 4; c++)
        mcf_hamiltonian_destroy(hc[c].h);
    free(d1.s);
    free(d2.s);
    test_params_free(te);
    test_params_free(tk);
    tev_batch_release();
    printf("%.1f s\n", (double)(clock() - t0) / CLOCKS_PER_SEC);
    return check_exit();
}
