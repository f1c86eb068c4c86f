/* bloch.c — wave vectors along a path through the Brillouin zone and the Bloch states of a
 * lattice (mcf/response.h, "Spectral functions along a path"): what a model hands to
 * vector_moments for A(k, E).  Geometry only: no Hamiltonian, no evaluator. */
#include "mcf/response.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcf/error.h"

static const double bl_pi = 3.14159265358979323846;

/* whether the len bytes at a spell b, case aside */
static int bl_same(const char *a, size_t len, const char *b)
{
    if (strlen(b) != len)
        return 0;
    for (size_t i = 0; i < len; i++)
        if (tolower((unsigned char)a[i]) != tolower((unsigned char)b[i]))
            return 0;
    return 1;
}

/* A named point: its coordinates in units of pi per lattice constant. */
typedef struct bl_corner {
    const char *name;
    int c[3];
} bl_corner;

static const bl_corner bl_chain[] = {{"G", {0, 0, 0}}, {"X", {1, 0, 0}}, {NULL, {0, 0, 0}}};
static const bl_corner bl_square[] = {{"G", {0, 0, 0}}, {"X", {1, 0, 0}}, {"Y", {0, 1, 0}},
                                      {"M", {1, 1, 0}}, {NULL, {0, 0, 0}}};
static const bl_corner bl_cubic[] = {{"G", {0, 0, 0}}, {"X", {1, 0, 0}}, {"Y", {0, 1, 0}},
                                     {"Z", {0, 0, 1}}, {"M", {1, 1, 0}}, {"R", {1, 1, 1}},
                                     {NULL, {0, 0, 0}}};
static const bl_corner bl_bcc[] = {{"G", {0, 0, 0}}, {"H", {2, 0, 0}}, {"N", {1, 1, 0}},
                                   {"P", {1, 1, 1}}, {NULL, {0, 0, 0}}};

static const bl_corner *bl_corners(mcf_lattice_kind kind, const char **def)
{
    switch (kind) {
    case MCF_LATTICE_CHAIN:
        *def = "G X";
        return bl_chain;
    case MCF_LATTICE_SQUARE:
        *def = "G X M G";
        return bl_square;
    case MCF_LATTICE_CUBIC:
        *def = "G X M G R X";
        return bl_cubic;
    case MCF_LATTICE_BCC:
        *def = "G H N G P H";
        return bl_bcc;
    }
    *def = NULL;
    return NULL;
}

void mcf_kpath_destroy(mcf_kpath *p)
{
    if (!p)
        return;
    free(p->k);
    free(p->s);
    free(p->corner);
    free(p);
}

/* appends the allowed wave vector of the integer vector n (K_d = (2 pi n_d + theta_d) / L
 * for d < dims) */
static void bl_put(mcf_kpath *p, const mcf_lattice *lat, const long *n, const double *theta)
{
    double *K = p->k + 3 * p->points;
    for (int d = 0; d < 3; d++)
        K[d] = d < lat->dim ? (2.0 * bl_pi * (double)n[d] + (theta ? theta[d] : 0.0)) /
                                  (double)lat->L
                            : 0.0;
    double s = 0.0;
    if (p->points) {
        const double *J = K - 3;
        s = p->s[p->points - 1] + sqrt((K[0] - J[0]) * (K[0] - J[0]) +
                                       (K[1] - J[1]) * (K[1] - J[1]) +
                                       (K[2] - J[2]) * (K[2] - J[2]));
    }
    p->s[p->points++] = s;
}

/* the corners named in text (at most cap) into idx; *nc of them */
static int bl_parse(const char *text, const bl_corner *tab, const char *kind, size_t cap,
                    size_t *idx, size_t *nc)
{
    *nc = 0;
    for (const char *q = text; *q;) {
        while (*q && (isspace((unsigned char)*q) || *q == '-'))
            q++;
        if (!*q)
            break;
        size_t len = 0;
        while (q[len] && !isspace((unsigned char)q[len]) && q[len] != '-')
            len++;
        size_t j = 0;
        while (tab[j].name && !bl_same(q, len, tab[j].name))
            j++;
        if (!tab[j].name) {
            char names[64] = "";
            for (size_t i = 0; tab[i].name; i++)
                strcat(strcat(names, i ? " " : ""), tab[i].name);
            return mcf_fail(MCF_EINVAL, "k path \"%s\": no point '%.*s' on the %s lattice "
                            "(its points: %s; or all, every wave vector of the torus)", text,
                            (int)len, q, kind, names);
        }
        if (*nc == cap)
            return mcf_fail(MCF_EINVAL, "k path \"%s\": more than %zu points", text, cap);
        idx[(*nc)++] = j;
        q += len;
    }
    if (*nc < 2)
        return mcf_fail(MCF_EINVAL, "k path \"%s\": at least two points (e.g. \"G X\"), or all",
                        text);
    return MCF_OK;
}

/* every wave vector of the torus, n_0 fastest; s the index.  bcc: n_0 runs over 2 L (its 2 L^3
 * sites have 2 L^3 Bloch states: K and K + (2 pi, 0, 0) differ, the reciprocal lattice being
 * fcc's 2 pi (1, 1, 0) and its kin) */
static int bl_all(const mcf_lattice *lat, const double *theta, mcf_kpath *p)
{
    const size_t first = (size_t)lat->L * (lat->kind == MCF_LATTICE_BCC ? 2u : 1u);
    size_t nk = first;
    for (int d = 1; d < lat->dim; d++)
        nk *= (size_t)lat->L;
    if (!(p->k = malloc(3 * nk * sizeof *p->k)) || !(p->s = malloc(nk * sizeof *p->s)))
        return mcf_fail(MCF_ENOMEM, "k path: out of memory");
    for (size_t q = 0; q < nk; q++) {
        long n[3] = {(long)(q % first), 0, 0};
        size_t r = q / first;
        for (int d = 1; d < lat->dim; d++) {
            n[d] = (long)(r % (size_t)lat->L);
            r /= (size_t)lat->L;
        }
        bl_put(p, lat, n, theta);
        p->s[q] = (double)q;
    }
    return MCF_OK;
}

int mcf_kpath_create(const mcf_lattice *lat, const char *text, const double *theta,
                     mcf_kpath **out)
{
    if (!out || !lat)
        return mcf_fail(MCF_EINVAL, "k path: NULL lattice or output");
    *out = NULL;
    const char *def;
    const bl_corner *tab = bl_corners(lat->kind, &def);
    if (!tab || lat->boundary != MCF_BOUNDARY_PERIODIC || lat->L < 2)
        return mcf_fail(MCF_EINVAL, "k path: wave vectors need a periodic chain, square, cubic "
                        "or bcc lattice (%s, %s boundaries, L = %ld)",
                        mcf_lattice_kind_name(lat->kind), mcf_boundary_name(lat->boundary),
                        lat->L);
    mcf_kpath *p = calloc(1, sizeof *p);
    if (!p)
        return mcf_fail(MCF_ENOMEM, "k path: out of memory");
    int rc = MCF_OK;
    if (!text || !*text || bl_same(text, strlen(text), "auto"))
        text = def;
    if (bl_same(text, strlen(text), "all")) {
        rc = bl_all(lat, theta, p);
    } else {
        size_t idx[MCF_KPATH_CORNERS], nc;
        rc = bl_parse(text, tab, mcf_lattice_kind_name(lat->kind), MCF_KPATH_CORNERS, idx, &nc);
        /* n of a corner: c pi = 2 pi n / L, n = c L / 2 (rounded down for odd L) */
        size_t nk = 1;
        long prev[3] = {0, 0, 0};
        for (size_t i = 0; !rc && i < nc; i++) {
            long n[3], steps = 0;
            for (int d = 0; d < 3; d++) {
                n[d] = d < lat->dim ? (long)tab[idx[i]].c[d] * lat->L / 2 : 0;
                if (i && labs(n[d] - prev[d]) > steps)
                    steps = labs(n[d] - prev[d]);
            }
            if (i && steps == 0)
                rc = mcf_fail(MCF_EINVAL, "k path \"%s\": %s and %s are the same wave vector "
                              "on L = %ld", text, tab[idx[i - 1]].name, tab[idx[i]].name, lat->L);
            nk += (size_t)steps;
            memcpy(prev, n, sizeof prev);
        }
        if (!rc && (!(p->k = malloc(3 * nk * sizeof *p->k)) ||
                    !(p->s = malloc(nk * sizeof *p->s)) ||
                    !(p->corner = malloc(nc * sizeof *p->corner))))
            rc = mcf_fail(MCF_ENOMEM, "k path: out of memory");
        for (size_t i = 0; !rc && i < nc; i++) {
            long n[3];
            for (int d = 0; d < 3; d++)
                n[d] = d < lat->dim ? (long)tab[idx[i]].c[d] * lat->L / 2 : 0;
            long steps = 0;
            for (int d = 0; i && d < 3; d++)
                if (labs(n[d] - prev[d]) > steps)
                    steps = labs(n[d] - prev[d]);
            /* the points p + round(j (q - p) / steps), j = 1..steps: on the segment where it
               runs through allowed wave vectors, the nearest ones otherwise */
            for (long j = i ? 1 : 0; j <= steps; j++) {
                long m[3];
                for (int d = 0; d < 3; d++)
                    m[d] = prev[d] + (steps ? (long)lround((double)(n[d] - prev[d]) *
                                                           (double)j / (double)steps)
                                            : 0);
                bl_put(p, lat, i ? m : n, theta);
            }
            p->corner[i] = p->points - 1;
            snprintf(p->label[i], sizeof p->label[i], "%s", tab[idx[i]].name);
            memcpy(prev, n, sizeof prev);
        }
        p->corners = rc ? 0 : nc;
    }
    if (rc) {
        mcf_kpath_destroy(p);
        return rc;
    }
    *out = p;
    return MCF_OK;
}

int mcf_bloch_vector(const mcf_lattice *lat, const double *K, size_t orbitals, size_t orbital,
                     const double *w, double *v)
{
    if (!lat || !K || !v || orbitals < 1 || orbital >= orbitals)
        return mcf_fail(MCF_EINVAL, "Bloch vector: orbital %zu of %zu, or a NULL array",
                        orbital, orbitals);
    const size_t N = lat->sites, dim = N * orbitals;
    const double norm = 1.0 / sqrt((double)N);
    memset(v, 0, 2 * dim * sizeof *v);
    for (size_t i = 0; i < N; i++) {
        const double *r = lat->positions + 3 * i;
        const double ph = K[0] * r[0] + K[1] * r[1] + K[2] * r[2];
        const double c = norm * cos(ph), s = norm * sin(ph);
        const double wr = w ? w[2 * i] : 1.0, wi = w ? w[2 * i + 1] : 0.0;
        double *x = v + 2 * (i * orbitals + orbital);
        x[0] = wr * c - wi * s;
        x[1] = wr * s + wi * c;
    }
    return MCF_OK;
}
