/* kpm_cuda_device.cu — the device of the kpm-cuda layer: the probe, the device's selection,
 * name and size, CUDA errors as mcf errors and device allocation, over cuda/common
 * (mcf_cuda.h).  What the other files of the layer hold: kpm_cuda_internal.cuh. */
#include "kpm_cuda_internal.cuh"

extern "C" int kcu_probe(char *why, size_t len) { return mcu_probe(why, len); }
extern "C" int kcu_device_init(void) { return mcu_device_init("kpm-cuda", "kpm"); }
extern "C" const char *kcu_device_name(void) { return mcu_device_name(); }
extern "C" int kcu_device_sms(void) { return mcu_device_sms(); }

int kcu_fail(cudaError_t e, const char *what, size_t bytes)
{
    return mcu_fail((int)e, "kpm-cuda", what, bytes,
                    "use a smaller lattice, fewer chains or vectors (block), or evaluator = kpm");
}

int kcu_alloc(void **p, size_t bytes, const char *what)
{
    *p = NULL;
    KCU_TRY(cudaMalloc(p, bytes ? bytes : 1), what, bytes);
    return MCF_OK;
}

extern "C" double kcu_copy_bandwidth(size_t bytes, int reps)
{
    return mcu_copy_bandwidth(bytes, reps);
}
