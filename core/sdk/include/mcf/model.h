/* mcf/model.h — the table of a model plugin (kind MCF_PLUGIN_MODEL): mcf_model, ABI 2.
 *
 * A model owns the physics of one chain: its configuration (spins, positions, ...), how
 * to propose a local move and the log of its Metropolis ratio, and measurements.  It never
 * knows about hardware: expensive numerics go to an evaluator plugin, reached through
 * mcf_services and the helpers of mcf/fermion_model.h and mcf/orbital_model.h.
 *
 * The core advances all chains of a run in lockstep.  One sweep of a batch of chains:
 *
 *     sweep(b, chains, n, ...)                 (optional; may decline after prefetching)
 *     for step s < max units(chain):
 *         propose(b, active chains, n_active, rngs, moves, log_ratio)   one batched call
 *         apply(b, active chains, moves, n_active, accepted): accepted[k] = 1 where
 *             log_ratio[k] >= 0 or uniform < exp(log_ratio[k])
 *
 * and every measure_every sweeps, measure(b, chains, n, values).  Batches group chains run
 * by one thread; a model must give the same numbers whatever the grouping (chains are
 * independent), which is what makes results independent of the number of threads.
 * Distinct chains may be used from distinct threads at once; one chain is never used by two
 * threads at once.
 *
 * ABI 1's table (mcf_model_ops, mcf 0.1-0.8) is no longer declared here: plugins built with
 * it keep working through the core's adapter, but a new one is written for ABI 2. */
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
#include "mcf/dynamics.h"
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
 *   xi_over_l      = sqrt(<m^2>/<m_k^2> - 1) / (2 L sin(pi/L)) from ORDER2, ORDER_KMIN
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
    MCF_ROLE_ACTION_DT = 6,
    /* mcf 1.x (issue 44): the order parameter's structure factor at the smallest nonzero
     * wave vector of the periodic box, k_min = 2 pi / L along one axis, in ORDER2's
     * normalization: |sum_i S_i exp(i k_min . r_i)|^2 / N^2, averaged over the d axes.
     * With ORDER2 (m^2) and an integer [model] parameter L, the core writes the
     * second-moment correlation length over L (docs/methods.md, "Finite-size scaling"),
     *   xi_over_l = sqrt(<m^2> / <m2_kmin> - 1) / (2 L sin(pi / L)),
     * with a jackknife error; below 1 the ratio gives -sqrt(1 - ratio) instead (a value
     * within noise of 0: uncorrelated spins). */
    MCF_ROLE_ORDER_KMIN = 7
} mcf_observable_role;

/* the number of roles (NONE included): role values are below it */
#define MCF_ROLE_COUNT 8

/* Bits of mcf_observable.flags. */
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

/* mcf 0.4: the noise of a stochastic estimate (mcf_observable.flags).  An observable
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
/* mcf 1.x (issue 44): a scalar observable measured on request only: the core records it
 * (accumulators, results.tsv, checkpoint, series) only when [run] extra_observables names
 * it, so that declaring one does not change the results or the checkpoints of runs that
 * do not ask for it (a checkpoint of an earlier release of the model still resumes).
 * measure() writes its value always; the core ignores it unless asked. */
#define MCF_OBS_ON_REQUEST (1u << 5)
/* mcf 1.2 (issue 47): a curve holding a conductivity's two-dimensional Chebyshev moments and
 * what the Kubo formulas need besides, MCF_RESPONSE_POINTS(M) = 2 M^2 + 5 values
 * (mcf/response.h): Re mu_nm at n M + m, Im mu_nm at M^2 + n M + m, then a, b (the scaling),
 * emin, emax (the spectrum's bounds) and n_s (states per volume).  results.h5 marks it
 * (attribute response_moments) and `mcf response DIR` turns its bins into conductivities
 * with jackknife errors; the scaling and bounds must not change between measurements (fixed
 * spectral bounds). */
#define MCF_OBS_RESPONSE_MOMENTS (1u << 6)
/* mcf 1.2 (issue 47): a curve holding the Chebyshev moments mu_n(K) = sum_s <K s| T_n(H~)
 * |K s> of Bloch states along a path (spectral functions A(K, E)), MCF_SPECTRAL_POINTS(nk, M)
 * values laid out as mcf/response.h says (M, nk, a, b, the wave vectors, the moments).
 * results.h5 marks it (attribute spectral_moments) and `mcf response DIR` rebuilds A(K, E)
 * and the occupation n(K) from its bins with jackknife errors; M, nk, the scaling and the
 * path must not change between measurements. */
#define MCF_OBS_SPECTRAL_MOMENTS (1u << 7)
#define MCF_OBS_NOISE(g) (((unsigned)(g) & 3u) << 3)
#define MCF_OBS_NOISE_MASK (3u << 3)
/* the noise set 0..3 of an observable's flags */
#define MCF_OBS_NOISE_SET(flags) (((unsigned)(flags) >> 3) & 3u)

/* How a plot names a quantity: a symbol and its unit, for an observable, a model
 * parameter, a curve's axis or the temperature "T" (the engine's list, made from the
 * observables, the parameter specs and energy_unit; ABI 1's models gave one).  Both UTF-8,
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
 * (mcf_model.streams) and takes each from the core (mcf_services_stream), so no model
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
                                            mcf_model.streams), for
                                            mcf_services_stream; NULL: none */
} mcf_services;

/* mcf 0.5: the chain's stream `name` (declared in mcf_model.streams, not KEYED),
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

/* weight_form */
enum { MCF_WEIGHT_BOLTZMANN = 0, MCF_WEIGHT_ACTION = 1 };

/* ==== ABI 2: the model of SDK 1.0 (docs/sdk-1.md) ========================================
 *
 * One operation per verb, batched, with the core's batch (mcf/batch.h).  propose draws the
 * moves AND their log ratios of a batch of chains in one call; apply settles them (accept /
 * reject); measure is batched; the chain's state is described once (mcf_chain_state) and
 * the core saves, loads, hands down configurations (start = anneal), adapts the step and
 * sets the temperature (tempering) from that description, calling rebuild() afterwards;
 * exchange() gives what tempering needs.  The order of random draws is ABI 1's, so a model
 * ported from ABI 1 gives the same bits.  Frozen since mcf 1.0: fields are only appended. */

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
 * A curve of length 0 is not measured by this chain: measure() writes no values for it,
 * and when no chain measures it no <name>.tsv is written (a curve only when asked for). */
typedef struct mcf_layout {
    size_t units;         /* written: the N of per-unit observables (sites, electrons), > 0;
                             also the proposals per sweep unless `moves` says otherwise */
    size_t *points;       /* one per declared observable; scalars are 1 (leave them) */
    double *const *axis;  /* NULL on the first call; then one buffer per curve */
    size_t moves;         /* written or left 0 (= units): proposals per sweep when they are
                             not the units, e.g. one per bond of a model of bond variables
                             whose observables are per site (mcf 0.8) */
} mcf_layout;

/* A chain's variational parameters for `mcf optimize`, described by state() with the rest
 * of its state (not part of the checkpoint record):
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
 * an ABI-1 model's save() (mcf 0.1-0.8) made with those fields — reads it back with
 * mcf_state_load, and calls rebuild(chain, MCF_REBUILD_LOAD).  Fields flagged
 * MCF_STATE_CONFIGURATION are the configuration alone (what the moves change) that
 * [schedule] start = anneal hands to another chain of the same model, as a record with the
 * model's configuration_tag (zero: the model has no anneal), then rebuild(chain,
 * MCF_REBUILD_CONFIGURATION).  The pointers stay in the chain: the description is valid
 * while the chain lives. */
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


/* ---- Coordinates for a global sampler (mcf 1.1; hybrid Monte Carlo, core/engine/hmc.c) ----
 *
 * A model whose weight is a smooth function of continuous coordinates lets the core move
 * all of them at once: coordinates() points the core at the chain's own array, which the
 * core moves in place along a trajectory, and global_action() gives S(x) = -log(weight)
 * (up to a constant) with its gradient.  The core knows no physics: the kind says how the
 * coordinates move, the model's S says what they mean.  Kinds and the measure the weight
 * is relative to:
 *   MCF_COORDINATES_UNIT3  count unit 3-vectors (classical spins), 3 doubles each, the
 *                          uniform measure on each sphere;
 *   MCF_COORDINATES_UNIT4  count unit 4-vectors, 4 doubles each (a spinor (re, im, re, im)
 *                          of a spin S = chi^+ sigma chi: the uniform measure on S^3 gives
 *                          the uniform one on the spin's sphere), the uniform measure;
 *   MCF_COORDINATES_REAL   count reals (displacements), Lebesgue measure. */
typedef enum mcf_coordinate_kind {
    MCF_COORDINATES_UNIT3 = 1,
    MCF_COORDINATES_REAL = 2,
    MCF_COORDINATES_UNIT4 = 3
} mcf_coordinate_kind;

typedef struct mcf_coordinates {
    mcf_coordinate_kind kind;
    size_t count;   /* unit vectors or reals */
    double *x;      /* the chain's array (3 or 4 count, or count doubles), the model's */
} mcf_coordinates;

/* global_action()'s requests (bits) */
enum {
    MCF_ACTION_REFRESH = 1u << 0,  /* a trajectory starts: draw the model's auxiliary fields
                                      (pseudofermions) for the x now, from rngs[k], first */
    MCF_ACTION_GRADIENT = 1u << 1, /* also dS/dx into grad[k] (the array's layout; for UNIT3
                                      any 3-vector whose tangent part is the gradient) */
    MCF_ACTION_SYNC = 1u << 2,     /* only bring the chain's state (Hamiltonian, running
                                      sums) to x: the core restored or kept x; S not written */
    MCF_ACTION_PREPARE = 1u << 3   /* a trajectory is about to start (the core has not read x
                                      yet): the model may put x into a canonical form of the
                                      same weight (a spinor's gauge) and syncs; S not written */
};

typedef struct mcf_model {
    uint32_t struct_size;      /* sizeof(mcf_model) the plugin was built with */
    size_t move_size;          /* bytes of one move; the core provides the storage */
    const mcf_observable *observables;
    const char *energy_unit;   /* the unit of T and energies ("J", "t", "Ha"); NULL: none */
    /* MCF_PLUGIN_FERMION_EVALUATOR or MCF_PLUGIN_ORBITAL_EVALUATOR: the kind of evaluator
     * the model takes (what `[run] evaluator = auto` looks for); 0: none. */
    int evaluator_kind;
    /* The form of the chain's weight, for what the core derives from the ENERGY
     * observable e.  MCF_WEIGHT_BOLTZMANN (0): exp(-N e / T), so that specific_heat =
     * N (<e^2> - <e>^2) / T^2.  MCF_WEIGHT_ACTION: a general exp(-S(x; T)) (a fermion
     * model's grand-canonical action): the specific heat then comes from the observables
     * with the roles ENERGY_DT and ACTION_DT, and without them there is none. */
    int weight_form;
    /* Optional (both or neither): what the core needs to warn at setup of a degenerate
     * shell of levels at the chemical potential on the run's finite lattice
     * (docs/methods.md, "Degenerate shells at mu"): the ideal state of the ordered phase,
     * a name periodic() knows ("ferro"), and the [model] key of the chemical potential. */
    const char *ordered_state;
    const char *mu_key;
    const mcf_stream_spec *streams; /* the model's own random streams, or NULL */
    const char *variational_file_key; /* the [model] key of the parameter file that mcf
                                         optimize writes (mcf_variational), else NULL: the
                                         model has no variational parameters */
    char state_tag[4];         /* the checkpoint record's tag ("ISG1"; mcf_chain_state), or
                                  zeros: none (a model whose ABI-1 save wrote none) */
    char configuration_tag[4]; /* the configuration record's (start = anneal), or zeros */

    /* Creates one chain from validated params, drawing its initial state from rng.  On
     * success *chain is the core's, freed with destroy(); params and services stay valid
     * until then.  Errors: MCF_EINVAL, MCF_ENOMEM, ... with a message (mcf_fail). */
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
    /* Optional: the moves of a whole sweep of n chains made by the model at once (on a
     * device, without a round trip per move): the units(chain) moves the core's loop would
     * make, in its order, each decided by mcf_metropolis_accept (mcf/rng_device.h) drawn
     * from rngs[k] as the loop would, accepted[k] the number accepted.  Or, having changed
     * nothing but perhaps prefetched, MCF_SWEEP_DECLINED: the core's loop makes them. */
    int (*sweep)(mcf_batch *b, void *const *chains, size_t n, mcf_rng *const *rngs,
                 uint64_t *accepted);
    /* For n chains: the declared observables, in order, into values[k].  While `mcf
     * optimize` measures (mcf_batch_variational(b) is 1), instead the local energy E_L of
     * the whole chain and its derivatives in the P variational parameters: E_L, O_m =
     * d ln Psi / d p_m, dE_L / dp_m (1 + 2P values). */
    int (*measure)(mcf_batch *b, void *const *chains, size_t n, double *const *values);
    /* Describes the chain's state into *state (zeroed by the core). */
    int (*state)(void *chain, mcf_chain_state *state);
    /* Optional: recomputes what follows from the fields the core replaced (`what`:
     * MCF_REBUILD_* bits); MCF_EFORMAT with a message refuses a loaded record whose values
     * do not fit the configuration (the resume is refused). */
    int (*rebuild)(void *chain, unsigned what);
    /* Optional (parallel tempering, with state's temperature): for n chains, with weight
     * MCF_WEIGHT_BOLTZMANN out[k] = the total energy H of chain k (T_new unused); otherwise
     * out[k] = S_k(T_new[k]) - S_k(T_k), the change of -log(weight) of chain k's
     * configuration were it sampled at T_new[k] (terms that do not depend on the
     * configuration may be left out).  Must not change the chains; the same bits whatever
     * the batch.  The core calls it once before the first sweep too, so that a refusal
     * stops the run at once. */
    int (*exchange)(mcf_batch *b, void *const *chains, size_t n, const double *T_new,
                    double *out);
    /* Optional, for band structures (`mcf band`; mcf/periodic.h): a configuration as a
     * crystal.  state: an ideal state of the model's own ("ferro", "spiral:QX,QY,QZ"),
     * chain NULL; or NULL: the configuration of `chain`, its whole box as one cell.  The
     * model describes it into `cell` (mcf_cell_shape, then mcf_cell_bond / mcf_cell_onsite,
     * or mcf_cell_lattice); the chemical potential stays out.  MCF_EINVAL naming the states
     * the model knows, or why a configuration is not periodic. */
    int (*periodic)(const mcf_params *params, const void *chain, const char *state,
                    mcf_cell *cell);

    /* ---- mcf 1.1, appended: a global sampler (the core calls them only when struct_size
     * covers them and both are set) ------------------------------------------------------
     *
     * The chain's coordinates (mcf_coordinates above); the array stays the chain's and its
     * address fixed for the chain's life. */
    int (*coordinates)(void *chain, mcf_coordinates *out);
    /* For n chains whose coordinates the core has just written: brings each chain's state
     * to its x and, unless `what` is MCF_ACTION_SYNC, writes S[k] = -log(weight) of x (a
     * fermion model: its pseudofermion action, mcf/fermion.h, at fixed auxiliary fields)
     * and, with MCF_ACTION_GRADIENT, dS/dx into grad[k].  With MCF_ACTION_REFRESH the model
     * first draws its auxiliary fields for x from rngs[k]; between refreshes S must be one
     * smooth function of x (the same fields), so that the trajectory conserves it.  S = +inf
     * says x left the model's domain (weight 0: the trajectory is rejected); the state at a
     * trajectory's start must have S < inf. */
    int (*global_action)(mcf_batch *b, void *const *chains, size_t n, mcf_rng *const *rngs,
                         unsigned what, double *S, double *const *grad);

    /* ---- mcf 1.2, appended: real-time dynamics (`mcf kbe`; mcf/dynamics.h) --------------
     * Optional: the model's crystal as a driven one, from params alone (no chain): H_0 into
     * `crystal` as periodic() describes an ideal state, the dipole operator D into `dipole`
     * (mcf_cell_shape with the same dims, orbitals and lattice, then D's matrix elements by
     * mcf_cell_bond and mcf_cell_onsite; none: a crystal the field does not couple to), the
     * local interaction's terms and the initial state's mu and T into *terms (zeroed by the
     * core, struct_size set).  Errors: MCF_EINVAL with a message. */
    int (*driven_crystal)(const mcf_params *params, mcf_cell *crystal, mcf_cell *dipole,
                          mcf_drive_terms *terms);

    /* ---- mcf 1.2, appended: diffusion Monte Carlo ([run] method = dmc; docs/methods.md) --
     * Optional: makes the chain's moves those of a fixed-node projector with time step tau
     * (in the inverse unit of the ENERGY observable): every sweep moves each unit once by a
     * drift-diffusion proposal whose log ratio holds the Green's functions' ratio, at this
     * tau and no other (the core adapts no step), and refuses (log ratio -inf) a move that
     * changes the sign of the wave function.  The core then weights and resamples the
     * chains of a scan point, a population of fixed size, handing configurations over (the
     * model needs a configuration record).  Called once per chain before its first sweep
     * (and again after a load).  MCF_EINVAL with a message naming the [model] keys that
     * forbid it. */
    int (*projector)(void *chain, double tau);
} mcf_model;

/* sweep(): "the core's loop makes the moves" (a positive code: not an error) */
#define MCF_SWEEP_DECLINED 1

/* The multiplicative step adaptation every model with a tunable move size repeats: returns
 * step * clamp(acceptance / target, 1/2, 2), clamped to [min, max] (the core applies it to
 * mcf_chain_state's step during thermalization).  A larger
 * step lowers the acceptance, so a rate above target widens the step and one below
 * narrows it, by at most a factor 2 per call. */
MCF_API double mcf_adapt_step(double step, double acceptance, double target, double min,
                              double max);

#ifdef __cplusplus
}
#endif
#endif
