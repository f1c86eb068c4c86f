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

#include "mcf/api.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "mcf/batch.h"
#include "mcf/error.h"
#include "mcf/plugin.h"
#include "mcf/params.h"
#include "mcf/periodic.h"
#include "mcf/rng.h"
#include "mcf/state.h"
#include "mcf/stream.h"
#include "mcf/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What an observable means, so the core can derive quantities from it.  With temperature
 * T and N = units(chain):
 *   specific_heat  = N (<e^2> - <e>^2) / T^2        from the ENERGY observable e (per unit),
 *                                                   for a Boltzmann weight (weight_form);
 *                  = <e_T> - N (<e s_T> - <e> <s_T>) for a weight exp(-S(x; T)) (weight_form
 *                                                   MCF_WEIGHT_ACTION) from ENERGY (e),
 *                                                   ENERGY_DT (e_T) and ACTION_DT (s_T)
 *   susceptibility = N (<m^2> - <|m|>^2) / T        from ORDER (|m|) and ORDER2 (m^2)
 *   binder         = 1 - <m^4> / (3 <m^2>^2)         from ORDER2 and ORDER4 (m^4)
 * each with a jackknife error.  At most one observable per role other than NONE.  Both
 * forms of the specific heat are (1/N) d<N e>/dT: for any weight exp(-S(x; T)),
 * d<O>/dT = <dO/dT> - <O dS/dT> + <O> <dS/dT>, and a Boltzmann S = N e / T has
 * dS/dT = -N e / T^2 and de/dT = 0. */
typedef enum mcf_observable_role {
    MCF_ROLE_NONE = 0,
    MCF_ROLE_ENERGY = 1,   /* energy per unit */
    MCF_ROLE_ORDER = 2,    /* |order parameter| per unit, e.g. abs_m */
    MCF_ROLE_ORDER2 = 3,   /* its square, e.g. m2 */
    MCF_ROLE_ORDER4 = 4,   /* its fourth power, e.g. m4 */
    /* mcf 0.3, for MCF_WEIGHT_ACTION: the partial derivatives in T at fixed configuration
     * x, per unit, of the ENERGY observable (e_T; e.g. a fermion energy sum eps f(eps)
     * depends on T through f) and of the whole action S(x; T) of the weight exp(-S)
     * (s_T = (dS/dT) / N; e.g. -(E_f - mu N_f) / (N T^2) for a grand-canonical fermion
     * action, minus E_classical / (N T^2) for a classical energy in the weight).  With
     * both, the core writes the specific heat of the general form above. */
    MCF_ROLE_ENERGY_DT = 5,
    MCF_ROLE_ACTION_DT = 6
} mcf_observable_role;

/* the number of roles (NONE included): role values are below it */
#define MCF_ROLE_COUNT 7

/* Bits of mcf_observable_spec.flags. */
enum {
    /* The model measures log x; the core averages log x and reports exp(mean) — the
     * geometric mean, e.g. a typical DOS exp<log rho_i(E)> — with the error propagated
     * (exp(mean) * error of the mean). */
    MCF_OBS_GEOMETRIC_MEAN = 1u << 0,
    /* A curve over the axis n = 0..M-1 holding Chebyshev moments mu_n of a density (no
     * kernel applied; mcf/fermion.h, dos_moments): results.h5 marks it (attribute
     * chebyshev_moments), and `mcf dos DIR` reconstructs the density NAME (the curve's
     * name without "_moments") from its bins with any kernel and grid.  Needs a curve with
     * MCF_OBS_MOMENT_SCALE in the same model. */
    MCF_OBS_MOMENTS = 1u << 1,
    /* The 2-point curve (a, b) of the scaling E = a x + b the model's MCF_OBS_MOMENTS
     * curves refer to (results.h5: attribute moment_scale).  `mcf dos` refuses a run in
     * which it changed between measurements (a Hamiltonian without fixed bounds). */
    MCF_OBS_MOMENT_SCALE = 1u << 2
};

/* mcf 0.4: the noise of a stochastic estimate (mcf_observable_spec.flags).  An observable
 * measured with random numbers of its own beyond the chain's configuration — a trace over
 * random vectors, say — carries noise that does not average out of a product: at a fixed
 * configuration, E[a b] = a b + cov(a, b) when a and b come from the same draw.  A model
 * declares such observables with MCF_OBS_NOISE(g), g = 1..3: observables of one set g share
 * one draw, those of different sets come from independent draws (e.g. a second trace from
 * fresh vectors, mcf_fermion_occupation_heat).  Flags 0: no noise of its own (exact at fixed
 * configuration), or noise independent of every other observable's.  The core never forms
 * a product of two observables of one set: a derived quantity that needs one (the
 * specific heat from <e^2> or <e s_T>, the variance) is then left out, with a warning at
 * setup and in results.tsv that says why (docs/methods.md, "Products of noisy estimates"). */
#define MCF_OBS_NOISE(g) (((unsigned)(g) & 3u) << 3)
#define MCF_OBS_NOISE_MASK (3u << 3)
/* the noise set 0..3 of an observable's flags */
#define MCF_OBS_NOISE_SET(flags) (((unsigned)(flags) >> 3) & 3u)

typedef struct mcf_observable_spec {
    const char *name;          /* lower_snake_case; NULL terminates the array */
    mcf_observable_role role;  /* roles apply to scalars only */
    const char *doc;           /* one line: meaning and units */
    const char *axis;          /* NULL: a scalar.  Otherwise a curve over this axis ("E"):
                                  the model's curve_points() gives its length and axis */
    unsigned flags;            /* MCF_OBS_* */
} mcf_observable_spec;

/* How a plot names a quantity: a symbol and its unit, for an observable, a model
 * parameter, a curve's axis or the temperature "T" (mcf_model_ops.labels).  Both UTF-8,
 * at most 63 bytes, no control characters (tabs, newlines).  Axes read "symbol / unit"
 * ("T / t", "⟨|m|⟩" without a unit; a unit "1/t" reads "ρ(E) · t"); legends and titles
 * "symbol = value unit" ("L = 16", "W = 4 t"). */
typedef struct mcf_label {
    const char *name;    /* an observable, a parameter of the model, a curve axis ("E"),
                            or "T"; NULL terminates the array */
    const char *symbol;  /* as set in a plot: "⟨|m|⟩", "E/N", "ρ(E)", "μ"; NULL: the name */
    const char *unit;    /* "t", "J", "1/t", "Ha"; NULL or "": none (a pure number) */
} mcf_label;

/* mcf 0.5: a random stream of the model's own, beside the chain's stream (the rng that
 * create() and propose() are handed, stream chain_index of the run's seed): e.g. the
 * measurement stream from which a stochastic evaluator draws its random vectors, kept in
 * the chain and saved in its checkpoint.  The model declares its streams
 * (mcf_model_ops.streams) and takes each from the core (mcf_services_stream), so no model
 * picks stream numbers that could meet the core's or another of its own: the core refuses
 * at load a declaration whose streams overlap, naming both.
 *   first 0: the core chooses the numbers (a new model does this; the choice is fixed
 *            forever: the j-th declared stream of chain k is 2^61 + j 2^33 + k);
 *   first > 0: chain k uses stream first + k of the run's seed — the numbers a model used
 *            before mcf 0.5, so that its results stay the same.
 * With MCF_STREAM_KEYED the stream is not the chain's but one per key of the model's own
 * (a disorder realization drawn by key): mcf_services_keyed_stream gives stream `first` of
 * Philox key `key`.  Streams of one run: the chains' [0, 2^32), the core's exchange stream
 * 2^64 - 1, and the model's [first, first + 2^32) (one number for a keyed one). */
typedef struct mcf_stream_spec {
    const char *name;  /* lower_snake_case ("measurement", "disorder"); NULL terminates */
    uint64_t first;    /* 0: the core chooses; else the stream of chain 0 (see above) */
    unsigned flags;    /* MCF_STREAM_* */
    const char *doc;   /* one line: what is drawn from it */
} mcf_stream_spec;

enum { MCF_STREAM_KEYED = 1u << 0 };

/* What the core hands a model at creation.  Fields are only ever appended. */
typedef struct mcf_services {
    uint32_t struct_size;
    uint64_t seed;                       /* the run's seed */
    uint64_t chain_index;                /* this chain's index in the run */
    const struct mcf_plugin_info *evaluator;  /* [run] evaluator, or NULL for none */
    const mcf_params *evaluator_params;  /* its validated [evaluator] values, or NULL */
    void *app_data;                      /* mcf 0.5: the model descriptor's app_data
                                            (mcf/plugin.h), or NULL */
    const mcf_stream_spec *streams;      /* mcf 0.5: the model's declared streams (its
                                            mcf_model_ops.streams), for
                                            mcf_services_stream; NULL: none */
} mcf_services;

/* mcf 0.5: the chain's stream `name` (declared in mcf_model_ops.streams, not KEYED),
 * initialized at its start: stream first + chain_index of the run's seed (see
 * mcf_stream_spec).  MCF_EINVAL with a message naming the declared streams for a name the
 * model did not declare, or a KEYED one. */
MCF_API int mcf_services_stream(const mcf_services *s, const char *name, mcf_rng *out);

/* mcf 0.5: stream `name` (declared KEYED) of Philox key `key`, at its start.  MCF_EINVAL as
 * above for an undeclared name or one not KEYED. */
MCF_API int mcf_services_keyed_stream(const mcf_services *s, const char *name, uint64_t key,
                                      mcf_rng *out);

/* mcf 0.5: the check the core makes of a model's stream declaration when it loads the
 * plugin (also for a plugin's own tests): lower_snake_case names, each once, known flags,
 * and no two of the run's streams overlapping (the chains', the core's, the model's;
 * mcf_stream_spec).  MCF_EPLUGIN with a message that starts with `path` (the plugin's
 * file) and names the streams. */
MCF_API int mcf_streams_check(const char *path, const mcf_stream_spec *spec);

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

/* weight_form */
enum { MCF_WEIGHT_BOLTZMANN = 0, MCF_WEIGHT_ACTION = 1 };

/* ==== ABI 2: the model of SDK 1.0 (docs/sdk-1.md) ========================================
 *
 * Being built: a model may use it today (its descriptor says abi_version = MCF_ABI_2 and
 * its ops point to an mcf_model), and the core runs it natively; it is not frozen until
 * every plugin of the tree is ported (then MCF_ABI_VERSION becomes 2 and the ABI-1 table
 * above leaves this header).  The ABI-1 table keeps working through the core's adapter.
 *
 * One operation per verb, batched, with the core's batch (mcf/batch.h).  Compared with
 * ABI 1: propose draws the moves AND their log ratios of a batch of chains in one call;
 * apply settles them (accept / reject); measure is batched; the chain's state is
 * described once (mcf_chain_state) and the core saves, loads, hands down configurations
 * (start = anneal), adapts the step and sets the temperature (tempering) from that
 * description, calling rebuild() afterwards; exchange() gives what tempering needs.  The
 * order of random draws is the one of ABI 1, so a model ported from ABI 1 gives the same
 * bits. */

#define MCF_ABI_2 2u /* abi_version of a plugin whose ops are an mcf_model */

/* An observable, with its symbol and unit (no parallel label list). */
typedef struct mcf_observable {
    const char *name;          /* lower_snake_case; NULL terminates the array */
    mcf_observable_role role;  /* roles apply to scalars only */
    const char *doc;           /* one line: meaning and units */
    const char *axis;          /* NULL: a scalar; otherwise a curve over this axis ("E") */
    unsigned flags;            /* MCF_OBS_* */
    const char *symbol;        /* as set in a plot ("⟨|m|⟩", "E/N"); NULL: the name */
    const char *unit;          /* "J", "1/t"; NULL or "": a pure number */
    const char *axis_symbol;   /* a curve's axis as set in a plot; NULL: the axis name */
    const char *axis_unit;     /* its unit; NULL or "": none */
} mcf_observable;

/* What layout() reports about a chain: its units and, for each curve observable o, its
 * length points[o] and, when axis is not NULL, its axis values into axis[o] (points[o]
 * doubles).  The core calls it once with axis NULL, then with buffers of those lengths.
 * A curve of length 0 is not measured by this chain (as in ABI 1's curve_points). */
typedef struct mcf_layout {
    size_t units;         /* written: proposals per sweep (sites, electrons), > 0; the N of
                             per-unit observables */
    size_t *points;       /* one per declared observable; scalars are 1 (leave them) */
    double *const *axis;  /* NULL on the first call; then one buffer per curve */
} mcf_layout;

/* A chain's variational parameters for `mcf optimize`, described by state() with the rest
 * of its state (ABI 1's variational_count, _get, _set and _write; not part of the record):
 * the core reads p[0..count), writes new values and calls rebuild(chain,
 * MCF_REBUILD_VARIATIONAL).  count is the same for every chain of a run; 0: none, and then
 * `none` says why, naming the [model] keys that give some (the core refuses the optimize
 * with it).  The parameter file `mcf optimize` writes, which the model's [model] key
 * variational_file_key reads back, is `head` (its first lines, each ending in '\n'), then
 * one line per group g: group[g], then group_count[g] values (" %.17g" each), '\n'; the
 * groups' counts add up to count.  The derivatives come from measure()
 * (mcf_batch_variational).  The strings are the chain's (valid while it lives). */
#define MCF_VARIATIONAL_MAX_GROUPS 4
typedef struct mcf_variational {
    double *p;          /* the chain's parameters (count values), or NULL */
    size_t count;       /* P */
    const char *none;   /* count 0: why there are none */
    const char *head;   /* the parameter file's first lines */
    size_t groups;      /* lines of parameters (<= MCF_VARIATIONAL_MAX_GROUPS) */
    const char *group[MCF_VARIATIONAL_MAX_GROUPS];     /* each line's first word */
    size_t group_count[MCF_VARIATIONAL_MAX_GROUPS];    /* its number of values */
} mcf_variational;

/* The fields of a chain's state, described by state() into the core's struct.  The core
 * writes the checkpoint record with mcf_state_save(state_tag, fields) — the same bytes as
 * an ABI-1 model's save() made with those fields — reads it back with mcf_state_load, and
 * calls rebuild(chain, MCF_REBUILD_LOAD).  Fields flagged MCF_STATE_CONFIGURATION are the
 * configuration alone (what the moves change) that [schedule] start = anneal hands to
 * another chain of the same model, as a record with the model's configuration_tag (zero:
 * the model has no anneal), then rebuild(chain, MCF_REBUILD_CONFIGURATION).  The pointers
 * stay in the chain: the description is valid while the chain lives. */
#define MCF_STATE_MAX_FIELDS 32
enum { MCF_STATE_CONFIGURATION = 1u << 0 };

typedef struct mcf_chain_state {
    size_t n;                        /* fields used */
    mcf_state_field field[MCF_STATE_MAX_FIELDS]; /* mcf/state.h, in record order */
    unsigned flags[MCF_STATE_MAX_FIELDS];        /* MCF_STATE_* per field */
    /* The chain's temperature, or NULL: parallel tempering writes it, then calls
     * rebuild(chain, MCF_REBUILD_TEMPERATURE).  (Not part of the record unless also a field.) */
    double *temperature;
    /* One step size adapted during thermalization, or NULL: every block the core sets
     * *step = mcf_adapt_step(*step, acceptance, step_target, step_min, step_max). */
    double *step;
    double step_target, step_min, step_max;
    /* The variational parameters (mcf optimize), count 0 when the model has none. */
    mcf_variational variational;
} mcf_chain_state;

/* Adds a field (an mcf_state_field from MCF_STATE_DATA, _FIXED, _REALS, _RNG) with flags;
 * MCF_EINTERNAL with a message past MCF_STATE_MAX_FIELDS. */
static inline int mcf_chain_state_add(mcf_chain_state *s, mcf_state_field f, unsigned flags)
{
    if (s->n >= MCF_STATE_MAX_FIELDS)
        return mcf_fail(MCF_EINTERNAL, "the chain's state has more than %d fields "
                        "(MCF_STATE_MAX_FIELDS), at %s: join fields into one block",
                        MCF_STATE_MAX_FIELDS, f.name);
    s->field[s->n] = f;
    s->flags[s->n++] = flags;
    return 0;
}

/* rebuild()'s reasons (bits): what the core replaced since the last call */
enum {
    MCF_REBUILD_LOAD = 1u << 0,          /* every field, from a checkpoint */
    MCF_REBUILD_CONFIGURATION = 1u << 1, /* the CONFIGURATION fields (start = anneal) */
    MCF_REBUILD_TEMPERATURE = 1u << 2,   /* *temperature (parallel tempering) */
    MCF_REBUILD_VARIATIONAL = 1u << 3    /* the variational parameters (mcf optimize) */
};


typedef struct mcf_model {
    uint32_t struct_size;      /* sizeof(mcf_model) the plugin was built with */
    size_t move_size;          /* bytes of one move; the core provides the storage */
    const mcf_observable *observables;
    /* Until mcf_param_spec carries its own: symbols and units of the model's parameters
     * (mcf_label; NULL: none).  Observables, axes and T take theirs from the fields above
     * and energy_unit. */
    const mcf_label *parameter_labels;
    const char *energy_unit;   /* the unit of T and energies ("J", "t", "Ha"); NULL: none */
    int evaluator_kind;        /* as in ABI 1 */
    int weight_form;           /* MCF_WEIGHT_* */
    const char *ordered_state; /* as in ABI 1 (the degenerate-shell check), or NULL */
    const char *mu_key;
    const mcf_stream_spec *streams; /* the model's own random streams, or NULL */
    const char *variational_file_key; /* the [model] key of the parameter file that mcf
                                         optimize writes (mcf_variational), else NULL: the
                                         model has no variational parameters */
    char state_tag[4];         /* the checkpoint record's tag ("ISG1"; mcf_chain_state), or
                                  zeros: none (a model whose ABI-1 save wrote none) */
    char configuration_tag[4]; /* the configuration record's (start = anneal), or zeros */

    /* Creates one chain (as ABI 1's create; services carry app_data and the streams). */
    int (*create)(const mcf_params *params, const mcf_services *services, mcf_rng *rng,
                  void **chain);
    void (*destroy)(void *chain);
    /* The chain's units and curves (mcf_layout). */
    int (*layout)(const void *chain, mcf_layout *layout);
    /* For n chains: draws a move for chain k from rngs[k] into moves + k move_size and
     * writes log_ratio[k], the log of its Metropolis acceptance ratio (proposal asymmetry
     * included).  The chains may differ in size (a scan over L). */
    int (*propose)(mcf_batch *b, void *const *chains, size_t n, mcf_rng *const *rngs,
                   void *moves, double *log_ratio);
    /* For n chains: applies move k where accepted[k] is 1, forgets it where 0. */
    int (*apply)(mcf_batch *b, void *const *chains, const void *moves, size_t n,
                 const unsigned char *accepted);
    /* Optional: a whole sweep of n chains at once (ABI 1's sweep, begin_sweep folded in:
     * prefetch, then MCF_SWEEP_DECLINED to let the core's loop make the moves). */
    int (*sweep)(mcf_batch *b, void *const *chains, size_t n, mcf_rng *const *rngs,
                 uint64_t *accepted);
    /* For n chains: the declared observables, in order, into values[k].  While `mcf
     * optimize` measures (mcf_batch_variational(b) is 1), instead the local energy E_L of
     * the whole chain and its derivatives in the P variational parameters: E_L, O_m =
     * d ln Psi / d p_m, dE_L / dp_m (1 + 2P values; ABI 1's variational_local). */
    int (*measure)(mcf_batch *b, void *const *chains, size_t n, double *const *values);
    /* Describes the chain's state into *state (zeroed by the core). */
    int (*state)(void *chain, mcf_chain_state *state);
    /* Optional: recomputes what follows from the fields the core replaced (`what`:
     * MCF_REBUILD_* bits); MCF_EFORMAT with a message refuses a loaded record whose values
     * do not fit the configuration (the resume is refused). */
    int (*rebuild)(void *chain, unsigned what);
    /* Optional (parallel tempering, with state's temperature): for n chains, with weight
     * MCF_WEIGHT_BOLTZMANN out[k] = the total energy H of chain k (T_new unused); otherwise
     * out[k] = S_k(T_new[k]) - S_k(T_k) (ABI 1's exchange_action).  Must not change the
     * chains; the same bits whatever the batch. */
    int (*exchange)(mcf_batch *b, void *const *chains, size_t n, const double *T_new,
                    double *out);
    /* Optional: as ABI 1's periodic. */
    int (*periodic)(const mcf_params *params, const void *chain, const char *state,
                    mcf_cell *cell);
} mcf_model;

/* sweep(): "the core's loop makes the moves" (a positive code: not an error) */
#define MCF_SWEEP_DECLINED 1

/* The multiplicative step adaptation every model with a tunable move size repeats: returns
 * step * clamp(acceptance / target, 1/2, 2), clamped to [min, max]; for adapt().  A larger
 * step lowers the acceptance, so a rate above target widens the step and one below
 * narrows it, by at most a factor 2 per call. */
MCF_API double mcf_adapt_step(double step, double acceptance, double target, double min,
                              double max);

#ifdef __cplusplus
}
#endif
#endif
