/* anderson_internal.h — what the two files of the Anderson model share: the chain, the
 * positions of the observables, and the measurement functions that the descriptor
 * (anderson.c) lists.  Not installed and not part of the SDK.
 *
 * Files: anderson.c (parameters, the disorder realizations, create/destroy, the checkpoint
 * record, the descriptor), anderson_measure.c (DOS, typical DOS and LDOS from the
 * evaluator), anderson_periodic.c (crystals for band evaluators). */
#ifndef MCF_ANDERSON_INTERNAL_H
#define MCF_ANDERSON_INTERNAL_H

#include "mcf/mcf.h"

#include <stddef.h>
#include <stdint.h>

/* [model] lattice: its choices, and their positions (mcf_params_choice) */
#define ANDERSON_LATTICES "square|cubic|bcc"
enum { ANDERSON_SQUARE, ANDERSON_CUBIC, ANDERSON_BCC };

/* positions in anderson_observables (anderson.c): three curves of the evaluator's `points`
 * values, then the moment curves (MCF_FERMION_MOMENT_OBSERVABLES: M, M and 2 values, and
 * ldos_moments: M), which have no values when the evaluator has no moments (M = 0) */
enum { OBS_DOS = 0, OBS_TYPICAL = 1, OBS_LDOS = 2, OBS_DOS_MOMENTS = 3, OBS_LDOS_MOMENTS = 6 };
/* then the conductivity's moment curves (MCF_RESPONSE_POINTS(response_moments) values each,
 * none when response_moments = 0) */
enum { OBS_SIGMA_XX_MOMENTS = 7, OBS_SIGMA_XY_MOMENTS = 8 };
/* then the Bloch states' moments (MCF_SPECTRAL_POINTS(nk, spectral_moments), none when 0) */
enum { OBS_SPECTRAL_MOMENTS = 9 };

typedef struct anderson_chain {
    int32_t lattice[2];          /* mcf_lattice_kind, mcf_boundary: as the record stores them */
    int64_t L, sites;            /* likewise */
    size_t n;                    /* sites */
    double W, t;
    double theta[3];             /* the twist, radians (mcf_lattice_twist) */
    uint64_t chain_index;
    const mcf_services *services; /* borrowed until destroy: the keyed disorder stream */
    mcf_hamiltonian *h;
    mcf_fermion ev;              /* the bound evaluator (mcf_fermion_bind) */
    void *ws;                    /* the evaluator's workspace, bound to h */
    size_t points;               /* energy grid */
    double *E;
    mcf_rng mrng;                /* the measurement stream */
    uint64_t realizations;       /* realizations drawn so far, the initial one included */
    size_t n_typical, n_ldos;    /* sampled sites; listed sites */
    size_t *rows;                /* n_typical sampled, then the n_ldos listed sites */
    unsigned char *mark;         /* n: scratch for sampling without replacement */
    double *ldos_buf;            /* (n_typical + n_ldos) x points */
    size_t M;                    /* moments per density, 0: the evaluator has none */
    double *ldos_mu;             /* (n_typical + n_ldos) x M: the rows' LDOS moments */
    size_t Mr;                   /* [model] response_moments (0: none) */
    mcf_hamiltonian *jx, *jy;    /* the current operators (mcf_current_operator), with Mr */
    double response_tail[3];     /* -bound, bound, sites / L^d (bcc: 2): the moments' tail */
    size_t Ms;                   /* [model] spectral_moments (0: none) */
    mcf_kpath *kpath;            /* spectral_path's wave vectors, with Ms */
    double *bloch;               /* nk Bloch vectors (2 N doubles each), with Ms: fixed */
} anderson_chain;

/* ---- anderson_measure.c --------------------------------------------------------------- */

int anderson_measure(mcf_batch *batch, void *const *chains, size_t n, double *const *values);
/* curve `index`'s length for the chain, and its axis into `axis` unless NULL (layout) */
size_t anderson_curve_points(const void *chain, size_t index, double *axis);

/* anderson_periodic.c: the clean lattice, or a chain's realization in its box, as a crystal
 * (mcf_model.periodic) */
int anderson_periodic(const mcf_params *params, const void *chain, const char *state,
                      mcf_cell *cell);

#endif
