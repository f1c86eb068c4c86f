/* kbe_cuda.h — the two-time Kadanoff-Baym propagator of plugins/kbe (kbe_core.h) on the GPU:
 * the same spec, the same step, the same accessors, G^< and G^> resident in device memory
 * (kbe_cuda_step.cu; orders 3 .. 5: the CPU's start block, then kbe_cuda_bdf.cu).  What it
 * does not have yet is refused at creation with the reason: a self-energy given by the
 * caller (use the CPU's kbe for it).  The
 * static library mcf_kbe_cuda, for the plugin and tests/gpu; not part of the SDK. */
#ifndef MCF_KBE_CUDA_H
#define MCF_KBE_CUDA_H

#include "kbe_core.h"

#include <complex.h>
#include <stddef.h>

typedef struct kbcu kbcu;

/* 1 when a usable CUDA device is there, 0 if not; one line into why either way. */
int kbcu_probe(char *why, size_t len);
/* As kbe_create (the same checks, MCF_EDEVICE / MCF_ENOMEM for the device's reasons). */
int kbcu_create(const kbe_spec *spec, double E0, double U0, kbcu **out);
void kbcu_destroy(kbcu *w);
/* As kbe_step. */
int kbcu_step(kbcu *w, double E_next, double U_next);
size_t kbcu_steps_done(const kbcu *w);
/* As kbe_corrector_residual (waits for the device). */
int kbcu_corrector_residual(kbcu *w, double *r);
/* As kbe_green: G^< (lesser) or G^> at (t_i, t_j), any i, j <= the steps taken, into
 * g[nk x 4] (waits for the device). */
int kbcu_green(kbcu *w, int lesser, size_t i, size_t j, double complex *g);
/* As kbe_energies (waits for the device). */
int kbcu_energies(kbcu *w, size_t n, double *e_band, double *e_field, double *e_int);
/* As kbe_density: rho_k(t_n) into rho[nk x 4] (waits for the device). */
int kbcu_density(kbcu *w, size_t n, double complex *rho);
/* Checkpoint rows in kbe_rows.c's record (any order; at order p rows 0 .. 2p - 2, with the
 * start block's rows in row 2p - 2, are the CPU's start kbe's own): a row written by either
 * propagator is read by the other (their numbers agree to rounding, not to the bit). */
size_t kbcu_row_bytes(const kbcu *w, size_t n);
int kbcu_row_write(const kbcu *w, size_t n, void *buf);
int kbcu_row_read(kbcu *w, size_t n, const void *buf);
/* Benchmarks (tests/bench/kbe_gpu): the mean seconds of second Born's row and of the
 * collision integrals' row at t_m, m <= the steps taken (kbcu_dev_time_parts). */
int kbcu_time_parts(kbcu *w, size_t m, int reps, double *t_sigma, double *t_collision);
/* A step is one CUDA graph by default (kbe_cuda_graph.cu); on = 1 launches its kernels one
 * by one instead (the same numbers: benchmarks and tests compare the two), and how many
 * graphs a run instantiated. */
void kbcu_set_launch_each(kbcu *w, int on);
size_t kbcu_graph_instantiations(const kbcu *w);

#endif
