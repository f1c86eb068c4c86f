/* kpm_cuda.h — the device layer of the GPU kernel-polynomial-method evaluator kpm-cuda:
 * plain C functions over CUDA (the static library mcf_kpm_cuda: kpm_cuda_device.cu,
 * kpm_cuda_ham.cu, kpm_cuda_engine.cu, kpm_cuda_dct.cu, kpm_cuda_gfmc.cu,
 * kpm_cuda_gfmc_kernel.cu, kpm_cuda_response.cu; kpm_cuda_internal.cuh says what each
 * holds), linked into the plugin (kpm_cuda.c), its tests (tests/gpu) and the benchmarks
 * (tests/bench/kpm_gpu, response_gpu).  Not
 * part of the SDK: symbols carry the prefix kcu_ and hidden visibility.
 *
 * The mathematics is that of plugins/kpm (kpm_core.h has every formula); this layer only
 * moves it onto an NVIDIA GPU:
 *
 *   Hamiltonian   a device copy of the model's mcf_hamiltonian in the same slot-major ELL
 *                 layout (col int32, hop_re, hop_im, onsite; double), brought up to date
 *                 from the Hamiltonian's change journal (mcf_hamiltonian_changed_rows):
 *                 only the changed rows travel, or everything when the journal cannot say.
 *   vectors       DOS/LDOS: row-major blocks, element (row r, vector j) a double2 (re,
 *                 im) at [r B + j], so the B vectors of one row are contiguous; GFMC: the
 *                 4 vectors in tiles of 32 rows, vector by vector, so a warp's 32 rows
 *                 are 32 consecutive elements (no shared-memory bank conflicts).
 *   recursion     one kernel launch per Chebyshev step for the DOS and LDOS paths (any
 *                 size: a grid-stride loop over (row, vector) pairs with the two dot
 *                 products of the step reduced in a fixed order, so results are
 *                 reproducible run to run); GFMC instead runs the whole recursion of a
 *                 batch of changes in ONE launch (a persistent kernel, below).
 *   random        random vectors drawn on the device by Philox (cuRAND device API): the
 *                 entry (row, vector r) from counter subsequence r, offset 4 row, of a seed
 *                 drawn from the chain's stream, so a vector never depends on the block it
 *                 lands in.
 *   transforms    the kernel-damped Chebyshev series on the N Chebyshev nodes by batched
 *                 cuFFT (Z2Z, length 2N: the same transform as kpm_dct); GFMC does the
 *                 same transform inside its kernel (radix 2 in shared memory when 2N is a
 *                 power of 2, else direct sums by the Chebyshev recurrence at each node;
 *                 the tests hold both to the CPU's FFT).
 *
 * GFMC kernel (kcu_gfmc_run).  A batch of n changes, one per chain: n clusters of G
 * thread blocks (G = 1, 2, 4, 8 or 16 from the largest dimension and the batch size, or
 * as the settings say; thread-block clusters with hardware cluster barriers when G > 1),
 * each cluster one chain; each block keeps its rows of H, and where they fit its rows of
 * the vectors, in shared memory (the other blocks gather from them through distributed
 * shared memory).  In one launch: apply the chain's pending Hamiltonian row updates, build
 * the 4 start vectors (u_0, u_1, u_0 + u_1, u_0 + i u_1), run the M_tot / 2 Chebyshev
 * steps (two moments per step) with one cluster barrier per step, reduce the moments in a
 * fixed order, sum the Green's functions at the N nodes, d(E) = det(1 - C W(E)), the
 * unwrapped phase and the Fermi-weighted integral dS = (1 / (pi T)) sum_i W_i delta_i (W
 * the suffix sums of the quadrature weights, delta_i the phase increments), and write dS
 * per chain.  One copy to the device (the batch's tasks and row updates) and one back (dS,
 * status and the launch's phase timers).
 *
 * Errors: functions returning int give MCF_OK or an MCF_E* code with a message
 * (mcf_fail): MCF_EDEVICE for a missing or failing device, MCF_ENOMEM when device memory
 * runs out (the message says how much was asked and how much is free). */
#ifndef MCF_KPM_CUDA_H
#define MCF_KPM_CUDA_H

#include <stddef.h>
#include <stdint.h>

#include "mcf/fermion.h"
#include "mcf/hamiltonian.h"

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define KCU_API __attribute__((visibility("hidden")))
#else
#define KCU_API
#endif

#define KCU_MAX_WIDTH 16      /* widest ELL row the GFMC row updates carry */
#define KCU_MAX_UPDATE_ROWS 64 /* more changed rows than this: a full upload instead */

/* 1 when a CUDA device can be used, 0 if not; one line into why either way (the device's
 * name, compute capability and free memory, or the reason). */
KCU_API int kcu_probe(char *why, size_t len);

/* Selects the device (CUDA_VISIBLE_DEVICES / the runtime's default) once per process.
 * MCF_EDEVICE with the reason when there is none. */
KCU_API int kcu_device_init(void);

/* The device's name ("NVIDIA H100 80GB HBM3") and number of multiprocessors. */
KCU_API const char *kcu_device_name(void);
KCU_API int kcu_device_sms(void);

/* Device-to-device copy bandwidth in GB/s (bytes read + bytes written per second) of a
 * cudaMemcpy of `bytes`, best of `reps`: the benchmark's reference. */
KCU_API double kcu_copy_bandwidth(size_t bytes, int reps);

/* ---- the device copy of a Hamiltonian ---------------------------------------------- */

typedef struct kcu_ham kcu_ham;

/* Allocates and uploads h.  *out owned by the caller: kcu_ham_destroy(). */
KCU_API int kcu_ham_create(const mcf_hamiltonian *h, kcu_ham **out);
KCU_API void kcu_ham_destroy(kcu_ham *d);

/* Brings the device copy up to h: the rows the journal names since the last sync, or
 * the whole table.  Synchronous. */
KCU_API int kcu_ham_sync(kcu_ham *d, const mcf_hamiltonian *h);

/* Bytes one pass over the Hamiltonian reads: col, hop_re, hop_im of every slot and onsite;
 * with factorized hoppings onsite, the field and (unless computed from the row) the
 * lattice's columns. */
KCU_API size_t kcu_ham_bytes(const kcu_ham *d);

/* *d brought to h whole: created when NULL, created anew when h's dimension or width is not
 * the copy's, else every entry uploaded (no journal: for operators that are rebuilt, or
 * passed anew, at every call, like response's current operators). */
KCU_API int kcu_ham_load(kcu_ham **d, const mcf_hamiltonian *h);

/* Rows uploaded by row updates / full uploads so far (for the tests). */
KCU_API void kcu_ham_stats(const kcu_ham *d, uint64_t *rows_updated, uint64_t *full_uploads);

/* ---- Chebyshev moments of vector blocks (DOS, LDOS, Green's functions) -------------- */

typedef struct kcu_engine kcu_engine;

/* Scratch for vectors of dimension dim in blocks of up to `block` (1..64) vectors. */
KCU_API int kcu_engine_create(size_t dim, size_t block, kcu_engine **out);
KCU_API void kcu_engine_destroy(kcu_engine *e);
/* Which block step the engine's recursions take (kpm_cuda_step.cuh; the benchmark's and the
 * tests' knob): 0 the plugin's rule (the default), -1 always the grid-stride step, k > 0 the
 * marching step wherever the rows form a square or cubic grid and B >= 8, k planes a block. */
KCU_API void kcu_engine_march(kcu_engine *e, int mode);
/* Whether the marching step shares each row's slots among the row's 8 lanes (kpm_cuda_step.cuh,
 * kcu_march_row; the benchmark's and the tests' knob): 1 yes, 0 no, 2: factorized rows on an
 * L^3 grid march with each thread's column of x in registers (kpm_cuda_zmarch.cuh; elsewhere
 * as 0); -1 the plugin's rule (shared for a table and for a field of rank 1 or 2; constant
 * hoppings: 2 on L^3, else 0). */
KCU_API void kcu_engine_march_share(kcu_engine *e, int share);
/* Whether the recursion takes two Chebyshev steps a launch where it can (kpm_cuda_pair.cuh:
 * factorized rows on an L^3 grid, L a multiple of 8, blocks of 8 or more; two more vectors
 * of the block on the device): 1 yes, -1 never, 0 the plugin's rule: never, since the march
 * with the columns in registers is faster (the benchmark's and the tests' knob). */
KCU_API void kcu_engine_pairs(kcu_engine *e, int mode);

/* Per-vector moments of R random vectors (kind 0: random phases, 1: complex Gaussians)
 * from `seed`, advanced `block` at a time: mu_vec[r M + n] = <r|T_n(H~)|r> / dim (host
 * array, R M values).  d must be synced.  Refuses moments beyond mu_0 like
 * kpm_moments_diag. */
KCU_API int kcu_random_moments(kcu_engine *e, const kcu_ham *d, double a, double b, int kind,
                               uint64_t seed, size_t R, size_t M, double *mu_vec);

/* Moments of the unit vectors of rows[0..n_rows): mu[j M + n] = <rows[j]|T_n(H~)|rows[j]>. */
KCU_API int kcu_rows_moments(kcu_engine *e, const kcu_ham *d, double a, double b,
                             const size_t *rows, size_t n_rows, size_t M, double *mu);

/* Times `steps` Chebyshev steps of a block of nvec random vectors (the benchmark):
 * seconds per step, and the bytes per step the layout implies (Hamiltonian + 3 vector
 * passes). */
KCU_API int kcu_time_steps(kcu_engine *e, const kcu_ham *d, double a, double b, size_t nvec,
                           size_t steps, double *seconds_per_step, double *bytes_per_step);

/* ---- a Chebyshev series applied to a block (density_matrix; kpm_cuda_pf.cu) ---------- */
typedef struct kcu_series kcu_series;
/* Scratch for blocks of up to `block` (1..64) vectors of dimension dim: three device
 * blocks and one pinned host block. */
KCU_API int kcu_series_create(size_t dim, size_t block, kcu_series **out);
KCU_API void kcu_series_destroy(kcu_series *s);
/* y = sum_{n<Mf} c_n T_n(H~) x for nb vectors, H~ = (H - b) / a of the synced d; x and y
 * host arrays in the block layout of plugins/kpm/kpm_core.h (stride nb).  Synchronous.
 * MCF_EINVAL for a non-finite result (a spectrum outside the scaling's bounds). */
KCU_API int kcu_series_apply(kcu_series *s, const kcu_ham *d, double a, double b,
                             const double *c, size_t Mf, size_t nb, const double *x,
                             double *y);

/* The gradient of quadratic forms of a series (pseudofermion; kpm_cuda_pf.cu): scratch for
 * up to `block` (1..32) vectors of dimension dim over a table of `width` slots. */
typedef struct kcu_pf kcu_pf;
KCU_API int kcu_pf_create(size_t dim, int width, size_t block, kcu_pf **out);
KCU_API void kcu_pf_destroy(kcu_pf *s);
/* Which path kcu_pf_gradient takes (the tests' and benchmark's knob): 0 the plugin's rule (the
 * one cooperative kernel of kpm_cuda_pf_fused.cu wherever it applies, in blocks of 512
 * threads from 8192 rows, else of 128; the launches per order where it does not apply), 1
 * the cooperative kernel in blocks of 128 threads, 2 in blocks of 512, -1 the launches. */
KCU_API void kcu_pf_fused_mode(kcu_pf *s, int mode);
/* As plugins/kpm's kpm_series_gradient, on the synced d of h (h for the table's pattern):
 * y = sum c_n T_n(H~) x and the gradient D added to g_diag, g_re, g_im (host arrays). */
KCU_API int kcu_pf_gradient(kcu_pf *s, const kcu_ham *d, const mcf_hamiltonian *h,
                            double a, double b, const double *c, size_t M, size_t nb,
                            const double *x, double *y, double *g_diag, double *g_re,
                            double *g_im);
/* One chain's part of kcu_pf_batch: kcu_pf_gradient's arguments (gd NULL: the series alone,
 * y = sum_{n<M} c_n T_n(H~) x, as kcu_series_apply) and done, set to 1 when it was taken. */
typedef struct kcu_pf_job {
    kcu_pf *s;
    const kcu_ham *d;
    const mcf_hamiltonian *h;
    double a, b;
    const double *c;
    size_t M;
    const double *x;
    double *y, *gd, *gre, *gim;
    int done;
} kcu_pf_job;
/* The jobs of several chains (all gradients or all series, nb flavours each) in cooperative
 * launches of as many chains as fit at once (kpm_cuda_pf_fused.cu); the jobs it does not
 * take (done = 0: too large, or one chain alone where the launches are faster) are left
 * to kcu_pf_gradient or kcu_series_apply, whose results the taken ones equal bit for bit.
 * Synchronous.  Everything a job points to stays the caller's (borrowed for the call); the
 * taken jobs' y is written and their gradient added to gd, gre, gim.  Errors: MCF_EINVAL for a
 * job that does not fit its scratch (nb, dimension, width), or a non-finite series (as
 * kcu_series_apply); a CUDA failure as kcu_fail reports it. */
KCU_API int kcu_pf_batch(kcu_pf_job *jobs, size_t n, size_t nb);

/* ---- two-dimensional moments (response; kpm_cuda_response.cu) ---------------------------
 *
 * The sums over R vectors of x_nm = <v| A T_n(H~) B T_m(H~) |v> / dim (plugins/kpm's
 * kpm_response_sums on the device): per pass of nv vectors the betas B T_m v of a block of
 * m (all M where memory allows), the gammas T_n A v in chunks, their products by batched
 * ZGEMM (cuBLAS). */
typedef struct kcu_response kcu_response;
/* What a scratch may use (0: automatic): vectors a pass, betas a block, gammas a chunk, and
 * device bytes (automatic: three quarters of the free memory).  The tests' and the
 * benchmark's knob. */
typedef struct kcu_response_limits {
    size_t vectors, beta_block, gamma_block, bytes;
} kcu_response_limits;
/* Where a call's time went (the benchmark): seconds in the sparse products, in the matrix
 * products and sums (with the gammas' carry), and the rest (uploads, downloads); the
 * products' count and bytes (table, x, y and p of each), the matrix products' flops.  A
 * call given one drains the stream between phases. */
typedef struct kcu_response_timing {
    double products_s, gemm_s, other_s, total_s;
    double product_bytes, gemm_flops;
    size_t products;
} kcu_response_timing;
/* Scratch for dimension dim, M moments, up to R vectors a call.  MCF_ENOMEM when not even
 * 16 betas fit (the message says how much is needed and free). */
KCU_API int kcu_response_create(size_t dim, size_t M, size_t R,
                                const kcu_response_limits *lim, kcu_response **out);
KCU_API void kcu_response_destroy(kcu_response *s);
/* The shape chosen: vectors a pass, betas a block, gammas a chunk. */
KCU_API void kcu_response_shape(const kcu_response *s, size_t *nv, size_t *mb, size_t *nb);
/* The sums of R vectors (fill(ctx, nv, v) writes the next nv into v: vector after vector,
 * dim interleaved complex entries each) over the device copies h, A, B (synced), H~ =
 * (H - b) / a: sum_re, sum_im [n M + m], sum_sq (NULL: not wanted) = sum |x_nm|^2, each over
 * the vectors in the order drawn.  Synchronous; timing may be NULL. */
KCU_API int kcu_response_sums(kcu_response *s, const kcu_ham *h, const kcu_ham *A,
                              const kcu_ham *B, double a, double b, size_t R,
                              void (*fill)(void *ctx, size_t nv, double *v), void *ctx,
                              double *sum_re, double *sum_im, double *sum_sq,
                              kcu_response_timing *timing);

/* ---- moments of given vectors (vector_moments; kpm_cuda_vmoments.cu) ---------------------
 *
 * mu_jn = <v_j| T_n(H~) |v_j> for the caller's vectors, by each vector's recursion to
 * n = ceil(M / 2) and the doubling identities mu_2n = 2 <t_n|t_n> - mu_0,
 * mu_2n+1 = 2 <t_n+1|t_n> - mu_1, in passes of up to 64 vectors. */
typedef struct kcu_vmoments kcu_vmoments;
/* Scratch for dimension dim and up to M moments. */
KCU_API int kcu_vmoments_create(size_t dim, size_t M, kcu_vmoments **out);
KCU_API void kcu_vmoments_destroy(kcu_vmoments *s);
/* The moments of nv vectors v (vector after vector, dim interleaved complex entries each)
 * over the device copy h (synced), H~ = (H - b) / a, into mu[j M + n].  Synchronous. */
KCU_API int kcu_vmoments_run(kcu_vmoments *s, const kcu_ham *h, double a, double b, size_t M,
                             size_t nv, const double *v, double *mu);

/* ---- reconstruction by batched cuFFT ----------------------------------------------- */

typedef struct kcu_dct kcu_dct;

/* A plan for N nodes, M <= N moments, batches of up to `batch` series. */
KCU_API int kcu_dct_create(size_t N, size_t M, size_t batch, kcu_dct **out);
KCU_API void kcu_dct_destroy(kcu_dct *p);

/* For nb <= batch moment sets mu[j M + n] (host) with kernel g[0..M): the density
 * out[j N + i] (per unit energy, ascending grid, as kpm_dct_density), or the Green's
 * function re/im[j N + i] (as kpm_dct_green with real moments). */
KCU_API int kcu_dct_density(kcu_dct *p, const double *mu, size_t nb, const double *g,
                            double a, double *out);
KCU_API int kcu_dct_green(kcu_dct *p, const double *mu, size_t nb, const double *g, double a,
                          double *re, double *im);

/* ---- GFMC ------------------------------------------------------------------------- */

typedef struct kcu_gfmc kcu_gfmc;

/* How a GFMC launch may run (the plugin's [evaluator] keys gfmc_blocks, gfmc_fft and
 * gfmc_on_chip).  NULL where a function takes settings: KCU_GFMC_SETTINGS_DEFAULT,
 * the automatic choices. */
typedef struct kcu_gfmc_settings {
    /* blocks per chain G (the cluster size): 1, 2, 4, 8 or 16 (16 is a non-portable
     * cluster size: a device that cannot place one gets 8); 0: about two rows per thread,
     * more while the batch leaves SMs idle.  G sets the order in which the blocks' sums
     * are added, so results differ in the last bits between values of G */
    int blocks_per_chain;
    /* 1: the Green's functions at the nodes by FFT in shared memory where the launch has
     * room and 2N is a power of 2; 0: Horner's rule (the direct sums) at every node.  The
     * two differ in the last bits */
    int fft;
    /* 1: each block keeps its rows of the vectors in shared memory where they fit beside
     * its rows of H (the cluster's blocks gather through distributed shared memory); 0: the
     * vectors stay in global memory.  Speed only: the same bits either way */
    int shared_vectors;
    /* 1: the recursion by vector (warp j runs vector j's steps alone, its lanes' rows in
     * registers, no block barrier) where a launch allows it: one block per chain, at most
     * KCU_BY_VECTOR_ROWS rows, one width of 6 or 7 for the batch; 0: always by row (the
     * block's threads over the rows, one barrier per step).  The sums differ in the last
     * bits between the two */
    int by_vector;
} kcu_gfmc_settings;

#define KCU_GFMC_SETTINGS_DEFAULT {0, 1, 1, 1}

/* Rows up to which the recursion runs by vector (two rows a lane; measured on an H100:
 * docs/benchmarks.md, "Small lattices: the main job on the GPU"). */
#define KCU_BY_VECTOR_ROWS 64

/* What one GFMC launch did (for the tests and the benchmark): filled by the call that
 * launched, when its `info` is not NULL. */
typedef struct kcu_gfmc_info {
    int cluster;        /* blocks per chain G of the launch */
    int h_shared;       /* 1: the blocks kept their rows of H in shared memory; 0: the table */
    int v_shared;       /* 1: and their rows of the vectors (distributed shared memory) */
    int fft;            /* 1: the Green's functions by FFT in shared memory; 0: Horner's rule */
    int by_vector;      /* 1: the recursion by vector (kcu_gfmc_settings.by_vector) */
    /* seconds the first chain's first block spent in the recursion (start vectors and row
     * updates included), in the Green's functions and d at the nodes (the fused transform),
     * and in the phase sum (the device's %globaltimer); 0 where the launch failed */
    double recursion, green, rest;
} kcu_gfmc_info;

/* Scratch for one chain of dimension dim: M moments (2 M with extrapolate), N nodes (0:
 * twice the moments computed; N >= that number), the Lorentz kernel of lambda. */
KCU_API int kcu_gfmc_create(size_t dim, size_t M, size_t N, double lambda, int extrapolate,
                            kcu_gfmc **out);
KCU_API void kcu_gfmc_destroy(kcu_gfmc *g);

#define KCU_JOB_VECTORS 4 /* vectors a GFMC job runs: u_0, u_1, u_0 + u_1, u_0 + i u_1 */

typedef struct kcu_gfmc_job {
    kcu_gfmc *g;                    /* the chain's scratch */
    kcu_ham *d;                     /* the chain's device Hamiltonian */
    const mcf_hamiltonian *h;       /* the host Hamiltonian d mirrors (for the journal) */
    double a, b;                    /* rescaling of h */
    double T, mu;                   /* > 0; finite */
    const mcf_local_change *change; /* checked by the caller (mcf_local_change_check) */
    /* kcu_gfmc_contour only: the job's contour (kpm_core.h, "GFMC on a contour"), chosen on
     * the host by kpm_contour_plan_for for the job's T, mu, a, b: the ellipse e^{gamma} with
     * N half-contour intervals (N + 1 nodes, N + 1 <= 2 x the scratch's nodes), the
     * quadrature strip tau, the enclosed Fermi poles (borrowed) */
    const struct kpm_contour_plan *contour;
    /* kcu_gfmc_moments only: the start vectors.  KCU_START_CHANGE (0, what a job not
     * naming one gets): u_0, u_1, u_0 + u_1, u_0 + i u_1 of `change`.  Otherwise change is
     * not read and the KCU_NV vectors are independent (the traces of kpm_ops): with
     * KCU_START_UNITS the unit vectors of start_row[j] (-1: a zero vector); with
     * KCU_START_PHASES or KCU_START_GAUSS random vectors j < start_n, drawn exactly as
     * kcu_random_moments draws its vectors first + j from `seed` (random phases, complex
     * Gaussians), the others zero.  The jobs of one Hamiltonian may share d: it is synced
     * before the launch. */
    int start, start_n;
    int32_t start_row[KCU_JOB_VECTORS];
    uint64_t seed, first;
} kcu_gfmc_job;

#define KCU_START_CHANGE 0
#define KCU_START_UNITS 1
#define KCU_START_PHASES 2
#define KCU_START_GAUSS 3

/* The three launches below take the settings s (NULL: the defaults) and, when info is not
 * NULL, say there what the launch did.  An invalid s->blocks_per_chain is MCF_EINVAL. */

/* dS and its error bound err (as kpm_contour_finish_diag gives them) of every job in one
 * launch: the recursion, then per chain the Green's functions at the N + 1 nodes (an FFT
 * of length 2N of the damped moments in shared memory when the launch has room, 2N is a
 * power of 2 and s->fft allows it, as info->fft reports; else Horner's rule at
 * e^{-gamma - i theta_j}), det(1 - C W) and its phase followed node by node (a warp's
 * scan), the trapezoidal sum with its error estimates, and the residues at the enclosed
 * poles.  Errors (MCF_EINVAL) as the host's: a determinant that vanishes, a phase the nodes
 * cannot follow (naming energy_points). */
KCU_API int kcu_gfmc_contour(const kcu_gfmc_job *jobs, size_t n, const kcu_gfmc_settings *s,
                             double *dS, double *err, kcu_gfmc_info *info);

/* dS of every job in one launch; with extrapolate dS = 2 dS_2M - dS_M, and the parts into
 * dS_M / dS_2M when not NULL.  Every job's d is brought up to its h first (row updates
 * ride along with the launch).  The jobs' scratches must be distinct. */
KCU_API int kcu_gfmc_run(const kcu_gfmc_job *jobs, size_t n, const kcu_gfmc_settings *s,
                         double *dS, double *dS_M, double *dS_2M, kcu_gfmc_info *info);

/* The moments only, for GFMC on the contour (finished on the host by
 * kpm_contour_finish_diag): the same launch, ending after the recursion; into mu[k] the
 * KCU_NV = 4 sets of M moments of u_0, u_1, u_0 + u_1, u_0 + i u_1 (set j at mu[k][j M];
 * for rank 1 only set 0 means anything), in each job's scaling a, b (T and mu unused).  The
 * jobs' scratches must share M and not extrapolate. */
KCU_API int kcu_gfmc_moments(const kcu_gfmc_job *jobs, size_t n, const kcu_gfmc_settings *s,
                             double *const *mu, kcu_gfmc_info *info);

/* Scratch for `jobs` jobs of independent start vectors (kcu_gfmc_job.start other than
 * KCU_START_CHANGE) of dimension dim and M moments, in one device allocation: *out owned by
 * the caller (kcu_traces_destroy); job i's kcu_gfmc is kcu_traces_job(t, i) (NULL for i out
 * of range), owned by t (not for kcu_gfmc_destroy).  Launches with such a job run one
 * block per chain (by vector where the lattice allows).  Errors: MCF_EDEVICE (no device),
 * MCF_EINVAL (dim, M < 2 or jobs out of range), MCF_ENOMEM (with the sizes). */
typedef struct kcu_traces kcu_traces;
KCU_API int kcu_traces_create(size_t dim, size_t M, size_t jobs, kcu_traces **out);
KCU_API void kcu_traces_destroy(kcu_traces *t);
KCU_API kcu_gfmc *kcu_traces_job(kcu_traces *t, size_t i);

/* The moments of the last run of g (4 vectors x M_tot, vector-major; host), for tests. */
KCU_API int kcu_gfmc_last_moments(const kcu_gfmc *g, double *mu);

#ifdef __cplusplus
}
#endif
#endif
