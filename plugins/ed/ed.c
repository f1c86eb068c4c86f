/* ed.c — the exact-diagonalization fermion evaluator "ed": the reference every fast
 * evaluator (kpm, kpm-cuda) is checked against, usable for small lattices.
 *
 * Method.  The dense Hermitian matrix of the Hamiltonian (mcf_hamiltonian_dense) is
 * diagonalized with GSL (gsl_eigen_hermv: eigenvalues eps_k and eigenvectors psi_k, or
 * gsl_eigen_herm when only eigenvalues are needed; when every amplitude is real, the real
 * symmetric solvers gsl_eigen_symmv / gsl_eigen_symm, about 4x faster), and every answer
 * is an exact sum over the spectrum, with each delta function broadened:
 *
 *   DOS       rho(E)    = (1/dim) sum_k g(E - eps_k)
 *   LDOS      rho_r(E)  = sum_k |psi_k(r)|^2 g(E - eps_k)
 *   Green     G_rr(E)   = sum_k |psi_k(r)|^2 / (E - eps_k + i eta)
 *   density   n         = (1/dim) sum_k f(eps_k)
 *   energy    e         = (1/dim) sum_k eps_k f(eps_k)
 *   action    S         = S_eff(H) = -sum_k log(1 + exp(-(eps_k - mu) / T))
 *   delta     dS        = S_eff(H + Delta) - S_eff(H)
 *
 * with g the normalized Gaussian of width sigma = `broadening`,
 * g(x) = exp(-x^2 / (2 sigma^2)) / (sqrt(2 pi) sigma), and eta = sigma.  Note that
 * -Im G_rr / pi is therefore the *Lorentzian*-broadened LDOS (eta / pi) / ((E - eps)^2 +
 * eta^2), not the Gaussian-broadened curve ldos() returns: the two agree as sigma -> 0.
 * Gaussian terms with |E - eps_k| > 40 sigma are skipped: exp(-800) underflows to 0, so
 * the skip changes no bit.  Density and energy use no broadening at all: f is the Fermi
 * function 1 / (1 + exp((E - mu) / T)), evaluated as exp(-x) / (1 + exp(-x)) for x > 0
 * (no overflow for any |E - mu| / T), and at T = 0 the step 1 (E < mu), 1/2 (E = mu),
 * 0 (E > mu).
 *
 * Action (action).  From the cached eigenvalues (the cache of dos/delta_action: no new
 * diagonalization for a known h->version), for m points (T, mu) per workspace:
 * S = -sum_k softplus(y_k), y_k = (mu - eps_k) / T, softplus(y) = log(1 + e^y) evaluated as
 * max(y, 0) + log1p(exp(-|y|)) (no overflow for any T > 0), added with Neumaier's
 * compensated summation in level order; err (when not NULL) is 0: the only error is the
 * eigensolver's (see below: ~3e-15 ||H|| per level, times the occupied levels / T) and
 * rounding.  T, mu and the arrays are checked before any work, naming workspace and point.
 *
 * Action differences (delta_action).  The action is a sum over every level, not per state.
 * The eigenvalues of H come from the cache below; those of H' = H + Delta are computed
 * (eigenvalues only) from the dense H (mcf_hamiltonian_dense) plus the dense change
 * (mcf_change_add_dense; change_action takes any finite-rank change of mcf/change.h, whose
 * err is 0), with the real symmetric solver when the strict lower
 * triangle of H' (the part GSL's solvers read) is real.  The diagonal of H' is made
 * exactly real first: its imaginary part can only be rounding of u_a C_ab u_b^*, or the
 * anti-Hermitian part of C below mcf_local_change_check's 1e-12 tolerance.  With both
 * spectra ascending, dS = sum_k [L(x_k) - L(x'_k)], L(x) = log(1 + exp(-x)),
 * x_k = (eps_k - mu) / T, pairs the k-th levels of H and H' (for a change of rank r the
 * k-th level moves at most to the place of the (k -+ r)-th, so far from the change the
 * terms nearly cancel one by one).  L is split into max(-x, 0) + log1p(exp(-|x|)): the
 * linear parts of a pair are subtracted as energies before dividing by T,
 * (max(mu - eps_k, 0) - max(mu - eps'_k, 0)) / T, bounded by |eps'_k - eps_k| / T: no
 * term overflows for any T > 0 unless a level's shift divided by T does (then the sum is
 * not finite: MCF_EINVAL), and T -> 0 gives dS -> (Omega'_0 - Omega_0) / T, the change of
 * the ground state's E - mu N, without inf - inf; exp(-|x|) underflows harmlessly.
 * The terms are added with Neumaier's compensated summation: besides the rounding of each
 * L (u |x_k|, u = 1.1e-16), the sum adds ~u |dS|; against a long-double sum of the same
 * eigenvalues the two differ by ~1e-13 at dim 1728, T = 0.05.  What limits dS is the
 * eigensolvers' error: GSL's eigenvalues of H and of H' are each off by ~3e-15 ||H|| rms
 * (up to ~3e-14 ||H||; measured as the difference of the real and complex solvers),
 * independently, so dS is off by ~3e-15 ||H|| sqrt(2 N_occ) / T (N_occ: levels below
 * mu + a few T).  The scale of dS is ||Delta|| / T (|L'| <= 1 and Lidskii:
 * |dS| <= sum_k |eps'_k - eps_k| / T <= sqrt(rank) ||Delta||_F / T); relative to it the
 * error is ~1e-12 for dim up to a few thousand when ||Delta|| >~ ||H|| / 10.  Measured on
 * a 3D Anderson lattice (W = 12, ||H|| ~ 12, T = 0.05, a hopping change |o><v| + |v><o|,
 * ||Delta||_F ~ 1) against an independent computation (complex solver, H' built
 * separately, long-double sums): 8e-13 of ||Delta||_F / T at dim 1000, 3e-12 at dim 1728
 * (both computations' noise); at dim 20..60 test_ed finds ~2e-15.  Relative to |dS|
 * itself the error is larger where dS is small by cancellation, and a change far below
 * ~1e-14 ||H|| sqrt(dim) is lost in the noise of any double-precision diagonalization.
 * Time: one eigenvalue solve per call (H'), two when H's version is new; dim 1728 real:
 * 2.3 s per call on one core of the development machine.
 *
 * Energy grid: energy_points values, uniform from emin to emax of mcf_hamiltonian_bounds
 * (the first and last exactly emin and emax).  Only when the bounds are degenerate
 * (emin == emax, H = c 1 with free bounds) the grid is widened to
 * c -+ max(5 sigma, sqrt(DBL_EPSILON) |c|), so that the broadened delta function is seen
 * and the grid is strictly ascending.  Curves are not renormalized: a level within a few
 * sigma of a grid end loses the part of its Gaussian that lies outside the grid.
 *
 * Laziness.  A workspace remembers h->version of its last diagonalization (eigenvalues
 * only, or with eigenvectors) and diagonalizes again only when the version changed or
 * eigenvectors are needed for the first time; delta_action and action share that cache,
 * so calls for many changes of one H diagonalize H once and H' once per call, and action
 * diagonalizes nothing for a known version.  Before diagonalizing
 * it checks the Hamiltonian (mcf_hamiltonian_check), so a corrupted table is refused
 * instead of giving wrong numbers.  Like every op, it trusts h->version: a Hamiltonian
 * edited without a version bump is a stale cache (and delta_action would then pair the old
 * spectrum of H with the new H').  Memory: dim doubles of eigenvalues and, once the LDOS
 * or Green's functions were asked for, dim^2 doubles of |psi_k(r)|^2 per workspace; while
 * diagonalizing, 4 dim^2 doubles more (matrix and eigenvectors), freed at once.  The first
 * delta_action call allocates 2 dim^2 + dim doubles (the dense H', its eigenvalues) and
 * GSL's O(dim) eigenvalue workspaces, kept until destroy(), which the eigenvalue-only
 * diagonalizations of every op then reuse: later calls allocate nothing unless
 * eigenvectors are asked for.
 * Time: GSL's solvers are unblocked and stride through memory when they accumulate
 * eigenvectors; measured on one core of the development machine: dim 1024, complex,
 * eigenvalues 0.9 s, with eigenvectors 52 s (real symmetric: 13 s); dim 2048 complex with
 * eigenvectors 426 s.  So dimensions beyond ~1000 are for patient reference runs only.
 * GSL's own workspaces are O(dim) and allocated last; GSL's default error handler would
 * abort on their allocation failure, like any GSL allocation.
 *
 * Batches: the ops loop over workspaces with OpenMP (one workspace per thread); the
 * workspaces of one call must be distinct.  A failure in any workspace is reported on the
 * calling thread, naming the workspace's index in the batch.  Each workspace's numbers are
 * computed by one thread in a fixed order, so a batch reproduces single calls bit for bit.
 * delta_action checks every change, T and mu before any work, naming the workspace (also
 * in a batch of one); action checks every T and mu likewise, naming workspace and point. */
#include "mcf/mcf.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_eigen.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_sort_vector.h>
#include <gsl/gsl_vector.h>

#define ED_GAUSS_CUTOFF 40.0 /* in units of sigma */
#define ED_BLOCK 32          /* energies per kernel block in ldos() and green() */
#define ED_SQRT_2PI 2.50662827463100050242 /* sqrt(2 pi) */

static const mcf_param_spec ed_params[] = {
    {"energy_points", MCF_PARAM_INT, "512", MCF_PARAM_HAS_MIN, 2, 0, NULL,
     "number of energies of the uniform grid from emin to emax of the Hamiltonian's bounds"},
    {"broadening", MCF_PARAM_REAL, "0.01", MCF_PARAM_HAS_MIN | MCF_PARAM_MIN_EXCLUSIVE, 0, 0,
     NULL,
     "width sigma of the Gaussian replacing each level in DOS/LDOS curves, and the "
     "imaginary part eta of the Green's functions' energy (energy units of the Hamiltonian)"},
    {"max_dim", MCF_PARAM_INT, "4096", MCF_PARAM_HAS_MIN, 1, 0, NULL,
     "largest Hamiltonian dimension accepted (time grows as dim^3; memory 8 dim^2 bytes per "
     "workspace, 32 dim^2 bytes more while diagonalizing, 16 dim^2 bytes kept once "
     "delta_action was used)"},
    {NULL, 0, NULL, 0, 0, 0, NULL, NULL}};

typedef struct ed_ws {
    const mcf_hamiltonian *h; /* borrowed */
    size_t dim, points;
    double sigma;             /* Gaussian width = Lorentzian eta */
    double *eval;             /* dim eigenvalues, ascending */
    double *weight;           /* dim x dim, weight[r * dim + k] = |psi_k(r)|^2; lazy */
    int has_val, has_vec;
    uint64_t val_version, vec_version;
    double *grid;             /* points energies, refreshed by every op */
    double *dense;            /* 2 dim^2: scratch of delta_action (dense H'), lazy, kept */
    double *eval2;            /* dim eigenvalues of H', ascending; lazy, with dense */
    gsl_eigen_herm_workspace *herm_ws; /* eigenvalue-only solvers' workspaces, with dense */
    gsl_eigen_symm_workspace *symm_ws;
    int rc;                   /* status of this workspace in the current batch */
    char err[1024];           /* its message (the failing thread's, copied) */
} ed_ws;

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
    if (w->herm_ws)
        gsl_eigen_herm_free(w->herm_ws);
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
    double sigma;
    int rc;
    if ((rc = mcf_params_int(params, "energy_points", &points)) ||
        (rc = mcf_params_real(params, "broadening", &sigma)) ||
        (rc = mcf_params_int(params, "max_dim", &max_dim)))
        return mcf_fail_prefix(rc, "ed");
    const char *sec = mcf_params_section(params), *origin = mcf_params_origin(params);
    if (points < 2)
        return mcf_fail(MCF_EINVAL, "ed: [%s] energy_points = %ld in %s must be >= 2", sec,
                        points, origin);
    if (!(sigma > 0) || !isfinite(sigma))
        return mcf_fail(MCF_EINVAL,
                        "ed: [%s] broadening = %g in %s must be a finite number > 0", sec,
                        sigma, origin);
    if (h->dim > (size_t)max_dim || max_dim < 1)
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

static size_t ed_energy_points(const void *p)
{
    return ((const ed_ws *)p)->points;
}

/* The grid for h's current bounds (see the top of this file). */
static void ed_grid(const ed_ws *w, double *E)
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

static int ed_energies(void *p, double *E)
{
    if (!p || !E)
        return mcf_fail(MCF_EINVAL, "ed: energies: the %s is NULL",
                        !p ? "workspace" : "output array");
    ed_grid(p, E);
    return MCF_OK;
}

/* ---- diagonalization -------------------------------------------------------------- */

/* Is every off-diagonal amplitude real?  Then H is real symmetric. */
static int ed_is_real(const mcf_hamiltonian *h)
{
    const size_t slots = (size_t)h->width * h->dim;
    for (size_t s = 0; s < slots; s++)
        if (h->col[s] >= 0 && h->hop_im[s] != 0.0)
            return 0;
    return 1;
}

/* Complex Hermitian: mat (2 n^2, interleaved, destroyed) -> eval ascending and, when vec
 * (2 n^2 scratch) is not NULL, weight[r * n + k] = |psi_k(r)|^2.  Eigenvalues only: with
 * GSL's workspace hw when it is not NULL (kept by the caller), else a temporary one.  A GSL
 * status. */
static int ed_eigen_complex(double *mat, double *vec, size_t n, double *eval, double *weight,
                            gsl_eigen_herm_workspace *hw)
{
    gsl_matrix_complex_view A = gsl_matrix_complex_view_array(mat, n, n);
    gsl_vector_view ev = gsl_vector_view_array(eval, n);
    int status;
    if (vec) {
        gsl_matrix_complex_view Z = gsl_matrix_complex_view_array(vec, n, n);
        gsl_eigen_hermv_workspace *ws = gsl_eigen_hermv_alloc(n);
        if (!ws)
            return GSL_ENOMEM;
        status = gsl_eigen_hermv(&A.matrix, &ev.vector, &Z.matrix, ws);
        gsl_eigen_hermv_free(ws);
        if (!status)
            status = gsl_eigen_hermv_sort(&ev.vector, &Z.matrix, GSL_EIGEN_SORT_VAL_ASC);
        if (!status)
            for (size_t q = 0; q < n * n; q++)
                weight[q] = vec[2 * q] * vec[2 * q] + vec[2 * q + 1] * vec[2 * q + 1];
        return status;
    }
    gsl_eigen_herm_workspace *ws = hw ? hw : gsl_eigen_herm_alloc(n);
    if (!ws)
        return GSL_ENOMEM;
    status = gsl_eigen_herm(&A.matrix, &ev.vector, ws);
    if (!hw)
        gsl_eigen_herm_free(ws);
    if (!status)
        gsl_sort_vector(&ev.vector);
    return status;
}

/* Real symmetric (every imaginary part zero), the common case (Anderson, Holstein, ...):
 * GSL's real solver is about 4x faster than the complex one (dim 1024 with eigenvectors:
 * 15 s against 65 s).  The real parts are packed to the front of mat and vec in place.
 * sw: like hw above. */
static int ed_eigen_real(double *mat, double *vec, size_t n, double *eval, double *weight,
                         gsl_eigen_symm_workspace *sw)
{
    for (size_t q = 0; q < n * n; q++) /* q <= 2q: packing in place is safe */
        mat[q] = mat[2 * q];
    gsl_matrix_view A = gsl_matrix_view_array(mat, n, n);
    gsl_vector_view ev = gsl_vector_view_array(eval, n);
    int status;
    if (vec) {
        gsl_matrix_view Z = gsl_matrix_view_array(vec, n, n);
        gsl_eigen_symmv_workspace *ws = gsl_eigen_symmv_alloc(n);
        if (!ws)
            return GSL_ENOMEM;
        status = gsl_eigen_symmv(&A.matrix, &ev.vector, &Z.matrix, ws);
        gsl_eigen_symmv_free(ws);
        if (!status)
            status = gsl_eigen_symmv_sort(&ev.vector, &Z.matrix, GSL_EIGEN_SORT_VAL_ASC);
        if (!status)
            for (size_t q = 0; q < n * n; q++)
                weight[q] = vec[q] * vec[q];
        return status;
    }
    gsl_eigen_symm_workspace *ws = sw ? sw : gsl_eigen_symm_alloc(n);
    if (!ws)
        return GSL_ENOMEM;
    status = gsl_eigen_symm(&A.matrix, &ev.vector, ws);
    if (!sw)
        gsl_eigen_symm_free(ws);
    if (!status)
        gsl_sort_vector(&ev.vector);
    return status;
}

/* Diagonalizes h unless the current version has been diagonalized already (with
 * eigenvectors when need_vec).  Records a message on failure. */
static int ed_diagonalize(ed_ws *w, int need_vec)
{
    const mcf_hamiltonian *h = w->h;
    if (w->has_vec && w->vec_version == h->version)
        return MCF_OK;
    if (!need_vec && w->has_val && w->val_version == h->version)
        return MCF_OK;
    if (h->dim != w->dim)
        return mcf_fail(MCF_EINVAL, "ed: the Hamiltonian's dimension changed from %zu to %zu "
                        "since the workspace was created", w->dim, h->dim);
    int rc = mcf_hamiltonian_check(h);
    if (rc)
        return mcf_fail_prefix(rc, "ed: refusing to diagonalize an invalid Hamiltonian");
    const size_t n = w->dim;
    if (need_vec && !w->weight) {
        w->weight = malloc(n * n * sizeof *w->weight);
        if (!w->weight)
            return mcf_fail(MCF_ENOMEM, "ed: out of memory for the %zu x %zu eigenvector "
                            "weights", n, n);
    }
    /* delta_action's kept scratch, when there is one, serves as the matrix */
    double *mat = w->dense ? w->dense : malloc(2 * n * n * sizeof *mat);
    double *vec = need_vec ? malloc(2 * n * n * sizeof *vec) : NULL;
    if (!mat || (need_vec && !vec)) {
        if (mat != w->dense)
            free(mat);
        free(vec);
        return mcf_fail(MCF_ENOMEM, "ed: out of memory for the dense %zu x %zu matrix", n, n);
    }
    /* the only GSL allocations left are the O(n) eigensolver workspaces */
    w->has_val = w->has_vec = 0;
    mcf_hamiltonian_dense(h, mat);
    const int status = ed_is_real(h)
                           ? ed_eigen_real(mat, vec, n, w->eval, w->weight, w->symm_ws)
                           : ed_eigen_complex(mat, vec, n, w->eval, w->weight, w->herm_ws);
    if (mat != w->dense)
        free(mat);
    free(vec);
    if (status == GSL_ENOMEM)
        return mcf_fail(MCF_ENOMEM, "ed: out of memory for the eigensolver (dim %zu)", n);
    if (status)
        return mcf_fail(MCF_EINTERNAL, "ed: the GSL eigensolver failed for dimension %zu: %s",
                        n, gsl_strerror(status));
    for (size_t k = 0; k < n; k++)
        if (!isfinite(w->eval[k]))
            return mcf_fail(MCF_EINTERNAL, "ed: eigenvalue %zu is not finite (%g)", k,
                            w->eval[k]);
    w->has_val = 1;
    w->val_version = h->version;
    if (need_vec) {
        w->has_vec = 1;
        w->vec_version = h->version;
    }
    return MCF_OK;
}

/* ---- kernels ---------------------------------------------------------------------- */

static double ed_gauss(double x, double sigma)
{
    const double u = x / sigma;
    if (fabs(u) > ED_GAUSS_CUTOFF)
        return 0.0;
    return exp(-0.5 * u * u) / (ED_SQRT_2PI * sigma);
}

/* First index k with eval[k] >= x (eval ascending). */
static size_t ed_lower(const double *eval, size_t n, double x)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        const size_t mid = lo + (hi - lo) / 2;
        if (eval[mid] < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static double ed_fermi(double e, double mu, double T)
{
    if (T == 0.0)
        return e < mu ? 1.0 : e > mu ? 0.0 : 0.5;
    const double x = (e - mu) / T;
    if (x > 0) {
        const double q = exp(-x);
        return q / (1.0 + q);
    }
    return 1.0 / (1.0 + exp(x));
}

/* ---- one workspace's work --------------------------------------------------------- */

static int ed_dos_one(ed_ws *w, double *out)
{
    if (!out)
        return mcf_fail(MCF_EINVAL, "ed: dos: the output array is NULL");
    int rc = ed_diagonalize(w, 0);
    if (rc)
        return rc;
    ed_grid(w, w->grid);
    const size_t n = w->dim;
    const double cut = ED_GAUSS_CUTOFF * w->sigma, inv = 1.0 / (double)n;
    for (size_t e = 0; e < w->points; e++) {
        const double E = w->grid[e];
        double s = 0.0;
        for (size_t k = ed_lower(w->eval, n, E - cut); k < n && w->eval[k] <= E + cut; k++)
            s += ed_gauss(E - w->eval[k], w->sigma);
        out[e] = s * inv;
    }
    return MCF_OK;
}

static int ed_check_rows(const ed_ws *w, const size_t *rows, size_t n_rows, const char *op)
{
    if (n_rows && !rows)
        return mcf_fail(MCF_EINVAL, "ed: %s: %zu rows asked for but the row list is NULL", op,
                        n_rows);
    for (size_t j = 0; j < n_rows; j++)
        if (rows[j] >= w->dim)
            return mcf_fail(MCF_EINVAL,
                            "ed: %s: row %zu (entry %zu of the list) is out of range; rows run "
                            "from 0 to %zu",
                            op, rows[j], j, w->dim - 1);
    return MCF_OK;
}

/* LDOS (im == NULL: Gaussian) or Green's functions (re, im: Lorentzian) of the rows, by
 * blocks of ED_BLOCK energies: the kernel values for all levels of a block are computed
 * once and shared by all rows. */
static int ed_rows_one(ed_ws *w, const size_t *rows, size_t n_rows, double *re, double *im)
{
    const int green = im != NULL;
    const char *op = green ? "green" : "ldos";
    int rc = ed_check_rows(w, rows, n_rows, op);
    if (rc)
        return rc;
    if (n_rows && !re)
        return mcf_fail(MCF_EINVAL, "ed: %s: the output array is NULL", op);
    if (!n_rows)
        return MCF_OK;
    if ((rc = ed_diagonalize(w, 1)))
        return rc;
    ed_grid(w, w->grid);
    const size_t n = w->dim, P = w->points;
    double *kr = malloc(ED_BLOCK * n * sizeof *kr);
    double *ki = green ? malloc(ED_BLOCK * n * sizeof *ki) : NULL;
    if (!kr || (green && !ki)) {
        free(kr);
        free(ki);
        return mcf_fail(MCF_ENOMEM, "ed: %s: out of memory for the kernel block", op);
    }
    const double eta = w->sigma, eta2 = eta * eta;
    for (size_t e0 = 0; e0 < P; e0 += ED_BLOCK) {
        const size_t nb = P - e0 < ED_BLOCK ? P - e0 : ED_BLOCK;
        for (size_t b = 0; b < nb; b++) {
            const double E = w->grid[e0 + b];
            double *kb = kr + b * n;
            if (green) {
                double *ib = ki + b * n;
                for (size_t k = 0; k < n; k++) {
                    const double x = E - w->eval[k], d = 1.0 / (x * x + eta2);
                    kb[k] = x * d;
                    ib[k] = -eta * d;
                }
            } else {
                for (size_t k = 0; k < n; k++)
                    kb[k] = ed_gauss(E - w->eval[k], w->sigma);
            }
        }
        for (size_t j = 0; j < n_rows; j++) {
            const double *wt = w->weight + rows[j] * n;
            for (size_t b = 0; b < nb; b++) {
                const double *kb = kr + b * n;
                double s = 0.0;
                for (size_t k = 0; k < n; k++)
                    s += wt[k] * kb[k];
                re[j * P + e0 + b] = s;
                if (green) {
                    const double *ib = ki + b * n;
                    double t = 0.0;
                    for (size_t k = 0; k < n; k++)
                        t += wt[k] * ib[k];
                    im[j * P + e0 + b] = t;
                }
            }
        }
    }
    free(kr);
    free(ki);
    return MCF_OK;
}

static int ed_occupation_one(ed_ws *w, double mu, double T, double *density, double *energy)
{
    int rc = ed_diagonalize(w, 0);
    if (rc)
        return rc;
    double sn = 0.0, se = 0.0;
    for (size_t k = 0; k < w->dim; k++) {
        const double f = ed_fermi(w->eval[k], mu, T);
        sn += f;
        se += w->eval[k] * f;
    }
    *density = sn / (double)w->dim;
    *energy = se / (double)w->dim;
    return MCF_OK;
}

/* log1p(exp(-y)) for y >= 0 (the bounded part of L(x) = log(1 + exp(-x)) =
 * max(-x, 0) + log1p(exp(-|x|))): exp(-y) <= 1 never overflows, and underflows only where
 * the term is below every double anyway. */
static double ed_log1p_exp_neg(double y)
{
    return log1p(exp(-y));
}

/* The kept scratch of delta_action: dense H', its eigenvalues, GSL's workspaces. */
static int ed_delta_scratch(ed_ws *w)
{
    if (w->dense)
        return MCF_OK;
    const size_t n = w->dim;
    double *dense = malloc(2 * n * n * sizeof *dense);
    w->eval2 = w->eval2 ? w->eval2 : malloc(n * sizeof *w->eval2);
    if (!w->herm_ws)
        w->herm_ws = gsl_eigen_herm_alloc(n);
    if (!w->symm_ws)
        w->symm_ws = gsl_eigen_symm_alloc(n);
    if (!dense || !w->eval2 || !w->herm_ws || !w->symm_ws) {
        free(dense);
        return mcf_fail(MCF_ENOMEM, "ed: delta_action: out of memory for the dense %zu x %zu "
                        "matrix H + Delta (%zu MiB per workspace)", n, n,
                        (2 * n * n * sizeof *dense) >> 20);
    }
    w->dense = dense;
    return MCF_OK;
}

static int ed_delta_one(ed_ws *w, const mcf_local_change *lc, const mcf_change *c, double T,
                        double mu, double *dS)
{
    int rc = ed_delta_scratch(w);
    if (rc || (rc = ed_diagonalize(w, 0))) /* H: cached by version */
        return rc;
    const size_t n = w->dim;
    double *m = w->dense;
    mcf_hamiltonian_dense(w->h, m);
    if (c)
        mcf_change_add_dense(c, n, m);
    else
        mcf_local_change_add_dense(lc, n, m);
    /* H' is Hermitian: its diagonal is real (see the top of this file); the solvers read
     * the lower triangle, so that decides whether the real one applies */
    int real = 1;
    for (size_t i = 0; i < n; i++) {
        m[2 * (i * n + i) + 1] = 0.0;
        for (size_t j = 0; j < i && real; j++)
            real = m[2 * (i * n + j) + 1] == 0.0;
    }
    const int status = real ? ed_eigen_real(m, NULL, n, w->eval2, NULL, w->symm_ws)
                            : ed_eigen_complex(m, NULL, n, w->eval2, NULL, w->herm_ws);
    if (status)
        return mcf_fail(MCF_EINTERNAL, "ed: delta_action: the GSL eigensolver failed for H + "
                        "Delta of dimension %zu: %s", n, gsl_strerror(status));
    for (size_t k = 0; k < n; k++)
        if (!isfinite(w->eval2[k]))
            return mcf_fail(MCF_EINVAL, "ed: delta_action: eigenvalue %zu of H + Delta is not "
                            "finite (%g): the change's amplitudes are too large", k,
                            w->eval2[k]);
    /* sum_k [L(x_k) - L(x'_k)], both spectra ascending, compensated (Neumaier) */
    double sum = 0.0, comp = 0.0;
    for (size_t k = 0; k < n; k++) {
        const double a = mu - w->eval[k], b = mu - w->eval2[k];
        const double term = (fmax(a, 0.0) - fmax(b, 0.0)) / T +
                            (ed_log1p_exp_neg(fabs(a) / T) - ed_log1p_exp_neg(fabs(b) / T));
        const double t = sum + term;
        comp += fabs(sum) >= fabs(term) ? (sum - t) + term : (term - t) + sum;
        sum = t;
    }
    *dS = sum + comp;
    if (!isfinite(*dS)) {
        double shift = 0.0;
        for (size_t k = 0; k < n; k++)
            shift = fmax(shift, fabs(w->eval2[k] - w->eval[k]));
        return mcf_fail(MCF_EINVAL, "ed: delta_action: the action difference overflows: the "
                        "change moves a level by up to %g, and that divided by T = %g exceeds "
                        "the double range; use a larger T", shift, T);
    }
    return MCF_OK;
}

/* S_eff of the cached spectrum at m points (T, mu checked by the caller) */
static int ed_action_one(ed_ws *w, size_t m, const double *T, const double *mu, double *S,
                         double *err)
{
    int rc = ed_diagonalize(w, 0);
    if (rc)
        return rc;
    for (size_t p = 0; p < m; p++) {
        double sum = 0.0, comp = 0.0;
        for (size_t k = 0; k < w->dim; k++) {
            const double y = (mu[p] - w->eval[k]) / T[p];
            const double term = -(fmax(y, 0.0) + ed_log1p_exp_neg(fabs(y)));
            const double t = sum + term;
            comp += fabs(sum) >= fabs(term) ? (sum - t) + term : (term - t) + sum;
            sum = t;
        }
        S[p] = sum + comp;
        if (err)
            err[p] = 0.0;
        if (!isfinite(S[p]))
            return mcf_fail(MCF_EINVAL, "ed: action: point %zu: the action is not finite "
                            "(T = %g, mu = %g, levels from %g to %g): use a larger T", p,
                            T[p], mu[p], w->eval[0], w->eval[w->dim - 1]);
    }
    return MCF_OK;
}

/* ---- batches ---------------------------------------------------------------------- */

enum { ED_DOS, ED_LDOS, ED_GREEN, ED_OCC, ED_DELTA, ED_ACTION };

typedef struct ed_request {
    int what;
    double *const *out;        /* dos, ldos, green re */
    double *const *out_im;     /* green im */
    const size_t *const *rows;
    size_t n_rows;
    double mu, T;
    double *density, *energy;
    const mcf_local_change *const *changes; /* delta_action: per workspace */
    const mcf_change *const *gchanges;      /* change_action: per workspace */
    const double *Ts, *mus;
    double *dS;
    size_t m;                  /* action: points per workspace (Ts, mus, S, err: n m) */
    double *S, *err;
} ed_request;

static void ed_run_one(ed_ws *w, const ed_request *q, size_t k)
{
    int rc = MCF_OK;
    switch (q->what) {
    case ED_DOS: rc = ed_dos_one(w, q->out[k]); break;
    case ED_LDOS: rc = ed_rows_one(w, q->rows[k], q->n_rows, q->out[k], NULL); break;
    case ED_GREEN:
        if (q->n_rows && !q->out_im[k])
            rc = mcf_fail(MCF_EINVAL, "ed: green: the output array of Im G is NULL");
        else
            rc = ed_rows_one(w, q->rows[k], q->n_rows, q->out[k], q->out_im[k]);
        break;
    case ED_OCC: rc = ed_occupation_one(w, q->mu, q->T, &q->density[k], &q->energy[k]); break;
    case ED_DELTA:
        rc = ed_delta_one(w, q->changes ? q->changes[k] : NULL,
                          q->gchanges ? q->gchanges[k] : NULL, q->Ts[k], q->mus[k], &q->dS[k]);
        if (!rc && q->err)
            q->err[k] = 0.0;
        break;
    case ED_ACTION:
        rc = ed_action_one(w, q->m, q->Ts + k * q->m, q->mus + k * q->m, q->S + k * q->m,
                           q->err ? q->err + k * q->m : NULL);
        break;
    }
    w->rc = rc;
    if (rc)
        snprintf(w->err, sizeof w->err, "%s", mcf_last_error());
}

static const char *const ed_op_names[] = {"dos", "ldos", "green", "occupation",
                                          "delta_action", "action"};

/* delta_action's input, checked on the calling thread before any work. */
static int ed_delta_check(void *const *ws, size_t n, const ed_request *q)
{
    for (size_t k = 0; k < n; k++) {
        const ed_ws *w = ws[k];
        int rc = q->gchanges ? mcf_change_check(q->gchanges[k], w->h->dim)
                             : mcf_local_change_check(q->changes[k], w->h->dim);
        if (rc)
            return mcf_fail_prefix(rc, "ed: delta_action: workspace %zu of %zu", k, n);
        if (!(q->Ts[k] > 0.0) || !isfinite(q->Ts[k]))
            return mcf_fail(MCF_EINVAL,
                            "ed: delta_action: workspace %zu of %zu: temperature T = %g must be "
                            "a finite number > 0 (the grand-canonical action needs T > 0; "
                            "approach T = 0 with a small T)",
                            k, n, q->Ts[k]);
        if (!isfinite(q->mus[k]))
            return mcf_fail(MCF_EINVAL,
                            "ed: delta_action: workspace %zu of %zu: chemical potential mu = %g "
                            "must be finite",
                            k, n, q->mus[k]);
    }
    return MCF_OK;
}

/* action's input, checked on the calling thread before any work. */
static int ed_action_check(size_t n, const ed_request *q)
{
    for (size_t k = 0; k < n; k++)
        for (size_t p = 0; p < q->m; p++) {
            const double T = q->Ts[k * q->m + p], mu = q->mus[k * q->m + p];
            if (!(T > 0.0) || !isfinite(T))
                return mcf_fail(MCF_EINVAL,
                                "ed: action: workspace %zu of %zu, point %zu: temperature "
                                "T = %g must be a finite number > 0 (the grand-canonical action "
                                "needs T > 0)",
                                k, n, p, T);
            if (!isfinite(mu))
                return mcf_fail(MCF_EINVAL,
                                "ed: action: workspace %zu of %zu, point %zu: chemical "
                                "potential mu = %g must be finite",
                                k, n, p, mu);
        }
    return MCF_OK;
}

static int ed_run(void *const *ws, size_t n, const ed_request *q)
{
    const char *op = ed_op_names[q->what];
    if (!n)
        return MCF_OK;
    if (!ws)
        return mcf_fail(MCF_EINVAL, "ed: %s: the workspace array is NULL", op);
    for (size_t k = 0; k < n; k++)
        if (!ws[k])
            return mcf_fail(MCF_EINVAL, "ed: %s: workspace %zu of %zu is NULL", op, k, n);
    const int curves = q->what == ED_DOS || q->what == ED_LDOS || q->what == ED_GREEN;
    if ((curves && !q->out) || (q->what == ED_GREEN && !q->out_im) ||
        ((q->what == ED_LDOS || q->what == ED_GREEN) && q->n_rows && !q->rows) ||
        (q->what == ED_OCC && (!q->density || !q->energy)))
        return mcf_fail(MCF_EINVAL, "ed: %s: an output or row array is NULL", op);
    if (q->what == ED_DELTA) {
        if ((!q->changes && !q->gchanges) || !q->Ts || !q->mus || !q->dS)
            return mcf_fail(MCF_EINVAL, "ed: delta_action: the %s array is NULL",
                            !q->changes && !q->gchanges ? "change"
                            : !q->Ts                    ? "T"
                            : !q->mus                   ? "mu"
                                                        : "dS");
        const int rc = ed_delta_check(ws, n, q);
        if (rc)
            return rc;
    }
    if (q->what == ED_ACTION) {
        if (!q->m)
            return MCF_OK;
        if (!q->Ts || !q->mus || !q->S)
            return mcf_fail(MCF_EINVAL, "ed: action: the %s array is NULL",
                            !q->Ts ? "T" : !q->mus ? "mu" : "S");
        const int rc = ed_action_check(n, q);
        if (rc)
            return rc;
    }
    const long nn = (long)n;
#pragma omp parallel for schedule(dynamic, 1) if (n > 1)
    for (long k = 0; k < nn; k++)
        ed_run_one(ws[k], q, (size_t)k);
    for (size_t k = 0; k < n; k++) {
        const ed_ws *w = ws[k];
        if (w->rc)
            return n > 1 ? mcf_fail(w->rc, "%s (workspace %zu of %zu)", w->err, k, n)
                         : mcf_fail(w->rc, "%s", w->err);
    }
    return MCF_OK;
}

static int ed_dos(void *const *ws, size_t n, mcf_rng *const *rngs, double *const *dos)
{
    (void)rngs; /* exact: no random vectors */
    const ed_request q = {.what = ED_DOS, .out = dos};
    return ed_run(ws, n, &q);
}

static int ed_ldos(void *const *ws, size_t n, const size_t *const *rows, size_t n_rows,
                   double *const *out)
{
    const ed_request q = {.what = ED_LDOS, .out = out, .rows = rows, .n_rows = n_rows};
    return ed_run(ws, n, &q);
}

static int ed_green(void *const *ws, size_t n, const size_t *const *rows, size_t n_rows,
                    double *const *re, double *const *im)
{
    const ed_request q = {
        .what = ED_GREEN, .out = re, .out_im = im, .rows = rows, .n_rows = n_rows};
    return ed_run(ws, n, &q);
}

static int ed_occupation(void *const *ws, size_t n, mcf_rng *const *rngs, double mu, double T,
                         double *density, double *energy)
{
    (void)rngs;
    if (!isfinite(mu))
        return mcf_fail(MCF_EINVAL, "ed: occupation: chemical potential mu = %g must be finite",
                        mu);
    if (!(T >= 0.0))
        return mcf_fail(MCF_EINVAL, "ed: occupation: temperature T = %g must be >= 0", T);
    const ed_request q = {
        .what = ED_OCC, .mu = mu, .T = T, .density = density, .energy = energy};
    return ed_run(ws, n, &q);
}

static int ed_delta_action(void *const *ws, size_t n, const mcf_local_change *const *changes,
                           const double *T, const double *mu, double *dS)
{
    const ed_request q = {.what = ED_DELTA, .changes = changes, .Ts = T, .mus = mu, .dS = dS};
    return ed_run(ws, n, &q);
}

static int ed_change_action(void *const *ws, size_t n, const mcf_change *const *changes,
                            const double *T, const double *mu, double *dS, double *err)
{
    const ed_request q = {
        .what = ED_DELTA, .gchanges = changes, .Ts = T, .mus = mu, .dS = dS, .err = err};
    return ed_run(ws, n, &q);
}

static int ed_action(void *const *ws, size_t n, size_t m, const double *T, const double *mu,
                     double *S, double *err)
{
    const ed_request q = {
        .what = ED_ACTION, .m = m, .Ts = T, .mus = mu, .S = S, .err = err};
    return ed_run(ws, n, &q);
}

static const mcf_fermion_ops ed_ops = {
    .struct_size = sizeof(mcf_fermion_ops),
    .create = ed_create,
    .destroy = ed_destroy,
    .energy_points = ed_energy_points,
    .energies = ed_energies,
    .dos = ed_dos,
    .ldos = ed_ldos,
    .green = ed_green,
    .occupation = ed_occupation,
    .delta_action = ed_delta_action,
    .action = ed_action,
    .change_action = ed_change_action,
};

static const mcf_plugin_info ed_info = {
    .abi_version = MCF_ABI_VERSION,
    .struct_size = sizeof(mcf_plugin_info),
    .kind = MCF_PLUGIN_FERMION_EVALUATOR,
    .name = "ed",
    .version = "1.0",
    .summary = "exact diagonalization (GSL, dense Hermitian): exact DOS, LDOS, Green's "
               "functions, occupations, actions and action differences of local changes for "
               "small Hamiltonians; the reference for kpm",
    .params = ed_params,
    .ops = &ed_ops,
    .auto_priority = 0, /* an exact reference: never chosen by evaluator = auto */
};

MCF_PLUGIN(ed_info)
