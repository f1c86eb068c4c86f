/* optimize.h — `mcf optimize`: the linear-method loop over a run's chains (optimize.c;
 * internal).  run.c opens the run, its chains, log and signals, then hands over. */
#ifndef MCF_OPTIMIZE_H
#define MCF_OPTIMIZE_H

#include "run_state.h"
#include "sweep.h"

/* The keys of [optimize] (setup.c checks the section with them). */
const mcf_param_spec *mcfi_optimize_specs(void);
/* Before anything is written: the model offers the variational ops, one scan point, no
 * tempering, readable [optimize] values.  MCF_EINVAL naming what is missing. */
int mcfi_optimize_check(const mcf_setup *s);
/* After the chains are created, before anything is written: they have parameters (else
 * MCF_EINVAL with the model's advice), the same number each. */
int mcfi_optimize_check_chains(const mcf_run *r);
/* The iterations (resume: from DIR/optimize.state when there is one).  MCF_EINTR when a
 * signal stopped it (the state of the unfinished iteration's start is kept).  stage: the
 * first stage of [model] KEY = optimized (the run after it takes the parameters). */
int mcfi_optimize_run(mcf_run *r, mcf_group *groups, int threads, int resume, int stage);

/* ---- [model] KEY = optimized (variational_file.c) ------------------------------------ */
/* A run of a setup with optimized_key (not an optimization): every chain this rank owns
 * gets the parameters of DIR/optimize/parameters.txt.  MCF_EINVAL naming the file and what
 * to run when it is not there, MCF_EFORMAT when it is not the file the core wrote. */
int mcfi_variational_load(mcf_run *r);

#endif
