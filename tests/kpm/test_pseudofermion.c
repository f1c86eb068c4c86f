/* test_pseudofermion.c — the pseudofermion form of the fermion weight (mcf/fermion.h's
 * pseudofermion, mcf 1.1), the weight and forces of hybrid Monte Carlo:
 *     S_pf = Tr(H - mu)/(2T) + sum_f phi_f^+ F(H) phi_f,  F = [2 cosh((H - mu)/2T)]^{-1/n}.
 *
 * Hamiltonians (fixed bounds): double exchange at infinite Hund coupling and at J_H = 2
 * (3^3), a Holstein-like 4x4 square lattice, the Anderson model at W = 4 (4^3); T = 0.3 and
 * 0.1 (n = mcf_pseudofermion_flavours: more flavours at low T).
 *
 * (a) ed's heat bath: phi_f = F^{-1/2} chi_f, so sum_f phi_f^+ F phi_f = sum_f |chi_f|^2 with
 *     the chi drawn again from the same stream (the op's order: flavour, row, re then im):
 *     within 1e-12 relative (an exact diagonalization's rounding);
 * (b) ed's gradient (Daleckii-Krein) against central differences of ed's action as each
 *     diagonal entry and each bond (re and im) moves, phi held: tolerance the Richardson
 *     estimate |D(d) - D(d/2)| plus the rounding 1e-13 |S| / (d/2);
 * (c) kpm's action against ed's on the same phi: |S_kpm - S_ed| <= bound (S_ed - trace
 *     term) + 1e-12 |S_ed| (P within `bound` of F relative, on a positive form);
 * (d) kpm's gradient against central differences of kpm's own action (a polynomial of H at
 *     fixed scaling), every entry of the smaller Hamiltonians and every 5th of the others,
 *     tolerance as (b);
 * (e) kpm's heat bath: sum_f phi^+ P phi against sum |chi|^2 within (bound_P + 2 bound_Q +
 *     1e-12) relative;
 * (f) the chain rule: the forces on the spinors of factorized double exchange
 *     (mcf_hamiltonian_factors_gradient of the pseudofermion gradient) against central
 *     differences of kpm's action as each spinor component moves;
 * (g) refusals: free bounds, T = 0, no stream for a draw;
 * (h) three chains (other lattices, sizes, T, mu; one flavour count) through one call of the
 *     draw and of the action with its gradient: each chain's numbers as alone (1e-12).
 * With an argument (kpm-cuda, label gpu): its draw, action and gradient held to kpm's within
 * 1e-10 relative; without a device it prints "skipped: no device" and exits 77. */
#include <stdio.h>
#include <time.h>

#include "de_test_hamiltonian.h"
#include "internal.h"
#include "kpm_core.h"
#include "kpm_test_util.h"
#include "test_params.h"

static const mcf_plugin_info *ed_info, *kpm_info, *dev_info;

typedef struct pf {
    size_t dim, slots, n;
    double *re, *im, *gd, *gre, *gim, S, bound;
} pf;

static pf pf_alloc(const mcf_hamiltonian *h, size_t n)
{
    pf p = {.dim = h->dim, .slots = (size_t)h->width * h->dim, .n = n};
    p.re = calloc(n * p.dim, sizeof *p.re);
    p.im = calloc(n * p.dim, sizeof *p.im);
    p.gd = calloc(p.dim, sizeof *p.gd);
    p.gre = calloc(p.slots, sizeof *p.gre);
    p.gim = calloc(p.slots, sizeof *p.gim);
    return p;
}

static void pf_free(pf *p)
{
    free(p->re);
    free(p->im);
    free(p->gd);
    free(p->gre);
    free(p->gim);
}

static size_t flavours(const mcf_plugin_info *e, void *ws, double T, double mu)
{
    mcf_pseudofermion q = {.mode = MCF_PSEUDOFERMION_ACTION};
    const int rc = tev_v2(e)->pseudofermion(tev_batch(), &ws, 1, NULL, &T, &mu, &q);
    CHECK(rc == MCF_OK, "%s flavours: %s", e->name, mcf_last_error());
    return q.flavours;
}

static int draw(const mcf_plugin_info *e, void *ws, mcf_rng *rng, double T, double mu, pf *p)
{
    mcf_pseudofermion q = {.mode = MCF_PSEUDOFERMION_DRAW, .phi_re = &p->re,
                           .phi_im = &p->im, .bound = &p->bound};
    return tev_v2(e)->pseudofermion(tev_batch(), &ws, 1, &rng, &T, &mu, &q);
}

static int action(const mcf_plugin_info *e, void *ws, double T, double mu, pf *p, int grad)
{
    const mcf_density_matrix g = {&p->gd, &p->gre, &p->gim, NULL, NULL, NULL};
    mcf_pseudofermion q = {.mode = MCF_PSEUDOFERMION_ACTION, .phi_re = &p->re,
                           .phi_im = &p->im, .action = &p->S, .grad = grad ? &g : NULL,
                           .bound = &p->bound};
    return tev_v2(e)->pseudofermion(tev_batch(), &ws, 1, NULL, &T, &mu, &q);
}

/* sum |chi|^2 of the draws from stream (seed, stream), in the op's order */
static double chi_norm(uint64_t seed, uint64_t stream, size_t n, size_t dim)
{
    mcf_rng rng;
    mcf_rng_init(&rng, seed, stream);
    double s = 0.0;
    for (size_t q = 0; q < 2 * n * dim; q++) {
        const double x = sqrt(0.5) * mcf_rng_normal(&rng);
        s += x * x;
    }
    return s;
}

/* the trace term Tr(H - mu) / 2T */
static double trace_term(const mcf_hamiltonian *h, double T, double mu)
{
    double t = 0.0;
    for (size_t r = 0; r < h->dim; r++)
        t += h->onsite[r] - mu;
    return t / (2.0 * T);
}

/* ---- central differences of an evaluator's action as one entry of H moves ----------- */

static void move_entry(mcf_hamiltonian *h, size_t s_or_r, int diag, int dir, double x)
{
    if (diag) {
        h->onsite[s_or_r] += x;
    } else {
        const size_t r = s_or_r % h->dim;
        const int32_t c = h->col[s_or_r];
        /* the partner slot (c, r) */
        for (int k = 0; k < h->width; k++) {
            const size_t t = (size_t)k * h->dim + (size_t)c;
            if (h->col[t] == (int32_t)r) {
                if (dir) {
                    h->hop_im[s_or_r] += x;
                    h->hop_im[t] -= x;
                } else {
                    h->hop_re[s_or_r] += x;
                    h->hop_re[t] += x;
                }
                break;
            }
        }
    }
    mcf_hamiltonian_touch_all(h);
}

static double worst_fd;

static void differences(const char *name, const mcf_plugin_info *e, void *ws,
                        mcf_hamiltonian *h, double T, double mu, pf *p, size_t stride)
{
    CHECK(action(e, ws, T, mu, p, 1) == MCF_OK, "%s %s action: %s", name, e->name,
          mcf_last_error());
    const double S0 = p->S;
    double *gd = malloc(p->dim * sizeof *gd), *gre = malloc(p->slots * sizeof *gre);
    double *gim = malloc(p->slots * sizeof *gim);
    memcpy(gd, p->gd, p->dim * sizeof *gd);
    memcpy(gre, p->gre, p->slots * sizeof *gre);
    memcpy(gim, p->gim, p->slots * sizeof *gim);
    const size_t total = p->dim + p->slots;
    for (size_t q = 0; q < total; q += stride) {
        const int diag = q < p->dim;
        const size_t s = diag ? q : q - p->dim;
        if (!diag && h->col[s] < 0)
            continue;
        for (int dir = 0; dir < (diag ? 1 : 2); dir++) {
            double D[2];
            for (int half = 0; half < 2; half++) {
                const double x = half ? 5e-4 : 1e-3;
                double S[2];
                for (int sg = 0; sg < 2; sg++) {
                    move_entry(h, s, diag, dir, sg ? -x : x);
                    CHECK(action(e, ws, T, mu, p, 0) == MCF_OK, "action: %s", mcf_last_error());
                    S[sg] = p->S;
                    move_entry(h, s, diag, dir, sg ? x : -x);
                }
                D[half] = (S[0] - S[1]) / (2 * x);
            }
            /* a bond moved with its partner: dS = 2 Re(conj(G) dH) on the slot */
            const double want = diag ? gd[s] : 2.0 * (dir ? gim[s] : gre[s]);
            const double tol = fabs(D[0] - D[1]) + 1e-13 * (fabs(S0) + 1.0) / 5e-4;
            const double ratio = fabs(D[1] - want) / tol;
            if (ratio > worst_fd)
                worst_fd = ratio;
            CHECK(ratio <= 1.0, "%s %s: entry %zu %s: gradient %.12g, differences %.12g "
                  "(tolerance %.2e)", name, e->name, q, dir ? "im" : "re", want, D[1], tol);
        }
    }
    free(gd);
    free(gre);
    free(gim);
}

/* ---- (f) the chain rule on factorized double exchange ---------------------------------- */

static void factors_case(const mcf_plugin_info *e)
{
    mcf_lattice *lat = NULL;
    mcf_hamiltonian *h = NULL;
    CHECK(mcf_lattice_create(MCF_LATTICE_CUBIC, 3, MCF_BOUNDARY_PERIODIC, &lat) == MCF_OK,
          "lattice: %s", mcf_last_error());
    CHECK(mcf_hamiltonian_create(lat->sites, 1, 6, &h) == MCF_OK, "h: %s", mcf_last_error());
    CHECK(mcf_hamiltonian_factorize(h, lat, -1.0, 2) == MCF_OK, "factorize: %s",
          mcf_last_error());
    mcf_rng rng;
    mcf_rng_init(&rng, 17, 0);
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
    const double T = 0.2, mu = -0.5;
    test_params *tp = test_params_make(e->params, "test", NULL);
    void *ws = test_params_workspace(e, tp, h);
    pf p = pf_alloc(h, flavours(e, ws, T, mu));
    mcf_rng_init(&rng, 18, 0);
    CHECK(draw(e, ws, &rng, T, mu, &p) == MCF_OK, "draw: %s", mcf_last_error());
    CHECK(action(e, ws, T, mu, &p, 1) == MCF_OK, "action: %s", mcf_last_error());
    CHECK(mcf_hamiltonian_factors_gradient(h, p.gre, p.gim, g) == MCF_OK, "gradient: %s",
          mcf_last_error());
    double worst = 0.0;
    for (size_t i = 0; i < h->sites; i += 2)
        for (int c = 0; c < 4; c++) {
            double D[2];
            for (int half = 0; half < 2; half++) {
                const double x = half ? 5e-4 : 1e-3;
                double ai[4], S[2];
                for (int sg = 0; sg < 2; sg++) {
                    memcpy(ai, a + 4 * i, sizeof ai);
                    ai[c] += sg ? -x : x;
                    mcf_hamiltonian_set_field(h, i, ai);
                    CHECK(action(e, ws, T, mu, &p, 0) == MCF_OK, "action: %s",
                          mcf_last_error());
                    S[sg] = p.S;
                }
                mcf_hamiltonian_set_field(h, i, a + 4 * i);
                D[half] = (S[0] - S[1]) / (2 * x);
            }
            const double want = 2.0 * g[4 * i + c];
            const double tol = fabs(D[0] - D[1]) + 1e-13 * (fabs(p.S) + 1.0) / 5e-4;
            const double ratio = fabs(D[1] - want) / tol;
            if (ratio > worst)
                worst = ratio;
            CHECK(ratio <= 1.0, "(f) %s site %zu component %d: force %.12g, differences %.12g "
                  "(tolerance %.2e)", e->name, i, c, want, D[1], tol);
        }
    printf("(f) %s, factorized DE 3^3, %zu flavours: spinor forces, worst |diff|/tol %.3f\n",
           e->name, p.n, worst);
    pf_free(&p);
    tev_destroy(e, ws);
    test_params_free(tp);
    free(a);
    free(g);
    mcf_hamiltonian_destroy(h);
    mcf_lattice_destroy(lat);
}

/* ---- (h) several chains in one call ---------------------------------------------------- */

static mcf_hamiltonian *lattice_h(mcf_lattice_kind kind, long L, double scale, int gaussian,
                                  uint64_t seed);

/* the largest difference of the draw, action and gradient of a's and b's, relative */
static double pf_gap(const pf *a, const pf *b)
{
    double d = fabs(a->S - b->S) / fabs(b->S), big = 0.0, g = 0.0;
    for (size_t q = 0; q < a->n * a->dim; q++) {
        big = fmax(big, fabs(b->re[q]) + fabs(b->im[q]));
        g = fmax(g, fabs(a->re[q] - b->re[q]) + fabs(a->im[q] - b->im[q]));
    }
    d = fmax(d, g / big);
    big = g = 0.0;
    for (size_t q = 0; q < a->dim; q++) {
        big = fmax(big, fabs(b->gd[q]));
        g = fmax(g, fabs(a->gd[q] - b->gd[q]));
    }
    for (size_t q = 0; q < a->slots; q++) {
        big = fmax(big, hypot(b->gre[q], b->gim[q]));
        g = fmax(g, hypot(a->gre[q] - b->gre[q], a->gim[q] - b->gim[q]));
    }
    return fmax(d, g / big);
}

/* (h) three chains of other sizes, lattices and T (one flavour count) through one call of
 * the draw and of the action with its gradient, against each chain's calls alone: the same
 * numbers (a device's batch is one launch where the chains alone take the launches per
 * order: the same products in the same order, 1e-12 relative for contracted FMAs) */
static void batch_case(const mcf_plugin_info *e, test_params *tp)
{
    mcf_hamiltonian *hs[3] = {lattice_h(MCF_LATTICE_CUBIC, 4, 4.0, 0, 7),
                              lattice_h(MCF_LATTICE_SQUARE, 6, 1.0, 1, 8),
                              lattice_h(MCF_LATTICE_CUBIC, 3, 2.0, 0, 9)};
    const double mu[3] = {0.5, 0.2, -0.3};
    double T[3]; /* max |E - mu| / 2T = 17 to 18: 3 flavours each */
    for (int k = 0; k < 3; k++)
        T[k] = fmax(fabs(hs[k]->emin - mu[k]), fabs(hs[k]->emax - mu[k])) /
               (2.0 * (17.0 + 0.5 * k));
    void *ws[3];
    pf one[3], all[3];
    size_t n = 0;
    for (int k = 0; k < 3; k++) {
        ws[k] = test_params_workspace(e, tp, hs[k]);
        const size_t f = flavours(e, ws[k], T[k], mu[k]);
        CHECK(!k || f == n, "(h) chain %d takes %zu flavours, chain 0 %zu", k, f, n);
        n = f;
    }
    mcf_rng rng[3], *rp[3];
    double S[3];
    for (int k = 0; k < 3; k++) {
        one[k] = pf_alloc(hs[k], n);
        all[k] = pf_alloc(hs[k], n);
        mcf_rng_init(&rng[k], 70, (uint64_t)k);
        CHECK(draw(e, ws[k], &rng[k], T[k], mu[k], &one[k]) == MCF_OK &&
                  action(e, ws[k], T[k], mu[k], &one[k], 1) == MCF_OK,
              "(h) %s alone: %s", e->name, mcf_last_error());
        mcf_rng_init(&rng[k], 70, (uint64_t)k);
        rp[k] = &rng[k];
    }
    double *re[3] = {all[0].re, all[1].re, all[2].re}, *im[3] = {all[0].im, all[1].im, all[2].im};
    double *gd[3] = {all[0].gd, all[1].gd, all[2].gd};
    double *gre[3] = {all[0].gre, all[1].gre, all[2].gre};
    double *gim[3] = {all[0].gim, all[1].gim, all[2].gim};
    const mcf_density_matrix g = {gd, gre, gim, NULL, NULL, NULL};
    mcf_pseudofermion qd = {.mode = MCF_PSEUDOFERMION_DRAW, .phi_re = re, .phi_im = im};
    mcf_pseudofermion qa = {.mode = MCF_PSEUDOFERMION_ACTION, .phi_re = re, .phi_im = im,
                            .action = S, .grad = &g};
    CHECK(tev_v2(e)->pseudofermion(tev_batch(), ws, 3, rp, T, mu, &qd) == MCF_OK &&
              tev_v2(e)->pseudofermion(tev_batch(), ws, 3, NULL, T, mu, &qa) == MCF_OK,
          "(h) %s, 3 chains: %s", e->name, mcf_last_error());
    double worst = 0.0;
    for (int k = 0; k < 3; k++) {
        all[k].S = S[k];
        worst = fmax(worst, pf_gap(&all[k], &one[k]));
    }
    CHECK(worst <= 1e-12, "(h) %s: 3 chains in one call differ from each alone by %.2e",
          e->name, worst);
    printf("(h) %s: 3 chains (%zu flavours) in one call against each alone: %.1e\n", e->name,
           n, worst);
    for (int k = 0; k < 3; k++) {
        pf_free(&one[k]);
        pf_free(&all[k]);
        tev_destroy(e, ws[k]);
        mcf_hamiltonian_destroy(hs[k]);
    }
}

/* ---- main ------------------------------------------------------------------------------ */

static mcf_hamiltonian *lattice_h(mcf_lattice_kind kind, long L, double scale, int gaussian,
                                  uint64_t seed)
{
    mcf_lattice *lat = NULL;
    mcf_hamiltonian *h = NULL;
    CHECK(mcf_lattice_create(kind, L, MCF_BOUNDARY_PERIODIC, &lat) == MCF_OK, "lattice: %s",
          mcf_last_error());
    CHECK(mcf_hamiltonian_create(lat->sites, 1, lat->coordination, &h) == MCF_OK, "h: %s",
          mcf_last_error());
    CHECK(mcf_hamiltonian_set_hopping(h, lat, 1.0) == MCF_OK, "hop: %s", mcf_last_error());
    mcf_rng rng;
    mcf_rng_init(&rng, seed, 0);
    for (size_t r = 0; r < h->dim; r++)
        mcf_hamiltonian_set_onsite(h, r, scale * (gaussian ? mcf_rng_normal(&rng)
                                                           : mcf_rng_uniform(&rng) - 0.5));
    double lo, hi;
    mcf_hamiltonian_bounds(h, &lo, &hi);
    mcf_hamiltonian_fix_bounds(h, lo, hi);
    mcf_lattice_destroy(lat);
    return h;
}

static const mcf_plugin_info *open_evaluator(const char *name, mcf_plugin **p)
{
    int rc = mcfe_plugin_open(name, MCF_PLUGIN_FERMION_EVALUATOR, p);
    CHECK(rc == MCF_OK, "loading %s: %s", name, mcf_last_error());
    if (rc)
        return NULL;
    CHECK(mcf_fermion_provides((*p)->info) & MCF_PROVIDES_PSEUDOFERMION,
          "%s does not provide pseudofermion", name);
    return (*p)->info;
}

static void close_to(const char *what, double got, double want, double tol)
{
    CHECK(fabs(got - want) <= tol, "%s: %.15g against %.15g (tolerance %.2e)", what, got, want,
          tol);
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
        if (!(dev_info = open_evaluator(argv[1], &pd)))
            return check_exit();
        char why[512] = "";
        if (dev_info->probe && !dev_info->probe(why, sizeof why)) {
            printf("skipped: no device (%s)\n", why);
            return 77;
        }
    }
    de_lattice d1 = de_random_lattice(3, 0.0, 1), d2 = de_random_lattice(3, 2.0, 2);
    struct {
        const char *name;
        mcf_hamiltonian *h;
        double mu;
        size_t stride;
    } hc[4] = {
        {"DE (J_H infinite, 3^3)", de_build(&d1), -1.0, 1},
        {"DE (J_H = 2, 3^3)", de_build(&d2), -2.5, 5},
        {"Holstein-like 4x4", lattice_h(MCF_LATTICE_SQUARE, 4, 0.8, 1, 3), 0.2, 1},
        {"Anderson 4^3 (W = 4)", lattice_h(MCF_LATTICE_CUBIC, 4, 4.0, 0, 4), 0.5, 5},
    };
    const double Ts[2] = {0.3, 0.1};
    test_params *te = test_params_make(ed_info->params, "test", NULL);
    test_params *tk = test_params_make(kpm_info->params, "test", NULL);
    test_params *td = dev_info ? test_params_make(dev_info->params, "test", NULL) : NULL;
    double worst_c = 0.0, worst_e = 0.0;
    for (int c = 0; c < 4; c++)
        for (int t = 0; t < 2; t++) {
            const double T = Ts[t], mu = hc[c].mu;
            mcf_hamiltonian *h = hc[c].h;
            void *we = test_params_workspace(ed_info, te, h);
            void *wk = test_params_workspace(kpm_info, tk, h);
            const size_t n = flavours(ed_info, we, T, mu);
            CHECK(n == flavours(kpm_info, wk, T, mu), "ed and kpm take other flavours");
            pf pe_ = pf_alloc(h, n), pk_ = pf_alloc(h, n);
            mcf_rng rng;
            /* (a) ed's heat bath */
            mcf_rng_init(&rng, 40 + (uint64_t)c, (uint64_t)t);
            CHECK(draw(ed_info, we, &rng, T, mu, &pe_) == MCF_OK, "ed draw: %s",
                  mcf_last_error());
            CHECK(action(ed_info, we, T, mu, &pe_, 1) == MCF_OK, "ed action: %s",
                  mcf_last_error());
            const double chi2 = chi_norm(40 + (uint64_t)c, (uint64_t)t, n, h->dim);
            const double form_e = pe_.S - trace_term(h, T, mu);
            close_to("(a) ed: phi^+ F phi against |chi|^2", form_e, chi2, 1e-12 * chi2);
            /* (c) kpm's action on ed's phi */
            memcpy(pk_.re, pe_.re, n * h->dim * sizeof(double));
            memcpy(pk_.im, pe_.im, n * h->dim * sizeof(double));
            CHECK(action(kpm_info, wk, T, mu, &pk_, 0) == MCF_OK, "kpm action: %s",
                  mcf_last_error());
            const double tol_c = pk_.bound * form_e + 1e-12 * fabs(pe_.S);
            const double rc_ = fabs(pk_.S - pe_.S) / tol_c;
            if (rc_ > worst_c)
                worst_c = rc_;
            close_to("(c) kpm's action against ed's", pk_.S, pe_.S, tol_c);
            /* (e) kpm's heat bath */
            mcf_rng_init(&rng, 50 + (uint64_t)c, (uint64_t)t);
            CHECK(draw(kpm_info, wk, &rng, T, mu, &pk_) == MCF_OK, "kpm draw: %s",
                  mcf_last_error());
            const double bq = pk_.bound;
            CHECK(action(kpm_info, wk, T, mu, &pk_, 0) == MCF_OK, "kpm action: %s",
                  mcf_last_error());
            const double chi2k = chi_norm(50 + (uint64_t)c, (uint64_t)t, n, h->dim);
            const double tol_e = (pk_.bound + 2.0 * bq + 1e-12) * chi2k;
            const double re_ = fabs(pk_.S - trace_term(h, T, mu) - chi2k) / tol_e;
            if (re_ > worst_e)
                worst_e = re_;
            close_to("(e) kpm: phi^+ P phi against |chi|^2", pk_.S - trace_term(h, T, mu),
                     chi2k, tol_e);
            printf("%s, T = %g: %zu flavours, kpm's bounds: action %.1e, heat bath %.1e\n",
                   hc[c].name, T, n, pk_.bound, bq);
            /* (b), (d): gradients against differences (ed's phi for both) */
            if (t == 0) {
                differences(hc[c].name, ed_info, we, h, T, mu, &pe_, hc[c].stride);
                memcpy(pk_.re, pe_.re, n * h->dim * sizeof(double));
                memcpy(pk_.im, pe_.im, n * h->dim * sizeof(double));
                differences(hc[c].name, kpm_info, wk, h, T, mu, &pk_, hc[c].stride);
            }
            if (dev_info) {
                void *wd = test_params_workspace(dev_info, td, h);
                pf pd_ = pf_alloc(h, n);
                mcf_rng_init(&rng, 60, 0);
                CHECK(draw(dev_info, wd, &rng, T, mu, &pd_) == MCF_OK, "device draw: %s",
                      mcf_last_error());
                mcf_rng_init(&rng, 60, 0);
                CHECK(draw(kpm_info, wk, &rng, T, mu, &pk_) == MCF_OK, "draw: %s",
                      mcf_last_error());
                double dmax = 0.0, pmax = 0.0;
                for (size_t q = 0; q < n * h->dim; q++) {
                    dmax = fmax(dmax, fabs(pd_.re[q] - pk_.re[q]) + fabs(pd_.im[q] - pk_.im[q]));
                    pmax = fmax(pmax, fabs(pk_.re[q]) + fabs(pk_.im[q]));
                }
                CHECK(dmax <= 1e-10 * pmax, "%s draw differs from kpm's by %.2e", dev_info->name,
                      dmax);
                CHECK(action(dev_info, wd, T, mu, &pd_, 1) == MCF_OK, "device action: %s",
                      mcf_last_error());
                CHECK(action(kpm_info, wk, T, mu, &pk_, 1) == MCF_OK, "action: %s",
                      mcf_last_error());
                close_to("the device's action against kpm's", pd_.S, pk_.S, 1e-10 * fabs(pk_.S));
                double gmax = 0.0, gdiff = 0.0;
                for (size_t q = 0; q < h->dim; q++) {
                    gmax = fmax(gmax, fabs(pk_.gd[q]));
                    gdiff = fmax(gdiff, fabs(pd_.gd[q] - pk_.gd[q]));
                }
                for (size_t q = 0; q < pk_.slots; q++) {
                    gmax = fmax(gmax, hypot(pk_.gre[q], pk_.gim[q]));
                    gdiff = fmax(gdiff, hypot(pd_.gre[q] - pk_.gre[q], pd_.gim[q] - pk_.gim[q]));
                }
                CHECK(gdiff <= 1e-10 * gmax, "%s gradient differs from kpm's by %.2e of %.2e",
                      dev_info->name, gdiff, gmax);
                pf_free(&pd_);
                tev_destroy(dev_info, wd);
            }
            pf_free(&pe_);
            pf_free(&pk_);
            tev_destroy(ed_info, we);
            tev_destroy(kpm_info, wk);
        }
    printf("(b), (d) gradients against differences: worst |diff|/tol %.3f\n", worst_fd);
    printf("(c) kpm's action against ed's: worst |diff|/tol %.3f; (e) heat bath %.3f\n", worst_c,
           worst_e);
    factors_case(kpm_info);
    batch_case(kpm_info, tk);
    if (dev_info) {
        factors_case(dev_info);
        batch_case(dev_info, td);
    }
    /* (g) refusals */
    {
        mcf_hamiltonian *h = NULL;
        mcf_rng rng;
        mcf_rng_init(&rng, 1, 1);
        mcf_hamiltonian_create(8, 1, 2, &h);
        for (size_t r = 0; r < 8; r++)
            mcf_hamiltonian_set(h, r, (r + 1) % 8, -1.0, 0.0);
        const mcf_plugin_info *es[2] = {ed_info, kpm_info};
        test_params *ts[2] = {te, tk};
        for (int q = 0; q < 2; q++) {
            void *ws = test_params_workspace(es[q], ts[q], h);
            pf p = pf_alloc(h, 8);
            CHECK(draw(es[q], ws, &rng, 0.3, 0.0, &p) == MCF_EINVAL &&
                      strstr(mcf_last_error(), "fix_bounds"),
                  "(g) %s: free bounds accepted (%s)", es[q]->name, mcf_last_error());
            mcf_hamiltonian_fix_bounds(h, -2.0, 2.0);
            CHECK(draw(es[q], ws, &rng, 0.0, 0.0, &p) == MCF_EINVAL, "(g) %s: T = 0 accepted",
                  es[q]->name);
            CHECK(draw(es[q], ws, NULL, 0.3, 0.0, &p) == MCF_EINVAL,
                  "(g) %s: a draw without a stream accepted", es[q]->name);
            pf_free(&p);
            tev_destroy(es[q], ws);
            mcf_hamiltonian_destroy(h);
            h = NULL;
            mcf_hamiltonian_create(8, 1, 2, &h);
            for (size_t r = 0; r < 8; r++)
                mcf_hamiltonian_set(h, r, (r + 1) % 8, -1.0, 0.0);
        }
        mcf_hamiltonian_destroy(h);
    }
    for (int c = 0; c < 4; c++)
        mcf_hamiltonian_destroy(hc[c].h);
    free(d1.s);
    free(d2.s);
    test_params_free(te);
    test_params_free(tk);
    test_params_free(td);
    tev_batch_release();
    printf("%.1f s\n", (double)(clock() - t0) / CLOCKS_PER_SEC);
    return check_exit();
}
