/* tc_reweight.c — multi-histogram reweighting (Ferrenberg and Swendsen 1989) of one
 * lattice size's measurements, without histograms: every measurement n, of energy E_n,
 * taken at beta_k, counts with the weight
 *     w_n(beta) = exp(-beta E_n) / sum_m N_m exp(-beta_m E_n - ln Z_m),
 * and ln Z_k = ln sum_n w_n(beta_k), solved by Newton's method on the convex function whose
 * minimum these equations are and confirmed by iterating them to self-consistency (chain
 * 0's ln Z is 0: only differences matter).  A jackknife sample leaves one block of every chain's series out and
 * is solved on its own, from the full sample's ln Z (docs/methods.md, "Finite-size
 * scaling").  All sums are taken as log-sum-exp. */
#include "tc.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* 1 when measurement n is in jackknife sample j */
static int in_sample(const tc_size *s, size_t n, size_t j)
{
    return j == 0 || s->block[n] != j - 1;
}

/* log sum_m N_m exp(-beta_m E - ln Z_m), with a[m] = ln N_m - ln Z_m (-inf: no
 * measurements in the sample) */
static double log_denominator(const tc_size *s, const double *a, double E)
{
    double top = -INFINITY, sum = 0;
    for (size_t m = 0; m < s->n_chains; m++)
        if (a[m] - s->beta[m] * E > top)
            top = a[m] - s->beta[m] * E;
    for (size_t m = 0; m < s->n_chains; m++)
        sum += exp(a[m] - s->beta[m] * E - top);
    return top + log(sum);
}

/* log_denominator of every distinct energy (tc_energy_classes) into ld[n_cls]: each
 * measurement's is its energy's, the same bits; 0, or -1 without classes */
static int class_logden(const tc_size *s, const double *a, double *ld)
{
    if (!s->cls || !ld)
        return -1;
    for (size_t c = 0; c < s->n_cls; c++)
        ld[c] = log_denominator(s, a, s->q[s->cls_rep[c] * TC_NQ + TC_E]);
    return 0;
}

/* a starting point for the full sample: ln Z_{k+1} - ln Z_k = ln <exp(-(b_{k+1} - b_k) E)>_k
 * along the chains in order of beta (single-histogram steps; exact in the limit of
 * overlapping histograms, and only a start here) */
static void initial_lnz(tc_size *s, size_t J)
{
    const size_t K = s->n_chains;
    size_t *order = malloc(K * sizeof *order);
    if (!order)
        return;
    for (size_t k = 0; k < K; k++)
        order[k] = k;
    for (size_t a = 1; a < K; a++)
        for (size_t b = a; b > 0 && s->beta[order[b - 1]] > s->beta[order[b]]; b--) {
            size_t t = order[b];
            order[b] = order[b - 1];
            order[b - 1] = t;
        }
    double lz = 0;
    s->lnz[order[0] * J] = 0;
    for (size_t i = 0; i + 1 < K; i++) {
        const size_t k = order[i], next = order[i + 1];
        const double db = s->beta[next] - s->beta[k];
        double top = -INFINITY, sum = 0, n = 0;
        for (size_t m = 0; m < s->n; m++)
            if (s->chain[m] == k && -db * s->q[m * TC_NQ + TC_E] > top)
                top = -db * s->q[m * TC_NQ + TC_E];
        for (size_t m = 0; m < s->n; m++)
            if (s->chain[m] == k) {
                sum += exp(-db * s->q[m * TC_NQ + TC_E] - top);
                n += 1;
            }
        lz += top + log(sum / n);
        s->lnz[next * J] = lz;
    }
    const double zero = s->lnz[0];
    for (size_t k = 0; k < K; k++)
        s->lnz[k * J] -= zero;
    free(order);
}

/* F(lnz) = sum_n log sum_m N_m exp(-beta_m E_n - ln Z_m) + sum_m N_m ln Z_m over sample j:
 * convex in ln Z, least exactly where the reweighting equations hold (the MBAR objective of
 * Shirts and Chodera 2008, whose stationary point is Ferrenberg and Swendsen's).  a: scratch
 * of K values. */
static double objective(const tc_size *s, size_t J, size_t j, const double *lnz, double *a,
                        double *ld)
{
    const size_t K = s->n_chains;
    double F = 0.0;
    for (size_t m = 0; m < K; m++) {
        const double N = s->count[m * J + j];
        a[m] = N > 0 ? log(N) - lnz[m] : -INFINITY;
        F += N > 0 ? N * lnz[m] : 0.0;
    }
    const int by_class = !class_logden(s, a, ld);
    for (size_t n = 0; n < s->n; n++)
        if (in_sample(s, n, j))
            F += by_class ? ld[s->cls[n]] : log_denominator(s, a, s->q[n * TC_NQ + TC_E]);
    return F;
}

/* Cholesky solve of the symmetric positive definite H x = b (H: P x P, overwritten);
 * -1 when H is not positive definite to rounding */
static int cholesky_solve(double *H, size_t P, double *b)
{
    for (size_t c = 0; c < P; c++) {
        double d = H[c * P + c];
        for (size_t k = 0; k < c; k++)
            d -= H[c * P + k] * H[c * P + k];
        if (!(d > 1e-12 * fabs(H[c * P + c])) || !(d > 0))
            return -1;
        H[c * P + c] = sqrt(d);
        for (size_t r = c + 1; r < P; r++) {
            double v = H[r * P + c];
            for (size_t k = 0; k < c; k++)
                v -= H[r * P + k] * H[c * P + k];
            H[r * P + c] = v / H[c * P + c];
        }
    }
    for (size_t r = 0; r < P; r++) { /* L y = b */
        for (size_t k = 0; k < r; k++)
            b[r] -= H[r * P + k] * b[k];
        b[r] /= H[r * P + r];
    }
    for (size_t r = P; r-- > 0;) { /* L^T x = y */
        for (size_t k = r + 1; k < P; k++)
            b[r] -= H[k * P + r] * b[k];
        b[r] /= H[r * P + r];
    }
    return 0;
}

/* Newton's method on F (objective) for sample j's ln Z, from its present values: the
 * gradient dF/dlnZ_k = N_k - sum_n W_nk and the Hessian sum_n W_nk (delta_kl - W_nl) of the
 * weights W_nk = N_k exp(-beta_k E_n - ln Z_k) / (the denominator), over the chains with
 * measurements, the first of them held (only differences matter); a step halved until F
 * falls (F is convex, so this converges from anywhere).  Where the fixed-point iteration
 * below needs thousands of passes (histograms that overlap little: 12 min for a 32^3
 * campaign's jackknife), this takes ~10; the fixed point then confirms the answer to its
 * own 1e-9.  Leaves ln Z as it found it if a step cannot be made. */
static void newton(tc_size *s, size_t J, size_t j, int max_iter)
{
    const size_t K = s->n_chains;
    size_t *free_k = malloc(K * sizeof *free_k), P = 0, held = K;
    double *buf = malloc((K * K + 6 * K) * sizeof *buf);
    /* with classes of energy: each one's log-denominator and weights W (class_logden) */
    double *ld = s->cls ? malloc(s->n_cls * (K + 1) * sizeof *ld) : NULL;
    if (!free_k || !buf) {
        free(free_k), free(buf), free(ld);
        return;
    }
    double *H = buf, *g = H + K * K, *a = g + K, *lz = a + K, *trial = lz + K, *W = trial + K,
           *step = W + K;
    for (size_t k = 0; k < K; k++) {
        lz[k] = s->lnz[k * J + j];
        if (s->count[k * J + j] > 0) {
            if (held == K)
                held = k;
            else
                free_k[P++] = k;
        }
    }
    double F = objective(s, J, j, lz, a, ld);
    for (int it = 0; it < max_iter && P > 0 && isfinite(F); it++) {
        for (size_t q = 0; q < P * P; q++)
            H[q] = 0.0;
        for (size_t q = 0; q < P; q++)
            g[q] = s->count[free_k[q] * J + j];
        double *Wc = ld ? ld + s->n_cls : NULL;
        if (!class_logden(s, a, ld))
            for (size_t c = 0; c < s->n_cls; c++) {
                const double E = s->q[s->cls_rep[c] * TC_NQ + TC_E], d = ld[c];
                for (size_t q = 0; q < P; q++)
                    Wc[c * K + q] = exp(a[free_k[q]] - s->beta[free_k[q]] * E - d);
            }
        for (size_t n = 0; n < s->n; n++) {
            if (!in_sample(s, n, j))
                continue;
            const double *w = W;
            if (Wc) {
                w = Wc + s->cls[n] * K;
            } else {
                const double E = s->q[n * TC_NQ + TC_E], d = log_denominator(s, a, E);
                for (size_t q = 0; q < P; q++)
                    W[q] = exp(a[free_k[q]] - s->beta[free_k[q]] * E - d);
            }
            for (size_t q = 0; q < P; q++) {
                g[q] -= w[q];
                H[q * P + q] += w[q];
                for (size_t r = 0; r <= q; r++)
                    H[q * P + r] -= w[q] * w[r];
            }
        }
        double slope = 0.0;
        for (size_t q = 0; q < P; q++) {
            for (size_t r = 0; r < q; r++)
                H[r * P + q] = H[q * P + r];
            step[q] = -g[q];
        }
        if (cholesky_solve(H, P, step))
            break;
        double big = 0.0;
        for (size_t q = 0; q < P; q++) {
            slope += g[q] * step[q];
            big = fmax(big, fabs(step[q]));
        }
        /* a sufficient fall of F (Armijo), or, near the minimum, a change of F within its
         * rounding (a sum of ~n terms of size |F| / n: the full step is then taken, as
         * Newton's quadratic convergence allows; measured: without this a step of 4e-6 was
         * halved 13 times for want of a fall of 6e-9 in F = 2.8e6) */
        const double noise = 1e-13 * fabs(F);
        double t = 1.0, Ft = INFINITY;
        int took = 0;
        for (int h = 0; h < 40 && !took; h++, t *= 0.5) {
            for (size_t k = 0; k < K; k++)
                trial[k] = lz[k];
            for (size_t q = 0; q < P; q++)
                trial[free_k[q]] += t * step[q];
            Ft = objective(s, J, j, trial, a, ld);
            took = Ft <= F + 1e-4 * t * slope || (h == 0 && fabs(Ft - F) <= noise);
        }
        if (!took) /* no descent left */
            break;
        t *= 2.0; /* the step taken */
        for (size_t k = 0; k < K; k++)
            lz[k] = trial[k];
        F = Ft;
        if (t * big < 1e-12)
            break;
    }
    for (size_t k = 0; k < K; k++)
        if (isfinite(lz[k]))
            s->lnz[k * J + j] = lz[k];
    free(free_k), free(buf), free(ld);
}

int tc_reweight_solve(tc_size *s, size_t blocks, size_t j, int newton_iter, int max_iter)
{
    const size_t J = blocks + 1, K = s->n_chains;
    if (K == 0)
        return -1;
    if (j == 0)
        initial_lnz(s, J);
    newton(s, J, j, newton_iter);
    double *next = malloc((2 * K + 1) * sizeof *next), *a = next + K;
    /* with classes of energy: each one's log-denominator and terms (class_logden) */
    double *ld = s->cls ? malloc(s->n_cls * (K + 1) * sizeof *ld) : NULL;
    if (!next) {
        free(ld);
        return -1;
    }
    int converged = 0;
    for (int it = 0; it < max_iter && !converged; it++) {
        for (size_t m = 0; m < K; m++) {
            const double N = s->count[m * J + j];
            a[m] = N > 0 ? log(N) - s->lnz[m * J + j] : -INFINITY;
            next[m] = 0;
        }
        /* ln Z_k = log sum_n exp(-beta_k E_n - logden_n), each term scaled by the last
           ln Z_k so that the sum stays near 1 */
        double *term = ld ? ld + s->n_cls : NULL;
        if (!class_logden(s, a, ld))
            for (size_t c = 0; c < s->n_cls; c++) {
                const double E = s->q[s->cls_rep[c] * TC_NQ + TC_E], d = ld[c];
                for (size_t k = 0; k < K; k++)
                    term[c * K + k] = exp(-s->beta[k] * E - d - s->lnz[k * J + j]);
            }
        for (size_t n = 0; n < s->n; n++) {
            if (!in_sample(s, n, j))
                continue;
            if (term) {
                s->logden[n * J + j] = ld[s->cls[n]];
                for (size_t k = 0; k < K; k++)
                    next[k] += term[s->cls[n] * K + k];
                continue;
            }
            const double E = s->q[n * TC_NQ + TC_E];
            const double d = log_denominator(s, a, E);
            s->logden[n * J + j] = d;
            for (size_t k = 0; k < K; k++)
                next[k] += exp(-s->beta[k] * E - d - s->lnz[k * J + j]);
        }
        double change = 0;
        const double zero = s->lnz[j] + log(next[0]);
        for (size_t k = 0; k < K; k++) {
            const double lz = s->lnz[k * J + j] + log(next[k]) - zero;
            const double dz = fabs(lz - s->lnz[k * J + j]);
            if (dz > change)
                change = dz;
            s->lnz[k * J + j] = lz;
        }
        converged = change < 1e-9; /* a relative 1e-9 in every reweighted mean */
    }
    for (size_t m = 0; m < K; m++) {
        const double N = s->count[m * J + j];
        a[m] = N > 0 ? log(N) - s->lnz[m * J + j] : -INFINITY;
    }
    const int by_class = !class_logden(s, a, ld);
    for (size_t n = 0; n < s->n; n++)
        if (in_sample(s, n, j))
            s->logden[n * J + j] = by_class ? ld[s->cls[n]]
                                            : log_denominator(s, a, s->q[n * TC_NQ + TC_E]);
    for (size_t c = 0; by_class && c < s->n_cls; c++)
        s->cls_logden[j * s->n_cls + c] = ld[c];
    free(next), free(ld);
    return converged ? 0 : -1;
}

/* a measurement's energy and index, sorted by energy in tc_energy_classes */
typedef struct {
    double E;
    size_t n;
} tc_level;

static int by_energy(const void *a, const void *b)
{
    const double x = ((const tc_level *)a)->E, y = ((const tc_level *)b)->E;
    return (x > y) - (x < y);
}

int tc_energy_classes(tc_size *s, size_t blocks)
{
    const size_t J = blocks + 1;
    free(s->cls), free(s->cls_rep), free(s->cls_sum), free(s->cls_logden);
    s->cls = s->cls_rep = NULL;
    s->cls_sum = s->cls_logden = NULL;
    s->n_cls = 0;
    for (size_t n = 0; n < s->n; n++)
        if (!isfinite(s->q[n * TC_NQ + TC_E]))
            return 0;
    tc_level *order = malloc(s->n * sizeof *order);
    size_t *cls = malloc(s->n * sizeof *cls), *rep = malloc(TC_MAX_CLASSES * sizeof *rep);
    if (!order || !cls || !rep) {
        free(order), free(cls), free(rep);
        return -1;
    }
    for (size_t n = 0; n < s->n; n++)
        order[n] = (tc_level){s->q[n * TC_NQ + TC_E], n};
    qsort(order, s->n, sizeof *order, by_energy);
    size_t c = 0;
    for (size_t i = 0; i < s->n; i++) {
        /* a new class at every other bit pattern (0 and -0 apart: the sort may mix them) */
        const int start = i == 0 || memcmp(&order[i].E, &order[i - 1].E, sizeof order[i].E);
        if (start && i > 0 && ++c == TC_MAX_CLASSES)
            break;
        if (start)
            rep[c] = order[i].n;
        cls[order[i].n] = c;
    }
    free(order);
    if (s->n == 0 || c >= TC_MAX_CLASSES) {
        free(cls), free(rep);
        return 0;
    }
    const size_t C = c + 1, W = 1 + TC_NQ;
    double *sums = calloc(J * C * W, sizeof *sums), *ld = calloc(J * C, sizeof *ld);
    if (!sums || !ld) {
        free(cls), free(rep), free(sums), free(ld);
        return -1;
    }
    for (size_t n = 0; n < s->n; n++)
        for (size_t j = 0; j < J; j++)
            if (in_sample(s, n, j)) {
                double *to = sums + (j * C + cls[n]) * W;
                to[0] += 1;
                for (int q = 0; q < TC_NQ; q++)
                    to[1 + q] += s->q[n * TC_NQ + q];
            }
    s->cls = cls;
    s->cls_rep = rep;
    s->n_cls = C;
    s->cls_sum = sums;
    s->cls_logden = ld;
    return 0;
}

/* tc_reweight_means over the distinct energies (s->cls): the measurements of one energy
 * in sample j have one weight, so w and the sums are those of the energies' counts and
 * sums (s->cls_sum) times their weights */
static void means_by_energy(const tc_size *s, size_t j, double beta, double *w, double *sum)
{
    const size_t C = s->n_cls, W = 1 + TC_NQ;
    const double *cs = s->cls_sum + j * C * W, *ld = s->cls_logden + j * C;
    double top = -INFINITY;
    for (size_t c = 0; c < C; c++)
        if (cs[c * W] > 0) {
            const double v = -beta * s->q[s->cls_rep[c] * TC_NQ + TC_E] - ld[c];
            if (v > top)
                top = v;
        }
    for (size_t c = 0; c < C; c++)
        if (cs[c * W] > 0) {
            const double x = exp(-beta * s->q[s->cls_rep[c] * TC_NQ + TC_E] - ld[c] - top);
            *w += x * cs[c * W];
            for (int q = 0; q < TC_NQ; q++)
                sum[q] += x * cs[c * W + 1 + q];
        }
}

void tc_reweight_means(const tc_size *s, size_t blocks, size_t j, double T, double *out)
{
    const size_t J = blocks + 1;
    const double beta = 1.0 / T;
    double top = -INFINITY, w = 0, sum[TC_NQ] = {0};
    if (s->cls) {
        means_by_energy(s, j, beta, &w, sum);
    } else {
        for (size_t n = 0; n < s->n; n++)
            if (in_sample(s, n, j)) {
                const double x = -beta * s->q[n * TC_NQ + TC_E] - s->logden[n * J + j];
                if (x > top)
                    top = x;
            }
        for (size_t n = 0; n < s->n; n++)
            if (in_sample(s, n, j)) {
                const double x = exp(-beta * s->q[n * TC_NQ + TC_E] - s->logden[n * J + j] -
                                     top);
                w += x;
                for (int q = 0; q < TC_NQ; q++)
                    sum[q] += x * s->q[n * TC_NQ + q];
            }
    }
    for (int q = 0; q < TC_NQ; q++)
        out[q] = sum[q] / w;
    out[TC_E] /= s->units;
}

double tc_quantity(const tc_size *s, int which, const double *m)
{
    if (which == 0)
        return 1.0 - m[TC_M4] / (3.0 * m[TC_M2] * m[TC_M2]);
    const double L = (double)s->L, pi = 3.14159265358979323846;
    return m[TC_M2] > m[TC_MK] ? sqrt(m[TC_M2] / m[TC_MK] - 1.0) / (2.0 * L * sin(pi / L))
                               : NAN;
}

double tc_curve(const tc_size *s, size_t blocks, size_t j, int which, double T)
{
    double m[TC_NQ];
    tc_reweight_means(s, blocks, j, T, m);
    return tc_quantity(s, which, m);
}

/* a's curve minus b's (b NULL: minus value) */
static double difference(const tc_size *a, const tc_size *b, double value, size_t blocks,
                         size_t j, int which, double T)
{
    return tc_curve(a, blocks, j, which, T) - (b ? tc_curve(b, blocks, j, which, T) : value);
}

/* the sign change of difference() on the grid nearest `near` (the first without it), refined
 * by bisection: the crossings' and --fixed's root */
static double root_of(const tc_size *a, const tc_size *b, double value, size_t blocks,
                      size_t j, int which, double lo, double hi, size_t grid, double near,
                      int *found)
{
    *found = 0;
    double best = NAN, best_lo = 0, best_hi = 0;
    double prev = difference(a, b, value, blocks, j, which, lo), prev_T = lo;
    for (size_t g = 1; g < grid; g++) {
        const double T = lo + (hi - lo) * (double)g / (double)(grid - 1);
        const double d = difference(a, b, value, blocks, j, which, T);
        if (isfinite(prev) && isfinite(d) && (prev == 0 || (prev < 0) != (d < 0))) {
            const double mid = 0.5 * (prev_T + T);
            if (!(*found)++ || (isfinite(near) && fabs(mid - near) < fabs(best - near))) {
                best = mid;
                best_lo = prev_T;
                best_hi = T;
            }
        }
        prev = d;
        prev_T = T;
    }
    if (!*found)
        return NAN;
    double dlo = difference(a, b, value, blocks, j, which, best_lo);
    for (int it = 0; it < 60 && best_hi - best_lo > 1e-12 * fabs(best_hi); it++) {
        const double mid = 0.5 * (best_lo + best_hi);
        const double d = difference(a, b, value, blocks, j, which, mid);
        if ((d < 0) == (dlo < 0)) {
            best_lo = mid;
            dlo = d;
        } else {
            best_hi = mid;
        }
    }
    return 0.5 * (best_lo + best_hi);
}

double tc_crossing(const tc_size *a, const tc_size *b, size_t blocks, size_t j, int which,
                   double lo, double hi, size_t grid, double near, int *found)
{
    return root_of(a, b, 0.0, blocks, j, which, lo, hi, grid, near, found);
}

double tc_fixed_root(const tc_size *s, size_t blocks, size_t j, int which, double value,
                     double lo, double hi, size_t grid, double near, int *found)
{
    return root_of(s, NULL, value, blocks, j, which, lo, hi, grid, near, found);
}
