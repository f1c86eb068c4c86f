/* kpm_reconstruct.c — densities from stored Chebyshev moments (kpm_core.h, "reconstruction
 * from stored moments"): a kernel by name, the density at any energies by Clenshaw's
 * recurrence, and the reconstruct() op of mcf/fermion.h that `mcf dos` calls long after the
 * run (no workspace, host arithmetic only, so kpm and kpm-cuda give the same bits).  The
 * FFT on the Chebyshev nodes is kpm_dct.c's: with the run's kernel and grid this gives
 * back the run's own DOS to rounding. */
#include "kpm_core.h"
#include "kpm_ops.h"

#include "mcf/error.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const double kpm_pi = 3.14159265358979323846;

void kpm_density_at(const double *mu, const double *g, size_t M, double a, double b,
                    const double *E, size_t points, double *out)
{
    for (size_t i = 0; i < points; i++) {
        const double x = (E[i] - b) / a;
        if (!(fabs(x) < 1.0)) {
            out[i] = 0.0;
            continue;
        }
        /* Clenshaw: s = sum_{n>=1} c_n T_n(x), c_n = 2 g_n mu_n; b_k = c_k + 2 x b_{k+1} -
         * b_{k+2}, s = x b_1 - b_2 (the n = 0 term added apart) */
        double b1 = 0.0, b2 = 0.0;
        for (size_t n = M; n-- > 1;) {
            const double t = 2.0 * g[n] * mu[n] + 2.0 * x * b1 - b2;
            b2 = b1;
            b1 = t;
        }
        const double s = g[0] * mu[0] + x * b1 - b2;
        out[i] = s / (kpm_pi * a * sqrt((1.0 - x) * (1.0 + x)));
    }
}

int kpm_kernel_parse(const char *text, kpm_kernel *k, double *lambda)
{
    if (!strcmp(text, "jackson")) {
        *k = KPM_KERNEL_JACKSON;
        return MCF_OK;
    }
    if (!strcmp(text, "none")) {
        *k = KPM_KERNEL_NONE;
        return MCF_OK;
    }
    if (!strcmp(text, "lorentz")) {
        *k = KPM_KERNEL_LORENTZ;
        return MCF_OK;
    }
    if (!strncmp(text, "lorentz:", 8)) {
        char *end;
        errno = 0;
        const double l = strtod(text + 8, &end);
        if (end != text + 8 && !*end && errno == 0 && l > 0 && isfinite(l)) {
            *k = KPM_KERNEL_LORENTZ;
            *lambda = l;
            return MCF_OK;
        }
        return mcf_fail(MCF_EINVAL, "kernel '%s': lambda after 'lorentz:' must be a finite "
                        "number > 0 (e.g. lorentz:4)", text);
    }
    return mcf_fail(MCF_EINVAL, "kernel '%s' is unknown; use jackson, lorentz, "
                    "lorentz:LAMBDA or none", text);
}

/* The kernel: by name, or params' kernel and lambda */
static int reconstruct_kernel(const char *name, const mcf_params *params, const char *kernel,
                              kpm_kernel *k, double *lambda)
{
    int rc;
    if (params) {
        kpm_config c;
        int extrapolate;
        if ((rc = kpm_config_read(params, &c, &extrapolate)))
            return mcf_fail_prefix(rc, "%s: reconstruct: the run's [evaluator] values",
                                   name);
        *k = c.kernel;
        *lambda = c.lambda;
    } else {
        *k = KPM_KERNEL_JACKSON;
        *lambda = KPM_DEFAULT_LAMBDA;
        if (!kernel)
            return mcf_fail(MCF_EINVAL, "%s: reconstruct: neither a kernel nor the run's "
                            "[evaluator] values were given", name);
    }
    if (kernel && (rc = kpm_kernel_parse(kernel, k, lambda)))
        return mcf_fail_prefix(rc, "%s", name);
    return MCF_OK;
}

int kpm_ops_reconstruct(const char *name, const mcf_params *params, const char *kernel,
                        size_t M, size_t sets, const double *mu, double a, double b,
                        size_t points, const double *E, double *grid, double *out)
{
    if (M < 1 || points < 1)
        return mcf_fail(MCF_EINVAL, "%s: reconstruct: %zu moments and %zu points; both must "
                        "be >= 1", name, M, points);
    if (!(a > 0) || !isfinite(a) || !isfinite(b))
        return mcf_fail(MCF_EINVAL, "%s: reconstruct: the scaling a = %g, b = %g must be "
                        "finite with a > 0", name, a, b);
    if (sets && (!mu || !out))
        return mcf_fail(MCF_EINVAL, "%s: reconstruct: the %s array is NULL", name,
                        !mu ? "moment" : "output");
    for (size_t q = 0; q < sets * M; q++)
        if (!isfinite(mu[q]))
            return mcf_fail(MCF_EINVAL, "%s: reconstruct: moment %zu of set %zu is %g, not "
                            "finite", name, q % M, q / M, mu[q]);
    kpm_kernel k;
    double lambda;
    int rc = reconstruct_kernel(name, params, kernel, &k, &lambda);
    if (rc)
        return rc;
    double *g = malloc(M * sizeof *g);
    double *nodes = !E ? malloc(points * sizeof *nodes) : NULL;
    kpm_dct *d = NULL;
    if (!g || (!E && !nodes)) {
        free(g);
        free(nodes);
        return mcf_fail(MCF_ENOMEM, "%s: reconstruct: out of memory for %zu points", name,
                        points);
    }
    kpm_kernel_coefficients(k, lambda, M, g);
    if (!E) {
        /* the grid of kpm_dct (its nodes, ascending), whichever way it is summed */
        for (size_t i = 0; i < points; i++)
            nodes[points - 1 - i] =
                a * cos(kpm_pi * ((double)i + 0.5) / (double)points) + b;
        if (points >= M && !(rc = kpm_dct_create(points, M, &d))) {
            kpm_dct_energies(d, a, b, nodes);
            for (size_t s = 0; s < sets && !rc; s++)
                rc = kpm_dct_density(d, mu + s * M, g, M, a, out + s * points);
        } else if (!rc) {
            for (size_t s = 0; s < sets; s++)
                kpm_density_at(mu + s * M, g, M, a, b, nodes, points, out + s * points);
        }
        if (!rc && grid)
            memcpy(grid, nodes, points * sizeof *grid);
    } else {
        for (size_t s = 0; s < sets; s++)
            kpm_density_at(mu + s * M, g, M, a, b, E, points, out + s * points);
    }
    kpm_dct_destroy(d);
    free(g);
    free(nodes);
    return rc ? mcf_fail_prefix(rc, "%s: reconstruct", name) : MCF_OK;
}
