/* periodic.c — checks of a periodic description and its Bloch Hamiltonian (mcf/periodic.h). */
#include "mcf/periodic.h"

#include "mcf/error.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const double periodic_two_pi = 6.28318530717958647692;

/* a hopping's key with its summed value, for the Hermiticity check */
typedef struct term {
    int32_t R[3];
    uint32_t to, from;
    double re, im;
    size_t first; /* index of the first hopping with this key, for messages */
} term;

static int term_cmp(const void *pa, const void *pb)
{
    const term *a = pa, *b = pb;
    for (int d = 0; d < 3; d++)
        if (a->R[d] != b->R[d])
            return a->R[d] < b->R[d] ? -1 : 1;
    if (a->to != b->to)
        return a->to < b->to ? -1 : 1;
    if (a->from != b->from)
        return a->from < b->from ? -1 : 1;
    return a->first < b->first ? -1 : a->first > b->first;
}

static int key_cmp(const term *a, const term *b)
{
    for (int d = 0; d < 3; d++)
        if (a->R[d] != b->R[d])
            return a->R[d] < b->R[d] ? -1 : 1;
    if (a->to != b->to)
        return a->to < b->to ? -1 : 1;
    return a->from < b->from ? -1 : a->from > b->from;
}

/* the Gram determinant of the first dims lattice vectors, relative to their lengths */
static double independence(const mcf_periodic *p)
{
    double g[3][3], len = 1.0;
    for (uint32_t i = 0; i < p->dims; i++)
        for (uint32_t j = 0; j < p->dims; j++) {
            g[i][j] = 0.0;
            for (int d = 0; d < 3; d++)
                g[i][j] += p->lattice[i][d] * p->lattice[j][d];
        }
    for (uint32_t i = 0; i < p->dims; i++)
        len *= g[i][i];
    if (!(len > 0.0))
        return 0.0;
    double det = p->dims == 1   ? g[0][0]
                 : p->dims == 2 ? g[0][0] * g[1][1] - g[0][1] * g[1][0]
                                : g[0][0] * (g[1][1] * g[2][2] - g[1][2] * g[2][1]) -
                                      g[0][1] * (g[1][0] * g[2][2] - g[1][2] * g[2][0]) +
                                      g[0][2] * (g[1][0] * g[2][1] - g[1][1] * g[2][0]);
    return det / len;
}

int mcf_periodic_check(const mcf_periodic *p, const char *who)
{
    if (!who)
        who = "periodic description";
    if (!p)
        return mcf_fail(MCF_EINVAL, "%s: none given", who);
    if (p->dims < 1 || p->dims > 3)
        return mcf_fail(MCF_EINVAL, "%s: dims = %u; a crystal is periodic in 1, 2 or 3 "
                        "directions", who, p->dims);
    if (p->orbitals < 1 || p->sites < 1)
        return mcf_fail(MCF_EINVAL, "%s: %u orbitals and %u sites per cell; both must be >= 1",
                        who, p->orbitals, p->sites);
    for (uint32_t i = 0; i < p->dims; i++)
        for (int d = 0; d < 3; d++)
            if (!isfinite(p->lattice[i][d]))
                return mcf_fail(MCF_EINVAL, "%s: lattice vector %u is not finite", who, i + 1);
    if (!(independence(p) > 1e-10))
        return mcf_fail(MCF_EINVAL, "%s: the %u lattice vectors are zero or linearly "
                        "dependent", who, p->dims);
    if (p->n_hoppings > 0 && !p->hoppings)
        return mcf_fail(MCF_EINVAL, "%s: %zu hoppings announced, none given", who,
                        p->n_hoppings);
    double tmax = 0.0;
    for (size_t h = 0; h < p->n_hoppings; h++) {
        const mcf_cell_hopping *t = &p->hoppings[h];
        if (t->to >= p->orbitals || t->from >= p->orbitals)
            return mcf_fail(MCF_EINVAL, "%s: hopping %zu goes from orbital %u to %u; the cell "
                            "has %u (0..%u)", who, h, t->from, t->to, p->orbitals,
                            p->orbitals - 1);
        for (uint32_t d = p->dims; d < 3; d++)
            if (t->R[d] != 0)
                return mcf_fail(MCF_EINVAL, "%s: hopping %zu has a cell offset %d along "
                                "direction %u, but the crystal is periodic in %u only", who, h,
                                t->R[d], d + 1, p->dims);
        if (!isfinite(t->re) || !isfinite(t->im))
            return mcf_fail(MCF_EINVAL, "%s: hopping %zu is not finite", who, h);
        const double m = hypot(t->re, t->im);
        if (m > tmax)
            tmax = m;
    }
    if (p->n_hoppings == 0)
        return MCF_OK;
    term *s = malloc(p->n_hoppings * sizeof *s);
    if (!s)
        return mcf_fail(MCF_ENOMEM, "%s: out of memory for %zu hoppings", who, p->n_hoppings);
    for (size_t h = 0; h < p->n_hoppings; h++) {
        const mcf_cell_hopping *t = &p->hoppings[h];
        memcpy(s[h].R, t->R, sizeof s[h].R);
        s[h].to = t->to;
        s[h].from = t->from;
        s[h].re = t->re;
        s[h].im = t->im;
        s[h].first = h;
    }
    qsort(s, p->n_hoppings, sizeof *s, term_cmp);
    size_t n = 0; /* merge equal keys, in the order of the list */
    for (size_t h = 0; h < p->n_hoppings; h++) {
        if (n > 0 && key_cmp(&s[n - 1], &s[h]) == 0) {
            s[n - 1].re += s[h].re;
            s[n - 1].im += s[h].im;
        } else
            s[n++] = s[h];
    }
    const double tol = 1e-12 * tmax;
    int rc = MCF_OK;
    for (size_t i = 0; i < n && !rc; i++) {
        term want = {{-s[i].R[0], -s[i].R[1], -s[i].R[2]}, s[i].from, s[i].to, 0, 0, 0};
        const term *c = NULL;
        size_t lo = 0, hi = n;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            int k = key_cmp(&s[mid], &want);
            if (k == 0) {
                c = &s[mid];
                break;
            }
            if (k < 0)
                lo = mid + 1;
            else
                hi = mid;
        }
        const double cre = c ? c->re : 0.0, cim = c ? -c->im : 0.0;
        if (fabs(s[i].re - cre) > tol || fabs(s[i].im - cim) > tol)
            rc = mcf_fail(MCF_EINVAL, "%s: H(k) is not Hermitian: hopping %zu, from orbital %u "
                          "to %u at cell offset (%d, %d, %d), is %g%+gi, but the hoppings back "
                          "(from %u to %u at the opposite offset) add up to the conjugate of "
                          "%g%+gi; list every term with its Hermitian conjugate", who,
                          s[i].first, s[i].from, s[i].to, s[i].R[0], s[i].R[1], s[i].R[2],
                          s[i].re, s[i].im, s[i].to, s[i].from, cre, -cim);
    }
    free(s);
    return rc;
}

void mcf_periodic_hk(const mcf_periodic *p, const double *k, double *hk)
{
    const size_t n = p->orbitals;
    memset(hk, 0, 2 * n * n * sizeof *hk);
    for (size_t h = 0; h < p->n_hoppings; h++) {
        const mcf_cell_hopping *t = &p->hoppings[h];
        double phase = 0.0;
        for (uint32_t d = 0; d < p->dims; d++)
            phase += k[d] * (double)t->R[d];
        phase *= periodic_two_pi;
        const double c = cos(phase), sn = sin(phase);
        double *e = hk + 2 * ((size_t)t->to * n + t->from);
        e[0] += t->re * c - t->im * sn;
        e[1] += t->re * sn + t->im * c;
    }
}
