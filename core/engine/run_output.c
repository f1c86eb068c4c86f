/* run_output.c — a run's output folder: whether it already holds a run, its preparation
 * under the lock, and the earlier run a --force run keeps aside until the new run's first
 * state is written (run.c and optimize.c call it). */
#define _POSIX_C_SOURCE 200809L
#include "run_output.h"
#include "fileio.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int file_exists(const char *dir, const char *name)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return access(path, F_OK) == 0;
}

/* Whether DIR holds a run (or an optimization) that a fresh command of kind `kind` would
 * overwrite: its state or results, or a folder of another kind (DIR/kind: a band
 * calculation's, say).  Not the kind while DIR/.previous waits to be given back by the lock
 * (a --force run killed early): the look under the lock sees the folder's run. */
static int holds_run(const char *dir, int kind)
{
    if (file_exists(dir, "checkpoint") || file_exists(dir, "results.tsv") ||
        file_exists(dir, "optimize.state"))
        return 1;
    int k = MCFI_KIND_NONE;
    return file_exists(dir, "kind") && !file_exists(dir, ".previous") &&
           (mcfe_outdir_kind(dir, &k) || k != kind);
}

/* Refuses to start a fresh run over an earlier one (no side effects). */
int mcfi_run_check_output(const mcf_run *r, const mcf_run_options *opt)
{
    if (!opt->resume && !opt->force &&
        holds_run(r->dir, opt->optimize ? MCFI_KIND_OPTIMIZE : MCFI_KIND_RUN))
        return mcf_fail(MCF_EINVAL, "output folder %s already holds a run; continue it with "
                        "`mcf resume %s`, choose another [run] output, or pass --force to "
                        "overwrite it", r->dir, r->dir);
    return MCF_OK;
}

/* Rank 0's: the earlier run that a --force run keeps in DIR/.previous until its first
 * checkpoint (mcfe_run_execute is not reentrant: this is one per process, as the stop flag
 * of stop.c). */
static int previous_kept;

void mcfi_run_output_reset(void) { previous_kept = 0; }

/* Rank 0's output folder, under its lock (taken here unless the caller holds it): created
 * for a fresh run; a `run --force` killed before its first checkpoint gives the folder
 * back to the run it was replacing (which a fresh run again refuses to overwrite without
 * --force); the leftovers of killed runs go; a --force run keeps the earlier run aside; a
 * fresh run writes the configuration as used.  *cleaned: leftovers removed. */
int mcfi_run_prepare_output(const mcf_run *r, const mcf_run_options *opt, int *lock,
                            int *cleaned)
{
    int rc = opt->resume ? MCF_OK : mcfe_mkdir_p(r->dir);
    if (!rc && !opt->output_locked)
        rc = mcfe_outdir_lock(r->dir, lock);
    if (rc)
        return rc;
    *cleaned = mcfe_outdir_clean(r->dir);
    if (opt->resume)
        return MCF_OK;
    /* again, under the lock: a run may have finished here since the first look */
    rc = mcfi_run_check_output(r, opt);
    const int kind = opt->optimize ? MCFI_KIND_OPTIMIZE : MCFI_KIND_RUN;
    if (!rc && opt->force && holds_run(r->dir, kind)) {
        rc = mcfi_outdir_set_aside(r->dir);
        previous_kept = !rc;
    }
    if (rc)
        return rc;
    /* the folder's kind first (fileio.h): a folder with a configuration knows what it is */
    rc = mcfe_outdir_kind_write(r->dir, kind);
    if (rc)
        return rc;
    char path[4200];
    snprintf(path, sizeof path, "%s/config.ini", r->dir);
    return mcfe_write_atomic(path, r->setup->canonical, strlen(r->setup->canonical));
}

void mcfi_run_committed(const mcf_run *r)
{
    if (r->rank == 0 && previous_kept) {
        mcfi_outdir_drop_previous(r->dir);
        previous_kept = 0;
    }
}
