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

/* Staging of one chain's call (kpm_cuda_pf.cu): x (the host block layout of kpm_core.h) into
 * s->phi and s->v0 and h's pattern into s->col where it changed; the series (and with grad
 * the gradient) back to the pinned host, asynchronously; after the stream's sync, y and the
 * gradient added to g_diag, g_re, g_im (g_diag NULL: the series alone, refused when not
 * finite, the spectrum outside [b - a, b + a]). */
int kcu_pf_stage_in(kcu_pf *s, const mcf_hamiltonian *h, const double *x, size_t nb);
int kcu_pf_stage_out(kcu_pf *s, size_t nb, int grad);
int kcu_pf_unpack(const kcu_pf *s, size_t nb, double a, double b, double *y, double *g_diag,
                  double *g_re, double *g_im);

/* The one cooperative kernel (kpm_cuda_pf_fused.cu), for gradients (job.gd not NULL) or
 * series alone of at most 8 flavours and 7 slots a row: *fit, how many of the first jobs one
 * launch takes (every row's four threads of all of them resident at once, at most
 * KCU_FUSED_CHAINS, one field rank; 0 where it does not apply, or kcu_pf_fused_mode -1);
 * kcu_pf_fused launches the
 * first n (staged in) and leaves the series in s->acc and the gradient in s->gd, s->gre,
 * s->gim (written, not added), as kcu_pf_record's launches leave them. */
int kcu_pf_fused_fit(const kcu_pf_job *jobs, size_t n, size_t nb, size_t *fit);
int kcu_pf_fused(const kcu_pf_job *jobs, size_t n, size_t nb);

#endif
