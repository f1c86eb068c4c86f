/* optimize_state.h — optimize.state, what `mcf resume DIR` continues an optimization from
 * (optimize_state.c; internal; optimize.c runs the iterations). */
#ifndef MCF_OPTIMIZE_STATE_H
#define MCF_OPTIMIZE_STATE_H

#include "run_state.h"

#define OPT_MAGIC "mcfoptS2"

/* What optimize.state holds besides the chains. */
typedef struct opt_head {
    char magic[8];
    uint64_t config_hash;
    uint64_t iteration;   /* the next iteration to run */
    uint64_t P, chains;
    double shift;
    double e_acc, e_acc_err, v_acc, v_acc_err; /* the last accepted iteration (NAN: none) */
    uint64_t n_avg;                            /* iterations in the average */
    double avg_e, avg_err2;                    /* sums of their energies, errors^2 */
} opt_head;

/* DIR/optimize.state := h, the parameters p (h->P of them) and every chain's model state and
 * random stream, atomically (temporary name, fsync, rename; never through a link).  Errors
 * name the file. */
int mcfi_opt_state_write(const mcf_run *r, const opt_head *h, const double *p);
/* 1 when there is no state file; MCF_OK when loaded into h, p (P values) and the chains;
 * MCF_EFORMAT (damaged, foreign or of another configuration) or MCF_EIO naming the file and
 * what to do. */
int mcfi_opt_state_read(mcf_run *r, opt_head *h, double *p, size_t P);
/* `mcf resume` of an optimization without optimize.state: 1 when it had not written its
 * first state (start from the configuration), an MCF_EFORMAT error when iterations were
 * recorded (optimize.tsv) and the state is lost. */
int mcfi_opt_missing_state(const mcf_run *r);

#endif
