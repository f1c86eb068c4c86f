/* mcf/dynamics.h — a driven crystal and the evaluator kind that propagates its fermions in
 * real time (kind MCF_PLUGIN_DYNAMICS_EVALUATOR; `mcf kbe`, issue 45).
 *
 * The Hamiltonian of the crystal at time t is
 *
 *     H(t) = H_0 + E(t) D + U(t) V,     V = sum over cells i and terms m of
 *                                           w_m n_{i, a_m} n_{i, b_m},
 *
 * H_0 a tight-binding crystal (mcf/periodic.h), D the dipole operator of the same cell (a
 * second list of "hoppings": its matrix elements <to, R| D |from, 0>; a k-independent
 * interband dipole d sigma_x is the on-site element d between the two orbitals), V a local
 * density-density interaction of orbitals of one cell.  The electrons start uncorrelated in
 * f(h_0(k)) at a chemical potential mu and temperature T (T = 0: every level below mu filled).
 *
 * Who owns what: the model describes H_0, D, V and the initial state (its driven_crystal op,
 * mcf/model.h); the core owns the drive E(t) and the ramp U(t) (the [pulse] and [kbe]
 * sections), the time loop, files, signals and checkpoints; the evaluator propagates the
 * fermions (two-time Green's functions, a self-energy) and never knows which model or drive
 * it was given.  Energies in the model's unit, times in its inverse (hbar = 1). */
#ifndef MCF_DYNAMICS_H
#define MCF_DYNAMICS_H

#include "mcf/api.h"

#include <stddef.h>
#include <stdint.h>

#include "mcf/batch.h"
#include "mcf/params.h"
#include "mcf/periodic.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- what a model says of its driven crystal (the driven_crystal op, mcf/model.h) ------ */

#define MCF_DRIVE_MAX_TERMS 8

typedef struct mcf_interaction_term {
    uint32_t a, b;  /* two different orbitals of one cell */
    double weight;  /* w: the term U(t) w n_a n_b on every cell */
} mcf_interaction_term;

/* Zeroed by the core before the op, struct_size set; the model fills the rest. */
typedef struct mcf_drive_terms {
    uint32_t struct_size;
    uint32_t n_terms; /* <= MCF_DRIVE_MAX_TERMS; 0: no interaction */
    mcf_interaction_term terms[MCF_DRIVE_MAX_TERMS];
    double mu;          /* the initial state f(h_0) at mu ... */
    double temperature; /* ... and T >= 0 */
} mcf_drive_terms;

/* What the core hands the evaluator (read during plan and create only; the evaluator keeps
 * what it needs).  crystal and dipole have the same dims and orbitals (the core checks). */
typedef struct mcf_driven_crystal {
    const mcf_periodic *crystal; /* H_0 */
    const mcf_periodic *dipole;  /* D */
    const mcf_drive_terms *terms;
} mcf_driven_crystal;

/* ---- how to propagate: the method keys of [kbe], read by the core -------------------- */

typedef enum mcf_selfenergy {
    MCF_SELFENERGY_NONE = 0,       /* H_0 + E(t) D alone (U is ignored) */
    MCF_SELFENERGY_HF = 1,         /* time-dependent Hartree-Fock */
    MCF_SELFENERGY_SECOND_BORN = 2 /* Hartree-Fock plus the second-Born collision integrals */
} mcf_selfenergy;

/* The gather service of a run over several processes (`mpirun -np P mcf kbe`): how an
 * evaluator that keeps a slab of the k grid on each process reaches the others without MPI's
 * headers (the core implements it; docs/plugin-guide.md).  Every function is collective: all
 * processes call it in the same order with the same bytes[] (bytes[r]: what process r
 * sends).  allgather: every process receives the concatenation of every process's bytes in
 * process order in recv; gather: process 0 does, recv unused elsewhere.  They return
 * MCF_OK; a transfer that fails ends the job (the core says why and aborts every process),
 * so an evaluator never waits on a peer that has gone.  Read struct_size before a member
 * appended later. */
typedef struct mcf_dynamics_gather {
    uint32_t struct_size;
    uint32_t rank, size; /* this process and their number (size >= 2 when handed over) */
    void *ctx;           /* the core's, passed back */
    int (*allgather)(void *ctx, const void *send, const uint64_t *bytes, void *recv);
    int (*gather)(void *ctx, const void *send, const uint64_t *bytes, void *recv);
} mcf_dynamics_gather;

typedef struct mcf_propagation {
    uint32_t struct_size;
    double dt;             /* the time step (> 0) */
    uint64_t steps;        /* the steps the run may take: the two-time storage's size */
    uint32_t nk[3];        /* the k grid per periodic direction (1 beyond the crystal's dims) */
    uint32_t correctors;   /* corrector passes a step (fixed: runs are reproducible) */
    mcf_selfenergy selfenergy;
    uint32_t selfenergy_direct; /* 1: the seed's loops over k; 0: products in real space by
                                   FFT (the default) */
    uint64_t memory_limit; /* bytes the evaluator may take (0: no limit) */
    double E0, U0;         /* the drive at t = 0 */
    uint32_t order;        /* the order in dt of the step: 2 .. 5 (0, or a core built before
                              the key, whose struct_size ends before it: 2) */
    /* NULL: one process.  Otherwise the run is on gather->size processes, all of which
     * create, step, observe and write rows in step (each of those calls is collective for
     * an evaluator that uses the service): an evaluator may keep a slab of k and gather
     * what needs every k, but every process must report the whole run's observables, rows,
     * occupations and Green's functions (process 0's are written).  An evaluator that
     * ignores it (one built before the member, whose struct_size ends before it) propagates
     * every k on every process: the same files, P times the work.  plan's bytes are one
     * process's. */
    const mcf_dynamics_gather *gather;
} mcf_propagation;

/* At a time t_n, per cell (sums over the k grid divided by its size). */
#define MCF_DYNAMICS_MAX_ORBITALS 8
typedef struct mcf_dynamics_observables {
    double occupation[MCF_DYNAMICS_MAX_ORBITALS]; /* <n_a>, a < orbitals */
    double electrons;          /* sum of the occupations */
    double polarization;       /* <D> */
    double e_band;             /* <H_0> */
    double e_field;            /* E(t) <D> */
    double e_hf;               /* U(t) <V> in Hartree-Fock factorization */
    double e_corr;             /* U(t) <V> - e_hf (second Born: Galitskii-Migdal; else 0) */
    double interaction;        /* <V> (for the ramp's work dU <V>, also where U(t) = 0) */
    double anticommutator;     /* max over k, a, b of |G^>(t, t) - G^<(t, t) + i 1|_ab */
    double corrector_residual; /* max |change| of the last corrector pass of step n (0 at
                                  n = 0 or without passes) */
} mcf_dynamics_observables;

/* The evaluator's table (kind MCF_PLUGIN_DYNAMICS_EVALUATOR). */
typedef struct mcf_dynamics_evaluator {
    uint32_t struct_size; /* sizeof(mcf_dynamics_evaluator) the plugin was built with */

    /* The bytes the evaluator's storage will take for this crystal and propagation, before
     * any work (the core refuses a run over memory_limit or the disk it would need); the
     * same checks as create: MCF_EINVAL naming what the evaluator cannot propagate (too
     * many orbitals, an interaction of another form, a direct self-energy it lacks). */
    int (*plan)(const mcf_params *params, const mcf_driven_crystal *c,
                const mcf_propagation *p, void *app_data, uint64_t *bytes);
    /* A propagation at t = 0 in the initial state; *ws is the caller's, freed with
     * destroy(); NULL after a failure.  Errors: MCF_EINVAL, MCF_ENOMEM with a message. */
    int (*create)(const mcf_params *params, const mcf_driven_crystal *c,
                  const mcf_propagation *p, void *app_data, void **ws);
    void (*destroy)(void *ws);
    /* One step t_n -> t_{n+1} with the drive at t_{n+1}; MCF_EINVAL past p->steps. */
    int (*step)(mcf_batch *b, void *ws, double E_next, double U_next);
    /* The steps taken (t_n = n dt). */
    uint64_t (*steps_done)(const void *ws);
    /* The observables at t_n, n <= steps_done, with the drive E, U at t_n. */
    int (*observe)(mcf_batch *b, void *ws, uint64_t n, double E, double U,
                   mcf_dynamics_observables *out);
    /* Optional: k-resolved occupations <n_a(k)>(t_n) into occ[k * orbitals + a], k over
     * the grid in order (the first direction fastest). */
    int (*occupations)(void *ws, uint64_t n, double *occ);
    /* Optional: G^< (lesser = 1) or G^> at (t_i, t_j), any i, j <= steps_done, per k into
     * g[2 (k o^2 + a o + b)] and g[... + 1] (real, imaginary; o = orbitals). */
    int (*green)(void *ws, int lesser, uint64_t i, uint64_t j, double *g);

    /* Optional, all three or none (checkpoints: `mcf kbe` appends a time row after every
     * step and `mcf resume` rebuilds the run from them).  row_bytes: the size of time row
     * n's record (n <= steps); row_write: row n <= steps_done into buf (row_bytes(n) bytes,
     * no alignment), the state unchanged; row_read: into a propagation fresh from create,
     * rows in order 0, 1, ..., n, after which steps_done is n and step continues bit for
     * bit as the run that wrote them did; MCF_EFORMAT for a record that is not this
     * propagation's (another spec, a foreign or damaged file), MCF_EINVAL out of order. */
    uint64_t (*row_bytes)(const void *ws, uint64_t n);
    int (*row_write)(const void *ws, uint64_t n, void *buf);
    int (*row_read)(void *ws, uint64_t n, const void *buf);
} mcf_dynamics_evaluator;

#ifdef __cplusplus
}
#endif
#endif
