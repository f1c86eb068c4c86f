/* blip_cuda.c — the GPU blip orbital evaluator "blip-cuda": the ops of mcf/orbital.h (ABI 2,
 * mcf_orbital_evaluator) on an NVIDIA GPU, with the parameters and the representation of
 * the CPU plugin blip (plugins/blip/blip.c describes the mathematics; blip_core.h the shared
 * host side).
 *
 * create() builds the double coefficient table on the host exactly as blip does (the same
 * grid, the same FFT fit: mcf_blip_core), keeps it on the device rounded to float, and frees
 * the host copy; the device memory is asked for first, so a table that does not fit is
 * refused (MCF_ENOMEM, naming the bytes) before the FFTs run.  evaluate takes all points
 * of all workspaces of a batch in one kernel launch (blip_cuda.h: one thread per (point,
 * orbital), weights in double then float, sums in float), one copy in and one out.
 *
 * The determinant ops keep each walker's two Slater matrices and inverses (spin 0 and 1)
 * on the device (double), in its workspace, so that a particle-by-particle sweep sends a
 * few numbers per move across the bus instead of orbital rows, and walker_sweep makes whole
 * sweeps there (blip_cuda.h describes the kernels).  What a batch of the core needs between
 * its calls (the staging buffers of the launches, the mapped ratios, the timing events) is
 * kept by the device layer in a keep slot of that batch (mcf_batch_keep), and the arrays
 * this file gathers for a call (the tables, determinants and walkers of the batch) in a
 * slot of its own (bc_batch below): nothing is shared through a file static or a first
 * workspace.
 *
 * Parameters: blip's grid and grid_factor, and two settings of the kernels that create()
 * hands to the device layer with the table (bcu_settings, per workspace): sum_precision
 * (single or double sums of the 64 terms) and orbitals_per_thread (1, 2, 4 in the values
 * kernel: speed only).  They were added after runs had been checkpointed, so config.ini
 * names them only when they are not at their defaults (MCF_PARAM_ECHO_IF_CHANGED).
 *
 * Precision: single (a relative error of about 1e-6 of the sum of |terms|, against the
 * CPU's 1e-15; tests/gpu/test_blip_cuda derives and checks the bound).  A machine without a
 * usable device makes create() fail with MCF_EDEVICE and the reason; [run] evaluator = auto
 * then takes the CPU plugin (the probe says why). */
#include "mcf/mcf.h"

#include "blip_core.h"
#include "blip_cuda.h"

#include <stdlib.h>
#include <string.h>

/* the defaults are those of bcu_table_alloc (float sums, 2 orbitals per thread) */
static const mcf_param_spec bc_params[] = {
    BLIP_GRID_PARAM_SPECS,
    {"sum_precision", MCF_PARAM_CHOICE, "single",
     MCF_PARAM_NO_SCAN | MCF_PARAM_ECHO_IF_CHANGED, 0, 0, "single|double",
     .doc = "precision of the sum of 64 blip terms in each orbital value (the table is single "
     "precision either way): single, or double for measurements (up to ~25% slower; values "
     "change at the 1e-7 level)"},
    {"orbitals_per_thread", MCF_PARAM_CHOICE, "2",
     MCF_PARAM_NO_SCAN | MCF_PARAM_ECHO_IF_CHANGED, 0, 0, "1|2|4",
     .doc = "orbitals per GPU thread in the values kernel (fewer when the number of orbitals is "
     "not a multiple): speed only, the results are the same bits"},
    {0}};

typedef struct bc_ws {
    size_t L;
    bcu_table *t;
    bcu_det *det[2]; /* the walker's determinants, spin 0 (up) and 1 (down); NULL: empty */
} bc_ws;

static void bc_destroy(void *p)
{
    bc_ws *w = p;
    if (!w)
        return;
    bcu_det_destroy(w->det[0]);
    bcu_det_destroy(w->det[1]);
    bcu_table_destroy(w->t);
    free(w);
}

/* create (ABI 2): no app_data (one variant of the plugin) */
static int bc_create(const mcf_params *params, const mcf_pw_orbitals *o, void *app_data,
                     void **out)
{
    (void)app_data;
    if (!out)
        return mcf_fail(MCF_EINVAL, "blip-cuda: create: NULL output pointer; pass the address "
                        "of a void * to receive the workspace");
    *out = NULL;
    if (!params)
        return mcf_fail(MCF_EINVAL, "blip-cuda: create: no [evaluator] parameters were given; "
                        "pass the validated parameters (grid, grid_factor)");
    int rc = mcf_pw_orbitals_check(o);
    if (rc)
        return mcf_fail_prefix(rc, "blip-cuda");
    if ((rc = bcu_device_init()))
        return rc;
    size_t n[3];
    if ((rc = blip_choose_grid("blip-cuda", params, o, n)))
        return rc;
    const size_t L = o->n_orbitals;
    if ((rc = blip_table_fits("blip-cuda", n, L, sizeof(double))))
        return rc;
    /* sum_precision: single, double; orbitals_per_thread: 1, 2, 4 (the order of their
       choices, mcf_params_choice) */
    enum { BC_SUM_SINGLE, BC_SUM_DOUBLE };
    const char *precision = NULL;
    int sum, per_thread;
    if ((rc = mcf_params_choice(params, "sum_precision", &sum)) ||
        (rc = mcf_params_string(params, "sum_precision", &precision)) ||
        (rc = mcf_params_choice(params, "orbitals_per_thread", &per_thread)))
        return rc;
    const bcu_settings set = {.accumulate_double = sum == BC_SUM_DOUBLE,
                              .vec = 1 << per_thread};
    bc_ws *w = calloc(1, sizeof *w);
    if (!w)
        return mcf_fail(MCF_ENOMEM, "blip-cuda: out of memory");
    w->L = L;
    if ((rc = bcu_table_alloc(n, L, o->cell, &w->t)) ||
        (rc = bcu_table_set_settings(w->t, &set))) {
        bc_destroy(w);
        return rc;
    }
    /* the host table, shared with the other walkers' creates (blip_core.h: built once for
       the orbitals of a run, not once per walker) */
    blip_table *host = NULL;
    const double *c = NULL;
    rc = blip_table_get("blip-cuda", o, n, &host, &c);
    if (!rc)
        rc = bcu_table_upload(w->t, c);
    if (host)
        blip_table_put(host);
    if (rc) {
        bc_destroy(w);
        return rc;
    }
    mcf_log(MCF_LOG_DEBUG, "blip-cuda: %zu orbitals on a %zu x %zu x %zu grid (%.3g MB of "
            "float coefficients on %s); sums in %s, %d orbitals per thread (values)", L, n[0],
            n[1], n[2], (double)bcu_table_bytes(w->t) / 1e6, bcu_device_name(), precision,
            set.vec);
    *out = w;
    return MCF_OK;
}

/* ---- what this file gathers per call: in a keep slot of the batch ------------------ */

/* The arrays of one call (its tables, determinants, walkers), grown with the batch and
 * kept for its next call; freed by bc_batch_release when the core destroys the batch. */
typedef struct bc_batch {
    const bcu_table **tables;
    size_t tables_cap;
    bcu_det **dets;
    size_t dets_cap;
    bcu_walker *moves;
    size_t moves_cap;
} bc_batch;

static const char bc_batch_owner = 0; /* its address: the key of this file's slot */

static void bc_batch_release(void *slot)
{
    bc_batch *kb = slot;
    free(kb->tables);
    free(kb->dets);
    free(kb->moves);
}

/* p (of *cap entries of `size` bytes) grown to at least n >= 1 entries, never shrunk; NULL
 * when out of memory (p is then still valid) */
static void *bc_grown(void *p, size_t *cap, size_t n, size_t size)
{
    if (*cap >= n)
        return p;
    void *q = realloc(p, n * size);
    if (q)
        *cap = n;
    return q;
}

/* the batch's bc_batch, its arrays for n entries each of those asked (tables, dets,
 * moves) */
static int bc_batch_of(mcf_batch *b, const char *op, size_t n, int tables, int dets, int moves,
                       bc_batch **out)
{
    *out = NULL;
    if (!b)
        return mcf_fail(MCF_EINVAL, "blip-cuda: %s: no batch (mcf_batch: it keeps the "
                        "launch's staging)", op);
    bc_batch *kb = mcf_batch_keep(b, &bc_batch_owner, sizeof *kb, bc_batch_release);
    if (!kb)
        return mcf_fail_prefix(MCF_ENOMEM, "blip-cuda: %s", op);
    const size_t m = n ? n : 1;
    void *p = kb; /* NULL once a growth failed */
    if (tables && (p = bc_grown(kb->tables, &kb->tables_cap, m, sizeof *kb->tables)))
        kb->tables = p;
    if (p && dets && (p = bc_grown(kb->dets, &kb->dets_cap, m, sizeof *kb->dets)))
        kb->dets = p;
    if (p && moves && (p = bc_grown(kb->moves, &kb->moves_cap, m, sizeof *kb->moves)))
        kb->moves = p;
    if (!p)
        return mcf_fail(MCF_ENOMEM, "blip-cuda: %s: out of memory for a batch of %zu", op, n);
    *out = kb;
    return MCF_OK;
}

/* ---- evaluate ------------------------------------------------------------------------ */

/* values, and gradients and Laplacians when grad or lap is given (both must be:
 * mcf_orbital_batch_check names a missing one) */
static int bc_evaluate(mcf_batch *b, void *const *ws, size_t n, const double *const *r,
                       const size_t *n_points, double *const *phi, double *const *grad,
                       double *const *lap)
{
    const int want_gl = grad != NULL || lap != NULL;
    size_t *off = NULL, total = 0;
    int rc = mcf_orbital_batch_check("blip-cuda", "evaluate", ws, n, r, n_points, phi, grad,
                                     lap, want_gl, &off, &total);
    free(off);
    if (rc || total == 0)
        return rc;
    bc_batch *kb;
    if ((rc = bc_batch_of(b, "evaluate", n, 1, 0, 0, &kb)))
        return rc;
    for (size_t k = 0; k < n; k++)
        kb->tables[k] = ((const bc_ws *)ws[k])->t;
    return bcu_eval(b, kb->tables, n, r, n_points, phi, grad, lap, want_gl);
}

/* ---- the determinants (mcf/orbital.h; the device side: blip_cuda.h) ------------------ */

/* MCF_EINVAL naming op and entry k unless ws is a workspace and spin 0 or 1 */
static int bc_check_pair(const char *op, size_t k, const void *ws, int spin)
{
    if (!ws)
        return mcf_fail(MCF_EINVAL, "blip-cuda: %s: workspace %zu is NULL", op, k);
    if (spin != 0 && spin != 1)
        return mcf_fail(MCF_EINVAL, "blip-cuda: %s: spin %d of entry %zu; 0 (up) or 1 (down)",
                        op, spin, k);
    return MCF_OK;
}

/* the determinant (ws, spin) of entry k of op into *d; MCF_EINVAL when it is empty */
static int bc_det_of(const char *op, size_t k, void *ws, int spin, bcu_det **d)
{
    int rc = bc_check_pair(op, k, ws, spin);
    if (rc)
        return rc;
    *d = ((bc_ws *)ws)->det[spin];
    if (!*d)
        return mcf_fail(MCF_EINVAL, "blip-cuda: %s: determinant %zu (spin %d of its "
                        "workspace) is empty; det_set with m >= 1 electrons first", op, k, spin);
    return MCF_OK;
}

/* the n determinants (ws[k], spin[k]) of op into the batch's array *d (the device layer
 * refuses one that appears twice) */
static int bc_dets(mcf_batch *b, const char *op, void *const *ws, const int *spin, size_t n,
                   bcu_det ***d)
{
    if (n && (!ws || !spin))
        return mcf_fail(MCF_EINVAL, "blip-cuda: %s: NULL array of workspaces or spins", op);
    bc_batch *kb;
    int rc = bc_batch_of(b, op, n, 0, 1, 0, &kb);
    for (size_t k = 0; k < n && !rc; k++)
        rc = bc_det_of(op, k, ws[k], spin[k], &kb->dets[k]);
    *d = rc ? NULL : kb->dets;
    return rc;
}

/* det_set (ABI 2): m = 0 empties the determinant; otherwise one of m electrons is made
 * (the storage of the old one is kept when it held m too) and loaded.  After a failure
 * the determinant is empty. */
static int bc_det_set(void *ws, int spin, size_t m, const double *r, const double *A,
                      const double *Ainv)
{
    int rc = bc_check_pair("det_set", 0, ws, spin);
    if (rc)
        return rc;
    bc_ws *w = ws;
    bcu_det **d = &w->det[spin];
    if (m > w->L)
        return mcf_fail(MCF_EINVAL, "blip-cuda: det_set: m = %zu electrons for %zu orbitals; "
                        "0 <= m <= L", m, w->L);
    if (m && (!r || !A || !Ainv))
        return mcf_fail(MCF_EINVAL, "blip-cuda: det_set: NULL positions, rows or inverse for "
                        "%zu electrons", m);
    if (*d && bcu_det_size(*d) != m) {
        bcu_det_destroy(*d);
        *d = NULL;
    }
    if (m == 0)
        return MCF_OK;
    if (!*d && (rc = bcu_det_create(w->t, m, d)))
        return rc;
    if ((rc = bcu_det_set(*d, r, A, Ainv))) {
        bcu_det_destroy(*d);
        *d = NULL;
    }
    return rc;
}

/* det_get (ABI 2): nothing to copy from an empty determinant */
static int bc_det_get(void *ws, int spin, double *r, double *A, double *Ainv)
{
    int rc = bc_check_pair("det_get", 0, ws, spin);
    if (rc)
        return rc;
    bcu_det *d = ((bc_ws *)ws)->det[spin];
    return d ? bcu_det_get(d, r, A, Ainv) : MCF_OK;
}

static int bc_det_trial(mcf_batch *b, void *const *ws, const int *spin, size_t n,
                        const double *const *r_trial)
{
    bcu_det **d;
    int rc = bc_dets(b, "det_trial", ws, spin, n, &d);
    return rc ? rc : bcu_det_trial(b, d, n, r_trial);
}

static int bc_det_ratio(mcf_batch *b, void *const *ws, const int *spin, size_t n,
                        const size_t *electron, double *ratio)
{
    bcu_det **d;
    int rc = bc_dets(b, "det_ratio", ws, spin, n, &d);
    return rc ? rc : bcu_det_ratio(b, d, n, electron, ratio);
}

/* no device work: the move is applied by the next op on the determinant */
static int bc_det_accept(mcf_batch *b, void *ws, int spin, size_t electron)
{
    (void)b;
    bcu_det *d;
    int rc = bc_det_of("det_accept", 0, ws, spin, &d);
    return rc ? rc : bcu_det_accept(d, electron);
}

static int bc_det_refresh(mcf_batch *b, void *const *ws, const int *spin, size_t n,
                          double *drift)
{
    bcu_det **d;
    int rc = bc_dets(b, "det_refresh", ws, spin, n, &d);
    return rc ? rc : bcu_det_refresh(b, d, n, drift);
}

static int bc_det_local(mcf_batch *b, void *const *ws, const int *spin, size_t n,
                        double *const *grad_ratio, double *const *lap_ratio)
{
    bcu_det **d;
    int rc = bc_dets(b, "det_local", ws, spin, n, &d);
    return rc ? rc : bcu_det_local(b, d, n, grad_ratio, lap_ratio);
}

/* walker_sweep (ABI 2): each walker's determinants are its workspace's (an empty one is
 * none), handed to the device layer as ABI 1's walkers; positions, decisions, log ratios
 * and streams are the caller's arrays, written there */
static int bc_walker_sweep(mcf_batch *b, const mcf_walker *w, size_t n,
                           const mcf_pair_function u[2], const double cell[3], size_t delay)
{
    if (n && !w)
        return mcf_fail(MCF_EINVAL, "blip-cuda: walker_sweep: NULL array of walkers");
    bc_batch *kb;
    int rc = bc_batch_of(b, "walker_sweep", n, 0, 0, 1, &kb);
    for (size_t k = 0; k < n && !rc; k++) {
        const bc_ws *ws = w[k].ws;
        if (!ws)
            return mcf_fail(MCF_EINVAL, "blip-cuda: walker_sweep: walker %zu has no "
                            "workspace", k);
        kb->moves[k] = (bcu_walker){{ws->det[0], ws->det[1]}, w[k].r, w[k].trial,
                                          w[k].rng, w[k].accepted, w[k].log_ratio};
    }
    return rc ? rc : bcu_walker_sweep(b, kb->moves, n, u, cell, delay);
}

/* walker_drift_sweep (mcf 1.2): as walker_sweep, with each walker's Gaussians, time step
 * and node rule */
static int bc_walker_drift_sweep(mcf_batch *b, const mcf_drift_walker *w, size_t n,
                                 const mcf_pair_function u[2], const double cell[3])
{
    if (n && !w)
        return mcf_fail(MCF_EINVAL, "blip-cuda: walker_drift_sweep: NULL array of walkers");
    if (n == 0)
        return MCF_OK;
    bcu_drift_walker *dw = malloc(n * sizeof *dw);
    if (!dw)
        return mcf_fail(MCF_ENOMEM, "blip-cuda: out of memory for %zu walkers", n);
    for (size_t k = 0; k < n; k++) {
        const bc_ws *ws = w[k].w.ws;
        if (!ws) {
            free(dw);
            return mcf_fail(MCF_EINVAL, "blip-cuda: walker_drift_sweep: walker %zu has no "
                            "workspace", k);
        }
        dw[k] = (bcu_drift_walker){{{ws->det[0], ws->det[1]}, w[k].w.r, NULL, w[k].w.rng,
                                    w[k].w.accepted, w[k].w.log_ratio},
                                   w[k].chi, w[k].tau, w[k].fixed_node};
    }
    int rc = bcu_walker_drift_sweep(b, dw, n, u, cell);
    free(dw);
    return rc;
}

static int bc_probe(char *why, size_t len) { return bcu_probe(why, len); }

static const mcf_orbital_evaluator bc_evaluator = {
    .struct_size = sizeof(mcf_orbital_evaluator),
    .provides = MCF_ORBITAL_VALUES | MCF_ORBITAL_DETERMINANTS | MCF_ORBITAL_WALKER_SWEEP |
                MCF_ORBITAL_DRIFT_SWEEP,
    .create = bc_create,
    .destroy = bc_destroy,
    .evaluate = bc_evaluate,
    .det_set = bc_det_set,
    .det_get = bc_det_get,
    .det_trial = bc_det_trial,
    .det_ratio = bc_det_ratio,
    .det_accept = bc_det_accept,
    .det_refresh = bc_det_refresh,
    .det_local = bc_det_local,
    .walker_sweep = bc_walker_sweep,
    .walker_drift_sweep = bc_walker_drift_sweep,
};

MCF_PLUGIN_DESCRIPTOR(MCF_PLUGIN_ORBITAL_EVALUATOR, "blip-cuda", "1.0",
                      "blip orbitals (cubic B-splines fitted by FFT, the parameters of blip) on "
                      "an NVIDIA GPU: single-precision table, values, gradients and Laplacians "
                      "of all points of a batch of walkers in one kernel launch",
                      bc_params, &bc_evaluator,
                      .auto_priority = 20, /* before blip (10) when a device is present */
                      .probe = bc_probe,
                      .one_batch = 1 /* one kernel launch for all walkers of a step */)
