/* ed.c — the exact-diagonalization fermion evaluator "ed": the reference every fast
 * evaluator (kpm, kpm-cuda) is checked against, usable for small lattices.
 *
 * Method.  The dense Hermitian matrix of the Hamiltonian (mcf_hamiltonian_dense) is
 * diagonalized with GSL (gsl_eigen_hermv: eigenvalues eps_k and eigenvectors psi_k, or
 * gsl_eigen_herm when only eigenvalues are needed), or with eigensolver = householder by
 * ed_eigen.c's Householder + QL solver (9-22x faster with eigenvectors, other rounding);
 * when every amplitude is real, by GSL's real symmetric solvers gsl_eigen_symmv /
 * gsl_eigen_symm, and every answer
 * is an exact sum over the spectrum, with each delta function broadened:
 *
 *   DOS       rho(E)    = (1/dim) sum_k g(E - eps_k)
 *   LDOS      rho_r(E)  = sum_k |psi_k(r)|^2 g(E - eps_k)
 *   Green     G_rr(E)   = sum_k |psi_k(r)|^2 / (E - eps_k + i eta)
 *   density   n         = (1/dim) sum_k f(eps_k)
 *   energy    e         = (1/dim) sum_k eps_k f(eps_k)
 *   their T-derivatives   (1/dim) sum_k (1, eps_k) (eps_k - mu) / T^2 f (1 - f)
 *   action    S         = S_eff(H) = -sum_k log(1 + exp(-(eps_k - mu) / T))
 *   delta     dS        = S_eff(H + Delta) - S_eff(H)
 *   density matrix  rho = sum_k f(eps_k) |psi_k><psi_k| on H's nonzero elements (ed_density.c)
 *
 * with g the normalized Gaussian of width sigma = `broadening`, eta = sigma (ed_spectra.c)
 * and f the Fermi function (ed_thermodynamics.c).
 *
 * This file holds the parameters, the workspace (create, destroy) and its energy grid, and
 * the descriptor; the diagonalization and its cache are ed_diagonalize.c, the curves
 * ed_spectra.c, occupation and actions ed_thermodynamics.c, the batch loop of every op
 * ed_batch.c; ed_internal.h is what they share.
 *
 * Written against ABI 2 (mcf_fermion_evaluator, docs/sdk-1.md).
 *
 * Energy grid: energy_points values, uniform from emin to emax of mcf_hamiltonian_bounds
 * (the first and last exactly emin and emax).  Only when the bounds are degenerate
 * (emin == emax, H = c 1 with free bounds) the grid is widened to
 * c -+ max(5 sigma, sqrt(DBL_EPSILON) |c|), so that the broadened delta function is seen
 * and the grid is strictly ascending.  Curves are not renormalized: a level within a few
 * sigma of a grid end loses the part of its Gaussian that lies outside the grid. */
#include "ed_internal.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

static const mcf_param_spec ed_params[] = {
    {"energy_points", MCF_PARAM_INT, "512", MCF_PARAM_HAS_MIN, 2, 0, NULL,
     .doc = "number of energies of the uniform grid from emin to emax of the Hamiltonian's bounds"},
    {"broadening", MCF_PARAM_REAL, "0.01",
     MCF_PARAM_HAS_MIN | MCF_PARAM_MIN_EXCLUSIVE | MCF_PARAM_FINITE, 0, 0, NULL,
     .doc = "width sigma of the Gaussian replacing each level in DOS/LDOS curves, and the "
     "imaginary part eta of the Green's functions' energy (energy units of the Hamiltonian)"},
    {"max_dim", MCF_PARAM_INT, "4096", MCF_PARAM_HAS_MIN, 1, 0, NULL,
     .doc = "largest Hamiltonian dimension accepted (time grows as dim^3; memory 8 dim^2 bytes per "
     "workspace, 32 dim^2 bytes more while diagonalizing, 16 dim^2 bytes kept once "
     "delta_action was used)"},
    {"eigensolver", MCF_PARAM_CHOICE, "gsl", MCF_PARAM_NO_SCAN | MCF_PARAM_ECHO_IF_CHANGED, 0, 0,
     "gsl|householder",
     .doc = "the solver of complex Hermitian matrices: gsl (gsl_eigen_hermv / herm, the "
     "default: the bits every earlier run and checkpoint of ed has) or householder "
     "(plugins/ed/ed_eigen.c: Householder reduction and implicit QL, 9-22x faster with "
     "eigenvectors at dimensions 16-256, other rounding); real symmetric matrices always "
     "go to GSL's symmv / symm"},
    {0}};

/* ---- workspace -------------------------------------------------------------------- */

static void ed_destroy(void *p)
{
    ed_ws *w = p;
    if (!w)
        return;
    free(w->eval);
    free(w->weight);
    free(w->grid);
    free(w->dense);
    free(w->eval2);
    if (w->symm_ws)
        gsl_eigen_symm_free(w->symm_ws);
    free(w);
}

static int ed_create(const mcf_params *params, const mcf_hamiltonian *h, void **out)
{
    if (!out)
        return mcf_fail(MCF_EINVAL, "ed: create: ws is NULL");
    *out = NULL;
    if (!params || !h)
        return mcf_fail(MCF_EINVAL, "ed: create: the %s is NULL",
                        !params ? "parameter set" : "Hamiltonian");
    long points, max_dim;
    int solver = 0;
    double sigma;
    int rc;
    if ((rc = mcf_params_int(params, "energy_points", &points)) ||
        (rc = mcf_params_real(params, "broadening", &sigma)) ||
        (rc = mcf_params_int(params, "max_dim", &max_dim)) ||
        (rc = mcf_params_choice(params, "eigensolver", &solver)))
        return mcf_fail_prefix(rc, "ed");
    const char *sec = mcf_params_section(params), *origin = mcf_params_origin(params);
    if (h->dim > (size_t)max_dim)
        return mcf_fail(MCF_EINVAL,
                        "ed: the Hamiltonian has dimension %zu, more than [%s] max_dim = %ld "
                        "(%s); exact diagonalization costs O(dim^3) time and 40 dim^2 bytes, "
                        "so use a smaller lattice, evaluator = kpm, or raise max_dim",
                        h->dim, sec, max_dim, origin);
    if (h->dim > SIZE_MAX / 4 / sizeof(double) / h->dim)
        return mcf_fail(MCF_EINVAL, "ed: dimension %zu is too large to hold a dense matrix",
                        h->dim);
    ed_ws *w = calloc(1, sizeof *w);
    if (!w)
        return mcf_fail(MCF_ENOMEM, "ed: out of memory");
    w->h = h;
    w->dim = h->dim;
    w->points = (size_t)points;
    w->sigma = sigma;
    w->gsl_complex = solver == 0;
    w->eval = malloc(w->dim * sizeof *w->eval);
    w->grid = malloc(w->points * sizeof *w->grid);
    if (!w->eval || !w->grid) {
        ed_destroy(w);
        return mcf_fail(MCF_ENOMEM, "ed: out of memory for a workspace of dimension %zu with "
                        "%ld energy points", h->dim, points);
    }
    *out = w;
    return MCF_OK;
}

/* The grid for h's current bounds (see the top of this file). */
void ed_grid(const ed_ws *w, double *E)
{
    double lo, hi;
    mcf_hamiltonian_bounds(w->h, &lo, &hi);
    if (!(hi > lo)) {
        const double c = 0.5 * (lo + hi);
        const double pad = fmax(5.0 * w->sigma, sqrt(DBL_EPSILON) * fabs(c));
        lo = c - pad;
        hi = c + pad;
    }
    const size_t n = w->points;
    const double step = (hi - lo) / (double)(n - 1);
    for (size_t e = 0; e + 1 < n; e++)
        E[e] = lo + step * (double)e;
    E[n - 1] = hi;
}

/* create of ABI 2: no app_data */
static int ed_create_abi2(const mcf_params *params, const mcf_hamiltonian *h, void *app_data,
                          void **out)
{
    (void)app_data;
    return ed_create(params, h, out);
}

static const mcf_fermion_evaluator ed_ops = {
    .struct_size = sizeof(mcf_fermion_evaluator),
    .provides = MCF_PROVIDES_CHANGE_ACTION | MCF_PROVIDES_OCCUPATION | MCF_PROVIDES_DOS |
                MCF_PROVIDES_LDOS | MCF_PROVIDES_GREEN | MCF_PROVIDES_ACTION |
                MCF_PROVIDES_OCCUPATION_DT | MCF_PROVIDES_DENSITY_MATRIX |
                MCF_PROVIDES_PSEUDOFERMION | MCF_PROVIDES_RESPONSE |
                MCF_PROVIDES_VECTOR_MOMENTS,
    .create = ed_create_abi2,
    .destroy = ed_destroy,
    .spectra = ed_spectra,
    .occupation = ed_occupation,
    .change_action = ed_change_action,
    .action = ed_action,
    .reconstruct = NULL, /* no moments */
    .density_matrix = ed_density_matrix,
    .pseudofermion = ed_pseudofermion,
    .response = ed_response,
    .vector_moments = ed_vector_moments,
};

MCF_PLUGIN_DESCRIPTOR(MCF_PLUGIN_FERMION_EVALUATOR, "ed", "1.0",
                      "exact diagonalization (GSL, dense Hermitian): exact DOS, LDOS, Green's "
                      "functions, occupations, actions and action differences of local "
                      "changes for small Hamiltonians; the reference for kpm",
                      ed_params, &ed_ops,
                      .auto_priority = 0) /* an exact reference: never chosen by auto */
