/* kpm_cuda_pf.cu — Chebyshev series of a block of vectors on the device (kpm_cuda.h): the
 * series itself (kcu_series: y = sum_{n<Mf} c_n T_n(H~) x, the step of density_matrix's
 * probes, plugins/kpm/kpm_ops_density.c) and the gradient of its quadratic form (kcu_pf):
 * the pseudofermions' forces, as plugins/kpm's kpm_series_gradient
 * computes them on the host (kpm_core.h has the formula): a forward pass for the series and
 * alpha_{M-1}, alpha_M, then the backward pass on blocks of 2 nb vectors [alpha | psi], one
 * launch for the step and one for the terms conj(psi_j(r)) alpha_{j-1}(c) added on the
 * table's pattern (a device copy of h->col).  Every element and every entry is computed by
 * one thread in a fixed order: the result does not depend on the launch's shape. */
#include "kpm_cuda_pf.cuh"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The host's passes over a call's blocks and gradient (the pinned copies <-> the plugin's
 * layout) run on the OpenMP threads from this many rows: at 32^3 they were a few ms of a
 * ~15 ms force on one thread.  Each element is written by one thread: the same bits. */
#define KCU_HOST_ROWS_PARALLEL 4096

/* y = H~ x (first) or 2 H~ x - y over a block of B vectors; forward (acc not NULL): acc += c y;
 * backward (phi not NULL): y += c phi on the vectors nb .. 2 nb - 1 */
template <int FR, int FD>
__global__ void __launch_bounds__(KCU_STEP_THREADS) kcu_pf_step(kcu_pf_args s)
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
        if (s.phi && j >= s.nb) {
            const double2 f = s.phi[r * s.nb + (j - s.nb)];
            y.x += s.c * f.x;
            y.y += s.c * f.y;
        }
        s.y[q] = y;
        if (s.acc) {
            double2 a = s.acc[q];
            a.x += s.c * y.x;
            a.y += s.c * y.y;
            s.acc[q] = a;
        }
    }
}

/* entry (r, slot k - 1) or the diagonal (k = 0): += w sum_v conj(psi_v(r)) alpha_v(c), psi the
 * vectors nb .. 2 nb - 1 of X, alpha the vectors 0 .. nb - 1 of Y (stride 2 nb) */
__global__ void kcu_pf_terms(const int32_t *col, long long dim, int width, int nb,
                             const double2 *X, const double2 *Y, double w, double *gd,
                             double *gre, double *gim)
{
    const long long n = dim * (width + 1);
    for (long long q = (long long)blockIdx.x * blockDim.x + threadIdx.x; q < n;
         q += (long long)gridDim.x * blockDim.x) {
        const int k = (int)(q / dim);
        const long long r = q - (long long)k * dim;
        const long long c = k == 0 ? r : (long long)col[(long long)(k - 1) * dim + r];
        if (c < 0)
            continue;
        double sr = 0.0, si = 0.0;
        for (int v = 0; v < nb; v++) {
            const double2 u = X[r * 2 * nb + nb + v], a = Y[c * 2 * nb + v];
            sr += u.x * a.x + u.y * a.y;
            si += u.x * a.y - u.y * a.x;
        }
        if (k == 0) {
            gd[r] += w * sr;
        } else {
            gre[(long long)(k - 1) * dim + r] += w * sr;
            gim[(long long)(k - 1) * dim + r] += w * si;
        }
    }
}

/* backward start: X = [alpha_{M-1} | c phi], Y = [alpha_M | 0] */
__global__ void kcu_pf_start(const double2 *am1, const double2 *am, const double2 *phi,
                             double c, long long dim, int nb, double2 *X, double2 *Y)
{
    const long long n = dim * nb;
    for (long long q = (long long)blockIdx.x * blockDim.x + threadIdx.x; q < n;
         q += (long long)gridDim.x * blockDim.x) {
        const long long r = q / nb;
        const int v = (int)(q - r * nb);
        const long long o = r * 2 * nb;
        X[o + v] = am1[q];
        X[o + nb + v] = make_double2(c * phi[q].x, c * phi[q].y);
        Y[o + v] = am[q];
        Y[o + nb + v] = make_double2(0.0, 0.0);
    }
}

__global__ void kcu_pf_scale(const double2 *x, double2 *acc, double c0, long long n)
{
    for (long long q = (long long)blockIdx.x * blockDim.x + threadIdx.x; q < n;
         q += (long long)gridDim.x * blockDim.x)
        acc[q] = make_double2(c0 * x[q].x, c0 * x[q].y);
}

template <int FR>
static const void *kcu_pf_kernel_fac(int fdims)
{
    if (fdims == 3)
        return (const void *)kcu_pf_step<FR, 3>;
    if (fdims == 2)
        return (const void *)kcu_pf_step<FR, 2>;
    return (const void *)kcu_pf_step<FR, 0>;
}

static const void *kcu_pf_kernel_of(const kcu_ham *d)
{
    if (d->frank == 0)
        return kcu_pf_kernel_fac<0>(d->fdims);
    if (d->frank == 1)
        return kcu_pf_kernel_fac<1>(d->fdims);
    if (d->frank == 2)
        return kcu_pf_kernel_fac<2>(d->fdims);
    return (const void *)kcu_pf_step<-1, 0>;
}

extern "C" void kcu_pf_destroy(kcu_pf *s)
{
    if (!s)
        return;
    cudaStreamSynchronize(kcu_stream);
    cudaFree(s->v0);
    cudaFree(s->v1);
    cudaFree(s->acc);
    cudaFree(s->X);
    cudaFree(s->Y);
    cudaFree(s->phi);
    cudaFree(s->gd);
    cudaFree(s->gre);
    cudaFree(s->gim);
    cudaFree(s->col);
    cudaFree(s->dev_c);
    free(s->col_host);
    free(s->g_c);
    if (s->graph)
        cudaGraphExecDestroy(s->graph);
    if (s->capture)
        cudaStreamDestroy(s->capture);
    cudaFreeHost(s->host);
    cudaFreeHost(s->ghost);
    free(s);
}

extern "C" int kcu_pf_create(size_t dim, int width, size_t block, kcu_pf **out)
{
    *out = NULL;
    int rc = kcu_device_init();
    if (rc)
        return rc;
    if (dim < 1 || width < 1 || block < 1 || block > 32)
        return mcf_fail(MCF_EINVAL, "kpm-cuda: pseudofermion scratch of dimension %zu, width "
                        "%d and %zu flavours (1..32)", dim, width, block);
    kcu_pf *s = (kcu_pf *)calloc(1, sizeof *s);
    if (!s)
        return mcf_fail(MCF_ENOMEM, "kpm-cuda: out of memory");
    s->dim = dim;
    s->width = width;
    s->block = block;
    const size_t vb = dim * block * sizeof(double2), gb = dim * (size_t)width;
    cudaError_t e = cudaSuccess;
    if ((rc = kcu_alloc((void **)&s->v0, vb, "pseudofermion vectors")) ||
        (rc = kcu_alloc((void **)&s->v1, vb, "pseudofermion vectors")) ||
        (rc = kcu_alloc((void **)&s->acc, vb, "pseudofermion vectors")) ||
        (rc = kcu_alloc((void **)&s->phi, vb, "pseudofermion vectors")) ||
        (rc = kcu_alloc((void **)&s->X, 2 * vb, "pseudofermion vectors")) ||
        (rc = kcu_alloc((void **)&s->Y, 2 * vb, "pseudofermion vectors")) ||
        (rc = kcu_alloc((void **)&s->gd, dim * sizeof(double), "the gradient")) ||
        (rc = kcu_alloc((void **)&s->gre, gb * sizeof(double), "the gradient")) ||
        (rc = kcu_alloc((void **)&s->gim, gb * sizeof(double), "the gradient")) ||
        (rc = kcu_alloc((void **)&s->col, gb * sizeof(int32_t), "the pattern")) ||
        !(s->col_host = (int32_t *)calloc(gb, sizeof(int32_t))) ||
        (e = cudaMallocHost((void **)&s->host, vb)) != cudaSuccess ||
        (e = cudaMallocHost((void **)&s->ghost, (2 * gb + dim) * sizeof(double))) !=
            cudaSuccess) {
        if (!rc)
            rc = e != cudaSuccess ? kcu_fail(e, "pinned host memory", vb)
                                  : mcf_fail(MCF_ENOMEM, "kpm-cuda: out of memory");
        kcu_pf_destroy(s);
        return rc;
    }
    memset(s->col_host, 0xff, gb * sizeof(int32_t)); /* no pattern yet: uploaded on first use */
    s->col_host[0] = -2;
    *out = s;
    return MCF_OK;
}

static void kcu_pf_grid(long long n, int *grid)
{
    long long g = (n + KCU_STEP_THREADS - 1) / KCU_STEP_THREADS;
    const long long cap = 8LL * mcu_props()->multiProcessorCount;
    *grid = (int)(g < 1 ? 1 : g < cap ? g : cap);
}

/* the step's arguments for d in the scaling (a, b), blocks of B vectors */
static kcu_pf_args kcu_pf_args_of(const kcu_ham *d, double a, double b, size_t dim, size_t B)
{
    kcu_pf_args sa;
    memset(&sa, 0, sizeof sa);
    sa.col = d->col;
    sa.hre = d->hre;
    sa.him = d->him;
    sa.ons = d->ons;
    sa.field = d->field;
    sa.famp = d->famp;
    sa.fL = d->fL;
    sa.dim = (long long)dim;
    sa.width = d->frank >= 0 ? d->fz : d->width;
    sa.ia = 1.0 / a;
    sa.b = b;
    sa.B = (int)B;
    sa.nb = (int)B;
    return sa;
}

/* The series forward on stream st, one launch per order: acc = c_0 x (x in v0), then the
 * orders 1 .. last, r_m and acc += c_m r_m (c_m = 0 from m = M on); r_last into *cur and
 * r_{last-1} into *old (buffers v0 and v1). */
static void kcu_forward(const kcu_ham *d, double a, double b, const double *c, size_t M,
                        size_t last, size_t dim, size_t nb, double2 *v0, double2 *v1,
                        double2 *acc, cudaStream_t st, double2 **cur_out, double2 **old_out)
{
    const long long n = (long long)(dim * nb);
    int grid;
    kcu_pf_grid(n, &grid);
    kcu_pf_scale<<<grid, KCU_STEP_THREADS, 0, st>>>(v0, acc, c[0], n);
    kcu_pf_args sa = kcu_pf_args_of(d, a, b, dim, nb);
    sa.acc = acc;
    const void *kernel = kcu_pf_kernel_of(d);
    double2 *cur = v0, *old = v1;
    for (size_t m = 1; m <= last; m++) {
        sa.first = m == 1;
        sa.x = cur;
        sa.y = old;
        sa.c = m < M ? c[m] : 0.0;
        void *args[] = {(void *)&sa};
        cudaLaunchKernel(kernel, dim3((unsigned)grid), dim3(KCU_STEP_THREADS), args, 0, st);
        double2 *t = cur;
        cur = old;
        old = t;
    }
    *cur_out = cur;
    *old_out = old;
}

/* the launches of one gradient (the series forward, the backward pass and its terms) on
 * stream st */
static void kcu_pf_record(kcu_pf *s, const kcu_ham *d, double a, double b, const double *c,
                          size_t M, size_t nb, cudaStream_t st)
{
    const size_t dim = s->dim;
    const long long n = (long long)(dim * nb);
    int grid;
    kcu_pf_grid(n, &grid);
    double2 *cur, *old; /* the forward to alpha_M (x = phi, copied into v0) */
    kcu_forward(d, a, b, c, M, M, dim, nb, s->v0, s->v1, s->acc, st, &cur, &old);
    kcu_pf_args sa = kcu_pf_args_of(d, a, b, dim, nb);
    const void *kernel = kcu_pf_kernel_of(d);
    /* cur = alpha_M, old = alpha_{M-1} */
    kcu_pf_start<<<grid, KCU_STEP_THREADS, 0, st>>>(old, cur, s->phi, c[M - 1],
                                                            (long long)dim, (int)nb, s->X,
                                                            s->Y);
    int grid2, grid3;
    kcu_pf_grid(2 * n, &grid2);
    kcu_pf_grid((long long)dim * (s->width + 1), &grid3);
    sa.B = (int)(2 * nb);
    sa.acc = NULL;
    sa.phi = s->phi;
    sa.first = 0;
    double2 *X = s->X, *Y = s->Y;
    for (size_t j = M - 1; j >= 1; j--) {
        sa.x = X;
        sa.y = Y;
        sa.c = c[j - 1];
        void *args[] = {(void *)&sa};
        cudaLaunchKernel(kernel, dim3((unsigned)grid2), dim3(KCU_STEP_THREADS), args, 0,
                         st);
        kcu_pf_terms<<<grid3, KCU_STEP_THREADS, 0, st>>>(
            s->col, (long long)dim, s->width, (int)nb, X, Y, (j >= 2 ? 2.0 : 1.0) / a, s->gd,
            s->gre, s->gim);
        double2 *t = X;
        X = Y;
        Y = t;
    }
}

/* the graph of (d, a, b, c, M, nb): built unless the one kept is for them */
static int kcu_pf_graph(kcu_pf *s, const kcu_ham *d, double a, double b, const double *c,
                        size_t M, size_t nb)
{
    if (s->graph && s->g_d == d && s->g_a == a && s->g_b == b && s->g_M == M && s->g_nb == nb &&
        !memcmp(s->g_c, c, M * sizeof *c))
        return MCF_OK;
    if (s->graph) {
        cudaGraphExecDestroy(s->graph);
        s->graph = NULL;
    }
    free(s->g_c);
    if (!(s->g_c = (double *)malloc(M * sizeof *c)))
        return mcf_fail(MCF_ENOMEM, "kpm-cuda: out of memory");
    memcpy(s->g_c, c, M * sizeof *c);
    if (!s->capture)
        KCU_TRY(cudaStreamCreateWithFlags(&s->capture, cudaStreamNonBlocking),
                "creating the capture stream", 0);
    KCU_TRY(cudaStreamBeginCapture(s->capture, cudaStreamCaptureModeThreadLocal),
            "capturing the pseudofermion gradient", 0);
    kcu_pf_record(s, d, a, b, c, M, nb, s->capture);
    cudaGraph_t graph = NULL;
    cudaError_t ce = cudaStreamEndCapture(s->capture, &graph);
    if (ce == cudaSuccess)
        ce = cudaGraphInstantiate(&s->graph, graph, 0);
    if (graph)
        cudaGraphDestroy(graph);
    if (ce != cudaSuccess) {
        s->graph = NULL;
        return kcu_fail(ce, "building the graph of the pseudofermion gradient", 0);
    }
    s->g_d = d;
    s->g_a = a;
    s->g_b = b;
    s->g_M = M;
    s->g_nb = nb;
    return MCF_OK;
}

int kcu_pf_stage_in(kcu_pf *s, const mcf_hamiltonian *h, const double *x, size_t nb)
{
    const size_t dim = s->dim, gb = dim * (size_t)s->width;
    if (memcmp(s->col_host, h->col, gb * sizeof(int32_t))) {
        memcpy(s->col_host, h->col, gb * sizeof(int32_t));
        KCU_TRY(cudaMemcpyAsync(s->col, s->col_host, gb * sizeof(int32_t),
                                cudaMemcpyHostToDevice, kcu_stream), "the pattern", 0);
    }
    const long long n = (long long)(dim * nb);
    double2 *host = s->host;
#pragma omp parallel for schedule(static) if (dim >= KCU_HOST_ROWS_PARALLEL)
    for (size_t r = 0; r < dim; r++)
        for (size_t v = 0; v < nb; v++)
            host[r * nb + v] = make_double2(x[2 * nb * r + v], x[2 * nb * r + nb + v]);
    KCU_TRY(cudaMemcpyAsync(s->phi, s->host, (size_t)n * sizeof(double2),
                            cudaMemcpyHostToDevice, kcu_stream), "the pseudofermions", 0);
    KCU_TRY(cudaMemcpyAsync(s->v0, s->phi, (size_t)n * sizeof(double2),
                            cudaMemcpyDeviceToDevice, kcu_stream), "the pseudofermions", 0);
    return MCF_OK;
}

int kcu_pf_stage_out(kcu_pf *s, size_t nb, int grad)
{
    const size_t dim = s->dim, gb = dim * (size_t)s->width;
    KCU_TRY(cudaMemcpyAsync(s->host, s->acc, dim * nb * sizeof(double2),
                            cudaMemcpyDeviceToHost, kcu_stream), "the series", 0);
    if (!grad)
        return MCF_OK;
    KCU_TRY(cudaMemcpyAsync(s->ghost, s->gd, dim * sizeof(double), cudaMemcpyDeviceToHost,
                            kcu_stream), "the gradient", 0);
    KCU_TRY(cudaMemcpyAsync(s->ghost + dim, s->gre, gb * sizeof(double),
                            cudaMemcpyDeviceToHost, kcu_stream), "the gradient", 0);
    KCU_TRY(cudaMemcpyAsync(s->ghost + dim + gb, s->gim, gb * sizeof(double),
                            cudaMemcpyDeviceToHost, kcu_stream), "the gradient", 0);
    return MCF_OK;
}

int kcu_pf_unpack(const kcu_pf *s, size_t nb, double a, double b, double *y, double *g_diag,
                  double *g_re, double *g_im)
{
    const size_t dim = s->dim, gb = dim * (size_t)s->width;
    const double2 *host = s->host;
    const double *gh = s->ghost;
    int bad = 0;
#pragma omp parallel for schedule(static) if (dim >= KCU_HOST_ROWS_PARALLEL) reduction(| : bad)
    for (size_t r = 0; r < dim; r++)
        for (size_t v = 0; v < nb; v++) {
            const double2 u = host[r * nb + v];
            bad |= !g_diag && (!isfinite(u.x) || !isfinite(u.y));
            y[2 * nb * r + v] = u.x;
            y[2 * nb * r + nb + v] = u.y;
        }
    if (bad)
        return mcf_fail(MCF_EINVAL, "kpm-cuda: series: a non-finite entry (the spectrum "
                        "reaches outside the bounds used for rescaling, [%g, %g])", b - a,
                        b + a);
    if (!g_diag)
        return MCF_OK;
#pragma omp parallel for schedule(static) if (dim >= KCU_HOST_ROWS_PARALLEL)
    for (size_t q = 0; q < gb; q++) {
        g_re[q] += gh[dim + q];
        g_im[q] += gh[dim + gb + q];
        if (q < dim)
            g_diag[q] += gh[q];
    }
    return MCF_OK;
}

extern "C" int kcu_pf_gradient(kcu_pf *s, const kcu_ham *d, const mcf_hamiltonian *h,
                               double a, double b, const double *c, size_t M, size_t nb,
                               const double *x, double *y, double *g_diag, double *g_re,
                               double *g_im)
{
    const size_t dim = s->dim, gb = dim * (size_t)s->width;
    if (nb < 1 || nb > s->block || M < 2 || d->dim != dim || h->dim != dim ||
        h->width != s->width)
        return mcf_fail(MCF_EINVAL, "kpm-cuda: pseudofermion gradient of %zu vectors, %zu "
                        "terms, dimension %zu (the scratch: %zu of dimension %zu)", nb, M,
                        d->dim, s->block, dim);
    int rc = kcu_pf_stage_in(s, h, x, nb);
    if (rc)
        return rc;
    kcu_pf_job job;
    memset(&job, 0, sizeof job);
    job.s = s;
    job.d = d;
    job.h = h;
    job.a = a;
    job.b = b;
    job.c = c;
    job.M = M;
    job.gd = g_diag;
    size_t fit = 0;
    if ((rc = kcu_pf_fused_fit(&job, 1, nb, &fit)) || (fit && (rc = kcu_pf_fused(&job, 1, nb))))
        return rc;
    if (!fit) {
        KCU_TRY(cudaMemsetAsync(s->gd, 0, dim * sizeof(double), kcu_stream), "zeroing", 0);
        KCU_TRY(cudaMemsetAsync(s->gre, 0, gb * sizeof(double), kcu_stream), "zeroing", 0);
        KCU_TRY(cudaMemsetAsync(s->gim, 0, gb * sizeof(double), kcu_stream), "zeroing", 0);
        if ((rc = kcu_pf_graph(s, d, a, b, c, M, nb)))
            return rc;
        KCU_TRY(cudaGraphLaunch(s->graph, kcu_stream), "launching the pseudofermion gradient",
                0);
    }
    KCU_TRY(cudaGetLastError(), "launching the pseudofermion gradient", 0);
    if ((rc = kcu_pf_stage_out(s, nb, 1)))
        return rc;
    KCU_TRY(cudaStreamSynchronize(kcu_stream), "the pseudofermion gradient", 0);
    return kcu_pf_unpack(s, nb, a, b, y, g_diag, g_re, g_im);
}

/* ---- the series of a block (density_matrix's probes) ----------------------------------- */

struct kcu_series {
    size_t dim, block;
    double2 *v0, *v1, *acc;  /* device: r_{n-1}, r_n, the sum (dim x block each) */
    double2 *host;           /* pinned host staging of one block */
};

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
    double2 *cur, *old;
    kcu_forward(d, a, b, c, Mf, Mf - 1, dim, nb, s->v0, s->v1, s->acc, kcu_stream, &cur, &old);
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
