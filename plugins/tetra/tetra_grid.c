/* tetra_grid.c — the k grid of the tetrahedron method (tetra.h): the bands at every k
 * point, the orbital weights, and the cut of the grid's cells into tetrahedra.
 *
 * Eigenproblems.  H(k) from mcf_periodic_hk, diagonalized by GSL's gsl_eigen_hermv (one
 * workspace per OpenMP thread, the k points shared out statically; every k point's
 * arithmetic is the same on any number of threads), sorted ascending; the weights are
 * |U_an|^2 of the eigenvector matrix U.  One orbital needs no eigensolver: eps = Re H(k).
 *
 * Tetrahedra.  A cell of the grid has corners k_0 + sum_d c_d q_d (c_d = 0, 1), with the
 * steps q_d = b_d / n_d along the reciprocal vectors b_d.  Its four main diagonals join
 * the corner c to the complement of c; the one of least length |sum_d s_d q_d| (s_d = +-1),
 * with the reciprocal metric b_i . b_j = (2 pi)^2 [(A A^T)^-1]_ij of the lattice vectors
 * (rows of A), is shared by the 6 tetrahedra {0, e_p0, e_p0 + e_p1, e_0 + e_1 + e_2} over
 * the permutations p of the three directions (Kuhn's triangulation), reflected so that
 * its diagonal is the shortest one (BJA: the shortest diagonal makes the
 * tetrahedra the most compact, which reduces the interpolation error in non-cubic cells).
 * Directions beyond dims have n_d = 1 and no length; the triangulation is then the same
 * cut of the 2D (1D) cells repeated, which gives the linear triangle (interval) method. */
#include "tetra_impl.h"

#include "mcf/error.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include <gsl/gsl_eigen.h>

void tetra_reciprocal_metric(const mcf_periodic *p, double G[3][3])
{
    double M[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    for (uint32_t i = 0; i < p->dims; i++)
        for (uint32_t j = 0; j < p->dims; j++) {
            M[i][j] = 0.0;
            for (int d = 0; d < 3; d++)
                M[i][j] += p->lattice[i][d] * p->lattice[j][d];
        }
    const double det = M[0][0] * (M[1][1] * M[2][2] - M[1][2] * M[2][1]) -
                       M[0][1] * (M[1][0] * M[2][2] - M[1][2] * M[2][0]) +
                       M[0][2] * (M[1][0] * M[2][1] - M[1][1] * M[2][0]);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            const int i1 = (j + 1) % 3, i2 = (j + 2) % 3, j1 = (i + 1) % 3, j2 = (i + 2) % 3;
            const double cof = M[i1][j1] * M[i2][j2] - M[i1][j2] * M[i2][j1];
            G[i][j] = (uint32_t)i < p->dims && (uint32_t)j < p->dims ? cof / det : 0.0;
        }
}

void tetra_cut_cells(const double G[3][3], const size_t n[3], unsigned corner[6][4])
{
    static const unsigned masks[4] = {0u, 1u, 2u, 4u};
    unsigned best = 0;
    double best_len = INFINITY;
    for (int m = 0; m < 4; m++) {
        double len = 0.0;
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) {
                const double si = (masks[m] >> i) & 1u ? -1.0 : 1.0;
                const double sj = (masks[m] >> j) & 1u ? -1.0 : 1.0;
                len += si * sj * G[i][j] / ((double)n[i] * (double)n[j]);
            }
        if (len < best_len * (1.0 - 1e-12)) { /* ties keep the first: deterministic */
            best_len = len;
            best = masks[m];
        }
    }
    static const unsigned perm[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2},
                                        {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
    for (int t = 0; t < 6; t++) {
        const unsigned c1 = 1u << perm[t][0], c2 = c1 | (1u << perm[t][1]);
        const unsigned c[4] = {0u, c1, c2, 7u};
        for (int i = 0; i < 4; i++)
            corner[t][i] = c[i] ^ best;
    }
}

void tetra_grid_corners(const tetra_grid *g, size_t c, unsigned t, size_t k[4])
{
    const size_t i0 = c % g->n[0], i1 = (c / g->n[0]) % g->n[1], i2 = c / (g->n[0] * g->n[1]);
    for (int i = 0; i < 4; i++) {
        const unsigned b = g->corner[t][i];
        const size_t j0 = (i0 + (b & 1u)) % g->n[0], j1 = (i1 + ((b >> 1) & 1u)) % g->n[1];
        const size_t j2 = (i2 + ((b >> 2) & 1u)) % g->n[2];
        k[i] = j0 + g->n[0] * (j1 + g->n[1] * j2);
    }
}

static void k_point(const tetra_grid *g, const double s[3], size_t k, double kr[3])
{
    const size_t i[3] = {k % g->n[0], (k / g->n[0]) % g->n[1], k / (g->n[0] * g->n[1])};
    for (int d = 0; d < 3; d++)
        kr[d] = ((double)i[d] + s[d]) / (double)g->n[d];
}

/* the bands (and weights) at every k; MCF_ENOMEM where a thread's workspace failed */
static int solve_all(const mcf_periodic *p, const double s[3], tetra_grid *g)
{
    const size_t nb = g->bands;
    int failed = 0;
#pragma omp parallel
    {
        double *hk = malloc(2 * nb * nb * sizeof *hk);
        gsl_matrix_complex *A = nb > 1 ? gsl_matrix_complex_alloc(nb, nb) : NULL;
        gsl_matrix_complex *U = nb > 1 ? gsl_matrix_complex_alloc(nb, nb) : NULL;
        gsl_vector *ev = nb > 1 ? gsl_vector_alloc(nb) : NULL;
        gsl_eigen_hermv_workspace *w = nb > 1 ? gsl_eigen_hermv_alloc(nb) : NULL;
        const int ok = hk && (nb == 1 || (A && U && ev && w));
        if (!ok) {
#pragma omp atomic write
            failed = 1;
        }
#pragma omp for schedule(static)
        for (size_t k = 0; k < g->nk; k++) {
            if (!ok)
                continue;
            double kr[3];
            k_point(g, s, k, kr);
            mcf_periodic_hk(p, kr, hk);
            double *eps = g->eps + k * nb;
            if (nb == 1) {
                eps[0] = hk[0];
                if (g->weight)
                    g->weight[k] = 1.0;
                continue;
            }
            for (size_t a = 0; a < nb; a++)
                for (size_t b = 0; b < nb; b++)
                    gsl_matrix_complex_set(A, a, b, (gsl_complex){{hk[2 * (a * nb + b)],
                                                                   hk[2 * (a * nb + b) + 1]}});
            gsl_eigen_hermv(A, ev, U, w);
            gsl_eigen_hermv_sort(ev, U, GSL_EIGEN_SORT_VAL_ASC);
            for (size_t n = 0; n < nb; n++) {
                eps[n] = gsl_vector_get(ev, n);
                if (!g->weight)
                    continue;
                for (size_t a = 0; a < nb; a++) {
                    const gsl_complex u = gsl_matrix_complex_get(U, a, n);
                    g->weight[(k * nb + n) * nb + a] = u.dat[0] * u.dat[0] + u.dat[1] * u.dat[1];
                }
            }
        }
        if (w)
            gsl_eigen_hermv_free(w);
        if (ev)
            gsl_vector_free(ev);
        if (U)
            gsl_matrix_complex_free(U);
        if (A)
            gsl_matrix_complex_free(A);
        free(hk);
    }
    return failed ? mcf_fail(MCF_ENOMEM, "tetra: out of memory for the eigensolver of %zu "
                             "orbitals", nb) : MCF_OK;
}

static int check_grid(const mcf_periodic *p, const size_t n[3], const double shift[3])
{
    if (!n)
        return mcf_fail(MCF_EINVAL, "tetra: no grid size given");
    for (uint32_t d = 0; d < 3; d++) {
        if (n[d] < 1)
            return mcf_fail(MCF_EINVAL, "tetra: the k grid has n = %zu points along direction "
                            "%u; give at least 1", n[d], d + 1);
        if (d >= p->dims && n[d] != 1)
            return mcf_fail(MCF_EINVAL, "tetra: the k grid has n = %zu points along direction "
                            "%u, but the crystal is periodic in %u only; set it to 1", n[d],
                            d + 1, p->dims);
        if (shift && !isfinite(shift[d]))
            return mcf_fail(MCF_EINVAL, "tetra: the grid shift along direction %u is not "
                            "finite", d + 1);
    }
    const size_t limit = SIZE_MAX / 64 / ((size_t)p->orbitals * p->orbitals);
    if (n[0] > limit / n[1] || n[0] * n[1] > limit / n[2])
        return mcf_fail(MCF_EINVAL, "tetra: a %zu x %zu x %zu grid of %u orbitals is too large",
                        n[0], n[1], n[2], p->orbitals);
    return MCF_OK;
}

/* the table of sorted corner energies (tetra_impl.h), which the sums up to a Fermi level
 * read instead of finding and sorting the corners again for every energy: without it,
 * that was three quarters of their time.  Skipped (tet_e NULL) beyond the size limit. */
static void sort_corners(tetra_grid *g)
{
    const size_t nb = g->bands, count = g->nk * 6 * nb;
    if (count > TETRA_TABLE_MAX_BYTES / (4 * sizeof(double)))
        return;
    g->tet_e = malloc(count * 4 * sizeof *g->tet_e);
    if (!g->tet_e)
        return; /* found on the fly instead */
    const long ncell = (long)g->nk;
#pragma omp parallel for schedule(static)
    for (long c = 0; c < ncell; c++)
        for (unsigned t = 0; t < 6; t++) {
            size_t k[4];
            tetra_grid_corners(g, (size_t)c, t, k);
            for (size_t n = 0; n < nb; n++) {
                double *e = g->tet_e + 4 * (((size_t)c * 6 + t) * nb + n);
                for (int i = 0; i < 4; i++)
                    e[i] = g->eps[k[i] * nb + n];
                for (int i = 1; i < 4; i++)
                    for (int j = i; j > 0 && e[j] < e[j - 1]; j--) {
                        const double x = e[j];
                        e[j] = e[j - 1];
                        e[j - 1] = x;
                    }
            }
        }
}

int tetra_grid_create(const mcf_periodic *p, const size_t n[3], const double shift[3],
                      int with_weights, tetra_grid **out)
{
    *out = NULL;
    int rc = mcf_periodic_check(p, "tetra");
    if (rc)
        return rc;
    if ((rc = check_grid(p, n, shift)))
        return rc;
    tetra_grid *g = calloc(1, sizeof *g);
    if (!g)
        return mcf_fail(MCF_ENOMEM, "tetra: out of memory for the k grid");
    for (int d = 0; d < 3; d++)
        g->n[d] = n[d];
    g->nk = n[0] * n[1] * n[2];
    g->bands = p->orbitals;
    g->eps = malloc(g->nk * g->bands * sizeof *g->eps);
    if (with_weights)
        g->weight = malloc(g->nk * g->bands * g->bands * sizeof *g->weight);
    if (!g->eps || (with_weights && !g->weight)) {
        tetra_grid_destroy(g);
        return mcf_fail(MCF_ENOMEM, "tetra: out of memory for the bands of %zu k points",
                        n[0] * n[1] * n[2]);
    }
    const double s[3] = {shift ? shift[0] : 0.0, shift ? shift[1] : 0.0,
                         shift ? shift[2] : 0.0};
    if ((rc = solve_all(p, s, g))) {
        tetra_grid_destroy(g);
        return rc;
    }
    g->emin = INFINITY;
    g->emax = -INFINITY;
    for (size_t i = 0; i < g->nk * g->bands; i++) {
        g->emin = fmin(g->emin, g->eps[i]);
        g->emax = fmax(g->emax, g->eps[i]);
    }
    double G[3][3];
    tetra_reciprocal_metric(p, G);
    tetra_cut_cells(G, g->n, g->corner);
    sort_corners(g);
    *out = g;
    return MCF_OK;
}

void tetra_grid_destroy(tetra_grid *g)
{
    if (!g)
        return;
    free(g->tet_e);
    free(g->eps);
    free(g->weight);
    free(g);
}

size_t tetra_grid_points(const tetra_grid *g) { return g->nk; }
size_t tetra_grid_bands(const tetra_grid *g) { return g->bands; }
double tetra_grid_emin(const tetra_grid *g) { return g->emin; }
double tetra_grid_emax(const tetra_grid *g) { return g->emax; }

double tetra_grid_energy(const tetra_grid *g, size_t k, size_t band)
{
    return g->eps[k * g->bands + band];
}

double tetra_grid_weight(const tetra_grid *g, size_t k, size_t band, size_t a)
{
    return g->weight ? g->weight[(k * g->bands + band) * g->bands + a] : -1.0;
}
