/* kpm_step.h — one Chebyshev step of a block of vectors over all rows (kpm_step.c), the
 * engine's inner loop (kpm_engine.c).  Part of mcf_kpm_core, not installed.
 *
 * y = H~ x (first step) or y = 2 H~ x - y (later steps, in place), with the dot products
 * of the rows:  DIAG: tot[j] = Re <y_j|x_j>, tot[B + j] = <y_j|y_j>;
 *               GENERAL: tot[j] + i tot[B + j] = <w_j|y_j>.
 * Vectors in the block layout of kpm_core.h (row r of vector j: re at 2 B r + j, im at
 * 2 B r + B + j).  The rows' entries come from the ELL table, or, when the Hamiltonian's
 * hoppings are factorized (h->factors, mcf/hamiltonian_factors.h), from its field and the
 * lattice: the same numbers in the same order, so the same bits either way. */
#ifndef MCF_KPM_STEP_H
#define MCF_KPM_STEP_H

#include "kpm_core.h"

enum { STEP_DIAG = 0, STEP_GENERAL = 1 };

typedef struct step_args {
    const mcf_hamiltonian *h;
    double ia, b;       /* 1 / a and the shift */
    size_t B;
    const double *x;    /* r_n */
    double *y;          /* r_{n-1} in, r_{n+1} out */
    const double *w;    /* left vectors (GENERAL) */
    int first, mode;
} step_args;

/* Whether the step of a block of B vectors over h reads the field of factorized hoppings
 * rather than the table (the same bits either way).  By default (KPM_FORM_AUTO) only where
 * it was measured faster: rank 0, at least 4096 rows, blocks of 4 or more (kpm_step.c says
 * why); kpm_step_set_form(KPM_FORM_FIELD) takes the field wherever a field step exists (B >=
 * 4), KPM_FORM_TABLE never.  Process-wide, for tests and benchmarks: set it before steps
 * run. */
enum { KPM_FORM_AUTO = 0, KPM_FORM_FIELD = 1, KPM_FORM_TABLE = 2 };
KPM_API void kpm_step_set_form(int form);
KPM_API int kpm_step_reads_field(const mcf_hamiltonian *h, size_t B);

/* One step over the dim rows in nchunks chunks of KPM_CHUNK rows (OpenMP over chunks),
 * part: nchunks x 2 B scratch; the totals added chunk by chunk in a fixed order into
 * tot[0..2 B). */
KPM_API void kpm_step_all(size_t dim, size_t nchunks, double *part, const step_args *s,
                          double *tot);

#endif
