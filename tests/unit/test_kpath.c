/* test_kpath.c — mcf/response.h's paths through the Brillouin zone and Bloch vectors
 * (bloch.c):
 * (a) the paths: cubic L = 16 auto (G X M G R X) has 5 x 8 steps, 41 points, its
 *     corners at 0, 8, 16, 24, 32, 40 and the wave vectors 2 pi n / L on the lines of symmetry,
 *     s the summed distance; odd L = 5 (square, X at n = 2); bcc (G H N G P H, H = (2 pi, 0, 0));
 *     "all" (L^d points, n_0 fastest; bcc 2 L^3, n_0 < 2 L); a twist shifts every K by
 *     theta / L; names are read case aside and with dashes.
 * (b) the Bloch vectors are normalized, and with the twist's wave vectors eigenvectors of the
 *     twisted nearest-neighbour hopping (mcf_hamiltonian_set_hopping_twisted) on the chain,
 *     square, cubic and bcc tori: |H v - eps v| < 1e-13 with eps the closed form
 *     -t sum_delta e^{i K.delta}, which on the cubic torus is also mcf_periodic_hk's H(k) of
 *     the one-site cell at k = K / 2 pi (the band evaluator's crystal); the weights w multiply
 *     component by component and the orbital picks the row.
 * (c) refusals: an unknown point (the message lists the lattice's), one point, two
 *     neighbours that are one wave vector, open boundaries, more than 32 points; a bad orbital. */
#include "check.h"

#include "mcf/error.h"
#include "mcf/hamiltonian.h"
#include "mcf/lattice.h"
#include "mcf/periodic.h"
#include "mcf/response.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const double pi = 3.14159265358979323846;

static mcf_lattice *lattice(mcf_lattice_kind kind, long L, mcf_boundary b)
{
    mcf_lattice *lat = NULL;
    CHECK(mcf_lattice_create(kind, L, b, &lat) == MCF_OK, "lattice: %s", mcf_last_error());
    return lat;
}

/* the path's n (K = 2 pi n / L without a twist) at point j */
static void check_point(const mcf_kpath *p, size_t j, long L, int n0, int n1, int n2,
                        const char *what)
{
    const double want[3] = {2 * pi * n0 / (double)L, 2 * pi * n1 / (double)L,
                            2 * pi * n2 / (double)L};
    double d = 0;
    for (int q = 0; q < 3; q++)
        d = fmax(d, fabs(p->k[3 * j + (size_t)q] - want[q]));
    CHECK(d < 1e-14, "%s: point %zu is %g from n = (%d, %d, %d)", what, j, d, n0, n1, n2);
}

static void part_a(void)
{
    mcf_lattice *lat = lattice(MCF_LATTICE_CUBIC, 16, MCF_BOUNDARY_PERIODIC);
    mcf_kpath *p = NULL;
    CHECK(lat && mcf_kpath_create(lat, "auto", NULL, &p) == MCF_OK, "cubic: %s",
          mcf_last_error());
    if (p) {
        CHECK(p->points == 41 && p->corners == 6, "cubic: %zu points, %zu corners", p->points,
              p->corners);
        const char *names[6] = {"G", "X", "M", "G", "R", "X"};
        for (size_t c = 0; c < 6 && c < p->corners; c++)
            CHECK(p->corner[c] == 8 * c && !strcmp(p->label[c], names[c]),
                  "cubic: corner %zu at %zu named %s", c, p->corner[c], p->label[c]);
        for (int j = 0; j <= 8 && p->points == 41; j++) {
            check_point(p, (size_t)j, 16, j, 0, 0, "G-X");
            check_point(p, (size_t)(8 + j), 16, 8, j, 0, "X-M");
            check_point(p, (size_t)(16 + j), 16, 8 - j, 8 - j, 0, "M-G");
            check_point(p, (size_t)(24 + j), 16, j, j, j, "G-R");
            check_point(p, (size_t)(32 + j), 16, 8, 8 - j, 8 - j, "R-X");
        }
        const double step = 2 * pi / 16;
        const double s_end = 8 * step * (2 + sqrt(2.0) + sqrt(3.0) + sqrt(2.0));
        CHECK(p->points == 41 && fabs(p->s[40] - s_end) < 1e-12 && p->s[0] == 0.0,
              "cubic: the path's length %.15g, not %.15g", p->s[40], s_end);
    }
    mcf_kpath_destroy(p);
    /* a twist shifts every point by theta / L; names case aside and with dashes */
    const double th[3] = {0.3, -0.7, 1.1};
    CHECK(mcf_kpath_create(lat, "g-x-m-G", th, &p) == MCF_OK, "twisted: %s", mcf_last_error());
    double d = 0;
    for (size_t j = 0; p && j < p->points && p->points == 25; j++) {
        const int n0 = j <= 8 ? (int)j : j <= 16 ? 8 : 24 - (int)j;
        const int n1 = j <= 8 ? 0 : j <= 16 ? (int)j - 8 : 24 - (int)j;
        d = fmax(d, fabs(p->k[3 * j] - (2 * pi * n0 + th[0]) / 16));
        d = fmax(d, fabs(p->k[3 * j + 1] - (2 * pi * n1 + th[1]) / 16));
        d = fmax(d, fabs(p->k[3 * j + 2] - th[2] / 16));
    }
    CHECK(p && p->points == 25 && d < 1e-14, "twisted: %zu points, %g off", p ? p->points : 0, d);
    mcf_kpath_destroy(p);
    mcf_lattice_destroy(lat);
    /* odd L: X is n = 2 of 5 */
    lat = lattice(MCF_LATTICE_SQUARE, 5, MCF_BOUNDARY_PERIODIC);
    CHECK(lat && mcf_kpath_create(lat, NULL, NULL, &p) == MCF_OK, "L = 5: %s", mcf_last_error());
    CHECK(p && p->points == 7 && p->corner[1] == 2 && p->corner[2] == 4,
          "L = 5: %zu points (G X M G: 2 + 2 + 2 steps)", p ? p->points : 0);
    if (p && p->points == 7)
        check_point(p, 4, 5, 2, 2, 0, "L = 5 M");
    mcf_kpath_destroy(p);
    /* all: L^d points, n_0 fastest */
    CHECK(lat && mcf_kpath_create(lat, "all", NULL, &p) == MCF_OK, "all: %s", mcf_last_error());
    CHECK(p && p->points == 25 && p->corners == 0, "all: %zu points", p ? p->points : 0);
    if (p && p->points == 25)
        check_point(p, 13, 5, 3, 2, 0, "all");
    mcf_kpath_destroy(p);
    mcf_lattice_destroy(lat);
    /* bcc: H = (2 pi, 0, 0) is n = (L, 0, 0) */
    lat = lattice(MCF_LATTICE_BCC, 4, MCF_BOUNDARY_PERIODIC);
    CHECK(lat && mcf_kpath_create(lat, "auto", NULL, &p) == MCF_OK, "bcc: %s", mcf_last_error());
    CHECK(p && p->points == 13 && p->corners == 6 && !strcmp(p->label[1], "H"),
          "bcc: %zu points (G H N G P H: 4 + 2 + 2 + 2 + 2 steps)", p ? p->points : 0);
    if (p && p->points == 13) {
        check_point(p, 4, 4, 4, 0, 0, "bcc H");
        check_point(p, 6, 4, 2, 2, 0, "bcc N");
        check_point(p, 10, 4, 2, 2, 2, "bcc P");
        check_point(p, 12, 4, 4, 0, 0, "bcc H again");
    }
    mcf_kpath_destroy(p);
    CHECK(lat && mcf_kpath_create(lat, "all", NULL, &p) == MCF_OK && p->points == 128,
          "bcc all: %zu points, not 2 L^3 = 128", p ? p->points : 0);
    if (p && p->points == 128)
        check_point(p, 13, 4, 5, 1, 0, "bcc all");
    mcf_kpath_destroy(p);
    mcf_lattice_destroy(lat);
}

/* |H v - eps v| for the Bloch vector of every wave vector of the torus */
static void eigen_check(mcf_lattice_kind kind, long L, const double *th)
{
    mcf_lattice *lat = lattice(kind, L, MCF_BOUNDARY_PERIODIC);
    mcf_hamiltonian *h = NULL;
    mcf_kpath *p = NULL;
    if (!lat)
        return;
    const size_t N = lat->sites;
    CHECK(mcf_hamiltonian_create(N, 1, lat->coordination, &h) == MCF_OK &&
          mcf_hamiltonian_set_hopping_twisted(h, lat, 0.7, th) == MCF_OK &&
          mcf_kpath_create(lat, "all", th, &p) == MCF_OK, "%s: %s",
          mcf_lattice_kind_name(kind), mcf_last_error());
    double *v = malloc(2 * N * sizeof *v), worst = 0, norm_worst = 0, hk_worst = 0;
    mcf_cell *cell = NULL;
    if (kind == MCF_LATTICE_CUBIC) { /* the one-site cell of the band evaluator */
        const double a[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
        mcf_cell_create(&cell);
        mcf_cell_shape(cell, 3, 1, 1, a);
        mcf_cell_bond(cell, 1, 0, 0, 0, 0, -0.7, 0);
        mcf_cell_bond(cell, 0, 1, 0, 0, 0, -0.7, 0);
        mcf_cell_bond(cell, 0, 0, 1, 0, 0, -0.7, 0);
        CHECK(mcf_cell_status(cell) == MCF_OK, "cell: %s", mcf_last_error());
    }
    for (size_t q = 0; p && h && v && q < p->points; q++) {
        const double *K = p->k + 3 * q;
        CHECK(mcf_bloch_vector(lat, K, 1, 0, NULL, v) == MCF_OK, "%s", mcf_last_error());
        /* eps = -t sum over the neighbour vectors of e^{i K.delta}: from site 0's bonds */
        double eps = 0, nn = 0;
        for (int s = 0; s < lat->coordination; s++) {
            const double *r0 = lat->positions, *r1 = lat->positions + 3 * lat->neighbours[s];
            double ph = 0;
            for (int d = 0; d < 3; d++) {
                double dx = r1[d] - r0[d];
                dx -= (double)L * round(dx / (double)L); /* the shortest image */
                ph += K[d] * dx;
            }
            eps += -0.7 * cos(ph);
        }
        for (size_t r = 0; r < N; r++) {
            double re = 0, im = 0;
            for (int s = 0; s < h->width; s++) {
                const size_t i = (size_t)s * N + r;
                const int32_t c = h->col[i];
                if (c < 0)
                    continue;
                re += h->hop_re[i] * v[2 * c] - h->hop_im[i] * v[2 * c + 1];
                im += h->hop_re[i] * v[2 * c + 1] + h->hop_im[i] * v[2 * c];
            }
            worst = fmax(worst, hypot(re - eps * v[2 * r], im - eps * v[2 * r + 1]));
            nn += v[2 * r] * v[2 * r] + v[2 * r + 1] * v[2 * r + 1];
        }
        norm_worst = fmax(norm_worst, fabs(nn - 1));
        if (cell) {
            const double kf[3] = {K[0] / (2 * pi), K[1] / (2 * pi), K[2] / (2 * pi)};
            double hk[2];
            mcf_periodic_hk(mcf_cell_view(cell), kf, hk);
            hk_worst = fmax(hk_worst, fabs(hk[0] - eps) + fabs(hk[1]));
        }
    }
    CHECK(worst < 1e-13 && norm_worst < 1e-13 && hk_worst < 1e-13,
          "%s L = %ld: |Hv - eps v| %.1e, |v|^2 - 1 %.1e, H(k) %.1e", mcf_lattice_kind_name(kind),
          L, worst, norm_worst, hk_worst);
    printf("(b) %s L = %ld, %zu wave vectors: |H v - eps v| <= %.1e, ||v|^2 - 1| <= %.1e%s\n",
           mcf_lattice_kind_name(kind), L, p ? p->points : 0, worst, norm_worst,
           cell ? ", the cell's H(k) within" : "");
    if (cell)
        printf("    %.1e of eps\n", hk_worst);
    mcf_cell_destroy(cell);
    free(v);
    mcf_kpath_destroy(p);
    mcf_hamiltonian_destroy(h);
    mcf_lattice_destroy(lat);
}

static void part_b(void)
{
    const double th[3] = {0.41, 1.3, -2.2};
    eigen_check(MCF_LATTICE_CHAIN, 7, th);
    eigen_check(MCF_LATTICE_SQUARE, 6, th);
    eigen_check(MCF_LATTICE_CUBIC, 4, th);
    eigen_check(MCF_LATTICE_BCC, 3, th);
    /* weights and orbitals */
    mcf_lattice *lat = lattice(MCF_LATTICE_SQUARE, 3, MCF_BOUNDARY_PERIODIC);
    double w[18], v[36], u[36];
    for (int i = 0; i < 18; i++)
        w[i] = 0.1 * i - 0.5;
    const double K[3] = {0.2, -1.4, 0};
    CHECK(lat && mcf_bloch_vector(lat, K, 2, 1, NULL, u) == MCF_OK &&
          mcf_bloch_vector(lat, K, 2, 1, w, v) == MCF_OK, "%s", mcf_last_error());
    double d = 0;
    for (int i = 0; i < 9; i++) {
        d = fmax(d, fabs(v[4 * i]) + fabs(v[4 * i + 1])); /* orbital 0: empty */
        const double re = w[2 * i] * u[4 * i + 2] - w[2 * i + 1] * u[4 * i + 3];
        const double im = w[2 * i] * u[4 * i + 3] + w[2 * i + 1] * u[4 * i + 2];
        d = fmax(d, fabs(v[4 * i + 2] - re) + fabs(v[4 * i + 3] - im));
    }
    CHECK(d < 1e-15, "weights: %.1e", d);
    CHECK(lat && mcf_bloch_vector(lat, K, 2, 2, NULL, v) == MCF_EINVAL, "orbital 2 of 2");
    mcf_lattice_destroy(lat);
}

static void refuse(mcf_lattice *lat, const char *text, const char *needle)
{
    mcf_kpath *p = NULL;
    const int rc = mcf_kpath_create(lat, text, NULL, &p);
    CHECK(rc == MCF_EINVAL && !p && strstr(mcf_last_error(), needle), "\"%s\": %d, %s", text, rc,
          mcf_last_error());
    printf("(c) \"%s\": %s\n", text, mcf_last_error());
}

static void part_c(void)
{
    mcf_lattice *lat = lattice(MCF_LATTICE_CUBIC, 4, MCF_BOUNDARY_PERIODIC);
    refuse(lat, "G Q", "G X Y Z M R");
    refuse(lat, "G", "at least two");
    refuse(lat, "G X X", "same wave vector");
    char many[200] = "";
    for (int i = 0; i < 17; i++)
        strcat(many, "G X ");
    refuse(lat, many, "more than 32");
    mcf_lattice_destroy(lat);
    lat = lattice(MCF_LATTICE_SQUARE, 4, MCF_BOUNDARY_OPEN);
    refuse(lat, "auto", "periodic");
    mcf_lattice_destroy(lat);
}

int main(void)
{
    part_a();
    part_b();
    part_c();
    return check_exit();
}
