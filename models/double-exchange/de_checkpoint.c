/* de_checkpoint.c — the state of a double-exchange chain as the core sees it (mcf_model's
 * state() and rebuild(), mcf/model.h): the checkpoint record, the configuration that
 * start = anneal hands on, the adapted step and the temperature.
 *
 * Checkpoint record (host byte order; the core writes it with mcf_state_save under the tag
 * "DEX2", the bytes of the ABI-1 version of this model, so its checkpoints resume): int32
 * lattice kind, int32 boundary, int32 move (0 uniform, 1 rotation), int32 reserved, int64 L,
 * int64 N, double hund (inf for the infinite coupling), 3N doubles of spins, 3 doubles M,
 * int64 accepted moves since the last refresh, uint64 accepted moves in total, uint64
 * consistency checks passed, double alpha, the measurement mcf_rng, uint64 measurements so
 * far, and with dos_every > 0 the last DOS (energy_points doubles).  mcf_state_load checks
 * the tag, the lattice, move, L, N and hund against the configuration (FIXED fields) and
 * that spins, M and alpha are finite; the reserved word is read but not checked, the last
 * DOS is raw data.  rebuild() then checks every |S| = 1 within 1e-9 (MCF_EFORMAT naming the
 * site and the length), M against the spins, the counter and alpha ranges, and rebuilds the
 * Hamiltonian from the spins.
 *
 * Configuration (start = anneal, tag "DEC1"): the fields flagged CONFIGURATION, in the
 * record's order — lattice kind, boundary, L, N, hund, the spins, M and the moves since its
 * refresh; not the move kind, the step, the measurement stream or the counters, which stay
 * the chain's own.  The bytes of the ABI-1 version's configuration record.
 *
 * Step: with move = rotation, alpha, adapted by the core toward acceptance 0.5 within
 * [1e-3, pi] (mcf_adapt_step).  Temperature: c->T, written by parallel tempering
 * (de_tempering.c checks it); not in the record (the core sets it on resume). */
#include "de_internal.h"

#include <math.h>

#define DE_LOAD_TOL 1e-9    /* |S| - 1 allowed in a checkpoint */

/* The record's fields (the layout above), with the configuration flagged; c->fixed is
 * written afresh from the chain's configuration at every call (so the reserved word is
 * saved as 0, whatever a load read into it). */
int de_state(void *chain, mcf_chain_state *st)
{
    de_chain *c = chain;
    de_fixed *fx = &c->fixed;
    *fx = (de_fixed){{(int32_t)c->kind, (int32_t)c->boundary, (int32_t)c->rotation, 0},
                     (int64_t)c->L, (int64_t)c->n};
    const unsigned conf = MCF_STATE_CONFIGURATION;
    int rc;
    if ((rc = mcf_chain_state_add(
             st, MCF_STATE_FIXED("lattice kind", &fx->head[0], sizeof fx->head[0]), conf)) ||
        (rc = mcf_chain_state_add(
             st, MCF_STATE_FIXED("boundary", &fx->head[1], sizeof fx->head[1]), conf)) ||
        (rc = mcf_chain_state_add(st, MCF_STATE_FIXED("move", &fx->head[2], sizeof fx->head[2]),
                                  0)) ||
        (rc = mcf_chain_state_add(
             st, MCF_STATE_DATA("reserved word", &fx->head[3], sizeof fx->head[3]), 0)) ||
        (rc = mcf_chain_state_add(st, MCF_STATE_FIXED("L", &fx->L, sizeof fx->L), conf)) ||
        (rc = mcf_chain_state_add(st, MCF_STATE_FIXED("number of sites", &fx->n, sizeof fx->n),
                                  conf)) ||
        /* inf: equal bytes too */
        (rc = mcf_chain_state_add(st, MCF_STATE_FIXED("hund", &c->hund, sizeof c->hund),
                                  conf)) ||
        (rc = mcf_chain_state_add(st, MCF_STATE_REALS("spins", c->spin, 3 * c->n), conf)) ||
        (rc = mcf_chain_state_add(st, MCF_STATE_REALS("running magnetization", c->mag, 3),
                                  conf)) ||
        (rc = mcf_chain_state_add(st, MCF_STATE_DATA("moves since the last refresh",
                                                     &c->since_refresh,
                                                     sizeof c->since_refresh), conf)) ||
        (rc = mcf_chain_state_add(
             st, MCF_STATE_DATA("accepted moves", &c->accepted, sizeof c->accepted), 0)) ||
        (rc = mcf_chain_state_add(
             st, MCF_STATE_DATA("consistency checks", &c->checks, sizeof c->checks), 0)) ||
        (rc = mcf_chain_state_add(st, MCF_STATE_REALS("rotation half-angle", &c->alpha, 1),
                                  0)) ||
        (rc = mcf_chain_state_add(st, MCF_STATE_RNG("measurement stream", &c->mrng), 0)) ||
        (rc = mcf_chain_state_add(
             st, MCF_STATE_DATA("measurements", &c->measured, sizeof c->measured), 0)) ||
        (c->dos_every > 0 &&
         (rc = mcf_chain_state_add(st, MCF_STATE_DATA("last DOS", c->dos_last,
                                                      c->dos_points * sizeof *c->dos_last),
                                   0))))
        return mcf_fail(rc, "double-exchange: too many state fields (a bug, please report it)");
    if (c->rotation) {
        st->step = &c->alpha;
        st->step_target = DE_TARGET_ACCEPTANCE;
        st->step_min = DE_ALPHA_MIN;
        st->step_max = DE_ALPHA_MAX;
    }
    st->temperature = &c->T;
    return MCF_OK;
}

/* The spins loaded into c: each of length 1, the running M their sum, the refresh counter
 * in range (and, for a whole chain, the step); then the Hamiltonian rebuilt from them.  The
 * running values stay bit for bit as saved, so the chain continues exactly as it would
 * have. */
static int de_check_and_build(de_chain *c, int whole, const char *what)
{
    double sum[3] = {0, 0, 0};
    for (size_t i = 0; i < c->n; i++) {
        const double *s = c->spin + 3 * i;
        const double length = sqrt(s[0] * s[0] + s[1] * s[1] + s[2] * s[2]);
        if (!(fabs(length - 1.0) <= DE_LOAD_TOL))
            return mcf_fail(MCF_EFORMAT,
                            "double-exchange: the %s's spin at site %zu has length %.17g, not "
                            "1 (tolerance %g): the %s is corrupt",
                            what, i, length, DE_LOAD_TOL, what);
        for (int a = 0; a < 3; a++)
            sum[a] += s[a];
    }
    /* the running M must agree with the spins up to accumulated rounding (a loose bound,
     * 1e-9 per site) */
    const double tol = 1e-9 * (double)c->n;
    int bad = c->since_refresh < 0 || c->since_refresh >= (int64_t)c->n ||
              (whole && !(c->alpha >= DE_ALPHA_MIN && c->alpha <= DE_ALPHA_MAX));
    for (int a = 0; a < 3; a++)
        bad |= !(fabs(c->mag[a] - sum[a]) <= tol);
    if (bad)
        return mcf_fail(MCF_EFORMAT, "double-exchange: the %s's running magnetization, "
                        "counters or step are invalid or do not match its spins: the %s is "
                        "corrupt", what, what);
    c->h_from_spinor = 0;
    int rc = de_build(c, c->h);
    if (rc)
        return mcf_fail_prefix(rc, "double-exchange: rebuilding the Hamiltonian from the "
                               "%s's spins", what);
    return MCF_OK;
}

/* After the core replaced fields: a whole record (a resume), the configuration (anneal) or
 * the temperature (tempering). */
int de_rebuild(void *chain, unsigned what)
{
    de_chain *c = chain;
    int rc = MCF_OK;
    if (what & MCF_REBUILD_LOAD)
        rc = de_check_and_build(c, 1, "checkpoint");
    else if (what & MCF_REBUILD_CONFIGURATION)
        rc = de_check_and_build(c, 0, "configuration handed over");
    if (!rc && (what & MCF_REBUILD_TEMPERATURE))
        rc = de_temperature_rebuild(c);
    return rc;
}
