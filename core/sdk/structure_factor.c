/* structure_factor.c — the structure factor at the smallest wave vector of a periodic
 * lattice (mcf/lattice.h: mcf_kmin), what a model measures as its m2_kmin (the order_kmin
 * role of mcf/model.h, for the core's xi_over_l).  Per axis the field is summed over the
 * planes perpendicular to it (a site's coordinate in half cells, so bcc's body centres get
 * their own planes), then over the 2L phases e^{i pi h / L} = e^{i k_min x}: O(N) a call. */
#include "mcf/error.h"
#include "mcf/lattice.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct mcf_kmin {
    size_t n, dim, comps, H; /* sites, axes, components, planes per axis (2L) */
    int32_t *plane;          /* n x dim: the site's coordinate along each axis, half cells */
    double *phase;           /* H x 2: cos and sin of k_min x at x = h / 2 */
    double *sum;             /* H x comps scratch: the field summed over one plane */
};

void mcf_kmin_destroy(mcf_kmin *k)
{
    if (!k)
        return;
    free(k->plane);
    free(k->phase);
    free(k->sum);
    free(k);
}

int mcf_kmin_create(const mcf_lattice *lat, int components, mcf_kmin **out)
{
    *out = NULL;
    if (!lat || components < 1 || components > 8)
        return mcf_fail(MCF_EINVAL, "mcf_kmin_create: %d field components (1..8)%s",
                        components, lat ? "" : " and no lattice");
    mcf_kmin *k = calloc(1, sizeof *k);
    const long L = lat->L;
    if (k) {
        k->n = lat->sites;
        k->dim = (size_t)lat->dim;
        k->comps = (size_t)components;
        k->H = 2 * (size_t)L;
        k->plane = malloc(k->n * k->dim * sizeof *k->plane);
        k->phase = malloc(2 * k->H * sizeof *k->phase);
        k->sum = malloc(k->H * k->comps * sizeof *k->sum);
    }
    if (!k || !k->plane || !k->phase || !k->sum) {
        mcf_kmin_destroy(k);
        return mcf_fail(MCF_ENOMEM, "mcf_kmin_create: out of memory for %zu sites",
                        lat->sites);
    }
    for (size_t i = 0; i < k->n; i++)
        for (size_t a = 0; a < k->dim; a++) {
            const long h = lround(2.0 * lat->positions[3 * i + a]) % (2 * L);
            k->plane[i * k->dim + a] = (int32_t)(h < 0 ? h + 2 * L : h);
        }
    for (size_t h = 0; h < k->H; h++) {
        const double kx = 3.14159265358979323846 * (double)h / (double)L;
        k->phase[2 * h] = cos(kx);
        k->phase[2 * h + 1] = sin(kx);
    }
    *out = k;
    return MCF_OK;
}

double mcf_kmin_structure_factor(mcf_kmin *k, const double *field)
{
    const size_t H = k->H, d = k->dim, nc = k->comps;
    double F = 0.0;
    for (size_t a = 0; a < d; a++) {
        memset(k->sum, 0, H * nc * sizeof *k->sum);
        for (size_t i = 0; i < k->n; i++) {
            double *p = k->sum + nc * (size_t)k->plane[i * d + a];
            const double *f = field + nc * i;
            for (size_t q = 0; q < nc; q++)
                p[q] += f[q];
        }
        for (size_t q = 0; q < nc; q++) {
            double re = 0.0, im = 0.0;
            for (size_t h = 0; h < H; h++) {
                re += k->sum[nc * h + q] * k->phase[2 * h];
                im += k->sum[nc * h + q] * k->phase[2 * h + 1];
            }
            F += re * re + im * im;
        }
    }
    const double N = (double)k->n;
    return F / ((double)d * N * N);
}
