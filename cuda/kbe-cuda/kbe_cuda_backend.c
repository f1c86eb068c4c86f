/* kbe_cuda_backend.c — kbe-cuda's propagator (kbe_cuda.h) as the backend (plugins/kbe/
 * kbe_backend.h) of the plugin "kbe-cuda", which is plugins/kbe/kbe_plugin.c built over it:
 * orders 2 .. 5, every k on every process under MPI (no slabs yet). */
#include "kbe_backend.h"
#include "kbe_cuda.h"

#include "mcf/error.h"

static int gpu_create(const kbe_spec *s, double E0, double U0, void **out)
{
    kbcu *w = NULL;
    const int rc = kbcu_create(s, E0, U0, &w);
    *out = w;
    return rc;
}

static void gpu_destroy(void *p) { kbcu_destroy(p); }

static int gpu_step(void *p, double E, double U) { return kbcu_step(p, E, U); }

static size_t gpu_steps_done(const void *p) { return kbcu_steps_done(p); }

static int gpu_residual(void *p, double *r) { return kbcu_corrector_residual(p, r); }

static int gpu_green(void *p, int lesser, size_t i, size_t j, double complex *g)
{
    return kbcu_green(p, lesser, i, j, g);
}

static int gpu_density(void *p, size_t n, double complex *rho) { return kbcu_density(p, n, rho); }

static int gpu_energies(void *p, size_t n, double *e_band, double *e_field, double *e_int)
{
    return kbcu_energies(p, n, e_band, e_field, e_int);
}

static size_t gpu_row_bytes(const void *p, size_t n) { return kbcu_row_bytes(p, n); }

static int gpu_row_write(const void *p, size_t n, void *buf) { return kbcu_row_write(p, n, buf); }

static int gpu_row_read(void *p, size_t n, const void *buf) { return kbcu_row_read(p, n, buf); }

const kbe_backend kbe_backend_of_plugin = {
    .name = "kbe-cuda",
    .slabs = 0,
    .max_order = KBE_GREGORY_MAX_ORDER,
    .create = gpu_create,
    .destroy = gpu_destroy,
    .step = gpu_step,
    .steps_done = gpu_steps_done,
    .residual = gpu_residual,
    .green = gpu_green,
    .density = gpu_density,
    .energies = gpu_energies,
    .row_bytes = gpu_row_bytes,
    .row_write = gpu_row_write,
    .row_read = gpu_row_read,
};
