/* mcf_cuda.h — what the GPU plugins (cuda/kpm-cuda, cuda/blip-cuda) share: finding the
 * device, its probe for [run] evaluator = auto, one stream, CUDA errors as mcf errors, and
 * the copy bandwidth the benchmarks compare with.  The static library mcf_cuda_common,
 * linked into each plugin (each .so keeps its own copy of this state).  Not part of the
 * SDK: prefix mcu_, hidden visibility. */
#ifndef MCF_CUDA_COMMON_H
#define MCF_CUDA_COMMON_H

#include <stddef.h>

#ifdef __CUDACC__
#include <cuda_runtime.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define MCU_API __attribute__((visibility("hidden")))
#else
#define MCU_API
#endif

/* 1 when a CUDA device of compute capability >= 9.0 (Hopper: thread-block clusters) can be
 * used, 0 if not; one line into why either way: "NVIDIA H100 80GB HBM3 (sm_90, 132 SMs,
 * 78.7 of 79.2 GiB free; device 0 of 1)" or the reason.  The first call selects the device
 * — MCF_CUDA_DEVICE modulo the number of devices when that variable is set (an MPI run sets
 * it to the rank's index on its node, unless the user did), else the runtime's default
 * (CUDA_VISIBLE_DEVICES) — and creates the stream; thread safe.  mcu_device_init and
 * mcu_stream make the device current on the calling thread. */
MCU_API int mcu_probe(char *why, size_t len);

/* MCF_OK, or MCF_EDEVICE with "<who>: <reason>; use evaluator = <cpu> (CPU) or auto". */
MCU_API int mcu_device_init(const char *who, const char *cpu);

/* The device's name ("none" without one) and its number of multiprocessors (0). */
MCU_API const char *mcu_device_name(void);
MCU_API int mcu_device_sms(void);

/* A CUDA runtime error code (cudaError_t) as an mcf error: out of memory is MCF_ENOMEM
 * "<who>: out of device memory for <what>: <bytes> bytes (<MiB>) asked, <free> of <total>
 * MiB free; <advice>"; anything else MCF_EDEVICE "<who>: <what>: <CUDA's message>".  Clears
 * the runtime's last error. */
MCU_API int mcu_fail(int cuda_error, const char *who, const char *what, size_t bytes,
                     const char *advice);

/* Device-to-device copy bandwidth in GB/s (bytes read + bytes written per second) of a
 * cudaMemcpy of `bytes`, best of `reps`; 0 when there is no device or memory. */
MCU_API double mcu_copy_bandwidth(size_t bytes, int reps);

#ifdef __CUDACC__
/* The stream every launch and copy of the plugin goes to (after mcu_device_init).  It is
 * non-blocking: it does not wait for the legacy default stream, so a plain cudaMemcpy or
 * cudaMemset (which go there, and from pageable memory return before the DMA has landed)
 * is not ordered with the kernels.  Copies are cudaMemcpyAsync / cudaMemsetAsync on this
 * stream, synchronized before a pageable host buffer is reused or a result is read, and
 * memory the stream may still use is freed only after a synchronize (issue 42;
 * docs/gpu-transfers.md). */
MCU_API cudaStream_t mcu_stream(void);
/* The device's properties (after mcu_device_init). */
MCU_API const cudaDeviceProp *mcu_props(void);
#endif

#ifdef __cplusplus
}
#endif
#endif
