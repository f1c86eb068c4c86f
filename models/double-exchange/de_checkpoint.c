/* de_checkpoint.c — the checkpoint record of a double-exchange chain: save() and load().
 *
 * Checkpoint record (host byte order): magic "DEX2", int32 lattice kind, int32 boundary,
 * int32 move (0 uniform, 1 rotation), int32 reserved, int64 L, int64 N, double hund
 * (inf for the infinite coupling), 3N doubles of spins, 3 doubles M, int64 accepted moves
 * since the last refresh, uint64 accepted moves in total, uint64 consistency checks passed,
 * double alpha, the measurement mcf_rng, uint64 measurements so far, and with dos_every > 0
 * the last DOS (energy_points doubles).  de_state() describes this record once (mcf/state.h)
 * for both save() and load(); mcf_state_load checks the magic, the lattice, move, L, N and
 * hund against the configuration (FIXED fields) and that spins, M and alpha are finite.
 * load() then checks every |S| = 1 within 1e-9 (MCF_EFORMAT naming the site and the length),
 * M against the spins, the counter and alpha ranges, and rebuilds the Hamiltonian from the
 * spins. */
#include "de_internal.h"

#include <math.h>

#define DE_LOAD_TOL 1e-9    /* |S| - 1 allowed in a checkpoint */

static const char de_magic[4] = {'D', 'E', 'X', '2'};

/* The values of the record that the configuration fixes, in the record's types. */
typedef struct de_fixed {
    int32_t head[4]; /* lattice kind, boundary, move (0 uniform, 1 rotation), reserved (0) */
    int64_t L, n;
} de_fixed;

#define DE_STATE_FIELDS 16

/* The checkpoint record after its magic "DEX2" (the layout in the comment at the top),
 * described once for save() and load(); fx holds the fixed values, from the chain's
 * configuration.  The reserved word is read but not checked; the last DOS is raw data. */
static size_t de_state(de_chain *c, de_fixed *fx, mcf_state_field f[DE_STATE_FIELDS])
{
    *fx = (de_fixed){{(int32_t)c->kind, (int32_t)c->boundary, (int32_t)c->rotation, 0},
                     (int64_t)c->L, (int64_t)c->n};
    size_t k = 0;
    f[k++] = MCF_STATE_FIXED("lattice kind", &fx->head[0], sizeof fx->head[0]);
    f[k++] = MCF_STATE_FIXED("boundary", &fx->head[1], sizeof fx->head[1]);
    f[k++] = MCF_STATE_FIXED("move", &fx->head[2], sizeof fx->head[2]);
    f[k++] = MCF_STATE_DATA("reserved word", &fx->head[3], sizeof fx->head[3]);
    f[k++] = MCF_STATE_FIXED("L", &fx->L, sizeof fx->L);
    f[k++] = MCF_STATE_FIXED("number of sites", &fx->n, sizeof fx->n);
    f[k++] = MCF_STATE_FIXED("hund", &c->hund, sizeof c->hund); /* inf: equal bytes too */
    f[k++] = MCF_STATE_REALS("spins", c->spin, 3 * c->n);
    f[k++] = MCF_STATE_REALS("running magnetization", c->mag, 3);
    f[k++] = MCF_STATE_DATA("moves since the last refresh", &c->since_refresh,
                            sizeof c->since_refresh);
    f[k++] = MCF_STATE_DATA("accepted moves", &c->accepted, sizeof c->accepted);
    f[k++] = MCF_STATE_DATA("consistency checks", &c->checks, sizeof c->checks);
    f[k++] = MCF_STATE_REALS("rotation half-angle", &c->alpha, 1);
    f[k++] = MCF_STATE_RNG("measurement stream", &c->mrng);
    f[k++] = MCF_STATE_DATA("measurements", &c->measured, sizeof c->measured);
    if (c->dos_every > 0)
        f[k++] = MCF_STATE_DATA("last DOS", c->dos_last, c->dos_points * sizeof *c->dos_last);
    return k;
}

int de_save(const void *chain, mcf_stream *out)
{
    de_fixed fx;
    mcf_state_field f[DE_STATE_FIELDS];
    int rc = mcf_state_save(out, de_magic, f, de_state((de_chain *)chain, &fx, f));
    if (rc)
        return mcf_fail_prefix(rc, "double-exchange: saving the chain");
    return MCF_OK;
}

/* Loads straight into the chain (a refused load aborts the resume), then checks what the
 * description cannot and rebuilds the Hamiltonian from the spins.  The running values stay
 * bit for bit as saved, so the chain continues exactly as it would have. */
/* The spins loaded into c: each of length 1, the running M their sum, the refresh counter
 * in range (and, for a whole chain, the step); then the Hamiltonian rebuilt from them. */
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
    int rc = de_build(c, c->h);
    if (rc)
        return mcf_fail_prefix(rc, "double-exchange: rebuilding the Hamiltonian from the "
                               "%s's spins", what);
    return MCF_OK;
}

int de_load(void *chain, mcf_stream *in)
{
    de_chain *c = chain;
    de_fixed fx;
    mcf_state_field f[DE_STATE_FIELDS];
    int rc = mcf_state_load(in, de_magic, "double-exchange", f, de_state(c, &fx, f));
    if (rc)
        return rc;
    return de_check_and_build(c, 1, "checkpoint");
}

/* start = anneal: the configuration alone, "DEC1": the fixed values of the record above,
 * the spins, M and the moves since its refresh — not the step, the measurement stream or
 * the counters, which stay the chain's own. */
static const char de_configuration_magic[4] = {'D', 'E', 'C', '1'};

static size_t de_configuration(de_chain *c, de_fixed *fx, mcf_state_field f[DE_STATE_FIELDS])
{
    *fx = (de_fixed){{(int32_t)c->kind, (int32_t)c->boundary, (int32_t)c->rotation, 0},
                     (int64_t)c->L, (int64_t)c->n};
    size_t k = 0;
    f[k++] = MCF_STATE_FIXED("lattice kind", &fx->head[0], sizeof fx->head[0]);
    f[k++] = MCF_STATE_FIXED("boundary", &fx->head[1], sizeof fx->head[1]);
    f[k++] = MCF_STATE_FIXED("L", &fx->L, sizeof fx->L);
    f[k++] = MCF_STATE_FIXED("number of sites", &fx->n, sizeof fx->n);
    f[k++] = MCF_STATE_FIXED("hund", &c->hund, sizeof c->hund);
    f[k++] = MCF_STATE_REALS("spins", c->spin, 3 * c->n);
    f[k++] = MCF_STATE_REALS("running magnetization", c->mag, 3);
    f[k++] = MCF_STATE_DATA("moves since the last refresh", &c->since_refresh,
                            sizeof c->since_refresh);
    return k;
}

int de_save_configuration(const void *chain, mcf_stream *out)
{
    de_fixed fx;
    mcf_state_field f[DE_STATE_FIELDS];
    int rc = mcf_state_save(out, de_configuration_magic, f,
                            de_configuration((de_chain *)chain, &fx, f));
    return rc ? mcf_fail_prefix(rc, "double-exchange: saving the configuration") : MCF_OK;
}

int de_load_configuration(void *chain, mcf_stream *in)
{
    de_chain *c = chain;
    de_fixed fx;
    mcf_state_field f[DE_STATE_FIELDS];
    int rc = mcf_state_load(in, de_configuration_magic, "double-exchange", f,
                            de_configuration(c, &fx, f));
    return rc ? rc : de_check_and_build(c, 0, "configuration handed over");
}
