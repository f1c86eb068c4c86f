/* slater_jastrow_internal.h — what the files of the slater-jastrow model share: the chain
 * (sj_chain: one walker's parameters, positions, Slater matrices, scratch and timers), the
 * index helpers, and the functions one file defines for another.  Not installed and no
 * interface: the plugin exports only its descriptor (slater_jastrow.c, whose header says
 * which file holds what).  Every function here reports its errors through mcf_fail and
 * returns the MCF_E* code, unless it says otherwise.
 *
 * The model is written against ABI 2 (docs/sdk-1.md): its table is an mcf_model, and it
 * reaches its orbital evaluator only through ABI 2's helpers of mcf/orbital_model.h (the
 * chain's mcf_orbital handle for the calls of one workspace, the core's batch for the
 * batched ones), so the evaluator may be of either ABI. */
#ifndef MCF_SLATER_JASTROW_INTERNAL_H
#define MCF_SLATER_JASTROW_INTERNAL_H

#include "mcf/mcf.h"
#include "mcf/orbital.h"
#include "mcf/orbital_model.h"

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <gsl/gsl_matrix.h>
#include <gsl/gsl_permutation.h>

#include "ewald.h"
#include "sj_delayed.h"

/* The chains of one evaluator call (the batches of sweep, propose, measure). */
#define SJ_BATCH 64

/* The move the core carries from propose to apply. */
typedef struct sj_move {
    uint64_t e; /* the electron moved */
} sj_move;

/* The forms of the Jastrow pair function (sj_jastrow.c; [model] jastrow). */
enum { SJ_JASTROW_NONE = 0, SJ_JASTROW_RPA = 1, SJ_JASTROW_BSPLINE = 2 };

/* B-spline parameters per spin pair, at most. */
#define SJ_BSPLINE_MAX 64

/* The bytes of the parameter file's first lines (bspline_file_head), at most. */
#define SJ_VHEAD_MAX 512

/* The pair function of one spin pair: u(r) in J = sum_{i<j} u(r_ij). */
typedef struct sj_jastrow {
    int form;          /* SJ_JASTROW_RPA or SJ_JASTROW_BSPLINE */
    double rc;         /* cutoff (bohr), <= L/2 */
    double A, F;       /* rpa: see sj_jastrow.c */
    size_t np;         /* bspline: parameters p (sj_bspline.c) */
    double gamma, dr, inv_dr;              /* bspline: the cusp of w = -u, knot spacing */
    double p[SJ_BSPLINE_MAX];              /* bspline: the parameters */
    double coef[SJ_BSPLINE_MAX + 4];       /* bspline: the spline coefficients */
} sj_jastrow;

/* B-spline parameters as given (keys or file), before the cell is known. */
typedef struct sj_bspline_input {
    double cutoff;                  /* bohr; 0: L/2 */
    size_t np[2];                   /* [0] like (uu), [1] unlike (ud) spins */
    double p[2][SJ_BSPLINE_MAX];
} sj_bspline_input;

/* Accumulated wall times in seconds (MCF_TIMING=1; see sj_timing.c). */
typedef struct sj_timing {
    double sweep, orbitals, det, update, jastrow;          /* per sweep */
    double measure, vgl, det_m, jastrow_m, ewald_m;        /* per measurement */
    double sweep_t0, sweep_share;                          /* the current sweep's start, 1/n */
    uint64_t sweeps, measurements;
} sj_timing;

/* One chain (walker): its parameters, positions, Slater matrices and scratch. */
typedef struct sj_chain {
    size_t n, n_up, n_dn, norb; /* electrons, per spin, orbitals (= n_up) */
    double L, rs, step;         /* cell side, r_s, Gaussian step (bohr) */
    int jastrow;                /* SJ_JASTROW_NONE, _RPA or _BSPLINE */
    int polarized;              /* all electrons spin up */
    int qs;                     /* move = qs (quasi-simultaneous) */
    int drift;                  /* move = drift (drift-diffusion, sj_drift.c) */
    int fixed_node;             /* [run] method = dmc (projector): moves across a node refused */
    double tau;                 /* projector: the DMC time step (0: tau = step^2, VMC) */
    int coulomb;                /* interaction = coulomb (0: none, the free gas) */
    sj_jastrow jp[2];           /* [0] parallel, [1] antiparallel */
    mcf_pair_function pf[2];    /* their values' form (jastrow_pair_functions), kept with jp */
    mcf_orbital orb;   /* the run's orbital evaluator (mcf_orbital_bind) */
    const char *ev_name;
    void *ws;          /* its workspace: the orbitals, and on_ev the two determinants */
    int on_ev;         /* the evaluator keeps the determinants (det ops), spin s of ws */
    int announced;     /* on_ev, chain 0: the log says so (at the first sweep: the log file
                          opens after the chains are created) */
    int hf_said;       /* chain 0: the log has the exact Hartree-Fock energy (first sweep) */
    double e_hf;       /* chain 0: that energy per electron (NAN: not computed) */
    double *gD, *lD;   /* on_ev: n x 3 and n: grad_i D / D, lap_i D / D at measurement */
    mcf_ewald *ew;
    mcf_rng mv;        /* the move stream */
    double *r;         /* n x 3 positions in the cell */
    double *disp;      /* n x 3 displacements of this sweep */
    double *trial;     /* n x 3 trial positions of this sweep */
    double *trial_phi; /* n x norb orbital values at the trial positions */
    double *qs_lr;     /* move = qs: n log ratios against the start-of-sweep configuration */
    double *log_g;     /* move = drift: n log G(r' <- r) of the turn's proposal */
    double *tgrad, *tlap; /* move = drift: norb x 3 and norb at the turn's trial point */
    size_t delay;      /* sj_delay_window of [model] delay: accepted moves per rank-k update
                          (1: Sherman-Morrison; with ev_sweep, 0: the evaluator's choice) */
    int ev_sweep;      /* on_ev and the evaluator makes whole sweeps (walker_sweep) */
    int ev_drift;      /* on_ev and the evaluator makes whole drift sweeps
                          (walker_drift_sweep): move = drift and DMC's moves there */
    int sweep_said;    /* ev_sweep, chain 0: the log says so (at the first sweep) */
    unsigned char *acc; /* ev_sweep: n decisions of the last sweep */
    sj_delay dl[2];    /* delay > 1: each spin's window of pending moves (sj_delayed.h) */
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
    uint64_t head[3];             /* the checkpoint record's head: magic, N, N_up (state) */
    /* bspline: the variational parameters as one array (jp[0]'s, then jp[1]'s unless
     * polarized: mcf_variational.p, which the core writes before rebuild), and the first
     * lines of their parameter file (bspline_file_head) */
    double vp[2 * SJ_BSPLINE_MAX];
    char vhead[SJ_VHEAD_MAX];
} sj_chain;

/* ---- electrons, spins and the cell ------------------------------------------------------- */

/* Electrons 0 .. n_up-1 are spin up (s = 0), n_up .. n-1 spin down (s = 1). */
static inline size_t spin_of(const sj_chain *c, size_t e) { return e < c->n_up ? 0 : 1; }

/* The index of electron e within its spin. */
static inline size_t index_in_spin(const sj_chain *c, size_t e)
{
    return e < c->n_up ? e : e - c->n_up;
}

/* The electrons of spin s. */
static inline size_t spin_count(const sj_chain *c, size_t s) { return s == 0 ? c->n_up : c->n_dn; }

/* The first electron of spin s. */
static inline size_t spin_first(const sj_chain *c, size_t s) { return s == 0 ? 0 : c->n_up; }

/* x wrapped into [0, L). */
static inline double wrap(double x, double L)
{
    double y = x - L * floor(x / L);
    return y >= L ? y - L : y;
}

/* ---- sj_orbitals.c: the plane-wave orbitals ---------------------------------------------- */

/* The real plane waves of the occupied closed shell of norb orbitals in the cube of side L
 * as mcf_pw_orbitals arrays: g (3 x ng), a and b (norb x ng), owned by the caller (free). */
int build_orbitals(size_t norb, double L, int32_t **g_out, double **a_out, double **b_out,
                   size_t *ng_out);
/* Orbital values of one chain at its current positions into c->phi (at create and after a
 * load, where the core hands no batch: a batch of this call's own). */
int values_here(sj_chain *c);
/* One evaluator call, in the core's batch b, for the nb <= SJ_BATCH chains of a batch.
 * measure = 0: the orbital values at the trial positions into trial_phi (on_ev: det_trial,
 * the rows stay with the evaluator); measure = 1: values, gradients and Laplacians at the
 * current positions into phi, grad, lap (on_ev: det_local, grad_i D / D and lap_i D / D into
 * gD, lD).  MCF_EINTERNAL if the chains do not share one keeper of the determinants. */
int orbitals_batch(mcf_batch *b, void *const *chains, size_t nb, int measure);

/* ---- sj_jastrow.c: the Jastrow factor ---------------------------------------------------- */

/* The rpa parameters jp[0] (parallel) and jp[1] (antiparallel spins) from jastrow_a = ja and
 * jastrow_cutoff = jrc (0: their defaults), F from the cusps; logs them. */
void jastrow_init(sj_jastrow jp[2], double ja, double jrc, double rs, double L);
/* Sum over j != e of u(|x - r_j|) (x the position of electron e, old or trial). */
double jastrow_one(const sj_chain *c, size_t e, const double *x);
/* The chain's pair functions as mcf/pair_function.h describes them ([0] like, [1] unlike
 * spins; MCF_PAIR_NONE without a Jastrow): the values of propose's log ratios (mcf_pair_value, the
 * same operations on the host and in an evaluator's walker_sweep); c->pf is remade from
 * c->jp whenever jp changes (create, rebuild of the variational parameters). */
void jastrow_pair_functions(const sj_chain *c, mcf_pair_function pf[2]);
/* Adds grad_e J with electron e at x (the others where they are) into gJ. */
void jastrow_grad_at(const sj_chain *c, size_t e, const double *x, double gJ[3]);
/* Adds grad_e J and lap_e J at the current positions into gJ and *lJ. */
void jastrow_grad_lap(const sj_chain *c, size_t e, double gJ[3], double *lJ);

/* Adds, for every parameter m of the bspline form (jp[0]'s np, then jp[1]'s), the
 * derivatives in p_m of grad_e J and lap_e J at the current positions into gO (P x 3) and
 * lO (P); and, when O is not NULL, the derivative of J over the pairs (e, j > e) into O. */
void jastrow_param_terms(const sj_chain *c, size_t e, double *O, double *gO, double *lO);
/* The number P of the bspline form's parameters (the variational parameters of `mcf
 * optimize`, in sj_variational.c's order: c->vp); 0 for the rpa form and jastrow = none. */
size_t sj_variational_count(const void *chain);

/* ---- sj_bspline.c: the B-spline pair function w = -u ------------------------------------- */

/* p: np parameters, cutoff rc, cusp gamma = w'(0) (-1/4 like, -1/2 unlike spins). */
int bspline_init(sj_jastrow *p, const double *par, size_t np, double rc, double gamma);
/* Replaces the parameters (np of them) and the coefficients. */
void bspline_set(sj_jastrow *p, const double *par);
/* w(r), and w with w' and w''. */
double bspline_w(const sj_jastrow *p, double r);
void bspline_w3(const sj_jastrow *p, double r, double *w, double *dw, double *d2w);
/* The parameters w(r) depends on at r (at most 4): their indices and dw/dp, dw'/dp,
 * dw''/dp; returns their count (0 beyond the cutoff). */
int bspline_param_terms(const sj_jastrow *p, double r, int idx[4], double w[4], double dw[4],
                        double d2w[4]);
/* The parameters from the keys jastrow_uu, jastrow_ud (lists of numbers; empty: size
 * zeros) or from a parameter file.  MCF_EINVAL naming the key or file:line. */
int bspline_input_from_keys(const char *uu, const char *ud, long size, sj_bspline_input *in);
int bspline_read_file(const char *path, sj_bspline_input *in);
/* The parameter file's first lines (comments, form, cutoff rc), each ending in '\n', into
 * head (size bytes); the core writes the uu and ud lines after them (mcf_variational). */
void bspline_file_head(char *head, size_t size, double rc);

/* ---- sj_variational.c: the parameters for `mcf optimize` ---------------------------------- */

/* c->vp and c->vhead from the B-spline parameters jp (at create; bspline only). */
void sj_variational_init(sj_chain *c);
/* The parameters as state() describes them (mcf_variational): c->vp, the file's head and
 * its uu and ud lines; count 0 and the reason for the rpa form and jastrow = none. */
void sj_variational_describe(sj_chain *c, mcf_variational *v);
/* rebuild(MCF_REBUILD_VARIATIONAL): the pair functions from the p the core wrote into c->vp;
 * MCF_EINVAL for a parameter that is not finite (then c->vp is what it was). */
int sj_variational_rebuild(sj_chain *c);

/* ---- sj_inverse.c: the inverse of a Slater matrix ------------------------------------- */

/* Inverse of the m x m matrix of rows A (row-major) into Ainv by GSL LU; MCF_EINVAL if
 * singular (not reported: the caller says what it means). */
int invert(sj_chain *c, const double *A, size_t m, double *Ainv);
/* max |Ainv A - 1| over the entries (m x m). */
double drift(const double *A, const double *Ainv, size_t m);
double inverse_residual(const double *A, const double *Ainv, size_t m);

/* ---- sj_determinants.c: the Slater determinants kept by the model ------------------------ */

/* Fills the rows A_out from phi (n x norb at the electrons); refresh_inverses inverts them. */
int rows_from_phi(sj_chain *c, const double *phi, double *A_out[2]);
/* Recomputes both inverses from the rows by LU; measure: logs the drift before. */
int refresh_inverses(sj_chain *c, int measure);
/* The determinant ratio of moving electron e to its trial position (named apart from the
 * evaluator's op det_ratio, which the file graph would take for a call of this). */
double sj_det_ratio(const sj_chain *c, size_t e);
/* Applies the accepted move (an sj_move) to the determinants and the positions (on_ev: in
 * the core's batch b). */
int accept_move(mcf_batch *b, sj_chain *c, const sj_move *move);
/* delay > 1: applies both spins' pending moves to the inverses (at the end of every sweep,
 * so that measurements and checkpoints see the same inverses whatever the window). */
void flush_delayed(sj_chain *c);
/* The turn advances past a decided move (accept or reject); after the sweep's last one the
 * delayed windows are emptied (flush_delayed). */
void next_turn(sj_chain *c);

/* ---- sj_determinants_ev.c: the Slater determinants kept by the evaluator (on_ev) --------- */

/* Hands the host's rows and inverses (and the positions) to the evaluator's determinants. */
int push_dets(sj_chain *c);
/* Copies the evaluator's rows and inverses into the host's A and Ainv (for a checkpoint). */
int pull_dets(sj_chain *c);
/* Every N accepted moves: the evaluator's drift and refresh (LU here when it is large), for
 * one chain or for n in one det_refresh call of the core's batch b. */
int refresh_on_ev(mcf_batch *b, sj_chain *c);
int refresh_on_ev_batch(mcf_batch *b, sj_chain *const *cs, size_t n);

/* ---- sj_sweep.c: the moves (ops of mcf_model) -------------------------------------------- */

int sj_sweep(mcf_batch *b, void *const *chains, size_t n, mcf_rng *const *rngs,
             uint64_t *accepted);
int sj_propose(mcf_batch *b, void *const *chains, size_t n, mcf_rng *const *rngs,
               void *moves, double *log_ratio);
int sj_apply(mcf_batch *b, void *const *chains, const void *moves, size_t n,
             const unsigned char *accepted);

/* ---- sj_drift.c: move = drift ------------------------------------------------------------ */

/* The trial point of every chain's electron mv[k].e (drawn from the drift at its current
 * position), the orbitals there in one evaluator call per SJ_BATCH chains, and the log
 * ratio with the Green's functions' ratio (sj_drift.c's header); sweep() made the rows and
 * gradients at the current positions. */
int drift_propose(mcf_batch *b, void *const *chains, size_t n, const sj_move *mv,
                  double *log_ratio);
/* The drift moves' time step: DMC's tau (the projector's), else step^2. */
double sj_time_step(const sj_chain *c);
/* The projector op ([run] method = dmc): drift moves at time step tau, fixed node; refused
 * (MCF_EINVAL naming the keys) with the determinants on an evaluator that makes no drift
 * sweep, or delay > 1 in the model. */
int sj_projector(void *chain, double tau);

/* ---- sj_local_energy.c: the measurements (op of mcf_model) ------------------------------- */

int sj_measure(mcf_batch *b, void *const *chains, size_t n, double *const *values);
/* The observables of one chain after orbitals_batch(.., 1); with O and dE (not NULL) also
 * the bspline parameter derivatives of ln Psi and of the local energy (P values each). */
void local_energy(sj_chain *c, double *values, double *O, double *dE);

/* ---- sj_checkpoint.c: the chain's state and its rebuild (ops of mcf_model) --------------- */

int sj_state(void *chain, mcf_chain_state *state);
int sj_rebuild(void *chain, unsigned what);

/* ---- sj_timing.c: the MCF_TIMING=1 diagnostics ------------------------------------------- */

/* CLOCK_MONOTONIC in seconds. */
double now_s(void);
/* c->tm: the timers when the environment says MCF_TIMING=1, else NULL. */
int timing_create(sj_chain *c);
/* Logs the chain's timing line (when timed) and frees the timers. */
void timing_destroy(sj_chain *c);
/* After the chain's last decided move of the sweep, its share of the sweep (c->tm set). */
void end_turn_timing(sj_chain *c, double t);

#endif
