/* mcf/abi1_model.h — ABI 1's model table (mcf_model_ops, SDK 0.1 to 0.8), private to mcf.
 *
 * Not installed: since mcf 1.0 (ABI 2) the public headers describe ABI 2 only.  What is here
 * is what plugins built against mcf 0.1-0.8 have in their binaries, so the layouts never
 * change: the core's adapter (core/engine/abi1.c) runs such a model, and the tests that
 * exist to check that path build ABI-1 plugins against these headers.  An author of a new
 * model writes ABI 2 (mcf/model.h, docs/plugin-guide.md); one who must build an ABI-1
 * plugin builds it against the frozen headers of an older mcf (docs/plugin-guide-abi1.md).
 *
 * The comments are those of the public header of mcf 0.8, where the tables lived. */
#ifndef MCF_ABI1_MODEL_H
#define MCF_ABI1_MODEL_H

#include "mcf/abi1_plugin.h"
#include "mcf/model.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mcf_observable_spec {
    const char *name;          /* lower_snake_case; NULL terminates the array */
    mcf_observable_role role;  /* roles apply to scalars only */
    const char *doc;           /* one line: meaning and units */
    const char *axis;          /* NULL: a scalar.  Otherwise a curve over this axis ("E"):
                                  the model's curve_points() gives its length and axis */
    unsigned flags;            /* MCF_OBS_* */
} mcf_observable_spec;

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
     * stops the run with its message (e.g. a failed consistency check).  reject may be
     * NULL for a model whose proposals change nothing (the core then skips it). */
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

    /* Appended: the batched ops with the core's per-batch context (mcf/batch.h), whose
     * scratch holds the arrays a batched evaluator call needs (mcf/fermion_model.h), so a
     * model keeps no batch scratch of its own.  Each, when set (read only when struct_size
     * covers it), replaces the op without a context, which may then be NULL:
     *   batch_log_ratio        replaces log_ratio
     *   batch_measure          replaces measure and measure_batch
     *   batch_exchange_action  replaces exchange_action (parallel tempering)
     * Arguments and rules otherwise as those ops. */
    int (*batch_log_ratio)(mcf_batch *batch, void *const *chains, const void *moves, size_t n,
                           double *out);
    int (*batch_measure)(mcf_batch *batch, void *const *chains, size_t n,
                         double *const *values);
    int (*batch_exchange_action)(mcf_batch *batch, void *const *chains, size_t n,
                                 const double *T_new, double *dS);

    /* Appended for [schedule] start = anneal (optional, both or neither; read only when
     * struct_size covers them).  The configuration alone: what the Metropolis moves change
     * (spins, displacements), without random streams, counters or adapted step sizes.
     * load_configuration() is given what save_configuration() of another chain of the
     * same model wrote — same parameters but the temperature — between sweeps during
     * thermalization; it replaces the configuration and everything computed from it
     * (cached fields, the evaluator's Hamiltonian) and keeps the rest of the chain.  Errors
     * as for save() and load(). */
    int (*save_configuration)(const void *chain, mcf_stream *out);
    int (*load_configuration)(void *chain, mcf_stream *in);

    /* Appended (optional, read only when struct_size covers it; NULL: the plots name
     * columns by their names): symbols and units of the observables, parameters, curve axes
     * and "T", ending with a {NULL} entry.  The core labels the quantities it derives
     * itself (specific_heat C, susceptibility χ, binder U_4, variance) and takes the unit
     * of energy from the label of "T", else from that of the ENERGY observable.  The labels
     * are written into results.tsv ("# labels:"), the curve files and results.h5, so a
     * results folder is plotted later without the plugin.  A name that is none of those,
     * a name given twice or a symbol or unit with control characters refuses the plugin. */
    const mcf_label *labels;

    /* Appended for band structures (optional, read only when struct_size covers it): a
     * configuration as a crystal (mcf/periodic.h), for an evaluator that integrates over
     * the Brillouin zone.  params: the model's validated [model] values (those `chain` was
     * created with, when one is given).  state: an ideal state of the model's own
     * ("ferro", "neel-g", "canted:THETA", "spiral:QX,QY,QZ" for double exchange), with
     * chain NULL; or NULL (or ""): the configuration of `chain` (read only, during the call),
     * its whole L^d box as one cell with lattice vectors L e_d and the box's sites in the
     * lattice's order (mcf/lattice.h), so that a bond leaving the box goes to the
     * neighbouring cell and H(k = 0) is the chain's Hamiltonian with periodic boundaries;
     * disorder is fine in such a supercell.  The model describes it into `cell`
     * (mcf_cell_shape, then mcf_cell_bond / mcf_cell_onsite, or mcf_cell_lattice); the core
     * checks it.  The model's parameters (t, hund, W, ...) enter the hoppings; the chemical
     * potential does not (the evaluator integrates up to it).  Errors: MCF_EINVAL naming the
     * state and the states the model knows, or why a configuration is not periodic (a state
     * with disorder; a chain with open boundaries, naming the key boundary); MCF_ENOMEM. */
    int (*periodic)(const mcf_params *params, const void *chain, const char *state,
                    mcf_cell *cell);

    /* Appended for `mcf optimize` (optional: all of them or none; read only when struct_size
     * covers them).  A model that samples |Psi(x; p)|^2 of a real trial function with
     * variational parameters p_1 .. p_P and has a local energy E_L = (H Psi)(x) / Psi(x)
     * (variational Monte Carlo) lets the core optimize p (the linear method; docs/methods.md).
     *   variational_count: P (the same for every chain of a run).
     *   variational_get / _set: the chain's p; set() changes the trial function of the
     *     chain (the configuration stays; the core thermalizes again after a change).  p is
     *     the optimizer's state, not the chain's: save() and load() need not keep it (the
     *     core calls set() after load()).
     *   variational_local: for each of the n chains at its current configuration, into
     *     out[k] (1 + 2P values): E_L of the whole configuration (not per unit), then
     *     O_m = d ln|Psi| / d p_m, then d E_L / d p_m (m = 1..P).  Batched like
     *     measure_batch; the same numbers whatever the batch.
     *   variational_write: the chain's p as a text file that the model reads back through
     *     its [model] key variational_file_key (e.g. "jastrow_file"), so that an optimized
     *     trial function is used by `mcf run CONFIG --set model.KEY=FILE`.  With count 0
     *     (nothing to optimize in this configuration) the core calls it with out NULL: it
     *     then fails with MCF_EINVAL saying which [model] keys give parameters.
     * Errors: MCF_EINVAL (p not allowed: say which and why), MCF_EIO. */
    size_t (*variational_count)(const void *chain);
    int (*variational_get)(const void *chain, double *p);
    int (*variational_set)(void *chain, const double *p);
    int (*variational_local)(void *const *chains, size_t n, double *const *out);
    int (*variational_write)(const void *chain, FILE *out);
    const char *variational_file_key;

    /* Appended (optional, read only when struct_size covers it): the moves of a whole sweep
     * of n chains made by the model at once (e.g. on a device, without a round trip per
     * move), called after begin_sweep instead of the core's propose / log_ratio / accept
     * loop.  It makes the units(chain) moves that loop would make, in its order, decides
     * each by mcf_metropolis_accept (mcf/rng_device.h) drawn from rng[k], chain k's stream,
     * as the loop would, and writes accepted[k], the moves accepted (proposed: units).
     * Returns MCF_OK, an MCF_E* error, or MCF_SWEEP_DECLINED having changed nothing: these
     * chains take the core's loop this sweep (e.g. their settings have no such path). */
    int (*sweep)(void *const *chains, size_t n, mcf_rng *const *rng, uint64_t *accepted);

    /* Appended (mcf 0.2; read only when struct_size covers it): the form of the chain's
     * weight, for what the core derives from the ENERGY observable e.
     * MCF_WEIGHT_BOLTZMANN (0, the default): exp(-N e / T), so that
     * specific_heat = N (<e^2> - <e>^2) / T^2 is d<N e>/dT / N.  MCF_WEIGHT_ACTION: a
     * general exp(-S(x; T)), e.g. a fermion model's grand-canonical action whose ENERGY is
     * the fermions' sum eps f(eps): that formula is not d<E>/dT there.  The core then
     * writes specific_heat = <e_T> - N (<e s_T> - <e> <s_T>) when the model has observables
     * with the roles ENERGY_DT and ACTION_DT (mcf 0.3), and no specific_heat without them.
     * Any other value counts as MCF_WEIGHT_ACTION. */
    int weight_form;

    /* Appended (mcf 0.3; optional, read only when struct_size covers them): what the core
     * needs to warn at setup of a degenerate shell of levels at the chemical potential on
     * the run's finite lattice (docs/methods.md, "Degenerate shells at mu").  ordered_state:
     * the ideal state, a name the periodic op knows, of the ordered phase the low
     * temperatures approach (what [model] start = ordered gives), e.g. "ferro" for double
     * exchange; mu_key: the [model] key
     * of the chemical potential (a real), e.g. "mu".  The check also needs the lattice keys
     * of MCF_LATTICE_PARAMS (mcf/lattice.h) and a temperature; NULL (either): no check. */
    const char *ordered_state;
    const char *mu_key;

    /* Appended (mcf 0.5; optional, read only when struct_size covers it): the model's own
     * random streams (mcf_stream_spec above), ending with a {NULL} entry; NULL: none. */
    const mcf_stream_spec *streams;
} mcf_model_ops;

#ifdef __cplusplus
}
#endif
#endif
