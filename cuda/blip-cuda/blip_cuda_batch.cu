/* blip_cuda_batch.cu — what a batch of the core keeps for blip-cuda: bcu_batch
 * (blip_cuda_internal.h), a keep slot of mcf_batch (mcf/batch.h) holding the staging
 * buffers of the evaluations and of the determinant ops, the mapped pinned ratios, the
 * timing events and the last timings.  The evaluations (blip_cuda_eval.cu), the
 * determinant ops and the sweeps grow the buffers as they need them; the slot is zeroed
 * when made and released here when the core destroys the batch. */
#include "blip_cuda.h"
#include "blip_cuda_internal.h"

#include "mcf/batch.h"
#include "mcf/error.h"

#include <cuda_runtime.h>

static const char bcu_batch_owner = 0; /* its address: the key of blip-cuda's slot */

/* The slot's release, when the core destroys the batch: after the stream has drained (a
 * copy or kernel of the batch's last call may still use a buffer), everything it made. */
static void bcu_batch_release(void *slot)
{
    bcu_batch *kb = (bcu_batch *)slot;
    det_staging *d = &kb->det;
    const int made = kb->in_host || kb->in_dev || kb->out_host || kb->out_dev ||
                     kb->events_made || d->h_in || d->d_in || d->h_out || d->d_out ||
                     d->res || d->event_made;
    if (!made)
        return; /* never used the device: nothing to wait for */
    cudaStreamSynchronize(bcu_stream);
    cudaFreeHost(kb->in_host);
    cudaFree(kb->in_dev);
    cudaFreeHost(kb->out_host);
    cudaFree(kb->out_dev);
    if (kb->events_made) {
        cudaEventDestroy(kb->ev0);
        cudaEventDestroy(kb->ev1);
    }
    cudaFreeHost(d->h_in);
    cudaFree(d->d_in);
    cudaFreeHost(d->h_out);
    cudaFree(d->d_out);
    cudaFreeHost(d->res);
    if (d->event_made)
        cudaEventDestroy(d->res_ready);
    cudaGetLastError(); /* a failure here (the runtime shut down at exit) is no one's error */
}

int bcu_batch_of(mcf_batch *b, bcu_batch **kb)
{
    *kb = NULL;
    if (!b)
        return mcf_fail(MCF_EINVAL, "blip-cuda: a launch was asked for without its batch "
                        "(mcf_batch: it keeps the launch's staging buffers)");
    bcu_batch *k = (bcu_batch *)mcf_batch_keep(b, &bcu_batch_owner, sizeof *k,
                                               bcu_batch_release);
    if (!k)
        return mcf_fail_prefix(MCF_ENOMEM, "blip-cuda: the batch's staging");
    if (!k->events_made) {
        int rc = bcu_device_init();
        if (rc)
            return rc;
        if (cudaEventCreate(&k->ev0) != cudaSuccess) {
            cudaGetLastError();
            return mcf_fail(MCF_EDEVICE, "blip-cuda: cudaEventCreate failed; use evaluator = "
                            "blip (CPU) or auto");
        }
        if (cudaEventCreate(&k->ev1) != cudaSuccess) {
            cudaGetLastError();
            cudaEventDestroy(k->ev0);
            return mcf_fail(MCF_EDEVICE, "blip-cuda: cudaEventCreate failed; use evaluator = "
                            "blip (CPU) or auto");
        }
        k->events_made = 1;
    }
    *kb = k;
    return MCF_OK;
}
