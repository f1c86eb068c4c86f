/* kbe_backend.h — the propagator behind the dynamics evaluator of kbe_plugin.c, so that one
 * plugin source serves both propagators of a kbe_spec: the CPU's (kbe_backend_cpu.c, plugin
 * "kbe") and the GPU's (cuda/kbe-cuda/kbe_cuda_backend.c, plugin "kbe-cuda").  Each plugin
 * links one table; every accessor returns MCF_OK or an error already set.  Not for the SDK. */
#ifndef MCF_KBE_BACKEND_H
#define MCF_KBE_BACKEND_H

#include "kbe_core.h"

#include <complex.h>
#include <stddef.h>

typedef struct kbe_backend {
    const char *name;   /* the plugin's name, for messages */
    int slabs;          /* takes kbe_spec.gather (k over ranks); 0: every k on every process */
    int max_order;      /* the highest order it steps */
    int (*create)(const kbe_spec *s, double E0, double U0, void **out);
    void (*destroy)(void *p);
    int (*step)(void *p, double E_next, double U_next);
    size_t (*steps_done)(const void *p);
    int (*residual)(void *p, double *r);
    int (*green)(void *p, int lesser, size_t i, size_t j, double complex *g);
    int (*density)(void *p, size_t n, double complex *rho);
    int (*energies)(void *p, size_t n, double *e_band, double *e_field, double *e_int);
    size_t (*row_bytes)(const void *p, size_t n);
    int (*row_write)(const void *p, size_t n, void *buf);
    int (*row_read)(void *p, size_t n, const void *buf);
} kbe_backend;

/* the plugin's propagator (one definition per plugin) */
extern const kbe_backend kbe_backend_of_plugin;

#endif
