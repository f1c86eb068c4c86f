/* tetra_cuda_grid.cu — making a GPU grid (tetra_cuda.h): from a crystal (the bands solved
 * on the device, tetra_cuda_eigen.cu) or from bands given on the host; the cut of its cells
 * (tetra_cut_cells of the CPU library: the same tetrahedra), the extremes of the bands, the
 * float tables and the copies back. */
#include "tetra_cuda_internal.cuh"

#include "mcf_cuda.h"
#include "tetra.h"

#include "mcf/error.h"

#include <cfloat>
#include <cmath>
#include <cstdlib>
#include <cstring>

static int fail(cudaError_t e, const char *what, size_t bytes)
{
    return mcu_fail((int)e, "tetra-cuda", what, bytes,
                    "use fewer k points, or evaluator = tetra (CPU)");
}

static int check_shape(const size_t n[3], size_t bands)
{
    for (int d = 0; d < 3; d++)
        if (n[d] < 1 || n[d] > (1u << 20))
            return mcf_fail(MCF_EINVAL, "tetra-cuda: the k grid has n = %zu points along "
                            "direction %d; give 1 to %u", n[d], d + 1, 1u << 20);
    const double nk = (double)n[0] * (double)n[1] * (double)n[2];
    /* cell indices and the count of tetrahedra below an energy are 32-bit on the device */
    if (nk * 6.0 * (double)bands >= 4e9 || bands < 1 || bands > 4096)
        return mcf_fail(MCF_EINVAL, "tetra-cuda: %.3g k points x %zu bands is too large for "
                        "the device's 32-bit counts; use fewer k points", nk, bands);
    return MCF_OK;
}

static int grid_alloc(const size_t n[3], size_t bands, int with_weights, tcu_grid **out)
{
    tcu_grid *g = (tcu_grid *)calloc(1, sizeof *g);
    if (!g)
        return mcf_fail(MCF_ENOMEM, "tetra-cuda: out of memory");
    for (int d = 0; d < 3; d++)
        g->n[d] = n[d];
    g->nk = n[0] * n[1] * n[2];
    g->bands = bands;
    g->shape.n0 = (unsigned)n[0];
    g->shape.n1 = (unsigned)n[1];
    g->shape.n2 = (unsigned)n[2];
    g->shape.bands = (unsigned)bands;
    size_t bytes = g->nk * bands * sizeof(double);
    cudaError_t e = cudaMalloc((void **)&g->eps, bytes);
    if (e == cudaSuccess && with_weights) {
        bytes *= bands;
        e = cudaMalloc((void **)&g->weight, bytes);
    }
    if (e != cudaSuccess) {
        tcu_grid_destroy(g);
        return fail(e, "the bands of the k grid", bytes);
    }
    *out = g;
    return MCF_OK;
}

static void set_cut(tcu_grid *g, const double G[3][3])
{
    unsigned corner[6][4];
    tetra_cut_cells(G, g->n, corner);
    for (int t = 0; t < 6; t++)
        for (int i = 0; i < 4; i++)
            g->shape.corner[t][i] = (unsigned char)corner[t][i];
}

int tcu_grid_create(const mcf_periodic *p, const size_t n[3], const double shift[3],
                    int with_weights, tcu_solver solver, tcu_grid **out)
{
    *out = NULL;
    int rc = mcf_periodic_check(p, "tetra-cuda");
    if (rc || (rc = check_shape(n, p->orbitals)))
        return rc;
    for (unsigned d = p->dims; d < 3; d++)
        if (n[d] != 1)
            return mcf_fail(MCF_EINVAL, "tetra-cuda: the k grid has n = %zu points along "
                            "direction %u, but the crystal is periodic in %u only", n[d], d + 1,
                            p->dims);
    const double s[3] = {shift ? shift[0] : 0.0, shift ? shift[1] : 0.0,
                         shift ? shift[2] : 0.0};
    for (int d = 0; d < 3; d++)
        if (!std::isfinite(s[d]))
            return mcf_fail(MCF_EINVAL, "tetra-cuda: the grid shift along direction %d is not "
                            "finite", d + 1);
    tcu_grid *g;
    if ((rc = grid_alloc(n, p->orbitals, with_weights, &g)))
        return rc;
    double G[3][3];
    tetra_reciprocal_metric(p, G);
    set_cut(g, G);
    if ((rc = tcu_solve_bands(p, s, g, solver)) || (rc = tcu_grid_extremes(g))) {
        tcu_grid_destroy(g);
        return rc;
    }
    *out = g;
    return MCF_OK;
}

int tcu_grid_from_bands(const size_t n[3], size_t bands, const double *eps,
                        const double *weight, const double metric[3][3], tcu_grid **out)
{
    *out = NULL;
    int rc = check_shape(n, bands);
    if (rc)
        return rc;
    if (!eps || !metric)
        return mcf_fail(MCF_EINVAL, "tetra-cuda: a grid from bands needs the bands and the "
                        "metric");
    tcu_grid *g;
    if ((rc = grid_alloc(n, bands, weight != NULL, &g)))
        return rc;
    set_cut(g, metric);
    const size_t bytes = g->nk * bands * sizeof(double);
    /* on the stream of the kernels that read them next (tcu_grid_extremes at once: a plain
     * cudaMemcpy goes to the legacy stream, which the non-blocking stream does not wait
     * for, and from pageable memory returns before its DMA has landed), waited for: the
     * caller's arrays are pageable and theirs again when this returns */
    cudaError_t e = cudaMemcpyAsync(g->eps, eps, bytes, cudaMemcpyHostToDevice, mcu_stream());
    if (e == cudaSuccess && weight)
        e = cudaMemcpyAsync(g->weight, weight, bytes * bands, cudaMemcpyHostToDevice,
                            mcu_stream());
    const cudaError_t es = cudaStreamSynchronize(mcu_stream());
    if (e == cudaSuccess)
        e = es;
    if (e != cudaSuccess) {
        tcu_grid_destroy(g);
        return fail(e, "copying the bands to the device", bytes);
    }
    if ((rc = tcu_grid_extremes(g))) {
        tcu_grid_destroy(g);
        return rc;
    }
    *out = g;
    return MCF_OK;
}

void tcu_grid_destroy(tcu_grid *g)
{
    if (!g)
        return;
    cudaStreamSynchronize(mcu_stream()); /* nothing on the stream may still use it */
    cudaFree(g->eps);
    cudaFree(g->weight);
    cudaFree(g->eps_f);
    cudaFree(g->weight_f);
    cudaFree(g->scratch);
    free(g);
}

size_t tcu_grid_points(const tcu_grid *g) { return g->nk; }
size_t tcu_grid_bands(const tcu_grid *g) { return g->bands; }
int tcu_grid_has_weights(const tcu_grid *g) { return g->weight != NULL; }
double tcu_grid_emin(const tcu_grid *g) { return g->emin; }
double tcu_grid_emax(const tcu_grid *g) { return g->emax; }
void tcu_grid_timing(const tcu_grid *g, tcu_timing *out) { *out = g->timing; }

int tcu_grid_copy_bands(const tcu_grid *g, double *eps, double *weight)
{
    const size_t bytes = g->nk * g->bands * sizeof(double);
    /* behind the kernels that wrote them (the eigensolver, on the stream), then waited for */
    cudaError_t e = eps ? cudaMemcpyAsync(eps, g->eps, bytes, cudaMemcpyDeviceToHost,
                                          mcu_stream())
                        : cudaSuccess;
    if (e == cudaSuccess && weight && g->weight)
        e = cudaMemcpyAsync(weight, g->weight, bytes * g->bands, cudaMemcpyDeviceToHost,
                            mcu_stream());
    const cudaError_t es = cudaStreamSynchronize(mcu_stream());
    if (e == cudaSuccess)
        e = es;
    return e == cudaSuccess ? MCF_OK : fail(e, "copying the bands to the host", bytes);
}

/* ---- extremes and float tables -------------------------------------------------------- */

/* per block the least and the largest of a grid-stride share of x[0..n) */
__global__ void extremes_kernel(const double *x, size_t n, double *lo, double *hi)
{
    __shared__ double slo[256], shi[256];
    double a = DBL_MAX, b = -DBL_MAX;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        a = fmin(a, x[i]);
        b = fmax(b, x[i]);
    }
    slo[threadIdx.x] = a;
    shi[threadIdx.x] = b;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s /= 2) {
        if (threadIdx.x < s) {
            slo[threadIdx.x] = fmin(slo[threadIdx.x], slo[threadIdx.x + s]);
            shi[threadIdx.x] = fmax(shi[threadIdx.x], shi[threadIdx.x + s]);
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        lo[blockIdx.x] = slo[0];
        hi[blockIdx.x] = shi[0];
    }
}

int tcu_grid_extremes(tcu_grid *g)
{
    enum { blocks = 256 };
    double *d, h[2 * blocks];
    cudaError_t e = cudaMalloc((void **)&d, sizeof h);
    if (e != cudaSuccess)
        return fail(e, "the extremes of the bands", sizeof h);
    extremes_kernel<<<blocks, 256, 0, mcu_stream()>>>(g->eps, g->nk * g->bands, d, d + blocks);
    e = cudaGetLastError();
    if (e == cudaSuccess)
        e = cudaMemcpyAsync(h, d, sizeof h, cudaMemcpyDeviceToHost, mcu_stream());
    if (e == cudaSuccess)
        e = cudaStreamSynchronize(mcu_stream());
    cudaFree(d);
    if (e != cudaSuccess)
        return fail(e, "the extremes of the bands", 0);
    g->emin = DBL_MAX;
    g->emax = -DBL_MAX;
    for (int i = 0; i < blocks; i++) {
        g->emin = fmin(g->emin, h[i]);
        g->emax = fmax(g->emax, h[blocks + i]);
    }
    if (!std::isfinite(g->emin) || !std::isfinite(g->emax))
        return mcf_fail(MCF_EINVAL, "tetra-cuda: the bands are not finite");
    return MCF_OK;
}

__global__ void to_float_kernel(const double *x, float *y, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        y[i] = (float)x[i];
}

int tcu_grid_float_tables(tcu_grid *g)
{
    if (g->eps_f)
        return MCF_OK;
    const size_t ne = g->nk * g->bands, nw = g->weight ? ne * g->bands : 0;
    cudaError_t e = cudaMalloc((void **)&g->eps_f, ne * sizeof(float));
    if (e == cudaSuccess && nw)
        e = cudaMalloc((void **)&g->weight_f, nw * sizeof(float));
    if (e != cudaSuccess) {
        cudaFree(g->eps_f);
        g->eps_f = NULL;
        return fail(e, "the single-precision bands", (ne + nw) * sizeof(float));
    }
    to_float_kernel<<<1024, 256, 0, mcu_stream()>>>(g->eps, g->eps_f, ne);
    if (nw)
        to_float_kernel<<<1024, 256, 0, mcu_stream()>>>(g->weight, g->weight_f, nw);
    e = cudaGetLastError();
    return e == cudaSuccess ? MCF_OK : fail(e, "the single-precision bands", 0);
}

int tcu_grid_scratch(tcu_grid *g, size_t bytes, void **out)
{
    if (bytes > g->scratch_bytes) {
        if (g->scratch) { /* the last DOS or occupation may still use it */
            const cudaError_t es = cudaStreamSynchronize(mcu_stream());
            if (es != cudaSuccess)
                return fail(es, "the previous sums over tetrahedra", 0);
        }
        cudaFree(g->scratch);
        g->scratch = NULL;
        g->scratch_bytes = 0;
        const cudaError_t e = cudaMalloc(&g->scratch, bytes);
        if (e != cudaSuccess)
            return fail(e, "the sums over tetrahedra", bytes);
        g->scratch_bytes = bytes;
    }
    *out = g->scratch;
    return MCF_OK;
}
