/* tetra_cuda_internal.cuh — the layout of a GPU grid, shared by the files of
 * mcf_tetra_cuda (not by its users, who go through tetra_cuda.h):
 *   tetra_cuda_grid.cu    making a grid (from a crystal or from bands), its tables, copies;
 *   tetra_cuda_eigen.cu   H(k) on the device and the batched eigensolvers;
 *   tetra_cuda_dos.cu     the sums over tetrahedra: DOS, N(E), orbital DOS, band energy,
 *                         the Fermi level. */
#ifndef MCF_TETRA_CUDA_INTERNAL_CUH
#define MCF_TETRA_CUDA_INTERNAL_CUH

#include "tetra_cuda.h"

#include <cuda_runtime.h>

/* the grid's shape as kernels take it (by value) */
struct tcu_shape {
    unsigned n0, n1, n2;       /* points along each reciprocal vector */
    unsigned bands;
    unsigned char corner[6][4]; /* tetra_cut_cells: corner i of tetrahedron t as bits */
};

struct tcu_grid {
    size_t n[3], nk, bands;
    tcu_shape shape;
    double emin, emax;
    double *eps;      /* device: nk x bands, ascending per k */
    double *weight;   /* device: nk x bands x bands, |<a|n,k>|^2; NULL without */
    float *eps_f;     /* float copies, made at the first single- or mixed-precision call */
    float *weight_f;
    void *scratch;    /* device: the DOS call's sorted energies and chunk sums */
    size_t scratch_bytes;
    tcu_timing timing;
};

/* the k index of corner `bits` of cell c */
__device__ __forceinline__ unsigned tcu_corner_k(const tcu_shape &s, unsigned c, unsigned bits)
{
    const unsigned i0 = c % s.n0, i1 = (c / s.n0) % s.n1, i2 = c / (s.n0 * s.n1);
    const unsigned j0 = i0 + (bits & 1u) == s.n0 ? 0u : i0 + (bits & 1u);
    const unsigned j1 = i1 + ((bits >> 1) & 1u) == s.n1 ? 0u : i1 + ((bits >> 1) & 1u);
    const unsigned j2 = i2 + ((bits >> 2) & 1u) == s.n2 ? 0u : i2 + ((bits >> 2) & 1u);
    return j0 + s.n0 * (j1 + s.n1 * j2);
}

/* tetra_cuda_eigen.cu: the bands (and weights) of p at every k point of g into g->eps and
 * g->weight (allocated by the caller), with timings into g->timing */
int tcu_solve_bands(const mcf_periodic *p, const double shift[3], tcu_grid *g,
                    tcu_solver solver);

/* tetra_cuda_grid.cu: the extremes of the bands (g->emin, g->emax) */
int tcu_grid_extremes(tcu_grid *g);
/* the float copies of the bands and weights (made once) */
int tcu_grid_float_tables(tcu_grid *g);
/* device scratch of at least `bytes` (kept between calls) */
int tcu_grid_scratch(tcu_grid *g, size_t bytes, void **out);

#endif
