/* kbe_resume.c — `mcf resume DIR` of a kbe run (kbe.h, kbe_checkpoint.h): the propagation
 * made again from DIR/config.ini, its time rows 0..n read back from kbe-rows.bin, the files
 * cut to the checkpoint's lengths, and the time loop of kbe.c from step n + 1. */
#define _POSIX_C_SOURCE 200809L
#include "kbe.h"

#include "kbe_job.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

int mcfi_kbe_read_rows(kbe_job *j, kbe_files *f, const kbe_loop_state *st)
{
    int rc = MCF_OK;
    char path[4200];
    snprintf(path, sizeof path, "%s/" KBE_ROWS_FILE, j->output);
    FILE *in = mcfi_kbe_speaks(j) ? mcfi_kbe_open_file(j, KBE_ROWS_FILE, "rb", &rc) : NULL;
    char head[KBE_ROWS_HEAD];
    if (!rc && in && (fread(head, 1, sizeof head, in) != sizeof head ||
                memcmp(head, mcfi_kbe_rows_head, sizeof head) != 0))
        rc = mcf_fail(MCF_EFORMAT, "%s: not the time rows of a kbe run", path);
    double t_report = mcfi_kbe_now();
    int shown = 0;
    if (j->distributed) /* rank 0 reads the file, every rank the rows (a collective call) */
        rc = mcfe_mpi_agree(rc);
    for (uint64_t n = 0; !rc && n <= st->n; n++) {
        const uint64_t bytes = j->ev->row_bytes(j->ws, n);
        rc = mcfi_kbe_row_buffer(f, n, bytes);
        if (!rc && in && fread(f->row, 1, bytes, in) != bytes)
            rc = mcf_fail(MCF_EFORMAT, "%s: ends in time row %llu of the checkpoint's %llu "
                          "(cut short)", path, (unsigned long long)n,
                          (unsigned long long)st->n + 1);
        if (j->distributed && !(rc = mcfe_mpi_agree(rc)))
            mcfe_mpi_bcast(f->row, bytes);
        if (!rc && (rc = j->ev->row_read(j->ws, n, f->row)))
            rc = mcf_fail_prefix(rc, "%s: time row %llu", path, (unsigned long long)n);
        if (j->distributed) /* a slab refused on one rank: every rank stops here */
            rc = mcfe_mpi_agree(rc);
        if (!rc && in && mcfi_kbe_now() - t_report > 2.0) {
            t_report = mcfi_kbe_now();
            shown = 1;
            fprintf(stderr, "\rreading time row %llu/%llu", (unsigned long long)n,
                    (unsigned long long)st->n);
        }
    }
    if (shown) /* the progress line goes */
        fprintf(stderr, "\r%*s\r", 40, "");
    const long at = in ? ftell(in) : -1;
    if (in)
        fclose(in);
    if (!rc && at >= 0 && (uint64_t)at != st->rows_bytes)
        rc = mcf_fail(MCF_EFORMAT, "%s: rows 0..%llu end at byte %ld, the checkpoint says %llu",
                      path, (unsigned long long)st->n, at, (unsigned long long)st->rows_bytes);
    return j->distributed ? mcfe_mpi_agree(rc) : rc;
}

/* rows 0..st->n of kbe-rows.bin into the fresh propagation, the three files cut to the
 * checkpoint's lengths and opened to append */
static int job_reload(kbe_job *j, kbe_files *f, const kbe_loop_state *st)
{
    char path[4200];
    int rc = mcfi_kbe_read_rows(j, f, st);
    f->kept = 1;
    if (!mcfi_kbe_speaks(j)) /* rank 0's files */
        return rc;
    /* what a kill left beyond the checkpoint goes: the run writes it again */
    static const char *const names[3] = {"kbe.tsv", "nk.tsv", KBE_ROWS_FILE};
    const uint64_t len[3] = {st->tsv_bytes, st->nk_bytes, st->rows_bytes};
    for (int k = 0; k < 3 && !rc; k++) {
        if (k == 1 && !j->drive.n_nk_times)
            continue;
        snprintf(path, sizeof path, "%s/%s", j->output, names[k]);
        if (truncate(path, (off_t)len[k]) != 0)
            rc = mcf_fail(MCF_EIO, "%s: cannot be cut to the checkpoint's %llu bytes (%s)",
                          path, (unsigned long long)len[k], strerror(errno));
    }
    if (!rc)
        f->tsv = mcfi_kbe_open_file(j, "kbe.tsv", "a", &rc);
    if (!rc && j->drive.n_nk_times)
        f->nk = mcfi_kbe_open_file(j, "nk.tsv", "a", &rc);
    if (!rc)
        f->rows = mcfi_kbe_open_file(j, KBE_ROWS_FILE, "ab", &rc);
    return rc;
}

int mcfi_kbe_job_open(const char *dir, kbe_job *j, kbe_loop_state *st, int distributed)
{
    memset(j, 0, sizeof *j);
    j->distributed = distributed; /* every rank reads config.ini and the checkpoint's header */
    char path[4200];
    snprintf(path, sizeof path, "%s/config.ini", dir);
    unsigned order = 2;
    int rc = mcfi_kbe_checkpoint_read(dir, st, &order);
    if (!rc)
        rc = mcfe_config_read(path, &j->c);
    if (!rc)
        rc = mcfi_kbe_job_setup(j);
    if (!rc) { /* the folder is the output, wherever config.ini's [run] output pointed */
        free(j->output);
        j->output = strdup(dir);
        rc = j->output ? MCF_OK : mcf_fail(MCF_ENOMEM, "out of memory");
    }
    if (!rc)
        rc = mcfi_kbe_job_crystal(j);
    if (!rc && order != j->prop.order) /* config.ini edited since: rows of another scheme */
        rc = mcf_fail(MCF_EFORMAT, "%s/checkpoint: a run of order %u, where %s/config.ini "
                      "asks for order %u", dir, order, dir, j->prop.order);
    if (!rc && !mcfi_kbe_has_rows(j->ev))
        rc = mcf_fail(MCF_EINVAL, "%s: the evaluator %s keeps no time rows: the run cannot "
                      "be rebuilt", dir, j->evaluator->info->name);
    if (!rc && st->n > j->prop.steps)
        rc = mcf_fail(MCF_EFORMAT, "%s/checkpoint: step %llu past the run's %llu steps", dir,
                      (unsigned long long)st->n, (unsigned long long)j->prop.steps);
    return distributed ? mcfe_mpi_agree(rc) : rc;
}

int mcfi_kbe_resume(const char *dir)
{
    kbe_job j;
    kbe_loop_state st;
    const int distributed = mcfe_mpi_size() > 1, speaks = mcfe_mpi_rank() == 0;
    int lock = -1, rc = mcfi_kbe_job_open(dir, &j, &st, distributed);
    if (!rc && speaks)
        rc = mcfe_outdir_lock(dir, &lock);
    if (distributed)
        rc = mcfe_mpi_agree(rc);
    kbe_files f = {0};
    if (!rc && st.n == j.prop.steps) {
        if (speaks)
            printf("mcf kbe: %s has finished (%llu steps); nothing to do\n", dir,
                   (unsigned long long)st.n);
    } else if (!rc) {
        if (speaks)
            printf("mcf kbe: resuming %s at step %llu of %llu\n", dir,
                   (unsigned long long)st.n + 1, (unsigned long long)j.prop.steps);
        rc = job_reload(&j, &f, &st);
        if (distributed)
            rc = mcfe_mpi_agree(rc);
        if (!rc)
            rc = mcfi_kbe_job_run(&j, &f, &st, st.n + 1);
        rc = mcfi_kbe_close_files(&j, &f, rc);
    }
    if (lock >= 0)
        mcfe_outdir_unlock(lock);
    if (!rc && speaks) {
        printf("mcf: %s/kbe.tsv%s\n", j.output, j.drive.n_nk_times ? " and nk.tsv" : "");
        mcfi_kbe_plot(j.output, "kbe.tsv", "kbe"); /* a warning at worst */
    }
    mcfi_kbe_job_free(&j);
    return rc;
}

