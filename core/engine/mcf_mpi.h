/* mcf_mpi.h — chains distributed over MPI ranks (internal; docs/architecture.md,
 * "MPI ranks").
 *
 * Built with -DMCF_MPI=ON the functions live in mpi.c; without it they are the inline
 * no-ops of a single process (rank 0 of 1), so the default build has no MPI dependency.
 * Every function but rank/size/active is collective: all ranks call it in the same order
 * (run.c keeps every rank on the same sequence of calls, failures included). */
#ifndef MCF_MPI_INTERNAL_H
#define MCF_MPI_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "mcf_engine.h"

#ifdef MCF_MPI

int mcfi_mpi_active(void);
int mcfi_mpi_size(void);

/* Element-wise maximum (doubles) and sum (uint64) over the ranks, in place. */
void mcfi_mpi_max_doubles(double *v, int n);
void mcfi_mpi_sum_u64(uint64_t *v, int n);
/* Rank 0 receives the concatenation of every rank's bytes in rank order in *all (malloc,
 * the caller frees; NULL with *all_size 0 on the other ranks). */
void mcfi_mpi_gather_bytes(const unsigned char *data, size_t size, unsigned char **all,
                           size_t *all_size);
/* Rank 0's *data (size *size) to every rank; the others get a malloc'd copy. */
void mcfi_mpi_bcast_bytes(unsigned char **data, size_t *size);
void mcfi_mpi_bcast_u64(uint64_t *v, int n);
/* Every rank receives the concatenation of every rank's bytes in rank order in *all
 * (malloc, the caller frees): the chains' energies and forwarded measurements of
 * parallel tempering. */
void mcfi_mpi_allgather_bytes(const unsigned char *data, size_t size, unsigned char **all,
                              size_t *all_size);

#else

static inline int mcfi_mpi_active(void) { return 0; }
static inline int mcfi_mpi_size(void) { return 1; }
static inline void mcfi_mpi_max_doubles(double *v, int n) { (void)v; (void)n; }
static inline void mcfi_mpi_sum_u64(uint64_t *v, int n) { (void)v; (void)n; }
static inline void mcfi_mpi_bcast_u64(uint64_t *v, int n) { (void)v; (void)n; }
/* never called in a single process: run.c gathers and broadcasts only with ranks > 1 */
static inline void mcfi_mpi_gather_bytes(const unsigned char *data, size_t size,
                                         unsigned char **all, size_t *all_size)
{
    (void)data;
    (void)size;
    *all = NULL;
    *all_size = 0;
}
static inline void mcfi_mpi_bcast_bytes(unsigned char **data, size_t *size)
{
    (void)data;
    (void)size;
}
/* never called in a single process either: run.c uses the local bytes directly */
static inline void mcfi_mpi_allgather_bytes(const unsigned char *data, size_t size,
                                            unsigned char **all, size_t *all_size)
{
    (void)data;
    (void)size;
    *all = NULL;
    *all_size = 0;
}

#endif
#endif
