/* kbe_checkpoint.h — the checkpoint of `mcf kbe` (kbe_checkpoint.c; the program's, internal).
 * A kbe run keeps two files for it in its folder:
 *   kbe-rows.bin: the evaluator's time rows 0, 1, 2, ... appended as the run steps (its
 *     row_write records, mcf/dynamics.h), after a 16-byte head "MCF-KBE-ROWS-1\n\0";
 *   checkpoint: this header, replaced atomically every [output] checkpoint_every steps, at a
 *     stop by a signal and at the end: the last step n whose rows and table rows are all
 *     written, the lengths of kbe-rows.bin, kbe.tsv and nk.tsv then, and the time loop's own
 *     state (the drive's work so far, ...).
 * `mcf resume DIR` reads rows 0..n back, cuts the three files to those lengths (what a kill
 * left after the header) and goes on from step n + 1: the same files, byte for byte, as the
 * run that was not stopped. */
#ifndef MCF_KBE_CHECKPOINT_H
#define MCF_KBE_CHECKPOINT_H

#include "mcf/dynamics.h"

#include <stdint.h>

#define KBE_ROWS_FILE "kbe-rows.bin"
#define KBE_ROWS_HEAD 16

/* the time loop's state after step n's rows (kbe.c) */
typedef struct kbe_loop_state {
    uint64_t n;                          /* the last step written */
    uint64_t rows_bytes, tsv_bytes, nk_bytes; /* the files' lengths then */
    uint64_t next_nk;                    /* nk.tsv's next time */
    double work, e0, max_balance, max_anti;
    mcf_dynamics_observables prev;       /* the observables at t_n */
} kbe_loop_state;

/* DIR/checkpoint from s and the step's order ([kbe] order), atomically (MCF_EIO naming the
 * file). */
int mcfi_kbe_checkpoint_write(const char *dir, const kbe_loop_state *s, unsigned order);
/* DIR/checkpoint into s: MCF_EINVAL when there is none (saying why a run may lack it),
 * MCF_EFORMAT naming the file for one that is not a kbe checkpoint of this build or is
 * damaged (its checksum); *order: the order the run was written with. */
int mcfi_kbe_checkpoint_read(const char *dir, kbe_loop_state *s, unsigned *order);
/* the 16 bytes that open kbe-rows.bin */
extern const char mcfi_kbe_rows_head[KBE_ROWS_HEAD];

#endif
