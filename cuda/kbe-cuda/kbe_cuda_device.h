/* kbe_cuda_device.h — the device half of kbe-cuda (kbe_cuda_step.cu, kbe_cuda_sigma.cu):
 * the two-time storage of G^< and G^> on the GPU and the second-order step of kbe_step.c
 * on it (kbe_cuda_bdf.cu, kbe_cuda_strip.cu: kbe_bdf.c's step of order p past the start),
 * every array of complex numbers as interleaved doubles (re, im) so that C and CUDA share
 * this header.
 * Layouts as plugins/kbe: a block of a time pair is 4 nk values, band pair major, k
 * innermost; the triangle i >= j in row-major order (block i (i + 1) / 2 + j).  The caller
 * (kbe_cuda.c) checks the spec; this file trusts it.  Not part of the SDK. */
#ifndef MCF_KBE_CUDA_DEVICE_H
#define MCF_KBE_CUDA_DEVICE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define KBCU_API __attribute__((visibility("hidden")))
#else
#define KBCU_API
#endif

typedef struct kbcu_dev kbcu_dev;

typedef struct kbcu_dev_spec {
    size_t nk, steps;
    int selfenergy;      /* kbe_selfenergy: 0 none, 1 hf, 2 2b (3, given, is refused above) */
    int direct;          /* 2b: the seed's loops over k instead of the FFT */
    double dt, dipole;
    const double *eps;   /* nk x 2 */
    const double *g0l;   /* G^<(0, 0): 4 nk complex, the block layout */
    const double *g0g;   /* G^>(0, 0) */
    double E0, U0;       /* the drive at t_0 */
    /* order p = 3 .. 5 (kbe_cuda_bdf.cu; 2: none of the rest): the BDF weights a_0 .. a_p
     * and Gregory's table of kbe_core.c's kbe_order_init (rows n = 0 .. 2p + 1 of 2p + 2) */
    int order;
    const double *bdf, *greg;
} kbcu_dev_spec;

/* Allocates and fills the device state (MCF_ENOMEM / MCF_EDEVICE with the reason). */
KBCU_API int kbcu_dev_create(const kbcu_dev_spec *s, kbcu_dev **out);
KBCU_API void kbcu_dev_destroy(kbcu_dev *d);
/* The step t_n -> t_{n+1} (n the steps taken) with the drive at t_{n+1} and `passes` passes
 * (1 + correctors; 1 without interaction), enqueued on the plugin's stream; the corrector
 * residual stays on the device (kbcu_dev_residual). */
KBCU_API int kbcu_dev_step(kbcu_dev *d, size_t n, double E1, double U1, int passes);
/* The step of order p > 2 past the start block (n + 1 > 2p - 2; kbe_cuda_bdf.cu, the CPU's
 * kbe_step_bdf), the same arguments as kbcu_dev_step; rows 0 .. 2p - 2 are the CPU's start
 * block, put by kbcu_dev_put_row. */
KBCU_API int kbcu_dev_step_bdf(kbcu_dev *d, size_t n, double E1, double U1, int passes);
/* The same step (kbcu_dev_step, or kbcu_dev_step_bdf when bdf) captured as one CUDA graph and
 * launched once (kbe_cuda_graph.cu): the same kernels, arguments and order, so the same
 * numbers; and how many graphs were instantiated (a step whose launches have the last step's
 * shape only updates the last graph). */
KBCU_API int kbcu_dev_step_graph(kbcu_dev *d, size_t n, double E1, double U1, int passes,
                                 int bdf);
KBCU_API size_t kbcu_dev_graph_instantiations(const kbcu_dev *d);
/* Block (i, j), i >= j, of G^< (lesser) or G^> into out (4 nk complex); waits for the
 * stream. */
KBCU_API int kbcu_dev_block(kbcu_dev *d, int lesser, size_t i, size_t j, double *out);
/* I^<(t_n, t_n) of step n (second Born; zeros otherwise) into out (4 nk complex). */
KBCU_API int kbcu_dev_idiag(kbcu_dev *d, size_t n, double *out);
/* Row n of G^< and G^> (n + 1 blocks each, j = 0 .. n, as stored) and second Born's
 * I^<(t_n, t_n) (idiag; NULL without) out of the device (get) or into it (put, with the
 * drive at t_n; the collision integrals' row at t_n is then formed by the next step, from
 * the rows <= n, as at the end of a step).  Both wait for the copies. */
KBCU_API int kbcu_dev_get_row(kbcu_dev *d, size_t n, double *gl, double *gg, double *idiag);
KBCU_API int kbcu_dev_put_row(kbcu_dev *d, size_t n, const double *gl, const double *gg,
                              const double *idiag, double E, double U);
/* Benchmarks: the mean seconds of second Born's row and of the collision integrals' row at
 * t_m (m <= the steps taken), each run `reps` times after one untimed run (CUDA events);
 * the step's scratch rows are overwritten (call between steps only). */
KBCU_API int kbcu_dev_time_parts(kbcu_dev *d, size_t m, int reps, double *t_sigma,
                                 double *t_collision);
/* The last step's corrector residual (max |change| of rho(t_n) by the last pass); waits. */
KBCU_API int kbcu_dev_residual(kbcu_dev *d, double *r);

#ifdef __cplusplus
}
#endif
#endif
