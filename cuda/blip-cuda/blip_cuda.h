/* blip_cuda.h — the device layer of the GPU blip orbital evaluator blip-cuda: plain C
 * functions over CUDA (blip_cuda_*.cu; blip_cuda_internal.h lists the files), linked into
 * the plugin (blip_cuda.c), its tests (tests/gpu) and the benchmark (tests/bench/blip_gpu).
 * Not part of the SDK: symbols carry the prefix bcu_ and hidden visibility.
 *
 * The mathematics is that of plugins/blip (blip.c); the table is built on the host by
 * mcf_blip_core (blip_core.h) and only evaluated here:
 *
 *   table        the coefficients c[((i n_y + j) n_z + k) L + l] in single precision (float),
 *                orbital index fastest, as the CPU's doubles: half the bytes per point.
 *   kernel       one thread per (point, orbital), the orbital index fastest across threads,
 *                so the 32 threads of a warp read consecutive floats of one coefficient row
 *                (coalesced); for values, 2 orbitals per thread (float2 loads) when every L
 *                of the batch is even (the settings choose 1, 2 or 4: blip-cuda's
 *                [evaluator] orbitals_per_thread; the same bits).  Each thread reduces its
 *                point into the cell and computes the 4 weights per axis (and their
 *                derivatives) in double (blip_axis_setup, the CPU's code), rounds them to
 *                float, and accumulates the 64 terms in float (default) or double (the
 *                settings: [evaluator] sum_precision = double, for measurements; see
 *                docs/architecture.md).  All workspaces of a batch go in ONE launch: each
 *                gets a range of thread blocks and a descriptor (its table, grid, cell, where
 *                its points and results are), found by binary search over the block ranges.
 *   transfers    per batch one host-to-device copy (the descriptors and all positions, as
 *                double) and one device-to-host copy (all results, as double, each
 *                workspace's phi | grad | lap contiguous), through pinned staging buffers
 *                of the batch.
 *   batches      what a batch of the core's (mcf_batch, mcf/batch.h) needs between its
 *                calls lives in a keep slot of that batch (mcf_batch_keep): the staging
 *                buffers of the evaluations and of the determinant ops, the mapped pinned
 *                ratios, the timing events and the last timings.  Every function below
 *                that launches work takes the batch; a batch is used by one thread at a
 *                time, and batches of several threads may run at once (their launches go
 *                to the plugin's one stream, in the order they are made).  The tests and
 *                benchmarks make their own (mcf_batch_create).
 *
 * Errors: functions returning int give MCF_OK or an MCF_E* code with a message (mcf_fail):
 * MCF_EDEVICE for a missing or failing device, MCF_ENOMEM when device memory runs out (the
 * message names the bytes asked and free). */
#ifndef MCF_BLIP_CUDA_H
#define MCF_BLIP_CUDA_H

#include <stddef.h>

#include "mcf/orbital.h"

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define BCU_API __attribute__((visibility("hidden")))
#else
#define BCU_API
#endif

/* 1 when a CUDA device can be used, 0 if not; one line into why either way (the device's
 * name, compute capability and free memory, or the reason): mcu_probe of cuda/common, the
 * probe kpm-cuda uses too. */
BCU_API int bcu_probe(char *why, size_t len);

/* Selects the device once per process.  MCF_EDEVICE with the reason when there is none. */
BCU_API int bcu_device_init(void);

/* The device's name, "none" without one. */
BCU_API const char *bcu_device_name(void);

/* Device-to-device cudaMemcpy bandwidth in GB/s (bytes read + bytes written per second) of
 * `bytes`, best of `reps`: the benchmark's reference.  0 on failure. */
BCU_API double bcu_copy_bandwidth(size_t bytes, int reps);

/* ---- the coefficient table on the device ----------------------------------------- */

typedef struct bcu_table bcu_table;

/* Allocates the device table of a grid n[3] of L orbitals over the cell (uninitialized):
 * n[0] n[1] n[2] L floats; *out owned by the caller (bcu_table_destroy).  MCF_ENOMEM
 * naming the bytes when the device cannot hold it, MCF_EINVAL for sizes the kernel cannot
 * index (L or a grid side >= 2^31). */
BCU_API int bcu_table_alloc(const size_t n[3], size_t L, const double cell[3],
                            bcu_table **out);

/* Uploads the host table c (n[0] n[1] n[2] L doubles, blip_build_table's layout) rounded to
 * float.  Synchronous. */
BCU_API int bcu_table_upload(bcu_table *t, const double *c);

/* How the kernels read a table: one evaluator's settings (blip-cuda's [evaluator] keys
 * sum_precision and orbitals_per_thread), kept with its table, so that every batch (and the
 * determinant ops on the table) takes them from its tables; the tables of one batch must
 * agree (MCF_EINVAL otherwise). */
typedef struct bcu_settings {
    int accumulate_double; /* the 64 terms summed in double (1) or in float (0) */
    int vec;               /* orbitals per thread of the values kernel: 1, 2 or 4 (fewer
                              when an L of the batch is not a multiple) */
} bcu_settings;

/* Sets the table's settings; a new table has the keys' defaults {0, 2} (float sums, 2
 * orbitals per thread).  MCF_EINVAL for vec other than 1, 2, 4. */
BCU_API int bcu_table_set_settings(bcu_table *t, const bcu_settings *s);

BCU_API void bcu_table_destroy(bcu_table *t);

/* L, and the bytes of the device table. */
BCU_API size_t bcu_table_orbitals(const bcu_table *t);
BCU_API size_t bcu_table_bytes(const bcu_table *t);

/* ---- evaluation ------------------------------------------------------------------- */

/* The values (want_gl = 0) or values, gradients and Laplacians (want_gl = 1) of the n
 * tables t[k] at n_points[k] points r[k] into phi[k], grad[k], lap[k] (the layout of
 * mcf/orbital.h), in one launch staged through batch b.  The arrays must be checked
 * (mcf_orbital_batch_check): non-NULL arrays, finite positions.  Synchronous. */
BCU_API int bcu_eval(mcf_batch *b, const bcu_table *const *t, size_t n,
                     const double *const *r, const size_t *n_points, double *const *phi,
                     double *const *grad, double *const *lap, int want_gl);

/* Seconds of batch b's last bcu_eval: its kernel alone (CUDA events), and the whole call
 * (staging, both copies and the kernel; host clock).  0 before the first. */
BCU_API void bcu_last_times(mcf_batch *b, double *kernel_s, double *total_s);

/* ---- Slater determinants on the device (the determinant ops of mcf/orbital.h) --------
 *
 * A bcu_det holds, in device memory, the m x m rows A and inverse Ainv of m electrons in the
 * first m orbitals of a table, the orbital rows at the electrons' trial positions (m x L),
 * and on the host their positions and trial positions.  The arithmetic is double; only the
 * orbital values come from the float table.
 *
 *   ratio    one launch for all dets of the call (bcu_det_ratio): per det 8 warps x 32
 *            columns per block compute w_j = v . Ainv[:, j] for a pending accepted move (v its
 *            trial row) and v' . Ainv[:, j] for the new one, in a fixed order; the ratio of the
 *            new move against the updated inverse follows from three of those numbers,
 *                R' = a - b (w_i' - delta_ii') / R,   a = v'.Ainv[:, i'], b = v'.Ainv[:, i],
 *            which come back (3 doubles per det); the rank-1 update of Ainv (and the row of A)
 *            is a second launch that runs while the host decides.  An accepted move is thus
 *            applied lazily, by the next op on its det.
 *   refresh  drift = max |Ainv A - 1| by a tiled DGEMM (E = 1 - Ainv A), then one Newton step
 *            Ainv <- Ainv + E Ainv (error E^2: back to rounding) when drift < 0.25.
 *   local    vgl at the current positions into device memory, then one warp per electron:
 *            grad_i D / D = sum_l grad phi_l(r_i) Ainv[l][i] (and the Laplacian); 4 doubles
 *            per electron come back.
 * Reductions run in a fixed order, so a run repeats bit for bit on the same device. */
typedef struct bcu_det bcu_det;

/* One walker of bcu_walker_sweep: its two determinants (bcu_dets; NULL for an empty spin)
 * and the arrays of ABI 2's mcf_walker (mcf/orbital.h), which blip_cuda.c maps onto it. */
typedef struct bcu_walker {
    void *det[2];            /* the up and down determinants (bcu_det) */
    double *r;               /* N x 3: the positions; moved on return */
    const double *trial;     /* N x 3: the trial positions of det_trial */
    mcf_rng *rng;            /* the decisions' stream; advanced on return */
    unsigned char *accepted; /* N: 1 where the move was accepted */
    double *log_ratio;       /* N or NULL: each move's log |Psi'/Psi|^2 */
} bcu_walker;

/* The ops of ABI 1's handles (mcf_orbital_ops: det_create .. det_local), those that launch
 * work staged through batch b.  The plugin keeps two per workspace (spin 0 and 1). */
BCU_API int bcu_det_create(const bcu_table *t, size_t m, bcu_det **out);
BCU_API void bcu_det_destroy(bcu_det *d);
BCU_API size_t bcu_det_size(const bcu_det *d);
BCU_API int bcu_det_set(bcu_det *d, const double *r, const double *A, const double *Ainv);
BCU_API int bcu_det_get(bcu_det *d, double *r, double *A, double *Ainv);
BCU_API int bcu_det_trial(mcf_batch *b, bcu_det *const *d, size_t n,
                          const double *const *r_trial);
BCU_API int bcu_det_ratio(mcf_batch *b, bcu_det *const *d, size_t n, const size_t *electron,
                          double *ratio);
BCU_API int bcu_det_accept(bcu_det *d, size_t electron);
BCU_API int bcu_det_refresh(mcf_batch *b, bcu_det *const *d, size_t n, double *drift);
BCU_API int bcu_det_local(mcf_batch *b, bcu_det *const *d, size_t n, double *const *grad_ratio,
                          double *const *lap_ratio);

/* Seconds of batch b's last bcu_det_ratio call (host clock, the whole call). */
BCU_API double bcu_det_last_ratio_time(mcf_batch *b);

/* ---- whole sweeps of Slater-Jastrow walkers (the walker_sweep op of mcf/orbital.h) -----
 *
 * One launch for all n walkers, a cluster of thread blocks per walker making its N moves in
 * order: ratios corrected by the pending moves of a delayed-update window of k accepted
 * moves, the Jastrow sums over the walker's positions in shared memory, the decision by
 * mcf_metropolis_accept from the walker's stream; the window applied as one rank-k update
 * when full and at the end of each spin's moves (blip_cuda_det_sweep.cu says how).  The
 * dets' det_trial rows are used; w[k].det[s] are bcu_dets.  k: the power of 2 <= delay (0:
 * BCU_SWEEP_DELAY_DEFAULT), at most BCU_SWEEP_DELAY_MAX, halved until the block's shared
 * memory fits the device (bcu_sweep_window says which). */
#define BCU_SWEEP_DELAY_MAX 32
#define BCU_SWEEP_DELAY_DEFAULT 16
BCU_API int bcu_walker_sweep(mcf_batch *b, bcu_walker *w, size_t n,
                             const mcf_pair_function u[2], const double cell[3],
                             size_t delay);

/* bcu_walker_sweep with `blocks` thread blocks per walker (a cluster: 1, 2, 4 or 8; 0: as
 * many as the device's multiprocessors take, what bcu_walker_sweep does).  The results are
 * the same bits for every number of blocks. */
BCU_API int bcu_walker_sweep_blocks(mcf_batch *b, bcu_walker *w, size_t n,
                                    const mcf_pair_function u[2], const double cell[3],
                                    size_t delay, unsigned int blocks);

/* ---- whole drift-diffusion sweeps (the walker_drift_sweep op of mcf/orbital.h, mcf 1.2) --
 *
 * One launch for all n walkers, one thread block per walker making its N drift moves in
 * order (blip_cuda_drift_sweep.cu): the drift from the gradient rows at the sweep's start
 * (one vgl launch before) and the current inverse, the orbitals and gradients at each trial
 * point evaluated in the kernel, the Green's functions' ratio and the fixed-node rule, the
 * decision from the walker's stream, Sherman-Morrison after every accepted move.  w.trial
 * is not read; no det_trial is needed.  The arrays are the caller's (borrowed for the call;
 * positions, decisions, log ratios and streams written).  Errors: MCF_EINVAL (a NULL or
 * malformed argument, a bad pair form or cell, a non-positive time step, walkers of different
 * sum_precision, more electrons than the kernel takes, naming them), MCF_ENOMEM, MCF_EDEVICE,
 * MCF_EPLUGIN when a log ratio is NaN (the walker and electron named). */
typedef struct bcu_drift_walker {
    bcu_walker w;
    const double *chi; /* N x 3 Gaussians */
    double tau;        /* the time step */
    int fixed_node;    /* refuse a move with a negative determinant ratio */
} bcu_drift_walker;
BCU_API int bcu_walker_drift_sweep(mcf_batch *b, bcu_drift_walker *w, size_t n,
                                   const mcf_pair_function u[2], const double cell[3]);

/* The blocks per walker of batch b's last bcu_walker_sweep launch. */
BCU_API unsigned int bcu_sweep_last_blocks(mcf_batch *b);

/* The window a sweep of walkers of n_electrons with at most m_max per spin would use for
 * delay (0 when there is no device or not even k = 1 fits). */
BCU_API size_t bcu_sweep_window(size_t delay, size_t m_max, size_t n_electrons);

/* Seconds of batch b's last bcu_walker_sweep call (host clock, the whole call). */
BCU_API double bcu_sweep_last_time(mcf_batch *b);

#ifdef __cplusplus
}
#endif
#endif
