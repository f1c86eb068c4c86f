/* kpm_cuda_dct.cu — the reconstruction of kpm-cuda (kcu_dct): the kernel-damped Chebyshev
 * series of a batch of moment sets on the N Chebyshev nodes by one batched cuFFT (Z2Z,
 * length 2N: the transform of plugins/kpm's kpm_dct), as densities or Green's functions.
 * The plan (cuFFT's, for N, M and the batch) is made once; the transform's input is
 * prepared and its output finished on the host.  GFMC's in-kernel transforms are the GFMC
 * kernel's (kpm_cuda_gfmc_kernel.cu). */
#include "kpm_cuda_internal.cuh"

#include <cufft.h>

#include <math.h>
#include <stdlib.h>

struct kcu_dct {
    size_t N, M, batch;
    cufftHandle plan;
    int planned;
    cufftDoubleComplex *buf;   /* device, batch x 2N */
    cufftDoubleComplex *host;  /* batch x 2N */
    double *sin_t;             /* N: sin theta_k */
};

extern "C" void kcu_dct_destroy(kcu_dct *p)
{
    if (!p)
        return;
    cudaStreamSynchronize(kcu_stream); /* the transform may still run on the stream */
    if (p->planned)
        cufftDestroy(p->plan);
    cudaFree(p->buf);
    free(p->host);
    free(p->sin_t);
    free(p);
}

extern "C" int kcu_dct_create(size_t N, size_t M, size_t batch, kcu_dct **out)
{
    *out = NULL;
    int rc = kcu_device_init();
    if (rc)
        return rc;
    if (N < 1 || M > N || batch < 1)
        return mcf_fail(MCF_EINVAL, "kpm-cuda: a transform of %zu points for %zu moments", N, M);
    kcu_dct *p = (kcu_dct *)calloc(1, sizeof *p);
    if (!p)
        return mcf_fail(MCF_ENOMEM, "kpm-cuda: out of memory");
    p->N = N;
    p->M = M;
    p->batch = batch;
    const size_t n = batch * 2 * N;
    p->host = (cufftDoubleComplex *)malloc(n * sizeof *p->host);
    p->sin_t = (double *)malloc(N * sizeof(double));
    if (!p->host || !p->sin_t) {
        kcu_dct_destroy(p);
        return mcf_fail(MCF_ENOMEM, "kpm-cuda: out of memory for a transform");
    }
    if ((rc = kcu_alloc((void **)&p->buf, n * sizeof *p->buf, "the FFT buffer"))) {
        kcu_dct_destroy(p);
        return rc;
    }
    int len = (int)(2 * N);
    if (cufftPlanMany(&p->plan, 1, &len, NULL, 1, len, NULL, 1, len, CUFFT_Z2Z, (int)batch) !=
        CUFFT_SUCCESS) {
        kcu_dct_destroy(p);
        return mcf_fail(MCF_EDEVICE, "kpm-cuda: cufftPlanMany (length %d, batch %zu) failed",
                        len, batch);
    }
    p->planned = 1;
    cufftSetStream(p->plan, kcu_stream);
    for (size_t k = 0; k < N; k++)
        p->sin_t[k] = sin(KCU_PI * ((double)k + 0.5) / (double)N);
    *out = p;
    return MCF_OK;
}

/* chi_k = sum_n c_n exp(-i n theta_k) for the nb series, into p->host (k < N). */
static int kcu_dct_chi(kcu_dct *p, const double *mu, size_t nb, const double *g)
{
    if (nb > p->batch)
        return mcf_fail(MCF_EINVAL, "kpm-cuda: %zu series for a plan of %zu", nb, p->batch);
    const size_t N = p->N, M = p->M, L = 2 * N;
    for (size_t j = 0; j < nb; j++) {
        cufftDoubleComplex *in = p->host + j * L;
        for (size_t n = 0; n < L; n++) {
            if (n >= M) {
                in[n].x = in[n].y = 0.0;
                continue;
            }
            double c = g[n] * mu[j * M + n];
            if (n == 0)
                c *= 0.5;
            const double ph = -KCU_PI * (double)n / (double)L;
            in[n].x = c * cos(ph);
            in[n].y = c * sin(ph);
        }
    }
    const size_t bytes = nb * L * sizeof(cufftDoubleComplex);
    KCU_TRY(cudaMemcpyAsync(p->buf, p->host, bytes, cudaMemcpyHostToDevice, kcu_stream),
            "copying FFT input", bytes);
    /* the plan is for `batch` series; the rows beyond nb are transformed too (garbage,
     * unread) */
    if (cufftExecZ2Z(p->plan, p->buf, p->buf, CUFFT_FORWARD) != CUFFT_SUCCESS)
        return mcf_fail(MCF_EDEVICE, "kpm-cuda: cufftExecZ2Z failed");
    KCU_TRY(cudaMemcpyAsync(p->host, p->buf, bytes, cudaMemcpyDeviceToHost, kcu_stream),
            "copying FFT output", bytes);
    KCU_TRY(cudaStreamSynchronize(kcu_stream), "the FFT", 0);
    return MCF_OK;
}

/* The nb transforms in p->host finished on the ascending grid: the density into out, or
 * (out NULL) the Green's function into re, im. */
static void kcu_dct_finish(const kcu_dct *p, size_t nb, double a, double *out, double *re,
                           double *im)
{
    const size_t N = p->N;
    for (size_t j = 0; j < nb; j++)
        for (size_t k = 0; k < N; k++) {
            const cufftDoubleComplex c = p->host[j * 2 * N + k];
            const size_t i = j * N + (N - 1 - k);
            if (out) {
                out[i] = 2.0 * c.x / (KCU_PI * p->sin_t[k]) / a;
            } else {
                /* G = -2 i chi / sin theta */
                re[i] = 2.0 * c.y / p->sin_t[k] / a;
                im[i] = -2.0 * c.x / p->sin_t[k] / a;
            }
        }
}

extern "C" int kcu_dct_density(kcu_dct *p, const double *mu, size_t nb, const double *g,
                               double a, double *out)
{
    const int rc = kcu_dct_chi(p, mu, nb, g);
    if (!rc)
        kcu_dct_finish(p, nb, a, out, NULL, NULL);
    return rc;
}

extern "C" int kcu_dct_green(kcu_dct *p, const double *mu, size_t nb, const double *g, double a,
                             double *re, double *im)
{
    const int rc = kcu_dct_chi(p, mu, nb, g);
    if (!rc)
        kcu_dct_finish(p, nb, a, NULL, re, im);
    return rc;
}
