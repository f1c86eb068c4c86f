/* blip_cuda_device.cu — the device of the blip-cuda evaluator: selecting it (through
 * cuda/common, the code kpm-cuda uses too) and CUDA failures as mcf errors with blip-cuda's
 * advice.  The table, the kernels and the determinants are in the other blip_cuda_*.cu
 * files (blip_cuda_internal.h lists them). */
#include "blip_cuda.h"
#include "blip_cuda_internal.h"

#include "mcf_cuda.h"
#include "mcf/error.h"

#include <cuda_runtime.h>

extern "C" int bcu_probe(char *why, size_t len) { return mcu_probe(why, len); }

extern "C" int bcu_device_init(void) { return mcu_device_init("blip-cuda", "blip"); }

extern "C" const char *bcu_device_name(void) { return mcu_device_name(); }

/* A CUDA runtime failure as an mcf error: out of memory is MCF_ENOMEM with the sizes. */
int bcu_fail(cudaError_t e, const char *what, size_t bytes)
{
    return mcu_fail((int)e, "blip-cuda", what, bytes,
                    "use a coarser grid (grid, grid_factor), fewer orbitals or walkers, or "
                    "evaluator = blip");
}

extern "C" double bcu_copy_bandwidth(size_t bytes, int reps)
{
    return mcu_copy_bandwidth(bytes, reps);
}
