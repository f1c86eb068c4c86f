/* kpm_ops_traces.c — the traces behind the DOS and its moments, occupation and action
 * (kpm_ops.h): the exact trace over the unit vectors or the backend's random vectors, a
 * batch's traces through the backend's traces op where it has one, and the exact trace
 * kept while the Hamiltonian is unchanged. */
#include "kpm_ops.h"

#include "mcf/mcf.h"

/* vectors = 0: the exact trace (1/dim) sum_r <r|T_n(H~)|r> over the unit vectors, `block`
 * rows at a time, into w->mu (no randomness) */
static int ops_exact_trace(kpm_ops_ws *w)
{
    const size_t dim = w->h->dim, M = w->M, B = w->block;
    size_t rows[KPM_MAX_BLOCK];
    for (size_t n = 0; n < M; n++)
        w->mu[n] = 0.0;
    for (size_t r0 = 0; r0 < dim; r0 += B) {
        const size_t nb = dim - r0 < B ? dim - r0 : B;
        for (size_t j = 0; j < nb; j++)
            rows[j] = r0 + j;
        int rc = w->be->rows_moments(w, rows, nb);
        if (rc)
            return rc;
        for (size_t j = 0; j < nb; j++)
            for (size_t n = 0; n < M; n++)
                w->mu[n] += w->mu_vec[j * M + n];
    }
    for (size_t n = 0; n < M; n++)
        w->mu[n] /= (double)dim;
    return MCF_OK;
}

/* an exact trace still valid: h unchanged since it was taken (the scaling with it) */
static int ops_trace_kept(const kpm_ops_ws *w)
{
    return w->R == 0 && w->trace_cached && w->trace_version == w->h->version;
}

/* the trace just taken: the random vectors' mean into w->mu, or the exact trace kept */
static void ops_trace_taken(kpm_ops_ws *w)
{
    if (w->R) {
        kpm_moments_mean(w->R, w->M, w->mu_vec, w->mu, NULL);
    } else {
        w->trace_cached = 1;
        w->trace_version = w->h->version;
    }
}

int kpm_ops_traces(const kpm_backend *be, mcf_batch *b, void *const *ws, size_t n,
                   mcf_rng *const *rngs, const char *what)
{
    unsigned char kept[n ? n : 1], done[n ? n : 1];
    int rc;
    for (size_t k = 0; k < n; k++) {
        if ((rc = kpm_ops_prepare(ws[k])))
            return mcf_fail_prefix(rc, "%s: %s of workspace %zu", be->name, what, k);
        kept[k] = done[k] = (unsigned char)ops_trace_kept(ws[k]);
    }
    if (be->traces && (rc = be->traces(b, ws, n, rngs, done)))
        return mcf_fail_prefix(rc, "%s: %s of the batch", be->name, what);
    for (size_t k = 0; k < n; k++) {
        kpm_ops_ws *w = ws[k];
        if (kept[k])
            continue;
        if (!done[k] && (rc = w->R == 0 ? ops_exact_trace(w) : be->random_moments(w, rngs[k])))
            return mcf_fail_prefix(rc, "%s: %s of workspace %zu", be->name, what, k);
        ops_trace_taken(w);
    }
    return MCF_OK;
}
