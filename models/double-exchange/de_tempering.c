/* de_tempering.c — parallel tempering of the double-exchange model: a chain's new
 * temperature and the action change of a temperature swap.
 *
 * Parallel tempering ([schedule] exchange_every = k; mcf/model.h).  The core writes the
 * chain's T (the state's temperature, de_checkpoint.c; mu stays) and rebuild() checks it
 * (de_temperature_rebuild); exchange() gives dS = S_eff(T') - S_eff(T) of the chain's
 * current Hamiltonian from the evaluator's action() at the two points (T, mu) and (T', mu)
 * (one call for the batch; weight_form ACTION): the weight is exp(-S_eff) with no
 * spin-only term, so the swap of two replicas' temperatures is accepted with
 * min(1, exp(-dS_a - dS_b)).
 * The evaluator must give S_eff deterministically — ed, or kpm/kpm-cuda with [evaluator]
 * vectors = 0 (the exact trace of the Chebyshev series of the log-Fermi function; its cost
 * is about dim / 2 GFMC moves, once per chain per exchange round) — and a stochastic one is
 * refused before the first sweep.  When the evaluator's truncation bound on dS exceeds
 * 0.01 the chain warns once (raise moments).  The GFMC moves keep their own truncation
 * (Lorentz kernel); both approach the exact weight as M grows. */
#include "de_internal.h"

#include <math.h>

/* The chain samples exp(-S_eff) at the temperature c->T the core wrote from its next move
 * on (mu stays); nothing depends on T but the evaluator's calls. */
int de_temperature_rebuild(de_chain *c)
{
    if (!(c->T > 0.0) || !isfinite(c->T))
        return mcf_fail(MCF_EINVAL, "double-exchange: temperature %g (chain %llu): the "
                        "temperature must be positive and finite", c->T,
                        (unsigned long long)c->chain_index);
    return MCF_OK;
}

/* A bound on |dS - dS_exact| above which exchange() warns: the exchange acceptance
 * exp(-dS_a - dS_b) is then off by more than about 1%. */
#define DE_EXCHANGE_ERR 0.01

/* dS[k] = S_eff(T_new[k]) - S_eff(T_k) of chain k's Hamiltonian at its mu (the weight is
 * exp(-S_eff) and there is no spin-only energy): one action() call for the batch, two
 * points per chain.  The evaluator must give the action deterministically (ed; kpm with
 * vectors = 0): a noisy estimate would bias every exchange. */
int de_exchange(mcf_batch *batch, void *const *chains, size_t n, const double *T_new,
                double *dS)
{
    if (n == 0)
        return MCF_OK;
    const mcf_fermion *f = &((const de_chain *)chains[0])->fermion; /* for the check */
    if (!mcf_fermion_has(f, MCF_FERMION_ACTION))
        return mcf_fail(MCF_EINVAL, "double-exchange: parallel tempering ([schedule] "
                        "exchange_every) needs the fermion action at another temperature, "
                        "but evaluator %s has no action op; use evaluator = ed, kpm or "
                        "kpm-cuda (with [evaluator] vectors = 0), or set exchange_every = 0",
                        f->name);
    /* the arrays of 2n points (n workspaces used): T, mu, S (in dS), err */
    mcf_fermion_batch a;
    int rc = mcf_fermion_batch_get(batch, 2 * n, &a);
    if (rc)
        return mcf_fail_prefix(rc, "double-exchange");
    double *T = a.T, *mu = a.mu, *S = a.dS, *err = a.err;
    for (size_t k = 0; k < n; k++) {
        const de_chain *c = chains[k];
        a.ws[k] = c->ws;
        T[2 * k] = c->T;
        T[2 * k + 1] = T_new[k];
        mu[2 * k] = mu[2 * k + 1] = c->mu;
    }
    if ((rc = mcf_fermion_action(&a, n, 2, T, mu, S, err)))
        return mcf_fail_prefix(rc, "double-exchange: parallel tempering");
    for (size_t k = 0; k < n; k++) {
        de_chain *c = chains[k];
        dS[k] = S[2 * k + 1] - S[2 * k];
        const double bound = err[2 * k] + err[2 * k + 1];
        if (bound > DE_EXCHANGE_ERR && !c->warned_exchange) {
            c->warned_exchange = 1;
            mcf_log(MCF_LOG_WARN, "double-exchange: chain %llu: the evaluator's truncation "
                    "bound on the action change between T = %g and %g is %.3g (> %g): "
                    "exchanges are biased by up to a factor exp(%.3g); raise [evaluator] "
                    "moments", (unsigned long long)c->chain_index, c->T, T_new[k], bound,
                    DE_EXCHANGE_ERR, bound);
        }
    }
    return MCF_OK;
}
