/* kpm_cuda_series.cu — a Chebyshev series applied to a block of vectors on the device
 * (kcu_series, kpm_cuda.h): y = sum_{n<Mf} c_n T_n(H~) x, the step of density_matrix's
 * probes (plugins/kpm/kpm_ops_density.c).  One launch per order: the row product of the
 * engine's step (kpm_cuda_internal.cuh; the table, or factorized hoppings) fused with the
 * sum y += c_n r_n, so a step reads H once and the three vector blocks once each.  No dot
 * products, so no reductions: every element is computed by one thread in a fixed order and
 * the result does not depend on the launch's shape. */
#include "kpm_cuda_internal.cuh"

#include <math.h>
#include <stdlib.h>

struct kcu_series {
    size_t dim, block;
    double2 *v0, *v1, *acc;  /* device: r_{n-1}, r_n, the sum (dim x block each) */
    double2 *host;           /* pinned host staging of one block */
};

struct kcu_series_args {
    const int32_t *col;
    const double *hre, *him, *ons;
    const double2 *field;
    double famp;
    long long fL, dim;
    int width, B, first;
    const double2 *x;
    double2 *y, *acc;
    double ia, b, c;
};

/* element (r, j) of the block: y = H~ x (first) or 2 H~ x - y; acc += c y */
template <int FR, int FD>
__global__ void __launch_bounds__(KCU_STEP_THREADS) kcu_series_kernel(kcu_series_args s)
{
    const long long n = s.dim * s.B;
    for (long long q = (long long)blockIdx.x * blockDim.x + threadIdx.x; q < n;
         q += (long long)gridDim.x * blockDim.x) {
        const long long r = q / s.B;
        const int j = (int)(q - r * s.B);
        const double2 xr = s.x[q];
        double2 p;
        if (FR < 0)
            kcu_row_product<0, 1, 0, 0>(s.col, s.hre, s.him, s.dim, r, s.width,
                                        s.ons[r] - s.b, s.x + j, s.B, &xr, &p);
        else
            kcu_row_product_fac<FR < 0 ? 0 : FR, FD>(s.col, s.dim, s.width, s.field, s.famp,
                                                     s.fL, r, s.ons[r] - s.b, s.x + j, s.B,
                                                     &xr, &p);
        double2 y;
        if (s.first) {
            y.x = s.ia * p.x;
            y.y = s.ia * p.y;
        } else {
            const double2 yo = s.y[q];
            y.x = 2.0 * s.ia * p.x - yo.x;
            y.y = 2.0 * s.ia * p.y - yo.y;
        }
        s.y[q] = y;
        double2 a = s.acc[q];
        a.x += s.c * y.x;
        a.y += s.c * y.y;
        s.acc[q] = a;
    }
}

__global__ void kcu_series_start(const double2 *x, double2 *acc, double c0, long long n)
{
    for (long long q = (long long)blockIdx.x * blockDim.x + threadIdx.x; q < n;
         q += (long long)gridDim.x * blockDim.x) {
        acc[q].x = c0 * x[q].x;
        acc[q].y = c0 * x[q].y;
    }
}

template <int FR>
static const void *kcu_series_kernel_fac(int fdims)
{
    if (fdims == 3)
        return (const void *)kcu_series_kernel<FR, 3>;
    if (fdims == 2)
        return (const void *)kcu_series_kernel<FR, 2>;
    return (const void *)kcu_series_kernel<FR, 0>;
}

static const void *kcu_series_kernel_of(const kcu_ham *d)
{
    if (d->frank == 0)
        return kcu_series_kernel_fac<0>(d->fdims);
    if (d->frank == 1)
        return kcu_series_kernel_fac<1>(d->fdims);
    if (d->frank == 2)
        return kcu_series_kernel_fac<2>(d->fdims);
    return (const void *)kcu_series_kernel<-1, 0>;
}

extern "C" void kcu_series_destroy(kcu_series *s)
{
    if (!s)
        return;
    cudaStreamSynchronize(kcu_stream);
    cudaFree(s->v0);
    cudaFree(s->v1);
    cudaFree(s->acc);
    cudaFreeHost(s->host);
    free(s);
}

extern "C" int kcu_series_create(size_t dim, size_t block, kcu_series **out)
{
    *out = NULL;
    int rc = kcu_device_init();
    if (rc)
        return rc;
    if (dim < 1 || block < 1 || block > 64)
        return mcf_fail(MCF_EINVAL, "kpm-cuda: series of dimension %zu and block %zu (1..64)",
                        dim, block);
    kcu_series *s = (kcu_series *)calloc(1, sizeof *s);
    if (!s)
        return mcf_fail(MCF_ENOMEM, "kpm-cuda: out of memory");
    s->dim = dim;
    s->block = block;
    const size_t vb = dim * block * sizeof(double2);
    if ((rc = kcu_alloc((void **)&s->v0, vb, "series vectors")) ||
        (rc = kcu_alloc((void **)&s->v1, vb, "series vectors")) ||
        (rc = kcu_alloc((void **)&s->acc, vb, "series vectors"))) {
        kcu_series_destroy(s);
        return rc;
    }
    cudaError_t e = cudaMallocHost((void **)&s->host, vb);
    if (e != cudaSuccess) {
        s->host = NULL;
        kcu_series_destroy(s);
        return kcu_fail(e, "pinned host memory for the series", vb);
    }
    *out = s;
    return MCF_OK;
}

extern "C" int kcu_series_apply(kcu_series *s, const kcu_ham *d, double a, double b,
                                const double *c, size_t Mf, size_t nb, const double *x,
                                double *y)
{
    if (nb < 1 || nb > s->block || Mf < 1 || d->dim != s->dim)
        return mcf_fail(MCF_EINVAL, "kpm-cuda: series of %zu vectors, %zu terms, dimension "
                        "%zu (the scratch holds %zu of dimension %zu)", nb, Mf, d->dim,
                        s->block, s->dim);
    const size_t dim = s->dim;
    const long long n = (long long)(dim * nb);
    /* the host's block layout (re at 2 nb r + j, im at 2 nb r + nb + j) -> [r nb + j] */
    for (size_t r = 0; r < dim; r++)
        for (size_t j = 0; j < nb; j++)
            s->host[r * nb + j] = make_double2(x[2 * nb * r + j], x[2 * nb * r + nb + j]);
    KCU_TRY(cudaMemcpyAsync(s->v0, s->host, (size_t)n * sizeof(double2),
                            cudaMemcpyHostToDevice, kcu_stream), "the series' vectors", 0);
    int grid = (int)((n + KCU_STEP_THREADS - 1) / KCU_STEP_THREADS);
    const int cap = 8 * mcu_props()->multiProcessorCount;
    if (grid > cap)
        grid = cap;
    kcu_series_start<<<grid, KCU_STEP_THREADS, 0, kcu_stream>>>(s->v0, s->acc, c[0], n);
    kcu_series_args sa;
    sa.col = d->col;
    sa.hre = d->hre;
    sa.him = d->him;
    sa.ons = d->ons;
    sa.field = d->field;
    sa.famp = d->famp;
    sa.fL = d->fL;
    sa.dim = (long long)dim;
    sa.width = d->frank >= 0 ? d->fz : d->width;
    sa.B = (int)nb;
    sa.ia = 1.0 / a;
    sa.b = b;
    sa.acc = s->acc;
    const void *kernel = kcu_series_kernel_of(d);
    double2 *cur = s->v0, *old = s->v1;
    for (size_t m = 1; m < Mf; m++) {
        sa.first = m == 1;
        sa.x = cur;
        sa.y = old;
        sa.c = c[m];
        void *args[] = {(void *)&sa};
        cudaLaunchKernel(kernel, dim3((unsigned)grid), dim3(KCU_STEP_THREADS), args, 0,
                         kcu_stream);
        double2 *t = cur;
        cur = old;
        old = t;
    }
    KCU_TRY(cudaGetLastError(), "launching the series", 0);
    KCU_TRY(cudaMemcpyAsync(s->host, s->acc, (size_t)n * sizeof(double2),
                            cudaMemcpyDeviceToHost, kcu_stream), "the series' result", 0);
    KCU_TRY(cudaStreamSynchronize(kcu_stream), "the series", 0);
    for (size_t r = 0; r < dim; r++)
        for (size_t j = 0; j < nb; j++) {
            const double2 v = s->host[r * nb + j];
            if (!isfinite(v.x) || !isfinite(v.y))
                return mcf_fail(MCF_EINVAL, "kpm-cuda: series: a non-finite entry (the "
                                "spectrum reaches outside the bounds used for rescaling, "
                                "[%g, %g])", b - a, b + a);
            y[2 * nb * r + j] = v.x;
            y[2 * nb * r + nb + j] = v.y;
        }
    return MCF_OK;
}
