/* kbe.h — `mcf kbe CONFIG`: real-time Kadanoff-Baym propagation of a model's driven crystal
 * (mcf/dynamics.h) by a dynamics evaluator, the drive and the files the program's (kbe.c;
 * the [kbe], [pulse] and [output] keys and the drive: kbe_drive.c).  No Monte Carlo. */
#ifndef MCF_KBE_CMD_H
#define MCF_KBE_CMD_H

/* The command: argv after "kbe".  MCF_EINVAL for usage and bad input (exit status 2),
 * MCF_EINTR after a stop signal, others for I/O (1). */
int mcfi_kbe_command(int argc, char **argv);
/* `mcf resume DIR` of a kbe folder: the run rebuilt from its checkpoint (kbe_checkpoint.h)
 * and continued to its last step; the files as the uninterrupted run's, byte for byte. */
int mcfi_kbe_resume(const char *dir);
/* `mcf kbe-spectrum DIR --at T ...` (kbe_spectrum.c): A_k(w) and its occupied part at the
 * average time T from the run's rows; DIR/spectrum-tT.tsv. */
int mcfi_kbe_spectrum_command(int argc, char **argv);
/* DIR/plot-NAME.svg (and .png) of DIR/TABLE, kbe.tsv or a spectrum file (kbe_plot.c);
 * a failure (no gnuplot) is a warning the caller may ignore: the tables are the results. */
int mcfi_kbe_plot(const char *dir, const char *table, const char *name);

#endif
