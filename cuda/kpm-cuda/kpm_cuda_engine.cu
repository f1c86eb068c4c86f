/* kpm_cuda_engine.cu — Chebyshev moments of blocks of vectors on the device (kcu_engine):
 * the DOS's random vectors (Philox), the LDOS's and Green's functions' unit vectors, the
 * recursion one kernel launch per step (replayed as one CUDA graph), the moments from the
 * steps' dot products, and the benchmark's timing of steps.  The row product it shares with
 * the GFMC kernel is in kpm_cuda_internal.cuh; the transforms are kpm_cuda_dct.cu's. */
#include "kpm_cuda_internal.cuh"
#include "kpm_cuda_pair.cuh"
#include "kpm_cuda_step.cuh"

#include <float.h>
#include <math.h>
#include <stdlib.h>

/* Start vectors: nb random vectors in a block of stride B (the rest zero). */
__global__ void kcu_random_vectors_kernel(double2 *v, long long dim, int B, int nb,
                                          unsigned long long seed, unsigned long long first,
                                          int gaussian)
{
    for (long long q = (long long)blockIdx.x * blockDim.x + threadIdx.x; q < dim * B;
         q += (long long)gridDim.x * blockDim.x) {
        const int j = (int)(q % B);
        const long long r = q / B;
        if (j >= nb) {
            v[q] = make_double2(0.0, 0.0);
            continue;
        }
        v[q] = kcu_random_entry(seed, first + (unsigned long long)j, r, gaussian);
    }
}

__global__ void kcu_zero_kernel(double2 *v, long long n)
{
    for (long long q = (long long)blockIdx.x * blockDim.x + threadIdx.x; q < n;
         q += (long long)gridDim.x * blockDim.x)
        v[q] = make_double2(0.0, 0.0);
}

/* the rows of a block of unit vectors, passed by value (a kernel parameter: no copy from
 * host memory that could be reused before it lands) */
struct kcu_unit_rows {
    long long r[64];
};

__global__ void kcu_set_units_kernel(double2 *v, int B, const kcu_unit_rows rows, int nb)
{
    const int j = threadIdx.x;
    if (j < nb)
        v[rows.r[j] * B + j] = make_double2(1.0, 0.0);
}

struct kcu_engine {
    size_t dim, block;
    double2 *v0, *v1;
    double2 *v2, *v3;   /* the pairs' other two vectors (kpm_cuda_pair.cuh), made at first use */
    double *part, *tot; /* part: 2 buffers of part_blocks x 3 block; tot: steps x 3 block */
    size_t part_blocks;
    int march;          /* kcu_engine_march's mode (0: the plugin's rule) */
    int share;          /* kcu_engine_march_share's choice (-1: the plugin's rule) */
    int pairs;          /* kcu_engine_pairs's mode (0: the plugin's rule) */
    size_t tot_steps;
    double *tot_host;
    int grid;
    /* the K step launches captured once as a CUDA graph, replayed while the Hamiltonian's
     * device table, the rescaling and K stay the same (the table's contents may change) */
    cudaGraphExec_t graph;
    cudaStream_t capture; /* the engine's own stream, only captured on (made at the first
                             capture): another thread's work on the plugin's shared stream
                             cannot fall into the graph */
    const kcu_ham *graph_d;
    double graph_a, graph_b;
    size_t graph_K;
};

extern "C" void kcu_engine_destroy(kcu_engine *e)
{
    if (!e)
        return;
    cudaStreamSynchronize(kcu_stream); /* a replay of the graph may still use the buffers */
    cudaFree(e->v0);
    cudaFree(e->v1);
    cudaFree(e->v2);
    cudaFree(e->v3);
    cudaFree(e->part);
    cudaFree(e->tot);
    free(e->tot_host);
    if (e->graph)
        cudaGraphExecDestroy(e->graph);
    if (e->capture)
        cudaStreamDestroy(e->capture);
    free(e);
}

extern "C" int kcu_engine_create(size_t dim, size_t block, kcu_engine **out)
{
    *out = NULL;
    int rc = kcu_device_init();
    if (rc)
        return rc;
    if (dim < 1 || block < 1 || block > 64)
        return mcf_fail(MCF_EINVAL, "kpm-cuda: engine of dimension %zu and block %zu (1..64)",
                        dim, block);
    kcu_engine *e = (kcu_engine *)calloc(1, sizeof *e);
    if (!e)
        return mcf_fail(MCF_ENOMEM, "kpm-cuda: out of memory");
    e->dim = dim;
    e->block = block;
    e->share = -1;
    /* the most blocks a step may use (and the size of the part buffers): no more than the
     * rows need, at most 8 per SM; a step uses one resident wave of them (kcu_step_grid) */
    const size_t Bp = block <= 1 ? 1 : (size_t)1 << (64 - __builtin_clzll(block - 1));
    const size_t rows_per_block = KCU_STEP_THREADS / Bp;
    size_t grid = (dim + rows_per_block - 1) / rows_per_block;
    const size_t cap = 8 * (size_t)mcu_props()->multiProcessorCount;
    e->grid = (int)(grid < cap ? grid : cap);
    e->part_blocks = (size_t)e->grid;
    const size_t vb = dim * block * sizeof(double2);
    if ((rc = kcu_alloc((void **)&e->v0, vb, "KPM vectors")) ||
        (rc = kcu_alloc((void **)&e->v1, vb, "KPM vectors")) ||
        (rc = kcu_alloc((void **)&e->part, 2 * (size_t)e->grid * 6 * block * sizeof(double),
                        "KPM partial sums"))) {
        kcu_engine_destroy(e);
        return rc;
    }
    *out = e;
    return MCF_OK;
}

extern "C" void kcu_engine_march(kcu_engine *e, int mode)
{
    if (e->march != mode && e->graph) { /* the next recursion captures its steps anew */
        cudaStreamSynchronize(kcu_stream);
        cudaGraphExecDestroy(e->graph);
        e->graph = NULL;
    }
    e->march = mode;
}

extern "C" void kcu_engine_pairs(kcu_engine *e, int mode)
{
    mode = mode < 0 ? -1 : mode ? 1 : 0;
    if (e->pairs != mode && e->graph) {
        cudaStreamSynchronize(kcu_stream);
        cudaGraphExecDestroy(e->graph);
        e->graph = NULL;
    }
    e->pairs = mode;
}

extern "C" void kcu_engine_march_share(kcu_engine *e, int share)
{
    share = share < 0 ? -1 : share > 2 ? 1 : share;
    if (e->share != share && e->graph) {
        cudaStreamSynchronize(kcu_stream);
        cudaGraphExecDestroy(e->graph);
        e->graph = NULL;
    }
    e->share = share;
}

static int kcu_engine_reserve_steps(kcu_engine *e, size_t steps)
{
    if (steps <= e->tot_steps)
        return MCF_OK;
    KCU_TRY(cudaStreamSynchronize(kcu_stream), "the previous recursion", 0);
    cudaFree(e->tot);
    free(e->tot_host);
    e->tot = NULL;
    e->tot_host = NULL;
    e->tot_steps = 0;
    const size_t n = steps * 3 * e->block;
    int rc = kcu_alloc((void **)&e->tot, n * sizeof(double), "KPM moments");
    if (rc)
        return rc;
    e->tot_host = (double *)malloc(n * sizeof(double));
    if (!e->tot_host)
        return mcf_fail(MCF_ENOMEM, "kpm-cuda: out of memory for %zu moments", n);
    e->tot_steps = steps;
    return MCF_OK;
}

/* The recursion for nb vectors already in e->v0 (stride e->block): K = M / 2 steps (at
 * least 1), sums into tot_host[step][3 B]; then the moments mu[j M + n] * scale. */
static int kcu_engine_moments(kcu_engine *e, const kcu_ham *d, double a, double b, size_t nb,
                              size_t M, double scale, double *mu)
{
    const size_t B = e->block, K = M / 2 > 0 ? M / 2 : 1;
    int rc = kcu_engine_reserve_steps(e, K);
    if (rc)
        return rc;
    const int Bp = B <= 1 ? 1 : 1 << (32 - __builtin_clz((unsigned)B - 1));
    kcu_step_args s;
    s.col = d->col;
    s.hre = d->hre;
    s.him = d->him;
    s.ons = d->ons;
    s.field = d->field;
    s.famp = d->famp;
    s.fL = d->fL;
    s.dim = (long long)e->dim;
    s.width = d->frank >= 0 ? d->fz : d->width;
    s.B = (int)B;
    s.Bp = Bp;
    s.ia = 1.0 / a;
    s.b = b;
    if (!e->graph || e->graph_d != d || e->graph_a != a || e->graph_b != b || e->graph_K != K) {
        /* capture the K launches (a few us each when launched one by one: 3-6% of a 128^3
         * step) as one graph */
        if (e->graph) {
            cudaGraphExecDestroy(e->graph);
            e->graph = NULL;
        }
        if (!e->capture)
            KCU_TRY(cudaStreamCreateWithFlags(&e->capture, cudaStreamNonBlocking),
                    "creating the capture stream", 0);
        const kcu_march march = kcu_march_plan(d, (int)B, e->march, e->share);
        const int grid = march.on ? march.items : kcu_step_grid(d, (int)B, e->grid);
        kcu_pair pair = kcu_pair_plan(d, (int)B, K, e->pairs);
        if (pair.on && !e->v2) { /* the pairs' two more vectors; without room, one step a launch */
            const size_t vb = e->dim * B * sizeof(double2);
            if (cudaMalloc((void **)&e->v2, vb) != cudaSuccess ||
                cudaMalloc((void **)&e->v3, vb) != cudaSuccess) {
                cudaGetLastError();
                cudaFree(e->v2);
                e->v2 = NULL;
                pair.on = 0;
            }
        }
        const int most = pair.on && pair.items > grid ? pair.items : grid;
        if ((size_t)most > e->part_blocks) { /* the marching step's or the pairs' blocks */
            KCU_TRY(cudaStreamSynchronize(kcu_stream), "the previous recursion", 0);
            cudaFree(e->part);
            e->part = NULL;
            e->part_blocks = 0;
            if ((rc = kcu_alloc((void **)&e->part, 2 * (size_t)most * 6 * B * sizeof(double),
                                "KPM partial sums")))
                return rc;
            e->part_blocks = (size_t)most;
        }
        KCU_TRY(cudaStreamBeginCapture(e->capture, cudaStreamCaptureModeThreadLocal),
                "capturing the Chebyshev steps", 0);
        /* the first step alone, then pairs of steps while two are left (pair.on), then one
         * step a launch; each launch adds the previous one's block sums (prev_G blocks of
         * prev_nq sums) into tot while it runs, the last launch's by kcu_sum_blocks_kernel */
        double2 *cur = e->v0, *old = e->v1;
        const size_t np = e->part_blocks * 6 * B;
        int launch = 0, prev_G = 0, prev_nq = 0;
        double *prev_part = NULL, *prev_tot = NULL;
        for (size_t n = 1; n <= K; launch++) {
            double *part = e->part + (launch & 1) * np;
            if (n >= 2 && n + 1 <= K && pair.on) {
                kcu_pair_args p;
                p.field = d->field;
                p.ons = d->ons;
                p.famp = d->famp;
                p.L = (int)d->fL;
                p.B = (int)B;
                p.G = ((int)B + 7) / 8;
                p.zc = pair.zc;
                p.xo = old;
                p.x = cur;
                p.y1 = cur == e->v2 || cur == e->v3 ? e->v0 : e->v2;
                p.y2 = cur == e->v2 || cur == e->v3 ? e->v1 : e->v3;
                p.ia = 1.0 / a;
                p.b = b;
                p.part = part;
                p.prev_part = prev_part;
                p.prev_G = prev_G;
                p.prev_nq = prev_nq;
                p.prev_tot = prev_tot;
                const void *kern = kcu_pair_kernel_of(d->frank);
                void *args[] = {(void *)&p};
                cudaLaunchKernel(kern, dim3((unsigned)pair.items), dim3(KCU_STEP_THREADS), args,
                                 0, e->capture);
                old = p.y1;
                cur = p.y2;
                prev_G = pair.items;
                prev_nq = (int)(6 * B);
                prev_tot = e->tot + (n - 1) * 3 * B;
                n += 2;
            } else {
                s.first = n == 1;
                s.x = cur;
                s.y = old;
                s.part = part;
                s.prev_part = prev_part;
                s.prev_G = prev_G;
                s.prev_nq = prev_nq;
                s.prev_tot = prev_tot;
                kcu_launch_step(d, grid, s, march, e->capture);
                double2 *t = cur; /* y = 2 H x - y in place: the new x is the old y */
                cur = old;
                old = t;
                prev_G = grid;
                prev_nq = (int)(3 * B);
                prev_tot = e->tot + (n - 1) * 3 * B;
                n += 1;
            }
            prev_part = part;
        }
        kcu_sum_blocks_kernel<<<(unsigned)prev_nq, KCU_STEP_THREADS, 0, e->capture>>>(
            prev_part, (unsigned)prev_G, prev_nq, prev_tot);
        cudaGraph_t graph = NULL;
        cudaError_t ce = cudaStreamEndCapture(e->capture, &graph);
        if (ce == cudaSuccess)
            ce = cudaGraphInstantiate(&e->graph, graph, 0);
        if (graph)
            cudaGraphDestroy(graph);
        if (ce != cudaSuccess) {
            e->graph = NULL;
            return kcu_fail(ce, "building the graph of the Chebyshev steps", 0);
        }
        e->graph_d = d;
        e->graph_a = a;
        e->graph_b = b;
        e->graph_K = K;
    }
    KCU_TRY(cudaGraphLaunch(e->graph, kcu_stream), "launching the Chebyshev steps", 0);
    KCU_TRY(cudaMemcpyAsync(e->tot_host, e->tot, K * 3 * B * sizeof(double),
                            cudaMemcpyDeviceToHost, kcu_stream), "copying moments", 0);
    KCU_TRY(cudaStreamSynchronize(kcu_stream), "the Chebyshev recursion", 0);
    const double *t = e->tot_host;
    for (size_t j = 0; j < nb; j++) {
        const double mu0 = t[j], mu1 = t[B + j];
        double *m = mu + j * M;
        m[0] = mu0;
        if (M > 1)
            m[1] = mu1;
        if (M > 2)
            m[2] = 2.0 * t[2 * B + j] - mu0;
        for (size_t n = 2; n <= K; n++) {
            const double *tn = t + (n - 1) * 3 * B;
            m[2 * n - 1] = 2.0 * tn[B + j] - mu1;
            if (2 * n < M)
                m[2 * n] = 2.0 * tn[2 * B + j] - mu0;
        }
        for (size_t n = 1; n < M; n++)
            if (!(fabs(m[n]) <= mu0 * (1.0 + 1e-8) + DBL_MIN))
                return mcf_fail(MCF_EINVAL,
                                "kpm-cuda: Chebyshev moment <r|T_%zu(H~)|r> of vector %zu is "
                                "%g, beyond <r|r> = %g: the spectrum of the Hamiltonian "
                                "reaches outside [%g, %g], the bounds used for rescaling "
                                "(fixed bounds too narrow, or a damaged ELL table)",
                                n, j, m[n], mu0, b - a, b + a);
        for (size_t n = 0; n < M; n++)
            m[n] *= scale;
    }
    return MCF_OK;
}

static void kcu_grid_for(size_t n, int *grid)
{
    size_t g = (n + 255) / 256;
    const size_t cap = 8 * (size_t)mcu_props()->multiProcessorCount;
    *grid = (int)(g < 1 ? 1 : g < cap ? g : cap);
}

extern "C" int kcu_random_moments(kcu_engine *e, const kcu_ham *d, double a, double b, int kind,
                                  uint64_t seed, size_t R, size_t M, double *mu_vec)
{
    if (d->dim != e->dim)
        return mcf_fail(MCF_EINVAL, "kpm-cuda: engine and Hamiltonian dimensions differ");
    const size_t B = e->block;
    for (size_t r0 = 0; r0 < R; r0 += B) {
        const size_t nb = R - r0 < B ? R - r0 : B;
        int grid;
        kcu_grid_for(e->dim * B, &grid);
        kcu_random_vectors_kernel<<<grid, 256, 0, kcu_stream>>>(
            e->v0, (long long)e->dim, (int)B, (int)nb, (unsigned long long)seed,
            (unsigned long long)r0, kind == 1);
        int rc = kcu_engine_moments(e, d, a, b, nb, M, 1.0 / (double)e->dim, mu_vec + r0 * M);
        if (rc)
            return rc;
    }
    return MCF_OK;
}

extern "C" int kcu_rows_moments(kcu_engine *e, const kcu_ham *d, double a, double b,
                                const size_t *rows, size_t n_rows, size_t M, double *mu)
{
    if (d->dim != e->dim)
        return mcf_fail(MCF_EINVAL, "kpm-cuda: engine and Hamiltonian dimensions differ");
    const size_t B = e->block;
    for (size_t j = 0; j < n_rows; j++)
        if (rows[j] >= e->dim)
            return mcf_fail(MCF_EINVAL, "kpm-cuda: LDOS of row %zu asked for, but the "
                            "Hamiltonian has rows 0 to %zu", rows[j], e->dim - 1);
    for (size_t r0 = 0; r0 < n_rows; r0 += B) {
        const size_t nb = n_rows - r0 < B ? n_rows - r0 : B;
        kcu_unit_rows idx = {};
        for (size_t j = 0; j < nb; j++)
            idx.r[j] = (long long)rows[r0 + j];
        int grid;
        kcu_grid_for(e->dim * B, &grid);
        kcu_zero_kernel<<<grid, 256, 0, kcu_stream>>>(e->v0, (long long)(e->dim * B));
        kcu_set_units_kernel<<<1, 64, 0, kcu_stream>>>(e->v0, (int)B, idx, (int)nb);
        int rc = kcu_engine_moments(e, d, a, b, nb, M, 1.0, mu + r0 * M);
        if (rc)
            return rc;
    }
    return MCF_OK;
}

extern "C" int kcu_time_steps(kcu_engine *e, const kcu_ham *d, double a, double b, size_t nvec,
                              size_t steps, double *seconds_per_step, double *bytes_per_step)
{
    if (nvec < 1 || nvec > e->block || steps < 2)
        return mcf_fail(MCF_EINVAL, "kpm-cuda: timing %zu vectors (block %zu), %zu steps",
                        nvec, e->block, steps);
    int grid;
    kcu_grid_for(e->dim * e->block, &grid);
    kcu_random_vectors_kernel<<<grid, 256, 0, kcu_stream>>>(e->v0, (long long)e->dim,
                                                            (int)e->block, (int)nvec, 1ull, 0ull,
                                                            0);
    /* one untimed warm-up run, then the timed one */
    double *mu = (double *)malloc(nvec * 2 * steps * sizeof(double));
    if (!mu)
        return mcf_fail(MCF_ENOMEM, "kpm-cuda: out of memory");
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    int rc = kcu_engine_moments(e, d, a, b, nvec, 2 * steps, 1.0, mu);
    kcu_random_vectors_kernel<<<grid, 256, 0, kcu_stream>>>(e->v0, (long long)e->dim,
                                                            (int)e->block, (int)nvec, 1ull, 0ull,
                                                            0);
    cudaEventRecord(e0, kcu_stream);
    if (!rc)
        rc = kcu_engine_moments(e, d, a, b, nvec, 2 * steps, 1.0, mu);
    cudaEventRecord(e1, kcu_stream);
    cudaEventSynchronize(e1);
    float ms = 0;
    cudaEventElapsedTime(&ms, e0, e1);
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    free(mu);
    if (rc)
        return rc;
    *seconds_per_step = ms * 1e-3 / (double)steps;
    /* the table once, and per vector: the gathered x, the old y read, the new y written */
    *bytes_per_step = (double)kcu_ham_bytes(d) + 3.0 * (double)e->dim * (double)e->block * 16.0;
    return MCF_OK;
}
