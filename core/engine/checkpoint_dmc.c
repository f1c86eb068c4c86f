/* checkpoint_dmc.c — the population's part of the checkpoint ([run] method = dmc; dmc.h),
 * behind the chains' records (checkpoint.c has the file's layout): "MCF-DMC2", u64 points,
 * walkers, chains; per chain the total local energy after its last step (f64); per point
 * the accepted and proposed moves so far (u64 each), the sum of its step energies (f64),
 * its steps (u64) and the comb's stream; then per point its history (dmc.h: u64 rows,
 * then rows x MCFI_DMC_HIST f64, then u64 next slot and the ring's ring_len f64 of
 * population factors; "MCF-DMC1" records, without them, are refused).  The
 * walkers' configurations are in their chains' records; what a step keeps only while it
 * runs (the measurements, this sweep's moves) is empty at every checkpoint, which comes
 * between steps.  Read back, the record is checked before anything is taken: the sizes,
 * one step per sweep done, accepted <= proposed, finite energies, the streams the run's
 * own, the history's rows and the ring's slot. */
#define _POSIX_C_SOURCE 200809L
#include "checkpoint.h"
#include "dmc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define DMC_MAGIC "MCF-DMC2"

int mcfi_checkpoint_dmc_write(const mcf_run *r, mcf_stream *out)
{
    mcfi_dmc_view v;
    mcfi_dmc_state(r, &v);
    const uint64_t head[3] = {v.points, v.R, r->n_chains};
    int rc = mcf_stream_write(out, DMC_MAGIC, 8);
    if (!rc) rc = mcf_stream_write(out, head, sizeof head);
    if (!rc) rc = mcf_stream_write(out, v.e_old, r->n_chains * sizeof *v.e_old);
    if (!rc) rc = mcf_stream_write(out, v.acc_sum, v.points * sizeof *v.acc_sum);
    if (!rc) rc = mcf_stream_write(out, v.prop_sum, v.points * sizeof *v.prop_sum);
    if (!rc) rc = mcf_stream_write(out, v.e_sum, v.points * sizeof *v.e_sum);
    if (!rc) rc = mcf_stream_write(out, v.steps, v.points * sizeof *v.steps);
    if (!rc) rc = mcf_stream_write(out, v.rng, v.points * sizeof *v.rng);
    for (size_t p = 0; p < v.points && !rc; p++) {
        const uint64_t n = v.hist[p].n;
        rc = mcf_stream_write(out, &n, sizeof n);
        if (!rc && n)
            rc = mcf_stream_write(out, v.hist[p].rows, n * MCFI_DMC_HIST * sizeof(double));
        if (!rc)
            rc = mcf_stream_write(out, &v.ring_pos[p], sizeof v.ring_pos[p]);
        if (!rc && v.ring_len[p])
            rc = mcf_stream_write(out, v.ring[p], v.ring_len[p] * sizeof(double));
    }
    return rc;
}

/* Point p's history into h (empty), checked: its rows up to `position` (UINT64_MAX: not
 * checked), each at its sweep, finite but for the log weight, an effective population in
 * (0, walkers]. */
static int history_read(const mcf_run *r, mcf_stream *in, uint64_t position, size_t p,
                        mcfi_dmc_history *h)
{
    const mcf_setup *s = r->setup;
    const double R = (double)s->walkers;
    uint64_t n;
    int rc = mcf_stream_read(in, &n, sizeof n);
    if (!rc && (n > ((uint64_t)1 << 40) ||
                (position != UINT64_MAX && n != mcfi_dmc_history_rows(s, position))))
        return mcf_fail(MCF_EFORMAT, "point %zu's history has %llu rows at sweep %llu (one "
                        "per %ld sweeps)", p, (unsigned long long)n,
                        (unsigned long long)position, s->measure_every);
    if (!rc)
        rc = mcfi_dmc_history_reserve(h, (size_t)n);
    if (!rc && n)
        rc = mcf_stream_read(in, h->rows, (size_t)n * MCFI_DMC_HIST * sizeof(double));
    for (size_t i = 0; i < n && !rc; i++) {
        const double *x = h->rows + i * MCFI_DMC_HIST;
        if (x[0] != mcfi_dmc_history_sweep(s, i) || !isfinite(x[1]) || isnan(x[2]) ||
            !(x[3] > 0.0 && x[3] <= R * (1.0 + 1e-12)) || !isfinite(x[4]) || !isfinite(x[5]) ||
            isnan(x[6]))
            rc = mcf_fail(MCF_EFORMAT, "point %zu's history, row %zu: sweep %g, energy %g, "
                          "log weight %g, effective population %g of %g, trial energy %g, "
                          "effective time step %g", p, i, x[0], x[1], x[2], x[3], R, x[4],
                          x[5]);
    }
    if (!rc)
        h->n = (size_t)n;
    return rc;
}

/* Reads the record into the arrays of *got (the caller's, sized like the run's) and checks
 * it against the run at sweep `position` (UINT64_MAX: the file was checked at its sweep
 * before; the checks that need the sweep are skipped). */
static int dmc_read(const mcf_run *r, mcf_stream *in, uint64_t position, mcfi_dmc_view *got)
{
    mcfi_dmc_view v;
    mcfi_dmc_state(r, &v);
    char magic[8];
    uint64_t head[3];
    int rc = mcf_stream_read(in, magic, 8);
    if (!rc && !memcmp(magic, "MCF-DMC1", 8))
        return mcf_fail(MCF_EFORMAT, "the DMC record is of mcf's first DMC (2026-12-02), "
                        "without the population's history that results.h5 now holds; run it "
                        "again (mcf run CONFIG --force)");
    if (!rc && memcmp(magic, DMC_MAGIC, 8))
        return mcf_fail(MCF_EFORMAT, "the DMC record is missing (a checkpoint of another "
                        "method?)");
    if (!rc) rc = mcf_stream_read(in, head, sizeof head);
    if (!rc && (head[0] != v.points || head[1] != v.R || head[2] != r->n_chains))
        return mcf_fail(MCF_EFORMAT, "the DMC record has %llu points of %llu walkers (%llu "
                        "chains); the run has %zu of %zu", (unsigned long long)head[0],
                        (unsigned long long)head[1], (unsigned long long)head[2], v.points, v.R);
    if (!rc) rc = mcf_stream_read(in, got->e_old, r->n_chains * sizeof *got->e_old);
    if (!rc) rc = mcf_stream_read(in, got->acc_sum, v.points * sizeof *got->acc_sum);
    if (!rc) rc = mcf_stream_read(in, got->prop_sum, v.points * sizeof *got->prop_sum);
    if (!rc) rc = mcf_stream_read(in, got->e_sum, v.points * sizeof *got->e_sum);
    if (!rc) rc = mcf_stream_read(in, got->steps, v.points * sizeof *got->steps);
    if (!rc) rc = mcf_stream_read(in, got->rng, v.points * sizeof *got->rng);
    for (size_t p = 0; p < v.points && !rc; p++) {
        rc = history_read(r, in, position, p, &got->hist[p]);
        if (!rc)
            rc = mcf_stream_read(in, &got->ring_pos[p], sizeof got->ring_pos[p]);
        if (!rc && v.ring_len[p])
            rc = mcf_stream_read(in, got->ring[p], v.ring_len[p] * sizeof(double));
        if (!rc && (v.ring_len[p] ? got->ring_pos[p] >= v.ring_len[p]
                                  : got->ring_pos[p] != 0))
            rc = mcf_fail(MCF_EFORMAT, "point %zu's ring of population factors: slot %llu of "
                          "%llu", p, (unsigned long long)got->ring_pos[p],
                          (unsigned long long)v.ring_len[p]);
    }
    if (rc)
        return mcf_fail_prefix(rc, "the DMC record");
    for (size_t k = 0; k < r->n_chains && position != UINT64_MAX; k++)
        if (position ? !isfinite(got->e_old[k]) : !isnan(got->e_old[k]))
            return mcf_fail(MCF_EFORMAT, "the DMC record: walker %zu's energy %g at sweep %llu",
                            k, got->e_old[k], (unsigned long long)position);
    for (size_t p = 0; p < v.points; p++) {
        if ((position != UINT64_MAX && got->steps[p] != position) ||
            got->acc_sum[p] > got->prop_sum[p] ||
            !isfinite(got->e_sum[p]))
            return mcf_fail(MCF_EFORMAT, "the DMC record: point %zu has %llu steps at sweep "
                            "%llu, %llu of %llu moves accepted, energy sum %g", p,
                            (unsigned long long)got->steps[p], (unsigned long long)position,
                            (unsigned long long)got->acc_sum[p],
                            (unsigned long long)got->prop_sum[p], got->e_sum[p]);
        if ((rc = mcfi_checkpoint_rng_check(&got->rng[p], &v.rng0[p])))
            return mcf_fail_prefix(rc, "the DMC record: point %zu's comb", p);
    }
    return MCF_OK;
}

int mcfi_checkpoint_dmc_read(const mcf_run *r, mcf_stream *in, uint64_t position, int take)
{
    mcfi_dmc_view v, got;
    mcfi_dmc_state(r, &v);
    const size_t n = r->n_chains, P = v.points;
    got.e_old = malloc(n * sizeof *got.e_old);
    got.acc_sum = malloc(P * sizeof *got.acc_sum);
    got.prop_sum = malloc(P * sizeof *got.prop_sum);
    got.e_sum = malloc(P * sizeof *got.e_sum);
    got.steps = malloc(P * sizeof *got.steps);
    got.rng = malloc(P * sizeof *got.rng);
    got.hist = calloc(P, sizeof *got.hist);
    got.ring_pos = calloc(P, sizeof *got.ring_pos);
    got.ring = calloc(P, sizeof *got.ring);
    int ring_ok = got.ring != NULL;
    for (size_t p = 0; ring_ok && p < P; p++)
        ring_ok = (got.ring[p] = calloc(v.ring_len[p] + 1, sizeof(double))) != NULL;
    int rc = !got.e_old || !got.acc_sum || !got.prop_sum || !got.e_sum || !got.steps ||
                     !got.rng || !got.hist || !got.ring_pos || !ring_ok
                 ? mcf_fail(MCF_ENOMEM, "out of memory reading the DMC record")
                 : dmc_read(r, in, position, &got);
    if (!rc && take) {
        memcpy(v.e_old, got.e_old, n * sizeof *v.e_old);
        memcpy(v.acc_sum, got.acc_sum, P * sizeof *v.acc_sum);
        memcpy(v.prop_sum, got.prop_sum, P * sizeof *v.prop_sum);
        memcpy(v.e_sum, got.e_sum, P * sizeof *v.e_sum);
        memcpy(v.steps, got.steps, P * sizeof *v.steps);
        memcpy(v.rng, got.rng, P * sizeof *v.rng);
        for (size_t p = 0; p < P; p++) { /* the histories change hands */
            mcfi_dmc_history t = v.hist[p];
            v.hist[p] = got.hist[p];
            got.hist[p] = t;
            memcpy(v.ring[p], got.ring[p], v.ring_len[p] * sizeof(double));
            v.ring_pos[p] = got.ring_pos[p];
        }
    }
    for (size_t p = 0; got.hist && p < P; p++)
        free(got.hist[p].rows);
    for (size_t p = 0; got.ring && p < P; p++)
        free(got.ring[p]);
    free(got.hist), free(got.ring), free(got.ring_pos);
    free(got.e_old), free(got.acc_sum), free(got.prop_sum), free(got.e_sum), free(got.steps);
    free(got.rng);
    return rc;
}
