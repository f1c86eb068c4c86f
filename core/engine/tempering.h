/* tempering.h — parallel tempering (tempering.c; run_state.h: mcf_tempering; internal).
 * All but mcfi_pt_free and mcfi_pt_set_temperatures are collective. */
#ifndef MCF_TEMPERING_H
#define MCF_TEMPERING_H

#include "run_state.h"

/* Sets r->pt: replica k starts in slot k. */
int mcfi_pt_create(mcf_run *r);
void mcfi_pt_free(mcf_tempering *pt);
/* Tells owned replica k the temperature of the slot it holds (unless force is 0 and that
 * is its own). */
int mcfi_pt_set_temperatures(mcf_run *r, size_t k, int force);
/* At every chunk's end: the chunk's measurements to the slots their replicas held. */
int mcfi_pt_flush(mcf_run *r);
/* Before the first sweep: weighs the next round once, so that a refusal stops the run. */
int mcfi_pt_check_weights(mcf_run *r);
/* Every `every` sweeps: one exchange round. */
int mcfi_pt_exchange(mcf_run *r);

#endif
