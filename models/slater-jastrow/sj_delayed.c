/* sj_delayed.c — delayed (rank-k) updates of an inverse Slater matrix (sj_delayed.h says
 * the method). */
#include "sj_delayed.h"

#include "mcf/error.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

size_t sj_delay_window(size_t delay, int ev_sweep)
{
    return ev_sweep || delay ? delay : SJ_DELAY_MODEL_AUTO;
}

int sj_delay_init(sj_delay *d, size_t k, size_t m)
{
    memset(d, 0, sizeof *d);
    if (k < 1 || k > SJ_DELAY_MAX)
        return mcf_fail(MCF_EINVAL, "slater-jastrow: delay = %zu: use 1 to %d", k,
                        SJ_DELAY_MAX);
    const size_t mm = m ? m : 1;
    d->k = k;
    d->m = m;
    d->row = malloc(k * sizeof *d->row);
    d->Q = malloc(k * mm * sizeof *d->Q);
    d->Sinv = malloc(k * k * sizeof *d->Sinv);
    d->P = malloc(mm * k * sizeof *d->P);
    d->T = malloc(k * mm * sizeof *d->T);
    if (!d->row || !d->Q || !d->Sinv || !d->P || !d->T) {
        sj_delay_free(d);
        return mcf_fail(MCF_ENOMEM, "slater-jastrow: out of memory for a window of %zu "
                        "delayed updates", k);
    }
    return MCF_OK;
}

void sj_delay_free(sj_delay *d)
{
    free(d->row);
    free(d->Q);
    free(d->Sinv);
    free(d->P);
    free(d->T);
    memset(d, 0, sizeof *d);
}

/* (v^T Ainv)_j, the inverse's column j against v */
static double vdot_col(const double *Ainv, size_t m, const double *v, size_t j)
{
    double s = 0.0;
    for (size_t l = 0; l < m; l++)
        s += v[l] * Ainv[l * m + j];
    return s;
}

double sj_delay_ratio(const sj_delay *d, const double *Ainv, size_t i, const double *v)
{
    const size_t m = d->m, p = d->np, k = d->k;
    double R = vdot_col(Ainv, m, v, i);
    if (!p)
        return R;
    double x[SJ_DELAY_MAX];
    for (size_t b = 0; b < p; b++)
        x[b] = vdot_col(Ainv, m, v, d->row[b]);
    /* R_0 - x^T S^-1 b, b_a = Q_a[i] */
    double corr = 0.0;
    for (size_t a = 0; a < p; a++) {
        double s = 0.0;
        for (size_t b = 0; b < p; b++)
            s += d->Sinv[a * k + b] * d->Q[b * m + i];
        corr += x[a] * s;
    }
    return R - corr;
}

void sj_delay_flush(sj_delay *d, double *Ainv)
{
    const size_t m = d->m, p = d->np, k = d->k;
    if (!p)
        return;
    /* P = the pending rows' columns of Ainv (read before Ainv changes), T = S^-1 Q */
    for (size_t l = 0; l < m; l++)
        for (size_t a = 0; a < p; a++)
            d->P[l * k + a] = Ainv[l * m + d->row[a]];
    for (size_t a = 0; a < p; a++) {
        double *t = d->T + a * m;
        memset(t, 0, m * sizeof *t);
        for (size_t b = 0; b < p; b++) {
            const double s = d->Sinv[a * k + b], *q = d->Q + b * m;
            for (size_t j = 0; j < m; j++)
                t[j] += s * q[j];
        }
    }
    for (size_t l = 0; l < m; l++) {
        double *row = Ainv + l * m;
        const double *pl = d->P + l * k;
        for (size_t a = 0; a < p; a++) {
            const double c = pl[a], *t = d->T + a * m;
            for (size_t j = 0; j < m; j++)
                row[j] -= c * t[j];
        }
    }
    d->np = 0;
}

int sj_delay_accept(sj_delay *d, double *Ainv, size_t i, const double *v, double *ratio)
{
    const size_t m = d->m, k = d->k;
    for (size_t a = 0; a < d->np; a++)
        if (d->row[a] == i) { /* a row twice in a window: apply the first move first */
            sj_delay_flush(d, Ainv);
            break;
        }
    const size_t p = d->np; /* < k: a window is flushed as soon as it fills */
    /* Q_p = v^T Ainv - e_i^T, row by row of Ainv (contiguous) */
    double *q = d->Q + p * m;
    memset(q, 0, m * sizeof *q);
    for (size_t l = 0; l < m; l++) {
        const double vl = v[l], *row = Ainv + l * m;
        for (size_t j = 0; j < m; j++)
            q[j] += vl * row[j];
    }
    q[i] -= 1.0;
    /* bordering S (p x p) by column b_a = Q_a[i], row c_b = Q_p[i_b] and corner 1 + Q_p[i]:
     * y = S^-1 b, z^T = c^T S^-1, Schur complement s = corner - c^T y = the move's ratio */
    double y[SJ_DELAY_MAX], z[SJ_DELAY_MAX];
    double s = 1.0 + q[i];
    for (size_t a = 0; a < p; a++) {
        double ya = 0.0, za = 0.0;
        for (size_t b = 0; b < p; b++) {
            ya += d->Sinv[a * k + b] * d->Q[b * m + i];
            za += q[d->row[b]] * d->Sinv[b * k + a];
        }
        y[a] = ya;
        z[a] = za;
    }
    for (size_t b = 0; b < p; b++)
        s -= q[d->row[b]] * y[b];
    *ratio = s;
    if (s == 0.0 || !isfinite(s))
        return MCF_EINVAL;
    const double is = 1.0 / s;
    for (size_t a = 0; a < p; a++) {
        for (size_t b = 0; b < p; b++)
            d->Sinv[a * k + b] += y[a] * z[b] * is;
        d->Sinv[a * k + p] = -y[a] * is;
        d->Sinv[p * k + a] = -z[a] * is;
    }
    d->Sinv[p * k + p] = is;
    d->row[p] = i;
    d->np = p + 1;
    if (d->np == k)
        sj_delay_flush(d, Ainv);
    return MCF_OK;
}
