/* tetra_impl.h — the k grid's layout, shared by tetra_grid.c and tetra_dos.c (not by the
 * library's users, who go through the accessors of tetra.h). */
#ifndef MCF_TETRA_IMPL_H
#define MCF_TETRA_IMPL_H

#include "tetra.h"

struct tetra_grid {
    size_t n[3];         /* points along each reciprocal vector */
    size_t nk;           /* n[0] n[1] n[2] */
    size_t bands;        /* = orbitals */
    double *eps;         /* nk x bands: eps[k bands + n], ascending in n */
    double *weight;      /* nk x bands x orbitals: |<a|n,k>|^2 at [(k bands + n) bands + a];
                            NULL without weights */
    double emin, emax;   /* extremes of eps */
    unsigned corner[6][4]; /* the 6 tetrahedra of a cell: corners as bits (bit d = +1 step
                              along reciprocal vector d) */
    double *tet_e;       /* (cell 6 + t) bands + n: band n's 4 corner energies in
                            tetrahedron t of the cell, sorted ascending (4 doubles each); NULL
                            when larger than TETRA_TABLE_MAX_BYTES (found on the fly) */
};

/* the largest table of sorted corner energies kept (tetra_grid.c) */
#define TETRA_TABLE_MAX_BYTES ((size_t)512 << 20)

/* The k indices of the 4 corners of tetrahedron t (0..5) of cell c (indexed like k). */
TETRA_API void tetra_grid_corners(const tetra_grid *g, size_t c, unsigned t, size_t k[4]);

#endif
