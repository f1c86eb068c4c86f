/* test_response.c — issue 47's first part: the current operator J_a = i [H, X_a], the
 * two-dimensional Chebyshev moments mu_nm = (1/dim) Tr[A T_n(H~) B T_m(H~)] of ed and kpm
 * (mcf/fermion.h's response) and the conductivities of mcf/response.h, against closed forms
 * from dense eigenvectors (GSL's hermv, independent of ed's solvers).
 *
 * Hamiltonians: AND, Anderson on a periodic 6x6 square (t = 1, W = 3, a twist of
 * (0.13, 0.27) x 2 pi: complex, dim 36); AND0, the same without twist (real); HOF(phi),
 * Hofstadter on a periodic 10x10 square at flux phi per plaquette (Landau gauge: the
 * y-bonds at column x carry exp(2 pi i phi x), consistent on the torus as phi L is an
 * integer; a twist multiplies the bonds across the boundary); CLEAN, the periodic 8x8 square.
 *
 * (a) J_a against i (H X_a - X_a H) with dense X_a on an open 5x5 Hofstadter square, entry
 *     by entry to 1e-15 ||H|| (one product each); on the periodic lattice J is Hermitian and
 *     the bonds across the boundary have displacement -+1; refusals: axis 2 of a square,
 *     periodic L = 2, a lattice of another size.
 * (b) ed's moments (AND, J_x, J_y; M = 10) against a dense Chebyshev recursion of the
 *     matrices T_n(H~): 1e-12 (M products of norm <= 1, times ||J||^2).
 * (c) kpm with vectors = 0 (every unit vector: exact) against ed, M = 24: 1e-11.
 * (d) kpm stochastic (vectors = 200) against ed, M = 12: every entry within 4.5 of its
 *     reported standard errors, and the mean of |kpm - ed|^2 / err^2 over the 144 entries
 *     within [0.5, 2] (1 for calibrated errors; the entries are correlated).
 * (e) Kubo-Bastin's sigma_xx against Kubo-Greenwood's DC limit (AND, T = 0.2, three mu,
 *     ed moments, M = 128): the same number by two formulas (integration by parts; the
 *     Jackson kernel's leak at the bounds, ~7 of its widths away, is far below): relative
 *     1e-7; the integral's imaginary part 1e-10 of it.  The real AND0 (time reversal): the
 *     Hall part (sigma_xy - sigma_yx) / 2 is 0 (1e-12 of sigma_xx), the symmetric part of a
 *     disordered sample is not, and equals Greenwood's xy (1e-7 of sigma_xx).
 * (f) CLEAN: J commutes with H, so all of Re sigma(omega > 0) is the Jackson kernel's tail,
 *     ~ (M omega / a)^-4 against a Drude peak ~ M: its ratio to the DC value at omega = 1
 *     and 2 falls ~16x from M = 128 to 256 (asserted: more than 8x).
 * (g) Hall plateaus of HOF(1/5) (10x10) at T = 0, mu mid-gap: the closed form
 *     sigma_xy = -(1/V) sum_{i != j} Im[(J_x)_ij (J_y)_ji] (f_i - f_j) / (e_i - e_j)^2
 *     averaged over the 8x8 twists (j + 1/2) 2 pi / 8 (the midpoint rule of the twist torus,
 *     where the average of the Berry curvature is the Chern number: exponential in the grid)
 *     gives 2 pi sigma_xy = the TKNN integers of the four gaps (r = 5 s + t: 1, 2, -2, -1, up
 *     to the sign of the orientation) within 1e-4 and closer than the 6x6 grid; HOF(-1/5)
 *     reverses the sign.  At zero twist Kubo-Bastin from ed's moments (Jackson) converges to
 *     the closed form as M^-2 (the kernel's width squared): the errors at M = 256 and 512 in
 *     the two lower gaps have ratio in [3, 5.5], and their Richardson extrapolation
 *     (4 s_512 - s_256) / 3 removes at least 80 % of the error at 512 (what is left is the
 *     next order in 1/M).
 * (h) The f-sum rule on a torus, with its Drude part (AND, T = 1.5, mu = 0.3): -<K_x> =
 *     sum_ij F_ij |J_ij|^2 + d^2 Omega / d phi^2, F_ij = (f_i - f_j) / (e_j - e_i) (-f' on
 *     the diagonal), phi = theta_x / L the phase per x-bond — three closed forms (eigen sum,
 *     the x-bonds' kinetic energy, the twist curvature of the grand potential by central
 *     differences, 1e-3: relative error ~1e-7): within 1e-6.  Greenwood's
 *     int_0^inf Re sigma_xx domega (composite Gauss-Legendre over omega) from ed's moments
 *     converges to the paramagnetic part (pi / 2V) sum F |J|^2 as M^-2: errors at M = 48 and
 *     96 in ratio [3, 5.5], Richardson within 20 % of the error at 96.  (Kubo-Greenwood has
 *     no diamagnetic term: the Drude weight of a finite torus is the twist curvature.) */
#include <gsl/gsl_eigen.h>
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
static const mcf_plugin_info *ed_info, *kpm_info;

/* ---- Hamiltonians ----------------------------------------------------------------------- */

static mcf_lattice *square(long L, mcf_boundary bc)
{
    mcf_lattice *lat = NULL;
    CHECK(mcf_lattice_create(MCF_LATTICE_SQUARE, L, bc, &lat) == MCF_OK, "%s",
          mcf_last_error());
    return lat;
}

static mcf_hamiltonian *anderson(const mcf_lattice *lat, double W, const double *theta)
{
    mcf_hamiltonian *h = NULL;
    CHECK(mcf_hamiltonian_create(lat->sites, 1, 4, &h) == MCF_OK, "%s", mcf_last_error());
    CHECK(mcf_hamiltonian_set_hopping_twisted(h, lat, 1.0, theta) == MCF_OK, "%s",
          mcf_last_error());
    unsigned long long s = 20261203;
    for (size_t i = 0; i < lat->sites; i++)
        mcf_hamiltonian_set_onsite(h, i, W * (test_xorshift_uniform(&s) - 0.5));
    return h;
}

/* the y-bond from (x, y) to (x, y + 1) carries exp(2 pi i phi x), and a bond across the
 * periodic boundary along d also exp(i tw[d]) (a twist) */
static mcf_hamiltonian *hofstadter_tw(const mcf_lattice *lat, double phi, const double *tw);
static mcf_hamiltonian *hofstadter(const mcf_lattice *lat, double phi)
{
    const double none[2] = {0.0, 0.0};
    return hofstadter_tw(lat, phi, none);
}

static mcf_hamiltonian *hofstadter_tw(const mcf_lattice *lat, double phi, const double *tw)
{
    mcf_hamiltonian *h = NULL;
    CHECK(mcf_hamiltonian_create(lat->sites, 1, 4, &h) == MCF_OK, "%s", mcf_last_error());
    for (size_t i = 0; i < lat->sites; i++) {
        const double x = lat->positions[3 * i];
        const int32_t jx = lat->neighbours[4 * i], jy = lat->neighbours[4 * i + 2];
        const double y = lat->positions[3 * i + 1];
        if (jx >= 0) {
            const double p = lat->positions[3 * (size_t)jx] < x ? tw[0] : 0.0;
            mcf_hamiltonian_set(h, i, (size_t)jx, -cos(p), -sin(p));
        }
        if (jy >= 0) {
            const double p = 2 * pi * phi * x + (lat->positions[3 * (size_t)jy + 1] < y ? tw[1]
                                                                                        : 0.0);
            mcf_hamiltonian_set(h, i, (size_t)jy, -cos(p), -sin(p));
        }
    }
    return h;
}

static mcf_hamiltonian *current(const mcf_hamiltonian *h, const mcf_lattice *lat, int axis)
{
    mcf_hamiltonian *J = NULL;
    CHECK(mcf_current_operator(h, lat, axis, &J) == MCF_OK, "current: %s", mcf_last_error());
    return J;
}

/* ---- dense helpers (interleaved complex, row-major) -------------------------------------- */

static double *dense(const mcf_hamiltonian *h)
{
    double *m = malloc(2 * h->dim * h->dim * sizeof *m);
    mcf_hamiltonian_dense(h, m);
    return m;
}

/* c = a b */
static void matmul(size_t n, const double *a, const double *b, double *c)
{
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++) {
            double sr = 0.0, si = 0.0;
            for (size_t k = 0; k < n; k++) {
                const double ar = a[2 * (i * n + k)], ai = a[2 * (i * n + k) + 1];
                const double br = b[2 * (k * n + j)], bi = b[2 * (k * n + j) + 1];
                sr += ar * br - ai * bi;
                si += ar * bi + ai * br;
            }
            c[2 * (i * n + j)] = sr;
            c[2 * (i * n + j) + 1] = si;
        }
}

typedef struct eig {
    size_t n;
    double *e, *v; /* e ascending; v[2 (r n + k)] = psi_k(r) */
} eig;

static eig diagonalize(const mcf_hamiltonian *h)
{
    const size_t n = h->dim;
    eig E = {n, malloc(n * sizeof(double)), malloc(2 * n * n * sizeof(double))};
    gsl_matrix_complex *A = gsl_matrix_complex_alloc(n, n), *V = gsl_matrix_complex_alloc(n, n);
    mcf_hamiltonian_dense(h, A->data);
    gsl_vector *ev = gsl_vector_alloc(n);
    gsl_eigen_hermv_workspace *w = gsl_eigen_hermv_alloc(n);
    gsl_eigen_hermv(A, ev, V, w);
    gsl_eigen_hermv_sort(ev, V, GSL_EIGEN_SORT_VAL_ASC);
    for (size_t k = 0; k < n; k++)
        E.e[k] = gsl_vector_get(ev, k);
    memcpy(E.v, V->data, 2 * n * n * sizeof(double));
    gsl_eigen_hermv_free(w);
    gsl_vector_free(ev);
    gsl_matrix_complex_free(A);
    gsl_matrix_complex_free(V);
    return E;
}

/* <i| X |j> of the operator op in E's eigenbasis (2 n^2, interleaved) */
static double *in_eigenbasis(const eig *E, const mcf_hamiltonian *op)
{
    const size_t n = E->n;
    double *x = dense(op), *xv = malloc(2 * n * n * sizeof *xv);
    double *out = malloc(2 * n * n * sizeof *out), *vh = malloc(2 * n * n * sizeof *vh);
    matmul(n, x, E->v, xv);
    for (size_t i = 0; i < n; i++) /* V^+ */
        for (size_t r = 0; r < n; r++) {
            vh[2 * (i * n + r)] = E->v[2 * (r * n + i)];
            vh[2 * (i * n + r) + 1] = -E->v[2 * (r * n + i) + 1];
        }
    matmul(n, vh, xv, out);
    free(x);
    free(xv);
    free(vh);
    return out;
}

/* ---- evaluator calls ---------------------------------------------------------------------- */

typedef struct mom {
    size_t M;
    double *re, *im, *err, ab[2];
} mom;

static mom moments(const mcf_plugin_info *e, test_params *tp, const mcf_hamiltonian *h,
                   const mcf_hamiltonian *A, const mcf_hamiltonian *B, size_t M,
                   const double *scale, mcf_rng *rng)
{
    mom m = {M, calloc(M * M, sizeof(double)), calloc(M * M, sizeof(double)),
             calloc(M * M, sizeof(double)), {0, 0}};
    void *ws = test_params_workspace(e, tp, h);
    double *ab = m.ab;
    mcf_response r = {.moments = M, .scale = scale, .op_a = &A, .op_b = &B, .mu_re = &m.re,
                      .mu_im = &m.im, .mu_err = &m.err, .moment_scale = &ab};
    if (ws)
        CHECK(tev_v2(e)->response(tev_batch(), &ws, 1, &rng, &r) == MCF_OK, "%s response: %s",
              e->name, mcf_last_error());
    if (ws)
        tev_destroy(e, ws);
    return m;
}

static void mom_free(mom *m)
{
    free(m->re);
    free(m->im);
    free(m->err);
}

static mcf_kubo kubo_of(const mom *m, const mcf_hamiltonian *h, const char *kernel)
{
    mcf_kubo k = {.M = m->M, .mu_re = m->re, .mu_im = m->im, .a = m->ab[0], .b = m->ab[1],
                  .kernel = kernel, .states_per_volume = 1.0};
    mcf_hamiltonian_bounds(h, &k.emin, &k.emax);
    return k;
}

/* Gauss-Legendre's 16 nodes and weights on [-1, 1] */
static void gauss_legendre_16(double *x, double *w)
{
    for (int i = 0; i < 16; i++) {
        double z = cos(pi * (i + 0.75) / 16.5), dp = 1.0;
        for (int it = 0; it < 100; it++) {
            double p0 = 1.0, p1 = z;
            for (int j = 2; j <= 16; j++) {
                const double p2 = ((2.0 * j - 1.0) * z * p1 - (j - 1.0) * p0) / j;
                p0 = p1;
                p1 = p2;
            }
            dp = 16 * (z * p1 - p0) / (z * z - 1.0);
            const double dz = p1 / dp;
            z -= dz;
            if (fabs(dz) < 1e-16)
                break;
        }
        x[i] = z;
        w[i] = 2.0 / ((1.0 - z * z) * dp * dp);
    }
}

#include "test_response_parts.h"

int main(void)
{
    mcf_plugin *pe = NULL, *pk = NULL;
    CHECK(mcfe_plugin_open("ed", MCF_PLUGIN_FERMION_EVALUATOR, &pe) == MCF_OK, "ed: %s",
          mcf_last_error());
    CHECK(mcfe_plugin_open("kpm", MCF_PLUGIN_FERMION_EVALUATOR, &pk) == MCF_OK, "kpm: %s",
          mcf_last_error());
    if (!pe || !pk)
        return check_exit();
    ed_info = pe->info;
    kpm_info = pk->info;
    CHECK(mcf_fermion_provides(ed_info) & MCF_PROVIDES_RESPONSE, "ed: no response");
    CHECK(mcf_fermion_provides(kpm_info) & MCF_PROVIDES_RESPONSE, "kpm: no response");
    part_a();
    part_bcd();
    part_e();
    part_f();
    part_g();
    part_h();
    tev_batch_release();
    mcfe_plugin_close(pk);
    mcfe_plugin_close(pe);
    return check_exit();
}
