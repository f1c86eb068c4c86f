/* test_de_periodic.c — the ideal states of the double-exchange model as crystals (the
 * model's periodic op, through the core's plugin loader) against their band structures in
 * closed form, at random wave vectors K (Cartesian, lattice constant 1; the reduced k of a
 * cell with lattice vectors a_i is k_i = K.a_i / 2 pi).  t = 0.7 (not 1, so that a missing
 * factor t shows), J_H = 2.3 where finite.
 *
 *   ferro        hund = inf: eps = -2t sum_d cos K_d;  J_H: eps -+ J_H.
 *   neel-g       hund = inf: the spinors of antiparallel spins are orthogonal, every
 *                hopping vanishes: two flat bands at 0.
 *   canted:TH    hund = inf, two sublattices with <chi_B|chi_A> = cos(TH/2):
 *                eps = +-2t cos(TH/2) |sum_d cos K_d| (the neel-g cell folds the band).
 *   neel-a/c     hund = inf: the ferromagnetic planes (chains) decouple:
 *                -2t (cos K_x + cos K_y) (neel-a), -2t cos K_z (neel-c), each twice.
 *   spiral:Q     hund = inf: eps = -2t sum_d cos(D_d / 2) cos(K_d - D_d / 2), D = 2 pi Q;
 *                J_H: the 2 x 2 [[e_up, -J_H], [-J_H, e_dn]], e_up/dn = -2t sum_d
 *                cos(K_d +- D_d / 2), in the frame that rotates with the spins.
 *   canted, large J_H: the lower bands + J_H approach the hund = inf bands within t^2 / J_H.
 * Every description passes mcf_periodic_check; eigenvalues agree to 1e-12.  Refusals name
 * the state and list the known ones. */
#include "bands_check.h"

static const double t = 0.7, J = 2.3;

static double sum_cos(const double K[3], int dims)
{
    double s = 0;
    for (int d = 0; d < dims; d++)
        s += cos(K[d]);
    return s;
}

static void ferro_inf(const double K[3], const double *arg, double *o)
{
    o[0] = -2 * t * sum_cos(K, (int)arg[0]);
}
static void ferro_J(const double K[3], const double *arg, double *o)
{
    o[0] = -2 * t * sum_cos(K, (int)arg[0]) - J;
    o[1] = o[0] + 2 * J;
}
static void flat(const double K[3], const double *arg, double *o)
{
    (void)K;
    (void)arg;
    o[0] = o[1] = 0;
}
static void canted_inf(const double K[3], const double *arg, double *o)
{
    const double e = 2 * t * cos(0.5 * arg[1] * pi / 180) * fabs(sum_cos(K, (int)arg[0]));
    o[0] = -e;
    o[1] = e;
}
static void neel_a(const double K[3], const double *arg, double *o)
{
    (void)arg;
    o[0] = o[1] = -2 * t * (cos(K[0]) + cos(K[1]));
}
static void neel_c(const double K[3], const double *arg, double *o)
{
    (void)arg;
    o[0] = o[1] = -2 * t * cos(K[2]);
}
static void spiral_inf(const double K[3], const double *arg, double *o)
{
    o[0] = 0;
    for (int d = 0; d < (int)arg[0]; d++) {
        const double D = 2 * pi * arg[1 + d];
        o[0] += -2 * t * cos(0.5 * D) * cos(K[d] - 0.5 * D);
    }
}
static void spiral_J(const double K[3], const double *arg, double *o)
{
    double up = 0, dn = 0;
    for (int d = 0; d < (int)arg[0]; d++) {
        const double D = 2 * pi * arg[1 + d];
        up += -2 * t * cos(K[d] + 0.5 * D);
        dn += -2 * t * cos(K[d] - 0.5 * D);
    }
    const double m = 0.5 * (up + dn), r = hypot(0.5 * (up - dn), J);
    o[0] = m - r;
    o[1] = m + r;
}

static void test_states(void)
{
    const double cubic[1] = {3}, square[1] = {2};
    compare("ferro, cubic", describe("ferro", "t", "0.7", NULL), 1, ferro_inf, cubic);
    compare("ferro, square", describe("ferro", "t", "0.7", "lattice", "square", NULL), 1,
            ferro_inf, square);
    compare("ferro, J_H = 2.3", describe("ferro", "t", "0.7", "hund", "2.3", NULL), 2, ferro_J,
            cubic);
    compare("neel-g, cubic", describe("neel-g", "t", "0.7", NULL), 2, flat, cubic);
    compare("neel-g, square", describe("neel-g", "t", "0.7", "lattice", "square", NULL), 2,
            flat, square);
    const double c60[2] = {3, 60}, c135[2] = {2, 135}, c0[2] = {3, 0};
    compare("canted:60, cubic", describe("canted:60", "t", "0.7", NULL), 2, canted_inf, c60);
    compare("canted:135, square",
            describe("canted:135", "t", "0.7", "lattice", "square", NULL), 2, canted_inf, c135);
    compare("canted:0 (ferro, folded)", describe("canted:0", "t", "0.7", NULL), 2, canted_inf,
            c0);
    compare("neel-a", describe("neel-a", "t", "0.7", NULL), 2, neel_a, cubic);
    compare("neel-c", describe("neel-c", "t", "0.7", NULL), 2, neel_c, cubic);
    const double q3[4] = {3, 0.1, 0.25, 0.4}, q2[3] = {2, 0.3, 0.05};
    compare("spiral:0.1,0.25,0.4", describe("spiral:0.1,0.25,0.4", "t", "0.7", NULL), 1,
            spiral_inf, q3);
    compare("spiral:0.3,0.05, square",
            describe("spiral:0.3,0.05", "t", "0.7", "lattice", "square", NULL), 1, spiral_inf,
            q2);
    compare("spiral, J_H = 2.3",
            describe("spiral:0.1,0.25,0.4", "t", "0.7", "hund", "2.3", NULL), 2, spiral_J, q3);
    /* spiral:0.5,0.5,0.5 has neel-g's spins: hund = inf gives a flat band at 0 */
    const double qg[4] = {3, 0.5, 0.5, 0.5};
    compare("spiral:0.5,0.5,0.5", describe("spiral:0.5,0.5,0.5", "t", "0.7", NULL), 1,
            spiral_inf, qg);
}

/* canted at large J_H: the two lower bands + J_H against the hund = inf bands */
static void test_large_hund(void)
{
    mcf_cell *ci = describe("canted:70", "t", "0.7", NULL);
    mcf_cell *cj = describe("canted:70", "t", "0.7", "hund", "700", NULL);
    const mcf_periodic *pi_ = ci ? mcf_cell_view(ci) : NULL, *pj = cj ? mcf_cell_view(cj) : NULL;
    CHECK(pi_ && pj && pj->orbitals == 4, "canted:70 at hund = inf and 700");
    if (pi_ && pj && pj->orbitals == 4) {
        double worst = 0;
        for (int s = 0; s < 20; s++) {
            const double K[3] = {0.3 * s, 1.1 - 0.2 * s, 0.7 * s - 2};
            double ei[2], ej[4];
            bands_at(pi_, K, ei);
            bands_at(pj, K, ej);
            for (int a = 0; a < 2; a++)
                worst = fmax(worst, fabs(ej[a] + 700 - ei[a]));
        }
        /* second order: the coupling of the two manifolds has norm <= z t, their gap is
           >= 2 J_H - 2 z t, so a band moves by at most (z t)^2 / (2 J_H - 2 z t) */
        const double bound = (6 * t) * (6 * t) / (2 * 700 - 2 * 6 * t);
        CHECK(worst <= bound, "hund = 700: lower bands + J_H differ from hund = inf by %.3g "
              "(bound (z t)^2 / (2 J_H - 2 z t) = %.3g)", worst, bound);
        printf("canted:70, hund = 700 vs inf: %.3g (bound %.3g)\n", worst, bound);
    }
    mcf_cell_destroy(ci);
    mcf_cell_destroy(cj);
}

static void test_refusals(void)
{
    CHECK(refused_with("neel-a, neel-c", "stripes", NULL), "unknown state lists the states");
    CHECK(refused_with("unknown state 'neel-a' on the square", "neel-a", "lattice", "square",
                       NULL),
          "neel-a on the square lattice");
    CHECK(refused_with("canted:THETA", "canted", NULL), "canted without an angle");
    CHECK(refused_with("canted:THETA", "canted:x", NULL), "canted:x");
    CHECK(refused_with("spiral:QX,QY,QZ", "spiral:0.1,0.2", NULL), "spiral with 2 of 3 numbers");
    CHECK(refused_with("spiral:QX,QY", "spiral:0.1,0.2,0.3", "lattice", "square", NULL),
          "spiral with 3 of 2");
    CHECK(refused_with("name an ideal state", NULL, NULL), "the chain's own configuration");
}

int main(void)
{
    mcf_plugin *p = load_model("double-exchange");
    if (p) {
        test_states();
        test_large_hund();
        test_refusals();
        mcfe_plugin_close(p);
    }
    return check_exit();
}
