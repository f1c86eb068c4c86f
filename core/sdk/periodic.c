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

/* the determinant of a 3 x 3 matrix */
static double det3(const double m[3][3])
{
    return m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) -
           m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
           m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
}

/* the Gram determinant of the first dims lattice vectors, relative to their lengths (the
 * Gram matrix padded with the identity beyond dims) */
static double independence(const mcf_periodic *p)
{
    double g[3][3], len = 1.0;
    for (uint32_t i = 0; i < 3; i++)
        for (uint32_t j = 0; j < 3; j++) {
            g[i][j] = i < p->dims && j < p->dims ? 0.0 : (double)(i == j);
            for (int d = 0; d < 3 && i < p->dims && j < p->dims; d++)
                g[i][j] += p->lattice[i][d] * p->lattice[j][d];
        }
    for (uint32_t i = 0; i < p->dims; i++)
        len *= g[i][i];
    return len > 0.0 ? det3(g) / len : 0.0;
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

/* ---- the builder ---------------------------------------------------------------------- */

struct mcf_cell {
    mcf_periodic p;
    mcf_cell_hopping *h;
    size_t cap;
    int shaped, status;
};

int mcf_cell_create(mcf_cell **out)
{
    *out = calloc(1, sizeof **out);
    return *out ? MCF_OK : mcf_fail(MCF_ENOMEM, "out of memory for a cell");
}

void mcf_cell_destroy(mcf_cell *c)
{
    if (!c)
        return;
    free(c->h);
    free(c);
}

const mcf_periodic *mcf_cell_view(const mcf_cell *c)
{
    return c && c->shaped ? &c->p : NULL;
}

int mcf_cell_status(const mcf_cell *c)
{
    return c ? c->status : MCF_EINVAL;
}

/* records the first error */
static int cell_fail(mcf_cell *c, int rc)
{
    if (c && !c->status)
        c->status = rc;
    return rc;
}

int mcf_cell_shape(mcf_cell *c, unsigned dims, unsigned orbitals, unsigned sites,
                   const double *lattice)
{
    if (!c)
        return mcf_fail(MCF_EINVAL, "mcf_cell_shape: no cell");
    if (c->status)
        return c->status;
    if (c->shaped)
        return cell_fail(c, mcf_fail(MCF_EINVAL, "mcf_cell_shape: the cell has its shape "
                                     "already (call it once, first)"));
    if (dims < 1 || dims > 3 || orbitals < 1 || sites < 1 || !lattice)
        return cell_fail(c, mcf_fail(MCF_EINVAL, "mcf_cell_shape: dims = %u (1..3), %u "
                                     "orbitals and %u sites (>= 1)%s", dims, orbitals, sites,
                                     lattice ? "" : ", no lattice vectors"));
    memset(&c->p, 0, sizeof c->p);
    c->p.dims = dims;
    c->p.orbitals = orbitals;
    c->p.sites = sites;
    for (unsigned i = 0; i < dims; i++)
        for (int d = 0; d < 3; d++)
            c->p.lattice[i][d] = lattice[3 * i + d];
    c->shaped = 1;
    return MCF_OK;
}

static int cell_add(mcf_cell *c, const int R[3], unsigned to, unsigned from, double re,
                    double im)
{
    if (c->p.n_hoppings == c->cap) {
        size_t cap = c->cap ? 2 * c->cap : 64;
        mcf_cell_hopping *h = realloc(c->h, cap * sizeof *h);
        if (!h)
            return cell_fail(c, mcf_fail(MCF_ENOMEM, "out of memory for %zu hoppings", cap));
        c->h = h;
        c->cap = cap;
        c->p.hoppings = h;
    }
    mcf_cell_hopping *t = &c->h[c->p.n_hoppings++];
    for (int d = 0; d < 3; d++)
        t->R[d] = R[d];
    t->to = to;
    t->from = from;
    t->re = re;
    t->im = im;
    return MCF_OK;
}

/* the checks common to bonds and on-site energies */
static int cell_entry_check(mcf_cell *c, const char *what, const int R[3], unsigned to,
                            unsigned from, double re, double im)
{
    if (!c)
        return mcf_fail(MCF_EINVAL, "%s: no cell", what);
    if (c->status)
        return c->status;
    if (!c->shaped)
        return cell_fail(c, mcf_fail(MCF_EINVAL, "%s before mcf_cell_shape", what));
    if (to >= c->p.orbitals || from >= c->p.orbitals)
        return cell_fail(c, mcf_fail(MCF_EINVAL, "%s: orbital %u or %u; the cell has %u "
                                     "(0..%u)", what, to, from, c->p.orbitals,
                                     c->p.orbitals - 1));
    for (unsigned d = c->p.dims; d < 3; d++)
        if (R[d] != 0)
            return cell_fail(c, mcf_fail(MCF_EINVAL, "%s: cell offset %d along direction %u, "
                                         "but the cell is periodic in %u", what, R[d], d + 1,
                                         c->p.dims));
    if (!isfinite(re) || !isfinite(im))
        return cell_fail(c, mcf_fail(MCF_EINVAL, "%s: %g%+gi is not finite", what, re, im));
    return MCF_OK;
}

int mcf_cell_bond(mcf_cell *c, int Rx, int Ry, int Rz, unsigned to, unsigned from, double re,
                  double im)
{
    const int R[3] = {Rx, Ry, Rz}, back[3] = {-Rx, -Ry, -Rz};
    int rc = cell_entry_check(c, "mcf_cell_bond", R, to, from, re, im);
    if (rc)
        return rc;
    if (Rx == 0 && Ry == 0 && Rz == 0 && to == from)
        return cell_fail(c, mcf_fail(MCF_EINVAL, "mcf_cell_bond: from orbital %u to itself in "
                                     "the same cell is an on-site energy: mcf_cell_onsite",
                                     to));
    if ((rc = cell_add(c, R, to, from, re, im)))
        return rc;
    return cell_add(c, back, from, to, re, -im);
}

int mcf_cell_onsite(mcf_cell *c, unsigned a, double energy)
{
    const int R[3] = {0, 0, 0};
    int rc = cell_entry_check(c, "mcf_cell_onsite", R, a, a, energy, 0.0);
    return rc ? rc : cell_add(c, R, a, a, energy, 0.0);
}

int mcf_cell_box_boundary(const mcf_params *params, const char *model, mcf_boundary boundary)
{
    if (boundary == MCF_BOUNDARY_PERIODIC)
        return MCF_OK;
    return mcf_fail(MCF_EINVAL, "%s: [%s] boundary = %s in %s: the chain's configuration as a "
                    "crystal repeats its L^d box periodically, which is not the open cluster; "
                    "set boundary = periodic", model, mcf_params_section(params),
                    mcf_boundary_name(boundary), mcf_params_origin(params));
}

/* ---- a cell of a simple lattice --------------------------------------------------------- */

typedef struct lattice_cell {
    unsigned dims;
    const int *a;     /* the cell vectors a[3 i + d] */
    double inv[3][3]; /* the inverse of a (rows a_i, identity beyond dims): f = r inv */
    size_t n;
    int (*site)[3];   /* n positions, sorted by (z, y, x) */
} lattice_cell;

static int site_cmp(const void *pa, const void *pb)
{
    const int *a = pa, *b = pb;
    for (int d = 2; d >= 0; d--)
        if (a[d] != b[d])
            return a[d] < b[d] ? -1 : 1;
    return 0;
}

/* the reduced coordinates of the integer point r */
static void reduced(const lattice_cell *lc, const int r[3], double f[3])
{
    for (unsigned j = 0; j < 3; j++) {
        f[j] = 0.0;
        for (unsigned i = 0; i < lc->dims; i++)
            f[j] += r[i] * lc->inv[i][j];
    }
}

/* the cell's volume (sites), the inverse of its vectors and its sites, sorted: the lattice
 * points of the parallelepiped with reduced coordinates in [0, 1).  MCF_EINVAL for a
 * volume of 0 or too many orbitals, MCF_ENOMEM. */
static int cell_sites(lattice_cell *lc, size_t per_site)
{
    const unsigned dims = lc->dims;
    double m[3][3];
    for (unsigned i = 0; i < 3; i++)
        for (unsigned j = 0; j < 3; j++)
            m[i][j] = i < dims && j < dims ? lc->a[3 * i + j] : (double)(i == j);
    const double det = det3(m);
    const long n = lround(fabs(det));
    if (n < 1 || (unsigned long)n * per_site > (1ul << 20))
        return mcf_fail(MCF_EINVAL, "mcf_cell_lattice: the cell vectors span %ld sites (x %zu "
                        "orbitals); between 1 and 2^20 orbitals", n, per_site);
    lc->n = (size_t)n;
    for (unsigned i = 0; i < 3; i++)
        for (unsigned j = 0; j < 3; j++) {
            const unsigned r0 = (j + 1) % 3, r1 = (j + 2) % 3, c0 = (i + 1) % 3, c1 = (i + 2) % 3;
            lc->inv[i][j] = (m[r0][c0] * m[r1][c1] - m[r0][c1] * m[r1][c0]) / det;
        }
    int lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
    for (unsigned corner = 0; corner < (1u << dims); corner++)
        for (unsigned d = 0; d < dims; d++) {
            int x = 0;
            for (unsigned i = 0; i < dims; i++)
                x += (corner >> i & 1u) ? lc->a[3 * i + d] : 0;
            lo[d] = x < lo[d] ? x : lo[d];
            hi[d] = x > hi[d] ? x : hi[d];
        }
    lc->site = malloc(lc->n * sizeof *lc->site);
    if (!lc->site)
        return mcf_fail(MCF_ENOMEM, "mcf_cell_lattice: out of memory for %zu sites", lc->n);
    size_t found = 0;
    int r[3];
    for (r[2] = lo[2]; r[2] <= hi[2]; r[2]++)
        for (r[1] = lo[1]; r[1] <= hi[1]; r[1]++)
            for (r[0] = lo[0]; r[0] <= hi[0]; r[0]++) {
                double f[3];
                reduced(lc, r, f);
                int inside = 1;
                for (unsigned i = 0; i < dims; i++)
                    inside &= f[i] > -1e-9 && f[i] < 1.0 - 1e-9;
                if (inside && found < lc->n)
                    memcpy(lc->site[found], r, sizeof r);
                found += (size_t)inside;
            }
    if (found != lc->n)
        return mcf_fail(MCF_EINTERNAL, "mcf_cell_lattice: found %zu lattice points in a cell of "
                        "volume %zu", found, lc->n);
    qsort(lc->site, lc->n, sizeof *lc->site, site_cmp);
    return MCF_OK;
}

/* site s's on-site block (Hermitian, checked) into the cell */
static int add_onsite_block(mcf_cell *c, const lattice_cell *lc, size_t s, unsigned per_site,
                            const double *block)
{
    const size_t o0 = s * per_site;
    int rc = MCF_OK;
    for (unsigned o = 0; o < per_site && !rc; o++)
        for (unsigned p = o; p < per_site && !rc; p++) {
            const double *e = block + 2 * (o * per_site + p), *f = block + 2 * (p * per_site + o);
            const double scale = 1e-12 * (1.0 + fabs(e[0]) + fabs(e[1]));
            if (fabs(e[0] - f[0]) > scale || fabs(e[1] + f[1]) > scale)
                rc = cell_fail(c, mcf_fail(MCF_EINVAL, "mcf_cell_lattice: the on-site block of "
                                           "the site at (%d, %d, %d) is not Hermitian: "
                                           "<%u|H|%u> = %g%+gi, <%u|H|%u> = %g%+gi",
                                           lc->site[s][0], lc->site[s][1], lc->site[s][2], o,
                                           p, e[0], e[1], p, o, f[0], f[1]));
            else if (o == p && e[0] != 0.0)
                rc = mcf_cell_onsite(c, (unsigned)(o0 + o), e[0]);
            else if (o != p && (e[0] != 0.0 || e[1] != 0.0))
                rc = mcf_cell_bond(c, 0, 0, 0, (unsigned)(o0 + o), (unsigned)(o0 + p), e[0],
                                   e[1]);
        }
    return rc;
}

/* the site index of r + e_d and its cell offset R: r + e_d = R a + (that site) */
static int neighbour(mcf_cell *c, const lattice_cell *lc, size_t s, unsigned d, int R[3],
                     size_t *s2)
{
    int y[3] = {lc->site[s][0], lc->site[s][1], lc->site[s][2]};
    y[d] += 1;
    double f[3];
    reduced(lc, y, f);
    int q[3] = {y[0], y[1], y[2]};
    for (unsigned i = 0; i < 3; i++) {
        R[i] = i < lc->dims ? (int)floor(f[i] + 1e-9) : 0;
        for (unsigned j = 0; j < lc->dims; j++)
            q[j] -= R[i] * lc->a[3 * i + j];
    }
    const int(*hit)[3] = bsearch(q, lc->site, lc->n, sizeof *lc->site, site_cmp);
    if (!hit)
        return cell_fail(c, mcf_fail(MCF_EINTERNAL, "mcf_cell_lattice: the neighbour (%d, %d, "
                                     "%d) is no site of the cell", y[0], y[1], y[2]));
    *s2 = (size_t)(hit - (const int(*)[3])lc->site);
    return MCF_OK;
}

int mcf_cell_lattice(mcf_cell *c, unsigned dims, const int *a, unsigned per_site,
                     void (*onsite)(void *ctx, const int r[3], double *block),
                     void (*hop)(void *ctx, const int r[3], unsigned d, double *block),
                     void *ctx)
{
    if (!c)
        return mcf_fail(MCF_EINVAL, "mcf_cell_lattice: no cell");
    if (c->status)
        return c->status;
    if (dims < 1 || dims > 3 || per_site < 1 || per_site > 64 || !a)
        return cell_fail(c, mcf_fail(MCF_EINVAL, "mcf_cell_lattice: dims = %u (1..3), "
                                     "per_site = %u (1..64)%s", dims, per_site,
                                     a ? "" : ", no cell vectors"));
    for (unsigned i = 0; i < dims; i++)
        for (unsigned j = dims; j < 3; j++)
            if (a[3 * i + j] != 0)
                return cell_fail(c, mcf_fail(MCF_EINVAL, "mcf_cell_lattice: cell vector %u has "
                                             "a component %d along direction %u of a %u-dimensional "
                                             "lattice", i + 1, a[3 * i + j], j + 1, dims));
    lattice_cell lc = {dims, a, {{0}}, 0, NULL};
    const size_t bb = 2 * (size_t)per_site * per_site;
    double *block = malloc(bb * sizeof *block);
    int rc = block ? cell_sites(&lc, per_site) : mcf_fail(MCF_ENOMEM, "out of memory");
    if (!rc) {
        double lat[9] = {0};
        for (unsigned i = 0; i < dims; i++)
            for (unsigned j = 0; j < dims; j++)
                lat[3 * i + j] = a[3 * i + j];
        rc = mcf_cell_shape(c, dims, (unsigned)lc.n * per_site, (unsigned)lc.n, lat);
    }
    for (size_t s = 0; s < lc.n && !rc; s++) {
        if (onsite) {
            memset(block, 0, bb * sizeof *block);
            onsite(ctx, lc.site[s], block);
            rc = add_onsite_block(c, &lc, s, per_site, block);
        }
        for (unsigned d = 0; hop && d < dims && !rc; d++) {
            int R[3];
            size_t s2 = 0;
            if ((rc = neighbour(c, &lc, s, d, R, &s2)))
                break;
            memset(block, 0, bb * sizeof *block);
            hop(ctx, lc.site[s], d, block);
            /* <r + e_d, o| H |r, p> with its conjugate */
            for (unsigned o = 0; o < per_site && !rc; o++)
                for (unsigned p = 0; p < per_site && !rc; p++) {
                    const double *e = block + 2 * (o * per_site + p);
                    if (e[0] != 0.0 || e[1] != 0.0)
                        rc = mcf_cell_bond(c, R[0], R[1], R[2], (unsigned)(s2 * per_site + o),
                                           (unsigned)(s * per_site + p), e[0], e[1]);
                }
        }
    }
    free(lc.site);
    free(block);
    return rc ? cell_fail(c, rc) : MCF_OK;
}
