/* kpm_cuda_pf.cuh — the pseudofermion scratch (kcu_pf) and the step's arguments, shared by
 * kpm_cuda_pf.cu (the series and the gradient by one launch per order) and
 * kpm_cuda_pf_fused.cu (the gradient in one cooperative launch). */
#ifndef MCF_KPM_CUDA_PF_CUH
#define MCF_KPM_CUDA_PF_CUH

#include "kpm_cuda_internal.cuh"

struct kcu_pf {
    size_t dim, block;      /* block: the most flavours (nb) of one call */
    int width;
    double2 *v0, *v1, *acc; /* forward: dim x nb */
    double2 *X, *Y, *phi;   /* backward: dim x 2 nb; phi dim x nb */
    double *gd, *gre, *gim; /* the gradient: dim, width x dim, width x dim */
    int32_t *col;           /* the pattern, width x dim */
    int32_t *col_host;
    double2 *host;          /* pinned: dim x nb */
    double *ghost;          /* pinned: (2 width + 1) x dim */
    /* the recursion's ~3M launches captured once as a CUDA graph and replayed while the
     * Hamiltonian's device copy, the scaling, the series and nb stay (a launch costs a few
     * us: at 8^3-16^3 the force was bound by them, docs/benchmarks.md) */
    cudaGraphExec_t graph;
    cudaStream_t capture;   /* the scratch's own stream, only captured on */
    const kcu_ham *g_d;
    double g_a, g_b;
    size_t g_M, g_nb;
    double *g_c;            /* the series the graph was built for (host copy) */
    double *dev_c;          /* the fused kernel's copy of the series on the device */
    size_t dev_c_n;
    int fused_mode;         /* kcu_pf_fused_mode */
};

struct kcu_pf_args {
    const int32_t *col;
    const double *hre, *him, *ons;
    const double2 *field;
    double famp;
    long long fL, dim;
    int width, B, first, nb;
    const double2 *x, *phi;
    double2 *y, *acc;
    double ia, b, c;
};

/* The gradient in one cooperative kernel (kpm_cuda_pf_fused.cu) where it applies (at most 8
 * flavours and 8 slots a row, every row's thread resident at once): the series into s->acc
 * and the gradient into s->gd, s->gre, s->gim (written, not added), as kcu_pf_record's
 * launches leave them; *done = 0 where it does not apply (the caller takes the launches).
 * MCF_OK or an error. */
int kcu_pf_fused(kcu_pf *s, const kcu_ham *d, double a, double b, const double *c, size_t M,
                 size_t nb, int *done);

#endif
