/* error_target.h — [schedule] error_target and max_sweeps: a run that measures until its
 * error bars are small enough (error_target.c; internal).
 *
 * The measured phase is sweeps, 2 sweeps, 4 sweeps ... long: at its end rank 0 computes the
 * table of results.tsv and, when some scan point misses a target (its error too large, or
 * an error behind it without a plateau: an untrusted extrapolation) and doubling stays within
 * max_sweeps, every chain measures as long again.  Doubling keeps the jackknife bins
 * contiguous: measurement t of n goes to bin t bins / n, and with 2n measurements bin b
 * holds exactly the old bins 2b and 2b + 1, so the bins merge pairwise and the new
 * measurements fill the upper half.  Which doubling a run is in follows from its position
 * (sweeps done) alone, so a checkpoint needs no field for it: at the end of a measured
 * phase the checkpoint holds the bins before the merge, and a resume from there makes the
 * same decision from the same numbers. */
#ifndef MCF_ERROR_TARGET_H
#define MCF_ERROR_TARGET_H

#include "internal.h"

typedef struct mcfi_error_target {
    char *name;      /* a column of results.tsv that has NAME_err (owned) */
    double value;    /* the bound: absolute, or a fraction of |NAME| when relative */
    int relative;    /* 1: "NAME:VALUE%" */
} mcfi_error_target;

/* Parses [schedule] error_target ("NAME:VALUE[%] ...", space-separated) into s->targets (syntax only;
 * where names the key for messages).  MCF_EINVAL with the reason. */
int mcfi_error_target_parse(const char *text, const char *where, mcf_setup *s);
/* Once the model is open: every target names a column with an error for this model and
 * scan, sweeps is a multiple of measure_every, max_sweeps (0: 16 sweeps) >= sweeps.  Sets
 * s->max_sweeps to the largest sweeps * 2^k within it. */
int mcfi_error_target_check(const mcf_config *c, mcf_setup *s);
void mcfi_error_target_free(mcf_setup *s);
/* The target named `name` ("tc": the critical temperature of `mcf tc CONFIG`), or NULL. */
const mcfi_error_target *mcfi_error_target_find(const mcf_setup *s, const char *name);

/* The measured sweeps of the phase that sweep `position` belongs to (s->sweeps without a
 * target; position at the end of a phase belongs to it), and the most a run can reach. */
uint64_t mcfi_measured_sweeps_at(const mcf_setup *s, uint64_t position);
uint64_t mcfi_measured_sweeps_max(const mcf_setup *s);

/* Sets r->sweeps, r->n_meas and r->total for `sweeps` measured sweeps. */
void mcfi_run_set_measured(mcf_run *r, uint64_t sweeps);

/* Collective, at the end of a measured phase after its checkpoint (rank 0 holds every
 * chain's accumulators): *extend = 1 when a target is missed and doubling is allowed, and
 * then the bins are merged and the schedule doubled; r->target_report says how it stands
 * (for the log, results.tsv and the summary).  Without targets *extend = 0. */
int mcfi_error_target_decide(mcf_run *r, int *extend);

#endif
