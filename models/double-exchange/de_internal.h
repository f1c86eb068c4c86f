/* de_internal.h — what the files of the double-exchange model share: the chain and the move,
 * the positions of the observables, the range of the rotation half-angle, and the functions
 * that one file calls in another.  Not installed and not part of the SDK: the plugin's only
 * interface is its descriptor (double_exchange.c), an ABI-2 model table (mcf_model).
 *
 * Files: double_exchange.c (the weight; parameters, observables, create/destroy, layout, the
 * model table and the descriptor), de_spins_file.c (initial spins from a file),
 * de_hamiltonian.c (the Hamiltonian as a function of the spins, its consistency check, the
 * change of a move), de_moves.c (the single-spin move: propose and apply), de_measure.c
 * (the observables and the DOS curve), de_tempering.c (parallel tempering), de_checkpoint.c
 * (the chain's state for the core: the checkpoint record, the configuration, the step, the
 * temperature; rebuild), de_periodic.c (ideal spin states as crystals, for band evaluators).
 *
 * Errors: functions returning int give MCF_OK or an MCF_E* code with a message (mcf_fail).
 * Pointers are borrowed. */
#ifndef MCF_DE_INTERNAL_H
#define MCF_DE_INTERNAL_H

#include "mcf/mcf.h"

#include <stddef.h>
#include <stdint.h>

#define DE_PI 3.14159265358979323846

#define DE_ALPHA_MIN 1e-3   /* rotation half-angle range while adapting */
#define DE_ALPHA_MAX DE_PI
#define DE_ALPHA_START 1.0  /* initial half-angle of move = rotation, radians */

/* [model] lattice: its choices, and their positions (mcf_params_choice) */
#define DE_LATTICES "square|cubic"
enum { DE_LATTICE_SQUARE, DE_LATTICE_CUBIC };

/* positions in de_observables (double_exchange.c): the scalars, then the optional DOS curve */
enum {
    OBS_ENERGY, OBS_ABS_M, OBS_M2, OBS_M4, OBS_DENSITY, OBS_NN, OBS_ENERGY_DT, OBS_ACTION_DT,
    OBS_M2_KMIN,
    OBS_COUNT, OBS_DOS = OBS_COUNT,
    OBS_SIGMA_XX_MOMENTS, OBS_SIGMA_XY_MOMENTS, /* with response_moments > 0 */
    OBS_SPECTRAL_MOMENTS                        /* with spectral_moments > 0 */
};

typedef struct de_move {
    int64_t site;
    double s[3];               /* the proposed direction */
    mcf_change change;         /* H' - H, for the evaluator's change_action */
} de_move;

/* The values of the checkpoint record that the configuration fixes, in the record's types
 * (de_checkpoint.c): kept in the chain, since the core reads the state's fields after
 * state() returns. */
typedef struct de_fixed {
    int32_t head[4]; /* lattice kind, boundary, move (0 uniform, 1 rotation), reserved (0) */
    int64_t L, n;
} de_fixed;

typedef struct de_chain {
    mcf_lattice_kind kind;
    mcf_boundary boundary;
    long L;
    size_t n;                  /* sites */
    int z;                     /* neighbour slots per site */
    size_t bonds;
    int finite;                /* 1: finite Hund coupling, two orbitals per site */
    double hund;               /* J_H, inf when infinite */
    double t, mu, T;
    int rotation;              /* move = rotation */
    double alpha;              /* cap half-angle of move = rotation */
    uint64_t chain_index;
    double *spin;              /* 3N */
    int32_t *nb;               /* N x z, -1 = missing (open boundary) */
    double theta[3];           /* the twist, radians (mcf_lattice_twist) */
    double flux;               /* the field's flux per plaquette of the xy plane (flux) */
    int twisted;               /* a twist or a field: the hoppings are not factorized */
    double *phase;             /* twisted: N x z (re, im) pairs, the phase of H[i][nb[k]]
                                  (mcf_lattice_bond_phase times mcf_lattice_field_phase);
                                  NULL otherwise */
    mcf_hamiltonian *h;        /* the Hamiltonian the evaluator reads */
    mcf_hamiltonian *scratch;  /* finite hund: same layout, rebuilt from the spins by the
                                  check (NULL at hund = inf) */
    mcf_fermion fermion;       /* the bound evaluator (mcf/fermion_model.h): the chain's
                                  own copy of the run's one handle */
    void *ws;                  /* the evaluator's workspace, bound to h */
    mcf_rng mrng;              /* the measurement stream */
    double mag[3];             /* running sum_i S_i */
    int64_t since_refresh;     /* accepted moves since the last refresh and check */
    uint64_t accepted;         /* accepted moves in total */
    uint64_t checks;           /* consistency checks passed */
    int warned_exchange;       /* the truncation warning of exchange() was given */
    /* the optional DOS curve */
    long dos_every;            /* 0: off */
    size_t dos_points;         /* the evaluator's energy grid */
    double *dos_last;          /* the last DOS measured (repeated in between) */
    uint64_t measured;         /* measurements so far */
    de_fixed fixed;            /* the record's fixed values (state(), de_checkpoint.c) */
    mcf_fermion_hmc pf;        /* sampler = hmc (de_hmc.c): the pseudofermions */
    double *spinor;            /* hund = inf: the coordinates, 4N (chi_i, moved by the core) */
    int h_from_spinor;         /* hund = inf: 1 when H was last written from `spinor` (hybrid
                                  Monte Carlo: its gauge, each chi_i's phase, is the
                                  trajectory's), 0 from the spins (de_field's gauge) */
    int64_t *slot;             /* hund = inf, HMC (de_hmc.c): N x z, the table index of
                                  H[i][nb[k]] (-1: no neighbour), found at the first force */
    mcf_kmin *kmin;            /* m2_kmin's tables (mcf/lattice.h) */
    /* the conductivity's moments (response_moments > 0, de_measure.c) */
    size_t Mr;                 /* moments per index, 0: none */
    mcf_lattice *lat;          /* the lattice (kept with Mr: the currents' geometry) */
    mcf_hamiltonian *jx, *jy;  /* J_x, J_y of the spins now (rewritten every measurement) */
    double response_tail[3];   /* -bound, bound, dim / N: the response moments' tail */
    /* the spectral function's moments (spectral_moments > 0, de_measure.c) */
    size_t Ms;                 /* moments, 0: none */
    mcf_kpath *kpath;          /* the wave vectors (spectral_path) */
    double *bloch;             /* nk x 2 Bloch vectors |K sigma> (2 dim doubles each),
                                  rewritten from the spins every measurement at hund = inf */
    double *bloch_w;           /* hund = inf: 2 N, the amplitudes <chi_i|sigma> */
} de_chain;

/* ---- de_periodic.c: ideal states as crystals (mcf_model.periodic) ---------------------- */
int de_periodic(const mcf_params *params, const void *chain, const char *state,
                mcf_cell *cell);

/* ---- de_hamiltonian.c: the Hamiltonian, a function of the spins ------------------------ */

/* H_ab = -t <chi_a|chi_b> for the unit spins a, b (hund = inf): the hopping to a from b,
 * by cosines of the angles (the ideal states' crystals, de_periodic.c). */
void de_hop(double t, const double a[3], const double b[3], double *re, double *im);

/* The spinor chi of the unit spin s as the factorized hoppings' field (rank 2: re, im of
 * each component): what the chain's Hamiltonian holds at hund = inf. */
void de_field(const double s[3], double a[4]);

/* Writes every entry of h that depends on the spin of site o, from the spins `spin`. */
int de_set_site(const de_chain *c, mcf_hamiltonian *h, size_t o, const double *spin);

/* Writes every entry of h from the chain's spins (an empty h gets the same slot layout
 * every time). */
int de_build(const de_chain *c, mcf_hamiltonian *h);

/* The twisted hopping of the bond i -> j = nb[i z + k] at hund = inf, H_ij = exp(i phi) *
 * (-t <chi_i|chi_j>) for the spins si, sj (phi: c->phase; no twist: the factorized entry). */
void de_entry(const de_chain *c, size_t i, int k, const double *si, const double *sj,
              double *re, double *im);
/* The same from the spinors ai, aj (de_field's layout) of the bond's sites. */
void de_entry_spinor(const de_chain *c, size_t i, int k, const double *ai, const double *aj,
                     double *re, double *im);

/* The consistency check: rebuilds H from the spins into c->scratch and compares bit for bit
 * (finite hund), or compares each site's field with its spin's spinor bit for bit and the
 * table with the field (hund = inf); MCF_EINTERNAL on a difference; counts the checks
 * passed. */
int de_verify(de_chain *c);

/* The change H' - H of the move of site o to the direction s_new, into *ch. */
void de_make_change(const de_chain *c, size_t o, const double s_new[3], mcf_change *ch);

/* ---- de_moves.c: the single-spin move ----------------------------------------------------- */

/* M = sum_i S_i from scratch; restarts the count of moves since the last refresh. */
void de_refresh(de_chain *c);

/* The target acceptance of move = rotation, toward which the core adapts alpha (state's
 * step, mcf_adapt_step, within [DE_ALPHA_MIN, DE_ALPHA_MAX]). */
#define DE_TARGET_ACCEPTANCE 0.5

int de_propose(mcf_batch *batch, void *const *chains, size_t n, mcf_rng *const *rngs,
               void *moves, double *log_ratio);
int de_apply(mcf_batch *batch, void *const *chains, const void *moves, size_t n,
             const unsigned char *accepted);

/* ---- de_spins_file.c: initial spins from a file ------------------------------------------- */

/* Reads the n unit spins of [model] spins = path into spin (3n doubles, renormalized). */
int de_read_spins(const mcf_params *params, const char *path, size_t n, double *spin);

/* ---- de_measure.c: measurements ------------------------------------------------------------ */

int de_measure(mcf_batch *batch, void *const *chains, size_t n, double *const *values);
/* units, and the DOS curve's length and axis (mcf_layout) */
int de_layout(const void *chain, mcf_layout *layout);
/* The path and the Bloch vectors of spectral_moments (c->Ms > 0, c->h built): c->kpath,
 * c->bloch (and c->bloch_w at hund = inf).  Errors: mcf_kpath_create's, MCF_ENOMEM. */
int de_spectral_setup(de_chain *c, const mcf_lattice *lat, const char *path);

/* ---- de_tempering.c: parallel tempering ---------------------------------------------------- */

/* After the core wrote c->T (tempering): checks it. */
int de_temperature_rebuild(de_chain *c);
int de_exchange(mcf_batch *batch, void *const *chains, size_t n, const double *T_new,
                double *dS);

/* ---- de_hmc.c: hybrid Monte Carlo (mcf_model.coordinates, global_action; mcf 1.1) ------ */
int de_coordinates(void *chain, mcf_coordinates *out);
int de_global_action(mcf_batch *b, void *const *chains, size_t n, mcf_rng *const *rngs,
                     unsigned what, double *S, double *const *grad);

/* ---- de_checkpoint.c: the chain's state, described for the core ---------------------------- */

/* the record's tags: the whole state, and the configuration (start = anneal) */
#define DE_STATE_TAG {'D', 'E', 'X', '2'}
#define DE_CONFIGURATION_TAG {'D', 'E', 'C', '1'}

int de_state(void *chain, mcf_chain_state *state);
int de_rebuild(void *chain, unsigned what);

#endif
