/* tempering.h — parallel tempering (tempering.c; run_state.h: mcf_tempering; internal).
 * All but mcf_pt_free and mcf_pt_set_temperatures are collective. */
#ifndef MCF_TEMPERING_H
#define MCF_TEMPERING_H

#include "run_state.h"

/* Sets r->pt: replica k starts in slot k. */
int mcf_pt_create(mcf_run *r);
void mcf_pt_free(mcf_tempering *pt);
/* Tells owned replica k the temperature of the slot it holds (unless force is 0 and that
 * is its own). */
int mcf_pt_set_temperatures(mcf_run *r, size_t k, int force);
/* At every chunk's end: the chunk's measurements to the slots their replicas held. */
int mcf_pt_flush(mcf_run *r);
/* Before the first sweep: weighs the next round once, so that a refusal stops the run. */
int mcf_pt_check_weights(mcf_run *r);
/* Every `every` sweeps: one exchange round. */
int mcf_pt_exchange(mcf_run *r);

#endif
