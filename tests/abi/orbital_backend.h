/* orbital_backend.h — one orbital evaluator driven through ABI 2's verbs by one of three
 * callers, and two scripts of calls that record every number the evaluator writes, for
 * test_orbital_adapters.c.  The callers:
 *   OB_TABLE1   an ABI-1 table (mcf_orbital_ops) called as an ABI-1 model calls it: its own
 *               workspace record holds a det handle per spin, made by det_create when a
 *               det_set changes m (the reference of the up adapter; given the down adapter's
 *               view, the ABI-1 model of the down adapter);
 *   OB_TABLE2   an ABI-2 table (mcf_orbital_evaluator) called directly with a batch;
 *   OB_HELPERS  ABI 2's checked helpers (mcf/orbital_model.h, MCF_WANT_ABI 2) with a bound
 *               handle and a batch whose evaluator is set: the up adapter for an ABI-1
 *               evaluator, the straight path for an ABI-2 one.
 * The same script through two callers must record the same bits. */
#ifndef MCF_TEST_ORBITAL_BACKEND_H
#define MCF_TEST_ORBITAL_BACKEND_H

#include <stddef.h>

#include "mcf/abi1_orbital.h" /* mcf_orbital_ops (OB_TABLE1): private to mcf since 1.0 */
#include "mcf/orbital_model.h"

#if MCF_WANT_ABI < 2
#error "orbital_backend.h wants ABI 2's helpers (mcf/orbital_model.h)"
#endif

typedef enum ob_kind { OB_TABLE1, OB_TABLE2, OB_HELPERS } ob_kind;

typedef struct ob_backend {
    ob_kind kind;
    const char *name;                  /* for messages */
    const mcf_orbital_ops *ops1;       /* OB_TABLE1 */
    const mcf_orbital_evaluator *ops2; /* OB_TABLE2 */
    void *app_data;                    /* OB_TABLE2: the descriptor's */
    const mcf_orbital *handle;         /* OB_HELPERS: bound */
    const mcf_params *params;          /* the [evaluator] values */
    mcf_batch *batch;                  /* OB_TABLE2, OB_HELPERS */
} ob_backend;

/* What a script recorded: every number an op wrote, in order.  failed: a call failed (what
 * says which, with the message); the script stopped there. */
typedef struct ob_record {
    double *v;
    size_t n, cap;
    int failed;
    char what[512];
    size_t accepted; /* moves accepted by the walker sweep (the dets script) */
} ob_record;

void ob_record_free(ob_record *r);

/* values only, then values, gradients and Laplacians, of three workspaces of 4, 0 and 6
 * points (positions inside and outside the cell), in one call each */
void ob_script_values(const ob_backend *be, const mcf_pw_orbitals *o, ob_record *out);

/* Two walkers of 3 up and 2 down electrons (o: at least 3 orbitals): det_set from rows and
 * inverses made here, det_trial of the four determinants in one call, det_ratio, two
 * det_accept, det_ratio, det_refresh, det_local, det_get; a second det_trial and a
 * walker_sweep with a Jastrow factor; det_get; det_set with another m and with m = 0
 * (det_get of an empty determinant recorded as its status). */
void ob_script_dets(const ob_backend *be, const mcf_pw_orbitals *o, ob_record *out);

/* ABI 2 only (mcf 1.2): two walkers of 3 up and 2 down electrons loaded as for the dets
 * script, then two walker_drift_sweep calls with a Jastrow factor and Gaussians made here
 * (time steps 0.05 and 0.15; fixed node in the second), each followed by det_get; every
 * accepted electron must lie in the cell. */
void ob_script_drift(const ob_backend *be, const mcf_pw_orbitals *o, ob_record *out);

/* 1 when a and b recorded the same bits (and neither failed); else 0, printing where */
int ob_same(const ob_record *a, const ob_record *b, const char *what);

#endif
