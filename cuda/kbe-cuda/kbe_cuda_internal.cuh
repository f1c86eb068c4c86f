/* kbe_cuda_internal.cuh — what kbe_cuda_step.cu (the step) and kbe_cuda_sigma.cu (second
 * Born: the self-energy's row and the collision integrals) share: the device state, complex
 * helpers, the block index and the launches' checks.  Not for the plugin or the tests. */
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
/* the same row by the seed's loops (kbe_cuda_direct.cu) */
KBCU_API int kbcu_sigma_direct(kbcu_dev *d, size_t m);
/* the collision integrals I^lg(t_m, t_j), j = 0 .. m, from d->sl, d->sg into il, ig
 * (kbe_cuda_collision.cu), with kbcu_collision_scratch(rows_alloc, nk) complex values of
 * partial sums at d->part */
KBCU_API int kbcu_collision_row(kbcu_dev *d, size_t m, cplx *il, cplx *ig);
KBCU_API size_t kbcu_collision_scratch(size_t rows, size_t nk);

#endif
