/* mcf_cuda.cu — the device, its probe and CUDA errors for the GPU plugins (mcf_cuda.h). */
#include "mcf_cuda.h"

#include "mcf/error.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static pthread_once_t mcu_once = PTHREAD_ONCE_INIT;
static int mcu_status = MCF_EDEVICE;
static char mcu_reason[512] = "not initialized";
static cudaDeviceProp mcu_prop;
static cudaStream_t mcu_strm;
static int mcu_dev; /* the device taken: MCF_CUDA_DEVICE modulo the count, else the default */

static void mcu_init_once(void)
{
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count < 1) {
        snprintf(mcu_reason, sizeof mcu_reason, "no CUDA device (%s)",
                 e != cudaSuccess ? cudaGetErrorString(e) : "cudaGetDeviceCount found 0");
        cudaGetLastError();
        return;
    }
    int dev = 0;
    const char *want = getenv("MCF_CUDA_DEVICE"); /* set per rank by an MPI run */
    if (want && want[0]) {
        char *end = NULL;
        const long v = strtol(want, &end, 10);
        if (*end || v < 0) {
            snprintf(mcu_reason, sizeof mcu_reason, "MCF_CUDA_DEVICE=%s is not a device "
                     "number", want);
            return;
        }
        dev = (int)(v % count);
        if ((e = cudaSetDevice(dev)) != cudaSuccess) {
            snprintf(mcu_reason, sizeof mcu_reason, "cudaSetDevice(%d) failed for "
                     "MCF_CUDA_DEVICE=%s (%s)", dev, want, cudaGetErrorString(e));
            cudaGetLastError();
            return;
        }
    } else if ((e = cudaGetDevice(&dev)) != cudaSuccess) {
        snprintf(mcu_reason, sizeof mcu_reason, "CUDA device unusable (%s)",
                 cudaGetErrorString(e));
        return;
    }
    mcu_dev = dev;
    if ((e = cudaGetDeviceProperties(&mcu_prop, dev)) != cudaSuccess) {
        snprintf(mcu_reason, sizeof mcu_reason, "CUDA device unusable (%s)",
                 cudaGetErrorString(e));
        return;
    }
    if (mcu_prop.major < 9) {
        snprintf(mcu_reason, sizeof mcu_reason,
                 "%s has compute capability %d.%d; the GPU plugins are built for sm_90 "
                 "(Hopper) and need thread-block clusters", mcu_prop.name, mcu_prop.major,
                 mcu_prop.minor);
        return;
    }
    if ((e = cudaStreamCreateWithFlags(&mcu_strm, cudaStreamNonBlocking)) != cudaSuccess) {
        snprintf(mcu_reason, sizeof mcu_reason, "cudaStreamCreate failed (%s)",
                 cudaGetErrorString(e));
        return;
    }
    size_t fr = 0, tot = 0;
    cudaMemGetInfo(&fr, &tot);
    snprintf(mcu_reason, sizeof mcu_reason, "%s (sm_%d%d, %d SMs, %.1f of %.1f GiB free; "
             "device %d of %d)", mcu_prop.name, mcu_prop.major, mcu_prop.minor,
             mcu_prop.multiProcessorCount, (double)fr / 1073741824.0,
             (double)tot / 1073741824.0, dev, count);
    mcu_status = MCF_OK;
}

extern "C" int mcu_probe(char *why, size_t len)
{
    pthread_once(&mcu_once, mcu_init_once);
    if (why && len)
        snprintf(why, len, "%s", mcu_reason);
    return mcu_status == MCF_OK;
}

extern "C" int mcu_device_init(const char *who, const char *cpu)
{
    pthread_once(&mcu_once, mcu_init_once);
    if (mcu_status)
        return mcf_fail(MCF_EDEVICE, "%s: %s; use evaluator = %s (CPU) or auto", who,
                        mcu_reason, cpu);
    cudaSetDevice(mcu_dev); /* per host thread: the calling one may not be the first */
    return MCF_OK;
}

extern "C" const char *mcu_device_name(void) { return mcu_status ? "none" : mcu_prop.name; }
extern "C" int mcu_device_sms(void) { return mcu_status ? 0 : mcu_prop.multiProcessorCount; }
extern "C" cudaStream_t mcu_stream(void)
{
    cudaSetDevice(mcu_dev); /* the stream's device, on whatever thread launches */
    return mcu_strm;
}
extern "C" const cudaDeviceProp *mcu_props(void) { return &mcu_prop; }

extern "C" int mcu_fail(int cuda_error, const char *who, const char *what, size_t bytes,
                        const char *advice)
{
    const cudaError_t e = (cudaError_t)cuda_error;
    cudaGetLastError();
    if (e == cudaErrorMemoryAllocation) {
        size_t fr = 0, tot = 0;
        cudaMemGetInfo(&fr, &tot);
        return mcf_fail(MCF_ENOMEM, "%s: out of device memory for %s: %zu bytes (%.4g MiB) "
                        "asked, %.4g of %.4g MiB free; %s", who, what, bytes,
                        (double)bytes / 1048576.0, (double)fr / 1048576.0,
                        (double)tot / 1048576.0, advice);
    }
    return mcf_fail(MCF_EDEVICE, "%s: %s: %s", who, what, cudaGetErrorString(e));
}

extern "C" double mcu_copy_bandwidth(size_t bytes, int reps)
{
    pthread_once(&mcu_once, mcu_init_once);
    if (mcu_status)
        return 0.0;
    void *a = NULL, *b = NULL;
    if (cudaMalloc(&a, bytes) != cudaSuccess || cudaMalloc(&b, bytes) != cudaSuccess) {
        cudaFree(a);
        cudaGetLastError();
        return 0.0;
    }
    cudaMemsetAsync(a, 1, bytes, mcu_strm);
    cudaMemsetAsync(b, 0, bytes, mcu_strm);
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    float best = 1e30f;
    for (int r = 0; r < reps; r++) {
        cudaEventRecord(e0, mcu_strm);
        cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice, mcu_strm);
        cudaEventRecord(e1, mcu_strm);
        cudaEventSynchronize(e1);
        float ms = 0;
        cudaEventElapsedTime(&ms, e0, e1);
        if (ms < best)
            best = ms;
    }
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    cudaFree(a);
    cudaFree(b);
    return 2.0 * (double)bytes / (best * 1e-3) / 1e9;
}
