/* slater_jastrow.c — the model "slater-jastrow": variational Monte Carlo of the homogeneous
 * electron gas (HEG) with a Slater-Jastrow trial wave function (issue 5).  This file holds
 * the model's parameters and observables, the creation and destruction of a chain, its
 * layout, and the plugin's table and descriptor; each other part of the model is one file:
 *
 *     slater_jastrow_internal.h  the chain (sj_chain) and what the files share
 *     sj_orbitals.c              the plane-wave orbitals, and the calls that evaluate them
 *     sj_jastrow.c               the Jastrow factor: the rpa u(r), ratio, gradient, and
 *                                the derivatives in the bspline parameters
 *     sj_bspline.c               the B-spline u(r) (QMCPACK's convention), its parameter file
 *     sj_variational.c           the parameters for `mcf optimize`: one array, its
 *                                description (with the parameter file's lines), its rebuild
 *     sj_determinants.c          the Slater inverses kept here: LU, drift, Sherman-Morrison
 *     sj_delayed.c               their delayed rank-k updates ([model] delay > 1; a
 *                                library, mcf_sj_delay, that its unit test links too)
 *     sj_determinants_ev.c       the Slater determinants kept by the evaluator
 *     sj_sweep.c                 the moves (move = pbp | qs | drift): sweep (the trial
 *                                rows, and whole sweeps on the evaluator), propose, apply
 *     sj_drift.c                 move = drift: the drift-diffusion proposal and its ratio
 *     sj_local_energy.c          the local energy, and its parameter derivatives (measure)
 *     sj_checkpoint.c            the chain's state (the checkpoint record, the adapted
 *                                step, the parameters) and rebuild (the load's checks)
 *     sj_timing.c                the MCF_TIMING=1 diagnostics (the log's timing line)
 *
 * and the library mcf_ewald (ewald.c, heg.c) holds the Ewald sum and the HEG set-up.
 *
 * ---- ABI 2 ------------------------------------------------------------------------------
 * The table is an mcf_model (mcf/model.h): sweep, propose, apply and measure are batched
 * and get the core's batch, through which the orbital evaluator is reached (ABI 2's
 * helpers of mcf/orbital_model.h: the evaluator may be of either ABI); the chain's state
 * is described once (state), and the core saves, loads and adapts the step from that
 * description and calls rebuild; the variational parameters are part of that description
 * and their derivatives come from measure while `mcf optimize` measures.  The order of the
 * calls and random draws is ABI 1's (begin_sweep's work opens sweep), so results and
 * checkpoints are those of the ABI-1 model, bit for bit.
 *
 * ---- Wave function --------------------------------------------------------------------
 * N electrons in the periodic cube of side L (heg.h: L^3 = (4/3) pi r_s^3 N), electrons
 * 0 .. N_up-1 spin up, N_up .. N-1 spin down (polarized: all up).
 *
 *     Psi(R) = D_up(R_up) D_down(R_down) exp(J(R)),   J = sum_{i<j} u_{s_i s_j}(r_ij),
 *
 * D_sigma = det A_sigma with A_sigma[i][l] = phi_l(r_i) (row = electron, column = orbital).
 * The orbitals phi_l are plane waves (sj_orbitals.c), u the rpa form (sj_jastrow.c) or a
 * B-spline (sj_bspline.c).
 *
 * move = qs (the help of the key `move` sends readers here) is an APPROXIMATION, biased:
 * the scheme, why it is biased and the measured bias are in sj_sweep.c's header.  Use
 * move = pbp for results. */
#include "slater_jastrow_internal.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_matrix.h>
#include <gsl/gsl_permutation.h>

#include "ewald.h"
#include "heg.h"

/* The model's own random stream (mcf/model.h): chain k's moves come from stream
 * 0x5c1a7e0000000000 + k of the run's seed, as since the model's first release. */
static const mcf_stream_spec sj_streams[] = {
    {"moves", 0x5c1a7e0000000000ULL, 0, "the electrons' trial moves and their decisions"},
    {NULL, 0, 0, NULL}};
/* determinants = auto hands the matrices to an evaluator that offers them from this many
 * electrons per spin on: on an H100 a device step costs ~15 us whatever m, the host's
 * Sherman-Morrison ~6.5 us (m / 57)^2 per move (docs/benchmarks.md), equal at m ~ 87 */
#define SJ_AUTO_EV_DETS 90

static const mcf_param_spec sj_params[] = {
    {"system", MCF_PARAM_CHOICE, "heg", MCF_PARAM_NO_SCAN, 0, 0, "heg",
     .doc = "the system: heg (homogeneous electron gas in a periodic cube)"},
    {"electrons", MCF_PARAM_INT, "14", MCF_PARAM_HAS_MIN | MCF_PARAM_HAS_MAX, 1,
     MCF_HEG_MAX_ELECTRONS, NULL,
     .doc = "total number of electrons N (closed shells: 2, 14, 38, 54, 66, 114, ... unpolarized)",
     .symbol = "N"},
    {"polarized", MCF_PARAM_BOOL, "false", MCF_PARAM_NO_SCAN, 0, 0, NULL,
     .doc = "true: all N electrons spin up; false: N/2 up and N/2 down"},
    {"rs", MCF_PARAM_REAL, "1", MCF_PARAM_HAS_MIN | MCF_PARAM_MIN_EXCLUSIVE | MCF_PARAM_FINITE,
     0, 0, NULL,
     .doc = "density parameter r_s (bohr): (4/3) pi r_s^3 = volume per electron",
     .symbol = "r_s", .unit = "a_0"},
    {"interaction", MCF_PARAM_CHOICE, "coulomb", MCF_PARAM_NO_SCAN, 0, 0, "coulomb|none",
     .doc = "coulomb: the electrons' Ewald interaction in the neutralizing background; none: "
     "the free gas (potential 0; with jastrow = none the determinant is the exact ground "
     "state, the local energy its kinetic energy at every point: a check of the samplers)"},
    {"jastrow", MCF_PARAM_CHOICE, "none", MCF_PARAM_NO_SCAN, 0, 0, "none|rpa|bspline",
     .doc = "Jastrow factor: none (Slater determinant only), rpa (u = -(1-r/rc)^3 (A/r)(1-e^-r/F)) "
     "or bspline (exp(-sum w(r_ij)), w a cubic B-spline per spin pair with the cusps built "
     "in, QMCPACK's convention; see jastrow_uu, jastrow_ud, jastrow_file)"},
    {"jastrow_a", MCF_PARAM_REAL, "0", MCF_PARAM_HAS_MIN, 0, 0, NULL,
     .doc = "rpa Jastrow amplitude A (bohr); 0 = the RPA value sqrt(rs^3/3); F from the cusps",
     .symbol = "A", .unit = "a_0"},
    {"jastrow_cutoff", MCF_PARAM_REAL, "0", MCF_PARAM_HAS_MIN, 0, 0, NULL,
     .doc = "Jastrow cutoff r_c (bohr; rpa and bspline), at most L/2; 0 = L/2",
     .symbol = "r_c", .unit = "a_0"},
    {"jastrow_uu", MCF_PARAM_STRING, "zero", MCF_PARAM_NO_SCAN, 0, 0, NULL,
     .doc = "bspline: the parameters of w for like spins, e.g. 1.08 0.665 0.436 0.224 0.110 "
     "(QMCPACK's coefficients); zero: jastrow_size zeros (w = 0 but for the cusp)"},
    {"jastrow_ud", MCF_PARAM_STRING, "zero", MCF_PARAM_NO_SCAN, 0, 0, NULL,
     .doc = "bspline: the parameters of w for unlike spins; zero: jastrow_size zeros"},
    {"jastrow_size", MCF_PARAM_INT, "8", MCF_PARAM_HAS_MIN | MCF_PARAM_HAS_MAX | MCF_PARAM_NO_SCAN,
     2, SJ_BSPLINE_MAX, NULL,
     .doc = "bspline: parameters per spin pair where jastrow_uu or jastrow_ud is zero",
     .symbol = "n_w"},
    {"jastrow_file", MCF_PARAM_STRING, "none", MCF_PARAM_NO_SCAN, 0, 0, NULL,
     .doc = "bspline: a parameter file (as `mcf optimize` writes it: form, cutoff, uu, ud lines) "
     "instead of jastrow_uu, jastrow_ud and jastrow_cutoff; none: the keys"},
    {"move", MCF_PARAM_CHOICE, "pbp", MCF_PARAM_NO_SCAN, 0, 0, "pbp|qs|drift",
     .doc = "pbp: particle-by-particle Metropolis (exact); qs: quasi-simultaneous, every ratio "
     "against the sweep's starting configuration (approximate: biased, see slater_jastrow.c); "
     "drift: particle by particle, drift-diffusion proposals with time step tau = step^2 and "
     "Umrigar's limited drift, the Green's functions' ratio in the Metropolis test (exact; "
     "the move of DMC; delay <= 1, the determinants in the model or on an evaluator that "
     "makes whole drift sweeps: blip-cuda, on the GPU); [run] method = dmc moves by drift at "
     "its time step whatever this key says"},
    {"determinants", MCF_PARAM_CHOICE, "auto", MCF_PARAM_NO_SCAN, 0, 0, "auto|model|evaluator",
     .doc = "who keeps the Slater matrices and their inverses: auto = the evaluator when it offers "
     "determinant ops (blip-cuda: on the GPU), N_up >= 90 and move = pbp, or move = drift or "
     "[run] method = dmc with the evaluator's drift sweeps (blip-cuda), else the model"},
    {"delay", MCF_PARAM_INT, "0", MCF_PARAM_HAS_MIN | MCF_PARAM_HAS_MAX | MCF_PARAM_NO_SCAN, 0,
     SJ_DELAY_MAX, NULL,
     .doc = "k: at most k accepted moves of a spin wait for the update of the inverse Slater "
     "matrix, then go in as one rank-k product (ratios corrected by them meanwhile); 1 = "
     "Sherman-Morrison after every move; whole sweeps on the evaluator may wait for fewer "
     "(blip-cuda: the largest power of 2 <= k its shared memory holds); 0 = automatic, "
     "wherever the updates are made: the window the code making them was measured fastest "
     "with, 1 where the model makes them (sj_delay_window), the evaluator's own in its "
     "whole sweeps (blip-cuda: 16); > 1 needs move = pbp and the determinants in the model, "
     "or the sweep on the evaluator"},
    {"sweep", MCF_PARAM_CHOICE, "auto", MCF_PARAM_NO_SCAN | MCF_PARAM_ECHO_IF_CHANGED, 0, 0,
     "auto|evaluator|core",
     .doc = "with the determinants on the evaluator, who makes a sweep's moves: evaluator = all N "
     "at once where the determinants are (ratios, Jastrow, the Metropolis decisions from the "
     "chain's stream, delayed updates; no round trip per move: blip-cuda), core = one at a "
     "time through the core's loop; auto = evaluator when it offers whole sweeps"},
    {"step", MCF_PARAM_REAL, "0.5", MCF_PARAM_HAS_MIN | MCF_PARAM_MIN_EXCLUSIVE, 0, 0, NULL,
     .doc = "initial Gaussian step per component in units of rs; adapted while thermalizing to "
     "acceptance 0.5 (move = drift: the diffusion's sqrt(tau))"},
    {0}};

/* [model] system, jastrow (enum SJ_JASTROW_*), move, determinants and sweep: in the order of
 * their choices (mcf_params_choice) */
enum { SJ_MOVE_PBP, SJ_MOVE_QS, SJ_MOVE_DRIFT };
enum { SJ_INTERACTION_COULOMB, SJ_INTERACTION_NONE };
enum { SJ_DETS_AUTO, SJ_DETS_MODEL, SJ_DETS_EVALUATOR };
enum { SJ_SWEEP_AUTO, SJ_SWEEP_EVALUATOR, SJ_SWEEP_CORE };

/* The observables, in measure()'s order, with their symbols and units for the plots. */
static const mcf_observable sj_observables[] = {
    {"energy", MCF_ROLE_ENERGY, "local energy per electron (hartree)", NULL, 0, "E/N", "Ha",
     NULL, NULL},
    {"kinetic", MCF_ROLE_NONE, "kinetic energy per electron (hartree)", NULL, 0, "E_kin/N",
     "Ha", NULL, NULL},
    {"potential", MCF_ROLE_NONE, "Ewald potential energy per electron, with background (hartree)",
     NULL, 0, "E_pot/N", "Ha", NULL, NULL},
    {"energy_sq", MCF_ROLE_NONE,
     "square of the local energy per electron; var(E_L) = N^2 (energy_sq - energy^2)", NULL, 0,
     "(E/N)²", "Ha²", NULL, NULL},
    {NULL, MCF_ROLE_NONE, NULL, NULL, 0, NULL, NULL, NULL, NULL}};

static void sj_destroy(void *chain)
{
    sj_chain *c = chain;
    if (!c)
        return;
    if (c->refreshes)
        mcf_log(MCF_LOG_DEBUG, "slater-jastrow: %llu recomputations of the inverses, largest "
                "Sherman-Morrison drift %.3e", (unsigned long long)c->refreshes, c->max_drift);
    timing_destroy(c);
    mcf_orbital_release(&c->orb, c->ws); /* with the determinants it holds */
    mcf_ewald_destroy(c->ew);
    free(c->gD);
    free(c->lD);
    free(c->r);
    free(c->disp);
    free(c->trial);
    free(c->trial_phi);
    free(c->qs_lr);
    free(c->log_g);
    free(c->tgrad);
    free(c->tlap);
    free(c->acc);
    for (int s = 0; s < 2; s++) {
        free(c->A[s]);
        free(c->Ainv[s]);
        sj_delay_free(&c->dl[s]);
    }
    free(c->w);
    free(c->col);
    free(c->phi);
    free(c->grad);
    free(c->lap);
    if (c->lu)
        gsl_matrix_free(c->lu);
    if (c->inv)
        gsl_matrix_free(c->inv);
    if (c->perm) {
        c->perm->size = c->norb;
        gsl_permutation_free(c->perm);
    }
    free(c);
}

static int sj_create(const mcf_params *params, const mcf_services *services, mcf_rng *rng,
                     void **out)
{
    const char *origin = mcf_params_origin(params), *sec = mcf_params_section(params);
    const char *jastrow_name, *juu, *jud, *jfile;
    long n_el, jsize, delay;
    int use_j, move, dets, sweep_by, polarized, interaction, rc;
    double rs, ja, jrc, step;
    if ((rc = mcf_params_int(params, "electrons", &n_el)) || /* system: heg, the one choice */
        (rc = mcf_params_bool(params, "polarized", &polarized)) ||
        (rc = mcf_params_real(params, "rs", &rs)) ||
        (rc = mcf_params_choice(params, "interaction", &interaction)) ||
        (rc = mcf_params_choice(params, "jastrow", &use_j)) ||
        (rc = mcf_params_string(params, "jastrow", &jastrow_name)) ||
        (rc = mcf_params_real(params, "jastrow_a", &ja)) ||
        (rc = mcf_params_real(params, "jastrow_cutoff", &jrc)) ||
        (rc = mcf_params_string(params, "jastrow_uu", &juu)) ||
        (rc = mcf_params_string(params, "jastrow_ud", &jud)) ||
        (rc = mcf_params_int(params, "jastrow_size", &jsize)) ||
        (rc = mcf_params_string(params, "jastrow_file", &jfile)) ||
        (rc = mcf_params_choice(params, "move", &move)) ||
        (rc = mcf_params_choice(params, "determinants", &dets)) ||
        (rc = mcf_params_int(params, "delay", &delay)) ||
        (rc = mcf_params_choice(params, "sweep", &sweep_by)) ||
        (rc = mcf_params_real(params, "step", &step)))
        return rc;
    size_t n_up, n_dn;
    if ((rc = mcf_heg_electrons((size_t)n_el, polarized, &n_up, &n_dn)))
        return mcf_fail_prefix(rc, "slater-jastrow: [%s] electrons = %ld (polarized = %s) in %s",
                               sec, n_el, polarized ? "true" : "false", origin);
    double L;
    if ((rc = mcf_heg_cell_side(rs, (size_t)n_el, &L)))
        return mcf_fail_prefix(rc, "slater-jastrow: [%s] rs = %g in %s", sec, rs, origin);
    sj_bspline_input bin;
    memset(&bin, 0, sizeof bin);
    if (!strcmp(juu, "zero"))
        juu = "";
    if (!strcmp(jud, "zero"))
        jud = "";
    if (!strcmp(jfile, "none"))
        jfile = "";
    if (use_j != SJ_JASTROW_BSPLINE && (juu[0] || jud[0] || jfile[0]))
        return mcf_fail(MCF_EINVAL, "slater-jastrow: [%s] %s in %s is read only with jastrow = "
                        "bspline (here jastrow = %s); set jastrow = bspline or remove it", sec,
                        jfile[0] ? "jastrow_file" : juu[0] ? "jastrow_uu" : "jastrow_ud", origin,
                        jastrow_name);
    if (use_j == SJ_JASTROW_BSPLINE) {
        if (jfile[0] && (juu[0] || jud[0]))
            return mcf_fail(MCF_EINVAL, "slater-jastrow: [%s] jastrow_file and %s in %s: give "
                            "the parameters once, in the file or in the keys", sec,
                            juu[0] ? "jastrow_uu" : "jastrow_ud", origin);
        rc = jfile[0] ? bspline_read_file(jfile, &bin)
                      : bspline_input_from_keys(juu, jud, jsize, &bin);
        if (rc)
            return mcf_fail_prefix(rc, "slater-jastrow: [%s] in %s", sec, origin);
        if (jfile[0] && (bin.np[0] == 0 || (!polarized && bin.np[1] == 0)))
            return mcf_fail(MCF_EINVAL, "slater-jastrow: [%s] jastrow_file = %s in %s has no %s "
                            "line (%s spins need it)", sec, jfile, origin,
                            bin.np[0] == 0 ? "uu" : "ud", bin.np[0] == 0 ? "like" : "unlike");
        if (jfile[0] && bin.cutoff > 0.0) {
            if (jrc > 0.0 && jrc != bin.cutoff)
                return mcf_fail(MCF_EINVAL, "slater-jastrow: [%s] jastrow_cutoff = %g in %s "
                                "differs from the cutoff %.17g of jastrow_file = %s; remove "
                                "jastrow_cutoff", sec, jrc, origin, bin.cutoff, jfile);
            jrc = bin.cutoff;
        }
        if (!jfile[0])
            bin.cutoff = jrc;
    }
    if (use_j && jrc > 0.5 * L * (1.0 + 1e-14))
        return mcf_fail(MCF_EINVAL, "slater-jastrow: [%s] jastrow_cutoff = %g in %s is beyond "
                        "the Wigner-Seitz radius L/2 = %.6g bohr of the cell (N = %ld, rs = %g, "
                        "L = %.6g); set jastrow_cutoff <= %.6g, or 0 for L/2",
                        sec, jrc, origin, 0.5 * L, n_el, rs, L, 0.5 * L);

    mcf_orbital ev;
    if ((rc = mcf_orbital_bind(services, params, "slater-jastrow", MCF_ORBITAL_VALUES, &ev)))
        return rc;
    const int has_det = mcf_orbital_has(&ev, MCF_ORBITAL_DETERMINANTS);
    const int is_qs = move == SJ_MOVE_QS, is_drift = move == SJ_MOVE_DRIFT;
    /* an evaluator that makes whole drift-diffusion sweeps (walker_drift_sweep, mcf 1.2)
     * may keep the determinants of drift moves; the core's loop cannot move them there */
    const int has_drift = mcf_orbital_has(&ev, MCF_ORBITAL_DRIFT_SWEEP);
    const int drift_ev_ok = has_drift && sweep_by != SJ_SWEEP_CORE;
    if (is_drift && (((dets == SJ_DETS_EVALUATOR || sweep_by == SJ_SWEEP_EVALUATOR) &&
                      !drift_ev_ok) || delay > 1))
        return mcf_fail(MCF_EINVAL, "slater-jastrow: [%s] move = drift in %s needs the "
                        "determinants in the model, updated after every move, or on an "
                        "evaluator that makes whole drift sweeps (blip-cuda) with sweep = auto "
                        "or evaluator; here %s%s%s; remove it or set %s", sec, origin,
                        delay > 1 ? "delay > 1" : dets == SJ_DETS_EVALUATOR ?
                        "determinants = evaluator" : "sweep = evaluator", delay > 1 ? "" :
                        !has_drift ? " and the evaluator makes no drift sweeps, " :
                        " with sweep = core", delay > 1 ? "" : !has_drift ? ev.name : "",
                        delay > 1 ? "delay = 0 or 1" : dets == SJ_DETS_EVALUATOR ?
                        "determinants = auto or model" : "sweep = auto or core");
    if (dets == SJ_DETS_EVALUATOR && !has_det)
        return mcf_fail(MCF_EINVAL, "slater-jastrow: [%s] determinants = evaluator in %s, but "
                        "evaluator %s keeps no determinants (blip-cuda does); set "
                        "determinants = auto or model", sec, origin, ev.name);
    if (dets == SJ_DETS_EVALUATOR && is_qs)
        return mcf_fail(MCF_EINVAL, "slater-jastrow: [%s] determinants = evaluator in %s works "
                        "with move = pbp only (qs takes every ratio against the sweep's "
                        "start); set determinants = auto or model, or move = pbp", sec, origin);
    const int on_ev = has_det && !is_qs && (!is_drift || drift_ev_ok) &&
                      (dets == SJ_DETS_EVALUATOR ||
                       (dets == SJ_DETS_AUTO && n_up >= SJ_AUTO_EV_DETS));
    const int has_sweep = mcf_orbital_has(&ev, MCF_ORBITAL_WALKER_SWEEP);
    if (sweep_by == SJ_SWEEP_EVALUATOR && !(on_ev && has_sweep))
        return mcf_fail(MCF_EINVAL, "slater-jastrow: [%s] sweep = evaluator in %s needs the "
                        "determinants on an evaluator that makes whole sweeps (here %s); set "
                        "sweep = auto or core", sec, origin,
                        !on_ev ? "the model keeps them" : "the evaluator has no walker_sweep");
    const int ev_sweep = on_ev && has_sweep && sweep_by != SJ_SWEEP_CORE;
    if (delay > 1 && (is_qs || (on_ev && !ev_sweep)))
        return mcf_fail(MCF_EINVAL, "slater-jastrow: [%s] delay = %ld in %s needs move = pbp "
                        "with the determinants kept by the model or swept by the evaluator "
                        "(here %s); set delay = 0 or 1%s", sec, delay, origin,
                        is_qs ? "move = qs" : "the evaluator's det ops, move by move",
                        on_ev ? ", determinants = model, or sweep = auto" : "");

    sj_chain *c = calloc(1, sizeof *c);
    if (!c)
        return mcf_fail(MCF_ENOMEM, "slater-jastrow: out of memory for a chain");
    c->on_ev = on_ev;
    c->n = (size_t)n_el;
    c->n_up = n_up;
    c->n_dn = n_dn;
    c->norb = n_up;
    c->L = L;
    c->rs = rs;
    c->step = step * rs;
    c->orb = ev;
    c->ev_name = ev.name;
    c->jastrow = use_j;
    c->polarized = polarized;
    c->qs = is_qs;
    c->drift = is_drift;
    c->ev_drift = on_ev && drift_ev_ok;
    c->coulomb = interaction == SJ_INTERACTION_COULOMB;
    c->delay = sj_delay_window((size_t)delay, ev_sweep);
    c->ev_sweep = ev_sweep;
    c->index = services->chain_index;
    c->e_hf = NAN;
    if (c->index == 0) { /* for the log: what the determinant alone gives, exactly */
        mcf_heg_hf hf;
        if (mcf_heg_hartree_fock((size_t)n_el, polarized, rs, 0.0, &hf) == MCF_OK)
            c->e_hf = c->coulomb ? hf.total : hf.kinetic;
    }
    if ((rc = timing_create(c))) {
        free(c);
        return rc;
    }
    if (use_j == SJ_JASTROW_RPA)
        jastrow_init(c->jp, ja, jrc, rs, L);
    if (use_j == SJ_JASTROW_BSPLINE) {
        const double rcut = jrc > 0.0 ? (jrc < 0.5 * L ? jrc : 0.5 * L) : 0.5 * L;
        for (int k = 0; k < 2 && !rc; k++)
            if (bin.np[k] || k == 0)
                rc = bspline_init(&c->jp[k], bin.p[k], bin.np[k], rcut, k == 0 ? -0.25 : -0.5);
        if (rc) {
            timing_destroy(c);
            free(c);
            return mcf_fail_prefix(rc, "slater-jastrow: [%s] in %s", sec, origin);
        }
        if (c->index == 0)
            mcf_log(MCF_LOG_INFO, "slater-jastrow: bspline Jastrow, cutoff %.6g bohr (L/2 = "
                    "%.6g), %zu parameters for like spins, %zu for unlike spins", rcut, 0.5 * L,
                    c->jp[0].np, polarized ? (size_t)0 : c->jp[1].np);
    }
    jastrow_pair_functions(c, c->pf);
    sj_variational_init(c);
    if ((rc = mcf_services_stream(services, "moves", &c->mv))) {
        sj_destroy(c);
        return mcf_fail_prefix(rc, "slater-jastrow");
    }

    const size_t n = c->n, no = c->norb;
    c->r = malloc(3 * n * sizeof *c->r);
    c->disp = malloc(3 * n * sizeof *c->disp);
    c->trial = malloc(3 * n * sizeof *c->trial);
    c->trial_phi = malloc(n * no * sizeof *c->trial_phi);
    c->qs_lr = malloc(n * sizeof *c->qs_lr);
    c->log_g = malloc(n * sizeof *c->log_g);
    c->tgrad = malloc(3 * no * sizeof *c->tgrad);
    c->tlap = malloc(no * sizeof *c->tlap);
    c->acc = malloc(n);
    c->phi = malloc(n * no * sizeof *c->phi);
    c->grad = malloc(3 * n * no * sizeof *c->grad);
    c->lap = malloc(n * no * sizeof *c->lap);
    c->w = malloc(no * sizeof *c->w);
    c->col = malloc(no * sizeof *c->col);
    int bad = !c->r || !c->disp || !c->trial || !c->trial_phi || !c->qs_lr || !c->acc ||
              !c->log_g || !c->tgrad || !c->tlap ||
              !c->phi || !c->grad || !c->lap || !c->w || !c->col;
    for (int s = 0; s < 2 && !bad; s++) {
        const size_t m = spin_count(c, (size_t)s);
        c->A[s] = malloc((m ? m * m : 1) * sizeof(double));
        c->Ainv[s] = malloc((m ? m * m : 1) * sizeof(double));
        bad = !c->A[s] || !c->Ainv[s] ||
              (c->delay > 1 && !c->on_ev && sj_delay_init(&c->dl[s], c->delay, m) != MCF_OK);
    }
    if (!bad) {
        c->lu = gsl_matrix_alloc(no, no);
        c->inv = gsl_matrix_alloc(no, no);
        c->perm = gsl_permutation_alloc(no);
        bad = !c->lu || !c->inv || !c->perm;
    }
    if (bad) {
        sj_destroy(c);
        return mcf_fail(MCF_ENOMEM, "slater-jastrow: out of memory for a chain of %zu "
                        "electrons", n);
    }

    /* orbitals and the evaluator workspace */
    int32_t *g = NULL;
    double *a = NULL, *b = NULL;
    size_t ng = 0;
    if ((rc = build_orbitals(no, L, &g, &a, &b, &ng))) {
        sj_destroy(c);
        return rc;
    }
    mcf_pw_orbitals orb = {{L, L, L}, no, ng, g, a, b};
    rc = mcf_orbital_workspace(&ev, &orb, &c->ws);
    free(g);
    free(a);
    free(b);
    if (rc) {
        sj_destroy(c);
        return rc;
    }

    /* initial positions: uniform in the cell (redrawn if a Slater matrix is singular) */
    for (int attempt = 0;; attempt++) {
        for (size_t i = 0; i < 3 * n; i++)
            c->r[i] = L * mcf_rng_uniform(rng);
        if ((rc = values_here(c))) {
            sj_destroy(c);
            return rc;
        }
        rows_from_phi(c, c->phi, c->A);
        if ((rc = refresh_inverses(c, 0)) == MCF_OK)
            break;
        if (attempt == 10) {
            sj_destroy(c);
            return rc;
        }
    }
    c->refreshes = 0;
    if (c->on_ev) {
        c->gD = malloc(3 * n * sizeof *c->gD);
        c->lD = malloc(n * sizeof *c->lD);
        if (!c->gD || !c->lD) {
            sj_destroy(c);
            return mcf_fail(MCF_ENOMEM, "slater-jastrow: out of memory");
        }
        if ((rc = push_dets(c))) { /* det_set with m electrons makes each spin's */
            sj_destroy(c);
            return rc;
        }
    }

    double *charges = malloc(n * sizeof *charges);
    if (!charges) {
        sj_destroy(c);
        return mcf_fail(MCF_ENOMEM, "slater-jastrow: out of memory");
    }
    for (size_t i = 0; i < n; i++)
        charges[i] = -1.0;
    rc = mcf_ewald_create((double[3]){L, L, L}, n, charges, c->r, NULL, &c->ew);
    free(charges);
    if (rc) {
        c->ew = NULL;
        sj_destroy(c);
        return mcf_fail_prefix(rc, "slater-jastrow: Ewald sum");
    }
    *out = c;
    return MCF_OK;
}

/* One proposal per electron and sweep (also the N of the per-electron observables); no
 * curves. */
static int sj_layout(const void *chain, mcf_layout *layout)
{
    layout->units = ((const sj_chain *)chain)->n;
    return MCF_OK;
}

/* No state_tag (zeros): ABI 1's save wrote the record without one (it opens with its own
 * magic, sj_checkpoint.c), so checkpoints of either ABI resume under the other.  The
 * configuration record (sj_checkpoint.c): positions and Slater matrices.  No exchange (no
 * tempering), no periodic op. */
static const mcf_model sj_model = {
    .struct_size = sizeof(mcf_model),
    .move_size = sizeof(sj_move),
    .observables = sj_observables,
    .evaluator_kind = MCF_PLUGIN_ORBITAL_EVALUATOR,
    .streams = sj_streams,
    .variational_file_key = "jastrow_file",
    .configuration_tag = {'S', 'J', 'C', '1'},
    .create = sj_create,
    .destroy = sj_destroy,
    .layout = sj_layout,
    .propose = sj_propose,
    .apply = sj_apply,
    .sweep = sj_sweep,
    .measure = sj_measure,
    .state = sj_state,
    .rebuild = sj_rebuild,
    .projector = sj_projector,
};

MCF_PLUGIN_DESCRIPTOR(MCF_PLUGIN_MODEL, "slater-jastrow", "0.1.0",
                      "Slater-Jastrow VMC of the homogeneous electron gas (orbitals from an "
                      "orbital evaluator, Ewald interaction)",
                      sj_params, &sj_model)
