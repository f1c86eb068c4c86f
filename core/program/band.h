/* band.h — `mcf band CONFIG`: ideal states of a model (its periodic op, mcf/model.h) as
 * crystals, integrated over the Brillouin zone by a band evaluator (mcf/band.h): densities
 * of states, and per state and chemical potential the electrons, the band energy and the
 * grand potential per site — the variational phase diagram (band.c).  The program's, not
 * libmcf's; no Monte Carlo is run (the state configuration creates one chain and describes
 * its configuration: band_chain.c). */
#ifndef MCF_BAND_CMD_H
#define MCF_BAND_CMD_H

/* The command: argv after "band".  MCF_EINVAL for usage and bad input (exit status 2),
 * others for I/O (1). */
int mcfi_band_command(int argc, char **argv);

#endif
