/* sj_timing.c — the timing diagnostics of the slater-jastrow model (MCF_TIMING=1): the
 * clock, the timers' creation, the sweep's end and the line logged at destroy.  The clock
 * readings themselves sit beside the work they time (sj_sweep.c, sj_local_energy.c),
 * each guarded by c->tm.
 *
 * With the environment variable MCF_TIMING=1 (read once per chain at create) each chain
 * accumulates the wall time (clock_gettime CLOCK_MONOTONIC) of: the sweep (from the start
 * of sweep() to the chain's last decided move, divided by the chains of the sweep() call,
 * which interleave), the batched evaluator call for the trial rows at the sweep's start
 * (divided by the chains of the batch), the determinant ratios (propose's determinant
 * part), the updates (apply of an accepted move: Sherman-Morrison and the LU refreshes),
 * the Jastrow ratios, and at measurement the measure() call (divided by the batch), its
 * batched evaluator call of values, gradients and Laplacians (likewise; `vgl`), the
 * determinant gradients/Laplacians, the Jastrow gradients/Laplacians and the Ewald energy.
 * The moves do not touch the Ewald sum (the potential is recomputed only at measurement),
 * so the sweep's Ewald share is 0.  At destroy one line per chain goes to the log
 * (MCF_LOG_INFO): "slater-jastrow timing chain K: per sweep X ms (orbitals a ms, ...);
 * per measurement f ms (vgl g, ...)".  The times only go to the log: nothing
 * timing-related enters any result, the checkpoint or the random streams.  Without
 * MCF_TIMING=1 no clock is read. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, CLOCK_MONOTONIC */
#include "slater_jastrow_internal.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The environment variable is read here, once per chain (see the header). */
int timing_create(sj_chain *c)
{
    const char *tv = getenv("MCF_TIMING");
    if (tv && strcmp(tv, "1") == 0 && !(c->tm = calloc(1, sizeof *c->tm)))
        return mcf_fail(MCF_ENOMEM, "slater-jastrow: out of memory for the timers");
    return MCF_OK;
}

/* The line of the chain at destroy (see the header). */
void timing_destroy(sj_chain *c)
{
    if (!c->tm)
        return;
    const sj_timing *t = c->tm;
    const double ps = t->sweeps ? 1e3 / (double)t->sweeps : 0.0;
    const double pm = t->measurements ? 1e3 / (double)t->measurements : 0.0;
    mcf_log(MCF_LOG_INFO, "slater-jastrow timing chain %zu: per sweep %.4f ms (orbitals "
            "%.4f ms, determinant ratios %.4f, updates %.4f, Jastrow %.4f, Ewald %.4f); "
            "per measurement %.4f ms (vgl %.4f, determinant %.4f, Jastrow %.4f, Ewald "
            "%.4f); %llu sweeps, %llu measurements", c->index, t->sweep * ps,
            t->orbitals * ps, t->det * ps, t->update * ps, t->jastrow * ps, 0.0,
            t->measure * pm, t->vgl * pm, t->det_m * pm, t->jastrow_m * pm,
            t->ewald_m * pm, (unsigned long long)t->sweeps,
            (unsigned long long)t->measurements);
    free(c->tm);
    c->tm = NULL;
}

/* MCF_TIMING: after the chain's last decided move of the sweep, its share of the sweep. */
void end_turn_timing(sj_chain *c, double t)
{
    if (c->turn == c->n)
        c->tm->sweep += (t - c->tm->sweep_t0) * c->tm->sweep_share;
}
