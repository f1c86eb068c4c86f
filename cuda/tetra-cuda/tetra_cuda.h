/* tetra_cuda.h — the tetrahedron method of plugins/tetra (tetra.h) on the GPU: the static
 * library mcf_tetra_cuda (prefix tcu_, hidden visibility), used by the band evaluator
 * tetra-cuda, its test (tests/gpu/test_tetra_cuda.c) and its benchmark
 * (tests/bench/tetra_gpu.c).
 *
 * The grid, the tetrahedra, the formulas and the units are those of tetra.h (the same
 * Kuhn cut around the shortest diagonal; the single-tetrahedron formulas are the same
 * source, tetra_point.inc).  What differs is where the work runs:
 *
 *   - H(k) for every k point is built on the device from the crystal's hoppings, and all
 *     k points' eigenproblems are solved in one batched pass: the own cyclic Jacobi kernel
 *     (one thread per k point, the batch's matrices interleaved so that a warp's loads are
 *     one transaction), or cuSOLVER's zheevjBatched (orbitals <= 32); one cusolverDnZheevd
 *     call per k point is kept for the benchmark's comparison only.
 *   - The DOS, N(E) and the orbital DOS are summed by a kernel whose thread blocks each take
 *     a tile of consecutive (sorted) energies and a fixed chunk of cells: the block stages
 *     its tetrahedra (corner energies sorted, with their k points) in shared memory, each
 *     warp skips a tetrahedron that lies wholly above its 32 energies or counts one wholly
 *     below, and each thread adds what the tetrahedron gives at its energy into its own
 *     registers and shared-memory column.  The chunks' partial sums are added in chunk
 *     order by a second kernel: no atomics, every result the same bit for bit from run to
 *     run (and on any GPU: the chunks depend on the grid only).
 *   - precision: TCU_DOUBLE (double inputs, arithmetic and sums), TCU_MIXED (float bands,
 *     weights and arithmetic, double sums) or TCU_SINGLE (float throughout, the seed's
 *     choice).  The outputs are doubles in every case.
 *
 * A grid is made either from a crystal (the bands computed here) or from bands computed
 * elsewhere (tcu_grid_from_bands: the seed's setting, and the test's way to compare the
 * integration alone with the CPU's).  The grid keeps its bands and weights on the device;
 * a host copy is made on request.
 *
 * Errors: MCF_OK, or MCF_EINVAL / MCF_ENOMEM / MCF_EDEVICE with a message (mcf_fail),
 * prefixed "tetra-cuda".  Call mcu_device_init first (mcf_cuda.h). */
#ifndef MCF_TETRA_CUDA_H
#define MCF_TETRA_CUDA_H

#include <stddef.h>

#include "mcf/periodic.h"

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define TCU_API __attribute__((visibility("hidden")))
#else
#define TCU_API
#endif

typedef enum tcu_solver {
    TCU_JACOBI = 0,       /* the own batched cyclic Jacobi kernel (any number of orbitals) */
    TCU_CUSOLVER = 1,     /* cuSOLVER zheevjBatched (orbitals <= 32) */
    TCU_CUSOLVER_PER_K = 2 /* one cusolverDnZheevd call per k point (benchmark only) */
} tcu_solver;

typedef enum tcu_precision {
    TCU_DOUBLE = 0, /* double bands, arithmetic and sums */
    TCU_MIXED = 1,  /* float bands and arithmetic, double sums */
    TCU_SINGLE = 2  /* float throughout */
} tcu_precision;

typedef struct tcu_grid tcu_grid;

/* The grid of n[0] x n[1] x n[2] k points shifted by shift[0..3) steps (NULL: none) with the
 * bands of the crystal p (checked with mcf_periodic_check, not retained) found by `solver`,
 * and the orbital weights when with_weights. */
TCU_API int tcu_grid_create(const mcf_periodic *p, const size_t n[3], const double shift[3],
                            int with_weights, tcu_solver solver, tcu_grid **out);

/* The grid of n[0] x n[1] x n[2] points over `bands` given on the host, laid out like
 * tetra.h's: eps[k bands + b] ascending in b, weight[(k bands + b) bands + a] (NULL: none);
 * `metric` the reciprocal metric (tetra_reciprocal_metric: b_i . b_j up to a common
 * factor, zero beyond the periodic directions), which picks the cells' shortest diagonal. */
TCU_API int tcu_grid_from_bands(const size_t n[3], size_t bands, const double *eps,
                                const double *weight, const double metric[3][3],
                                tcu_grid **out);
TCU_API void tcu_grid_destroy(tcu_grid *g);

TCU_API size_t tcu_grid_points(const tcu_grid *g);
TCU_API size_t tcu_grid_bands(const tcu_grid *g);
TCU_API int tcu_grid_has_weights(const tcu_grid *g);
TCU_API double tcu_grid_emin(const tcu_grid *g);
TCU_API double tcu_grid_emax(const tcu_grid *g);

/* Copies the bands (points x bands) and, when weight is not NULL and the grid has them, the
 * weights (points x bands x bands) to the host, laid out as in tcu_grid_from_bands. */
TCU_API int tcu_grid_copy_bands(const tcu_grid *g, double *eps, double *weight);

/* As tetra_dos (tetra.h), in the given precision. */
TCU_API int tcu_dos(tcu_grid *g, size_t n_E, const double *E, int bloechl, tcu_precision prec,
                    double *dos, double *idos, double *orbital_dos);

/* As tetra_band_energy, in double. */
TCU_API int tcu_band_energy(tcu_grid *g, double E_F, int bloechl, double *electrons,
                            double *energy);

/* As tetra_fermi_level (the same search, tetra_fermi_search, over this grid's N(E)). */
TCU_API int tcu_fermi_level(tcu_grid *g, double electrons_per_cell, double *E_F);

/* What the last call on g took, from CUDA events on the device (ms), and the bytes its
 * kernels had to move at least (inputs read once, outputs written once): for the
 * benchmark.  After tcu_grid_create: hk (building every H(k)), eigen (the eigensolver and
 * the sorted bands and weights), tables (the float copies and the extremes).  After
 * tcu_dos: integrate (the sum over tetrahedra), reduce (the chunks' sum), floor_bytes
 * (bands, weights when asked, the sorted energies and the outputs). */
typedef struct tcu_timing {
    double hk_ms, eigen_ms, tables_ms;
    double integrate_ms, reduce_ms;
    double floor_bytes;
    size_t chunks, tile;
} tcu_timing;
TCU_API void tcu_grid_timing(const tcu_grid *g, tcu_timing *out);

#ifdef __cplusplus
}
#endif
#endif
