/* kbe_cuda_collision.cu — second Born's collision integrals on the GPU, each stored block of
 * G^< and G^> read once a pass (kbe_collision.c says the formulas; docs/architecture.md
 * "kbe-cuda's collision pass" why this shape):
 *
 *   I^lg(t_m, t_j) = int_0^{t_m} Sigma^R(t_m, s) G^lg(s, t_j) ds
 *                  - int_0^{t_j} Sigma^lg(t_m, s) [G^> - G^<](s, t_j) ds,   j = 0 .. m,
 *
 * Sigma^R = Sigma^> - Sigma^<, the trapezoid rule (order 2; order p's known part of the row,
 * kbcu_collision_rest: Gregory's weights, the first integral without s = t_m, the tiles'
 * template parameter W says which).  The stored block (i, c), i >= c, enters
 * two rows of I: row c as G(t_i, t_c) with Sigma^R(t_m, t_i) (the "column" part: s = i >= j),
 * and row i as G(t_c, t_i) = -G(t_i, t_c)^dagger with Sigma(t_m, t_c) (the "row" part: s = c).
 * A thread block takes a tile of KBCT_ROWS rows i and up to KBCT_COLS columns c at KBCT_K
 * values of k; it walks c, each thread (i, k) summing its row part in registers and handing
 * its column part to shared memory, where the tile's rows are summed in a fixed order into
 * one partial sum per (row tile, c).  A second kernel adds, per (j, k), the column partials
 * of every row tile below j and the row partials of every column tile left of j, again in a
 * fixed order: no atomics, the same bits on every run; the sums' order differs from the
 * CPU's, so the two agree to rounding (1e-12 relative in tests/gpu/test_kbe_cuda.c). */
#include "kbe_cuda_internal.cuh"

/* acc += (a b) or, adj, acc += (a b^dagger), each 2 x 2 of one k, times wt */
__device__ __forceinline__ void mul_acc(double wt, const cplx *a, const cplx *b, int adj,
                                        cplx *acc)
{
    const cplx b0 = adj ? cconj(b[0]) : b[0], b1 = adj ? cconj(b[2]) : b[1];
    const cplx b2 = adj ? cconj(b[1]) : b[2], b3 = adj ? cconj(b[3]) : b[3];
    acc[0] = cadd(acc[0], cscale(wt, cadd(cmul(a[0], b0), cmul(a[1], b2))));
    acc[1] = cadd(acc[1], cscale(wt, cadd(cmul(a[0], b1), cmul(a[1], b3))));
    acc[2] = cadd(acc[2], cscale(wt, cadd(cmul(a[2], b0), cmul(a[3], b2))));
    acc[3] = cadd(acc[3], cscale(wt, cadd(cmul(a[2], b1), cmul(a[3], b3))));
}

/* the trapezoid's weight of grid point s in int_0^{t_n} (0 for n = 0: a length-zero interval) */
__device__ __forceinline__ double trapezoid(double dt, size_t n, size_t s)
{
    return n == 0 ? 0.0 : dt * (s == 0 || s == n ? 0.5 : 1.0);
}

/* The tiles' quadrature, a template parameter so that order 2's kernel stays the trapezoid
 * it was: dt w of t_s in the first integral (int_0^{t_m}) and in the second (int_0^{t_j}) */
struct trapezoid_weights {
    double dt;
    __device__ __forceinline__ double first(size_t n, size_t s) const
    {
        return trapezoid(dt, n, s);
    }
    __device__ __forceinline__ double second(size_t n, size_t s) const
    {
        return trapezoid(dt, n, s);
    }
};

/* Gregory's weights of order p (kbe_greg; kbe_bdf.c's collision_rest: the second integral
 * is 0 at j = 0) */
struct gregory_weights {
    double dt;
    kbcu_tab t;
    __device__ __forceinline__ double first(size_t n, size_t s) const
    {
        return dt * greg_w(t, n, s);
    }
    __device__ __forceinline__ double second(size_t n, size_t s) const
    {
        return n == 0 ? 0.0 : dt * greg_w(t, n, s);
    }
};

/* the first of row tile r's column partials: row tile r' < r holds columns 0 .. (r' + 1) T - 1 */
__host__ __device__ __forceinline__ size_t colpart_of(size_t r)
{
    return (size_t)KBCT_ROWS * r * (r + 1) / 2;
}

/* one tile: rows r T .. r T + T - 1 (up to `last`: m at order 2, m - 1 for order p's known
 * part, kbcu_collision_rest), columns c0 = blockIdx.x W .. (at most i), k from blockIdx.z
 * KBCT_K.  Partials: colpart[(colpart_of(r) + c) 8 nk + comp nk + k] and
 * rowpart[(ct (rows) + i) 8 nk + comp nk + k], comp 0..3 lesser's band pairs, 4..7 greater's */
template <class W>
__global__ void __launch_bounds__(KBCT_ROWS * KBCT_K, 2)
k_collision_tile(size_t nk, size_t m, size_t last, size_t rows, W wq, const cplx *gl,
                 const cplx *gg, const cplx *sl, const cplx *sg, cplx *colpart, cplx *rowpart)
{
    __shared__ cplx part[KBCT_ROWS][8][KBCT_K];
    __shared__ cplx quarter[KBCT_ROWS / 8][8][KBCT_K];
    const size_t r = blockIdx.y, ct = blockIdx.x, bs = 4 * nk;
    const size_t c0 = ct * KBCT_COLS, row0 = r * KBCT_ROWS;
    if (c0 > last || c0 >= row0 + KBCT_ROWS) /* above the diagonal or past the last row */
        return;
    const int ty = (int)(threadIdx.x / KBCT_K), kx = (int)(threadIdx.x % KBCT_K);
    const size_t i = row0 + (size_t)ty, k = blockIdx.z * (size_t)KBCT_K + (size_t)kx;
    const int live = i <= last && k < nk;
    size_t c1 = c0 + KBCT_COLS; /* the tile's columns c0 .. c1 - 1 */
    if (c1 > row0 + KBCT_ROWS)
        c1 = row0 + KBCT_ROWS;
    if (c1 > last + 1)
        c1 = last + 1;
    cplx wsr[4], acc_l[4], acc_g[4];
    for (int q = 0; q < 4; q++) /* w_i Sigma^R(t_m, t_i): the column part's factor */
        wsr[q] = acc_l[q] = acc_g[q] = make_cuDoubleComplex(0.0, 0.0);
    if (live) {
        const double w = wq.first(m, i);
        cplx x[4], y[4];
        load4(sl + i * bs, nk, k, x);
        load4(sg + i * bs, nk, k, y);
        for (int q = 0; q < 4; q++)
            wsr[q] = cscale(w, csub(y[q], x[q]));
    }
    for (size_t c = c0; c < c1; c++) {
        if (live && c <= i) {
            cplx g_l[4], g_g[4], v[4], s_l[4], s_g[4], sr[4];
            load4(gl + pair_of(i, c) * bs, nk, k, g_l);
            load4(gg + pair_of(i, c) * bs, nk, k, g_g);
            /* row c's column part (s = i >= j = c) to the tile's sum */
            for (int lesser = 1; lesser >= 0; lesser--) {
                for (int q = 0; q < 4; q++)
                    v[q] = make_cuDoubleComplex(0.0, 0.0);
                mul_acc(1.0, wsr, lesser ? g_l : g_g, 0, v);
                for (int q = 0; q < 4; q++)
                    part[ty][(lesser ? 0 : 4) + q][kx] = v[q];
            }
            load4(sl + c * bs, nk, k, s_l);
            load4(sg + c * bs, nk, k, s_g);
            for (int q = 0; q < 4; q++) {
                sr[q] = csub(s_g[q], s_l[q]);
                g_g[q] = csub(g_g[q], g_l[q]); /* from here G^> - G^< */
            }
            const double wm = wq.first(m, c), wi = wq.second(i, c);
            if (c < i) { /* s = c < j = i: G(t_c, t_i) = -G(t_i, t_c)^dagger */
                mul_acc(-wm, sr, g_l, 1, acc_l);
                for (int q = 0; q < 4; q++) /* G^> back */
                    g_l[q] = cadd(g_g[q], g_l[q]);
                mul_acc(-wm, sr, g_l, 1, acc_g);
                mul_acc(wi, s_l, g_g, 1, acc_l);
                mul_acc(wi, s_g, g_g, 1, acc_g);
            } else { /* s = c = i: the second integral's end point */
                mul_acc(-wi, s_l, g_g, 0, acc_l);
                mul_acc(-wi, s_g, g_g, 0, acc_g);
            }
        } else
            for (int q = 0; q < 8; q++)
                part[ty][q][kx] = make_cuDoubleComplex(0.0, 0.0);
        __syncthreads();
        { /* the tile's rows summed, 8 at a time, then the quarters: a fixed order */
            const int comp = ty % 8, qu = ty / 8;
            cplx s = make_cuDoubleComplex(0.0, 0.0);
            for (int t = 0; t < 8; t++)
                s = cadd(s, part[8 * qu + t][comp][kx]);
            quarter[qu][comp][kx] = s;
        }
        __syncthreads();
        if (ty < 8 && k < nk) {
            cplx s = quarter[0][ty][kx];
            for (int t = 1; t < KBCT_ROWS / 8; t++)
                s = cadd(s, quarter[t][ty][kx]);
            colpart[(colpart_of(r) + c) * 2 * bs + (size_t)ty * nk + k] = s;
        }
    }
    if (live && c0 <= i) {
        cplx *o = rowpart + (ct * rows + i) * 2 * bs;
        store4(o, nk, k, acc_l);
        store4(o + bs, nk, k, acc_g);
    }
}

/* I^lg(t_m, t_j) per (j, k), j <= m (`m`: the tiles' last row): the column partials of row
 * tiles j / T .. m / T, then the row partials of column tiles 0 .. j / W */
__global__ void k_collision_sum(size_t nk, size_t m, size_t rows, const cplx *colpart,
                                const cplx *rowpart, cplx *il, cplx *ig)
{
    const size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (t >= (m + 1) * nk)
        return;
    const size_t j = t / nk, k = t % nk, bs = 4 * nk;
    for (int comp = 0; comp < 8; comp++) {
        cplx s = make_cuDoubleComplex(0.0, 0.0);
        for (size_t r = j / KBCT_ROWS; r <= m / KBCT_ROWS; r++)
            s = cadd(s, colpart[(colpart_of(r) + j) * 2 * bs + (size_t)comp * nk + k]);
        for (size_t ct = 0; ct <= j / KBCT_COLS; ct++)
            s = cadd(s, rowpart[(ct * rows + j) * 2 * bs + (size_t)comp * nk + k]);
        (comp < 4 ? il : ig)[j * bs + (size_t)(comp % 4) * nk + k] = s;
    }
}

/* the column partials of `rows` rows: entries of 8 nk values */
static size_t colpart_entries(size_t rows)
{
    return colpart_of((rows + KBCT_ROWS - 1) / KBCT_ROWS);
}

size_t kbcu_collision_scratch(size_t rows, size_t nk)
{
    const size_t w = (rows + KBCT_COLS - 1) / KBCT_COLS;
    return (colpart_entries(rows) + w * rows) * 8 * nk;
}

/* the tiles over rows 0 .. last, then the sums per (j, k), into il, ig */
template <class W>
static int collision_tiles(kbcu_dev *d, size_t m, size_t last, W wq, cplx *il, cplx *ig)
{
    const size_t nk = d->nk;
    cplx *colpart = d->part, *rowpart = d->part + colpart_entries(d->rows_alloc) * 8 * nk;
    const dim3 grid((unsigned)(last / KBCT_COLS + 1), (unsigned)(last / KBCT_ROWS + 1),
                    (unsigned)((nk + KBCT_K - 1) / KBCT_K));
    k_collision_tile<W><<<grid, KBCT_ROWS * KBCT_K, 0, mcu_stream()>>>(
        nk, m, last, d->rows_alloc, wq, d->gl, d->gg, d->sl, d->sg, colpart, rowpart);
    int rc = launched("the collision integrals' tiles");
    if (rc)
        return rc;
    k_collision_sum<<<blocks_for((last + 1) * nk), KBCU_THREADS, 0, mcu_stream()>>>(
        nk, last, d->rows_alloc, colpart, rowpart, il, ig);
    return launched("the collision integrals' sums");
}

int kbcu_collision_row(kbcu_dev *d, size_t m, cplx *il, cplx *ig)
{
    const trapezoid_weights wq = {d->s.dt};
    return collision_tiles(d, m, m, wq, il, ig);
}

/* collision_rest's points of the second integral past t_j (start weights reaching t_{p-1},
 * for 0 < j < p - 1): - dt w_js Sigma^lg(t_m, s) [G^> - G^<](s, t_j), s = j + 1 .. p - 1, the
 * stored blocks (s, j), added to the tiles' sums */
__global__ void k_collision_start(kbcu_tab t, size_t nk, size_t m, double dt, const cplx *gl,
                                  const cplx *gg, const cplx *sl, const cplx *sg, cplx *il,
                                  cplx *ig)
{
    const size_t q = blockIdx.x * (size_t)blockDim.x + threadIdx.x, p = (size_t)t.p;
    if (q >= (p - 2) * nk)
        return;
    const size_t j = 1 + q / nk, k = q % nk, bs = 4 * nk;
    cplx x[4], y[4], a[4], g[4], acc_l[4], acc_g[4];
    load4(il + j * bs, nk, k, acc_l);
    load4(ig + j * bs, nk, k, acc_g);
    for (size_t s = j + 1; s < p && s < m; s++) {
        const double wt = dt * greg_w(t, j, s);
        load4(gg + pair_of(s, j) * bs, nk, k, x);
        load4(gl + pair_of(s, j) * bs, nk, k, y);
        for (int r = 0; r < 4; r++)
            g[r] = csub(x[r], y[r]); /* G^> - G^< */
        for (int lesser = 1; lesser >= 0; lesser--) {
            load4((lesser ? sl : sg) + s * bs, nk, k, a);
            cplx *acc = lesser ? acc_l : acc_g;
            acc[0] = csub(acc[0], cscale(wt, cadd(cmul(a[0], g[0]), cmul(a[1], g[2]))));
            acc[1] = csub(acc[1], cscale(wt, cadd(cmul(a[0], g[1]), cmul(a[1], g[3]))));
            acc[2] = csub(acc[2], cscale(wt, cadd(cmul(a[2], g[0]), cmul(a[3], g[2]))));
            acc[3] = csub(acc[3], cscale(wt, cadd(cmul(a[2], g[1]), cmul(a[3], g[3]))));
        }
    }
    store4(il + j * bs, nk, k, acc_l);
    store4(ig + j * bs, nk, k, acc_g);
}

int kbcu_collision_rest(kbcu_dev *d, size_t m, cplx *il, cplx *ig)
{
    gregory_weights wq;
    wq.dt = d->s.dt;
    wq.t = d->tab;
    int rc = collision_tiles(d, m, m - 1, wq, il, ig);
    if (rc || d->tab.p <= 2)
        return rc;
    k_collision_start<<<blocks_for((size_t)(d->tab.p - 2) * d->nk), KBCU_THREADS, 0,
                        mcu_stream()>>>(d->tab, d->nk, m, d->s.dt, d->gl, d->gg, d->sl, d->sg,
                                        il, ig);
    return launched("the collision integrals' start points");
}
