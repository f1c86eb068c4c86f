/* blip_cuda_det.cu — a Slater determinant kept on the device for blip-cuda (the det ops of
 * mcf/orbital.h): its storage (create, destroy, set; get, which applies the pending moves
 * first, is blip_cuda_det_ratio.cu's), the checks of a batch of determinants, and the
 * pinned staging of the determinant ops, which each batch keeps (bcu_batch).  The moves
 * (blip_cuda_det_ratio.cu), the refresh (blip_cuda_det_refresh.cu) and the local-energy
 * part (blip_cuda_det_local.cu) are in their own files; what is computed and how is
 * described in blip_cuda.h, the mathematics is the Slater-Jastrow model's
 * (models/slater-jastrow/sj_determinants.c and sj_determinants_ev.c). */
#include "blip_cuda.h"
#include "blip_cuda_internal.h"

#include "mcf/error.h"

#include <cuda_runtime.h>

#include <stdlib.h>
#include <string.h>

/* ---- staging ----------------------------------------------------------------------------- */

/* replaces a pinned host buffer and its device twin by ones of >= bytes (the caller has
 * synchronized the stream: no copy or launch may still use the old ones) */
static int det_grow(void **host, void **dev, size_t *cap, size_t bytes, const char *what)
{
    cudaFreeHost(*host);
    cudaFree(*dev);
    *host = *dev = NULL;
    *cap = 0;
    const size_t c = bytes + bytes / 2 + 256;
    BCU_TRY(cudaMallocHost(host, c), what, c);
    BCU_TRY(cudaMalloc(dev, c), what, c);
    *cap = c;
    return MCF_OK;
}

/* grows the batch's job and result staging to in / out bytes (blip_cuda_internal.h) */
int det_stage(bcu_batch *kb, size_t in, size_t out)
{
    det_staging *sg = &kb->det;
    if (!sg->event_made) {
        BCU_TRY(cudaEventCreateWithFlags(&sg->res_ready, cudaEventDisableTiming),
                "creating an event", 0);
        sg->event_made = 1;
    }
    if (!sg->res) {
        const size_t b = 3 * DET_MAX_BATCH * sizeof(double);
        BCU_TRY(cudaHostAlloc((void **)&sg->res, b, cudaHostAllocMapped),
                "mapped pinned memory for the determinant ratios", b);
        BCU_TRY(cudaHostGetDevicePointer((void **)&sg->res_dev, sg->res, 0),
                "mapping the determinant ratios", b);
    }
    if (in > sg->in_cap || out > sg->out_cap) /* a launch may still read the old buffers */
        BCU_TRY(cudaStreamSynchronize(bcu_stream), "the previous determinant step", 0);
    int rc = MCF_OK;
    if (in > sg->in_cap)
        rc = det_grow((void **)&sg->h_in, (void **)&sg->d_in, &sg->in_cap, in,
                      "the determinant jobs");
    if (!rc && out > sg->out_cap)
        rc = det_grow((void **)&sg->h_out, (void **)&sg->d_out, &sg->out_cap, out,
                      "the determinant results");
    return rc;
}

/* ---- create / destroy / set / get --------------------------------------------------------- */

extern "C" int bcu_det_create(const bcu_table *t, size_t m, bcu_det **out)
{
    *out = NULL;
    if (!t || m < 1 || m > t->L)
        return mcf_fail(MCF_EINVAL, "blip-cuda: det_create: m = %zu electrons for %zu orbitals; "
                        "1 <= m <= L", m, t ? t->L : (size_t)0);
    if (m > 46340) /* m * m fits an unsigned int index of blocks x threads comfortably */
        return mcf_fail(MCF_EINVAL, "blip-cuda: det_create: m = %zu electrons is beyond what "
                        "the kernels index (46340)", m);
    bcu_det *d = (bcu_det *)calloc(1, sizeof *d);
    if (!d)
        return mcf_fail(MCF_ENOMEM, "blip-cuda: out of memory");
    d->t = t;
    d->m = (unsigned int)m;
    d->L = (unsigned int)t->L;
    d->r = (double *)calloc(3 * m, sizeof(double));
    d->rt = (double *)calloc(3 * m, sizeof(double));
    if (!d->r || !d->rt) {
        bcu_det_destroy(d);
        return mcf_fail(MCF_ENOMEM, "blip-cuda: out of memory");
    }
    const size_t mm = m * m * sizeof(double), ml = m * t->L * sizeof(double);
    struct {
        double **p;
        size_t bytes;
        const char *what;
    } a[] = {{&d->A, mm, "the Slater matrix"}, {&d->Ainv, mm, "the inverse Slater matrix"},
             {&d->trial, ml, "the orbital rows at the trial positions"},
             {&d->col, m * sizeof(double), "a column of the inverse"},
             {&d->w, m * sizeof(double), "the update vector"}};
    for (size_t k = 0; k < sizeof a / sizeof a[0]; k++) {
        cudaError_t e = cudaMalloc((void **)a[k].p, a[k].bytes);
        if (e != cudaSuccess) {
            bcu_det_destroy(d);
            return bcu_fail(e, a[k].what, a[k].bytes);
        }
    }
    *out = d;
    return MCF_OK;
}

extern "C" void bcu_det_destroy(bcu_det *d)
{
    if (!d)
        return;
    /* an accepted move's update kernel (det_step_chunk does not wait for it) may still use
     * this det's matrices on the stream: wait, then free */
    cudaStreamSynchronize(bcu_stream);
    cudaFree(d->A);
    cudaFree(d->Ainv);
    cudaFree(d->trial);
    cudaFree(d->col);
    cudaFree(d->w);
    cudaFree(d->scratch);
    cudaFree(d->vgl);
    free(d->r);
    free(d->rt);
    free(d);
}

extern "C" size_t bcu_det_size(const bcu_det *d) { return d ? d->m : 0; }

extern "C" int bcu_det_set(bcu_det *d, const double *r, const double *A, const double *Ainv)
{
    if (!d || !r || !A || !Ainv)
        return mcf_fail(MCF_EINVAL, "blip-cuda: det_set: NULL argument");
    const size_t m = d->m, mm = m * m * sizeof(double);
    /* On the plugin's stream, behind whatever still reads or updates this det there (a
     * pending move's update kernel), and ahead of every kernel that reads it next.  (A plain
     * cudaMemcpy goes to the legacy default stream, which a non-blocking stream does not
     * wait for, and from pageable memory it returns before its DMA has landed: the next
     * ratio or refresh could read the old inverse, issue 42.)  Then wait: A and Ainv are
     * the caller's pageable memory, free to reuse when this returns. */
    cudaError_t e = cudaMemcpyAsync(d->A, A, mm, cudaMemcpyHostToDevice, bcu_stream);
    if (e == cudaSuccess)
        e = cudaMemcpyAsync(d->Ainv, Ainv, mm, cudaMemcpyHostToDevice, bcu_stream);
    const cudaError_t es = cudaStreamSynchronize(bcu_stream);
    if (e == cudaSuccess)
        e = es;
    if (e != cudaSuccess)
        return bcu_fail(e, "uploading a Slater matrix", mm);
    memcpy(d->r, r, 3 * m * sizeof(double));
    d->have_trial = d->pending = d->have_last = 0;
    return MCF_OK;
}

/* ---- a batch of determinants ---------------------------------------------------------- */

/* the orbital rows of n dets through the values / vgl kernel, in chunks of the launcher's
 * stack, each waited for (its positions go through the batch's pinned buffer) */
int det_rows(bcu_batch *kb, bcu_det *const *d, size_t n, const double *const *r_trial)
{
    const int want_gl = r_trial == NULL;
    const size_t STACK = 128;
    const bcu_table *ts[128];
    const double *rs[128];
    size_t np[128];
    double *outs[128];
    int rc = MCF_OK;
    for (size_t k0 = 0; k0 < n && !rc; k0 += STACK) {
        const size_t nb = n - k0 < STACK ? n - k0 : STACK;
        for (size_t k = 0; k < nb; k++) {
            ts[k] = d[k0 + k]->t;
            rs[k] = want_gl ? d[k0 + k]->r : r_trial[k0 + k];
            np[k] = d[k0 + k]->m;
            outs[k] = want_gl ? d[k0 + k]->vgl : d[k0 + k]->trial;
        }
        rc = bcu_eval_to_device(kb, ts, nb, rs, np, outs, want_gl);
        if (!rc) {
            cudaError_t e = cudaStreamSynchronize(bcu_stream);
            if (e != cudaSuccess)
                rc = bcu_fail(e, want_gl ? "the gradients and Laplacians at the electrons"
                                         : "the orbital rows at the trial positions", 0);
        }
    }
    return rc;
}

int det_check_batch(const char *op, bcu_det *const *d, size_t n)
{
    if (n && !d)
        return mcf_fail(MCF_EINVAL, "blip-cuda: %s: NULL array of determinants", op);
    for (size_t k = 0; k < n; k++) {
        if (!d[k])
            return mcf_fail(MCF_EINVAL, "blip-cuda: %s: determinant %zu is NULL", op, k);
        for (size_t q = 0; q < k; q++)
            if (d[q] == d[k])
                return mcf_fail(MCF_EINVAL, "blip-cuda: %s: determinant %zu appears twice in "
                                "one call (entries %zu and %zu)", op, k, q, k);
    }
    return MCF_OK;
}
