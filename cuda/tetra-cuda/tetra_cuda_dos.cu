/* tetra_cuda_dos.cu — the sums over the tetrahedra of a GPU grid (tetra_cuda.h): the DOS,
 * N(E) and the orbital DOS at many energies; the band energy below a Fermi level; the Fermi
 * level of a filling.
 *
 * The DOS kernel.  A thread block of T threads takes the T consecutive energies of its tile
 * (the energies sorted once on the host) and a fixed chunk of the grid's cells; the items of
 * the chunk are its (cell, tetrahedron, band) triples.  T at a time, each thread finds one
 * item's corners, their energies and k points, sorts them and stages them in shared memory;
 * then every warp sorts the staged items 32 at a time, one a lane, by a vote: those wholly
 * below the warp's lowest energy add one tetrahedron to N at every lane at once (a
 * population count), those wholly above its highest are dropped, and the warp visits only
 * those that overlap its energies, in item order, each lane evaluating the formulas of
 * tetra_point.inc at its own energy.  (Visiting every item, the warps spent nearly all
 * their time on the comparisons: most tetrahedra of a fine grid span a few of 1024
 * energies.)  dos and N are kept in registers, the orbital DOS
 * too for 1, 2, 4 or 8 bands (a kernel each, the corner's weights loaded together) and
 * otherwise in the thread's own column of shared memory, so no two threads ever add into
 * the same place.  Each block writes its chunk's partial sums; a second kernel adds the chunks in
 * chunk order and scales by the tetrahedron volume v = 1 / (6 n_k).  The number of chunks
 * depends on the grid and the number of energies only: the result is the same bit for bit
 * on every run and every GPU.
 *
 * Occupation.  One thread per item in a grid-stride loop of a fixed grid, the block's sums
 * by a tree in shared memory, the blocks' sums in order on the host. */
#include "tetra_cuda_internal.cuh"

#include "mcf_cuda.h"
#include "tetra.h"

#include "mcf/error.h"

#include <cmath>
#include <cstdlib>
#include <cstring>

/* the formulas of one tetrahedron, in float and in double */
namespace tp_float {
struct point {
    float n, d, w[4], dw[4];
};
#define TETRA_REAL float
#define TETRA_POINT point
#define TETRA_QUAL static __device__ __forceinline__
#include "tetra_point.inc"
#undef TETRA_REAL
#undef TETRA_POINT
#undef TETRA_QUAL
} // namespace tp_float

namespace tp_double {
struct point {
    double n, d, w[4], dw[4];
};
#define TETRA_REAL double
#define TETRA_POINT point
#define TETRA_QUAL static __device__ __forceinline__
#include "tetra_point.inc"
#undef TETRA_REAL
#undef TETRA_POINT
#undef TETRA_QUAL
} // namespace tp_double

template <typename Real> struct formulas;
template <> struct formulas<float> {
    typedef tp_float::point point;
    static __device__ __forceinline__ void at(const float e[4], float E, int b, point *p)
    {
        tp_float::tp_point_at(e, E, b, p);
    }
};
template <> struct formulas<double> {
    typedef tp_double::point point;
    static __device__ __forceinline__ void at(const double e[4], double E, int b, point *p)
    {
        tp_double::tp_point_at(e, E, b, p);
    }
};

/* the blocks the DOS kernel aims at over all tiles (a few per multiprocessor of any current
 * GPU); fixed, so that the chunks do not depend on the device */
#define TCU_DOS_BLOCKS 1024u

/* blocks of 256 threads a multiprocessor should hold at once, which caps the registers
 * per thread (4: 64).  Measured on an H100 (tests/bench/tetra_gpu, 8 bands, 1024 energies,
 * 64^3 k points, double): 1 (126 registers) 71 ms, 3 56 ms, 4 49 ms; the few spilled
 * registers cost less than the latency that more resident warps hide. */
#ifndef TCU_DOS_MIN_BLOCKS
#define TCU_DOS_MIN_BLOCKS 4
#endif

static int fail(cudaError_t e, const char *what, size_t bytes)
{
    return mcu_fail((int)e, "tetra-cuda", what, bytes,
                    "use fewer k points or energies, or evaluator = tetra (CPU)");
}

/* item i of the cells [c0, ...): its sorted corner energies and their k points */
template <typename Real>
__device__ __forceinline__ void item_corners(const tcu_shape &s, const Real *eps, unsigned c0,
                                             size_t i, Real e[4], unsigned k[4])
{
    const unsigned nb = s.bands, band = (unsigned)(i % nb);
    const unsigned t = (unsigned)((i / nb) % 6), c = c0 + (unsigned)(i / (6u * nb));
    for (int q = 0; q < 4; q++) {
        k[q] = tcu_corner_k(s, c, s.corner[t][q]);
        e[q] = eps[(size_t)k[q] * nb + band];
    }
    for (int a = 1; a < 4; a++)
        for (int b = a; b > 0 && e[b] < e[b - 1]; b--) {
            const Real x = e[b];
            const unsigned y = k[b];
            e[b] = e[b - 1];
            k[b] = k[b - 1];
            e[b - 1] = x;
            k[b - 1] = y;
        }
}

struct dos_sums {
    unsigned n_E, pitch, chunks, nk;
    int bloechl;
};

/* NB > 0: the number of bands known at compile time, the orbital DOS in registers and the
 * weights of a corner loaded together; NB = 0: any number, the orbital DOS in shared memory */
template <typename Real, typename Acc, int NB>
__global__ void __launch_bounds__(256, TCU_DOS_MIN_BLOCKS)
    dos_kernel(tcu_shape s, const Real *eps, const Real *weight, const Real *E, dos_sums m,
               Acc *p_dos, Acc *p_idos, unsigned *p_below, Acc *p_orb)
{
    extern __shared__ double smem_d[];
    const unsigned T = blockDim.x, tid = threadIdx.x, nb = NB ? NB : s.bands;
    Real *se = (Real *)smem_d;                /* T x 4 staged corner energies */
    unsigned *sk = (unsigned *)(se + 4 * T);  /* T x 4 their k points */
    Acc *sorb = (Acc *)(sk + 4 * T);          /* NB = 0: nb x T, a column a thread */
    Acc orb[NB ? NB : 1];
    const unsigned j = blockIdx.x * T + tid, last = m.n_E - 1;
    const unsigned wfirst = blockIdx.x * T + (tid & ~31u);
    const Real myE = E[j < last ? j : last];
    const Real wlo = E[wfirst < last ? wfirst : last];
    const Real whi = E[wfirst + 31 < last ? wfirst + 31 : last];
    const unsigned chunk = blockIdx.y;
    const unsigned c0 = (unsigned)((size_t)m.nk * chunk / m.chunks);
    const unsigned c1 = (unsigned)((size_t)m.nk * (chunk + 1) / m.chunks);
    const size_t items = (size_t)(c1 - c0) * 6u * nb;
    Acc dos = 0, idos = 0;
    unsigned below = 0;
    for (int a = 0; a < (NB ? NB : 1); a++)
        orb[a] = 0;
    if (weight && !NB)
        for (unsigned a = 0; a < nb; a++)
            sorb[a * T + tid] = 0;
    for (size_t base = 0; base < items; base += T) {
        if (base + tid < items) {
            Real e[4];
            unsigned k[4];
            item_corners(s, eps, c0, base + tid, e, k);
            for (int q = 0; q < 4; q++) {
                se[4 * tid + q] = e[q];
                sk[4 * tid + q] = k[q];
            }
        }
        __syncthreads();
        const unsigned staged = items - base < T ? (unsigned)(items - base) : T;
        /* 32 staged items at a time, one a lane: which lie wholly below the warp's energies
         * (counted at once) and which overlap them (visited, in item order) */
        for (unsigned q0 = 0; q0 < staged; q0 += 32) {
            const unsigned ql = q0 + (tid & 31u);
            bool low = false, over = false;
            if (ql < staged) {
                low = wlo >= se[4 * ql + 3];
                over = !low && whi > se[4 * ql];
            }
            below += __popc(__ballot_sync(0xffffffffu, low));
            unsigned mask = __ballot_sync(0xffffffffu, over);
            while (mask) {
                const unsigned q = q0 + (unsigned)(__ffs(mask) - 1);
                mask &= mask - 1;
                const Real e0 = se[4 * q], e3 = se[4 * q + 3];
                if (myE >= e3) {
                    below++;
                    continue;
                }
                if (myE <= e0)
                    continue;
                const Real e[4] = {e0, se[4 * q + 1], se[4 * q + 2], e3};
                typename formulas<Real>::point pt;
                formulas<Real>::at(e, myE, m.bloechl, &pt);
                dos += (Acc)pt.d;
                idos += (Acc)pt.n;
                if (!weight)
                    continue;
                const unsigned band = (unsigned)((base + q) % nb);
                for (int c = 0; c < 4; c++) {
                    const Real *wk = weight + ((size_t)sk[4 * q + c] * nb + band) * nb;
                    const Real dw = pt.dw[c];
                    if (NB) {
                        Real wv[NB ? NB : 1];
                        for (int a = 0; a < NB; a++)
                            wv[a] = __ldg(wk + a);
                        for (int a = 0; a < NB; a++)
                            orb[a] += (Acc)(dw * wv[a]);
                    } else
                        for (unsigned a = 0; a < nb; a++)
                            sorb[a * T + tid] += (Acc)(dw * wk[a]);
                }
            }
        }
        __syncthreads();
    }
    if (j >= m.n_E)
        return;
    const size_t at = (size_t)chunk * m.pitch + j;
    p_dos[at] = dos;
    p_idos[at] = idos;
    p_below[at] = below;
    if (weight)
        for (unsigned a = 0; a < nb; a++)
            p_orb[((size_t)chunk * nb + a) * m.pitch + j] = NB ? orb[a] : sorb[a * T + tid];
}

/* the chunks' sums in chunk order: thread (j, col), col 0 the DOS and N, col 1 + a the
 * orbital DOS of a; the outputs at the energies' original places */
template <typename Acc>
__global__ void reduce_kernel(dos_sums m, unsigned cols, double v, const Acc *p_dos,
                              const Acc *p_idos, const unsigned *p_below, const Acc *p_orb,
                              const unsigned *order, double *dos, double *idos, double *orb)
{
    const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i >= (size_t)m.n_E * cols)
        return;
    const unsigned j = (unsigned)(i % m.n_E), col = (unsigned)(i / m.n_E);
    const unsigned out = order[j], nb = cols - 1;
    if (col == 0) {
        Acc d = 0, n = 0;
        unsigned long long b = 0;
        for (unsigned ch = 0; ch < m.chunks; ch++) {
            d += p_dos[(size_t)ch * m.pitch + j];
            n += p_idos[(size_t)ch * m.pitch + j];
            b += p_below[(size_t)ch * m.pitch + j];
        }
        dos[out] = v * (double)d;
        idos[out] = v * ((double)n + (double)b);
        return;
    }
    Acc o = 0;
    for (unsigned ch = 0; ch < m.chunks; ch++)
        o += p_orb[((size_t)ch * nb + col - 1) * m.pitch + j];
    orb[(size_t)out * nb + col - 1] = v * (double)o;
}

struct energy_at {
    double E;
    unsigned i;
};

static int energy_cmp(const void *pa, const void *pb)
{
    const energy_at *a = (const energy_at *)pa, *b = (const energy_at *)pb;
    return a->E < b->E ? -1 : a->E > b->E ? 1 : (a->i > b->i) - (a->i < b->i);
}

static size_t align256(size_t x) { return (x + 255) & ~(size_t)255; }

template <typename Real, typename Acc>
static int dos_run(tcu_grid *g, size_t n_E, const energy_at *sorted, int bloechl, int orbital,
                   double *dos, double *idos, double *orbital_dos)
{
    const unsigned nb = (unsigned)g->bands;
    /* the tile: 256 energies, fewer for a short list or where the orbital columns would
     * not fit the shared memory */
    unsigned T = 256;
    while (T > 32 && (size_t)(T / 2) >= n_E)
        T /= 2;
    const size_t stage = 4 * (sizeof(Real) + sizeof(unsigned));
    while (T > 32 && T * (stage + (orbital ? nb * sizeof(Acc) : 0)) > (96u << 10))
        T /= 2;
    const size_t shared_any = T * (stage + (orbital ? nb * sizeof(Acc) : 0));
    if (shared_any > (200u << 10))
        return mcf_fail(MCF_EINVAL, "tetra-cuda: the orbital DOS of %u orbitals does not fit "
                        "the device's shared memory; use evaluator = tetra (CPU)", nb);
    const unsigned tiles = (unsigned)((n_E + T - 1) / T);
    unsigned chunks = TCU_DOS_BLOCKS / tiles;
    chunks = chunks < 1 ? 1 : chunks > g->nk ? (unsigned)g->nk : chunks;
    const unsigned cols = 1 + (orbital ? nb : 0), pitch = tiles * T;
    /* scratch: sorted energies, order, partial sums, outputs */
    const size_t b_E = align256(pitch * sizeof(Real)), b_ord = align256(n_E * sizeof(unsigned));
    const size_t b_p = align256((size_t)chunks * pitch * sizeof(Acc));
    const size_t b_below = align256((size_t)chunks * pitch * sizeof(unsigned));
    const size_t b_orb = orbital ? align256((size_t)chunks * nb * pitch * sizeof(Acc)) : 0;
    const size_t b_out = align256(n_E * (2 + (orbital ? nb : 0)) * sizeof(double));
    void *scratch;
    int rc = tcu_grid_scratch(g, b_E + b_ord + 2 * b_p + b_below + b_orb + b_out, &scratch);
    if (rc)
        return rc;
    char *at = (char *)scratch;
    Real *dE = (Real *)at;
    unsigned *dorder = (unsigned *)(at += b_E);
    Acc *pd = (Acc *)(at += b_ord), *pi = (Acc *)(at += b_p);
    unsigned *pb = (unsigned *)(at += b_p);
    Acc *po = orbital ? (Acc *)(at + b_below) : NULL;
    double *out = (double *)(at += b_below + b_orb);

    Real *hE = (Real *)malloc(pitch * sizeof(Real));
    unsigned *hord = (unsigned *)malloc(n_E * sizeof(unsigned));
    if (!hE || !hord) {
        free(hE);
        free(hord);
        return mcf_fail(MCF_ENOMEM, "tetra-cuda: out of memory for %zu energies", n_E);
    }
    for (size_t j = 0; j < pitch; j++)
        hE[j] = (Real)sorted[j < n_E ? j : n_E - 1].E;
    for (size_t j = 0; j < n_E; j++)
        hord[j] = sorted[j].i;
    cudaStream_t st = mcu_stream();
    cudaError_t e = cudaMemcpyAsync(dE, hE, pitch * sizeof(Real), cudaMemcpyHostToDevice, st);
    if (e == cudaSuccess)
        e = cudaMemcpyAsync(dorder, hord, n_E * sizeof(unsigned), cudaMemcpyHostToDevice, st);
    if (e == cudaSuccess)
        e = cudaStreamSynchronize(st); /* hE and hord are freed next */
    free(hE);
    free(hord);
    if (e != cudaSuccess)
        return fail(e, "copying the energies to the device", pitch * sizeof(Real));

    const Real *eps = (const Real *)(sizeof(Real) == sizeof(double) ? (const void *)g->eps
                                                                    : (const void *)g->eps_f);
    const Real *wt = !orbital ? NULL
                     : (const Real *)(sizeof(Real) == sizeof(double) ? (const void *)g->weight
                                                                     : (const void *)g->weight_f);
    const dos_sums m = {(unsigned)n_E, pitch, chunks, (unsigned)g->nk, bloechl};
    cudaEvent_t ev[3] = {};
    for (int i = 0; i < 3 && e == cudaSuccess; i++)
        e = cudaEventCreate(&ev[i]);
    /* a kernel for the common band counts (the orbital DOS in registers), one for any */
    void (*kernel)(tcu_shape, const Real *, const Real *, const Real *, dos_sums, Acc *, Acc *,
                   unsigned *, Acc *) = dos_kernel<Real, Acc, 0>;
    if (nb == 1)
        kernel = dos_kernel<Real, Acc, 1>;
    else if (nb == 2)
        kernel = dos_kernel<Real, Acc, 2>;
    else if (nb == 4)
        kernel = dos_kernel<Real, Acc, 4>;
    else if (nb == 8)
        kernel = dos_kernel<Real, Acc, 8>;
    const size_t shared = kernel == dos_kernel<Real, Acc, 0> ? shared_any : T * stage;
    if (e == cudaSuccess && shared > (48u << 10))
        e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                 (int)shared);
    if (e == cudaSuccess) {
        cudaEventRecord(ev[0], st);
        kernel<<<dim3(tiles, chunks), T, shared, st>>>(g->shape, eps, wt, dE, m, pd, pi, pb, po);
        cudaEventRecord(ev[1], st);
        const size_t threads = (size_t)n_E * cols;
        reduce_kernel<Acc><<<(unsigned)((threads + 255) / 256), 256, 0, st>>>(
            m, cols, 1.0 / (6.0 * (double)g->nk), pd, pi, pb, po, dorder, out, out + n_E,
            out + 2 * n_E);
        cudaEventRecord(ev[2], st);
        e = cudaGetLastError();
    }
    if (e == cudaSuccess && dos)
        e = cudaMemcpyAsync(dos, out, n_E * sizeof(double), cudaMemcpyDeviceToHost, st);
    if (e == cudaSuccess && idos)
        e = cudaMemcpyAsync(idos, out + n_E, n_E * sizeof(double), cudaMemcpyDeviceToHost, st);
    if (e == cudaSuccess && orbital)
        e = cudaMemcpyAsync(orbital_dos, out + 2 * n_E, n_E * nb * sizeof(double),
                            cudaMemcpyDeviceToHost, st);
    if (e == cudaSuccess)
        e = cudaStreamSynchronize(st);
    if (e == cudaSuccess) {
        float a = 0.0f, b = 0.0f;
        cudaEventElapsedTime(&a, ev[0], ev[1]);
        cudaEventElapsedTime(&b, ev[1], ev[2]);
        g->timing.integrate_ms = a;
        g->timing.reduce_ms = b;
        g->timing.chunks = chunks;
        g->timing.tile = T;
        g->timing.floor_bytes = (double)g->nk * nb * sizeof(Real) +
                                (orbital ? (double)g->nk * nb * nb * sizeof(Real) : 0.0) +
                                (double)n_E * sizeof(Real) +
                                (double)n_E * (2 + (orbital ? nb : 0)) * sizeof(double);
    }
    for (int i = 0; i < 3; i++)
        if (ev[i])
            cudaEventDestroy(ev[i]);
    return e == cudaSuccess ? MCF_OK : fail(e, "the sum over tetrahedra", 0);
}

int tcu_dos(tcu_grid *g, size_t n_E, const double *E, int bloechl, tcu_precision prec,
            double *dos, double *idos, double *orbital_dos)
{
    if (n_E == 0)
        return MCF_OK;
    if (!g || !E)
        return mcf_fail(MCF_EINVAL, "tetra-cuda: DOS without a grid or without energies");
    if (orbital_dos && !g->weight)
        return mcf_fail(MCF_EINVAL, "tetra-cuda: the orbital DOS needs the orbital weights; "
                        "create the grid with with_weights = 1");
    if (n_E > (1u << 24))
        return mcf_fail(MCF_EINVAL, "tetra-cuda: %zu energies are more than %u; split the "
                        "list", n_E, 1u << 24);
    for (size_t i = 0; i < n_E; i++)
        if (!std::isfinite(E[i]))
            return mcf_fail(MCF_EINVAL, "tetra-cuda: energy %zu of the DOS is not finite", i);
    int rc;
    if (prec != TCU_DOUBLE && (rc = tcu_grid_float_tables(g)))
        return rc;
    energy_at *s = (energy_at *)malloc(n_E * sizeof *s);
    double *d = dos ? NULL : (double *)malloc(n_E * sizeof *d);
    if (!s || (!dos && !d)) {
        free(s);
        free(d);
        return mcf_fail(MCF_ENOMEM, "tetra-cuda: out of memory for %zu energies", n_E);
    }
    for (size_t i = 0; i < n_E; i++)
        s[i] = energy_at{E[i], (unsigned)i};
    qsort(s, n_E, sizeof *s, energy_cmp);
    double *dd = dos ? dos : d;
    const int orb = orbital_dos != NULL;
    if (prec == TCU_DOUBLE)
        rc = dos_run<double, double>(g, n_E, s, bloechl, orb, dd, idos, orbital_dos);
    else if (prec == TCU_MIXED)
        rc = dos_run<float, double>(g, n_E, s, bloechl, orb, dd, idos, orbital_dos);
    else
        rc = dos_run<float, float>(g, n_E, s, bloechl, orb, dd, idos, orbital_dos);
    free(s);
    free(d);
    return rc;
}

/* ---- up to a Fermi level -------------------------------------------------------------- */

#define TCU_OCC_BLOCKS 512u
#define TCU_OCC_THREADS 256u

__global__ void occupation_kernel(tcu_shape s, const double *eps, size_t items, double E_F,
                                  int bloechl, double *part)
{
    __shared__ double sn[TCU_OCC_THREADS], se[TCU_OCC_THREADS];
    double ne = 0.0, en = 0.0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < items;
         i += (size_t)gridDim.x * blockDim.x) {
        double e[4];
        unsigned k[4];
        item_corners(s, eps, 0u, i, e, k);
        if (E_F <= e[0])
            continue;
        tp_double::point pt;
        tp_double::tp_point_at(e, E_F, bloechl, &pt);
        ne += pt.n;
        for (int q = 0; q < 4; q++)
            en += pt.w[q] * e[q];
    }
    sn[threadIdx.x] = ne;
    se[threadIdx.x] = en;
    __syncthreads();
    for (unsigned h = blockDim.x / 2; h > 0; h /= 2) {
        if (threadIdx.x < h) {
            sn[threadIdx.x] += sn[threadIdx.x + h];
            se[threadIdx.x] += se[threadIdx.x + h];
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        part[2 * blockIdx.x] = sn[0];
        part[2 * blockIdx.x + 1] = se[0];
    }
}

int tcu_band_energy(tcu_grid *g, double E_F, int bloechl, double *electrons, double *energy)
{
    if (!g || !std::isfinite(E_F))
        return mcf_fail(MCF_EINVAL, "tetra-cuda: the band energy needs a grid and a finite "
                        "Fermi level");
    void *scratch;
    double h[2 * TCU_OCC_BLOCKS];
    int rc = tcu_grid_scratch(g, sizeof h, &scratch);
    if (rc)
        return rc;
    cudaStream_t st = mcu_stream();
    occupation_kernel<<<TCU_OCC_BLOCKS, TCU_OCC_THREADS, 0, st>>>(
        g->shape, g->eps, g->nk * 6 * g->bands, E_F, bloechl, (double *)scratch);
    cudaError_t e = cudaGetLastError();
    if (e == cudaSuccess)
        e = cudaMemcpyAsync(h, scratch, sizeof h, cudaMemcpyDeviceToHost, st);
    if (e == cudaSuccess)
        e = cudaStreamSynchronize(st);
    if (e != cudaSuccess)
        return fail(e, "the band energy", 0);
    double ne = 0.0, en = 0.0;
    for (unsigned b = 0; b < TCU_OCC_BLOCKS; b++) {
        ne += h[2 * b];
        en += h[2 * b + 1];
    }
    const double v = 1.0 / (6.0 * (double)g->nk);
    if (electrons)
        *electrons = v * ne;
    if (energy)
        *energy = v * en;
    return MCF_OK;
}

static int grid_count(void *ctx, double E, double *N)
{
    return tcu_band_energy((tcu_grid *)ctx, E, 0, N, NULL);
}

static int grid_density(void *ctx, double E, double *rho)
{
    return tcu_dos((tcu_grid *)ctx, 1, &E, 0, TCU_DOUBLE, rho, NULL, NULL);
}

int tcu_fermi_level(tcu_grid *g, double electrons_per_cell, double *E_F)
{
    if (!g || !E_F)
        return mcf_fail(MCF_EINVAL, "tetra-cuda: the Fermi level needs a grid and an output");
    const tetra_counter c = {g, grid_count, grid_density, (double)g->bands, g->emin, g->emax};
    return tetra_fermi_search(&c, electrons_per_cell, E_F);
}
