/* tetra_cuda_eigen.cu — the bands of a crystal at every k point of a GPU grid
 * (tetra_cuda.h): H(k) built on the device from the hoppings, then all eigenproblems of a
 * batch of k points solved at once.
 *
 * H(k)_ab = sum over hoppings (to = a, from = b) of (re + i im) exp(2 pi i k . R), as
 * mcf_periodic_hk; the phase by sincospi for accuracy at large |k . R|.
 *
 * The own solver: cyclic Jacobi, one thread per k point.  The batch's matrices are
 * interleaved, element (a, b) of matrix j at [(a n + b) B + j] for a batch of B, so that
 * the 32 threads of a warp, each on its own matrix, touch 32 neighbouring elements at once.
 * A rotation in the plane (p, q) of a Hermitian A with A_pq = |A_pq| e^{i phi} is the
 * unitary G = diag(1, e^{-i phi}) J: the phase makes the pair real, the real Jacobi
 * rotation J = [[c, s], [-s, c]] with t = s / c = sgn(theta) / (|theta| + sqrt(theta^2 +
 * 1)), theta = (A_qq - A_pp) / (2 |A_pq|), removes it (Golub & Van Loan, sec. 8.5); A <- G^H
 * A G, V <- V G.  Sweeps end when the off-diagonal weight is below (4 eps)^2 of the
 * Frobenius norm (at most 64 sweeps; a handful at these sizes: Jacobi converges
 * quadratically).
 *
 * cuSOLVER: zheevjBatched (orbitals <= 32) on the batch stored matrix after matrix,
 * column-major; or, for the benchmark's comparison, one zheevd call per k point.  Either way
 * a last kernel writes the ascending eigenvalues and the weights |V_an|^2. */
#include "tetra_cuda_internal.cuh"

#include "mcf_cuda.h"

#include "mcf/error.h"

#include <cfloat>
#include <cmath>
#include <cstdlib>

#include <cuComplex.h>
#include <cusolverDn.h>

/* matrices of at most this many bytes (A and V) per batch */
#define TCU_BATCH_BYTES ((size_t)256 << 20)

static int fail(cudaError_t e, const char *what, size_t bytes)
{
    return mcu_fail((int)e, "tetra-cuda", what, bytes,
                    "use fewer k points, or evaluator = tetra (CPU)");
}

static int solver_fail(cusolverStatus_t s, const char *what)
{
    return mcf_fail(MCF_EDEVICE, "tetra-cuda: cuSOLVER %s failed (status %d); use "
                    "eigensolver = jacobi", what, (int)s);
}

struct layout {
    size_t sj, sa, sb; /* element (a, b) of matrix j at j sj + a sa + b sb */
};

/* H(k) of the batch's matrices j = 0..B-1 (k = k0 + j), zeroed before */
__global__ void hk_kernel(const mcf_cell_hopping *hop, size_t n_hop, unsigned dims,
                          tcu_shape s, double s0, double s1, double s2, size_t k0, size_t B,
                          layout L, double2 *A)
{
    const size_t j = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (j >= B)
        return;
    const size_t k = k0 + j;
    const unsigned i0 = (unsigned)(k % s.n0), i1 = (unsigned)((k / s.n0) % s.n1);
    const unsigned i2 = (unsigned)(k / ((size_t)s.n0 * s.n1));
    const double kr[3] = {(i0 + s0) / s.n0, (i1 + s1) / s.n1, (i2 + s2) / s.n2};
    for (size_t h = 0; h < n_hop; h++) {
        const mcf_cell_hopping t = hop[h];
        double x = 0.0;
        for (unsigned d = 0; d < dims; d++)
            x += kr[d] * (double)t.R[d];
        double sn, cs;
        sincospi(2.0 * x, &sn, &cs);
        double2 *e = A + j * L.sj + t.to * L.sa + t.from * L.sb;
        e->x += t.re * cs - t.im * sn;
        e->y += t.re * sn + t.im * cs;
    }
}

#define EL(M, a, b) (M)[((size_t)(a) * n + (b)) * B + j]

/* cyclic Jacobi on matrix j < count of the batch interleaved with stride B; eigenvalues
 * ascending into eps, weights |V_an|^2 into weight (NULL: none) at k = k0 + j */
__global__ void jacobi_kernel(double2 *A, double2 *V, unsigned n, size_t B, size_t count,
                              size_t k0, double *eps, double *weight)
{
    const size_t j = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (j >= count)
        return;
    double norm = 0.0;
    for (unsigned a = 0; a < n; a++)
        for (unsigned b = 0; b < n; b++) {
            const double2 x = EL(A, a, b);
            norm += x.x * x.x + x.y * x.y;
            if (V)
                EL(V, a, b) = make_double2(a == b ? 1.0 : 0.0, 0.0);
        }
    const double stop = 16.0 * DBL_EPSILON * DBL_EPSILON * norm;
    for (int sweep = 0; sweep < 64; sweep++) {
        double off = 0.0;
        for (unsigned p = 0; p < n; p++)
            for (unsigned q = p + 1; q < n; q++) {
                const double2 x = EL(A, p, q);
                off += 2.0 * (x.x * x.x + x.y * x.y);
            }
        if (off <= stop)
            break;
        for (unsigned p = 0; p + 1 < n; p++)
            for (unsigned q = p + 1; q < n; q++) {
                const double2 beta = EL(A, p, q);
                const double mag = hypot(beta.x, beta.y);
                if (mag * mag <= 1e-3 * stop / ((double)n * n))
                    continue;
                const double alpha = EL(A, p, p).x, gamma = EL(A, q, q).x;
                const double theta = (gamma - alpha) / (2.0 * mag);
                const double t = (theta >= 0.0 ? 1.0 : -1.0) /
                                 (fabs(theta) + sqrt(theta * theta + 1.0));
                const double c = 1.0 / sqrt(t * t + 1.0), sg = t * c;
                const double2 ph = make_double2(beta.x / mag, -beta.y / mag); /* e^{-i phi} */
                /* columns p, q of A G for the other rows, the rows by Hermiticity */
                for (unsigned r = 0; r < n; r++) {
                    if (r == p || r == q)
                        continue;
                    const double2 arp = EL(A, r, p), arq = cuCmul(EL(A, r, q), ph);
                    const double2 np = make_double2(c * arp.x - sg * arq.x, c * arp.y - sg * arq.y);
                    const double2 nq = make_double2(sg * arp.x + c * arq.x, sg * arp.y + c * arq.y);
                    EL(A, r, p) = np;
                    EL(A, r, q) = nq;
                    EL(A, p, r) = cuConj(np);
                    EL(A, q, r) = cuConj(nq);
                }
                EL(A, p, p) = make_double2(alpha - t * mag, 0.0);
                EL(A, q, q) = make_double2(gamma + t * mag, 0.0);
                EL(A, p, q) = make_double2(0.0, 0.0);
                EL(A, q, p) = make_double2(0.0, 0.0);
                if (!V)
                    continue;
                for (unsigned r = 0; r < n; r++) {
                    const double2 vrp = EL(V, r, p), vrq = cuCmul(EL(V, r, q), ph);
                    EL(V, r, p) = make_double2(c * vrp.x - sg * vrq.x, c * vrp.y - sg * vrq.y);
                    EL(V, r, q) = make_double2(sg * vrp.x + c * vrq.x, sg * vrp.y + c * vrq.y);
                }
            }
    }
    /* ascending: selection of the least remaining diagonal element, its column with it */
    const size_t k = k0 + j;
    for (unsigned m = 0; m < n; m++) {
        unsigned best = m;
        for (unsigned r = m + 1; r < n; r++)
            if (EL(A, r, r).x < EL(A, best, best).x)
                best = r;
        if (best != m) {
            const double2 x = EL(A, m, m);
            EL(A, m, m) = EL(A, best, best);
            EL(A, best, best) = x;
            if (V)
                for (unsigned r = 0; r < n; r++) {
                    const double2 y = EL(V, r, m);
                    EL(V, r, m) = EL(V, r, best);
                    EL(V, r, best) = y;
                }
        }
        eps[k * n + m] = EL(A, m, m).x;
        if (weight)
            for (unsigned a = 0; a < n; a++) {
                const double2 v = EL(V, a, m);
                weight[(k * n + m) * n + a] = v.x * v.x + v.y * v.y;
            }
    }
}

#undef EL

/* eigenvalues W (ascending) and eigenvectors (columns of the column-major matrices of the
 * batch, one after another) into eps and weight */
__global__ void store_kernel(const double *W, const double2 *A, unsigned n, size_t B, size_t k0,
                             double *eps, double *weight)
{
    const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; /* (j, m) */
    if (i >= B * n)
        return;
    const size_t j = i / n, m = i % n, k = k0 + j;
    eps[k * n + m] = W[i];
    if (weight)
        for (unsigned a = 0; a < n; a++) {
            const double2 v = A[j * n * n + m * n + a];
            weight[(k * n + m) * n + a] = v.x * v.x + v.y * v.y;
        }
}

/* the cuSOLVER state of one tcu_solve_bands call */
struct solver_state {
    cusolverDnHandle_t h;
    syevjInfo_t info;
    void *work;
    int *dev_info;
    double *W;
    int lwork;
};

static int cusolver_batch(solver_state *st, tcu_solver solver, double2 *A, unsigned n, size_t B,
                          int vectors)
{
    const cusolverEigMode_t mode = vectors ? CUSOLVER_EIG_MODE_VECTOR : CUSOLVER_EIG_MODE_NOVECTOR;
    cusolverStatus_t s;
    if (solver == TCU_CUSOLVER) {
        s = cusolverDnZheevjBatched(st->h, mode, CUBLAS_FILL_MODE_LOWER, (int)n,
                                    (cuDoubleComplex *)A, (int)n, st->W,
                                    (cuDoubleComplex *)st->work, st->lwork, st->dev_info,
                                    st->info, (int)B);
        if (s != CUSOLVER_STATUS_SUCCESS)
            return solver_fail(s, "zheevjBatched");
    } else {
        for (size_t j = 0; j < B; j++) {
            s = cusolverDnZheevd(st->h, mode, CUBLAS_FILL_MODE_LOWER, (int)n,
                                 (cuDoubleComplex *)(A + j * n * n), (int)n, st->W + j * n,
                                 (cuDoubleComplex *)st->work, st->lwork, st->dev_info + j);
            if (s != CUSOLVER_STATUS_SUCCESS)
                return solver_fail(s, "zheevd");
        }
    }
    int *info = (int *)malloc(B * sizeof *info);
    if (!info)
        return mcf_fail(MCF_ENOMEM, "tetra-cuda: out of memory");
    cudaError_t e = cudaMemcpyAsync(info, st->dev_info, B * sizeof *info,
                                    cudaMemcpyDeviceToHost, mcu_stream());
    if (e == cudaSuccess)
        e = cudaStreamSynchronize(mcu_stream());
    int bad = -1;
    for (size_t j = 0; e == cudaSuccess && j < B && bad < 0; j++)
        if (info[j] != 0)
            bad = (int)j;
    free(info);
    if (e != cudaSuccess)
        return fail(e, "the eigensolver", 0);
    if (bad >= 0)
        return mcf_fail(MCF_EDEVICE, "tetra-cuda: cuSOLVER did not converge on a k point's "
                        "Hamiltonian (batch entry %d); use eigensolver = jacobi", bad);
    return MCF_OK;
}

static int solver_open(solver_state *st, tcu_solver solver, unsigned n, size_t B,
                       double2 *A, int vectors)
{
    cusolverStatus_t s = cusolverDnCreate(&st->h);
    if (s != CUSOLVER_STATUS_SUCCESS)
        return solver_fail(s, "handle creation");
    cusolverDnSetStream(st->h, mcu_stream());
    const cusolverEigMode_t mode = vectors ? CUSOLVER_EIG_MODE_VECTOR : CUSOLVER_EIG_MODE_NOVECTOR;
    if (solver == TCU_CUSOLVER) {
        if ((s = cusolverDnCreateSyevjInfo(&st->info)) != CUSOLVER_STATUS_SUCCESS)
            return solver_fail(s, "syevjInfo creation");
        s = cusolverDnZheevjBatched_bufferSize(st->h, mode, CUBLAS_FILL_MODE_LOWER, (int)n,
                                               (const cuDoubleComplex *)A, (int)n, st->W,
                                               &st->lwork, st->info, (int)B);
    } else
        s = cusolverDnZheevd_bufferSize(st->h, mode, CUBLAS_FILL_MODE_LOWER, (int)n,
                                        (const cuDoubleComplex *)A, (int)n, st->W, &st->lwork);
    if (s != CUSOLVER_STATUS_SUCCESS)
        return solver_fail(s, "workspace query");
    const size_t bytes = (size_t)st->lwork * sizeof(cuDoubleComplex) + B * sizeof(int) +
                         B * n * sizeof(double);
    cudaError_t e = cudaMalloc(&st->work, (size_t)st->lwork * sizeof(cuDoubleComplex));
    if (e == cudaSuccess)
        e = cudaMalloc((void **)&st->dev_info, B * sizeof(int));
    if (e == cudaSuccess)
        e = cudaMalloc((void **)&st->W, B * n * sizeof(double));
    return e == cudaSuccess ? MCF_OK : fail(e, "cuSOLVER's workspace", bytes);
}

static void solver_close(solver_state *st)
{
    if (st->info)
        cusolverDnDestroySyevjInfo(st->info);
    if (st->h)
        cusolverDnDestroy(st->h);
    cudaFree(st->work);
    cudaFree(st->dev_info);
    cudaFree(st->W);
}

static float elapsed(cudaEvent_t a, cudaEvent_t b)
{
    float ms = 0.0f;
    cudaEventElapsedTime(&ms, a, b);
    return ms;
}

int tcu_solve_bands(const mcf_periodic *p, const double shift[3], tcu_grid *g,
                    tcu_solver solver)
{
    const unsigned n = p->orbitals;
    const int vectors = g->weight != NULL;
    if (solver == TCU_CUSOLVER && n > 32)
        return mcf_fail(MCF_EINVAL, "tetra-cuda: cuSOLVER's batched eigensolver takes at most "
                        "32 orbitals, the crystal has %u; use eigensolver = jacobi", n);
    const size_t per = (size_t)n * n * sizeof(double2) * (vectors ? 2 : 1);
    size_t B = TCU_BATCH_BYTES / per;
    B = B < 1 ? 1 : B > g->nk ? g->nk : B;
    double2 *A = NULL, *V = NULL;
    mcf_cell_hopping *hop = NULL;
    solver_state st = {};
    cudaEvent_t ev[3] = {};
    const size_t mat_bytes = B * n * n * sizeof(double2);
    const size_t hop_bytes = p->n_hoppings * sizeof *hop;
    cudaError_t e = cudaMalloc((void **)&A, mat_bytes);
    if (e == cudaSuccess && vectors && solver == TCU_JACOBI)
        e = cudaMalloc((void **)&V, mat_bytes);
    if (e == cudaSuccess)
        e = cudaMalloc((void **)&hop, hop_bytes ? hop_bytes : 1);
    if (e == cudaSuccess && hop_bytes)
        e = cudaMemcpyAsync(hop, p->hoppings, hop_bytes, cudaMemcpyHostToDevice,
                            mcu_stream()); /* ahead of hk_kernel, on its stream */
    for (int i = 0; i < 3 && e == cudaSuccess; i++)
        e = cudaEventCreate(&ev[i]);
    int rc = e == cudaSuccess ? MCF_OK : fail(e, "the batch of Hamiltonians", mat_bytes);
    if (!rc && solver != TCU_JACOBI)
        rc = solver_open(&st, solver, n, B, A, vectors);
    const layout L = solver == TCU_JACOBI ? layout{1, (size_t)n * B, B}
                                          : layout{(size_t)n * n, 1, n};
    g->timing.hk_ms = g->timing.eigen_ms = 0.0;
    for (size_t k0 = 0; !rc && k0 < g->nk; k0 += B) {
        const size_t b = g->nk - k0 < B ? g->nk - k0 : B;
        const unsigned threads = 128, blocks = (unsigned)((b + threads - 1) / threads);
        /* a last, shorter batch keeps the stride B of the interleaved layout */
        cudaEventRecord(ev[0], mcu_stream());
        cudaMemsetAsync(A, 0, mat_bytes, mcu_stream());
        hk_kernel<<<blocks, threads, 0, mcu_stream()>>>(hop, p->n_hoppings, p->dims, g->shape,
                                                        shift[0], shift[1], shift[2], k0, b,
                                                        L, A);
        cudaEventRecord(ev[1], mcu_stream());
        if (solver == TCU_JACOBI) {
            jacobi_kernel<<<blocks, threads, 0, mcu_stream()>>>(A, V, n, B, b, k0, g->eps,
                                                                g->weight);
        } else {
            rc = cusolver_batch(&st, solver, A, n, b, vectors);
            if (!rc) {
                const unsigned sb = (unsigned)((b * n + 127) / 128);
                store_kernel<<<sb, 128, 0, mcu_stream()>>>(st.W, A, n, b, k0, g->eps,
                                                           g->weight);
            }
        }
        cudaEventRecord(ev[2], mcu_stream());
        e = cudaGetLastError();
        if (e == cudaSuccess)
            e = cudaEventSynchronize(ev[2]);
        if (!rc && e != cudaSuccess)
            rc = fail(e, "the batched eigensolver", 0);
        if (!rc) {
            g->timing.hk_ms += elapsed(ev[0], ev[1]);
            g->timing.eigen_ms += elapsed(ev[1], ev[2]);
        }
    }
    cudaStreamSynchronize(mcu_stream()); /* an early exit may leave work that uses A, V, hop */
    if (solver != TCU_JACOBI)
        solver_close(&st);
    for (int i = 0; i < 3; i++)
        if (ev[i])
            cudaEventDestroy(ev[i]);
    cudaFree(A);
    cudaFree(V);
    cudaFree(hop);
    return rc;
}
