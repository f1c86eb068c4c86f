/* bands_check.h — what the band-structure tests share: a model plugin's periodic op called
 * with test parameters, the eigenvalues of a cell's H(k) at a Cartesian wave vector (GSL),
 * and the comparison of a description's bands with a closed form at 40 random K. */
#ifndef MCF_TEST_BANDS_CHECK_H
#define MCF_TEST_BANDS_CHECK_H

#include "check.h"
#include "test_params.h"

#include "internal.h"
#include "model_ops.h"
#include "mcf/error.h"
#include "mcf/model.h"
#include "mcf/periodic.h"

#include <gsl/gsl_complex_math.h>
#include <gsl/gsl_eigen.h>
#include <gsl/gsl_matrix_complex_double.h>
#include <gsl/gsl_sort_vector.h>
#include <gsl/gsl_vector.h>

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static const double pi = 3.14159265358979323846;
/* the model under test, as the core calls it whatever its ABI (model_ops.h; set by main
 * from the loaded plugin) */
static const mcfi_model *model;
static const mcf_param_spec *specs;

/* the cell of `state` for up to 3 model parameters "key", "value" from ap (NULL-ended) */
static mcf_cell *describe_v(const char *state, va_list ap)
{
    const char *kv[8] = {NULL};
    for (int i = 0; i < 7; i++) {
        kv[i] = va_arg(ap, const char *);
        if (!kv[i])
            break;
    }
    test_params *tp = test_params_make(specs, "test.ini", kv[0], kv[1], kv[2], kv[3], kv[4],
                                       kv[5], kv[6], (const char *)NULL);
    mcf_cell *c = NULL;
    mcf_cell_create(&c);
    int rc = tp->ok ? MCFI_MODEL(model, periodic, &tp->p, NULL, state, c) : MCF_EINVAL;
    test_params_free(tp);
    if (rc) {
        mcf_cell_destroy(c);
        return NULL;
    }
    return c;
}

/* the cell of `state` for the model parameters given as "key", "value", ..., NULL */
static mcf_cell *describe(const char *state, ...)
{
    va_list ap;
    va_start(ap, state);
    mcf_cell *c = describe_v(state, ap);
    va_end(ap);
    return c;
}

/* the eigenvalues (ascending) of the n x n Hermitian hk (row-major, interleaved complex)
 * into e */
static inline void eigenvalues(size_t n, const double *hk, double *e)
{
    gsl_matrix_complex *m = gsl_matrix_complex_alloc(n, n);
    gsl_vector *ev = gsl_vector_alloc(n);
    gsl_eigen_herm_workspace *w = gsl_eigen_herm_alloc(n);
    for (size_t a = 0; a < n; a++)
        for (size_t b = 0; b < n; b++)
            gsl_matrix_complex_set(m, a, b,
                                   gsl_complex_rect(hk[2 * (a * n + b)], hk[2 * (a * n + b) + 1]));
    gsl_eigen_herm(m, ev, w);
    gsl_sort_vector(ev);
    for (size_t a = 0; a < n; a++)
        e[a] = gsl_vector_get(ev, a);
    gsl_eigen_herm_free(w);
    gsl_vector_free(ev);
    gsl_matrix_complex_free(m);
}

/* the eigenvalues (ascending) of the cell's H(k) at the Cartesian K into e */
static inline int bands_at(const mcf_periodic *p, const double K[3], double *e)
{
    const size_t n = p->orbitals;
    double k[3] = {0, 0, 0}, hk[2 * 8 * 8];
    for (uint32_t i = 0; i < p->dims; i++)
        for (int d = 0; d < 3; d++)
            k[i] += K[d] * p->lattice[i][d] / (2 * pi);
    mcf_periodic_hk(p, k, hk);
    eigenvalues(n, hk, e);
    return (int)n;
}

static int sort_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* compares the bands of `state` with want(K, out) at 40 random K; n bands expected */
typedef void (*closed_form)(const double K[3], const double *arg, double *out);
static inline void compare(const char *what, mcf_cell *c, unsigned n, closed_form want,
                           const double *arg)
{
    const mcf_periodic *p = c ? mcf_cell_view(c) : NULL;
    CHECK(p != NULL, "%s: described (%s)", what, mcf_last_error());
    if (!p)
        return;
    CHECK(mcf_periodic_check(p, what) == MCF_OK, "%s: %s", what, mcf_last_error());
    CHECK(p->orbitals == n, "%s: %u orbitals per cell, want %u", what, p->orbitals, n);
    if (p->orbitals != n)
        return;
    double worst = 0;
    uint64_t x = 0x9e3779b97f4a7c15ull;
    for (int s = 0; s < 40; s++) {
        double K[3];
        for (int d = 0; d < 3; d++) {
            x = x * 6364136223846793005ull + 1442695040888963407ull;
            K[d] = (d < (int)p->dims ? 2 * pi : 0) * ((double)(x >> 11) / 9007199254740992.0 - 0.5);
        }
        double e[8], w[8];
        bands_at(p, K, e);
        want(K, arg, w);
        qsort(w, n, sizeof *w, sort_cmp);
        for (unsigned a = 0; a < n; a++)
            worst = fmax(worst, fabs(e[a] - w[a]));
    }
    CHECK(worst <= 1e-12, "%s: bands differ from the closed form by %.3g", what, worst);
    printf("%-28s %u bands, largest difference from the closed form %.2g\n", what, n, worst);
}


/* the loaded model (load_model), for its services (mcfi_model_services) */
static const mcf_plugin *model_info;

/* loads model `name` into model, specs and model_info; returns the plugin (close it) or
 * NULL */
static mcf_plugin *load_model(const char *name)
{
    mcf_plugin *p = NULL;
    int rc = mcfi_plugin_open(name, MCF_PLUGIN_MODEL, &p);
    CHECK(rc == MCF_OK && p, "loading the %s plugin: %s", name, mcf_last_error());
    if (rc)
        return NULL;
    model = p->model;
    specs = p->info->params;
    model_info = p;
    CHECK(model->has_periodic, "%s has the periodic op", name);
    if (!model->has_periodic) {
        mcfi_plugin_close(p);
        return NULL;
    }
    return p;
}

/* 1 when describing `state` with parameters "key", "value", ..., NULL fails with a message
 * containing needle */
static int refused_with(const char *needle, const char *state, ...)
{
    va_list ap;
    va_start(ap, state);
    mcf_cell *c = describe_v(state, ap);
    va_end(ap);
    int ok = c == NULL && strstr(mcf_last_error(), needle) != NULL;
    if (!ok)
        fprintf(stderr, "state %s: %s\n", state ? state : "(null)", mcf_last_error());
    mcf_cell_destroy(c);
    return ok;
}

#endif
