/* evaluator_test.h — a fermion evaluator's verbs for tests that call a plugin directly:
 * one function per question a test asks (the DOS, the moments, the occupation, ...: the
 * shapes of ABI 1's ops, in which the tests were written), passed to the evaluator's ABI-2
 * table (mcf_fermion_evaluator) as the SDK's adapter passes them (core/sdk/fermion_abi1.c,
 * fermion_abi1_view.c), with one batch for the test process.  Every evaluator of the tree
 * is ABI 2 (mcf 1.0); ABI-1 evaluators are tested by tests/abi, through mcf itself. */
#ifndef MCF_EVALUATOR_TEST_H
#define MCF_EVALUATOR_TEST_H

#include <stdlib.h>

#include "mcf/batch.h"
#include "mcf/error.h"
#include "mcf/fermion.h"
#include "mcf/model.h"
#include "mcf/plugin.h"

/* The test process's batch, made on first use.  tev_batch_release() destroys it (the next
 * tev_batch() makes a new one): call it before closing the plugins whose ops used it, since
 * the release of their keep slots is their code; otherwise it goes at exit. */
static inline void tev_batch_release(void);
static inline mcf_batch **tev_batch_slot_(void)
{
    static mcf_batch *b;
    return &b;
}
static inline void tev_batch_release(void)
{
    mcf_batch_destroy(*tev_batch_slot_());
    *tev_batch_slot_() = NULL;
}
static inline mcf_batch *tev_batch(void)
{
    mcf_batch **b = tev_batch_slot_();
    if (!*b) {
        if (!(*b = mcf_batch_create()))
            abort();
        atexit(tev_batch_release);
    }
    return *b;
}

static inline const mcf_fermion_evaluator *tev_v2(const mcf_plugin_info *e)
{
    return (const mcf_fermion_evaluator *)e->ops;
}

static inline int tev_create(const mcf_plugin_info *e, const mcf_params *p,
                             const mcf_hamiltonian *h, void **ws)
{
    return tev_v2(e)->create(p, h, e->app_data, ws);
}

static inline void tev_destroy(const mcf_plugin_info *e, void *ws)
{
    tev_v2(e)->destroy(ws);
}

static inline int tev_spectra(const mcf_plugin_info *e, void *const *ws, size_t n,
                              mcf_rng *const *rngs, mcf_spectra *s)
{
    return tev_v2(e)->spectra(tev_batch(), ws, n, rngs, s);
}

static inline size_t tev_energy_points(const mcf_plugin_info *e, void *ws)
{
    mcf_spectra s = {0};
    return tev_spectra(e, &ws, 1, NULL, &s) ? 0 : s.points;
}

static inline size_t tev_moment_count(const mcf_plugin_info *e, void *ws)
{
    mcf_spectra s = {0};
    return tev_spectra(e, &ws, 1, NULL, &s) ? 0 : s.moments;
}

static inline int tev_energies(const mcf_plugin_info *e, void *ws, double *E)
{
    mcf_spectra s = {.energies = &E};
    return tev_spectra(e, &ws, 1, NULL, &s);
}

static inline int tev_dos(const mcf_plugin_info *e, void *const *ws, size_t n,
                          mcf_rng *const *rngs, double *const *dos)
{
    mcf_spectra s = {.dos = dos};
    return tev_spectra(e, ws, n, rngs, &s);
}

static inline int tev_ldos(const mcf_plugin_info *e, void *const *ws, size_t n,
                           const size_t *const *rows, size_t n_rows, double *const *out)
{
    mcf_spectra s = {.rows = rows, .n_rows = n_rows, .ldos = out};
    return tev_spectra(e, ws, n, NULL, &s);
}

static inline int tev_green(const mcf_plugin_info *e, void *const *ws, size_t n,
                            const size_t *const *rows, size_t n_rows, double *const *re,
                            double *const *im)
{
    mcf_spectra s = {.rows = rows, .n_rows = n_rows, .green_re = re, .green_im = im};
    return tev_spectra(e, ws, n, NULL, &s);
}

static inline int tev_dos_moments(const mcf_plugin_info *e, void *const *ws, size_t n,
                                  mcf_rng *const *rngs, double *const *mu,
                                  double *const *var, double *const *scale,
                                  double *const *dos)
{
    mcf_spectra s = {.dos = dos, .dos_moments = mu, .dos_moments_var = var,
                     .moment_scale = scale};
    return tev_spectra(e, ws, n, rngs, &s);
}

static inline int tev_ldos_moments(const mcf_plugin_info *e, void *const *ws, size_t n,
                                   const size_t *const *rows, size_t n_rows, double *const *mu,
                                   double *const *scale, double *const *ldos)
{
    mcf_spectra s = {.rows = rows, .n_rows = n_rows, .ldos_moments = mu,
                     .moment_scale = scale, .ldos = ldos};
    return tev_spectra(e, ws, n, NULL, &s);
}

static inline int tev_occupation(const mcf_plugin_info *e, void *const *ws, size_t n,
                                 mcf_rng *const *rngs, double mu, double T, double *density,
                                 double *energy)
{
    const mcf_occupation out = {density, energy, NULL, NULL};
    return tev_v2(e)->occupation(tev_batch(), ws, n, rngs, mu, T, &out);
}

static inline int tev_occupation_dT(const mcf_plugin_info *e, void *const *ws, size_t n,
                                    mcf_rng *const *rngs, double mu, double T,
                                    double *density, double *energy, double *ddensity,
                                    double *denergy)
{
    const mcf_occupation out = {density, energy, ddensity, denergy};
    return tev_v2(e)->occupation(tev_batch(), ws, n, rngs, mu, T, &out);
}

static inline int tev_change_action(const mcf_plugin_info *e, void *const *ws, size_t n,
                                    const mcf_change *const *changes, const double *T,
                                    const double *mu, double *dS, double *err)
{
    return tev_v2(e)->change_action(tev_batch(), ws, n, changes, T, mu, dS, err);
}

/* a rank <= 2 change (ABI 1's delta_action), as ABI 2 takes it (mcf_change_from_local) */
static inline int tev_delta_action(const mcf_plugin_info *e, void *const *ws, size_t n,
                                   const mcf_local_change *const *changes, const double *T,
                                   const double *mu, double *dS)
{
    mcf_change *c = malloc((n ? n : 1) * (sizeof *c + sizeof(mcf_change *)));
    if (!c)
        abort();
    const mcf_change **p = (const mcf_change **)(c + (n ? n : 1));
    int rc = MCF_OK;
    for (size_t k = 0; k < n && !rc; k++) {
        rc = mcf_change_from_local(changes[k], &c[k]);
        p[k] = &c[k];
    }
    if (!rc)
        rc = tev_change_action(e, ws, n, p, T, mu, dS, NULL);
    free(c);
    return rc;
}

static inline int tev_action(const mcf_plugin_info *e, void *const *ws, size_t n, size_t m,
                             const double *T, const double *mu, double *S, double *err)
{
    return tev_v2(e)->action(tev_batch(), ws, n, m, T, mu, S, err);
}

static inline int tev_reconstruct(const mcf_plugin_info *e, const mcf_params *params,
                                  const char *kernel, size_t M, size_t sets, const double *mu,
                                  double a, double b, size_t points, const double *E,
                                  double *grid, double *out)
{
    return tev_v2(e)->reconstruct(e->app_data, params, kernel, M, sets, mu, a, b, points, E,
                                  grid, out);
}

#endif
