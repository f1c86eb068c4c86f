/* test_periodic.c — mcf/periodic.h: a cell built bond by bond, its Bloch Hamiltonian
 * against closed forms, and the refusals (non-Hermitian lists, bad orbitals and offsets,
 * dependent lattice vectors, sticky builder errors). */
#include "check.h"

#include "mcf/error.h"
#include "mcf/periodic.h"

#include <math.h>
#include <string.h>

static const double pi = 3.14159265358979323846;

/* simple cubic, one orbital: H(k) = -2 t sum_d cos(2 pi k_d) + eps */
static void test_simple_cubic(void)
{
    mcf_cell *c = NULL;
    CHECK(mcf_cell_create(&c) == MCF_OK, "create: %s", mcf_last_error());
    const double a[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    const double t = 0.75, eps = -0.3;
    CHECK(mcf_cell_view(c) == NULL, "no view before the shape");
    mcf_cell_shape(c, 3, 1, 1, a);
    mcf_cell_bond(c, 1, 0, 0, 0, 0, -t, 0);
    mcf_cell_bond(c, 0, 1, 0, 0, 0, -t, 0);
    mcf_cell_bond(c, 0, 0, 1, 0, 0, -t, 0);
    mcf_cell_onsite(c, 0, eps);
    CHECK(mcf_cell_status(c) == MCF_OK, "built: %s", mcf_last_error());
    const mcf_periodic *p = mcf_cell_view(c);
    CHECK(p && p->n_hoppings == 7, "7 terms (3 bonds, their conjugates, 1 on-site): %zu",
          p ? p->n_hoppings : 0);
    CHECK(mcf_periodic_check(p, "sc") == MCF_OK, "check: %s", mcf_last_error());
    const double ks[4][3] = {{0, 0, 0}, {0.5, 0.5, 0.5}, {0.1, 0.27, 0.9}, {0.25, 0, 0.5}};
    for (int i = 0; i < 4; i++) {
        double hk[2];
        mcf_periodic_hk(p, ks[i], hk);
        double want = eps;
        for (int d = 0; d < 3; d++)
            want += -2 * t * cos(2 * pi * ks[i][d]);
        CHECK(fabs(hk[0] - want) <= 1e-14 && fabs(hk[1]) <= 1e-14,
              "H(%g, %g, %g) = %.17g%+gi, want %.17g", ks[i][0], ks[i][1], ks[i][2], hk[0],
              hk[1], want);
    }
    mcf_cell_destroy(c);
}

/* A two-orbital chain with a complex hopping between cells (a Peierls phase): bond 1
 * <1, 0|H|0, 0> = w inside the cell, bond 2 <0, R = 1|H|1, 0> = u to the next cell, so
 * H(k)_01 = w + u e^{iq} (q = 2 pi k: the conjugate of bond 1 and bond 2 itself), H_10 its
 * conjugate, the diagonal the on-site energies. */
static void test_two_orbitals(void)
{
    mcf_cell *c = NULL;
    mcf_cell_create(&c);
    const double a[3] = {2, 0, 0};
    const double w = 0.8, ure = 0.3, uim = -0.45, e0 = 0.2, e1 = -0.6;
    mcf_cell_shape(c, 1, 2, 2, a);
    mcf_cell_bond(c, 0, 0, 0, 1, 0, w, 0);       /* <1,0|H|0,0> = w */
    mcf_cell_bond(c, 1, 0, 0, 0, 1, ure, uim);   /* <0,R=1|H|1,0> = u */
    mcf_cell_onsite(c, 0, e0);
    mcf_cell_onsite(c, 1, e1);
    const mcf_periodic *p = mcf_cell_view(c);
    CHECK(mcf_cell_status(c) == MCF_OK && mcf_periodic_check(p, "chain") == MCF_OK,
          "two orbitals: %s", mcf_last_error());
    for (double k = 0; k < 1; k += 0.125) {
        double hk[8];
        mcf_periodic_hk(p, &k, hk);
        /* H_01 = <0|H|1>: from the conjugate of the first bond (w) and from the second
           bond with R = 1: u e^{2 pi i k} */
        const double q = 2 * pi * k;
        const double h01re = w + ure * cos(q) - uim * sin(q);
        const double h01im = ure * sin(q) + uim * cos(q);
        CHECK(fabs(hk[0] - e0) < 1e-15 && fabs(hk[6] - e1) < 1e-15 && fabs(hk[1]) < 1e-15,
              "diagonal at k = %g", k);
        CHECK(fabs(hk[2] - h01re) < 1e-14 && fabs(hk[3] - h01im) < 1e-14,
              "H_01(%g) = %g%+gi, want %g%+gi", k, hk[2], hk[3], h01re, h01im);
        CHECK(fabs(hk[4] - hk[2]) < 1e-14 && fabs(hk[5] + hk[3]) < 1e-14,
              "H_10 = conj(H_01) at k = %g", k);
    }
    mcf_cell_destroy(c);
}

static int refused(int rc, const char *needle)
{
    return rc == MCF_EINVAL && strstr(mcf_last_error(), needle) != NULL;
}

static void test_refusals(void)
{
    /* a raw list without the conjugate of one term */
    mcf_cell_hopping h[3] = {{{1, 0, 0}, 0, 0, -1, 0}, {{-1, 0, 0}, 0, 0, -1, 0},
                             {{0, 1, 0}, 0, 0, -1, 0}};
    mcf_periodic p = {3, 1, 1, {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}, 3, h};
    CHECK(refused(mcf_periodic_check(&p, "raw"), "hopping 2"),
          "one-way hopping refused, naming it: %s", mcf_last_error());
    /* two halves of one conjugate pair given as separate terms add up: accepted */
    mcf_cell_hopping h2[4] = {{{0, 1, 0}, 0, 0, -0.5, 0.1}, {{0, 1, 0}, 0, 0, -0.5, -0.1},
                              {{0, -1, 0}, 0, 0, -1, 0}, {{1, 0, 0}, 0, 0, 0, 0}};
    mcf_periodic p2 = {3, 1, 1, {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}, 3, h2};
    CHECK(mcf_periodic_check(&p2, "sums") == MCF_OK, "terms add up before the check: %s",
          mcf_last_error());
    p2.n_hoppings = 4; /* a zero term without partner is fine */
    CHECK(mcf_periodic_check(&p2, "zero") == MCF_OK, "a zero term: %s", mcf_last_error());
    mcf_periodic p3 = p;
    p3.lattice[2][0] = 1;
    p3.lattice[2][1] = 1;
    p3.lattice[2][2] = 0;
    CHECK(refused(mcf_periodic_check(&p3, "flat"), "linearly dependent"),
          "dependent lattice vectors: %s", mcf_last_error());
    mcf_cell_hopping h4[1] = {{{0, 0, 1}, 0, 0, -1, 0}};
    mcf_periodic p4 = {2, 1, 1, {{1, 0, 0}, {0, 1, 0}}, 1, h4};
    CHECK(refused(mcf_periodic_check(&p4, "2d"), "periodic in 2"),
          "an offset beyond dims: %s", mcf_last_error());

    mcf_cell *c = NULL;
    mcf_cell_create(&c);
    const double a[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    CHECK(refused(mcf_cell_bond(c, 1, 0, 0, 0, 0, -1, 0), "before mcf_cell_shape"),
          "a bond before the shape: %s", mcf_last_error());
    CHECK(refused(mcf_cell_shape(c, 3, 1, 1, a), "before mcf_cell_shape"),
          "the first error sticks: %s", mcf_last_error());
    mcf_cell_destroy(c);
    mcf_cell_create(&c);
    mcf_cell_shape(c, 3, 2, 1, a);
    CHECK(refused(mcf_cell_bond(c, 0, 0, 0, 1, 1, 0.5, 0), "mcf_cell_onsite"),
          "an on-site term as a bond: %s", mcf_last_error());
    CHECK(mcf_cell_status(c) == MCF_EINVAL, "status keeps it");
    mcf_cell_destroy(c);
    mcf_cell_create(&c);
    mcf_cell_shape(c, 3, 2, 1, a);
    CHECK(refused(mcf_cell_bond(c, 0, 0, 1, 2, 0, -1, 0), "the cell has 2"),
          "orbital out of range: %s", mcf_last_error());
    mcf_cell_destroy(c);
    mcf_cell_create(&c);
    mcf_cell_shape(c, 1, 1, 1, a);
    CHECK(refused(mcf_cell_bond(c, 1, 1, 0, 0, 0, -1, 0), "periodic in 1"),
          "offset beyond dims: %s", mcf_last_error());
    mcf_cell_destroy(c);
    mcf_cell_create(&c);
    mcf_cell_shape(c, 1, 1, 1, a);
    CHECK(refused(mcf_cell_onsite(c, 0, NAN), "not finite"), "NaN: %s", mcf_last_error());
    mcf_cell_destroy(c);
}

/* mcf_cell_lattice: the 2 x 2 x 2 supercell of the simple cubic lattice (8 sites, at Gamma
 * the eigenvalues -2t sum_d cos K_d for K_d in {0, pi}: -6t, -2t three times, 2t three
 * times, 6t), the neel-g cell (fcc vectors, 2 sites; with on-site +-D its bands at K are
 * +-sqrt(eps_K^2 + D^2)), the site order, and a non-Hermitian on-site block refused. */
typedef struct cdw_ctx {
    double t, D;
    int calls_onsite, calls_hop;
} cdw_ctx;

static void cdw_onsite(void *ctx, const int r[3], double *block)
{
    cdw_ctx *c = ctx;
    c->calls_onsite++;
    block[0] = ((r[0] + r[1] + r[2]) & 1) ? -c->D : c->D;
}

static void cdw_hop(void *ctx, const int r[3], unsigned d, double *block)
{
    cdw_ctx *c = ctx;
    (void)r;
    (void)d;
    c->calls_hop++;
    block[0] = -c->t;
}

static void bad_onsite(void *ctx, const int r[3], double *block)
{
    (void)ctx;
    (void)r;
    block[2] = 1.0; /* <0|H|1> = 1 but <1|H|0> = 0 */
}

static void test_lattice_cells(void)
{
    cdw_ctx cx = {0.9, 0.0, 0, 0};
    mcf_cell *c = NULL;
    mcf_cell_create(&c);
    const int cube2[9] = {2, 0, 0, 0, 2, 0, 0, 0, 2};
    CHECK(mcf_cell_lattice(c, 3, cube2, 1, NULL, cdw_hop, &cx) == MCF_OK, "2x2x2: %s",
          mcf_last_error());
    const mcf_periodic *p = mcf_cell_view(c);
    CHECK(p && p->orbitals == 8 && p->sites == 8 && cx.calls_hop == 24,
          "2x2x2: 8 sites, 24 bonds asked (%u, %d)", p ? p->orbitals : 0, cx.calls_hop);
    if (p && p->orbitals == 8) {
        CHECK(mcf_periodic_check(p, "2x2x2") == MCF_OK, "check: %s", mcf_last_error());
        /* at Gamma H is real symmetric: compare its trace of H^2 and its diagonal (0) with
           the folded band, sum eps^2 = 8 (2t)^2 * 3 / 2 ... computed from the closed form */
        double hk[2 * 64], k0[3] = {0, 0, 0};
        mcf_periodic_hk(p, k0, hk);
        double tr2 = 0, want2 = 0;
        for (int i = 0; i < 64; i++)
            tr2 += hk[2 * i] * hk[2 * i] + hk[2 * i + 1] * hk[2 * i + 1];
        for (int m = 0; m < 8; m++) {
            double e = 0;
            for (int d = 0; d < 3; d++)
                e += -2 * cx.t * cos(pi * ((m >> d) & 1));
            want2 += e * e;
        }
        CHECK(fabs(tr2 - want2) < 1e-12, "2x2x2 at Gamma: Tr H^2 = %.15g, sum of the folded "
              "eps_K^2 = %.15g", tr2, want2);
    }
    mcf_cell_destroy(c);

    cdw_ctx cd = {0.9, 0.4, 0, 0};
    mcf_cell_create(&c);
    const int fcc[9] = {1, 1, 0, 1, 0, 1, 0, 1, 1};
    CHECK(mcf_cell_lattice(c, 3, fcc, 1, cdw_onsite, cdw_hop, &cd) == MCF_OK, "fcc cell: %s",
          mcf_last_error());
    p = mcf_cell_view(c);
    CHECK(p && p->orbitals == 2 && cd.calls_onsite == 2 && cd.calls_hop == 6,
          "neel-g cell: 2 sites, 2 on-site and 6 bond calls");
    if (p && p->orbitals == 2) {
        CHECK(mcf_periodic_check(p, "cdw") == MCF_OK, "check: %s", mcf_last_error());
        double worst = 0;
        for (int s = 0; s < 30; s++) {
            const double K[3] = {0.37 * s, 1.3 - 0.21 * s, 0.5 + 0.11 * s * s};
            double k[3];
            for (int i = 0; i < 3; i++)
                k[i] = (K[0] * fcc[3 * i] + K[1] * fcc[3 * i + 1] + K[2] * fcc[3 * i + 2]) /
                       (2 * pi);
            double hk[8];
            mcf_periodic_hk(p, k, hk);
            /* 2 x 2 Hermitian: eigenvalues m +- sqrt(((h00 - h11)/2)^2 + |h01|^2) */
            const double m = 0.5 * (hk[0] + hk[6]), h = 0.5 * (hk[0] - hk[6]);
            const double r = sqrt(h * h + hk[2] * hk[2] + hk[3] * hk[3]);
            const double eps = -2 * cd.t * (cos(K[0]) + cos(K[1]) + cos(K[2]));
            const double want = sqrt(eps * eps + cd.D * cd.D);
            worst = fmax(worst, fabs(m - r + want) + fabs(m + r - want));
        }
        CHECK(worst < 1e-12, "checkerboard CDW: bands +-sqrt(eps^2 + D^2), largest "
              "difference %.3g", worst);
    }
    mcf_cell_destroy(c);

    mcf_cell_create(&c);
    const int one[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    CHECK(refused(mcf_cell_lattice(c, 3, one, 2, bad_onsite, NULL, NULL), "not Hermitian"),
          "a non-Hermitian on-site block: %s", mcf_last_error());
    mcf_cell_destroy(c);
    mcf_cell_create(&c);
    const int flat[9] = {1, 1, 0, 2, 2, 0, 0, 0, 1};
    CHECK(refused(mcf_cell_lattice(c, 3, flat, 1, NULL, cdw_hop, &cx), "span 0 sites"),
          "dependent cell vectors: %s", mcf_last_error());
    mcf_cell_destroy(c);
}

int main(void)
{
    test_simple_cubic();
    test_two_orbitals();
    test_refusals();
    test_lattice_cells();
    return check_exit();
}
