/* blip_cuda_internal.h — what the two halves of the blip-cuda device layer share: the table
 * (blip_cuda_device.cu) and the determinant ops (blip_cuda_det.cu).  Not installed, not
 * part of the plugin's interface (blip_cuda.h is). */
#ifndef MCF_BLIP_CUDA_INTERNAL_H
#define MCF_BLIP_CUDA_INTERNAL_H

#include "blip_cuda.h"

#include <stddef.h>

struct bcu_table {
    float *c;                  /* device: n[0] n[1] n[2] L floats, orbital index fastest */
    size_t n[3], L, bytes;
    double cell[3], inv_h[3];
};

/* The process-wide lock of the staging buffers and the stream's order of batches. */
BCU_API void bcu_lock(void);
BCU_API void bcu_unlock(void);

/* With the lock held: evaluates (want_gl: values, gradients, Laplacians) the n tables at
 * n_points[k] host points r[k] into the DEVICE arrays dev_out[k] (phi | grad | lap, the
 * layout of mcf/orbital.h, n_points[k] L x (1 or 5) doubles) on the plugin's stream.
 * Asynchronous: the caller synchronizes the stream before the next call (the positions go
 * through a shared pinned buffer). */
BCU_API int bcu_eval_to_device(const bcu_table *const *t, size_t n, const double *const *r,
                               const size_t *n_points, double *const *dev_out,
                               int want_gl);

/* A CUDA error (cudaError_t) as an mcf error naming what failed (MCF_ENOMEM with bytes). */
BCU_API int bcu_fail_cuda(int cuda_error, const char *what, size_t bytes);

#endif
