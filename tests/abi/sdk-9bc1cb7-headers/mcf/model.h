/* mcf/model.h — the vtable of a model plugin (kind MCF_PLUGIN_MODEL).
 *
 * A model owns the physics of one chain: its configuration (spins, positions, ...), how
 * to propose a local move, the log of the Metropolis ratio of a move, and measurements.
 * It never knows about hardware: expensive numerics go to an evaluator plugin, reached
 * through mcf_services.
 *
 * The core advances all chains of a run in lockstep.  One sweep of a batch of chains:
 *
 *     begin_sweep(chains, n)                                  (optional)
 *     for step s < max units(chain):
 *         for every chain with units(chain) > s: propose(chain, rng, move)
 *         log_ratio(active chains, their moves, n_active, out)  one batched call
 *         for every active chain: accept() if out >= 0 or uniform < exp(out), else reject()
 *
 * and every measure_every sweeps, measure(chain, values).  Batches group chains run by one
 * thread; a model must give the same numbers whatever the grouping (chains are independent),
 * which is what makes results independent of the number of threads.  Distinct chains may be
 * used from distinct threads at once; one chain is never used by two threads at once. */
#ifndef MCF_MODEL_H
#define MCF_MODEL_H

#include <stddef.h>
#include <stdint.h>
#include "mcf/plugin.h"
#include "mcf/params.h"
#include "mcf/rng.h"
#include "mcf/stream.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What an observable means, so the core can derive quantities from it.  With temperature
 * T and N = units(chain):
 *   specific_heat  = N (<e^2> - <e>^2) / T^2        from the ENERGY observable e (per unit)
 *   susceptibility = N (<m^2> - <|m|>^2) / T        from ORDER (|m|) and ORDER2 (m^2)
 *   binder         = 1 - <m^4> / (3 <m^2>^2)         from ORDER2 and ORDER4 (m^4)
 * each with a jackknife error.  At most one observable per role other than NONE. */
typedef enum mcf_observable_role {
    MCF_ROLE_NONE = 0,
    MCF_ROLE_ENERGY = 1,   /* energy per unit */
    MCF_ROLE_ORDER = 2,    /* |order parameter| per unit, e.g. abs_m */
    MCF_ROLE_ORDER2 = 3,   /* its square, e.g. m2 */
    MCF_ROLE_ORDER4 = 4    /* its fourth power, e.g. m4 */
} mcf_observable_role;

/* Bits of mcf_observable_spec.flags. */
enum {
    /* The model measures log x; the core averages log x and reports exp(mean) — the
     * geometric mean, e.g. a typical DOS exp<log rho_i(E)> — with the error propagated
     * (exp(mean) * error of the mean). */
    MCF_OBS_GEOMETRIC_MEAN = 1u << 0
};

typedef struct mcf_observable_spec {
    const char *name;          /* lower_snake_case; NULL terminates the array */
    mcf_observable_role role;  /* roles apply to scalars only */
    const char *doc;           /* one line: meaning and units */
    const char *axis;          /* NULL: a scalar.  Otherwise a curve over this axis ("E"):
                                  the model's curve_points() gives its length and axis */
    unsigned flags;            /* MCF_OBS_* */
} mcf_observable_spec;

/* What the core hands a model at creation.  Fields are only ever appended. */
typedef struct mcf_services {
    uint32_t struct_size;
    uint64_t seed;                       /* the run's seed */
    uint64_t chain_index;                /* this chain's index in the run */
    const struct mcf_plugin_info *evaluator;  /* [run] evaluator, or NULL for none */
    const mcf_params *evaluator_params;  /* its validated [evaluator] values, or NULL */
} mcf_services;

typedef struct mcf_model_ops {
    uint32_t struct_size;      /* sizeof(mcf_model_ops) the plugin was built with */
    size_t move_size;          /* bytes of one move; the core provides the storage */
    const mcf_observable_spec *observables;  /* scalar observables, in measure() order */

    /* Creates one chain from validated params, drawing its initial state from rng.
     * On success *chain is owned by the core, freed with destroy().  params and services
     * stay valid until destroy().  Errors: MCF_EINVAL/MCF_ENOMEM/... with a message. */
    int (*create)(const mcf_params *params, const mcf_services *services, mcf_rng *rng,
                  void **chain);
    void (*destroy)(void *chain);

    /* Proposals per sweep (sites, electrons); also the N of per-unit observables. */
    size_t (*units)(const void *chain);

    /* Optional (may be NULL): called once per sweep for a batch, e.g. to prefetch. */
    int (*begin_sweep)(void *const *chains, size_t n);

    /* Draws a move for the chain into `move` (move_size bytes, uninitialised).  A nonzero
     * return (MCF_E*, with a message from mcf_fail) stops the run with that message; the
     * last checkpoint stays valid. */
    int (*propose)(void *chain, mcf_rng *rng, void *move);

    /* For n chains and their moves (stride move_size), writes to out[i] the log of the
     * Metropolis acceptance ratio of move i (proposal asymmetry included).  Nonzero
     * return: the run stops with the message (e.g. an evaluator failure). */
    int (*log_ratio)(void *const *chains, const void *moves, size_t n, double *out);

    /* Applies an accepted move / forgets a rejected one.  accept() returning nonzero
     * stops the run with its message (e.g. a failed consistency check). */
    int (*accept)(void *chain, const void *move);
    void (*reject)(void *chain, const void *move);

    /* Writes the declared observables, in order, to values: one value per scalar, and
     * curve_points() values per curve.  Nonzero return: the run stops with the message. */
    int (*measure)(void *chain, double *values);

    /* Writes / reads the chain's complete state (configuration, adapted step sizes...).
     * load() is called on a chain freshly made by create() with the same params and must
     * leave it exactly as it was when saved.  save() errors come from the stream
     * (MCF_EIO); load() returns MCF_EFORMAT with a message for a record that is not this
     * model's or does not match the configuration, and the resume is refused. */
    int (*save)(const void *chain, mcf_stream *out);
    int (*load)(void *chain, mcf_stream *in);

    /* Optional (may be NULL): during thermalization the core reports the chain's
     * acceptance rate over the last block of sweeps, so the model can adapt its step. */
    void (*adapt)(void *chain, double acceptance);

    /* Required when an observable is a curve, else may be NULL: the number of points of
     * curve observable `index` (its position in observables[]), and, when axis is not
     * NULL, the axis values.  Must be the same for every measurement of a chain.  0 means
     * the chain does not measure this curve (a model may make a curve optional, e.g. a DOS
     * only when asked for): measure() then writes no values for it, and when no chain
     * measures it, no <name>.tsv is written. */
    size_t (*curve_points)(const void *chain, size_t index, double *axis);

    /* Optional (may be NULL): a batch version of measure() for n chains, so an evaluator
     * can work for all chains at once; values[k] as for measure(). */
    int (*measure_batch)(void *const *chains, size_t n, double *const *values);

    /* Appended (read only when struct_size covers it). */
    int evaluator_kind; /* MCF_PLUGIN_FERMION_EVALUATOR or MCF_PLUGIN_ORBITAL_EVALUATOR: the kind `evaluator = auto` looks for; 0: the model takes no evaluator */

    /* Appended for parallel tempering ([schedule] exchange_every > 0; both required then,
     * read only when struct_size covers them).  The core swaps temperatures, not
     * configurations, between chains that differ only in T:
     * set_temperature() makes the chain sample exp(-H/T) from its next move on (T > 0; a
     * nonzero return stops the run with the message), and energy() returns the total
     * energy H of the current configuration (not per unit: the exchange acceptance is
     * min(1, exp[(1/T_i - 1/T_j)(E_i - E_j)])).  energy() is asked between sweeps, when
     * the last measurement may be sweeps old; it must not change the chain. */
    int (*set_temperature)(void *chain, double T);
    double (*energy)(const void *chain);

    /* Appended for parallel tempering of models whose weight is not exp(-H/T) with a
     * T-independent H (fermions: exp(-S_eff(T))).  Optional; a model that has it may leave
     * energy() NULL, and the core then uses it instead.  For n chains: dS[k] = S_k(T_new[k])
     * - S_k(T_k), the change of -log(weight) of chain k's current configuration if it were
     * sampled at T_new[k] instead of its present temperature T_k (terms that do not depend
     * on the configuration cancel in the exchange and may be left out).  The acceptance of
     * swapping the temperatures of replicas a and b is min(1, exp(-dS_a - dS_b)), each at
     * the other's temperature: for S = H/T that is the energy formula above.  Asked between
     * sweeps, for the chains of this process that try an exchange in the round, in one call
     * (a GPU evaluator gets the batch); must not change the configurations and must give the
     * same bits whatever the batch (results do not depend on thread or rank counts).  The
     * core also calls it once before the first sweep, so that a refusal (e.g. an evaluator
     * that cannot compute the action exactly) stops the run at once. */
    int (*exchange_action)(void *const *chains, size_t n, const double *T_new, double *dS);
} mcf_model_ops;

#ifdef __cplusplus
}
#endif
#endif
