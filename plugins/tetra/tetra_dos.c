/* tetra_dos.c — sums over the tetrahedra of a k grid (tetra.h): the DOS, the number of
 * states N(E), the orbital-resolved DOS, the band energy and the Fermi level.
 *
 * With v = 1 / (6 n_k) the volume of a tetrahedron T (as a fraction of the zone) and the
 * single-tetrahedron quantities of tetra_weights.c (corner energies of band n sorted):
 *
 *   N(E)        = v sum_{T,n} n_T(E),          rho(E) = v sum_{T,n} D_T(E),
 *   rho_a(E)    = v sum_{T,n} sum_i dw_i(E) |<a|n,k_i>|^2      (matrix elements interpolated
 *                                                               linearly like the bands),
 *   electrons   = v sum_{T,n} sum_i w_i(E_F),  energy = v sum_{T,n} sum_i w_i(E_F) eps_n(k_i).
 *
 * Energies where a tetrahedron's band lies wholly below add v to N and nothing else; the
 * DOS loop sorts the energies once and visits, per tetrahedron, only those inside its
 * range (binary search), so a curve of many points costs little more than one point.
 * Sums run over TETRA_CHUNKS fixed chunks of cells with their own partial sums, added in
 * chunk order (tetra.h, "Threads and reproducibility"). */
#include "tetra_impl.h"

#include "mcf/error.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* corner energies of band n in tetrahedron t of cell c, sorted ascending, with their k */
static void corners_sorted(const tetra_grid *g, size_t c, unsigned t, size_t n, double e[4],
                           size_t k[4])
{
    tetra_grid_corners(g, c, t, k);
    for (int i = 0; i < 4; i++)
        e[i] = g->eps[k[i] * g->bands + n];
    for (int i = 1; i < 4; i++)
        for (int j = i; j > 0 && e[j] < e[j - 1]; j--) {
            const double te = e[j];
            const size_t tk = k[j];
            e[j] = e[j - 1];
            k[j] = k[j - 1];
            e[j - 1] = te;
            k[j - 1] = tk;
        }
}

static size_t chunk_count(const tetra_grid *g)
{
    return g->nk < TETRA_CHUNKS ? g->nk : TETRA_CHUNKS;
}

/* ---- DOS curves ---------------------------------------------------------------------- */

typedef struct energy_at {
    double E;
    size_t i;
} energy_at;

static int energy_cmp(const void *pa, const void *pb)
{
    const energy_at *a = pa, *b = pb;
    return a->E < b->E ? -1 : a->E > b->E;
}

/* first index of the sorted energies with E > x (strict) or E >= x */
static size_t first_above(const energy_at *s, size_t m, double x, int strict)
{
    size_t lo = 0, hi = m;
    while (lo < hi) {
        const size_t mid = lo + (hi - lo) / 2;
        if (strict ? s[mid].E > x : s[mid].E >= x)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

/* one chunk's partial sums: dos[m], idos[m], tail[m + 1] (tetrahedra wholly below), orb */
static void dos_chunk(const tetra_grid *g, const energy_at *s, size_t m, int bloechl,
                      size_t c0, size_t c1, double *dos, double *idos, double *tail,
                      double *orb)
{
    const size_t nb = g->bands;
    for (size_t c = c0; c < c1; c++)
        for (unsigned t = 0; t < 6; t++)
            for (size_t n = 0; n < nb; n++) {
                double e[4];
                size_t k[4];
                corners_sorted(g, c, t, n, e, k);
                const size_t lo = first_above(s, m, e[0], 1), hi = first_above(s, m, e[3], 0);
                tail[hi] += 1.0;
                for (size_t j = lo; j < hi; j++) {
                    tetra_point pt;
                    tetra_point_at(e, s[j].E, bloechl, &pt);
                    dos[j] += pt.d;
                    idos[j] += pt.n;
                    if (!orb)
                        continue;
                    for (int i = 0; i < 4; i++) {
                        const double *wk = g->weight + (k[i] * nb + n) * nb;
                        for (size_t a = 0; a < nb; a++)
                            orb[j * nb + a] += pt.dw[i] * wk[a];
                    }
                }
            }
}

int tetra_dos(const tetra_grid *g, size_t n_E, const double *E, int bloechl, double *dos,
              double *idos, double *orbital_dos)
{
    if (n_E == 0)
        return MCF_OK;
    if (!g || !E)
        return mcf_fail(MCF_EINVAL, "tetra: DOS without a grid or without energies");
    if (orbital_dos && !g->weight)
        return mcf_fail(MCF_EINVAL, "tetra: the orbital DOS needs the orbital weights; create "
                        "the grid with with_weights = 1");
    for (size_t i = 0; i < n_E; i++)
        if (!isfinite(E[i]))
            return mcf_fail(MCF_EINVAL, "tetra: energy %zu of the DOS is not finite", i);
    const size_t nb = g->bands, nc = chunk_count(g);
    const size_t per = 3 * n_E + 1 + (orbital_dos ? n_E * nb : 0);
    energy_at *s = malloc(n_E * sizeof *s);
    double *part = calloc(nc * per, sizeof *part);
    if (!s || !part) {
        free(s);
        free(part);
        return mcf_fail(MCF_ENOMEM, "tetra: out of memory for a DOS of %zu energies", n_E);
    }
    for (size_t i = 0; i < n_E; i++)
        s[i] = (energy_at){E[i], i};
    qsort(s, n_E, sizeof *s, energy_cmp);
#pragma omp parallel for schedule(dynamic, 1)
    for (size_t ch = 0; ch < nc; ch++) {
        double *p = part + ch * per;
        dos_chunk(g, s, n_E, bloechl, g->nk * ch / nc, g->nk * (ch + 1) / nc, p, p + n_E,
                  p + 2 * n_E, orbital_dos ? p + 3 * n_E + 1 : NULL);
    }
    /* add the chunks in order; N gets the tetrahedra wholly below, counted at their index */
    const double v = 1.0 / (6.0 * (double)g->nk);
    double below = 0.0;
    for (size_t j = 0; j < n_E; j++) {
        double d = 0.0, n = 0.0;
        for (size_t ch = 0; ch < nc; ch++) {
            const double *p = part + ch * per;
            d += p[j];
            n += p[n_E + j];
            below += p[2 * n_E + j];
        }
        const size_t i = s[j].i;
        if (dos)
            dos[i] = v * d;
        if (idos)
            idos[i] = v * (n + below);
        if (!orbital_dos)
            continue;
        for (size_t a = 0; a < nb; a++) {
            double o = 0.0;
            for (size_t ch = 0; ch < nc; ch++)
                o += part[ch * per + 3 * n_E + 1 + j * nb + a];
            orbital_dos[i * nb + a] = v * o;
        }
    }
    free(s);
    free(part);
    return MCF_OK;
}

/* ---- integrals up to E_F ------------------------------------------------------------- */

static void occupied(const tetra_grid *g, double E_F, int bloechl, double *electrons,
                     double *energy)
{
    const size_t nc = chunk_count(g), nb = g->bands;
    double part[2 * TETRA_CHUNKS] = {0};
#pragma omp parallel for schedule(dynamic, 1)
    for (size_t ch = 0; ch < nc; ch++) {
        double ne = 0.0, en = 0.0;
        for (size_t c = g->nk * ch / nc; c < g->nk * (ch + 1) / nc; c++)
            for (unsigned t = 0; t < 6; t++)
                for (size_t n = 0; n < nb; n++) {
                    double ebuf[4];
                    const double *e = ebuf;
                    if (g->tet_e)
                        e = g->tet_e + 4 * ((c * 6 + t) * nb + n);
                    else {
                        size_t k[4];
                        corners_sorted(g, c, t, n, ebuf, k);
                    }
                    if (E_F <= e[0])
                        continue;
                    tetra_point pt;
                    tetra_point_at(e, E_F, bloechl, &pt);
                    ne += pt.n;
                    for (int i = 0; i < 4; i++)
                        en += pt.w[i] * e[i];
                }
        part[2 * ch] = ne;
        part[2 * ch + 1] = en;
    }
    const double v = 1.0 / (6.0 * (double)g->nk);
    double ne = 0.0, en = 0.0;
    for (size_t ch = 0; ch < nc; ch++) {
        ne += part[2 * ch];
        en += part[2 * ch + 1];
    }
    *electrons = v * ne;
    *energy = v * en;
}

int tetra_band_energy(const tetra_grid *g, double E_F, int bloechl, double *electrons,
                      double *energy)
{
    if (!g || !isfinite(E_F))
        return mcf_fail(MCF_EINVAL, "tetra: the band energy needs a grid and a finite Fermi "
                        "level");
    double ne, en;
    occupied(g, E_F, bloechl, &ne, &en);
    if (electrons)
        *electrons = ne;
    if (energy)
        *energy = en;
    return MCF_OK;
}

/* ---- Fermi level: tetra_fermi_search (tetra_fermi.c) over this grid's N(E) and rho(E) --- */

static int grid_count(void *ctx, double E, double *N)
{
    double en;
    occupied(ctx, E, 0, N, &en);
    return MCF_OK;
}

static int grid_density(void *ctx, double E, double *rho)
{
    return tetra_dos(ctx, 1, &E, 0, rho, NULL, NULL);
}

int tetra_fermi_level(const tetra_grid *g, double electrons_per_cell, double *E_F)
{
    if (!g || !E_F)
        return mcf_fail(MCF_EINVAL, "tetra: the Fermi level needs a grid and an output");
    const tetra_counter c = {(void *)g, grid_count, grid_density, (double)g->bands, g->emin,
                             g->emax};
    return tetra_fermi_search(&c, electrons_per_cell, E_F);
}
