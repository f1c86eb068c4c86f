/* blip_cuda_table.cu — the coefficient table of one blip-cuda evaluator on the device: its
 * allocation (refused with the bytes when the device cannot hold it), the upload of the
 * host's double table (mcf_blip_core) rounded to float, and the settings the kernels read
 * it with (bcu_settings: the plugin's [evaluator] keys sum_precision and
 * orbitals_per_thread).  The layout is described in blip_cuda.h. */
#include "blip_cuda.h"
#include "blip_cuda_internal.h"

#include "mcf/error.h"

#include <cuda_runtime.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* the defaults of blip-cuda's keys: sum_precision = single, orbitals_per_thread = 2 */
static const bcu_settings bcu_default_settings = {0, 2};

extern "C" int bcu_table_alloc(const size_t n[3], size_t L, const double cell[3],
                               bcu_table **out)
{
    *out = NULL;
    int rc = bcu_device_init();
    if (rc)
        return rc;
    if (L < 1 || L >= ((size_t)1 << 31) || n[0] < 4 || n[1] < 4 || n[2] < 4 ||
        n[0] >= ((size_t)1 << 31) || n[1] >= ((size_t)1 << 31) || n[2] >= ((size_t)1 << 31))
        return mcf_fail(MCF_EINVAL, "blip-cuda: a table of %zu orbitals on a %zu x %zu x %zu "
                        "grid cannot be indexed (1 <= L < 2^31, 4 <= n_d < 2^31)", L, n[0],
                        n[1], n[2]);
    const double S = (double)n[0] * (double)n[1] * (double)n[2] * (double)L;
    if (S * 4.0 > (double)(SIZE_MAX / 2))
        return mcf_fail(MCF_EINVAL, "blip-cuda: a %zu x %zu x %zu grid of %zu orbitals does "
                        "not fit in memory; use a coarser grid", n[0], n[1], n[2], L);
    bcu_table *t = (bcu_table *)calloc(1, sizeof *t);
    if (!t)
        return mcf_fail(MCF_ENOMEM, "blip-cuda: out of memory");
    t->L = L;
    t->set = bcu_default_settings;
    for (int d = 0; d < 3; d++) {
        t->n[d] = n[d];
        t->cell[d] = cell[d];
        t->inv_h[d] = (double)n[d] / cell[d];
    }
    t->bytes = n[0] * n[1] * n[2] * L * sizeof(float);
    cudaError_t e = cudaMalloc((void **)&t->c, t->bytes);
    if (e != cudaSuccess) {
        char what[160];
        snprintf(what, sizeof what, "the coefficient table of %zu x %zu x %zu points x %zu "
                 "orbitals (float)", n[0], n[1], n[2], L);
        free(t);
        return bcu_fail(e, what, n[0] * n[1] * n[2] * L * sizeof(float));
    }
    *out = t;
    return MCF_OK;
}

extern "C" int bcu_table_upload(bcu_table *t, const double *c)
{
    const size_t total = t->bytes / sizeof(float), chunk = (size_t)1 << 22;
    float *buf = (float *)malloc((total < chunk ? total : chunk) * sizeof(float));
    if (!buf)
        return mcf_fail(MCF_ENOMEM, "blip-cuda: out of memory");
    int rc = MCF_OK;
    for (size_t s = 0; s < total && !rc; s += chunk) {
        const size_t m = total - s < chunk ? total - s : chunk;
        for (size_t i = 0; i < m; i++)
            buf[i] = (float)c[s + i];
        /* on the stream the kernels read the table on (not the legacy default stream,
         * which the plugin's non-blocking stream does not wait for), then waited for:
         * buf is pageable and refilled next */
        cudaError_t e = cudaMemcpyAsync(t->c + s, buf, m * sizeof(float),
                                        cudaMemcpyHostToDevice, bcu_stream);
        const cudaError_t es = cudaStreamSynchronize(bcu_stream);
        if (e == cudaSuccess)
            e = es;
        if (e != cudaSuccess)
            rc = bcu_fail(e, "uploading the coefficient table", m * sizeof(float));
    }
    free(buf);
    return rc;
}

extern "C" int bcu_table_set_settings(bcu_table *t, const bcu_settings *s)
{
    if (!t || !s)
        return mcf_fail(MCF_EINVAL, "blip-cuda: set_settings: NULL table or settings");
    if (s->vec != 1 && s->vec != 2 && s->vec != 4)
        return mcf_fail(MCF_EINVAL, "blip-cuda: %d orbitals per thread; use 1, 2 or 4",
                        s->vec);
    t->set.accumulate_double = s->accumulate_double != 0;
    t->set.vec = s->vec;
    return MCF_OK;
}

extern "C" void bcu_table_destroy(bcu_table *t)
{
    if (!t)
        return;
    cudaStreamSynchronize(bcu_stream); /* no kernel may still read it */
    cudaFree(t->c);
    free(t);
}

extern "C" size_t bcu_table_orbitals(const bcu_table *t) { return t ? t->L : 0; }
extern "C" size_t bcu_table_bytes(const bcu_table *t) { return t ? t->bytes : 0; }
