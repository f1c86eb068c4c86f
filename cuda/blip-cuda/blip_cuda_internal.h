/* blip_cuda_internal.h — what the files of the blip-cuda device layer share (CUDA only: the
 * .cu files include it).  Not installed, not part of the plugin's interface (blip_cuda.h
 * is).  The files, one concept each:
 *
 *   blip_cuda_device.cu        the device: selection, CUDA errors as mcf errors
 *   blip_cuda_batch.cu         what a batch keeps (bcu_batch, a keep slot of mcf_batch)
 *   blip_cuda_table.cu         the coefficient table on the device and its settings
 *   blip_cuda_eval.cu          the values / vgl kernel and its batch launcher (the staging
 *                              buffers of the positions and results)
 *   blip_cuda_det.cu           a determinant's storage (create, destroy, set) and the
 *                              staging of the determinant ops
 *   blip_cuda_det_ratio.cu     trial rows, ratios and accepted moves (dot and update kernels)
 *   blip_cuda_det_refresh.cu   the drift and the Newton step of the inverses (a tiled DGEMM)
 *   blip_cuda_det_local.cu     grad_i D / D and lap_i D / D at the electrons
 *   blip_cuda_det_sweep.cu     the kernel of whole Metropolis sweeps of walkers (decisions,
 *                              Jastrow and delayed updates on the device) and its launch
 *   blip_cuda_walker_sweep.cu  the walker_sweep op: checks, staging, results */
#ifndef MCF_BLIP_CUDA_INTERNAL_H
#define MCF_BLIP_CUDA_INTERNAL_H

#include "blip_cuda.h"

#include "mcf_cuda.h"
#include "mcf/pair_function.h"
#include "mcf/rng.h"

#include <cuda_runtime.h>

#include <stddef.h>
#include <time.h>

/* ---- the device (blip_cuda_device.cu) ---------------------------------------------- */

/* the one stream of the plugin (cuda/common) */
#define bcu_stream mcu_stream()

/* A CUDA runtime failure as an mcf error naming what failed: out of memory is MCF_ENOMEM
 * with the bytes asked and free, and the advice of a coarser grid or evaluator = blip. */
BCU_API int bcu_fail(cudaError_t e, const char *what, size_t bytes);

#define BCU_TRY(call, what, bytes)                    \
    do {                                              \
        cudaError_t bcu_e_ = (call);                  \
        if (bcu_e_ != cudaSuccess)                    \
            return bcu_fail(bcu_e_, (what), (bytes)); \
    } while (0)

/* Seconds on the monotonic clock (the host timings of bcu_last_times and
 * bcu_det_last_ratio_time). */
static inline double bcu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The job owning block (or warp) b of a launch whose jobs start at Job::*first, ascending:
 * the last k with first(k) <= b (jobs of 0 blocks are skipped because the next job has the
 * same first).  How each kernel of a batch finds its workspace or determinant. */
template <typename Job, unsigned int Job::*first>
static __device__ __forceinline__ int bcu_find_job(const Job *jobs, int njobs, unsigned int b)
{
    int hi = njobs - 1, lo = 0; /* in this order the kernels' machine code is bit for bit that
                                   of the loops this helper replaced */
    while (lo < hi) {
        const int mid = (lo + hi + 1) / 2;
        if (jobs[mid].*first <= b)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

/* The sums of one orbital at one point (the vgl kernel's, blip_cuda_eval.cu, and the drift
 * sweep's at its trial points): c the table at the orbital's first float (Lrow floats per
 * grid point, ny nz points on the last two axes), idx / w the point's stencil (weights
 * from blip_axis_setup as floats, [axis][derivative][term]); out = value and, with GL, the
 * gradient (1-3) and with LAP the Laplacian (4), each a float product summed in Acc in the
 * same order wherever it is called. */
template <typename Acc, bool GL, bool LAP>
static __device__ __forceinline__ void bcu_vgl_sum(const float *__restrict__ c, size_t Lrow,
                                                   size_t ny, size_t nz, const size_t idx[3][4],
                                                   const float w[3][3][4], Acc out[5])
{
    Acc v = 0, gx = 0, gy = 0, gz = 0, lp = 0;
#pragma unroll
    for (int a = 0; a < 4; a++)
#pragma unroll
        for (int bb = 0; bb < 4; bb++) {
            const size_t base = (idx[0][a] * ny + idx[1][bb]) * nz;
            float cc[4];
#pragma unroll
            for (int k = 0; k < 4; k++)
                cc[k] = __ldg(c + (base + idx[2][k]) * Lrow);
            const float vxy = w[0][0][a] * w[1][0][bb];
            if (!GL) {
#pragma unroll
                for (int k = 0; k < 4; k++)
                    v += (Acc)(vxy * w[2][0][k]) * (Acc)cc[k];
            } else {
                const float dxy = w[0][1][a] * w[1][0][bb];
                const float xdy = w[0][0][a] * w[1][1][bb];
                const float lxy = LAP ? w[0][2][a] * w[1][0][bb] + w[0][0][a] * w[1][2][bb]
                                      : 0.0f;
#pragma unroll
                for (int k = 0; k < 4; k++) {
                    const Acc ck = (Acc)cc[k];
                    v += (Acc)(vxy * w[2][0][k]) * ck;
                    gx += (Acc)(dxy * w[2][0][k]) * ck;
                    gy += (Acc)(xdy * w[2][0][k]) * ck;
                    gz += (Acc)(vxy * w[2][1][k]) * ck;
                    if (LAP)
                        lp += (Acc)(lxy * w[2][0][k] + vxy * w[2][2][k]) * ck;
                }
            }
        }
    out[0] = v;
    out[1] = gx;
    out[2] = gy;
    out[3] = gz;
    out[4] = lp;
}

/* ---- the table (blip_cuda_table.cu) ------------------------------------------------ */

struct bcu_table {
    float *c;                  /* device: n[0] n[1] n[2] L floats, orbital index fastest */
    size_t n[3], L, bytes;
    double cell[3], inv_h[3];
    bcu_settings set;          /* how the kernels evaluate it (bcu_table_set_settings) */
};

/* ---- what a batch keeps (blip_cuda_batch.cu) ----------------------------------------- */

/* The staging of the determinant ops (blip_cuda_det.cu): jobs up and results down through
 * pinned buffers, and the ratios' numbers in mapped pinned memory. */
typedef struct det_staging {
    unsigned char *h_in, *d_in; /* jobs (pinned host / device) */
    double *h_out, *d_out;      /* results */
    size_t in_cap, out_cap;     /* bytes */
    double *res, *res_dev;      /* mapped pinned: the ratios' numbers, 3 per det */
    cudaEvent_t res_ready;
    int event_made;
} det_staging;

/* Everything blip-cuda keeps between the calls of one batch of the core (mcf/batch.h): the
 * keep slot of mcf_batch_keep, zeroed at the batch's first call, freed with the batch.  A
 * batch is used by one thread at a time, so its buffers need no lock; the launches of all
 * batches go to the plugin's one stream (cuda/common), and every buffer is replaced or
 * freed only after that stream is synchronized. */
struct bcu_batch {
    /* the values / vgl launches (blip_cuda_eval.cu) */
    unsigned char *in_host, *in_dev; /* jobs, then positions (pinned host / device) */
    double *out_host, *out_dev;      /* results */
    size_t in_cap, out_cap;          /* bytes */
    cudaEvent_t ev0, ev1;            /* around the kernel (bcu_last_times) */
    int events_made;
    double last_kernel, last_total; /* seconds of the last bcu_eval */
    /* the determinant ops and sweeps */
    det_staging det;
    double last_ratio;          /* seconds of the last bcu_det_ratio */
    double sweep_time;          /* seconds of the last bcu_walker_sweep */
    unsigned int sweep_blocks;  /* blocks per walker of its launch */
};
typedef struct bcu_batch bcu_batch;

/* The batch's bcu_batch into *kb (made on the first call, its events too, which needs the
 * device).  MCF_EINVAL without a batch; MCF_ENOMEM, MCF_EDEVICE. */
BCU_API int bcu_batch_of(mcf_batch *b, bcu_batch **kb);

/* ---- a batch of evaluations (blip_cuda_eval.cu) ------------------------------------- */

/* Evaluates (want_gl: values, gradients, Laplacians) the n tables at n_points[k] host points
 * r[k] into the DEVICE arrays dev_out[k] (phi | grad | lap, the layout of mcf/orbital.h,
 * n_points[k] L x (1 or 5) doubles) on the plugin's stream.  Asynchronous: the caller
 * synchronizes the stream before the next call (the positions go through the batch's
 * pinned buffer). */
BCU_API int bcu_eval_to_device(bcu_batch *kb, const bcu_table *const *t, size_t n,
                               const double *const *r, const size_t *n_points,
                               double *const *dev_out, int want_gl);

/* ---- determinants (blip_cuda_det*.cu) ---------------------------------------------- */

#define DET_THREADS 256  /* 8 warps: the dot, update and local kernels */
#define DET_MAX_BATCH 64 /* dets per launch of the dot and update kernels */

struct bcu_det {
    const bcu_table *t;
    unsigned int m, L;
    double *A, *Ainv, *trial, *col, *w; /* device: m*m, m*m, m*L, m, m */
    double *scratch;                    /* device, m*m, at the first refresh */
    double *vgl;                        /* device, m*L*5, at the first det_local */
    double *r, *rt;                     /* host: m x 3 positions, trial positions */
    int have_trial;                     /* det_trial was called since det_set */
    int pending;                        /* an accepted move not yet applied */
    unsigned int pend_i;
    double pend_R;
    int have_last; /* the last det_ratio's move, which det_accept may accept */
    unsigned int last_i;
    double last_R;
};

/* Grows the batch's job and result staging to in / out bytes (waits for the stream first
 * when a buffer must be replaced); makes the event and the mapped results. */
BCU_API int det_stage(bcu_batch *kb, size_t in, size_t out);

/* MCF_EINVAL naming op when the array is NULL, an entry is NULL or appears twice. */
BCU_API int det_check_batch(const char *op, bcu_det *const *d, size_t n);

/* The orbital rows of n dets on the device — with r_trial, the values at the trial
 * positions r_trial[k] into d[k]->trial (det_trial); with NULL, the values, gradients and
 * Laplacians at the electrons d[k]->r into d[k]->vgl (allocated by the caller; det_local).
 * Waits for them. */
BCU_API int det_rows(bcu_batch *kb, bcu_det *const *d, size_t n,
                     const double *const *r_trial);

/* Applies the pending accepted moves of n dets (blip_cuda_det_ratio.cu).  kb may be NULL
 * (det_get, which has no batch): the updates need no staging, and the stream orders them
 * before what follows. */
BCU_API int det_flush(bcu_batch *kb, bcu_det *const *d, size_t n);

/* ---- whole sweeps (blip_cuda_walker_sweep.cu stages, blip_cuda_det_sweep.cu runs) ------ */

#define SWEEP_M_MAX 1024 /* electrons of one spin the kernel takes */

/* one walker of a sweep launch */
typedef struct sweep_job {
    double *Ainv[2], *A[2];
    const double *trial[2]; /* the dets' trial rows, m x L */
    unsigned int m[2], L[2];
    unsigned int n;         /* electrons */
    const double *pos;      /* n x 3 positions, then n x 3 trial positions */
    double *lr;             /* n: log ratios (out) */
    unsigned char *acc;     /* n: decisions (out) */
    mcf_rng rng;
} sweep_job;

/* what a walker's sweep hands back besides lr and acc */
typedef struct sweep_out {
    mcf_rng rng;
    int status;             /* 0, or 1: a NaN log ratio at electron `bad` */
    unsigned int accepted, bad;
} sweep_out;


/* The checks every sweep op makes of its arguments (op names it in messages): the walkers'
 * array given (have_walkers), the pair functions' forms and the cell.  MCF_EINVAL. */
BCU_API int sweep_check_common(const char *op, int have_walkers, const mcf_pair_function u[2],
                               const double cell[3]);

/* The determinants of n walkers (walker k's bcu_walker at (char *)walkers + k stride: the
 * bcu_walker arrays of both sweep ops) into *dets (malloc'ed, *nd of them, freed by the
 * caller), the electrons of all walkers, the most of one spin (m_max) and of one walker
 * (n_max), each at least 1.  MCF_ENOMEM. */
BCU_API int sweep_dets(const void *walkers, size_t stride, size_t n, bcu_det ***dets,
                       size_t *nd, size_t *n_elec, unsigned int *m_max, unsigned int *n_max);

/* The window a sweep of walkers of at most m_max electrons per spin and n_max in all uses
 * for delay (0: BCU_SWEEP_DELAY_DEFAULT): the largest power of 2 <= delay and
 * BCU_SWEEP_DELAY_MAX whose shared memory fits a block; 0 when k = 1 does not fit. */
BCU_API unsigned int sweep_window(size_t delay, unsigned int m_max, unsigned int n_max);

/* Launches the sweep of nw walkers (jobs, out, u on the device) with window K on the stream,
 * `blocks` per walker (0: as many as the multiprocessors take); *used: the blocks it took.
 * A cudaError_t. */
BCU_API int sweep_launch(unsigned int K, unsigned int nw, const sweep_job *jobs,
                         sweep_out *out, const mcf_pair_function *u, const double cell[3],
                         unsigned int m_max, unsigned int n_max, unsigned int blocks,
                         unsigned int *used);

#endif
