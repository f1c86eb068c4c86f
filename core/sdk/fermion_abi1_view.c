/* fermion_abi1_view.c — the down adapter (docs/sdk-1.md): an ABI-1 model that binds an
 * ABI-2 fermion evaluator gets this mcf_fermion_ops, whose ops pass every call on to the
 * evaluator.  create and reconstruct have no workspace to find it by: they take the
 * evaluator recorded by the bind (a run has one).  A workspace of the view wraps the
 * evaluator's with a batch of its own: a batched call hands the evaluator the batch of its
 * first workspace (the chain that leads the model's batch, as ABI 1's evaluators did).
 * Private to the SDK library. */
#include "fermion_calls.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "mcf/error.h"

static _Atomic(const mcf_plugin_info *) bound_evaluator;

typedef struct view_ws {
    const mcf_fermion_evaluator *ops;
    void *inner;
    mcf_batch *batch;
} view_ws;

static const mcf_fermion_evaluator *evaluator(void **app_data)
{
    const mcf_plugin_info *e = atomic_load(&bound_evaluator);
    *app_data = e && MCF_PLUGIN_INFO_HAS(e, app_data) ? e->app_data : NULL;
    return e ? e->ops : NULL;
}

static int view_create(const mcf_params *params, const mcf_hamiltonian *h, void **ws)
{
    void *app_data;
    const mcf_fermion_evaluator *ops = evaluator(&app_data);
    view_ws *w = calloc(1, sizeof *w);
    *ws = NULL;
    if (!ops || !w || !(w->batch = mcf_batch_create())) {
        free(w);
        return ops ? mcf_fail(MCF_ENOMEM, "out of memory")
                   : mcf_fail(MCF_EINTERNAL, "no evaluator bound (a bug, please report it)");
    }
    w->ops = ops;
    int rc = ops->create(params, h, app_data, &w->inner);
    if (rc) {
        mcf_batch_destroy(w->batch);
        free(w);
        return rc;
    }
    *ws = w;
    return MCF_OK;
}

static void view_destroy(void *ws)
{
    view_ws *w = ws;
    if (!w)
        return;
    w->ops->destroy(w->inner);
    mcf_batch_destroy(w->batch);
    free(w);
}

/* the evaluator's workspaces of ws[0..n) (malloc'd: the batch's scratch is the evaluator's
 * during the call) and the first workspace of the view, which lends its batch; NULL for
 * n = 0 and, with a message, when out of memory */
static void **unwrap(void *const *ws, size_t n, const view_ws **w0)
{
    void **in = n ? malloc(n * sizeof *in) : NULL;
    if (n && !in)
        mcf_fail(MCF_ENOMEM, "out of memory");
    for (size_t k = 0; in && k < n; k++)
        in[k] = ((view_ws *)ws[k])->inner;
    *w0 = n ? ws[0] : NULL;
    return in;
}

/* the result of an ABI-2 call over `in` (n workspaces), after freeing in */
static int done(void **in, int rc)
{
    free(in);
    return rc;
}

static int spectra(void *const *ws, size_t n, mcf_rng *const *rngs, mcf_spectra *s)
{
    const view_ws *w0;
    void **in = unwrap(ws, n, &w0);
    if (!in)
        return n ? MCF_ENOMEM : MCF_OK;
    return done(in, w0->ops->spectra(w0->batch, in, n, rngs, s));
}

static size_t view_energy_points(const void *ws)
{
    mcf_spectra s = {0};
    void *w = (void *)ws;
    return spectra(&w, 1, NULL, &s) ? 0 : s.points;
}

static int view_energies(void *ws, double *E)
{
    mcf_spectra s = {.energies = &E};
    return spectra(&ws, 1, NULL, &s);
}

static int view_dos(void *const *ws, size_t n, mcf_rng *const *rngs, double *const *dos)
{
    mcf_spectra s = {.dos = dos};
    return spectra(ws, n, rngs, &s);
}

static int view_ldos(void *const *ws, size_t n, const size_t *const *rows, size_t n_rows,
                     double *const *out)
{
    mcf_spectra s = {.rows = rows, .n_rows = n_rows, .ldos = out};
    return spectra(ws, n, NULL, &s);
}

static int view_green(void *const *ws, size_t n, const size_t *const *rows, size_t n_rows,
                      double *const *re, double *const *im)
{
    mcf_spectra s = {.rows = rows, .n_rows = n_rows, .green_re = re, .green_im = im};
    return spectra(ws, n, NULL, &s);
}

static int occupation(void *const *ws, size_t n, mcf_rng *const *rngs, double mu, double T,
                      const mcf_occupation *out)
{
    const view_ws *w0;
    void **in = unwrap(ws, n, &w0);
    if (!in)
        return n ? MCF_ENOMEM : MCF_OK;
    return done(in, w0->ops->occupation(w0->batch, in, n, rngs, mu, T, out));
}

static int view_occupation(void *const *ws, size_t n, mcf_rng *const *rngs, double mu,
                           double T, double *density, double *energy)
{
    const mcf_occupation out = {density, energy, NULL, NULL};
    return occupation(ws, n, rngs, mu, T, &out);
}

static int view_occupation_dT(void *const *ws, size_t n, mcf_rng *const *rngs, double mu,
                              double T, double *density, double *energy, double *ddensity,
                              double *denergy)
{
    const mcf_occupation out = {density, energy, ddensity, denergy};
    return occupation(ws, n, rngs, mu, T, &out);
}

static int view_change_action(void *const *ws, size_t n, const mcf_change *const *changes,
                              const double *T, const double *mu, double *dS, double *err)
{
    const view_ws *w0;
    void **in = unwrap(ws, n, &w0);
    if (!in)
        return n ? MCF_ENOMEM : MCF_OK;
    return done(in, w0->ops->change_action(w0->batch, in, n, changes, T, mu, dS, err));
}

/* ABI 1's rank <= 2 change as the mcf_change it is */
static int view_delta_action(void *const *ws, size_t n, const mcf_local_change *const *changes,
                             const double *T, const double *mu, double *dS)
{
    mcf_change *c = malloc((n ? n : 1) * (sizeof *c + sizeof(mcf_change *)));
    if (!c)
        return mcf_fail(MCF_ENOMEM, "out of memory");
    const mcf_change **p = (const mcf_change **)(c + (n ? n : 1));
    int rc = MCF_OK;
    for (size_t k = 0; k < n && !rc; k++) {
        rc = mcf_change_from_local(changes[k], &c[k]);
        p[k] = &c[k];
    }
    if (!rc)
        rc = view_change_action(ws, n, p, T, mu, dS, NULL);
    free(c);
    return rc;
}

static int view_action(void *const *ws, size_t n, size_t m, const double *T, const double *mu,
                       double *S, double *err)
{
    const view_ws *w0;
    void **in = unwrap(ws, n, &w0);
    if (!in)
        return n ? MCF_ENOMEM : MCF_OK;
    return done(in, w0->ops->action(w0->batch, in, n, m, T, mu, S, err));
}

static size_t view_moment_count(const void *ws)
{
    mcf_spectra s = {0};
    void *w = (void *)ws;
    return spectra(&w, 1, NULL, &s) ? 0 : s.moments;
}

static int view_dos_moments(void *const *ws, size_t n, mcf_rng *const *rngs,
                            double *const *mu, double *const *var, double *const *scale,
                            double *const *dos)
{
    mcf_spectra s = {.dos = dos, .dos_moments = mu, .dos_moments_var = var,
                     .moment_scale = scale};
    return spectra(ws, n, rngs, &s);
}

static int view_ldos_moments(void *const *ws, size_t n, const size_t *const *rows,
                             size_t n_rows, double *const *mu, double *const *scale,
                             double *const *ldos)
{
    mcf_spectra s = {.rows = rows, .n_rows = n_rows, .ldos_moments = mu,
                     .moment_scale = scale, .ldos = ldos};
    return spectra(ws, n, NULL, &s);
}

static int view_reconstruct(const mcf_params *params, const char *kernel, size_t M,
                            size_t sets, const double *mu, double a, double b, size_t points,
                            const double *E, double *grid, double *out)
{
    void *app_data;
    const mcf_fermion_evaluator *ops = evaluator(&app_data);
    if (!ops)
        return mcf_fail(MCF_EINTERNAL, "no evaluator bound (a bug, please report it)");
    return ops->reconstruct(app_data, params, kernel, M, sets, mu, a, b, points, E, grid, out);
}

/* the view of an evaluator providing everything */
static const mcf_fermion_ops view_all = {
    .struct_size = sizeof(mcf_fermion_ops),
    .create = view_create,
    .destroy = view_destroy,
    .energy_points = view_energy_points,
    .energies = view_energies,
    .dos = view_dos,
    .ldos = view_ldos,
    .green = view_green,
    .occupation = view_occupation,
    .delta_action = view_delta_action,
    .action = view_action,
    .change_action = view_change_action,
    .moment_count = view_moment_count,
    .dos_moments = view_dos_moments,
    .ldos_moments = view_ldos_moments,
    .reconstruct = view_reconstruct,
    .occupation_dT = view_occupation_dT,
};

/* the views made, one per evaluator (a process loads a handful) */
typedef struct view_entry {
    const mcf_plugin_info *e;
    mcf_fermion_ops ops;
} view_entry;

const mcf_fermion_ops *mcfi_fermion_abi1_view(const mcf_plugin_info *e)
{
    static view_entry views[16];
    static size_t used;
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    atomic_store(&bound_evaluator, e);
    pthread_mutex_lock(&lock);
    const mcf_fermion_ops *found = NULL;
    for (size_t k = 0; k < used && !found; k++)
        if (views[k].e == e)
            found = &views[k].ops;
    if (!found && used < sizeof views / sizeof *views) {
        /* what the evaluator lacks is NULL, so an ABI-1 model's checks see the truth */
        const unsigned p = ((const mcf_fermion_evaluator *)e->ops)->provides;
        const unsigned grid = MCF_PROVIDES_DOS | MCF_PROVIDES_LDOS | MCF_PROVIDES_GREEN;
        mcf_fermion_ops ops = view_all;
        if (!(p & grid))
            ops.energy_points = NULL, ops.energies = NULL;
        if (!(p & MCF_PROVIDES_DOS))
            ops.dos = NULL;
        if (!(p & MCF_PROVIDES_LDOS))
            ops.ldos = NULL;
        if (!(p & MCF_PROVIDES_GREEN))
            ops.green = NULL;
        if (!(p & MCF_PROVIDES_OCCUPATION))
            ops.occupation = NULL;
        if (!(p & MCF_PROVIDES_CHANGE_ACTION))
            ops.delta_action = NULL, ops.change_action = NULL;
        if (!(p & MCF_PROVIDES_ACTION))
            ops.action = NULL;
        if (!(p & MCF_PROVIDES_MOMENTS))
            ops.moment_count = NULL, ops.dos_moments = NULL, ops.ldos_moments = NULL,
            ops.reconstruct = NULL;
        if (!(p & MCF_PROVIDES_OCCUPATION_DT))
            ops.occupation_dT = NULL;
        views[used] = (view_entry){e, ops};
        found = &views[used++].ops;
    }
    pthread_mutex_unlock(&lock);
    return found ? found : &view_all;
}
