/* gauge.c — a program of one's own against the installed SDK (test_install.sh, step 5):
 * hoppings factorized over a pure gauge field, as a newcomer would write them from
 * mcf/hamiltonian_factors.h alone.
 *
 * A field a_i = e^{i theta_i} (rank 1) gives H_ij = -t e^{i (theta_j - theta_i)}, which is
 * D^+ H_0 D with D = diag(a) and H_0 the uniform hopping -t: for any vector v,
 * H (D^+ v) = D^+ (H_0 v).  Both sides come from mcf_hamiltonian_apply (exact up to the
 * rounding of six products a row: 1e-14 is 50 ulps of the largest entry).  Also: the
 * Hamiltonian passes mcf_hamiltonian_check, and a set() of a bond is refused with a message
 * naming set_field.  Exit status 0 when all holds. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mcf/mcf.h>

int main(void)
{
    mcf_lattice *lat = NULL;
    mcf_hamiltonian *h = NULL, *h0 = NULL;
    const double t = 1.0;
    if (mcf_lattice_create(MCF_LATTICE_SQUARE, 6, MCF_BOUNDARY_PERIODIC, &lat) ||
        mcf_hamiltonian_create(lat->sites, 1, lat->coordination, &h) ||
        mcf_hamiltonian_create(lat->sites, 1, lat->coordination, &h0) ||
        mcf_hamiltonian_factorize(h, lat, -t, 1) || mcf_hamiltonian_factorize(h0, lat, -t, 0)) {
        fprintf(stderr, "gauge: %s\n", mcf_last_error());
        return 1;
    }
    const size_t n = lat->sites;
    double *th = malloc(n * sizeof *th), *v = malloc(4 * n * sizeof *v);
    double *w = malloc(8 * n * sizeof *w);
    for (size_t i = 0; i < n; i++) {
        th[i] = 0.7 * (double)i + 0.3 * (double)(i * i % 11);
        const double a[2] = {cos(th[i]), sin(th[i])};
        if (mcf_hamiltonian_set_field(h, i, a)) {
            fprintf(stderr, "gauge: %s\n", mcf_last_error());
            return 1;
        }
    }
    if (mcf_hamiltonian_check(h)) {
        fprintf(stderr, "gauge: check: %s\n", mcf_last_error());
        return 1;
    }
    /* v (re, im), u = D^+ v; left = H u, right = D^+ (H_0 v) */
    double *vr = v, *vi = v + n, *ur = v + 2 * n, *ui = v + 3 * n;
    double *lr = w, *li = w + n, *rr = w + 2 * n, *ri = w + 3 * n;
    for (size_t i = 0; i < n; i++) {
        vr[i] = sin(1.3 * (double)i);
        vi[i] = cos(0.4 * (double)i);
        const double c = cos(th[i]), s = -sin(th[i]);
        ur[i] = c * vr[i] - s * vi[i];
        ui[i] = c * vi[i] + s * vr[i];
    }
    mcf_hamiltonian_apply(h, ur, ui, 1.0, 0.0, lr, li);
    mcf_hamiltonian_apply(h0, vr, vi, 1.0, 0.0, rr, ri);
    double worst = 0.0;
    for (size_t i = 0; i < n; i++) {
        const double c = cos(th[i]), s = -sin(th[i]);
        const double xr = c * rr[i] - s * ri[i], xi = c * ri[i] + s * rr[i];
        worst = fmax(worst, fmax(fabs(xr - lr[i]), fabs(xi - li[i])));
    }
    int ok = worst < 1e-14;
    printf("gauge: H D^+ v = D^+ H_0 v to %.1e on a 6 x 6 torus\n", worst);
    if (mcf_hamiltonian_set(h, 0, 1, -2.0, 0.0) == MCF_OK ||
        !strstr(mcf_last_error(), "set_field")) {
        printf("gauge: set() of a bond was not refused with a hint to set_field: %s\n",
               mcf_last_error());
        ok = 0;
    }
    free(th);
    free(v);
    free(w);
    mcf_hamiltonian_destroy(h);
    mcf_hamiltonian_destroy(h0);
    mcf_lattice_destroy(lat);
    return ok ? 0 : 1;
}
