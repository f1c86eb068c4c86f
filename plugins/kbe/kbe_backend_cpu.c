/* kbe_backend_cpu.c — the CPU's propagator (kbe_core.h) as the plugin "kbe"'s backend
 * (kbe_backend.h): kbe_core's accessors, which cannot fail once their arguments are checked,
 * with the table's signatures. */
#include "kbe_backend.h"

#include "mcf/error.h"

static int cpu_create(const kbe_spec *s, double E0, double U0, void **out)
{
    kbe *w = NULL;
    const int rc = kbe_create(s, E0, U0, &w);
    *out = w;
    return rc;
}

static void cpu_destroy(void *p) { kbe_destroy(p); }

static int cpu_step(void *p, double E, double U) { return kbe_step(p, E, U); }

static size_t cpu_steps_done(const void *p) { return kbe_steps_done(p); }

static int cpu_residual(void *p, double *r)
{
    *r = kbe_corrector_residual(p);
    return MCF_OK;
}

static int cpu_green(void *p, int lesser, size_t i, size_t j, double complex *g)
{
    kbe_green(p, lesser, i, j, g);
    return MCF_OK;
}

static int cpu_density(void *p, size_t n, double complex *rho)
{
    kbe_density(p, n, rho);
    return MCF_OK;
}

static int cpu_energies(void *p, size_t n, double *e_band, double *e_field, double *e_int)
{
    kbe_energies(p, n, e_band, e_field, e_int);
    return MCF_OK;
}

static size_t cpu_row_bytes(const void *p, size_t n) { return kbe_row_bytes(p, n); }

static int cpu_row_write(const void *p, size_t n, void *buf) { return kbe_row_write(p, n, buf); }

static int cpu_row_read(void *p, size_t n, const void *buf) { return kbe_row_read(p, n, buf); }

const kbe_backend kbe_backend_of_plugin = {
    .name = "kbe",
    .slabs = 1,
    .max_order = KBE_GREGORY_MAX_ORDER,
    .create = cpu_create,
    .destroy = cpu_destroy,
    .step = cpu_step,
    .steps_done = cpu_steps_done,
    .residual = cpu_residual,
    .green = cpu_green,
    .density = cpu_density,
    .energies = cpu_energies,
    .row_bytes = cpu_row_bytes,
    .row_write = cpu_row_write,
    .row_read = cpu_row_read,
};
