/* shells.c — degenerate shells of levels at the chemical potential on the run's finite
 * lattice, a warning at setup (docs/methods.md, "Degenerate shells at mu").
 *
 * A model that names its ordered state (its ordered_state, an ideal state of its
 * periodic op) and the key of its chemical potential (mu_key) describes that state as a
 * crystal; the L^d torus of its lattice (translations L e_d, Cartesian, lattice constant 1:
 * MCF_LATTICE_PARAMS's chain, square, cubic, and bcc's conventional cube) allows the wave
 * vectors K = 2 pi n / L, n integer, so the state's levels on the torus are the eigenvalues
 * of H(k) at the reduced k_i = K.a_i / 2 pi = sum_d a_i[d] n_d / L.  Nothing here knows a
 * model: only "levels of a crystal at the torus's k".
 *
 * The warning.  A level eps enters every thermal fluctuation (of the electron number, the
 * energy, so C, chi and the Binder cumulant of the spins that these levels couple) with
 * the weight f (1 - f) = 1 / (4 cosh^2((eps - mu) / 2T)) = -T df/deps: 1/4 at mu, 0.045
 * (a fifth of that) at 3 T, 0.0066 at 5 T.  The infinite crystal has a smooth density of
 * levels there; the finite torus has a few shells of many equal levels each (the cubic
 * group), and a shell that carries most of that weight makes the finite lattice's thermal
 * physics the physics of one partly filled degenerate level.  So: a shell of >= 2 equal
 * levels (to 1e-9 of the band's scale), within SHELL_WINDOW T of mu, that carries more than
 * half of the weight sum f (1 - f) of all the torus's levels.  At higher T the window
 * holds several shells and none dominates: no warning where the finite spectrum already
 * samples the band around mu.  Open boundaries have no such k grid: no check.
 * A twist ([model] twist, mcf/lattice.h) shifts the grid to K_d = (2 pi n_d + theta_d) / L
 * (docs/methods.md, "Twisted boundaries"); twist averaging pools the levels of its M^d
 * twists, which is what the averaged observables see. */
#define _POSIX_C_SOURCE 200809L
#include "setup.h"

#include "mcf/lattice.h"

#include <gsl/gsl_eigen.h>
#include <gsl/gsl_matrix.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* the window, in units of T: f (1 - f) has fallen to a fifth of its value at mu there */
#define SHELL_WINDOW 3.0
/* the sizes searched for one without a shell: L - SHELL_BELOW .. L + SHELL_ABOVE */
#define SHELL_BELOW 4
#define SHELL_ABOVE 8
/* the scan points looked at (a grid beyond this is looked at in its first points only) */
#define SHELL_MAX_POINTS 65536
/* the most levels (k points of the box x orbitals) computed for one torus, and for all the
 * sizes searched for one without a shell together: 2^21 levels (128^3 cubic) take ~0.3 s
 * here and more under the sanitizers; a torus beyond it is not checked, and says so */
#define SHELL_MAX_LEVELS ((size_t)1 << 21)
#define SHELL_SEARCH_LEVELS ((size_t)1 << 22)

#define SHELL_TWO_PI 6.28318530717958647692

/* ---- levels of a crystal on the L^d torus ------------------------------------------ */

/* q: the smallest of 1..8 with q a_i[d] integer for every lattice vector (0: none), and
 * whether L e_d are lattice vectors of the cell (L A^-1 integer): the torus is a multiple
 * of the cell.  *cells: L^dims / |det A|, the cells on the torus. */
static int torus_fits(const mcf_periodic *p, long L, int *q, size_t *cells)
{
    const unsigned n = p->dims;
    double A[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    for (unsigned i = 0; i < n; i++)
        for (unsigned d = 0; d < n; d++)
            A[i][d] = p->lattice[i][d];
    *q = 0;
    for (int k = 1; k <= 8 && !*q; k++) {
        int whole = 1;
        for (unsigned i = 0; i < n; i++)
            for (unsigned d = 0; d < n; d++)
                whole &= fabs(k * A[i][d] - nearbyint(k * A[i][d])) < 1e-9;
        if (whole)
            *q = k;
    }
    const double det = A[0][0] * (A[1][1] * A[2][2] - A[1][2] * A[2][1]) -
                       A[0][1] * (A[1][0] * A[2][2] - A[1][2] * A[2][0]) +
                       A[0][2] * (A[1][0] * A[2][1] - A[1][1] * A[2][0]);
    if (!*q || fabs(det) < 1e-12)
        return 0;
    /* L A^-1 by cofactors: (A^-1)[d][i] = cof[i][d] / det */
    for (unsigned i = 0; i < n; i++)
        for (unsigned d = 0; d < n; d++) {
            const unsigned i1 = (i + 1) % 3, i2 = (i + 2) % 3, d1 = (d + 1) % 3,
                           d2 = (d + 2) % 3;
            const double cof = A[i1][d1] * A[i2][d2] - A[i1][d2] * A[i2][d1];
            const double c = (double)L * cof / det;
            if (fabs(c - nearbyint(c)) > 1e-9)
                return 0;
        }
    double v = 1;
    for (unsigned d = 0; d < n; d++)
        v *= (double)L;
    v /= fabs(det);
    if (!(v < 0x1p52)) { /* more cells than a double counts exactly: too many to list */
        *cells = SIZE_MAX;
        return 1;
    }
    if (fabs(v - nearbyint(v)) > 1e-6 || v < 1)
        return 0;
    *cells = (size_t)nearbyint(v);
    return 1;
}

static int by_value(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

size_t mcfi_torus_level_count(const mcf_periodic *p, long L)
{
    int q;
    size_t cells;
    if (L < 1 || !torus_fits(p, L, &q, &cells))
        return 0;
    if (cells == SIZE_MAX || (size_t)L > SIZE_MAX / (size_t)q)
        return SIZE_MAX;
    const size_t P = (size_t)L * (size_t)q;
    size_t n = p->orbitals;
    for (unsigned d = 0; d < p->dims; d++)
        n = n > SIZE_MAX / P ? SIZE_MAX : n * P;
    return n;
}

int mcfi_torus_levels(const mcf_periodic *p, long L, double **eps, size_t *n_levels,
                      size_t *repeat)
{
    return mcfi_torus_levels_twisted(p, L, NULL, eps, n_levels, repeat);
}

int mcfi_torus_levels_twisted(const mcf_periodic *p, long L, const double *theta, double **eps,
                              size_t *n_levels, size_t *repeat)
{
    *eps = NULL;
    *n_levels = 0;
    int q;
    size_t cells;
    if (L < 1 || !torus_fits(p, L, &q, &cells))
        return MCF_EINVAL;
    if (mcfi_torus_level_count(p, L) > SIZE_MAX / 16)
        return mcf_fail(MCF_ENOMEM, "the levels of a torus of L = %ld are too many to list", L);
    const size_t P = (size_t)L * (size_t)q, nb = p->orbitals;
    size_t nk = 1;
    for (unsigned d = 0; d < p->dims; d++)
        nk *= P;
    /* every allowed k comes nk / cells times in the box of n in [0, P)^dims */
    double *e = malloc(nk * nb * sizeof *e), *hk = malloc(2 * nb * nb * sizeof *hk);
    gsl_matrix_complex *H = nb > 1 ? gsl_matrix_complex_alloc(nb, nb) : NULL;
    gsl_vector *ev = nb > 1 ? gsl_vector_alloc(nb) : NULL;
    gsl_eigen_herm_workspace *w = nb > 1 ? gsl_eigen_herm_alloc(nb) : NULL;
    int rc = !e || !hk || (nb > 1 && (!H || !ev || !w)) ? mcf_fail(MCF_ENOMEM, "out of memory")
                                                         : MCF_OK;
    for (size_t k = 0; k < nk && !rc; k++) {
        size_t m = k;
        double kr[3] = {0, 0, 0};
        /* the twisted torus allows K_d = (2 pi n_d + theta_d) / L; mcf/periodic.h's H(k),
           built from <to, R| H |from, 0> e^{2 pi i k.R}, has its levels there at the
           reduced k = -K / 2 pi, i.e. (n_d - theta_d / 2 pi) / L over all n */
        for (unsigned d = 0; d < p->dims; d++, m /= P) {
            const double n_d = (double)(m % P) - (theta ? theta[d] / SHELL_TWO_PI : 0.0);
            for (unsigned i = 0; i < p->dims; i++)
                kr[i] += p->lattice[i][d] * n_d / (double)L;
        }
        mcf_periodic_hk(p, kr, hk);
        if (nb == 1) {
            e[k] = hk[0];
            continue;
        }
        for (size_t a = 0; a < nb; a++)
            for (size_t b = 0; b < nb; b++)
                gsl_matrix_complex_set(H, a, b, (gsl_complex){{hk[2 * (a * nb + b)],
                                                               hk[2 * (a * nb + b) + 1]}});
        gsl_eigen_herm(H, ev, w);
        for (size_t a = 0; a < nb; a++)
            e[k * nb + a] = gsl_vector_get(ev, a);
    }
    free(hk);
    gsl_matrix_complex_free(H);
    gsl_vector_free(ev);
    gsl_eigen_herm_free(w);
    if (rc) {
        free(e);
        return rc;
    }
    qsort(e, nk * nb, sizeof *e, by_value);
    *eps = e;
    *n_levels = nk * nb;
    *repeat = nk / cells;
    return MCF_OK;
}

/* f (1 - f) at x = (eps - mu) / T */
static double thermal_weight(double x)
{
    const double c = cosh(0.5 * x);
    return isfinite(c) ? 0.25 / (c * c) : 0.0;
}

size_t mcfi_shell_at(const double *eps, size_t n, size_t repeat, double mu, double T,
                     double *energy)
{
    if (!n || !(T > 0) || !isfinite(mu))
        return 0;
    const double tol = 1e-9 * (1.0 + fmax(fabs(eps[0]), fabs(eps[n - 1])));
    double total = 0;
    for (size_t k = 0; k < n; k++)
        total += thermal_weight((eps[k] - mu) / T);
    for (size_t k = 0; k < n;) {
        size_t j = k + 1;
        while (j < n && eps[j] - eps[j - 1] <= tol)
            j++;
        const double e = 0.5 * (eps[k] + eps[j - 1]);
        const double weight = (double)(j - k) * thermal_weight((e - mu) / T);
        if (j - k >= 2 * repeat && fabs(e - mu) < SHELL_WINDOW * T && weight > 0.5 * total) {
            *energy = fabs(e) <= tol ? 0.0 : e;
            return (j - k) / repeat;
        }
        k = j;
    }
    return 0;
}

/* ---- the twist of the run (mcf/lattice.h: [model] twist) ------------------------- */

/* a fixed twist theta (radians), or twist averaging over the M^dims twists of the grid
   (M > 0), whose levels the check pools: the averaged observables see all of them */
typedef struct shell_twist {
    long M;
    double theta[3];
} shell_twist;

static size_t twists_of(const shell_twist *tw, unsigned dims)
{
    size_t n = 1;
    for (unsigned d = 0; tw->M && d < dims; d++)
        n *= (size_t)tw->M;
    return n;
}

static size_t twisted_count(const mcf_periodic *p, long L, const shell_twist *tw)
{
    const size_t n = mcfi_torus_level_count(p, L), m = twists_of(tw, p->dims);
    return n == SIZE_MAX || n > SIZE_MAX / m ? SIZE_MAX : n * m;
}

/* the levels of every twist of tw together, sorted (repeat: each twist's) */
static int twisted_levels(const mcf_periodic *p, long L, const shell_twist *tw, double **eps,
                          size_t *n, size_t *repeat)
{
    if (!tw->M)
        return mcfi_torus_levels_twisted(p, L, tw->theta, eps, n, repeat);
    const size_t m = twists_of(tw, p->dims);
    double *all = NULL;
    *n = 0;
    for (size_t j = 0; j < m; j++) {
        double theta[3], *e;
        size_t k;
        mcf_twist_grid(tw->M, (int)p->dims, j, theta);
        int rc = mcfi_torus_levels_twisted(p, L, theta, &e, &k, repeat);
        double *grown = rc ? NULL : realloc(all, (*n + k) * sizeof *all);
        if (!rc && !grown)
            rc = mcf_fail(MCF_ENOMEM, "out of memory");
        if (rc) {
            free(all);
            free(e);
            return rc;
        }
        all = grown;
        memcpy(all + *n, e, k * sizeof *e);
        *n += k;
        free(e);
    }
    qsort(all, *n, sizeof *all, by_value);
    *eps = all;
    return MCF_OK;
}

/* ---- the check at setup ---------------------------------------------------------- */

typedef struct shell_case {
    mcf_cell *cell;  /* the ordered state's description at this point */
    long L;
    shell_twist twist;
    double *eps;
    size_t n, repeat;
} shell_case;

/* a [model] value of p by its key, or NULL */
static const mcf_value *value_of(const mcf_params *p, const char *key, mcf_param_type type)
{
    for (size_t j = 0; key && j < p->n; j++)
        if (!strcmp(p->specs[j].name, key))
            return p->specs[j].type == type ? &p->values[j] : NULL;
    return NULL;
}

static int same_crystal(const mcf_periodic *a, const mcf_periodic *b)
{
    return a && b && a->dims == b->dims && a->orbitals == b->orbitals &&
           a->n_hoppings == b->n_hoppings && !memcmp(a->lattice, b->lattice, sizeof a->lattice) &&
           !memcmp(a->hoppings, b->hoppings, a->n_hoppings * sizeof *a->hoppings);
}

/* 1 when a level of sorted eps[0..n) lies within SHELL_WINDOW T of mu */
static int level_near(const double *eps, size_t n, double mu, double T)
{
    for (size_t k = 0; k < n; k++)
        if (fabs(eps[k] - mu) < SHELL_WINDOW * T)
            return 1;
    return 0;
}

/* the sizes L - SHELL_BELOW .. L + SHELL_ABOVE (>= min_L) on which p fits (the cell tiles
 * the torus: e.g. even L for a two-sublattice state) and has no level at all within the
 * window at (mu, T), into buf: "no level within 3 T of mu at L = 5, 7", or that none has */
static void free_sizes(const mcf_periodic *p, long L, const shell_twist *tw, long min_L,
                       double mu, double T, char *buf, size_t size)
{
    size_t used = 0;
    const long lo = L - SHELL_BELOW > min_L ? L - SHELL_BELOW : min_L;
    int any = 0;
    buf[0] = '\0';
    size_t spent = 0;
    long last = lo - 1; /* the last size searched */
    for (long l = lo; l <= L + SHELL_ABOVE; l++) {
        double *eps;
        size_t n, repeat;
        const size_t cost = twisted_count(p, l, tw);
        if (cost > SHELL_MAX_LEVELS || spent + cost > SHELL_SEARCH_LEVELS)
            break;
        spent += cost;
        last = l;
        if (l == L || twisted_levels(p, l, tw, &eps, &n, &repeat))
            continue;
        if (!level_near(eps, n, mu, T) && used + 24 < size) {
            used += any ? (size_t)snprintf(buf + used, size - used, ", %ld", l)
                        : (size_t)snprintf(buf, size, "no level within %g T of mu at L = %ld",
                                           SHELL_WINDOW, l);
            any = 1;
        }
        free(eps);
    }
    if (!any && last < lo)
        snprintf(buf, size, "the sizes near L were not searched (over the check's limit)");
    else if (!any)
        snprintf(buf, size, "every L from %ld to %ld has levels within %g T of mu at this T",
                 lo, last, SHELL_WINDOW);
    else if (last < L + SHELL_ABOVE && used + 40 < size)
        snprintf(buf + used, size - used, " (sizes above L = %ld not searched)", last);
}

static int remember(long **warned, size_t *n_warned, long L)
{
    long *grown = realloc(*warned, (*n_warned + 1) * sizeof *grown);
    if (!grown)
        return mcf_fail(MCF_ENOMEM, "out of memory");
    *warned = grown;
    grown[(*n_warned)++] = L;
    return MCF_OK;
}

/* the torus of size L is too large to check: say so once for L */
static int too_many_levels(const mcf_config *c, mcf_text *t, long **warned, size_t *n_warned,
                           long L, size_t levels, const mcfi_model *ops)
{
    char where[512], count[64];
    if (levels == SIZE_MAX)
        snprintf(count, sizeof count, "more levels than can be counted");
    else
        snprintf(count, sizeof count, "%zu levels (with repeats)", levels);
    mcfe_text_printf(t, "%s: [model] L = %ld (periodic): the check for degenerate shells at "
                     "%s was not made: the ordered state '%s' has %s on this torus, more "
                     "than the check's limit of %zu (docs/methods.md, \"Degenerate shells "
                     "at mu\")\n",
                     mcfe_config_key_where(c, "model", "L", where, sizeof where), L,
                     ops->mu_key, ops->ordered_state, count, SHELL_MAX_LEVELS);
    return remember(warned, n_warned, L);
}

int mcfi_shells_check(const mcf_config *c, mcf_setup *s)
{
    const mcfi_model *ops = s->model->model;
    if (!ops->ordered_state || !ops->mu_key || !ops->has_periodic || !s->has_temperature)
        return MCF_OK;
    mcf_text t = {0};
    long *warned = NULL; /* the sizes warned about */
    size_t n_warned = 0;
    shell_case cur = {0};
    int rc = MCF_OK;
    const size_t points = s->n_points < SHELL_MAX_POINTS ? s->n_points : SHELL_MAX_POINTS;
    for (size_t k = 0; k < points && !rc; k++) {
        mcf_params *p = NULL;
        if ((rc = mcfe_setup_params(s, k, 0, &p)))
            break;
        const mcf_value *L = value_of(p, "L", MCF_PARAM_INT), *mu = value_of(p, ops->mu_key,
                                                                          MCF_PARAM_REAL);
        const mcf_value *bd = value_of(p, "boundary", MCF_PARAM_CHOICE);
        int skip = !L || !mu || !bd || strcmp(bd->text, "periodic") != 0 ||
                   !p->has_temperature;
        for (size_t j = 0; !skip && j < n_warned; j++)
            skip = warned[j] == L->i;
        mcf_cell *cell = NULL;
        if (!skip && (rc = mcf_cell_create(&cell)))
            skip = 1;
        /* a state the op refuses here (e.g. a lattice it has no such state on): no check */
        if (!skip && (MCFI_MODEL(ops, periodic, p, NULL, ops->ordered_state, cell) ||
                      mcf_cell_status(cell) || !mcf_cell_view(cell) ||
                      mcf_periodic_check(mcf_cell_view(cell), "shells")))
            skip = 1;
        /* the twist ([model] twist, mcf/lattice.h); a value the model refuses: no check */
        shell_twist tw = {0, {0, 0, 0}};
        const mcf_value *twv = value_of(p, "twist", MCF_PARAM_STRING);
        if (!skip && twv && mcf_twist_parse(twv->text, (int)mcf_cell_view(cell)->dims,
                                            tw.theta, &tw.M))
            skip = 1;
        if (!skip && (cur.L != L->i || !cur.cell || memcmp(&cur.twist, &tw, sizeof tw) ||
                      !same_crystal(mcf_cell_view(cur.cell), mcf_cell_view(cell)))) {
            mcf_cell_destroy(cur.cell);
            free(cur.eps);
            cur = (shell_case){cell, L->i, tw, NULL, 0, 0};
            cell = NULL;
            const size_t levels = twisted_count(mcf_cell_view(cur.cell), cur.L, &tw);
            if (levels > SHELL_MAX_LEVELS) {
                rc = too_many_levels(c, &t, &warned, &n_warned, L->i, levels, ops);
                skip = 1;
            } else if (twisted_levels(mcf_cell_view(cur.cell), cur.L, &tw, &cur.eps, &cur.n,
                                      &cur.repeat)) {
                cur.n = 0; /* the state does not fit on this torus */
            }
        }
        mcf_cell_destroy(cell);
        double energy;
        const size_t count = skip ? 0 : mcfi_shell_at(cur.eps, cur.n, cur.repeat, mu->r,
                                                       p->temperature, &energy);
        if (count) {
            if (!(rc = remember(&warned, &n_warned, L->i))) {
                const mcf_param_spec *spec = &p->specs[L - p->values];
                const long min_L = (spec->flags & MCF_PARAM_HAS_MIN) && spec->min > 3
                                       ? (long)spec->min : 3;
                char where[512], sizes[256];
                free_sizes(mcf_cell_view(cur.cell), L->i, &cur.twist, min_L, mu->r,
                           p->temperature, sizes, sizeof sizes);
                mcfe_text_printf(&t, "%s: [model] L = %ld (periodic): %zu of %zu levels of "
                                 "the ordered state '%s' form one degenerate shell at eps = "
                                 "%g, within %g T of %s = %g at T = %g, which biases "
                                 "finite-size results (docs/methods.md, \"Degenerate shells "
                                 "at mu\"); %s\n",
                                 mcfe_config_key_where(c, "model", "L", where, sizeof where),
                                 L->i, count, cur.n / cur.repeat, ops->ordered_state, energy,
                                 SHELL_WINDOW, ops->mu_key, mu->r, p->temperature, sizes);
            }
        }
        free(p);
    }
    mcf_cell_destroy(cur.cell);
    free(cur.eps);
    free(warned);
    if (!rc && t.failed)
        rc = mcf_fail(MCF_ENOMEM, "out of memory");
    if (rc) {
        free(t.s);
        return rc;
    }
    s->shell_warnings = t.s;
    return MCF_OK;
}

void mcfi_shells_report(const mcf_setup *s, mcf_text *t)
{
    for (const char *w = s->shell_warnings; w && *w;) {
        const char *end = strchr(w, '\n');
        const int len = end ? (int)(end - w) : (int)strlen(w);
        /* results.tsv without the file:line, which names the folder the run was started
           from: the same run elsewhere writes the same bytes (config.ini lies beside it) */
        const char *key = strstr(w, ": [model] L = ");
        const int cut = key && key < w + len ? (int)(key + 2 - w) : 0;
        if (t)
            mcfe_text_printf(t, "# warning: %.*s\n", len - cut, w + cut);
        else
            mcf_log(MCF_LOG_WARN, "%.*s", len, w);
        w += len + (end != NULL);
    }
}
