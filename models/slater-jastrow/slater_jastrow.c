/* slater_jastrow.c — the model "slater-jastrow": variational Monte Carlo of the homogeneous
 * electron gas (HEG) with a Slater-Jastrow trial wave function (issue 5).
 *
 * ---- Wave function --------------------------------------------------------------------
 * N electrons in the periodic cube of side L (heg.h: L^3 = (4/3) pi r_s^3 N), electrons
 * 0 .. N_up-1 spin up, N_up .. N-1 spin down (polarized: all up).
 *
 *     Psi(R) = D_up(R_up) D_down(R_down) exp(J(R)),   J = sum_{i<j} u_{s_i s_j}(r_ij),
 *
 * D_sigma = det A_sigma with A_sigma[i][l] = phi_l(r_i) (row = electron, column = orbital).
 * The orbitals are the closed-shell plane waves as real combinations: phi_0 = 1, then for
 * each pair +-k of the occupied set (k in the half space m_x > 0, or m_x = 0 and m_y > 0,
 * or m_x = m_y = 0 and m_z > 0) cos(k.r) and sin(k.r).  Their span equals that of the
 * complex exp(+-i k.r), so the determinant differs only by a constant factor.  They are
 * described as mcf_pw_orbitals and evaluated by the [run] evaluator (planewave, blip).
 * Both spins use the same L_orb = N_up orbitals (unpolarized N_down = N_up).
 *
 * Jastrow (jastrow = rpa): with t(r) = (1 - r/r_c)^3 and h(r) = -(A/r)(1 - exp(-r/F)),
 *     u(r) = t(r) h(r) for r < r_c, 0 beyond,
 * an RPA-like (Gaskell / Ceperley) short-range form truncated by a factor whose value,
 * first and second derivatives vanish at r_c, so u, grad u and lap u are continuous and the
 * local energy has no delta function at r_c.  Pairs interact through the nearest image
 * (r_c <= L/2, the Wigner-Seitz radius of the cube's inscribed sphere: at most one image of
 * r_j lies within r_c of r_i).  The cusp conditions (Kato; Foulkes et al. RMP 73, 33, eq.
 * 36) fix F: u'(0) = gamma with gamma = 1/2 for antiparallel, 1/4 for parallel spins.
 * u'(0) = t'(0) h(0) + h'(0) = 3A/(r_c F) + A/(2F^2), so gamma F^2 - (3A/r_c) F - A/2 = 0,
 *     F = [3A/r_c + sqrt(9A^2/r_c^2 + 2 gamma A)] / (2 gamma)   (the positive root).
 * A (jastrow_a, bohr) defaults to the RPA value 1/omega_p = sqrt(r_s^3 / 3); r_c
 * (jastrow_cutoff) defaults to L/2.
 *
 * ---- Moves (move = pbp) ----------------------------------------------------------------
 * The core proposes units = N moves per sweep, in order, one per step, and calls
 * accept or reject after each; the model moves electron s at step s.  begin_sweep draws,
 * for every chain of the batch, N Gaussian displacements d_i (sigma = step * r_s per
 * component) from the chain's own move stream (seed, 0x5c1a7e0000000000 + chain index),
 * and asks the evaluator for the orbital values at all trial points r_i + d_i of all
 * chains in one `values` call.  Electron i is not moved before its own turn, so r_i at its
 * turn equals r_i at the start of the sweep and the precomputed row is exactly the row of
 * the trial position.  log_ratio: the determinant ratio R = sum_l phi_l(r_i') Ainv[l][i]
 * (A^{-1} of the electron's spin), and log |Psi'/Psi|^2 = 2 log|R| + 2 dJ.  The proposal is
 * symmetric.  The acceptance uniforms come from the core's stream.
 *
 * ---- Moves (move = qs) -----------------------------------------------------------------
 * Quasi-simultaneous updating (Q.S., the seed paper's eq. 11, proposed for GPUs): the
 * trial positions and their orbital rows are made in begin_sweep as for pbp, and then
 * every electron's ratio is taken against the configuration R^(alpha) at the start of the
 * sweep, p(r_1, .., r_e', .., r_N) / p(R^(alpha)), all N of them in begin_sweep (N
 * independent tasks), instead of against the configuration left by the electrons moved
 * before it in the sweep.  The core then accepts or rejects electron e with that stored
 * ratio (one uniform each, from the core's stream as for pbp), and accept applies the
 * move to the current configuration exactly (Sherman-Morrison against the current Ainv,
 * the same code as pbp), so after the sweep the state holds all accepted moves together.
 * The state between sweeps is the same as pbp's (qs_lr is recomputed at every sweep), so
 * checkpoints are unchanged.
 *
 * qs is an APPROXIMATION.  Its N-electron transition satisfies detailed balance with
 * respect to |Psi|^2 only if Psi is a product of one-electron factors; the determinant and
 * the Jastrow couple the electrons (two electrons may both be accepted moving onto each
 * other, each judged against the other's old position), so its stationary distribution
 * is not |Psi|^2: it does not vanish as |Psi|^2 at the nodes, nor is it suppressed by the
 * Jastrow at short range.  Measured (test_vmc_heg (f): N = 14, r_s = 1, jastrow = rpa,
 * planewave, seed 20240605, 20000 sweeps, step adapted to acceptance 0.5 while
 * thermalizing): potential energy per electron -0.44938 +- 0.00154 (qs) vs -0.54176 +-
 * 0.00146 (pbp), a bias of +0.0924 +- 0.0021 hartree (43 sigma); total energy 0.6236 +-
 * 0.0260 (qs) vs 0.58648 +- 0.00091 (pbp), E_qs - E_pbp = +0.037 +- 0.026 (1.4 sigma);
 * <energy_sq> - <energy>^2 = 13.4 (energy_sq error 10.8) for qs vs 0.0059 for pbp,
 * acceptance 0.585 (qs) vs 0.500 (pbp).  The qs local energy is heavy-tailed (the
 * density near the nodes, where E_L ~ 1/distance, is not suppressed), so its energy error
 * bar is not reliable and its variance may not exist.  Use pbp for results; qs is there to
 * measure the scheme.
 *
 * accept: Sherman-Morrison, A' = A + e_i (v - a_i)^T, with w = v^T Ainv (w_i = R),
 *     Ainv'[:, j] = Ainv[:, j] - Ainv[:, i] (w_j - delta_ij) / R.
 * Every N accepted moves of a chain the inverses are recomputed from the stored rows A by
 * LU (GSL); the drift max |Ainv_SM A - 1| is measured before, logged (MCF_LOG_DEBUG) and its
 * maximum kept (logged at destroy).
 *
 * ---- Determinants kept by the evaluator (determinants = auto | evaluator) ---------------
 * An orbital evaluator may offer the optional determinant ops of mcf/orbital.h (blip-cuda
 * does: the matrices stay on the GPU).  With determinants = evaluator, or auto when move =
 * pbp and N_up >= 90 (below that the host's O(m^2) update beats a device round trip of
 * ~15 us per move for one walker: docs/benchmarks.md), the model hands each chain's up and down rows and inverses to the evaluator
 * (det_set, at create and load) and from then on: begin_sweep asks for the orbital rows at
 * the trial positions (det_trial: they stay with the evaluator; the trial positions are
 * wrapped into the cell first, so that the evaluator's positions are the model's), log_ratio
 * asks for the determinant ratios of the whole batch in one det_ratio call and adds the
 * Jastrow ratio, accept calls det_accept (the evaluator applies the same Sherman-Morrison
 * update, possibly at its next op), every N accepted moves det_refresh reports the drift
 * max |Ainv A - 1| and restores the inverse (a drift >= 0.25 is recomputed here by LU from
 * the rows, det_get / det_set), measure_batch asks det_local for grad_i D / D and
 * lap_i D / D, and save copies rows and inverses back (det_get), so checkpoints are the
 * same bytes whoever keeps the matrices.  determinants = model keeps them here (the path
 * above).  The chains of a batch compute their Jastrow ratios and local energies in
 * parallel over the cores (OpenMP; a device evaluator's batch steps on one thread), each
 * exactly as alone.
 *
 * ---- Local energy (measure_batch) ------------------------------------------------------
 * One vgl call for the current positions of all chains.  With D = D_up D_down,
 *     grad_i D / D = sum_l grad phi_l(r_i) Ainv[l][i],  lap_i D / D likewise,
 *     grad_i J = sum_j u'(r_ij) r_ij / r_ij,  lap_i J = sum_j [u''(r_ij) + 2 u'(r_ij)/r_ij],
 *     E_kin = -(1/2) sum_i [lap_i D/D + 2 grad_i D/D . grad_i J + lap_i J + |grad_i J|^2],
 * E_pot = the Ewald energy of the electrons in the neutralizing background (ewald.h),
 * recomputed from scratch.  Observables per electron (hartree): energy, kinetic,
 * potential, energy_sq (= energy^2, so var(E_L) = N^2 (<energy_sq> - <energy>^2)).
 *
 * ---- Checkpoints -------------------------------------------------------------------------
 * save: N, N_up, positions, the rows A and inverses Ainv (they accumulate rounding through
 * Sherman-Morrison, so they are saved, not recomputed), the move stream, step, counters.
 * load: reads them, re-evaluates the orbitals at the positions and checks them against A,
 * and checks |Ainv A - 1| (MCF_EFORMAT when they do not match).
 *
 * ---- Timing (MCF_TIMING=1) -------------------------------------------------------------
 * With the environment variable MCF_TIMING=1 (read once per chain at create) each chain
 * accumulates the wall time (clock_gettime CLOCK_MONOTONIC) of: the sweep (begin_sweep to
 * the chain's last accept/reject, divided by the chains of the begin_sweep call, which
 * interleave), the batched `values` call of begin_sweep (divided by the chains of the
 * batch), the determinant ratios (log_ratio's determinant part), the updates (accept:
 * Sherman-Morrison and the LU refreshes), the Jastrow ratios, and at measurement the
 * measure_batch call (divided by the batch), the batched `vgl` call (likewise), the
 * determinant gradients/Laplacians, the Jastrow gradients/Laplacians and the Ewald energy.
 * The moves do not touch the Ewald sum (the potential is recomputed only at measurement),
 * so the sweep's Ewald share is 0.  At destroy one line per chain goes to the log
 * (MCF_LOG_INFO): "slater-jastrow timing chain K: per sweep X ms (orbitals a ms, ...);
 * per measurement f ms (vgl g, ...)".  The times only go to the log: nothing
 * timing-related enters any result, the checkpoint or the random streams.  Without
 * MCF_TIMING=1 no clock is read. */
#include "mcf/mcf.h"
#include "mcf/orbital.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gsl/gsl_linalg.h>
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_permutation.h>

#include "ewald.h"
#include "heg.h"

#define SJ_STREAM_BASE 0x5c1a7e0000000000ULL /* the move streams (seed, base + chain) */
#define SJ_MAGIC 0x534a564d43303031ULL       /* "SJVMC001" */
#define SJ_LOAD_TOL 1e-6                     /* |Ainv A - 1| accepted on load */
/* determinants = auto hands the matrices to an evaluator that offers them from this many
 * electrons per spin on: on an H100 a device step costs ~15 us whatever m, the host's
 * Sherman-Morrison ~6.5 us (m / 57)^2 per move (docs/benchmarks.md), equal at m ~ 87 */
#define SJ_AUTO_EV_DETS 90

static const mcf_param_spec sj_params[] = {
    {"system", MCF_PARAM_CHOICE, "heg", MCF_PARAM_NO_SCAN, 0, 0, "heg",
     "the system: heg (homogeneous electron gas in a periodic cube)"},
    {"electrons", MCF_PARAM_INT, "14", MCF_PARAM_HAS_MIN | MCF_PARAM_HAS_MAX, 1,
     MCF_HEG_MAX_ELECTRONS, NULL,
     "total number of electrons N (closed shells: 2, 14, 38, 54, 66, 114, ... unpolarized)"},
    {"polarized", MCF_PARAM_BOOL, "false", MCF_PARAM_NO_SCAN, 0, 0, NULL,
     "true: all N electrons spin up; false: N/2 up and N/2 down"},
    {"rs", MCF_PARAM_REAL, "1", MCF_PARAM_HAS_MIN | MCF_PARAM_MIN_EXCLUSIVE, 0, 0, NULL,
     "density parameter r_s (bohr): (4/3) pi r_s^3 = volume per electron"},
    {"jastrow", MCF_PARAM_CHOICE, "none", MCF_PARAM_NO_SCAN, 0, 0, "none|rpa",
     "Jastrow factor: none (Slater determinant only) or rpa (u = -(1-r/rc)^3 (A/r)(1-e^-r/F))"},
    {"jastrow_a", MCF_PARAM_REAL, "0", MCF_PARAM_HAS_MIN, 0, 0, NULL,
     "rpa Jastrow amplitude A (bohr); 0 = the RPA value sqrt(rs^3/3); F from the cusps"},
    {"jastrow_cutoff", MCF_PARAM_REAL, "0", MCF_PARAM_HAS_MIN, 0, 0, NULL,
     "rpa Jastrow cutoff r_c (bohr), at most L/2; 0 = L/2"},
    {"move", MCF_PARAM_CHOICE, "pbp", MCF_PARAM_NO_SCAN, 0, 0, "pbp|qs",
     "pbp: particle-by-particle Metropolis (exact); qs: quasi-simultaneous, every ratio "
     "against the sweep's starting configuration (approximate: biased, see slater_jastrow.c)"},
    {"determinants", MCF_PARAM_CHOICE, "auto", MCF_PARAM_NO_SCAN, 0, 0, "auto|model|evaluator",
     "who keeps the Slater matrices and their inverses: auto = the evaluator when it offers "
     "determinant ops (blip-cuda: on the GPU), move = pbp and N_up >= 90, else the model"},
    {"step", MCF_PARAM_REAL, "0.5", MCF_PARAM_HAS_MIN | MCF_PARAM_MIN_EXCLUSIVE, 0, 0, NULL,
     "initial Gaussian step per component in units of rs; adapted while thermalizing to "
     "acceptance 0.5"},
    {NULL, 0, NULL, 0, 0, 0, NULL, NULL}};

static const mcf_observable_spec sj_observables[] = {
    {"energy", MCF_ROLE_ENERGY, "local energy per electron (hartree)", NULL, 0},
    {"kinetic", MCF_ROLE_NONE, "kinetic energy per electron (hartree)", NULL, 0},
    {"potential", MCF_ROLE_NONE, "Ewald potential energy per electron, with background (hartree)",
     NULL, 0},
    {"energy_sq", MCF_ROLE_NONE,
     "square of the local energy per electron; var(E_L) = N^2 (energy_sq - energy^2)", NULL, 0},
    {NULL, MCF_ROLE_NONE, NULL, NULL, 0}};

typedef struct sj_move {
    uint64_t e; /* the electron moved */
} sj_move;

typedef struct sj_jastrow {
    double A, F, rc; /* F per spin pair: see the header */
} sj_jastrow;

/* Accumulated wall times in seconds (MCF_TIMING=1; see the header). */
typedef struct sj_timing {
    double sweep, orbitals, det, update, jastrow;          /* per sweep */
    double measure, vgl, det_m, jastrow_m, ewald_m;        /* per measurement */
    double sweep_t0, sweep_share;                          /* the current sweep's start, 1/n */
    uint64_t sweeps, measurements;
} sj_timing;

typedef struct sj_chain {
    size_t n, n_up, n_dn, norb; /* electrons, per spin, orbitals (= n_up) */
    double L, rs, step;         /* cell side, r_s, Gaussian step (bohr) */
    int jastrow;                /* 0 none, 1 rpa */
    int qs;                     /* move = qs (quasi-simultaneous) */
    sj_jastrow jp[2];           /* [0] parallel, [1] antiparallel */
    const mcf_orbital_ops *ev;
    const char *ev_name;
    void *ws;
    int on_ev;         /* the evaluator keeps the determinants (det ops) */
    int announced;     /* on_ev, chain 0: the log says so (at the first sweep: the log file
                          opens after the chains are created) */
    void *det[2];      /* on_ev: its determinant of spin s (NULL when the spin is empty) */
    double *gD, *lD;   /* on_ev: n x 3 and n: grad_i D / D, lap_i D / D at measurement */
    mcf_ewald *ew;
    mcf_rng mv;        /* the move stream */
    double *r;         /* n x 3 positions in the cell */
    double *disp;      /* n x 3 displacements of this sweep */
    double *trial;     /* n x 3 trial positions of this sweep */
    double *trial_phi; /* n x norb orbital values at the trial positions */
    double *qs_lr;     /* move = qs: n log ratios against the start-of-sweep configuration */
    double *A[2];      /* rows: A[s][i * norb + l], i the electron within spin s */
    double *Ainv[2];   /* Ainv[s][l * m + i] (m = electrons of spin s) */
    double *w;         /* norb scratch */
    double *col;       /* norb scratch */
    double *phi, *grad, *lap; /* measure buffers: n x norb (x 3) */
    gsl_matrix *lu;
    gsl_matrix *inv;
    gsl_permutation *perm;
    size_t turn;                  /* the step within the sweep */
    uint64_t accepted_since;      /* accepted moves since the last recomputation */
    uint64_t refreshes;           /* recomputations done */
    double max_drift;             /* the largest drift measured */
    size_t index;                 /* the chain index (for the timing log) */
    sj_timing *tm;                /* MCF_TIMING=1: the timers; NULL otherwise */
} sj_chain;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---- helpers ------------------------------------------------------------------------ */

static size_t spin_of(const sj_chain *c, size_t e) { return e < c->n_up ? 0 : 1; }
static size_t index_in_spin(const sj_chain *c, size_t e) { return e < c->n_up ? e : e - c->n_up; }
static size_t spin_count(const sj_chain *c, size_t s) { return s == 0 ? c->n_up : c->n_dn; }

static double wrap(double x, double L)
{
    double y = x - L * floor(x / L);
    return y >= L ? y - L : y;
}

/* Nearest-image separation ri - rj, returns its length. */
static double min_image(const sj_chain *c, const double *ri, const double *rj, double d[3])
{
    double s2 = 0.0;
    for (int a = 0; a < 3; a++) {
        double x = ri[a] - rj[a];
        x -= c->L * nearbyint(x / c->L);
        d[a] = x;
        s2 += x * x;
    }
    return sqrt(s2);
}

/* u(r), u'(r), u''(r) of the rpa Jastrow for the parameter set p (see the header). */
static void jastrow_u(const sj_jastrow *p, double r, double *u, double *du, double *d2u)
{
    if (r >= p->rc) {
        *u = *du = *d2u = 0.0;
        return;
    }
    const double A = p->A, F = p->F, x = 1.0 - r / p->rc;
    const double t = x * x * x, t1 = -3.0 * x * x / p->rc, t2 = 6.0 * x / (p->rc * p->rc);
    double h, h1, h2;
    if (r < 1e-6 * F) { /* series: h = -A/F + A r/(2F^2) - A r^2/(6F^3) */
        h = -A / F + A * r / (2 * F * F) - A * r * r / (6 * F * F * F);
        h1 = A / (2 * F * F) - A * r / (3 * F * F * F);
        h2 = -A / (3 * F * F * F);
    } else {
        const double E = exp(-r / F), omE = -expm1(-r / F);
        h = -A * omE / r;
        h1 = A * omE / (r * r) - A * E / (F * r);
        h2 = -2.0 * A * omE / (r * r * r) + 2.0 * A * E / (F * r * r) + A * E / (F * F * r);
    }
    *u = t * h;
    *du = t1 * h + t * h1;
    *d2u = t2 * h + 2.0 * t1 * h1 + t * h2;
}

/* u(r) alone: the same operations as jastrow_u's value, so the same bits, without the
 * derivatives (and their exp) that a ratio does not need. */
static double jastrow_u_value(const sj_jastrow *p, double r)
{
    if (r >= p->rc)
        return 0.0;
    const double A = p->A, F = p->F, x = 1.0 - r / p->rc;
    const double t = x * x * x;
    double h;
    if (r < 1e-6 * F)
        h = -A / F + A * r / (2 * F * F) - A * r * r / (6 * F * F * F);
    else
        h = -A * -expm1(-r / F) / r;
    return t * h;
}

/* Sum over j != e of u(|x - r_j|) (x the position of electron e, old or trial). */
static double jastrow_one(const sj_chain *c, size_t e, const double *x)
{
    double sum = 0.0, d[3];
    const size_t se = spin_of(c, e);
    for (size_t j = 0; j < c->n; j++) {
        if (j == e)
            continue;
        const double r = min_image(c, x, c->r + 3 * j, d);
        sum += jastrow_u_value(&c->jp[spin_of(c, j) == se ? 0 : 1], r);
    }
    return sum;
}

/* Inverse of the m x m matrix of rows A (row-major) into Ainv by GSL LU; MCF_EINVAL if
 * singular.  Ainv[l * m + i]: Ainv is the matrix inverse (A Ainv = 1). */
static int invert(sj_chain *c, const double *A, size_t m, double *Ainv)
{
    gsl_matrix_view lu = gsl_matrix_submatrix(c->lu, 0, 0, m, m);
    gsl_matrix_view inv = gsl_matrix_submatrix(c->inv, 0, 0, m, m);
    gsl_permutation *p = c->perm;
    p->size = m;
    for (size_t i = 0; i < m; i++)
        for (size_t l = 0; l < m; l++)
            gsl_matrix_set(&lu.matrix, i, l, A[i * m + l]);
    int sign;
    if (gsl_linalg_LU_decomp(&lu.matrix, p, &sign))
        return MCF_EINVAL;
    for (size_t i = 0; i < m; i++)
        if (gsl_matrix_get(&lu.matrix, i, i) == 0.0)
            return MCF_EINVAL;
    if (gsl_linalg_LU_invert(&lu.matrix, p, &inv.matrix))
        return MCF_EINVAL;
    for (size_t l = 0; l < m; l++)
        for (size_t i = 0; i < m; i++)
            Ainv[l * m + i] = gsl_matrix_get(&inv.matrix, l, i);
    return MCF_OK;
}

/* max |Ainv A - 1| over the entries (m x m). */
static double drift(const double *A, const double *Ainv, size_t m)
{
    double worst = 0.0;
    for (size_t l = 0; l < m; l++)
        for (size_t j = 0; j < m; j++) {
            double s = 0.0;
            for (size_t i = 0; i < m; i++)
                s += Ainv[l * m + i] * A[i * m + j];
            const double d = fabs(s - (l == j ? 1.0 : 0.0));
            if (d > worst)
                worst = d;
        }
    return worst;
}

/* Fills the rows A from phi (n x norb at the electrons) and inverts them. */
static int rows_from_phi(sj_chain *c, const double *phi, double *A_out[2])
{
    for (size_t s = 0; s < 2; s++) {
        const size_t m = spin_count(c, s), first = s == 0 ? 0 : c->n_up;
        for (size_t i = 0; i < m; i++)
            memcpy(A_out[s] + i * m, phi + (first + i) * c->norb, m * sizeof(double));
    }
    return MCF_OK;
}

static int refresh_inverses(sj_chain *c, int measure)
{
    for (size_t s = 0; s < 2; s++) {
        const size_t m = spin_count(c, s);
        if (!m)
            continue;
        if (measure) {
            const double d = drift(c->A[s], c->Ainv[s], m);
            if (d > c->max_drift)
                c->max_drift = d;
            mcf_log(MCF_LOG_DEBUG, "slater-jastrow: spin %s, after %llu accepted moves: "
                    "Sherman-Morrison drift max|Ainv A - 1| = %.3e", s ? "down" : "up",
                    (unsigned long long)c->accepted_since, d);
        }
        if (invert(c, c->A[s], m, c->Ainv[s]))
            return mcf_fail(MCF_EINTERNAL, "slater-jastrow: the %s-spin Slater matrix is "
                            "singular (two electrons of one spin at the same point?)",
                            s ? "down" : "up");
    }
    c->accepted_since = 0;
    c->refreshes++;
    return MCF_OK;
}

/* Orbital values of one chain at its current positions into c->phi. */
static int values_here(sj_chain *c)
{
    void *ws[1] = {c->ws};
    const double *rr[1] = {c->r};
    size_t np[1] = {c->n};
    double *ph[1] = {c->phi};
    int rc = c->ev->values(ws, 1, rr, np, ph);
    return rc ? mcf_fail_prefix(rc, "slater-jastrow: evaluator %s: values", c->ev_name) : MCF_OK;
}

/* ---- determinants kept by the evaluator (on_ev) ------------------------------------------ */

/* The first electron of spin s. */
static size_t spin_first(const sj_chain *c, size_t s) { return s == 0 ? 0 : c->n_up; }

/* Hands the host's rows and inverses (and the positions) to the evaluator's determinants. */
static int push_dets(sj_chain *c)
{
    for (size_t s = 0; s < 2; s++) {
        if (!c->det[s])
            continue;
        int rc = c->ev->det_set(c->det[s], c->r + 3 * spin_first(c, s), c->A[s], c->Ainv[s]);
        if (rc)
            return mcf_fail_prefix(rc, "slater-jastrow: evaluator %s: det_set", c->ev_name);
    }
    return MCF_OK;
}

/* Copies the evaluator's rows and inverses into the host's A and Ainv (for a checkpoint). */
static int pull_dets(sj_chain *c)
{
    for (size_t s = 0; s < 2; s++) {
        if (!c->det[s])
            continue;
        int rc = c->ev->det_get(c->det[s], NULL, c->A[s], c->Ainv[s]);
        if (rc)
            return mcf_fail_prefix(rc, "slater-jastrow: evaluator %s: det_get", c->ev_name);
    }
    return MCF_OK;
}

/* Every N accepted moves: the evaluator measures the drift and restores its inverses (a
 * Newton step); a drift of 0.25 or more is recomputed here by LU from the rows. */
static int refresh_on_ev(sj_chain *c)
{
    void *dets[2];
    size_t spin[2], nd = 0;
    double drift[2];
    for (size_t s = 0; s < 2; s++)
        if (c->det[s]) {
            dets[nd] = c->det[s];
            spin[nd++] = s;
        }
    int rc = c->ev->det_refresh(dets, nd, drift);
    if (rc)
        return mcf_fail_prefix(rc, "slater-jastrow: evaluator %s: det_refresh", c->ev_name);
    for (size_t k = 0; k < nd; k++) {
        const size_t s = spin[k], m = spin_count(c, s);
        if (drift[k] > c->max_drift || drift[k] != drift[k])
            c->max_drift = drift[k];
        mcf_log(MCF_LOG_DEBUG, "slater-jastrow: spin %s, after %llu accepted moves: "
                "Sherman-Morrison drift max|Ainv A - 1| = %.3e (evaluator %s)",
                s ? "down" : "up", (unsigned long long)c->accepted_since, drift[k],
                c->ev_name);
        if (drift[k] < 0.25)
            continue;
        if ((rc = c->ev->det_get(dets[k], NULL, c->A[s], c->Ainv[s])))
            return mcf_fail_prefix(rc, "slater-jastrow: evaluator %s: det_get", c->ev_name);
        if (invert(c, c->A[s], m, c->Ainv[s]))
            return mcf_fail(MCF_EINTERNAL, "slater-jastrow: the %s-spin Slater matrix is "
                            "singular (two electrons of one spin at the same point?)",
                            s ? "down" : "up");
        rc = c->ev->det_set(dets[k], c->r + 3 * spin_first(c, s), c->A[s], c->Ainv[s]);
        if (rc)
            return mcf_fail_prefix(rc, "slater-jastrow: evaluator %s: det_set", c->ev_name);
        const double *rt[1] = {c->trial + 3 * spin_first(c, s)}; /* det_set forgot them */
        if ((rc = c->ev->det_trial(&dets[k], 1, rt)))
            return mcf_fail_prefix(rc, "slater-jastrow: evaluator %s: det_trial", c->ev_name);
    }
    c->accepted_since = 0;
    c->refreshes++;
    return MCF_OK;
}

/* ---- create / destroy ------------------------------------------------------------------ */

static void sj_destroy(void *chain)
{
    sj_chain *c = chain;
    if (!c)
        return;
    if (c->refreshes)
        mcf_log(MCF_LOG_DEBUG, "slater-jastrow: %llu recomputations of the inverses, largest "
                "Sherman-Morrison drift %.3e", (unsigned long long)c->refreshes, c->max_drift);
    if (c->tm) {
        const sj_timing *t = c->tm;
        const double ps = t->sweeps ? 1e3 / (double)t->sweeps : 0.0;
        const double pm = t->measurements ? 1e3 / (double)t->measurements : 0.0;
        mcf_log(MCF_LOG_INFO, "slater-jastrow timing chain %zu: per sweep %.4f ms (orbitals "
                "%.4f ms, determinant ratios %.4f, updates %.4f, Jastrow %.4f, Ewald %.4f); "
                "per measurement %.4f ms (vgl %.4f, determinant %.4f, Jastrow %.4f, Ewald "
                "%.4f); %llu sweeps, %llu measurements", c->index, t->sweep * ps,
                t->orbitals * ps, t->det * ps, t->update * ps, t->jastrow * ps, 0.0,
                t->measure * pm, t->vgl * pm, t->det_m * pm, t->jastrow_m * pm,
                t->ewald_m * pm, (unsigned long long)t->sweeps,
                (unsigned long long)t->measurements);
        free(c->tm);
    }
    for (int s = 0; s < 2; s++)
        if (c->det[s])
            c->ev->det_destroy(c->det[s]);
    if (c->ws)
        c->ev->destroy(c->ws);
    mcf_ewald_destroy(c->ew);
    free(c->gD);
    free(c->lD);
    free(c->r);
    free(c->disp);
    free(c->trial);
    free(c->trial_phi);
    free(c->qs_lr);
    for (int s = 0; s < 2; s++) {
        free(c->A[s]);
        free(c->Ainv[s]);
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

/* The real plane-wave orbitals of the occupied closed shell (see the header). */
static int build_orbitals(size_t norb, double L, int32_t **g_out, double **a_out,
                          double **b_out, size_t *ng_out)
{
    int *nv = malloc(3 * norb * sizeof *nv);
    size_t ng = (norb + 1) / 2;
    int32_t *g = calloc(3 * ng, sizeof *g);
    double *a = calloc(norb * ng, sizeof *a), *b = calloc(norb * ng, sizeof *b);
    if (!nv || !g || !a || !b) {
        free(nv), free(g), free(a), free(b);
        return mcf_fail(MCF_ENOMEM, "slater-jastrow: out of memory for the orbitals");
    }
    int rc = mcf_heg_occupied(norb, L, nv, NULL);
    if (rc) {
        free(nv), free(g), free(a), free(b);
        return rc;
    }
    size_t gi = 0, l = 0;
    for (size_t k = 0; k < norb; k++) {
        const int *m = nv + 3 * k;
        const int zero = m[0] == 0 && m[1] == 0 && m[2] == 0;
        const int half = m[0] > 0 || (m[0] == 0 && (m[1] > 0 || (m[1] == 0 && m[2] > 0)));
        if (!zero && !half)
            continue; /* -k: its pair is made with +k */
        for (int d = 0; d < 3; d++)
            g[3 * gi + d] = m[d];
        a[l * ng + gi] = 1.0; /* cos(k.r), or 1 for k = 0 */
        l++;
        if (!zero) {
            b[l * ng + gi] = 1.0; /* sin(k.r) */
            l++;
        }
        gi++;
    }
    free(nv);
    if (gi != ng || l != norb) {
        free(g), free(a), free(b);
        return mcf_fail(MCF_EINTERNAL, "slater-jastrow: the occupied shell of %zu orbitals is "
                        "not closed under k -> -k (a bug, please report it)", norb);
    }
    *g_out = g;
    *a_out = a;
    *b_out = b;
    *ng_out = ng;
    return MCF_OK;
}

static int sj_create(const mcf_params *params, const mcf_services *services, mcf_rng *rng,
                     void **out)
{
    const char *origin = mcf_params_origin(params), *sec = mcf_params_section(params);
    const char *system, *jastrow, *move, *dets;
    long n_el;
    int polarized, rc;
    double rs, ja, jrc, step;
    if ((rc = mcf_params_string(params, "system", &system)) ||
        (rc = mcf_params_int(params, "electrons", &n_el)) ||
        (rc = mcf_params_bool(params, "polarized", &polarized)) ||
        (rc = mcf_params_real(params, "rs", &rs)) ||
        (rc = mcf_params_string(params, "jastrow", &jastrow)) ||
        (rc = mcf_params_real(params, "jastrow_a", &ja)) ||
        (rc = mcf_params_real(params, "jastrow_cutoff", &jrc)) ||
        (rc = mcf_params_string(params, "move", &move)) ||
        (rc = mcf_params_string(params, "determinants", &dets)) ||
        (rc = mcf_params_real(params, "step", &step)))
        return rc;
    if (strcmp(system, "heg") != 0)
        return mcf_fail(MCF_EINVAL, "slater-jastrow: [%s] system = %s in %s: only heg is "
                        "implemented; set system = heg", sec, system, origin);
    if (!(rs > 0.0) || !isfinite(rs))
        return mcf_fail(MCF_EINVAL, "slater-jastrow: [%s] rs = %g in %s: the density parameter "
                        "must be positive and finite; set e.g. rs = 1", sec, rs, origin);
    size_t n_up, n_dn;
    if ((rc = mcf_heg_electrons((size_t)n_el, polarized, &n_up, &n_dn)))
        return mcf_fail_prefix(rc, "slater-jastrow: [%s] electrons = %ld (polarized = %s) in %s",
                               sec, n_el, polarized ? "true" : "false", origin);
    double L;
    if ((rc = mcf_heg_cell_side(rs, (size_t)n_el, &L)))
        return mcf_fail_prefix(rc, "slater-jastrow: [%s] rs = %g in %s", sec, rs, origin);
    const int use_j = strcmp(jastrow, "rpa") == 0;
    if (use_j && jrc > 0.5 * L)
        return mcf_fail(MCF_EINVAL, "slater-jastrow: [%s] jastrow_cutoff = %g in %s is beyond "
                        "the Wigner-Seitz radius L/2 = %.6g bohr of the cell (N = %ld, rs = %g, "
                        "L = %.6g); set jastrow_cutoff <= %.6g, or 0 for L/2",
                        sec, jrc, origin, 0.5 * L, n_el, rs, L, 0.5 * L);

    const mcf_plugin_info *ev_info =
        services->struct_size >= offsetof(mcf_services, evaluator_params) +
                                     sizeof services->evaluator_params
            ? services->evaluator
            : NULL;
    if (!ev_info)
        return mcf_fail(MCF_EINVAL, "slater-jastrow: [run] evaluator = none in %s, but the "
                        "Slater determinants need orbitals; set [run] evaluator = planewave "
                        "(exact) or blip", origin);
    if (ev_info->kind != MCF_PLUGIN_ORBITAL_EVALUATOR)
        return mcf_fail(MCF_EINVAL, "slater-jastrow: [run] evaluator = %s in %s is not an "
                        "orbital evaluator; set [run] evaluator = planewave or blip",
                        ev_info->name, origin);
    const mcf_orbital_ops *ev = ev_info->ops;
    if (!ev || ev->struct_size < offsetof(mcf_orbital_ops, vgl) + sizeof ev->vgl ||
        !ev->create || !ev->destroy || !ev->values || !ev->vgl)
        return mcf_fail(MCF_EINVAL, "slater-jastrow: [run] evaluator = %s in %s lacks the "
                        "values/vgl operations; set [run] evaluator = planewave or blip",
                        ev_info->name, origin);

    const int has_det = ev->struct_size >= MCF_ORBITAL_OPS_DET_SIZE && ev->det_create;
    const int is_qs = strcmp(move, "qs") == 0;
    if (strcmp(dets, "evaluator") == 0 && !has_det)
        return mcf_fail(MCF_EINVAL, "slater-jastrow: [%s] determinants = evaluator in %s, but "
                        "evaluator %s keeps no determinants (blip-cuda does); set "
                        "determinants = auto or model", sec, origin, ev_info->name);
    if (strcmp(dets, "evaluator") == 0 && is_qs)
        return mcf_fail(MCF_EINVAL, "slater-jastrow: [%s] determinants = evaluator in %s works "
                        "with move = pbp only (qs takes every ratio against the sweep's "
                        "start); set determinants = auto or model, or move = pbp", sec, origin);
    const int on_ev = has_det && !is_qs &&
                      (strcmp(dets, "evaluator") == 0 ||
                       (strcmp(dets, "auto") == 0 && n_up >= SJ_AUTO_EV_DETS));

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
    c->ev = ev;
    c->ev_name = ev_info->name;
    c->jastrow = use_j;
    c->qs = strcmp(move, "qs") == 0;
    c->index = services->chain_index;
    {
        const char *tv = getenv("MCF_TIMING");
        if (tv && strcmp(tv, "1") == 0 && !(c->tm = calloc(1, sizeof *c->tm))) {
            free(c);
            return mcf_fail(MCF_ENOMEM, "slater-jastrow: out of memory for the timers");
        }
    }
    if (use_j) {
        const double A = ja > 0.0 ? ja : sqrt(rs * rs * rs / 3.0);
        const double rcut = jrc > 0.0 ? jrc : 0.5 * L;
        for (int k = 0; k < 2; k++) {
            const double gamma = k == 0 ? 0.25 : 0.5, b = 3.0 * A / rcut;
            c->jp[k].A = A;
            c->jp[k].rc = rcut;
            c->jp[k].F = (b + sqrt(b * b + 2.0 * gamma * A)) / (2.0 * gamma);
        }
        mcf_log(MCF_LOG_INFO, "slater-jastrow: rpa Jastrow A = %.6g bohr, cutoff %.6g bohr "
                "(L/2 = %.6g), F = %.6g (parallel), %.6g (antiparallel)", A, rcut, 0.5 * L,
                c->jp[0].F, c->jp[1].F);
    }
    mcf_rng_init(&c->mv, services->seed, SJ_STREAM_BASE + services->chain_index);

    const size_t n = c->n, no = c->norb;
    c->r = malloc(3 * n * sizeof *c->r);
    c->disp = malloc(3 * n * sizeof *c->disp);
    c->trial = malloc(3 * n * sizeof *c->trial);
    c->trial_phi = malloc(n * no * sizeof *c->trial_phi);
    c->qs_lr = malloc(n * sizeof *c->qs_lr);
    c->phi = malloc(n * no * sizeof *c->phi);
    c->grad = malloc(3 * n * no * sizeof *c->grad);
    c->lap = malloc(n * no * sizeof *c->lap);
    c->w = malloc(no * sizeof *c->w);
    c->col = malloc(no * sizeof *c->col);
    int bad = !c->r || !c->disp || !c->trial || !c->trial_phi || !c->qs_lr || !c->phi ||
              !c->grad || !c->lap || !c->w || !c->col;
    for (int s = 0; s < 2 && !bad; s++) {
        const size_t m = spin_count(c, (size_t)s);
        c->A[s] = malloc((m ? m * m : 1) * sizeof(double));
        c->Ainv[s] = malloc((m ? m * m : 1) * sizeof(double));
        bad = !c->A[s] || !c->Ainv[s];
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
    rc = ev->create(services->evaluator_params, &orb, &c->ws);
    free(g);
    free(a);
    free(b);
    if (rc) {
        c->ws = NULL;
        sj_destroy(c);
        return mcf_fail_prefix(rc, "slater-jastrow: evaluator %s", ev_info->name);
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
        for (size_t s = 0; s < 2; s++) {
            const size_t m = spin_count(c, s);
            if (m && (rc = ev->det_create(c->ws, m, &c->det[s]))) {
                c->det[s] = NULL;
                sj_destroy(c);
                return mcf_fail_prefix(rc, "slater-jastrow: evaluator %s: det_create",
                                       ev_info->name);
            }
        }
        if ((rc = push_dets(c))) {
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

static size_t sj_units(const void *chain) { return ((const sj_chain *)chain)->n; }

/* ---- the sweep ---------------------------------------------------------------------------- */

/* The determinant ratio of moving electron e to its trial position. */
static double det_ratio(const sj_chain *c, size_t e)
{
    const size_t s = spin_of(c, e), i = index_in_spin(c, e), m = spin_count(c, s);
    const double *v = c->trial_phi + e * c->norb, *Ai = c->Ainv[s];
    double R = 0.0;
    for (size_t l = 0; l < m; l++)
        R += v[l] * Ai[l * m + i];
    return R;
}

/* log |Psi(R with r_e -> trial_e) / Psi(R)|^2 against the chain's current configuration. */
static double log_ratio_now(const sj_chain *c, size_t e)
{
    sj_timing *t = c->tm;
    const double t0 = t ? now_s() : 0.0;
    const double R = det_ratio(c, e);
    double lr = R == 0.0 ? -INFINITY : 2.0 * log(fabs(R));
    const double t1 = t ? now_s() : 0.0;
    if (t)
        t->det += t1 - t0;
    if (c->jastrow) {
        lr += 2.0 * (jastrow_one(c, e, c->trial + 3 * e) - jastrow_one(c, e, c->r + 3 * e));
        if (t)
            t->jastrow += now_s() - t1;
    }
    return lr;
}

static int sj_begin_sweep(void *const *chains, size_t n)
{
    enum { BATCH = 64 };
    for (size_t k0 = 0; k0 < n; k0 += BATCH) {
        const size_t nb = n - k0 < BATCH ? n - k0 : BATCH;
        void *ws[BATCH];
        const double *rr[BATCH];
        size_t np[BATCH];
        double *ph[BATCH];
        for (size_t k = 0; k < nb; k++) {
            sj_chain *c = chains[k0 + k];
            if (c->tm) {
                c->tm->sweep_t0 = now_s();
                c->tm->sweep_share = 1.0 / (double)n;
                c->tm->sweeps++;
            }
            for (size_t i = 0; i < 3 * c->n; i++) {
                c->disp[i] = c->step * mcf_rng_normal(&c->mv);
                c->trial[i] = c->r[i] + c->disp[i];
                if (c->on_ev) /* the evaluator's positions then stay those of c->r */
                    c->trial[i] = wrap(c->trial[i], c->L);
            }
            c->turn = 0;
            if (c->on_ev && c->index == 0 && !c->announced) {
                mcf_log(MCF_LOG_INFO, "slater-jastrow: the Slater determinants are kept by "
                        "evaluator %s (determinants = auto or evaluator; model keeps them on "
                        "the host)", c->ev_name);
                c->announced = 1;
            }
            ws[k] = c->ws;
            rr[k] = c->trial;
            np[k] = c->n;
            ph[k] = c->trial_phi;
        }
        const sj_chain *c0 = chains[k0];
        for (size_t k = 1; k < nb; k++)
            if (((const sj_chain *)chains[k0 + k])->ev != c0->ev ||
                ((const sj_chain *)chains[k0 + k])->on_ev != c0->on_ev)
                return mcf_fail(MCF_EINTERNAL, "slater-jastrow: one batch holds chains with "
                                "different evaluators (a bug, please report it)");
        const double tv0 = c0->tm ? now_s() : 0.0;
        int rc;
        if (c0->on_ev) { /* the trial rows stay with the evaluator's determinants */
            void *dets[2 * BATCH];
            const double *rt[2 * BATCH];
            size_t nd = 0;
            for (size_t k = 0; k < nb; k++) {
                sj_chain *c = chains[k0 + k];
                for (size_t sp = 0; sp < 2; sp++)
                    if (c->det[sp]) {
                        dets[nd] = c->det[sp];
                        rt[nd++] = c->trial + 3 * spin_first(c, sp);
                    }
            }
            rc = c0->ev->det_trial(dets, nd, rt);
            if (rc)
                return mcf_fail_prefix(rc, "slater-jastrow: evaluator %s: det_trial",
                                       c0->ev_name);
        } else if ((rc = c0->ev->values(ws, nb, rr, np, ph)))
            return mcf_fail_prefix(rc, "slater-jastrow: evaluator %s: values", c0->ev_name);
        if (c0->tm) {
            const double share = (now_s() - tv0) / (double)nb;
            for (size_t k = 0; k < nb; k++) {
                sj_timing *t = ((sj_chain *)chains[k0 + k])->tm;
                if (t)
                    t->orbitals += share;
            }
        }
        /* move = qs: every ratio against the configuration R^(alpha) at the sweep's start */
        for (size_t k = 0; k < nb; k++) {
            sj_chain *c = chains[k0 + k];
            if (c->qs)
                for (size_t e = 0; e < c->n; e++)
                    c->qs_lr[e] = log_ratio_now(c, e);
        }
    }
    return MCF_OK;
}

static int sj_propose(void *chain, mcf_rng *rng, void *move)
{
    (void)rng; /* the displacements were drawn in begin_sweep from the move stream */
    const sj_chain *c = chain;
    sj_move *m = move;
    if (c->turn >= c->n)
        return mcf_fail(MCF_EINTERNAL, "slater-jastrow: more than N = %zu proposals in a sweep "
                        "(the core must call begin_sweep every sweep)", c->n);
    m->e = c->turn;
    return MCF_OK;
}

/* log_ratio with the determinants on the evaluator: one det_ratio call per 64 chains. */
static int log_ratio_on_ev(void *const *chains, const sj_move *mv, size_t n, double *out)
{
    enum { BATCH = 64 };
    for (size_t k0 = 0; k0 < n; k0 += BATCH) {
        const size_t nb = n - k0 < BATCH ? n - k0 : BATCH;
        void *dets[BATCH];
        size_t el[BATCH];
        double R[BATCH];
        const sj_chain *c0 = chains[k0];
        for (size_t k = 0; k < nb; k++) {
            const sj_chain *c = chains[k0 + k];
            const size_t e = (size_t)mv[k0 + k].e;
            if (!c->on_ev || c->ev != c0->ev)
                return mcf_fail(MCF_EINTERNAL, "slater-jastrow: one batch holds chains with "
                                "different evaluators (a bug, please report it)");
            dets[k] = c->det[spin_of(c, e)];
            el[k] = index_in_spin(c, e);
        }
        const double t0 = c0->tm ? now_s() : 0.0;
        int rc = c0->ev->det_ratio(dets, nb, el, R);
        if (rc)
            return mcf_fail_prefix(rc, "slater-jastrow: evaluator %s: det_ratio", c0->ev_name);
        const double share = c0->tm ? (now_s() - t0) / (double)nb : 0.0;
        /* the chains' Jastrow ratios are independent: spread over the cores (a device
         * evaluator's batch steps on one thread); each is computed as alone */
#pragma omp parallel for schedule(static) if (nb > 1)
        for (size_t k = 0; k < nb; k++) {
            const sj_chain *c = chains[k0 + k];
            const size_t e = (size_t)mv[k0 + k].e;
            double lr = R[k] == 0.0 ? -INFINITY : 2.0 * log(fabs(R[k]));
            const double t1 = c->tm ? now_s() : 0.0;
            if (c->jastrow)
                lr += 2.0 * (jastrow_one(c, e, c->trial + 3 * e) -
                             jastrow_one(c, e, c->r + 3 * e));
            if (c->tm) {
                c->tm->det += share;
                c->tm->jastrow += now_s() - t1;
            }
            out[k0 + k] = lr;
        }
    }
    return MCF_OK;
}

static int sj_log_ratio(void *const *chains, const void *moves, size_t n, double *out)
{
    const sj_move *mv = moves;
    if (n && ((const sj_chain *)chains[0])->on_ev)
        return log_ratio_on_ev(chains, mv, n, out);
#pragma omp parallel for schedule(static) if (n > 1)
    for (size_t k = 0; k < n; k++) {
        const sj_chain *c = chains[k];
        const size_t e = (size_t)mv[k].e;
        out[k] = c->qs ? c->qs_lr[e] : log_ratio_now(c, e);
    }
    return MCF_OK;
}

/* MCF_TIMING: after the chain's last accept/reject of the sweep, its share of the sweep. */
static void end_turn_timing(sj_chain *c, double t)
{
    if (c->turn == c->n)
        c->tm->sweep += (t - c->tm->sweep_t0) * c->tm->sweep_share;
}

static int accept_move(sj_chain *c, const void *move);

static int sj_accept(void *chain, const void *move)
{
    sj_chain *c = chain;
    const double t0 = c->tm ? now_s() : 0.0;
    int rc = accept_move(c, move);
    if (c->tm) {
        const double t1 = now_s();
        c->tm->update += t1 - t0;
        end_turn_timing(c, t1);
    }
    return rc;
}

static int accept_move(sj_chain *c, const void *move)
{
    const size_t e = (size_t)((const sj_move *)move)->e;
    const size_t s = spin_of(c, e), i = index_in_spin(c, e), m = spin_count(c, s);
    if (c->on_ev) {
        int rc = c->ev->det_accept(c->det[s], i);
        if (rc)
            return mcf_fail_prefix(rc, "slater-jastrow: evaluator %s: det_accept", c->ev_name);
        for (int a = 0; a < 3; a++)
            c->r[3 * e + a] = c->trial[3 * e + a]; /* wrapped in begin_sweep */
        c->turn++;
        if (++c->accepted_since >= c->n)
            return refresh_on_ev(c);
        return MCF_OK;
    }
    const double *v = c->trial_phi + e * c->norb;
    double *Ai = c->Ainv[s], *w = c->w, *col = c->col;
    for (size_t j = 0; j < m; j++) {
        double x = 0.0;
        for (size_t l = 0; l < m; l++)
            x += v[l] * Ai[l * m + j];
        w[j] = x;
    }
    const double R = w[i]; /* against the current configuration (for qs: not the ratio used) */
    if (R == 0.0 || !isfinite(R)) {
        if (c->qs)
            return mcf_fail(MCF_EINTERNAL, "slater-jastrow: move = qs: the moves accepted in "
                            "this sweep together make the Slater matrix singular (ratio %g); "
                            "use move = pbp", R);
        return mcf_fail(MCF_EINTERNAL, "slater-jastrow: accepted a move with determinant "
                        "ratio %g (a bug, please report it)", R);
    }
    for (size_t l = 0; l < m; l++)
        col[l] = Ai[l * m + i] / R;
    for (size_t l = 0; l < m; l++) {
        double *row = Ai + l * m;
        for (size_t j = 0; j < m; j++)
            row[j] -= col[l] * (w[j] - (j == i ? 1.0 : 0.0));
    }
    memcpy(c->A[s] + i * m, v, m * sizeof *v);
    for (int a = 0; a < 3; a++)
        c->r[3 * e + a] = wrap(c->trial[3 * e + a], c->L);
    c->turn++;
    if (++c->accepted_since >= c->n)
        return refresh_inverses(c, 1);
    return MCF_OK;
}

static void sj_reject(void *chain, const void *move)
{
    (void)move;
    sj_chain *c = chain;
    c->turn++;
    if (c->tm)
        end_turn_timing(c, now_s());
}

static void sj_adapt(void *chain, double acceptance)
{
    sj_chain *c = chain;
    if (!(acceptance >= 0.0 && acceptance <= 1.0))
        return;
    double f = acceptance / 0.5;
    f = f < 0.5 ? 0.5 : f > 2.0 ? 2.0 : f;
    c->step *= f;
    if (c->step > c->L)
        c->step = c->L;
    if (c->step < 1e-4 * c->rs)
        c->step = 1e-4 * c->rs;
}

/* ---- measurement ---------------------------------------------------------------------- */

static void local_energy(sj_chain *c, double *values)
{
    const size_t n = c->n, no = c->norb;
    double kin = 0.0;
    sj_timing *t = c->tm;
    for (size_t e = 0; e < n; e++) {
        const double t0 = t ? now_s() : 0.0;
        const size_t s = spin_of(c, e), i = index_in_spin(c, e), m = spin_count(c, s);
        const double *Ai = c->Ainv[s];
        double gD[3] = {0, 0, 0}, lD = 0.0;
        if (c->on_ev) { /* from det_local */
            gD[0] = c->gD[3 * e];
            gD[1] = c->gD[3 * e + 1];
            gD[2] = c->gD[3 * e + 2];
            lD = c->lD[e];
        } else
            for (size_t l = 0; l < m; l++) {
                const double a = Ai[l * m + i];
                const double *g = c->grad + (e * no + l) * 3;
                gD[0] += g[0] * a;
                gD[1] += g[1] * a;
                gD[2] += g[2] * a;
                lD += c->lap[e * no + l] * a;
            }
        double gJ[3] = {0, 0, 0}, lJ = 0.0;
        const double t1 = t ? now_s() : 0.0;
        if (t)
            t->det_m += t1 - t0;
        if (c->jastrow) {
            for (size_t j = 0; j < n; j++) {
                if (j == e)
                    continue;
                double d[3], u, du, d2u;
                const double r = min_image(c, c->r + 3 * e, c->r + 3 * j, d);
                jastrow_u(&c->jp[spin_of(c, j) == s ? 0 : 1], r, &u, &du, &d2u);
                if (r <= 0.0)
                    continue;
                for (int a = 0; a < 3; a++)
                    gJ[a] += du * d[a] / r;
                lJ += d2u + 2.0 * du / r;
            }
            if (t)
                t->jastrow_m += now_s() - t1;
        }
        kin += lD + 2.0 * (gD[0] * gJ[0] + gD[1] * gJ[1] + gD[2] * gJ[2]) + lJ +
               gJ[0] * gJ[0] + gJ[1] * gJ[1] + gJ[2] * gJ[2];
    }
    kin *= -0.5 / (double)n;
    const double te = t ? now_s() : 0.0;
    mcf_ewald_set_positions(c->ew, c->r);
    const double pot = mcf_ewald_energy(c->ew, NULL) / (double)n;
    if (t)
        t->ewald_m += now_s() - te;
    values[0] = kin + pot;
    values[1] = kin;
    values[2] = pot;
    values[3] = (kin + pot) * (kin + pot);
}

static int sj_measure_batch(void *const *chains, size_t n, double *const *values)
{
    enum { BATCH = 64 };
    for (size_t k0 = 0; k0 < n; k0 += BATCH) {
        const size_t nb = n - k0 < BATCH ? n - k0 : BATCH;
        void *ws[BATCH];
        const double *rr[BATCH];
        size_t np[BATCH];
        double *ph[BATCH], *gr[BATCH], *lp[BATCH];
        for (size_t k = 0; k < nb; k++) {
            sj_chain *c = chains[k0 + k];
            ws[k] = c->ws;
            rr[k] = c->r;
            np[k] = c->n;
            ph[k] = c->phi;
            gr[k] = c->grad;
            lp[k] = c->lap;
        }
        const sj_chain *c0 = chains[k0];
        for (size_t k = 1; k < nb; k++)
            if (((const sj_chain *)chains[k0 + k])->ev != c0->ev)
                return mcf_fail(MCF_EINTERNAL, "slater-jastrow: one batch holds chains with "
                                "different evaluators (a bug, please report it)");
        const double t0 = c0->tm ? now_s() : 0.0;
        int rc;
        if (c0->on_ev) { /* grad D / D and lap D / D come from the evaluator's dets */
            void *dets[2 * BATCH];
            double *gd[2 * BATCH], *ld[2 * BATCH];
            size_t nd = 0;
            for (size_t k = 0; k < nb; k++) {
                sj_chain *c = chains[k0 + k];
                if (!c->on_ev)
                    return mcf_fail(MCF_EINTERNAL, "slater-jastrow: one batch holds chains "
                                    "with different evaluators (a bug, please report it)");
                for (size_t sp = 0; sp < 2; sp++)
                    if (c->det[sp]) {
                        dets[nd] = c->det[sp];
                        gd[nd] = c->gD + 3 * spin_first(c, sp);
                        ld[nd++] = c->lD + spin_first(c, sp);
                    }
            }
            if ((rc = c0->ev->det_local(dets, nd, gd, ld)))
                return mcf_fail_prefix(rc, "slater-jastrow: evaluator %s: det_local",
                                       c0->ev_name);
        } else if ((rc = c0->ev->vgl(ws, nb, rr, np, ph, gr, lp)))
            return mcf_fail_prefix(rc, "slater-jastrow: evaluator %s: vgl", c0->ev_name);
        const double vshare = c0->tm ? (now_s() - t0) / (double)nb : 0.0;
#pragma omp parallel for schedule(static) if (nb > 1)
        for (size_t k = 0; k < nb; k++) {
            sj_chain *c = chains[k0 + k];
            const double tl = c->tm ? now_s() : 0.0;
            local_energy(c, values[k0 + k]);
            if (c->tm) {
                c->tm->vgl += vshare;
                c->tm->measure += vshare + (now_s() - tl);
                c->tm->measurements++;
            }
        }
    }
    return MCF_OK;
}

static int sj_measure(void *chain, double *values)
{
    void *chains[1] = {chain};
    double *rows[1] = {values};
    return sj_measure_batch(chains, 1, rows);
}

/* ---- checkpoints ---------------------------------------------------------------------------- */

static int sj_save(const void *chain, mcf_stream *out)
{
    const sj_chain *c = chain;
    const uint64_t head[3] = {SJ_MAGIC, c->n, c->n_up};
    int rc;
    if (c->on_ev && (rc = pull_dets((sj_chain *)chain))) /* A, Ainv: host copies refreshed */
        return rc;
    if ((rc = mcf_stream_write(out, head, sizeof head)) ||
        (rc = mcf_stream_write(out, c->r, 3 * c->n * sizeof *c->r)))
        return rc;
    for (size_t s = 0; s < 2; s++) {
        const size_t m = spin_count(c, s);
        if ((rc = mcf_stream_write(out, c->A[s], m * m * sizeof(double))) ||
            (rc = mcf_stream_write(out, c->Ainv[s], m * m * sizeof(double))))
            return rc;
    }
    if ((rc = mcf_stream_write(out, &c->mv, sizeof c->mv)) ||
        (rc = mcf_stream_write(out, &c->step, sizeof c->step)) ||
        (rc = mcf_stream_write(out, &c->accepted_since, sizeof c->accepted_since)) ||
        (rc = mcf_stream_write(out, &c->refreshes, sizeof c->refreshes)) ||
        (rc = mcf_stream_write(out, &c->max_drift, sizeof c->max_drift)))
        return rc;
    return MCF_OK;
}

static int sj_load(void *chain, mcf_stream *in)
{
    sj_chain *c = chain;
    uint64_t head[3];
    int rc;
    if ((rc = mcf_stream_read(in, head, sizeof head)))
        return rc;
    if (head[0] != SJ_MAGIC || head[1] != c->n || head[2] != c->n_up)
        return mcf_fail(MCF_EFORMAT, "slater-jastrow: the checkpoint record is not a "
                        "slater-jastrow chain of N = %zu (N_up = %zu) electrons", c->n, c->n_up);
    if ((rc = mcf_stream_read(in, c->r, 3 * c->n * sizeof *c->r)))
        return rc;
    for (size_t s = 0; s < 2; s++) {
        const size_t m = spin_count(c, s);
        if ((rc = mcf_stream_read(in, c->A[s], m * m * sizeof(double))) ||
            (rc = mcf_stream_read(in, c->Ainv[s], m * m * sizeof(double))))
            return rc;
    }
    if ((rc = mcf_stream_read(in, &c->mv, sizeof c->mv)) ||
        (rc = mcf_stream_read(in, &c->step, sizeof c->step)) ||
        (rc = mcf_stream_read(in, &c->accepted_since, sizeof c->accepted_since)) ||
        (rc = mcf_stream_read(in, &c->refreshes, sizeof c->refreshes)) ||
        (rc = mcf_stream_read(in, &c->max_drift, sizeof c->max_drift)))
        return rc;
    for (size_t i = 0; i < 3 * c->n; i++)
        if (!isfinite(c->r[i]))
            return mcf_fail(MCF_EFORMAT, "slater-jastrow: checkpoint: a non-finite position");
    if (!(c->step > 0.0) || !isfinite(c->step))
        return mcf_fail(MCF_EFORMAT, "slater-jastrow: checkpoint: step %g is not positive",
                        c->step);
    /* check: the saved rows are the orbitals at the saved positions, and Ainv their inverse
     * (the orbitals are O(1), so 1e-6 absolute is far above rounding, far below an error) */
    if ((rc = values_here(c)))
        return rc;
    for (size_t s = 0; s < 2; s++) {
        const size_t m = spin_count(c, s), first = s == 0 ? 0 : c->n_up;
        for (size_t i = 0; i < m; i++)
            for (size_t l = 0; l < m; l++)
                if (!(fabs(c->A[s][i * m + l] - c->phi[(first + i) * c->norb + l]) <=
                      SJ_LOAD_TOL))
                    return mcf_fail(MCF_EFORMAT, "slater-jastrow: checkpoint: the saved Slater "
                                    "matrix does not match the orbitals at the saved positions "
                                    "(a different evaluator or cell?)");
        const double d = m ? drift(c->A[s], c->Ainv[s], m) : 0.0;
        if (!(d <= SJ_LOAD_TOL))
            return mcf_fail(MCF_EFORMAT, "slater-jastrow: checkpoint: the saved inverse Slater "
                            "matrix is off by %g (max |Ainv A - 1|)", d);
    }
    if (c->on_ev && (rc = push_dets(c)))
        return rc;
    return mcf_ewald_set_positions(c->ew, c->r);
}

static const mcf_model_ops sj_ops = {
    .struct_size = sizeof(mcf_model_ops),
    .move_size = sizeof(sj_move),
    .observables = sj_observables,
    .create = sj_create,
    .destroy = sj_destroy,
    .units = sj_units,
    .begin_sweep = sj_begin_sweep,
    .propose = sj_propose,
    .log_ratio = sj_log_ratio,
    .accept = sj_accept,
    .reject = sj_reject,
    .measure = sj_measure,
    .save = sj_save,
    .load = sj_load,
    .adapt = sj_adapt,
    .curve_points = NULL,
    .measure_batch = sj_measure_batch,
    .evaluator_kind = MCF_PLUGIN_ORBITAL_EVALUATOR,
};

static const mcf_plugin_info sj_info = {
    .abi_version = MCF_ABI_VERSION,
    .struct_size = sizeof(mcf_plugin_info),
    .kind = MCF_PLUGIN_MODEL,
    .name = "slater-jastrow",
    .version = "0.1.0",
    .summary = "Slater-Jastrow VMC of the homogeneous electron gas (orbitals from an orbital "
               "evaluator, Ewald interaction)",
    .params = sj_params,
    .ops = &sj_ops,
};

MCF_PLUGIN(sj_info)
