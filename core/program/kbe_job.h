/* kbe_job.h — the job of `mcf kbe` shared by a new run (kbe.c) and `mcf resume` of one
 * (kbe_resume.c): the configuration's sections, the plugins, the propagation and its files.
 * The program's, internal. */
#ifndef MCF_KBE_JOB_H
#define MCF_KBE_JOB_H

#include "kbe_checkpoint.h"
#include "kbe_drive.h"
#include "mcf_engine.h"

#include <stdint.h>
#include <stdio.h>

typedef struct kbe_job {
    mcf_config *c;
    mcf_section sec[KBE_SECTIONS]; /* run, kbe, pulse, output, model, evaluator */
    mcf_plugin *model, *evaluator;
    const mcf_dynamics_evaluator *ev;
    mcf_params params[KBE_SECTIONS];
    mcf_cell *crystal, *dipole;
    mcf_drive_terms terms;
    mcf_propagation prop;
    kbe_drive drive;
    unsigned orbitals;
    size_t nk_total;
    char *output;
    void *ws;
    mcf_batch *batch;
    /* k over MPI ranks (`mpirun -np P mcf kbe|resume`): set before mcfi_kbe_job_crystal, which
     * then hands the evaluator the gather service (P > 1); every rank runs the job, rank 0
     * alone writes and prints.  0: one process (also `mcf kbe-spectrum` under mpirun). */
    int distributed;
    mcf_dynamics_gather gather;
} kbe_job;

/* the files of a run: the tables, and the rows when it keeps a checkpoint */
typedef struct kbe_files {
    FILE *tsv, *nk, *rows;
    void *row;          /* a row's buffer, grown as rows grow */
    size_t row_cap;
    int kept;           /* the run keeps rows (every rank; rows is rank 0's file) */
} kbe_files;

/* the job's sections and plugins from j->c (output: [run] output or the config's name) */
int mcfi_kbe_job_setup(kbe_job *j);
/* the model's driven crystal, checked; the propagation; the evaluator's plan and create */
int mcfi_kbe_job_crystal(kbe_job *j);
void mcfi_kbe_job_free(kbe_job *j);
/* the time loop from step `from` (kbe.c) */
int mcfi_kbe_job_run(kbe_job *j, kbe_files *f, kbe_loop_state *st, uint64_t from);
/* DIR/name opened with mode; NULL with *rc set (naming the file) on failure */
FILE *mcfi_kbe_open_file(const kbe_job *j, const char *name, const char *mode, int *rc);
/* f's row buffer holds at least `bytes` (time row n's, for the message): MCF_ENOMEM else */
int mcfi_kbe_row_buffer(kbe_files *f, uint64_t n, uint64_t bytes);
/* the files closed and the row buffer freed; rc, or the first close's failure */
int mcfi_kbe_close_files(const kbe_job *j, kbe_files *f, int rc);
/* kbe_resume.c: a kbe folder's job rebuilt to t = 0 from DIR/config.ini (output = dir) and
 * its checkpoint's header into st; refused naming the folder when the evaluator keeps no
 * rows or the header does not fit the run.  The caller frees j (mcfi_kbe_job_free) either
 * way. */
int mcfi_kbe_job_open(const char *dir, kbe_job *j, kbe_loop_state *st, int distributed);
/* kbe_resume.c: rows 0..st->n of DIR/kbe-rows.bin read back into j's propagation (f's row
 * buffer used); MCF_EFORMAT naming the file for rows cut short or not the run's */
int mcfi_kbe_read_rows(kbe_job *j, kbe_files *f, const kbe_loop_state *st);
/* whether this process writes the files and prints (rank 0, or a job of one process) */
int mcfi_kbe_speaks(const kbe_job *j);
/* whether the evaluator keeps checkpoint rows (the optional ops of mcf 1.2) */
int mcfi_kbe_has_rows(const mcf_dynamics_evaluator *ev);
/* a monotonic clock in seconds */
double mcfi_kbe_now(void);

#endif
