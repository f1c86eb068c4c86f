/* test_periodic_models.c — the periodic descriptions of anderson and holstein against their
 * bands in closed form at random Cartesian K (t = 0.8, g = 1.3: not 1, so that a missing
 * factor shows):
 *   anderson clean   square -2t (cos K_x + cos K_y), cubic -2t sum_d cos K_d, bcc
 *                    -8t cos(K_x/2) cos(K_y/2) cos(K_z/2) (conventional lattice constant 1);
 *                    W > 0 refused (no unit cell).
 *   holstein         uniform:X  -2t sum_d cos K_d - g X;
 *                    cdw:X      +-sqrt(eps_K^2 + (g X)^2), the Peierls gap 2 |g X|. */
#include "bands_check.h"

static const double t = 0.8, g = 1.3;

static void simple(const double K[3], const double *arg, double *o)
{
    o[0] = 0;
    for (int d = 0; d < (int)arg[0]; d++)
        o[0] += -2 * t * cos(K[d]);
    o[0] -= g * arg[1];
}

static void bcc(const double K[3], const double *arg, double *o)
{
    (void)arg;
    o[0] = -8 * t * cos(0.5 * K[0]) * cos(0.5 * K[1]) * cos(0.5 * K[2]);
}

static void cdw(const double K[3], const double *arg, double *o)
{
    double e = 0;
    for (int d = 0; d < (int)arg[0]; d++)
        e += -2 * t * cos(K[d]);
    o[1] = sqrt(e * e + g * g * arg[1] * arg[1]);
    o[0] = -o[1];
}

int main(void)
{
    mcf_plugin *p = load_model("anderson");
    if (p) {
        const double sq[2] = {2, 0}, cu[2] = {3, 0};
        compare("anderson clean, square", describe("clean", "t", "0.8", "lattice", "square",
                                                   NULL), 1, simple, sq);
        compare("anderson clean, cubic", describe("clean", "t", "0.8", NULL), 1, simple, cu);
        compare("anderson clean, bcc", describe("clean", "t", "0.8", "lattice", "bcc", NULL), 1,
                bcc, cu);
        CHECK(refused_with("random on-site energies have no unit cell", "clean", "W", "2", NULL),
              "anderson: W > 0 refused");
        CHECK(refused_with("the one state is clean", "ferro", NULL), "anderson: unknown state");
        mcfe_plugin_close(p);
    }
    p = load_model("holstein");
    if (p) {
        const double u2[2] = {2, 0.35}, u3[2] = {3, -0.6};
        compare("holstein uniform:0.35, square",
                describe("uniform:0.35", "t", "0.8", "g", "1.3", NULL), 1, simple, u2);
        compare("holstein uniform:-0.6, cubic",
                describe("uniform:-0.6", "t", "0.8", "g", "1.3", "lattice", "cubic", NULL), 1,
                simple, u3);
        const double c2[2] = {2, 0.45}, c3[2] = {3, 0.7};
        compare("holstein cdw:0.45, square", describe("cdw:0.45", "t", "0.8", "g", "1.3", NULL),
                2, cdw, c2);
        compare("holstein cdw:0.7, cubic",
                describe("cdw:0.7", "t", "0.8", "g", "1.3", "lattice", "cubic", NULL), 2, cdw,
                c3);
        CHECK(refused_with("uniform:X", "cdw", NULL), "holstein: cdw without X");
        CHECK(refused_with("uniform:X", "cdw:1x", NULL), "holstein: cdw:1x");
        CHECK(refused_with("with a chain", NULL, NULL), "holstein: no state and no chain");
        mcfe_plugin_close(p);
    }
    return check_exit();
}
