/* two_band.c — the spinless two-band crystal of the Kadanoff-Baym seed (issue 45): per cell
 * of a simple lattice (dims = 1, 2, 3: chain, square, cubic; lattice constant 1) a valence
 * orbital v (0) and a conduction orbital c (1), no v-c hopping,
 *
 *     eps_v(k) = -gap/2 - 2 t_v sum_d cos k_d,     eps_c(k) = +gap/2 - 2 t_c sum_d cos k_d,
 *
 * driven by a field E(t) through the k-independent interband dipole D = d sigma_x (the term
 * E(t) d (c_v^+ c_c + h.c.) on every cell) and ramped through the local interaction
 * U(t) n_v n_c on every cell.  With the defaults (gap 3, t_v = -0.25, t_c = 0.5) the gap is
 * direct at k = 0: eps_v(0) = -1, eps_c(0) = 0.5.
 *
 * What the model gives: the driven crystal (driven_crystal op, mcf/dynamics.h) for `mcf
 * kbe` — H_0, D, the interaction's one term (0, 1, weight 1: its strength U(t) is the
 * core's [kbe] ramp) and the initial state's mu and temperature; and the ideal state
 * "crystal" (H_0 alone) for `mcf band`.  What it does not: Monte Carlo.  It has no
 * classical field, so create() refuses every run and the other Monte Carlo ops, required
 * by the table, are never reached.
 *
 * Conventions (mcf/periodic.h): H(k)_ab = sum over hoppings (re + i im) exp(2 pi i k . R),
 * k reduced.  The bond R = e_d, a -> a with value -t_a, with the conjugate mcf_cell_bond
 * adds at -e_d, gives -t_a (exp(2 pi i k_d) + exp(-2 pi i k_d)) = -2 t_a cos(2 pi k_d), the
 * cos k_d above at the Cartesian k_d = 2 pi (reduced k_d).  The dipole is the on-site
 * off-diagonal element <c, 0| D |v, 0> = d (mcf_cell_bond at R = 0 from v to c), its
 * conjugate <v| D |c> = d added by mcf_cell_bond: D(k) = d sigma_x at every k. */
#include "mcf/mcf.h"

#include <stddef.h>
#include <string.h>

static const mcf_param_spec tb_params[] = {
    {"dims", MCF_PARAM_INT, "1", MCF_PARAM_NO_SCAN | MCF_PARAM_RANGE(1, 3), NULL,
     .doc = "periodic directions: 1 chain, 2 square, 3 cubic lattice (lattice constant 1)"},
    {"gap", MCF_PARAM_REAL, "3", MCF_PARAM_NO_SCAN | MCF_PARAM_FINITE, 0, 0, NULL,
     .doc = "the on-site energies -gap/2 (valence) and +gap/2 (conduction)", .symbol = "Δ",
     .unit = "t"},
    {"t_v", MCF_PARAM_REAL, "-0.25", MCF_PARAM_NO_SCAN | MCF_PARAM_FINITE, 0, 0, NULL,
     .doc = "valence hopping: eps_v(k) = -gap/2 - 2 t_v sum_d cos k_d", .symbol = "t_v",
     .unit = "t"},
    {"t_c", MCF_PARAM_REAL, "0.5", MCF_PARAM_NO_SCAN | MCF_PARAM_FINITE, 0, 0, NULL,
     .doc = "conduction hopping: eps_c(k) = +gap/2 - 2 t_c sum_d cos k_d", .symbol = "t_c",
     .unit = "t"},
    {"dipole", MCF_PARAM_REAL, "1", MCF_PARAM_NO_SCAN | MCF_PARAM_FINITE, 0, 0, NULL,
     .doc = "the interband dipole d: the field term E(t) d (c_v^+ c_c + h.c.) on every cell",
     .symbol = "d"},
    {"mu", MCF_PARAM_REAL, "0", MCF_PARAM_NO_SCAN | MCF_PARAM_FINITE, 0, 0, NULL,
     .doc = "chemical potential of the initial state f(h_0(k))", .symbol = "μ", .unit = "t"},
    {"temperature", MCF_PARAM_REAL, "0", MCF_PARAM_NO_SCAN | MCF_PARAM_FINITE |
     MCF_PARAM_HAS_MIN, 0, 0, NULL,
     .doc = "temperature of the initial state (0: every level below mu filled)",
     .symbol = "T", .unit = "t"},
    {0}};

/* never measured (create refuses): the table needs one observable */
static const mcf_observable tb_observables[] = {
    {"energy", MCF_ROLE_ENERGY, "band energy per cell (not sampled: the model has no Monte "
     "Carlo)", NULL, 0, "E/N", "t", NULL, NULL},
    {NULL, MCF_ROLE_NONE, NULL, NULL, 0, NULL, NULL, NULL, NULL}};

typedef struct tb_crystal {
    long dims;
    double gap, t[2], dipole;
} tb_crystal;

static int tb_read(const mcf_params *params, tb_crystal *x)
{
    int rc;
    if ((rc = mcf_params_int(params, "dims", &x->dims)) ||
        (rc = mcf_params_real(params, "gap", &x->gap)) ||
        (rc = mcf_params_real(params, "t_v", &x->t[0])) ||
        (rc = mcf_params_real(params, "t_c", &x->t[1])) ||
        (rc = mcf_params_real(params, "dipole", &x->dipole)))
        return mcf_fail_prefix(rc, "two-band");
    return MCF_OK;
}

static const double tb_lattice[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};

/* H_0 into cell: on-site -+gap/2, the bond -t_a to the next cell along every direction */
static int tb_describe(const tb_crystal *x, mcf_cell *cell)
{
    mcf_cell_shape(cell, (unsigned)x->dims, 2, 1, tb_lattice);
    for (unsigned a = 0; a < 2; a++) {
        mcf_cell_onsite(cell, a, a ? 0.5 * x->gap : -0.5 * x->gap);
        for (unsigned d = 0; d < (unsigned)x->dims; d++)
            mcf_cell_bond(cell, d == 0, d == 1, d == 2, a, a, -x->t[a], 0.0);
    }
    return mcf_cell_status(cell);
}

static int tb_periodic(const mcf_params *params, const void *chain, const char *state,
                       mcf_cell *cell)
{
    if (chain || !state || strcmp(state, "crystal") != 0)
        return mcf_fail(MCF_EINVAL, "two-band: state '%s'%s: two-band knows the state crystal "
                        "(H_0, an ideal crystal without a chain)", state ? state : "",
                        chain ? " of a chain" : "");
    tb_crystal x;
    int rc = tb_read(params, &x);
    return rc ? rc : tb_describe(&x, cell);
}

static int tb_driven_crystal(const mcf_params *params, mcf_cell *crystal, mcf_cell *dipole,
                             mcf_drive_terms *terms)
{
    tb_crystal x;
    int rc = tb_read(params, &x);
    if (rc || (rc = tb_describe(&x, crystal)))
        return rc;
    mcf_cell_shape(dipole, (unsigned)x.dims, 2, 1, tb_lattice);
    /* <c, 0| D |v, 0> = d; mcf_cell_bond adds <v, 0| D |c, 0> = d */
    if ((rc = mcf_cell_bond(dipole, 0, 0, 0, 1, 0, x.dipole, 0.0)))
        return rc;
    if ((rc = mcf_params_real(params, "mu", &terms->mu)) ||
        (rc = mcf_params_real(params, "temperature", &terms->temperature)))
        return mcf_fail_prefix(rc, "two-band");
    terms->n_terms = 1;
    terms->terms[0] = (mcf_interaction_term){0, 1, 1.0};
    return MCF_OK;
}

/* ---- Monte Carlo: none (required ops, never reached past create) -------------------------- */

static int tb_create(const mcf_params *params, const mcf_services *services, mcf_rng *rng,
                     void **chain)
{
    (void)params;
    (void)services;
    (void)rng;
    *chain = NULL;
    return mcf_fail(MCF_EINVAL, "two-band: no classical field to sample; it is a crystal for "
                    "`mcf kbe` (real-time dynamics) and `mcf band` (its DOS)");
}

static void tb_destroy(void *chain)
{
    (void)chain;
}

static int tb_no_chain(void)
{
    return mcf_fail(MCF_EINVAL, "two-band: the model has no chains (no Monte Carlo)");
}

static int tb_layout(const void *chain, mcf_layout *layout)
{
    (void)chain;
    (void)layout;
    return tb_no_chain();
}

static int tb_propose(mcf_batch *b, void *const *chains, size_t n, mcf_rng *const *rngs,
                      void *moves, double *log_ratio)
{
    (void)b;
    (void)chains;
    (void)n;
    (void)rngs;
    (void)moves;
    (void)log_ratio;
    return tb_no_chain();
}

static int tb_apply(mcf_batch *b, void *const *chains, const void *moves, size_t n,
                    const unsigned char *accepted)
{
    (void)b;
    (void)chains;
    (void)moves;
    (void)n;
    (void)accepted;
    return tb_no_chain();
}

static int tb_measure(mcf_batch *b, void *const *chains, size_t n, double *const *values)
{
    (void)b;
    (void)chains;
    (void)n;
    (void)values;
    return tb_no_chain();
}

static int tb_state(void *chain, mcf_chain_state *state)
{
    (void)chain;
    (void)state;
    return tb_no_chain();
}

static const mcf_model tb_model = {
    .struct_size = sizeof(mcf_model),
    .move_size = sizeof(double),
    .observables = tb_observables,
    .energy_unit = "t",
    .evaluator_kind = 0,
    .create = tb_create,
    .destroy = tb_destroy,
    .layout = tb_layout,
    .propose = tb_propose,
    .apply = tb_apply,
    .measure = tb_measure,
    .state = tb_state,
    .periodic = tb_periodic,
    .driven_crystal = tb_driven_crystal,
};

MCF_PLUGIN_DESCRIPTOR(MCF_PLUGIN_MODEL, "two-band", "1.0",
                      "spinless two-band crystal (valence, conduction; interband dipole, local "
                      "n_v n_c): the driven crystal of mcf kbe and the bands of mcf band",
                      tb_params, &tb_model, .min_mcf_version = MCF_VERSION_NUMBER(1, 1, 0))
