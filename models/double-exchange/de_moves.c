/* de_moves.c — the single-spin move of the double-exchange model: propose() (the moves of a
 * batch and their Metropolis ratios, from the evaluator's change_action), apply() (the
 * accepted ones), and the running magnetization M = sum_i S_i that apply() keeps.  The
 * Hamiltonian entries a move rewrites and its change H' - H are de_hamiltonian.c's.
 *
 * Moves.  At a site o chosen uniformly (mcf_rng_below; the layout's units = the number of
 * sites, N), a new direction S' drawn either
 *   move = uniform:   uniformly on the sphere, independent of S_o, or
 *   move = rotation:  uniformly in the spherical cap of half-angle alpha around S_o
 *                     (cos of the angle uniform in [cos alpha, 1], azimuth uniform).
 * Both proposal densities depend only on S_o . S' (the cap's is 1 / (2 pi (1 - cos alpha))
 * when S_o . S' >= cos alpha, else 0), so q(S'|S) = q(S|S'): the proposal is symmetric and
 * the log of the Metropolis ratio is -dS, detailed balance holds for exp(-S_eff).  alpha is
 * adapted during thermalization toward acceptance 0.5 by the core (the state's step,
 * de_checkpoint.c: mcf_adapt_step, alpha *= clamp(acceptance / 0.5, 0.5, 2), kept in
 * [1e-3, pi]); it is part of the saved state.  The new direction is renormalized to
 * |S'| = 1 (a rounding-level correction).  A rejected move changes nothing.
 *
 * propose() draws every chain's move in turn from its stream (site, then direction), each
 * carrying its change Delta = H' - H as an mcf_change of rank 2 built from the chain's
 * current spins (de_make_change), then hands the changes of the whole batch to one
 * change_action call (mcf_fermion_change_action; T and mu per chain), its arrays taken
 * from the core's per-batch scratch (mcf_fermion_batch_get) and the evaluator from the
 * batch (ABI 2's helpers).  change_action gives the same dS, bit for bit, as the rank <= 2
 * delta_action of mcf 0.2 that this model called before: ed adds either change to the
 * dense H through mcf_change_add_dense, kpm converts a local change with
 * mcf_change_from_local into the same contour computation (gfmc = real-axis: back, into
 * the same GFMC), so the results did not change.
 *
 * apply() stores S' of an accepted move, rewrites the Hamiltonian entries touching o
 * (mcf_hamiltonian_set / mcf_hamiltonian_set_onsite) and updates the running magnetization
 * M = sum_i S_i.  After every N accepted moves M is recomputed from the spins (as in the
 * heisenberg model: rounding drift stays at one sweep's worth) and the consistency check
 * (de_verify) runs. */
#include "de_internal.h"

#include <math.h>
#include <string.h>

#define DE_TWO_PI 6.28318530717958647692

/* M from scratch. */
void de_refresh(de_chain *c)
{
    double m[3] = {0, 0, 0};
    for (size_t i = 0; i < c->n; i++)
        for (int a = 0; a < 3; a++)
            m[a] += c->spin[3 * i + a];
    memcpy(c->mag, m, sizeof m);
    c->since_refresh = 0;
}

/* A direction uniform in the cap of half-angle alpha around the unit vector s. */
static void de_rotate(mcf_rng *rng, const double s[3], double alpha, double out[3])
{
    /* cos(gamma) uniform in [cos alpha, 1]: 1 - cos(gamma) = u (1 - cos alpha), with
     * 1 - cos alpha = 2 sin^2(alpha / 2) (no cancellation for small alpha) */
    const double half = sin(0.5 * alpha);
    const double one_minus = mcf_rng_uniform(rng) * 2.0 * half * half;
    const double cg = 1.0 - one_minus;
    const double sg = sqrt(one_minus * (2.0 - one_minus));
    const double psi = DE_TWO_PI * mcf_rng_uniform(rng);
    /* an orthonormal frame e1, e2 perpendicular to s: cross s with the axis along which
     * s has its smallest component */
    int a = 0;
    if (fabs(s[1]) < fabs(s[a]))
        a = 1;
    if (fabs(s[2]) < fabs(s[a]))
        a = 2;
    double axis[3] = {0, 0, 0}, e1[3], e2[3];
    axis[a] = 1.0;
    e1[0] = s[1] * axis[2] - s[2] * axis[1];
    e1[1] = s[2] * axis[0] - s[0] * axis[2];
    e1[2] = s[0] * axis[1] - s[1] * axis[0];
    const double n1 = sqrt(e1[0] * e1[0] + e1[1] * e1[1] + e1[2] * e1[2]);
    for (int k = 0; k < 3; k++)
        e1[k] /= n1;
    e2[0] = s[1] * e1[2] - s[2] * e1[1];
    e2[1] = s[2] * e1[0] - s[0] * e1[2];
    e2[2] = s[0] * e1[1] - s[1] * e1[0];
    const double cp = cos(psi), sp = sin(psi);
    for (int k = 0; k < 3; k++)
        out[k] = cg * s[k] + sg * (cp * e1[k] + sp * e2[k]);
}

/* One chain's move from its stream: the site, the direction, the change. */
static void de_propose_one(const de_chain *c, mcf_rng *rng, de_move *m)
{
    const size_t o = (size_t)mcf_rng_below(rng, c->n);
    m->site = (int64_t)o;
    if (c->rotation)
        de_rotate(rng, c->spin + 3 * o, c->alpha, m->s);
    else
        mcf_rng_unit_vector(rng, m->s);
    const double len = sqrt(m->s[0] * m->s[0] + m->s[1] * m->s[1] + m->s[2] * m->s[2]);
    for (int a = 0; a < 3; a++)
        m->s[a] /= len;
    de_make_change(c, o, m->s, &m->change);
}

/* The moves of the batch, then one change_action call for all of them. */
int de_propose(mcf_batch *batch, void *const *chains, size_t n, mcf_rng *const *rngs,
               void *moves, double *log_ratio)
{
    if (n == 0)
        return MCF_OK;
    de_move *mv = moves;
    for (size_t k = 0; k < n; k++)
        de_propose_one(chains[k], rngs[k], &mv[k]);
    mcf_fermion_batch a;
    int rc = mcf_fermion_batch_get(batch, n, &a);
    if (rc)
        return rc;
    for (size_t k = 0; k < n; k++) {
        const de_chain *c = chains[k];
        a.ws[k] = c->ws;
        a.changes[k] = &mv[k].change;
        a.T[k] = c->T;
        a.mu[k] = c->mu;
    }
    if ((rc = mcf_fermion_change_action(&a, n)))
        return rc;
    for (size_t k = 0; k < n; k++)
        log_ratio[k] = -a.dS[k];
    return MCF_OK;
}

/* The accepted move m of chain c. */
static int de_accept(de_chain *c, const de_move *m)
{
    const size_t o = (size_t)m->site;
    double *s = c->spin + 3 * o;
    for (int a = 0; a < 3; a++) {
        c->mag[a] += m->s[a] - s[a];
        s[a] = m->s[a];
    }
    c->h_from_spinor = 0; /* this site's field is de_field's again */
    int rc = de_set_site(c, c->h, o, c->spin);
    if (rc)
        return rc;
    c->accepted++;
    if (++c->since_refresh >= (int64_t)c->n) {
        de_refresh(c);
        if ((rc = de_verify(c)))
            return rc;
    }
    return MCF_OK;
}

int de_apply(mcf_batch *batch, void *const *chains, const void *moves, size_t n,
             const unsigned char *accepted)
{
    (void)batch;
    const de_move *mv = moves;
    for (size_t k = 0; k < n; k++) {
        int rc = accepted[k] ? de_accept(chains[k], &mv[k]) : MCF_OK;
        if (rc)
            return rc;
    }
    return MCF_OK;
}
