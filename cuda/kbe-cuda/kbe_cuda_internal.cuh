/* kbe_cuda_internal.cuh — what kbe_cuda_step.cu (the step), kbe_cuda_sigma.cu and
 * kbe_cuda_direct.cu (second Born's self-energy row), kbe_cuda_collision.cu (the collision
 * integrals) and kbe_cuda_bdf.cu (order p) share: the device state, complex helpers, the
 * block index and the launches' checks.  Not for the plugin or the tests. */
#ifndef MCF_KBE_CUDA_INTERNAL_CUH
#define MCF_KBE_CUDA_INTERNAL_CUH

#include "kbe_cuda_device.h"

#include "mcf/error.h"
#include "mcf_cuda.h"

#include <cuComplex.h>
#include <cufft.h>

typedef cuDoubleComplex cplx;

#define KBCU_CHUNK 64  /* time points a cuFFT call transforms (4 band pairs each) */
#define KBCU_THREADS 256
/* the collision pass's tiles (kbe_cuda_collision.cu): rows, columns, k values of a tile */
#define KBCT_ROWS 32
#define KBCT_COLS 64
#define KBCT_K 8

/* order p > 2 (kbe_cuda_bdf.cu): the CPU's weights, passed by value to the kernels (1.2 KB
 * of parameters, read from the constant bank) */
#define KBCU_MAX_ORDER 5 /* KBE_GREGORY_MAX_ORDER (kbe_core.h is C, not for nvcc) */
#define KBCU_GREG_WIDTH (2 * KBCU_MAX_ORDER + 2)
typedef struct kbcu_tab {
    int p;                                /* the order; 2: the table is not used */
    double a[KBCU_MAX_ORDER + 1];         /* BDF: h y' ~ sum_l a_l y_{n-l} */
    double greg[KBCU_GREG_WIDTH * KBCU_GREG_WIDTH]; /* Gregory's weights, rows of 2p + 2 */
} kbcu_tab;

/* kbe_greg: Gregory's weight of t_s in int_0^{t_n} (s <= max(n, p - 1)) */
__host__ __device__ __forceinline__ double greg_w(const kbcu_tab &t, size_t n, size_t s)
{
    const size_t p = (size_t)t.p, width = 2 * p + 2;
    if (n < width)
        return t.greg[n * width + s];
    /* past the table the end corrections no longer overlap: the last row's ends, 1 between */
    const double *last = t.greg + (width - 1) * width;
    if (s < p)
        return last[s];
    if (n - s < p)
        return last[width - 1 - (n - s)];
    return 1.0;
}

struct kbcu_dev {
    kbcu_dev_spec s;
    size_t nk, rows_alloc;   /* rows_alloc: steps + 1 rounded up to KBCU_CHUNK */
    cplx *gl, *gg;           /* the triangle */
    cplx *sl, *sg;           /* Sigma^lg(t_m, t_s), s = 0 .. m (2b) */
    cplx *il, *ig, *jl, *jg; /* the collision integrals' rows at t_n and t_{n+1} (2b) */
    cplx *idiag;             /* I^<(t_n, t_n) of every step (2b) */
    cplx *part;              /* the collision pass's partial sums (2b) */
    cplx *fa, *fb, *fc, *fd; /* FFT rows: A^<, B^< (for Sigma^<), A^>, B^> (2b) */
    cplx *hn, *h1, *V, *rho; /* 4 nk each (rho: 4) */
    double *eps, *E, *U, *resk, *res;
    cufftHandle plan;
    int have_plan;
    int stale; /* rows put: the collision integrals' row at t_n not formed yet (2b) */
    /* order p > 2 (kbe_cuda_bdf.cu): the weights; second Born's Sigma^R(t_{n+1}, t_s) row
     * and the strip's self-energy Sigma^lg(t_j, t_s), s = 0 .. n + 1 (rows_alloc blocks
     * each); the local density at a strip point (4) */
    kbcu_tab tab;
    cplx *sr, *tl, *tg, *rhoj;
    cudaGraphExec_t exec;  /* the last step's graph (kbe_cuda_graph.cu), have_exec */
    int have_exec;
    size_t instantiations; /* graphs instantiated (the rest updated in place) */
};

/* ---- complex helpers ---- */
__device__ __forceinline__ cplx cmul(cplx a, cplx b) { return cuCmul(a, b); }
__device__ __forceinline__ cplx cadd(cplx a, cplx b) { return cuCadd(a, b); }
__device__ __forceinline__ cplx csub(cplx a, cplx b) { return cuCsub(a, b); }
__device__ __forceinline__ cplx cscale(double w, cplx a)
{
    return make_cuDoubleComplex(w * a.x, w * a.y);
}
__device__ __forceinline__ cplx cconj(cplx a) { return cuConj(a); }

/* the block of the time pair (i, j), i >= j */
__host__ __device__ __forceinline__ size_t pair_of(size_t i, size_t j)
{
    return i * (i + 1) / 2 + j;
}

__device__ __forceinline__ void load4(const cplx *b, size_t nk, size_t k, cplx *x)
{
    for (int q = 0; q < 4; q++)
        x[q] = b[q * nk + k];
}

__device__ __forceinline__ void store4(cplx *b, size_t nk, size_t k, const cplx *x)
{
    for (int q = 0; q < 4; q++)
        b[q * nk + k] = x[q];
}

static inline unsigned blocks_for(size_t count)
{
    return (unsigned)((count + KBCU_THREADS - 1) / KBCU_THREADS);
}

static inline int launched(const char *what)
{
    const cudaError_t e = cudaGetLastError();
    return e == cudaSuccess ? MCF_OK : mcu_fail((int)e, "kbe-cuda", what, 0, NULL);
}

/* second Born's row Sigma^lg(t_m, t_s), s = 0 .. m, into d->sl, d->sg (kbe_cuda_sigma.cu) */
KBCU_API int kbcu_sigma_row(kbcu_dev *d, size_t m);
/* the line Sigma^lg(t_m, t_s), s = 0 .. count - 1, into ol, og: below the diagonal (s <= m)
 * the row's pairs, above it Sigma^lg(t_s, t_m) (the pair (s, m) as formed, not yet its
 * adjoint: the CPU's kbe_sigma_pair(w, s, m)); by cuFFT or the seed's loops as d->s.direct
 * says (kbe_cuda_sigma.cu) */
KBCU_API int kbcu_sigma_line(kbcu_dev *d, size_t m, size_t count, cplx *ol, cplx *og);
/* the line by the seed's loops (kbe_cuda_direct.cu) */
KBCU_API int kbcu_sigma_direct(kbcu_dev *d, size_t m, size_t count, cplx *ol, cplx *og);
/* the stored pair of the line entry s of time m: (max, min) */
__host__ __device__ __forceinline__ size_t line_pair(size_t m, size_t s)
{
    return s <= m ? pair_of(m, s) : pair_of(s, m);
}
/* rho_loc of row n into rho (4 values; kbe_cuda_step.cu's reduction) and h(t_n) at the drive
 * E[n], U[n] from rho into h (4 nk, k-major as d->h1) — the step's own kernels */
KBCU_API int kbcu_local_density(kbcu_dev *d, size_t n, cplx *rho);
KBCU_API int kbcu_fill_h(kbcu_dev *d, size_t n, const cplx *rho, cplx *h);
/* the collision integrals I^lg(t_m, t_j), j = 0 .. m, from d->sl, d->sg into il, ig
 * (kbe_cuda_collision.cu), with kbcu_collision_scratch(rows_alloc, nk) complex values of
 * partial sums at d->part */
KBCU_API int kbcu_collision_row(kbcu_dev *d, size_t m, cplx *il, cplx *ig);
KBCU_API size_t kbcu_collision_scratch(size_t rows, size_t nk);
/* order p (kbe_bdf.c's collision_rest for j = 0 .. m - 1): the known part of I^lg(t_m, t_j),
 * the first integral over s < m, the second whole, by Gregory's weights, into il, ig; the
 * same tiles (kbe_cuda_collision.cu) */
KBCU_API int kbcu_collision_rest(kbcu_dev *d, size_t m, cplx *il, cplx *ig);

/* kbe_cuda_step.cu's pieces that the step of order p (kbe_cuda_bdf.cu) uses too: the drive
 * E[n], U[n] (one thread), and the step's corrector residual into res (the max over k of
 * resk when a corrector pass measured it, else 0), both enqueued on the plugin's stream */
__global__ void k_set_drive(double *E, double *U, size_t n, double E1, double U1);
void kbcu_residual_of_step(kbcu_dev *d, int measured);

#endif
