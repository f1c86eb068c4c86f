/* anneal.h — [schedule] start = anneal (anneal.c; internal): each chain begins from the
 * configuration that the next higher temperature of its scan reached after thermalizing. */
#ifndef MCF_ANNEAL_H
#define MCF_ANNEAL_H

#include "run_state.h"

/* The plan, when the setup asks for it (r->anneal stays NULL otherwise).  Thermalization
 * is cut into one part per temperature: at sweep s * thermalize / nT (s = 1 .. nT - 1)
 * the chains at the s-th highest temperature of each group (the chains that differ only in
 * T; walker w from walker w) take the configuration of the chains one temperature higher,
 * which have thermalized for a part.  The chains at the highest temperature start as the
 * model says.  Not collective. */
int mcfi_anneal_create(mcf_run *r);
void mcfi_anneal_free(struct mcfi_anneal *a);

/* The first hand-over sweep after `position` (chunks end there), UINT64_MAX when none. */
uint64_t mcfi_anneal_next(const mcf_run *r, uint64_t position);

/* At a hand-over sweep (r->position), the configurations of the chains one temperature
 * higher into the chains of that part: through save_configuration and
 * load_configuration, between ranks with an all-gather.  Elsewhere nothing.  Collective. */
int mcfi_anneal_hand_over(mcf_run *r);

/* Chain k takes the configuration of chain from[k] (SIZE_MAX: keeps its own), all at once
 * (every source is saved before any chain loads): through save_configuration and
 * load_configuration, between ranks with an all-gather (start = anneal's hand-overs, DMC's
 * comb).  `what` prefixes a failure's message.  Collective. */
int mcfi_hand_over(mcf_run *r, const size_t *from, const char *what);

#endif
