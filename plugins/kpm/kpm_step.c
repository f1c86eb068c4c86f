/* kpm_step.c — one Chebyshev step of a block of vectors over all rows (kpm_step.h): the
 * row loops, scalar for any block and in 4-wide vectors for blocks of 4 to 32, each with
 * the rows' entries read from the ELL table or computed from factorized hoppings; the
 * choice among them, and the threaded loop over fixed chunks of rows.
 *
 * Factorized hoppings (mcf/hamiltonian_factors.h).  Row r's entries are then computed:
 * its neighbours from the lattice (on a periodic chain, square or cubic lattice with L >= 3
 * from the row's coordinates, carried along the row loop: no table at all; otherwise from
 * the lattice's neighbour table, one contiguous row of it), and each entry by
 * mcf_factors_hop from the field of the row and of the neighbour.  Slot k of the table is
 * neighbour k and the table's entries were computed by the same function, so the step
 * adds the same numbers in the same order: the same bits as from the table
 * (test_kpm_factors).  What a row then reads is 8 bytes of on-site energy and 16 rank
 * bytes of field, instead of the table's width x 20 + 8 (128 bytes on the cubic lattice);
 * it is taken only where it was measured faster (kpm_step_reads_field says where and
 * why); docs/benchmarks.md has the measurements. */
#include "kpm_step.h"

#include "mcf/hamiltonian_factors.h"

#include <stdint.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#if defined(__GNUC__)
#define KPM_INLINE inline __attribute__((always_inline))
#else
#define KPM_INLINE inline
#endif

/* complete unrolling of a short loop over the groups of a block */
#if defined(__GNUC__) && !defined(__clang__)
#define KPM_UNROLL _Pragma("GCC unroll 8")
#else
#define KPM_UNROLL
#endif

/* the most neighbours a factorized row may have (bcc: 8) */
#define KPM_FAC_MAXZ 8
/* the fewest rows whose step reads the field by default (kpm_step_reads_field) */
#define KPM_FAC_MIN_ROWS 4096
/* how many rows ahead the factorized step prefetches its gathered rows */
#define KPM_FAC_AHEAD 16

/* ---- the rows' neighbours under factorized hoppings -------------------------------- */

typedef struct nb_walk {
    int implicit;   /* 1: computed from the coordinates (periodic chain, square, cubic) */
    int d;          /* the lattice's dimensions */
    long L;
    long c[3];      /* the current row's coordinates (x fastest) */
    size_t st[3];   /* their strides 1, L, L^2 */
} nb_walk;

static void walk_start(nb_walk *w, const mcf_hamiltonian_factors *f, size_t r)
{
    w->implicit = f->boundary == MCF_BOUNDARY_PERIODIC && f->kind != MCF_LATTICE_BCC &&
                  f->L >= 3;
    w->d = f->kind == MCF_LATTICE_CHAIN ? 1 : f->kind == MCF_LATTICE_SQUARE ? 2 : 3;
    w->L = f->L;
    size_t q = r, st = 1;
    for (int k = 0; k < 3; k++) {
        w->c[k] = (long)(q % (size_t)f->L);
        q /= (size_t)f->L;
        w->st[k] = st;
        st *= (size_t)f->L;
    }
}

/* The neighbours of row r (the walker's current row) into nb[0..coordination), in the
 * lattice's slot order (slot 2k: +e_k, 2k + 1: -e_k, wrapped); then moves to row r + 1. */
static KPM_INLINE void walk_row(nb_walk *w, const mcf_hamiltonian_factors *f, size_t r,
                                int32_t *nb)
{
    if (!w->implicit) {
        const int z = f->coordination;
        for (int k = 0; k < z; k++)
            nb[k] = f->neighbours[r * (size_t)z + (size_t)k];
        return;
    }
    const long L = w->L;
    for (int k = 0; k < w->d; k++) {
        const size_t st = w->st[k], wrap = (size_t)(L - 1) * st;
        nb[2 * k] = (int32_t)(w->c[k] == L - 1 ? r - wrap : r + st);
        nb[2 * k + 1] = (int32_t)(w->c[k] == 0 ? r + wrap : r - st);
    }
    for (int k = 0; k < w->d; k++) {
        if (++w->c[k] < L)
            break;
        w->c[k] = 0;
    }
}

/* The gathered rows of x that row r + KPM_FAC_AHEAD will read, prefetched (the
 * factorized rows' version of step_prefetch below): without it the step waits on the
 * +-L and +-L^2 neighbours (measured on the device host: 26% of the copy bandwidth at
 * B = 1 without, docs/benchmarks.md). */
static KPM_INLINE void walk_prefetch(const nb_walk *w, const mcf_hamiltonian_factors *f,
                                     const double *x, size_t B, size_t dim, size_t r)
{
    const size_t q = r + KPM_FAC_AHEAD;
    if (q >= dim)
        return;
    if (w->implicit) {
        for (int k = 1; k < w->d; k++) {
            const size_t st = w->st[k];
            if (q + st < dim)
                for (size_t o = 0; o < 2 * B; o += 8)
                    __builtin_prefetch(x + 2 * B * (q + st) + o);
            if (q >= st)
                for (size_t o = 0; o < 2 * B; o += 8)
                    __builtin_prefetch(x + 2 * B * (q - st) + o);
        }
        return;
    }
    const int z = f->coordination;
    for (int k = 0; k < z; k++) {
        const int32_t c = f->neighbours[q * (size_t)z + (size_t)k];
        if (c >= 0)
            for (size_t o = 0; o < 2 * B; o += 8)
                __builtin_prefetch(x + 2 * B * (size_t)c + o);
    }
}

/* Entry k of row r: column *c and amplitude *hr + i *hi; 0 for an empty slot.  FAC = 0:
 * from the table; 1: neighbour nbr[k] and the factorized hopping. */
static KPM_INLINE int step_entry(const mcf_hamiltonian *h, const int FAC, const int32_t *nbr,
                                 size_t r, int k, int32_t *c, double *hr, double *hi)
{
    if (FAC) {
        const mcf_hamiltonian_factors *f = h->factors;
        if ((*c = nbr[k]) < 0)
            return 0;
        const size_t R2 = 2 * (size_t)f->rank;
        mcf_factors_hop(f->rank, f->amplitude, R2 ? f->field + R2 * r : NULL,
                        R2 ? f->field + R2 * (size_t)*c : NULL, hr, hi);
        return 1;
    }
    const size_t sl = (size_t)k * h->dim + r;
    if ((*c = h->col[sl]) < 0)
        return 0;
    *hr = h->hop_re[sl];
    *hi = h->hop_im[sl];
    return 1;
}

/* ---- one Chebyshev step ------------------------------------------------------------
 *
 * y = H~ x (first step) or y = 2 H~ x - y (later steps, in place), rows [r0, r1), with
 * the dot products of the rows into part[0..2B):
 *   DIAG:    part[j] = Re <y_j|x_j>,  part[B + j] = <y_j|y_j>
 *   GENERAL: part[j] + i part[B + j] = <w_j|y_j>                                        */

static KPM_INLINE void step_rows(const step_args *s, const int FAC, const size_t B, size_t r0,
                                 size_t r1, double *part)
{
    const mcf_hamiltonian *h = s->h;
    const int W = h->width;
    const double *ons = h->onsite;
    const double *restrict x = s->x;
    double *restrict y = s->y;
    const double *restrict w = s->w;
    const double ia = s->ia, shift = s->b, ia2 = 2.0 * s->ia;
    const int first = s->first, mode = s->mode;
    const mcf_hamiltonian_factors *f = h->factors;
    nb_walk wk;
    if (FAC)
        walk_start(&wk, f, r0);
    double ar[KPM_MAX_BLOCK], ai[KPM_MAX_BLOCK], s1[KPM_MAX_BLOCK], s2[KPM_MAX_BLOCK];
    for (size_t j = 0; j < B; j++)
        s1[j] = s2[j] = 0.0;
    for (size_t r = r0; r < r1; r++) {
        const double *restrict xr = x + 2 * B * r;
        const double e = ons[r] - shift;
        for (size_t j = 0; j < B; j++) {
            ar[j] = e * xr[j];
            ai[j] = e * xr[B + j];
        }
        int32_t nbr[KPM_FAC_MAXZ];
        if (FAC) {
            walk_prefetch(&wk, f, x, B, h->dim, r);
            walk_row(&wk, f, r, nbr);
        }
        const int WK = FAC ? f->coordination : W;
        for (int k = 0; k < WK; k++) {
            int32_t c;
            double hr, hi;
            if (!step_entry(h, FAC, nbr, r, k, &c, &hr, &hi))
                continue;
            const double *restrict xc = x + 2 * B * (size_t)c;
            for (size_t j = 0; j < B; j++) {
                ar[j] += hr * xc[j] - hi * xc[B + j];
                ai[j] += hr * xc[B + j] + hi * xc[j];
            }
        }
        double *restrict yr = y + 2 * B * r;
        if (first) {
            for (size_t j = 0; j < B; j++) {
                yr[j] = ia * ar[j];
                yr[B + j] = ia * ai[j];
            }
        } else {
            for (size_t j = 0; j < B; j++) {
                yr[j] = ia2 * ar[j] - yr[j];
                yr[B + j] = ia2 * ai[j] - yr[B + j];
            }
        }
        if (mode == STEP_DIAG) {
            for (size_t j = 0; j < B; j++) {
                s1[j] += yr[j] * xr[j] + yr[B + j] * xr[B + j];
                s2[j] += yr[j] * yr[j] + yr[B + j] * yr[B + j];
            }
        } else {
            const double *restrict wr = w + 2 * B * r;
            for (size_t j = 0; j < B; j++) {
                s1[j] += wr[j] * yr[j] + wr[B + j] * yr[B + j];
                s2[j] += wr[j] * yr[B + j] - wr[B + j] * yr[j];
            }
        }
    }
    for (size_t j = 0; j < B; j++) {
        part[j] = s1[j];
        part[B + j] = s2[j];
    }
}

/* The same step for blocks of 4 NG vectors with explicit 4-wide vectors (GCC's vector
 * extension; two SSE2 halves in the baseline clone): the accumulators of PG groups (up to
 * 16 vectors) stay in registers, where step_rows' arrays of B accumulators live on the
 * stack; the rows' table entries are re-read from L1 for each pass of PG groups.  Every
 * element goes through the same operations in the same order as in step_rows (element-
 * wise products, sums and differences, no FMA), so the moments are the same bits for any
 * block size (test_kpm_exact (b)).  The table and the gathered rows of x are prefetched
 * KPM_PREFETCH and KPM_PREFETCH / 4 rows ahead: the step is bound by the latency of its
 * 20-odd streams on one core rather than by the memory bus (docs/benchmarks.md). */
#if defined(__GNUC__)
typedef double kpm_v4 __attribute__((vector_size(32), aligned(8), may_alias));
#define KPM_HAVE_V4 1
#define KPM_PREFETCH 64
/* macros, not functions: a function returning a 32-byte vector warns (-Wpsabi) */
#define v4_load(p) (*(const kpm_v4 *)(p))
#define v4_store(p, v) (*(kpm_v4 *)(p) = (v))
#define v4_all(a) ((kpm_v4){(a), (a), (a), (a)})

static KPM_INLINE void step_prefetch(const mcf_hamiltonian *h, const double *x, size_t B,
                                     size_t r)
{
    const size_t dim = h->dim;
    if (r + KPM_PREFETCH >= dim)
        return;
    if (!(r & 7))
        for (int k = 0; k < h->width; k++) {
            const size_t sp = (size_t)k * dim + r + KPM_PREFETCH;
            __builtin_prefetch(h->col + sp);
            __builtin_prefetch(h->hop_re + sp);
            __builtin_prefetch(h->hop_im + sp);
        }
    for (int k = 0; k < h->width; k++) {
        const int32_t c = h->col[(size_t)k * dim + r + KPM_PREFETCH / 4];
        if (c >= 0)
            for (size_t o = 0; o < 2 * B; o += 8)
                __builtin_prefetch(x + 2 * B * (size_t)c + o);
    }
}

static KPM_INLINE void step_rows_v4(const step_args *s, const int FAC, const size_t NG,
                                    const size_t PG, size_t r0, size_t r1, double *part)
{
    const mcf_hamiltonian *h = s->h;
    const size_t B = 4 * NG;
    const int W = h->width;
    const double *ons = h->onsite;
    const double *restrict x = s->x;
    double *restrict y = s->y;
    const double *restrict w = s->w;
    const double shift = s->b;
    const kpm_v4 zero = {0.0, 0.0, 0.0, 0.0};
    const kpm_v4 ia = v4_all(s->ia), ia2 = v4_all(2.0 * s->ia);
    const int first = s->first, mode = s->mode;
    const mcf_hamiltonian_factors *f = h->factors;
    nb_walk wk;
    if (FAC)
        walk_start(&wk, f, r0);
    kpm_v4 s1[KPM_MAX_BLOCK / 4], s2[KPM_MAX_BLOCK / 4];
    for (size_t g = 0; g < NG; g++)
        s1[g] = s2[g] = zero;
    for (size_t r = r0; r < r1; r++) {
        int32_t nbr[KPM_FAC_MAXZ];
        if (FAC) {
            walk_prefetch(&wk, f, x, B, h->dim, r);
            walk_row(&wk, f, r, nbr);
        } else {
            step_prefetch(h, x, B, r);
        }
        const int WK = FAC ? f->coordination : W;
        const double *restrict xr = x + 2 * B * r;
        double *restrict yr = y + 2 * B * r;
        const kpm_v4 e = v4_all(ons[r] - shift);
        for (size_t g0 = 0; g0 < NG; g0 += PG) {
            kpm_v4 ar[4], ai[4];
            KPM_UNROLL
            for (size_t q = 0; q < PG; q++) {
                const size_t o = 4 * (g0 + q);
                ar[q] = e * v4_load(xr + o);
                ai[q] = e * v4_load(xr + B + o);
            }
            for (int k = 0; k < WK; k++) {
                int32_t c;
                double hrs, his;
                if (!step_entry(h, FAC, nbr, r, k, &c, &hrs, &his))
                    continue;
                const kpm_v4 hr = v4_all(hrs), hi = v4_all(his);
                const double *restrict xc = x + 2 * B * (size_t)c;
                KPM_UNROLL
                for (size_t q = 0; q < PG; q++) {
                    const size_t o = 4 * (g0 + q);
                    const kpm_v4 cr = v4_load(xc + o), ci = v4_load(xc + B + o);
                    ar[q] += hr * cr - hi * ci;
                    ai[q] += hr * ci + hi * cr;
                }
            }
            KPM_UNROLL
            for (size_t q = 0; q < PG; q++) {
                const size_t o = 4 * (g0 + q);
                kpm_v4 yre, yim;
                if (first) {
                    yre = ia * ar[q];
                    yim = ia * ai[q];
                } else {
                    yre = ia2 * ar[q] - v4_load(yr + o);
                    yim = ia2 * ai[q] - v4_load(yr + B + o);
                }
                v4_store(yr + o, yre);
                v4_store(yr + B + o, yim);
                if (mode == STEP_DIAG) {
                    const kpm_v4 xre = v4_load(xr + o), xim = v4_load(xr + B + o);
                    s1[g0 + q] += yre * xre + yim * xim;
                    s2[g0 + q] += yre * yre + yim * yim;
                } else {
                    const kpm_v4 wre = v4_load(w + 2 * B * r + o);
                    const kpm_v4 wim = v4_load(w + 2 * B * r + B + o);
                    s1[g0 + q] += wre * yre + wim * yim;
                    s2[g0 + q] += wre * yim - wim * yre;
                }
            }
        }
    }
    for (size_t g = 0; g < NG; g++)
        for (int l = 0; l < 4; l++) {
            part[4 * g + (size_t)l] = s1[g][l];
            part[B + 4 * g + (size_t)l] = s2[g][l];
        }
}
#endif

typedef void (*step_fn)(const step_args *s, size_t r0, size_t r1, double *part);

/* Versions with the block size known to the compiler (the inner loops unroll and
 * vectorize), and one for any block size.  On x86-64 with GCC each is also compiled for
 * AVX2 and picked at run time (ifunc): about 1.2-1.9x faster for blocks >= 4 on the
 * development machine.  No FMA is enabled and ISO C mode keeps -ffp-contract=off, so both
 * clones compute the same bits. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__has_attribute)
#if __has_attribute(target_clones)
#define KPM_CLONES __attribute__((target_clones("avx2", "default")))
#endif
#endif
#ifndef KPM_CLONES
#define KPM_CLONES
#endif
/* FAC 0: the table's step for NB vectors as step_b<NB>; 1: the factorized one, step_f<NB> */
#define KPM_STEP_FIXED(NB, FAC, NAME)                                                  \
    KPM_CLONES static void NAME##NB(const step_args *s, size_t r0, size_t r1,         \
                                    double *part)                                      \
    {                                                                                  \
        step_rows(s, FAC, NB, r0, r1, part);                                           \
    }
#ifdef KPM_HAVE_V4
#define KPM_STEP_V4(NB, PG)                                                            \
    KPM_CLONES static void step_b##NB(const step_args *s, size_t r0, size_t r1,       \
                                      double *part)                                    \
    {                                                                                  \
        step_rows_v4(s, 0, NB / 4, PG, r0, r1, part);                                  \
    }                                                                                  \
    KPM_CLONES static void step_f##NB(const step_args *s, size_t r0, size_t r1,       \
                                      double *part)                                    \
    {                                                                                  \
        step_rows_v4(s, 1, NB / 4, PG, r0, r1, part);                                  \
    }
#else
#define KPM_STEP_V4(NB, PG) KPM_STEP_FIXED(NB, 0, step_b) KPM_STEP_FIXED(NB, 1, step_f)
#endif
KPM_STEP_FIXED(1, 0, step_b)
KPM_STEP_FIXED(2, 0, step_b)
KPM_STEP_V4(4, 1)
KPM_STEP_V4(8, 2)
KPM_STEP_V4(16, 4)
KPM_STEP_V4(32, 4)
KPM_CLONES static void step_bn(const step_args *s, size_t r0, size_t r1, double *part)
{
    step_rows(s, 0, s->B, r0, r1, part);
}
KPM_CLONES static void step_fn_any(const step_args *s, size_t r0, size_t r1, double *part)
{
    step_rows(s, 1, s->B, r0, r1, part);
}

/* The process-wide choice of kpm_step_set_form. */
static int step_form = KPM_FORM_AUTO;

void kpm_step_set_form(int form) { step_form = form; }

/* Measured (docs/benchmarks.md, "Factorized hoppings"): the field's rows pay only where the
 * step waits for memory.  Below 4 vectors the table's step is faster on 16 cores (128^3,
 * B = 1: 3.08 ns a site by the field against 2.34 by the table, the field's rows bound by
 * arithmetic and gather latency; B = 8: 0.63 against 0.94 ns a site and vector), and there
 * are no field steps for 1 and 2 vectors.  Below KPM_FAC_MIN_ROWS rows the table and the vectors stay in the
 * core's cache: Anderson 8^3 costs 1.2-1.6x more by the field.  A rank-1 or rank-2 entry
 * costs a spinor product per bond: the double-exchange GFMC at 3^3-10^3 ran 1.6-2.6x
 * slower by the field, and no size where it pays has been measured. */
int kpm_step_reads_field(const mcf_hamiltonian *h, size_t B)
{
    const mcf_hamiltonian_factors *f = h->factors;
    if (!f || f->coordination > KPM_FAC_MAXZ || B < 4 || step_form == KPM_FORM_TABLE)
        return 0;
    return step_form == KPM_FORM_FIELD || (f->rank == 0 && h->dim >= KPM_FAC_MIN_ROWS);
}

static step_fn step_select(const mcf_hamiltonian *h, size_t B)
{
    if (kpm_step_reads_field(h, B))
        switch (B) {
        case 4: return step_f4;
        case 8: return step_f8;
        case 16: return step_f16;
        case 32: return step_f32;
        default: return step_fn_any;
        }
    switch (B) {
    case 1: return step_b1;
    case 2: return step_b2;
    case 4: return step_b4;
    case 8: return step_b8;
    case 16: return step_b16;
    case 32: return step_b32;
    default: return step_bn;
    }
}

/* One step over all rows; the totals of the dot products into tot[0..2B), added chunk by
 * chunk in a fixed order (independent of the thread count). */
void kpm_step_all(size_t dim, size_t nch, double *part, const step_args *s, double *tot)
{
    const step_fn fn = step_select(s->h, s->B);
    const size_t B = s->B;
    const long nchl = (long)nch;
    if (nch == 1) {
        /* one chunk: no OpenMP construct at all (even an if(0) parallel region costs a
         * team set-up in libgomp, which dominated GFMC on small lattices) */
        fn(s, 0, dim, part);
    } else {
        /* no more threads than chunks: waking idle threads for every step cost ~0.2 ms a
         * step with 16 threads and 2 chunks (a 16^3 lattice) */
        int nt = 1;
#ifdef _OPENMP
        nt = omp_get_max_threads();
#endif
        if ((long)nt > nchl)
            nt = (int)nchl;
#pragma omp parallel for schedule(static) num_threads(nt)
        for (long c = 0; c < nchl; c++) {
            const size_t r0 = (size_t)c * KPM_CHUNK;
            const size_t r1 = r0 + KPM_CHUNK < dim ? r0 + KPM_CHUNK : dim;
            fn(s, r0, r1, part + (size_t)c * 2 * B);
        }
    }
    for (size_t j = 0; j < 2 * B; j++)
        tot[j] = 0.0;
    for (size_t c = 0; c < nch; c++)
        for (size_t j = 0; j < 2 * B; j++)
            tot[j] += part[c * 2 * B + j];
}

